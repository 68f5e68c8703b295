//! The cycle model against the software `offload_driver::mctp::transmit`: random messages,
//! header fields, MTUs, MIC and SMBus on/off, refused configurations, input gaps and output
//! back-pressure, at every width; byte-exact, packet boundaries on `tlast`.

use super::model::{keep_mask, MctpTxModel, TxIn};
use offload_driver::mctp::{transmit, SmbusAddresses, TxConfig, TxRequest};
use crate::test_support::{assert_same, random_tx_request};
use rand::{Rng, SeedableRng};

/// One message with its request (the request's fields go on the side channels).
#[derive(Clone, Debug)]
pub struct Job {
    pub req: TxRequest,
    pub msg: Vec<u8>,
    /// `s_len` to drive (normally `msg.len()`).
    pub s_len: u32,
}

pub fn side_channels(i: &mut TxIn, req: &TxRequest) {
    let c = &req.config;
    i.cfg_src_eid = c.src;
    i.cfg_dst_eid = c.dst;
    i.cfg_tag = c.tag;
    i.cfg_to = c.tag_owner;
    i.cfg_seq = c.start_seq;
    i.cfg_mtu = c.mtu.min(255) as u8;
    i.cfg_mic = req.append_mic;
    i.cfg_smbus = req.smbus.is_some();
    let a = req.smbus.unwrap_or(SmbusAddresses { src: 0, dst: 0 });
    i.cfg_smbus_src = a.src;
    i.cfg_smbus_dst = a.dst;
}

/// What the model produced: the frames (one per `tlast`), clocks, and the counters.
pub struct ModelRun {
    pub frames: Vec<Vec<u8>>,
    pub cycles: u64,
    pub packets: u32,
    pub messages: u32,
    pub dropped: u32,
    pub len_errors: u32,
    /// First and last cycle an input beat was taken.
    pub span: (u64, u64),
}

pub fn run_model(w: usize, jobs: &[Job], p_valid: f64, p_ready: f64, rng: &mut impl Rng) -> ModelRun {
    let mut m = MctpTxModel::new(w);
    let mut i = TxIn { reset: true, s_tdata: vec![0; w], ..TxIn::default() };
    m.clock(&i);
    i.reset = false;
    // Beats: (job, data, keep, last).
    let mut beats: Vec<(usize, Vec<u8>, u64, bool)> = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        if job.msg.is_empty() {
            beats.push((j, vec![0x5A; w], 0, true));
            continue;
        }
        let chunks: Vec<&[u8]> = job.msg.chunks(w).collect();
        let last = chunks.len() - 1;
        for (k, c) in chunks.into_iter().enumerate() {
            let mut d = c.to_vec();
            d.resize(w, 0xEE); // junk past tkeep must not leak out
            beats.push((j, d, keep_mask(c.len()), k == last));
        }
    }
    let mut next = 0;
    let mut frames = Vec::new();
    let mut cur = Vec::new();
    let mut cycles = 0u64;
    let mut quiet = 0;
    let mut span = (u64::MAX, 0);
    loop {
        cycles += 1;
        assert!(cycles < 100_000 + 20 * beats.len() as u64, "stuck after {} frames", frames.len());
        i.s_tvalid = next < beats.len() && rng.gen_bool(p_valid);
        if i.s_tvalid {
            let (j, d, k, l) = &beats[next];
            i.s_tdata = d.clone();
            i.s_tkeep = *k;
            i.s_tlast = *l;
            i.s_len = jobs[*j].s_len;
            side_channels(&mut i, &jobs[*j].req);
        } else {
            // Junk on idle cycles: only tvalid qualifies the rest.
            i.s_tdata = vec![0xA5; w];
            i.s_tlast = rng.gen();
            i.s_len = rng.gen();
            i.cfg_mtu = rng.gen();
            i.cfg_smbus = rng.gen();
            i.cfg_mic = rng.gen();
        }
        i.m_tready = rng.gen_bool(p_ready);
        let o = m.outputs(&i);
        let busy = o.m_tvalid || m.regs.phase != super::model::Phase::Idle;
        if o.m_tvalid && i.m_tready {
            if !o.m_tlast {
                assert_eq!(o.m_tkeep, keep_mask(w), "partial tkeep only on tlast");
            }
            cur.extend((0..w).filter(|b| o.m_tkeep >> b & 1 != 0).map(|b| o.m_tdata[b]));
            if o.m_tlast {
                frames.push(std::mem::take(&mut cur));
            }
        }
        if i.s_tvalid && o.s_tready {
            span = (span.0.min(cycles), cycles);
            next += 1;
        }
        m.clock(&i);
        if next == beats.len() {
            quiet = if busy { 0 } else { quiet + 1 };
            if quiet > 4 {
                break;
            }
        }
    }
    let r = &m.regs;
    ModelRun {
        frames,
        cycles,
        packets: r.packets,
        messages: r.messages,
        dropped: r.dropped,
        len_errors: r.len_errors,
        span,
    }
}

/// The software's frames for the jobs it accepts, and how many it refuses.
pub fn reference(jobs: &[Job]) -> (Vec<Vec<u8>>, usize) {
    let mut out = Vec::new();
    let mut refused = 0;
    for j in jobs {
        match transmit(&j.req, &j.msg) {
            Ok(f) => out.extend(f),
            Err(_) => refused += 1,
        }
    }
    (out, refused)
}

/// A random request from the generator the co-simulation shares
/// ([`crate::test_support::random_tx_request`]).
pub fn random_job(rng: &mut impl Rng, max_len: usize, p_bad: f64) -> Job {
    let (req, msg) = random_tx_request(rng, max_len, p_bad);
    let s_len = msg.len() as u32;
    Job { req, msg, s_len }
}

fn check(w: usize, jobs: &[Job], p_valid: f64, p_ready: f64, rng: &mut impl Rng, what: &str) -> ModelRun {
    let run = run_model(w, jobs, p_valid, p_ready, rng);
    let (want, refused) = reference(jobs);
    assert_eq!(run.frames.len(), want.len(), "{what}: frame count");
    for (k, (g, r)) in run.frames.iter().zip(&want).enumerate() {
        assert_same(g, r, &format!("{what}: frame {k}"));
    }
    assert_eq!(run.dropped as usize, refused, "{what}: dropped");
    assert_eq!(run.messages as usize, jobs.len() - refused, "{what}: messages");
    assert_eq!(run.packets as usize, want.len(), "{what}: packets");
    assert_eq!(run.len_errors, 0, "{what}: len_errors");
    run
}

#[test]
fn model_matches_software_transmit() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xDC);
    for w in [1, 4, 8] {
        for round in 0..24 {
            let max = [300, 1200, 4224][round % 3];
            let jobs: Vec<Job> = (0..rng.gen_range(1..25)).map(|_| random_job(&mut rng, max, 0.1)).collect();
            let (pv, pr) = [(1.0, 1.0), (0.7, 1.0), (1.0, 0.6), (0.5, 0.5)][round % 4];
            check(w, &jobs, pv, pr, &mut rng, &format!("W={w} round {round}"));
        }
    }
}

#[test]
fn mic_straddling_the_last_two_packets_and_exact_multiples() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for w in [1, 4, 8] {
        for mtu in [64usize, 65, 250] {
            for tail in 0..=5usize {
                for smbus in [false, true] {
                    // Message + MIC ends `tail` octets past an MTU boundary: the MIC splits
                    // (tail 1..=3), ends a packet (0) or sits whole in the last one (4, 5).
                    let len = 2 * mtu + tail - 4;
                    let mut msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    msg[0] = 0x84;
                    let req = TxRequest {
                        config: TxConfig { mtu, ..TxConfig::new(0x1D, 0x08, 5, false) },
                        append_mic: true,
                        smbus: smbus.then_some(SmbusAddresses { src: 0x10, dst: 0x1D }),
                    };
                    let jobs = [Job { req, s_len: len as u32, msg }];
                    check(w, &jobs, 1.0, 1.0, &mut rng, &format!("W={w} mtu {mtu} tail {tail} smbus {smbus}"));
                }
            }
        }
    }
}

/// The output never idles on back-to-back messages: the clocks are the output beats.
#[test]
fn throughput_one_beat_per_clock() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for w in [1, 4, 8] {
        for smbus in [false, true] {
            let jobs: Vec<Job> = (0..40)
                .map(|k| {
                    let mut msg = vec![0x84u8; 1 + (k * 97) % 4000];
                    msg[1..].iter_mut().for_each(|b| *b = rng.gen());
                    let req = TxRequest {
                        config: TxConfig { mtu: 64 + k % 187, ..TxConfig::new(0x20, 0x30, 1, true) },
                        append_mic: k % 2 == 0,
                        smbus: smbus.then_some(SmbusAddresses { src: 0x11, dst: 0x22 }),
                    };
                    Job { req, s_len: msg.len() as u32, msg }
                })
                .collect();
            let run = check(w, &jobs, 1.0, 1.0, &mut rng, &format!("W={w} smbus {smbus}"));
            let beats: u64 = run.frames.iter().map(|f| f.len().div_ceil(w) as u64).sum();
            let clocks = run.span.1 - run.span.0 + 1;
            assert!(clocks <= beats + 1, "W={w} smbus {smbus}: {clocks} clocks for {beats} output beats");
            assert!(run.cycles >= beats, "W={w}: {} clocks in all for {beats} output beats", run.cycles);
        }
    }
}

/// `s_len` not matching the frame: no hang, well-formed frames, counted; the next message is
/// packetized correctly.
#[test]
fn wrong_s_len_is_counted_and_recovered() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    for w in [1, 4, 8] {
        for (len, s_len) in [(100usize, 130u32), (130, 100), (10, 9), (9, 10), (300, 64)] {
            let bad = {
                let mut j = random_job(&mut rng, 50, 0.0);
                j.msg = vec![0x84; len];
                j.s_len = s_len;
                j
            };
            let good = random_job(&mut rng, 500, 0.0);
            let run = run_model(w, &[bad.clone(), good.clone()], 0.8, 0.8, &mut rng);
            assert_eq!(run.len_errors, 1, "W={w} {len} vs {s_len}");
            assert_eq!(run.messages, 2);
            let (want, _) = reference(&[good]);
            let n = want.len();
            assert!(run.frames.len() > n);
            for (g, r) in run.frames[run.frames.len() - n..].iter().zip(&want) {
                assert_same(g, r, &format!("W={w}: message after a wrong s_len"));
            }
        }
    }
}

fn verilog_of<const D: usize, const K: usize>() -> String {
    use rust_hdl::prelude::*;
    let mut uut = super::MctpTx::<D, K>::default();
    uut.connect_all();
    rust_hdl::prelude::generate_verilog(&uut)
}

/// The emitted Verilog at every shipped width passes rust-hdl's Yosys check (no latches, no
/// undriven or implicit wires) and Verilator's lint with only rust-hdl's documented waivers.
#[test]
fn verilog_is_clean() {
    use rust_hdl::prelude::*;
    for (w, v) in [(1, verilog_of::<8, 1>()), (4, verilog_of::<32, 4>()), (8, verilog_of::<64, 8>())] {
        yosys_validate(&format!("mctp_tx_w{w}"), &v).unwrap_or_else(|e| panic!("W={w}: {e:?}"));
        crate::tools::verilator_lint(&v, "top").unwrap_or_else(|e| panic!("W={w}: {e}"));
    }
}

/// rust-hdl's own simulator: the block (which runs the model) packetizes a 7-octet MCTP
/// control message for SMBus exactly as `transmit` does.
#[test]
fn rust_hdl_simulation_smbus_packet() {
    use rust_hdl::prelude::*;
    let req = TxRequest {
        config: TxConfig::new(0x08, 0x09, 0, true),
        append_mic: false,
        smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1D }),
    };
    let msg = vec![0x00u8, 0x80, 0x02, 1, 2, 3, 4];
    let want = transmit(&req, &msg).unwrap().concat();
    let mut uut = super::MctpTx::<32, 4>::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<super::MctpTx<32, 4>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<super::MctpTx<32, 4>>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        x.m.tready.next = true;
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        x.cfg.src_eid.next = 0x08u64.into();
        x.cfg.dst_eid.next = 0x09u64.into();
        x.cfg.to.next = true;
        x.cfg.mtu.next = 64u64.into();
        x.cfg.smbus.next = true;
        x.cfg.smbus_src.next = 0x10u64.into();
        x.cfg.smbus_dst.next = 0x1Du64.into();
        x.s_len.next = (msg.len() as u64).into();
        let mut out = Vec::new();
        let mut sent = 0;
        for _ in 0..40 {
            if sent < msg.len() {
                let n = (msg.len() - sent).min(4);
                x.s.tvalid.next = true;
                x.s.tlast.next = sent + n == msg.len();
                x.s.tkeep.next = ((1u64 << n) - 1).into();
                x.s.tdata.next = crate::crc::bytes_to_bits::<32>(&msg[sent..sent + n]);
            } else {
                x.s.tvalid.next = false;
            }
            wait_clock_true!(sim, clock, x);
            if x.s.tvalid.val() && x.s.tready.val() {
                sent += (msg.len() - sent).min(4);
            }
            if x.m.tvalid.val() {
                let d = x.m.tdata.val();
                for b in 0..4 {
                    if x.m.tkeep.val().get_bit(b) {
                        out.push(d.get_bits::<8>(8 * b).index() as u8);
                    }
                }
                if x.m.tlast.val() {
                    break;
                }
            }
            wait_clock_false!(sim, clock, x);
        }
        sim_assert!(sim, out == want, x);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10_000).unwrap();
}
