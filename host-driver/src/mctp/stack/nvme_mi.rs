//! NVMe-MI over the stack (NVMe-MI §3.2 out-of-band, §5 Management Interface commands): a
//! requester that sends MI Command messages with the MIC and accepts only MIC-checked
//! responses, and a small responder (Read NVMe-MI Data Structure, NVM Subsystem Health
//! Status Poll, Configuration Get) for tests and demos.
//!
//! ```text
//! request data   opcode · reserved(3) · NVMe-MI Dword 0 (LE) · Dword 1 (LE) · request data
//! response data  status · NVMe Management Response (3 octets) · response data
//! ```
//! A responder may first answer "More Processing Required" (status 01h) and the final
//! response later, with the same tag: the requester keeps waiting, as the kernel's tag rules
//! allow several responses to one request.

use super::addr::{SockAddr, ADDR_ANY, NET_ANY, TYPE_NVME_MI};
use super::control_endpoint::{spawn_service, ServiceHandle};
use super::endpoint::{Endpoint, Socket};
use super::error::StackError;
use crate::nvme_mi::{self, Nmimt, NvmeMiError, NvmeMiHeader};
use std::time::{Duration, Instant};

/// Management Interface command opcodes (NVMe-MI Figure 68).
pub mod opcode {
    pub const READ_DATA_STRUCTURE: u8 = 0x00;
    pub const SUBSYSTEM_HEALTH_STATUS_POLL: u8 = 0x01;
    pub const CONTROLLER_HEALTH_STATUS_POLL: u8 = 0x02;
    pub const CONFIGURATION_SET: u8 = 0x03;
    pub const CONFIGURATION_GET: u8 = 0x04;
}

/// Response Message Status values (NVMe-MI Figure 29).
pub mod status {
    pub const SUCCESS: u8 = 0x00;
    pub const MORE_PROCESSING_REQUIRED: u8 = 0x01;
    pub const INTERNAL_ERROR: u8 = 0x02;
    pub const INVALID_OPCODE: u8 = 0x03;
    pub const INVALID_PARAMETER: u8 = 0x04;
    pub const INVALID_COMMAND_SIZE: u8 = 0x05;
}

/// Read NVMe-MI Data Structure types (Dword 0 bits 31:24).
pub mod data_structure {
    pub const SUBSYSTEM_INFORMATION: u8 = 0x00;
    pub const PORT_INFORMATION: u8 = 0x01;
    pub const CONTROLLER_LIST: u8 = 0x02;
}

/// Configuration identifiers (Configuration Get, Dword 0 bits 7:0).
pub mod config_id {
    pub const SMBUS_FREQUENCY: u8 = 0x01;
    pub const HEALTH_STATUS_CHANGE: u8 = 0x02;
    pub const MCTP_TRANSMISSION_UNIT: u8 = 0x03;
}

/// Octets before the request data: opcode, reserved, two dwords.
pub const REQUEST_FIXED: usize = 12;
/// Octets before the response data: status and the 3-octet management response.
pub const RESPONSE_FIXED: usize = 4;

/// An MI command request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiRequest {
    pub opcode: u8,
    pub dword0: u32,
    pub dword1: u32,
    pub data: Vec<u8>,
}

impl MiRequest {
    /// The whole out-of-band message: header, request, MIC.
    pub fn encode(&self) -> Result<Vec<u8>, NvmeMiError> {
        let mut d = Vec::with_capacity(REQUEST_FIXED + self.data.len());
        d.extend_from_slice(&[self.opcode, 0, 0, 0]);
        d.extend_from_slice(&self.dword0.to_le_bytes());
        d.extend_from_slice(&self.dword1.to_le_bytes());
        d.extend_from_slice(&self.data);
        nvme_mi::encode_oob(&NvmeMiHeader::request(Nmimt::MiCommand), &d)
    }

    /// The request part of a message's data (after the NVMe-MI header).
    pub fn decode_data(d: &[u8]) -> Result<MiRequest, NvmeMiError> {
        if d.len() < REQUEST_FIXED {
            return Err(NvmeMiError::Short {
                len: d.len() + nvme_mi::HEADER_LEN,
                need: REQUEST_FIXED + nvme_mi::HEADER_LEN,
            });
        }
        let dw = |i: usize| u32::from_le_bytes(d[i..i + 4].try_into().expect("4 octets"));
        Ok(MiRequest {
            opcode: d[0],
            dword0: dw(4),
            dword1: dw(8),
            data: d[REQUEST_FIXED..].to_vec(),
        })
    }
}

/// An MI command response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiResponse {
    pub status: u8,
    /// NVMe Management Response (octets 5–7 of the message).
    pub nmresp: [u8; 3],
    pub data: Vec<u8>,
}

impl MiResponse {
    pub fn error(status: u8) -> MiResponse {
        MiResponse {
            status,
            nmresp: [0; 3],
            data: Vec::new(),
        }
    }

    /// The whole out-of-band message, answering slot `csi`.
    pub fn encode(&self, csi: bool) -> Result<Vec<u8>, NvmeMiError> {
        let h = NvmeMiHeader {
            response: true,
            csi,
            ..NvmeMiHeader::request(Nmimt::MiCommand)
        };
        let mut d = Vec::with_capacity(RESPONSE_FIXED + self.data.len());
        d.push(self.status);
        d.extend_from_slice(&self.nmresp);
        d.extend_from_slice(&self.data);
        nvme_mi::encode_oob(&h, &d)
    }

    /// Checks a whole message (limit, MIC, header: a response of type MI Command).
    pub fn decode(msg: &[u8]) -> Result<MiResponse, NvmeMiClientError> {
        let (h, d) = nvme_mi::decode_oob(msg)?;
        if !h.response || h.nmimt != Nmimt::MiCommand {
            return Err(NvmeMiClientError::NotMiResponse);
        }
        if d.len() < RESPONSE_FIXED {
            return Err(NvmeMiError::Short {
                len: msg.len(),
                need: nvme_mi::HEADER_LEN + RESPONSE_FIXED + nvme_mi::MIC_LEN,
            }
            .into());
        }
        Ok(MiResponse {
            status: d[0],
            nmresp: [d[1], d[2], d[3]],
            data: d[RESPONSE_FIXED..].to_vec(),
        })
    }

    /// Response data length from the management response (Read NVMe-MI Data Structure).
    pub fn response_data_length(&self) -> u16 {
        u16::from_le_bytes([self.nmresp[0], self.nmresp[1]])
    }
}

/// Why an MI command got no good answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NvmeMiClientError {
    #[error(transparent)]
    Stack(#[from] StackError),
    #[error(transparent)]
    Message(#[from] NvmeMiError),
    #[error("not an MI Command response")]
    NotMiResponse,
    #[error("no final response within {0:?}")]
    Timeout(Duration),
}

/// The final response and what came before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MiReply {
    pub response: MiResponse,
    /// "More Processing Required" responses received first.
    pub in_progress: usize,
    /// Messages dropped on the way (bad MIC, not a response).
    pub rejected: usize,
}

/// An NVMe-MI requester (Management Controller side).
#[derive(Debug)]
pub struct NvmeMiClient {
    sock: Socket,
    /// How long to wait for each response (an in-progress one restarts it).
    pub timeout: Duration,
}

impl NvmeMiClient {
    pub fn new(ep: &Endpoint) -> NvmeMiClient {
        NvmeMiClient {
            sock: ep.socket(),
            timeout: Duration::from_secs(1),
        }
    }

    /// Sends one MI command to `eid` and waits for its final response.
    pub fn command(&self, eid: u8, req: &MiRequest) -> Result<MiReply, NvmeMiClientError> {
        let to = SockAddr::owner(NET_ANY, eid, TYPE_NVME_MI);
        self.sock.send_to(&req.encode()?, &to)?;
        let mut reply = MiReply {
            response: MiResponse::error(0),
            in_progress: 0,
            rejected: 0,
        };
        let mut deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (m, _) = match self.sock.recv_from(Some(left)) {
                Ok(x) => x,
                Err(StackError::Again(_)) => return Err(NvmeMiClientError::Timeout(self.timeout)),
                Err(e) => return Err(e.into()),
            };
            match MiResponse::decode(&m) {
                Ok(r) if r.status == status::MORE_PROCESSING_REQUIRED => {
                    reply.in_progress += 1;
                    deadline = Instant::now() + self.timeout;
                }
                Ok(r) => {
                    reply.response = r;
                    return Ok(reply);
                }
                // §3.2.1.1: a message failing the MIC is discarded.
                Err(_) => reply.rejected += 1,
            }
        }
    }

    /// Read NVMe-MI Data Structure of `dtype` (port/controller selectors in Dword 0).
    pub fn read_data_structure(
        &self,
        eid: u8,
        dtype: u8,
        port: u8,
        controller: u16,
    ) -> Result<MiReply, NvmeMiClientError> {
        let dword0 = (u32::from(dtype) << 24) | (u32::from(port) << 16) | u32::from(controller);
        self.command(
            eid,
            &MiRequest {
                opcode: opcode::READ_DATA_STRUCTURE,
                dword0,
                dword1: 0,
                data: vec![],
            },
        )
    }

    /// NVM Subsystem Health Status Poll.
    pub fn health_status_poll(&self, eid: u8) -> Result<MiReply, NvmeMiClientError> {
        self.command(
            eid,
            &MiRequest {
                opcode: opcode::SUBSYSTEM_HEALTH_STATUS_POLL,
                dword0: 0,
                dword1: 0,
                data: vec![],
            },
        )
    }

    /// Configuration Get of `id` for `port`.
    pub fn configuration_get(
        &self,
        eid: u8,
        id: u8,
        port: u8,
    ) -> Result<MiReply, NvmeMiClientError> {
        let dword0 = (u32::from(port) << 24) | u32::from(id);
        self.command(
            eid,
            &MiRequest {
                opcode: opcode::CONFIGURATION_GET,
                dword0,
                dword1: 0,
                data: vec![],
            },
        )
    }
}

/// What the demo subsystem reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubsystemModel {
    /// Ports (1..=256); port 0 is the SMBus/I2C port the MCTP traffic uses.
    pub ports: u16,
    /// NVMe-MI version (major, minor).
    pub version: (u8, u8),
    /// Composite temperature, degrees Celsius.
    pub temperature_c: i8,
    /// Percentage drive life used.
    pub life_used: u8,
    /// MCTP transmission unit of port 0 (payload octets).
    pub mtu: u16,
    /// SMBus/I2C frequency code (1: 100 kHz, 2: 400 kHz, 3: 1 MHz).
    pub smbus_frequency: u8,
    /// Answer Health Status Poll with "More Processing Required" before the final response.
    pub in_progress_first: bool,
}

impl Default for SubsystemModel {
    fn default() -> Self {
        SubsystemModel {
            ports: 1,
            version: (1, 2),
            temperature_c: 37,
            life_used: 3,
            mtu: 64,
            smbus_frequency: 1,
            in_progress_first: false,
        }
    }
}

/// A small NVMe-MI Management Endpoint.
#[derive(Debug, Clone, Default)]
pub struct NvmeMiResponder {
    pub model: SubsystemModel,
}

impl NvmeMiResponder {
    pub fn new(model: SubsystemModel) -> Self {
        NvmeMiResponder { model }
    }

    /// The responses to one request message, in order (none for a message that fails the MIC
    /// or is not a request).
    pub fn handle(&self, msg: &[u8]) -> Vec<Vec<u8>> {
        let Ok((h, d)) = nvme_mi::decode_oob(msg) else {
            return Vec::new();
        };
        if h.response {
            return Vec::new();
        }
        let mut out = Vec::new();
        let resp = if h.nmimt != Nmimt::MiCommand {
            MiResponse::error(status::INVALID_OPCODE)
        } else {
            match MiRequest::decode_data(d) {
                Err(_) => MiResponse::error(status::INVALID_COMMAND_SIZE),
                Ok(req) => {
                    if self.model.in_progress_first
                        && req.opcode == opcode::SUBSYSTEM_HEALTH_STATUS_POLL
                    {
                        out.extend(
                            MiResponse::error(status::MORE_PROCESSING_REQUIRED).encode(h.csi),
                        );
                    }
                    self.execute(&req)
                }
            }
        };
        out.extend(resp.encode(h.csi));
        out
    }

    fn execute(&self, req: &MiRequest) -> MiResponse {
        let m = &self.model;
        let ok = |nmresp: [u8; 3], data: Vec<u8>| MiResponse {
            status: status::SUCCESS,
            nmresp,
            data,
        };
        match req.opcode {
            opcode::READ_DATA_STRUCTURE => {
                let dtype = (req.dword0 >> 24) as u8;
                let port = (req.dword0 >> 16) as u8;
                let data = match dtype {
                    data_structure::SUBSYSTEM_INFORMATION => {
                        let mut d = vec![0u8; 32];
                        d[0] = (m.ports.max(1) - 1) as u8; // NUMP is 0's based
                        d[1] = m.version.0;
                        d[2] = m.version.1;
                        d
                    }
                    data_structure::PORT_INFORMATION if u16::from(port) < m.ports => {
                        let mut d = vec![0u8; 32];
                        d[0] = 2; // port type: SMBus/I2C
                        d[2..4].copy_from_slice(&m.mtu.to_le_bytes()); // max MCTP TU size
                        d
                    }
                    data_structure::CONTROLLER_LIST => vec![1, 0, 0, 0], // one controller, ID 0
                    _ => return MiResponse::error(status::INVALID_PARAMETER),
                };
                let len = (data.len() as u16).to_le_bytes();
                ok([len[0], len[1], 0], data)
            }
            opcode::SUBSYSTEM_HEALTH_STATUS_POLL => {
                // NSS: drive functional (5), reset not required (4); SW: no warnings (1 = ok).
                ok(
                    [0; 3],
                    vec![0x30, 0xFF, m.temperature_c as u8, m.life_used, 0, 0, 0, 0],
                )
            }
            opcode::CONFIGURATION_GET => {
                let port = (req.dword0 >> 24) as u16;
                if port >= m.ports {
                    return MiResponse::error(status::INVALID_PARAMETER);
                }
                match req.dword0 as u8 {
                    config_id::SMBUS_FREQUENCY => ok([m.smbus_frequency & 0x0F, 0, 0], vec![]),
                    config_id::HEALTH_STATUS_CHANGE => ok([0; 3], vec![]),
                    config_id::MCTP_TRANSMISSION_UNIT => {
                        let b = m.mtu.to_le_bytes();
                        ok([b[0], b[1], 0], vec![])
                    }
                    _ => MiResponse::error(status::INVALID_PARAMETER),
                }
            }
            _ => MiResponse::error(status::INVALID_OPCODE),
        }
    }

    /// Binds an NVMe-MI socket on `ep` and answers on a thread until the handle is dropped.
    pub fn spawn(self, ep: &Endpoint) -> Result<ServiceHandle, StackError> {
        let sock = ep.socket();
        sock.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, TYPE_NVME_MI))?;
        spawn_service("mctp-nvme-mi", sock, move |sock, msg, from| {
            for r in self.handle(&msg) {
                let _ = sock.send_to(&r, &from.reply());
            }
        })
    }
}
