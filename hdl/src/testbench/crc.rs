//! The CRC engine's driver: frames in through the AXI-Stream traffic generator, `crc`
//! collected when `crc_valid` pulses, with the engine's contract checked every cycle (tready
//! high out of reset; `crc_valid` exactly [`crate::crc::latency`] cycles after each accepted
//! last beat).

use super::axis::{run_streams, AxisPorts, StreamRun, Traffic};
use super::model::{BenchError, ClockedModel};
use crate::ports::Dir;

/// What a CRC run produced.
#[derive(Clone, Debug)]
pub struct CrcRun {
    /// One CRC per frame, in order.
    pub crcs: Vec<u64>,
    pub stream: StreamRun,
}

/// Resets `m` (a CRC engine model) and runs `frames` through it.
pub fn run_crc_frames<M: ClockedModel + ?Sized>(m: &mut M, frames: &[Vec<u8>], traffic: &Traffic) -> Result<CrcRun, BenchError> {
    let input = AxisPorts::bind(m, "s_", true)?;
    let crc = m.expect_port("crc", Dir::Out, None)?;
    let crc_valid = m.expect_port("crc_valid", Dir::Out, Some(1))?;
    let tready = input.tready.ok_or_else(|| BenchError::Port("CRC engine has no tready".into()))?;
    let latency = crate::crc::latency(input.bytes);
    // The last CRC comes `latency` cycles after the last beat: drain at least that long.
    let traffic = &Traffic { drain_cycles: traffic.drain_cycles.max(latency + 2), ..traffic.clone() };
    m.reset(2);
    let mut got: Vec<(u64, u64)> = Vec::with_capacity(frames.len());
    let mut monitor = |m: &M, cycle: u64| -> Result<(), String> {
        if m.get(tready) == 0 {
            return Err(format!("tready low out of reset at cycle {cycle}"));
        }
        if m.get(crc_valid) != 0 {
            got.push((cycle, m.get(crc)));
        }
        Ok(())
    };
    let stream = run_streams(m, &[(&input, frames)], &[], traffic, &mut monitor)?;
    let lasts = &stream.last_beat_cycles[0];
    if got.len() != frames.len() {
        return Err(BenchError::Failed(format!("{} frames in, {} crc_valid pulses", frames.len(), got.len())));
    }
    for (i, ((vc, _), lc)) in got.iter().zip(lasts).enumerate() {
        if *vc != lc + latency {
            return Err(BenchError::Failed(format!(
                "frame {i}: last beat accepted in cycle {lc}, crc_valid in cycle {vc} (latency must be {latency})"
            )));
        }
    }
    Ok(CrcRun { crcs: got.into_iter().map(|g| g.1).collect(), stream })
}
