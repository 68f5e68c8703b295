//! The CRC engine in rust-hdl's own simulator (slow, ~10^4 clocks/s: short cases only; the
//! long random runs are the Verilator tests in `offload-sim`). Checks against the software CRC
//! (`CrcKind::checksum`) and the output timing: `crc_valid` pulses exactly in the cycle after
//! each accepted last beat.

use offload_driver::crc::CrcKind;
use offload_hdl::crc::{bytes_to_bits, CrcEngine};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

#[derive(Clone, Debug)]
struct Beat {
    data: Vec<u8>,
    keep: u64,
    last: bool,
    /// Idle cycles (tvalid low) before this beat.
    gap: usize,
}

/// Splits frames into W-byte beats (last one partial), no gaps.
fn beats_of(frames: &[Vec<u8>], w: usize) -> Vec<Beat> {
    let mut out = Vec::new();
    for f in frames {
        let n = f.len().div_ceil(w);
        for (i, c) in f.chunks(w).enumerate() {
            let mut data = c.to_vec();
            data.resize(w, 0xA5); // junk in invalid bytes: must be ignored
            let keep = if c.len() == 64 { u64::MAX } else { (1u64 << c.len()) - 1 };
            out.push(Beat { data, keep, last: i + 1 == n, gap: 0 });
        }
    }
    out
}

#[derive(Default, Debug)]
struct Observed {
    /// (cycle, crc) for each cycle crc_valid was high.
    crcs: Vec<(usize, u64)>,
    /// Cycle at which each last beat was accepted.
    last_accepted: Vec<usize>,
    ready_in_reset: bool,
    ready_after_reset: bool,
}

fn run<const D: usize, const K: usize, const C: usize>(kind: CrcKind, beats: Vec<Beat>) -> Observed {
    let uut = CrcEngine::<D, K, C>::new(kind);
    let obs = Arc::new(Mutex::new(Observed::default()));
    let o = obs.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<CrcEngine<D, K, C>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<CrcEngine<D, K, C>>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        o.lock().unwrap().ready_in_reset = x.tready.val();
        x.reset.next = false;
        wait_clock_cycle!(sim, clock, x);
        o.lock().unwrap().ready_after_reset = x.tready.val();
        let mut cycle = 0usize;
        let record = |x: &CrcEngine<D, K, C>, cycle: usize| {
            if x.crc_valid.val() {
                let c = x.crc.val();
                let v = (0..C).fold(0u64, |a, i| a | ((c.get_bit(i) as u64) << i));
                o.lock().unwrap().crcs.push((cycle, v));
            }
        };
        for b in beats.iter() {
            for _ in 0..b.gap {
                x.tvalid.next = false;
                wait_clock_cycle!(sim, clock, x);
                cycle += 1;
                record(&x, cycle);
            }
            x.tdata.next = bytes_to_bits::<D>(&b.data);
            x.tkeep.next = bytes_to_bits::<K>(&b.keep.to_le_bytes());
            x.tlast.next = b.last;
            x.tvalid.next = true;
            let accepted = x.tready.val();
            wait_clock_cycle!(sim, clock, x);
            assert!(accepted, "tready low out of reset");
            if b.last {
                o.lock().unwrap().last_accepted.push(cycle);
            }
            cycle += 1;
            record(&x, cycle);
        }
        x.tvalid.next = false;
        for _ in 0..3 {
            wait_clock_cycle!(sim, clock, x);
            cycle += 1;
            record(&x, cycle);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000_000).expect("simulation failed");
    Arc::try_unwrap(obs).unwrap().into_inner().unwrap()
}

/// Runs `frames` and checks every CRC and the fixed latency of 1.
fn check<const D: usize, const K: usize, const C: usize>(kind: CrcKind, frames: &[Vec<u8>], beats: Vec<Beat>) {
    let o = run::<D, K, C>(kind, beats);
    assert!(!o.ready_in_reset, "tready must be low in reset");
    assert!(o.ready_after_reset, "tready must be high out of reset");
    let got: Vec<u64> = o.crcs.iter().map(|c| c.1).collect();
    let want: Vec<u64> = frames.iter().map(|f| kind.checksum(f)).collect();
    assert_eq!(got, want, "{kind:?} W={K}");
    let valid_cycles: Vec<usize> = o.crcs.iter().map(|c| c.0).collect();
    let expect: Vec<usize> = o.last_accepted.iter().map(|c| c + 1).collect();
    assert_eq!(valid_cycles, expect, "crc_valid must pulse the cycle after each last beat");
}

#[test]
fn golden_123456789_crc32c_at_several_widths() {
    let f = vec![b"123456789".to_vec()];
    for (w, o) in [
        (1, run::<8, 1, 32>(CrcKind::Crc32c, beats_of(&f, 1))),
        (4, run::<32, 4, 32>(CrcKind::Crc32c, beats_of(&f, 4))),
        (8, run::<64, 8, 32>(CrcKind::Crc32c, beats_of(&f, 8))),
        (64, run::<512, 64, 32>(CrcKind::Crc32c, beats_of(&f, 64))),
    ] {
        assert_eq!(o.crcs.len(), 1, "W={w}");
        assert_eq!(o.crcs[0].1, 0xE306_9283, "W={w}");
    }
}

#[test]
fn every_tkeep_value_at_w8_back_to_back() {
    // Lengths 1..=17: every last-beat byte count 1..8, after 0, 1 and 2 full beats, with
    // frames back to back (no idle cycle) so a frame's last beat is followed by the next
    // frame's first.
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let frames: Vec<Vec<u8>> =
        (1..=17).map(|n| (0..n).map(|_| rng.gen()).collect()).collect();
    check::<64, 8, 32>(CrcKind::Crc32c, &frames, beats_of(&frames, 8));
}

#[test]
fn null_last_beat_and_gaps_at_w8() {
    // A frame of exactly 16 bytes whose tlast comes on a beat with tkeep = 0, then frames
    // with idle cycles between beats.
    let frames = vec![(0u8..16).collect::<Vec<u8>>(), b"123456789".to_vec(), vec![0xFF; 3]];
    let mut beats = beats_of(&frames[..1], 8);
    beats[1].last = false;
    beats.push(Beat { data: vec![0x5A; 8], keep: 0, last: true, gap: 0 });
    let mut rest = beats_of(&frames[1..], 8);
    for (i, b) in rest.iter_mut().enumerate() {
        b.gap = i % 3;
    }
    beats.extend(rest);
    check::<64, 8, 32>(CrcKind::Crc32c, &frames, beats);
}

#[test]
fn other_catalogue_crcs() {
    let f = vec![b"123456789".to_vec(), vec![0u8; 5], b"x".to_vec()];
    check::<64, 8, 32>(CrcKind::Crc32, &f, beats_of(&f, 8));
    check::<8, 1, 8>(CrcKind::Crc8Smbus, &f, beats_of(&f, 1));
    check::<16, 2, 16>(CrcKind::Crc16Mcrf4xx, &f, beats_of(&f, 2));
    check::<8, 1, 16>(CrcKind::Crc16Mcrf4xx, &f, beats_of(&f, 1));
}
