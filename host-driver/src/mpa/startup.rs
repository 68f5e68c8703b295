//! MPA connection startup (RFC 5044 §7.1): the Request/Reply frames and a sans-IO negotiation
//! machine for both roles.
//!
//! Frame (§7.1.1): 16-octet key · `M C R Res(5)` · Rev · PD_Length (16, big-endian) · private
//! data (≤ 512). M = "I require Markers in what I receive"; C = "I want CRCs" (CRCs are used in
//! both directions unless both sides clear C); R (Reply only) = rejected.
//! Who sends first (§7.1.2): the Initiator sends the Request and no FPDU before it has a valid
//! Reply; the Responder sends no FPDU before it has received and validated one FPDU from the
//! Initiator.

use super::FramingConfig;

/// Key of the Initiator's frame.
pub const REQUEST_KEY: &[u8; 16] = b"MPA ID Req Frame";
/// Key of the Responder's frame.
pub const REPLY_KEY: &[u8; 16] = b"MPA ID Rep Frame";
/// The only MPA revision RFC 5044 defines.
pub const REVISION: u8 = 1;
/// Largest private data either side may send.
pub const MAX_PRIVATE_DATA: usize = 512;
/// Fixed part of a startup frame.
pub const FRAME_HEADER_LEN: usize = 20;

const FLAG_M: u8 = 0x80;
const FLAG_C: u8 = 0x40;
const FLAG_R: u8 = 0x20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Request,
    Reply,
}

/// An MPA Request or Reply frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StartupFrame {
    pub kind: FrameKind,
    /// M: the sender requires Markers in what it receives.
    pub markers: bool,
    /// C: the sender wants CRCs.
    pub crc: bool,
    /// R: the Responder rejects the connection (Reply only).
    pub reject: bool,
    pub revision: u8,
    pub private_data: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartupError {
    #[error("startup frame key is not `MPA ID Req Frame` / `MPA ID Rep Frame`")]
    BadKey,
    #[error("expected an MPA {expected:?} frame, got a {found:?}")]
    UnexpectedFrame { expected: FrameKind, found: FrameKind },
    #[error("MPA revision {0} is not supported (only 1)")]
    Revision(u8),
    #[error("private data of {0} octets exceeds 512")]
    PrivateDataTooLong(usize),
    #[error("the R (reject) bit is set in a Request")]
    RejectInRequest,
    #[error("the Responder rejected the connection")]
    Rejected { private_data: Vec<u8> },
    #[error("{0} is not allowed in the current startup state")]
    State(&'static str),
}

impl StartupFrame {
    pub fn encode(&self) -> Result<Vec<u8>, StartupError> {
        if self.private_data.len() > MAX_PRIVATE_DATA {
            return Err(StartupError::PrivateDataTooLong(self.private_data.len()));
        }
        let mut v = Vec::with_capacity(FRAME_HEADER_LEN + self.private_data.len());
        v.extend_from_slice(match self.kind {
            FrameKind::Request => REQUEST_KEY,
            FrameKind::Reply => REPLY_KEY,
        });
        let flags = (if self.markers { FLAG_M } else { 0 })
            | (if self.crc { FLAG_C } else { 0 })
            | (if self.reject { FLAG_R } else { 0 });
        v.push(flags);
        v.push(self.revision);
        v.extend_from_slice(&(self.private_data.len() as u16).to_be_bytes());
        v.extend_from_slice(&self.private_data);
        Ok(v)
    }

    /// Decodes a frame from the start of `buf`: `Ok(None)` while more octets are needed,
    /// otherwise the frame and the octets it took. Reserved bits are ignored (§7.1.1); the
    /// revision is returned as sent, for the caller to judge.
    pub fn decode(buf: &[u8]) -> Result<Option<(StartupFrame, usize)>, StartupError> {
        let key_part = &buf[..buf.len().min(16)];
        let kind = if REQUEST_KEY.starts_with(key_part) && key_part.len() == 16 {
            FrameKind::Request
        } else if REPLY_KEY.starts_with(key_part) && key_part.len() == 16 {
            FrameKind::Reply
        } else if REQUEST_KEY.starts_with(key_part) || REPLY_KEY.starts_with(key_part) {
            return Ok(None);
        } else {
            return Err(StartupError::BadKey);
        };
        if buf.len() < FRAME_HEADER_LEN {
            return Ok(None);
        }
        let pd_len = u16::from_be_bytes([buf[18], buf[19]]) as usize;
        if pd_len > MAX_PRIVATE_DATA {
            return Err(StartupError::PrivateDataTooLong(pd_len));
        }
        let total = FRAME_HEADER_LEN + pd_len;
        if buf.len() < total {
            return Ok(None);
        }
        let flags = buf[16];
        Ok(Some((
            StartupFrame {
                kind,
                markers: flags & FLAG_M != 0,
                crc: flags & FLAG_C != 0,
                reject: flags & FLAG_R != 0,
                revision: buf[17],
                private_data: buf[FRAME_HEADER_LEN..total].to_vec(),
            },
            total,
        )))
    }
}

/// What this end asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalParams {
    /// M: require Markers in what we receive.
    pub markers: bool,
    /// C: want CRCs.
    pub crc: bool,
    pub private_data: Vec<u8>,
}

impl Default for LocalParams {
    /// CRCs on (the RFC's default, §4.4), no Markers.
    fn default() -> Self {
        LocalParams { markers: false, crc: true, private_data: Vec::new() }
    }
}

/// The outcome of startup, for both directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negotiated {
    /// We insert Markers because the peer asked (its M).
    pub tx_markers: bool,
    /// The peer inserts Markers because we asked (our M).
    pub rx_markers: bool,
    /// CRCs in both directions unless both cleared C.
    pub crc: bool,
    pub peer_private_data: Vec<u8>,
}

impl Negotiated {
    fn new(local: &LocalParams, peer: &StartupFrame) -> Self {
        Negotiated {
            tx_markers: peer.markers,
            rx_markers: local.markers,
            crc: local.crc || peer.crc,
            peer_private_data: peer.private_data.clone(),
        }
    }

    /// Framing of what we send, with our MULPDU.
    pub fn tx_framing(&self, mulpdu: usize) -> FramingConfig {
        FramingConfig { markers: self.tx_markers, crc: self.crc, mulpdu }
    }

    /// Framing of what we receive, with the MULPDU we accept.
    pub fn rx_framing(&self, mulpdu: usize) -> FramingConfig {
        FramingConfig { markers: self.rx_markers, crc: self.crc, mulpdu }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Initiator,
    Responder,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// Initiator: Request queued/sent, waiting for the Reply.
    AwaitReply,
    /// Responder: waiting for the Request.
    AwaitRequest,
    /// Responder: Request received, the ULP decides (accept or reject).
    Decide(StartupFrame),
    /// Full Operation; `may_send` is the who-sends-first rule.
    Full { negotiated: Negotiated, may_send: bool },
    /// Rejected (either side) or failed: the connection is to be closed.
    Closed,
}

/// Sans-IO MPA startup: feed it received octets, send what it queues.
#[derive(Clone, Debug)]
pub struct Startup {
    role: Role,
    local: LocalParams,
    state: State,
    inbuf: Vec<u8>,
    outbuf: Vec<u8>,
}

impl Startup {
    /// The Initiator: queues the Request at once.
    pub fn initiator(local: LocalParams) -> Result<Self, StartupError> {
        let request = StartupFrame {
            kind: FrameKind::Request,
            markers: local.markers,
            crc: local.crc,
            reject: false,
            revision: REVISION,
            private_data: local.private_data.clone(),
        };
        let outbuf = request.encode()?;
        Ok(Startup { role: Role::Initiator, local, state: State::AwaitReply, inbuf: Vec::new(), outbuf })
    }

    /// The Responder: waits for the Request.
    pub fn responder(local: LocalParams) -> Result<Self, StartupError> {
        if local.private_data.len() > MAX_PRIVATE_DATA {
            return Err(StartupError::PrivateDataTooLong(local.private_data.len()));
        }
        Ok(Startup { role: Role::Responder, local, state: State::AwaitRequest, inbuf: Vec::new(), outbuf: Vec::new() })
    }

    pub fn role(&self) -> Role {
        self.role
    }

    /// Octets to send now (drains the queue).
    pub fn transmit(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.outbuf)
    }

    /// Feeds received octets; returns how many belong to startup. The rest (if any) are the
    /// first octets of Full Operation and go to the deframer.
    pub fn receive(&mut self, data: &[u8]) -> Result<usize, StartupError> {
        let expected = match self.state {
            State::AwaitReply => FrameKind::Reply,
            State::AwaitRequest => FrameKind::Request,
            _ => return Ok(0),
        };
        let before = self.inbuf.len();
        // Never hold more than one whole frame: bounded memory on any input.
        let want = (FRAME_HEADER_LEN + MAX_PRIVATE_DATA).saturating_sub(before).min(data.len());
        self.inbuf.extend_from_slice(&data[..want]);
        let decoded = StartupFrame::decode(&self.inbuf).inspect_err(|_| self.state = State::Closed)?;
        let Some((frame, used)) = decoded else { return Ok(want) };
        let consumed = used - before;
        self.inbuf.clear();
        if frame.kind != expected {
            self.state = State::Closed;
            return Err(StartupError::UnexpectedFrame { expected, found: frame.kind });
        }
        match expected {
            FrameKind::Reply => {
                if frame.reject {
                    self.state = State::Closed;
                    return Err(StartupError::Rejected { private_data: frame.private_data });
                }
                if frame.revision != REVISION {
                    self.state = State::Closed;
                    return Err(StartupError::Revision(frame.revision));
                }
                let negotiated = Negotiated::new(&self.local, &frame);
                self.state = State::Full { negotiated, may_send: true };
            }
            FrameKind::Request => {
                if frame.reject {
                    self.state = State::Closed;
                    return Err(StartupError::RejectInRequest);
                }
                if frame.revision != REVISION {
                    // Tell the Initiator which revision we speak, then close (§7.1.1).
                    self.queue_reply(true, Vec::new())?;
                    self.state = State::Closed;
                    return Err(StartupError::Revision(frame.revision));
                }
                self.state = State::Decide(frame);
            }
        }
        Ok(consumed)
    }

    /// Responder: the Request waiting for a decision.
    pub fn request(&self) -> Option<&StartupFrame> {
        match &self.state {
            State::Decide(f) => Some(f),
            _ => None,
        }
    }

    /// Responder: accept the Request, queueing the Reply.
    pub fn accept(&mut self) -> Result<&Negotiated, StartupError> {
        let State::Decide(request) = &self.state else { return Err(StartupError::State("accept")) };
        let request = request.clone();
        // Echo C when the Initiator asked for CRCs: both then agree on the outcome.
        let crc = self.local.crc || request.crc;
        let pd = self.local.private_data.clone();
        self.queue_reply_flags(false, crc, pd)?;
        let mut negotiated = Negotiated::new(&self.local, &request);
        negotiated.crc = crc;
        self.state = State::Full { negotiated, may_send: false };
        match &self.state {
            State::Full { negotiated, .. } => Ok(negotiated),
            _ => unreachable!("state was just set"),
        }
    }

    /// Responder: reject the Request (R = 1) with optional private data; then close.
    pub fn reject(&mut self, private_data: Vec<u8>) -> Result<(), StartupError> {
        if !matches!(self.state, State::Decide(_)) {
            return Err(StartupError::State("reject"));
        }
        self.queue_reply(true, private_data)?;
        self.state = State::Closed;
        Ok(())
    }

    fn queue_reply(&mut self, reject: bool, private_data: Vec<u8>) -> Result<(), StartupError> {
        self.queue_reply_flags(reject, self.local.crc, private_data)
    }

    fn queue_reply_flags(&mut self, reject: bool, crc: bool, private_data: Vec<u8>) -> Result<(), StartupError> {
        let reply = StartupFrame {
            kind: FrameKind::Reply,
            markers: self.local.markers,
            crc,
            reject,
            revision: REVISION,
            private_data,
        };
        self.outbuf.extend_from_slice(&reply.encode()?);
        Ok(())
    }

    /// The negotiated parameters, once in Full Operation.
    pub fn negotiated(&self) -> Option<&Negotiated> {
        match &self.state {
            State::Full { negotiated, .. } => Some(negotiated),
            _ => None,
        }
    }

    /// Whether FPDUs may be sent now (§7.1.2).
    pub fn may_send_fpdu(&self) -> bool {
        matches!(self.state, State::Full { may_send: true, .. })
    }

    /// Responder: the first FPDU from the Initiator has been received and validated.
    pub fn first_fpdu_received(&mut self) {
        if let State::Full { may_send, .. } = &mut self.state {
            *may_send = true;
        }
    }

    pub fn is_closed(&self) -> bool {
        self.state == State::Closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(init: LocalParams, resp: LocalParams) -> (Startup, Startup) {
        let mut i = Startup::initiator(init).unwrap();
        let mut r = Startup::responder(resp).unwrap();
        assert!(!i.may_send_fpdu());
        let req = i.transmit();
        // Deliver one octet at a time: framing must not depend on segmentation.
        for b in &req {
            assert_eq!(r.receive(std::slice::from_ref(b)).unwrap(), 1);
        }
        assert!(r.request().is_some());
        r.accept().unwrap();
        assert!(!r.may_send_fpdu(), "Responder waits for the Initiator's first FPDU");
        let mut rep = r.transmit();
        rep.extend_from_slice(&[0xAA, 0xBB]); // first FPDU octets piggybacked
        assert_eq!(i.receive(&rep).unwrap(), rep.len() - 2);
        assert!(i.may_send_fpdu());
        r.first_fpdu_received();
        assert!(r.may_send_fpdu());
        (i, r)
    }

    #[test]
    fn frame_bytes_exact() {
        let f = StartupFrame {
            kind: FrameKind::Request,
            markers: true,
            crc: true,
            reject: false,
            revision: 1,
            private_data: vec![1, 2, 3],
        };
        let v = f.encode().unwrap();
        assert_eq!(&v[..16], &[0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6D, 0x65]);
        assert_eq!(&v[16..], &[0xC0, 0x01, 0x00, 0x03, 1, 2, 3]);
        assert_eq!(StartupFrame::decode(&v).unwrap(), Some((f, 23)));
        assert_eq!(StartupFrame::decode(&v[..22]).unwrap(), None);
        assert_eq!(&REPLY_KEY[7..11], &[0x52, 0x65, 0x70, 0x20]);
        // Reserved bits are ignored on receipt.
        let mut r = v.clone();
        r[16] |= 0x1F;
        assert!(StartupFrame::decode(&r).unwrap().is_some());
    }

    #[test]
    fn bad_frames() {
        assert_eq!(StartupFrame::decode(b"MPA ID Xeq Frame\0\x01\0\0"), Err(StartupError::BadKey));
        assert_eq!(StartupFrame::decode(b"GET / HTTP/1.1"), Err(StartupError::BadKey));
        let mut v = REQUEST_KEY.to_vec();
        v.extend_from_slice(&[0x40, 1, 0x02, 0x01]); // PD_Length 513
        assert_eq!(StartupFrame::decode(&v), Err(StartupError::PrivateDataTooLong(513)));
        let long = StartupFrame {
            kind: FrameKind::Reply,
            markers: false,
            crc: true,
            reject: false,
            revision: 1,
            private_data: vec![0; 513],
        };
        assert_eq!(long.encode(), Err(StartupError::PrivateDataTooLong(513)));
    }

    #[test]
    fn negotiation_matrix() {
        for im in [false, true] {
            for ic in [false, true] {
                for rm in [false, true] {
                    for rc in [false, true] {
                        let (i, r) = run(
                            LocalParams { markers: im, crc: ic, private_data: b"init".to_vec() },
                            LocalParams { markers: rm, crc: rc, private_data: b"resp".to_vec() },
                        );
                        let ni = i.negotiated().unwrap();
                        let nr = r.negotiated().unwrap();
                        assert_eq!(ni.tx_markers, rm);
                        assert_eq!(ni.rx_markers, im);
                        assert_eq!(nr.tx_markers, im);
                        assert_eq!(nr.rx_markers, rm);
                        assert_eq!(ni.crc, ic || rc);
                        assert_eq!(nr.crc, ic || rc);
                        assert_eq!(ni.peer_private_data, b"resp");
                        assert_eq!(nr.peer_private_data, b"init");
                    }
                }
            }
        }
    }

    #[test]
    fn reject_and_revision() {
        let mut i = Startup::initiator(LocalParams::default()).unwrap();
        let mut r = Startup::responder(LocalParams::default()).unwrap();
        r.receive(&i.transmit()).unwrap();
        r.reject(b"no".to_vec()).unwrap();
        assert!(r.is_closed());
        let e = i.receive(&r.transmit()).unwrap_err();
        assert_eq!(e, StartupError::Rejected { private_data: b"no".to_vec() });
        assert!(i.is_closed() && !i.may_send_fpdu());

        // A Request with revision 2: the Responder answers with a reject carrying Rev 1.
        let mut r = Startup::responder(LocalParams::default()).unwrap();
        let mut req = StartupFrame {
            kind: FrameKind::Request,
            markers: false,
            crc: true,
            reject: false,
            revision: 2,
            private_data: vec![],
        }
        .encode()
        .unwrap();
        assert_eq!(r.receive(&req), Err(StartupError::Revision(2)));
        let (reply, _) = StartupFrame::decode(&r.transmit()).unwrap().unwrap();
        assert!(reply.reject && reply.revision == 1 && reply.kind == FrameKind::Reply);

        // A Reply where a Request was expected.
        let mut r = Startup::responder(LocalParams::default()).unwrap();
        req[..16].copy_from_slice(REPLY_KEY);
        req[17] = 1;
        assert!(matches!(r.receive(&req), Err(StartupError::UnexpectedFrame { .. })));
        // accept outside Decide is a state error.
        assert_eq!(r.accept().unwrap_err(), StartupError::State("accept"));
    }
}
