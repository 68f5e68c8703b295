//! A reusable AXI4-Stream driver and monitor for clocked models: every block's co-simulation
//! test is "these frames in, with random idle cycles; random back-pressure on the outputs;
//! collect the output frames and compare with the software model".
//!
//! Timing convention (one loop iteration = one clock cycle `c`, `c` = rising edges so far):
//! inputs are driven and `eval` settles them with the clock low; handshakes (`tvalid &&
//! tready`) and other outputs are sampled then; `tick` is the rising edge that registers them.
//! A registered output reacting to a beat accepted in cycle `c` is therefore seen in `c + 1`.

use crate::model::{PortDir, PortId, SimError, VerilatedModel};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::Path;

/// A clocked model with named ports: what the driver needs. [`VerilatedModel`] implements it;
/// a Rust reference model could too.
pub trait ClockedModel {
    fn port_id(&self, name: &str) -> Option<PortId>;
    fn port_dir_width(&self, p: PortId) -> (PortDir, usize);
    fn set(&mut self, p: PortId, v: u64);
    fn get(&self, p: PortId) -> u64;
    fn set_bytes(&mut self, p: PortId, bytes: &[u8]);
    fn get_bytes(&self, p: PortId, out: &mut [u8]);
    fn eval(&mut self);
    fn tick(&mut self);
    fn cycle(&self) -> u64;
}

impl ClockedModel for VerilatedModel {
    fn port_id(&self, name: &str) -> Option<PortId> {
        self.port(name)
    }
    fn port_dir_width(&self, p: PortId) -> (PortDir, usize) {
        let i = &self.info().ports[p.0];
        (i.dir, i.width)
    }
    #[inline]
    fn set(&mut self, p: PortId, v: u64) {
        VerilatedModel::set(self, p, v)
    }
    #[inline]
    fn get(&self, p: PortId) -> u64 {
        VerilatedModel::get(self, p)
    }
    #[inline]
    fn set_bytes(&mut self, p: PortId, bytes: &[u8]) {
        VerilatedModel::set_bytes(self, p, bytes)
    }
    fn get_bytes(&self, p: PortId, out: &mut [u8]) {
        VerilatedModel::get_bytes(self, p, out)
    }
    #[inline]
    fn eval(&mut self) {
        VerilatedModel::eval(self)
    }
    #[inline]
    fn tick(&mut self) {
        VerilatedModel::tick(self)
    }
    fn cycle(&self) -> u64 {
        VerilatedModel::cycle(self)
    }
}

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
    pub fn bind<M: ClockedModel>(m: &M, prefix: &str, dir_in: bool) -> Result<AxisPorts, SimError> {
        let (din, dout) = if dir_in { (PortDir::In, PortDir::Out) } else { (PortDir::Out, PortDir::In) };
        let find = |n: &str, dir: PortDir, required: bool| -> Result<Option<PortId>, SimError> {
            let name = format!("{prefix}{n}");
            match m.port_id(&name) {
                Some(p) if m.port_dir_width(p).0 == dir => Ok(Some(p)),
                Some(_) => Err(SimError::Port(format!("`{name}` has the wrong direction"))),
                None if required => Err(SimError::Port(format!("no port `{name}`"))),
                None => Ok(None),
            }
        };
        let tdata = find("tdata", din, true)?.unwrap();
        let width = m.port_dir_width(tdata).1;
        if width % 8 != 0 {
            return Err(SimError::Port(format!("{prefix}tdata is {width} bits, not whole bytes")));
        }
        Ok(AxisPorts {
            tdata,
            tkeep: find("tkeep", din, false)?,
            tvalid: find("tvalid", din, true)?.unwrap(),
            tlast: find("tlast", din, false)?,
            tready: find("tready", dout, false)?,
            len: if dir_in { find("len", PortDir::In, false)? } else { None },
            bytes: width / 8,
        })
    }
}

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
}

impl Traffic {
    /// No idle cycles, no back-pressure.
    pub fn full_rate() -> Traffic {
        Traffic { idle_prob: 0.0, backpressure_prob: 0.0, seed: 0, max_cycles: u64::MAX, drain_cycles: 8 }
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
pub fn run_streams<M: ClockedModel>(
    m: &mut M,
    inputs: &[(&AxisPorts, &[Vec<u8>])],
    outputs: &[&AxisPorts],
    traffic: &Traffic,
    monitor: &mut dyn FnMut(&M, u64) -> Result<(), String>,
) -> Result<StreamRun, SimError> {
    run_streams_with_frame_hook(m, inputs, outputs, traffic, monitor, &mut |_, _, _| ())
}

/// [`run_streams`], calling `on_frame(model, input, frame)` just before the first beat of each
/// input frame is driven: set a frame's side-channel inputs there (they stay as set until the
/// next call, so a block that latches them with the first beat sees them).
pub fn run_streams_with_frame_hook<M: ClockedModel>(
    m: &mut M,
    inputs: &[(&AxisPorts, &[Vec<u8>])],
    outputs: &[&AxisPorts],
    traffic: &Traffic,
    monitor: &mut dyn FnMut(&M, u64) -> Result<(), String>,
    on_frame: &mut dyn FnMut(&mut M, usize, usize),
) -> Result<StreamRun, SimError> {
    let mut rng = StdRng::seed_from_u64(traffic.seed);
    let mut ins: Vec<InState> = inputs
        .iter()
        .map(|_| InState { frame: 0, offset: 0, presenting: false, valid: false, last: false, nbytes: 0 })
        .collect();
    let mut outs: Vec<OutState> = outputs.iter().map(|_| OutState { frame: Vec::new(), held: None }).collect();
    let mut run = StreamRun {
        outputs: vec![Vec::new(); outputs.len()],
        last_beat_cycles: vec![Vec::new(); inputs.len()],
        accepted_bytes: vec![0; inputs.len()],
        accepted_beats: vec![0; inputs.len()],
        accept_span: vec![None; inputs.len()],
        ..Default::default()
    };
    for (p, frames) in inputs {
        if p.tkeep.is_none() && frames.iter().any(|f| f.len() % p.bytes != 0 || f.is_empty()) {
            return Err(SimError::Port("input has no tkeep: frames must be whole beats".into()));
        }
        if p.tlast.is_none() && frames.len() > 1 {
            return Err(SimError::Port("input has no tlast: one frame only".into()));
        }
    }
    for o in outputs {
        if let Some(r) = o.tready {
            m.set(r, 1);
        }
    }
    let start = m.cycle();
    let mut quiet = 0u64;
    let mut buf = vec![0u8; 64];
    let max_bytes = inputs.iter().map(|(p, _)| p.bytes).chain(outputs.iter().map(|p| p.bytes)).max().unwrap_or(1);
    buf.resize(max_bytes, 0);
    loop {
        let cycle = m.cycle();
        if cycle - start >= traffic.max_cycles {
            return Err(SimError::Failed(format!("timeout after {} cycles", cycle - start)));
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
                st.last = st.offset + n == f.len();
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
        for o in outputs {
            if let (Some(r), true) = (o.tready, traffic.backpressure_prob > 0.0) {
                m.set(r, (rng.gen::<f64>() >= traffic.backpressure_prob) as u64);
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
                    return Err(SimError::Failed(format!(
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
                    return Err(SimError::Failed(format!(
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
            for (b, &x) in bytes.iter().enumerate() {
                if b >= 64 || keep >> b & 1 != 0 {
                    outs[j].frame.push(x);
                }
            }
            if last != 0 {
                run.outputs[j].push(std::mem::take(&mut outs[j].frame));
            }
        }
        monitor(m, cycle).map_err(SimError::Failed)?;
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

/// Runs `case` on a fresh model; if it fails, runs it again on another fresh model writing a
/// VCD under [`crate::trace_dir`], and returns the first error with the trace's path. `case`
/// must be deterministic (seeded) for the trace to show the same failure.
pub fn with_trace_on_failure<T>(
    info: &'static crate::ModelInfo,
    label: &str,
    case: impl Fn(&mut VerilatedModel) -> Result<T, SimError>,
) -> Result<T, SimError> {
    let mut m = VerilatedModel::new(info);
    match case(&mut m) {
        Ok(v) => Ok(v),
        Err(e) => {
            drop(m);
            let safe: String =
                label.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
            let path = crate::trace_dir().join(format!("{}-{safe}.vcd", info.name));
            let mut t = VerilatedModel::new(info);
            let traced = match t.start_trace(&path) {
                Ok(()) => {
                    let _ = case(&mut t);
                    drop(t);
                    format!("VCD of the failing run: {}", display(&path))
                }
                Err(te) => format!("(no VCD: {te})"),
            };
            Err(SimError::Failed(format!("{}: {e}\n  {traced}", info.name)))
        }
    }
}

/// `n` low bits set (n <= 64).
pub fn low_ones(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

fn display(p: &Path) -> String {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf()).display().to_string()
}
