//! The AoE initiator (client) data path, sans I/O: one request at a time (read, write,
//! IDENTIFY, FLUSH CACHE) split into ATA commands of at most `sectors_per_frame` sectors, up to
//! `window` of them outstanding (at most the target's Buffer Count, §3.2), matched to responses
//! by Tag (§2.7) and retransmitted, same tag, after a timeout that doubles per try.
//!
//! Drive it with [`Initiator::poll_transmit`] (frames to send now), [`Initiator::handle_frame`]
//! (a received frame), [`Initiator::next_deadline`] (when to call `poll_transmit` again) and
//! [`Initiator::poll_result`]. [`super::client::Client`] does that over a real link.

use super::ata::{self, cmd, status, AtaArg, SECTOR};
use super::header::{AoeError, Header, Mac, CMD_ATA};
use super::identify::IDENTIFY_LEN;
use std::time::{Duration, Instant};

/// How the initiator talks to one target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitiatorConfig {
    /// Our Ethernet address: the source of commands, the destination of responses.
    pub mac: Mac,
    pub target_mac: Mac,
    pub major: u16,
    pub minor: u8,
    /// Commands outstanding at once; at most the target's Buffer Count.
    pub window: usize,
    /// Sectors per command: at most the target's Sector Count and what our MTU carries.
    pub sectors_per_frame: usize,
    /// Use the LBA48 (EXT) commands; otherwise requests must stay below 2^28 sectors.
    pub lba48: bool,
    /// Set AFlags A on writes (the target may answer before the data is on its device).
    pub async_writes: bool,
    /// Time before the first retransmission; doubles for each further one.
    pub rto: Duration,
    /// Cap on the doubled timeout.
    pub max_rto: Duration,
    /// Retransmissions of one command before the request fails.
    pub retries: u32,
}

impl InitiatorConfig {
    pub fn new(mac: Mac, target_mac: Mac, major: u16, minor: u8) -> Self {
        InitiatorConfig {
            mac,
            target_mac,
            major,
            minor,
            window: 16,
            sectors_per_frame: 2,
            lba48: true,
            async_writes: false,
            rto: Duration::from_millis(100),
            max_rto: Duration::from_secs(1),
            retries: 8,
        }
    }
}

/// One request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Read {
        lba: u64,
        count: u64,
    },
    Write {
        lba: u64,
        data: Vec<u8>,
    },
    /// IDENTIFY DEVICE: 512 octets of [`super::identify`] data.
    Identify,
    /// FLUSH CACHE (0xE7: every target takes it; vblade aborts FLUSH CACHE EXT).
    Flush,
}

/// Why a request failed or could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InitiatorError {
    #[error("a request is already running")]
    Busy,
    #[error(
        "window and sectors per frame must be at least 1 (window {window}, sectors {sectors})"
    )]
    BadConfig { window: usize, sectors: usize },
    #[error("write of {len} octets is not a whole number of 512-octet sectors")]
    Unaligned { len: usize },
    #[error("sectors {lba}..{end} are beyond what {bits}-bit LBAs address")]
    LbaRange { lba: u64, end: u64, bits: u8 },
    #[error("no response for the command at LBA {lba} after {tries} transmissions")]
    Timeout { lba: u64, tries: u32 },
    #[error("target answered the command at LBA {lba} with {error}")]
    Aoe { lba: u64, error: AoeError },
    #[error("target answered the command at LBA {lba} with undefined AoE error {code}")]
    AoeUnknown { lba: u64, code: u8 },
    #[error("ATA command 0x{command:02x} at LBA {lba} failed: status 0x{status:02x}, error 0x{error:02x}")]
    Ata {
        command: u8,
        lba: u64,
        status: u8,
        error: u8,
    },
    #[error("response for LBA {lba} carries {got} data octets, {want} expected")]
    ShortData { lba: u64, got: usize, want: usize },
}

/// Counters over the initiator's life.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitiatorStats {
    pub commands: u64,
    pub retransmissions: u64,
    pub responses: u64,
    /// Frames that matched no outstanding command (late duplicates, other traffic).
    pub stray: u64,
}

#[derive(Debug, Clone, Copy)]
struct InFlight {
    tag: u32,
    chunk: usize,
    tries: u32,
    deadline: Instant,
}

#[derive(Debug)]
struct Op {
    command: u8,
    lba: u64,
    sectors: u64,
    write: bool,
    /// Read destination or write source.
    buf: Vec<u8>,
    chunks: usize,
    next_chunk: usize,
    done: usize,
    inflight: Vec<InFlight>,
}

/// The initiator state machine.
#[derive(Debug)]
pub struct Initiator {
    cfg: InitiatorConfig,
    next_tag: u32,
    op: Option<Op>,
    result: Option<Result<Vec<u8>, InitiatorError>>,
    stats: InitiatorStats,
}

impl Initiator {
    pub fn new(cfg: InitiatorConfig) -> Result<Self, InitiatorError> {
        if cfg.window == 0 || cfg.sectors_per_frame == 0 {
            return Err(InitiatorError::BadConfig {
                window: cfg.window,
                sectors: cfg.sectors_per_frame,
            });
        }
        Ok(Initiator {
            cfg,
            next_tag: 1,
            op: None,
            result: None,
            stats: InitiatorStats::default(),
        })
    }

    pub fn config(&self) -> &InitiatorConfig {
        &self.cfg
    }
    pub fn stats(&self) -> &InitiatorStats {
        &self.stats
    }
    pub fn is_busy(&self) -> bool {
        self.op.is_some()
    }

    /// Starts a request; results come from [`poll_result`](Self::poll_result).
    pub fn start(&mut self, req: Request) -> Result<(), InitiatorError> {
        if self.op.is_some() {
            return Err(InitiatorError::Busy);
        }
        self.result = None;
        let ext = self.cfg.lba48;
        let (command, lba, sectors, write, buf) = match req {
            Request::Read { lba, count } => {
                let c = if ext {
                    cmd::READ_SECTORS_EXT
                } else {
                    cmd::READ_SECTORS
                };
                let len = usize::try_from(count)
                    .ok()
                    .and_then(|c| c.checked_mul(SECTOR))
                    .ok_or(InitiatorError::LbaRange {
                        lba,
                        end: lba.saturating_add(count),
                        bits: 48,
                    })?;
                (c, lba, count, false, vec![0; len])
            }
            Request::Write { lba, data } => {
                if !data.len().is_multiple_of(SECTOR) {
                    return Err(InitiatorError::Unaligned { len: data.len() });
                }
                let c = if ext {
                    cmd::WRITE_SECTORS_EXT
                } else {
                    cmd::WRITE_SECTORS
                };
                (c, lba, (data.len() / SECTOR) as u64, true, data)
            }
            Request::Identify => (cmd::IDENTIFY_DEVICE, 0, 1, false, vec![0; IDENTIFY_LEN]),
            Request::Flush => (cmd::FLUSH_CACHE, 0, 0, false, Vec::new()),
        };
        let data_cmd = matches!(
            command,
            cmd::READ_SECTORS | cmd::READ_SECTORS_EXT | cmd::WRITE_SECTORS | cmd::WRITE_SECTORS_EXT
        );
        let limit = if ext {
            ata::LBA48_LIMIT
        } else {
            ata::LBA28_LIMIT
        };
        let end = lba.checked_add(sectors);
        if data_cmd && end.is_none_or(|e| e > limit) {
            return Err(InitiatorError::LbaRange {
                lba,
                end: end.unwrap_or(u64::MAX),
                bits: if ext { 48 } else { 28 },
            });
        }
        let spf = self.cfg.sectors_per_frame as u64;
        let chunks = if data_cmd {
            sectors.div_ceil(spf) as usize
        } else {
            1
        };
        if data_cmd && chunks == 0 {
            self.result = Some(Ok(Vec::new()));
            return Ok(());
        }
        self.op = Some(Op {
            command,
            lba,
            sectors,
            write,
            buf,
            chunks,
            next_chunk: 0,
            done: 0,
            inflight: Vec::with_capacity(self.cfg.window),
        });
        Ok(())
    }

    /// The outcome of the last request once it is over: read data (IDENTIFY data for
    /// Identify), or empty for writes and flushes.
    pub fn poll_result(&mut self) -> Option<Result<Vec<u8>, InitiatorError>> {
        self.result.take()
    }

    /// When the earliest outstanding command times out.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.op.as_ref()?.inflight.iter().map(|f| f.deadline).min()
    }

    fn timeout_for(&self, tries: u32) -> Duration {
        let factor = 1u32 << (tries.saturating_sub(1)).min(16);
        self.cfg.rto.saturating_mul(factor).min(self.cfg.max_rto)
    }

    fn alloc_tag(&mut self) -> u32 {
        // Bit 31 stays clear: the Linux driver leaves tags with it set to other tools.
        let t = self.next_tag;
        self.next_tag = if t >= 0x7FFF_FFFF { 1 } else { t + 1 };
        t
    }

    /// Chunk `i`: first LBA and sector count.
    fn chunk(&self, op: &Op, i: usize) -> (u64, u8) {
        let spf = self.cfg.sectors_per_frame as u64;
        if op.command == cmd::IDENTIFY_DEVICE {
            return (0, 1);
        }
        let first = op.lba + i as u64 * spf;
        let n = (op.lba + op.sectors - first).min(spf);
        (first, n as u8)
    }

    fn write_command(&self, op: &Op, i: usize, tag: u32, out: &mut Vec<u8>) {
        out.clear();
        let (lba, n) = self.chunk(op, i);
        let c = &self.cfg;
        Header::request(c.mac, c.target_mac, c.major, c.minor, CMD_ATA, tag).write(out);
        let mut a = AtaArg::command(op.command, lba, n, c.lba48, op.write);
        if op.write && c.async_writes {
            a.aflags |= ata::AFLAG_ASYNC;
        }
        if op.command == cmd::IDENTIFY_DEVICE || op.command == cmd::FLUSH_CACHE {
            // Non-data commands: no LBA; the Device register only.
            a.aflags &= !ata::AFLAG_EXT;
            a.lba = [0, 0, 0, 0xA0, 0, 0];
        }
        a.write(out);
        if op.write {
            let off = i * self.cfg.sectors_per_frame * SECTOR;
            out.extend_from_slice(&op.buf[off..off + n as usize * SECTOR]);
        }
    }

    fn fail(&mut self, e: InitiatorError) {
        self.op = None;
        self.result = Some(Err(e));
    }

    /// Puts the next frame to send in `out`: first a retransmission that is due, then a new
    /// command while the window has room. `false` when there is nothing to send now (also when
    /// a command ran out of retries: the request then fails).
    pub fn poll_transmit(&mut self, now: Instant, out: &mut Vec<u8>) -> bool {
        let Some(op) = self.op.take() else {
            return false;
        };
        let mut op = op;
        let due = op
            .inflight
            .iter()
            .enumerate()
            .filter(|(_, f)| f.deadline <= now)
            .min_by_key(|(_, f)| f.deadline)
            .map(|(k, _)| k);
        if let Some(k) = due {
            let f = op.inflight[k];
            if f.tries > self.cfg.retries {
                let lba = self.chunk(&op, f.chunk).0;
                self.fail(InitiatorError::Timeout {
                    lba,
                    tries: f.tries,
                });
                return false;
            }
            self.write_command(&op, f.chunk, f.tag, out);
            let tries = f.tries + 1;
            op.inflight[k].tries = tries;
            op.inflight[k].deadline = now + self.timeout_for(tries);
            self.stats.retransmissions += 1;
            self.op = Some(op);
            return true;
        }
        if op.inflight.len() < self.cfg.window && op.next_chunk < op.chunks {
            let i = op.next_chunk;
            op.next_chunk += 1;
            let tag = self.alloc_tag();
            self.write_command(&op, i, tag, out);
            op.inflight.push(InFlight {
                tag,
                chunk: i,
                tries: 1,
                deadline: now + self.timeout_for(1),
            });
            self.stats.commands += 1;
            self.op = Some(op);
            return true;
        }
        self.op = Some(op);
        false
    }

    /// Takes a received frame. Returns whether it answered an outstanding command; anything
    /// else (other targets, other initiators, late duplicates) is counted as stray and left.
    pub fn handle_frame(&mut self, frame: &[u8]) -> bool {
        let Ok((h, arg)) = Header::parse(frame) else {
            self.stats.stray += 1;
            return false;
        };
        let c = &self.cfg;
        let k = match &self.op {
            Some(op)
                if h.is_response()
                    && h.command == CMD_ATA
                    && h.dst == c.mac
                    && h.src == c.target_mac
                    && h.major == c.major
                    && h.minor == c.minor =>
            {
                op.inflight.iter().position(|f| f.tag == h.tag)
            }
            _ => None,
        };
        let Some(k) = k else {
            self.stats.stray += 1;
            return false;
        };
        self.stats.responses += 1;
        let mut op = self.op.take().unwrap();
        let f = op.inflight.swap_remove(k);
        let (lba, n) = self.chunk(&op, f.chunk);
        match h.aoe_error() {
            Ok(None) => {}
            Ok(Some(error)) => {
                self.fail(InitiatorError::Aoe { lba, error });
                return true;
            }
            Err(code) => {
                self.fail(InitiatorError::AoeUnknown { lba, code });
                return true;
            }
        }
        let Ok((a, data)) = AtaArg::parse(arg) else {
            self.fail(InitiatorError::ShortData {
                lba,
                got: arg.len(),
                want: ata::ARG_LEN,
            });
            return true;
        };
        // An asynchronous write is answered with the Arg unchanged (§3.1): Cmd/Status then
        // still holds the command, not a status.
        let async_echo = op.write && self.cfg.async_writes && a.cmd_status == op.command;
        if !async_echo && a.cmd_status & status::FAILED != 0 {
            self.fail(InitiatorError::Ata {
                command: op.command,
                lba,
                status: a.cmd_status,
                error: a.err_feature,
            });
            return true;
        }
        if !op.write && !op.buf.is_empty() {
            let want = n as usize * SECTOR;
            if data.len() < want {
                self.fail(InitiatorError::ShortData {
                    lba,
                    got: data.len(),
                    want,
                });
                return true;
            }
            let off = f.chunk * self.cfg.sectors_per_frame * SECTOR;
            op.buf[off..off + want].copy_from_slice(&data[..want]);
        }
        op.done += 1;
        if op.done == op.chunks {
            self.result = Some(Ok(if op.write { Vec::new() } else { op.buf }));
        } else {
            self.op = Some(op);
        }
        true
    }
}

#[cfg(test)]
#[path = "initiator_tests.rs"]
mod tests;
