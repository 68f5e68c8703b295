//! Log pages (NVMe Base 2.0 §5.16.1): Error Information (Figure 205), SMART / Health
//! Information (Figure 207) and Firmware Slot Information (Figure 210), built from the model.
//! Offsets are those of libnvme's `struct nvme_error_log_page`, `nvme_smart_log` and
//! `nvme_firmware_slot`.

use super::subsystem::Subsystem;

/// Log Page Identifiers (Figure 202).
pub mod lid {
    pub const ERROR_INFORMATION: u8 = 0x01;
    pub const SMART_HEALTH: u8 = 0x02;
    pub const FIRMWARE_SLOT: u8 = 0x03;
}

pub const ERROR_ENTRY_LEN: usize = 64;
pub const SMART_LEN: usize = 512;
pub const FIRMWARE_SLOT_LEN: usize = 512;

/// SMART / Health Information offsets (Figure 207).
pub mod smart {
    pub const CRITICAL_WARNING: usize = 0;
    pub const COMPOSITE_TEMPERATURE: usize = 1;
    pub const AVAILABLE_SPARE: usize = 3;
    pub const SPARE_THRESHOLD: usize = 4;
    pub const PERCENTAGE_USED: usize = 5;
    pub const DATA_UNITS_READ: usize = 32;
    pub const DATA_UNITS_WRITTEN: usize = 48;
    pub const HOST_READS: usize = 64;
    pub const HOST_WRITES: usize = 80;
    pub const CONTROLLER_BUSY_TIME: usize = 96;
    pub const POWER_CYCLES: usize = 112;
    pub const POWER_ON_HOURS: usize = 128;
    pub const UNSAFE_SHUTDOWNS: usize = 144;
    pub const MEDIA_ERRORS: usize = 160;
    pub const ERROR_LOG_ENTRIES: usize = 176;
    pub const TEMPERATURE_SENSOR_1: usize = 200;
}

/// Error Information entry offsets (Figure 205).
pub mod error {
    pub const ERROR_COUNT: usize = 0;
    pub const SQID: usize = 8;
    pub const CMDID: usize = 10;
    pub const STATUS_FIELD: usize = 12;
    pub const PARAMETER_ERROR_LOCATION: usize = 14;
    pub const LBA: usize = 16;
    pub const NSID: usize = 24;
}

/// Firmware Slot Information offsets (Figure 210).
pub mod firmware {
    pub const AFI: usize = 0;
    /// Firmware Revision for Slot 1; slot n is at FRS1 + 8 (n - 1).
    pub const FRS1: usize = 8;
}

fn put(d: &mut [u8], at: usize, b: &[u8]) {
    d[at..at + b.len()].copy_from_slice(b);
}

/// The size of a log page, or `None` for a page the model does not have.
pub fn page_len(s: &Subsystem, id: u8) -> Option<usize> {
    match id {
        lid::ERROR_INFORMATION => Some((usize::from(s.error_log_entries) + 1) * ERROR_ENTRY_LEN),
        lid::SMART_HEALTH => Some(SMART_LEN),
        lid::FIRMWARE_SLOT => Some(FIRMWARE_SLOT_LEN),
        _ => None,
    }
}

/// The whole log page `id`.
pub fn page(s: &Subsystem, id: u8) -> Option<Vec<u8>> {
    Some(match id {
        lid::ERROR_INFORMATION => error_information(s),
        lid::SMART_HEALTH => smart_health(s),
        lid::FIRMWARE_SLOT => firmware_slot(s),
        _ => return None,
    })
}

/// SMART / Health Information, controller-wide.
pub fn smart_health(s: &Subsystem) -> Vec<u8> {
    let h = s.health();
    let mut d = vec![0u8; SMART_LEN];
    d[smart::CRITICAL_WARNING] = s.critical_warning();
    let k = super::kelvin(h.temperature_c).to_le_bytes();
    put(&mut d, smart::COMPOSITE_TEMPERATURE, &k);
    put(&mut d, smart::TEMPERATURE_SENSOR_1, &k);
    d[smart::AVAILABLE_SPARE] = h.available_spare;
    d[smart::SPARE_THRESHOLD] = h.spare_threshold;
    d[smart::PERCENTAGE_USED] = h.percent_used;
    for (at, v) in [
        (smart::DATA_UNITS_READ, h.data_units_read),
        (smart::DATA_UNITS_WRITTEN, h.data_units_written),
        (smart::HOST_READS, h.host_read_commands),
        (smart::HOST_WRITES, h.host_write_commands),
        (smart::CONTROLLER_BUSY_TIME, h.controller_busy_minutes),
        (smart::POWER_CYCLES, h.power_cycles),
        (smart::POWER_ON_HOURS, h.power_on_hours),
        (smart::UNSAFE_SHUTDOWNS, h.unsafe_shutdowns),
        (smart::MEDIA_ERRORS, h.media_errors),
        (
            smart::ERROR_LOG_ENTRIES,
            s.error_log.first().map_or(0, |e| e.error_count),
        ),
    ] {
        put(&mut d, at, &u128::from(v).to_le_bytes());
    }
    d
}

/// Error Information: ELPE + 1 entries, newest first, unused entries zero.
pub fn error_information(s: &Subsystem) -> Vec<u8> {
    let n = usize::from(s.error_log_entries) + 1;
    let mut d = vec![0u8; n * ERROR_ENTRY_LEN];
    for (i, e) in s.error_log.iter().take(n).enumerate() {
        let b = i * ERROR_ENTRY_LEN;
        put(&mut d, b + error::ERROR_COUNT, &e.error_count.to_le_bytes());
        put(&mut d, b + error::SQID, &e.sqid.to_le_bytes());
        put(&mut d, b + error::CMDID, &e.cmdid.to_le_bytes());
        // Status Field in bits 15:1, Phase Tag in bit 0 (as in CQE DW3 31:16).
        put(&mut d, b + error::STATUS_FIELD, &(e.status.field() << 1).to_le_bytes());
        put(
            &mut d,
            b + error::PARAMETER_ERROR_LOCATION,
            &e.parm_error_location.to_le_bytes(),
        );
        put(&mut d, b + error::LBA, &e.lba.to_le_bytes());
        put(&mut d, b + error::NSID, &e.nsid.to_le_bytes());
    }
    d
}

/// Firmware Slot Information: the active slot and each slot's revision (8 ASCII octets).
pub fn firmware_slot(s: &Subsystem) -> Vec<u8> {
    let mut d = vec![0u8; FIRMWARE_SLOT_LEN];
    d[firmware::AFI] = s.firmware.active & 0x7;
    for (i, rev) in s.firmware.slots.iter().take(7).enumerate() {
        if let Some(r) = rev {
            let f = &mut d[firmware::FRS1 + 8 * i..firmware::FRS1 + 8 * (i + 1)];
            f.fill(b' ');
            for (o, c) in f.iter_mut().zip(r.bytes().filter(u8::is_ascii)) {
                *o = c;
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::status::NvmeStatus;
    use crate::nvme::subsystem::ErrorEntry;

    #[test]
    fn smart_follows_the_model() {
        let mut s = Subsystem::default();
        s.update_health(|h| {
            h.temperature_c = 45;
            h.percent_used = 12;
            h.power_on_hours = 0x1_0000_0001;
        });
        let d = smart_health(&s);
        assert_eq!(d.len(), 512);
        assert_eq!(u16::from_le_bytes([d[1], d[2]]), 318);
        assert_eq!((d[3], d[4], d[5]), (100, 10, 12));
        assert_eq!(
            u128::from_le_bytes(d[128..144].try_into().unwrap()),
            0x1_0000_0001
        );
        assert_eq!(d[0], 0);
        s.update_health(|h| h.available_spare = 1);
        assert_eq!(smart_health(&s)[0], 1, "spare below threshold");
    }

    #[test]
    fn error_and_firmware_pages() {
        let mut s = Subsystem::default();
        s.log_error(ErrorEntry {
            error_count: 0,
            sqid: 0,
            cmdid: 0x1234,
            status: NvmeStatus::generic(0x02),
            parm_error_location: 0x28,
            lba: 0,
            nsid: 5,
        });
        let d = error_information(&s);
        assert_eq!(d.len(), 16 * 64);
        assert_eq!(&d[0..8], &1u64.to_le_bytes());
        assert_eq!(&d[10..12], &[0x34, 0x12]);
        assert_eq!(u16::from_le_bytes([d[12], d[13]]) >> 1, 0x4002);
        assert!(d[64..].iter().all(|&b| b == 0));
        let f = firmware_slot(&s);
        assert_eq!(f[0], 2);
        assert_eq!(&f[8..24], b"1.0.0   1.1.0   ");
        assert!(f[24..].iter().all(|&b| b == 0));
        assert_eq!(page_len(&s, 0x55), None);
    }
}
