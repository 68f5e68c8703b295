//! The AXI4-Stream traffic generator every streaming block's test uses: "these frames in, with
//! random idle cycles; random back-pressure on the outputs; collect the output frames", over
//! any [`ClockedModel`] (rust-hdl's simulation, a Verilated model, or both in lockstep).
//!
//! Timing convention (one loop iteration = one clock cycle `c`, `c` = rising edges so far):
//! inputs are driven and `eval` settles them with the clock low; handshakes (`tvalid &&
//! tready`) and other outputs are sampled then; `tick` is the rising edge that registers them.
//! A registered output reacting to a beat accepted in cycle `c` is therefore seen in `c + 1`.

use super::model::{BenchError, ClockedModel, PortId};
use crate::ports::Dir;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The ports of one AXI4-Stream interface of a model, found by name: `{prefix}tdata`,
/// `{prefix}tkeep` (optional), `{prefix}tvalid`, `{prefix}tlast` (optional),
/// `{prefix}tready` (optional: absent means always ready), and on inputs the side channel
/// `{prefix}len` (optional: the frame's length in octets, driven with every beat — the MPA
/// framer's ULPDU length).
#[derive(Clone, Debug)]
pub struct AxisPorts {
    pub tdata: PortId,
    pub tkeep: Option<PortId>,
    pub tvalid: PortId,
    pub tlast: Option<PortId>,
    pub tready: Option<PortId>,
    /// Frame length side channel (inputs only).
    pub len: Option<PortId>,
    /// Bytes per beat.
    pub bytes: usize,
}

impl AxisPorts {
    /// An interface the model consumes (`dir_in = true`: tdata is an input, tready an output)
    /// or produces.
    pub fn bind<M: ClockedModel + ?Sized>(m: &M, prefix: &str, dir_in: bool) -> Result<AxisPorts, BenchError> {
        let (din, dout) = if dir_in { (Dir::In, Dir::Out) } else { (Dir::Out, Dir::In) };
        let find = |n: &str, dir: Dir, required: bool| -> Result<Option<PortId>, BenchError> {
            let name = format!("{prefix}{n}");
            match m.port_id(&name) {
                Some(p) if m.port_info(p).1 == dir => Ok(Some(p)),
                Some(_) => Err(BenchError::Port(format!("`{name}` has the wrong direction"))),
                None if required => Err(BenchError::Port(format!("no port `{name}`"))),
                None => Ok(None),
            }
        };
        let tdata = find("tdata", din, true)?.unwrap();
        let width = m.port_info(tdata).2;
        if width % 8 != 0 {
            return Err(BenchError::Port(format!("{prefix}tdata is {width} bits, not whole bytes")));
        }
        Ok(AxisPorts {
            tdata,
            tkeep: find("tkeep", din, false)?,
            tvalid: find("tvalid", din, true)?.unwrap(),
            tlast: find("tlast", din, false)?,
            tready: find("tready", dout, false)?,
            len: if dir_in { find("len", Dir::In, false)? } else { None },
            bytes: width / 8,
        })
    }
}

/// Cycles without a beat accepted or delivered, with input still pending, after which a run
/// is an error ("stalled") rather than a test that never ends (`max_cycles` is unbounded by
/// default). Far above any block's legitimate pause: the longest is a W = 1 MCTP message of
/// 4224 octets buffered whole, a few thousand cycles.
pub const STALL_CYCLES: u64 = 100_000;

/// Random idle cycles and back-pressure.
#[derive(Clone, Debug)]
pub struct Traffic {
    /// Probability of an idle cycle (tvalid low) before each input beat.
    pub idle_prob: f64,
    /// Probability that an output's tready is low in a cycle.
    pub backpressure_prob: f64,
    pub seed: u64,
    /// Give up (an error) after this many cycles.
    pub max_cycles: u64,
    /// After the last input beat, stop once outputs were quiet this many cycles.
    pub drain_cycles: u64,
    /// Every output's tready is held low for this many cycles from the start (queues and
    /// buffers fill before anything drains), then follows `backpressure_prob`.
    pub output_hold_cycles: u64,
    /// A frame whose octets fill its last beat is closed by one more beat with `tkeep` = 0 and
    /// `tlast` (AXI4-Stream's null octets), on inputs with `tkeep`.
    pub empty_last: bool,
}

impl Traffic {
    /// No idle cycles, no back-pressure.
    pub fn full_rate() -> Traffic {
        Traffic { idle_prob: 0.0, backpressure_prob: 0.0, seed: 0, max_cycles: u64::MAX, drain_cycles: 8, output_hold_cycles: 0, empty_last: false }
    }
    pub fn random(idle_prob: f64, backpressure_prob: f64, seed: u64) -> Traffic {
        Traffic { idle_prob, backpressure_prob, seed, ..Traffic::full_rate() }
    }
}

/// What a run saw.
#[derive(Clone, Debug, Default)]
pub struct StreamRun {
    /// Per output interface, the frames it produced.
    pub outputs: Vec<Vec<Vec<u8>>>,
    /// Per input interface, the cycle in which each frame's last beat was accepted.
    pub last_beat_cycles: Vec<Vec<u64>>,
    /// Per output interface, the cycle in which each frame's last beat was taken.
    pub output_last_cycles: Vec<Vec<u64>>,
    /// Per input interface, bytes accepted.
    pub accepted_bytes: Vec<u64>,
    /// Per input interface, beats accepted.
    pub accepted_beats: Vec<u64>,
    /// Per input interface, first and last cycle a beat was accepted.
    pub accept_span: Vec<Option<(u64, u64)>>,
    /// Cycles in which an input beat was offered and not accepted (tready low).
    pub input_stalls: u64,
    /// Cycles simulated by this run.
    pub cycles: u64,
}

struct InState {
    frame: usize,
    offset: usize,
    presenting: bool,
    /// tvalid currently driven high.
    valid: bool,
    last: bool,
    nbytes: usize,
}

struct OutState {
    frame: Vec<u8>,
    /// Payload offered but not taken last cycle, which must be held (AXI4-Stream rule).
    held: Option<(Vec<u8>, u64, u64)>,
}

/// Runs `inputs` (interface, frames) through `m`, collecting what `outputs` produce.
/// `monitor(model, cycle)` runs every cycle after the handshakes are sampled (check side-band
/// outputs there; an `Err` stops the run). A frame of 0 bytes is one beat with `tkeep` = 0.
pub fn run_streams<M: ClockedModel + ?Sized>(
    m: &mut M,
    inputs: &[(&AxisPorts, &[Vec<u8>])],
    outputs: &[&AxisPorts],
    traffic: &Traffic,
    monitor: &mut dyn FnMut(&M, u64) -> Result<(), String>,
) -> Result<StreamRun, BenchError> {
    run_streams_with_frame_hook(m, inputs, outputs, traffic, monitor, &mut |_, _, _| ())
}

/// [`run_streams`], calling `on_frame(model, input, frame)` just before the first beat of each
/// input frame is driven: set a frame's side-channel inputs there (they stay as set until the
/// next call, so a block that latches them with the first beat sees them).
pub fn run_streams_with_frame_hook<M: ClockedModel + ?Sized>(
    m: &mut M,
    inputs: &[(&AxisPorts, &[Vec<u8>])],
    outputs: &[&AxisPorts],
    traffic: &Traffic,
    monitor: &mut dyn FnMut(&M, u64) -> Result<(), String>,
    on_frame: &mut dyn FnMut(&mut M, usize, usize),
) -> Result<StreamRun, BenchError> {
    let mut rng = StdRng::seed_from_u64(traffic.seed);
    let mut ins: Vec<InState> = inputs
        .iter()
        .map(|_| InState { frame: 0, offset: 0, presenting: false, valid: false, last: false, nbytes: 0 })
        .collect();
    let mut outs: Vec<OutState> = outputs.iter().map(|_| OutState { frame: Vec::new(), held: None }).collect();
    let mut run = StreamRun {
        outputs: vec![Vec::new(); outputs.len()],
        last_beat_cycles: vec![Vec::new(); inputs.len()],
        output_last_cycles: vec![Vec::new(); outputs.len()],
        accepted_bytes: vec![0; inputs.len()],
        accepted_beats: vec![0; inputs.len()],
        accept_span: vec![None; inputs.len()],
        ..Default::default()
    };
    for (p, frames) in inputs {
        if p.tkeep.is_none() && frames.iter().any(|f| f.len() % p.bytes != 0 || f.is_empty()) {
            return Err(BenchError::Port("input has no tkeep: frames must be whole beats".into()));
        }
        if p.tlast.is_none() && frames.len() > 1 {
            return Err(BenchError::Port("input has no tlast: one frame only".into()));
        }
    }
    for o in outputs {
        if let Some(r) = o.tready {
            m.set(r, 1);
        }
    }
    // A run starts with its inputs idle, whatever a caller drove before it (a test that drives
    // a beat by hand and then resets the block leaves it offered).
    for (p, _) in inputs {
        m.set(p.tvalid, 0);
    }
    let start = m.cycle();
    let mut quiet = 0u64;
    // The last cycle a beat moved on any interface (or the outputs were held on purpose).
    let mut last_progress = start;
    let mut buf = vec![0u8; 64];
    let max_bytes = inputs.iter().map(|(p, _)| p.bytes).chain(outputs.iter().map(|p| p.bytes)).max().unwrap_or(1);
    buf.resize(max_bytes, 0);
    loop {
        let cycle = m.cycle();
        if cycle - start >= traffic.max_cycles {
            return Err(BenchError::Failed(format!("timeout after {} cycles", cycle - start)));
        }
        // Drive inputs.
        let mut inputs_done = true;
        for (i, (p, frames)) in inputs.iter().enumerate() {
            let st = &mut ins[i];
            if st.frame >= frames.len() {
                if st.valid {
                    m.set(p.tvalid, 0);
                    st.valid = false;
                }
                continue;
            }
            inputs_done = false;
            if !st.presenting {
                if traffic.idle_prob > 0.0 && rng.gen::<f64>() < traffic.idle_prob {
                    if st.valid {
                        m.set(p.tvalid, 0);
                        st.valid = false;
                    }
                    continue;
                }
                if st.offset == 0 {
                    on_frame(m, i, st.frame);
                }
                let f = &frames[st.frame];
                let n = (f.len() - st.offset).min(p.bytes);
                st.nbytes = n;
                st.last = st.offset + n == f.len()
                    && !(traffic.empty_last && p.tkeep.is_some() && n == p.bytes && !f.is_empty());
                m.set_bytes(p.tdata, &f[st.offset..st.offset + n]);
                if let Some(k) = p.tkeep {
                    // Only the last beat may be partial, so n < bytes <= 64 there.
                    m.set(k, low_ones(n));
                }
                if let Some(l) = p.tlast {
                    m.set(l, st.last as u64);
                }
                if let Some(l) = p.len {
                    m.set(l, f.len() as u64);
                }
                if !st.valid {
                    m.set(p.tvalid, 1);
                    st.valid = true;
                }
                st.presenting = true;
            }
        }
        // Back-pressure.
        if traffic.backpressure_prob > 0.0 || traffic.output_hold_cycles > 0 {
            let holding = cycle - start < traffic.output_hold_cycles;
            for r in outputs.iter().filter_map(|o| o.tready) {
                let ready = !holding && (traffic.backpressure_prob == 0.0 || rng.gen::<f64>() >= traffic.backpressure_prob);
                m.set(r, ready as u64);
            }
        }
        m.eval();
        // Sample handshakes.
        for (i, (p, frames)) in inputs.iter().enumerate() {
            let st = &mut ins[i];
            if !st.presenting {
                continue;
            }
            let ready = p.tready.map_or(true, |r| m.get(r) != 0);
            if !ready {
                run.input_stalls += 1;
                continue;
            }
            st.presenting = false;
            last_progress = cycle;
            st.offset += st.nbytes;
            run.accepted_bytes[i] += st.nbytes as u64;
            run.accepted_beats[i] += 1;
            run.accept_span[i] = Some(match run.accept_span[i] {
                None => (cycle, cycle),
                Some((a, _)) => (a, cycle),
            });
            if st.last {
                run.last_beat_cycles[i].push(cycle);
                st.frame += 1;
                st.offset = 0;
            }
            let _ = frames;
        }
        let mut active = false;
        for (j, o) in outputs.iter().enumerate() {
            if m.get(o.tvalid) == 0 {
                if outs[j].held.is_some() {
                    return Err(BenchError::Failed(format!(
                        "AXI4-Stream violation at cycle {cycle}: output {j} dropped tvalid before tready"
                    )));
                }
                continue;
            }
            active = true;
            let bytes = &mut buf[..o.bytes];
            m.get_bytes(o.tdata, bytes);
            let keep = o.tkeep.map_or(u64::MAX, |k| m.get(k));
            let last = o.tlast.map_or(0, |l| m.get(l));
            if let Some((d, k, l)) = &outs[j].held {
                if d.as_slice() != &bytes[..] || *k != keep || *l != last {
                    return Err(BenchError::Failed(format!(
                        "AXI4-Stream violation at cycle {cycle}: output {j} changed its beat while stalled"
                    )));
                }
            }
            let ready = o.tready.map_or(true, |r| m.get(r) != 0);
            if !ready {
                outs[j].held = Some((bytes.to_vec(), keep, last));
                continue;
            }
            outs[j].held = None;
            last_progress = cycle;
            for (b, &x) in bytes.iter().enumerate() {
                if b >= 64 || keep >> b & 1 != 0 {
                    outs[j].frame.push(x);
                }
            }
            if last != 0 {
                run.output_last_cycles[j].push(cycle);
                run.outputs[j].push(std::mem::take(&mut outs[j].frame));
            }
        }
        monitor(m, cycle).map_err(BenchError::Failed)?;
        if cycle - start < traffic.output_hold_cycles {
            last_progress = cycle;
        }
        if !inputs_done && cycle - last_progress >= STALL_CYCLES {
            return Err(BenchError::Failed(format!(
                "stalled: input pending and no beat accepted or delivered for {STALL_CYCLES} cycles (cycle {cycle})"
            )));
        }
        m.tick();
        if inputs_done {
            quiet = if active { 0 } else { quiet + 1 };
            if quiet >= traffic.drain_cycles {
                break;
            }
        }
    }
    run.cycles = m.cycle() - start;
    Ok(run)
}

pub use crate::bits::low_ones;


/// The traffic grid every block is run over: {no idle, random idle} × {no back-pressure,
/// random back-pressure}, seeded.
pub fn traffic_grid(seed: u64) -> [Traffic; 4] {
    [
        Traffic::full_rate(),
        Traffic::random(0.3, 0.0, seed),
        Traffic::random(0.0, 0.3, seed),
        Traffic::random(0.25, 0.4, seed),
    ]
}

/// `n` frames of random octets: a third of them `min..=min+16` octets long (the short ones
/// where beat boundaries and partial beats meet), the rest `min..=max`.
pub fn random_frames(rng: &mut impl Rng, n: usize, min: usize, max: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = if rng.gen_ratio(1, 3) { rng.gen_range(min..=(min + 16).min(max)) } else { rng.gen_range(min..=max) };
            let mut f = vec![0u8; len];
            rng.fill(&mut f[..]);
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PORTS: [(&str, Dir, usize); 6] = [
        ("s_tdata", Dir::In, 8),
        ("s_tvalid", Dir::In, 1),
        ("s_tready", Dir::Out, 1),
        ("m_tdata", Dir::Out, 8),
        ("m_tvalid", Dir::Out, 1),
        ("m_tready", Dir::In, 1),
    ];
    const S_TREADY: usize = 2;

    /// A one-octet sink that refuses every beat before cycle `opens_at`, then takes one a clock;
    /// it never outputs anything.
    struct Refuser {
        opens_at: u64,
        cycle: u64,
        values: [u64; 6],
    }

    impl ClockedModel for Refuser {
        fn port_id(&self, name: &str) -> Option<PortId> {
            PORTS.iter().position(|p| p.0 == name).map(PortId)
        }
        fn port_count(&self) -> usize {
            PORTS.len()
        }
        fn port_info(&self, p: PortId) -> (&str, Dir, usize) {
            PORTS[p.0]
        }
        fn set(&mut self, p: PortId, v: u64) {
            self.values[p.0] = v;
        }
        fn get(&self, p: PortId) -> u64 {
            self.values[p.0]
        }
        fn set_bytes(&mut self, p: PortId, bytes: &[u8]) {
            self.values[p.0] = bytes.first().copied().unwrap_or(0) as u64;
        }
        fn get_bytes(&self, p: PortId, out: &mut [u8]) {
            out.fill(0);
            if let Some(o) = out.first_mut() {
                *o = self.values[p.0] as u8;
            }
        }
        fn eval(&mut self) {
            self.values[S_TREADY] = (self.cycle >= self.opens_at) as u64;
        }
        fn tick(&mut self) {
            self.cycle += 1;
        }
        fn cycle(&self) -> u64 {
            self.cycle
        }
    }

    fn run(opens_at: u64) -> (Result<StreamRun, BenchError>, u64) {
        let mut m = Refuser { opens_at, cycle: 0, values: [0; 6] };
        let input = AxisPorts::bind(&m, "s_", true).unwrap();
        let output = AxisPorts::bind(&m, "m_", false).unwrap();
        let frames = [vec![1, 2, 3]];
        let r = run_streams(&mut m, &[(&input, &frames[..])], &[&output], &Traffic::full_rate(), &mut |_, _| Ok(()));
        (r, m.cycle)
    }

    /// A block that never takes its input fails the run as "stalled" once `STALL_CYCLES` pass
    /// without a beat moving, instead of running forever (`Traffic::full_rate()` has no cycle
    /// limit); one that takes it a little before that bound is not an error.
    #[test]
    fn a_block_that_never_takes_its_input_fails_as_stalled() {
        let (r, cycles) = run(u64::MAX);
        match r {
            Err(BenchError::Failed(m)) => assert!(m.starts_with("stalled"), "{m}"),
            other => panic!("expected a stall error, got {other:?}"),
        }
        assert!((STALL_CYCLES..STALL_CYCLES + 10).contains(&cycles), "gave up after {cycles} cycles");
        let (r, _) = run(STALL_CYCLES - 10);
        assert_eq!(r.unwrap().accepted_bytes[0], 3);
    }
}
