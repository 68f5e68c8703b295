//! The frame stage's two CRC registers, each a child block holding its `CrcStep` leaf and the
//! flip-flops that take the step's result. They are children, not logic inside the frame
//! stage, because of how Verilator orders a combinational `always` block: it splits a block
//! only into groups of statements that share no variable, and in the frame stage every
//! statement is tied to every other (the beat's target decides both the step's inputs and where
//! its result goes), so a step whose inputs it drives and whose output it reads would be a
//! loop through that one block (UNOPTFLAT) although no real loop exists. Here the step's
//! output feeds only the flip-flops of a small block.

use crate::crc::CrcStep;
use offload_driver::crc::CrcKind;
use rust_hdl::prelude::*;

/// The NVMe-MI MIC register: on `en` it takes the CRC-32C step of `state_in` over the `keep`
/// octets of `data` (`keep` = 0 loads `state_in` unchanged).
#[derive(LogicBlock)]
pub struct MicReg<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the CRC's initial value.
    pub reset: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub state_in: Signal<In, Bits<32>>,
    pub data: Signal<In, Bits<D>>,
    pub keep: Signal<In, Bits<K>>,
    pub q: Signal<Out, Bits<32>>,
    step: CrcStep<D, K, 32>,
    r: DFF<Bits<32>>,
    unused_fin: Signal<Local, Bits<32>>,
    c_init: Constant<Bits<32>>,
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
            keep: Default::default(),
            q: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            r: Default::default(),
            unused_fin: Default::default(),
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
        self.step.keep.next = self.keep.val();
        self.unused_fin.next = self.step.fin.val();
        if self.en.val() {
            self.r.d.next = self.step.nxt.val();
        }
        if self.reset.val() {
            self.r.d.next = self.c_init.val();
        }
    }
}

/// The SMBus PEC check (DSP0237: CRC-8 over the frame but its last octet): on `en` the CRC-8
/// step over the `keep` octets of `data`; with `last`, `ok` becomes whether the finished CRC is
/// `lane` (and `nonempty`), and the register restarts with `clear`.
#[derive(LogicBlock)]
pub struct PecCheck<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub en: Signal<In, Bit>,
    pub data: Signal<In, Bits<D>>,
    pub keep: Signal<In, Bits<K>>,
    pub last: Signal<In, Bit>,
    pub lane: Signal<In, Bits<8>>,
    pub nonempty: Signal<In, Bit>,
    /// The next frame starts: the CRC-8 back to its initial value.
    pub clear: Signal<In, Bit>,
    pub ok: Signal<Out, Bit>,
    step: CrcStep<D, K, 8>,
    r: DFF<Bits<8>>,
    ok_r: DFF<Bit>,
    c_init: Constant<Bits<8>>,
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
            lane: Default::default(),
            nonempty: Default::default(),
            clear: Default::default(),
            ok: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            r: Default::default(),
            ok_r: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PecCheck<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r, ok_r);
        self.ok.next = self.ok_r.q.val();
        self.step.state.next = self.r.q.val();
        self.step.data.next = self.data.val();
        self.step.keep.next = self.keep.val();
        if self.en.val() {
            self.r.d.next = self.step.nxt.val();
            if self.last.val() {
                self.ok_r.d.next = self.nonempty.val() & (self.step.fin.val() == self.lane.val());
            }
        }
        if self.clear.val() | self.reset.val() {
            self.r.d.next = self.c_init.val();
        }
        if self.reset.val() {
            self.ok_r.d.next = false;
        }
    }
}
