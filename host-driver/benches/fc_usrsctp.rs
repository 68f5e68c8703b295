//! Bulk FC-over-SCTP throughput, ours against usrsctp, same loopback, same run (issue 17).
//!
//! Ours: FC frames with 2112-octet payloads (prefix · header · data · CRC, 2 156 octets per
//! message) from one `SctpUdp` endpoint to another (the SCTP-over-UDP transport under the FC
//! client and agent; sctp-proto), unordered on one stream, as fast as the receiver takes them.
//! Reference: the C peer of `host-driver/tests/usrsctp/peer.c` in bulk mode, usrsctp client to usrsctp
//! server over UDP encapsulation on 127.0.0.1, the same messages. Prints MiB/s of both
//! (received payload octets over the receiver's time from first to last message) and the
//! ratio; median of 3 runs each. `cargo bench -p offload-driver --bench fc_usrsctp`.
//! Needs libusrsctp-dev (scripts/install-deps) and cc.

use offload_driver::fc::transport::{SctpUdp, SctpUdpConfig, TransportEvent};
use offload_driver::fc::{Encapsulated, Eof, FCtl, FcFrame, FcHeader, Prefix, Sof};
use std::net::UdpSocket;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const MESSAGES: usize = 10_000;
const RUNS: usize = 3;

fn message() -> Vec<u8> {
    let header = FcHeader {
        r_ctl: 0x01,
        d_id: 0x010200,
        s_id: 0x010100,
        fc_type: 0x08,
        f_ctl: FCtl::RELATIVE_OFFSET,
        ox_id: 1,
        ..Default::default()
    };
    let frame = FcFrame::new(Sof::N3, header, (0..2112).map(|i| (i * 7) as u8).collect(), Eof::N);
    Encapsulated::Frame { prefix: Prefix::default(), frame }.encode().unwrap()
}

fn peer_binary() -> PathBuf {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/usrsctp/peer.c");
    let out = std::env::temp_dir().join("offload-usrsctp-peer-bench");
    let st = Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&out)
        .arg(src)
        .args(["-lusrsctp", "-lpthread"])
        .status()
        .expect("cc");
    assert!(st.success(), "building {src} against libusrsctp failed (libusrsctp-dev installed?)");
    out
}

fn free_udp_port() -> u16 {
    UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// usrsctp to usrsctp: MiB/s at the receiver.
fn usrsctp_run(peer: &PathBuf, msg: &[u8]) -> f64 {
    let file = std::env::temp_dir().join("offload-usrsctp-bench-msg");
    let mut b = 1u16.to_be_bytes().to_vec();
    b.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    b.extend_from_slice(msg);
    std::fs::write(&file, b).unwrap();
    let (su, cu) = (free_udp_port(), free_udp_port());
    let server = Command::new(peer)
        .args(["bulk-server", "127.0.0.1", &su.to_string(), "5000"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let client = Command::new(peer)
        .args(["bulk-client", "127.0.0.1", &cu.to_string(), &su.to_string(), "5000"])
        .arg(&file)
        .arg(MESSAGES.to_string())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(client.success(), "usrsctp bulk client failed");
    let out = server.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("RECV ")).expect("RECV line");
    let f: Vec<&str> = line.split_whitespace().collect();
    let (n, octets, secs): (usize, f64, f64) =
        (f[1].parse().unwrap(), f[2].parse().unwrap(), f[3].parse().unwrap());
    assert_eq!(n, MESSAGES, "usrsctp server received {n} of {MESSAGES}");
    octets / secs / (1024.0 * 1024.0)
}

/// Ours: one SctpUdp endpoint to another, receiver on its own thread.
fn ours_run(msg: &[u8]) -> (f64, u64) {
    let mut server =
        SctpUdp::bind("127.0.0.1:0".parse().unwrap(), true, SctpUdpConfig::default()).unwrap();
    let addr = server.local_addr().unwrap();
    let want = MESSAGES;
    let rx = std::thread::spawn(move || {
        let mut n = 0;
        let mut octets = 0usize;
        let mut t0 = None;
        let end = Instant::now() + Duration::from_secs(120);
        while n < want && Instant::now() < end {
            server.poll(Duration::from_millis(5)).unwrap();
            while let Some(ev) = server.next_event() {
                if let TransportEvent::Message { data, .. } = ev {
                    t0.get_or_insert_with(Instant::now);
                    n += 1;
                    octets += data.len();
                }
            }
        }
        let secs = t0.map(|t| t.elapsed().as_secs_f64()).unwrap_or(f64::NAN);
        // Let the last SACKs and the SHUTDOWN exchange go out.
        for _ in 0..50 {
            server.poll(Duration::from_millis(5)).unwrap();
        }
        assert_eq!(n, want, "our server received {n} of {want}");
        (octets as f64 / secs / (1024.0 * 1024.0), server.retransmissions())
    });
    let mut client =
        SctpUdp::bind("127.0.0.1:0".parse().unwrap(), false, SctpUdpConfig::default()).unwrap();
    let assoc = client.connect(addr).unwrap();
    while !client.is_established(assoc) {
        client.poll(Duration::from_millis(5)).unwrap();
    }
    let mut sent = 0;
    while sent < MESSAGES {
        while sent < MESSAGES && client.buffered(assoc, 1) < 1 << 20 {
            client.send(assoc, 1, msg).unwrap();
            sent += 1;
        }
        client.poll(Duration::from_millis(1)).unwrap();
    }
    while client.buffered(assoc, 1) > 0 {
        client.poll(Duration::from_millis(1)).unwrap();
    }
    let _ = client.close(assoc);
    let (rate, rtx) = rx.join().unwrap();
    (rate, rtx + client.retransmissions())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    // `cargo test --all-targets` runs benches as tests with no `--bench`: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let msg = message();
    let peer = peer_binary();
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    let mut rtx = 0;
    for _ in 0..RUNS {
        theirs.push(usrsctp_run(&peer, &msg));
        let (r, x) = ours_run(&msg);
        ours.push(r);
        rtx += x;
    }
    let (o, t) = (median(ours.clone()), median(theirs.clone()));
    println!(
        "fc_usrsctp: {MESSAGES} x {} octets, median of {RUNS}: ours {o:.1} MiB/s {ours:.1?}, \
         usrsctp {t:.1} MiB/s {theirs:.1?}, ratio {:.2}x; our retransmissions {rtx}",
        msg.len(),
        o / t
    );
}
