//! Sequential read throughput through a veth pair between two network namespaces (jumbo and
//! standard MTU): our AoE target against vblade, both serving the same file to our initiator,
//! one after the other in the same run. `cargo bench -p offload-driver --bench aoe` as root
//! (namespaces, raw sockets) with vblade installed; otherwise it says why and exits 0.

use criterion::{Criterion, Throughput};
use offload_driver::aoe::netns::{is_root, VethPair};
use offload_driver::aoe::{serve, Client, ClientOptions, FileDevice, Link, Target, TargetConfig};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes read per iteration.
const READ: u64 = 16 << 20;
const SECTORS: u64 = READ / 512;

struct Image(PathBuf);
impl Drop for Image {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn connect(p: &VethPair, major: u16, minor: u8) -> Client<offload_driver::aoe::PacketSocket> {
    let end = Instant::now() + Duration::from_secs(10);
    loop {
        let sock = p.client_socket().expect("client socket");
        match Client::connect(sock, major, minor, ClientOptions::default()) {
            Ok(c) => return c,
            Err(e) if Instant::now() > end => panic!("target e{major}.{minor}: {e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn bench_mtu(c: &mut Criterion, mtu: usize, img: &Image) {
    // One veth pair per target, both serving the same file at once, so the two can also be
    // measured alternately (the machine's load drifts; alternating cancels most of it).
    let mut pv = VethPair::create(mtu).expect("namespaces");
    let po = VethPair::create(mtu).expect("namespaces");
    let iface = pv.target_if.clone();
    pv.spawn("vblade", &["1", "1", &iface, img.0.to_str().unwrap()])
        .expect("vblade");
    let stop = Arc::new(AtomicBool::new(false));
    let mut sock = po.target_socket().expect("target socket");
    let dev = FileDevice::open(&img.0).expect("image");
    let cfg = TargetConfig::new(2, 1, sock.mac(), sock.mtu());
    let server = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let mut t = Target::new(cfg, dev).unwrap();
            serve(&mut sock, &mut t, &stop).unwrap()
        })
    };
    let mut vblade = connect(&pv, 1, 1);
    let mut ours = connect(&po, 2, 1);
    for (name, cl) in [("vblade", &vblade), ("offload", &ours)] {
        eprintln!(
            "{name}: window {}, {} sectors per frame",
            cl.initiator_config().window,
            cl.initiator_config().sectors_per_frame
        );
    }

    let mut g = c.benchmark_group(format!("aoe_seq_read_mtu{mtu}"));
    g.throughput(Throughput::Bytes(READ))
        .sample_size(10)
        .measurement_time(Duration::from_secs(6))
        .warm_up_time(Duration::from_secs(1));
    g.bench_function("vblade", |b| {
        b.iter(|| vblade.read(0, SECTORS).expect("read"))
    });
    g.bench_function("offload", |b| {
        b.iter(|| ours.read(0, SECTORS).expect("read"))
    });
    g.finish();

    // Alternating rounds: median time of each, and their ratio.
    // `cargo bench` passes --bench; `cargo test` runs each benchmark once and so do we.
    let rounds = if std::env::args().any(|a| a == "--bench") {
        25
    } else {
        1
    };
    let (mut tv, mut to) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t0 = Instant::now();
        vblade.read(0, SECTORS).expect("read");
        let t1 = Instant::now();
        ours.read(0, SECTORS).expect("read");
        tv.push(t1 - t0);
        to.push(t1.elapsed());
    }
    tv.sort();
    to.sort();
    let mib = |d: Duration| READ as f64 / (1 << 20) as f64 / d.as_secs_f64();
    let (mv, mo) = (tv[rounds / 2], to[rounds / 2]);
    eprintln!(
        "aoe_seq_read_mtu{mtu} alternating, {rounds} rounds: vblade {:.0} MiB/s, offload {:.0} MiB/s, offload/vblade {:.2}x",
        mib(mv),
        mib(mo),
        mv.as_secs_f64() / mo.as_secs_f64()
    );

    let retrans = ours.stats().retransmissions + vblade.stats().retransmissions;
    drop((vblade, ours));
    stop.store(true, Ordering::Relaxed);
    let stats = server.join().unwrap();
    eprintln!(
        "offload target: {} frames dropped over the buffer count; initiator retransmissions: {retrans}",
        stats.dropped
    );
}

fn main() {
    if !is_root() {
        eprintln!("aoe bench: skipped: network namespaces and raw sockets need root");
        return;
    }
    if std::process::Command::new("vblade").output().is_err() {
        eprintln!("aoe bench: skipped: vblade is not installed (apt-get install vblade)");
        return;
    }
    let img =
        Image(std::env::temp_dir().join(format!("offload-aoe-bench-{}.img", std::process::id())));
    let data: Vec<u8> = (0..READ).map(|i| ((i * 2654435761) >> 13) as u8).collect();
    std::fs::write(&img.0, &data).unwrap();
    let mut c = Criterion::default().configure_from_args();
    for mtu in [9000, 1500] {
        bench_mtu(&mut c, mtu, &img);
    }
    c.final_summary();
}
