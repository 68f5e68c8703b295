//! The MPA RX receiver's driver: the FPDU byte stream in through the AXI-Stream traffic
//! generator, cut into the given TCP segments (one input frame each); ULPDU frames collected
//! from `m_*` with the verdict on `m_tuser` and `m_len` of each; configuration and the stream
//! offset applied through reset; status and counters read back at the end.

use super::axis::{run_streams, AxisPorts, StreamRun, Traffic};
use super::model::{BenchError, ClockedModel};
use crate::ports::Dir;
use crate::mpa_rx::{check, hardware_error};
use offload_driver::mpa::{FramingConfig, MpaError};
use offload_driver::{Offload, SoftwareOffload};

/// One output frame: a ULPDU, or the part of a bad one that was passed before its verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxFrame {
    pub octets: Vec<u8>,
    /// `m_tuser` on the `tlast` beat: the ULPDU is bad.
    pub bad: bool,
    /// `m_len` on the `tlast` beat.
    pub len: u64,
}

/// What an MPA RX run produced.
#[derive(Clone, Debug)]
pub struct MpaRxRun {
    pub frames: Vec<RxFrame>,
    /// `status_error` at the end, and the error the status registers describe.
    pub error: u64,
    pub hw_error: Option<MpaError>,
    /// `status_idle` at the end.
    pub idle: bool,
    /// `counters_fpdus`, `_bad_crc`, `_bad_marker`, `_bad_length` at the end.
    pub counters: [u64; 4],
    pub stream: StreamRun,
}

impl MpaRxRun {
    /// The ULPDUs a DDP consumer that honours the verdicts keeps.
    pub fn good(&self) -> Vec<Vec<u8>> {
        self.frames
            .iter()
            .filter(|f| !f.bad)
            .map(|f| f.octets.clone())
            .collect()
    }
}

/// Configures `m` (an MPA RX model), resets it so it loads `offset` (the stream offset of the
/// first input octet), and feeds it `segments`, in order.
pub fn run_mpa_rx<M: ClockedModel + ?Sized>(
    m: &mut M,
    config: &FramingConfig,
    offset: u64,
    segments: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MpaRxRun, BenchError> {
    super::mpa_tx::set_framing_config(m, config, offset)?;
    m.reset(2);
    continue_mpa_rx(m, offset, segments, traffic)
}

/// Feeds `segments` to `m` as it is: its caller configured and reset it, with `offset` the
/// stream offset it loaded ([`run_mpa_rx`]; a test of the reset itself).
pub fn continue_mpa_rx<M: ClockedModel + ?Sized>(
    m: &mut M,
    offset: u64,
    segments: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MpaRxRun, BenchError> {
    // The bench stops after `drain_cycles` quiet clocks: never before a verdict can be out.
    let traffic = &Traffic { drain_cycles: traffic.drain_cycles.max(crate::mpa_rx::LATENCY + crate::mpa_rx::DRY_EXTRA + 2), ..traffic.clone() };
    let input = AxisPorts::bind(m, "s_", true)?;
    let output = AxisPorts::bind(m, "m_", false)?;
    let out = |m: &M, name: &str, width: usize| m.expect_port(name, Dir::Out, Some(width));
    let tuser = out(m, "m_tuser", 1)?;
    let len = out(m, "m_len", 16)?;
    let error = out(m, "status_error", 2)?;
    let error_offset = out(m, "status_offset", 32)?;
    let found = out(m, "status_found", 32)?;
    let expected = out(m, "status_expected", 32)?;
    let idle = out(m, "status_idle", 1)?;
    let counters = [
        out(m, "counters_fpdus", 32)?,
        out(m, "counters_bad_crc", 32)?,
        out(m, "counters_bad_marker", 32)?,
        out(m, "counters_bad_length", 32)?,
    ];
    let (tvalid, tlast) = (
        output.tvalid,
        output
            .tlast
            .ok_or_else(|| BenchError::Port("no m_tlast".into()))?,
    );
    let tready = output
        .tready
        .ok_or_else(|| BenchError::Port("no m_tready".into()))?;
    let tkeep = output
        .tkeep
        .ok_or_else(|| BenchError::Port("no m_tkeep".into()))?;
    // Verdicts and lengths of the frames as their last beats are taken; and no beat without an
    // octet (the receiver holds one back for the `tlast` beat), but for a frame of none.
    let mut verdicts: Vec<(bool, u64)> = Vec::new();
    let mut in_frame = false;
    let mut monitor = |m: &M, cycle: u64| -> Result<(), String> {
        if m.get(tvalid) != 0 && m.get(tready) != 0 {
            let last = m.get(tlast) != 0;
            if m.get(tkeep) == 0 && (in_frame || !last) {
                return Err(format!("cycle {cycle}: an output beat with no octet (tkeep = 0) inside a frame"));
            }
            in_frame = !last;
            if last {
                verdicts.push((m.get(tuser) != 0, m.get(len)));
            }
        }
        Ok(())
    };
    let stream = run_streams(m, &[(&input, segments)], &[&output], traffic, &mut monitor)?;
    let frames = stream.outputs[0]
        .iter()
        .zip(verdicts)
        .map(|(o, (bad, len))| RxFrame {
            octets: o.clone(),
            bad,
            len,
        })
        .collect();
    Ok(MpaRxRun {
        frames,
        error: m.get(error),
        hw_error: hardware_error(m.get(error), m.get(error_offset), m.get(found), m.get(expected), offset),
        idle: m.get(idle) != 0,
        counters: counters.map(|p| m.get(p)),
        stream,
    })
}

/// RFC 5044 Figure 5 (at offset 0) and Figure 6 (at 0x1ec), the octets of the RFC's hex dumps:
/// `(start offset, the 52-octet FPDU stream, its ULPDU)` with Markers and CRC on.
pub fn rfc5044_figure_streams() -> [(u64, Vec<u8>, Vec<u8>); 2] {
    let ddp = |msn: u8| vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, msn, 0, 0, 0, 0];
    let mut u1 = ddp(1);
    u1.extend_from_slice(&[0; 24]);
    let mut f5 = vec![0, 0, 0, 0, 0x00, 0x2a];
    f5.extend_from_slice(&u1);
    f5.extend_from_slice(&[0x52, 0x23, 0x99, 0x83]);
    let mut u2 = ddp(2);
    u2.extend_from_slice(&[0; 24]);
    let mut f6 = vec![0x00, 0x2a];
    f6.extend_from_slice(&ddp(2));
    f6.extend_from_slice(&[0, 0, 0x00, 0x14]);
    f6.extend_from_slice(&[0; 24]);
    f6.extend_from_slice(&[0x84, 0x92, 0x58, 0x98]);
    [(0, f5, u1), (0x1ec, f6, u2)]
}

/// Cuts `stream` into segments of random sizes (1..=`max` octets; a few of exactly one octet,
/// a few of a whole number of beats), as a TCP layer might deliver it.
pub fn random_segments(rng: &mut impl rand::Rng, stream: &[u8], max: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let n = match rng.gen_range(0..8) {
            0 => 1,
            1 => max,
            _ => rng.gen_range(1..=max),
        }
        .min(stream.len() - at);
        out.push(stream[at..at + n].to_vec());
        at += n;
    }
    out
}

/// Compares a run with the software deframer's verdict on the same stream: the good frames
/// are its ULPDUs, a bad frame (at most one, the last) only when it reports an error, the same
/// error kind and offset, the counters, and `status_idle` exactly when the stream ended
/// between FPDUs.
pub fn compare_with_deframer(
    run: &MpaRxRun,
    cfg: FramingConfig,
    offset: u64,
    stream: &[u8],
) -> Result<(), String> {
    // The software backend deframes `stream` as the block must (its good ULPDUs, and the end).
    let want = SoftwareOffload.mpa_deframe(&cfg, offset, stream).map_err(|e| e.to_string())?;
    let error = want.end.clone().err();
    let good = run.good();
    if good != want.ulpdus {
        let at = good
            .iter()
            .zip(&want.ulpdus)
            .position(|(a, b)| a != b)
            .unwrap_or(good.len().min(want.ulpdus.len()));
        return Err(format!(
            "{} good ULPDUs, software {}; first difference at ULPDU {at}; software error {:?}",
            good.len(),
            want.ulpdus.len(),
            error
        ));
    }
    for (i, f) in run.frames.iter().enumerate() {
        if f.bad && i + 1 != run.frames.len() {
            return Err(format!("frame {i} is marked bad but frames follow it"));
        }
        if !f.bad && f.len != f.octets.len() as u64 {
            return Err(format!(
                "frame {i}: m_len {} for {} octets",
                f.len,
                f.octets.len()
            ));
        }
    }
    let bad_frames = run.frames.iter().filter(|f| f.bad).count() as u64;
    let truncated = matches!(error, Some(MpaError::Truncated { .. }));
    let status_due = if truncated { None } else { error.clone() };
    if run.hw_error != status_due {
        return Err(format!("status {:?}, software {:?}", run.hw_error, error));
    }
    if status_due.is_none() && bad_frames != 0 {
        return Err(format!("{bad_frames} bad frames, software {:?}", error));
    }
    if status_due.is_none() && run.idle == truncated {
        return Err(format!("status_idle {} but software says {:?}", run.idle, error));
    }
    let code = run.hw_error.as_ref().map_or(0, |_| run.error);
    let counters = [
        want.ulpdus.len() as u64,
        (code == check::ERR_CRC) as u64,
        (code == check::ERR_MARKER) as u64,
        (code == check::ERR_LENGTH) as u64,
    ];
    if run.counters != counters {
        return Err(format!(
            "counters {:?}, expected {counters:?}",
            run.counters
        ));
    }
    Ok(())
}

