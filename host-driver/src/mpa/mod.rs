//! MPA, Marker PDU Aligned framing for TCP (RFC 5044): the iWARP layer between DDP and TCP.
//!
//! - [`framer`]: ULPDU → FPDU byte stream, with PAD, CRC-32C and Markers every 512 octets
//!   (§4.1–4.4). The hardware MPA TX block is checked against it byte for byte.
//! - [`deframer`]: the inverse, over a byte stream cut anywhere, validating every CRC, Marker
//!   and length.
//! - [`startup`]: the MPA Request/Reply frames and a sans-IO negotiation machine (§7.1).
//! - [`tcp`]: the two above over `std::net::TcpStream`.
//! - [`hardware`]: the hardware receiver's status codes and contract, as a host reads them.
//!
//! Offsets are counted in octets from the first octet of Full Operation in one direction (the
//! first Marker sits at offset 0): RFC 5044 counts them in TCP sequence space relative to that
//! point, which is the same modulo 512.

pub mod deframer;
pub mod framer;
pub mod hardware;
pub mod startup;
pub mod tcp;

pub use deframer::{Deframed, Deframer};
pub use framer::Framer;

/// Octets between the starts of two Markers (§4.3).
pub const MARKER_INTERVAL: u64 = 512;
/// A Marker: 16-bit reserved, 16-bit FPDUPTR (§4.2).
pub const MARKER_LEN: usize = 4;
/// The FPDUPTR bits a Marker check compares: the low two bits count as zero (§4.2). The
/// deframer and the MPA RX hardware (`offload_hdl::mpa_rx`) both mask with it.
pub const FPDUPTR_MASK: u16 = !3;
/// The ULPDU_Length field (§4.1).
pub const HEADER_LEN: usize = 2;
/// The CRC field (§4.1); present even when CRCs are off.
pub const CRC_LEN: usize = 4;
/// Largest ULPDU DDP may post (§3).
pub const MAX_ULPDU: usize = 64768;
/// MULPDU is never below this (§4.5).
pub const MIN_MULPDU: usize = 128;

/// How one direction of a connection is framed: what startup negotiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FramingConfig {
    /// Markers inserted every 512 octets (the receiver's M bit).
    pub markers: bool,
    /// CRC-32C generated and checked (unless both sides cleared C).
    pub crc: bool,
    /// Largest ULPDU accepted, in octets (1..=64768).
    pub mulpdu: usize,
}

impl FramingConfig {
    /// Markers and CRC on, MULPDU the largest the RFC allows: the strictest framing.
    pub const fn full(mulpdu: usize) -> Self {
        FramingConfig { markers: true, crc: true, mulpdu }
    }
}

impl Default for FramingConfig {
    fn default() -> Self {
        FramingConfig { markers: true, crc: true, mulpdu: MAX_ULPDU }
    }
}

/// MULPDU for an EMSS (§4.5): with Markers `EMSS − (6 + 4·⌈EMSS/512⌉ + EMSS mod 4)`, without
/// `EMSS − (6 + EMSS mod 4)`; never below 128 and never above 64768.
pub fn mulpdu_for_emss(emss: usize, markers: bool) -> usize {
    let marker_room = if markers { MARKER_LEN * emss.div_ceil(MARKER_INTERVAL as usize) } else { 0 };
    let overhead = HEADER_LEN + CRC_LEN + marker_room + emss % 4;
    emss.saturating_sub(overhead).clamp(MIN_MULPDU, MAX_ULPDU)
}

/// The smallest EMSS whose MULPDU (by [`mulpdu_for_emss`]) is at least `mulpdu`: the other way
/// round, for a ULP that knows the ULPDU size it wants and asks what segment size carries it.
pub fn emss_for_mulpdu(mulpdu: usize, markers: bool) -> usize {
    // MULPDU grows monotonically with EMSS apart from the mod-4 wiggle, so scan from below.
    let mut emss = mulpdu + HEADER_LEN + CRC_LEN;
    while mulpdu_for_emss(emss, markers) < mulpdu {
        emss += 1;
    }
    emss
}

/// PAD octets after a ULPDU of `len` octets so the FPDU (header + ULPDU + PAD) is a multiple of 4.
pub const fn pad_len(len: usize) -> usize {
    (4 - (HEADER_LEN + len) % 4) % 4
}

/// Octets a ULPDU of `len` occupies on the wire, Markers included, when its FPDU starts at
/// stream offset `offset`.
pub fn fpdu_wire_len(len: usize, offset: u64, markers: bool) -> usize {
    let body = HEADER_LEN + len + pad_len(len) + CRC_LEN;
    if !markers {
        return body;
    }
    // Markers are due at every multiple of 512 reached while octets remain to be sent.
    let mut pos = offset;
    let mut left = body as u64;
    let mut wire = 0u64;
    while left > 0 {
        if pos % MARKER_INTERVAL == 0 {
            pos += MARKER_LEN as u64;
            wire += MARKER_LEN as u64;
        }
        let run = left.min(MARKER_INTERVAL - pos % MARKER_INTERVAL);
        pos += run;
        wire += run;
        left -= run;
    }
    wire as usize
}

/// What went wrong in MPA framing or deframing; every variant that concerns the byte stream
/// names the stream offset it was found at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MpaError {
    #[error("ULPDU of {len} octets is outside 1..={mulpdu} (MULPDU)")]
    UlpduLength { len: usize, mulpdu: usize },
    #[error("MULPDU {0} is outside 1..=64768")]
    Mulpdu(usize),
    #[error("stream offset {0} is not a multiple of 4 (FPDUs and Markers are 4-octet aligned)")]
    MisalignedOffset(u64),
    #[error("at stream offset {offset}: ULPDU_Length {len} is outside 1..={mulpdu} (MULPDU)")]
    BadLength { offset: u64, len: usize, mulpdu: usize },
    #[error("at stream offset {offset}: Marker FPDUPTR {found:#06x}, expected {expected:#06x}")]
    BadMarker { offset: u64, expected: u16, found: u16 },
    #[error("FPDU at stream offset {offset}: CRC {found:#010x}, computed {computed:#010x}")]
    BadCrc { offset: u64, computed: u32, found: u32 },
    #[error("stream ends at offset {offset} inside an FPDU")]
    Truncated { offset: u64 },
    #[error("the deframer stopped at an earlier error (at stream offset {offset}); MPA ends the connection there (RFC 5044 §8)")]
    Closed { offset: u64 },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mulpdu_formula() {
        // EMSS 1460 (Ethernet): markers: 1460 - (6 + 4*3 + 0) = 1442; none: 1454.
        assert_eq!(mulpdu_for_emss(1460, true), 1442);
        assert_eq!(mulpdu_for_emss(1460, false), 1454);
        // EMSS 8960 (jumbo): markers 8960 - (6 + 4*18 + 0) = 8882.
        assert_eq!(mulpdu_for_emss(8960, true), 8882);
        // mod-4 term: 1461 - (6 + 12 + 1) = 1442
        assert_eq!(mulpdu_for_emss(1461, true), 1442);
        assert_eq!(mulpdu_for_emss(100, true), MIN_MULPDU);
        assert_eq!(mulpdu_for_emss(1 << 20, false), MAX_ULPDU);
        for m in [false, true] {
            for want in [128usize, 500, 1442, 4096, 8882] {
                let e = emss_for_mulpdu(want, m);
                assert!(mulpdu_for_emss(e, m) >= want);
                assert!((want + 6..e).all(|smaller| mulpdu_for_emss(smaller, m) < want));
            }
        }
    }

    #[test]
    fn pad_and_wire_len() {
        assert_eq!(pad_len(42), 0);
        assert_eq!(pad_len(16), 2);
        assert_eq!(pad_len(1), 1);
        assert_eq!(pad_len(3), 3);
        // Figure 5: 42-octet ULPDU at offset 0 → Marker + 48 octets.
        assert_eq!(fpdu_wire_len(42, 0, true), 52);
        // Figure 6: at offset 0x1ec, a Marker at 0x200.
        assert_eq!(fpdu_wire_len(42, 0x1ec, true), 52);
        assert_eq!(fpdu_wire_len(42, 4, true), 48);
        assert_eq!(fpdu_wire_len(42, 0, false), 48);
    }
}
