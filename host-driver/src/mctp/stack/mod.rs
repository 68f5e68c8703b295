//! An MCTP endpoint stack with the Linux kernel's semantics, in user space (the openbmc
//! in-kernel MCTP design, `mctp-kernel.md`): networks, links and routes
//! ([`topology`]), sockets with `bind`/`connect`/`send_to`/`recv_from` and the kernel's tag
//! rules ([`Endpoint`], [`Socket`], [`tags`]), links for the serial and SMBus bindings, a
//! loopback and the offload device, the MCTP control protocol ([`control`]) and NVMe-MI over
//! it ([`nvme_mi`]).
//!
//! [`Core`] is the whole stack sans-IO (time passed in); [`Endpoint`] runs it with a thread
//! per link. Errors are [`StackError`] variants named after the errno the kernel returns.
//!
//! Where the design document is silent, the choices are:
//! - MTUs count the whole packet, header included, as Linux does (68 = the 64-octet baseline);
//! - packets to the null EID and to broadcast are delivered locally (bus-owner discovery);
//! - a tag lives until its timeout (6 s, the kernel's key lifetime), a send to another peer, or
//!   close, never released by a response, so several responses to one request all arrive;
//!   a key towards the null EID, like a broadcast key, holds its tag towards every peer and
//!   takes the response from whatever EID the endpoint answers with;
//! - a broadcast goes out on every up link of the network that needs no physical address;
//! - forwarding never sends a packet back out of the link it came in on;
//! - non-final packets of one message may differ in size (the kernel accepts that too);
//! - `recv_from` on a socket that can receive nothing (not bound or connected, no live tag,
//!   empty queue) fails with `ENOTCONN` instead of blocking for ever;
//! - sending with TO = 0 is not checked against the requests the socket received (neither
//!   does the kernel).

pub mod addr;
pub mod control;
pub mod control_endpoint;
pub mod core;
pub mod endpoint;
pub mod error;
pub mod link;
pub mod nvme_mi;
pub mod nvme_mi_responder;
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
