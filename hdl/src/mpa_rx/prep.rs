//! Stage P of the MPA receiver, between the CRC stage and the check stage: everything the check
//! stage needs that depends on the beat alone, or on state only the beats themselves advance,
//! computed a clock ahead and registered — the Marker lane taken out, the header octets dropped,
//! the ULPDU octets of the beat counted and the rest masked, the length and Marker rules judged
//! and the values `status` would report. The check stage is then left with its output window
//! (`win = ob | payload << 8o`) and its verdict, starting from registers (issue 26: the path
//! from the CRC stage's beat register through the Marker removal, the octet count and the
//! window into `m_data` was the receiver's critical path, 33 logic levels). What depends on the
//! beat's layout alone (the octets after Marker and header, their thermometer, the lanes that
//! keep their word, the header's ULPDU_Length, the header's and the Marker's offsets, FPDUPTR)
//! comes from the CRC stage's registers ([`super::crc_check::CrcCheck::c_raw`]); here only
//! what needs the FPDU's state is left: `min(raw, u)` and its byte mask, the Marker pointer
//! due, the verdict (the second step: 78.6 MHz at W = 8 had this stage's `n` → octet count →
//! byte mask as its critical path).
//!
//! Stage P sees every beat the check stage takes, in the same order, so its own copies of the
//! FPDU's state (the ULPDU octets still due, the header's offset, the FPDU's start) are the
//! check stage's: after an error the check stage drops every beat and what stage P computes
//! no longer matters.

use super::check::{ERR_LENGTH, ERR_MARKER};
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct Prep<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg_mulpdu: Signal<In, Bits<16>>,
    pub cfg_crc: Signal<In, Bit>,
    /// The CRC stage's beats (a [`super::WordBeatSource`] less `n` and `mk`, which the layout fields
    /// below replace), with the CRC field and the CRC computed on a last beat (see
    /// [`super::crc_check::CrcCheck`]); compared here, a clock behind the step network.
    pub b_words: Signal<In, Bits<D>>,
    pub b_first: Signal<In, Bit>,
    pub b_last: Signal<In, Bit>,
    /// A Marker leads the beat.
    pub b_lead: Signal<In, Bit>,
    pub b_base: Signal<In, Bits<32>>,
    pub b_valid: Signal<In, Bit>,
    pub b_ready: Signal<Out, Bit>,
    pub b_crc_found: Signal<In, Bits<32>>,
    pub b_crc_calc: Signal<In, Bits<32>>,
    /// The beat's layout, worked out by the CRC stage from its input registers (see
    /// [`super::crc_check::CrcCheck::c_raw`]).
    pub b_raw: Signal<In, Bits<16>>,
    pub b_raw_keep: Signal<In, Bits<K>>,
    pub b_lane_keep: Signal<In, Bits<16>>,
    pub b_len_in: Signal<In, Bits<16>>,
    pub b_len_keep: Signal<In, Bits<K>>,
    pub b_len_big: Signal<In, Bit>,
    pub b_hdr_at: Signal<In, Bits<32>>,
    pub b_mk_off: Signal<In, Bits<32>>,
    pub b_mk_found: Signal<In, Bits<16>>,
    pub b_mk_exp: Signal<In, Bits<16>>,
    pub b_mk_bad: Signal<In, Bit>,
    pub b_len_bad: Signal<In, Bit>,
    /// The prepared beat, registered: `p_payload` the beat's ULPDU octets in octets
    /// `0..p_cnt` (zero above), `p_len` the FPDU's ULPDU_Length, `p_last` the FPDU's last
    /// beat (with `p_crc_bad`), `p_kind` the first length or Marker rule the beat breaks
    /// (`ERR_*`, 0 none) and `p_err_*` what `status` reports for it (for a CRC error when
    /// `p_kind` is 0).
    pub p_payload: Signal<Out, Bits<D>>,
    pub p_cnt: Signal<Out, Bits<8>>,
    /// `p_cnt` as a tkeep (bit `i` set when `i < p_cnt`): the check stage's window sizes come
    /// from it with no compare of `p_cnt` (stop 50: the prep stage's count → the check stage's
    /// `t > K` → `m_data` was the receiver's path on one seed at 142.3 MHz).
    pub p_keep: Signal<Out, Bits<K>>,
    pub p_len: Signal<Out, Bits<16>>,
    pub p_last: Signal<Out, Bit>,
    pub p_crc_bad: Signal<Out, Bit>,
    pub p_kind: Signal<Out, Bits<2>>,
    pub p_err_off: Signal<Out, Bits<32>>,
    pub p_err_found: Signal<Out, Bits<32>>,
    pub p_err_exp: Signal<Out, Bits<32>>,
    pub p_valid: Signal<Out, Bit>,
    pub p_ready: Signal<In, Bit>,
    // The FPDU's state, advanced by every beat taken.
    u: DFF<Bits<16>>,
    /// `u`'s thermometer over the beat's octets (bit `i` set when `i < u`) and `u ≥ 2K`:
    /// the byte mask reads a register (stop 51: `i < u` behind `u`'s first-beat mux, a 16-bit
    /// carry chain, then the mask, was the receiver's path on every seed at 143.3 MHz).
    ut: DFF<Bits<K>>,
    u_big: DFF<Bit>,
    len_q: DFF<Bits<16>>,
    fstart: DFF<Bits<32>>,
    // The output registers.
    q_payload: DFF<Bits<D>>,
    q_cnt: DFF<Bits<8>>,
    q_keep: DFF<Bits<K>>,
    octet_keep: Signal<Local, Bits<K>>,
    c_one_k: Constant<Bits<K>>,
    q_len: DFF<Bits<16>>,
    q_last: DFF<Bit>,
    q_crc_bad: DFF<Bit>,
    q_kind: DFF<Bits<2>>,
    q_err_off: DFF<Bits<32>>,
    q_err_found: DFF<Bits<32>>,
    q_err_exp: DFF<Bits<32>>,
    q_valid: DFF<Bit>,
    // Combinational.
    word_mask: Signal<Local, Bits<D>>,
    byte_mask: Signal<Local, Bits<D>>,
    nomk: Signal<Local, Bits<D>>,
    len_eff: Signal<Local, Bits<16>>,
    u_eff: Signal<Local, Bits<16>>,
    ut_eff: Signal<Local, Bits<K>>,
    big_eff: Signal<Local, Bit>,
    u_low: Signal<Local, Bits<8>>,
    u_rest: Signal<Local, Bits<8>>,
    ut_next: Signal<Local, Bits<K>>,
    c_low8: Constant<Bits<8>>,
    c_two_k: Constant<Bits<16>>,
    short: Signal<Local, Bit>,
    payload: Signal<Local, Bits<D>>,
    m_cnt: Signal<Local, Bits<8>>,
    u_next: Signal<Local, Bits<16>>,
    fstart_eff: Signal<Local, Bits<32>>,
    kind: Signal<Local, Bits<2>>,
    c_word_d: Constant<Bits<D>>,
    c_byte_d: Constant<Bits<D>>,
    c_err_mk: Constant<Bits<2>>,
    c_err_len: Constant<Bits<2>>,
}

impl<const D: usize, const K: usize> Default for Prep<D, K> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_mulpdu: Default::default(),
            b_words: Default::default(),
            b_first: Default::default(),
            b_last: Default::default(),
            b_lead: Default::default(),
            b_base: Default::default(),
            b_valid: Default::default(),
            b_ready: Default::default(),
            cfg_crc: Default::default(),
            b_crc_found: Default::default(),
            b_crc_calc: Default::default(),
            p_payload: Default::default(),
            p_cnt: Default::default(),
            p_keep: Default::default(),
            p_len: Default::default(),
            p_last: Default::default(),
            p_crc_bad: Default::default(),
            p_kind: Default::default(),
            p_err_off: Default::default(),
            p_err_found: Default::default(),
            p_err_exp: Default::default(),
            p_valid: Default::default(),
            p_ready: Default::default(),
            u: Default::default(),
            ut: Default::default(),
            u_big: Default::default(),
            len_q: Default::default(),
            fstart: Default::default(),
            q_payload: Default::default(),
            q_cnt: Default::default(),
            q_keep: Default::default(),
            octet_keep: Default::default(),
            c_one_k: Constant::new(1u64.into()),
            q_len: Default::default(),
            q_last: Default::default(),
            q_crc_bad: Default::default(),
            q_kind: Default::default(),
            q_err_off: Default::default(),
            q_err_found: Default::default(),
            q_err_exp: Default::default(),
            q_valid: Default::default(),
            word_mask: Default::default(),
            byte_mask: Default::default(),
            nomk: Default::default(),
            len_eff: Default::default(),
            u_eff: Default::default(),
            ut_eff: Default::default(),
            big_eff: Default::default(),
            u_low: Default::default(),
            u_rest: Default::default(),
            ut_next: Default::default(),
            c_low8: Constant::new((2 * K as u64 - 1).into()),
            c_two_k: Constant::new((2 * K as u64).into()),
            short: Default::default(),
            payload: Default::default(),
            m_cnt: Default::default(),
            u_next: Default::default(),
            fstart_eff: Default::default(),
            kind: Default::default(),
            b_raw: Default::default(),
            b_raw_keep: Default::default(),
            b_lane_keep: Default::default(),
            b_len_in: Default::default(),
            b_len_keep: Default::default(),
            b_len_big: Default::default(),
            b_hdr_at: Default::default(),
            b_mk_off: Default::default(),
            b_mk_found: Default::default(),
            b_mk_exp: Default::default(),
            b_mk_bad: Default::default(),
            b_len_bad: Default::default(),
            c_word_d: Constant::new(0xFFFF_FFFFu64.into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_err_mk: Constant::new(ERR_MARKER.into()),
            c_err_len: Constant::new(ERR_LENGTH.into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for Prep<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, u, ut, u_big, len_q, fstart, q_payload, q_cnt, q_keep, q_len, q_last, q_crc_bad, q_kind, q_err_off,
            q_err_found, q_err_exp, q_valid
        );
        self.p_payload.next = self.q_payload.q.val();
        self.p_cnt.next = self.q_cnt.q.val();
        self.p_keep.next = self.q_keep.q.val();
        self.p_len.next = self.q_len.q.val();
        self.p_last.next = self.q_last.q.val();
        self.p_crc_bad.next = self.q_crc_bad.q.val();
        self.p_kind.next = self.q_kind.q.val();
        self.p_err_off.next = self.q_err_off.q.val();
        self.p_err_found.next = self.q_err_found.q.val();
        self.p_err_exp.next = self.q_err_exp.q.val();
        self.p_valid.next = self.q_valid.q.val();
        // Advance whenever the output register is empty or being taken.
        self.b_ready.next = !self.q_valid.q.val() | self.p_ready.val();

        // The words without the Marker: lanes at and above it move down one (which lanes: the
        // CRC stage's `lane_keep`, a register).
        self.word_mask.next = 0.into();
        for l in 0..(K / 4) {
            if self.b_lane_keep.val().get_bit(l) {
                self.word_mask.next = self.word_mask.val() | (self.c_word_d.val() << (l * 32).to_bits::<16>());
            }
        }
        self.nomk.next =
            (self.b_words.val() & self.word_mask.val()) | ((self.b_words.val() >> 32) & !self.word_mask.val());

        // The FPDU's state, or on its first beat the header's.
        self.len_eff.next = self.len_q.q.val();
        self.u_eff.next = self.u.q.val();
        self.ut_eff.next = self.ut.q.val();
        self.big_eff.next = self.u_big.q.val();
        self.payload.next = self.nomk.val();
        self.fstart_eff.next = self.fstart.q.val();
        if self.b_first.val() {
            self.len_eff.next = self.b_len_in.val();
            self.u_eff.next = self.b_len_in.val();
            self.ut_eff.next = self.b_len_keep.val();
            self.big_eff.next = self.b_len_big.val();
            self.payload.next = self.nomk.val() >> 16;
            self.fstart_eff.next = self.b_base.val();
        }
        // The ULPDU octets of this beat, `min(raw, u)` (PAD and CRC clipped away): the
        // comparison and the difference side by side, not one behind the other. The comparison
        // and the next thermometer need `u`'s low bits only: `raw ≤ K`, so when `u ≥ 2K` the
        // beat is not short and `u − raw > i` for every `i < K`; below, `u` is its low bits
        // and `u − raw` their 8-bit difference (in (−K, 2K), negative when bit 7 is set).
        self.u_low.next = bit_cast::<8, 16>(self.u_eff.val()) & self.c_low8.val();
        self.u_rest.next = self.u_low.val() - bit_cast::<8, 16>(self.b_raw.val());
        self.short.next = !self.big_eff.val() & self.u_rest.val().get_bit(7);
        self.ut_next.next = 0.into();
        for i in 0..K {
            if self.big_eff.val() | (!self.u_rest.val().get_bit(7) & (i.to_bits::<8>() < self.u_rest.val())) {
                self.ut_next.next = self.ut_next.val() | (self.c_one_k.val() << i.to_bits::<16>());
            }
        }
        self.m_cnt.next = bit_cast::<8, 16>(self.b_raw.val());
        self.u_next.next = self.u_eff.val() - self.b_raw.val();
        if self.short.val() {
            self.m_cnt.next = bit_cast::<8, 16>(self.u_eff.val());
            self.u_next.next = 0.into();
        }
        // Octet i is the ULPDU's when i < raw (the CRC stage's thermometer) and i < u.
        self.byte_mask.next = 0.into();
        self.octet_keep.next = 0.into();
        for i in 0..K {
            if self.b_raw_keep.val().get_bit(i) & self.ut_eff.val().get_bit(i) {
                self.byte_mask.next = self.byte_mask.val() | (self.c_byte_d.val() << (i * 8).to_bits::<16>());
                self.octet_keep.next = self.octet_keep.val() | (self.c_one_k.val() << i.to_bits::<16>());
            }
        }

        // The length (§4.1 ULPDU_Length, ≤ MULPDU and not 0) and the Marker (FPDUPTR back to
        // the header) were judged by the CRC stage (`b_len_bad`, `b_mk_bad`).
        // The first rule broken in stream order.
        self.kind.next = 0.into();
        if self.b_len_bad.val() & !(self.b_mk_bad.val() & self.b_lead.val()) {
            self.kind.next = self.c_err_len.val();
        } else if self.b_mk_bad.val() {
            self.kind.next = self.c_err_mk.val();
        }

        // The output registers load with every advance, valid or not (they are read only under
        // `q_valid`): their enable is `b_ready` alone, which the check stage's ready reaches
        // through one LUT (stop 53: `b_ready & b_valid` behind it, the output skid → the
        // check's `out_free` → `b_ready` → the enable of `q_len` was one seed's path at 152.7
        // MHz). The FPDU's state advances with valid beats only.
        if self.b_ready.val() {
            self.q_valid.d.next = self.b_valid.val();
            if self.b_valid.val() {
                self.u.d.next = self.u_next.val();
                self.ut.d.next = self.ut_next.val();
                // `u − raw ≥ 2K`, one comparison beside the difference.
                self.u_big.d.next = self.u_eff.val() >= self.b_raw.val() + self.c_two_k.val();
                self.len_q.d.next = self.len_eff.val();
                self.fstart.d.next = self.fstart_eff.val();
            }
            self.q_payload.d.next = self.payload.val() & self.byte_mask.val();
            self.q_cnt.d.next = self.m_cnt.val();
            self.q_keep.d.next = self.octet_keep.val();
            self.q_len.d.next = self.len_eff.val();
            self.q_last.d.next = self.b_last.val();
            self.q_crc_bad.d.next =
                self.b_last.val() & self.cfg_crc.val() & (self.b_crc_found.val() != self.b_crc_calc.val());
            self.q_kind.d.next = self.kind.val();
            // What status reports: the length's, the Marker's, or the CRC's values.
            self.q_err_off.d.next = self.fstart_eff.val();
            self.q_err_found.d.next = self.b_crc_found.val();
            self.q_err_exp.d.next = self.b_crc_calc.val();
            if self.kind.val() == self.c_err_len.val() {
                self.q_err_off.d.next = self.b_hdr_at.val();
                self.q_err_found.d.next = bit_cast::<32, 16>(self.b_len_in.val());
                self.q_err_exp.d.next = bit_cast::<32, 16>(self.cfg_mulpdu.val());
            } else if self.kind.val() == self.c_err_mk.val() {
                self.q_err_off.d.next = self.b_mk_off.val();
                self.q_err_found.d.next = bit_cast::<32, 16>(self.b_mk_found.val());
                self.q_err_exp.d.next = bit_cast::<32, 16>(self.b_mk_exp.val());
            }
        }
        if self.reset.val() {
            self.q_valid.d.next = false;
        }
    }
}
