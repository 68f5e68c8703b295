//! `--backend sw|sim`: which implementation of the `Offload` trait a command runs on.

use clap::ValueEnum;
use offload_driver::{Offload, SoftwareOffload};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The software model (`offload-driver`).
    Sw,
    /// The hardware blocks' Verilog in Verilator (`offload-sim`), 8 octets per clock.
    Sim,
}

impl Backend {
    pub fn open(self) -> anyhow::Result<Box<dyn Offload>> {
        Ok(match self {
            Backend::Sw => Box::new(SoftwareOffload),
            Backend::Sim => Box::new(offload_sim::VerilatedOffload::new()?),
        })
    }
}

/// Every backend this build can run: the software model always, the Verilated models when
/// the build found Verilator (the reason is returned when it did not).
pub fn all_available() -> (Vec<Box<dyn Offload>>, Option<String>) {
    let mut v: Vec<Box<dyn Offload>> = vec![Box::new(SoftwareOffload)];
    let mut missing = None;
    match offload_sim::VerilatedOffload::new() {
        Ok(sim) => v.push(Box::new(sim)),
        Err(e) => missing = Some(format!("sim backend unavailable: {e}")),
    }
    (v, missing)
}
