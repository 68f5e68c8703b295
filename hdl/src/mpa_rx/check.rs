//! Stage C of the MPA receiver: each FPDU's checks (ULPDU_Length against MULPDU, every Marker's
//! FPDUPTR, the CRC verdict of [`super::crc_check::CrcCheck`]) and its ULPDU, packed into
//! output beats.
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
//! due (so PAD and CRC fall away). They are appended behind the `o` octets held in `ob`
//! (`win = ob | payload << 8o`); a full beat goes out only while more than a beat is held, so an
//! open frame always keeps at least one octet back for the beat that carries `tlast` and the
//! verdict (`m_tuser` high: the ULPDU is bad and must be dropped). An FPDU whose tail makes
//! more than a beat needs a second clock for its last beat.
//!
//! The first error stops the stream (RFC 5044 §8): an open frame is closed with `m_tuser` high,
//! its kind and stream offset are held in `status`, its counter counts, and every later beat is
//! taken and dropped until reset.

use super::WordBeatSink;
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
    pub cfg_mulpdu: Signal<In, Bits<16>>,
    /// Stage A's word beats (see [`super::aligner::Aligner`]), through the CRC stage.
    pub b: WordBeatSink<D>,
    /// The FPDU's CRC differs (last beat; from [`super::crc_check::CrcCheck`]).
    pub b_crc_bad: Signal<In, Bit>,
    pub b_crc_found: Signal<In, Bits<32>>,
    pub b_crc_calc: Signal<In, Bits<32>>,
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
    hdr_off: DFF<Bits<16>>,
    fstart: DFF<Bits<32>>,
    len_q: DFF<Bits<16>>,
    u: DFF<Bits<16>>,
    ob: DFF<Bits<D>>,
    o: DFF<Bits<8>>,
    pending: DFF<Bit>,
    pend_bad: DFF<Bit>,
    err: DFF<Bits<2>>,
    err_off: DFF<Bits<32>>,
    err_found: DFF<Bits<32>>,
    err_exp: DFF<Bits<32>>,
    n_fpdus: DFF<Bits<32>>,
    n_crc: DFF<Bits<32>>,
    n_mk: DFF<Bits<32>>,
    n_len: DFF<Bits<32>>,
    m_data: DFF<Bits<D>>,
    m_keep: DFF<Bits<K>>,
    m_valid: DFF<Bit>,
    m_last: DFF<Bit>,
    m_user: DFF<Bit>,
    m_lenr: DFF<Bits<16>>,
    // Combinational.
    out_free: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    word_mask: Signal<Local, Bits<D>>,
    nomk: Signal<Local, Bits<D>>,
    n_pay: Signal<Local, Bits<8>>,
    hw: Signal<Local, Bits<8>>,
    len_in: Signal<Local, Bits<16>>,
    len_eff: Signal<Local, Bits<16>>,
    u_eff: Signal<Local, Bits<16>>,
    payload: Signal<Local, Bits<D>>,
    m_raw: Signal<Local, Bits<16>>,
    m_cnt: Signal<Local, Bits<8>>,
    t: Signal<Local, Bits<8>>,
    win: Signal<Local, Bits<D2>>,
    len_bad: Signal<Local, Bit>,
    hdr_at: Signal<Local, Bits<32>>,
    hdr_off_eff: Signal<Local, Bits<16>>,
    mk_off: Signal<Local, Bits<32>>,
    mk_ptr: Signal<Local, Bits<16>>,
    found: Signal<Local, Bits<16>>,
    expected: Signal<Local, Bits<16>>,
    mk_bad: Signal<Local, Bit>,
    fstart_eff: Signal<Local, Bits<32>>,
    kind: Signal<Local, Bits<2>>,
    keep_t: Signal<Local, Bits<K>>,
    keep_o: Signal<Local, Bits<K>>,
    c_k: Constant<Bits<8>>,
    c_word_d: Constant<Bits<D>>,
    c_byte_d: Constant<Bits<D>>,
    c_ptr_mask: Constant<Bits<16>>,
    c_err_crc: Constant<Bits<2>>,
    c_err_mk: Constant<Bits<2>>,
    c_err_len: Constant<Bits<2>>,
    c_one_k: Constant<Bits<K>>,
    c_all_k: Constant<Bits<K>>,
    c_dbits: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const D2: usize> Default for Check<D, K, D2> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_mulpdu: Default::default(),
            b: Default::default(),
            b_crc_bad: Default::default(),
            b_crc_found: Default::default(),
            b_crc_calc: Default::default(),
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
            hdr_off: Default::default(),
            fstart: Default::default(),
            len_q: Default::default(),
            u: Default::default(),
            ob: Default::default(),
            o: Default::default(),
            pending: Default::default(),
            pend_bad: Default::default(),
            err: Default::default(),
            err_off: Default::default(),
            err_found: Default::default(),
            err_exp: Default::default(),
            n_fpdus: Default::default(),
            n_crc: Default::default(),
            n_mk: Default::default(),
            n_len: Default::default(),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_valid: Default::default(),
            m_last: Default::default(),
            m_user: Default::default(),
            m_lenr: Default::default(),
            out_free: Default::default(),
            take: Default::default(),
            word_mask: Default::default(),
            nomk: Default::default(),
            n_pay: Default::default(),
            hw: Default::default(),
            len_in: Default::default(),
            len_eff: Default::default(),
            u_eff: Default::default(),
            payload: Default::default(),
            m_raw: Default::default(),
            m_cnt: Default::default(),
            t: Default::default(),
            win: Default::default(),
            len_bad: Default::default(),
            hdr_at: Default::default(),
            hdr_off_eff: Default::default(),
            mk_off: Default::default(),
            mk_ptr: Default::default(),
            found: Default::default(),
            expected: Default::default(),
            mk_bad: Default::default(),
            fstart_eff: Default::default(),
            kind: Default::default(),
            keep_t: Default::default(),
            keep_o: Default::default(),
            c_k: Constant::new((K as u64).into()),
            c_word_d: Constant::new(0xFFFF_FFFFu64.into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_ptr_mask: Constant::new(0xFFFCu64.into()),
            c_err_crc: Constant::new(ERR_CRC.into()),
            c_err_mk: Constant::new(ERR_MARKER.into()),
            c_err_len: Constant::new(ERR_LENGTH.into()),
            c_one_k: Constant::new(1u64.into()),
            c_all_k: Constant::new(crate::bits::low_ones(K).into()),
            c_dbits: Constant::new((D as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize, const D2: usize> Logic for Check<D, K, D2> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, hdr_off, fstart, len_q, u, ob, o, pending, pend_bad, err, err_off, err_found, err_exp,
            n_fpdus, n_crc, n_mk, n_len, m_data, m_keep, m_valid, m_last, m_user, m_lenr
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
        self.out_free.next = !self.m_valid.q.val() | self.m.tready.val();
        self.b.ready.next = !self.reset.val()
            & !self.pending.q.val()
            & ((self.err.q.val() != 0) | self.out_free.val());
        self.take.next = self.b.valid.val() & self.b.ready.val();

        // The words without the Marker: lanes at and above it move down one.
        self.word_mask.next = 0.into();
        for l in 0..(K / 4) {
            if l.to_bits::<8>() < self.b.mkl.val() {
                self.word_mask.next =
                    self.word_mask.val() | (self.c_word_d.val() << (l * 32).to_bits::<16>());
            }
        }
        self.nomk.next = self.b.words.val();
        self.n_pay.next = self.b.n.val();
        if self.b.mk.val() {
            self.nomk.next = (self.b.words.val() & self.word_mask.val())
                | ((self.b.words.val() >> 32) & !self.word_mask.val());
            self.n_pay.next = self.b.n.val() - 1;
        }

        // The header (first beat): lane 0 of the Marker-free words.
        self.hw.next = 0.into();
        if self.b.mk.val() & (self.b.mkl.val() == 0) {
            self.hw.next = 1.into();
        }
        self.len_in.next = (bit_cast::<16, 8>(self.nomk.val().get_bits::<8>(0)) << 8)
            | bit_cast::<16, 8>(self.nomk.val().get_bits::<8>(8));
        self.len_eff.next = self.len_q.q.val();
        self.u_eff.next = self.u.q.val();
        self.payload.next = self.nomk.val();
        self.m_raw.next = bit_cast::<16, 8>(self.n_pay.val()) << 2;
        self.hdr_at.next = self.b.base.val() + (bit_cast::<32, 8>(self.hw.val()) << 2);
        self.hdr_off_eff.next = self.hdr_off.q.val();
        self.fstart_eff.next = self.fstart.q.val();
        if self.b.first.val() {
            self.len_eff.next = self.len_in.val();
            self.u_eff.next = self.len_in.val();
            self.payload.next = self.nomk.val() >> 16;
            self.m_raw.next = (bit_cast::<16, 8>(self.n_pay.val()) << 2) - 2;
            self.hdr_off_eff.next = bit_cast::<16, 32>(self.hdr_at.val());
            self.fstart_eff.next = self.b.base.val();
        }
        // The ULPDU octets of this beat (PAD and CRC clipped away).
        self.m_cnt.next = bit_cast::<8, 16>(self.m_raw.val());
        if self.u_eff.val() < self.m_raw.val() {
            self.m_cnt.next = bit_cast::<8, 16>(self.u_eff.val());
        }
        for i in 0..K {
            if self.m_cnt.val() <= i.to_bits::<8>() {
                self.payload.next =
                    self.payload.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.t.next = self.o.q.val() + self.m_cnt.val();
        self.win.next = bit_cast::<D2, D>(self.ob.q.val())
            | (bit_cast::<D2, D>(self.payload.val()) << (bit_cast::<16, 8>(self.o.q.val()) << 3));

        // The length (§4.1 ULPDU_Length, ≤ MULPDU and not 0).
        self.len_bad.next = self.b.first.val()
            & ((self.len_in.val() == 0) | (self.len_in.val() > self.cfg_mulpdu.val()));

        // The Marker: FPDUPTR (octets 2-3, big-endian) back to the header, or 0 before it.
        self.mk_off.next = self.b.base.val() + (bit_cast::<32, 8>(self.b.mkl.val()) << 2);
        self.mk_ptr.next =
            bit_cast::<16, D>(self.b.words.val() >> ((bit_cast::<16, 8>(self.b.mkl.val()) << 5) + 16));
        self.found.next = (self.mk_ptr.val() << 8) | (self.mk_ptr.val() >> 8);
        self.expected.next = bit_cast::<16, 32>(self.mk_off.val()) - self.hdr_off_eff.val();
        if self.b.first.val() & (self.b.mkl.val() == 0) {
            self.expected.next = 0.into();
        }
        self.mk_bad.next =
            self.b.mk.val() & ((self.found.val() & self.c_ptr_mask.val()) != self.expected.val());

        // The first rule broken in stream order.
        self.kind.next = 0.into();
        if self.len_bad.val() & !(self.mk_bad.val() & (self.b.mkl.val() == 0)) {
            self.kind.next = self.c_err_len.val();
        } else if self.mk_bad.val() {
            self.kind.next = self.c_err_mk.val();
        }

        // tkeep of a closing beat of t (or o) octets.
        self.keep_t.next = 0.into();
        self.keep_o.next = 0.into();
        for i in 0..K {
            if self.t.val() > i.to_bits::<8>() {
                self.keep_t.next = self.keep_t.val() | (self.c_one_k.val() << i.to_bits::<16>());
            }
            if self.o.q.val() > i.to_bits::<8>() {
                self.keep_o.next = self.keep_o.val() | (self.c_one_k.val() << i.to_bits::<16>());
            }
        }

        // Registers.
        if self.out_free.val() {
            self.m_valid.d.next = false;
        }
        if self.pending.q.val() & self.out_free.val() {
            // The second beat of an FPDU's tail.
            self.m_data.d.next = self.ob.q.val();
            self.m_keep.d.next = self.keep_o.val();
            self.m_last.d.next = true;
            self.m_user.d.next = self.pend_bad.q.val();
            self.m_lenr.d.next = self.len_q.q.val();
            self.m_valid.d.next = true;
            self.o.d.next = 0.into();
            self.ob.d.next = 0.into();
            self.pending.d.next = false;
        }
        if self.take.val() & (self.err.q.val() == 0) {
            if self.kind.val() != 0 {
                // Length or Marker: the stream ends here; an open frame is closed as bad.
                self.err.d.next = self.kind.val();
                if self.kind.val() == self.c_err_len.val() {
                    self.err_off.d.next = self.hdr_at.val();
                    self.err_found.d.next = bit_cast::<32, 16>(self.len_in.val());
                    self.err_exp.d.next = bit_cast::<32, 16>(self.cfg_mulpdu.val());
                    self.n_len.d.next = self.n_len.q.val() + 1;
                } else {
                    self.err_off.d.next = self.mk_off.val();
                    self.err_found.d.next = bit_cast::<32, 16>(self.found.val());
                    self.err_exp.d.next = bit_cast::<32, 16>(self.expected.val());
                    self.n_mk.d.next = self.n_mk.q.val() + 1;
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
                self.ob.d.next = 0.into();
            } else {
                if self.b.first.val() {
                    self.len_q.d.next = self.len_in.val();
                    self.fstart.d.next = self.b.base.val();
                    self.hdr_off.d.next = self.hdr_off_eff.val();
                }
                self.u.d.next = self.u_eff.val() - bit_cast::<16, 8>(self.m_cnt.val());
                self.m_lenr.d.next = self.len_eff.val();
                self.m_user.d.next = false;
                self.m_last.d.next = false;
                if self.t.val() > self.c_k.val() {
                    // More than a beat: the full one goes out, the rest stays.
                    self.m_data.d.next = bit_cast::<D, D2>(self.win.val());
                    self.m_keep.d.next = self.c_all_k.val();
                    self.m_valid.d.next = true;
                    self.ob.d.next = bit_cast::<D, D2>(self.win.val() >> self.c_dbits.val());
                    self.o.d.next = self.t.val() - self.c_k.val();
                } else {
                    self.ob.d.next = bit_cast::<D, D2>(self.win.val());
                    self.o.d.next = self.t.val();
                }
                if self.b.last.val() {
                    if self.b_crc_bad.val() {
                        self.err.d.next = self.c_err_crc.val();
                        self.err_off.d.next = self.fstart_eff.val();
                        self.err_found.d.next = self.b_crc_found.val();
                        self.err_exp.d.next = self.b_crc_calc.val();
                        self.n_crc.d.next = self.n_crc.q.val() + 1;
                    } else {
                        self.n_fpdus.d.next = self.n_fpdus.q.val() + 1;
                    }
                    if self.t.val() > self.c_k.val() {
                        self.pending.d.next = true;
                        self.pend_bad.d.next = self.b_crc_bad.val();
                    } else {
                        // The whole tail fits: this is the frame's last beat.
                        self.m_data.d.next = bit_cast::<D, D2>(self.win.val());
                        self.m_keep.d.next = self.keep_t.val();
                        self.m_last.d.next = true;
                        self.m_user.d.next = self.b_crc_bad.val();
                        self.m_valid.d.next = true;
                        self.o.d.next = 0.into();
                        self.ob.d.next = 0.into();
                    }
                }
            }
        }
        if self.reset.val() {
            self.o.d.next = 0.into();
            self.ob.d.next = 0.into();
            self.pending.d.next = false;
            self.err.d.next = 0.into();
            self.err_off.d.next = 0.into();
            self.err_found.d.next = 0.into();
            self.err_exp.d.next = 0.into();
            self.n_fpdus.d.next = 0.into();
            self.n_crc.d.next = 0.into();
            self.n_mk.d.next = 0.into();
            self.n_len.d.next = 0.into();
            self.m_valid.d.next = false;
            self.m_last.d.next = false;
            self.m_user.d.next = false;
        }
    }
}
