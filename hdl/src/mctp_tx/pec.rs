//! Stage C of the MCTP packetizer: the SMBus PEC (DSP0237 §6: CRC-8 over the whole SMBus frame
//! before it, destination address first). Every frame beat goes through the CRC-8 step leaf —
//! all lanes, or on the beat that carries the PEC the lanes before its lane — and that lane
//! takes the finished CRC on the way to the output register. Frames without a PEC pass
//! unchanged. The CRC network sits in its own clock stage, after the packet assembly.

use crate::axis::{AxisSink, AxisSource};
use crate::crc::CrcStep;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct PecStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Frames; with `s_pec`, lane `s_pec_lane` of the beat (zero) is the PEC's.
    pub s: AxisSink<D, K>,
    pub s_pec: Signal<In, Bit>,
    pub s_pec_lane: Signal<In, Bits<8>>,
    pub m: AxisSource<D, K>,
    step: CrcStep<D, K, 8>,
    crc_r: DFF<Bits<8>>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_valid: DFF<Bit>,
    o_last: DFF<Bit>,
    cov_keep: Signal<Local, Bits<K>>,
    lanes_out: Signal<Local, Bits<D>>,
    c_lane: [Constant<Bits<8>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_ones_k: Constant<Bits<K>>,
    c_init: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize> Default for PecStage<D, K> {
    fn default() -> Self {
        let step = CrcStep::<D, K, 8>::new(CrcKind::Crc8Smbus);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            s_pec: Default::default(),
            s_pec_lane: Default::default(),
            m: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            crc_r: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_valid: Default::default(),
            o_last: Default::default(),
            cov_keep: Default::default(),
            lanes_out: Default::default(),
            c_lane: std::array::from_fn(|i| Constant::new((i as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PecStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc_r, o_data, o_keep, o_valid, o_last);
        self.m.tdata.next = self.o_data.q.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.s.tready.next = !self.o_valid.q.val() | self.m.tready.val();

        self.cov_keep.next = self.c_ones_k.val();
        if self.s_pec.val() {
            self.cov_keep.next = 0.into();
            for i in 0..K {
                if self.c_lane[i].val() < self.s_pec_lane.val() {
                    self.cov_keep.next = self.cov_keep.val() | self.c_bit[i].val();
                }
            }
        }
        self.step.state.next = self.crc_r.q.val();
        self.step.data.next = self.s.tdata.val();
        self.step.keep.next = self.cov_keep.val();
        self.lanes_out.next = self.s.tdata.val();
        if self.s_pec.val() {
            self.lanes_out.next = self.s.tdata.val()
                | (bit_cast::<D, 8>(self.step.fin.val()) << (bit_cast::<16, 8>(self.s_pec_lane.val()) << 3));
        }

        if self.s.tready.val() {
            self.o_valid.d.next = self.s.tvalid.val();
            if self.s.tvalid.val() {
                self.o_data.d.next = self.lanes_out.val();
                self.o_keep.d.next = self.s.tkeep.val();
                self.o_last.d.next = self.s.tlast.val();
                self.crc_r.d.next = self.step.nxt.val();
                if self.s.tlast.val() {
                    self.crc_r.d.next = self.c_init.val();
                }
            }
        }
        if self.reset.val() {
            self.crc_r.d.next = self.c_init.val();
            self.o_data.d.next = 0.into();
            self.o_keep.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_last.d.next = false;
        }
    }
}
