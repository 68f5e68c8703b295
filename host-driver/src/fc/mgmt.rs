//! Stream-0 management messages (the draft's "Stream Management", Figs. 1–4).
//!
//! ```text
//! header:  Request Tag (16) | Revision Major (8) | Revision Minor (8)
//!          Management Request (16) | Management Response (16)
//! Report Supported Revisions: request has no arguments; the response lists revisions
//!          highest first, two per word, the last one 0.0 (mandatory)
//! Assign Stream:  Physical Port/Stream (16) | Priority (8) | Reserved (8)
//!                 Time Limit, milliseconds (32)
//! Release Stream: Stream (16) | Reserved (16)
//! ```
//! The request header and arguments are echoed in the response, with the response code set
//! (and, for Assign Stream, the port field replaced by the stream assigned, or zero).
//! Requests and responses have the same shape, so the decoder is told which it reads.

use super::FcError;

pub const MGMT_HEADER_LEN: usize = 8;
pub const ASSIGN_LEN: usize = 8;
pub const RELEASE_LEN: usize = 4;
/// The revision every implementation supports and every revision list ends with.
pub const REVISION_0_0: Revision = Revision { major: 0, minor: 0 };

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Revision {
    /// Compatibility level.
    pub major: u8,
    /// Additional features.
    pub minor: u8,
}

impl std::fmt::Display for Revision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl std::str::FromStr for Revision {
    type Err = String;
    fn from_str(s: &str) -> Result<Revision, String> {
        let (a, b) = s
            .split_once('.')
            .ok_or_else(|| format!("revision `{s}` is not MAJOR.MINOR"))?;
        let p = |x: &str| x.parse::<u8>().map_err(|e| format!("revision `{s}`: {e}"));
        Ok(Revision {
            major: p(a)?,
            minor: p(b)?,
        })
    }
}

/// Management Request codes; other values are kept so the server can answer them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Request {
    ReportRevisions,
    AssignStream,
    ReleaseStream,
    Other(u16),
}

impl Request {
    pub fn code(self) -> u16 {
        match self {
            Request::ReportRevisions => 0,
            Request::AssignStream => 1,
            Request::ReleaseStream => 2,
            Request::Other(c) => c,
        }
    }

    pub fn from_code(c: u16) -> Request {
        match c {
            0 => Request::ReportRevisions,
            1 => Request::AssignStream,
            2 => Request::ReleaseStream,
            c => Request::Other(c),
        }
    }
}

/// Management Response codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Response {
    /// Also what a client puts in a request.
    #[default]
    Good,
    InvalidRequest,
    UnavailableResource,
    Busy,
    Refused,
    RevisionConflict,
}

impl Response {
    pub const ALL: [Response; 6] = [
        Response::Good,
        Response::InvalidRequest,
        Response::UnavailableResource,
        Response::Busy,
        Response::Refused,
        Response::RevisionConflict,
    ];

    pub fn code(self) -> u16 {
        Response::ALL
            .iter()
            .position(|r| *r == self)
            .expect("in ALL") as u16
    }

    pub fn from_code(c: u16) -> Result<Response, FcError> {
        Response::ALL
            .get(c as usize)
            .copied()
            .ok_or(FcError::UnknownResponse { code: c })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MgmtHeader {
    pub tag: u16,
    pub revision: Revision,
    pub request: u16,
    pub response: Response,
}

impl MgmtHeader {
    pub fn request(&self) -> Request {
        Request::from_code(self.request)
    }

    pub fn encode(&self) -> [u8; MGMT_HEADER_LEN] {
        let mut b = [0u8; MGMT_HEADER_LEN];
        b[0..2].copy_from_slice(&self.tag.to_be_bytes());
        b[2] = self.revision.major;
        b[3] = self.revision.minor;
        b[4..6].copy_from_slice(&self.request.to_be_bytes());
        b[6..8].copy_from_slice(&self.response.code().to_be_bytes());
        b
    }

    pub fn decode(b: &[u8]) -> Result<MgmtHeader, FcError> {
        if b.len() < MGMT_HEADER_LEN {
            return Err(FcError::Truncated {
                what: "management header",
                need: MGMT_HEADER_LEN,
                have: b.len(),
            });
        }
        Ok(MgmtHeader {
            tag: u16::from_be_bytes([b[0], b[1]]),
            revision: Revision {
                major: b[2],
                minor: b[3],
            },
            request: u16::from_be_bytes([b[4], b[5]]),
            response: Response::from_code(u16::from_be_bytes([b[6], b[7]]))?,
        })
    }
}

/// Assign Stream arguments (Fig. 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AssignStream {
    /// The physical port asked for; in a Good response, the stream assigned (else 0).
    pub port_or_stream: u16,
    /// Advisory priority; the server may lower it.
    pub priority: u8,
    /// Frames older than this are dropped; 0 = no limit (and the timestamp is not valid). The
    /// server may adjust it.
    pub time_limit_ms: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MgmtBody {
    /// Report Supported Revisions: empty in the request, the list in the response.
    Revisions(Vec<Revision>),
    Assign(AssignStream),
    Release {
        stream: u16,
    },
    /// Arguments of a request code this implementation does not know, echoed as they came.
    Other(Vec<u8>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MgmtMessage {
    pub header: MgmtHeader,
    pub body: MgmtBody,
}

impl MgmtMessage {
    pub fn encode(&self) -> Result<Vec<u8>, FcError> {
        let mut out = self.header.encode().to_vec();
        match &self.body {
            MgmtBody::Revisions(list) => encode_revisions(list, &mut out)?,
            MgmtBody::Assign(a) => {
                out.extend_from_slice(&a.port_or_stream.to_be_bytes());
                out.push(a.priority);
                out.push(0);
                out.extend_from_slice(&a.time_limit_ms.to_be_bytes());
            }
            MgmtBody::Release { stream } => {
                out.extend_from_slice(&stream.to_be_bytes());
                out.extend_from_slice(&[0, 0]);
            }
            MgmtBody::Other(b) => out.extend_from_slice(b),
        }
        Ok(out)
    }

    /// Decodes a request (what a server reads). Reserved fields are ignored.
    pub fn decode_request(b: &[u8]) -> Result<MgmtMessage, FcError> {
        let header = MgmtHeader::decode(b)?;
        let args = &b[MGMT_HEADER_LEN..];
        let body = match header.request() {
            Request::ReportRevisions => {
                if !args.is_empty() {
                    return Err(FcError::BadMgmtLength {
                        request: "Report Supported Revisions",
                        len: args.len(),
                    });
                }
                MgmtBody::Revisions(Vec::new())
            }
            Request::AssignStream => MgmtBody::Assign(decode_assign(args)?),
            Request::ReleaseStream => MgmtBody::Release {
                stream: decode_release(args)?,
            },
            Request::Other(_) => MgmtBody::Other(args.to_vec()),
        };
        Ok(MgmtMessage { header, body })
    }

    /// Decodes a response (what a client reads).
    pub fn decode_response(b: &[u8]) -> Result<MgmtMessage, FcError> {
        let header = MgmtHeader::decode(b)?;
        let args = &b[MGMT_HEADER_LEN..];
        let body = match header.request() {
            Request::ReportRevisions if header.response == Response::Good || !args.is_empty() => {
                MgmtBody::Revisions(decode_revisions(args)?)
            }
            Request::ReportRevisions => MgmtBody::Revisions(Vec::new()),
            Request::AssignStream => MgmtBody::Assign(decode_assign(args)?),
            Request::ReleaseStream => MgmtBody::Release {
                stream: decode_release(args)?,
            },
            Request::Other(_) => MgmtBody::Other(args.to_vec()),
        };
        Ok(MgmtMessage { header, body })
    }
}

fn decode_assign(args: &[u8]) -> Result<AssignStream, FcError> {
    if args.len() != ASSIGN_LEN {
        return Err(FcError::BadMgmtLength {
            request: "Assign Stream",
            len: args.len(),
        });
    }
    Ok(AssignStream {
        port_or_stream: u16::from_be_bytes([args[0], args[1]]),
        priority: args[2],
        time_limit_ms: u32::from_be_bytes([args[4], args[5], args[6], args[7]]),
    })
}

fn decode_release(args: &[u8]) -> Result<u16, FcError> {
    if args.len() != RELEASE_LEN {
        return Err(FcError::BadMgmtLength {
            request: "Release Stream",
            len: args.len(),
        });
    }
    Ok(u16::from_be_bytes([args[0], args[1]]))
}

/// Highest first, strictly descending, ending with 0.0; padded with one 0.0 pair to a whole
/// word when the count is odd (**decision**: the figure shows whole words; the pad is
/// recognisable because the list has already ended).
fn check_revisions(list: &[Revision]) -> Result<(), FcError> {
    if list.last() != Some(&REVISION_0_0) {
        return Err(FcError::BadRevisionList {
            reason: "the last revision must be 0.0",
        });
    }
    if list.windows(2).any(|w| w[0] <= w[1]) {
        return Err(FcError::BadRevisionList {
            reason: "revisions must be listed highest to lowest, once each",
        });
    }
    Ok(())
}

fn encode_revisions(list: &[Revision], out: &mut Vec<u8>) -> Result<(), FcError> {
    if list.is_empty() {
        return Ok(()); // the request form
    }
    check_revisions(list)?;
    for r in list {
        out.extend_from_slice(&[r.major, r.minor]);
    }
    if list.len() % 2 == 1 {
        out.extend_from_slice(&[0, 0]);
    }
    Ok(())
}

fn decode_revisions(args: &[u8]) -> Result<Vec<Revision>, FcError> {
    if args.len() % 4 != 0 {
        return Err(FcError::BadMgmtLength {
            request: "Report Supported Revisions",
            len: args.len(),
        });
    }
    let mut list = Vec::new();
    for (i, pair) in args.chunks_exact(2).enumerate() {
        let r = Revision {
            major: pair[0],
            minor: pair[1],
        };
        list.push(r);
        if r == REVISION_0_0 {
            let rest = &args[(i + 1) * 2..];
            // Only the pad pair may follow the terminator.
            if rest.len() > 2 || rest.iter().any(|&b| b != 0) {
                return Err(FcError::BadRevisionList {
                    reason: "octets after the terminating 0.0",
                });
            }
            check_revisions(&list)?;
            return Ok(list);
        }
    }
    Err(FcError::BadRevisionList {
        reason: "no terminating 0.0",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hdr(request: Request, response: Response) -> MgmtHeader {
        MgmtHeader {
            tag: 0xBEEF,
            revision: Revision { major: 1, minor: 2 },
            request: request.code(),
            response,
        }
    }

    #[test]
    fn layouts_from_figures_1_to_4() {
        let a = MgmtMessage {
            header: hdr(Request::AssignStream, Response::Good),
            body: MgmtBody::Assign(AssignStream {
                port_or_stream: 0x0003,
                priority: 7,
                time_limit_ms: 500,
            }),
        };
        let b = a.encode().unwrap();
        assert_eq!(
            b,
            [0xBE, 0xEF, 1, 2, 0, 1, 0, 0, 0, 3, 7, 0, 0, 0, 0x01, 0xF4]
        );
        assert_eq!(MgmtMessage::decode_request(&b).unwrap(), a);

        let r = MgmtMessage {
            header: hdr(Request::ReleaseStream, Response::InvalidRequest),
            body: MgmtBody::Release { stream: 9 },
        };
        let b = r.encode().unwrap();
        assert_eq!(b, [0xBE, 0xEF, 1, 2, 0, 2, 0, 1, 0, 9, 0, 0]);
        assert_eq!(MgmtMessage::decode_response(&b).unwrap(), r);

        let q = MgmtMessage {
            header: hdr(Request::ReportRevisions, Response::Good),
            body: MgmtBody::Revisions(vec![]),
        };
        assert_eq!(q.encode().unwrap().len(), 8);
        assert_eq!(
            MgmtMessage::decode_request(&q.encode().unwrap()).unwrap(),
            q
        );
    }

    #[test]
    fn revision_lists() {
        for list in [
            vec![REVISION_0_0],
            vec![Revision { major: 1, minor: 0 }, REVISION_0_0],
            vec![
                Revision { major: 2, minor: 1 },
                Revision { major: 1, minor: 0 },
                REVISION_0_0,
            ],
        ] {
            let m = MgmtMessage {
                header: hdr(Request::ReportRevisions, Response::Good),
                body: MgmtBody::Revisions(list.clone()),
            };
            let b = m.encode().unwrap();
            assert_eq!((b.len() - 8) % 4, 0);
            assert_eq!(MgmtMessage::decode_response(&b).unwrap(), m, "{list:?}");
        }
        let base = hdr(Request::ReportRevisions, Response::Good).encode();
        let resp = |args: &[u8]| MgmtMessage::decode_response(&[&base[..], args].concat());
        assert!(resp(&[1, 0, 2, 0, 0, 0, 0, 0]).is_err(), "ascending");
        assert!(resp(&[1, 0, 1, 0]).is_err(), "no terminator");
        assert!(resp(&[0, 0, 0, 1]).is_err(), "junk after the terminator");
        assert!(
            resp(&[0, 0, 0, 0, 0, 0, 0, 0]).is_err(),
            "more than one pad pair"
        );
        assert!(resp(&[1, 0, 0, 0, 0]).is_err(), "not whole words");
        assert!(resp(&[1, 0, 0, 0]).is_ok());
        let bad = MgmtMessage {
            header: hdr(Request::ReportRevisions, Response::Good),
            body: MgmtBody::Revisions(vec![Revision { major: 1, minor: 0 }]),
        };
        assert!(bad.encode().is_err());
    }

    #[test]
    fn every_response_code() {
        for (i, r) in Response::ALL.into_iter().enumerate() {
            assert_eq!(r.code() as usize, i);
            assert_eq!(Response::from_code(i as u16).unwrap(), r);
        }
        assert_eq!(
            Response::from_code(6),
            Err(FcError::UnknownResponse { code: 6 })
        );
    }

    #[test]
    fn wrong_lengths_and_unknown_requests() {
        let h = hdr(Request::AssignStream, Response::Good).encode();
        assert!(matches!(
            MgmtMessage::decode_request(&[&h[..], &[0; 7]].concat()),
            Err(FcError::BadMgmtLength { .. })
        ));
        let h = hdr(Request::ReportRevisions, Response::Good).encode();
        assert!(MgmtMessage::decode_request(&[&h[..], &[0; 4]].concat()).is_err());
        let h = hdr(Request::Other(77), Response::Good).encode();
        let m = MgmtMessage::decode_request(&[&h[..], &[1, 2, 3]].concat()).unwrap();
        assert_eq!(m.body, MgmtBody::Other(vec![1, 2, 3]));
        assert!(MgmtHeader::decode(&[0; 7]).is_err());
        assert_eq!(
            "1.0".parse::<Revision>().unwrap(),
            Revision { major: 1, minor: 0 }
        );
        assert!("1".parse::<Revision>().is_err());
    }
}
