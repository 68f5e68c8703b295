//! The MPA TX framer's driver: ULPDUs in through the AXI-Stream traffic generator (with their
//! length on `s_len`), FPDUs collected from `m_*` (one frame per FPDU), configuration and the
//! stream offset applied through reset, counters read back.

use super::axis::{run_streams, AxisPorts, StreamRun, Traffic};
use super::model::{BenchError, ClockedModel};
use crate::ports::Dir;
use offload_driver::mpa::FramingConfig;

/// What an MPA TX run produced.
#[derive(Clone, Debug)]
pub struct MpaTxRun {
    /// One entry per FPDU, in order (Markers included).
    pub fpdus: Vec<Vec<u8>>,
    /// The block's `fpdus` and `dropped` counters at the end.
    pub fpdu_count: u64,
    pub dropped: u64,
    pub stream: StreamRun,
}

/// Configures `m` (an MPA TX model), resets it so it loads `offset` (the stream offset of the
/// first output octet), and frames `ulpdus`.
pub fn run_mpa_tx<M: ClockedModel + ?Sized>(
    m: &mut M,
    config: &FramingConfig,
    offset: u64,
    ulpdus: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MpaTxRun, BenchError> {
    let input = AxisPorts::bind(m, "s_", true)?;
    let output = AxisPorts::bind(m, "m_", false)?;
    if input.len.is_none() {
        return Err(BenchError::Port("MPA TX model has no s_len".into()));
    }
    let set = |m: &mut M, name: &str, width: usize, v: u64| -> Result<(), BenchError> {
        let p = m.expect_port(name, Dir::In, Some(width))?;
        m.set(p, v);
        Ok(())
    };
    set(m, "cfg_markers", 1, config.markers as u64)?;
    set(m, "cfg_crc", 1, config.crc as u64)?;
    set(m, "cfg_mulpdu", 16, config.mulpdu.min(u16::MAX as usize) as u64)?;
    set(m, "cfg_offset", 16, offset & 0xFFFF)?;
    let fpdus = m.expect_port("counters_fpdus", Dir::Out, Some(32))?;
    let dropped = m.expect_port("counters_dropped", Dir::Out, Some(32))?;
    m.reset(2);
    let stream = run_streams(m, &[(&input, ulpdus)], &[&output], traffic, &mut |_, _| Ok(()))?;
    Ok(MpaTxRun {
        fpdus: stream.outputs[0].clone(),
        fpdu_count: m.get(fpdus),
        dropped: m.get(dropped),
        stream,
    })
}
