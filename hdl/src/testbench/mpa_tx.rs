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

/// Drives an MPA block's `cfg_markers`, `cfg_crc`, `cfg_mulpdu` and `cfg_offset` (the framer
/// and the receiver alike; the offset port keeps as many low bits as it is wide, which is all
/// the block needs: Marker positions repeat every 512 octets, the receiver's error offsets
/// are reported mod 2^32).
pub fn set_framing_config<M: ClockedModel + ?Sized>(
    m: &mut M,
    config: &FramingConfig,
    offset: u64,
) -> Result<(), BenchError> {
    let mut set = |name: &str, width: Option<usize>, v: u64| -> Result<(), BenchError> {
        let p = m.expect_port(name, Dir::In, width)?;
        let w = m.port_info(p).2;
        m.set(p, v & crate::bits::low_ones(w));
        Ok(())
    };
    set("cfg_markers", Some(1), config.markers as u64)?;
    set("cfg_crc", Some(1), config.crc as u64)?;
    set("cfg_mulpdu", Some(16), config.mulpdu.min(u16::MAX as usize) as u64)?;
    set("cfg_offset", None, offset)
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
    set_framing_config(m, config, offset)?;
    let fpdus = m.expect_port("counters_fpdus", Dir::Out, Some(32))?;
    let dropped = m.expect_port("counters_dropped", Dir::Out, Some(32))?;
    // The last FPDU leaves up to `LATENCY` cycles after the last beat: drain at least that long.
    let traffic = &Traffic { drain_cycles: traffic.drain_cycles.max(crate::mpa_tx::LATENCY + 2), ..traffic.clone() };
    m.reset(2);
    let stream = run_streams(m, &[(&input, ulpdus)], &[&output], traffic, &mut |_, _| Ok(()))?;
    Ok(MpaTxRun {
        fpdus: stream.outputs[0].clone(),
        fpdu_count: m.get(fpdus),
        dropped: m.get(dropped),
        stream,
    })
}
