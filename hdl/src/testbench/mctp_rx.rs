//! The MCTP RX depacketizer's driver: frames (one per packet) in through the AXI-Stream traffic
//! generator, messages collected from `m_*` with their header fields from the
//! `m_src_eid`/`m_dst_eid`/`m_tag`/`m_to` side channels (read on every beat; they must not
//! change within a message), the drop counters read back and every drop record the block made
//! collected as it made it. Any [`ClockedModel`]: rust-hdl's simulation, the Verilated Verilog,
//! both in [`super::Lockstep`].

use super::axis::{run_streams, AxisPorts, StreamRun, Traffic};
use super::model::{BenchError, ClockedModel, PortId};
use crate::ports::Dir;
use offload_driver::mctp::rx_block::{DropRecord, FrameVerdict};
use offload_driver::mctp::{Message, RxCounts, RX_COUNTERS};
use offload_driver::registers::MctpRxConfig;

/// What an MCTP RX run produced.
#[derive(Clone, Debug)]
pub struct MctpRxRun {
    /// The messages delivered, with the header fields from the side channels.
    pub messages: Vec<Message>,
    /// The block's counters at the end, in [`RX_COUNTERS`] order.
    pub counters: RxCounts,
    /// Every drop the block recorded, in order (read from `drop*` each clock: a record is new
    /// when its toggle bit flips).
    pub drops: Vec<DropRecord>,
    pub stream: StreamRun,
}

/// An MCTP RX model bound, configured and reset: frames go in with [`MctpRxBench::run`].
pub struct MctpRxBench<'m, M: ClockedModel + ?Sized> {
    m: &'m mut M,
    input: AxisPorts,
    output: AxisPorts,
    fields: [PortId; 4],
    counters: Vec<PortId>,
    drop: [PortId; 3],
}

impl<'m, M: ClockedModel + ?Sized> MctpRxBench<'m, M> {
    /// Binds `m`'s ports, sets `cfg` on its static ports and resets it.
    pub fn new(m: &'m mut M, cfg: &MctpRxConfig) -> Result<MctpRxBench<'m, M>, BenchError> {
        let input = AxisPorts::bind(m, "s_", true)?;
        let output = AxisPorts::bind(m, "m_", false)?;
        let p = |n: &str, w: usize| m.expect_port(n, Dir::In, Some(w));
        let (smbus, mic, strict, max_len) = (p("cfg_smbus", 1)?, p("cfg_mic", 1)?, p("cfg_strict", 1)?, p("cfg_max_len", 13)?);
        let q = |n: &str, w: usize| m.expect_port(n, Dir::Out, Some(w));
        let fields = [q("m_src_eid", 8)?, q("m_dst_eid", 8)?, q("m_tag", 3)?, q("m_to", 1)?];
        let counters = RX_COUNTERS.iter().map(|n| q(&format!("counters_{n}"), 32)).collect::<Result<_, _>>()?;
        let drop = [q("drop", 32)?, q("drop_context", 32)?, q("drop_length", 32)?];
        if output.tlast.is_none() || output.tready.is_none() {
            return Err(BenchError::Port("mctp_rx: m_tlast and m_tready expected".into()));
        }
        m.set(smbus, cfg.smbus as u64);
        m.set(mic, cfg.mic as u64);
        m.set(strict, cfg.strict as u64);
        m.set(max_len, cfg.max_len as u64 & 0x1FFF);
        m.reset(2);
        Ok(MctpRxBench { m, input, output, fields, counters, drop })
    }

    /// The counters now.
    pub fn counters(&self) -> RxCounts {
        std::array::from_fn(|i| self.m.get(self.counters[i]))
    }

    /// The drop record now.
    pub fn drop_record(&self) -> DropRecord {
        DropRecord::from_words(self.drop.map(|p| self.m.get(p) as u32))
    }

    /// Feeds `frames` (one per packet) with `traffic` and runs until the block is quiet: the
    /// messages delivered and the drops recorded.
    pub fn run(&mut self, frames: &[Vec<u8>], traffic: &Traffic) -> Result<(Vec<Message>, Vec<DropRecord>, StreamRun), BenchError> {
        let (out, [src, dst, tag, to]) = (&self.output, self.fields);
        let drop_ports = self.drop;
        let mut last = self.drop_record();
        let mut drops = Vec::new();
        let (tvalid, tlast, tready) = (out.tvalid, out.tlast.expect("bound"), out.tready.expect("bound"));
        let mut fields: Vec<(u8, u8, u8, bool)> = Vec::new();
        let mut cur: Option<(u8, u8, u8, bool)> = None;
        // A message comes out `LATENCY` clocks after its last beat went in: drain at least that long.
        let traffic = &Traffic { drain_cycles: traffic.drain_cycles.max(crate::mctp_rx::LATENCY + 2), ..traffic.clone() };
        let stream = run_streams(self.m, &[(&self.input, frames)], &[out], traffic, &mut |m, cycle| {
            let d = DropRecord::from_words(drop_ports.map(|p| m.get(p) as u32));
            if d.toggle != last.toggle {
                drops.push(d);
            } else if d != last {
                return Err(format!("cycle {cycle}: the drop record changed without its toggle: {last:?} → {d:?}"));
            }
            last = d;
            if m.get(tvalid) == 0 || m.get(tready) == 0 {
                return Ok(());
            }
            let f = (m.get(src) as u8, m.get(dst) as u8, m.get(tag) as u8, m.get(to) != 0);
            if cur.is_some_and(|c| c != f) {
                return Err(format!("cycle {cycle}: header fields changed within a message"));
            }
            cur = Some(f);
            if m.get(tlast) != 0 {
                fields.push(f);
                cur = None;
            }
            Ok(())
        })?;
        let messages = stream.outputs[0]
            .iter()
            .zip(&fields)
            .map(|(b, &(src, dst, tag, tag_owner))| Message { src, dst, tag, tag_owner, bytes: b.clone() })
            .collect();
        Ok((messages, drops, stream))
    }

    /// One frame, run until the block is quiet: the messages it delivered, what each counter
    /// moved by (the block's verdict on that frame) and its drop record before and after.
    pub fn frame(&mut self, frame: &[u8], traffic: &Traffic) -> Result<FrameVerdict, BenchError> {
        let (before, drop_before) = (self.counters(), self.drop_record());
        let (messages, _, _) = self.run(&[frame.to_vec()], traffic)?;
        let after = self.counters();
        Ok(FrameVerdict {
            messages,
            counts: std::array::from_fn(|i| after[i].wrapping_sub(before[i]) & 0xFFFF_FFFF),
            drop: Some((drop_before, self.drop_record())),
        })
    }
}

/// Resets `m` (an MCTP RX model) with `cfg` on its static ports and feeds it `frames` (one
/// per packet) in one stream.
pub fn run_mctp_rx<M: ClockedModel + ?Sized>(
    m: &mut M,
    cfg: &MctpRxConfig,
    frames: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MctpRxRun, BenchError> {
    let mut bench = MctpRxBench::new(m, cfg)?;
    let (messages, drops, stream) = bench.run(frames, traffic)?;
    Ok(MctpRxRun { messages, counters: bench.counters(), drops, stream })
}
