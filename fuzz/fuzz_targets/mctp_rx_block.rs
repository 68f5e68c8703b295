//! The MCTP RX block's rust-hdl simulation (the one `#[hdl_gen]` description whose Verilog is
//! shipped) against the software receiver with one context: any frames, any setup, any width,
//! random gaps and back-pressure — the same messages in the same order, the same counters and
//! drop records that say what the software says of each drop,
//! and no hang. The input either is the frames (length-prefixed) or seeds the shared traffic
//! generator (its interleavings and corruptions), chosen by the first octet. Input is capped
//! at 2 KiB: rust-hdl simulates ~10^4 clocks per second.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_hdl::mctp_rx::HW_MAX_LEN;
use offload_hdl::test_support::{random_rx_frames, run_rx_hdl, rx_reference, RxSetup};
use offload_hdl::testbench::traffic_grid;
use rand::SeedableRng;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (mode, rest) = (data[0], &data[4..data.len().min(2048)]);
    let w = [1, 4, 8][(mode as usize >> 4) % 3];
    let limit = u16::from_le_bytes([data[2], data[3]]) as usize % (HW_MAX_LEN + 1);
    let setup = RxSetup { smbus: mode & 1 != 0, mic: mode & 2 != 0, strict: mode & 4 != 0, max_len: limit.max(1) };
    let frames: Vec<Vec<u8>> = if mode & 8 != 0 {
        let seed = rest.iter().take(8).fold(0u64, |a, &b| a << 8 | b as u64);
        let mut g = rand::rngs::StdRng::seed_from_u64(seed);
        let p = rest.get(8).map_or(0.1, |&b| b as f64 / 512.0);
        random_rx_frames(&mut g, &setup, 2, 500, p)
    } else {
        // Frames: one length octet (times 2 when above 127, so oversize raw frames occur), then
        // that many octets.
        let mut v = Vec::new();
        let mut r = rest;
        while let Some((&n, tail)) = r.split_first() {
            let n = if n > 127 { 2 * (n as usize - 127) + 127 } else { n as usize }.min(tail.len());
            v.push(tail[..n].to_vec());
            r = &tail[n..];
        }
        v
    };
    let mut t = traffic_grid(data[1] as u64)[data[1] as usize % 4].clone();
    // Far more than any run needs (a beat per clock less idle and back-pressure): a hang.
    let octets: usize = frames.iter().map(|f| f.len() + 8).sum();
    t.max_cycles = 64 * octets as u64 + 8192;
    let run = run_rx_hdl(w, &setup, &frames, &t).unwrap_or_else(|e| panic!("W={w} {setup:?}: {e}"));
    let want = rx_reference(&setup, &frames);
    assert_eq!(run.messages, want.messages, "W={w} {setup:?}");
    assert_eq!(offload_hdl::mctp_rx::RxCounters::from_array(run.counters), want.counters, "W={w} {setup:?}");
    offload_hdl::test_support::check_drops(&run.drops, &want.drops).unwrap_or_else(|e| panic!("W={w} {setup:?}: {e}"));
});
