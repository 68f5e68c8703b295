//! The CRC step leaf: one W-octet step of the register as combinational logic, whose structure
//! (the GF(2) matrix) is computed at elaboration from the CRC's parameters. It is a leaf the way
//! rust-hdl's `DFF` and `RAM` are: a Rust `update` for the simulator and a `Verilog::Custom`
//! body, both generated from the same [`CrcNetwork`] (never a hand-kept second model), and no
//! control logic. The blocks around it ([`super::CrcEngine`], the MPA framer's CRC stage) are
//! written in `#[hdl_gen]`.
//!
//! Ports: `state` (the register in consumption order, [`CrcNetwork`]), `data` (W octets, octet
//! 0 in bits 7:0) and `keep` (its valid octets: `k` = highest set bit + 1, the octets at and
//! above `k` never reach the network, so `data` needs no masking); out: `nxt` (the register
//! after the step, [`CrcNetwork::step`]) and `fin` (the finished CRC of `nxt`,
//! [`CrcNetwork::finish`]).

use super::network::CrcNetwork;
use crate::bits::{bits_to_u64, octets};
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;
use std::sync::Arc;

/// `D = 8·K` data bits, `K` octets per step, a `C`-bit CRC (`C` = the register width).
#[derive(LogicBlock)]
pub struct CrcStep<const D: usize, const K: usize, const C: usize> {
    pub state: Signal<In, Bits<C>>,
    pub data: Signal<In, Bits<D>>,
    pub keep: Signal<In, Bits<K>>,
    pub nxt: Signal<Out, Bits<C>>,
    pub fin: Signal<Out, Bits<C>>,
    // Invisible to rust-hdl (leading underscore): the network and whether outputs are stale.
    _net: Arc<CrcNetwork>,
    _fresh: bool,
}

impl<const D: usize, const K: usize, const C: usize> CrcStep<D, K, C> {
    pub fn new(kind: CrcKind) -> Self {
        assert_eq!(D, 8 * K, "CrcStep<D, K, C>: D must be 8·K");
        assert_eq!(C, kind.width() as usize, "CrcStep: C must be the width of {kind:?}");
        Self {
            state: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            nxt: Default::default(),
            fin: Default::default(),
            _net: Arc::new(CrcNetwork::new(kind.params(), K)),
            _fresh: true,
        }
    }

    pub fn network(&self) -> &CrcNetwork {
        &self._net
    }

    /// The register after reset and after each frame, as a constant of the register's width.
    pub fn init(&self) -> Bits<C> {
        self._net.init_r.into()
    }
}

impl<const D: usize, const K: usize, const C: usize> Logic for CrcStep<D, K, C> {
    fn update(&mut self) {
        // rust-hdl calls a leaf on every settle pass; recompute only when an input moved (the
        // octet view of a 512-bit input is not free).
        if self._fresh || self.state.changed || self.data.changed || self.keep.changed {
            self._fresh = false;
            let nxt = self._net.step(bits_to_u64(&self.state.val()), &octets(&self.data.val()), bits_to_u64(&self.keep.val()));
            self.nxt.next = nxt.into();
            self.fin.next = self._net.finish(nxt).into();
        }
    }

    fn connect(&mut self) {
        self.nxt.connect();
        self.fin.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut s = super::verilog::step_logic_shifter(&self._net, "p", "state", "data", "keep");
        s.push_str("always @(*) begin\n   nxt = p_nxt;\n   fin = p_fin;\nend\n");
        Verilog::Custom(s)
    }
}
