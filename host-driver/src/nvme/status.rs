//! NVMe completion status (NVMe Base 2.0 §4.6.1, Figure 92 "Completion Queue Entry: Status
//! Field"): Status Code (SC, 8 bits), Status Code Type (SCT, 3 bits), Command Retry Delay,
//! More, Do Not Retry. In a completion queue entry the Status Field sits in DW3 bits 31:17
//! (bit 16 is the Phase Tag), which is where an NVMe-MI Admin response carries it too.

/// Status Code Type (Figure 93).
pub mod sct {
    pub const GENERIC: u8 = 0;
    pub const COMMAND_SPECIFIC: u8 = 1;
}

/// Generic Command Status values (Figure 94).
pub mod generic {
    pub const SUCCESS: u8 = 0x00;
    pub const INVALID_COMMAND_OPCODE: u8 = 0x01;
    pub const INVALID_FIELD: u8 = 0x02;
    pub const INVALID_NAMESPACE_OR_FORMAT: u8 = 0x0B;
}

/// Command Specific Status values (Figure 95).
pub mod command_specific {
    pub const INVALID_LOG_PAGE: u8 = 0x09;
    pub const FEATURE_NOT_SAVEABLE: u8 = 0x0D;
}

/// A completion status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvmeStatus {
    pub sct: u8,
    pub sc: u8,
    /// Do Not Retry: the same command would fail again.
    pub dnr: bool,
}

impl NvmeStatus {
    pub const SUCCESS: NvmeStatus = NvmeStatus {
        sct: sct::GENERIC,
        sc: generic::SUCCESS,
        dnr: false,
    };

    /// A generic error status with DNR set (every error of the model is deterministic).
    pub const fn generic(sc: u8) -> NvmeStatus {
        NvmeStatus {
            sct: sct::GENERIC,
            sc,
            dnr: true,
        }
    }

    pub const fn command_specific(sc: u8) -> NvmeStatus {
        NvmeStatus {
            sct: sct::COMMAND_SPECIFIC,
            sc,
            dnr: true,
        }
    }

    pub fn is_success(self) -> bool {
        self.sct == sct::GENERIC && self.sc == generic::SUCCESS
    }

    /// The 15-bit Status Field: SC 7:0, SCT 10:8, DNR 14 (CRD and More left 0).
    pub fn field(self) -> u16 {
        u16::from(self.sc) | (u16::from(self.sct & 0x7) << 8) | (u16::from(self.dnr) << 14)
    }

    /// CQE DW3 with this status, Phase Tag and Command Identifier 0.
    pub fn cqe_dw3(self) -> u32 {
        u32::from(self.field()) << 17
    }

    /// The status in a CQE DW3 (reserved bits ignored).
    pub fn from_cqe_dw3(dw3: u32) -> NvmeStatus {
        let f = (dw3 >> 17) as u16;
        NvmeStatus {
            sc: f as u8,
            sct: ((f >> 8) & 0x7) as u8,
            dnr: f & (1 << 14) != 0,
        }
    }

    /// A name for the status, as nvme-cli's `nvme_status_to_string` has it.
    pub fn describe(self) -> &'static str {
        match (self.sct, self.sc) {
            (sct::GENERIC, generic::SUCCESS) => "Successful Completion",
            (sct::GENERIC, generic::INVALID_COMMAND_OPCODE) => "Invalid Command Opcode",
            (sct::GENERIC, generic::INVALID_FIELD) => "Invalid Field in Command",
            (sct::GENERIC, generic::INVALID_NAMESPACE_OR_FORMAT) => "Invalid Namespace or Format",
            (sct::COMMAND_SPECIFIC, command_specific::INVALID_LOG_PAGE) => "Invalid Log Page",
            (sct::COMMAND_SPECIFIC, command_specific::FEATURE_NOT_SAVEABLE) => {
                "Feature Identifier Not Saveable"
            }
            _ => "Unknown status",
        }
    }
}

impl std::fmt::Display for NvmeStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}(0x{:x})", self.describe(), self.field())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dw3_placement() {
        // libnvme returns cdw3 >> 17 as the status: Invalid Field with DNR is 0x4002, which
        // nvme-cli prints for a bad field.
        let s = NvmeStatus::generic(generic::INVALID_FIELD);
        assert_eq!(s.cqe_dw3() >> 17, 0x4002);
        assert_eq!(s.cqe_dw3() & 0x1_FFFF, 0, "phase tag and CID clear");
        let s = NvmeStatus::command_specific(command_specific::INVALID_LOG_PAGE);
        assert_eq!(s.cqe_dw3() >> 17, 0x4109);
        assert_eq!(NvmeStatus::from_cqe_dw3(s.cqe_dw3() | 0x1_FFFF), s);
        assert_eq!(NvmeStatus::SUCCESS.cqe_dw3(), 0);
        assert!(NvmeStatus::from_cqe_dw3(0x0001_ffff).is_success());
        assert_eq!(s.to_string(), "Invalid Log Page(0x4109)");
    }
}
