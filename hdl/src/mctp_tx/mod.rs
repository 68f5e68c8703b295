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
//! - `packets`, `messages`, `dropped` (messages `transmit` would refuse, dropped whole),
//!   `len_errors` (frames whose length was not `s_len`): counters.
//!
//! See [`model`] for the datapath; the Verilog in [`verilog`] mirrors it, and rust-hdl's
//! simulator runs the model through this block's `update`.

pub mod model;
pub mod verilog;

pub use model::{MctpTxModel, MsgCfg, Phase, TxIn, TxOut};

use rust_hdl::prelude::*;

/// The packetizer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {1, 2, 4, 8}).
#[derive(LogicBlock)]
pub struct MctpTx<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg_src_eid: Signal<In, Bits<8>>,
    pub cfg_dst_eid: Signal<In, Bits<8>>,
    pub cfg_tag: Signal<In, Bits<3>>,
    pub cfg_to: Signal<In, Bit>,
    pub cfg_seq: Signal<In, Bits<2>>,
    pub cfg_mtu: Signal<In, Bits<8>>,
    pub cfg_mic: Signal<In, Bit>,
    pub cfg_smbus: Signal<In, Bit>,
    pub cfg_smbus_src: Signal<In, Bits<7>>,
    pub cfg_smbus_dst: Signal<In, Bits<7>>,
    pub s_tdata: Signal<In, Bits<D>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tlast: Signal<In, Bit>,
    pub s_len: Signal<In, Bits<17>>,
    pub s_tready: Signal<Out, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub packets: Signal<Out, Bits<32>>,
    pub messages: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    pub len_errors: Signal<Out, Bits<32>>,
    // Invisible to rust-hdl (leading underscore): the model the simulator runs.
    _model: MctpTxModel,
}

impl<const D: usize, const K: usize> Default for MctpTx<D, K> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MctpTx<D, K>: D must be 8*K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_src_eid: Default::default(),
            cfg_dst_eid: Default::default(),
            cfg_tag: Default::default(),
            cfg_to: Default::default(),
            cfg_seq: Default::default(),
            cfg_mtu: Default::default(),
            cfg_mic: Default::default(),
            cfg_smbus: Default::default(),
            cfg_smbus_src: Default::default(),
            cfg_smbus_dst: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tvalid: Default::default(),
            s_tlast: Default::default(),
            s_len: Default::default(),
            s_tready: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tvalid: Default::default(),
            m_tlast: Default::default(),
            m_tready: Default::default(),
            packets: Default::default(),
            messages: Default::default(),
            dropped: Default::default(),
            len_errors: Default::default(),
            _model: MctpTxModel::new(K),
        }
    }
}


impl<const D: usize, const K: usize> MctpTx<D, K> {
    fn inputs(&self) -> TxIn {
        let d = self.s_tdata.val();
        TxIn {
            reset: self.reset.val(),
            s_tdata: (0..K).map(|i| d.get_bits::<8>(8 * i).index() as u8).collect(),
            s_tkeep: crate::bits::bits_to_u64(&self.s_tkeep.val()),
            s_tvalid: self.s_tvalid.val(),
            s_tlast: self.s_tlast.val(),
            s_len: crate::bits::bits_to_u64(&self.s_len.val()) as u32,
            cfg_src_eid: crate::bits::bits_to_u64(&self.cfg_src_eid.val()) as u8,
            cfg_dst_eid: crate::bits::bits_to_u64(&self.cfg_dst_eid.val()) as u8,
            cfg_tag: crate::bits::bits_to_u64(&self.cfg_tag.val()) as u8,
            cfg_to: self.cfg_to.val(),
            cfg_seq: crate::bits::bits_to_u64(&self.cfg_seq.val()) as u8,
            cfg_mtu: crate::bits::bits_to_u64(&self.cfg_mtu.val()) as u8,
            cfg_mic: self.cfg_mic.val(),
            cfg_smbus: self.cfg_smbus.val(),
            cfg_smbus_src: crate::bits::bits_to_u64(&self.cfg_smbus_src.val()) as u8,
            cfg_smbus_dst: crate::bits::bits_to_u64(&self.cfg_smbus_dst.val()) as u8,
            m_tready: self.m_tready.val(),
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
        self.s_tready.next = o.s_tready;
        self.m_tdata.next = crate::crc::bytes_to_bits::<D>(&o.m_tdata);
        self.m_tkeep.next = crate::crc::bytes_to_bits::<K>(&o.m_tkeep.to_le_bytes());
        self.m_tvalid.next = o.m_tvalid;
        self.m_tlast.next = o.m_tlast;
        self.packets.next = (o.packets as u64).into();
        self.messages.next = (o.messages as u64).into();
        self.dropped.next = (o.dropped as u64).into();
        self.len_errors.next = (o.len_errors as u64).into();
    }

    fn connect(&mut self) {
        self.s_tready.connect();
        self.m_tdata.connect();
        self.m_tkeep.connect();
        self.m_tvalid.connect();
        self.m_tlast.connect();
        self.packets.connect();
        self.messages.connect();
        self.dropped.connect();
        self.len_errors.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog::body(&self._model))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        crate::ports::axis_timing("mctp_tx")
    }
}

#[cfg(test)]
mod tests;
