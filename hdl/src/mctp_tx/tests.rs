//! The packetizer in rust-hdl's own simulator, driven by the project testbench (short runs; the
//! long ones are the Verilator co-simulation in `offload-sim`), against the software
//! `offload_driver::mctp::transmit`: random messages, header fields, MTUs, MIC and SMBus on and
//! off, refused configurations, over the traffic grid at every width; the MIC straddling the
//! last two packets; throughput; the emitted Verilog's lint.

use super::{hdl_model, MctpTx};
use crate::test_support::{assert_same, random_tx_request};
use crate::testbench::{run_mctp_tx, traffic_grid, MctpTxJob, Traffic};
use offload_driver::mctp::{transmit, SmbusAddresses, TxConfig, TxRequest};
use rand::{Rng, SeedableRng};
use rust_hdl::prelude::*;

/// The software's frames for the jobs it accepts, and how many it refuses.
fn reference(jobs: &[MctpTxJob]) -> (Vec<Vec<u8>>, usize) {
    let mut out = Vec::new();
    let mut refused = 0;
    for j in jobs {
        match transmit(&j.req, &j.message) {
            Ok(f) => out.extend(f),
            Err(_) => refused += 1,
        }
    }
    (out, refused)
}

fn check<const D: usize, const K: usize>(jobs: &[MctpTxJob], traffic: &Traffic, what: &str) -> crate::testbench::MctpTxRun {
    check_on(&mut hdl_model::<D, K>().unwrap(), jobs, traffic, what)
}

/// As [`check`], on a model that may have run before (`run_mctp_tx` resets it first).
fn check_on<M: crate::testbench::ClockedModel>(
    m: &mut M,
    jobs: &[MctpTxJob],
    traffic: &Traffic,
    what: &str,
) -> crate::testbench::MctpTxRun {
    let run = run_mctp_tx(m, jobs, traffic).unwrap_or_else(|e| panic!("{what}: {e}"));
    let (want, refused) = reference(jobs);
    assert_eq!(run.frames.len(), want.len(), "{what}: frame count");
    for (k, (g, r)) in run.frames.iter().zip(&want).enumerate() {
        assert_same(g, r, &format!("{what}: frame {k}"));
    }
    assert_eq!(run.dropped as usize, refused, "{what}: dropped");
    assert_eq!(run.messages as usize, jobs.len() - refused, "{what}: messages");
    assert_eq!(run.packets as usize, want.len(), "{what}: packets");
    assert_eq!(run.len_errors, 0, "{what}: len_errors");
    assert!(!want.is_empty() || refused == jobs.len(), "{what}: nothing sent");
    eprintln!("{what}: {} packets, {} messages, {refused} refused, {} clocks", want.len(), run.messages, run.stream.cycles);
    run
}

fn random<const D: usize, const K: usize>(rounds: usize, max_jobs: usize) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xDC + K as u64);
    for round in 0..rounds {
        let max = [300, 600, 1000][round % 3];
        let jobs: Vec<MctpTxJob> = (0..rng.gen_range(1..=max_jobs))
            .map(|_| {
                let (req, message) = random_tx_request(&mut rng, max, 0.1);
                MctpTxJob { req, message }
            })
            .collect();
        let traffic = traffic_grid(round as u64)[round % 4].clone();
        check::<D, K>(&jobs, &traffic, &format!("W={K} round {round} {traffic:?}"));
    }
}

/// Runs after a reset on one model: the read position in the held beat starts again at 0, so
/// the first message after a reset would carry the octets of the beat held before it if the
/// reset left them there (stop 79 tried the held beat in the buffer in front of the packet
/// stage, where a reset did not clear it: this test failed on that form without a valid bit).
#[test]
fn runs_after_a_reset_carry_nothing_of_the_last() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x2E5 + K as u64);
        let mut m = hdl_model::<D, K>().unwrap();
        for round in 0..6 {
            let jobs: Vec<MctpTxJob> = (0..rng.gen_range(1..=3))
                .map(|_| {
                    let (req, message) = random_tx_request(&mut rng, 200, 0.0);
                    MctpTxJob { req, message }
                })
                .collect();
            check_on(&mut m, &jobs, &Traffic::full_rate(), &format!("W={K} run {round} after a reset"));
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

#[test]
fn random_messages_match_software_transmit_w1() {
    random::<8, 1>(4, 4);
}

#[test]
fn random_messages_match_software_transmit_w4() {
    random::<32, 4>(8, 6);
}

#[test]
fn random_messages_match_software_transmit_w8() {
    random::<64, 8>(8, 8);
}

/// Messages of one or two beats back to back, with the output stalled at random: the skid
/// buffer in front of the packet stage then holds two messages' first beats, and the queue of
/// message fields beside it two entries (each message has its own random header fields).
#[test]
fn short_messages_back_to_back() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x5E + K as u64);
        for round in 0..4u64 {
            let jobs: Vec<MctpTxJob> = (0..60)
                .map(|_| {
                    let (req, message) = random_tx_request(&mut rng, 2 * K, 0.05);
                    MctpTxJob { req, message }
                })
                .collect();
            let traffic = traffic_grid(round)[round as usize % 4].clone();
            check::<D, K>(&jobs, &traffic, &format!("W={K} short messages round {round} {traffic:?}"));
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

/// Message + MIC ending `tail` octets past an MTU boundary: the MIC splits (tail 1..=3), ends a
/// packet (0) or sits whole in the last one (4, 5); with and without SMBus.
fn mic_straddle<const D: usize, const K: usize>() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut jobs = Vec::new();
    for mtu in [64usize, 65] {
        for tail in 0..=5usize {
            for smbus in [false, true] {
                let len = 2 * mtu + tail - 4;
                let mut message: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                message[0] = 0x84;
                let req = TxRequest {
                    config: TxConfig { mtu, ..TxConfig::new(0x1D, 0x08, 5, false) },
                    append_mic: true,
                    smbus: smbus.then_some(SmbusAddresses { src: 0x10, dst: 0x1D }),
                };
                jobs.push(MctpTxJob { req, message });
            }
        }
    }
    check::<D, K>(&jobs, &Traffic::random(0.3, 0.3, 5), &format!("W={K} MIC straddling"));
}

#[test]
fn mic_straddling_the_last_two_packets() {
    mic_straddle::<8, 1>();
    mic_straddle::<32, 4>();
    mic_straddle::<64, 8>();
}

/// Back-to-back messages at full rate: the output never idles (the clocks from the first input
/// beat taken to the last are at most the output beats).
#[test]
fn throughput_one_beat_per_clock() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for smbus in [false, true] {
            let jobs: Vec<MctpTxJob> = (0..8)
                .map(|k| {
                    let mut message = vec![0x84u8; 1 + (k * 97) % 400];
                    message[1..].iter_mut().for_each(|b| *b = rng.gen());
                    let req = TxRequest {
                        config: TxConfig { mtu: 64 + k % 187, ..TxConfig::new(0x20, 0x30, 1, true) },
                        append_mic: k % 2 == 0,
                        smbus: smbus.then_some(SmbusAddresses { src: 0x11, dst: 0x22 }),
                    };
                    MctpTxJob { req, message }
                })
                .collect();
            let run = check::<D, K>(&jobs, &Traffic::full_rate(), &format!("W={K} smbus {smbus}"));
            let beats: u64 = run.frames.iter().map(|f| f.len().div_ceil(K) as u64).sum();
            let (first, last) = run.stream.accept_span[0].unwrap();
            assert!(last - first <= beats, "W={K} smbus {smbus}: {} clocks for {beats} output beats", last - first + 1);
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

/// The latency the docs state (`LATENCY`): a one-octet message's first output beat leaves
/// exactly that many clocks after its beat is accepted, at every width, and its last beat as
/// many clocks later as the frame has beats after the first.
#[test]
fn latency_is_the_documented_one_at_every_width() {
    fn run<const D: usize, const K: usize>() {
        let req = TxRequest { config: TxConfig::new(0x20, 0x30, 1, true), append_mic: false, smbus: None };
        let jobs = [MctpTxJob { req, message: vec![0x04] }];
        let r = check::<D, K>(&jobs, &Traffic::full_rate(), &format!("W={K} latency"));
        let (accepted, _) = r.stream.accept_span[0].unwrap();
        let beats = (offload_driver::mctp::HEADER_LEN as u64 + 1).div_ceil(K as u64);
        let out = r.stream.output_last_cycles[0][0];
        assert_eq!(out - accepted, super::LATENCY + beats - 1, "W={K}: beat accepted at {accepted}, last output beat at {out}");
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

fn verilog_of<const D: usize, const K: usize>() -> String {
    let mut uut = MctpTx::<D, K>::default();
    uut.connect_all();
    generate_verilog(&uut)
}

/// The emitted Verilog at every shipped width passes rust-hdl's Yosys check (no latches, no
/// undriven or implicit wires) and Verilator's lint with only rust-hdl's documented waivers.
#[test]
fn verilog_is_clean() {
    for (w, v) in [(1, verilog_of::<8, 1>()), (4, verilog_of::<32, 4>()), (8, verilog_of::<64, 8>())] {
        yosys_validate(&format!("mctp_tx_w{w}"), &v).unwrap_or_else(|e| panic!("W={w}: {e:?}"));
        crate::tools::verilator_lint(&v, "top").unwrap_or_else(|e| panic!("W={w}: {e}"));
    }
}

/// The model with its `s_len` driven wrong: the driver sets it to the frame's length `len`,
/// this drives `s_len` instead for that length.
fn skew_len<M: crate::testbench::ClockedModel>(
    inner: M,
    len: usize,
    s_len: u64,
) -> crate::testbench::Hooked<M, impl FnMut(crate::testbench::PortId, u64) -> u64, impl FnMut(&M)> {
    let p = inner.port_id("s_len").unwrap();
    crate::testbench::Hooked::new(inner, move |q, v| if q == p && v == len as u64 { s_len } else { v }, |_| {})
}

/// `s_len` not matching the message (short: zero padding; long: the excess discarded): no hang,
/// counted once, and the next message is packetized exactly as the software does.
#[test]
fn wrong_s_len_is_counted_and_recovered() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for (len, s_len) in [(100usize, 130u64), (130, 100), (10, 9), (9, 10), (300, 64)] {
            for mic in [false, true] {
                let (mut req, _) = random_tx_request(&mut rng, 50, 0.0);
                req.append_mic = mic;
                let bad = MctpTxJob { req, message: vec![0x84; len] };
                let good = loop {
                    let (req, message) = random_tx_request(&mut rng, 500, 0.0);
                    if ![100, 130, 10, 9, 300].contains(&message.len()) {
                        break MctpTxJob { req, message };
                    }
                };
                let mut m = skew_len(hdl_model::<D, K>().unwrap(), len, s_len);
                let jobs = [bad, good.clone()];
                let what = format!("W={K} {len} octets, s_len {s_len}, MIC {mic}");
                let r = run_mctp_tx(&mut m, &jobs, &Traffic::random(0.2, 0.2, len as u64)).unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!((r.len_errors, r.messages, r.dropped), (1, 2, 0), "{what}");
                let (want, _) = reference(&[good]);
                assert!(r.frames.len() > want.len(), "{what}");
                for (g, w) in r.frames[r.frames.len() - want.len()..].iter().zip(&want) {
                    assert_same(g, w, &format!("{what}: the message after"));
                }
            }
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

/// One message sent with `s_len` overstating its octets: it goes out as the software sends the
/// message, its MIC when asked, then zeros up to `s_len`, counted once as a length error.
fn overstated<const D: usize, const K: usize>(req: TxRequest, message: Vec<u8>, s_len: usize, traffic: &Traffic, what: &str) {
    let len = message.len();
    let mut padded = message.clone();
    if req.append_mic {
        offload_driver::nvme_mi::append_mic(&mut padded);
    }
    padded.resize(padded.len() + (s_len - len), 0);
    let want = transmit(&TxRequest { append_mic: false, ..req }, &padded).unwrap();
    let mut m = skew_len(hdl_model::<D, K>().unwrap(), len, s_len as u64);
    let r = run_mctp_tx(&mut m, &[MctpTxJob { req, message }], traffic).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!((r.len_errors, r.messages, r.dropped), (1, 1, 0), "{what}");
    assert_eq!(r.frames.len(), want.len(), "{what}");
    for (g, w) in r.frames.iter().zip(&want) {
        assert_same(g, w, what);
    }
}

/// A message whose `s_len` overstates its octets goes out at `s_len` octets: the octets that came,
/// their MIC when asked, then zeros (the packet stage pads). From one octet short to several
/// beats short, so that the padding runs on after the beat in which the stream ended: the pad
/// decision of that beat (`pad_t`) sets where the later beats read `held`, which the frames of
/// the message itself show and the counters do not.
#[test]
fn an_overstated_length_is_padded_with_zeros() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for (len, s_len) in [(9usize, 10u64), (100, 130), (24, 90), (64, 200), (17, 300)] {
            for round in 0..4u64 {
                let (mut req, _) = random_tx_request(&mut rng, 50, 0.0);
                req.append_mic = round % 2 == 1;
                let mut message: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                message[0] |= offload_driver::nvme_mi::IC_BIT;
                let what = format!("W={K} {len} octets, s_len {s_len}, MIC {}, SMBus {}", req.append_mic, req.smbus.is_some());
                overstated::<D, K>(req, message, s_len as usize, &Traffic::random(0.2, 0.2, round), &what);
            }
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

/// The shipped files (flat port names, module `offload_mctp_tx_wK`) of the registry's entries:
/// Verilator's lint, as `hdl/tests/verilog_checks.rs` runs it for every entry.
#[test]
fn shipped_entries_are_lint_clean() {
    let entries: Vec<_> = crate::registry::catalogue().into_iter().filter(|e| e.block == "mctp_tx").collect();
    assert_eq!(entries.iter().map(|e| e.width_bytes).collect::<Vec<_>>(), [1, 4, 8]);
    for e in entries {
        crate::tools::verilator_lint(&e.shipped_verilog(), &e.module_name()).unwrap_or_else(|err| panic!("{}: {err}", e.name));
    }
}

/// A stream that ends a beat or two before a packet end the MTU puts off the beat grid (MTU 65
/// or 66), with `s_len` running the padding into the next packet. The beat in which the stream
/// ends (`pad_t`, a later beat of the message) leaves nothing held (`avail` 0): without that,
/// `avail` keeps the wrapped remainder of `avail + in − p` (W to 2W − 1), the padding beats
/// advance `rd` past 2W, it wraps, and the next packet repeats octets of the last input beat
/// where zeros belong. [`an_overstated_length_is_padded_with_zeros`]'s random MTUs missed it
/// (a sweep of MTU 64 to 71 at W = 8 and 64 to 67 at W = 4, lengths up to 80, found 76 such
/// frames at W = 4 and 429 at W = 8).
#[test]
fn padding_past_an_off_grid_packet_end_repeats_no_octet() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        for mtu in [65usize, 66] {
            for smbus in [false, true] {
                for len in mtu - 16..mtu {
                    for s_len in [mtu + 2, mtu + K + 1] {
                        let (mut req, _) = random_tx_request(&mut rng, 50, 0.0);
                        req.append_mic = false;
                        req.smbus = smbus.then_some(SmbusAddresses { src: 0x10, dst: 0x1d });
                        req.config.mtu = mtu;
                        let message: Vec<u8> = (0..len).map(|i| 0x80 | i as u8).collect();
                        let what = format!("W={K} MTU {mtu} SMBus {smbus}: {len} octets, s_len {s_len}");
                        overstated::<D, K>(req, message, s_len, &Traffic::random(0.0, 0.0, 0), &what);
                    }
                }
            }
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}

/// Messages with the MIC that fill their last beat and are closed by one more beat with no
/// octet (`tkeep` = 0, `tlast`): the same packets as the software sends, and no length error
/// (the MIC stage ends the message with the MIC, whose last octet carries `tlast` on). (Without
/// the MIC such a message is counted in `len_errors`, the module's "Length errors".) At W = 1
/// (and 2) the MIC always
/// overflows a last beat, so with no octet in it the MIC's first W octets go there and the
/// rest in MIC beats after it (`hold_off` = W, `hold_cnt` = 4 − W: the constants for no kept
/// lane in the MIC stage; 0 instead of W fails this test at W = 1).
#[test]
fn an_empty_last_beat_changes_nothing() {
    fn run<const D: usize, const K: usize>() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        for round in 0..6u64 {
            let jobs: Vec<MctpTxJob> = (0..8)
                .map(|_| {
                    let (mut req, mut message) = random_tx_request(&mut rng, 300, 0.0);
                    req.append_mic = true;
                    let len = (message.len() / K * K).max(K);
                    message.resize(len, 0x5A);
                    MctpTxJob { req, message }
                })
                .collect();
            let traffic = Traffic { empty_last: true, ..traffic_grid(round)[round as usize % 4].clone() };
            let what = format!("W={K} round {round} {traffic:?}");
            let r = check::<D, K>(&jobs, &traffic, &what);
            let beats: usize = jobs.iter().map(|j| j.message.len() / K + 1).sum();
            assert_eq!(r.stream.accepted_beats[0] as usize, beats, "{what}: an empty beat closes every message");
        }
    }
    run::<8, 1>();
    run::<32, 4>();
    run::<64, 8>();
}
