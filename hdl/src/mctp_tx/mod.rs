//! MCTP transmit offload (DSP0236 packets, NVMe-MI MIC, DSP0237 SMBus binding): one message in,
//! one AXI-Stream frame per MCTP packet out — byte-identical to `offload_driver::mctp::transmit`.
//!
//! Ports (AXI4-Stream conventions):
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: the message (first octet IC·message type);
//!   tkeep is read on the last beat only. With the first beat: `s_len` (octets, 17 bits) and the
//!   header fields `cfg_src_eid`, `cfg_dst_eid`, `cfg_tag`, `cfg_to`, `cfg_seq` (first packet's
//!   sequence number), `cfg_mtu` (payload octets per packet, 64..=251; ≤ 250 with SMBus),
//!   `cfg_mic` (append the NVMe-MI MIC), `cfg_smbus`, `cfg_smbus_src`, `cfg_smbus_dst` (7-bit
//!   slave addresses). They are latched with that beat.
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: the packets, one frame each
//!   (`[SMBus prefix] · header · payload · [PEC]`), partial tkeep on the last beat only.
//! - `counters_packets`, `counters_messages`, `counters_dropped` (messages `transmit` would
//!   refuse, dropped whole), `counters_len_errors` (frames whose length was not `s_len`).
//!
//! The ports are bundles ([`MctpTxConfig`] `cfg`, the AXI-Stream `s`/`m`, [`MctpTxCounters`]
//! `counters`); the Verilog text is written against the flat names and renamed to the
//! bundles' by [`crate::ports::body_for_bundles`].
//!
//! See [`model`] for the datapath; the Verilog in [`verilog`] mirrors it, and rust-hdl's
//! simulator runs the model through this block's `update`.

pub mod model;
pub mod verilog;

pub use model::{MctpTxModel, MsgCfg, Phase, TxIn, TxOut};

use crate::axis::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

/// The packetizer's header fields and bindings (`cfg_*` at the boundary), latched with each
/// message's first beat; driven by the register block ([`MctpTxConfigSource`]).
#[derive(LogicInterface, Default)]
#[join = "MctpTxConfigSource"]
pub struct MctpTxConfig {
    pub src_eid: Signal<In, Bits<8>>,
    pub dst_eid: Signal<In, Bits<8>>,
    pub tag: Signal<In, Bits<3>>,
    pub to: Signal<In, Bit>,
    pub seq: Signal<In, Bits<2>>,
    pub mtu: Signal<In, Bits<8>>,
    pub mic: Signal<In, Bit>,
    pub smbus: Signal<In, Bit>,
    pub smbus_src: Signal<In, Bits<7>>,
    pub smbus_dst: Signal<In, Bits<7>>,
}

/// The driving side of [`MctpTxConfig`].
#[derive(LogicInterface, Default)]
#[join = "MctpTxConfig"]
pub struct MctpTxConfigSource {
    pub src_eid: Signal<Out, Bits<8>>,
    pub dst_eid: Signal<Out, Bits<8>>,
    pub tag: Signal<Out, Bits<3>>,
    pub to: Signal<Out, Bit>,
    pub seq: Signal<Out, Bits<2>>,
    pub mtu: Signal<Out, Bits<8>>,
    pub mic: Signal<Out, Bit>,
    pub smbus: Signal<Out, Bit>,
    pub smbus_src: Signal<Out, Bits<7>>,
    pub smbus_dst: Signal<Out, Bits<7>>,
}

/// The packetizer's counters (`counters_*` at the boundary).
#[derive(LogicInterface, Default)]
#[join = "MctpTxCountersSink"]
pub struct MctpTxCounters {
    pub packets: Signal<Out, Bits<32>>,
    pub messages: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub len_errors: Signal<Out, Bits<32>>,
}

/// The reading side of [`MctpTxCounters`].
#[derive(LogicInterface, Default)]
#[join = "MctpTxCounters"]
pub struct MctpTxCountersSink {
    pub packets: Signal<In, Bits<32>>,
    pub messages: Signal<In, Bits<32>>,
    pub dropped: Signal<In, Bits<32>>,
    pub len_errors: Signal<In, Bits<32>>,
}

/// The packetizer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {1, 2, 4, 8}).
#[derive(LogicBlock)]
pub struct MctpTx<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpTxConfig,
    pub s: AxisSink<D, K>,
    pub s_len: Signal<In, Bits<17>>,
    pub m: AxisSource<D, K>,
    pub counters: MctpTxCounters,
    // Invisible to rust-hdl (leading underscore): the model the simulator runs.
    _model: MctpTxModel,
}

impl<const D: usize, const K: usize> Default for MctpTx<D, K> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MctpTx<D, K>: D must be 8*K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            m: Default::default(),
            counters: Default::default(),
            _model: MctpTxModel::new(K),
        }
    }
}


impl<const D: usize, const K: usize> MctpTx<D, K> {
    fn inputs(&self) -> TxIn {
        let d = self.s.tdata.val();
        TxIn {
            reset: self.reset.val(),
            s_tdata: (0..K).map(|i| d.get_bits::<8>(8 * i).index() as u8).collect(),
            s_tkeep: crate::bits::bits_to_u64(&self.s.tkeep.val()),
            s_tvalid: self.s.tvalid.val(),
            s_tlast: self.s.tlast.val(),
            s_len: crate::bits::bits_to_u64(&self.s_len.val()) as u32,
            cfg_src_eid: crate::bits::bits_to_u64(&self.cfg.src_eid.val()) as u8,
            cfg_dst_eid: crate::bits::bits_to_u64(&self.cfg.dst_eid.val()) as u8,
            cfg_tag: crate::bits::bits_to_u64(&self.cfg.tag.val()) as u8,
            cfg_to: self.cfg.to.val(),
            cfg_seq: crate::bits::bits_to_u64(&self.cfg.seq.val()) as u8,
            cfg_mtu: crate::bits::bits_to_u64(&self.cfg.mtu.val()) as u8,
            cfg_mic: self.cfg.mic.val(),
            cfg_smbus: self.cfg.smbus.val(),
            cfg_smbus_src: crate::bits::bits_to_u64(&self.cfg.smbus_src.val()) as u8,
            cfg_smbus_dst: crate::bits::bits_to_u64(&self.cfg.smbus_dst.val()) as u8,
            m_tready: self.m.tready.val(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MctpTx<D, K> {
    fn update(&mut self) {
        let i = self.inputs();
        if self.clock.pos_edge() {
            self._model.clock(&i);
        }
        let o = self._model.outputs(&i);
        self.s.tready.next = o.s_tready;
        self.m.tdata.next = crate::crc::bytes_to_bits::<D>(&o.m_tdata);
        self.m.tkeep.next = crate::crc::bytes_to_bits::<K>(&o.m_tkeep.to_le_bytes());
        self.m.tvalid.next = o.m_tvalid;
        self.m.tlast.next = o.m_tlast;
        self.counters.packets.next = (o.packets as u64).into();
        self.counters.messages.next = (o.messages as u64).into();
        self.counters.dropped.next = (o.dropped as u64).into();
        self.counters.len_errors.next = (o.len_errors as u64).into();
    }

    fn connect(&mut self) {
        self.s.tready.connect();
        self.m.tdata.connect();
        self.m.tkeep.connect();
        self.m.tvalid.connect();
        self.m.tlast.connect();
        self.counters.packets.connect();
        self.counters.messages.connect();
        self.counters.dropped.connect();
        self.counters.len_errors.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(crate::ports::body_for_bundles(&verilog::body(&self._model), self))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        crate::ports::axis_timing("mctp_tx")
    }
}

#[cfg(test)]
mod tests;
