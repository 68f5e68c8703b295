//! The packetizer's input: a skid buffer in front of the message stage, so that `s_tready` is
//! a register and nothing behind the input pins reaches back to them in the clock a beat
//! arrives (issue 27: in `OffloadTop` W = 8, the message stage's combinational `s_tready`,
//! behind the refusal check of the configuration registers, ran on into the register block's
//! frame counter and was the top's critical path).
//!
//! The configuration and `s_len` ride on the buffer's side channel, so each beat carries the
//! values present when it was accepted (the port contract: they are latched with the first
//! beat). What `offload_driver::mctp::transmit` refuses is judged here, as the beat enters,
//! and rides along as one bit (`m_refused`): the compares of the length, the MTU and the EIDs
//! are then in front of a register, not in front of the message stage's `s_tready`. The bit is
//! worked out for every beat; the message stage reads it on a message's first beat only.
//! Latency one clock; one beat per clock.

use super::{MctpTxConfig, MctpTxConfigSource};
use crate::axis::{AxisSink, AxisSkid, AxisSource};
use offload_driver::mctp::header::{EID_BROADCAST, EID_RESERVED};
use offload_driver::mctp::{MAX_MESSAGE_LEN, MAX_MTU, MIN_MTU, SMBUS_MAX_MTU};
use offload_driver::nvme_mi::{IC_BIT, MIC_LEN, OOB_MAX_MESSAGE_LEN};
use rust_hdl::prelude::*;

/// The side channel: the configuration (46 bits), `s_len` (17) and the refusal (1).
const SIDE_BITS: usize = 64;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct InputStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the buffer empties, `s.tready` low.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpTxConfig,
    pub s: AxisSink<D, K>,
    pub s_len: Signal<In, Bits<17>>,
    pub m: AxisSource<D, K>,
    /// The configuration and `s_len` accepted with the beat on `m`.
    pub m_cfg: MctpTxConfigSource,
    pub m_len: Signal<Out, Bits<17>>,
    /// The message the beat on `m` opens (if it is a first beat) is one `transmit` refuses.
    pub m_refused: Signal<Out, Bit>,
    skid: AxisSkid<D, K, SIDE_BITS>,
    side: Signal<Local, Bits<SIDE_BITS>>,
    refused: Signal<Local, Bit>,
    c_one: Constant<Bits<SIDE_BITS>>,
    c_max_len: Constant<Bits<17>>,
    c_mic_max_len: Constant<Bits<17>>,
    c_min_mtu: Constant<Bits<8>>,
    c_max_mtu: Constant<Bits<8>>,
    c_smbus_max_mtu: Constant<Bits<8>>,
    c_eid_lo: Constant<Bits<8>>,
    c_eid_hi: Constant<Bits<8>>,
    c_eid_bcast: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize> Default for InputStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "InputStage<8K, K> with K in 1, 2, 4, 8");
        assert_eq!(IC_BIT, 0x80, "the IC bit is read as bit 7 of the first octet");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            m: Default::default(),
            m_cfg: Default::default(),
            m_len: Default::default(),
            m_refused: Default::default(),
            skid: Default::default(),
            side: Default::default(),
            refused: Default::default(),
            c_one: Constant::new(1u64.into()),
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

impl<const D: usize, const K: usize> Logic for InputStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, skid);
        self.skid.reset.next = self.reset.val();
        // What the software transmit refuses (length, MTU, EIDs, MIC without the IC bit or
        // over the NVMe-MI out-of-band limit), from the beat's own port values.
        self.refused.next = (self.s_len.val() == 0)
            | (self.s_len.val() > self.c_max_len.val())
            | (self.cfg.mtu.val() < self.c_min_mtu.val())
            | (self.cfg.mtu.val() > self.c_max_mtu.val())
            | (self.cfg.smbus.val() & (self.cfg.mtu.val() > self.c_smbus_max_mtu.val()))
            | ((self.cfg.src_eid.val() >= self.c_eid_lo.val()) & (self.cfg.src_eid.val() <= self.c_eid_hi.val()))
            | (self.cfg.src_eid.val() == self.c_eid_bcast.val())
            | ((self.cfg.dst_eid.val() >= self.c_eid_lo.val()) & (self.cfg.dst_eid.val() <= self.c_eid_hi.val()))
            | (self.cfg.mic.val() & (!self.s.tdata.val().get_bit(7) | (self.s_len.val() > self.c_mic_max_len.val())));
        self.side.next = (bit_cast::<SIDE_BITS, 8>(self.cfg.src_eid.val()) << 0)
            | (bit_cast::<SIDE_BITS, 8>(self.cfg.dst_eid.val()) << 8)
            | (bit_cast::<SIDE_BITS, 3>(self.cfg.tag.val()) << 16)
            | (bit_cast::<SIDE_BITS, 2>(self.cfg.seq.val()) << 20)
            | (bit_cast::<SIDE_BITS, 8>(self.cfg.mtu.val()) << 22)
            | (bit_cast::<SIDE_BITS, 7>(self.cfg.smbus_src.val()) << 32)
            | (bit_cast::<SIDE_BITS, 7>(self.cfg.smbus_dst.val()) << 39)
            | (bit_cast::<SIDE_BITS, 17>(self.s_len.val()) << 46);
        if self.cfg.to.val() {
            self.side.next = self.side.val() | (self.c_one.val() << 19);
        }
        if self.cfg.mic.val() {
            self.side.next = self.side.val() | (self.c_one.val() << 30);
        }
        if self.cfg.smbus.val() {
            self.side.next = self.side.val() | (self.c_one.val() << 31);
        }
        if self.refused.val() {
            self.side.next = self.side.val() | (self.c_one.val() << 63);
        }
        AxisSink::<D, K>::link(&mut self.s, &mut self.skid.s);
        self.skid.s_user.next = self.side.val();
        AxisSource::<D, K>::link(&mut self.m, &mut self.skid.m);
        self.m_cfg.src_eid.next = self.skid.m_user.val().get_bits::<8>(0);
        self.m_cfg.dst_eid.next = self.skid.m_user.val().get_bits::<8>(8);
        self.m_cfg.tag.next = self.skid.m_user.val().get_bits::<3>(16);
        self.m_cfg.to.next = self.skid.m_user.val().get_bit(19);
        self.m_cfg.seq.next = self.skid.m_user.val().get_bits::<2>(20);
        self.m_cfg.mtu.next = self.skid.m_user.val().get_bits::<8>(22);
        self.m_cfg.mic.next = self.skid.m_user.val().get_bit(30);
        self.m_cfg.smbus.next = self.skid.m_user.val().get_bit(31);
        self.m_cfg.smbus_src.next = self.skid.m_user.val().get_bits::<7>(32);
        self.m_cfg.smbus_dst.next = self.skid.m_user.val().get_bits::<7>(39);
        self.m_len.next = self.skid.m_user.val().get_bits::<17>(46);
        self.m_refused.next = self.skid.m_user.val().get_bit(63);
    }
}
