//! Stage C of the MCTP packetizer: the SMBus PEC (DSP0237 §6: CRC-8 over the whole SMBus frame
//! before it, destination address first). Frames without a PEC pass unchanged. Two register
//! stages, with nothing of the CRC in front of a lane select in either:
//! - the input stage (`p_*`) registers the beat and runs the CRC-8 loop over whole beats
//!   (`crc_r`). On the beat that carries the PEC the octets from its lane on are zeroed first
//!   (the PEC lane is the beat's highest kept lane, so the lanes before it are `tkeep >> 1`,
//!   wiring), so no shifter is in the step; the result `X = A_{W−k}·T` (`p_x`) is the true register `T` after the `k` covered
//!   octets followed by `W − k` zero octets ([`crate::crc::pipeline`]).
//! - the output stage finishes it per lane: lane `i`, when it is the PEC's (`tkeep`'s highest
//!   lane, `tkeep & !(tkeep >> 1)`, registered with the beat), takes
//!   `finish(U_{W−i}·X)`, one 8 × 8 matrix per lane ([`GfMatrix`], `U_n = A_n⁻¹`), so the PEC
//!   is an AND-OR into its lane.
//!
//! (Issue 27: the partial step followed by the lane select, in one clock, was MCTP TX's longest
//! path at W = 8 once the packet stage's lane masks came from registers.)

use crate::axis::{AxisSink, AxisSource};
use crate::crc::{CrcNetwork, CrcPipeline, GfMatrix};
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct PecStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    /// Frames; with `s_pec`, the beat's highest kept lane (zero) is the PEC's, and the lanes
    /// before it are what the PEC covers of the beat.
    pub s: AxisSink<D, K>,
    pub s_pec: Signal<In, Bit>,
    pub m: AxisSource<D, K>,
    /// The CRC-8 over one whole beat (its lanes past the covered ones zeroed):
    /// `A_W·R ⊕ L(d)`, the register's and the data's networks ([`crate::crc::pipeline`]).
    state_net: GfMatrix<8, 8>,
    data_net: GfMatrix<D, 8>,
    nxt: Signal<Local, Bits<8>>,
    /// Lane `i`'s PEC from `p_x`: `finish(U_{W−i}·X)` in bits `8i..8i+7`.
    lane_pec: GfMatrix<8, D>,
    crc_r: DFF<Bits<8>>,
    p_data: DFF<Bits<D>>,
    p_keep: DFF<Bits<K>>,
    p_last: DFF<Bit>,
    p_valid: DFF<Bit>,
    p_pec: DFF<Bit>,
    p_pec_at: DFF<Bits<K>>,
    p_x: DFF<Bits<8>>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_valid: DFF<Bit>,
    o_last: DFF<Bit>,
    /// The output register is free or being taken; the input stage's is (or its beat moves).
    adv: Signal<Local, Bit>,
    p_free: Signal<Local, Bit>,
    cov_keep: Signal<Local, Bits<K>>,
    /// The beat with the lanes past `cov_keep` zeroed.
    cov_data: Signal<Local, Bits<D>>,
    lanes_out: Signal<Local, Bits<D>>,
    c_bit: [Constant<Bits<K>>; K],
    c_byte_d: Constant<Bits<D>>,
    c_ones_k: Constant<Bits<K>>,
    c_init: Constant<Bits<8>>,
}

impl<const D: usize, const K: usize> Default for PecStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && D <= 64, "PecStage<8K, K> with K ≤ 8");
        let pipe = CrcPipeline::new(CrcNetwork::new(CrcKind::Crc8Smbus.params(), K));
        // Input bit b of X to every lane's finished PEC; the constant is xorout in every lane.
        let per_lane: Vec<Vec<u64>> = (0..K).map(|i| pipe.finished_unshift(K - i)).collect();
        let columns = (0..8).map(|b| (0..K).fold(0u64, |acc, i| acc | (per_lane[i][b] << (8 * i)))).collect();
        let xorout = pipe.net.finish(0);
        let constant = (0..K).fold(0u64, |acc, i| acc | (xorout << (8 * i)));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            s_pec: Default::default(),
            m: Default::default(),
            c_init: Constant::new(pipe.net.init_r.into()),
            state_net: GfMatrix::new(pipe.advance.clone(), 0),
            data_net: GfMatrix::new(pipe.data.clone(), 0),
            nxt: Default::default(),
            lane_pec: GfMatrix::new(columns, constant),
            crc_r: Default::default(),
            p_data: Default::default(),
            p_keep: Default::default(),
            p_last: Default::default(),
            p_valid: Default::default(),
            p_pec: Default::default(),
            p_pec_at: Default::default(),
            p_x: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_valid: Default::default(),
            o_last: Default::default(),
            adv: Default::default(),
            p_free: Default::default(),
            cov_keep: Default::default(),
            cov_data: Default::default(),
            lanes_out: Default::default(),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_byte_d: Constant::new(0xFFu64.into()),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PecStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, crc_r, p_data, p_keep, p_last, p_valid, p_pec, p_pec_at, p_x, o_data, o_keep, o_valid, o_last);
        self.m.tdata.next = self.o_data.q.val();
        self.m.tkeep.next = self.o_keep.q.val();
        self.m.tvalid.next = self.o_valid.q.val();
        self.m.tlast.next = self.o_last.q.val();
        self.adv.next = !self.o_valid.q.val() | self.m.tready.val();
        self.p_free.next = !self.p_valid.q.val() | self.adv.val();
        self.s.tready.next = self.p_free.val();

        // ---- The input stage: the beat, the loop over whole beats (the PEC beat's lanes from
        // the PEC's on zeroed).
        self.cov_keep.next = self.c_ones_k.val();
        if self.s_pec.val() {
            self.cov_keep.next = self.s.tkeep.val() >> 1;
        }
        self.cov_data.next = self.s.tdata.val();
        for i in 0..K {
            if (self.cov_keep.val() & self.c_bit[i].val()) == 0 {
                self.cov_data.next = self.cov_data.val() & !(self.c_byte_d.val() << (i * 8).to_bits::<16>());
            }
        }
        self.state_net.x.next = self.crc_r.q.val();
        self.data_net.x.next = self.cov_data.val();
        self.nxt.next = self.state_net.y.val() ^ self.data_net.y.val();

        // ---- The output stage: the PEC into its lane, one AND-OR per lane.
        self.lane_pec.x.next = self.p_x.q.val();
        self.lanes_out.next = self.p_data.q.val();
        if self.p_pec.q.val() {
            for i in 0..K {
                if (self.p_pec_at.q.val() & self.c_bit[i].val()) != 0 {
                    self.lanes_out.next = self.lanes_out.val()
                        | (self.lane_pec.y.val() & (self.c_byte_d.val() << (i * 8).to_bits::<16>()));
                }
            }
        }

        if self.adv.val() {
            self.o_valid.d.next = self.p_valid.q.val();
            if self.p_valid.q.val() {
                self.o_data.d.next = self.lanes_out.val();
                self.o_keep.d.next = self.p_keep.q.val();
                self.o_last.d.next = self.p_last.q.val();
            }
        }
        if self.p_free.val() {
            self.p_valid.d.next = self.s.tvalid.val();
            if self.s.tvalid.val() {
                self.p_data.d.next = self.s.tdata.val();
                self.p_keep.d.next = self.s.tkeep.val();
                self.p_last.d.next = self.s.tlast.val();
                self.p_pec.d.next = self.s_pec.val();
                self.p_pec_at.d.next = self.s.tkeep.val() & !(self.s.tkeep.val() >> 1);
                self.p_x.d.next = self.nxt.val();
                self.crc_r.d.next = self.nxt.val();
                if self.s.tlast.val() {
                    self.crc_r.d.next = self.c_init.val();
                }
            }
        }
        if self.reset.val() {
            self.crc_r.d.next = self.c_init.val();
            self.p_valid.d.next = false;
            self.o_data.d.next = 0.into();
            self.o_keep.d.next = 0.into();
            self.o_valid.d.next = false;
            self.o_last.d.next = false;
        }
    }
}
