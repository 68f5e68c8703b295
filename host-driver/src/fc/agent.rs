//! The two ends of FC/SCTP: the server agent, which bridges assigned streams to (simulated)
//! physical FC ports, and the client, which asks for streams on stream 0 and sends frames on
//! them.
//!
//! The server answers management requests ([`StreamManager`]), admits data frames (time limit,
//! credit), constructs each frame's FC form — the CRC regenerated through the [`Offload`]
//! backend when the prefix's N bit says it is not valid — and hands it to the port; frames the
//! port sends back go to the client on the same stream, carrying returned credit. A peer that
//! opens a new association from the address of a live one has restarted: its old association
//! and streams are dropped.

use super::credit::ClientCredit;
use super::fcp::{command_frame, FcpCmnd, FcpRsp, ReadExchange, SimPort, BLOCK_LEN};
use super::frame::FcFrame;
use super::mgmt::{AssignStream, MgmtBody, MgmtMessage, Request, Response, Revision};
use super::prefix::{Encapsulated, Prefix};
use super::stream::{
    check_answer, now_ms, request_header, Admit, Assignment, ServerConfig, StreamManager,
    MGMT_STREAM,
};
use super::transport::{AssocId, SctpUdp, SctpUdpConfig, TransportError, TransportEvent};
use super::{FcError, Oss};
use crate::Offload;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Transport(#[from] TransportError),
    #[error(transparent)]
    Fc(#[from] FcError),
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(Duration, &'static str),
    #[error("association lost: {0}")]
    Lost(String),
    #[error("the peer aborted the association (SCTP ABORT): {0}")]
    Aborted(String),
    #[error("stream {0} is not assigned to this client")]
    NotAssigned(u16),
}

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

struct Session {
    peer: SocketAddr,
    streams: StreamManager,
}

/// The server agent.
pub struct ServerAgent {
    transport: SctpUdp,
    config: ServerConfig,
    ports: BTreeMap<u16, SimPort>,
    sessions: HashMap<AssocId, Session>,
    offload: Box<dyn Offload>,
    /// Every frame handed to or taken from a port, in FC link form (SOF · … · EOF), when
    /// capturing.
    capture: Option<Vec<Vec<u8>>>,
    pub stats: AgentStats,
}

impl ServerAgent {
    /// Binds `addr`; `ports` are the simulated FC ports (numbers must match `config.ports`).
    pub fn bind(
        addr: SocketAddr,
        config: ServerConfig,
        ports: BTreeMap<u16, SimPort>,
        transport: SctpUdpConfig,
        offload: Box<dyn Offload>,
    ) -> Result<ServerAgent, AgentError> {
        Ok(ServerAgent {
            transport: SctpUdp::bind(addr, true, transport)?,
            config,
            ports,
            sessions: HashMap::new(),
            offload,
            capture: None,
            stats: AgentStats::default(),
        })
    }

    pub fn local_addr(&self) -> Result<SocketAddr, AgentError> {
        Ok(self.transport.local_addr()?)
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

    /// Runs until `stop` is set.
    pub fn run(&mut self, stop: &AtomicBool) -> Result<(), AgentError> {
        while !stop.load(Ordering::Relaxed) {
            self.run_once(Duration::from_millis(20))?;
        }
        Ok(())
    }

    /// One round: I/O, then every event handled, then pending credit returned.
    pub fn run_once(&mut self, timeout: Duration) -> Result<(), AgentError> {
        self.transport.poll(timeout)?;
        while let Some(ev) = self.transport.next_event() {
            match ev {
                TransportEvent::Incoming { assoc, peer } => self.on_incoming(assoc, peer)?,
                TransportEvent::Connected { .. } => {}
                TransportEvent::Message {
                    assoc,
                    stream,
                    data,
                } => self.on_message(assoc, stream, &data)?,
                TransportEvent::Lost { assoc, .. } => {
                    self.sessions.remove(&assoc);
                }
            }
        }
        self.return_credit()?;
        Ok(())
    }

    fn on_incoming(&mut self, assoc: AssocId, peer: SocketAddr) -> Result<(), AgentError> {
        self.stats.associations += 1;
        let old: Vec<AssocId> = self
            .sessions
            .iter()
            .filter(|(_, s)| s.peer == peer)
            .map(|(a, _)| *a)
            .collect();
        for a in old {
            self.stats.restarts += 1;
            self.sessions.remove(&a);
            self.transport.abort(a)?;
        }
        self.sessions.insert(
            assoc,
            Session {
                peer,
                streams: StreamManager::new(self.config.clone()),
            },
        );
        Ok(())
    }

    fn on_message(&mut self, assoc: AssocId, stream: u16, data: &[u8]) -> Result<(), AgentError> {
        let Some(session) = self.sessions.get_mut(&assoc) else {
            return Ok(());
        };
        if stream == MGMT_STREAM {
            self.stats.mgmt_requests += 1;
            if let Some(answer) = session.streams.handle_bytes(data) {
                self.transport.send(assoc, MGMT_STREAM, &answer)?;
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
            .admit(stream, &prefix, frame.payload.len(), now_ms())
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
        let a = session
            .streams
            .assignment_mut(stream)
            .expect("admitted on an assigned stream");
        a.credit.on_freed();
        for f in answers {
            let mut p = Prefix {
                timestamp_ms: now_ms(),
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
            self.transport.send(assoc, stream, &bytes)?;
        }
        Ok(())
    }

    /// Sends a frameless prefix on every stream with credit still to return.
    fn return_credit(&mut self) -> Result<(), AgentError> {
        let mut out = Vec::new();
        for (assoc, s) in self.sessions.iter_mut() {
            for a in s.streams.assignments_mut() {
                if a.credit.pending() {
                    let mut p = Prefix {
                        timestamp_ms: now_ms(),
                        oss: Oss::None,
                        ..Default::default()
                    };
                    a.credit.stamp(&mut p);
                    out.push((
                        *assoc,
                        a.stream,
                        Encapsulated::Signal { prefix: p }.encode()?,
                    ));
                }
            }
        }
        for (assoc, stream, bytes) in out {
            self.transport.send(assoc, stream, &bytes)?;
        }
        Ok(())
    }
}

/// What the server answered to Assign Stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssignOutcome {
    pub response: Response,
    /// The stream assigned (0 unless Good).
    pub stream: u16,
    pub priority: u8,
    pub time_limit_ms: u32,
}

/// Early credit prefixes kept per unknown stream, and unknown streams kept.
const MAX_EARLY: usize = 64;
/// Management answers kept unclaimed, and frames kept per stream until taken: a peer cannot
/// make the client buffer without bound (beyond these, the oldest answer or the new frame is
/// dropped and counted).
const MAX_ANSWERS: usize = 256;
pub const MAX_INBOX: usize = 8192;
/// How long [`Client::close`] waits for the graceful end: a few RTO.Min (1 s) so that a lost
/// SHUTDOWN or SHUTDOWN ACK can be retransmitted (T2-shutdown, RFC 4960 §9.2).
pub const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone, Debug)]
pub struct ClientConfig {
    pub revision: Revision,
    /// BB_Credit per stream, as established at login (must match the server's).
    pub login_credit: u16,
    /// Send frames with the N bit set and no CRC (the server constructs it).
    pub crc_invalid: bool,
    pub transport: SctpUdpConfig,
    /// How long management requests and connection set-up may take.
    pub timeout: Duration,
}

impl Default for ClientConfig {
    fn default() -> ClientConfig {
        ClientConfig {
            revision: Revision { major: 1, minor: 0 },
            login_credit: 16,
            crc_invalid: false,
            transport: SctpUdpConfig::default(),
            timeout: Duration::from_secs(5),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub frames_sent: u64,
    pub frames_received: u64,
    pub signals_received: u64,
    pub bad_messages: u64,
    /// Frames dropped because the stream's inbox was full (see [`MAX_INBOX`]).
    pub inbox_overflows: u64,
}

struct ClientStream {
    credit: ClientCredit,
    inbox: VecDeque<(Prefix, FcFrame)>,
}

/// The client end.
pub struct Client {
    transport: SctpUdp,
    assoc: AssocId,
    config: ClientConfig,
    next_tag: u16,
    answers: VecDeque<MgmtMessage>,
    streams: HashMap<u16, ClientStream>,
    /// Credit prefixes that came on a stream before its Assign Stream answer (SCTP delivers
    /// unordered across streams), replayed when the answer comes.
    early: HashMap<u16, Vec<Prefix>>,
    offload: Box<dyn Offload>,
    lost: Option<String>,
    pub stats: ClientStats,
}

impl Client {
    /// Opens an association from `local` (port 0: any) to the server and waits until it is up.
    pub fn connect(
        local: SocketAddr,
        server: SocketAddr,
        config: ClientConfig,
        offload: Box<dyn Offload>,
    ) -> Result<Client, AgentError> {
        let mut transport = SctpUdp::bind(local, false, config.transport.clone())?;
        let assoc = transport.connect(server)?;
        let mut c = Client {
            transport,
            assoc,
            config,
            next_tag: 1,
            answers: VecDeque::new(),
            streams: HashMap::new(),
            early: HashMap::new(),
            offload,
            lost: None,
            stats: ClientStats::default(),
        };
        let timeout = c.config.timeout;
        c.wait(timeout, "the association", |c| {
            c.transport.is_established(c.assoc).then_some(())
        })?;
        Ok(c)
    }

    pub fn local_addr(&self) -> Result<SocketAddr, AgentError> {
        Ok(self.transport.local_addr()?)
    }

    /// One round of I/O; messages are sorted into answers and per-stream inboxes.
    pub fn poll(&mut self, timeout: Duration) -> Result<(), AgentError> {
        self.transport.poll(timeout)?;
        while let Some(ev) = self.transport.next_event() {
            match ev {
                TransportEvent::Message {
                    stream: MGMT_STREAM,
                    data,
                    ..
                } => match MgmtMessage::decode_response(&data) {
                    Ok(m) => {
                        if self.answers.len() >= MAX_ANSWERS {
                            self.answers.pop_front();
                            self.stats.bad_messages += 1;
                        }
                        self.answers.push_back(m)
                    }
                    Err(_) => self.stats.bad_messages += 1,
                },
                TransportEvent::Message { stream, data, .. } => {
                    let Some(s) = self.streams.get_mut(&stream) else {
                        match Encapsulated::decode_with(&data, self.offload.as_mut()) {
                            Ok(Encapsulated::Signal { prefix }) => {
                                let known = self.early.len();
                                let early = self.early.entry(stream).or_default();
                                if early.len() < MAX_EARLY && known <= MAX_EARLY {
                                    early.push(prefix);
                                }
                            }
                            _ => self.stats.bad_messages += 1,
                        }
                        continue;
                    };
                    match Encapsulated::decode_with(&data, self.offload.as_mut()) {
                        Ok(Encapsulated::Frame { prefix, frame }) => {
                            s.credit.on_server_prefix(&prefix);
                            self.stats.frames_received += 1;
                            if s.inbox.len() < MAX_INBOX {
                                s.inbox.push_back((prefix, frame));
                            } else {
                                self.stats.inbox_overflows += 1;
                            }
                        }
                        Ok(Encapsulated::Signal { prefix }) => {
                            s.credit.on_server_prefix(&prefix);
                            self.stats.signals_received += 1;
                        }
                        Err(_) => self.stats.bad_messages += 1,
                    }
                }
                TransportEvent::Lost { reason, .. } => self.lost = Some(reason),
                TransportEvent::Incoming { .. } | TransportEvent::Connected { .. } => {}
            }
        }
        match &self.lost {
            Some(r) => Err(AgentError::Lost(r.clone())),
            None => Ok(()),
        }
    }

    fn wait<T>(
        &mut self,
        timeout: Duration,
        what: &'static str,
        mut ready: impl FnMut(&mut Client) -> Option<T>,
    ) -> Result<T, AgentError> {
        let end = Instant::now() + timeout;
        loop {
            if let Some(v) = ready(self) {
                return Ok(v);
            }
            let now = Instant::now();
            if now >= end {
                return Err(AgentError::Timeout(timeout, what));
            }
            self.poll((end - now).min(Duration::from_millis(10)))?;
        }
    }

    /// Sends a request on stream 0 and waits for its answer (matched by tag).
    pub fn request(&mut self, request: Request, body: MgmtBody) -> Result<MgmtMessage, AgentError> {
        self.request_with_revision(request, body, self.config.revision)
    }

    pub fn request_with_revision(
        &mut self,
        request: Request,
        body: MgmtBody,
        revision: Revision,
    ) -> Result<MgmtMessage, AgentError> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        let header = request_header(tag, revision, request);
        let bytes = MgmtMessage { header, body }.encode()?;
        self.transport.send(self.assoc, MGMT_STREAM, &bytes)?;
        let timeout = self.config.timeout;
        let answer = self.wait(timeout, "a management answer", |c| {
            let i = c.answers.iter().position(|m| m.header.tag == tag)?;
            c.answers.remove(i)
        })?;
        check_answer(&header, &answer)?;
        Ok(answer)
    }

    /// Report Supported Revisions.
    pub fn report_revisions(&mut self) -> Result<Vec<Revision>, AgentError> {
        match self
            .request(Request::ReportRevisions, MgmtBody::Revisions(Vec::new()))?
            .body
        {
            MgmtBody::Revisions(list) => Ok(list),
            _ => Err(FcError::Fcp {
                reason: "revision report without a list",
            }
            .into()),
        }
    }

    /// Assign Stream; on Good the stream is ready for [`send_frame`](Self::send_frame).
    pub fn assign(
        &mut self,
        port: u16,
        priority: u8,
        time_limit_ms: u32,
    ) -> Result<AssignOutcome, AgentError> {
        self.assign_with_revision(port, priority, time_limit_ms, self.config.revision)
    }

    pub fn assign_with_revision(
        &mut self,
        port: u16,
        priority: u8,
        time_limit_ms: u32,
        revision: Revision,
    ) -> Result<AssignOutcome, AgentError> {
        let body = MgmtBody::Assign(AssignStream {
            port_or_stream: port,
            priority,
            time_limit_ms,
        });
        let answer = self.request_with_revision(Request::AssignStream, body, revision)?;
        let MgmtBody::Assign(a) = answer.body else {
            return Err(FcError::UnexpectedAnswer {
                tag: answer.header.tag,
            }
            .into());
        };
        let outcome = AssignOutcome {
            response: answer.header.response,
            stream: a.port_or_stream,
            priority: a.priority,
            time_limit_ms: a.time_limit_ms,
        };
        if outcome.response == Response::Good {
            let mut credit = ClientCredit::new(self.config.login_credit);
            for p in self.early.remove(&outcome.stream).unwrap_or_default() {
                credit.on_server_prefix(&p);
            }
            self.streams.insert(
                outcome.stream,
                ClientStream {
                    credit,
                    inbox: VecDeque::new(),
                },
            );
            // The stream is usable once the server has asserted login credit on it.
            let timeout = self.config.timeout;
            let stream = outcome.stream;
            self.wait(timeout, "login credit on the new stream", |c| {
                c.streams[&stream].credit.asserted().then_some(())
            })?;
        }
        Ok(outcome)
    }

    /// Release Stream.
    pub fn release(&mut self, stream: u16) -> Result<Response, AgentError> {
        let r = self
            .request(Request::ReleaseStream, MgmtBody::Release { stream })?
            .header
            .response;
        if r == Response::Good {
            self.streams.remove(&stream);
        }
        Ok(r)
    }

    /// Credit left on a stream.
    pub fn credit(&self, stream: u16) -> Option<u32> {
        self.streams.get(&stream).map(|s| s.credit.available())
    }

    /// Sends a frame now if the stream has credit (false if not), stamped `timestamp_ms`.
    pub fn try_send_frame_at(
        &mut self,
        stream: u16,
        frame: &FcFrame,
        timestamp_ms: u32,
    ) -> Result<bool, AgentError> {
        let s = self
            .streams
            .get_mut(&stream)
            .ok_or(AgentError::NotAssigned(stream))?;
        if !s.credit.take() {
            return Ok(false);
        }
        let mut p = Prefix {
            timestamp_ms,
            crc_invalid: self.config.crc_invalid,
            ..Default::default()
        };
        s.credit.stamp(&mut p);
        let bytes = Encapsulated::Frame {
            prefix: p,
            frame: frame.clone(),
        }
        .encode_with(self.offload.as_mut())?;
        self.transport.send(self.assoc, stream, &bytes)?;
        self.stats.frames_sent += 1;
        Ok(true)
    }

    /// Sends a chunk's octets as given on `stream`, using a credit as a frame does (false if
    /// none is left): for checking how a peer treats malformed or corrupted chunks.
    pub fn send_raw(&mut self, stream: u16, chunk: &[u8]) -> Result<bool, AgentError> {
        let s = self
            .streams
            .get_mut(&stream)
            .ok_or(AgentError::NotAssigned(stream))?;
        if !s.credit.take() {
            return Ok(false);
        }
        self.transport.send(self.assoc, stream, chunk)?;
        Ok(true)
    }

    pub fn try_send_frame(&mut self, stream: u16, frame: &FcFrame) -> Result<bool, AgentError> {
        self.try_send_frame_at(stream, frame, now_ms())
    }

    /// Sends a frame, waiting for credit.
    pub fn send_frame(&mut self, stream: u16, frame: &FcFrame) -> Result<(), AgentError> {
        let timeout = self.config.timeout;
        let end = Instant::now() + timeout;
        while !self.try_send_frame(stream, frame)? {
            if Instant::now() >= end {
                return Err(AgentError::Timeout(timeout, "credit"));
            }
            self.poll(Duration::from_millis(5))?;
        }
        Ok(())
    }

    /// The next frame received on `stream`, if one is waiting.
    pub fn take_frame(&mut self, stream: u16) -> Option<(Prefix, FcFrame)> {
        self.streams.get_mut(&stream)?.inbox.pop_front()
    }

    /// Waits up to `timeout` for a frame on `stream`.
    pub fn recv_frame(
        &mut self,
        stream: u16,
        timeout: Duration,
    ) -> Result<(Prefix, FcFrame), AgentError> {
        self.wait(timeout, "a frame", |c| c.take_frame(stream))
    }

    /// Runs an FCP read exchange on `stream`: FCP_CMND READ(10), then FCP_DATA and FCP_RSP
    /// back. Returns the response, the data, and every frame of the exchange in the order
    /// sent and received.
    #[allow(clippy::too_many_arguments)]
    pub fn fcp_read(
        &mut self,
        stream: u16,
        s_id: u32,
        d_id: u32,
        ox_id: u16,
        lba: u32,
        blocks: u16,
    ) -> Result<(FcpRsp, Vec<u8>, Vec<FcFrame>), AgentError> {
        let cmd = command_frame(s_id, d_id, ox_id, &FcpCmnd::read10(lba, blocks));
        self.send_frame(stream, &cmd)?;
        let mut frames = vec![cmd];
        let mut x = ReadExchange::new(ox_id, blocks as usize * BLOCK_LEN);
        let timeout = self.config.timeout;
        let end = Instant::now() + timeout;
        loop {
            while let Some((_, f)) = self.take_frame(stream) {
                x.on_frame(&f)?;
                frames.push(f);
            }
            if let Some(rsp) = x.done() {
                return Ok((rsp.clone(), x.data().to_vec(), frames));
            }
            if Instant::now() >= end {
                return Err(AgentError::Timeout(timeout, "the FCP read exchange"));
            }
            self.poll(Duration::from_millis(5))?;
        }
    }

    /// Ends the association gracefully: SHUTDOWN, then waits (up to [`CLOSE_TIMEOUT`]) for
    /// the SHUTDOWN ACK / SHUTDOWN COMPLETE exchange (RFC 4960 §9.2). An ABORT from the peer
    /// instead, or no end in time, is an error.
    pub fn close(mut self) -> Result<(), AgentError> {
        if let Some(r) = self.lost.take() {
            return Err(AgentError::Lost(r));
        }
        self.transport.close(self.assoc)?;
        let end = Instant::now() + CLOSE_TIMEOUT;
        loop {
            self.transport.poll(Duration::from_millis(10))?;
            while let Some(ev) = self.transport.next_event() {
                if let TransportEvent::Lost {
                    assoc,
                    reason,
                    aborted,
                } = ev
                {
                    if assoc != self.assoc {
                        continue;
                    }
                    if aborted {
                        return Err(AgentError::Aborted(reason));
                    }
                    return Ok(());
                }
            }
            if Instant::now() >= end {
                return Err(AgentError::Timeout(CLOSE_TIMEOUT, "the SHUTDOWN to complete"));
            }
        }
    }

    /// Drops the association without a word to the server, as a crashing host does; returns
    /// the local address so a restarted client can come back from it.
    pub fn crash(mut self) -> Result<SocketAddr, AgentError> {
        let local = self.local_addr()?;
        self.transport.forget(self.assoc);
        Ok(local)
    }
}
