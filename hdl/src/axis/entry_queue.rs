//! A two-entry queue of `U`-bit entries kept beside a stream: one entry per frame (a message's
//! header fields), written with the frame's first beat and read while the frame is worked on,
//! so that the fields do not ride on every beat of the stream's skid buffer, where the
//! consumer's per-beat `tready` would be the enable of all their registers.
//!
//! Its head is a register (`m_data`); the second entry loads the input every clock while it is
//! free, as [`super::AxisStageSkidPreload`]'s skid entry does, so `m_ready` enables the head
//! and the two valid bits only. It has no `s_ready`: the caller writes only while it holds at
//! most one entry (MCTP TX: an entry per first beat in its skid buffer, written only while that
//! buffer has room, so while it holds at most one beat).

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
    /// The oldest entry, and whether there is one; `m_ready` removes it.
    pub m_data: Signal<Out, Bits<U>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    head: DFF<Bits<U>>,
    head_valid: DFF<Bit>,
    next: DFF<Bits<U>>,
    next_valid: DFF<Bit>,
}

impl<const U: usize> Logic for EntryQueue<U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head, head_valid, next, next_valid);
        self.m_data.next = self.head.q.val();
        self.m_valid.next = self.head_valid.q.val();
        if !self.head_valid.q.val() | self.m_ready.val() {
            // The head is free or being read: refill it, from the second entry first.
            if self.next_valid.q.val() {
                self.head.d.next = self.next.q.val();
                self.head_valid.d.next = true;
                self.next_valid.d.next = false;
            } else {
                self.head.d.next = self.s_data.val();
                self.head_valid.d.next = self.s_valid.val();
            }
        } else if self.s_valid.val() {
            self.next_valid.d.next = true;
        }
        // The free second entry follows the input (it counts once `next_valid` is set).
        if !self.next_valid.q.val() {
            self.next.d.next = self.s_data.val();
        }
        if self.reset.val() {
            self.head_valid.d.next = false;
            self.next_valid.d.next = false;
        }
    }
}
