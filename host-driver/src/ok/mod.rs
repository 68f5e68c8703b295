//! The host side of the Opal Kelly XEM7010 board design (`offload-hdl`'s `board` module):
//! the FrontPanel endpoint map and stream encoding, defined once here and mirrored by the
//! Verilog bridge, and [`OkTransport`], which carries `OffloadTop`'s register bus and streams
//! over any [`FrontPanel`] — Opal Kelly's API on a real board (`OkHandle`, cargo feature
//! `board`) or the Verilated board core in `offload-sim`. `TopOffload<OkTransport<_>>` is the
//! board's [`Offload`](crate::Offload) backend.
//!
//! Register access: address and data on WireIns 0x00–0x02, a trigger (0x40 bit 0 write,
//! bit 1 read); the access counter in WireOut 0x22 tells the host it completed and WireOuts
//! 0x20/0x21 hold read data. Streams: one PipeIn and one PipeOut per path (MPA TX, MCTP TX,
//! MPA RX, MCTP RX); the host writes no more words than the FPGA's input FIFO has free and reads
//! exactly the beats waiting, both read from WireOuts, so plain (not block-throttled) pipes
//! never overflow or underflow. The receive outputs carry their frames' side channels
//! (`m_len` and the verdict of a ULPDU, a message's EIDs, tag and TO) with every beat ([`side`]).

use crate::mctp::Message;
use crate::registers::{RegisterBus, RegisterError};
use crate::top_offload::{MpaRxFrames, StreamOutput, TopStreams};

/// FrontPanel endpoint addresses of the board design.
pub mod ep {
    pub const WI_ADDR: u8 = 0x00;
    pub const WI_DATA_LO: u8 = 0x01;
    pub const WI_DATA_HI: u8 = 0x02;
    /// Bit 0: hold the bridge and `OffloadTop` in reset.
    pub const WI_CONTROL: u8 = 0x03;
    pub const TI_BUS: u8 = 0x40;
    pub const TI_WRITE_BIT: u8 = 0;
    pub const TI_READ_BIT: u8 = 1;
    pub const WO_DATA_LO: u8 = 0x20;
    pub const WO_DATA_HI: u8 = 0x21;
    /// `[7:0]` completed register accesses mod 256; bits 8/9 MPA/MCTP input overflowed
    /// (sticky); bits 10/11 MPA/MCTP input idle; bits 12–15 the same for MPA RX and MCTP RX.
    pub const WO_STATUS: u8 = 0x22;
    pub const WO_MPA_IN_FREE: u8 = 0x23;
    pub const WO_MCTP_IN_FREE: u8 = 0x24;
    pub const WO_MPA_OUT_COUNT: u8 = 0x25;
    pub const WO_MCTP_OUT_COUNT: u8 = 0x26;
    pub const WO_MPA_RX_IN_FREE: u8 = 0x27;
    pub const WO_MCTP_RX_IN_FREE: u8 = 0x28;
    pub const WO_MPA_RX_OUT_COUNT: u8 = 0x29;
    pub const WO_MCTP_RX_OUT_COUNT: u8 = 0x2A;
    pub const PI_MPA: u8 = 0x80;
    pub const PI_MCTP: u8 = 0x81;
    /// TCP payload segments into the MPA receiver.
    pub const PI_MPA_RX: u8 = 0x82;
    /// MCTP packets (one frame each) into the depacketizer.
    pub const PI_MCTP_RX: u8 = 0x83;
    pub const PO_MPA: u8 = 0xA0;
    pub const PO_MCTP: u8 = 0xA1;
    /// ULPDUs, `m_len` and the verdict beside every beat.
    pub const PO_MPA_RX: u8 = 0xA2;
    /// Reassembled messages, EIDs, tag and TO beside every beat.
    pub const PO_MCTP_RX: u8 = 0xA3;
    pub const STATUS_MPA_OVERFLOW: u16 = 1 << 8;
    pub const STATUS_MCTP_OVERFLOW: u16 = 1 << 9;
    pub const STATUS_MPA_IDLE: u16 = 1 << 10;
    pub const STATUS_MCTP_IDLE: u16 = 1 << 11;
    pub const STATUS_MPA_RX_OVERFLOW: u16 = 1 << 12;
    pub const STATUS_MCTP_RX_OVERFLOW: u16 = 1 << 13;
    pub const STATUS_MPA_RX_IDLE: u16 = 1 << 14;
    pub const STATUS_MCTP_RX_IDLE: u16 = 1 << 15;
}

/// The side channel of a receive output beat: 21 bits, `[15:0]` in the beat's third word and
/// `[20:16]` in its flags word (`FLAG_SIDE_SHIFT`).
pub mod side {
    pub const BITS: usize = 21;
    /// MPA RX: `mpa_rx_m_len` (the ULPDU_Length of the FPDU).
    pub const MPA_LEN_MASK: u32 = 0xFFFF;
    /// MPA RX: `mpa_rx_m_tuser` (meaningful on the last beat: the ULPDU is bad).
    pub const MPA_BAD: u32 = 1 << 16;
    /// MCTP RX: source EID `[7:0]`, destination EID `[15:8]`, tag `[18:16]`, TO bit 19.
    pub const MCTP_DST_SHIFT: u32 = 8;
    pub const MCTP_TAG_SHIFT: u32 = 16;
    pub const MCTP_TO: u32 = 1 << 19;
}

/// Depth of each input FIFO, in 16-bit pipe words, and of each output FIFO, in beats.
pub const IN_FIFO_WORDS: usize = 1024;
pub const OUT_FIFO_BEATS: usize = 512;
/// Octets per beat of the board's `OffloadTop`.
pub const BEAT_OCTETS: usize = 4;
/// Output flags word: valid, the side channel's `[20:16]`, last, keep.
pub const FLAG_VALID: u16 = 1 << 15;
pub const FLAG_LAST: u16 = 1 << 4;
pub const FLAG_SIDE_SHIFT: u32 = 5;
/// Pipe words per output beat: data low, data high, flags; the receive outputs add the side
/// channel's low half before the flags.
pub const TX_BEAT_WORDS: usize = 3;
pub const RX_BEAT_WORDS: usize = 4;

/// What the transport needs of FrontPanel: the calls of Opal Kelly's API it uses, with 16-bit
/// pipe words (the XEM7010's USB 2.0 interface is 16 bits wide, octets little-endian).
pub trait FrontPanel {
    fn set_wire_in(&mut self, ep: u8, value: u16) -> Result<(), RegisterError>;
    fn update_wire_ins(&mut self) -> Result<(), RegisterError>;
    fn activate_trigger_in(&mut self, ep: u8, bit: u8) -> Result<(), RegisterError>;
    fn update_wire_outs(&mut self) -> Result<(), RegisterError>;
    /// The value read by the last `update_wire_outs`.
    fn wire_out(&mut self, ep: u8) -> u16;
    fn write_pipe_in(&mut self, ep: u8, words: &[u16]) -> Result<(), RegisterError>;
    fn read_pipe_out(&mut self, ep: u8, words: &mut [u16]) -> Result<(), RegisterError>;
    /// Clock cycles of the design, when known (a simulation).
    fn cycles(&self) -> Option<u64> {
        None
    }
}

/// One frame as pipe words: `len[15:0]`, `len[16]`, then the octets (little-endian pairs)
/// zero-padded to whole 4-octet beats, at least one.
pub fn encode_frame(frame: &[u8], out: &mut Vec<u16>) -> Result<(), RegisterError> {
    if frame.len() >= 1 << 17 {
        return Err(RegisterError::Bus(format!(
            "a frame of {} octets does not fit the 17-bit length",
            frame.len()
        )));
    }
    out.push(frame.len() as u16);
    out.push((frame.len() >> 16) as u16);
    let beats = frame.len().div_ceil(BEAT_OCTETS).max(1);
    for i in 0..2 * beats {
        let b = |k: usize| frame.get(k).copied().unwrap_or(0) as u16;
        out.push(b(2 * i) | b(2 * i + 1) << 8);
    }
    Ok(())
}

/// One output frame: its octets and the side channel of its last beat (0 on the transmit
/// outputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFrame {
    pub bytes: Vec<u8>,
    pub side: u32,
}

/// Collects output beats (`words` pipe words each: [`TX_BEAT_WORDS`] or [`RX_BEAT_WORDS`]) into
/// frames.
#[derive(Debug)]
pub struct BeatDecoder {
    words: usize,
    cur: Vec<u8>,
    pub frames: Vec<OutFrame>,
}

impl BeatDecoder {
    pub fn new(words: usize) -> BeatDecoder {
        assert!(words == TX_BEAT_WORDS || words == RX_BEAT_WORDS, "{words} words a beat");
        BeatDecoder { words, cur: Vec::new(), frames: Vec::new() }
    }

    /// Feeds whole beats; not-valid (filler) beats are skipped.
    pub fn push(&mut self, words: &[u16]) -> Result<(), RegisterError> {
        if words.len() % self.words != 0 {
            return Err(RegisterError::Bus(
                "pipe-out data is not whole beats".into(),
            ));
        }
        for t in words.chunks(self.words) {
            let flags = t[self.words - 1];
            if flags & FLAG_VALID == 0 {
                continue;
            }
            let data = (t[0] as u32 | (t[1] as u32) << 16).to_le_bytes();
            let keep = flags & 0xF;
            if keep & (keep + 1) != 0 {
                return Err(RegisterError::Bus(format!(
                    "beat with tkeep {keep:#x}: not contiguous"
                )));
            }
            self.cur
                .extend_from_slice(&data[..keep.count_ones() as usize]);
            if flags & FLAG_LAST != 0 {
                let mut side = (((flags >> FLAG_SIDE_SHIFT) & 0x1F) as u32) << 16;
                if self.words == RX_BEAT_WORDS {
                    side |= t[2] as u32;
                }
                self.frames.push(OutFrame { bytes: std::mem::take(&mut self.cur), side });
            }
        }
        Ok(())
    }

    /// True when no frame is half received.
    pub fn between_frames(&self) -> bool {
        self.cur.is_empty()
    }
}

/// `OffloadTop`'s register bus and streams over FrontPanel.
pub struct OkTransport<F: FrontPanel> {
    fp: F,
    /// Give up on a register access or a stream after this many wire-out polls.
    pub max_polls: usize,
}

impl<F: FrontPanel> OkTransport<F> {
    /// Resets the bridge and `OffloadTop` (WireIn 0x03 bit 0 pulsed).
    pub fn new(mut fp: F) -> Result<Self, RegisterError> {
        fp.set_wire_in(ep::WI_CONTROL, 1)?;
        fp.update_wire_ins()?;
        fp.set_wire_in(ep::WI_CONTROL, 0)?;
        fp.update_wire_ins()?;
        Ok(OkTransport {
            fp,
            max_polls: 10_000,
        })
    }

    pub fn frontpanel(&mut self) -> &mut F {
        &mut self.fp
    }

    fn status(&mut self) -> Result<u16, RegisterError> {
        self.fp.update_wire_outs()?;
        Ok(self.fp.wire_out(ep::WO_STATUS))
    }

    /// Starts an access with the trigger `bit` and waits until the access counter moves.
    fn access(&mut self, offset: u8, bit: u8, what: &str) -> Result<(), RegisterError> {
        let before = self.status()? & 0xFF;
        self.fp.set_wire_in(ep::WI_ADDR, offset as u16)?;
        self.fp.update_wire_ins()?;
        self.fp.activate_trigger_in(ep::TI_BUS, bit)?;
        for _ in 0..self.max_polls {
            if self.status()? & 0xFF == (before + 1) & 0xFF {
                return Ok(());
            }
        }
        Err(RegisterError::Bus(format!(
            "register {what} of 0x{offset:02X} did not complete over FrontPanel"
        )))
    }
}

impl<F: FrontPanel> RegisterBus for OkTransport<F> {
    fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
        self.access(offset, ep::TI_READ_BIT, "read")?;
        Ok(self.fp.wire_out(ep::WO_DATA_LO) as u32
            | (self.fp.wire_out(ep::WO_DATA_HI) as u32) << 16)
    }

    fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
        self.fp.set_wire_in(ep::WI_DATA_LO, value as u16)?;
        self.fp.set_wire_in(ep::WI_DATA_HI, (value >> 16) as u16)?;
        self.access(offset, ep::TI_WRITE_BIT, "write")
    }
}

/// One path's endpoints.
struct Path {
    pipe_in: u8,
    pipe_out: u8,
    wo_free: u8,
    wo_count: u8,
    idle_bit: u16,
    overflow_bit: u16,
    beat_words: usize,
    /// A frame may be left open when the input is in (the MPA receiver holds an FPDU cut short
    /// until more of the stream comes); it is not returned.
    open_end: bool,
}

const MPA_TX: Path = Path {
    pipe_in: ep::PI_MPA,
    pipe_out: ep::PO_MPA,
    wo_free: ep::WO_MPA_IN_FREE,
    wo_count: ep::WO_MPA_OUT_COUNT,
    idle_bit: ep::STATUS_MPA_IDLE,
    overflow_bit: ep::STATUS_MPA_OVERFLOW,
    beat_words: TX_BEAT_WORDS,
    open_end: false,
};
const MCTP_TX: Path = Path {
    pipe_in: ep::PI_MCTP,
    pipe_out: ep::PO_MCTP,
    wo_free: ep::WO_MCTP_IN_FREE,
    wo_count: ep::WO_MCTP_OUT_COUNT,
    idle_bit: ep::STATUS_MCTP_IDLE,
    overflow_bit: ep::STATUS_MCTP_OVERFLOW,
    beat_words: TX_BEAT_WORDS,
    open_end: false,
};
const MPA_RX: Path = Path {
    pipe_in: ep::PI_MPA_RX,
    pipe_out: ep::PO_MPA_RX,
    wo_free: ep::WO_MPA_RX_IN_FREE,
    wo_count: ep::WO_MPA_RX_OUT_COUNT,
    idle_bit: ep::STATUS_MPA_RX_IDLE,
    overflow_bit: ep::STATUS_MPA_RX_OVERFLOW,
    beat_words: RX_BEAT_WORDS,
    open_end: true,
};
const MCTP_RX: Path = Path {
    pipe_in: ep::PI_MCTP_RX,
    pipe_out: ep::PO_MCTP_RX,
    wo_free: ep::WO_MCTP_RX_IN_FREE,
    wo_count: ep::WO_MCTP_RX_OUT_COUNT,
    idle_bit: ep::STATUS_MCTP_RX_IDLE,
    overflow_bit: ep::STATUS_MCTP_RX_OVERFLOW,
    beat_words: RX_BEAT_WORDS,
    open_end: false,
};

/// One path during a stream.
struct Lane {
    path: &'static Path,
    words: Vec<u16>,
    sent: usize,
    out: BeatDecoder,
}

impl<F: FrontPanel> OkTransport<F> {
    /// Sends each path's frames and collects its output frames, concurrently, until every
    /// input is in and idle and the outputs have been quiet for a few polls.
    fn run(&mut self, paths: &[(&'static Path, &[Vec<u8>])]) -> Result<Vec<Vec<OutFrame>>, RegisterError> {
        let mut lanes = Vec::new();
        for &(path, frames) in paths {
            let mut words = Vec::new();
            for f in frames {
                encode_frame(f, &mut words)?;
            }
            lanes.push(Lane { path, words, sent: 0, out: BeatDecoder::new(path.beat_words) });
        }
        // Quiet polls in a row (inputs idle, nothing waiting) that end the stream.
        const QUIET: usize = 4;
        let mut quiet = 0;
        let mut buf = Vec::new();
        for _ in 0..self.max_polls {
            let status = self.status()?;
            let mut busy = false;
            for l in &mut lanes {
                let p = l.path;
                if status & p.overflow_bit != 0 {
                    return Err(RegisterError::Bus(format!(
                        "FPGA input FIFO of pipe 0x{:02X} overflowed (status bit set)",
                        p.pipe_in
                    )));
                }
                let free = self.fp.wire_out(p.wo_free) as usize;
                let n = self.fp.wire_out(p.wo_count) as usize;
                let left = l.words.len() - l.sent;
                // Whole pairs only (USB 2.0 pipes move 16-bit words; even counts keep it simple).
                let k = left.min(free & !1);
                if k > 0 {
                    self.fp.write_pipe_in(p.pipe_in, &l.words[l.sent..l.sent + k])?;
                    l.sent += k;
                }
                if n > 0 {
                    buf.resize(p.beat_words * n, 0);
                    self.fp.read_pipe_out(p.pipe_out, &mut buf)?;
                    l.out.push(&buf)?;
                }
                busy |= k > 0
                    || n > 0
                    || l.sent < l.words.len()
                    || status & p.idle_bit == 0
                    || !(p.open_end || l.out.between_frames());
            }
            quiet = if busy { 0 } else { quiet + 1 };
            if quiet >= QUIET {
                return Ok(lanes.into_iter().map(|l| l.out.frames).collect());
            }
        }
        Err(RegisterError::Bus(format!(
            "streams did not finish within {} FrontPanel polls",
            self.max_polls
        )))
    }
}

impl<F: FrontPanel> TopStreams for OkTransport<F> {
    fn stream(
        &mut self,
        ulpdus: &[Vec<u8>],
        messages: &[Vec<u8>],
    ) -> Result<StreamOutput, RegisterError> {
        let mut out = self.run(&[(&MPA_TX, ulpdus), (&MCTP_TX, messages)])?.into_iter();
        let mut bytes = || out.next().unwrap_or_default().into_iter().map(|f| f.bytes).collect();
        Ok((bytes(), bytes()))
    }

    fn stream_rx(&mut self, frames: &[Vec<u8>]) -> Result<Vec<Message>, RegisterError> {
        let out = self.run(&[(&MCTP_RX, frames)])?;
        Ok(out
            .into_iter()
            .flatten()
            .map(|f| Message {
                src: f.side as u8,
                dst: (f.side >> side::MCTP_DST_SHIFT) as u8,
                tag: (f.side >> side::MCTP_TAG_SHIFT) as u8 & 7,
                tag_owner: f.side & side::MCTP_TO != 0,
                bytes: f.bytes,
            })
            .collect())
    }

    fn stream_mpa_rx(&mut self, segments: &[Vec<u8>]) -> Result<MpaRxFrames, RegisterError> {
        let out = self.run(&[(&MPA_RX, segments)])?;
        out.into_iter()
            .flatten()
            .map(|f| {
                let bad = f.side & side::MPA_BAD != 0;
                let len = (f.side & side::MPA_LEN_MASK) as usize;
                // A good ULPDU is whole: its length is the FPDU's ULPDU_Length.
                if !bad && f.bytes.len() != len {
                    return Err(RegisterError::Bus(format!(
                        "a good ULPDU of {} octets with m_len {len}",
                        f.bytes.len()
                    )));
                }
                Ok((f.bytes, bad))
            })
            .collect()
    }

    fn cycles(&self) -> Option<u64> {
        self.fp.cycles()
    }
}

#[cfg(feature = "board")]
pub mod frontpanel;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_encode_as_length_then_padded_beats() {
        let mut w = Vec::new();
        encode_frame(&[1, 2, 3, 4, 5], &mut w).unwrap();
        assert_eq!(w, vec![5, 0, 0x0201, 0x0403, 0x0005, 0]);
        w.clear();
        encode_frame(&[], &mut w).unwrap();
        assert_eq!(w, vec![0, 0, 0, 0], "an empty frame is one empty beat");
        w.clear();
        encode_frame(&vec![7; 65536], &mut w).unwrap();
        assert_eq!(&w[..2], &[0, 1]);
        assert_eq!(w.len(), 2 + 65536 / 2);
        assert!(encode_frame(&vec![0; 1 << 17], &mut w).is_err());
    }

    #[test]
    fn beats_decode_into_frames_and_fillers_are_skipped() {
        let mut d = BeatDecoder::new(TX_BEAT_WORDS);
        let v = FLAG_VALID;
        d.push(&[
            0x0201,
            0x0403,
            v | 0xF,
            0,
            0,
            0,
            0x0005,
            0,
            v | FLAG_LAST | 0x1,
        ])
        .unwrap();
        assert_eq!(d.frames, vec![OutFrame { bytes: vec![1, 2, 3, 4, 5], side: 0 }]);
        assert!(d.between_frames());
        d.push(&[0x0201, 0, v | 0x3]).unwrap();
        assert!(!d.between_frames());
        assert!(d.push(&[0, 0, v | 0x5]).is_err(), "non-contiguous keep");
        assert!(d.push(&[0, 0]).is_err(), "not whole triples");
    }

    #[test]
    fn receive_beats_carry_the_side_channel_of_the_last_beat() {
        let mut d = BeatDecoder::new(RX_BEAT_WORDS);
        let v = FLAG_VALID;
        let side_hi = |s: u32| ((s >> 16) as u16) << FLAG_SIDE_SHIFT;
        // MCTP RX: src 0x10, dst 0x20, tag 5, TO.
        let s = 0x10 | 0x20 << side::MCTP_DST_SHIFT | 5 << side::MCTP_TAG_SHIFT | side::MCTP_TO;
        d.push(&[0x0201, 0x0403, s as u16, v | side_hi(s) | 0xF, 0x0605, 0, s as u16, v | side_hi(s) | FLAG_LAST | 0x3])
            .unwrap();
        assert_eq!(d.frames, vec![OutFrame { bytes: vec![1, 2, 3, 4, 5, 6], side: s }]);
        // A filler beat (all zero) is skipped; three words are not a beat here.
        d.push(&[0, 0, 0, 0]).unwrap();
        assert_eq!(d.frames.len(), 1);
        assert!(d.push(&[0, 0, 0]).is_err());
    }
}
