//! The control protocol at work: the responder every endpoint runs (what `mctpd` does for the
//! kernel), the requester, and a bus owner that assigns EIDs to the endpoints it finds on a
//! link (DSP0236 §8.17 "EID assignment", §12).

use super::addr::{
    ExtAddr, SockAddr, ADDR_ANY, ADDR_NULL, NET_ANY, TAG_OWNER, TYPE_CONTROL, TYPE_MASK,
};
use super::control::{
    cc, Assignment, ControlError, Request, Response, SetEidOp, VERSION_1_3_1, VERSION_TYPE_BASE,
};
use super::endpoint::{Endpoint, Socket};
use super::error::StackError;
use super::topology::{LinkId, Route};
use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the responder says about this endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponderConfig {
    pub uuid: [u8; 16],
    /// Get Endpoint ID endpoint type: 0 simple endpoint, 1 bus owner / bridge.
    pub endpoint_type: u8,
    /// Get Endpoint ID EID type: 0 dynamic, 2 static (current).
    pub eid_type: u8,
    /// Message types served, other than control (Get Message Type Support).
    pub message_types: Vec<u8>,
    /// Version entries per message type number (0xFF: the base specification).
    pub versions: BTreeMap<u8, Vec<[u8; 4]>>,
    /// Accept Set Endpoint ID (a static-EID endpoint rejects it).
    pub accept_set_eid: bool,
}

impl Default for ResponderConfig {
    fn default() -> Self {
        let mut versions = BTreeMap::new();
        versions.insert(VERSION_TYPE_BASE, vec![VERSION_1_3_1]);
        versions.insert(TYPE_CONTROL, vec![VERSION_1_3_1]);
        ResponderConfig {
            uuid: [0; 16],
            endpoint_type: 0,
            eid_type: 0,
            message_types: Vec::new(),
            versions,
            accept_set_eid: true,
        }
    }
}

/// Answers control requests for an endpoint.
#[derive(Debug, Clone)]
pub struct ControlResponder {
    pub config: ResponderConfig,
}

fn is_unicast(eid: u8) -> bool {
    !(eid == 0 || eid == 0xFF || (1..=7).contains(&eid))
}

impl ControlResponder {
    pub fn new(config: ResponderConfig) -> Self {
        ControlResponder { config }
    }

    /// The response to one request received from `from`, or `None` when there is nothing to
    /// answer (not a request, a datagram, a header too short to echo).
    pub fn respond(&self, ep: &Endpoint, msg: &[u8], from: &SockAddr) -> Option<Vec<u8>> {
        let (h, req) = match Request::decode(msg) {
            Ok(x) => x,
            Err(ControlError::Length { .. }) => {
                let h = super::control::ControlHeader::decode(msg).ok()?;
                let r = Response::Failed {
                    command: h.command,
                    cc: cc::ERROR_INVALID_LENGTH,
                };
                return r.encode(h.instance).ok();
            }
            Err(_) => return None,
        };
        if h.datagram {
            return None;
        }
        let fail = |code| Response::Failed {
            command: req.command(),
            cc: code,
        };
        let link = from.ext.map(|x| x.link);
        let resp = match req {
            Request::SetEid { op, eid } => match (link, op) {
                (None, _) => fail(cc::ERROR),
                (Some(_), SetEidOp::Reset) => fail(cc::ERROR_INVALID_DATA),
                (Some(l), SetEidOp::SetDiscovered) => Response::SetEid {
                    assignment: Assignment::Accepted,
                    pool_status: 0,
                    eid: ep.configure(|t| Ok(t.source_eid(l))).unwrap_or(0),
                    pool_size: 0,
                },
                (Some(_), _) if !is_unicast(eid) => fail(cc::ERROR_INVALID_DATA),
                (Some(l), _) => {
                    let applied = self.config.accept_set_eid
                        && ep
                            .configure(|t| {
                                t.set_addr(l, eid)?;
                                // Reach the bus owner the way its request came.
                                let net = t.link(l)?.net;
                                if is_unicast(from.eid) && t.lookup(net, from.eid).is_none() {
                                    let hwaddr = from.ext.and_then(|x| x.hwaddr);
                                    t.add_route(Route {
                                        hwaddr,
                                        ..Route::to(net, from.eid, l)
                                    })?;
                                }
                                Ok(())
                            })
                            .is_ok();
                    let current = ep.configure(|t| Ok(t.source_eid(l))).unwrap_or(0);
                    Response::SetEid {
                        assignment: if applied {
                            Assignment::Accepted
                        } else {
                            Assignment::Rejected
                        },
                        pool_status: 0,
                        eid: current,
                        pool_size: 0,
                    }
                }
            },
            Request::GetEid => Response::GetEid {
                eid: link
                    .and_then(|l| ep.configure(|t| Ok(t.source_eid(l))).ok())
                    .unwrap_or(if from.ext.is_none() {
                        from.eid
                    } else {
                        ADDR_NULL
                    }),
                endpoint_type: self.config.endpoint_type,
                eid_type: self.config.eid_type,
                medium_specific: 0,
            },
            Request::GetUuid => Response::GetUuid {
                uuid: self.config.uuid,
            },
            Request::GetVersionSupport { msg_type } => match self.config.versions.get(&msg_type) {
                Some(v) => Response::GetVersionSupport {
                    versions: v.clone(),
                },
                None => fail(cc::MESSAGE_TYPE_NOT_SUPPORTED),
            },
            Request::GetMessageTypeSupport => {
                let mut types: Vec<u8> = self
                    .config
                    .message_types
                    .iter()
                    .map(|t| t & TYPE_MASK)
                    .filter(|&t| t != TYPE_CONTROL)
                    .collect();
                types.sort_unstable();
                types.dedup();
                Response::GetMessageTypeSupport { types }
            }
            Request::ResolveEid { target } => {
                let topo = ep.topology();
                let hop = topo
                    .resolve_net(from.net)
                    .ok()
                    .and_then(|n| topo.lookup(n, target));
                match hop {
                    Some((_, hop)) => Response::ResolveEid {
                        bridge: target,
                        physical: hop.hwaddr.into_iter().collect(),
                    },
                    None => fail(cc::ERROR_INVALID_DATA),
                }
            }
            Request::Unsupported { .. } => fail(cc::ERROR_UNSUPPORTED_CMD),
        };
        resp.encode(h.instance).ok()
    }

    /// Binds a control socket on `ep` and answers requests on a thread until the handle is
    /// dropped.
    pub fn spawn(self, ep: &Endpoint) -> Result<ServiceHandle, StackError> {
        let sock = ep.socket();
        sock.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, TYPE_CONTROL))?;
        let ep = ep.clone();
        spawn_service("mctp-control", sock, move |sock, msg, from| {
            // The request's own EID before it is handled: a Set Endpoint ID response leaves
            // from the EID the request reached, so the requester's tag still matches it.
            let reached = from.ext.map(|x| {
                ep.configure(|t| Ok(t.source_eid(x.link)))
                    .unwrap_or(ADDR_NULL)
            });
            if let Some(r) = self.respond(&ep, &msg, &from) {
                let _ = match reached {
                    Some(src) => sock.send_to_from(&r, &from.reply(), src),
                    None => sock.send_to(&r, &from.reply()),
                };
            }
        })
    }
}

/// A service thread; stops (within 100 ms) when dropped.
#[derive(Debug)]
pub struct ServiceHandle {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for ServiceHandle {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Runs `handle` for every message received on `sock` until the handle is dropped.
pub fn spawn_service(
    name: &str,
    sock: Socket,
    mut handle: impl FnMut(&Socket, Vec<u8>, SockAddr) + Send + 'static,
) -> Result<ServiceHandle, StackError> {
    let stop = Arc::new(AtomicBool::new(false));
    let s2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            while !s2.load(Ordering::Relaxed) {
                match sock.recv_from(Some(Duration::from_millis(100))) {
                    Ok((msg, from)) => handle(&sock, msg, from),
                    Err(StackError::Again(_)) => {}
                    Err(_) => return,
                }
            }
        })
        .map_err(|e| StackError::Link(super::link::LinkError::Io(e.to_string())))?;
    Ok(ServiceHandle {
        stop,
        thread: Some(thread),
    })
}

/// Why a control request got no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlClientError {
    #[error(transparent)]
    Stack(#[from] StackError),
    #[error("no response within {0:?}")]
    Timeout(Duration),
    #[error("completion code 0x{cc:02x} for command 0x{command:02x}")]
    Completion { command: u8, cc: u8 },
    #[error("bad response: {0}")]
    Decode(#[from] ControlError),
}

/// A control requester: one socket, instance IDs counting 0..=31.
#[derive(Debug)]
pub struct ControlClient {
    sock: Socket,
    instance: AtomicU8,
    pub timeout: Duration,
}

impl ControlClient {
    pub fn new(ep: &Endpoint) -> ControlClient {
        ControlClient {
            sock: ep.socket(),
            instance: AtomicU8::new(0),
            timeout: Duration::from_millis(500),
        }
    }

    /// The address of `eid` on the default network, or of an endpoint without an EID (use
    /// the null EID) reached by `link` and `hwaddr`.
    pub fn addr(eid: u8, ext: Option<ExtAddr>) -> SockAddr {
        SockAddr {
            ext,
            ..SockAddr::owner(NET_ANY, eid, TYPE_CONTROL)
        }
    }

    /// Sends `req` to `to` (tag owned) and waits for the response with the same instance ID
    /// and command; anything else arriving meanwhile is ignored. Returns the response and who
    /// sent it.
    pub fn request(
        &self,
        to: &SockAddr,
        req: &Request,
    ) -> Result<(Response, SockAddr), ControlClientError> {
        let instance = self.instance.fetch_add(1, Ordering::Relaxed) & 0x1F;
        let msg = req.encode(instance)?;
        let to = SockAddr {
            tag: TAG_OWNER,
            typ: TYPE_CONTROL,
            ..*to
        };
        self.sock.send_to(&msg, &to)?;
        let deadline = Instant::now() + self.timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let (m, from) = match self.sock.recv_from(Some(left)) {
                Ok(x) => x,
                Err(StackError::Again(_)) => return Err(ControlClientError::Timeout(self.timeout)),
                Err(e) => return Err(e.into()),
            };
            match Response::decode(&m) {
                Ok((h, r)) if h.instance == instance && h.command == req.command() => {
                    return Ok((r, from))
                }
                _ => continue,
            }
        }
    }

    /// [`request`](Self::request), with a non-success completion code as an error.
    pub fn call(&self, to: &SockAddr, req: &Request) -> Result<Response, ControlClientError> {
        match self.request(to, req)?.0 {
            Response::Failed { command, cc } => Err(ControlClientError::Completion { command, cc }),
            r => Ok(r),
        }
    }

    /// Get Endpoint ID: (EID, endpoint type, EID type).
    pub fn get_eid(&self, to: &SockAddr) -> Result<(u8, u8, u8), ControlClientError> {
        match self.call(to, &Request::GetEid)? {
            Response::GetEid {
                eid,
                endpoint_type,
                eid_type,
                ..
            } => Ok((eid, endpoint_type, eid_type)),
            r => Err(ControlClientError::Completion {
                command: r.command(),
                cc: cc::ERROR,
            }),
        }
    }

    /// Set Endpoint ID: the EID the endpoint now has and whether it accepted.
    pub fn set_eid(&self, to: &SockAddr, eid: u8) -> Result<(Assignment, u8), ControlClientError> {
        match self.call(
            to,
            &Request::SetEid {
                op: SetEidOp::Set,
                eid,
            },
        )? {
            Response::SetEid {
                assignment, eid, ..
            } => Ok((assignment, eid)),
            r => Err(ControlClientError::Completion {
                command: r.command(),
                cc: cc::ERROR,
            }),
        }
    }
}

/// One endpoint a bus owner found and numbered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discovered {
    pub link: LinkId,
    pub hwaddr: Option<u8>,
    pub eid: u8,
    /// The endpoint already had this EID (static, or assigned before).
    pub kept: bool,
}

/// A bus owner: hands out EIDs from its pool (DSP0236 §8.17).
#[derive(Debug)]
pub struct BusOwner {
    pub pool: RangeInclusive<u8>,
    assigned: BTreeMap<u8, (LinkId, Option<u8>)>,
}

impl BusOwner {
    pub fn new(pool: RangeInclusive<u8>) -> Result<BusOwner, StackError> {
        if pool.is_empty() || !is_unicast(*pool.start()) || !is_unicast(*pool.end()) {
            return Err(StackError::Invalid("EID pool must lie within 8..=254"));
        }
        Ok(BusOwner {
            pool,
            assigned: BTreeMap::new(),
        })
    }

    pub fn assigned(&self) -> &BTreeMap<u8, (LinkId, Option<u8>)> {
        &self.assigned
    }

    /// Probes each physical address of `link` (`None` on a point-to-point link) with Get
    /// Endpoint ID sent to the null EID; an endpoint that answers keeps an EID it already has
    /// (when free) or gets the next free one of the pool by Set Endpoint ID; each gets a route.
    /// Addresses that do not answer (NACK, timeout) are skipped.
    pub fn discover(
        &mut self,
        ep: &Endpoint,
        client: &ControlClient,
        link: LinkId,
        candidates: &[Option<u8>],
    ) -> Result<Vec<Discovered>, StackError> {
        let net = ep.link(link)?.net;
        let mut found = Vec::new();
        for &hwaddr in candidates {
            let to = ControlClient::addr(ADDR_NULL, Some(ExtAddr { link, hwaddr }));
            let Ok((eid, _, _)) = client.get_eid(&to) else {
                continue;
            };
            let taken = |e: u8, me: &Self| {
                ep.topology().is_local(net, e)
                    || me.assigned.get(&e).is_some_and(|&a| a != (link, hwaddr))
            };
            let (eid, kept) = if is_unicast(eid) && !taken(eid, self) {
                (eid, true)
            } else {
                let Some(new) = self
                    .pool
                    .clone()
                    .find(|&e| !taken(e, self) && !self.assigned.contains_key(&e))
                else {
                    return Err(StackError::Again("EID pool exhausted"));
                };
                match client.set_eid(&to, new) {
                    Ok((Assignment::Accepted, got)) if got == new => (new, false),
                    _ => continue,
                }
            };
            self.assigned.insert(eid, (link, hwaddr));
            let route = Route {
                hwaddr,
                ..Route::to(net, eid, link)
            };
            let _ = ep.add_route(route);
            found.push(Discovered {
                link,
                hwaddr,
                eid,
                kept,
            });
        }
        Ok(found)
    }
}
