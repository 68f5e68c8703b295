//! Stage C of the MPA receiver: each FPDU's verdict (ULPDU_Length against MULPDU, every Marker's
//! FPDUPTR, the CRC of [`super::crc_check::CrcCheck`]: judged a clock earlier by
//! [`super::prep::Prep`], acted on here) and its ULPDU, packed into output beats.
//!
//! # Checks, in stream order
//! A beat from stage A holds words of one FPDU only, the first in lane 0, so the header is lane
//! 0, or lane 1 behind a leading Marker. A Marker reaches back to its FPDU's header
//! (FPDUPTR, the low two bits ignored) or is 0 before it (§4.2). When a beat breaks more than
//! one rule, the one earliest in the stream is reported, as the software `Deframer` does: a
//! leading Marker before the length, the length before any later Marker, a Marker before the
//! CRC.
//!
//! # Output
//! The ULPDU octets of a beat are its words with the Marker lane taken out (lanes above it move
//! down one), less the two header octets on the first beat, clipped to the ULPDU octets still
//! due (so PAD and CRC fall away): stage P prepares them, so this stage starts from registers.
//! They are appended behind the `o` octets held in `ob`
//! (`win = ob | payload << 8o`); a full beat goes out only while more than a beat is held, so an
//! open frame always keeps at least one octet back for the beat that carries `tlast` and the
//! verdict (`m_tuser` high: the ULPDU is bad and must be dropped). An FPDU whose tail makes
//! more than a beat needs a second clock for its last beat.
//!
//! The first error stops the stream (RFC 5044 §8): an open frame is closed with `m_tuser` high,
//! its kind and stream offset are held in `status`, its counter counts (a clock later, as every
//! counter here does), and every later beat is
//! taken and dropped until reset.

use crate::axis::AxisSource;
use rust_hdl::prelude::*;

/// `status_error` codes: defined once, in `offload_driver::mpa::hardware`, where the host reads
/// them back.
pub use offload_driver::mpa::hardware::{ERR_CRC, ERR_LENGTH, ERR_MARKER, ERR_NONE};

/// `D = 8·K` data bits, `K` octets per beat, `D2 = 2·D` (the output window).
#[derive(LogicBlock)]
pub struct Check<const D: usize, const K: usize, const D2: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Stage P's prepared beats (see [`super::prep::Prep`]): the ULPDU octets, their count, the
    /// FPDU's length, its last beat and CRC verdict, the rule broken and what status reports.
    pub p_payload: Signal<In, Bits<D>>,
    pub p_cnt: Signal<In, Bits<8>>,
    /// `p_cnt` as a tkeep (lanes `0..p_cnt`), registered by the prep stage.
    pub p_keep: Signal<In, Bits<K>>,
    pub p_len: Signal<In, Bits<16>>,
    pub p_last: Signal<In, Bit>,
    pub p_crc_bad: Signal<In, Bit>,
    pub p_kind: Signal<In, Bits<2>>,
    pub p_err_off: Signal<In, Bits<32>>,
    pub p_err_found: Signal<In, Bits<32>>,
    pub p_err_exp: Signal<In, Bits<32>>,
    pub p_valid: Signal<In, Bit>,
    pub p_ready: Signal<Out, Bit>,
    /// One frame per ULPDU; `m_tuser` on the `tlast` beat: the ULPDU is bad; `m_len` its length.
    pub m: AxisSource<D, K>,
    pub m_tuser: Signal<Out, Bit>,
    pub m_len: Signal<Out, Bits<16>>,
    /// The first error (`ERR_*`) and its stream offset; 0 while the stream is good.
    pub error: Signal<Out, Bits<2>>,
    pub error_offset: Signal<Out, Bits<32>>,
    /// What the failed check found and expected: the CRC field and the CRC computed, the
    /// FPDUPTR and the pointer due, or ULPDU_Length and MULPDU.
    pub error_found: Signal<Out, Bits<32>>,
    pub error_expected: Signal<Out, Bits<32>>,
    /// Good FPDUs passed, and errors by reason.
    pub fpdus: Signal<Out, Bits<32>>,
    pub bad_crc: Signal<Out, Bits<32>>,
    pub bad_marker: Signal<Out, Bits<32>>,
    pub bad_length: Signal<Out, Bits<32>>,
    /// Nothing held between FPDUs.
    pub idle: Signal<Out, Bit>,
    // Registers.
    len_q: DFF<Bits<16>>,
    ob: DFF<Bits<D>>,
    o: DFF<Bits<8>>,
    /// Lane `K − o` one-hot (none for `o = 0`), registered beside `o`: `t > K` is then
    /// `p_cnt > K − o`, lane `K − o` of `p_keep`, an AND-OR of registers (stop 56, seed 3: `o` →
    /// its compares → `t > K` → the selects of `m_data`, 156.2 MHz).
    o_sel: DFF<Bits<K>>,
    pending: DFF<Bit>,
    pend_bad: DFF<Bit>,
    err: DFF<Bits<2>>,
    /// `err ≠ 0`, a register of its own: `p_ready` is then one LUT of registers, and the
    /// stages in front hang their enables on it.
    stopped: DFF<Bit>,
    err_off: DFF<Bits<32>>,
    err_found: DFF<Bits<32>>,
    err_exp: DFF<Bits<32>>,
    n_fpdus: DFF<Bits<32>>,
    n_crc: DFF<Bits<32>>,
    n_mk: DFF<Bits<32>>,
    n_len: DFF<Bits<32>>,
    /// What the counters count, a clock before they count it: each enable is then one register
    /// (placed by the counter), not the beat's decision (`top_w4` at stop 55: `q_kind` → the
    /// check → `n_fpdus`'s enable across the die, 131.4 MHz).
    cnt_fpdu: DFF<Bit>,
    cnt_crc: DFF<Bit>,
    cnt_mk: DFF<Bit>,
    cnt_len: DFF<Bit>,
    m_data: DFF<Bits<D>>,
    m_keep: DFF<Bits<K>>,
    m_valid: DFF<Bit>,
    m_last: DFF<Bit>,
    m_user: DFF<Bit>,
    m_lenr: DFF<Bits<16>>,
    // Combinational.
    out_free: Signal<Local, Bit>,
    /// A beat to act on once the output has a place (a good stream, no tail pending).
    go: Signal<Local, Bit>,
    t: Signal<Local, Bits<8>>,
    win: Signal<Local, Bits<D2>>,
    keep_t: Signal<Local, Bits<K>>,
    keep_o: Signal<Local, Bits<K>>,
    /// `o` to its low bits (it is at most K); per value of `o`, its match; then `t > K` and
    /// the tkeep of `p_cnt` octets.
    o_lo: Signal<Local, Bits<8>>,
    o_eq: Signal<Local, Bit>,
    gt_k: Signal<Local, Bit>,
    /// The next `o_sel` for either outcome of `t > K`: lane `K − t`, or lane `2K − t`.
    sel_le: Signal<Local, Bits<K>>,
    sel_gt: Signal<Local, Bits<K>>,
    c_k_less: [Constant<Bits<8>>; 64],
    c_2k_less: [Constant<Bits<8>>; 64],
    keep_p: Signal<Local, Bits<K>>,
    c_k: Constant<Bits<8>>,
    c_err_crc: Constant<Bits<2>>,
    c_err_len: Constant<Bits<2>>,
    c_one_k: Constant<Bits<K>>,
    /// `2K − 1`: the bits that hold 0..=K.
    c_omask: Constant<Bits<8>>,
    c_all_k: Constant<Bits<K>>,
    c_dbits: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const D2: usize> Default for Check<D, K, D2> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
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
            m: Default::default(),
            m_tuser: Default::default(),
            m_len: Default::default(),
            error: Default::default(),
            error_offset: Default::default(),
            error_found: Default::default(),
            error_expected: Default::default(),
            fpdus: Default::default(),
            bad_crc: Default::default(),
            bad_marker: Default::default(),
            bad_length: Default::default(),
            idle: Default::default(),
            len_q: Default::default(),
            ob: Default::default(),
            o: Default::default(),
            o_sel: Default::default(),
            pending: Default::default(),
            pend_bad: Default::default(),
            err: Default::default(),
            stopped: Default::default(),
            err_off: Default::default(),
            err_found: Default::default(),
            err_exp: Default::default(),
            n_fpdus: Default::default(),
            n_crc: Default::default(),
            n_mk: Default::default(),
            n_len: Default::default(),
            cnt_fpdu: Default::default(),
            cnt_crc: Default::default(),
            cnt_mk: Default::default(),
            cnt_len: Default::default(),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_valid: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_lenr: Default::default(),
            out_free: Default::default(),
            go: Default::default(),
            t: Default::default(),
            win: Default::default(),
            keep_t: Default::default(),
            keep_o: Default::default(),
            o_lo: Default::default(),
            o_eq: Default::default(),
            gt_k: Default::default(),
            sel_le: Default::default(),
            sel_gt: Default::default(),
            c_k_less: std::array::from_fn(|l| Constant::new((K.saturating_sub(l) as u64).into())),
            c_2k_less: std::array::from_fn(|l| Constant::new(((2 * K).saturating_sub(l) as u64).into())),
            keep_p: Default::default(),
            c_k: Constant::new((K as u64).into()),
            c_err_crc: Constant::new(ERR_CRC.into()),
            c_err_len: Constant::new(ERR_LENGTH.into()),
            c_one_k: Constant::new(1u64.into()),
            c_omask: Constant::new(((2 * K - 1) as u64).into()),
            c_all_k: Constant::new(crate::bits::low_ones(K).into()),
            c_dbits: Constant::new((D as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize, const D2: usize> Logic for Check<D, K, D2> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, len_q, ob, o, o_sel, pending, pend_bad, err, stopped, err_off, err_found, err_exp, n_fpdus, n_crc, n_mk,
            n_len, cnt_fpdu, cnt_crc, cnt_mk, cnt_len, m_data, m_keep, m_valid, m_last, m_user, m_lenr
        );
        self.m.tdata.next = self.m_data.q.val();
        self.m.tkeep.next = self.m_keep.q.val();
        self.m.tvalid.next = self.m_valid.q.val();
        self.m.tlast.next = self.m_last.q.val();
        self.m_tuser.next = self.m_user.q.val();
        self.m_len.next = self.m_lenr.q.val();
        self.error.next = self.err.q.val();
        self.error_offset.next = self.err_off.q.val();
        self.error_found.next = self.err_found.q.val();
        self.error_expected.next = self.err_exp.q.val();
        self.fpdus.next = self.n_fpdus.q.val();
        self.bad_crc.next = self.n_crc.q.val();
        self.bad_marker.next = self.n_mk.q.val();
        self.bad_length.next = self.n_len.q.val();
        self.idle.next = (self.o.q.val() == 0) & !self.pending.q.val();

        // A beat is taken when its output has a place (after an error: always, to be dropped).
        // No reset term: the stages in front reset in the same clock, so a beat taken then is
        // dropped there too, and the block's reset stays off this chain (`AxisStageSkid`).
        self.out_free.next = !self.m_valid.q.val() | self.m.tready.val();
        self.p_ready.next = !self.pending.q.val() & (self.stopped.q.val() | self.out_free.val());

        // The beat's ULPDU octets appended behind the `o` held.
        self.t.next = self.o.q.val() + self.p_cnt.val();
        // Shifted by `o`'s low bits alone (`o ≤ K`): a shift by all eight bits was a shifter
        // whose high stages zero the window, and `o`'s bit 6 through them to `m_data` was the
        // receiver's critical path on one seed at stop 50 (141.6 MHz).
        self.o_lo.next = self.o.q.val() & self.c_omask.val();
        self.win.next = bit_cast::<D2, D>(self.ob.q.val())
            | (bit_cast::<D2, D>(self.p_payload.val()) << (bit_cast::<16, 8>(self.o_lo.val()) << 3));

        // tkeep of a closing beat of o octets.
        self.keep_o.next = 0.into();
        for i in 0..K {
            if self.o.q.val() > i.to_bits::<8>() {
                self.keep_o.next = self.keep_o.val() | (self.c_one_k.val() << i.to_bits::<16>());
            }
        }
        // Whether the window holds more than a beat (`t > K`) and the tkeep of a closing beat of
        // t octets, from `o` and `p_cnt`'s tkeep alone (no carry chain of `o + p_cnt` in front
        // of the selects of `ob` and `m_keep`, and no compare of `p_cnt`: the prep stage
        // registers its tkeep): `p_cnt > K − o`, lane `K − o` of that tkeep, picked by `o_sel`
        // (lane `K − o` one-hot, a register). `o_sel`'s next value is worked out for both
        // outcomes from `t` (equalities with constants), and `t > K` picks it.
        self.keep_p.next = self.p_keep.val();
        self.gt_k.next = (self.p_keep.val() & self.o_sel.q.val()) != 0;
        self.sel_le.next = 0.into();
        self.sel_gt.next = 0.into();
        for l in 0..K {
            if self.t.val() == self.c_k_less[l].val() {
                self.sel_le.next = self.sel_le.val() | (self.c_one_k.val() << l.to_bits::<16>());
            }
            if self.t.val() == self.c_2k_less[l].val() {
                self.sel_gt.next = self.sel_gt.val() | (self.c_one_k.val() << l.to_bits::<16>());
            }
        }
        self.keep_t.next = 0.into();
        for i in 0..(K + 1) {
            self.o_eq.next = self.o_lo.val() == i.to_bits::<8>();
            if self.o_eq.val() {
                self.keep_t.next = self.keep_t.val()
                    | (self.keep_p.val() << i.to_bits::<16>())
                    | !(self.c_all_k.val() << i.to_bits::<16>());
            }
        }

        // Registers: every update waits for the output's place (`out_free`, from the skid
        // behind), the outermost condition, so that it is the registers' enable and the selects
        // inside come from registers alone (stop 52's seed 2: the skid's `sk_valid` → `take` →
        // the selects of `m_data` at 147.8 MHz). Under it the two cases exclude each other: a
        // pending tail holds `p_ready` low.
        self.go.next = self.p_valid.val() & !self.pending.q.val() & !self.stopped.q.val();
        // The counters a clock behind the beats they count.
        self.cnt_fpdu.d.next = false;
        self.cnt_crc.d.next = false;
        self.cnt_mk.d.next = false;
        self.cnt_len.d.next = false;
        if self.cnt_fpdu.q.val() {
            self.n_fpdus.d.next = self.n_fpdus.q.val() + 1;
        }
        if self.cnt_crc.q.val() {
            self.n_crc.d.next = self.n_crc.q.val() + 1;
        }
        if self.cnt_mk.q.val() {
            self.n_mk.d.next = self.n_mk.q.val() + 1;
        }
        if self.cnt_len.q.val() {
            self.n_len.d.next = self.n_len.q.val() + 1;
        }
        if self.out_free.val() {
            self.m_valid.d.next = false;
            if self.pending.q.val() {
                // The second beat of an FPDU's tail.
                self.m_data.d.next = self.ob.q.val();
                self.m_keep.d.next = self.keep_o.val();
                self.m_last.d.next = true;
                self.m_user.d.next = self.pend_bad.q.val();
                self.m_lenr.d.next = self.len_q.q.val();
                self.m_valid.d.next = true;
                self.o.d.next = 0.into();
                self.o_sel.d.next = 0.into();
                self.ob.d.next = 0.into();
                self.pending.d.next = false;
            }
            if self.go.val() {
                if self.p_kind.val() != 0 {
                    // Length or Marker: the stream ends here; an open frame is closed as bad.
                    self.err.d.next = self.p_kind.val();
                    self.stopped.d.next = true;
                    self.err_off.d.next = self.p_err_off.val();
                    self.err_found.d.next = self.p_err_found.val();
                    self.err_exp.d.next = self.p_err_exp.val();
                    if self.p_kind.val() == self.c_err_len.val() {
                        self.cnt_len.d.next = true;
                    } else {
                        self.cnt_mk.d.next = true;
                    }
                    if self.o.q.val() != 0 {
                        self.m_data.d.next = self.ob.q.val();
                        self.m_keep.d.next = self.keep_o.val();
                        self.m_last.d.next = true;
                        self.m_user.d.next = true;
                        self.m_lenr.d.next = self.len_q.q.val();
                        self.m_valid.d.next = true;
                    }
                    self.o.d.next = 0.into();
                    self.o_sel.d.next = 0.into();
                    self.ob.d.next = 0.into();
                } else {
                    self.len_q.d.next = self.p_len.val();
                    self.m_lenr.d.next = self.p_len.val();
                    self.m_user.d.next = false;
                    self.m_last.d.next = false;
                    if self.gt_k.val() {
                        // More than a beat: the full one goes out, the rest stays.
                        self.m_data.d.next = bit_cast::<D, D2>(self.win.val());
                        self.m_keep.d.next = self.c_all_k.val();
                        self.m_valid.d.next = true;
                        self.ob.d.next = bit_cast::<D, D2>(self.win.val() >> self.c_dbits.val());
                        self.o.d.next = self.t.val() - self.c_k.val();
                        self.o_sel.d.next = self.sel_gt.val();
                    } else {
                        self.ob.d.next = bit_cast::<D, D2>(self.win.val());
                        self.o.d.next = self.t.val();
                        self.o_sel.d.next = self.sel_le.val();
                    }
                    if self.p_last.val() {
                        if self.p_crc_bad.val() {
                            self.err.d.next = self.c_err_crc.val();
                            self.stopped.d.next = true;
                            self.err_off.d.next = self.p_err_off.val();
                            self.err_found.d.next = self.p_err_found.val();
                            self.err_exp.d.next = self.p_err_exp.val();
                            self.cnt_crc.d.next = true;
                        } else {
                            self.cnt_fpdu.d.next = true;
                        }
                        if self.gt_k.val() {
                            self.pending.d.next = true;
                            self.pend_bad.d.next = self.p_crc_bad.val();
                        } else {
                            // The whole tail fits: this is the frame's last beat.
                            self.m_data.d.next = bit_cast::<D, D2>(self.win.val());
                            self.m_keep.d.next = self.keep_t.val();
                            self.m_last.d.next = true;
                            self.m_user.d.next = self.p_crc_bad.val();
                            self.m_valid.d.next = true;
                            self.o.d.next = 0.into();
                            self.o_sel.d.next = 0.into();
                            self.ob.d.next = 0.into();
                        }
                    }
                }
            }
        }
        if self.reset.val() {
            self.o.d.next = 0.into();
            self.o_sel.d.next = 0.into();
            self.ob.d.next = 0.into();
            self.pending.d.next = false;
            self.err.d.next = 0.into();
            self.stopped.d.next = false;
            self.err_off.d.next = 0.into();
            self.err_found.d.next = 0.into();
            self.err_exp.d.next = 0.into();
            self.n_fpdus.d.next = 0.into();
            self.n_crc.d.next = 0.into();
            self.n_mk.d.next = 0.into();
            self.n_len.d.next = 0.into();
            self.cnt_fpdu.d.next = false;
            self.cnt_crc.d.next = false;
            self.cnt_mk.d.next = false;
            self.cnt_len.d.next = false;
            self.m_valid.d.next = false;
            self.m_last.d.next = false;
            self.m_user.d.next = false;
        }
    }
}
