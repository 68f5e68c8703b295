//! NVMe Admin Command messages (NMIMT 2; NVMe-MI 1.2 §6, "NVMe Admin Command Set"): the
//! request carries the submission queue entry's dwords plus a data offset and length, the
//! response the completion queue entry's DW0, DW1, DW3 and at most 4 KiB of the command's
//! data. The layout is libnvme's `struct nvme_mi_admin_req_hdr` / `nvme_mi_admin_resp_hdr`.
//!
//! ```text
//! request   hdr(4) · opcode · flags · controller ID(2) · CDW1..CDW5 · DOFST · DLEN ·
//!           reserved(8) · CDW10..CDW15 · request data · MIC
//! response  hdr(4) · status · reserved(3) · CQE DW0 · DW1 · DW3 · response data · MIC
//! error     hdr(4) · status · NVMe Management Response(3) · MIC
//! ```
//! Data offset and length (§6.1, Figure 136's DOFST and DLEN): both are octet counts that are
//! multiples of 4, DLEN is at most 4096, and DOFST + DLEN may not pass the end of the data the
//! command returns; otherwise the Management Endpoint answers Invalid Parameter with the
//! location of the field. NVMe-MI 1.1's flags (bit 0: DLEN valid, bit 1: DOFST valid) are
//! reserved in 1.2, where both fields are always used; so they are here.

use super::{
    decode_oob, encode_oob, mprt_nmresp, status, Nmimt, NvmeMiError, NvmeMiHeader,
    ParameterErrorLocation,
};
use crate::nvme::admin::{self, AdminCommand};
use crate::nvme::status::NvmeStatus;
use crate::nvme::subsystem::Subsystem;

/// Octets of the request after the message header (opcode through CDW15).
pub const REQUEST_FIXED: usize = 64;
/// Octets of a completed response after the message header (status through DW3).
pub const RESPONSE_FIXED: usize = 16;
/// The most response data one message carries (DLEN's limit).
pub const MAX_DATA_LEN: usize = 4096;

/// Octet offsets of the request fields from the start of the message, for the Parameter
/// Error Location.
pub mod offset {
    pub const OPCODE: u16 = 4;
    pub const FLAGS: u16 = 5;
    pub const CONTROLLER_ID: u16 = 6;
    pub const CDW1: u16 = 8;
    pub const DOFST: u16 = 28;
    pub const DLEN: u16 = 32;
    pub const CDW10: u16 = 44;
}

/// Why octets are not an Admin command request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdminMessageError {
    #[error(transparent)]
    Message(#[from] NvmeMiError),
    #[error("{0:?} message where an NVMe Admin Command message was expected")]
    WrongType(Nmimt),
    #[error("a request where a response was expected, or the reverse")]
    WrongDirection,
    #[error("Admin command message data of {len} octets is shorter than its {need}-octet header")]
    Short { len: usize, need: usize },
}

/// An Admin command request message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminRequest {
    pub controller_id: u16,
    pub flags: u8,
    /// CDW2..CDW5 (reserved or command specific; carried as sent).
    pub cdw2_5: [u32; 4],
    pub data_offset: u32,
    pub data_len: u32,
    /// Opcode, CDW1 (NSID), CDW10..CDW15 and the request data.
    pub command: AdminCommand,
}

fn le32(d: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([d[at], d[at + 1], d[at + 2], d[at + 3]])
}

impl AdminRequest {
    /// A request for the whole of `len` octets of the command's data from `offset`.
    pub fn new(controller_id: u16, command: AdminCommand, offset: u32, len: u32) -> Self {
        AdminRequest {
            controller_id,
            flags: 0x01 | if offset != 0 { 0x02 } else { 0 },
            cdw2_5: [0; 4],
            data_offset: offset,
            data_len: len,
            command,
        }
    }

    /// The whole out-of-band message (header, request, MIC) for command slot `csi`.
    pub fn encode(&self, csi: bool) -> Result<Vec<u8>, NvmeMiError> {
        let c = &self.command;
        let mut d = Vec::with_capacity(REQUEST_FIXED + c.data.len());
        d.extend_from_slice(&[c.opcode, self.flags]);
        d.extend_from_slice(&self.controller_id.to_le_bytes());
        d.extend_from_slice(&c.nsid.to_le_bytes());
        for w in self.cdw2_5 {
            d.extend_from_slice(&w.to_le_bytes());
        }
        d.extend_from_slice(&self.data_offset.to_le_bytes());
        d.extend_from_slice(&self.data_len.to_le_bytes());
        d.extend_from_slice(&[0; 8]);
        for w in c.cdw {
            d.extend_from_slice(&w.to_le_bytes());
        }
        d.extend_from_slice(&c.data);
        let h = NvmeMiHeader {
            csi,
            ..NvmeMiHeader::request(Nmimt::NvmeAdminCommand)
        };
        encode_oob(&h, &d)
    }

    /// The request in a message's data (after the NVMe-MI header, MIC removed).
    pub fn decode_data(d: &[u8]) -> Result<AdminRequest, AdminMessageError> {
        if d.len() < REQUEST_FIXED {
            return Err(AdminMessageError::Short {
                len: d.len(),
                need: REQUEST_FIXED,
            });
        }
        let dw = |i: usize| le32(d, i);
        Ok(AdminRequest {
            controller_id: u16::from_le_bytes([d[2], d[3]]),
            flags: d[1],
            cdw2_5: [dw(8), dw(12), dw(16), dw(20)],
            data_offset: dw(24),
            data_len: dw(28),
            command: AdminCommand {
                opcode: d[0],
                nsid: dw(4),
                cdw: [dw(40), dw(44), dw(48), dw(52), dw(56), dw(60)],
                data: d[REQUEST_FIXED..].to_vec(),
            },
        })
    }

    /// Checks and decodes a whole out-of-band request message.
    pub fn decode(msg: &[u8]) -> Result<(NvmeMiHeader, AdminRequest), AdminMessageError> {
        let (h, d) = decode_oob(msg)?;
        if h.nmimt != Nmimt::NvmeAdminCommand {
            return Err(AdminMessageError::WrongType(h.nmimt));
        }
        if h.response {
            return Err(AdminMessageError::WrongDirection);
        }
        Ok((h, AdminRequest::decode_data(d)?))
    }

    /// The DOFST/DLEN checks that need no knowledge of the command (§6.1).
    pub fn check_data_fields(&self) -> Result<(), ParameterErrorLocation> {
        if self.data_len as usize > MAX_DATA_LEN || self.data_len % 4 != 0 {
            return Err(ParameterErrorLocation::at(offset::DLEN, 0));
        }
        if self.data_offset % 4 != 0 {
            return Err(ParameterErrorLocation::at(offset::DOFST, 0));
        }
        Ok(())
    }
}

/// An Admin command response message: a completion, or an NVMe-MI error (then the CQE
/// dwords are absent and `nmresp` says more, e.g. the Parameter Error Location).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminResponse {
    /// NVMe-MI Response Message Status.
    pub status: u8,
    /// Octets 5..7: reserved in a completion; PEL or MPRT otherwise.
    pub nmresp: [u8; 3],
    pub cdw0: u32,
    pub cdw1: u32,
    pub cdw3: u32,
    pub data: Vec<u8>,
}

impl AdminResponse {
    /// An NVMe-MI error (or More Processing Required) response.
    pub fn mi_status(status: u8, nmresp: [u8; 3]) -> AdminResponse {
        AdminResponse {
            status,
            nmresp,
            cdw0: 0,
            cdw1: 0,
            cdw3: 0,
            data: Vec::new(),
        }
    }

    pub fn invalid_parameter(pel: ParameterErrorLocation) -> AdminResponse {
        AdminResponse::mi_status(status::INVALID_PARAMETER, pel.nmresp())
    }

    pub fn more_processing_required(mprt_100ms: u16) -> AdminResponse {
        AdminResponse::mi_status(status::MORE_PROCESSING_REQUIRED, mprt_nmresp(mprt_100ms))
    }

    /// The wait a More Processing Required response asks for.
    pub fn mprt(&self) -> Option<std::time::Duration> {
        (self.status == status::MORE_PROCESSING_REQUIRED).then(|| super::mprt_of_nmresp(self.nmresp))
    }

    /// The completion's NVMe status (CQE DW3 bits 31:17).
    pub fn nvme_status(&self) -> NvmeStatus {
        NvmeStatus::from_cqe_dw3(self.cdw3)
    }

    /// True for an MI-level answer without CQE dwords.
    pub fn is_mi_error(&self) -> bool {
        self.status != status::SUCCESS
    }

    /// The whole out-of-band message answering slot `csi`.
    pub fn encode(&self, csi: bool) -> Result<Vec<u8>, NvmeMiError> {
        let h = NvmeMiHeader {
            response: true,
            csi,
            ..NvmeMiHeader::request(Nmimt::NvmeAdminCommand)
        };
        let mut d = Vec::with_capacity(RESPONSE_FIXED + self.data.len());
        d.push(self.status);
        if self.is_mi_error() {
            d.extend_from_slice(&self.nmresp);
        } else {
            d.extend_from_slice(&[0; 3]);
            for w in [self.cdw0, self.cdw1, self.cdw3] {
                d.extend_from_slice(&w.to_le_bytes());
            }
            d.extend_from_slice(&self.data);
        }
        encode_oob(&h, &d)
    }

    /// Checks and decodes a whole response message (limit, MIC, type Admin, response).
    pub fn decode(msg: &[u8]) -> Result<AdminResponse, AdminMessageError> {
        let (h, d) = decode_oob(msg)?;
        if h.nmimt != Nmimt::NvmeAdminCommand {
            return Err(AdminMessageError::WrongType(h.nmimt));
        }
        if !h.response {
            return Err(AdminMessageError::WrongDirection);
        }
        let need = if d.first().is_some_and(|&s| s != status::SUCCESS) {
            4
        } else {
            RESPONSE_FIXED
        };
        if d.len() < need {
            return Err(AdminMessageError::Short { len: d.len(), need });
        }
        if need == 4 {
            return Ok(AdminResponse::mi_status(d[0], [d[1], d[2], d[3]]));
        }
        Ok(AdminResponse {
            status: d[0],
            nmresp: [d[1], d[2], d[3]],
            cdw0: le32(d, 4),
            cdw1: le32(d, 8),
            cdw3: le32(d, 12),
            data: d[RESPONSE_FIXED..].to_vec(),
        })
    }
}

/// Executes `req` on `s` as a Management Endpoint does: the controller must exist and the
/// data fields be valid (else Invalid Parameter, and the command has no effect); the answer
/// carries the completion and the requested window of the command's data.
pub fn respond(s: &mut Subsystem, req: &AdminRequest) -> AdminResponse {
    if let Err(pel) = req.check_data_fields() {
        return AdminResponse::invalid_parameter(pel);
    }
    if s.controller(req.controller_id).is_none() {
        return AdminResponse::invalid_parameter(ParameterErrorLocation::at(
            offset::CONTROLLER_ID,
            0,
        ));
    }
    // Run on a copy, so a command the window rules reject leaves no trace.
    let mut trial = s.clone();
    let c = admin::execute(&mut trial, req.controller_id, &req.command);
    let (off, len) = (req.data_offset as u64, req.data_len as u64);
    if c.status.is_success() && len > 0 && off + len > c.data_len {
        let field = if off >= c.data_len {
            offset::DOFST
        } else {
            offset::DLEN
        };
        return AdminResponse::invalid_parameter(ParameterErrorLocation::at(field, 0));
    }
    *s = trial;
    let data = if c.status.is_success() {
        c.window(off as usize, len as usize)
    } else {
        Vec::new()
    };
    AdminResponse {
        status: status::SUCCESS,
        nmresp: [0; 3],
        cdw0: c.dw0,
        cdw1: c.dw1,
        cdw3: c.status.cqe_dw3(),
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::identify::cns;
    use crate::nvme::log_page::lid;
    use crate::nvme::status::generic;
    use crate::nvme::subsystem::Namespace;
    use proptest::prelude::*;

    fn model() -> Subsystem {
        Subsystem::new(2, vec![Namespace::with_size(1, 1 << 20, 512).unwrap()])
    }

    #[test]
    fn request_layout_is_libnvmes() {
        // nvme_mi_admin_identify_partial(ctrl 1, CNS 1, offset 0, size 72), as libnvme's probe.
        let r = AdminRequest::new(1, AdminCommand::identify(cns::CONTROLLER, 0, 0), 0, 72);
        let m = r.encode(false).unwrap();
        assert_eq!(m.len(), 4 + 64 + 4);
        assert_eq!(&m[..8], &[0x84, 0x10, 0, 0, 0x06, 0x01, 0x01, 0x00]);
        assert_eq!(&m[offset::DLEN as usize..][..4], &[72, 0, 0, 0]);
        assert_eq!(&m[offset::CDW10 as usize..][..4], &[1, 0, 0, 0]);
        let (h, back) = AdminRequest::decode(&m).unwrap();
        assert_eq!((h.nmimt, back), (Nmimt::NvmeAdminCommand, r));
    }

    #[test]
    fn windows_and_their_rules() {
        let mut s = model();
        let full = respond(
            &mut s,
            &AdminRequest::new(0, AdminCommand::identify(cns::CONTROLLER, 0, 0), 0, 4096),
        );
        assert_eq!((full.status, full.data.len()), (0, 4096));
        let part = respond(
            &mut s,
            &AdminRequest::new(0, AdminCommand::identify(cns::CONTROLLER, 0, 0), 64, 16),
        );
        assert_eq!(part.data, full.data[64..80]);
        let m = part.encode(false).unwrap();
        assert_eq!(m.len(), 4 + 16 + 16 + 4);
        assert_eq!(AdminResponse::decode(&m).unwrap(), part);

        let pel = |r: &AdminResponse| {
            assert_eq!(r.status, status::INVALID_PARAMETER);
            ParameterErrorLocation::from_nmresp(r.nmresp).byte
        };
        let id = AdminCommand::identify(cns::CONTROLLER, 0, 0);
        for (req, at) in [
            (AdminRequest::new(0, id.clone(), 4092, 8), offset::DLEN),
            (AdminRequest::new(0, id.clone(), 4096, 4), offset::DOFST),
            (AdminRequest::new(0, id.clone(), 2, 4), offset::DOFST),
            (AdminRequest::new(0, id.clone(), 0, 6), offset::DLEN),
            (AdminRequest::new(0, id.clone(), 0, 4100), offset::DLEN),
            (AdminRequest::new(7, id.clone(), 0, 4096), offset::CONTROLLER_ID),
        ] {
            assert_eq!(pel(&respond(&mut s, &req)), at, "{req:?}");
        }
        // An error answer is the 8-octet form, and decodes as such.
        let e = AdminResponse::invalid_parameter(ParameterErrorLocation::at(offset::DLEN, 0));
        let m = e.encode(false).unwrap();
        assert_eq!(&m[..8], &[0x84, 0x90, 0, 0, 0x04, 0x00, 32, 0]);
        assert_eq!(AdminResponse::decode(&m).unwrap(), e);
    }

    #[test]
    fn rejected_window_leaves_no_trace_and_command_errors_are_cqe_status() {
        let mut s = model();
        let before = s.clone();
        // Set Features has no data: any DLEN passes its end; nothing changes.
        let r = respond(
            &mut s,
            &AdminRequest::new(0, AdminCommand::set_features(0x04, 300), 0, 4),
        );
        assert_eq!(r.status, status::INVALID_PARAMETER);
        assert_eq!(s, before);
        // A bad log page is the controller's error: MI success, status in DW3, no data,
        // and in the Error Information log.
        let r = respond(
            &mut s,
            &AdminRequest::new(0, AdminCommand::get_log_page(0x55, 0, 0, 512), 0, 512),
        );
        assert_eq!(r.status, status::SUCCESS);
        assert_eq!(r.nvme_status().field(), 0x4109);
        assert!(r.data.is_empty());
        assert_eq!(s.error_log.len(), 1);
        let r = respond(
            &mut s,
            &AdminRequest::new(1, AdminCommand::identify(cns::NAMESPACE, 0, 9), 0, 4096),
        );
        assert_eq!(r.nvme_status(), NvmeStatus::generic(generic::INVALID_NAMESPACE_OR_FORMAT));
        // Log page windows as libnvme asks for them: 4 KiB chunks with the offset in LPO.
        let r = respond(
            &mut s,
            &AdminRequest::new(0, AdminCommand::get_log_page(lid::ERROR_INFORMATION, 0, 0, 1024), 0, 1024),
        );
        assert_eq!(r.data.len(), 1024);
        assert_eq!(&r.data[..8], &2u64.to_le_bytes());
    }

    #[test]
    fn short_and_foreign_messages() {
        let short = encode_oob(&NvmeMiHeader::request(Nmimt::NvmeAdminCommand), &[6; 63]).unwrap();
        assert_eq!(
            AdminRequest::decode(&short),
            Err(AdminMessageError::Short { len: 63, need: 64 })
        );
        let mi = encode_oob(&NvmeMiHeader::request(Nmimt::MiCommand), &[0; 64]).unwrap();
        assert_eq!(
            AdminRequest::decode(&mi),
            Err(AdminMessageError::WrongType(Nmimt::MiCommand))
        );
        let mut bad = AdminRequest::new(0, AdminCommand::identify(1, 0, 0), 0, 4)
            .encode(false)
            .unwrap();
        bad[10] ^= 1;
        assert!(matches!(
            AdminRequest::decode(&bad),
            Err(AdminMessageError::Message(NvmeMiError::MicMismatch { .. }))
        ));
    }

    proptest! {
        #[test]
        fn request_roundtrip(ctrl: u16, opc: u8, nsid: u32, cdw in proptest::array::uniform6(any::<u32>()),
                             off: u32, len: u32, data in proptest::collection::vec(any::<u8>(), 0..64)) {
            let r = AdminRequest {
                controller_id: ctrl, flags: 3, cdw2_5: [1, 2, 3, 4], data_offset: off, data_len: len,
                command: AdminCommand { opcode: opc, nsid, cdw, data },
            };
            let m = r.encode(true).unwrap();
            prop_assert_eq!(AdminRequest::decode(&m).unwrap().1, r);
        }

        /// Whatever the request, the answer is bounded and well formed.
        #[test]
        fn any_request_gets_a_bounded_answer(ctrl in 0u16..4, opc in prop_oneof![Just(2u8), Just(6), Just(9), Just(10), any::<u8>()],
                                             nsid in prop_oneof![Just(0u32), Just(1), Just(u32::MAX), any::<u32>()],
                                             cdw in proptest::array::uniform6(any::<u32>()), off: u32, len: u32) {
            let mut s = model();
            let r = AdminRequest { controller_id: ctrl, flags: 1, cdw2_5: [0; 4], data_offset: off, data_len: len,
                                   command: AdminCommand { opcode: opc, nsid, cdw, data: vec![] } };
            let a = respond(&mut s, &r);
            prop_assert!(a.data.len() <= MAX_DATA_LEN);
            let m = a.encode(false).unwrap();
            prop_assert_eq!(AdminResponse::decode(&m).unwrap(), a);
        }
    }
}
