//! Stage A of the MCTP packetizer: the message stream. It acts on the refusal the input stage
//! ([`super::input::InputStage`]) worked out for each message's first beat (what
//! `offload_driver::mctp::transmit` refuses is dropped whole and counted), latches the
//! message's header fields for the packet stage ([`super::MessageFieldsSource`]), masks the
//! octets past `tkeep` and, when asked, appends the NVMe-MI MIC (CRC-32C over the message, low
//! octet first) right after the last message octet — in the last beat's free lanes, and in one
//! more beat (several at W < 4) for the octets that do not fit.
//!
//! Its output is the payload stream of the message: full beats, the last one holding `cnt`
//! octets in its low lanes (`tkeep` = that many low ones, the lanes above zero).
//!
//! Two register stages, the input stage (`a_*`) and the output stage (`o_*`):
//! - The input stage takes the beat, judges it and runs the CRC-32C loop over whole beats
//!   (`mic_r ← A_W·mic_r ⊕ L(d)`, [`crate::crc::pipeline`]): a last beat's octets past its `k`
//!   are zeroed, which leaves `X = A_{W−k}·T` (`a_x`), the true register `T` followed by
//!   `W − k` zero octets. No shifter is in the step.
//! - As the last beat moves to the output stage, the MIC is finished from `a_x`:
//!   `finish(U_{W−k}·X)`, one 32 × 32 matrix per `k` (`U_n = A_n⁻¹`), selected by `k` one-hot
//!   (`a_koh`), and registered (`fin_r`). The output stage also works out the first packet's
//!   layout from the registered `s_len` and configuration.
//! - The MIC is OR-ed into the last beat's free lanes on the way out (`m_tdata`), and a MIC
//!   beat takes its octets from `fin_r` as it enters the output stage.
//!
//! So no clock has a partial CRC step, and none has the step or the length arithmetic in front
//! of a byte shifter (issue 27: the input skid buffer's `tkeep` → the partial step → the MIC
//! register was `OffloadTop` W = 8's longest path, and the partial step was MCTP TX W = 8's
//! once the PEC was split). Latency two clocks; one beat per clock.

use super::{MctpTxConfig, MessageFieldsSource};
use crate::axis::{AxisSink, AxisSource};
use crate::crc::{CrcNetwork, CrcPipeline, GfMatrix};
use offload_driver::crc::CrcKind;
use offload_driver::nvme_mi::MIC_LEN;
use rust_hdl::prelude::*;

/// Where the message stage is in the current message.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum MicPhase {
    /// The next input beat is a message's first.
    Idle,
    /// Input beats of the current message are still to come.
    Body,
    /// The input is all in; MIC octets that did not fit the last beat remain.
    Mic,
    /// Discarding a refused message until its `tlast`.
    Drop,
}

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct MicStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpTxConfig,
    pub s: AxisSink<D, K>,
    pub s_len: Signal<In, Bits<17>>,
    /// The message a first beat on `s` opens is refused (read with a first beat only).
    pub s_refused: Signal<In, Bit>,
    /// The payload stream (message and MIC).
    pub m: AxisSource<D, K>,
    /// The beat on `m` is a message's first.
    pub m_first: Signal<Out, Bit>,
    /// The fields of the message whose beats are on `m` (loaded with its first beat, stable
    /// until the next message's first beat).
    pub msg: MessageFieldsSource,
    /// Messages refused (dropped whole).
    pub dropped: Signal<Out, Bits<32>>,
    /// The loop over one whole beat: `A_W·R` and `L(d)`.
    state_net: GfMatrix<32, 32>,
    data_net: GfMatrix<D, 32>,
    /// `finish(U_{W−k}·X)` for `k` = 1..=W (index `k − 1`) and for `k` = 0 (a last beat with no
    /// octet).
    fin_net: [GfMatrix<32, 32>; K],
    fin_net0: GfMatrix<32, 32>,
    phase: DFF<MicPhase>,
    /// The MIC's CRC register: the message's octets before the input port's beat.
    mic_r: DFF<Bits<32>>,
    r_mic: DFF<Bit>,
    /// The finished MIC of the last message, registered as its last beat enters the output
    /// stage: OR-ed into that beat's free lanes on the way out, and the source of the MIC
    /// beats after it.
    fin_r: DFF<Bits<32>>,
    /// The MIC octets already sent (`hold_off`) and still to send (`hold_cnt`) in MIC beats.
    hold_off: DFF<Bits<8>>,
    hold_cnt: DFF<Bits<8>>,
    // The input stage's beat: data (lanes past its octets zero), its octets `a_k`, whether the
    // MIC follows them in this beat (`a_ml`: the message's last beat with the MIC on), and the
    // message's configuration when it is a first beat.
    a_data: DFF<Bits<D>>,
    a_k: DFF<Bits<8>>,
    a_ml: DFF<Bit>,
    /// The loop's result with the beat (`X`, read for a last beat), and the beat's octets
    /// one-hot (`k` at bit `k − 1`; `a_k0` for none).
    a_x: DFF<Bits<32>>,
    a_koh: DFF<Bits<8>>,
    a_k0: DFF<Bit>,
    /// A MIC beat: its octets are `fin_r`'s from octet `a_hoff` on.
    a_mb: DFF<Bit>,
    a_hoff: DFF<Bits<8>>,
    a_valid: DFF<Bit>,
    a_last: DFF<Bit>,
    a_first: DFF<Bit>,
    a_src: DFF<Bits<8>>,
    a_dst: DFF<Bits<8>>,
    a_tag: DFF<Bits<3>>,
    a_to: DFF<Bit>,
    a_seq: DFF<Bits<2>>,
    a_mtu: DFF<Bits<8>>,
    a_smbus: DFF<Bit>,
    a_sa_src: DFF<Bits<7>>,
    a_sa_dst: DFF<Bits<7>>,
    /// The message's payload octets, `s_len` plus the MIC when it is on.
    a_len: DFF<Bits<17>>,
    /// The message fits one packet (`a_len ≤ a_mtu`), and two (`a_len ≤ 2·a_mtu`): compared
    /// as they are loaded, so that the first packet's layout behind them starts from registers
    /// (`a_len` → the compare → the selects of `pkt0`, `p0` and `pl0` was MCTP TX W = 8's
    /// critical path on two seeds at stop 83, 17 to 19 levels).
    a_fits: DFF<Bit>,
    a_fits2: DFF<Bit>,
    /// `a_len`'s next value, when a message's first beat loads it.
    len_new: Signal<Local, Bits<17>>,
    /// `a_fits` and `a_fits2` from the length's low bits: with the MTU under 256, `len ≤ mtu`
    /// is `s_len`'s bits from 8 up zero and its low 8 bits plus the MIC (9 bits) `≤ mtu`, and
    /// `len ≤ 2·mtu` likewise from bit 9. Two 9- and 10-bit chains beside a zero test, where
    /// the 17-bit sum and compare in series were every W = 1 and 4 seed's path at stops 83–86
    /// (`entry.skid.m_aux` → `len_new` → `a_fits`, 14–19 levels).
    lo9: Signal<Local, Bits<9>>,
    lo10: Signal<Local, Bits<10>>,
    mtu9: Signal<Local, Bits<9>>,
    mtu10: Signal<Local, Bits<10>>,
    c_mic9: Constant<Bits<9>>,
    c_mic10: Constant<Bits<10>>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_valid: DFF<Bit>,
    o_last: DFF<Bit>,
    o_first: DFF<Bit>,
    /// The output beat is a message's last with the MIC starting in it, at lane `o_moff`.
    o_ml: DFF<Bit>,
    o_moff: DFF<Bits<8>>,
    f_src: DFF<Bits<8>>,
    f_dst: DFF<Bits<8>>,
    f_tag: DFF<Bits<3>>,
    f_to: DFF<Bit>,
    f_seq: DFF<Bits<2>>,
    f_mtu: DFF<Bits<8>>,
    f_smbus: DFF<Bit>,
    f_sa_src: DFF<Bits<7>>,
    f_sa_dst: DFF<Bits<7>>,
    f_pkt0: DFF<Bits<8>>,
    f_eom0: DFF<Bit>,
    f_after0: DFF<Bits<17>>,
    f_p0: DFF<Bits<8>>,
    f_pend0: DFF<Bit>,
    f_pl0: DFF<Bits<8>>,
    f_npl0: DFF<Bits<8>>,
    f_neom0: DFF<Bit>,
    n_dropped: DFF<Bits<32>>,
    /// The output register is free or being taken; the input stage's beat moves into it.
    adv: Signal<Local, Bit>,
    mv: Signal<Local, Bit>,
    /// The input stage's register is free or its beat moves on.
    a_free: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    keep_in: Signal<Local, Bits<K>>,
    k_in: Signal<Local, Bits<8>>,
    bad: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    e_mic: Signal<Local, Bit>,
    /// The last beat's MIC does not all fit its free lanes: `k_in + 4 > W`.
    ovf: Signal<Local, Bit>,
    data_m: Signal<Local, Bits<D>>,
    nxt: Signal<Local, Bits<32>>,
    crc_d: Signal<Local, Bits<D>>,
    keep8: Signal<Local, Bits<8>>,
    fin: Signal<Local, Bits<32>>,
    /// The output beat with the MIC in its free lanes.
    out_m: Signal<Local, Bits<D>>,
    hold_k: Signal<Local, Bits<8>>,
    /// `a_k` on its low ⌊log2 W⌋ + 1 bits (it is at most W).
    a_k_lo: Signal<Local, Bits<8>>,
    out_data: Signal<Local, Bits<D>>,
    keep_out: Signal<Local, Bits<K>>,
    len_in: Signal<Local, Bits<17>>,
    mtu17: Signal<Local, Bits<17>>,
    /// The whole message fits one packet.
    fits: Signal<Local, Bit>,
    pkt0: Signal<Local, Bits<8>>,
    /// The message fits two packets.
    fits2: Signal<Local, Bit>,
    over_mtu: Signal<Local, Bits<17>>,
    room0: Signal<Local, Bits<8>>,
    /// `pkt0 ≤ room0` for each binding's room (a constant), so that the compares start from
    /// `a_len` and `a_mtu` alone and `a_smbus` picks the result last: with `room0` selected first
    /// (a LUT in front of two carry chains) it was W = 8's critical path at stop 56.
    pend0_n: Signal<Local, Bit>,
    pend0_s: Signal<Local, Bit>,
    pend0: Signal<Local, Bit>,
    pl0_n: Signal<Local, Bits<8>>,
    pl0_s: Signal<Local, Bits<8>>,
    pl0: Signal<Local, Bits<8>>,
    c_room0: Constant<Bits<8>>,
    c_room0_smbus: Constant<Bits<8>>,
    /// The first beat's header lanes, and lane `i`'s payload octet number in it (0 for a
    /// header lane), without and with the SMBus prefix: lane `i` is used when `p0` exceeds it.
    c_h0: Constant<Bits<8>>,
    c_h0_smbus: Constant<Bits<8>>,
    c_rel0: [Constant<Bits<8>>; K],
    c_rel0_smbus: [Constant<Bits<8>>; K],
    c_bit8: [Constant<Bits<8>>; K],
    keep0: Signal<Local, Bits<8>>,
    c_lane1: [Constant<Bits<8>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_ones_k: Constant<Bits<K>>,
    c_byte_d: Constant<Bits<D>>,
    c_w: Constant<Bits<8>>,
    c_lane_mask: Constant<Bits<8>>,
    /// `ovf` for every beat at W < 4; `k_in > W − 4` at W ≥ 4, a lane of `c_ovf_lanes` (W − 4
    /// up) kept.
    c_ovf_always: Constant<Bit>,
    c_ovf_lanes: Constant<Bits<K>>,
    /// `2W − 1`, the bits of a count of at most W octets; the counts 0..=W; their lanes (`v`
    /// low lanes), and with the MIC after them (`min(v + 4, W)`).
    c_cnt_mask: Constant<Bits<8>>,
    c_cnt: [Constant<Bits<8>>; 9],
    c_keep_n: [Constant<Bits<K>>; 9],
    c_keep_ml: [Constant<Bits<K>>; 9],
    c_mic_len: Constant<Bits<8>>,
    c_mic_len17: Constant<Bits<17>>,
    c_init: Constant<Bits<32>>,
    c_one8: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize> Default for MicStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "MicStage<8K, K> with K in 1, 2, 4, 8");
        assert_eq!(MIC_LEN, 4);
        let pipe = CrcPipeline::new(CrcNetwork::new(CrcKind::Crc32c.params(), K));
        let (hb, hs) = (super::HeaderBeats::new(K, false), super::HeaderBeats::new(K, true));
        let fin_u = |n: usize| GfMatrix::new(pipe.finished_unshift(n), pipe.net.finish(0));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            s_refused: Default::default(),
            m: Default::default(),
            m_first: Default::default(),
            msg: Default::default(),
            dropped: Default::default(),
            c_init: Constant::new(pipe.net.init_r.into()),
            state_net: GfMatrix::new(pipe.advance.clone(), 0),
            data_net: GfMatrix::new(pipe.data.clone(), 0),
            fin_net: std::array::from_fn(|i| fin_u(K - (i + 1))),
            fin_net0: fin_u(K),
            phase: Default::default(),
            mic_r: Default::default(),
            r_mic: Default::default(),
            fin_r: Default::default(),
            hold_off: Default::default(),
            hold_cnt: Default::default(),
            a_data: Default::default(),
            a_k: Default::default(),
            a_ml: Default::default(),
            a_x: Default::default(),
            a_koh: Default::default(),
            a_k0: Default::default(),
            a_mb: Default::default(),
            a_hoff: Default::default(),
            a_valid: Default::default(),
            a_last: Default::default(),
            a_first: Default::default(),
            a_src: Default::default(),
            a_dst: Default::default(),
            a_tag: Default::default(),
            a_to: Default::default(),
            a_seq: Default::default(),
            a_mtu: Default::default(),
            a_smbus: Default::default(),
            a_sa_src: Default::default(),
            a_sa_dst: Default::default(),
            a_len: Default::default(),
            a_fits: Default::default(),
            a_fits2: Default::default(),
            len_new: Default::default(),
            lo9: Default::default(),
            lo10: Default::default(),
            mtu9: Default::default(),
            mtu10: Default::default(),
            c_mic9: Constant::new((MIC_LEN as u64).into()),
            c_mic10: Constant::new((MIC_LEN as u64).into()),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_valid: Default::default(),
            o_last: Default::default(),
            o_first: Default::default(),
            o_ml: Default::default(),
            o_moff: Default::default(),
            f_src: Default::default(),
            f_dst: Default::default(),
            f_tag: Default::default(),
            f_to: Default::default(),
            f_seq: Default::default(),
            f_mtu: Default::default(),
            f_smbus: Default::default(),
            f_sa_src: Default::default(),
            f_sa_dst: Default::default(),
            f_pkt0: Default::default(),
            f_eom0: Default::default(),
            f_after0: Default::default(),
            f_p0: Default::default(),
            f_pend0: Default::default(),
            f_pl0: Default::default(),
            f_npl0: Default::default(),
            f_neom0: Default::default(),
            n_dropped: Default::default(),
            adv: Default::default(),
            mv: Default::default(),
            a_free: Default::default(),
            first: Default::default(),
            keep_in: Default::default(),
            k_in: Default::default(),
            bad: Default::default(),
            take: Default::default(),
            e_mic: Default::default(),
            ovf: Default::default(),
            data_m: Default::default(),
            nxt: Default::default(),
            crc_d: Default::default(),
            keep8: Default::default(),
            fin: Default::default(),
            c_one8: Constant::new(1u64.into()),
            out_m: Default::default(),
            hold_k: Default::default(),
            a_k_lo: Default::default(),
            out_data: Default::default(),
            keep_out: Default::default(),
            len_in: Default::default(),
            mtu17: Default::default(),
            fits: Default::default(),
            pkt0: Default::default(),
            fits2: Default::default(),
            over_mtu: Default::default(),
            room0: Default::default(),
            pend0_n: Default::default(),
            pend0_s: Default::default(),
            pend0: Default::default(),
            pl0_n: Default::default(),
            pl0_s: Default::default(),
            pl0: Default::default(),
            // The first beat's room after the header: W − min(header, W).
            c_room0: super::first_beat_room(K, false),
            c_room0_smbus: super::first_beat_room(K, true),
            c_h0: Constant::new(super::first_beat_header_lanes(K, false).into()),
            c_h0_smbus: Constant::new(super::first_beat_header_lanes(K, true).into()),
            c_rel0: std::array::from_fn(|i| Constant::new((i.saturating_sub(hb.nh[0]) as u64).into())),
            c_rel0_smbus: std::array::from_fn(|i| Constant::new((i.saturating_sub(hs.nh[0]) as u64).into())),
            c_bit8: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            keep0: Default::default(),
            c_lane1: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_w: Constant::new((K as u64).into()),
            c_lane_mask: Constant::new(((K - 1) as u64).into()),
            c_ovf_always: Constant::new(K < MIC_LEN),
            c_ovf_lanes: Constant::new((crate::bits::low_ones(K) & !crate::bits::low_ones(K.saturating_sub(MIC_LEN))).into()),
            c_cnt_mask: super::count_mask(K),
            c_cnt: std::array::from_fn(|v| Constant::new((v as u64).into())),
            c_keep_n: std::array::from_fn(|v| Constant::new(crate::bits::low_ones(v.min(K)).into())),
            c_keep_ml: std::array::from_fn(|v| Constant::new(crate::bits::low_ones((v + MIC_LEN).min(K)).into())),
            c_mic_len: Constant::new((MIC_LEN as u64).into()),
            c_mic_len17: Constant::new((MIC_LEN as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MicStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, mic_r, r_mic, fin_r, hold_off, hold_cnt, a_data, a_k, a_ml, a_x, a_koh, a_k0, a_mb, a_hoff, a_valid, a_last, a_first,
            a_src, a_dst, a_tag, a_to, a_seq, a_mtu, a_smbus, a_sa_src, a_sa_dst, a_len, a_fits, a_fits2, o_data, o_keep, o_valid,
            o_last, o_first, o_ml, o_moff, f_src, f_dst, f_tag, f_to, f_seq, f_mtu, f_smbus, f_sa_src, f_sa_dst, f_pkt0, f_eom0, f_after0, f_p0,
            f_pend0, f_pl0, f_npl0, f_neom0, n_dropped
        );
        // The MIC into the last beat's free lanes (the octets past `o_moff + 4` are zero: the
        // MIC is 32 bits), from the two registers loaded with that beat.
        self.out_m.next = self.o_data.q.val();
        if self.o_ml.q.val() {
            self.out_m.next = self.o_data.q.val()
                | (bit_cast::<D, 32>(self.fin_r.q.val()) << (bit_cast::<16, 8>(self.o_moff.q.val()) << 3));
        }
        self.m.tdata.next = self.out_m.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.m_first.next = self.o_first.q.val();
        self.msg.src.next = self.f_src.q.val();
        self.msg.dst.next = self.f_dst.q.val();
        self.msg.tag.next = self.f_tag.q.val();
        self.msg.to.next = self.f_to.q.val();
        self.msg.seq.next = self.f_seq.q.val();
        self.msg.mtu.next = self.f_mtu.q.val();
        self.msg.smbus.next = self.f_smbus.q.val();
        self.msg.sa_src.next = self.f_sa_src.q.val();
        self.msg.sa_dst.next = self.f_sa_dst.q.val();
        self.msg.pkt0.next = self.f_pkt0.q.val();
        self.msg.eom0.next = self.f_eom0.q.val();
        self.msg.after0.next = self.f_after0.q.val();
        self.msg.p0.next = self.f_p0.q.val();
        self.msg.pend0.next = self.f_pend0.q.val();
        self.msg.pl0.next = self.f_pl0.q.val();
        self.msg.npl0.next = self.f_npl0.q.val();
        self.msg.neom0.next = self.f_neom0.q.val();
        // The first beat's lanes: its header's, and lane i when p0 > its payload octet number.
        self.keep0.next = self.c_h0.val();
        if self.f_smbus.q.val() {
            self.keep0.next = self.c_h0_smbus.val();
        }
        for i in 0..K {
            if self.f_smbus.q.val() {
                if self.f_p0.q.val() > self.c_rel0_smbus[i].val() {
                    self.keep0.next = self.keep0.val() | self.c_bit8[i].val();
                }
            } else if self.f_p0.q.val() > self.c_rel0[i].val() {
                self.keep0.next = self.keep0.val() | self.c_bit8[i].val();
            }
        }
        self.msg.keep0.next = self.keep0.val();
        self.dropped.next = self.n_dropped.q.val();

        self.adv.next = !self.o_valid.q.val() | self.m.tready.val();
        self.mv.next = self.a_valid.q.val() & self.adv.val();
        self.a_free.next = !self.a_valid.q.val() | self.adv.val();

        // ---- The input stage.
        self.first.next = self.phase.q.val() == MicPhase::Idle;
        self.keep_in.next = self.c_ones_k.val();
        if self.s.tlast.val() {
            self.keep_in.next = self.s.tkeep.val();
        }
        // Octets in the beat: the highest kept lane + 1.
        self.k_in.next = 0.into();
        for i in 0..K {
            if (self.keep_in.val() & self.c_bit[i].val()) != 0 {
                self.k_in.next = self.c_lane1[i].val();
            }
        }

        self.bad.next = self.first.val() & self.s.tvalid.val() & self.s_refused.val();
        self.take.next = self.a_free.val()
            & self.s.tvalid.val()
            & !self.bad.val()
            & (self.first.val() | (self.phase.q.val() == MicPhase::Body));
        self.s.tready.next = !self.reset.val()
            & (self.take.val() | self.bad.val() | (self.phase.q.val() == MicPhase::Drop));
        self.e_mic.next = self.r_mic.q.val();
        if self.first.val() {
            self.e_mic.next = self.cfg.mic.val();
        }
        // `k_in > W − 4`: a lane from W − 4 up is kept (not a compare behind the count: W = 8's
        // `m_keep` → `k_in` → the compare's carry chain → `a_last` at stop 56).
        self.ovf.next = self.c_ovf_always.val() | ((self.keep_in.val() & self.c_ovf_lanes.val()) != 0);

        // The beat's octets, the lanes past its end zero.
        self.data_m.next = self.s.tdata.val();
        for i in 0..K {
            if (self.keep_in.val() & self.c_bit[i].val()) == 0 {
                self.data_m.next = self.data_m.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        // The MIC runs over the message's octets (mic_r is the initial value between messages),
        // whole beats with the lanes past the last beat's octets zeroed.
        // (The network's input from the ports alone, in a Local nothing else reads, not from
        // `data_m`: Verilator splits this block only into groups of statements that share no
        // variable assigned here, and one group both driving the network's input and reading
        // its result would be a combinational loop to it (UNOPTFLAT), though no real one
        // exists.)
        self.crc_d.next = self.s.tdata.val();
        for i in 0..K {
            if self.s.tlast.val() & ((self.s.tkeep.val() & self.c_bit[i].val()) == 0) {
                self.crc_d.next = self.crc_d.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.state_net.x.next = self.mic_r.q.val();
        self.data_net.x.next = self.crc_d.val();
        self.nxt.next = self.state_net.y.val() ^ self.data_net.y.val();
        // The beat's octets one-hot: the highest kept lane (tkeep's low lanes are contiguous).
        self.keep8.next = bit_cast::<8, K>(self.keep_in.val());

        // A MIC beat's octets: min(hold_cnt, W).
        self.hold_k.next = self.hold_cnt.q.val();
        if self.hold_cnt.q.val() > self.c_w.val() {
            self.hold_k.next = self.c_w.val();
        }

        // ---- The output stage: a MIC beat's octets (hold_off ≤ 3: W − k of the last beat,
        // then W more per beat at W < 4; `fin_r` was loaded when the last beat came this way),
        // the beat's octets with the MIC, the first packet's layout.
        self.out_data.next = self.a_data.q.val();
        if self.a_mb.q.val() {
            self.out_data.next =
                bit_cast::<D, 32>(self.fin_r.q.val() >> (bit_cast::<16, 8>(self.a_hoff.q.val()) << 3));
        }
        // The finished MIC of a last beat: U_{W−k} for its k.
        for i in 0..K {
            self.fin_net[i].x.next = self.a_x.q.val();
        }
        self.fin_net0.x.next = self.a_x.q.val();
        self.fin.next = 0.into();
        for i in 0..K {
            if self.a_koh.q.val().get_bit(i) {
                self.fin.next = self.fin.val() | self.fin_net[i].y.val();
            }
        }
        if self.a_k0.q.val() {
            self.fin.next = self.fin.val() | self.fin_net0.y.val();
        }
        // The output's lanes: `a_k` of them, or `min(a_k + 4, W)` when the MIC starts in the
        // beat; a table of `a_k`'s low ⌊log2 W⌋ + 1 bits and `a_ml` (a LUT or two a lane),
        // where the sum and two compares on eight bits were three carry chains in series
        // (W = 8's critical path at stop 56: `a_k` → `a_k ≤ W − 4` → the sum → the lanes).
        self.a_k_lo.next = self.a_k.q.val() & self.c_cnt_mask.val();
        self.keep_out.next = 0.into();
        for v in 0..(K + 1) {
            if self.a_k_lo.val() == self.c_cnt[v].val() {
                self.keep_out.next = self.c_keep_n[v].val();
                if self.a_ml.q.val() {
                    self.keep_out.next = self.c_keep_ml[v].val();
                }
            }
        }
        self.len_new.next = self.s_len.val();
        if self.cfg.mic.val() {
            self.len_new.next = self.s_len.val() + self.c_mic_len17.val();
        }
        self.lo9.next = bit_cast::<9, 8>(self.s_len.val().get_bits::<8>(0));
        self.lo10.next = bit_cast::<10, 9>(self.s_len.val().get_bits::<9>(0));
        if self.cfg.mic.val() {
            self.lo9.next = bit_cast::<9, 8>(self.s_len.val().get_bits::<8>(0)) + self.c_mic9.val();
            self.lo10.next = bit_cast::<10, 9>(self.s_len.val().get_bits::<9>(0)) + self.c_mic10.val();
        }
        self.mtu9.next = bit_cast::<9, 8>(self.cfg.mtu.val());
        self.mtu10.next = bit_cast::<10, 8>(self.cfg.mtu.val()) << 1;
        self.len_in.next = self.a_len.q.val();
        self.mtu17.next = bit_cast::<17, 8>(self.a_mtu.q.val());
        self.fits.next = self.a_fits.q.val();
        self.fits2.next = self.a_fits2.q.val();
        self.over_mtu.next = self.len_in.val() - self.mtu17.val();
        self.pkt0.next = self.a_mtu.q.val();
        if self.fits.val() {
            self.pkt0.next = self.len_in.val().get_bits::<8>(0);
        }
        self.room0.next = self.c_room0.val();
        if self.a_smbus.q.val() {
            self.room0.next = self.c_room0_smbus.val();
        }
        // pkt0 ≤ room0: a compare of each candidate (`a_mtu`, or `len_in` when it fits) with
        // each binding's room, side by side; the fit and the binding select last.
        self.pend0_n.next = self.a_mtu.q.val() <= self.c_room0.val();
        self.pend0_s.next = self.a_mtu.q.val() <= self.c_room0_smbus.val();
        if self.fits.val() {
            self.pend0_n.next = self.len_in.val() <= bit_cast::<17, 8>(self.c_room0.val());
            self.pend0_s.next = self.len_in.val() <= bit_cast::<17, 8>(self.c_room0_smbus.val());
        }
        self.pend0.next = self.pend0_n.val();
        if self.a_smbus.q.val() {
            self.pend0.next = self.pend0_s.val();
        }
        // The first packet's octets after its first beat, `pkt0 − p0` (0 when it ends there):
        // the subtracts side by side, the selects last.
        self.pl0_n.next = self.a_mtu.q.val() - self.c_room0.val();
        self.pl0_s.next = self.a_mtu.q.val() - self.c_room0_smbus.val();
        if self.fits.val() {
            self.pl0_n.next = self.len_in.val().get_bits::<8>(0) - self.c_room0.val();
            self.pl0_s.next = self.len_in.val().get_bits::<8>(0) - self.c_room0_smbus.val();
        }
        self.pl0.next = self.pl0_n.val();
        if self.a_smbus.q.val() {
            self.pl0.next = self.pl0_s.val();
        }
        if self.pend0.val() {
            self.pl0.next = 0.into();
        }

        // Registers: the output stage.
        if self.adv.val() {
            self.o_valid.d.next = false;
        }
        if self.mv.val() {
            self.o_data.d.next = self.out_data.val();
            self.o_keep.d.next = self.keep_out.val();
            self.o_valid.d.next = true;
            self.o_last.d.next = self.a_last.q.val();
            self.o_first.d.next = self.a_first.q.val();
            self.o_ml.d.next = self.a_ml.q.val() & (self.a_k.q.val() < self.c_w.val());
            self.o_moff.d.next = self.a_k.q.val() & self.c_lane_mask.val();
            if self.a_ml.q.val() {
                self.fin_r.d.next = self.fin.val();
            }
            if self.a_first.q.val() {
                self.f_src.d.next = self.a_src.q.val();
                self.f_dst.d.next = self.a_dst.q.val();
                self.f_tag.d.next = self.a_tag.q.val();
                self.f_to.d.next = self.a_to.q.val();
                self.f_seq.d.next = self.a_seq.q.val();
                self.f_mtu.d.next = self.a_mtu.q.val();
                self.f_smbus.d.next = self.a_smbus.q.val();
                self.f_sa_src.d.next = self.a_sa_src.q.val();
                self.f_sa_dst.d.next = self.a_sa_dst.q.val();
                // The first packet's layout (`transmit`'s split: MTU-sized packets).
                self.f_eom0.d.next = self.fits.val();
                self.f_pkt0.d.next = self.a_mtu.q.val();
                self.f_after0.d.next = self.over_mtu.val();
                self.f_neom0.d.next = self.fits2.val();
                self.f_npl0.d.next = self.a_mtu.q.val();
                if self.fits2.val() {
                    self.f_npl0.d.next = self.over_mtu.val().get_bits::<8>(0);
                }
                if self.fits.val() {
                    self.f_pkt0.d.next = self.len_in.val().get_bits::<8>(0);
                    self.f_after0.d.next = 0.into();
                    self.f_npl0.d.next = 0.into();
                }
                self.f_pend0.d.next = self.pend0.val();
                self.f_pl0.d.next = self.pl0.val();
                self.f_p0.d.next = self.room0.val();
                if self.pend0.val() {
                    self.f_p0.d.next = self.pkt0.val();
                }
            }
        }

        // Registers: the input stage.
        if self.mv.val() {
            self.a_valid.d.next = false;
        }
        match self.phase.q.val() {
            MicPhase::Drop => {
                if self.s.tvalid.val() & self.s.tlast.val() {
                    self.phase.d.next = MicPhase::Idle;
                }
            }
            MicPhase::Mic => {
                if self.a_free.val() {
                    // The MIC octets from hold_off on, filled in as the beat moves on.
                    self.a_mb.d.next = true;
                    self.a_hoff.d.next = self.hold_off.q.val();
                    self.a_k.d.next = self.hold_k.val();
                    self.a_ml.d.next = false;
                    self.a_valid.d.next = true;
                    self.a_last.d.next = self.hold_cnt.q.val() <= self.c_w.val();
                    self.a_first.d.next = false;
                    self.hold_off.d.next = self.hold_off.q.val() + self.c_w.val();
                    self.hold_cnt.d.next = self.hold_cnt.q.val() - self.c_w.val();
                    if self.hold_cnt.q.val() <= self.c_w.val() {
                        self.phase.d.next = MicPhase::Idle;
                    }
                }
            }
            _ => {
                // The beat's registers are written whenever the input stage's register is free
                // (its beat, if any, moves on in this clock): only `a_valid` and the phase wait
                // on `take`, which waits on the refusal check, so the wide enables do not. What
                // a beat that is not taken leaves there is never read.
                if self.a_free.val() {
                    self.a_data.d.next = self.data_m.val();
                    self.a_k.d.next = self.k_in.val();
                    self.a_ml.d.next = self.s.tlast.val() & self.e_mic.val();
                    self.a_x.d.next = self.nxt.val();
                    self.a_koh.d.next = self.keep8.val() & !(self.keep8.val() >> self.c_one8.val());
                    self.a_k0.d.next = self.keep8.val() == 0;
                    self.a_mb.d.next = false;
                    self.a_last.d.next = self.s.tlast.val() & !(self.e_mic.val() & self.ovf.val());
                    self.a_first.d.next = self.first.val();
                    // The MIC octets past a last beat: W − k of them went into it.
                    self.hold_off.d.next = self.c_w.val() - self.k_in.val();
                    self.hold_cnt.d.next = self.k_in.val() + self.c_mic_len.val() - self.c_w.val();
                    if self.first.val() {
                        self.r_mic.d.next = self.cfg.mic.val();
                        self.a_src.d.next = self.cfg.src_eid.val();
                        self.a_dst.d.next = self.cfg.dst_eid.val();
                        self.a_tag.d.next = self.cfg.tag.val();
                        self.a_to.d.next = self.cfg.to.val();
                        self.a_seq.d.next = self.cfg.seq.val();
                        self.a_mtu.d.next = self.cfg.mtu.val();
                        self.a_smbus.d.next = self.cfg.smbus.val();
                        self.a_sa_src.d.next = self.cfg.smbus_src.val();
                        self.a_sa_dst.d.next = self.cfg.smbus_dst.val();
                        self.a_len.d.next = self.len_new.val();
                        self.a_fits.d.next = (self.s_len.val().get_bits::<9>(8) == 0) & (self.lo9.val() <= self.mtu9.val());
                        self.a_fits2.d.next = (self.s_len.val().get_bits::<8>(9) == 0) & (self.lo10.val() <= self.mtu10.val());
                    }
                }
                if self.bad.val() {
                    self.n_dropped.d.next = self.n_dropped.q.val() + 1;
                    if !self.s.tlast.val() {
                        self.phase.d.next = MicPhase::Drop;
                    }
                } else if self.take.val() {
                    self.a_valid.d.next = true;
                    self.mic_r.d.next = self.nxt.val();
                    self.phase.d.next = MicPhase::Body;
                    if self.s.tlast.val() {
                        self.mic_r.d.next = self.c_init.val();
                        self.phase.d.next = MicPhase::Idle;
                        if self.e_mic.val() & self.ovf.val() {
                            self.phase.d.next = MicPhase::Mic;
                        }
                    }
                }
            }
        }
        if self.reset.val() {
            self.phase.d.next = MicPhase::Idle;
            self.mic_r.d.next = self.c_init.val();
            self.r_mic.d.next = false;
            self.fin_r.d.next = 0.into();
            self.hold_off.d.next = 0.into();
            self.hold_cnt.d.next = 0.into();
            self.a_valid.d.next = false;
            self.o_data.d.next = 0.into();
            self.o_keep.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_last.d.next = false;
            self.o_first.d.next = false;
            self.o_ml.d.next = false;
            self.n_dropped.d.next = 0.into();
        }
    }
}
