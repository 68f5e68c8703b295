//! MCTP (DMTF DSP0236) packets and the SMBus (DSP0237) and serial (DSP0253) bindings: the
//! software reference the hardware packetizer and depacketizer are checked against.
//!
//! - [`header`]: the 4-octet transport header;
//! - [`packetizer`]: message → packets ([`TxConfig`], [`packetize`]);
//! - [`reassembly`]: packets → messages with the DSP0236 / Linux drop rules ([`Reassembler`]);
//! - [`smbus`], [`serial`]: the binding frames around one packet;
//! - [`rx_block`]: receiving through the hardware depacketizer, checked against [`receive`];
//! - [`stack`]: the endpoint stack (sockets, routing, links, control protocol, NVMe-MI).
//!
//! [`transmit`] and [`receive`] chain them for the [`Offload`](crate::Offload) seam and the
//! CLI.

pub mod header;
pub mod packetizer;
pub mod reassembly;
pub mod rx_block;
pub mod serial;
pub mod smbus;
pub mod stack;

pub use header::{Header, HeaderError, HEADER_LEN};
pub use packetizer::{
    packetize, Packets, TxConfig, BASELINE_MTU, MAX_MESSAGE_LEN, MAX_MTU, MIN_MTU, SMBUS_MAX_MTU,
};
pub use reassembly::{
    ContextKey, DropReason, Message, Outcome, Reassembler, ReassemblyConfig, ReassemblyStats,
};
pub use serial::{SerialDecoder, SerialError, SerialStats};
pub use smbus::{SmbusAddresses, SmbusError};

use crate::nvme_mi::{self, NvmeMiError};
use std::time::Duration;

/// Everything that can be wrong with MCTP input or a transmit request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MctpError {
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error(transparent)]
    Smbus(#[from] SmbusError),
    #[error(transparent)]
    Serial(#[from] SerialError),
    #[error(transparent)]
    NvmeMi(#[from] NvmeMiError),
    #[error("MTU of {mtu} payload octets outside {min}..={max}")]
    MtuOutOfRange { mtu: usize, min: usize, max: usize },
    #[error("MTU of {mtu} payload octets does not fit the SMBus binding (at most {max})")]
    SmbusMtu { mtu: usize, max: usize },
    #[error("{field} EID {eid} is reserved or not allowed there (DSP0236 §8.2)")]
    InvalidEid { field: &'static str, eid: u8 },
    #[error("empty message: an MCTP message has at least its message-type octet")]
    EmptyMessage,
    #[error("message of {len} octets exceeds {max}")]
    MessageTooLong { len: usize, max: usize },
    #[error("a MIC was requested but the IC bit of octet 0 (0x{first:02x}) is clear")]
    IcBitClear { first: u8 },
    #[error("invalid reassembly config: {reason}")]
    InvalidReassemblyConfig { reason: &'static str },
}

/// A complete transmit request: how to packetize, whether to protect the message with the
/// NVMe-MI MIC first, and whether to wrap each packet for SMBus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxRequest {
    pub config: TxConfig,
    /// Append the NVMe-MI MIC (CRC-32C, little-endian) to the message before splitting it.
    pub append_mic: bool,
    /// Wrap each packet in the SMBus binding frame (with PEC).
    pub smbus: Option<SmbusAddresses>,
}

/// Message → frames: MIC (optional), packets, SMBus frames (optional).
pub fn transmit(req: &TxRequest, message: &[u8]) -> Result<Vec<Vec<u8>>, MctpError> {
    req.config.validate()?;
    if req.smbus.is_some() && req.config.mtu > SMBUS_MAX_MTU {
        return Err(MctpError::SmbusMtu {
            mtu: req.config.mtu,
            max: SMBUS_MAX_MTU,
        });
    }
    let Some(&first) = message.first() else {
        return Err(MctpError::EmptyMessage);
    };
    let with_mic;
    let message = if req.append_mic {
        if first & nvme_mi::IC_BIT == 0 {
            return Err(MctpError::IcBitClear { first });
        }
        nvme_mi::check_oob_len(message.len() + nvme_mi::MIC_LEN)?;
        let mut m = Vec::with_capacity(message.len() + nvme_mi::MIC_LEN);
        m.extend_from_slice(message);
        nvme_mi::append_mic(&mut m);
        with_mic = m;
        &with_mic[..]
    } else {
        message
    };
    let packets = packetize(&req.config, message)?;
    match &req.smbus {
        None => Ok(packets),
        Some(a) => packets
            .iter()
            .map(|p| smbus::encode(a, p).map_err(MctpError::from))
            .collect(),
    }
}

/// How received frames are wrapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binding {
    /// Each frame is a bare MCTP packet.
    Raw,
    /// Each frame is one SMBus binding frame.
    Smbus,
    /// The frames are consecutive chunks of a serial-binding byte stream.
    Serial,
}

/// A receive request: the inverse of [`TxRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RxRequest {
    pub reassembly: ReassemblyConfig,
    pub binding: Binding,
    /// Check and strip the NVMe-MI MIC of every reassembled message.
    pub verify_mic: bool,
}

/// Why one frame (or the message it completed) was not used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RxError {
    #[error(transparent)]
    Binding(MctpError),
    #[error(transparent)]
    Dropped(DropReason),
    #[error("message from EID {src} tag {tag}: {error}")]
    Integrity { src: u8, tag: u8, error: MctpError },
}

impl RxError {
    /// The [`RX_COUNTERS`] counter this problem moves in a hardware receiver.
    pub fn counter(&self) -> &'static str {
        match self {
            RxError::Binding(MctpError::Smbus(SmbusError::BadPec { .. })) => "bad_pec",
            RxError::Binding(_) => "bad_smbus",
            RxError::Dropped(DropReason::Malformed(_)) => "malformed",
            RxError::Dropped(DropReason::NoContext { .. }) => "no_context",
            RxError::Dropped(DropReason::BadSequence { .. }) => "bad_sequence",
            RxError::Dropped(DropReason::BadUnitSize { .. }) => "bad_unit_size",
            RxError::Dropped(DropReason::TooLong { .. }) => "too_long",
            RxError::Dropped(DropReason::ContextsFull { .. }) => "contexts_full",
            RxError::Integrity { .. } => "mic_errors",
        }
    }
}

/// One problem, at the index of the frame (or serial chunk) where it showed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("frame {frame}: {error}")]
pub struct RxProblem {
    pub frame: usize,
    pub error: RxError,
}

/// The counters of a one-context hardware depacketizer (offload-hdl's `mctp_rx`), one per
/// reason this module's `receive` keeps a message or drops a packet: [`ReassemblyStats`]'s
/// (`timed_out` aside: the block has no timer), then SMBus PEC and binding errors, MIC errors
/// and frames over the block's buffer. One list for the block's ports, its co-simulation and
/// the register map.
///
/// The list is [`mctp_rx_counter_list!`](crate::mctp_rx_counter_list), which hands the names
/// as identifiers to a macro of the caller's: offload-hdl builds the block's counter bundle
/// from it.
pub const RX_COUNTERS: [&str; 12] = {
    macro_rules! names {
        ($($n:ident),*) => { [$(stringify!($n)),*] };
    }
    crate::mctp_rx_counter_list!(names)
};

/// Calls `$m! { messages, malformed, … }` with the MCTP RX counters, in [`RX_COUNTERS`] order:
/// the one list, for code that needs them as identifiers (a bundle's fields).
#[macro_export]
macro_rules! mctp_rx_counter_list {
    ($m:ident) => {
        $m! {
            messages, malformed, no_context, bad_sequence, bad_unit_size, restarted, too_long,
            contexts_full, bad_pec, bad_smbus, mic_errors, oversize
        }
    };
}

/// What [`receive`] made of the frames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxReport {
    /// Messages delivered (MIC stripped when verified), in completion order.
    pub messages: Vec<Message>,
    pub problems: Vec<RxProblem>,
    pub stats: ReassemblyStats,
    /// Partial messages left when the frames ran out.
    pub open_contexts: Vec<ContextKey>,
    /// What each frame moved the counters of the RX block by ([`RxCounts`]), frame by frame:
    /// the software's verdicts in the terms a hardware receiver reports them.
    pub per_frame: Vec<RxCounts>,
}

/// Increments of the [`RX_COUNTERS`], in that order. The software has no packet limit, so its
/// `oversize` (the block's own) is always 0.
pub type RxCounts = [u64; RX_COUNTERS.len()];

impl RxReport {
    /// The totals of [`RxReport::per_frame`]: the counters a one-context block ends with.
    pub fn counters(&self) -> RxCounts {
        self.per_frame.iter().fold([0; RX_COUNTERS.len()], |mut t, c| {
            t.iter_mut().zip(c).for_each(|(t, c)| *t += c);
            t
        })
    }
}

/// One frame's [`RxCounts`]: the reassembler's stats before and after it, the messages it
/// delivered and the problems it caused.
fn frame_counts(before: &ReassemblyStats, after: &ReassemblyStats, delivered: usize, problems: &[RxProblem]) -> RxCounts {
    let d = |a: u64, b: u64| a - b;
    let count = |f: fn(&RxError) -> bool| problems.iter().filter(|p| f(&p.error)).count() as u64;
    // In `RX_COUNTERS` order (the `rx_counts_follow_the_list` test holds the two together).
    [
        delivered as u64,
        d(after.malformed, before.malformed),
        d(after.no_context, before.no_context),
        d(after.bad_sequence, before.bad_sequence),
        d(after.bad_unit_size, before.bad_unit_size),
        d(after.restarted, before.restarted),
        d(after.too_long, before.too_long),
        d(after.contexts_full, before.contexts_full),
        count(|e| e.counter() == "bad_pec"),
        count(|e| e.counter() == "bad_smbus"),
        count(|e| e.counter() == "mic_errors"),
        0,
    ]
}

/// Frames → messages, applying every drop rule; the frames all count as received at the same
/// instant (batch input has no timing). Fails only on an invalid config.
pub fn receive<F: AsRef<[u8]>>(req: &RxRequest, frames: &[F]) -> Result<RxReport, MctpError> {
    let mut r = Reassembler::new(req.reassembly)?;
    let mut serial = (req.binding == Binding::Serial).then(SerialDecoder::new);
    let mut messages = Vec::new();
    let mut problems = Vec::new();
    let mut per_frame = Vec::with_capacity(frames.len());
    for (i, f) in frames.iter().enumerate() {
        let f = f.as_ref();
        let (before, m0, p0) = (*r.stats(), messages.len(), problems.len());
        let mut take = |p: Result<&[u8], MctpError>| match p {
            Ok(p) => push_packet(&mut r, req.verify_mic, i, p, &mut messages, &mut problems),
            Err(e) => problems.push(RxProblem {
                frame: i,
                error: RxError::Binding(e),
            }),
        };
        match &mut serial {
            None if req.binding == Binding::Smbus => {
                take(smbus::decode(f).map(|(_, p)| p).map_err(Into::into))
            }
            None => take(Ok(f)),
            Some(d) => {
                for p in d.feed(f) {
                    take(p.as_deref().map_err(|e| (*e).into()));
                }
            }
        }
        per_frame.push(frame_counts(&before, r.stats(), messages.len() - m0, &problems[p0..]));
    }
    Ok(RxReport {
        messages,
        problems,
        stats: *r.stats(),
        open_contexts: r.active_keys(),
        per_frame,
    })
}

fn push_packet(
    r: &mut Reassembler,
    verify_mic: bool,
    frame: usize,
    packet: &[u8],
    messages: &mut Vec<Message>,
    problems: &mut Vec<RxProblem>,
) {
    match r.push(packet, Duration::ZERO) {
        Outcome::Delivered(mut m) => {
            if verify_mic {
                if let Err(error) = strip_mic(&mut m) {
                    let error = RxError::Integrity {
                        src: m.src,
                        tag: m.tag,
                        error,
                    };
                    problems.push(RxProblem { frame, error });
                    return;
                }
            }
            messages.push(m);
        }
        Outcome::InProgress => {}
        Outcome::Dropped(reason) => problems.push(RxProblem {
            frame,
            error: RxError::Dropped(reason),
        }),
    }
}

fn strip_mic(m: &mut Message) -> Result<(), MctpError> {
    let first = m.bytes[0];
    if first & nvme_mi::IC_BIT == 0 {
        return Err(MctpError::IcBitClear { first });
    }
    let body_len = nvme_mi::verify_mic(&m.bytes)?.len();
    m.bytes.truncate(body_len);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn req() -> TxRequest {
        TxRequest {
            config: TxConfig::new(0x08, 0x1D, 2, true),
            append_mic: false,
            smbus: None,
        }
    }

    fn rx(binding: Binding, verify_mic: bool) -> RxRequest {
        RxRequest {
            reassembly: ReassemblyConfig::default(),
            binding,
            verify_mic,
        }
    }

    #[test]
    fn transmit_plain_mic_and_smbus() {
        let msg: Vec<u8> = std::iter::once(0x84)
            .chain((0..99).map(|i| i as u8))
            .collect();
        // Plain: the packetizer's output.
        assert_eq!(
            transmit(&req(), &msg).unwrap(),
            packetize(&req().config, &msg).unwrap()
        );
        // MIC: 104 octets → 64 + 40.
        let r = TxRequest {
            append_mic: true,
            ..req()
        };
        let pkts = transmit(&r, &msg).unwrap();
        assert_eq!(pkts.iter().map(Vec::len).collect::<Vec<_>>(), [68, 44]);
        let tail = &pkts[1][pkts[1].len() - 4..];
        assert_eq!(tail, nvme_mi::mic(&msg).to_le_bytes());
        // SMBus: each packet framed.
        let a = SmbusAddresses {
            src: 0x10,
            dst: 0x1D,
        };
        let r = TxRequest {
            append_mic: true,
            smbus: Some(a),
            ..req()
        };
        let frames = transmit(&r, &msg).unwrap();
        for (f, p) in frames.iter().zip(&pkts) {
            assert_eq!(smbus::decode(f).unwrap(), (a, &p[..]));
        }
    }

    #[test]
    fn transmit_errors() {
        assert_eq!(transmit(&req(), &[]), Err(MctpError::EmptyMessage));
        let r = TxRequest {
            append_mic: true,
            ..req()
        };
        assert_eq!(
            transmit(&r, &[0x04, 8, 0, 0]),
            Err(MctpError::IcBitClear { first: 0x04 })
        );
        assert_eq!(
            transmit(&r, &vec![0x84; 4221]),
            Err(MctpError::NvmeMi(NvmeMiError::TooLong {
                len: 4225,
                max: 4224
            }))
        );
        assert!(transmit(&r, &vec![0x84; 4220]).is_ok());
        let r = TxRequest {
            config: TxConfig {
                mtu: 251,
                ..req().config
            },
            smbus: Some(SmbusAddresses { src: 1, dst: 2 }),
            ..req()
        };
        assert_eq!(
            transmit(&r, &[0]),
            Err(MctpError::SmbusMtu { mtu: 251, max: 250 })
        );
        let r = TxRequest {
            smbus: Some(SmbusAddresses { src: 0x80, dst: 2 }),
            ..req()
        };
        assert_eq!(
            transmit(&r, &[0]),
            Err(MctpError::Smbus(SmbusError::AddressOutOfRange {
                field: "source",
                addr: 0x80
            }))
        );
    }

    /// Each frame's counts name its verdict under the counter's name in `RX_COUNTERS`.
    #[test]
    fn rx_counts_follow_the_list() {
        let at = |n: &str| RX_COUNTERS.iter().position(|c| *c == n).unwrap();
        let msg: Vec<u8> = std::iter::once(0x84).chain(0..150).collect();
        let r = TxRequest { append_mic: true, smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1D }), ..req() };
        let p = transmit(&r, &msg).unwrap(); // 3 frames
        let mut bad_pec = p[1].clone();
        *bad_pec.last_mut().unwrap() ^= 1;
        let mut short = p[1].clone();
        short.truncate(3);
        // The same message with a wrong MIC appended by hand: every frame good but the check.
        let mut wrong = msg.clone();
        wrong.extend((nvme_mi::mic(&msg) ^ 1).to_le_bytes());
        let bad_mic = transmit(&TxRequest { append_mic: false, ..r }, &wrong).unwrap();
        let frames = vec![
            p[1].clone(), // middle with no start: no_context
            p[0].clone(),
            bad_pec,      // bad_pec
            short,        // bad_smbus
            p[2].clone(), // sequence skips p[1]: bad_sequence
            p[0].clone(),
            p[0].clone(), // restarted
            p[1].clone(),
            p[2].clone(), // message
            bad_mic[0].clone(),
            bad_mic[1].clone(),
            bad_mic[2].clone(), // mic_errors
        ];
        let rep = receive(&rx(Binding::Smbus, true), &frames).unwrap();
        let only = |i: usize, n: &str| {
            let mut c = [0; 12];
            c[at(n)] = 1;
            assert_eq!(rep.per_frame[i], c, "frame {i}: {n}");
        };
        only(0, "no_context");
        only(2, "bad_pec");
        only(3, "bad_smbus");
        only(4, "bad_sequence");
        only(6, "restarted");
        only(8, "messages");
        only(11, "mic_errors");
        for i in [1, 5, 7, 9, 10] {
            assert_eq!(rep.per_frame[i], [0; 12], "frame {i} taken");
        }
        assert_eq!(rep.counters().iter().sum::<u64>(), 7);
        assert_eq!(rep.per_frame.len(), frames.len());
    }

    #[test]
    fn receive_reports_problems_per_frame() {
        let msg = vec![0x84, 8, 0, 0, 1, 2, 3];
        let r = TxRequest {
            append_mic: true,
            smbus: Some(SmbusAddresses {
                src: 0x10,
                dst: 0x1D,
            }),
            ..req()
        };
        let good = transmit(&r, &msg).unwrap();
        let mut bad_pec = good[0].clone();
        bad_pec[5] ^= 1;
        let frames = vec![bad_pec, good[0].clone()];
        let rep = receive(&rx(Binding::Smbus, true), &frames).unwrap();
        assert_eq!(rep.messages.len(), 1);
        assert_eq!(rep.messages[0].bytes, msg);
        assert_eq!(rep.problems.len(), 1);
        assert_eq!(rep.problems[0].frame, 0);
        assert!(matches!(
            rep.problems[0].error,
            RxError::Binding(MctpError::Smbus(SmbusError::BadPec { .. }))
        ));
        assert!(
            rep.problems[0]
                .to_string()
                .starts_with("frame 0: SMBus PEC"),
            "{}",
            rep.problems[0]
        );

        // A payload bit flip passes the SMBus PEC when re-framed, but not the MIC.
        let pkts = transmit(
            &TxRequest {
                append_mic: true,
                ..req()
            },
            &msg,
        )
        .unwrap();
        let mut p = pkts[0].clone();
        p[6] ^= 0x40;
        let rep = receive(&rx(Binding::Raw, true), &[p]).unwrap();
        assert!(rep.messages.is_empty());
        assert!(matches!(
            rep.problems[0].error,
            RxError::Integrity {
                error: MctpError::NvmeMi(NvmeMiError::MicMismatch { .. }),
                ..
            }
        ));

        // An incomplete message stays open.
        let long = vec![0x01u8; 200];
        let pkts = transmit(&req(), &long).unwrap();
        let rep = receive(&rx(Binding::Raw, false), &pkts[..2]).unwrap();
        assert_eq!(
            rep.open_contexts,
            vec![ContextKey {
                src: 0x08,
                dst: 0x1D,
                tag: 2,
                tag_owner: true
            }]
        );
    }

    proptest! {
        /// transmit → (serial framing, any chunking | SMBus | raw) → receive is the identity.
        #[test]
        fn transmit_receive_roundtrip(
            body in proptest::collection::vec(any::<u8>(), 0..1500),
            mtu in MIN_MTU..=SMBUS_MAX_MTU,
            tag in 0u8..8, to: bool, seq in 0u8..4, mic: bool, binding in 0u8..3,
            cut in 1usize..50,
        ) {
            let mut msg = vec![0x84];
            msg.extend_from_slice(&body);
            let config = TxConfig { src: 0x30, dst: 0x31, tag, tag_owner: to, mtu, start_seq: seq };
            let smbus = (binding == 1).then_some(SmbusAddresses { src: 0x21, dst: 0x42 });
            let frames = transmit(&TxRequest { config, append_mic: mic, smbus }, &msg).unwrap();
            let (binding, input): (Binding, Vec<Vec<u8>>) = match binding {
                0 => (Binding::Raw, frames),
                1 => (Binding::Smbus, frames),
                _ => {
                    let stream: Vec<u8> = frames.iter().flat_map(|p| serial::encode(p).unwrap()).collect();
                    (Binding::Serial, stream.chunks(cut).map(<[u8]>::to_vec).collect())
                }
            };
            let rep = receive(&rx(binding, mic), &input).unwrap();
            prop_assert!(rep.problems.is_empty(), "{:?}", rep.problems);
            prop_assert_eq!(rep.messages.len(), 1);
            let m = &rep.messages[0];
            prop_assert_eq!((m.src, m.dst, m.tag, m.tag_owner), (0x30, 0x31, tag, to));
            prop_assert_eq!(&m.bytes, &msg);
        }
    }
}
