//! CRC-32C throughput: our fast path (and both accelerated candidates) against the `crc`
//! crate's table-driven reference and against memcpy of the same buffer, in one run.
//! `cargo bench -p offload-driver --bench crc`; `scripts/perf-report` turns the results into
//! the ratios in docs/PERFORMANCE.md.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;

static TABLE1: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISCSI);
static SLICE16: crc::Crc<u32, crc::Table<16>> = crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

fn crc32c(c: &mut Criterion) {
    let mut g = c.benchmark_group("crc32c");
    g.measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500));
    for size in [64usize, 1024, 4096, 65536, 1 << 20] {
        let data: Vec<u8> = (0..size).map(|i| (i * 131 + 7) as u8).collect();
        let mut dst = vec![0u8; size];
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_with_input(BenchmarkId::new("ours", size), &data, |b, d| {
            b.iter(|| offload_driver::crc::crc32c(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("ours-incremental", size), &data, |b, d| {
            b.iter(|| {
                let mut s = offload_driver::crc::Crc32c::new();
                s.update(black_box(d));
                s.finalize()
            })
        });
        g.bench_with_input(BenchmarkId::new("crc-fast", size), &data, |b, d| {
            b.iter(|| crc_fast::crc32_iscsi(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("crc32c-crate", size), &data, |b, d| {
            b.iter(|| crc32c::crc32c(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("crc-table", size), &data, |b, d| {
            b.iter(|| TABLE1.checksum(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("crc-slice16", size), &data, |b, d| {
            b.iter(|| SLICE16.checksum(black_box(d)))
        });
        g.bench_with_input(BenchmarkId::new("memcpy", size), &data, |b, d| {
            b.iter(|| {
                dst.copy_from_slice(black_box(d));
                black_box(&dst);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, crc32c);
criterion_main!(benches);
