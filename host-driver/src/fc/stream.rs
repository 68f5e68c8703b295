//! The server's stream table: answers stream-0 management requests (assigning streams to
//! physical ports, with priority and a stale-frame time limit) and admits data frames on the
//! assigned streams (time limit, credit).

use super::credit::ServerCredit;
use super::mgmt::{
    AssignStream, MgmtBody, MgmtHeader, MgmtMessage, Request, Response, Revision, REVISION_0_0,
};
use super::prefix::Prefix;
use super::FcError;
use std::collections::BTreeMap;

/// Stream 0 carries management messages only.
pub const MGMT_STREAM: u16 = 0;

/// Whether a client may have a stream to a port (the draft's stream filtering).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortAccess {
    Open,
    /// Assign Stream is answered Refused.
    Refused,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortConfig {
    pub port: u16,
    pub access: PortAccess,
    /// A port whose link is down (NOS/OLS seen) answers Busy.
    pub online: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    /// Supported revisions, highest first, ending with 0.0.
    pub revisions: Vec<Revision>,
    pub ports: Vec<PortConfig>,
    /// Data streams available per association (numbered 1..=max_streams).
    pub max_streams: u16,
    /// Requested priorities above this are lowered to it.
    pub max_priority: u8,
    /// Requested time limits above this are lowered to it (0: no ceiling).
    pub max_time_limit_ms: u32,
    /// BB_Credit per stream at login.
    pub login_credit: u16,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            revisions: vec![Revision { major: 1, minor: 0 }, REVISION_0_0],
            ports: vec![PortConfig {
                port: 1,
                access: PortAccess::Open,
                online: true,
            }],
            max_streams: 16,
            max_priority: 7,
            max_time_limit_ms: 60_000,
            login_credit: 16,
        }
    }
}

/// Per-stream counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct StreamStats {
    pub frames_delivered: u64,
    pub octets_delivered: u64,
    /// Frames older than the stream's time limit, dropped.
    pub stale_dropped: u64,
    /// Frames sent without credit, dropped.
    pub credit_overruns: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assignment {
    pub stream: u16,
    pub port: u16,
    pub priority: u8,
    pub time_limit_ms: u32,
    pub credit: ServerCredit,
    pub stats: StreamStats,
}

/// What to do with a data frame that arrived on a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admit {
    /// Pass it on to this physical port.
    Deliver { port: u16 },
    /// Older than the stream's time limit: dropped and counted.
    Stale { age_ms: u32 },
    /// The client had no credit left: dropped and counted.
    NoCredit,
    /// Not an assigned stream (or stream 0): dropped.
    Unassigned,
}

/// Whether a frame stamped `timestamp_ms` is older than `limit_ms` at `now_ms` (clocks in
/// milliseconds modulo 2^32; a timestamp ahead of the clock is not stale). Limit 0: never.
pub fn is_stale(now_ms: u32, timestamp_ms: u32, limit_ms: u32) -> Option<u32> {
    let age = now_ms.wrapping_sub(timestamp_ms);
    (limit_ms != 0 && age < 1 << 31 && age > limit_ms).then_some(age)
}

/// The wall clock in milliseconds modulo 2^32, the prefix's timestamp base (**decision**: Unix
/// time, so hosts with synchronised clocks agree).
pub fn now_ms() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u32)
        .unwrap_or(0)
}

/// One association's stream table on the server.
#[derive(Clone, Debug)]
pub struct StreamManager {
    config: ServerConfig,
    assignments: BTreeMap<u16, Assignment>,
    /// Management messages whose header could not be read (no answer is possible).
    pub unreadable_requests: u64,
}

impl StreamManager {
    pub fn new(config: ServerConfig) -> StreamManager {
        StreamManager {
            config,
            assignments: BTreeMap::new(),
            unreadable_requests: 0,
        }
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// Marks a port's link up or down.
    pub fn set_port_online(&mut self, port: u16, online: bool) {
        for p in self.config.ports.iter_mut().filter(|p| p.port == port) {
            p.online = online;
        }
    }

    pub fn assignment(&self, stream: u16) -> Option<&Assignment> {
        self.assignments.get(&stream)
    }

    pub fn assignment_mut(&mut self, stream: u16) -> Option<&mut Assignment> {
        self.assignments.get_mut(&stream)
    }

    pub fn assignments(&self) -> impl Iterator<Item = &Assignment> {
        self.assignments.values()
    }

    pub fn assignments_mut(&mut self) -> impl Iterator<Item = &mut Assignment> {
        self.assignments.values_mut()
    }

    /// Answers one stream-0 message (its bytes); `None` when not even the header is readable.
    pub fn handle_bytes(&mut self, b: &[u8]) -> Option<Vec<u8>> {
        let answer = match MgmtMessage::decode_request(b) {
            Ok(m) => self.handle(&m),
            Err(_) => match MgmtHeader::decode(b) {
                // A readable header with bad arguments: Invalid Request, arguments echoed.
                Ok(header) => MgmtMessage {
                    header: MgmtHeader {
                        response: Response::InvalidRequest,
                        ..header
                    },
                    body: MgmtBody::Other(b[super::mgmt::MGMT_HEADER_LEN..].to_vec()),
                },
                Err(_) => {
                    self.unreadable_requests += 1;
                    return None;
                }
            },
        };
        Some(answer.encode().expect("answers are built valid"))
    }

    /// Answers one decoded request.
    pub fn handle(&mut self, m: &MgmtMessage) -> MgmtMessage {
        let reply = |response: Response, body: MgmtBody| MgmtMessage {
            header: MgmtHeader {
                response,
                ..m.header
            },
            body,
        };
        let request = m.header.request();
        if request == Request::ReportRevisions {
            // Answered whatever revision the header names: it is how a client finds one.
            return reply(
                Response::Good,
                MgmtBody::Revisions(self.config.revisions.clone()),
            );
        }
        let revision_ok = self.config.revisions.contains(&m.header.revision);
        match (&m.body, request) {
            (MgmtBody::Assign(a), Request::AssignStream) => {
                let (response, granted) = if revision_ok {
                    self.assign(a)
                } else {
                    (Response::RevisionConflict, None)
                };
                let body = granted.unwrap_or(AssignStream {
                    port_or_stream: 0,
                    ..*a
                });
                reply(response, MgmtBody::Assign(body))
            }
            (MgmtBody::Release { stream }, Request::ReleaseStream) => {
                let response = if !revision_ok {
                    Response::RevisionConflict
                } else if self.assignments.remove(stream).is_some() {
                    Response::Good
                } else {
                    Response::InvalidRequest
                };
                reply(response, MgmtBody::Release { stream: *stream })
            }
            _ => reply(Response::InvalidRequest, m.body.clone()),
        }
    }

    fn assign(&mut self, a: &AssignStream) -> (Response, Option<AssignStream>) {
        let Some(port) = self
            .config
            .ports
            .iter()
            .find(|p| p.port == a.port_or_stream)
        else {
            return (Response::InvalidRequest, None);
        };
        if port.access == PortAccess::Refused {
            return (Response::Refused, None);
        }
        if !port.online {
            return (Response::Busy, None);
        }
        let Some(stream) =
            (1..=self.config.max_streams).find(|s| !self.assignments.contains_key(s))
        else {
            return (Response::UnavailableResource, None);
        };
        let priority = a.priority.min(self.config.max_priority);
        let time_limit_ms = match self.config.max_time_limit_ms {
            0 => a.time_limit_ms,
            max => a.time_limit_ms.min(max),
        };
        // Login credit is asserted on the new stream with the next prefix sent on it.
        let mut credit = ServerCredit::new(self.config.login_credit);
        credit.reset();
        self.assignments.insert(
            stream,
            Assignment {
                stream,
                port: port.port,
                priority,
                time_limit_ms,
                credit,
                stats: StreamStats::default(),
            },
        );
        (
            Response::Good,
            Some(AssignStream {
                port_or_stream: stream,
                priority,
                time_limit_ms,
            }),
        )
    }

    /// Decides a data frame's fate. A frame admitted for delivery holds a credit until
    /// [`ServerCredit::on_freed`] (the caller frees it once the port has it); stale frames are
    /// freed here.
    pub fn admit(&mut self, stream: u16, prefix: &Prefix, len: usize, now_ms: u32) -> Admit {
        let Some(a) = self.assignments.get_mut(&stream) else {
            return Admit::Unassigned;
        };
        a.credit.on_client_prefix(prefix);
        if !a.credit.on_frame() {
            a.stats.credit_overruns += 1;
            return Admit::NoCredit;
        }
        if let Some(age_ms) = is_stale(now_ms, prefix.timestamp_ms, a.time_limit_ms) {
            a.credit.on_freed();
            a.stats.stale_dropped += 1;
            return Admit::Stale { age_ms };
        }
        a.stats.frames_delivered += 1;
        a.stats.octets_delivered += len as u64;
        Admit::Deliver { port: a.port }
    }

    /// Drops every assignment (association lost or restarted).
    pub fn release_all(&mut self) -> Vec<Assignment> {
        std::mem::take(&mut self.assignments)
            .into_values()
            .collect()
    }
}

/// Builds a request header.
pub fn request_header(tag: u16, revision: Revision, request: Request) -> MgmtHeader {
    MgmtHeader {
        tag,
        revision,
        request: request.code(),
        response: Response::Good,
    }
}

/// Checks that a response answers `request` (same tag and request code).
pub fn check_answer(request: &MgmtHeader, answer: &MgmtMessage) -> Result<(), FcError> {
    if answer.header.tag != request.tag || answer.header.request != request.request {
        return Err(FcError::UnexpectedAnswer {
            tag: answer.header.tag,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const R10: Revision = Revision { major: 1, minor: 0 };

    fn server() -> StreamManager {
        StreamManager::new(ServerConfig {
            ports: vec![
                PortConfig {
                    port: 1,
                    access: PortAccess::Open,
                    online: true,
                },
                PortConfig {
                    port: 2,
                    access: PortAccess::Refused,
                    online: true,
                },
                PortConfig {
                    port: 3,
                    access: PortAccess::Open,
                    online: false,
                },
            ],
            max_streams: 2,
            max_priority: 5,
            max_time_limit_ms: 1000,
            ..ServerConfig::default()
        })
    }

    fn assign(
        s: &mut StreamManager,
        rev: Revision,
        port: u16,
        priority: u8,
        limit: u32,
    ) -> MgmtMessage {
        s.handle(&MgmtMessage {
            header: request_header(7, rev, Request::AssignStream),
            body: MgmtBody::Assign(AssignStream {
                port_or_stream: port,
                priority,
                time_limit_ms: limit,
            }),
        })
    }

    fn body(m: &MgmtMessage) -> AssignStream {
        match m.body {
            MgmtBody::Assign(a) => a,
            ref other => panic!("{other:?}"),
        }
    }

    #[test]
    fn every_response_code_from_assign_and_release() {
        let mut s = server();
        let good = assign(&mut s, R10, 1, 9, 5000);
        assert_eq!(good.header.response, Response::Good);
        assert_eq!(
            body(&good),
            AssignStream {
                port_or_stream: 1,
                priority: 5,
                time_limit_ms: 1000
            },
            "adjusted"
        );
        assert_eq!(good.header.tag, 7);
        let conflict = assign(&mut s, Revision { major: 3, minor: 0 }, 1, 0, 0);
        assert_eq!(conflict.header.response, Response::RevisionConflict);
        assert_eq!(body(&conflict).port_or_stream, 0);
        assert_eq!(
            assign(&mut s, R10, 9, 0, 0).header.response,
            Response::InvalidRequest
        );
        assert_eq!(
            assign(&mut s, R10, 2, 0, 0).header.response,
            Response::Refused
        );
        assert_eq!(assign(&mut s, R10, 3, 0, 0).header.response, Response::Busy);
        assert_eq!(
            body(&assign(&mut s, REVISION_0_0, 1, 0, 0)).port_or_stream,
            2
        );
        let full = assign(&mut s, R10, 1, 0, 0);
        assert_eq!(full.header.response, Response::UnavailableResource);
        assert_eq!(body(&full).port_or_stream, 0);

        let release = |s: &mut StreamManager, stream| {
            s.handle(&MgmtMessage {
                header: request_header(8, R10, Request::ReleaseStream),
                body: MgmtBody::Release { stream },
            })
            .header
            .response
        };
        assert_eq!(release(&mut s, 1), Response::Good);
        assert_eq!(release(&mut s, 1), Response::InvalidRequest);
        assert_eq!(release(&mut s, 0), Response::InvalidRequest);
        assert_eq!(
            body(&assign(&mut s, R10, 1, 0, 0)).port_or_stream,
            1,
            "freed stream reused"
        );
    }

    #[test]
    fn bytes_in_bytes_out() {
        let mut s = server();
        let q = MgmtMessage {
            header: request_header(1, Revision { major: 9, minor: 9 }, Request::ReportRevisions),
            body: MgmtBody::Revisions(vec![]),
        };
        let a =
            MgmtMessage::decode_response(&s.handle_bytes(&q.encode().unwrap()).unwrap()).unwrap();
        assert_eq!(a.body, MgmtBody::Revisions(vec![R10, REVISION_0_0]));
        let h = request_header(2, R10, Request::AssignStream).encode();
        let a = s.handle_bytes(&[&h[..], &[0; 3]].concat()).unwrap();
        assert_eq!(
            MgmtHeader::decode(&a).unwrap().response,
            Response::InvalidRequest
        );
        assert_eq!(a.len(), 11, "arguments echoed");
        let h = request_header(3, R10, Request::Other(40)).encode();
        let a = MgmtMessage::decode_response(&s.handle_bytes(&h).unwrap()).unwrap();
        assert_eq!(a.header.response, Response::InvalidRequest);
        assert_eq!(s.handle_bytes(&[1, 2, 3]), None);
        assert_eq!(s.unreadable_requests, 1);
    }

    #[test]
    fn stale_frames_and_credit() {
        let mut s = server();
        assign(&mut s, R10, 1, 0, 100);
        let now = 50_000;
        let fresh = Prefix {
            timestamp_ms: now - 100,
            ..Default::default()
        };
        let old = Prefix {
            timestamp_ms: now - 101,
            ..Default::default()
        };
        assert_eq!(s.admit(1, &fresh, 10, now), Admit::Deliver { port: 1 });
        assert_eq!(s.admit(1, &old, 10, now), Admit::Stale { age_ms: 101 });
        assert_eq!(
            s.admit(
                1,
                &Prefix {
                    timestamp_ms: now + 5,
                    ..Default::default()
                },
                1,
                now
            ),
            Admit::Deliver { port: 1 }
        );
        assert_eq!(s.admit(2, &fresh, 10, now), Admit::Unassigned);
        let a = s.assignment(1).unwrap();
        assert_eq!(a.stats.stale_dropped, 1);
        assert_eq!(a.stats.frames_delivered, 2);
        assert_eq!(is_stale(5, u32::MAX - 10, 15), Some(16), "across the wrap");
        assert_eq!(is_stale(5, 0, 0), None);
    }
}
