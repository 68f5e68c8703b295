//! `offload mctp packetize|reassemble` (placeholder until the MCTP layer lands).

use clap::Subcommand;

#[derive(Subcommand, Debug)]
pub enum MctpCommand {}

pub fn run(c: MctpCommand) -> anyhow::Result<()> {
    match c {}
}
