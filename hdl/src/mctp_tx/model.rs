//! The MCTP TX packetizer, clock by clock: the register-transfer model that the emitted Verilog
//! mirrors statement by statement and that rust-hdl's simulator runs.
//!
//! # Datapath
//! The output is one AXI-Stream frame per MCTP packet:
//! `[SMBus prefix (4)] · transport header (4) · payload (≤ MTU) · [PEC (1)]`, every frame
//! starting in lane 0. The payload stream is the message followed, when asked, by its NVMe-MI
//! MIC, exactly as `offload_driver::mctp::transmit` builds it (MIC appended first, then the
//! whole split into MTU-sized packets — so the MIC may straddle the last two packets).
//!
//! 1. **Window.** Input octets go into a byte window (`win`, `h` octets, at most `2W+4`); an
//!    output beat takes its payload octets from the front of `{win, this beat}` (items), so a
//!    beat taken in a cycle can leave in the same cycle. The octets of a beat past `tkeep` are
//!    masked to zero and the window above `h` is always zero.
//! 2. **MIC.** The CRC-32C step of the CRC engine (`crc::CrcNetwork::step`) runs over every
//!    taken beat; on the message's last beat the finished MIC is appended to the items right
//!    after the last message octet (low octet first), four more items.
//! 3. **Frame assembly.** `hpos` counts the header octets already sent in this frame; a beat
//!    holds `nh = min(hdr_len − hpos, W)` header octets, then `p = min(W − nh, pkt_left)`
//!    payload octets, then (SMBus) the PEC when it fits; a PEC that does not fit goes alone in
//!    the next beat (`pkt_left = 0` with the header done). Only a frame's last beat is partial.
//! 4. **PEC.** The CRC-8/SMBUS step runs over the lanes before the PEC lane of every beat of
//!    the frame; the PEC lane takes its finished value.
//!
//! # Flow control
//! The output beat is a register; a new one is formed when it is empty or being taken (`adv`).
//! A beat is taken when `adv` holds and, mid-message, `h ≤ W`: then a beat always leaves (it has
//! at least `p` octets), so the window never exceeds `2W+4`. The next message's first beat is
//! taken once the previous message's last frame has gone out (in that same clock, no bubble).
//!
//! # Side channels
//! With a message's first beat: `s_len` (message octets, 17 bits: up to 65 536) and the header
//! fields `cfg_*`; they are latched then and may change during the message. A message the
//! software `transmit` refuses (empty or too long, MTU outside 64..=251, above 250 with SMBus,
//! reserved or broadcast source EID, reserved destination EID, MIC asked with the IC bit clear
//! or a message + MIC over 4224 octets) is dropped whole and counted in `dropped`. `s_len` must
//! equal the octets the frame carries; if it does not, the block does not hang: a short message
//! is padded with zero octets, the excess of a long one is discarded, and `len_errors` counts it.

use crate::crc::CrcNetwork;
use offload_driver::crc::CrcKind;
use offload_driver::mctp::header::{
    EID_BROADCAST, EID_RESERVED, EOM_BIT, HEADER_VERSION, SEQ_SHIFT, SOM_BIT, TO_BIT,
};
use offload_driver::mctp::smbus::COMMAND_CODE;
use offload_driver::mctp::{HEADER_LEN, MAX_MESSAGE_LEN, MAX_MTU, MIN_MTU, SMBUS_MAX_MTU};
use offload_driver::nvme_mi::{IC_BIT, MIC_LEN, OOB_MAX_MESSAGE_LEN};

/// SMBus prefix octets (destination, command code, byte count, source).
pub const SMBUS_PREFIX: usize = offload_driver::mctp::smbus::PREFIX_LEN;

/// Where the packetizer is in the current message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Between messages: the next input beat is a message's first.
    Idle,
    /// Input beats of the current message are still to come.
    Body,
    /// The message's input is all in; packets remain to be sent.
    Tail,
    /// Discarding input until `tlast` (a refused message, or the excess of a long one).
    Drop,
}

/// Input ports, sampled in one cycle.
#[derive(Clone, Debug, Default)]
pub struct TxIn {
    pub reset: bool,
    /// `W` octets, octet 0 first in stream order.
    pub s_tdata: Vec<u8>,
    pub s_tkeep: u64,
    pub s_tvalid: bool,
    pub s_tlast: bool,
    /// Message length in octets (17 bits), valid with the first beat.
    pub s_len: u32,
    pub cfg_src_eid: u8,
    pub cfg_dst_eid: u8,
    /// 3 bits.
    pub cfg_tag: u8,
    pub cfg_to: bool,
    /// Sequence number of the first packet, 2 bits.
    pub cfg_seq: u8,
    /// Payload octets per packet.
    pub cfg_mtu: u8,
    /// Append the NVMe-MI MIC.
    pub cfg_mic: bool,
    /// Wrap each packet in the SMBus binding.
    pub cfg_smbus: bool,
    /// 7-bit SMBus slave addresses.
    pub cfg_smbus_src: u8,
    pub cfg_smbus_dst: u8,
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
    /// Packets (frames) sent.
    pub packets: u32,
    /// Messages completely sent.
    pub messages: u32,
    /// Messages refused (dropped whole).
    pub dropped: u32,
    /// Messages whose octet count differed from `s_len`.
    pub len_errors: u32,
}

/// The header fields latched with a message's first beat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MsgCfg {
    pub src: u8,
    pub dst: u8,
    pub tag: u8,
    pub to: bool,
    pub mtu: u8,
    pub mic: bool,
    pub smbus: bool,
    pub sa_src: u8,
    pub sa_dst: u8,
}

/// The registers of the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxRegs {
    pub phase: Phase,
    /// Octets in the window (`win[h..]` is zero).
    pub h: usize,
    pub win: Vec<u8>,
    /// Message octets still to come on the input, per `s_len` (saturating).
    pub in_left: u32,
    /// Payload octets (message and MIC) of the message not yet sent.
    pub msg_left: u32,
    /// Payload octets of the current packet not yet sent (0 with the header done: PEC pending).
    pub pkt_left: u8,
    /// Header octets (SMBus prefix included) of the current frame already sent.
    pub hpos: u8,
    pub som: bool,
    pub eom: bool,
    pub seq: u8,
    pub cfg: MsgCfg,
    /// CRC-32C register (MIC) and CRC-8 register (PEC), in the engine's layout.
    pub mic_r: u64,
    pub pec_r: u64,
    pub m_tdata: Vec<u8>,
    pub m_tkeep: u64,
    pub m_tvalid: bool,
    pub m_tlast: bool,
    pub packets: u32,
    pub messages: u32,
    pub dropped: u32,
    pub len_errors: u32,
}

/// The packetizer model for one width.
#[derive(Clone, Debug)]
pub struct MctpTxModel {
    /// Octets per beat.
    pub w: usize,
    /// Window capacity in octets (`2W + 4`).
    pub hmax: usize,
    pub mic_net: CrcNetwork,
    pub pec_net: CrcNetwork,
    pub regs: TxRegs,
}

pub use crate::bits::low_ones as keep_mask;

/// True when the software `transmit` refuses a message with this length, first octet and
/// header configuration (the fields the ports can represent).
pub fn refused(len: u32, first: u8, c: &MsgCfg) -> bool {
    let mtu = c.mtu as usize;
    let len = len as usize;
    len == 0
        || len > MAX_MESSAGE_LEN
        || !(MIN_MTU..=MAX_MTU).contains(&mtu)
        || (c.smbus && mtu > SMBUS_MAX_MTU)
        || EID_RESERVED.contains(&c.src)
        || c.src == EID_BROADCAST
        || EID_RESERVED.contains(&c.dst)
        || (c.mic && (first & IC_BIT == 0 || len + MIC_LEN > OOB_MAX_MESSAGE_LEN))
}

impl MctpTxModel {
    pub fn new(w: usize) -> Self {
        assert!(matches!(w, 1 | 2 | 4 | 8), "MCTP TX width {w}: 1, 2, 4 or 8 octets");
        let hmax = 2 * w + MIC_LEN;
        let mic_net = CrcNetwork::new(CrcKind::Crc32c.params(), w);
        let pec_net = CrcNetwork::new(CrcKind::Crc8Smbus.params(), w);
        let regs = TxRegs {
            phase: Phase::Idle,
            h: 0,
            win: vec![0; hmax],
            in_left: 0,
            msg_left: 0,
            pkt_left: 0,
            hpos: 0,
            som: false,
            eom: false,
            seq: 0,
            cfg: MsgCfg::default(),
            mic_r: mic_net.init_r,
            pec_r: pec_net.init_r,
            m_tdata: vec![0; w],
            m_tkeep: 0,
            m_tvalid: false,
            m_tlast: false,
            packets: 0,
            messages: 0,
            dropped: 0,
            len_errors: 0,
        };
        MctpTxModel { w, hmax, mic_net, pec_net, regs }
    }

    /// The outputs as seen in the current cycle (registered ones, and the combinational
    /// `s_tready`).
    pub fn outputs(&self, i: &TxIn) -> TxOut {
        let (_, s_tready) = self.next_state(i);
        let r = &self.regs;
        TxOut {
            s_tready,
            m_tdata: r.m_tdata.clone(),
            m_tkeep: r.m_tkeep,
            m_tvalid: r.m_tvalid,
            m_tlast: r.m_tlast,
            packets: r.packets,
            messages: r.messages,
            dropped: r.dropped,
            len_errors: r.len_errors,
        }
    }

    /// The rising clock edge.
    pub fn clock(&mut self, i: &TxIn) {
        let (next, _) = self.next_state(i);
        self.regs = next;
    }

    /// Header octet `idx` of a frame (SMBus prefix first when `cfg.smbus`).
    pub fn header_octet(idx: usize, c: &MsgCfg, pkt_len: u8, som: bool, eom: bool, seq: u8) -> u8 {
        let flags = (u8::from(som) << SOM_BIT)
            | (u8::from(eom) << EOM_BIT)
            | ((seq & 3) << SEQ_SHIFT)
            | (u8::from(c.to) << TO_BIT)
            | (c.tag & 7);
        let mctp = [HEADER_VERSION, c.dst, c.src, flags];
        if c.smbus {
            // Byte count: source octet + MCTP header + payload (DSP0237).
            let count = pkt_len.wrapping_add(1 + HEADER_LEN as u8);
            let prefix = [c.sa_dst << 1, COMMAND_CODE, count, (c.sa_src << 1) | 1];
            if idx < SMBUS_PREFIX {
                prefix[idx]
            } else {
                mctp[idx - SMBUS_PREFIX]
            }
        } else {
            mctp[idx]
        }
    }

    /// Next register values and `s_tready` from the registers and the inputs.
    pub fn next_state(&self, i: &TxIn) -> (TxRegs, bool) {
        let r = &self.regs;
        let w = self.w;
        let mut nx = r.clone();
        if i.reset {
            let mut z = MctpTxModel::new(w).regs;
            z.win = vec![0; self.hmax];
            return (z, false);
        }
        let adv = !r.m_tvalid || i.m_tready;
        if adv {
            nx.m_tvalid = false;
        }
        let keep_in = if i.s_tlast { i.s_tkeep } else { keep_mask(w) };
        let k = CrcNetwork::valid_bytes(keep_in);
        let idle = r.phase == Phase::Idle;
        let in_cfg = MsgCfg {
            src: i.cfg_src_eid,
            dst: i.cfg_dst_eid,
            tag: i.cfg_tag & 7,
            to: i.cfg_to,
            mtu: i.cfg_mtu,
            mic: i.cfg_mic,
            smbus: i.cfg_smbus,
            sa_src: i.cfg_smbus_src & 0x7F,
            sa_dst: i.cfg_smbus_dst & 0x7F,
        };
        let s_len = i.s_len & 0x1_FFFF;

        if r.phase == Phase::Drop {
            if i.s_tvalid && i.s_tlast {
                nx.phase = Phase::Idle;
            }
            return (nx, true);
        }
        if idle && i.s_tvalid && refused(s_len, i.s_tdata[0], &in_cfg) {
            nx.dropped = r.dropped.wrapping_add(1);
            if !i.s_tlast {
                nx.phase = Phase::Drop;
            }
            return (nx, true);
        }

        // The message and packet state this cycle works on: the inputs on a first beat.
        let (cfg, in_left, msg_left, pkt_left, hpos, som, eom, seq, mic_r, pec_r) = if idle {
            let msg_left = s_len + if in_cfg.mic { MIC_LEN as u32 } else { 0 };
            let mtu = in_cfg.mtu as u32;
            (
                in_cfg,
                s_len,
                msg_left,
                msg_left.min(mtu) as u8,
                0u8,
                true,
                msg_left <= mtu,
                i.cfg_seq & 3,
                self.mic_net.init_r,
                self.pec_net.init_r,
            )
        } else {
            (r.cfg, r.in_left, r.msg_left, r.pkt_left, r.hpos, r.som, r.eom, r.seq, r.mic_r, r.pec_r)
        };

        let h = r.h;
        let take = adv && i.s_tvalid && (idle || (r.phase == Phase::Body && h <= w));
        let c_in = if take {
            if i.s_tlast {
                k
            } else {
                w
            }
        } else {
            0
        };
        let mic_nxt = self.mic_net.step(mic_r, &i.s_tdata, keep_in);
        let mic_fin = self.mic_net.finish(mic_nxt) as u32;
        let mic_add = take && i.s_tlast && cfg.mic;
        let c = c_in + if mic_add { MIC_LEN } else { 0 };
        // Items: the window, this beat's octets, the MIC.
        let mut items: Vec<u8> = r.win[..h].to_vec();
        items.extend((0..c_in).map(|b| if keep_in >> b & 1 != 0 { i.s_tdata[b] } else { 0 }));
        if mic_add {
            items.extend(mic_fin.to_le_bytes());
        }
        let ending = r.phase == Phase::Tail || (take && i.s_tlast);

        let hdr_len = if cfg.smbus { SMBUS_PREFIX + HEADER_LEN } else { HEADER_LEN };
        let nh = (hdr_len - hpos as usize).min(w);
        let room = w - nh;
        let p = room.min(pkt_left as usize);
        let pkt_end = pkt_left as usize <= room;
        let pec_here = cfg.smbus && pkt_end && nh + p < w;
        let frame_end = if cfg.smbus { pec_here } else { pkt_end };
        let used = nh + p + pec_here as usize;
        let enough = h + c >= p || ending;
        let active = !idle || take;
        let emit = adv && active && enough;
        if !emit {
            debug_assert!(!take, "a taken beat always forms an output beat");
            return (nx, take);
        }

        // The beat: header octets, payload octets, the PEC.
        let mut lanes = vec![0u8; w];
        for (j, lane) in lanes.iter_mut().enumerate() {
            if j < nh {
                *lane = Self::header_octet(hpos as usize + j, &cfg, pkt_left, som, eom, seq);
            } else if j < nh + p {
                *lane = items.get(j - nh).copied().unwrap_or(0);
            }
        }
        let pec_nxt = self.pec_net.step(pec_r, &lanes, keep_mask(nh + p));
        if pec_here {
            lanes[nh + p] = self.pec_net.finish(pec_nxt) as u8;
        }
        nx.m_tdata = lanes;
        nx.m_tkeep = keep_mask(used);
        nx.m_tvalid = true;
        nx.m_tlast = frame_end;

        let left = (h + c).saturating_sub(p);
        nx.h = left;
        nx.win = vec![0; self.hmax];
        if left > 0 {
            nx.win[..left].copy_from_slice(&items[p..p + left]);
        }
        nx.pec_r = if frame_end { self.pec_net.init_r } else { pec_nxt };
        nx.cfg = cfg;
        nx.som = som;
        nx.eom = eom;
        nx.seq = seq;
        nx.mic_r = if take { mic_nxt } else { mic_r };
        nx.in_left = in_left.saturating_sub(c_in as u32);
        let mut len_err = take && i.s_tlast && in_left != c_in as u32;
        let msg_left_n = msg_left - p as u32;
        nx.msg_left = msg_left_n;
        nx.hpos = hpos + nh as u8;
        nx.pkt_left = pkt_left - p as u8;
        nx.phase = if ending { Phase::Tail } else { Phase::Body };
        if frame_end {
            nx.packets = r.packets.wrapping_add(1);
            if msg_left_n == 0 {
                nx.messages = r.messages.wrapping_add(1);
                nx.h = 0;
                nx.win = vec![0; self.hmax];
                nx.mic_r = self.mic_net.init_r;
                if ending {
                    nx.phase = Phase::Idle;
                } else {
                    // More input than `s_len` said: discard it up to `tlast`.
                    nx.phase = Phase::Drop;
                    len_err = true;
                }
            } else {
                let mtu = cfg.mtu as u32;
                nx.pkt_left = msg_left_n.min(mtu) as u8;
                nx.eom = msg_left_n <= mtu;
                nx.som = false;
                nx.seq = (seq + 1) & 3;
                nx.hpos = 0;
            }
        }
        if len_err {
            nx.len_errors = r.len_errors.wrapping_add(1);
        }
        (nx, take)
    }
}
