//! The AoE target (server), sans I/O: [`Target::handle`] takes one received frame and writes
//! the response, if any, following AoE r11 in this order:
//!
//! 1. frames that are not AoE or shorter than the header, and responses (Flags R), are ignored;
//! 2. the destination must be our MAC or broadcast, and Major/Minor ours or all ones (§2.5),
//!    else the frame is ignored;
//! 3. with a non-empty Mac Mask List the source must be on it, for every command (§3.3);
//! 4. Ver must be 1, else AoE error 5; unknown commands get error 1, malformed Args error 2;
//! 5. ATA reads and writes from a MAC not on a non-empty reserve list get error 6 (§3.4).
//!
//! Every response carries our own Major/Minor (§2.5). [`Backlog`] is the Buffer Count queue
//! (§3.2: messages in excess are dropped); the I/O loop lives in [`super::server`].

use super::ata::{self, cmd, error as ata_error, status, AtaArg, ATA_HEADER_LEN, SECTOR};
use super::config::{self, QueryConfig, CONFIG_MAX};
use super::device::BlockDevice;
use super::header::{
    AoeError, Header, Mac, BROADCAST, CMD_ATA, CMD_MAC_MASK, CMD_QUERY_CONFIG, CMD_RESERVE,
    FLAG_ERROR, FLAG_RESPONSE, MAJOR_ANY, MINOR_ANY, VERSION,
};
use super::identify::Identity;
use super::mask::{self, Directive, MacMask, MASK_MAX};
use super::reserve::{self, Reserve, RESERVE_MAX};
use std::collections::VecDeque;

/// Firmware version reported in Query Config responses.
pub const FIRMWARE_VERSION: u16 = 0x0001;
/// Buffer Count when none is configured (vblade's default too).
pub const DEFAULT_BUFFER_COUNT: u16 = 16;
/// Sectors of asynchronous writes held before they are written out regardless.
pub const DEFAULT_ASYNC_LIMIT: usize = 4096;

/// How a target presents itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetConfig {
    /// Shelf (Major); 0xFFFF is the all-ones wildcard and cannot be a server address.
    pub major: u16,
    /// Slot (Minor); 0xFF is the wildcard.
    pub minor: u8,
    /// Our Ethernet address, the source of every response.
    pub mac: Mac,
    /// Outstanding messages queued; more are dropped (§3.2).
    pub buffer_count: u16,
    /// Most sectors per ATA command, from the link MTU ([`ata::sectors_per_frame`]).
    pub max_sectors: u8,
    pub firmware: u16,
    pub model: String,
    pub serial: String,
    pub config_string: Vec<u8>,
    /// Initial Mac Mask List (empty: everyone).
    pub mask: Vec<Mac>,
    /// Sectors of asynchronous (A+W) writes held in memory before being written out.
    pub async_limit: usize,
}

/// Why a configuration cannot serve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetConfigError {
    #[error("shelf {0} is the all-ones broadcast major (0xffff)")]
    MajorBroadcast(u16),
    #[error("slot {0} is the all-ones broadcast minor (0xff)")]
    MinorBroadcast(u8),
    #[error("buffer count must be at least 1")]
    NoBuffers,
    #[error("the MTU leaves no room for a sector per frame (max sectors 0)")]
    NoSectors,
    #[error("config string of {0} octets exceeds 1024")]
    ConfigTooLong(usize),
    #[error("mac mask list of {0} entries exceeds 255")]
    MaskTooLong(usize),
}

impl TargetConfig {
    /// Defaults for shelf `major`, slot `minor`, on a link of `mtu` with address `mac`.
    pub fn new(major: u16, minor: u8, mac: Mac, mtu: usize) -> Self {
        TargetConfig {
            major,
            minor,
            mac,
            buffer_count: DEFAULT_BUFFER_COUNT,
            max_sectors: ata::sectors_per_frame(mtu).min(255) as u8,
            firmware: FIRMWARE_VERSION,
            model: "offload AoE target".into(),
            serial: format!("e{major}.{minor}"),
            config_string: Vec::new(),
            mask: Vec::new(),
            async_limit: DEFAULT_ASYNC_LIMIT,
        }
    }

    fn validate(&self) -> Result<(), TargetConfigError> {
        if self.major == MAJOR_ANY {
            return Err(TargetConfigError::MajorBroadcast(self.major));
        }
        if self.minor == MINOR_ANY {
            return Err(TargetConfigError::MinorBroadcast(self.minor));
        }
        if self.buffer_count == 0 {
            return Err(TargetConfigError::NoBuffers);
        }
        if self.max_sectors == 0 {
            return Err(TargetConfigError::NoSectors);
        }
        if self.config_string.len() > CONFIG_MAX {
            return Err(TargetConfigError::ConfigTooLong(self.config_string.len()));
        }
        if self.mask.len() > MASK_MAX {
            return Err(TargetConfigError::MaskTooLong(self.mask.len()));
        }
        Ok(())
    }
}

/// Why a frame got no response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ignored {
    /// Not an AoE frame, or shorter than the header.
    Malformed,
    /// A response (Flags R) from some other server.
    Response,
    /// Major/Minor are neither ours nor all ones.
    NotAddressed,
    /// Sent to another Ethernet address (seen because the interface is promiscuous or
    /// bridged): neither our MAC nor broadcast.
    OtherHost,
    /// The Mac Mask List is not empty and the source is not on it.
    Masked,
    /// Query Config CCmd 1/2 whose string does not match ours.
    ConfigMismatch,
}

/// What [`Target::handle`] did with a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `out` holds the response to send.
    Respond,
    Ignored(Ignored),
}

/// Counters since the target started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetStats {
    pub responses: u64,
    pub ignored_malformed: u64,
    pub ignored_responses: u64,
    pub ignored_not_addressed: u64,
    pub ignored_masked: u64,
    pub ignored_config_mismatch: u64,
    /// Responses with Flags E set.
    pub aoe_errors: u64,
    /// ATA commands completed with Status ERR.
    pub ata_errors: u64,
    pub sectors_read: u64,
    pub sectors_written: u64,
    pub async_writes: u64,
    /// Asynchronous writes that failed after their response went out (§3.1: no response).
    pub async_write_failures: u64,
}

/// A served disk.
pub struct Target<D: BlockDevice> {
    cfg: TargetConfig,
    dev: D,
    identify: [u8; 512],
    mask: Vec<Mac>,
    reserve: Vec<Mac>,
    available: bool,
    /// A+W writes answered but not yet on the device, in arrival order.
    pending: Vec<(u64, Vec<u8>)>,
    pending_sectors: usize,
    stats: TargetStats,
}

impl<D: BlockDevice> Target<D> {
    pub fn new(cfg: TargetConfig, dev: D) -> Result<Self, TargetConfigError> {
        cfg.validate()?;
        let identify = Identity {
            sectors: dev.sectors(),
            model: cfg.model.clone(),
            serial: cfg.serial.clone(),
            firmware: format!("{:x}", cfg.firmware),
            lba48: true,
        }
        .encode();
        Ok(Target {
            mask: cfg.mask.clone(),
            cfg,
            dev,
            identify,
            reserve: Vec::new(),
            available: true,
            pending: Vec::new(),
            pending_sectors: 0,
            stats: TargetStats::default(),
        })
    }

    pub fn config(&self) -> &TargetConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &TargetStats {
        &self.stats
    }
    pub fn mask_list(&self) -> &[Mac] {
        &self.mask
    }
    pub fn reserve_list(&self) -> &[Mac] {
        &self.reserve
    }
    pub fn config_string(&self) -> &[u8] {
        &self.cfg.config_string
    }
    pub fn device(&self) -> &D {
        &self.dev
    }
    /// Capacity of the served device in sectors.
    pub fn device_sectors(&self) -> u64 {
        self.dev.sectors()
    }

    /// Marks the device unavailable (ATA commands then get AoE error 3) or available again.
    pub fn set_available(&mut self, available: bool) {
        self.available = available;
    }

    /// The boot-time broadcast (§3.2): a Query Config response with tag 0 to everyone.
    pub fn announce(&self, out: &mut Vec<u8>) {
        out.clear();
        let h = Header::request(
            BROADCAST,
            BROADCAST,
            MAJOR_ANY,
            MINOR_ANY,
            CMD_QUERY_CONFIG,
            0,
        );
        self.response_header(&h, 0, out);
        self.query_config_arg(config::CCMD_READ, out);
    }

    /// Writes out held asynchronous writes; the I/O loop calls it when no frame is waiting.
    pub fn idle(&mut self) {
        for (lba, data) in std::mem::take(&mut self.pending) {
            if self.dev.write(lba, &data).is_err() {
                self.stats.async_write_failures += 1;
            }
        }
        self.pending_sectors = 0;
    }

    /// Writes out held asynchronous writes and makes the device durable.
    pub fn flush_device(&mut self) -> std::io::Result<()> {
        self.idle();
        self.dev.flush()
    }

    /// Processes one received frame (Ethernet header on); on [`Outcome::Respond`] `out` holds
    /// the response frame.
    pub fn handle(&mut self, frame: &[u8], out: &mut Vec<u8>) -> Outcome {
        out.clear();
        let outcome = self.dispatch(frame, out);
        match outcome {
            Outcome::Respond => {
                self.stats.responses += 1;
                if out[14] & FLAG_ERROR != 0 {
                    self.stats.aoe_errors += 1;
                }
            }
            Outcome::Ignored(why) => {
                out.clear();
                *match why {
                    Ignored::Malformed => &mut self.stats.ignored_malformed,
                    Ignored::Response => &mut self.stats.ignored_responses,
                    Ignored::NotAddressed | Ignored::OtherHost => {
                        &mut self.stats.ignored_not_addressed
                    }
                    Ignored::Masked => &mut self.stats.ignored_masked,
                    Ignored::ConfigMismatch => &mut self.stats.ignored_config_mismatch,
                } += 1;
            }
        }
        outcome
    }

    fn dispatch(&mut self, frame: &[u8], out: &mut Vec<u8>) -> Outcome {
        let Ok((h, arg)) = Header::parse(frame) else {
            return Outcome::Ignored(Ignored::Malformed);
        };
        if h.is_response() {
            return Outcome::Ignored(Ignored::Response);
        }
        if h.dst != self.cfg.mac && h.dst != BROADCAST {
            return Outcome::Ignored(Ignored::OtherHost);
        }
        if !h.addressed_to(self.cfg.major, self.cfg.minor) {
            return Outcome::Ignored(Ignored::NotAddressed);
        }
        if !self.mask.is_empty() && !self.mask.contains(&h.src) {
            return Outcome::Ignored(Ignored::Masked);
        }
        if h.version != VERSION {
            return self.aoe_error(&h, AoeError::UnsupportedVersion, arg, out);
        }
        match h.command {
            CMD_ATA => self.ata(&h, arg, out),
            CMD_QUERY_CONFIG => self.query_config(&h, arg, out),
            CMD_MAC_MASK => self.mac_mask(&h, arg, out),
            CMD_RESERVE => self.reserve_release(&h, arg, out),
            _ => self.aoe_error(&h, AoeError::UnrecognizedCommand, arg, out),
        }
    }

    /// Header of a response to `req`: back to its source, from us, our own Major/Minor.
    fn response_header(&self, req: &Header, error: u8, out: &mut Vec<u8>) {
        Header {
            dst: req.src,
            src: self.cfg.mac,
            version: VERSION,
            flags: FLAG_RESPONSE | if error != 0 { FLAG_ERROR } else { 0 },
            error,
            major: self.cfg.major,
            minor: self.cfg.minor,
            command: req.command,
            tag: req.tag,
        }
        .write(out);
    }

    /// An error response echoing the command's Arg (cut to what one frame can carry back).
    fn aoe_error(&self, h: &Header, e: AoeError, arg: &[u8], out: &mut Vec<u8>) -> Outcome {
        self.response_header(h, e.code(), out);
        let room = ata::SECTOR * self.cfg.max_sectors as usize + ata::ARG_LEN;
        out.extend_from_slice(&arg[..arg.len().min(room)]);
        Outcome::Respond
    }

    fn reserve_allows(&self, src: &Mac) -> bool {
        self.reserve.is_empty() || self.reserve.contains(src)
    }

    fn ata(&mut self, h: &Header, arg: &[u8], out: &mut Vec<u8>) -> Outcome {
        let Ok((a, data)) = AtaArg::parse(arg) else {
            return self.aoe_error(h, AoeError::BadArgument, arg, out);
        };
        let c = a.cmd_status;
        let read = c == cmd::READ_SECTORS || c == cmd::READ_SECTORS_EXT;
        let write = c == cmd::WRITE_SECTORS || c == cmd::WRITE_SECTORS_EXT;
        if !self.available {
            return self.aoe_error(h, AoeError::DeviceUnavailable, arg, out);
        }
        if (read || write) && !self.reserve_allows(&h.src) {
            return self.aoe_error(h, AoeError::TargetReserved, arg, out);
        }
        let n = a.sector_count as usize;
        if write && n > 0 && (!a.is_write() || data.len() < n * SECTOR) {
            // §3.1: a write carries W and Sector Count × 512 octets of Data.
            return self.aoe_error(h, AoeError::BadArgument, arg, out);
        }
        if c == cmd::IDENTIFY_DEVICE && n != 1 {
            return self.aoe_error(h, AoeError::BadArgument, arg, out);
        }
        // The response registers: the command's, with Status/Error (and Count) as the device
        // leaves them (§3.1: remaining fields retain the command's values).
        let mut r = a;
        r.err_feature = 0;
        r.cmd_status = status::DRDY;
        let start = out.len();
        self.response_header(h, 0, out);
        let arg_at = out.len();
        r.write(out);
        let abort = |r: &mut AtaArg, err: u8| {
            r.cmd_status = status::DRDY | status::ERR;
            r.err_feature = err;
        };
        match c {
            cmd::IDENTIFY_DEVICE => out.extend_from_slice(&self.identify),
            cmd::CHECK_POWER_MODE => r.sector_count = 0xFF, // active or idle
            cmd::FLUSH_CACHE | cmd::FLUSH_CACHE_EXT => {
                self.idle();
                if self.dev.flush().is_err() {
                    abort(&mut r, ata_error::ABRT);
                }
            }
            _ if read || write => {
                let ext = c == cmd::READ_SECTORS_EXT || c == cmd::WRITE_SECTORS_EXT;
                let lba = if ext { a.lba48() } else { a.lba28() };
                if n > self.cfg.max_sectors as usize {
                    abort(&mut r, ata_error::ABRT);
                } else if lba + n as u64 > self.dev.sectors() {
                    abort(&mut r, ata_error::IDNF);
                } else if n == 0 {
                } else if read {
                    if !self.pending.is_empty() {
                        self.idle();
                    }
                    out.resize(arg_at + ata::ARG_LEN + n * SECTOR, 0);
                    if self
                        .dev
                        .read(lba, &mut out[arg_at + ata::ARG_LEN..])
                        .is_ok()
                    {
                        self.stats.sectors_read += n as u64;
                    } else {
                        out.truncate(arg_at + ata::ARG_LEN);
                        abort(&mut r, ata_error::UNC);
                    }
                } else if a.is_async_write() {
                    // §3.1: answer now with the Arg unchanged; a later read sees the data.
                    if self.pending_sectors + n > self.cfg.async_limit {
                        self.idle();
                    }
                    self.pending.push((lba, data[..n * SECTOR].to_vec()));
                    self.pending_sectors += n;
                    self.stats.async_writes += 1;
                    self.stats.sectors_written += n as u64;
                    out.truncate(start);
                    self.response_header(h, 0, out);
                    a.write(out);
                    return Outcome::Respond;
                } else if self.dev.write(lba, &data[..n * SECTOR]).is_ok() {
                    self.stats.sectors_written += n as u64;
                } else {
                    abort(&mut r, ata_error::ABRT);
                }
            }
            _ => abort(&mut r, ata_error::ABRT),
        }
        if r.cmd_status & status::ERR != 0 {
            self.stats.ata_errors += 1;
        }
        out[arg_at..arg_at + 4].copy_from_slice(&[
            r.aflags,
            r.err_feature,
            r.sector_count,
            r.cmd_status,
        ]);
        debug_assert!(out.len() <= ATA_HEADER_LEN + SECTOR * 255);
        Outcome::Respond
    }

    fn query_config_arg(&self, ccmd: u8, out: &mut Vec<u8>) {
        QueryConfig {
            buffer_count: self.cfg.buffer_count,
            firmware: self.cfg.firmware,
            sector_count: self.cfg.max_sectors,
            aoe_version: VERSION,
            ccmd,
            config: self.cfg.config_string.clone(),
        }
        .write(out);
    }

    fn query_config(&mut self, h: &Header, arg: &[u8], out: &mut Vec<u8>) -> Outcome {
        let q = match QueryConfig::parse(arg) {
            Ok(q) => q,
            Err(_) => return self.aoe_error(h, AoeError::BadArgument, arg, out),
        };
        let current = &self.cfg.config_string;
        let mut error = 0;
        match q.ccmd {
            config::CCMD_READ => {}
            config::CCMD_TEST if q.config != *current => {
                return Outcome::Ignored(Ignored::ConfigMismatch)
            }
            config::CCMD_TEST_PREFIX if !current.starts_with(&q.config) => {
                return Outcome::Ignored(Ignored::ConfigMismatch)
            }
            config::CCMD_TEST | config::CCMD_TEST_PREFIX => {}
            config::CCMD_SET if !current.is_empty() => error = AoeError::ConfigStringPresent.code(),
            config::CCMD_SET | config::CCMD_FORCE_SET => self.cfg.config_string = q.config,
            _ => return self.aoe_error(h, AoeError::BadArgument, arg, out),
        }
        self.response_header(h, error, out);
        self.query_config_arg(q.ccmd, out);
        Outcome::Respond
    }

    fn mac_mask(&mut self, h: &Header, arg: &[u8], out: &mut Vec<u8>) -> Outcome {
        let Ok(m) = MacMask::parse(arg) else {
            return self.aoe_error(h, AoeError::BadArgument, arg, out);
        };
        match m.mcmd {
            mask::MCMD_READ => {}
            mask::MCMD_EDIT => {
                for (i, d) in m.directives.iter().enumerate() {
                    let merror = match d.dcmd {
                        mask::DCMD_NONE => 0,
                        mask::DCMD_ADD if self.mask.contains(&d.mac) => 0,
                        mask::DCMD_ADD if self.mask.len() >= MASK_MAX => mask::MERROR_FULL,
                        mask::DCMD_ADD => {
                            self.mask.push(d.mac);
                            0
                        }
                        mask::DCMD_DELETE => {
                            self.mask.retain(|x| *x != d.mac);
                            0
                        }
                        _ => mask::MERROR_BAD_DCMD,
                    };
                    if merror != 0 {
                        // §3.3: stop, Dir Count = the failing directive, the command's list.
                        self.response_header(h, 0, out);
                        MacMask {
                            mcmd: m.mcmd,
                            merror,
                            dir_count: i as u8,
                            directives: m.directives.clone(),
                        }
                        .write(out);
                        return Outcome::Respond;
                    }
                }
            }
            _ => return self.aoe_error(h, AoeError::BadArgument, arg, out),
        }
        self.response_header(h, 0, out);
        MacMask {
            mcmd: m.mcmd,
            merror: 0,
            dir_count: self.mask.len() as u8,
            directives: self
                .mask
                .iter()
                .map(|&mac| Directive {
                    dcmd: mask::DCMD_ADD,
                    mac,
                })
                .collect(),
        }
        .write(out);
        Outcome::Respond
    }

    fn reserve_release(&mut self, h: &Header, arg: &[u8], out: &mut Vec<u8>) -> Outcome {
        let (rcmd, error) = match Reserve::parse(arg) {
            Err(_) => (
                arg.first().copied().unwrap_or(0),
                AoeError::BadArgument.code(),
            ),
            Ok(r) => match r.rcmd {
                reserve::RCMD_READ => (r.rcmd, 0),
                reserve::RCMD_SET if !self.reserve_allows(&h.src) => {
                    (r.rcmd, AoeError::TargetReserved.code())
                }
                reserve::RCMD_SET | reserve::RCMD_FORCE_SET => {
                    let mut list: Vec<Mac> = Vec::with_capacity(r.macs.len());
                    for m in r.macs {
                        if !list.contains(&m) {
                            list.push(m);
                        }
                    }
                    list.truncate(RESERVE_MAX);
                    self.reserve = list;
                    (r.rcmd, 0)
                }
                _ => (r.rcmd, AoeError::BadArgument.code()),
            },
        };
        // §3.4: responses, successful or error, return the current reserve list.
        self.response_header(h, error, out);
        Reserve {
            rcmd,
            macs: self.reserve.clone(),
        }
        .write(out);
        Outcome::Respond
    }
}

/// The Buffer Count queue: frames received and waiting to be processed, at most
/// `capacity`; more are dropped and counted (§3.2). Buffers are reused.
#[derive(Debug)]
pub struct Backlog {
    capacity: usize,
    frames: VecDeque<Vec<u8>>,
    spare: Vec<Vec<u8>>,
    dropped: u64,
}

impl Backlog {
    pub fn new(capacity: u16) -> Self {
        Backlog {
            capacity: capacity.max(1) as usize,
            frames: VecDeque::with_capacity(capacity as usize),
            spare: Vec::new(),
            dropped: 0,
        }
    }

    /// Queues a copy of `frame`; `false` (and one more drop) when the queue is full.
    pub fn push(&mut self, frame: &[u8]) -> bool {
        if self.frames.len() >= self.capacity {
            self.dropped += 1;
            return false;
        }
        let mut b = self.spare.pop().unwrap_or_default();
        b.clear();
        b.extend_from_slice(frame);
        self.frames.push_back(b);
        true
    }

    /// The oldest waiting frame; give the buffer back with [`recycle`](Self::recycle).
    pub fn pop(&mut self) -> Option<Vec<u8>> {
        self.frames.pop_front()
    }

    pub fn recycle(&mut self, buf: Vec<u8>) {
        if self.spare.len() < self.capacity {
            self.spare.push(buf);
        }
    }

    pub fn len(&self) -> usize {
        self.frames.len()
    }
    /// The Buffer Count.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
    pub fn is_full(&self) -> bool {
        self.frames.len() >= self.capacity
    }
    /// Frames dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
#[path = "target_tests.rs"]
mod tests;
