//! The framer in rust-hdl's own simulator, driven by the project testbench (short runs; the
//! long ones are the Verilator co-simulation in `offload-sim`): RFC 5044 Figures 5 and 6, random
//! ULPDUs against the software framer over the traffic grid at every width, throughput, and the
//! emitted Verilog's lint.

use super::{expected_fpdus, hdl_model, MpaTx};
use crate::test_support::assert_same;
use crate::testbench::{run_mpa_tx, traffic_grid, Traffic};
use offload_driver::mpa::FramingConfig;
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// RFC 5044 Figures 5 and 6: a 42-octet DDP Send (MSN 1 at offset 0, MSN 2 at offset 0x1ec).
fn figures<const D: usize, const K: usize, const H: usize, const I: usize>() {
    let ulpdu = |msn: u8| {
        let mut u = vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, msn, 0, 0, 0, 0];
        u.extend_from_slice(&[0; 24]);
        u
    };
    let mut m = hdl_model::<D, K, H, I>().unwrap();
    let r = run_mpa_tx(&mut m, &FramingConfig::default(), 0, &[ulpdu(1)], &Traffic::full_rate()).unwrap();
    assert_eq!(&r.fpdus[0][..6], &[0, 0, 0, 0, 0, 0x2a], "W={K}");
    assert_eq!(&r.fpdus[0][48..], &[0x52, 0x23, 0x99, 0x83], "W={K}");
    let r = run_mpa_tx(&mut m, &FramingConfig::default(), 0x1ec, &[ulpdu(2)], &Traffic::full_rate()).unwrap();
    assert_eq!(&r.fpdus[0][0x200 - 0x1ec..0x204 - 0x1ec], &[0, 0, 0, 0x14], "W={K}");
    assert_eq!(&r.fpdus[0][48..], &[0x84, 0x92, 0x58, 0x98], "W={K}");
}

#[test]
fn rfc5044_figures_5_and_6_at_every_width() {
    figures::<32, 4, 64, 96>();
    figures::<64, 8, 96, 160>();
    figures::<128, 16, 160, 288>();
    figures::<256, 32, 288, 544>();
    figures::<512, 64, 544, 1056>();
}

/// Random ULPDUs (some too long: dropped and counted), offsets and configurations over the
/// traffic grid, byte-exact with the software framer.
fn random<const D: usize, const K: usize, const H: usize, const I: usize>(rounds: usize, max_ulpdus: usize) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11 + K as u64);
    for round in 0..rounds {
        let cfg = FramingConfig {
            markers: round % 4 != 3,
            crc: round % 5 != 4,
            mulpdu: [128, 300, 1442, 9000][round % 4],
        };
        let offset = rng.gen_range(0..16384u64) * 4;
        let ulpdus: Vec<Vec<u8>> = (0..rng.gen_range(1..=max_ulpdus))
            .map(|_| {
                let len = match rng.gen_range(0..10) {
                    0 => rng.gen_range(1..=8),
                    1 => cfg.mulpdu + rng.gen_range(1..4),
                    _ => rng.gen_range(1..=cfg.mulpdu.min(700)),
                };
                (0..len).map(|_| rng.gen()).collect()
            })
            .collect();
        let traffic = traffic_grid(round as u64)[round % 4].clone();
        let mut m = hdl_model::<D, K, H, I>().unwrap();
        let r = run_mpa_tx(&mut m, &cfg, offset, &ulpdus, &traffic).unwrap();
        let want = expected_fpdus(cfg, offset, &ulpdus);
        assert_eq!(r.fpdus.len(), want.len(), "W={K} round {round}");
        for (k, (g, w)) in r.fpdus.iter().zip(&want).enumerate() {
            assert_same(g, w, &format!("W={K} round {round} FPDU {k} offset {offset} cfg {cfg:?}"));
        }
        assert_eq!(r.fpdu_count, want.len() as u64, "W={K} round {round}");
        assert_eq!(r.dropped as usize, ulpdus.len() - want.len(), "W={K} round {round}");
    }
}

#[test]
fn random_traffic_matches_software_framer_w4_w8() {
    random::<32, 4, 64, 96>(12, 12);
    random::<64, 8, 96, 160>(12, 12);
}

#[test]
fn random_traffic_matches_software_framer_w16_w32_w64() {
    random::<128, 16, 160, 288>(4, 8);
    random::<256, 32, 288, 544>(4, 6);
    random::<512, 64, 544, 1056>(4, 4);
}

/// A first FPDU ending 0..=N+8 words before a Marker lane (its CRC lane at every distance from
/// the Marker), then a second FPDU, which may carry that Marker in its first beat: the next
/// Marker lane after a CRC beat (`mlt_q`, `mpos_q`), which the short random runs above missed
/// (a wrong `mlt_q` there passed them; only the Verilated long runs caught it). Byte-exact with
/// the software framer.
fn ends_before_a_marker<const D: usize, const K: usize, const H: usize, const I: usize>() {
    let cfg = FramingConfig::default();
    assert!(cfg.markers);
    let mut m = hdl_model::<D, K, H, I>().unwrap();
    for len in [1usize, 6, 10, 26, 61] {
        // Header, ULPDU, PAD and CRC.
        let fpdu = (2 + len).div_ceil(4) * 4 + 4;
        for back in 0..=(K / 4 + 8) {
            let offset = (512 - fpdu - 4 * back) as u64;
            let ulpdus = vec![vec![0x5a; len], vec![0xa5; 20], vec![0x3c; 3]];
            let r = run_mpa_tx(&mut m, &cfg, offset, &ulpdus, &Traffic::full_rate()).unwrap();
            assert_eq!(r.fpdus, expected_fpdus(cfg, offset, &ulpdus), "W={K}: ULPDU of {len}, {back} words before the Marker");
        }
    }
}

#[test]
fn fpdu_ending_at_every_distance_before_a_marker() {
    ends_before_a_marker::<32, 4, 64, 96>();
    ends_before_a_marker::<64, 8, 96, 160>();
    ends_before_a_marker::<128, 16, 160, 288>();
}

/// The latency the docs state (`LATENCY`, docs/TOP.md): a one-beat FPDU's beat leaves exactly
/// that many clocks after its ULPDU's beat is accepted, at every width.
fn latency<const D: usize, const K: usize, const H: usize, const I: usize>() {
    let cfg = FramingConfig { markers: false, ..FramingConfig::default() };
    let mut m = hdl_model::<D, K, H, I>().unwrap();
    // 2 octets: header, ULPDU and CRC are one 8-octet FPDU, one beat at W ≥ 8 (two at W = 4).
    let r = run_mpa_tx(&mut m, &cfg, 4, &[vec![7, 9]], &Traffic::full_rate()).unwrap();
    assert_eq!(r.fpdus, expected_fpdus(cfg, 4, &[vec![7, 9]]), "W={K}");
    let (accepted, _) = r.stream.accept_span[0].unwrap();
    let beats = 8u64.div_ceil(K as u64);
    let out = r.stream.output_last_cycles[0][0];
    assert_eq!(out - accepted, super::LATENCY + beats - 1, "W={K}: first input beat at {accepted}, last output beat at {out}");
}

#[test]
fn latency_is_the_documented_one_at_every_width() {
    latency::<32, 4, 64, 96>();
    latency::<64, 8, 96, 160>();
    latency::<512, 64, 544, 1056>();
}

/// Full rate on 4 KiB ULPDUs: ≥ 0.95·W input octets per clock; small ULPDUs back to back: the
/// output never idles (one FPDU per clock once an FPDU fits a beat).
#[test]
fn throughput_on_4k_ulpdus_and_back_to_back_small_ones() {
    let cfg = FramingConfig::full(8192);
    let ulpdus: Vec<Vec<u8>> = (0..8).map(|k| vec![k as u8; 4096]).collect();
    let mut m = hdl_model::<64, 8, 96, 160>().unwrap();
    let r = run_mpa_tx(&mut m, &cfg, 0, &ulpdus, &Traffic::full_rate()).unwrap();
    assert_eq!(r.fpdus, expected_fpdus(cfg, 0, &ulpdus));
    let (first, last) = r.stream.accept_span[0].unwrap();
    let rate = r.stream.accepted_bytes[0] as f64 / (last - first + 1) as f64;
    assert!(rate >= 0.95 * 8.0, "W=8: {rate:.2} octets/clock");

    let small: Vec<Vec<u8>> = (0..60).map(|k| vec![k as u8; 1 + k % 13]).collect();
    let cfg = FramingConfig { markers: false, ..cfg };
    let mut m = hdl_model::<64, 8, 96, 160>().unwrap();
    let r = run_mpa_tx(&mut m, &cfg, 0, &small, &Traffic::full_rate()).unwrap();
    let want = expected_fpdus(cfg, 0, &small);
    assert_eq!(r.fpdus, want);
    let beats: u64 = want.iter().map(|f| f.len().div_ceil(8) as u64).sum();
    let (first, last) = r.stream.accept_span[0].unwrap();
    assert!(last - first <= beats, "{} clocks for {beats} output beats", last - first + 1);
}

fn verilog_of<const D: usize, const K: usize, const H: usize, const I: usize>() -> String {
    let mut uut = MpaTx::<D, K, H, I>::default();
    uut.connect_all();
    generate_verilog(&uut)
}

/// The emitted Verilog at every shipped width passes rust-hdl's Yosys check (no latches, no
/// undriven or implicit wires) and Verilator's lint with only the documented waivers.
#[test]
fn verilog_is_clean() {
    for (w, v) in [(4, verilog_of::<32, 4, 64, 96>()), (8, verilog_of::<64, 8, 96, 160>()), (64, verilog_of::<512, 64, 544, 1056>())] {
        yosys_validate(&format!("mpa_tx_w{w}"), &v).unwrap_or_else(|e| panic!("W={w}: {e:?}"));
        crate::tools::verilator_lint(&v, "top").unwrap_or_else(|e| panic!("W={w}: {e}"));
    }
}
