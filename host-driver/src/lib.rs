//! `offload-driver`: the host library of the storage-networking offload.
//!
//! It is the exact software model of every protocol the FPGA blocks implement (the reference
//! the hardware is checked against, cycle by cycle, in `offload-sim`), and the library users
//! link: CRCs, MPA (RFC 5044) framing, deframing and startup, MCTP packets and bindings,
//! NVMe-MI messages. [`Offload`] is the seam between software and hardware.

pub mod aoe;
pub mod crc;
pub mod fc;
pub mod mctp;
pub mod mpa;
pub mod nvme;
pub mod nvme_mi;
pub mod offload;
pub mod ok;
pub mod regmap;
pub mod registers;
pub mod top_offload;

pub use mpa::Deframed;
pub use offload::{Offload, OffloadError, SoftwareOffload};
