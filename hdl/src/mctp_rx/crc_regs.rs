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

/// The NVMe-MI MIC register, folding each written word a clock after the beat that wrote it.
///
/// A beat with a target (`en`) registers its word (`pend`, with `pend_v` when it is a whole
/// word: `full`). The register is the running MIC of the frame stage's running window, which
/// after a judging clock holds the state a continuation continues from: the packet's own (it
/// was committed, and `fold` is what `acc` loads anyway) or the committed MIC (`forget`: the
/// packet was not committed, and `acc` loads `c_state`). A beat that starts a message's
/// payload loads the initial value instead (`restart`, loaded whether or not the beat is
/// taken). So the CRC-32C step runs from registers (`q` and `pend`) in the clock after the
/// beat, not behind the window's shifter in the beat's own clock (MCTP RX W = 8's and
/// `top_w8`'s critical path once: the skid's data → the fill's barrel → the step, 15 levels),
/// and no input but `restart` and `forget` (from registers) picks the state.
///
/// The MIC over every word taken so far is `q` with `pend` folded in (`fold`, when
/// `pend_v`). Readers in the judging clock use `fold` (the committed MIC) or fold `pend` into
/// their own networks (the frame stage's residue check); `q` alone lags by that word.
#[derive(LogicBlock)]
pub struct MicReg<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: the CRC's initial value, nothing pending.
    pub reset: Signal<In, Bit>,
    /// The beat is taken with a target: its word is pending (`pend_v` when `full`).
    pub en: Signal<In, Bit>,
    /// A flags beat that starts a message is on the input: the register loads the initial
    /// value. Not gated by `en`: the register is dead from the judging clock (which has read
    /// `fold`) until that beat is taken, so a load on a clock where the beat waits is
    /// overwritten by the one on the clock it is taken. That keeps the input's ready out of
    /// the enables of `acc`'s 32 flip-flops (MCTP RX W = 4's path on every seed at stop 59:
    /// ready → this register). It wins over `forget`, which a waiting start's judging clock
    /// may raise.
    pub restart: Signal<In, Bit>,
    /// A judging clock that forgets its packet: the register loads the committed MIC.
    pub forget: Signal<In, Bit>,
    pub data: Signal<In, Bits<D>>,
    pub full: Signal<In, Bit>,
    pub c_state: Signal<In, Bits<32>>,
    /// The register: every word but the pending one folded in.
    pub q: Signal<Out, Bits<32>>,
    pub pend: Signal<Out, Bits<D>>,
    pub pend_v: Signal<Out, Bit>,
    /// `q` with the pending word folded in.
    pub fold: Signal<Out, Bits<32>>,
    step: CrcStep<D, K, 32>,
    acc: DFF<Bits<32>>,
    pw: DFF<Bits<D>>,
    pv: DFF<Bit>,
    unused_fin: Signal<Local, Bits<32>>,
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
            restart: Default::default(),
            data: Default::default(),
            full: Default::default(),
            forget: Default::default(),
            c_state: Default::default(),
            q: Default::default(),
            pend: Default::default(),
            pend_v: Default::default(),
            fold: Default::default(),
            c_init: Constant::new(step.init()),
            step,
            acc: Default::default(),
            pw: Default::default(),
            pv: Default::default(),
            unused_fin: Default::default(),
            c_ones_k: Constant::new(crate::bits::low_ones(K).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MicReg<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, pw, pv);
        // Only whole words are folded in here, so the step's octet mask is a constant and
        // synthesis keeps no partial-word shifter: a bare XOR network from registers.
        self.step.state.next = self.acc.q.val();
        self.step.data.next = self.pw.q.val();
        self.step.keep.next = self.c_ones_k.val();
        self.unused_fin.next = self.step.fin.val();
        // `fold` and the register's next value are written apart (the same select twice), so
        // that Verilator sees no path from this block's inputs to `fold`: the frame stage reads
        // `fold` and drives the inputs, in one `always` block (see the module doc).
        self.q.next = self.acc.q.val();
        self.pend.next = self.pw.q.val();
        self.pend_v.next = self.pv.q.val();
        self.fold.next = self.acc.q.val();
        if self.pv.q.val() {
            self.fold.next = self.step.nxt.val();
        }
        // The word is loaded every clock (read only under `pv`), so its enable is not `en`.
        self.acc.d.next = self.acc.q.val();
        if self.pv.q.val() {
            self.acc.d.next = self.step.nxt.val();
        }
        self.pw.d.next = self.data.val();
        self.pv.d.next = self.en.val() & self.full.val();
        if self.forget.val() {
            self.acc.d.next = self.c_state.val();
        }
        if self.restart.val() {
            self.acc.d.next = self.c_init.val();
        }
        if self.reset.val() {
            self.acc.d.next = self.c_init.val();
            self.pv.d.next = false;
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
    /// Per lane: `tkeep`'s highest set lane is this one and the CRC through it is zero. The
    /// PEC checks when any is set; that OR is left to the reader, behind a register.
    pub hits: Signal<Out, Bits<K>>,
    hit: Signal<Local, Bits<K>>,
    /// `steps[i]`: the step over the beat's first `i + 1` octets.
    steps: [CrcStep<D, K, 8>; K],
    r: DFF<Bits<8>>,
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
            hits: Default::default(),
            hit: Default::default(),
            c_init: Constant::new(steps[0].init()),
            steps,
            r: Default::default(),
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
        self.hits.next = self.hit.val();
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
