//! The FC/SCTP protocol cores with no SCTP and no clock: a [`ClientCore`] and a [`ServerCore`]
//! joined in memory, messages moved by hand and time passed in. What the SCTP tests
//! (`tests/fc_sctp.rs`) can only sample — a stale frame at an exact age, SCTP's unordered
//! delivery across streams, a restart — is driven here exactly, message by message.

use offload_driver::fc::client::ClientCore;
use offload_driver::fc::fcp::{command_frame, disk_blocks, FcpCmnd, ReadExchange, SimPort};
use offload_driver::fc::fcp::{BLOCK_LEN, STATUS_GOOD};
use offload_driver::fc::header::{fc_type, r_ctl};
use offload_driver::fc::mgmt::{MgmtMessage, Response, Revision};
use offload_driver::fc::prefix::{Encapsulated, Prefix};
use offload_driver::fc::server::{ServerAction, ServerCore};
use offload_driver::fc::stream::{PortAccess, PortConfig, ServerConfig, MGMT_STREAM};
use offload_driver::fc::{Eof, FCtl, FcError, FcFrame, FcHeader, Sof};
use offload_driver::SoftwareOffload;
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;

const FCP_PORT: u16 = 1;
const LOOP_PORT: u16 = 2;
const R10: Revision = Revision { major: 1, minor: 0 };
const ASSOC: u32 = 7;
const LOGIN_CREDIT: u16 = 4;

fn peer() -> SocketAddr {
    "192.0.2.1:5000".parse().unwrap()
}

/// A client core and a server core, one association between them.
struct Pair {
    client: ClientCore,
    server: ServerCore<u32>,
    /// The server's clock, in the prefix timestamps' milliseconds.
    now_ms: u32,
    /// Server messages not yet delivered, as (stream, octets).
    to_client: VecDeque<(u16, Vec<u8>)>,
    aborted: Vec<u32>,
}

impl Pair {
    fn new(crc_invalid: bool) -> Pair {
        let open = |port| PortConfig {
            port,
            access: PortAccess::Open,
            online: true,
        };
        let config = ServerConfig {
            ports: vec![open(FCP_PORT), open(LOOP_PORT)],
            login_credit: LOGIN_CREDIT,
            ..ServerConfig::default()
        };
        let ports = BTreeMap::from([
            (FCP_PORT, SimPort::fcp_target(4096)),
            (LOOP_PORT, SimPort::Loopback),
        ]);
        let mut server = ServerCore::new(config, ports, Box::new(SoftwareOffload));
        server.on_incoming(ASSOC, peer());
        Pair {
            client: ClientCore::new(LOGIN_CREDIT, crc_invalid, Box::new(SoftwareOffload)),
            server,
            now_ms: 1_000,
            to_client: VecDeque::new(),
            aborted: Vec::new(),
        }
    }

    /// Moves the client's queued messages to the server, and the server's answers (and its
    /// batched credit returns) into `to_client`.
    fn client_to_server(&mut self) {
        while let Some((stream, data)) = self.client.poll_send() {
            self.server
                .on_message(ASSOC, stream, &data, self.now_ms)
                .unwrap();
        }
        self.server.return_credit(self.now_ms).unwrap();
        while let Some(a) = self.server.poll_action() {
            match a {
                ServerAction::Send {
                    assoc,
                    stream,
                    data,
                } => {
                    assert_eq!(assoc, ASSOC);
                    self.to_client.push_back((stream, data));
                }
                ServerAction::Abort { assoc } => self.aborted.push(assoc),
            }
        }
    }

    fn server_to_client(&mut self) {
        while let Some((stream, data)) = self.to_client.pop_front() {
            self.client.on_message(stream, &data);
        }
    }

    /// Until neither side has anything to send.
    fn settle(&mut self) {
        loop {
            self.client_to_server();
            if self.to_client.is_empty() {
                return;
            }
            self.server_to_client();
        }
    }

    /// Assign Stream to `port`, answered and settled.
    fn assign(&mut self, port: u16, time_limit_ms: u32) -> u16 {
        let req = self
            .client
            .start_assign(port, 1, time_limit_ms, R10)
            .unwrap();
        self.client_to_server();
        self.server_to_client();
        let answer = self.client.take_answer(req.tag).expect("answer");
        let outcome = self.client.finish_assign(&req, answer).unwrap();
        assert_eq!(outcome.response, Response::Good);
        self.settle();
        assert!(self.client.stream_ready(outcome.stream));
        outcome.stream
    }
}

fn frame(seq: u16, len: usize) -> FcFrame {
    let header = FcHeader {
        r_ctl: r_ctl::SOLICITED_DATA,
        d_id: 0x010200,
        s_id: 0x010100,
        fc_type: fc_type::SCSI_FCP,
        f_ctl: FCtl::RELATIVE_OFFSET,
        seq_cnt: seq,
        ox_id: 0x1234,
        parameter: seq as u32 * 0x100,
        ..Default::default()
    };
    let payload = (0..len)
        .map(|i| (i as u8).wrapping_mul(31) ^ seq as u8)
        .collect();
    FcFrame::new(Sof::N3, header, payload, Eof::N)
}

#[test]
fn credit_runs_out_and_comes_back_with_the_port_answers() {
    let mut p = Pair::new(false);
    let stream = p.assign(LOOP_PORT, 0);
    assert_eq!(p.client.credit(stream), Some(LOGIN_CREDIT as u32));

    let sent: Vec<FcFrame> = (0..LOGIN_CREDIT)
        .map(|i| frame(i, 64 + 4 * i as usize))
        .collect();
    for f in &sent {
        assert!(p.client.try_send_frame_at(stream, f, p.now_ms).unwrap());
    }
    assert!(
        !p.client
            .try_send_frame_at(stream, &frame(99, 8), p.now_ms)
            .unwrap(),
        "no credit left before the server has seen anything"
    );
    assert_eq!(p.client.credit(stream), Some(0));

    p.settle();
    // The loopback port sends each frame back; each carries returned credit.
    let back: Vec<FcFrame> = std::iter::from_fn(|| p.client.take_frame(stream))
        .map(|(_, f)| f)
        .collect();
    assert_eq!(back, sent);
    assert_eq!(p.client.credit(stream), Some(LOGIN_CREDIT as u32));
    let s = p.server.stats;
    assert_eq!(
        (s.frames_in, s.frames_to_port, s.frames_from_port),
        (4, 4, 4)
    );
    assert_eq!(s.credit_overruns, 0);
}

#[test]
fn fcp_read_exchange_through_the_cores() {
    let mut p = Pair::new(false);
    let stream = p.assign(FCP_PORT, 0);
    let (lba, blocks) = (100u32, 3u16);
    let cmd = command_frame(0x010100, 0x010200, 0x0042, &FcpCmnd::read10(lba, blocks));
    assert!(p.client.try_send_frame_at(stream, &cmd, p.now_ms).unwrap());
    p.settle();
    let mut x = ReadExchange::new(0x0042, blocks as usize * BLOCK_LEN);
    while let Some((_, f)) = p.client.take_frame(stream) {
        x.on_frame(&f).unwrap();
    }
    let rsp = x.done().expect("FCP_RSP");
    assert_eq!(rsp.status, STATUS_GOOD);
    assert_eq!(x.data(), disk_blocks(lba as u64, blocks as u64).as_slice());
}

#[test]
fn stale_frames_are_judged_by_the_clock_passed_in() {
    let mut p = Pair::new(false);
    let stream = p.assign(LOOP_PORT, 500);
    let stamped = p.now_ms;
    // 500 ms old: at the limit, delivered; 501 ms: stale.
    p.now_ms = stamped + 500;
    assert!(p
        .client
        .try_send_frame_at(stream, &frame(0, 16), stamped)
        .unwrap());
    p.settle();
    assert_eq!(p.server.stats.stale_dropped, 0);
    assert_eq!(p.server.stats.frames_to_port, 1);
    p.now_ms = stamped + 501;
    assert!(p
        .client
        .try_send_frame_at(stream, &frame(1, 16), stamped)
        .unwrap());
    p.settle();
    assert_eq!(p.server.stats.stale_dropped, 1);
    assert_eq!(p.server.stats.frames_to_port, 1);
    // The dropped frame's credit comes back all the same.
    assert_eq!(p.client.credit(stream), Some(LOGIN_CREDIT as u32));
}

#[test]
fn frames_sent_without_crc_get_one_constructed_by_the_server() {
    let mut p = Pair::new(true);
    p.server.capture();
    let stream = p.assign(LOOP_PORT, 0);
    let f = frame(3, 128);
    assert!(p.client.try_send_frame_at(stream, &f, p.now_ms).unwrap());
    p.settle();
    assert_eq!(p.server.stats.crc_regenerated, 1);
    let wire = p.server.take_capture();
    // What went to the port and what came back from it, in FC link form with a valid CRC.
    assert_eq!(wire.len(), 2);
    for w in &wire {
        assert_eq!(FcFrame::decode_delimited(w).unwrap(), f);
    }
}

#[test]
fn a_corrupted_frame_is_counted_and_its_credit_returned() {
    let mut p = Pair::new(false);
    let stream = p.assign(LOOP_PORT, 0);
    let prefix = Prefix {
        timestamp_ms: p.now_ms,
        ..Default::default()
    };
    let mut bytes = Encapsulated::Frame {
        prefix,
        frame: frame(0, 40),
    }
    .encode()
    .unwrap();
    let n = bytes.len();
    bytes[n - 20] ^= 0x01; // a payload bit: the FC CRC no longer matches
    assert!(p.client.send_raw(stream, &bytes).unwrap());
    assert_eq!(p.client.credit(stream), Some(LOGIN_CREDIT as u32 - 1));
    p.settle();
    assert_eq!(p.server.stats.bad_frames, 1);
    assert_eq!(p.server.stats.frames_to_port, 0);
    assert_eq!(p.client.credit(stream), Some(LOGIN_CREDIT as u32));
}

#[test]
fn credit_that_overtakes_the_assign_answer_is_kept() {
    // SCTP delivers unordered across streams: the server's login-credit assertion on the new
    // stream may reach the client before the Assign Stream answer on stream 0.
    let mut p = Pair::new(false);
    let req = p.client.start_assign(LOOP_PORT, 1, 0, R10).unwrap();
    p.client_to_server();
    let (mgmt, data): (Vec<_>, Vec<_>) =
        p.to_client.drain(..).partition(|(s, _)| *s == MGMT_STREAM);
    assert!(!data.is_empty(), "the server asserted login credit at once");
    for (s, d) in data.iter().chain(&mgmt) {
        p.client.on_message(*s, d);
    }
    let answer: MgmtMessage = p.client.take_answer(req.tag).unwrap();
    let outcome = p.client.finish_assign(&req, answer).unwrap();
    assert!(p.client.stream_ready(outcome.stream));
    assert_eq!(p.client.credit(outcome.stream), Some(LOGIN_CREDIT as u32));
    assert_eq!(p.client.stats.bad_messages, 0);
}

#[test]
fn a_restarted_peer_loses_its_old_association_and_streams() {
    let mut p = Pair::new(false);
    p.assign(LOOP_PORT, 0);
    assert_eq!(p.server.assignments()[0].1.len(), 1);
    p.server.on_incoming(ASSOC + 1, peer());
    assert_eq!(
        p.server.poll_action(),
        Some(ServerAction::Abort { assoc: ASSOC })
    );
    assert_eq!(p.server.stats.restarts, 1);
    assert_eq!(p.server.sessions(), 1);
    assert!(p.server.assignments()[0].1.is_empty());
    // Messages on the old association are ignored.
    p.server
        .on_message(ASSOC, MGMT_STREAM, &[0u8; 12], p.now_ms)
        .unwrap();
    assert_eq!(p.server.poll_action(), None);
}

#[test]
fn unassigned_streams_are_refused_on_both_sides() {
    let mut p = Pair::new(false);
    assert_eq!(
        p.client.try_send_frame_at(5, &frame(0, 8), p.now_ms),
        Err(FcError::NotAssigned { stream: 5 })
    );
    let bytes = Encapsulated::Frame {
        prefix: Prefix::default(),
        frame: frame(0, 8),
    }
    .encode()
    .unwrap();
    p.server.on_message(ASSOC, 5, &bytes, p.now_ms).unwrap();
    assert_eq!(p.server.stats.unassigned, 1);
    assert_eq!(p.server.stats.frames_to_port, 0);
}
