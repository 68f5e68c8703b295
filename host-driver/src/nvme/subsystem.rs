//! The NVM subsystem model behind the NVMe-MI responder: its controllers, namespaces
//! (by size, or taking their size from a file), identity strings, features, logs and the
//! health values a test or the CLI sets. Every answer (Identify, SMART / Health, the MI
//! health polls) is computed from this one state, so they agree with each other.

use super::status::NvmeStatus;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The model shared between a responder thread and whoever changes it while it runs.
pub type SharedSubsystem = Arc<Mutex<Subsystem>>;

/// Change flags, in the bit positions of the NVMe-MI Composite Controller Status field
/// (NVMe-MI 1.2 Figure 108, libnvme `enum nvme_mi_ccs`); the same positions select and report
/// changes in Controller Health Status Poll.
pub mod change {
    pub const RDY: u16 = 1 << 0;
    pub const CFS: u16 = 1 << 1;
    pub const SHST: u16 = 1 << 2;
    pub const NSSRO: u16 = 1 << 4;
    pub const CECO: u16 = 1 << 5;
    pub const NAC: u16 = 1 << 6;
    pub const FA: u16 = 1 << 7;
    pub const CSTS: u16 = 1 << 8;
    pub const CTEMP: u16 = 1 << 9;
    pub const PDLU: u16 = 1 << 10;
    pub const SPARE: u16 = 1 << 11;
    pub const CCWARN: u16 = 1 << 12;
    /// The bits that are change flags (RDY..CCWARN, bit 3 reserved).
    pub const ALL: u16 = 0x1FF7;
}

/// SMART / Health Critical Warning bits (NVMe Base 2.0 Figure 207, byte 0).
pub mod critical_warning {
    pub const SPARE_BELOW_THRESHOLD: u8 = 1 << 0;
    pub const TEMPERATURE: u8 = 1 << 1;
    pub const RELIABILITY_DEGRADED: u8 = 1 << 2;
    pub const READ_ONLY: u8 = 1 << 3;
    pub const VOLATILE_BACKUP_FAILED: u8 = 1 << 4;
}

/// What Identify Controller and Controller Information say about the product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// PCI Vendor ID and Subsystem Vendor ID.
    pub vid: u16,
    pub ssvid: u16,
    /// PCI Device ID and Subsystem ID (Controller Information).
    pub did: u16,
    pub ssid: u16,
    /// ASCII, space padded on the wire: 20, 40 and 8 octets.
    pub serial: String,
    pub model: String,
    /// IEEE OUI, as the three octets Identify Controller stores (least significant first).
    pub ieee_oui: [u8; 3],
    pub subnqn: String,
}

/// One controller of the subsystem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Controller {
    /// Controller ID (CNTLID).
    pub id: u16,
    /// The port it is reached through (Controller Information PORTID).
    pub port: u8,
    /// PCIe function number (Controller Information PRI, with PRII set).
    pub pci_function: u8,
    /// CSTS.RDY: enabled and ready.
    pub ready: bool,
    /// Changes not yet cleared by a Controller Health Status Poll (bits of [`change`]).
    pub changes: u16,
}

/// A namespace. The model serves no I/O; the backing file gives the size and is named in the
/// description so that a user can tell which image a namespace stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    pub nsid: u32,
    /// Logical block size in octets (a power of two, 512 or more).
    pub lba_size: u32,
    /// Size in logical blocks (NSZE = NCAP = NUSE).
    pub blocks: u64,
    pub backing: Option<PathBuf>,
}

/// Why a namespace cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum NamespaceError {
    #[error("logical block size {0} is not a power of two of at least 512")]
    BadLbaSize(u32),
    #[error("namespace of {bytes} octets holds no whole block of {lba_size}")]
    TooSmall { bytes: u64, lba_size: u32 },
    #[error("namespace ID {0} is not in 1..=0xFFFFFFFE")]
    BadNsid(u32),
    #[error("namespace backing file {path}: {err}")]
    File { path: PathBuf, err: std::io::Error },
}

impl Namespace {
    /// A namespace of `bytes` octets (rounded down to whole blocks).
    pub fn with_size(nsid: u32, bytes: u64, lba_size: u32) -> Result<Namespace, NamespaceError> {
        if lba_size < 512 || !lba_size.is_power_of_two() {
            return Err(NamespaceError::BadLbaSize(lba_size));
        }
        if !(1..super::NSID_ALL).contains(&nsid) {
            return Err(NamespaceError::BadNsid(nsid));
        }
        let blocks = bytes / u64::from(lba_size);
        if blocks == 0 {
            return Err(NamespaceError::TooSmall { bytes, lba_size });
        }
        Ok(Namespace {
            nsid,
            lba_size,
            blocks,
            backing: None,
        })
    }

    /// A namespace the size of the file at `path`.
    pub fn from_file(nsid: u32, path: &Path, lba_size: u32) -> Result<Namespace, NamespaceError> {
        let bytes = std::fs::metadata(path)
            .map_err(|err| NamespaceError::File {
                path: path.to_path_buf(),
                err,
            })?
            .len();
        Ok(Namespace {
            backing: Some(path.to_path_buf()),
            ..Namespace::with_size(nsid, bytes, lba_size)?
        })
    }

    pub fn bytes(&self) -> u64 {
        self.blocks * u64::from(self.lba_size)
    }

    /// LBADS: log2 of the block size.
    pub fn lbads(&self) -> u8 {
        self.lba_size.trailing_zeros() as u8
    }
}

/// Health and SMART values (NVMe Base 2.0 Figure 207), as a test or the CLI sets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Health {
    /// Composite temperature, degrees Celsius.
    pub temperature_c: i16,
    /// Available spare, percent.
    pub available_spare: u8,
    pub spare_threshold: u8,
    /// Percentage used (may exceed 100, saturates at 255).
    pub percent_used: u8,
    /// Critical warning bits set on purpose (reliability degraded, read only, …); the spare
    /// and temperature bits also follow the values above.
    pub warnings: u8,
    pub power_on_hours: u64,
    pub power_cycles: u64,
    pub unsafe_shutdowns: u64,
    pub media_errors: u64,
    /// Thousands of 512-octet units.
    pub data_units_read: u64,
    pub data_units_written: u64,
    pub host_read_commands: u64,
    pub host_write_commands: u64,
    pub controller_busy_minutes: u64,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            temperature_c: 37,
            available_spare: 100,
            spare_threshold: 10,
            percent_used: 3,
            warnings: 0,
            power_on_hours: 1234,
            power_cycles: 56,
            unsafe_shutdowns: 2,
            media_errors: 0,
            data_units_read: 123_456,
            data_units_written: 654_321,
            host_read_commands: 9_876_543,
            host_write_commands: 3_456_789,
            controller_busy_minutes: 77,
        }
    }
}

/// Firmware slots (NVMe Base 2.0 Figure 210): revisions of slots 1..=7, the active slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Firmware {
    /// Revision in each slot; `None` is an empty slot. At most 7.
    pub slots: Vec<Option<String>>,
    /// Active slot, 1-based.
    pub active: u8,
    pub slot1_read_only: bool,
}

impl Firmware {
    /// The running revision (Identify Controller FR).
    pub fn active_revision(&self) -> &str {
        self.slots
            .get(usize::from(self.active.max(1) - 1))
            .and_then(|s| s.as_deref())
            .unwrap_or("")
    }
}

/// An Error Information log entry (NVMe Base 2.0 Figure 205).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorEntry {
    pub error_count: u64,
    pub sqid: u16,
    pub cmdid: u16,
    pub status: NvmeStatus,
    pub parm_error_location: u16,
    pub lba: u64,
    pub nsid: u32,
}

/// Temperature Threshold feature values, Kelvin (composite sensor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TemperatureThreshold {
    pub over_k: u16,
    pub under_k: u16,
}

/// The NVM subsystem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subsystem {
    pub identity: Identity,
    pub controllers: Vec<Controller>,
    pub namespaces: Vec<Namespace>,
    /// Number of Namespaces (NN): the largest valid NSID.
    pub max_namespaces: u32,
    pub firmware: Firmware,
    /// Newest first; Identify Controller ELPE says how many entries the log holds.
    pub error_log: Vec<ErrorEntry>,
    /// Error Log Page Entries, 0's based (ELPE).
    pub error_log_entries: u8,
    /// Warning and critical composite temperature thresholds, Kelvin (WCTEMP, CCTEMP).
    pub wctemp_k: u16,
    pub cctemp_k: u16,
    pub temperature_threshold: TemperatureThreshold,
    /// Power states supported (NPSS is this minus 1) and the current one.
    pub power_states: u8,
    pub power_state: u8,
    /// I/O queues allocated, 0's based (Number of Queues feature: NSQA, NCQA).
    pub io_queues: (u16, u16),
    health: Health,
    /// Composite Controller Status change flags not yet cleared (bits of [`change`]).
    ccs: u16,
}

impl Default for Subsystem {
    fn default() -> Self {
        Subsystem::new(1, vec![Namespace::with_size(1, 1 << 30, 512).expect("valid")])
    }
}

impl Subsystem {
    /// A subsystem of `controllers` controllers (IDs 0..) sharing `namespaces`.
    pub fn new(controllers: u16, namespaces: Vec<Namespace>) -> Subsystem {
        let max_namespaces = namespaces.iter().map(|n| n.nsid).max().unwrap_or(1);
        Subsystem {
            identity: Identity {
                vid: 0x1B36,
                ssvid: 0x1AF4,
                did: 0x0010,
                ssid: 0x1100,
                serial: "OFFLOAD-MI-0001".into(),
                model: "offload NVMe-MI model".into(),
                ieee_oui: [0x00, 0x54, 0x52],
                subnqn: "nqn.2026-11.invalid.offload:nvme-mi-model".into(),
            },
            controllers: (0..controllers)
                .map(|id| Controller {
                    id,
                    port: 0,
                    pci_function: id as u8,
                    ready: true,
                    changes: 0,
                })
                .collect(),
            namespaces,
            max_namespaces,
            firmware: Firmware {
                slots: vec![Some("1.0.0".into()), Some("1.1.0".into())],
                active: 2,
                slot1_read_only: true,
            },
            error_log: Vec::new(),
            error_log_entries: 15,
            wctemp_k: super::kelvin(70),
            cctemp_k: super::kelvin(85),
            temperature_threshold: TemperatureThreshold {
                over_k: super::kelvin(70),
                under_k: 0,
            },
            power_states: 1,
            power_state: 0,
            io_queues: (63, 63),
            health: Health::default(),
            ccs: 0,
        }
    }

    pub fn controller(&self, id: u16) -> Option<&Controller> {
        self.controllers.iter().find(|c| c.id == id)
    }

    pub fn namespace(&self, nsid: u32) -> Option<&Namespace> {
        self.namespaces.iter().find(|n| n.nsid == nsid)
    }

    pub fn health(&self) -> &Health {
        &self.health
    }

    /// Replaces the health values, raising the change flags of what changed (subsystem CCS
    /// and every controller's), as a drive does when it updates SMART.
    pub fn set_health(&mut self, h: Health) {
        let before = (self.critical_warning(), self.health.clone());
        self.health = h;
        let mut changed = 0;
        if before.1.temperature_c != self.health.temperature_c {
            changed |= change::CTEMP;
        }
        if before.1.percent_used != self.health.percent_used {
            changed |= change::PDLU;
        }
        if before.1.available_spare != self.health.available_spare {
            changed |= change::SPARE;
        }
        if before.0 != self.critical_warning() {
            changed |= change::CCWARN;
        }
        self.raise(changed);
    }

    /// Changes one health value through a closure (see [`Subsystem::set_health`]).
    pub fn update_health(&mut self, f: impl FnOnce(&mut Health)) {
        let mut h = self.health.clone();
        f(&mut h);
        self.set_health(h);
    }

    /// Sets the Temperature Threshold feature; the critical warning follows it.
    pub fn set_temperature_threshold(&mut self, t: TemperatureThreshold) {
        let before = self.critical_warning();
        self.temperature_threshold = t;
        if before != self.critical_warning() {
            self.raise(change::CCWARN);
        }
    }

    fn raise(&mut self, bits: u16) {
        self.ccs |= bits;
        for c in &mut self.controllers {
            c.changes |= bits;
        }
    }

    /// SMART Critical Warning: the bits set on purpose, plus spare below threshold and
    /// composite temperature over or under its threshold.
    pub fn critical_warning(&self) -> u8 {
        let h = &self.health;
        let mut w = h.warnings & 0x1F;
        if h.available_spare < h.spare_threshold {
            w |= critical_warning::SPARE_BELOW_THRESHOLD;
        }
        let k = super::kelvin(h.temperature_c);
        let t = self.temperature_threshold;
        if k > t.over_k || (t.under_k != 0 && k < t.under_k) {
            w |= critical_warning::TEMPERATURE;
        }
        w
    }

    /// Composite Controller Status: change flags not yet cleared.
    pub fn ccs(&self) -> u16 {
        self.ccs
    }

    /// Clears the CCS flags in `mask` (Configuration Set, Health Status Change; a Subsystem
    /// Health Status Poll with Clear Status).
    pub fn clear_ccs(&mut self, mask: u16) {
        self.ccs &= !mask;
    }

    /// Total NVM capacity (TNVMCAP): every namespace's octets.
    pub fn capacity(&self) -> u128 {
        self.namespaces.iter().map(|n| u128::from(n.bytes())).sum()
    }

    /// Records an error in the Error Information log (newest first, at most ELPE + 1 kept).
    pub fn log_error(&mut self, mut e: ErrorEntry) {
        e.error_count = self.error_log.first().map_or(1, |f| f.error_count + 1);
        self.error_log.insert(0, e);
        self.error_log
            .truncate(usize::from(self.error_log_entries) + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_by_size_and_file() {
        let n = Namespace::with_size(1, 1 << 20, 4096).unwrap();
        assert_eq!((n.blocks, n.lbads(), n.bytes()), (256, 12, 1 << 20));
        assert!(matches!(
            Namespace::with_size(1, 100, 512),
            Err(NamespaceError::TooSmall { .. })
        ));
        assert!(matches!(
            Namespace::with_size(1, 4096, 1000),
            Err(NamespaceError::BadLbaSize(1000))
        ));
        assert!(matches!(
            Namespace::with_size(0, 4096, 512),
            Err(NamespaceError::BadNsid(0))
        ));
        let p = std::env::temp_dir().join(format!("offload-ns-{}.img", std::process::id()));
        std::fs::write(&p, vec![0u8; 5 * 512 + 100]).unwrap();
        let n = Namespace::from_file(3, &p, 512).unwrap();
        assert_eq!((n.nsid, n.blocks, n.backing.as_deref()), (3, 5, Some(&*p)));
        std::fs::remove_file(&p).unwrap();
        assert!(matches!(
            Namespace::from_file(3, &p, 512),
            Err(NamespaceError::File { .. })
        ));
    }

    #[test]
    fn health_changes_raise_flags_and_warnings_follow_values() {
        let mut s = Subsystem::new(2, vec![]);
        assert_eq!((s.ccs(), s.critical_warning()), (0, 0));
        s.update_health(|h| h.temperature_c = 90);
        assert_eq!(s.critical_warning(), critical_warning::TEMPERATURE);
        assert_eq!(s.ccs(), change::CTEMP | change::CCWARN);
        assert!(s.controllers.iter().all(|c| c.changes == s.ccs()));
        s.clear_ccs(change::CTEMP);
        assert_eq!(s.ccs(), change::CCWARN);
        s.update_health(|h| h.available_spare = 5);
        assert_eq!(
            s.critical_warning(),
            critical_warning::TEMPERATURE | critical_warning::SPARE_BELOW_THRESHOLD
        );
        // Raising the threshold above the temperature ends the temperature warning.
        s.clear_ccs(change::ALL);
        s.set_temperature_threshold(TemperatureThreshold {
            over_k: super::super::kelvin(95),
            under_k: 0,
        });
        assert_eq!(s.critical_warning(), critical_warning::SPARE_BELOW_THRESHOLD);
        assert_eq!(s.ccs(), change::CCWARN);
        // No change, no flag.
        s.clear_ccs(change::ALL);
        s.update_health(|h| h.power_on_hours += 0);
        assert_eq!(s.ccs(), 0);
    }

    #[test]
    fn error_log_is_newest_first_and_bounded() {
        let mut s = Subsystem::default();
        s.error_log_entries = 1;
        for i in 0..3 {
            s.log_error(ErrorEntry {
                error_count: 0,
                sqid: 0,
                cmdid: i,
                status: NvmeStatus::generic(2),
                parm_error_location: 0,
                lba: 0,
                nsid: 0,
            });
        }
        let counts: Vec<_> = s.error_log.iter().map(|e| (e.error_count, e.cmdid)).collect();
        assert_eq!(counts, [(3, 2), (2, 1)]);
    }
}
