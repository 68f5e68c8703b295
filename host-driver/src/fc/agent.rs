//! The I/O drivers of the two ends of FC/SCTP, over SCTP/UDP ([`SctpUdp`]): the server agent
//! and the client. The protocol is in the sans-IO cores, [`ServerCore`] and [`ClientCore`];
//! these hold the socket and the clock, feed the cores the transport's events with the time,
//! send what the cores queue, and do the waiting (association up, answers, credit, close).

pub use super::client::{AssignOutcome, ClientStats, MAX_INBOX};
pub use super::server::AgentStats;

use super::client::ClientCore;
use super::fcp::{command_frame, FcpCmnd, FcpRsp, ReadExchange, SimPort, BLOCK_LEN};
use super::frame::FcFrame;
use super::mgmt::{MgmtBody, MgmtMessage, Request, Response, Revision};
use super::prefix::Prefix;
use super::server::{ServerAction, ServerCore};
use super::stream::{check_answer, now_ms, Assignment, ServerConfig};
use super::transport::{AssocId, SctpUdp, SctpUdpConfig, TransportError, TransportEvent};
use super::FcError;
use crate::Offload;
use std::collections::BTreeMap;
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
}

/// The server agent: a [`ServerCore`] on an SCTP/UDP endpoint.
pub struct ServerAgent {
    transport: SctpUdp,
    core: ServerCore<AssocId>,
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
            core: ServerCore::new(config, ports, offload),
        })
    }

    pub fn local_addr(&self) -> Result<SocketAddr, AgentError> {
        Ok(self.transport.local_addr()?)
    }

    /// The protocol core (counters, capture, assignments).
    pub fn core(&mut self) -> &mut ServerCore<AssocId> {
        &mut self.core
    }

    pub fn stats(&self) -> AgentStats {
        self.core.stats
    }

    /// Starts keeping the FC form of every frame bridged.
    pub fn capture(&mut self) {
        self.core.capture();
    }

    pub fn take_capture(&mut self) -> Vec<Vec<u8>> {
        self.core.take_capture()
    }

    /// The assignments of every live association, by peer.
    pub fn assignments(&self) -> Vec<(SocketAddr, Vec<Assignment>)> {
        self.core.assignments()
    }

    pub fn sessions(&self) -> usize {
        self.core.sessions()
    }

    /// Runs until `stop` is set.
    pub fn run(&mut self, stop: &AtomicBool) -> Result<(), AgentError> {
        while !stop.load(Ordering::Relaxed) {
            self.run_once(Duration::from_millis(20))?;
        }
        Ok(())
    }

    /// One round: I/O, then every event handled, then pending credit returned, then what the
    /// core queued sent.
    pub fn run_once(&mut self, timeout: Duration) -> Result<(), AgentError> {
        self.transport.poll(timeout)?;
        while let Some(ev) = self.transport.next_event() {
            match ev {
                TransportEvent::Incoming { assoc, peer } => self.core.on_incoming(assoc, peer),
                TransportEvent::Connected { .. } => {}
                TransportEvent::Message {
                    assoc,
                    stream,
                    data,
                } => self.core.on_message(assoc, stream, &data, now_ms())?,
                TransportEvent::Lost { assoc, .. } => self.core.on_lost(assoc),
            }
            self.flush()?;
        }
        self.core.return_credit(now_ms())?;
        self.flush()
    }

    fn flush(&mut self) -> Result<(), AgentError> {
        while let Some(a) = self.core.poll_action() {
            match a {
                ServerAction::Send {
                    assoc,
                    stream,
                    data,
                } => self.transport.send(assoc, stream, &data)?,
                ServerAction::Abort { assoc } => self.transport.abort(assoc)?,
            }
        }
        Ok(())
    }
}

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

/// The client end: a [`ClientCore`] on an SCTP/UDP association.
pub struct Client {
    transport: SctpUdp,
    assoc: AssocId,
    config: ClientConfig,
    core: ClientCore,
    lost: Option<String>,
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
        let core = ClientCore::new(config.login_credit, config.crc_invalid, offload);
        let mut c = Client {
            transport,
            assoc,
            config,
            core,
            lost: None,
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

    /// The client's counters.
    pub fn stats(&self) -> ClientStats {
        self.core.stats
    }

    /// Sends what the core queued.
    fn flush(&mut self) -> Result<(), AgentError> {
        while let Some((stream, bytes)) = self.core.poll_send() {
            self.transport.send(self.assoc, stream, &bytes)?;
        }
        Ok(())
    }

    /// One round of I/O; messages are sorted into answers and per-stream inboxes.
    pub fn poll(&mut self, timeout: Duration) -> Result<(), AgentError> {
        self.flush()?;
        self.transport.poll(timeout)?;
        while let Some(ev) = self.transport.next_event() {
            match ev {
                TransportEvent::Message { stream, data, .. } => self.core.on_message(stream, &data),
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
        let header = self.core.start_request(request, body, revision)?;
        let answer = self.wait_answer(header.tag)?;
        check_answer(&header, &answer)?;
        Ok(answer)
    }

    fn wait_answer(&mut self, tag: u16) -> Result<MgmtMessage, AgentError> {
        self.flush()?;
        let timeout = self.config.timeout;
        self.wait(timeout, "a management answer", |c| c.core.take_answer(tag))
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
        let header = self
            .core
            .start_assign(port, priority, time_limit_ms, revision)?;
        let answer = self.wait_answer(header.tag)?;
        let outcome = self.core.finish_assign(&header, answer)?;
        if outcome.response == Response::Good {
            // The stream is usable once the server has asserted login credit on it.
            let timeout = self.config.timeout;
            let stream = outcome.stream;
            self.wait(timeout, "login credit on the new stream", |c| {
                c.core.stream_ready(stream).then_some(())
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
            self.core.released(stream);
        }
        Ok(r)
    }

    /// Credit left on a stream.
    pub fn credit(&self, stream: u16) -> Option<u32> {
        self.core.credit(stream)
    }

    /// Sends a frame now if the stream has credit (false if not), stamped `timestamp_ms`.
    pub fn try_send_frame_at(
        &mut self,
        stream: u16,
        frame: &FcFrame,
        timestamp_ms: u32,
    ) -> Result<bool, AgentError> {
        let sent = self.core.try_send_frame_at(stream, frame, timestamp_ms)?;
        self.flush()?;
        Ok(sent)
    }

    /// Sends a chunk's octets as given on `stream`, using a credit as a frame does (false if
    /// none is left): for checking how a peer treats malformed or corrupted chunks.
    pub fn send_raw(&mut self, stream: u16, chunk: &[u8]) -> Result<bool, AgentError> {
        let sent = self.core.send_raw(stream, chunk)?;
        self.flush()?;
        Ok(sent)
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
        self.core.take_frame(stream)
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
                return Err(AgentError::Timeout(
                    CLOSE_TIMEOUT,
                    "the SHUTDOWN to complete",
                ));
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
