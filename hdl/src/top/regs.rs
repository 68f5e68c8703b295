//! The register block of [`OffloadTop`](super::OffloadTop): the map of
//! `offload_driver::registers` (one table, also read by the host driver and the docs) behind
//! Corundum's register interface, the configuration outputs that drive the blocks' `cfg_*`
//! inputs, and the counters the blocks do not keep themselves (frames in, MPA drops by
//! reason), kept by watching the input handshakes.
//!
//! A block of its own (not logic in the top) so that rust-hdl's simulator clocks it in the
//! same delta as the MPA and MCTP blocks it configures: every block then samples the others'
//! pre-edge values, as the Verilog does.
//!
//! # Bus timing (Corundum `reg_*` interface)
//! A write is requested by `reg_wr_en` with `reg_wr_addr/data/strb`; the register changes at
//! the edge that raises `reg_wr_ack` for one clock. A read is requested by `reg_rd_en` with
//! `reg_rd_addr`; `reg_rd_data` is valid while `reg_rd_ack` is high (one clock), 0 otherwise.
//! The requester holds `en` until it sees `ack` and drops it then (an `en` still high in the
//! ack cycle is not a new access); a read and a write may run in the same clock.

use offload_driver::registers::{
    self as map, Access, Register, CONTROL_MCTP_RESET, CONTROL_MCTP_RX_RESET, CONTROL_MPA_RESET,
    MAP, MAP_VERSION, MCTP_RX_COUNTERS,
};
use rust_hdl::prelude::*;

/// Read-only registers whose value comes from elsewhere: the Verilog expression and the
/// model's source, by register name. A map entry missing here is a generator bug, caught by
/// [`RegModel::new`] at elaboration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Id,
    Version,
    /// A counter kept in this block.
    Own(Own),
    /// A counter input (a block's own counter).
    Input(CounterIn),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Own {
    MpaUlpdusIn,
    MpaDropZeroLen,
    MpaDropOverMulpdu,
    MctpMessagesIn,
    MctpRxFramesIn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterIn {
    MpaFpdus,
    MpaDropped,
    MctpPackets,
    MctpMessages,
    MctpDropped,
    MctpLenErrors,
    /// The MCTP RX block's counter `i` (`MCTP_RX_COUNTERS` order).
    MctpRx(usize),
}

/// Where a read-only register's value comes from.
pub fn source(name: &str) -> Option<Source> {
    use CounterIn::*;
    use Own::*;
    Some(match name {
        "ID" => Source::Id,
        "VERSION" => Source::Version,
        "MPA_ULPDUS_IN" => Source::Own(MpaUlpdusIn),
        "MPA_DROP_ZERO_LEN" => Source::Own(MpaDropZeroLen),
        "MPA_DROP_OVER_MULPDU" => Source::Own(MpaDropOverMulpdu),
        "MCTP_MESSAGES_IN" => Source::Own(MctpMessagesIn),
        "MPA_FPDUS" => Source::Input(MpaFpdus),
        "MPA_DROPPED" => Source::Input(MpaDropped),
        "MCTP_PACKETS" => Source::Input(MctpPackets),
        "MCTP_MESSAGES" => Source::Input(MctpMessages),
        "MCTP_DROPPED" => Source::Input(MctpDropped),
        "MCTP_LEN_ERRORS" => Source::Input(MctpLenErrors),
        "MCTP_RX_FRAMES_IN" => Source::Own(MctpRxFramesIn),
        n => Source::Input(MctpRx(MCTP_RX_COUNTERS.iter().position(|c| *c == n)?)),
    })
}

impl Own {
    pub const ALL: [Own; 5] = [
        Own::MpaUlpdusIn,
        Own::MpaDropZeroLen,
        Own::MpaDropOverMulpdu,
        Own::MctpMessagesIn,
        Own::MctpRxFramesIn,
    ];
    pub fn verilog(self) -> &'static str {
        match self {
            Own::MpaUlpdusIn => "c_mpa_ulpdus_in",
            Own::MpaDropZeroLen => "c_mpa_drop_zero_len",
            Own::MpaDropOverMulpdu => "c_mpa_drop_over_mulpdu",
            Own::MctpMessagesIn => "c_mctp_messages_in",
            Own::MctpRxFramesIn => "c_mctp_rx_frames_in",
        }
    }
}

impl CounterIn {
    pub fn port(self) -> String {
        match self {
            CounterIn::MctpRx(i) => MCTP_RX_COUNTERS[i].to_ascii_lowercase(),
            c => c.fixed_port().to_string(),
        }
    }

    fn fixed_port(self) -> &'static str {
        match self {
            CounterIn::MctpRx(_) => unreachable!("named from MCTP_RX_COUNTERS"),
            CounterIn::MpaFpdus => "mpa_fpdus",
            CounterIn::MpaDropped => "mpa_dropped",
            CounterIn::MctpPackets => "mctp_packets",
            CounterIn::MctpMessages => "mctp_messages",
            CounterIn::MctpDropped => "mctp_dropped",
            CounterIn::MctpLenErrors => "mctp_len_errors",
        }
    }
}

/// Input ports, sampled in one cycle.
#[derive(Clone, Debug, Default)]
pub struct RegIn {
    pub reset: bool,
    pub wr_addr: u8,
    pub wr_data: u32,
    pub wr_strb: u8,
    pub wr_en: bool,
    pub rd_addr: u8,
    pub rd_en: bool,
    pub mpa_s_tvalid: bool,
    pub mpa_s_tready: bool,
    pub mpa_s_tlast: bool,
    pub mpa_s_len: u16,
    pub mctp_s_tvalid: bool,
    pub mctp_s_tready: bool,
    pub mctp_s_tlast: bool,
    pub mpa_fpdus: u32,
    pub mpa_dropped: u32,
    pub mctp_packets: u32,
    pub mctp_messages: u32,
    pub mctp_dropped: u32,
    pub mctp_len_errors: u32,
    pub mctp_rx_s_tvalid: bool,
    pub mctp_rx_s_tready: bool,
    pub mctp_rx_s_tlast: bool,
    pub mctp_rx: [u32; 12],
}

impl RegIn {
    fn counter(&self, c: CounterIn) -> u32 {
        match c {
            CounterIn::MpaFpdus => self.mpa_fpdus,
            CounterIn::MpaDropped => self.mpa_dropped,
            CounterIn::MctpPackets => self.mctp_packets,
            CounterIn::MctpMessages => self.mctp_messages,
            CounterIn::MctpDropped => self.mctp_dropped,
            CounterIn::MctpLenErrors => self.mctp_len_errors,
            CounterIn::MctpRx(i) => self.mctp_rx[i],
        }
    }
}

/// The configuration outputs, decoded from the registers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RegOut {
    pub wr_ack: bool,
    pub rd_ack: bool,
    pub rd_data: u32,
    pub mpa_reset: bool,
    pub mctp_reset: bool,
    pub mpa_markers: bool,
    pub mpa_crc: bool,
    pub mpa_mulpdu: u16,
    pub mpa_offset: u16,
    pub mctp_src_eid: u8,
    pub mctp_dst_eid: u8,
    pub mctp_tag: u8,
    pub mctp_to: bool,
    pub mctp_seq: u8,
    pub mctp_mtu: u8,
    pub mctp_mic: bool,
    pub mctp_smbus: bool,
    pub mctp_smbus_src: u8,
    pub mctp_smbus_dst: u8,
    pub mctp_rx_reset: bool,
    pub mctp_rx_smbus: bool,
    pub mctp_rx_mic: bool,
    pub mctp_rx_strict: bool,
    pub mctp_rx_max_len: u16,
}

/// The register block, clock by clock; the Verilog in [`super::regs_verilog`] mirrors it.
#[derive(Clone, Debug)]
pub struct RegModel {
    /// Octets per beat of the MPA TX and MCTP TX blocks (reported in `VERSION`).
    pub mpa_width: usize,
    pub mctp_width: usize,
    /// Register file by word index (only RW entries are stored).
    pub rw: [u32; 64],
    pub own: [u32; 5],
    /// The next MPA input beat is a ULPDU's first.
    pub mpa_first: bool,
    pub wr_ack: bool,
    pub rd_ack: bool,
    pub rd_data: u32,
}

/// Byte strobes as a bit mask.
pub fn strobe_mask(strb: u8) -> u32 {
    (0..4)
        .filter(|b| strb >> b & 1 != 0)
        .fold(0, |m, b| m | 0xFF << (8 * b))
}

impl RegModel {
    pub fn new(mpa_width: usize, mctp_width: usize) -> RegModel {
        assert_eq!(
            map::MCTP_RX_MAX_LEN_LIMIT,
            crate::mctp_rx::model::HW_MAX_LEN,
            "the driver's RX limit is the block's"
        );
        for r in MAP {
            assert!(
                matches!(r.access, Access::Rw { .. }) || source(r.name).is_some(),
                "register {} has no source in offload-hdl's register block",
                r.name
            );
        }
        let mut m = RegModel {
            mpa_width,
            mctp_width,
            rw: [0; 64],
            own: [0; 5],
            mpa_first: true,
            wr_ack: false,
            rd_ack: false,
            rd_data: 0,
        };
        m.reset_values();
        m
    }

    fn reset_values(&mut self) {
        self.rw = [0; 64];
        for r in MAP {
            if let Access::Rw { reset, .. } = r.access {
                self.rw[r.offset as usize / 4] = reset;
            }
        }
    }

    /// `VERSION`: map version and the widths.
    pub fn version(&self) -> u32 {
        (MAP_VERSION as u32) << 16 | (self.mctp_width as u32) << 8 | self.mpa_width as u32
    }

    fn reg(&self, offset: u8) -> u32 {
        self.rw[offset as usize / 4]
    }

    /// The value a read of `offset` returns this cycle.
    pub fn read_value(&self, offset: u8, i: &RegIn) -> u32 {
        let Some(r) = map::register(offset) else {
            return 0;
        };
        match r.access {
            Access::Rw { .. } => self.reg(r.offset),
            Access::Ro => match source(r.name).expect("checked in new") {
                Source::Id => map::ID_VALUE,
                Source::Version => self.version(),
                Source::Own(o) => self.own[o as usize],
                Source::Input(c) => i.counter(c),
            },
        }
    }

    pub fn outputs(&self, i: &RegIn) -> RegOut {
        let control = self.reg(map::CONTROL);
        let mpa = self.reg(map::MPA_CONFIG);
        let eids = self.reg(map::MCTP_EIDS);
        let flags = self.reg(map::MCTP_FLAGS);
        let smbus = self.reg(map::MCTP_SMBUS);
        let rx = self.reg(map::MCTP_RX_CONFIG);
        RegOut {
            wr_ack: self.wr_ack,
            rd_ack: self.rd_ack,
            rd_data: self.rd_data,
            mpa_reset: i.reset || control & CONTROL_MPA_RESET != 0,
            mctp_reset: i.reset || control & CONTROL_MCTP_RESET != 0,
            mpa_markers: mpa & map::MPA_CONFIG_MARKERS != 0,
            mpa_crc: mpa & map::MPA_CONFIG_CRC != 0,
            mpa_mulpdu: self.reg(map::MPA_MULPDU) as u16,
            mpa_offset: self.reg(map::MPA_OFFSET) as u16,
            mctp_src_eid: eids as u8,
            mctp_dst_eid: (eids >> 8) as u8,
            mctp_tag: (flags >> map::MCTP_FLAGS_TAG_SHIFT) as u8 & 7,
            mctp_to: flags & map::MCTP_FLAGS_TO != 0,
            mctp_seq: (flags >> map::MCTP_FLAGS_SEQ_SHIFT) as u8 & 3,
            mctp_mtu: self.reg(map::MCTP_MTU) as u8,
            mctp_mic: flags & map::MCTP_FLAGS_MIC != 0,
            mctp_smbus: flags & map::MCTP_FLAGS_SMBUS != 0,
            mctp_smbus_src: smbus as u8 & 0x7F,
            mctp_smbus_dst: (smbus >> 8) as u8 & 0x7F,
            mctp_rx_reset: i.reset || control & CONTROL_MCTP_RX_RESET != 0,
            mctp_rx_smbus: rx & map::MCTP_RX_SMBUS != 0,
            mctp_rx_mic: rx & map::MCTP_RX_MIC != 0,
            mctp_rx_strict: rx & map::MCTP_RX_STRICT != 0,
            mctp_rx_max_len: self.reg(map::MCTP_RX_MAX_LEN) as u16 & 0x1FFF,
        }
    }

    /// The rising clock edge.
    pub fn clock(&mut self, i: &RegIn) {
        let o = self.outputs(i);
        let mut nx = self.clone();
        nx.wr_ack = false;
        nx.rd_ack = false;
        nx.rd_data = 0;
        if i.wr_en && !self.wr_ack {
            nx.wr_ack = true;
            if let Some(Register {
                offset,
                access: Access::Rw { mask, .. },
                ..
            }) = map::register(i.wr_addr)
            {
                let bm = strobe_mask(i.wr_strb);
                let k = *offset as usize / 4;
                nx.rw[k] = (self.rw[k] & !bm | i.wr_data & bm) & mask;
            }
        }
        if i.rd_en && !self.rd_ack {
            nx.rd_ack = true;
            nx.rd_data = self.read_value(i.rd_addr, i);
        }
        if o.mpa_reset {
            nx.mpa_first = true;
            for c in [
                Own::MpaUlpdusIn,
                Own::MpaDropZeroLen,
                Own::MpaDropOverMulpdu,
            ] {
                nx.own[c as usize] = 0;
            }
        } else if i.mpa_s_tvalid && i.mpa_s_tready {
            nx.mpa_first = i.mpa_s_tlast;
            let bump = |c: &mut u32| *c = c.wrapping_add(1);
            if i.mpa_s_tlast {
                bump(&mut nx.own[Own::MpaUlpdusIn as usize]);
            }
            if self.mpa_first && i.mpa_s_len == 0 {
                bump(&mut nx.own[Own::MpaDropZeroLen as usize]);
            }
            if self.mpa_first && i.mpa_s_len > o.mpa_mulpdu {
                bump(&mut nx.own[Own::MpaDropOverMulpdu as usize]);
            }
        }
        if o.mctp_reset {
            nx.own[Own::MctpMessagesIn as usize] = 0;
        } else if i.mctp_s_tvalid && i.mctp_s_tready && i.mctp_s_tlast {
            nx.own[Own::MctpMessagesIn as usize] =
                self.own[Own::MctpMessagesIn as usize].wrapping_add(1);
        }
        if o.mctp_rx_reset {
            nx.own[Own::MctpRxFramesIn as usize] = 0;
        } else if i.mctp_rx_s_tvalid && i.mctp_rx_s_tready && i.mctp_rx_s_tlast {
            nx.own[Own::MctpRxFramesIn as usize] =
                self.own[Own::MctpRxFramesIn as usize].wrapping_add(1);
        }
        if i.reset {
            nx.reset_values();
            nx.wr_ack = false;
            nx.rd_ack = false;
            nx.rd_data = 0;
        }
        *self = nx;
    }
}

/// The register block as a rust-hdl block (Verilog from [`super::regs_verilog`]).
#[derive(LogicBlock)]
pub struct RegBlock {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub reg_wr_addr: Signal<In, Bits<8>>,
    pub reg_wr_data: Signal<In, Bits<32>>,
    pub reg_wr_strb: Signal<In, Bits<4>>,
    pub reg_wr_en: Signal<In, Bit>,
    pub reg_wr_ack: Signal<Out, Bit>,
    pub reg_rd_addr: Signal<In, Bits<8>>,
    pub reg_rd_en: Signal<In, Bit>,
    pub reg_rd_data: Signal<Out, Bits<32>>,
    pub reg_rd_ack: Signal<Out, Bit>,
    pub mpa_s_tvalid: Signal<In, Bit>,
    pub mpa_s_tready: Signal<In, Bit>,
    pub mpa_s_tlast: Signal<In, Bit>,
    pub mpa_s_len: Signal<In, Bits<16>>,
    pub mctp_s_tvalid: Signal<In, Bit>,
    pub mctp_s_tready: Signal<In, Bit>,
    pub mctp_s_tlast: Signal<In, Bit>,
    pub mpa_fpdus: Signal<In, Bits<32>>,
    pub mpa_dropped: Signal<In, Bits<32>>,
    pub mctp_packets: Signal<In, Bits<32>>,
    pub mctp_messages: Signal<In, Bits<32>>,
    pub mctp_dropped: Signal<In, Bits<32>>,
    pub mctp_len_errors: Signal<In, Bits<32>>,
    pub mctp_rx_s_tvalid: Signal<In, Bit>,
    pub mctp_rx_s_tready: Signal<In, Bit>,
    pub mctp_rx_s_tlast: Signal<In, Bit>,
    pub mctp_rx_messages: Signal<In, Bits<32>>,
    pub mctp_rx_malformed: Signal<In, Bits<32>>,
    pub mctp_rx_no_context: Signal<In, Bits<32>>,
    pub mctp_rx_bad_sequence: Signal<In, Bits<32>>,
    pub mctp_rx_bad_unit_size: Signal<In, Bits<32>>,
    pub mctp_rx_restarted: Signal<In, Bits<32>>,
    pub mctp_rx_too_long: Signal<In, Bits<32>>,
    pub mctp_rx_contexts_full: Signal<In, Bits<32>>,
    pub mctp_rx_bad_pec: Signal<In, Bits<32>>,
    pub mctp_rx_bad_smbus: Signal<In, Bits<32>>,
    pub mctp_rx_mic_errors: Signal<In, Bits<32>>,
    pub mctp_rx_oversize: Signal<In, Bits<32>>,
    pub mpa_reset: Signal<Out, Bit>,
    pub mctp_reset: Signal<Out, Bit>,
    pub mpa_markers: Signal<Out, Bit>,
    pub mpa_crc: Signal<Out, Bit>,
    pub mpa_mulpdu: Signal<Out, Bits<16>>,
    pub mpa_offset: Signal<Out, Bits<16>>,
    pub mctp_src_eid: Signal<Out, Bits<8>>,
    pub mctp_dst_eid: Signal<Out, Bits<8>>,
    pub mctp_tag: Signal<Out, Bits<3>>,
    pub mctp_to: Signal<Out, Bit>,
    pub mctp_seq: Signal<Out, Bits<2>>,
    pub mctp_mtu: Signal<Out, Bits<8>>,
    pub mctp_mic: Signal<Out, Bit>,
    pub mctp_smbus: Signal<Out, Bit>,
    pub mctp_smbus_src: Signal<Out, Bits<7>>,
    pub mctp_smbus_dst: Signal<Out, Bits<7>>,
    pub mctp_rx_reset: Signal<Out, Bit>,
    pub mctp_rx_smbus: Signal<Out, Bit>,
    pub mctp_rx_mic: Signal<Out, Bit>,
    pub mctp_rx_strict: Signal<Out, Bit>,
    pub mctp_rx_max_len: Signal<Out, Bits<13>>,
    // Invisible to rust-hdl (leading underscore): the model the simulator runs.
    _model: RegModel,
}

impl RegBlock {
    pub fn new(mpa_width: usize, mctp_width: usize) -> RegBlock {
        RegBlock {
            clock: Default::default(),
            reset: Default::default(),
            reg_wr_addr: Default::default(),
            reg_wr_data: Default::default(),
            reg_wr_strb: Default::default(),
            reg_wr_en: Default::default(),
            reg_wr_ack: Default::default(),
            reg_rd_addr: Default::default(),
            reg_rd_en: Default::default(),
            reg_rd_data: Default::default(),
            reg_rd_ack: Default::default(),
            mpa_s_tvalid: Default::default(),
            mpa_s_tready: Default::default(),
            mpa_s_tlast: Default::default(),
            mpa_s_len: Default::default(),
            mctp_s_tvalid: Default::default(),
            mctp_s_tready: Default::default(),
            mctp_s_tlast: Default::default(),
            mpa_fpdus: Default::default(),
            mpa_dropped: Default::default(),
            mctp_packets: Default::default(),
            mctp_messages: Default::default(),
            mctp_dropped: Default::default(),
            mctp_len_errors: Default::default(),
            mctp_rx_s_tvalid: Default::default(),
            mctp_rx_s_tready: Default::default(),
            mctp_rx_s_tlast: Default::default(),
            mctp_rx_messages: Default::default(),
            mctp_rx_malformed: Default::default(),
            mctp_rx_no_context: Default::default(),
            mctp_rx_bad_sequence: Default::default(),
            mctp_rx_bad_unit_size: Default::default(),
            mctp_rx_restarted: Default::default(),
            mctp_rx_too_long: Default::default(),
            mctp_rx_contexts_full: Default::default(),
            mctp_rx_bad_pec: Default::default(),
            mctp_rx_bad_smbus: Default::default(),
            mctp_rx_mic_errors: Default::default(),
            mctp_rx_oversize: Default::default(),
            mpa_reset: Default::default(),
            mctp_reset: Default::default(),
            mpa_markers: Default::default(),
            mpa_crc: Default::default(),
            mpa_mulpdu: Default::default(),
            mpa_offset: Default::default(),
            mctp_src_eid: Default::default(),
            mctp_dst_eid: Default::default(),
            mctp_tag: Default::default(),
            mctp_to: Default::default(),
            mctp_seq: Default::default(),
            mctp_mtu: Default::default(),
            mctp_mic: Default::default(),
            mctp_smbus: Default::default(),
            mctp_smbus_src: Default::default(),
            mctp_smbus_dst: Default::default(),
            mctp_rx_reset: Default::default(),
            mctp_rx_smbus: Default::default(),
            mctp_rx_mic: Default::default(),
            mctp_rx_strict: Default::default(),
            mctp_rx_max_len: Default::default(),
            _model: RegModel::new(mpa_width, mctp_width),
        }
    }

    fn inputs(&self) -> RegIn {
        use crate::bits::bits_to_u64 as v;
        RegIn {
            reset: self.reset.val(),
            wr_addr: v(&self.reg_wr_addr.val()) as u8,
            wr_data: v(&self.reg_wr_data.val()) as u32,
            wr_strb: v(&self.reg_wr_strb.val()) as u8,
            wr_en: self.reg_wr_en.val(),
            rd_addr: v(&self.reg_rd_addr.val()) as u8,
            rd_en: self.reg_rd_en.val(),
            mpa_s_tvalid: self.mpa_s_tvalid.val(),
            mpa_s_tready: self.mpa_s_tready.val(),
            mpa_s_tlast: self.mpa_s_tlast.val(),
            mpa_s_len: v(&self.mpa_s_len.val()) as u16,
            mctp_s_tvalid: self.mctp_s_tvalid.val(),
            mctp_s_tready: self.mctp_s_tready.val(),
            mctp_s_tlast: self.mctp_s_tlast.val(),
            mpa_fpdus: v(&self.mpa_fpdus.val()) as u32,
            mpa_dropped: v(&self.mpa_dropped.val()) as u32,
            mctp_packets: v(&self.mctp_packets.val()) as u32,
            mctp_messages: v(&self.mctp_messages.val()) as u32,
            mctp_dropped: v(&self.mctp_dropped.val()) as u32,
            mctp_len_errors: v(&self.mctp_len_errors.val()) as u32,
            mctp_rx_s_tvalid: self.mctp_rx_s_tvalid.val(),
            mctp_rx_s_tready: self.mctp_rx_s_tready.val(),
            mctp_rx_s_tlast: self.mctp_rx_s_tlast.val(),
            mctp_rx: [
                v(&self.mctp_rx_messages.val()) as u32,
                v(&self.mctp_rx_malformed.val()) as u32,
                v(&self.mctp_rx_no_context.val()) as u32,
                v(&self.mctp_rx_bad_sequence.val()) as u32,
                v(&self.mctp_rx_bad_unit_size.val()) as u32,
                v(&self.mctp_rx_restarted.val()) as u32,
                v(&self.mctp_rx_too_long.val()) as u32,
                v(&self.mctp_rx_contexts_full.val()) as u32,
                v(&self.mctp_rx_bad_pec.val()) as u32,
                v(&self.mctp_rx_bad_smbus.val()) as u32,
                v(&self.mctp_rx_mic_errors.val()) as u32,
                v(&self.mctp_rx_oversize.val()) as u32,
            ],
        }
    }
}

impl Logic for RegBlock {
    fn update(&mut self) {
        let i = self.inputs();
        if self.clock.pos_edge() {
            self._model.clock(&i);
        }
        let o = self._model.outputs(&i);
        self.reg_wr_ack.next = o.wr_ack;
        self.reg_rd_ack.next = o.rd_ack;
        self.reg_rd_data.next = (o.rd_data as u64).into();
        self.mpa_reset.next = o.mpa_reset;
        self.mctp_reset.next = o.mctp_reset;
        self.mpa_markers.next = o.mpa_markers;
        self.mpa_crc.next = o.mpa_crc;
        self.mpa_mulpdu.next = (o.mpa_mulpdu as u64).into();
        self.mpa_offset.next = (o.mpa_offset as u64).into();
        self.mctp_src_eid.next = (o.mctp_src_eid as u64).into();
        self.mctp_dst_eid.next = (o.mctp_dst_eid as u64).into();
        self.mctp_tag.next = (o.mctp_tag as u64).into();
        self.mctp_to.next = o.mctp_to;
        self.mctp_seq.next = (o.mctp_seq as u64).into();
        self.mctp_mtu.next = (o.mctp_mtu as u64).into();
        self.mctp_mic.next = o.mctp_mic;
        self.mctp_smbus.next = o.mctp_smbus;
        self.mctp_smbus_src.next = (o.mctp_smbus_src as u64).into();
        self.mctp_smbus_dst.next = (o.mctp_smbus_dst as u64).into();
        self.mctp_rx_reset.next = o.mctp_rx_reset;
        self.mctp_rx_smbus.next = o.mctp_rx_smbus;
        self.mctp_rx_mic.next = o.mctp_rx_mic;
        self.mctp_rx_strict.next = o.mctp_rx_strict;
        self.mctp_rx_max_len.next = (o.mctp_rx_max_len as u64).into();
    }

    fn connect(&mut self) {
        self.reg_wr_ack.connect();
        self.reg_rd_ack.connect();
        self.reg_rd_data.connect();
        self.mpa_reset.connect();
        self.mctp_reset.connect();
        self.mpa_markers.connect();
        self.mpa_crc.connect();
        self.mpa_mulpdu.connect();
        self.mpa_offset.connect();
        self.mctp_src_eid.connect();
        self.mctp_dst_eid.connect();
        self.mctp_tag.connect();
        self.mctp_to.connect();
        self.mctp_seq.connect();
        self.mctp_mtu.connect();
        self.mctp_mic.connect();
        self.mctp_smbus.connect();
        self.mctp_smbus_src.connect();
        self.mctp_smbus_dst.connect();
        self.mctp_rx_reset.connect();
        self.mctp_rx_smbus.connect();
        self.mctp_rx_mic.connect();
        self.mctp_rx_strict.connect();
        self.mctp_rx_max_len.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(super::regs_verilog::body(&self._model))
    }
}
