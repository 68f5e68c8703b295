//! Fibre Channel over SCTP (the FC/SCTP/IP Internet-Draft, `fc-over-sctp-draft.txt`): FC
//! frames carried one per SCTP DATA chunk behind an 8-octet prefix, stream 0 for management,
//! data sent unordered on assigned streams.
//!
//! - [`delimiter`]: SOF/EOF byte codes and ordered sets (Annex A), ordered-set sequences;
//! - [`header`]: the 24-octet frame header and the F_CTL flags;
//! - [`frame`]: the frame codec with optional headers and the FC CRC (through [`Offload`]);
//! - [`prefix`]: the 8-octet prefix and a whole DATA chunk payload ([`Encapsulated`]);
//! - [`mgmt`]: stream-0 management messages; [`stream`]: the server's stream table (time
//!   limits, stale-frame drops); [`credit`]: C/Tcredit accounting;
//! - [`fcp`]: Class 3 SCSI-FCP framing and a simulated FC port with an FCP target;
//! - [`transport`]: SCTP over UDP (RFC 6951) with the user-space `sctp-proto` stack;
//! - [`server`], [`client`]: the two ends' protocol cores, sans-IO (the server agent bridging
//!   to the simulated port; the client's requests, credit and inboxes);
//! - [`agent`]: their I/O drivers over [`transport`].
//!
//! [`Offload`]: crate::Offload

pub mod agent;
pub mod client;
pub mod credit;
pub mod delimiter;
pub mod fcp;
pub mod frame;
pub mod header;
pub mod mgmt;
pub mod prefix;
pub mod server;
pub mod stream;
pub mod transport;

pub use delimiter::{Eof, OrderedSet, Oss, PrimitiveSignal, Sof};
pub use frame::{fc_crc, CrcCheck, FcFrame, OptionalHeaders, MAX_DATA_FIELD};
pub use header::{FCtl, FcHeader, HEADER_LEN};
pub use mgmt::{AssignStream, MgmtBody, MgmtHeader, MgmtMessage, Request, Response, Revision};
pub use prefix::{Encapsulated, Prefix, PREFIX_LEN};
pub use stream::{Admit, ServerConfig, StreamManager, StreamStats};

/// Everything that can be wrong with FC/SCTP input or a request to encode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FcError {
    #[error("{what} truncated: {have} octets, at least {need} needed")]
    Truncated {
        what: &'static str,
        need: usize,
        have: usize,
    },
    #[error("SOF code 0x{code:02x} is not in Annex A")]
    UnknownSof { code: u8 },
    #[error("EOF code 0x{code:02x} is not in Annex A")]
    UnknownEof { code: u8 },
    #[error("ordered set {word:02x?} is not a delimiter of Annex A")]
    UnknownOrderedSet { word: [u8; 4] },
    #[error("OSS code {code} is not in Annex A.3")]
    UnknownOss { code: u8 },
    #[error("{field} value 0x{value:x} does not fit in {bits} bits")]
    FieldTooWide {
        field: &'static str,
        value: u32,
        bits: u8,
    },
    #[error("prefix has one of SOF/EOF zero and the other not")]
    HalfDelimited,
    #[error("data field of {len} octets exceeds {max}")]
    DataFieldTooLong { len: usize, max: usize },
    #[error("data field of {len} octets is not a whole number of words")]
    NotWordAligned { len: usize },
    #[error("FC CRC mismatch: computed 0x{expected:08x}, frame carries 0x{found:08x}")]
    BadCrc { expected: u32, found: u32 },
    #[error("{name} optional header is not supported")]
    UnsupportedOptionalHeader { name: &'static str },
    #[error("device header of {len} octets: it must be 16, 32 or 64")]
    BadDeviceHeader { len: usize },
    #[error("F_CTL announces {fill} fill octets but the payload has {payload}")]
    FillExceedsPayload { fill: usize, payload: usize },
    #[error("CRC offload: {message}")]
    Offload { message: String },
    #[error("management response code {code} is not defined")]
    UnknownResponse { code: u16 },
    #[error("{request} arguments of {len} octets have the wrong length")]
    BadMgmtLength { request: &'static str, len: usize },
    #[error("revision list: {reason}")]
    BadRevisionList { reason: &'static str },
    #[error("management answer with tag {tag} does not match the request")]
    UnexpectedAnswer { tag: u16 },
    #[error("stream {stream} is not assigned to this client")]
    NotAssigned { stream: u16 },
    #[error("FCP: {reason}")]
    Fcp { reason: &'static str },
}
