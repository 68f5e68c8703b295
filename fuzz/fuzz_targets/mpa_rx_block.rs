//! The MPA RX block's rust-hdl simulation (the one `#[hdl_gen]` description whose Verilog is
//! shipped) against the software deframer on the same bytes: the same good ULPDUs, the same
//! end-of-stream error (kind, offset, found and expected values), the same counters, no hang.
//! The first octets choose the configuration, start offset, width, segment size and traffic;
//! the rest is either the stream itself or, half the time, ULPDU material framed by the
//! software framer with a few octets then flipped (so the run gets past the first header).
//! Streams are capped at 2 KiB: rust-hdl simulates ~10^4 clocks per second.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mpa::{Framer, FramingConfig};
use offload_hdl::mpa_rx::hdl_model;
use offload_hdl::testbench::{compare_with_deframer, run_mpa_rx, traffic_grid, ClockedModel, MpaRxRun};

fn run<M: ClockedModel>(m: &mut M, cfg: FramingConfig, offset: u64, stream: &[u8], seg: usize, traffic: u8) -> MpaRxRun {
    let segments: Vec<Vec<u8>> = stream.chunks(seg).map(<[u8]>::to_vec).collect();
    let mut t = traffic_grid(traffic as u64)[traffic as usize % 4].clone();
    // Far more than any stream needs (a beat per clock less idle and back-pressure): a hang.
    t.max_cycles = 64 * stream.len() as u64 + 4096;
    run_mpa_rx(m, &cfg, offset, &segments, &t).expect("the block neither hangs nor breaks the AXI-Stream rules")
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (mode, rest) = (data[0], &data[6..]);
    let cfg = FramingConfig {
        markers: mode & 1 != 0,
        crc: mode & 2 != 0,
        mulpdu: [128, 300, 1442, 64768][(mode as usize >> 2) & 3],
    };
    let offset = u32::from_le_bytes([data[1], data[2], data[3], 0]) as u64 * 4;
    let seg = 1 + data[4] as usize;
    let rest = &rest[..rest.len().min(2048)];
    let stream = if mode & 0x10 != 0 {
        // ULPDU material: a length octet, then that many octets (1..=256), framed in order.
        let mut f = Framer::new(cfg, offset).unwrap();
        let mut out = Vec::new();
        let mut r = rest;
        while let Some((&n, tail)) = r.split_first() {
            let n = (n as usize + 1).min(tail.len()).min(cfg.mulpdu);
            if n == 0 {
                break;
            }
            f.frame(&tail[..n], &mut out).unwrap();
            r = &tail[n..];
        }
        // Up to three flips, positions from the seed octet.
        let k = data[5] as usize;
        for i in 0..(k & 3) {
            if !out.is_empty() {
                let at = (k * 131 + i * 977) % out.len();
                out[at] ^= 1 << ((k + i) % 8);
            }
        }
        out
    } else {
        rest.to_vec()
    };
    let r = if mode & 0x20 != 0 {
        run(&mut hdl_model::<512, 64, 1024>().unwrap(), cfg, offset, &stream, seg, data[5])
    } else {
        run(&mut hdl_model::<64, 8, 128>().unwrap(), cfg, offset, &stream, seg, data[5])
    };
    if let Err(e) = compare_with_deframer(&r, cfg, offset, &stream) {
        panic!("{e}; cfg {cfg:?}, offset {offset}");
    }
});
