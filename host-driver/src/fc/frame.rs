//! An FC frame: SOF · header · optional headers · payload · fill · CRC · EOF (the draft's
//! Fig. 6), with the FC CRC computed and checked through the [`Offload`] seam so the hardware
//! CRC engine (CRC-32 mode) does it when the sim backend is chosen.
//!
//! Two byte forms: the *body* (header through CRC) that follows the 8-octet prefix inside an
//! SCTP DATA chunk, the delimiters travelling as codes in the prefix; and the *delimited* form
//! (SOF ordered set · body · EOF ordered set) that an FC link and pcap link type 225 carry.

use super::delimiter::{Eof, Sof};
use super::header::{FcHeader, HEADER_LEN};
use super::FcError;
use crate::crc::CrcKind;
use crate::{Offload, SoftwareOffload};

/// Largest data field (optional headers + payload + fill), octets.
pub const MAX_DATA_FIELD: usize = 2112;
pub const CRC_LEN: usize = 4;
/// Smallest and largest body (header + data field + CRC).
pub const MIN_BODY: usize = HEADER_LEN + CRC_LEN;
pub const MAX_BODY: usize = HEADER_LEN + MAX_DATA_FIELD + CRC_LEN;
/// Smallest and largest delimited frame (36 and 2148 octets, as the draft states).
pub const MIN_FRAME: usize = MIN_BODY + 8;
pub const MAX_FRAME: usize = MAX_BODY + 8;

/// DF_CTL bits (FC-FS): which optional headers follow the frame header, in this order.
pub mod df_ctl {
    /// ESP header (not supported here: its length depends on the security association).
    pub const ESP: u8 = 0x40;
    /// Network header, 16 octets.
    pub const NETWORK: u8 = 0x20;
    /// Association header, 32 octets.
    pub const ASSOCIATION: u8 = 0x10;
    /// Device header size: 0 none, 1 → 16, 2 → 32, 3 → 64 octets.
    pub const DEVICE_MASK: u8 = 0x03;
    /// The bits the encoder derives from the optional headers present.
    pub const LAYOUT_BITS: u8 = ESP | NETWORK | ASSOCIATION | DEVICE_MASK;
}

/// The optional headers the draft lists (Network, Association, Device), flagged by DF_CTL.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OptionalHeaders {
    pub network: Option<[u8; 16]>,
    pub association: Option<[u8; 32]>,
    /// 16, 32 or 64 octets.
    pub device: Option<Vec<u8>>,
}

impl OptionalHeaders {
    pub fn len(&self) -> usize {
        self.network.map_or(0, |_| 16)
            + self.association.map_or(0, |_| 32)
            + self.device.as_ref().map_or(0, |d| d.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The DF_CTL layout bits for these headers.
    pub fn df_ctl_bits(&self) -> Result<u8, FcError> {
        let device = match self.device.as_ref().map(|d| d.len()) {
            None => 0,
            Some(16) => 1,
            Some(32) => 2,
            Some(64) => 3,
            Some(len) => return Err(FcError::BadDeviceHeader { len }),
        };
        Ok(self.network.map_or(0, |_| df_ctl::NETWORK)
            | self.association.map_or(0, |_| df_ctl::ASSOCIATION)
            | device)
    }

    fn write(&self, out: &mut Vec<u8>) {
        if let Some(n) = &self.network {
            out.extend_from_slice(n);
        }
        if let Some(a) = &self.association {
            out.extend_from_slice(a);
        }
        if let Some(d) = &self.device {
            out.extend_from_slice(d);
        }
    }

    /// Splits the optional headers DF_CTL announces off the front of the data field.
    fn read(df: u8, data: &[u8]) -> Result<(OptionalHeaders, usize), FcError> {
        if df & df_ctl::ESP != 0 {
            return Err(FcError::UnsupportedOptionalHeader { name: "ESP" });
        }
        let device_len = [0usize, 16, 32, 64][(df & df_ctl::DEVICE_MASK) as usize];
        let need = (df & df_ctl::NETWORK != 0) as usize * 16
            + (df & df_ctl::ASSOCIATION != 0) as usize * 32
            + device_len;
        if data.len() < need {
            return Err(FcError::Truncated {
                what: "optional headers",
                need,
                have: data.len(),
            });
        }
        let mut o = OptionalHeaders::default();
        let mut at = 0;
        if df & df_ctl::NETWORK != 0 {
            o.network = Some(data[at..at + 16].try_into().expect("16 octets"));
            at += 16;
        }
        if df & df_ctl::ASSOCIATION != 0 {
            o.association = Some(data[at..at + 32].try_into().expect("32 octets"));
            at += 32;
        }
        if device_len != 0 {
            o.device = Some(data[at..at + device_len].to_vec());
            at += device_len;
        }
        Ok((o, at))
    }
}

/// Whether a decoder checks the CRC it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrcCheck {
    Verify,
    /// The CRC field is not valid (the prefix's N bit): it is ignored and regenerated when the
    /// frame is encoded again.
    Ignore,
}

/// One FC frame. The encoder derives DF_CTL's layout bits from [`OptionalHeaders`] and
/// F_CTL's fill count from the payload length, so a frame cannot misdescribe its own layout;
/// the other bits of both fields are sent as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FcFrame {
    pub sof: Sof,
    pub header: FcHeader,
    pub optional: OptionalHeaders,
    /// The payload without fill octets: any length with optional headers + payload + fill ≤
    /// 2112.
    pub payload: Vec<u8>,
    pub eof: Eof,
}

/// The FC CRC (CRC-32, IEEE 802.3 parameters) of `data` through `offload`.
pub fn fc_crc(offload: &mut dyn Offload, data: &[u8]) -> Result<u32, FcError> {
    let v = offload
        .crc(CrcKind::Crc32, data)
        .map_err(|e| FcError::Offload {
            message: e.to_string(),
        })?;
    u32::try_from(v).map_err(|_| FcError::Offload {
        message: format!("CRC-32 value 0x{v:x} wider than 32 bits"),
    })
}

impl FcFrame {
    /// A frame with an empty header apart from what the caller sets afterwards.
    pub fn new(sof: Sof, header: FcHeader, payload: Vec<u8>, eof: Eof) -> FcFrame {
        FcFrame {
            sof,
            header,
            optional: OptionalHeaders::default(),
            payload,
            eof,
        }
    }

    /// Fill octets needed after the payload to end the data field on a word boundary.
    pub fn fill(&self) -> usize {
        (4 - self.payload.len() % 4) % 4
    }

    pub fn data_field_len(&self) -> usize {
        self.optional.len() + self.payload.len() + self.fill()
    }

    /// The header as it goes on the wire (layout bits of DF_CTL and the fill count derived).
    pub fn wire_header(&self) -> Result<FcHeader, FcError> {
        let mut h = self.header;
        h.df_ctl = (h.df_ctl & !df_ctl::LAYOUT_BITS) | self.optional.df_ctl_bits()?;
        h.f_ctl = h.f_ctl.with_fill_bytes(self.fill());
        Ok(h)
    }

    /// Appends header · optional headers · payload · fill (what the CRC covers) to `out`.
    fn write_covered(&self, out: &mut Vec<u8>) -> Result<(), FcError> {
        let df = self.data_field_len();
        if df > MAX_DATA_FIELD {
            return Err(FcError::DataFieldTooLong {
                len: df,
                max: MAX_DATA_FIELD,
            });
        }
        out.reserve(HEADER_LEN + df + CRC_LEN);
        out.extend_from_slice(&self.wire_header()?.encode()?);
        self.optional.write(out);
        out.extend_from_slice(&self.payload);
        out.resize(out.len() + self.fill(), 0);
        Ok(())
    }

    /// Appends the body (header through CRC) to `out`, the CRC computed by `offload` (or
    /// zeros when `crc` is false), so a caller can put a prefix or a SOF word in front
    /// without a second buffer.
    pub fn write_body_with(
        &self,
        out: &mut Vec<u8>,
        crc: bool,
        offload: &mut dyn Offload,
    ) -> Result<(), FcError> {
        let start = out.len();
        self.write_covered(out)?;
        let value = if crc {
            fc_crc(offload, &out[start..])?
        } else {
            0
        };
        out.extend_from_slice(&value.to_le_bytes());
        Ok(())
    }

    /// The body (header through CRC) with the CRC computed by `offload`; the CRC value is
    /// stored low byte first (PROTOCOL-NOTES).
    pub fn encode_body_with(&self, offload: &mut dyn Offload) -> Result<Vec<u8>, FcError> {
        let mut out = Vec::new();
        self.write_body_with(&mut out, true, offload)?;
        Ok(out)
    }

    /// [`encode_body_with`](Self::encode_body_with) on the software model.
    pub fn encode_body(&self) -> Result<Vec<u8>, FcError> {
        self.encode_body_with(&mut SoftwareOffload)
    }

    /// The body with a zero CRC field, for a sender that leaves the CRC to the far end and
    /// sets the prefix's N bit.
    pub fn encode_body_without_crc(&self) -> Result<Vec<u8>, FcError> {
        let mut out = Vec::new();
        self.write_body_with(&mut out, false, &mut SoftwareOffload)?;
        Ok(out)
    }

    /// Parses a body (header through CRC) whose delimiters came separately.
    pub fn decode_body_with(
        sof: Sof,
        eof: Eof,
        body: &[u8],
        check: CrcCheck,
        offload: &mut dyn Offload,
    ) -> Result<FcFrame, FcError> {
        if body.len() < MIN_BODY {
            return Err(FcError::Truncated {
                what: "FC frame",
                need: MIN_BODY,
                have: body.len(),
            });
        }
        let data_len = body.len() - MIN_BODY;
        if data_len > MAX_DATA_FIELD {
            return Err(FcError::DataFieldTooLong {
                len: data_len,
                max: MAX_DATA_FIELD,
            });
        }
        if data_len % 4 != 0 {
            return Err(FcError::NotWordAligned { len: data_len });
        }
        let (covered, crc_field) = body.split_at(body.len() - CRC_LEN);
        if check == CrcCheck::Verify {
            let found = u32::from_le_bytes(crc_field.try_into().expect("4 octets"));
            let expected = fc_crc(offload, covered)?;
            if found != expected {
                return Err(FcError::BadCrc { expected, found });
            }
        }
        let header = FcHeader::decode(covered)?;
        let data = &covered[HEADER_LEN..];
        let (optional, at) = OptionalHeaders::read(header.df_ctl, data)?;
        let rest = &data[at..];
        let fill = header.f_ctl.fill_bytes();
        if fill > rest.len() {
            return Err(FcError::FillExceedsPayload {
                fill,
                payload: rest.len(),
            });
        }
        // Stored as a caller writes it, without the layout bits (they live in `optional` and
        // the payload length, and [`wire_header`](Self::wire_header) derives them again).
        let mut header = header;
        header.f_ctl = header.f_ctl.with_fill_bytes(0);
        header.df_ctl &= !df_ctl::LAYOUT_BITS;
        Ok(FcFrame {
            sof,
            header,
            optional,
            payload: rest[..rest.len() - fill].to_vec(),
            eof,
        })
    }

    /// [`decode_body_with`](Self::decode_body_with) on the software model, CRC verified.
    pub fn decode_body(sof: Sof, eof: Eof, body: &[u8]) -> Result<FcFrame, FcError> {
        Self::decode_body_with(sof, eof, body, CrcCheck::Verify, &mut SoftwareOffload)
    }

    /// SOF ordered set · body · EOF ordered set (negative disparity), as on an FC link.
    pub fn encode_delimited_with(&self, offload: &mut dyn Offload) -> Result<Vec<u8>, FcError> {
        let mut out = Vec::with_capacity(MAX_FRAME);
        out.extend_from_slice(&self.sof.word());
        self.write_body_with(&mut out, true, offload)?;
        out.extend_from_slice(&self.eof.word());
        Ok(out)
    }

    pub fn encode_delimited(&self) -> Result<Vec<u8>, FcError> {
        self.encode_delimited_with(&mut SoftwareOffload)
    }

    /// Parses a delimited frame, CRC verified.
    pub fn decode_delimited_with(b: &[u8], offload: &mut dyn Offload) -> Result<FcFrame, FcError> {
        if b.len() < MIN_FRAME {
            return Err(FcError::Truncated {
                what: "delimited FC frame",
                need: MIN_FRAME,
                have: b.len(),
            });
        }
        let sof = Sof::from_word(b[..4].try_into().expect("4 octets"))?;
        let eof = Eof::from_word(b[b.len() - 4..].try_into().expect("4 octets"))?;
        Self::decode_body_with(sof, eof, &b[4..b.len() - 4], CrcCheck::Verify, offload)
    }

    pub fn decode_delimited(b: &[u8]) -> Result<FcFrame, FcError> {
        Self::decode_delimited_with(b, &mut SoftwareOffload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fc::header::{fc_type, r_ctl, FCtl};

    fn sample(payload_len: usize) -> FcFrame {
        let header = FcHeader {
            r_ctl: r_ctl::SOLICITED_DATA,
            d_id: 0x010200,
            s_id: 0x010300,
            fc_type: fc_type::SCSI_FCP,
            f_ctl: FCtl::EXCHANGE_CONTEXT | FCtl::RELATIVE_OFFSET,
            seq_id: 1,
            seq_cnt: 7,
            ox_id: 0x1234,
            rx_id: 0x0042,
            parameter: 0x800,
            ..Default::default()
        };
        FcFrame::new(
            Sof::N3,
            header,
            (0..payload_len).map(|i| (i * 7 + 3) as u8).collect(),
            Eof::N,
        )
    }

    #[test]
    fn every_payload_length_round_trips_with_fill() {
        for len in 0..=MAX_DATA_FIELD {
            let f = sample(len);
            let body = f.encode_body().unwrap();
            assert_eq!(body.len(), MIN_BODY + len.div_ceil(4) * 4);
            let fill = FcHeader::decode(&body).unwrap().f_ctl.fill_bytes();
            assert_eq!(fill, f.fill());
            assert_eq!(
                FcFrame::decode_body(f.sof, f.eof, &body).unwrap(),
                f,
                "len {len}"
            );
        }
        assert!(matches!(
            sample(MAX_DATA_FIELD + 1).encode_body(),
            Err(FcError::DataFieldTooLong { .. })
        ));
    }

    #[test]
    fn crc_covers_header_and_data_and_is_stored_low_byte_first() {
        let f = sample(5);
        let body = f.encode_body().unwrap();
        let crc = crate::crc::crc32(&body[..body.len() - 4]);
        assert_eq!(&body[body.len() - 4..], &crc.to_le_bytes());
        for i in 0..body.len() {
            let mut bad = body.clone();
            bad[i] ^= 0x10;
            assert!(
                matches!(
                    FcFrame::decode_body(f.sof, f.eof, &bad),
                    Err(FcError::BadCrc { .. })
                ),
                "octet {i}"
            );
        }
    }

    #[test]
    fn n_bit_frames_are_accepted_and_get_a_fresh_crc() {
        let f = sample(100);
        let zero = f.encode_body_without_crc().unwrap();
        assert!(FcFrame::decode_body(f.sof, f.eof, &zero).is_err());
        let back =
            FcFrame::decode_body_with(f.sof, f.eof, &zero, CrcCheck::Ignore, &mut SoftwareOffload)
                .unwrap();
        assert_eq!(back.encode_body().unwrap(), f.encode_body().unwrap());
    }

    #[test]
    fn optional_headers_follow_df_ctl() {
        let mut f = sample(40);
        f.optional.network = Some([0xA5; 16]);
        f.optional.association = Some([0x5A; 32]);
        f.optional.device = Some(vec![0x3C; 64]);
        let body = f.encode_body().unwrap();
        assert_eq!(body[13], 0x20 | 0x10 | 0x03);
        assert_eq!(&body[24..40], &[0xA5; 16]);
        assert_eq!(&body[40..72], &[0x5A; 32]);
        assert_eq!(&body[72..136], &[0x3C; 64][..]);
        assert_eq!(FcFrame::decode_body(f.sof, f.eof, &body).unwrap(), f);
        f.optional.device = Some(vec![0; 20]);
        assert_eq!(f.encode_body(), Err(FcError::BadDeviceHeader { len: 20 }));
        // Payload room shrinks by the optional headers.
        let mut g = sample(MAX_DATA_FIELD - 16);
        g.optional.network = Some([0; 16]);
        assert!(g.encode_body().is_ok());
        g.payload.push(0);
        assert!(g.encode_body().is_err());
    }

    #[test]
    fn malformed_bodies_are_typed_errors() {
        let f = sample(8);
        let body = f.encode_body().unwrap();
        assert!(matches!(
            FcFrame::decode_body(f.sof, f.eof, &body[..27]),
            Err(FcError::Truncated { .. })
        ));
        let mut odd = body.clone();
        odd.insert(30, 0);
        assert!(matches!(
            FcFrame::decode_body_with(f.sof, f.eof, &odd, CrcCheck::Ignore, &mut SoftwareOffload),
            Err(FcError::NotWordAligned { len: 9 })
        ));
        let mut esp = body.clone();
        esp[13] = df_ctl::ESP;
        assert!(matches!(
            FcFrame::decode_body_with(f.sof, f.eof, &esp, CrcCheck::Ignore, &mut SoftwareOffload),
            Err(FcError::UnsupportedOptionalHeader { .. })
        ));
        let mut fill = sample(0).encode_body().unwrap();
        fill[11] |= 3;
        assert!(matches!(
            FcFrame::decode_body_with(f.sof, f.eof, &fill, CrcCheck::Ignore, &mut SoftwareOffload),
            Err(FcError::FillExceedsPayload {
                fill: 3,
                payload: 0
            })
        ));
    }

    #[test]
    fn delimited_form_carries_the_ordered_sets() {
        let f = sample(33);
        let d = f.encode_delimited().unwrap();
        assert_eq!(&d[..4], &[0xBC, 0xB5, 0x36, 0x36]);
        assert_eq!(&d[d.len() - 4..], &[0xBC, 0x95, 0xD5, 0xD5]);
        assert_eq!(FcFrame::decode_delimited(&d).unwrap(), f);
        let empty = sample(0).encode_delimited().unwrap();
        assert_eq!(empty.len(), MIN_FRAME);
        assert_eq!(
            sample(MAX_DATA_FIELD).encode_delimited().unwrap().len(),
            MAX_FRAME
        );
    }
}
