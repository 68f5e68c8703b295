//! The MCTP TX packetizer's driver: messages in through the AXI-Stream traffic generator (length
//! on `s_len`, header fields on the `cfg_*` side channels, set by the driver's per-frame hook
//! just before each message's first beat), packets collected from `m_*` (one frame per packet),
//! counters read back. Any [`ClockedModel`]: rust-hdl's simulation, the Verilated Verilog, both
//! in [`super::Lockstep`].

use super::axis::{run_streams_with_frame_hook, AxisPorts, StreamRun, Traffic};
use super::model::{BenchError, ClockedModel, PortId};
use crate::ports::Dir;
use offload_driver::mctp::{SmbusAddresses, TxRequest};

/// One message and how to send it.
#[derive(Clone, Debug)]
pub struct MctpTxJob {
    pub req: TxRequest,
    pub message: Vec<u8>,
}

/// What an MCTP TX run produced.
#[derive(Clone, Debug)]
pub struct MctpTxRun {
    /// One entry per packet (SMBus frame when asked), in order.
    pub frames: Vec<Vec<u8>>,
    /// The block's counters at the end.
    pub packets: u64,
    pub messages: u64,
    pub dropped: u64,
    pub len_errors: u64,
    pub stream: StreamRun,
}

struct SidePorts([PortId; 10]);

impl SidePorts {
    fn bind<M: ClockedModel + ?Sized>(m: &M) -> Result<SidePorts, BenchError> {
        let p = |n: &str, w: usize| m.expect_port(n, Dir::In, Some(w));
        Ok(SidePorts([
            p("cfg_src_eid", 8)?,
            p("cfg_dst_eid", 8)?,
            p("cfg_tag", 3)?,
            p("cfg_to", 1)?,
            p("cfg_seq", 2)?,
            p("cfg_mtu", 8)?,
            p("cfg_mic", 1)?,
            p("cfg_smbus", 1)?,
            p("cfg_smbus_src", 7)?,
            p("cfg_smbus_dst", 7)?,
        ]))
    }

    /// Drives a request's fields. Values wider than their port are truncated here; callers
    /// that must match the software refuse those first (see `VerilatedOffload::mctp_transmit`).
    fn drive<M: ClockedModel + ?Sized>(&self, m: &mut M, r: &TxRequest) {
        let c = &r.config;
        let a = r.smbus.unwrap_or(SmbusAddresses { src: 0, dst: 0 });
        let v = [
            c.src as u64,
            c.dst as u64,
            c.tag as u64 & 7,
            c.tag_owner as u64,
            c.start_seq as u64 & 3,
            c.mtu.min(255) as u64,
            r.append_mic as u64,
            r.smbus.is_some() as u64,
            a.src as u64 & 0x7F,
            a.dst as u64 & 0x7F,
        ];
        for (p, v) in self.0.iter().zip(v) {
            m.set(*p, v);
        }
    }
}

/// Resets `m` (an MCTP TX model) and packetizes `jobs` in order.
pub fn run_mctp_tx<M: ClockedModel + ?Sized>(
    m: &mut M,
    jobs: &[MctpTxJob],
    traffic: &Traffic,
) -> Result<MctpTxRun, BenchError> {
    let input = AxisPorts::bind(m, "s_", true)?;
    let output = AxisPorts::bind(m, "m_", false)?;
    if input.len.is_none() {
        return Err(BenchError::Port("MCTP TX model has no s_len".into()));
    }
    let side = SidePorts::bind(m)?;
    let counter = |n: &str| m.expect_port(&format!("counters_{n}"), Dir::Out, Some(32));
    let (packets, messages, dropped, len_errors) =
        (counter("packets")?, counter("messages")?, counter("dropped")?, counter("len_errors")?);
    m.reset(2);
    let messages_in: Vec<Vec<u8>> = jobs.iter().map(|j| j.message.clone()).collect();
    let stream = run_streams_with_frame_hook(
        m,
        &[(&input, &messages_in)],
        &[&output],
        traffic,
        &mut |_, _| Ok(()),
        &mut |m, _, f| side.drive(m, &jobs[f].req),
    )?;
    Ok(MctpTxRun {
        frames: stream.outputs[0].clone(),
        packets: m.get(packets),
        messages: m.get(messages),
        dropped: m.get(dropped),
        len_errors: m.get(len_errors),
        stream,
    })
}
