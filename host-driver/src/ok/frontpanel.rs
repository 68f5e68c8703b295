//! [`FrontPanel`] over Opal Kelly's API (`rust-hdl-ok-frontpanel-sys`, cargo feature
//! `board`): the XEM7010 running the board design (`offload-hdl`'s `board::xem7010`), and the
//! board's `Offload` backend, [`ok_offload`].

use super::{FrontPanel, OkTransport};
use crate::registers::RegisterError;
use crate::top_offload::TopOffload;
use rust_hdl_ok_frontpanel_sys::{OkError, OkHandle};

fn err(what: &str, e: OkError) -> RegisterError {
    RegisterError::Bus(format!("FrontPanel {what}: error code {}", e.code))
}

/// An opened XEM7010.
pub struct OkDevice {
    h: OkHandle,
}

impl OkDevice {
    /// Opens the board with `serial` (the first one found when `None`) and, when given,
    /// configures the FPGA with `bitfile`.
    pub fn open(serial: Option<&str>, bitfile: Option<&str>) -> Result<OkDevice, RegisterError> {
        let h = OkHandle::new();
        match serial {
            Some(s) => h.open_with_serial(s),
            None => h.open(),
        }
        .map_err(|e| err("open", e))?;
        let model = h.get_board_model();
        if !model.contains("7010") {
            return Err(RegisterError::Bus(format!(
                "board model `{model}` is not an XEM7010"
            )));
        }
        if let Some(b) = bitfile {
            h.configure_fpga(b).map_err(|e| err("configure", e))?;
        }
        Ok(OkDevice { h })
    }
}

fn bytes_of(words: &[u16]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

impl FrontPanel for OkDevice {
    fn set_wire_in(&mut self, ep: u8, value: u16) -> Result<(), RegisterError> {
        self.h.set_wire_in(ep as i32, value);
        Ok(())
    }

    fn update_wire_ins(&mut self) -> Result<(), RegisterError> {
        self.h.update_wire_ins();
        Ok(())
    }

    fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<(), RegisterError> {
        self.h
            .activate_trigger_in(ep as i32, bit as i32)
            .map_err(|e| err("trigger", e))
    }

    fn update_wire_outs(&mut self) -> Result<(), RegisterError> {
        self.h.update_wire_outs();
        Ok(())
    }

    fn wire_out(&mut self, ep: u8) -> u16 {
        self.h.get_wire_out(ep as i32)
    }

    fn write_pipe_in(&mut self, ep: u8, words: &[u16]) -> Result<(), RegisterError> {
        self.h
            .write_to_pipe_in(ep as i32, &bytes_of(words))
            .map_err(|e| err("pipe in", e))
    }

    fn read_pipe_out(&mut self, ep: u8, words: &mut [u16]) -> Result<(), RegisterError> {
        let mut bytes = vec![0u8; 2 * words.len()];
        self.h
            .read_from_pipe_out(ep as i32, &mut bytes)
            .map_err(|e| err("pipe out", e))?;
        for (w, b) in words.iter_mut().zip(bytes.chunks(2)) {
            *w = u16::from_le_bytes([b[0], b[1]]);
        }
        Ok(())
    }
}

/// The board's `Offload` backend (`ok`): opens the XEM7010, loads `bitfile` when given, resets
/// the design and checks its register map.
pub fn ok_offload(
    serial: Option<&str>,
    bitfile: Option<&str>,
) -> Result<TopOffload<OkTransport<OkDevice>>, RegisterError> {
    let t = OkTransport::new(OkDevice::open(serial, bitfile)?)?;
    TopOffload::open(t, "ok")
}
