//! The MCTP SMBus/I2C transport binding (DSP0237 §6, "Packet format").
//!
//! ```text
//! dest slave addr<<1 (W=0) · command code 0x0F · byte count · src slave addr<<1 | 1
//!   · MCTP packet · PEC
//! ```
//! The byte count is the number of octets after it, the PEC excluded (so the source address
//! octet plus the MCTP packet). The PEC is CRC-8/SMBUS over every octet before it, the
//! destination address octet included (SMBus 2.0 §5.4.1.5).

use crate::crc::crc8_smbus;

/// DSP0237 §6: the SMBus command code that marks an MCTP packet.
pub const COMMAND_CODE: u8 = 0x0F;
/// Octets before the MCTP packet: destination, command code, byte count, source.
pub const PREFIX_LEN: usize = 4;
/// Octets of binding around a packet: prefix and PEC.
pub const OVERHEAD: usize = PREFIX_LEN + 1;
/// Largest MCTP packet a frame holds: the 8-bit byte count also covers the source octet.
pub const MAX_PACKET_LEN: usize = 255 - 1;

/// The 7-bit SMBus slave addresses of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SmbusAddresses {
    /// The sender's 7-bit slave address.
    pub src: u8,
    /// The receiver's 7-bit slave address.
    pub dst: u8,
}

impl SmbusAddresses {
    fn validate(&self) -> Result<(), SmbusError> {
        for (field, addr) in [("source", self.src), ("destination", self.dst)] {
            if addr > 0x7F {
                return Err(SmbusError::AddressOutOfRange { field, addr });
            }
        }
        Ok(())
    }
}

/// Why octets are not an MCTP-over-SMBus frame, or a packet cannot be framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SmbusError {
    #[error("SMBus frame of {len} octets is shorter than the {OVERHEAD}-octet binding")]
    Short { len: usize },
    #[error("SMBus command code 0x{found:02x} at octet 1 is not MCTP (0x0f)")]
    BadCommandCode { found: u8 },
    #[error("SMBus byte count {declared} at octet 2 but {actual} octets follow it (PEC excluded)")]
    ByteCountMismatch { declared: u8, actual: usize },
    #[error("SMBus PEC 0x{found:02x} at octet {offset} but the frame's CRC-8 is 0x{computed:02x}")]
    BadPec {
        offset: usize,
        computed: u8,
        found: u8,
    },
    #[error("SMBus destination octet 0x{octet:02x} has the read bit set (MCTP uses block writes)")]
    DestinationReadBit { octet: u8 },
    #[error("SMBus source octet 0x{octet:02x} at octet 3 has bit 0 clear (DSP0237 requires 1)")]
    SourceBitClear { octet: u8 },
    #[error("SMBus {field} address 0x{addr:02x} is not a 7-bit address")]
    AddressOutOfRange { field: &'static str, addr: u8 },
    #[error("MCTP packet of {len} octets does not fit an SMBus frame (at most {MAX_PACKET_LEN})")]
    PacketTooLong { len: usize },
}

/// Wraps one MCTP packet in its SMBus frame, PEC appended.
pub fn encode(addrs: &SmbusAddresses, packet: &[u8]) -> Result<Vec<u8>, SmbusError> {
    addrs.validate()?;
    if packet.len() > MAX_PACKET_LEN {
        return Err(SmbusError::PacketTooLong { len: packet.len() });
    }
    let mut f = Vec::with_capacity(packet.len() + OVERHEAD);
    f.extend_from_slice(&[
        addrs.dst << 1,
        COMMAND_CODE,
        (packet.len() + 1) as u8,
        (addrs.src << 1) | 1,
    ]);
    f.extend_from_slice(packet);
    f.push(crc8_smbus(&f));
    Ok(f)
}

/// Checks one SMBus frame and returns its addresses and the MCTP packet inside.
///
/// The checks run in wire order of what they need: the length first (to find the PEC), then
/// the PEC (a corrupted frame is reported as such, not as whatever field the corruption hit),
/// then the fields.
pub fn decode(frame: &[u8]) -> Result<(SmbusAddresses, &[u8]), SmbusError> {
    if frame.len() < OVERHEAD {
        return Err(SmbusError::Short { len: frame.len() });
    }
    let declared = frame[2];
    let actual = frame.len() - 3 - 1;
    if declared as usize != actual {
        return Err(SmbusError::ByteCountMismatch { declared, actual });
    }
    let (body, pec) = frame.split_at(frame.len() - 1);
    let computed = crc8_smbus(body);
    if computed != pec[0] {
        return Err(SmbusError::BadPec {
            offset: frame.len() - 1,
            computed,
            found: pec[0],
        });
    }
    if frame[1] != COMMAND_CODE {
        return Err(SmbusError::BadCommandCode { found: frame[1] });
    }
    if frame[0] & 1 != 0 {
        return Err(SmbusError::DestinationReadBit { octet: frame[0] });
    }
    if frame[3] & 1 != 1 {
        return Err(SmbusError::SourceBitClear { octet: frame[3] });
    }
    Ok((
        SmbusAddresses {
            src: frame[3] >> 1,
            dst: frame[0] >> 1,
        },
        &body[PREFIX_LEN..],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// CRC-8 with polynomial x^8+x^2+x+1, MSB first, init 0, bit by bit as SMBus 2.0 §5.4.1.5
    /// defines the PEC: an independent check of the catalogue entry.
    fn pec_bitwise(data: &[u8]) -> u8 {
        let mut c = 0u8;
        for &b in data {
            c ^= b;
            for _ in 0..8 {
                c = if c & 0x80 != 0 {
                    (c << 1) ^ 0x07
                } else {
                    c << 1
                };
            }
        }
        c
    }

    /// An MCTP Get EID request from EID 8 (slave 0x10) to EID 9 (slave 0x1D), single packet.
    const PACKET: [u8; 7] = [0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02];
    /// Its frame: 0x3A = 0x1D<<1, 0x0F, count 8 = 1 + 7, 0x21 = 0x10<<1|1, packet, PEC.
    const FRAME: [u8; 12] = [
        0x3A, 0x0F, 0x08, 0x21, 0x01, 0x09, 0x08, 0xC8, 0x00, 0x80, 0x02, 0x30,
    ];

    #[test]
    fn golden_pec() {
        assert_eq!(crc8_smbus(b"123456789"), 0xF4); // catalogue check value
        assert_eq!(pec_bitwise(b"123456789"), 0xF4);
        assert_eq!(pec_bitwise(&FRAME[..11]), FRAME[11]);
        let addrs = SmbusAddresses {
            src: 0x10,
            dst: 0x1D,
        };
        assert_eq!(encode(&addrs, &PACKET).unwrap(), FRAME);
        assert_eq!(decode(&FRAME).unwrap(), (addrs, &PACKET[..]));
    }

    #[test]
    fn decode_errors() {
        assert_eq!(decode(&FRAME[..4]), Err(SmbusError::Short { len: 4 }));
        let mut f = FRAME;
        f[2] = 9;
        assert_eq!(
            decode(&f),
            Err(SmbusError::ByteCountMismatch {
                declared: 9,
                actual: 8
            })
        );
        assert_eq!(
            decode(&FRAME[..11]),
            Err(SmbusError::ByteCountMismatch {
                declared: 8,
                actual: 7
            })
        );
        let mut f = FRAME;
        f[6] ^= 0x10;
        assert!(matches!(
            decode(&f),
            Err(SmbusError::BadPec {
                offset: 11,
                found: 0x30,
                ..
            })
        ));
        // Field errors with a correct PEC, so they are reported as themselves.
        let repec = |mut f: Vec<u8>| {
            let n = f.len();
            f[n - 1] = crc8_smbus(&f[..n - 1]);
            f
        };
        let mut f = FRAME.to_vec();
        f[1] = 0x0E;
        assert_eq!(
            decode(&repec(f)),
            Err(SmbusError::BadCommandCode { found: 0x0E })
        );
        let mut f = FRAME.to_vec();
        f[0] |= 1;
        assert_eq!(
            decode(&repec(f)),
            Err(SmbusError::DestinationReadBit { octet: 0x3B })
        );
        let mut f = FRAME.to_vec();
        f[3] &= !1;
        assert_eq!(
            decode(&repec(f)),
            Err(SmbusError::SourceBitClear { octet: 0x20 })
        );
    }

    #[test]
    fn encode_errors() {
        let ok = SmbusAddresses {
            src: 0x10,
            dst: 0x1D,
        };
        assert_eq!(
            encode(&SmbusAddresses { src: 0x80, ..ok }, &PACKET),
            Err(SmbusError::AddressOutOfRange {
                field: "source",
                addr: 0x80
            })
        );
        assert_eq!(
            encode(&SmbusAddresses { dst: 0xFF, ..ok }, &PACKET),
            Err(SmbusError::AddressOutOfRange {
                field: "destination",
                addr: 0xFF
            })
        );
        assert_eq!(
            encode(&ok, &[0; 255]),
            Err(SmbusError::PacketTooLong { len: 255 })
        );
        let f = encode(&ok, &[0; 254]).unwrap();
        assert_eq!((f[2], f.len()), (255, 254 + OVERHEAD));
    }

    proptest! {
        #[test]
        fn roundtrip(src in 0u8..0x80, dst in 0u8..0x80, packet in proptest::collection::vec(any::<u8>(), 0..=MAX_PACKET_LEN)) {
            let a = SmbusAddresses { src, dst };
            let f = encode(&a, &packet).unwrap();
            prop_assert_eq!(f.len(), packet.len() + OVERHEAD);
            prop_assert_eq!(*f.last().unwrap(), pec_bitwise(&f[..f.len() - 1]));
            let (a2, p2) = decode(&f).unwrap();
            prop_assert_eq!(a2, a);
            prop_assert_eq!(p2, &packet[..]);
        }

        /// Any single bit flip in a frame is rejected (CRC-8 catches all single-bit errors;
        /// a flip in the byte count is caught by the length check).
        #[test]
        fn single_bit_flips_rejected(packet in proptest::collection::vec(any::<u8>(), 5..80), bit in any::<proptest::sample::Index>()) {
            let f = encode(&SmbusAddresses { src: 0x10, dst: 0x1D }, &packet).unwrap();
            let b = bit.index(f.len() * 8);
            let mut g = f.clone();
            g[b / 8] ^= 1 << (b % 8);
            prop_assert!(decode(&g).is_err());
        }

        #[test]
        fn arbitrary_bytes_never_panic(f in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = decode(&f);
        }
    }
}
