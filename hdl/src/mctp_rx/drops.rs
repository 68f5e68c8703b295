//! The depacketizer's record of its last drop: the three words of the `MCTP_RX_DROP`,
//! `MCTP_RX_DROP_CONTEXT` and `MCTP_RX_DROP_LENGTH` registers (layout in
//! `offload_driver::regmap`, decoded by `offload_driver::mctp::rx_block::DropRecord`), so that
//! the host driver words a drop from what the block saw: the header it found, the context it
//! held and what that context expected.
//!
//! Off the frame stage's paths: in the judging clock what the frame stage reloads with the next
//! frame (its header, the packet's lengths, whether a context is open) is copied, enabled by
//! the judging register alone, and in the next clock the counter bank's registered pulses say
//! whether the frame was dropped and why. A MIC error, found a clock after its judging clock,
//! is recorded a clock later still, from the same copy: the next frame is judged two clocks
//! after a judging clock at the earliest, so the copy still holds it. The context's key, last
//! sequence number and unit are read as they stand when the record is taken: only a frame that
//! opens or continues a context changes them, and such a frame is not dropped (a delivered
//! message, whose MIC may fail later, leaves them too). `restarted` is not recorded: it comes
//! with the verdict on the same start packet.

use offload_driver::mctp::RX_COUNTERS;
use offload_driver::regmap as map;
use rust_hdl::prelude::*;

/// The drop record (see the module doc).
#[derive(LogicBlock)]
pub struct DropRecord {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: no drop recorded.
    pub reset: Signal<In, Bit>,
    /// The frame stage's judging clock and what it holds then ([`super::frames::FrameStage`]).
    pub judging: Signal<In, Bit>,
    pub header: Signal<In, Bits<24>>,
    pub open: Signal<In, Bit>,
    pub last_seq: Signal<In, Bits<2>>,
    pub unit: Signal<In, Bits<9>>,
    pub plen: Signal<In, Bits<9>>,
    pub mlen: Signal<In, Bits<13>>,
    /// The counter bank's registered pulses (bit `i` counter `i`).
    pub late: Signal<In, Bits<12>>,
    /// The three register words.
    pub drop: Signal<Out, Bits<32>>,
    pub drop_context: Signal<Out, Bits<32>>,
    pub drop_length: Signal<Out, Bits<32>>,
    /// The context's key, taken as the frame stage's `ctx_key` ([`super::decode`]'s layout,
    /// `MCTP_RX_DROP_CONTEXT`'s: destination, source, tag, TO).
    pub key: Signal<In, Bits<20>>,
    // The judging clock's copy.
    j_header: DFF<Bits<24>>,
    j_open: DFF<Bit>,
    j_plen: DFF<Bits<9>>,
    j_mlen: DFF<Bits<13>>,
    seq_exp: Signal<Local, Bits<2>>,
    // The record.
    r_drop: DFF<Bits<32>>,
    r_context: DFF<Bits<32>>,
    r_length: DFF<Bits<32>>,
    code: Signal<Local, Bits<32>>,
    hit: Signal<Local, Bit>,
    /// Counter `i`'s bit when a drop of it is recorded (0 for `messages` and `restarted`), and
    /// its place in the list.
    c_recorded: [Constant<Bits<12>>; 12],
    c_place: [Constant<Bits<32>>; 12],
    c_toggle: Constant<Bits<32>>,
    c_open: Constant<Bits<32>>,
}

impl Default for DropRecord {
    fn default() -> Self {
        assert_eq!(RX_COUNTERS.len(), 12, "the record's place field and pulse vector hold 12 counters");
        let recorded = |i: usize| !matches!(RX_COUNTERS[i], "messages" | "restarted");
        // The field positions `update` writes as literals: the map's (one layout, the driver
        // decodes it from the same constants).
        assert_eq!(
            (map::MCTP_RX_DROP_SEQ_SHIFT, map::MCTP_RX_DROP_HEADER_SHIFT, map::MCTP_RX_DROP_UNIT_SHIFT, map::MCTP_RX_DROP_MESSAGE_SHIFT),
            (4, 8, 20, 16),
            "MCTP_RX_DROP* layout changed"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            judging: Default::default(),
            header: Default::default(),
            open: Default::default(),
            last_seq: Default::default(),
            unit: Default::default(),
            plen: Default::default(),
            mlen: Default::default(),
            late: Default::default(),
            drop: Default::default(),
            drop_context: Default::default(),
            drop_length: Default::default(),
            key: Default::default(),
            j_header: Default::default(),
            j_open: Default::default(),
            j_plen: Default::default(),
            j_mlen: Default::default(),
            seq_exp: Default::default(),
            r_drop: Default::default(),
            r_context: Default::default(),
            r_length: Default::default(),
            code: Default::default(),
            hit: Default::default(),
            c_recorded: std::array::from_fn(|i| Constant::new((if recorded(i) { 1u64 << i } else { 0 }).into())),
            c_place: std::array::from_fn(|i| Constant::new((i as u64).into())),
            c_toggle: Constant::new((map::MCTP_RX_DROP_TOGGLE as u64).into()),
            c_open: Constant::new((map::MCTP_RX_DROP_OPEN as u64).into()),
        }
    }
}

impl Logic for DropRecord {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, j_header, j_open, j_plen, j_mlen, r_drop, r_context, r_length);
        self.drop.next = self.r_drop.q.val();
        self.drop_context.next = self.r_context.q.val();
        self.drop_length.next = self.r_length.q.val();
        if self.judging.val() {
            self.j_header.d.next = self.header.val();
            self.j_open.d.next = self.open.val();
            self.j_plen.d.next = self.plen.val();
            self.j_mlen.d.next = self.mlen.val();
        }
        // At most one recorded counter moves in a clock (frames are judged two clocks apart or
        // more, a MIC error a clock after its judging clock), so the place is an OR.
        self.code.next = 0.into();
        self.hit.next = false;
        for i in 0..12 {
            if (self.late.val() & self.c_recorded[i].val()) != 0 {
                self.code.next = self.code.val() | self.c_place[i].val();
                self.hit.next = true;
            }
        }
        if self.j_open.q.val() {
            self.code.next = self.code.val() | self.c_open.val();
        }
        if (self.r_drop.q.val() & self.c_toggle.val()) == 0 {
            self.code.next = self.code.val() | self.c_toggle.val();
        }
        self.seq_exp.next = self.last_seq.val() + 1;
        if self.hit.val() {
            self.r_drop.d.next = self.code.val()
                | (bit_cast::<32, 2>(self.seq_exp.val()) << 4)
                | (bit_cast::<32, 24>(self.j_header.q.val()) << 8);
            self.r_context.d.next = bit_cast::<32, 20>(self.key.val()) | (bit_cast::<32, 9>(self.unit.val()) << 20);
            self.r_length.d.next = bit_cast::<32, 9>(self.j_plen.q.val()) | (bit_cast::<32, 13>(self.j_mlen.q.val()) << 16);
        }
        if self.reset.val() {
            self.r_drop.d.next = 0.into();
            self.r_context.d.next = 0.into();
            self.r_length.d.next = 0.into();
        }
    }
}
