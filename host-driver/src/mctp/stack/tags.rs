//! Tag reservations ("keys"), as the kernel keeps them (openbmc `mctp-kernel.md`, "Tag
//! behaviour for transmitted messages"; Linux `mctp_alloc_local_tag`).
//!
//! A key reserves a 3-bit tag for (network, local EID, peer EID) on behalf of one socket, so
//! that responses (TO = 0, same tag) from that peer reach that socket. Allocation takes the
//! lowest tag not used by any live key whose local and peer EIDs match, where the broadcast
//! EID matches every EID: a broadcast key holds its tag towards all peers. Keys end on their
//! timeout (if any) or when their owner releases them; a response does not end a key, since
//! one request may be answered several times (NVMe-MI "More Processing Required", broadcast).

use super::addr::{ADDR_BCAST, ADDR_NULL};
use super::topology::NetId;
use crate::mctp::header::TAG_MAX;
use std::time::Duration;

/// A socket's handle inside the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SocketId(pub u64);

/// Why a key exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyKind {
    /// From `connect`: held until close or the next `connect`.
    Connect,
    /// From `send_to` with `TAG_OWNER`: until timeout, a send to another peer, or close.
    SendTo,
}

/// One reserved tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub net: NetId,
    pub local: u8,
    pub peer: u8,
    pub tag: u8,
    pub socket: SocketId,
    pub kind: KeyKind,
    /// When the key lapses; `None`: never (connect, or `TagControl::Retain`).
    pub expiry: Option<Duration>,
}

/// Do two EIDs of keys overlap? Broadcast covers every EID; so does the null EID as a peer,
/// whose response may come from any EID.
fn matches(a: u8, b: u8) -> bool {
    a == b || a == ADDR_BCAST || b == ADDR_BCAST
}

fn peer_matches(a: u8, b: u8) -> bool {
    matches(a, b) || a == ADDR_NULL || b == ADDR_NULL
}

/// Every live key of the stack. Bounded: at most 8 keys per (network, local, peer).
#[derive(Debug, Default, Clone)]
pub struct TagTable {
    keys: Vec<Key>,
    expired: u64,
}

impl TagTable {
    /// Drops keys whose expiry is at or before `now`.
    pub fn expire(&mut self, now: Duration) {
        let before = self.keys.len();
        self.keys
            .retain(|k| !matches!(k.expiry, Some(e) if e <= now));
        self.expired += (before - self.keys.len()) as u64;
    }

    /// Keys dropped by timeout so far.
    pub fn expired(&self) -> u64 {
        self.expired
    }

    /// Reserves the lowest free tag towards `peer`; `None` when all 8 are held (`EAGAIN`).
    /// The arguments are the kernel's `mctp_alloc_local_tag` key fields, one each.
    #[allow(clippy::too_many_arguments)]
    pub fn allocate(
        &mut self,
        net: NetId,
        local: u8,
        peer: u8,
        socket: SocketId,
        kind: KeyKind,
        expiry: Option<Duration>,
        now: Duration,
    ) -> Option<u8> {
        self.expire(now);
        let mut used = 0u8;
        for k in &self.keys {
            if k.net == net && matches(k.local, local) && peer_matches(k.peer, peer) {
                used |= 1 << k.tag;
            }
        }
        let tag = (0..=TAG_MAX).find(|t| used & (1 << t) == 0)?;
        self.keys.push(Key {
            net,
            local,
            peer,
            tag,
            socket,
            kind,
            expiry,
        });
        Some(tag)
    }

    /// The socket a response (TO = 0) from `peer` to `local` with `tag` belongs to. A key
    /// towards the null EID (a request to an endpoint that had no EID yet, e.g. Set Endpoint
    /// ID) takes the response from whatever EID the endpoint answers with.
    pub fn lookup(
        &mut self,
        net: NetId,
        local: u8,
        peer: u8,
        tag: u8,
        now: Duration,
    ) -> Option<SocketId> {
        self.expire(now);
        let live =
            |k: &&Key| k.net == net && k.tag == tag && (k.local == local || k.local == ADDR_BCAST);
        let exact = self.keys.iter().filter(live).find(|k| k.peer == peer);
        exact
            .or_else(|| {
                self.keys
                    .iter()
                    .filter(live)
                    .find(|k| k.peer == ADDR_BCAST || k.peer == ADDR_NULL)
            })
            .map(|k| k.socket)
    }

    /// The live key of `socket` of `kind`, if any.
    pub fn find(&self, socket: SocketId, kind: KeyKind) -> Option<&Key> {
        self.keys
            .iter()
            .find(|k| k.socket == socket && k.kind == kind)
    }

    /// Moves the expiry of `socket`'s key of `kind`.
    pub fn refresh(&mut self, socket: SocketId, kind: KeyKind, expiry: Option<Duration>) {
        for k in &mut self.keys {
            if k.socket == socket && k.kind == kind {
                k.expiry = expiry;
            }
        }
    }

    /// Releases `socket`'s keys of `kind` (or all of them).
    pub fn release(&mut self, socket: SocketId, kind: Option<KeyKind>) {
        self.keys
            .retain(|k| !(k.socket == socket && kind.unwrap_or(k.kind) == k.kind));
    }

    pub fn keys(&self) -> &[Key] {
        &self.keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: NetId = NetId(1);
    const T0: Duration = Duration::ZERO;

    #[test]
    fn lowest_free_first_and_eight_per_peer() {
        let mut t = TagTable::default();
        for want in 0..8 {
            let tag = t.allocate(N, 8, 9, SocketId(want as u64), KeyKind::SendTo, None, T0);
            assert_eq!(tag, Some(want));
        }
        assert_eq!(
            t.allocate(N, 8, 9, SocketId(99), KeyKind::SendTo, None, T0),
            None
        );
        // Other peer, other local EID, other network: a fresh tag space.
        assert_eq!(
            t.allocate(N, 8, 10, SocketId(99), KeyKind::SendTo, None, T0),
            Some(0)
        );
        assert_eq!(
            t.allocate(N, 20, 9, SocketId(99), KeyKind::SendTo, None, T0),
            Some(0)
        );
        assert_eq!(
            t.allocate(NetId(2), 8, 9, SocketId(99), KeyKind::SendTo, None, T0),
            Some(0)
        );
        t.release(SocketId(3), None);
        assert_eq!(
            t.allocate(N, 8, 9, SocketId(98), KeyKind::SendTo, None, T0),
            Some(3)
        );
        assert_eq!(t.lookup(N, 8, 9, 3, T0), Some(SocketId(98)));
        assert_eq!(t.lookup(N, 8, 9, 4, T0), Some(SocketId(4)));
        assert_eq!(t.lookup(N, 9, 8, 4, T0), None);
    }

    #[test]
    fn broadcast_reserves_across_all_peers() {
        let mut t = TagTable::default();
        let s = SocketId(1);
        assert_eq!(t.allocate(N, 8, 9, s, KeyKind::SendTo, None, T0), Some(0));
        assert_eq!(t.allocate(N, 8, 10, s, KeyKind::SendTo, None, T0), Some(0));
        assert_eq!(t.allocate(N, 8, 11, s, KeyKind::SendTo, None, T0), Some(0));
        assert_eq!(t.allocate(N, 8, 10, s, KeyKind::SendTo, None, T0), Some(1));
        // Broadcast needs a tag free towards every peer: 0 and 1 are taken somewhere.
        assert_eq!(
            t.allocate(N, 8, ADDR_BCAST, SocketId(2), KeyKind::Connect, None, T0),
            Some(2)
        );
        // …and then holds it towards every peer.
        assert_eq!(t.allocate(N, 8, 12, s, KeyKind::SendTo, None, T0), Some(0));
        assert_eq!(t.allocate(N, 8, 12, s, KeyKind::SendTo, None, T0), Some(1));
        assert_eq!(t.allocate(N, 8, 12, s, KeyKind::SendTo, None, T0), Some(3));
        // A response from any peer with the broadcast tag reaches the broadcaster.
        assert_eq!(t.lookup(N, 8, 0x42, 2, T0), Some(SocketId(2)));
        assert_eq!(t.lookup(N, 8, 0x43, 2, T0), Some(SocketId(2)));
    }

    #[test]
    fn null_peer_key_takes_any_responder_but_an_exact_key_wins() {
        let mut t = TagTable::default();
        let probe = SocketId(1);
        // A request to an endpoint without an EID: its answer may come from any EID...
        assert_eq!(
            t.allocate(N, 8, ADDR_NULL, probe, KeyKind::SendTo, None, T0),
            Some(0)
        );
        assert_eq!(t.lookup(N, 8, 0x20, 0, T0), Some(probe));
        // ...so its tag is held towards every peer, and a later key never shares it.
        assert_eq!(
            t.allocate(N, 8, 0x20, SocketId(2), KeyKind::SendTo, None, T0),
            Some(1)
        );
        assert_eq!(t.lookup(N, 8, 0x20, 1, T0), Some(SocketId(2)));
        t.release(probe, None);
        assert_eq!(
            t.allocate(N, 8, 0x20, SocketId(3), KeyKind::SendTo, None, T0),
            Some(0)
        );
        assert_eq!(t.lookup(N, 8, 0x20, 0, T0), Some(SocketId(3)));
    }

    #[test]
    fn keys_expire() {
        let mut t = TagTable::default();
        let s = SocketId(1);
        let exp = Some(Duration::from_millis(100));
        assert_eq!(t.allocate(N, 8, 9, s, KeyKind::SendTo, exp, T0), Some(0));
        assert_eq!(t.lookup(N, 8, 9, 0, Duration::from_millis(99)), Some(s));
        assert_eq!(t.lookup(N, 8, 9, 0, Duration::from_millis(100)), None);
        assert_eq!(t.expired(), 1);
        assert_eq!(
            t.allocate(
                N,
                8,
                9,
                s,
                KeyKind::SendTo,
                None,
                Duration::from_millis(100)
            ),
            Some(0)
        );
    }
}
