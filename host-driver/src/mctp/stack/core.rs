//! The stack itself, sans-IO: sockets, tags, routing, forwarding and reassembly, with time
//! passed in by the caller. [`Endpoint`](super::Endpoint) wraps it with threads and links;
//! tests drive it directly, packet by packet, with no clock.
//!
//! Receive path (Linux `mctp_route_input`): a packet for a local EID, the null EID or the
//! broadcast EID is reassembled (one [`Reassembler`] per network: bounded contexts, 64 KiB per
//! message); a complete request (TO = 1) goes to the socket bound to its (network, EID, type),
//! the most specific binding first; a response (TO = 0) goes to the socket holding the tag
//! towards its sender. A packet for another EID is forwarded whole, never reassembled, along
//! the route when its network forwards, and dropped when larger than the route MTU.

use super::addr::{
    ExtAddr, SockAddr, ADDR_ANY, ADDR_BCAST, ADDR_NULL, TAG_MASK, TAG_OWNER, TYPE_MASK,
};
use super::error::StackError;
use super::tags::{Key, KeyKind, SocketId, TagTable};
use super::topology::{LinkId, NetId, Topology};
use crate::mctp::header::{Header, HEADER_LEN};
use crate::mctp::packetizer::{TxConfig, MAX_MESSAGE_LEN};
use crate::mctp::reassembly::{Message, Outcome, Reassembler, ReassemblyConfig, ReassemblyStats};
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Condvar};
use std::time::Duration;

/// The kernel's tag lifetime (`mctp_key_lifetime`): a `send_to` tag lapses this long after
/// the last send, unless [`TagControl`] says otherwise.
pub const DEFAULT_TAG_TIMEOUT: Duration = Duration::from_secs(6);
/// Octets a socket may hold unread (about the kernel's default `SO_RCVBUF`); more is dropped.
pub const DEFAULT_RCVBUF: usize = 256 * 1024;

/// Limits of a stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackConfig {
    /// Per network: contexts, message size (64 KiB as the kernel), reassembly timeout.
    pub reassembly: ReassemblyConfig,
    /// Default lifetime of `send_to` tags.
    pub tag_timeout: Duration,
    /// Unread octets per socket.
    pub rcvbuf: usize,
}

impl Default for StackConfig {
    fn default() -> Self {
        StackConfig {
            reassembly: ReassemblyConfig {
                // Our senders use the same unit for every non-final packet, but a forwarded or
                // foreign stack may not: the kernel accepts any unit, so do we.
                strict_unit_size: false,
                ..ReassemblyConfig::default()
            },
            tag_timeout: DEFAULT_TAG_TIMEOUT,
            rcvbuf: DEFAULT_RCVBUF,
        }
    }
}

/// The `MCTP_TAG_CONTROL` socket option: how long a `send_to` tag lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TagControl {
    /// Lapse this long after the last send to the peer.
    Timeout(Duration),
    /// Keep the tag until the socket sends to another peer or closes.
    Retain,
}

/// A packet as a link received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxPacket {
    /// Transport header and payload.
    pub bytes: Vec<u8>,
    /// The sender's physical address (SMBus source slave address), if the binding has one.
    pub hwaddr: Option<u8>,
}

/// Work for a link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Egress {
    /// A whole message to packetize with `config` (payload MTU chosen from the route).
    Message {
        link: LinkId,
        hwaddr: Option<u8>,
        config: TxConfig,
        message: Vec<u8>,
    },
    /// A forwarded packet, as received.
    Packet {
        link: LinkId,
        hwaddr: Option<u8>,
        packet: Vec<u8>,
    },
}

impl Egress {
    pub fn link(&self) -> LinkId {
        match self {
            Egress::Message { link, .. } | Egress::Packet { link, .. } => *link,
        }
    }
}

/// What the stack did with the packets and messages it saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StackStats {
    pub rx_packets: u64,
    /// Not an MCTP packet (header).
    pub malformed: u64,
    /// For another EID on a network that does not forward, or with no route.
    pub no_route: u64,
    pub forwarded: u64,
    /// Forwarded packets larger than the route MTU.
    pub forward_too_big: u64,
    /// Messages queued on a socket.
    pub delivered: u64,
    /// Requests no socket is bound for, responses no tag is held for.
    pub no_listener: u64,
    /// Messages dropped because the socket's receive buffer was full.
    pub queue_full: u64,
    pub tx_messages: u64,
    /// Frames the links could not decode (bad FCS/PEC, …).
    pub link_errors: u64,
}

#[derive(Debug, Clone, Copy)]
struct Bind {
    net: NetId,
    addr: u8,
    typ: u8,
}

#[derive(Debug, Clone, Copy)]
struct Conn {
    addr: SockAddr,
}

#[derive(Debug)]
struct SockState {
    bound: Option<Bind>,
    conn: Option<Conn>,
    tag_control: TagControl,
    queue: VecDeque<(Vec<u8>, SockAddr)>,
    queued: usize,
    wake: Arc<Condvar>,
}

enum Dest {
    Local,
    Links(Vec<(LinkId, Option<u8>, usize)>),
}

/// The sans-IO stack.
#[derive(Debug)]
pub struct Core {
    config: StackConfig,
    topo: Topology,
    tags: TagTable,
    sockets: BTreeMap<SocketId, SockState>,
    next_socket: u64,
    reasm: HashMap<NetId, Reassembler>,
    stats: StackStats,
}

impl Core {
    pub fn new(config: StackConfig) -> Result<Core, StackError> {
        // Validate the reassembly limits once, here.
        Reassembler::new(config.reassembly)
            .map_err(|_| StackError::Invalid("reassembly limits must be at least 1"))?;
        if config.reassembly.max_message_len > MAX_MESSAGE_LEN {
            return Err(StackError::Invalid("reassembly limit over 64 KiB"));
        }
        Ok(Core {
            config,
            topo: Topology::new(),
            tags: TagTable::default(),
            sockets: BTreeMap::new(),
            next_socket: 1,
            reasm: HashMap::new(),
            stats: StackStats::default(),
        })
    }

    pub fn config(&self) -> &StackConfig {
        &self.config
    }

    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    pub fn topology_mut(&mut self) -> &mut Topology {
        &mut self.topo
    }

    pub fn stats(&self) -> StackStats {
        self.stats
    }

    /// Reassembly counters summed over the networks.
    pub fn reassembly_stats(&self) -> ReassemblyStats {
        let mut s = ReassemblyStats::default();
        for r in self.reasm.values() {
            let t = r.stats();
            s.delivered += t.delivered;
            s.malformed += t.malformed;
            s.no_context += t.no_context;
            s.bad_sequence += t.bad_sequence;
            s.bad_unit_size += t.bad_unit_size;
            s.restarted += t.restarted;
            s.too_long += t.too_long;
            s.timed_out += t.timed_out;
            s.contexts_full += t.contexts_full;
        }
        s
    }

    /// Reassemblies in progress and the octets they hold.
    pub fn reassembly_usage(&self) -> (usize, usize) {
        self.reasm.values().fold((0, 0), |(c, o), r| {
            (c + r.active_contexts(), o + r.buffered_octets())
        })
    }

    /// Unread octets over every socket.
    pub fn queued_octets(&self) -> usize {
        self.sockets.values().map(|s| s.queued).sum()
    }

    pub fn keys(&self) -> &[Key] {
        self.tags.keys()
    }

    pub fn note_link_error(&mut self) {
        self.stats.link_errors += 1;
    }

    /// Drops lapsed tags and reassemblies.
    pub fn expire(&mut self, now: Duration) {
        self.tags.expire(now);
        for r in self.reasm.values_mut() {
            r.expire(now);
        }
    }

    /// `socket()`: a new socket; `wake` is notified when a message is queued for it.
    pub fn open(&mut self, wake: Arc<Condvar>) -> SocketId {
        let id = SocketId(self.next_socket);
        self.next_socket += 1;
        self.sockets.insert(
            id,
            SockState {
                bound: None,
                conn: None,
                tag_control: TagControl::Timeout(self.config.tag_timeout),
                queue: VecDeque::new(),
                queued: 0,
                wake,
            },
        );
        id
    }

    /// `close()`: releases the binding and every tag of the socket.
    pub fn close(&mut self, s: SocketId) {
        if let Some(st) = self.sockets.remove(&s) {
            st.wake.notify_all();
        }
        self.tags.release(s, None);
    }

    fn sock(&mut self, s: SocketId) -> Result<&mut SockState, StackError> {
        self.sockets
            .get_mut(&s)
            .ok_or(StackError::NotConnected("socket is closed"))
    }

    /// `bind()`: receive requests (TO = 1) of `addr.typ` for `addr.eid` (or any local EID) on
    /// `addr.net` (or any network). `addr.tag` must be exactly `TAG_OWNER`.
    pub fn bind(&mut self, s: SocketId, addr: &SockAddr) -> Result<(), StackError> {
        if addr.tag != TAG_OWNER {
            return Err(StackError::Invalid("bind needs smctp_tag = MCTP_TAG_OWNER"));
        }
        if addr.net.0 != 0 {
            self.topo.resolve_net(addr.net)?;
        }
        let b = Bind {
            net: addr.net,
            addr: addr.eid,
            typ: addr.typ & TYPE_MASK,
        };
        if self.sock(s)?.bound.is_some() {
            return Err(StackError::Invalid("socket is already bound"));
        }
        let clash = self
            .sockets
            .values()
            .filter_map(|o| o.bound)
            .any(|o| o.net == b.net && o.addr == b.addr && o.typ == b.typ);
        if clash {
            return Err(StackError::AddrInUse(
                "another socket is bound to that address and type",
            ));
        }
        self.sock(s)?.bound = Some(b);
        Ok(())
    }

    /// `connect()`: the default destination, with a tag reserved for it until the next
    /// `connect` or `close` (`EAGAIN` when none is free).
    pub fn connect(
        &mut self,
        s: SocketId,
        addr: &SockAddr,
        now: Duration,
    ) -> Result<(), StackError> {
        if addr.tag != TAG_OWNER {
            return Err(StackError::Invalid(
                "connect needs smctp_tag = MCTP_TAG_OWNER",
            ));
        }
        self.sock(s)?;
        let net = self.topo.resolve_net(addr.net)?;
        let local = match self.resolve(net, addr.eid, addr.ext)? {
            Dest::Local => addr.eid,
            Dest::Links(l) => self.topo.source_eid(l[0].0),
        };
        self.tags.release(s, Some(KeyKind::Connect));
        self.sock(s)?.conn = None;
        self.tags
            .allocate(net, local, addr.eid, s, KeyKind::Connect, None, now)
            .ok_or(StackError::Again("no free tag towards that peer"))?;
        self.sock(s)?.conn = Some(Conn {
            addr: SockAddr { net, ..*addr },
        });
        Ok(())
    }

    /// `getpeername()`.
    pub fn peer_addr(&mut self, s: SocketId) -> Result<SockAddr, StackError> {
        let c = self
            .sock(s)?
            .conn
            .ok_or(StackError::NotConnected("socket is not connected"))?;
        let tag = self.tags.find(s, KeyKind::Connect).map_or(0, |k| k.tag);
        Ok(SockAddr {
            tag: TAG_OWNER | tag,
            ..c.addr
        })
    }

    /// `setsockopt(MCTP_TAG_CONTROL)`: applies to the next `send_to` tag.
    pub fn set_tag_control(&mut self, s: SocketId, tc: TagControl) -> Result<(), StackError> {
        self.sock(s)?.tag_control = tc;
        Ok(())
    }

    /// Releases the socket's `send_to` tag now (what a timeout would do).
    pub fn drop_tag(&mut self, s: SocketId) -> Result<(), StackError> {
        self.sock(s)?;
        self.tags.release(s, Some(KeyKind::SendTo));
        Ok(())
    }

    /// `send()`: to the connected address with its tag.
    pub fn send(
        &mut self,
        s: SocketId,
        msg: &[u8],
        now: Duration,
    ) -> Result<Vec<Egress>, StackError> {
        let c = self.sock(s)?.conn.ok_or(StackError::DestAddrRequired)?;
        self.send_to(s, msg, &c.addr, now)
    }

    /// `sendto()`: `msg` starts with the IC·type octet, which must match `addr.typ`.
    pub fn send_to(
        &mut self,
        s: SocketId,
        msg: &[u8],
        addr: &SockAddr,
        now: Duration,
    ) -> Result<Vec<Egress>, StackError> {
        self.send_to_from(s, msg, addr, None, now)
    }

    /// [`send_to`](Self::send_to) from `src` instead of the egress link's first address (the
    /// control responder answers Set Endpoint ID from the EID the request reached, which may
    /// no longer be local).
    pub fn send_to_from(
        &mut self,
        s: SocketId,
        msg: &[u8],
        addr: &SockAddr,
        src: Option<u8>,
        now: Duration,
    ) -> Result<Vec<Egress>, StackError> {
        self.sock(s)?;
        let Some(&first) = msg.first() else {
            return Err(StackError::Invalid(
                "empty message: the type octet is required",
            ));
        };
        if msg.len() > MAX_MESSAGE_LEN {
            return Err(StackError::MessageTooLong {
                len: msg.len(),
                max: MAX_MESSAGE_LEN,
            });
        }
        if first & TYPE_MASK != addr.typ & TYPE_MASK {
            return Err(StackError::Protocol {
                expected: addr.typ & TYPE_MASK,
                found: first & TYPE_MASK,
            });
        }
        let owner = addr.tag_owner();
        if !owner && addr.tag & !TAG_MASK != 0 {
            return Err(StackError::Invalid("tag value over 7"));
        }
        let net = self.topo.resolve_net(addr.net)?;
        let dest = self.resolve(net, addr.eid, addr.ext)?;
        let local = match (&dest, src) {
            (_, Some(e)) => {
                if e == ADDR_BCAST || crate::mctp::header::EID_RESERVED.contains(&e) {
                    return Err(StackError::Invalid("source EID is broadcast or reserved"));
                }
                e
            }
            (Dest::Local, None) => addr.eid,
            (Dest::Links(l), None) => self.topo.source_eid(l[0].0),
        };
        let tag = if owner {
            self.tag_for(s, net, local, addr.eid, now)?
        } else {
            addr.tag & TAG_MASK
        };
        self.stats.tx_messages += 1;
        match dest {
            Dest::Local => {
                let m = Message {
                    src: local,
                    dst: addr.eid,
                    tag,
                    tag_owner: owner,
                    bytes: msg.to_vec(),
                };
                self.deliver(net, None, m, now);
                Ok(Vec::new())
            }
            Dest::Links(links) => Ok(links
                .into_iter()
                .map(|(link, hwaddr, mtu)| Egress::Message {
                    link,
                    hwaddr,
                    config: TxConfig {
                        src: src.unwrap_or_else(|| self.topo.source_eid(link)),
                        dst: addr.eid,
                        tag,
                        tag_owner: owner,
                        mtu: mtu - HEADER_LEN,
                        start_seq: 0,
                    },
                    message: msg.to_vec(),
                })
                .collect()),
        }
    }

    fn tag_for(
        &mut self,
        s: SocketId,
        net: NetId,
        local: u8,
        peer: u8,
        now: Duration,
    ) -> Result<u8, StackError> {
        self.tags.expire(now);
        let st = self.sock(s)?;
        let tc = st.tag_control;
        if let Some(c) = st.conn {
            if c.addr.net == net && c.addr.eid == peer {
                if let Some(k) = self.tags.find(s, KeyKind::Connect) {
                    return Ok(k.tag);
                }
            }
        }
        let expiry = match tc {
            TagControl::Timeout(d) => Some(now.saturating_add(d)),
            TagControl::Retain => None,
        };
        if let Some(k) = self.tags.find(s, KeyKind::SendTo) {
            if (k.net, k.local, k.peer) == (net, local, peer) {
                let tag = k.tag;
                self.tags.refresh(s, KeyKind::SendTo, expiry);
                return Ok(tag);
            }
        }
        // A new destination ends the previous allocation.
        self.tags.release(s, Some(KeyKind::SendTo));
        self.tags
            .allocate(net, local, peer, s, KeyKind::SendTo, expiry, now)
            .ok_or(StackError::Again("no free tag towards that peer"))
    }

    fn resolve(&self, net: NetId, eid: u8, ext: Option<ExtAddr>) -> Result<Dest, StackError> {
        if let Some(x) = ext {
            let l = self.topo.link(x.link)?;
            if l.net != net {
                return Err(StackError::Invalid(
                    "extended address link is in another network",
                ));
            }
            if !l.up {
                return Err(StackError::HostUnreachable { net: net.0, eid });
            }
            return Ok(Dest::Links(vec![(x.link, x.hwaddr, l.mtu)]));
        }
        if eid != ADDR_BCAST && eid != ADDR_NULL && self.topo.is_local(net, eid) {
            return Ok(Dest::Local);
        }
        if eid == ADDR_BCAST {
            // Every up link of the network that can reach all its peers without an address.
            let links: Vec<_> = self
                .topo
                .links()
                .filter(|l| l.net == net && l.up && l.hwaddr.is_none())
                .map(|l| (l.id, None, l.mtu))
                .collect();
            if links.is_empty() {
                return Err(StackError::HostUnreachable { net: net.0, eid });
            }
            return Ok(Dest::Links(links));
        }
        let (_, hop) = self
            .topo
            .lookup(net, eid)
            .ok_or(StackError::HostUnreachable { net: net.0, eid })?;
        let l = self.topo.link(hop.link)?;
        if l.hwaddr.is_some() && hop.hwaddr.is_none() {
            // An addressed bus with no known physical address for the peer.
            return Err(StackError::HostUnreachable { net: net.0, eid });
        }
        Ok(Dest::Links(vec![(hop.link, hop.hwaddr, hop.mtu)]))
    }

    /// `recv()` without blocking: the oldest queued message and its sender.
    pub fn try_recv(&mut self, s: SocketId) -> Result<Option<(Vec<u8>, SockAddr)>, StackError> {
        let st = self.sock(s)?;
        let m = st.queue.pop_front();
        if let Some((b, _)) = &m {
            st.queued -= b.len();
        }
        Ok(m)
    }

    /// Is anything left that could ever be received on this socket?
    pub fn can_receive(&self, s: SocketId) -> bool {
        self.sockets.get(&s).is_some_and(|st| {
            !st.queue.is_empty()
                || st.bound.is_some()
                || st.conn.is_some()
                || self.tags.keys().iter().any(|k| k.socket == s)
        })
    }

    /// Takes one packet received on `link` at `now`; returns the packet to forward, if any.
    pub fn input(&mut self, link: LinkId, pkt: RxPacket, now: Duration) -> Vec<Egress> {
        self.stats.rx_packets += 1;
        let Ok(info) = self.topo.link(link) else {
            return Vec::new();
        };
        if !info.up {
            return Vec::new();
        }
        let net = info.net;
        let h = match Header::decode(&pkt.bytes) {
            Ok(h) => h,
            Err(_) => {
                self.stats.malformed += 1;
                return Vec::new();
            }
        };
        if let Some(hw) = pkt.hwaddr {
            self.topo.learn_neighbour(net, h.src, link, hw);
        }
        if h.dst == ADDR_NULL || h.dst == ADDR_BCAST || self.topo.is_local(net, h.dst) {
            let cfg = self.config.reassembly;
            let r = self
                .reasm
                .entry(net)
                .or_insert_with(|| Reassembler::new(cfg).expect("validated in Core::new"));
            if let Outcome::Delivered(m) = r.push(&pkt.bytes, now) {
                let ext = ExtAddr {
                    link,
                    hwaddr: pkt.hwaddr,
                };
                self.deliver(net, Some(ext), m, now);
            }
            return Vec::new();
        }
        if !self.topo.forwarding(net) {
            self.stats.no_route += 1;
            return Vec::new();
        }
        match self.topo.lookup(net, h.dst) {
            Some((_, hop)) if hop.link != link => {
                if pkt.bytes.len() > hop.mtu {
                    self.stats.forward_too_big += 1;
                    Vec::new()
                } else {
                    self.stats.forwarded += 1;
                    vec![Egress::Packet {
                        link: hop.link,
                        hwaddr: hop.hwaddr,
                        packet: pkt.bytes,
                    }]
                }
            }
            _ => {
                self.stats.no_route += 1;
                Vec::new()
            }
        }
    }

    fn deliver(&mut self, net: NetId, ext: Option<ExtAddr>, m: Message, now: Duration) {
        let typ = m.bytes[0] & TYPE_MASK;
        let (sock, tag) = if m.tag_owner {
            // Most specific binding first: exact EID over ANY, exact network over ANY.
            let best = self
                .sockets
                .iter()
                .filter_map(|(id, st)| st.bound.map(|b| (*id, b)))
                .filter(|(_, b)| {
                    b.typ == typ
                        && (b.net.0 == 0 || b.net == net)
                        && (b.addr == ADDR_ANY || b.addr == m.dst)
                })
                .max_by_key(|(_, b)| (b.addr != ADDR_ANY, b.net.0 != 0));
            (best.map(|(id, _)| id), m.tag | TAG_OWNER)
        } else {
            (self.tags.lookup(net, m.dst, m.src, m.tag, now), m.tag)
        };
        let Some(sock) = sock else {
            self.stats.no_listener += 1;
            return;
        };
        let addr = SockAddr {
            net,
            eid: m.src,
            typ,
            tag,
            ext,
        };
        let rcvbuf = self.config.rcvbuf;
        let st = self
            .sockets
            .get_mut(&sock)
            .expect("keys and binds belong to open sockets");
        if st.queued + m.bytes.len() > rcvbuf {
            self.stats.queue_full += 1;
            return;
        }
        st.queued += m.bytes.len();
        st.queue.push_back((m.bytes, addr));
        st.wake.notify_all();
        self.stats.delivered += 1;
    }
}
