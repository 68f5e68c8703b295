//! A blocking initiator over a [`Link`]: discovery (broadcast Query Config), connecting to one
//! target (its address, Buffer Count and Sector Count, then IDENTIFY DEVICE), reads and writes
//! through the [`Initiator`] state machine, and the management commands (Query Config, Mac
//! Mask List, Reserve/Release) with retransmission.

use super::ata::{self, SECTOR};
use super::config::{QueryConfig, CCMD_READ};
use super::header::{
    AoeError, FrameError, Header, Mac, BROADCAST, CMD_MAC_MASK, CMD_QUERY_CONFIG, CMD_RESERVE,
    ETH_HEADER_LEN, MAJOR_ANY, MINOR_ANY,
};
use super::identify::Identity;
use super::initiator::{Initiator, InitiatorConfig, InitiatorError, InitiatorStats, Request};
use super::mask::MacMask;
use super::reserve::Reserve;
use std::io;
use std::time::{Duration, Instant};

/// A raw Ethernet link carrying AoE frames (whole frames, Ethernet header included).
pub trait Link {
    /// Our Ethernet address.
    fn mac(&self) -> Mac;
    /// The link MTU (largest Ethernet payload).
    fn mtu(&self) -> usize;
    fn send(&mut self, frame: &[u8]) -> io::Result<()>;
    /// Waits up to `timeout` for an AoE frame (zero: do not wait); `None` on timeout.
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<Option<usize>>;
    /// Sends several frames; links that can send them in one system call override it.
    fn send_many(&mut self, frames: &[Vec<u8>]) -> io::Result<()> {
        for f in frames {
            self.send(f)?;
        }
        Ok(())
    }
    /// Makes the link itself hold at most `frames` received frames, dropping (and counting) the
    /// rest, when it can (`Ok(false)` when it cannot).
    fn bound_queue(&mut self, _frames: usize) -> io::Result<bool> {
        Ok(false)
    }
    /// Frames dropped by a queue set with [`bound_queue`](Self::bound_queue).
    fn queue_drops(&mut self) -> io::Result<u64> {
        Ok(0)
    }
    /// Hands every frame already waiting to `sink` without blocking; returns how many. Links
    /// that can take several frames per system call override it.
    fn drain(&mut self, buf: &mut [u8], sink: &mut dyn FnMut(&[u8])) -> io::Result<usize> {
        let mut n = 0;
        while let Some(len) = self.recv(buf, Duration::ZERO)? {
            sink(&buf[..len]);
            n += 1;
        }
        Ok(n)
    }
}

/// Why a client operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("link: {0}")]
    Io(#[from] io::Error),
    #[error("no AoE target e{major}.{minor} answered Query Config")]
    NoTarget { major: u16, minor: u8 },
    #[error("no response from the target")]
    NoResponse,
    #[error("target answered with {0}")]
    Aoe(AoeError),
    #[error("target answered with undefined AoE error {0}")]
    AoeUnknown(u8),
    #[error("malformed response: {0}")]
    BadResponse(#[from] FrameError),
    #[error("IDENTIFY DEVICE data is short")]
    BadIdentify,
    #[error(transparent)]
    Initiator(#[from] InitiatorError),
}

/// A target that answered discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    pub mac: Mac,
    pub major: u16,
    pub minor: u8,
    /// AoE version from the Ver field of the response.
    pub version: u8,
    pub config: QueryConfig,
}

/// Retransmission and sizing choices of a [`Client`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientOptions {
    pub rto: Duration,
    pub max_rto: Duration,
    pub retries: u32,
    /// Cap on the window (the target's Buffer Count is the other cap).
    pub max_window: Option<usize>,
    /// Cap on sectors per frame (the target's Sector Count and our MTU are the others).
    pub max_sectors: Option<usize>,
    /// Set AFlags A on writes.
    pub async_writes: bool,
    /// Use this source address instead of the link's own (tests acting as another host).
    pub source_mac: Option<Mac>,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            rto: Duration::from_millis(100),
            max_rto: Duration::from_secs(1),
            retries: 8,
            max_window: None,
            max_sectors: None,
            async_writes: false,
            source_mac: None,
        }
    }
}

fn recv_buf(link: &impl Link) -> Vec<u8> {
    vec![0; (link.mtu() + ETH_HEADER_LEN).max(2048)]
}

/// Sends a broadcast Query Config (Major 0xFFFF, Minor 0xFF) and collects the answers for
/// `wait`, one entry per (MAC, Major, Minor), sorted by address. Boot-time broadcasts that
/// arrive meanwhile count too.
pub fn discover<L: Link>(link: &mut L, wait: Duration) -> Result<Vec<Discovered>, ClientError> {
    let tag = 0x4000_0000 | (std::process::id() & 0xFFFF);
    let mut f = Vec::new();
    Header::request(
        link.mac(),
        BROADCAST,
        MAJOR_ANY,
        MINOR_ANY,
        CMD_QUERY_CONFIG,
        tag,
    )
    .write(&mut f);
    QueryConfig::command(CCMD_READ, b"").write(&mut f);
    link.send(&f)?;
    let mut found: Vec<Discovered> = Vec::new();
    let mut buf = recv_buf(link);
    let end = Instant::now() + wait;
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        let Some(n) = link.recv(&mut buf, end - now)? else {
            break;
        };
        let Ok((h, arg)) = Header::parse(&buf[..n]) else {
            continue;
        };
        if !h.is_response()
            || h.command != CMD_QUERY_CONFIG
            || (h.tag != tag && h.tag != 0)
            || h.flags & super::header::FLAG_ERROR != 0
        {
            continue;
        }
        let Ok(config) = QueryConfig::parse(arg) else {
            continue;
        };
        if !found
            .iter()
            .any(|d| d.mac == h.src && d.major == h.major && d.minor == h.minor)
        {
            found.push(Discovered {
                mac: h.src,
                major: h.major,
                minor: h.minor,
                version: h.version,
                config,
            });
        }
    }
    found.sort_by_key(|d| (d.major, d.minor, d.mac));
    Ok(found)
}

/// A connection to one target.
pub struct Client<L: Link> {
    link: L,
    ini: Initiator,
    opts: ClientOptions,
    target: Discovered,
    identity: Identity,
    buf: Vec<u8>,
    out: Vec<u8>,
    next_tag: u32,
}

impl<L: Link> Client<L> {
    /// Finds target `major`.`minor` with Query Config (broadcast MAC, its own address), sizes
    /// the window and frames from its answer and our MTU, and reads its IDENTIFY DEVICE data.
    pub fn connect(
        mut link: L,
        major: u16,
        minor: u8,
        opts: ClientOptions,
    ) -> Result<Self, ClientError> {
        let mac = opts.source_mac.unwrap_or(link.mac());
        let mut buf = recv_buf(&link);
        let mut out = Vec::new();
        let tag = 0x4000_0000 | (std::process::id() & 0xFFFF) | 0x1_0000;
        let mut target = None;
        'tries: for attempt in 0..=opts.retries.min(3) {
            out.clear();
            Header::request(mac, BROADCAST, major, minor, CMD_QUERY_CONFIG, tag).write(&mut out);
            QueryConfig::command(CCMD_READ, b"").write(&mut out);
            link.send(&out)?;
            let end = Instant::now() + opts.rto.saturating_mul(1 << attempt).min(opts.max_rto);
            while let Some(n) =
                link.recv(&mut buf, end.saturating_duration_since(Instant::now()))?
            {
                let Ok((h, arg)) = Header::parse(&buf[..n]) else {
                    continue;
                };
                if h.is_response()
                    && h.command == CMD_QUERY_CONFIG
                    && h.tag == tag
                    && h.dst == mac
                    && h.major == major
                    && h.minor == minor
                    && h.aoe_error() == Ok(None)
                {
                    if let Ok(config) = QueryConfig::parse(arg) {
                        target = Some(Discovered {
                            mac: h.src,
                            major,
                            minor,
                            version: h.version,
                            config,
                        });
                        break 'tries;
                    }
                }
            }
        }
        let target = target.ok_or(ClientError::NoTarget { major, minor })?;
        let mut sectors = (target.config.max_sectors() as usize)
            .min(ata::sectors_per_frame(link.mtu()))
            .max(1);
        if let Some(m) = opts.max_sectors {
            sectors = sectors.min(m.max(1));
        }
        let mut window = (target.config.buffer_count as usize).max(1);
        if let Some(m) = opts.max_window {
            window = window.min(m.max(1));
        }
        let cfg = InitiatorConfig {
            window,
            sectors_per_frame: sectors,
            lba48: false,
            async_writes: opts.async_writes,
            rto: opts.rto,
            max_rto: opts.max_rto,
            retries: opts.retries,
            ..InitiatorConfig::new(mac, target.mac, major, minor)
        };
        let mut c = Client {
            link,
            ini: Initiator::new(cfg)?,
            opts,
            target,
            identity: Identity {
                sectors: 0,
                model: String::new(),
                serial: String::new(),
                firmware: String::new(),
                lba48: false,
            },
            buf,
            out,
            next_tag: tag + 1,
        };
        let raw = c.run(Request::Identify)?;
        c.identity = Identity::decode(&raw).ok_or(ClientError::BadIdentify)?;
        let mut cfg = c.ini.config().clone();
        cfg.lba48 = c.identity.lba48;
        c.ini = Initiator::new(cfg)?;
        Ok(c)
    }

    /// The target's Query Config answer and address.
    pub fn target(&self) -> &Discovered {
        &self.target
    }
    /// What IDENTIFY DEVICE said.
    pub fn identity(&self) -> &Identity {
        &self.identity
    }
    pub fn initiator_config(&self) -> &InitiatorConfig {
        self.ini.config()
    }
    pub fn stats(&self) -> &InitiatorStats {
        self.ini.stats()
    }
    pub fn link(&mut self) -> &mut L {
        &mut self.link
    }

    fn run(&mut self, req: Request) -> Result<Vec<u8>, ClientError> {
        self.ini.start(req)?;
        loop {
            let now = Instant::now();
            while self.ini.poll_transmit(now, &mut self.out) {
                self.link.send(&self.out)?;
            }
            if let Some(r) = self.ini.poll_result() {
                return Ok(r?);
            }
            let wait = self
                .ini
                .next_deadline()
                .map_or(Duration::from_millis(10), |d| {
                    d.saturating_duration_since(now)
                });
            if let Some(n) = self.link.recv(&mut self.buf, wait)? {
                self.ini.handle_frame(&self.buf[..n]);
            }
        }
    }

    /// Reads `count` sectors from `lba`.
    pub fn read(&mut self, lba: u64, count: u64) -> Result<Vec<u8>, ClientError> {
        self.run(Request::Read { lba, count })
    }

    /// Writes whole sectors from `lba`.
    pub fn write(&mut self, lba: u64, data: &[u8]) -> Result<(), ClientError> {
        if !data.len().is_multiple_of(SECTOR) {
            return Err(InitiatorError::Unaligned { len: data.len() }.into());
        }
        self.run(Request::Write {
            lba,
            data: data.to_vec(),
        })
        .map(drop)
    }

    /// FLUSH CACHE.
    pub fn flush(&mut self) -> Result<(), ClientError> {
        self.run(Request::Flush).map(drop)
    }

    /// Sends one management command (`command`, `arg`) to the target and waits for the
    /// response with its tag, retransmitting like data commands. `Ok(None)` when the target
    /// stays silent (a masked source, a Query Config test that does not match).
    pub fn transact(
        &mut self,
        command: u8,
        arg: &[u8],
    ) -> Result<Option<(Header, Vec<u8>)>, ClientError> {
        let tag = self.next_tag;
        self.next_tag = 0x4000_0000 | (self.next_tag.wrapping_add(1) & 0x3FFF_FFFF);
        let c = self.ini.config().clone();
        for attempt in 0..=self.opts.retries {
            self.out.clear();
            Header::request(c.mac, c.target_mac, c.major, c.minor, command, tag)
                .write(&mut self.out);
            self.out.extend_from_slice(arg);
            self.link.send(&self.out)?;
            let timeout = self
                .opts
                .rto
                .saturating_mul(1 << attempt.min(16))
                .min(self.opts.max_rto);
            let end = Instant::now() + timeout;
            while let Some(n) = self
                .link
                .recv(&mut self.buf, end.saturating_duration_since(Instant::now()))?
            {
                let Ok((h, rarg)) = Header::parse(&self.buf[..n]) else {
                    continue;
                };
                if h.is_response()
                    && h.tag == tag
                    && h.command == command
                    && h.dst == c.mac
                    && h.src == c.target_mac
                {
                    return Ok(Some((h, rarg.to_vec())));
                }
            }
        }
        Ok(None)
    }

    fn expect<T>(
        &mut self,
        command: u8,
        arg: &[u8],
        parse: impl Fn(&[u8]) -> Result<T, FrameError>,
    ) -> Result<T, ClientError> {
        let (h, rarg) = self
            .transact(command, arg)?
            .ok_or(ClientError::NoResponse)?;
        match h.aoe_error() {
            Ok(None) => Ok(parse(&rarg)?),
            Ok(Some(e)) => Err(ClientError::Aoe(e)),
            Err(code) => Err(ClientError::AoeUnknown(code)),
        }
    }

    /// Query Config with `ccmd` and `config` (set/test the config string).
    pub fn query_config(&mut self, ccmd: u8, config: &[u8]) -> Result<QueryConfig, ClientError> {
        let mut arg = Vec::new();
        QueryConfig::command(ccmd, config).write(&mut arg);
        self.expect(CMD_QUERY_CONFIG, &arg, QueryConfig::parse)
    }

    /// Mac Mask List read or edit; the response (the list, or MError with the failing index).
    pub fn mac_mask(&mut self, m: &MacMask) -> Result<MacMask, ClientError> {
        let mut arg = Vec::new();
        m.write(&mut arg);
        self.expect(CMD_MAC_MASK, &arg, MacMask::parse)
    }

    /// Reserve/Release; on success the reserve list after the command.
    pub fn reserve(&mut self, r: &Reserve) -> Result<Vec<Mac>, ClientError> {
        let mut arg = Vec::new();
        r.write(&mut arg);
        self.expect(CMD_RESERVE, &arg, |a| Reserve::parse(a).map(|r| r.macs))
    }
}
