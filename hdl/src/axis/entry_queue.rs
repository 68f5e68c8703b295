//! A two-entry queue of `U`-bit entries kept beside a stream: one entry per frame (a message's
//! header fields), written with the frame's first beat and read while the frame is worked on,
//! so that the fields do not ride on every beat of the stream's skid buffer, where the
//! consumer's per-beat `tready` would be the enable of all their registers.
//!
//! A ring of two slots: a write goes to the slot at `wp`, the head is the slot at `rp`, and
//! `m_ready` flips `rp` and clears the slot's valid bit, so it enables three flip-flops and no
//! entry. (With a head register refilled on `m_ready`, `m_ready` enabled all `U` bits of it,
//! and Yosys's `abc` built that enable from the consumer's logic that `m_ready` shares inputs
//! with: MCTP TX W = 8's critical path ended there, 2 ns of routing to 105 enables.) The price
//! is a 2:1 select of the two slots on `m_data`, by a register. A free slot follows the input
//! every clock (it counts once its valid bit is set), so a slot's enable is its own valid bit.
//! It has no `s_ready`: the caller writes only while it holds at most one entry (MCTP TX: an
//! entry per first beat in its skid buffer, written only while that buffer has room, so while
//! it holds at most one beat).

use rust_hdl::prelude::*;

/// `U` bits an entry.
#[derive(LogicBlock, Default)]
pub struct EntryQueue<const U: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: both entries empty.
    pub reset: Signal<In, Bit>,
    /// Write `s_data`: only in a clock that starts with at most one entry held.
    pub s_valid: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<U>>,
    /// The oldest entry, and whether there is one; `m_ready` removes it (raise it only with
    /// `m_valid`: a read of an empty queue is not checked for here, where it would put
    /// `m_valid` in front of `m_ready` in one block and so close a loop through a consumer
    /// that works `m_ready` out from `m_valid`).
    pub m_data: Signal<Out, Bits<U>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    slot0: DFF<Bits<U>>,
    slot1: DFF<Bits<U>>,
    valid0: DFF<Bit>,
    valid1: DFF<Bit>,
    /// The head's slot and the slot the next write goes to.
    rp: DFF<Bit>,
    wp: DFF<Bit>,
    head_valid: Signal<Local, Bit>,
}

impl<const U: usize> Logic for EntryQueue<U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, slot0, slot1, valid0, valid1, rp, wp);
        self.m_data.next = self.slot0.q.val();
        self.head_valid.next = self.valid0.q.val();
        if self.rp.q.val() {
            self.m_data.next = self.slot1.q.val();
            self.head_valid.next = self.valid1.q.val();
        }
        self.m_valid.next = self.head_valid.val();
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
