//! The MPA transmit side: ULPDUs in, the FPDU byte stream out (RFC 5044 §4.1–4.4).
//!
//! The framer keeps the stream offset across calls, so Markers land every 512 octets of Full
//! Operation whatever the ULPDU sizes: a Marker that falls inside an FPDU points back to its
//! ULPDU_Length field; one that falls exactly between two FPDUs has FPDUPTR 0 and belongs to
//! (is covered by the CRC of) the following FPDU; one that falls right after the PAD is covered
//! by this FPDU's CRC. The hardware MPA TX block must produce exactly these bytes.

use super::{pad_len, FramingConfig, MpaError, CRC_LEN, MARKER_INTERVAL, MARKER_LEN, MAX_ULPDU};

/// Streaming FPDU framer for one direction of a connection.
#[derive(Clone, Debug)]
pub struct Framer {
    config: FramingConfig,
    /// Stream offset of the next octet to be sent.
    offset: u64,
    fpdus: u64,
}

impl Framer {
    /// A framer whose first output octet sits at `start_offset` from the start of Full
    /// Operation. Offsets are 4-aligned in any valid MPA stream (FPDUs and Markers are whole
    /// multiples of 4), so an unaligned one is refused.
    pub fn new(config: FramingConfig, start_offset: u64) -> Result<Self, MpaError> {
        if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
            return Err(MpaError::Mulpdu(config.mulpdu));
        }
        if start_offset % 4 != 0 {
            return Err(MpaError::MisalignedOffset(start_offset));
        }
        Ok(Framer { config, offset: start_offset, fpdus: 0 })
    }

    pub fn config(&self) -> &FramingConfig {
        &self.config
    }

    /// Stream offset of the next octet this framer will emit.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// FPDUs emitted so far.
    pub fn fpdus(&self) -> u64 {
        self.fpdus
    }

    /// Changes MULPDU (EMSS changed, §4.5); takes effect from the next ULPDU.
    pub fn set_mulpdu(&mut self, mulpdu: usize) -> Result<(), MpaError> {
        if mulpdu == 0 || mulpdu > MAX_ULPDU {
            return Err(MpaError::Mulpdu(mulpdu));
        }
        self.config.mulpdu = mulpdu;
        Ok(())
    }

    /// Appends the FPDU carrying `ulpdu` to `out`; returns the octets appended. A ULPDU outside
    /// 1..=MULPDU is refused and nothing is appended.
    pub fn frame(&mut self, ulpdu: &[u8], out: &mut Vec<u8>) -> Result<usize, MpaError> {
        let len = ulpdu.len();
        if len == 0 || len > self.config.mulpdu {
            return Err(MpaError::UlpduLength { len, mulpdu: self.config.mulpdu });
        }
        let begin = out.len();
        out.reserve(super::fpdu_wire_len(len, self.offset, self.config.markers));
        let header = (len as u16).to_be_bytes();
        let pad = [0u8; 3];
        let mut w = Writer { out, offset: self.offset, markers: self.config.markers, fpdu_start: None };

        w.put(&header);
        w.put(ulpdu);
        w.put(&pad[..pad_len(len)]);
        // A Marker due right after the PAD is part of this FPDU and its CRC (§4.4 case 1).
        w.marker_if_due();
        let crc = if self.config.crc { crate::crc::crc32c(&w.out[begin..]) } else { 0 };
        // Offsets are 4-aligned and a due Marker was just placed, so no Marker splits the CRC.
        w.out.extend_from_slice(&crc.to_le_bytes());
        w.offset += CRC_LEN as u64;

        self.offset = w.offset;
        self.fpdus += 1;
        Ok(w.out.len() - begin)
    }
}

/// Appends FPDU octets, inserting Markers where the stream offset reaches a multiple of 512.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    offset: u64,
    markers: bool,
    /// Stream offset of this FPDU's ULPDU_Length field, once it is known.
    fpdu_start: Option<u64>,
}

impl Writer<'_> {
    fn marker_if_due(&mut self) {
        if self.markers && self.offset % MARKER_INTERVAL == 0 {
            // Before the header is placed the Marker falls between FPDUs: FPDUPTR 0 (§4.3).
            let ptr = match self.fpdu_start {
                Some(start) => (self.offset - start) as u16,
                None => 0,
            };
            let [hi, lo] = ptr.to_be_bytes();
            self.out.extend_from_slice(&[0, 0, hi, lo]);
            self.offset += MARKER_LEN as u64;
        }
    }

    fn put(&mut self, mut bytes: &[u8]) {
        if !self.markers {
            self.fpdu_start.get_or_insert(self.offset);
            self.out.extend_from_slice(bytes);
            self.offset += bytes.len() as u64;
            return;
        }
        while !bytes.is_empty() {
            self.marker_if_due();
            if self.fpdu_start.is_none() {
                self.fpdu_start = Some(self.offset);
            }
            let room = if self.markers {
                (MARKER_INTERVAL - self.offset % MARKER_INTERVAL) as usize
            } else {
                bytes.len()
            };
            let n = room.min(bytes.len());
            self.out.extend_from_slice(&bytes[..n]);
            self.offset += n as u64;
            bytes = &bytes[n..];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpa::fpdu_wire_len;

    /// RFC 5044 Figure 5's ULPDU: a 42-octet DDP untagged Send, MSN 1, 24 zero octets.
    pub(crate) fn figure_ulpdu(msn: u8) -> Vec<u8> {
        // Control, reserved STag, Queue 0, MSN, MO 0 (RFC 5041 untagged header).
        let mut u = vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, msn, 0, 0, 0, 0];
        u.extend_from_slice(&[0u8; 24]);
        assert_eq!(u.len(), 42);
        u
    }

    #[test]
    fn rfc5044_figure5() {
        let mut f = Framer::new(FramingConfig::default(), 0).unwrap();
        let mut out = Vec::new();
        f.frame(&figure_ulpdu(1), &mut out).unwrap();
        let mut want = vec![0, 0, 0, 0, 0x00, 0x2a];
        want.extend_from_slice(&figure_ulpdu(1));
        want.extend_from_slice(&[0x52, 0x23, 0x99, 0x83]);
        assert_eq!(out, want);
        assert_eq!(f.offset(), 0x34);
    }

    #[test]
    fn rfc5044_figure6() {
        let mut f = Framer::new(FramingConfig::default(), 0x1ec).unwrap();
        let mut out = Vec::new();
        f.frame(&figure_ulpdu(2), &mut out).unwrap();
        let u = figure_ulpdu(2);
        let mut want = vec![0x00, 0x2a];
        want.extend_from_slice(&u[..0x200 - 0x1ee]);
        want.extend_from_slice(&[0, 0, 0x00, 0x14]);
        want.extend_from_slice(&u[0x200 - 0x1ee..]);
        want.extend_from_slice(&[0x84, 0x92, 0x58, 0x98]);
        assert_eq!(out, want);
        assert_eq!(f.offset(), 0x220);
    }

    #[test]
    fn marker_after_pad_is_in_this_crc() {
        // Header at 500: 2 + 6 + 0 pad = 8 octets → PAD ends at 508; choose so PAD ends at 512.
        // ULPDU of 9 octets at offset 500: 2 + 9 + 1 pad = 12 → ends at 512: Marker before CRC.
        let mut f = Framer::new(FramingConfig::default(), 500).unwrap();
        let mut out = Vec::new();
        let u = [7u8; 9];
        f.frame(&u, &mut out).unwrap();
        assert_eq!(&out[12..16], &[0, 0, 0, 12]);
        let crc = crate::crc::crc32c(&out[..16]);
        assert_eq!(&out[16..20], &crc.to_le_bytes());
        assert_eq!(out.len(), 20);
        // The next FPDU starts at 520, nowhere near a Marker.
        assert_eq!(f.offset(), 520);
    }

    #[test]
    fn marker_between_fpdus_belongs_to_next() {
        // 2 + 502 + 0 pad + 4 CRC = 508 octets from offset 4 → ends at 512 exactly.
        let mut f = Framer::new(FramingConfig::default(), 4).unwrap();
        let mut out = Vec::new();
        f.frame(&[1u8; 502], &mut out).unwrap();
        assert_eq!(out.len(), 508);
        // No Marker yet: one is only emitted when a next octet is sent.
        assert_eq!(f.offset(), 512);
        let mut next = Vec::new();
        f.frame(&[2u8; 2], &mut next).unwrap();
        assert_eq!(&next[..6], &[0, 0, 0, 0, 0, 2]);
        let crc = crate::crc::crc32c(&next[..8]);
        assert_eq!(&next[8..12], &crc.to_le_bytes());
    }

    #[test]
    fn no_markers_no_crc() {
        let cfg = FramingConfig { markers: false, crc: false, mulpdu: 1000 };
        let mut f = Framer::new(cfg, 0).unwrap();
        let mut out = Vec::new();
        f.frame(&[9u8; 5], &mut out).unwrap();
        assert_eq!(out, vec![0, 5, 9, 9, 9, 9, 9, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn refuses_bad_lengths_and_offsets() {
        let mut f = Framer::new(FramingConfig::full(128), 0).unwrap();
        let mut out = Vec::new();
        assert_eq!(f.frame(&[], &mut out), Err(MpaError::UlpduLength { len: 0, mulpdu: 128 }));
        assert_eq!(f.frame(&[0; 129], &mut out), Err(MpaError::UlpduLength { len: 129, mulpdu: 128 }));
        assert!(out.is_empty());
        assert_eq!(f.offset(), 0);
        assert_eq!(Framer::new(FramingConfig::default(), 6).unwrap_err(), MpaError::MisalignedOffset(6));
        assert_eq!(Framer::new(FramingConfig::full(0), 0).unwrap_err(), MpaError::Mulpdu(0));
        assert_eq!(Framer::new(FramingConfig::full(64769), 0).unwrap_err(), MpaError::Mulpdu(64769));
    }

    #[test]
    fn long_ulpdu_every_marker_points_home() {
        let mut f = Framer::new(FramingConfig::default(), 1000).unwrap();
        let mut out = Vec::new();
        let u: Vec<u8> = (0..5000u32).map(|i| i as u8).collect();
        f.frame(&u, &mut out).unwrap();
        assert_eq!(out.len(), fpdu_wire_len(5000, 1000, true));
        let mut markers = 0;
        for pos in (1024..1000 + out.len() as u64).step_by(512) {
            let i = (pos - 1000) as usize;
            assert_eq!(&out[i..i + 2], &[0, 0]);
            assert_eq!(u16::from_be_bytes([out[i + 2], out[i + 3]]) as u64, pos - 1000);
            markers += 1;
        }
        assert_eq!(markers, 10);
    }
}
