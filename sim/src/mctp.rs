//! Co-simulation of the MCTP TX packetizer: messages in through the AXI-Stream driver (length
//! on `s_len`, header fields on the `cfg_*` side channels, set by the driver's per-frame hook
//! just before each message's first beat), packets collected from `m_*` (one frame per
//! packet), counters read back.

use crate::axis::{run_streams_with_frame_hook, AxisPorts, StreamRun, Traffic};
use crate::model::{PortDir, PortId, SimError, VerilatedModel};
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

struct SidePorts {
    src: PortId,
    dst: PortId,
    tag: PortId,
    to: PortId,
    seq: PortId,
    mtu: PortId,
    mic: PortId,
    smbus: PortId,
    sa_src: PortId,
    sa_dst: PortId,
}

impl SidePorts {
    fn bind(m: &VerilatedModel) -> Result<SidePorts, SimError> {
        let p = |n: &str, w: usize| m.expect_port(n, PortDir::In, Some(w));
        Ok(SidePorts {
            src: p("cfg_src_eid", 8)?,
            dst: p("cfg_dst_eid", 8)?,
            tag: p("cfg_tag", 3)?,
            to: p("cfg_to", 1)?,
            seq: p("cfg_seq", 2)?,
            mtu: p("cfg_mtu", 8)?,
            mic: p("cfg_mic", 1)?,
            smbus: p("cfg_smbus", 1)?,
            sa_src: p("cfg_smbus_src", 7)?,
            sa_dst: p("cfg_smbus_dst", 7)?,
        })
    }

    /// Drives a request's fields. Values wider than their port are truncated here; callers
    /// that must match the software refuse those first (see `VerilatedOffload::mctp_transmit`).
    fn drive(&self, m: &mut VerilatedModel, r: &TxRequest) {
        let c = &r.config;
        m.set(self.src, c.src as u64);
        m.set(self.dst, c.dst as u64);
        m.set(self.tag, c.tag as u64 & 7);
        m.set(self.to, c.tag_owner as u64);
        m.set(self.seq, c.start_seq as u64 & 3);
        m.set(self.mtu, c.mtu.min(255) as u64);
        m.set(self.mic, r.append_mic as u64);
        m.set(self.smbus, r.smbus.is_some() as u64);
        let a = r.smbus.unwrap_or(SmbusAddresses { src: 0, dst: 0 });
        m.set(self.sa_src, a.src as u64 & 0x7F);
        m.set(self.sa_dst, a.dst as u64 & 0x7F);
    }
}

/// Resets `m` (an MCTP TX model) and packetizes `jobs` in order.
pub fn run_mctp_tx(m: &mut VerilatedModel, jobs: &[MctpTxJob], traffic: &Traffic) -> Result<MctpTxRun, SimError> {
    let input = AxisPorts::bind(m, "s_", true)?;
    let output = AxisPorts::bind(m, "m_", false)?;
    if input.len.is_none() {
        return Err(SimError::Port("MCTP TX model has no s_len".into()));
    }
    let side = SidePorts::bind(m)?;
    let counter = |n: &str| m.expect_port(n, PortDir::Out, Some(32));
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
