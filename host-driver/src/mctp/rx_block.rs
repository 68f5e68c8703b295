//! Receiving through the MCTP RX block (offload-hdl's `mctp_rx`): how a hardware backend of
//! [`Offload::mctp_receive`](crate::Offload::mctp_receive) turns what the block did into the
//! [`RxReport`] the software [`receive`] gives.
//!
//! The block decides; its counters are all it says about a drop. So the backend feeds it one
//! frame at a time and reads which counters each frame moved: the block's verdict on every
//! frame. The words of a problem (the sequence number expected, the unit size, the MIC found)
//! are not in the hardware: they come from the software receiver, whose verdicts must agree
//! with the block's frame by frame. A disagreement is never papered over: it is an error that
//! names the frame and says whether it is one of the block's documented limits (one reassembly
//! context, a 7680-octet message, 260-octet raw frames) or a fault.

use super::{receive, Binding, Message, MctpError, RxCounts, RxReport, RxRequest, HEADER_LEN, RX_COUNTERS};
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

/// Runs `frames` through the block one at a time — `run_frame` sends one frame and returns the
/// messages the block delivered and what its counters moved by — and gives the report of
/// [`receive`] on `req` when the block's verdicts agree with it frame by frame and its
/// messages equal the software's, byte for byte with their header fields. The block must have
/// been reset and configured with [`block_config`].
pub fn receive_through_block<F: AsRef<[u8]>>(
    req: &RxRequest,
    frames: &[F],
    mut run_frame: impl FnMut(&[u8]) -> Result<(Vec<Message>, RxCounts), String>,
) -> Result<RxReport, RxBlockError> {
    let config = block_config(req)?;
    let want = receive(req, frames)?;
    let mut got = Vec::with_capacity(want.messages.len());
    for (i, (f, sw)) in frames.iter().zip(&want.per_frame).enumerate() {
        let (messages, hw) = run_frame(f.as_ref()).map_err(RxBlockError::Transport)?;
        if messages.len() as u64 != hw[0] {
            return Err(RxBlockError::Disagrees {
                frame: i,
                what: format!("{} messages out, the messages counter moved by {}", messages.len(), hw[0]),
            });
        }
        if hw != *sw {
            return Err(explain(i, f.as_ref(), &config, &hw, sw));
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

/// Names a disagreement: one of the block's limits, or a fault.
fn explain(frame: usize, f: &[u8], config: &MctpRxConfig, hw: &RxCounts, sw: &RxCounts) -> RxBlockError {
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
    RxBlockError::Disagrees { frame, what: format!("the block counted {}, the software {}", moved(hw), moved(sw)) }
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
    fn software_block(req: &RxRequest) -> impl FnMut(&[u8]) -> Result<(Vec<Message>, RxCounts), String> + '_ {
        let mut seen: Vec<Vec<u8>> = Vec::new();
        move |f| {
            seen.push(f.to_vec());
            let r = receive(req, &seen).unwrap();
            let last = *r.per_frame.last().unwrap();
            let n = last[0] as usize;
            Ok((r.messages[r.messages.len() - n..].to_vec(), last))
        }
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
            Ok((vec![], c))
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
            Ok((vec![], c))
        })
        .unwrap_err();
        assert!(matches!(&e, RxBlockError::Limit { frame: 1, what } if what.contains("one reassembly context")), "{e}");
        // Messages out that the counters do not account for.
        let e = receive_through_block(&r, &f[..1], |_| Ok((vec![Message { src: 8, dst: 9, tag: 1, tag_owner: true, bytes: vec![1] }], [0; 12])))
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
