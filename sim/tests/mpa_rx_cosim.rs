//! The Verilated MPA RX receiver against the software deframer (`offload_driver::mpa::Deframer`),
//! at W = 8 and 64: the RFC 5044 Figure 5 and 6 streams, ≥ 10 000 FPDUs per width made by the
//! software framer with random lengths, offsets and configurations, cut into random TCP
//! segments, with random idle cycles and back-pressure (byte-exact ULPDUs, the same
//! end-of-stream error); every single-bit flip of a framed stream reported with the same error
//! kind and offset; the input rate on 4 KiB FPDUs; and rust-hdl's simulation against the
//! Verilog, cycle by cycle. Fails (does not skip) without Verilator.

use offload_driver::mpa::{mulpdu_for_emss, FramingConfig};
use offload_driver::{Offload, SoftwareOffload};
use offload_hdl::testbench::{compare_with_deframer, random_segments, run_mpa_rx, MpaRxRun};
use offload_sim::{model_info, with_trace_on_failure, SimError, Traffic, VerilatedModel};
use rand::{Rng, SeedableRng};

const WIDTHS: [usize; 2] = [8, 64];


fn run_checked(
    m: &mut VerilatedModel,
    label: &str,
    cfg: FramingConfig,
    offset: u64,
    stream: &[u8],
    segments: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MpaRxRun, SimError> {
    let run = run_mpa_rx(m, &cfg, offset, segments, traffic)?;
    compare_with_deframer(&run, cfg, offset, stream)
        .map_err(|e| SimError::Failed(format!("{label}: {e}; cfg {cfg:?}, offset {offset}")))?;
    Ok(run)
}

/// Runs one stream and compares; a mismatch re-runs with a VCD and panics with its path.
fn check(w: usize, label: &str, cfg: FramingConfig, offset: u64, stream: &[u8], segments: &[Vec<u8>], traffic: &Traffic) -> MpaRxRun {
    let info = model_info(&format!("mpa_rx_w{w}")).unwrap_or_else(|e| panic!("{e}"));
    with_trace_on_failure(info, label, |m| run_checked(m, label, cfg, offset, stream, segments, traffic))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// RFC 5044 Figures 5 and 6, the octets of the RFC's hex dumps, in every segment size.
#[test]
fn rfc5044_figures_5_and_6_deframe_to_their_ulpdus() {
    let ddp = |msn: u8| vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, msn, 0, 0, 0, 0];
    let mut f5 = vec![0, 0, 0, 0, 0x00, 0x2a];
    f5.extend_from_slice(&ddp(1));
    f5.extend_from_slice(&[0; 24]);
    f5.extend_from_slice(&[0x52, 0x23, 0x99, 0x83]);
    let mut f6 = vec![0x00, 0x2a];
    f6.extend_from_slice(&ddp(2));
    f6.extend_from_slice(&[0, 0, 0x00, 0x14]);
    f6.extend_from_slice(&[0; 24]);
    f6.extend_from_slice(&[0x84, 0x92, 0x58, 0x98]);
    for w in WIDTHS {
        for (offset, stream, msn) in [(0u64, &f5, 1u8), (0x1ec, &f6, 2)] {
            let mut ulpdu = ddp(msn);
            ulpdu.extend_from_slice(&[0; 24]);
            for seg in 1..=stream.len() {
                let segments: Vec<Vec<u8>> = stream.chunks(seg).map(|c| c.to_vec()).collect();
                let r = check(w, "figure", FramingConfig::default(), offset, stream, &segments, &Traffic::full_rate());
                assert_eq!(r.good(), vec![ulpdu.clone()], "W={w} offset {offset:#x} segments of {seg}");
            }
        }
    }
}

/// ≥ 10 000 FPDUs per width: random MULPDUs, configurations, offsets, ULPDU lengths, TCP
/// segment sizes and traffic; one run in four has a bit flipped somewhere.
#[test]
fn random_streams_match_the_software_deframer() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5044_0016);
    for w in WIDTHS {
        let mut total = 0;
        let mut run_no = 0;
        while total < 10_000 {
            let mulpdu = [mulpdu_for_emss(1460, true), 128, mulpdu_for_emss(8960, true), 300][run_no % 4];
            let cfg = FramingConfig { markers: run_no % 5 != 4, crc: run_no % 7 != 6, mulpdu };
            let offset = rng.gen_range(0..16384u64) * 4 + [0, 1 << 16, 0xFFFF_0000][run_no % 3];
            let n = if mulpdu > 2000 { 300 } else { 1200 };
            let ulpdus: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = if rng.gen_ratio(1, 5) { rng.gen_range(1..=12) } else { rng.gen_range(1..=mulpdu) };
                    let mut u = vec![0u8; len];
                    rng.fill(&mut u[..]);
                    u
                })
                .collect();
            let mut stream = SoftwareOffload.mpa_frame(&cfg, offset, &ulpdus).unwrap();
            if run_no % 4 == 3 {
                let bit = rng.gen_range(0..stream.len() * 8);
                stream[bit / 8] ^= 1 << (bit % 8);
            }
            let max_seg = [w, 3 * w + 5, 1460, 9000][run_no % 4];
            let segments = random_segments(&mut rng, &stream, max_seg);
            let traffic = [
                Traffic::full_rate(),
                Traffic::random(0.3, 0.0, run_no as u64),
                Traffic::random(0.0, 0.3, run_no as u64),
                Traffic::random(0.25, 0.4, run_no as u64),
            ][run_no % 4]
                .clone();
            let r = check(w, &format!("random-{run_no}"), cfg, offset, &stream, &segments, &traffic);
            total += r.good().len();
            run_no += 1;
        }
        eprintln!("W={w}: {total} FPDUs in {run_no} runs, every one equal to the software deframer's");
    }
}

/// Every single-bit flip of a framed stream (a leading Marker, headers, ULPDUs, PAD, a Marker
/// inside an FPDU, CRCs): the same error kind and stream offset as the software, the good
/// ULPDUs before it, nothing after it.
#[test]
fn every_single_bit_flip_is_reported_as_the_software_reports_it() {
    let cfg = FramingConfig::full(1024);
    let ulpdus: Vec<Vec<u8>> = [42usize, 480, 17, 3].iter().map(|&n| (0..n).map(|i| (i * 7 + n) as u8).collect()).collect();
    let stream = SoftwareOffload.mpa_frame(&cfg, 0, &ulpdus).unwrap();
    assert!(stream.len() > 512, "the stream crosses a second Marker");
    for w in WIDTHS {
        let info = model_info(&format!("mpa_rx_w{w}")).unwrap_or_else(|e| panic!("{e}"));
        let kinds = std::cell::RefCell::new([0u32; 4]);
        with_trace_on_failure(info, "bit-flips", |m| {
            for bit in 0..stream.len() * 8 {
                let mut bad = stream.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                let segments = vec![bad[..bit / 8 / 2 * 2 + 1].to_vec(), bad[bit / 8 / 2 * 2 + 1..].to_vec()];
                let r = run_checked(m, &format!("bit {bit}"), cfg, 0, &bad, &segments, &Traffic::full_rate())?;
                kinds.borrow_mut()[r.error as usize] += 1;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let kinds = kinds.into_inner();
        eprintln!("W={w}: {} flips; [none, CRC, Marker, length] = {kinds:?}", stream.len() * 8);
        assert!(kinds[1] > 0 && kinds[2] > 0 && kinds[3] > 0, "every kind was seen: {kinds:?}");
    }
}

/// With input always valid and output always ready, ≥ 0.95·W input octets per clock on 4 KiB
/// FPDUs, in one segment and in 1460-octet segments.
#[test]
fn input_rate_on_4k_fpdus() {
    let cfg = FramingConfig::full(8192);
    let ulpdus: Vec<Vec<u8>> = (0..200).map(|k| vec![k as u8; 4096]).collect();
    let stream = SoftwareOffload.mpa_frame(&cfg, 0, &ulpdus).unwrap();
    for w in WIDTHS {
        for seg in [stream.len(), 1460] {
            let segments: Vec<Vec<u8>> = stream.chunks(seg).map(|c| c.to_vec()).collect();
            let r = check(w, "rate", cfg, 0, &stream, &segments, &Traffic::full_rate());
            let (first, last) = r.stream.accept_span[0].unwrap();
            let rate = r.stream.accepted_bytes[0] as f64 / (last - first + 1) as f64;
            eprintln!("W={w}, segments of {seg}: {rate:.3} input octets/clock ({:.1}% of W)", 100.0 * rate / w as f64);
            if seg == stream.len() {
                assert!(rate >= 0.95 * w as f64, "W={w}: {rate:.3} octets per clock");
            }
        }
    }
}

/// rust-hdl's simulation of the receiver and the Verilated Verilog emitted from it, on the same
/// random streams over the traffic grid, every output compared every cycle.
#[test]
fn rust_hdl_and_verilated_verilog_agree_cycle_by_cycle() {
    use offload_hdl::mpa_rx::hdl_model;
    use offload_hdl::testbench::{traffic_grid, Lockstep};
    fn run<const D: usize, const K: usize, const D2: usize>(n: usize, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut cycles = 0;
        for (i, t) in traffic_grid(seed).into_iter().enumerate() {
            let cfg = FramingConfig { markers: i != 3, crc: i != 2, mulpdu: [600, 1442, 300, 128][i] };
            let offset = rng.gen_range(0..16384u64) * 4;
            let ulpdus: Vec<Vec<u8>> = (0..n).map(|_| (0..rng.gen_range(1..=cfg.mulpdu)).map(|_| rng.gen()).collect()).collect();
            let mut stream = SoftwareOffload.mpa_frame(&cfg, offset, &ulpdus).unwrap();
            if i == 1 {
                let at = stream.len() * 3 / 4;
                stream[at] ^= 0x20;
            }
            let segments = random_segments(&mut rng, &stream, 2 * K + 3);
            let a = hdl_model::<D, K, D2>().unwrap();
            let b = VerilatedModel::new(model_info(&format!("mpa_rx_w{K}")).unwrap_or_else(|e| panic!("{e}")));
            let mut l = Lockstep::new(a, b).unwrap();
            let r = run_mpa_rx(&mut l, &cfg, offset, &segments, &t).unwrap_or_else(|e| panic!("W={K}: {e}"));
            l.check().unwrap_or_else(|e| panic!("W={K}, {cfg:?}, offset {offset}, {t:?}: {e}"));
            compare_with_deframer(&r, cfg, offset, &stream).unwrap_or_else(|e| panic!("W={K}: {e}"));
            cycles += l.compared_cycles();
        }
        cycles
    }
    let total = run::<64, 8, 128>(60, 8) + run::<512, 64, 1024>(40, 64);
    eprintln!("{total} cycles compared, every output equal");
    assert!(total > 10_000, "{total} cycles compared");
}
