//! The Verilated MCTP TX packetizer against the software `offload_driver::mctp::transmit`, at
//! W = 1, 4 and 8: ≥ 10 000 messages per width with random sizes 1..=4224 octets, random
//! header fields, MTUs, MIC and SMBus on/off, random idle cycles and back-pressure, byte for
//! byte; messages the software refuses dropped whole and counted; one beat per clock; the
//! `sim` backend of `Offload::mctp_transmit` answers as the `sw` one. Fails (does not skip)
//! without Verilator.

use offload_driver::mctp::{transmit, SmbusAddresses, TxConfig, TxRequest};
use offload_driver::{Offload, SoftwareOffload};
use offload_hdl::test_support::random_tx_request;
use offload_sim::mctp::{run_mctp_tx, MctpTxJob, MctpTxRun};
use offload_sim::{model_info, with_trace_on_failure, SimError, Traffic, VerilatedOffload};
use rand::{Rng, SeedableRng};

const WIDTHS: [usize; 3] = [1, 4, 8];

/// A random request and message from the generator the cycle-model tests share
/// (`offload_hdl::test_support::random_tx_request`): mostly valid, a fraction `p_bad` with one
/// thing the software refuses.
fn random_job(rng: &mut impl Rng, p_bad: f64) -> MctpTxJob {
    let (req, message) = random_tx_request(rng, 4224, p_bad);
    MctpTxJob { req, message }
}

/// The software's frames for the jobs it accepts, and how many it refuses.
fn reference(jobs: &[MctpTxJob]) -> (Vec<Vec<u8>>, usize) {
    let mut frames = Vec::new();
    let mut refused = 0;
    for j in jobs {
        match transmit(&j.req, &j.message) {
            Ok(f) => frames.extend(f),
            Err(_) => refused += 1,
        }
    }
    (frames, refused)
}

/// Runs and compares; a mismatch re-runs with a VCD and panics with its path.
fn check(w: usize, label: &str, jobs: &[MctpTxJob], traffic: &Traffic) -> MctpTxRun {
    let info = model_info(&format!("mctp_tx_w{w}")).unwrap_or_else(|e| panic!("{e}"));
    let (want, refused) = reference(jobs);
    with_trace_on_failure(info, label, |m| {
        let run = run_mctp_tx(m, jobs, traffic)?;
        for (i, (g, r)) in run.frames.iter().zip(&want).enumerate() {
            if g != r {
                let at = g.iter().zip(r).position(|(a, b)| a != b).unwrap_or(g.len().min(r.len()));
                return Err(SimError::Failed(format!(
                    "{label}: frame {i} ({} vs {} octets) differs from the software at octet {at}: got {:02x?}, want {:02x?}",
                    g.len(),
                    r.len(),
                    &g[at.saturating_sub(4)..(at + 4).min(g.len())],
                    &r[at.saturating_sub(4)..(at + 4).min(r.len())]
                )));
            }
        }
        if run.frames.len() != want.len() {
            return Err(SimError::Failed(format!("{label}: {} frames, software {}", run.frames.len(), want.len())));
        }
        let accepted = (jobs.len() - refused) as u64;
        if (run.packets, run.messages, run.dropped, run.len_errors) != (want.len() as u64, accepted, refused as u64, 0) {
            return Err(SimError::Failed(format!(
                "{label}: counters packets {} messages {} dropped {} len_errors {}, expected {} {accepted} {refused} 0",
                run.packets,
                run.messages,
                run.dropped,
                run.len_errors,
                want.len()
            )));
        }
        Ok(run)
    })
    .unwrap_or_else(|e| panic!("{e}"))
}

/// DSP0237 worked example (the smbus.rs golden frame): an MCTP Get EID request from EID 8
/// (slave 0x10) to EID 9 (slave 0x1D), and the NVMe-MI MIC split over two packets.
#[test]
fn golden_frames_at_every_width() {
    let get_eid = TxRequest {
        config: TxConfig::new(0x08, 0x09, 0, true),
        append_mic: false,
        smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1D }),
    };
    // 62 octets + MIC = 66: packets of 64 and 2 payload octets, the MIC split 2 + 2.
    let mut nvme = vec![0x84u8, 0x08, 0, 0];
    nvme.extend((0..58).map(|i| i as u8));
    let mic = offload_driver::nvme_mi::mic(&nvme).to_le_bytes();
    let nvme_req = TxRequest { append_mic: true, ..get_eid };
    for w in WIDTHS {
        let jobs = [
            MctpTxJob { req: get_eid, message: vec![0x00, 0x80, 0x02] },
            MctpTxJob { req: nvme_req, message: nvme.clone() },
        ];
        let r = check(w, "golden", &jobs, &Traffic::full_rate());
        assert_eq!(r.frames[0], [0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30], "W={w}: smbus.rs golden frame");
        assert_eq!(r.frames.len(), 3);
        assert_eq!(r.frames[1].len(), 4 + 4 + 64 + 1);
        assert_eq!(&r.frames[1][70..72], &mic[..2], "W={w}: first half of the MIC");
        assert_eq!(&r.frames[2][8..10], &mic[2..], "W={w}: second half of the MIC");
        assert_eq!(r.frames[2][2], 1 + 4 + 2, "W={w}: byte count of the last packet");
    }
}

/// ≥ 10 000 messages per width (3 % refused ones on top), over runs with different traffic.
#[test]
fn random_messages_match_software_transmit() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0236);
    for w in WIDTHS {
        let mut total = 0;
        let mut run_no = 0;
        while total < 10_000 {
            let jobs: Vec<MctpTxJob> = (0..1000).map(|_| random_job(&mut rng, 0.03)).collect();
            let traffic = [
                Traffic::full_rate(),
                Traffic::random(0.3, 0.0, run_no as u64),
                Traffic::random(0.0, 0.3, run_no as u64),
                Traffic::random(0.25, 0.4, run_no as u64),
            ][run_no % 4]
                .clone();
            let r = check(w, &format!("random-{run_no}"), &jobs, &traffic);
            total += r.messages as usize;
            run_no += 1;
        }
        assert!(total >= 10_000);
    }
}

/// With input always valid and output always ready, the output never idles: the clocks from
/// the first to the last accepted input beat are at most the output beats.
#[test]
fn one_output_beat_per_clock() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    for w in WIDTHS {
        for smbus in [false, true] {
            let jobs: Vec<MctpTxJob> = (0..100)
                .map(|_| {
                    let mut j = random_job(&mut rng, 0.0);
                    j.req.smbus = smbus.then_some(SmbusAddresses { src: 1, dst: 2 });
                    j.req.config.mtu = j.req.config.mtu.min(250);
                    j
                })
                .collect();
            let r = check(w, "rate", &jobs, &Traffic::full_rate());
            let (first, last) = r.stream.accept_span[0].unwrap();
            let beats: u64 = r.frames.iter().map(|f| f.len().div_ceil(w) as u64).sum();
            let clocks = r.stream.cycles;
            assert!(last - first < beats, "W={w}: input span {} clocks for {beats} output beats", last - first + 1);
            assert!(clocks <= beats + 16, "W={w} smbus {smbus}: {clocks} clocks for {beats} output beats");
            let octets: u64 = jobs.iter().map(|j| j.message.len() as u64).sum();
            eprintln!(
                "W={w} smbus {smbus}: {:.3} message octets/clock ({:.1}% of W), {beats} output beats in {clocks} clocks",
                octets as f64 / clocks as f64,
                100.0 * octets as f64 / (clocks as f64 * w as f64)
            );
        }
    }
}

/// `VerilatedOffload::mctp_transmit` returns the software's frames, and the software's error
/// for everything the software refuses (including what the ports could not even carry).
#[test]
fn sim_backend_matches_software_backend() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    let mut hw = VerilatedOffload::new().unwrap_or_else(|e| panic!("{e}"));
    let mut sw = SoftwareOffload;
    let mut jobs: Vec<MctpTxJob> = (0..200).map(|_| random_job(&mut rng, 0.3)).collect();
    let base = jobs[0].clone();
    let mut more = |f: &dyn Fn(&mut MctpTxJob)| {
        let mut j = base.clone();
        f(&mut j);
        jobs.push(j);
    };
    more(&|j| j.req.config.tag = 8);
    more(&|j| j.req.config.start_seq = 4);
    more(&|j| j.req.config.mtu = 300);
    more(&|j| j.req.smbus = Some(SmbusAddresses { src: 0x80, dst: 1 }));
    more(&|j| j.req.smbus = Some(SmbusAddresses { src: 1, dst: 0x90 }));
    more(&|j| {
        j.req.append_mic = false;
        j.message = vec![0x7F; 65_537]
    });
    let mut refused = 0;
    for (i, j) in jobs.iter().enumerate() {
        let s = sw.mctp_transmit(&j.req, &j.message).map_err(|e| e.to_string());
        let h = hw.mctp_transmit(&j.req, &j.message).map_err(|e| e.to_string());
        assert_eq!(h, s, "job {i}: {:?}", j.req);
        refused += s.is_err() as usize;
    }
    assert!(refused >= 40, "only {refused} refusals exercised");
    assert!(hw.cycles().unwrap() > 0);
}

/// rust-hdl's simulation of the packetizer and the Verilated Verilog emitted from the same
/// description, on the same random traffic (header fields, MIC, SMBus, refusals, idle cycles,
/// back-pressure): every output equal in every cycle, and the frames the software's.
#[test]
fn rust_hdl_and_verilated_verilog_agree_cycle_by_cycle() {
    use offload_hdl::mctp_tx::hdl_model;
    use offload_hdl::testbench::{traffic_grid, Lockstep};
    use offload_sim::VerilatedModel;
    fn run<const D: usize, const K: usize>(n: usize, max_len: usize, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut cycles = 0;
        for t in traffic_grid(seed) {
            let jobs: Vec<MctpTxJob> = (0..n)
                .map(|_| {
                    let (req, message) = random_tx_request(&mut rng, max_len, 0.1);
                    MctpTxJob { req, message }
                })
                .collect();
            let a = hdl_model::<D, K>().unwrap();
            let b = VerilatedModel::new(model_info(&format!("mctp_tx_w{K}")).unwrap_or_else(|e| panic!("{e}")));
            let mut l = Lockstep::new(a, b).unwrap();
            let r = offload_hdl::testbench::run_mctp_tx(&mut l, &jobs, &t).unwrap_or_else(|e| panic!("W={K}: {e}"));
            l.check().unwrap_or_else(|e| panic!("W={K}, {t:?}: {e}"));
            assert_eq!(r.frames, reference(&jobs).0, "W={K}");
            cycles += l.compared_cycles();
        }
        cycles
    }
    let total = run::<8, 1>(12, 400, 1) + run::<32, 4>(25, 1000, 4) + run::<64, 8>(25, 1500, 8);
    eprintln!("{total} cycles compared, every output equal");
    assert!(total > 20_000, "{total} cycles compared");
}
