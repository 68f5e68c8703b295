//! The MCTP RX depacketizer's cycle model (the one its Verilog mirrors) against the software
//! receiver with one context: any frames, any setup, any width, random gaps and back-pressure —
//! the same messages in the same order and the same counters, and no hang or panic. The input
//! either is the frames (length-prefixed) or seeds the shared traffic generator (its
//! interleavings and corruptions), chosen by the first octet.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_hdl::mctp_rx::model::HW_MAX_LEN;
use offload_hdl::test_support::{random_rx_frames, run_rx_model, rx_reference, RxSetup};
use rand::SeedableRng;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (mode, rest) = (data[0], &data[4..]);
    let w = [1, 4, 8][(mode as usize >> 4) % 3];
    let limit = u16::from_le_bytes([data[2], data[3]]) as usize % (HW_MAX_LEN + 1);
    let setup = RxSetup { smbus: mode & 1 != 0, mic: mode & 2 != 0, strict: mode & 4 != 0, max_len: limit.max(1) };
    let mut rng = rand::rngs::StdRng::seed_from_u64(data[1] as u64);
    let frames: Vec<Vec<u8>> = if mode & 8 != 0 {
        let seed = rest.iter().take(8).fold(0u64, |a, &b| a << 8 | b as u64);
        let mut g = rand::rngs::StdRng::seed_from_u64(seed);
        let p = rest.get(8).map_or(0.1, |&b| b as f64 / 512.0);
        random_rx_frames(&mut g, &setup, 3, 700, p)
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
    let (pv, pr) = [(1.0, 1.0), (0.6, 1.0), (1.0, 0.5), (0.5, 0.5)][data[1] as usize % 4];
    let run = run_rx_model(w, &setup, &frames, pv, pr, &mut rng);
    let want = rx_reference(&setup, &frames);
    assert_eq!(run.messages, want.messages, "W={w} {setup:?}");
    assert_eq!(run.counters, want.counters, "W={w} {setup:?}");
});
