//! SCTP over UDP (RFC 6951): the user-space, sans-IO `sctp-proto` stack driven over one UDP
//! socket. The kernels this runs on have no SCTP (`socket(…, IPPROTO_SCTP)` fails), and RFC
//! 6951's encapsulation is exactly an SCTP packet as the UDP payload, which is what
//! `sctp-proto` produces.
//!
//! One [`SctpUdp`] is one endpoint: a server accepts associations, a client opens them.
//! [`SctpUdp::poll`] does one round of I/O (send what the stack has, wait for datagrams up to
//! a timeout or the stack's next timer, feed them in, run timers) and queues
//! [`TransportEvent`]s: whole messages per stream (SCTP keeps message boundaries), association
//! up, association lost.
//!
//! Association restart: `sctp-proto` gives a peer that comes back with a new INIT a new
//! association (it does not implement RFC 4960 §5.2.4's in-place restart); [`TransportEvent::
//! Incoming`] names the peer address so the agent can retire the old association of that peer.

use bytes::Bytes;
use sctp_proto::{
    Association, AssociationHandle, ClientConfig, DatagramEvent, Endpoint, EndpointConfig, Event,
    Payload, PayloadProtocolIdentifier, ServerConfig, StreamEvent, Transmit, TransportConfig,
};
use std::collections::{HashMap, VecDeque};
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use sctp_proto::AssociationHandle as AssocId;

/// Largest UDP datagram read.
const MAX_DATAGRAM: usize = 65_535;
/// Datagrams read per poll round after the first, before timers and sends get a turn.
const MAX_BURST: usize = 512;

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("UDP socket: {0}")]
    Io(#[from] std::io::Error),
    #[error("SCTP connect: {0}")]
    Connect(#[from] sctp_proto::ConnectError),
    #[error("SCTP: {0}")]
    Sctp(#[from] sctp_proto::Error),
    #[error("no association {0:?}")]
    NoAssociation(AssociationHandle),
}

/// What the stack reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransportEvent {
    /// A peer opened an association to this (server) endpoint.
    Incoming {
        assoc: AssociationHandle,
        peer: SocketAddr,
    },
    /// The association is established (both sides).
    Connected { assoc: AssociationHandle },
    /// One whole message on a stream.
    Message {
        assoc: AssociationHandle,
        stream: u16,
        data: Vec<u8>,
    },
    /// The association ended (peer abort or shutdown, timeout, or local close).
    Lost {
        assoc: AssociationHandle,
        reason: String,
        /// The peer sent an ABORT chunk (the stack reports a graceful end and an ABORT with
        /// the same reason, so the transport looks at the chunks itself).
        aborted: bool,
    },
}

/// Tuning for loopback and LAN use.
#[derive(Clone, Debug)]
pub struct SctpUdpConfig {
    /// Outbound and inbound streams asked for (stream 0 + data streams).
    pub streams: u16,
    pub rto_initial_ms: u64,
    pub rto_min_ms: u64,
    pub rto_max_ms: u64,
    /// SCTP ports in the common header (inside the UDP payload).
    pub sctp_port: u16,
    /// Receive buffer of the association, octets.
    pub receive_buffer: u32,
    /// The UDP socket's kernel send and receive buffers, octets (SO_SNDBUF / SO_RCVBUF, capped
    /// by `net.core.{w,r}mem_max`). The default 208 KiB receive buffer overflows under a bulk
    /// transfer and every datagram dropped there is an SCTP retransmission.
    pub socket_buffer: usize,
}

impl Default for SctpUdpConfig {
    fn default() -> SctpUdpConfig {
        SctpUdpConfig {
            streams: 64,
            // RTO.Min is RFC 4960's 1 s (§15). It must stay above the peer's delayed-SACK
            // time (200 ms in usrsctp and Linux, up to 500 ms allowed by §6.2): with the
            // old 50 ms the last DATA of every burst was retransmitted before its SACK
            // could arrive. RTO.Initial is 1 s rather than 3 s (loopback and LAN use;
            // never below RTO.Min), RTO.Max 10 s rather than 60 s for the same reason.
            rto_initial_ms: 1_000,
            rto_min_ms: 1_000,
            rto_max_ms: 10_000,
            sctp_port: 5000,
            receive_buffer: 4 * 1024 * 1024,
            socket_buffer: 4 * 1024 * 1024,
        }
    }
}

impl SctpUdpConfig {
    fn transport(&self) -> Arc<TransportConfig> {
        Arc::new(
            TransportConfig::default()
                .with_max_num_outbound_streams(self.streams)
                .with_max_num_inbound_streams(self.streams)
                .with_rto_initial_ms(self.rto_initial_ms)
                .with_rto_min_ms(self.rto_min_ms)
                .with_rto_max_ms(self.rto_max_ms)
                .with_local_port(self.sctp_port)
                .with_remote_port(self.sctp_port)
                .with_max_receive_buffer_size(self.receive_buffer),
        )
    }
}

/// One SCTP endpoint on one UDP socket.
pub struct SctpUdp {
    socket: UdpSocket,
    endpoint: Endpoint,
    config: SctpUdpConfig,
    assocs: HashMap<AssociationHandle, Association>,
    /// Streams opened for sending, per association.
    open: HashMap<AssociationHandle, Vec<u16>>,
    events: VecDeque<TransportEvent>,
    buf: Vec<u8>,
    /// Datagrams sent and received, for reports.
    pub datagrams_sent: u64,
    pub datagrams_received: u64,
    /// Retransmission events (T3-rtx timeouts + fast retransmits) of associations that ended.
    ended_retransmissions: u64,
    /// Associations an ABORT chunk arrived for.
    aborted: std::collections::HashSet<AssociationHandle>,
}

impl SctpUdp {
    /// Binds the UDP socket. A server accepts associations; a client only opens them (an INIT
    /// arriving at a client is ignored).
    pub fn bind(
        addr: SocketAddr,
        accept: bool,
        config: SctpUdpConfig,
    ) -> Result<SctpUdp, TransportError> {
        let socket = UdpSocket::bind(addr)?;
        set_socket_buffers(&socket, config.socket_buffer)?;
        let mut server = ServerConfig::new();
        server.transport = config.transport();
        let mut endpoint = Endpoint::new(Arc::new(EndpointConfig::new()), Some(Arc::new(server)));
        if !accept {
            endpoint.reject_new_associations();
        }
        Ok(SctpUdp {
            socket,
            endpoint,
            config,
            assocs: HashMap::new(),
            open: HashMap::new(),
            events: VecDeque::new(),
            buf: vec![0; MAX_DATAGRAM],
            datagrams_sent: 0,
            datagrams_received: 0,
            ended_retransmissions: 0,
            aborted: Default::default(),
        })
    }

    pub fn local_addr(&self) -> Result<SocketAddr, TransportError> {
        Ok(self.socket.local_addr()?)
    }

    /// Starts an association to `remote` (established when [`TransportEvent::Connected`]
    /// comes).
    pub fn connect(&mut self, remote: SocketAddr) -> Result<AssociationHandle, TransportError> {
        let mut cfg = ClientConfig::new();
        cfg.transport = self.config.transport();
        let (h, a) = self.endpoint.connect(cfg, remote)?;
        self.assocs.insert(h, a);
        self.flush()?;
        Ok(h)
    }

    pub fn is_established(&self, assoc: AssociationHandle) -> bool {
        self.assocs
            .get(&assoc)
            .is_some_and(|a| !a.is_handshaking() && !a.is_closed())
    }

    pub fn peer(&self, assoc: AssociationHandle) -> Option<SocketAddr> {
        self.assocs.get(&assoc).map(|a| a.remote_addr())
    }

    /// Queues one message on `stream`, unordered (the draft: "All Payload Data types will be
    /// sent Unordered"). The stream is opened on first use.
    pub fn send(
        &mut self,
        assoc: AssociationHandle,
        stream: u16,
        data: &[u8],
    ) -> Result<(), TransportError> {
        let a = self
            .assocs
            .get_mut(&assoc)
            .ok_or(TransportError::NoAssociation(assoc))?;
        let open = self.open.entry(assoc).or_default();
        if !open.contains(&stream) {
            // PPI: the draft leaves it to IANA, which never assigned one; the crate only emits
            // its WebRTC values, so the binary one is used and the receiver ignores it.
            let mut s = match a.open_stream(stream, PayloadProtocolIdentifier::Binary) {
                Ok(s) => s,
                Err(sctp_proto::Error::ErrStreamAlreadyExist) => a.stream(stream)?,
                Err(e) => return Err(e.into()),
            };
            s.set_reliability_params(true, sctp_proto::ReliabilityType::Reliable, 0)?;
            open.push(stream);
        }
        let mut s = a.stream(stream)?;
        s.write_with_ppi(data, PayloadProtocolIdentifier::Binary)?;
        Ok(())
    }

    /// Octets queued and not yet acknowledged on `stream`.
    pub fn buffered(&mut self, assoc: AssociationHandle, stream: u16) -> usize {
        self.assocs
            .get_mut(&assoc)
            .and_then(|a| a.stream(stream).ok().and_then(|s| s.buffered_amount().ok()))
            .unwrap_or(0)
    }

    /// Ends an association gracefully (SHUTDOWN).
    pub fn close(&mut self, assoc: AssociationHandle) -> Result<(), TransportError> {
        if let Some(a) = self.assocs.get_mut(&assoc) {
            a.shutdown()?;
        }
        self.flush()
    }

    /// Forgets an association without telling the peer, as a crashed host would.
    pub fn forget(&mut self, assoc: AssociationHandle) {
        if let Some(a) = self.assocs.remove(&assoc) {
            self.ended_retransmissions += retransmissions_of(&a);
        }
        self.open.remove(&assoc);
    }

    /// Drops an association the agent no longer wants, telling the peer (ABORT).
    pub fn abort(&mut self, assoc: AssociationHandle) -> Result<(), TransportError> {
        if let Some(a) = self.assocs.get_mut(&assoc) {
            let _ = a.close();
        }
        self.flush()?;
        self.forget(assoc);
        Ok(())
    }

    /// Retransmission events so far (T3-rtx timeouts and fast retransmits, RFC 4960 §6.3.3,
    /// §7.2.4), of live and ended associations. On a lossless loopback any is spurious.
    pub fn retransmissions(&self) -> u64 {
        self.ended_retransmissions
            + self
                .assocs
                .values()
                .map(|a| retransmissions_of(a))
                .sum::<u64>()
    }

    pub fn next_event(&mut self) -> Option<TransportEvent> {
        self.events.pop_front()
    }

    /// One round of I/O: sends what is queued, waits up to `timeout` (or the next SCTP timer)
    /// for datagrams, processes them and the timers, and sends again.
    pub fn poll(&mut self, timeout: Duration) -> Result<(), TransportError> {
        self.flush()?;
        let now = Instant::now();
        let mut deadline = now + timeout;
        for a in self.assocs.values() {
            if let Some(t) = a.poll_timeout() {
                deadline = deadline.min(t);
            }
        }
        let wait = deadline
            .saturating_duration_since(now)
            .max(Duration::from_micros(100));
        self.socket.set_read_timeout(Some(wait))?;
        let mut got = self.recv_one(true)?;
        if got {
            self.socket.set_nonblocking(true)?;
            let mut n = 0;
            while got && n < MAX_BURST {
                got = self.recv_one(false)?;
                n += 1;
            }
            self.socket.set_nonblocking(false)?;
        }
        let now = Instant::now();
        for a in self.assocs.values_mut() {
            if a.poll_timeout().is_some_and(|t| t <= now) {
                a.handle_timeout(now);
            }
        }
        self.drain_events()?;
        self.flush()
    }

    /// Reads one datagram and feeds it to the stack; false when there was none.
    fn recv_one(&mut self, blocking: bool) -> Result<bool, TransportError> {
        let (n, from) = match self.socket.recv_from(&mut self.buf) {
            Ok(x) => x,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Ok(false)
            }
            // An ICMP port unreachable from an earlier send surfaces here on Linux: the peer is
            // gone, the association's timers will notice.
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => return Ok(!blocking),
            Err(e) => return Err(e.into()),
        };
        self.datagrams_received += 1;
        let data = Bytes::copy_from_slice(&self.buf[..n]);
        let now = Instant::now();
        match self.endpoint.handle(now, from, None, None, data) {
            Some((h, DatagramEvent::NewAssociation(a))) => {
                self.assocs.insert(h, a);
                self.events.push_back(TransportEvent::Incoming {
                    assoc: h,
                    peer: from,
                });
            }
            Some((h, DatagramEvent::AssociationEvent(ev))) => {
                if carries_abort(&self.buf[..n]) {
                    self.aborted.insert(h);
                }
                if let Some(a) = self.assocs.get_mut(&h) {
                    a.handle_event(ev);
                }
            }
            None => {}
        }
        Ok(true)
    }

    /// Moves the stack's events into [`TransportEvent`]s, reading whole messages.
    fn drain_events(&mut self) -> Result<(), TransportError> {
        let handles: Vec<AssociationHandle> = self.assocs.keys().copied().collect();
        let mut gone = Vec::new();
        for h in handles {
            let a = self.assocs.get_mut(&h).expect("listed");
            let mut readable = Vec::new();
            while let Some(ev) = a.poll() {
                match ev {
                    Event::Connected => self
                        .events
                        .push_back(TransportEvent::Connected { assoc: h }),
                    Event::Stream(StreamEvent::Readable { id })
                    | Event::Stream(StreamEvent::Opened { id })
                        if !readable.contains(&id) =>
                    {
                        readable.push(id);
                    }
                    Event::AssociationLost { reason } | Event::HandshakeFailed { reason } => {
                        gone.push((h, reason.to_string()));
                    }
                    _ => {}
                }
            }
            while a.accept_stream().is_some() {}
            for id in readable {
                if let Ok(mut s) = a.stream(id) {
                    while let Ok(Some(chunks)) = s.read_sctp() {
                        let mut data = vec![0u8; chunks.len()];
                        let n = chunks.read(&mut data)?;
                        data.truncate(n);
                        self.events.push_back(TransportEvent::Message {
                            assoc: h,
                            stream: id,
                            data,
                        });
                    }
                }
            }
            let mut drained = false;
            while let Some(ev) = a.poll_endpoint_event() {
                drained |= ev.is_drained();
                if let Some(back) = self.endpoint.handle_event(h, ev) {
                    a.handle_event(back);
                }
            }
            if drained && !gone.iter().any(|(g, _)| *g == h) {
                gone.push((h, "association closed".into()));
            }
        }
        for (h, reason) in gone {
            // Send what the association still has (an ABORT or SHUTDOWN-COMPLETE) first.
            if let Some(mut a) = self.assocs.remove(&h) {
                self.ended_retransmissions += retransmissions_of(&a);
                let now = Instant::now();
                while let Some(t) = a.poll_transmit(now) {
                    self.send_transmit(t)?;
                }
            }
            self.open.remove(&h);
            let aborted = self.aborted.remove(&h);
            self.events.push_back(TransportEvent::Lost {
                assoc: h,
                reason,
                aborted,
            });
        }
        Ok(())
    }

    /// Sends everything the stack has queued.
    fn flush(&mut self) -> Result<(), TransportError> {
        let now = Instant::now();
        let mut out = Vec::new();
        while let Some(t) = self.endpoint.poll_transmit() {
            out.push(t);
        }
        for a in self.assocs.values_mut() {
            while let Some(t) = a.poll_transmit(now) {
                out.push(t);
            }
        }
        for t in out {
            self.send_transmit(t)?;
        }
        Ok(())
    }

    fn send_transmit(&mut self, t: Transmit) -> Result<(), TransportError> {
        if let Payload::RawEncode(datagrams) = t.payload {
            for d in datagrams {
                match self.socket.send_to(&d, t.remote) {
                    Ok(_) => self.datagrams_sent += 1,
                    // A full socket buffer or a vanished peer: SCTP retransmits.
                    Err(e)
                        if matches!(
                            e.kind(),
                            ErrorKind::WouldBlock | ErrorKind::ConnectionRefused
                        ) => {}
                    Err(e) => return Err(e.into()),
                }
            }
        }
        Ok(())
    }
}

/// Asks for `octets` of kernel send and receive buffer (the kernel caps it at its maximum).
fn set_socket_buffers(socket: &UdpSocket, octets: usize) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let v = libc::c_int::try_from(octets).unwrap_or(libc::c_int::MAX);
    for opt in [libc::SO_RCVBUF, libc::SO_SNDBUF] {
        // SAFETY: a valid socket descriptor and a c_int option value of the stated size.
        let r = unsafe {
            libc::setsockopt(
                socket.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                &v as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            )
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

fn retransmissions_of(a: &Association) -> u64 {
    let mut st = a.stats();
    st.get_num_t3timeouts() + st.get_num_fast_retrans()
}

/// SCTP chunk type ABORT (RFC 4960 §3.3.7).
const CHUNK_ABORT: u8 = 6;

/// Whether an SCTP packet (common header, then chunks, §3) holds an ABORT chunk. A malformed
/// chunk list ends the scan (the stack drops such packets anyway).
fn carries_abort(packet: &[u8]) -> bool {
    let mut at = 12;
    while at + 4 <= packet.len() {
        let len = u16::from_be_bytes([packet[at + 2], packet[at + 3]]) as usize;
        if packet[at] == CHUNK_ABORT {
            return true;
        }
        if len < 4 {
            return false;
        }
        at += (len + 3) & !3;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abort_chunk_found_among_chunks() {
        let header = [0u8; 12];
        let sack = [3u8, 0, 0, 16, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0];
        let abort = [6u8, 0, 0, 4];
        let odd = [0u8, 3, 0, 5, 9, 0, 0, 0]; // DATA-typed, length 5, padded to 8
        let cat = |parts: &[&[u8]]| parts.concat();
        assert!(carries_abort(&cat(&[&header, &abort])));
        assert!(carries_abort(&cat(&[&header, &sack, &odd, &abort])));
        assert!(!carries_abort(&cat(&[&header, &sack, &odd])));
        assert!(!carries_abort(&header));
        // A zero length ends the scan instead of looping.
        assert!(!carries_abort(&cat(&[&header, &[0u8, 0, 0, 0], &abort])));
    }
}
