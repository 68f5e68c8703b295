//! Stage A of the MCTP packetizer: the message stream. It judges each message on its first beat
//! (what `offload_driver::mctp::transmit` refuses is dropped whole and counted), latches the
//! message's header fields for the packet stage ([`super::MessageFieldsSource`]), masks the
//! octets past `tkeep` and, when asked, appends the NVMe-MI MIC (CRC-32C over the message, low
//! octet first) right after the last message octet — in the last beat's free lanes, and in one
//! more beat (several at W < 4) for the octets that do not fit.
//!
//! Its output is the payload stream of the message: full beats, the last one holding `cnt`
//! octets in its low lanes (`tkeep` = that many low ones, the lanes above zero).

use super::{MctpTxConfig, MessageFieldsSource};
use crate::axis::{AxisSink, AxisSource};
use crate::crc::CrcStep;
use offload_driver::crc::CrcKind;
use offload_driver::mctp::header::{EID_BROADCAST, EID_RESERVED};
use offload_driver::mctp::{MAX_MESSAGE_LEN, MAX_MTU, MIN_MTU, SMBUS_MAX_MTU};
use offload_driver::nvme_mi::{IC_BIT, MIC_LEN, OOB_MAX_MESSAGE_LEN};
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
    /// The payload stream (message and MIC).
    pub m: AxisSource<D, K>,
    /// The fields of the message whose beats are on `m` (stable from its first beat on `m`
    /// until that beat is taken).
    pub msg: MessageFieldsSource,
    /// Messages refused (dropped whole).
    pub dropped: Signal<Out, Bits<32>>,
    step: CrcStep<D, K, 32>,
    phase: DFF<MicPhase>,
    mic_r: DFF<Bits<32>>,
    r_mic: DFF<Bit>,
    hold: DFF<Bits<32>>,
    hold_cnt: DFF<Bits<8>>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_valid: DFF<Bit>,
    o_last: DFF<Bit>,
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
    f_npl0: DFF<Bits<8>>,
    f_neom0: DFF<Bit>,
    n_dropped: DFF<Bits<32>>,
    adv: Signal<Local, Bit>,
    first: Signal<Local, Bit>,
    keep_in: Signal<Local, Bits<K>>,
    k_in: Signal<Local, Bits<8>>,
    refused: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    e_mic: Signal<Local, Bit>,
    data_m: Signal<Local, Bits<D>>,
    k4: Signal<Local, Bits<8>>,
    out_cnt: Signal<Local, Bits<8>>,
    out_last: Signal<Local, Bit>,
    keep_out: Signal<Local, Bits<K>>,
    hold_keep: Signal<Local, Bits<K>>,
    len_in: Signal<Local, Bits<17>>,
    mtu17: Signal<Local, Bits<17>>,
    /// The whole message fits one packet.
    fits: Signal<Local, Bit>,
    pkt0: Signal<Local, Bits<8>>,
    /// The message fits two packets.
    fits2: Signal<Local, Bit>,
    over_mtu: Signal<Local, Bits<17>>,
    room0: Signal<Local, Bits<8>>,
    pend0: Signal<Local, Bit>,
    c_room0: Constant<Bits<8>>,
    c_room0_smbus: Constant<Bits<8>>,
    c_lane1: [Constant<Bits<8>>; K],
    c_lane: [Constant<Bits<8>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_ones_k: Constant<Bits<K>>,
    c_byte_d: Constant<Bits<D>>,
    c_w: Constant<Bits<8>>,
    c_lane_mask: Constant<Bits<8>>,
    c_mic_len: Constant<Bits<8>>,
    c_mic_len17: Constant<Bits<17>>,
    c_hold_shift: Constant<Bits<8>>,
    c_init: Constant<Bits<32>>,
    c_max_len: Constant<Bits<17>>,
    c_mic_max_len: Constant<Bits<17>>,
    c_min_mtu: Constant<Bits<8>>,
    c_max_mtu: Constant<Bits<8>>,
    c_smbus_max_mtu: Constant<Bits<8>>,
    c_eid_lo: Constant<Bits<8>>,
    c_eid_hi: Constant<Bits<8>>,
    c_eid_bcast: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize> Default for MicStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "MicStage<8K, K> with K in 1, 2, 4, 8");
        assert_eq!(IC_BIT, 0x80, "the IC bit is read as bit 7 of the first octet");
        assert_eq!(MIC_LEN, 4);
        let step = CrcStep::<D, K, 32>::new(CrcKind::Crc32c);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            m: Default::default(),
            msg: Default::default(),
            dropped: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            phase: Default::default(),
            mic_r: Default::default(),
            r_mic: Default::default(),
            hold: Default::default(),
            hold_cnt: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_valid: Default::default(),
            o_last: Default::default(),
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
            f_npl0: Default::default(),
            f_neom0: Default::default(),
            n_dropped: Default::default(),
            adv: Default::default(),
            first: Default::default(),
            keep_in: Default::default(),
            k_in: Default::default(),
            refused: Default::default(),
            bad: Default::default(),
            take: Default::default(),
            e_mic: Default::default(),
            data_m: Default::default(),
            k4: Default::default(),
            out_cnt: Default::default(),
            out_last: Default::default(),
            keep_out: Default::default(),
            hold_keep: Default::default(),
            len_in: Default::default(),
            mtu17: Default::default(),
            fits: Default::default(),
            pkt0: Default::default(),
            fits2: Default::default(),
            over_mtu: Default::default(),
            room0: Default::default(),
            pend0: Default::default(),
            // The first beat's room after the header: W − min(header, W).
            c_room0: super::first_beat_room(K, false),
            c_room0_smbus: super::first_beat_room(K, true),
            c_lane1: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            c_lane: std::array::from_fn(|i| Constant::new((i as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_w: Constant::new((K as u64).into()),
            c_lane_mask: Constant::new(((K - 1) as u64).into()),
            c_mic_len: Constant::new((MIC_LEN as u64).into()),
            c_mic_len17: Constant::new((MIC_LEN as u64).into()),
            // Only W < 4 sends more than one MIC beat: the shift to the next beat's octets.
            c_hold_shift: Constant::new((if K < 4 { 8 * K as u64 } else { 0 }).into()),
            c_max_len: Constant::new((MAX_MESSAGE_LEN as u64).into()),
            c_mic_max_len: Constant::new(((OOB_MAX_MESSAGE_LEN - MIC_LEN) as u64).into()),
            c_min_mtu: Constant::new((MIN_MTU as u64).into()),
            c_max_mtu: Constant::new((MAX_MTU as u64).into()),
            c_smbus_max_mtu: Constant::new((SMBUS_MAX_MTU as u64).into()),
            c_eid_lo: Constant::new((*EID_RESERVED.start() as u64).into()),
            c_eid_hi: Constant::new((*EID_RESERVED.end() as u64).into()),
            c_eid_bcast: Constant::new((EID_BROADCAST as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MicStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, phase, mic_r, r_mic, hold, hold_cnt, o_data, o_keep, o_valid, o_last, f_src, f_dst, f_tag,
            f_to, f_seq, f_mtu, f_smbus, f_sa_src, f_sa_dst, f_pkt0, f_eom0, f_after0, f_p0, f_pend0, f_npl0, f_neom0, n_dropped
        );
        self.m.tdata.next = self.o_data.q.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tlast.next = self.o_last.q.val();
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
        self.msg.npl0.next = self.f_npl0.q.val();
        self.msg.neom0.next = self.f_neom0.q.val();
        self.dropped.next = self.n_dropped.q.val();

        self.adv.next = !self.o_valid.q.val() | self.m.tready.val();
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

        // What the software transmit refuses (length, MTU, EIDs, MIC without the IC bit or
        // over the NVMe-MI out-of-band limit).
        self.refused.next = (self.s_len.val() == 0)
            | (self.s_len.val() > self.c_max_len.val())
            | (self.cfg.mtu.val() < self.c_min_mtu.val())
            | (self.cfg.mtu.val() > self.c_max_mtu.val())
            | (self.cfg.smbus.val() & (self.cfg.mtu.val() > self.c_smbus_max_mtu.val()))
            | ((self.cfg.src_eid.val() >= self.c_eid_lo.val()) & (self.cfg.src_eid.val() <= self.c_eid_hi.val()))
            | (self.cfg.src_eid.val() == self.c_eid_bcast.val())
            | ((self.cfg.dst_eid.val() >= self.c_eid_lo.val()) & (self.cfg.dst_eid.val() <= self.c_eid_hi.val()))
            | (self.cfg.mic.val() & (!self.s.tdata.val().get_bit(7) | (self.s_len.val() > self.c_mic_max_len.val())));
        self.bad.next = self.first.val() & self.s.tvalid.val() & self.refused.val();
        self.take.next = self.adv.val()
            & self.s.tvalid.val()
            & !self.bad.val()
            & (self.first.val() | (self.phase.q.val() == MicPhase::Body));
        self.s.tready.next = !self.reset.val()
            & (self.take.val() | self.bad.val() | (self.phase.q.val() == MicPhase::Drop));
        self.e_mic.next = self.r_mic.q.val();
        if self.first.val() {
            self.e_mic.next = self.cfg.mic.val();
        }

        // The MIC runs over the message's octets (mic_r is the initial value between messages:
        // the step's state comes straight from the register, no loop through this block).
        self.step.state.next = self.mic_r.q.val();
        self.step.data.next = self.s.tdata.val();
        // (From the ports, not keep_in: Verilator then orders this apart from the rest.)
        self.step.keep.next = self.c_ones_k.val();
        if self.s.tlast.val() {
            self.step.keep.next = self.s.tkeep.val();
        }

        // The beat's octets, the lanes past its end zero; on the last beat the MIC after them.
        self.data_m.next = self.s.tdata.val();
        for i in 0..K {
            if (self.keep_in.val() & self.c_bit[i].val()) == 0 {
                self.data_m.next = self.data_m.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.k4.next = self.k_in.val() + self.c_mic_len.val();
        self.out_cnt.next = self.k_in.val();
        self.out_last.next = self.s.tlast.val();
        if self.s.tlast.val() & self.e_mic.val() {
            if self.k_in.val() < self.c_w.val() {
                self.data_m.next = self.data_m.val()
                    | (bit_cast::<D, 32>(self.step.fin.val())
                        << (bit_cast::<16, 8>(self.k_in.val() & self.c_lane_mask.val()) << 3));
            }
            if self.k4.val() <= self.c_w.val() {
                self.out_cnt.next = self.k4.val();
            } else {
                self.out_cnt.next = self.c_w.val();
                self.out_last.next = false;
            }
        }
        self.keep_out.next = 0.into();
        self.hold_keep.next = 0.into();
        for i in 0..K {
            if self.c_lane[i].val() < self.out_cnt.val() {
                self.keep_out.next = self.keep_out.val() | self.c_bit[i].val();
            }
            if self.c_lane[i].val() < self.hold_cnt.q.val() {
                self.hold_keep.next = self.hold_keep.val() | self.c_bit[i].val();
            }
        }
        self.len_in.next = self.s_len.val();
        if self.cfg.mic.val() {
            self.len_in.next = self.s_len.val() + self.c_mic_len17.val();
        }
        self.mtu17.next = bit_cast::<17, 8>(self.cfg.mtu.val());
        self.fits.next = self.len_in.val() <= self.mtu17.val();
        self.fits2.next = self.len_in.val() <= (self.mtu17.val() << 1);
        self.over_mtu.next = self.len_in.val() - self.mtu17.val();
        self.pkt0.next = self.cfg.mtu.val();
        if self.fits.val() {
            self.pkt0.next = self.len_in.val().get_bits::<8>(0);
        }
        self.room0.next = self.c_room0.val();
        if self.cfg.smbus.val() {
            self.room0.next = self.c_room0_smbus.val();
        }
        // pkt0 ≤ room0, from both compares side by side rather than after the pkt0 select.
        self.pend0.next = self.cfg.mtu.val() <= self.room0.val();
        if self.fits.val() {
            self.pend0.next = self.len_in.val() <= bit_cast::<17, 8>(self.room0.val());
        }

        // Registers.
        if self.adv.val() {
            self.o_valid.d.next = false;
        }
        match self.phase.q.val() {
            MicPhase::Drop => {
                if self.s.tvalid.val() & self.s.tlast.val() {
                    self.phase.d.next = MicPhase::Idle;
                }
            }
            MicPhase::Mic => {
                if self.adv.val() {
                    self.o_data.d.next = bit_cast::<D, 32>(self.hold.q.val());
                    self.o_keep.d.next = self.hold_keep.val();
                    self.o_valid.d.next = true;
                    self.o_last.d.next = self.hold_cnt.q.val() <= self.c_w.val();
                    self.hold.d.next = self.hold.q.val() >> self.c_hold_shift.val();
                    self.hold_cnt.d.next = self.hold_cnt.q.val() - self.c_w.val();
                    if self.hold_cnt.q.val() <= self.c_w.val() {
                        self.phase.d.next = MicPhase::Idle;
                    }
                }
            }
            _ => {
                if self.bad.val() {
                    self.n_dropped.d.next = self.n_dropped.q.val() + 1;
                    if !self.s.tlast.val() {
                        self.phase.d.next = MicPhase::Drop;
                    }
                } else if self.take.val() {
                    self.o_data.d.next = self.data_m.val();
                    self.o_keep.d.next = self.keep_out.val();
                    self.o_valid.d.next = true;
                    self.o_last.d.next = self.out_last.val();
                    self.mic_r.d.next = self.step.nxt.val();
                    self.phase.d.next = MicPhase::Body;
                    if self.first.val() {
                        self.r_mic.d.next = self.cfg.mic.val();
                        self.f_src.d.next = self.cfg.src_eid.val();
                        self.f_dst.d.next = self.cfg.dst_eid.val();
                        self.f_tag.d.next = self.cfg.tag.val();
                        self.f_to.d.next = self.cfg.to.val();
                        self.f_seq.d.next = self.cfg.seq.val();
                        self.f_mtu.d.next = self.cfg.mtu.val();
                        self.f_smbus.d.next = self.cfg.smbus.val();
                        self.f_sa_src.d.next = self.cfg.smbus_src.val();
                        self.f_sa_dst.d.next = self.cfg.smbus_dst.val();
                        // The first packet's layout (`transmit`'s split: MTU-sized packets).
                        self.f_eom0.d.next = self.fits.val();
                        self.f_pkt0.d.next = self.cfg.mtu.val();
                        self.f_after0.d.next = self.over_mtu.val();
                        self.f_neom0.d.next = self.fits2.val();
                        self.f_npl0.d.next = self.cfg.mtu.val();
                        if self.fits2.val() {
                            self.f_npl0.d.next = self.over_mtu.val().get_bits::<8>(0);
                        }
                        if self.fits.val() {
                            self.f_pkt0.d.next = self.len_in.val().get_bits::<8>(0);
                            self.f_after0.d.next = 0.into();
                            self.f_npl0.d.next = 0.into();
                        }
                        self.f_pend0.d.next = self.pend0.val();
                        self.f_p0.d.next = self.room0.val();
                        if self.pend0.val() {
                            self.f_p0.d.next = self.pkt0.val();
                        }
                    }
                    if self.s.tlast.val() {
                        self.mic_r.d.next = self.c_init.val();
                        self.phase.d.next = MicPhase::Idle;
                        if self.e_mic.val() & (self.k4.val() > self.c_w.val()) {
                            // The MIC octets past the beat: from octet W - k of the MIC on.
                            self.phase.d.next = MicPhase::Mic;
                            self.hold.d.next = self.step.fin.val()
                                >> (bit_cast::<16, 8>(self.c_w.val() - self.k_in.val()) << 3);
                            self.hold_cnt.d.next = self.k4.val() - self.c_w.val();
                        }
                    }
                }
            }
        }
        if self.reset.val() {
            self.phase.d.next = MicPhase::Idle;
            self.mic_r.d.next = self.c_init.val();
            self.r_mic.d.next = false;
            self.hold.d.next = 0.into();
            self.hold_cnt.d.next = 0.into();
            self.o_data.d.next = 0.into();
            self.o_keep.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_last.d.next = false;
            self.n_dropped.d.next = 0.into();
        }
    }
}
