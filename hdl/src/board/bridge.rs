//! The FrontPanel side of the XEM7010 board, without the vendor core: [`OkBridge`] turns
//! FrontPanel endpoint signals (wire-ins, a trigger-in, pipe-ins, pipe-outs, wire-outs, all in
//! the host interface clock `ti_clk`) into `OffloadTop`'s register bus and AXI4-Stream ports,
//! and [`BoardCore`] is the bridge with an `OffloadTop<W=4>` behind it. The feature-gated
//! [`super::xem7010`] only adds Opal Kelly's `okHost` and endpoint cells around `BoardCore`,
//! so everything between the endpoints and the blocks is Verilated and tested in the default
//! build (`offload-sim`'s board co-simulation with `offload_driver::ok::OkTransport`).
//!
//! # Endpoints (16-bit, FrontPanel USB 2.0)
//! | endpoint | use |
//! | --- | --- |
//! | WireIn 0x00 | register byte address |
//! | WireIn 0x01, 0x02 | register write data, low and high half |
//! | WireIn 0x03 | bit 0: hold the bridge and `OffloadTop` in reset |
//! | TriggerIn 0x40 | bit 0: write the register; bit 1: read it |
//! | WireOut 0x20, 0x21 | register read data, low and high half |
//! | WireOut 0x22 | [7:0] completed register accesses (mod 256); 8/9: MPA/MCTP input overflowed (sticky); 10/11: MPA/MCTP input idle (FIFO empty, no frame in progress); 12–15: the same for MPA RX / MCTP RX |
//! | WireOut 0x23, 0x24 | free words in the MPA / MCTP input FIFO |
//! | WireOut 0x25, 0x26 | beats waiting in the MPA / MCTP output FIFO |
//! | WireOut 0x27, 0x28 | free words in the MPA RX / MCTP RX input FIFO |
//! | WireOut 0x29, 0x2A | beats waiting in the MPA RX / MCTP RX output FIFO |
//! | PipeIn 0x80, 0x81 | MPA ULPDUs / MCTP messages |
//! | PipeIn 0x82, 0x83 | TCP payload segments (MPA RX) / MCTP packets (MCTP RX) |
//! | PipeOut 0xA0, 0xA1 | FPDUs / MCTP packets |
//! | PipeOut 0xA2, 0xA3 | ULPDUs with `m_len` and the verdict / messages with EIDs, tag, TO |
//!
//! # Stream encoding (16-bit pipe words, little-endian octets)
//! In: per frame, `len[15:0]`, `len[16]`, then the octets zero-padded to a multiple of 4 (at
//! least one 4-octet beat, so a 0-octet frame is one empty beat). The host writes no more
//! words than the FIFO has free (WireOut 0x23/0x24/0x27/0x28); extra words are dropped and
//! flagged. The MPA RX input is widened to the receiver's 8 octets per beat ([`Widen`]).
//! Out: per beat, data `[15:0]`, data `[31:16]`, on the receive pipes the side channel
//! `side[15:0]`, then flags `{valid, 5'b0, side[20:16], last, keep[3:0]}` (3 words a beat on the
//! transmit pipes, 4 on the receive pipes). The side channel: MPA RX `{bad, m_len[15:0]}`
//! (`bad` is `mpa_rx_m_tuser`, meaningful on the last beat; the 8-octet beats are split by
//! [`Narrow`]), MCTP RX `{TO, tag[2:0], dst_eid, src_eid}`. A read while the FIFO is empty
//! returns an all-zero (not valid) beat; the host reads 3 or 4 × the count in WireOut
//! 0x25/0x26/0x29/0x2A.
//! Pipe-out timing: `ep_datain` is registered on `ep_read` (valid the clock after it), as the
//! USB 2.0 `okPipeOut` expects.
//!
//! Written once, in `#[hdl_gen]`: the register bridge here, each input channel an
//! [`InChannel`] (a [`WordFifo`] of pipe words and the unpacker) and each output channel an
//! [`OutChannel`] (a [`WordFifo`] of beats and the beat-word reader), so `BoardCore`
//! simulates in rust-hdl as well as in Verilator.

use super::fifo::WordFifo;
use super::width::{Narrow, Widen};
use crate::axis::{AxisSink, AxisSource};
use crate::top::reg_bus::RegMaster;
use crate::top::OffloadTop;
use rust_hdl::prelude::*;

/// FIFO depths and endpoint addresses: the host transport's (`offload_driver::ok`), defined
/// once there.
pub use offload_driver::ok::{ep, IN_FIFO_WORDS, OUT_FIFO_BEATS};

/// The layouts the logic below writes as literals, checked against the host's definitions at
/// elaboration.
fn check_layouts() {
    use offload_driver::ok::{side, BEAT_OCTETS, FLAG_LAST, FLAG_SIDE_SHIFT, FLAG_VALID, RX_BEAT_WORDS, TX_BEAT_WORDS};
    assert_eq!((FLAG_VALID, FLAG_LAST, FLAG_SIDE_SHIFT, BEAT_OCTETS), (1 << 15, 1 << 4, 5, 4), "output flags layout changed");
    assert_eq!((TX_BEAT_WORDS, RX_BEAT_WORDS, side::BITS), (3, 4, 21), "output beat layout changed");
    assert_eq!(
        (side::MPA_LEN_MASK, side::MPA_BAD, side::MCTP_DST_SHIFT, side::MCTP_TAG_SHIFT, side::MCTP_TO),
        (0xFFFF, 1 << 16, 8, 16, 1 << 19),
        "side channel layout changed"
    );
    assert_eq!(
        (ep::STATUS_MPA_OVERFLOW, ep::STATUS_MCTP_OVERFLOW, ep::STATUS_MPA_IDLE, ep::STATUS_MCTP_IDLE),
        (1 << 8, 1 << 9, 1 << 10, 1 << 11),
        "status layout changed"
    );
    assert_eq!(
        (ep::STATUS_MPA_RX_OVERFLOW, ep::STATUS_MCTP_RX_OVERFLOW, ep::STATUS_MPA_RX_IDLE, ep::STATUS_MCTP_RX_IDLE),
        (1 << 12, 1 << 13, 1 << 14, 1 << 15),
        "status layout changed"
    );
    assert_eq!((ep::TI_WRITE_BIT, ep::TI_READ_BIT), (0, 1), "trigger bits changed");
    assert_eq!((IN_FIFO_WORDS, OUT_FIFO_BEATS), (1 << 10, 1 << 9), "FIFO depths changed");
}

/// The input unpacker's state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Unpack {
    /// Next word: `len[15:0]`.
    H0,
    /// Next word: `len[16]` (bit 0).
    H1,
    /// Next word: a beat's octets 0–1.
    Lo,
    /// Next word: its octets 2–3.
    Hi,
    /// The beat is offered on `s` until taken.
    Beat,
}

/// One input channel: a FIFO of 16-bit pipe words, then the unpacker into 4-octet beats with
/// the frame length (`LEN` bits of it) beside the first.
#[derive(LogicBlock)]
pub struct InChannel<const LEN: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_write: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<16>>,
    pub s: AxisSource<32, 4>,
    pub s_len: Signal<Out, Bits<LEN>>,
    /// Free words in the FIFO.
    pub free: Signal<Out, Bits<16>>,
    /// FIFO empty and no frame in progress.
    pub idle: Signal<Out, Bit>,
    /// A word arrived while the FIFO was full (sticky until reset).
    pub overflow: Signal<Out, Bit>,
    fifo: WordFifo<Bits<16>, 10, 11>,
    state: DFF<Unpack>,
    len: DFF<Bits<17>>,
    left: DFF<Bits<17>>,
    lo: DFF<Bits<16>>,
    data: DFF<Bits<32>>,
    keep: DFF<Bits<4>>,
    last: DFF<Bit>,
    ovf: DFF<Bit>,
    pop: Signal<Local, Bit>,
    /// `len[16]` where `LEN` is 16 (named so that lint knows it is left unused).
    unused_len: Signal<Local, Bits<17>>,
    depth: Constant<Bits<16>>,
}

impl<const LEN: usize> Default for InChannel<LEN> {
    fn default() -> Self {
        InChannel {
            clock: Default::default(),
            reset: Default::default(),
            in_write: Default::default(),
            in_data: Default::default(),
            s: Default::default(),
            s_len: Default::default(),
            free: Default::default(),
            idle: Default::default(),
            overflow: Default::default(),
            fifo: Default::default(),
            state: Default::default(),
            len: Default::default(),
            left: Default::default(),
            lo: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            ovf: Default::default(),
            pop: Default::default(),
            unused_len: Default::default(),
            depth: Constant::new((IN_FIFO_WORDS as u64).into()),
        }
    }
}

impl<const LEN: usize> Logic for InChannel<LEN> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, len, left, lo, data, keep, last, ovf);
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        self.fifo.write.next = self.in_write.val();
        self.fifo.data_in.next = self.in_data.val();
        self.pop.next = !self.fifo.empty.val() & (self.state.q.val() != Unpack::Beat);
        self.fifo.read.next = self.pop.val();
        if self.in_write.val() & self.fifo.full.val() {
            self.ovf.d.next = true;
        }
        match self.state.q.val() {
            Unpack::H0 => {
                if self.pop.val() {
                    self.len.d.next = bit_cast::<17, 16>(self.fifo.data_out.val());
                    self.state.d.next = Unpack::H1;
                }
            }
            Unpack::H1 => {
                if self.pop.val() {
                    self.len.d.next = self.len.q.val() | (bit_cast::<17, 1>(self.fifo.data_out.val().get_bits::<1>(0)) << 16);
                    self.left.d.next = self.len.q.val() | (bit_cast::<17, 1>(self.fifo.data_out.val().get_bits::<1>(0)) << 16);
                    self.state.d.next = Unpack::Lo;
                }
            }
            Unpack::Lo => {
                if self.pop.val() {
                    self.lo.d.next = self.fifo.data_out.val();
                    self.state.d.next = Unpack::Hi;
                }
            }
            Unpack::Hi => {
                if self.pop.val() {
                    self.data.d.next = (bit_cast::<32, 16>(self.fifo.data_out.val()) << 16) | bit_cast::<32, 16>(self.lo.q.val());
                    self.keep.d.next = 0.into();
                    if self.left.q.val() >= 4 {
                        self.keep.d.next = 15.into();
                    } else if self.left.q.val() == 3 {
                        self.keep.d.next = 7.into();
                    } else if self.left.q.val() == 2 {
                        self.keep.d.next = 3.into();
                    } else if self.left.q.val() == 1 {
                        self.keep.d.next = 1.into();
                    }
                    self.last.d.next = self.left.q.val() <= 4;
                    self.state.d.next = Unpack::Beat;
                }
            }
            Unpack::Beat => {
                if self.s.tready.val() {
                    self.left.d.next = 0.into();
                    if self.left.q.val() >= 4 {
                        self.left.d.next = self.left.q.val() - 4;
                    }
                    self.state.d.next = Unpack::Lo;
                    if self.last.q.val() {
                        self.state.d.next = Unpack::H0;
                    }
                }
            }
            _ => {
                self.state.d.next = Unpack::H0;
            }
        }
        if self.reset.val() {
            self.ovf.d.next = false;
            self.state.d.next = Unpack::H0;
        }
        self.s.tdata.next = self.data.q.val();
        self.s.tkeep.next = self.keep.q.val();
        self.s.tlast.next = self.last.q.val();
        self.s.tvalid.next = !self.reset.val() & (self.state.q.val() == Unpack::Beat);
        self.s_len.next = self.len.q.val().get_bits::<LEN>(0);
        self.unused_len.next = self.len.q.val();
        self.free.next = self.depth.val() - bit_cast::<16, 11>(self.fifo.count.val());
        self.idle.next = self.fifo.empty.val() & (self.state.q.val() == Unpack::H0);
        self.overflow.next = self.ovf.q.val();
    }
}

/// One output channel: beats `{side, last, keep, data}` into a FIFO, read by the host as
/// `WORDS` words a beat: `data[15:0]`, `data[31:16]`, with 4 words `side[15:0]`, then the flags
/// `{valid, 5'b0, side[20:16], last, keep}` (all zero when empty). The transmit channels have no
/// side channel (`side` 0, 3 words a beat), the receive channels carry their frame's fields.
#[derive(LogicBlock)]
pub struct OutChannel<const WORDS: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub m: AxisSink<32, 4>,
    /// The frame's side channel, taken with every beat.
    pub side: Signal<In, Bits<21>>,
    pub out_read: Signal<In, Bit>,
    /// Registered on `out_read` (valid the clock after it), as the USB 2.0 `okPipeOut` expects.
    pub out_data: Signal<Out, Bits<16>>,
    /// Beats waiting.
    pub count: Signal<Out, Bits<16>>,
    fifo: WordFifo<Bits<58>, 9, 10>,
    word: DFF<Bits<2>>,
    cur: DFF<Bit>,
    data: DFF<Bits<16>>,
    almost_full: Constant<Bits<10>>,
    /// The flags word's index, `WORDS - 1`.
    flags_word: Constant<Bits<2>>,
}

impl<const WORDS: usize> Default for OutChannel<WORDS> {
    fn default() -> Self {
        assert!(WORDS == 3 || WORDS == 4, "OutChannel<WORDS>: 3 or 4 words a beat");
        OutChannel {
            clock: Default::default(),
            reset: Default::default(),
            m: Default::default(),
            side: Default::default(),
            out_read: Default::default(),
            out_data: Default::default(),
            count: Default::default(),
            fifo: Default::default(),
            word: Default::default(),
            cur: Default::default(),
            data: Default::default(),
            almost_full: Constant::new(((OUT_FIFO_BEATS - 1) as u64).into()),
            flags_word: Constant::new(((WORDS - 1) as u64).into()),
        }
    }
}

impl<const WORDS: usize> Logic for OutChannel<WORDS> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, word, cur, data);
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        // Ready while two beats are free (the count compares against a constant; `full` is
        // then never reached, and is kept in the expression for clarity of intent).
        self.m.tready.next = !self.reset.val() & (self.fifo.count.val() < self.almost_full.val()) & !self.fifo.full.val();
        self.fifo.write.next = self.m.tvalid.val() & self.m.tready.val();
        self.fifo.data_in.next = (bit_cast::<58, 21>(self.side.val()) << 37)
            | (bit_cast::<58, 1>(self.m.tlast.val().into()) << 36)
            | (bit_cast::<58, 4>(self.m.tkeep.val()) << 32)
            | bit_cast::<58, 32>(self.m.tdata.val());
        self.fifo.read.next = self.out_read.val() & (self.word.q.val() == self.flags_word.val()) & self.cur.q.val();
        if self.out_read.val() {
            if self.word.q.val() == 0 {
                self.cur.d.next = !self.fifo.empty.val();
                self.data.d.next = 0.into();
                if !self.fifo.empty.val() {
                    self.data.d.next = self.fifo.data_out.val().get_bits::<16>(0);
                }
                self.word.d.next = 1.into();
            } else if self.word.q.val() == 1 {
                self.data.d.next = 0.into();
                if self.cur.q.val() {
                    self.data.d.next = self.fifo.data_out.val().get_bits::<16>(16);
                }
                self.word.d.next = 2.into();
            } else if self.word.q.val() == self.flags_word.val() {
                self.data.d.next = 0.into();
                if self.cur.q.val() {
                    self.data.d.next = bit_cast::<16, 5>(self.fifo.data_out.val().get_bits::<5>(32))
                        | (bit_cast::<16, 5>(self.fifo.data_out.val().get_bits::<5>(53)) << 5)
                        | 32768;
                }
                self.word.d.next = 0.into();
            } else {
                self.data.d.next = 0.into();
                if self.cur.q.val() {
                    self.data.d.next = self.fifo.data_out.val().get_bits::<16>(37);
                }
                self.word.d.next = self.word.q.val() + 1;
            }
        }
        if self.reset.val() {
            self.word.d.next = 0.into();
            self.cur.d.next = false;
            self.data.d.next = 0.into();
        }
        self.out_data.next = self.data.q.val();
        self.count.next = bit_cast::<16, 10>(self.fifo.count.val());
    }
}

/// The register bridge's state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Bridge {
    Idle,
    Write,
    Read,
}

/// The endpoint-to-`OffloadTop` bridge.
#[derive(LogicBlock)]
pub struct OkBridge {
    pub clock: Signal<In, Clock>,
    pub wi_addr: Signal<In, Bits<16>>,
    pub wi_data_lo: Signal<In, Bits<16>>,
    pub wi_data_hi: Signal<In, Bits<16>>,
    pub wi_control: Signal<In, Bits<16>>,
    pub ti_bus: Signal<In, Bits<16>>,
    pub mpa_in_write: Signal<In, Bit>,
    pub mpa_in_data: Signal<In, Bits<16>>,
    pub mctp_in_write: Signal<In, Bit>,
    pub mctp_in_data: Signal<In, Bits<16>>,
    pub mpa_out_read: Signal<In, Bit>,
    pub mctp_out_read: Signal<In, Bit>,
    pub mpa_rx_in_write: Signal<In, Bit>,
    pub mpa_rx_in_data: Signal<In, Bits<16>>,
    pub mctp_rx_in_write: Signal<In, Bit>,
    pub mctp_rx_in_data: Signal<In, Bits<16>>,
    pub mpa_rx_out_read: Signal<In, Bit>,
    pub mctp_rx_out_read: Signal<In, Bit>,
    pub wo_data_lo: Signal<Out, Bits<16>>,
    pub wo_data_hi: Signal<Out, Bits<16>>,
    pub wo_status: Signal<Out, Bits<16>>,
    pub wo_mpa_in_free: Signal<Out, Bits<16>>,
    pub wo_mctp_in_free: Signal<Out, Bits<16>>,
    pub wo_mpa_out_count: Signal<Out, Bits<16>>,
    pub wo_mctp_out_count: Signal<Out, Bits<16>>,
    pub wo_mpa_rx_in_free: Signal<Out, Bits<16>>,
    pub wo_mctp_rx_in_free: Signal<Out, Bits<16>>,
    pub wo_mpa_rx_out_count: Signal<Out, Bits<16>>,
    pub wo_mctp_rx_out_count: Signal<Out, Bits<16>>,
    pub mpa_out_data: Signal<Out, Bits<16>>,
    pub mctp_out_data: Signal<Out, Bits<16>>,
    pub mpa_rx_out_data: Signal<Out, Bits<16>>,
    pub mctp_rx_out_data: Signal<Out, Bits<16>>,
    pub leds: Signal<Out, Bits<8>>,
    // OffloadTop side.
    pub top_reset: Signal<Out, Bit>,
    pub reg_bus: RegMaster,
    pub mpa_s: AxisSource<32, 4>,
    pub mpa_s_len: Signal<Out, Bits<16>>,
    pub mpa_m: AxisSink<32, 4>,
    pub mctp_s: AxisSource<32, 4>,
    pub mctp_s_len: Signal<Out, Bits<17>>,
    pub mctp_m: AxisSink<32, 4>,
    pub mpa_rx_s: AxisSource<64, 8>,
    pub mpa_rx_m: AxisSink<64, 8>,
    pub mpa_rx_m_tuser: Signal<In, Bit>,
    pub mpa_rx_m_len: Signal<In, Bits<16>>,
    pub mctp_rx_s: AxisSource<32, 4>,
    pub mctp_rx_m: AxisSink<32, 4>,
    pub mctp_rx_m_src_eid: Signal<In, Bits<8>>,
    pub mctp_rx_m_dst_eid: Signal<In, Bits<8>>,
    pub mctp_rx_m_tag: Signal<In, Bits<3>>,
    pub mctp_rx_m_to: Signal<In, Bit>,
    mpa_in: InChannel<16>,
    mctp_in: InChannel<17>,
    mpa_out: OutChannel<3>,
    mctp_out: OutChannel<3>,
    /// TCP payload segments (their lengths only delimit the pipe's frames), widened to the
    /// MPA receiver's 8 octets per beat.
    mpa_rx_in: InChannel<17>,
    mpa_rx_widen: Widen,
    /// MCTP packets, one frame each.
    mctp_rx_in: InChannel<17>,
    /// ULPDUs narrowed back to 4 octets, with `{bad, m_len}` beside every beat.
    mpa_rx_narrow: Narrow,
    mpa_rx_out: OutChannel<4>,
    /// Messages with `{TO, tag, dst, src}` beside every beat.
    mctp_rx_out: OutChannel<4>,
    state: DFF<Bridge>,
    count: DFF<Bits<8>>,
    rdata: DFF<Bits<32>>,
    heartbeat: DFF<Bits<26>>,
    wr_en: DFF<Bit>,
    rd_en: DFF<Bit>,
    wr_addr: DFF<Bits<8>>,
    wr_data: DFF<Bits<32>>,
    rd_addr: DFF<Bits<8>>,
    rst: Signal<Local, Bit>,
    /// Endpoint bits the bridge does not use, and the always-0 wait inputs (named so that lint
    /// knows).
    unused_inputs: Signal<Local, Bits<16>>,
    /// The receive inputs' frame lengths, which only delimit frames in the pipe.
    unused_rx_len: Signal<Local, Bits<17>>,
}

impl Default for OkBridge {
    fn default() -> Self {
        check_layouts();
        OkBridge {
            clock: Default::default(),
            wi_addr: Default::default(),
            wi_data_lo: Default::default(),
            wi_data_hi: Default::default(),
            wi_control: Default::default(),
            ti_bus: Default::default(),
            mpa_in_write: Default::default(),
            mpa_in_data: Default::default(),
            mctp_in_write: Default::default(),
            mctp_in_data: Default::default(),
            mpa_out_read: Default::default(),
            mctp_out_read: Default::default(),
            mpa_rx_in_write: Default::default(),
            mpa_rx_in_data: Default::default(),
            mctp_rx_in_write: Default::default(),
            mctp_rx_in_data: Default::default(),
            mpa_rx_out_read: Default::default(),
            mctp_rx_out_read: Default::default(),
            wo_data_lo: Default::default(),
            wo_data_hi: Default::default(),
            wo_status: Default::default(),
            wo_mpa_in_free: Default::default(),
            wo_mctp_in_free: Default::default(),
            wo_mpa_out_count: Default::default(),
            wo_mctp_out_count: Default::default(),
            wo_mpa_rx_in_free: Default::default(),
            wo_mctp_rx_in_free: Default::default(),
            wo_mpa_rx_out_count: Default::default(),
            wo_mctp_rx_out_count: Default::default(),
            mpa_out_data: Default::default(),
            mctp_out_data: Default::default(),
            mpa_rx_out_data: Default::default(),
            mctp_rx_out_data: Default::default(),
            leds: Default::default(),
            top_reset: Default::default(),
            reg_bus: Default::default(),
            mpa_s: Default::default(),
            mpa_s_len: Default::default(),
            mpa_m: Default::default(),
            mctp_s: Default::default(),
            mctp_s_len: Default::default(),
            mctp_m: Default::default(),
            mpa_rx_s: Default::default(),
            mpa_rx_m: Default::default(),
            mpa_rx_m_tuser: Default::default(),
            mpa_rx_m_len: Default::default(),
            mctp_rx_s: Default::default(),
            mctp_rx_m: Default::default(),
            mctp_rx_m_src_eid: Default::default(),
            mctp_rx_m_dst_eid: Default::default(),
            mctp_rx_m_tag: Default::default(),
            mctp_rx_m_to: Default::default(),
            mpa_in: Default::default(),
            mctp_in: Default::default(),
            mpa_out: Default::default(),
            mctp_out: Default::default(),
            mpa_rx_in: Default::default(),
            mpa_rx_widen: Default::default(),
            mctp_rx_in: Default::default(),
            mpa_rx_narrow: Default::default(),
            mpa_rx_out: Default::default(),
            mctp_rx_out: Default::default(),
            state: Default::default(),
            count: Default::default(),
            rdata: Default::default(),
            heartbeat: Default::default(),
            wr_en: Default::default(),
            rd_en: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            rd_addr: Default::default(),
            rst: Default::default(),
            unused_inputs: Default::default(),
            unused_rx_len: Default::default(),
        }
    }
}

impl Logic for OkBridge {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, count, rdata, heartbeat, wr_en, rd_en, wr_addr, wr_data, rd_addr);
        clock!(self, clock, mpa_in, mctp_in, mpa_out, mctp_out, mpa_rx_in, mpa_rx_widen, mctp_rx_in, mpa_rx_narrow, mpa_rx_out, mctp_rx_out);
        self.rst.next = self.wi_control.val().get_bit(0);
        self.unused_inputs.next = (self.wi_control.val() & 65534)
            | (self.wi_addr.val() & 65280)
            | (self.ti_bus.val() & 65532);
        if self.reg_bus.wr_wait.val() | self.reg_bus.rd_wait.val() {
            self.unused_inputs.next = self.unused_inputs.val() | 1;
        }
        self.heartbeat.d.next = self.heartbeat.q.val() + 1;

        // Register bridge: a trigger starts one access, held until its ack.
        match self.state.q.val() {
            Bridge::Idle => {
                if self.ti_bus.val().get_bit(0) {
                    self.wr_addr.d.next = self.wi_addr.val().get_bits::<8>(0);
                    self.wr_data.d.next = (bit_cast::<32, 16>(self.wi_data_hi.val()) << 16) | bit_cast::<32, 16>(self.wi_data_lo.val());
                    self.wr_en.d.next = true;
                    self.state.d.next = Bridge::Write;
                } else if self.ti_bus.val().get_bit(1) {
                    self.rd_addr.d.next = self.wi_addr.val().get_bits::<8>(0);
                    self.rd_en.d.next = true;
                    self.state.d.next = Bridge::Read;
                }
            }
            Bridge::Write => {
                if self.reg_bus.wr_ack.val() {
                    self.wr_en.d.next = false;
                    self.count.d.next = self.count.q.val() + 1;
                    self.state.d.next = Bridge::Idle;
                }
            }
            Bridge::Read => {
                if self.reg_bus.rd_ack.val() {
                    self.rd_en.d.next = false;
                    self.rdata.d.next = self.reg_bus.rd_data.val();
                    self.count.d.next = self.count.q.val() + 1;
                    self.state.d.next = Bridge::Idle;
                }
            }
            _ => {
                self.state.d.next = Bridge::Idle;
            }
        }
        if self.rst.val() {
            self.state.d.next = Bridge::Idle;
            self.count.d.next = 0.into();
            self.rdata.d.next = 0.into();
            self.wr_en.d.next = false;
            self.rd_en.d.next = false;
        }
        self.top_reset.next = self.rst.val();
        self.reg_bus.wr_addr.next = self.wr_addr.q.val();
        self.reg_bus.wr_data.next = self.wr_data.q.val();
        self.reg_bus.wr_strb.next = 15.into();
        self.reg_bus.wr_en.next = self.wr_en.q.val();
        self.reg_bus.rd_addr.next = self.rd_addr.q.val();
        self.reg_bus.rd_en.next = self.rd_en.q.val();

        // Streams through the channels.
        self.mpa_in.reset.next = self.rst.val();
        self.mpa_in.in_write.next = self.mpa_in_write.val();
        self.mpa_in.in_data.next = self.mpa_in_data.val();
        AxisSource::<32, 4>::link(&mut self.mpa_s, &mut self.mpa_in.s);
        self.mpa_s_len.next = self.mpa_in.s_len.val();
        self.mctp_in.reset.next = self.rst.val();
        self.mctp_in.in_write.next = self.mctp_in_write.val();
        self.mctp_in.in_data.next = self.mctp_in_data.val();
        AxisSource::<32, 4>::link(&mut self.mctp_s, &mut self.mctp_in.s);
        self.mctp_s_len.next = self.mctp_in.s_len.val();
        self.mpa_out.reset.next = self.rst.val();
        self.mpa_out.out_read.next = self.mpa_out_read.val();
        AxisSink::<32, 4>::link(&mut self.mpa_m, &mut self.mpa_out.m);
        self.mpa_out_data.next = self.mpa_out.out_data.val();
        self.mctp_out.reset.next = self.rst.val();
        self.mctp_out.out_read.next = self.mctp_out_read.val();
        AxisSink::<32, 4>::link(&mut self.mctp_m, &mut self.mctp_out.m);
        self.mctp_out_data.next = self.mctp_out.out_data.val();
        self.mpa_out.side.next = 0.into();
        self.mctp_out.side.next = 0.into();

        // The receive paths.
        self.mpa_rx_in.reset.next = self.rst.val();
        self.mpa_rx_in.in_write.next = self.mpa_rx_in_write.val();
        self.mpa_rx_in.in_data.next = self.mpa_rx_in_data.val();
        self.mpa_rx_widen.reset.next = self.rst.val();
        AxisSource::<32, 4>::join(&mut self.mpa_rx_in.s, &mut self.mpa_rx_widen.s);
        AxisSource::<64, 8>::link(&mut self.mpa_rx_s, &mut self.mpa_rx_widen.m);
        self.mpa_rx_narrow.reset.next = self.rst.val();
        AxisSink::<64, 8>::link(&mut self.mpa_rx_m, &mut self.mpa_rx_narrow.s);
        self.mpa_rx_narrow.s_side.next =
            (bit_cast::<21, 1>(self.mpa_rx_m_tuser.val().into()) << 16) | bit_cast::<21, 16>(self.mpa_rx_m_len.val());
        self.mpa_rx_out.reset.next = self.rst.val();
        AxisSource::<32, 4>::join(&mut self.mpa_rx_narrow.m, &mut self.mpa_rx_out.m);
        self.mpa_rx_out.side.next = self.mpa_rx_narrow.m_side.val();
        self.mpa_rx_out.out_read.next = self.mpa_rx_out_read.val();
        self.mpa_rx_out_data.next = self.mpa_rx_out.out_data.val();
        self.mctp_rx_in.reset.next = self.rst.val();
        self.mctp_rx_in.in_write.next = self.mctp_rx_in_write.val();
        self.mctp_rx_in.in_data.next = self.mctp_rx_in_data.val();
        AxisSource::<32, 4>::link(&mut self.mctp_rx_s, &mut self.mctp_rx_in.s);
        self.mctp_rx_out.reset.next = self.rst.val();
        AxisSink::<32, 4>::link(&mut self.mctp_rx_m, &mut self.mctp_rx_out.m);
        self.mctp_rx_out.side.next = (bit_cast::<21, 1>(self.mctp_rx_m_to.val().into()) << 19)
            | (bit_cast::<21, 3>(self.mctp_rx_m_tag.val()) << 16)
            | (bit_cast::<21, 8>(self.mctp_rx_m_dst_eid.val()) << 8)
            | bit_cast::<21, 8>(self.mctp_rx_m_src_eid.val());
        self.mctp_rx_out.out_read.next = self.mctp_rx_out_read.val();
        self.mctp_rx_out_data.next = self.mctp_rx_out.out_data.val();
        self.unused_rx_len.next = self.mpa_rx_in.s_len.val() | self.mctp_rx_in.s_len.val();

        // Wire-outs and LEDs.
        self.wo_data_lo.next = self.rdata.q.val().get_bits::<16>(0);
        self.wo_data_hi.next = self.rdata.q.val().get_bits::<16>(16);
        self.wo_status.next = bit_cast::<16, 8>(self.count.q.val());
        if self.mpa_in.overflow.val() {
            self.wo_status.next = self.wo_status.val() | 256;
        }
        if self.mctp_in.overflow.val() {
            self.wo_status.next = self.wo_status.val() | 512;
        }
        if self.mpa_in.idle.val() {
            self.wo_status.next = self.wo_status.val() | 1024;
        }
        if self.mctp_in.idle.val() {
            self.wo_status.next = self.wo_status.val() | 2048;
        }
        if self.mpa_rx_in.overflow.val() {
            self.wo_status.next = self.wo_status.val() | 4096;
        }
        if self.mctp_rx_in.overflow.val() {
            self.wo_status.next = self.wo_status.val() | 8192;
        }
        if self.mpa_rx_in.idle.val() & self.mpa_rx_widen.idle.val() {
            self.wo_status.next = self.wo_status.val() | 16384;
        }
        if self.mctp_rx_in.idle.val() {
            self.wo_status.next = self.wo_status.val() | 32768;
        }
        self.wo_mpa_in_free.next = self.mpa_in.free.val();
        self.wo_mctp_in_free.next = self.mctp_in.free.val();
        self.wo_mpa_out_count.next = self.mpa_out.count.val();
        self.wo_mctp_out_count.next = self.mctp_out.count.val();
        self.wo_mpa_rx_in_free.next = self.mpa_rx_in.free.val();
        self.wo_mctp_rx_in_free.next = self.mctp_rx_in.free.val();
        self.wo_mpa_rx_out_count.next = self.mpa_rx_out.count.val();
        self.wo_mctp_rx_out_count.next = self.mctp_rx_out.count.val();
        // Active low: a heartbeat and the input/output activity.
        self.leds.next = 255.into();
        if self.heartbeat.q.val().get_bit(25) {
            self.leds.next = self.leds.val() & 127;
        }
        if self.mctp_m.tvalid.val() {
            self.leds.next = self.leds.val() & 247;
        }
        if self.mctp_s.tvalid.val() {
            self.leds.next = self.leds.val() & 251;
        }
        if self.mpa_m.tvalid.val() {
            self.leds.next = self.leds.val() & 253;
        }
        if self.mpa_s.tvalid.val() {
            self.leds.next = self.leds.val() & 254;
        }
        if self.mpa_rx_s.tvalid.val() {
            self.leds.next = self.leds.val() & 239;
        }
        if self.mctp_rx_s.tvalid.val() {
            self.leds.next = self.leds.val() & 223;
        }
        if self.mpa_rx_m.tvalid.val() | self.mctp_rx_m.tvalid.val() {
            self.leds.next = self.leds.val() & 191;
        }
    }
}

/// `OkBridge` with an `OffloadTop` (MPA TX and the MCTP blocks at 4 octets per beat, MPA RX
/// at 8) behind it: the board design minus the Opal Kelly cells. Its ports are the FrontPanel
/// endpoint signals.
#[derive(LogicBlock, Default)]
pub struct BoardCore {
    pub clock: Signal<In, Clock>,
    pub wi_addr: Signal<In, Bits<16>>,
    pub wi_data_lo: Signal<In, Bits<16>>,
    pub wi_data_hi: Signal<In, Bits<16>>,
    pub wi_control: Signal<In, Bits<16>>,
    pub ti_bus: Signal<In, Bits<16>>,
    pub mpa_in_write: Signal<In, Bit>,
    pub mpa_in_data: Signal<In, Bits<16>>,
    pub mctp_in_write: Signal<In, Bit>,
    pub mctp_in_data: Signal<In, Bits<16>>,
    pub mpa_out_read: Signal<In, Bit>,
    pub mctp_out_read: Signal<In, Bit>,
    pub mpa_rx_in_write: Signal<In, Bit>,
    pub mpa_rx_in_data: Signal<In, Bits<16>>,
    pub mctp_rx_in_write: Signal<In, Bit>,
    pub mctp_rx_in_data: Signal<In, Bits<16>>,
    pub mpa_rx_out_read: Signal<In, Bit>,
    pub mctp_rx_out_read: Signal<In, Bit>,
    pub wo_data_lo: Signal<Out, Bits<16>>,
    pub wo_data_hi: Signal<Out, Bits<16>>,
    pub wo_status: Signal<Out, Bits<16>>,
    pub wo_mpa_in_free: Signal<Out, Bits<16>>,
    pub wo_mctp_in_free: Signal<Out, Bits<16>>,
    pub wo_mpa_out_count: Signal<Out, Bits<16>>,
    pub wo_mctp_out_count: Signal<Out, Bits<16>>,
    pub wo_mpa_rx_in_free: Signal<Out, Bits<16>>,
    pub wo_mctp_rx_in_free: Signal<Out, Bits<16>>,
    pub wo_mpa_rx_out_count: Signal<Out, Bits<16>>,
    pub wo_mctp_rx_out_count: Signal<Out, Bits<16>>,
    pub mpa_out_data: Signal<Out, Bits<16>>,
    pub mctp_out_data: Signal<Out, Bits<16>>,
    pub mpa_rx_out_data: Signal<Out, Bits<16>>,
    pub mctp_rx_out_data: Signal<Out, Bits<16>>,
    pub leds: Signal<Out, Bits<8>>,
    pub bridge: OkBridge,
    pub top: OffloadTop<32, 4, 64, 96, 32, 4, 11, 64, 8, 128>,
}

impl Logic for BoardCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.bridge.clock.next = self.clock.val();
        self.top.clock.next = self.clock.val();
        // Endpoint side.
        self.bridge.wi_addr.next = self.wi_addr.val();
        self.bridge.wi_data_lo.next = self.wi_data_lo.val();
        self.bridge.wi_data_hi.next = self.wi_data_hi.val();
        self.bridge.wi_control.next = self.wi_control.val();
        self.bridge.ti_bus.next = self.ti_bus.val();
        self.bridge.mpa_in_write.next = self.mpa_in_write.val();
        self.bridge.mpa_in_data.next = self.mpa_in_data.val();
        self.bridge.mctp_in_write.next = self.mctp_in_write.val();
        self.bridge.mctp_in_data.next = self.mctp_in_data.val();
        self.bridge.mpa_out_read.next = self.mpa_out_read.val();
        self.bridge.mctp_out_read.next = self.mctp_out_read.val();
        self.bridge.mpa_rx_in_write.next = self.mpa_rx_in_write.val();
        self.bridge.mpa_rx_in_data.next = self.mpa_rx_in_data.val();
        self.bridge.mctp_rx_in_write.next = self.mctp_rx_in_write.val();
        self.bridge.mctp_rx_in_data.next = self.mctp_rx_in_data.val();
        self.bridge.mpa_rx_out_read.next = self.mpa_rx_out_read.val();
        self.bridge.mctp_rx_out_read.next = self.mctp_rx_out_read.val();
        self.wo_data_lo.next = self.bridge.wo_data_lo.val();
        self.wo_data_hi.next = self.bridge.wo_data_hi.val();
        self.wo_status.next = self.bridge.wo_status.val();
        self.wo_mpa_in_free.next = self.bridge.wo_mpa_in_free.val();
        self.wo_mctp_in_free.next = self.bridge.wo_mctp_in_free.val();
        self.wo_mpa_out_count.next = self.bridge.wo_mpa_out_count.val();
        self.wo_mctp_out_count.next = self.bridge.wo_mctp_out_count.val();
        self.wo_mpa_rx_in_free.next = self.bridge.wo_mpa_rx_in_free.val();
        self.wo_mctp_rx_in_free.next = self.bridge.wo_mctp_rx_in_free.val();
        self.wo_mpa_rx_out_count.next = self.bridge.wo_mpa_rx_out_count.val();
        self.wo_mctp_rx_out_count.next = self.bridge.wo_mctp_rx_out_count.val();
        self.mpa_out_data.next = self.bridge.mpa_out_data.val();
        self.mctp_out_data.next = self.bridge.mctp_out_data.val();
        self.mpa_rx_out_data.next = self.bridge.mpa_rx_out_data.val();
        self.mctp_rx_out_data.next = self.bridge.mctp_rx_out_data.val();
        self.leds.next = self.bridge.leds.val();
        // OffloadTop side.
        self.top.reset.next = self.bridge.top_reset.val();
        RegMaster::join(&mut self.bridge.reg_bus, &mut self.top.reg_bus);
        AxisSource::<32, 4>::join(&mut self.bridge.mpa_s, &mut self.top.mpa_s);
        self.top.mpa_s_len.next = self.bridge.mpa_s_len.val();
        AxisSource::<32, 4>::join(&mut self.top.mpa_m, &mut self.bridge.mpa_m);
        AxisSource::<32, 4>::join(&mut self.bridge.mctp_s, &mut self.top.mctp_s);
        self.top.mctp_s_len.next = self.bridge.mctp_s_len.val();
        AxisSource::<32, 4>::join(&mut self.top.mctp_m, &mut self.bridge.mctp_m);
        AxisSource::<64, 8>::join(&mut self.bridge.mpa_rx_s, &mut self.top.mpa_rx_s);
        AxisSource::<64, 8>::join(&mut self.top.mpa_rx_m, &mut self.bridge.mpa_rx_m);
        self.bridge.mpa_rx_m_tuser.next = self.top.mpa_rx_m_tuser.val();
        self.bridge.mpa_rx_m_len.next = self.top.mpa_rx_m_len.val();
        AxisSource::<32, 4>::join(&mut self.bridge.mctp_rx_s, &mut self.top.mctp_rx_s);
        AxisSource::<32, 4>::join(&mut self.top.mctp_rx_m, &mut self.bridge.mctp_rx_m);
        self.bridge.mctp_rx_m_src_eid.next = self.top.mctp_rx_m_src_eid.val();
        self.bridge.mctp_rx_m_dst_eid.next = self.top.mctp_rx_m_dst_eid.val();
        self.bridge.mctp_rx_m_tag.next = self.top.mctp_rx_m_tag.val();
        self.bridge.mctp_rx_m_to.next = self.top.mctp_rx_m_to.val();
    }
}

/// rust-hdl's simulation of the board core behind the testbench's
/// [`crate::testbench::ClockedModel`] (drive it with [`crate::testbench::BoardBench`]).
pub fn board_hdl_model() -> Result<crate::testbench::HdlModel<BoardCore>, crate::testbench::BenchError> {
    crate::hdl_model!(
        BoardCore::default(),
        BoardCore,
        [
            wi_addr, wi_data_lo, wi_data_hi, wi_control, ti_bus, mpa_in_write, mpa_in_data, mctp_in_write,
            mctp_in_data, mpa_out_read, mctp_out_read, mpa_rx_in_write, mpa_rx_in_data, mctp_rx_in_write,
            mctp_rx_in_data, mpa_rx_out_read, mctp_rx_out_read, wo_data_lo, wo_data_hi, wo_status,
            wo_mpa_in_free, wo_mctp_in_free, wo_mpa_out_count, wo_mctp_out_count, wo_mpa_rx_in_free,
            wo_mctp_rx_in_free, wo_mpa_rx_out_count, wo_mctp_rx_out_count, mpa_out_data, mctp_out_data,
            mpa_rx_out_data, mctp_rx_out_data, leds
        ]
    )
}
