//! The depacketizer's beat decoder: everything about a beat that follows from its position in
//! its frame alone, worked out in front of the input skid buffer so that the frame stage starts
//! its clock from registers.
//!
//! Before this, the frame stage did it all in one clock: the frame position chose which lanes
//! were header octets, those octets decided the target, the target the write address and the
//! input's ready; and the last beat's `tkeep` set the payload count, which set the lane mask,
//! the window's fill and the MIC step (54 LUT levels at W = 8). None of the positional part
//! depends on the reassembly context, so it can run a beat ahead without any hazard with the
//! judging clock: the decoder tracks the frame position of the beats the skid buffer accepts and
//! hands each beat on with its payload shifted to lane 0 (`m.tdata`, the lanes past the
//! payload zero, so that the frame stage's window shift starts from the skid's register), its
//! payload lanes (`m.tkeep`, a thermometer: lanes `0..n`) and the fields below (`m_user`, [`INFO_BITS`] bits). Its own registers follow the
//! accepted beats, so it needs no ready of its own: `s.tready` is the skid buffer's (a
//! register) and a beat is decoded in the clock it is accepted.
//!
//! `m_user` layout (the frame stage's `info`):
//! - `[63:0]` frame octets 0..8 received so far (zero where not yet received): the SMBus prefix
//!   and the MCTP header, as the judging clock reads them;
//! - `[71:64]` the MCTP header's octet 3 (flags) so far;
//! - `[72]` the beat holds the flags octet (the header's last);
//! - `[80:73]` payload octets in the beat (after the header, before an SMBus PEC, clipped to
//!   the 256-octet packet limit);
//! - `[96:81]` frame octets through this beat, saturating at 65535: the frame's length on its
//!   last beat;
//! - `[104:97]` on a last beat, per lane `i < K`: `tkeep`'s highest lane is `i` and the PEC
//!   over the frame through it checks (the frame stage ORs them with `cfg.smbus`: the OR is
//!   not in front of the skid buffer, stop 59's `top_w8` path);
//! - `[105]` the beat holds the packet's first payload octet (lane 0 of `m.tdata`);
//! - `[108:106]` on a flags beat, the packet's key (the header's destination, source, tag and
//!   TO) equals
//!   the context's key as it is now (`[106]`), the key of the frame before this one (`[107]`)
//!   and of the frame before that (`[108]`).
//!
//! # The key match a clock ahead
//! The frame stage needs, on a packet's flags beat, whether its key matches the open context's,
//! and everything it decides on that beat (target, address, window) waits for it: compared
//! there, the 20-bit compare was at the head of MCTP RX's critical path at every width (stop
//! 55). So it is compared here, as the beat enters the skid buffer. The context may change
//! between this compare and the beat's use, but only in the judging clock of a frame ahead of
//! this beat: at most the two frames before it (the skid holds one beat besides this one, and
//! the frame stage may be judging the frame of the beat it took last clock). A context key is
//! loaded only from the judged frame's header, so the three compares cover every case: the
//! frame stage keeps how many frames it has judged since the key was loaded (0, 1, or more)
//! and picks `[107]`, `[108]` or `[106]`.

use super::crc_regs::PecCheck;
use super::MAX_PAYLOAD;
use crate::axis::{AxisSink, AxisSource};
use offload_driver::mctp::smbus::PREFIX_LEN;
use offload_driver::mctp::header::{TAG_MASK, TO_BIT};
use offload_driver::mctp::HEADER_LEN;
use rust_hdl::prelude::*;

/// Width of the decoder's side channel (its layout is in the module doc).
pub const INFO_BITS: usize = 109;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct BeatDecoder<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Frames are SMBus frames (static).
    pub smbus: Signal<In, Bit>,
    pub s: AxisSink<D, K>,
    pub m: AxisSource<D, K>,
    pub m_user: Signal<Out, Bits<INFO_BITS>>,
    /// The open context's key (the frame stage's `ctx_key`): the header's destination `[7:0]`,
    /// source `[15:8]` and the flags octet's tag and TO `[19:16]`.
    pub ctx_key: Signal<In, Bits<20>>,
    /// The keys of the last frame and the one before it, taken with their last beats.
    key1: DFF<Bits<20>>,
    key2: DFF<Bits<20>>,
    /// This beat's key so far (taken into `key1` with a frame's last beat).
    ekey: Signal<Local, Bits<20>>,
    /// The key if this beat is the flags beat of a raw frame (`_r`) or of an SMBus frame
    /// (`_s`): from `hdr` with the beat at the flags beat's place, a constant, so that the key
    /// compares do not wait for the position's selects (`e_hdr`).
    fk_r: Signal<Local, Bits<20>>,
    fk_s: Signal<Local, Bits<20>>,
    pos: DFF<Bits<16>>,
    hdr: DFF<Bits<64>>,
    hleft: DFF<Bits<8>>,
    /// Header octets in the next beat, `min(hleft, W)`: the payload's first lane.
    a_r: DFF<Bits<4>>,
    /// `a_r` as a thermometer, bit `d` = `a_r ≤ d`, loaded with it: lane `i` of the payload
    /// is the beat's lane `i + a_r`, which a last beat's `tkeep` keeps when it has a lane
    /// `j ≥ i + a_r`, and so `tkeep[j] & a_th[j − i]` for some `j`: an AND-OR of the input
    /// and a register, not a barrel shifter behind `tkeep`'s thermometer (MCTP RX W = 8's
    /// median path at a03b041: `tkeep` → the thermometer → the four-stage barrel by `a_r` →
    /// the lanes → the first-payload-octet bit → the skid, 13 levels).
    a_th: DFF<Bits<K>>,
    room: DFF<Bits<16>>,
    /// The lanes the room leaves in the next beat's payload, `i < min(room, W)`, as a
    /// thermometer: the payload lanes are masks ANDed together, with no count or compare.
    room_th: DFF<Bits<K>>,
    /// The room this beat takes if it is not the frame's last, `min(W − a_r, room)`, worked
    /// out a beat ahead: while header octets remain (`a_r ≠ 0`) no payload has been taken, so
    /// the room is whole and this is `W − a_r`; after the header it is `min(room, W)`.
    n_on: DFF<Bits<4>>,
    pec: PecCheck<D, K>,
    accept: Signal<Local, Bit>,
    hp: Signal<Local, Bits<8>>,
    k: Signal<Local, Bits<4>>,
    e_hdr: Signal<Local, Bits<64>>,
    em1: Signal<Local, Bits<8>>,
    em2: Signal<Local, Bits<8>>,
    em3: Signal<Local, Bits<8>>,
    /// `a_th` for a last beat: shifted up a lane with SMBus, so the PEC lane is not payload.
    a_th_last: Signal<Local, Bits<K>>,
    /// A last beat's payload lanes before the room clips them.
    last_th: Signal<Local, Bits<K>>,
    a_th_nx: Signal<Local, Bits<K>>,
    a_th_hp: Signal<Local, Bits<K>>,
    n_eff: Signal<Local, Bits<4>>,
    hl_next: Signal<Local, Bits<8>>,
    a_next: Signal<Local, Bits<4>>,
    /// `hleft > W`, `hleft > 2W`, `2W − hleft`.
    hl_gt1: Signal<Local, Bit>,
    hl_gt2: Signal<Local, Bit>,
    w2_less: Signal<Local, Bits<4>>,
    a_hp: Signal<Local, Bits<4>>,
    /// The room below 2W (`room_hz`: its bits from 2W up are zero) one-hot on its low bits,
    /// and `n_on` as equalities: the next room's lanes and `min(·, W)` are AND-ORs of them
    /// and constant masks (`c_th`, `c_rw`), with no subtract or compare (W = 4's path at
    /// 51a34d3 on two seeds: `room − n_on`'s carry chain, then the compares with the lanes and
    /// with W, 10 levels into `room_th`).
    room_hz: Signal<Local, Bit>,
    room_oh: Signal<Local, Bits<16>>,
    n_eq: [Signal<Local, Bit>; 9],
    room_w_next: Signal<Local, Bits<4>>,
    room_th_next: Signal<Local, Bits<K>>,
    n_on_next: Signal<Local, Bits<4>>,
    lanes: Signal<Local, Bits<K>>,
    /// `lanes` as a data mask.
    lane_mask: Signal<Local, Bits<D>>,
    /// The position after a whole beat, `pos + W` saturating, from the register alone.
    pos_full: Signal<Local, Bits<16>>,
    pos_n: Signal<Local, Bits<16>>,
    info: Signal<Local, Bits<INFO_BITS>>,
    c_lane1: [Constant<Bits<4>>; K],
    c_bit: [Constant<Bits<K>>; K],
    /// Lane `W − 1 − i`.
    c_bit_rev: [Constant<Bits<K>>; K],
    /// Lanes `i` and `i + 1`: a thermometer of `i + 1` lanes has the first, not the second.
    c_edge: [Constant<Bits<K>>; K],
    c_lane5: [Constant<Bits<5>>; K],
    /// `v` and `1 << v` for `v < 16`, bit `b` of four.
    c_v16: [Constant<Bits<16>>; 16],
    c_bit16: [Constant<Bits<16>>; 16],
    c_b4: [Constant<Bits<4>>; 4],
    /// The room's bits below 2W, and from 2W up.
    c_room_lo: Constant<Bits<16>>,
    c_room_hi: Constant<Bits<16>>,
    /// `[9·i + n]`: the low rooms `v` (bits of a 16-bit mask) that leave lane `i` in the next
    /// beat after `n_on = n`, `v − n > i` (and `v < n`, never reached, as all lanes: the old
    /// subtract wrapped there).
    c_th: [Constant<Bits<16>>; 72],
    /// `[4·n + b]`: the low rooms `v` for which bit `b` of `min(v − n, W)` is set (`W` for
    /// `v < n`).
    c_rw: [Constant<Bits<16>>; 36],
    c_all_k: Constant<Bits<K>>,
    c_byte_mask: [Constant<Bits<D>>; K],
    c_w: Constant<Bits<8>>,
    c_w4: Constant<Bits<4>>,
    c_w_m1: Constant<Bits<4>>,
    c_2w8: Constant<Bits<8>>,
    /// 2W mod 16.
    c_2w4: Constant<Bits<4>>,
    c_hp_raw: Constant<Bits<8>>,
    c_hp_smbus: Constant<Bits<8>>,
    c_pos_max: Constant<Bits<17>>,
    c_pos_high: Constant<Bits<16>>,
    /// The bits of a position below 8 that a beat's start can have (a multiple of W).
    c_pos_lo: Constant<Bits<16>>,
    /// The flags beat's place in the frame, in bits (raw frames, SMBus frames).
    c_fsh_raw: Constant<Bits<16>>,
    c_fsh_smbus: Constant<Bits<16>>,
    /// The last position a whole beat moves on from without saturating.
    c_pos_sat: Constant<Bits<16>>,
    c_max_payload: Constant<Bits<16>>,
    c_one: Constant<Bits<INFO_BITS>>,
}

impl<const D: usize, const K: usize> Default for BeatDecoder<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "BeatDecoder<8K, K> with K in 1, 2, 4, 8");
        assert!(PREFIX_LEN + HEADER_LEN <= 8, "the SMBus prefix and MCTP header fit hdr");
        assert_eq!((PREFIX_LEN, HEADER_LEN), (4, 4), "the key octets are frame octets 1..3, or 5..7 (`fk_r`, `fk_s`)");
        // The key's top four bits are the flags octet's low four: the tag and TO, as the frame
        // stage's `ctx_key` lays them out (the tag at `[18:16]`, TO at `16 + TO_BIT`).
        assert_eq!((TAG_MASK, TO_BIT), (0x07, 3), "the flags octet's tag and TO are its low four bits");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            smbus: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_user: Default::default(),
            ctx_key: Default::default(),
            key1: Default::default(),
            key2: Default::default(),
            ekey: Default::default(),
            fk_r: Default::default(),
            fk_s: Default::default(),
            pos: Default::default(),
            hdr: Default::default(),
            hleft: Default::default(),
            a_r: Default::default(),
            a_th: Default::default(),
            room: Default::default(),
            room_th: Default::default(),
            n_on: Default::default(),
            pec: Default::default(),
            accept: Default::default(),
            hp: Default::default(),
            k: Default::default(),
            e_hdr: Default::default(),
            em1: Default::default(),
            em2: Default::default(),
            em3: Default::default(),
            a_th_last: Default::default(),
            last_th: Default::default(),
            a_th_nx: Default::default(),
            a_th_hp: Default::default(),
            hl_next: Default::default(),
            a_next: Default::default(),
            hl_gt1: Default::default(),
            hl_gt2: Default::default(),
            w2_less: Default::default(),
            a_hp: Default::default(),
            room_hz: Default::default(),
            room_oh: Default::default(),
            n_eq: Default::default(),
            room_w_next: Default::default(),
            room_th_next: Default::default(),
            n_on_next: Default::default(),
            n_eff: Default::default(),
            lanes: Default::default(),
            lane_mask: Default::default(),
            pos_full: Default::default(),
            pos_n: Default::default(),
            info: Default::default(),
            c_lane1: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_bit_rev: std::array::from_fn(|i| Constant::new((1u64 << (K - 1 - i)).into())),
            c_edge: std::array::from_fn(|i| Constant::new(((3u64 << i) & crate::bits::low_ones(K)).into())),
            c_lane5: std::array::from_fn(|i| Constant::new((i as u64).into())),
            c_v16: std::array::from_fn(|v| Constant::new((v as u64).into())),
            c_bit16: std::array::from_fn(|v| Constant::new((1u64 << v).into())),
            c_b4: std::array::from_fn(|b| Constant::new((1u64 << b).into())),
            c_room_lo: Constant::new((2 * K as u64 - 1).into()),
            c_room_hi: Constant::new((0xFFFFu64 & !(2 * K as u64 - 1)).into()),
            c_th: std::array::from_fn(|x| {
                let (i, n) = (x / 9, x % 9);
                Constant::new((0..2 * K).filter(|&v| v < n || v - n > i).fold(0u64, |m, v| m | 1 << v).into())
            }),
            c_rw: std::array::from_fn(|x| {
                let (n, b) = (x / 4, x % 4);
                let w = |v: usize| if v < n { K } else { (v - n).min(K) };
                Constant::new((0..2 * K).filter(|&v| w(v) >> b & 1 == 1).fold(0u64, |m, v| m | 1 << v).into())
            }),
            c_all_k: Constant::new(crate::bits::low_ones(K).into()),
            c_byte_mask: std::array::from_fn(|i| Constant::new(crate::bits::bytes_to_bits::<D>(&{
                let mut m = vec![0u8; K];
                m[i] = 0xFF;
                m
            }))),
            c_w: Constant::new((K as u64).into()),
            c_w4: Constant::new((K as u64).into()),
            c_w_m1: Constant::new(((K - 1) as u64).into()),
            c_2w8: Constant::new((2 * K as u64).into()),
            c_2w4: Constant::new(((2 * K as u64) % 16).into()),
            c_hp_raw: Constant::new((HEADER_LEN as u64).into()),
            c_hp_smbus: Constant::new(((PREFIX_LEN + HEADER_LEN) as u64).into()),
            c_pos_max: Constant::new(0xFFFFu64.into()),
            c_pos_high: Constant::new((0xFFFFu64 & !7).into()),
            c_pos_lo: Constant::new((7u64 & !(K as u64 - 1)).into()),
            c_fsh_raw: Constant::new((8 * ((HEADER_LEN - 1) / K * K) as u64).into()),
            c_fsh_smbus: Constant::new((8 * ((PREFIX_LEN + HEADER_LEN - 1) / K * K) as u64).into()),
            c_pos_sat: Constant::new((0xFFFFu64 - K as u64).into()),
            c_max_payload: Constant::new((MAX_PAYLOAD as u64).into()),
            c_one: Constant::new(1u64.into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for BeatDecoder<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, pos, hdr, hleft, a_r, a_th, room, room_th, n_on, key1, key2);
        clock!(self, clock, pec);
        // A plain stream stage: ready and valid pass through, the beat is decoded as it is
        // accepted.
        self.s.tready.next = self.m.tready.val();
        self.m.tvalid.next = self.s.tvalid.val();
        self.m.tlast.next = self.s.tlast.val();
        self.accept.next = self.s.tvalid.val() & self.m.tready.val();
        self.pec.reset.next = self.reset.val();
        self.pec.en.next = self.s.tvalid.val() & self.m.tready.val();
        self.pec.data.next = self.s.tdata.val();
        self.pec.keep.next = self.s.tkeep.val();
        self.pec.last.next = self.s.tlast.val();
        self.hp.next = self.c_hp_raw.val();
        if self.smbus.val() {
            self.hp.next = self.c_hp_smbus.val();
        }
        // k: octets in the beat (tkeep counts on the last beat only).
        self.k.next = self.c_w4.val();
        if self.s.tlast.val() {
            self.k.next = 0.into();
            for i in 0..K {
                if (self.s.tkeep.val() & self.c_bit[i].val()) != 0 {
                    self.k.next = self.c_lane1[i].val();
                }
            }
        }
        // Frame octets 0..8 so far, and the MCTP header's octets 1..3 among them. A beat starts
        // at a multiple of W, so only the position's bits that can be set shift the beat in (none
        // at W = 8).
        self.e_hdr.next = self.hdr.q.val();
        if (self.pos.q.val() & self.c_pos_high.val()) == 0 {
            self.e_hdr.next = self.hdr.q.val()
                | (bit_cast::<64, D>(self.s.tdata.val())
                    << (bit_cast::<16, 16>(self.pos.q.val() & self.c_pos_lo.val()) << 3));
        }
        self.em1.next = self.e_hdr.val().get_bits::<8>(8);
        self.em2.next = self.e_hdr.val().get_bits::<8>(16);
        self.em3.next = self.e_hdr.val().get_bits::<8>(24);
        if self.smbus.val() {
            self.em1.next = self.e_hdr.val().get_bits::<8>(40);
            self.em2.next = self.e_hdr.val().get_bits::<8>(48);
            self.em3.next = self.e_hdr.val().get_bits::<8>(56);
        }
        // Payload lanes [a, kk): after the header, before the PEC on the last beat, clipped to
        // the packet limit (room), shifted down to lane 0, as thermometers from registers and
        // `tkeep` with no count or shifter behind `tkeep` (`a_th`'s doc). A beat that is not
        // the frame's last has lanes `0..W − a_r` (`a_th` reversed); a last beat's payload lane
        // `i` needs a kept lane `j ≥ i + a_r`, or `j ≥ i + a_r + 1` with SMBus (the PEC's lane
        // is not payload: `a_th` shifted up a lane). A non-contiguous `tkeep` counts as its
        // hull, as everywhere. Then ANDed with the room's lanes (a register).
        self.a_th_last.next = self.a_th.q.val();
        if self.smbus.val() {
            self.a_th_last.next = self.a_th.q.val() << 1;
        }
        self.last_th.next = 0.into();
        self.lanes.next = 0.into();
        for d in 0..K {
            if (self.a_th_last.val() & self.c_bit[d].val()) != 0 {
                self.last_th.next = self.last_th.val() | (self.s.tkeep.val() >> self.c_lane5[d].val());
            }
            if (self.a_th.q.val() & self.c_bit_rev[d].val()) != 0 {
                self.lanes.next = self.lanes.val() | self.c_bit[d].val();
            }
        }
        if self.s.tlast.val() {
            self.lanes.next = self.last_th.val();
        }
        self.lanes.next = self.lanes.val() & self.room_th.q.val();
        // The count, for the side channel: `i + 1` where lane `i` is the thermometer's top.
        self.n_eff.next = 0.into();
        self.lane_mask.next = 0.into();
        for i in 0..K {
            if (self.lanes.val() & self.c_edge[i].val()) == self.c_bit[i].val() {
                self.n_eff.next = self.n_eff.val() | self.c_lane1[i].val();
            }
            if (self.lanes.val() & self.c_bit[i].val()) != 0 {
                self.lane_mask.next = self.lane_mask.val() | self.c_byte_mask[i].val();
            }
        }
        // (a = W only when no payload is in the beat: the shift wraps to 0 then.)
        self.m.tdata.next = (self.s.tdata.val() >> (bit_cast::<16, 4>(self.a_r.q.val() & self.c_w_m1.val()) << 3))
            & self.lane_mask.val();
        self.m.tkeep.next = self.lanes.val();
        // Frame octets through this beat, `pos + k` saturating. A beat starts at a multiple of W
        // (or at the saturated 65535), so with fewer than W octets the sum has no carry and is
        // an OR; a whole beat's sum comes from the register alone. No carry chain behind `tkeep`
        // (MCTP RX W = 8's critical path on every seed at stop 58's first output register:
        // `tkeep` → `k` → `pos + k` and its saturation → the skid's side channel).
        self.pos_full.next = self.pos.q.val() + bit_cast::<16, 8>(self.c_w.val());
        if self.pos.q.val() > self.c_pos_sat.val() {
            self.pos_full.next = self.c_pos_max.val().get_bits::<16>(0);
        }
        // (A whole beat, `k = W`, read from `tlast` and `tkeep`'s top lane, not from `k`: the
        // priority chain that forms `k` stays off the select of all sixteen bits.)
        self.pos_n.next = self.pos.q.val() | bit_cast::<16, 4>(self.k.val());
        if !self.s.tlast.val() {
            self.pos_n.next = self.pos_full.val();
        }
        for i in (K - 1)..K {
            if (self.s.tkeep.val() & self.c_bit[i].val()) != 0 {
                self.pos_n.next = self.pos_full.val();
            }
        }

        self.info.next = bit_cast::<INFO_BITS, 64>(self.e_hdr.val())
            | (bit_cast::<INFO_BITS, 8>(self.em3.val()) << 64)
            | (bit_cast::<INFO_BITS, 4>(self.n_eff.val()) << 73)
            | (bit_cast::<INFO_BITS, 16>(self.pos_n.val()) << 81);
        // The flags octet is the header's last: in this beat when 0 < hleft <= W.
        if (self.hleft.q.val() != 0) & (self.hleft.q.val() <= self.c_w.val()) {
            self.info.next = self.info.val() | (self.c_one.val() << 72);
        }
        self.info.next = self.info.val() | (bit_cast::<INFO_BITS, K>(self.pec.hits.val()) << 97);
        // (The lanes are a thermometer from lane 0: there is payload when lane 0 is.)
        if (self.room.q.val() == self.c_max_payload.val()) & ((self.lanes.val() & self.c_bit[0].val()) != 0) {
            self.info.next = self.info.val() | (self.c_one.val() << 105);
        }
        // The key match a clock ahead (module doc). It is read on flags beats only, so the key
        // is taken from where a flags beat has it, for either binding, and the binding picks
        // last: no position select in front of the compares.
        self.ekey.next = bit_cast::<20, 8>(self.em1.val())
            | (bit_cast::<20, 8>(self.em2.val()) << 8)
            | (bit_cast::<20, 4>(self.em3.val().get_bits::<4>(0)) << 16);
        // (Octets 1..3 of the MCTP header, after the SMBus prefix's four with `_s`.)
        self.fk_r.next =
            bit_cast::<20, 64>((self.hdr.q.val() | (bit_cast::<64, D>(self.s.tdata.val()) << self.c_fsh_raw.val())) >> 8);
        self.fk_s.next =
            bit_cast::<20, 64>((self.hdr.q.val() | (bit_cast::<64, D>(self.s.tdata.val()) << self.c_fsh_smbus.val())) >> 40);
        if self.smbus.val() {
            if self.fk_s.val() == self.ctx_key.val() {
                self.info.next = self.info.val() | (self.c_one.val() << 106);
            }
            if self.fk_s.val() == self.key1.q.val() {
                self.info.next = self.info.val() | (self.c_one.val() << 107);
            }
            if self.fk_s.val() == self.key2.q.val() {
                self.info.next = self.info.val() | (self.c_one.val() << 108);
            }
        } else {
            if self.fk_r.val() == self.ctx_key.val() {
                self.info.next = self.info.val() | (self.c_one.val() << 106);
            }
            if self.fk_r.val() == self.key1.q.val() {
                self.info.next = self.info.val() | (self.c_one.val() << 107);
            }
            if self.fk_r.val() == self.key2.q.val() {
                self.info.next = self.info.val() | (self.c_one.val() << 108);
            }
        }
        self.m_user.next = self.info.val();

        // The next beat's header octets and room, kept as `min(·, W)` beside the full counts.
        // While the room is 2W or more it stays at least W after this beat; below that it fits
        // five bits. The position and the room carry on only after a beat that is not the
        // frame's last (the last starts the next frame), so they use that beat's payload count,
        // `n_on`, registered a beat ahead, and never wait for `tkeep`.
        // Each from `hleft` and comparisons of it with W and 2W side by side, not one behind
        // another: `a_next = min(hleft − W, W)` (0 when hleft ≤ W), and the next `n_on`'s
        // header case `W − a_next = 2W − hleft` (0 when hleft ≥ 2W).
        self.hl_gt1.next = self.hleft.q.val() > self.c_w.val();
        self.hl_gt2.next = self.hleft.q.val() > self.c_2w8.val();
        self.hl_next.next = 0.into();
        if self.hl_gt1.val() {
            self.hl_next.next = self.hleft.q.val() - self.c_w.val();
        }
        self.a_next.next = self.hl_next.val().get_bits::<4>(0);
        if self.hl_gt2.val() {
            self.a_next.next = self.c_w4.val();
        }
        // (mod 16: the result is below W ≤ 8.)
        self.w2_less.next = self.c_2w4.val() - self.hleft.q.val().get_bits::<4>(0);
        self.a_hp.next = self.c_w4.val();
        if self.hp.val() <= self.c_w.val() {
            self.a_hp.next = self.hp.val().get_bits::<4>(0);
        }
        // The next room `room − n_on`: at least W while the room is 2W or more (`n_on ≤ W`),
        // so all lanes; below that a function of the room's low bits and `n_on`, looked up.
        self.room_hz.next = (self.room.q.val() & self.c_room_hi.val()) == self.c_v16[0].val();
        self.room_oh.next = 0.into();
        for v in 0..(2 * K) {
            if (self.room.q.val() & self.c_room_lo.val()) == self.c_v16[v].val() {
                self.room_oh.next = self.room_oh.val() | self.c_bit16[v].val();
            }
        }
        for n in 0..9 {
            self.n_eq[n].next = bit_cast::<16, 4>(self.n_on.q.val()) == self.c_v16[n].val();
        }
        self.room_w_next.next = self.c_w4.val();
        self.room_th_next.next = self.c_all_k.val();
        if self.room_hz.val() {
            self.room_w_next.next = 0.into();
            self.room_th_next.next = 0.into();
            // (`n` past W never happens: `n_on ≤ W`; its terms keep every `n_eq` read.)
            for n in 0..9 {
                for i in 0..K {
                    if self.n_eq[n].val() & ((self.room_oh.val() & self.c_th[i * 9 + n].val()) != 0) {
                        self.room_th_next.next = self.room_th_next.val() | self.c_bit[i].val();
                    }
                }
                for b in 0..4 {
                    if self.n_eq[n].val() & ((self.room_oh.val() & self.c_rw[n * 4 + b].val()) != 0) {
                        self.room_w_next.next = self.room_w_next.val() | self.c_b4[b].val();
                    }
                }
            }
        }
        self.a_th_nx.next = 0.into();
        self.a_th_hp.next = 0.into();
        for d in 0..K {
            if self.a_next.val() < self.c_lane1[d].val() {
                self.a_th_nx.next = self.a_th_nx.val() | self.c_bit[d].val();
            }
            if self.a_hp.val() < self.c_lane1[d].val() {
                self.a_th_hp.next = self.a_th_hp.val() | self.c_bit[d].val();
            }
        }
        // The next beat's `n_on`: header octets left in it mean the room is still whole.
        self.n_on_next.next = self.room_w_next.val();
        if self.hl_gt1.val() {
            self.n_on_next.next = self.w2_less.val();
            if self.hl_gt2.val() {
                self.n_on_next.next = 0.into();
            }
        }
        if self.accept.val() {
            self.hdr.d.next = self.e_hdr.val();
            self.pos.d.next = self.pos_full.val();
            self.hleft.d.next = self.hl_next.val();
            self.a_r.d.next = self.a_next.val();
            self.a_th.d.next = self.a_th_nx.val();
            self.room.d.next = self.room.q.val() - bit_cast::<16, 4>(self.n_on.q.val());
            self.room_th.d.next = self.room_th_next.val();
            self.n_on.d.next = self.n_on_next.val();
        }
        if self.accept.val() & self.s.tlast.val() {
            self.key1.d.next = self.ekey.val();
            self.key2.d.next = self.key1.q.val();
        }
        if self.reset.val() {
            self.key1.d.next = 0.into();
            self.key2.d.next = 0.into();
        }
        if (self.accept.val() & self.s.tlast.val()) | self.reset.val() {
            // The next frame starts.
            self.hdr.d.next = 0.into();
            self.pos.d.next = 0.into();
            self.hleft.d.next = self.hp.val();
            self.a_r.d.next = self.a_hp.val();
            self.a_th.d.next = self.a_th_hp.val();
            self.room.d.next = self.c_max_payload.val();
            self.room_th.d.next = self.c_all_k.val();
            self.n_on.d.next = self.c_w4.val() - self.a_hp.val();
        }
    }
}

