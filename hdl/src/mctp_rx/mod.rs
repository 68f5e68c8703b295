//! MCTP receive offload (DSP0236 reassembly, DSP0237 SMBus binding with PEC, NVMe-MI MIC): one
//! AXI-Stream frame per packet in, the reassembled messages out — exactly the messages
//! `offload_driver::mctp::receive` delivers with one reassembly context, in the same order,
//! with drops counted by the same reasons.
//!
//! Ports (AXI4-Stream conventions):
//! - `cfg_smbus` (frames are SMBus frames), `cfg_mic` (check and strip the NVMe-MI MIC),
//!   `cfg_strict` (transmission-unit rules), `cfg_max_len[12:0]` (message limit, MIC included;
//!   at most 7680): static, change them only under reset.
//! - `s_tdata/s_tkeep/s_tvalid/s_tlast/s_tready`: one frame per packet, starting in lane 0;
//!   tkeep is read on the last beat only. `s_tready` is a register (a skid buffer is the
//!   block's input), so the block chains like the others.
//! - `m_tdata/m_tkeep/m_tvalid/m_tlast/m_tready`: one frame per delivered message (MIC
//!   stripped with `cfg_mic`), partial tkeep on the last beat only; `m_src_eid`, `m_dst_eid`,
//!   `m_tag`, `m_to` hold the message's header fields with every beat. Only messages that
//!   passed every check appear: there is no error flag because nothing is streamed before it
//!   is known good (see [`frames`] for why the block buffers whole messages).
//! - Counters (32 bits, wrapping; the [`MctpRxCounters`] bundle, `counters_messages` … at the
//!   boundary): `messages`, `malformed`, `no_context`, `bad_sequence`,
//!   `bad_unit_size`, `restarted`, `too_long`, `contexts_full` (the software's
//!   `ReassemblyStats`), `bad_pec`, `bad_smbus` (its SMBus binding errors), `mic_errors` (its
//!   integrity errors) and `oversize` (raw frames over 260 octets, a hardware limit).
//! - `drop`, `drop_context`, `drop_length`: the last drop as the block judged it (the header
//!   found, the context held, what it expected, the lengths), the `MCTP_RX_DROP*` registers'
//!   words ([`drops`]); a register each, loaded two clocks after the frame's judging clock.
//!
//! Written once, in `#[hdl_gen]`: [`decode::BeatDecoder`] (each beat's frame position, header
//! octets, payload lanes and PEC, worked out as the input accepts it) and an [`AxisSkidPreload`] in
//! front, [`frames::FrameStage`] (ingest,
//! judging, the reassembly context, memory writes; the datapath is described there),
//! [`reader::ReaderStage`] (the descriptor queue and the output) with an
//! [`AxisStageSkidPreload`] behind it (so `m_tready` ends at its registers),
//! [`counters::CounterBank`], [`drops::DropRecord`],
//! and the message memory in two rust-hdl `RAM`s — the 8192-octet ring (`2^RA` words of `K`
//! octets) and the 256-octet slot — with one write and one registered read port each, so
//! synthesis maps them to block RAM. The CRC-32C (MIC) and CRC-8 (PEC) networks are
//! [`crate::crc::CrcStep`] leaves.

pub mod counters;
pub mod crc_regs;
pub mod decode;
pub mod drops;
pub mod frames;
pub mod queue;
pub mod reader;

pub use counters::{hdl_model, MctpRxCounters, MctpRxCountersSink, RxCounters};

use crate::axis::{AxisSink, AxisSkidPreload, AxisSource, AxisStageSkidPreload};
use counters::{CounterBank, MctpRxBumpsSource};
use decode::{BeatDecoder, INFO_BITS};
use drops::DropRecord;
use frames::FrameStage;
use offload_driver::mctp::HEADER_LEN;
use reader::ReaderStage;
use rust_hdl::prelude::*;

/// Octets of the message ring.
pub const RING_OCTETS: usize = 8192;
/// Largest packet payload taken (raw frames longer than `HEADER_LEN + MAX_PAYLOAD` are
/// dropped as `oversize`); also the slot's size.
pub const MAX_PAYLOAD: usize = 256;
/// The largest message (MIC included) the ring can reassemble without waiting on itself.
pub const HW_MAX_LEN: usize = RING_OCTETS - 2 * MAX_PAYLOAD;
// The limits the host driver names (`regmap::MCTP_RX_MAX_LEN_LIMIT`, `mctp::rx_block::
// MAX_RAW_FRAME`) are these: the build stops here if the block's ever change.
const _: () = assert!(
    HW_MAX_LEN == offload_driver::regmap::MCTP_RX_MAX_LEN_LIMIT
        && HEADER_LEN + MAX_PAYLOAD == offload_driver::mctp::rx_block::MAX_RAW_FRAME,
    "the MCTP RX block's limits differ from the ones the host driver reports"
);
/// Published messages waiting for the reader.
pub const DESC_DEPTH: usize = 1 << queue::ADDRESS_BITS;

/// Clocks from a message's last input beat being accepted to its first output beat being
/// taken, with the block otherwise idle and the output ready: the skid buffer, the judging
/// clock, the registered MIC verdict, the registered descriptor push, the queue's head, the
/// memory's registered read, the reader's output register, the output skid buffer
/// (docs/ARCHITECTURE.md). Pinned by `tests::delivery_latency`.
pub const LATENCY: u64 = 9;

/// The counter ports in declaration order (the software model's list).
pub use offload_driver::mctp::RX_COUNTERS as COUNTERS;

/// The depacketizer's static configuration (`cfg_*` at the boundary; change under reset),
/// driven by the register block ([`MctpRxConfigSource`]).
#[derive(LogicInterface, Default)]
#[join = "MctpRxConfigSource"]
pub struct MctpRxConfig {
    pub smbus: Signal<In, Bit>,
    pub mic: Signal<In, Bit>,
    pub strict: Signal<In, Bit>,
    pub max_len: Signal<In, Bits<13>>,
}

/// The driving side of [`MctpRxConfig`].
#[derive(LogicInterface, Default)]
#[join = "MctpRxConfig"]
pub struct MctpRxConfigSource {
    pub smbus: Signal<Out, Bit>,
    pub mic: Signal<Out, Bit>,
    pub strict: Signal<Out, Bit>,
    pub max_len: Signal<Out, Bits<13>>,
}

/// Ring address bits for `K` octets per beat (`RA` of [`MctpRx`]).
pub const fn ring_address_bits(k: usize) -> usize {
    (RING_OCTETS / k).trailing_zeros() as usize
}

/// Slot words are addressed with 8 bits at every width (256 words of which `256 / K` are used:
/// block RAM is as wide as the word anyway).
const SLOT_ADDRESS_BITS: usize = 8;

/// The depacketizer for `K` octets per beat (`D = 8K` data bits; `K` ∈ {1, 2, 4, 8}; `RA` =
/// [`ring_address_bits`]`(K)`).
#[derive(LogicBlock)]
pub struct MctpRx<const D: usize, const K: usize, const RA: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpRxConfig,
    pub s: AxisSink<D, K>,
    pub m: AxisSource<D, K>,
    pub m_src_eid: Signal<Out, Bits<8>>,
    pub m_dst_eid: Signal<Out, Bits<8>>,
    pub m_tag: Signal<Out, Bits<3>>,
    pub m_to: Signal<Out, Bit>,
    pub counters: MctpRxCounters,
    /// The last drop, as the `MCTP_RX_DROP`, `MCTP_RX_DROP_CONTEXT` and `MCTP_RX_DROP_LENGTH`
    /// registers hold it ([`drops`]).
    pub drop: Signal<Out, Bits<32>>,
    pub drop_context: Signal<Out, Bits<32>>,
    pub drop_length: Signal<Out, Bits<32>>,
    decode: BeatDecoder<D, K>,
    skid: AxisSkidPreload<D, K, INFO_BITS>,
    frames: FrameStage<D, K>,
    reader: ReaderStage<D, K>,
    /// The output skid buffer, the header fields on its side channel: the block's `m_tready`
    /// enables its output register and ends there, instead of running through the reader's
    /// advance into the descriptor queue's pop and the memory's read address (MCTP RX W = 4's
    /// seed 1 at 6ae6610: `m_tready` → `go` → the queue's `used` → the read address, 5.07 ns
    /// of routing; in `OffloadTop` that ready is a register across the die). Its skid entry
    /// loads while free, so that ready enables nothing else.
    out: AxisStageSkidPreload<D, K, 20>,
    /// The header fields on `out`'s side channel: source EID [7:0], destination EID [15:8],
    /// tag [18:16], TO [19].
    out_user: Signal<Local, Bits<20>>,
    c_to_bit: Constant<Bits<20>>,
    bank: CounterBank,
    drops: DropRecord,
    /// The static configuration, registered where the block reads it: in `OffloadTop` it comes
    /// from the register block's registers across the die, and `cfg_smbus` fed the decoder's
    /// lanes and header octets combinationally (`top_w8`'s seed 2 at 69594a1: the register
    /// block's `cfg_smbus` → the decoder → the input skid's `tkeep`, 2.67 ns for the first hop
    /// alone). The configuration changes only under reset (the port contract above), and the
    /// reset lasts at least a clock, so these copies hold it by the time a beat is taken.
    cfg_smbus_q: DFF<Bit>,
    cfg_mic_q: DFF<Bit>,
    cfg_strict_q: DFF<Bit>,
    cfg_max_len_q: DFF<Bits<13>>,
    /// The memories' write port, registered: the frame stage's write (a beat's full word, or
    /// the judging clock's partial word) lands a clock later, so the beat's target and fill
    /// logic ends at these flip-flops, not at the block RAMs' write enables across the die
    /// (MCTP RX W = 8 seed 3 at 2588c5f: `wf` → the fill → the ring's write enable, 7 levels,
    /// 5.12 ns of routing). The reader reads only published words, and a descriptor is pushed
    /// two clocks after the judging clock's write, so it still finds every word written; a
    /// freed word is written a clock later than before, never earlier.
    ring_we: DFF<Bit>,
    slot_we: DFF<Bit>,
    wr_addr: DFF<Bits<14>>,
    wr_data: DFF<Bits<D>>,
    ring: RAM<Bits<D>, RA>,
    slot: RAM<Bits<D>, SLOT_ADDRESS_BITS>,
}

impl<const D: usize, const K: usize, const RA: usize> Default for MctpRx<D, K, RA> {
    fn default() -> Self {
        assert_eq!(D, 8 * K, "MctpRx<D, K, RA>: D must be 8*K");
        assert_eq!(RA, ring_address_bits(K), "MctpRx<D, K, RA>: RA must be log2(8192 / K)");
        assert!(MAX_PAYLOAD / K <= 1 << SLOT_ADDRESS_BITS);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            m: Default::default(),
            m_src_eid: Default::default(),
            m_dst_eid: Default::default(),
            m_tag: Default::default(),
            m_to: Default::default(),
            counters: Default::default(),
            decode: Default::default(),
            skid: Default::default(),
            frames: Default::default(),
            reader: Default::default(),
            out: Default::default(),
            out_user: Default::default(),
            c_to_bit: Constant::new((1u64 << 19).into()),
            bank: Default::default(),
            drops: Default::default(),
            drop: Default::default(),
            drop_context: Default::default(),
            drop_length: Default::default(),
            cfg_smbus_q: Default::default(),
            cfg_mic_q: Default::default(),
            cfg_strict_q: Default::default(),
            cfg_max_len_q: Default::default(),
            ring_we: Default::default(),
            slot_we: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            ring: Default::default(),
            slot: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const RA: usize> Logic for MctpRx<D, K, RA> {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, decode, skid, frames, reader, out, bank, drops);
        dff_setup!(self, clock, cfg_smbus_q, cfg_mic_q, cfg_strict_q, cfg_max_len_q, ring_we, slot_we, wr_addr, wr_data);
        self.cfg_smbus_q.d.next = self.cfg.smbus.val();
        self.cfg_mic_q.d.next = self.cfg.mic.val();
        self.cfg_strict_q.d.next = self.cfg.strict.val();
        self.cfg_max_len_q.d.next = self.cfg.max_len.val();
        self.decode.reset.next = self.reset.val();
        self.skid.reset.next = self.reset.val();
        self.frames.reset.next = self.reset.val();
        self.reader.reset.next = self.reset.val();
        self.out.reset.next = self.reset.val();
        self.bank.reset.next = self.reset.val();
        self.drops.reset.next = self.reset.val();
        // Input port → beat decoder → skid buffer → frame stage → memory → reader → skid
        // buffer → output port.
        AxisSink::<D, K>::link(&mut self.s, &mut self.decode.s);
        self.decode.smbus.next = self.cfg_smbus_q.q.val();
        self.decode.ctx_key.next = self.frames.ctx_key.val();
        AxisSource::<D, K>::join(&mut self.decode.m, &mut self.skid.s);
        self.skid.s_user.next = self.decode.m_user.val();
        AxisSource::<D, K>::join(&mut self.skid.m, &mut self.frames.s);
        self.frames.info.next = self.skid.m_user.val();
        self.frames.cfg.smbus.next = self.cfg_smbus_q.q.val();
        self.frames.cfg.mic.next = self.cfg_mic_q.q.val();
        self.frames.cfg.strict.next = self.cfg_strict_q.q.val();
        self.frames.cfg.max_len.next = self.cfg_max_len_q.q.val();
        self.ring.write_clock.next = self.clock.val();
        self.ring.read_clock.next = self.clock.val();
        self.slot.write_clock.next = self.clock.val();
        self.slot.read_clock.next = self.clock.val();
        self.ring_we.d.next = self.frames.wr_en.val() & !self.frames.wr_slot.val();
        self.slot_we.d.next = self.frames.wr_en.val() & self.frames.wr_slot.val();
        self.wr_addr.d.next = self.frames.wr_addr.val();
        self.wr_data.d.next = self.frames.wr_data.val();
        self.ring.write_address.next = bit_cast::<RA, 14>(self.wr_addr.q.val());
        self.ring.write_data.next = self.wr_data.q.val();
        self.ring.write_enable.next = self.ring_we.q.val();
        self.slot.write_address.next = bit_cast::<SLOT_ADDRESS_BITS, 14>(self.wr_addr.q.val());
        self.slot.write_data.next = self.wr_data.q.val();
        self.slot.write_enable.next = self.slot_we.q.val();
        self.ring.read_address.next = bit_cast::<RA, 14>(self.reader.rd_addr.val());
        self.slot.read_address.next = bit_cast::<SLOT_ADDRESS_BITS, 14>(self.reader.rd_addr.val());
        self.reader.ring_data.next = self.ring.read_data.val();
        self.reader.slot_data.next = self.slot.read_data.val();
        self.reader.push.next = self.frames.push.val();
        self.reader.desc.next = self.frames.desc.val();
        self.frames.rp.next = self.reader.rp.val();
        self.frames.q_full.next = self.reader.q_full.val();
        self.frames.q_afull.next = self.reader.q_afull.val();
        self.frames.slot_done.next = self.reader.slot_done.val();
        AxisSource::<D, K>::join(&mut self.reader.m, &mut self.out.s);
        // (Built in a Local: rust-hdl's simulator does not read back a child's input assigned
        // in the same update.)
        self.out_user.next = bit_cast::<20, 8>(self.reader.m_src_eid.val())
            | (bit_cast::<20, 8>(self.reader.m_dst_eid.val()) << 8)
            | (bit_cast::<20, 3>(self.reader.m_tag.val()) << 16);
        if self.reader.m_to.val() {
            self.out_user.next = self.out_user.val() | self.c_to_bit.val();
        }
        self.out.s_user.next = self.out_user.val();
        AxisSource::<D, K>::link(&mut self.m, &mut self.out.m);
        self.m_src_eid.next = self.out.m_user.val().get_bits::<8>(0);
        self.m_dst_eid.next = self.out.m_user.val().get_bits::<8>(8);
        self.m_tag.next = self.out.m_user.val().get_bits::<3>(16);
        self.m_to.next = self.out.m_user.val().get_bit(19);
        MctpRxBumpsSource::join(&mut self.frames.bump, &mut self.bank.bump);
        MctpRxCounters::link(&mut self.counters, &mut self.bank.counters);
        self.drops.judging.next = self.frames.judging.val();
        self.drops.header.next = self.frames.j_header.val();
        self.drops.open.next = self.frames.j_open.val();
        self.drops.last_seq.next = self.frames.j_last_seq.val();
        self.drops.unit.next = self.frames.j_unit.val();
        self.drops.plen.next = self.frames.j_plen.val();
        self.drops.mlen.next = self.frames.j_mlen.val();
        self.drops.key.next = self.frames.ctx_key.val();
        self.drops.late.next = self.bank.late.val();
        self.drop.next = self.drops.drop.val();
        self.drop_context.next = self.drops.drop_context.val();
        self.drop_length.next = self.drops.drop_length.val();
    }
}

#[cfg(test)]
mod tests;
