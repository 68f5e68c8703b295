//! Reliability over a serial link (DSP0253 over a Unix stream socket):
//! - 8 sockets × 10 000 concurrent request/response exchanges, none lost or misrouted
//!   (`MCTP_STACK_EXCHANGES` changes the count per socket for longer runs);
//! - with packets dropped, duplicated, reordered and corrupted on the link, every message
//!   delivered is one that was sent, to the socket it was sent to; the incomplete ones time
//!   out; the stack's memory stays under its caps.

use offload_driver::crc::crc32c;
use offload_driver::mctp::stack::control_endpoint::{spawn_service, ServiceHandle};
use offload_driver::mctp::stack::*;
use offload_driver::mctp::ReassemblyConfig;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const VENDOR: u8 = 0x7E;
const SOCKETS: usize = 8;

/// A request or response body: type, socket, sequence, filler of a length chosen by the
/// sequence, CRC-32C of everything before it (so the test can tell a spliced message).
fn message(sock: u8, seq: u32) -> Vec<u8> {
    let len = 8 + (seq as usize * 37 + sock as usize * 11) % 220; // 1 to 4 packets
    let mut m = vec![VENDOR, sock];
    m.extend_from_slice(&seq.to_le_bytes());
    m.extend((0..len).map(|i| (i as u32 ^ seq) as u8));
    let c = crc32c(&m);
    m.extend_from_slice(&c.to_le_bytes());
    m
}

/// (socket, sequence) of a message whose CRC holds.
fn parse(m: &[u8]) -> Option<(u8, u32)> {
    if m.len() < 10 || m[0] != VENDOR {
        return None;
    }
    let (body, crc) = m.split_at(m.len() - 4);
    (crc32c(body).to_le_bytes() == crc)
        .then(|| (m[1], u32::from_le_bytes(m[2..6].try_into().unwrap())))
}

/// How long a frame may wait to be swapped with the next. Unbounded, a response held while
/// the link was idle arrived after the requester had timed out and sent its next request on
/// the same tag, whose reassembly then took the stale packet when its 2-bit sequence number
/// happened to fit: a splice that DSP0236 cannot detect without the message integrity check
/// (this vendor message type has none), and that the test's own CRC then caught.
const REORDER_WINDOW: Duration = Duration::from_millis(10);

/// Frame-level faults on one direction of the stream: every `write_all` of the serial link
/// is one frame.
struct Faulty {
    inner: UnixStream,
    rng: StdRng,
    /// A frame held back to be swapped with the next one, and since when.
    held: Option<(Vec<u8>, Instant)>,
    /// Per-frame probabilities (percent): drop, duplicate, reorder (swap with the next frame
    /// if it follows within [`REORDER_WINDOW`]), corrupt one octet.
    pct: [u32; 4],
    counts: Arc<[AtomicU64; 4]>,
}

impl Write for Faulty {
    fn write(&mut self, frame: &[u8]) -> std::io::Result<usize> {
        let mut out = Vec::new();
        let roll = |rng: &mut StdRng, p: u32| rng.gen_range(0..100) < p;
        if roll(&mut self.rng, self.pct[0]) {
            self.counts[0].fetch_add(1, Ordering::Relaxed);
        } else {
            let mut f = frame.to_vec();
            if roll(&mut self.rng, self.pct[3]) {
                let i = self.rng.gen_range(1..f.len() - 1);
                f[i] ^= 1 << self.rng.gen_range(0..8);
                self.counts[3].fetch_add(1, Ordering::Relaxed);
            }
            if self.held.is_none() && roll(&mut self.rng, self.pct[2]) {
                self.counts[2].fetch_add(1, Ordering::Relaxed);
                self.held = Some((f, Instant::now()));
                return Ok(frame.len());
            }
            // A frame held past the window goes out first: reordering is bounded, as on a real
            // link.
            if let Some((h, _)) = self.held.take_if(|(_, t)| t.elapsed() > REORDER_WINDOW) {
                out.extend_from_slice(&h);
            }
            out.extend_from_slice(&f);
            if roll(&mut self.rng, self.pct[1]) {
                self.counts[1].fetch_add(1, Ordering::Relaxed);
                out.extend_from_slice(&f);
            }
        }
        if let Some((h, _)) = self.held.take() {
            out.extend_from_slice(&h);
        }
        self.inner.write_all(&out)?;
        Ok(frame.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

struct Pair {
    client: Endpoint,
    server: Endpoint,
    _echo: ServiceHandle,
    /// Requests the server saw whose CRC failed (spliced by the transport).
    bad_requests: Arc<AtomicU64>,
}

fn setup(config: StackConfig, faults: Option<([u32; 4], Arc<[AtomicU64; 4]>)>) -> Pair {
    let (a, b) = UnixStream::pair().unwrap();
    let link = |s: UnixStream, seed: u64| -> LinkParts {
        match &faults {
            None => serial_link(s.try_clone().unwrap(), s),
            Some((pct, counts)) => serial_link(
                s.try_clone().unwrap(),
                Faulty {
                    inner: s,
                    rng: StdRng::seed_from_u64(seed),
                    held: None,
                    pct: *pct,
                    counts: counts.clone(),
                },
            ),
        }
    };
    let mk = |parts: LinkParts, eid: u8, peer: u8| {
        let ep = Endpoint::new(config).unwrap();
        let l = ep.add_link("serial0", NET_ANY, parts).unwrap();
        ep.add_addr(l, eid).unwrap();
        ep.add_route(Route::to(NET_ANY, peer, l)).unwrap();
        ep
    };
    let client = mk(link(a, 1), 8, 9);
    let server = mk(link(b, 2), 9, 8);
    let bad_requests = Arc::new(AtomicU64::new(0));
    let s = server.socket();
    s.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, VENDOR)).unwrap();
    let bad = bad_requests.clone();
    let echo = spawn_service("echo", s, move |s, m, from| {
        if parse(&m).is_none() {
            bad.fetch_add(1, Ordering::Relaxed);
        }
        let _ = s.send_to(&m, &from.reply());
    })
    .unwrap();
    Pair {
        client,
        server,
        _echo: echo,
        bad_requests,
    }
}

#[test]
fn eight_sockets_ten_thousand_exchanges_each_none_lost_or_misrouted() {
    let n: u32 = std::env::var("MCTP_STACK_EXCHANGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let p = setup(StackConfig::default(), None);
    let threads: Vec<_> = (0..SOCKETS as u8)
        .map(|i| {
            let ep = p.client.clone();
            std::thread::spawn(move || {
                let s = ep.socket();
                let to = SockAddr::owner(NET_ANY, 9, VENDOR);
                let mut tag = None;
                for seq in 0..n {
                    let m = message(i, seq);
                    s.send_to(&m, &to).unwrap();
                    let (r, from) = s.recv_from(Some(Duration::from_secs(10))).unwrap();
                    assert_eq!(r, m, "socket {i} seq {seq}: lost or misrouted");
                    assert_eq!((from.eid, from.tag & TAG_OWNER), (9, 0));
                    // One tag per socket for the whole run: 8 sockets, 8 tags.
                    assert_eq!(*tag.get_or_insert(from.tag), from.tag);
                }
                tag.unwrap()
            })
        })
        .collect();
    let mut tags: Vec<u8> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    tags.sort_unstable();
    assert_eq!(tags, (0..8).collect::<Vec<u8>>());
    let total = u64::from(n) * SOCKETS as u64;
    assert_eq!(p.server.stats().delivered, total);
    assert_eq!(p.client.stats().delivered, total);
    for ep in [&p.client, &p.server] {
        let st = ep.stats();
        assert_eq!(
            (st.no_listener, st.queue_full, st.link_errors, st.malformed),
            (0, 0, 0, 0)
        );
        assert_eq!(ep.reassembly_stats().dropped(), 0);
    }
    assert_eq!(p.bad_requests.load(Ordering::Relaxed), 0);
}

#[test]
fn faults_never_deliver_a_wrong_message_and_memory_stays_bounded() {
    let n: u32 = std::env::var("MCTP_STACK_FAULT_EXCHANGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let config = StackConfig {
        reassembly: ReassemblyConfig {
            max_contexts: 4,
            // Shorter than the requesters' retry interval, so a message cut short never
            // waits long enough to meet the next one on the same tag.
            timeout: Duration::from_millis(20),
            strict_unit_size: false,
            ..ReassemblyConfig::default()
        },
        rcvbuf: 16 * 1024,
        ..StackConfig::default()
    };
    let counts: Arc<[AtomicU64; 4]> = Arc::new(Default::default());
    let p = setup(config, Some(([2, 2, 2, 1], counts.clone())));
    let peak = Arc::new(Mutex::new((0usize, 0usize, 0usize)));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let monitor = {
        let (eps, peak, done) = (
            [p.client.clone(), p.server.clone()],
            peak.clone(),
            done.clone(),
        );
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                for ep in &eps {
                    let (c, o, q) = ep.memory_usage();
                    let mut pk = peak.lock().unwrap();
                    *pk = (pk.0.max(c), pk.1.max(o), pk.2.max(q));
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        })
    };
    let threads: Vec<_> = (0..SOCKETS as u8)
        .map(|i| {
            let ep = p.client.clone();
            std::thread::spawn(move || {
                let s = ep.socket();
                let to = SockAddr::owner(NET_ANY, 9, VENDOR);
                let (mut ok, mut timeouts, mut stale) = (0u32, 0u32, 0u32);
                for seq in 0..n {
                    let m = message(i, seq);
                    s.send_to(&m, &to).unwrap();
                    loop {
                        match s.recv_from(Some(Duration::from_millis(60))) {
                            Ok((r, _)) => {
                                let (who, rseq) = parse(&r).unwrap_or_else(|| {
                                    panic!("socket {i}: wrong message delivered: {r:02x?}")
                                });
                                assert_eq!(
                                    who, i,
                                    "misrouted: socket {i} got socket {who}'s message"
                                );
                                assert!(rseq <= seq, "a response to a request not yet sent");
                                if rseq == seq {
                                    assert_eq!(r, m);
                                    ok += 1;
                                    break;
                                }
                                stale += 1; // a duplicate or late answer to an earlier request
                            }
                            Err(e) => {
                                assert_eq!(e.errno(), 11, "{e}");
                                timeouts += 1;
                                break;
                            }
                        }
                    }
                }
                (ok, timeouts, stale)
            })
        })
        .collect();
    let results: Vec<(u32, u32, u32)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    done.store(true, Ordering::Relaxed);
    monitor.join().unwrap();
    let ok: u32 = results.iter().map(|r| r.0).sum();
    let timeouts: u32 = results.iter().map(|r| r.1).sum();
    let faults: Vec<u64> = counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    eprintln!("faults [drop, dup, reorder, corrupt] = {faults:?}; exchanges ok {ok}, timed out {timeouts}; results {results:?}");
    assert!(
        faults.iter().all(|&f| f > 0),
        "every kind of fault was injected: {faults:?}"
    );
    assert_eq!(ok + timeouts, n * SOCKETS as u32);
    assert!(ok > n * SOCKETS as u32 / 2, "most exchanges still succeed");
    assert_eq!(
        p.bad_requests.load(Ordering::Relaxed),
        0,
        "the server never got a wrong request"
    );
    // The drops showed where they should: bad FCS, bad sequence or missing start.
    let (c, s) = (p.client.reassembly_stats(), p.server.reassembly_stats());
    let link_errors = p.client.stats().link_errors + p.server.stats().link_errors;
    assert!(
        link_errors > 0 && c.bad_sequence + s.bad_sequence > 0 && c.no_context + s.no_context > 0
    );
    // Incomplete messages timed out, and nothing is left open afterwards.
    std::thread::sleep(Duration::from_millis(30));
    let (c, s) = (p.client.reassembly_stats(), p.server.reassembly_stats());
    assert!(
        c.timed_out + s.timed_out + c.restarted + s.restarted > 0,
        "{c:?} {s:?}"
    );
    assert_eq!(p.client.memory_usage().0 + p.server.memory_usage().0, 0);
    // Memory: at most max_contexts reassemblies, each under 64 KiB; queues under rcvbuf.
    let pk = *peak.lock().unwrap();
    eprintln!("peak (contexts, reassembly octets, queued octets) = {pk:?}");
    assert!(
        pk.0 <= 4 && pk.1 <= 4 * 64 * 1024 && pk.2 <= SOCKETS * 16 * 1024,
        "{pk:?}"
    );
}
