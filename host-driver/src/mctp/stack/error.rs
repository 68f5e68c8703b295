//! Errors of the endpoint stack, one variant per errno the Linux AF_MCTP sockets return
//! (openbmc `mctp-kernel.md`, "Syscall behaviour"), so code written against the kernel maps
//! one to one.

use super::link::LinkError;

/// Linux errno values (asm-generic/errno.h), for [`StackError::errno`].
pub mod errno {
    pub const EINVAL: i32 = 22;
    pub const EAGAIN: i32 = 11;
    pub const EIO: i32 = 5;
    pub const EPROTO: i32 = 71;
    pub const EDESTADDRREQ: i32 = 89;
    pub const EMSGSIZE: i32 = 90;
    pub const EADDRINUSE: i32 = 98;
    pub const ENOTCONN: i32 = 107;
    pub const ETIMEDOUT: i32 = 110;
    pub const EHOSTUNREACH: i32 = 113;
    pub const ENODEV: i32 = 19;
}

/// What a socket or configuration call refused, named after the errno the kernel returns.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StackError {
    /// `EINVAL`: an argument is not allowed (bind/connect without `TAG_OWNER`, a reserved EID,
    /// a tag value over 7, an empty message, a bad MTU or EID range).
    #[error("EINVAL: {0}")]
    Invalid(&'static str),
    /// `EAGAIN`: all 8 tags towards that peer are taken, or a receive timed out.
    #[error("EAGAIN: {0}")]
    Again(&'static str),
    /// `EDESTADDRREQ`: `send` on a socket that was never `connect`ed.
    #[error("EDESTADDRREQ: send without an address on an unconnected socket")]
    DestAddrRequired,
    /// `EPROTO`: the first message octet's type does not match the address's type.
    #[error("EPROTO: message type 0x{found:02x} in octet 0 but the address says 0x{expected:02x}")]
    Protocol { expected: u8, found: u8 },
    /// `ENOTCONN`: no peer address (`peer_addr` on an unconnected socket), or the endpoint is
    /// gone.
    #[error("ENOTCONN: {0}")]
    NotConnected(&'static str),
    /// `EADDRINUSE`: another socket is bound to the same (network, EID, type), or the EID is
    /// already a local address of that network.
    #[error("EADDRINUSE: {0}")]
    AddrInUse(&'static str),
    /// `EHOSTUNREACH`: no route (and no extended address) to the destination EID.
    #[error("EHOSTUNREACH: no route to EID {eid} on network {net}")]
    HostUnreachable { net: u32, eid: u8 },
    /// `EMSGSIZE`: longer than the 64 KiB the kernel reassembles.
    #[error("EMSGSIZE: message of {len} octets exceeds {max}")]
    MessageTooLong { len: usize, max: usize },
    /// `ENODEV`: no such link or network.
    #[error("ENODEV: no {what} {id}")]
    NoDevice { what: &'static str, id: u32 },
    /// `EIO`: the link failed to send.
    #[error("EIO: {0}")]
    Link(#[from] LinkError),
}

impl StackError {
    /// The errno the Linux kernel returns in the same situation.
    pub fn errno(&self) -> i32 {
        use errno::*;
        match self {
            StackError::Invalid(_) => EINVAL,
            StackError::Again(_) => EAGAIN,
            StackError::DestAddrRequired => EDESTADDRREQ,
            StackError::Protocol { .. } => EPROTO,
            StackError::NotConnected(_) => ENOTCONN,
            StackError::AddrInUse(_) => EADDRINUSE,
            StackError::HostUnreachable { .. } => EHOSTUNREACH,
            StackError::MessageTooLong { .. } => EMSGSIZE,
            StackError::NoDevice { .. } => ENODEV,
            StackError::Link(LinkError::Nack { .. }) => EHOSTUNREACH,
            StackError::Link(_) => EIO,
        }
    }
}
