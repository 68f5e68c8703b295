//! Co-simulation of the MCTP blocks.
//! - TX packetizer ([`run_mctp_tx`]): messages in through the AXI-Stream driver (length on
//!   `s_len`, header fields on the `cfg_*` side channels, set by the driver's per-frame hook
//!   just before each message's first beat), packets collected from `m_*` (one frame per
//!   packet), counters read back.
//! - RX depacketizer ([`run_mctp_rx`]): frames (one per packet) in, messages collected from
//!   `m_*` with their header fields from the `m_src_eid`/`m_dst_eid`/`m_tag`/`m_to` side
//!   channels, the drop counters read back.

use offload_hdl::testbench::Traffic;
use crate::model::{SimError, VerilatedModel};

pub use offload_hdl::testbench::{MctpTxJob, MctpTxRun};

/// Resets `m` (an MCTP TX model) and packetizes `jobs` in order: the testbench's driver
/// ([`offload_hdl::testbench::run_mctp_tx`]), which also drives rust-hdl's simulation and the
/// lockstep of both.
pub fn run_mctp_tx(m: &mut VerilatedModel, jobs: &[MctpTxJob], traffic: &Traffic) -> Result<MctpTxRun, SimError> {
    Ok(offload_hdl::testbench::run_mctp_tx(m, jobs, traffic)?)
}

/// Configuration of an MCTP RX run: the block's static `cfg_*` ports (the register block's
/// `MCTP_RX_CONFIG`/`MCTP_RX_MAX_LEN` in a top).
pub use offload_driver::registers::MctpRxConfig;

/// The RX block's counter ports, in order (the software model's list).
pub use offload_driver::mctp::RX_COUNTERS;

/// What an MCTP RX run produced; the bench that binds, configures and resets a model: the
/// testbench's driver, which also drives rust-hdl's simulation and the lockstep of both.
pub use offload_hdl::testbench::{MctpRxBench as GenericMctpRxBench, MctpRxRun};

/// The Verilated MCTP RX bench.
pub type MctpRxBench<'m> = GenericMctpRxBench<'m, VerilatedModel>;

/// Resets `m` (an MCTP RX model) with `cfg` on its static ports and feeds it `frames` (one
/// per packet) in one stream ([`offload_hdl::testbench::run_mctp_rx`]).
pub fn run_mctp_rx(
    m: &mut VerilatedModel,
    cfg: &MctpRxConfig,
    frames: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MctpRxRun, SimError> {
    Ok(offload_hdl::testbench::run_mctp_rx(m, cfg, frames, traffic)?)
}
