//! MPA framing and deframing throughput with Markers and CRCs, against memcpy of the same
//! octets, for 1 KiB, 4 KiB and 16 KiB ULPDUs. `cargo bench -p offload-driver --bench mpa`.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use offload_driver::mpa::{Deframer, Framer, FramingConfig};
use std::time::Duration;

/// ULPDUs per iteration: enough that Marker phases vary.
const BATCH: usize = 64;

fn mpa(c: &mut Criterion) {
    let mut g = c.benchmark_group("mpa");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for size in [1024usize, 4096, 16384] {
        let ulpdus: Vec<Vec<u8>> = (0..BATCH).map(|k| (0..size).map(|i| (i * 7 + k) as u8).collect()).collect();
        let cfg = FramingConfig::default();
        let mut stream = Vec::new();
        let mut f = Framer::new(cfg, 0).unwrap();
        for u in &ulpdus {
            f.frame(u, &mut stream).unwrap();
        }
        g.throughput(Throughput::Bytes((size * BATCH) as u64));
        let mut out = Vec::with_capacity(stream.len());
        g.bench_with_input(BenchmarkId::new("frame", size), &ulpdus, |b, us| {
            b.iter(|| {
                out.clear();
                let mut f = Framer::new(cfg, 0).unwrap();
                for u in us {
                    f.frame(black_box(u), &mut out).unwrap();
                }
                black_box(&out);
            })
        });
        g.bench_with_input(BenchmarkId::new("deframe", size), &stream, |b, s| {
            b.iter(|| {
                let mut d = Deframer::new(cfg, 0).unwrap();
                let mut got = Vec::with_capacity(BATCH);
                // TCP-like 1460-octet segments.
                for seg in s.chunks(1460) {
                    d.push(black_box(seg), &mut got).unwrap();
                }
                black_box(got)
            })
        });
        // The reference: the same ULPDUs copied one after another into one output stream, as
        // framing does, minus the framing.
        g.bench_with_input(BenchmarkId::new("memcpy", size), &ulpdus, |b, us| {
            b.iter(|| {
                out.clear();
                for u in us {
                    out.extend_from_slice(black_box(u));
                }
                black_box(&out);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, mpa);
criterion_main!(benches);
