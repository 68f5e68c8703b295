//! Stage B of the MPA framer: the CRC-32C over each FPDU (RFC 5044 §4.4) and its insertion,
//! pipelined the way the CRC engine is ([`crate::crc`], [`crate::crc::CrcPipeline`]).
//!
//! The lane assembly leaves an FPDU's CRC lane zero; the lanes a beat uses are all of them, or
//! on an FPDU's last beat those up to its CRC lane (computed here, in the input register, from
//! the registered CRC lane: off the lane assembly's loop). The beat with its unused lanes zeroed
//! is exactly what the CRC covers followed by zero words:
//! the Markers inside the FPDU, one right after the PAD and a leading one with FPDUPTR 0 are
//! covered, and nothing is selected by lane on the way into the CRC. On the last beat, whose
//! CRC lane is `c`, the loop's result is `X = A_{W−4c}·T` (the true register `T` followed by
//! `N − c` zero words), and `T` is recovered behind the loop by one conditional unshift stage
//! per bit of `N − c` (`U_4`, `U_8`, `U_16`, `U_32`); `c = 0` takes the register itself. The
//! last stage finishes the CRC as well (`finish·U_32` or `finish`, one matrix each, the
//! constant `xorout`), so the register beside the beat's last delay entry holds the CRC field
//! itself, and with it a one-hot of the word lane it goes in:
//!
//! ```text
//! s ─► [beat, used lanes] ─► [dr = L(beat & used)] ─► [loop R ← A_W·R ⊕ dr] ─► [U_4?] ─► [U_8?] ─► [U_16?]
//!   ─► [field = finish(U_32? ·), 0 when CRCs are off; its lane one-hot] ─► [the beat, its CRC lane = field] ─► m
//! ```
//! Eight registers from `s` to `m` at every width (the unshift stages a width does not need
//! are plain registers): the beats travel beside the CRC in a delay line. The output's lane
//! select is then one 2:1 per data bit from registers; it was the finishing tree, the
//! `cfg_crc` gate and an 8-bit compare of the CRC lane with each lane number behind the
//! chain's last control word, which fanned out over every data bit (`top_w8` seed 2 at
//! a25c590: `chain_ctl` → `m_data`, 4 levels, 7.09 of 8.21 ns routing). The output register
//! has a skid entry beside it (`sk_*`, loaded from the pipeline while free), and the whole
//! pipeline advances together while that entry is free (`en`, a register), so back-pressure
//! stalls it without losing a beat and one beat per clock flows otherwise. `m.tready` thus
//! enables the output register alone: it no longer reaches the pipeline's enables or, through
//! `s.tready`, the lane assembly's beat decision (`top_w8`'s seed 2 at 70c11f9 ran the top's
//! `m_tready` register → `en` → the assembly's `left` and `beat` → `held`, 8 levels with
//! 6.22 ns of routing). Every register-to-register path is one XOR tree (the data remainder,
//! the loop, an unshift) with at most a 2:1 select, or the output's lane select.

use crate::axis::{AxisSink, AxisSource};
use crate::crc::{CrcNetwork, CrcPipeline, GfMatrix};
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// Unshift stages: one per bit of `N − c` words, `N = W/4 ≤ 16`; the last is also the
/// finishing stage (`field`).
const STAGES: usize = 4;
/// Word lanes at the widest beat (`K = 64`): `crc_at`'s bits.
const MAX_WORDS: usize = 16;
/// Delay-line registers before the output register: the input, the data remainder, the loop,
/// the unshift stages.
const DELAY: usize = STAGES + 3;
/// Registers from `s` to `m`: the delay line and the output register.
pub const REGISTERS: u64 = DELAY as u64 + 1;

/// `D = 8·K` data bits, `K` octets (`N = K/4` word lanes) per beat.
#[derive(LogicBlock)]
pub struct CrcStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Insert the CRC (else its lane is zeros, as MPA without CRCs has it).
    pub cfg_crc: Signal<In, Bit>,
    /// Assembled beats (the CRC lane zero); `tlast` on an FPDU's last beat, whose CRC goes in
    /// lane `s_crc_lane`.
    pub s: AxisSink<D, K>,
    pub s_crc_lane: Signal<In, Bits<8>>,
    /// The FPDU stream, one frame per FPDU.
    pub m: AxisSource<D, K>,
    /// FPDUs sent.
    pub fpdus: Signal<Out, Bits<32>>,
    // The data remainder, the loop, the unshift stages and the finishing permutation.
    data_net: GfMatrix<D, 32>,
    dr: DFF<Bits<32>>,
    /// The last beat's null flag (its CRC in lane 0: the register itself) and `N − c`.
    dr_null: DFF<Bit>,
    dr_back: DFF<Bits<4>>,
    advance: GfMatrix<32, 32>,
    state: DFF<Bits<32>>,
    unshift: [GfMatrix<32, 32>; STAGES - 1],
    /// `chain[0]` loaded by the loop, `chain[b + 1]` by unshift stage `b`.
    chain: [DFF<Bits<32>>; STAGES],
    /// Beside `chain[b]`: bit 0 set when it holds an FPDU's register, bits 4:1 `N − c` (stage
    /// `b` reads bit `b + 1`); zero otherwise.
    chain_ctl: [DFF<Bits<5>>; STAGES],
    /// The last stage: `finish·U_32` (`finish_u`, taken when `chain_ctl[3]`'s bit 4 is set) or
    /// `finish` of `chain[3]`, each with `xorout`.
    finish: GfMatrix<32, 32>,
    finish_u: GfMatrix<32, 32>,
    /// The CRC field beside the last delay entry (zeros when CRCs are off: `cfg_crc` is a
    /// register's, and read a clock earlier than the field goes out).
    field: DFF<Bits<32>>,
    /// Bit `l`: the beat beside `field` is an FPDU's last and its CRC goes in word lane `l`.
    crc_at: DFF<Bits<MAX_WORDS>>,
    // The beats beside the CRC: entry 0 the input register, entry 1 beside `dr`, entry 2
    // beside `chain[0]`, entry b + 3 beside `chain[b + 1]`.
    p_data: [DFF<Bits<D>>; DELAY],
    p_keep: [DFF<Bits<K>>; DELAY],
    p_last: [DFF<Bit>; DELAY],
    p_valid: [DFF<Bit>; DELAY],
    /// The CRC lane, as far as entry 5 (`crc_at` holds it beside entry 6).
    p_lane: [DFF<Bits<8>>; DELAY - 1],
    m_data: DFF<Bits<D>>,
    m_keep: DFF<Bits<K>>,
    m_valid: DFF<Bit>,
    m_last: DFF<Bit>,
    /// The skid entry: the pipeline's beat when it left while the output register was held.
    sk_data: DFF<Bits<D>>,
    sk_keep: DFF<Bits<K>>,
    sk_last: DFF<Bit>,
    sk_valid: DFF<Bit>,
    n_fpdus: DFF<Bits<32>>,
    en: Signal<Local, Bit>,
    used: Signal<Local, Bits<K>>,
    masked: Signal<Local, Bits<D>>,
    nxt: Signal<Local, Bits<32>>,
    crc_word: Signal<Local, Bits<32>>,
    lanes_out: Signal<Local, Bits<D>>,
    at_n: Signal<Local, Bits<MAX_WORDS>>,
    c_n: Constant<Bits<8>>,
    c_nib_k: Constant<Bits<K>>,
    c_back_mask: Constant<Bits<8>>,
    c_byte_d: Constant<Bits<D>>,
    c_word_d: Constant<Bits<D>>,
    c_init: Constant<Bits<32>>,
    c_one5: Constant<Bits<5>>,
    c_one_w: Constant<Bits<MAX_WORDS>>,
}

impl<const D: usize, const K: usize> Default for CrcStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && K.is_power_of_two() && (4..=64).contains(&K), "CrcStage<8K, K>, K in 4..=64");
        let p = CrcPipeline::new(CrcNetwork::new(CrcKind::Crc32c.params(), K));
        let n = K / 4;
        // Word stage b is the octet stage b + 2; a width with fewer words has identity stages
        // (never selected: `N − c < N`), which synthesis folds into plain registers.
        let identity: Vec<u64> = (0..32).map(|i| 1u64 << i).collect();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_crc: Default::default(),
            s: Default::default(),
            s_crc_lane: Default::default(),
            m: Default::default(),
            fpdus: Default::default(),
            data_net: GfMatrix::new(p.data.clone(), 0),
            dr: Default::default(),
            dr_null: Default::default(),
            dr_back: Default::default(),
            advance: GfMatrix::new(p.advance.clone(), 0),
            state: Default::default(),
            unshift: std::array::from_fn(|b| {
                GfMatrix::new(p.unshift.get(b + 2).cloned().unwrap_or_else(|| identity.clone()), 0)
            }),
            chain: std::array::from_fn(|_| Default::default()),
            chain_ctl: std::array::from_fn(|_| Default::default()),
            finish: GfMatrix::new(p.finish.clone(), p.net.params.xorout),
            // `finish·U_32` ([`CrcPipeline::finished_unshift`]) where the width has that
            // stage (W = 64), else `finish·I`.
            finish_u: GfMatrix::new(
                if p.unshift.get(STAGES + 1).is_some() {
                    p.finished_unshift(4 << (STAGES - 1))
                } else {
                    p.finish.clone()
                },
                p.net.params.xorout,
            ),
            field: Default::default(),
            crc_at: Default::default(),
            p_data: std::array::from_fn(|_| Default::default()),
            p_keep: std::array::from_fn(|_| Default::default()),
            p_last: std::array::from_fn(|_| Default::default()),
            p_valid: std::array::from_fn(|_| Default::default()),
            p_lane: std::array::from_fn(|_| Default::default()),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_valid: Default::default(),
            m_last: Default::default(),
            sk_data: Default::default(),
            sk_keep: Default::default(),
            sk_last: Default::default(),
            sk_valid: Default::default(),
            n_fpdus: Default::default(),
            en: Default::default(),
            used: Default::default(),
            masked: Default::default(),
            nxt: Default::default(),
            crc_word: Default::default(),
            lanes_out: Default::default(),
            at_n: Default::default(),
            c_n: Constant::new((n as u64).into()),
            c_nib_k: Constant::new(0xFu64.into()),
            c_back_mask: Constant::new(((n - 1) as u64).into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_word_d: Constant::new(0xFFFF_FFFFu64.into()),
            c_init: Constant::new(p.net.init_r.into()),
            c_one5: Constant::new(1u64.into()),
            c_one_w: Constant::new(1u64.into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for CrcStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dr, dr_null, dr_back, state, field, crc_at, m_data, m_keep, m_valid, m_last, sk_data, sk_keep, sk_last, sk_valid, n_fpdus);
        for b in 0..4 {
            self.chain[b].clock.next = self.clock.val();
            self.chain_ctl[b].clock.next = self.clock.val();
            self.chain[b].d.next = self.chain[b].q.val();
            self.chain_ctl[b].d.next = self.chain_ctl[b].q.val();
        }
        for i in 0..7 {
            self.p_data[i].clock.next = self.clock.val();
            self.p_keep[i].clock.next = self.clock.val();
            self.p_last[i].clock.next = self.clock.val();
            self.p_valid[i].clock.next = self.clock.val();
            self.p_data[i].d.next = self.p_data[i].q.val();
            self.p_keep[i].d.next = self.p_keep[i].q.val();
            self.p_last[i].d.next = self.p_last[i].q.val();
            self.p_valid[i].d.next = self.p_valid[i].q.val();
        }
        for i in 0..6 {
            self.p_lane[i].clock.next = self.clock.val();
            self.p_lane[i].d.next = self.p_lane[i].q.val();
        }
        self.m.tdata.next = self.m_data.q.val();
        self.m.tkeep.next = self.m_keep.q.val();
        self.m.tvalid.next = self.m_valid.q.val();
        self.m.tlast.next = self.m_last.q.val();
        self.fpdus.next = self.n_fpdus.q.val();
        // The whole pipeline advances while the skid entry is free: from a register.
        self.en.next = !self.sk_valid.q.val();
        self.s.tready.next = self.en.val();

        // The lanes the beat uses: all, or on a last beat those up to its CRC lane (lane 0
        // always).
        self.used.next = self.c_nib_k.val();
        for l in 1..(K / 4) {
            if !self.s.tlast.val() | (self.s_crc_lane.val() >= l.to_bits::<8>()) {
                self.used.next = self.used.val() | (self.c_nib_k.val() << (l * 4).to_bits::<16>());
            }
        }
        self.used.next = self.used.val() & self.s.tkeep.val();
        // Data remainder of the beat with its unused lanes zeroed.
        self.masked.next = self.p_data[0].q.val();
        for i in 0..K {
            if !self.p_keep[0].q.val().get_bit(i) {
                self.masked.next = self.masked.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.data_net.x.next = self.masked.val();
        // The loop.
        self.advance.x.next = self.state.q.val();
        self.nxt.next = self.advance.y.val() ^ self.dr.q.val();
        // Unshift stages, the last one finishing.
        for b in 0..3 {
            self.unshift[b].x.next = self.chain[b].q.val();
        }
        self.finish.x.next = self.chain[3].q.val();
        self.finish_u.x.next = self.chain[3].q.val();
        self.crc_word.next = 0.into();
        if self.cfg_crc.val() {
            self.crc_word.next = self.finish.y.val();
            if self.chain_ctl[3].q.val().get_bit(4) {
                self.crc_word.next = self.finish_u.y.val();
            }
        }
        // The lane the field beside the next delay entry goes in, if it is an FPDU's.
        self.at_n.next = 0.into();
        for l in 0..(K / 4) {
            if self.chain_ctl[3].q.val().get_bit(0) & (self.p_lane[5].q.val() == l.to_bits::<8>()) {
                self.at_n.next = self.at_n.val() | (self.c_one_w.val() << l.to_bits::<16>());
            }
        }
        // The beat with its CRC field in the lane `crc_at` marks: a select per data bit.
        self.lanes_out.next = self.p_data[6].q.val();
        for l in 0..(K / 4) {
            if self.crc_at.q.val().get_bit(l) {
                self.lanes_out.next = (self.lanes_out.val() & !(self.c_word_d.val() << (l * 32).to_bits::<16>()))
                    | (bit_cast::<D, 32>(self.field.q.val()) << (l * 32).to_bits::<16>());
            }
        }

        if self.en.val() {
            // Entry 0: the beat and its used lanes; then the data remainder, beside entry 1.
            self.dr.d.next = self.data_net.y.val();
            self.dr_null.d.next = self.p_lane[0].q.val() == 0;
            self.dr_back.d.next = bit_cast::<4, 8>((self.c_n.val() - self.p_lane[0].q.val()) & self.c_back_mask.val());
            self.p_data[0].d.next = self.s.tdata.val();
            self.p_keep[0].d.next = self.used.val();
            self.p_last[0].d.next = self.s.tlast.val();
            self.p_valid[0].d.next = self.s.tvalid.val();
            self.p_lane[0].d.next = self.s_crc_lane.val();
            for i in 1..7 {
                self.p_data[i].d.next = self.p_data[i - 1].q.val();
                self.p_keep[i].d.next = self.p_keep[i - 1].q.val();
                self.p_last[i].d.next = self.p_last[i - 1].q.val();
                self.p_valid[i].d.next = self.p_valid[i - 1].q.val();
            }
            for i in 1..6 {
                self.p_lane[i].d.next = self.p_lane[i - 1].q.val();
            }
            // The loop; an FPDU's last beat sends its result down the chain and restarts.
            if self.p_valid[1].q.val() {
                self.state.d.next = self.nxt.val();
                if self.p_last[1].q.val() {
                    self.state.d.next = self.c_init.val();
                }
            }
            self.chain[0].d.next = self.nxt.val();
            if self.dr_null.q.val() {
                self.chain[0].d.next = self.state.q.val();
            }
            self.chain_ctl[0].d.next = 0.into();
            if self.p_valid[1].q.val() & self.p_last[1].q.val() {
                self.chain_ctl[0].d.next = (bit_cast::<5, 4>(self.dr_back.q.val()) << 1) | self.c_one5.val();
                if self.dr_null.q.val() {
                    self.chain_ctl[0].d.next = self.c_one5.val();
                }
            }
            for b in 0..3 {
                self.chain[b + 1].d.next = self.chain[b].q.val();
                if self.chain_ctl[b].q.val().get_bit(b + 1) {
                    self.chain[b + 1].d.next = self.unshift[b].y.val();
                }
                self.chain_ctl[b + 1].d.next = self.chain_ctl[b].q.val();
            }
            self.field.d.next = self.crc_word.val();
            self.crc_at.d.next = self.at_n.val();
            // A beat leaving the pipeline (into the output register or the skid entry).
            if self.p_valid[6].q.val() & self.p_last[6].q.val() {
                self.n_fpdus.d.next = self.n_fpdus.q.val() + 1;
            }
        }
        // The skid entry follows the pipeline's beat while free (its enable is a register's).
        if !self.sk_valid.q.val() {
            self.sk_data.d.next = self.lanes_out.val();
            self.sk_keep.d.next = self.p_keep[6].q.val();
            self.sk_last.d.next = self.p_last[6].q.val();
        }
        // The output register: the skid entry's beat first, else the pipeline's; a beat leaving
        // the pipeline while the output is held stays in the skid entry.
        if !self.m_valid.q.val() | self.m.tready.val() {
            if self.sk_valid.q.val() {
                self.m_valid.d.next = true;
                self.m_data.d.next = self.sk_data.q.val();
                self.m_keep.d.next = self.sk_keep.q.val();
                self.m_last.d.next = self.sk_last.q.val();
                self.sk_valid.d.next = false;
            } else {
                self.m_valid.d.next = self.p_valid[6].q.val();
                self.m_data.d.next = self.lanes_out.val();
                self.m_keep.d.next = self.p_keep[6].q.val();
                self.m_last.d.next = self.p_last[6].q.val();
            }
        } else if !self.sk_valid.q.val() & self.p_valid[6].q.val() {
            self.sk_valid.d.next = true;
        }
        if self.reset.val() {
            self.state.d.next = self.c_init.val();
            for i in 0..7 {
                self.p_valid[i].d.next = false;
            }
            for b in 0..4 {
                self.chain_ctl[b].d.next = 0.into();
            }
            self.crc_at.d.next = 0.into();
            self.m_data.d.next = 0.into();
            self.m_keep.d.next = 0.into();
            self.m_valid.d.next = false;
            self.m_last.d.next = false;
            self.sk_valid.d.next = false;
            self.n_fpdus.d.next = 0.into();
        }
    }
}
