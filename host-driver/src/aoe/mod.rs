//! ATA over Ethernet, protocol revision 11 (`../shared/specs/aoe-r11.txt`): both ends.
//!
//! - [`header`]: the Ethernet + AoE header, addresses, AoE errors 1–6 (§2);
//! - [`ata`], [`config`], [`mask`], [`reserve`]: the Arg of commands 0–3 (§3.1–§3.4);
//!   [`frame`] puts header and Arg together; [`identify`]: IDENTIFY DEVICE data;
//! - [`target`]: the server, sans I/O, serving a [`device::BlockDevice`]; [`server`]: its
//!   I/O loop;
//! - [`initiator`]: the client data path, sans I/O (tags, window, retransmission);
//!   [`client`]: discovery and a blocking client over a [`Link`];
//! - [`socket`]: Linux AF_PACKET raw sockets (ethertype 0x88A2), the [`Link`] for real
//!   interfaces; [`netns`]: namespaces and a veth pair for tests and benchmarks.
//!
//! It interoperates with vblade (target) and the Linux `aoe` driver (initiator).

pub mod ata;
pub mod client;
pub mod config;
pub mod device;
pub mod frame;
pub mod header;
pub mod identify;
pub mod initiator;
pub mod mask;
#[cfg(target_os = "linux")]
pub mod netns;
pub mod reserve;
pub mod server;
#[cfg(target_os = "linux")]
pub mod socket;
pub mod target;

pub use client::{discover, Client, ClientError, ClientOptions, Discovered, Link};
pub use device::{BlockDevice, FileDevice, MemDevice};
pub use frame::{Body, Frame};
pub use header::{format_mac, parse_mac, AoeError, FrameError, Header, Mac};
pub use identify::Identity;
pub use initiator::{Initiator, InitiatorConfig, InitiatorError, Request};
pub use server::{serve, ServeStats};
#[cfg(target_os = "linux")]
pub use socket::PacketSocket;
pub use target::{Backlog, Outcome, Target, TargetConfig, TargetStats};
