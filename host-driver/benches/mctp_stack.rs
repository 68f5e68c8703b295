//! The endpoint stack's throughput, messages/s and MB/s, for 64 B, 1 KiB and 4 KiB messages
//! sent from one socket to a bound socket of another endpoint, at the baseline MTU (68-octet
//! packets):
//! - `loopback`: the two endpoints joined by an in-process link pair (the stack's own cost:
//!   sockets, tags, routing, packetizing, reassembly, the link threads);
//! - `serial-unix`: the serial binding over a Unix stream socket pair (framing, FCS, a kernel
//!   round trip per frame);
//! - `packet-layer`: the in-run reference, packetize + reassemble of the same message with no
//!   stack around it.
//!
//! `cargo bench -p offload-driver --bench mctp_stack`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use offload_driver::mctp::stack::*;
use offload_driver::mctp::{packetize, Outcome, Reassembler, ReassemblyConfig, TxConfig};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

const VENDOR: u8 = 0x7E;
/// Messages in flight: under the receiver's buffer for every size.
const WINDOW: u64 = 16;

fn pair_of(kind: &str) -> (Endpoint, Endpoint) {
    let (a, b) = match kind {
        "loopback" => pair(),
        _ => {
            let (x, y) = UnixStream::pair().unwrap();
            (
                serial_link(x.try_clone().unwrap(), x),
                serial_link(y.try_clone().unwrap(), y),
            )
        }
    };
    let mk = |parts, eid, peer| {
        let ep = Endpoint::new(StackConfig::default()).unwrap();
        let l = ep.add_link("l0", NET_ANY, parts).unwrap();
        ep.add_addr(l, eid).unwrap();
        ep.add_route(Route::to(NET_ANY, peer, l)).unwrap();
        ep
    };
    (mk(a, 8, 9), mk(b, 9, 8))
}

fn stack(c: &mut Criterion) {
    let mut g = c.benchmark_group("mctp_stack");
    g.measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(20);
    for size in [64usize, 1024, 4096] {
        let msg: Vec<u8> = std::iter::once(VENDOR)
            .chain((1..size).map(|i| (i * 7) as u8))
            .collect();
        g.throughput(Throughput::Bytes(size as u64));
        let cfg = TxConfig::new(8, 9, 0, true);
        g.bench_with_input(BenchmarkId::new("packet-layer", size), &msg, |b, m| {
            let mut r = Reassembler::new(ReassemblyConfig::default()).unwrap();
            b.iter(|| {
                let mut got = None;
                for p in packetize(&cfg, black_box(m)).unwrap() {
                    if let Outcome::Delivered(msg) = r.push(&p, Duration::ZERO) {
                        got = Some(msg);
                    }
                }
                black_box(got.expect("delivered"))
            })
        });
        for kind in ["loopback", "serial-unix"] {
            let (a, b) = pair_of(kind);
            let rx = b.socket();
            rx.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, VENDOR)).unwrap();
            let tx = a.socket();
            let to = SockAddr::owner(NET_ANY, 9, VENDOR);
            g.bench_with_input(BenchmarkId::new(kind, size), &msg, |bench, m| {
                bench.iter_custom(|iters| {
                    let t0 = Instant::now();
                    for i in 0..iters {
                        tx.send_to(m, &to).unwrap();
                        if i >= WINDOW {
                            black_box(rx.recv(Some(Duration::from_secs(5))).unwrap());
                        }
                    }
                    for _ in 0..iters.min(WINDOW) {
                        black_box(rx.recv(Some(Duration::from_secs(5))).unwrap());
                    }
                    t0.elapsed()
                })
            });
            assert_eq!(b.stats().queue_full, 0, "the window never overflowed the receiver");
        }
    }
    g.finish();
}

criterion_group!(benches, stack);
criterion_main!(benches);
