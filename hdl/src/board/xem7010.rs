//! The XEM7010 top Vivado builds (cargo feature `board`): Opal Kelly's `okHost` and the
//! FrontPanel endpoint cells (`rust-hdl-ok-core`) on the XEM7010's host-interface pins
//! (`rust-hdl-bsp-ok-xem7010`), around [`BoardCore`] (the bridge and `OffloadTop`, W = 4).
//! Everything runs on the host interface clock `ti_clk` (48 MHz): one clock domain, no
//! crossing. Endpoint map: [`super::bridge`]; pins and timing: `constraints/xem7010.xdc`.
//!
//! Build the bitstream (needs Vivado on `PATH` and the FrontPanel SDK with its HDL files, as
//! rust-hdl's XEM7010 flow expects): [`synth`], e.g. from a test or a small binary.

use super::bridge::{ep, BoardCore};
use rust_hdl::prelude::*;
use rust_hdl_bsp_ok_xem7010::xem7010::XEM7010;
use rust_hdl_ok_core::core::prelude::*;

/// The board top.
#[derive(LogicBlock)]
pub struct Xem7010Offload {
    pub hi: OpalKellyHostInterface,
    pub ok_host: OpalKellyHost,
    /// Active low: heartbeat and stream activity (see the bridge).
    pub led: Signal<Out, Bits<8>>,
    pub wi_addr: WireIn,
    pub wi_data_lo: WireIn,
    pub wi_data_hi: WireIn,
    pub wi_control: WireIn,
    pub ti_bus: TriggerIn,
    pub wo_data_lo: WireOut,
    pub wo_data_hi: WireOut,
    pub wo_status: WireOut,
    pub wo_mpa_in_free: WireOut,
    pub wo_mctp_in_free: WireOut,
    pub wo_mpa_out_count: WireOut,
    pub wo_mctp_out_count: WireOut,
    pub wo_mpa_rx_in_free: WireOut,
    pub wo_mctp_rx_in_free: WireOut,
    pub wo_mpa_rx_out_count: WireOut,
    pub wo_mctp_rx_out_count: WireOut,
    pub pi_mpa: PipeIn,
    pub pi_mctp: PipeIn,
    pub pi_mpa_rx: PipeIn,
    pub pi_mctp_rx: PipeIn,
    pub po_mpa: PipeOut,
    pub po_mctp: PipeOut,
    pub po_mpa_rx: PipeOut,
    pub po_mctp_rx: PipeOut,
    pub core: BoardCore,
}

impl Default for Xem7010Offload {
    fn default() -> Self {
        Xem7010Offload {
            hi: XEM7010::hi(),
            ok_host: XEM7010::ok_host(),
            led: XEM7010::leds(),
            wi_addr: WireIn::new(ep::WI_ADDR),
            wi_data_lo: WireIn::new(ep::WI_DATA_LO),
            wi_data_hi: WireIn::new(ep::WI_DATA_HI),
            wi_control: WireIn::new(ep::WI_CONTROL),
            ti_bus: TriggerIn::new(ep::TI_BUS),
            wo_data_lo: WireOut::new(ep::WO_DATA_LO),
            wo_data_hi: WireOut::new(ep::WO_DATA_HI),
            wo_status: WireOut::new(ep::WO_STATUS),
            wo_mpa_in_free: WireOut::new(ep::WO_MPA_IN_FREE),
            wo_mctp_in_free: WireOut::new(ep::WO_MCTP_IN_FREE),
            wo_mpa_out_count: WireOut::new(ep::WO_MPA_OUT_COUNT),
            wo_mctp_out_count: WireOut::new(ep::WO_MCTP_OUT_COUNT),
            wo_mpa_rx_in_free: WireOut::new(ep::WO_MPA_RX_IN_FREE),
            wo_mctp_rx_in_free: WireOut::new(ep::WO_MCTP_RX_IN_FREE),
            wo_mpa_rx_out_count: WireOut::new(ep::WO_MPA_RX_OUT_COUNT),
            wo_mctp_rx_out_count: WireOut::new(ep::WO_MCTP_RX_OUT_COUNT),
            pi_mpa: PipeIn::new(ep::PI_MPA),
            pi_mctp: PipeIn::new(ep::PI_MCTP),
            pi_mpa_rx: PipeIn::new(ep::PI_MPA_RX),
            pi_mctp_rx: PipeIn::new(ep::PI_MCTP_RX),
            po_mpa: PipeOut::new(ep::PO_MPA),
            po_mctp: PipeOut::new(ep::PO_MCTP),
            po_mpa_rx: PipeOut::new(ep::PO_MPA_RX),
            po_mctp_rx: PipeOut::new(ep::PO_MCTP_RX),
            core: BoardCore::default(),
        }
    }
}

impl Logic for Xem7010Offload {
    #[hdl_gen]
    fn update(&mut self) {
        OpalKellyHostInterface::link(&mut self.hi, &mut self.ok_host.hi);
        self.core.clock.next = self.ok_host.ti_clk.val();
        self.ti_bus.clk.next = self.ok_host.ti_clk.val();
        // okHost's bus out to every endpoint ...
        self.wi_addr.ok1.next = self.ok_host.ok1.val();
        self.wi_data_lo.ok1.next = self.ok_host.ok1.val();
        self.wi_data_hi.ok1.next = self.ok_host.ok1.val();
        self.wi_control.ok1.next = self.ok_host.ok1.val();
        self.ti_bus.ok1.next = self.ok_host.ok1.val();
        self.wo_data_lo.ok1.next = self.ok_host.ok1.val();
        self.wo_data_hi.ok1.next = self.ok_host.ok1.val();
        self.wo_status.ok1.next = self.ok_host.ok1.val();
        self.wo_mpa_in_free.ok1.next = self.ok_host.ok1.val();
        self.wo_mctp_in_free.ok1.next = self.ok_host.ok1.val();
        self.wo_mpa_out_count.ok1.next = self.ok_host.ok1.val();
        self.wo_mctp_out_count.ok1.next = self.ok_host.ok1.val();
        self.wo_mpa_rx_in_free.ok1.next = self.ok_host.ok1.val();
        self.wo_mctp_rx_in_free.ok1.next = self.ok_host.ok1.val();
        self.wo_mpa_rx_out_count.ok1.next = self.ok_host.ok1.val();
        self.wo_mctp_rx_out_count.ok1.next = self.ok_host.ok1.val();
        self.pi_mpa.ok1.next = self.ok_host.ok1.val();
        self.pi_mctp.ok1.next = self.ok_host.ok1.val();
        self.pi_mpa_rx.ok1.next = self.ok_host.ok1.val();
        self.pi_mctp_rx.ok1.next = self.ok_host.ok1.val();
        self.po_mpa.ok1.next = self.ok_host.ok1.val();
        self.po_mctp.ok1.next = self.ok_host.ok1.val();
        self.po_mpa_rx.ok1.next = self.ok_host.ok1.val();
        self.po_mctp_rx.ok1.next = self.ok_host.ok1.val();
        // ... and the endpoints' replies wire-ORed back.
        self.ok_host.ok2.next = self.wo_data_lo.ok2.val()
            | self.wo_data_hi.ok2.val()
            | self.wo_status.ok2.val()
            | self.wo_mpa_in_free.ok2.val()
            | self.wo_mctp_in_free.ok2.val()
            | self.wo_mpa_out_count.ok2.val()
            | self.wo_mctp_out_count.ok2.val()
            | self.wo_mpa_rx_in_free.ok2.val()
            | self.wo_mctp_rx_in_free.ok2.val()
            | self.wo_mpa_rx_out_count.ok2.val()
            | self.wo_mctp_rx_out_count.ok2.val()
            | self.pi_mpa.ok2.val()
            | self.pi_mctp.ok2.val()
            | self.pi_mpa_rx.ok2.val()
            | self.pi_mctp_rx.ok2.val()
            | self.po_mpa.ok2.val()
            | self.po_mctp.ok2.val()
            | self.po_mpa_rx.ok2.val()
            | self.po_mctp_rx.ok2.val();
        // Endpoints <-> the board core.
        self.core.wi_addr.next = self.wi_addr.dataout.val();
        self.core.wi_data_lo.next = self.wi_data_lo.dataout.val();
        self.core.wi_data_hi.next = self.wi_data_hi.dataout.val();
        self.core.wi_control.next = self.wi_control.dataout.val();
        self.core.ti_bus.next = self.ti_bus.trigger.val();
        self.wo_data_lo.datain.next = self.core.wo_data_lo.val();
        self.wo_data_hi.datain.next = self.core.wo_data_hi.val();
        self.wo_status.datain.next = self.core.wo_status.val();
        self.wo_mpa_in_free.datain.next = self.core.wo_mpa_in_free.val();
        self.wo_mctp_in_free.datain.next = self.core.wo_mctp_in_free.val();
        self.wo_mpa_out_count.datain.next = self.core.wo_mpa_out_count.val();
        self.wo_mctp_out_count.datain.next = self.core.wo_mctp_out_count.val();
        self.core.mpa_in_write.next = self.pi_mpa.write.val();
        self.core.mpa_in_data.next = self.pi_mpa.dataout.val();
        self.core.mctp_in_write.next = self.pi_mctp.write.val();
        self.core.mctp_in_data.next = self.pi_mctp.dataout.val();
        self.core.mpa_out_read.next = self.po_mpa.read.val();
        self.po_mpa.datain.next = self.core.mpa_out_data.val();
        self.core.mctp_out_read.next = self.po_mctp.read.val();
        self.po_mctp.datain.next = self.core.mctp_out_data.val();
        self.wo_mpa_rx_in_free.datain.next = self.core.wo_mpa_rx_in_free.val();
        self.wo_mctp_rx_in_free.datain.next = self.core.wo_mctp_rx_in_free.val();
        self.wo_mpa_rx_out_count.datain.next = self.core.wo_mpa_rx_out_count.val();
        self.wo_mctp_rx_out_count.datain.next = self.core.wo_mctp_rx_out_count.val();
        self.core.mpa_rx_in_write.next = self.pi_mpa_rx.write.val();
        self.core.mpa_rx_in_data.next = self.pi_mpa_rx.dataout.val();
        self.core.mctp_rx_in_write.next = self.pi_mctp_rx.write.val();
        self.core.mctp_rx_in_data.next = self.pi_mctp_rx.dataout.val();
        self.core.mpa_rx_out_read.next = self.po_mpa_rx.read.val();
        self.po_mpa_rx.datain.next = self.core.mpa_rx_out_data.val();
        self.core.mctp_rx_out_read.next = self.po_mctp_rx.read.val();
        self.po_mctp_rx.datain.next = self.core.mctp_rx_out_data.val();
        self.led.next = self.core.leds.val();
    }
}

/// The board top, connected as rust-hdl's XEM7010 flow wants it.
pub fn board_top() -> Xem7010Offload {
    let mut uut = Xem7010Offload::default();
    uut.hi.link_connect_dest();
    uut.connect_all();
    uut
}

/// The top's Verilog (Opal Kelly's cells as black boxes).
pub fn verilog() -> String {
    generate_verilog(&board_top())
}

/// Runs rust-hdl's XEM7010 flow (Verilog, XDC from the pin constraints, Vivado) into `dir`;
/// the bitstream is `dir/top.bit`.
pub fn synth(dir: &str) {
    XEM7010::synth(board_top(), dir);
}

#[cfg(test)]
mod tests {
    /// The board top elaborates, and its Verilog (Opal Kelly's cells as black boxes) passes
    /// Yosys's hierarchy and process checks with every endpoint at its address.
    #[test]
    fn board_top_verilog_is_valid() {
        let v = super::verilog();
        rust_hdl::prelude::yosys_validate("offload_xem7010", &v)
            .unwrap_or_else(|e| panic!("{e:?}"));
        for ep in [
            "okWireIn",
            "okTriggerIn",
            "okWireOut",
            "okPipeIn",
            "okPipeOut",
            "okHost",
        ] {
            assert!(v.contains(ep), "no {ep} cell");
        }
        assert!(
            v.contains("top$core$top$mpa") || v.contains("core$top"),
            "OffloadTop inside"
        );
    }
}
