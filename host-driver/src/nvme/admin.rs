//! An NVMe Admin command run against the model: the submission queue entry's dwords in, the
//! completion (status, DW0, DW1) and the command's data out. Only the commands NVMe-MI
//! requires out of band are implemented: Identify, Get Log Page, Get Features (and Set
//! Features for the features Get Features reports); any other opcode completes with Invalid
//! Command Opcode, as a controller would.
//!
//! A command's data can be long (Get Log Page's NUMD reaches 16 GiB), so a completion carries
//! the bytes the model has and the length the command transfers; the rest are zero. NVMe-MI
//! returns a window of at most 4 KiB of it (see `nvme_mi::admin`).

use super::identify::{self, cns};
use super::log_page::{self, lid};
use super::status::{generic, NvmeStatus};
use super::subsystem::{ErrorEntry, Subsystem};
use super::{features, opcode, NSID_ALL};

/// The submission queue entry dwords an Admin command message carries (NVMe Base 2.0
/// Figure 88; NVMe-MI carries CDW1 = NSID and CDW10..CDW15; the data pointer fields are
/// replaced by the message's data).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdminCommand {
    pub opcode: u8,
    /// CDW1: Namespace Identifier.
    pub nsid: u32,
    /// CDW10..CDW15.
    pub cdw: [u32; 6],
    /// Data from the host (none of the implemented commands takes any).
    pub data: Vec<u8>,
}

impl AdminCommand {
    pub fn cdw10(&self) -> u32 {
        self.cdw[0]
    }
    pub fn cdw11(&self) -> u32 {
        self.cdw[1]
    }
    pub fn cdw12(&self) -> u32 {
        self.cdw[2]
    }
    pub fn cdw13(&self) -> u32 {
        self.cdw[3]
    }
    pub fn cdw14(&self) -> u32 {
        self.cdw[4]
    }

    /// Identify with CNS, CNTID (CDW10 31:16) and NSID.
    pub fn identify(cns: u8, cntid: u16, nsid: u32) -> AdminCommand {
        AdminCommand {
            opcode: opcode::IDENTIFY,
            nsid,
            cdw: [u32::from(cns) | (u32::from(cntid) << 16), 0, 0, 0, 0, 0],
            data: Vec::new(),
        }
    }

    /// Get Log Page of `len` octets (a multiple of 4, at least 4) from `offset`.
    pub fn get_log_page(id: u8, nsid: u32, offset: u64, len: u32) -> AdminCommand {
        let numd = (len / 4).max(1) - 1;
        AdminCommand {
            opcode: opcode::GET_LOG_PAGE,
            nsid,
            cdw: [
                u32::from(id) | ((numd & 0xFFFF) << 16),
                numd >> 16,
                offset as u32,
                (offset >> 32) as u32,
                0,
                0,
            ],
            data: Vec::new(),
        }
    }

    /// Get Features of `fid` with Select `sel` and CDW11.
    pub fn get_features(fid: u8, sel: u8, cdw11: u32) -> AdminCommand {
        AdminCommand {
            opcode: opcode::GET_FEATURES,
            nsid: 0,
            cdw: [u32::from(fid) | (u32::from(sel & 7) << 8), cdw11, 0, 0, 0, 0],
            data: Vec::new(),
        }
    }

    /// Set Features of `fid` (not saved).
    pub fn set_features(fid: u8, cdw11: u32) -> AdminCommand {
        AdminCommand {
            opcode: opcode::SET_FEATURES,
            nsid: 0,
            cdw: [u32::from(fid), cdw11, 0, 0, 0, 0],
            data: Vec::new(),
        }
    }
}

/// A completion and the command's data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminCompletion {
    pub status: NvmeStatus,
    pub dw0: u32,
    pub dw1: u32,
    /// The command's data from its start; octets past the end, up to `data_len`, are zero.
    pub data: Vec<u8>,
    /// How many octets the command transfers to the host.
    pub data_len: u64,
}

impl AdminCompletion {
    fn ok(dw0: u32, data: Vec<u8>, data_len: u64) -> AdminCompletion {
        AdminCompletion {
            status: NvmeStatus::SUCCESS,
            dw0,
            dw1: 0,
            data,
            data_len,
        }
    }

    fn error(status: NvmeStatus) -> AdminCompletion {
        AdminCompletion {
            status,
            dw0: 0,
            dw1: 0,
            data: Vec::new(),
            data_len: 0,
        }
    }

    /// `len` octets of the data from `offset`, zero past what the model has.
    pub fn window(&self, offset: usize, len: usize) -> Vec<u8> {
        let mut w = vec![0u8; len];
        if let Some(src) = self.data.get(offset..) {
            let n = src.len().min(len);
            w[..n].copy_from_slice(&src[..n]);
        }
        w
    }
}

/// Octet offsets of SQE fields, for the Error Information log's Parameter Error Location.
mod sqe_offset {
    pub const NSID: u16 = 4;
    pub const CDW10: u16 = 40;
    pub const CDW11: u16 = 44;
    pub const CDW12: u16 = 48;
    pub const CDW14: u16 = 56;
    pub const OPCODE: u16 = 0;
}

/// Runs `cmd` on controller `ctrl` of `s`. The caller checks that the controller exists
/// (NVMe-MI answers a wrong Controller ID itself); an unknown one completes with Invalid Field.
/// A failing command is recorded in the Error Information log.
pub fn execute(s: &mut Subsystem, ctrl: u16, cmd: &AdminCommand) -> AdminCompletion {
    match run(s, ctrl, cmd) {
        Ok(c) => c,
        Err((status, location)) => {
            s.log_error(ErrorEntry {
                error_count: 0,
                sqid: 0,
                cmdid: 0,
                status,
                parm_error_location: location,
                lba: 0,
                nsid: cmd.nsid,
            });
            AdminCompletion::error(status)
        }
    }
}

type Failure = (NvmeStatus, u16);

fn field(at: u16) -> Failure {
    (NvmeStatus::generic(generic::INVALID_FIELD), at)
}

fn bad_namespace() -> Failure {
    (
        NvmeStatus::generic(generic::INVALID_NAMESPACE_OR_FORMAT),
        sqe_offset::NSID,
    )
}

fn run(s: &mut Subsystem, ctrl: u16, cmd: &AdminCommand) -> Result<AdminCompletion, Failure> {
    if !cmd.data.is_empty() {
        // No implemented command takes data from the host.
        return Err(field(sqe_offset::OPCODE));
    }
    match cmd.opcode {
        opcode::IDENTIFY => identify(s, ctrl, cmd),
        opcode::GET_LOG_PAGE => get_log_page(s, cmd),
        opcode::GET_FEATURES => features::get(s, cmd.cdw10(), cmd.cdw11())
            .map(|dw0| AdminCompletion::ok(dw0, Vec::new(), 0))
            .map_err(|st| (st, sqe_offset::CDW10)),
        opcode::SET_FEATURES => features::set(s, cmd.cdw10(), cmd.cdw11())
            .map(|dw0| AdminCompletion::ok(dw0, Vec::new(), 0))
            .map_err(|st| (st, sqe_offset::CDW11)),
        _ => Err((
            NvmeStatus::generic(generic::INVALID_COMMAND_OPCODE),
            sqe_offset::OPCODE,
        )),
    }
}

/// Identify (§5.17): CNS 00h, 01h, 02h, 12h, 13h.
fn identify(s: &Subsystem, ctrl: u16, cmd: &AdminCommand) -> Result<AdminCompletion, Failure> {
    let cns = cmd.cdw10() as u8;
    let cntid = (cmd.cdw10() >> 16) as u16;
    let nsid = cmd.nsid;
    let data = match cns {
        cns::NAMESPACE => {
            if nsid == 0 || nsid == NSID_ALL || nsid > s.max_namespaces {
                return Err(bad_namespace());
            }
            // An NSID in range that is not active reads as zeros (§5.17.2.1).
            match s.namespace(nsid) {
                Some(n) => identify::namespace(s, n),
                None => vec![0; identify::DATA_LEN],
            }
        }
        cns::CONTROLLER => {
            let c = s.controller(ctrl).ok_or_else(|| field(sqe_offset::CDW10))?;
            identify::controller(s, c)
        }
        cns::ACTIVE_NAMESPACE_LIST => {
            if nsid >= NSID_ALL - 1 {
                return Err(bad_namespace());
            }
            identify::active_namespaces(s, nsid)
        }
        cns::NAMESPACE_CONTROLLER_LIST => {
            if nsid == 0 || nsid == NSID_ALL || nsid > s.max_namespaces {
                return Err(bad_namespace());
            }
            // Every namespace is attached to every controller (shared namespaces).
            let attached = s.namespace(nsid).is_some();
            identify::controller_list(
                s.controllers.iter().map(|c| c.id).filter(|_| attached),
                cntid,
            )
        }
        cns::CONTROLLER_LIST => identify::controller_list(s.controllers.iter().map(|c| c.id), cntid),
        _ => return Err(field(sqe_offset::CDW10)),
    };
    Ok(AdminCompletion::ok(0, data, identify::DATA_LEN as u64))
}

/// Get Log Page (§5.16): LID CDW10 7:0, NUMDL CDW10 31:16, NUMDU CDW11 15:0, LPO CDW12/13,
/// Offset Type CDW14 bit 23.
fn get_log_page(s: &Subsystem, cmd: &AdminCommand) -> Result<AdminCompletion, Failure> {
    let id = cmd.cdw10() as u8;
    let numd = u64::from(cmd.cdw10() >> 16) | (u64::from(cmd.cdw11() & 0xFFFF) << 16);
    let len = (numd + 1) * 4;
    let lpo = u64::from(cmd.cdw12()) | (u64::from(cmd.cdw13()) << 32);
    if cmd.cdw14() & (1 << 23) != 0 {
        return Err(field(sqe_offset::CDW14)); // index offsets: no log page here has them
    }
    let page_len = log_page::page_len(s, id).ok_or((
        NvmeStatus::command_specific(super::status::command_specific::INVALID_LOG_PAGE),
        sqe_offset::CDW10,
    ))? as u64;
    if id == lid::SMART_HEALTH && cmd.nsid != 0 && cmd.nsid != NSID_ALL {
        // LPA bit 0 is clear: SMART / Health is kept for the controller only.
        return Err(field(sqe_offset::NSID));
    }
    if lpo % 4 != 0 || lpo > page_len {
        return Err(field(sqe_offset::CDW12));
    }
    let page = log_page::page(s, id).expect("length known");
    Ok(AdminCompletion::ok(0, page[lpo as usize..].to_vec(), len))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::status::command_specific;
    use crate::nvme::subsystem::Namespace;

    fn model() -> Subsystem {
        Subsystem::new(
            2,
            vec![
                Namespace::with_size(1, 1 << 20, 512).unwrap(),
                Namespace::with_size(3, 1 << 21, 4096).unwrap(),
            ],
        )
    }

    #[test]
    fn identify_commands() {
        let mut s = model();
        let c = execute(&mut s, 1, &AdminCommand::identify(cns::CONTROLLER, 0, 0));
        assert!(c.status.is_success());
        assert_eq!((c.data.len(), c.data_len), (4096, 4096));
        assert_eq!(&c.data[78..80], &[1, 0], "CNTLID of the addressed controller");
        let c = execute(&mut s, 0, &AdminCommand::identify(cns::NAMESPACE, 0, 3));
        assert_eq!(u64::from_le_bytes(c.data[..8].try_into().unwrap()), 512);
        // NSID 2 is in range but inactive: zeros. NSID 4 is past NN: an error.
        let c = execute(&mut s, 0, &AdminCommand::identify(cns::NAMESPACE, 0, 2));
        assert!(c.status.is_success() && c.data.iter().all(|&b| b == 0));
        for nsid in [0, 4, NSID_ALL] {
            let c = execute(&mut s, 0, &AdminCommand::identify(cns::NAMESPACE, 0, nsid));
            assert_eq!(c.status, NvmeStatus::generic(generic::INVALID_NAMESPACE_OR_FORMAT));
        }
        let c = execute(&mut s, 0, &AdminCommand::identify(cns::ACTIVE_NAMESPACE_LIST, 0, 0));
        assert_eq!(&c.data[..12], &[1, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
        let c = execute(&mut s, 0, &AdminCommand::identify(cns::CONTROLLER_LIST, 1, 0));
        assert_eq!(&c.data[..6], &[1, 0, 1, 0, 0, 0]);
        let c = execute(&mut s, 0, &AdminCommand::identify(cns::NAMESPACE_CONTROLLER_LIST, 0, 2));
        assert_eq!(&c.data[..2], &[0, 0], "inactive namespace: attached to none");
        let c = execute(&mut s, 0, &AdminCommand::identify(0x55, 0, 0));
        assert_eq!(c.status, NvmeStatus::generic(generic::INVALID_FIELD));
    }

    #[test]
    fn log_pages_and_the_error_log_of_failures() {
        let mut s = model();
        let c = execute(&mut s, 0, &AdminCommand::get_log_page(lid::SMART_HEALTH, NSID_ALL, 0, 512));
        assert!(c.status.is_success());
        assert_eq!(u16::from_le_bytes([c.data[1], c.data[2]]), 310);
        // A window past the page is zero; the length is what NUMD asks.
        let c = execute(&mut s, 0, &AdminCommand::get_log_page(lid::SMART_HEALTH, 0, 508, 8));
        assert_eq!((c.data.len(), c.data_len), (4, 8));
        assert_eq!(c.window(0, 8)[4..], [0, 0, 0, 0]);
        // Huge NUMD: no huge buffer.
        let c = execute(&mut s, 0, &AdminCommand::get_log_page(lid::FIRMWARE_SLOT, 0, 0, u32::MAX & !3));
        assert_eq!((c.data.len(), c.data_len), (512, (u32::MAX & !3) as u64));
        let mut big = AdminCommand::get_log_page(lid::FIRMWARE_SLOT, 0, 0, 4);
        big.cdw[0] |= 0xFFFF << 16;
        big.cdw[1] = 0xFFFF;
        assert_eq!(execute(&mut s, 0, &big).data_len, 1 << 34);
        for (cmd, st) in [
            (
                AdminCommand::get_log_page(0x55, 0, 0, 512),
                NvmeStatus::command_specific(command_specific::INVALID_LOG_PAGE),
            ),
            (
                AdminCommand::get_log_page(lid::SMART_HEALTH, 1, 0, 512),
                NvmeStatus::generic(generic::INVALID_FIELD),
            ),
            (
                AdminCommand::get_log_page(lid::SMART_HEALTH, 0, 2, 16),
                NvmeStatus::generic(generic::INVALID_FIELD),
            ),
            (
                AdminCommand::get_log_page(lid::SMART_HEALTH, 0, 516, 16),
                NvmeStatus::generic(generic::INVALID_FIELD),
            ),
            (
                AdminCommand {
                    opcode: 0x80,
                    ..Default::default()
                },
                NvmeStatus::generic(generic::INVALID_COMMAND_OPCODE),
            ),
        ] {
            assert_eq!(execute(&mut s, 0, &cmd).status, st, "{cmd:?}");
        }
        // The five failures are in the Error Information log, newest first, and SMART counts them.
        let c = execute(&mut s, 0, &AdminCommand::get_log_page(lid::ERROR_INFORMATION, 0, 0, 128));
        assert_eq!(&c.data[0..8], &5u64.to_le_bytes());
        assert_eq!(u16::from_le_bytes([c.data[12], c.data[13]]) >> 1, 0x4001);
        assert_eq!(&c.data[64..72], &4u64.to_le_bytes());
        let smart = execute(&mut s, 0, &AdminCommand::get_log_page(lid::SMART_HEALTH, 0, 0, 512));
        assert_eq!(smart.data[176], 5);
    }

    #[test]
    fn features_through_admin() {
        let mut s = model();
        let c = execute(&mut s, 0, &AdminCommand::set_features(features::fid::TEMPERATURE_THRESHOLD, 300));
        assert!(c.status.is_success());
        let c = execute(&mut s, 1, &AdminCommand::get_features(features::fid::TEMPERATURE_THRESHOLD, 0, 0));
        assert_eq!(c.dw0, 300);
        // 37 °C = 310 K is above 300 K now: the SMART critical warning says so.
        let smart = execute(&mut s, 0, &AdminCommand::get_log_page(lid::SMART_HEALTH, 0, 0, 512));
        assert_eq!(smart.data[0], 2);
        let mut with_data = AdminCommand::get_features(features::fid::NUMBER_OF_QUEUES, 0, 0);
        with_data.data = vec![0; 4];
        assert_eq!(execute(&mut s, 0, &with_data).status, NvmeStatus::generic(generic::INVALID_FIELD));
    }
}
