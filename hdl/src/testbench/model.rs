//! What the testbench drives: a clocked model with named ports, whether rust-hdl simulates it
//! ([`super::HdlModel`]), Verilator runs its emitted Verilog (`offload_sim::VerilatedModel`), or
//! both run in lockstep ([`super::Lockstep`]).

use crate::ports::Dir;
use std::fmt;

/// Index of a port of a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortId(pub usize);

/// Why a testbench run could not start or failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchError {
    /// A port the driver needs is missing or has the wrong direction or width.
    Port(String),
    /// The design broke its contract (a timeout, a protocol violation, a wrong value).
    Failed(String),
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Port(m) => write!(f, "port: {m}"),
            BenchError::Failed(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for BenchError {}

/// A clocked model with named ports. One loop iteration of a testbench is one clock: set
/// inputs, [`eval`](ClockedModel::eval) (settle with the clock low), read outputs,
/// [`tick`](ClockedModel::tick) (the rising edge).
pub trait ClockedModel {
    fn port_id(&self, name: &str) -> Option<PortId>;
    /// Number of ports; ids are `0..port_count()`.
    fn port_count(&self) -> usize;
    /// Name, direction and width of a port.
    fn port_info(&self, p: PortId) -> (&str, Dir, usize);
    /// Writes a port of up to 64 bits.
    fn set(&mut self, p: PortId, v: u64);
    /// Reads a port of up to 64 bits (the low 64 bits of a wider one).
    fn get(&self, p: PortId) -> u64;
    /// Writes a port of any width from little-endian octets (missing ones are zero).
    fn set_bytes(&mut self, p: PortId, bytes: &[u8]);
    /// Reads a port of any width as little-endian octets into `out`.
    fn get_bytes(&self, p: PortId, out: &mut [u8]);
    fn eval(&mut self);
    fn tick(&mut self);
    /// Rising edges so far.
    fn cycle(&self) -> u64;

    /// Holds `reset` (when the model has one) high for `cycles` edges, then low.
    fn reset(&mut self, cycles: usize) {
        if let Some(r) = self.port_id("reset") {
            self.set(r, 1);
            for _ in 0..cycles {
                self.eval();
                self.tick();
            }
            self.set(r, 0);
            self.eval();
        }
    }

    /// The port called `name`, which must exist with `dir` (and `width` when given).
    fn expect_port(&self, name: &str, dir: Dir, width: Option<usize>) -> Result<PortId, BenchError> {
        let id = self.port_id(name).ok_or_else(|| BenchError::Port(format!("no port `{name}`")))?;
        let (_, d, w) = self.port_info(id);
        if d != dir || width.is_some_and(|x| x != w) {
            return Err(BenchError::Port(format!("`{name}`: {d:?} {w} bits, expected {dir:?} {width:?}")));
        }
        Ok(id)
    }
}
