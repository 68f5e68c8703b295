//! MPA receive offload (RFC 5044 §4–§8): the in-order TCP payload of one connection in Full
//! Operation in, one frame per ULPDU out — Markers, ULPDU_Length, PAD and CRC removed — with
//! every Marker, length and CRC checked as `offload_driver::mpa::Deframer` checks them.
//!
//! Ports (AXI4-Stream conventions; bundle fields flatten to these names at the boundary):
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: the TCP payload. Segment boundaries mean
//!   nothing: `tlast` only ends what the TCP layer delivered, `tkeep` (contiguous low octets)
//!   is read on `tlast` beats only, and any segmentation gives the same output.
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: one frame per ULPDU, partial `tkeep` on the
//!   last beat only; `m_len` the ULPDU's length with every beat; `m_tuser` on the `tlast` beat:
//!   **the ULPDU is bad and must be dropped** (the DDP contract, below).
//! - `cfg_markers`, `cfg_crc`, `cfg_mulpdu` (live; change between FPDUs), `cfg_offset` (the
//!   stream offset of the first octet, loaded at reset): the [`MpaRxConfig`] bundle.
//! - `status_error` (0 good, 1 CRC, 2 Marker, 3 length: [`check::ERR_CRC`] …), `status_offset`
//!   (its stream offset, mod 2^32), `status_found`/`status_expected` (the CRC field and the CRC
//!   computed, FPDUPTR and the pointer due, ULPDU_Length and MULPDU), `status_idle` (between
//!   FPDUs and nothing held in any stage, the input skid buffer to the output's: every octet
//!   taken has left, the stream may end here; `tests::idle_means_nothing_is_held`): the
//!   [`MpaRxStatus`] bundle.
//! - `counters_fpdus` (good FPDUs), `counters_bad_crc`, `counters_bad_marker`,
//!   `counters_bad_length`: the [`MpaRxCounters`] bundle. A counter counts a clock after the
//!   check stage's decision, so one clock after `status_error` is set.
//!
//! # The DDP contract: stream, then a verdict
//! DDP must not act on an FPDU before its CRC is checked (RFC 5044 §4.4). The block streams
//! each ULPDU as its octets arrive and holds back the frame's last beat until the FPDU's CRC
//! (and every Marker in it) has been checked; that beat carries the verdict on `m_tuser`. A DDP
//! consumer places octets as they come and commits the ULPDU only on a good `tlast`, as a
//! cut-through NIC does: no block RAM sized for MULPDU, latency of a few clocks rather than an
//! FPDU. The first invalid FPDU ends the stream (§8): an open frame closes with `m_tuser`
//! high, nothing after it is passed, `status` says why and where, until reset. The software
//! reference states the same contract: `Deframer` hands out a ULPDU only once its FPDU checked
//! good, and those are the frames whose `tlast` said good (`SoftwareOffload::mpa_deframe`,
//! [`crate::testbench::compare_with_deframer`]).
//!
//! Written once, in `#[hdl_gen]`, as eight stages (nine from 8 word lanes): the input skid
//! buffer ([`crate::axis::AxisSkid`]: `s_tready` is a register output), [`aligner::Aligner`]
//! (the octets packed, each FPDU's words cut into beats of their own), a stage skid buffer
//! (from 8 word lanes, the read rotation's second half behind it and a second stage skid
//! buffer, `rot`, after that: [`latency`]), [`crc_check::CrcCheck`] (the
//! CRC-32C, its data and state halves a clock apart), [`prep::Prep`] (the CRC comparison, length and Marker checks, Marker
//! removal, the beat's ULPDU octets counted: a clock ahead of their use), a stage skid
//! buffer (the check stage's ready ends there), [`check::Check`]
//! (ULPDU packing, verdict) and the output skid buffer (the consumer's `m_tready` reaches no
//! further than its registers). The prep stage, the two skid buffers behind it and the CRC
//! stage's second clock came with issue 26's pipelining: four clocks more latency
//! ([`latency`]), the same rate. From 2 word lanes (W = 8 since stop 89, and 64) a beat the
//! aligner sends short inside an FPDU, because the input ran dry, spends one more clock in the
//! CRC stage (its running CRC's variable step is taken over two clocks, [`crc_check`]); at
//! full input rate there is none.

/// Clocks from the acceptance of a one-beat FPDU to its frame's `tlast` beat at `m`, with the
/// verdict, when nothing stalls (`tests::latency_is_the_documented_one`), at `k` octets per
/// beat: one more from 8 word lanes (W = 64), the register behind the read rotation's second
/// half (`rot`).
pub const fn latency(k: usize) -> u64 {
    if k >= 32 {
        11
    } else {
        10
    }
}

/// The most [`latency`] at any width.
pub const LATENCY: u64 = latency(64);

/// How many clocks more than [`latency`] a frame's `tlast` may come after the last input beat
/// when the input ran dry inside the FPDU: every short beat in flight between the aligner and
/// the CRC stage (`mid`'s two entries, and from 8 word lanes `rot`'s two) spends a clock held
/// in the CRC stage. Measured at most 4 on RFC 5044's figures cut into 1- to 13-octet
/// segments (`tests::a_dry_input_delays_the_verdict_within_the_bound`; 2 before `rot`).
/// What the testbench waits for the pipeline to drain.
pub const DRY_EXTRA: u64 = 5;

pub mod aligner;
pub mod check;
pub mod crc_check;
pub mod prep;

use crate::axis::{AxisSink, AxisSkid, AxisSource, AxisStageSkid, AxisStageSkidPreload};
use crate::testbench::{BenchError, HdlModel};
use aligner::{Aligner, UP_FIELDS};
use check::Check;
use crc_check::CrcCheck;
use prep::Prep;
use offload_driver::mpa::{CRC_LEN, HEADER_LEN, MARKER_INTERVAL, MARKER_LEN};
use rust_hdl::prelude::*;

// The datapath works in 4-octet word lanes and counts Marker positions in a 7-bit word
// register: it holds for the layout `offload_driver::mpa` defines (and the software framer and
// deframer use), and the build stops here if that ever changes.
const _: () = assert!(
    MARKER_LEN == 4 && CRC_LEN == 4 && HEADER_LEN == 2 && MARKER_INTERVAL / 4 == 1 << 7,
    "the MPA RX datapath assumes 4-octet Markers and CRC, a 2-octet header and 512-octet Marker spacing"
);

/// The deframing error the block's status ports describe: the host driver's one mapping
/// (`OffloadTop`'s backend reads the same status through its registers).
pub use offload_driver::mpa::hardware::hardware_error;

/// A beat of one FPDU's words between the receiver's stages: `n` words in lanes `0..n`, the
/// FPDU's first word in lane 0 when `first` (octet 0 in bits 7:0), `last` when lane `n - 1`
/// is its CRC, `mk` when lane `mkl` is a Marker, `base` the stream offset of lane 0 (mod
/// 2^32); `valid`/`ready` as AXI-Stream.
#[derive(LogicInterface, Default)]
#[join = "WordBeatSink"]
pub struct WordBeatSource<const D: usize> {
    pub words: Signal<Out, Bits<D>>,
    pub n: Signal<Out, Bits<8>>,
    pub first: Signal<Out, Bit>,
    pub last: Signal<Out, Bit>,
    pub mk: Signal<Out, Bit>,
    pub mkl: Signal<Out, Bits<8>>,
    pub base: Signal<Out, Bits<32>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

/// The receiving side of [`WordBeatSource`].
#[derive(LogicInterface, Default)]
#[join = "WordBeatSource"]
pub struct WordBeatSink<const D: usize> {
    pub words: Signal<In, Bits<D>>,
    pub n: Signal<In, Bits<8>>,
    pub first: Signal<In, Bit>,
    pub last: Signal<In, Bit>,
    pub mk: Signal<In, Bit>,
    pub mkl: Signal<In, Bits<8>>,
    pub base: Signal<In, Bits<32>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The receiver's configuration, driven by the register block ([`MpaRxConfigSource`]).
#[derive(LogicInterface, Default)]
#[join = "MpaRxConfigSource"]
pub struct MpaRxConfig {
    pub markers: Signal<In, Bit>,
    pub crc: Signal<In, Bit>,
    pub mulpdu: Signal<In, Bits<16>>,
    pub offset: Signal<In, Bits<32>>,
}

/// The driving side of [`MpaRxConfig`].
#[derive(LogicInterface, Default)]
#[join = "MpaRxConfig"]
pub struct MpaRxConfigSource {
    pub markers: Signal<Out, Bit>,
    pub crc: Signal<Out, Bit>,
    pub mulpdu: Signal<Out, Bits<16>>,
    pub offset: Signal<Out, Bits<32>>,
}

/// Where the stream stands ([`MpaRxStatusSink`] reads it).
#[derive(LogicInterface, Default)]
#[join = "MpaRxStatusSink"]
pub struct MpaRxStatus {
    pub error: Signal<Out, Bits<2>>,
    pub offset: Signal<Out, Bits<32>>,
    pub found: Signal<Out, Bits<32>>,
    pub expected: Signal<Out, Bits<32>>,
    pub idle: Signal<Out, Bit>,
}

/// The reading side of [`MpaRxStatus`].
#[derive(LogicInterface, Default)]
#[join = "MpaRxStatus"]
pub struct MpaRxStatusSink {
    pub error: Signal<In, Bits<2>>,
    pub offset: Signal<In, Bits<32>>,
    pub found: Signal<In, Bits<32>>,
    pub expected: Signal<In, Bits<32>>,
    pub idle: Signal<In, Bit>,
}

/// The receiver's counters (32-bit, wrapping), read by the register block.
#[derive(LogicInterface, Default)]
#[join = "MpaRxCountersSink"]
pub struct MpaRxCounters {
    pub fpdus: Signal<Out, Bits<32>>,
    pub bad_crc: Signal<Out, Bits<32>>,
    pub bad_marker: Signal<Out, Bits<32>>,
    pub bad_length: Signal<Out, Bits<32>>,
}

/// The reading side of [`MpaRxCounters`].
#[derive(LogicInterface, Default)]
#[join = "MpaRxCounters"]
pub struct MpaRxCountersSink {
    pub fpdus: Signal<In, Bits<32>>,
    pub bad_crc: Signal<In, Bits<32>>,
    pub bad_marker: Signal<In, Bits<32>>,
    pub bad_length: Signal<In, Bits<32>>,
}

/// The receiver for `K` octets per beat: `D = 8K`, `D2 = 16K` (stable Rust has no
/// const-generic arithmetic). `K` ∈ {8, 16, 32, 64}.
#[derive(LogicBlock)]
pub struct MpaRx<const D: usize, const K: usize, const D2: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MpaRxConfig,
    pub s: AxisSink<D, K>,
    pub m: AxisSource<D, K>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_len: Signal<Out, Bits<16>>,
    pub status: MpaRxStatus,
    pub counters: MpaRxCounters,
    inbuf: AxisSkid<D, K, IN_FIELDS>,
    align: Aligner<D, K, D2>,
    /// The aligner's beats, registered: its word count sees a registered `ready` (issue 26:
    /// the ready chain of three stages ran into it). The words ride on `tdata`, the beat's
    /// fields on `tkeep` (`n`) and the side channel ([`BEAT_FIELDS`]).
    mid: AxisStageSkid<D, 8, BEAT_FIELDS>,
    mid_user: Signal<Local, Bits<BEAT_FIELDS>>,
    /// The beat's words behind the skid buffer: the aligner's group-rotated words and the
    /// three above them (`wcat`), rotated by the word in `rp`'s group (the side channel's
    /// one-hot `fine`; [`aligner::Aligner::b_xw`]). The accumulator form (W = 8) passes
    /// `tdata` on (`c_ring`).
    wcat: Signal<Local, Bits<D2>>,
    wf: Signal<Local, Bits<D>>,
    wfine: Signal<Local, Bits<4>>,
    wsh: Signal<Local, Bits<D2>>,
    /// The ring form's beat after that rotation, registered (W = 64): the rotation's 4-way
    /// select of 608 bits and the CRC stage's 512-input data network were one clock, the
    /// mid skid's side channel → `wf` → `crcc.data_net` → `crcc.p_ld` (79.34 MHz, 9 levels,
    /// 10.58 ns of routing, stop 87). One clock of latency from 8 word lanes
    /// ([`latency`]); the accumulator form (W = 8) bypasses it and synthesis removes it.
    /// Its side channel is the beat's fields (bits 59:0 of `mid`'s).
    rot: AxisStageSkid<D, 8, ROT_FIELDS>,
    /// The side channel of the beat into the CRC stage (`rot`'s, or `mid`'s at W = 8).
    beat_user: Signal<Local, Bits<ROT_FIELDS>>,
    c_ring: Constant<Bit>,
    c_d16: Constant<Bits<16>>,
    c_wsh: [Constant<Bits<16>>; 4],
    crcc: CrcCheck<D, K>,
    prep: Prep<D, K>,
    /// The prepared beats, registered: the check stage's ready (`pending`, `stopped`, the
    /// output's) ends at these registers, where it reached through the prep stage into the CRC
    /// stage's enables (`check.stopped` → `crcc.c_ready` → `crcc.hdr_off`, 3 LUT4 levels and
    /// 6.9–7.1 ns of routing, one `top_w8` seed in three at stops 75 and 78). The payload rides
    /// on `tdata`, `p_keep` on `tkeep`, `p_last` on `tlast`, the rest on the side channel
    /// ([`PREP_FIELDS`]). One clock of latency.
    pskid: AxisStageSkidPreload<D, K, PREP_FIELDS>,
    pskid_user: Signal<Local, Bits<PREP_FIELDS>>,
    check: Check<D, K, D2>,
    /// The output skid buffer: `m_tuser` (bit 0) and `m_len` ride on its side channel, and the
    /// check stage sees a registered `tready`, not the consumer's (issue 26: `m_tready` reached
    /// through every stage's ready into the aligner's word count).
    outbuf: AxisStageSkid<D, K, 17>,
    /// Octets of the input beat (`K`, or on a `tlast` beat the highest `tkeep` bit + 1),
    /// computed before the skid buffer.
    count: Signal<Local, Bits<8>>,
    /// `tkeep`'s suffix OR (bit `i`: a bit at or above `i` is set) and its top bit, one-hot: a
    /// log-depth form of "the highest bit + 1" (a priority chain over the 64 bits was MPA RX
    /// W = 64's path, 31 levels from the input to the skid's side channel, stop 67).
    keep_s: Signal<Local, Bits<K>>,
    keep_h: Signal<Local, Bits<K>>,
    /// The count one-hot (bit `v`: `v` octets) and the aligner's [`aligner::UP_FIELDS`] from it
    /// (an OR of four of its bits each), on the skid's side channel above the count.
    cnt_oh: Signal<Local, Bits<72>>,
    up_in: Signal<Local, Bits<UP_FIELDS>>,
    c_up_mask: [Constant<Bits<72>>; UP_FIELDS],
    c_one72: Constant<Bits<72>>,
    c_one_up: Constant<Bits<UP_FIELDS>>,
    c_sh: [Constant<Bits<8>>; 6],
    out_user: Signal<Local, Bits<17>>,
    c_k: Constant<Bits<8>>,
    c_one17: Constant<Bits<17>>,
    c_one_u: Constant<Bits<BEAT_FIELDS>>,
    c_one_p: Constant<Bits<PREP_FIELDS>>,
}

/// The input skid's side channel: the beat's octet count (7:0) and the aligner's
/// [`aligner::UP_FIELDS`] above it.
const IN_FIELDS: usize = 8 + UP_FIELDS;

/// The side channel of a prepared beat between the prep and check stages: `p_cnt` (7:0),
/// `p_len` (23:8), `p_crc_bad` (24), `p_kind` (26:25), `p_err_off` (58:27), `p_err_found`
/// (90:59), `p_err_exp` (122:91).
const PREP_FIELDS: usize = 123;

/// The side-channel bits of a word beat between the aligner and the CRC stage: `first`, `mk`,
/// `mkl`, `base`, the thermometer of `n` (`n` itself rides on `tkeep`), and the read
/// rotation's second half, the three words above the beat and the word in `rp`'s group
/// (constants at W = 8, whose flip-flops synthesis removes).
pub const BEAT_FIELDS: usize = 160;
/// The beat's own fields on `mid`'s side channel (bits 59:0), which `rot` carries.
pub const ROT_FIELDS: usize = 60;

impl<const D: usize, const K: usize, const D2: usize> Default for MpaRx<D, K, D2> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_tuser: Default::default(),
            m_len: Default::default(),
            status: Default::default(),
            counters: Default::default(),
            inbuf: Default::default(),
            align: Default::default(),
            mid: Default::default(),
            mid_user: Default::default(),
            wcat: Default::default(),
            wf: Default::default(),
            wfine: Default::default(),
            wsh: Default::default(),
            rot: Default::default(),
            beat_user: Default::default(),
            c_ring: Constant::new(K >= 32),
            c_d16: Constant::new((D as u64).into()),
            c_wsh: std::array::from_fn(|f| Constant::new(((32 * f) as u64).into())),
            crcc: Default::default(),
            prep: Default::default(),
            pskid: Default::default(),
            pskid_user: Default::default(),
            check: Default::default(),
            outbuf: Default::default(),
            count: Default::default(),
            keep_s: Default::default(),
            keep_h: Default::default(),
            cnt_oh: Default::default(),
            up_in: Default::default(),
            c_up_mask: aligner::up_masks().map(|m| Constant::new(crate::bits::bytes_to_bits::<72>(&m.to_le_bytes()))),
            c_one72: Constant::new(1u64.into()),
            c_one_up: Constant::new(1u64.into()),
            c_sh: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            out_user: Default::default(),
            c_k: Constant::new((K as u64).into()),
            c_one17: Constant::new(1u64.into()),
            c_one_u: Constant::new(1u64.into()),
            c_one_p: Constant::new(1u64.into()),
        }
    }
}

/// The two shipped widths: 8 octets (10 G) and 64 (the 512-bit datapath of 100 G NICs).
pub type MpaRxW8 = MpaRx<64, 8, 128>;
pub type MpaRxW64 = MpaRx<512, 64, 1024>;

impl<const D: usize, const K: usize, const D2: usize> Logic for MpaRx<D, K, D2> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, inbuf, align, mid, rot, crcc, prep, pskid, check, outbuf);
        self.pskid.reset.next = self.reset.val();
        self.mid.reset.next = self.reset.val();
        self.rot.reset.next = self.reset.val();
        self.inbuf.reset.next = self.reset.val();
        self.align.reset.next = self.reset.val();
        self.crcc.reset.next = self.reset.val();
        self.prep.reset.next = self.reset.val();
        self.check.reset.next = self.reset.val();
        self.outbuf.reset.next = self.reset.val();

        AxisSink::<D, K>::link(&mut self.s, &mut self.inbuf.s);
        self.keep_s.next = self.s.tkeep.val();
        for i in 0..6 {
            self.keep_s.next = self.keep_s.val() | (self.keep_s.val() >> self.c_sh[i].val());
        }
        self.keep_h.next = self.keep_s.val() & !(self.keep_s.val() >> self.c_sh[0].val());
        self.count.next = self.c_k.val();
        if self.s.tlast.val() {
            self.count.next = 0.into();
            for i in 0..K {
                if self.keep_h.val().get_bit(i) {
                    self.count.next = self.count.val() | (i + 1).to_bits::<8>();
                }
            }
        }
        self.cnt_oh.next = self.c_one72.val() << self.c_k.val();
        if self.s.tlast.val() {
            self.cnt_oh.next = bit_cast::<72, K>(self.keep_h.val()) << self.c_sh[0].val();
            if !self.keep_s.val().get_bit(0) {
                self.cnt_oh.next = self.c_one72.val();
            }
        }
        self.up_in.next = 0.into();
        for i in 0..UP_FIELDS {
            if (self.cnt_oh.val() & self.c_up_mask[i].val()) != 0 {
                self.up_in.next = self.up_in.val() | (self.c_one_up.val() << i.to_bits::<8>());
            }
        }
        self.inbuf.s_user.next = bit_cast::<IN_FIELDS, 8>(self.count.val())
            | (bit_cast::<IN_FIELDS, UP_FIELDS>(self.up_in.val()) << 8);

        AxisSource::<D, K>::join(&mut self.inbuf.m, &mut self.align.s);
        self.align.s_count.next = self.inbuf.m_user.val().get_bits::<8>(0);
        self.align.s_up.next = self.inbuf.m_user.val().get_bits::<UP_FIELDS>(8);
        self.align.cfg_markers.next = self.cfg.markers.val();
        self.align.cfg_offset.next = self.cfg.offset.val();
        self.align.cfg_mulpdu.next = self.cfg.mulpdu.val();

        // Aligner → skid buffer → CRC stage: `n` on an 8-bit `tkeep`, `first` in bit 0 of
        // the side channel, `mk` 1, `mkl` 9:2, `base` 41:10, `n`'s thermometer 59:42, the words
        // above the beat 155:60, the word in `rp`'s group (one-hot) 159:156.
        self.mid.s.tdata.next = self.align.b.words.val();
        self.mid.s.tkeep.next = self.align.b.n.val();
        self.mid.s.tlast.next = self.align.b.last.val();
        self.mid.s.tvalid.next = self.align.b.valid.val();
        self.align.b.ready.next = self.mid.s.tready.val();
        self.mid_user.next = (bit_cast::<BEAT_FIELDS, 8>(self.align.b.mkl.val()) << 2)
            | (bit_cast::<BEAT_FIELDS, 32>(self.align.b.base.val()) << 10)
            | (bit_cast::<BEAT_FIELDS, 18>(self.align.b_nt.val()) << 42)
            | (bit_cast::<BEAT_FIELDS, 96>(self.align.b_xw.val()) << 60)
            | (bit_cast::<BEAT_FIELDS, 4>(self.align.b_fine.val()) << 156);
        if self.align.b.first.val() {
            self.mid_user.next = self.mid_user.val() | self.c_one_u.val();
        }
        if self.align.b.mk.val() {
            self.mid_user.next = self.mid_user.val() | (self.c_one_u.val() << 1);
        }
        self.mid.s_user.next = self.mid_user.val();
        self.wcat.next = bit_cast::<D2, D>(self.mid.m.tdata.val())
            | (bit_cast::<D2, 96>(self.mid.m_user.val().get_bits::<96>(60)) << self.c_d16.val());
        self.wfine.next = self.mid.m_user.val().get_bits::<4>(156);
        self.wf.next = 0.into();
        for f in 0..4 {
            self.wsh.next = self.wcat.val() >> self.c_wsh[f].val();
            if self.wfine.val().get_bit(f) {
                self.wf.next = self.wf.val() | bit_cast::<D, D2>(self.wsh.val());
            }
        }
        // Ring form: skid buffer → rotation → `rot` → CRC stage; accumulator form: skid buffer
        // → CRC stage (`rot` takes nothing).
        self.rot.s.tdata.next = self.wf.val();
        self.rot.s.tkeep.next = self.mid.m.tkeep.val();
        self.rot.s.tlast.next = self.mid.m.tlast.val();
        self.rot.s.tvalid.next = self.mid.m.tvalid.val() & self.c_ring.val();
        self.rot.s_user.next = self.mid.m_user.val().get_bits::<ROT_FIELDS>(0);
        self.rot.m.tready.next = self.crcc.b.ready.val();
        self.mid.m.tready.next = self.rot.s.tready.val();
        self.crcc.b.words.next = self.rot.m.tdata.val();
        self.crcc.b.last.next = self.rot.m.tlast.val();
        self.crcc.b.valid.next = self.rot.m.tvalid.val();
        self.crcc.b.n.next = self.rot.m.tkeep.val().get_bits::<8>(0);
        self.beat_user.next = self.rot.m_user.val();
        if !self.c_ring.val() {
            self.mid.m.tready.next = self.crcc.b.ready.val();
            self.crcc.b.words.next = self.mid.m.tdata.val();
            self.crcc.b.last.next = self.mid.m.tlast.val();
            self.crcc.b.valid.next = self.mid.m.tvalid.val();
            self.crcc.b.n.next = self.mid.m.tkeep.val().get_bits::<8>(0);
            self.beat_user.next = self.mid.m_user.val().get_bits::<ROT_FIELDS>(0);
        }
        self.crcc.b.first.next = self.beat_user.val().get_bit(0);
        self.crcc.b.mk.next = self.beat_user.val().get_bit(1);
        self.crcc.b.mkl.next = self.beat_user.val().get_bits::<8>(2);
        self.crcc.b.base.next = self.beat_user.val().get_bits::<32>(10);
        self.crcc.b_nt.next = self.beat_user.val().get_bits::<18>(42);

        // CRC stage → prep stage: the beat less `n` and `mk` (the layout fields replace them).
        self.prep.b_words.next = self.crcc.c_words.val();
        self.prep.b_first.next = self.crcc.c_first.val();
        self.prep.b_last.next = self.crcc.c_last.val();
        self.prep.b_lead.next = self.crcc.c_lead.val();
        self.prep.b_base.next = self.crcc.c_base.val();
        self.prep.b_valid.next = self.crcc.c_valid.val();
        self.crcc.c_ready.next = self.prep.b_ready.val();
        self.prep.cfg_crc.next = self.cfg.crc.val();
        self.prep.b_crc_found.next = self.crcc.c_crc_found.val();
        self.prep.b_crc_calc.next = self.crcc.c_crc_calc.val();
        self.prep.b_raw.next = self.crcc.c_raw.val();
        self.prep.b_raw_keep.next = self.crcc.c_raw_keep.val();
        self.prep.b_lane_keep.next = self.crcc.c_lane_keep.val();
        self.prep.b_len_in.next = self.crcc.c_len_in.val();
        self.prep.b_len_keep.next = self.crcc.c_len_keep.val();
        self.prep.b_len_big.next = self.crcc.c_len_big.val();
        self.prep.b_hdr_at.next = self.crcc.c_hdr_at.val();
        self.prep.b_mk_off.next = self.crcc.c_mk_off.val();
        self.prep.b_mk_found.next = self.crcc.c_mk_found.val();
        self.prep.b_mk_exp.next = self.crcc.c_mk_exp.val();
        self.prep.b_mk_bad.next = self.crcc.c_mk_bad.val();
        self.prep.b_len_bad.next = self.crcc.c_len_bad.val();
        self.crcc.cfg_mulpdu.next = self.cfg.mulpdu.val();
        self.prep.cfg_mulpdu.next = self.cfg.mulpdu.val();

        // Prep stage → skid buffer → check stage.
        self.pskid.s.tdata.next = self.prep.p_payload.val();
        self.pskid.s.tkeep.next = self.prep.p_keep.val();
        self.pskid.s.tlast.next = self.prep.p_last.val();
        self.pskid.s.tvalid.next = self.prep.p_valid.val();
        self.prep.p_ready.next = self.pskid.s.tready.val();
        self.pskid_user.next = bit_cast::<PREP_FIELDS, 8>(self.prep.p_cnt.val())
            | (bit_cast::<PREP_FIELDS, 16>(self.prep.p_len.val()) << 8)
            | (bit_cast::<PREP_FIELDS, 2>(self.prep.p_kind.val()) << 25)
            | (bit_cast::<PREP_FIELDS, 32>(self.prep.p_err_off.val()) << 27)
            | (bit_cast::<PREP_FIELDS, 32>(self.prep.p_err_found.val()) << 59)
            | (bit_cast::<PREP_FIELDS, 32>(self.prep.p_err_exp.val()) << 91);
        if self.prep.p_crc_bad.val() {
            self.pskid_user.next = self.pskid_user.val() | (self.c_one_p.val() << 24);
        }
        self.pskid.s_user.next = self.pskid_user.val();
        self.check.p_payload.next = self.pskid.m.tdata.val();
        self.check.p_keep.next = self.pskid.m.tkeep.val();
        self.check.p_last.next = self.pskid.m.tlast.val();
        self.check.p_valid.next = self.pskid.m.tvalid.val();
        self.pskid.m.tready.next = self.check.p_ready.val();
        self.check.p_cnt.next = self.pskid.m_user.val().get_bits::<8>(0);
        self.check.p_len.next = self.pskid.m_user.val().get_bits::<16>(8);
        self.check.p_crc_bad.next = self.pskid.m_user.val().get_bit(24);
        self.check.p_kind.next = self.pskid.m_user.val().get_bits::<2>(25);
        self.check.p_err_off.next = self.pskid.m_user.val().get_bits::<32>(27);
        self.check.p_err_found.next = self.pskid.m_user.val().get_bits::<32>(59);
        self.check.p_err_exp.next = self.pskid.m_user.val().get_bits::<32>(91);

        AxisSource::<D, K>::join(&mut self.check.m, &mut self.outbuf.s);
        self.out_user.next = bit_cast::<17, 16>(self.check.m_len.val()) << 1;
        if self.check.m_tuser.val() {
            self.out_user.next = self.out_user.val() | self.c_one17.val();
        }
        self.outbuf.s_user.next = self.out_user.val();
        AxisSource::<D, K>::link(&mut self.m, &mut self.outbuf.m);
        self.m_tuser.next = self.outbuf.m_user.val().get_bit(0);
        self.m_len.next = self.outbuf.m_user.val().get_bits::<16>(1);
        self.status.error.next = self.check.error.val();
        self.status.offset.next = self.check.error_offset.val();
        self.status.found.next = self.check.error_found.val();
        self.status.expected.next = self.check.error_expected.val();
        self.status.idle.next = !self.inbuf.m.tvalid.val()
            & self.align.idle.val()
            & !self.mid.m.tvalid.val()
            & !self.rot.m.tvalid.val()
            & self.crcc.c_idle.val()
            & !self.prep.p_valid.val()
            & !self.pskid.m.tvalid.val()
            & self.check.idle.val()
            & !self.check.m.tvalid.val()
            & !self.m.tvalid.val();
        self.counters.fpdus.next = self.check.fpdus.val();
        self.counters.bad_crc.next = self.check.bad_crc.val();
        self.counters.bad_marker.next = self.check.bad_marker.val();
        self.counters.bad_length.next = self.check.bad_length.val();
    }
}

/// rust-hdl's simulation of the receiver behind the testbench's
/// [`crate::testbench::ClockedModel`].
pub fn hdl_model<const D: usize, const K: usize, const D2: usize>(
) -> Result<HdlModel<MpaRx<D, K, D2>>, BenchError> {
    crate::hdl_model!(
        MpaRx::<D, K, D2>::default(),
        MpaRx<D, K, D2>,
        [
            reset, cfg.markers, cfg.crc, cfg.mulpdu, cfg.offset, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready,
            m.tdata, m.tkeep, m.tvalid, m.tlast, m.tready, m_tuser, m_len, status.error, status.offset, status.found, status.expected, status.idle,
            counters.fpdus, counters.bad_crc, counters.bad_marker, counters.bad_length
        ]
    )
}

#[cfg(test)]
mod tests;
