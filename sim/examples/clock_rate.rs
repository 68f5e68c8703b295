//! Verilated clocks per second driven from Rust, for docs/PERFORMANCE.md:
//! `cargo run --release -p offload-sim --example clock_rate [W]`.
//! Two figures: the AXI-Stream driver (`run_streams`, as the tests use it, full rate) and a
//! bare loop (write tdata, eval, tick) that shows the FFI/Verilator ceiling.

use offload_driver::crc::CrcKind;
use offload_hdl::testbench::run_crc_frames;
use offload_sim::{crc_model_info, Traffic, VerilatedModel};
use std::time::Instant;

fn main() {
    let w: usize = std::env::args().nth(1).map_or(8, |a| a.parse().expect("width"));
    let info = crc_model_info(CrcKind::Crc32c, w).unwrap_or_else(|e| panic!("{e}"));
    let mut m = VerilatedModel::new(info);
    let frames: Vec<Vec<u8>> = (0..200).map(|i| vec![i as u8; 9000 * 8 / w.max(1) * w / 8]).collect();
    // Warm up, then measure the driver.
    run_crc_frames(&mut m, &frames[..2], &Traffic::full_rate()).unwrap();
    for (label, traffic) in [("driver", Traffic::full_rate())] {
    let t = Instant::now();
    let run = run_crc_frames(&mut m, &frames, &traffic).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "W={w}: {label}: {} clocks in {:.3} s = {:.2} M clocks/s ({:.2} GB/s of CRC input)",
        run.stream.cycles,
        s,
        run.stream.cycles as f64 / s / 1e6,
        run.stream.accepted_bytes[0] as f64 / s / 1e9
    );
    }
    // Bare loop: the ceiling of one eval + one tick per clock over FFI.
    let tdata = m.port("s_tdata").unwrap();
    let tvalid = m.port("s_tvalid").unwrap();
    let n = 20_000_000u64 / w.max(1) as u64 * 8 / 8;
    m.set(tvalid, 1);
    let t = Instant::now();
    for i in 0..n {
        m.set(tdata, i);
        m.eval();
        m.tick();
    }
    let s = t.elapsed().as_secs_f64();
    println!("W={w}: bare loop: {n} clocks in {s:.3} s = {:.2} M clocks/s", n as f64 / s / 1e6);
}
