//! Management Interface commands (NMIMT 1; NVMe-MI 1.2 §5): opcodes, the identifiers their
//! dwords carry, and the data structures they return, with the layouts of libnvme's
//! `struct nvme_mi_read_nvm_ss_info`, `nvme_mi_read_port_info`, `nvme_mi_read_ctrl_info`,
//! `nvme_mi_nvm_ss_health_status` and `nvme_mi_ctrl_health_status`.

use crate::nvme::subsystem::{Controller, Subsystem};

/// Management Interface command opcodes (Figure 68).
pub mod opcode {
    pub const READ_DATA_STRUCTURE: u8 = 0x00;
    pub const SUBSYSTEM_HEALTH_STATUS_POLL: u8 = 0x01;
    pub const CONTROLLER_HEALTH_STATUS_POLL: u8 = 0x02;
    pub const CONFIGURATION_SET: u8 = 0x03;
    pub const CONFIGURATION_GET: u8 = 0x04;
}

/// Read NVMe-MI Data Structure types (Dword 0 bits 31:24, Figure 101).
pub mod data_structure {
    pub const SUBSYSTEM_INFORMATION: u8 = 0x00;
    pub const PORT_INFORMATION: u8 = 0x01;
    pub const CONTROLLER_LIST: u8 = 0x02;
    pub const CONTROLLER_INFORMATION: u8 = 0x03;
}

/// Configuration identifiers (Dword 0 bits 7:0, Figure 76).
pub mod config_id {
    pub const SMBUS_FREQUENCY: u8 = 0x01;
    pub const HEALTH_STATUS_CHANGE: u8 = 0x02;
    pub const MCTP_TRANSMISSION_UNIT: u8 = 0x03;
}

/// SMBus/I2C frequencies (Figure 78): 1 = 100 kHz, 2 = 400 kHz, 3 = 1 MHz.
pub mod smbus_frequency {
    pub const KHZ_100: u8 = 1;
    pub const KHZ_400: u8 = 2;
    pub const MHZ_1: u8 = 3;

    pub fn describe(f: u8) -> &'static str {
        match f {
            KHZ_100 => "100 kHz",
            KHZ_400 => "400 kHz",
            MHZ_1 => "1 MHz",
            _ => "not supported",
        }
    }
}

/// Port types (Port Information PRTTYP).
pub mod port_type {
    pub const INACTIVE: u8 = 0;
    pub const PCIE: u8 = 1;
    pub const SMBUS: u8 = 2;
}

/// The MCTP baseline transmission unit (DSP0236): what a port uses until Configuration Set
/// raises it.
pub const BASELINE_MCTP_TU: u16 = 64;

/// Octet offsets in an MI request message, for Parameter Error Locations: opcode, then
/// NVMe Management Dword 0 (octets 8..11) and Dword 1 (12..15).
pub mod offset {
    pub const OPCODE: u16 = 4;
    pub const DWORD0: u16 = 8;
    pub const DWORD1: u16 = 12;
}

/// The data structures are 32 octets (Figures 102, 103, 105).
pub const DATA_STRUCTURE_LEN: usize = 32;
/// NVM Subsystem Health Data Structure (Figure 108).
pub const SUBSYSTEM_HEALTH_LEN: usize = 8;
/// Controller Health Data Structure (Figure 112).
pub const CONTROLLER_HEALTH_LEN: usize = 16;

/// One port as the Management Endpoint reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmbusPort {
    /// Largest MCTP transmission unit the port supports (MMCTPTUS).
    pub max_mctp_tu: u16,
    /// SMBus addresses of the VPD FRU device and of the Management Endpoint (7-bit).
    pub vpd_address: u8,
    pub me_address: u8,
    /// Fastest SMBus frequency of each (MVPDFREQ, MMEFREQ).
    pub max_frequency: u8,
}

/// NVM Subsystem Information (Figure 102): NUMP (0's based), major, minor version.
pub fn subsystem_information(ports: u16, version: (u8, u8)) -> Vec<u8> {
    let mut d = vec![0u8; DATA_STRUCTURE_LEN];
    d[0] = (ports.clamp(1, 256) - 1) as u8;
    d[1] = version.0;
    d[2] = version.1;
    d
}

/// Port Information of an SMBus/I2C port (Figure 103, SMBus-specific fields at 8..13).
pub fn port_information(p: &SmbusPort) -> Vec<u8> {
    let mut d = vec![0u8; DATA_STRUCTURE_LEN];
    d[0] = port_type::SMBUS;
    d[2..4].copy_from_slice(&p.max_mctp_tu.to_le_bytes());
    // MEB size 0: no Management Endpoint Buffer.
    d[8] = p.vpd_address;
    d[9] = p.max_frequency;
    d[10] = p.me_address;
    d[11] = p.max_frequency;
    d[12] = 0; // NVMe Basic Management not supported
    d
}

/// Controller List (Figure 104): number of identifiers, then identifiers ≥ `from`, padded
/// with zeros to a whole dword (NVMe-MI messages are dword multiples; libnvme rejects others).
pub fn controller_list(s: &Subsystem, from: u16) -> Vec<u8> {
    let mut ids: Vec<u16> = s.controllers.iter().map(|c| c.id).filter(|&i| i >= from).collect();
    ids.sort_unstable();
    ids.truncate(2047);
    let mut d = Vec::with_capacity(2 + 2 * ids.len());
    d.extend_from_slice(&(ids.len() as u16).to_le_bytes());
    for i in ids {
        d.extend_from_slice(&i.to_le_bytes());
    }
    d.resize(d.len().next_multiple_of(4), 0);
    d
}

/// Controller Information (Figure 105): port, PCIe routing ID (function number, PRII set),
/// PCI IDs.
pub fn controller_information(s: &Subsystem, c: &Controller) -> Vec<u8> {
    let id = &s.identity;
    let mut d = vec![0u8; DATA_STRUCTURE_LEN];
    d[0] = c.port;
    d[5] = 0x01; // PRII: the PCIe Routing ID is valid
    d[6..8].copy_from_slice(&u16::from(c.pci_function).to_le_bytes());
    d[8..10].copy_from_slice(&id.vid.to_le_bytes());
    d[10..12].copy_from_slice(&id.did.to_le_bytes());
    d[12..14].copy_from_slice(&id.ssvid.to_le_bytes());
    d[14..16].copy_from_slice(&id.ssid.to_le_bytes());
    d
}

/// NVM Subsystem Status (Figure 108, NSS): Drive Functional (5), Reset Not Required (4).
pub const NSS_DRIVE_FUNCTIONAL_RESET_NOT_REQUIRED: u8 = 0x30;

/// Composite temperature as the health structures' one-octet CTEMP (Figure 108): degrees
/// Celsius, two's complement, saturated at 127 and -60.
pub fn ctemp_octet(celsius: i16) -> u8 {
    celsius.clamp(-60, 127) as i8 as u8
}

/// NVM Subsystem Health Data Structure: NSS, SMART Warnings (the complement of the SMART
/// Critical Warning: a clear bit is a warning), CTEMP, PDLU, CCS.
pub fn subsystem_health(s: &Subsystem) -> Vec<u8> {
    let h = s.health();
    let mut d = vec![0u8; SUBSYSTEM_HEALTH_LEN];
    d[0] = NSS_DRIVE_FUNCTIONAL_RESET_NOT_REQUIRED;
    d[1] = !s.critical_warning();
    d[2] = ctemp_octet(h.temperature_c);
    d[3] = h.percent_used;
    d[4..6].copy_from_slice(&s.ccs().to_le_bytes());
    d
}

/// Controller Health Data Structure (Figure 112): CTLID, CSTS (RDY), CTEMP in Kelvin,
/// PDLU, available spare, critical warning.
pub fn controller_health(s: &Subsystem, c: &Controller) -> [u8; CONTROLLER_HEALTH_LEN] {
    let h = s.health();
    let mut d = [0u8; CONTROLLER_HEALTH_LEN];
    d[0..2].copy_from_slice(&c.id.to_le_bytes());
    d[2..4].copy_from_slice(&u16::from(c.ready).to_le_bytes());
    d[4..6].copy_from_slice(&crate::nvme::kelvin(h.temperature_c).to_le_bytes());
    d[6] = h.percent_used;
    d[7] = h.available_spare;
    d[8] = s.critical_warning();
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structures() {
        let mut s = Subsystem::new(3, vec![]);
        assert_eq!(&subsystem_information(2, (1, 2))[..3], &[1, 1, 2]);
        let p = port_information(&SmbusPort {
            max_mctp_tu: 251,
            vpd_address: 0x53,
            me_address: 0x1D,
            max_frequency: 2,
        });
        assert_eq!(&p[..4], &[2, 0, 251, 0]);
        assert_eq!(&p[8..12], &[0x53, 2, 0x1D, 2]);
        assert_eq!(controller_list(&s, 1), [2, 0, 1, 0, 2, 0, 0, 0]);
        assert_eq!(controller_list(&s, 2), [1, 0, 2, 0]);
        let c = controller_information(&s, &s.controllers[2]);
        assert_eq!(&c[5..10], &[1, 2, 0, 0x36, 0x1B]);
        s.update_health(|h| {
            h.temperature_c = -80;
            h.available_spare = 3;
        });
        let h = subsystem_health(&s);
        assert_eq!(h[1], !1u8, "spare warning: bit 0 clear");
        assert_eq!(h[2], (-60i8) as u8);
        assert_eq!(u16::from_le_bytes([h[4], h[5]]), 0x0A00 | 0x1000);
        let ch = controller_health(&s, &s.controllers[1]);
        assert_eq!(&ch[..8], &[1, 0, 1, 0, 193, 0, 3, 3]);
    }
}
