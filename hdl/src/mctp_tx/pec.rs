//! Stage C of the MCTP packetizer: the SMBus PEC (DSP0237 §6: CRC-8 over the whole SMBus frame
//! before it, destination address first). Every frame beat goes through the CRC-8 step leaf —
//! all lanes, or on the beat that carries the PEC the lanes before its lane — and that lane
//! takes the finished CRC on the way to the output register. The packet stage marks the lane
//! and the lanes before it as masks, so neither a compare nor a byte shifter by the lane number
//! follows the CRC step here (issue 27: that was MCTP TX's longest path at W = 8). Frames without a PEC pass
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
    /// Frames; with `s_pec`, the beat's lane whose bit is set in `s_pec_at` (zero) is the
    /// PEC's, and the lanes in `s_pec_keep` (those before it) are what the PEC covers of it.
    pub s: AxisSink<D, K>,
    pub s_pec: Signal<In, Bit>,
    pub s_pec_at: Signal<In, Bits<K>>,
    pub s_pec_keep: Signal<In, Bits<K>>,
    pub m: AxisSource<D, K>,
    step: CrcStep<D, K, 8>,
    crc_r: DFF<Bits<8>>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_valid: DFF<Bit>,
    o_last: DFF<Bit>,
    cov_keep: Signal<Local, Bits<K>>,
    lanes_out: Signal<Local, Bits<D>>,
    /// The finished CRC in every lane.
    pec_d: Signal<Local, Bits<D>>,
    c_bit: [Constant<Bits<K>>; K],
    c_byte_d: Constant<Bits<D>>,
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
            s_pec_at: Default::default(),
            s_pec_keep: Default::default(),
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
            pec_d: Default::default(),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_byte_d: Constant::new(0xFFu64.into()),
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
            self.cov_keep.next = self.s_pec_keep.val();
        }
        self.step.state.next = self.crc_r.q.val();
        self.step.data.next = self.s.tdata.val();
        self.step.keep.next = self.cov_keep.val();
        self.lanes_out.next = self.s.tdata.val();
        // The finished CRC into the PEC's lane: one AND-OR per lane, no shifter.
        self.pec_d.next = 0.into();
        for i in 0..K {
            self.pec_d.next = self.pec_d.val() | (bit_cast::<D, 8>(self.step.fin.val()) << (i * 8).to_bits::<16>());
        }
        self.lanes_out.next = self.s.tdata.val();
        if self.s_pec.val() {
            for i in 0..K {
                if (self.s_pec_at.val() & self.c_bit[i].val()) != 0 {
                    self.lanes_out.next =
                        self.lanes_out.val() | (self.pec_d.val() & (self.c_byte_d.val() << (i * 8).to_bits::<16>()));
                }
            }
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
