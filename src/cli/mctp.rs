//! `offload mctp packetize|reassemble`: MCTP packets (DSP0236), optionally protected by the
//! NVMe-MI MIC and wrapped in the SMBus binding (DSP0237), as lines of lowercase hex.
//!
//! `offload mctp link|addr|route show`, `ping`, `send`: the `mctp` utility's view of a running
//! `offload mctpd`, through its control socket (see `mctpd.rs`).

use super::backend::Backend;
use super::io::{read_input, write_stdout};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use offload_driver::mctp::rx_block::RxBlockError;
use offload_driver::mctp::{
    Binding, ReassemblyConfig, RxError, RxRequest, SmbusAddresses, TxConfig, TxRequest,
};
use offload_driver::OffloadError;

#[derive(Subcommand, Debug)]
pub enum MctpCommand {
    /// Message on stdin (first octet IC·message type) → one packet per line, lowercase hex.
    Packetize(PacketizeArgs),
    /// Hex lines on stdin (one packet, or SMBus frame, per line) → the message on stdout;
    /// `--backend sim` runs the MCTP RX block.
    Reassemble(ReassembleArgs),
    /// `link show`: the daemon's links (index, physical address, network, MTU, state).
    Link(ShowArgs),
    /// `addr show`: the daemon's local EIDs.
    Addr(ShowArgs),
    /// `route show`: the daemon's route table.
    Route(ShowArgs),
    /// Control-protocol Get Endpoint ID round trip to `--eid`.
    Ping(PingArgs),
    /// Send a request of `--type` to `--eid` (body from `--data` or stdin); print each response
    /// message as a hex line.
    Send(SendArgs),
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ShowAction {
    Show,
}

/// Which daemon to ask.
#[derive(Args, Debug)]
pub struct DaemonArgs {
    /// The daemon's control socket.
    #[arg(long)]
    pub(crate) control: Option<std::path::PathBuf>,
    /// The daemon's own EID, to find its default control socket.
    #[arg(long, value_parser = parse_u8, conflicts_with = "control")]
    pub(crate) local: Option<u8>,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[arg(value_enum)]
    action: ShowAction,
    #[command(flatten)]
    daemon: DaemonArgs,
}

#[derive(Args, Debug)]
pub struct PingArgs {
    /// The EID to ping.
    #[arg(long, value_parser = parse_u8)]
    eid: u8,
    /// Round trips.
    #[arg(long, default_value = "1")]
    count: u32,
    /// Milliseconds to wait for each reply.
    #[arg(long, default_value = "1000")]
    timeout: u64,
    #[command(flatten)]
    daemon: DaemonArgs,
}

#[derive(Args, Debug)]
pub struct SendArgs {
    /// Message type (the first octet's low 7 bits).
    #[arg(long = "type", value_parser = parse_u8)]
    typ: u8,
    /// Destination EID.
    #[arg(long, value_parser = parse_u8)]
    eid: u8,
    /// Message body after the type octet, hex (default: stdin, raw).
    #[arg(long)]
    data: Option<String>,
    /// Set the IC bit and append the NVMe-MI MIC; responses are MIC-checked and printed
    /// without it.
    #[arg(long)]
    ic: bool,
    /// Responses to wait for (e.g. 2 for an NVMe-MI "More Processing Required" then the final).
    #[arg(long, default_value = "1")]
    responses: usize,
    /// Milliseconds to wait for the responses.
    #[arg(long, default_value = "1000")]
    timeout: u64,
    #[command(flatten)]
    daemon: DaemonArgs,
}

#[derive(Args, Debug)]
pub struct PacketizeArgs {
    /// Source EID (decimal or 0x-hex).
    #[arg(long, value_parser = parse_u8)]
    src: u8,
    /// Destination EID.
    #[arg(long, value_parser = parse_u8)]
    dst: u8,
    /// Message tag, 0..=7.
    #[arg(long, value_parser = parse_u8)]
    tag: u8,
    /// Set the Tag Owner bit (requests).
    #[arg(long)]
    to: bool,
    /// Payload octets per packet (64..=251; at most 250 with SMBus).
    #[arg(long, value_parser = parse_usize, default_value = "64")]
    mtu: usize,
    /// Sequence number of the first packet, 0..=3.
    #[arg(long, value_parser = parse_u8, default_value = "0")]
    seq: u8,
    /// Append the NVMe-MI Message Integrity Check (CRC-32C, little-endian); the IC bit of the
    /// first octet must be set.
    #[arg(long)]
    ic: bool,
    /// Wrap each packet in the SMBus binding: this side's 7-bit slave address.
    #[arg(long, value_parser = parse_u8, requires = "smbus_dst")]
    smbus_src: Option<u8>,
    /// The receiver's 7-bit slave address.
    #[arg(long, value_parser = parse_u8, requires = "smbus_src")]
    smbus_dst: Option<u8>,
    /// Who packetizes: the software model or the MCTP TX block's Verilog in Verilator.
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

#[derive(Args, Debug)]
pub struct ReassembleArgs {
    /// Verify and strip the NVMe-MI MIC (out-of-band limit: 4224 octets with the MIC).
    #[arg(long)]
    ic: bool,
    /// Each line is an SMBus binding frame: check and strip it (PEC included).
    #[arg(long)]
    smbus: bool,
    /// Who reassembles: the software model or the MCTP RX block's Verilog in Verilator (one
    /// reassembly context, messages up to 7680 octets, raw frames up to 260: input past those
    /// limits is an error naming the line, not a different answer).
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

pub fn run(c: MctpCommand) -> anyhow::Result<()> {
    match c {
        MctpCommand::Packetize(a) => packetize(a),
        MctpCommand::Reassemble(a) => reassemble(a),
        MctpCommand::Link(a) => show("link", a),
        MctpCommand::Addr(a) => show("addr", a),
        MctpCommand::Route(a) => show("route", a),
        MctpCommand::Ping(a) => ping(a),
        MctpCommand::Send(a) => send(a),
    }
}

/// The control socket: `--control`, the default path of `--local`'s daemon, or the only
/// daemon socket in the default directory.
pub(crate) fn control_path(d: &DaemonArgs) -> anyhow::Result<std::path::PathBuf> {
    if let Some(p) = &d.control {
        return Ok(p.clone());
    }
    if let Some(e) = d.local {
        return Ok(super::mctpd::default_control_path(Some(e), ""));
    }
    let dir = super::mctpd::control_dir();
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("offload-mctpd-") && n.ends_with(".sock"))
        })
        .collect();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => bail!(
            "no offload mctpd control socket in {}; pass --control PATH",
            dir.display()
        ),
        n => bail!(
            "{n} mctpd control sockets in {}; pass --control PATH or --local EID",
            dir.display()
        ),
    }
}

fn print_lines(lines: &[String]) -> anyhow::Result<()> {
    let mut out = String::new();
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
    write_stdout(out.as_bytes())
}

fn show(what: &str, a: ShowArgs) -> anyhow::Result<()> {
    let ShowAction::Show = a.action;
    let lines = super::mctpd::request(&control_path(&a.daemon)?, &format!("{what} show"))?;
    print_lines(&lines)
}

fn ping(a: PingArgs) -> anyhow::Result<()> {
    let path = control_path(&a.daemon)?;
    let mut lines = Vec::new();
    for _ in 0..a.count.max(1) {
        lines.extend(super::mctpd::request(
            &path,
            &format!("ping {} {}", a.eid, a.timeout),
        )?);
    }
    print_lines(&lines)
}

fn send(a: SendArgs) -> anyhow::Result<()> {
    let body = match &a.data {
        Some(h) => from_hex(
            &h.chars()
                .filter(|c| !c.is_ascii_whitespace())
                .collect::<String>(),
        )
        .context("--data")?,
        None => read_input(None)?,
    };
    if a.typ > 0x7F {
        bail!(
            "--type {}: message types are 7 bits (use --ic for the IC bit)",
            a.typ
        );
    }
    let mut msg = vec![a.typ | if a.ic { 0x80 } else { 0 }];
    msg.extend_from_slice(&body);
    if a.ic {
        offload_driver::nvme_mi::check_oob_len(msg.len() + 4)?;
        offload_driver::nvme_mi::append_mic(&mut msg);
    }
    let req = format!(
        "send {} {} {} {} {}",
        a.typ,
        a.eid,
        a.timeout,
        a.responses,
        to_hex(&msg)
    );
    let lines = super::mctpd::request(&control_path(&a.daemon)?, &req)?;
    let mut out = Vec::new();
    for l in &lines {
        let hex = l.rsplit(' ').next().unwrap_or("");
        let m = from_hex(hex).with_context(|| format!("daemon answer `{l}`"))?;
        if a.ic {
            match offload_driver::nvme_mi::verify_mic(&m) {
                Ok(body) => out.push(to_hex(body)),
                Err(e) => eprintln!("offload: warning: response dropped: {e}"),
            }
        } else {
            out.push(to_hex(&m));
        }
    }
    if out.is_empty() {
        bail!("no response with a good MIC");
    }
    print_lines(&out)
}

fn packetize(a: PacketizeArgs) -> anyhow::Result<()> {
    let message = read_input(None)?;
    let smbus = match (a.smbus_src, a.smbus_dst) {
        (Some(src), Some(dst)) => Some(SmbusAddresses { src, dst }),
        _ => None,
    };
    let request = TxRequest {
        config: TxConfig {
            src: a.src,
            dst: a.dst,
            tag: a.tag,
            tag_owner: a.to,
            mtu: a.mtu,
            start_seq: a.seq,
        },
        append_mic: a.ic,
        smbus,
    };
    let frames = a
        .backend
        .open()?
        .mctp_transmit(&request, &message)
        .context("packetizing")?;
    let mut out = String::with_capacity(frames.iter().map(|f| f.len() * 2 + 1).sum());
    for f in &frames {
        out.push_str(&to_hex(f));
        out.push('\n');
    }
    write_stdout(out.as_bytes())
}

fn reassemble(a: ReassembleArgs) -> anyhow::Result<()> {
    let input = read_input(None)?;
    let text = std::str::from_utf8(&input).context("stdin is not text (expected hex lines)")?;
    let mut frames = Vec::new();
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let hex: String = line.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if hex.is_empty() {
            continue;
        }
        frames.push(from_hex(&hex).with_context(|| format!("line {}", i + 1))?);
        lines.push(i + 1);
    }
    if frames.is_empty() {
        bail!("no packets on stdin");
    }
    let request = RxRequest {
        reassembly: if a.ic {
            ReassemblyConfig::nvme_mi()
        } else {
            ReassemblyConfig::default()
        },
        binding: if a.smbus {
            Binding::Smbus
        } else {
            Binding::Raw
        },
        verify_mic: a.ic,
    };
    let report = match a.backend.open()?.mctp_receive(&request, &frames) {
        Ok(r) => r,
        Err(OffloadError::MctpBlock {
            backend,
            error: RxBlockError::Limit { frame, what } | RxBlockError::Disagrees { frame, what },
        }) => bail!("backend `{backend}`: line {}: {what}", lines[frame]),
        Err(e) => return Err(e).context("reassembling"),
    };
    let describe = |p: &offload_driver::mctp::RxProblem| {
        let what = match &p.error {
            RxError::Binding(_) => "frame rejected",
            RxError::Dropped(_) => "packet dropped",
            RxError::Integrity { .. } => "message rejected",
        };
        format!("line {}: {what}: {}", lines[p.frame], p.error)
    };
    match report.messages.len() {
        1 => {
            // A message came through; anything else dropped on the way is reported, not fatal,
            // as a receiver drops bad packets and keeps going (DSP0236 §8.9).
            for p in &report.problems {
                eprintln!("offload: warning: {}", describe(p));
            }
            for k in &report.open_contexts {
                eprintln!(
                    "offload: warning: incomplete message from EID {} to EID {} tag {} left over",
                    k.src, k.dst, k.tag
                );
            }
            write_stdout(&report.messages[0].bytes)
        }
        0 => {
            let why = match report.problems.first() {
                Some(p) if report.problems.len() > 1 => {
                    format!(
                        "{} (and {} more problems)",
                        describe(p),
                        report.problems.len() - 1
                    )
                }
                Some(p) => describe(p),
                None => "the message has no end-of-message packet".to_string(),
            };
            bail!(
                "no complete valid message in {} packets: {why}",
                frames.len()
            )
        }
        n => bail!("{n} messages reassembled; reassemble outputs exactly one"),
    }
}

pub(crate) fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

pub(crate) fn from_hex(s: &str) -> anyhow::Result<Vec<u8>> {
    if s.len() & 1 == 1 {
        bail!("odd number of hex digits ({})", s.len());
    }
    s.as_bytes()
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            let digit = |c: u8| (c as char).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(h), Some(l)) => Ok((h * 16 + l) as u8),
                _ => bail!(
                    "not a hex octet at column {}: {:?}",
                    i * 2 + 1,
                    String::from_utf8_lossy(pair)
                ),
            }
        })
        .collect()
}

/// A number in decimal or `0x` hex.
fn parse_number(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse::<u64>(),
    };
    r.map_err(|_| format!("`{s}` is not a decimal or 0x-hex number"))
}

pub(crate) fn parse_u8(s: &str) -> Result<u8, String> {
    let v = parse_number(s)?;
    u8::try_from(v).map_err(|_| format!("{s} does not fit in one octet"))
}

fn parse_usize(s: &str) -> Result<usize, String> {
    let v = parse_number(s)?;
    usize::try_from(v).map_err(|_| format!("{s} is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(parse_u8("0x1d"), Ok(0x1D));
        assert_eq!(parse_u8("29"), Ok(29));
        assert_eq!(parse_u8("0XFF"), Ok(255));
        assert!(parse_u8("256").is_err());
        assert!(parse_u8("0x").is_err());
        assert!(parse_u8("-1").is_err());
        assert_eq!(parse_usize("0x40"), Ok(64));
    }

    #[test]
    fn hex() {
        assert_eq!(to_hex(&[0x01, 0xAB, 0x00]), "01ab00");
        assert_eq!(from_hex("01AbFF").unwrap(), vec![0x01, 0xAB, 0xFF]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").unwrap_err().to_string().contains("column 1"));
    }
}
