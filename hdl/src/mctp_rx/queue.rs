//! The descriptor queue: 16 published messages waiting for the reader, in a rust-hdl `RAM`
//! (LUT RAM) with first-word-fall-through reads. rust-hdl's own `SynchronousFIFO` has the same
//! structure but no reset, and the block's reset must forget queued messages, so the pointers
//! are kept here. A pushed entry is visible to `pop` two clocks later (the write pointer is seen
//! through a register, so the RAM is never read in the clock it is written); `full` and `afull`
//! count it at once. Both are registers loaded with what the pointers will be after this clock,
//! so the frame stage's `s.tready` starts from a flip-flop here rather than from a pointer
//! compare (MCTP RX W = 1's critical path was `wp` → `full` → ready → the input skid). The
//! occupancy's thresholds are compared from the present pointers, and `push` and `pop` only
//! pick one: `push` comes late in its clock (the MIC verdict of the message it publishes), and
//! it used to run through the pointer increment and a subtract into `afull` (MCTP RX W = 8's
//! critical path).

use rust_hdl::prelude::*;

/// Entries are addressed with this many bits: [`super::DESC_DEPTH`] is `1 << ADDRESS_BITS`.
pub const ADDRESS_BITS: usize = 4;

/// Entries of `W` bits.
#[derive(LogicBlock)]
pub struct DescQueue<const W: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: empty.
    pub reset: Signal<In, Bit>,
    /// Appends `din` (never while `full`).
    pub push: Signal<In, Bit>,
    pub din: Signal<In, Bits<W>>,
    /// Drops the head (ignored while `empty`).
    pub pop: Signal<In, Bit>,
    /// The head, valid while not `empty`.
    pub dout: Signal<Out, Bits<W>>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    /// At most one entry free.
    pub afull: Signal<Out, Bit>,
    ram: RAM<Bits<W>, ADDRESS_BITS>,
    wp: DFF<Bits<5>>,
    wp_seen: DFF<Bits<5>>,
    rp: DFF<Bits<5>>,
    rp_n: Signal<Local, Bits<5>>,
    /// Entries now (`wp − rp`, 0..=16), and its thresholds.
    used: Signal<Local, Bits<5>>,
    ge14: Signal<Local, Bit>,
    ge15: Signal<Local, Bit>,
    is16: Signal<Local, Bit>,
    /// One more entry after this clock (a push and no pop), one fewer (a pop and no push).
    up: Signal<Local, Bit>,
    down: Signal<Local, Bit>,
    full_r: DFF<Bit>,
    afull_r: DFF<Bit>,
    has: Signal<Local, Bit>,
    c_14: Constant<Bits<5>>,
    c_15: Constant<Bits<5>>,
    c_16: Constant<Bits<5>>,
}

impl<const W: usize> Default for DescQueue<W> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            push: Default::default(),
            din: Default::default(),
            pop: Default::default(),
            dout: Default::default(),
            empty: Default::default(),
            full: Default::default(),
            afull: Default::default(),
            ram: Default::default(),
            wp: Default::default(),
            wp_seen: Default::default(),
            rp: Default::default(),
            rp_n: Default::default(),
            used: Default::default(),
            ge14: Default::default(),
            ge15: Default::default(),
            is16: Default::default(),
            up: Default::default(),
            down: Default::default(),
            full_r: Default::default(),
            afull_r: Default::default(),
            has: Default::default(),
            c_14: Constant::new(((1u64 << ADDRESS_BITS) - 2).into()),
            c_15: Constant::new(((1u64 << ADDRESS_BITS) - 1).into()),
            c_16: Constant::new((1u64 << ADDRESS_BITS).into()),
        }
    }
}

impl<const W: usize> Logic for DescQueue<W> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, wp_seen, rp, full_r, afull_r);
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.empty.next = self.rp.q.val() == self.wp_seen.q.val();
        self.full.next = self.full_r.q.val();
        self.afull.next = self.afull_r.q.val();
        self.ram.write_address.next = self.wp.q.val().get_bits::<ADDRESS_BITS>(0);
        self.ram.write_data.next = self.din.val();
        self.ram.write_enable.next = self.push.val();
        self.wp.d.next = self.wp.q.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        self.wp_seen.d.next = self.wp.q.val();
        self.rp_n.next = self.rp.q.val();
        // (Not `empty` itself: a statement reading `pop` must not share a variable with the one
        // driving `empty`, or Verilator sees a loop through the reader.)
        self.has.next = self.rp.q.val() != self.wp_seen.q.val();
        if self.pop.val() & self.has.val() {
            self.rp_n.next = self.rp.q.val() + 1;
        }
        self.rp.d.next = self.rp_n.val();
        // Full (16 entries) and at most one free, as the pointers will be after this clock.
        self.used.next = self.wp.q.val() - self.rp.q.val();
        self.ge14.next = self.used.val() >= self.c_14.val();
        self.ge15.next = self.used.val() >= self.c_15.val();
        self.is16.next = self.used.val() == self.c_16.val();
        self.up.next = self.push.val() & !(self.pop.val() & self.has.val());
        self.down.next = !self.push.val() & self.pop.val() & self.has.val();
        self.full_r.d.next = self.is16.val();
        self.afull_r.d.next = self.ge15.val();
        if self.up.val() {
            self.full_r.d.next = self.ge15.val();
            self.afull_r.d.next = self.ge14.val();
        }
        if self.down.val() {
            self.full_r.d.next = false;
            self.afull_r.d.next = self.is16.val();
        }
        // The head after this clock, read at its edge.
        self.ram.read_address.next = self.rp_n.val().get_bits::<ADDRESS_BITS>(0);
        self.dout.next = self.ram.read_data.val();
        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.wp_seen.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.full_r.d.next = false;
            self.afull_r.d.next = false;
        }
    }
}
