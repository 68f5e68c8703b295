//! Stage B of the MCTP packetizer: the packets. From the payload stream of stage A (message and
//! MIC, [`super::mic::MicStage`]) it builds one frame per packet,
//! `[SMBus prefix (4)] · transport header (4) · payload (≤ MTU) · [PEC lane (1)]`, every frame
//! starting in lane 0; the PEC lane is left zero and marked (`m_pec`) for the PEC
//! stage. The split is `transmit`'s: the payload cut into MTU-sized packets (the MIC may
//! straddle the last two).
//!
//! # Datapath: one gearbox, no window
//! Held payload is two slots of one input beat each, filled in turn: `avail` octets from octet
//! `rd` of the pair (`rd < 2W`, `avail < 2W`). An output beat holds `nh` header octets
//! (`min(hdr_len − hpos, W)`), then `p = min(W − nh, pkt_left)` payload octets: held's `avail`
//! octets followed, when they are too few, by the payload beat taken in that clock. So a
//! payload octet goes through three small byte shifters — the slots rotated by `rd` (from
//! registers), the new beat up by `avail` (`< W` when it is taken), and the pair up by `nh`
//! (0, 4 or `W`) — instead of a `2W + 4`-octet window that every octet is shifted into and out
//! of.
//!
//! Input is taken eagerly: whenever a slot is free (`avail < W`) and the message's stream has
//! not ended, whatever the beat needs. So the handshake (`take`, the skid buffer's and the
//! field queue's enables) is a function of registers, not of the beat's layout; until stop 83
//! a beat was taken only when `avail < p`, and that compare in front of `take` was W = 8's
//! critical path in many forms (issue 27). A beat is formed whenever the output register is
//! free or being taken and it has its payload: held holds a beat or more, or a payload beat is
//! there, or the stream has ended (the rest is zeros). At full input rate nothing waits, and
//! back-to-back messages run without a bubble (a message's first beat is formed from stage A's
//! latched fields, `e_*`, in the clock it arrives); with gaps in the input a beat that held
//! could serve may wait for the next payload beat.
//!
//! # Length errors
//! `s_len` (plus the MIC) decides the packets: stage A hands over the first packet's length,
//! whether it is the last and the octets after it (`msg.pkt0`, `eom0`, `after0`); each later
//! packet's are worked out from `after` alone, never from this beat's payload count `p`, so
//! no length arithmetic follows the beat's layout in one clock. A payload stream that ends early is
//! padded with zero octets; one that goes on past the last packet is discarded up to its
//! `tlast` (`Drain`); either way `len_errors` counts the message once, two clocks after its
//! last packet is formed. `packets` and `messages` count two clocks after a packet's last beat
//! is formed, too (from registers, not from the beat decision).

use super::MessageFields;
use crate::axis::{AxisSink, AxisSource};
use offload_driver::mctp::header::{EOM_BIT, HEADER_VERSION, SEQ_SHIFT, SOM_BIT, TO_BIT};
use offload_driver::mctp::smbus::{COMMAND_CODE, PREFIX_LEN};
use offload_driver::mctp::HEADER_LEN;
use rust_hdl::prelude::*;

/// Where the packet stage is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum PacketPhase {
    /// Between messages: stage A's beat, if any, is a message's first.
    Idle,
    /// Packets of the current message remain.
    Body,
    /// The message's packets are out; discarding the payload stream up to its `tlast`.
    Drain,
}

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct PacketStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// The payload stream (full beats, the last one partial). Its `tkeep` is not a lane mask
    /// but the beat's octet count in binary, counted in front of the skid buffer before this
    /// stage (issue 27: decoding a lane mask here ran into the held-octet arithmetic, W = 4's
    /// critical path); `K` bits hold it at every width (`K ≥ ⌊log2 K⌋ + 1`).
    pub s: AxisSink<D, K>,
    /// The beat on `s` is a message's first.
    pub s_first: Signal<In, Bit>,
    /// The fields of the message whose first beat is on `s` (read in the idle state only), and
    /// whether they are there (they are whenever a first beat is: [`super::MctpTx`]'s `fields`).
    pub msg: MessageFields,
    pub msg_valid: Signal<In, Bit>,
    /// A message's first beat is formed this clock: `msg` is done with, and the next
    /// message's fields may take its place (from registers: `take` is not in it).
    pub msg_done: Signal<Out, Bit>,
    /// One frame per packet; with `m_pec` the beat has the PEC lane (zero here): its highest
    /// kept lane (a frame's lanes are contiguous from lane 0), so the PEC stage finds the lane
    /// and the lanes before it in `tkeep` by wiring, with neither a compare nor a shift by a
    /// lane number.
    pub m: AxisSource<D, K>,
    pub m_pec: Signal<Out, Bit>,
    pub packets: Signal<Out, Bits<32>>,
    pub messages: Signal<Out, Bits<32>>,
    pub len_errors: Signal<Out, Bits<32>>,
    // Registers: the message.
    phase: DFF<PacketPhase>,
    r_src: DFF<Bits<8>>,
    r_dst: DFF<Bits<8>>,
    r_tag: DFF<Bits<3>>,
    r_to: DFF<Bit>,
    r_seq: DFF<Bits<2>>,
    r_mtu: DFF<Bits<8>>,
    r_smbus: DFF<Bit>,
    r_sa_src: DFF<Bits<7>>,
    r_sa_dst: DFF<Bits<7>>,
    som: DFF<Bit>,
    eom: DFF<Bit>,
    /// The message's octets after the current packet, the next packet's share of them
    /// (`min(after, mtu)`) and whether the next packet is the last: a packet's length is known
    /// a packet ahead, so a new packet's layout is a select, not arithmetic.
    after: DFF<Bits<17>>,
    npl: DFF<Bits<8>>,
    /// `npl` and `neom` are to be worked out from `after` this clock.
    npl_due: DFF<Bit>,
    neom: DFF<Bit>,
    pkt_left: DFF<Bits<8>>,
    hpos: DFF<Bits<8>>,
    /// The next beat's header octets (`nh` outside the idle
    /// state: registered, so the beat's layout does not wait on `hl − hpos`).
    nh_r: DFF<Bits<8>>,
    /// The next beat's payload octets `p = min(pkt_left, room)` and whether the packet's
    /// payload ends in it (`pkt_end`), worked out with the beat before (from stage A's
    /// `p0`/`pend0` for a message's first beat): the beat's layout then starts from registers.
    p_r: DFF<Bits<8>>,
    pend_r: DFF<Bit>,
    /// The next beat's header and payload octets together, `nh + p`: set with `p_r` from the
    /// sums beside the split, so the beat's payload lanes are a compare of one register (the
    /// sum `nh_r + p_r` in front of them was W = 8's longest path).
    np_r: DFF<Bits<8>>,
    /// The rest of the next beat's layout, set with the beat before like `p_r`: whether its
    /// PEC lane follows its payload (`pec_r`) and the packet's octets after it (`pl_r`); and,
    /// for the beat after it if the packet goes on, its header octets (`nhn_r`), its payload
    /// room (`rmn_r`) and the header octets after it (`restn_r`). The beat after is then a
    /// [`BeatSplit`] of two registers, not `hl − hpos − nh` and `pkt_left − p` worked out first.
    pec_r: DFF<Bit>,
    pl_r: DFF<Bits<8>>,
    nhn_r: DFF<Bits<8>>,
    rmn_r: DFF<Bits<8>>,
    restn_r: DFF<Bits<8>>,
    /// The next beat's payload split, three ways side by side: the packet going on after a
    /// beat of the message (`sp_cb`) or after its first beat (`sp_ci`, from stage A's fields),
    /// or a new packet after a beat of the message (`sp_nb`); which applies is selected last.
    /// A new packet never follows a message's first beat: a packet that is not the last holds
    /// an MTU, at least `MIN_MTU` = 64 octets, and a first beat carries at most W − 4.
    sp_cb: BeatSplit,
    sp_nb: BeatSplit,
    sp_ci: BeatSplit,
    // The gearbox: held is two slots of one input beat each (`slot0` octets `0..W`, `slot1`
    // `W..2W`), written in turn (`wsel` the next), read from octet `rd`; `avail_r` octets
    // from `rd` on are the message's (fewer than `2W`).
    slot0: DFF<Bits<D>>,
    slot1: DFF<Bits<D>>,
    wsel: DFF<Bit>,
    rd: DFF<Bits<8>>,
    avail_r: DFF<Bits<8>>,
    in_done: DFF<Bit>,
    short: DFF<Bit>,
    // The output register and counters.
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_valid: DFF<Bit>,
    o_last: DFF<Bit>,
    o_pec: DFF<Bit>,
    n_packets: DFF<Bits<32>>,
    n_messages: DFF<Bits<32>>,
    n_len_errors: DFF<Bits<32>>,
    /// A packet went out last clock: the counters count from this register, not from the beat
    /// decision (`need_in` → `emit` → the frame's end was the enable of all 32 flip-flops of
    /// `n_packets`, which sit by the register block in `OffloadTop`: its critical path).
    pkt_out: DFF<Bit>,
    /// A message ended last clock (`len_err_p`): whether it ran short or was not ended by its
    /// last beat (`len_flag`), and the octets it left over in held (`len_left`), so
    /// that the length error is judged and counted off the beat decision's path.
    len_err_p: DFF<Bit>,
    len_flag: DFF<Bit>,
    len_left: DFF<Bits<8>>,
    // Combinational temporaries.
    adv: Signal<Local, Bit>,
    idle: Signal<Local, Bit>,
    e_src: Signal<Local, Bits<8>>,
    e_dst: Signal<Local, Bits<8>>,
    e_tag: Signal<Local, Bits<3>>,
    e_to: Signal<Local, Bit>,
    e_seq: Signal<Local, Bits<2>>,
    e_mtu: Signal<Local, Bits<8>>,
    e_smbus: Signal<Local, Bit>,
    e_sa_src: Signal<Local, Bits<7>>,
    e_sa_dst: Signal<Local, Bits<7>>,
    e_som: Signal<Local, Bit>,
    e_eom: Signal<Local, Bit>,
    e_after: Signal<Local, Bits<17>>,
    e_npl: Signal<Local, Bits<8>>,
    e_neom: Signal<Local, Bit>,
    after_n: Signal<Local, Bits<17>>,
    rm_b: Signal<Local, Bits<8>>,
    e_hpos: Signal<Local, Bits<8>>,
    e_in_done: Signal<Local, Bit>,
    e_short: Signal<Local, Bit>,
    mtu17: Signal<Local, Bits<17>>,
    avail: Signal<Local, Bits<8>>,
    avail_n: Signal<Local, Bits<8>>,
    av_nt: Signal<Local, Bits<8>>,
    av_t: Signal<Local, Bits<8>>,
    pad_t0: Signal<Local, Bit>,
    sh_nt: Signal<Local, Bit>,
    sh_t: Signal<Local, Bit>,
    nh: Signal<Local, Bits<8>>,
    pkt_end: Signal<Local, Bit>,
    pec_here: Signal<Local, Bit>,
    frame_end: Signal<Local, Bit>,
    /// Held has a free slot (`avail < W`): a beat is taken if there is one.
    room: Signal<Local, Bit>,
    active: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    in_cnt: Signal<Local, Bits<8>>,
    /// `avail + in − p` (`left`) and its carry-save layer: `!p`, the sum and carry words.
    not_p: Signal<Local, Bits<8>>,
    csa_s: Signal<Local, Bits<8>>,
    csa_c: Signal<Local, Bits<8>>,
    left: Signal<Local, Bits<8>>,
    /// `in_cnt`, `avail` and `p` on their low ⌊log2 W⌋ + 1 bits.
    cnt_in: Signal<Local, Bits<8>>,
    cnt_av: Signal<Local, Bits<8>>,
    cnt_p: Signal<Local, Bits<8>>,
    pad_t: Signal<Local, Bit>,
    pad_nt: Signal<Local, Bit>,
    /// The slot `rd` is in and the other, and `rd`'s lane in it.
    first: Signal<Local, Bits<D>>,
    second: Signal<Local, Bits<D>>,
    rd_lo: Signal<Local, Bits<8>>,
    /// The lanes below `avail` (held's octets in the beat).
    av_mask: Signal<Local, Bits<D>>,
    len_err: Signal<Local, Bit>,
    buf_part: Signal<Local, Bits<D>>,
    in_part: Signal<Local, Bits<D>>,
    pay: Signal<Local, Bits<D>>,
    flags: Signal<Local, Bits<8>>,
    count: Signal<Local, Bits<8>>,
    hdr: Signal<Local, Bits<64>>,
    hdr_sh: Signal<Local, Bits<D>>,
    lanes: Signal<Local, Bits<D>>,
    keep_used: Signal<Local, Bits<K>>,
    /// Lane `nh + p` (where a PEC goes).
    pec_at: Signal<Local, Bits<K>>,
    nh_w: Signal<Local, Bits<8>>,
    np_w: Signal<Local, Bits<8>>,
    p0_w: Signal<Local, Bits<8>>,
    m_h_b: Signal<Local, Bits<K>>,
    m_p_b: Signal<Local, Bits<K>>,
    m_u_b: Signal<Local, Bits<K>>,
    m_h_0: Signal<Local, Bits<K>>,
    m_p_0: Signal<Local, Bits<K>>,
    m_h: Signal<Local, Bits<K>>,
    m_p: Signal<Local, Bits<K>>,
    rd_n: Signal<Local, Bits<8>>,
    in_done_n: Signal<Local, Bit>,
    short_n: Signal<Local, Bit>,
    /// The header octets of the beat after the next, if the packet goes on.
    nh_c: Signal<Local, Bits<8>>,
    /// The next beat's layout: packet octets left, header octets, room, payload octets and
    /// packet end; and whether the next beat starts a packet of this message.
    pl_n: Signal<Local, Bits<8>>,
    nh_n: Signal<Local, Bits<8>>,
    p_n: Signal<Local, Bits<8>>,
    pend_n: Signal<Local, Bit>,
    np_n: Signal<Local, Bits<8>>,
    new_pkt: Signal<Local, Bit>,
    /// The next beat's PEC lane and packet octets after it, and the beat after it's header
    /// octets, room and header octets after (if the packet goes on).
    pec_n: Signal<Local, Bit>,
    pl_nn: Signal<Local, Bits<8>>,
    nhn_n: Signal<Local, Bits<8>>,
    rmn_n: Signal<Local, Bits<8>>,
    restn_n: Signal<Local, Bits<8>>,
    /// The payload room of a message's second beat when its first packet goes on.
    rm_i: Signal<Local, Bits<8>>,
    // Constants.
    c_lane: [Constant<Bits<8>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_byte_d: Constant<Bits<D>>,
    c_w: Constant<Bits<8>>,
    c_lane_mask: Constant<Bits<8>>,
    /// The bits that hold a count of at most W octets: `2W − 1`.
    c_cnt_mask: Constant<Bits<8>>,
    /// `left`'s bits, `4W − 1`, and its sign bit, `2W`.
    c_left_mask: Constant<Bits<8>>,
    c_left_sign: Constant<Bits<8>>,
    c_one8: Constant<Bits<8>>,
    c_nh_mask: Constant<Bits<8>>,
    c_hpos_mask: Constant<Bits<8>>,
    c_nh0: Constant<Bits<8>>,
    c_nh0_smbus: Constant<Bits<8>>,
    /// A message's first beat's header lanes (`c_nh0` low lanes), without and with SMBus: a
    /// select of two constants by `msg.smbus`, where lane compares with the selected `nh0` were a
    /// carry chain in front of the lanes (W = 8's critical path on one seed at stop 57).
    c_mh0: Constant<Bits<K>>,
    c_mh0_smbus: Constant<Bits<K>>,
    /// A packet's first beat's payload room ([`super::first_beat_room`]), without and with
    /// SMBus. (The first beat's lanes come from stage A, `msg.keep0`.)
    c_room0: Constant<Bits<8>>,
    c_room0_smbus: Constant<Bits<8>>,
    /// A packet's second and third beats (index 1, 2): header octets, payload room, header
    /// octets after ([`super::HeaderBeats`]), without and with the SMBus prefix.
    c_nh1: Constant<Bits<8>>,
    c_rm1: Constant<Bits<8>>,
    c_rest1: Constant<Bits<8>>,
    c_nh2: Constant<Bits<8>>,
    c_rm2: Constant<Bits<8>>,
    c_rest2: Constant<Bits<8>>,
    c_nh1_smbus: Constant<Bits<8>>,
    c_rm1_smbus: Constant<Bits<8>>,
    c_rest1_smbus: Constant<Bits<8>>,
    c_nh2_smbus: Constant<Bits<8>>,
    c_rm2_smbus: Constant<Bits<8>>,
    c_rest2_smbus: Constant<Bits<8>>,
    c_count_add: Constant<Bits<8>>,
    c_mctp_fixed: Constant<Bits<64>>,
    c_smbus_fixed: Constant<Bits<64>>,
    c_som: Constant<Bits<8>>,
    c_eom: Constant<Bits<8>>,
    c_to: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize> Default for PacketStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "PacketStage<8K, K> with K in 1, 2, 4, 8");
        assert_eq!((HEADER_LEN, PREFIX_LEN, SEQ_SHIFT), (4, 4, 4), "MCTP header layout changed");
        assert!(PREFIX_LEN + HEADER_LEN >= K, "an SMBus packet's first beat holds no payload");
        assert!(offload_driver::mctp::MIN_MTU >= 2 * K, "a packet that is not the last spans two beats or more (npl_due)");
        let (hb, hs) = (super::HeaderBeats::new(K, false), super::HeaderBeats::new(K, true));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            msg: Default::default(),
            s_first: Default::default(),
            msg_valid: Default::default(),
            msg_done: Default::default(),
            m: Default::default(),
            m_pec: Default::default(),
            packets: Default::default(),
            messages: Default::default(),
            len_errors: Default::default(),
            phase: Default::default(),
            r_src: Default::default(),
            r_dst: Default::default(),
            r_tag: Default::default(),
            r_to: Default::default(),
            r_seq: Default::default(),
            r_mtu: Default::default(),
            r_smbus: Default::default(),
            r_sa_src: Default::default(),
            r_sa_dst: Default::default(),
            som: Default::default(),
            eom: Default::default(),
            after: Default::default(),
            npl: Default::default(),
            npl_due: Default::default(),
            neom: Default::default(),
            pkt_left: Default::default(),
            hpos: Default::default(),
            nh_r: Default::default(),
            p_r: Default::default(),
            pend_r: Default::default(),
            np_r: Default::default(),
            pec_r: Default::default(),
            pl_r: Default::default(),
            nhn_r: Default::default(),
            rmn_r: Default::default(),
            restn_r: Default::default(),
            sp_cb: Default::default(),
            sp_nb: Default::default(),
            sp_ci: Default::default(),
            slot0: Default::default(),
            slot1: Default::default(),
            wsel: Default::default(),
            rd: Default::default(),
            avail_r: Default::default(),
            in_done: Default::default(),
            short: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_valid: Default::default(),
            o_last: Default::default(),
            o_pec: Default::default(),
            pec_at: Default::default(),
            nh_w: Default::default(),
            np_w: Default::default(),
            p0_w: Default::default(),
            m_h_b: Default::default(),
            m_p_b: Default::default(),
            m_u_b: Default::default(),
            m_h_0: Default::default(),
            m_p_0: Default::default(),
            m_h: Default::default(),
            m_p: Default::default(),
            n_packets: Default::default(),
            n_messages: Default::default(),
            n_len_errors: Default::default(),
            pkt_out: Default::default(),
            len_err_p: Default::default(),
            len_flag: Default::default(),
            len_left: Default::default(),
            adv: Default::default(),
            idle: Default::default(),
            e_src: Default::default(),
            e_dst: Default::default(),
            e_tag: Default::default(),
            e_to: Default::default(),
            e_seq: Default::default(),
            e_mtu: Default::default(),
            e_smbus: Default::default(),
            e_sa_src: Default::default(),
            e_sa_dst: Default::default(),
            e_som: Default::default(),
            e_eom: Default::default(),
            e_after: Default::default(),
            e_npl: Default::default(),
            e_neom: Default::default(),
            after_n: Default::default(),
            rm_b: Default::default(),
            e_hpos: Default::default(),
            e_in_done: Default::default(),
            e_short: Default::default(),
            mtu17: Default::default(),
            avail: Default::default(),
            avail_n: Default::default(),
            av_nt: Default::default(),
            av_t: Default::default(),
            pad_t0: Default::default(),
            sh_nt: Default::default(),
            sh_t: Default::default(),
            nh: Default::default(),
            pkt_end: Default::default(),
            pec_here: Default::default(),
            frame_end: Default::default(),
            room: Default::default(),
            active: Default::default(),
            emit: Default::default(),
            take: Default::default(),
            in_cnt: Default::default(),
            not_p: Default::default(),
            csa_s: Default::default(),
            csa_c: Default::default(),
            left: Default::default(),
            cnt_in: Default::default(),
            cnt_av: Default::default(),
            cnt_p: Default::default(),
            pad_t: Default::default(),
            pad_nt: Default::default(),
            first: Default::default(),
            second: Default::default(),
            rd_lo: Default::default(),
            av_mask: Default::default(),
            len_err: Default::default(),
            buf_part: Default::default(),
            in_part: Default::default(),
            pay: Default::default(),
            flags: Default::default(),
            count: Default::default(),
            hdr: Default::default(),
            hdr_sh: Default::default(),
            lanes: Default::default(),
            keep_used: Default::default(),
            rd_n: Default::default(),
            in_done_n: Default::default(),
            short_n: Default::default(),
            nh_c: Default::default(),
            pec_n: Default::default(),
            pl_nn: Default::default(),
            nhn_n: Default::default(),
            rmn_n: Default::default(),
            restn_n: Default::default(),
            rm_i: Default::default(),
            c_nh1: Constant::new((hb.nh[1] as u64).into()),
            c_rm1: Constant::new((hb.rm[1] as u64).into()),
            c_rest1: Constant::new((hb.rest[1] as u64).into()),
            c_nh2: Constant::new((hb.nh[2] as u64).into()),
            c_rm2: Constant::new((hb.rm[2] as u64).into()),
            c_rest2: Constant::new((hb.rest[2] as u64).into()),
            c_nh1_smbus: Constant::new((hs.nh[1] as u64).into()),
            c_rm1_smbus: Constant::new((hs.rm[1] as u64).into()),
            c_rest1_smbus: Constant::new((hs.rest[1] as u64).into()),
            c_nh2_smbus: Constant::new((hs.nh[2] as u64).into()),
            c_rm2_smbus: Constant::new((hs.rm[2] as u64).into()),
            c_rest2_smbus: Constant::new((hs.rest[2] as u64).into()),
            pl_n: Default::default(),
            nh_n: Default::default(),
            p_n: Default::default(),
            pend_n: Default::default(),
            np_n: Default::default(),
            new_pkt: Default::default(),
            c_lane: std::array::from_fn(|i| Constant::new((i as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_w: Constant::new((K as u64).into()),
            c_lane_mask: Constant::new(((K - 1) as u64).into()),
            c_cnt_mask: super::count_mask(K),
            c_left_mask: Constant::new(((4 * K - 1) as u64).into()),
            c_left_sign: Constant::new(((2 * K) as u64).into()),
            c_one8: Constant::new(1u64.into()),
            c_nh_mask: Constant::new((((PREFIX_LEN + HEADER_LEN) % K | HEADER_LEN % K) as u64).into()),
            c_hpos_mask: Constant::new((0x0F & !(K as u64 - 1)).into()),
            c_nh0: Constant::new((hb.nh[0] as u64).into()),
            c_nh0_smbus: Constant::new((hs.nh[0] as u64).into()),
            c_mh0: Constant::new(super::first_beat_header_lanes(K, false).into()),
            c_mh0_smbus: Constant::new(super::first_beat_header_lanes(K, true).into()),
            c_room0: super::first_beat_room(K, false),
            c_room0_smbus: super::first_beat_room(K, true),
            // SMBus byte count: source octet + MCTP header + payload (DSP0237).
            c_count_add: Constant::new(((1 + HEADER_LEN) as u64).into()),
            c_mctp_fixed: Constant::new((HEADER_VERSION as u64).into()),
            // Command code in octet 1, the source address's read/write bit (1) in octet 3.
            c_smbus_fixed: Constant::new((((COMMAND_CODE as u64) << 8) | (1u64 << 24)).into()),
            c_som: Constant::new((1u64 << SOM_BIT).into()),
            c_eom: Constant::new((1u64 << EOM_BIT).into()),
            c_to: Constant::new((1u64 << TO_BIT).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PacketStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, r_src, r_dst, r_tag, r_to, r_seq, r_mtu, r_smbus, r_sa_src, r_sa_dst, som, eom,
            after, npl, npl_due, neom, pkt_left, hpos, nh_r, p_r, pend_r, np_r, pec_r, pl_r, nhn_r, rmn_r, restn_r, slot0, slot1, wsel, rd, avail_r, in_done, short, o_data, o_keep, o_valid, o_last, o_pec,
            n_packets, n_messages, n_len_errors, pkt_out, len_err_p, len_flag, len_left
        );
        self.m.tdata.next = self.o_data.q.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.m_pec.next = self.o_pec.q.val();
        self.packets.next = self.n_packets.q.val();
        self.messages.next = self.n_messages.q.val();
        self.len_errors.next = self.n_len_errors.q.val();

        self.adv.next = !self.o_valid.q.val() | self.m.tready.val();
        self.idle.next = self.phase.q.val() == PacketPhase::Idle;

        // This clock's message and packet state: stage A's fields on a message's first beat.
        self.e_src.next = self.r_src.q.val();
        self.e_dst.next = self.r_dst.q.val();
        self.e_tag.next = self.r_tag.q.val();
        self.e_to.next = self.r_to.q.val();
        self.e_seq.next = self.r_seq.q.val();
        self.e_mtu.next = self.r_mtu.q.val();
        self.e_smbus.next = self.r_smbus.q.val();
        self.e_sa_src.next = self.r_sa_src.q.val();
        self.e_sa_dst.next = self.r_sa_dst.q.val();
        self.e_som.next = self.som.q.val();
        self.e_eom.next = self.eom.q.val();
        self.e_after.next = self.after.q.val();
        self.e_npl.next = self.npl.q.val();
        self.e_neom.next = self.neom.q.val();
        self.e_hpos.next = self.hpos.q.val();
        self.e_in_done.next = self.in_done.q.val();
        self.e_short.next = self.short.q.val();
        if self.idle.val() {
            self.e_src.next = self.msg.src.val();
            self.e_dst.next = self.msg.dst.val();
            self.e_tag.next = self.msg.tag.val();
            self.e_to.next = self.msg.to.val();
            self.e_seq.next = self.msg.seq.val();
            self.e_mtu.next = self.msg.mtu.val();
            self.e_smbus.next = self.msg.smbus.val();
            self.e_sa_src.next = self.msg.sa_src.val();
            self.e_sa_dst.next = self.msg.sa_dst.val();
            self.e_som.next = true;
            self.e_eom.next = self.msg.eom0.val();
            self.e_after.next = self.msg.after0.val();
            self.e_npl.next = self.msg.npl0.val();
            self.e_neom.next = self.msg.neom0.val();
            self.e_hpos.next = 0.into();
            self.e_in_done.next = false;
            self.e_short.next = false;
        }
        // Octets left in held (0 between messages: a message's end clears them).
        self.avail.next = self.avail_r.q.val();

        // The beat's layout: header octets, payload octets, the PEC lane.
        // nh = min(hl − hpos, W), p = min(pkt_left, W − nh) and pkt_end = pkt_left ≤ W − nh:
        // from registers set with the beat before, or at a message's first beat from the
        // binding and stage A's registers (`p` is `p_r` or `msg.p0`, used apart: below).
        self.nh.next = self.nh_r.q.val();
        self.pkt_end.next = self.pend_r.q.val();
        self.pec_here.next = self.pec_r.q.val();
        if self.idle.val() {
            self.nh.next = self.c_nh0.val();
            if self.msg.smbus.val() {
                self.nh.next = self.c_nh0_smbus.val();
            }
            self.pkt_end.next = self.msg.pend0.val();
            // With SMBus a message's first beat is all prefix and header (8 octets ≥ W), so its
            // packet does not end there and the PEC lane is not in it.
            self.pec_here.next = false;
        }
        // The beat's lane masks (header lanes, header and payload lanes, all used lanes), for a
        // beat of the message (`_b`, from registers) and for its first beat (`_0`, from stage
        // A's fields) side by side, selected by the idle state last.
        self.m_h_0.next = self.c_mh0.val();
        if self.msg.smbus.val() {
            self.m_h_0.next = self.c_mh0_smbus.val();
        }
        self.m_h_b.next = 0.into();
        self.m_p_b.next = 0.into();
        self.m_u_b.next = 0.into();
        self.pec_at.next = 0.into();
        // nh and nh + p are at most W: only their low ⌊log2 W⌋ + 1 bits are compared with the
        // lane numbers (eight-bit compares were carry chains in front of the lanes). `p0` (the
        // same bits) is no longer compared with lanes: stage A sends the first beat's as `keep0`.
        self.nh_w.next = self.nh_r.q.val() & self.c_cnt_mask.val();
        self.np_w.next = self.np_r.q.val() & self.c_cnt_mask.val();
        self.p0_w.next = self.msg.p0.val() & self.c_cnt_mask.val();
        for i in 0..K {
            if self.c_lane[i].val() < self.nh_w.val() {
                self.m_h_b.next = self.m_h_b.val() | self.c_bit[i].val();
            }
            if self.c_lane[i].val() < self.np_w.val() {
                self.m_p_b.next = self.m_p_b.val() | self.c_bit[i].val();
            }
            if self.c_lane[i].val() == self.np_w.val() {
                self.pec_at.next = self.pec_at.val() | self.c_bit[i].val();
            }
        }
        // Lane i < nh0 + p0 (in the header, or i − nh0 < p0): stage A's `keep0`, through the
        // skid buffer's register.
        self.m_p_0.next = bit_cast::<K, 8>(self.msg.keep0.val());
        // All used lanes: the payload's, and the PEC lane (lane `nh + p`) when it follows.
        self.m_u_b.next = self.m_p_b.val();
        if self.pec_r.q.val() {
            self.m_u_b.next = self.m_p_b.val() | self.pec_at.val();
        }
        // (A first beat has no PEC lane, and a PEC lane is only marked outside the idle state.)
        self.m_h.next = self.m_h_b.val();
        self.m_p.next = self.m_p_b.val();
        self.keep_used.next = self.m_u_b.val();
        if self.idle.val() {
            self.m_h.next = self.m_h_0.val();
            self.m_p.next = self.m_p_0.val();
            self.keep_used.next = self.m_p_0.val();
        }
        self.frame_end.next = self.pkt_end.val();
        if self.e_smbus.val() {
            self.frame_end.next = self.pec_here.val();
        }

        // Input is taken eagerly: whenever held has a free slot (`avail < W`) and the message's
        // stream has not ended, whatever this beat needs; a beat then has its payload unless
        // held has room and no input is there (it waits, even when held could serve it) or the
        // stream has ended (the rest is zeros, below). So `take`, and with it the skid buffer's
        // enables and the field queue's, is a function of registers, not of the beat's layout
        // (issue 27: `p > avail` in front of `take` was W = 8's and the top's critical path
        // in many forms). `avail < 2W`, so `avail < W` is its bit `W` clear. In the idle state
        // held is empty (a message's end clears `avail_r`), so a first beat takes its input.
        self.room.next = (self.avail.val() & self.c_w.val()) == 0;
        self.active.next = (self.phase.q.val() == PacketPhase::Body) | (self.idle.val() & self.s.tvalid.val());
        self.emit.next =
            self.adv.val() & self.active.val() & (!self.room.val() | self.s.tvalid.val() | self.e_in_done.val());
        self.take.next = self.emit.val() & self.room.val() & self.s.tvalid.val() & !self.e_in_done.val();
        // In the idle state a beat on `s` is always formed once the output has a place.
        self.msg_done.next =
            self.adv.val() & self.idle.val() & self.s.tvalid.val() & self.s_first.val() & self.msg_valid.val();
        self.s.tready.next =
            !self.reset.val() & (self.take.val() | (self.phase.q.val() == PacketPhase::Drain));
        self.in_cnt.next = bit_cast::<8, K>(self.s.tkeep.val());
        // The payload stream ended early: the rest of the message is zeros. Worked out for both
        // outcomes of `take` (with the new beat's octets, `_t`, or without, `_nt`) side by side,
        // and selected by it at the end, so `take` is not in front of the arithmetic.
        // Every count here is below 2W (`p` and `in_cnt` at most W, `rd` and `avail` below 2W), so
        // the sums, differences and compares are on their low ⌊log2 W⌋ + 1 bits (`c_cnt_mask`):
        // four-bit arithmetic at W = 8 instead of eight-bit carry chains, in front of `rd`
        // and `avail_r` (once MCTP TX W = 4 and 8's critical path: `m_keep` → the sum →
        // `pad_t` → `rd`).
        self.cnt_in.next = self.in_cnt.val() & self.c_cnt_mask.val();
        self.cnt_av.next = self.avail.val() & self.c_cnt_mask.val();
        // A later beat's (`p_r`, `avail`) and a message's first beat's (`msg.p0`, and held
        // empty: `avail` and `rd` 0) side by side, the idle state selecting after the
        // arithmetic (it was in front of it: `phase` → `p` → the sums → `rd`, W = 1 and 8's
        // critical path).
        // With the new beat (`in_cnt`, from the skid buffer's register), what is left is
        // `left = avail + in − p`, in one carry chain: a carry-save layer first (`avail + in +
        // !p` as a sum word and a carry word, one LUT level), then the chain that adds the two
        // and the 1, on ⌊log2 W⌋ + 2 bits. A beat is taken only while `avail < W`, so `left`
        // lies in `[−W, 2W)` when it counts, and its top bit is the sign:
        // `p > avail + in`, the input ran short. (Two chains in series were W = 8's critical
        // path: `avail + in` then the compare at stop 54; `p − avail` then `in − (p − avail)`
        // and its borrow at stop 56.)
        self.cnt_p.next = self.p_r.q.val() & self.c_cnt_mask.val();
        self.pad_nt.next = self.cnt_p.val() > self.cnt_av.val();
        self.not_p.next = !self.cnt_p.val() & self.c_left_mask.val();
        self.csa_s.next = self.cnt_av.val() ^ self.cnt_in.val() ^ self.not_p.val();
        self.csa_c.next = (((self.cnt_av.val() & self.cnt_in.val())
            | (self.cnt_av.val() & self.not_p.val())
            | (self.cnt_in.val() & self.not_p.val()))
            << 1)
            | self.c_one8.val();
        self.left.next = (self.csa_s.val() + self.csa_c.val()) & self.c_left_mask.val();
        self.pad_t.next = (self.left.val() & self.c_left_sign.val()) != 0;
        self.pad_t0.next = self.p0_w.val() > self.cnt_in.val();

        // Payload octets: held's `avail` from `rd` on (the two slots rotated by `rd`, from
        // registers; the lanes past `avail` cleared: the other slot's old octets, or nothing once
        // the stream has ended, so the padding is zeros), then the new beat.
        self.rd_lo.next = self.rd.q.val() & self.c_lane_mask.val();
        self.first.next = self.slot0.q.val();
        self.second.next = self.slot1.q.val();
        if (self.rd.q.val() & self.c_w.val()) != 0 {
            self.first.next = self.slot1.q.val();
            self.second.next = self.slot0.q.val();
        }
        self.av_mask.next = 0.into();
        for i in 0..K {
            if self.c_lane[i].val() < self.cnt_av.val() {
                self.av_mask.next = self.av_mask.val() | (self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.buf_part.next = ((self.first.val() >> (bit_cast::<16, 8>(self.rd_lo.val()) << 3))
            | (self.second.val() << (bit_cast::<16, 8>(self.c_w.val() - self.rd_lo.val()) << 3)))
            & self.av_mask.val();
        // The new beat behind held's octets whenever held has room (not `take`, so the
        // handshake is not in front of the lanes): a beat that does not take one waits, or pads
        // with zeros once the input is done. (Without room, held fills the beat.)
        self.in_part.next = 0.into();
        if self.room.val() & !self.e_in_done.val() {
            self.in_part.next =
                self.s.tdata.val() << (bit_cast::<16, 8>(self.avail.val() & self.c_lane_mask.val()) << 3);
        }
        // Payload shares a beat with header octets only at W = 8 without SMBus (nh = 4): the
        // shift has that one step (nh mod W is 0 at every other width and with SMBus).
        self.pay.next = (self.buf_part.val() | self.in_part.val())
            << (bit_cast::<16, 8>(self.nh.val() & self.c_nh_mask.val()) << 3);

        // Header octets, SMBus prefix first, from octet hpos on.
        self.flags.next = bit_cast::<8, 3>(self.e_tag.val()) | (bit_cast::<8, 2>(self.e_seq.val()) << 4);
        if self.e_som.val() {
            self.flags.next = self.flags.val() | self.c_som.val();
        }
        if self.e_eom.val() {
            self.flags.next = self.flags.val() | self.c_eom.val();
        }
        if self.e_to.val() {
            self.flags.next = self.flags.val() | self.c_to.val();
        }
        // (Added before the idle state's select, so from registers: W = 1's seed 2 ran `phase`
        // → the select → this sum → the header → `lanes` at stop 56.)
        self.count.next = self.pkt_left.q.val() + self.c_count_add.val();
        if self.idle.val() {
            self.count.next = self.msg.pkt0.val() + self.c_count_add.val();
        }
        self.hdr.next = self.c_mctp_fixed.val()
            | (bit_cast::<64, 8>(self.e_dst.val()) << 8)
            | (bit_cast::<64, 8>(self.e_src.val()) << 16)
            | (bit_cast::<64, 8>(self.flags.val()) << 24);
        if self.e_smbus.val() {
            self.hdr.next = (self.hdr.val() << 32)
                | self.c_smbus_fixed.val()
                | (bit_cast::<64, 7>(self.e_sa_dst.val()) << 1)
                | (bit_cast::<64, 8>(self.count.val()) << 16)
                | (bit_cast::<64, 7>(self.e_sa_src.val()) << 25);
        }
        // While header octets remain, hpos is a multiple of W (≤ 8): only those bits shift.
        self.hdr_sh.next =
            bit_cast::<D, 64>(self.hdr.val() >> (bit_cast::<16, 8>(self.e_hpos.val() & self.c_hpos_mask.val()) << 3));

        // The lanes.
        self.lanes.next = 0.into();
        for i in 0..K {
            if (self.m_h.val() & self.c_bit[i].val()) != 0 {
                self.lanes.next = self.lanes.val() | (self.hdr_sh.val() & (self.c_byte_d.val() << (i * 8).to_bits::<16>()));
            } else if (self.m_p.val() & self.c_bit[i].val()) != 0 {
                self.lanes.next = self.lanes.val() | (self.pay.val() & (self.c_byte_d.val() << (i * 8).to_bits::<16>()));
            }
        }

        // What is left of held, and of the message (both outcomes, then the select), and
        // whether a message ending here had a length error (short, not ended by its last
        // beat, or octets left over).
        // `rd` moves past the beat's payload whatever happens (once the stream has run short
        // nothing is held, so where it points no longer matters); what is left in held
        // (`av_*`) is worked out for both outcomes of `take`.
        self.rd_n.next = ((self.rd.q.val() & self.c_cnt_mask.val()) + self.cnt_p.val()) & self.c_cnt_mask.val();
        self.av_nt.next = (self.cnt_av.val() - self.cnt_p.val()) & self.c_cnt_mask.val();
        if self.pad_nt.val() {
            self.av_nt.next = 0.into();
        }
        self.av_t.next = self.left.val() & self.c_cnt_mask.val();
        // A beat that ran short leaves nothing held: `left`'s wrapped remainder would count old
        // octets of the slots as the message's (the test
        // `padding_past_an_off_grid_packet_end_repeats_no_octet`).
        if self.pad_t.val() {
            self.av_t.next = 0.into();
        }
        self.sh_nt.next = self.pad_nt.val();
        self.sh_t.next = self.pad_t.val();
        if self.idle.val() {
            // The same with `avail` and `rd` 0 (a message's end leaves held so). A first beat
            // always takes its input (held has room, the stream has not ended).
            self.rd_n.next = self.p0_w.val();
            self.av_nt.next = 0.into();
            self.av_t.next = (self.cnt_in.val() - self.p0_w.val()) & self.c_cnt_mask.val();
            if self.pad_t0.val() {
                self.av_t.next = 0.into();
            }
            self.sh_nt.next = false;
            self.sh_t.next = self.pad_t0.val();
        }
        self.avail_n.next = self.av_nt.val();
        self.in_done_n.next = self.e_in_done.val();
        self.short_n.next = self.e_short.val() | self.sh_nt.val();
        if self.take.val() {
            self.avail_n.next = self.av_t.val();
            self.in_done_n.next = self.s.tlast.val();
            self.short_n.next = self.e_short.val() | self.sh_t.val();
        }
        // A message ending here had a length error if it ran short, was not ended by its last
        // beat, or left octets over (`avail_n ≠ 0`: compared a clock later, from a register).
        self.len_err.next = self.short_n.val() | !self.in_done_n.val();
        self.mtu17.next = bit_cast::<17, 8>(self.r_mtu.q.val());

        // The next beat's layout (used when this beat goes out), both candidates side by side:
        // the rest of this packet, or the message's next packet (`npl` octets behind its
        // header); which one is the last select.
        // Three candidates side by side ([`BeatSplit`]), the idle state and a new packet
        // selecting last.
        self.sp_cb.pl.next = self.pl_r.q.val();
        self.sp_cb.rm.next = self.rmn_r.q.val();
        self.sp_cb.smbus.next = self.r_smbus.q.val();
        self.rm_b.next = self.c_room0.val();
        if self.r_smbus.q.val() {
            self.rm_b.next = self.c_room0_smbus.val();
        }
        self.sp_nb.pl.next = self.npl.q.val();
        self.sp_nb.rm.next = self.rm_b.val();
        self.sp_nb.smbus.next = self.r_smbus.q.val();
        self.rm_i.next = self.c_rm1.val();
        if self.msg.smbus.val() {
            self.rm_i.next = self.c_rm1_smbus.val();
        }
        self.sp_ci.pl.next = self.msg.pl0.val();
        self.sp_ci.rm.next = self.rm_i.val();
        self.sp_ci.smbus.next = self.msg.smbus.val();
        self.nh_c.next = self.restn_r.q.val();
        if self.restn_r.q.val() > self.c_w.val() {
            self.nh_c.next = self.c_w.val();
        }
        // The packet goes on after a beat of the message.
        self.nh_n.next = self.nhn_r.q.val();
        self.p_n.next = self.sp_cb.p.val();
        self.pend_n.next = self.sp_cb.pend.val();
        self.pec_n.next = self.sp_cb.pec.val();
        self.pl_n.next = self.pl_r.q.val();
        self.pl_nn.next = self.sp_cb.after.val();
        self.nhn_n.next = self.nh_c.val();
        self.rmn_n.next = self.c_w.val() - self.nh_c.val();
        self.restn_n.next = self.restn_r.q.val() - self.nh_c.val();
        if self.idle.val() {
            // ... after its first beat: the packet's second beat is next.
            self.nh_n.next = self.c_nh1.val();
            self.nhn_n.next = self.c_nh2.val();
            self.rmn_n.next = self.c_rm2.val();
            self.restn_n.next = self.c_rest2.val();
            if self.msg.smbus.val() {
                self.nh_n.next = self.c_nh1_smbus.val();
                self.nhn_n.next = self.c_nh2_smbus.val();
                self.rmn_n.next = self.c_rm2_smbus.val();
                self.restn_n.next = self.c_rest2_smbus.val();
            }
            self.p_n.next = self.sp_ci.p.val();
            self.pend_n.next = self.sp_ci.pend.val();
            self.pec_n.next = self.sp_ci.pec.val();
            self.pl_n.next = self.msg.pl0.val();
            self.pl_nn.next = self.sp_ci.after.val();
        }
        // nh + p of the next beat, `nh + min(pl, rm) = min(nh + pl, W)` in every candidate
        // (each candidate's room is `W − nh`): the sum worked out beside the split, not after it.
        self.np_n.next = self.c_w.val();
        if self.sp_cb.pend.val() {
            self.np_n.next = self.nhn_r.q.val() + self.pl_r.q.val();
        }
        if self.idle.val() {
            self.np_n.next = self.c_w.val();
            if self.sp_ci.pend.val() {
                self.np_n.next = self.c_nh1.val() + self.msg.pl0.val();
                if self.msg.smbus.val() {
                    self.np_n.next = self.c_nh1_smbus.val() + self.msg.pl0.val();
                }
            }
        }
        self.new_pkt.next = self.frame_end.val() & !self.e_eom.val();
        if self.new_pkt.val() {
            // A new packet: its first beat is next.
            self.nh_n.next = self.c_nh0.val();
            self.nhn_n.next = self.c_nh1.val();
            self.rmn_n.next = self.c_rm1.val();
            self.restn_n.next = self.c_rest1.val();
            if self.e_smbus.val() {
                self.nh_n.next = self.c_nh0_smbus.val();
                self.nhn_n.next = self.c_nh1_smbus.val();
                self.rmn_n.next = self.c_rm1_smbus.val();
                self.restn_n.next = self.c_rest1_smbus.val();
            }
            self.p_n.next = self.sp_nb.p.val();
            self.pend_n.next = self.sp_nb.pend.val();
            self.pec_n.next = self.sp_nb.pec.val();
            self.pl_n.next = self.npl.q.val();
            self.pl_nn.next = self.sp_nb.after.val();
            self.np_n.next = self.c_w.val();
            if self.sp_nb.pend.val() {
                self.np_n.next = self.c_nh0.val() + self.npl.q.val();
                if self.e_smbus.val() {
                    self.np_n.next = self.c_nh0_smbus.val() + self.npl.q.val();
                }
            }
        }
        // The message's octets after the next packet (after a message's first beat and after
        // a later one side by side, the idle state selecting).
        self.after_n.next = self.after.q.val() - bit_cast::<17, 8>(self.npl.q.val());
        if self.idle.val() {
            self.after_n.next = self.msg.after0.val() - bit_cast::<17, 8>(self.msg.npl0.val());
        }

        // Registers.
        self.npl_due.d.next = false;
        if self.m.tready.val() {
            self.o_valid.d.next = false;
        }
        self.pkt_out.d.next = false;
        self.len_err_p.d.next = false;
        // The counters a clock behind the beats they count (a message's end is `len_err_p`).
        if self.pkt_out.q.val() {
            self.n_packets.d.next = self.n_packets.q.val() + 1;
        }
        if self.len_err_p.q.val() {
            self.n_messages.d.next = self.n_messages.q.val() + 1;
        }
        if self.len_err_p.q.val() & (self.len_flag.q.val() | (self.len_left.q.val() != 0)) {
            self.n_len_errors.d.next = self.n_len_errors.q.val() + 1;
        }
        if self.phase.q.val() == PacketPhase::Drain {
            if self.s.tvalid.val() & self.s.tlast.val() {
                self.phase.d.next = PacketPhase::Idle;
            }
        } else if self.emit.val() {
            self.o_data.d.next = self.lanes.val();
            self.o_keep.d.next = self.keep_used.val();
            self.o_valid.d.next = true;
            self.o_last.d.next = self.frame_end.val();
            self.o_pec.d.next = self.pec_here.val();
            self.r_src.d.next = self.e_src.val();
            self.r_dst.d.next = self.e_dst.val();
            self.r_tag.d.next = self.e_tag.val();
            self.r_to.d.next = self.e_to.val();
            self.r_seq.d.next = self.e_seq.val();
            self.r_mtu.d.next = self.e_mtu.val();
            self.r_smbus.d.next = self.e_smbus.val();
            self.r_sa_src.d.next = self.e_sa_src.val();
            self.r_sa_dst.d.next = self.e_sa_dst.val();
            self.som.d.next = self.e_som.val();
            self.eom.d.next = self.e_eom.val();
            self.after.d.next = self.e_after.val();
            self.npl.d.next = self.e_npl.val();
            self.neom.d.next = self.e_neom.val();
            self.pkt_left.d.next = self.pl_n.val();
            self.hpos.d.next = self.e_hpos.val() + self.nh.val();
            self.nh_r.d.next = self.nh_n.val();
            self.p_r.d.next = self.p_n.val();
            self.pend_r.d.next = self.pend_n.val();
            self.np_r.d.next = self.np_n.val();
            self.pec_r.d.next = self.pec_n.val();
            self.pl_r.d.next = self.pl_nn.val();
            self.nhn_r.d.next = self.nhn_n.val();
            self.rmn_r.d.next = self.rmn_n.val();
            self.restn_r.d.next = self.restn_n.val();
            if self.take.val() {
                if self.wsel.q.val() {
                    self.slot1.d.next = self.s.tdata.val();
                } else {
                    self.slot0.d.next = self.s.tdata.val();
                }
                self.wsel.d.next = !self.wsel.q.val();
            }
            self.rd.d.next = self.rd_n.val();
            self.avail_r.d.next = self.avail_n.val();
            self.in_done.d.next = self.in_done_n.val();
            self.short.d.next = self.short_n.val();
            self.phase.d.next = PacketPhase::Body;
            if self.frame_end.val() {
                self.pkt_out.d.next = true;
                // A frame ends with its packet; in the last packet (eom) the packet's octets are
                // the message's, so the message is out.
                if self.e_eom.val() {
                    // The message is out (`len_err_p` counts it): what is left of held is
                    // discarded.
                    self.rd.d.next = 0.into();
                    self.wsel.d.next = false;
                    self.avail_r.d.next = 0.into();
                    self.len_err_p.d.next = true;
                    self.len_flag.d.next = self.len_err.val();
                    self.len_left.d.next = self.avail_n.val();
                    self.phase.d.next = PacketPhase::Idle;
                    if !self.in_done_n.val() {
                        self.phase.d.next = PacketPhase::Drain;
                    }
                } else {
                    // The next packet: npl octets, the last one if neom. The one after it,
                    // min(after, mtu) octets, is worked out in the next clock from registers
                    // (`npl_due`): a packet that is not a message's last holds an MTU, at least
                    // 64 octets, so this packet's end is eight or more clocks away.
                    self.eom.d.next = self.e_neom.val();
                    self.after.d.next = self.after_n.val();
                    self.npl_due.d.next = true;
                    self.som.d.next = false;
                    self.r_seq.d.next = self.e_seq.val() + 1;
                    self.hpos.d.next = 0.into();
                }
            }
        }
        if self.npl_due.q.val() {
            self.npl.d.next = self.r_mtu.q.val();
            if self.after.q.val() <= self.mtu17.val() {
                self.npl.d.next = self.after.q.val().get_bits::<8>(0);
            }
            self.neom.d.next = self.after.q.val() <= self.mtu17.val();
        }
        if self.reset.val() {
            self.npl_due.d.next = false;
            self.phase.d.next = PacketPhase::Idle;
            self.som.d.next = false;
            self.eom.d.next = false;
            self.after.d.next = 0.into();
            self.npl.d.next = 0.into();
            self.neom.d.next = false;
            self.pkt_left.d.next = 0.into();
            self.hpos.d.next = 0.into();
            self.nh_r.d.next = 0.into();
            self.p_r.d.next = 0.into();
            self.pend_r.d.next = false;
            self.np_r.d.next = 0.into();
            self.pec_r.d.next = false;
            self.pl_r.d.next = 0.into();
            self.nhn_r.d.next = 0.into();
            self.rmn_r.d.next = 0.into();
            self.restn_r.d.next = 0.into();
            self.slot0.d.next = 0.into();
            self.slot1.d.next = 0.into();
            self.wsel.d.next = false;
            self.rd.d.next = 0.into();
            self.avail_r.d.next = 0.into();
            self.in_done.d.next = false;
            self.short.d.next = false;
            self.o_data.d.next = 0.into();
            self.o_keep.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_last.d.next = false;
            self.o_pec.d.next = false;
            self.n_packets.d.next = 0.into();
            self.n_messages.d.next = 0.into();
            self.n_len_errors.d.next = 0.into();
            self.pkt_out.d.next = false;
            self.len_err_p.d.next = false;
        }
    }
}

/// One beat's payload split: with `rm` payload lanes after its header octets and `pl` octets
/// of the packet left, the beat carries `p = min(pl, rm)`, ends the packet's payload when
/// `pl ≤ rm` (`pend`), has the SMBus PEC lane after it when `pl < rm` (`pec`, with SMBus), and
/// leaves `after = pl − p` octets of the packet.
#[derive(LogicBlock, Default)]
pub struct BeatSplit {
    pub pl: Signal<In, Bits<8>>,
    pub rm: Signal<In, Bits<8>>,
    pub smbus: Signal<In, Bit>,
    pub p: Signal<Out, Bits<8>>,
    pub pend: Signal<Out, Bit>,
    pub pec: Signal<Out, Bit>,
    pub after: Signal<Out, Bits<8>>,
    ends: Signal<Local, Bit>,
}

impl Logic for BeatSplit {
    #[hdl_gen]
    fn update(&mut self) {
        self.ends.next = self.pl.val() <= self.rm.val();
        self.pend.next = self.ends.val();
        self.pec.next = self.smbus.val() & (self.pl.val() < self.rm.val());
        self.p.next = self.rm.val();
        self.after.next = self.pl.val() - self.rm.val();
        if self.ends.val() {
            self.p.next = self.pl.val();
            self.after.next = 0.into();
        }
    }
}
