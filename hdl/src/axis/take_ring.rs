//! A stream buffer for a consumer that keeps the beat it took last: three data entries in a
//! ring (the beat taken last, the head, the one behind it), so that taking a beat moves two
//! one-hot pointers instead of loading the head's and the consumer's data registers.
//!
//! MCTP TX's packet stage takes a payload beat (`take`) late in its clock, behind the beat's
//! layout, and kept the beat it took in a register of its own (`held`) while the skid buffer in
//! front of it refilled its output register: `take` was the enable of both, twice `D` flip-flops
//! placed apart, and the route out to them ended `top_w8`'s critical path on two seeds in three
//! (stop 79, into the skid's `sk_valid`). Here every data entry loads from `s` with an enable
//! of registers (the write slot, while it is free), `take` reaches the pointers and the small
//! side fields only, and the data come out through a 3:1 select by a one-hot register.
//!
//! The side fields (`tkeep`, `tlast`, `s_user`) are what the consumer reads first in its clock
//! (MCTP TX's beat arithmetic starts at `tkeep`), so they sit in a head register and a next
//! register, as in [`super::AxisStageSkidPreload`], with no select in front of them. `s.tready`
//! is a register (`!full`); the ring accepts while it holds at most one beat besides the one
//! taken last, as a skid buffer does.

use super::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat, `U` side-channel bits.
#[derive(LogicBlock, Default)]
pub struct TakeRing<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empty. `s.tready` ignores it (a stage buffer under the
    /// block's one reset, as [`super::AxisStageSkid`]).
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K>,
    pub s_user: Signal<In, Bits<U>>,
    pub m: AxisSource<D, K>,
    pub m_user: Signal<Out, Bits<U>>,
    /// The data of the beat taken last, unchanged until the next is taken. Undefined before
    /// the first (the consumer keeps its own valid bit).
    pub m_prev: Signal<Out, Bits<D>>,
    e0: DFF<Bits<D>>,
    e1: DFF<Bits<D>>,
    e2: DFF<Bits<D>>,
    /// Slots 0..=2: the head, the beat taken last (the head's predecessor), the write slot.
    /// Binary, so that the power-up state (all 0) is a valid one with or without a reset.
    hp: DFF<Bits<2>>,
    pp: DFF<Bits<2>>,
    wp: DFF<Bits<2>>,
    hp_n: Signal<Local, Bits<2>>,
    wp_n: Signal<Local, Bits<2>>,
    /// A head is held (`m.tvalid`); a second beat is held behind it (`s.tready` low).
    n1: DFF<Bit>,
    n2: DFF<Bit>,
    h_keep: DFF<Bits<K>>,
    h_last: DFF<Bit>,
    h_user: DFF<Bits<U>>,
    x_keep: DFF<Bits<K>>,
    x_last: DFF<Bit>,
    x_user: DFF<Bits<U>>,
    wr: Signal<Local, Bit>,
    rd: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize> Logic for TakeRing<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, e0, e1, e2, hp, pp, wp, n1, n2, h_keep, h_last, h_user, x_keep, x_last, x_user);
        self.s.tready.next = !self.n2.q.val();
        self.m.tvalid.next = self.n1.q.val();
        self.m.tkeep.next = self.h_keep.q.val();
        self.m.tlast.next = self.h_last.q.val();
        self.m_user.next = self.h_user.q.val();
        // The head and the beat taken last, each a select of the three entries by a two-bit
        // register (three data bits and two select bits: one LUT5 a bit).
        self.m.tdata.next = self.e0.q.val();
        if self.hp.q.val().get_bit(0) {
            self.m.tdata.next = self.e1.q.val();
        }
        if self.hp.q.val().get_bit(1) {
            self.m.tdata.next = self.e2.q.val();
        }
        self.m_prev.next = self.e0.q.val();
        if self.pp.q.val().get_bit(0) {
            self.m_prev.next = self.e1.q.val();
        }
        if self.pp.q.val().get_bit(1) {
            self.m_prev.next = self.e2.q.val();
        }
        // The slots after the head and the write slot, mod 3.
        self.hp_n.next = self.hp.q.val() + 1;
        if self.hp.q.val().get_bit(1) {
            self.hp_n.next = 0.into();
        }
        self.wp_n.next = self.wp.q.val() + 1;
        if self.wp.q.val().get_bit(1) {
            self.wp_n.next = 0.into();
        }
        self.wr.next = self.s.tvalid.val() & !self.n2.q.val();
        self.rd.next = self.m.tready.val() & self.n1.q.val();
        // The write slot follows the input while it is free (with two beats held it is the
        // slot of the beat taken last, which stays): its enable is registers only.
        if !self.n2.q.val() {
            if self.wp.q.val() == 0 {
                self.e0.d.next = self.s.tdata.val();
            }
            if self.wp.q.val().get_bit(0) {
                self.e1.d.next = self.s.tdata.val();
            }
            if self.wp.q.val().get_bit(1) {
                self.e2.d.next = self.s.tdata.val();
            }
            // The next entry's side fields follow the input likewise.
            self.x_keep.d.next = self.s.tkeep.val();
            self.x_last.d.next = self.s.tlast.val();
            self.x_user.d.next = self.s_user.val();
        }
        if self.wr.val() {
            self.wp.d.next = self.wp_n.val();
        }
        if self.rd.val() {
            self.hp.d.next = self.hp_n.val();
            self.pp.d.next = self.hp.q.val();
        }
        // The head's side fields: refilled when it is free or taken, from the next entry first.
        if !self.n1.q.val() | self.rd.val() {
            if self.n2.q.val() {
                self.h_keep.d.next = self.x_keep.q.val();
                self.h_last.d.next = self.x_last.q.val();
                self.h_user.d.next = self.x_user.q.val();
            } else {
                self.h_keep.d.next = self.s.tkeep.val();
                self.h_last.d.next = self.s.tlast.val();
                self.h_user.d.next = self.s_user.val();
            }
        }
        // Beats held besides the one taken last: + wr − rd.
        if self.n2.q.val() {
            if self.rd.val() {
                self.n2.d.next = false;
            }
        } else if self.n1.q.val() {
            if self.wr.val() & !self.rd.val() {
                self.n2.d.next = true;
            }
            if self.rd.val() & !self.wr.val() {
                self.n1.d.next = false;
            }
        } else if self.wr.val() {
            self.n1.d.next = true;
        }
        if self.reset.val() {
            self.n1.d.next = false;
            self.n2.d.next = false;
            self.hp.d.next = 0.into();
            self.wp.d.next = 0.into();
        }
    }
}
