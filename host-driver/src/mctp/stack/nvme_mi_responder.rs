//! An NVMe-MI Management Endpoint on the stack (NVMe-MI 1.2 §4–§6, out of band): the MI
//! commands (Read NVMe-MI Data Structure, NVM Subsystem and Controller Health Status Poll,
//! Configuration Set and Get) and the NVMe Admin commands NVMe-MI requires (Identify, Get Log
//! Page, Get Features; Set Features), answered from one NVM subsystem model.
//!
//! What it answers:
//! - a request failing the MIC, over the 4224-octet limit or not a request: nothing (§3.2.1.1);
//! - MEB set (no command here supports the ME Buffer) or MEB/CIAP on a message that is not a
//!   command: Invalid Parameter with the Parameter Error Location of the bit;
//! - a request too short for its type: Invalid Command Size;
//! - an unknown opcode or a message type it does not serve: Invalid Command Opcode, with the
//!   request's NMIMT;
//! - a field out of range: Invalid Parameter with the Parameter Error Location.
//! Every response carries the request's NMIMT and command slot.

use super::addr::{SockAddr, ADDR_ANY, NET_ANY, TYPE_NVME_MI};
use super::control_endpoint::{spawn_service, ServiceHandle};
use super::endpoint::Endpoint;
use super::error::StackError;
use super::nvme_mi::{MiRequest, MiResponse};
use crate::nvme::subsystem::{change, SharedSubsystem, Subsystem};
use crate::nvme_mi::admin::{self as admin_msg, AdminRequest, AdminResponse};
use crate::nvme_mi::mi_command::{
    self as mi, config_id, data_structure, offset, opcode, smbus_frequency, SmbusPort,
    BASELINE_MCTP_TU,
};
use crate::nvme_mi::{self, status, Nmimt, NvmeMiError, NvmeMiHeader, ParameterErrorLocation};
use std::sync::{Arc, Mutex, MutexGuard};

/// What the Management Endpoint is: its ports and version, and the NVM subsystem behind it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubsystemModel {
    /// Ports (1..=256), all SMBus/I2C; port 0 is the one the MCTP traffic uses.
    pub ports: u16,
    /// NVMe-MI version (major, minor).
    pub version: (u8, u8),
    /// Largest MCTP transmission unit each port supports (payload octets): Port Information
    /// MMCTPTUS and the limit of Configuration Set. The unit in use starts at the baseline, 64.
    pub mtu: u16,
    /// SMBus/I2C frequency each port starts at, and the fastest it supports (1: 100 kHz,
    /// 2: 400 kHz, 3: 1 MHz).
    pub smbus_frequency: u8,
    pub smbus_max_frequency: u8,
    /// 7-bit SMBus addresses of the Management Endpoint and of the VPD device.
    pub smbus_address: u8,
    pub vpd_address: u8,
    /// Answer Health Status Poll with "More Processing Required" before the final response.
    pub in_progress_first: bool,
    /// The MPRT that response carries, in 100 ms units.
    pub mprt_100ms: u16,
    /// The NVM subsystem.
    pub nvm: Subsystem,
}

impl Default for SubsystemModel {
    fn default() -> Self {
        SubsystemModel {
            ports: 1,
            version: (1, 2),
            mtu: 64,
            smbus_frequency: smbus_frequency::KHZ_100,
            smbus_max_frequency: smbus_frequency::KHZ_400,
            smbus_address: 0x1D,
            vpd_address: 0x53,
            in_progress_first: false,
            mprt_100ms: 1,
            nvm: Subsystem::default(),
        }
    }
}

/// A port's configuration, as Configuration Set changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortConfig {
    pub smbus_frequency: u8,
    pub mctp_tu: u16,
}

/// The Management Endpoint.
#[derive(Debug, Clone)]
pub struct NvmeMiResponder {
    pub model: SubsystemModel,
    nvm: SharedSubsystem,
    ports: Vec<PortConfig>,
}

impl Default for NvmeMiResponder {
    fn default() -> Self {
        NvmeMiResponder::new(SubsystemModel::default())
    }
}

/// The Invalid Parameter answer, or a success with NMRESP and data.
type MiResult = Result<MiResponse, ParameterErrorLocation>;

fn ok(nmresp: [u8; 3], data: Vec<u8>) -> MiResult {
    Ok(MiResponse {
        status: status::SUCCESS,
        nmresp,
        data,
    })
}

fn pel(byte: u16, bit: u8) -> ParameterErrorLocation {
    ParameterErrorLocation::at(byte, bit)
}

impl NvmeMiResponder {
    pub fn new(model: SubsystemModel) -> Self {
        let ports = (0..model.ports.clamp(1, 256))
            .map(|_| PortConfig {
                smbus_frequency: model.smbus_frequency,
                mctp_tu: BASELINE_MCTP_TU.min(model.mtu),
            })
            .collect();
        NvmeMiResponder {
            nvm: Arc::new(Mutex::new(model.nvm.clone())),
            model,
            ports,
        }
    }

    /// The subsystem the responder answers from; changes made through it (health values,
    /// namespaces) show in the next answers, also after [`NvmeMiResponder::spawn`].
    pub fn subsystem(&self) -> SharedSubsystem {
        self.nvm.clone()
    }

    /// The current configuration of `port`.
    pub fn port_config(&self, port: u8) -> Option<PortConfig> {
        self.ports.get(usize::from(port)).copied()
    }

    fn nvm(&self) -> MutexGuard<'_, Subsystem> {
        // A panic elsewhere while holding the lock leaves a consistent model (every change
        // is a plain assignment), so a poisoned lock is still usable.
        self.nvm.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The responses to one request message, in order (none for a message that fails the MIC,
    /// is too long or is not a request).
    pub fn handle(&mut self, msg: &[u8]) -> Vec<Vec<u8>> {
        let (h, d) = match nvme_mi::decode_oob(msg) {
            Ok(x) => x,
            Err(NvmeMiError::FlagOnNonCommand { flag, nmimt }) => {
                // The MIC was good (it is checked first): say which bit is wrong.
                let csi = msg[1] & (1 << nvme_mi::CSI_BIT) != 0;
                let bit = if flag == "MEB" {
                    nvme_mi::MEB_BIT
                } else {
                    nvme_mi::CIAP_BIT
                };
                return MiResponse {
                    status: status::INVALID_PARAMETER,
                    nmresp: pel(2, bit).nmresp(),
                    data: vec![],
                }
                .encode_as(nmimt, csi)
                .into_iter()
                .collect();
            }
            Err(_) => return Vec::new(),
        };
        if h.response {
            return Vec::new();
        }
        let mut out = Vec::new();
        match h.nmimt {
            Nmimt::NvmeAdminCommand => out.extend(self.admin(&h, d).encode(h.csi)),
            Nmimt::MiCommand => {
                let resp = if h.meb {
                    MiResponse {
                        status: status::INVALID_PARAMETER,
                        nmresp: pel(2, nvme_mi::MEB_BIT).nmresp(),
                        data: vec![],
                    }
                } else {
                    match MiRequest::decode_data(d) {
                        Err(_) => MiResponse::error(status::INVALID_COMMAND_SIZE),
                        Ok(req) => {
                            if self.model.in_progress_first
                                && req.opcode == opcode::SUBSYSTEM_HEALTH_STATUS_POLL
                            {
                                out.extend(
                                    MiResponse {
                                        status: status::MORE_PROCESSING_REQUIRED,
                                        nmresp: nvme_mi::mprt_nmresp(self.model.mprt_100ms),
                                        data: vec![],
                                    }
                                    .encode(h.csi),
                                );
                            }
                            self.execute(&req).unwrap_or_else(|p| MiResponse {
                                status: status::INVALID_PARAMETER,
                                nmresp: p.nmresp(),
                                data: vec![],
                            })
                        }
                    }
                };
                out.extend(resp.encode(h.csi));
            }
            other => {
                out.extend(MiResponse::error(status::INVALID_OPCODE).encode_as(other, h.csi))
            }
        }
        out
    }

    /// An NVMe Admin Command message (§6).
    fn admin(&mut self, h: &NvmeMiHeader, d: &[u8]) -> AdminResponse {
        if h.meb {
            return AdminResponse::invalid_parameter(pel(2, nvme_mi::MEB_BIT));
        }
        match AdminRequest::decode_data(d) {
            Err(_) => AdminResponse::mi_status(status::INVALID_COMMAND_SIZE, [0; 3]),
            Ok(req) => admin_msg::respond(&mut self.nvm(), &req),
        }
    }

    fn port(&self, port: u8, at: u16) -> Result<usize, ParameterErrorLocation> {
        let p = usize::from(port);
        if p < self.ports.len() {
            Ok(p)
        } else {
            Err(pel(at, 0))
        }
    }

    /// An MI command (§5).
    fn execute(&mut self, req: &MiRequest) -> MiResult {
        match req.opcode {
            opcode::READ_DATA_STRUCTURE => self.read_data_structure(req),
            opcode::SUBSYSTEM_HEALTH_STATUS_POLL => {
                // Dword 1 bit 31, Clear Status: clear the CCS flags after reading them.
                let mut nvm = self.nvm();
                let data = mi::subsystem_health(&nvm);
                if req.dword1 & (1 << 31) != 0 {
                    nvm.clear_ccs(change::ALL);
                }
                ok([0; 3], data)
            }
            opcode::CONTROLLER_HEALTH_STATUS_POLL => self.controller_health_status_poll(req),
            opcode::CONFIGURATION_SET => self.configuration_set(req),
            opcode::CONFIGURATION_GET => self.configuration_get(req),
            _ => Ok(MiResponse::error(status::INVALID_OPCODE)),
        }
    }

    /// Read NVMe-MI Data Structure (§5.7): Dword 0 = DTYP 31:24, PORTID 23:16, CTRLID 15:0.
    /// The response's NMRESP holds the Response Data Length.
    fn read_data_structure(&self, req: &MiRequest) -> MiResult {
        let dtype = (req.dword0 >> 24) as u8;
        let port = (req.dword0 >> 16) as u8;
        let ctrl = req.dword0 as u16;
        let m = &self.model;
        let data = match dtype {
            data_structure::SUBSYSTEM_INFORMATION => mi::subsystem_information(m.ports, m.version),
            data_structure::PORT_INFORMATION => {
                self.port(port, offset::DWORD0 + 2)?;
                mi::port_information(&SmbusPort {
                    max_mctp_tu: m.mtu,
                    vpd_address: m.vpd_address,
                    me_address: m.smbus_address,
                    max_frequency: m.smbus_max_frequency,
                })
            }
            data_structure::CONTROLLER_LIST => mi::controller_list(&self.nvm(), ctrl),
            data_structure::CONTROLLER_INFORMATION => {
                let nvm = self.nvm();
                let c = nvm.controller(ctrl).ok_or(pel(offset::DWORD0, 0))?;
                mi::controller_information(&nvm, c)
            }
            _ => return Err(pel(offset::DWORD0 + 3, 0)),
        };
        let len = (data.len() as u16).to_le_bytes();
        ok([len[0], len[1], 0], data)
    }

    /// Controller Health Status Poll (§5.3). Dword 0: Starting Controller ID 15:0, Maximum
    /// Response Entries 23:16 (0's based), Report All 31. Dword 1: the changes to report (bit
    /// positions of the Composite Controller Status), Clear Changed Flags 31. A controller is
    /// reported when Report All is set or it has a selected change; NMRESP octet 5 is the
    /// number of entries, each a 16-octet Controller Health Data Structure.
    fn controller_health_status_poll(&mut self, req: &MiRequest) -> MiResult {
        let start = req.dword0 as u16;
        let max = (usize::from((req.dword0 >> 16) as u8) + 1).min(255);
        let all = req.dword0 & (1 << 31) != 0;
        let filter = req.dword1 as u16 & change::ALL;
        let clear = req.dword1 & (1 << 31) != 0;
        let mut nvm = self.nvm();
        let mut ids: Vec<u16> = nvm
            .controllers
            .iter()
            .filter(|c| c.id >= start && (all || c.changes & filter != 0))
            .map(|c| c.id)
            .collect();
        ids.sort_unstable();
        ids.truncate(max);
        let mut data = Vec::with_capacity(ids.len() * mi::CONTROLLER_HEALTH_LEN);
        for &id in &ids {
            let c = nvm.controller(id).expect("listed").clone();
            data.extend_from_slice(&mi::controller_health(&nvm, &c));
        }
        if clear {
            for c in nvm.controllers.iter_mut().filter(|c| ids.contains(&c.id)) {
                c.changes = 0;
            }
        }
        ok([ids.len() as u8, 0, 0], data)
    }

    /// Configuration Set (§5.4): SMBus/I2C Frequency (Dword 0 bits 11:8, port 31:24), Health
    /// Status Change (Dword 1: the CCS flags to clear), MCTP Transmission Unit Size (Dword 1
    /// bits 15:0, port in Dword 0 31:24; 64 up to the port's maximum).
    fn configuration_set(&mut self, req: &MiRequest) -> MiResult {
        let port = (req.dword0 >> 24) as u8;
        match req.dword0 as u8 {
            config_id::SMBUS_FREQUENCY => {
                let p = self.port(port, offset::DWORD0 + 3)?;
                let f = ((req.dword0 >> 8) & 0xF) as u8;
                if f == 0 || f > self.model.smbus_max_frequency {
                    return Err(pel(offset::DWORD0 + 1, 0));
                }
                self.ports[p].smbus_frequency = f;
                ok([0; 3], vec![])
            }
            config_id::HEALTH_STATUS_CHANGE => {
                self.nvm().clear_ccs(req.dword1 as u16 & change::ALL);
                ok([0; 3], vec![])
            }
            config_id::MCTP_TRANSMISSION_UNIT => {
                let p = self.port(port, offset::DWORD0 + 3)?;
                let tu = req.dword1 as u16;
                if tu < BASELINE_MCTP_TU || tu > self.model.mtu || req.dword1 >> 16 != 0 {
                    return Err(pel(offset::DWORD1, 0));
                }
                self.ports[p].mctp_tu = tu;
                ok([0; 3], vec![])
            }
            _ => Err(pel(offset::DWORD0, 0)),
        }
    }

    /// Configuration Get (§5.5): the value in NMRESP.
    fn configuration_get(&self, req: &MiRequest) -> MiResult {
        let port = (req.dword0 >> 24) as u8;
        match req.dword0 as u8 {
            config_id::SMBUS_FREQUENCY => {
                let p = self.port(port, offset::DWORD0 + 3)?;
                ok([self.ports[p].smbus_frequency & 0x0F, 0, 0], vec![])
            }
            config_id::HEALTH_STATUS_CHANGE => ok([0; 3], vec![]),
            config_id::MCTP_TRANSMISSION_UNIT => {
                let p = self.port(port, offset::DWORD0 + 3)?;
                let b = self.ports[p].mctp_tu.to_le_bytes();
                ok([b[0], b[1], 0], vec![])
            }
            _ => Err(pel(offset::DWORD0, 0)),
        }
    }

    /// Binds an NVMe-MI socket on `ep` and answers on a thread until the handle is dropped.
    pub fn spawn(mut self, ep: &Endpoint) -> Result<ServiceHandle, StackError> {
        let sock = ep.socket();
        sock.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, TYPE_NVME_MI))?;
        spawn_service("mctp-nvme-mi", sock, move |sock, msg, from| {
            for r in self.handle(&msg) {
                let _ = sock.send_to(&r, &from.reply());
            }
        })
    }
}
