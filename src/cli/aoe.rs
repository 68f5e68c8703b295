//! `offload aoe serve|discover|read|write`: ATA over Ethernet (AoE r11) on a Linux interface
//! through AF_PACKET raw sockets (needs CAP_NET_RAW). `serve` is a target like vblade; the
//! others are an initiator like the Linux `aoe` driver.

use super::io::{read_input, write_stdout};
use anyhow::{bail, Context};
use clap::{Args, Subcommand};
use offload_driver::aoe::{
    self, format_mac, parse_mac, Client, ClientOptions, FileDevice, Link, Mac, PacketSocket,
    Target, TargetConfig,
};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum AoeCommand {
    /// Serve FILE (a regular file or a block device) as AoE target e<shelf>.<slot>.
    Serve(ServeArgs),
    /// Broadcast Query Config and list the targets that answer, one per line.
    Discover(DiscoverArgs),
    /// Read --count sectors from --lba of a target to stdout.
    Read(IoArgs),
    /// Write --count sectors from stdin (exactly count × 512 octets) at --lba of a target.
    Write(IoArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Network interface to serve on.
    #[arg(long)]
    iface: String,
    /// Shelf (AoE Major), 0..=65534.
    #[arg(long)]
    shelf: u16,
    /// Slot (AoE Minor), 0..=254.
    #[arg(long)]
    slot: u8,
    /// File or block device to serve; its size rounded down to 512-octet sectors.
    file: PathBuf,
    /// Buffer Count: commands queued at once; more are dropped.
    #[arg(long, default_value = "16")]
    buffers: u16,
    /// Cap on sectors per command (default: what the interface MTU carries).
    #[arg(long)]
    max_sectors: Option<u8>,
    /// Initial config string (Query Config).
    #[arg(long, default_value = "")]
    config: String,
    /// Initial Mac Mask List: only these MACs are served (repeat, or comma-separate).
    #[arg(long, value_delimiter = ',', value_parser = parse_mac_arg)]
    mask: Vec<Mac>,
    /// IDENTIFY DEVICE model string.
    #[arg(long, default_value = "offload AoE target")]
    model: String,
    /// IDENTIFY DEVICE serial string (default e<shelf>.<slot>).
    #[arg(long)]
    serial: Option<String>,
}

#[derive(Args, Debug)]
pub struct DiscoverArgs {
    #[arg(long)]
    iface: String,
    /// How long to collect answers, in milliseconds.
    #[arg(long, default_value = "1000")]
    wait_ms: u64,
}

#[derive(Args, Debug)]
pub struct IoArgs {
    #[arg(long)]
    iface: String,
    /// Target as shelf.slot (Major.Minor), e.g. 1.2.
    #[arg(long, value_parser = parse_target)]
    target: (u16, u8),
    /// First sector.
    #[arg(long)]
    lba: u64,
    /// Number of 512-octet sectors.
    #[arg(long)]
    count: u64,
    /// First retransmission timeout in milliseconds (doubles per retry, up to 1 s).
    #[arg(long, default_value = "100")]
    rto_ms: u64,
    /// Retransmissions of a command before giving up.
    #[arg(long, default_value = "8")]
    retries: u32,
    /// Cap on commands outstanding (the target's Buffer Count is the other cap).
    #[arg(long)]
    window: Option<usize>,
    /// Cap on sectors per frame (the target's Sector Count and the MTU are the others).
    #[arg(long)]
    sectors: Option<usize>,
    /// Asynchronous writes (AFlags A): the target may answer before writing.
    #[arg(long)]
    r#async: bool,
    /// Do not send FLUSH CACHE after a write.
    #[arg(long)]
    no_flush: bool,
}

fn parse_mac_arg(s: &str) -> Result<Mac, String> {
    parse_mac(s).ok_or_else(|| format!("{s:?} is not a MAC address (aa:bb:cc:dd:ee:ff)"))
}

fn parse_target(s: &str) -> Result<(u16, u8), String> {
    let bad = || format!("{s:?} is not shelf.slot (e.g. 1.2; shelf < 65535, slot < 255)");
    let (a, b) = s.split_once('.').ok_or_else(bad)?;
    let shelf: u16 = a.parse().map_err(|_| bad())?;
    let slot: u8 = b.parse().map_err(|_| bad())?;
    if shelf == aoe::header::MAJOR_ANY || slot == aoe::header::MINOR_ANY {
        return Err(bad());
    }
    Ok((shelf, slot))
}

pub fn run(c: AoeCommand) -> anyhow::Result<()> {
    match c {
        AoeCommand::Serve(a) => serve(a),
        AoeCommand::Discover(a) => discover(a),
        AoeCommand::Read(a) => read(a),
        AoeCommand::Write(a) => write(a),
    }
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::Relaxed);
}

fn open(iface: &str) -> anyhow::Result<PacketSocket> {
    PacketSocket::open(iface).with_context(|| format!("opening an AF_PACKET socket on {iface}"))
}

fn serve(a: ServeArgs) -> anyhow::Result<()> {
    let dev = FileDevice::open(&a.file).with_context(|| format!("opening {}", a.file.display()))?;
    let mut sock = open(&a.iface)?;
    let mut cfg = TargetConfig::new(a.shelf, a.slot, sock.mac(), sock.mtu());
    cfg.buffer_count = a.buffers;
    if let Some(m) = a.max_sectors {
        cfg.max_sectors = cfg.max_sectors.min(m);
    }
    cfg.config_string = a.config.into_bytes();
    cfg.mask = a.mask;
    cfg.model = a.model;
    if let Some(s) = a.serial {
        cfg.serial = s;
    }
    let mut target = Target::new(cfg, dev)?;
    // SAFETY: the handler only stores to an atomic.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let c = target.config();
    eprintln!(
        "offload: serving e{}.{} ({} sectors) on {} ({}, MTU {}, {} sectors per command, {} buffers)",
        c.major,
        c.minor,
        target.device_sectors(),
        a.iface,
        format_mac(&c.mac),
        sock.mtu(),
        c.max_sectors,
        c.buffer_count
    );
    let stats = aoe::serve(&mut sock, &mut target, &STOP).context("serving")?;
    let t = target.stats();
    eprintln!(
        "offload: stopped: {} frames received, {} dropped (buffers full), {} responses, {} AoE errors, {} ATA errors, {} ignored",
        stats.received,
        stats.dropped,
        t.responses,
        t.aoe_errors,
        t.ata_errors,
        t.ignored_malformed + t.ignored_not_addressed + t.ignored_masked + t.ignored_responses + t.ignored_config_mismatch
    );
    Ok(())
}

fn discover(a: DiscoverArgs) -> anyhow::Result<()> {
    let mut sock = open(&a.iface)?;
    let found = aoe::discover(&mut sock, Duration::from_millis(a.wait_ms))?;
    let mut out = String::new();
    for d in &found {
        let q = &d.config;
        out.push_str(&format!(
            "{}.{} mac={} buffers={} sectors={} firmware=0x{:04x} aoe={} config={:?}\n",
            d.major,
            d.minor,
            format_mac(&d.mac),
            q.buffer_count,
            q.max_sectors(),
            q.firmware,
            q.aoe_version,
            String::from_utf8_lossy(&q.config)
        ));
    }
    if found.is_empty() {
        eprintln!("offload: no AoE target answered on {}", a.iface);
    }
    write_stdout(out.as_bytes())
}

fn connect(a: &IoArgs) -> anyhow::Result<Client<PacketSocket>> {
    let sock = open(&a.iface)?;
    let opts = ClientOptions {
        rto: Duration::from_millis(a.rto_ms.max(1)),
        retries: a.retries,
        max_window: a.window,
        max_sectors: a.sectors,
        async_writes: a.r#async,
        ..ClientOptions::default()
    };
    let (shelf, slot) = a.target;
    let c = Client::connect(sock, shelf, slot, opts)?;
    let end = a.lba.checked_add(a.count);
    let sectors = c.identity().sectors;
    if end.is_none_or(|e| e > sectors) {
        bail!(
            "sectors {}..{} are past the end of e{shelf}.{slot} ({sectors} sectors)",
            a.lba,
            a.lba as u128 + a.count as u128
        );
    }
    Ok(c)
}

fn read(a: IoArgs) -> anyhow::Result<()> {
    let mut c = connect(&a)?;
    let data = c.read(a.lba, a.count)?;
    write_stdout(&data)
}

fn write(a: IoArgs) -> anyhow::Result<()> {
    let data = read_input(None)?;
    let want = a.count as u128 * 512;
    if data.len() as u128 != want {
        bail!(
            "stdin has {} octets; --count {} needs exactly {want}",
            data.len(),
            a.count
        );
    }
    let mut c = connect(&a)?;
    c.write(a.lba, &data)?;
    if !a.no_flush {
        c.flush()?;
    }
    Ok(())
}
