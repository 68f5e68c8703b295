//! The Verilated MCTP RX depacketizer against the software receiver
//! (`offload_driver::mctp::receive` with one reassembly context), at W = 1, 4 and 8: ≥ 10 000
//! messages per width with random sizes 1..=4224 octets, random header fields and MTUs,
//! SMBus/raw, MIC on/off, strict/lenient unit rules and message limits, random idle cycles and
//! back-pressure; corrupted traffic (bit flips, lost, duplicated, reordered, truncated and
//! re-framed packets, foreign frames) rejected exactly as the software rejects it. Delivered
//! messages byte for byte with their header fields, every drop counter equal, and every drop's
//! record (the header found, the context's expected sequence number, the lengths) as the
//! software words the drop. The traffic and
//! the reference come from `offload_hdl::test_support`, the same the block's rust-hdl tests use.
//! Fails (does not skip) without Verilator.

use offload_driver::mctp::{transmit, SmbusAddresses};
use offload_hdl::mctp_rx::COUNTERS;
use offload_hdl::test_support::{check_drops, random_rx_frames, random_tx_request, rx_reference, RxSetup};
use offload_sim::mctp::{run_mctp_rx, MctpRxRun};
use offload_sim::{model_info, with_trace_on_failure, SimError, Traffic};
use rand::{Rng, SeedableRng};

const WIDTHS: [usize; 3] = [1, 4, 8];

/// Runs and compares; a mismatch re-runs with a VCD and panics with its path.
fn check(
    w: usize,
    label: &str,
    setup: &RxSetup,
    frames: &[Vec<u8>],
    traffic: &Traffic,
) -> MctpRxRun {
    let info = model_info(&format!("mctp_rx_w{w}")).unwrap_or_else(|e| panic!("{e}"));
    let want = rx_reference(setup, frames);
    with_trace_on_failure(info, label, |m| {
        let run = run_mctp_rx(m, &setup.config(), frames, traffic)?;
        for (i, (g, r)) in run.messages.iter().zip(&want.messages).enumerate() {
            if (g.src, g.dst, g.tag, g.tag_owner) != (r.src, r.dst, r.tag, r.tag_owner) {
                return Err(SimError::Failed(format!("{label}: message {i} fields {g:?} vs software {r:?}")));
            }
            if g.bytes != r.bytes {
                let at = g.bytes.iter().zip(&r.bytes).position(|(a, b)| a != b).unwrap_or(g.bytes.len().min(r.bytes.len()));
                return Err(SimError::Failed(format!(
                    "{label}: message {i} ({} vs {} octets) differs from the software at octet {at}",
                    g.bytes.len(),
                    r.bytes.len()
                )));
            }
        }
        if run.messages.len() != want.messages.len() {
            return Err(SimError::Failed(format!("{label}: {} messages, software {}", run.messages.len(), want.messages.len())));
        }
        let sw = want.counters.as_array().map(u64::from);
        if run.counters != sw {
            let diff: Vec<String> = COUNTERS
                .iter()
                .zip(run.counters.iter().zip(&sw))
                .filter(|(_, (a, b))| a != b)
                .map(|(n, (a, b))| format!("{n} {a} (software {b})"))
                .collect();
            return Err(SimError::Failed(format!("{label}: counters differ: {}", diff.join(", "))));
        }
        check_drops(&run.drops, &want.drops).map_err(|e| SimError::Failed(format!("{label}: {e}")))?;
        Ok(run)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// DSP0237 worked example (the smbus.rs golden frame: a Get EID request from EID 8, slave 0x10,
/// to EID 9, slave 0x1D) and an NVMe-MI message whose MIC is split over two SMBus packets, the
/// second packet first with a bad PEC (dropped, the context kept) then good.
#[test]
fn golden_frames_at_every_width() {
    use offload_driver::mctp::{TxConfig, TxRequest};
    const FRAME: [u8; 12] = [
        0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30,
    ];
    let mut nvme = vec![0x84u8, 0x08, 0, 0];
    nvme.extend((0..58).map(|i| i as u8));
    let req = TxRequest {
        config: TxConfig::new(0x08, 0x09, 3, true),
        append_mic: true,
        smbus: Some(SmbusAddresses {
            src: 0x10,
            dst: 0x1D,
        }),
    };
    let f = transmit(&req, &nvme).unwrap();
    let mut bad = f[1].clone();
    let n = bad.len();
    bad[n - 1] ^= 0x80;
    for w in WIDTHS {
        let plain = RxSetup {
            smbus: true,
            mic: false,
            strict: true,
            max_len: 4224,
        };
        let r = check(
            w,
            "golden",
            &plain,
            &[FRAME.to_vec()],
            &Traffic::full_rate(),
        );
        assert_eq!(r.messages[0].bytes, [0x00, 0x80, 0x02], "W={w}");
        assert_eq!(
            (
                r.messages[0].src,
                r.messages[0].dst,
                r.messages[0].tag_owner
            ),
            (0x08, 0x09, true)
        );
        let mic = RxSetup { mic: true, ..plain };
        let r = check(
            w,
            "golden-mic",
            &mic,
            &[f[0].clone(), bad.clone(), f[1].clone()],
            &Traffic::full_rate(),
        );
        assert_eq!(r.messages.len(), 1);
        assert_eq!(r.messages[0].bytes, nvme, "W={w}: MIC checked and stripped");
        assert_eq!(r.messages[0].tag, 3);
        assert_eq!(
            (r.counters[0], r.counters[8]),
            (1, 1),
            "W={w}: one message, one bad PEC"
        );
    }
}

/// ≥ 10 000 messages delivered per width (more sent), sizes 1..=4224, half the batches with
/// corrupted packets, over runs with different setups and traffic; every drop reason is met at
/// every width.
#[test]
fn random_traffic_matches_software_receive() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0236_0237);
    for w in WIDTHS {
        let mut sent = 0;
        let mut delivered = 0;
        let mut seen = [0u64; 12];
        let mut run_no = 0;
        while delivered < 10_000 {
            let setup = RxSetup::random(&mut rng);
            let batch = 400;
            let p_corrupt = if run_no % 2 == 0 {
                0.0
            } else {
                rng.gen_range(0.005..0.04)
            };
            let frames = random_rx_frames(
                &mut rng,
                &setup,
                batch,
                4224.min(setup.max_len.max(600)),
                p_corrupt,
            );
            let traffic = [
                Traffic::full_rate(),
                Traffic::random(0.3, 0.0, run_no as u64),
                Traffic::random(0.0, 0.3, run_no as u64),
                Traffic::random(0.25, 0.4, run_no as u64),
            ][run_no % 4]
                .clone();
            let r = check(w, &format!("random-{run_no}"), &setup, &frames, &traffic);
            for (a, b) in seen.iter_mut().zip(r.counters) {
                *a += b;
            }
            sent += batch;
            delivered += r.messages.len();
            run_no += 1;
        }
        // Corruption drops some: the sent ones are more.
        assert!(
            delivered >= 10_000 && sent > delivered,
            "W={w}: {delivered} of {sent} messages delivered"
        );
        for (name, n) in COUNTERS.iter().zip(seen) {
            assert!(n > 0, "W={w}: no {name} in {run_no} runs: {seen:?}");
        }
        eprintln!("W={w}: {sent} messages sent, {delivered} delivered; counters {seen:?}");
    }
}

/// With input always valid and output always ready, the input takes a beat every clock except
/// the one judging cycle after each packet.
#[test]
fn input_rate_one_beat_per_clock_plus_one_per_packet() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for w in WIDTHS {
        for smbus in [false, true] {
            let setup = RxSetup {
                smbus,
                mic: true,
                strict: true,
                max_len: 4224,
            };
            // Back-to-back messages (no interleaving: a single-packet message for another key
            // may wait for the slot, by design).
            let frames: Vec<Vec<u8>> = (0..60)
                .flat_map(|_| {
                    let (mut req, mut msg) = random_tx_request(&mut rng, 4220, 0.0);
                    msg[0] |= 0x80;
                    req.append_mic = true;
                    req.smbus = smbus.then_some(SmbusAddresses {
                        src: 0x10,
                        dst: 0x1D,
                    });
                    req.config.mtu = req.config.mtu.min(250);
                    // (A null or broadcast EID is refused: no frames.)
                    transmit(&req, &msg).unwrap_or_default()
                })
                .collect();
            let r = check(w, "rate", &setup, &frames, &Traffic::full_rate());
            let (first, last) = r.stream.accept_span[0].unwrap();
            let beats = r.stream.accepted_beats[0];
            let clocks = last - first + 1;
            assert!(
                clocks <= beats + frames.len() as u64,
                "W={w}: {clocks} clocks for {beats} beats + {} packets",
                frames.len()
            );
            let octets: u64 = frames.iter().map(|f| f.len() as u64).sum();
            eprintln!(
                "W={w} smbus {smbus}: {:.3} frame octets/clock ({:.1}% of W) over {} packets",
                octets as f64 / clocks as f64,
                100.0 * octets as f64 / (clocks as f64 * w as f64),
                frames.len()
            );
        }
    }
}

/// The directed cases of `test_support` (slot reuse while the reader is slow, failed and good
/// restarts of the open key, sequence wrap, a one-MTU message) under every setup, with heavy
/// back-pressure.
#[test]
fn directed_cases_under_every_setup() {
    for w in WIDTHS {
        for bits in 0..8u64 {
            let setup = RxSetup {
                smbus: bits & 1 != 0,
                mic: bits & 2 != 0,
                strict: bits & 4 != 0,
                max_len: 4224,
            };
            let frames = offload_hdl::test_support::rx_directed_frames(&setup);
            let r = check(
                w,
                &format!("directed-{bits}"),
                &setup,
                &frames,
                &Traffic::random(0.1, 0.8, bits),
            );
            assert_eq!(
                (r.counters[0], r.counters[5]),
                (7, 1),
                "W={w} {setup:?}: messages, restarted"
            );
        }
    }
}

/// rust-hdl's simulation and the Verilated Verilog of the same `#[hdl_gen]` description, on the
/// same random corrupted traffic with idle cycles and back-pressure, at every width: every
/// output equal in every cycle (what catches an expression rust-hdl and Verilog size
/// differently), and the messages and counters the software's.
#[test]
fn rust_hdl_and_verilated_verilog_agree_cycle_by_cycle() {
    use offload_hdl::mctp_rx::hdl_model;
    use offload_hdl::testbench::{traffic_grid, ClockedModel, Lockstep};
    use offload_sim::VerilatedModel;
    fn run<A: ClockedModel>(a: A, w: usize, n: usize, max_msg: usize, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let setup = RxSetup::random(&mut rng);
        let frames = random_rx_frames(&mut rng, &setup, n, max_msg, 0.08);
        let t = &traffic_grid(seed)[seed as usize % 4];
        let b = VerilatedModel::new(model_info(&format!("mctp_rx_w{w}")).unwrap_or_else(|e| panic!("{e}")));
        let mut l = Lockstep::new(a, b).unwrap();
        let r = offload_hdl::testbench::run_mctp_rx(&mut l, &setup.config(), &frames, t).unwrap_or_else(|e| panic!("W={w}: {e}"));
        l.check().unwrap_or_else(|e| panic!("W={w}, {setup:?}, {t:?}: {e}"));
        let want = rx_reference(&setup, &frames);
        assert_eq!(r.messages, want.messages, "W={w} {setup:?}");
        assert_eq!(r.counters, want.counters.as_array().map(u64::from), "W={w} {setup:?}");
        l.compared_cycles()
    }
    let mut total = 0;
    for seed in 0..4 {
        total += run(hdl_model::<8, 1, 13>().unwrap(), 1, 10, 400, seed);
        total += run(hdl_model::<32, 4, 11>().unwrap(), 4, 20, 1500, 10 + seed);
        total += run(hdl_model::<64, 8, 10>().unwrap(), 8, 20, 3000, 20 + seed);
    }
    eprintln!("{total} cycles compared, every output equal");
    assert!(total > 20_000, "{total} cycles compared");
}
