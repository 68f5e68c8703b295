//! `offload mpa frame|deframe|pcap`

use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum MpaCommand {}

pub fn run(c: MpaCommand) -> anyhow::Result<()> {
    match c {}
}
