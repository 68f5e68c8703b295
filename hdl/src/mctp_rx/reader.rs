//! Stage B of the depacketizer: published messages out. Descriptors wait in the
//! [`DescQueue`]; the reader streams the message at the head one memory word per beat (a
//! registered read, as block RAM has it) under the usual `adv = !m_tvalid | m_tready` rule,
//! starting a message in the clock its descriptor is at the head.
//!
//! Two stages follow the descriptor: the fetch stage (the word in the memory's read register)
//! and the output stage (the word in flip-flops, loaded straight from the read port, the
//! ring's and the slot's in registers of their own with the select behind them). Block RAM's
//! clock-to-output is most of a 156.25 MHz clock, so no logic sits between it and a
//! flip-flop (MCTP RX W = 4's critical path at stop 55 ran from the slot's read port through
//! two selects into a hold register; with the read port as the output, through one select
//! into whatever took the output). While a fetched word waits for the output stage, the read
//! address stays its address, so the memory keeps showing it; that word must not be
//! overwritten meanwhile, so ring words are freed (`rp`) and the slot released (`slot_done`)
//! when their word moves to the output stage (the MIC words after a message with its last
//! word).

//! Descriptor layout (62 bits, from [`super::frames::FrameStage`]): slot [0], start word [14:1]
//! (ring address with its wrap bit, or slot word), octets to output [27:15], the ring word
//! after the message and its MIC [41:28], source EID [49:42], destination EID [57:50],
//! tag [60:58], TO [61]. A message whose MIC failed has a void descriptor, 0 octets to output
//! (a delivered message has at least one): it is read as one fetch that outputs nothing and
//! releases the message's ring words, or the slot, as a message's last word does.

use super::queue::DescQueue;

/// The descriptor's fields: the lowest bit and width of each, as the doc above lays them out.
/// `#[hdl_gen]` code cannot name a constant in a bit index, so the packing in
/// [`super::frames::FrameStage`] and the unpacking here are written with these numbers as
/// literals, and both blocks check at elaboration that the literals are still these.
pub mod desc {
    /// Width of a descriptor.
    pub const BITS: usize = 62;
    pub const SLOT: usize = 0;
    pub const START: (usize, usize) = (1, 14);
    pub const LEN: (usize, usize) = (15, 13);
    pub const NEXT: (usize, usize) = (28, 14);
    pub const SRC: (usize, usize) = (42, 8);
    pub const DST: (usize, usize) = (50, 8);
    pub const TAG: (usize, usize) = (58, 3);
    pub const TO: usize = 61;
    // The fields tile the descriptor in this order, with no gap.
    const _: () = assert!(
        START.0 == SLOT + 1
            && LEN.0 == START.0 + START.1
            && NEXT.0 == LEN.0 + LEN.1
            && SRC.0 == NEXT.0 + NEXT.1
            && DST.0 == SRC.0 + SRC.1
            && TAG.0 == DST.0 + DST.1
            && TO == TAG.0 + TAG.1
            && BITS == TO + 1
    );
}
use crate::axis::AxisSource;
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct ReaderStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// A descriptor to queue.
    pub push: Signal<In, Bit>,
    pub desc: Signal<In, Bits<62>>,
    pub q_full: Signal<Out, Bit>,
    /// The descriptor queue has at most one free entry.
    pub q_afull: Signal<Out, Bit>,
    /// Memory read: the word at `rd_addr` (ring or slot) arrives on `ring_data`/`slot_data`
    /// the clock after.
    pub rd_addr: Signal<Out, Bits<14>>,
    pub ring_data: Signal<In, Bits<D>>,
    pub slot_data: Signal<In, Bits<D>>,
    /// Ring words before this one are free.
    pub rp: Signal<Out, Bits<14>>,
    /// The slot's message has been read.
    pub slot_done: Signal<Out, Bit>,
    pub m: AxisSource<D, K>,
    pub m_src_eid: Signal<Out, Bits<8>>,
    pub m_dst_eid: Signal<Out, Bits<8>>,
    pub m_tag: Signal<Out, Bits<3>>,
    pub m_to: Signal<Out, Bit>,
    queue: DescQueue<62>,
    rd_active: DFF<Bit>,
    rd_slot: DFF<Bit>,
    rd_start: DFF<Bits<14>>,
    rd_len: DFF<Bits<13>>,
    rd_next: DFF<Bits<14>>,
    rd_src: DFF<Bits<8>>,
    rd_dst: DFF<Bits<8>>,
    rd_tag: DFF<Bits<3>>,
    rd_to: DFF<Bit>,
    rp_r: DFF<Bits<14>>,
    // The fetch stage: a word in the memory's read register, and its beat's fields.
    f_valid: DFF<Bit>,
    f_slot: DFF<Bit>,
    f_keep: DFF<Bits<K>>,
    f_last: DFF<Bit>,
    f_src: DFF<Bits<8>>,
    f_dst: DFF<Bits<8>>,
    f_tag: DFF<Bits<3>>,
    f_to: DFF<Bit>,
    /// The ring's free pointer once the word has left the memory: the word after it, or
    /// after the message's MIC words with its last beat.
    f_rel: DFF<Bits<14>>,
    /// The read address of last clock: presented again while the fetched word waits.
    f_addr: DFF<Bits<14>>,
    // The output stage: the word in flip-flops, one register for each memory loaded straight
    // from its read port (no logic between block RAM and flip-flop), the select behind them.
    o_valid: DFF<Bit>,
    o_slot: DFF<Bit>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_src: DFF<Bits<8>>,
    o_dst: DFF<Bits<8>>,
    o_tag: DFF<Bits<3>>,
    o_to: DFF<Bit>,
    o_ring: DFF<Bits<D>>,
    o_slotw: DFF<Bits<D>>,
    /// The output stage takes a beat (it is empty or its beat is taken).
    adv_o: Signal<Local, Bit>,
    /// The fetched word moves to the output stage.
    xfer: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    have: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
    last: Signal<Local, Bit>,
    e_slot: Signal<Local, Bit>,
    e_start: Signal<Local, Bits<14>>,
    e_len: Signal<Local, Bits<13>>,
    e_next: Signal<Local, Bits<14>>,
    e_src: Signal<Local, Bits<8>>,
    e_dst: Signal<Local, Bits<8>>,
    e_tag: Signal<Local, Bits<3>>,
    e_to: Signal<Local, Bit>,
    e_start1: Signal<Local, Bits<14>>,
    keep: Signal<Local, Bits<K>>,
    c_lane: [Constant<Bits<13>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_w: Constant<Bits<13>>,
    c_pm: Constant<Bits<14>>,
}

impl<const D: usize, const K: usize> Default for ReaderStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "ReaderStage<8K, K> with K in 1, 2, 4, 8");
        // The unpacking in `update` (`get_bit(0)`, `get_bits::<14>(1)`, …) as literals.
        assert_eq!(
            (desc::SLOT, desc::START, desc::LEN, desc::NEXT, desc::SRC, desc::DST, desc::TAG, desc::TO),
            (0, (1, 14), (15, 13), (28, 14), (42, 8), (50, 8), (58, 3), 61),
            "descriptor layout changed: update ReaderStage::update's unpacking"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            desc: Default::default(),
            q_full: Default::default(),
            q_afull: Default::default(),
            rd_addr: Default::default(),
            ring_data: Default::default(),
            slot_data: Default::default(),
            rp: Default::default(),
            slot_done: Default::default(),
            m: Default::default(),
            m_src_eid: Default::default(),
            m_dst_eid: Default::default(),
            m_tag: Default::default(),
            m_to: Default::default(),
            queue: Default::default(),
            rd_active: Default::default(),
            rd_slot: Default::default(),
            rd_start: Default::default(),
            rd_len: Default::default(),
            rd_next: Default::default(),
            rd_src: Default::default(),
            rd_dst: Default::default(),
            rd_tag: Default::default(),
            rd_to: Default::default(),
            rp_r: Default::default(),
            f_valid: Default::default(),
            f_slot: Default::default(),
            f_keep: Default::default(),
            f_last: Default::default(),
            f_src: Default::default(),
            f_dst: Default::default(),
            f_tag: Default::default(),
            f_to: Default::default(),
            f_rel: Default::default(),
            f_addr: Default::default(),
            o_valid: Default::default(),
            o_slot: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_src: Default::default(),
            o_dst: Default::default(),
            o_tag: Default::default(),
            o_to: Default::default(),
            o_ring: Default::default(),
            o_slotw: Default::default(),
            adv_o: Default::default(),
            xfer: Default::default(),
            adv: Default::default(),
            have: Default::default(),
            go: Default::default(),
            last: Default::default(),
            e_slot: Default::default(),
            e_start: Default::default(),
            e_len: Default::default(),
            e_next: Default::default(),
            e_src: Default::default(),
            e_dst: Default::default(),
            e_tag: Default::default(),
            e_to: Default::default(),
            e_start1: Default::default(),
            keep: Default::default(),
            c_lane: std::array::from_fn(|i| Constant::new((i as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_w: Constant::new((K as u64).into()),
            c_pm: Constant::new((2 * (super::RING_OCTETS / K) as u64 - 1).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for ReaderStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, rd_active, rd_slot, rd_start, rd_len, rd_next, rd_src, rd_dst, rd_tag, rd_to, rp_r, f_valid,
            f_slot, f_keep, f_last, f_src, f_dst, f_tag, f_to, f_rel, f_addr, o_valid, o_slot, o_keep, o_last, o_src,
            o_dst, o_tag, o_to, o_ring, o_slotw
        );
        clock!(self, clock, queue);
        self.queue.reset.next = self.reset.val();
        self.queue.push.next = self.push.val();
        self.queue.din.next = self.desc.val();
        self.q_full.next = self.queue.full.val();
        self.q_afull.next = self.queue.afull.val();
        self.rp.next = self.rp_r.q.val();

        self.m.tdata.next = self.o_ring.q.val();
        if self.o_slot.q.val() {
            self.m.tdata.next = self.o_slotw.q.val();
        }
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.m_src_eid.next = self.o_src.q.val();
        self.m_dst_eid.next = self.o_dst.q.val();
        self.m_tag.next = self.o_tag.q.val();
        self.m_to.next = self.o_to.q.val();

        // The message being read, or the one at the head of the queue. A word is fetched when
        // the fetch stage is empty or its word moves on to the output stage.
        self.adv_o.next = !self.o_valid.q.val() | self.m.tready.val();
        self.xfer.next = self.f_valid.q.val() & self.adv_o.val();
        self.adv.next = !self.f_valid.q.val() | self.adv_o.val();
        self.have.next = !self.queue.empty.val();
        self.e_slot.next = self.rd_slot.q.val();
        self.e_start.next = self.rd_start.q.val();
        self.e_len.next = self.rd_len.q.val();
        self.e_next.next = self.rd_next.q.val();
        self.e_src.next = self.rd_src.q.val();
        self.e_dst.next = self.rd_dst.q.val();
        self.e_tag.next = self.rd_tag.q.val();
        self.e_to.next = self.rd_to.q.val();
        if !self.rd_active.q.val() {
            self.e_slot.next = self.queue.dout.val().get_bit(0);
            self.e_start.next = self.queue.dout.val().get_bits::<14>(1);
            self.e_len.next = self.queue.dout.val().get_bits::<13>(15);
            self.e_next.next = self.queue.dout.val().get_bits::<14>(28);
            self.e_src.next = self.queue.dout.val().get_bits::<8>(42);
            self.e_dst.next = self.queue.dout.val().get_bits::<8>(50);
            self.e_tag.next = self.queue.dout.val().get_bits::<3>(58);
            self.e_to.next = self.queue.dout.val().get_bit(61);
        }
        self.go.next = self.adv.val() & (self.rd_active.q.val() | self.have.val());
        self.queue.pop.next = self.adv.val() & !self.rd_active.q.val() & self.have.val();
        // A fetched word that waits stays in the memory's read register.
        self.rd_addr.next = self.f_addr.q.val();
        if self.adv.val() {
            self.rd_addr.next = self.e_start.val();
        }
        self.f_addr.d.next = self.rd_addr.val();
        self.last.next = self.e_len.val() <= self.c_w.val();
        self.keep.next = 0.into();
        for i in 0..K {
            if self.e_len.val() > self.c_lane[i].val() {
                self.keep.next = self.keep.val() | self.c_bit[i].val();
            }
        }
        self.e_start1.next = (self.e_start.val() + 1) & self.c_pm.val();

        // The fetched word leaves the memory for the output stage: its ring words are free, or
        // the slot is.
        self.slot_done.next = self.xfer.val() & self.f_slot.q.val() & self.f_last.q.val();
        if self.adv_o.val() {
            self.o_valid.d.next = false;
        }
        if self.xfer.val() {
            if self.f_slot.q.val() {
                self.o_slotw.d.next = self.slot_data.val();
            } else {
                self.o_ring.d.next = self.ring_data.val();
                self.rp_r.d.next = self.f_rel.q.val();
            }
            // A void descriptor's (length 0: a message whose MIC failed) one fetch keeps no
            // lane and goes no further: its words, or the slot, are released all the same.
            self.o_valid.d.next = (self.f_keep.q.val() & self.c_bit[0].val()) != 0;
            self.o_slot.d.next = self.f_slot.q.val();
            self.o_keep.d.next = self.f_keep.q.val();
            self.o_last.d.next = self.f_last.q.val();
            self.o_src.d.next = self.f_src.q.val();
            self.o_dst.d.next = self.f_dst.q.val();
            self.o_tag.d.next = self.f_tag.q.val();
            self.o_to.d.next = self.f_to.q.val();
        }
        if self.adv.val() {
            self.f_valid.d.next = false;
        }
        if self.go.val() {
            self.f_valid.d.next = true;
            self.f_slot.d.next = self.e_slot.val();
            self.f_rel.d.next = self.e_start1.val();
            if self.last.val() {
                self.f_rel.d.next = self.e_next.val();
            }
            self.f_keep.d.next = self.keep.val();
            self.f_last.d.next = self.last.val();
            self.f_src.d.next = self.e_src.val();
            self.f_dst.d.next = self.e_dst.val();
            self.f_tag.d.next = self.e_tag.val();
            self.f_to.d.next = self.e_to.val();
            self.rd_active.d.next = !self.last.val();
            self.rd_slot.d.next = self.e_slot.val();
            self.rd_start.d.next = self.e_start1.val();
            self.rd_len.d.next = self.e_len.val() - self.c_w.val();
            self.rd_next.d.next = self.e_next.val();
            self.rd_src.d.next = self.e_src.val();
            self.rd_dst.d.next = self.e_dst.val();
            self.rd_tag.d.next = self.e_tag.val();
            self.rd_to.d.next = self.e_to.val();
        }
        if self.reset.val() {
            self.rd_active.d.next = false;
            self.rp_r.d.next = 0.into();
            self.f_valid.d.next = false;
            self.o_valid.d.next = false;
            self.o_keep.d.next = 0.into();
            self.o_last.d.next = false;
            self.o_slot.d.next = false;
            self.o_ring.d.next = 0.into();
            self.o_slotw.d.next = 0.into();
            self.slot_done.next = false;
        }
    }
}
