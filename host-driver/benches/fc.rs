//! FC/SCTP chunk encode and decode (prefix + 24-octet header + payload + FC CRC), frames per
//! second for 0, 512, 2048 and 2112-octet payloads, next to the bare CRC-32 of the same
//! octets (the same CRC function the codec calls) as the in-run reference: the ratio says
//! what framing costs beyond the CRC every FC frame needs anyway.
//! `cargo bench -p offload-driver --bench fc`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use offload_driver::crc::CrcKind;
use offload_driver::fc::{Encapsulated, Eof, FCtl, FcFrame, FcHeader, Prefix, Sof};
use std::time::Duration;

fn fc(c: &mut Criterion) {
    let mut g = c.benchmark_group("fc");
    g.measurement_time(Duration::from_millis(1500))
        .warm_up_time(Duration::from_millis(300));
    for size in [0usize, 512, 2048, 2112] {
        let header = FcHeader {
            r_ctl: 0x01,
            d_id: 0x010200,
            s_id: 0x010100,
            fc_type: 0x08,
            f_ctl: FCtl::EXCHANGE_CONTEXT | FCtl::RELATIVE_OFFSET,
            ox_id: 1,
            rx_id: 0x100,
            ..Default::default()
        };
        let frame = FcFrame::new(
            Sof::N3,
            header,
            (0..size).map(|i| (i * 7) as u8).collect(),
            Eof::N,
        );
        let chunk = Encapsulated::Frame {
            prefix: Prefix::default(),
            frame,
        };
        let bytes = chunk.encode().unwrap();
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(BenchmarkId::new("encode", size), &chunk, |b, m| {
            b.iter(|| black_box(m.encode().unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("decode", size), &bytes, |b, d| {
            b.iter(|| black_box(Encapsulated::decode(black_box(d)).unwrap()))
        });
        // Reference: the same CRC-32 function alone over what the CRC covers (header + data
        // field).
        let covered = bytes[8..bytes.len() - 4].to_vec();
        g.bench_with_input(BenchmarkId::new("crc32_only", size), &covered, |b, d| {
            b.iter(|| black_box(CrcKind::Crc32.checksum(black_box(d))))
        });
    }
    g.finish();
}

/// End to end over loopback: frames with 2112-octet payloads from a client through SCTP/UDP
/// (sctp-proto) to a server agent and back from its loopback port, against the reference of
/// the same number of bare UDP datagrams of the same size sent and received on loopback in the
/// same run (so the ratio is what SCTP, FC framing, CRCs and credit cost over the socket).
fn fc_sctp_udp(c: &mut Criterion) {
    use offload_driver::fc::agent::{Client, ClientConfig, ServerAgent};
    use offload_driver::fc::fcp::SimPort;
    use offload_driver::fc::stream::{PortAccess, PortConfig, ServerConfig};
    use offload_driver::fc::transport::SctpUdpConfig;
    use offload_driver::SoftwareOffload;
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    const BATCH: usize = 256;
    const LEN: usize = 2112;
    let mut g = c.benchmark_group("fc_e2e");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_millis(500));
    g.throughput(Throughput::Bytes((BATCH * LEN) as u64));

    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let stop2 = stop.clone();
    let server = std::thread::spawn(move || {
        let config = ServerConfig {
            ports: vec![PortConfig {
                port: 2,
                access: PortAccess::Open,
                online: true,
            }],
            login_credit: 32,
            ..ServerConfig::default()
        };
        let mut agent = ServerAgent::bind(
            "127.0.0.1:0".parse().unwrap(),
            config,
            BTreeMap::from([(2, SimPort::Loopback)]),
            SctpUdpConfig::default(),
            Box::new(SoftwareOffload),
        )
        .unwrap();
        tx.send(agent.local_addr().unwrap()).unwrap();
        agent.run(&stop2).unwrap();
    });
    let addr = rx.recv().unwrap();
    let mut client = Client::connect(
        "127.0.0.1:0".parse().unwrap(),
        addr,
        ClientConfig {
            login_credit: 32,
            ..ClientConfig::default()
        },
        Box::new(SoftwareOffload),
    )
    .unwrap();
    let streams: Vec<u16> = (0..4)
        .map(|_| client.assign(2, 0, 0).unwrap().stream)
        .collect();
    let frame = FcFrame::new(Sof::N3, FcHeader::default(), vec![0x5A; LEN], Eof::N);
    g.bench_function("frames_round_trip_2112", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let (mut sent, mut back) = (0, 0);
                while back < BATCH {
                    for &s in &streams {
                        while sent < BATCH && client.try_send_frame(s, &frame).unwrap() {
                            sent += 1;
                        }
                    }
                    client.poll(Duration::from_millis(1)).unwrap();
                    for &s in &streams {
                        while client.take_frame(s).is_some() {
                            back += 1;
                        }
                    }
                }
            }
            start.elapsed()
        })
    });
    // Reference: bare UDP, one datagram per chunk (2148 octets) both ways, 32 in flight.
    let a = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let b2 = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    a.connect(b2.local_addr().unwrap()).unwrap();
    b2.connect(a.local_addr().unwrap()).unwrap();
    let dgram = vec![0x5Au8; LEN + 36]; // prefix + header + payload + CRC
    let mut buf = vec![0u8; 65536];
    g.bench_function("udp_reference_2148", |bch| {
        bch.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                for _ in 0..BATCH / 32 {
                    for _ in 0..32 {
                        a.send(&dgram).unwrap();
                    }
                    for _ in 0..32 {
                        b2.recv(&mut buf).unwrap();
                        b2.send(&dgram).unwrap();
                    }
                    for _ in 0..32 {
                        a.recv(&mut buf).unwrap();
                    }
                }
            }
            start.elapsed()
        })
    });
    g.finish();
    stop.store(true, Ordering::Relaxed);
    server.join().unwrap();
}

criterion_group!(benches, fc, fc_sctp_udp);
criterion_main!(benches);
