//! The 24-octet FC frame header (FC-FS; the draft's Fig. 5) and its F_CTL bits.
//!
//! ```text
//! word 0: R_CTL  | D_ID (24)
//! word 1: CS_CTL | S_ID (24)
//! word 2: TYPE   | F_CTL (24)
//! word 3: SEQ_ID | DF_CTL | SEQ_CNT (16)
//! word 4: OX_ID (16)      | RX_ID (16)
//! word 5: Parameter (32)
//! ```
//! All fields big-endian.

use super::FcError;

pub const HEADER_LEN: usize = 24;

/// R_CTL values the draft names for SCSI-FCP (routing "device data", information category).
pub mod r_ctl {
    /// Solicited data (FCP_DATA).
    pub const SOLICITED_DATA: u8 = 0x01;
    /// Data descriptor (FCP_XFER_RDY).
    pub const DATA_DESCRIPTOR: u8 = 0x05;
    /// Unsolicited command (FCP_CMND).
    pub const UNSOLICITED_COMMAND: u8 = 0x06;
    /// Command status (FCP_RSP).
    pub const COMMAND_STATUS: u8 = 0x07;
}

/// TYPE values.
pub mod fc_type {
    /// SCSI-FCP.
    pub const SCSI_FCP: u8 = 0x08;
}

/// The "unassigned" exchange ID (an initiator's OX_ID must not be it; RX_ID is it until the
/// responder assigns one).
pub const UNASSIGNED_XID: u16 = 0xFFFF;

/// The 24-bit Frame Control field. The draft numbers its bits from the most significant bit
/// of the TYPE|F_CTL word ("bit 8 = From Responder"); PROTOCOL-NOTES maps them to FC-FS's
/// F_CTL bit numbers, which the constants here use: draft bit *n* is F_CTL bit 31 − *n*.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FCtl(u32);

impl FCtl {
    /// Bit 23, Exchange Context: set when the frame comes from the exchange responder
    /// (draft bit 8, "From Responder").
    pub const EXCHANGE_CONTEXT: FCtl = FCtl(1 << 23);
    /// Bit 22, Sequence Context: set when the frame comes from the sequence recipient (draft
    /// bit 9).
    pub const SEQUENCE_CONTEXT: FCtl = FCtl(1 << 22);
    /// Bit 21, First_Sequence of the exchange (draft bit 10).
    pub const FIRST_SEQUENCE: FCtl = FCtl(1 << 21);
    /// Bit 20, Last_Sequence of the exchange (draft bit 11).
    pub const LAST_SEQUENCE: FCtl = FCtl(1 << 20);
    /// Bit 19, End_Sequence: last frame of the sequence (draft bit 12).
    pub const END_SEQUENCE: FCtl = FCtl(1 << 19);
    /// Bit 18, End_Connection (Class 1; draft "don't care").
    pub const END_CONNECTION: FCtl = FCtl(1 << 18);
    /// Bit 17, CS_CTL/Priority enable (draft "don't care").
    pub const PRIORITY_ENABLE: FCtl = FCtl(1 << 17);
    /// Bit 16, Sequence Initiative: transferred to the recipient when set (draft bit 15).
    pub const SEQUENCE_INITIATIVE: FCtl = FCtl(1 << 16);
    /// Bit 15, X_ID reassigned (draft "don't care").
    pub const X_ID_REASSIGNED: FCtl = FCtl(1 << 15);
    /// Bit 14, Invalidate X_ID (draft "don't care").
    pub const INVALIDATE_X_ID: FCtl = FCtl(1 << 14);
    /// Bit 9, Retransmitted sequence (draft "don't care").
    pub const RETRANSMITTED_SEQUENCE: FCtl = FCtl(1 << 9);
    /// Bit 3, Parameter field is a relative offset (draft bit 28, "set by target").
    pub const RELATIVE_OFFSET: FCtl = FCtl(1 << 3);
    /// Bit 2, Exchange reassembly (draft "reserved").
    pub const EXCHANGE_REASSEMBLY: FCtl = FCtl(1 << 2);
    /// Bits 13:12, ACK_Form (classes 1, 2, 4).
    pub const ACK_FORM_MASK: u32 = 0b11 << 12;
    /// Bits 7:6, Continue Sequence Condition.
    pub const CONTINUE_SEQUENCE_MASK: u32 = 0b11 << 6;
    /// Bits 5:4, Abort Sequence Condition.
    pub const ABORT_SEQUENCE_MASK: u32 = 0b11 << 4;
    /// Bits 1:0, fill bytes: how many octets at the end of the data field are padding (draft
    /// bits 30–31).
    pub const FILL_MASK: u32 = 0b11;

    /// Named single-bit flags and their names, for display and tests.
    pub const NAMED: [(FCtl, &'static str); 13] = [
        (FCtl::EXCHANGE_CONTEXT, "exchange_context"),
        (FCtl::SEQUENCE_CONTEXT, "sequence_context"),
        (FCtl::FIRST_SEQUENCE, "first_sequence"),
        (FCtl::LAST_SEQUENCE, "last_sequence"),
        (FCtl::END_SEQUENCE, "end_sequence"),
        (FCtl::END_CONNECTION, "end_connection"),
        (FCtl::PRIORITY_ENABLE, "priority_enable"),
        (FCtl::SEQUENCE_INITIATIVE, "sequence_initiative"),
        (FCtl::X_ID_REASSIGNED, "x_id_reassigned"),
        (FCtl::INVALIDATE_X_ID, "invalidate_x_id"),
        (FCtl::RETRANSMITTED_SEQUENCE, "retransmitted_sequence"),
        (FCtl::RELATIVE_OFFSET, "relative_offset"),
        (FCtl::EXCHANGE_REASSEMBLY, "exchange_reassembly"),
    ];

    pub const fn empty() -> FCtl {
        FCtl(0)
    }

    /// From the 24-bit field value; bits above 23 are refused.
    pub fn from_bits(bits: u32) -> Result<FCtl, FcError> {
        if bits >> 24 != 0 {
            return Err(FcError::FieldTooWide {
                field: "F_CTL",
                value: bits,
                bits: 24,
            });
        }
        Ok(FCtl(bits))
    }

    pub const fn bits(self) -> u32 {
        self.0
    }

    pub const fn contains(self, other: FCtl) -> bool {
        self.0 & other.0 == other.0
    }

    #[must_use]
    pub const fn with(self, other: FCtl) -> FCtl {
        FCtl(self.0 | other.0)
    }

    #[must_use]
    pub const fn without(self, other: FCtl) -> FCtl {
        FCtl(self.0 & !other.0)
    }

    /// Number of fill octets (0–3) at the end of the data field.
    pub const fn fill_bytes(self) -> usize {
        (self.0 & Self::FILL_MASK) as usize
    }

    #[must_use]
    pub const fn with_fill_bytes(self, n: usize) -> FCtl {
        FCtl((self.0 & !Self::FILL_MASK) | (n as u32 & Self::FILL_MASK))
    }
}

impl std::ops::BitOr for FCtl {
    type Output = FCtl;
    fn bitor(self, rhs: FCtl) -> FCtl {
        self.with(rhs)
    }
}

impl std::fmt::Display for FCtl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "0x{:06x}", self.0)?;
        for (flag, name) in FCtl::NAMED {
            if self.contains(flag) {
                write!(f, " {name}")?;
            }
        }
        if self.fill_bytes() != 0 {
            write!(f, " fill={}", self.fill_bytes())?;
        }
        Ok(())
    }
}

/// Every field of the frame header. D_ID and S_ID are 24-bit port addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct FcHeader {
    pub r_ctl: u8,
    pub d_id: u32,
    /// CS_CTL (the draft shows this octet as "Reserved"; FC-FS gives it class-specific control).
    pub cs_ctl: u8,
    pub s_id: u32,
    pub fc_type: u8,
    pub f_ctl: FCtl,
    pub seq_id: u8,
    /// Which optional headers follow the header (bit 6 ESP, 5 Network, 4 Association, 1:0
    /// Device header size).
    pub df_ctl: u8,
    pub seq_cnt: u16,
    pub ox_id: u16,
    pub rx_id: u16,
    pub parameter: u32,
}

impl FcHeader {
    /// Writes the 24 octets; D_ID and S_ID wider than 24 bits are refused.
    pub fn encode(&self) -> Result<[u8; HEADER_LEN], FcError> {
        for (field, v) in [("D_ID", self.d_id), ("S_ID", self.s_id)] {
            if v >> 24 != 0 {
                return Err(FcError::FieldTooWide {
                    field,
                    value: v,
                    bits: 24,
                });
            }
        }
        let mut h = [0u8; HEADER_LEN];
        h[0..4].copy_from_slice(&((self.r_ctl as u32) << 24 | self.d_id).to_be_bytes());
        h[4..8].copy_from_slice(&((self.cs_ctl as u32) << 24 | self.s_id).to_be_bytes());
        h[8..12].copy_from_slice(&((self.fc_type as u32) << 24 | self.f_ctl.bits()).to_be_bytes());
        h[12] = self.seq_id;
        h[13] = self.df_ctl;
        h[14..16].copy_from_slice(&self.seq_cnt.to_be_bytes());
        h[16..18].copy_from_slice(&self.ox_id.to_be_bytes());
        h[18..20].copy_from_slice(&self.rx_id.to_be_bytes());
        h[20..24].copy_from_slice(&self.parameter.to_be_bytes());
        Ok(h)
    }

    /// Reads the first 24 octets of `b`.
    pub fn decode(b: &[u8]) -> Result<FcHeader, FcError> {
        if b.len() < HEADER_LEN {
            return Err(FcError::Truncated {
                what: "FC header",
                need: HEADER_LEN,
                have: b.len(),
            });
        }
        let word = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Ok(FcHeader {
            r_ctl: b[0],
            d_id: word(0) & 0xFF_FFFF,
            cs_ctl: b[4],
            s_id: word(4) & 0xFF_FFFF,
            fc_type: b[8],
            f_ctl: FCtl(word(8) & 0xFF_FFFF),
            seq_id: b[12],
            df_ctl: b[13],
            seq_cnt: u16::from_be_bytes([b[14], b[15]]),
            ox_id: u16::from_be_bytes([b[16], b[17]]),
            rx_id: u16::from_be_bytes([b[18], b[19]]),
            parameter: word(20),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_lands_in_its_octets() {
        let h = FcHeader {
            r_ctl: 0x06,
            d_id: 0x0A0B0C,
            cs_ctl: 0x11,
            s_id: 0x010203,
            fc_type: 0x08,
            f_ctl: FCtl::FIRST_SEQUENCE | FCtl::END_SEQUENCE | FCtl::SEQUENCE_INITIATIVE,
            seq_id: 0x22,
            df_ctl: 0x00,
            seq_cnt: 0x3344,
            ox_id: 0x5566,
            rx_id: 0xFFFF,
            parameter: 0x7788_99AA,
        };
        let b = h.encode().unwrap();
        assert_eq!(
            b,
            [
                0x06, 0x0A, 0x0B, 0x0C, 0x11, 0x01, 0x02, 0x03, 0x08, 0x29, 0x00, 0x00, 0x22, 0x00,
                0x33, 0x44, 0x55, 0x66, 0xFF, 0xFF, 0x77, 0x88, 0x99, 0xAA
            ]
        );
        assert_eq!(FcHeader::decode(&b).unwrap(), h);
    }

    /// The draft's bit numbers (from the MSB of TYPE|F_CTL) against the constants.
    #[test]
    fn draft_bit_numbers_map_to_fc_fs_bits() {
        let draft_bit = |n: u32| 1u32 << (31 - n);
        assert_eq!(FCtl::EXCHANGE_CONTEXT.bits(), draft_bit(8));
        assert_eq!(FCtl::SEQUENCE_CONTEXT.bits(), draft_bit(9));
        assert_eq!(FCtl::FIRST_SEQUENCE.bits(), draft_bit(10));
        assert_eq!(FCtl::LAST_SEQUENCE.bits(), draft_bit(11));
        assert_eq!(FCtl::END_SEQUENCE.bits(), draft_bit(12));
        assert_eq!(FCtl::SEQUENCE_INITIATIVE.bits(), draft_bit(15));
        assert_eq!(FCtl::RELATIVE_OFFSET.bits(), draft_bit(28));
        assert_eq!(FCtl::FILL_MASK, draft_bit(30) | draft_bit(31));
    }

    #[test]
    fn wide_fields_are_refused() {
        let h = FcHeader {
            d_id: 0x0100_0000,
            ..Default::default()
        };
        assert!(matches!(
            h.encode(),
            Err(FcError::FieldTooWide { field: "D_ID", .. })
        ));
        assert!(FCtl::from_bits(1 << 24).is_err());
        assert!(FcHeader::decode(&[0; 23]).is_err());
    }

    #[test]
    fn fill_bytes_and_display() {
        let f = FCtl::RELATIVE_OFFSET.with_fill_bytes(3);
        assert_eq!(f.fill_bytes(), 3);
        assert_eq!(f.with_fill_bytes(1).fill_bytes(), 1);
        assert!(f.contains(FCtl::RELATIVE_OFFSET));
        assert_eq!(f.to_string(), "0x00000b relative_offset fill=3");
    }
}
