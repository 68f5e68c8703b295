//! The NVMe side of an NVMe-MI Management Endpoint: a model of an NVM subsystem (controllers,
//! namespaces, health) and the NVMe Admin commands NVMe-MI carries out of band (NVMe-MI 1.2
//! §6, "NVMe Admin Command Set"), executed against it.
//!
//! The data structures follow the NVM Express Base Specification 2.0 to the octet; their
//! layouts were checked against libnvme 1.3's `<nvme/types.h>` (`struct nvme_id_ctrl`,
//! `nvme_id_ns`, `nvme_smart_log`, `nvme_error_log_page`, `nvme_firmware_slot`), which is
//! what nvme-cli decodes them with.
//!
//! - [`status`]: completion status (Status Code Type, Status Code) and its place in CQE DW3;
//! - [`subsystem`]: the model, with the values a test or the CLI sets;
//! - [`identify`], [`log_page`], [`features`]: one file per Admin command's data;
//! - [`admin`]: an Admin command (the SQE dwords NVMe-MI carries) run against the model.

pub mod admin;
pub mod features;
pub mod identify;
pub mod log_page;
pub mod status;
pub mod subsystem;

pub use admin::{AdminCommand, AdminCompletion};
pub use status::NvmeStatus;
pub use subsystem::{Controller, Health, Namespace, SharedSubsystem, Subsystem};

/// Admin command opcodes (NVMe Base 2.0 Figure 138, "Opcodes for Admin Commands").
pub mod opcode {
    pub const GET_LOG_PAGE: u8 = 0x02;
    pub const IDENTIFY: u8 = 0x06;
    pub const SET_FEATURES: u8 = 0x09;
    pub const GET_FEATURES: u8 = 0x0A;
}

/// The NSID that means every namespace (NVMe Base 2.0 §3.2.1.2, "broadcast").
pub const NSID_ALL: u32 = 0xFFFF_FFFF;

/// Kelvin of a Celsius temperature, as SMART / Health and the thresholds report it.
pub fn kelvin(celsius: i16) -> u16 {
    (i32::from(celsius) + 273).clamp(0, i32::from(u16::MAX)) as u16
}
