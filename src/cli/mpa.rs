//! `offload mpa frame|deframe|pcap`: MPA (RFC 5044) framing of ULPDU records, the inverse, and a
//! capture of a whole MPA connection that Wireshark's `iwarp_mpa` dissector decodes.

use super::backend::Backend;
use super::io::{read_input, write_stdout};
use super::records;
use super::tcp_capture::{Side, TcpCapture};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use offload_driver::mpa::startup::{LocalParams, Startup};
use offload_driver::mpa::{fpdu_wire_len, mulpdu_for_emss, FramingConfig, Framer, MARKER_INTERVAL, MAX_ULPDU};
use offload_driver::Offload;
use rand::{Rng, SeedableRng};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum MpaCommand {
    /// ULPDU records on stdin (2-octet big-endian length, then the octets) → FPDU stream on stdout.
    Frame(FrameArgs),
    /// FPDU stream on stdin → ULPDU records on stdout; a bad CRC, Marker or length fails, naming the offset.
    Deframe(DeframeArgs),
    /// Writes a pcap of a whole MPA connection on loopback: handshake, Request/Reply, FPDUs both ways.
    Pcap(PcapArgs),
}

#[derive(Args, Debug)]
pub struct FrameArgs {
    /// No Markers (the peer did not ask for them).
    #[arg(long)]
    no_markers: bool,
    /// No CRC (both sides cleared C): the CRC field is sent as zeros.
    #[arg(long)]
    no_crc: bool,
    /// Stream offset of the first output octet from the start of Full Operation (multiple of 4).
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Largest ULPDU accepted.
    #[arg(long, default_value_t = MAX_ULPDU)]
    mulpdu: usize,
    /// Who frames: the software model or the MPA TX block's Verilog in Verilator.
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

#[derive(Args, Debug)]
pub struct DeframeArgs {
    /// The stream has no Markers.
    #[arg(long)]
    no_markers: bool,
    /// Do not check CRCs (both sides cleared C).
    #[arg(long)]
    no_crc: bool,
    /// Stream offset of the first input octet from the start of Full Operation (multiple of 4).
    #[arg(long, default_value_t = 0)]
    offset: u64,
    /// Largest ULPDU accepted.
    #[arg(long, default_value_t = MAX_ULPDU)]
    mulpdu: usize,
    /// Who deframes: the software model or the MPA RX block's Verilog in Verilator.
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

#[derive(Args, Debug)]
pub struct PcapArgs {
    /// The capture file to write.
    #[arg(long)]
    out: PathBuf,
    /// Neither side asks for Markers.
    #[arg(long)]
    no_markers: bool,
    /// FPDUs per direction when generating random ULPDUs.
    #[arg(long, default_value_t = 16)]
    count: usize,
    /// Seed of the random ULPDUs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Who frames the FPDUs: the software model or the MPA TX block's Verilog in Verilator.
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

pub fn run(c: MpaCommand) -> anyhow::Result<()> {
    match c {
        MpaCommand::Frame(a) => frame(a),
        MpaCommand::Deframe(a) => deframe(a),
        MpaCommand::Pcap(a) => pcap(a),
    }
}

fn frame(a: FrameArgs) -> anyhow::Result<()> {
    let ulpdus = records::parse(&read_input(None)?)?;
    let cfg = FramingConfig { markers: !a.no_markers, crc: !a.no_crc, mulpdu: a.mulpdu };
    // Refuse what the framer refuses, naming the record, before any backend runs.
    Framer::new(cfg, a.offset)?;
    if let Some(i) = ulpdus.iter().position(|u| u.is_empty() || u.len() > cfg.mulpdu) {
        bail!("record {i}: ULPDU of {} octets is outside 1..={} (MULPDU)", ulpdus[i].len(), cfg.mulpdu);
    }
    let out = a.backend.open()?.mpa_frame(&cfg, a.offset, &ulpdus)?;
    write_stdout(&out)
}

fn deframe(a: DeframeArgs) -> anyhow::Result<()> {
    let stream = read_input(None)?;
    let cfg = FramingConfig { markers: !a.no_markers, crc: !a.no_crc, mulpdu: a.mulpdu };
    // Both backends refuse a bad configuration (MULPDU, offset) as the Deframer does.
    let out = a.backend.open()?.mpa_deframe(&cfg, a.offset, &stream)?;
    // No partial output: the stream is good to its end or the command fails.
    out.end?;
    write_stdout(&records::encode(&out.ulpdus))
}

/// A well-formed DDP untagged Send (RFC 5041 §4): control `41 43` (L=1, DV=1; RDMAP Send),
/// reserved STag, queue 0, MSN, MO 0, then the payload.
fn ddp_send(msn: u32, payload: &[u8]) -> Vec<u8> {
    let mut u = vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0];
    u.extend_from_slice(&msn.to_be_bytes());
    u.extend_from_slice(&0u32.to_be_bytes());
    u.extend_from_slice(payload);
    u
}

fn pcap(a: PcapArgs) -> anyhow::Result<()> {
    let stdin = std::io::stdin();
    let given = if stdin.is_terminal() { Vec::new() } else { records::parse(&read_input(None)?)? };
    let markers = !a.no_markers;
    let (client_ulpdus, server_ulpdus, mulpdu) = if given.is_empty() {
        let mulpdu = mulpdu_for_emss(1460, markers);
        let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
        let c = random_ddp_sends(&mut rng, a.count, mulpdu, markers);
        let s = random_ddp_sends(&mut rng, a.count, mulpdu, markers);
        (c, s, mulpdu)
    } else {
        if let Some(bad) = given.iter().position(|u| u.is_empty() || u.len() > MAX_ULPDU) {
            bail!("record {bad}: a ULPDU must be 1..=64768 octets");
        }
        let odd = fpdus_ending_on_marker(&given, markers);
        if odd > 0 {
            eprintln!(
                "offload: note: {odd} FPDU(s) per direction end exactly on a Marker position; they are \
                 correct, but Wireshark's iwarp_mpa dissector miscounts their Markers and will not decode them"
            );
        }
        // Records go both ways: the client sends them, the server echoes them.
        (given.clone(), given, MAX_ULPDU)
    };

    let mut backend = a.backend.open()?;
    let (c, sv) = write_capture(&a.out, markers, &client_ulpdus, &server_ulpdus, mulpdu, backend.as_mut())?;
    eprintln!("wrote {}: {c} + {sv} FPDUs, markers {}, CRC on", a.out.display(), if markers { "on" } else { "off" });
    Ok(())
}

/// Writes a pcap of a whole MPA connection (handshake, Request/Reply, the FPDUs of both sides
/// interleaved, FIN) and returns the FPDU counts of each side. Each TCP segment carries one
/// whole FPDU, as MPA-aware senders send them, so Wireshark can check every CRC.
pub(super) fn write_capture(
    path: &std::path::Path,
    markers: bool,
    client_ulpdus: &[Vec<u8>],
    server_ulpdus: &[Vec<u8>],
    mulpdu: usize,
    backend: &mut dyn Offload,
) -> anyhow::Result<(u64, u64)> {
    let local = LocalParams { markers, crc: true, private_data: Vec::new() };
    let mut initiator = Startup::initiator(local.clone())?;
    let mut responder = Startup::responder(local)?;
    // Port 34567: no Wireshark dissector claims it, so the iwarp_mpa heuristic runs.
    let mut cap = TcpCapture::open(40001, 34567)?;
    let request = initiator.transmit();
    cap.send(Side::Client, &request)?;
    responder.receive(&request)?;
    responder.accept()?;
    let reply = responder.transmit();
    cap.send(Side::Server, &reply)?;
    initiator.receive(&reply)?;
    let ni = initiator.negotiated().context("initiator negotiated")?.clone();
    let nr = responder.negotiated().context("responder negotiated")?.clone();

    // Each direction keeps its stream offset; every FPDU is framed by the backend on its own so
    // that each TCP segment carries exactly one.
    let (client_cfg, server_cfg) = (ni.tx_framing(mulpdu), nr.tx_framing(mulpdu));
    let (mut client_off, mut server_off) = (0u64, 0u64);
    // The Initiator sends first; the Responder answers each FPDU (§7.1.2).
    for i in 0..client_ulpdus.len().max(server_ulpdus.len()) {
        if let Some(u) = client_ulpdus.get(i) {
            let fpdu = backend.mpa_frame(&client_cfg, client_off, std::slice::from_ref(u))?;
            client_off += fpdu.len() as u64;
            cap.send(Side::Client, &fpdu)?;
        }
        if let Some(u) = server_ulpdus.get(i) {
            let fpdu = backend.mpa_frame(&server_cfg, server_off, std::slice::from_ref(u))?;
            server_off += fpdu.len() as u64;
            cap.send(Side::Server, &fpdu)?;
        }
    }
    let bytes = cap.finish()?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
    Ok((client_ulpdus.len() as u64, server_ulpdus.len() as u64))
}

/// Random DDP untagged Sends that fit `mulpdu`, MSN counting from 1.
///
/// With Markers, a length whose FPDU would end exactly on a Marker position is drawn again:
/// such an FPDU is correct (the Marker then opens the next FPDU with FPDUPTR 0, RFC 5044 §4.3,
/// as `mpa::Framer` and the hardware emit it), but Wireshark's `iwarp_mpa` dissector counts
/// one Marker too many in it (`number_of_markers` computes `(size - offset) / 512 + 1`) and
/// cannot decode it, and these captures are meant to be read in Wireshark.
pub(super) fn random_ddp_sends(rng: &mut impl Rng, count: usize, mulpdu: usize, markers: bool) -> Vec<Vec<u8>> {
    let mut offset = 0u64;
    (0..count)
        .map(|i| {
            let (len, wire) = loop {
                let len = rng.gen_range(1..=mulpdu - 18);
                let wire = fpdu_wire_len(len + 18, offset, markers) as u64;
                if !(markers && ends_on_marker(offset, wire)) {
                    break (len, wire);
                }
            };
            offset += wire;
            let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            ddp_send(i as u32 + 1, &payload)
        })
        .collect()
}

fn ends_on_marker(offset: u64, wire: u64) -> bool {
    (offset + wire) % MARKER_INTERVAL == 0
}

/// FPDUs (of one direction starting at offset 0) that end exactly on a Marker position.
fn fpdus_ending_on_marker(ulpdus: &[Vec<u8>], markers: bool) -> usize {
    if !markers {
        return 0;
    }
    let mut offset = 0u64;
    ulpdus
        .iter()
        .filter(|u| {
            let wire = fpdu_wire_len(u.len(), offset, true) as u64;
            let hit = ends_on_marker(offset, wire);
            offset += wire;
            hit
        })
        .count()
}
