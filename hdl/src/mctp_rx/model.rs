//! The MCTP RX depacketizer, clock by clock: the register-transfer model that the emitted
//! Verilog mirrors statement by statement and that rust-hdl's simulator runs.
//!
//! # Why whole messages are buffered
//! The reference (`offload_driver::mctp::receive` with one reassembly context) delivers
//! messages in completion order, and a single-packet message for another key completes while
//! a multi-packet one is still open. A stream that cut through would already be inside the
//! open message's frame and could not emit the other one first, and octets of a message later
//! abandoned (bad sequence, restart, too long, bad MIC) cannot be recalled. So the block
//! writes each packet's payload into a message ring speculatively and publishes a message
//! (a descriptor) only once its last packet passed every check: the output carries exactly
//! the software's delivered messages, in the same order, and nothing else — no error flag is
//! needed because nothing bad ever leaves.
//!
//! # Datapath
//! 1. **Ingest.** Frames arrive one per packet, starting in lane 0 (raw MCTP packets, or SMBus
//!    frames with `cfg_smbus`). Frame octets 0..8 are captured (`hdr`: the SMBus prefix and
//!    the MCTP header, or the MCTP header at 0..4); the CRC-8/SMBUS step runs over every octet
//!    but the last (the PEC) of each frame.
//! 2. **Target.** In the beat holding the flags octet the packet's destination is chosen from
//!    the header and the reassembly context, exactly as the software will judge it: a start of
//!    message goes to the ring at the free start `ms` (a restart of the open key reuses its
//!    space); a single-packet message for another key while a context is open goes to the
//!    *slot* (a 256-octet side buffer, so it can be published before the open message); a
//!    packet continuing the open message goes to the ring after its committed octets;
//!    anything else is written nowhere.
//! 3. **Realignment.** Payload octets (after the header, before the PEC) are appended to a
//!    window (`win`, `wf` octets, < W) and written to memory a whole word at a time, so every
//!    message starts word-aligned and the reader needs one aligned read per beat. The
//!    CRC-32C step runs over every written word (the MIC check).
//! 4. **End cycle.** After a frame's last beat, one cycle (input not ready) judges the packet
//!    with the software's rules and order (oversize, SMBus, PEC, header, reassembly), writes
//!    the window's partial word, and either commits the packet (the context keeps its
//!    write position, window and CRC) or forgets it (the next packet starts from the last
//!    committed state, so nothing needs erasing). A completed message whose MIC checks (the
//!    CRC-32C residue over message and MIC) gets a descriptor; one that fails is dropped and
//!    its space reused.
//! 5. **Reader.** Descriptors (start word, length without the MIC, EIDs, tag, TO) queue in an
//!    16-entry FIFO; the reader reads one word per beat from memory (a registered, BRAM-style
//!    read) into the output register under the usual `adv = !m_tvalid | m_tready` rule,
//!    starting a message in the cycle its descriptor is at the head.
//!
//! # Limits (hardware choices, documented for the co-simulation)
//! - Raw frames longer than 4 + 256 octets are dropped before reassembly (`oversize`): no
//!   binding carries more (SMBus: 250), and the slot holds 256 octets.
//! - The message limit is `min(cfg_max_len, 7680)`: the ring (8192 octets) must hold the
//!   largest partial message and one more packet, or the block could wait on itself.
//! - No timeout: the context stays open until a packet closes it (the software's batch
//!   `receive` runs at one instant, so its timeouts never fire either).

use crate::crc::CrcNetwork;
use offload_driver::crc::CrcKind;
use offload_driver::mctp::header::{EOM_BIT, HEADER_VERSION, SEQ_SHIFT, SOM_BIT, TAG_MASK, TO_BIT};
use offload_driver::mctp::smbus::{COMMAND_CODE, PREFIX_LEN};
use offload_driver::mctp::{BASELINE_MTU, HEADER_LEN};
use offload_driver::nvme_mi::{IC_BIT, MIC_LEN};

pub use crate::bits::low_ones as keep_mask;

/// Octets of the message ring.
pub const RING_OCTETS: usize = 8192;
/// Largest packet payload taken (raw frames longer than `HEADER_LEN + MAX_PAYLOAD` are
/// dropped as `oversize`); also the slot's size.
pub const MAX_PAYLOAD: usize = 256;
/// The largest message (MIC included) the ring can reassemble without waiting on itself.
pub const HW_MAX_LEN: usize = RING_OCTETS - 2 * MAX_PAYLOAD;
// The limits the host driver names (`registers::MCTP_RX_MAX_LEN_LIMIT`, `mctp::rx_block::
// MAX_RAW_FRAME`) are these: the build stops here if the block's ever change.
const _: () = assert!(
    HW_MAX_LEN == offload_driver::registers::MCTP_RX_MAX_LEN_LIMIT
        && HEADER_LEN + MAX_PAYLOAD == offload_driver::mctp::rx_block::MAX_RAW_FRAME,
    "the MCTP RX block's limits differ from the ones the host driver reports"
);
/// Published messages waiting for the reader.
pub const DESC_DEPTH: usize = 16;
/// Frame octet counts saturate here (16 bits); any larger frame is rejected anyway.
pub const POS_MAX: u32 = 0xFFFF;

/// Where the current packet's payload is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Target {
    #[default]
    None,
    Ring,
    Slot,
}

/// Input ports, sampled in one cycle.
#[derive(Clone, Debug, Default)]
pub struct RxIn {
    pub reset: bool,
    /// Frames are SMBus binding frames (DSP0237), else bare MCTP packets. Static.
    pub cfg_smbus: bool,
    /// Check and strip the NVMe-MI MIC of every message. Static.
    pub cfg_mic: bool,
    /// Apply the transmission-unit rules. Static.
    pub cfg_strict: bool,
    /// Message limit in octets, MIC included (13 bits; above [`HW_MAX_LEN`] acts as it). Static.
    pub cfg_max_len: u32,
    pub s_tdata: Vec<u8>,
    pub s_tkeep: u64,
    pub s_tvalid: bool,
    pub s_tlast: bool,
    pub m_tready: bool,
}

/// Drop and delivery counters, one per reason (the software's `ReassemblyStats` and `RxError`
/// kinds).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxCounters {
    /// Messages published on the output.
    pub messages: u32,
    pub malformed: u32,
    pub no_context: u32,
    pub bad_sequence: u32,
    pub bad_unit_size: u32,
    pub restarted: u32,
    pub too_long: u32,
    pub contexts_full: u32,
    /// SMBus frames with a wrong PEC.
    pub bad_pec: u32,
    /// SMBus frames malformed otherwise (short, byte count, command code, address bits).
    pub bad_smbus: u32,
    /// Complete messages failing the NVMe-MI check (IC bit clear, too short, MIC mismatch).
    pub mic_errors: u32,
    /// Raw frames over the hardware's packet limit.
    pub oversize: u32,
}

/// Output ports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RxOut {
    pub s_tready: bool,
    pub m_tdata: Vec<u8>,
    pub m_tkeep: u64,
    pub m_tvalid: bool,
    pub m_tlast: bool,
    pub m_src_eid: u8,
    pub m_dst_eid: u8,
    pub m_tag: u8,
    pub m_to: bool,
    pub counters: RxCounters,
}

/// A published message.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Desc {
    pub slot: bool,
    /// First word: ring address (with wrap bit) or slot word.
    pub start: u32,
    /// Octets to output (MIC stripped when checked).
    pub len: u32,
    /// Ring word after the message (MIC included): the free pointer once it is out.
    pub next: u32,
    pub src: u8,
    pub dst: u8,
    pub tag: u8,
    pub to: bool,
}

/// The registers of the block (the memory is kept apart: [`MctpRxModel::mem`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxRegs {
    // Ingest.
    pub in_frame: bool,
    pub end: bool,
    pub pos: u32,
    pub flen: u32,
    pub hdr: [u8; 8],
    pub pec_r: u64,
    pub pec_ok: bool,
    pub tgt: Target,
    pub wa: u32,
    pub wf: usize,
    pub win: Vec<u8>,
    pub mic_w: u64,
    pub first_w: u8,
    pub pidx: u32,
    /// Ring word where a start-of-message packet's message begins.
    pub sa: u32,
    // The reassembly context.
    pub ctx_open: bool,
    pub ctx_src: u8,
    pub ctx_dst: u8,
    pub ctx_tag: u8,
    pub ctx_to: bool,
    pub last_seq: u8,
    pub unit: u32,
    pub clen: u32,
    pub c_wa: u32,
    pub c_wf: usize,
    pub c_win: Vec<u8>,
    pub mic_c: u64,
    pub c_first: u8,
    /// Ring word where the open (or next) message starts.
    pub ms: u32,
    // Descriptors.
    pub descs: Vec<Desc>,
    pub dhead: usize,
    pub dcount: usize,
    pub slot_busy: bool,
    // Reader.
    pub rd_active: bool,
    pub rd: Desc,
    pub rp: u32,
    pub m_tdata: Vec<u8>,
    pub m_tkeep: u64,
    pub m_tvalid: bool,
    pub m_tlast: bool,
    pub m_src_eid: u8,
    pub m_dst_eid: u8,
    pub m_tag: u8,
    pub m_to: bool,
    pub counters: RxCounters,
}

/// What one clock edge does besides loading the registers.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    /// Memory write: word index, word.
    pub write: Option<(usize, Vec<u8>)>,
    /// Memory read into `m_tdata`: word index.
    pub read: Option<usize>,
}

/// The depacketizer model for one width.
#[derive(Clone, Debug)]
pub struct MctpRxModel {
    /// Octets per beat.
    pub w: usize,
    /// Ring words (`RING_OCTETS / W`); ring addresses carry one more (wrap) bit.
    pub rw: u32,
    /// Slot words.
    pub sw: u32,
    pub mic_net: CrcNetwork,
    pub pec_net: CrcNetwork,
    /// CRC-32C of any message followed by its own MIC (finished value).
    pub residue: u32,
    pub regs: RxRegs,
    /// `rw + sw` words of `w` octets: the ring, then the slot.
    pub mem: Vec<Vec<u8>>,
}

impl MctpRxModel {
    pub fn new(w: usize) -> Self {
        assert!(
            matches!(w, 1 | 2 | 4 | 8),
            "MCTP RX width {w}: 1, 2, 4 or 8 octets"
        );
        let mic_net = CrcNetwork::new(CrcKind::Crc32c.params(), w);
        let pec_net = CrcNetwork::new(CrcKind::Crc8Smbus.params(), w);
        let body = [0x84u8, 1, 2, 3, 4];
        let mut with_mic = body.to_vec();
        with_mic.extend((mic_net.checksum(&body) as u32).to_le_bytes());
        let residue = mic_net.checksum(&with_mic) as u32;
        let rw = (RING_OCTETS / w) as u32;
        let sw = (MAX_PAYLOAD / w) as u32;
        let regs = Self::reset_regs(w, &mic_net, &pec_net);
        MctpRxModel {
            w,
            rw,
            sw,
            mic_net,
            pec_net,
            residue,
            regs,
            mem: vec![vec![0; w]; (rw + sw) as usize],
        }
    }

    fn reset_regs(w: usize, mic: &CrcNetwork, pec: &CrcNetwork) -> RxRegs {
        RxRegs {
            in_frame: false,
            end: false,
            pos: 0,
            flen: 0,
            hdr: [0; 8],
            pec_r: pec.init_r,
            pec_ok: false,
            tgt: Target::None,
            wa: 0,
            wf: 0,
            win: vec![0; w],
            mic_w: mic.init_r,
            first_w: 0,
            pidx: 0,
            sa: 0,
            ctx_open: false,
            ctx_src: 0,
            ctx_dst: 0,
            ctx_tag: 0,
            ctx_to: false,
            last_seq: 0,
            unit: 0,
            clen: 0,
            c_wa: 0,
            c_wf: 0,
            c_win: vec![0; w],
            mic_c: mic.init_r,
            c_first: 0,
            ms: 0,
            descs: vec![Desc::default(); DESC_DEPTH],
            dhead: 0,
            dcount: 0,
            slot_busy: false,
            rd_active: false,
            rd: Desc::default(),
            rp: 0,
            m_tdata: vec![0; w],
            m_tkeep: 0,
            m_tvalid: false,
            m_tlast: false,
            m_src_eid: 0,
            m_dst_eid: 0,
            m_tag: 0,
            m_to: false,
            counters: RxCounters::default(),
        }
    }

    /// Ring address mask (wrap bit included).
    fn pm(&self) -> u32 {
        2 * self.rw - 1
    }

    /// Memory word of a ring address or slot word.
    pub fn mem_index(&self, slot: bool, a: u32) -> usize {
        if slot {
            (self.rw + a) as usize
        } else {
            (a & (self.rw - 1)) as usize
        }
    }

    /// The effective message limit for `cfg_max_len`.
    pub fn max_len(cfg_max_len: u32) -> u32 {
        (cfg_max_len & 0x1FFF).min(HW_MAX_LEN as u32)
    }

    pub fn outputs(&self, i: &RxIn) -> RxOut {
        let (_, s_tready, _) = self.next_state(i);
        let r = &self.regs;
        RxOut {
            s_tready,
            m_tdata: r.m_tdata.clone(),
            m_tkeep: r.m_tkeep,
            m_tvalid: r.m_tvalid,
            m_tlast: r.m_tlast,
            m_src_eid: r.m_src_eid,
            m_dst_eid: r.m_dst_eid,
            m_tag: r.m_tag,
            m_to: r.m_to,
            counters: r.counters,
        }
    }

    /// The rising clock edge.
    pub fn clock(&mut self, i: &RxIn) {
        let (next, _, fx) = self.next_state(i);
        // Registered read of the old memory contents (no address is read and written in one
        // cycle: the reader only reads published messages).
        let read = fx.read.map(|a| self.mem[a].clone());
        if let Some((a, word)) = fx.write {
            self.mem[a] = word;
        }
        self.regs = next;
        if let Some(d) = read {
            self.regs.m_tdata = d;
        }
    }

    /// Next registers, `s_tready` and the memory accesses, from the registers and the inputs.
    pub fn next_state(&self, i: &RxIn) -> (RxRegs, bool, Effects) {
        let r = &self.regs;
        let w = self.w;
        let pm = self.pm();
        let mut fx = Effects::default();
        if i.reset {
            return (Self::reset_regs(w, &self.mic_net, &self.pec_net), false, fx);
        }
        let mut nx = r.clone();

        // ---- Reader: one word per beat of the message at the head. ----
        let adv = !r.m_tvalid || i.m_tready;
        let have = r.dcount > 0;
        let e = if r.rd_active { r.rd } else { r.descs[r.dhead] };
        let e_active = r.rd_active || have;
        let pop = adv && !r.rd_active && have;
        let mut dcount = r.dcount;
        if adv {
            nx.m_tvalid = false;
        }
        if pop {
            nx.dhead = (r.dhead + 1) % DESC_DEPTH;
            dcount -= 1;
        }
        if adv && e_active {
            fx.read = Some(self.mem_index(e.slot, e.start));
            let last = e.len as usize <= w;
            nx.m_tkeep = keep_mask((e.len as usize).min(w));
            nx.m_tlast = last;
            nx.m_tvalid = true;
            nx.m_src_eid = e.src;
            nx.m_dst_eid = e.dst;
            nx.m_tag = e.tag;
            nx.m_to = e.to;
            nx.rd = Desc {
                start: (e.start + 1) & pm,
                len: e.len.saturating_sub(w as u32),
                ..e
            };
            nx.rd_active = !last;
            // A ring word is free once read (the read is registered); the MIC words after a
            // message are freed with its last beat.
            if !e.slot {
                nx.rp = if last { e.next } else { (e.start + 1) & pm };
            } else if last {
                nx.slot_busy = false;
            }
        }

        // ---- End cycle: judge the packet. ----
        if r.end {
            self.judge(i, &mut nx, &mut dcount, &mut fx);
            nx.dcount = dcount;
            return (nx, false, fx);
        }

        // ---- Ingest: one beat. ----
        let smbus = i.cfg_smbus;
        let hoff = if smbus { PREFIX_LEN } else { 0 };
        let keep_in = if i.s_tlast { i.s_tkeep } else { keep_mask(w) };
        let k = CrcNetwork::valid_bytes(keep_in);
        let pos = r.pos as usize;
        let mut e_hdr = r.hdr;
        for j in 0..w {
            if pos + j < 8 {
                e_hdr[pos + j] = i.s_tdata[j];
            }
        }
        let fl = hoff + 3;
        let flags_here = pos <= fl && fl < pos + w;
        let mh = &e_hdr[hoff..hoff + HEADER_LEN];
        let som = mh[3] >> SOM_BIT & 1 != 0;
        let eom = mh[3] >> EOM_BIT & 1 != 0;
        let key_match = r.ctx_open
            && mh[1] == r.ctx_dst
            && mh[2] == r.ctx_src
            && mh[3] & TAG_MASK == r.ctx_tag
            && (mh[3] >> TO_BIT & 1 != 0) == r.ctx_to;
        // (target, word address, window fill, window, MIC register, first octet). A restart
        // of the open key is written after its committed octets: until the restart is judged
        // good (its PEC, its header), the open message must stay intact.
        let c_end = (r.c_wa + (r.c_wf > 0) as u32) & pm;
        let (e_tgt, e_wa, e_wf, e_win, e_mic, e_first) = if flags_here {
            if som {
                if r.ctx_open && !key_match {
                    if eom {
                        (Target::Slot, 0, 0, vec![0; w], self.mic_net.init_r, 0)
                    } else {
                        (Target::None, r.wa, r.wf, r.win.clone(), r.mic_w, r.first_w)
                    }
                } else {
                    let start = if r.ctx_open { c_end } else { r.ms };
                    (Target::Ring, start, 0, vec![0; w], self.mic_net.init_r, 0)
                }
            } else if key_match {
                (
                    Target::Ring,
                    r.c_wa,
                    r.c_wf,
                    r.c_win.clone(),
                    r.mic_c,
                    r.c_first,
                )
            } else {
                (Target::None, r.wa, r.wf, r.win.clone(), r.mic_w, r.first_w)
            }
        } else {
            (r.tgt, r.wa, r.wf, r.win.clone(), r.mic_w, r.first_w)
        };

        let first = !r.in_frame;
        let ring_ok = e_tgt != Target::Ring || (e_wa.wrapping_sub(r.rp) & pm) <= self.rw - 2;
        // A packet for the slot waits (in the beat that chose it, before any payload is
        // written) until the slot's previous message has been read out.
        let slot_ok = !(flags_here && e_tgt == Target::Slot && r.slot_busy);
        let start_ok = !first || r.dcount < DESC_DEPTH;
        let s_tready = start_ok && ring_ok && slot_ok;
        nx.dcount = dcount;
        if !(i.s_tvalid && s_tready) {
            return (nx, s_tready, fx);
        }

        // Payload lanes [a, kk): after the header, before the PEC on the last beat.
        let kk = if i.s_tlast {
            k.saturating_sub(smbus as usize)
        } else {
            w
        };
        let a = (hoff + HEADER_LEN).saturating_sub(pos).min(w);
        let n = kk.saturating_sub(a);
        let n_eff = n.min(MAX_PAYLOAD - r.pidx as usize);
        let mut pay = vec![0u8; w];
        pay[..n_eff].copy_from_slice(&i.s_tdata[a..a + n_eff]);

        nx.hdr = e_hdr;
        nx.pos = (r.pos + if i.s_tlast { k } else { w } as u32).min(POS_MAX);
        let pec_keep = if i.s_tlast {
            keep_mask(k.saturating_sub(1))
        } else {
            keep_mask(w)
        };
        let pec_nxt = self.pec_net.step(r.pec_r, &i.s_tdata, pec_keep);
        nx.pec_r = pec_nxt;
        if i.s_tlast {
            nx.pec_ok = k >= 1 && self.pec_net.finish(pec_nxt) as u8 == i.s_tdata[k - 1];
            nx.flen = nx.pos;
            nx.end = true;
            nx.in_frame = false;
        } else {
            nx.in_frame = true;
        }
        nx.tgt = e_tgt;
        if flags_here {
            nx.sa = e_wa;
        }
        if e_tgt != Target::None {
            let total = e_wf + n_eff;
            let mut comb = vec![0u8; 2 * w];
            comb[..e_wf].copy_from_slice(&e_win[..e_wf]);
            comb[e_wf..e_wf + n_eff].copy_from_slice(&pay[..n_eff]);
            if total >= w {
                fx.write = Some((
                    self.mem_index(e_tgt == Target::Slot, e_wa),
                    comb[..w].to_vec(),
                ));
                nx.wa = (e_wa + 1) & pm;
                nx.win = comb[w..].to_vec();
                nx.wf = total - w;
                nx.mic_w = self.mic_net.step(e_mic, &comb[..w], keep_mask(w));
            } else {
                nx.wa = e_wa;
                nx.win = comb[..w].to_vec();
                nx.wf = total;
                nx.mic_w = e_mic;
            }
            nx.first_w = if som && r.pidx == 0 && n_eff > 0 {
                pay[0]
            } else {
                e_first
            };
        }
        nx.pidx = r.pidx + n_eff as u32;
        (nx, s_tready, fx)
    }

    /// The end cycle: the software's checks in the software's order, then the memory and
    /// context updates of the outcome.
    fn judge(&self, i: &RxIn, nx: &mut RxRegs, dcount: &mut usize, fx: &mut Effects) {
        let r = &self.regs;
        let w = self.w;
        let pm = self.pm();
        let c = &mut nx.counters;
        let smbus = i.cfg_smbus;
        let l = r.flen;
        let h = &r.hdr;
        let mh = if smbus {
            &h[PREFIX_LEN..]
        } else {
            &h[..HEADER_LEN]
        };
        let max = Self::max_len(i.cfg_max_len);
        // The window's partial word (harmless when the packet is not kept: only published
        // words are ever read).
        if r.tgt != Target::None && r.wf > 0 {
            fx.write = Some((self.mem_index(r.tgt == Target::Slot, r.wa), r.win.clone()));
        }
        // Per-frame state back to its start.
        nx.end = false;
        nx.in_frame = false;
        nx.pos = 0;
        nx.hdr = [0; 8];
        nx.pec_r = self.pec_net.init_r;
        nx.tgt = Target::None;
        nx.wf = 0;
        nx.win = vec![0; w];
        nx.pidx = 0;

        let pkt_len = if smbus {
            l.wrapping_sub(PREFIX_LEN as u32 + 1)
        } else {
            l
        };
        if !smbus && l > (HEADER_LEN + MAX_PAYLOAD) as u32 {
            c.oversize += 1;
            return;
        }
        if smbus && (l < 5 || l - 4 != h[2] as u32) {
            c.bad_smbus += 1;
            return;
        }
        if smbus && !r.pec_ok {
            c.bad_pec += 1;
            return;
        }
        if smbus && (h[1] != COMMAND_CODE || h[0] & 1 != 0 || h[3] & 1 == 0) {
            c.bad_smbus += 1;
            return;
        }
        if pkt_len <= HEADER_LEN as u32 || mh[0] != HEADER_VERSION {
            c.malformed += 1;
            return;
        }
        let plen = pkt_len - HEADER_LEN as u32;
        let som = mh[3] >> SOM_BIT & 1 != 0;
        let eom = mh[3] >> EOM_BIT & 1 != 0;
        let seq = (mh[3] >> SEQ_SHIFT) & 3;
        let (dst, src, tag, to) = (mh[1], mh[2], mh[3] & TAG_MASK, mh[3] >> TO_BIT & 1 != 0);
        let key_match = r.ctx_open
            && dst == r.ctx_dst
            && src == r.ctx_src
            && tag == r.ctx_tag
            && to == r.ctx_to;
        let strict = i.cfg_strict;
        let mut deliver = false;
        let mut len = 0;
        if som {
            let open_after = r.ctx_open && !key_match;
            if key_match {
                c.restarted += 1;
                nx.ctx_open = false;
            }
            if strict && !eom && plen < BASELINE_MTU as u32 {
                c.bad_unit_size += 1;
            } else if plen > max {
                c.too_long += 1;
            } else if eom {
                deliver = true;
                len = plen;
            } else if open_after {
                c.contexts_full += 1;
            } else {
                nx.ctx_open = true;
                nx.ms = r.sa;
                nx.ctx_src = src;
                nx.ctx_dst = dst;
                nx.ctx_tag = tag;
                nx.ctx_to = to;
                nx.last_seq = seq;
                nx.unit = plen;
                nx.clen = plen;
                nx.c_wa = r.wa;
                nx.c_wf = r.wf;
                nx.c_win = r.win.clone();
                nx.mic_c = r.mic_w;
                nx.c_first = r.first_w;
            }
        } else if !key_match {
            c.no_context += 1;
        } else if seq != (r.last_seq + 1) & 3 {
            c.bad_sequence += 1;
            nx.ctx_open = false;
        } else if strict && ((!eom && plen != r.unit) || (eom && plen > r.unit)) {
            c.bad_unit_size += 1;
            nx.ctx_open = false;
        } else if r.clen + plen > max {
            c.too_long += 1;
            nx.ctx_open = false;
        } else if eom {
            deliver = true;
            len = r.clen + plen;
            nx.ctx_open = false;
        } else {
            nx.last_seq = seq;
            nx.clen = r.clen + plen;
            nx.c_wa = r.wa;
            nx.c_wf = r.wf;
            nx.c_win = r.win.clone();
            nx.mic_c = r.mic_w;
        }
        if !deliver {
            return;
        }
        let fin = self
            .mic_net
            .finish(self.mic_net.step(r.mic_w, &r.win, keep_mask(r.wf))) as u32;
        let mic_bad =
            i.cfg_mic && (r.first_w & IC_BIT == 0 || len <= MIC_LEN as u32 || fin != self.residue);
        if mic_bad {
            c.mic_errors += 1;
            return;
        }
        c.messages += 1;
        let slot = r.tgt == Target::Slot;
        let next = (r.wa + (r.wf > 0) as u32) & pm;
        let d = Desc {
            slot,
            start: if slot {
                0
            } else if som {
                r.sa
            } else {
                r.ms
            },
            len: len - if i.cfg_mic { MIC_LEN as u32 } else { 0 },
            next,
            src,
            dst,
            tag,
            to,
        };
        nx.descs[(r.dhead + r.dcount) % DESC_DEPTH] = d;
        *dcount += 1;
        if slot {
            nx.slot_busy = true;
        } else {
            nx.ms = next;
        }
    }
}
