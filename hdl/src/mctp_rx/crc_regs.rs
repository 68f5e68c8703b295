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
/// the raw beat: on `en` the CRC-8 step over every octet of `data`, and `ok` (combinational,
/// meaningful on a `last` beat) says whether the frame's last octet is its PEC. A `last` beat
/// taken restarts the register.
///
/// CRC-8/SMBUS has no final XOR and a zero residue, so the PEC is right exactly when the CRC
/// over the whole frame, PEC included, is zero: no lane select and no compare with the PEC
/// octet. The last beat's CRC is worked out for each octet count `1..=W` side by side (`W`
/// steps with constant octet masks, each a bare XOR network with no shifter), and `tkeep`'s
/// highest set lane picks one zero test: the step runs in parallel with decoding `tkeep`
/// instead of behind it. Like the decoder and the CRC leaf, a last beat's octet count is its
/// highest `tkeep` lane + 1 (a non-contiguous `tkeep` counts as its hull).
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
    /// `steps[i]`: the step over the beat's first `i + 1` octets.
    steps: [CrcStep<D, K, 8>; K],
    r: DFF<Bits<8>>,
    /// Per lane: `tkeep`'s highest set lane is this one and the CRC through it is zero.
    hit: Signal<Local, Bits<K>>,
    /// The step over the whole beat (`steps[K - 1]`'s register value): the next register on a
    /// beat that is not the frame's last.
    nxt_full: Signal<Local, Bits<8>>,
    c_init: Constant<Bits<8>>,
    c_bit: [Constant<Bits<K>>; K],
    /// The lanes above lane `i`.
    c_above: [Constant<Bits<K>>; K],
    /// The lanes `0..=i`: `steps[i]`'s octet mask.
    c_thru: [Constant<Bits<K>>; K],
}

impl<const D: usize, const K: usize> Default for PecCheck<D, K> {
    fn default() -> Self {
        let p = CrcKind::Crc8Smbus.params();
        assert!(p.xorout == 0 && p.residue == 0, "the PEC check tests the CRC over frame and PEC for zero");
        let steps: [CrcStep<D, K, 8>; K] = std::array::from_fn(|_| CrcStep::new(CrcKind::Crc8Smbus));
        Self {
            clock: Default::default(),
            reset: Default::default(),
            en: Default::default(),
            data: Default::default(),
            keep: Default::default(),
            last: Default::default(),
            ok: Default::default(),
            c_init: Constant::new(steps[0].init()),
            steps,
            r: Default::default(),
            hit: Default::default(),
            nxt_full: Default::default(),
            c_bit: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            c_above: std::array::from_fn(|i| Constant::new((crate::bits::low_ones(K) & !crate::bits::low_ones(i + 1)).into())),
            c_thru: std::array::from_fn(|i| Constant::new(crate::bits::low_ones(i + 1).into())),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PecCheck<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r);
        self.hit.next = 0.into();
        for i in 0..K {
            self.steps[i].state.next = self.r.q.val();
            self.steps[i].data.next = self.data.val();
            self.steps[i].keep.next = self.c_thru[i].val();
            // Written for every lane, so the last write (the whole beat) stands.
            self.nxt_full.next = self.steps[i].nxt.val();
            if ((self.keep.val() & self.c_bit[i].val()) != 0)
                & ((self.keep.val() & self.c_above[i].val()) == 0)
                & (self.steps[i].fin.val() == 0)
            {
                self.hit.next = self.hit.val() | self.c_bit[i].val();
            }
        }
        self.ok.next = self.hit.val().any();
        if self.en.val() {
            self.r.d.next = self.nxt_full.val();
            if self.last.val() {
                self.r.d.next = self.c_init.val();
            }
        }
        if self.reset.val() {
            self.r.d.next = self.c_init.val();
        }
    }
}
