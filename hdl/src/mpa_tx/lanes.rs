//! Stage A of the MPA framer: lane assembly. From the buffered input beats it builds the
//! FPDU's output beats in 4-octet word lanes — the ULPDU_Length word, the ULPDU's words, the
//! PAD (zeros) and a Marker in the lane whose stream offset is a multiple of 512 — and leaves
//! the CRC lane of the last beat for the CRC stage.
//!
//! # Why words
//! FPDUs, Markers and CRCs are all multiples of 4 octets on 4-aligned stream offsets (RFC 5044
//! §4.2–4.3), so a beat of `W` octets is `N = W/4` word lanes and nothing is split below a word.
//!
//! # Datapath
//! - **Gearbox.** The FPDU body (ULPDU_Length · ULPDU · PAD) is the ULPDU moved up by the two
//!   header octets. A 16-bit `carry` keeps the last two octets of each input beat (the
//!   ULPDU_Length on a ULPDU's first beat), so body word `j` of a beat is
//!   `{beat, carry}[32j+31:32j]`: wiring, no shifter. A last beat yields `⌈(2+k)/4⌉` words (its
//!   count comes with the beat, computed before the skid buffer).
//! - **Items.** Each output beat takes, in order, the words held from earlier beats (`held`, at
//!   most `N+1`) and this beat's words (`item = held | cur << 32h`); a Marker takes its lane
//!   if an FPDU word follows it; what does not fit is held. Every FPDU starts in lane 0 of a new
//!   beat, so held words never mix FPDUs.
//! - **Counts, computed for both outcomes of `take`.** Whether the buffered beat is taken
//!   depends on the output's `tready` and arrives late, so the lane counts are formed for both
//!   cases (`*_t`, `*_n`) and selected at the end. A taken beat's count is one of N + 1
//!   values, so what the control asks of it (is the Marker before the CRC lane, is this the
//!   CRC beat) is asked as equalities of the count's low bits and of the state registers
//!   (`mh`, `h`) with each value: LUTs, where a sum and a comparison would be two carry chains
//!   in a row. Whether a beat goes out asks the count nothing: a taken beat always fills or
//!   ends one.
//! - **Marker position** is a register (`mpos_q`: the lane of the next Marker, mod 128 words)
//!   and so is the next Marker's FPDUPTR (`ptr_q`: its offset from the FPDU's header). A beat
//!   leaves `ptr_q` as it is, or adds 512 when it carries the Marker; the beat that places a
//!   header sets it from `mpos_q`. Every FPDU's header is placed in its first beat (or the
//!   second, behind a leading Marker at W = 4), so no adder and nothing late sits in front of
//!   a Marker's lane.
//!
//! A ULPDU whose `s_len` is 0 or above MULPDU is dropped whole (its beats are consumed until
//! `tlast`) and counted.

use crate::axis::{AxisSink, AxisSource};
use offload_driver::mpa::{CRC_LEN, HEADER_LEN, MARKER_INTERVAL, MARKER_LEN};
use rust_hdl::prelude::*;

// Word lanes, a 7-bit Marker lane counter (mod 128 words) and the 16-bit FPDUPTR arithmetic
// hold for the layout `offload_driver::mpa` defines; the build stops here if it changes.
const _: () = assert!(
    MARKER_LEN == 4 && CRC_LEN == 4 && HEADER_LEN == 2 && MARKER_INTERVAL / 4 == 1 << 7,
    "the MPA TX datapath assumes 4-octet Markers and CRC, a 2-octet header and 512-octet Marker spacing"
);

/// Where the framer is in the current ULPDU.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Phase {
    /// Between FPDUs: the next input beat is a ULPDU's first.
    Idle,
    /// Input beats of the current ULPDU are still to come.
    Body,
    /// The ULPDU's input is all in; held words and the CRC remain to be sent.
    Tail,
    /// Discarding a ULPDU with a bad length until its `tlast`.
    Drop,
}

/// `D = 8·K` data bits, `K` octets per beat, `H = D + 32` (held words: `N + 1`), `I = 2D + 32`
/// (the item window: held words and a beat's words).
#[derive(LogicBlock)]
pub struct LaneAssembly<const D: usize, const K: usize, const H: usize, const I: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg_markers: Signal<In, Bit>,
    /// Stream offset of the first octet (a multiple of 4), loaded at reset.
    pub cfg_offset: Signal<In, Bits<16>>,
    /// The buffered ULPDU beats; `tkeep` is read on the last beat.
    pub s: AxisSink<D, K>,
    /// The ULPDU's length (read with its first beat).
    pub s_len: Signal<In, Bits<16>>,
    /// Body words the beat yields: `N`, or `⌈(2+k)/4⌉` on a last beat of `k` octets.
    pub s_count: Signal<In, Bits<5>>,
    /// `s_len` is 0 or over MULPDU (read with the first beat; computed before the skid buffer,
    /// where the 16-bit comparison is off the take path).
    pub s_bad: Signal<In, Bit>,
    /// `s_count + 1`, `s_count + 2`, `s_count − N` and `s_count + 1 − N` (mod 256).
    pub s_count1: Signal<In, Bits<5>>,
    pub s_count2: Signal<In, Bits<5>>,
    pub s_count_mn: Signal<In, Bits<8>>,
    pub s_count1_mn: Signal<In, Bits<8>>,
    /// Assembled beats: every lane but the CRC's; `tlast` on an FPDU's last beat, whose CRC
    /// lane (zeros here) is `m_crc_lane`.
    pub m: AxisSource<D, K>,
    pub m_crc_lane: Signal<Out, Bits<8>>,
    /// ULPDUs dropped for a bad length.
    pub dropped: Signal<Out, Bits<32>>,
    // Registers.
    phase: DFF<Phase>,
    mpos_q: DFF<Bits<7>>,
    /// `mpos_q − h` (mod 128).
    mh_q: DFF<Bits<7>>,
    mlt_q: DFF<Bit>,
    ptr_q: DFF<Bits<16>>,
    hdr_pending: DFF<Bit>,
    held: DFF<Bits<H>>,
    /// Held words, `0..=N+1` (5 bits cover W = 64; the counts are 8-bit sums of it, and a
    /// narrow register tells synthesis their high bits are zero).
    h: DFF<Bits<5>>,
    carry: DFF<Bits<16>>,
    a_valid: DFF<Bit>,
    a_lanes: DFF<Bits<D>>,
    a_crc_here: DFF<Bit>,
    a_crc_lane: DFF<Bits<8>>,
    n_dropped: DFF<Bits<32>>,
    // Combinational temporaries.
    in_data: Signal<Local, Bits<D>>,
    adv: Signal<Local, Bit>,
    len_bad: Signal<Local, Bit>,
    in_drop: Signal<Local, Bit>,
    idle_bad: Signal<Local, Bit>,
    mpos: Signal<Local, Bits<8>>,
    mk: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    hdr_pend: Signal<Local, Bit>,
    carry_eff: Signal<Local, Bits<16>>,
    cur: Signal<Local, Bits<H>>,
    n_body_t: Signal<Local, Bits<8>>,
    ending_t: Signal<Local, Bit>,
    crc_lane_t: Signal<Local, Bits<8>>,
    crc_here_t: Signal<Local, Bit>,
    left_t: Signal<Local, Bits<8>>,
    n_body_n: Signal<Local, Bits<8>>,
    ending_n: Signal<Local, Bit>,
    crc_lane_n: Signal<Local, Bits<8>>,
    crc_here_n: Signal<Local, Bit>,
    complete_n: Signal<Local, Bit>,
    left_n: Signal<Local, Bits<8>>,
    ending: Signal<Local, Bit>,
    crc_lane: Signal<Local, Bits<8>>,
    crc_here: Signal<Local, Bit>,
    left: Signal<Local, Bits<8>>,
    mh: Signal<Local, Bits<7>>,
    mpos_rst: Signal<Local, Bits<7>>,
    mh_neg: Signal<Local, Bit>,
    mh_t: Signal<Local, Bits<7>>,
    mh_n: Signal<Local, Bits<7>>,
    a1_t: Signal<Local, Bits<8>>,
    before_t: Signal<Local, Bit>,
    before_n: Signal<Local, Bit>,
    mpos_t: Signal<Local, Bits<7>>,
    mpos_n: Signal<Local, Bits<7>>,
    mpos_next: Signal<Local, Bits<7>>,
    /// The candidates for `mpos_next`, each with its `< N` flag beside it (`lt_*`), so that
    /// `mlt_q` is a select of flags, not a compare behind the select.
    mp_full: Signal<Local, Bits<7>>,
    mp_n1: Signal<Local, Bits<7>>,
    mp_n2: Signal<Local, Bits<7>>,
    lt_full: Signal<Local, Bit>,
    lt_n1: Signal<Local, Bit>,
    lt_n2: Signal<Local, Bit>,
    mlt_t: Signal<Local, Bit>,
    /// The questions about a taken beat, as equalities: the count's low bits; per value `u`,
    /// `mh == u` and `count ≥ u` (`ge_u`), and per `a < N`, `count ≤ a` (`le_a`); what they
    /// give: `mh ≤ count`, `mh < count`, `h + count < N`, `h + count == N − 1`. Beside them
    /// the sums `mh − count` (`mc0`), `− count − 1` (`mc1`), `− count − 2` (`mc2`), and the
    /// `< N` flags of `mc1` and `mc2`.
    cnt_lo: Signal<Local, Bits<5>>,
    u7: Signal<Local, Bits<7>>,
    mh_is_u: Signal<Local, Bit>,
    ge_u: Signal<Local, Bit>,
    le_a: Signal<Local, Bit>,
    le_cnt: Signal<Local, Bit>,
    nb_lt: Signal<Local, Bit>,
    nb_last: Signal<Local, Bit>,
    mc0: Signal<Local, Bits<7>>,
    mc1: Signal<Local, Bits<7>>,
    mc2: Signal<Local, Bits<7>>,
    lt_c1: Signal<Local, Bit>,
    lt_c2: Signal<Local, Bit>,
    /// Bit `w`: `mh == w`, for `w` in `0..2N + 3`: the `< N` flags of `mc1` and `mc2` are
    /// `mh` in `[count + 1, count + N]` and `[count + 2, count + N + 1]`, so per count value
    /// a window of these equalities, picked by the count's low bits, not the difference's
    /// carry chain and then its high bits (MPA TX W = 8's seeds 1 and 3 at 4b9f315 and seed
    /// 3 at 7c5e186: `mh_q` or the count → `mc2` → `mlt_q`, 12 levels).
    mh_eq: Signal<Local, Bits<40>>,
    c_one40: Constant<Bits<40>>,
    c_low_n40: Constant<Bits<40>>,
    mlt_n: Signal<Local, Bit>,
    wrap_t: Signal<Local, Bit>,
    wrap_n: Signal<Local, Bit>,
    placed: Signal<Local, Bits<I>>,
    item: Signal<Local, Bits<I>>,
    emit: Signal<Local, Bit>,
    hdr_lane: Signal<Local, Bits<8>>,
    hdr_placed: Signal<Local, Bit>,
    before_header: Signal<Local, Bit>,
    mpos4: Signal<Local, Bits<16>>,
    ptr: Signal<Local, Bits<16>>,
    ptr_be: Signal<Local, Bits<16>>,
    ptr_base: Signal<Local, Bits<16>>,
    /// `ptr_q + 512`, formed beside `ptr_q` so that no adder follows `wrap`.
    ptr_q_w: Signal<Local, Bits<16>>,
    ptr_next: Signal<Local, Bits<16>>,
    wrap: Signal<Local, Bit>,
    word: Signal<Local, Bits<32>>,
    beat: Signal<Local, Bits<D>>,
    rest: Signal<Local, Bits<H>>,
    held_next: Signal<Local, Bits<H>>,
    // Constants (widths from the generics; integer literals are 32-bit in Verilog).
    c_n: Constant<Bits<8>>,
    c_n_minus_1: Constant<Bits<8>>,
    c_n7: Constant<Bits<7>>,
    c_n5: Constant<Bits<5>>,
    /// The low bits that tell the count's N + 1 values (1..=N+1) apart: `2^m − 1 ≥ N + 1`.
    c_cmask: Constant<Bits<5>>,
    /// N + 1, the count's largest value.
    c_n1_7: Constant<Bits<7>>,
    // `x < N` as `x & !(N − 1) == 0` (N a power of 2): a LUT tree where a comparison would
    // become a carry chain.
    c_hi5: Constant<Bits<5>>,
    c_hi7: Constant<Bits<7>>,
    c_hi8: Constant<Bits<8>>,
    c_zero7: Constant<Bits<7>>,
    c_byte_d: Constant<Bits<D>>,
    c_all_k: Constant<Bits<K>>,
    c_carry_at: Constant<Bits<16>>,
    c_rest_full: Constant<Bits<16>>,
    c_rest_marker: Constant<Bits<16>>,
    /// The Marker spacing, added to FPDUPTR per Marker sent.
    c_interval: Constant<Bits<16>>,
    /// −MARKER_LEN (mod 2^16): FPDUPTR of the next Marker when the header sits behind one.
    c_minus_marker: Constant<Bits<16>>,
    /// `c_minus_marker + c_interval`: the same, after a Marker this beat sends.
    c_minus_marker_w: Constant<Bits<16>>,
}

impl<const D: usize, const K: usize, const H: usize, const I: usize> Default for LaneAssembly<D, K, H, I> {
    fn default() -> Self {
        assert!(
            K >= 4 && K <= 64 && K.is_power_of_two() && D == 8 * K && H == D + 32 && I == 2 * D + 32,
            "LaneAssembly<8K, K, 8K+32, 16K+32> with K a power of 2 in 4..=64"
        );
        let n = (K / 4) as u64;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_markers: Default::default(),
            cfg_offset: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            s_count: Default::default(),
            s_bad: Default::default(),
            s_count1: Default::default(),
            s_count2: Default::default(),
            s_count_mn: Default::default(),
            s_count1_mn: Default::default(),
            m: Default::default(),
            m_crc_lane: Default::default(),
            dropped: Default::default(),
            phase: Default::default(),
            mpos_q: Default::default(),
            mh_q: Default::default(),
            mlt_q: Default::default(),
            ptr_q: Default::default(),
            hdr_pending: Default::default(),
            held: Default::default(),
            h: Default::default(),
            carry: Default::default(),
            a_valid: Default::default(),
            a_lanes: Default::default(),
            a_crc_here: Default::default(),
            a_crc_lane: Default::default(),
            n_dropped: Default::default(),
            in_data: Default::default(),
            adv: Default::default(),
            len_bad: Default::default(),
            in_drop: Default::default(),
            idle_bad: Default::default(),
            mpos: Default::default(),
            mk: Default::default(),
            take: Default::default(),
            first: Default::default(),
            hdr_pend: Default::default(),
            carry_eff: Default::default(),
            cur: Default::default(),
            n_body_t: Default::default(),
            ending_t: Default::default(),
            crc_lane_t: Default::default(),
            crc_here_t: Default::default(),
            left_t: Default::default(),
            n_body_n: Default::default(),
            ending_n: Default::default(),
            crc_lane_n: Default::default(),
            crc_here_n: Default::default(),
            complete_n: Default::default(),
            left_n: Default::default(),
            ending: Default::default(),
            crc_lane: Default::default(),
            crc_here: Default::default(),
            left: Default::default(),
            mh: Default::default(),
            mpos_rst: Default::default(),
            mh_neg: Default::default(),
            mh_t: Default::default(),
            mh_n: Default::default(),
            a1_t: Default::default(),
            before_t: Default::default(),
            before_n: Default::default(),
            mpos_t: Default::default(),
            mpos_n: Default::default(),
            mpos_next: Default::default(),
            mp_full: Default::default(),
            mp_n1: Default::default(),
            mp_n2: Default::default(),
            lt_full: Default::default(),
            lt_n1: Default::default(),
            lt_n2: Default::default(),
            mlt_t: Default::default(),
            cnt_lo: Default::default(),
            u7: Default::default(),
            mh_is_u: Default::default(),
            ge_u: Default::default(),
            le_a: Default::default(),
            le_cnt: Default::default(),
            nb_lt: Default::default(),
            nb_last: Default::default(),
            mc0: Default::default(),
            mc1: Default::default(),
            mc2: Default::default(),
            lt_c1: Default::default(),
            lt_c2: Default::default(),
            mh_eq: Default::default(),
            mlt_n: Default::default(),
            wrap_t: Default::default(),
            wrap_n: Default::default(),
            placed: Default::default(),
            item: Default::default(),
            emit: Default::default(),
            hdr_lane: Default::default(),
            hdr_placed: Default::default(),
            before_header: Default::default(),
            mpos4: Default::default(),
            ptr: Default::default(),
            ptr_be: Default::default(),
            ptr_base: Default::default(),
            ptr_q_w: Default::default(),
            ptr_next: Default::default(),
            wrap: Default::default(),
            word: Default::default(),
            beat: Default::default(),
            rest: Default::default(),
            held_next: Default::default(),
            c_n: Constant::new(n.into()),
            c_n_minus_1: Constant::new((n - 1).into()),
            c_n7: Constant::new(n.into()),
            c_n5: Constant::new(n.into()),
            c_cmask: Constant::new(((n + 2).next_power_of_two() - 1).into()),
            c_n1_7: Constant::new((n + 1).into()),
            c_one40: Constant::new(1u64.into()),
            c_low_n40: Constant::new(crate::bits::low_ones(n as usize).into()),
            c_hi5: Constant::new((31 & !(n - 1)).into()),
            c_hi7: Constant::new((127 & !(n - 1)).into()),
            c_hi8: Constant::new((255 & !(n - 1)).into()),
            c_zero7: Constant::new(0u64.into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_all_k: Constant::new(crate::bits::low_ones(K).into()),
            c_carry_at: Constant::new(((D - 16) as u64).into()),
            c_rest_full: Constant::new((32 * n).into()),
            c_rest_marker: Constant::new((32 * (n - 1)).into()),
            c_interval: Constant::new((MARKER_INTERVAL as u64).into()),
            c_minus_marker: Constant::new((0x1_0000 - MARKER_LEN as u64).into()),
            c_minus_marker_w: Constant::new(((0x1_0000 - MARKER_LEN as u64 + MARKER_INTERVAL) & 0xFFFF).into()),
        }
    }
}

impl<const D: usize, const K: usize, const H: usize, const I: usize> Logic for LaneAssembly<D, K, H, I> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, mpos_q, mh_q, mlt_q, ptr_q, hdr_pending, held, h, carry, a_valid, a_lanes, a_crc_here,
            a_crc_lane, n_dropped
        );
        self.m.tdata.next = self.a_lanes.q.val();
        // Every lane is offered; the CRC stage keeps those up to the CRC lane of a last beat.
        self.m.tkeep.next = self.c_all_k.val();
        self.m.tvalid.next = self.a_valid.q.val();
        self.m.tlast.next = self.a_crc_here.q.val();
        self.m_crc_lane.next = self.a_crc_lane.q.val();
        self.dropped.next = self.n_dropped.q.val();

        // The beat's octets past tkeep (on its last beat) are zeroed: they become the PAD.
        self.in_data.next = self.s.tdata.val();
        if self.s.tlast.val() {
            for i in 0..K {
                if !self.s.tkeep.val().get_bit(i) {
                    self.in_data.next = self.in_data.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
                }
            }
        }

        // Take the buffered beat? Only when stage A can advance and the held words plus this
        // beat's Marker leave room for it.
        self.adv.next = !self.a_valid.q.val() | self.m.tready.val();
        self.len_bad.next = self.s_bad.val();
        self.in_drop.next = self.phase.q.val() == Phase::Drop;
        self.idle_bad.next = (self.phase.q.val() == Phase::Idle) & self.s.tvalid.val() & self.len_bad.val();
        self.mpos.next = bit_cast::<8, 7>(self.mpos_q.q.val());
        // `mpos_q < N`, registered beside `mpos_q` (computed from each next value).
        self.mk.next = self.cfg_markers.val() & self.mlt_q.q.val();
        self.take.next = false;
        if !self.reset.val() & !self.in_drop.val() & !self.idle_bad.val() & self.adv.val() & self.s.tvalid.val() {
            match self.phase.q.val() {
                Phase::Idle => {
                    self.take.next = true;
                }
                Phase::Body => {
                    // h + mk ≤ N, as two comparisons of the register with constants.
                    self.take.next = ((self.h.q.val() & self.c_hi5.val()) == 0) | (self.h.q.val() == self.c_n5.val());
                    if self.mk.val() {
                        self.take.next = (self.h.q.val() & self.c_hi5.val()) == 0;
                    }
                }
                _ => {}
            }
        }
        self.first.next = self.phase.q.val() == Phase::Idle;
        // The ULPDU_Length word is item 0 of this beat until it has been sent (a first beat goes
        // out only when taken, so `take` need not be asked).
        self.hdr_pend.next = self.first.val() | self.hdr_pending.q.val();

        // This beat's body words: {0, beat, carry} (the carry is ULPDU_Length, big-endian, on
        // a ULPDU's first beat).
        self.carry_eff.next = self.carry.q.val();
        if self.first.val() {
            self.carry_eff.next = (self.s_len.val() >> 8) | (self.s_len.val() << 8);
        }
        self.cur.next = (bit_cast::<H, D>(self.in_data.val()) << 16) | bit_cast::<H, 16>(self.carry_eff.val());
        // Only a last beat's words past `N` are body words; a full beat's top 16 bits are the
        // next beat's carry. So the words past a beat's count are zero, and the item window
        // below needs no count to zero its unused lanes.
        if !self.s.tlast.val() {
            self.cur.next = bit_cast::<H, D>(bit_cast::<D, H>(self.cur.val()));
        }

        // Lane counts if the beat is taken (_t) and if not (_n), selected at the end by `take`.
        // `n` body words are available; a Marker is before the CRC lane when `mpos ≤ n`
        // (`before`); the CRC lane is `n + before`, so `used = n + 1 + before` on a CRC beat.
        // `mpos − h` (mod 128) is a register too (`mh_q`), so "is the Marker before word n" asks
        // about `mh` and the beat's count alone. When `mk`, `mpos < N ≤ 16` and `h ≤ N + 1`, so
        // `mh` read as a signed 7-bit value is exact.
        self.mh.next = self.mh_q.q.val();
        self.mh_neg.next = self.mh_q.q.val().get_bit(6);
        // The beat's count is one of N + 1 values (1..=N+1), so each question about a taken beat
        // is asked once per value, of the state registers alone, and the count's low bits (as
        // many as N + 1 values need) only pick the answer: no carry chain follows the skid
        // buffer's count on the way to the Marker registers.
        self.cnt_lo.next = self.s_count.val() & self.c_cmask.val();
        self.le_cnt.next = false;
        self.nb_lt.next = false;
        self.nb_last.next = false;
        // `mh ≤ count`: for each value `u` from N + 1 down, `mh == u` (LUTs,
        // where a comparison would be a carry chain) and whether the count reaches it.
        self.ge_u.next = false;
        for i in 0..(K / 4 + 2) {
            self.u7.next = self.c_n1_7.val() - i.to_bits::<7>();
            self.mh_is_u.next = self.mh.val() == self.u7.val();
            self.ge_u.next = self.ge_u.val() | (self.cnt_lo.val() == bit_cast::<5, 7>(self.u7.val()));
            self.le_cnt.next = self.le_cnt.val() | (self.mh_is_u.val() & self.ge_u.val());
        }
        // `h + count < N`: for each `a` below N, `count ≤ a` and `h == N − 1 − a`.
        self.le_a.next = false;
        for a in 0..(K / 4) {
            self.le_a.next = self.le_a.val() | (self.cnt_lo.val() == a.to_bits::<5>());
            self.nb_lt.next =
                self.nb_lt.val() | (self.le_a.val() & (self.h.q.val() == (self.c_n5.val() - (a + 1).to_bits::<5>())));
        }
        // `h + count == N − 1`.
        for v in 1..(K / 4) {
            self.nb_last.next = self.nb_last.val()
                | ((self.cnt_lo.val() == v.to_bits::<5>())
                    & (self.h.q.val() == (self.c_n5.val() - (v + 1).to_bits::<5>())));
        }
        // The next `mpos − h` candidates are sums of two registers, formed beside the questions.
        self.mc0.next = self.mh.val() - bit_cast::<7, 5>(self.s_count.val());
        self.mc1.next = self.mh.val() - bit_cast::<7, 5>(self.s_count1.val());
        self.mc2.next = self.mh.val() - bit_cast::<7, 5>(self.s_count2.val());
        self.mh_eq.next = 0.into();
        for w in 0..(K / 2 + 3) {
            if self.mh.val() == w.to_bits::<7>() {
                self.mh_eq.next = self.mh_eq.val() | (self.c_one40.val() << w.to_bits::<8>());
            }
        }
        self.lt_c1.next = false;
        self.lt_c2.next = false;
        for u in 1..(K / 4 + 2) {
            if self.cnt_lo.val() == u.to_bits::<5>() {
                self.lt_c1.next = ((self.mh_eq.val() >> (u + 1).to_bits::<8>()) & self.c_low_n40.val()) != 0;
                self.lt_c2.next = ((self.mh_eq.val() >> (u + 2).to_bits::<8>()) & self.c_low_n40.val()) != 0;
            }
        }
        self.n_body_t.next = bit_cast::<8, 5>(self.h.q.val()) + bit_cast::<8, 5>(self.s_count.val());
        self.a1_t.next = bit_cast::<8, 5>(self.h.q.val()) + bit_cast::<8, 5>(self.s_count1.val());
        self.ending_t.next = (self.phase.q.val() == Phase::Tail) | self.s.tlast.val();
        self.before_t.next = self.mk.val() & (self.mh_neg.val() | self.le_cnt.val());
        self.crc_here_t.next = self.ending_t.val() & self.nb_lt.val() & !(self.before_t.val() & self.nb_last.val());
        self.crc_lane_t.next = self.n_body_t.val();
        if self.before_t.val() {
            self.crc_lane_t.next = self.a1_t.val();
        }
        self.left_t.next = bit_cast::<8, 5>(self.h.q.val()) + self.s_count_mn.val();
        if self.mk.val() {
            self.left_t.next = bit_cast::<8, 5>(self.h.q.val()) + self.s_count1_mn.val();
        }
        // The next Marker lane for each outcome, and whether it is below N, side by side: the
        // CRC-beat question (`crc_here_t`) only selects.
        self.mp_full.next = self.mpos_q.q.val() - self.c_n7.val();
        self.lt_full.next = (self.mp_full.val() & self.c_hi7.val()) == 0;
        self.mpos_t.next = self.mp_full.val();
        self.mlt_t.next = self.lt_full.val();
        if self.crc_here_t.val() {
            self.left_t.next = 0.into();
            self.mpos_t.next = self.mc1.val();
            self.mlt_t.next = self.lt_c1.val();
            if self.before_t.val() {
                self.mpos_t.next = self.mc2.val();
                self.mlt_t.next = self.lt_c2.val();
            }
        }
        self.wrap_t.next = self.mk.val() & (!self.crc_here_t.val() | self.before_t.val());
        // `mpos − h` after the beat: `− count − mk` on a full beat, `− count − 1 − before` on
        // a CRC beat (then h is 0 and mpos moves past the CRC lane).
        self.mh_t.next = self.mc0.val();
        if self.crc_here_t.val() | self.mk.val() {
            self.mh_t.next = self.mc1.val();
        }
        if self.crc_here_t.val() & self.before_t.val() {
            self.mh_t.next = self.mc2.val();
        }

        self.n_body_n.next = bit_cast::<8, 5>(self.h.q.val());
        self.ending_n.next = self.phase.q.val() == Phase::Tail;
        self.before_n.next = self.mk.val() & (self.mh_neg.val() | (self.mh.val() == 0));
        self.crc_here_n.next = self.ending_n.val()
            & ((self.n_body_n.val() & self.c_hi8.val()) == 0)
            & !(self.before_n.val() & (self.n_body_n.val() == self.c_n_minus_1.val()));
        self.complete_n.next = self.ending_n.val()
            | ((self.n_body_n.val() & self.c_hi8.val()) != 0)
            | (self.mk.val() & self.mh_neg.val() & (self.n_body_n.val() == self.c_n_minus_1.val()));
        self.crc_lane_n.next = self.n_body_n.val();
        if self.before_n.val() {
            self.crc_lane_n.next = self.n_body_n.val() + 1;
        }
        self.left_n.next = self.n_body_n.val() - self.c_n.val();
        if self.mk.val() {
            self.left_n.next = (self.n_body_n.val() + 1) - self.c_n.val();
        }
        self.mp_n1.next = self.mh.val() - 1;
        self.lt_n1.next = (self.mp_n1.val() & self.c_hi7.val()) == 0;
        self.mp_n2.next = self.mh.val() - 2;
        self.lt_n2.next = (self.mp_n2.val() & self.c_hi7.val()) == 0;
        self.mpos_n.next = self.mp_full.val();
        self.mlt_n.next = self.lt_full.val();
        if self.crc_here_n.val() {
            self.left_n.next = 0.into();
            self.mpos_n.next = self.mp_n1.val();
            self.mlt_n.next = self.lt_n1.val();
            if self.before_n.val() {
                self.mpos_n.next = self.mp_n2.val();
                self.mlt_n.next = self.lt_n2.val();
            }
        }
        self.wrap_n.next = self.mk.val() & (!self.crc_here_n.val() | self.before_n.val());
        self.mh_n.next = self.mh.val();
        if self.crc_here_n.val() | self.mk.val() {
            self.mh_n.next = self.mh.val() - 1;
        }
        if self.crc_here_n.val() & self.before_n.val() {
            self.mh_n.next = self.mh.val() - 2;
        }

        self.ending.next = self.ending_n.val();
        self.crc_lane.next = self.crc_lane_n.val();
        self.crc_here.next = self.crc_here_n.val();
        self.left.next = self.left_n.val();
        self.mpos_next.next = self.mpos_n.val();
        self.wrap.next = self.wrap_n.val();
        if self.take.val() {
            self.ending.next = self.ending_t.val();
            self.crc_lane.next = self.crc_lane_t.val();
            self.crc_here.next = self.crc_here_t.val();
            self.left.next = self.left_t.val();
            self.mpos_next.next = self.mpos_t.val();
            self.wrap.next = self.wrap_t.val();
        }

        // The item window: held words, then this beat's words if taken past them (held words at
        // and above h are zero).
        // The beat's words are placed past the held ones from registers alone; `take`, which
        // comes late, only gates the placed words (a beat not taken adds nothing).
        self.placed.next = bit_cast::<I, H>(self.cur.val()) << (bit_cast::<16, 5>(self.h.q.val()) << 5);
        self.item.next = bit_cast::<I, H>(self.held.q.val());
        if self.take.val() {
            self.item.next = self.item.val() | self.placed.val();
        }

        // A beat goes out when it ends the FPDU (then it holds the CRC lane or is full) or its
        // lanes are full: N body words, or N-1 and a Marker with a word after it. A taken beat
        // always completes one: it is the ULPDU's last (it ends the FPDU) or it brings N words,
        // so its lanes fill. So `emit` asks the count nothing; only a beat not taken asks
        // whether the held words complete one (`complete_n`, from registers). `emit` is the
        // enable of every lane and held-word register (over a thousand at W = 64), so nothing
        // slow may stand in front of it.
        self.emit.next = self.take.val()
            | (self.adv.val()
                & self.complete_n.val()
                & !self.in_drop.val()
                & !self.idle_bad.val()
                & !self.first.val());

        // Header lane and Marker pointer (§4.3: FPDUPTR is 0 before the ULPDU_Length field of
        // the FPDU it belongs to; else the offset back to that field).
        self.hdr_lane.next = 0.into();
        if self.mk.val() & (self.mpos.val() == 0) {
            self.hdr_lane.next = 1.into();
        }
        self.hdr_placed.next = self.hdr_pend.val() & (self.hdr_lane.val() < self.c_n.val());
        self.before_header.next = self.hdr_pend.val() & (self.mpos.val() == 0);
        self.mpos4.next = bit_cast::<16, 8>(self.mpos.val()) << 2;
        self.ptr.next = self.ptr_q.q.val();
        if self.before_header.val() {
            self.ptr.next = 0.into();
        } else if self.hdr_placed.val() {
            self.ptr.next = self.mpos4.val();
        }

        // FPDUPTR big-endian, in a 16-bit temporary: swapped inside a wider expression, Verilog
        // would keep the octet that rust-hdl shifts out.
        self.ptr_be.next = (self.ptr.val() >> 8) | (self.ptr.val() << 8);
        // What `ptr_q` becomes: relative to a header placed in this beat, the Marker lane's
        // offset from it (`4·mpos` with the header in lane 0; −4 with it in lane 1 behind the
        // Marker, which this beat then sends); else unchanged. Plus 512 if the beat sends the
        // Marker (`wrap`).
        self.ptr_base.next = self.ptr_q.q.val();
        if self.hdr_placed.val() {
            self.ptr_base.next = self.mpos4.val();
            if self.hdr_lane.val() != 0 {
                self.ptr_base.next = self.c_minus_marker.val();
            }
        }
        // The same plus 512, each formed from its source (`mpos4` < 512, so `| 512` adds it),
        // and `wrap` choosing between the two.
        self.ptr_q_w.next = self.ptr_q.q.val() + self.c_interval.val();
        self.ptr_next.next = self.ptr_base.val();
        if self.wrap.val() {
            self.ptr_next.next = self.ptr_q_w.val();
            if self.hdr_placed.val() {
                self.ptr_next.next = self.mpos4.val() | self.c_interval.val();
                if self.hdr_lane.val() != 0 {
                    self.ptr_next.next = self.c_minus_marker_w.val();
                }
            }
        }

        // The lanes: the Marker (reserved octets 0-1, FPDUPTR in 2-3), the items before it in
        // their own lanes, the ones after it one lane up. Lane 0 has nothing before it.
        self.word.next = self.item.val().get_bits::<32>(0);
        if self.mk.val() & (self.mpos.val() == 0) {
            self.word.next = bit_cast::<32, 16>(self.ptr_be.val()) << 16;
        }
        self.beat.next = bit_cast::<D, 32>(self.word.val());
        for l in 1..(K / 4) {
            self.word.next = self.item.val().get_bits::<32>(l * 32);
            if self.mk.val() & (self.mpos.val() == l.to_bits::<8>()) {
                self.word.next = bit_cast::<32, 16>(self.ptr_be.val()) << 16;
            } else if self.mk.val() & (self.mpos.val() < l.to_bits::<8>()) {
                self.word.next = self.item.val().get_bits::<32>((l - 1) * 32);
            }
            self.beat.next = self.beat.val() | (bit_cast::<D, 32>(self.word.val()) << (l * 32).to_bits::<16>());
        }

        // Words left to hold: a full beat takes N - mk items, so they start at item N - mk (one
        // of two fixed shifts). The item window is zero past its `n_body` words, so what is
        // shifted down is exactly the `left` words to hold (none after a CRC beat).
        self.rest.next = bit_cast::<H, I>(self.item.val() >> self.c_rest_full.val());
        if self.mk.val() {
            self.rest.next = bit_cast::<H, I>(self.item.val() >> self.c_rest_marker.val());
        }
        self.held_next.next = self.rest.val();

        // The buffered beat is consumed when taken, or discarded with a dropped ULPDU.
        self.s.tready.next = !self.reset.val()
            & ((self.in_drop.val() & self.s.tvalid.val()) | self.idle_bad.val() | self.take.val());

        // The lane of the first Marker: (512 - offset mod 512) / 4, mod 128 (in a 7-bit Local:
        // Verilog would compare the unwrapped difference).
        self.mpos_rst.next = self.c_zero7.val() - bit_cast::<7, 16>(self.cfg_offset.val() >> 2);

        // Registers.
        if self.m.tready.val() {
            self.a_valid.d.next = false;
        }
        if self.in_drop.val() {
            if self.s.tvalid.val() & self.s.tlast.val() {
                self.phase.d.next = Phase::Idle;
            }
        } else if self.idle_bad.val() {
            self.n_dropped.d.next = self.n_dropped.q.val() + 1;
            if !self.s.tlast.val() {
                self.phase.d.next = Phase::Drop;
            }
        } else {
            if self.take.val() {
                self.carry.d.next = bit_cast::<16, D>(self.in_data.val() >> self.c_carry_at.val());
            }
            if self.emit.val() {
                self.a_lanes.d.next = self.beat.val();
                self.a_valid.d.next = true;
                self.a_crc_here.d.next = self.crc_here.val();
                self.a_crc_lane.d.next = self.crc_lane.val();
                self.mpos_q.d.next = self.mpos_next.val();
                self.mh_q.d.next = self.mh_n.val();
                if self.take.val() {
                    self.mh_q.d.next = self.mh_t.val();
                }
                self.mlt_q.d.next = self.mlt_n.val();
                if self.take.val() {
                    self.mlt_q.d.next = self.mlt_t.val();
                }
                // The next Marker's FPDUPTR: 512 octets on when this beat sent one.
                self.ptr_q.d.next = self.ptr_next.val();
                self.hdr_pending.d.next = self.hdr_pend.val() & !self.hdr_placed.val();
                self.held.d.next = self.held_next.val();
                self.h.d.next = bit_cast::<5, 8>(self.left.val());
                if self.crc_here.val() {
                    self.phase.d.next = Phase::Idle;
                } else if self.ending.val() {
                    self.phase.d.next = Phase::Tail;
                } else {
                    self.phase.d.next = Phase::Body;
                }
            }
        }
        if self.reset.val() {
            self.phase.d.next = Phase::Idle;
            self.mpos_q.d.next = self.mpos_rst.val();
            self.mh_q.d.next = self.mpos_rst.val();
            self.mlt_q.d.next = (self.mpos_rst.val() & self.c_hi7.val()) == 0;
            self.ptr_q.d.next = 0.into();
            self.hdr_pending.d.next = false;
            self.held.d.next = 0.into();
            self.h.d.next = 0.into();
            self.carry.d.next = 0.into();
            self.a_valid.d.next = false;
            self.a_lanes.d.next = 0.into();
            self.a_crc_here.d.next = false;
            self.a_crc_lane.d.next = 0.into();
            self.n_dropped.d.next = 0.into();
        }
    }
}
