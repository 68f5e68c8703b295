//! The Verilated CRC engine against the software CRC (`CrcKind::checksum`) at every width:
//! golden vectors, 10 000 random frames per width with random idle cycles, frame-boundary
//! cases, every tkeep value, throughput. Fails (does not skip) without Verilator.

use offload_driver::crc::CrcKind;
use offload_driver::{Offload, SoftwareOffload};
use offload_hdl::testbench::{run_crc_frames, CrcRun};
use offload_sim::{crc_model_info, with_trace_on_failure, SimError, Traffic, VerilatedModel, VerilatedOffload};
use rand::{Rng, SeedableRng};

const WIDTHS: [usize; 7] = [1, 2, 4, 8, 16, 32, 64];

fn info(kind: CrcKind, w: usize) -> &'static offload_sim::ModelInfo {
    crc_model_info(kind, w).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `frames` through the engine and compares every CRC with the software one; on a
/// mismatch the run is repeated with a VCD whose path is in the panic message.
fn check(kind: CrcKind, w: usize, label: &str, frames: &[Vec<u8>], traffic: &Traffic) -> CrcRun {
    let r = with_trace_on_failure(info(kind, w), label, |m| {
        let run = run_crc_frames(m, frames, traffic)?;
        for (i, (f, got)) in frames.iter().zip(&run.crcs).enumerate() {
            let want = kind.checksum(f);
            if *got != want {
                return Err(SimError::Failed(format!(
                    "{label}: frame {i} ({} octets): CRC {got:#x}, software {want:#x}",
                    f.len()
                )));
            }
        }
        Ok(run)
    });
    r.unwrap_or_else(|e| panic!("{e}"))
}

fn random_frames(seed: u64, n: usize, max_len: usize) -> Vec<Vec<u8>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let len = rng.gen_range(1..=max_len);
            let mut f = vec![0u8; len];
            rng.fill(&mut f[..]);
            f
        })
        .collect()
}

/// RFC 5044 Figure 5: the first FPDU of a stream (a Marker, then the FPDU), CRC 0x83992352.
fn rfc5044_figure5() -> Vec<u8> {
    let mut f = vec![0x00, 0x00, 0x00, 0x00, 0x00, 0x2a, 0x41, 0x43];
    f.extend([0u8; 8]);
    f.extend([0, 0, 0, 1]); // MSN = 1
    f.extend([0, 0, 0, 0]); // MO = 0
    f.extend([0u8; 24]);
    assert_eq!(f.len(), 48);
    f
}

#[test]
fn golden_vectors_at_every_width() {
    // (frame, CRC-32C). iSCSI vectors from RFC 3720 B.4 as stored on the wire, low byte first.
    let le = |b: [u8; 4]| u32::from_le_bytes(b) as u64;
    let vectors: Vec<(Vec<u8>, u64)> = vec![
        (b"123456789".to_vec(), 0xE306_9283),
        (vec![0u8; 32], le([0xaa, 0x36, 0x91, 0x8a])),
        (vec![0xFFu8; 32], le([0x43, 0xab, 0xa8, 0x62])),
        ((0u8..32).collect(), le([0x4e, 0x79, 0xdd, 0x46])),
        ((0u8..32).rev().collect(), le([0x5c, 0xdb, 0x3f, 0x11])),
        (rfc5044_figure5(), 0x8399_2352),
    ];
    let frames: Vec<Vec<u8>> = vectors.iter().map(|v| v.0.clone()).collect();
    for w in WIDTHS {
        let run = check(CrcKind::Crc32c, w, "golden", &frames, &Traffic::full_rate());
        for ((f, want), got) in vectors.iter().zip(&run.crcs) {
            assert_eq!(*got, *want, "W={w}, {} octets", f.len());
        }
    }
    // The other catalogue CRCs, at the widths they are built.
    for (kind, w) in [(CrcKind::Crc32, 8), (CrcKind::Crc8Smbus, 1), (CrcKind::Crc16Mcrf4xx, 1)] {
        let run = check(kind, w, "check", &[b"123456789".to_vec()], &Traffic::full_rate());
        assert_eq!(run.crcs[0], kind.params().check, "{kind:?}");
    }
}

/// 10 000 frames of 1..9000 octets with 25 % idle cycles, in one run per width.
fn random_at(w: usize) {
    let frames = random_frames(0xC0FFEE + w as u64, 10_000, 9000);
    let run = check(CrcKind::Crc32c, w, "random", &frames, &Traffic::random(0.25, 0.0, w as u64));
    assert_eq!(run.crcs.len(), 10_000);
    let bytes: u64 = frames.iter().map(|f| f.len() as u64).sum();
    assert_eq!(run.stream.accepted_bytes[0], bytes);
    // The idle cycles really happened (the driver did not silently run at full rate).
    let (a, b) = run.stream.accept_span[0].unwrap();
    assert!(b - a + 1 > run.stream.accepted_beats[0] * 5 / 4 - run.stream.accepted_beats[0] / 20);
}

#[test]
fn random_frames_w1() {
    random_at(1)
}
#[test]
fn random_frames_w2() {
    random_at(2)
}
#[test]
fn random_frames_w4() {
    random_at(4)
}
#[test]
fn random_frames_w8() {
    random_at(8)
}
#[test]
fn random_frames_w16() {
    random_at(16)
}
#[test]
fn random_frames_w32() {
    random_at(32)
}
#[test]
fn random_frames_w64() {
    random_at(64)
}

#[test]
fn crc32_random_frames_w8() {
    let frames = random_frames(32, 2_000, 2000);
    check(CrcKind::Crc32, 8, "crc32-random", &frames, &Traffic::random(0.1, 0.0, 1));
}

#[test]
fn one_octet_frames_back_to_back() {
    let frames = random_frames(1, 1000, 1);
    for w in WIDTHS {
        let run = check(CrcKind::Crc32c, w, "1-octet", &frames, &Traffic::full_rate());
        // One frame per clock: 1000 beats accepted in 1000 consecutive cycles.
        let (a, b) = run.stream.accept_span[0].unwrap();
        assert_eq!(b - a + 1, 1000, "W={w}");
    }
}

#[test]
fn every_tkeep_value_back_to_back_and_with_gaps() {
    for w in WIDTHS {
        // Lengths 1..=3W: every last-beat byte count after 0, 1 and 2 full beats.
        let mut rng = rand::rngs::StdRng::seed_from_u64(w as u64);
        let frames: Vec<Vec<u8>> =
            (1..=3 * w).map(|n| (0..n).map(|_| rng.gen()).collect()).collect();
        check(CrcKind::Crc32c, w, "tkeep", &frames, &Traffic::full_rate());
        check(CrcKind::Crc32c, w, "tkeep-gaps", &frames, &Traffic::random(0.5, 0.0, 7));
    }
}

#[test]
fn throughput_is_w_octets_per_clock_and_no_bubble_between_frames() {
    for w in WIDTHS {
        // Long frames, whole beats, back to back: every cycle of the run accepts W octets.
        let frames = random_frames(9, 8, 1)
            .into_iter()
            .enumerate()
            .map(|(i, _)| vec![i as u8; w * (9000 / w)])
            .collect::<Vec<_>>();
        let run = check(CrcKind::Crc32c, w, "throughput", &frames, &Traffic::full_rate());
        let (a, b) = run.stream.accept_span[0].unwrap();
        let cycles = b - a + 1;
        assert_eq!(run.stream.accepted_bytes[0], w as u64 * cycles, "W={w}: octets per clock");
        assert_eq!(run.stream.input_stalls, 0, "W={w}: tready never low");
        // Short frames with partial last beats: still one beat per cycle across boundaries.
        let short = random_frames(10, 200, 3 * w);
        let run = check(CrcKind::Crc32c, w, "short", &short, &Traffic::full_rate());
        let (a, b) = run.stream.accept_span[0].unwrap();
        assert_eq!(b - a + 1, run.stream.accepted_beats[0], "W={w}: bubble between frames");
    }
}

#[test]
fn a_failing_case_leaves_a_vcd() {
    let r: Result<(), SimError> = with_trace_on_failure(info(CrcKind::Crc32c, 8), "deliberate", |m| {
        run_crc_frames(m, &[b"123456789".to_vec()], &Traffic::full_rate())?;
        Err(SimError::Failed("deliberate failure".into()))
    });
    let msg = r.unwrap_err().to_string();
    assert!(msg.contains("deliberate failure"), "{msg}");
    let path = msg.split("VCD of the failing run: ").nth(1).expect("no VCD path in message").trim();
    let vcd = std::fs::read_to_string(path).unwrap();
    assert!(vcd.contains("$enddefinitions") && vcd.contains("crc_valid"), "not a VCD of the model: {path}");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn verilated_offload_matches_software() {
    let mut sim = VerilatedOffload::new().unwrap_or_else(|e| panic!("{e}"));
    let data = random_frames(5, 1, 3000).remove(0);
    for kind in CrcKind::ALL {
        for d in [&b"123456789"[..], &data[..], &data[..1]] {
            assert_eq!(sim.crc(kind, d).unwrap(), SoftwareOffload.crc(kind, d).unwrap(), "{kind:?}");
        }
    }
    assert_eq!(sim.backend(), "sim");
}

#[test]
fn model_ports_are_the_rust_hdl_ports() {
    for e in offload_hdl::catalogue() {
        let m = VerilatedModel::by_name(&e.name).unwrap_or_else(|err| panic!("{err}"));
        let g = e.generate();
        let built: Vec<(&str, usize)> = m.info().ports.iter().map(|p| (p.name, p.width)).collect();
        let hdl: Vec<(&str, usize)> = g.ports.iter().map(|p| (p.name.as_str(), p.width)).collect();
        assert_eq!(built, hdl, "{}", e.name);
    }
}

/// rust-hdl's simulation of the engine and the Verilated Verilog emitted from it, on the same
/// random frames over the traffic grid, every output compared every cycle (and both against
/// the software CRC), at the widths and CRCs the registry ships.
#[test]
fn rust_hdl_and_verilated_verilog_agree_cycle_by_cycle() {
    use offload_hdl::crc::hdl_model;
    use offload_hdl::testbench::{random_frames as frames_of, traffic_grid, Lockstep};
    fn run<const D: usize, const K: usize, const C: usize, const S: usize, const S1: usize, const P: usize>(kind: CrcKind, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut cycles = 0;
        for t in traffic_grid(seed) {
            let a = hdl_model::<D, K, C, S, S1, P>(kind).unwrap();
            let b = VerilatedModel::new(info(kind, K));
            let mut l = Lockstep::new(a, b).unwrap();
            let frames = frames_of(&mut rng, 60, 1, 40 * K);
            let r = run_crc_frames(&mut l, &frames, &t).unwrap_or_else(|e| panic!("{kind:?} W={K}: {e}"));
            l.check().unwrap_or_else(|e| panic!("{kind:?} W={K}, {t:?}: {e}"));
            let want: Vec<u64> = frames.iter().map(|f| kind.checksum(f)).collect();
            assert_eq!(r.crcs, want, "{kind:?} W={K}");
            cycles += l.compared_cycles();
        }
        cycles
    }
    let mut total = 0;
    total += run::<8, 1, 32, 0, 1, 1>(CrcKind::Crc32c, 1);
    total += run::<32, 4, 32, 2, 3, 1>(CrcKind::Crc32c, 4);
    total += run::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c, 8);
    total += run::<512, 64, 32, 6, 7, 8>(CrcKind::Crc32c, 64);
    total += run::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32, 9);
    total += run::<8, 1, 8, 0, 1, 1>(CrcKind::Crc8Smbus, 10);
    total += run::<8, 1, 16, 0, 1, 1>(CrcKind::Crc16Mcrf4xx, 11);
    eprintln!("{total} cycles compared, every output equal");
    assert!(total > 20_000, "{total} cycles compared");
}
