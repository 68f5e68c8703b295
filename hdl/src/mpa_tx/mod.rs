//! MPA transmit offload (RFC 5044 §4): ULPDUs in, the FPDU byte stream out, Markers inserted
//! every 512 octets, PAD and CRC-32C appended — byte-identical to `offload_driver::mpa::Framer`.
//!
//! Ports (AXI4-Stream conventions):
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: the ULPDU, `s_len` its length with the first
//!   beat (DDP knows it); tkeep is read on the last beat only.
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: the FPDU stream, one frame per FPDU (the
//!   Markers, ULPDU_Length, ULPDU, PAD and CRC of one FPDU), partial tkeep on the last beat only.
//! - `cfg_markers`, `cfg_crc`, `cfg_mulpdu`: live configuration (change between FPDUs);
//!   `cfg_offset`: stream offset of the first octet, loaded at reset.
//! - `fpdus`, `dropped`: counters (ULPDUs dropped whole for a length of 0 or over MULPDU).
//!
//! See [`model`] for the datapath; the Verilog in [`verilog`] mirrors it, and rust-hdl's
//! simulator runs the model through this block's `update`.

pub mod model;
pub mod verilog;

pub use model::{MpaTxModel, Phase, TxIn, TxOut};

use offload_driver::mpa::{FramingConfig, Framer};
use rust_hdl::prelude::*;

/// The block's contract, for its tests and co-simulation: the FPDUs it must emit for
/// `ulpdus` framed from stream offset `offset` — the software framer's, one per ULPDU, with the
/// ULPDUs the framer refuses (length 0 or over MULPDU) left out, as the block drops them.
pub fn expected_fpdus(cfg: FramingConfig, offset: u64, ulpdus: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut f = Framer::new(cfg, offset).expect("a valid framing configuration and offset");
    ulpdus
        .iter()
        .filter_map(|u| {
            let mut out = Vec::new();
            f.frame(u, &mut out).ok().map(|_| out)
        })
        .collect()
}

/// The framer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {4, 8, 16, 32, 64}).
#[derive(LogicBlock)]
pub struct MpaTx<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg_markers: Signal<In, Bit>,
    pub cfg_crc: Signal<In, Bit>,
    pub cfg_mulpdu: Signal<In, Bits<16>>,
    pub cfg_offset: Signal<In, Bits<16>>,
    pub s_tdata: Signal<In, Bits<D>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tlast: Signal<In, Bit>,
    pub s_len: Signal<In, Bits<16>>,
    pub s_tready: Signal<Out, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub fpdus: Signal<Out, Bits<32>>,
    pub dropped: Signal<Out, Bits<32>>,
    // Invisible to rust-hdl (leading underscore): the model the simulator runs.
    _model: MpaTxModel,
}

impl<const D: usize, const K: usize> Default for MpaTx<D, K> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MpaTx<D, K>: D must be 8*K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_markers: Default::default(),
            cfg_crc: Default::default(),
            cfg_mulpdu: Default::default(),
            cfg_offset: Default::default(),
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
            fpdus: Default::default(),
            dropped: Default::default(),
            _model: MpaTxModel::new(K),
        }
    }
}


impl<const D: usize, const K: usize> MpaTx<D, K> {
    fn inputs(&self) -> TxIn {
        let d = self.s_tdata.val();
        TxIn {
            reset: self.reset.val(),
            cfg_markers: self.cfg_markers.val(),
            cfg_crc: self.cfg_crc.val(),
            cfg_mulpdu: crate::bits::bits_to_u64(&self.cfg_mulpdu.val()) as u16,
            cfg_offset: crate::bits::bits_to_u64(&self.cfg_offset.val()) as u16,
            s_tdata: (0..K).map(|i| d.get_bits::<8>(8 * i).index() as u8).collect(),
            s_tkeep: crate::bits::bits_to_u64(&self.s_tkeep.val()),
            s_tvalid: self.s_tvalid.val(),
            s_tlast: self.s_tlast.val(),
            s_len: crate::bits::bits_to_u64(&self.s_len.val()) as u16,
            m_tready: self.m_tready.val(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MpaTx<D, K> {
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
        self.fpdus.next = (o.fpdus as u64).into();
        self.dropped.next = (o.dropped as u64).into();
    }

    fn connect(&mut self) {
        self.s_tready.connect();
        self.m_tdata.connect();
        self.m_tkeep.connect();
        self.m_tvalid.connect();
        self.m_tlast.connect();
        self.fpdus.connect();
        self.dropped.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog::body(&self._model))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        crate::ports::axis_timing("mpa_tx")
    }
}

#[cfg(test)]
mod tests;
