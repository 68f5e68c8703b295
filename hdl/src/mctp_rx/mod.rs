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
//! - Counters (32 bits, wrapping; the [`MctpRxCounters`] bundle, `counters_messages` … at the
//!   boundary): `messages`, `malformed`, `no_context`, `bad_sequence`,
//!   `bad_unit_size`, `restarted`, `too_long`, `contexts_full` (the software's
//!   `ReassemblyStats`), `bad_pec`, `bad_smbus` (its SMBus binding errors), `mic_errors` (its
//!   integrity errors) and `oversize` (raw frames over 260 octets, a hardware limit).
//!
//! See [`model`] for the datapath; the Verilog in [`verilog`] mirrors it, and rust-hdl's
//! simulator runs the model through this block's `update`.

pub mod model;
pub mod verilog;

pub use model::{MctpRxModel, RxCounters, RxIn, RxOut};

use crate::axis::{AxisSink, AxisSource};
use rust_hdl::prelude::*;

/// The depacketizer's static configuration (`cfg_*` at the boundary; change under reset),
/// driven by the register block ([`MctpRxConfigSource`]).
#[derive(LogicInterface, Default)]
#[join = "MctpRxConfigSource"]
pub struct MctpRxConfig {
    pub smbus: Signal<In, Bit>,
    pub mic: Signal<In, Bit>,
    pub strict: Signal<In, Bit>,
    pub max_len: Signal<In, Bits<13>>,
}

/// The driving side of [`MctpRxConfig`].
#[derive(LogicInterface, Default)]
#[join = "MctpRxConfig"]
pub struct MctpRxConfigSource {
    pub smbus: Signal<Out, Bit>,
    pub mic: Signal<Out, Bit>,
    pub strict: Signal<Out, Bit>,
    pub max_len: Signal<Out, Bits<13>>,
}

/// The counter bundle (`counters_messages` … at the boundary), its reading side, and the
/// model's counters in list order: all from the one list, `offload_driver::mctp_rx_counter_list`.
macro_rules! counter_bundles {
    ($($n:ident),*) => {
        /// The depacketizer's counters, 32-bit and wrapping.
        #[derive(LogicInterface, Default)]
        #[join = "MctpRxCountersSink"]
        pub struct MctpRxCounters {
            $(pub $n: Signal<Out, Bits<32>>,)*
        }

        /// The reading side of [`MctpRxCounters`].
        #[derive(LogicInterface, Default)]
        #[join = "MctpRxCounters"]
        pub struct MctpRxCountersSink {
            $(pub $n: Signal<In, Bits<32>>,)*
        }

        impl MctpRxCounters {
            fn set(&mut self, c: &RxCounters) {
                $(self.$n.next = (c.$n as u64).into();)*
            }
            fn connect_outputs(&mut self) {
                $(self.$n.connect();)*
            }
        }

        impl RxCounters {
            /// The counters in [`COUNTERS`] order.
            pub fn as_array(&self) -> [u32; 12] {
                [$(self.$n),*]
            }

            /// The counters from an array in [`COUNTERS`] order (wrapping to 32 bits).
            pub fn from_array(a: [u64; 12]) -> RxCounters {
                let [$($n),*] = a.map(|v| v as u32);
                RxCounters { $($n),* }
            }
        }
    };
}
offload_driver::mctp_rx_counter_list!(counter_bundles);

/// The depacketizer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {1, 2, 4, 8}).
#[derive(LogicBlock)]
pub struct MctpRx<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpRxConfig,
    pub s: AxisSink<D, K>,
    pub m: AxisSource<D, K>,
    pub m_src_eid: Signal<Out, Bits<8>>,
    pub m_dst_eid: Signal<Out, Bits<8>>,
    pub m_tag: Signal<Out, Bits<3>>,
    pub m_to: Signal<Out, Bit>,
    pub counters: MctpRxCounters,
    // Invisible to rust-hdl (leading underscore): the model the simulator runs.
    _model: MctpRxModel,
}

/// The counter ports in declaration order (the software model's list).
pub use offload_driver::mctp::RX_COUNTERS as COUNTERS;


impl<const D: usize, const K: usize> Default for MctpRx<D, K> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MctpRx<D, K>: D must be 8*K");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_src_eid: Default::default(),
            m_dst_eid: Default::default(),
            m_tag: Default::default(),
            m_to: Default::default(),
            counters: Default::default(),
            _model: MctpRxModel::new(K),
        }
    }
}

impl<const D: usize, const K: usize> MctpRx<D, K> {
    fn inputs(&self) -> RxIn {
        let d = self.s.tdata.val();
        RxIn {
            reset: self.reset.val(),
            cfg_smbus: self.cfg.smbus.val(),
            cfg_mic: self.cfg.mic.val(),
            cfg_strict: self.cfg.strict.val(),
            cfg_max_len: crate::bits::bits_to_u64(&self.cfg.max_len.val()) as u32,
            s_tdata: (0..K)
                .map(|i| d.get_bits::<8>(8 * i).index() as u8)
                .collect(),
            s_tkeep: crate::bits::bits_to_u64(&self.s.tkeep.val()),
            s_tvalid: self.s.tvalid.val(),
            s_tlast: self.s.tlast.val(),
            m_tready: self.m.tready.val(),
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
        self.s.tready.next = o.s_tready;
        self.m.tdata.next = crate::bits::bytes_to_bits::<D>(&o.m_tdata);
        self.m.tkeep.next = crate::bits::bytes_to_bits::<K>(&o.m_tkeep.to_le_bytes());
        self.m.tvalid.next = o.m_tvalid;
        self.m.tlast.next = o.m_tlast;
        self.m_src_eid.next = (o.m_src_eid as u64).into();
        self.m_dst_eid.next = (o.m_dst_eid as u64).into();
        self.m_tag.next = (o.m_tag as u64).into();
        self.m_to.next = o.m_to;
        self.counters.set(&o.counters);
    }

    fn connect(&mut self) {
        self.s.tready.connect();
        self.m.tdata.connect();
        self.m.tkeep.connect();
        self.m.tvalid.connect();
        self.m.tlast.connect();
        self.m_src_eid.connect();
        self.m_dst_eid.connect();
        self.m_tag.connect();
        self.m_to.connect();
        self.counters.connect_outputs();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(crate::ports::body_for_bundles(&verilog::body(&self._model), self))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        crate::ports::axis_timing("mctp_rx")
    }
}

#[cfg(test)]
mod tests;
