//! The MCTP transport header (DSP0236 §8.1, "MCTP packet fields").
//!
//! ```text
//! octet 0: reserved(7:4) · header version(3:0) = 0001b
//! octet 1: destination EID
//! octet 2: source EID
//! octet 3: SOM(7) · EOM(6) · packet sequence(5:4) · TO(3) · message tag(2:0)
//! ```
//!
//! The bit positions are public constants so the hardware generator (`offload-hdl`) builds its
//! packetizer and depacketizer from the same numbers.

/// Octets of the transport header.
pub const HEADER_LEN: usize = 4;
/// The only header version DSP0236 1.x defines (octet 0, bits 3:0).
pub const HEADER_VERSION: u8 = 0x01;
/// Octet 3: Start Of Message.
pub const SOM_BIT: u8 = 7;
/// Octet 3: End Of Message.
pub const EOM_BIT: u8 = 6;
/// Octet 3: packet sequence number, bits 5:4.
pub const SEQ_SHIFT: u8 = 4;
/// Packet sequence numbers count modulo this (2 bits).
pub const SEQ_MODULUS: u8 = 4;
/// Octet 3: Tag Owner.
pub const TO_BIT: u8 = 3;
/// Octet 3: message tag, bits 2:0.
pub const TAG_MASK: u8 = 0x07;
/// Largest message tag (3 bits).
pub const TAG_MAX: u8 = 7;

/// EID 0: the null EID (DSP0236 §8.2), used before an EID is assigned.
pub const EID_NULL: u8 = 0x00;
/// EID 0xFF: broadcast (DSP0236 §8.2); never a source.
pub const EID_BROADCAST: u8 = 0xFF;
/// EIDs 1–7 are reserved (DSP0236 §8.2).
pub const EID_RESERVED: std::ops::RangeInclusive<u8> = 1..=7;

/// Why four octets are not an MCTP transport header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    #[error("packet of {len} octets is shorter than the {HEADER_LEN}-octet MCTP header")]
    Short { len: usize },
    #[error("MCTP header version {version} in octet 0 (only {HEADER_VERSION} is defined)")]
    BadVersion { version: u8 },
    /// The kernel (`mctp_pkttype_receive`) compares the whole octet 0 with the version, so
    /// a packet with reserved bits set is dropped there too.
    #[error("reserved bits 7:4 of MCTP header octet 0 set (octet 0x{octet:02x})")]
    ReservedBits { octet: u8 },
    #[error("MCTP packet has no payload (DSP0236 requires at least one octet)")]
    EmptyPayload,
    #[error("packet sequence {seq} out of range 0..=3")]
    SeqOutOfRange { seq: u8 },
    #[error("message tag {tag} out of range 0..=7")]
    TagOutOfRange { tag: u8 },
}

/// One decoded transport header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    pub dst: u8,
    pub src: u8,
    pub som: bool,
    pub eom: bool,
    /// Packet sequence number, 0..=3.
    pub seq: u8,
    /// Tag Owner: set by the side that allocated the tag (the requester).
    pub tag_owner: bool,
    /// Message tag, 0..=7.
    pub tag: u8,
}

impl Header {
    /// Octet 3 (flags, sequence, TO, tag); fields must be in range.
    #[inline]
    pub(crate) fn flags_octet(&self) -> u8 {
        (u8::from(self.som) << SOM_BIT)
            | (u8::from(self.eom) << EOM_BIT)
            | ((self.seq & (SEQ_MODULUS - 1)) << SEQ_SHIFT)
            | (u8::from(self.tag_owner) << TO_BIT)
            | (self.tag & TAG_MASK)
    }

    /// The four header octets; a sequence number or tag too wide for its field is an error,
    /// never silently truncated.
    pub fn encode(&self) -> Result<[u8; HEADER_LEN], HeaderError> {
        if self.seq >= SEQ_MODULUS {
            return Err(HeaderError::SeqOutOfRange { seq: self.seq });
        }
        if self.tag > TAG_MAX {
            return Err(HeaderError::TagOutOfRange { tag: self.tag });
        }
        Ok(self.encode_unchecked())
    }

    #[inline]
    pub(crate) fn encode_unchecked(&self) -> [u8; HEADER_LEN] {
        [HEADER_VERSION, self.dst, self.src, self.flags_octet()]
    }

    /// Decodes the header at the start of `packet` (anything after it is the payload).
    pub fn decode(packet: &[u8]) -> Result<Header, HeaderError> {
        let Some(h) = packet.get(..HEADER_LEN) else {
            return Err(HeaderError::Short { len: packet.len() });
        };
        if h[0] & 0xF0 != 0 {
            return Err(HeaderError::ReservedBits { octet: h[0] });
        }
        if h[0] != HEADER_VERSION {
            return Err(HeaderError::BadVersion {
                version: h[0] & 0x0F,
            });
        }
        let f = h[3];
        Ok(Header {
            dst: h[1],
            src: h[2],
            som: f & (1 << SOM_BIT) != 0,
            eom: f & (1 << EOM_BIT) != 0,
            seq: (f >> SEQ_SHIFT) & (SEQ_MODULUS - 1),
            tag_owner: f & (1 << TO_BIT) != 0,
            tag: f & TAG_MASK,
        })
    }

    /// Splits a packet into its header and a non-empty payload.
    pub fn split(packet: &[u8]) -> Result<(Header, &[u8]), HeaderError> {
        let h = Header::decode(packet)?;
        let payload = &packet[HEADER_LEN..];
        if payload.is_empty() {
            return Err(HeaderError::EmptyPayload);
        }
        Ok((h, payload))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Hand-assembled headers, bit by bit from the DSP0236 layout.
    #[test]
    fn golden_headers() {
        let cases: [(Header, [u8; 4]); 4] = [
            // SOM|EOM, seq 0, TO, tag 0: 1100_1000
            (
                Header {
                    dst: 0x09,
                    src: 0x08,
                    som: true,
                    eom: true,
                    seq: 0,
                    tag_owner: true,
                    tag: 0,
                },
                [0x01, 0x09, 0x08, 0xC8],
            ),
            // middle, seq 2, no TO, tag 5: 0010_0101
            (
                Header {
                    dst: 0xFF,
                    src: 0x00,
                    som: false,
                    eom: false,
                    seq: 2,
                    tag_owner: false,
                    tag: 5,
                },
                [0x01, 0xFF, 0x00, 0x25],
            ),
            // EOM, seq 3, TO, tag 7: 0111_1111
            (
                Header {
                    dst: 0x1D,
                    src: 0x3A,
                    som: false,
                    eom: true,
                    seq: 3,
                    tag_owner: true,
                    tag: 7,
                },
                [0x01, 0x1D, 0x3A, 0x7F],
            ),
            // SOM only, seq 1, no TO, tag 2: 1001_0010
            (
                Header {
                    dst: 0x10,
                    src: 0x20,
                    som: true,
                    eom: false,
                    seq: 1,
                    tag_owner: false,
                    tag: 2,
                },
                [0x01, 0x10, 0x20, 0x92],
            ),
        ];
        for (h, wire) in cases {
            assert_eq!(h.encode().unwrap(), wire, "{h:?}");
            assert_eq!(Header::decode(&wire).unwrap(), h);
        }
    }

    #[test]
    fn decode_errors() {
        assert_eq!(
            Header::decode(&[0x01, 0x09, 0x08]),
            Err(HeaderError::Short { len: 3 })
        );
        assert_eq!(Header::decode(&[]), Err(HeaderError::Short { len: 0 }));
        assert_eq!(
            Header::decode(&[0x02, 9, 8, 0xC8]),
            Err(HeaderError::BadVersion { version: 2 })
        );
        assert_eq!(
            Header::decode(&[0x00, 9, 8, 0xC8]),
            Err(HeaderError::BadVersion { version: 0 })
        );
        assert_eq!(
            Header::decode(&[0x11, 9, 8, 0xC8]),
            Err(HeaderError::ReservedBits { octet: 0x11 })
        );
        assert_eq!(
            Header::split(&[0x01, 9, 8, 0xC8]),
            Err(HeaderError::EmptyPayload)
        );
        let (h, p) = Header::split(&[0x01, 9, 8, 0xC8, 0x84]).unwrap();
        assert_eq!((h.src, h.dst, p), (8, 9, &[0x84u8][..]));
    }

    #[test]
    fn encode_rejects_wide_fields() {
        let h = Header {
            dst: 9,
            src: 8,
            som: true,
            eom: true,
            seq: 4,
            tag_owner: false,
            tag: 0,
        };
        assert_eq!(h.encode(), Err(HeaderError::SeqOutOfRange { seq: 4 }));
        let h = Header {
            seq: 0,
            tag: 8,
            ..h
        };
        assert_eq!(h.encode(), Err(HeaderError::TagOutOfRange { tag: 8 }));
    }

    proptest! {
        #[test]
        fn roundtrip(dst: u8, src: u8, som: bool, eom: bool, seq in 0u8..4, to: bool, tag in 0u8..8) {
            let h = Header { dst, src, som, eom, seq, tag_owner: to, tag };
            let wire = h.encode().unwrap();
            prop_assert_eq!(Header::decode(&wire).unwrap(), h);
        }

        #[test]
        fn every_flags_octet_roundtrips(f: u8) {
            let h = Header::decode(&[0x01, 1, 2, f]).unwrap();
            prop_assert_eq!(h.encode().unwrap()[3], f);
        }
    }
}
