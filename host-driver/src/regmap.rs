//! The register map of `OffloadTop`: every address, field, reset value and counter list,
//! defined once here and read by the Verilog generator (`offload-hdl`'s `top` module), the
//! docs table (docs/TOP.md) and the host driver ([`crate::registers`]). Constants only: the map
//! depends on nothing but the protocol limits it names, so every other module may use it.
//!
//! 32-bit registers at byte offsets `0x00..=0xFC` (8-bit byte address, bits 1:0 ignored);
//! unmapped ones read 0 and ignore writes, as do writes to read-only registers.

use crate::mctp::MIN_MTU;
use crate::mpa::MAX_ULPDU;

/// `ID`: "OFLD" in ASCII.
pub const ID_VALUE: u32 = 0x4F46_4C44;
/// Version of this map, in `VERSION[31:16]`; the driver refuses any other.
pub const MAP_VERSION: u16 = 3;
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
/// `0xF0..=0xFB`: the MCTP RX depacketizer's last drop, as it judged it (decoded by
/// [`crate::mctp::rx_block::DropRecord`]); map version 3 added them.
pub const MCTP_RX_DROP: u8 = 0xF0;
pub const MCTP_RX_DROP_CONTEXT: u8 = 0xF4;
pub const MCTP_RX_DROP_LENGTH: u8 = 0xF8;
/// `MCTP_RX_DROP` fields: `[3:0]` the counter's place, then these.
pub const MCTP_RX_DROP_SEQ_SHIFT: u32 = 4;
pub const MCTP_RX_DROP_OPEN: u32 = 1 << 6;
pub const MCTP_RX_DROP_TOGGLE: u32 = 1 << 7;
pub const MCTP_RX_DROP_HEADER_SHIFT: u32 = 8;
/// `MCTP_RX_DROP_CONTEXT`: the key in `[19:0]`, the unit from here; `MCTP_RX_DROP_LENGTH`:
/// the payload in `[8:0]`, the message's octets from here.
pub const MCTP_RX_DROP_UNIT_SHIFT: u32 = 20;
pub const MCTP_RX_DROP_MESSAGE_SHIFT: u32 = 16;
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
    ro("VERSION", VERSION, "[31:16] map version (3); [15:8] MCTP TX octets/beat; [7:0] MPA TX octets/beat"),
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
    ro("MCTP_RX_DROP", MCTP_RX_DROP, "the last drop: [3:0] its counter's place in MCTP_RX_COUNTERS (0: none since reset); [5:4] the sequence number the context expected; 6: a context was open; 7: toggles with every drop; [15:8] [23:16] [31:24] the packet's header octets 1-3 (destination EID, source EID, flags) as found"),
    ro("MCTP_RX_DROP_CONTEXT", MCTP_RX_DROP_CONTEXT, "the open context at the last drop: [7:0] destination EID; [15:8] source EID; [18:16] tag; 19: TO; [28:20] its transmission unit (first packet's payload octets)"),
    ro("MCTP_RX_DROP_LENGTH", MCTP_RX_DROP_LENGTH, "the last drop's lengths: [8:0] the packet's payload octets (mod 512: a packet the block takes has at most 256); [28:16] the message's octets with it"),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
