//! The CRC engine in rust-hdl's own simulator, driven by the project testbench (short runs;
//! the 10 000-frame runs are the Verilator co-simulation in `offload-sim`): the check value at
//! several widths, every last-beat `tkeep`, a null last beat, gaps and back-pressure-free
//! back-to-back frames, the other catalogue CRCs. `run_crc_frames` also checks the contract
//! every cycle: `tready` high out of reset, `crc_valid` exactly one cycle after each last beat.

use super::hdl_model;
use crate::testbench::{random_frames, run_crc_frames, traffic_grid, ClockedModel, Traffic};
use offload_driver::crc::CrcKind;
use rand::SeedableRng;

fn check<const D: usize, const K: usize, const C: usize, const S: usize, const S1: usize, const P: usize>(kind: CrcKind, frames: &[Vec<u8>], traffic: &Traffic) {
    let mut m = hdl_model::<D, K, C, S, S1, P>(kind).unwrap();
    let r = run_crc_frames(&mut m, frames, traffic).unwrap_or_else(|e| panic!("{kind:?} W={K}: {e}"));
    let want: Vec<u64> = frames.iter().map(|f| kind.checksum(f)).collect();
    assert_eq!(r.crcs, want, "{kind:?} W={K}");
}

#[test]
fn check_value_at_several_widths() {
    let f = [b"123456789".to_vec()];
    check::<8, 1, 32, 0, 1, 1>(CrcKind::Crc32c, &f, &Traffic::full_rate());
    check::<32, 4, 32, 2, 3, 1>(CrcKind::Crc32c, &f, &Traffic::full_rate());
    check::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c, &f, &Traffic::full_rate());
    check::<512, 64, 32, 6, 7, 8>(CrcKind::Crc32c, &f, &Traffic::full_rate());
    assert_eq!(CrcKind::Crc32c.checksum(b"123456789"), 0xE306_9283);
}

#[test]
fn every_tkeep_value_back_to_back_and_over_the_traffic_grid() {
    // Lengths 1..=17: every last-beat octet count after 0, 1 and 2 full beats, back to back.
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let frames: Vec<Vec<u8>> = (1..=17).map(|n| random_frames(&mut rng, 1, n, n).remove(0)).collect();
    check::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c, &frames, &Traffic::full_rate());
    for (i, t) in traffic_grid(3).iter().enumerate() {
        let frames = random_frames(&mut rng, 20, 1, 100);
        check::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c, &frames, t);
        check::<32, 4, 32, 2, 3, 1>(CrcKind::Crc32c, &frames, &traffic_grid(i as u64)[3]);
    }
}

/// A 16-octet frame whose `tlast` comes on a third beat with `tkeep = 0` (a null beat: the CRC
/// of what came before), then a normal frame.
#[test]
fn null_last_beat() {
    let mut m = hdl_model::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c).unwrap();
    let p = |n: &str| m.port_id(n).unwrap();
    let (data, keep, valid, last, crc, crc_valid) =
        (p("s_tdata"), p("s_tkeep"), p("s_tvalid"), p("s_tlast"), p("crc"), p("crc_valid"));
    m.reset(2);
    let frame: Vec<u8> = (0u8..16).collect();
    let beats = [(&frame[..8], 0xFF, false), (&frame[8..], 0xFF, false), (&[0x5Au8; 8][..], 0, true)];
    let mut got = Vec::new();
    for (d, k, l) in beats.iter().chain([(&b"12345678"[..], 0xFF, false), (&b"9\0\0\0\0\0\0\0"[..], 1, true)].iter()) {
        m.set_bytes(data, d);
        m.set(keep, *k);
        m.set(last, *l as u64);
        m.set(valid, 1);
        m.eval();
        m.tick();
        m.set(valid, 0);
        m.eval();
        if m.get(crc_valid) == 1 {
            got.push(m.get(crc));
        }
    }
    for _ in 0..super::latency(8) {
        m.tick();
        m.eval();
        if m.get(crc_valid) == 1 {
            got.push(m.get(crc));
        }
    }
    assert_eq!(got, vec![CrcKind::Crc32c.checksum(&frame), 0xE306_9283]);
}

#[test]
fn other_catalogue_crcs() {
    let f = [b"123456789".to_vec(), vec![0u8; 5], b"x".to_vec()];
    check::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32, &f, &Traffic::full_rate());
    check::<8, 1, 8, 0, 1, 1>(CrcKind::Crc8Smbus, &f, &Traffic::full_rate());
    check::<16, 2, 16, 1, 2, 1>(CrcKind::Crc16Mcrf4xx, &f, &Traffic::full_rate());
    check::<8, 1, 16, 0, 1, 1>(CrcKind::Crc16Mcrf4xx, &f, &Traffic::full_rate());
}

/// The unshift stages' products are registered as two halves: `A ⊕ B = M` on every input, and
/// no output of a half has more than half (rounded up) of `M`'s inputs for that output.
#[test]
fn unshift_halves_sum_to_the_matrix_and_halve_the_fan_in() {
    use super::matrix::{apply, split_rows};
    use super::{CrcNetwork, CrcPipeline};
    use rand::Rng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for (kind, w) in [(CrcKind::Crc32c, 8), (CrcKind::Crc32c, 64), (CrcKind::Crc16Mcrf4xx, 2)] {
        let p = CrcPipeline::new(CrcNetwork::new(kind.params(), w));
        let c = kind.width() as usize;
        for m in &p.unshift {
            let (a, b) = split_rows(m, c);
            for _ in 0..200 {
                let x = rng.gen::<u64>() & crate::bits::low_ones(c);
                assert_eq!(apply(&a, x) ^ apply(&b, x), apply(m, x), "{kind:?} W={w}");
            }
            let fan_in = |cols: &[u64], j: usize| cols.iter().filter(|&&col| col >> j & 1 != 0).count();
            for j in 0..c {
                let half = fan_in(m, j).div_ceil(2);
                assert!(fan_in(&a, j) <= half && fan_in(&b, j) <= half, "{kind:?} W={w} bit {j}");
            }
        }
    }
}

/// The residue check of a message that ends `k` octets into a word, made on the word padded
/// with zeros: the register after that whole word equals the residue's register advanced by
/// `W − k` zero octets exactly when the message and its MIC check. MCTP RX's judging clock
/// compares this way (no partial-word shifter in front of its step). Checked for every
/// length up to three words at W = 1, 4 and 8, and for one flipped bit in each.
#[test]
fn a_zero_padded_word_checks_against_the_advanced_residue() {
    use crate::crc::network::CrcNetwork;
    let kind = CrcKind::Crc32c;
    let p = kind.params();
    for w in [1usize, 4, 8] {
        let net = CrcNetwork::new(p, w);
        let r0 = net.unfinish(p.residue ^ p.xorout);
        assert_eq!(net.finish(r0), p.residue ^ p.xorout, "unfinish undoes finish");
        for len in 0..3 * w {
            let msg: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            let mut good = msg.clone();
            good.extend((kind.checksum(&msg) as u32).to_le_bytes());
            let mut bad = good.clone();
            bad[len / 2] ^= 0x10;
            for (m, checks) in [(good, true), (bad, false)] {
                let k = m.len() % w;
                let mut r = net.init_r;
                let mut word = vec![0u8; w];
                for (i, chunk) in m.chunks(w).enumerate() {
                    word.fill(0);
                    word[..chunk.len()].copy_from_slice(chunk);
                    // A whole last word is followed by an empty window: one more zero word.
                    r = net.step(r, &word, crate::bits::low_ones(w));
                    if i == (m.len() - 1) / w && k == 0 {
                        r = net.step(r, &vec![0; w], crate::bits::low_ones(w));
                    }
                }
                assert_eq!(r == net.zeros_after(r0, w - k), checks, "W = {w}, {} octets", m.len());
            }
        }
    }
}
