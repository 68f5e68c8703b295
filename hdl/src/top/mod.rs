//! `OffloadTop`: the generic top a NIC shell (Corundum's application block, an OpenNIC user
//! box) instantiates — the MPA TX framer and the MCTP TX packetizer on AXI4-Stream ports, and
//! a register block on Corundum's register interface, one clock, one synchronous reset.
//!
//! Ports (`MK`/`CK` octets per beat of the MPA and MCTP paths); docs/TOP.md has the table:
//! - `clock`, `reset` (synchronous, active high: registers to their reset values, blocks and
//!   counters cleared);
//! - `reg_wr_addr[7:0]`, `reg_wr_data[31:0]`, `reg_wr_strb[3:0]`, `reg_wr_en` → `reg_wr_ack`;
//!   `reg_rd_addr[7:0]`, `reg_rd_en` → `reg_rd_data[31:0]`, `reg_rd_ack` (see [`regs`]; the map
//!   is `offload_driver::registers::MAP`);
//! - `mpa_s_*` (ULPDUs, `mpa_s_len[15:0]` with the first beat) → `mpa_m_*` (FPDUs, one frame
//!   each);
//! - `mctp_s_*` (messages, `mctp_s_len[16:0]` with the first beat; header fields come from
//!   the registers, latched per message) → `mctp_m_*` (one frame per packet).
//!
//! The top itself is wiring, written in rust-hdl's HDL subset (`#[hdl_gen]`); the blocks
//! bring their own Verilog. The MCTP RX depacketizer joins as a fourth child with an
//! `mctp_rx_s_*`/`mctp_rx_m_*` pair and its counters in the reserved register window
//! `0x80..=0xBF` (`offload_driver::registers::MCTP_RX_BASE`).

pub mod regs;
pub mod regs_verilog;

use crate::mctp_rx::MctpRx;
use crate::mctp_tx::MctpTx;
use crate::mpa_tx::MpaTx;
use regs::RegBlock;
use rust_hdl::prelude::*;

/// The top for MPA TX at `MK` octets per beat (`MD = 8·MK`) and MCTP TX at `CK` (`CD = 8·CK`).
#[derive(LogicBlock)]
/// `MH = MD + 32` and `MI = 2·MD + 32` are the MPA framer's internal widths ([`MpaTx`]).
pub struct OffloadTop<const MD: usize, const MK: usize, const MH: usize, const MI: usize, const CD: usize, const CK: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
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
    pub mpa_s_tdata: Signal<In, Bits<MD>>,
    pub mpa_s_tkeep: Signal<In, Bits<MK>>,
    pub mpa_s_tvalid: Signal<In, Bit>,
    pub mpa_s_tlast: Signal<In, Bit>,
    pub mpa_s_len: Signal<In, Bits<16>>,
    pub mpa_s_tready: Signal<Out, Bit>,
    pub mpa_m_tdata: Signal<Out, Bits<MD>>,
    pub mpa_m_tkeep: Signal<Out, Bits<MK>>,
    pub mpa_m_tvalid: Signal<Out, Bit>,
    pub mpa_m_tlast: Signal<Out, Bit>,
    pub mpa_m_tready: Signal<In, Bit>,
    pub mctp_s_tdata: Signal<In, Bits<CD>>,
    pub mctp_s_tkeep: Signal<In, Bits<CK>>,
    pub mctp_s_tvalid: Signal<In, Bit>,
    pub mctp_s_tlast: Signal<In, Bit>,
    pub mctp_s_len: Signal<In, Bits<17>>,
    pub mctp_s_tready: Signal<Out, Bit>,
    pub mctp_m_tdata: Signal<Out, Bits<CD>>,
    pub mctp_m_tkeep: Signal<Out, Bits<CK>>,
    pub mctp_m_tvalid: Signal<Out, Bit>,
    pub mctp_m_tlast: Signal<Out, Bit>,
    pub mctp_m_tready: Signal<In, Bit>,
    pub mctp_rx_s_tdata: Signal<In, Bits<CD>>,
    pub mctp_rx_s_tkeep: Signal<In, Bits<CK>>,
    pub mctp_rx_s_tvalid: Signal<In, Bit>,
    pub mctp_rx_s_tlast: Signal<In, Bit>,
    pub mctp_rx_s_tready: Signal<Out, Bit>,
    pub mctp_rx_m_tdata: Signal<Out, Bits<CD>>,
    pub mctp_rx_m_tkeep: Signal<Out, Bits<CK>>,
    pub mctp_rx_m_tvalid: Signal<Out, Bit>,
    pub mctp_rx_m_tlast: Signal<Out, Bit>,
    pub mctp_rx_m_tready: Signal<In, Bit>,
    pub mctp_rx_m_src_eid: Signal<Out, Bits<8>>,
    pub mctp_rx_m_dst_eid: Signal<Out, Bits<8>>,
    pub mctp_rx_m_tag: Signal<Out, Bits<3>>,
    pub mctp_rx_m_to: Signal<Out, Bit>,
    pub regs: RegBlock,
    pub mpa: MpaTx<MD, MK, MH, MI>,
    pub mctp: MctpTx<CD, CK>,
    pub mctp_rx: MctpRx<CD, CK>,
}

impl<const MD: usize, const MK: usize, const MH: usize, const MI: usize, const CD: usize, const CK: usize> Default
    for OffloadTop<MD, MK, MH, MI, CD, CK>
{
    fn default() -> Self {
        Self {
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
            mpa_s_tdata: Default::default(),
            mpa_s_tkeep: Default::default(),
            mpa_s_tvalid: Default::default(),
            mpa_s_tlast: Default::default(),
            mpa_s_len: Default::default(),
            mpa_s_tready: Default::default(),
            mpa_m_tdata: Default::default(),
            mpa_m_tkeep: Default::default(),
            mpa_m_tvalid: Default::default(),
            mpa_m_tlast: Default::default(),
            mpa_m_tready: Default::default(),
            mctp_s_tdata: Default::default(),
            mctp_s_tkeep: Default::default(),
            mctp_s_tvalid: Default::default(),
            mctp_s_tlast: Default::default(),
            mctp_s_len: Default::default(),
            mctp_s_tready: Default::default(),
            mctp_m_tdata: Default::default(),
            mctp_m_tkeep: Default::default(),
            mctp_m_tvalid: Default::default(),
            mctp_m_tlast: Default::default(),
            mctp_m_tready: Default::default(),
            mctp_rx_s_tdata: Default::default(),
            mctp_rx_s_tkeep: Default::default(),
            mctp_rx_s_tvalid: Default::default(),
            mctp_rx_s_tlast: Default::default(),
            mctp_rx_s_tready: Default::default(),
            mctp_rx_m_tdata: Default::default(),
            mctp_rx_m_tkeep: Default::default(),
            mctp_rx_m_tvalid: Default::default(),
            mctp_rx_m_tlast: Default::default(),
            mctp_rx_m_tready: Default::default(),
            mctp_rx_m_src_eid: Default::default(),
            mctp_rx_m_dst_eid: Default::default(),
            mctp_rx_m_tag: Default::default(),
            mctp_rx_m_to: Default::default(),
            regs: RegBlock::new(MK, CK),
            mpa: Default::default(),
            mctp: Default::default(),
            mctp_rx: Default::default(),
        }
    }
}

impl<const MD: usize, const MK: usize, const MH: usize, const MI: usize, const CD: usize, const CK: usize> Logic
    for OffloadTop<MD, MK, MH, MI, CD, CK>
{
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks and resets.
        self.regs.clock.next = self.clock.val();
        self.mpa.clock.next = self.clock.val();
        self.mctp.clock.next = self.clock.val();
        self.regs.reset.next = self.reset.val();
        self.mpa.reset.next = self.regs.mpa_reset.val();
        self.mctp.reset.next = self.regs.mctp_reset.val();
        // Register bus.
        self.regs.reg_wr_addr.next = self.reg_wr_addr.val();
        self.regs.reg_wr_data.next = self.reg_wr_data.val();
        self.regs.reg_wr_strb.next = self.reg_wr_strb.val();
        self.regs.reg_wr_en.next = self.reg_wr_en.val();
        self.reg_wr_ack.next = self.regs.reg_wr_ack.val();
        self.regs.reg_rd_addr.next = self.reg_rd_addr.val();
        self.regs.reg_rd_en.next = self.reg_rd_en.val();
        self.reg_rd_data.next = self.regs.reg_rd_data.val();
        self.reg_rd_ack.next = self.regs.reg_rd_ack.val();
        // MPA TX: configuration, streams, and what the register block watches.
        self.mpa.cfg_markers.next = self.regs.mpa_markers.val();
        self.mpa.cfg_crc.next = self.regs.mpa_crc.val();
        self.mpa.cfg_mulpdu.next = self.regs.mpa_mulpdu.val();
        self.mpa.cfg_offset.next = self.regs.mpa_offset.val();
        self.mpa.s.tdata.next = self.mpa_s_tdata.val();
        self.mpa.s.tkeep.next = self.mpa_s_tkeep.val();
        self.mpa.s.tvalid.next = self.mpa_s_tvalid.val();
        self.mpa.s.tlast.next = self.mpa_s_tlast.val();
        self.mpa.s_len.next = self.mpa_s_len.val();
        self.mpa_s_tready.next = self.mpa.s.tready.val();
        self.mpa_m_tdata.next = self.mpa.m.tdata.val();
        self.mpa_m_tkeep.next = self.mpa.m.tkeep.val();
        self.mpa_m_tvalid.next = self.mpa.m.tvalid.val();
        self.mpa_m_tlast.next = self.mpa.m.tlast.val();
        self.mpa.m.tready.next = self.mpa_m_tready.val();
        self.regs.mpa_s_tvalid.next = self.mpa_s_tvalid.val();
        self.regs.mpa_s_tready.next = self.mpa.s.tready.val();
        self.regs.mpa_s_tlast.next = self.mpa_s_tlast.val();
        self.regs.mpa_s_len.next = self.mpa_s_len.val();
        self.regs.mpa_fpdus.next = self.mpa.fpdus.val();
        self.regs.mpa_dropped.next = self.mpa.dropped.val();
        // MCTP TX likewise.
        self.mctp.cfg_src_eid.next = self.regs.mctp_src_eid.val();
        self.mctp.cfg_dst_eid.next = self.regs.mctp_dst_eid.val();
        self.mctp.cfg_tag.next = self.regs.mctp_tag.val();
        self.mctp.cfg_to.next = self.regs.mctp_to.val();
        self.mctp.cfg_seq.next = self.regs.mctp_seq.val();
        self.mctp.cfg_mtu.next = self.regs.mctp_mtu.val();
        self.mctp.cfg_mic.next = self.regs.mctp_mic.val();
        self.mctp.cfg_smbus.next = self.regs.mctp_smbus.val();
        self.mctp.cfg_smbus_src.next = self.regs.mctp_smbus_src.val();
        self.mctp.cfg_smbus_dst.next = self.regs.mctp_smbus_dst.val();
        self.mctp.s_tdata.next = self.mctp_s_tdata.val();
        self.mctp.s_tkeep.next = self.mctp_s_tkeep.val();
        self.mctp.s_tvalid.next = self.mctp_s_tvalid.val();
        self.mctp.s_tlast.next = self.mctp_s_tlast.val();
        self.mctp.s_len.next = self.mctp_s_len.val();
        self.mctp_s_tready.next = self.mctp.s_tready.val();
        self.mctp_m_tdata.next = self.mctp.m_tdata.val();
        self.mctp_m_tkeep.next = self.mctp.m_tkeep.val();
        self.mctp_m_tvalid.next = self.mctp.m_tvalid.val();
        self.mctp_m_tlast.next = self.mctp.m_tlast.val();
        self.mctp.m_tready.next = self.mctp_m_tready.val();
        self.regs.mctp_s_tvalid.next = self.mctp_s_tvalid.val();
        self.regs.mctp_s_tready.next = self.mctp.s_tready.val();
        self.regs.mctp_s_tlast.next = self.mctp_s_tlast.val();
        self.regs.mctp_packets.next = self.mctp.packets.val();
        self.regs.mctp_messages.next = self.mctp.messages.val();
        self.regs.mctp_dropped.next = self.mctp.dropped.val();
        self.regs.mctp_len_errors.next = self.mctp.len_errors.val();
        // MCTP RX: configuration, streams with the message's header fields, counters.
        self.mctp_rx.clock.next = self.clock.val();
        self.mctp_rx.reset.next = self.regs.mctp_rx_reset.val();
        self.mctp_rx.cfg_smbus.next = self.regs.mctp_rx_smbus.val();
        self.mctp_rx.cfg_mic.next = self.regs.mctp_rx_mic.val();
        self.mctp_rx.cfg_strict.next = self.regs.mctp_rx_strict.val();
        self.mctp_rx.cfg_max_len.next = self.regs.mctp_rx_max_len.val();
        self.mctp_rx.s_tdata.next = self.mctp_rx_s_tdata.val();
        self.mctp_rx.s_tkeep.next = self.mctp_rx_s_tkeep.val();
        self.mctp_rx.s_tvalid.next = self.mctp_rx_s_tvalid.val();
        self.mctp_rx.s_tlast.next = self.mctp_rx_s_tlast.val();
        self.mctp_rx_s_tready.next = self.mctp_rx.s_tready.val();
        self.mctp_rx_m_tdata.next = self.mctp_rx.m_tdata.val();
        self.mctp_rx_m_tkeep.next = self.mctp_rx.m_tkeep.val();
        self.mctp_rx_m_tvalid.next = self.mctp_rx.m_tvalid.val();
        self.mctp_rx_m_tlast.next = self.mctp_rx.m_tlast.val();
        self.mctp_rx.m_tready.next = self.mctp_rx_m_tready.val();
        self.mctp_rx_m_src_eid.next = self.mctp_rx.m_src_eid.val();
        self.mctp_rx_m_dst_eid.next = self.mctp_rx.m_dst_eid.val();
        self.mctp_rx_m_tag.next = self.mctp_rx.m_tag.val();
        self.mctp_rx_m_to.next = self.mctp_rx.m_to.val();
        self.regs.mctp_rx_s_tvalid.next = self.mctp_rx_s_tvalid.val();
        self.regs.mctp_rx_s_tready.next = self.mctp_rx.s_tready.val();
        self.regs.mctp_rx_s_tlast.next = self.mctp_rx_s_tlast.val();
        self.regs.mctp_rx_messages.next = self.mctp_rx.messages.val();
        self.regs.mctp_rx_malformed.next = self.mctp_rx.malformed.val();
        self.regs.mctp_rx_no_context.next = self.mctp_rx.no_context.val();
        self.regs.mctp_rx_bad_sequence.next = self.mctp_rx.bad_sequence.val();
        self.regs.mctp_rx_bad_unit_size.next = self.mctp_rx.bad_unit_size.val();
        self.regs.mctp_rx_restarted.next = self.mctp_rx.restarted.val();
        self.regs.mctp_rx_too_long.next = self.mctp_rx.too_long.val();
        self.regs.mctp_rx_contexts_full.next = self.mctp_rx.contexts_full.val();
        self.regs.mctp_rx_bad_pec.next = self.mctp_rx.bad_pec.val();
        self.regs.mctp_rx_bad_smbus.next = self.mctp_rx.bad_smbus.val();
        self.regs.mctp_rx_mic_errors.next = self.mctp_rx.mic_errors.val();
        self.regs.mctp_rx_oversize.next = self.mctp_rx.oversize.val();
    }
}

#[cfg(test)]
mod tests;
