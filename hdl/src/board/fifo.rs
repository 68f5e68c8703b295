//! A first-word-fall-through FIFO on rust-hdl's `RAM` (a synchronous-read memory, so it maps to
//! block RAM), with the synchronous reset and the fill count the FrontPanel bridge needs.
//!
//! rust-hdl's own `SynchronousFIFO` has neither a reset nor a count (the bridge reports free
//! words to the host and flushes its FIFOs when the host resets it), and shows its head one
//! clock after the read; this one is built from the same `RAM` widget: the memory is always
//! read at the next head's address, and a word written at the very edge that makes it the head
//! is taken from a bypass register instead (the memory returns the old word then).

use rust_hdl::prelude::*;

/// `2^N` words of `D`; `NP1 = N + 1` (the count's width; stable Rust has no const arithmetic).
#[derive(LogicBlock)]
pub struct WordFifo<D: Synth, const N: usize, const NP1: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous: empties the FIFO.
    pub reset: Signal<In, Bit>,
    /// Push `data_in` (ignored while `full`).
    pub write: Signal<In, Bit>,
    pub data_in: Signal<In, D>,
    /// Pop the head (ignored while `empty`).
    pub read: Signal<In, Bit>,
    /// The head, valid while `!empty`.
    pub data_out: Signal<Out, D>,
    pub empty: Signal<Out, Bit>,
    pub full: Signal<Out, Bit>,
    /// Words held.
    pub count: Signal<Out, Bits<NP1>>,
    ram: RAM<D, N>,
    wp: DFF<Bits<N>>,
    rp: DFF<Bits<N>>,
    n: DFF<Bits<NP1>>,
    bypass: DFF<Bit>,
    bypass_data: DFF<D>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    rp_next: Signal<Local, Bits<N>>,
    depth: Constant<Bits<NP1>>,
}

impl<D: Synth, const N: usize, const NP1: usize> Default for WordFifo<D, N, NP1> {
    fn default() -> Self {
        assert_eq!(NP1, N + 1, "WordFifo<D, N, NP1>: NP1 must be N + 1");
        WordFifo {
            clock: Default::default(),
            reset: Default::default(),
            write: Default::default(),
            data_in: Default::default(),
            read: Default::default(),
            data_out: Default::default(),
            empty: Default::default(),
            full: Default::default(),
            count: Default::default(),
            ram: Default::default(),
            wp: Default::default(),
            rp: Default::default(),
            n: Default::default(),
            bypass: Default::default(),
            bypass_data: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            rp_next: Default::default(),
            depth: Constant::new((1u64 << N).into()),
        }
    }
}

impl<D: Synth, const N: usize, const NP1: usize> Logic for WordFifo<D, N, NP1> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, n, bypass, bypass_data);
        self.empty.next = self.n.q.val() == 0;
        self.full.next = self.n.q.val() == self.depth.val();
        self.count.next = self.n.q.val();
        self.push.next = self.write.val() & !(self.n.q.val() == self.depth.val());
        self.pop.next = self.read.val() & !(self.n.q.val() == 0);
        self.rp_next.next = self.rp.q.val();
        if self.pop.val() {
            self.rp_next.next = self.rp.q.val() + 1;
            self.rp.d.next = self.rp.q.val() + 1;
        }
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        if self.push.val() & !self.pop.val() {
            self.n.d.next = self.n.q.val() + 1;
        }
        if self.pop.val() & !self.push.val() {
            self.n.d.next = self.n.q.val() - 1;
        }
        self.ram.write_clock.next = self.clock.val();
        self.ram.read_clock.next = self.clock.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.wp.q.val();
        self.ram.write_data.next = self.data_in.val();
        self.ram.read_address.next = self.rp_next.val();
        // The word written at this edge into the next head's slot: the memory read returns
        // the old one, so the head comes from the bypass register for a clock.
        self.bypass.d.next = self.push.val() & (self.wp.q.val() == self.rp_next.val());
        self.bypass_data.d.next = self.data_in.val();
        self.data_out.next = self.ram.read_data.val();
        if self.bypass.q.val() {
            self.data_out.next = self.bypass_data.q.val();
        }
        if self.reset.val() {
            self.wp.d.next = 0.into();
            self.rp.d.next = 0.into();
            self.n.d.next = 0.into();
            self.bypass.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::WordFifo;
    use crate::testbench::{ClockedModel, HdlModel};
    use rand::{Rng, SeedableRng};
    use rust_hdl::prelude::*;
    use std::collections::VecDeque;

    type Small = WordFifo<Bits<16>, 3, 4>;

    /// Random pushes, pops and resets on an 8-word FIFO (full, empty, wrap, and the bypass of
    /// a word written into the head's slot) against a `VecDeque`, in rust-hdl's simulator.
    #[test]
    fn matches_a_queue_under_random_traffic() {
        let mut m: HdlModel<Small> = crate::hdl_model!(
            Small::default(),
            Small,
            [reset, write, data_in, read, data_out, empty, full, count]
        )
        .unwrap();
        let p = |m: &HdlModel<Small>, n: &str| m.port_id(n).unwrap();
        let (reset, write, data_in, read, data_out, empty, full, count) = (
            p(&m, "reset"),
            p(&m, "write"),
            p(&m, "data_in"),
            p(&m, "read"),
            p(&m, "data_out"),
            p(&m, "empty"),
            p(&m, "full"),
            p(&m, "count"),
        );
        m.reset(1);
        let mut q: VecDeque<u64> = VecDeque::new();
        let mut rng = rand::rngs::StdRng::seed_from_u64(16);
        let (mut pushes, mut bypassed) = (0, 0);
        for cycle in 0..20_000 {
            let (w, r, rst) = (rng.gen_bool(0.5), rng.gen_bool(0.45), rng.gen_ratio(1, 500));
            let d: u64 = rng.gen_range(0..=0xFFFF);
            m.set(write, w as u64);
            m.set(data_in, d);
            m.set(read, r as u64);
            m.set(reset, rst as u64);
            m.eval();
            assert_eq!(m.get(count), q.len() as u64, "cycle {cycle}");
            assert_eq!(m.get(empty) != 0, q.is_empty(), "cycle {cycle}");
            assert_eq!(m.get(full) != 0, q.len() == 8, "cycle {cycle}");
            if let Some(&h) = q.front() {
                assert_eq!(m.get(data_out), h, "cycle {cycle}: head");
            }
            // As the block decides: on the counts before this edge.
            let (push, pop) = (w && q.len() < 8, r && !q.is_empty());
            if push && (q.is_empty() || pop && q.len() == 1) {
                bypassed += 1;
            }
            if pop {
                q.pop_front();
            }
            if push {
                q.push_back(d);
                pushes += 1;
            }
            if rst {
                q.clear();
            }
            m.tick();
        }
        assert!(pushes > 5_000 && bypassed > 500, "{pushes} pushes, {bypassed} into an empty head");
    }
}
