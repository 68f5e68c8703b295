//! Receiving through the MCTP RX block (offload-hdl's `mctp_rx`): how a hardware backend of
//! [`Offload::mctp_receive`](crate::Offload::mctp_receive) turns what the block did into the
//! [`RxReport`] the software [`receive`] gives.
//!
//! The block decides. The backend feeds it one frame at a time and reads which counters each
//! frame moved (the block's verdict on every frame) and the block's record of its last drop
//! ([`DropRecord`], the `MCTP_RX_DROP*` registers): the header it found, the context it held
//! and the sequence number and unit that context expected, the lengths. Those are checked
//! against the software receiver's problem for the same frame, so the block's verdicts and
//! the detail behind them must agree with the software's frame by frame. What the record does
//! not hold (which header rule a malformed packet broke, the PEC or MIC values) comes from the
//! software. A disagreement is never papered over: it is an error that names the frame, says in
//! the block's own words what it did, and whether it is one of the block's documented limits
//! (one reassembly context, a 7680-octet message, 260-octet raw frames) or a fault.

use super::{
    receive, Binding, ContextKey, DropReason, Message, MctpError, RxCounts, RxError, RxReport, RxRequest,
    BASELINE_MTU, HEADER_LEN, RX_COUNTERS,
};
use crate::regmap::MCTP_RX_MAX_LEN_LIMIT;
use crate::registers::MctpRxConfig;

/// The largest raw frame the block takes: the header and 256 payload octets (its payload
/// slot). It counts longer ones as `oversize`.
pub const MAX_RAW_FRAME: usize = HEADER_LEN + 256;

/// Why a hardware backend could not answer a receive request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RxBlockError {
    /// The request itself is invalid (the software refuses it too).
    #[error(transparent)]
    Request(#[from] MctpError),
    /// The block has no such mode: nothing was sent.
    #[error("the MCTP RX block takes one packet per frame, not the serial binding's byte stream")]
    Serial,
    /// The input met one of the block's limits where the software has none.
    #[error("frame {frame}: {what}")]
    Limit { frame: usize, what: String },
    /// The block did something the software would not: a hardware (or transport) fault.
    #[error("frame {frame}: {what}")]
    Disagrees { frame: usize, what: String },
    /// The transport failed.
    #[error("{0}")]
    Transport(String),
}

/// The block's static configuration (its `cfg_*` ports, the `MCTP_RX_CONFIG` and
/// `MCTP_RX_MAX_LEN` registers) for `req`; a message limit over the block's is lowered to it
/// (the run then fails with [`RxBlockError::Limit`] only if a message needs more).
pub fn block_config(req: &RxRequest) -> Result<MctpRxConfig, RxBlockError> {
    // The software's refusals of a configuration first.
    super::Reassembler::new(req.reassembly)?;
    if req.binding == Binding::Serial {
        return Err(RxBlockError::Serial);
    }
    Ok(MctpRxConfig {
        smbus: req.binding == Binding::Smbus,
        mic: req.verify_mic,
        strict: req.reassembly.strict_unit_size,
        max_len: req.reassembly.max_message_len.min(MCTP_RX_MAX_LEN_LIMIT),
    })
}

/// The block's record of its last drop: the `MCTP_RX_DROP`, `MCTP_RX_DROP_CONTEXT` and
/// `MCTP_RX_DROP_LENGTH` registers (docs/TOP.md), latched in the clock after the block judged
/// the frame (or, for a MIC error, found the message's MIC bad). `restarted` is not a drop of
/// its own here: it comes with the verdict on the same start packet, which is recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropRecord {
    /// The counter the drop moved, its place in [`RX_COUNTERS`]; 0 (`messages`) when nothing
    /// was dropped since reset.
    pub counter: usize,
    /// Flips with every drop recorded, so that two equal drops in a row are two records.
    pub toggle: bool,
    /// The packet's header octets 1–3 as the block read them: destination EID, source EID and
    /// the flags octet (SOM, EOM, sequence number, TO, tag). For a MIC error, the message's
    /// last packet.
    pub found_dst: u8,
    pub found_src: u8,
    pub found_flags: u8,
    /// Whether a reassembly was open when the packet was judged, its key, the sequence number
    /// it expected next and its transmission unit (its first packet's payload octets).
    pub context_open: bool,
    pub context: ContextKey,
    pub expected_seq: u8,
    pub unit: usize,
    /// The packet's payload octets (mod 512: at most 256 in a packet the block takes, longer
    /// raw frames are `oversize`) and the message's octets with it (MIC included).
    pub payload_len: usize,
    pub message_len: usize,
}

impl DropRecord {
    /// Decodes the three registers, in address order.
    pub fn from_words([drop, context, length]: [u32; 3]) -> DropRecord {
        use crate::regmap::*;
        let header = drop >> MCTP_RX_DROP_HEADER_SHIFT;
        DropRecord {
            counter: (drop & 0xF) as usize,
            toggle: drop & MCTP_RX_DROP_TOGGLE != 0,
            found_dst: header as u8,
            found_src: (header >> 8) as u8,
            found_flags: (header >> 16) as u8,
            context_open: drop & MCTP_RX_DROP_OPEN != 0,
            context: ContextKey {
                dst: context as u8,
                src: (context >> 8) as u8,
                tag: (context >> 16) as u8 & 7,
                tag_owner: context & 1 << 19 != 0,
            },
            expected_seq: (drop >> MCTP_RX_DROP_SEQ_SHIFT) as u8 & 3,
            unit: (context >> MCTP_RX_DROP_UNIT_SHIFT) as usize & 0x1FF,
            payload_len: length as usize & 0x1FF,
            message_len: (length >> MCTP_RX_DROP_MESSAGE_SHIFT) as usize & 0x1FFF,
        }
    }

    /// The name of the counter the drop moved (`None`: no drop since reset, or a place past
    /// the list, which is a fault).
    pub fn reason(&self) -> Option<&'static str> {
        RX_COUNTERS.get(self.counter).copied().filter(|_| self.counter != 0)
    }

    /// The packet's sequence number (flags bits 5:4).
    pub fn found_seq(&self) -> u8 {
        self.found_flags >> 4 & 3
    }

    /// The packet's key (source, destination, tag, TO).
    pub fn found_key(&self) -> ContextKey {
        ContextKey { src: self.found_src, dst: self.found_dst, tag: self.found_flags & 7, tag_owner: self.found_flags & 1 << 3 != 0 }
    }

    /// Whether this record says what the software's `problem` says, in everything the block
    /// keeps; `Err` says what differs.
    pub fn check(&self, problem: &RxError) -> Result<(), String> {
        let want = problem.counter();
        if self.reason() != Some(want) {
            return Err(format!("the block recorded {} where the software has {want}", self.reason().unwrap_or("no drop")));
        }
        let som = self.found_flags & 1 << 7 != 0;
        let differs = |what: &str, hw: usize, sw: usize| (hw != sw).then(|| format!("{want}: the block found {what} {hw}, the software {sw}"));
        let e = match problem {
            RxError::Dropped(DropReason::NoContext { seq }) => differs("sequence number", self.found_seq().into(), (*seq).into()),
            RxError::Dropped(DropReason::BadSequence { expected, found }) => differs("sequence number", self.found_seq().into(), (*found).into())
                .or_else(|| differs("the context expecting", self.expected_seq.into(), (*expected).into()))
                .or_else(|| (!self.context_open).then(|| format!("{want}: the block had no context open, the software one"))),
            RxError::Dropped(DropReason::BadUnitSize { expected, found }) => differs("payload octets", self.payload_len, *found)
                .or_else(|| differs("a unit of", if som { BASELINE_MTU } else { self.unit }, *expected)),
            RxError::Dropped(DropReason::TooLong { len, .. }) => differs("message octets", self.message_len, *len),
            RxError::Dropped(DropReason::ContextsFull { .. }) => (!self.context_open || self.context == self.found_key())
                .then(|| format!("contexts_full: the block's context {} for key {:?}", if self.context_open { "open" } else { "closed" }, self.found_key())),
            RxError::Integrity { src, tag, .. } => differs("source EID", self.found_src.into(), (*src).into())
                .or_else(|| differs("tag", (self.found_flags & 7).into(), (*tag).into())),
            // The block keeps no more of these than the counter.
            RxError::Dropped(DropReason::Malformed(_)) | RxError::Binding(_) => None,
        };
        e.map_or(Ok(()), Err)
    }
}

impl std::fmt::Display for DropRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Some(reason) = self.reason() else { return write!(f, "no drop recorded") };
        let k = self.found_key();
        write!(
            f,
            "{reason}: packet from EID {} to {} tag {}{} seq {}{}{}, {} payload octets, {} in the message",
            k.src,
            k.dst,
            k.tag,
            if k.tag_owner { " TO" } else { "" },
            self.found_seq(),
            if self.found_flags & 1 << 7 != 0 { " SOM" } else { "" },
            if self.found_flags & 1 << 6 != 0 { " EOM" } else { "" },
            self.payload_len,
            self.message_len
        )?;
        if self.context_open {
            let c = self.context;
            write!(
                f,
                "; context from EID {} to {} tag {}{} open, expecting seq {}, unit {}",
                c.src,
                c.dst,
                c.tag,
                if c.tag_owner { " TO" } else { "" },
                self.expected_seq,
                self.unit
            )?;
        }
        Ok(())
    }
}

/// What the block did with one frame: the messages it delivered, what each counter moved by
/// and its drop record before and after the frame (`None` from a transport that does not read
/// it; every hardware backend here does).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameVerdict {
    pub messages: Vec<Message>,
    pub counts: RxCounts,
    pub drop: Option<(DropRecord, DropRecord)>,
}

impl FrameVerdict {
    /// The drop the block recorded during the frame, if its record changed.
    pub fn recorded(&self) -> Option<DropRecord> {
        self.drop.and_then(|(before, after)| (before.toggle != after.toggle).then_some(after))
    }
}

/// Runs `frames` through the block one at a time — `run_frame` sends one frame and returns
/// its [`FrameVerdict`] — and gives the report of [`receive`] on `req` when the block's
/// verdicts and drop records agree with it frame by frame and its messages equal the
/// software's, byte for byte with their header fields. The block must have been reset and
/// configured with [`block_config`].
pub fn receive_through_block<F: AsRef<[u8]>>(
    req: &RxRequest,
    frames: &[F],
    mut run_frame: impl FnMut(&[u8]) -> Result<FrameVerdict, String>,
) -> Result<RxReport, RxBlockError> {
    let config = block_config(req)?;
    let want = receive(req, frames)?;
    let mut got = Vec::with_capacity(want.messages.len());
    for (i, (f, sw)) in frames.iter().zip(&want.per_frame).enumerate() {
        let verdict = run_frame(f.as_ref()).map_err(RxBlockError::Transport)?;
        let recorded = verdict.recorded();
        let FrameVerdict { messages, counts: hw, drop } = verdict;
        if messages.len() as u64 != hw[0] {
            return Err(RxBlockError::Disagrees {
                frame: i,
                what: format!("{} messages out, the messages counter moved by {}", messages.len(), hw[0]),
            });
        }
        if hw != *sw {
            return Err(explain(i, f.as_ref(), &config, &hw, sw, recorded));
        }
        // A frame is one packet: at most one drop, in the software and in the block's record.
        if drop.is_some() {
            let problem = want.problems.iter().find(|p| p.frame == i);
            let disagrees = |what: String| RxBlockError::Disagrees { frame: i, what };
            match (problem, recorded) {
                (Some(p), Some(r)) => r.check(&p.error).map_err(|e| disagrees(format!("{e} ({r})")))?,
                (Some(p), None) => return Err(disagrees(format!("the block recorded no drop; the software: {}", p.error))),
                (None, Some(r)) => return Err(disagrees(format!("the block recorded a drop the software has not: {r}"))),
                (None, None) => {}
            }
        }
        got.extend(messages);
    }
    // Equal counts frame by frame: the same frames delivered, so the messages pair up.
    if let Some(k) = got.iter().zip(&want.messages).position(|(g, w)| g != w) {
        return Err(RxBlockError::Disagrees {
            frame: frames.len().saturating_sub(1),
            what: format!("message {k} differs from the software's: {:?} vs {:?}", got[k], want.messages[k]),
        });
    }
    Ok(RxReport { messages: got, ..want })
}

/// Names a disagreement: one of the block's limits, or a fault (in the block's words, with its
/// record of the drop when it made one).
fn explain(
    frame: usize,
    f: &[u8],
    config: &MctpRxConfig,
    hw: &RxCounts,
    sw: &RxCounts,
    recorded: Option<DropRecord>,
) -> RxBlockError {
    let at = |name: &str| RX_COUNTERS.iter().position(|n| *n == name).expect("a counter of RX_COUNTERS");
    let moved = |c: &RxCounts| -> String {
        let v: Vec<String> = RX_COUNTERS.iter().zip(c).filter(|(_, &v)| v != 0).map(|(n, v)| format!("{n} +{v}")).collect();
        if v.is_empty() { "nothing (packet taken)".into() } else { v.join(", ") }
    };
    let limit = |what: String| RxBlockError::Limit { frame, what };
    if hw[at("oversize")] > sw[at("oversize")] {
        return limit(format!("{} octets: over the MCTP RX block's {MAX_RAW_FRAME}-octet packet limit", f.len()));
    }
    if hw[at("contexts_full")] > sw[at("contexts_full")] {
        return limit("a second message starts while one is in reassembly: the MCTP RX block has one reassembly context".into());
    }
    if hw[at("too_long")] > sw[at("too_long")] && config.max_len == MCTP_RX_MAX_LEN_LIMIT {
        return limit(format!("the message grows past the MCTP RX block's {MCTP_RX_MAX_LEN_LIMIT}-octet limit"));
    }
    let record = recorded.map_or(String::new(), |r| format!("; the block's record: {r}"));
    RxBlockError::Disagrees { frame, what: format!("the block counted {}, the software {}{record}", moved(hw), moved(sw)) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mctp::{transmit, ReassemblyConfig, TxConfig, TxRequest};

    fn req() -> RxRequest {
        RxRequest { reassembly: ReassemblyConfig::default(), binding: Binding::Raw, verify_mic: false }
    }

    fn frames(tag: u8, len: usize) -> Vec<Vec<u8>> {
        let tx = TxRequest { config: TxConfig::new(8, 9, tag, true), append_mic: false, smbus: None };
        transmit(&tx, &vec![0x7Eu8; len]).unwrap()
    }

    /// A "block" that is the software itself, frame by frame (what a correct block does).
    fn software_block(req: &RxRequest) -> impl FnMut(&[u8]) -> Result<FrameVerdict, String> + '_ {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        move |f| {
            seen.push(f.to_vec());
            let r = receive(req, &seen).unwrap();
            let last = *r.per_frame.last().unwrap();
            let n = last[0] as usize;
            Ok(FrameVerdict { messages: r.messages[r.messages.len() - n..].to_vec(), counts: last, drop: None })
        }
    }

    /// The software block with a drop record: for each problem of the software's report on
    /// `all`, the record a correct block makes (the frame's header; the sequence number
    /// expected), then `edit`ed (frame index, record).
    fn recording_block<'a>(
        req: &'a RxRequest,
        all: &[Vec<u8>],
        mut edit: impl FnMut(usize, &mut DropRecord) + 'a,
    ) -> impl FnMut(&[u8]) -> Result<FrameVerdict, String> + 'a {
        let problems = receive(req, all).unwrap().problems;
        let mut block = software_block(req);
        let (mut record, mut i) = (DropRecord::default(), 0);
        move |f| {
            let mut v = block(f)?;
            let before = record;
            if let Some(p) = problems.iter().find(|p| p.frame == i) {
                record = DropRecord {
                    counter: RX_COUNTERS.iter().position(|n| *n == p.error.counter()).unwrap(),
                    toggle: !record.toggle,
                    found_dst: f[1],
                    found_src: f[2],
                    found_flags: f[3],
                    payload_len: f.len() - HEADER_LEN,
                    ..record
                };
                if let RxError::Dropped(DropReason::BadSequence { expected, .. }) = p.error {
                    (record.expected_seq, record.context_open) = (expected, true);
                }
                edit(i, &mut record);
            }
            v.drop = Some((before, record));
            i += 1;
            Ok(v)
        }
    }

    #[test]
    fn drop_records_are_checked_against_the_software() {
        let r = req();
        let mut f = frames(1, 200);
        f.insert(1, f[2].clone()); // frame 1: seq 2 where 1 was due; frame 2: no context
        let want = receive(&r, &f).unwrap();
        assert_eq!(want.problems.len(), 4, "{:?}", want.problems);
        assert_eq!(receive_through_block(&r, &f, recording_block(&r, &f, |_, _| {})).unwrap(), want);
        // The block's sequence number expected is wrong: named, with the record.
        let e = receive_through_block(&r, &f, recording_block(&r, &f, |_, d| d.expected_seq ^= 1)).unwrap_err();
        assert!(
            matches!(&e, RxBlockError::Disagrees { frame: 1, what } if what.contains("the context expecting 0, the software 1") && what.contains("bad_sequence: packet from EID 8 to 9 tag 1 TO seq 2")),
            "{e}"
        );
        // No record made of a drop, a record of the wrong counter.
        let e = receive_through_block(&r, &f, recording_block(&r, &f, |_, d| d.toggle = !d.toggle)).unwrap_err();
        assert!(matches!(&e, RxBlockError::Disagrees { frame: 1, what } if what.contains("recorded no drop")), "{e}");
        let e = receive_through_block(&r, &f, recording_block(&r, &f, |i, d| d.counter = if i == 2 { 3 } else { d.counter })).unwrap_err();
        assert!(matches!(&e, RxBlockError::Disagrees { frame: 2, what } if what.contains("recorded bad_sequence where the software has no_context")), "{e}");
    }

    #[test]
    fn records_decode_from_the_registers() {
        let d = DropRecord::from_words([0xA3_08_09_D3, 0x0003_0908 | 64 << 20, 300 << 16 | 64]);
        assert_eq!((d.reason(), d.toggle, d.context_open, d.expected_seq), (Some("bad_sequence"), true, true, 1));
        assert_eq!((d.found_dst, d.found_src, d.found_seq(), d.found_key().tag, d.found_key().tag_owner), (9, 8, 2, 3, false));
        assert_eq!(d.context, ContextKey { dst: 8, src: 9, tag: 3, tag_owner: false });
        assert_eq!((d.unit, d.payload_len, d.message_len), (64, 64, 300));
        assert_eq!(DropRecord::default().reason(), None);
        assert_eq!(DropRecord::default().to_string(), "no drop recorded");
    }

    #[test]
    fn agreeing_block_gives_the_software_report() {
        let r = req();
        let mut f = frames(1, 200);
        f.insert(1, f[2].clone()); // out of sequence: a drop with details
        f.extend(frames(2, 100));
        let got = receive_through_block(&r, &f, software_block(&r)).unwrap();
        assert_eq!(got, receive(&r, &f).unwrap());
        assert_eq!(got.messages.len(), 1);
        assert!(!got.problems.is_empty());
    }

    #[test]
    fn disagreements_are_named() {
        let r = req();
        let f = frames(1, 200);
        // A block that drops the second packet as out of sequence: a fault, named by counters.
        let mut n = 0;
        let e = receive_through_block(&r, &f, |_| {
            n += 1;
            let mut c = [0; 12];
            c[3] = (n == 2) as u64;
            Ok(FrameVerdict { counts: c, ..Default::default() })
        })
        .unwrap_err();
        assert_eq!(
            e,
            RxBlockError::Disagrees { frame: 1, what: "the block counted bad_sequence +1, the software nothing (packet taken)".into() }
        );
        // A block that says "contexts full" where the software had room: the one-context limit.
        let mut g = frames(1, 200);
        g.insert(1, frames(2, 200)[0].clone());
        let mut n = 0;
        let e = receive_through_block(&r, &g, |_| {
            n += 1;
            let mut c = [0; 12];
            c[7] = (n == 2) as u64;
            Ok(FrameVerdict { counts: c, ..Default::default() })
        })
        .unwrap_err();
        assert!(matches!(&e, RxBlockError::Limit { frame: 1, what } if what.contains("one reassembly context")), "{e}");
        // Messages out that the counters do not account for.
        let e = receive_through_block(&r, &f[..1], |_| Ok(FrameVerdict { messages: vec![Message { src: 8, dst: 9, tag: 1, tag_owner: true, bytes: vec![1] }], ..Default::default() }))
            .unwrap_err();
        assert!(matches!(e, RxBlockError::Disagrees { frame: 0, .. }), "{e}");
        // The serial binding is refused before anything is sent.
        let serial = RxRequest { binding: Binding::Serial, ..r };
        assert_eq!(receive_through_block(&serial, &f, |_| unreachable!()), Err(RxBlockError::Serial));
    }

    #[test]
    fn config_follows_the_request() {
        let mut r = req();
        assert_eq!(
            block_config(&r).unwrap(),
            MctpRxConfig { smbus: false, mic: false, strict: true, max_len: MCTP_RX_MAX_LEN_LIMIT }
        );
        r.reassembly = ReassemblyConfig::nvme_mi();
        r.binding = Binding::Smbus;
        r.verify_mic = true;
        assert_eq!(block_config(&r).unwrap(), MctpRxConfig { smbus: true, mic: true, strict: true, max_len: 4224 });
        r.reassembly.max_contexts = 0;
        assert!(matches!(block_config(&r), Err(RxBlockError::Request(_))));
    }
}
