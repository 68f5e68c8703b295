//! Streaming parallel CRC engine.
//!
//! An AXI4-Stream sink (`s`): `tdata` carries W octets per beat (octet 0 in bits 7:0 comes
//! first in stream order), `tkeep` marks the valid low octets of the last beat (`tlast`; it is
//! ignored on other beats, which are always full). The stream is packed (AXI4-Stream's
//! continuous aligned form): a last beat's `tkeep` is `k` low ones, `0 ≤ k ≤ W`; any other
//! value is outside the contract and gives an unspecified CRC (taking the hull of a scattered
//! `tkeep`, as the single-stage engine did, costs a suffix OR that synthesis ripples: ten LUT
//! levels at W = 64). `tready` is high whenever the block is out of reset.
//! One beat per clock, frames back to back without idle cycles.
//!
//! Output timing (fixed latency [`latency`]`(W)` = `4 + 2·log2(W)` clocks): `crc_valid` rises
//! exactly that many cycles after the clock edge that accepts a frame's last beat, for one
//! cycle, with the finished CRC (`xorout` applied) on `crc`; `crc` holds its value until the
//! next frame's CRC. `reset` is synchronous and active high.
//!
//! # Pipeline ([`pipeline`] has the arithmetic)
//! 1. The beat is registered with a last beat's octets past `tkeep` zeroed (so no shifter is
//!    needed), and `tkeep`.
//! 2. The data's zero-state remainder `L(d)` ([`GfMatrix`]) in parts of 4 or 8 octets
//!    ([`data_parts`]), each registered, with the last beat's unshift count `W − k`.
//! 3. The loop, `R ← A_W·R ⊕ L(d)` (the parts XORed in); a frame's last beat loads the result
//!    into the finishing chain instead (the register itself for a null last beat). The loop
//!    restarts at zero, not at `init`, and a frame's first beat carries `A_W·init` in its data
//!    remainder (stage 2): the same sum, and the register's restart is then a synchronous
//!    clear (the flip-flops' own reset input) instead of a select behind the loop's tree.
//! 4. `log2(W)` unshift stages, two clocks each: stage `b` applies `U_{2^b}` when bit `b` of
//!    the count is set. Its first clock registers the product in two halves
//!    ([`matrix::split_rows`]: each a tree of half the fan-in) beside the stage's input, its
//!    second the select (the halves XORed, or the input kept: one LUT a bit).
//! 5. The finishing permutation and `xorout` into the output register.
//!
//! Every register-to-register path is one XOR tree of at most 64 inputs, half an unshift's
//! tree, or a select of registered values; the loop's tree has at most `8·min(W, m)` state
//! inputs and [`data_parts`] parts an output bit. (A whole unshift tree and its select in one
//! clock was four LUT levels, CRC-32C W = 8's critical path at 232 MHz.)

pub mod matrix;
pub mod network;
pub mod pipeline;
pub mod step;
pub mod verilog;

pub use crate::bits::bytes_to_bits;
pub use matrix::GfMatrix;
pub use network::CrcNetwork;
pub use pipeline::CrcPipeline;
pub use step::CrcStep;

use crate::axis::AxisSink;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// Parts the data remainder is computed in, each its own tree and register, XORed in the loop:
/// parts of 4 octets up to W = 8 (W = 8 runs at 250 MHz: a 64-input part was its critical
/// path), of 8 octets beyond (those widths run at 156.25 MHz, and the loop XORs every part).
pub fn data_parts(width_bytes: usize) -> usize {
    if width_bytes <= 8 {
        width_bytes.div_ceil(4)
    } else {
        width_bytes / 8
    }
}

/// Clocks from the edge that accepts a frame's last beat to the cycle `crc_valid` is high, for
/// `width_bytes` octets per beat: input register, data remainder, loop, two clocks per unshift
/// stage, output register.
pub fn latency(width_bytes: usize) -> u64 {
    4 + 2 * width_bytes.trailing_zeros() as u64
}

/// The engine for `D = 8*K` data bits, `K` octets per beat, a `C`-bit CRC, `S = log2(K)` unshift
/// stages, `S1 = S + 1` and `P = `[`data_parts`]`(K)` parts of the data remainder. Stable Rust has no
/// const-generic arithmetic, hence the six parameters; [`CrcEngine::new`] checks them.
#[derive(LogicBlock)]
pub struct CrcEngine<const D: usize, const K: usize, const C: usize, const S: usize, const S1: usize, const P: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K>,
    pub crc: Signal<Out, Bits<C>>,
    pub crc_valid: Signal<Out, Bit>,
    // Stage 1: the accepted beat.
    in_data: DFF<Bits<D>>,
    /// Octets of the beat that count: all, or on a last beat `tkeep` (`k` low ones).
    in_keep: DFF<Bits<K>>,
    in_valid: DFF<Bit>,
    in_last: DFF<Bit>,
    /// The beat is a frame's first (`first_pend` when it was accepted).
    in_first: DFF<Bit>,
    /// The next accepted beat starts a frame.
    first_pend: DFF<Bit>,
    // Stage 2: the data remainder, in `data_parts(K)` parts of 4 or 8 octets (at most a
    // 64-input XOR tree, three LUT4 levels; the loop XORs the parts).
    data_net: [GfMatrix<D, C>; P],
    dr: [DFF<Bits<C>>; P],
    dr_valid: DFF<Bit>,
    dr_last: DFF<Bit>,
    dr_first: DFF<Bit>,
    dr_null: DFF<Bit>,
    /// `W − k` on a last beat of `k ≥ 1` octets.
    dr_back: DFF<Bits<8>>,
    // Stage 3: the loop.
    advance: GfMatrix<C, C>,
    state: DFF<Bits<C>>,
    // Stage 4: the finishing chain; entry 0 is loaded by the loop, entry b + 1 by stage b,
    // whose first clock loads the halves of `U_{2^b}·chain[b]` and a copy of `chain[b]`.
    unshift_a: [GfMatrix<C, C>; S],
    unshift_b: [GfMatrix<C, C>; S],
    chain: [DFF<Bits<C>>; S1],
    half_a: [DFF<Bits<C>>; S],
    half_b: [DFF<Bits<C>>; S],
    half_x: [DFF<Bits<C>>; S],
    /// Beside `chain[b]`: bit 0 set when it holds a frame's register, bits 7:1 `W − k`
    /// (stage `b` reads bit `b + 1`). Zero when it holds no frame, so the output stage can test
    /// the whole word and no bit is left unread at any width.
    chain_ctl: [DFF<Bits<8>>; S1],
    /// Beside the halves of stage `b`.
    half_ctl: [DFF<Bits<8>>; S],
    // Stage 5: the output.
    finish: GfMatrix<C, C>,
    crc_q: DFF<Bits<C>>,
    valid_q: DFF<Bit>,
    // Combinational temporaries.
    keep: Signal<Local, Bits<K>>,
    /// The top counted octet, one-hot.
    top: Signal<Local, Bits<K>>,
    masked: Signal<Local, Bits<D>>,
    back: Signal<Local, Bits<8>>,
    nxt: Signal<Local, Bits<C>>,
    done: Signal<Local, Bits<C>>,
    done_ctl: Signal<Local, Bits<8>>,
    init: Constant<Bits<C>>,
    /// `A_W·init`: a frame's first beat adds it to its data remainder.
    c_adv_init: Constant<Bits<C>>,
    all_k: Constant<Bits<K>>,
    one_k: Constant<Bits<K>>,
    c_k_1: Constant<Bits<8>>,
    one_8: Constant<Bits<8>>,
    c_byte_d: Constant<Bits<D>>,
}

impl<const D: usize, const K: usize, const C: usize, const S: usize, const S1: usize, const P: usize>
    CrcEngine<D, K, C, S, S1, P>
{
    pub fn new(kind: CrcKind) -> Self {
        assert!(
            D == 8 * K && K.is_power_of_two() && S == K.trailing_zeros() as usize && S1 == S + 1 && P == data_parts(K),
            "CrcEngine<8K, K, C, log2(K), log2(K) + 1, data_parts(K)>"
        );
        assert_eq!(C, kind.width() as usize, "CrcEngine: C must be the width of {kind:?}");
        let p = CrcPipeline::new(CrcNetwork::new(kind.params(), K));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            crc: Default::default(),
            crc_valid: Default::default(),
            in_data: Default::default(),
            in_keep: Default::default(),
            in_valid: Default::default(),
            in_last: Default::default(),
            in_first: Default::default(),
            first_pend: Default::default(),
            // Part j keeps the columns of its own 64 input bits.
            data_net: std::array::from_fn(|j| {
                let part = D / P;
                let cols = p.data.iter().enumerate().map(|(i, &c)| if i / part == j { c } else { 0 }).collect();
                GfMatrix::new(cols, 0)
            }),
            dr: std::array::from_fn(|_| Default::default()),
            dr_valid: Default::default(),
            dr_last: Default::default(),
            dr_first: Default::default(),
            c_adv_init: Constant::new(matrix::apply(&p.advance, p.net.init_r).into()),
            dr_null: Default::default(),
            dr_back: Default::default(),
            advance: GfMatrix::new(p.advance.clone(), 0),
            state: Default::default(),
            unshift_a: std::array::from_fn(|b| GfMatrix::new(matrix::split_rows(&p.unshift[b], C).0, 0)),
            unshift_b: std::array::from_fn(|b| GfMatrix::new(matrix::split_rows(&p.unshift[b], C).1, 0)),
            chain: std::array::from_fn(|_| Default::default()),
            half_a: std::array::from_fn(|_| Default::default()),
            half_b: std::array::from_fn(|_| Default::default()),
            half_x: std::array::from_fn(|_| Default::default()),
            half_ctl: std::array::from_fn(|_| Default::default()),
            chain_ctl: std::array::from_fn(|_| Default::default()),
            finish: GfMatrix::new(p.finish.clone(), p.net.params.xorout),
            crc_q: Default::default(),
            valid_q: Default::default(),
            keep: Default::default(),
            top: Default::default(),
            masked: Default::default(),
            back: Default::default(),
            nxt: Default::default(),
            done: Default::default(),
            done_ctl: Default::default(),
            init: Constant::new(p.net.init_r.into()),
            all_k: Constant::new(crate::bits::low_ones(K).into()),
            one_k: Constant::new(1u64.into()),
            c_k_1: Constant::new(((K - 1) as u64).into()),
            one_8: Constant::new(1u64.into()),
            c_byte_d: Constant::new(0xFFu64.into()),
        }
    }
}

impl<const D: usize, const K: usize, const C: usize, const S: usize, const S1: usize, const P: usize> Logic
    for CrcEngine<D, K, C, S, S1, P>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_data, in_keep, in_valid, in_last, in_first, first_pend, dr_valid, dr_last, dr_first, dr_null, dr_back, state, crc_q,
            valid_q
        );
        for j in 0..P {
            self.dr[j].clock.next = self.clock.val();
        }
        for b in 0..S1 {
            self.chain[b].clock.next = self.clock.val();
            self.chain_ctl[b].clock.next = self.clock.val();
        }
        for b in 0..S {
            self.half_a[b].clock.next = self.clock.val();
            self.half_b[b].clock.next = self.clock.val();
            self.half_x[b].clock.next = self.clock.val();
            self.half_ctl[b].clock.next = self.clock.val();
        }
        // Never stalls: ready whenever out of reset.
        self.s.tready.next = !self.reset.val();
        self.crc.next = self.crc_q.q.val();
        self.crc_valid.next = self.valid_q.q.val();

        // Stage 1: the beat, a last beat's octets past tkeep zeroed.
        self.keep.next = self.all_k.val();
        if self.s.tlast.val() {
            self.keep.next = self.s.tkeep.val();
        }
        self.masked.next = self.s.tdata.val();
        for i in 0..K {
            if !((self.keep.val() >> i.to_bits::<16>()) & self.one_k.val()).any() {
                self.masked.next = self.masked.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.in_data.d.next = self.masked.val();
        self.in_keep.d.next = self.keep.val();
        self.in_valid.d.next = self.s.tvalid.val();
        self.in_last.d.next = self.s.tlast.val();
        self.in_first.d.next = self.first_pend.q.val();
        if self.s.tvalid.val() {
            self.first_pend.d.next = self.s.tlast.val();
        }

        // Stage 2: the data remainder, and W − k from tkeep: k low ones, the top one at
        // m = k − 1, and W − k = (W − 1) − m = (W − 1) ^ m.
        for j in 0..P {
            self.data_net[j].x.next = self.in_data.q.val();
            self.dr[j].d.next = self.data_net[j].y.val();
        }
        if self.in_first.q.val() {
            self.dr[0].d.next = self.data_net[0].y.val() ^ self.c_adv_init.val();
        }
        self.top.next = self.in_keep.q.val() & !(self.in_keep.q.val() >> 1);
        self.back.next = 0.into();
        for i in 0..K {
            if ((self.top.val() >> i.to_bits::<16>()) & self.one_k.val()).any() {
                self.back.next = self.back.val() | i.to_bits::<8>();
            }
        }
        self.back.next = self.back.val() ^ self.c_k_1.val();
        if !(self.in_keep.q.val() & self.one_k.val()).any() {
            self.back.next = 0.into();
        }
        self.dr_back.d.next = self.back.val();
        self.dr_valid.d.next = self.in_valid.q.val();
        self.dr_last.d.next = self.in_last.q.val();
        self.dr_first.d.next = self.in_first.q.val();
        self.dr_null.d.next = !(self.in_keep.q.val() & self.one_k.val()).any();

        // Stage 3: the loop; a last beat's result goes to the finishing chain.
        self.advance.x.next = self.state.q.val();
        self.nxt.next = self.advance.y.val();
        for j in 0..P {
            self.nxt.next = self.nxt.val() ^ self.dr[j].q.val();
        }
        if self.dr_valid.q.val() {
            self.state.d.next = self.nxt.val();
            if self.dr_last.q.val() {
                self.state.d.next = 0.into();
            }
        }
        self.chain[0].d.next = self.nxt.val();
        if self.dr_null.q.val() {
            self.chain[0].d.next = self.state.q.val();
            if self.dr_first.q.val() {
                self.chain[0].d.next = self.init.val();
            }
        }
        self.chain_ctl[0].d.next = 0.into();
        if self.dr_valid.q.val() & self.dr_last.q.val() {
            self.chain_ctl[0].d.next = (self.dr_back.q.val() << 1) | self.one_8.val();
        }

        // Stage 4: unshift by 2^b octets where bit b of W − k is set: the product's halves in
        // one clock, the select in the next.
        for b in 0..S {
            self.unshift_a[b].x.next = self.chain[b].q.val();
            self.unshift_b[b].x.next = self.chain[b].q.val();
            self.half_a[b].d.next = self.unshift_a[b].y.val();
            self.half_b[b].d.next = self.unshift_b[b].y.val();
            self.half_x[b].d.next = self.chain[b].q.val();
            self.half_ctl[b].d.next = self.chain_ctl[b].q.val();
            self.chain[b + 1].d.next = self.half_x[b].q.val();
            if self.half_ctl[b].q.val().get_bit(b + 1) {
                self.chain[b + 1].d.next = self.half_a[b].q.val() ^ self.half_b[b].q.val();
            }
            self.chain_ctl[b + 1].d.next = self.half_ctl[b].q.val();
        }

        // Stage 5: the chain's last entry (the loop leaves the last one written), finished.
        self.done.next = self.chain[0].q.val();
        self.done_ctl.next = self.chain_ctl[0].q.val();
        for b in 1..S1 {
            self.done.next = self.chain[b].q.val();
            self.done_ctl.next = self.chain_ctl[b].q.val();
        }
        self.finish.x.next = self.done.val();
        self.valid_q.d.next = self.done_ctl.val().any();
        if self.done_ctl.val().any() {
            self.crc_q.d.next = self.finish.y.val();
        }

        if self.reset.val() {
            self.in_valid.d.next = false;
            self.dr_valid.d.next = false;
            self.state.d.next = 0.into();
            self.first_pend.d.next = true;
            for b in 0..S1 {
                self.chain_ctl[b].d.next = 0.into();
            }
            for b in 0..S {
                self.half_ctl[b].d.next = 0.into();
            }
            self.crc_q.d.next = 0.into();
            self.valid_q.d.next = false;
        }
    }
}

/// rust-hdl's simulation of the engine behind the testbench's
/// [`crate::testbench::ClockedModel`].
pub fn hdl_model<const D: usize, const K: usize, const C: usize, const S: usize, const S1: usize, const P: usize>(
    kind: CrcKind,
) -> Result<crate::testbench::HdlModel<CrcEngine<D, K, C, S, S1, P>>, crate::testbench::BenchError> {
    crate::hdl_model!(
        CrcEngine::<D, K, C, S, S1, P>::new(kind),
        CrcEngine<D, K, C, S, S1, P>,
        [reset, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready, crc, crc_valid]
    )
}

#[cfg(test)]
mod tests;
