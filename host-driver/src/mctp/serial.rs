//! The MCTP serial transport binding (DSP0253 §7, "Serial frame format").
//!
//! ```text
//! 0x7E · revision 0x01 · byte count · MCTP packet (0x7E/0x7D sent as 0x7D, c^0x20)
//!   · FCS high · FCS low · 0x7E
//! ```
//! The byte count is the length of the unescaped packet; the FCS is CRC-16/MCRF4XX (the
//! kernel's `crc_ccitt` seeded with 0xFFFF, no final complement) over revision, byte count
//! and the unescaped packet, sent high byte first. Only the packet is byte-stuffed: the Linux
//! driver (`mctp-serial.c`) writes the byte count and FCS raw, and its receiver, like ours,
//! finds them by position, so a raw 0x7E there is not taken for a flag.

use super::header::HEADER_LEN;
use crate::crc::CrcKind;

/// Framing flag: opens and closes every frame.
pub const FLAG: u8 = 0x7E;
/// Control escape: the next octet is the original XOR [`ESCAPE_XOR`].
pub const ESCAPE: u8 = 0x7D;
pub const ESCAPE_XOR: u8 = 0x20;
/// DSP0253 defines one serial protocol revision.
pub const REVISION: u8 = 0x01;
/// The byte count is 8 bits.
pub const MAX_PACKET_LEN: usize = 255;
/// A header and at least one payload octet.
pub const MIN_PACKET_LEN: usize = HEADER_LEN + 1;

/// Why a packet cannot be framed or a frame in the stream is bad. `offset` is the position,
/// in octets since the decoder was created, of the octet that showed the problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SerialError {
    #[error("MCTP packet of {len} octets cannot be framed ({MIN_PACKET_LEN}..={MAX_PACKET_LEN})")]
    PacketLength { len: usize },
    #[error("serial revision 0x{found:02x} at stream offset {offset} (expected 0x01)")]
    BadRevision { offset: u64, found: u8 },
    #[error(
        "serial byte count {count} at stream offset {offset} outside {MIN_PACKET_LEN}..={max}"
    )]
    BadLength { offset: u64, count: u8, max: usize },
    #[error("serial FCS 0x{found:04x} at stream offset {offset} but the frame's CRC-16 is 0x{computed:04x}")]
    BadFcs {
        offset: u64,
        computed: u16,
        found: u16,
    },
    #[error(
        "escaped octet 0x{found:02x} at stream offset {offset} (only 0x5e and 0x5d are escapes)"
    )]
    BadEscape { offset: u64, found: u8 },
    #[error("frame aborted by a flag at stream offset {offset} after {received} of {expected} packet octets")]
    Aborted {
        offset: u64,
        received: usize,
        expected: usize,
    },
    #[error("octet 0x{found:02x} at stream offset {offset} where the closing flag was due (frame longer than its byte count)")]
    MissingEndFlag { offset: u64, found: u8 },
}

/// The FCS of a packet: CRC-16/MCRF4XX over revision, byte count and the unescaped packet.
pub fn fcs(packet: &[u8]) -> u16 {
    let mut d = CrcKind::Crc16Mcrf4xx.digest();
    d.update(&[REVISION, packet.len() as u8]);
    d.update(packet);
    d.finalize() as u16
}

/// Frames one MCTP packet.
pub fn encode(packet: &[u8]) -> Result<Vec<u8>, SerialError> {
    if !(MIN_PACKET_LEN..=MAX_PACKET_LEN).contains(&packet.len()) {
        return Err(SerialError::PacketLength { len: packet.len() });
    }
    let mut f = Vec::with_capacity(packet.len() * 2 + 6);
    f.extend_from_slice(&[FLAG, REVISION, packet.len() as u8]);
    for &c in packet {
        if c == FLAG || c == ESCAPE {
            f.extend_from_slice(&[ESCAPE, c ^ ESCAPE_XOR]);
        } else {
            f.push(c);
        }
    }
    f.extend_from_slice(&fcs(packet).to_be_bytes());
    f.push(FLAG);
    Ok(f)
}

/// What the decoder saw, one counter per kind of error.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SerialStats {
    pub frames: u64,
    pub bad_fcs: u64,
    pub bad_length: u64,
    pub bad_revision: u64,
    pub bad_escape: u64,
    /// Frames cut short by a flag.
    pub aborted: u64,
    /// Frames longer than their byte count.
    pub missing_end_flag: u64,
    /// Octets outside any frame, skipped while hunting for a flag.
    pub discarded_octets: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Skipping octets until a flag.
    Hunt,
    /// Just after a flag; `closing` when that flag ended a frame (then a non-frame octet is
    /// idle noise, not a bad revision).
    Flag {
        closing: bool,
    },
    Count,
    Data,
    Escaped,
    FcsHigh,
    FcsLow,
    End,
}

/// A streaming frame decoder: octets in, in any chunking; packets out. It holds at most one
/// frame's packet (255 octets), so memory is bounded for any input.
#[derive(Debug, Clone)]
pub struct SerialDecoder {
    state: State,
    count: usize,
    max_packet_len: usize,
    buf: Vec<u8>,
    fcs: u16,
    offset: u64,
    stats: SerialStats,
}

impl Default for SerialDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl SerialDecoder {
    pub fn new() -> Self {
        Self::with_max_packet_len(MAX_PACKET_LEN)
    }

    /// A decoder that rejects byte counts over `max` (e.g. a link MTU + 4); capped at 255.
    pub fn with_max_packet_len(max: usize) -> Self {
        let max = max.clamp(MIN_PACKET_LEN, MAX_PACKET_LEN);
        SerialDecoder {
            state: State::Hunt,
            count: 0,
            max_packet_len: max,
            buf: Vec::with_capacity(max),
            fcs: 0,
            offset: 0,
            stats: SerialStats::default(),
        }
    }

    pub fn stats(&self) -> &SerialStats {
        &self.stats
    }

    /// Octets taken so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Feeds a chunk; returns the packets and errors it completed, in stream order.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Result<Vec<u8>, SerialError>> {
        chunk.iter().filter_map(|&c| self.push(c)).collect()
    }

    /// Feeds one octet.
    pub fn push(&mut self, c: u8) -> Option<Result<Vec<u8>, SerialError>> {
        let offset = self.offset;
        self.offset += 1;
        let s = &mut self.stats;
        match self.state {
            State::Hunt => {
                if c == FLAG {
                    self.state = State::Flag { closing: false };
                } else {
                    s.discarded_octets += 1;
                }
                None
            }
            State::Flag { closing } => {
                if c == FLAG {
                    self.state = State::Flag { closing: false };
                    None
                } else if c == REVISION {
                    self.state = State::Count;
                    None
                } else if closing {
                    s.discarded_octets += 1;
                    self.state = State::Hunt;
                    None
                } else {
                    s.bad_revision += 1;
                    self.fail(c, SerialError::BadRevision { offset, found: c })
                }
            }
            State::Count => {
                if !(MIN_PACKET_LEN..=self.max_packet_len).contains(&(c as usize)) {
                    s.bad_length += 1;
                    let max = self.max_packet_len;
                    return self.fail(
                        c,
                        SerialError::BadLength {
                            offset,
                            count: c,
                            max,
                        },
                    );
                }
                self.count = c as usize;
                self.buf.clear();
                self.state = State::Data;
                None
            }
            State::Data | State::Escaped if c == FLAG => {
                s.aborted += 1;
                let (received, expected) = (self.buf.len(), self.count);
                self.fail(
                    c,
                    SerialError::Aborted {
                        offset,
                        received,
                        expected,
                    },
                )
            }
            State::Data => {
                if c == ESCAPE {
                    self.state = State::Escaped;
                } else {
                    self.take(c);
                }
                None
            }
            State::Escaped => {
                if c != FLAG ^ ESCAPE_XOR && c != ESCAPE ^ ESCAPE_XOR {
                    s.bad_escape += 1;
                    return self.fail(c, SerialError::BadEscape { offset, found: c });
                }
                self.take(c ^ ESCAPE_XOR);
                None
            }
            State::FcsHigh => {
                self.fcs = (c as u16) << 8;
                self.state = State::FcsLow;
                None
            }
            State::FcsLow => {
                self.fcs |= c as u16;
                self.state = State::End;
                None
            }
            State::End => {
                if c != FLAG {
                    s.missing_end_flag += 1;
                    return self.fail(c, SerialError::MissingEndFlag { offset, found: c });
                }
                self.state = State::Flag { closing: true };
                let computed = fcs(&self.buf);
                if computed != self.fcs {
                    s.bad_fcs += 1;
                    return Some(Err(SerialError::BadFcs {
                        offset: offset - 2,
                        computed,
                        found: self.fcs,
                    }));
                }
                s.frames += 1;
                Some(Ok(self.buf.clone()))
            }
        }
    }

    fn take(&mut self, c: u8) {
        self.buf.push(c);
        self.state = if self.buf.len() == self.count {
            State::FcsHigh
        } else {
            State::Data
        };
    }

    /// Ends the current frame with an error; a flag that caused it may open the next frame.
    fn fail(&mut self, c: u8, e: SerialError) -> Option<Result<Vec<u8>, SerialError>> {
        self.state = if c == FLAG {
            State::Flag { closing: false }
        } else {
            State::Hunt
        };
        Some(Err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crc::crc16_mcrf4xx;
    use proptest::prelude::*;

    /// CRC-16/MCRF4XX bit by bit (reflected 0x1021 = 0x8408, init 0xFFFF, no xorout), as the
    /// kernel's `crc_ccitt`: an independent check of the catalogue entry.
    fn crc_ccitt_bitwise(mut crc: u16, data: &[u8]) -> u16 {
        for &b in data {
            crc ^= b as u16;
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0x8408
                } else {
                    crc >> 1
                };
            }
        }
        crc
    }

    /// A packet holding both special octets: header, then 7E 7D 00 FF.
    const PACKET: [u8; 8] = [0x01, 0x09, 0x08, 0xC8, 0x7E, 0x7D, 0x00, 0xFF];

    #[test]
    fn golden_fcs_and_frame() {
        assert_eq!(crc16_mcrf4xx(b"123456789"), 0x6F91); // catalogue check value
        assert_eq!(CrcKind::Crc16Mcrf4xx.params().check, 0x6F91);
        assert_eq!(crc_ccitt_bitwise(0xFFFF, b"123456789"), 0x6F91);
        let want_fcs = crc_ccitt_bitwise(0xFFFF, &[&[0x01, 0x08][..], &PACKET].concat());
        assert_eq!(fcs(&PACKET), want_fcs);
        assert_eq!(want_fcs, 0xBB3B);
        let frame = encode(&PACKET).unwrap();
        assert_eq!(
            frame,
            [
                0x7E, 0x01, 0x08, 0x01, 0x09, 0x08, 0xC8, 0x7D, 0x5E, 0x7D, 0x5D, 0x00, 0xFF, 0xBB,
                0x3B, 0x7E
            ]
        );
        let mut d = SerialDecoder::new();
        assert_eq!(d.feed(&frame), vec![Ok(PACKET.to_vec())]);
        assert_eq!(d.stats().frames, 1);
    }

    #[test]
    fn encode_errors() {
        assert_eq!(
            encode(&[1, 2, 3, 4]),
            Err(SerialError::PacketLength { len: 4 })
        );
        assert_eq!(
            encode(&[0; 256]),
            Err(SerialError::PacketLength { len: 256 })
        );
        // A 126-octet packet has byte count 0x7E, sent raw and still decoded by position.
        let p = vec![0x7Eu8; 126];
        let f = encode(&p).unwrap();
        assert_eq!(f[2], 0x7E);
        assert_eq!(SerialDecoder::new().feed(&f), vec![Ok(p)]);
    }

    #[test]
    fn errors_and_resync() {
        let good = encode(&PACKET).unwrap();
        let mut stream = b"noise".to_vec(); // discarded before the first flag
                                            // Bad revision.
        stream.extend_from_slice(&[0x7E, 0x02, 0x08]);
        stream.extend_from_slice(&good);
        // Bad byte count (4 < 5).
        stream.extend_from_slice(&[0x7E, 0x01, 0x04, 1, 2, 3, 4]);
        stream.extend_from_slice(&good);
        // Bad FCS.
        let mut bad = good.clone();
        bad[13] ^= 1;
        stream.extend_from_slice(&bad);
        // Aborted: a flag in the middle, which opens the good frame after it.
        stream.extend_from_slice(&good[..6]);
        stream.extend_from_slice(&good);
        // Over-long: one octet too many before the closing flag.
        let mut long = good.clone();
        long.insert(15, 0xAA);
        stream.extend_from_slice(&long);
        // Bad escape.
        stream.extend_from_slice(&[0x7E, 0x01, 0x05, 0x7D, 0x11]);
        stream.extend_from_slice(&good);

        let mut d = SerialDecoder::new();
        let out = d.feed(&stream);
        let kinds: Vec<&'static str> = out
            .iter()
            .map(|r| match r {
                Ok(p) if p == &PACKET => "ok",
                Ok(_) => "wrong",
                Err(SerialError::BadRevision { .. }) => "rev",
                Err(SerialError::BadLength { .. }) => "len",
                Err(SerialError::BadFcs { .. }) => "fcs",
                Err(SerialError::Aborted { .. }) => "abort",
                Err(SerialError::MissingEndFlag { .. }) => "long",
                Err(SerialError::BadEscape { .. }) => "esc",
                Err(SerialError::PacketLength { .. }) => "plen",
            })
            .collect();
        assert_eq!(
            kinds,
            ["rev", "ok", "len", "ok", "fcs", "abort", "ok", "long", "esc", "ok"]
        );
        let s = d.stats();
        assert_eq!(
            (
                s.frames,
                s.bad_revision,
                s.bad_length,
                s.bad_fcs,
                s.aborted,
                s.missing_end_flag,
                s.bad_escape
            ),
            (4, 1, 1, 1, 1, 1, 1)
        );
        assert!(s.discarded_octets >= 5);
        assert_eq!(d.offset(), stream.len() as u64);
        // Offsets point into the stream.
        assert_eq!(
            out[0],
            Err(SerialError::BadRevision {
                offset: 6,
                found: 0x02
            })
        );
    }

    #[test]
    fn shared_and_repeated_flags() {
        // Frames sharing one flag between them, and idle flags before.
        let a = encode(&PACKET).unwrap();
        let mut stream = vec![0x7E, 0x7E, 0x7E];
        stream.extend_from_slice(&a);
        stream.extend_from_slice(&a[1..]);
        stream.extend_from_slice(&[0x00, 0x13]); // idle noise after a closing flag: no error
        let out = SerialDecoder::new().feed(&stream);
        assert_eq!(out, vec![Ok(PACKET.to_vec()), Ok(PACKET.to_vec())]);
    }

    #[test]
    fn max_packet_len_limits_count() {
        let p = vec![0x11u8; 100];
        let mut d = SerialDecoder::with_max_packet_len(68);
        assert!(matches!(
            d.feed(&encode(&p).unwrap())[0],
            Err(SerialError::BadLength {
                count: 100,
                max: 68,
                ..
            })
        ));
        assert_eq!(
            d.feed(&encode(&p[..68]).unwrap()),
            vec![Ok(p[..68].to_vec())]
        );
    }

    proptest! {
        /// Any packets, framed back to back and cut into any chunks, come out the same.
        #[test]
        fn roundtrip_any_chunking(
            packets in proptest::collection::vec(proptest::collection::vec(prop_oneof![Just(0x7Eu8), Just(0x7D), any::<u8>()], MIN_PACKET_LEN..=MAX_PACKET_LEN), 1..6),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..20),
        ) {
            let stream: Vec<u8> = packets.iter().flat_map(|p| encode(p).unwrap()).collect();
            let mut idx: Vec<usize> = cuts.iter().map(|c| c.index(stream.len() + 1)).collect();
            idx.push(0);
            idx.push(stream.len());
            idx.sort_unstable();
            let mut d = SerialDecoder::new();
            let mut out = Vec::new();
            for w in idx.windows(2) {
                out.extend(d.feed(&stream[w[0]..w[1]]));
            }
            let want: Vec<Result<Vec<u8>, SerialError>> = packets.into_iter().map(Ok).collect();
            prop_assert_eq!(out, want);
        }

        /// Garbage before and between frames costs nothing but itself: every good frame that
        /// follows a flag-free stretch of garbage is still decoded, and no wrong packet is
        /// ever returned.
        #[test]
        fn resync_after_garbage(
            garbage in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 1..5),
            packet in proptest::collection::vec(any::<u8>(), MIN_PACKET_LEN..100),
        ) {
            let frame = encode(&packet).unwrap();
            let mut stream = Vec::new();
            for g in &garbage {
                stream.extend_from_slice(g);
                stream.extend_from_slice(&frame);
            }
            let mut d = SerialDecoder::new();
            let oks: Vec<Vec<u8>> = d.feed(&stream).into_iter().filter_map(Result::ok).collect();
            for p in &oks {
                prop_assert_eq!(p, &packet);
            }
            // Flag-free garbage is skipped whole (after a closing flag, unless it starts like
            // a frame with the revision octet), so then every frame survives.
            let clean = garbage.iter().all(|g| !g.contains(&FLAG))
                && garbage[1..].iter().all(|g| g.first() != Some(&REVISION));
            if clean {
                prop_assert_eq!(oks.len(), garbage.len());
            }
            prop_assert!(d.buf.capacity() <= MAX_PACKET_LEN);
        }

        #[test]
        fn arbitrary_bytes_never_panic(stream in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let mut d = SerialDecoder::new();
            for r in d.feed(&stream).into_iter().flatten() {
                prop_assert!((MIN_PACKET_LEN..=MAX_PACKET_LEN).contains(&r.len()));
            }
            prop_assert!(d.buf.capacity() <= MAX_PACKET_LEN);
        }
    }
}
