//! Subcommands of the `offload` CLI, one file each.

mod aoe;
mod backend;
mod crc;
mod demo;
mod fc;
mod hw;
mod io;
mod mctp;
mod mctp_socket_service;
mod mctpd;
mod mpa;
mod nvme_mi;
mod records;
mod tcp_capture;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "offload", version, about = "Storage-networking offload for FPGA SmartNICs")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// CRC of a file (or stdin): CRC-32C, CRC-32, CRC-8 (SMBus PEC), CRC-16 (MCTP serial FCS).
    Crc(crc::CrcArgs),
    /// The main job: sample traffic through every backend, checked against the software model.
    Demo(demo::DemoArgs),
    /// MPA (RFC 5044) framing, deframing and captures.
    #[command(subcommand)]
    Mpa(mpa::MpaCommand),
    /// MCTP packets (DSP0236) with the SMBus binding and the NVMe-MI integrity check.
    #[command(subcommand)]
    Mctp(mctp::MctpCommand),
    /// MCTP endpoint daemon on one link (control protocol, NVMe-MI, echo, bus owner).
    Mctpd(mctpd::MctpdArgs),
    /// NVMe-MI requester through `offload mctpd`: health, identify, logs, features, config.
    #[command(subcommand)]
    NvmeMi(nvme_mi::NvmeMiCommand),
    /// ATA over Ethernet (AoE r11) target and initiator on a Linux interface (raw sockets).
    #[command(subcommand)]
    Aoe(aoe::AoeCommand),
    /// Fibre Channel over SCTP (FC/SCTP/IP draft) over SCTP/UDP: server agent, client, captures.
    #[command(subcommand)]
    Fc(fc::FcCommand),
    /// Write the Verilog of every hardware block (one file per block and parameter set).
    Verilog(hw::VerilogArgs),
    /// Synthesise a hardware block with Yosys (Xilinx LUT/FF) and nextpnr-ice40 (Fmax).
    Synth(hw::SynthArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Crc(a) => crc::run(a),
        Command::Demo(a) => demo::run(a),
        Command::Mpa(c) => mpa::run(c),
        Command::Mctp(c) => mctp::run(c),
        Command::Mctpd(a) => mctpd::run(a),
        Command::NvmeMi(c) => nvme_mi::run(c),
        Command::Aoe(c) => aoe::run(c),
        Command::Fc(c) => fc::run(c),
        Command::Verilog(a) => hw::verilog(a),
        Command::Synth(a) => hw::synth(a),
    }
}
