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
//!
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::admin::AdminCommand;
    use crate::nvme::identify::cns;
    use crate::nvme::log_page::lid;
    use crate::nvme::subsystem::Namespace;
    use crate::nvme::NSID_ALL;

    fn responder() -> NvmeMiResponder {
        NvmeMiResponder::new(SubsystemModel {
            ports: 2,
            mtu: 251,
            nvm: Subsystem::new(
                2,
                vec![
                    Namespace::with_size(1, 1 << 30, 512).unwrap(),
                    Namespace::with_size(2, 1 << 24, 4096).unwrap(),
                ],
            ),
            ..Default::default()
        })
    }

    fn mi(r: &mut NvmeMiResponder, opcode: u8, dword0: u32, dword1: u32) -> MiResponse {
        let req = MiRequest {
            opcode,
            dword0,
            dword1,
            data: vec![],
        };
        let out = r.handle(&req.encode().unwrap());
        assert_eq!(out.len(), 1);
        MiResponse::decode(&out[0]).unwrap()
    }

    fn admin(r: &mut NvmeMiResponder, req: &AdminRequest) -> AdminResponse {
        let out = r.handle(&req.encode(false).unwrap());
        assert_eq!(out.len(), 1);
        AdminResponse::decode(&out[0]).unwrap()
    }

    fn pel_of(resp: &MiResponse) -> (u8, u16) {
        let p = resp.parameter_error_location().expect("Invalid Parameter");
        (p.bit, p.byte)
    }

    #[test]
    fn admin_commands_echo_nmimt_and_slot() {
        let mut r = responder();
        let m = AdminRequest::new(1, AdminCommand::identify(cns::CONTROLLER, 0, 0), 0, 4096)
            .encode(true)
            .unwrap();
        let out = r.handle(&m);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].len(), 4 + 16 + 4096 + 4, "within the 4224-octet limit");
        assert_eq!(&out[0][..4], &[0x84, 0x91, 0, 0], "response, NMIMT 2, slot 1");
        let a = AdminResponse::decode(&out[0]).unwrap();
        assert_eq!((a.status, a.cdw3), (0, 0));
        assert_eq!(&a.data[78..80], &[1, 0]);
        assert_eq!(&a.data[4..19], b"OFFLOAD-MI-0001");
    }

    #[test]
    fn one_model_behind_every_command() {
        let mut r = responder();
        r.subsystem().lock().unwrap().update_health(|h| {
            h.temperature_c = 52;
            h.percent_used = 17;
        });
        let smart = admin(
            &mut r,
            &AdminRequest::new(
                0,
                AdminCommand::get_log_page(lid::SMART_HEALTH, NSID_ALL, 0, 512),
                0,
                512,
            ),
        );
        assert_eq!(u16::from_le_bytes([smart.data[1], smart.data[2]]), 325);
        assert_eq!(smart.data[5], 17);
        let shs = mi(&mut r, opcode::SUBSYSTEM_HEALTH_STATUS_POLL, 0, 0);
        assert_eq!((shs.data[2], shs.data[3]), (52, 17));
        assert_eq!(
            u16::from_le_bytes([shs.data[4], shs.data[5]]),
            change::CTEMP | change::PDLU
        );
        // Clear Status: reported once, then clear.
        mi(&mut r, opcode::SUBSYSTEM_HEALTH_STATUS_POLL, 0, 1 << 31);
        let shs = mi(&mut r, opcode::SUBSYSTEM_HEALTH_STATUS_POLL, 0, 0);
        assert_eq!(&shs.data[4..6], &[0, 0]);
        let ch = mi(&mut r, opcode::CONTROLLER_HEALTH_STATUS_POLL, (1 << 31) | (1 << 16), 0);
        assert_eq!(ch.nmresp[0], 2);
        assert_eq!(&ch.data[4..7], &[0x45, 0x01, 17], "325 K, 17 %");
        // Identify's namespace count and list agree with Controller List and the namespaces.
        let list = mi(&mut r, opcode::READ_DATA_STRUCTURE, 2 << 24, 0);
        assert_eq!(list.data, [2, 0, 0, 0, 1, 0, 0, 0], "padded to a dword");
        let ns = admin(
            &mut r,
            &AdminRequest::new(0, AdminCommand::identify(cns::ACTIVE_NAMESPACE_LIST, 0, 0), 0, 8),
        );
        assert_eq!(ns.data, [1, 0, 0, 0, 2, 0, 0, 0]);
    }

    #[test]
    fn controller_information_and_health_poll_selection() {
        let mut r = responder();
        let ci = mi(&mut r, opcode::READ_DATA_STRUCTURE, (3 << 24) | 1, 0);
        assert_eq!((ci.status, ci.response_data_length(), ci.data.len()), (0, 32, 32));
        assert_eq!(ci.data[6], 1, "PCIe function of controller 1");
        let bad = mi(&mut r, opcode::READ_DATA_STRUCTURE, (3 << 24) | 9, 0);
        assert_eq!(pel_of(&bad), (0, offset::DWORD0));
        let bad = mi(&mut r, opcode::READ_DATA_STRUCTURE, 7 << 24, 0);
        assert_eq!(pel_of(&bad), (0, offset::DWORD0 + 3));
        let bad = mi(&mut r, opcode::READ_DATA_STRUCTURE, (1 << 24) | (2 << 16), 0);
        assert_eq!(pel_of(&bad), (0, offset::DWORD0 + 2));

        // No change yet: nothing to report unless Report All.
        let none = mi(&mut r, opcode::CONTROLLER_HEALTH_STATUS_POLL, 0, u32::from(change::ALL));
        assert_eq!((none.nmresp[0], none.data.len()), (0, 0));
        r.subsystem().lock().unwrap().update_health(|h| h.available_spare = 50);
        // Only the SPARE filter bit selects; start at controller 1; Clear Changed Flags.
        let ctemp_only = mi(&mut r, opcode::CONTROLLER_HEALTH_STATUS_POLL, 0, u32::from(change::CTEMP));
        assert_eq!(ctemp_only.nmresp[0], 0);
        let got = mi(
            &mut r,
            opcode::CONTROLLER_HEALTH_STATUS_POLL,
            1,
            u32::from(change::SPARE) | (1 << 31),
        );
        assert_eq!((got.nmresp[0], &got.data[..2], got.data[7]), (1, &[1u8, 0][..], 50));
        let again = mi(&mut r, opcode::CONTROLLER_HEALTH_STATUS_POLL, 0, u32::from(change::SPARE));
        assert_eq!((again.nmresp[0], &again.data[..2]), (1, &[0u8, 0][..]), "0 not cleared");
        // At most MAXRENT + 1 entries.
        let one = mi(&mut r, opcode::CONTROLLER_HEALTH_STATUS_POLL, 1 << 31, 0);
        assert_eq!(one.nmresp[0], 1);
    }

    #[test]
    fn configuration_set_changes_get_and_checks_its_fields() {
        let mut r = responder();
        let tu = |r: &mut NvmeMiResponder, port: u32| {
            mi(r, opcode::CONFIGURATION_GET, (port << 24) | 3, 0).nmresp
        };
        // The baseline until raised, though the port supports 251.
        assert_eq!(tu(&mut r, 0), [64, 0, 0]);
        let pi = mi(&mut r, opcode::READ_DATA_STRUCTURE, 1 << 24, 0);
        assert_eq!(&pi.data[2..4], &[251, 0]);
        assert_eq!(&pi.data[8..12], &[0x53, 2, 0x1D, 2], "addresses, 400 kHz max");
        assert_eq!(mi(&mut r, opcode::CONFIGURATION_SET, (1 << 24) | 3, 200).status, 0);
        assert_eq!((tu(&mut r, 1), tu(&mut r, 0)), ([200, 0, 0], [64, 0, 0]));
        for v in [63, 252, 0x1_0040] {
            let e = mi(&mut r, opcode::CONFIGURATION_SET, 3, v);
            assert_eq!(pel_of(&e), (0, offset::DWORD1), "TU {v}");
        }
        let e = mi(&mut r, opcode::CONFIGURATION_SET, (5 << 24) | 3, 100);
        assert_eq!(pel_of(&e), (0, offset::DWORD0 + 3));
        // SMBus frequency: 400 kHz is supported, 1 MHz is not.
        assert_eq!(mi(&mut r, opcode::CONFIGURATION_SET, (2 << 8) | 1, 0).status, 0);
        assert_eq!(mi(&mut r, opcode::CONFIGURATION_GET, 1, 0).nmresp, [2, 0, 0]);
        let e = mi(&mut r, opcode::CONFIGURATION_SET, (3 << 8) | 1, 0);
        assert_eq!(pel_of(&e), (0, offset::DWORD0 + 1));
        assert_eq!(r.port_config(0).unwrap().smbus_frequency, 2);
        // Health Status Change clears the CCS flags given in Dword 1.
        r.subsystem().lock().unwrap().update_health(|h| h.temperature_c = 40);
        assert_eq!(mi(&mut r, opcode::CONFIGURATION_SET, 2, u32::from(change::CTEMP)).status, 0);
        assert_eq!(r.subsystem().lock().unwrap().ccs(), 0);
        let e = mi(&mut r, opcode::CONFIGURATION_SET, 0x44, 0);
        assert_eq!(pel_of(&e), (0, offset::DWORD0));
    }

    #[test]
    fn more_processing_required_carries_mprt() {
        let mut r = NvmeMiResponder::new(SubsystemModel {
            in_progress_first: true,
            mprt_100ms: 3,
            ..Default::default()
        });
        let out = r.handle(
            &MiRequest {
                opcode: opcode::SUBSYSTEM_HEALTH_STATUS_POLL,
                dword0: 0,
                dword1: 0,
                data: vec![],
            }
            .encode()
            .unwrap(),
        );
        assert_eq!(out.len(), 2);
        assert_eq!(&out[0][..8], &[0x84, 0x88, 0, 0, 1, 0, 3, 0]);
        let first = MiResponse::decode(&out[0]).unwrap();
        assert_eq!(first.mprt(), Some(std::time::Duration::from_millis(300)));
        assert_eq!(MiResponse::decode(&out[1]).unwrap().status, 0);
    }

    /// Malformed requests get the right status and change nothing: the model, the port
    /// configuration and the answers to good requests are the same afterwards.
    #[test]
    fn malformed_requests_answered_and_nothing_disturbed() {
        let mut r = responder();
        let snapshot = |r: &mut NvmeMiResponder| {
            let model = r.subsystem().lock().unwrap().clone();
            let id = admin(
                r,
                &AdminRequest::new(0, AdminCommand::identify(cns::CONTROLLER, 0, 0), 0, 4096),
            );
            (
                model,
                r.ports.clone(),
                mi(r, opcode::SUBSYSTEM_HEALTH_STATUS_POLL, 0, 0),
                mi(r, opcode::CONFIGURATION_GET, 3, 0),
                id,
            )
        };
        let before = snapshot(&mut r);
        let hdr = |nmimt: Nmimt| NvmeMiHeader::request(nmimt);
        let answer = |r: &mut NvmeMiResponder, m: &[u8]| -> Vec<Vec<u8>> { r.handle(m) };

        // Short MI and Admin requests: Invalid Command Size, each with its NMIMT.
        let out = answer(&mut r, &nvme_mi::encode_oob(&hdr(Nmimt::MiCommand), &[1, 0, 0]).unwrap());
        assert_eq!(&out[0][..5], &[0x84, 0x88, 0, 0, status::INVALID_COMMAND_SIZE]);
        let out = answer(
            &mut r,
            &nvme_mi::encode_oob(&hdr(Nmimt::NvmeAdminCommand), &[6; 40]).unwrap(),
        );
        assert_eq!(&out[0][..5], &[0x84, 0x90, 0, 0, status::INVALID_COMMAND_SIZE]);
        // Bad MIC: no answer at all.
        let mut bad = AdminRequest::new(0, AdminCommand::identify(1, 0, 0), 0, 4096)
            .encode(false)
            .unwrap();
        *bad.last_mut().unwrap() ^= 0x80;
        assert!(answer(&mut r, &bad).is_empty());
        // Over 4224 octets: no answer.
        let long = vec![0u8; 4225];
        assert!(answer(&mut r, &long).is_empty());
        // A response is not answered.
        let resp = MiResponse::error(0).encode(false).unwrap();
        assert!(answer(&mut r, &resp).is_empty());
        // Unknown MI opcode; a PCIe command (not served): Invalid Command Opcode, NMIMT echoed.
        assert_eq!(mi(&mut r, 0x77, 0, 0).status, status::INVALID_OPCODE);
        let out = answer(&mut r, &nvme_mi::encode_oob(&hdr(Nmimt::PcieCommand), &[0; 12]).unwrap());
        assert_eq!(&out[0][..5], &[0x84, 0xA0, 0, 0, status::INVALID_OPCODE]);
        // MEB on a Control Primitive: Invalid Parameter at octet 2 bit 0.
        let mut m = vec![0x84, 0x00, 0x01, 0x00, 0, 0, 0, 0];
        nvme_mi::append_mic(&mut m);
        let out = answer(&mut r, &m);
        assert_eq!(&out[0][..8], &[0x84, 0x80, 0, 0, status::INVALID_PARAMETER, 0, 2, 0]);
        // MEB on a command (no ME Buffer here).
        let h = NvmeMiHeader { meb: true, ..hdr(Nmimt::NvmeAdminCommand) };
        let out = answer(&mut r, &nvme_mi::encode_oob(&h, &[0; 64]).unwrap());
        assert_eq!(&out[0][4..8], &[status::INVALID_PARAMETER, 0, 2, 0]);
        // Bad data offset, bad controller, bad NSID (the controller's error, in the CQE).
        let a = admin(&mut r, &AdminRequest::new(0, AdminCommand::identify(1, 0, 0), 4098, 4));
        assert_eq!((a.status, a.nmresp), (status::INVALID_PARAMETER, [0, 28, 0]));
        let a = admin(&mut r, &AdminRequest::new(9, AdminCommand::identify(1, 0, 0), 0, 4096));
        assert_eq!((a.status, a.nmresp), (status::INVALID_PARAMETER, [0, 6, 0]));
        assert_eq!(snapshot(&mut r), before, "MI-level errors change nothing");

        let a = admin(&mut r, &AdminRequest::new(0, AdminCommand::identify(0, 0, 77), 0, 4096));
        assert_eq!((a.status, a.nvme_status().field()), (0, 0x400B));
        let mut after = snapshot(&mut r);
        assert_eq!(after.0.error_log.len(), 1, "the controller logs its own error");
        after.0.error_log.clear();
        assert_eq!(after, before, "and nothing else");
    }
}
