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
//! `ring` holds `c` octets of the stream in a ring of `2W` octets: from word `rp` (one-hot)
//! on, the next input octet due at octet `wp`. Each clock the stage emits `e` of its whole
//! words — `min(words held, N, words left in the FPDU)` — by moving `rp` past them, and writes
//! the input beat's `W` octets at `wp` when they fit. With the input always valid a beat goes
//! out every clock; an FPDU's end leaves a partial beat. That is the form from 8 word lanes
//! (W = 64), since stop 67. Below (W = 8) `ring` is an accumulator instead, octet 0 the first
//! held, shifted down by `e` words every clock and the input placed at `c` (`c_ring`): a
//! 3-way select there, where the ring's read rotation and per-word header rules cost 2.4 %
//! of W = 8's clock. At W = 64 the shift was a 17-way select of each of 1 024 bits by the
//! count, most of the loop's 13–17 ns of routing in its fan-out (stops 47 and 53).
//!
//! The words left in the FPDU (`r`, Markers not counted) come from the ULPDU_Length field when
//! an FPDU starts: `⌈(2 + len)/4⌉ + 1` (header, ULPDU, PAD, CRC); a Marker in the window (`mpos`,
//! the lane of the next Marker, mod 128 words) belongs to the FPDU when one of its words
//! follows it. The header word goes out in a beat of its own (behind a leading Marker), so
//! the length only feeds registers.
//!
//! # Timing (issue 26)
//! The word count `e` closes a loop through every register here, so it is computed from
//! registers in a few LUT levels and everything behind it is a final select:
//! - comparisons are thermometers of equalities with constants and masks of high bits, never
//!   carry chains: `e ≥ j` for each `j` in `1..=N` from "`c ≥ 4j`", "the FPDU has `j` words
//!   left" and the start rules; `e` one-hot from those. The thermometers of `c`, `r` and the
//!   Marker lane `mpos` are registers (`cw`, `rge`, `mpl`), their next values picked by the
//!   count from today's, shifted (`r − e ≥ j` is `r ≥ j + e`), or at a start from the header's
//!   ULPDU_Length (`⌈(2 + len)/4⌉ ≥ j` is `len ≥ 4j − 5`), so the loop compares nothing;
//!   `c`'s shift up by an input beat's words is one-hot from the input skid (W = 64), so no
//!   adder or barrel shifter sits in front of the pick;
//! - the next `r`, `mpos`, `c` and the Marker flags are computed for every possible `e` from
//!   registers, beside `e`, and picked by it;
//! - the input beat is written at `wp` (a register): rotated by it from registers, so the count
//!   reaches the ring only through `accept`, the write's enable. It is taken when `c ≤ W`, or
//!   when more is held and a whole beat goes out (`e = N`), so its `W` octets never land on a
//!   word still held after the clock; the output beat is the ring rotated by `rp`, one-hot,
//!   from registers;
//! - `s_tready` depends on `e` only through "`e = N`"; the output beat is not registered here
//!   but by the skid buffer behind the stage, whose `ready` is a register.
//!
//! Words go out whole, but the software deframer judges each field as it completes, and the
//! 2-octet ULPDU_Length is half a word. So when the first field is bad — a length of 0 or over
//! MULPDU, or a leading Marker whose FPDUPTR is not 0 — the FPDU's first beat goes out as soon
//! as that field is in (a clock later: the judgement is registered), the rest of its word with
//! it (the check stage reports the error and nothing after it is passed on). The rule is
//! judged twice, here to send the beat and in the check stage to report it: one compare each,
//! kept so the check stage alone says why.

use super::WordBeatSource;
use crate::axis::AxisSink;
use offload_driver::mpa::{HEADER_LEN, MARKER_INTERVAL, MARKER_LEN};
use rust_hdl::prelude::*;

/// One more than the most words a beat holds (`N + 1` for `K = 64`): the candidate arrays.
const E_MAX: usize = 17;

/// The input's whole words and carry, `⌊(count + b)/4⌋` one-hot for each `b = c mod 4` (bits
/// `E_MAX·b ..`): worked out in front of the input skid buffer, where only the beat is known,
/// and picked here by `c`'s low two bits (see `cw`).
pub const UP_FIELDS: usize = 4 * E_MAX;

/// `UP_FIELDS`'s bit `E_MAX·b + u`: the octet counts `v` (one-hot, `0..=64`) with `⌊(v + b)/4⌋ = u`.
pub fn up_masks() -> [u128; UP_FIELDS] {
    std::array::from_fn(|i| {
        let (b, u) = (i / E_MAX, i % E_MAX);
        (0..=64usize).filter(|v| (v + b) / 4 == u).fold(0u128, |m, v| m | (1u128 << v))
    })
}

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
    /// [`UP_FIELDS`], for the ring form's `cw` (W = 64).
    pub s_up: Signal<In, Bits<UP_FIELDS>>,
    /// Word beats for the CRC and check stages: combinational, for a skid buffer whose
    /// `ready` is a register.
    pub b: WordBeatSource<D>,
    /// `b`'s word count as a thermometer (bit `l` set when `n > l`), from the `e ≥ j` terms the
    /// count is built of: the CRC stage derives its lane masks from it without an adder.
    pub b_nt: Signal<Out, Bits<18>>,
    /// The read rotation's second half (the ring form, W = 64): `b.words` is the ring rotated
    /// by `rp`'s group of four words only; `b_xw` holds the three words above them, and
    /// `b_fine` (one-hot) how many of the four, 0–3, the receiver still rotates by behind the
    /// skid buffer. The accumulator form (W = 8) rotates nothing: `b_fine` is 1, `b_xw` 0.
    pub b_xw: Signal<Out, Bits<96>>,
    pub b_fine: Signal<Out, Bits<4>>,
    /// Between FPDUs with nothing held: the stream may end here.
    pub idle: Signal<Out, Bit>,
    // Registers.
    /// The held octets, a ring of `2K`: `c` of them from word `rp` on (one-hot, `2N` words),
    /// the next input beat written at octet `wp` (see the module's doc, "Datapath").
    ring: DFF<Bits<D2>>,
    rp: DFF<Bits<32>>,
    wp: DFF<Bits<8>>,
    c: DFF<Bits<8>>,
    /// The stream offset of the held octets' first a clock late: `woff + 4·e_q` is today's.
    woff: DFF<Bits<32>>,
    e_q: DFF<Bits<8>>,
    mpos: DFF<Bits<7>>,
    /// A Marker in this clock's window (`mpos < N`), and at lane 0 (`mpos = 0`).
    mk_q: DFF<Bit>,
    hw_q: DFF<Bit>,
    r: DFF<Bits<16>>,
    /// Thermometers of `r` and `mpos`, registered beside them (bit `j`: `r ≥ j`, `mpos < j`):
    /// the word count reads them where it compared `r` and `mpos` with constants (stop 50:
    /// `mpos` → `mpos < j` → the word count → the next `r` was the receiver's path on every
    /// seed at 134.2 MHz). The next ones are picked by the word count, like `r` and `mpos`,
    /// from the wide thermometers of today's (`r − e ≥ j` is `r ≥ j + e`).
    rge: DFF<Bits<18>>,
    mpl: DFF<Bits<18>>,
    /// And `c`'s, in words (bit `m`: `c ≥ 4m`), so the word count compares nothing: the next
    /// one is today's shifted down by the words out and, for a beat taken, up by its whole
    /// words and the carry of the octets below a word (`c = 4w + b`, `count = 4v + d`:
    /// `c − 4e + count ≥ 4m` is `w ≥ m + e − v − (b + d ≥ 4)`). The shift up, `v + (b + d ≥
    /// 4) = ⌊(count + b)/4⌋`, depends on the beat and on `b`, which changes only with a beat
    /// taken: the ring form (W = 64) reads it one-hot from the input skid for every `b`
    /// ([`UP_FIELDS`]) and picks by `b`, the accumulator form adds (`cw_up`).
    cw: DFF<Bits<64>>,
    /// Between FPDUs (`r = 0`).
    st: DFF<Bit>,
    /// The first field of the FPDU waiting to start is in and bad: send its beat.
    hh_q: DFF<Bit>,
    // Combinational: the thermometers and the one-hot word count.
    c_ge: [Signal<Local, Bit>; E_MAX],
    r_is: [Signal<Local, Bit>; E_MAX],
    mp_lt: [Signal<Local, Bit>; E_MAX],
    ge: [Signal<Local, Bit>; 18],
    oh: [Signal<Local, Bit>; E_MAX],
    toh: [Signal<Local, Bit>; E_MAX],
    /// `e − mk_in ≥ j`, the FPDU words taken, straight from `ge`: `e ≥ j + 1`, or `e ≥ j` with
    /// no Marker before word `j` (`mpos < j`). `toh` is its one-hot, two LUT levels behind
    /// `ge` instead of `oh` → the Marker's OR over every lane (`mk_in`) → the select.
    tge: [Signal<Local, Bit>; 18],
    // The candidates, one per word count.
    r_c: [Signal<Local, Bits<16>>; E_MAX],
    mp_c: [Signal<Local, Bits<7>>; E_MAX],
    c_c: [Signal<Local, Bits<8>>; E_MAX],
    ca_c: [Signal<Local, Bits<8>>; E_MAX],
    /// The next Marker flags for each word count: the next `mpos < N` (`mk_c`) and the next
    /// `mpos = 0` (`hz_c`, that is `mpos = j` now), so that `mk_q` and `hw_q` are a pick by
    /// the one-hot count, not a compare behind the picked `mpos` (issue 26: `r` → `e` → the
    /// next `mpos` → `hw_q` was the receiver's critical path at 115.97 MHz).
    mk_c: [Signal<Local, Bit>; E_MAX],
    hz_c: [Signal<Local, Bit>; E_MAX],
    mk_nx: Signal<Local, Bit>,
    hw_nx: Signal<Local, Bit>,
    /// `r ≥ k` and `mpos < k` for `k` in `0..=2N + 1`; the start's `r ≥ j`; the picks.
    rge_w: Signal<Local, Bits<40>>,
    mplt_w: Signal<Local, Bits<40>>,
    rge_st: Signal<Local, Bits<18>>,
    /// `r`, `mpos` and ULPDU_Length one-hot (bit `v`: equal to `v`, for the small `v` the
    /// thermometers need): `x < k` is then `x` one-hot masked to bits below `k`, no carry chain
    /// (issue 26's rule for this stage; `>=` on the 32-bit length was a 16-cell carry chain in
    /// front of `hh_q`).
    r_oh: Signal<Local, Bits<40>>,
    mp_oh: Signal<Local, Bits<40>>,
    len_oh: Signal<Local, Bits<72>>,
    len16: Signal<Local, Bits<16>>,
    c_v16: [Constant<Bits<16>>; 72],
    /// Bits `0..k` set.
    c_low40: [Constant<Bits<40>>; 40],
    c_low72: [Constant<Bits<72>>; 72],
    c_one72: Constant<Bits<72>>,
    rge_nx: Signal<Local, Bits<40>>,
    cw_in: Signal<Local, Bits<64>>,
    cw_nx: Signal<Local, Bits<64>>,
    cw_up: Signal<Local, Bits<8>>,
    /// The ring form's `cw_up`, one-hot: `s_up`'s field for `c mod 4` (bits `0..E_MAX`).
    up_w: Signal<Local, Bits<UP_FIELDS>>,
    c_up_at: [Constant<Bits<8>>; 4],
    /// `c ≥ 4m` can hold for `m ≤ 2N` only (`c ≤ 2K`).
    c_cw_mask: Constant<Bits<64>>,
    c_one64: Constant<Bits<64>>,
    c_three8: Constant<Bits<8>>,
    c_four8: Constant<Bits<8>>,
    mpl_nx: Signal<Local, Bits<40>>,
    c_k16: [Constant<Bits<16>>; 40],
    c_k7: [Constant<Bits<7>>; 40],
    /// `128 − j` (7 bits; 128 the Marker interval in words): the reset's `mpos < j` is `x = 0 or x > 128 − j` for `mpos = −x`.
    c_wrap7: [Constant<Bits<7>>; 40],
    c_wrap_n: Constant<Bits<7>>,
    off_w: Signal<Local, Bits<7>>,
    c_one40: Constant<Bits<40>>,
    c_two18: Constant<Bits<18>>,
    // Combinational.
    adv: Signal<Local, Bit>,
    nt: Signal<Local, Bits<18>>,
    c_one18: Constant<Bits<18>>,
    at_start: Signal<Local, Bit>,
    hdr_whole: Signal<Local, Bit>,
    half: Signal<Local, Bit>,
    c_le_k: Signal<Local, Bit>,
    e: Signal<Local, Bits<8>>,
    full: Signal<Local, Bit>,
    mk_in: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    woff_now: Signal<Local, Bits<32>>,
    hdr_word: Signal<Local, Bits<16>>,
    len: Signal<Local, Bits<32>>,
    r_start: Signal<Local, Bits<16>>,
    len_bad: Signal<Local, Bit>,
    /// The length rule judged for every ring word as a header word (`wl`: its ULPDU_Length;
    /// `lb` bit `j`: 0 or over MULPDU) and picked by the header's word (`hsel`: `rp`, or the
    /// word after it behind a leading Marker), so the compare's carry chain starts at the
    /// ring's registers, not behind the read rotation (stop 67: `rp` → the rotation → the
    /// compare → `hh_q` was W = 8's path on every seed at 151.52 MHz).
    /// (18 bits: `len + 5` fits, and the adder's carry chain is no longer.)
    wl: [Signal<Local, Bits<18>>; 32],
    rsw: [Signal<Local, Bits<18>>; 32],
    rs18: Signal<Local, Bits<18>>,
    /// `wl` in 16 bits, for the compare (in 32 its carry chain was twice as long).
    wl16: [Signal<Local, Bits<16>>; 32],
    c_byte18: Constant<Bits<18>>,
    c_hdr_round18: Constant<Bits<18>>,
    /// The start's `r ≥ j` likewise, for every ring word (`rsth`), then picked: `len ≥ 4j − 5`
    /// is `len`'s bits from `K` up not all zero, or bit `len mod K` of the table `c_ge_tab[j]`
    /// (bits `4j − 5` and up): a select of constants, no carry chain. (Stop 68: the ring's
    /// read rotation → the length one-hot → `rge` was W = 64's path, 66.97 MHz, 18 levels.)
    rsth: [Signal<Local, Bits<18>>; 32],
    wlo: Signal<Local, Bits<16>>,
    whi: Signal<Local, Bit>,
    c_ge_tab: [Constant<Bits<K>>; 18],
    c_lo16: Constant<Bits<16>>,
    c_one_k: Constant<Bits<K>>,
    lb: Signal<Local, Bits<32>>,
    /// The leading Marker's FPDUPTR rule (not 0) judged for every ring word likewise (bit `j`)
    /// and picked by `rp` (the ring form): `hh_q` reads no rotation (stop 84: the aligner's `rp`
    /// → the read rotation → `hh_q` was W = 64's placed path at stop 71, 12.62 ns of routing).
    mbw: Signal<Local, Bits<32>>,
    wsel: Signal<Local, Bits<D2>>,
    hsel: Signal<Local, Bits<32>>,
    lead_bad: Signal<Local, Bit>,
    room: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    in_data: Signal<Local, Bits<D>>,
    /// The ring form from 8 word lanes (W = 64); below (W = 8) `ring` is the accumulator of
    /// stop 66 and earlier, octet 0 the first held, shifted down by the words out (a 3-way
    /// select there; the ring's read rotation and per-word header rules measured 153.28 MHz
    /// against its 157.08 at W = 8, seeds 1–3, c7bc611). A constant: one form is synthesised.
    c_ring: Constant<Bit>,
    /// The accumulator form's input placement (see `c_ring`).
    place: Signal<Local, Bits<8>>,
    placed: Signal<Local, Bits<D2>>,
    pa: Signal<Local, Bits<D2>>,
    pb: Signal<Local, Bits<D2>>,
    c_hdr_round: Constant<Bits<32>>,
    /// The ring from word `rp` on (the accumulator form), or from the first word of `rp`'s
    /// group of four (the ring form: an 8-way select of the 608 bits read, where a 32-way one
    /// of 512 was W = 64's fan-out from `rp`); the next `rp`, and in binary.
    rd: Signal<Local, Bits<D2>>,
    /// `rp`'s group (bit `g`: a word of `4g..4g + 4`) and its word in the group, one-hot.
    rp_grp: Signal<Local, Bits<8>>,
    fine: Signal<Local, Bits<4>>,
    /// The ring's rotations by `4g` words (`128g` right, `D2 − 128g` left).
    c_grot_r: [Constant<Bits<16>>; 8],
    c_grot_l: [Constant<Bits<16>>; 8],
    c_one4: Constant<Bits<4>>,
    /// `rp`'s words of group `g` (`4g..4g + 4`) and its words `f` in a group (`4g + f`), and the
    /// one-hot bits they set.
    c_grp_mask: [Constant<Bits<32>>; 8],
    c_grp_bit: [Constant<Bits<8>>; 8],
    c_fine_mask: [Constant<Bits<32>>; 4],
    c_fine_bit: [Constant<Bits<4>>; 4],
    rp_nx: Signal<Local, Bits<32>>,
    rp_bin: Signal<Local, Bits<8>>,
    /// The input beat and its `K` octets' mask, rotated to `wp` (shifted by `wp mod K`, the
    /// halves swapped when `wp ≥ K`).
    wsh: Signal<Local, Bits<D2>>,
    wm: Signal<Local, Bits<D2>>,
    w_lo: Signal<Local, Bits<16>>,
    c_ones_d: Constant<Bits<D>>,
    c_k_lo: Constant<Bits<8>>,
    c_rp_mask: Constant<Bits<32>>,
    c_one32: Constant<Bits<32>>,
    /// The ring's shifts by `j` words (`32j` right), `2N − j`, `4j`, `D`.
    c_rot_r: [Constant<Bits<16>>; 32],
    c_rp_back: [Constant<Bits<8>>; E_MAX],
    c_4j_ring: [Constant<Bits<8>>; 32],
    c_d16: Constant<Bits<16>>,
    mpos_next: Signal<Local, Bits<7>>,
    c_nx: Signal<Local, Bits<8>>,
    r_nx: Signal<Local, Bits<16>>,
    c_j8: [Constant<Bits<8>>; E_MAX],
    c_4j: [Constant<Bits<8>>; E_MAX],
    c_j16: [Constant<Bits<16>>; E_MAX],
    c_j7: [Constant<Bits<7>>; E_MAX],
    /// `j = 1` and `j = 2`: the start's word count is `1 + hw`.
    c_is1: [Constant<Bit>; E_MAX],
    c_is2: [Constant<Bit>; E_MAX],
    c_n7_hi: Constant<Bits<7>>,
    c_k: Constant<Bits<8>>,
    /// `2K − 1`: `wp`'s range.
    c_place_mask: Constant<Bits<8>>,
    c_ptr_lo: Constant<Bits<8>>,
    c_byte_d: Constant<Bits<D>>,
    c_zero7: Constant<Bits<7>>,
    c_two: Constant<Bits<8>>,
    c_six: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize, const D2: usize> Default for Aligner<D, K, D2> {
    fn default() -> Self {
        assert!(
            (8..=64).contains(&K) && K.is_power_of_two() && D == 8 * K && D2 == 2 * D,
            "Aligner<8K, K, 16K> with K a power of 2 in 8..=64"
        );
        let n = K / 4;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_markers: Default::default(),
            cfg_offset: Default::default(),
            cfg_mulpdu: Default::default(),
            s: Default::default(),
            s_count: Default::default(),
            s_up: Default::default(),
            b: Default::default(),
            b_nt: Default::default(),
            b_xw: Default::default(),
            b_fine: Default::default(),
            rp_grp: Default::default(),
            fine: Default::default(),
            c_grot_r: std::array::from_fn(|g| Constant::new(((128 * g) as u64).into())),
            c_grot_l: std::array::from_fn(|g| Constant::new(((D2 - 128 * g.min(D2 / 128)) as u64).into())),
            c_one4: Constant::new(1u64.into()),
            c_grp_mask: std::array::from_fn(|g| Constant::new((0xFu64 << (4 * g)).into())),
            c_grp_bit: std::array::from_fn(|g| Constant::new((1u64 << g).into())),
            c_fine_mask: std::array::from_fn(|f| Constant::new((0x1111_1111u64 << f).into())),
            c_fine_bit: std::array::from_fn(|f| Constant::new((1u64 << f).into())),
            nt: Default::default(),
            c_one18: Constant::new(1u64.into()),
            idle: Default::default(),
            ring: Default::default(),
            rp: Default::default(),
            wp: Default::default(),
            c: Default::default(),
            woff: Default::default(),
            e_q: Default::default(),
            mpos: Default::default(),
            mk_q: Default::default(),
            hw_q: Default::default(),
            r: Default::default(),
            rge: Default::default(),
            mpl: Default::default(),
            cw: Default::default(),
            st: Default::default(),
            hh_q: Default::default(),
            c_ge: Default::default(),
            r_is: Default::default(),
            mp_lt: Default::default(),
            ge: Default::default(),
            oh: Default::default(),
            toh: Default::default(),
            tge: Default::default(),
            r_c: Default::default(),
            mp_c: Default::default(),
            c_c: Default::default(),
            ca_c: Default::default(),
            mk_c: Default::default(),
            hz_c: Default::default(),
            mk_nx: Default::default(),
            hw_nx: Default::default(),
            rge_w: Default::default(),
            mplt_w: Default::default(),
            rge_st: Default::default(),
            r_oh: Default::default(),
            mp_oh: Default::default(),
            len_oh: Default::default(),
            len16: Default::default(),
            c_v16: std::array::from_fn(|v| Constant::new((v as u64).into())),
            c_low40: std::array::from_fn(|k| Constant::new(crate::bits::low_ones(k).into())),
            c_low72: std::array::from_fn(|k| Constant::new(crate::bits::low_ones(k).into())),
            c_one72: Constant::new(1u64.into()),
            rge_nx: Default::default(),
            cw_in: Default::default(),
            cw_nx: Default::default(),
            cw_up: Default::default(),
            up_w: Default::default(),
            c_up_at: std::array::from_fn(|b| Constant::new(((E_MAX * b) as u64).into())),
            c_cw_mask: Constant::new(crate::bits::low_ones(K / 2 + 1).into()),
            c_one64: Constant::new(1u64.into()),
            c_three8: Constant::new(3u64.into()),
            c_four8: Constant::new(4u64.into()),
            mpl_nx: Default::default(),
            c_k16: std::array::from_fn(|k| Constant::new((k as u64).into())),
            c_k7: std::array::from_fn(|k| Constant::new((k as u64).into())),
            c_wrap7: std::array::from_fn(|k| Constant::new(((MARKER_INTERVAL / MARKER_LEN as u64 - k as u64) & 0x7F).into())),
            c_wrap_n: Constant::new((MARKER_INTERVAL / MARKER_LEN as u64 - n as u64).into()),
            off_w: Default::default(),
            c_one40: Constant::new(1u64.into()),
            c_two18: Constant::new(2u64.into()),
            adv: Default::default(),
            at_start: Default::default(),
            hdr_whole: Default::default(),
            half: Default::default(),
            c_le_k: Default::default(),
            e: Default::default(),
            full: Default::default(),
            mk_in: Default::default(),
            last: Default::default(),
            woff_now: Default::default(),
            hdr_word: Default::default(),
            len: Default::default(),
            r_start: Default::default(),
            len_bad: Default::default(),
            wl: Default::default(),
            rsw: Default::default(),
            rs18: Default::default(),
            wl16: Default::default(),
            c_byte18: Constant::new(0xFFu64.into()),
            // ⌈(HEADER_LEN + len) / 4⌉ = (len + HEADER_LEN + 3) >> 2 words of header, ULPDU and PAD.
            c_hdr_round18: Constant::new(((HEADER_LEN + 3) as u64).into()),
            rsth: Default::default(),
            wlo: Default::default(),
            whi: Default::default(),
            c_ge_tab: std::array::from_fn(|j| {
                let t = (4 * j).saturating_sub(HEADER_LEN + 3);
                Constant::new((crate::bits::low_ones(K) & !crate::bits::low_ones(t)).into())
            }),
            c_lo16: Constant::new(((K - 1) as u64).into()),
            c_one_k: Constant::new(1u64.into()),
            lb: Default::default(),
            mbw: Default::default(),
            wsel: Default::default(),
            hsel: Default::default(),
            lead_bad: Default::default(),
            room: Default::default(),
            accept: Default::default(),
            in_data: Default::default(),
            c_ring: Constant::new(K >= 32),
            place: Default::default(),
            placed: Default::default(),
            pa: Default::default(),
            pb: Default::default(),
            c_hdr_round: Constant::new(((HEADER_LEN + 3) as u64).into()),
            rd: Default::default(),
            rp_nx: Default::default(),
            rp_bin: Default::default(),
            wsh: Default::default(),
            wm: Default::default(),
            w_lo: Default::default(),
            c_ones_d: Constant::new(Bits::<D>::mask()),
            c_k_lo: Constant::new(((K - 1) as u64).into()),
            c_rp_mask: Constant::new(crate::bits::low_ones(K / 2).into()),
            c_one32: Constant::new(1u64.into()),
            c_rot_r: std::array::from_fn(|j| Constant::new(((32 * j) as u64).into())),
            c_rp_back: std::array::from_fn(|j| Constant::new(((K / 2).saturating_sub(j) as u64).into())),
            c_4j_ring: std::array::from_fn(|j| Constant::new(((4 * j) as u64 & 0xFF).into())),
            c_d16: Constant::new((D as u64).into()),
            mpos_next: Default::default(),
            c_nx: Default::default(),
            r_nx: Default::default(),
            c_j8: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_4j: std::array::from_fn(|j| Constant::new((4 * j as u64).into())),
            // `K + 4j` (≤ 128 for these `j` and `K ≤ 64`; the entries past `N` are unread by
            // logic, and wrap harmlessly at `K = 64`).
            c_j16: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_j7: std::array::from_fn(|j| Constant::new((j as u64).into())),
            c_is1: std::array::from_fn(|j| Constant::new(j == 1)),
            c_is2: std::array::from_fn(|j| Constant::new(j == 2)),
            // `mpos < N`: no bit at or above log2(N).
            c_n7_hi: Constant::new(((0x7F & !(n - 1)) as u64).into()),
            c_k: Constant::new((K as u64).into()),
            c_place_mask: Constant::new(((2 * K - 1) as u64).into()),
            c_ptr_lo: Constant::new(0xFCu64.into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_zero7: Constant::new(0u64.into()),
            c_two: Constant::new(2u64.into()),
            c_six: Constant::new(6u64.into()),
        }
    }
}

impl<const D: usize, const K: usize, const D2: usize> Logic for Aligner<D, K, D2> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ring, rp, wp, c, woff, e_q, mpos, mk_q, hw_q, r, rge, mpl, cw, st, hh_q);
        self.idle.next = (self.c.q.val() == 0) & self.st.q.val();
        self.adv.next = self.b.ready.val();
        self.at_start.next = self.st.q.val();

        // The input beat with the octets past tkeep zeroed.
        self.in_data.next = self.s.tdata.val();
        for i in 0..K {
            if self.s.tlast.val() & !self.s.tkeep.val().get_bit(i) {
                self.in_data.next =
                    self.in_data.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }

        // Every entry driven (rust-hdl's Verilog generator rejects an undriven Local) and read
        // (Verilator's lint flags an unread one): the entries past `N` (`ge`: past `N + 1`) stay
        // these constants, so the loops below that run to `E_MAX` cost no logic for them.
        for j in 0..E_MAX {
            self.c_ge[j].next = false;
            self.r_is[j].next = false;
            self.mp_lt[j].next = false;
            self.oh[j].next = false;
            self.toh[j].next = false;
            self.r_c[j].next = 0.into();
            self.mp_c[j].next = 0.into();
            self.c_c[j].next = 0.into();
            self.ca_c[j].next = 0.into();
            self.mk_c[j].next = false;
            self.hz_c[j].next = false;
        }
        for j in 0..(E_MAX + 1) {
            self.ge[j].next = false;
        }

        // Thermometers, from registers: `c ≥ 4j`, `r = j`, `r ≥ j`, `mpos < j`.
        self.c_ge[0].next = true;
        self.mp_lt[0].next = false;
        for j in 0..(K / 4 + 1) {
            self.r_is[j].next = self.rge.q.val().get_bit(j) & !self.rge.q.val().get_bit(j + 1);
            self.r_c[j].next = self.r.q.val() - self.c_j16[j].val();
            self.mp_c[j].next = self.mpos.q.val() - self.c_j7[j].val();
            self.c_c[j].next = self.c.q.val() - self.c_4j[j].val();
            self.ca_c[j].next = self.c.q.val() - self.c_4j[j].val() + self.s_count.val();
            self.mk_c[j].next = (self.mp_c[j].val() & self.c_n7_hi.val()) == 0;
            self.hz_c[j].next = self.mpos.q.val() == self.c_j7[j].val();
        }
        for j in 1..(K / 4 + 1) {
            self.c_ge[j].next = self.cw.q.val().get_bit(j);
            self.mp_lt[j].next = self.mpl.q.val().get_bit(j);
        }

        // The start: the header word, behind a leading Marker, once it is whole — or once its
        // first field is in and bad (`hh_q`, registered a clock ago).
        self.hdr_whole.next = self.c_ge[1].val();
        if self.hw_q.q.val() {
            self.hdr_whole.next = self.c_ge[2].val();
        }
        self.half.next = self.at_start.val() & !self.hdr_whole.val() & self.hh_q.q.val() & self.adv.val();

        // `e ≥ j`: as many words held, and the FPDU has `j` words left (counting a Marker in
        // the window, which belongs to it when one of its words follows: `mpos < r`).
        for j in 1..E_MAX {
            self.ge[j].next = self.c_ge[j].val()
                & (self.rge.q.val().get_bit(j) | (self.r_is[j - 1].val() & self.mk_q.q.val() & self.mp_lt[j - 1].val()));
            if self.at_start.val() {
                self.ge[j].next = (self.hdr_whole.val() | self.hh_q.q.val())
                    & (self.c_is1[j].val() | (self.c_is2[j].val() & self.hw_q.q.val()));
            }
            if !self.adv.val() {
                self.ge[j].next = false;
            }
        }
        self.e.next = 0.into();
        self.ge[0].next = self.c_ge[0].val(); // true: `c ≥ 0`
        self.oh[0].next = self.ge[0].val() & !self.ge[1].val();
        for j in 1..E_MAX {
            self.oh[j].next = self.ge[j].val() & !self.ge[j + 1].val();
            if self.oh[j].val() {
                self.e.next = self.e.val() | self.c_j8[j].val();
            }
        }
        // A whole beat goes out (`e = N`).
        self.full.next = false;
        for j in (K / 4)..(K / 4 + 1) {
            self.full.next = self.oh[j].val();
        }
        // A Marker among the words going out; the FPDU words they take (`e` less the Marker).
        self.mk_in.next = false;
        for j in 1..E_MAX {
            if self.oh[j].val() & self.mk_q.q.val() & self.mp_lt[j].val() {
                self.mk_in.next = true;
            }
        }
        for j in 0..(K / 4) {
            self.toh[j].next = (self.oh[j].val() & !self.mk_in.val()) | (self.oh[j + 1].val() & self.mk_in.val());
        }
        for j in (K / 4)..(K / 4 + 1) {
            self.toh[j].next = self.oh[j].val() & !self.mk_in.val();
        }
        // The ring form (W = 64): the FPDU words taken, `e − mk_in`, one-hot from `tge`: `mk_in`
        // is `mpos < e` (with a Marker in the window), so `e − mk_in ≥ j` is `e ≥ j + 1`, or `e ≥
        // j` and not `mpos < j`. From `ge`, not through `mk_in`'s OR of every lane (stop 69:
        // that OR and the select behind it sat in the word-count loop, `ge` → `oh` → `mk_in` →
        // `toh` → `r`, W = 64's next path at 848fe76). Past `N` both terms are false. W = 8
        // keeps the select behind `mk_in` (its paths are not in the aligner; with `tge` its
        // median moved 156.27 → 154.49 MHz by placement, stop 69).
        for j in 0..(E_MAX + 1) {
            self.tge[j].next = false;
        }
        if self.c_ring.val() {
            for j in 0..E_MAX {
                self.tge[j].next =
                    self.ge[j + 1].val() | (self.ge[j].val() & !(self.mk_q.q.val() & self.mp_lt[j].val()));
            }
            for j in 0..E_MAX {
                self.toh[j].next = self.tge[j].val() & !self.tge[j + 1].val();
            }
        }
        // The FPDU's last beat: its words are all that is left.
        self.last.next = false;
        for j in 1..E_MAX {
            if self.toh[j].val() & self.r_is[j].val() {
                self.last.next = !self.at_start.val();
            }
        }

        // The held octets from the first word of `rp`'s group on: the ring rotated by that
        // group (one-hot, an AND-OR of constant rotations); the receiver rotates by the word in
        // the group (`fine`) behind the skid buffer.
        self.rp_grp.next = 0.into();
        self.fine.next = 0.into();
        for g in 0..8 {
            if (self.rp.q.val() & self.c_grp_mask[g].val()) != 0 {
                self.rp_grp.next = self.rp_grp.val() | self.c_grp_bit[g].val();
            }
        }
        for f in 0..4 {
            if (self.rp.q.val() & self.c_fine_mask[f].val()) != 0 {
                self.fine.next = self.fine.val() | self.c_fine_bit[f].val();
            }
        }
        self.rd.next = 0.into();
        if self.rp_grp.val().get_bit(0) {
            self.rd.next = self.ring.q.val();
        }
        for g in 1..8 {
            if self.rp_grp.val().get_bit(g) {
                self.rd.next = self.rd.val()
                    | (self.ring.q.val() >> self.c_grot_r[g].val())
                    | (self.ring.q.val() << self.c_grot_l[g].val());
            }
        }
        self.b_xw.next = bit_cast::<96, D2>(self.rd.val() >> self.c_d16.val());
        self.b_fine.next = self.fine.val();
        if !self.c_ring.val() {
            // The accumulator: the first held octet is octet 0.
            self.rd.next = self.ring.q.val();
            self.b_xw.next = 0.into();
            self.b_fine.next = self.c_one4.val();
        }

        // The header's length (big-endian, octets 0–1 of its word) and the words it leaves after
        // the header word: `⌈(2 + len)/4⌉`.
        self.hdr_word.next = self.rd.val().get_bits::<16>(0);
        if self.hw_q.q.val() {
            self.hdr_word.next = self.rd.val().get_bits::<16>(32);
        }
        self.len.next = (bit_cast::<32, 8>(self.hdr_word.val().get_bits::<8>(0)) << 8)
            | bit_cast::<32, 8>(self.hdr_word.val().get_bits::<8>(8));
        // The first field bad (judged for the next clock): a length of 0 or over MULPDU once its
        // two octets are in, or a leading Marker whose FPDUPTR is not 0.
        self.len16.next = bit_cast::<16, 32>(self.len.val());
        self.mbw.next = 0.into();
        for j in 0..(K / 2) {
            self.wsel.next = self.ring.q.val() >> self.c_rot_r[j].val();
            if (self.wsel.val().get_bits::<8>(16) != 0) | ((self.wsel.val().get_bits::<8>(24) & self.c_ptr_lo.val()) != 0) {
                self.mbw.next = self.mbw.val() | (self.c_one32.val() << j.to_bits::<8>());
            }
            self.wl[j].next = ((bit_cast::<18, D2>(self.wsel.val()) & self.c_byte18.val()) << 8)
                | ((bit_cast::<18, D2>(self.wsel.val()) >> 8) & self.c_byte18.val());
            self.wl16[j].next = (bit_cast::<16, D2>(self.wsel.val()) << 8) | (bit_cast::<16, D2>(self.wsel.val()) >> 8);
        }
        for j in (K / 2)..32 {
            self.wl[j].next = 0.into();
            self.wl16[j].next = 0.into();
        }
        self.lb.next = 0.into();
        for j in 0..32 {
            if (self.wl16[j].val() == 0) | (self.wl16[j].val() > self.cfg_mulpdu.val()) {
                self.lb.next = self.lb.val() | (self.c_one32.val() << j.to_bits::<8>());
            }
        }
        self.hsel.next = self.rp.q.val();
        if self.hw_q.q.val() {
            self.hsel.next = ((self.rp.q.val() << 1) | (self.rp.q.val() >> self.c_rp_back[1].val())) & self.c_rp_mask.val();
        }
        self.len_bad.next = (self.lb.val() & self.hsel.val()) != 0;
        if !self.c_ring.val() {
            self.len_bad.next = (self.len16.val() == 0) | (self.len16.val() > self.cfg_mulpdu.val());
        }
        // The words after the header word likewise, for every ring word, then picked (stop 67:
        // the rotation → `+ 5` → `r` was W = 8's next path, 155.93 MHz).
        self.rs18.next = 0.into();
        for j in 0..32 {
            self.rsw[j].next = (self.wl[j].val() + self.c_hdr_round18.val()) >> 2;
            if self.hsel.val().get_bit(j) {
                self.rs18.next = self.rs18.val() | self.rsw[j].val();
            }
        }
        self.r_start.next = bit_cast::<16, 18>(self.rs18.val());
        if !self.c_ring.val() {
            self.r_start.next = bit_cast::<16, 32>((self.len.val() + self.c_hdr_round.val()) >> 2);
        }
        self.lead_bad.next = self.hw_q.q.val() & self.c_ge[1].val() & ((self.mbw.val() & self.rp.q.val()) != 0);
        if !self.c_ring.val() {
            self.lead_bad.next = self.hw_q.q.val()
                & self.c_ge[1].val()
                & ((self.rd.val().get_bits::<8>(16) != 0)
                    | ((self.rd.val().get_bits::<8>(24) & self.c_ptr_lo.val()) != 0));
        }
        self.hh_q.d.next = false;
        if self.at_start.val() {
            if self.hw_q.q.val() {
                self.hh_q.d.next = (self.len_bad.val() & (self.c.q.val() >= self.c_six.val())) | self.lead_bad.val();
            } else {
                self.hh_q.d.next = self.len_bad.val() & (self.c.q.val() >= self.c_two.val());
            }
        }

        // The input beat: taken when it fits behind what stays — always when `c ≤ K`, else
        // when a whole beat goes out. Never on a bad header's half beat (it empties the ring).
        // `c > K` is `c ≥ K + 4`, or `c ≥ K` and not a multiple of 4: one LUT of two bits of
        // `c`'s thermometer and its low two bits (stop 52 kept `c > K` in a register, `cgk`,
        // whose next value, `c + count` then `> K + 4j`, was one seed's path at 149.5 MHz).
        self.c_le_k.next = true;
        for j in (K / 4)..(K / 4 + 1) {
            if self.cw.q.val().get_bit(j + 1)
                | (self.cw.q.val().get_bit(j) & ((self.c.q.val() & self.c_three8.val()) != 0))
            {
                self.c_le_k.next = false;
            }
        }
        // (No reset term, as in the check stage's ready: the input skid in front resets too.)
        self.room.next = !self.half.val() & (self.c_le_k.val() | self.full.val());
        self.s.tready.next = self.room.val();
        self.accept.next = self.room.val() & self.s.tvalid.val();
        // Written at `wp`, all `K` octets (those past the count are zeros past `c`): from `wp`
        // and the input only, so the count reaches the ring through `accept` alone, one enable.
        // `K` octets from `wp` never hold a word still held after this clock: `c ≤ K`, or
        // `c > K` and a whole beat goes out (the octets past `2K` land in it).
        self.place.next = 0.into();
        self.placed.next = 0.into();
        self.pa.next = 0.into();
        self.pb.next = 0.into();
        self.w_lo.next = bit_cast::<16, 8>(self.wp.q.val() & self.c_k_lo.val()) << 3;
        self.wsh.next = bit_cast::<D2, D>(self.in_data.val()) << self.w_lo.val();
        self.wm.next = bit_cast::<D2, D>(self.c_ones_d.val()) << self.w_lo.val();
        if (self.wp.q.val() & self.c_k.val()) != 0 {
            self.wsh.next = (self.wsh.val() << self.c_d16.val()) | (self.wsh.val() >> self.c_d16.val());
            self.wm.next = (self.wm.val() << self.c_d16.val()) | (self.wm.val() >> self.c_d16.val());
        }
        self.ring.d.next = self.ring.q.val();
        self.wp.d.next = self.wp.q.val();
        if self.accept.val() {
            self.ring.d.next = (self.ring.q.val() & !self.wm.val()) | (self.wsh.val() & self.wm.val());
            self.wp.d.next = (self.wp.q.val() + self.s_count.val()) & self.c_place_mask.val();
        }
        if !self.c_ring.val() {
            // The accumulator: placed at `c` before the shift, or at `c − K` after it (`c − K`
            // is `c ⊕ K` mod 2K: no subtraction, which yosys shared with `c − 4j` and put in
            // front of the placement's shifter, stop 52), then shifted down by `e` words.
            self.place.next = self.c.q.val();
            if !self.c_le_k.val() {
                self.place.next = self.c.q.val() ^ self.c_k.val();
            }
            self.placed.next =
                bit_cast::<D2, D>(self.in_data.val()) << (bit_cast::<16, 8>(self.place.val() & self.c_place_mask.val()) << 3);
            if self.s.tvalid.val() & self.c_le_k.val() & !self.half.val() {
                self.pa.next = self.placed.val();
            }
            if self.accept.val() & !self.c_le_k.val() {
                self.pb.next = self.placed.val();
            }
            self.ring.d.next = ((self.ring.q.val() | self.pa.val()) >> (bit_cast::<16, 8>(self.e.val()) << 5)) | self.pb.val();
        }

        // The next state, picked from the candidates by the word count.
        // (ORed in Locals: rust-hdl's simulator does not read back a DFF input assigned in the
        // same update, Verilog does.)
        self.c_nx.next = 0.into();
        self.mpos_next.next = 0.into();
        self.mk_nx.next = false;
        self.hw_nx.next = false;
        self.r_nx.next = 0.into();
        for j in 0..E_MAX {
            if self.oh[j].val() {
                self.mpos_next.next = self.mpos_next.val() | self.mp_c[j].val();
                self.mk_nx.next = self.mk_nx.val() | self.mk_c[j].val();
                self.hw_nx.next = self.hw_nx.val() | self.hz_c[j].val();
                if self.accept.val() {
                    self.c_nx.next = self.c_nx.val() | self.ca_c[j].val();
                } else {
                    self.c_nx.next = self.c_nx.val() | self.c_c[j].val();
                }
            }
            if self.toh[j].val() {
                self.r_nx.next = self.r_nx.val() | self.r_c[j].val();
            }
        }
        // The read word moves by the words out (`rp` rotated by `e`).
        self.rp_nx.next = 0.into();
        if self.oh[0].val() {
            self.rp_nx.next = self.rp.q.val();
        }
        for j in 1..(K / 4 + 1) {
            if self.oh[j].val() {
                self.rp_nx.next = self.rp_nx.val()
                    | (((self.rp.q.val() << j.to_bits::<8>()) | (self.rp.q.val() >> self.c_rp_back[j].val()))
                        & self.c_rp_mask.val());
            }
        }
        self.rp.d.next = self.rp_nx.val();
        // The thermometers of the next `r` and `mpos`: today's, wide, shifted by the count
        // (`r − e' ≥ j` is `r ≥ j + e'`; `mpos − e < j` is `e ≤ mpos < e + j`, no wrap for
        // these small `e` and `j`), or at a start the header's `r ≥ j`.
        self.r_oh.next = 0.into();
        self.mp_oh.next = 0.into();
        for k in 0..(K / 2 + 2) {
            if self.r.q.val() == self.c_k16[k].val() {
                self.r_oh.next = self.r_oh.val() | (self.c_one40.val() << k.to_bits::<8>());
            }
            if self.mpos.q.val() == self.c_k7[k].val() {
                self.mp_oh.next = self.mp_oh.val() | (self.c_one40.val() << k.to_bits::<8>());
            }
        }
        self.rge_w.next = 0.into();
        self.mplt_w.next = 0.into();
        for k in 0..(K / 2 + 2) {
            if (self.r_oh.val() & self.c_low40[k].val()) == 0 {
                self.rge_w.next = self.rge_w.val() | (self.c_one40.val() << k.to_bits::<8>());
            }
            if (self.mp_oh.val() & self.c_low40[k].val()) != 0 {
                self.mplt_w.next = self.mplt_w.val() | (self.c_one40.val() << k.to_bits::<8>());
            }
        }
        // `⌈(2 + len)/4⌉ ≥ j` is `len ≥ 4j − 5` (`HEADER_LEN + 3 = 5`; `j ≤ 1`: always).
        self.len_oh.next = 0.into();
        for v in 0..K {
            if self.len16.val() == self.c_v16[v].val() {
                self.len_oh.next = self.len_oh.val() | (self.c_one72.val() << v.to_bits::<8>());
            }
        }
        self.rge_st.next = self.c_two18.val() | self.c_one18.val();
        for j in 2..(K / 4 + 2) {
            if (self.len_oh.val() & self.c_low72[4 * j - 5].val()) == 0 {
                self.rge_st.next = self.rge_st.val() | (self.c_one18.val() << j.to_bits::<8>());
            }
        }
        for j in 0..32 {
            self.rsth[j].next = 0.into();
        }
        if self.c_ring.val() {
            self.rge_st.next = self.c_two18.val() | self.c_one18.val();
            for j in 0..(K / 2) {
                self.wlo.next = self.wl16[j].val() & self.c_lo16.val();
                self.whi.next = (self.wl16[j].val() & !self.c_lo16.val()) != 0;
                self.rsth[j].next = self.c_two18.val() | self.c_one18.val();
                for t in 2..(K / 4 + 2) {
                    if self.whi.val() | (((self.c_ge_tab[t].val() >> self.wlo.val()) & self.c_one_k.val()) != 0) {
                        self.rsth[j].next = self.rsth[j].val() | (self.c_one18.val() << t.to_bits::<8>());
                    }
                }
            }
            // (Every entry read, as `rsw`'s: past `K/2` they are 0 and `hsel`'s bits too.)
            for j in 0..32 {
                if self.hsel.val().get_bit(j) {
                    self.rge_st.next = self.rge_st.val() | self.rsth[j].val();
                }
            }
        }
        self.rge_nx.next = 0.into();
        self.mpl_nx.next = 0.into();
        for j in 0..(K / 4 + 1) {
            if self.toh[j].val() {
                self.rge_nx.next = self.rge_nx.val() | (self.rge_w.val() >> j.to_bits::<8>());
            }
            if self.oh[j].val() & !self.mplt_w.val().get_bit(j) {
                self.mpl_nx.next = self.mpl_nx.val() | (self.mplt_w.val() >> j.to_bits::<8>());
            }
        }
        self.rge.d.next = bit_cast::<18, 40>(self.rge_nx.val());
        if self.at_start.val() & self.ge[1].val() {
            self.rge.d.next = self.rge_st.val();
        }
        // `c`'s thermometer likewise (see `cw`): the beat's carry and words shift it up, filling
        // with ones (`!(!cw << up)`), the words out shift it down.
        self.cw_up.next = (self.s_count.val() >> 2)
            + ((((self.c.q.val() & self.c_three8.val()) + (self.s_count.val() & self.c_three8.val())) & self.c_four8.val()) >> 2);
        self.cw_in.next = !((!self.cw.q.val()) << self.cw_up.val());
        // The ring form (W = 64): the same shift by a one-hot amount, picked by `c`'s low bits
        // from the input skid's registers, so no adder and no barrel shifter sit in front of
        // the pick by the words out (stop 70: `s_count` → `cw_up` → the shift → `cw` was W =
        // 64's path, 16 levels, 14.2 ns).
        self.up_w.next = 0.into();
        for b in 0..4 {
            if (self.c.q.val() & self.c_three8.val()) == self.c_j8[b].val() {
                self.up_w.next = self.up_w.val() | (self.s_up.val() >> self.c_up_at[b].val());
            }
        }
        if self.c_ring.val() {
            self.cw_in.next = 0.into();
            for u in 0..E_MAX {
                if self.up_w.val().get_bit(u) {
                    self.cw_in.next = self.cw_in.val() | !((!self.cw.q.val()) << u.to_bits::<8>());
                }
            }
        }
        self.cw_nx.next = 0.into();
        for j in 0..(K / 4 + 1) {
            if self.oh[j].val() {
                if self.accept.val() {
                    self.cw_nx.next = self.cw_nx.val() | (self.cw_in.val() >> j.to_bits::<8>());
                } else {
                    self.cw_nx.next = self.cw_nx.val() | (self.cw.q.val() >> j.to_bits::<8>());
                }
            }
        }
        self.c.d.next = self.c_nx.val();
        self.cw.d.next = self.cw_nx.val() & self.c_cw_mask.val();
        self.r.d.next = self.r_nx.val();
        // A bad header's half beat empties the ring: the next input goes to the next word read,
        // so that `c`, `rp` and `wp` agree. (Not observable: the check stage ends the stream at
        // that header. Leaving `wp` as it is passes every test.)
        self.rp_bin.next = 0.into();
        for j in 1..(K / 2) {
            if self.rp_nx.val().get_bit(j) {
                self.rp_bin.next = self.rp_bin.val() | self.c_4j_ring[j].val();
            }
        }
        if self.half.val() {
            self.c.d.next = 0.into();
            self.cw.d.next = self.c_one64.val();
            self.wp.d.next = self.rp_bin.val();
        }
        if self.at_start.val() & self.ge[1].val() {
            self.r.d.next = self.r_start.val();
        }
        self.st.d.next = self.last.val();
        if self.at_start.val() {
            self.st.d.next = !self.ge[1].val();
        }
        self.woff_now.next = self.woff.q.val() + (bit_cast::<32, 8>(self.e_q.q.val()) << 2);
        self.woff.d.next = self.woff_now.val();
        self.e_q.d.next = self.e.val();

        // The beat going out (the skid buffer behind registers it).
        // Lanes past the count hold what they hold (words not yet going out, or stale ones):
        // the stages behind read lanes below `n` only, as they did with the accumulator.
        self.b.words.next = bit_cast::<D, D2>(self.rd.val());
        self.b.n.next = self.e.val();
        self.nt.next = 0.into();
        for l in 0..(K / 4) {
            if self.ge[l + 1].val() {
                self.nt.next = self.nt.val() | (self.c_one18.val() << l.to_bits::<8>());
            }
        }
        self.b_nt.next = self.nt.val();
        self.b.first.next = self.at_start.val();
        self.b.last.next = self.last.val();
        self.b.mk.next = self.mk_in.val();
        self.b.mkl.next = bit_cast::<8, 7>(self.mpos.q.val());
        self.b.base.next = self.woff_now.val();
        self.b.valid.next = self.ge[1].val();

        self.off_w.next = bit_cast::<7, 32>(self.cfg_offset.val() >> 2);
        if self.reset.val() {
            if !self.c_ring.val() {
                self.ring.d.next = 0.into();
            }
            self.rp.d.next = self.c_one32.val();
            self.wp.d.next = 0.into();
            self.c.d.next = 0.into();
            self.cw.d.next = self.c_one64.val();
            self.woff.d.next = self.cfg_offset.val();
            self.e_q.d.next = 0.into();
            // The lane of the first Marker: (512 - offset mod 512) / 4, mod 128, i.e. `−x` for
            // `x` the offset's word mod 128. Its flags compare `x` itself, not `−x` (stop 52:
            // `cfg_offset` → the negation → `mpos < j` → `mpl` was every seed's path at
            // 149.9 MHz): `−x < j` is `x = 0 or x > 128 − j`.
            self.mpos_next.next = self.c_zero7.val() - self.off_w.val();
            self.mk_nx.next = (self.off_w.val() == self.c_zero7.val()) | (self.off_w.val() > self.c_wrap_n.val());
            self.hw_nx.next = self.off_w.val() == self.c_zero7.val();
            self.r.d.next = 0.into();
            self.rge.d.next = self.c_one18.val();
            self.mpl_nx.next = 0.into();
            // (`j = 1`: `x > 127` never holds, and Verilator's lint says so.)
            if self.off_w.val() == self.c_zero7.val() {
                self.mpl_nx.next = self.c_one40.val() << 1;
            }
            for j in 2..(K / 4 + 1) {
                if (self.off_w.val() == self.c_zero7.val()) | (self.off_w.val() > self.c_wrap7[j].val()) {
                    self.mpl_nx.next = self.mpl_nx.val() | (self.c_one40.val() << j.to_bits::<8>());
                }
            }
            self.st.d.next = true;
            self.hh_q.d.next = false;
        }
        self.mpos.d.next = self.mpos_next.val();
        self.mpl.d.next = bit_cast::<18, 40>(self.mpl_nx.val());
        self.mk_q.d.next = self.cfg_markers.val() & self.mk_nx.val();
        self.hw_q.d.next = self.cfg_markers.val() & self.hw_nx.val();
    }
}

