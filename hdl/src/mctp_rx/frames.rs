//! Stage A of the depacketizer: frames in, packets judged, payload written to the message
//! memory, descriptors of good messages out. It holds the one reassembly context.
//!
//! # Why whole messages are buffered
//! The reference (`offload_driver::mctp::receive` with one reassembly context) delivers
//! messages in completion order, and a single-packet message for another key completes while
//! a multi-packet one is still open. A stream that cut through would already be inside the
//! open message's frame and could not emit the other one first, and octets of a message later
//! abandoned (bad sequence, restart, too long, bad MIC) cannot be recalled. So each packet's
//! payload is written into the message ring speculatively and a message is published (a
//! descriptor pushed) only once its last packet passed every check: the output carries
//! exactly the software's delivered messages, in the same order, and nothing else.
//!
//! # Datapath
//! 1. **Ingest.** Frames arrive one per packet (raw MCTP packets, or SMBus frames with
//!    `cfg.smbus`), already decoded by [`super::decode::BeatDecoder`] a clock earlier: each
//!    beat's payload in lanes 0.. (`tkeep`), and on `info` the frame octets 0..8 so far (the
//!    SMBus prefix and the MCTP header, judged as the last beat is taken), the header's
//!    octets 1..3, whether the beat holds the flags octet, the payload count, the frame length
//!    and the PEC verdict. Nothing here depends on the beat's position any more.
//! 2. **Target.** In the beat holding the flags octet the packet's destination is chosen from
//!    the header and the context, as the software will judge it: a start of message goes to
//!    the ring at the free start `ms` (a restart of the open key after the open message's
//!    committed octets, so that the open message stays intact until the restart is judged
//!    good); a single-packet message for another key while a context is open goes to the
//!    *slot* (a 256-octet side memory, so it can be published before the open message); a
//!    packet continuing the open message goes to the ring after its committed octets;
//!    anything else is written nowhere. The input waits in that beat while the ring lacks
//!    room or the slot's last message is still being read. (The ring's room is checked for
//!    each address a beat can write at, in parallel from registers; the target picks one.)
//! 3. **Realignment.** Payload octets (after the header, before the PEC) are appended to a
//!    window (`win`, `wf` < W octets) and written a whole word at a time, so every message
//!    starts word-aligned and the reader reads one aligned word per beat. The CRC-32C step runs
//!    over every written word (the MIC), in the clock after the beat, from the registered word
//!    ([`MicReg`]).
//! 4. **Judging clock.** After a frame's last beat, one clock (input not ready) judges the
//!    packet with the software's rules in the software's order (oversize, SMBus, PEC, header,
//!    reassembly), writes the window's partial word, and either commits the packet (the
//!    context keeps its write position, window and CRC) or forgets it (the running state is reloaded
//!    from the last committed one, so nothing needs erasing). A completed message gets a
//!    descriptor; one whose MIC fails (the CRC-32C residue over message and MIC) is counted
//!    and gets a void one (0 octets), which the reader drops as it passes, releasing the
//!    message's ring words or the slot in order, as NIC receive rings return an errored
//!    descriptor's buffer. Every check but the MIC's is made as the last beat is
//!    taken (the length compares against the baseline MTU, the unit and the limit; SMBus,
//!    PEC, version, the open key's match, the sequence number), so the judging clock starts
//!    from registered verdicts and only orders them. The MIC is split over two clocks: the
//!    judging clock registers the CRC-32C register after the word still pending in the MIC
//!    register and the last partial word (in two parts, flat GF(2) trees from registers),
//!    and the residue compare (the parts' XOR tested for zero) follows in the next clock (the
//!    delivery clock), where it reaches only the counters and one register (`dl_void`, which
//!    clears the descriptor's length as it is pushed): the free start moves past the
//!    message (or the slot is taken) whatever the verdict, so both move in the judging
//!    clock itself, and a beat choosing its target in the delivery clock reads them from
//!    their registers (`ms`, `okr_ms`, `slot_busy`; the queue's flag is forwarded, `q_afull`
//!    with the pending push). The descriptor is pushed a clock later still (`push_r`), so the
//!    compare does not run on into the queue's flags.
//!
//! `s.tready` is chosen from registers only: the ring's room for each address a beat can write
//! at is a flag registered a clock ahead (`okr_*`, with a word of margin), a delivery pending
//! in that clock counts as published (it is, good or void), and with a
//! context open a flags beat waits for the room (and the slot) its header could need whether
//! or not its key matches, so the key match is not in front of ready.
//!
//! # Limits (hardware choices; the host driver names the same ones)
//! - Raw frames longer than 4 + 256 octets are dropped (`oversize`): no binding carries more
//!   (SMBus: 250), and the slot holds 256 octets.
//! - The message limit is `min(cfg.max_len, 7680)`: the ring (8192 octets) must hold the
//!   largest partial message and one more packet, or the block could wait on itself.
//! - No timeout: the context stays open until a packet closes it (the software's batch
//!   `receive` runs at one instant, so its timeouts never fire either).

use super::counters::MctpRxBumpsSource;
use super::crc_regs::MicReg;
use super::decode::INFO_BITS;
use super::reader::desc;
use super::{MctpRxConfig, HW_MAX_LEN, MAX_PAYLOAD, RING_OCTETS};
use crate::axis::AxisSink;
use crate::crc::{CrcNetwork, CrcPipeline, GfMatrix};
use offload_driver::crc::CrcKind;
use offload_driver::mctp::header::{EOM_BIT, HEADER_VERSION, SEQ_SHIFT, SOM_BIT, TO_BIT};
use offload_driver::mctp::smbus::{self, COMMAND_CODE, PREFIX_LEN};
use offload_driver::mctp::{BASELINE_MTU, HEADER_LEN};
use offload_driver::nvme_mi::{IC_BIT, MIC_LEN};
use rust_hdl::prelude::*;

/// `D = 8·K` data bits, `K` octets per beat.
#[derive(LogicBlock)]
pub struct FrameStage<const D: usize, const K: usize> {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high.
    pub reset: Signal<In, Bit>,
    pub cfg: MctpRxConfig,
    /// Frames, one per packet, as the [`super::decode::BeatDecoder`] hands them on: each beat's
    /// payload in lanes 0.. (`tkeep`), its decoded fields in `info`.
    pub s: AxisSink<D, K>,
    pub info: Signal<In, Bits<INFO_BITS>>,
    /// The reader's free pointer: ring words from here up to the write position are in use.
    pub rp: Signal<In, Bits<14>>,
    /// The descriptor queue has no free entry.
    pub q_full: Signal<In, Bit>,
    /// The descriptor queue has at most one free entry.
    pub q_afull: Signal<In, Bit>,
    /// The reader took the slot's message's last word.
    pub slot_done: Signal<In, Bit>,
    /// Memory write: a word to the ring (ring address with its wrap bit) or the slot.
    pub wr_en: Signal<Out, Bit>,
    pub wr_slot: Signal<Out, Bit>,
    pub wr_addr: Signal<Out, Bits<14>>,
    pub wr_data: Signal<Out, Bits<D>>,
    /// A message published: its descriptor (layout in [`super::reader`]).
    pub push: Signal<Out, Bit>,
    pub desc: Signal<Out, Bits<62>>,
    pub bump: MctpRxBumpsSource,
    /// The context's key, for the decoder's key match a clock ahead (layout in
    /// [`super::decode`]).
    pub ctx_key: Signal<Out, Bits<20>>,
    /// The judging clock (`endc`) and what the drop record ([`super::drops::DropRecord`])
    /// keeps of it, all from registers but the message's length: the packet's header octets
    /// 1–3, whether a context is open, its last sequence number and unit (payload octets), the
    /// packet's payload octets and the message's octets with it.
    pub judging: Signal<Out, Bit>,
    pub j_header: Signal<Out, Bits<24>>,
    pub j_open: Signal<Out, Bit>,
    pub j_last_seq: Signal<Out, Bits<2>>,
    pub j_unit: Signal<Out, Bits<9>>,
    pub j_plen: Signal<Out, Bits<9>>,
    pub j_mlen: Signal<Out, Bits<13>>,
    // Ingest.
    in_frame: DFF<Bit>,
    endc: DFF<Bit>,
    /// The MCTP header's four octets (after the SMBus prefix when `cfg.smbus`), taken with
    /// the frame's last beat.
    mh_r: DFF<Bits<32>>,
    // The packet's lengths and verdicts, worked out as its last beat is taken so that the
    // judging clock starts from them: payload length, the open message's length with it, raw
    // frame oversize, SMBus byte count wrong, PEC wrong, SMBus prefix wrong, malformed, the
    // open key's match and a sequence number other than the next. The context (`ctx_*`,
    // `last_seq`) does not change between a frame's last beat and its judging clock either.
    r_plen: DFF<Bits<16>>,
    r_cont: DFF<Bits<16>>,
    /// The judging clock's length compares, made with the frame's last beat: the payload
    /// length against the baseline MTU, the message limit and the context's unit, and the
    /// continued length against the limit. `unit`, `clen` and the limit do not change between
    /// a frame's last beat and its judging clock (a judging clock alone writes `unit` and
    /// `clen`, and the input is not ready in one; the limit is static configuration), so these
    /// are the compares the judging clock made itself. They compare the frame's length with
    /// thresholds kept in frame octets (the payload's plus `hov_r`), so each is one carry
    /// chain from the skid's register.
    r_lt_base: DFF<Bit>,
    r_gt_maxl: DFF<Bit>,
    r_ne_unit: DFF<Bit>,
    r_gt_unit: DFF<Bit>,
    r_cont_gt: DFF<Bit>,
    r_oversize: DFF<Bit>,
    r_smb1: DFF<Bit>,
    r_pec_bad: DFF<Bit>,
    r_smb2: DFF<Bit>,
    r_malf: DFF<Bit>,
    r_match: DFF<Bit>,
    r_seq_bad: DFF<Bit>,
    /// The judging clock's outcomes, worked out with the frame's last beat from the verdicts
    /// above as they are loaded (the judging clock's rule chain reads the same values a clock
    /// later): the packet starts a context (`r_new`), continues it (`r_ctn`) or completes a
    /// message (`r_dls`, `r_dlc`), unless a length compare's early verdict (`r_lenbad`) drops it. So the committed state's ~200 flip-flops and the delivery's are
    /// enabled by a register and `endc`, not by the end of the rule chain (issue 27: `j_eom`
    /// → the chain → `mic_c` was MCTP RX W = 8's slowest seed at stop 64, 4 levels and 5.95 ns
    /// of routing; `r_pec_bad` → `mic_c` W = 4's at 4d25d70).
    r_new: DFF<Bit>,
    r_ctn: DFF<Bit>,
    /// Delivered: a single-packet message (`r_dls`) or the open one's last packet (`r_dlc`).
    r_dls: DFF<Bit>,
    r_dlc: DFF<Bit>,
    /// An early verdict from a length compare (oversize, SMBus byte count, malformed).
    r_lenbad: DFF<Bit>,
    t_ring: DFF<Bit>,
    t_slot: DFF<Bit>,
    wa: DFF<Bits<14>>,
    wf: DFF<Bits<8>>,
    /// The window's lanes, `wf` as a lane mask (lanes below `wf`), kept beside it so that the
    /// judging clock's partial MIC step starts from a register.
    wf_keep_r: DFF<Bits<K>>,
    win: DFF<Bits<D>>,
    first_w: DFF<Bits<8>>,
    sa: DFF<Bits<14>>,
    // The reassembly context and the committed state of its message.
    ctx_open: DFF<Bit>,
    ctx_src: DFF<Bits<8>>,
    ctx_dst: DFF<Bits<8>>,
    ctx_tag: DFF<Bits<3>>,
    ctx_to: DFF<Bit>,
    /// The context's key was loaded by the last frame judged (`k_age0`), by the one before it
    /// (`k_age1`), or earlier (neither): which of the decoder's three key compares applies.
    k_age0: DFF<Bit>,
    k_age1: DFF<Bit>,
    last_seq: DFF<Bits<2>>,
    /// The open message's unit (its first packet's payload length) in frame octets.
    unit_f: DFF<Bits<16>>,
    clen: DFF<Bits<16>>,
    c_wa: DFF<Bits<14>>,
    /// `c_wa + 1` (in the ring), loaded with it, so that a beat continuing from the committed
    /// window that fills a word moves on by a register rather than by a carry chain behind
    /// the key match.
    c_wf: DFF<Bits<8>>,
    /// The committed window's lanes, `c_wf` as a lane mask (as `wf_keep_r` is `wf`'s).
    c_keep: DFF<Bits<K>>,
    /// The ring word after the committed octets (`c_wa`, or the next word when `c_wf` > 0).
    c_end: DFF<Bits<14>>,
    c_win: DFF<Bits<D>>,
    mic_c: DFF<Bits<32>>,
    c_first: DFF<Bits<8>>,
    ms: DFF<Bits<14>>,
    slot_busy: DFF<Bit>,
    /// The message limit, `min(cfg.max_len, HW_MAX_LEN)`, registered (the configuration is
    /// static).
    maxl_r: DFF<Bits<16>>,
    /// A frame's octets before its payload and after it: the MCTP header, and with
    /// `cfg.smbus` the SMBus prefix and PEC (static configuration, registered).
    hov_r: DFF<Bits<16>>,
    /// The message limit and the baseline MTU in frame octets (`+ hov_r`).
    lim_f: DFF<Bits<16>>,
    base_f: DFF<Bits<16>>,
    // Ring room a clock ahead: each address a beat can write at has a flag, registered from
    // the reader's pointer two clocks before (`rp_o1`, `rp_o2`; it only moves on, freeing words), with a margin
    // of one word for the write position's advance. A flag is loaded with its address, from the
    // check of the address it is loaded from. So `ready` selects registers only.
    okr_wa: DFF<Bit>,
    okr_cwa: DFF<Bit>,
    okr_end: DFF<Bit>,
    okr_ms: DFF<Bit>,
    /// The flag of `sa` (the free start a judging clock may move `ms` to): set by the flags
    /// beat that loads `sa`, whose target's flag let it in, and re-checked after. So the
    /// judging clock loads `okr_ms` from a register, not from `sa`'s subtract and compare.
    okr_sa: DFF<Bit>,
    /// The reader's pointer less the margins (`rp − 2`, `rp − 3`), registered: each room check
    /// is then one subtract and its top bit, not a subtract and a compare. (A clock older:
    /// the pointer only moves on, so the flags are at most a clock late to see room.)
    rp_o1: DFF<Bits<14>>,
    rp_o2: DFF<Bits<14>>,
    // A delivered message's verdict, acted on in the clock after the judging clock (`dl_*`):
    // whether its MIC failed, where it went, the free start after it, its descriptor.
    dl_pend: DFF<Bit>,
    dl_bad: DFF<Bit>,
    /// The MIC's residue compare waits for the delivery clock: the judging clock registers
    /// how the CRC register after the pending word and the last word padded with zeros
    /// differs from the residue's register advanced by the padding, in two halves whose XOR
    /// the delivery clock tests for zero (`(dl_ds ^ dl_dw) != 0`: the same three LUT4 levels as
    /// a 32-input zero test, each LUT taking two bit pairs), and whether the MIC is checked.
    /// `dl_ds`: the part of the state and the pending word; `dl_dw`: the last word's, with the
    /// target. Both load every clock (read only under `dl_pend`), so no verdict enables them.
    dl_ds: DFF<Bits<32>>,
    dl_dw: DFF<Bits<32>>,
    dl_chk: DFF<Bit>,
    dl_desc: DFF<Bits<62>>,
    /// The descriptor push, registered from the delivery clock's verdict and made in the clock
    /// after it (`dl_desc` still holds the descriptor then: only a judging clock loads it).
    /// Without this register the residue compare ran on through the queue's pointers and
    /// flags (`top_w8`'s critical path).
    push_r: DFF<Bit>,
    /// The MIC verdict of the delivery clock, registered: the pushed descriptor's length is
    /// cleared (void) by it in the push clock, so the residue compare ends at this one
    /// flip-flop, not at `dl_desc`'s length bits (MCTP RX W = 4 seeds 2 and 3 at 9a3e3ac:
    /// `dl_ds`/`dl_dw` → the compare → `dl_desc`, 10 levels).
    dl_void: DFF<Bit>,
    // The MIC over each written word, folded a clock after its beat (a child: see
    // `crc_regs`).
    mic_w: MicReg<D, K>,
    // In the judging clock, the MIC register after the word still pending there and the final
    // partial word, by linearity (`R' = A_W·R ⊕ L·d`, [`crate::crc::pipeline`]) as flat trees
    // from registers: `A_W·q` (no word pending), `A_2W·q` and `A_W·L·pend` (a word pending),
    // `L·win`. As one two-word step (a lane select on whether a word was pending, a shifter,
    // then the network) it was MCTP RX W = 8's path on two seeds at stop 60: nine levels, 5 ns
    // of routing.
    res_q1: GfMatrix<32, 32>,
    res_q2: GfMatrix<32, 32>,
    res_pend: GfMatrix<D, 32>,
    res_win: GfMatrix<D, 32>,
    // Ingest, this clock.
    e_hdr: Signal<Local, Bits<64>>,
    e_mh: Signal<Local, Bits<32>>,
    /// The sequence number after the context's last one, two bits wide so that it wraps (in
    /// Verilog, `last_seq + 1` inside a compare is 32 bits wide and does not).
    seq_exp: Signal<Local, Bits<2>>,
    em3: Signal<Local, Bits<8>>,
    flags_here: Signal<Local, Bit>,
    d_som: Signal<Local, Bit>,
    d_eom: Signal<Local, Bit>,
    d_match: Signal<Local, Bit>,
    d_key: Signal<Local, Bit>,
    d_slot: Signal<Local, Bit>,
    d_ring_som: Signal<Local, Bit>,
    d_ring_cont: Signal<Local, Bit>,
    dl_bad_now: Signal<Local, Bit>,
    i_flen: Signal<Local, Bits<16>>,
    i_plen: Signal<Local, Bits<16>>,
    chk_wa1: Signal<Local, Bit>,
    chk_wa2: Signal<Local, Bit>,
    chk_cwa: Signal<Local, Bit>,
    chk_end: Signal<Local, Bit>,
    chk_ms: Signal<Local, Bit>,
    chk_sa: Signal<Local, Bit>,
    e_tr: Signal<Local, Bit>,
    e_ts: Signal<Local, Bit>,
    e_wa: Signal<Local, Bits<14>>,
    /// A flags beat that starts a message (its window empty, its MIC restarted).
    d_new: Signal<Local, Bit>,
    /// A start's address (the committed end, the slot, the free start, or `wa`: nowhere).
    e_wa_som: Signal<Local, Bits<14>>,
    /// `wa` after the beat.
    wa_nx: Signal<Local, Bits<14>>,
    /// The beat may have a target (a flags beat, or a later beat of a packet with one): it
    /// moves the running state on.
    adv: Signal<Local, Bit>,
    /// The word after `wa` (in the ring).
    wa_inc: Signal<Local, Bits<14>>,
    ring_ok: Signal<Local, Bit>,
    rdy: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    n_eff: Signal<Local, Bits<8>>,
    pay: Signal<Local, Bits<D>>,
    /// The payload's lanes (`tkeep`, a thermometer) moved up past the window's fill: the
    /// lanes it takes in the word (`tk_lo_run`) and those left over (`tk_hi_run`).
    tk_lo_run: Signal<Local, Bits<K>>,
    tk_hi_run: Signal<Local, Bits<K>>,
    sl_run: Signal<Local, Bits<D>>,
    sr_run: Signal<Local, Bits<D>>,
    lo_run: Signal<Local, Bits<D>>,
    hi_run: Signal<Local, Bits<D>>,
    total_run: Signal<Local, Bits<8>>,
    full_run: Signal<Local, Bit>,
    full: Signal<Local, Bit>,
    beat_we: Signal<Local, Bit>,
    // Judging, this clock.
    mh1: Signal<Local, Bits<8>>,
    mh2: Signal<Local, Bits<8>>,
    mh3: Signal<Local, Bits<8>>,
    v_oversize: Signal<Local, Bit>,
    v_smb1: Signal<Local, Bit>,
    v_pec: Signal<Local, Bit>,
    v_smb2: Signal<Local, Bit>,
    v_malf: Signal<Local, Bit>,
    plen: Signal<Local, Bits<16>>,
    j_som: Signal<Local, Bit>,
    j_eom: Signal<Local, Bit>,
    j_seq: Signal<Local, Bits<2>>,
    j_match: Signal<Local, Bit>,
    cont_len: Signal<Local, Bits<16>>,
    /// The last beat's verdicts (loaded into `r_*` when a last beat waits) and the outcomes
    /// worked out from them.
    n_som: Signal<Local, Bit>,
    n_eom: Signal<Local, Bit>,
    n_ver_bad: Signal<Local, Bit>,
    q_ok: Signal<Local, Bit>,
    q_new: Signal<Local, Bit>,
    q_ctn: Signal<Local, Bit>,
    q_dls: Signal<Local, Bit>,
    q_dlc: Signal<Local, Bit>,
    n_lt_base: Signal<Local, Bit>,
    n_gt_maxl: Signal<Local, Bit>,
    n_ne_unit: Signal<Local, Bit>,
    n_gt_unit: Signal<Local, Bit>,
    n_cont_gt: Signal<Local, Bit>,
    n_oversize: Signal<Local, Bit>,
    n_smb1: Signal<Local, Bit>,
    n_pec_bad: Signal<Local, Bit>,
    n_smb2: Signal<Local, Bit>,
    n_malf: Signal<Local, Bit>,
    n_match: Signal<Local, Bit>,
    n_seq_bad: Signal<Local, Bit>,
    /// The judged packet is committed (a new context or a continuation: `keeps`, from
    /// registers) in this judging clock (`commit`), or forgotten (`forget`).
    keeps: Signal<Local, Bit>,
    commit: Signal<Local, Bit>,
    forget: Signal<Local, Bit>,
    j_len: Signal<Local, Bits<16>>,
    /// The window after the beat: octets, fill, lanes.
    win_nx: Signal<Local, Bits<D>>,
    wf_nx: Signal<Local, Bits<8>>,
    kp_nx: Signal<Local, Bits<K>>,
    mic_bad: Signal<Local, Bit>,
    j_next: Signal<Local, Bits<14>>,
    j_start: Signal<Local, Bits<14>>,
    j_olen: Signal<Local, Bits<13>>,
    desc_l: Signal<Local, Bits<62>>,
    /// The residue check's part from the MIC register and the pending word.
    res_s: Signal<Local, Bits<32>>,
    /// The residue check's target for this window's fill.
    fin_tgt: Signal<Local, Bits<32>>,
    // Constants.
    /// The top lane, `W − 1`: a window holding it is full.
    c_top_lane: Constant<Bits<K>>,
    c_w: Constant<Bits<8>>,
    /// Bit `b` of a fill, and the shift by `2^b` octets it stands for.
    c_fill_bit: [Constant<Bits<8>>; 3],
    c_oct_sh: [Constant<Bits<16>>; 3],
    c_pm: Constant<Bits<14>>,
    /// The words in use (from `rp`) that leave room to write at an address: the ring less two
    /// words, less one for the flags' margin (`rw − 3`), less two (`rw − 4`: the judging
    /// clock's next word, one after the write position at most, with the margin). In use is
    /// `x = (a − rp) mod 2·rw`, at most `rw`, so `x ≤ rw − 1 − n` is `x + n < rw`: bit `rw` of
    /// `a − (rp − n)` clear. `c_rp_off1`/`c_rp_off2` are those `n` (2 and 3), `c_rw` that bit.
    c_rp_off1: Constant<Bits<14>>,
    c_rp_off2: Constant<Bits<14>>,
    c_rw: Constant<Bits<14>>,
    c_max_raw: Constant<Bits<16>>,
    c_hw_max: Constant<Bits<16>>,
    c_hw_max13: Constant<Bits<13>>,
    c_header_len: Constant<Bits<16>>,
    c_smbus_count_off: Constant<Bits<16>>,
    c_smbus_overhead: Constant<Bits<16>>,
    c_command: Constant<Bits<8>>,
    c_version: Constant<Bits<8>>,
    c_som: Constant<Bits<8>>,
    c_eom: Constant<Bits<8>>,
    c_to: Constant<Bits<8>>,
    /// TO's bit in a context key.
    c_key_to: Constant<Bits<20>>,
    c_ic: Constant<Bits<8>>,
    c_baseline: Constant<Bits<16>>,
    c_mic_len: Constant<Bits<16>>,
    c_mic_init: Constant<Bits<32>>,
    /// `c_tgt[k]`: the register a good message's CRC has after `W − k` zero octets, when it
    /// ends `k` octets into the window: the residue's register, advanced. `c_kbit[k]`: the
    /// window lane that says its fill is at least `k` (none for `k = 0`).
    c_tgt: [Constant<Bits<32>>; K],
    c_kbit: [Constant<Bits<K>>; K],
    c_desc_slot: Constant<Bits<62>>,
    /// Every descriptor bit but the length's ([27:15]): a void descriptor keeps the rest.
    c_desc_void: Constant<Bits<62>>,
    c_desc_to: Constant<Bits<62>>,
    c_mic_len13: Constant<Bits<13>>,
}

impl<const D: usize, const K: usize> Default for FrameStage<D, K> {
    fn default() -> Self {
        assert!(D == 8 * K && matches!(K, 1 | 2 | 4 | 8), "FrameStage<8K, K> with K in 1, 2, 4, 8");
        // The fill barrels in `update` take `K / 2 − K / 8` stages: log2 K for these K only.
        assert_eq!(K / 2 - K / 8, K.trailing_zeros() as usize, "the fill barrels' stage count");
        // The flags octet is read as {SOM, EOM, seq[1:0], TO, tag[2:0]}.
        assert_eq!((SOM_BIT, EOM_BIT, SEQ_SHIFT, TO_BIT, HEADER_LEN), (7, 6, 4, 3, 4), "MCTP header layout changed");
        assert!(PREFIX_LEN + HEADER_LEN <= 8, "the SMBus prefix and MCTP header fit info's 8 header octets");
        // The descriptor's packing in `update` (`desc_l`: `<< 1`, `<< 15`, …) as literals.
        assert_eq!(
            (desc::START.0, desc::LEN.0, desc::NEXT.0, desc::SRC.0, desc::DST.0, desc::TAG.0),
            (1, 15, 28, 42, 50, 58),
            "descriptor layout changed: update FrameStage::update's packing"
        );
        let pipe = CrcPipeline::new(CrcNetwork::new(CrcKind::Crc32c.params(), K));
        let a_w = pipe.advance_by(K);
        // CRC-32C of any message followed by its own MIC, finished: the catalogue's residue
        // (the register) through the final XOR (CRC-32C is reflected: no reversal).
        let params = CrcKind::Crc32c.params();
        let residue = params.residue ^ params.xorout;
        let net = &pipe.net;
        let rw = (RING_OCTETS / K) as u64;
        let c16 = |v: usize| Constant::new((v as u64).into());
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            s: Default::default(),
            info: Default::default(),
            rp: Default::default(),
            q_full: Default::default(),
            q_afull: Default::default(),
            slot_done: Default::default(),
            wr_en: Default::default(),
            wr_slot: Default::default(),
            wr_addr: Default::default(),
            wr_data: Default::default(),
            push: Default::default(),
            desc: Default::default(),
            bump: Default::default(),
            ctx_key: Default::default(),
            judging: Default::default(),
            j_header: Default::default(),
            j_open: Default::default(),
            j_last_seq: Default::default(),
            j_unit: Default::default(),
            j_plen: Default::default(),
            j_mlen: Default::default(),
            k_age0: Default::default(),
            k_age1: Default::default(),
            in_frame: Default::default(),
            endc: Default::default(),
            mh_r: Default::default(),
            r_plen: Default::default(),
            r_cont: Default::default(),
            r_lt_base: Default::default(),
            r_gt_maxl: Default::default(),
            r_ne_unit: Default::default(),
            r_gt_unit: Default::default(),
            r_cont_gt: Default::default(),
            r_oversize: Default::default(),
            r_smb1: Default::default(),
            r_pec_bad: Default::default(),
            r_smb2: Default::default(),
            r_malf: Default::default(),
            r_match: Default::default(),
            r_seq_bad: Default::default(),
            r_new: Default::default(),
            r_ctn: Default::default(),
            r_dls: Default::default(),
            r_dlc: Default::default(),
            r_lenbad: Default::default(),
            t_ring: Default::default(),
            t_slot: Default::default(),
            wa: Default::default(),
            wf: Default::default(),
            wf_keep_r: Default::default(),
            win: Default::default(),
            first_w: Default::default(),
            sa: Default::default(),
            ctx_open: Default::default(),
            ctx_src: Default::default(),
            ctx_dst: Default::default(),
            ctx_tag: Default::default(),
            ctx_to: Default::default(),
            last_seq: Default::default(),
            unit_f: Default::default(),
            clen: Default::default(),
            c_wa: Default::default(),
            c_wf: Default::default(),
            c_keep: Default::default(),
            c_end: Default::default(),
            c_win: Default::default(),
            mic_c: Default::default(),
            c_first: Default::default(),
            ms: Default::default(),
            slot_busy: Default::default(),
            maxl_r: Default::default(),
            hov_r: Default::default(),
            lim_f: Default::default(),
            base_f: Default::default(),
            okr_wa: Default::default(),
            okr_cwa: Default::default(),
            okr_end: Default::default(),
            okr_ms: Default::default(),
            okr_sa: Default::default(),
            rp_o1: Default::default(),
            rp_o2: Default::default(),
            dl_pend: Default::default(),
            dl_bad: Default::default(),
            dl_ds: Default::default(),
            dl_dw: Default::default(),
            dl_chk: Default::default(),
            dl_desc: Default::default(),
            push_r: Default::default(),
            dl_void: Default::default(),
            c_mic_init: Constant::new(net.init_r.into()),
            res_q1: GfMatrix::new(a_w.clone(), 0),
            res_q2: GfMatrix::new(pipe.advance_by(2 * K), 0),
            res_pend: GfMatrix::new(pipe.data.iter().map(|&c| crate::crc::matrix::apply(&a_w, c)).collect(), 0),
            res_win: GfMatrix::new(pipe.data.clone(), 0),
            mic_w: Default::default(),
            e_hdr: Default::default(),
            e_mh: Default::default(),
            seq_exp: Default::default(),
            em3: Default::default(),
            flags_here: Default::default(),
            d_som: Default::default(),
            d_eom: Default::default(),
            d_match: Default::default(),
            d_key: Default::default(),
            d_slot: Default::default(),
            d_ring_som: Default::default(),
            d_ring_cont: Default::default(),
            dl_bad_now: Default::default(),
            i_flen: Default::default(),
            i_plen: Default::default(),
            chk_wa1: Default::default(),
            chk_wa2: Default::default(),
            chk_cwa: Default::default(),
            chk_end: Default::default(),
            chk_ms: Default::default(),
            chk_sa: Default::default(),
            e_tr: Default::default(),
            e_ts: Default::default(),
            e_wa: Default::default(),
            d_new: Default::default(),
            e_wa_som: Default::default(),
            adv: Default::default(),
            wa_nx: Default::default(),
            wa_inc: Default::default(),
            ring_ok: Default::default(),
            rdy: Default::default(),
            take: Default::default(),
            n_eff: Default::default(),
            pay: Default::default(),
            tk_lo_run: Default::default(),
            tk_hi_run: Default::default(),
            sl_run: Default::default(),
            sr_run: Default::default(),
            lo_run: Default::default(),
            hi_run: Default::default(),
            total_run: Default::default(),
            full_run: Default::default(),
            full: Default::default(),
            beat_we: Default::default(),
            mh1: Default::default(),
            mh2: Default::default(),
            mh3: Default::default(),
            v_oversize: Default::default(),
            v_smb1: Default::default(),
            v_pec: Default::default(),
            v_smb2: Default::default(),
            v_malf: Default::default(),
            plen: Default::default(),
            j_som: Default::default(),
            j_eom: Default::default(),
            j_seq: Default::default(),
            j_match: Default::default(),
            cont_len: Default::default(),
            n_som: Default::default(),
            n_eom: Default::default(),
            n_ver_bad: Default::default(),
            q_ok: Default::default(),
            q_new: Default::default(),
            q_ctn: Default::default(),
            q_dls: Default::default(),
            q_dlc: Default::default(),
            n_lt_base: Default::default(),
            n_gt_maxl: Default::default(),
            n_ne_unit: Default::default(),
            n_gt_unit: Default::default(),
            n_cont_gt: Default::default(),
            n_oversize: Default::default(),
            n_smb1: Default::default(),
            n_pec_bad: Default::default(),
            n_smb2: Default::default(),
            n_malf: Default::default(),
            n_match: Default::default(),
            n_seq_bad: Default::default(),
            keeps: Default::default(),
            commit: Default::default(),
            forget: Default::default(),
            j_len: Default::default(),
            win_nx: Default::default(),
            wf_nx: Default::default(),
            kp_nx: Default::default(),
            mic_bad: Default::default(),
            j_next: Default::default(),
            j_start: Default::default(),
            j_olen: Default::default(),
            desc_l: Default::default(),
            res_s: Default::default(),
            fin_tgt: Default::default(),
            c_top_lane: Constant::new((1u64 << (K - 1)).into()),
            c_w: Constant::new((K as u64).into()),
            c_fill_bit: std::array::from_fn(|b| Constant::new((1u64 << b).into())),
            c_oct_sh: std::array::from_fn(|b| Constant::new((8u64 << b).into())),
            c_pm: Constant::new((2 * rw - 1).into()),
            c_rp_off1: Constant::new(2u64.into()),
            c_rp_off2: Constant::new(3u64.into()),
            c_rw: Constant::new(rw.into()),
            c_max_raw: c16(HEADER_LEN + MAX_PAYLOAD),
            c_hw_max: c16(HW_MAX_LEN),
            c_hw_max13: Constant::new((HW_MAX_LEN as u64).into()),
            c_header_len: c16(HEADER_LEN),
            // The byte count counts what follows it but the PEC: the frame less the
            // destination, command code and byte count octets and the PEC (`smbus::decode`).
            c_smbus_count_off: c16(PREFIX_LEN),
            // Also the shortest SMBus frame: the prefix and the PEC.
            c_smbus_overhead: c16(smbus::OVERHEAD),
            c_command: Constant::new((COMMAND_CODE as u64).into()),
            c_version: Constant::new((HEADER_VERSION as u64).into()),
            c_som: Constant::new((1u64 << SOM_BIT).into()),
            c_eom: Constant::new((1u64 << EOM_BIT).into()),
            c_to: Constant::new((1u64 << TO_BIT).into()),
            c_key_to: Constant::new((1u64 << (16 + TO_BIT)).into()),
            c_ic: Constant::new(((IC_BIT as u64) & 0xFF).into()),
            c_baseline: c16(BASELINE_MTU),
            c_mic_len: c16(MIC_LEN),
            c_tgt: std::array::from_fn(|k| Constant::new(net.zeros_after(net.unfinish(residue), K - k).into())),
            c_kbit: std::array::from_fn(|k| Constant::new(if k == 0 { 0u64 } else { 1u64 << (k - 1) }.into())),
            c_desc_slot: Constant::new((1u64 << desc::SLOT).into()),
            c_desc_void: Constant::new(
                (((1u64 << desc::BITS) - 1) & !(((1u64 << desc::LEN.1) - 1) << desc::LEN.0)).into(),
            ),
            c_desc_to: Constant::new((1u64 << desc::TO).into()),
            c_mic_len13: Constant::new((MIC_LEN as u64).into()),
        }
    }
}

impl<const D: usize, const K: usize> Logic for FrameStage<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, in_frame, endc, mh_r, r_plen, r_cont, r_lt_base, r_gt_maxl, r_ne_unit, r_gt_unit, r_cont_gt, r_oversize, r_smb1, r_pec_bad, r_smb2, r_malf, r_match, r_seq_bad, r_new, r_ctn, r_dls, r_dlc, r_lenbad, t_ring, t_slot, wa, wf, wf_keep_r, win, first_w, sa, ctx_open, ctx_src, ctx_dst, ctx_tag, ctx_to, k_age0, k_age1, last_seq, unit_f, clen, c_wa, c_wf, c_keep, c_end,
            c_win, mic_c, c_first, ms, slot_busy, maxl_r, hov_r, lim_f, base_f, okr_wa, okr_cwa, okr_end, okr_ms, okr_sa, rp_o1, rp_o2, dl_pend, dl_bad, dl_ds, dl_dw, dl_chk, dl_desc, push_r, dl_void
        );
        clock!(self, clock, mic_w);
        self.mic_w.reset.next = self.reset.val();

        // ---- Ingest: the beat on s, decoded (positions, header octets so far, payload count).
        self.e_hdr.next = self.info.val().get_bits::<64>(0);
        self.em3.next = self.info.val().get_bits::<8>(64);
        self.flags_here.next = self.info.val().get_bit(72);
        self.n_eff.next = self.info.val().get_bits::<8>(73);
        self.d_som.next = (self.em3.val() & self.c_som.val()) != 0;
        self.d_eom.next = (self.em3.val() & self.c_eom.val()) != 0;
        // The key match, compared by the decoder as the beat entered the skid buffer: against
        // the context then, or against the frame that has loaded the context since.
        self.ctx_key.next = bit_cast::<20, 8>(self.ctx_dst.q.val())
            | (bit_cast::<20, 8>(self.ctx_src.q.val()) << 8)
            | (bit_cast::<20, 3>(self.ctx_tag.q.val()) << 16);
        if self.ctx_to.q.val() {
            self.ctx_key.next = self.ctx_key.val() | self.c_key_to.val();
        }
        self.d_key.next = self.info.val().get_bit(106);
        if self.k_age0.q.val() {
            self.d_key.next = self.info.val().get_bit(107);
        }
        if self.k_age1.q.val() {
            self.d_key.next = self.info.val().get_bit(108);
        }
        self.d_match.next = self.ctx_open.q.val() & self.d_key.val();
        self.d_slot.next = self.d_som.val() & self.ctx_open.q.val() & !self.d_match.val() & self.d_eom.val();
        self.d_ring_som.next = self.d_som.val() & !(self.ctx_open.q.val() & !self.d_match.val());
        self.d_ring_cont.next = !self.d_som.val() & self.d_match.val();
        // A message delivered in the last judging clock is published in this one, good or void
        // (its MIC failed): a beat that chooses its target now writes at the free start as it
        // will be, which does not depend on the MIC verdict (issue 27: the verdict → the
        // forward → `sa`, `wa` and `ms` was MCTP RX W = 4 and 8's path on two seeds of three
        // at stop 64).
        self.dl_bad_now.next =
            self.dl_bad.q.val() | (self.dl_chk.q.val() & ((self.dl_ds.q.val() ^ self.dl_dw.q.val()) != 0));
        // Where this beat's payload goes, and the state it continues from. The running state
        // (`wa`, `wf`, `win`, the MIC register, `first_w`) is always what the next packet of
        // the open message continues from: a judging clock that commits its packet leaves it
        // as the packet left it (the committed copy is loaded from it), and one that forgets
        // it reloads the committed copy. So a packet continuing the open message continues
        // from the running state whether or not its key matches (a packet without a target is
        // judged and forgotten), and a flags beat that starts a message (`d_new`: its window
        // is empty, its MIC restarts) is the only other case. Neither waits for the key match,
        // which picks only the target and a start's address (issue 27: the key match's
        // fan-out into the window, its fill and the MIC's inputs, about 180 flip-flops at W = 8,
        // was MCTP RX W = 4 and 8's and both tops' path at stop 65).
        self.d_new.next = self.flags_here.val() & self.d_som.val();
        // A start's address. With a match (so a context is open) it restarts at the committed
        // end. Without one, a single-packet start with a context open goes to the slot
        // (address 0), a start with no context open to the free start (moved past a delivery
        // in its judging clock, so already in place in the delivery clock), and any other
        // start nowhere (`wa` unchanged). The match selects last.
        self.e_wa_som.next = self.wa.q.val();
        if self.ctx_open.q.val() {
            if self.d_eom.val() {
                self.e_wa_som.next = 0.into();
            }
        } else {
            self.e_wa_som.next = self.ms.q.val();
        }
        if self.d_match.val() {
            self.e_wa_som.next = self.c_end.q.val();
        }
        self.e_tr.next = self.t_ring.q.val();
        self.e_ts.next = self.t_slot.q.val();
        self.e_wa.next = self.wa.q.val();
        if self.flags_here.val() {
            self.e_tr.next = self.d_ring_som.val() | self.d_ring_cont.val();
            self.e_ts.next = self.d_slot.val();
            if self.d_som.val() {
                self.e_wa.next = self.e_wa_som.val();
            }
        }
        // Ready unless judging, or a frame would start with no descriptor free (counting the one
        // being published: pending in the delivery clock, pushed in the next), or the ring
        // lacks room, or the slot's last message is still being read. The room flags are
        // registers (`okr_*`). Ready does not wait for the key match: with a context open, a
        // flags beat checks the room its header could need whichever way the match goes (a
        // start at the committed end `okr_end`, as a restart would; a continuation at the
        // committed position `okr_cwa`), and a single-packet start waits for the slot as a
        // message for another key would. That only ever waits longer than the target needs,
        // and on the same conditions a restart always waited on, which the ring's slack beyond
        // the largest message keeps from waiting on itself. Without a context no beat matches,
        // and a start goes to the free start (`okr_ms`: already past a delivery pending to the
        // ring, which moved it in its judging clock).
        self.ring_ok.next = !self.t_ring.q.val() | self.okr_wa.q.val();
        if self.flags_here.val() {
            self.ring_ok.next = true;
            if self.ctx_open.q.val() {
                self.ring_ok.next = self.okr_cwa.q.val();
                if self.d_som.val() {
                    self.ring_ok.next = self.okr_end.q.val();
                }
            } else if self.d_som.val() {
                self.ring_ok.next = self.okr_ms.q.val();
            }
        }
        // Not gated by the reset: every register a taken beat enables is reset in the same
        // clock, the ring's write and the descriptor push are forced off, and the skid in
        // front (whose output this ready drains) is reset too; the block's own `s_tready` is
        // the skid's register, low in reset. In the reset the ready fanned out behind the
        // reset's net (MCTP RX W = 8's slowest seed at a03b041: the reset → this ready → the
        // skid's enables, 6.2 ns of routing).
        self.rdy.next = !self.endc.q.val()
            & (self.in_frame.q.val()
                | !(self.q_full.val() | ((self.dl_pend.q.val() | self.push_r.q.val()) & self.q_afull.val())))
            & self.ring_ok.val()
            & !(self.flags_here.val()
                & self.d_som.val()
                & self.d_eom.val()
                & self.ctx_open.q.val()
                & self.slot_busy.q.val());
        self.s.tready.next = self.rdy.val();
        self.take.next = self.s.tvalid.val() & self.rdy.val();

        // The payload (lanes 0..n_eff, `tkeep`; the decoder zeroed the lanes past it) after the
        // running window (lanes past its fill are zero): the word to write (lo) and what is
        // left over (hi).
        self.pay.next = self.s.tdata.val();
        // The shifts by the fill (`pay << 8·fill` into the word, `pay >> 8·(W − fill)` left
        // over) are barrels of constant shifts, one 2:1 select per bit of the fill (log2 W
        // bits: `K / 2 − K / 8` for K in 1, 2, 4, 8). The payload's lanes go through the same
        // barrels, so the window's lanes after the beat and whether it fills a word are masks
        // and one bit, not the sum `fill + n_eff` and compares with it.
        self.sl_run.next = self.pay.val();
        self.sr_run.next = self.pay.val() >> 8;
        self.tk_lo_run.next = self.s.tkeep.val();
        self.tk_hi_run.next = self.s.tkeep.val() >> 1;
        for b in 0..(K / 2 - K / 8) {
            if (self.wf.q.val() & self.c_fill_bit[b].val()) != 0 {
                self.sl_run.next = self.sl_run.val() << self.c_oct_sh[b].val();
                self.tk_lo_run.next = self.tk_lo_run.val() << self.c_fill_bit[b].val();
            } else {
                self.sr_run.next = self.sr_run.val() >> self.c_oct_sh[b].val();
                self.tk_hi_run.next = self.tk_hi_run.val() >> self.c_fill_bit[b].val();
            }
        }
        self.lo_run.next = self.win.q.val() | self.sl_run.val();
        self.hi_run.next = self.sr_run.val();
        self.total_run.next = self.wf.q.val() + self.n_eff.val();
        self.full_run.next = ((self.wf_keep_r.q.val() | self.tk_lo_run.val()) & self.c_top_lane.val()) != 0;
        // A start's flags beat fills no word (its window is empty and its flags octet takes a
        // lane), whatever the running window holds.
        self.full.next = self.full_run.val() & !self.d_new.val();
        // The window after this beat: its octets (`lo`, or `hi` when a word is written), its
        // fill (`total`, or `total − W`) and its lanes (below that fill: the window's lanes and
        // the payload's after them, or the payload's lanes shifted out past the top); a start's
        // is the payload alone.
        self.win_nx.next = self.lo_run.val();
        self.wf_nx.next = self.total_run.val();
        self.kp_nx.next = self.wf_keep_r.q.val() | self.tk_lo_run.val();
        if self.full_run.val() {
            self.win_nx.next = self.hi_run.val();
            self.wf_nx.next = self.total_run.val() - self.c_w.val();
            self.kp_nx.next = self.tk_hi_run.val();
        }
        if self.d_new.val() {
            self.win_nx.next = self.pay.val();
            self.wf_nx.next = self.n_eff.val();
            self.kp_nx.next = self.s.tkeep.val();
        }
        // The MIC register takes the written word (not full: its state unchanged) with every
        // beat that may have a target and folds it in a clock later; a start's flags beat
        // restarts it (the load does not wait for ready: see [`MicReg::restart`]), and a
        // judging clock that forgets its packet reloads the committed MIC (`forget`, below).
        self.mic_w.restart.next = self.s.tvalid.val() & self.d_new.val();
        self.mic_w.data.next = self.lo_run.val();
        self.mic_w.full.next = self.full.val();
        self.mic_w.c_state.next = self.mic_c.q.val();
        // Its enable does not wait for the key match: the MIC of a packet with no target is
        // never read (it is neither committed nor delivered, and its judging clock reloads the
        // committed MIC).
        self.adv.next = self.take.val() & (self.flags_here.val() | self.t_ring.q.val() | self.t_slot.q.val());
        self.mic_w.en.next = self.adv.val();

        // ---- The memory's one write port: a full word of this beat, or the judging clock's
        // partial word (harmless when the packet is forgotten: only published words are read).
        self.beat_we.next = self.take.val() & (self.e_tr.val() | self.e_ts.val()) & self.full.val();
        self.wr_en.next = self.beat_we.val();
        self.wr_slot.next = self.e_ts.val();
        self.wa_inc.next = (self.wa.q.val() + 1) & self.c_pm.val();
        // A beat fills a word at the running position: a start's flags beat, the only beat
        // whose address is new, fills none.
        self.wr_addr.next = self.wa.q.val();
        // The write position after the beat.
        self.wa_nx.next = self.wa.q.val();
        if self.full_run.val() {
            self.wa_nx.next = self.wa_inc.val();
        }
        if self.d_new.val() {
            self.wa_nx.next = self.e_wa_som.val();
        }
        self.wr_data.next = self.lo_run.val();
        if self.endc.q.val() {
            self.wr_en.next = (self.t_ring.q.val() | self.t_slot.q.val()) & (self.wf.q.val() != 0);
            self.wr_slot.next = self.t_slot.q.val();
            self.wr_addr.next = self.wa.q.val();
            self.wr_data.next = self.win.q.val();
        }

        // ---- The ring room flags for the next clock: words in use from `rp` to each address,
        // against the room less the margin. Each flag follows its address: re-checked where it
        // stands, or loaded with it from the check of where it comes from.
        self.rp_o1.d.next = (self.rp.val() - self.c_rp_off1.val()) & self.c_pm.val();
        self.rp_o2.d.next = (self.rp.val() - self.c_rp_off2.val()) & self.c_pm.val();
        self.chk_wa1.next = ((self.wa.q.val() - self.rp_o1.q.val()) & self.c_rw.val()) == 0;
        self.chk_wa2.next = ((self.wa.q.val() - self.rp_o2.q.val()) & self.c_rw.val()) == 0;
        self.chk_cwa.next = ((self.c_wa.q.val() - self.rp_o1.q.val()) & self.c_rw.val()) == 0;
        self.chk_end.next = ((self.c_end.q.val() - self.rp_o1.q.val()) & self.c_rw.val()) == 0;
        self.chk_ms.next = ((self.ms.q.val() - self.rp_o1.q.val()) & self.c_rw.val()) == 0;
        self.chk_sa.next = ((self.sa.q.val() - self.rp_o1.q.val()) & self.c_rw.val()) == 0;
        // The write position moves on by a word at most (`chk_wa1`), except after a flags beat:
        // the frame's next beat writes where the flags beat's target flag let it in, a word of
        // room ahead (and if the flags beat waits, it checks its target's flag again).
        self.okr_wa.d.next = self.chk_wa1.val() | (self.s.tvalid.val() & self.flags_here.val());
        self.okr_cwa.d.next = self.chk_cwa.val();
        self.okr_end.d.next = self.chk_end.val();
        self.okr_ms.d.next = self.chk_ms.val();
        self.okr_sa.d.next = self.chk_sa.val();

        self.i_flen.next = self.info.val().get_bits::<16>(81);
        self.hov_r.d.next = self.c_header_len.val();
        if self.cfg.smbus.val() {
            self.hov_r.d.next = self.c_header_len.val() + self.c_smbus_overhead.val();
        }
        self.lim_f.d.next = self.maxl_r.q.val() + self.hov_r.q.val();
        self.base_f.d.next = self.c_baseline.val() + self.hov_r.q.val();
        self.i_plen.next = self.i_flen.val() - self.hov_r.q.val();

        self.e_mh.next = self.e_hdr.val().get_bits::<32>(0);
        if self.cfg.smbus.val() {
            self.e_mh.next = self.e_hdr.val().get_bits::<32>(32);
        }
        self.seq_exp.next = self.last_seq.q.val() + 1;
        // A last beat's verdicts, loaded whenever one waits (not only when it is taken, so
        // that `s.tready` is not their enable): the last load before a judging clock is the
        // taken beat's, and only a judging clock reads them.
        // In frame octets: `plen = flen − hov_r` wherever these are read, since a frame
        // of at most `hov_r` octets is malformed or a bad SMBus frame, verdicts the
        // judging clock orders first (and no frame that reaches them is over 260).
        self.n_lt_base.next = self.i_flen.val() < self.base_f.q.val();
        self.n_gt_maxl.next = self.i_flen.val() > self.lim_f.q.val();
        self.n_ne_unit.next = self.i_flen.val() != self.unit_f.q.val();
        self.n_gt_unit.next = self.i_flen.val() > self.unit_f.q.val();
        self.n_cont_gt.next = (self.clen.q.val() + self.i_flen.val()) > self.lim_f.q.val();
        self.n_oversize.next = !self.cfg.smbus.val() & (self.i_flen.val() > self.c_max_raw.val());
        self.n_smb1.next = self.cfg.smbus.val()
            & ((self.i_flen.val() < self.c_smbus_overhead.val())
                | ((self.i_flen.val() - self.c_smbus_count_off.val())
                    != bit_cast::<16, 8>(self.e_hdr.val().get_bits::<8>(16))));
        self.n_pec_bad.next = self.cfg.smbus.val() & (self.info.val().get_bits::<8>(97) == 0);
        self.n_smb2.next = self.cfg.smbus.val()
            & ((self.e_hdr.val().get_bits::<8>(8) != self.c_command.val())
                | self.e_hdr.val().get_bit(0)
                | !self.e_hdr.val().get_bit(24));
        self.n_ver_bad.next = self.e_mh.val().get_bits::<8>(0) != self.c_version.val();
        self.n_malf.next = (self.i_flen.val() <= self.hov_r.q.val()) | self.n_ver_bad.val();
        self.n_match.next = self.ctx_open.q.val()
            & (self.e_mh.val().get_bits::<8>(8) == self.ctx_dst.q.val())
            & (self.e_mh.val().get_bits::<8>(16) == self.ctx_src.q.val())
            & (self.e_mh.val().get_bits::<3>(24) == self.ctx_tag.q.val())
            & (((self.e_mh.val().get_bits::<8>(24) & self.c_to.val()) != 0) == self.ctx_to.q.val());
        self.n_seq_bad.next = self.e_mh.val().get_bits::<2>(28) != self.seq_exp.val();
        // The judging clock's outcomes, as its rule chain (below) reaches them: no early
        // verdict; then a start opens a context (not the last packet, the unit rule and the
        // limit kept, and no other key's context open) or completes a message (within the
        // limit), and a continuation of the open key continues it (in sequence, the unit
        // rule and the limit kept, not the last packet) or completes it. The context, unit,
        // continued length and sequence number these read change only in a judging clock,
        // and a last beat waits at least one clock after one, so they are the judging clock's.
        // Each outcome is a term of the cheap verdicts (flags, PEC, SMBus command, version,
        // key and sequence: a few LUT levels from the skid's register) ANDed, in the one LUT
        // in front of its register, with the length compares it needs (each a carry chain:
        // ANDed behind the rest they made the outcome's register the block's path, 24 levels
        // with the chains, at W = 8); the compares every outcome needs are one register
        // (`r_lenbad`), which the judging clock ANDs in with `endc`, as it does the continued
        // length's (`r_cont_gt`: an adder and a compare in series, which with a LUT behind
        // them were MCTP RX W = 1 and 4's path on every seed inside `r_ctn` and `r_dlc`).
        self.n_som.next = (self.e_mh.val().get_bits::<8>(24) & self.c_som.val()) != 0;
        self.n_eom.next = (self.e_mh.val().get_bits::<8>(24) & self.c_eom.val()) != 0;
        self.q_ok.next = !self.n_pec_bad.val() & !self.n_smb2.val() & !self.n_ver_bad.val();
        self.q_new.next = self.q_ok.val()
            & self.n_som.val()
            & !self.n_eom.val()
            & !(self.ctx_open.q.val() & !self.n_match.val());
        self.q_ctn.next =
            self.q_ok.val() & !self.n_som.val() & !self.n_eom.val() & self.n_match.val() & !self.n_seq_bad.val();
        self.q_dls.next = self.q_ok.val() & self.n_som.val() & self.n_eom.val();
        self.q_dlc.next =
            self.q_ok.val() & !self.n_som.val() & self.n_eom.val() & self.n_match.val() & !self.n_seq_bad.val();
        if self.s.tvalid.val() & self.s.tlast.val() {
            self.mh_r.d.next = self.e_mh.val();
            self.r_plen.d.next = self.i_plen.val();
            self.r_cont.d.next = self.clen.q.val() + self.i_plen.val();
            self.r_lt_base.d.next = self.n_lt_base.val();
            self.r_gt_maxl.d.next = self.n_gt_maxl.val();
            self.r_ne_unit.d.next = self.n_ne_unit.val();
            self.r_gt_unit.d.next = self.n_gt_unit.val();
            self.r_cont_gt.d.next = self.n_cont_gt.val();
            self.r_oversize.d.next = self.n_oversize.val();
            self.r_smb1.d.next = self.n_smb1.val();
            self.r_pec_bad.d.next = self.n_pec_bad.val();
            self.r_smb2.d.next = self.n_smb2.val();
            self.r_malf.d.next = self.n_malf.val();
            self.r_match.d.next = self.n_match.val();
            self.r_seq_bad.d.next = self.n_seq_bad.val();
            self.r_lenbad.d.next = self.n_oversize.val() | self.n_smb1.val() | self.n_malf.val();
            self.r_new.d.next =
                self.q_new.val() & !(self.cfg.strict.val() & self.n_lt_base.val()) & !self.n_gt_maxl.val();
            self.r_ctn.d.next = self.q_ctn.val() & !(self.cfg.strict.val() & self.n_ne_unit.val());
            self.r_dls.d.next = self.q_dls.val() & !self.n_gt_maxl.val();
            self.r_dlc.d.next = self.q_dlc.val() & !(self.cfg.strict.val() & self.n_gt_unit.val());
        }
        if self.take.val() {
            self.in_frame.d.next = true;
            if self.s.tlast.val() {
                self.endc.d.next = true;
                self.in_frame.d.next = false;
            }
            self.t_ring.d.next = self.e_tr.val();
            self.t_slot.d.next = self.e_ts.val();
            if self.flags_here.val() {
                self.sa.d.next = self.e_wa.val();
                // A taken flags beat had room at its target (`ring_ok`): the judging clock
                // reads `okr_sa` only for a start on the ring, whose target `sa` is.
                self.okr_sa.d.next = true;
            }
            // Every beat that may have a target moves the running state on, whether or not it
            // has one (a packet without a target is forgotten in its judging clock, which
            // reloads the committed state), so these enables do not wait for the key match.
            if self.adv.val() {
                self.wa.d.next = self.wa_nx.val();
                self.win.d.next = self.win_nx.val();
                self.wf.d.next = self.wf_nx.val();
                self.wf_keep_r.d.next = self.kp_nx.val();
                if self.d_new.val() {
                    self.first_w.d.next = 0.into();
                }
                if self.d_som.val() & self.info.val().get_bit(105) {
                    self.first_w.d.next = self.pay.val().get_bits::<8>(0);
                }
            }
        }

        // ---- Judging clock: the software's checks in the software's order. ----
        self.mh1.next = self.mh_r.q.val().get_bits::<8>(8);
        self.mh2.next = self.mh_r.q.val().get_bits::<8>(16);
        self.mh3.next = self.mh_r.q.val().get_bits::<8>(24);
        self.maxl_r.d.next = bit_cast::<16, 13>(self.cfg.max_len.val());
        if self.cfg.max_len.val() > self.c_hw_max13.val() {
            self.maxl_r.d.next = self.c_hw_max.val();
        }
        self.v_oversize.next = self.r_oversize.q.val();
        self.v_smb1.next = self.r_smb1.q.val();
        self.v_pec.next = self.r_pec_bad.q.val();
        self.v_smb2.next = self.r_smb2.q.val();
        self.v_malf.next = self.r_malf.q.val();
        self.plen.next = self.r_plen.q.val();
        self.j_som.next = (self.mh3.val() & self.c_som.val()) != 0;
        self.j_eom.next = (self.mh3.val() & self.c_eom.val()) != 0;
        self.j_seq.next = self.mh3.val().get_bits::<2>(4);
        self.j_match.next = self.r_match.q.val();
        self.cont_len.next = self.r_cont.q.val();
        self.j_len.next = self.cont_len.val();
        if self.j_som.val() {
            self.j_len.next = self.plen.val();
        }
        // The MIC residue over the message and its MIC: the MIC register, the word still
        // pending in it (the last beat's, when that beat filled one) and the last, partial
        // word, from registers. The partial word is stepped whole (the window is zero past
        // its fill), so there is no octet shifter; a message ending `k` octets into it checks
        // when the register then equals the residue's advanced by `W − k` zero octets
        // (`c_tgt[k]`, picked by the window's lanes). The two parts are registered every
        // clock, the target XORed into the window's, and compared in the next clock.
        self.res_q1.x.next = self.mic_w.q.val();
        self.res_q2.x.next = self.mic_w.q.val();
        self.res_pend.x.next = self.mic_w.pend.val();
        self.res_win.x.next = self.win.q.val();
        self.res_s.next = self.res_q1.y.val();
        if self.mic_w.pend_v.val() {
            self.res_s.next = self.res_q2.y.val() ^ self.res_pend.y.val();
        }
        self.fin_tgt.next = self.c_tgt[0].val();
        for k in 0..K {
            if (self.wf_keep_r.q.val() & self.c_kbit[k].val()) != 0 {
                self.fin_tgt.next = self.c_tgt[k].val();
            }
        }
        self.dl_ds.d.next = self.res_s.val();
        self.dl_dw.d.next = self.res_win.y.val() ^ self.fin_tgt.val();
        self.mic_bad.next = self.cfg.mic.val()
            & (((self.first_w.q.val() & self.c_ic.val()) == 0) | (self.j_len.val() <= self.c_mic_len.val()));
        self.j_next.next = self.wa.q.val();
        if self.wf.q.val() != 0 {
            self.j_next.next = self.wa_inc.val();
        }
        self.j_start.next = self.ms.q.val();
        if self.j_som.val() {
            self.j_start.next = self.sa.q.val();
        }
        if self.t_slot.q.val() {
            self.j_start.next = 0.into();
        }
        self.j_olen.next = self.j_len.val().get_bits::<13>(0);
        if self.cfg.mic.val() {
            self.j_olen.next = self.j_len.val().get_bits::<13>(0) - self.c_mic_len13.val();
        }
        // The descriptor ([`desc`]: slot [0], start [14:1], length [27:15], next [41:28],
        // source EID [49:42], destination EID [57:50], tag [60:58], TO [61]).
        self.desc_l.next = (bit_cast::<62, 14>(self.j_start.val()) << 1)
            | (bit_cast::<62, 13>(self.j_olen.val()) << 15)
            | (bit_cast::<62, 14>(self.j_next.val()) << 28)
            | (bit_cast::<62, 8>(self.mh2.val()) << 42)
            | (bit_cast::<62, 8>(self.mh1.val()) << 50)
            | (bit_cast::<62, 3>(self.mh3.val().get_bits::<3>(0)) << 58);
        if self.t_slot.q.val() {
            self.desc_l.next = self.desc_l.val() | self.c_desc_slot.val();
        }
        if (self.mh3.val() & self.c_to.val()) != 0 {
            self.desc_l.next = self.desc_l.val() | self.c_desc_to.val();
        }
        self.desc.next = self.dl_desc.q.val();
        if self.dl_void.q.val() {
            self.desc.next = self.dl_desc.q.val() & self.c_desc_void.val();
        }
        self.judging.next = self.endc.q.val();
        self.j_header.next = self.mh_r.q.val().get_bits::<24>(8);
        self.j_open.next = self.ctx_open.q.val();
        self.j_last_seq.next = self.last_seq.q.val();
        self.j_unit.next = self.unit_f.q.val().get_bits::<9>(0) - self.hov_r.q.val().get_bits::<9>(0);
        self.j_plen.next = self.plen.val().get_bits::<9>(0);
        self.j_mlen.next = self.j_len.val().get_bits::<13>(0);

        self.push.next = self.push_r.q.val();
        self.push_r.d.next = false;
        self.bump.messages.next = false;
        self.bump.malformed.next = false;
        self.bump.no_context.next = false;
        self.bump.bad_sequence.next = false;
        self.bump.bad_unit_size.next = false;
        self.bump.restarted.next = false;
        self.bump.too_long.next = false;
        self.bump.contexts_full.next = false;
        self.bump.bad_pec.next = false;
        self.bump.bad_smbus.next = false;
        self.bump.mic_errors.next = false;
        self.bump.oversize.next = false;
        if self.slot_done.val() {
            self.slot_busy.d.next = false;
        }
        // The last judging clock's delivery: published, or counted as a MIC error and published
        // void (length 0: the reader outputs nothing and releases its words or the slot as it
        // passes). Either way the free start moves past it, or the slot is taken, so the
        // residue compare reaches only the counters and `dl_void` (which clears the length as
        // the descriptor is pushed), no address.
        self.dl_pend.d.next = false;
        self.dl_void.d.next = self.dl_bad_now.val();
        if self.dl_pend.q.val() {
            self.push_r.d.next = true;
            if self.dl_bad_now.val() {
                self.bump.mic_errors.next = true;
            } else {
                self.bump.messages.next = true;
            }
        }
        if self.endc.q.val() {
            // Per-frame state back to its start.
            self.endc.d.next = false;
            // One more frame judged since the key was loaded (unless this one loads it).
            self.k_age0.d.next = false;
            self.k_age1.d.next = self.k_age0.q.val();
            self.in_frame.d.next = false;
            self.t_ring.d.next = false;
            self.t_slot.d.next = false;
            if self.v_oversize.val() {
                self.bump.oversize.next = true;
            } else if self.v_smb1.val() {
                self.bump.bad_smbus.next = true;
            } else if self.v_pec.val() {
                self.bump.bad_pec.next = true;
            } else if self.v_smb2.val() {
                self.bump.bad_smbus.next = true;
            } else if self.v_malf.val() {
                self.bump.malformed.next = true;
            } else if self.j_som.val() {
                if self.j_match.val() {
                    self.bump.restarted.next = true;
                    self.ctx_open.d.next = false;
                }
                if self.cfg.strict.val() & !self.j_eom.val() & self.r_lt_base.q.val() {
                    self.bump.bad_unit_size.next = true;
                } else if self.r_gt_maxl.q.val() {
                    self.bump.too_long.next = true;
                } else if self.j_eom.val() {
                    // (Delivered: `r_dls`, below.)
                } else if self.ctx_open.q.val() & !self.j_match.val() {
                    self.bump.contexts_full.next = true;
                } else {
                    // (The context's state: `r_new`, below.)
                    self.ctx_open.d.next = true;
                }
            } else if !self.j_match.val() {
                self.bump.no_context.next = true;
            } else if self.r_seq_bad.q.val() {
                self.bump.bad_sequence.next = true;
                self.ctx_open.d.next = false;
            } else if self.cfg.strict.val()
                & ((!self.j_eom.val() & self.r_ne_unit.q.val()) | (self.j_eom.val() & self.r_gt_unit.q.val()))
            {
                self.bump.bad_unit_size.next = true;
                self.ctx_open.d.next = false;
            } else if self.r_cont_gt.q.val() {
                self.bump.too_long.next = true;
                self.ctx_open.d.next = false;
            } else if self.j_eom.val() {
                // (Delivered: `r_dlc`, below.)
                self.ctx_open.d.next = false;
            }
            // (Otherwise continued: `r_ctn`, below.)
        }
        // What the rule chain decided to keep, loaded under its outcome worked out with the
        // last beat (`r_new`, `r_ctn`, `r_dls`/`r_dlc`, with `r_lenbad`): the committed state, the context's fields,
        // and a delivered message's verdict, registered and acted on in the next clock (the
        // MIC's last step and compare are this clock's longest path).
        // A packet committed is the running state's, which stays as it is; one forgotten
        // (dropped, or delivered) reloads the running state from the committed copy, so that
        // whatever follows continues the open message from its last committed packet
        // (`forget`: the write position, the window, its fill and lanes, the first octet and
        // the MIC register). `keeps` is one LUT4 of registers, so the reload's select over
        // about 130 flip-flops starts a level from them.
        self.keeps.next =
            !self.r_lenbad.q.val() & (self.r_new.q.val() | (self.r_ctn.q.val() & !self.r_cont_gt.q.val()));
        self.commit.next = self.endc.q.val() & self.keeps.val();
        self.forget.next = self.endc.q.val() & !self.keeps.val();
        self.mic_w.forget.next = self.forget.val();
        if self.forget.val() {
            self.wa.d.next = self.c_wa.q.val();
            self.wf.d.next = self.c_wf.q.val();
            self.wf_keep_r.d.next = self.c_keep.q.val();
            self.win.d.next = self.c_win.q.val();
            self.first_w.d.next = self.c_first.q.val();
        }
        if self.commit.val() {
            self.last_seq.d.next = self.j_seq.val();
            self.c_wa.d.next = self.wa.q.val();
            self.okr_cwa.d.next = self.chk_wa1.val();
            self.c_wf.d.next = self.wf.q.val();
            self.c_keep.d.next = self.wf_keep_r.q.val();
            self.c_end.d.next = self.j_next.val();
            self.okr_end.d.next = self.chk_wa2.val();
            self.c_win.d.next = self.win.q.val();
            self.mic_c.d.next = self.mic_w.fold.val();
            self.clen.d.next = self.cont_len.val();
            if self.r_new.q.val() {
                self.clen.d.next = self.plen.val();
            }
        }
        if self.endc.q.val() & !self.r_lenbad.q.val() & self.r_new.q.val() {
            self.ms.d.next = self.sa.q.val();
            self.okr_ms.d.next = self.okr_sa.q.val();
            self.ctx_src.d.next = self.mh2.val();
            self.ctx_dst.d.next = self.mh1.val();
            self.ctx_tag.d.next = self.mh3.val().get_bits::<3>(0);
            self.ctx_to.d.next = (self.mh3.val() & self.c_to.val()) != 0;
            self.k_age0.d.next = true;
            self.k_age1.d.next = false;
            self.unit_f.d.next = self.plen.val() + self.hov_r.q.val();
            self.c_first.d.next = self.first_w.q.val();
        }
        if self.endc.q.val()
            & !self.r_lenbad.q.val()
            & (self.r_dls.q.val() | (self.r_dlc.q.val() & !self.r_cont_gt.q.val()))
        {
            self.dl_pend.d.next = true;
            self.dl_bad.d.next = self.mic_bad.val();
            self.dl_chk.d.next = self.cfg.mic.val();
            // The slot is taken, or the free start moves past the message, here, whatever
            // its MIC verdict (a failed one is published void and released as the reader
            // passes it): the delivery clock's beats then see both from registers.
            if self.t_slot.q.val() {
                self.slot_busy.d.next = true;
            } else {
                self.ms.d.next = self.j_next.val();
                self.okr_ms.d.next = self.chk_wa2.val();
            }
            self.dl_desc.d.next = self.desc_l.val();
        }

        if self.reset.val() {
            self.in_frame.d.next = false;
            self.endc.d.next = false;
            self.r_plen.d.next = 0.into();
            self.r_cont.d.next = 0.into();
            self.r_lt_base.d.next = false;
            self.r_gt_maxl.d.next = false;
            self.r_ne_unit.d.next = false;
            self.r_gt_unit.d.next = false;
            self.r_cont_gt.d.next = false;
            self.r_oversize.d.next = false;
            self.r_smb1.d.next = false;
            self.mh_r.d.next = 0.into();
            self.r_pec_bad.d.next = false;
            self.r_smb2.d.next = false;
            self.r_malf.d.next = false;
            self.r_match.d.next = false;
            self.r_seq_bad.d.next = false;
            self.r_new.d.next = false;
            self.r_ctn.d.next = false;
            self.r_dls.d.next = false;
            self.r_dlc.d.next = false;
            self.r_lenbad.d.next = false;
            self.t_ring.d.next = false;
            self.t_slot.d.next = false;
            self.wa.d.next = 0.into();
            self.wf.d.next = 0.into();
            self.wf_keep_r.d.next = 0.into();
            self.win.d.next = 0.into();
            self.first_w.d.next = 0.into();
            self.sa.d.next = 0.into();
            self.ctx_open.d.next = false;
            self.ctx_src.d.next = 0.into();
            self.ctx_dst.d.next = 0.into();
            self.ctx_tag.d.next = 0.into();
            self.ctx_to.d.next = false;
            self.k_age0.d.next = false;
            self.k_age1.d.next = false;
            self.last_seq.d.next = 0.into();
            self.unit_f.d.next = 0.into();
            self.clen.d.next = 0.into();
            self.c_wa.d.next = 0.into();
            self.c_wf.d.next = 0.into();
            self.c_keep.d.next = 0.into();
            self.c_end.d.next = 0.into();
            self.c_win.d.next = 0.into();
            self.mic_c.d.next = self.c_mic_init.val();
            self.c_first.d.next = 0.into();
            self.ms.d.next = 0.into();
            self.slot_busy.d.next = false;
            // Every address is 0 after reset, and so is `rp` (`rp − n` in the ring is `2·rw − n`).
            self.rp_o1.d.next = self.c_pm.val() - self.c_rp_off1.val() + 1;
            self.rp_o2.d.next = self.c_pm.val() - self.c_rp_off2.val() + 1;
            self.okr_wa.d.next = true;
            self.okr_cwa.d.next = true;
            self.okr_end.d.next = true;
            self.okr_ms.d.next = true;
            self.okr_sa.d.next = true;
            self.dl_pend.d.next = false;
            self.push_r.d.next = false;
            self.wr_en.next = false;
            self.push.next = false;
        }
    }
}
