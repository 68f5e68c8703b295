//! The MPA TX framer, clock by clock: the register-transfer model that the emitted Verilog
//! mirrors line for line and that rust-hdl's simulator runs.
//!
//! # Datapath
//! The stream is handled in 4-octet words: FPDUs, Markers and CRCs are all multiples of 4 and
//! start on 4-aligned stream offsets (RFC 5044 §4.2–4.3), so a beat of `W` octets is `N = W/4`
//! word lanes and nothing is ever split below a word.
//!
//! 1. **Gearbox.** The FPDU body (ULPDU_Length · ULPDU · PAD) is the ULPDU shifted by the two
//!    header octets. A 16-bit carry holds the last two octets of each input beat (the header on
//!    a ULPDU's first beat), so body word `j` of a beat is `{beat, carry}[32j+31:32j]`: fixed
//!    wiring, no shifter. The last beat, masked by `tkeep` (which makes the PAD zeros), yields
//!    `⌈(2+k)/4⌉` words, which is `N+1` when `k > W-2`.
//! 2. **Lane assembly.** Each output beat takes items in order — body words held from earlier
//!    beats, this beat's body words, and the CRC word once the ULPDU has ended — and inserts a
//!    Marker in the lane whose stream offset is a multiple of 512 (at most one per beat since
//!    `W ≤ 64`), if an item of the FPDU follows it. Items that do not fit are held (at most
//!    `N+1`). Every FPDU starts in lane 0 of a new beat, so the holding never mixes FPDUs.
//! 3. **CRC (stage B).** The assembled beat is registered (stage A → B), then the lanes before
//!    the CRC lane (all lanes on other beats) go through the CRC engine's network
//!    (`crc::CrcNetwork::step`, the same partial-beat scheme) and the finished CRC is put in
//!    its lane on the way to the output register, low octet first. So every Marker inside the
//!    FPDU, one right after the PAD, and a leading one with FPDUPTR 0 are covered (§4.4), and
//!    the CRC network and the lane assembly are in separate clock stages.
//!
//! # Flow control
//! The input port is a two-entry skid buffer (`in_main`, `in_skid`): `s_tready` is a register
//! output (the skid entry is free), as NIC shells expect, and the buffer already holds what the
//! assembly needs from a beat (the octets masked by `tkeep` and the beat's body word count), so
//! no path runs from the input pins into the lane logic. Then two registered stages (assembly
//! → CRC/output), each advancing when it is empty or its successor takes its beat (`adv`,
//! `adv_b`); latency three clocks. A buffered beat is taken when `adv` holds and the held words
//! plus this beat's Marker leave room (`h + m ≤ N`), which never throttles input for FPDUs up
//! to `N` Markers long; otherwise the beat is formed from held words alone. One ULPDU per beat
//! back to back runs at one FPDU per clock; a ULPDU whose tail does not fit its last beat costs
//! one more.
//!
//! # Configuration
//! `cfg_markers`, `cfg_crc` and `cfg_mulpdu` are read live (change them only between FPDUs);
//! `cfg_offset` (the stream offset of the first octet, mod 2^16, a multiple of 4) is loaded at
//! reset. A ULPDU whose `s_len` is 0 or above MULPDU is dropped whole and counted; `s_len` must
//! equal the octets the frame carries (DDP knows it), which the block does not re-check.

use crate::crc::CrcNetwork;
use offload_driver::crc::CrcKind;

/// Marker period and size, in octets (RFC 5044 §4.3), from the software model.
use offload_driver::mpa::{MARKER_INTERVAL, MARKER_LEN};

/// Where the framer is in the current ULPDU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Between FPDUs: the next input beat is a ULPDU's first.
    Idle,
    /// Input beats of the current ULPDU are still to come.
    Body,
    /// The ULPDU's input is all in; held words and the CRC remain to be sent.
    Tail,
    /// Discarding a ULPDU with a bad length until its `tlast`.
    Drop,
}

/// Input ports, sampled in one cycle.
#[derive(Clone, Debug, Default)]
pub struct TxIn {
    pub reset: bool,
    pub cfg_markers: bool,
    pub cfg_crc: bool,
    pub cfg_mulpdu: u16,
    pub cfg_offset: u16,
    /// `W` octets, octet 0 first in stream order.
    pub s_tdata: Vec<u8>,
    pub s_tkeep: u64,
    pub s_tvalid: bool,
    pub s_tlast: bool,
    /// ULPDU length, valid with the first beat of a ULPDU.
    pub s_len: u16,
    pub m_tready: bool,
}

/// Output ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TxOut {
    pub s_tready: bool,
    pub m_tdata: Vec<u8>,
    pub m_tkeep: u64,
    pub m_tvalid: bool,
    pub m_tlast: bool,
    /// FPDUs sent.
    pub fpdus: u32,
    /// ULPDUs dropped for a length of 0 or over MULPDU.
    pub dropped: u32,
}

/// An input beat as the skid buffer holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InBeat {
    /// `W` octets, those outside `tkeep` zeroed (so the PAD comes out as zeros).
    pub data: Vec<u8>,
    pub last: bool,
    /// `s_len` as it came with the beat (read on a ULPDU's first beat).
    pub len: u16,
    /// Body words this beat yields: `N`, or `⌈(2+k)/4⌉` on a last beat of `k` octets.
    pub count: usize,
}

/// The registers of the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxRegs {
    /// Input skid buffer: the beat the assembly sees, and the one taken while it was stalled.
    pub in_main: Option<InBeat>,
    pub in_skid: Option<InBeat>,
    pub phase: Phase,
    /// Stream offset (mod 2^16) of lane 0 of the next output beat.
    pub off: u16,
    /// Stream offset of the current FPDU's ULPDU_Length field.
    pub hdr_off: u16,
    /// The FPDU has started but its ULPDU_Length word has not been sent yet.
    pub hdr_pending: bool,
    /// Body words taken from input but not yet sent, oldest first (`held.len() ≤ N+1`).
    pub held: Vec<u32>,
    /// The last two octets of the previous input beat (octet 0 in bits 7:0).
    pub carry: u16,
    /// CRC register (the engine's consumption-order layout), advanced by stage B.
    pub crc_r: u64,
    /// Stage A → B pipeline register: an assembled beat without its CRC word.
    pub a_valid: bool,
    pub a_lanes: Vec<u32>,
    pub a_keep: u64,
    /// Lane of the CRC word (the FPDU's last beat), if in this beat.
    pub a_crc_lane: Option<usize>,
    pub m_tdata: Vec<u32>,
    pub m_tkeep: u64,
    pub m_tvalid: bool,
    pub m_tlast: bool,
    pub fpdus: u32,
    pub dropped: u32,
}

/// One item of an output beat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    Body(u32),
    Crc,
}

/// The framer model for one width.
#[derive(Clone, Debug)]
pub struct MpaTxModel {
    /// Octets per beat.
    pub w: usize,
    /// Word lanes per beat.
    pub n: usize,
    pub net: CrcNetwork,
    pub regs: TxRegs,
}

pub use crate::bits::low_ones as keep_mask;

impl MpaTxModel {
    pub fn new(w: usize) -> Self {
        assert!(w >= 4 && w <= 64 && w.is_power_of_two(), "MPA TX width {w}: 4..=64 octets, a power of 2");
        let n = w / 4;
        let net = CrcNetwork::new(CrcKind::Crc32c.params(), w);
        let regs = TxRegs {
            in_main: None,
            in_skid: None,
            phase: Phase::Idle,
            off: 0,
            hdr_off: 0,
            hdr_pending: false,
            held: Vec::new(),
            carry: 0,
            crc_r: net.init_r,
            a_valid: false,
            a_lanes: vec![0; n],
            a_keep: 0,
            a_crc_lane: None,
            m_tdata: vec![0; n],
            m_tkeep: 0,
            m_tvalid: false,
            m_tlast: false,
            fpdus: 0,
            dropped: 0,
        };
        MpaTxModel { w, n, net, regs }
    }

    /// Lane of this beat's Marker (the lane whose stream offset is a multiple of 512), if any.
    pub fn marker_lane(&self, off: u16, markers: bool) -> Option<usize> {
        if !markers {
            return None;
        }
        let to_next = ((MARKER_INTERVAL - off as u64 % MARKER_INTERVAL) % MARKER_INTERVAL) as usize;
        let lane = to_next / MARKER_LEN;
        (lane < self.n).then_some(lane)
    }

    /// The input beat on the ports, as the skid buffer stores it.
    fn in_beat(&self, i: &TxIn) -> InBeat {
        let keep = if i.s_tlast { i.s_tkeep } else { keep_mask(self.w) };
        let data = (0..self.w).map(|b| if keep >> b & 1 != 0 { i.s_tdata[b] } else { 0 }).collect();
        let count = if i.s_tlast {
            (2 + crate::crc::network::CrcNetwork::valid_bytes(keep)).div_ceil(4)
        } else {
            self.n
        };
        InBeat { data, last: i.s_tlast, len: i.s_len, count }
    }

    /// Body words of a buffered beat: `{beat, carry}` cut into 32-bit words, `N` of them, plus
    /// the extra word holding the beat's last two octets.
    fn beat_words(&self, data: &[u8], carry: u16) -> Vec<u32> {
        let mut bytes = Vec::with_capacity(self.w + 4);
        bytes.extend_from_slice(&carry.to_le_bytes());
        bytes.extend_from_slice(data);
        bytes.extend_from_slice(&[0, 0]);
        bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
    }

    /// The outputs as seen in the current cycle (registered ones, and the combinational
    /// `s_tready`).
    pub fn outputs(&self, i: &TxIn) -> TxOut {
        let (next, s_tready) = self.next_state(i);
        let _ = next;
        let r = &self.regs;
        TxOut {
            s_tready,
            m_tdata: r.m_tdata.iter().flat_map(|w| w.to_le_bytes()).collect(),
            m_tkeep: r.m_tkeep,
            m_tvalid: r.m_tvalid,
            m_tlast: r.m_tlast,
            fpdus: r.fpdus,
            dropped: r.dropped,
        }
    }

    /// The rising clock edge.
    pub fn clock(&mut self, i: &TxIn) {
        let (next, _) = self.next_state(i);
        self.regs = next;
    }

    /// Next register values and `s_tready` from the registers and the inputs.
    pub fn next_state(&self, i: &TxIn) -> (TxRegs, bool) {
        let r = &self.regs;
        let s_tready = !i.reset && r.in_skid.is_none();
        let (mut nx, pop) = self.core(i, r.in_main.as_ref());
        if i.reset {
            return (nx, false);
        }
        // The skid buffer: the assembly pops `in_main`; the skid entry moves up; a beat
        // accepted on the port fills the first free entry.
        if pop {
            nx.in_main = r.in_skid.clone();
            nx.in_skid = None;
        }
        if i.s_tvalid && s_tready {
            let b = Some(self.in_beat(i));
            if nx.in_main.is_none() {
                nx.in_main = b;
            } else {
                debug_assert!(nx.in_skid.is_none());
                nx.in_skid = b;
            }
        }
        (nx, s_tready)
    }

    /// Everything behind the skid buffer: next registers, and whether the buffered beat `b` is
    /// consumed (taken into the FPDU, or discarded with a dropped ULPDU).
    fn core(&self, i: &TxIn, b: Option<&InBeat>) -> (TxRegs, bool) {
        let r = &self.regs;
        let mut nx = r.clone();
        if i.reset {
            nx.in_main = None;
            nx.in_skid = None;
            nx.phase = Phase::Idle;
            nx.off = i.cfg_offset & !3;
            nx.hdr_off = 0;
            nx.hdr_pending = false;
            nx.held.clear();
            nx.carry = 0;
            nx.crc_r = self.net.init_r;
            nx.a_valid = false;
            nx.a_lanes = vec![0; self.n];
            nx.a_keep = 0;
            nx.a_crc_lane = None;
            nx.m_tdata = vec![0; self.n];
            nx.m_tkeep = 0;
            nx.m_tvalid = false;
            nx.m_tlast = false;
            nx.fpdus = 0;
            nx.dropped = 0;
            return (nx, false);
        }
        let n = self.n;
        // Stage B: the CRC step over the lanes before the CRC lane (all lanes when the CRC is
        // not in this beat), the CRC word inserted, into the output register.
        let adv_b = !r.m_tvalid || i.m_tready;
        if adv_b {
            nx.m_tvalid = r.a_valid;
            nx.a_valid = false;
            if r.a_valid {
                let covered = r.a_crc_lane.unwrap_or(n);
                let data: Vec<u8> = r.a_lanes.iter().flat_map(|w| w.to_le_bytes()).collect();
                let stepped = self.net.step(r.crc_r, &data, keep_mask(4 * covered));
                let mut lanes = r.a_lanes.clone();
                if let Some(l) = r.a_crc_lane {
                    lanes[l] = if i.cfg_crc { self.net.finish(stepped) as u32 } else { 0 };
                    nx.crc_r = self.net.init_r;
                    nx.fpdus = r.fpdus.wrapping_add(1);
                } else {
                    nx.crc_r = stepped;
                }
                nx.m_tdata = lanes;
                nx.m_tkeep = r.a_keep;
                nx.m_tlast = r.a_crc_lane.is_some();
            }
        }
        // Stage A: lane assembly, whenever its register is empty or being taken.
        let adv = !r.a_valid || adv_b;
        let valid = b.is_some();
        let empty = InBeat::default();
        let b = b.unwrap_or(&empty);

        // Bad lengths are dropped whole, whatever the output does.
        let len_bad = b.len == 0 || b.len > i.cfg_mulpdu;
        match r.phase {
            Phase::Drop => {
                if valid && b.last {
                    nx.phase = Phase::Idle;
                }
                return (nx, valid);
            }
            Phase::Idle if valid && len_bad => {
                nx.dropped = r.dropped.wrapping_add(1);
                if !b.last {
                    nx.phase = Phase::Drop;
                }
                return (nx, true);
            }
            _ => {}
        }

        let mpos = self.marker_lane(r.off, i.cfg_markers);
        let m = mpos.is_some() as usize;
        let h = r.held.len();
        let take = adv
            && valid
            && match r.phase {
                Phase::Idle => true,
                Phase::Body => h + m <= n,
                _ => false,
            };
        let first = r.phase == Phase::Idle;
        // The ULPDU_Length word is item 0 of this beat until it has been sent.
        let hdr_pending = (first && take) || r.hdr_pending;
        let ending = r.phase == Phase::Tail || (take && b.last);

        // The items of this beat, in stream order.
        let mut items: Vec<Item> = r.held.iter().map(|&w| Item::Body(w)).collect();
        if take {
            let carry = if first { b.len.swap_bytes() } else { r.carry };
            let words = self.beat_words(&b.data, carry);
            items.extend(words[..b.count].iter().map(|&w| Item::Body(w)));
            nx.carry = u16::from_le_bytes([b.data[self.w - 2], b.data[self.w - 1]]);
        }
        if ending {
            items.push(Item::Crc);
        }
        if !adv || (r.phase == Phase::Idle && !take) {
            return (nx, take);
        }

        // Fill the lanes.
        let mut lanes: Vec<u32> = vec![0; n];
        let mut used = 0usize;
        let mut next_item = 0usize;
        let mut crc_lane = None;
        let mut hdr_lane = None;
        let mut marker_at = None;
        for l in 0..n {
            if next_item == items.len() {
                break;
            }
            if Some(l) == mpos {
                marker_at = Some(l);
                used += 1;
                continue;
            }
            match items[next_item] {
                Item::Body(w) => {
                    if hdr_pending && next_item == 0 {
                        hdr_lane = Some(l);
                    }
                    lanes[l] = w;
                }
                Item::Crc => crc_lane = Some(l),
            }
            next_item += 1;
            used += 1;
        }
        let complete = used == n || crc_lane.is_some();
        if !complete {
            // Not enough to fill a beat and the FPDU goes on: keep what was taken.
            debug_assert!(!take, "a taken beat always completes an output beat");
            return (nx, take);
        }
        let hdr_off = match hdr_lane {
            Some(l) => r.off.wrapping_add(4 * l as u16),
            None => r.hdr_off,
        };
        if let Some(l) = marker_at {
            // Before the ULPDU_Length field of the FPDU it belongs to: FPDUPTR 0 (§4.3).
            let at = r.off.wrapping_add(4 * l as u16);
            let before_header = hdr_pending && hdr_lane.is_none_or(|h| h > l);
            let ptr = if before_header { 0 } else { at.wrapping_sub(hdr_off) };
            lanes[l] = (ptr.swap_bytes() as u32) << 16;
        }
        nx.phase = match (crc_lane, ending) {
            (Some(_), _) => Phase::Idle,
            (None, true) => Phase::Tail,
            (None, false) => Phase::Body,
        };
        nx.hdr_off = hdr_off;
        nx.hdr_pending = hdr_pending && hdr_lane.is_none();
        nx.held = items[next_item..]
            .iter()
            .filter_map(|it| match it {
                Item::Body(w) => Some(*w),
                Item::Crc => None,
            })
            .collect();
        debug_assert!(nx.held.len() <= n + 1, "held {} > N+1", nx.held.len());
        nx.a_lanes = lanes;
        nx.a_valid = true;
        nx.a_crc_lane = crc_lane;
        nx.a_keep = keep_mask(4 * used);
        nx.off = r.off.wrapping_add(4 * used as u16);
        (nx, take)
    }
}
