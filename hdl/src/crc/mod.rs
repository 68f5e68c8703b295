//! Streaming parallel CRC engine (tracker issue 3).
//!
//! An AXI4-Stream sink: `tdata` carries W bytes per beat (byte 0 in bits 7:0 comes first in
//! stream order), `tkeep` marks the valid low bytes of the last beat (`tlast`; it is ignored on
//! other beats, which are always full), `tready` is high whenever the block is out of reset.
//! One beat per clock, frames back to back without idle cycles.
//!
//! Output timing (fixed latency 1): the clock edge that accepts a frame's last beat loads `crc`
//! with the finished CRC (`xorout` applied) and raises `crc_valid` for exactly one cycle
//! after that edge; `crc` holds its value until the next frame ends. `reset` is synchronous
//! and active high.
//!
//! The block emits its whole body as custom Verilog generated from a [`CrcNetwork`] (see
//! `network.rs` for the partial-beat scheme) and runs the same computation in Rust for
//! rust-hdl's simulator, because rust-hdl cannot express a W×8-input XOR matrix computed at
//! elaboration, and its `Bits<N>` is bit-by-bit above 32 bits.

pub mod network;
pub mod verilog;

pub use crate::bits::bytes_to_bits;
pub use network::CrcNetwork;

use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;
use std::sync::Arc;

/// The engine for `D = 8*K` data bits, `K` bytes per beat, a `C`-bit CRC. Stable Rust has no
/// const-generic arithmetic, hence the three parameters; [`CrcEngine::new`] checks them.
#[derive(LogicBlock)]
pub struct CrcEngine<const D: usize, const K: usize, const C: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub tdata: Signal<In, Bits<D>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tvalid: Signal<In, Bit>,
    pub tlast: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
    pub crc: Signal<Out, Bits<C>>,
    pub crc_valid: Signal<Out, Bit>,
    // Fields starting with `_` are invisible to rust-hdl (no ports, no Verilog of their own).
    _net: Arc<CrcNetwork>,
    _state: u64,
}

impl<const D: usize, const K: usize, const C: usize> CrcEngine<D, K, C> {
    pub fn new(kind: CrcKind) -> Self {
        assert_eq!(D, 8 * K, "CrcEngine<D, K, C>: D must be 8*K");
        assert_eq!(C, kind.width() as usize, "CrcEngine: C must be the width of {kind:?}");
        let net = Arc::new(CrcNetwork::new(kind.params(), K));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            tdata: Default::default(),
            tkeep: Default::default(),
            tvalid: Default::default(),
            tlast: Default::default(),
            tready: Default::default(),
            crc: Default::default(),
            crc_valid: Default::default(),
            _state: net.init_r,
            _net: net,
        }
    }

    pub fn network(&self) -> &CrcNetwork {
        &self._net
    }
}

impl<const D: usize, const K: usize, const C: usize> Logic for CrcEngine<D, K, C> {
    /// The Rust twin of the Verilog in [`verilog::engine_body`].
    fn update(&mut self) {
        self.tready.next = !self.reset.val();
        if self.clock.pos_edge() {
            if self.reset.val() {
                self._state = self._net.init_r;
                self.crc.next = 0u64.into();
                self.crc_valid.next = false;
            } else {
                self.crc_valid.next = false;
                if self.tvalid.val() {
                    let last = self.tlast.val();
                    let keep = if last { crate::bits::bits_to_u64(&self.tkeep.val()) } else { crate::bits::low_ones(K) };
                    let d = self.tdata.val();
                    let data: Vec<u8> =
                        (0..K).map(|i| d.get_bits::<8>(8 * i).index() as u8).collect();
                    let next = self._net.step(self._state, &data, keep);
                    if last {
                        self._state = self._net.init_r;
                        self.crc.next = self._net.finish(next).into();
                        self.crc_valid.next = true;
                    } else {
                        self._state = next;
                    }
                }
            }
        }
    }

    fn connect(&mut self) {
        self.tready.connect();
        self.crc.connect();
        self.crc_valid.connect();
    }

    fn hdl(&self) -> Verilog {
        // `Wrapper` rather than `Custom`: it lets us add the shifter as a separate module
        // (`cores`), see `verilog.rs` for why it must be one.
        let w = self._net.bytes;
        Verilog::Wrapper(Wrapper {
            code: verilog::engine_body(&self._net),
            cores: if w > 1 { verilog::shifter_module(w) } else { String::new() },
        })
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "crc_engine".into(),
            clock: "clock".into(),
            inputs: vec!["tdata".into(), "tkeep".into(), "tvalid".into(), "tlast".into()],
            outputs: vec!["crc".into(), "crc_valid".into()],
        }]
    }
}



