//! Stage B of the MPA framer: the CRC-32C over each FPDU (RFC 5044 §4.4) and its insertion.
//!
//! Each assembled beat goes through the CRC step leaf: all lanes, or on an FPDU's last beat the
//! lanes before its CRC lane (so every Marker inside the FPDU, one right after the PAD and a
//! leading one with FPDUPTR 0 are covered), and on that beat the finished CRC (zeros when CRCs
//! are off) goes into its lane, low octet first, on the way to the output register. The CRC
//! network thus sits in its own clock stage, apart from the lane assembly.

use crate::axis::{AxisSink, AxisSource};
use crate::crc::CrcStep;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets (`K/4` word lanes) per beat.
#[derive(LogicBlock)]
pub struct CrcStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Insert the CRC (else its lane is zeros, as MPA without CRCs has it).
    pub cfg_crc: Signal<In, Bit>,
    /// Assembled beats; `tlast` on an FPDU's last beat, whose CRC goes in lane `s_crc_lane`.
    pub s: AxisSink<D, K>,
    pub s_crc_lane: Signal<In, Bits<8>>,
    /// The FPDU stream, one frame per FPDU.
    pub m: AxisSource<D, K>,
    /// FPDUs sent.
    pub fpdus: Signal<Out, Bits<32>>,
    step: CrcStep<D, K, 32>,
    crc_r: DFF<Bits<32>>,
    m_data: DFF<Bits<D>>,
    m_keep: DFF<Bits<K>>,
    m_valid: DFF<Bit>,
    m_last: DFF<Bit>,
    n_fpdus: DFF<Bits<32>>,
    covered: Signal<Local, Bits<8>>,
    cov_keep: Signal<Local, Bits<K>>,
    crc_word: Signal<Local, Bits<32>>,
    lanes_out: Signal<Local, Bits<D>>,
    c_n: Constant<Bits<8>>,
    c_nib_k: Constant<Bits<K>>,
    c_word_d: Constant<Bits<D>>,
    c_init: Constant<Bits<32>>,
}

impl<const D: usize, const K: usize> Default for CrcStage<D, K> {
    fn default() -> Self {
        let step = CrcStep::<D, K, 32>::new(CrcKind::Crc32c);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg_crc: Default::default(),
            s: Default::default(),
            s_crc_lane: Default::default(),
            m: Default::default(),
            fpdus: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            crc_r: Default::default(),
            m_data: Default::default(),
            m_keep: Default::default(),
            m_valid: Default::default(),
            m_last: Default::default(),
            n_fpdus: Default::default(),
            covered: Default::default(),
            cov_keep: Default::default(),
            crc_word: Default::default(),
            lanes_out: Default::default(),
            c_n: Constant::new(((K / 4) as u64).into()),
            c_nib_k: Constant::new(0xFu64.into()),
            c_word_d: Constant::new(0xFFFF_FFFFu64.into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for CrcStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc_r, m_data, m_keep, m_valid, m_last, n_fpdus);
        self.m.tdata.next = self.m_data.q.val();
        self.m.tkeep.next = self.m_keep.q.val();
        self.m.tvalid.next = self.m_valid.q.val();
        self.m.tlast.next = self.m_last.q.val();
        self.fpdus.next = self.n_fpdus.q.val();
        // Advance whenever the output register is empty or being taken.
        self.s.tready.next = !self.m_valid.q.val() | self.m.tready.val();

        // The lanes the CRC covers.
        self.covered.next = self.c_n.val();
        if self.s.tlast.val() {
            self.covered.next = self.s_crc_lane.val();
        }
        self.cov_keep.next = 0.into();
        for l in 0..(K / 4) {
            if self.covered.val() > l.to_bits::<8>() {
                self.cov_keep.next = self.cov_keep.val() | (self.c_nib_k.val() << (l * 4).to_bits::<16>());
            }
        }
        self.step.state.next = self.crc_r.q.val();
        self.step.data.next = self.s.tdata.val();
        self.step.keep.next = self.cov_keep.val();
        self.crc_word.next = 0.into();
        if self.cfg_crc.val() {
            self.crc_word.next = self.step.fin.val();
        }
        self.lanes_out.next = self.s.tdata.val();
        for l in 0..(K / 4) {
            if self.s.tlast.val() & (self.s_crc_lane.val() == l.to_bits::<8>()) {
                self.lanes_out.next = (self.lanes_out.val() & !(self.c_word_d.val() << (l * 32).to_bits::<16>()))
                    | (bit_cast::<D, 32>(self.crc_word.val()) << (l * 32).to_bits::<16>());
            }
        }

        if self.s.tready.val() {
            self.m_valid.d.next = self.s.tvalid.val();
            if self.s.tvalid.val() {
                self.m_data.d.next = self.lanes_out.val();
                self.m_keep.d.next = self.s.tkeep.val();
                self.m_last.d.next = self.s.tlast.val();
                self.crc_r.d.next = self.step.nxt.val();
                if self.s.tlast.val() {
                    self.crc_r.d.next = self.c_init.val();
                    self.n_fpdus.d.next = self.n_fpdus.q.val() + 1;
                }
            }
        }
        if self.reset.val() {
            self.crc_r.d.next = self.c_init.val();
            self.m_data.d.next = 0.into();
            self.m_keep.d.next = 0.into();
            self.m_valid.d.next = false;
            self.m_last.d.next = false;
            self.n_fpdus.d.next = 0.into();
        }
    }
}
