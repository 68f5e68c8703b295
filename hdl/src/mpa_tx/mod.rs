//! MPA transmit offload (RFC 5044 §4): ULPDUs in, the FPDU byte stream out, Markers inserted
//! every 512 octets, PAD and CRC-32C appended — byte-identical to `offload_driver::mpa::Framer`.
//!
//! Ports (AXI4-Stream conventions; bundle fields flatten to these names at the boundary):
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: the ULPDU, `s_len` its length with the first
//!   beat (DDP knows it); tkeep is read on the last beat only and is packed there (`k` low
//!   ones, as AXI4-Stream's continuous aligned streams have it): the beat's word count comes
//!   from its top lane.
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: the FPDU stream, one frame per FPDU (the
//!   Markers, ULPDU_Length, ULPDU, PAD and CRC of one FPDU), partial tkeep on the last beat only.
//! - `cfg_markers`, `cfg_crc`, `cfg_mulpdu`: live configuration (change between FPDUs; MULPDU
//!   is read as a ULPDU's first beat enters the block);
//!   `cfg_offset`: stream offset of the first octet, loaded at reset (the [`MpaTxConfig`]
//!   bundle `cfg`).
//! - `counters_fpdus`, `counters_dropped` (ULPDUs dropped whole for a length of 0 or over
//!   MULPDU): 32-bit wrapping counters (the [`MpaTxCounters`] bundle `counters`).
//!
//! Written once, in `#[hdl_gen]`, as three stages in one file each: the input skid buffer
//! ([`crate::axis::AxisSkid`]: `s_tready` is a register output), [`lanes::LaneAssembly`]
//! (Markers, header, PAD; the datapath is described there) and [`crc_stage::CrcStage`] (the
//! pipelined CRC-32C and the CRC lane). Latency [`LATENCY`] (ten) clocks; one ULPDU per beat
//! back to back runs at one FPDU per clock, and a ULPDU whose tail does not fit its last beat
//! costs one more.

pub mod crc_stage;
pub mod lanes;

pub use lanes::Phase;

use crate::axis::{AxisSink, AxisSkid, AxisSource};
use crate::testbench::{BenchError, HdlModel};
use crc_stage::CrcStage;
use lanes::LaneAssembly;
use offload_driver::mpa::{FramingConfig, Framer};
use rust_hdl::prelude::*;

/// Clocks from a beat's acceptance at `s` to the earliest output beat it reaches at `m`: the
/// input skid buffer, the lane assembly's output register and the CRC stage's registers.
pub const LATENCY: u64 = 2 + crc_stage::REGISTERS;

/// The block's contract, for its tests and co-simulation: the FPDUs it must emit for
/// `ulpdus` framed from stream offset `offset` — the software framer's, one per ULPDU, with the
/// ULPDUs the framer refuses (length 0 or over MULPDU) left out, as the block drops them.
pub fn expected_fpdus(cfg: FramingConfig, offset: u64, ulpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut f = Framer::new(cfg, offset).expect("a valid framing configuration and offset");
    ulpdus
        .iter()
        .filter_map(|u| {
            let mut out = Vec::new();
            f.frame(u, &mut out).ok().map(|_| out)
        })
        .collect()
}

/// The framer's configuration, driven by the register block ([`MpaTxConfigSource`]).
#[derive(LogicInterface, Default)]
#[join = "MpaTxConfigSource"]
pub struct MpaTxConfig {
    pub markers: Signal<In, Bit>,
    pub crc: Signal<In, Bit>,
    pub mulpdu: Signal<In, Bits<16>>,
    pub offset: Signal<In, Bits<16>>,
}

/// The driving side of [`MpaTxConfig`].
#[derive(LogicInterface, Default)]
#[join = "MpaTxConfig"]
pub struct MpaTxConfigSource {
    pub markers: Signal<Out, Bit>,
    pub crc: Signal<Out, Bit>,
    pub mulpdu: Signal<Out, Bits<16>>,
    pub offset: Signal<Out, Bits<16>>,
}

/// The framer's counters, read by the register block ([`MpaTxCountersSink`]).
#[derive(LogicInterface, Default)]
#[join = "MpaTxCountersSink"]
pub struct MpaTxCounters {
    pub fpdus: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
}

/// The reading side of [`MpaTxCounters`].
#[derive(LogicInterface, Default)]
#[join = "MpaTxCounters"]
pub struct MpaTxCountersSink {
    pub fpdus: Signal<In, Bits<32>>,
    pub dropped: Signal<In, Bits<32>>,
}

/// The framer for `K` octets per beat: `D = 8K` data bits, `H = D + 32`, `I = 2D + 32` (the
/// lane assembly's held-word and item-window widths; stable Rust has no const-generic
/// arithmetic). `K` ∈ {4, 8, 16, 32, 64}.
#[derive(LogicBlock)]
pub struct MpaTx<const D: usize, const K: usize, const H: usize, const I: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MpaTxConfig,
    pub s: AxisSink<D, K>,
    pub s_len: Signal<In, Bits<16>>,
    pub m: AxisSource<D, K>,
    pub counters: MpaTxCounters,
    inbuf: AxisSkid<D, K, 48>,
    assembly: LaneAssembly<D, K, H, I>,
    crc: CrcStage<D, K>,
    /// Body words of the input beat: `N`, or `1 + Σ tkeep[4j-2]` (= ⌈(2+k)/4⌉) on a last beat,
    /// computed before the skid buffer so the lane counts start from a register.
    count: Signal<Local, Bits<5>>,
    bad: Signal<Local, Bit>,
    count1: Signal<Local, Bits<5>>,
    count2: Signal<Local, Bits<5>>,
    count_mn: Signal<Local, Bits<8>>,
    count1_mn: Signal<Local, Bits<8>>,
    c_bad: Constant<Bits<48>>,
    /// Per entry (0: a last beat of at most 2 octets; j in 1..=N: lane j the top one of a
    /// last beat; 17: a full beat): the word count, + 1, + 2, − N and + 1 − N (mod 256),
    /// which the lane assembly would otherwise compute behind its own sums.
    c_count: [Constant<Bits<5>>; 18],
    c_count1: [Constant<Bits<5>>; 18],
    c_count2: [Constant<Bits<5>>; 18],
    c_count_mn: [Constant<Bits<8>>; 18],
    c_count1_mn: [Constant<Bits<8>>; 18],
    top_lane: Signal<Local, Bit>,
}

/// Body words of a beat for count-table entry `e` at `k` octets per beat: `e + 1` for a last
/// beat whose top lane is `e` (0: at most 2 octets), `N` for a full beat (entry 17).
fn entry_count(k: usize, e: usize) -> u64 {
    if e == 17 {
        (k / 4) as u64
    } else {
        e as u64 + 1
    }
}

/// The three shipped widths.
pub type MpaTxW4 = MpaTx<32, 4, 64, 96>;
pub type MpaTxW8 = MpaTx<64, 8, 96, 160>;
pub type MpaTxW64 = MpaTx<512, 64, 544, 1056>;

impl<const D: usize, const K: usize, const H: usize, const I: usize> Default for MpaTx<D, K, H, I> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            m: Default::default(),
            counters: Default::default(),
            inbuf: Default::default(),
            assembly: Default::default(),
            crc: Default::default(),
            count: Default::default(),
            bad: Default::default(),
            count1: Default::default(),
            count2: Default::default(),
            count_mn: Default::default(),
            count1_mn: Default::default(),
            c_bad: Constant::new((1u64 << 21).into()),
            c_count: std::array::from_fn(|e| Constant::new(entry_count(K, e).into())),
            c_count1: std::array::from_fn(|e| Constant::new((entry_count(K, e) + 1).into())),
            c_count2: std::array::from_fn(|e| Constant::new((entry_count(K, e) + 2).into())),
            c_count_mn: std::array::from_fn(|e| Constant::new(((entry_count(K, e) + 256 - K as u64 / 4) % 256).into())),
            c_count1_mn: std::array::from_fn(|e| Constant::new(((entry_count(K, e) + 257 - K as u64 / 4) % 256).into())),
            top_lane: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const H: usize, const I: usize> Logic for MpaTx<D, K, H, I> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, inbuf, assembly, crc);
        self.inbuf.reset.next = self.reset.val();
        self.assembly.reset.next = self.reset.val();
        self.crc.reset.next = self.reset.val();

        // Input: the port bundle into the skid buffer, with the beat's ULPDU length and body
        // word count beside it.
        AxisSink::<D, K>::link(&mut self.s, &mut self.inbuf.s);
        // The counts as table entries ORed together, no adder: a full beat is entry 17; a last
        // beat of `k` octets (tkeep packed: `k` low ones) yields ⌈(2+k)/4⌉ = j + 1 words, where
        // j is the highest lane with tkeep[4j−2] set (entry j), or 0 when there is none.
        self.top_lane.next = false;
        self.count.next = self.c_count[17].val();
        self.count1.next = self.c_count1[17].val();
        self.count2.next = self.c_count2[17].val();
        self.count_mn.next = self.c_count_mn[17].val();
        self.count1_mn.next = self.c_count1_mn[17].val();
        if self.s.tlast.val() {
            self.count.next = self.c_count[0].val();
            self.count1.next = self.c_count1[0].val();
            self.count2.next = self.c_count2[0].val();
            self.count_mn.next = self.c_count_mn[0].val();
            self.count1_mn.next = self.c_count1_mn[0].val();
            if self.s.tkeep.val().get_bit(2) {
                self.count.next = 0.into();
                self.count1.next = 0.into();
                self.count2.next = 0.into();
                self.count_mn.next = 0.into();
                self.count1_mn.next = 0.into();
                // Lane j is the top one: its bit set and, tkeep being packed, the next lane's
                // clear (lane N has no next).
                for j in 1..(K / 4) {
                    self.top_lane.next = self.s.tkeep.val().get_bit(4 * j - 2) & !self.s.tkeep.val().get_bit(4 * j + 2);
                    if self.top_lane.val() {
                        self.count.next = self.count.val() | self.c_count[j].val();
                        self.count1.next = self.count1.val() | self.c_count1[j].val();
                        self.count2.next = self.count2.val() | self.c_count2[j].val();
                        self.count_mn.next = self.count_mn.val() | self.c_count_mn[j].val();
                        self.count1_mn.next = self.count1_mn.val() | self.c_count1_mn[j].val();
                    }
                }
                for j in (K / 4)..(K / 4 + 1) {
                    self.top_lane.next = self.s.tkeep.val().get_bit(4 * j - 2);
                    if self.top_lane.val() {
                        self.count.next = self.count.val() | self.c_count[j].val();
                        self.count1.next = self.count1.val() | self.c_count1[j].val();
                        self.count2.next = self.count2.val() | self.c_count2[j].val();
                        self.count_mn.next = self.count_mn.val() | self.c_count_mn[j].val();
                        self.count1_mn.next = self.count1_mn.val() | self.c_count1_mn[j].val();
                    }
                }
            }
        }
        // A bad length (0 or over MULPDU) is judged here, as the beat enters: MULPDU is read
        // then (it may change between FPDUs, not while one is buffered).
        self.bad.next = (self.s_len.val() == 0) | (self.s_len.val() > self.cfg.mulpdu.val());
        self.inbuf.s_user.next = (bit_cast::<48, 8>(self.count1_mn.val()) << 40)
            | (bit_cast::<48, 8>(self.count_mn.val()) << 32)
            | (bit_cast::<48, 5>(self.count2.val()) << 27)
            | (bit_cast::<48, 5>(self.count1.val()) << 22)
            | (bit_cast::<48, 16>(self.s_len.val()) << 5)
            | bit_cast::<48, 5>(self.count.val());
        if self.bad.val() {
            self.inbuf.s_user.next = self.inbuf.s_user.val() | self.c_bad.val();
        }

        // Skid buffer → lane assembly → CRC stage → output port.
        AxisSource::<D, K>::join(&mut self.inbuf.m, &mut self.assembly.s);
        self.assembly.s_len.next = self.inbuf.m_user.val().get_bits::<16>(5);
        self.assembly.s_count.next = self.inbuf.m_user.val().get_bits::<5>(0);
        self.assembly.s_bad.next = self.inbuf.m_user.val().get_bit(21);
        self.assembly.s_count1.next = self.inbuf.m_user.val().get_bits::<5>(22);
        self.assembly.s_count2.next = self.inbuf.m_user.val().get_bits::<5>(27);
        self.assembly.s_count_mn.next = self.inbuf.m_user.val().get_bits::<8>(32);
        self.assembly.s_count1_mn.next = self.inbuf.m_user.val().get_bits::<8>(40);
        self.assembly.cfg_markers.next = self.cfg.markers.val();
        self.assembly.cfg_offset.next = self.cfg.offset.val();
        AxisSource::<D, K>::join(&mut self.assembly.m, &mut self.crc.s);
        self.crc.s_crc_lane.next = self.assembly.m_crc_lane.val();
        self.crc.cfg_crc.next = self.cfg.crc.val();
        AxisSource::<D, K>::link(&mut self.m, &mut self.crc.m);
        self.counters.fpdus.next = self.crc.fpdus.val();
        self.counters.dropped.next = self.assembly.dropped.val();
    }
}

/// rust-hdl's simulation of the framer behind the testbench's [`crate::testbench::ClockedModel`].
pub fn hdl_model<const D: usize, const K: usize, const H: usize, const I: usize>(
) -> Result<HdlModel<MpaTx<D, K, H, I>>, BenchError> {
    crate::hdl_model!(
        MpaTx::<D, K, H, I>::default(),
        MpaTx<D, K, H, I>,
        [
            reset, cfg.markers, cfg.crc, cfg.mulpdu, cfg.offset, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready, s_len,
            m.tdata, m.tkeep, m.tvalid, m.tlast, m.tready, counters.fpdus, counters.dropped
        ]
    )
}

#[cfg(test)]
mod tests;
