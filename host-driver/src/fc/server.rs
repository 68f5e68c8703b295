//! The server agent's protocol core, sans-IO: it bridges assigned streams to (simulated)
//! physical FC ports. It holds no socket and reads no clock: the I/O driver
//! ([`ServerAgent`](super::agent::ServerAgent)) feeds it association events with the time in
//! milliseconds and sends what it queues; tests drive it directly against a
//! [`ClientCore`](super::client::ClientCore) with no SCTP at all.
//!
//! It answers management requests ([`StreamManager`]), admits data frames (time limit,
//! credit), constructs each frame's FC form — the CRC regenerated through the [`Offload`]
//! backend when the prefix's N bit says it is not valid — and hands it to the port; frames the
//! port sends back go to the client on the same stream, carrying returned credit. A peer that
//! opens a new association from the address of a live one has restarted: its old association
//! and streams are dropped (and the old association aborted).

use super::fcp::SimPort;
use super::frame::FcFrame;
use super::prefix::{Encapsulated, Prefix};
use super::stream::{Admit, Assignment, ServerConfig, StreamManager, MGMT_STREAM};
use super::{FcError, Oss};
use crate::Offload;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::Hash;
use std::net::SocketAddr;

/// Counters of the server agent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AgentStats {
    pub associations: u64,
    /// Peers that came back with a new association while the old one was alive.
    pub restarts: u64,
    pub mgmt_requests: u64,
    pub frames_in: u64,
    pub frames_to_port: u64,
    pub frames_from_port: u64,
    pub stale_dropped: u64,
    pub credit_overruns: u64,
    /// Frames whose CRC the agent constructed (N bit set).
    pub crc_regenerated: u64,
    /// Frames dropped for a bad CRC or a malformed prefix/frame.
    pub bad_frames: u64,
    /// Frames on streams not assigned to the association.
    pub unassigned: u64,
}

/// What the core asks its I/O driver to do, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerAction<A> {
    /// Send one message (one DATA chunk payload) on a stream of an association.
    Send {
        assoc: A,
        stream: u16,
        data: Vec<u8>,
    },
    /// Abort an association (a restarted peer's old one).
    Abort { assoc: A },
}

struct Session {
    peer: SocketAddr,
    streams: StreamManager,
}

/// The server agent's state, keyed by association `A` (the transport's handle; any small key
/// in tests).
pub struct ServerCore<A> {
    config: ServerConfig,
    ports: BTreeMap<u16, SimPort>,
    sessions: HashMap<A, Session>,
    offload: Box<dyn Offload>,
    actions: VecDeque<ServerAction<A>>,
    /// Every frame handed to or taken from a port, in FC link form (SOF · … · EOF), when
    /// capturing.
    capture: Option<Vec<Vec<u8>>>,
    pub stats: AgentStats,
}

impl<A: Copy + Eq + Hash> ServerCore<A> {
    /// `ports` are the simulated FC ports (numbers must match `config.ports`).
    pub fn new(
        config: ServerConfig,
        ports: BTreeMap<u16, SimPort>,
        offload: Box<dyn Offload>,
    ) -> ServerCore<A> {
        ServerCore {
            config,
            ports,
            sessions: HashMap::new(),
            offload,
            actions: VecDeque::new(),
            capture: None,
            stats: AgentStats::default(),
        }
    }

    /// The next thing to send or abort, oldest first.
    pub fn poll_action(&mut self) -> Option<ServerAction<A>> {
        self.actions.pop_front()
    }

    /// Starts keeping the FC form of every frame bridged.
    pub fn capture(&mut self) {
        self.capture = Some(Vec::new());
    }

    pub fn take_capture(&mut self) -> Vec<Vec<u8>> {
        self.capture
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The assignments of every live association, by peer.
    pub fn assignments(&self) -> Vec<(SocketAddr, Vec<Assignment>)> {
        self.sessions
            .values()
            .map(|s| (s.peer, s.streams.assignments().cloned().collect()))
            .collect()
    }

    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// A peer opened association `assoc` from `peer`; an older association of the same peer
    /// is a restart: dropped and aborted.
    pub fn on_incoming(&mut self, assoc: A, peer: SocketAddr) {
        self.stats.associations += 1;
        let old: Vec<A> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.peer == peer)
            .map(|(a, _)| *a)
            .collect();
        for a in old {
            self.stats.restarts += 1;
            self.sessions.remove(&a);
            self.actions.push_back(ServerAction::Abort { assoc: a });
        }
        self.sessions.insert(
            assoc,
            Session {
                peer,
                streams: StreamManager::new(self.config.clone()),
            },
        );
    }

    /// The association ended: its streams go with it.
    pub fn on_lost(&mut self, assoc: A) {
        self.sessions.remove(&assoc);
    }

    /// One whole message on `stream` of `assoc`, received at `now_ms` (the prefix timestamps'
    /// clock). Input faults are counted, never errors; an error is a frame the offload backend
    /// could not encode.
    pub fn on_message(
        &mut self,
        assoc: A,
        stream: u16,
        data: &[u8],
        now_ms: u32,
    ) -> Result<(), FcError> {
        let Some(session) = self.sessions.get_mut(&assoc) else {
            return Ok(());
        };
        if stream == MGMT_STREAM {
            self.stats.mgmt_requests += 1;
            if let Some(answer) = session.streams.handle_bytes(data) {
                self.actions.push_back(ServerAction::Send {
                    assoc,
                    stream: MGMT_STREAM,
                    data: answer,
                });
            }
            return Ok(());
        }
        let msg = match Encapsulated::decode_with(data, self.offload.as_mut()) {
            Ok(m) => m,
            Err(_) => {
                self.stats.bad_frames += 1;
                // The frame still used a credit: return it.
                if let Some(a) = session.streams.assignment_mut(stream) {
                    if a.credit.on_frame() {
                        a.credit.on_freed();
                    }
                }
                return Ok(());
            }
        };
        let (prefix, frame) = match msg {
            Encapsulated::Signal { prefix } => {
                if let Some(a) = session.streams.assignment_mut(stream) {
                    a.credit.on_client_prefix(&prefix);
                }
                return Ok(());
            }
            Encapsulated::Frame { prefix, frame } => (prefix, frame),
        };
        self.stats.frames_in += 1;
        let port = match session
            .streams
            .admit(stream, &prefix, frame.payload.len(), now_ms)
        {
            Admit::Deliver { port } => port,
            Admit::Stale { .. } => {
                self.stats.stale_dropped += 1;
                return Ok(());
            }
            Admit::NoCredit => {
                self.stats.credit_overruns += 1;
                return Ok(());
            }
            Admit::Unassigned => {
                self.stats.unassigned += 1;
                return Ok(());
            }
        };
        if prefix.crc_invalid {
            self.stats.crc_regenerated += 1;
        }
        // Bridge: the FC link form, CRC constructed by the offload backend, then the port.
        let wire = frame.encode_delimited_with(self.offload.as_mut())?;
        let delivered = FcFrame::decode_delimited_with(&wire, self.offload.as_mut())?;
        if let Some(c) = self.capture.as_mut() {
            c.push(wire);
        }
        self.stats.frames_to_port += 1;
        let answers = self
            .ports
            .get_mut(&port)
            .map(|p| p.deliver(delivered))
            .unwrap_or_default();
        let Some(a) = session.streams.assignment_mut(stream) else {
            return Ok(());
        };
        a.credit.on_freed();
        for f in answers {
            let mut p = Prefix {
                timestamp_ms: now_ms,
                ..Default::default()
            };
            a.credit.stamp(&mut p);
            if let Some(c) = self.capture.as_mut() {
                c.push(f.encode_delimited_with(self.offload.as_mut())?);
            }
            let bytes = Encapsulated::Frame {
                prefix: p,
                frame: f,
            }
            .encode_with(self.offload.as_mut())?;
            self.stats.frames_from_port += 1;
            self.actions.push_back(ServerAction::Send {
                assoc,
                stream,
                data: bytes,
            });
        }
        Ok(())
    }

    /// Queues a frameless prefix on every stream with credit still to return (the driver calls
    /// this after each round of input, so returns are batched).
    pub fn return_credit(&mut self, now_ms: u32) -> Result<(), FcError> {
        for (assoc, s) in self.sessions.iter_mut() {
            for a in s.streams.assignments_mut() {
                if a.credit.pending() {
                    let mut p = Prefix {
                        timestamp_ms: now_ms,
                        oss: Oss::None,
                        ..Default::default()
                    };
                    a.credit.stamp(&mut p);
                    self.actions.push_back(ServerAction::Send {
                        assoc: *assoc,
                        stream: a.stream,
                        data: Encapsulated::Signal { prefix: p }.encode()?,
                    });
                }
            }
        }
        Ok(())
    }
}
