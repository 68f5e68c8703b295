//! FC over SCTP end to end: a server agent and clients over SCTP/UDP (RFC 6951) on loopback,
//! through the user-space SCTP stack. Management answers (every response code), an FCP read
//! exchange, 10 000 frames on 4 streams checked octet for octet, stale frames dropped by the
//! time limit, frames sent without a CRC (N bit), and an association restart.

use offload_driver::fc::agent::{AgentStats, Client, ClientConfig, ServerAgent};
use offload_driver::fc::fcp::{disk_blocks, SimPort, STATUS_GOOD};
use offload_driver::fc::header::{fc_type, r_ctl};
use offload_driver::fc::mgmt::{Response, Revision, REVISION_0_0};
use offload_driver::fc::stream::{now_ms, PortAccess, PortConfig, ServerConfig};
use offload_driver::fc::transport::SctpUdpConfig;
use offload_driver::fc::{Eof, FCtl, FcFrame, FcHeader, Sof, MAX_DATA_FIELD};
use offload_driver::SoftwareOffload;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const FCP_PORT: u16 = 1;
const LOOP_PORT: u16 = 2;
const REFUSED_PORT: u16 = 3;
const DOWN_PORT: u16 = 4;
const R10: Revision = Revision { major: 1, minor: 0 };

struct Server {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    /// Asks the agent thread for its counters and live session count.
    query: mpsc::Sender<mpsc::Sender<(AgentStats, usize)>>,
    thread: Option<JoinHandle<AgentStats>>,
}

impl Server {
    fn start(max_streams: u16, login_credit: u16) -> Server {
        let (tx, rx) = mpsc::channel();
        let (qtx, qrx) = mpsc::channel::<mpsc::Sender<(AgentStats, usize)>>();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        let thread = std::thread::spawn(move || {
            let open = |port| PortConfig {
                port,
                access: PortAccess::Open,
                online: true,
            };
            let config = ServerConfig {
                ports: vec![
                    open(FCP_PORT),
                    open(LOOP_PORT),
                    PortConfig {
                        port: REFUSED_PORT,
                        access: PortAccess::Refused,
                        online: true,
                    },
                    PortConfig {
                        port: DOWN_PORT,
                        access: PortAccess::Open,
                        online: false,
                    },
                ],
                max_streams,
                login_credit,
                ..ServerConfig::default()
            };
            let ports = BTreeMap::from([
                (FCP_PORT, SimPort::fcp_target(4096)),
                (LOOP_PORT, SimPort::Loopback),
            ]);
            let mut agent = ServerAgent::bind(
                "127.0.0.1:0".parse().unwrap(),
                config,
                ports,
                SctpUdpConfig::default(),
                Box::new(SoftwareOffload),
            )
            .unwrap();
            tx.send(agent.local_addr().unwrap()).unwrap();
            while !stop2.load(Ordering::Relaxed) {
                agent.run_once(Duration::from_millis(5)).unwrap();
                while let Ok(reply) = qrx.try_recv() {
                    reply.send((agent.stats(), agent.sessions())).unwrap();
                }
            }
            agent.stats()
        });
        Server {
            addr: rx.recv().unwrap(),
            stop,
            query: qtx,
            thread: Some(thread),
        }
    }

    fn stats(&self) -> (AgentStats, usize) {
        let (tx, rx) = mpsc::channel();
        self.query.send(tx).unwrap();
        rx.recv_timeout(Duration::from_secs(5)).unwrap()
    }

    fn stop(mut self) -> AgentStats {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.take().unwrap().join().unwrap()
    }
}

fn client(server: &Server, config: ClientConfig) -> Client {
    Client::connect(
        "127.0.0.1:0".parse().unwrap(),
        server.addr,
        config,
        Box::new(SoftwareOffload),
    )
    .unwrap()
}

fn data_frame(rng: &mut impl Rng, stream: u16, seq: u16) -> FcFrame {
    let len = rng.gen_range(0..=MAX_DATA_FIELD);
    let header = FcHeader {
        r_ctl: r_ctl::SOLICITED_DATA,
        d_id: 0x010200,
        s_id: 0x010100 | stream as u32,
        cs_ctl: rng.gen(),
        fc_type: fc_type::SCSI_FCP,
        f_ctl: FCtl::RELATIVE_OFFSET
            | if rng.gen() {
                FCtl::END_SEQUENCE
            } else {
                FCtl::empty()
            },
        seq_id: rng.gen(),
        seq_cnt: seq,
        ox_id: stream,
        rx_id: rng.gen(),
        parameter: rng.gen(),
        ..Default::default()
    };
    let sof = if seq == 0 { Sof::I3 } else { Sof::N3 };
    let eof = if rng.gen_ratio(1, 50) { Eof::T } else { Eof::N };
    FcFrame::new(sof, header, (0..len).map(|_| rng.gen()).collect(), eof)
}

#[test]
fn management_answers_every_response_code() {
    let server = Server::start(2, 16);
    let mut c = client(&server, ClientConfig::default());
    assert_eq!(c.report_revisions().unwrap(), vec![R10, REVISION_0_0]);

    let conflict = c
        .assign_with_revision(LOOP_PORT, 1, 0, Revision { major: 7, minor: 3 })
        .unwrap();
    assert_eq!(
        (conflict.response, conflict.stream),
        (Response::RevisionConflict, 0)
    );
    let refused = c.assign(REFUSED_PORT, 1, 0).unwrap();
    assert_eq!((refused.response, refused.stream), (Response::Refused, 0));
    assert_eq!(
        c.assign(99, 1, 0).unwrap().response,
        Response::InvalidRequest
    );
    assert_eq!(c.assign(DOWN_PORT, 1, 0).unwrap().response, Response::Busy);

    let a = c.assign(LOOP_PORT, 200, 120_000).unwrap();
    assert_eq!(a.response, Response::Good);
    assert_eq!(a.stream, 1);
    assert_eq!(
        (a.priority, a.time_limit_ms),
        (7, 60_000),
        "adjusted down to the server's ceilings"
    );
    let b = c
        .assign_with_revision(FCP_PORT, 0, 0, REVISION_0_0)
        .unwrap();
    assert_eq!(
        (b.response, b.stream),
        (Response::Good, 2),
        "0.0 is always supported"
    );
    let full = c.assign(LOOP_PORT, 0, 0).unwrap();
    assert_eq!(
        (full.response, full.stream),
        (Response::UnavailableResource, 0)
    );

    assert_eq!(c.release(1).unwrap(), Response::Good);
    assert_eq!(c.release(1).unwrap(), Response::InvalidRequest);
    assert_eq!(
        c.assign(LOOP_PORT, 0, 0).unwrap().stream,
        1,
        "released stream reassigned"
    );
    c.close().unwrap();
    let stats = server.stop();
    assert_eq!(stats.mgmt_requests, 11);
}

#[test]
fn fcp_read_exchange_end_to_end() {
    let server = Server::start(4, 16);
    let mut c = client(&server, ClientConfig::default());
    let a = c.assign(FCP_PORT, 3, 0).unwrap();
    assert_eq!(a.response, Response::Good);
    for (ox_id, lba, blocks) in [(0x10, 0u32, 1u16), (0x11, 100, 16), (0x12, 4000, 96)] {
        let (rsp, data, frames) = c
            .fcp_read(a.stream, 0x010100, 0x010200, ox_id, lba, blocks)
            .unwrap();
        assert_eq!(rsp.status, STATUS_GOOD);
        assert_eq!(data, disk_blocks(lba as u64, blocks as u64), "lba {lba}");
        let n_data = (blocks as usize * 512).div_ceil(2048);
        assert_eq!(
            frames.len(),
            1 + n_data + 1,
            "command, data frames, response"
        );
        assert!(frames.iter().all(|f| f.header.ox_id == ox_id));
        assert_eq!(frames.iter().filter(|f| f.eof == Eof::T).count(), 1);
    }
    // Beyond the disk: CHECK CONDITION.
    let (rsp, data, _) = c
        .fcp_read(a.stream, 0x010100, 0x010200, 0x13, 4095, 2)
        .unwrap();
    assert_eq!((rsp.status, data.len()), (0x02, 0));
    c.close().unwrap();
    let stats = server.stop();
    assert_eq!(stats.frames_to_port, 4);
    assert_eq!(
        stats.bad_frames + stats.stale_dropped + stats.credit_overruns,
        0
    );
}

/// 10 000 frames with random sizes (0–2112 octets) and headers on 4 streams to a loopback
/// port, 8 credits per stream: every frame comes back exactly as sent, none lost.
#[test]
fn ten_thousand_frames_on_four_streams() {
    let total: usize = std::env::var("FC_E2E_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let server = Server::start(8, 8);
    let mut c = client(
        &server,
        ClientConfig {
            login_credit: 8,
            ..ClientConfig::default()
        },
    );
    let streams: Vec<u16> = (0..4)
        .map(|_| c.assign(LOOP_PORT, 0, 0).unwrap().stream)
        .collect();
    assert_eq!(streams, vec![1, 2, 3, 4]);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut next_seq: HashMap<u16, u16> = HashMap::new();
    let mut in_flight: HashMap<(u16, u16), FcFrame> = HashMap::new();
    let (mut sent, mut received, mut octets) = (0usize, 0usize, 0usize);
    let start = Instant::now();
    while received < total {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "stalled: {sent} sent, {received} back"
        );
        for &s in &streams {
            while sent < total && c.credit(s).unwrap() > 0 {
                let seq = next_seq.entry(s).or_insert(0);
                let f = data_frame(&mut rng, s, *seq);
                assert!(c.try_send_frame(s, &f).unwrap());
                in_flight.insert((s, *seq), f);
                *seq = seq.wrapping_add(1);
                sent += 1;
            }
        }
        c.poll(Duration::from_millis(2)).unwrap();
        for &s in &streams {
            while let Some((_, back)) = c.take_frame(s) {
                let key = (s, back.header.seq_cnt);
                let sent_frame = in_flight
                    .remove(&key)
                    .unwrap_or_else(|| panic!("unexpected frame {key:?}"));
                assert_eq!(back, sent_frame, "frame {key:?} altered");
                octets += back.payload.len();
                received += 1;
            }
        }
    }
    assert!(in_flight.is_empty());
    let elapsed = start.elapsed();
    eprintln!("{total} frames, {octets} payload octets each way, in {elapsed:?}");
    c.close().unwrap();
    let stats = server.stop();
    assert_eq!(stats.frames_in as usize, total);
    assert_eq!(stats.frames_from_port as usize, total);
    assert_eq!(
        stats.bad_frames + stats.stale_dropped + stats.credit_overruns + stats.unassigned,
        0
    );
}

#[test]
fn stale_frames_are_dropped_per_time_limit() {
    let server = Server::start(4, 64);
    let mut c = client(
        &server,
        ClientConfig {
            login_credit: 64,
            ..ClientConfig::default()
        },
    );
    let limited = c.assign(LOOP_PORT, 0, 2_000).unwrap();
    let unlimited = c.assign(LOOP_PORT, 0, 0).unwrap();
    assert_eq!(limited.time_limit_ms, 2_000);
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    // On the limited stream (2 s): 10 frames 10 s old (dropped), 10 stamped now, 10 stamped
    // 100 ms ago (kept: the margin absorbs a loaded machine).
    let now = now_ms();
    for i in 0..30u16 {
        let ts = match i % 3 {
            0 => now.wrapping_sub(10_000),
            1 => now,
            _ => now.wrapping_sub(100),
        };
        assert!(c
            .try_send_frame_at(limited.stream, &data_frame(&mut rng, 1, i), ts)
            .unwrap());
    }
    // On the stream without a limit, even very old frames are delivered.
    for i in 0..10u16 {
        assert!(c
            .try_send_frame_at(
                unlimited.stream,
                &data_frame(&mut rng, 2, i),
                now.wrapping_sub(3_600_000)
            )
            .unwrap());
    }
    let mut back = HashMap::<u16, Vec<u16>>::new();
    let end = Instant::now() + Duration::from_secs(10);
    while back.values().map(Vec::len).sum::<usize>() < 30 && Instant::now() < end {
        c.poll(Duration::from_millis(5)).unwrap();
        for s in [limited.stream, unlimited.stream] {
            while let Some((_, f)) = c.take_frame(s) {
                back.entry(s).or_default().push(f.header.seq_cnt);
            }
        }
    }
    // Let the credit of the dropped frames come back too.
    let end = Instant::now() + Duration::from_secs(5);
    while c.credit(limited.stream).unwrap() < 64 && Instant::now() < end {
        c.poll(Duration::from_millis(5)).unwrap();
    }
    let mut fresh = back.remove(&limited.stream).unwrap();
    fresh.sort();
    assert_eq!(
        fresh,
        (0..30).filter(|i| i % 3 != 0).collect::<Vec<u16>>(),
        "only the stale frames dropped"
    );
    assert_eq!(back.remove(&unlimited.stream).unwrap().len(), 10);
    assert_eq!(
        c.credit(limited.stream),
        Some(64),
        "dropped frames' credit returned"
    );
    let (stats, _) = server.stats();
    assert_eq!(stats.stale_dropped, 10);
    c.close().unwrap();
    server.stop();
}

/// A client that leaves the CRC to the server (N bit): the agent constructs it before the
/// port sees the frame, and the echo carries a checked CRC.
#[test]
fn n_bit_frames_get_their_crc_from_the_agent() {
    let server = Server::start(4, 16);
    let mut c = client(
        &server,
        ClientConfig {
            crc_invalid: true,
            ..ClientConfig::default()
        },
    );
    let s = c.assign(LOOP_PORT, 0, 0).unwrap().stream;
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for i in 0..40u16 {
        let f = data_frame(&mut rng, s, i);
        c.send_frame(s, &f).unwrap();
        let (prefix, back) = c.recv_frame(s, Duration::from_secs(5)).unwrap();
        assert!(!prefix.crc_invalid, "the server's frames carry a CRC");
        assert_eq!(back, f);
    }
    let (stats, _) = server.stats();
    assert_eq!(stats.crc_regenerated, 40);
    assert_eq!(stats.bad_frames, 0);
    c.close().unwrap();
    server.stop();
}

/// A client host restarts: it comes back from the same address with a new association. The
/// agent drops the old association and its streams; the new one gets stream 1 again.
#[test]
fn association_restart() {
    let server = Server::start(1, 16);
    let mut c = client(&server, ClientConfig::default());
    let a = c.assign(FCP_PORT, 0, 0).unwrap();
    assert_eq!((a.response, a.stream), (Response::Good, 1));
    let local = c.crash().unwrap();
    let mut c2 = Client::connect(
        local,
        server.addr,
        ClientConfig::default(),
        Box::new(SoftwareOffload),
    )
    .unwrap();
    let a2 = c2.assign(FCP_PORT, 0, 0).unwrap();
    assert_eq!(
        (a2.response, a2.stream),
        (Response::Good, 1),
        "the one stream was freed by the restart"
    );
    let (rsp, data, _) = c2.fcp_read(1, 0x010100, 0x010200, 0x20, 8, 4).unwrap();
    assert_eq!(rsp.status, STATUS_GOOD);
    assert_eq!(data, disk_blocks(8, 4));
    let (stats, sessions) = server.stats();
    assert_eq!((stats.associations, stats.restarts, sessions), (2, 1, 1));
    // A second client from another address is a separate association, not a restart.
    let mut other = client(&server, ClientConfig::default());
    assert_eq!(
        other.assign(FCP_PORT, 0, 0).unwrap().stream,
        1,
        "streams are per association"
    );
    let (stats, sessions) = server.stats();
    assert_eq!((stats.restarts, sessions), (1, 2));
    other.close().unwrap();
    c2.close().unwrap();
    server.stop();
}

/// Corrupted chunks (a flipped payload bit under a valid-CRC prefix, an unknown SOF code, a
/// truncated body) are dropped by the agent and counted; their credit comes back and good
/// frames around them go through.
#[test]
fn corrupted_chunks_are_dropped_and_counted() {
    use offload_driver::fc::{Encapsulated, Prefix};
    let server = Server::start(4, 8);
    let mut c = client(
        &server,
        ClientConfig {
            login_credit: 8,
            ..ClientConfig::default()
        },
    );
    let s = c.assign(LOOP_PORT, 0, 0).unwrap().stream;
    let mut rng = rand::rngs::StdRng::seed_from_u64(21);
    let good = data_frame(&mut rng, s, 1);
    let chunk = Encapsulated::Frame {
        prefix: Prefix {
            timestamp_ms: now_ms(),
            ..Default::default()
        },
        frame: good.clone(),
    }
    .encode()
    .unwrap();
    let mut flipped = chunk.clone();
    flipped[40] ^= 0x04;
    let mut bad_sof = chunk.clone();
    bad_sof[6] = 0x11;
    let truncated = chunk[..chunk.len() - 6].to_vec();
    for bad in [&flipped, &bad_sof, &truncated] {
        assert!(c.send_raw(s, bad).unwrap());
    }
    c.send_frame(s, &good).unwrap();
    let (_, back) = c.recv_frame(s, Duration::from_secs(5)).unwrap();
    assert_eq!(back, good);
    let end = Instant::now() + Duration::from_secs(5);
    while c.credit(s).unwrap() < 8 && Instant::now() < end {
        c.poll(Duration::from_millis(5)).unwrap();
    }
    assert_eq!(c.credit(s), Some(8), "the dropped chunks' credit returned");
    assert!(
        c.take_frame(s).is_none(),
        "nothing came back for the bad chunks"
    );
    let (stats, _) = server.stats();
    assert_eq!((stats.bad_frames, stats.frames_to_port), (3, 1));
    c.close().unwrap();
    server.stop();
}
