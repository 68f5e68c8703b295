//! Stage A of the MPA receiver: from the TCP payload, cut into segments of any size, to word
//! beats that each hold the words of one FPDU, that FPDU's first word in lane 0.
//!
//! # Why realign
//! TCP segment boundaries mean nothing to MPA, so an FPDU may start in any lane of any input
//! beat. Every FPDU field, Marker and CRC is a whole 4-octet word on a 4-aligned stream offset
//! (RFC 5044 §4.2–4.3), so once the octets are packed contiguously and each FPDU starts a new
//! beat, stage B sees `N = W/4` word lanes in which the header is lane 0 or 1 (after a leading
//! Marker), the CRC is the last lane of the FPDU's last beat, and the CRC step's prefix `keep`
//! covers exactly the FPDU's octets.
//!
//! # Datapath
//! `acc` holds `c` octets of the stream (contiguous, the next one in octet 0). Each clock the
//! stage emits `e` of its whole words — `min(words held, N, words left in the FPDU)` — and
//! shifts them out (`acc >> 32e`), and appends the input beat's `k` octets behind what stays
//! (`in << 8(c - 4e)`), if that leaves no more than `2W` octets. With the input always valid a
//! beat goes out every clock (`c` stays at `W` and more); an FPDU's end leaves a partial beat,
//! and the octets it did not take cost a clock of input once they add up to a beat.
//!
//! The words left in the FPDU (`r`, Markers not counted) come from the ULPDU_Length field when
//! an FPDU starts: `⌈(2 + len)/4⌉ + 1` (header, ULPDU, PAD, CRC); a Marker in the window (`mpos`,
//! the lane of the next Marker, mod 128 words) belongs to the FPDU when one of its words
//! follows it. The header word goes out in a beat of its own (behind a leading Marker): the
//! length then only feeds registers, which took the header → word count → shifter chain off
//! the critical path for one beat per FPDU (iCE40 W = 8: 24.3 → 34.0 MHz; with `r` and the
//! Marker flag read from registers a clock ahead, 35.8 MHz: docs/PERFORMANCE.md).
//!
//! Words go out whole, but the software deframer judges each field as it completes, and the
//! 2-octet ULPDU_Length is half a word. So when the first field is bad — a length of 0 or over
//! MULPDU, or a leading Marker whose FPDUPTR is not 0 — the FPDU's first beat goes out as soon
//! as that field is in, the rest of its word with it (the check stage reports the error and
//! nothing after it is passed on). The rule is judged twice, here to send the beat and in the
//! check stage to report it: one compare each, kept so the check stage alone says why.

use super::WordBeatSource;
use offload_driver::mpa::HEADER_LEN;
use crate::axis::AxisSink;
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat, `D2 = 2·D` (the octet accumulator).
#[derive(LogicBlock)]
pub struct Aligner<const D: usize, const K: usize, const D2: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Read a clock ahead of its use (Markers are negotiated once per connection).
    pub cfg_markers: Signal<In, Bit>,
    /// Stream offset of the first input octet (a multiple of 4), loaded at reset.
    pub cfg_offset: Signal<In, Bits<32>>,
    /// MULPDU: a header that breaks it goes out as soon as its two octets are here.
    pub cfg_mulpdu: Signal<In, Bits<16>>,
    /// The TCP payload; `s_count` is the beat's octets (`K` but on a `tlast` beat), computed
    /// before the skid buffer; the octets past it are zeroed by `tkeep`.
    pub s: AxisSink<D, K>,
    pub s_count: Signal<In, Bits<8>>,
    /// Word beats for the CRC and check stages, registered.
    pub b: WordBeatSource<D>,
    /// Between FPDUs with nothing held: the stream may end here.
    pub idle: Signal<Out, Bit>,
    // Registers.
    acc: DFF<Bits<D2>>,
    c: DFF<Bits<8>>,
    /// The stream offset of `acc`'s octet 0 a clock late: `woff + 4·e_q` is today's (the add
    /// then starts from registers instead of behind this clock's word count).
    woff: DFF<Bits<32>>,
    e_q: DFF<Bits<8>>,
    mpos: DFF<Bits<7>>,
    r: DFF<Bits<16>>,
    /// `min(r, 64)`, and whether a Marker falls in this clock's window: registered copies,
    /// so the word count starts from 8-bit registers.
    r_sat: DFF<Bits<8>>,
    mk_q: DFF<Bit>,
    o_words: DFF<Bits<D>>,
    o_n: DFF<Bits<8>>,
    o_first: DFF<Bit>,
    o_last: DFF<Bit>,
    o_mk: DFF<Bit>,
    o_mkl: DFF<Bits<8>>,
    o_base: DFF<Bits<32>>,
    o_valid: DFF<Bit>,
    // Combinational.
    adv: Signal<Local, Bit>,
    woff_now: Signal<Local, Bits<32>>,
    avail: Signal<Local, Bits<8>>,
    mposv: Signal<Local, Bits<8>>,
    mk: Signal<Local, Bit>,
    len_bad: Signal<Local, Bit>,
    hdr_whole: Signal<Local, Bit>,
    hdr_half: Signal<Local, Bit>,
    lead_bad: Signal<Local, Bit>,
    c_ptr_lo: Constant<Bits<8>>,
    at_start: Signal<Local, Bit>,
    hw: Signal<Local, Bits<8>>,
    hdr_word: Signal<Local, Bits<16>>,
    len: Signal<Local, Bits<32>>,
    r_eff: Signal<Local, Bits<16>>,
    fpdu_words: Signal<Local, Bits<8>>,
    r_next: Signal<Local, Bits<16>>,
    mpos_next: Signal<Local, Bits<7>>,
    c_64: Constant<Bits<16>>,
    c_hdr_round: Constant<Bits<32>>,
    e: Signal<Local, Bits<8>>,
    mk_in: Signal<Local, Bit>,
    taken: Signal<Local, Bits<16>>,
    stay: Signal<Local, Bits<8>>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    in_data: Signal<Local, Bits<D>>,
    c_n: Constant<Bits<8>>,
    c_n7: Constant<Bits<7>>,
    c_k: Constant<Bits<8>>,
    c_byte_d: Constant<Bits<D>>,
    c_zero7: Constant<Bits<7>>,
}

impl<const D: usize, const K: usize, const D2: usize> Default for Aligner<D, K, D2> {
    fn default() -> Self {
        assert!(
            (8..=64).contains(&K) && K.is_power_of_two() && D == 8 * K && D2 == 2 * D,
            "Aligner<8K, K, 16K> with K a power of 2 in 8..=64"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_markers: Default::default(),
            cfg_offset: Default::default(),
            cfg_mulpdu: Default::default(),
            len_bad: Default::default(),
            hdr_whole: Default::default(),
            hdr_half: Default::default(),
            lead_bad: Default::default(),
            c_ptr_lo: Constant::new(0xFCu64.into()),
            s: Default::default(),
            s_count: Default::default(),
            b: Default::default(),
            idle: Default::default(),
            acc: Default::default(),
            c: Default::default(),
            woff: Default::default(),
            e_q: Default::default(),
            woff_now: Default::default(),
            mpos: Default::default(),
            r: Default::default(),
            mk_q: Default::default(),
            r_sat: Default::default(),
            r_next: Default::default(),
            mpos_next: Default::default(),
            c_64: Constant::new(64u64.into()),
            // ⌈(HEADER_LEN + len) / 4⌉ = (len + HEADER_LEN + 3) >> 2 words of header, ULPDU and PAD.
            c_hdr_round: Constant::new(((HEADER_LEN + 3) as u64).into()),
            o_words: Default::default(),
            o_n: Default::default(),
            o_first: Default::default(),
            o_last: Default::default(),
            o_mk: Default::default(),
            o_mkl: Default::default(),
            o_base: Default::default(),
            o_valid: Default::default(),
            adv: Default::default(),
            avail: Default::default(),
            mposv: Default::default(),
            mk: Default::default(),
            at_start: Default::default(),
            hw: Default::default(),
            hdr_word: Default::default(),
            len: Default::default(),
            r_eff: Default::default(),
            fpdu_words: Default::default(),
            e: Default::default(),
            mk_in: Default::default(),
            taken: Default::default(),
            stay: Default::default(),
            room: Default::default(),
            accept: Default::default(),
            in_data: Default::default(),
            c_n: Constant::new(((K / 4) as u64).into()),
            c_n7: Constant::new(((K / 4) as u64).into()),
            c_k: Constant::new((K as u64).into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_zero7: Constant::new(0u64.into()),
        }
    }
}

impl<const D: usize, const K: usize, const D2: usize> Logic for Aligner<D, K, D2> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, acc, c, woff, e_q, mpos, r, r_sat, mk_q, o_words, o_n, o_first, o_last, o_mk, o_mkl, o_base,
            o_valid
        );
        self.b.words.next = self.o_words.q.val();
        self.b.n.next = self.o_n.q.val();
        self.b.first.next = self.o_first.q.val();
        self.b.last.next = self.o_last.q.val();
        self.b.mk.next = self.o_mk.q.val();
        self.b.mkl.next = self.o_mkl.q.val();
        self.b.base.next = self.o_base.q.val();
        self.b.valid.next = self.o_valid.q.val();
        self.idle.next = (self.c.q.val() == 0) & (self.r.q.val() == 0) & !self.o_valid.q.val();

        // The input beat with the octets past tkeep zeroed (acc holds zeros above c).
        self.in_data.next = self.s.tdata.val();
        for i in 0..K {
            if self.s.tlast.val() & !self.s.tkeep.val().get_bit(i) {
                self.in_data.next =
                    self.in_data.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }

        // How many words go out: all held whole words, at most N, at most the FPDU's rest.
        self.adv.next = !self.o_valid.q.val() | self.b.ready.val();
        self.avail.next = self.c.q.val() >> 2;
        self.mposv.next = bit_cast::<8, 7>(self.mpos.q.val());
        self.mk.next = self.mk_q.q.val();
        self.at_start.next = self.r.q.val() == 0;
        self.hw.next = 0.into();
        if self.mk.val() & (self.mpos.q.val() == self.c_zero7.val()) {
            self.hw.next = 1.into();
        }
        self.hdr_word.next = self.acc.q.val().get_bits::<16>(0);
        if self.hw.val() == 1 {
            self.hdr_word.next = self.acc.q.val().get_bits::<16>(32);
        }
        // ULPDU_Length is big-endian in octets 0-1 of its word.
        self.len.next = (bit_cast::<32, 8>(self.hdr_word.val().get_bits::<8>(0)) << 8)
            | bit_cast::<32, 8>(self.hdr_word.val().get_bits::<8>(8));
        // The FPDU's words left (Markers not counted): from the header at its start — which then
        // goes out alone, behind a leading Marker, so the length only reaches registers and never
        // this clock's word count — else from the register.
        self.r_eff.next = self.r.q.val();
        if self.at_start.val() {
            self.r_eff.next = bit_cast::<16, 32>(((self.len.val() + self.c_hdr_round.val()) >> 2) + 1);
        }
        self.fpdu_words.next = self.r_sat.q.val();
        if self.mk.val() & (self.mposv.val() < self.r_sat.q.val()) {
            self.fpdu_words.next = self.r_sat.q.val() + 1;
        }
        self.e.next = self.c_n.val();
        if self.avail.val() < self.e.val() {
            self.e.next = self.avail.val();
        }
        if self.fpdu_words.val() < self.e.val() {
            self.e.next = self.fpdu_words.val();
        }
        if self.at_start.val() {
            self.e.next = self.hw.val() + 1;
        }
        // An FPDU starts only once its header word is here; nothing moves while stage B is full.
        // An FPDU starts once its header word is here — or, when the length is bad, once the
        // header's two octets are, and when a leading Marker is bad (its FPDUPTR must be 0),
        // once the Marker is: the software deframer judges each field as it completes, and
        // nothing after a bad one is passed on.
        self.len_bad.next = (self.len.val() == 0) | (self.len.val() > bit_cast::<32, 16>(self.cfg_mulpdu.val()));
        self.hdr_whole.next = self.avail.val() > self.hw.val();
        self.lead_bad.next = (self.hw.val() == 1)
            & (self.avail.val() != 0)
            & ((self.acc.q.val().get_bits::<8>(16) != 0)
                | ((self.acc.q.val().get_bits::<8>(24) & self.c_ptr_lo.val()) != 0));
        self.hdr_half.next = (self.len_bad.val() & (self.c.q.val() >= ((self.hw.val() << 2) + 2)))
            | self.lead_bad.val();
        if self.reset.val() | !self.adv.val() | (self.at_start.val() & !self.hdr_whole.val() & !self.hdr_half.val()) {
            self.e.next = 0.into();
        }
        self.mk_in.next = self.mk.val() & (self.mposv.val() < self.e.val());
        self.taken.next = bit_cast::<16, 8>(self.e.val());
        if self.mk_in.val() {
            self.taken.next = bit_cast::<16, 8>(self.e.val()) - 1;
        }

        // Room for the input beat behind what stays.
        self.stay.next = self.c.q.val() - (self.e.val() << 2);
        if self.at_start.val() & !self.hdr_whole.val() & self.hdr_half.val() & self.adv.val() {
            // A bad header sent half: its octets go with it.
            self.stay.next = 0.into();
        }
        self.room.next = !self.reset.val() & (self.stay.val() <= self.c_k.val());
        self.s.tready.next = self.room.val();
        self.accept.next = self.room.val() & self.s.tvalid.val();

        self.acc.d.next = self.acc.q.val() >> (bit_cast::<16, 8>(self.e.val()) << 5);
        self.c.d.next = self.stay.val();
        if self.accept.val() {
            self.acc.d.next = (self.acc.q.val() >> (bit_cast::<16, 8>(self.e.val()) << 5))
                | (bit_cast::<D2, D>(self.in_data.val())
                    << (bit_cast::<16, 8>(self.stay.val()) << 3));
            self.c.d.next = self.stay.val() + self.s_count.val();
        }
        self.woff_now.next = self.woff.q.val() + (bit_cast::<32, 8>(self.e_q.q.val()) << 2);
        self.woff.d.next = self.woff_now.val();
        self.e_q.d.next = self.e.val();
        self.mpos_next.next = self.mpos.q.val() - bit_cast::<7, 8>(self.e.val());
        self.r_next.next = self.r.q.val();
        if self.adv.val() {
            self.o_valid.d.next = self.e.val() != 0;
        }
        if self.e.val() != 0 {
            self.r_next.next = self.r_eff.val() - self.taken.val();
            self.o_words.d.next = bit_cast::<D, D2>(self.acc.q.val());
            self.o_n.d.next = self.e.val();
            self.o_first.d.next = self.at_start.val();
            self.o_last.d.next = self.r_eff.val() == self.taken.val();
            self.o_mk.d.next = self.mk_in.val();
            self.o_mkl.d.next = self.mposv.val();
            self.o_base.d.next = self.woff_now.val();
        }
        if self.reset.val() {
            self.acc.d.next = 0.into();
            self.c.d.next = 0.into();
            self.woff.d.next = self.cfg_offset.val();
            self.e_q.d.next = 0.into();
            // The lane of the first Marker: (512 - offset mod 512) / 4, mod 128.
            self.mpos_next.next = self.c_zero7.val() - bit_cast::<7, 32>(self.cfg_offset.val() >> 2);
            self.r_next.next = 0.into();
            self.o_valid.d.next = false;
        }
        self.mpos.d.next = self.mpos_next.val();
        self.mk_q.d.next = self.cfg_markers.val() & (self.mpos_next.val() < self.c_n7.val());
        self.r.d.next = self.r_next.val();
        self.r_sat.d.next = bit_cast::<8, 16>(self.r_next.val());
        if self.r_next.val() > self.c_64.val() {
            self.r_sat.d.next = bit_cast::<8, 16>(self.c_64.val());
        }
    }
}
