//! MCTP packetize + reassemble, messages per second, for 64 B, 256 B, 1 KiB and 4224 B
//! (the NVMe-MI out-of-band maximum) messages at the baseline 64-octet MTU, next to a memcpy
//! of the same octets as the in-run reference. `cargo bench -p offload-driver --bench mctp`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use offload_driver::mctp::{
    packetize, receive, transmit, Binding, Outcome, Reassembler, ReassemblyConfig, RxRequest,
    SmbusAddresses, TxConfig, TxRequest,
};
use std::time::Duration;

fn mctp(c: &mut Criterion) {
    let mut g = c.benchmark_group("mctp");
    g.measurement_time(Duration::from_millis(1500))
        .warm_up_time(Duration::from_millis(300));
    let cfg = TxConfig {
        src: 0x08,
        dst: 0x1D,
        tag: 1,
        tag_owner: true,
        mtu: 64,
        start_seq: 0,
    };
    for size in [64usize, 256, 1024, 4224] {
        let msg: Vec<u8> = std::iter::once(0x84)
            .chain((1..size).map(|i| (i * 7) as u8))
            .collect();
        g.throughput(Throughput::Elements(1));
        g.bench_with_input(
            BenchmarkId::new("packetize+reassemble", size),
            &msg,
            |b, m| {
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
            },
        );
        // The full seam: MIC + SMBus frames out, PEC + MIC checked back in. 4224 with its MIC
        // would exceed the NVMe-MI limit, so the body is 4 octets shorter there.
        let body = &msg[..size.min(4220)];
        let tx = TxRequest {
            config: cfg,
            append_mic: true,
            smbus: Some(SmbusAddresses {
                src: 0x10,
                dst: 0x1D,
            }),
        };
        let rx = RxRequest {
            reassembly: ReassemblyConfig::nvme_mi(),
            binding: Binding::Smbus,
            verify_mic: true,
        };
        g.bench_with_input(
            BenchmarkId::new("transmit+receive (MIC, SMBus)", size),
            body,
            |b, m| {
                b.iter(|| {
                    let frames = transmit(&tx, black_box(m)).unwrap();
                    let rep = receive(&rx, &frames).unwrap();
                    assert_eq!(rep.messages.len(), 1);
                    black_box(rep)
                })
            },
        );
        let mut dst = vec![0u8; size];
        g.bench_with_input(
            BenchmarkId::new("memcpy (reference)", size),
            &msg,
            |b, m| {
                b.iter(|| {
                    dst.copy_from_slice(black_box(m));
                    black_box(&dst);
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, mctp);
criterion_main!(benches);
