//! The CRC stage of the MPA receiver, between the aligner and the check stage: the CRC-32C of
//! each FPDU (RFC 5044 §4.4) and its comparison with the FPDU's CRC field, in a clock stage of
//! its own as in the framer, so the 64-octet step network does not sit in front of the check
//! stage's logic.
//!
//! Each beat from stage A goes through the CRC step leaf with a prefix `keep`: all its word
//! lanes, or on the FPDU's last beat all but the last (the CRC lane), so the leading Marker,
//! any Marker inside the FPDU, the header and the PAD are covered. On the last beat the
//! finished CRC and that lane (octet 0 in bits 7:0, as the framer inserts it) are registered
//! with the beat; the register restarts for the next FPDU. The comparison is the next stage's
//! ([`super::prep::Prep`]): behind the step network it made this stage's path 11 LUT4 levels.

use super::{WordBeatSink, WordBeatSource};
use crate::crc::CrcStep;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct CrcCheck<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Stage A's word beats (see [`super::aligner::Aligner`]).
    pub b: WordBeatSink<D>,
    /// The same beats, registered.
    pub c: WordBeatSource<D>,
    /// On the last beat: the CRC field (as a little-endian word) and the CRC computed.
    pub c_crc_found: Signal<Out, Bits<32>>,
    pub c_crc_calc: Signal<Out, Bits<32>>,
    step: CrcStep<D, K, 32>,
    crc_r: DFF<Bits<32>>,
    q_words: DFF<Bits<D>>,
    q_n: DFF<Bits<8>>,
    q_first: DFF<Bit>,
    q_last: DFF<Bit>,
    q_mk: DFF<Bit>,
    q_mkl: DFF<Bits<8>>,
    q_base: DFF<Bits<32>>,
    q_found: DFF<Bits<32>>,
    q_calc: DFF<Bits<32>>,
    q_valid: DFF<Bit>,
    covered: Signal<Local, Bits<8>>,
    cov_keep: Signal<Local, Bits<K>>,
    crc_word: Signal<Local, Bits<32>>,
    c_nib_k: Constant<Bits<K>>,
    c_init: Constant<Bits<32>>,
}

impl<const D: usize, const K: usize> Default for CrcCheck<D, K> {
    fn default() -> Self {
        let step = CrcStep::<D, K, 32>::new(CrcKind::Crc32c);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            b: Default::default(),
            c: Default::default(),
            c_crc_found: Default::default(),
            c_crc_calc: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            crc_r: Default::default(),
            q_words: Default::default(),
            q_n: Default::default(),
            q_first: Default::default(),
            q_last: Default::default(),
            q_mk: Default::default(),
            q_mkl: Default::default(),
            q_base: Default::default(),
            q_found: Default::default(),
            q_calc: Default::default(),
            q_valid: Default::default(),
            covered: Default::default(),
            cov_keep: Default::default(),
            crc_word: Default::default(),
            c_nib_k: Constant::new(0xFu64.into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for CrcCheck<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc_r, q_words, q_n, q_first, q_last, q_mk, q_mkl, q_base, q_found, q_calc, q_valid);
        self.c.words.next = self.q_words.q.val();
        self.c.n.next = self.q_n.q.val();
        self.c.first.next = self.q_first.q.val();
        self.c.last.next = self.q_last.q.val();
        self.c.mk.next = self.q_mk.q.val();
        self.c.mkl.next = self.q_mkl.q.val();
        self.c.base.next = self.q_base.q.val();
        self.c_crc_found.next = self.q_found.q.val();
        self.c_crc_calc.next = self.q_calc.q.val();
        self.c.valid.next = self.q_valid.q.val();
        // Advance whenever the output register is empty or being taken.
        self.b.ready.next = !self.q_valid.q.val() | self.c.ready.val();

        // The lanes the CRC covers: all, or all but the CRC lane.
        self.covered.next = self.b.n.val();
        if self.b.last.val() {
            self.covered.next = self.b.n.val() - 1;
        }
        self.cov_keep.next = 0.into();
        for l in 0..(K / 4) {
            if self.covered.val() > l.to_bits::<8>() {
                self.cov_keep.next = self.cov_keep.val() | (self.c_nib_k.val() << (l * 4).to_bits::<16>());
            }
        }
        self.step.state.next = self.crc_r.q.val();
        self.step.data.next = self.b.words.val();
        self.step.keep.next = self.cov_keep.val();
        // The CRC lane is the last (read from `b_n`, not `covered`: through `covered`, Verilator
        // could no longer split this block and saw the step's keep → nxt → keep as a loop).
        self.crc_word.next = bit_cast::<32, D>(self.b.words.val() >> (bit_cast::<16, 8>(self.b.n.val() - 1) << 5));

        if self.b.ready.val() {
            self.q_valid.d.next = self.b.valid.val();
            if self.b.valid.val() {
                self.q_words.d.next = self.b.words.val();
                self.q_n.d.next = self.b.n.val();
                self.q_first.d.next = self.b.first.val();
                self.q_last.d.next = self.b.last.val();
                self.q_mk.d.next = self.b.mk.val();
                self.q_mkl.d.next = self.b.mkl.val();
                self.q_base.d.next = self.b.base.val();
                self.q_found.d.next = self.crc_word.val();
                self.q_calc.d.next = self.step.fin.val();
                self.crc_r.d.next = self.step.nxt.val();
                if self.b.last.val() {
                    self.crc_r.d.next = self.c_init.val();
                }
            }
        }
        if self.reset.val() {
            self.crc_r.d.next = self.c_init.val();
            self.q_valid.d.next = false;
        }
    }
}
