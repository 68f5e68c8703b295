//! MCTP receive offload (DSP0236 reassembly, DSP0237 SMBus binding with PEC, NVMe-MI MIC): one
//! AXI-Stream frame per packet in, the reassembled messages out — exactly the messages
//! `offload_driver::mctp::receive` delivers with one reassembly context, in the same order,
//! with drops counted by the same reasons.
//!
//! Ports (AXI4-Stream conventions):
//! - `cfg_smbus` (frames are SMBus frames), `cfg_mic` (check and strip the NVMe-MI MIC),
//!   `cfg_strict` (transmission-unit rules), `cfg_max_len[12:0]` (message limit, MIC included;
//!   at most 7680): static, change them only under reset.
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: one frame per packet, starting in lane 0;
//!   tkeep is read on the last beat only. Not ready in the cycle after each frame's last beat
//!   (the packet is judged then).
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: one frame per delivered message (MIC
//!   stripped with `cfg_mic`), partial tkeep on the last beat only; `m_src_eid`, `m_dst_eid`,
//!   `m_tag`, `m_to` hold the message's header fields with every beat. Only messages that
//!   passed every check appear: there is no error flag because nothing is streamed before it
//!   is known good (see [`model`] for why the block buffers whole messages).
//! - Counters (32 bits, wrapping): `messages`, `malformed`, `no_context`, `bad_sequence`,
//!   `bad_unit_size`, `restarted`, `too_long`, `contexts_full` (the software's
//!   `ReassemblyStats`), `bad_pec`, `bad_smbus` (its SMBus binding errors), `mic_errors` (its
//!   integrity errors) and `oversize` (raw frames over 260 octets, a hardware limit).
//!
//! See [`model`] for the datapath; the Verilog in [`verilog`] mirrors it, and rust-hdl's
//! simulator runs the model through this block's `update`.

pub mod model;
pub mod verilog;

pub use model::{MctpRxModel, RxCounters, RxIn, RxOut};

use rust_hdl::prelude::*;

/// The depacketizer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {1, 2, 4, 8}).
#[derive(LogicBlock)]
pub struct MctpRx<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg_smbus: Signal<In, Bit>,
    pub cfg_mic: Signal<In, Bit>,
    pub cfg_strict: Signal<In, Bit>,
    pub cfg_max_len: Signal<In, Bits<13>>,
    pub s_tdata: Signal<In, Bits<D>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tlast: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tlast: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub m_src_eid: Signal<Out, Bits<8>>,
    pub m_dst_eid: Signal<Out, Bits<8>>,
    pub m_tag: Signal<Out, Bits<3>>,
    pub m_to: Signal<Out, Bit>,
    pub messages: Signal<Out, Bits<32>>,
    pub malformed: Signal<Out, Bits<32>>,
    pub no_context: Signal<Out, Bits<32>>,
    pub bad_sequence: Signal<Out, Bits<32>>,
    pub bad_unit_size: Signal<Out, Bits<32>>,
    pub restarted: Signal<Out, Bits<32>>,
    pub too_long: Signal<Out, Bits<32>>,
    pub contexts_full: Signal<Out, Bits<32>>,
    pub bad_pec: Signal<Out, Bits<32>>,
    pub bad_smbus: Signal<Out, Bits<32>>,
    pub mic_errors: Signal<Out, Bits<32>>,
    pub oversize: Signal<Out, Bits<32>>,
    // Invisible to rust-hdl (leading underscore): the model the simulator runs.
    _model: MctpRxModel,
}

/// The counter ports in declaration order (the software model's list).
pub use offload_driver::mctp::RX_COUNTERS as COUNTERS;

impl RxCounters {
    /// The counters in [`COUNTERS`] order.
    pub fn as_array(&self) -> [u32; 12] {
        [
            self.messages,
            self.malformed,
            self.no_context,
            self.bad_sequence,
            self.bad_unit_size,
            self.restarted,
            self.too_long,
            self.contexts_full,
            self.bad_pec,
            self.bad_smbus,
            self.mic_errors,
            self.oversize,
        ]
    }
}

impl<const D: usize, const K: usize> Default for MctpRx<D, K> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MctpRx<D, K>: D must be 8*K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_smbus: Default::default(),
            cfg_mic: Default::default(),
            cfg_strict: Default::default(),
            cfg_max_len: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tvalid: Default::default(),
            s_tlast: Default::default(),
            s_tready: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tvalid: Default::default(),
            m_tlast: Default::default(),
            m_tready: Default::default(),
            m_src_eid: Default::default(),
            m_dst_eid: Default::default(),
            m_tag: Default::default(),
            m_to: Default::default(),
            messages: Default::default(),
            malformed: Default::default(),
            no_context: Default::default(),
            bad_sequence: Default::default(),
            bad_unit_size: Default::default(),
            restarted: Default::default(),
            too_long: Default::default(),
            contexts_full: Default::default(),
            bad_pec: Default::default(),
            bad_smbus: Default::default(),
            mic_errors: Default::default(),
            oversize: Default::default(),
            _model: MctpRxModel::new(K),
        }
    }
}

impl<const D: usize, const K: usize> MctpRx<D, K> {
    fn inputs(&self) -> RxIn {
        let d = self.s_tdata.val();
        RxIn {
            reset: self.reset.val(),
            cfg_smbus: self.cfg_smbus.val(),
            cfg_mic: self.cfg_mic.val(),
            cfg_strict: self.cfg_strict.val(),
            cfg_max_len: crate::bits::bits_to_u64(&self.cfg_max_len.val()) as u32,
            s_tdata: (0..K)
                .map(|i| d.get_bits::<8>(8 * i).index() as u8)
                .collect(),
            s_tkeep: crate::bits::bits_to_u64(&self.s_tkeep.val()),
            s_tvalid: self.s_tvalid.val(),
            s_tlast: self.s_tlast.val(),
            m_tready: self.m_tready.val(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MctpRx<D, K> {
    fn update(&mut self) {
        let i = self.inputs();
        if self.clock.pos_edge() {
            self._model.clock(&i);
        }
        let o = self._model.outputs(&i);
        self.s_tready.next = o.s_tready;
        self.m_tdata.next = crate::bits::bytes_to_bits::<D>(&o.m_tdata);
        self.m_tkeep.next = crate::bits::bytes_to_bits::<K>(&o.m_tkeep.to_le_bytes());
        self.m_tvalid.next = o.m_tvalid;
        self.m_tlast.next = o.m_tlast;
        self.m_src_eid.next = (o.m_src_eid as u64).into();
        self.m_dst_eid.next = (o.m_dst_eid as u64).into();
        self.m_tag.next = (o.m_tag as u64).into();
        self.m_to.next = o.m_to;
        let c = o.counters;
        self.messages.next = (c.messages as u64).into();
        self.malformed.next = (c.malformed as u64).into();
        self.no_context.next = (c.no_context as u64).into();
        self.bad_sequence.next = (c.bad_sequence as u64).into();
        self.bad_unit_size.next = (c.bad_unit_size as u64).into();
        self.restarted.next = (c.restarted as u64).into();
        self.too_long.next = (c.too_long as u64).into();
        self.contexts_full.next = (c.contexts_full as u64).into();
        self.bad_pec.next = (c.bad_pec as u64).into();
        self.bad_smbus.next = (c.bad_smbus as u64).into();
        self.mic_errors.next = (c.mic_errors as u64).into();
        self.oversize.next = (c.oversize as u64).into();
    }

    fn connect(&mut self) {
        self.s_tready.connect();
        self.m_tdata.connect();
        self.m_tkeep.connect();
        self.m_tvalid.connect();
        self.m_tlast.connect();
        self.m_src_eid.connect();
        self.m_dst_eid.connect();
        self.m_tag.connect();
        self.m_to.connect();
        self.messages.connect();
        self.malformed.connect();
        self.no_context.connect();
        self.bad_sequence.connect();
        self.bad_unit_size.connect();
        self.restarted.connect();
        self.too_long.connect();
        self.contexts_full.connect();
        self.bad_pec.connect();
        self.bad_smbus.connect();
        self.mic_errors.connect();
        self.oversize.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(verilog::body(&self._model))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        crate::ports::axis_timing("mctp_rx")
    }
}

#[cfg(test)]
mod tests;
