//! The cycle model against the software receiver (`offload_driver::mctp::receive`, one
//! context): random messages, interleavings and corruptions from `test_support`, every
//! binding/MIC/unit-rule setting, input gaps and output back-pressure, at every width;
//! delivered messages byte-exact and in order, every drop counter equal.

use super::model::{keep_mask, MctpRxModel, RxCounters, RxIn, HW_MAX_LEN};
use crate::test_support::{random_rx_frames, rx_reference, RxSetup};
use offload_driver::mctp::{transmit, Message, SmbusAddresses, TxConfig, TxRequest};
use rand::{Rng, SeedableRng};

/// What the model produced.
pub struct ModelRun {
    pub messages: Vec<Message>,
    pub counters: RxCounters,
    pub cycles: u64,
    /// Input beats taken.
    pub in_beats: u64,
    /// First and last cycle an input beat was taken.
    pub span: (u64, u64),
}

pub fn run_model(w: usize, setup: &RxSetup, frames: &[Vec<u8>], p_valid: f64, p_ready: f64, rng: &mut impl Rng) -> ModelRun {
    let mut m = MctpRxModel::new(w);
    let mut i = RxIn {
        reset: true,
        cfg_smbus: setup.smbus,
        cfg_mic: setup.mic,
        cfg_strict: setup.strict,
        cfg_max_len: setup.max_len as u32,
        s_tdata: vec![0; w],
        ..RxIn::default()
    };
    m.clock(&i);
    i.reset = false;
    let mut beats: Vec<(Vec<u8>, u64, bool)> = Vec::new();
    for f in frames {
        if f.is_empty() {
            beats.push((vec![0x5A; w], 0, true));
            continue;
        }
        let n = f.len().div_ceil(w);
        for (k, c) in f.chunks(w).enumerate() {
            let mut d = c.to_vec();
            d.resize(w, 0xEE);
            beats.push((d, keep_mask(c.len()), k + 1 == n));
        }
    }
    let mut next = 0;
    let mut messages = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut fields = None;
    let mut cycles = 0u64;
    let mut quiet = 0;
    let mut span = (u64::MAX, 0);
    loop {
        cycles += 1;
        assert!(cycles < 100_000 + 40 * beats.len() as u64, "stuck after {} messages", messages.len());
        i.s_tvalid = next < beats.len() && rng.gen_bool(p_valid);
        if i.s_tvalid {
            let (d, k, l) = &beats[next];
            i.s_tdata = d.clone();
            i.s_tkeep = *k;
            i.s_tlast = *l;
        } else {
            i.s_tdata = vec![0xA5; w];
            i.s_tlast = rng.gen();
            i.s_tkeep = rng.gen();
        }
        i.m_tready = rng.gen_bool(p_ready);
        let o = m.outputs(&i);
        if o.m_tvalid && i.m_tready {
            if !o.m_tlast {
                assert_eq!(o.m_tkeep, keep_mask(w), "partial tkeep only on tlast");
            }
            let f = (o.m_src_eid, o.m_dst_eid, o.m_tag, o.m_to);
            assert!(fields.is_none_or(|x| x == f), "header fields changed within a message");
            fields = Some(f);
            cur.extend((0..w).filter(|b| o.m_tkeep >> b & 1 != 0).map(|b| o.m_tdata[b]));
            if o.m_tlast {
                messages.push(Message { src: f.0, dst: f.1, tag: f.2, tag_owner: f.3, bytes: std::mem::take(&mut cur) });
                fields = None;
            }
        }
        if i.s_tvalid && o.s_tready {
            span = (span.0.min(cycles), cycles);
            next += 1;
        }
        let busy = o.m_tvalid || m.regs.end || m.regs.dcount > 0 || m.regs.rd_active;
        m.clock(&i);
        if next == beats.len() {
            quiet = if busy { 0 } else { quiet + 1 };
            if quiet > 4 {
                break;
            }
        }
    }
    ModelRun { messages, counters: m.regs.counters, cycles, in_beats: beats.len() as u64, span }
}

fn check(w: usize, setup: &RxSetup, frames: &[Vec<u8>], pv: f64, pr: f64, rng: &mut impl Rng, what: &str) -> ModelRun {
    let run = run_model(w, setup, frames, pv, pr, rng);
    let want = rx_reference(setup, frames);
    for (k, (g, r)) in run.messages.iter().zip(&want.messages).enumerate() {
        assert_eq!((g.src, g.dst, g.tag, g.tag_owner), (r.src, r.dst, r.tag, r.tag_owner), "{what}: message {k} fields");
        crate::test_support::assert_same(&g.bytes, &r.bytes, &format!("{what}: message {k}"));
    }
    assert_eq!(run.messages.len(), want.messages.len(), "{what}: message count");
    assert_eq!(run.counters, want.counters, "{what}: counters (got left, software right)");
    run
}

#[test]
fn model_matches_software_receive_clean() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5EC);
    for w in [1, 4, 8] {
        for round in 0..8 {
            let setup = RxSetup { max_len: 4224, ..RxSetup::random(&mut rng) };
            let frames = random_rx_frames(&mut rng, &setup, 12, 1500, 0.0);
            let (pv, pr) = [(1.0, 1.0), (0.7, 1.0), (1.0, 0.6), (0.5, 0.5)][round % 4];
            let run = check(w, &setup, &frames, pv, pr, &mut rng, &format!("W={w} clean round {round} {setup:?}"));
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
            let run = check(w, &setup, &frames, pv, pr, &mut rng, &format!("W={w} corrupted round {round} {setup:?}"));
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
    const FRAME: [u8; 12] = [0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30];
    let mut nvme = vec![0x84u8, 0x08, 0, 0];
    nvme.extend((0..58).map(|i| i as u8));
    let req = TxRequest {
        config: TxConfig::new(0x08, 0x09, 0, true),
        append_mic: true,
        smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1D }),
    };
    let nvme_frames = transmit(&req, &nvme).unwrap();
    assert_eq!(nvme_frames.len(), 2);
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for w in [1, 4, 8] {
        let plain = RxSetup { smbus: true, mic: false, strict: true, max_len: 4224 };
        let run = check(w, &plain, &[FRAME.to_vec()], 1.0, 1.0, &mut rng, "golden get eid");
        assert_eq!(run.messages[0].bytes, [0x00, 0x80, 0x02]);
        assert_eq!((run.messages[0].src, run.messages[0].dst, run.messages[0].tag_owner), (0x08, 0x09, true));
        let mic = RxSetup { mic: true, ..plain };
        let run = check(w, &mic, &nvme_frames, 1.0, 1.0, &mut rng, "golden nvme-mi");
        assert_eq!(run.messages[0].bytes, nvme, "W={w}: MIC checked and stripped");
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
        let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: HW_MAX_LEN };
        let mut frames = Vec::new();
        for len in [HW_MAX_LEN - 4, 100, HW_MAX_LEN - 4, HW_MAX_LEN - 3] {
            let mut msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            msg[0] |= 0x80;
            let req = TxRequest { config: TxConfig { mtu: 251, ..TxConfig::new(8, 9, 1, true) }, append_mic: true, smbus: None };
            match transmit(&req, &msg) {
                Ok(f) => frames.extend(f),
                Err(_) => {
                    offload_driver::nvme_mi::append_mic(&mut msg);
                    let req = TxRequest { append_mic: false, ..req };
                    frames.extend(transmit(&req, &msg).unwrap());
                }
            }
        }
        let run = check(w, &setup, &frames, 1.0, 0.3, &mut rng, &format!("W={w} longest"));
        assert_eq!((run.counters.messages, run.counters.too_long), (3, 1));
    }
}

/// Throughput: with input always valid and output always ready, the input takes one beat per
/// clock apart from the one judging cycle after each packet.
#[test]
fn throughput_one_beat_per_clock_plus_one_per_packet() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for w in [1, 4, 8] {
        let setup = RxSetup { smbus: false, mic: true, strict: true, max_len: 4224 };
        let frames = random_rx_frames(&mut rng, &setup, 30, 4224, 0.0);
        let run = check(w, &setup, &frames, 1.0, 1.0, &mut rng, &format!("W={w} rate"));
        let packets = frames.len() as u64;
        let clocks = run.span.1 - run.span.0 + 1;
        assert!(clocks <= run.in_beats + packets, "W={w}: {clocks} clocks for {} beats + {packets} packets", run.in_beats);
        assert!(run.cycles > clocks, "W={w}: the last message drains after the input ends");
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
    for (w, v) in [(1, verilog_of::<8, 1>()), (4, verilog_of::<32, 4>()), (8, verilog_of::<64, 8>())] {
        yosys_validate(&format!("mctp_rx_w{w}"), &v).unwrap_or_else(|e| panic!("W={w}: {e:?}"));
        crate::tools::verilator_lint(&v, "top").unwrap_or_else(|e| panic!("W={w}: {e}"));
    }
}

/// rust-hdl's own simulator: the block (which runs the model) takes the DSP0237 golden SMBus
/// frame and delivers its 3-octet message with the header fields.
#[test]
fn rust_hdl_simulation_golden_frame() {
    use rust_hdl::prelude::*;
    const FRAME: [u8; 12] = [0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30];
    let mut uut = super::MctpRx::<32, 4>::default();
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<super::MctpRx<32, 4>>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<super::MctpRx<32, 4>>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        x.m_tready.next = true;
        x.cfg_smbus.next = true;
        x.cfg_strict.next = true;
        x.cfg_max_len.next = 4224u64.into();
        wait_clock_cycle!(sim, clock, x);
        x.reset.next = false;
        let mut out = Vec::new();
        let mut sent = 0;
        let mut src = 0;
        for _ in 0..40 {
            if sent < FRAME.len() {
                let n = (FRAME.len() - sent).min(4);
                x.s_tvalid.next = true;
                x.s_tlast.next = sent + n == FRAME.len();
                x.s_tkeep.next = ((1u64 << n) - 1).into();
                x.s_tdata.next = crate::bits::bytes_to_bits::<32>(&FRAME[sent..sent + n]);
            } else {
                x.s_tvalid.next = false;
            }
            wait_clock_true!(sim, clock, x);
            if x.s_tvalid.val() && x.s_tready.val() {
                sent += (FRAME.len() - sent).min(4);
            }
            if x.m_tvalid.val() {
                let d = x.m_tdata.val();
                for b in 0..4 {
                    if x.m_tkeep.val().get_bit(b) {
                        out.push(d.get_bits::<8>(8 * b).index() as u8);
                    }
                }
                src = crate::bits::bits_to_u64(&x.m_src_eid.val());
                if x.m_tlast.val() {
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
                panic!("seed {seed} W={w} {setup:?}: got {:?}, software {:?}", run.counters, want.counters);
            }
        }
    }
}
