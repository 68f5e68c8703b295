//! `OffloadTop`: the generic top a NIC shell (Corundum's application block, an OpenNIC user
//! box) instantiates — the MPA TX framer, the MPA RX receiver, the MCTP TX packetizer and the
//! MCTP RX depacketizer on AXI4-Stream ports, and a register block on Corundum's register
//! interface, one clock, one synchronous reset.
//!
//! Ports (`MK`/`CK`/`RK` octets per beat of the MPA TX, MCTP and MPA RX paths); docs/TOP.md
//! has the table:
//! - `clock`, `reset` (synchronous, active high: registers to their reset values, blocks and
//!   counters cleared);
//! - `reg_wr_addr[7:0]`, `reg_wr_data[31:0]`, `reg_wr_strb[3:0]`, `reg_wr_en` → `reg_wr_wait`,
//!   `reg_wr_ack`; `reg_rd_addr[7:0]`, `reg_rd_en` → `reg_rd_data[31:0]`, `reg_rd_wait`,
//!   `reg_rd_ack` (Corundum's register interface, [`reg_bus`]; the map is
//!   `offload_driver::regmap::MAP`, decoded by [`regs`]);
//! - `mpa_s_*` (ULPDUs, `mpa_s_len[15:0]` with the first beat) → `mpa_m_*` (FPDUs, one frame
//!   each);
//! - `mctp_s_*` (messages, `mctp_s_len[16:0]` with the first beat; header fields come from
//!   the registers, latched per message) → `mctp_m_*` (one frame per packet).
//!
//! - `mctp_rx_s_*` (one frame per packet) → `mctp_rx_m_*` (reassembled messages, with
//!   `mctp_rx_m_src_eid`/`dst_eid`/`tag`/`to`), its counters in the register window
//!   `0x80..=0xBF` (`offload_driver::regmap::MCTP_RX_BASE`).
//! - `mpa_rx_s_*` (the TCP payload of one connection, any segmentation) → `mpa_rx_m_*` (one
//!   frame per ULPDU, `mpa_rx_m_len` with every beat, `mpa_rx_m_tuser` on the last beat: the
//!   ULPDU is bad), its configuration, live status and counters at `0xC0..=0xEF`
//!   (`offload_driver::regmap::MPA_RX_BASE`). Its width is a generic of its own: the
//!   receiver's aligner needs at least 8 octets per beat ([`MpaRx`]), so the shipped tops run
//!   it at 8 whatever the other paths' width.
//!
//! The top is wiring of bundles in `#[hdl_gen]`: each port pair is an AXI-Stream bundle
//! passed through with `link`, each block's configuration and counters a bundle `join`ed to
//! the register block. The shipped module flattens the bundles to the names above
//! ([`crate::registry::flatten_ports`]).

pub mod reg_bus;
pub mod regs;

use crate::axis::{AxisSink, AxisSource};
use crate::mctp_rx::{MctpRx, MctpRxConfig, MctpRxCounters};
use crate::mctp_tx::{MctpTx, MctpTxConfig, MctpTxCounters};
use crate::mpa_rx::{MpaRx, MpaRxConfig, MpaRxCounters, MpaRxStatus};
use crate::mpa_tx::{MpaTx, MpaTxConfig, MpaTxCounters};
use reg_bus::RegBus;
use regs::RegBlock;
use rust_hdl::prelude::*;

/// The top for MPA TX at `MK` octets per beat (`MD = 8·MK`), the MCTP blocks at `CK`
/// (`CD = 8·CK`; `CRA` the MCTP RX ring's address bits, [`crate::mctp_rx::ring_address_bits`]) and MPA RX at `RK` (`RD = 8·RK`, `RD2 = 2·RD`; `RK` ≥ 8); `MH = MD + 32` and
/// `MI = 2·MD + 32` are the MPA framer's internal widths ([`MpaTx`]).
#[derive(LogicBlock)]
pub struct OffloadTop<
    const MD: usize,
    const MK: usize,
    const MH: usize,
    const MI: usize,
    const CD: usize,
    const CK: usize,
    const CRA: usize,
    const RD: usize,
    const RK: usize,
    const RD2: usize,
> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub reg_bus: RegBus,
    pub mpa_s: AxisSink<MD, MK>,
    pub mpa_s_len: Signal<In, Bits<16>>,
    pub mpa_m: AxisSource<MD, MK>,
    pub mctp_s: AxisSink<CD, CK>,
    pub mctp_s_len: Signal<In, Bits<17>>,
    pub mctp_m: AxisSource<CD, CK>,
    pub mctp_rx_s: AxisSink<CD, CK>,
    pub mctp_rx_m: AxisSource<CD, CK>,
    pub mctp_rx_m_src_eid: Signal<Out, Bits<8>>,
    pub mctp_rx_m_dst_eid: Signal<Out, Bits<8>>,
    pub mctp_rx_m_tag: Signal<Out, Bits<3>>,
    pub mctp_rx_m_to: Signal<Out, Bit>,
    pub mpa_rx_s: AxisSink<RD, RK>,
    pub mpa_rx_m: AxisSource<RD, RK>,
    /// On the `tlast` beat: the ULPDU is bad, drop it ([`MpaRx`]'s contract).
    pub mpa_rx_m_tuser: Signal<Out, Bit>,
    pub mpa_rx_m_len: Signal<Out, Bits<16>>,
    pub regs: RegBlock,
    pub mpa: MpaTx<MD, MK, MH, MI>,
    pub mctp: MctpTx<CD, CK>,
    pub mctp_rx: MctpRx<CD, CK, CRA>,
    pub mpa_rx: MpaRx<RD, RK, RD2>,
    /// Each block's reset registered once more, in a flip-flop that drives that block only, so
    /// that place and route can put it beside the block: from the register block's reset
    /// flip-flops a reset crossed the die (`top_w8` at stop 59, seed 1: the register block's
    /// MPA TX reset → MPA TX's `held`, 7.07 ns of its 8.70 ns routing). High at power-up, as
    /// the register block's are.
    rst_mpa: DFFWithInit<Bit>,
    rst_mctp: DFFWithInit<Bit>,
    rst_mctp_rx: DFFWithInit<Bit>,
    rst_mpa_rx: DFFWithInit<Bit>,
}

impl<
        const MD: usize,
        const MK: usize,
        const MH: usize,
        const MI: usize,
        const CD: usize,
        const CK: usize,
        const CRA: usize,
        const RD: usize,
        const RK: usize,
        const RD2: usize,
    > Default for OffloadTop<MD, MK, MH, MI, CD, CK, CRA, RD, RK, RD2>
{
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            reg_bus: Default::default(),
            mpa_s: Default::default(),
            mpa_s_len: Default::default(),
            mpa_m: Default::default(),
            mctp_s: Default::default(),
            mctp_s_len: Default::default(),
            mctp_m: Default::default(),
            mctp_rx_s: Default::default(),
            mctp_rx_m: Default::default(),
            mctp_rx_m_src_eid: Default::default(),
            mctp_rx_m_dst_eid: Default::default(),
            mctp_rx_m_tag: Default::default(),
            mctp_rx_m_to: Default::default(),
            mpa_rx_s: Default::default(),
            mpa_rx_m: Default::default(),
            mpa_rx_m_tuser: Default::default(),
            mpa_rx_m_len: Default::default(),
            regs: RegBlock::new(MK, CK),
            mpa: Default::default(),
            mctp: Default::default(),
            mctp_rx: Default::default(),
            mpa_rx: Default::default(),
            rst_mpa: DFFWithInit::new(true),
            rst_mctp: DFFWithInit::new(true),
            rst_mctp_rx: DFFWithInit::new(true),
            rst_mpa_rx: DFFWithInit::new(true),
        }
    }
}

impl<
        const MD: usize,
        const MK: usize,
        const MH: usize,
        const MI: usize,
        const CD: usize,
        const CK: usize,
        const CRA: usize,
        const RD: usize,
        const RK: usize,
        const RD2: usize,
    > Logic for OffloadTop<MD, MK, MH, MI, CD, CK, CRA, RD, RK, RD2>
{
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, regs, mpa, mctp, mctp_rx, mpa_rx, rst_mpa, rst_mctp, rst_mctp_rx, rst_mpa_rx);
        self.regs.reset.next = self.reset.val();
        // A block leaves (and enters) reset a clock after the register block clears (stops
        // clearing) its counters, so the counters never see a handshake of a block in reset.
        self.rst_mpa.d.next = self.regs.resets.mpa.val();
        self.rst_mctp.d.next = self.regs.resets.mctp.val();
        self.rst_mctp_rx.d.next = self.regs.resets.mctp_rx.val();
        self.rst_mpa_rx.d.next = self.regs.resets.mpa_rx.val();
        self.mpa.reset.next = self.rst_mpa.q.val();
        self.mctp.reset.next = self.rst_mctp.q.val();
        self.mctp_rx.reset.next = self.rst_mctp_rx.q.val();
        self.mpa_rx.reset.next = self.rst_mpa_rx.q.val();
        RegBus::link(&mut self.reg_bus, &mut self.regs.reg_bus);
        // Streams through; configuration from, and counters to, the register block.
        AxisSink::<MD, MK>::link(&mut self.mpa_s, &mut self.mpa.s);
        self.mpa.s_len.next = self.mpa_s_len.val();
        AxisSource::<MD, MK>::link(&mut self.mpa_m, &mut self.mpa.m);
        MpaTxConfig::join(&mut self.mpa.cfg, &mut self.regs.mpa_cfg);
        MpaTxCounters::join(&mut self.mpa.counters, &mut self.regs.mpa_counters);
        AxisSink::<CD, CK>::link(&mut self.mctp_s, &mut self.mctp.s);
        self.mctp.s_len.next = self.mctp_s_len.val();
        AxisSource::<CD, CK>::link(&mut self.mctp_m, &mut self.mctp.m);
        MctpTxConfig::join(&mut self.mctp.cfg, &mut self.regs.mctp_cfg);
        MctpTxCounters::join(&mut self.mctp.counters, &mut self.regs.mctp_counters);
        AxisSink::<CD, CK>::link(&mut self.mctp_rx_s, &mut self.mctp_rx.s);
        AxisSource::<CD, CK>::link(&mut self.mctp_rx_m, &mut self.mctp_rx.m);
        self.mctp_rx_m_src_eid.next = self.mctp_rx.m_src_eid.val();
        self.mctp_rx_m_dst_eid.next = self.mctp_rx.m_dst_eid.val();
        self.mctp_rx_m_tag.next = self.mctp_rx.m_tag.val();
        self.mctp_rx_m_to.next = self.mctp_rx.m_to.val();
        MctpRxConfig::join(&mut self.mctp_rx.cfg, &mut self.regs.mctp_rx_cfg);
        MctpRxCounters::join(&mut self.mctp_rx.counters, &mut self.regs.mctp_rx_counters);
        self.regs.mctp_rx_drop.next = self.mctp_rx.drop.val();
        self.regs.mctp_rx_drop_context.next = self.mctp_rx.drop_context.val();
        self.regs.mctp_rx_drop_length.next = self.mctp_rx.drop_length.val();
        AxisSink::<RD, RK>::link(&mut self.mpa_rx_s, &mut self.mpa_rx.s);
        AxisSource::<RD, RK>::link(&mut self.mpa_rx_m, &mut self.mpa_rx.m);
        self.mpa_rx_m_tuser.next = self.mpa_rx.m_tuser.val();
        self.mpa_rx_m_len.next = self.mpa_rx.m_len.val();
        MpaRxConfig::join(&mut self.mpa_rx.cfg, &mut self.regs.mpa_rx_cfg);
        MpaRxStatus::join(&mut self.mpa_rx.status, &mut self.regs.mpa_rx_status);
        MpaRxCounters::join(&mut self.mpa_rx.counters, &mut self.regs.mpa_rx_counters);
        // What the register block counts itself: the frames each block accepts.
        self.regs.mpa_tap.tvalid.next = self.mpa_s.tvalid.val();
        self.regs.mpa_tap.tready.next = self.mpa_s.tready.val();
        self.regs.mpa_tap.tlast.next = self.mpa_s.tlast.val();
        self.regs.mpa_s_len.next = self.mpa_s_len.val();
        self.regs.mctp_tap.tvalid.next = self.mctp_s.tvalid.val();
        self.regs.mctp_tap.tready.next = self.mctp_s.tready.val();
        self.regs.mctp_tap.tlast.next = self.mctp_s.tlast.val();
        self.regs.mctp_rx_tap.tvalid.next = self.mctp_rx_s.tvalid.val();
        self.regs.mctp_rx_tap.tready.next = self.mctp_rx_s.tready.val();
        self.regs.mctp_rx_tap.tlast.next = self.mctp_rx_s.tlast.val();
        self.regs.mpa_rx_tap.tvalid.next = self.mpa_rx_s.tvalid.val();
        self.regs.mpa_rx_tap.tready.next = self.mpa_rx_s.tready.val();
        self.regs.mpa_rx_tap.tlast.next = self.mpa_rx_s.tlast.val();
    }
}

/// rust-hdl's simulation of the top behind the testbench's [`crate::testbench::ClockedModel`]
/// (drive it with [`crate::testbench::TopBench`]).
pub fn hdl_model<
    const MD: usize,
    const MK: usize,
    const MH: usize,
    const MI: usize,
    const CD: usize,
    const CK: usize,
    const CRA: usize,
    const RD: usize,
    const RK: usize,
    const RD2: usize,
>() -> Result<crate::testbench::HdlModel<OffloadTop<MD, MK, MH, MI, CD, CK, CRA, RD, RK, RD2>>, crate::testbench::BenchError>
{
    crate::hdl_model!(
        OffloadTop::<MD, MK, MH, MI, CD, CK, CRA, RD, RK, RD2>::default(),
        OffloadTop<MD, MK, MH, MI, CD, CK, CRA, RD, RK, RD2>,
        [
            reset,
            reg_bus.wr_addr, reg_bus.wr_data, reg_bus.wr_strb, reg_bus.wr_en, reg_bus.wr_wait, reg_bus.wr_ack,
            reg_bus.rd_addr, reg_bus.rd_en, reg_bus.rd_data, reg_bus.rd_wait, reg_bus.rd_ack,
            mpa_s.tdata, mpa_s.tkeep, mpa_s.tvalid, mpa_s.tlast, mpa_s.tready, mpa_s_len,
            mpa_m.tdata, mpa_m.tkeep, mpa_m.tvalid, mpa_m.tlast, mpa_m.tready,
            mctp_s.tdata, mctp_s.tkeep, mctp_s.tvalid, mctp_s.tlast, mctp_s.tready, mctp_s_len,
            mctp_m.tdata, mctp_m.tkeep, mctp_m.tvalid, mctp_m.tlast, mctp_m.tready,
            mctp_rx_s.tdata, mctp_rx_s.tkeep, mctp_rx_s.tvalid, mctp_rx_s.tlast, mctp_rx_s.tready,
            mctp_rx_m.tdata, mctp_rx_m.tkeep, mctp_rx_m.tvalid, mctp_rx_m.tlast, mctp_rx_m.tready,
            mctp_rx_m_src_eid, mctp_rx_m_dst_eid, mctp_rx_m_tag, mctp_rx_m_to,
            mpa_rx_s.tdata, mpa_rx_s.tkeep, mpa_rx_s.tvalid, mpa_rx_s.tlast, mpa_rx_s.tready,
            mpa_rx_m.tdata, mpa_rx_m.tkeep, mpa_rx_m.tvalid, mpa_rx_m.tlast, mpa_rx_m.tready,
            mpa_rx_m_tuser, mpa_rx_m_len
        ]
    )
}

#[cfg(test)]
mod tests;
