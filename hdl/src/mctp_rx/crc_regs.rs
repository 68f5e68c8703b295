//! The depacketizer's two CRC registers, each a child block holding its `CrcStep` leaf and the
//! flip-flops that take the step's result: the MIC register of the frame stage and the PEC
//! check of the beat decoder. They are children, not logic inside those stages, because of how Verilator orders a combinational `always` block: it splits a block
//! only into groups of statements that share no variable, and in the frame stage every
//! statement is tied to every other (the beat's target decides both the step's inputs and where
//! its result goes), so a step whose inputs it drives and whose output it reads would be a
//! loop through that one block (UNOPTFLAT) although no real loop exists. Here the step's
//! output feeds only the flip-flops of a small block.

use crate::crc::CrcStep;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// The NVMe-MI MIC register: on `en` it takes the CRC-32C step of one of two candidates, the
/// running one (`state_in` over `data`, when `full`) or the committed one (`c_state` over
/// `c_data`, when `c_full`), as `use_c` picks; a candidate that is not `full` leaves its state
/// unchanged. Both steps run side by side from the frame stage's registers, so the key match
/// that decides `use_c` only selects between finished results instead of feeding the
/// window's shifter and the XOR network. (Only whole words are ever folded in here, so each
/// step's octet mask is a constant and synthesis keeps no partial-word shifter: each step is
/// a bare XOR network.)
#[derive(LogicBlock)]
pub struct MicReg<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the CRC's initial value.
    pub reset: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub state_in: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<D>>,
    pub full: Signal<In, Bit>,
    pub c_state: Signal<In, Bits<32>>,
    pub c_data: Signal<In, Bits<D>>,
    pub c_full: Signal<In, Bit>,
    pub use_c: Signal<In, Bit>,
    pub q: Signal<Out, Bits<32>>,
    step: CrcStep<D, K, 32>,
    c_step: CrcStep<D, K, 32>,
    r: DFF<Bits<32>>,
    nxt_run: Signal<Local, Bits<32>>,
    nxt_com: Signal<Local, Bits<32>>,
    unused_fin: Signal<Local, Bits<32>>,
    unused_c_fin: Signal<Local, Bits<32>>,
    c_init: Constant<Bits<32>>,
    c_ones_k: Constant<Bits<K>>,
}

impl<const D: usize, const K: usize> Default for MicReg<D, K> {
    fn default() -> Self {
        let step = CrcStep::<D, K, 32>::new(CrcKind::Crc32c);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            state_in: Default::default(),
            data: Default::default(),
            full: Default::default(),
            c_state: Default::default(),
            c_data: Default::default(),
            c_full: Default::default(),
            use_c: Default::default(),
            q: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            c_step: CrcStep::<D, K, 32>::new(CrcKind::Crc32c),
            r: Default::default(),
            nxt_run: Default::default(),
            nxt_com: Default::default(),
            unused_fin: Default::default(),
            unused_c_fin: Default::default(),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MicReg<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.q.next = self.r.q.val();
        self.step.state.next = self.state_in.val();
        self.step.data.next = self.data.val();
        self.step.keep.next = self.c_ones_k.val();
        self.unused_fin.next = self.step.fin.val();
        self.c_step.state.next = self.c_state.val();
        self.c_step.data.next = self.c_data.val();
        self.c_step.keep.next = self.c_ones_k.val();
        self.unused_c_fin.next = self.c_step.fin.val();
        self.nxt_run.next = self.state_in.val();
        if self.full.val() {
            self.nxt_run.next = self.step.nxt.val();
        }
        self.nxt_com.next = self.c_state.val();
        if self.c_full.val() {
            self.nxt_com.next = self.c_step.nxt.val();
        }
        if self.en.val() {
            self.r.d.next = self.nxt_run.val();
            if self.use_c.val() {
                self.r.d.next = self.nxt_com.val();
            }
        }
        if self.reset.val() {
            self.r.d.next = self.c_init.val();
        }
    }
}

/// The SMBus PEC check (DSP0237: CRC-8 over the frame but its last octet), fed straight from
/// the raw beat: on `en` the CRC-8 step over every octet of `data` (on a `last` beat, every
/// valid octet but the last), and `ok` (combinational, meaningful on a `last` beat) says whether
/// the finished CRC equals the frame's last octet. A `last` beat taken restarts the register.
/// It works out the beat's octet count from `keep` itself, so that the decoder's statements
/// that drive it are plain wires (see the module doc for why that matters to Verilator).
#[derive(LogicBlock)]
pub struct PecCheck<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub data: Signal<In, Bits<D>>,
    /// `tkeep`: read on a `last` beat only.
    pub keep: Signal<In, Bits<K>>,
    pub last: Signal<In, Bit>,
    pub ok: Signal<Out, Bit>,
    step: CrcStep<D, K, 8>,
    r: DFF<Bits<8>>,
    k: Signal<Local, Bits<8>>,
    k_lane: Signal<Local, Bits<8>>,
    step_keep: Signal<Local, Bits<K>>,
    lane: Signal<Local, Bits<8>>,
    c_init: Constant<Bits<8>>,
    c_lane1: [Constant<Bits<8>>; K],
    c_bit: [Constant<Bits<K>>; K],
    c_ones_k: Constant<Bits<K>>,
}

impl<const D: usize, const K: usize> Default for PecCheck<D, K> {
    fn default() -> Self {
        let step = CrcStep::<D, K, 8>::new(CrcKind::Crc8Smbus);
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            ok: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            r: Default::default(),
            k: Default::default(),
            k_lane: Default::default(),
            step_keep: Default::default(),
            lane: Default::default(),
            c_lane1: std::array::from_fn(|i| Constant::new(((i + 1) as u64).into())),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PecCheck<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        // k: the valid octets of a last beat (the highest keep bit + 1), worked out twice: once
        // for the step's octet mask and once for the PEC's lane, so that Verilator can split
        // the statements that drive the step from the one that reads it (a shared variable
        // would make them one group: a loop through the step, UNOPTFLAT).
        self.k.next = 0.into();
        for i in 0..K {
            if (self.keep.val() & self.c_bit[i].val()) != 0 {
                self.k.next = self.c_lane1[i].val();
            }
        }
        self.step_keep.next = self.c_ones_k.val();
        if self.last.val() {
            self.step_keep.next = 0.into();
            for i in 0..K {
                if self.c_lane1[i].val() < self.k.val() {
                    self.step_keep.next = self.step_keep.val() | self.c_bit[i].val();
                }
            }
        }
        self.k_lane.next = 0.into();
        for i in 0..K {
            if (self.keep.val() & self.c_bit[i].val()) != 0 {
                self.k_lane.next = self.c_lane1[i].val();
            }
        }
        self.lane.next = 0.into();
        for i in 0..K {
            if self.k_lane.val() == self.c_lane1[i].val() {
                self.lane.next = self.data.val().get_bits::<8>(i * 8);
            }
        }
        self.step.state.next = self.r.q.val();
        self.step.data.next = self.data.val();
        self.step.keep.next = self.step_keep.val();
        self.ok.next = (self.k_lane.val() != 0) & (self.step.fin.val() == self.lane.val());
        if self.en.val() {
            self.r.d.next = self.step.nxt.val();
            if self.last.val() {
                self.r.d.next = self.c_init.val();
            }
        }
        if self.reset.val() {
            self.r.d.next = self.c_init.val();
        }
    }
}
