//! NVMe-MI messages (NVMe-MI §3.1 "NVMe-MI Messages"): the message header, the Message
//! Integrity Check and the out-of-band size limit.
//!
//! ```text
//! octet 0  MCTPD: IC(7) · message type(6:0) = 4
//! octet 1  NMP:   ROR(7) · NMIMT(6:3) · reserved(2:1) · CSI(0)
//! octet 2         reserved(7:2) · CIAP(1) · MEB(0)
//! octet 3         reserved
//! ...      message data
//! last 4   MIC (when IC = 1): CRC-32C of every preceding octet, little-endian
//! ```
//! Out of band (over MCTP) IC is always 1 and a message is at most 4224 octets, MIC included
//! (§3.1; DSP0235 §7.6 counts the MIC in the MCTP message body).

use crate::crc::crc32c;

pub mod admin;
pub mod mi_command;

/// Response Message Status values (NVMe-MI 1.2 Figure 29), common to MI Command and NVMe
/// Admin Command responses.
pub mod status {
    pub const SUCCESS: u8 = 0x00;
    pub const MORE_PROCESSING_REQUIRED: u8 = 0x01;
    pub const INTERNAL_ERROR: u8 = 0x02;
    pub const INVALID_OPCODE: u8 = 0x03;
    pub const INVALID_PARAMETER: u8 = 0x04;
    pub const INVALID_COMMAND_SIZE: u8 = 0x05;
    pub const INVALID_COMMAND_INPUT_DATA_SIZE: u8 = 0x06;
    pub const ACCESS_DENIED: u8 = 0x07;

    /// The name libnvme's `nvme_mi_status_to_string` gives `s`, which nvme-cli prints.
    pub fn describe(s: u8) -> &'static str {
        match s {
            SUCCESS => "Success",
            MORE_PROCESSING_REQUIRED => "More Processing Required",
            INTERNAL_ERROR => "Internal Error",
            INVALID_OPCODE => "Invalid Command Opcode",
            INVALID_PARAMETER => "Invalid Parameter",
            INVALID_COMMAND_SIZE => "Invalid Command Size",
            INVALID_COMMAND_INPUT_DATA_SIZE => "Invalid Command Input Data Size",
            ACCESS_DENIED => "Access Denied",
            _ => "Unknown",
        }
    }
}

/// Where in a request the parameter in error is (NVMe-MI 1.2 Figure 31, "Invalid Parameter
/// Error Response"): the NVMe Management Response field of the error response holds the bit
/// (octet 5, bits 2:0) and the octet offset from the start of the message (octets 7:6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParameterErrorLocation {
    /// Offset of the octet in error from the start of the request message (octet 0 is the
    /// message type).
    pub byte: u16,
    /// The lowest bit of the field in error within that octet.
    pub bit: u8,
}

impl ParameterErrorLocation {
    pub const fn at(byte: u16, bit: u8) -> Self {
        ParameterErrorLocation { byte, bit }
    }

    /// The three NVMe Management Response octets of an Invalid Parameter response.
    pub fn nmresp(self) -> [u8; 3] {
        let b = self.byte.to_le_bytes();
        [self.bit & 0x7, b[0], b[1]]
    }

    pub fn from_nmresp(n: [u8; 3]) -> Self {
        ParameterErrorLocation {
            bit: n[0] & 0x7,
            byte: u16::from_le_bytes([n[1], n[2]]),
        }
    }
}

/// The NVMe Management Response of a More Processing Required response (NVMe-MI 1.2
/// Figure 30): octet 5 reserved, octets 7:6 the More Processing Required Time (MPRT), in
/// units of 100 ms, after which the requester may expect the final response.
pub fn mprt_nmresp(mprt_100ms: u16) -> [u8; 3] {
    let b = mprt_100ms.to_le_bytes();
    [0, b[0], b[1]]
}

/// The MPRT of a More Processing Required response's NVMe Management Response.
pub fn mprt_of_nmresp(n: [u8; 3]) -> std::time::Duration {
    std::time::Duration::from_millis(100 * u64::from(u16::from_le_bytes([n[1], n[2]])))
}

/// MCTP message type of NVMe-MI (MCTP IDs and Codes, DSP0239).
pub const MESSAGE_TYPE: u8 = 0x04;
/// IC bit of octet 0.
pub const IC_BIT: u8 = 0x80;
/// The message header is the first dword.
pub const HEADER_LEN: usize = 4;
pub const MIC_LEN: usize = 4;
/// §3.1: the largest out-of-band NVMe-MI message, 4 KiB + 128, MIC included.
pub const OOB_MAX_MESSAGE_LEN: usize = 4224;

/// Octet 1 bit positions.
pub const ROR_BIT: u8 = 7;
pub const NMIMT_SHIFT: u8 = 3;
pub const NMIMT_MASK: u8 = 0x0F;
pub const CSI_BIT: u8 = 0;
/// Octet 2 bit positions.
pub const CIAP_BIT: u8 = 1;
pub const MEB_BIT: u8 = 0;

/// NVMe-MI Message Type (NMP bits 6:3, NVMe-MI Figure 24); other values are reserved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Nmimt {
    ControlPrimitive = 0,
    MiCommand = 1,
    NvmeAdminCommand = 2,
    PcieCommand = 4,
    AsyncEvent = 5,
}

impl Nmimt {
    pub fn from_bits(v: u8) -> Option<Nmimt> {
        Some(match v {
            0 => Nmimt::ControlPrimitive,
            1 => Nmimt::MiCommand,
            2 => Nmimt::NvmeAdminCommand,
            4 => Nmimt::PcieCommand,
            5 => Nmimt::AsyncEvent,
            _ => return None,
        })
    }

    /// Command Messages: the only ones where MEB and CIAP mean anything (§3.1.1).
    pub fn is_command(self) -> bool {
        matches!(
            self,
            Nmimt::MiCommand | Nmimt::NvmeAdminCommand | Nmimt::PcieCommand
        )
    }
}

/// Why octets are not a valid NVMe-MI message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NvmeMiError {
    #[error("NVMe-MI message of {len} octets is shorter than its {need}-octet minimum")]
    Short { len: usize, need: usize },
    #[error("message type {found} in octet 0 is not NVMe-MI (4)")]
    NotNvmeMi { found: u8 },
    #[error("NVMe-MI message type (NMIMT) {value} in octet 1 is reserved")]
    ReservedNmimt { value: u8 },
    /// §3.1.1: a Management Endpoint answers Invalid Parameter for MEB/CIAP outside Command
    /// Messages.
    #[error("{flag} set in octet 2 of a {nmimt:?} message (only Command Messages may set it)")]
    FlagOnNonCommand { flag: &'static str, nmimt: Nmimt },
    #[error("NVMe-MI message of {len} octets exceeds the out-of-band limit of {max}")]
    TooLong { len: usize, max: usize },
    #[error("IC bit clear in octet 0: out-of-band NVMe-MI messages carry a MIC")]
    IcClear,
    #[error("MIC mismatch: message carries 0x{found:08x} at offset {offset}, its CRC-32C is 0x{computed:08x}")]
    MicMismatch {
        offset: usize,
        computed: u32,
        found: u32,
    },
}

/// The NVMe-MI message header (first dword).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvmeMiHeader {
    /// Integrity Check: a MIC ends the message (always out of band).
    pub ic: bool,
    /// ROR: false for a Request, true for a Response.
    pub response: bool,
    pub nmimt: Nmimt,
    /// Command Slot Identifier: slot 1 when set.
    pub csi: bool,
    /// Management Endpoint Buffer: the data is in the ME buffer, not in the message.
    pub meb: bool,
    /// Command Initiated Auto Pause.
    pub ciap: bool,
}

impl NvmeMiHeader {
    /// An out-of-band request header (IC set, slot 0, no flags).
    pub fn request(nmimt: Nmimt) -> Self {
        NvmeMiHeader {
            ic: true,
            response: false,
            nmimt,
            csi: false,
            meb: false,
            ciap: false,
        }
    }

    fn check_flags(&self) -> Result<(), NvmeMiError> {
        if !self.nmimt.is_command() {
            if self.meb {
                return Err(NvmeMiError::FlagOnNonCommand {
                    flag: "MEB",
                    nmimt: self.nmimt,
                });
            }
            if self.ciap {
                return Err(NvmeMiError::FlagOnNonCommand {
                    flag: "CIAP",
                    nmimt: self.nmimt,
                });
            }
        }
        Ok(())
    }

    pub fn encode(&self) -> Result<[u8; HEADER_LEN], NvmeMiError> {
        self.check_flags()?;
        Ok([
            (u8::from(self.ic) << 7) | MESSAGE_TYPE,
            (u8::from(self.response) << ROR_BIT)
                | ((self.nmimt as u8) << NMIMT_SHIFT)
                | (u8::from(self.csi) << CSI_BIT),
            (u8::from(self.ciap) << CIAP_BIT) | (u8::from(self.meb) << MEB_BIT),
            0,
        ])
    }

    /// Decodes the header at the start of `msg`. Reserved bits are ignored, as NVMe requires
    /// of receivers; reserved NMIMT values and misplaced MEB/CIAP are errors.
    pub fn decode(msg: &[u8]) -> Result<NvmeMiHeader, NvmeMiError> {
        let Some(h) = msg.get(..HEADER_LEN) else {
            return Err(NvmeMiError::Short {
                len: msg.len(),
                need: HEADER_LEN,
            });
        };
        if h[0] & 0x7F != MESSAGE_TYPE {
            return Err(NvmeMiError::NotNvmeMi { found: h[0] & 0x7F });
        }
        let value = (h[1] >> NMIMT_SHIFT) & NMIMT_MASK;
        let nmimt = Nmimt::from_bits(value).ok_or(NvmeMiError::ReservedNmimt { value })?;
        let hdr = NvmeMiHeader {
            ic: h[0] & IC_BIT != 0,
            response: h[1] & (1 << ROR_BIT) != 0,
            nmimt,
            csi: h[1] & (1 << CSI_BIT) != 0,
            meb: h[2] & (1 << MEB_BIT) != 0,
            ciap: h[2] & (1 << CIAP_BIT) != 0,
        };
        hdr.check_flags()?;
        Ok(hdr)
    }
}

/// The MIC of `body` (every octet before the MIC field): §3.1.1.1's procedure is CRC-32C.
pub fn mic(body: &[u8]) -> u32 {
    crc32c(body)
}

/// Appends the MIC, little-endian (§3.1.1.1: the CRC's low byte is stored first).
pub fn append_mic(msg: &mut Vec<u8>) {
    let m = mic(msg);
    msg.extend_from_slice(&m.to_le_bytes());
}

/// Checks the MIC at the end of `msg` and returns the message without it.
pub fn verify_mic(msg: &[u8]) -> Result<&[u8], NvmeMiError> {
    if msg.len() < MIC_LEN + 1 {
        return Err(NvmeMiError::Short {
            len: msg.len(),
            need: MIC_LEN + 1,
        });
    }
    let (body, tail) = msg.split_at(msg.len() - MIC_LEN);
    let found = u32::from_le_bytes(tail.try_into().expect("MIC_LEN octets"));
    let computed = mic(body);
    if computed != found {
        return Err(NvmeMiError::MicMismatch {
            offset: body.len(),
            computed,
            found,
        });
    }
    Ok(body)
}

/// The out-of-band size limit, for a message of `len` octets MIC included.
pub fn check_oob_len(len: usize) -> Result<(), NvmeMiError> {
    if len > OOB_MAX_MESSAGE_LEN {
        return Err(NvmeMiError::TooLong {
            len,
            max: OOB_MAX_MESSAGE_LEN,
        });
    }
    Ok(())
}

/// Builds an out-of-band message: header, data, MIC.
pub fn encode_oob(header: &NvmeMiHeader, data: &[u8]) -> Result<Vec<u8>, NvmeMiError> {
    if !header.ic {
        return Err(NvmeMiError::IcClear);
    }
    check_oob_len(HEADER_LEN + data.len() + MIC_LEN)?;
    let mut m = Vec::with_capacity(HEADER_LEN + data.len() + MIC_LEN);
    m.extend_from_slice(&header.encode()?);
    m.extend_from_slice(data);
    append_mic(&mut m);
    Ok(m)
}

/// Checks an out-of-band message (limit, MIC, header) and returns its header and data.
/// The MIC is checked before the header so corruption is reported as such.
pub fn decode_oob(msg: &[u8]) -> Result<(NvmeMiHeader, &[u8]), NvmeMiError> {
    check_oob_len(msg.len())?;
    if msg.len() < HEADER_LEN + MIC_LEN {
        return Err(NvmeMiError::Short {
            len: msg.len(),
            need: HEADER_LEN + MIC_LEN,
        });
    }
    let body = verify_mic(msg)?;
    let header = NvmeMiHeader::decode(body)?;
    if !header.ic {
        return Err(NvmeMiError::IcClear);
    }
    Ok((header, &body[HEADER_LEN..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mctp::packetizer::{packetize, TxConfig};
    use crate::mctp::reassembly::{Outcome, Reassembler, ReassemblyConfig};
    use proptest::prelude::*;
    use std::time::Duration;

    /// §3.1.1.1 done literally: invert the first dword, append 32 zero bits, map each octet to
    /// the polynomial bit 0 first, divide by 1EDC6F41h, reflect each octet of the remainder,
    /// invert. Independent of the CRC catalogue.
    fn mic_by_the_spec(body: &[u8]) -> [u8; 4] {
        assert!(body.len() >= 4);
        let mut m = body.to_vec();
        for b in &mut m[..4] {
            *b = !*b;
        }
        m.extend_from_slice(&[0; 4]);
        let mut reg: u64 = 0;
        for &byte in &m {
            for n in 0..8 {
                reg = (reg << 1) | ((byte >> n) & 1) as u64;
                if reg & (1 << 32) != 0 {
                    reg ^= 0x1_1EDC_6F41;
                }
            }
        }
        let r = reg as u32;
        r.to_be_bytes().map(|b| !b.reverse_bits())
    }

    #[test]
    fn mic_golden() {
        // RFC 3720 B.4 vectors (PROTOCOL-NOTES "CRCs"), as MIC fields: low byte first.
        let inc: Vec<u8> = (0u8..32).collect();
        for (data, wire) in [
            (&[0u8; 32][..], [0xaa, 0x36, 0x91, 0x8a]),
            (&[0xFF; 32][..], [0x43, 0xab, 0xa8, 0x62]),
            (&inc[..], [0x4e, 0x79, 0xdd, 0x46]),
        ] {
            let mut m = data.to_vec();
            append_mic(&mut m);
            assert_eq!(&m[32..], &wire);
            assert_eq!(mic_by_the_spec(data), wire);
        }
        // A Health Status Poll-shaped request: 84 08 00 00, opcode 01, 3 reserved.
        let req = [0x84, 0x08, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00];
        let mut m = req.to_vec();
        append_mic(&mut m);
        assert_eq!(&m[8..], &mic_by_the_spec(&req));
        assert_eq!(verify_mic(&m).unwrap(), &req);
    }

    #[test]
    fn header_codec() {
        let h = NvmeMiHeader {
            ic: true,
            response: true,
            nmimt: Nmimt::NvmeAdminCommand,
            csi: true,
            meb: true,
            ciap: true,
        };
        // 0x84; 1·0010·00·1 = 0x91; CIAP|MEB = 0x03
        assert_eq!(h.encode().unwrap(), [0x84, 0x91, 0x03, 0x00]);
        assert_eq!(NvmeMiHeader::decode(&[0x84, 0x91, 0x03, 0x00]).unwrap(), h);
        assert_eq!(
            NvmeMiHeader::request(Nmimt::MiCommand).encode().unwrap(),
            [0x84, 0x08, 0, 0]
        );
        assert_eq!(
            NvmeMiHeader::request(Nmimt::AsyncEvent).encode().unwrap(),
            [0x84, 0x28, 0, 0]
        );
        for (v, n) in [
            (0, Nmimt::ControlPrimitive),
            (1, Nmimt::MiCommand),
            (2, Nmimt::NvmeAdminCommand),
            (4, Nmimt::PcieCommand),
            (5, Nmimt::AsyncEvent),
        ] {
            assert_eq!(
                NvmeMiHeader::decode(&[0x84, v << 3, 0, 0]).unwrap().nmimt,
                n
            );
        }
        for v in [3u8, 6, 7, 8, 15] {
            assert_eq!(
                NvmeMiHeader::decode(&[0x84, v << 3, 0, 0]),
                Err(NvmeMiError::ReservedNmimt { value: v })
            );
        }
        // Reserved bits are ignored.
        assert_eq!(
            NvmeMiHeader::decode(&[0x84, 0x0E, 0xFC, 0xFF]).unwrap(),
            NvmeMiHeader::request(Nmimt::MiCommand)
        );
        assert_eq!(
            NvmeMiHeader::decode(&[0x85, 0x08, 0, 0]),
            Err(NvmeMiError::NotNvmeMi { found: 5 })
        );
        assert_eq!(
            NvmeMiHeader::decode(&[0x84, 0x08]),
            Err(NvmeMiError::Short { len: 2, need: 4 })
        );
        assert_eq!(
            NvmeMiHeader::decode(&[0x84, 0x00, 0x01, 0]),
            Err(NvmeMiError::FlagOnNonCommand {
                flag: "MEB",
                nmimt: Nmimt::ControlPrimitive
            })
        );
        assert_eq!(
            NvmeMiHeader::decode(&[0x84, 0x28, 0x02, 0]),
            Err(NvmeMiError::FlagOnNonCommand {
                flag: "CIAP",
                nmimt: Nmimt::AsyncEvent
            })
        );
        let bad = NvmeMiHeader {
            meb: true,
            ..NvmeMiHeader::request(Nmimt::ControlPrimitive)
        };
        assert!(bad.encode().is_err());
    }

    #[test]
    fn oob_limits() {
        let h = NvmeMiHeader::request(Nmimt::MiCommand);
        let max_data = OOB_MAX_MESSAGE_LEN - HEADER_LEN - MIC_LEN;
        let m = encode_oob(&h, &vec![0x5A; max_data]).unwrap();
        assert_eq!(m.len(), OOB_MAX_MESSAGE_LEN);
        assert_eq!(decode_oob(&m).unwrap().1.len(), max_data);
        assert_eq!(
            encode_oob(&h, &vec![0; max_data + 1]),
            Err(NvmeMiError::TooLong {
                len: 4225,
                max: 4224
            })
        );
        let mut long = m.clone();
        long.insert(10, 0);
        assert_eq!(
            decode_oob(&long),
            Err(NvmeMiError::TooLong {
                len: 4225,
                max: 4224
            })
        );
        assert_eq!(
            encode_oob(&NvmeMiHeader { ic: false, ..h }, &[]),
            Err(NvmeMiError::IcClear)
        );
        assert_eq!(
            decode_oob(&[0x84, 8, 0]),
            Err(NvmeMiError::Short { len: 3, need: 8 })
        );
        // IC clear but a valid CRC at the end: still not an out-of-band message.
        let mut m = vec![0x04, 0x08, 0, 0];
        append_mic(&mut m);
        assert_eq!(decode_oob(&m), Err(NvmeMiError::IcClear));
        assert!(matches!(
            verify_mic(&[1, 2, 3, 4]),
            Err(NvmeMiError::Short { .. })
        ));
    }

    /// A message with its MIC, through the packetizer and the reassembler, verifies; a single
    /// bit flip anywhere in the reassembled message fails the MIC.
    #[test]
    fn mic_through_mctp_and_every_bit_flip() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 13 + 7) as u8).collect();
        let msg = encode_oob(&NvmeMiHeader::request(Nmimt::NvmeAdminCommand), &data).unwrap();
        let cfg = TxConfig {
            src: 0x08,
            dst: 0x1D,
            tag: 1,
            tag_owner: true,
            mtu: 64,
            start_seq: 3,
        };
        let mut r = Reassembler::new(ReassemblyConfig::nvme_mi()).unwrap();
        let mut got = None;
        for p in packetize(&cfg, &msg).unwrap() {
            if let Outcome::Delivered(m) = r.push(&p, Duration::ZERO) {
                got = Some(m);
            }
        }
        let got = got.expect("message delivered");
        let (h, d) = decode_oob(&got.bytes).unwrap();
        assert_eq!((h.nmimt, d), (Nmimt::NvmeAdminCommand, &data[..]));
        for bit in 0..got.bytes.len() * 8 {
            let mut m = got.bytes.clone();
            m[bit / 8] ^= 1 << (bit % 8);
            assert!(
                matches!(verify_mic(&m), Err(NvmeMiError::MicMismatch { .. })),
                "flip of bit {bit} not caught"
            );
        }
    }

    proptest! {
        #[test]
        fn mic_matches_the_spec_procedure(body in proptest::collection::vec(any::<u8>(), 4..600)) {
            prop_assert_eq!(mic(&body).to_le_bytes(), mic_by_the_spec(&body));
        }

        #[test]
        fn oob_roundtrip(resp: bool, n in prop_oneof![Just(0u8), Just(1), Just(2), Just(4), Just(5)], csi: bool, flags in 0u8..4,
                         data in proptest::collection::vec(any::<u8>(), 0..500)) {
            let nmimt = Nmimt::from_bits(n).unwrap();
            let (meb, ciap) = if nmimt.is_command() { (flags & 1 != 0, flags & 2 != 0) } else { (false, false) };
            let h = NvmeMiHeader { ic: true, response: resp, nmimt, csi, meb, ciap };
            let m = encode_oob(&h, &data).unwrap();
            prop_assert_eq!(decode_oob(&m).unwrap(), (h, &data[..]));
        }

        #[test]
        fn arbitrary_bytes_never_panic(m in proptest::collection::vec(any::<u8>(), 0..100)) {
            let _ = decode_oob(&m);
            let _ = NvmeMiHeader::decode(&m);
            let _ = verify_mic(&m);
        }
    }
}
