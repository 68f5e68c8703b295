//! The register block of `OffloadTop` (the hardware top a NIC shell instantiates): the map,
//! defined once here and read by the Verilog generator (`offload-hdl`'s `top` module), the
//! docs table and the host driver; and [`OffloadRegs`], the driver over any [`RegisterBus`]
//! (the Verilated top in `offload-sim`, FrontPanel on the XEM7010 board, a PCIe BAR).
//!
//! # The bus
//! 32-bit registers at byte offsets `0x00..=0xFC` (8-bit byte address, bits 1:0 ignored),
//! written with byte strobes. In hardware it is Corundum's register interface
//! (`reg_wr_addr/data/strb/en/ack`, `reg_rd_addr/en/data/ack`, each access acknowledged one
//! clock after it is requested, `en` held until `ack`), so Corundum's `axil_reg_if` turns it into
//! AXI4-Lite. Every address in the block is acknowledged: unmapped ones read 0 and ignore
//! writes, as do writes to read-only registers.
//!
//! # Configuration and counters
//! Configuration registers drive the blocks' `cfg_*` inputs. The MPA framer reads its
//! configuration live (change it between FPDUs) and loads `MPA_OFFSET` when it leaves reset,
//! so [`OffloadRegs::configure_mpa`] writes the registers and then pulses `CONTROL.MPA_RESET`.
//! The MCTP packetizer latches the header fields with each message's first beat, so they may
//! be rewritten between messages. The MPA receiver has a configuration of its own (each
//! direction of a connection negotiates Markers and CRC separately, RFC 5044 §7.1, and its
//! stream offsets are its own), loads `MPA_RX_OFFSET` when it leaves reset, and reports the
//! first error in live read-only status registers until it is reset
//! ([`OffloadRegs::configure_mpa_rx`], [`OffloadRegs::mpa_rx_status`]). Counters are 32-bit,
//! wrap, and are cleared by their block's reset (the top's `reset` or the `CONTROL` bit).

use crate::mctp::{MctpError, SmbusError, TxRequest, MAX_MESSAGE_LEN, MIN_MTU, SMBUS_MAX_MTU};
use crate::mpa::{hardware, FramingConfig, MpaError, MAX_ULPDU};
use std::fmt;

/// `ID`: "OFLD" in ASCII.
pub const ID_VALUE: u32 = 0x4F46_4C44;
/// Version of this map, in `VERSION[31:16]`; the driver refuses any other.
pub const MAP_VERSION: u16 = 2;
/// Bits of the byte address.
pub const ADDR_BITS: u32 = 8;

/// `CONTROL` bits: the block is held in reset while its bit is set.
pub const CONTROL_MPA_RESET: u32 = 1 << 0;
pub const CONTROL_MCTP_RESET: u32 = 1 << 1;
pub const CONTROL_MCTP_RX_RESET: u32 = 1 << 2;
pub const CONTROL_MPA_RX_RESET: u32 = 1 << 3;
/// `MPA_CONFIG` bits.
pub const MPA_CONFIG_MARKERS: u32 = 1 << 0;
pub const MPA_CONFIG_CRC: u32 = 1 << 1;
/// `MCTP_FLAGS` fields.
pub const MCTP_FLAGS_TAG_SHIFT: u32 = 0;
pub const MCTP_FLAGS_TO: u32 = 1 << 3;
pub const MCTP_FLAGS_SEQ_SHIFT: u32 = 4;
pub const MCTP_FLAGS_MIC: u32 = 1 << 8;
pub const MCTP_FLAGS_SMBUS: u32 = 1 << 9;
/// `MCTP_RX_CONFIG` bits.
pub const MCTP_RX_SMBUS: u32 = 1 << 0;
pub const MCTP_RX_MIC: u32 = 1 << 1;
pub const MCTP_RX_STRICT: u32 = 1 << 2;
/// The RX block's message limit (MIC included): its reassembly ring less two packets.
pub const MCTP_RX_MAX_LEN_LIMIT: usize = 7680;
/// `MPA_RX_CONFIG` bits (as `MPA_CONFIG`'s).
pub const MPA_RX_CONFIG_MARKERS: u32 = MPA_CONFIG_MARKERS;
pub const MPA_RX_CONFIG_CRC: u32 = MPA_CONFIG_CRC;
/// `MPA_RX_STATUS` fields: `[1:0]` the error code (`mpa::hardware::ERR_*`), the idle bit.
pub const MPA_RX_STATUS_ERROR_MASK: u32 = 0x3;
pub const MPA_RX_STATUS_IDLE: u32 = 1 << 2;

/// Who may write a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read-only: an identification value or a counter.
    Ro,
    /// Read-write configuration, `reset` after reset; only the bits in `mask` are stored
    /// (the others read 0).
    Rw { reset: u32, mask: u32 },
}

/// One register of the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Register {
    /// Upper-case name, as in the docs; the Verilog generator keys on it.
    pub name: &'static str,
    /// Byte offset (a multiple of 4).
    pub offset: u8,
    pub access: Access,
    /// One line for the docs table.
    pub doc: &'static str,
}

const fn ro(name: &'static str, offset: u8, doc: &'static str) -> Register {
    Register {
        name,
        offset,
        access: Access::Ro,
        doc,
    }
}

const fn rw(name: &'static str, offset: u8, reset: u32, mask: u32, doc: &'static str) -> Register {
    Register {
        name,
        offset,
        access: Access::Rw { reset, mask },
        doc,
    }
}

pub const ID: u8 = 0x00;
pub const VERSION: u8 = 0x04;
pub const CONTROL: u8 = 0x08;
pub const SCRATCH: u8 = 0x0C;
pub const MPA_CONFIG: u8 = 0x10;
pub const MPA_MULPDU: u8 = 0x14;
pub const MPA_OFFSET: u8 = 0x18;
pub const MPA_ULPDUS_IN: u8 = 0x20;
pub const MPA_FPDUS: u8 = 0x24;
pub const MPA_DROP_ZERO_LEN: u8 = 0x28;
pub const MPA_DROP_OVER_MULPDU: u8 = 0x2C;
pub const MPA_DROPPED: u8 = 0x30;
pub const MCTP_EIDS: u8 = 0x40;
pub const MCTP_FLAGS: u8 = 0x44;
pub const MCTP_MTU: u8 = 0x48;
pub const MCTP_SMBUS: u8 = 0x4C;
pub const MCTP_MESSAGES_IN: u8 = 0x50;
pub const MCTP_PACKETS: u8 = 0x54;
pub const MCTP_MESSAGES: u8 = 0x58;
pub const MCTP_DROPPED: u8 = 0x5C;
pub const MCTP_LEN_ERRORS: u8 = 0x60;
/// `0x80..=0xBF`: the MCTP RX depacketizer's configuration and counters.
pub const MCTP_RX_BASE: u8 = 0x80;
pub const MCTP_RX_CONFIG: u8 = 0x80;
pub const MCTP_RX_MAX_LEN: u8 = 0x84;
pub const MCTP_RX_FRAMES_IN: u8 = 0x88;
/// The RX block's own counters, from here in [`MCTP_RX_COUNTERS`] order.
pub const MCTP_RX_MESSAGES: u8 = 0x8C;
/// `0xC0..=0xEF`: the MPA RX receiver's configuration, status and counters.
pub const MPA_RX_BASE: u8 = 0xC0;
pub const MPA_RX_CONFIG: u8 = 0xC0;
pub const MPA_RX_MULPDU: u8 = 0xC4;
pub const MPA_RX_OFFSET: u8 = 0xC8;
pub const MPA_RX_STATUS: u8 = 0xCC;
pub const MPA_RX_ERROR_OFFSET: u8 = 0xD0;
pub const MPA_RX_FOUND: u8 = 0xD4;
pub const MPA_RX_EXPECTED: u8 = 0xD8;
pub const MPA_RX_SEGMENTS_IN: u8 = 0xDC;
pub const MPA_RX_FPDUS: u8 = 0xE0;
pub const MPA_RX_BAD_CRC: u8 = 0xE4;
pub const MPA_RX_BAD_MARKER: u8 = 0xE8;
pub const MPA_RX_BAD_LENGTH: u8 = 0xEC;
/// The RX block's counters (its `ReassemblyStats`, SMBus and MIC errors, oversize frames).
pub const MCTP_RX_COUNTERS: [&str; 12] = [
    "MCTP_RX_MESSAGES",
    "MCTP_RX_MALFORMED",
    "MCTP_RX_NO_CONTEXT",
    "MCTP_RX_BAD_SEQUENCE",
    "MCTP_RX_BAD_UNIT_SIZE",
    "MCTP_RX_RESTARTED",
    "MCTP_RX_TOO_LONG",
    "MCTP_RX_CONTEXTS_FULL",
    "MCTP_RX_BAD_PEC",
    "MCTP_RX_BAD_SMBUS",
    "MCTP_RX_MIC_ERRORS",
    "MCTP_RX_OVERSIZE",
];

/// The whole map, in offset order.
pub const MAP: &[Register] = &[
    ro("ID", ID, "0x4F464C44 (\"OFLD\"): this is an offload top"),
    ro("VERSION", VERSION, "[31:16] map version (2); [15:8] MCTP TX octets/beat; [7:0] MPA TX octets/beat"),
    rw("CONTROL", CONTROL, 0, 0xF, "bit 0: hold the MPA TX framer (and its counters) in reset; bit 1: the same for MCTP TX; bit 2: for MCTP RX; bit 3: for MPA RX"),
    rw("SCRATCH", SCRATCH, 0, 0xFFFF_FFFF, "free for the host (bus check)"),
    rw("MPA_CONFIG", MPA_CONFIG, 0x3, 0x3, "bit 0: Markers; bit 1: CRC (0 sends a zero CRC field); read live, change between FPDUs"),
    rw("MPA_MULPDU", MPA_MULPDU, MAX_ULPDU as u32, 0xFFFF, "[15:0] MULPDU: ULPDUs of 0 octets or of more than this are dropped whole"),
    rw("MPA_OFFSET", MPA_OFFSET, 0, 0xFFFC, "[15:0] stream offset (mod 2^16, multiple of 4) of the first octet, loaded when the framer leaves reset"),
    ro("MPA_ULPDUS_IN", MPA_ULPDUS_IN, "ULPDUs accepted on mpa_s (dropped ones included)"),
    ro("MPA_FPDUS", MPA_FPDUS, "FPDUs sent on mpa_m"),
    ro("MPA_DROP_ZERO_LEN", MPA_DROP_ZERO_LEN, "ULPDUs dropped: mpa_s_len was 0"),
    ro("MPA_DROP_OVER_MULPDU", MPA_DROP_OVER_MULPDU, "ULPDUs dropped: mpa_s_len above MULPDU"),
    ro("MPA_DROPPED", MPA_DROPPED, "ULPDUs dropped, the framer's own count (= the two reasons above)"),
    rw("MCTP_EIDS", MCTP_EIDS, 0, 0xFFFF, "[7:0] source EID; [15:8] destination EID"),
    rw("MCTP_FLAGS", MCTP_FLAGS, 0, 0x33F, "[2:0] tag; 3: TO; [5:4] first sequence number; 8: append the NVMe-MI MIC; 9: SMBus binding"),
    rw("MCTP_MTU", MCTP_MTU, MIN_MTU as u32, 0xFF, "[7:0] payload octets per packet (64..=251; 250 with SMBus)"),
    rw("MCTP_SMBUS", MCTP_SMBUS, 0, 0x7F7F, "[6:0] SMBus source address; [14:8] destination address (7-bit)"),
    ro("MCTP_MESSAGES_IN", MCTP_MESSAGES_IN, "messages accepted on mctp_s (dropped ones included)"),
    ro("MCTP_PACKETS", MCTP_PACKETS, "packets sent on mctp_m"),
    ro("MCTP_MESSAGES", MCTP_MESSAGES, "messages sent whole"),
    ro("MCTP_DROPPED", MCTP_DROPPED, "messages dropped: a request mctp::transmit refuses (length, MTU, EID, MIC)"),
    ro("MCTP_LEN_ERRORS", MCTP_LEN_ERRORS, "messages whose frame length was not mctp_s_len"),
    rw("MCTP_RX_CONFIG", MCTP_RX_CONFIG, 0x4, 0x7, "bit 0: frames are SMBus frames (PEC checked); bit 1: check and strip the NVMe-MI MIC; bit 2: transmission-unit rules; change under CONTROL bit 2"),
    rw("MCTP_RX_MAX_LEN", MCTP_RX_MAX_LEN, 4224, 0x1FFF, "[12:0] message limit, MIC included (1..=7680); change under CONTROL bit 2"),
    ro("MCTP_RX_FRAMES_IN", MCTP_RX_FRAMES_IN, "frames (packets) accepted on mctp_rx_s"),
    ro("MCTP_RX_MESSAGES", 0x8C, "messages delivered on mctp_rx_m"),
    ro("MCTP_RX_MALFORMED", 0x90, "packets dropped: malformed header or length"),
    ro("MCTP_RX_NO_CONTEXT", 0x94, "packets dropped: middle/end packet with no message in progress"),
    ro("MCTP_RX_BAD_SEQUENCE", 0x98, "messages dropped: sequence number skipped"),
    ro("MCTP_RX_BAD_UNIT_SIZE", 0x9C, "messages dropped: transmission-unit rule broken (strict)"),
    ro("MCTP_RX_RESTARTED", 0xA0, "messages dropped: a new SOM for the same key restarted them"),
    ro("MCTP_RX_TOO_LONG", 0xA4, "messages dropped: over MCTP_RX_MAX_LEN"),
    ro("MCTP_RX_CONTEXTS_FULL", 0xA8, "packets dropped: the one reassembly context is busy with another key"),
    ro("MCTP_RX_BAD_PEC", 0xAC, "SMBus frames dropped: wrong PEC"),
    ro("MCTP_RX_BAD_SMBUS", 0xB0, "SMBus frames dropped: byte count, command code or address bits"),
    ro("MCTP_RX_MIC_ERRORS", 0xB4, "messages dropped: NVMe-MI MIC check (IC bit, length, CRC-32C)"),
    ro("MCTP_RX_OVERSIZE", 0xB8, "raw frames dropped: over the block's 260-octet packet limit"),
    rw("MPA_RX_CONFIG", MPA_RX_CONFIG, 0x3, 0x3, "bit 0: Markers; bit 1: CRC checked (0: the CRC field is ignored); RX's own (each direction negotiates its framing); read live, change between FPDUs"),
    rw("MPA_RX_MULPDU", MPA_RX_MULPDU, MAX_ULPDU as u32, 0xFFFF, "[15:0] MULPDU: a ULPDU_Length of 0 or above this is an error"),
    rw("MPA_RX_OFFSET", MPA_RX_OFFSET, 0, 0xFFFF_FFFC, "stream offset (mod 2^32, multiple of 4) of the first octet on mpa_rx_s, loaded when the receiver leaves reset"),
    ro("MPA_RX_STATUS", MPA_RX_STATUS, "live: [1:0] first error (0 none, 1 CRC, 2 Marker, 3 ULPDU_Length; it stops the stream until CONTROL bit 3); 2: idle (between FPDUs, nothing held)"),
    ro("MPA_RX_ERROR_OFFSET", MPA_RX_ERROR_OFFSET, "live: stream offset (mod 2^32) of the error, as mpa::Deframer reports it"),
    ro("MPA_RX_FOUND", MPA_RX_FOUND, "live: what the stream held: the CRC field, FPDUPTR or ULPDU_Length"),
    ro("MPA_RX_EXPECTED", MPA_RX_EXPECTED, "live: what was due: the CRC computed, the FPDUPTR due, or MULPDU"),
    ro("MPA_RX_SEGMENTS_IN", MPA_RX_SEGMENTS_IN, "frames (TCP segments) accepted on mpa_rx_s"),
    ro("MPA_RX_FPDUS", MPA_RX_FPDUS, "good FPDUs: ULPDUs whose mpa_rx_m frame ended good"),
    ro("MPA_RX_BAD_CRC", MPA_RX_BAD_CRC, "FPDUs with a bad CRC (at most 1 per reset)"),
    ro("MPA_RX_BAD_MARKER", MPA_RX_BAD_MARKER, "bad Markers (at most 1 per reset)"),
    ro("MPA_RX_BAD_LENGTH", MPA_RX_BAD_LENGTH, "bad ULPDU_Lengths (at most 1 per reset)"),
];

/// The register at `offset`, if mapped.
pub fn register(offset: u8) -> Option<&'static Register> {
    MAP.iter().find(|r| r.offset == offset & !3)
}

/// The map as a Markdown table (offset, name, access, reset, meaning), for the docs.
pub fn markdown_table() -> String {
    let mut s = String::from(
        "| offset | name | access | reset | meaning |\n| --- | --- | --- | --- | --- |\n",
    );
    for r in MAP {
        let (acc, reset) = match r.access {
            Access::Ro => ("RO", "-".to_string()),
            Access::Rw { reset, .. } => ("RW", format!("0x{reset:X}")),
        };
        s.push_str(&format!(
            "| 0x{:02X} | {} | {acc} | {reset} | {} |\n",
            r.offset, r.name, r.doc
        ));
    }
    s
}

/// Why a register access or a configuration failed.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// The bus itself failed (device gone, a simulation that stopped acknowledging).
    #[error("register bus: {0}")]
    Bus(String),
    #[error("register offset 0x{0:02X} is not a multiple of 4 inside 0x00..=0xFC")]
    Offset(u32),
    #[error("ID register reads 0x{found:08X}, not 0x{ID_VALUE:08X}: not an offload top")]
    NotOffload { found: u32 },
    #[error("register map version {found}, this driver knows {MAP_VERSION}")]
    Version { found: u16 },
    #[error(transparent)]
    Mpa(#[from] MpaError),
    #[error(transparent)]
    Mctp(#[from] MctpError),
}

/// 32-bit register reads and writes at byte offsets: what the driver needs from a transport.
pub trait RegisterBus {
    fn read(&mut self, offset: u8) -> Result<u32, RegisterError>;
    fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError>;
}

impl<B: RegisterBus + ?Sized> RegisterBus for &mut B {
    fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
        (**self).read(offset)
    }
    fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
        (**self).write(offset, value)
    }
}

/// The MCTP RX block's static configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MctpRxConfig {
    /// Frames are SMBus frames (DSP0237, PEC checked).
    pub smbus: bool,
    /// Check and strip the NVMe-MI MIC.
    pub mic: bool,
    /// Transmission-unit rules (`ReassemblyConfig::strict_unit_size`).
    pub strict: bool,
    /// Message limit, MIC included, `1..=MCTP_RX_MAX_LEN_LIMIT`.
    pub max_len: usize,
}

/// Widths the hardware was built with, from `VERSION`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    pub map_version: u16,
    pub mpa_tx_width: u8,
    pub mctp_tx_width: u8,
}

/// Every counter, read in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub mpa_ulpdus_in: u32,
    pub mpa_fpdus: u32,
    pub mpa_drop_zero_len: u32,
    pub mpa_drop_over_mulpdu: u32,
    pub mpa_dropped: u32,
    pub mctp_messages_in: u32,
    pub mctp_packets: u32,
    pub mctp_messages: u32,
    pub mctp_dropped: u32,
    pub mctp_len_errors: u32,
    pub mctp_rx_frames_in: u32,
    /// The RX block's counters, in [`MCTP_RX_COUNTERS`] order.
    pub mctp_rx: [u32; 12],
    pub mpa_rx_segments_in: u32,
    pub mpa_rx_fpdus: u32,
    pub mpa_rx_bad_crc: u32,
    pub mpa_rx_bad_marker: u32,
    pub mpa_rx_bad_length: u32,
}

/// The MPA receiver's status registers, read in one pass (live values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MpaRxStatus {
    /// `MPA_RX_STATUS[1:0]`: `mpa::hardware::ERR_*`.
    pub error: u32,
    /// Between FPDUs with nothing held: a stream may end here.
    pub idle: bool,
    /// `MPA_RX_ERROR_OFFSET`, `MPA_RX_FOUND`, `MPA_RX_EXPECTED`.
    pub offset: u32,
    pub found: u32,
    pub expected: u32,
}

impl MpaRxStatus {
    /// The error the status describes, its offset widened for a stream that began at
    /// `start_offset` (`MPA_RX_OFFSET`, before its reduction mod 2^32).
    pub fn error(&self, start_offset: u64) -> Option<MpaError> {
        hardware::hardware_error(
            self.error as u64,
            self.offset as u64,
            self.found as u64,
            self.expected as u64,
            start_offset,
        )
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MPA: {} ULPDUs in, {} FPDUs out, dropped {} zero-length + {} over MULPDU; \
             MCTP: {} messages in, {} packets / {} messages out, {} refused, {} length errors; \
             MCTP RX: {} frames in, counters {:?}; MPA RX: {} segments in, {} FPDUs, bad CRC {} / \
             Marker {} / length {}",
            self.mpa_ulpdus_in,
            self.mpa_fpdus,
            self.mpa_drop_zero_len,
            self.mpa_drop_over_mulpdu,
            self.mctp_messages_in,
            self.mctp_packets,
            self.mctp_messages,
            self.mctp_dropped,
            self.mctp_len_errors,
            self.mctp_rx_frames_in,
            self.mctp_rx,
            self.mpa_rx_segments_in,
            self.mpa_rx_fpdus,
            self.mpa_rx_bad_crc,
            self.mpa_rx_bad_marker,
            self.mpa_rx_bad_length
        )
    }
}

/// The register-level driver of an `OffloadTop`.
#[derive(Debug)]
pub struct OffloadRegs<B: RegisterBus> {
    bus: B,
    caps: Capabilities,
}

impl<B: RegisterBus> OffloadRegs<B> {
    /// Checks `ID` and the map version, then returns the driver.
    pub fn open(mut bus: B) -> Result<Self, RegisterError> {
        let id = bus.read(ID)?;
        if id != ID_VALUE {
            return Err(RegisterError::NotOffload { found: id });
        }
        let v = bus.read(VERSION)?;
        let caps = Capabilities {
            map_version: (v >> 16) as u16,
            mctp_tx_width: (v >> 8) as u8,
            mpa_tx_width: v as u8,
        };
        if caps.map_version != MAP_VERSION {
            return Err(RegisterError::Version {
                found: caps.map_version,
            });
        }
        Ok(OffloadRegs { bus, caps })
    }

    pub fn capabilities(&self) -> Capabilities {
        self.caps
    }

    pub fn bus(&mut self) -> &mut B {
        &mut self.bus
    }

    pub fn into_bus(self) -> B {
        self.bus
    }

    pub fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
        check_offset(offset)?;
        self.bus.read(offset)
    }

    pub fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
        check_offset(offset)?;
        self.bus.write(offset, value)
    }

    /// Sets the MPA framing and the stream offset of the next FPDU, and restarts the framer
    /// (which loads the offset and clears its counters). The same refusals as
    /// `mpa::Framer::new`.
    pub fn configure_mpa(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
    ) -> Result<(), RegisterError> {
        let c = framing_bits(config, start_offset)?;
        // Markers depend on the offset mod 512, so mod 2^16 is exact.
        let offset = (start_offset & 0xFFFC) as u32;
        self.under_reset(CONTROL_MPA_RESET, &[(MPA_CONFIG, c), (MPA_MULPDU, config.mulpdu as u32), (MPA_OFFSET, offset)])
    }

    /// Holds `reset` (a `CONTROL` bit) while `writes` are made, then releases it: the block
    /// restarts with them (and with its counters cleared).
    fn under_reset(&mut self, reset: u32, writes: &[(u8, u32)]) -> Result<(), RegisterError> {
        let control = self.bus.read(CONTROL)?;
        self.bus.write(CONTROL, control | reset)?;
        for &(offset, value) in writes {
            self.bus.write(offset, value)?;
        }
        self.bus.write(CONTROL, control & !reset)
    }

    /// Sets the MCTP header fields, MIC and SMBus binding of the next messages. Refuses what
    /// `mctp::transmit` refuses about the request itself, so every field fits its register.
    pub fn configure_mctp(&mut self, request: &TxRequest) -> Result<(), RegisterError> {
        let c = &request.config;
        c.validate()?;
        if request.smbus.is_some() && c.mtu > SMBUS_MAX_MTU {
            return Err(MctpError::SmbusMtu {
                mtu: c.mtu,
                max: SMBUS_MAX_MTU,
            }
            .into());
        }
        let mut flags =
            (c.tag as u32) << MCTP_FLAGS_TAG_SHIFT | (c.start_seq as u32) << MCTP_FLAGS_SEQ_SHIFT;
        if c.tag_owner {
            flags |= MCTP_FLAGS_TO;
        }
        if request.append_mic {
            flags |= MCTP_FLAGS_MIC;
        }
        let mut smbus = 0;
        if let Some(a) = &request.smbus {
            for (field, addr) in [("source", a.src), ("destination", a.dst)] {
                if addr > 0x7F {
                    return Err(
                        MctpError::Smbus(SmbusError::AddressOutOfRange { field, addr }).into(),
                    );
                }
            }
            flags |= MCTP_FLAGS_SMBUS;
            smbus = a.src as u32 | (a.dst as u32) << 8;
        }
        self.bus
            .write(MCTP_EIDS, c.src as u32 | (c.dst as u32) << 8)?;
        self.bus.write(MCTP_FLAGS, flags)?;
        self.bus.write(MCTP_MTU, c.mtu as u32)?;
        self.bus.write(MCTP_SMBUS, smbus)
    }

    /// Sets the MCTP RX configuration (binding, MIC check, unit rules, message limit) under
    /// `CONTROL.MCTP_RX_RESET`, as the block requires; its counters restart at 0.
    pub fn configure_mctp_rx(&mut self, config: &MctpRxConfig) -> Result<(), RegisterError> {
        if config.max_len == 0 || config.max_len > MCTP_RX_MAX_LEN_LIMIT {
            return Err(MctpError::InvalidReassemblyConfig {
                reason: "message limit outside 1..=7680 (the RX block's ring)",
            }
            .into());
        }
        let mut c = 0;
        if config.smbus {
            c |= MCTP_RX_SMBUS;
        }
        if config.mic {
            c |= MCTP_RX_MIC;
        }
        if config.strict {
            c |= MCTP_RX_STRICT;
        }
        self.under_reset(CONTROL_MCTP_RX_RESET, &[(MCTP_RX_CONFIG, c), (MCTP_RX_MAX_LEN, config.max_len as u32)])
    }

    /// Pulses `CONTROL.MCTP_RESET`: the packetizer drops what it holds and clears its counters.
    pub fn reset_mctp(&mut self) -> Result<(), RegisterError> {
        self.under_reset(CONTROL_MCTP_RESET, &[])
    }

    pub fn counters(&mut self) -> Result<Counters, RegisterError> {
        let mut r = |o| self.bus.read(o);
        Ok(Counters {
            mpa_ulpdus_in: r(MPA_ULPDUS_IN)?,
            mpa_fpdus: r(MPA_FPDUS)?,
            mpa_drop_zero_len: r(MPA_DROP_ZERO_LEN)?,
            mpa_drop_over_mulpdu: r(MPA_DROP_OVER_MULPDU)?,
            mpa_dropped: r(MPA_DROPPED)?,
            mctp_messages_in: r(MCTP_MESSAGES_IN)?,
            mctp_packets: r(MCTP_PACKETS)?,
            mctp_messages: r(MCTP_MESSAGES)?,
            mctp_dropped: r(MCTP_DROPPED)?,
            mctp_len_errors: r(MCTP_LEN_ERRORS)?,
            mctp_rx_frames_in: r(MCTP_RX_FRAMES_IN)?,
            mctp_rx: {
                let mut v = [0; 12];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = r(MCTP_RX_MESSAGES + 4 * i as u8)?;
                }
                v
            },
            mpa_rx_segments_in: r(MPA_RX_SEGMENTS_IN)?,
            mpa_rx_fpdus: r(MPA_RX_FPDUS)?,
            mpa_rx_bad_crc: r(MPA_RX_BAD_CRC)?,
            mpa_rx_bad_marker: r(MPA_RX_BAD_MARKER)?,
            mpa_rx_bad_length: r(MPA_RX_BAD_LENGTH)?,
        })
    }

    /// Sets the MPA receiver's framing and the stream offset of the first octet it will see,
    /// and restarts it under `CONTROL.MPA_RX_RESET` (it loads the offset, clears its status and
    /// counters). The same refusals as `mpa::Deframer::new`.
    pub fn configure_mpa_rx(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
    ) -> Result<(), RegisterError> {
        let c = framing_bits(config, start_offset)?;
        // Mod 2^32: the status offsets are widened back against the full start offset.
        let writes = [(MPA_RX_CONFIG, c), (MPA_RX_MULPDU, config.mulpdu as u32), (MPA_RX_OFFSET, start_offset as u32)];
        self.under_reset(CONTROL_MPA_RX_RESET, &writes)
    }

    /// Pulses `CONTROL.MPA_RX_RESET`: the receiver drops what it holds, reloads
    /// `MPA_RX_OFFSET` and clears its status and counters.
    pub fn reset_mpa_rx(&mut self) -> Result<(), RegisterError> {
        self.under_reset(CONTROL_MPA_RX_RESET, &[])
    }

    /// The MPA receiver's status registers.
    pub fn mpa_rx_status(&mut self) -> Result<MpaRxStatus, RegisterError> {
        let s = self.bus.read(MPA_RX_STATUS)?;
        Ok(MpaRxStatus {
            error: s & MPA_RX_STATUS_ERROR_MASK,
            idle: s & MPA_RX_STATUS_IDLE != 0,
            offset: self.bus.read(MPA_RX_ERROR_OFFSET)?,
            found: self.bus.read(MPA_RX_FOUND)?,
            expected: self.bus.read(MPA_RX_EXPECTED)?,
        })
    }
}

/// Checks a message's length against the hardware's `s_len` port and the MCTP limits, the
/// refusals the packetizer would otherwise count as drops.
pub fn check_mctp_message(request: &TxRequest, message: &[u8]) -> Result<(), RegisterError> {
    let Some(&first) = message.first() else {
        return Err(MctpError::EmptyMessage.into());
    };
    let mut total = message.len();
    if request.append_mic {
        if first & crate::nvme_mi::IC_BIT == 0 {
            return Err(MctpError::IcBitClear { first }.into());
        }
        total += crate::nvme_mi::MIC_LEN;
        crate::nvme_mi::check_oob_len(total).map_err(MctpError::from)?;
    }
    if total > MAX_MESSAGE_LEN {
        return Err(MctpError::MessageTooLong {
            len: total,
            max: MAX_MESSAGE_LEN,
        }
        .into());
    }
    Ok(())
}

/// `MPA_CONFIG` / `MPA_RX_CONFIG` (one layout) for `config`, after the refusals the software
/// framer and deframer make of a configuration.
fn framing_bits(config: &FramingConfig, start_offset: u64) -> Result<u32, RegisterError> {
    if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
        return Err(MpaError::Mulpdu(config.mulpdu).into());
    }
    if start_offset % 4 != 0 {
        return Err(MpaError::MisalignedOffset(start_offset).into());
    }
    Ok(if config.markers { MPA_CONFIG_MARKERS } else { 0 } | if config.crc { MPA_CONFIG_CRC } else { 0 })
}

fn check_offset(offset: u8) -> Result<(), RegisterError> {
    if offset % 4 != 0 {
        return Err(RegisterError::Offset(offset as u32));
    }
    Ok(())
}

/// What `TopStreams::stream` returns: the FPDUs (`mpa_m`) and the MCTP packets (`mctp_m`).
pub type StreamOutput = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// What `TopStreams::stream_mpa_rx` returns: the `mpa_rx_m` frames (ULPDUs, or the part of a
/// bad one passed before its verdict), each with `mpa_rx_m_tuser` of its last beat (bad).
pub type MpaRxFrames = Vec<(Vec<u8>, bool)>;

/// The streams of an `OffloadTop`, as a transport moves them: the MPA TX input and output and
/// the MCTP TX input and output, whole frames each way.
pub trait TopStreams {
    /// Sends `ulpdus` into `mpa_s` and `messages` into `mctp_s` (concurrently where the
    /// transport can) and returns what `mpa_m` (one FPDU per frame) and `mctp_m` (one packet per
    /// frame) produced once both inputs are in and the outputs have gone quiet.
    fn stream(
        &mut self,
        ulpdus: &[Vec<u8>],
        messages: &[Vec<u8>],
    ) -> Result<StreamOutput, RegisterError>;

    /// Sends packets (one frame each) into `mctp_rx_s` and returns the messages `mctp_rx_m`
    /// delivered, with their header fields. Transports without the RX path refuse.
    fn stream_rx(
        &mut self,
        frames: &[Vec<u8>],
    ) -> Result<Vec<crate::mctp::Message>, RegisterError> {
        let _ = frames;
        Err(RegisterError::Bus(
            "this transport does not carry the MCTP RX path".into(),
        ))
    }

    /// Sends `segments` (TCP payload, one frame each; their boundaries mean nothing to the
    /// receiver) into `mpa_rx_s` and returns the frames `mpa_rx_m` produced with their verdicts
    /// once the input is in and the output has gone quiet. Transports without the MPA RX path
    /// refuse.
    fn stream_mpa_rx(&mut self, segments: &[Vec<u8>]) -> Result<MpaRxFrames, RegisterError> {
        let _ = segments;
        Err(RegisterError::Bus(
            "this transport does not carry the MPA RX path".into(),
        ))
    }

    /// Whether [`TopStreams::stream_mpa_rx`] is carried: without it `TopOffload::mpa_deframe`
    /// answers `Unsupported` (the board's FrontPanel bridge does not carry it yet).
    fn carries_mpa_rx(&self) -> bool {
        false
    }

    /// Whether [`TopStreams::stream_rx`] is carried: without it `TopOffload::mctp_receive`
    /// answers `Unsupported` (the board's FrontPanel bridge does not carry it yet).
    fn carries_mctp_rx(&self) -> bool {
        false
    }

    /// Clock cycles the hardware has run, when the transport knows (a simulation does).
    fn cycles(&self) -> Option<u64> {
        None
    }
}

/// The [`Offload`](crate::Offload) backend over any transport to an `OffloadTop`: configures
/// through the registers, streams, and checks the counters against what came back. The
/// Verilated top (`offload-sim`) and the XEM7010 board (FrontPanel, feature `board`) are two
/// transports of this one backend.
pub struct TopOffload<T: RegisterBus + TopStreams> {
    regs: OffloadRegs<T>,
    name: &'static str,
}

impl<T: RegisterBus + TopStreams> TopOffload<T> {
    /// `name` is the backend name the CLI and errors use (`sim-top`, `ok`).
    pub fn open(transport: T, name: &'static str) -> Result<Self, RegisterError> {
        Ok(TopOffload {
            regs: OffloadRegs::open(transport)?,
            name,
        })
    }

    pub fn regs(&mut self) -> &mut OffloadRegs<T> {
        &mut self.regs
    }

    fn backend_err(&self, e: RegisterError) -> crate::OffloadError {
        match e {
            RegisterError::Mpa(e) => e.into(),
            RegisterError::Mctp(e) => e.into(),
            e => crate::OffloadError::Backend {
                backend: self.name,
                message: e.to_string(),
            },
        }
    }

    fn failed(&self, message: String) -> crate::OffloadError {
        crate::OffloadError::Backend {
            backend: self.name,
            message,
        }
    }
}

impl<T: RegisterBus + TopStreams> crate::Offload for TopOffload<T> {
    fn backend(&self) -> &'static str {
        self.name
    }

    fn cycles(&self) -> Option<u64> {
        self.regs.bus.cycles()
    }

    fn crc(
        &mut self,
        _kind: crate::crc::CrcKind,
        _data: &[u8],
    ) -> Result<u64, crate::OffloadError> {
        Err(crate::OffloadError::Unsupported {
            backend: self.name,
            operation: "CRC (OffloadTop has no bare CRC engine)",
        })
    }

    fn mpa_frame(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        ulpdus: &[Vec<u8>],
    ) -> Result<Vec<u8>, crate::OffloadError> {
        // The software framer's refusals first: the hardware would drop and count them.
        if let Some(u) = ulpdus
            .iter()
            .find(|u| u.is_empty() || u.len() > config.mulpdu)
        {
            if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
                return Err(MpaError::Mulpdu(config.mulpdu).into());
            }
            return Err(MpaError::UlpduLength {
                len: u.len(),
                mulpdu: config.mulpdu,
            }
            .into());
        }
        self.regs
            .configure_mpa(config, start_offset)
            .map_err(|e| self.backend_err(e))?;
        let (fpdus, _) = self
            .regs
            .bus
            .stream(ulpdus, &[])
            .map_err(|e| self.backend_err(e))?;
        let c = self.regs.counters().map_err(|e| self.backend_err(e))?;
        let n = ulpdus.len() as u32;
        if fpdus.len() != ulpdus.len()
            || c.mpa_ulpdus_in != n
            || c.mpa_fpdus != n
            || c.mpa_dropped != 0
        {
            return Err(self.failed(format!(
                "{n} ULPDUs in, {} FPDUs out; counters: {c}",
                fpdus.len()
            )));
        }
        Ok(fpdus.concat())
    }

    fn mpa_deframe(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        stream: &[u8],
    ) -> Result<crate::Deframed, crate::OffloadError> {
        // The software deframer's refusals of a configuration, before anything reaches the
        // hardware.
        crate::mpa::Deframer::new(*config, start_offset)?;
        if !self.regs.bus.carries_mpa_rx() {
            return Err(crate::OffloadError::Unsupported {
                backend: self.name,
                operation: "MPA deframing (this transport does not carry the MPA RX path)",
            });
        }
        self.regs
            .configure_mpa_rx(config, start_offset)
            .map_err(|e| self.backend_err(e))?;
        let segments: Vec<Vec<u8>> = stream.chunks(1 << 16).map(<[u8]>::to_vec).collect();
        let frames = self
            .regs
            .bus
            .stream_mpa_rx(&segments)
            .map_err(|e| self.backend_err(e))?;
        let status = self.regs.mpa_rx_status().map_err(|e| self.backend_err(e))?;
        let c = self.regs.counters().map_err(|e| self.backend_err(e))?;
        // The error counters say what the status says: one error at most, then a stop.
        let bad = [c.mpa_rx_bad_crc, c.mpa_rx_bad_marker, c.mpa_rx_bad_length];
        let due = [hardware::ERR_CRC, hardware::ERR_MARKER, hardware::ERR_LENGTH]
            .map(|k| (status.error as u64 == k) as u32);
        if c.mpa_rx_segments_in != segments.len() as u32 || bad != due {
            return Err(self.failed(format!(
                "{} segments in; status {status:?}; counters: {c}",
                segments.len()
            )));
        }
        hardware::deframed_from_hardware(
            frames,
            status.error(start_offset),
            status.idle,
            c.mpa_rx_fpdus as u64,
            start_offset + stream.len() as u64,
        )
        .map_err(|e| self.failed(e))
    }

    fn mctp_transmit(
        &mut self,
        request: &TxRequest,
        message: &[u8],
    ) -> Result<Vec<Vec<u8>>, crate::OffloadError> {
        self.regs
            .configure_mctp(request)
            .map_err(|e| self.backend_err(e))?;
        check_mctp_message(request, message).map_err(|e| self.backend_err(e))?;
        let before = self.regs.counters().map_err(|e| self.backend_err(e))?;
        let (_, packets) = self
            .regs
            .bus
            .stream(&[], &[message.to_vec()])
            .map_err(|e| self.backend_err(e))?;
        let c = self.regs.counters().map_err(|e| self.backend_err(e))?;
        let d = |a: u32, b: u32| a.wrapping_sub(b);
        if d(c.mctp_messages, before.mctp_messages) != 1
            || d(c.mctp_packets, before.mctp_packets) != packets.len() as u32
            || d(c.mctp_dropped, before.mctp_dropped) != 0
            || d(c.mctp_len_errors, before.mctp_len_errors) != 0
        {
            return Err(self.failed(format!(
                "1 message in, {} packets out; counters before: {before}; after: {c}",
                packets.len()
            )));
        }
        Ok(packets)
    }

    fn mctp_receive(
        &mut self,
        request: &crate::mctp::RxRequest,
        frames: &[Vec<u8>],
    ) -> Result<crate::mctp::RxReport, crate::OffloadError> {
        use crate::mctp::rx_block;
        let name = self.name;
        let config = rx_block::block_config(request).map_err(|e| e.into_offload(name))?;
        if !self.regs.bus.carries_mctp_rx() {
            return Err(crate::OffloadError::Unsupported {
                backend: name,
                operation: "MCTP receive (this transport does not carry the MCTP RX path)",
            });
        }
        self.regs
            .configure_mctp_rx(&config)
            .map_err(|e| self.backend_err(e))?;
        let regs = &mut self.regs;
        rx_block::receive_through_block(request, frames, |f| {
            let before = regs.counters().map_err(|e| e.to_string())?.mctp_rx;
            let messages = regs.bus.stream_rx(&[f.to_vec()]).map_err(|e| e.to_string())?;
            let after = regs.counters().map_err(|e| e.to_string())?.mctp_rx;
            Ok((messages, std::array::from_fn(|i| after[i].wrapping_sub(before[i]) as u64)))
        })
        .map_err(|e| e.into_offload(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mctp::{SmbusAddresses, TxConfig};

    /// A bus over a plain array that applies the map's access rules (RW masks, RO ignored):
    /// the driver's writes can be read back as the hardware would return them.
    struct ArrayBus {
        regs: [u32; 64],
        writes: Vec<(u8, u32)>,
    }

    impl ArrayBus {
        fn new() -> Self {
            let mut regs = [0; 64];
            regs[ID as usize / 4] = ID_VALUE;
            regs[VERSION as usize / 4] = (MAP_VERSION as u32) << 16 | 4 << 8 | 4;
            for r in MAP {
                if let Access::Rw { reset, .. } = r.access {
                    regs[r.offset as usize / 4] = reset;
                }
            }
            ArrayBus {
                regs,
                writes: Vec::new(),
            }
        }
    }

    impl RegisterBus for ArrayBus {
        fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
            Ok(self.regs[offset as usize / 4])
        }
        fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
            self.writes.push((offset, value));
            if let Some(Register {
                access: Access::Rw { mask, .. },
                ..
            }) = register(offset)
            {
                self.regs[offset as usize / 4] = value & mask;
            }
            Ok(())
        }
    }

    #[test]
    fn map_is_ordered_aligned_unique_and_masks_hold_resets() {
        for w in MAP.windows(2) {
            assert!(
                w[0].offset < w[1].offset,
                "{} before {}",
                w[0].name,
                w[1].name
            );
        }
        for r in MAP {
            assert_eq!(r.offset % 4, 0, "{}", r.name);
            if let Access::Rw { reset, mask } = r.access {
                assert_eq!(reset & !mask, 0, "{}: reset value outside its mask", r.name);
            }
        }
        assert!(markdown_table().contains("| 0x14 | MPA_MULPDU | RW | 0xFD00 |"));
        for (i, name) in MCTP_RX_COUNTERS.iter().enumerate() {
            assert_eq!(
                register(MCTP_RX_MESSAGES + 4 * i as u8).map(|r| r.name),
                Some(*name)
            );
            // The register of the block's counter port of the same place and name.
            let port = crate::mctp::RX_COUNTERS[i];
            assert_eq!(*name, format!("MCTP_RX_{}", port.to_ascii_uppercase()));
        }
    }

    #[test]
    fn docs_top_md_has_this_map() {
        let doc = include_str!("../../docs/TOP.md");
        let table = markdown_table();
        assert!(
            doc.contains(&table),
            "docs/TOP.md's register table is stale; it should read:\n{table}"
        );
    }

    #[test]
    fn open_checks_id_and_version() {
        let regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        assert_eq!(
            regs.capabilities(),
            Capabilities {
                map_version: 2,
                mpa_tx_width: 4,
                mctp_tx_width: 4
            }
        );
        let mut bus = ArrayBus::new();
        bus.regs[0] = 0xDEAD_BEEF;
        assert!(matches!(
            OffloadRegs::open(bus),
            Err(RegisterError::NotOffload { found: 0xDEAD_BEEF })
        ));
        // A map-1 bitstream (no MPA RX registers) is refused.
        let mut bus = ArrayBus::new();
        bus.regs[1] = 1 << 16 | 0x0404;
        assert!(matches!(
            OffloadRegs::open(bus),
            Err(RegisterError::Version { found: 1 })
        ));
    }

    #[test]
    fn configure_mpa_writes_the_fields_inside_a_reset_pulse() {
        let mut regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        let cfg = FramingConfig {
            markers: false,
            crc: true,
            mulpdu: 1442,
        };
        regs.configure_mpa(&cfg, 0x1_01EC).unwrap();
        let w = &regs.bus().writes;
        assert_eq!(
            w.as_slice(),
            &[
                (CONTROL, 1),
                (MPA_CONFIG, 2),
                (MPA_MULPDU, 1442),
                (MPA_OFFSET, 0x01EC),
                (CONTROL, 0)
            ]
        );
        assert!(matches!(
            regs.configure_mpa(&cfg, 6),
            Err(RegisterError::Mpa(MpaError::MisalignedOffset(6)))
        ));
        let bad = FramingConfig {
            mulpdu: MAX_ULPDU + 1,
            ..cfg
        };
        assert!(matches!(
            regs.configure_mpa(&bad, 0),
            Err(RegisterError::Mpa(MpaError::Mulpdu(_)))
        ));
    }

    #[test]
    fn configure_mpa_rx_writes_the_fields_inside_a_reset_pulse() {
        let mut regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        let cfg = FramingConfig {
            markers: true,
            crc: false,
            mulpdu: 8882,
        };
        regs.configure_mpa_rx(&cfg, 0x1_0000_01EC).unwrap();
        assert_eq!(
            regs.bus().writes.as_slice(),
            &[
                (CONTROL, CONTROL_MPA_RX_RESET),
                (MPA_RX_CONFIG, 1),
                (MPA_RX_MULPDU, 8882),
                (MPA_RX_OFFSET, 0x01EC),
                (CONTROL, 0)
            ]
        );
        assert!(matches!(
            regs.configure_mpa_rx(&cfg, 2),
            Err(RegisterError::Mpa(MpaError::MisalignedOffset(2)))
        ));
        let bad = FramingConfig { mulpdu: 0, ..cfg };
        assert!(matches!(
            regs.configure_mpa_rx(&bad, 0),
            Err(RegisterError::Mpa(MpaError::Mulpdu(0)))
        ));
        // Status: code, idle bit, the error widened against the start offset.
        regs.bus().regs[MPA_RX_STATUS as usize / 4] = 1 | MPA_RX_STATUS_IDLE;
        regs.bus().regs[MPA_RX_ERROR_OFFSET as usize / 4] = 0x200;
        regs.bus().regs[MPA_RX_FOUND as usize / 4] = 5;
        regs.bus().regs[MPA_RX_EXPECTED as usize / 4] = 6;
        let st = regs.mpa_rx_status().unwrap();
        assert_eq!((st.error, st.idle), (1, true));
        assert_eq!(
            st.error(0x1_0000_01EC),
            Some(MpaError::BadCrc {
                offset: 0x1_0000_0200,
                computed: 6,
                found: 5
            })
        );
    }

    #[test]
    fn configure_mctp_packs_flags_and_refuses_what_transmit_refuses() {
        let mut regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        let mut config = TxConfig::new(0x10, 0x20, 5, true);
        config.start_seq = 2;
        config.mtu = 100;
        let req = TxRequest {
            config,
            append_mic: true,
            smbus: Some(SmbusAddresses {
                src: 0x21,
                dst: 0x1D,
            }),
        };
        regs.configure_mctp(&req).unwrap();
        assert_eq!(regs.read(MCTP_EIDS).unwrap(), 0x2010);
        assert_eq!(
            regs.read(MCTP_FLAGS).unwrap(),
            5 | 1 << 3 | 2 << 4 | 1 << 8 | 1 << 9
        );
        assert_eq!(regs.read(MCTP_MTU).unwrap(), 100);
        assert_eq!(regs.read(MCTP_SMBUS).unwrap(), 0x1D21);
        let bad_eid = TxRequest {
            config: TxConfig::new(3, 0x20, 0, true),
            ..req
        };
        assert!(matches!(
            regs.configure_mctp(&bad_eid),
            Err(RegisterError::Mctp(MctpError::InvalidEid { .. }))
        ));
        let bad_addr = TxRequest {
            smbus: Some(SmbusAddresses { src: 0x80, dst: 1 }),
            ..req
        };
        assert!(regs.configure_mctp(&bad_addr).is_err());
        let mut big = req;
        big.config.mtu = 251;
        assert!(matches!(
            regs.configure_mctp(&big),
            Err(RegisterError::Mctp(MctpError::SmbusMtu { .. }))
        ));
        assert!(matches!(regs.write(0x03, 0), Err(RegisterError::Offset(3))));
    }

    #[test]
    fn message_checks() {
        let req = TxRequest {
            config: TxConfig::new(0x10, 0x20, 0, true),
            append_mic: true,
            smbus: None,
        };
        assert!(check_mctp_message(&req, &[]).is_err());
        assert!(
            check_mctp_message(&req, &[0x04]).is_err(),
            "IC bit clear with a MIC"
        );
        assert!(check_mctp_message(&req, &[0x84, 1, 2]).is_ok());
    }
}
