//! `offload fc serve|send|pcap|demo`: Fibre Channel over SCTP (the FC/SCTP/IP draft) over
//! SCTP/UDP (RFC 6951), with a server agent bridging to simulated FC ports.

use super::backend::Backend;
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use offload_driver::fc::agent::{AssignOutcome, Client, ClientConfig, ServerAgent};
use offload_driver::fc::fcp::{
    command_frame, disk_blocks, FcpCmnd, SimPort, BLOCK_LEN, STATUS_GOOD,
};
use offload_driver::fc::header::{fc_type, r_ctl};
use offload_driver::fc::mgmt::{Response, Revision, REVISION_0_0};
use offload_driver::fc::stream::{PortAccess, PortConfig, ServerConfig};
use offload_driver::fc::transport::SctpUdpConfig;
use offload_driver::fc::{Eof, FCtl, FcFrame, FcHeader, Sof, MAX_DATA_FIELD};
use offload_driver::Offload;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::DataLink;
use rand::{Rng, SeedableRng};
use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// FC port numbers of the simulated fabric behind `fc serve`.
const DEFAULT_FCP_PORT: u16 = 1;
const DEFAULT_LOOP_PORT: u16 = 2;
/// Port IDs (24-bit) of the initiator and the simulated target.
const INITIATOR_ID: u32 = 0x010100;
const TARGET_ID: u32 = 0x010200;

#[derive(Subcommand, Debug)]
pub enum FcCommand {
    /// Server agent: answers stream-0 management and bridges assigned streams to simulated FC
    /// ports (an FCP target with a patterned disk, a loopback plug); runs until killed.
    Serve(ServeArgs),
    /// Client: asks for a stream and carries an FCP read exchange, or N random frames through
    /// a loopback port, checking what comes back.
    Send(SendArgs),
    /// Writes FC frames (an FCP read exchange and every SOF/EOF code) as a pcap with link type
    /// 225 (FC-2 with frame delimiters), for Wireshark's `fc` dissector.
    Pcap(PcapArgs),
    /// A server agent and a client in one process over loopback: an FCP read end to end.
    Demo(DemoArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// UDP address to listen on (port 0: any; the address taken is printed).
    #[arg(long)]
    listen: SocketAddr,
    /// FC port with the FCP target.
    #[arg(long, default_value_t = DEFAULT_FCP_PORT)]
    fcp_port: u16,
    /// FC port with a loopback plug.
    #[arg(long, default_value_t = DEFAULT_LOOP_PORT)]
    loop_port: u16,
    /// FC ports that exist but are refused to clients (stream filtering).
    #[arg(long)]
    refuse_port: Vec<u16>,
    /// FC ports that exist but whose link is down (answered Busy).
    #[arg(long)]
    down_port: Vec<u16>,
    /// Disk size of the FCP target, in 512-octet blocks.
    #[arg(long, default_value_t = 65_536)]
    disk_blocks: u64,
    /// Data streams per association.
    #[arg(long, default_value_t = 16)]
    max_streams: u16,
    /// BB_Credit per stream.
    #[arg(long, default_value_t = 16)]
    credit: u16,
    /// Ceiling on a stream's priority.
    #[arg(long, default_value_t = 7)]
    max_priority: u8,
    /// Ceiling on a stream's time limit, ms (0: none).
    #[arg(long, default_value_t = 60_000)]
    max_time_limit: u32,
    /// Supported revisions besides 0.0 (highest first), MAJOR.MINOR.
    #[arg(long, default_values_t = vec![Revision { major: 1, minor: 0 }])]
    revision: Vec<Revision>,
    /// Write every frame bridged to or from the ports (FC link form) to this pcap (link type
    /// 225), written frame by frame (unbuffered, so a killed server leaves a whole file).
    #[arg(long)]
    pcap: Option<std::path::PathBuf>,
    /// Who computes the FC CRCs: the software model or the CRC engine's Verilog in Verilator.
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

#[derive(Args, Debug)]
pub struct SendArgs {
    /// The server agent's UDP address.
    #[arg(long)]
    to: SocketAddr,
    /// FC port to ask a stream for (default: the FCP port for --read, the loopback port for
    /// --frames).
    #[arg(long)]
    port: Option<u16>,
    /// FCP read of BLOCKS blocks from LBA: `LBA,BLOCKS`.
    #[arg(long, value_parser = parse_read, conflicts_with = "frames")]
    read: Option<(u32, u16)>,
    /// Send N random frames (0–2112 payload octets) and check each comes back unaltered.
    #[arg(long)]
    frames: Option<usize>,
    /// Streams to spread --frames over.
    #[arg(long, default_value_t = 1)]
    streams: u16,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 0)]
    priority: u8,
    /// Stream time limit, ms (0: none).
    #[arg(long, default_value_t = 0)]
    time_limit: u32,
    /// Revision to speak, MAJOR.MINOR.
    #[arg(long, default_value = "1.0")]
    revision: Revision,
    /// BB_Credit per stream (as the server's --credit).
    #[arg(long, default_value_t = 16)]
    credit: u16,
    /// Send frames without a CRC and the N bit set (the agent constructs the CRC).
    #[arg(long)]
    no_crc: bool,
    /// Write the read data here (--read).
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    /// Write the exchange's frames to this pcap (link type 225).
    #[arg(long)]
    pcap: Option<std::path::PathBuf>,
    /// Seconds to wait for any answer.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

#[derive(Args, Debug)]
pub struct PcapArgs {
    #[arg(long)]
    out: std::path::PathBuf,
    /// The read exchange: first block.
    #[arg(long, default_value_t = 0)]
    lba: u32,
    /// The read exchange: blocks.
    #[arg(long, default_value_t = 8)]
    blocks: u16,
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

#[derive(Args, Debug)]
pub struct DemoArgs {
    #[arg(long, default_value_t = 0)]
    lba: u32,
    #[arg(long, default_value_t = 64)]
    blocks: u16,
    #[arg(long, value_enum, default_value = "sw")]
    backend: Backend,
}

fn parse_read(s: &str) -> Result<(u32, u16), String> {
    let (a, b) = s.split_once(',').ok_or("expected LBA,BLOCKS")?;
    let lba = a.trim().parse::<u32>().map_err(|e| format!("LBA: {e}"))?;
    let blocks = b
        .trim()
        .parse::<u16>()
        .map_err(|e| format!("BLOCKS: {e}"))?;
    if blocks == 0 {
        return Err("BLOCKS must be at least 1".into());
    }
    Ok((lba, blocks))
}

pub fn run(c: FcCommand) -> anyhow::Result<()> {
    match c {
        FcCommand::Serve(a) => serve(a),
        FcCommand::Send(a) => send(a),
        FcCommand::Pcap(a) => pcap(a),
        FcCommand::Demo(a) => demo(a),
    }
}

/// A pcap of FC frames in link type 225, written frame by frame.
struct FcCapture {
    writer: PcapWriter<std::fs::File>,
    start: Instant,
}

impl FcCapture {
    fn create(path: &std::path::Path) -> anyhow::Result<FcCapture> {
        let file =
            std::fs::File::create(path).with_context(|| format!("create {}", path.display()))?;
        let header = PcapHeader {
            datalink: DataLink::FC_2_WITH_FRAME_DELIMS,
            ..PcapHeader::default()
        };
        let writer = PcapWriter::with_header(file, header).context("pcap header")?;
        Ok(FcCapture {
            writer,
            start: Instant::now(),
        })
    }

    fn write(&mut self, frame: &[u8]) -> anyhow::Result<()> {
        let t = self.start.elapsed();
        self.writer
            .write_packet(&PcapPacket::new(t, frame.len() as u32, frame))
            .context("pcap write")?;
        Ok(())
    }
}

fn server_config(a: &ServeArgs) -> anyhow::Result<(ServerConfig, BTreeMap<u16, SimPort>)> {
    let mut revisions = a.revision.clone();
    revisions.sort_by(|x, y| y.cmp(x));
    revisions.dedup();
    revisions.retain(|r| *r != REVISION_0_0);
    revisions.push(REVISION_0_0);
    let mut ports = vec![
        PortConfig {
            port: a.fcp_port,
            access: PortAccess::Open,
            online: true,
        },
        PortConfig {
            port: a.loop_port,
            access: PortAccess::Open,
            online: true,
        },
    ];
    for &p in &a.refuse_port {
        ports.push(PortConfig {
            port: p,
            access: PortAccess::Refused,
            online: true,
        });
    }
    for &p in &a.down_port {
        ports.push(PortConfig {
            port: p,
            access: PortAccess::Open,
            online: false,
        });
    }
    let mut seen = std::collections::BTreeSet::new();
    for p in &ports {
        if !seen.insert(p.port) {
            bail!("FC port {} given twice", p.port);
        }
    }
    let config = ServerConfig {
        revisions,
        ports,
        max_streams: a.max_streams,
        max_priority: a.max_priority,
        max_time_limit_ms: a.max_time_limit,
        login_credit: a.credit,
    };
    let sim = BTreeMap::from([
        (a.fcp_port, SimPort::fcp_target(a.disk_blocks)),
        (a.loop_port, SimPort::Loopback),
    ]);
    Ok((config, sim))
}

fn serve(a: ServeArgs) -> anyhow::Result<()> {
    let (config, ports) = server_config(&a)?;
    let offload = a.backend.open()?;
    let mut agent = ServerAgent::bind(a.listen, config, ports, SctpUdpConfig::default(), offload)
        .with_context(|| format!("listen on {}", a.listen))?;
    let mut capture = match &a.pcap {
        Some(p) => {
            agent.capture();
            Some(FcCapture::create(p)?)
        }
        None => None,
    };
    println!(
        "offload fc serve: listening on {} (SCTP over UDP)",
        agent.local_addr()?
    );
    std::io::stdout().flush()?;
    loop {
        agent.run_once(Duration::from_millis(50))?;
        if let Some(c) = capture.as_mut() {
            for f in &agent.take_capture() {
                c.write(f)?;
            }
        }
    }
}

fn check_assign(port: u16, o: &AssignOutcome) -> anyhow::Result<()> {
    if o.response != Response::Good {
        bail!("Assign Stream for FC port {port} answered {:?}", o.response);
    }
    Ok(())
}

fn send(a: SendArgs) -> anyhow::Result<()> {
    let config = ClientConfig {
        revision: a.revision,
        login_credit: a.credit,
        crc_invalid: a.no_crc,
        timeout: Duration::from_secs(a.timeout),
        ..ClientConfig::default()
    };
    let local: SocketAddr = if a.to.is_ipv4() {
        "0.0.0.0:0".parse()?
    } else {
        "[::]:0".parse()?
    };
    let mut client = Client::connect(local, a.to, config, a.backend.open()?)
        .with_context(|| format!("association with {}", a.to))?;
    let revisions = client.report_revisions()?;
    let list: Vec<String> = revisions.iter().map(|r| r.to_string()).collect();
    println!("revisions: {}", list.join(" "));
    if let Some((lba, blocks)) = a.read {
        let port = a.port.unwrap_or(DEFAULT_FCP_PORT);
        let o = client.assign(port, a.priority, a.time_limit)?;
        check_assign(port, &o)?;
        println!(
            "assign port {port}: stream {} priority {} time limit {} ms",
            o.stream, o.priority, o.time_limit_ms
        );
        let (rsp, data, frames) =
            client.fcp_read(o.stream, INITIATOR_ID, TARGET_ID, 0x0001, lba, blocks)?;
        if let Some(p) = &a.pcap {
            write_frames(p, &frames, a.backend)?;
        }
        if let Some(out) = &a.out {
            std::fs::write(out, &data).with_context(|| format!("write {}", out.display()))?;
        }
        if rsp.status != STATUS_GOOD {
            bail!(
                "FCP read of {blocks} blocks at LBA {lba}: SCSI status 0x{:02x}, sense {:02x?}",
                rsp.status,
                rsp.sense
            );
        }
        let ok = data == disk_blocks(lba as u64, blocks as u64);
        println!(
            "read lba {lba} blocks {blocks}: status GOOD, {} octets in {} frames, data {}",
            data.len(),
            frames.len(),
            if ok {
                "matches the target's disk"
            } else {
                "DIFFERS from the target's disk"
            }
        );
        client.release(o.stream)?;
        client.close()?;
        if !ok {
            bail!("read data differs from the target's disk");
        }
    } else if let Some(n) = a.frames {
        let port = a.port.unwrap_or(DEFAULT_LOOP_PORT);
        if a.streams == 0 {
            bail!("--streams must be at least 1");
        }
        let mut streams = Vec::new();
        for _ in 0..a.streams {
            let o = client.assign(port, a.priority, a.time_limit)?;
            check_assign(port, &o)?;
            streams.push(o.stream);
        }
        let start = Instant::now();
        let (octets, frames) = loop_frames(
            &mut client,
            &streams,
            n,
            a.seed,
            Duration::from_secs(a.timeout),
        )?;
        let secs = start.elapsed().as_secs_f64();
        if let Some(p) = &a.pcap {
            write_frames(p, &frames, a.backend)?;
        }
        println!(
            "frames: {n} sent on {} streams, {n} returned unaltered, {octets} payload octets, {:.1} MB/s each way",
            streams.len(),
            octets as f64 / secs / 1e6
        );
        for s in streams {
            client.release(s)?;
        }
        client.close()?;
    } else {
        client.close()?;
    }
    Ok(())
}

/// A random data frame for the loopback test: the stream in OX_ID, a counter in SEQ_CNT.
fn random_frame(rng: &mut impl Rng, stream: u16, seq: u16) -> FcFrame {
    let len = rng.gen_range(0..=MAX_DATA_FIELD);
    let header = FcHeader {
        r_ctl: r_ctl::SOLICITED_DATA,
        d_id: TARGET_ID,
        s_id: INITIATOR_ID,
        fc_type: fc_type::SCSI_FCP,
        f_ctl: FCtl::RELATIVE_OFFSET,
        seq_id: 1,
        seq_cnt: seq,
        ox_id: stream,
        rx_id: 0xFFFF,
        parameter: seq as u32 * 2048,
        ..Default::default()
    };
    FcFrame::new(
        if seq == 0 { Sof::I3 } else { Sof::N3 },
        header,
        (0..len).map(|_| rng.gen()).collect(),
        Eof::N,
    )
}

/// Sends `n` frames over `streams` (as credit allows) and checks every echo; returns payload
/// octets and the frames sent.
fn loop_frames(
    client: &mut Client,
    streams: &[u16],
    n: usize,
    seed: u64,
    timeout: Duration,
) -> anyhow::Result<(usize, Vec<FcFrame>)> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut seq: HashMap<u16, u16> = HashMap::new();
    let mut waiting: HashMap<(u16, u16), FcFrame> = HashMap::new();
    let mut all = Vec::new();
    let (mut sent, mut back, mut octets) = (0, 0, 0);
    let mut last_progress = Instant::now();
    while back < n {
        for &s in streams {
            while sent < n && client.credit(s).unwrap_or(0) > 0 {
                let q = seq.entry(s).or_insert(0);
                let f = random_frame(&mut rng, s, *q);
                client.try_send_frame(s, &f)?;
                waiting.insert((s, *q), f.clone());
                if all.len() < 64 {
                    all.push(f);
                }
                *q = q.wrapping_add(1);
                sent += 1;
            }
        }
        client.poll(Duration::from_millis(2))?;
        for &s in streams {
            while let Some((_, f)) = client.take_frame(s) {
                let key = (s, f.header.seq_cnt);
                match waiting.remove(&key) {
                    Some(sent_frame) if sent_frame == f => {}
                    Some(_) => bail!("frame {key:?} came back altered"),
                    None => bail!("frame {key:?} came back unexpectedly"),
                }
                octets += f.payload.len();
                back += 1;
                last_progress = Instant::now();
            }
        }
        if last_progress.elapsed() > timeout {
            bail!("{} of {n} frames not returned after {timeout:?}", n - back);
        }
    }
    Ok((octets, all))
}

fn write_frames(
    path: &std::path::Path,
    frames: &[FcFrame],
    backend: Backend,
) -> anyhow::Result<()> {
    let mut offload = backend.open()?;
    let mut cap = FcCapture::create(path)?;
    for f in frames {
        cap.write(&f.encode_delimited_with(offload.as_mut())?)?;
    }
    Ok(())
}

/// The frames of an FCP read exchange through the simulated target, then one frame per
/// SOF code and per EOF code.
fn sample_frames(lba: u32, blocks: u16, capacity: u64) -> Vec<FcFrame> {
    let cmd = command_frame(
        INITIATOR_ID,
        TARGET_ID,
        0x0001,
        &FcpCmnd::read10(lba, blocks),
    );
    let mut frames = vec![cmd.clone()];
    frames.extend(SimPort::fcp_target(capacity).deliver(cmd));
    let extra = |sof: Sof, eof: Eof, i: u16| {
        let header = FcHeader {
            r_ctl: r_ctl::SOLICITED_DATA,
            d_id: TARGET_ID,
            s_id: INITIATOR_ID,
            fc_type: fc_type::SCSI_FCP,
            f_ctl: FCtl::RELATIVE_OFFSET,
            seq_id: 9,
            seq_cnt: i,
            ox_id: 0x0100 + i,
            rx_id: 0xFFFF,
            parameter: 0,
            ..Default::default()
        };
        FcFrame::new(sof, header, vec![i as u8; 4 + 4 * i as usize], eof)
    };
    for (i, sof) in Sof::ALL.into_iter().enumerate() {
        frames.push(extra(sof, Eof::N, i as u16));
    }
    for (i, eof) in Eof::ALL.into_iter().enumerate() {
        frames.push(extra(Sof::N3, eof, 20 + i as u16));
    }
    frames
}

fn pcap(a: PcapArgs) -> anyhow::Result<()> {
    if a.blocks == 0 {
        bail!("--blocks must be at least 1");
    }
    let capacity = a.lba as u64 + a.blocks as u64;
    let frames = sample_frames(a.lba, a.blocks, capacity);
    write_frames(&a.out, &frames, a.backend)?;
    println!(
        "{} frames ({} octets of read data) written to {}",
        frames.len(),
        a.blocks as usize * BLOCK_LEN,
        a.out.display()
    );
    Ok(())
}

fn demo(a: DemoArgs) -> anyhow::Result<()> {
    if a.blocks == 0 {
        bail!("--blocks must be at least 1");
    }
    let backend = a.backend;
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let stop2 = stop.clone();
    let server = std::thread::spawn(
        move || -> anyhow::Result<offload_driver::fc::agent::AgentStats> {
            let args = ServeArgs {
                listen: "127.0.0.1:0".parse()?,
                fcp_port: DEFAULT_FCP_PORT,
                loop_port: DEFAULT_LOOP_PORT,
                refuse_port: vec![],
                down_port: vec![],
                disk_blocks: 65_536,
                max_streams: 4,
                credit: 16,
                max_priority: 7,
                max_time_limit: 60_000,
                revision: vec![Revision { major: 1, minor: 0 }],
                pcap: None,
                backend,
            };
            let (config, ports) = server_config(&args)?;
            let offload: Box<dyn Offload> = backend.open()?;
            let mut agent = ServerAgent::bind(
                args.listen,
                config,
                ports,
                SctpUdpConfig::default(),
                offload,
            )?;
            tx.send(agent.local_addr()?)?;
            agent.run(&stop2)?;
            Ok(agent.stats())
        },
    );
    let addr = rx
        .recv_timeout(Duration::from_secs(30))
        .context("server agent did not start")?;
    let result = (|| -> anyhow::Result<()> {
        let mut client = Client::connect(
            "127.0.0.1:0".parse()?,
            addr,
            ClientConfig::default(),
            backend.open()?,
        )?;
        let o = client.assign(DEFAULT_FCP_PORT, 0, 1_000)?;
        check_assign(DEFAULT_FCP_PORT, &o)?;
        let (rsp, data, frames) =
            client.fcp_read(o.stream, INITIATOR_ID, TARGET_ID, 0x0001, a.lba, a.blocks)?;
        let ok = rsp.status == STATUS_GOOD && data == disk_blocks(a.lba as u64, a.blocks as u64);
        println!(
            "fc demo ({}): FCP READ(10) lba {} blocks {} over SCTP/UDP stream {}: {} frames, {} octets, {}",
            backend_name(backend),
            a.lba,
            a.blocks,
            o.stream,
            frames.len(),
            data.len(),
            if ok { "data matches the target's disk" } else { "DATA DIFFERS" }
        );
        client.release(o.stream)?;
        client.close()?;
        if !ok {
            bail!("FCP read exchange failed");
        }
        Ok(())
    })();
    stop.store(true, Ordering::Relaxed);
    let stats = server
        .join()
        .map_err(|_| anyhow::anyhow!("server agent thread panicked"))??;
    result?;
    println!(
        "server agent: {} management requests, {} frames to the port, {} from it, {} bad, {} stale",
        stats.mgmt_requests,
        stats.frames_to_port,
        stats.frames_from_port,
        stats.bad_frames,
        stats.stale_dropped
    );
    Ok(())
}

fn backend_name(b: Backend) -> &'static str {
    match b {
        Backend::Sw => "sw",
        Backend::Sim => "sim",
    }
}
