//! `struct sockaddr_mctp` and its constants (openbmc `mctp-kernel.md`, "Protocol definitions"),
//! with the kernel's extended addressing (`MCTP_OPT_ADDR_EXT`: link index and physical
//! address) as an optional part.

use super::topology::{LinkId, NetId};

/// `MCTP_NET_ANY`: any network (bind), the default network (send).
pub const NET_ANY: NetId = NetId(0);
/// `MCTP_ADDR_ANY`: any local EID (bind).
pub const ADDR_ANY: u8 = 0xFF;
/// `MCTP_ADDR_BCAST`: the broadcast EID (send).
pub const ADDR_BCAST: u8 = 0xFF;
/// `MCTP_ADDR_NULL`: the null EID, the source and destination before EID assignment.
pub const ADDR_NULL: u8 = 0x00;
/// `MCTP_TYPE_MASK`: only 7 bits of the type are matched (the IC bit is not).
pub const TYPE_MASK: u8 = 0x7F;
/// `MCTP_TAG_MASK`: the 3-bit tag value.
pub const TAG_MASK: u8 = 0x07;
/// `MCTP_TAG_OWNER`: the TO bit; on send, "allocate a tag for me".
pub const TAG_OWNER: u8 = 0x08;

/// Message types (DSP0239) used in this crate.
pub const TYPE_CONTROL: u8 = 0x00;
pub const TYPE_NVME_MI: u8 = 0x04;

/// `MCTP_TAG_RSP(x)`: the tag to answer a received request with (TO clear, value kept).
pub const fn tag_rsp(tag: u8) -> u8 {
    tag & TAG_MASK
}

/// Physical addressing of a message (`struct sockaddr_mctp_ext`): which link it came in on
/// (or must go out on, bypassing the route table) and the link's hardware address of the
/// peer (the 7-bit SMBus slave address; `None` on point-to-point links).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExtAddr {
    pub link: LinkId,
    pub hwaddr: Option<u8>,
}

/// `struct sockaddr_mctp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SockAddr {
    /// `smctp_network`: a network id or [`NET_ANY`].
    pub net: NetId,
    /// `smctp_addr`: a remote EID (send, connect, recv) or local EID / [`ADDR_ANY`] (bind).
    pub eid: u8,
    /// `smctp_type`: the message type (7 bits matched).
    pub typ: u8,
    /// `smctp_tag`: [`TAG_OWNER`] to allocate (send) or accept owned tags (bind); otherwise the
    /// 3-bit tag of a response. On receive: the tag, with [`TAG_OWNER`] when the peer owns it.
    pub tag: u8,
    /// Extended addressing: always filled on receive; on send, forces the link.
    pub ext: Option<ExtAddr>,
}

impl SockAddr {
    /// An address with `TAG_OWNER` (bind, connect, requests).
    pub const fn owner(net: NetId, eid: u8, typ: u8) -> SockAddr {
        SockAddr {
            net,
            eid,
            typ,
            tag: TAG_OWNER,
            ext: None,
        }
    }

    /// The address to answer a request received from `self` with: same network, peer and
    /// link, the tag with TO cleared.
    pub fn reply(&self) -> SockAddr {
        SockAddr {
            tag: tag_rsp(self.tag),
            ..*self
        }
    }

    /// The TO bit of `tag`.
    pub fn tag_owner(&self) -> bool {
        self.tag & TAG_OWNER != 0
    }
}
