//! One testbench for every streaming block (the verilog-axis habit): the same traffic generator
//! — random frame lengths, random idle cycles on the inputs, random back-pressure on the
//! outputs, over the grid of widths a block ships — drives
//!
//! - rust-hdl's simulation of the block's one `#[hdl_gen]` description ([`HdlModel`], short
//!   runs: ~10^4 clocks/s),
//! - the Verilated Verilog emitted from that same description (`offload_sim::VerilatedModel`,
//!   long runs: ~10^6–10^7 clocks/s),
//! - and both at once in [`Lockstep`], every output compared every cycle (what catches the
//!   places where rust-hdl and Verilog size an expression differently),
//!
//! each checked against the software model of `offload-driver`. The block drivers
//! ([`run_crc_frames`], [`run_mpa_tx`]) are written against [`ClockedModel`] and so serve all
//! three.

pub mod axis;
pub mod crc;
pub mod hooked;
pub mod lockstep;
pub mod mctp_rx;
pub mod mctp_tx;
pub mod model;
pub mod mpa_rx;
pub mod mpa_tx;
pub mod rust_hdl;
pub mod top;

pub use axis::{random_frames, run_streams, run_streams_with_frame_hook, traffic_grid, AxisPorts, StreamRun, Traffic};
pub use crc::{run_crc_frames, CrcRun};
pub use hooked::Hooked;
pub use lockstep::{Lockstep, Mismatch};
pub use mctp_rx::{run_mctp_rx, MctpRxBench, MctpRxRun};
pub use mctp_tx::{run_mctp_tx, MctpTxJob, MctpTxRun};
pub use model::{BenchError, ClockedModel, PortId};
pub use mpa_rx::{
    compare_with_deframer, continue_mpa_rx, random_segments, rfc5044_figure_streams, run_mpa_rx, MpaRxRun, RxFrame,
};
pub use mpa_tx::{run_mpa_tx, MpaTxRun};
pub use rust_hdl::{HdlModel, HdlPort, PortValue};
pub use top::{BoardBench, TopBench};
