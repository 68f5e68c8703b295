//! The MPA receive side: the FPDU byte stream, cut into segments of any size, in; validated
//! ULPDUs out (RFC 5044 §4, §6, §8).
//!
//! Every Marker is checked against where its FPDU's ULPDU_Length field really was (the low two
//! FPDUPTR bits ignored, §4.2), every length against MULPDU, every CRC (when negotiated); the
//! first violation ends the stream with an error that names its stream offset, as §8 requires
//! the connection to end. Memory stays bounded by MULPDU whatever the input.

use super::{
    pad_len, FramingConfig, MpaError, CRC_LEN, HEADER_LEN, FPDUPTR_MASK, MARKER_INTERVAL, MARKER_LEN, MAX_ULPDU,
};
use crate::crc::Crc32c;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// Collecting the 2-octet ULPDU_Length.
    Header,
    /// ULPDU octets then PAD octets still to come.
    Body { ulpdu_left: usize, pad_left: usize },
    /// Collecting the 4-octet CRC.
    Crc,
}

/// What [`Offload::mpa_deframe`](crate::Offload::mpa_deframe) delivers: the ULPDUs of the FPDUs that checked good, in
/// order, and how the stream ended — the first invalid FPDU (RFC 5044 §8 ends the connection
/// there) or a stream that stops inside an FPDU, as [`Deframer`] reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deframed {
    pub ulpdus: Vec<Vec<u8>>,
    pub end: Result<(), MpaError>,
}

/// Streaming FPDU deframer for one direction of a connection.
#[derive(Clone, Debug)]
pub struct Deframer {
    config: FramingConfig,
    /// Stream offset of the next input octet.
    offset: u64,
    field: Field,
    /// Partial header, CRC or Marker octets.
    buf: [u8; 4],
    fill: usize,
    marker: [u8; MARKER_LEN],
    crc: Crc32c,
    /// Offset of this FPDU's first octet (its leading Marker, if any), once started.
    fpdu_start: Option<u64>,
    /// Offset of this FPDU's ULPDU_Length field, once seen.
    header_pos: Option<u64>,
    ulpdu: Vec<u8>,
    ulpdus: u64,
    error: Option<u64>,
}

impl Deframer {
    /// A deframer whose first input octet sits at `start_offset` from the start of Full
    /// Operation (4-aligned, as in any valid stream).
    pub fn new(config: FramingConfig, start_offset: u64) -> Result<Self, MpaError> {
        if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
            return Err(MpaError::Mulpdu(config.mulpdu));
        }
        if start_offset % 4 != 0 {
            return Err(MpaError::MisalignedOffset(start_offset));
        }
        Ok(Deframer {
            config,
            offset: start_offset,
            field: Field::Header,
            buf: [0; 4],
            fill: 0,
            marker: [0; MARKER_LEN],
            crc: Crc32c::new(),
            fpdu_start: None,
            header_pos: None,
            ulpdu: Vec::new(),
            ulpdus: 0,
            error: None,
        })
    }

    pub fn config(&self) -> &FramingConfig {
        &self.config
    }

    /// Stream offset of the next octet expected.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// ULPDUs delivered so far.
    pub fn ulpdus(&self) -> u64 {
        self.ulpdus
    }

    /// Changes MULPDU; applies from the next ULPDU_Length field.
    pub fn set_mulpdu(&mut self, mulpdu: usize) -> Result<(), MpaError> {
        if mulpdu == 0 || mulpdu > MAX_ULPDU {
            return Err(MpaError::Mulpdu(mulpdu));
        }
        self.config.mulpdu = mulpdu;
        Ok(())
    }

    /// True between FPDUs: the stream may end here.
    pub fn at_boundary(&self) -> bool {
        self.fpdu_start.is_none() && self.error.is_none()
    }

    /// Feeds the next segment of the stream; every ULPDU completed and validated by it is
    /// appended to `out` (those before an error too: nothing accepted is lost).
    pub fn push(&mut self, mut data: &[u8], out: &mut Vec<Vec<u8>>) -> Result<(), MpaError> {
        if let Some(offset) = self.error {
            return Err(MpaError::Closed { offset });
        }
        while !data.is_empty() {
            let n = match self.step(data, out) {
                Ok(n) => n,
                Err(e) => {
                    self.error = Some(self.offset);
                    return Err(e);
                }
            };
            data = &data[n..];
        }
        Ok(())
    }

    /// Declares the end of the stream: an error if it stopped inside an FPDU.
    pub fn finish(&self) -> Result<(), MpaError> {
        if let Some(offset) = self.error {
            return Err(MpaError::Closed { offset });
        }
        match self.fpdu_start {
            None => Ok(()),
            Some(_) => Err(MpaError::Truncated { offset: self.offset }),
        }
    }

    /// Consumes a prefix of `data` that lies within one field or Marker; returns its length.
    fn step(&mut self, data: &[u8], out: &mut Vec<Vec<u8>>) -> Result<usize, MpaError> {
        if self.fpdu_start.is_none() {
            self.fpdu_start = Some(self.offset);
        }
        let in_interval = self.offset % MARKER_INTERVAL;
        if self.config.markers && in_interval < MARKER_LEN as u64 {
            return self.marker_octets(data, in_interval as usize);
        }
        let to_marker = if self.config.markers {
            (MARKER_INTERVAL - in_interval) as usize
        } else {
            usize::MAX
        };
        let avail = data.len().min(to_marker);
        match self.field {
            Field::Header => {
                if self.fill == 0 {
                    self.header_pos = Some(self.offset);
                }
                let n = avail.min(HEADER_LEN - self.fill);
                self.collect(&data[..n], true);
                if self.fill == HEADER_LEN {
                    let len = u16::from_be_bytes([self.buf[0], self.buf[1]]) as usize;
                    let at = self.header_pos.unwrap_or(self.offset);
                    if len == 0 || len > self.config.mulpdu {
                        return Err(MpaError::BadLength { offset: at, len, mulpdu: self.config.mulpdu });
                    }
                    self.fill = 0;
                    self.ulpdu = Vec::with_capacity(len);
                    self.field = Field::Body { ulpdu_left: len, pad_left: pad_len(len) };
                }
                Ok(n)
            }
            Field::Body { ulpdu_left, pad_left } => {
                let n;
                if ulpdu_left > 0 {
                    n = avail.min(ulpdu_left);
                    self.ulpdu.extend_from_slice(&data[..n]);
                    self.field = Field::Body { ulpdu_left: ulpdu_left - n, pad_left };
                } else {
                    // PAD: ignored by the receiver except for the CRC (§4.1).
                    n = avail.min(pad_left);
                    self.field = Field::Body { ulpdu_left, pad_left: pad_left - n };
                }
                self.crc.update(&data[..n]);
                self.offset += n as u64;
                if self.field == (Field::Body { ulpdu_left: 0, pad_left: 0 }) {
                    self.field = Field::Crc;
                }
                Ok(n)
            }
            Field::Crc => {
                let n = avail.min(CRC_LEN - self.fill);
                self.collect(&data[..n], false);
                if self.fill == CRC_LEN {
                    let found = u32::from_le_bytes(self.buf);
                    let computed = self.crc.finalize();
                    if self.config.crc && found != computed {
                        let offset = self.fpdu_start.unwrap_or(self.offset);
                        return Err(MpaError::BadCrc { offset, computed, found });
                    }
                    out.push(std::mem::take(&mut self.ulpdu));
                    self.ulpdus += 1;
                    self.fill = 0;
                    self.field = Field::Header;
                    self.crc = Crc32c::new();
                    self.fpdu_start = None;
                    self.header_pos = None;
                }
                Ok(n)
            }
        }
    }

    /// Copies header or CRC octets into `buf`.
    fn collect(&mut self, bytes: &[u8], crc: bool) {
        self.buf[self.fill..self.fill + bytes.len()].copy_from_slice(bytes);
        self.fill += bytes.len();
        self.offset += bytes.len() as u64;
        if crc {
            self.crc.update(bytes);
        }
    }

    /// Consumes Marker octets (the Marker starts `done` octets before the current offset).
    fn marker_octets(&mut self, data: &[u8], done: usize) -> Result<usize, MpaError> {
        let n = data.len().min(MARKER_LEN - done);
        self.marker[done..done + n].copy_from_slice(&data[..n]);
        self.crc.update(&data[..n]);
        self.offset += n as u64;
        if done + n == MARKER_LEN {
            let at = self.offset - MARKER_LEN as u64;
            // Between FPDUs (no ULPDU_Length seen yet) the pointer is 0; otherwise it reaches
            // back to the ULPDU_Length field. The low two bits count as zero (§4.2).
            let expected = self.header_pos.map(|h| (at - h) as u16).unwrap_or(0);
            let found = u16::from_be_bytes([self.marker[2], self.marker[3]]);
            if found & FPDUPTR_MASK != expected {
                return Err(MpaError::BadMarker { offset: at, expected, found });
            }
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mpa::Framer;

    fn frame_all(cfg: FramingConfig, offset: u64, ulpdus: &[Vec<u8>]) -> Vec<u8> {
        let mut f = Framer::new(cfg, offset).unwrap();
        let mut out = Vec::new();
        for u in ulpdus {
            f.frame(u, &mut out).unwrap();
        }
        out
    }

    fn sample() -> Vec<Vec<u8>> {
        [1usize, 2, 3, 4, 42, 502, 508, 509, 1000, 4096]
            .iter()
            .enumerate()
            .map(|(i, &n)| (0..n).map(|j| (i * 31 + j) as u8).collect())
            .collect()
    }

    #[test]
    fn round_trip_every_segment_size() {
        for cfg in [
            FramingConfig::default(),
            FramingConfig { markers: false, crc: true, mulpdu: MAX_ULPDU },
            FramingConfig { markers: true, crc: false, mulpdu: MAX_ULPDU },
        ] {
            for offset in [0u64, 4, 508, 1000, 0x1ec] {
                let ulpdus = sample();
                let stream = frame_all(cfg, offset, &ulpdus);
                for seg in [1usize, 2, 3, 5, 7, 512, 513, 65536] {
                    let mut d = Deframer::new(cfg, offset).unwrap();
                    let mut got = Vec::new();
                    for chunk in stream.chunks(seg) {
                        d.push(chunk, &mut got).unwrap();
                    }
                    d.finish().unwrap();
                    assert_eq!(got, ulpdus, "{cfg:?} offset {offset} seg {seg}");
                    assert_eq!(d.offset(), offset + stream.len() as u64);
                }
            }
        }
    }

    #[test]
    fn errors_name_the_offset() {
        let cfg = FramingConfig::default();
        let stream = frame_all(cfg, 0, &sample());
        // Corrupt the second FPDU's CRC: FPDU 1 is Marker + 2 + 1 + 1 pad + 4 = 12 octets.
        let mut bad = stream.clone();
        let second_crc = 12 + 2 + 2 + 0 + 0; // header(2) + ULPDU(2) + PAD(0)
        bad[second_crc] ^= 1;
        let mut d = Deframer::new(cfg, 0).unwrap();
        let mut got = Vec::new();
        let e = d.push(&bad, &mut got).unwrap_err();
        assert!(matches!(e, MpaError::BadCrc { offset: 12, .. }), "{e:?}");
        assert_eq!(got.len(), 1, "the FPDU before the error is delivered");
        assert!(matches!(d.push(&[0], &mut got), Err(MpaError::Closed { .. })));

        // A bad Marker: the one at 512 sits inside the 502-octet ULPDU.
        let mut bad = stream.clone();
        bad[512 + 3] ^= 0x10;
        let e = Deframer::new(cfg, 0).unwrap().push(&bad, &mut Vec::new()).unwrap_err();
        assert!(matches!(e, MpaError::BadMarker { offset: 512, .. }), "{e:?}");
        // The low two FPDUPTR bits are ignored.
        let mut ok = stream.clone();
        ok[512 + 3] ^= 0x03;
        // That FPDU's header is at 92 and its CRC at 600: the Marker is in the CRC.
        let crc = crate::crc::crc32c(&ok[92..600]);
        ok[600..604].copy_from_slice(&crc.to_le_bytes());
        let mut got = Vec::new();
        Deframer::new(cfg, 0).unwrap().push(&ok, &mut got).unwrap();
        assert_eq!(got, sample());

        // Length over MULPDU.
        let small = FramingConfig::full(1000);
        let e = Deframer::new(small, 0).unwrap().push(&stream, &mut Vec::new()).unwrap_err();
        assert!(matches!(e, MpaError::BadLength { len: 4096, mulpdu: 1000, .. }), "{e:?}");

        // Truncated stream.
        let mut d = Deframer::new(cfg, 0).unwrap();
        d.push(&stream[..stream.len() - 1], &mut Vec::new()).unwrap();
        assert!(matches!(d.finish(), Err(MpaError::Truncated { .. })));
    }

    #[test]
    fn zero_length_is_refused() {
        let cfg = FramingConfig { markers: false, crc: false, mulpdu: 100 };
        let e = Deframer::new(cfg, 0).unwrap().push(&[0, 0, 0, 0, 0, 0], &mut Vec::new()).unwrap_err();
        assert_eq!(e, MpaError::BadLength { offset: 0, len: 0, mulpdu: 100 });
    }
}
