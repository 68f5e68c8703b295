//! rust-hdl's simulation of the depacketizer (short runs; the long randomised runs are the
//! Verilator co-simulation's, `offload-sim`'s `mctp_rx_cosim`) against the software receiver
//! (`offload_driver::mctp::receive`, one context): golden frames, directed cases, a
//! packet-sequence table, small random corrupted cases at every width, the message limit's
//! edge, the PEC's lane, the longest message, an oversize frame into a nearly full ring, the ring
//! words of a message whose MIC fails, a reset mid-message, the input rate, and
//! the emitted Verilog's lint and Yosys checks.

use super::{RxCounters, HW_MAX_LEN};
use crate::test_support::{random_rx_frames, run_rx_hdl, rx_directed_frames, rx_reference, RxSetup};
use crate::testbench::{MctpRxRun, Traffic};
use offload_driver::mctp::{transmit, SmbusAddresses, TxConfig, TxRequest};
use rand::{Rng, SeedableRng};

/// Runs rust-hdl's simulation and compares with the software: messages with their fields,
/// byte-exact and in order, every counter, and every drop's record. Returns the run and its counters by name.
fn check(w: usize, setup: &RxSetup, frames: &[Vec<u8>], traffic: &Traffic, what: &str) -> (MctpRxRun, RxCounters) {
    let run = run_rx_hdl(w, setup, frames, traffic).unwrap_or_else(|e| panic!("{what}: W={w}: {e}"));
    let want = rx_reference(setup, frames);
    for (k, (g, r)) in run.messages.iter().zip(&want.messages).enumerate() {
        assert_eq!((g.src, g.dst, g.tag, g.tag_owner), (r.src, r.dst, r.tag, r.tag_owner), "{what}: W={w}: message {k} fields");
        crate::test_support::assert_same(&g.bytes, &r.bytes, &format!("{what}: W={w}: message {k}"));
    }
    assert_eq!(run.messages.len(), want.messages.len(), "{what}: W={w}: message count");
    let got = RxCounters::from_array(run.counters);
    assert_eq!(got, want.counters, "{what}: W={w}: counters (got left, software right)");
    crate::test_support::check_drops(&run.drops, &want.drops).unwrap_or_else(|e| panic!("{what}: W={w}: {e}"));
    (run, got)
}

const GET_EID: [u8; 12] = [0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30];

/// DSP0237 golden frame (the smbus.rs Get EID request) and an NVMe-MI message whose MIC is
/// split over two SMBus packets (the second first with a bad PEC: a binding drop, the context
/// kept), at every width.
#[test]
fn golden_frames() {
    let mut nvme = vec![0x84u8, 0x08, 0, 0];
    nvme.extend((0..58).map(|i| i as u8));
    let req = TxRequest {
        config: TxConfig::new(0x08, 0x09, 0, true),
        append_mic: true,
        smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1D }),
    };
    let nvme_frames = transmit(&req, &nvme).unwrap();
    assert_eq!(nvme_frames.len(), 2);
    let t = Traffic::random(0.2, 0.3, 1);
    for w in [1, 4, 8] {
        let plain = RxSetup { smbus: true, mic: false, strict: true, max_len: 4224 };
        let (run, _) = check(w, &plain, &[GET_EID.to_vec()], &t, "golden get eid");
        assert_eq!(run.messages[0].bytes, [0x00, 0x80, 0x02]);
        assert_eq!((run.messages[0].src, run.messages[0].dst, run.messages[0].tag_owner), (0x08, 0x09, true));
        let mic = RxSetup { mic: true, ..plain };
        let (run, _) = check(w, &mic, &nvme_frames, &t, "golden nvme-mi");
        assert_eq!(run.messages[0].bytes, nvme, "W={w}: MIC checked and stripped");
        let mut bad = nvme_frames.clone();
        let n = bad[1].len();
        bad[1][n - 2] ^= 0x01;
        bad.push(nvme_frames[1].clone());
        let (_, c) = check(w, &mic, &bad, &t, "bad pec then good");
        assert_eq!((c.bad_pec, c.messages), (1, 1));
    }
}

/// The directed cases (slot reuse while the reader is slow, failed and good restarts, sequence
/// wrap, one-MTU message) under every setup, with a slow reader.
#[test]
fn directed_cases() {
    for w in [1, 4, 8] {
        for bits in 0..8 {
            let setup = RxSetup { smbus: bits & 1 != 0, mic: bits & 2 != 0, strict: bits & 4 != 0, max_len: 4224 };
            let frames = rx_directed_frames(&setup);
            let t = Traffic::random(0.1, 0.7, bits as u64);
            let (_, c) = check(w, &setup, &frames, &t, &format!("directed {setup:?}"));
            assert_eq!((c.messages, c.restarted), (7, 1), "W={w} {setup:?}: {c:?}");
        }
    }
}

/// Table-driven packet sequences in the style of the Linux kernel's
/// `net/mctp/test/route-test.c`: flags, sequence, tag and payload length per packet; the block
/// must deliver and drop exactly as the software does, and the table states what that is.
#[test]
fn packet_sequence_table() {
    use offload_driver::mctp::Header;
    // (som, eom, seq, tag, payload length)
    type P = (bool, bool, u8, u8, usize);
    const S: fn(u8) -> P = |q| (true, false, q, 0, 64);
    const M: fn(u8) -> P = |q| (false, false, q, 0, 64);
    const E: fn(u8) -> P = |q| (false, true, q, 0, 10);
    const SE: fn(u8) -> P = |q| (true, true, q, 0, 10);
    let none = RxCounters::default();
    // (name, packets, messages delivered, drop counters)
    let cases: Vec<(&str, Vec<P>, u32, RxCounters)> = vec![
        ("single packet", vec![SE(0)], 1, none),
        ("start, end", vec![S(0), E(1)], 1, none),
        ("sequence wraps", vec![S(2), M(3), M(0), E(1)], 1, none),
        ("end without start", vec![E(1)], 0, RxCounters { no_context: 1, ..none }),
        ("duplicate middle", vec![S(0), M(1), M(1), E(2)], 0, RxCounters { bad_sequence: 1, no_context: 1, ..none }),
        ("lost middle", vec![S(0), M(1), E(3)], 0, RxCounters { bad_sequence: 1, ..none }),
        ("restart", vec![S(0), S(0), E(1)], 1, RxCounters { restarted: 1, ..none }),
        ("other tag while open", vec![S(0), (true, false, 0, 5, 64), E(1)], 1, RxCounters { contexts_full: 1, ..none }),
        ("single packet of another tag while open", vec![S(0), (true, true, 0, 5, 9), E(1)], 2, none),
        // At W = 8 the middle packet is one beat: the end's flags beat is then compared with the
        // context's key while the start that loads it is being judged, and the frame stage must
        // take the decoder's compare with the key of the frame two before (`k_age1`).
        ("one-beat packet of another tag between start and end", vec![S(0), (true, true, 0, 5, 3), E(1)], 2, none),
        ("short first unit", vec![(true, false, 0, 0, 63), E(1)], 0, RxCounters { bad_unit_size: 1, no_context: 1, ..none }),
        (
            "middle unit differs",
            vec![(true, false, 0, 0, 80), M(1), E(2)],
            0,
            RxCounters { bad_unit_size: 1, no_context: 1, ..none },
        ),
        ("end larger than the unit", vec![S(0), (false, true, 1, 0, 65)], 0, RxCounters { bad_unit_size: 1, ..none }),
        ("end exactly one unit", vec![S(0), (false, true, 1, 0, 64)], 1, none),
    ];
    for (name, packets, delivered, drops) in cases {
        let frames: Vec<Vec<u8>> = packets
            .iter()
            .enumerate()
            .map(|(i, &(som, eom, seq, tag, len))| {
                let h = Header { dst: 0x09, src: 0x08, som, eom, seq, tag_owner: true, tag };
                let mut p = h.encode().unwrap().to_vec();
                p.extend(std::iter::repeat_n(i as u8, len));
                p
            })
            .collect();
        for w in [1, 4, 8] {
            let setup = RxSetup { smbus: false, mic: false, strict: true, max_len: 4224 };
            let (_, c) = check(w, &setup, &frames, &Traffic::random(0.0, 0.5, w as u64), name);
            assert_eq!(c.messages, delivered, "W={w} {name}");
            for (k, (got, want)) in c.as_array().into_iter().zip(drops.as_array()).enumerate().skip(1) {
                assert_eq!(got, want, "W={w} {name}: {}", super::COUNTERS[k]);
            }
        }
    }
}

/// Short seeded runs (1..5 messages, heavy corruption, any setup, idle cycles and
/// back-pressure) at every width: small cases in which a difference is easy to read. Together
/// they move every counter.
#[test]
fn small_corrupted_cases() {
    let mut seen = [0u64; 12];
    for seed in 0..40u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let setup = RxSetup::random(&mut rng);
        let n = rng.gen_range(1..5);
        let mut frames = random_rx_frames(&mut rng, &setup, n, 600, 0.15);
        if seed % 8 == 0 && !setup.smbus {
            frames.push(vec![0x01; 261]); // one octet over the raw-frame limit
        }
        let w = [1, 4, 8][seed as usize % 3];
        let (run, _) = check(w, &setup, &frames, &crate::testbench::traffic_grid(seed)[seed as usize % 4], &format!("seed {seed}"));
        for (s, c) in seen.iter_mut().zip(run.counters) {
            *s += c;
        }
    }
    for (name, n) in super::COUNTERS.iter().zip(seen) {
        assert!(n > 0, "no {name} in the corrupted runs: {seen:?}");
    }
}

/// A continuation of the open message that an early verdict drops (oversize raw, a wrong SMBus
/// byte count, a frame too short for its header), with the right key and sequence number,
/// then the same packet whole: the software drops the first and keeps the context, so the
/// block must commit nothing of it (the judging clock's outcomes are worked out with the last
/// beat, and `r_lenbad` is what holds them back for these verdicts), at every width.
#[test]
fn an_early_verdict_on_a_continuation_commits_nothing() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(41);
    let msg: Vec<u8> = (0..150).map(|_| rng.gen()).collect();
    for (smbus, strict) in [(false, false), (false, true), (true, false), (true, true)] {
        let setup = RxSetup { smbus, mic: false, strict, max_len: 4224 };
        let req = TxRequest {
            config: TxConfig { mtu: 64, ..TxConfig::new(8, 9, 3, true) },
            append_mic: false,
            smbus: smbus.then_some(SmbusAddresses { src: 0x10, dst: 0x1D }),
        };
        let good = transmit(&req, &msg).unwrap();
        assert_eq!(good.len(), 3);
        let mut spoiled = good[1].clone();
        if smbus {
            spoiled[2] ^= 0x04; // the byte count
        } else {
            spoiled.extend([0u8; 200]); // 268 raw octets
        }
        let short = good[1][..good[1].len().min(if smbus { 6 } else { 3 })].to_vec();
        for (what, bad) in [("spoiled", spoiled), ("short", short)] {
            let frames = vec![good[0].clone(), bad, good[1].clone(), good[2].clone()];
            for w in [1, 4, 8] {
                let (run, c) = check(w, &setup, &frames, &Traffic::full_rate(), &format!("{what} continuation, smbus {smbus}"));
                assert_eq!(run.messages.len(), 1, "W={w} smbus {smbus} {what}: {c:?}");
                assert_eq!(run.messages[0].bytes, msg, "W={w} smbus {smbus} {what}");
                assert_eq!(c.oversize + c.bad_smbus + c.malformed, 1, "W={w} smbus {smbus} {what}: {c:?}");
            }
        }
    }
}

/// The largest message the block takes: `HW_MAX_LEN` octets in 251-octet packets, with a slow
/// reader (the ring fills and the input waits), and one octet more (too long).
#[test]
fn longest_message_and_ring_full() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: HW_MAX_LEN };
    let mut frames = Vec::new();
    for len in [HW_MAX_LEN - 4, 100, HW_MAX_LEN - 4, HW_MAX_LEN - 3] {
        frames.extend(mic_message(&mut rng, len, 1, false));
    }
    let (run, c) = check(8, &setup, &frames, &Traffic::random(0.0, 0.7, 2), "longest");
    assert_eq!((c.messages, c.too_long), (3, 1));
    assert!(run.stream.input_stalls > 100, "the ring filled and the input waited: {} stalls", run.stream.input_stalls);
}

/// The message limit's edge, as a single packet and as a message of several: `max_len` octets
/// are delivered, one more is `too_long`, raw and with the SMBus binding (whose frames carry
/// five octets more, which the block's frame-octet compares must take off).
#[test]
fn message_limit_boundary() {
    const LIMIT: usize = 100;
    for smbus in [false, true] {
        let setup = RxSetup { smbus, mic: false, strict: true, max_len: LIMIT };
        let mut frames = Vec::new();
        for (i, (len, mtu)) in [(LIMIT, 128), (LIMIT + 1, 128), (LIMIT, 64), (LIMIT + 1, 64)].into_iter().enumerate() {
            let msg: Vec<u8> = (0..len).map(|k| (k * 7 + i) as u8).collect();
            let req = TxRequest {
                config: TxConfig { mtu, ..TxConfig::new(8, 9, i as u8, true) },
                append_mic: false,
                smbus: smbus.then_some(SmbusAddresses { src: 0x10, dst: 0x1D }),
            };
            frames.extend(transmit(&req, &msg).unwrap());
        }
        for w in [1, 4, 8] {
            let (_, c) = check(w, &setup, &frames, &Traffic::random(0.1, 0.1, w as u64), &format!("limit, smbus {smbus}"));
            assert_eq!((c.messages, c.too_long), (2, 2), "W={w} smbus {smbus}: {c:?}");
        }
    }
}

/// The PEC check tests the CRC over the whole frame, PEC included, for zero, one candidate per
/// octet count of the last beat, and `tkeep`'s highest lane picks the candidate. Each frame
/// here has a correct PEC of 0x00, so the CRC through the octet before the PEC is zero: sent
/// with PEC 0x00 it must pass, with any other PEC it must be a `bad_pec`, though a shorter
/// candidate in the same beat sees zero. Payloads of 1..=17 octets put the PEC in every lane.
#[test]
fn pec_checked_in_the_last_lane_only() {
    let setup = RxSetup { smbus: true, mic: false, strict: true, max_len: 4224 };
    let mut frames = Vec::new();
    for len in 1..=17usize {
        let req = TxRequest {
            config: TxConfig::new(8, 9, (len % 8) as u8, true),
            append_mic: false,
            smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1D }),
        };
        let mut frame = transmit(&req, &vec![0x5Au8; len]).unwrap().remove(0);
        let n = frame.len();
        // The last payload octet that makes the frame's CRC before the PEC zero.
        let zeroing = (0..=255u8).find(|&v| {
            let mut head = frame[..n - 1].to_vec();
            head[n - 2] = v;
            offload_driver::crc::crc8_smbus(&head) == 0
        });
        frame[n - 2] = zeroing.expect("one octet value zeroes the CRC");
        frame[n - 1] = 0x00;
        frames.push(frame.clone());
        frame[n - 1] = 0x07;
        frames.push(frame);
    }
    for w in [1, 4, 8] {
        let (_, c) = check(w, &setup, &frames, &Traffic::random(0.1, 0.1, w as u64), "PEC 0x00 and 0x07");
        assert_eq!((c.messages, c.bad_pec), (17, 17), "W={w}: {c:?}");
    }
}

/// A raw frame longer than any binding carries, continuing the open message when the ring
/// has less room than that frame's payload: the decoder clips each packet's payload at
/// `MAX_PAYLOAD` octets (the `room` count), so the frame writes at most that much before the
/// judging clock drops it as `oversize`. Without the clip it would wait for ring room that
/// only the unfinished message could free, and the run would time out.
#[test]
fn oversize_frame_is_clipped_when_the_ring_is_nearly_full() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: HW_MAX_LEN };
    let mut msg: Vec<u8> = (0..HW_MAX_LEN - 4).map(|_| rng.gen()).collect();
    msg[0] |= offload_driver::nvme_mi::IC_BIT;
    offload_driver::nvme_mi::append_mic(&mut msg);
    let req = TxRequest { config: TxConfig { mtu: 251, ..TxConfig::new(8, 9, 1, true) }, append_mic: false, smbus: None };
    let mut frames = transmit(&req, &msg).unwrap();
    let n = frames.len();
    // The last packet's header (the open message's key, not a start) over far more payload
    // than the ring has left once the packets before it are committed.
    let left = super::RING_OCTETS - (msg.len() - (frames[n - 1].len() - 4));
    let mut oversize = frames[n - 1][..4].to_vec();
    oversize.extend((0..left + 512).map(|_| rng.gen::<u8>()));
    frames.insert(n - 1, oversize);
    for w in [1, 4, 8] {
        let t = Traffic { max_cycles: 200_000, ..Traffic::full_rate() };
        let (run, c) = check(w, &setup, &frames, &t, "oversize into a nearly full ring");
        assert_eq!((c.messages, c.oversize), (1, 1), "W={w}: {c:?}");
        assert_eq!(run.messages[0].bytes, msg[..msg.len() - 4], "W={w}");
    }
}

/// Single-packet messages whose payload runs from 248 to 264 octets, so the 256-octet packet
/// limit falls in every lane of a beat at each width: those within it are delivered whole, those
/// past it are dropped as `oversize`, and each is followed by a short message that must come
/// through. (Which lanes the decoder's room clips past the limit is seen only through the ring's
/// room: `oversize_frame_is_clipped_when_the_ring_is_nearly_full` catches a clip off by one, this
/// test does not.)
#[test]
fn payload_around_the_packet_limit_in_every_lane() {
    use offload_driver::mctp::header::{EOM_BIT, HEADER_VERSION, SOM_BIT, TO_BIT};
    let setup = RxSetup { smbus: false, mic: false, strict: false, max_len: 4224 };
    let single = |tag: usize| (1 << SOM_BIT) | (1 << EOM_BIT) | (1 << TO_BIT) | (tag % 8) as u8;
    let mut frames = Vec::new();
    for (k, len) in (248..=264usize).enumerate() {
        let mut f = vec![HEADER_VERSION, 9, 8, single(k)];
        f.push(0x7E);
        f.extend((1..len).map(|i| (i * 13 + len) as u8));
        frames.push(f);
        frames.push(vec![HEADER_VERSION, 9, 8, single(k + 1), 0x7E, k as u8]);
    }
    for w in [1, 4, 8] {
        let (_, c) = check(w, &setup, &frames, &Traffic::full_rate(), "payload around the packet limit");
        assert_eq!((c.messages, c.oversize), (9 + 17, 8), "W={w}: {c:?}");
    }
}

/// A message continued in a short packet: the first packet's unit leaves every fill of the
/// committed window (`mtu` 64..=71), and the last packet carries 1..=3 octets of payload, so at
/// W = 8 its one beat (the flags beat, continuing from the committed window) fills no word and
/// the MIC's last partial step covers the committed window's lanes and the new ones
/// (`c_keep` with the payload's lanes after it), with and without SMBus.
#[test]
fn short_last_packet_after_every_committed_fill() {
    for smbus in [false, true] {
        let setup = RxSetup { smbus, mic: true, strict: true, max_len: 4224 };
        let addresses = smbus.then_some(SmbusAddresses { src: 0x10, dst: 0x1D });
        let mut frames = Vec::new();
        let mut want = Vec::new();
        for mtu in 64..72 {
            for r in 1..=3 {
                let mut msg: Vec<u8> = (0..mtu + r - 4).map(|i| (i * 7 + mtu) as u8).collect();
                msg[0] = 0x84;
                let tag = (frames.len() % 8) as u8;
                let req = TxRequest { config: TxConfig { mtu, ..TxConfig::new(8, 9, tag, true) }, append_mic: true, smbus: addresses };
                let f = transmit(&req, &msg).unwrap();
                assert_eq!(f.len(), 2, "two packets");
                frames.extend(f);
                want.push(msg);
            }
        }
        for w in [4, 8] {
            let (_, c) = check(w, &setup, &frames, &Traffic::random(0.1, 0.2, 5), "short last packet");
            assert_eq!((c.messages as usize, c.mic_errors), (want.len(), 0), "W={w} smbus {smbus}: {c:?}");
        }
    }
}

/// `msg` as one packet from EID 8 to EID 9 with tag `tag`, through the host library's
/// packetizer (with its NVMe-MI MIC when `mic`).
fn single_packet(msg: &[u8], tag: u8, mic: bool) -> Vec<u8> {
    let req = TxRequest { config: TxConfig::new(0x08, 0x09, tag, true), append_mic: mic, smbus: None };
    let mut frames = transmit(&req, msg).unwrap();
    assert_eq!(frames.len(), 1, "one packet");
    frames.remove(0)
}

/// The descriptor queue fills while the reader holds its output low: back-to-back single-packet
/// messages, more than the queue holds. A message's descriptor is pushed the clock after its
/// judging clock, so the next packet must not start when that pending push takes the queue's
/// last free entry (`q_afull`), or its own descriptor would find the queue full. Every message
/// must come out, in order, once the reader drains.
#[test]
fn descriptor_queue_fills_while_the_reader_holds() {
    let n = super::DESC_DEPTH + 8;
    for mic in [false, true] {
        let setup = RxSetup { smbus: false, mic, strict: true, max_len: 4224 };
        let frames: Vec<Vec<u8>> = (0..n).map(|i| single_packet(&[0x84, i as u8, 2, 3, 4, 5], (i % 8) as u8, mic)).collect();
        for w in [1, 4, 8] {
            let hold = 3000;
            let t = Traffic { output_hold_cycles: hold, ..Traffic::full_rate() };
            let (run, c) = check(w, &setup, &frames, &t, &format!("queue full, mic {mic}"));
            assert_eq!(c.messages as usize, n, "W={w} mic {mic}");
            // The input waited for the queue through the rest of the hold.
            assert!(
                run.stream.input_stalls > hold / 2,
                "W={w} mic {mic}: the queue never filled ({} input stalls)",
                run.stream.input_stalls
            );
        }
    }
}

/// `len` octets of NVMe-MI message (with its MIC, broken when `bad_mic`) as 251-octet
/// packets, from EID 8 to EID 9 with tag `tag`.
fn mic_message(rng: &mut rand::rngs::StdRng, len: usize, tag: u8, bad_mic: bool) -> Vec<Vec<u8>> {
    let mut msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    msg[0] |= offload_driver::nvme_mi::IC_BIT;
    offload_driver::nvme_mi::append_mic(&mut msg);
    if bad_mic {
        *msg.last_mut().unwrap() ^= 0x01;
    }
    let req = TxRequest { config: TxConfig { mtu: 251, ..TxConfig::new(8, 9, tag, true) }, append_mic: false, smbus: None };
    transmit(&req, &msg).unwrap()
}

/// A message whose MIC fails is published void and gives its ring words back as the reader
/// passes it, in order, as a NIC's receive ring returns an errored descriptor's buffer (the
/// free start moves past it whatever the verdict, so the verdict is on no address path; until
/// stop 65 the words came back at once, with the forward chosen from the verdict). The output
/// is held from the start, so the reader stays at the first message it outputs, and the ring's
/// use shows as the good messages' frames taken before the hold ends:
/// - the failed message first: the reader passes its void descriptor at once (nothing waits
///   at the output yet), so the ring holds as many good messages as without it;
/// - the failed message second, behind a good one the held output keeps at the reader: its
///   words stay in use until the hold ends, so the ring takes fewer (the cost of the change).
///
/// Every message out, every counter and every drop record match the software's in all three
/// runs (`check`), so a void descriptor that came out as a frame, or words given back twice,
/// fails here too.
#[test]
fn a_failed_mic_gives_its_ring_words_back_as_the_reader_passes_it() {
    let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: 4224 };
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let good: Vec<Vec<Vec<u8>>> = (0..12u8).map(|i| mic_message(&mut rng, 1000, i % 7, false)).collect();
    let bad = mic_message(&mut rng, 1000, 7, true);
    let alone: Vec<Vec<u8>> = good.concat();
    let bad_first: Vec<Vec<u8>> = [std::slice::from_ref(&bad), &good[..]].concat().concat();
    let bad_second: Vec<Vec<u8>> = [&good[..1], std::slice::from_ref(&bad), &good[1..]].concat().concat();
    for w in [4, 8] {
        let hold = (3 * super::RING_OCTETS / w) as u64;
        let t = Traffic { output_hold_cycles: hold, ..Traffic::full_rate() };
        let taken = |frames: &[Vec<u8>], skip: std::ops::Range<usize>, what: &str| {
            let (run, c) = check(w, &setup, frames, &t, what);
            assert_eq!(c.messages, 12, "{what}: W={w}");
            assert_eq!(c.mic_errors, u32::from(!skip.is_empty()), "{what}: W={w}");
            let cycles = &run.stream.last_beat_cycles[0];
            (0..cycles.len()).filter(|i| !skip.contains(i) && cycles[*i] < hold).count()
        };
        let n_alone = taken(&alone, 0..0, "ring without a failed MIC");
        let n_first = taken(&bad_first, 0..bad.len(), "ring with a failed MIC first");
        let n_second =
            taken(&bad_second, good[0].len()..good[0].len() + bad.len(), "ring with a failed MIC second");
        assert!(n_alone < alone.len(), "W={w}: the ring never filled ({n_alone} of {} frames taken in the hold)", alone.len());
        assert_eq!(n_first, n_alone, "W={w}: good frames the ring took during the hold, the failed MIC first (left) and none (right)");
        assert!(
            n_second < n_alone,
            "W={w}: good frames the ring took during the hold with a failed MIC behind the held message ({n_second}) and without one ({n_alone}): its words came back before the reader passed it"
        );
    }
}

/// A reset with a message half taken: beats offered, in the skid buffer and in the frame
/// stage, words in the ring and messages held at the output. The frame stage's ready does not
/// read the reset (every register a taken beat enables is reset in the same clock), so beats
/// can move between the skid and the frame stage in the reset's first clock: this says it is
/// harmless. After the reset nothing old comes out, every counter is zero, and new frames are
/// received as the software receives them on their own.
#[test]
fn a_reset_mid_message_empties_every_stage() {
    use crate::testbench::{ClockedModel, MctpRxBench};
    fn run<M: ClockedModel>(m: &mut M, w: usize) {
        let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: 4224 };
        let mut rng = rand::rngs::StdRng::seed_from_u64(27 + w as u64);
        for stop in [3usize, 17, 40, 131] {
            let cfg = setup.config();
            drop(MctpRxBench::new(m, &cfg).unwrap());
            let p = |n: &str| m.port_id(n).unwrap();
            let (s_data, s_keep, s_valid, s_last, s_ready, m_ready) =
                (p("s_tdata"), p("s_tkeep"), p("s_tvalid"), p("s_tlast"), p("s_tready"), p("m_tready"));
            // Old traffic: a short message (delivered, held at the output) and a long one,
            // cut `stop` beats into its frames, with the output held throughout.
            let old = [mic_message(&mut rng, 40, 1, false), mic_message(&mut rng, 900, 2, false)].concat();
            let beats: Vec<(&[u8], bool)> = old
                .iter()
                .flat_map(|f| f.chunks(w).enumerate().map(move |(i, c)| (c, (i + 1) * w >= f.len())))
                .collect();
            let first = old[0].len().div_ceil(w);
            // (The last cut is the long message's last beat but one at W = 8.)
            let stop = stop.min(beats.len() - first - 1);
            let mut taken = 0;
            m.set(m_ready, 0);
            m.set(s_valid, 1);
            while taken < first + stop {
                let (c, last) = beats[taken];
                m.set_bytes(s_data, c);
                m.set(s_keep, crate::bits::low_ones(c.len()));
                m.set(s_last, last as u64);
                m.eval();
                if m.get(s_ready) != 0 {
                    taken += 1;
                }
                m.tick();
            }
            // The reset (in `MctpRxBench::new`) with the next beat still offered.
            let (c, last) = beats[taken];
            m.set_bytes(s_data, c);
            m.set(s_keep, crate::bits::low_ones(c.len()));
            m.set(s_last, last as u64);
            let mut bench = MctpRxBench::new(m, &cfg).unwrap();
            assert_eq!(bench.counters(), [0; 12], "W={w}, cut after {stop} beats: counters after the reset");
            let new = [mic_message(&mut rng, 300, 3, false), mic_message(&mut rng, 20, 4, false)].concat();
            let (got, _, _) = bench.run(&new, &Traffic::random(0.1, 0.2, stop as u64)).unwrap();
            let want = rx_reference(&setup, &new);
            assert_eq!(RxCounters::from_array(bench.counters()), want.counters, "W={w}, cut after {stop} beats");
            assert_eq!(got, want.messages, "W={w}, cut after {stop} beats: messages after the reset");
        }
    }
    run(&mut super::hdl_model::<8, 1, 13>().unwrap(), 1);
    run(&mut super::hdl_model::<32, 4, 11>().unwrap(), 4);
    run(&mut super::hdl_model::<64, 8, 10>().unwrap(), 8);
}

/// The latency the docs state ([`super::LATENCY`]): one single-packet message at a time, output
/// always ready, from its last input beat to its first output beat (its last output beat,
/// less the beats before it: the reader streams one beat per clock).
#[test]
fn delivery_latency() {
    let msg = [0x84u8; 21];
    for mic in [false, true] {
        let setup = RxSetup { smbus: false, mic, strict: true, max_len: 4224 };
        let frame = single_packet(&msg, 1, mic);
        for w in [1, 4, 8] {
            let (run, _) = check(w, &setup, std::slice::from_ref(&frame), &Traffic::full_rate(), "latency");
            let out_beats = msg.len().div_ceil(w) as u64;
            let taken_in = run.stream.last_beat_cycles[0][0];
            let first_out = run.stream.output_last_cycles[0][0] - (out_beats - 1);
            assert_eq!(first_out - taken_in, super::LATENCY, "W={w} mic {mic}: clocks from the last input beat to the first output beat");
        }
    }
}

/// Input rate: with input always valid and output always ready, the input takes one beat per
/// clock apart from the one judging clock after each packet, at every width, with SMBus and
/// without (at W = 1, and at W = 4 with SMBus, a packet's flags octet is not in its first
/// beat: a block that makes the flags beat wait when it follows a beat of its own packet
/// fails here).
#[test]
fn one_beat_per_clock_plus_one_per_packet() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for (w, longest) in [(1, 400), (4, 2000), (8, 2000)] {
        for smbus in [false, true] {
            let setup = RxSetup { smbus, mic: true, strict: true, max_len: 4224 };
            let frames = random_rx_frames(&mut rng, &setup, 6, longest, 0.0);
            let (run, _) = check(w, &setup, &frames, &Traffic::full_rate(), "rate");
            let (first, last) = run.stream.accept_span[0].expect("input taken");
            let clocks = last - first + 1;
            let (beats, packets) = (run.stream.accepted_beats[0], frames.len() as u64);
            assert!(
                clocks <= beats + packets,
                "W={w} smbus {smbus}: {clocks} clocks for {beats} beats + {packets} packets"
            );
        }
    }
}

fn verilog_of<const D: usize, const K: usize, const RA: usize>() -> String {
    use rust_hdl::prelude::*;
    let mut uut = super::MctpRx::<D, K, RA>::default();
    uut.connect_all();
    generate_verilog(&uut)
}

/// The emitted Verilog at every shipped width passes rust-hdl's Yosys check and Verilator's
/// lint with only rust-hdl's documented waivers.
#[test]
fn verilog_is_clean() {
    use rust_hdl::prelude::*;
    for (w, v) in [(1, verilog_of::<8, 1, 13>()), (4, verilog_of::<32, 4, 11>()), (8, verilog_of::<64, 8, 10>())] {
        yosys_validate(&format!("mctp_rx_w{w}"), &v).unwrap_or_else(|e| panic!("W={w}: {e:?}"));
        crate::tools::verilator_lint(&v, "top").unwrap_or_else(|e| panic!("W={w}: {e}"));
    }
}

/// Back-to-back messages into a ring the stalled reader keeps nearly full: each message's
/// first packet arrives as the one before is delivered, so it starts at a free start moved in
/// that judging clock and is let in by that free start's room flag (`okr_ms`), which must be
/// the room after the delivered message, not a stale or optimistic one.
#[test]
fn starts_right_after_a_delivery_into_a_nearly_full_ring() {
    let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: HW_MAX_LEN };
    for w in [4, 8] {
        let mut rng = rand::rngs::StdRng::seed_from_u64(w as u64);
        let mut frames = Vec::new();
        for i in 0..40 {
            frames.extend(mic_message(&mut rng, 480 + 37 * (i % 5), (i % 8) as u8, false));
        }
        let (run, c) = check(w, &setup, &frames, &Traffic::random(0.0, 0.9, w as u64), "starts after deliveries");
        assert_eq!(c.messages, 40, "W={w}: {c:?}");
        assert!(run.stream.input_stalls > 100, "W={w}: the ring filled and the input waited: {} stalls", run.stream.input_stalls);
    }
}
