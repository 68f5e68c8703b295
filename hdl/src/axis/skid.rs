//! A two-entry AXI4-Stream skid buffer: every output is a register, and so is `s.tready`, so a
//! block behind it has no combinational path to its input pins and chains with any neighbour.
//! `U` bits of side channel (`s_user`, sampled with each beat) travel with the beat.
//!
//! Three types from one body: [`AxisSkid`], a block's input, lowers `s.tready` in reset so that
//! nothing is taken from outside and then lost; [`AxisStageSkid`], between two stages of one
//! block under one reset, does not (whatever it takes in reset, the stage in front drops too),
//! which keeps the block's reset out of the stages' ready chains: in the top that reset is a
//! register of the register block, across the die (issue 26). [`AxisStageSkidPreload`] is a
//! stage skid whose skid entry follows the input while free, so the downstream ready is not
//! the enable of its registers. The body is a macro, not a parameter, so that `AxisSkid`'s
//! Verilog stays what every block was timed with.

use super::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

macro_rules! skid_buffer {
    // `[$gate]`: the signal that also lowers `s.tready`. `[$park]` (`sk_data`): the skid entry
    // loads only with the beat it parks. `[$preload]` (`sk_data`): it loads `s` every clock
    // while free, so that its enables are `!sk_valid` and not the downstream ready.
    ($(#[$doc:meta])* $name:ident, [$($gate:ident)?], [$($park:ident)?], [$($preload:ident)?]) => {
        $(#[$doc])*
        #[derive(LogicBlock, Default)]
        pub struct $name<const D: usize, const K: usize, const U: usize> {
            pub clock: Signal<In, Clock>,
            /// Synchronous, active high: both entries empty.
            pub reset: Signal<In, Bit>,
            pub s: AxisSink<D, K>,
            pub s_user: Signal<In, Bits<U>>,
            pub m: AxisSource<D, K>,
            pub m_user: Signal<Out, Bits<U>>,
            m_data: DFF<Bits<D>>,
            m_keep: DFF<Bits<K>>,
            m_last: DFF<Bit>,
            m_aux: DFF<Bits<U>>,
            m_valid: DFF<Bit>,
            sk_data: DFF<Bits<D>>,
            sk_keep: DFF<Bits<K>>,
            sk_last: DFF<Bit>,
            sk_aux: DFF<Bits<U>>,
            sk_valid: DFF<Bit>,
        }

        impl<const D: usize, const K: usize, const U: usize> Logic for $name<D, K, U> {
            #[hdl_gen]
            fn update(&mut self) {
                dff_setup!(self, clock, m_data, m_keep, m_last, m_aux, m_valid, sk_data, sk_keep, sk_last, sk_aux, sk_valid);
                // Ready while the skid entry is free: a beat accepted now always has a place.
                self.s.tready.next = !self.sk_valid.q.val() $(& !self.$gate.val())?;
                self.m.tdata.next = self.m_data.q.val();
                self.m.tkeep.next = self.m_keep.q.val();
                self.m.tlast.next = self.m_last.q.val();
                self.m_user.next = self.m_aux.q.val();
                self.m.tvalid.next = self.m_valid.q.val();
                if !self.m_valid.q.val() | self.m.tready.val() {
                    // The output register is free or being taken: refill it, from the skid entry first.
                    if self.sk_valid.q.val() {
                        self.m_data.d.next = self.sk_data.q.val();
                        self.m_keep.d.next = self.sk_keep.q.val();
                        self.m_last.d.next = self.sk_last.q.val();
                        self.m_aux.d.next = self.sk_aux.q.val();
                        self.m_valid.d.next = true;
                        self.sk_valid.d.next = false;
                    } else {
                        self.m_data.d.next = self.s.tdata.val();
                        self.m_keep.d.next = self.s.tkeep.val();
                        self.m_last.d.next = self.s.tlast.val();
                        self.m_aux.d.next = self.s_user.val();
                        self.m_valid.d.next = self.s.tvalid.val();
                    }
                } else if self.s.tvalid.val() & !self.sk_valid.q.val() {
                    // Output stalled, input accepted: park the beat in the skid entry.
                    $(
                        self.$park.d.next = self.s.tdata.val();
                        self.sk_keep.d.next = self.s.tkeep.val();
                        self.sk_last.d.next = self.s.tlast.val();
                        self.sk_aux.d.next = self.s_user.val();
                    )?
                    self.sk_valid.d.next = true;
                }
                $(
                    // The free skid entry follows the input (what it holds counts only once
                    // `sk_valid` is set, in the clock it parks the beat).
                    if !self.sk_valid.q.val() {
                        self.$preload.d.next = self.s.tdata.val();
                        self.sk_keep.d.next = self.s.tkeep.val();
                        self.sk_last.d.next = self.s.tlast.val();
                        self.sk_aux.d.next = self.s_user.val();
                    }
                )?
                if self.reset.val() {
                    self.m_valid.d.next = false;
                    self.sk_valid.d.next = false;
                }
            }
        }
    };
}

skid_buffer!(
    /// `D = 8·K` data bits, `K` octets per beat, `U` side-channel bits; `s.tready` low in reset.
    AxisSkid,
    // `s.tready` gated by `reset`.
    [reset],
    [sk_data],
    []
);

skid_buffer!(
    /// As [`AxisSkid`] (`s.tready` low in reset), but the skid entry loads the input every
    /// clock while it is free, so the downstream ready enables only the output register and the
    /// valid bits (MCTP RX W = 4's path ran from its frame stage's ready into the skid entry's
    /// enables).
    AxisSkidPreload,
    [reset],
    [],
    [sk_data]
);

skid_buffer!(
    /// As [`AxisSkid`], but `s.tready` ignores the reset: for a skid between two stages under
    /// one reset.
    AxisStageSkid,
    [],
    [sk_data],
    []
);

skid_buffer!(
    /// As [`AxisStageSkid`], but the skid entry loads the input every clock while it is free:
    /// the downstream ready enables only the output register and the valid bits, not the skid
    /// entry's (MCTP TX's path from its packet stage's `take` ended at those enables).
    AxisStageSkidPreload,
    [],
    [],
    [sk_data]
);
