//! NVMe-MI requester over the stack (NVMe-MI 1.2 §3.2 out of band): MI Command messages
//! (§5) and NVMe Admin Command messages (§6) sent with the MIC; only MIC-checked responses of
//! the request's type are accepted. The responder is in [`super::nvme_mi_responder`].
//!
//! ```text
//! MI request data     opcode · reserved(3) · NVMe-MI Dword 0 (LE) · Dword 1 (LE) · data
//! MI response data    status · NVMe Management Response (3 octets) · response data
//! ```
//! A responder may first answer "More Processing Required" (status 01h, with the time to wait
//! in MPRT) and the final response later, with the same tag: the requester keeps waiting, as
//! the kernel's tag rules allow several responses to one request.

use super::addr::{SockAddr, NET_ANY, TYPE_NVME_MI};
use super::endpoint::{Endpoint, Socket};
use super::error::StackError;
use crate::nvme::admin::AdminCommand;
use crate::nvme_mi::admin::{AdminMessageError, AdminRequest, AdminResponse, MAX_DATA_LEN};
use crate::nvme_mi::{self, Nmimt, NvmeMiError, NvmeMiHeader};
use std::time::{Duration, Instant};

pub use crate::nvme_mi::mi_command::{config_id, data_structure, opcode};
pub use crate::nvme_mi::status;

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
        self.encode_as(Nmimt::MiCommand, csi)
    }

    /// The same response fields under another message type: the answer to a request of a
    /// type the endpoint does not serve carries the request's NMIMT.
    pub fn encode_as(&self, nmimt: Nmimt, csi: bool) -> Result<Vec<u8>, NvmeMiError> {
        let h = NvmeMiHeader {
            response: true,
            csi,
            ..NvmeMiHeader::request(nmimt)
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

    /// The Parameter Error Location of an Invalid Parameter response.
    pub fn parameter_error_location(&self) -> Option<nvme_mi::ParameterErrorLocation> {
        (self.status == status::INVALID_PARAMETER)
            .then(|| nvme_mi::ParameterErrorLocation::from_nmresp(self.nmresp))
    }

    /// The More Processing Required Time of a More Processing Required response.
    pub fn mprt(&self) -> Option<Duration> {
        (self.status == status::MORE_PROCESSING_REQUIRED)
            .then(|| nvme_mi::mprt_of_nmresp(self.nmresp))
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
    #[error(transparent)]
    Admin(#[from] AdminMessageError),
    #[error("NVMe-MI status: {} (0x{status:x})", status::describe(*status))]
    MiStatus { status: u8, nmresp: [u8; 3] },
    #[error("NVMe status: {0}")]
    Nvme(crate::nvme::NvmeStatus),
    #[error("no final response within {0:?}")]
    Timeout(Duration),
}

/// The final response and what came before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply<R> {
    pub response: R,
    /// "More Processing Required" responses received first.
    pub in_progress: usize,
    /// Messages dropped on the way (bad MIC, not a response of the request's type).
    pub rejected: usize,
}

/// The reply to an MI command.
pub type MiReply = Reply<MiResponse>;
/// The reply to an Admin command.
pub type AdminReply = Reply<AdminResponse>;

/// An NVMe-MI requester (Management Controller side).
#[derive(Debug)]
pub struct NvmeMiClient {
    sock: Socket,
    /// How long to wait for each response; a More Processing Required response extends the
    /// wait to its MPRT when that is longer.
    pub timeout: Duration,
}

impl NvmeMiClient {
    pub fn new(ep: &Endpoint) -> NvmeMiClient {
        NvmeMiClient {
            sock: ep.socket(),
            timeout: Duration::from_secs(1),
        }
    }

    /// Sends `msg` to `eid` and waits for the final response that `decode` accepts;
    /// `mprt` recognises More Processing Required responses.
    fn exchange<R>(
        &self,
        eid: u8,
        msg: &[u8],
        decode: impl Fn(&[u8]) -> Option<R>,
        mprt: impl Fn(&R) -> Option<Duration>,
    ) -> Result<Reply<R>, NvmeMiClientError> {
        let to = SockAddr::owner(NET_ANY, eid, TYPE_NVME_MI);
        self.sock.send_to(msg, &to)?;
        let (mut in_progress, mut rejected) = (0, 0);
        let mut wait = self.timeout;
        let mut deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (m, _) = match self.sock.recv_from(Some(left)) {
                Ok(x) => x,
                Err(StackError::Again(_)) => return Err(NvmeMiClientError::Timeout(wait)),
                Err(e) => return Err(e.into()),
            };
            match decode(&m) {
                Some(r) => match mprt(&r) {
                    Some(t) => {
                        in_progress += 1;
                        wait = t.max(self.timeout);
                        deadline = Instant::now() + wait;
                    }
                    None => {
                        return Ok(Reply {
                            response: r,
                            in_progress,
                            rejected,
                        })
                    }
                },
                // §3.2.1.1: a message failing the MIC is discarded.
                None => rejected += 1,
            }
        }
    }

    /// Sends a whole request message (header, data, MIC) of any NVMe-MI type and returns
    /// the final response message: MIC-checked, a response of the request's NMIMT; More
    /// Processing Required responses (8 octets and the MIC, status 01h) are waited past.
    pub fn transact(&self, eid: u8, msg: &[u8]) -> Result<Reply<Vec<u8>>, NvmeMiClientError> {
        let req = NvmeMiHeader::decode(msg)?;
        self.exchange(
            eid,
            msg,
            |m| {
                let (h, _) = nvme_mi::decode_oob(m).ok()?;
                (h.response && h.nmimt == req.nmimt).then(|| m.to_vec())
            },
            |m: &Vec<u8>| {
                (m.len() == 8 + nvme_mi::MIC_LEN && m[4] == status::MORE_PROCESSING_REQUIRED)
                    .then(|| nvme_mi::mprt_of_nmresp([m[5], m[6], m[7]]))
            },
        )
    }

    /// Sends one MI command to `eid` and waits for its final response.
    pub fn command(&self, eid: u8, req: &MiRequest) -> Result<MiReply, NvmeMiClientError> {
        self.exchange(
            eid,
            &req.encode()?,
            |m| MiResponse::decode(m).ok(),
            MiResponse::mprt,
        )
    }

    /// Sends one Admin command message and waits for its final response (an MI error
    /// included: it is the caller's to interpret).
    pub fn admin(&self, eid: u8, req: &AdminRequest) -> Result<AdminReply, NvmeMiClientError> {
        self.exchange(
            eid,
            &req.encode(false)?,
            |m| AdminResponse::decode(m).ok(),
            AdminResponse::mprt,
        )
    }

    /// An Admin command that must succeed at both levels; returns the completion.
    pub fn admin_ok(&self, eid: u8, req: &AdminRequest) -> Result<AdminResponse, NvmeMiClientError> {
        let r = self.admin(eid, req)?.response;
        if r.is_mi_error() {
            return Err(NvmeMiClientError::MiStatus {
                status: r.status,
                nmresp: r.nmresp,
            });
        }
        if !r.nvme_status().is_success() {
            return Err(NvmeMiClientError::Nvme(r.nvme_status()));
        }
        Ok(r)
    }

    /// Identify (4096 octets) of controller `ctrl`.
    pub fn identify(
        &self,
        eid: u8,
        ctrl: u16,
        cns: u8,
        cntid: u16,
        nsid: u32,
    ) -> Result<Vec<u8>, NvmeMiClientError> {
        let cmd = AdminCommand::identify(cns, cntid, nsid);
        let r = self.admin_ok(
            eid,
            &AdminRequest::new(ctrl, cmd, 0, crate::nvme::identify::DATA_LEN as u32),
        )?;
        Ok(r.data)
    }

    /// Get Log Page of `len` octets, in messages of at most 4 KiB moving the Log Page
    /// Offset, as libnvme does; a shorter answer ends the page.
    pub fn get_log_page(
        &self,
        eid: u8,
        ctrl: u16,
        lid: u8,
        nsid: u32,
        len: usize,
    ) -> Result<Vec<u8>, NvmeMiClientError> {
        let mut out = Vec::with_capacity(len.min(1 << 20));
        while out.len() < len {
            let chunk = (len - out.len()).min(MAX_DATA_LEN) as u32 & !3;
            if chunk == 0 {
                break;
            }
            let cmd = AdminCommand::get_log_page(lid, nsid, out.len() as u64, chunk);
            let r = self.admin_ok(eid, &AdminRequest::new(ctrl, cmd, 0, chunk))?;
            let got = r.data.len();
            out.extend_from_slice(&r.data);
            if got < chunk as usize {
                break;
            }
        }
        Ok(out)
    }

    /// Get Features: CQE DW0.
    pub fn get_features(
        &self,
        eid: u8,
        ctrl: u16,
        fid: u8,
        sel: u8,
        cdw11: u32,
    ) -> Result<u32, NvmeMiClientError> {
        let cmd = AdminCommand::get_features(fid, sel, cdw11);
        Ok(self.admin_ok(eid, &AdminRequest::new(ctrl, cmd, 0, 0))?.cdw0)
    }

    /// Set Features (not saved): CQE DW0.
    pub fn set_features(
        &self,
        eid: u8,
        ctrl: u16,
        fid: u8,
        cdw11: u32,
    ) -> Result<u32, NvmeMiClientError> {
        let cmd = AdminCommand::set_features(fid, cdw11);
        Ok(self.admin_ok(eid, &AdminRequest::new(ctrl, cmd, 0, 0))?.cdw0)
    }

    fn mi(&self, eid: u8, opcode: u8, dword0: u32, dword1: u32) -> Result<MiReply, NvmeMiClientError> {
        self.command(
            eid,
            &MiRequest {
                opcode,
                dword0,
                dword1,
                data: vec![],
            },
        )
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
        self.mi(eid, opcode::READ_DATA_STRUCTURE, dword0, 0)
    }

    /// NVM Subsystem Health Status Poll.
    pub fn health_status_poll(&self, eid: u8) -> Result<MiReply, NvmeMiClientError> {
        self.subsystem_health_status_poll(eid, false)
    }

    /// NVM Subsystem Health Status Poll; `clear` sets Clear Status (Dword 1 bit 31): the
    /// CCS flags reported are cleared after the read.
    pub fn subsystem_health_status_poll(
        &self,
        eid: u8,
        clear: bool,
    ) -> Result<MiReply, NvmeMiClientError> {
        self.mi(
            eid,
            opcode::SUBSYSTEM_HEALTH_STATUS_POLL,
            0,
            u32::from(clear) << 31,
        )
    }

    /// Controller Health Status Poll with the raw Dword 0 (start, entries, ALL) and Dword 1
    /// (change filter, Clear Changed Flags); see the responder for the fields.
    pub fn controller_health_status_poll(
        &self,
        eid: u8,
        dword0: u32,
        dword1: u32,
    ) -> Result<MiReply, NvmeMiClientError> {
        self.mi(eid, opcode::CONTROLLER_HEALTH_STATUS_POLL, dword0, dword1)
    }

    /// Configuration Get of `id` for `port`.
    pub fn configuration_get(
        &self,
        eid: u8,
        id: u8,
        port: u8,
    ) -> Result<MiReply, NvmeMiClientError> {
        let dword0 = (u32::from(port) << 24) | u32::from(id);
        self.mi(eid, opcode::CONFIGURATION_GET, dword0, 0)
    }

    /// Configuration Set with the raw dwords (identifier in Dword 0 bits 7:0).
    pub fn configuration_set(
        &self,
        eid: u8,
        dword0: u32,
        dword1: u32,
    ) -> Result<MiReply, NvmeMiClientError> {
        self.mi(eid, opcode::CONFIGURATION_SET, dword0, dword1)
    }
}
