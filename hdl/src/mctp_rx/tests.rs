//! The cycle model against the software receiver (`offload_driver::mctp::receive`, one
//! context): random messages, interleavings and corruptions from `test_support`, every
//! binding/MIC/unit-rule setting, input gaps and output back-pressure, at every width;
//! delivered messages byte-exact and in order, every drop counter equal.

use super::model::{RxCounters, HW_MAX_LEN};
use crate::test_support::{
    random_rx_frames, run_rx_model as run_model, rx_directed_frames, rx_reference,
    RxModelRun as ModelRun, RxSetup,
};
use offload_driver::mctp::{transmit, SmbusAddresses, TxConfig, TxRequest};
use rand::{Rng, SeedableRng};

fn check(
    w: usize,
    setup: &RxSetup,
    frames: &[Vec<u8>],
    pv: f64,
    pr: f64,
    rng: &mut impl Rng,
    what: &str,
) -> ModelRun {
    let run = run_model(w, setup, frames, pv, pr, rng);
    let want = rx_reference(setup, frames);
    for (k, (g, r)) in run.messages.iter().zip(&want.messages).enumerate() {
        assert_eq!(
            (g.src, g.dst, g.tag, g.tag_owner),
            (r.src, r.dst, r.tag, r.tag_owner),
            "{what}: message {k} fields"
        );
        crate::test_support::assert_same(&g.bytes, &r.bytes, &format!("{what}: message {k}"));
    }
    assert_eq!(
        run.messages.len(),
        want.messages.len(),
        "{what}: message count"
    );
    assert_eq!(
        run.counters, want.counters,
        "{what}: counters (got left, software right)"
    );
    run
}

#[test]
fn model_matches_software_receive_clean() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5EC);
    for w in [1, 4, 8] {
        for round in 0..8 {
            let setup = RxSetup {
                max_len: 4224,
                ..RxSetup::random(&mut rng)
            };
            let frames = random_rx_frames(&mut rng, &setup, 12, 1500, 0.0);
            let (pv, pr) = [(1.0, 1.0), (0.7, 1.0), (1.0, 0.6), (0.5, 0.5)][round % 4];
            let run = check(
                w,
                &setup,
                &frames,
                pv,
                pr,
                &mut rng,
                &format!("W={w} clean round {round} {setup:?}"),
            );
            assert!(run.counters.messages > 0);
        }
    }
}

#[test]
fn model_matches_software_receive_corrupted() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0237);
    let mut seen = RxCounters::default();
    for w in [1, 4, 8] {
        for round in 0..16 {
            let setup = RxSetup::random(&mut rng);
            let frames = random_rx_frames(&mut rng, &setup, 12, 1200, 0.08);
            let (pv, pr) = [(1.0, 1.0), (0.7, 1.0), (1.0, 0.6), (0.5, 0.5)][round % 4];
            let run = check(
                w,
                &setup,
                &frames,
                pv,
                pr,
                &mut rng,
                &format!("W={w} corrupted round {round} {setup:?}"),
            );
            let c = run.counters.as_array();
            let mut s = seen.as_array();
            for (a, b) in s.iter_mut().zip(c) {
                *a += b;
            }
            seen = RxCounters {
                messages: s[0],
                malformed: s[1],
                no_context: s[2],
                bad_sequence: s[3],
                bad_unit_size: s[4],
                restarted: s[5],
                too_long: s[6],
                contexts_full: s[7],
                bad_pec: s[8],
                bad_smbus: s[9],
                mic_errors: s[10],
                oversize: s[11],
            };
        }
    }
    // Every drop reason was exercised (so each comparison above could have failed).
    for (name, n) in super::COUNTERS.iter().zip(seen.as_array()) {
        assert!(n > 0, "no {name} in the corrupted runs: {seen:?}");
    }
}

/// DSP0237 golden frame (the smbus.rs Get EID request) and an NVMe-MI message whose MIC is
/// split over two SMBus packets, at every width.
#[test]
fn golden_frames() {
    const FRAME: [u8; 12] = [
        0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30,
    ];
    let mut nvme = vec![0x84u8, 0x08, 0, 0];
    nvme.extend((0..58).map(|i| i as u8));
    let req = TxRequest {
        config: TxConfig::new(0x08, 0x09, 0, true),
        append_mic: true,
        smbus: Some(SmbusAddresses {
            src: 0x10,
            dst: 0x1D,
        }),
    };
    let nvme_frames = transmit(&req, &nvme).unwrap();
    assert_eq!(nvme_frames.len(), 2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for w in [1, 4, 8] {
        let plain = RxSetup {
            smbus: true,
            mic: false,
            strict: true,
            max_len: 4224,
        };
        let run = check(
            w,
            &plain,
            &[FRAME.to_vec()],
            1.0,
            1.0,
            &mut rng,
            "golden get eid",
        );
        assert_eq!(run.messages[0].bytes, [0x00, 0x80, 0x02]);
        assert_eq!(
            (
                run.messages[0].src,
                run.messages[0].dst,
                run.messages[0].tag_owner
            ),
            (0x08, 0x09, true)
        );
        let mic = RxSetup { mic: true, ..plain };
        let run = check(w, &mic, &nvme_frames, 1.0, 1.0, &mut rng, "golden nvme-mi");
        assert_eq!(
            run.messages[0].bytes, nvme,
            "W={w}: MIC checked and stripped"
        );
        let mut bad = nvme_frames.clone();
        let n = bad[1].len();
        bad[1][n - 2] ^= 0x01; // the PEC: a binding drop, context kept
        bad.push(nvme_frames[1].clone()); // the good end packet completes the message
        let run = check(w, &mic, &bad, 1.0, 1.0, &mut rng, "bad pec then good");
        assert_eq!((run.counters.bad_pec, run.counters.messages), (1, 1));
    }
}

/// The largest message the block takes: `HW_MAX_LEN` octets in 251-octet packets, input and
/// output at full rate with a stalled reader for a while (the ring fills and waits).
#[test]
fn longest_message_and_ring_full() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    for w in [1, 8] {
        let setup = RxSetup {
            smbus: false,
            mic: true,
            strict: true,
            max_len: HW_MAX_LEN,
        };
        let mut frames = Vec::new();
        for len in [HW_MAX_LEN - 4, 100, HW_MAX_LEN - 4, HW_MAX_LEN - 3] {
            let mut msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            msg[0] |= 0x80;
            let req = TxRequest {
                config: TxConfig {
                    mtu: 251,
                    ..TxConfig::new(8, 9, 1, true)
                },
                append_mic: true,
                smbus: None,
            };
            match transmit(&req, &msg) {
                Ok(f) => frames.extend(f),
                Err(_) => {
                    offload_driver::nvme_mi::append_mic(&mut msg);
                    let req = TxRequest {
                        append_mic: false,
                        ..req
                    };
                    frames.extend(transmit(&req, &msg).unwrap());
                }
            }
        }
        let run = check(
            w,
            &setup,
            &frames,
            1.0,
            0.3,
            &mut rng,
            &format!("W={w} longest"),
        );
        assert_eq!((run.counters.messages, run.counters.too_long), (3, 1));
    }
}

/// Throughput: with input always valid and output always ready, the input takes one beat per
/// clock apart from the one judging cycle after each packet.
#[test]
fn throughput_one_beat_per_clock_plus_one_per_packet() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for w in [1, 4, 8] {
        let setup = RxSetup {
            smbus: false,
            mic: true,
            strict: true,
            max_len: 4224,
        };
        let frames = random_rx_frames(&mut rng, &setup, 30, 4224, 0.0);
        let run = check(
            w,
            &setup,
            &frames,
            1.0,
            1.0,
            &mut rng,
            &format!("W={w} rate"),
        );
        let packets = frames.len() as u64;
        let clocks = run.span.1 - run.span.0 + 1;
        assert!(
            clocks <= run.in_beats + packets,
            "W={w}: {clocks} clocks for {} beats + {packets} packets",
            run.in_beats
        );
        assert!(
            run.cycles > clocks,
            "W={w}: the last message drains after the input ends"
        );
    }
}

fn verilog_of<const D: usize, const K: usize>() -> String {
    use rust_hdl::prelude::*;
    let mut uut = super::MctpRx::<D, K>::default();
    uut.connect_all();
    rust_hdl::prelude::generate_verilog(&uut)
}

/// The emitted Verilog at every shipped width passes rust-hdl's Yosys check and Verilator's
/// lint with only rust-hdl's documented waivers.
#[test]
fn verilog_is_clean() {
    use rust_hdl::prelude::*;
    for (w, v) in [
        (1, verilog_of::<8, 1>()),
        (4, verilog_of::<32, 4>()),
        (8, verilog_of::<64, 8>()),
    ] {
        yosys_validate(&format!("mctp_rx_w{w}"), &v).unwrap_or_else(|e| panic!("W={w}: {e:?}"));
        crate::tools::verilator_lint(&v, "top").unwrap_or_else(|e| panic!("W={w}: {e}"));
    }
}

/// rust-hdl's own simulator: the block (which runs the model) takes the DSP0237 golden SMBus
/// frame and delivers its 3-octet message with the header fields.
#[test]
fn rust_hdl_simulation_golden_frame() {
    use rust_hdl::prelude::*;
    const FRAME: [u8; 12] = [
        0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30,
    ];
    let mut uut = super::MctpRx::<32, 4>::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<super::MctpRx<32, 4>>| {
        x.clock.next = !x.clock.val()
    });
    sim.add_testbench(move |mut sim: Sim<super::MctpRx<32, 4>>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        x.m.tready.next = true;
        x.cfg.smbus.next = true;
        x.cfg.strict.next = true;
        x.cfg.max_len.next = 4224u64.into();
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        let mut out = Vec::new();
        let mut sent = 0;
        let mut src = 0;
        for _ in 0..40 {
            if sent < FRAME.len() {
                let n = (FRAME.len() - sent).min(4);
                x.s.tvalid.next = true;
                x.s.tlast.next = sent + n == FRAME.len();
                x.s.tkeep.next = ((1u64 << n) - 1).into();
                x.s.tdata.next = crate::bits::bytes_to_bits::<32>(&FRAME[sent..sent + n]);
            } else {
                x.s.tvalid.next = false;
            }
            wait_clock_true!(sim, clock, x);
            if x.s.tvalid.val() && x.s.tready.val() {
                sent += (FRAME.len() - sent).min(4);
            }
            if x.m.tvalid.val() {
                let d = x.m.tdata.val();
                for b in 0..4 {
                    if x.m.tkeep.val().get_bit(b) {
                        out.push(d.get_bits::<8>(8 * b).index() as u8);
                    }
                }
                src = crate::bits::bits_to_u64(&x.m_src_eid.val());
                if x.m.tlast.val() {
                    break;
                }
            }
            wait_clock_false!(sim, clock, x);
        }
        sim_assert!(sim, out == [0x00, 0x80, 0x02] && src == 0x08, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000).unwrap();
}

/// Many short seeded runs (1..5 messages, heavy corruption, any setup) at full rate: small
/// cases in which a difference is easy to read. Each prints its frames on a mismatch.
#[test]
fn many_small_corrupted_cases() {
    for seed in 0..600u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let setup = RxSetup::random(&mut rng);
        let n = rng.gen_range(1..5);
        let frames = random_rx_frames(&mut rng, &setup, n, 600, 0.15);
        for w in [1, 4, 8] {
            let run = run_model(w, &setup, &frames, 1.0, 1.0, &mut rng);
            let want = rx_reference(&setup, &frames);
            if run.messages != want.messages || run.counters != want.counters {
                for f in &frames {
                    eprintln!("  {} octets: {:02x?}", f.len(), &f[..f.len().min(12)]);
                }
                panic!(
                    "seed {seed} W={w} {setup:?}: got {:?}, software {:?}",
                    run.counters, want.counters
                );
            }
        }
    }
}

/// The directed cases (slot reuse while the reader is slow, failed and good restarts, sequence
/// wrap, one-MTU message) under every setup, with a slow reader.
#[test]
fn directed_cases() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for w in [1, 4, 8] {
        for bits in 0..8 {
            let setup = RxSetup {
                smbus: bits & 1 != 0,
                mic: bits & 2 != 0,
                strict: bits & 4 != 0,
                max_len: 4224,
            };
            let frames = rx_directed_frames(&setup);
            let run = check(
                w,
                &setup,
                &frames,
                1.0,
                0.2,
                &mut rng,
                &format!("W={w} directed {setup:?}"),
            );
            let c = run.counters;
            assert_eq!((c.messages, c.restarted), (7, 1), "W={w} {setup:?}: {c:?}");
        }
    }
}

/// Table-driven packet sequences in the style of the Linux kernel's
/// `net/mctp/test/route-test.c` (and of the software reassembler's own table): flags,
/// sequence, tag and payload length per packet; the block must deliver and drop exactly as the
/// software does, and the table states what that is.
#[test]
fn packet_sequence_table() {
    use offload_driver::mctp::Header;
    // (som, eom, seq, tag, payload length)
    type P = (bool, bool, u8, u8, usize);
    const S: fn(u8) -> P = |q| (true, false, q, 0, 64);
    const M: fn(u8) -> P = |q| (false, false, q, 0, 64);
    const E: fn(u8) -> P = |q| (false, true, q, 0, 10);
    const SE: fn(u8) -> P = |q| (true, true, q, 0, 10);
    // (name, packets, messages delivered, drop counters)
    let cases: Vec<(&str, Vec<P>, u32, RxCounters)> = vec![
        ("single packet", vec![SE(0)], 1, RxCounters::default()),
        ("start, end", vec![S(0), E(1)], 1, RxCounters::default()),
        (
            "sequence wraps",
            vec![S(2), M(3), M(0), E(1)],
            1,
            RxCounters::default(),
        ),
        (
            "end without start",
            vec![E(1)],
            0,
            RxCounters {
                no_context: 1,
                ..Default::default()
            },
        ),
        (
            "duplicate middle",
            vec![S(0), M(1), M(1), E(2)],
            0,
            RxCounters {
                bad_sequence: 1,
                no_context: 1,
                ..Default::default()
            },
        ),
        (
            "lost middle",
            vec![S(0), M(1), E(3)],
            0,
            RxCounters {
                bad_sequence: 1,
                ..Default::default()
            },
        ),
        (
            "restart",
            vec![S(0), S(0), E(1)],
            1,
            RxCounters {
                restarted: 1,
                ..Default::default()
            },
        ),
        (
            "other tag while open",
            vec![S(0), (true, false, 0, 5, 64), E(1)],
            1,
            RxCounters {
                contexts_full: 1,
                ..Default::default()
            },
        ),
        (
            "single packet of another tag while open",
            vec![S(0), (true, true, 0, 5, 9), E(1)],
            2,
            RxCounters::default(),
        ),
        (
            "short first unit",
            vec![(true, false, 0, 0, 63), E(1)],
            0,
            RxCounters {
                bad_unit_size: 1,
                no_context: 1,
                ..Default::default()
            },
        ),
        (
            "middle unit differs",
            vec![(true, false, 0, 0, 80), M(1), E(2)],
            0,
            RxCounters {
                bad_unit_size: 1,
                no_context: 1,
                ..Default::default()
            },
        ),
        (
            "end larger than the unit",
            vec![S(0), (false, true, 1, 0, 65)],
            0,
            RxCounters {
                bad_unit_size: 1,
                ..Default::default()
            },
        ),
        (
            "end exactly one unit",
            vec![S(0), (false, true, 1, 0, 64)],
            1,
            RxCounters::default(),
        ),
    ];
    let mut rng = rand::rngs::StdRng::seed_from_u64(12);
    for (name, packets, delivered, drops) in cases {
        let frames: Vec<Vec<u8>> = packets
            .iter()
            .enumerate()
            .map(|(i, &(som, eom, seq, tag, len))| {
                let h = Header {
                    dst: 0x09,
                    src: 0x08,
                    som,
                    eom,
                    seq,
                    tag_owner: true,
                    tag,
                };
                let mut p = h.encode().unwrap().to_vec();
                p.extend(std::iter::repeat_n(i as u8, len));
                p
            })
            .collect();
        for w in [1, 4, 8] {
            let setup = RxSetup {
                smbus: false,
                mic: false,
                strict: true,
                max_len: 4224,
            };
            let run = check(
                w,
                &setup,
                &frames,
                1.0,
                0.5,
                &mut rng,
                &format!("W={w} {name}"),
            );
            assert_eq!(run.counters.messages, delivered, "W={w} {name}");
            for (k, (got, want)) in run
                .counters
                .as_array()
                .into_iter()
                .zip(drops.as_array())
                .enumerate()
                .skip(1)
            {
                assert_eq!(got, want, "W={w} {name}: {}", super::COUNTERS[k]);
            }
        }
    }
}
