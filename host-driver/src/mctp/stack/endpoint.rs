//! [`Endpoint`]: the stack running, in user space, with the sockets API of AF_MCTP.
//!
//! One mutex holds the sans-IO [`Core`]; each link has a receive thread that feeds it packets
//! and a transmit half behind its own mutex, written outside the core lock so a slow link never
//! stalls the others (nor deadlocks two endpoints whose streams are both full). Sockets block
//! on a condition variable of their own.

use super::addr::SockAddr;
use super::core::{Core, Egress, StackConfig, StackStats, TagControl};
use super::error::StackError;
use super::link::{LinkError, LinkParts, LinkTx, RxEvent};
use super::tags::{Key, SocketId};
use super::topology::{LinkId, LinkInfo, NetId, Route, Topology};
use crate::mctp::reassembly::ReassemblyStats;
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock, Weak};
use std::time::{Duration, Instant};

type SharedTx = Arc<Mutex<Box<dyn LinkTx>>>;

struct Shared {
    core: Mutex<Core>,
    txs: RwLock<HashMap<LinkId, SharedTx>>,
    start: Instant,
}

impl Shared {
    fn now(&self) -> Duration {
        self.start.elapsed()
    }

    fn core(&self) -> MutexGuard<'_, Core> {
        self.core.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands work to the links, outside the core lock.
    fn transmit(&self, egress: Vec<Egress>) -> Result<(), StackError> {
        let mut first_err = None;
        for e in egress {
            let tx = self
                .txs
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .get(&e.link())
                .cloned();
            let Some(tx) = tx else { continue };
            let mut tx = tx.lock().unwrap_or_else(|e| e.into_inner());
            let r = match &e {
                Egress::Message {
                    hwaddr,
                    config,
                    message,
                    ..
                } => tx.send_message(config, *hwaddr, message),
                Egress::Packet { hwaddr, packet, .. } => tx.send_packet(packet, *hwaddr),
            };
            if let Err(err) = r {
                first_err.get_or_insert(err);
            }
        }
        match first_err {
            None => Ok(()),
            Some(e) => Err(e.into()),
        }
    }
}

/// An MCTP endpoint: topology, links and sockets. Cheap to clone (a handle).
#[derive(Clone)]
pub struct Endpoint {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint").finish_non_exhaustive()
    }
}

impl Endpoint {
    pub fn new(config: StackConfig) -> Result<Endpoint, StackError> {
        Ok(Endpoint {
            shared: Arc::new(Shared {
                core: Mutex::new(Core::new(config)?),
                txs: RwLock::new(HashMap::new()),
                start: Instant::now(),
            }),
        })
    }

    /// Adds a link to `net` (`NET_ANY`: the default network) and starts its receive thread.
    pub fn add_link(&self, name: &str, net: NetId, parts: LinkParts) -> Result<LinkId, StackError> {
        let id = self.shared.core().topology_mut().add_link(
            name,
            parts.kind,
            net,
            parts.mtu,
            parts.max_mtu,
            parts.hwaddr,
        )?;
        self.shared
            .txs
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, Arc::new(Mutex::new(parts.tx)));
        let weak: Weak<Shared> = Arc::downgrade(&self.shared);
        let mut rx = parts.rx;
        std::thread::Builder::new()
            .name(format!("mctp-rx-{name}"))
            .spawn(move || loop {
                let ev = rx.recv();
                let Some(sh) = weak.upgrade() else { return };
                match ev {
                    RxEvent::Packet(p) => {
                        let now = sh.now();
                        let egress = sh.core().input(id, p, now);
                        // A forwarding failure is the next hop's problem: the packet is lost,
                        // as on a real bridge.
                        let _ = sh.transmit(egress);
                    }
                    RxEvent::Error(_) => sh.core().note_link_error(),
                    RxEvent::Closed => {
                        let _ = sh.core().topology_mut().set_link_up(id, false);
                        return;
                    }
                }
            })
            .map_err(|e| StackError::Link(LinkError::Io(e.to_string())))?;
        Ok(id)
    }

    /// Runs `f` on the topology (add addresses, routes, networks, …).
    pub fn configure<T>(
        &self,
        f: impl FnOnce(&mut Topology) -> Result<T, StackError>,
    ) -> Result<T, StackError> {
        f(self.shared.core().topology_mut())
    }

    /// `mctp address add EID dev L`.
    pub fn add_addr(&self, link: LinkId, eid: u8) -> Result<(), StackError> {
        self.configure(|t| t.add_addr(link, eid))
    }

    /// `mctp route add`.
    pub fn add_route(&self, route: Route) -> Result<(), StackError> {
        self.configure(|t| t.add_route(route))
    }

    /// A copy of the topology (for `link|addr|route show`).
    pub fn topology(&self) -> Topology {
        self.shared.core().topology().clone()
    }

    pub fn link(&self, id: LinkId) -> Result<LinkInfo, StackError> {
        self.shared.core().topology().link(id).cloned()
    }

    pub fn stats(&self) -> StackStats {
        self.shared.core().stats()
    }

    pub fn reassembly_stats(&self) -> ReassemblyStats {
        let now = self.shared.now();
        let mut c = self.shared.core();
        c.expire(now);
        c.reassembly_stats()
    }

    /// (reassemblies open, octets they hold, octets queued on sockets).
    pub fn memory_usage(&self) -> (usize, usize, usize) {
        let c = self.shared.core();
        let (ctx, oct) = c.reassembly_usage();
        (ctx, oct, c.queued_octets())
    }

    /// Live tag reservations (`mctp stat`).
    pub fn keys(&self) -> Vec<Key> {
        let now = self.shared.now();
        let mut c = self.shared.core();
        c.expire(now);
        c.keys().to_vec()
    }

    /// `socket(AF_MCTP, SOCK_DGRAM, 0)`.
    pub fn socket(&self) -> Socket {
        let wake = Arc::new(Condvar::new());
        let id = self.shared.core().open(wake.clone());
        Socket {
            shared: self.shared.clone(),
            id,
            wake,
        }
    }
}

/// An AF_MCTP datagram socket; closing it (drop) releases its binding and tags.
pub struct Socket {
    shared: Arc<Shared>,
    id: SocketId,
    wake: Arc<Condvar>,
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Socket").field("id", &self.id).finish()
    }
}

impl Drop for Socket {
    fn drop(&mut self) {
        self.shared.core().close(self.id);
    }
}

impl Socket {
    pub fn id(&self) -> SocketId {
        self.id
    }

    /// `bind()`: receive requests of `addr.typ` for `addr.eid` on `addr.net`.
    pub fn bind(&self, addr: &SockAddr) -> Result<(), StackError> {
        self.shared.core().bind(self.id, addr)
    }

    /// `connect()`: default destination and a tag held for it.
    pub fn connect(&self, addr: &SockAddr) -> Result<(), StackError> {
        let now = self.shared.now();
        self.shared.core().connect(self.id, addr, now)
    }

    /// `getpeername()`.
    pub fn peer_addr(&self) -> Result<SockAddr, StackError> {
        self.shared.core().peer_addr(self.id)
    }

    /// `setsockopt(MCTP_TAG_CONTROL)`.
    pub fn set_tag_control(&self, tc: TagControl) -> Result<(), StackError> {
        self.shared.core().set_tag_control(self.id, tc)
    }

    /// Releases the `send_to` tag now.
    pub fn drop_tag(&self) -> Result<(), StackError> {
        self.shared.core().drop_tag(self.id)
    }

    /// `sendto()`.
    pub fn send_to(&self, msg: &[u8], addr: &SockAddr) -> Result<(), StackError> {
        let now = self.shared.now();
        let egress = self.shared.core().send_to(self.id, msg, addr, now)?;
        self.shared.transmit(egress)
    }

    /// `sendto()` with the source EID chosen by the caller instead of the link's first
    /// address: what `mctpd` needs to answer Set Endpoint ID from the EID the request was sent
    /// to, after the link's EID changed. Any EID but broadcast and the reserved ones.
    pub fn send_to_from(&self, msg: &[u8], addr: &SockAddr, src: u8) -> Result<(), StackError> {
        let now = self.shared.now();
        let egress = self
            .shared
            .core()
            .send_to_from(self.id, msg, addr, Some(src), now)?;
        self.shared.transmit(egress)
    }

    /// `send()`: to the connected address (`EDESTADDRREQ` without one).
    pub fn send(&self, msg: &[u8]) -> Result<(), StackError> {
        let now = self.shared.now();
        let egress = self.shared.core().send(self.id, msg, now)?;
        self.shared.transmit(egress)
    }

    /// `recvfrom()`: the next message and its sender (network, EID, type, tag with
    /// `TAG_OWNER` for requests, link and physical address). `None` waits for ever;
    /// a timeout gives `EAGAIN`, as `SO_RCVTIMEO` does. A socket that can receive nothing (not
    /// bound, not connected, no live tag, nothing queued) gets `ENOTCONN` instead of waiting
    /// for ever.
    pub fn recv_from(&self, timeout: Option<Duration>) -> Result<(Vec<u8>, SockAddr), StackError> {
        let deadline = timeout.map(|t| Instant::now() + t);
        let mut core = self.shared.core();
        loop {
            if let Some(m) = core.try_recv(self.id)? {
                return Ok(m);
            }
            if !core.can_receive(self.id) {
                return Err(StackError::NotConnected(
                    "socket is neither bound nor connected nor holds a tag",
                ));
            }
            core = match deadline {
                None => self.wake.wait(core).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        return Err(StackError::Again("receive timed out"));
                    }
                    // Wake at least every 50 ms to notice tags lapsing.
                    let wait = (d - now).min(Duration::from_millis(50));
                    let (g, _) = self
                        .wake
                        .wait_timeout(core, wait)
                        .unwrap_or_else(|e| e.into_inner());
                    g
                }
            };
            let now = self.shared.now();
            core.expire(now);
        }
    }

    /// `recv()` without the address.
    pub fn recv(&self, timeout: Option<Duration>) -> Result<Vec<u8>, StackError> {
        self.recv_from(timeout).map(|(m, _)| m)
    }
}
