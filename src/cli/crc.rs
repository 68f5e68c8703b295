//! `offload crc --algo crc32c|crc32|crc8|crc16 [--backend sw|sim] [FILE]`

use super::io::read_input;
use clap::{Args, ValueEnum};
use offload_driver::crc::{format_value, CrcKind};
use super::backend::Backend;
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum Algo {
    Crc32c,
    Crc32,
    Crc8,
    Crc16,
}

impl From<Algo> for CrcKind {
    fn from(a: Algo) -> CrcKind {
        match a {
            Algo::Crc32c => CrcKind::Crc32c,
            Algo::Crc32 => CrcKind::Crc32,
            Algo::Crc8 => CrcKind::Crc8Smbus,
            Algo::Crc16 => CrcKind::Crc16Mcrf4xx,
        }
    }
}

#[derive(Args, Debug)]
pub struct CrcArgs {
    /// Which CRC.
    #[arg(long, value_enum)]
    algo: Algo,
    /// Where the CRC is computed: `sw` (the software model) or `sim` (the CRC engine's
    /// Verilog in Verilator, 8 octets per clock; CRC-8/16 at 1 octet).
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
    /// Input file; stdin when absent.
    file: Option<PathBuf>,
}

pub fn run(a: CrcArgs) -> anyhow::Result<()> {
    let data = read_input(a.file.as_deref())?;
    let kind = CrcKind::from(a.algo);
    let value = a.backend.open()?.crc(kind, &data)?;
    println!("{}", format_value(kind, value));
    Ok(())
}
