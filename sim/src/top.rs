//! The Verilated `OffloadTop` as a transport for the host driver ([`VerilatedTop`], the
//! testbench's [`TopBench`] over the Verilated Verilog), and the Verilated board core behind
//! the FrontPanel calls ([`VerilatedBoard`]).

use crate::model::{model_info, PortId, SimError, VerilatedModel};
use offload_driver::registers::RegisterError;
pub use offload_hdl::testbench::TopBench;

/// The Verilated `OffloadTop`.
pub type VerilatedTop = TopBench<VerilatedModel>;

/// The top called `name` in the registry (`top_w4`, `top_w8`), Verilated and reset.
pub fn verilated_top(name: &str) -> Result<VerilatedTop, SimError> {
    Ok(TopBench::new(VerilatedModel::new(model_info(name)?))?)
}

/// The Verilated board core (`board_core_w4`: the FrontPanel bridge and `OffloadTop`) behind
/// the [`FrontPanel`] calls the host transport makes, so `OkTransport` and the bridge are tested
/// together as on the board, minus Opal Kelly's cells. Each call costs clocks as a USB
/// transaction would cost many: wire updates 2, trigger 1 plus 2, wire-out updates 8, one clock
/// per pipe word.
pub struct VerilatedBoard {
    m: VerilatedModel,
    wire_ins: [u16; 32],
    wire_outs: [u16; 32],
}

impl VerilatedBoard {
    pub fn new() -> Result<VerilatedBoard, SimError> {
        let m = VerilatedModel::new(model_info("board_core_w4")?);
        Ok(VerilatedBoard {
            m,
            wire_ins: [0; 32],
            wire_outs: [0; 32],
        })
    }

    fn port(&self, name: &str) -> Result<PortId, RegisterError> {
        self.m
            .port(name)
            .ok_or_else(|| RegisterError::Bus(format!("board core has no port {name}")))
    }

    fn clocks(&mut self, n: usize) {
        for _ in 0..n {
            self.m.eval();
            self.m.tick();
        }
        self.m.eval();
    }

    fn pipe_ports(&self, ep: u8) -> Result<(PortId, PortId), RegisterError> {
        let (strobe, data) = match ep {
            ok::ep::PI_MPA => ("mpa_in_write", "mpa_in_data"),
            ok::ep::PI_MCTP => ("mctp_in_write", "mctp_in_data"),
            ok::ep::PO_MPA => ("mpa_out_read", "mpa_out_data"),
            ok::ep::PO_MCTP => ("mctp_out_read", "mctp_out_data"),
            _ => {
                return Err(RegisterError::Bus(format!(
                    "no pipe at endpoint 0x{ep:02X}"
                )))
            }
        };
        Ok((self.port(strobe)?, self.port(data)?))
    }
}

use offload_driver::ok::{self, FrontPanel};

impl FrontPanel for VerilatedBoard {
    fn set_wire_in(&mut self, ep: u8, value: u16) -> Result<(), RegisterError> {
        *self
            .wire_ins
            .get_mut(ep as usize)
            .ok_or_else(|| RegisterError::Bus(format!("no wire-in 0x{ep:02X}")))? = value;
        Ok(())
    }

    fn update_wire_ins(&mut self) -> Result<(), RegisterError> {
        for (ep, name) in [
            (ok::ep::WI_ADDR, "wi_addr"),
            (ok::ep::WI_DATA_LO, "wi_data_lo"),
            (ok::ep::WI_DATA_HI, "wi_data_hi"),
            (ok::ep::WI_CONTROL, "wi_control"),
        ] {
            let p = self.port(name)?;
            self.m.set(p, self.wire_ins[ep as usize] as u64);
        }
        self.clocks(2);
        Ok(())
    }

    fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<(), RegisterError> {
        if ep != ok::ep::TI_BUS || bit > 15 {
            return Err(RegisterError::Bus(format!(
                "no trigger 0x{ep:02X} bit {bit}"
            )));
        }
        let p = self.port("ti_bus")?;
        self.m.set(p, 1 << bit);
        self.clocks(1);
        self.m.set(p, 0);
        self.clocks(2);
        Ok(())
    }

    fn update_wire_outs(&mut self) -> Result<(), RegisterError> {
        self.clocks(8);
        for (ep, name) in [
            (ok::ep::WO_DATA_LO, "wo_data_lo"),
            (ok::ep::WO_DATA_HI, "wo_data_hi"),
            (ok::ep::WO_STATUS, "wo_status"),
            (ok::ep::WO_MPA_IN_FREE, "wo_mpa_in_free"),
            (ok::ep::WO_MCTP_IN_FREE, "wo_mctp_in_free"),
            (ok::ep::WO_MPA_OUT_COUNT, "wo_mpa_out_count"),
            (ok::ep::WO_MCTP_OUT_COUNT, "wo_mctp_out_count"),
        ] {
            let p = self.port(name)?;
            self.wire_outs[ep as usize - 0x20] = self.m.get(p) as u16;
        }
        Ok(())
    }

    fn wire_out(&mut self, ep: u8) -> u16 {
        self.wire_outs
            .get((ep as usize).wrapping_sub(0x20))
            .copied()
            .unwrap_or(0)
    }

    fn write_pipe_in(&mut self, ep: u8, words: &[u16]) -> Result<(), RegisterError> {
        let (strobe, data) = self.pipe_ports(ep)?;
        for &w in words {
            self.m.set(data, w as u64);
            self.m.set(strobe, 1);
            self.m.eval();
            self.m.tick();
        }
        self.m.set(strobe, 0);
        self.m.eval();
        Ok(())
    }

    fn read_pipe_out(&mut self, ep: u8, words: &mut [u16]) -> Result<(), RegisterError> {
        let (strobe, data) = self.pipe_ports(ep)?;
        // ep_read at an edge; the word is on ep_datain in the clock after it.
        for w in words.iter_mut() {
            self.m.set(strobe, 1);
            self.m.eval();
            self.m.tick();
            self.m.eval();
            *w = self.m.get(data) as u16;
        }
        self.m.set(strobe, 0);
        self.m.eval();
        Ok(())
    }

    fn cycles(&self) -> Option<u64> {
        Some(self.m.cycle())
    }
}
