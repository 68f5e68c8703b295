//! The 8-octet prefix in front of every encapsulated frame (the draft's Fig. 5) and the whole
//! SCTP DATA chunk payload: prefix · frame body.
//!
//! ```text
//! word 0: Timestamp (milliseconds, 32 bit)
//! word 1: OSS (4) | N (1) | C (1) | Tcredit (10) | SOF code (8) | EOF code (8)
//! ```
//! The bit widths are PROTOCOL-NOTES decisions (the flattened draft loses the ruler). SOF and
//! EOF both zero mean "no frame": the rest of the chunk is not valid and may be absent; such a
//! message still carries OSS and credit information.

use super::delimiter::{Eof, Oss, Sof};
use super::frame::{CrcCheck, FcFrame, MAX_BODY};
use super::FcError;
use crate::{Offload, SoftwareOffload};

pub const PREFIX_LEN: usize = 8;
/// Largest Tcredit value (10 bits).
pub const MAX_TCREDIT: u16 = 0x3FF;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Prefix {
    /// Milliseconds, compared with the receiver's clock against the stream's time limit.
    pub timestamp_ms: u32,
    /// Ordered-set sequence seen on the FC link before this frame.
    pub oss: Oss,
    /// N: the frame's CRC field is not valid; it must be constructed before the frame goes on
    /// to FC.
    pub crc_invalid: bool,
    /// C: set by the server when it (re)asserts login credit; returned by the client as
    /// acknowledgement.
    pub credit_reset: bool,
    /// Credits returned or granted (server → client); with C set, the server's current debit.
    pub tcredit: u16,
    /// `None` (code 0) only together with `eof == None`: a frameless message.
    pub sof: Option<Sof>,
    pub eof: Option<Eof>,
}

impl Prefix {
    pub fn encode(&self) -> Result<[u8; PREFIX_LEN], FcError> {
        if self.tcredit > MAX_TCREDIT {
            return Err(FcError::FieldTooWide {
                field: "Tcredit",
                value: self.tcredit as u32,
                bits: 10,
            });
        }
        if self.sof.is_some() != self.eof.is_some() {
            return Err(FcError::HalfDelimited);
        }
        let w1 = (self.oss.code() as u32) << 28
            | (self.crc_invalid as u32) << 27
            | (self.credit_reset as u32) << 26
            | (self.tcredit as u32) << 16
            | (self.sof.map_or(0, Sof::code) as u32) << 8
            | self.eof.map_or(0, Eof::code) as u32;
        let mut b = [0u8; PREFIX_LEN];
        b[..4].copy_from_slice(&self.timestamp_ms.to_be_bytes());
        b[4..].copy_from_slice(&w1.to_be_bytes());
        Ok(b)
    }

    pub fn decode(b: &[u8]) -> Result<Prefix, FcError> {
        if b.len() < PREFIX_LEN {
            return Err(FcError::Truncated {
                what: "prefix",
                need: PREFIX_LEN,
                have: b.len(),
            });
        }
        let w1 = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
        let (sof_code, eof_code) = ((w1 >> 8) as u8, w1 as u8);
        let (sof, eof) = match (sof_code, eof_code) {
            (0, 0) => (None, None),
            (0, _) | (_, 0) => return Err(FcError::HalfDelimited),
            (s, e) => (Some(Sof::from_code(s)?), Some(Eof::from_code(e)?)),
        };
        Ok(Prefix {
            timestamp_ms: u32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            oss: Oss::from_code((w1 >> 28) as u8)?,
            crc_invalid: w1 & 1 << 27 != 0,
            credit_reset: w1 & 1 << 26 != 0,
            tcredit: ((w1 >> 16) & 0x3FF) as u16,
            sof,
            eof,
        })
    }

    /// Whether a frame follows.
    pub fn has_frame(&self) -> bool {
        self.sof.is_some()
    }
}

/// One DATA chunk payload, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Encapsulated {
    /// A frame. When the prefix's N bit was set the CRC was not checked; the frame's CRC is
    /// generated whenever it is encoded again.
    Frame { prefix: Prefix, frame: FcFrame },
    /// SOF and EOF both zero: only the prefix counts (OSS, credits).
    Signal { prefix: Prefix },
}

impl Encapsulated {
    pub fn prefix(&self) -> &Prefix {
        match self {
            Encapsulated::Frame { prefix, .. } | Encapsulated::Signal { prefix } => prefix,
        }
    }

    /// Encodes prefix · body. The prefix's SOF/EOF are taken from the frame; with the N bit set
    /// the CRC field is sent as zeros (the far end constructs it), otherwise `offload`
    /// computes it.
    pub fn encode_with(&self, offload: &mut dyn Offload) -> Result<Vec<u8>, FcError> {
        match self {
            Encapsulated::Signal { prefix } => {
                let p = Prefix {
                    sof: None,
                    eof: None,
                    ..*prefix
                };
                Ok(p.encode()?.to_vec())
            }
            Encapsulated::Frame { prefix, frame } => {
                let p = Prefix {
                    sof: Some(frame.sof),
                    eof: Some(frame.eof),
                    ..*prefix
                };
                let mut out = Vec::with_capacity(PREFIX_LEN + MAX_BODY);
                out.extend_from_slice(&p.encode()?);
                frame.write_body_with(&mut out, !p.crc_invalid, offload)?;
                Ok(out)
            }
        }
    }

    pub fn encode(&self) -> Result<Vec<u8>, FcError> {
        self.encode_with(&mut SoftwareOffload)
    }

    /// Decodes a DATA chunk payload, checking the CRC through `offload` unless N is set.
    pub fn decode_with(b: &[u8], offload: &mut dyn Offload) -> Result<Encapsulated, FcError> {
        let prefix = Prefix::decode(b)?;
        match (prefix.sof, prefix.eof) {
            (Some(sof), Some(eof)) => {
                let check = if prefix.crc_invalid {
                    CrcCheck::Ignore
                } else {
                    CrcCheck::Verify
                };
                let frame = FcFrame::decode_body_with(sof, eof, &b[PREFIX_LEN..], check, offload)?;
                Ok(Encapsulated::Frame { prefix, frame })
            }
            _ => Ok(Encapsulated::Signal { prefix }),
        }
    }

    pub fn decode(b: &[u8]) -> Result<Encapsulated, FcError> {
        Self::decode_with(b, &mut SoftwareOffload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::header::FcHeader;

    #[test]
    fn bit_layout() {
        let p = Prefix {
            timestamp_ms: 0x0102_0304,
            oss: Oss::Lr,
            crc_invalid: true,
            credit_reset: false,
            tcredit: 0x155,
            sof: Some(Sof::I3),
            eof: Some(Eof::T),
        };
        let b = p.encode().unwrap();
        // OSS 0011 · N 1 · C 0 · Tcredit 01 0101 0101 → 0011 1001 0101 0101
        assert_eq!(b, [0x01, 0x02, 0x03, 0x04, 0x39, 0x55, 0x5B, 0x7A]);
        assert_eq!(Prefix::decode(&b).unwrap(), p);
        let c = Prefix {
            credit_reset: true,
            crc_invalid: false,
            tcredit: MAX_TCREDIT,
            oss: Oss::Ols,
            ..p
        };
        assert_eq!(&c.encode().unwrap()[4..6], &[0x47, 0xFF]);
        assert_eq!(Prefix::decode(&c.encode().unwrap()).unwrap(), c);
    }

    #[test]
    fn every_sof_eof_pair_round_trips() {
        for sof in Sof::ALL {
            for eof in Eof::ALL {
                let p = Prefix {
                    sof: Some(sof),
                    eof: Some(eof),
                    ..Default::default()
                };
                assert_eq!(Prefix::decode(&p.encode().unwrap()).unwrap(), p);
            }
        }
    }

    #[test]
    fn bad_prefixes() {
        assert!(Prefix {
            tcredit: 1024,
            ..Default::default()
        }
        .encode()
        .is_err());
        assert_eq!(
            Prefix::decode(&[0, 0, 0, 0, 0, 0, 0x5B, 0]),
            Err(FcError::HalfDelimited)
        );
        assert_eq!(
            Prefix::decode(&[0, 0, 0, 0, 0, 0, 0x11, 0xDA]),
            Err(FcError::UnknownSof { code: 0x11 })
        );
        assert_eq!(
            Prefix::decode(&[0, 0, 0, 0, 0, 0, 0x5B, 0x5B]),
            Err(FcError::UnknownEof { code: 0x5B })
        );
        assert_eq!(
            Prefix::decode(&[0, 0, 0, 0, 0, 0, 0xDA, 0xDA]),
            Err(FcError::UnknownSof { code: 0xDA })
        );
        assert_eq!(
            Prefix::decode(&[0, 0, 0, 0, 0x50, 0, 0, 0]),
            Err(FcError::UnknownOss { code: 5 })
        );
        assert!(matches!(
            Prefix::decode(&[0; 7]),
            Err(FcError::Truncated { .. })
        ));
    }

    #[test]
    fn signals_may_be_truncated_and_frames_may_not() {
        let s = Encapsulated::Signal {
            prefix: Prefix {
                tcredit: 3,
                oss: Oss::Nos,
                ..Default::default()
            },
        };
        let b = s.encode().unwrap();
        assert_eq!(b.len(), PREFIX_LEN);
        assert_eq!(Encapsulated::decode(&b).unwrap(), s);
        let mut longer = b.clone();
        longer.extend_from_slice(&[0xEE; 13]);
        assert_eq!(Encapsulated::decode(&longer).unwrap(), s);

        let frame = FcFrame::new(Sof::I3, FcHeader::default(), vec![1, 2, 3], Eof::T);
        let m = Encapsulated::Frame {
            prefix: Prefix::default(),
            frame: frame.clone(),
        };
        let b = m.encode().unwrap();
        assert_eq!(&b[6..8], &[0x5B, 0x7A], "delimiters come from the frame");
        let back = Encapsulated::decode(&b).unwrap();
        assert_eq!(back.prefix().sof, Some(Sof::I3));
        match back {
            Encapsulated::Frame { frame: f, .. } => assert_eq!(f, frame),
            other => panic!("{other:?}"),
        }
        assert!(Encapsulated::decode(&b[..b.len() - 4]).is_err());
    }

    #[test]
    fn n_bit_skips_the_crc_check() {
        let frame = FcFrame::new(Sof::N3, FcHeader::default(), vec![9; 64], Eof::N);
        let m = Encapsulated::Frame {
            prefix: Prefix {
                crc_invalid: true,
                ..Default::default()
            },
            frame: frame.clone(),
        };
        let b = m.encode().unwrap();
        assert_eq!(&b[b.len() - 4..], &[0; 4]);
        assert_eq!(b[4] & 0x08, 0x08);
        match Encapsulated::decode(&b).unwrap() {
            Encapsulated::Frame { frame: f, prefix } => {
                assert!(prefix.crc_invalid);
                assert_eq!(f.encode_body().unwrap(), frame.encode_body().unwrap());
            }
            other => panic!("{other:?}"),
        }
        let mut clear = b.clone();
        clear[4] &= !0x08;
        assert!(matches!(
            Encapsulated::decode(&clear),
            Err(FcError::BadCrc { .. })
        ));
    }
}
