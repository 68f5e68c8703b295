//! A two-entry queue like [`super::EntryQueue`], kept as a ring of two slots: a write goes to
//! the slot at `wp`, the head is the slot at `rp`, and `m_ready` flips `rp` and clears the
//! slot's valid bit, so a read enables three flip-flops and no entry. The price is a 2:1
//! select of the slots on `m_data`, by a register; so it suits fields that are not on the
//! consumer's critical path, beside an [`super::EntryQueue`] for those that are (MCTP TX: a
//! read of an `EntryQueue` enables all `U` bits of its head, and with 105 bits Yosys's `abc`
//! built that enable from the consumer's logic and 2 ns of routing followed it).
//!
//! A free slot follows the input every clock (it counts once its valid bit is set), so a slot's
//! enable is its own valid bit. It has no `s_ready` and no `m_valid`: it is written and read
//! in step with an `EntryQueue` beside it, whose `m_valid` says whether its head is there, and
//! like it only while it holds at most one entry.

use rust_hdl::prelude::*;

/// `U` bits an entry.
#[derive(LogicBlock, Default)]
pub struct EntryRing<const U: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: both slots empty.
    pub reset: Signal<In, Bit>,
    /// Write `s_data`: only in a clock that starts with at most one entry held.
    pub s_valid: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<U>>,
    /// The oldest entry; `m_ready` removes it (raise it only when there is one: a read of an
    /// empty ring is not checked for here).
    pub m_data: Signal<Out, Bits<U>>,
    pub m_ready: Signal<In, Bit>,
    slot0: DFF<Bits<U>>,
    slot1: DFF<Bits<U>>,
    valid0: DFF<Bit>,
    valid1: DFF<Bit>,
    /// The head's slot and the slot the next write goes to.
    rp: DFF<Bit>,
    wp: DFF<Bit>,
}

impl<const U: usize> Logic for EntryRing<U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, slot0, slot1, valid0, valid1, rp, wp);
        self.m_data.next = self.slot0.q.val();
        if self.rp.q.val() {
            self.m_data.next = self.slot1.q.val();
        }
        // A free slot follows the input; a write makes the slot at `wp` count.
        if !self.valid0.q.val() {
            self.slot0.d.next = self.s_data.val();
        }
        if !self.valid1.q.val() {
            self.slot1.d.next = self.s_data.val();
        }
        if self.s_valid.val() {
            if self.wp.q.val() {
                self.valid1.d.next = true;
            } else {
                self.valid0.d.next = true;
            }
            self.wp.d.next = !self.wp.q.val();
        }
        // A read frees the head's slot (never the one written this clock: with at most one
        // entry held, a write goes to the other slot, and with none there is no read).
        if self.m_ready.val() {
            if self.rp.q.val() {
                self.valid1.d.next = false;
            } else {
                self.valid0.d.next = false;
            }
            self.rp.d.next = !self.rp.q.val();
        }
        if self.reset.val() {
            self.valid0.d.next = false;
            self.valid1.d.next = false;
            self.rp.d.next = false;
            self.wp.d.next = false;
        }
    }
}
