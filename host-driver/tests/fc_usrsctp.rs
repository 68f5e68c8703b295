//! Interoperability with usrsctp 0.9.5 (Debian `libusrsctp-dev`), issue 17: our SCTP-over-UDP
//! transport (the one `offload fc send` / `serve` and the agent use) against a small C peer
//! (`host-driver/tests/usrsctp/peer.c`), each side in turn client and server, usrsctp bound to 127.0.0.1
//! and to INADDR_ANY (its INIT / INIT ACK then list IPv4 Address parameters, RFC 4960
//! §3.3.2.1). Checked: the association comes up, FC frames (prefix · frame, draft §4) on data
//! streams and stream-0 management messages come back octet for octet, the association ends
//! by SHUTDOWN / SHUTDOWN ACK / SHUTDOWN COMPLETE whichever side starts it (no ABORT), and
//! nothing is retransmitted on the lossless loopback.
//!
//! The C peer is built here with `cc` against libusrsctp; without the library the tests fail
//! (`scripts/install-deps` installs `libusrsctp-dev`).

use offload_driver::fc::header::{fc_type, r_ctl};
use offload_driver::fc::mgmt::{MgmtBody, MgmtMessage, Request, REVISION_0_0};
use offload_driver::fc::prefix::{Encapsulated, Prefix};
use offload_driver::fc::stream::request_header;
use offload_driver::fc::transport::{SctpUdp, SctpUdpConfig, TransportEvent};
use offload_driver::fc::{Eof, FCtl, FcFrame, FcHeader, Sof, MAX_DATA_FIELD};
use rand::{Rng, SeedableRng};
use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, UdpSocket};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const SCTP_PORT: u16 = 5000;
const FRAMES: usize = 120;

/// Builds `tests/usrsctp/peer.c` once per test binary.
fn peer_binary() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        assert!(
            std::path::Path::new("/usr/include/usrsctp.h").exists(),
            "usrsctp is not installed: /usr/include/usrsctp.h missing. Install Debian's \
             libusrsctp-dev (scripts/install-deps does, as root)."
        );
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/usrsctp/peer.c");
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("usrsctp-peer");
        let status = Command::new("cc")
            .args(["-O2", "-Wall", "-o"])
            .arg(&out)
            .arg(src)
            .args(["-lusrsctp", "-lpthread"])
            .status()
            .expect("running cc (a C compiler is needed to build the usrsctp peer)");
        assert!(
            status.success(),
            "cc failed to build {src} against libusrsctp"
        );
        out
    })
    .clone()
}

/// A free UDP port on loopback (bound and released; the peer binds it right after).
fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn fc_frame(rng: &mut impl Rng, stream: u16, seq: u16) -> FcFrame {
    let len = if seq % 10 == 0 {
        MAX_DATA_FIELD
    } else {
        rng.gen_range(0..=MAX_DATA_FIELD)
    } & !3;
    let header = FcHeader {
        r_ctl: r_ctl::SOLICITED_DATA,
        d_id: 0x010200,
        s_id: 0x010100 | stream as u32,
        fc_type: fc_type::SCSI_FCP,
        f_ctl: FCtl::RELATIVE_OFFSET,
        seq_cnt: seq,
        ox_id: stream,
        parameter: rng.gen(),
        ..Default::default()
    };
    let sof = if seq == 0 { Sof::I3 } else { Sof::N3 };
    FcFrame::new(sof, header, (0..len).map(|_| rng.gen()).collect(), Eof::N)
}

/// The messages a test exchanges: (stream, octets). Stream 0 carries management requests,
/// streams 1..=4 encapsulated FC frames.
fn messages(seed: u64) -> Vec<(u16, Vec<u8>)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut out = Vec::new();
    for i in 0..FRAMES {
        if i % 20 == 0 {
            let m = MgmtMessage {
                header: request_header(i as u16, REVISION_0_0, Request::ReportRevisions),
                body: MgmtBody::Revisions(vec![]),
            };
            out.push((0, m.encode().unwrap()));
        }
        let stream = 1 + (i % 4) as u16;
        let frame = fc_frame(&mut rng, stream, (i / 4) as u16);
        let prefix = Prefix {
            timestamp_ms: i as u32,
            tcredit: 1,
            ..Prefix::default()
        };
        let e = Encapsulated::Frame { prefix, frame };
        out.push((stream, e.encode().unwrap()));
    }
    out
}

/// Checks a message is what it claims (decodes as FC or management) and equals `want`.
fn check_message(stream: u16, got: &[u8], want: &(u16, Vec<u8>)) {
    assert_eq!(stream, want.0, "message on the wrong stream");
    assert_eq!(got, &want.1[..], "message on stream {stream} altered");
    if stream == 0 {
        MgmtMessage::decode_request(got).expect("stream-0 message decodes");
    } else {
        match Encapsulated::decode(got).expect("FC frame decodes (CRC checked)") {
            Encapsulated::Frame { .. } => {}
            other => panic!("expected a frame, got {other:?}"),
        }
    }
}

fn write_messages(msgs: &[(u16, Vec<u8>)], name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mut b = Vec::new();
    for (s, m) in msgs {
        b.extend_from_slice(&s.to_be_bytes());
        b.extend_from_slice(&(m.len() as u32).to_be_bytes());
        b.extend_from_slice(m);
    }
    std::fs::write(&path, b).unwrap();
    path
}

/// The usrsctp peer process, killed if a failed assertion unwinds before [`finish`] waits for
/// it (a leaked peer would keep running, and keep the test's output pipe open).
struct PeerProcess(Option<Child>);

impl Drop for PeerProcess {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Waits for the peer process and returns its stdout lines.
fn finish(mut peer: PeerProcess, lines: &mut Vec<String>) -> bool {
    let mut child = peer.0.take().expect("peer process");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let out = child.stdout.take().unwrap();
            lines.extend(BufReader::new(out).lines().map_while(Result::ok));
            return st.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let out = child.stdout.take().unwrap();
            lines.extend(BufReader::new(out).lines().map_while(Result::ok));
            panic!("usrsctp peer did not finish; its output: {lines:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Our client against the usrsctp echo server: we send, check every echo, then close (our
/// SHUTDOWN, §3.3.8).
fn our_client_against_usrsctp(bind: &str) {
    let peer = peer_binary();
    let udp = free_udp_port();
    let mut child = PeerProcess(Some(
        Command::new(&peer)
            .args(["server", bind, &udp.to_string(), &SCTP_PORT.to_string()])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    ));
    let c = child.0.as_mut().unwrap();
    let mut out = BufReader::new(c.stdout.take().unwrap());
    let mut first = String::new();
    out.read_line(&mut first).unwrap();
    assert_eq!(first.trim(), "READY");
    c.stdout = Some(out.into_inner());

    let msgs = messages(17);
    let mut t = SctpUdp::bind(
        "127.0.0.1:0".parse().unwrap(),
        false,
        SctpUdpConfig::default(),
    )
    .unwrap();
    let remote: SocketAddr = format!("127.0.0.1:{udp}").parse().unwrap();
    let assoc = t.connect(remote).unwrap();
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut connected = false;
    let mut next_send = 0;
    let mut echoed = 0;
    let mut lost = None;
    let mut closing = false;
    while lost.is_none() {
        assert!(
            Instant::now() < deadline,
            "timed out: connected {connected}, {echoed} echoes"
        );
        t.poll(Duration::from_millis(20)).unwrap();
        while let Some(ev) = t.next_event() {
            match ev {
                TransportEvent::Connected { .. } => connected = true,
                TransportEvent::Message { stream, data, .. } => {
                    check_message(stream, &data, &msgs[echoed]);
                    echoed += 1;
                }
                TransportEvent::Lost {
                    reason, aborted, ..
                } => lost = Some((reason, aborted)),
                TransportEvent::Incoming { .. } => panic!("a client accepted an association"),
            }
        }
        // One message in flight at a time (the peer echoes each).
        if connected && next_send == echoed && next_send < msgs.len() {
            let (s, m) = &msgs[next_send];
            t.send(assoc, *s, m).unwrap();
            next_send += 1;
        }
        if echoed == msgs.len() && !closing {
            t.close(assoc).unwrap();
            closing = true;
        }
    }
    let mut lines = Vec::new();
    let ok = finish(child, &mut lines);
    assert!(connected, "no association with usrsctp bound to {bind}");
    assert_eq!(echoed, msgs.len());
    assert!(closing, "association lost before our close: {lost:?}");
    assert!(
        !lines
            .iter()
            .any(|l| l == "COMM_LOST" || l == "REMOTE_ERROR"),
        "usrsctp: {lines:?}"
    );
    assert!(
        lines.iter().any(|l| l == "SHUTDOWN_COMP"),
        "no graceful shutdown: {lines:?}"
    );
    assert!(ok, "usrsctp peer failed: {lines:?}");
    assert!(
        !lost.as_ref().unwrap().1,
        "our side received an ABORT: {lost:?}"
    );
    assert_eq!(
        t.retransmissions(),
        0,
        "spurious retransmissions on loopback"
    );
}

/// The usrsctp client against our server (echoing): it sends and checks, then closes (its
/// SHUTDOWN acknowledges our last echo, §9.2, often before its delayed SACK).
fn usrsctp_client_against_us(bind: &str) {
    let peer = peer_binary();
    let msgs = messages(18);
    let file = write_messages(&msgs, &format!("usrsctp-msgs-{bind}"));
    let mut t = SctpUdp::bind(
        "127.0.0.1:0".parse().unwrap(),
        true,
        SctpUdpConfig::default(),
    )
    .unwrap();
    let ours = t.local_addr().unwrap().port();
    let local_udp = free_udp_port();
    let child = PeerProcess(Some(
        Command::new(&peer)
            .args([
                "client",
                bind,
                &local_udp.to_string(),
                &ours.to_string(),
                &SCTP_PORT.to_string(),
            ])
            .arg(&file)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap(),
    ));
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut received = 0;
    let mut incoming = false;
    let mut lost = None;
    while lost.is_none() {
        assert!(
            Instant::now() < deadline,
            "timed out: incoming {incoming}, {received} messages"
        );
        t.poll(Duration::from_millis(20)).unwrap();
        while let Some(ev) = t.next_event() {
            match ev {
                TransportEvent::Incoming { .. } => incoming = true,
                TransportEvent::Connected { .. } => {}
                TransportEvent::Message {
                    assoc,
                    stream,
                    data,
                } => {
                    check_message(stream, &data, &msgs[received]);
                    received += 1;
                    t.send(assoc, stream, &data).unwrap();
                }
                TransportEvent::Lost {
                    reason, aborted, ..
                } => lost = Some((reason, aborted)),
            }
        }
    }
    // Let the SHUTDOWN COMPLETE reach the peer.
    for _ in 0..5 {
        t.poll(Duration::from_millis(20)).unwrap();
    }
    let mut lines = Vec::new();
    let ok = finish(child, &mut lines);
    assert!(incoming, "no association from usrsctp bound to {bind}");
    assert_eq!(received, msgs.len());
    assert!(
        lines
            .iter()
            .any(|l| l == &format!("ECHO_OK {}", msgs.len())),
        "{lines:?}"
    );
    assert!(
        !lines
            .iter()
            .any(|l| l == "COMM_LOST" || l == "REMOTE_ERROR"),
        "usrsctp: {lines:?}"
    );
    assert!(
        lines.iter().any(|l| l == "SHUTDOWN_COMP"),
        "no graceful shutdown: {lines:?}"
    );
    assert!(ok, "usrsctp peer failed: {lines:?}");
    assert!(
        !lost.as_ref().unwrap().1,
        "our side received an ABORT: {lost:?}"
    );
    assert_eq!(
        t.retransmissions(),
        0,
        "spurious retransmissions on loopback"
    );
}

#[test]
fn our_client_usrsctp_server_one_address() {
    our_client_against_usrsctp("127.0.0.1");
}

#[test]
fn our_client_usrsctp_server_all_addresses() {
    our_client_against_usrsctp("any");
}

#[test]
fn usrsctp_client_our_server_one_address() {
    usrsctp_client_against_us("127.0.0.1");
}

#[test]
fn usrsctp_client_our_server_all_addresses() {
    usrsctp_client_against_us("any");
}
