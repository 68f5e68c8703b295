//! The Verilated `OffloadTop` as a transport for the host driver ([`VerilatedTop`], the
//! testbench's [`TopBench`] over the Verilated Verilog), and the Verilated board core behind
//! the FrontPanel calls ([`VerilatedBoard`], the testbench's [`BoardBench`]).

use crate::model::{model_info, SimError, VerilatedModel};
pub use offload_hdl::testbench::{BoardBench, TopBench};

/// The Verilated `OffloadTop`.
pub type VerilatedTop = TopBench<VerilatedModel>;

/// The top called `name` in the registry (`top_w4`, `top_w8`), Verilated and reset.
pub fn verilated_top(name: &str) -> Result<VerilatedTop, SimError> {
    Ok(TopBench::new(VerilatedModel::new(model_info(name)?))?)
}

/// The Verilated board core.
pub type VerilatedBoard = BoardBench<VerilatedModel>;

/// The board core (`board_core_w4`), Verilated.
pub fn verilated_board() -> Result<VerilatedBoard, SimError> {
    Ok(BoardBench::new(VerilatedModel::new(model_info("board_core_w4")?)))
}
