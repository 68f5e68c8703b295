//! The receiver in rust-hdl's own simulator, driven by the project testbench (short runs; the
//! long ones are the Verilator co-simulation in `offload-sim`): RFC 5044 Figures 5 and 6 in
//! every segmentation, random streams and single-bit flips against the software `Deframer`
//! over the traffic grid, and the input rate.

use super::hdl_model;
use crate::testbench::{
    compare_with_deframer as compare, continue_mpa_rx, random_segments, rfc5044_figure_streams as figure_streams, run_mpa_rx,
    traffic_grid, BenchError, Hooked, Traffic,
};
use offload_driver::mpa::FramingConfig;
use offload_driver::{Offload, SoftwareOffload};
use rand::{Rng, SeedableRng};


fn figures<const D: usize, const K: usize, const D2: usize>() {
    let cfg = FramingConfig::default();
    let mut m = hdl_model::<D, K, D2>().unwrap();
    for (offset, stream, ulpdu) in figure_streams() {
        assert_eq!(stream.len(), 52);
        for seg in [1, 3, 5, 8, 13, 52] {
            let segments: Vec<Vec<u8>> = stream.chunks(seg).map(|c| c.to_vec()).collect();
            let r = run_mpa_rx(&mut m, &cfg, offset, &segments, &Traffic::full_rate()).unwrap();
            assert_eq!(
                r.good(),
                vec![ulpdu.clone()],
                "W={K} offset {offset:#x} segments of {seg}"
            );
            assert_eq!(
                (r.error, r.idle, r.counters[0]),
                (0, true, 1),
                "W={K} offset {offset:#x}"
            );
            assert_eq!(r.frames[0].len, 42);
        }
        // The CRC's last octet flipped: the frame closes bad, status names the FPDU's start.
        let mut bad = stream.clone();
        bad[51] ^= 0x80;
        let r = run_mpa_rx(&mut m, &cfg, offset, &[bad.clone()], &Traffic::full_rate()).unwrap();
        assert!(
            r.good().is_empty() && r.frames.len() == 1 && r.frames[0].bad,
            "W={K}"
        );
        let good_crc = u32::from_le_bytes(stream[48..52].try_into().unwrap());
        assert_eq!(
            r.hw_error,
            Some(offload_driver::mpa::MpaError::BadCrc { offset, computed: good_crc, found: good_crc ^ 0x8000_0000 }),
            "W={K}"
        );
        compare(&r, cfg, offset, &bad).unwrap();
    }
}

#[test]
fn rfc5044_figures_5_and_6_deframe_to_their_ulpdus() {
    figures::<64, 8, 128>();
    figures::<512, 64, 1024>();
}

/// An empty segment (a `tlast` beat with no octet) between segments changes nothing: it counts
/// 0 octets, and at W = 64 shifts `c`'s thermometer by 0 words whatever `c mod 4` is (the
/// input skid's one-hot of `⌊(count + b)/4⌋` has a bit for a count of 0 too).
#[test]
fn empty_segments_change_nothing() {
    fn run<const D: usize, const K: usize, const D2: usize>() {
        let cfg = FramingConfig::default();
        let mut m = hdl_model::<D, K, D2>().unwrap();
        for (offset, stream, ulpdu) in figure_streams() {
            for seg in [1, 3, 5, 13] {
                let segments: Vec<Vec<u8>> = stream.chunks(seg).flat_map(|c| [c.to_vec(), Vec::new()]).collect();
                let r = run_mpa_rx(&mut m, &cfg, offset, &segments, &Traffic::full_rate()).unwrap();
                assert_eq!(r.good(), vec![ulpdu.clone()], "W={K} offset {offset:#x} segments of {seg}");
                compare(&r, cfg, offset, &stream).unwrap();
            }
        }
    }
    run::<64, 8, 128>();
    run::<512, 64, 1024>();
}

/// Random ULPDUs framed by the software framer from random offsets and configurations, in
/// random segments over the traffic grid; every third run has one bit flipped. Returns the
/// clocks in which the CRC stage held a short beat inside an FPDU (`hold`, the ring form's only
/// stall: `crc_check.rs`, item 3 of its module doc), over all rounds, so that a test can assert
/// its traffic takes that path, not just that the results match.
fn random<const D: usize, const K: usize, const D2: usize>(rounds: usize, max_ulpdus: usize) -> Result<u64, BenchError> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5044 + K as u64);
    let mut holds = 0;
    for round in 0..rounds {
        let cfg = FramingConfig {
            markers: round % 4 != 3,
            crc: round % 5 != 4,
            mulpdu: [128, 300, 1442, 9000][round % 4],
        };
        let offset = rng.gen_range(0..16384u64) * 4;
        let ulpdus: Vec<Vec<u8>> = (0..rng.gen_range(1..=max_ulpdus))
            .map(|_| {
                let len = if rng.gen_ratio(1, 4) {
                    rng.gen_range(1..=8)
                } else {
                    rng.gen_range(1..=cfg.mulpdu.min(700))
                };
                (0..len).map(|_| rng.gen()).collect()
            })
            .collect();
        let mut stream = SoftwareOffload.mpa_frame(&cfg, offset, &ulpdus).unwrap();
        if round % 3 == 2 {
            let bit = rng.gen_range(0..stream.len() * 8);
            stream[bit / 8] ^= 1 << (bit % 8);
        }
        let segments = random_segments(&mut rng, &stream, 3 * K);
        let traffic = traffic_grid(round as u64)[round % 4].clone();
        // (`hold` is a function of registers only, settled since the last edge.)
        let mut m = Hooked::new(hdl_model::<D, K, D2>()?, |_, v| v, |m| holds += m.uut.crcc.hold.val() as u64);
        let r = run_mpa_rx(&mut m, &cfg, offset, &segments, &traffic)?;
        compare(&r, cfg, offset, &stream)
            .unwrap_or_else(|e| panic!("W={K} round {round} offset {offset} {cfg:?}: {e}"));
    }
    Ok(holds)
}

#[test]
fn random_streams_and_bit_flips_match_the_software_deframer_w8() {
    // The masked form runs at W = 8 too (stop 89): its held beat's path is exercised there.
    let holds = random::<64, 8, 128>(16, 12).unwrap();
    assert!(holds > 0, "no short beat was held inside an FPDU: the traffic no longer reaches `hold`");
}

#[test]
fn random_streams_and_bit_flips_match_the_software_deframer_w64() {
    // The segments' ends and the traffic grid's gaps leave the aligner short inside FPDUs
    // (with one whole segment at full rate it holds none): the held beat's path
    // (its own lanes a clock later) is exercised, not only the full beat's.
    let holds = random::<512, 64, 1024>(6, 8).unwrap();
    assert!(holds > 0, "no short beat was held inside an FPDU: the traffic no longer reaches `hold`");
}

/// The latency the docs state ([`super::latency`], docs/TOP.md): a one-beat FPDU's frame ends
/// exactly that many clocks after its beat is accepted, at W = 8 and 64, with and without a
/// leading Marker (12 octets: one beat at W = 64 only).
#[test]
fn latency_is_the_documented_one() {
    fn run<const D: usize, const K: usize, const D2: usize>(markers: bool) {
        let cfg = FramingConfig { markers, ..FramingConfig::default() };
        // A 2-octet ULPDU: header, ULPDU and CRC are an 8-octet FPDU at offset 4; with
        // Markers at offset 0, behind a leading Marker (12 octets).
        let offset = if markers { 0 } else { 4 };
        let ulpdu = vec![7, 9];
        let stream = SoftwareOffload.mpa_frame(&cfg, offset, std::slice::from_ref(&ulpdu)).unwrap();
        let mut m = hdl_model::<D, K, D2>().unwrap();
        let r = run_mpa_rx(&mut m, &cfg, offset, std::slice::from_ref(&stream), &Traffic::full_rate()).unwrap();
        assert_eq!(r.good(), vec![ulpdu], "W={K}");
        let (in_at, last_in) = r.stream.accept_span[0].unwrap();
        assert_eq!(in_at, last_in, "W={K}: one input beat");
        let out = r.stream.output_last_cycles[0][0];
        assert_eq!(out - last_in, super::latency(K), "W={K} markers {markers}: last input beat at {last_in}, tlast at {out}");
    }
    run::<64, 8, 128>(false);
    run::<512, 64, 1024>(false);
    run::<512, 64, 1024>(true);
}

/// With input always valid and output always ready, 4 KiB FPDUs go in at ≥ 0.95·W octets per
/// clock.
#[test]
fn input_rate_on_4k_fpdus() {
    fn rate<const D: usize, const K: usize, const D2: usize>(n: usize) -> f64 {
        let cfg = FramingConfig::full(8192);
        let ulpdus: Vec<Vec<u8>> = (0..n).map(|k| vec![k as u8; 4096]).collect();
        let stream = SoftwareOffload.mpa_frame(&cfg, 0, &ulpdus).unwrap();
        let mut m = hdl_model::<D, K, D2>().unwrap();
        let r = run_mpa_rx(&mut m, &cfg, 0, std::slice::from_ref(&stream), &Traffic::full_rate()).unwrap();
        compare(&r, cfg, 0, &stream).unwrap();
        let (first, last) = r.stream.accept_span[0].unwrap();
        r.stream.accepted_bytes[0] as f64 / (last - first + 1) as f64
    }
    let w8 = rate::<64, 8, 128>(6);
    let w64 = rate::<512, 64, 1024>(6);
    eprintln!("input rate on 4 KiB FPDUs: W=8 {w8:.3}, W=64 {w64:.3} octets/clock");
    assert!(w8 >= 0.95 * 8.0, "W=8: {w8:.3}");
    assert!(w64 >= 0.95 * 64.0, "W=64: {w64:.3}");
}

/// The software judges ULPDU_Length as soon as its two octets are in, and a leading Marker as
/// soon as it is; so does the block when the field is bad, though the rest of the FPDU's first
/// words never comes (both found by the fuzz target: streams `f6 fa` and `00 0a 95 a7`).
#[test]
fn a_bad_first_field_is_reported_as_soon_as_it_is_in() {
    fn run<const D: usize, const K: usize, const D2: usize>() {
        let cfg = FramingConfig { markers: true, crc: true, mulpdu: 300 };
        // A bad length alone, behind a leading Marker, a zero length; a bad leading Marker alone
        // (41984 = 82 · 512, FPDUPTR 0x95a7) and one whose low two bits alone are set (good).
        for (offset, stream) in [
            (236u64, vec![0xf6, 0xfa]),
            (0, vec![0, 0, 0, 0, 0x01, 0x2d]),
            (4, vec![0, 0]),
            (41984, vec![0x00, 0x0a, 0x95, 0xa7]),
            (512, vec![0, 0, 0, 3]),
        ] {
            let mut m = hdl_model::<D, K, D2>().unwrap();
            let r = run_mpa_rx(&mut m, &cfg, offset, std::slice::from_ref(&stream), &Traffic::full_rate()).unwrap();
            compare(&r, cfg, offset, &stream).unwrap_or_else(|e| panic!("W={K} offset {offset}: {e}"));
            assert_eq!(r.hw_error.is_some(), offset != 512, "W={K} offset {offset}");
        }
    }
    run::<64, 8, 128>();
    run::<512, 64, 1024>();
}

/// A reset while beats are offered, in flight and held back, for one clock and for three: the
/// input is not ready in reset (nothing offered then is taken), every stage empties (nothing
/// comes out, the status is idle with no error, the counters are zero), and the stream that
/// follows, at the offset the reset loaded, deframes as the software does. The stages behind the
/// input skid buffer ignore the reset in their ready (`AxisStageSkid`, no reset in the aligner's
/// and the check stage's), so beats move between them in the reset clock: this says it is
/// harmless.
#[test]
fn a_reset_mid_stream_empties_every_stage() {
    fn run<const D: usize, const K: usize, const D2: usize>() {
        use crate::testbench::mpa_tx::set_framing_config;
        use crate::testbench::ClockedModel;
        let mut rng = rand::rngs::StdRng::seed_from_u64(26 + K as u64);
        let cfg = FramingConfig { markers: true, crc: true, mulpdu: 300 };
        let frame = |offset: u64, rng: &mut rand::rngs::StdRng| {
            let ulpdus: Vec<Vec<u8>> = (0..4).map(|_| (0..rng.gen_range(1..=300)).map(|_| rng.gen()).collect()).collect();
            SoftwareOffload.mpa_frame(&cfg, offset, &ulpdus).unwrap()
        };
        let mut m = hdl_model::<D, K, D2>().unwrap();
        let p = |n: &str| m.port_id(n).unwrap();
        let (reset, s_data, s_keep, s_valid, s_last, s_ready) =
            (p("reset"), p("s_tdata"), p("s_tkeep"), p("s_tvalid"), p("s_tlast"), p("s_tready"));
        let (m_valid, m_ready, idle, error, fpdus) =
            (p("m_tvalid"), p("m_tready"), p("status_idle"), p("status_error"), p("counters_fpdus"));
        for (round, hold) in [1usize, 3].into_iter().enumerate() {
            let old = frame(0, &mut rng);
            let beat = |at: usize| &old[at.min(old.len())..(at + K).min(old.len())];
            set_framing_config(&mut m, &cfg, 0).unwrap();
            m.reset(2);
            // The old stream's beats back to back, the output held back for the first 20 clocks.
            let mut at = 0;
            m.set(s_keep, crate::bits::low_ones(K));
            m.set(s_last, 0);
            m.set(s_valid, 1);
            for c in 0..20 + 3 * round {
                m.set(m_ready, (c >= 12) as u64);
                m.set_bytes(s_data, beat(at));
                m.eval();
                if m.get(s_ready) != 0 {
                    at += K;
                }
                m.tick();
            }
            assert!(at > 0, "W={K}: nothing taken before the reset");
            // The new stream's offset, loaded by the reset; a beat offered, the output ready.
            let offset = 4 * rng.gen_range(0..4096u64);
            set_framing_config(&mut m, &cfg, offset).unwrap();
            m.set(m_ready, 1);
            m.set(reset, 1);
            for _ in 0..hold {
                m.set_bytes(s_data, beat(at));
                m.eval();
                assert_eq!(m.get(s_ready), 0, "W={K}: ready in reset");
                m.tick();
            }
            m.set(reset, 0);
            m.set(s_valid, 0);
            for c in 0..2 * super::LATENCY {
                m.eval();
                assert_eq!(m.get(m_valid), 0, "W={K} reset of {hold}: a beat out {c} clocks after it");
                assert_eq!((m.get(idle), m.get(error), m.get(fpdus)), (1, 0, 0), "W={K} reset of {hold}");
                m.tick();
            }
            let new = frame(offset, &mut rng);
            let segments = random_segments(&mut rng, &new, 3 * K);
            let r = continue_mpa_rx(&mut m, offset, &segments, &Traffic::full_rate()).unwrap();
            compare(&r, cfg, offset, &new).unwrap_or_else(|e| panic!("W={K} reset of {hold}: {e}"));
            assert_eq!(r.good().len(), 4, "W={K} reset of {hold}");
        }
    }
    run::<64, 8, 128>();
    run::<512, 64, 1024>();
}

/// `status_idle` is "between FPDUs, nothing held": low from the clock after an FPDU's first
/// octet is taken until its frame's `tlast` has left, high otherwise. The stream goes in as
/// 8-octet segments (each with `tlast`), back to back with the output held back (beats wait in
/// every stage) and 24 clocks apart with the output always ready (each FPDU passes every stage
/// alone). The input skid buffer, the check stage's output and the output skid buffer were not
/// in it until stop 80. Removing the term of any of those, the aligner's or the CRC stage's
/// fails this test; the `mid`, prep, `pskid` and check-state terms are, in every clock of
/// these runs, covered by a neighbour's (a beat is never alone in them while the others say
/// idle), and stay so that the contract does not rest on that.
#[test]
fn idle_means_nothing_is_held() {
    fn run<const D: usize, const K: usize, const D2: usize>(gap: usize) {
        use crate::testbench::mpa_tx::set_framing_config;
        use crate::testbench::ClockedModel;
        let cfg = FramingConfig { markers: false, crc: true, mulpdu: 300 };
        // FPDUs of 8, 8 and 36 octets at offset 4: the first two one segment each.
        let ulpdus = vec![vec![7, 9], vec![1, 2], (0..30).collect::<Vec<u8>>()];
        let stream = SoftwareOffload.mpa_frame(&cfg, 4, &ulpdus).unwrap();
        let starts = [0, 8, 16];
        assert_eq!(stream.len(), 52);
        let mut m = hdl_model::<D, K, D2>().unwrap();
        let p = |n: &str| m.port_id(n).unwrap();
        let (s_data, s_keep, s_valid, s_last, s_ready) =
            (p("s_tdata"), p("s_tkeep"), p("s_tvalid"), p("s_tlast"), p("s_tready"));
        let (m_valid, m_ready, m_last, idle) = (p("m_tvalid"), p("m_tready"), p("m_tlast"), p("status_idle"));
        set_framing_config(&mut m, &cfg, 4).unwrap();
        m.reset(2);
        let (mut at, mut frames, mut wait) = (0, 0, 3usize);
        m.set(s_last, 1);
        for c in 0..400 {
            let segment = &stream[at.min(stream.len())..(at + 8).min(stream.len())];
            m.set(s_valid, (wait == 0 && at < stream.len()) as u64);
            m.set_bytes(s_data, segment);
            m.set(s_keep, crate::bits::low_ones(segment.len()));
            // Back to back: held back for 30 clocks, then ready one clock in three.
            m.set(m_ready, (gap > 0 || (c >= 30 && c % 3 == 0)) as u64);
            m.eval();
            let started = starts.iter().filter(|&&s| s < at).count();
            let held = frames < started;
            assert_eq!(m.get(idle), !held as u64, "W={K} gap {gap}, clock {c}: {frames} frames out, {at} octets in");
            wait = wait.saturating_sub(1);
            if m.get(s_valid) != 0 && m.get(s_ready) != 0 {
                at += 8;
                wait = gap;
            }
            if m.get(m_valid) != 0 && m.get(m_ready) != 0 && m.get(m_last) != 0 {
                frames += 1;
            }
            m.tick();
        }
        assert_eq!(frames, ulpdus.len(), "W={K} gap {gap}");
    }
    for gap in [0, 24] {
        run::<64, 8, 128>(gap);
        run::<512, 64, 1024>(gap);
    }
}

/// Every Marker phase at the start: the stream's first octet at each of the 128 word offsets
/// of the Marker interval (plus whole intervals, so that the offset's high bits vary), so the
/// first Marker is due in every lane of the first beats: the Marker position the reset loads,
/// for every value (the random streams draw 16 offsets at W = 8). The flags the reset loads
/// beside it (`mpos < j`, `mpos < N`, `mpos = 0`) no stream can see: the aligner recomputes
/// them from the position in the clock after the reset, before the input skid can hand it a
/// beat (stop 52: both off-by-one mutations pass every test).
#[test]
fn every_marker_phase_at_the_start() {
    fn run<const D: usize, const K: usize, const D2: usize>() {
        let cfg = FramingConfig { markers: true, crc: true, mulpdu: 300 };
        let mut rng = rand::rngs::StdRng::seed_from_u64(512 + K as u64);
        let mut m = hdl_model::<D, K, D2>().unwrap();
        for w in 0..128u64 {
            let offset = 512 * rng.gen_range(0..64u64) + 4 * w;
            let ulpdus: Vec<Vec<u8>> =
                (0..3).map(|_| (0..rng.gen_range(1..=24)).map(|_| rng.gen()).collect()).collect();
            let stream = SoftwareOffload.mpa_frame(&cfg, offset, &ulpdus).unwrap();
            let segments = random_segments(&mut rng, &stream, 3 * K);
            let r = run_mpa_rx(&mut m, &cfg, offset, &segments, &Traffic::full_rate()).unwrap();
            compare(&r, cfg, offset, &stream).unwrap_or_else(|e| panic!("W={K} offset {offset}: {e}"));
            assert_eq!(r.good(), ulpdus, "W={K} offset {offset}");
        }
    }
    run::<64, 8, 128>();
    run::<512, 64, 1024>();
}

/// A stream that runs dry inside its FPDUs (segments of a few octets at W = 64, so the
/// aligner sends short beats the CRC stage holds a clock each) delays the frame's `tlast` by
/// at most [`super::DRY_EXTRA`] clocks more than [`super::latency`] after the last input beat,
/// the bound the testbench's drain rests on; whole-beat segments by none.
#[test]
fn a_dry_input_delays_the_verdict_within_the_bound() {
    fn run<const D: usize, const K: usize, const D2: usize>() -> u64 {
        let cfg = FramingConfig::default();
        let mut m = hdl_model::<D, K, D2>().unwrap();
        let mut worst = 0;
        for (offset, stream, ulpdu) in figure_streams() {
            for seg in [1, 2, 3, 5, 8, 13, 52] {
                let segments: Vec<Vec<u8>> = stream.chunks(seg).map(|c| c.to_vec()).collect();
                let traffic = Traffic { drain_cycles: 4 * super::LATENCY, ..Traffic::full_rate() };
                let r = run_mpa_rx(&mut m, &cfg, offset, &segments, &traffic).unwrap();
                assert_eq!(r.good(), vec![ulpdu.clone()], "W={K} offset {offset:#x} segments of {seg}");
                let last_in = r.stream.accept_span.iter().flatten().map(|s| s.1).max().unwrap();
                let delay = r.stream.output_last_cycles[0][0] - last_in;
                assert!(
                    delay <= super::latency(K) + super::DRY_EXTRA,
                    "W={K} offset {offset:#x} segments of {seg}: tlast {delay} clocks after the last input beat"
                );
                worst = worst.max(delay - super::latency(K).min(delay));
            }
        }
        worst
    }
    run::<64, 8, 128>();
    // The bound is what W = 64 needs, not slack: its worst case uses most of it.
    assert!(run::<512, 64, 1024>() + 2 >= super::DRY_EXTRA, "DRY_EXTRA is looser than W = 64 needs");
}
