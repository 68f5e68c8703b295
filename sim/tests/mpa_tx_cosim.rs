//! The Verilated MPA TX framer against the software framer (`offload_driver::mpa::Framer`), at
//! W = 4, 8 and 64: the RFC 5044 Figure 5 and 6 streams, ≥ 10 000 ULPDUs per width with random
//! lengths 1..=MULPDU, random start offsets and configurations, random idle cycles and
//! back-pressure, byte for byte; bad lengths dropped and counted; throughput on 4 KiB ULPDUs.
//! Fails (does not skip) without Verilator.

use offload_driver::mpa::{mulpdu_for_emss, FramingConfig};
use offload_hdl::testbench::{run_mpa_tx, MpaTxRun};
use offload_sim::{model_info, with_trace_on_failure, SimError, Traffic};
use rand::{Rng, SeedableRng};

const WIDTHS: [usize; 3] = [4, 8, 64];

/// Runs and compares; a mismatch re-runs with a VCD and panics with its path.
fn check(w: usize, label: &str, cfg: FramingConfig, offset: u64, ulpdus: &[Vec<u8>], traffic: &Traffic) -> MpaTxRun {
    let info = model_info(&format!("mpa_tx_w{w}")).unwrap_or_else(|e| panic!("{e}"));
    let want = offload_hdl::mpa_tx::expected_fpdus(cfg, offset, ulpdus);
    with_trace_on_failure(info, label, |m| {
        let run = run_mpa_tx(m, &cfg, offset, ulpdus, traffic)?;
        if run.fpdus.len() != want.len() {
            return Err(SimError::Failed(format!("{label}: {} FPDUs, software {}", run.fpdus.len(), want.len())));
        }
        for (i, (g, r)) in run.fpdus.iter().zip(&want).enumerate() {
            if g != r {
                let at = g.iter().zip(r).position(|(a, b)| a != b).unwrap_or(g.len().min(r.len()));
                return Err(SimError::Failed(format!(
                    "{label}: FPDU {i} ({} vs {} octets) differs from the software framer at octet {at}; cfg {cfg:?}, offset {offset}",
                    g.len(),
                    r.len()
                )));
            }
        }
        let dropped = (ulpdus.len() - want.len()) as u64;
        if run.fpdu_count != want.len() as u64 || run.dropped != dropped {
            return Err(SimError::Failed(format!(
                "{label}: counters fpdus {} dropped {}, expected {} and {dropped}",
                run.fpdu_count,
                run.dropped,
                want.len()
            )));
        }
        Ok(run)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// RFC 5044 Figures 5 and 6 (a 42-octet DDP Send; MSN 1 at offset 0, MSN 2 at offset 0x1ec).
#[test]
fn rfc5044_figures_5_and_6_at_every_width() {
    let ulpdu = |msn: u8| {
        let mut u = vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, msn, 0, 0, 0, 0];
        u.extend_from_slice(&[0; 24]);
        u
    };
    for w in WIDTHS {
        let r = check(w, "figure5", FramingConfig::default(), 0, &[ulpdu(1)], &Traffic::full_rate());
        assert_eq!(&r.fpdus[0][..6], &[0, 0, 0, 0, 0x00, 0x2a]);
        assert_eq!(&r.fpdus[0][48..], &[0x52, 0x23, 0x99, 0x83], "W={w}");
        let r = check(w, "figure6", FramingConfig::default(), 0x1ec, &[ulpdu(2)], &Traffic::full_rate());
        assert_eq!(&r.fpdus[0][0x200 - 0x1ec..0x204 - 0x1ec], &[0, 0, 0x00, 0x14], "W={w}");
        assert_eq!(&r.fpdus[0][48..], &[0x84, 0x92, 0x58, 0x98], "W={w}");
    }
}

/// ≥ 10 000 ULPDUs per width over runs with different MULPDUs, offsets, configurations and
/// traffic; a few over-long ULPDUs in each run must be dropped and counted.
#[test]
fn random_traffic_matches_software_framer() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5044);
    for w in WIDTHS {
        let mut total = 0;
        let mut run_no = 0;
        while total < 10_000 {
            let mulpdu = [mulpdu_for_emss(1460, true), 128, mulpdu_for_emss(8960, true), 300][run_no % 4];
            let cfg = FramingConfig { markers: run_no % 5 != 4, crc: run_no % 7 != 6, mulpdu };
            let offset = rng.gen_range(0..16384u64) * 4 + [0, 1 << 16][run_no % 2];
            let n = if mulpdu > 2000 { 400 } else { 1500 };
            let ulpdus: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = if rng.gen_ratio(1, 100) { mulpdu + rng.gen_range(1..100) } else { rng.gen_range(1..=mulpdu) };
                    let mut u = vec![0u8; len];
                    rng.fill(&mut u[..]);
                    u
                })
                .collect();
            let traffic = [
                Traffic::full_rate(),
                Traffic::random(0.3, 0.0, run_no as u64),
                Traffic::random(0.0, 0.3, run_no as u64),
                Traffic::random(0.25, 0.4, run_no as u64),
            ][run_no % 4]
                .clone();
            let r = check(w, &format!("random-{run_no}"), cfg, offset, &ulpdus, &traffic);
            total += r.fpdus.len();
            run_no += 1;
        }
        assert!(total >= 10_000);
    }
}

/// With input always valid and output always ready, ≥ 0.95·W input octets per clock on 4 KiB
/// ULPDUs, and the output never idles: the clocks are the output beats (+ the pipeline).
#[test]
fn throughput_on_4k_ulpdus() {
    let cfg = FramingConfig::full(8192);
    for w in WIDTHS {
        let ulpdus: Vec<Vec<u8>> = (0..200).map(|k| vec![k as u8; 4096]).collect();
        let r = check(w, "throughput", cfg, 0, &ulpdus, &Traffic::full_rate());
        let (first, last) = r.stream.accept_span[0].unwrap();
        let rate = r.stream.accepted_bytes[0] as f64 / (last - first + 1) as f64;
        assert!(rate >= 0.95 * w as f64, "W={w}: {rate:.3} octets per clock");
        let out_beats: u64 = r.fpdus.iter().map(|f| f.len().div_ceil(w) as u64).sum();
        assert!(last - first + 1 <= out_beats + 2, "W={w}: {} clocks for {out_beats} output beats", last - first + 1);
        eprintln!("W={w}: {rate:.3} input octets/clock ({:.1}% of W) on 4 KiB ULPDUs", 100.0 * rate / w as f64);
    }
}

/// rust-hdl's simulation of the framer and the Verilated Verilog emitted from it, on the same
/// random ULPDUs, offsets and configurations over the traffic grid, every output compared every
/// cycle (and both against the software framer), at every shipped width.
#[test]
fn rust_hdl_and_verilated_verilog_agree_cycle_by_cycle() {
    use offload_hdl::mpa_tx::hdl_model;
    use offload_hdl::testbench::{traffic_grid, Lockstep};
    use offload_sim::VerilatedModel;
    fn run<const D: usize, const K: usize, const H: usize, const I: usize>(n: usize, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut cycles = 0;
        for (i, t) in traffic_grid(seed).into_iter().enumerate() {
            let cfg = FramingConfig { markers: i != 3, crc: i != 2, mulpdu: [600, 1442, 300, 128][i] };
            let offset = rng.gen_range(0..16384u64) * 4;
            let ulpdus: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = if rng.gen_ratio(1, 20) { cfg.mulpdu + 1 } else { rng.gen_range(1..=cfg.mulpdu) };
                    (0..len).map(|_| rng.gen()).collect()
                })
                .collect();
            let a = hdl_model::<D, K, H, I>().unwrap();
            let b = VerilatedModel::new(model_info(&format!("mpa_tx_w{K}")).unwrap_or_else(|e| panic!("{e}")));
            let mut l = Lockstep::new(a, b).unwrap();
            let r = run_mpa_tx(&mut l, &cfg, offset, &ulpdus, &t).unwrap_or_else(|e| panic!("W={K}: {e}"));
            l.check().unwrap_or_else(|e| panic!("W={K}, {cfg:?}, offset {offset}, {t:?}: {e}"));
            assert_eq!(r.fpdus, offload_hdl::mpa_tx::expected_fpdus(cfg, offset, &ulpdus), "W={K}");
            cycles += l.compared_cycles();
        }
        cycles
    }
    let total = run::<32, 4, 64, 96>(150, 4) + run::<64, 8, 96, 160>(150, 8) + run::<512, 64, 544, 1056>(40, 64);
    eprintln!("{total} cycles compared, every output equal");
    assert!(total > 20_000, "{total} cycles compared");
}
