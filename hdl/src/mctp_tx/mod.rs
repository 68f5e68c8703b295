//! MCTP transmit offload (DSP0236 packets, NVMe-MI MIC, DSP0237 SMBus binding): one message in,
//! one AXI-Stream frame per MCTP packet out — byte-identical to `offload_driver::mctp::transmit`.
//!
//! Ports (AXI4-Stream conventions):
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: the message (first octet IC·message type);
//!   tkeep is read on the last beat only, its kept lanes contiguous from lane 0 (AXI4-Stream's
//!   packed form). With the first beat: `s_len` (octets, 17 bits) and the
//!   header fields `cfg_src_eid`, `cfg_dst_eid`, `cfg_tag`, `cfg_to`, `cfg_seq` (first packet's
//!   sequence number), `cfg_mtu` (payload octets per packet, 64..=251; ≤ 250 with SMBus),
//!   `cfg_mic` (append the NVMe-MI MIC), `cfg_smbus`, `cfg_smbus_src`, `cfg_smbus_dst` (7-bit
//!   slave addresses). They are latched with that beat.
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: the packets, one frame each
//!   (`[SMBus prefix] · header · payload · [PEC]`), partial tkeep on the last beat only.
//! - `counters_packets`, `counters_messages`, `counters_dropped` (messages `transmit` would
//!   refuse, dropped whole), `counters_len_errors` (frames whose length was not `s_len`).
//!
//! The ports are bundles ([`MctpTxConfig`] `cfg`, the AXI-Stream `s`/`m`, [`MctpTxCounters`]
//! `counters`), flattened to the names above at the boundary.
//!
//! Written once, in `#[hdl_gen]`, as four stages in one file each, joined by bundles:
//! [`input::InputStage`] (a skid buffer, so that `s_tready` is a register, carrying the
//! configuration, `s_len` and the refusal check of each beat), [`mic::MicStage`] (refusals
//! acted on, the header fields latched, the NVMe-MI MIC appended: the
//! message's payload stream), [`packets::PacketStage`] (the packets: headers, SMBus prefix, the
//! payload split by the MTU; the datapath is described there) and [`pec::PecStage`] (the SMBus
//! PEC), with a skid buffer between the message and packet stages (the beat's octet count on
//! its `tkeep`; the message fields in a second one beside it, an entry per message), so that
//! the packet stage's input handshake ends at registers, and another between the packet and PEC stages (the PEC mark on
//! its side channel), so that the packet stage's output handshake does too: the
//! `m_tready` of whatever the block drives reaches the PEC stage's enables and the buffer's, never
//! the packet stage's. The CRC-32C and CRC-8 networks
//! are [`crate::crc::CrcStep`] leaves. Latency [`LATENCY`] clocks; back-to-back messages run at
//! one output beat per clock.
//!
//! `s_len` must equal the octets the frame carries; if it does not, the block does not hang: a
//! short message is padded with zero octets (after its MIC), the excess of a long one is
//! discarded, and `len_errors` counts it. The message ends with the beat that carries its
//! `s_len`-th octet: without the MIC an empty `tlast` beat after that one counts too (its packets
//! are unchanged); with the MIC the MIC stage closes the message on the empty beat
//! (`tests::an_empty_last_beat_changes_nothing`).

pub mod input;
pub mod mic;
pub mod packets;
pub mod pec;

use crate::axis::{AxisSink, AxisSource, AxisStageSkidPreload, EntryQueue};
use crate::testbench::{BenchError, HdlModel};
use input::InputStage;
use mic::MicStage;
use packets::PacketStage;
use pec::PecStage;
use rust_hdl::prelude::*;

/// The packetizer's header fields and bindings (`cfg_*` at the boundary), latched with each
/// message's first beat; driven by the register block ([`MctpTxConfigSource`]).
#[derive(LogicInterface, Default)]
#[join = "MctpTxConfigSource"]
pub struct MctpTxConfig {
    pub src_eid: Signal<In, Bits<8>>,
    pub dst_eid: Signal<In, Bits<8>>,
    pub tag: Signal<In, Bits<3>>,
    pub to: Signal<In, Bit>,
    pub seq: Signal<In, Bits<2>>,
    pub mtu: Signal<In, Bits<8>>,
    pub mic: Signal<In, Bit>,
    pub smbus: Signal<In, Bit>,
    pub smbus_src: Signal<In, Bits<7>>,
    pub smbus_dst: Signal<In, Bits<7>>,
}

/// The driving side of [`MctpTxConfig`].
#[derive(LogicInterface, Default)]
#[join = "MctpTxConfig"]
pub struct MctpTxConfigSource {
    pub src_eid: Signal<Out, Bits<8>>,
    pub dst_eid: Signal<Out, Bits<8>>,
    pub tag: Signal<Out, Bits<3>>,
    pub to: Signal<Out, Bit>,
    pub seq: Signal<Out, Bits<2>>,
    pub mtu: Signal<Out, Bits<8>>,
    pub mic: Signal<Out, Bit>,
    pub smbus: Signal<Out, Bit>,
    pub smbus_src: Signal<Out, Bits<7>>,
    pub smbus_dst: Signal<Out, Bits<7>>,
}

/// The packetizer's counters (`counters_*` at the boundary).
#[derive(LogicInterface, Default)]
#[join = "MctpTxCountersSink"]
pub struct MctpTxCounters {
    pub packets: Signal<Out, Bits<32>>,
    pub messages: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub len_errors: Signal<Out, Bits<32>>,
}

/// The reading side of [`MctpTxCounters`].
#[derive(LogicInterface, Default)]
#[join = "MctpTxCounters"]
pub struct MctpTxCountersSink {
    pub packets: Signal<In, Bits<32>>,
    pub messages: Signal<In, Bits<32>>,
    pub dropped: Signal<In, Bits<32>>,
    pub len_errors: Signal<In, Bits<32>>,
}

/// The fields of one message, from the message stage to the packet stage ([`MessageFields`]):
/// the header fields latched with its first beat, and the first packet's layout worked out
/// from its payload octets (`s_len`, plus the MIC when asked) and the MTU there, so that the
/// packet stage's first beat starts from registers instead of comparing the length with the
/// MTU in the clock it forms the beat.
#[derive(LogicInterface, Default)]
#[join = "MessageFields"]
pub struct MessageFieldsSource {
    pub src: Signal<Out, Bits<8>>,
    pub dst: Signal<Out, Bits<8>>,
    pub tag: Signal<Out, Bits<3>>,
    pub to: Signal<Out, Bit>,
    pub seq: Signal<Out, Bits<2>>,
    pub mtu: Signal<Out, Bits<8>>,
    pub smbus: Signal<Out, Bit>,
    pub sa_src: Signal<Out, Bits<7>>,
    pub sa_dst: Signal<Out, Bits<7>>,
    /// The first packet's payload octets, `min(len, mtu)`.
    pub pkt0: Signal<Out, Bits<8>>,
    /// The first packet is the last: `len ≤ mtu`.
    pub eom0: Signal<Out, Bit>,
    /// The message's octets after the first packet, `len − pkt0`.
    pub after0: Signal<Out, Bits<17>>,
    /// The first beat's payload octets, `min(pkt0, room0)` (`room0`: what the binding's
    /// header leaves of the first beat), and whether the packet's payload ends in it.
    pub p0: Signal<Out, Bits<8>>,
    pub pend0: Signal<Out, Bit>,
    /// The first packet's octets after its first beat, `pkt0 − p0`: the second beat's layout
    /// then starts from a register too.
    pub pl0: Signal<Out, Bits<8>>,
    /// The second packet's payload octets, `min(after0, mtu)`, and whether it is the last.
    pub npl0: Signal<Out, Bits<8>>,
    pub neom0: Signal<Out, Bit>,
    /// The lanes the first beat uses (its header octets and `p0` payload octets; lane `i` is
    /// bit `i`): worked out in front of the skid buffer, so the packet stage's first beat
    /// takes its lanes from a register (W = 8's critical path ran from `p0` through the lane
    /// compares into the output data).
    pub keep0: Signal<Out, Bits<8>>,
}

/// The reading side of [`MessageFieldsSource`].
#[derive(LogicInterface, Default)]
#[join = "MessageFieldsSource"]
pub struct MessageFields {
    pub src: Signal<In, Bits<8>>,
    pub dst: Signal<In, Bits<8>>,
    pub tag: Signal<In, Bits<3>>,
    pub to: Signal<In, Bit>,
    pub seq: Signal<In, Bits<2>>,
    pub mtu: Signal<In, Bits<8>>,
    pub smbus: Signal<In, Bit>,
    pub sa_src: Signal<In, Bits<7>>,
    pub sa_dst: Signal<In, Bits<7>>,
    pub pkt0: Signal<In, Bits<8>>,
    pub eom0: Signal<In, Bit>,
    pub after0: Signal<In, Bits<17>>,
    pub p0: Signal<In, Bits<8>>,
    pub pend0: Signal<In, Bit>,
    pub pl0: Signal<In, Bits<8>>,
    pub npl0: Signal<In, Bits<8>>,
    pub neom0: Signal<In, Bit>,
    pub keep0: Signal<In, Bits<8>>,
}

/// Payload octets left in a packet's first beat of `k` octets after the header (and the SMBus
/// prefix with `smbus`): `k − min(header, k)`. One definition for stage A (`p0`) and the packet
/// stage (a new packet's first beat), from [`HeaderBeats`].
fn first_beat_room(k: usize, smbus: bool) -> Constant<Bits<8>> {
    Constant::new((HeaderBeats::new(k, smbus).rm[0] as u64).into())
}

/// `2k − 1`: the bits that hold a count of at most `k` octets (`k` a power of two), so that
/// both stages compare and add counts on those bits alone, not on eight.
fn count_mask(k: usize) -> Constant<Bits<8>> {
    Constant::new(((2 * k - 1) as u64).into())
}

/// The lanes of a message's first beat of `k` octets that hold header octets (and the SMBus
/// prefix with `smbus`), low ones: one definition for stage A (`keep0`) and the packet stage
/// (the first beat's header lanes), from [`HeaderBeats`].
fn first_beat_header_lanes(k: usize, smbus: bool) -> u64 {
    crate::bits::low_ones(HeaderBeats::new(k, smbus).nh[0])
}

/// A packet's header octets beat by beat: in beat `i` (0, 1, 2) `nh[i] = min(rest before, W)`
/// header octets, `rm[i] = W − nh[i]` octets of payload room and `rest[i]` header octets after
/// it (`hl` = 4, or 8 with the SMBus prefix).
pub(crate) struct HeaderBeats {
    pub(crate) nh: [usize; 3],
    pub(crate) rm: [usize; 3],
    pub(crate) rest: [usize; 3],
}

impl HeaderBeats {
    pub(crate) fn new(k: usize, smbus: bool) -> HeaderBeats {
        use offload_driver::mctp::{smbus::PREFIX_LEN, HEADER_LEN};
        let mut left = HEADER_LEN + if smbus { PREFIX_LEN } else { 0 };
        let (mut nh, mut rm, mut rest) = ([0; 3], [0; 3], [0; 3]);
        for i in 0..3 {
            nh[i] = left.min(k);
            rm[i] = k - nh[i];
            left -= nh[i];
            rest[i] = left;
        }
        HeaderBeats { nh, rm, rest }
    }
}

/// Clocks from a message's first beat accepted to its first packet's first beat on `m`: the
/// input skid buffer, stage A's input and output registers, the skid buffer, the packet
/// stage's output register, the second skid buffer and the PEC stage's two (three before issue
/// 27, four with the first skid buffer, five since stage A's MIC placement has a clock of its
/// own, six with the input skid buffer, seven since the PEC is finished a clock after its CRC
/// step, eight with the skid buffer in front of the PEC stage).
pub const LATENCY: u64 = 8;

/// The bits of [`MessageFields`], packed into one entry of `fields` between stage A and stage B.
const MSG_BITS: usize = 105;

/// The packetizer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {1, 2, 4, 8}).
#[derive(LogicBlock)]
pub struct MctpTx<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpTxConfig,
    pub s: AxisSink<D, K>,
    pub s_len: Signal<In, Bits<17>>,
    pub m: AxisSource<D, K>,
    pub counters: MctpTxCounters,
    entry: InputStage<D, K>,
    mic: MicStage<D, K>,
    /// Between the message stage and the packet stage: the packet stage's `take` (which
    /// depended on the beat's layout until stop 83) ends at this buffer's registers instead of
    /// running on into the message stage's enables. Its skid entry loads while free
    /// (`AxisStageSkidPreload`), so `take` enables only its output register (W = 4 and 8's
    /// critical path ended at the skid entry's enables). Its side channel marks a message's
    /// first beat.
    skid: AxisStageSkidPreload<D, K, 1>,
    /// The message fields beside it, one entry per message, written with each first beat
    /// `skid` accepts and removed when the packet stage has formed that message's first beat
    /// (`msg_done`). When they rode on `skid`'s side channel, `take` enabled their 105-bit
    /// output register: the last 1.5–1.7 ns of every width's critical path at stop 55.
    ///
    /// Each entry it holds is a first beat in `skid` whose message the packet stage has not
    /// started (a first beat leaves `skid` only when taken, at or after `msg_done`; the drain
    /// takes only the current message's beats), so it holds two only when `skid` does, and
    /// `skid` then accepts nothing: it is written only while it holds at most one, as it
    /// requires. Its head is the message of the first beat at `skid`'s head whenever the
    /// packet stage is idle.
    fields: EntryQueue<MSG_BITS>,
    msg_user: Signal<Local, Bits<MSG_BITS>>,
    /// The payload beat's octets (its highest kept lane + 1): on the skid buffer's `tkeep`.
    pay_cnt: Signal<Local, Bits<8>>,
    c_lane1: [Constant<Bits<8>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_one_u: Constant<Bits<MSG_BITS>>,
    pkt: PacketStage<D, K>,
    /// Between the packet stage and the PEC stage: the block's `m_tready` runs through the PEC
    /// stage into this buffer's enables and ends there, instead of on into the packet stage's
    /// `adv` and its layout registers (issue 27: `top_w8`'s critical path on seed 1 at stop 48).
    /// The beat's PEC mark (`m_pec`) rides on its side channel.
    pec_skid: AxisStageSkidPreload<D, K, 1>,
    pec: PecStage<D, K>,
}

impl<const D: usize, const K: usize> Default for MctpTx<D, K> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MctpTx<D, K>: D must be 8*K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            m: Default::default(),
            counters: Default::default(),
            entry: Default::default(),
            mic: Default::default(),
            skid: Default::default(),
            fields: Default::default(),
            msg_user: Default::default(),
            pay_cnt: Default::default(),
            c_lane1: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_one_u: Constant::new(1u64.into()),
            pkt: Default::default(),
            pec_skid: Default::default(),
            pec: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MctpTx<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, entry, mic, skid, fields, pkt, pec_skid, pec);
        self.entry.reset.next = self.reset.val();
        self.mic.reset.next = self.reset.val();
        self.skid.reset.next = self.reset.val();
        self.fields.reset.next = self.reset.val();
        self.pkt.reset.next = self.reset.val();
        self.pec_skid.reset.next = self.reset.val();
        self.pec.reset.next = self.reset.val();
        // Input port → input stage → message stage → packet stage → PEC stage → output port.
        MctpTxConfig::link(&mut self.cfg, &mut self.entry.cfg);
        AxisSink::<D, K>::link(&mut self.s, &mut self.entry.s);
        self.entry.s_len.next = self.s_len.val();
        MctpTxConfig::join(&mut self.mic.cfg, &mut self.entry.m_cfg);
        AxisSource::<D, K>::join(&mut self.entry.m, &mut self.mic.s);
        self.mic.s_len.next = self.entry.m_len.val();
        self.mic.s_refused.next = self.entry.m_refused.val();
        // The payload beat into the skid buffer, its lane mask counted on the way (the packet
        // stage reads the count from the buffer's `tkeep`).
        self.skid.s.tdata.next = self.mic.m.tdata.val();
        self.skid.s.tvalid.next = self.mic.m.tvalid.val();
        self.skid.s.tlast.next = self.mic.m.tlast.val();
        self.mic.m.tready.next = self.skid.s.tready.val();
        self.pay_cnt.next = 0.into();
        for i in 0..K {
            if (self.mic.m.tkeep.val() & self.c_bit[i].val()) != 0 {
                self.pay_cnt.next = self.c_lane1[i].val();
            }
        }
        self.skid.s.tkeep.next = bit_cast::<K, 8>(self.pay_cnt.val());
        // The message fields, packed for `fields` with each first beat `skid` accepts, and
        // unpacked behind it.
        self.msg_user.next = (bit_cast::<MSG_BITS, 8>(self.mic.msg.src.val()) << 0)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.dst.val()) << 8)
            | (bit_cast::<MSG_BITS, 3>(self.mic.msg.tag.val()) << 16)
            | (bit_cast::<MSG_BITS, 2>(self.mic.msg.seq.val()) << 20)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.mtu.val()) << 22)
            | (bit_cast::<MSG_BITS, 7>(self.mic.msg.sa_src.val()) << 31)
            | (bit_cast::<MSG_BITS, 7>(self.mic.msg.sa_dst.val()) << 38)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.pkt0.val()) << 45)
            | (bit_cast::<MSG_BITS, 17>(self.mic.msg.after0.val()) << 54)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.p0.val()) << 71)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.npl0.val()) << 80)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.pl0.val()) << 89)
            | (bit_cast::<MSG_BITS, 8>(self.mic.msg.keep0.val()) << 97);
        if self.mic.msg.to.val() {
            self.msg_user.next = self.msg_user.val() | (self.c_one_u.val() << 19);
        }
        if self.mic.msg.smbus.val() {
            self.msg_user.next = self.msg_user.val() | (self.c_one_u.val() << 30);
        }
        if self.mic.msg.eom0.val() {
            self.msg_user.next = self.msg_user.val() | (self.c_one_u.val() << 53);
        }
        if self.mic.msg.pend0.val() {
            self.msg_user.next = self.msg_user.val() | (self.c_one_u.val() << 79);
        }
        if self.mic.msg.neom0.val() {
            self.msg_user.next = self.msg_user.val() | (self.c_one_u.val() << 88);
        }
        self.skid.s_user.next = 0.into();
        if self.mic.m_first.val() {
            self.skid.s_user.next = 1.into();
        }
        self.fields.s_data.next = self.msg_user.val();
        self.fields.s_valid.next = self.mic.m.tvalid.val() & self.mic.m_first.val() & self.skid.s.tready.val();
        AxisSource::<D, K>::join(&mut self.skid.m, &mut self.pkt.s);
        self.pkt.s_first.next = self.skid.m_user.val() != 0;
        self.pkt.msg_valid.next = self.fields.m_valid.val();
        self.fields.m_ready.next = self.pkt.msg_done.val();
        self.pkt.msg.src.next = self.fields.m_data.val().get_bits::<8>(0);
        self.pkt.msg.dst.next = self.fields.m_data.val().get_bits::<8>(8);
        self.pkt.msg.tag.next = self.fields.m_data.val().get_bits::<3>(16);
        self.pkt.msg.to.next = self.fields.m_data.val().get_bit(19);
        self.pkt.msg.seq.next = self.fields.m_data.val().get_bits::<2>(20);
        self.pkt.msg.mtu.next = self.fields.m_data.val().get_bits::<8>(22);
        self.pkt.msg.smbus.next = self.fields.m_data.val().get_bit(30);
        self.pkt.msg.sa_src.next = self.fields.m_data.val().get_bits::<7>(31);
        self.pkt.msg.sa_dst.next = self.fields.m_data.val().get_bits::<7>(38);
        self.pkt.msg.pkt0.next = self.fields.m_data.val().get_bits::<8>(45);
        self.pkt.msg.eom0.next = self.fields.m_data.val().get_bit(53);
        self.pkt.msg.after0.next = self.fields.m_data.val().get_bits::<17>(54);
        self.pkt.msg.p0.next = self.fields.m_data.val().get_bits::<8>(71);
        self.pkt.msg.pend0.next = self.fields.m_data.val().get_bit(79);
        self.pkt.msg.npl0.next = self.fields.m_data.val().get_bits::<8>(80);
        self.pkt.msg.neom0.next = self.fields.m_data.val().get_bit(88);
        self.pkt.msg.pl0.next = self.fields.m_data.val().get_bits::<8>(89);
        self.pkt.msg.keep0.next = self.fields.m_data.val().get_bits::<8>(97);
        AxisSource::<D, K>::join(&mut self.pkt.m, &mut self.pec_skid.s);
        self.pec_skid.s_user.next = 0.into();
        if self.pkt.m_pec.val() {
            self.pec_skid.s_user.next = 1.into();
        }
        AxisSource::<D, K>::join(&mut self.pec_skid.m, &mut self.pec.s);
        self.pec.s_pec.next = self.pec_skid.m_user.val() != 0;
        AxisSource::<D, K>::link(&mut self.m, &mut self.pec.m);
        self.counters.packets.next = self.pkt.packets.val();
        self.counters.messages.next = self.pkt.messages.val();
        self.counters.dropped.next = self.mic.dropped.val();
        self.counters.len_errors.next = self.pkt.len_errors.val();
    }
}

/// rust-hdl's simulation of the packetizer behind the testbench's
/// [`crate::testbench::ClockedModel`].
pub fn hdl_model<const D: usize, const K: usize>() -> Result<HdlModel<MctpTx<D, K>>, BenchError> {
    crate::hdl_model!(
        MctpTx::<D, K>::default(),
        MctpTx<D, K>,
        [
            reset, cfg.src_eid, cfg.dst_eid, cfg.tag, cfg.to, cfg.seq, cfg.mtu, cfg.mic, cfg.smbus, cfg.smbus_src,
            cfg.smbus_dst, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready, s_len, m.tdata, m.tkeep, m.tvalid, m.tlast,
            m.tready, counters.packets, counters.messages, counters.dropped, counters.len_errors
        ]
    )
}

#[cfg(test)]
mod tests;
