//! Streaming parallel CRC engine.
//!
//! An AXI4-Stream sink (`s`): `tdata` carries W octets per beat (octet 0 in bits 7:0 comes
//! first in stream order), `tkeep` marks the valid low octets of the last beat (`tlast`; it is
//! ignored on other beats, which are always full), `tready` is high whenever the block is out
//! of reset. One beat per clock, frames back to back without idle cycles.
//!
//! Output timing (fixed latency 1): the clock edge that accepts a frame's last beat loads `crc`
//! with the finished CRC (`xorout` applied) and raises `crc_valid` for exactly one cycle
//! after that edge; `crc` holds its value until the next frame ends. `reset` is synchronous
//! and active high.
//!
//! The control (handshake, state register, the last beat's `tkeep`, output register) is
//! `#[hdl_gen]`; the W-octet step is the [`CrcStep`] leaf, whose XOR network is computed at
//! elaboration from the same Rocksoft parameters the software CRCs use (`network.rs` has the
//! partial-beat scheme).

pub mod network;
pub mod step;
pub mod verilog;

pub use crate::bits::bytes_to_bits;
pub use network::CrcNetwork;
pub use step::CrcStep;

use crate::axis::AxisSink;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// The engine for `D = 8*K` data bits, `K` octets per beat, a `C`-bit CRC. Stable Rust has no
/// const-generic arithmetic, hence the three parameters; [`CrcEngine::new`] checks them.
#[derive(LogicBlock)]
pub struct CrcEngine<const D: usize, const K: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K>,
    pub crc: Signal<Out, Bits<C>>,
    pub crc_valid: Signal<Out, Bit>,
    step: CrcStep<D, K, C>,
    state: DFF<Bits<C>>,
    crc_q: DFF<Bits<C>>,
    valid_q: DFF<Bit>,
    /// The octets the step consumes: all of a beat but the last, whose `tkeep` says.
    keep: Signal<Local, Bits<K>>,
    init: Constant<Bits<C>>,
    all_k: Constant<Bits<K>>,
}

impl<const D: usize, const K: usize, const C: usize> CrcEngine<D, K, C> {
    pub fn new(kind: CrcKind) -> Self {
        let step = CrcStep::<D, K, C>::new(kind);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            crc: Default::default(),
            crc_valid: Default::default(),
            init: Constant::new(step.init()),
            step,
            state: Default::default(),
            crc_q: Default::default(),
            valid_q: Default::default(),
            keep: Default::default(),
            all_k: Constant::new(crate::bits::low_ones(K).into()),
        }
    }

    pub fn network(&self) -> &CrcNetwork {
        self.step.network()
    }
}

impl<const D: usize, const K: usize, const C: usize> Logic for CrcEngine<D, K, C> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, crc_q, valid_q);
        // Never stalls: ready whenever out of reset.
        self.s.tready.next = !self.reset.val();
        self.crc.next = self.crc_q.q.val();
        self.crc_valid.next = self.valid_q.q.val();
        self.keep.next = self.all_k.val();
        if self.s.tlast.val() {
            self.keep.next = self.s.tkeep.val();
        }
        self.step.state.next = self.state.q.val();
        self.step.data.next = self.s.tdata.val();
        self.step.keep.next = self.keep.val();
        self.valid_q.d.next = false;
        if self.s.tvalid.val() {
            if self.s.tlast.val() {
                // A null last beat (tkeep = 0) finishes the register as it is: the step leaves
                // it unchanged.
                self.state.d.next = self.init.val();
                self.crc_q.d.next = self.step.fin.val();
                self.valid_q.d.next = true;
            } else {
                self.state.d.next = self.step.nxt.val();
            }
        }
        if self.reset.val() {
            self.state.d.next = self.init.val();
            self.crc_q.d.next = 0.into();
            self.valid_q.d.next = false;
        }
    }
}

/// rust-hdl's simulation of the engine behind the testbench's
/// [`crate::testbench::ClockedModel`].
pub fn hdl_model<const D: usize, const K: usize, const C: usize>(
    kind: CrcKind,
) -> Result<crate::testbench::HdlModel<CrcEngine<D, K, C>>, crate::testbench::BenchError> {
    crate::hdl_model!(
        CrcEngine::<D, K, C>::new(kind),
        CrcEngine<D, K, C>,
        [reset, s.tdata, s.tkeep, s.tvalid, s.tlast, s.tready, crc, crc_valid]
    )
}

#[cfg(test)]
mod tests;
