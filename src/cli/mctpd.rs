//! `offload mctpd`: an MCTP endpoint daemon on one link, like the OpenBMC `mctpd` over the
//! in-kernel stack, but the stack is the library's user-space one.
//!
//! ```text
//! offload mctpd --link serial:PATH|pty|tcp:ADDR|unix:PATH [--listen] [--eid N] [--net N]
//!               [--mtu N] [--route A[-B]]... [--control PATH] [--uuid HEX] [--nvme-mi]
//!               [--in-progress] [--echo TYPE]... [--bus-owner A-B]
//! ```
//! It answers the MCTP control protocol, optionally NVMe-MI (a small Management Endpoint) and
//! echo for the given message types, and as a bus owner assigns the peer an EID from its pool.
//! `pty` makes a pseudo-terminal pair and serves the master; the other side opens the slave
//! path with `serial:PATH`. The first line on stdout says what it runs, with the pty and
//! control socket paths; errors after start-up go to stderr.
//!
//! Control socket (a Unix stream socket; default `$XDG_RUNTIME_DIR` or `/tmp`, named
//! `offload-mctpd-eid<N>.sock`, or `offload-mctpd-<link>.sock` without `--eid`): one request
//! line per connection, answered with lines ending in `ok` or `error: …`:
//! `link show`, `addr show`, `route show`, `ping EID TIMEOUT_MS`,
//! `send TYPE EID TIMEOUT_MS RESPONSES HEX`, `nvme-mi EID TIMEOUT_MS HEX` (one NVMe-MI request
//! message with its MIC; answered `rx in-progress N HEX` with the final response after any More
//! Processing Required ones) and `nvme-mi set KEY VALUE` (a health value of the model:
//! temperature, spare, percent-used, power-on-hours, media-errors, critical-warning).
//! `socket` and `socket-ops ID` turn the connection into an AF_MCTP socket (see
//! `mctp_socket_service.rs`).

use super::mctp::{from_hex, parse_u8, to_hex};
use anyhow::{anyhow, bail, Context};
use clap::Args;
use offload_driver::mctp::stack::control_endpoint::{
    BusOwner, ControlClient, ControlResponder, ResponderConfig, ServiceHandle,
};
use offload_driver::mctp::stack::nvme_mi::NvmeMiClient;
use offload_driver::mctp::stack::nvme_mi_responder::{NvmeMiResponder, SubsystemModel};
use offload_driver::nvme::subsystem::{Namespace, SharedSubsystem, Subsystem};
use offload_driver::mctp::stack::*;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Args, Debug)]
pub struct MctpdArgs {
    /// The link: `serial:PATH` (a tty or pty slave), `pty` (make a pty pair), `tcp:ADDR` or
    /// `unix:PATH` (serial binding over a socket; connects unless `--listen`).
    #[arg(long)]
    link: String,
    /// Accept one connection on `tcp:ADDR` / `unix:PATH` instead of connecting.
    #[arg(long)]
    listen: bool,
    /// Local EID; without it the endpoint waits for a bus owner's Set Endpoint ID.
    #[arg(long, value_parser = parse_u8)]
    eid: Option<u8>,
    /// Network id of the link.
    #[arg(long, default_value = "1")]
    net: u32,
    /// Link MTU: packet octets, header included (68..=255).
    #[arg(long, default_value = "68")]
    mtu: usize,
    /// Routes through the link, `A` or `A-B`; default: every EID 8-254.
    #[arg(long = "route", value_parser = parse_range)]
    routes: Vec<(u8, u8)>,
    /// Control socket path.
    #[arg(long)]
    control: Option<PathBuf>,
    /// Endpoint UUID, 32 hex digits.
    #[arg(long)]
    uuid: Option<String>,
    /// Serve NVMe-MI (message type 4) as a small Management Endpoint.
    #[arg(long)]
    nvme_mi: bool,
    /// NVMe-MI: answer Health Status Poll with More Processing Required first.
    #[arg(long, requires = "nvme_mi")]
    in_progress: bool,
    /// NVMe-MI: the More Processing Required Time of that response, in 100 ms units.
    #[arg(long, requires = "in_progress", default_value = "1")]
    mprt: u16,
    #[command(flatten)]
    model: NvmModelArgs,
    /// Answer requests of this message type with the same message.
    #[arg(long = "echo", value_parser = parse_u8)]
    echo: Vec<u8>,
    /// Act as bus owner: give the peer an EID from this pool (`A-B`).
    #[arg(long, value_parser = parse_range)]
    bus_owner: Option<(u8, u8)>,
}

/// The NVM subsystem behind `--nvme-mi`: controllers, namespaces, health values.
#[derive(Args, Debug)]
pub struct NvmModelArgs {
    /// NVMe-MI: number of controllers (IDs 0..N-1).
    #[arg(long, default_value = "1", requires = "nvme_mi", value_parser = clap::value_parser!(u16).range(1..=2047))]
    controllers: u16,
    /// NVMe-MI: a namespace of SIZE octets (suffix K, M, G, T: powers of 1024), `@LBA` for
    /// its block size (default 512); NSIDs count from 1 in the order given, after the files.
    #[arg(long = "namespace", requires = "nvme_mi")]
    namespaces: Vec<String>,
    /// NVMe-MI: a namespace the size of FILE (`FILE[@LBA]`).
    #[arg(long = "namespace-file", requires = "nvme_mi")]
    namespace_files: Vec<String>,
    /// NVMe-MI health: composite temperature, °C.
    #[arg(long, requires = "nvme_mi", allow_hyphen_values = true)]
    temperature: Option<i16>,
    /// NVMe-MI health: available spare, percent.
    #[arg(long, requires = "nvme_mi")]
    spare: Option<u8>,
    /// NVMe-MI health: percentage used.
    #[arg(long, requires = "nvme_mi")]
    percent_used: Option<u8>,
    /// NVMe-MI health: power-on hours.
    #[arg(long, requires = "nvme_mi")]
    power_on_hours: Option<u64>,
    /// NVMe-MI: serial number and model number of the controllers.
    #[arg(long, requires = "nvme_mi")]
    serial: Option<String>,
    #[arg(long, requires = "nvme_mi")]
    model_name: Option<String>,
}

/// `SIZE[@LBA]` with K/M/G/T suffixes.
fn parse_size_lba(s: &str) -> anyhow::Result<(u64, u32)> {
    let (size, lba) = match s.split_once('@') {
        Some((a, b)) => (a, b.parse().with_context(|| format!("block size in `{s}`"))?),
        None => (s, 512),
    };
    let (digits, shift) = match size.as_bytes().last() {
        Some(b'K' | b'k') => (&size[..size.len() - 1], 10),
        Some(b'M' | b'm') => (&size[..size.len() - 1], 20),
        Some(b'G' | b'g') => (&size[..size.len() - 1], 30),
        Some(b'T' | b't') => (&size[..size.len() - 1], 40),
        _ => (size, 0),
    };
    let n: u64 = digits.parse().with_context(|| format!("size in `{s}`"))?;
    let bytes = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| anyhow!("size `{s}` is too large"))?;
    Ok((bytes, lba))
}

/// The subsystem the flags describe.
fn nvm_subsystem(a: &NvmModelArgs) -> anyhow::Result<Subsystem> {
    let mut namespaces = Vec::new();
    for f in &a.namespace_files {
        let (path, lba) = match f.rsplit_once('@') {
            Some((p, l)) => (p, l.parse().with_context(|| format!("block size in `{f}`"))?),
            None => (f.as_str(), 512),
        };
        let nsid = namespaces.len() as u32 + 1;
        namespaces.push(Namespace::from_file(nsid, Path::new(path), lba).context("--namespace-file")?);
    }
    for n in &a.namespaces {
        let (bytes, lba) = parse_size_lba(n).context("--namespace")?;
        let nsid = namespaces.len() as u32 + 1;
        namespaces.push(Namespace::with_size(nsid, bytes, lba).context("--namespace")?);
    }
    if namespaces.is_empty() {
        namespaces = Subsystem::default().namespaces;
    }
    let mut s = Subsystem::new(a.controllers, namespaces);
    if let Some(v) = &a.serial {
        s.identity.serial = v.clone();
    }
    if let Some(v) = &a.model_name {
        s.identity.model = v.clone();
    }
    let mut h = s.health().clone();
    if let Some(v) = a.temperature {
        h.temperature_c = v;
    }
    if let Some(v) = a.spare {
        h.available_spare = v;
    }
    if let Some(v) = a.percent_used {
        h.percent_used = v;
    }
    if let Some(v) = a.power_on_hours {
        h.power_on_hours = v;
    }
    s.set_health(h);
    s.clear_ccs(offload_driver::nvme::subsystem::change::ALL);
    for c in &mut s.controllers {
        c.changes = 0;
    }
    Ok(s)
}

pub(crate) fn parse_range(s: &str) -> Result<(u8, u8), String> {
    match s.split_once('-') {
        Some((a, b)) => Ok((parse_u8(a)?, parse_u8(b)?)),
        None => parse_u8(s).map(|a| (a, a)),
    }
}

/// Where the control socket of a daemon lives by default.
pub(crate) fn control_dir() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .unwrap_or_else(std::env::temp_dir)
}

pub(crate) fn default_control_path(eid: Option<u8>, link: &str) -> PathBuf {
    let name = match eid {
        Some(e) => format!("offload-mctpd-eid{e}.sock"),
        None => {
            let l: String = link
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            format!("offload-mctpd-{l}.sock")
        }
    };
    control_dir().join(name)
}

fn check(rc: libc::c_int, what: &str) -> anyhow::Result<()> {
    if rc < 0 {
        return Err(std::io::Error::last_os_error()).context(what.to_string());
    }
    Ok(())
}

/// Raw mode, so the line discipline passes every octet (0x7E, CR, ^C…) untouched.
fn make_raw(fd: libc::c_int) -> anyhow::Result<()> {
    // SAFETY: termios is plain data; fd is open for the duration of the calls.
    unsafe {
        let mut t: libc::termios = std::mem::zeroed();
        check(libc::tcgetattr(fd, &mut t), "tcgetattr")?;
        libc::cfmakeraw(&mut t);
        check(libc::tcsetattr(fd, libc::TCSANOW, &t), "tcsetattr")?;
    }
    Ok(())
}

/// Opens the link; returns it and a description for the ready line. The second value keeps
/// a pty slave open for the daemon's life, so reads on the master never see EIO.
fn open_link(a: &MctpdArgs) -> anyhow::Result<(LinkParts, String, Option<File>)> {
    let spec = a.link.as_str();
    if spec == "pty" {
        let (mut m, mut s) = (-1, -1);
        // SAFETY: out-pointers to two ints; name, termios and winsize may be null.
        check(
            unsafe {
                libc::openpty(
                    &mut m,
                    &mut s,
                    std::ptr::null_mut(),
                    std::ptr::null(),
                    std::ptr::null(),
                )
            },
            "openpty",
        )?;
        // SAFETY: openpty returned two fresh descriptors we now own.
        let (master, slave) = unsafe { (File::from_raw_fd(m), File::from_raw_fd(s)) };
        make_raw(slave.as_raw_fd())?;
        let mut buf = [0 as libc::c_char; 128];
        // SAFETY: buf is writable for its length.
        check(
            unsafe { libc::ttyname_r(slave.as_raw_fd(), buf.as_mut_ptr(), buf.len()) },
            "ttyname_r",
        )?;
        // SAFETY: ttyname_r wrote a NUL-terminated string into buf.
        let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned();
        let parts = serial_link(master.try_clone()?, master);
        return Ok((parts, format!("pty {name}"), Some(slave)));
    }
    let (kind, rest) = spec.split_once(':').ok_or_else(|| {
        anyhow!("--link {spec}: expected serial:PATH, pty, tcp:ADDR or unix:PATH")
    })?;
    match kind {
        "serial" => {
            let f = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .custom_flags_noctty()
                .open(rest)
                .with_context(|| format!("opening {rest}"))?;
            // SAFETY: isatty only inspects the descriptor.
            if unsafe { libc::isatty(f.as_raw_fd()) } == 1 {
                make_raw(f.as_raw_fd())?;
            }
            Ok((
                serial_link(f.try_clone()?, f),
                format!("serial {rest}"),
                None,
            ))
        }
        "tcp" => {
            let s = if a.listen {
                let l = std::net::TcpListener::bind(rest)
                    .with_context(|| format!("listening on {rest}"))?;
                say(&format!(
                    "offload mctpd: listening on tcp {}",
                    l.local_addr()?
                ));
                l.accept()?.0
            } else {
                retry_connect(|| std::net::TcpStream::connect(rest))
                    .with_context(|| format!("connecting to {rest}"))?
            };
            s.set_nodelay(true)?;
            Ok((serial_link(s.try_clone()?, s), format!("tcp {rest}"), None))
        }
        "unix" => {
            let s = if a.listen {
                let _ = std::fs::remove_file(rest);
                let l = UnixListener::bind(rest).with_context(|| format!("listening on {rest}"))?;
                say(&format!("offload mctpd: listening on unix {rest}"));
                l.accept()?.0
            } else {
                retry_connect(|| UnixStream::connect(rest))
                    .with_context(|| format!("connecting to {rest}"))?
            };
            Ok((serial_link(s.try_clone()?, s), format!("unix {rest}"), None))
        }
        _ => bail!("--link {spec}: unknown link kind `{kind}` (serial, pty, tcp, unix)"),
    }
}

trait NoCtty {
    fn custom_flags_noctty(&mut self) -> &mut Self;
}

impl NoCtty for std::fs::OpenOptions {
    fn custom_flags_noctty(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.custom_flags(libc::O_NOCTTY)
    }
}

/// Connects, retrying for 5 s while the peer is not up yet.
fn retry_connect<T>(mut f: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    let start = Instant::now();
    loop {
        match f() {
            Ok(s) => return Ok(s),
            Err(e) if start.elapsed() > Duration::from_secs(5) => return Err(e),
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    }
}

fn parse_uuid(s: &str) -> anyhow::Result<[u8; 16]> {
    let hex: String = s.chars().filter(|c| *c != '-').collect();
    from_hex(&hex)?
        .try_into()
        .map_err(|v: Vec<u8>| anyhow!("--uuid: {} octets, expected 16", v.len()))
}

/// A status line on stdout; a daemon outlives whoever reads it, so a closed stdout is not an
/// error.
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}").and_then(|_| out.flush());
}

pub fn run(a: MctpdArgs) -> anyhow::Result<()> {
    // A daemon keeps running when a reader of its stdout or a control client goes away.
    // SAFETY: no other thread exists yet; only changes the signal disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let control = a
        .control
        .clone()
        .unwrap_or_else(|| default_control_path(a.eid, &a.link));
    let uuid = a
        .uuid
        .as_deref()
        .map(parse_uuid)
        .transpose()?
        .unwrap_or_else(|| {
            let mut u = *b"offload-mctpd\0\0\0";
            u[15] = a.eid.unwrap_or(0);
            u
        });
    let (parts, what, _slave) = open_link(&a)?;
    let ep = Endpoint::new(StackConfig::default())?;
    let net = NetId(a.net);
    if net != DEFAULT_NET {
        ep.configure(|t| {
            t.add_network(net)?;
            t.set_default_net(net)
        })?;
    }
    let link = ep.add_link("serial0", net, parts)?;
    ep.configure(|t| t.set_link_mtu(link, a.mtu))
        .context("--mtu")?;
    if let Some(e) = a.eid {
        ep.add_addr(link, e).context("--eid")?;
    }
    let routes = if a.routes.is_empty() {
        vec![(8, 254)]
    } else {
        a.routes.clone()
    };
    for (first, last) in routes {
        ep.add_route(Route {
            first,
            last,
            metric: 100,
            ..Route::to(net, first, link)
        })
        .with_context(|| format!("--route {first}-{last}"))?;
    }
    let mut types = a.echo.clone();
    if a.nvme_mi {
        types.push(TYPE_NVME_MI);
    }
    let mut config = ResponderConfig {
        uuid,
        endpoint_type: u8::from(a.bus_owner.is_some()),
        eid_type: if a.eid.is_some() { 2 } else { 0 },
        message_types: types,
        ..Default::default()
    };
    if a.nvme_mi {
        // NVMe-MI over MCTP binding (DSP0235) 1.0: BCD major, minor, no update (0xFF), alpha 0.
        config
            .versions
            .insert(TYPE_NVME_MI, vec![[0xF1, 0xF0, 0xFF, 0x00]]);
    }
    let mut services: Vec<ServiceHandle> = vec![ControlResponder::new(config).spawn(&ep)?];
    let mut nvm: Option<SharedSubsystem> = None;
    if a.nvme_mi {
        let model = SubsystemModel {
            in_progress_first: a.in_progress,
            mprt_100ms: a.mprt,
            // The largest transmission unit the link carries; the one in use starts at the
            // baseline and moves with Configuration Set.
            mtu: (a.mtu - 4) as u16,
            nvm: nvm_subsystem(&a.model)?,
            ..Default::default()
        };
        let r = NvmeMiResponder::new(model);
        nvm = Some(r.subsystem());
        services.push(r.spawn(&ep)?);
    }
    for &t in &a.echo {
        let s = ep.socket();
        s.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, t))
            .with_context(|| format!("--echo {t}"))?;
        services.push(control_endpoint::spawn_service("echo", s, |s, m, from| {
            let _ = s.send_to(&m, &from.reply());
        })?);
    }
    if let Some((lo, hi)) = a.bus_owner {
        let mut bo = BusOwner::new(lo..=hi)?;
        let ep2 = ep.clone();
        std::thread::spawn(move || {
            let client = ControlClient::new(&ep2);
            // Point to point: one peer, no physical address. Retry until it answers.
            loop {
                match bo.discover(&ep2, &client, link, &[None]) {
                    Ok(found) if !found.is_empty() => {
                        for d in found {
                            eprintln!(
                                "offload mctpd: peer has EID {}{}",
                                d.eid,
                                if d.kept { " (kept)" } else { " (assigned)" }
                            );
                        }
                        return;
                    }
                    Ok(_) => std::thread::sleep(Duration::from_millis(200)),
                    Err(e) => {
                        eprintln!("offload mctpd: bus owner: {e}");
                        return;
                    }
                }
            }
        });
    }
    let _ = std::fs::remove_file(&control);
    let listener = UnixListener::bind(&control)
        .with_context(|| format!("control socket {}", control.display()))?;
    say(&format!(
        "offload mctpd: eid {} net {} link serial0 ({what}) mtu {} control {}",
        a.eid.map_or("none".to_string(), |e| e.to_string()),
        a.net,
        a.mtu,
        control.display()
    ));
    for conn in listener.incoming() {
        let Ok(conn) = conn else { continue };
        let ep = ep.clone();
        let nvm = nvm.clone();
        std::thread::spawn(move || {
            let _ = serve(&ep, nvm.as_ref(), conn);
        });
    }
    drop(services);
    Ok(())
}

/// One control connection: a request line, answered.
fn serve(ep: &Endpoint, nvm: Option<&SharedSubsystem>, conn: UnixStream) -> std::io::Result<()> {
    let mut line = String::new();
    BufReader::new(conn.try_clone()?).read_line(&mut line)?;
    let mut out = conn;
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["socket"] => return super::mctp_socket_service::serve_data(ep, out),
        ["socket-ops", id] => {
            return match id.parse() {
                Ok(id) => super::mctp_socket_service::serve_ops(id, out),
                Err(_) => writeln!(out, "error: bad socket id"),
            }
        }
        _ => {}
    }
    match handle(ep, nvm, line.trim()) {
        Ok(lines) => {
            for l in lines {
                writeln!(out, "{l}")?;
            }
            writeln!(out, "ok")
        }
        Err(e) => writeln!(out, "error: {}", format!("{e:#}").replace('\n', " ")),
    }
}

/// `nvme-mi set KEY VALUE`: changes a value of the running NVMe-MI model.
fn set_model_value(nvm: &SharedSubsystem, key: &str, value: &str) -> anyhow::Result<()> {
    let mut s = nvm.lock().unwrap_or_else(|e| e.into_inner());
    match key {
        "temperature" => {
            let v: i16 = value.parse()?;
            s.update_health(|h| h.temperature_c = v)
        }
        "spare" => {
            let v: u8 = value.parse()?;
            s.update_health(|h| h.available_spare = v)
        }
        "percent-used" => {
            let v: u8 = value.parse()?;
            s.update_health(|h| h.percent_used = v)
        }
        "power-on-hours" => {
            let v: u64 = value.parse()?;
            s.update_health(|h| h.power_on_hours = v)
        }
        "media-errors" => {
            let v: u64 = value.parse()?;
            s.update_health(|h| h.media_errors = v)
        }
        "critical-warning" => {
            let v = parse_u8(value).map_err(|e| anyhow!(e))?;
            s.update_health(|h| h.warnings = v)
        }
        _ => bail!(
            "unknown NVMe-MI model value `{key}` (temperature, spare, percent-used, power-on-hours, media-errors, critical-warning)"
        ),
    }
    Ok(())
}

fn handle(ep: &Endpoint, nvm: Option<&SharedSubsystem>, req: &str) -> anyhow::Result<Vec<String>> {
    let words: Vec<&str> = req.split_whitespace().collect();
    let topo = ep.topology();
    let name = |l: LinkId| {
        topo.link(l)
            .map(|i| i.name.clone())
            .unwrap_or_else(|_| format!("#{}", l.0))
    };
    match words.as_slice() {
        ["link", "show"] => Ok(topo
            .links()
            .map(|l| {
                format!(
                    "dev {} index {} address {} net {} mtu {} {} kind {}",
                    l.name,
                    l.id.0,
                    l.hwaddr
                        .map_or("none".to_string(), |h| format!("0x{h:02x}")),
                    l.net.0,
                    l.mtu,
                    if l.up { "up" } else { "down" },
                    l.kind
                )
            })
            .collect()),
        ["addr", "show"] => Ok(topo
            .links()
            .flat_map(|l| {
                l.addrs
                    .iter()
                    .map(move |e| format!("eid {e} net {} dev {}", l.net.0, l.name))
            })
            .collect()),
        ["route", "show"] => Ok(topo
            .routes()
            .iter()
            .map(|r| {
                format!(
                    "eid min {} max {} net {} dev {} mtu {} metric {}",
                    r.first,
                    r.last,
                    r.net.0,
                    name(r.link),
                    r.mtu.unwrap_or(0),
                    r.metric
                )
            })
            .collect()),
        ["ping", eid, timeout] => {
            let eid = parse_u8(eid).map_err(|e| anyhow!(e))?;
            let mut c = ControlClient::new(ep);
            c.timeout = Duration::from_millis(timeout.parse()?);
            let t0 = Instant::now();
            let (got, ty, eid_type) = c.get_eid(&ControlClient::addr(eid, None))?;
            let us = t0.elapsed().as_micros();
            Ok(vec![format!(
                "reply from eid {eid}: eid {got} endpoint-type {ty} eid-type {eid_type} time {}.{:03} ms",
                us / 1000,
                us % 1000
            )])
        }
        ["send", typ, eid, timeout, responses, hex] => {
            let typ = parse_u8(typ).map_err(|e| anyhow!(e))?;
            let eid = parse_u8(eid).map_err(|e| anyhow!(e))?;
            let timeout = Duration::from_millis(timeout.parse()?);
            let responses: usize = responses.parse()?;
            let msg = from_hex(hex)?;
            let s = ep.socket();
            s.send_to(&msg, &SockAddr::owner(NET_ANY, eid, typ & TYPE_MASK))?;
            let mut out = Vec::new();
            let deadline = Instant::now() + timeout;
            while out.len() < responses {
                let left = deadline.saturating_duration_since(Instant::now());
                match s.recv_from(Some(left)) {
                    Ok((m, from)) => out.push(format!(
                        "rx eid {} tag {} {}",
                        from.eid,
                        from.tag,
                        to_hex(&m)
                    )),
                    Err(StackError::Again(_)) if !out.is_empty() => break,
                    Err(StackError::Again(_)) => {
                        bail!("no response from EID {eid} within {timeout:?}")
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Ok(out)
        }
        ["nvme-mi", "set", key, value] => {
            let nvm = nvm.ok_or_else(|| anyhow!("this daemon serves no NVMe-MI (--nvme-mi)"))?;
            set_model_value(nvm, key, value)?;
            Ok(vec![])
        }
        ["nvme-mi", eid, timeout, hex] => {
            let eid = parse_u8(eid).map_err(|e| anyhow!(e))?;
            let mut c = NvmeMiClient::new(ep);
            c.timeout = Duration::from_millis(timeout.parse()?);
            let r = c.transact(eid, &from_hex(hex)?)?;
            Ok(vec![format!("rx in-progress {} {}", r.in_progress, to_hex(&r.response))])
        }
        _ => bail!("unknown request `{req}`"),
    }
}

/// Sends one request line to the daemon at `path` and returns its answer lines (without the
/// final `ok`); an `error:` answer becomes an error.
pub(crate) fn request(path: &Path, line: &str) -> anyhow::Result<Vec<String>> {
    let mut s = UnixStream::connect(path)
        .with_context(|| format!("connecting to the mctpd control socket {}", path.display()))?;
    writeln!(s, "{line}")?;
    let mut lines = Vec::new();
    for l in BufReader::new(s).lines() {
        let l = l?;
        if l == "ok" {
            return Ok(lines);
        }
        if let Some(e) = l.strip_prefix("error: ") {
            bail!("mctpd: {e}");
        }
        lines.push(l);
    }
    bail!("mctpd closed the control connection without an answer")
}
