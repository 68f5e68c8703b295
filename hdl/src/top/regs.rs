//! The register block of [`OffloadTop`](super::OffloadTop): the map of
//! `offload_driver::registers` (one table, also read by the host driver and the docs) behind
//! Corundum's register interface ([`RegBus`]), the configuration bundles that drive the
//! blocks, the blocks' counter bundles read back, and the counters the blocks do not keep
//! themselves (frames in, MPA drops by reason), kept by watching the input handshakes. The MPA
//! receiver's status bundle is read live (`MPA_RX_STATUS` and the three registers after it).
//!
//! Written once, in `#[hdl_gen]`. Every number comes from the map: each register's word
//! address, reset value and writable mask are `Constant`s looked up by name when the block is
//! built, and [`RegBlock::new`] fails at elaboration unless every register of the map is
//! decoded here exactly once. Field positions inside a register (`MPA_CONFIG.CRC` is bit 1 …)
//! are literals in the logic, checked against the map's constants at elaboration too.
//!
//! A block of its own (not logic in the top) so that rust-hdl's simulator clocks it in the
//! same delta as the MPA and MCTP blocks it configures: every block then samples the others'
//! pre-edge values, as the Verilog does.
//!
//! # Bus timing
//! Corundum's `reg_*` interface ([`super::reg_bus`]): a write is acknowledged one clock after
//! it is requested, a read three clocks after (its word is decoded one-hot in the request's
//! clock, each source's share of the multiplexer is selected and registered in the next,
//! `rd_grp`, and the shares are ORed in the third: the multiplexer is not behind the address
//! compare, and no path runs from a block's counter through all of it), each for one clock.
//! A read returns the value the register holds in the clock after the request (`rd_wait` is
//! high in the two clocks before the ack). An `en` still high until the ack is not a new access; a read and a
//! write may run in the same clock; unmapped addresses read 0 and ignore writes, as do
//! read-only registers.

use super::reg_bus::{RegBus, StreamTap};
use crate::mctp_rx::{MctpRxConfigSource, MctpRxCountersSink};
use crate::mctp_tx::{MctpTxConfigSource, MctpTxCountersSink};
use crate::mpa_rx::{MpaRxConfigSource, MpaRxCountersSink, MpaRxStatusSink};
use crate::mpa_tx::{MpaTxConfigSource, MpaTxCountersSink};
use offload_driver::regmap::{self as map, Access, MAP, MAP_VERSION, MCTP_RX_COUNTERS};
use rust_hdl::prelude::*;

/// A register's word (`offset / 4`), by name, as a one-hot mask of the window's 64 words: an
/// access is decoded once into a one-hot vector ([`RegBlock`]'s `wr_hot`, `rd_hot`), and each
/// register then needs one AND term, not a 6-bit compare.
fn word(name: &str) -> Constant<Bits<64>> {
    let r = register(name);
    Constant::new((1u64 << (r.offset / 4)).into())
}

fn register(name: &str) -> &'static map::Register {
    MAP.iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("register {name} is not in offload_driver::regmap::MAP"))
}

/// A read-write register: its flip-flops, reset value and writable mask. The flip-flops power
/// up at 0 and take the reset value with `reset` (a plain `DFF`: with `DFFWithInit`'s XOR
/// encoding, Yosys kept the constant bits outside the mask, 121 flip-flops more).
fn rw(name: &str) -> (DFF<Bits<32>>, Constant<Bits<32>>, Constant<Bits<32>>) {
    match register(name).access {
        Access::Rw { reset, mask } => (
            DFF::default(),
            Constant::new((reset as u64).into()),
            Constant::new((mask as u64).into()),
        ),
        Access::Ro => panic!("register {name} is read-only in the map"),
    }
}

/// The names this block decodes, read-write then read-only: checked against the map.
const RW_NAMES: [&str; 14] = [
    "CONTROL",
    "SCRATCH",
    "MPA_CONFIG",
    "MPA_MULPDU",
    "MPA_OFFSET",
    "MCTP_EIDS",
    "MCTP_FLAGS",
    "MCTP_MTU",
    "MCTP_SMBUS",
    "MCTP_RX_CONFIG",
    "MCTP_RX_MAX_LEN",
    "MPA_RX_CONFIG",
    "MPA_RX_MULPDU",
    "MPA_RX_OFFSET",
];
const RO_NAMES: [&str; 11] = [
    "ID",
    "VERSION",
    "MPA_ULPDUS_IN",
    "MPA_FPDUS",
    "MPA_DROP_ZERO_LEN",
    "MPA_DROP_OVER_MULPDU",
    "MPA_DROPPED",
    "MCTP_MESSAGES_IN",
    "MCTP_PACKETS",
    "MCTP_MESSAGES",
    "MCTP_DROPPED",
];
/// …and these, then the MCTP RX block's counters (`MCTP_RX_COUNTERS`).
const RO_NAMES_2: [&str; 2] = ["MCTP_LEN_ERRORS", "MCTP_RX_FRAMES_IN"];
/// The MPA RX receiver's status and counters, in map order (`a_mpa_rx` is indexed by it).
const MPA_RX_RO: [&str; 9] = [
    "MPA_RX_STATUS",
    "MPA_RX_ERROR_OFFSET",
    "MPA_RX_FOUND",
    "MPA_RX_EXPECTED",
    "MPA_RX_SEGMENTS_IN",
    "MPA_RX_FPDUS",
    "MPA_RX_BAD_CRC",
    "MPA_RX_BAD_MARKER",
    "MPA_RX_BAD_LENGTH",
];

/// The MCTP RX block's drop record, in map order (`a_mctp_rx_drop` is indexed by it).
const MCTP_RX_DROP_RO: [&str; 3] = ["MCTP_RX_DROP", "MCTP_RX_DROP_CONTEXT", "MCTP_RX_DROP_LENGTH"];

/// Elaboration checks: the map and this block agree on what is decoded and where fields sit.
fn check_map() {
    let mut decoded: Vec<&str> = RW_NAMES.iter().chain(&RO_NAMES).chain(&RO_NAMES_2).chain(&MPA_RX_RO).chain(&MCTP_RX_DROP_RO).copied().collect();
    decoded.extend(MCTP_RX_COUNTERS);
    let mut in_map: Vec<&str> = MAP.iter().map(|r| r.name).collect();
    decoded.sort_unstable();
    in_map.sort_unstable();
    assert_eq!(decoded, in_map, "the register block decodes exactly the registers of the map");
    for n in RW_NAMES {
        assert!(matches!(register(n).access, Access::Rw { .. }), "{n} is read-write");
    }
    // The field positions written as literals in `update`.
    assert_eq!(
        (map::CONTROL_MPA_RESET, map::CONTROL_MCTP_RESET, map::CONTROL_MCTP_RX_RESET, map::CONTROL_MPA_RX_RESET),
        (1 << 0, 1 << 1, 1 << 2, 1 << 3)
    );
    assert_eq!((map::MPA_CONFIG_MARKERS, map::MPA_CONFIG_CRC), (1 << 0, 1 << 1));
    assert_eq!((map::MPA_RX_CONFIG_MARKERS, map::MPA_RX_CONFIG_CRC), (1 << 0, 1 << 1));
    assert_eq!((map::MPA_RX_STATUS_ERROR_MASK, map::MPA_RX_STATUS_IDLE), (0x3, 1 << 2));
    assert_eq!(
        (
            map::MCTP_FLAGS_TAG_SHIFT,
            map::MCTP_FLAGS_TO,
            map::MCTP_FLAGS_SEQ_SHIFT,
            map::MCTP_FLAGS_MIC,
            map::MCTP_FLAGS_SMBUS
        ),
        (0, 1 << 3, 4, 1 << 8, 1 << 9)
    );
    assert_eq!((map::MCTP_RX_SMBUS, map::MCTP_RX_MIC, map::MCTP_RX_STRICT), (1, 2, 4));
    assert_eq!(
        map::MCTP_RX_MAX_LEN_LIMIT,
        crate::mctp_rx::HW_MAX_LEN,
        "the driver's RX limit is the block's"
    );
}

/// `VERSION`: the map version and the blocks' widths in octets per beat.
pub fn version(mpa_width: usize, mctp_width: usize) -> u32 {
    (MAP_VERSION as u32) << 16 | (mctp_width as u32) << 8 | mpa_width as u32
}

/// The register block.
#[derive(LogicBlock)]
pub struct RegBlock {
    pub clock: Signal<In, Clock>,
    /// Synchronous, active high: every register to its reset value.
    pub reset: Signal<In, Bit>,
    pub reg_bus: RegBus,
    /// Each block's reset: the top's, or its `CONTROL` bit, registered ([`ResetRegs`]).
    pub resets: BlockResets,
    pub mpa_cfg: MpaTxConfigSource,
    pub mpa_counters: MpaTxCountersSink,
    pub mpa_tap: StreamTap,
    /// The ULPDU length beside the MPA input stream (drop reasons are counted here).
    pub mpa_s_len: Signal<In, Bits<16>>,
    pub mctp_cfg: MctpTxConfigSource,
    pub mctp_counters: MctpTxCountersSink,
    pub mctp_tap: StreamTap,
    pub mctp_rx_cfg: MctpRxConfigSource,
    pub mctp_rx_counters: MctpRxCountersSink,
    /// The MCTP RX block's drop record (its `drop*` ports), read as they are.
    pub mctp_rx_drop: Signal<In, Bits<32>>,
    pub mctp_rx_drop_context: Signal<In, Bits<32>>,
    pub mctp_rx_drop_length: Signal<In, Bits<32>>,
    pub mctp_rx_tap: StreamTap,
    pub mpa_rx_cfg: MpaRxConfigSource,
    pub mpa_rx_status: MpaRxStatusSink,
    pub mpa_rx_counters: MpaRxCountersSink,
    pub mpa_rx_tap: StreamTap,
    // Read-write registers and their reset values and masks.
    r_control: DFF<Bits<32>>,
    v_control: Constant<Bits<32>>,
    m_control: Constant<Bits<32>>,
    r_scratch: DFF<Bits<32>>,
    v_scratch: Constant<Bits<32>>,
    m_scratch: Constant<Bits<32>>,
    r_mpa_config: DFF<Bits<32>>,
    v_mpa_config: Constant<Bits<32>>,
    m_mpa_config: Constant<Bits<32>>,
    r_mpa_mulpdu: DFF<Bits<32>>,
    v_mpa_mulpdu: Constant<Bits<32>>,
    m_mpa_mulpdu: Constant<Bits<32>>,
    r_mpa_offset: DFF<Bits<32>>,
    v_mpa_offset: Constant<Bits<32>>,
    m_mpa_offset: Constant<Bits<32>>,
    r_mctp_eids: DFF<Bits<32>>,
    v_mctp_eids: Constant<Bits<32>>,
    m_mctp_eids: Constant<Bits<32>>,
    r_mctp_flags: DFF<Bits<32>>,
    v_mctp_flags: Constant<Bits<32>>,
    m_mctp_flags: Constant<Bits<32>>,
    r_mctp_mtu: DFF<Bits<32>>,
    v_mctp_mtu: Constant<Bits<32>>,
    m_mctp_mtu: Constant<Bits<32>>,
    r_mctp_smbus: DFF<Bits<32>>,
    v_mctp_smbus: Constant<Bits<32>>,
    m_mctp_smbus: Constant<Bits<32>>,
    r_mctp_rx_config: DFF<Bits<32>>,
    v_mctp_rx_config: Constant<Bits<32>>,
    m_mctp_rx_config: Constant<Bits<32>>,
    r_mctp_rx_max_len: DFF<Bits<32>>,
    v_mctp_rx_max_len: Constant<Bits<32>>,
    m_mctp_rx_max_len: Constant<Bits<32>>,
    r_mpa_rx_config: DFF<Bits<32>>,
    v_mpa_rx_config: Constant<Bits<32>>,
    m_mpa_rx_config: Constant<Bits<32>>,
    r_mpa_rx_mulpdu: DFF<Bits<32>>,
    v_mpa_rx_mulpdu: Constant<Bits<32>>,
    m_mpa_rx_mulpdu: Constant<Bits<32>>,
    r_mpa_rx_offset: DFF<Bits<32>>,
    v_mpa_rx_offset: Constant<Bits<32>>,
    m_mpa_rx_offset: Constant<Bits<32>>,
    // Counters kept here.
    c_mpa_ulpdus_in: DFF<Bits<32>>,
    c_mpa_drop_zero_len: DFF<Bits<32>>,
    c_mpa_drop_over_mulpdu: DFF<Bits<32>>,
    c_mctp_messages_in: DFF<Bits<32>>,
    c_mctp_rx_frames_in: DFF<Bits<32>>,
    c_mpa_rx_segments_in: DFF<Bits<32>>,
    /// The next MPA input beat is a ULPDU's first.
    mpa_first: DFFWithInit<Bit>,
    /// A ULPDU refused for its length was accepted in the clock before: counted now, so that
    /// the 16-bit length compare and the 32-bit increment are not one path.
    drop_zero_p: DFF<Bit>,
    drop_over_p: DFF<Bit>,
    /// A frame's last beat was taken on an input in the clock before: each input counter
    /// counts from its flip-flop here, not from the block's handshake, whose ready comes from
    /// across the die (`top_w8` at 66f72ed, seed 1: MCTP RX's input skid → its `s_tready` →
    /// `MCTP_RX_FRAMES_IN`'s enable, 7.04 ns of routing).
    ulpdu_in_p: DFF<Bit>,
    msg_in_p: DFF<Bit>,
    frame_in_p: DFF<Bit>,
    segment_in_p: DFF<Bit>,
    reset_regs: ResetRegs,
    // The bus.
    wr_ack: DFF<Bit>,
    rd_ack: DFF<Bit>,
    rd_data: DFF<Bits<32>>,
    /// A read is in its second clock: `rd_hot` holds its word, `rd_grp` take the value.
    rd_p: DFF<Bit>,
    /// A read is in its third clock: `rd_data` takes the OR of `rd_grp`.
    rd_p2: DFF<Bit>,
    /// The read multiplexer's terms by source, registered: the register block's own registers
    /// and counters, MPA TX's counters, MCTP TX's, MCTP RX's counters and drop record, MPA RX's
    /// status and counters. Each group's AND-OR can sit by its block; the wide multiplexer
    /// from every block into `rd_data` ran across the die (`top_w4` seed 1 at a25c590: MPA RX's
    /// check stage → `rd_data`, 5.8 ns of routing).
    rd_grp: [DFF<Bits<32>>; 5],
    /// The read's word, decoded one-hot in the request's clock (the multiplexer then needs no
    /// address compare: [`word`]).
    rd_hot: DFF<Bits<64>>,
    wr_go: Signal<Local, Bit>,
    rd_go: Signal<Local, Bit>,
    wr_word: Signal<Local, Bits<6>>,
    rd_word: Signal<Local, Bits<6>>,
    wr_hot: Signal<Local, Bits<64>>,
    k_one: Constant<Bits<64>>,
    strb_mask: Signal<Local, Bits<32>>,
    rd_mux: Signal<Local, Bits<32>>,
    rd_mux_mpa: Signal<Local, Bits<32>>,
    rd_mux_mctp: Signal<Local, Bits<32>>,
    rd_mux_mctp_rx: Signal<Local, Bits<32>>,
    rd_mux_mpa_rx: Signal<Local, Bits<32>>,
    /// `MPA_RX_STATUS` as read: the error code and the idle bit.
    mpa_rx_status_word: Signal<Local, Bits<32>>,
    k_mpa_rx_idle: Constant<Bits<32>>,
    /// Byte-address bits 1:0 (ignored; named so that lint knows).
    unused_addr_low: Signal<Local, Bits<2>>,
    k_byte: Constant<Bits<32>>,
    k_id: Constant<Bits<32>>,
    k_version: Constant<Bits<32>>,
    // Word addresses.
    a_control: Constant<Bits<64>>,
    a_scratch: Constant<Bits<64>>,
    a_mpa_config: Constant<Bits<64>>,
    a_mpa_mulpdu: Constant<Bits<64>>,
    a_mpa_offset: Constant<Bits<64>>,
    a_mctp_eids: Constant<Bits<64>>,
    a_mctp_flags: Constant<Bits<64>>,
    a_mctp_mtu: Constant<Bits<64>>,
    a_mctp_smbus: Constant<Bits<64>>,
    a_mctp_rx_config: Constant<Bits<64>>,
    a_mctp_rx_max_len: Constant<Bits<64>>,
    a_id: Constant<Bits<64>>,
    a_version: Constant<Bits<64>>,
    a_mpa_ulpdus_in: Constant<Bits<64>>,
    a_mpa_fpdus: Constant<Bits<64>>,
    a_mpa_drop_zero_len: Constant<Bits<64>>,
    a_mpa_drop_over_mulpdu: Constant<Bits<64>>,
    a_mpa_dropped: Constant<Bits<64>>,
    a_mctp_messages_in: Constant<Bits<64>>,
    a_mctp_packets: Constant<Bits<64>>,
    a_mctp_messages: Constant<Bits<64>>,
    a_mctp_dropped: Constant<Bits<64>>,
    a_mctp_len_errors: Constant<Bits<64>>,
    a_mctp_rx_frames_in: Constant<Bits<64>>,
    /// The MCTP RX counters' words, in `MCTP_RX_COUNTERS` order.
    a_rx: [Constant<Bits<64>>; 12],
    a_mpa_rx_config: Constant<Bits<64>>,
    a_mpa_rx_mulpdu: Constant<Bits<64>>,
    a_mpa_rx_offset: Constant<Bits<64>>,
    /// The MPA RX status and counter words, in `MPA_RX_RO` order.
    a_mpa_rx: [Constant<Bits<64>>; 9],
    /// The MCTP RX drop record's words, in `MCTP_RX_DROP_RO` order.
    a_mctp_rx_drop: [Constant<Bits<64>>; 3],
}

impl RegBlock {
    /// The block for an MPA path of `mpa_width` and MCTP paths of `mctp_width` octets per beat
    /// (reported in `VERSION`).
    pub fn new(mpa_width: usize, mctp_width: usize) -> RegBlock {
        check_map();
        let (r_control, v_control, m_control) = rw("CONTROL");
        let (r_scratch, v_scratch, m_scratch) = rw("SCRATCH");
        let (r_mpa_config, v_mpa_config, m_mpa_config) = rw("MPA_CONFIG");
        let (r_mpa_mulpdu, v_mpa_mulpdu, m_mpa_mulpdu) = rw("MPA_MULPDU");
        let (r_mpa_offset, v_mpa_offset, m_mpa_offset) = rw("MPA_OFFSET");
        let (r_mctp_eids, v_mctp_eids, m_mctp_eids) = rw("MCTP_EIDS");
        let (r_mctp_flags, v_mctp_flags, m_mctp_flags) = rw("MCTP_FLAGS");
        let (r_mctp_mtu, v_mctp_mtu, m_mctp_mtu) = rw("MCTP_MTU");
        let (r_mctp_smbus, v_mctp_smbus, m_mctp_smbus) = rw("MCTP_SMBUS");
        let (r_mctp_rx_config, v_mctp_rx_config, m_mctp_rx_config) = rw("MCTP_RX_CONFIG");
        let (r_mctp_rx_max_len, v_mctp_rx_max_len, m_mctp_rx_max_len) = rw("MCTP_RX_MAX_LEN");
        let (r_mpa_rx_config, v_mpa_rx_config, m_mpa_rx_config) = rw("MPA_RX_CONFIG");
        let (r_mpa_rx_mulpdu, v_mpa_rx_mulpdu, m_mpa_rx_mulpdu) = rw("MPA_RX_MULPDU");
        let (r_mpa_rx_offset, v_mpa_rx_offset, m_mpa_rx_offset) = rw("MPA_RX_OFFSET");
        RegBlock {
            clock: Default::default(),
            reset: Default::default(),
            reg_bus: Default::default(),
            resets: Default::default(),
            mpa_cfg: Default::default(),
            mpa_counters: Default::default(),
            mpa_tap: Default::default(),
            mpa_s_len: Default::default(),
            mctp_cfg: Default::default(),
            mctp_counters: Default::default(),
            mctp_tap: Default::default(),
            mctp_rx_cfg: Default::default(),
            mctp_rx_counters: Default::default(),
            mctp_rx_drop: Default::default(),
            mctp_rx_drop_context: Default::default(),
            mctp_rx_drop_length: Default::default(),
            mctp_rx_tap: Default::default(),
            mpa_rx_cfg: Default::default(),
            mpa_rx_status: Default::default(),
            mpa_rx_counters: Default::default(),
            mpa_rx_tap: Default::default(),
            r_control,
            v_control,
            m_control,
            r_scratch,
            v_scratch,
            m_scratch,
            r_mpa_config,
            v_mpa_config,
            m_mpa_config,
            r_mpa_mulpdu,
            v_mpa_mulpdu,
            m_mpa_mulpdu,
            r_mpa_offset,
            v_mpa_offset,
            m_mpa_offset,
            r_mctp_eids,
            v_mctp_eids,
            m_mctp_eids,
            r_mctp_flags,
            v_mctp_flags,
            m_mctp_flags,
            r_mctp_mtu,
            v_mctp_mtu,
            m_mctp_mtu,
            r_mctp_smbus,
            v_mctp_smbus,
            m_mctp_smbus,
            r_mctp_rx_config,
            v_mctp_rx_config,
            m_mctp_rx_config,
            r_mctp_rx_max_len,
            v_mctp_rx_max_len,
            m_mctp_rx_max_len,
            r_mpa_rx_config,
            v_mpa_rx_config,
            m_mpa_rx_config,
            r_mpa_rx_mulpdu,
            v_mpa_rx_mulpdu,
            m_mpa_rx_mulpdu,
            r_mpa_rx_offset,
            v_mpa_rx_offset,
            m_mpa_rx_offset,
            c_mpa_ulpdus_in: Default::default(),
            c_mpa_drop_zero_len: Default::default(),
            c_mpa_drop_over_mulpdu: Default::default(),
            c_mctp_messages_in: Default::default(),
            c_mctp_rx_frames_in: Default::default(),
            c_mpa_rx_segments_in: Default::default(),
            mpa_first: DFFWithInit::new(true),
            drop_zero_p: Default::default(),
            drop_over_p: Default::default(),
            ulpdu_in_p: Default::default(),
            msg_in_p: Default::default(),
            frame_in_p: Default::default(),
            segment_in_p: Default::default(),
            reset_regs: ResetRegs::default(),
            wr_ack: Default::default(),
            rd_ack: Default::default(),
            rd_data: Default::default(),
            rd_p: Default::default(),
            rd_p2: Default::default(),
            rd_grp: std::array::from_fn(|_| Default::default()),
            rd_hot: Default::default(),
            wr_go: Default::default(),
            rd_go: Default::default(),
            wr_word: Default::default(),
            rd_word: Default::default(),
            wr_hot: Default::default(),
            k_one: Constant::new(1u64.into()),
            strb_mask: Default::default(),
            rd_mux: Default::default(),
            rd_mux_mpa: Default::default(),
            rd_mux_mctp: Default::default(),
            rd_mux_mctp_rx: Default::default(),
            rd_mux_mpa_rx: Default::default(),
            mpa_rx_status_word: Default::default(),
            k_mpa_rx_idle: Constant::new((map::MPA_RX_STATUS_IDLE as u64).into()),
            unused_addr_low: Default::default(),
            k_byte: Constant::new(0xFF.into()),
            k_id: Constant::new((map::ID_VALUE as u64).into()),
            k_version: Constant::new((version(mpa_width, mctp_width) as u64).into()),
            a_control: word("CONTROL"),
            a_scratch: word("SCRATCH"),
            a_mpa_config: word("MPA_CONFIG"),
            a_mpa_mulpdu: word("MPA_MULPDU"),
            a_mpa_offset: word("MPA_OFFSET"),
            a_mctp_eids: word("MCTP_EIDS"),
            a_mctp_flags: word("MCTP_FLAGS"),
            a_mctp_mtu: word("MCTP_MTU"),
            a_mctp_smbus: word("MCTP_SMBUS"),
            a_mctp_rx_config: word("MCTP_RX_CONFIG"),
            a_mctp_rx_max_len: word("MCTP_RX_MAX_LEN"),
            a_id: word("ID"),
            a_version: word("VERSION"),
            a_mpa_ulpdus_in: word("MPA_ULPDUS_IN"),
            a_mpa_fpdus: word("MPA_FPDUS"),
            a_mpa_drop_zero_len: word("MPA_DROP_ZERO_LEN"),
            a_mpa_drop_over_mulpdu: word("MPA_DROP_OVER_MULPDU"),
            a_mpa_dropped: word("MPA_DROPPED"),
            a_mctp_messages_in: word("MCTP_MESSAGES_IN"),
            a_mctp_packets: word("MCTP_PACKETS"),
            a_mctp_messages: word("MCTP_MESSAGES"),
            a_mctp_dropped: word("MCTP_DROPPED"),
            a_mctp_len_errors: word("MCTP_LEN_ERRORS"),
            a_mctp_rx_frames_in: word("MCTP_RX_FRAMES_IN"),
            a_rx: std::array::from_fn(|i| word(MCTP_RX_COUNTERS[i])),
            a_mpa_rx_config: word("MPA_RX_CONFIG"),
            a_mpa_rx_mulpdu: word("MPA_RX_MULPDU"),
            a_mpa_rx_offset: word("MPA_RX_OFFSET"),
            a_mpa_rx: std::array::from_fn(|i| word(MPA_RX_RO[i])),
            a_mctp_rx_drop: std::array::from_fn(|i| word(MCTP_RX_DROP_RO[i])),
        }
    }
}

impl Logic for RegBlock {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, r_control, r_scratch, r_mpa_config, r_mpa_mulpdu, r_mpa_offset, r_mctp_eids,
            r_mctp_flags, r_mctp_mtu, r_mctp_smbus, r_mctp_rx_config, r_mctp_rx_max_len, r_mpa_rx_config,
            r_mpa_rx_mulpdu, r_mpa_rx_offset, mpa_first, reset_regs);
        dff_setup!(
            self, clock, c_mpa_ulpdus_in, c_mpa_drop_zero_len, c_mpa_drop_over_mulpdu, c_mctp_messages_in,
            c_mctp_rx_frames_in, c_mpa_rx_segments_in, wr_ack, rd_ack, rd_data, rd_p, rd_p2, rd_hot, drop_zero_p, drop_over_p,
            ulpdu_in_p, msg_in_p, frame_in_p, segment_in_p
        );
        for g in 0..5 {
            self.rd_grp[g].clock.next = self.clock.val();
        }
        self.r_control.d.next = self.r_control.q.val();
        self.r_scratch.d.next = self.r_scratch.q.val();
        self.r_mpa_config.d.next = self.r_mpa_config.q.val();
        self.r_mpa_mulpdu.d.next = self.r_mpa_mulpdu.q.val();
        self.r_mpa_offset.d.next = self.r_mpa_offset.q.val();
        self.r_mctp_eids.d.next = self.r_mctp_eids.q.val();
        self.r_mctp_flags.d.next = self.r_mctp_flags.q.val();
        self.r_mctp_mtu.d.next = self.r_mctp_mtu.q.val();
        self.r_mctp_smbus.d.next = self.r_mctp_smbus.q.val();
        self.r_mctp_rx_config.d.next = self.r_mctp_rx_config.q.val();
        self.r_mctp_rx_max_len.d.next = self.r_mctp_rx_max_len.q.val();
        self.r_mpa_rx_config.d.next = self.r_mpa_rx_config.q.val();
        self.r_mpa_rx_mulpdu.d.next = self.r_mpa_rx_mulpdu.q.val();
        self.r_mpa_rx_offset.d.next = self.r_mpa_rx_offset.q.val();
        self.mpa_first.d.next = self.mpa_first.q.val();

        // The bus: one access per request. A write is acknowledged the clock after it; a read
        // decodes its word in the request's clock, selects each group's value in the next and
        // ORs the groups in the third, so it is acknowledged three clocks after it.
        self.wr_go.next = self.reg_bus.wr_en.val() & !self.wr_ack.q.val();
        self.rd_go.next = self.reg_bus.rd_en.val() & !self.rd_p.q.val() & !self.rd_p2.q.val() & !self.rd_ack.q.val();
        self.wr_word.next = self.reg_bus.wr_addr.val().get_bits::<6>(2);
        self.rd_word.next = self.reg_bus.rd_addr.val().get_bits::<6>(2);
        self.wr_hot.next = self.k_one.val() << self.wr_word.val();
        self.rd_hot.d.next = self.k_one.val() << self.rd_word.val();
        self.rd_p.d.next = self.rd_go.val();
        self.rd_p2.d.next = self.rd_p.q.val();
        self.unused_addr_low.next = self.reg_bus.wr_addr.val().get_bits::<2>(0) | self.reg_bus.rd_addr.val().get_bits::<2>(0);
        self.strb_mask.next = 0.into();
        for b in 0..4 {
            if self.reg_bus.wr_strb.val().get_bit(b) {
                self.strb_mask.next = self.strb_mask.val() | (self.k_byte.val() << (8 * b).to_bits::<5>());
            }
        }
        self.wr_ack.d.next = self.wr_go.val();
        self.rd_ack.d.next = self.rd_p2.q.val();
        self.rd_data.d.next = 0.into();
        self.reg_bus.wr_ack.next = self.wr_ack.q.val();
        self.reg_bus.rd_ack.next = self.rd_ack.q.val();
        self.reg_bus.rd_data.next = self.rd_data.q.val();
        self.reg_bus.wr_wait.next = false;
        // Corundum's "access in progress": the read's second and third clocks.
        self.reg_bus.rd_wait.next = self.rd_p.q.val() | self.rd_p2.q.val();

        // Writes: the strobed bytes, then the register's mask.
        if self.wr_go.val() {
            if (self.wr_hot.val() & self.a_control.val()) != 0 {
                self.r_control.d.next = ((self.r_control.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_control.val();
            }
            if (self.wr_hot.val() & self.a_scratch.val()) != 0 {
                self.r_scratch.d.next = ((self.r_scratch.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_scratch.val();
            }
            if (self.wr_hot.val() & self.a_mpa_config.val()) != 0 {
                self.r_mpa_config.d.next = ((self.r_mpa_config.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mpa_config.val();
            }
            if (self.wr_hot.val() & self.a_mpa_mulpdu.val()) != 0 {
                self.r_mpa_mulpdu.d.next = ((self.r_mpa_mulpdu.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mpa_mulpdu.val();
            }
            if (self.wr_hot.val() & self.a_mpa_offset.val()) != 0 {
                self.r_mpa_offset.d.next = ((self.r_mpa_offset.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mpa_offset.val();
            }
            if (self.wr_hot.val() & self.a_mctp_eids.val()) != 0 {
                self.r_mctp_eids.d.next = ((self.r_mctp_eids.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mctp_eids.val();
            }
            if (self.wr_hot.val() & self.a_mctp_flags.val()) != 0 {
                self.r_mctp_flags.d.next = ((self.r_mctp_flags.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mctp_flags.val();
            }
            if (self.wr_hot.val() & self.a_mctp_mtu.val()) != 0 {
                self.r_mctp_mtu.d.next = ((self.r_mctp_mtu.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mctp_mtu.val();
            }
            if (self.wr_hot.val() & self.a_mctp_smbus.val()) != 0 {
                self.r_mctp_smbus.d.next = ((self.r_mctp_smbus.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mctp_smbus.val();
            }
            if (self.wr_hot.val() & self.a_mctp_rx_config.val()) != 0 {
                self.r_mctp_rx_config.d.next = ((self.r_mctp_rx_config.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mctp_rx_config.val();
            }
            if (self.wr_hot.val() & self.a_mctp_rx_max_len.val()) != 0 {
                self.r_mctp_rx_max_len.d.next = ((self.r_mctp_rx_max_len.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mctp_rx_max_len.val();
            }
            if (self.wr_hot.val() & self.a_mpa_rx_config.val()) != 0 {
                self.r_mpa_rx_config.d.next = ((self.r_mpa_rx_config.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mpa_rx_config.val();
            }
            if (self.wr_hot.val() & self.a_mpa_rx_mulpdu.val()) != 0 {
                self.r_mpa_rx_mulpdu.d.next = ((self.r_mpa_rx_mulpdu.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mpa_rx_mulpdu.val();
            }
            if (self.wr_hot.val() & self.a_mpa_rx_offset.val()) != 0 {
                self.r_mpa_rx_offset.d.next = ((self.r_mpa_rx_offset.q.val() & !self.strb_mask.val()) | (self.reg_bus.wr_data.val() & self.strb_mask.val())) & self.m_mpa_rx_offset.val();
            }
        }

        // Configuration outputs: fields of the registers (positions checked in `check_map`).
        self.reset_regs.reset.next = self.reset.val();
        self.reset_regs.control.next = self.r_control.q.val().get_bits::<4>(0);
        BlockResets::link(&mut self.resets, &mut self.reset_regs.resets);
        self.mpa_cfg.markers.next = self.r_mpa_config.q.val().get_bit(0);
        self.mpa_cfg.crc.next = self.r_mpa_config.q.val().get_bit(1);
        self.mpa_cfg.mulpdu.next = self.r_mpa_mulpdu.q.val().get_bits::<16>(0);
        self.mpa_cfg.offset.next = self.r_mpa_offset.q.val().get_bits::<16>(0);
        self.mctp_cfg.src_eid.next = self.r_mctp_eids.q.val().get_bits::<8>(0);
        self.mctp_cfg.dst_eid.next = self.r_mctp_eids.q.val().get_bits::<8>(8);
        self.mctp_cfg.tag.next = self.r_mctp_flags.q.val().get_bits::<3>(0);
        self.mctp_cfg.to.next = self.r_mctp_flags.q.val().get_bit(3);
        self.mctp_cfg.seq.next = self.r_mctp_flags.q.val().get_bits::<2>(4);
        self.mctp_cfg.mic.next = self.r_mctp_flags.q.val().get_bit(8);
        self.mctp_cfg.smbus.next = self.r_mctp_flags.q.val().get_bit(9);
        self.mctp_cfg.mtu.next = self.r_mctp_mtu.q.val().get_bits::<8>(0);
        self.mctp_cfg.smbus_src.next = self.r_mctp_smbus.q.val().get_bits::<7>(0);
        self.mctp_cfg.smbus_dst.next = self.r_mctp_smbus.q.val().get_bits::<7>(8);
        self.mctp_rx_cfg.smbus.next = self.r_mctp_rx_config.q.val().get_bit(0);
        self.mctp_rx_cfg.mic.next = self.r_mctp_rx_config.q.val().get_bit(1);
        self.mctp_rx_cfg.strict.next = self.r_mctp_rx_config.q.val().get_bit(2);
        self.mctp_rx_cfg.max_len.next = self.r_mctp_rx_max_len.q.val().get_bits::<13>(0);
        self.mpa_rx_cfg.markers.next = self.r_mpa_rx_config.q.val().get_bit(0);
        self.mpa_rx_cfg.crc.next = self.r_mpa_rx_config.q.val().get_bit(1);
        self.mpa_rx_cfg.mulpdu.next = self.r_mpa_rx_mulpdu.q.val().get_bits::<16>(0);
        self.mpa_rx_cfg.offset.next = self.r_mpa_rx_offset.q.val();

        // Reads: every register of the map at its word, as an AND-OR multiplexer on the
        // registered one-hot word (the words are distinct, checked in the map's tests, so at
        // most one term is selected: no priority chain); unmapped words read 0.
        self.rd_mux.next = 0.into();
        self.rd_mux_mpa.next = 0.into();
        self.rd_mux_mctp.next = 0.into();
        self.rd_mux_mctp_rx.next = 0.into();
        self.rd_mux_mpa_rx.next = 0.into();
        if (self.rd_hot.q.val() & self.a_control.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_control.q.val();
        }
        if (self.rd_hot.q.val() & self.a_scratch.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_scratch.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_config.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mpa_config.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_mulpdu.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mpa_mulpdu.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_offset.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mpa_offset.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_eids.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mctp_eids.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_flags.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mctp_flags.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_mtu.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mctp_mtu.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_smbus.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mctp_smbus.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_rx_config.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mctp_rx_config.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_rx_max_len.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mctp_rx_max_len.q.val();
        }
        if (self.rd_hot.q.val() & self.a_id.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.k_id.val();
        }
        if (self.rd_hot.q.val() & self.a_version.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.k_version.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_ulpdus_in.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.c_mpa_ulpdus_in.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_fpdus.val()) != 0 {
            self.rd_mux_mpa.next = self.rd_mux_mpa.val() | self.mpa_counters.fpdus.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_drop_zero_len.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.c_mpa_drop_zero_len.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_drop_over_mulpdu.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.c_mpa_drop_over_mulpdu.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_dropped.val()) != 0 {
            self.rd_mux_mpa.next = self.rd_mux_mpa.val() | self.mpa_counters.dropped.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_messages_in.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.c_mctp_messages_in.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_packets.val()) != 0 {
            self.rd_mux_mctp.next = self.rd_mux_mctp.val() | self.mctp_counters.packets.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_messages.val()) != 0 {
            self.rd_mux_mctp.next = self.rd_mux_mctp.val() | self.mctp_counters.messages.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_dropped.val()) != 0 {
            self.rd_mux_mctp.next = self.rd_mux_mctp.val() | self.mctp_counters.dropped.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_len_errors.val()) != 0 {
            self.rd_mux_mctp.next = self.rd_mux_mctp.val() | self.mctp_counters.len_errors.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_rx_frames_in.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.c_mctp_rx_frames_in.q.val();
        }
        // The MCTP RX block's counters, in MCTP_RX_COUNTERS order.
        if (self.rd_hot.q.val() & self.a_rx[0].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.messages.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[1].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.malformed.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[2].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.no_context.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[3].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.bad_sequence.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[4].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.bad_unit_size.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[5].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.restarted.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[6].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.too_long.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[7].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.contexts_full.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[8].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.bad_pec.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[9].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.bad_smbus.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[10].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.mic_errors.val();
        }
        if (self.rd_hot.q.val() & self.a_rx[11].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_counters.oversize.val();
        }
        // The MPA RX receiver: configuration, live status, counters (MPA_RX_RO order).
        if (self.rd_hot.q.val() & self.a_mpa_rx_config.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mpa_rx_config.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx_mulpdu.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mpa_rx_mulpdu.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx_offset.val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.r_mpa_rx_offset.q.val();
        }
        self.mpa_rx_status_word.next = bit_cast::<32, 2>(self.mpa_rx_status.error.val());
        if self.mpa_rx_status.idle.val() {
            self.mpa_rx_status_word.next = self.mpa_rx_status_word.val() | self.k_mpa_rx_idle.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[0].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_status_word.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[1].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_status.offset.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[2].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_status.found.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[3].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_status.expected.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[4].val()) != 0 {
            self.rd_mux.next = self.rd_mux.val() | self.c_mpa_rx_segments_in.q.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[5].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_counters.fpdus.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[6].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_counters.bad_crc.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[7].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_counters.bad_marker.val();
        }
        if (self.rd_hot.q.val() & self.a_mpa_rx[8].val()) != 0 {
            self.rd_mux_mpa_rx.next = self.rd_mux_mpa_rx.val() | self.mpa_rx_counters.bad_length.val();
        }
        // The MCTP RX drop record (MCTP_RX_DROP_RO order).
        if (self.rd_hot.q.val() & self.a_mctp_rx_drop[0].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_drop.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_rx_drop[1].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_drop_context.val();
        }
        if (self.rd_hot.q.val() & self.a_mctp_rx_drop[2].val()) != 0 {
            self.rd_mux_mctp_rx.next = self.rd_mux_mctp_rx.val() | self.mctp_rx_drop_length.val();
        }
        // Each group's term registered (every clock: `rd_hot` holds between reads), then the
        // five ORed into `rd_data` in the read's third clock.
        self.rd_grp[0].d.next = self.rd_mux.val();
        self.rd_grp[1].d.next = self.rd_mux_mpa.val();
        self.rd_grp[2].d.next = self.rd_mux_mctp.val();
        self.rd_grp[3].d.next = self.rd_mux_mctp_rx.val();
        self.rd_grp[4].d.next = self.rd_mux_mpa_rx.val();
        if self.rd_p2.q.val() {
            self.rd_data.d.next = self.rd_grp[0].q.val()
                | self.rd_grp[1].q.val()
                | self.rd_grp[2].q.val()
                | self.rd_grp[3].q.val()
                | self.rd_grp[4].q.val();
        }

        // Counters kept here, from the input handshakes a clock later; each cleared by its
        // block's reset (a pulse registered in the clock before the reset is dropped).
        self.drop_zero_p.d.next = false;
        self.drop_over_p.d.next = false;
        self.ulpdu_in_p.d.next = false;
        self.msg_in_p.d.next = self.mctp_tap.tvalid.val() & self.mctp_tap.tready.val() & self.mctp_tap.tlast.val();
        self.frame_in_p.d.next =
            self.mctp_rx_tap.tvalid.val() & self.mctp_rx_tap.tready.val() & self.mctp_rx_tap.tlast.val();
        self.segment_in_p.d.next =
            self.mpa_rx_tap.tvalid.val() & self.mpa_rx_tap.tready.val() & self.mpa_rx_tap.tlast.val();
        if self.resets.mpa.val() {
            self.mpa_first.d.next = true;
            self.c_mpa_ulpdus_in.d.next = 0.into();
            self.c_mpa_drop_zero_len.d.next = 0.into();
            self.c_mpa_drop_over_mulpdu.d.next = 0.into();
        } else {
            if self.drop_zero_p.q.val() {
                self.c_mpa_drop_zero_len.d.next = self.c_mpa_drop_zero_len.q.val() + 1;
            }
            if self.drop_over_p.q.val() {
                self.c_mpa_drop_over_mulpdu.d.next = self.c_mpa_drop_over_mulpdu.q.val() + 1;
            }
            if self.ulpdu_in_p.q.val() {
                self.c_mpa_ulpdus_in.d.next = self.c_mpa_ulpdus_in.q.val() + 1;
            }
            if self.mpa_tap.tvalid.val() & self.mpa_tap.tready.val() {
                self.mpa_first.d.next = self.mpa_tap.tlast.val();
                self.ulpdu_in_p.d.next = self.mpa_tap.tlast.val();
                self.drop_zero_p.d.next = self.mpa_first.q.val() & (self.mpa_s_len.val() == 0);
                self.drop_over_p.d.next =
                    self.mpa_first.q.val() & (self.mpa_s_len.val() > self.r_mpa_mulpdu.q.val().get_bits::<16>(0));
            }
        }
        if self.resets.mctp.val() {
            self.c_mctp_messages_in.d.next = 0.into();
            self.msg_in_p.d.next = false;
        } else if self.msg_in_p.q.val() {
            self.c_mctp_messages_in.d.next = self.c_mctp_messages_in.q.val() + 1;
        }
        if self.resets.mctp_rx.val() {
            self.c_mctp_rx_frames_in.d.next = 0.into();
            self.frame_in_p.d.next = false;
        } else if self.frame_in_p.q.val() {
            self.c_mctp_rx_frames_in.d.next = self.c_mctp_rx_frames_in.q.val() + 1;
        }
        if self.resets.mpa_rx.val() {
            self.c_mpa_rx_segments_in.d.next = 0.into();
            self.segment_in_p.d.next = false;
        } else if self.segment_in_p.q.val() {
            self.c_mpa_rx_segments_in.d.next = self.c_mpa_rx_segments_in.q.val() + 1;
        }

        if self.reset.val() {
            self.r_control.d.next = self.v_control.val();
            self.r_scratch.d.next = self.v_scratch.val();
            self.r_mpa_config.d.next = self.v_mpa_config.val();
            self.r_mpa_mulpdu.d.next = self.v_mpa_mulpdu.val();
            self.r_mpa_offset.d.next = self.v_mpa_offset.val();
            self.r_mctp_eids.d.next = self.v_mctp_eids.val();
            self.r_mctp_flags.d.next = self.v_mctp_flags.val();
            self.r_mctp_mtu.d.next = self.v_mctp_mtu.val();
            self.r_mctp_smbus.d.next = self.v_mctp_smbus.val();
            self.r_mctp_rx_config.d.next = self.v_mctp_rx_config.val();
            self.r_mctp_rx_max_len.d.next = self.v_mctp_rx_max_len.val();
            self.r_mpa_rx_config.d.next = self.v_mpa_rx_config.val();
            self.r_mpa_rx_mulpdu.d.next = self.v_mpa_rx_mulpdu.val();
            self.r_mpa_rx_offset.d.next = self.v_mpa_rx_offset.val();
            self.wr_ack.d.next = false;
            self.rd_ack.d.next = false;
            self.rd_p.d.next = false;
            self.rd_p2.d.next = false;
            self.rd_data.d.next = 0.into();
        }
    }
}

/// The blocks' resets.
#[derive(LogicInterface, Default)]
pub struct BlockResets {
    pub mpa: Signal<Out, Bit>,
    pub mctp: Signal<Out, Bit>,
    pub mctp_rx: Signal<Out, Bit>,
    pub mpa_rx: Signal<Out, Bit>,
}

/// The blocks' resets as flip-flops: the top's reset or the block's `CONTROL` bit, one clock
/// later, high at power-up. A child of its own so that the register block's logic, which reads
/// the blocks' `s_tready` (lowered by these resets) for its frame counters, does not also drive
/// them: Verilator would see a combinational loop through one `always` block (UNOPTFLAT).
#[derive(LogicBlock)]
pub struct ResetRegs {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// `CONTROL[3:0]`.
    pub control: Signal<In, Bits<4>>,
    pub resets: BlockResets,
    mpa: DFFWithInit<Bit>,
    mctp: DFFWithInit<Bit>,
    mctp_rx: DFFWithInit<Bit>,
    mpa_rx: DFFWithInit<Bit>,
}

impl Default for ResetRegs {
    fn default() -> Self {
        ResetRegs {
            clock: Default::default(),
            reset: Default::default(),
            control: Default::default(),
            resets: Default::default(),
            mpa: DFFWithInit::new(true),
            mctp: DFFWithInit::new(true),
            mctp_rx: DFFWithInit::new(true),
            mpa_rx: DFFWithInit::new(true),
        }
    }
}

impl Logic for ResetRegs {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, mpa, mctp, mctp_rx, mpa_rx);
        self.mpa.d.next = self.reset.val() | self.control.val().get_bit(0);
        self.mctp.d.next = self.reset.val() | self.control.val().get_bit(1);
        self.mctp_rx.d.next = self.reset.val() | self.control.val().get_bit(2);
        self.mpa_rx.d.next = self.reset.val() | self.control.val().get_bit(3);
        self.resets.mpa.next = self.mpa.q.val();
        self.resets.mctp.next = self.mctp.q.val();
        self.resets.mctp_rx.next = self.mctp_rx.q.val();
        self.resets.mpa_rx.next = self.mpa_rx.q.val();
    }
}


/// rust-hdl's simulation of the register block behind the testbench's
/// [`crate::testbench::ClockedModel`].
pub fn hdl_model(mpa_width: usize, mctp_width: usize) -> Result<crate::testbench::HdlModel<RegBlock>, crate::testbench::BenchError> {
    crate::hdl_model!(
        RegBlock::new(mpa_width, mctp_width),
        RegBlock,
        [
            reset,
            reg_bus.wr_addr, reg_bus.wr_data, reg_bus.wr_strb, reg_bus.wr_en, reg_bus.wr_wait, reg_bus.wr_ack,
            reg_bus.rd_addr, reg_bus.rd_en, reg_bus.rd_data, reg_bus.rd_wait, reg_bus.rd_ack,
            resets.mpa, resets.mctp, resets.mctp_rx, resets.mpa_rx,
            mpa_cfg.markers, mpa_cfg.crc, mpa_cfg.mulpdu, mpa_cfg.offset,
            mpa_counters.fpdus, mpa_counters.dropped,
            mpa_tap.tvalid, mpa_tap.tready, mpa_tap.tlast, mpa_s_len,
            mctp_cfg.src_eid, mctp_cfg.dst_eid, mctp_cfg.tag, mctp_cfg.to, mctp_cfg.seq, mctp_cfg.mtu,
            mctp_cfg.mic, mctp_cfg.smbus, mctp_cfg.smbus_src, mctp_cfg.smbus_dst,
            mctp_counters.packets, mctp_counters.messages, mctp_counters.dropped, mctp_counters.len_errors,
            mctp_tap.tvalid, mctp_tap.tready, mctp_tap.tlast,
            mctp_rx_cfg.smbus, mctp_rx_cfg.mic, mctp_rx_cfg.strict, mctp_rx_cfg.max_len,
            mctp_rx_counters.messages, mctp_rx_counters.malformed, mctp_rx_counters.no_context,
            mctp_rx_counters.bad_sequence, mctp_rx_counters.bad_unit_size, mctp_rx_counters.restarted,
            mctp_rx_counters.too_long, mctp_rx_counters.contexts_full, mctp_rx_counters.bad_pec,
            mctp_rx_counters.bad_smbus, mctp_rx_counters.mic_errors, mctp_rx_counters.oversize,
            mctp_rx_drop, mctp_rx_drop_context, mctp_rx_drop_length,
            mctp_rx_tap.tvalid, mctp_rx_tap.tready, mctp_rx_tap.tlast,
            mpa_rx_cfg.markers, mpa_rx_cfg.crc, mpa_rx_cfg.mulpdu, mpa_rx_cfg.offset,
            mpa_rx_status.error, mpa_rx_status.offset, mpa_rx_status.found, mpa_rx_status.expected,
            mpa_rx_status.idle,
            mpa_rx_counters.fpdus, mpa_rx_counters.bad_crc, mpa_rx_counters.bad_marker, mpa_rx_counters.bad_length,
            mpa_rx_tap.tvalid, mpa_rx_tap.tready, mpa_rx_tap.tlast
        ]
    )
}
