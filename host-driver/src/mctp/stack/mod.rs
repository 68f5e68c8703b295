//! An MCTP endpoint stack with the Linux kernel's semantics, in user space (the openbmc
//! in-kernel MCTP design, `mctp-kernel.md`): networks, links and routes
//! ([`topology`]), sockets with `bind`/`connect`/`send_to`/`recv_from` and the kernel's tag
//! rules ([`Endpoint`], [`Socket`], [`tags`]), links for the serial and SMBus bindings, a
//! loopback and the offload device, the MCTP control protocol ([`control`]) and NVMe-MI over
//! it ([`nvme_mi`]).
//!
//! [`Core`] is the whole stack sans-IO (time passed in); [`Endpoint`] runs it with a thread
//! per link. Errors are [`StackError`] variants named after the errno the kernel returns.

pub mod addr;
pub mod control;
pub mod control_endpoint;
pub mod core;
pub mod endpoint;
pub mod error;
pub mod link;
pub mod nvme_mi;
pub mod offload_link;
pub mod serial_link;
pub mod smbus_link;
pub mod tags;
pub mod topology;

pub use self::addr::{
    tag_rsp, ExtAddr, SockAddr, ADDR_ANY, ADDR_BCAST, ADDR_NULL, NET_ANY, TAG_MASK, TAG_OWNER,
    TYPE_CONTROL, TYPE_MASK, TYPE_NVME_MI,
};
pub use self::core::{Core, Egress, RxPacket, StackConfig, StackStats, TagControl};
pub use self::endpoint::{Endpoint, Socket};
pub use self::error::StackError;
pub use self::link::{loopback, pair, LinkError, LinkParts, LinkRx, LinkTx, RxEvent};
pub use self::offload_link::offload_link;
pub use self::serial_link::serial_link;
pub use self::smbus_link::SmbusBus;
pub use self::tags::{Key, KeyKind, SocketId};
pub use self::topology::{LinkId, LinkInfo, NetId, NextHop, Route, Topology, DEFAULT_NET};
