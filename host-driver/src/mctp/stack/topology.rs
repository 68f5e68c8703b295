//! The local MCTP topology as the kernel models it (openbmc `mctp-kernel.md`, "Structure:
//! interfaces & networks", "Neighbour and routing implementation"): networks (EID address
//! spaces, each with forwarding on or off), links (interfaces) each in one network with an MTU
//! and local EIDs, a route table (EID range → link, MTU, metric, physical address) and the
//! neighbour table learnt from received packets.
//!
//! MTUs are packet sizes, header included, as Linux counts them (`mctp link` shows 68 for the
//! baseline 64-octet payload).

use super::addr::{ADDR_BCAST, ADDR_NULL};
use super::error::StackError;
use crate::mctp::header::{EID_RESERVED, HEADER_LEN};
use crate::mctp::packetizer::{BASELINE_MTU, MAX_MTU};
use std::collections::{BTreeMap, HashMap};

/// A network id (`smctp_network`); 0 is `MCTP_NET_ANY`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NetId(pub u32);

/// A link index (`ifindex`), from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId(pub u32);

/// The kernel's initial default network (`MCTP_INITIAL_DEFAULT_NET`).
pub const DEFAULT_NET: NetId = NetId(1);
/// Smallest link MTU: the baseline transmission unit plus the header (Linux `MCTP_MIN_MTU`).
pub const MIN_LINK_MTU: usize = BASELINE_MTU + HEADER_LEN;
/// Largest packet the byte-count bindings describe.
pub const MAX_LINK_MTU: usize = MAX_MTU + HEADER_LEN;

/// One network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Network {
    /// Forward packets for non-local EIDs along routes to other links of this network.
    pub forwarding: bool,
}

/// One link (interface), as `mctp link show` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkInfo {
    pub id: LinkId,
    pub name: String,
    /// The binding: `serial`, `smbus`, `loopback`, `offload`, …
    pub kind: &'static str,
    pub net: NetId,
    /// Largest packet, header included.
    pub mtu: usize,
    /// Largest MTU the binding can carry.
    pub max_mtu: usize,
    pub up: bool,
    /// Local EIDs, in the order they were added (the first is the source of sent messages).
    pub addrs: Vec<u8>,
    /// This side's physical address (SMBus slave address), if the binding has one.
    pub hwaddr: Option<u8>,
}

/// One route: EIDs `first..=last` of `net` are reached through `link`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    pub net: NetId,
    pub first: u8,
    pub last: u8,
    pub link: LinkId,
    /// Largest packet along the route (header included); `None`: the link's MTU.
    pub mtu: Option<usize>,
    /// Lower wins among overlapping routes.
    pub metric: u32,
    /// The next hop's physical address on the link (SMBus), if fixed.
    pub hwaddr: Option<u8>,
}

impl Route {
    /// A route to one EID with the link MTU and metric 0.
    pub fn to(net: NetId, eid: u8, link: LinkId) -> Route {
        Route {
            net,
            first: eid,
            last: eid,
            link,
            mtu: None,
            metric: 0,
            hwaddr: None,
        }
    }

    pub fn contains(&self, eid: u8) -> bool {
        (self.first..=self.last).contains(&eid)
    }
}

/// Where a packet for an EID goes: the link, the peer's physical address, the packet MTU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NextHop {
    pub link: LinkId,
    pub hwaddr: Option<u8>,
    pub mtu: usize,
}

/// Networks, links, local addresses, routes and neighbours.
#[derive(Debug, Clone)]
pub struct Topology {
    networks: BTreeMap<NetId, Network>,
    default_net: NetId,
    links: BTreeMap<LinkId, LinkInfo>,
    routes: Vec<Route>,
    neighbours: HashMap<(NetId, u8), (LinkId, u8)>,
    next_link: u32,
}

impl Default for Topology {
    fn default() -> Self {
        Self::new()
    }
}

/// An EID usable as a local address or route target: not null, broadcast or reserved.
fn check_unicast(eid: u8) -> Result<(), StackError> {
    if eid == ADDR_NULL || eid == ADDR_BCAST || EID_RESERVED.contains(&eid) {
        return Err(StackError::Invalid(
            "EID 0, 1-7 and 255 are null, reserved or broadcast (DSP0236 §8.2)",
        ));
    }
    Ok(())
}

impl Topology {
    /// One network ([`DEFAULT_NET`], forwarding off), no links.
    pub fn new() -> Self {
        let mut networks = BTreeMap::new();
        networks.insert(DEFAULT_NET, Network::default());
        Topology {
            networks,
            default_net: DEFAULT_NET,
            links: BTreeMap::new(),
            routes: Vec::new(),
            neighbours: HashMap::new(),
            next_link: 1,
        }
    }

    pub fn networks(&self) -> impl Iterator<Item = (NetId, &Network)> {
        self.networks.iter().map(|(k, v)| (*k, v))
    }

    /// `mctp network create`.
    pub fn add_network(&mut self, net: NetId) -> Result<(), StackError> {
        if net.0 == 0 {
            return Err(StackError::Invalid("network 0 is MCTP_NET_ANY"));
        }
        if self.networks.contains_key(&net) {
            return Err(StackError::AddrInUse("network exists"));
        }
        self.networks.insert(net, Network::default());
        Ok(())
    }

    fn network_mut(&mut self, net: NetId) -> Result<&mut Network, StackError> {
        self.networks.get_mut(&net).ok_or(StackError::NoDevice {
            what: "network",
            id: net.0,
        })
    }

    /// `mctp network set N forwarding on|off`.
    pub fn set_forwarding(&mut self, net: NetId, on: bool) -> Result<(), StackError> {
        self.network_mut(net)?.forwarding = on;
        Ok(())
    }

    pub fn forwarding(&self, net: NetId) -> bool {
        self.networks.get(&net).is_some_and(|n| n.forwarding)
    }

    /// `mctp network set N default`: where `NET_ANY` sends go.
    pub fn set_default_net(&mut self, net: NetId) -> Result<(), StackError> {
        self.network_mut(net)?;
        self.default_net = net;
        Ok(())
    }

    pub fn default_net(&self) -> NetId {
        self.default_net
    }

    /// `NET_ANY` → the default network; others must exist.
    pub fn resolve_net(&self, net: NetId) -> Result<NetId, StackError> {
        let net = if net.0 == 0 { self.default_net } else { net };
        if !self.networks.contains_key(&net) {
            return Err(StackError::NoDevice {
                what: "network",
                id: net.0,
            });
        }
        Ok(net)
    }

    /// Adds a link (up) to `net`; returns its index.
    pub fn add_link(
        &mut self,
        name: &str,
        kind: &'static str,
        net: NetId,
        mtu: usize,
        max_mtu: usize,
        hwaddr: Option<u8>,
    ) -> Result<LinkId, StackError> {
        let net = self.resolve_net(net)?;
        let max_mtu = max_mtu.clamp(MIN_LINK_MTU, MAX_LINK_MTU);
        if !(MIN_LINK_MTU..=max_mtu).contains(&mtu) {
            return Err(StackError::Invalid(
                "link MTU outside 68 and the binding's maximum",
            ));
        }
        if self.links.values().any(|l| l.name == name) {
            return Err(StackError::AddrInUse("a link of that name exists"));
        }
        let id = LinkId(self.next_link);
        self.next_link += 1;
        self.links.insert(
            id,
            LinkInfo {
                id,
                name: name.to_string(),
                kind,
                net,
                mtu,
                max_mtu,
                up: true,
                addrs: Vec::new(),
                hwaddr,
            },
        );
        Ok(id)
    }

    pub fn links(&self) -> impl Iterator<Item = &LinkInfo> {
        self.links.values()
    }

    pub fn link(&self, id: LinkId) -> Result<&LinkInfo, StackError> {
        self.links.get(&id).ok_or(StackError::NoDevice {
            what: "link",
            id: id.0,
        })
    }

    fn link_mut(&mut self, id: LinkId) -> Result<&mut LinkInfo, StackError> {
        self.links.get_mut(&id).ok_or(StackError::NoDevice {
            what: "link",
            id: id.0,
        })
    }

    pub fn link_by_name(&self, name: &str) -> Option<&LinkInfo> {
        self.links.values().find(|l| l.name == name)
    }

    /// `mctp link set L up|down`.
    pub fn set_link_up(&mut self, id: LinkId, up: bool) -> Result<(), StackError> {
        self.link_mut(id)?.up = up;
        Ok(())
    }

    /// `mctp link set L mtu N`.
    pub fn set_link_mtu(&mut self, id: LinkId, mtu: usize) -> Result<(), StackError> {
        let l = self.link_mut(id)?;
        if !(MIN_LINK_MTU..=l.max_mtu).contains(&mtu) {
            return Err(StackError::Invalid(
                "link MTU outside 68 and the binding's maximum",
            ));
        }
        l.mtu = mtu;
        Ok(())
    }

    /// `mctp link set L network N`: the link's addresses must be free in the new network.
    pub fn set_link_net(&mut self, id: LinkId, net: NetId) -> Result<(), StackError> {
        let net = self.resolve_net(net)?;
        let addrs = self.link(id)?.addrs.clone();
        if addrs.iter().any(|&a| self.is_local(net, a)) {
            return Err(StackError::AddrInUse(
                "an EID of the link is local in that network",
            ));
        }
        self.link_mut(id)?.net = net;
        self.neighbours.retain(|_, (l, _)| *l != id);
        Ok(())
    }

    /// `mctp address add EID dev L`: a local EID must be unique in its network.
    pub fn add_addr(&mut self, id: LinkId, eid: u8) -> Result<(), StackError> {
        check_unicast(eid)?;
        let net = self.link(id)?.net;
        if self.is_local(net, eid) {
            return Err(StackError::AddrInUse(
                "EID is already local in this network",
            ));
        }
        self.link_mut(id)?.addrs.push(eid);
        Ok(())
    }

    /// `mctp address del EID dev L`.
    pub fn del_addr(&mut self, id: LinkId, eid: u8) -> Result<(), StackError> {
        let l = self.link_mut(id)?;
        let before = l.addrs.len();
        l.addrs.retain(|&a| a != eid);
        if l.addrs.len() == before {
            return Err(StackError::Invalid("EID is not an address of that link"));
        }
        Ok(())
    }

    /// Replaces every local EID of a link (what a Set Endpoint ID does).
    pub fn set_addr(&mut self, id: LinkId, eid: u8) -> Result<(), StackError> {
        check_unicast(eid)?;
        let net = self.link(id)?.net;
        if self
            .links
            .values()
            .any(|l| l.id != id && l.net == net && l.addrs.contains(&eid))
        {
            return Err(StackError::AddrInUse("EID is local on another link"));
        }
        self.link_mut(id)?.addrs = vec![eid];
        Ok(())
    }

    /// Is `eid` a local address of `net`?
    pub fn is_local(&self, net: NetId, eid: u8) -> bool {
        self.links
            .values()
            .any(|l| l.net == net && l.addrs.contains(&eid))
    }

    /// The EID messages leave a link with: its first address, or the null EID before one is
    /// assigned.
    pub fn source_eid(&self, id: LinkId) -> u8 {
        self.links
            .get(&id)
            .and_then(|l| l.addrs.first().copied())
            .unwrap_or(ADDR_NULL)
    }

    /// `mctp route add`.
    pub fn add_route(&mut self, r: Route) -> Result<(), StackError> {
        let net = self.resolve_net(r.net)?;
        if r.first > r.last || r.first == ADDR_NULL || r.last == ADDR_BCAST {
            return Err(StackError::Invalid(
                "route EID range must be within 1..=254",
            ));
        }
        let link = self.link(r.link)?;
        if link.net != net {
            return Err(StackError::Invalid("route link is in another network"));
        }
        if let Some(m) = r.mtu {
            if m < MIN_LINK_MTU {
                return Err(StackError::Invalid("route MTU below 68"));
            }
        }
        let r = Route { net, ..r };
        if self.routes.contains(&r) {
            return Err(StackError::AddrInUse("route exists"));
        }
        self.routes.push(r);
        Ok(())
    }

    /// `mctp route del`: removes routes of `net` for exactly that range and link.
    pub fn del_route(
        &mut self,
        net: NetId,
        first: u8,
        last: u8,
        link: LinkId,
    ) -> Result<(), StackError> {
        let net = self.resolve_net(net)?;
        let before = self.routes.len();
        self.routes
            .retain(|r| !(r.net == net && r.first == first && r.last == last && r.link == link));
        if self.routes.len() == before {
            return Err(StackError::Invalid("no such route"));
        }
        Ok(())
    }

    /// `mctp route show [net N]`, in table order.
    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// Records that `eid` of `net` sent from `hwaddr` on `link` (kernel-discovered neighbour).
    pub fn learn_neighbour(&mut self, net: NetId, eid: u8, link: LinkId, hwaddr: u8) {
        if eid == ADDR_NULL || eid == ADDR_BCAST {
            return;
        }
        // Bounded: at most 256 EIDs per network.
        self.neighbours.insert((net, eid), (link, hwaddr));
    }

    pub fn neighbour(&self, net: NetId, eid: u8) -> Option<(LinkId, u8)> {
        self.neighbours.get(&(net, eid)).copied()
    }

    /// The route for `eid` in `net` (lowest metric, then narrowest range, then first added)
    /// over an up link, with its physical address from the route or the neighbour table.
    pub fn lookup(&self, net: NetId, eid: u8) -> Option<(Route, NextHop)> {
        let r = self
            .routes
            .iter()
            .filter(|r| r.net == net && r.contains(eid))
            .filter(|r| self.links.get(&r.link).is_some_and(|l| l.up))
            .min_by_key(|r| (r.metric, r.last - r.first))?;
        let link = &self.links[&r.link];
        let hwaddr = r.hwaddr.or_else(|| {
            self.neighbour(net, eid)
                .filter(|(l, _)| *l == r.link)
                .map(|(_, h)| h)
        });
        let mtu = r.mtu.map_or(link.mtu, |m| m.min(link.mtu));
        Some((
            *r,
            NextHop {
                link: r.link,
                hwaddr,
                mtu,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn topo() -> (Topology, LinkId, LinkId) {
        let mut t = Topology::new();
        let a = t
            .add_link("a", "loopback", DEFAULT_NET, 68, 255, None)
            .unwrap();
        let b = t
            .add_link("b", "smbus", DEFAULT_NET, 100, 254, Some(0x10))
            .unwrap();
        (t, a, b)
    }

    #[test]
    fn addresses_are_unique_per_network() {
        let (mut t, a, b) = topo();
        t.add_addr(a, 8).unwrap();
        assert_eq!(t.add_addr(b, 8).unwrap_err().errno(), 98);
        for bad in [0, 1, 7, 255] {
            assert_eq!(t.add_addr(a, bad).unwrap_err().errno(), 22, "{bad}");
        }
        t.add_network(NetId(2)).unwrap();
        t.set_link_net(b, NetId(2)).unwrap();
        t.add_addr(b, 8).unwrap(); // same EID, other network
        assert!(t.is_local(NetId(2), 8) && t.is_local(DEFAULT_NET, 8));
        assert!(!t.is_local(NetId(2), 9));
        assert_eq!(t.source_eid(a), 8);
        t.del_addr(a, 8).unwrap();
        assert_eq!(t.source_eid(a), 0);
    }

    #[test]
    fn lookup_prefers_metric_then_narrow_range() {
        let (mut t, a, b) = topo();
        t.add_route(Route {
            first: 8,
            last: 0x7F,
            metric: 10,
            ..Route::to(DEFAULT_NET, 8, a)
        })
        .unwrap();
        t.add_route(Route {
            first: 0x20,
            last: 0x2F,
            metric: 10,
            mtu: Some(80),
            ..Route::to(DEFAULT_NET, 0, b)
        })
        .unwrap();
        assert_eq!(t.lookup(DEFAULT_NET, 9).unwrap().1.link, a);
        let (_, hop) = t.lookup(DEFAULT_NET, 0x21).unwrap();
        assert_eq!((hop.link, hop.mtu, hop.hwaddr), (b, 80, None));
        t.learn_neighbour(DEFAULT_NET, 0x21, b, 0x33);
        assert_eq!(t.lookup(DEFAULT_NET, 0x21).unwrap().1.hwaddr, Some(0x33));
        t.add_route(Route {
            metric: 1,
            ..Route::to(DEFAULT_NET, 0x21, a)
        })
        .unwrap();
        assert_eq!(t.lookup(DEFAULT_NET, 0x21).unwrap().1.link, a);
        t.set_link_up(a, false).unwrap();
        assert_eq!(t.lookup(DEFAULT_NET, 0x21).unwrap().1.link, b);
        assert!(t.lookup(DEFAULT_NET, 0x90).is_none());
        assert!(t.lookup(NetId(7), 9).is_none());
        t.del_route(DEFAULT_NET, 0x20, 0x2F, b).unwrap();
        assert!(t.lookup(DEFAULT_NET, 0x21).is_none());
    }

    #[test]
    fn bad_configuration_is_refused() {
        let (mut t, a, _) = topo();
        assert!(t.add_link("a", "x", DEFAULT_NET, 68, 255, None).is_err());
        assert!(t.add_link("c", "x", DEFAULT_NET, 67, 255, None).is_err());
        assert!(t.add_link("c", "x", NetId(9), 68, 255, None).is_err());
        assert!(t.set_link_mtu(a, 256).is_err());
        t.set_link_mtu(a, 255).unwrap();
        assert!(t
            .add_route(Route {
                first: 9,
                last: 8,
                ..Route::to(DEFAULT_NET, 9, a)
            })
            .is_err());
        assert!(t.add_route(Route::to(DEFAULT_NET, 255, a)).is_err());
        assert!(t
            .add_route(Route {
                mtu: Some(10),
                ..Route::to(DEFAULT_NET, 9, a)
            })
            .is_err());
        t.add_network(NetId(2)).unwrap();
        assert!(t.add_route(Route::to(NetId(2), 9, a)).is_err());
        assert!(t.add_network(NetId(0)).is_err());
        assert_eq!(t.resolve_net(NetId(0)).unwrap(), DEFAULT_NET);
        t.set_default_net(NetId(2)).unwrap();
        assert_eq!(t.resolve_net(NetId(0)).unwrap(), NetId(2));
    }
}
