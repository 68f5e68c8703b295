//! The client's protocol core, sans-IO: management requests on stream 0 matched to their
//! answers by tag, per-stream credit and inboxes. It holds no socket and reads no clock: the
//! I/O driver ([`Client`](super::agent::Client)) feeds it the messages of its association,
//! sends what it queues and does the waiting; tests drive it directly against a
//! [`ServerCore`](super::server::ServerCore).

use super::credit::ClientCredit;
use super::frame::FcFrame;
use super::mgmt::{AssignStream, MgmtBody, MgmtHeader, MgmtMessage, Request, Response, Revision};
use super::prefix::{Encapsulated, Prefix};
use super::stream::{check_answer, request_header, MGMT_STREAM};
use super::FcError;
use crate::Offload;
use std::collections::{HashMap, VecDeque};

/// Early credit prefixes kept per unknown stream, and unknown streams kept.
const MAX_EARLY: usize = 64;
/// Management answers kept unclaimed, and frames kept per stream until taken: a peer cannot
/// make the client buffer without bound (beyond these, the oldest answer or the new frame is
/// dropped and counted).
const MAX_ANSWERS: usize = 256;
pub const MAX_INBOX: usize = 8192;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientStats {
    pub frames_sent: u64,
    pub frames_received: u64,
    pub signals_received: u64,
    pub bad_messages: u64,
    /// Frames dropped because the stream's inbox was full (see [`MAX_INBOX`]).
    pub inbox_overflows: u64,
}

/// What the server answered to Assign Stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssignOutcome {
    pub response: Response,
    /// The stream assigned (0 unless Good).
    pub stream: u16,
    pub priority: u8,
    pub time_limit_ms: u32,
}

struct ClientStream {
    credit: ClientCredit,
    inbox: VecDeque<(Prefix, FcFrame)>,
}

/// The client's state for one association.
pub struct ClientCore {
    /// BB_Credit per stream, as established at login (must match the server's).
    login_credit: u16,
    /// Send frames with the N bit set and no CRC (the server constructs it).
    crc_invalid: bool,
    next_tag: u16,
    answers: VecDeque<MgmtMessage>,
    streams: HashMap<u16, ClientStream>,
    /// Credit prefixes that came on a stream before its Assign Stream answer (SCTP delivers
    /// unordered across streams), replayed when the answer comes.
    early: HashMap<u16, Vec<Prefix>>,
    outbox: VecDeque<(u16, Vec<u8>)>,
    offload: Box<dyn Offload>,
    pub stats: ClientStats,
}

impl ClientCore {
    pub fn new(login_credit: u16, crc_invalid: bool, offload: Box<dyn Offload>) -> ClientCore {
        ClientCore {
            login_credit,
            crc_invalid,
            next_tag: 1,
            answers: VecDeque::new(),
            streams: HashMap::new(),
            early: HashMap::new(),
            outbox: VecDeque::new(),
            offload,
            stats: ClientStats::default(),
        }
    }

    /// The next message to send, as (stream, DATA chunk payload), oldest first.
    pub fn poll_send(&mut self) -> Option<(u16, Vec<u8>)> {
        self.outbox.pop_front()
    }

    /// One whole message received on `stream`: sorted into answers and per-stream inboxes.
    /// Malformed input is counted, never an error.
    pub fn on_message(&mut self, stream: u16, data: &[u8]) {
        if stream == MGMT_STREAM {
            match MgmtMessage::decode_response(data) {
                Ok(m) => {
                    if self.answers.len() >= MAX_ANSWERS {
                        self.answers.pop_front();
                        self.stats.bad_messages += 1;
                    }
                    self.answers.push_back(m)
                }
                Err(_) => self.stats.bad_messages += 1,
            }
            return;
        }
        let decoded = Encapsulated::decode_with(data, self.offload.as_mut());
        let Some(s) = self.streams.get_mut(&stream) else {
            match decoded {
                Ok(Encapsulated::Signal { prefix }) => {
                    let known = self.early.len();
                    let early = self.early.entry(stream).or_default();
                    if early.len() < MAX_EARLY && known <= MAX_EARLY {
                        early.push(prefix);
                    }
                }
                _ => self.stats.bad_messages += 1,
            }
            return;
        };
        match decoded {
            Ok(Encapsulated::Frame { prefix, frame }) => {
                s.credit.on_server_prefix(&prefix);
                self.stats.frames_received += 1;
                if s.inbox.len() < MAX_INBOX {
                    s.inbox.push_back((prefix, frame));
                } else {
                    self.stats.inbox_overflows += 1;
                }
            }
            Ok(Encapsulated::Signal { prefix }) => {
                s.credit.on_server_prefix(&prefix);
                self.stats.signals_received += 1;
            }
            Err(_) => self.stats.bad_messages += 1,
        }
    }

    /// Queues a request on stream 0 with the next tag; its answer is
    /// [`take_answer`](Self::take_answer)`(header.tag)`.
    pub fn start_request(
        &mut self,
        request: Request,
        body: MgmtBody,
        revision: Revision,
    ) -> Result<MgmtHeader, FcError> {
        let tag = self.next_tag;
        self.next_tag = self.next_tag.wrapping_add(1);
        let header = request_header(tag, revision, request);
        let bytes = MgmtMessage { header, body }.encode()?;
        self.outbox.push_back((MGMT_STREAM, bytes));
        Ok(header)
    }

    /// The answer with `tag`, if it has come.
    pub fn take_answer(&mut self, tag: u16) -> Option<MgmtMessage> {
        let i = self.answers.iter().position(|m| m.header.tag == tag)?;
        self.answers.remove(i)
    }

    /// Queues Assign Stream for `port`; finish with [`finish_assign`](Self::finish_assign).
    pub fn start_assign(
        &mut self,
        port: u16,
        priority: u8,
        time_limit_ms: u32,
        revision: Revision,
    ) -> Result<MgmtHeader, FcError> {
        let body = MgmtBody::Assign(AssignStream {
            port_or_stream: port,
            priority,
            time_limit_ms,
        });
        self.start_request(Request::AssignStream, body, revision)
    }

    /// Takes the answer to Assign Stream: on Good the stream is set up with login credit (and
    /// any credit prefixes that came before the answer); it is usable once
    /// [`stream_ready`](Self::stream_ready).
    pub fn finish_assign(
        &mut self,
        request: &MgmtHeader,
        answer: MgmtMessage,
    ) -> Result<AssignOutcome, FcError> {
        check_answer(request, &answer)?;
        let MgmtBody::Assign(a) = answer.body else {
            return Err(FcError::UnexpectedAnswer {
                tag: answer.header.tag,
            });
        };
        let outcome = AssignOutcome {
            response: answer.header.response,
            stream: a.port_or_stream,
            priority: a.priority,
            time_limit_ms: a.time_limit_ms,
        };
        if outcome.response == Response::Good {
            let mut credit = ClientCredit::new(self.login_credit);
            for p in self.early.remove(&outcome.stream).unwrap_or_default() {
                credit.on_server_prefix(&p);
            }
            self.streams.insert(
                outcome.stream,
                ClientStream {
                    credit,
                    inbox: VecDeque::new(),
                },
            );
        }
        Ok(outcome)
    }

    /// Whether the server has asserted login credit on an assigned stream.
    pub fn stream_ready(&self, stream: u16) -> bool {
        self.streams
            .get(&stream)
            .is_some_and(|s| s.credit.asserted())
    }

    /// The stream is released (the server answered Good to Release Stream).
    pub fn released(&mut self, stream: u16) {
        self.streams.remove(&stream);
    }

    /// Credit left on a stream.
    pub fn credit(&self, stream: u16) -> Option<u32> {
        self.streams.get(&stream).map(|s| s.credit.available())
    }

    /// Queues a frame if the stream has credit (false if not), stamped `timestamp_ms`.
    pub fn try_send_frame_at(
        &mut self,
        stream: u16,
        frame: &FcFrame,
        timestamp_ms: u32,
    ) -> Result<bool, FcError> {
        let s = self
            .streams
            .get_mut(&stream)
            .ok_or(FcError::NotAssigned { stream })?;
        if !s.credit.take() {
            return Ok(false);
        }
        let mut p = Prefix {
            timestamp_ms,
            crc_invalid: self.crc_invalid,
            ..Default::default()
        };
        s.credit.stamp(&mut p);
        let bytes = Encapsulated::Frame {
            prefix: p,
            frame: frame.clone(),
        }
        .encode_with(self.offload.as_mut())?;
        self.outbox.push_back((stream, bytes));
        self.stats.frames_sent += 1;
        Ok(true)
    }

    /// Queues a chunk's octets as given on `stream`, using a credit as a frame does (false if
    /// none is left): for checking how a peer treats malformed or corrupted chunks.
    pub fn send_raw(&mut self, stream: u16, chunk: &[u8]) -> Result<bool, FcError> {
        let s = self
            .streams
            .get_mut(&stream)
            .ok_or(FcError::NotAssigned { stream })?;
        if !s.credit.take() {
            return Ok(false);
        }
        self.outbox.push_back((stream, chunk.to_vec()));
        Ok(true)
    }

    /// The next frame received on `stream`, if one is waiting.
    pub fn take_frame(&mut self, stream: u16) -> Option<(Prefix, FcFrame)> {
        self.streams.get_mut(&stream)?.inbox.pop_front()
    }
}
