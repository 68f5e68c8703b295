//! Reassembling MCTP packets into messages (DSP0236 §8.8, §8.9 "Dropped packets"), sans-IO.
//!
//! A reassembly context is keyed by (source EID, destination EID, tag, TO), as the Linux
//! kernel keys its `mctp_sk_key`s. The drop rules follow the kernel's `mctp_route_input` /
//! `mctp_frag_queue` and DSP0236 §8.9:
//! - a middle or end packet with no context is dropped ([`DropReason::NoContext`]);
//! - a packet whose sequence number is not the last one + 1 (mod 4) is dropped together with
//!   its context ([`DropReason::BadSequence`]) — duplicates and reorders land here;
//! - a SOM on a key that has a context restarts it; the old partial message is dropped and
//!   counted ([`ReassemblyStats::restarted`]);
//! - a message growing past `max_message_len` is dropped ([`DropReason::TooLong`]);
//! - a context older than `timeout` (measured from its SOM, as the kernel's key lifetime) is
//!   dropped ([`ReassemblyStats::timed_out`]);
//! - a SOM that needs a new context while `max_contexts` are open is dropped
//!   ([`DropReason::ContextsFull`]);
//! - optionally (DSP0236 "incorrect transmission unit"; NVMe-MI §3.2.1.1): a non-final packet
//!   below the baseline unit, a middle packet of another size than the first, or an end packet
//!   larger than the first ([`DropReason::BadUnitSize`]).
//!
//! Time is passed in by the caller (`now`, any monotonic origin): there is no clock inside, so
//! the hardware depacketizer and this model see the same inputs. Memory is bounded by
//! `max_contexts × max_message_len` whatever the input.

use super::header::{Header, HeaderError, SEQ_MODULUS};
use super::packetizer::{BASELINE_MTU, MAX_MESSAGE_LEN};
use super::MctpError;
use std::collections::HashMap;
use std::time::Duration;

/// The kernel's reassembly key lifetime (`mctp_key_lifetime`, 6 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(6);
/// Concurrent reassemblies by default: a project choice (the kernel bounds keys only by
/// memory); 4 peers × 8 tags.
pub const DEFAULT_MAX_CONTEXTS: usize = 32;

/// Limits of a [`Reassembler`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReassemblyConfig {
    /// Largest message delivered, in octets (kernel: 64 KiB; NVMe-MI: 4224).
    pub max_message_len: usize,
    /// Most reassemblies open at once.
    pub max_contexts: usize,
    /// How long a reassembly may take from its SOM packet.
    pub timeout: Duration,
    /// Apply the transmission-unit rules (see the module docs).
    pub strict_unit_size: bool,
}

impl Default for ReassemblyConfig {
    fn default() -> Self {
        ReassemblyConfig {
            max_message_len: MAX_MESSAGE_LEN,
            max_contexts: DEFAULT_MAX_CONTEXTS,
            timeout: DEFAULT_TIMEOUT,
            strict_unit_size: true,
        }
    }
}

impl ReassemblyConfig {
    /// Limits for out-of-band NVMe-MI: messages (MIC included) of at most 4224 octets.
    pub fn nvme_mi() -> Self {
        ReassemblyConfig {
            max_message_len: crate::nvme_mi::OOB_MAX_MESSAGE_LEN,
            ..Self::default()
        }
    }
}

/// The reassembly key: which conversation a packet belongs to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ContextKey {
    pub src: u8,
    pub dst: u8,
    pub tag: u8,
    pub tag_owner: bool,
}

impl ContextKey {
    pub fn of(h: &Header) -> ContextKey {
        ContextKey {
            src: h.src,
            dst: h.dst,
            tag: h.tag,
            tag_owner: h.tag_owner,
        }
    }
}

/// A reassembled message with the header fields it arrived with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub src: u8,
    pub dst: u8,
    pub tag: u8,
    pub tag_owner: bool,
    /// The message, first octet IC·type, integrity check (if any) included.
    pub bytes: Vec<u8>,
}

impl Message {
    /// Message type (first octet, bits 6:0).
    pub fn message_type(&self) -> u8 {
        self.bytes[0] & 0x7F
    }

    /// IC bit (first octet, bit 7): a message integrity check ends the message.
    pub fn integrity_check(&self) -> bool {
        self.bytes[0] & 0x80 != 0
    }

    pub fn key(&self) -> ContextKey {
        ContextKey {
            src: self.src,
            dst: self.dst,
            tag: self.tag,
            tag_owner: self.tag_owner,
        }
    }
}

/// Why one packet was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DropReason {
    #[error("malformed packet: {0}")]
    Malformed(HeaderError),
    #[error("middle or end packet (seq {seq}) without a start of message")]
    NoContext { seq: u8 },
    #[error("packet sequence {found} where {expected} was expected; partial message dropped")]
    BadSequence { expected: u8, found: u8 },
    #[error("transmission unit of {found} payload octets where {expected} was expected; partial message dropped")]
    BadUnitSize { expected: usize, found: usize },
    #[error("message of at least {len} octets exceeds the {max}-octet limit; dropped")]
    TooLong { len: usize, max: usize },
    #[error("all {max} reassembly contexts busy; start of message dropped")]
    ContextsFull { max: usize },
}

/// Counts of everything the reassembler delivered or dropped, one counter per reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReassemblyStats {
    pub delivered: u64,
    /// Packets that are not MCTP packets (short, bad version, empty payload).
    pub malformed: u64,
    /// Middle or end packets with no reassembly in progress.
    pub no_context: u64,
    /// Out-of-sequence packets (each also dropped its context).
    pub bad_sequence: u64,
    /// Packets breaking the transmission-unit rules (a non-SOM one also dropped its context).
    pub bad_unit_size: u64,
    /// Partial messages dropped because a new SOM arrived on their key.
    pub restarted: u64,
    /// Messages dropped for exceeding `max_message_len`.
    pub too_long: u64,
    /// Partial messages dropped for exceeding `timeout`.
    pub timed_out: u64,
    /// SOM packets dropped because `max_contexts` reassemblies were open.
    pub contexts_full: u64,
}

impl ReassemblyStats {
    /// Drop events of every kind.
    pub fn dropped(&self) -> u64 {
        self.malformed
            + self.no_context
            + self.bad_sequence
            + self.bad_unit_size
            + self.restarted
            + self.too_long
            + self.timed_out
            + self.contexts_full
    }
}

/// What became of one packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The packet completed a message.
    Delivered(Message),
    /// The packet was taken into a reassembly still in progress.
    InProgress,
    Dropped(DropReason),
}

#[derive(Debug)]
struct Context {
    deadline: Duration,
    last_seq: u8,
    /// Payload octets of the SOM packet: the unit every middle packet must match.
    unit: usize,
    buf: Vec<u8>,
}

/// The receive half of the packet layer: packets in, messages out.
#[derive(Debug)]
pub struct Reassembler {
    config: ReassemblyConfig,
    contexts: HashMap<ContextKey, Context>,
    /// No context expires before this (may be stale-early after removals; then a sweep finds
    /// nothing and recomputes it).
    next_deadline: Option<Duration>,
    stats: ReassemblyStats,
}

impl Reassembler {
    pub fn new(config: ReassemblyConfig) -> Result<Reassembler, MctpError> {
        if config.max_contexts == 0 {
            return Err(MctpError::InvalidReassemblyConfig {
                reason: "max_contexts must be at least 1",
            });
        }
        if config.max_message_len == 0 {
            return Err(MctpError::InvalidReassemblyConfig {
                reason: "max_message_len must be at least 1",
            });
        }
        Ok(Reassembler {
            config,
            contexts: HashMap::with_capacity(config.max_contexts.min(256)),
            next_deadline: None,
            stats: ReassemblyStats::default(),
        })
    }

    pub fn config(&self) -> &ReassemblyConfig {
        &self.config
    }

    pub fn stats(&self) -> &ReassemblyStats {
        &self.stats
    }

    /// Reassemblies in progress.
    pub fn active_contexts(&self) -> usize {
        self.contexts.len()
    }

    /// Keys of the reassemblies in progress, sorted.
    pub fn active_keys(&self) -> Vec<ContextKey> {
        let mut k: Vec<ContextKey> = self.contexts.keys().copied().collect();
        k.sort();
        k
    }

    /// Octets held in partial messages (allocated capacity, the number memory bounds are about).
    pub fn buffered_octets(&self) -> usize {
        self.contexts.values().map(|c| c.buf.capacity()).sum()
    }

    /// Drops every context whose deadline is at or before `now`; returns how many.
    pub fn expire(&mut self, now: Duration) -> usize {
        let before = self.contexts.len();
        self.contexts.retain(|_, c| c.deadline > now);
        let n = before - self.contexts.len();
        self.stats.timed_out += n as u64;
        self.next_deadline = self.contexts.values().map(|c| c.deadline).min();
        n
    }

    /// Takes one packet (transport header + payload) received at time `now`.
    pub fn push(&mut self, packet: &[u8], now: Duration) -> Outcome {
        if self.next_deadline.is_some_and(|d| now >= d) {
            self.expire(now);
        }
        match self.accept(packet, now) {
            Ok(Some(m)) => {
                self.stats.delivered += 1;
                Outcome::Delivered(m)
            }
            Ok(None) => Outcome::InProgress,
            Err(reason) => {
                let s = &mut self.stats;
                match reason {
                    DropReason::Malformed(_) => s.malformed += 1,
                    DropReason::NoContext { .. } => s.no_context += 1,
                    DropReason::BadSequence { .. } => s.bad_sequence += 1,
                    DropReason::BadUnitSize { .. } => s.bad_unit_size += 1,
                    DropReason::TooLong { .. } => s.too_long += 1,
                    DropReason::ContextsFull { .. } => s.contexts_full += 1,
                }
                Outcome::Dropped(reason)
            }
        }
    }

    fn accept(&mut self, packet: &[u8], now: Duration) -> Result<Option<Message>, DropReason> {
        let (h, payload) = Header::split(packet).map_err(DropReason::Malformed)?;
        let key = ContextKey::of(&h);
        let max = self.config.max_message_len;
        let strict = self.config.strict_unit_size;
        let deliver = |bytes: Vec<u8>| Message {
            src: h.src,
            dst: h.dst,
            tag: h.tag,
            tag_owner: h.tag_owner,
            bytes,
        };

        if h.som {
            if self.contexts.remove(&key).is_some() {
                self.stats.restarted += 1;
            }
            if strict && !h.eom && payload.len() < BASELINE_MTU {
                return Err(DropReason::BadUnitSize {
                    expected: BASELINE_MTU,
                    found: payload.len(),
                });
            }
            if payload.len() > max {
                return Err(DropReason::TooLong {
                    len: payload.len(),
                    max,
                });
            }
            if h.eom {
                return Ok(Some(deliver(payload.to_vec())));
            }
            if self.contexts.len() >= self.config.max_contexts {
                self.expire(now);
                if self.contexts.len() >= self.config.max_contexts {
                    return Err(DropReason::ContextsFull {
                        max: self.config.max_contexts,
                    });
                }
            }
            let deadline = now
                .checked_add(self.config.timeout)
                .unwrap_or(Duration::MAX);
            self.next_deadline = Some(self.next_deadline.map_or(deadline, |d| d.min(deadline)));
            self.contexts.insert(
                key,
                Context {
                    deadline,
                    last_seq: h.seq,
                    unit: payload.len(),
                    buf: payload.to_vec(),
                },
            );
            return Ok(None);
        }

        let Some(ctx) = self.contexts.get_mut(&key) else {
            return Err(DropReason::NoContext { seq: h.seq });
        };
        let expected = (ctx.last_seq + 1) % SEQ_MODULUS;
        let verdict = if h.seq != expected {
            Err(DropReason::BadSequence {
                expected,
                found: h.seq,
            })
        } else if strict
            && ((!h.eom && payload.len() != ctx.unit) || (h.eom && payload.len() > ctx.unit))
        {
            Err(DropReason::BadUnitSize {
                expected: ctx.unit,
                found: payload.len(),
            })
        } else if ctx.buf.len() + payload.len() > max {
            Err(DropReason::TooLong {
                len: ctx.buf.len() + payload.len(),
                max,
            })
        } else {
            Ok(())
        };
        if let Err(reason) = verdict {
            self.contexts.remove(&key);
            return Err(reason);
        }
        let needed = ctx.buf.len() + payload.len();
        if ctx.buf.capacity() < needed {
            // Grow geometrically but never past the message limit, so the bound is exact.
            let target = (ctx.buf.capacity() * 2).clamp(needed, max);
            ctx.buf.reserve_exact(target - ctx.buf.len());
        }
        ctx.buf.extend_from_slice(payload);
        ctx.last_seq = h.seq;
        if h.eom {
            let ctx = self.contexts.remove(&key).expect("context looked up above");
            return Ok(Some(deliver(ctx.buf)));
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mctp::header::HEADER_LEN;
    use crate::mctp::packetizer::{packetize, TxConfig, MAX_MTU, MIN_MTU};
    use proptest::prelude::*;

    // ---- Table-driven packet sequences, in the style of net/mctp/test/route-test.c ----

    /// One packet of a table: flags, sequence, tag, payload length. The payload is filled
    /// with the packet's index in the table, so a delivered message names the packets it was
    /// built from.
    #[derive(Clone, Copy)]
    struct P {
        som: bool,
        eom: bool,
        seq: u8,
        tag: u8,
        len: usize,
    }
    const U: usize = 64;
    const fn s(seq: u8) -> P {
        P {
            som: true,
            eom: false,
            seq,
            tag: 0,
            len: U,
        }
    }
    const fn m(seq: u8) -> P {
        P {
            som: false,
            eom: false,
            seq,
            tag: 0,
            len: U,
        }
    }
    const fn e(seq: u8) -> P {
        P {
            som: false,
            eom: true,
            seq,
            tag: 0,
            len: 10,
        }
    }
    const fn se(seq: u8) -> P {
        P {
            som: true,
            eom: true,
            seq,
            tag: 0,
            len: 10,
        }
    }
    const fn t(p: P, tag: u8) -> P {
        P { tag, ..p }
    }
    const fn l(p: P, len: usize) -> P {
        P { len, ..p }
    }

    fn encode(i: usize, p: P) -> Vec<u8> {
        let h = Header {
            dst: 0x09,
            src: 0x08,
            som: p.som,
            eom: p.eom,
            seq: p.seq,
            tag_owner: true,
            tag: p.tag,
        };
        let mut v = h.encode().unwrap().to_vec();
        v.extend(vec![i as u8; p.len]);
        v
    }

    struct Case {
        name: &'static str,
        packets: &'static [P],
        /// Each delivered message as the table indices of its packets.
        deliver: &'static [&'static [usize]],
        stats: ReassemblyStats,
        /// Contexts still open at the end.
        open: usize,
    }

    const Z: ReassemblyStats = ReassemblyStats {
        delivered: 0,
        malformed: 0,
        no_context: 0,
        bad_sequence: 0,
        bad_unit_size: 0,
        restarted: 0,
        too_long: 0,
        timed_out: 0,
        contexts_full: 0,
    };

    const CASES: &[Case] = &[
        Case {
            name: "single packet",
            packets: &[se(0)],
            deliver: &[&[0]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
        Case {
            name: "single packet, offset seq",
            packets: &[se(1)],
            deliver: &[&[0]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
        Case {
            name: "start & end",
            packets: &[s(0), e(1)],
            deliver: &[&[0, 1]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
        Case {
            name: "start & end, seq wrap",
            packets: &[s(3), e(0)],
            deliver: &[&[0, 1]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
        Case {
            name: "start, mid, end",
            packets: &[s(0), m(1), e(2)],
            deliver: &[&[0, 1, 2]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
        Case {
            name: "six packets, seq wraps",
            packets: &[s(2), m(3), m(0), m(1), m(2), e(3)],
            deliver: &[&[0, 1, 2, 3, 4, 5]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
        Case {
            name: "missing start",
            packets: &[m(1), e(2)],
            deliver: &[],
            stats: ReassemblyStats { no_context: 2, ..Z },
            open: 0,
        },
        Case {
            name: "end only",
            packets: &[e(0)],
            deliver: &[],
            stats: ReassemblyStats { no_context: 1, ..Z },
            open: 0,
        },
        Case {
            name: "bad sequence drops the context",
            packets: &[s(0), e(2)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_sequence: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "missing middle",
            packets: &[s(0), m(1), e(3)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_sequence: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "duplicate middle",
            packets: &[s(0), m(1), m(1), e(2)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_sequence: 1,
                no_context: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "reordered middles",
            packets: &[s(0), m(2), m(1), e(3)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_sequence: 1,
                no_context: 2,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "duplicate start restarts",
            packets: &[s(0), s(0), e(1)],
            deliver: &[&[1, 2]],
            stats: ReassemblyStats {
                delivered: 1,
                restarted: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "new start mid-message restarts",
            packets: &[s(0), m(1), s(3), e(0)],
            deliver: &[&[2, 3]],
            stats: ReassemblyStats {
                delivered: 1,
                restarted: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "single packet on an open context restarts",
            packets: &[s(0), se(1), e(1)],
            deliver: &[&[1]],
            stats: ReassemblyStats {
                delivered: 1,
                restarted: 1,
                no_context: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "duplicate end after delivery",
            packets: &[s(0), e(1), e(1)],
            deliver: &[&[0, 1]],
            stats: ReassemblyStats {
                delivered: 1,
                no_context: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "different tags reassemble apart",
            packets: &[s(0), t(s(2), 5), e(1), t(m(3), 5), t(e(0), 5)],
            deliver: &[&[0, 2], &[1, 3, 4]],
            stats: ReassemblyStats { delivered: 2, ..Z },
            open: 0,
        },
        Case {
            name: "end with another tag has no context",
            packets: &[s(0), t(e(1), 1)],
            deliver: &[],
            stats: ReassemblyStats { no_context: 1, ..Z },
            open: 1,
        },
        Case {
            name: "start without end stays open",
            packets: &[s(0), m(1)],
            deliver: &[],
            stats: Z,
            open: 1,
        },
        Case {
            name: "short first unit",
            packets: &[l(s(0), 63), e(1)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_unit_size: 1,
                no_context: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "middle unit differs from the first",
            packets: &[l(s(0), 80), m(1), e(2)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_unit_size: 1,
                no_context: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "end larger than the first",
            packets: &[s(0), l(e(1), 65)],
            deliver: &[],
            stats: ReassemblyStats {
                bad_unit_size: 1,
                ..Z
            },
            open: 0,
        },
        Case {
            name: "end exactly one unit",
            packets: &[s(0), l(e(1), 64)],
            deliver: &[&[0, 1]],
            stats: ReassemblyStats { delivered: 1, ..Z },
            open: 0,
        },
    ];

    #[test]
    fn packet_sequence_table() {
        for case in CASES {
            let mut r = Reassembler::new(ReassemblyConfig::default()).unwrap();
            let mut got = Vec::new();
            for (i, p) in case.packets.iter().enumerate() {
                if let Outcome::Delivered(msg) = r.push(&encode(i, *p), Duration::ZERO) {
                    got.push(msg);
                }
            }
            let want: Vec<Vec<u8>> = case
                .deliver
                .iter()
                .map(|idx| {
                    idx.iter()
                        .flat_map(|&i| vec![i as u8; case.packets[i].len])
                        .collect()
                })
                .collect();
            let got_bytes: Vec<Vec<u8>> = got.iter().map(|m| m.bytes.clone()).collect();
            assert_eq!(got_bytes, want, "{}", case.name);
            assert_eq!(*r.stats(), case.stats, "{}", case.name);
            assert_eq!(r.active_contexts(), case.open, "{}", case.name);
            for m in &got {
                assert_eq!(
                    (m.src, m.dst, m.tag_owner),
                    (0x08, 0x09, true),
                    "{}",
                    case.name
                );
            }
        }
    }

    #[test]
    fn tags_are_reported() {
        let mut r = Reassembler::new(ReassemblyConfig::default()).unwrap();
        let Outcome::Delivered(m) = r.push(&encode(0, t(se(0), 6)), Duration::ZERO) else {
            panic!("not delivered")
        };
        assert_eq!(
            (m.tag, m.key()),
            (
                6,
                ContextKey {
                    src: 8,
                    dst: 9,
                    tag: 6,
                    tag_owner: true
                }
            )
        );
        // TO is part of the key: the same tag without TO is another conversation.
        let mut p = encode(0, s(0));
        let mut q = encode(1, e(1));
        q[3] &= !0x08;
        assert_eq!(r.push(&p, Duration::ZERO), Outcome::InProgress);
        assert_eq!(
            r.push(&q, Duration::ZERO),
            Outcome::Dropped(DropReason::NoContext { seq: 1 })
        );
        p[3] &= !0x08;
        assert_eq!(r.push(&p, Duration::ZERO), Outcome::InProgress);
        assert_eq!(r.active_contexts(), 2);
    }

    #[test]
    fn malformed_packets() {
        let mut r = Reassembler::new(ReassemblyConfig::default()).unwrap();
        for (pkt, err) in [
            (&[0x01u8, 9, 8][..], HeaderError::Short { len: 3 }),
            (&[0x01, 9, 8, 0xC8][..], HeaderError::EmptyPayload),
            (
                &[0x02, 9, 8, 0xC8, 0][..],
                HeaderError::BadVersion { version: 2 },
            ),
        ] {
            assert_eq!(
                r.push(pkt, Duration::ZERO),
                Outcome::Dropped(DropReason::Malformed(err))
            );
        }
        assert_eq!(r.stats().malformed, 3);
    }

    #[test]
    fn timeout_from_start_of_message() {
        let cfg = ReassemblyConfig {
            timeout: Duration::from_millis(100),
            ..Default::default()
        };
        let mut r = Reassembler::new(cfg).unwrap();
        let ms = Duration::from_millis;
        assert_eq!(r.push(&encode(0, s(0)), ms(0)), Outcome::InProgress);
        assert_eq!(r.push(&encode(1, m(1)), ms(99)), Outcome::InProgress);
        // At the deadline the context is gone, even though a packet came 1 ms ago.
        assert_eq!(
            r.push(&encode(2, e(2)), ms(100)),
            Outcome::Dropped(DropReason::NoContext { seq: 2 })
        );
        assert_eq!(r.stats().timed_out, 1);
        // Within the timeout it completes.
        assert_eq!(r.push(&encode(0, s(0)), ms(1000)), Outcome::InProgress);
        assert!(matches!(
            r.push(&encode(1, e(1)), ms(1099)),
            Outcome::Delivered(_)
        ));
        // expire() on its own sweeps idle contexts.
        r.push(&encode(0, s(0)), ms(2000));
        r.push(&encode(0, t(s(0), 1)), ms(2050));
        assert_eq!(r.expire(ms(2100)), 1);
        assert_eq!(r.expire(ms(2150)), 1);
        assert_eq!((r.active_contexts(), r.stats().timed_out), (0, 3));
        // Time at the end of time saturates (no overflow panic); time going backwards
        // expires nothing.
        r.push(&encode(0, s(0)), Duration::MAX);
        assert!(matches!(
            r.push(&encode(1, e(1)), ms(0)),
            Outcome::Delivered(_)
        ));
        r.push(&encode(0, s(0)), Duration::MAX);
        assert_eq!(
            r.push(&encode(1, e(1)), Duration::MAX),
            Outcome::Dropped(DropReason::NoContext { seq: 1 })
        );
    }

    #[test]
    fn context_limit() {
        let cfg = ReassemblyConfig {
            max_contexts: 2,
            timeout: Duration::from_secs(1),
            ..Default::default()
        };
        let mut r = Reassembler::new(cfg).unwrap();
        let z = Duration::ZERO;
        assert_eq!(r.push(&encode(0, t(s(0), 0)), z), Outcome::InProgress);
        assert_eq!(r.push(&encode(1, t(s(0), 1)), z), Outcome::InProgress);
        assert_eq!(
            r.push(&encode(2, t(s(0), 2)), z),
            Outcome::Dropped(DropReason::ContextsFull { max: 2 })
        );
        // Single-packet messages need no context.
        assert!(matches!(
            r.push(&encode(3, t(se(0), 2)), z),
            Outcome::Delivered(_)
        ));
        // A restart on an open key reuses its slot.
        assert_eq!(r.push(&encode(4, t(s(1), 1)), z), Outcome::InProgress);
        // Once the old ones time out, a new SOM finds room.
        assert_eq!(
            r.push(&encode(5, t(s(0), 2)), Duration::from_secs(1)),
            Outcome::InProgress
        );
        let st = r.stats();
        assert_eq!(
            (
                st.contexts_full,
                st.restarted,
                st.timed_out,
                r.active_contexts()
            ),
            (1, 1, 2, 1)
        );
    }

    #[test]
    fn message_length_limit() {
        let cfg = ReassemblyConfig {
            max_message_len: 130,
            ..Default::default()
        };
        let mut r = Reassembler::new(cfg).unwrap();
        let z = Duration::ZERO;
        r.push(&encode(0, s(0)), z);
        r.push(&encode(1, m(1)), z);
        assert_eq!(
            r.push(&encode(2, e(2)), z),
            Outcome::Dropped(DropReason::TooLong { len: 138, max: 130 })
        );
        assert_eq!(r.active_contexts(), 0);
        // Exactly at the limit is fine.
        r.push(&encode(0, s(0)), z);
        r.push(&encode(1, m(1)), z);
        let Outcome::Delivered(msg) = r.push(&encode(2, l(e(2), 2)), z) else {
            panic!("not delivered")
        };
        assert_eq!(msg.bytes.len(), 130);
        // A single packet over the limit.
        let cfg = ReassemblyConfig {
            max_message_len: 9,
            ..Default::default()
        };
        let mut r = Reassembler::new(cfg).unwrap();
        assert_eq!(
            r.push(&encode(0, se(0)), z),
            Outcome::Dropped(DropReason::TooLong { len: 10, max: 9 })
        );
        assert_eq!(r.stats().too_long, 1);
    }

    #[test]
    fn lenient_unit_size() {
        let cfg = ReassemblyConfig {
            strict_unit_size: false,
            ..Default::default()
        };
        let mut r = Reassembler::new(cfg).unwrap();
        let z = Duration::ZERO;
        r.push(&encode(0, l(s(0), 5)), z);
        r.push(&encode(1, l(m(1), 7)), z);
        let Outcome::Delivered(msg) = r.push(&encode(2, l(e(2), 100)), z) else {
            panic!("not delivered")
        };
        assert_eq!(msg.bytes.len(), 112);
    }

    #[test]
    fn config_validation() {
        let bad = ReassemblyConfig {
            max_contexts: 0,
            ..Default::default()
        };
        assert!(matches!(
            Reassembler::new(bad),
            Err(MctpError::InvalidReassemblyConfig { .. })
        ));
        let bad = ReassemblyConfig {
            max_message_len: 0,
            ..Default::default()
        };
        assert!(matches!(
            Reassembler::new(bad),
            Err(MctpError::InvalidReassemblyConfig { .. })
        ));
        assert_eq!(ReassemblyConfig::nvme_mi().max_message_len, 4224);
    }

    /// The buffer of a partial message never holds more than the message limit, even while
    /// growing geometrically.
    #[test]
    fn buffer_capacity_bounded_by_limit() {
        let cfg = ReassemblyConfig {
            max_message_len: 1000,
            ..Default::default()
        };
        let mut r = Reassembler::new(cfg).unwrap();
        r.push(&encode(0, s(0)), Duration::ZERO);
        for i in 1..17 {
            r.push(&encode(i, m((i % 4) as u8)), Duration::ZERO);
            assert!(
                r.buffered_octets() <= 1000,
                "{} after {i}",
                r.buffered_octets()
            );
        }
        assert_eq!(r.stats().too_long, 1);
    }

    fn config_strategy() -> impl Strategy<Value = TxConfig> {
        (
            0u8..8,
            any::<bool>(),
            MIN_MTU..=MAX_MTU,
            0u8..4,
            8u8..=0xFE,
            8u8..=0xFF,
        )
            .prop_map(|(tag, to, mtu, seq, src, dst)| TxConfig {
                src,
                dst,
                tag,
                tag_owner: to,
                mtu,
                start_seq: seq,
            })
    }

    proptest! {
        #[test]
        fn packetize_then_reassemble(c in config_strategy(), msg in proptest::collection::vec(any::<u8>(), 1..3000)) {
            let mut r = Reassembler::new(ReassemblyConfig::default()).unwrap();
            let pkts = packetize(&c, &msg).unwrap();
            let n = pkts.len();
            for (i, p) in pkts.iter().enumerate() {
                let out = r.push(p, Duration::from_millis(i as u64));
                if i + 1 < n {
                    prop_assert_eq!(out, Outcome::InProgress);
                } else {
                    let want = Message { src: c.src, dst: c.dst, tag: c.tag, tag_owner: c.tag_owner, bytes: msg.clone() };
                    prop_assert_eq!(out, Outcome::Delivered(want));
                }
            }
            prop_assert_eq!(r.stats().dropped(), 0);
            prop_assert_eq!(r.active_contexts(), 0);
        }

        /// Messages on distinct keys, interleaved arbitrarily (each one's packets in order),
        /// all come out whole.
        #[test]
        fn interleaved_messages(
            lens in proptest::collection::vec(1usize..700, 1..8),
            mtu in MIN_MTU..=MAX_MTU,
            picks in proptest::collection::vec(any::<proptest::sample::Index>(), 0..400),
        ) {
            let msgs: Vec<(TxConfig, Vec<u8>)> = lens.iter().enumerate().map(|(k, &len)| {
                let c = TxConfig { src: 0x10 + k as u8, dst: 0x20, tag: k as u8 % 8, tag_owner: k % 2 == 0, mtu, start_seq: (k % 4) as u8 };
                (c, (0..len).map(|i| (i + k * 7) as u8).collect())
            }).collect();
            let mut queues: Vec<std::collections::VecDeque<Vec<u8>>> =
                msgs.iter().map(|(c, m)| packetize(c, m).unwrap().into()).collect();
            let mut r = Reassembler::new(ReassemblyConfig::default()).unwrap();
            let mut delivered = Vec::new();
            let mut picks = picks.into_iter();
            while queues.iter().any(|q| !q.is_empty()) {
                let live: Vec<usize> = (0..queues.len()).filter(|&i| !queues[i].is_empty()).collect();
                let i = picks.next().map_or(live[0], |ix| live[ix.index(live.len())]);
                let p = queues[i].pop_front().unwrap();
                if let Outcome::Delivered(m) = r.push(&p, Duration::ZERO) { delivered.push(m); }
            }
            prop_assert_eq!(delivered.len(), msgs.len());
            for m in delivered {
                let (c, bytes) = &msgs[(m.src - 0x10) as usize];
                prop_assert_eq!((m.dst, m.tag, m.tag_owner), (c.dst, c.tag, c.tag_owner));
                prop_assert_eq!(&m.bytes, bytes);
            }
            prop_assert_eq!(r.stats().dropped(), 0);
        }

        /// Arbitrary bytes never panic and never leave more than the bounds allow.
        #[test]
        fn garbage_is_bounded(pkts in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..300), 0..200)) {
            let cfg = ReassemblyConfig { max_contexts: 4, max_message_len: 512, strict_unit_size: false, ..Default::default() };
            let mut r = Reassembler::new(cfg).unwrap();
            for (i, mut p) in pkts.into_iter().enumerate() {
                if p.len() >= HEADER_LEN { p[0] = 0x01; }
                if let Outcome::Delivered(m) = r.push(&p, Duration::from_millis(i as u64)) {
                    prop_assert!(!m.bytes.is_empty() && m.bytes.len() <= 512);
                }
                prop_assert!(r.active_contexts() <= 4);
                prop_assert!(r.buffered_octets() <= 4 * 512);
            }
        }
    }
}
