//! Command 0, Issue ATA Command (AoE r11 §3.1): the 12-octet ATA Arg, its AFlags, and the ATA
//! command codes, status and error bits a disk served over AoE uses.
//!
//! ```text
//! octet 24 AFlags (Z E Z D Z Z A W) · 25 Err/Feature · 26 Sector Count · 27 Cmd/Status
//! octets 28..34 lba0..lba5 · 34..36 reserved · 36.. Data (Sector Count × 512 octets)
//! ```

use super::header::{FrameError, CMD_ATA, HEADER_LEN};

/// Octets of the ATA Arg before Data.
pub const ARG_LEN: usize = 12;
/// Octets of an ATA frame before Data (Ethernet + AoE header + ATA Arg).
pub const ATA_HEADER_LEN: usize = HEADER_LEN + ARG_LEN;
/// Octets per sector.
pub const SECTOR: usize = 512;

/// AFlags E: an LBA48 (extended) command.
pub const AFLAG_EXT: u8 = 0x40;
/// AFlags D: the Device register's DEV bit, evaluated only with E.
pub const AFLAG_DEV: u8 = 0x10;
/// AFlags A: asynchronous write (with W): the server may answer before the write completes.
pub const AFLAG_ASYNC: u8 = 0x02;
/// AFlags W: data is written to the device.
pub const AFLAG_WRITE: u8 = 0x01;

/// ATA command codes served by the target (those vblade and the Linux `aoe` driver use).
pub mod cmd {
    pub const READ_SECTORS: u8 = 0x20;
    pub const READ_SECTORS_EXT: u8 = 0x24;
    pub const WRITE_SECTORS: u8 = 0x30;
    pub const WRITE_SECTORS_EXT: u8 = 0x34;
    pub const CHECK_POWER_MODE: u8 = 0xE5;
    pub const FLUSH_CACHE: u8 = 0xE7;
    pub const FLUSH_CACHE_EXT: u8 = 0xEA;
    pub const IDENTIFY_DEVICE: u8 = 0xEC;
}

/// ATA Status register bits.
pub mod status {
    pub const BSY: u8 = 0x80;
    pub const DRDY: u8 = 0x40;
    pub const DF: u8 = 0x20;
    pub const DRQ: u8 = 0x08;
    pub const ERR: u8 = 0x01;
    /// Bits that mean the command did not complete cleanly (what the Linux driver tests).
    pub const FAILED: u8 = BSY | DF | DRQ | ERR;
}

/// ATA Error register bits.
pub mod error {
    /// Uncorrectable data (a read failed).
    pub const UNC: u8 = 0x40;
    /// ID not found (the LBA is outside the device).
    pub const IDNF: u8 = 0x10;
    /// Command aborted (unsupported command or parameter).
    pub const ABRT: u8 = 0x04;
}

/// Largest LBA a 28-bit command can address, plus one.
pub const LBA28_LIMIT: u64 = 1 << 28;
/// Largest LBA a 48-bit command can address, plus one.
pub const LBA48_LIMIT: u64 = 1 << 48;

/// The ATA Arg: the device registers as AoE carries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct AtaArg {
    pub aflags: u8,
    /// Err/Feature: Features in a command, Error in a response.
    pub err_feature: u8,
    pub sector_count: u8,
    /// Cmd/Status: Command in a command, Status in a response.
    pub cmd_status: u8,
    /// lba0..lba5 as on the wire (lba0 = bits 7:0).
    pub lba: [u8; 6],
}

impl AtaArg {
    /// Decodes the Arg of an ATA frame; returns it and Data (the octets after it).
    pub fn parse(arg: &[u8]) -> Result<(AtaArg, &[u8]), FrameError> {
        if arg.len() < ARG_LEN {
            return Err(FrameError::ArgShort {
                command: CMD_ATA,
                need: ARG_LEN,
                have: arg.len(),
            });
        }
        let a = AtaArg {
            aflags: arg[0],
            err_feature: arg[1],
            sector_count: arg[2],
            cmd_status: arg[3],
            lba: arg[4..10].try_into().unwrap(),
        };
        Ok((a, &arg[ARG_LEN..]))
    }

    /// Appends the 12 octets (reserved octets zero).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[
            self.aflags,
            self.err_feature,
            self.sector_count,
            self.cmd_status,
        ]);
        out.extend_from_slice(&self.lba);
        out.extend_from_slice(&[0, 0]);
    }

    /// A command for `ata_cmd` at `lba` over `count` sectors; `ext` selects the LBA48 layout,
    /// otherwise lba3 is the Device register (LBA mode bit 6, LBA bits 27:24).
    pub fn command(ata_cmd: u8, lba: u64, count: u8, ext: bool, write: bool) -> Self {
        let b = lba.to_le_bytes();
        let mut l = [b[0], b[1], b[2], b[3], b[4], b[5]];
        let mut aflags = if write { AFLAG_WRITE } else { 0 };
        if ext {
            aflags |= AFLAG_EXT;
        } else {
            l[3] = 0xE0 | (b[3] & 0x0F);
            l[4] = 0;
            l[5] = 0;
        }
        AtaArg {
            aflags,
            err_feature: 0,
            sector_count: count,
            cmd_status: ata_cmd,
            lba: l,
        }
    }

    /// All 48 LBA bits (lba0 lowest).
    pub fn lba48(&self) -> u64 {
        let l = &self.lba;
        u64::from_le_bytes([l[0], l[1], l[2], l[3], l[4], l[5], 0, 0])
    }

    /// The 28-bit LBA of a non-extended command: lba0..lba2 and bits 3:0 of lba3 (Device).
    pub fn lba28(&self) -> u64 {
        let l = &self.lba;
        u64::from_le_bytes([l[0], l[1], l[2], l[3] & 0x0F, 0, 0, 0, 0])
    }

    pub fn is_write(&self) -> bool {
        self.aflags & AFLAG_WRITE != 0
    }

    pub fn is_async_write(&self) -> bool {
        self.aflags & (AFLAG_WRITE | AFLAG_ASYNC) == AFLAG_WRITE | AFLAG_ASYNC
    }

    pub fn is_ext(&self) -> bool {
        self.aflags & AFLAG_EXT != 0
    }
}

/// How many 512-octet sectors fit in one frame on a link of `mtu` (the Ethernet payload size):
/// the AoE header after the Ethernet header and the ATA Arg take 22 octets. 1500 → 2, 9000 → 17.
pub fn sectors_per_frame(mtu: usize) -> usize {
    mtu.saturating_sub(ATA_HEADER_LEN - super::header::ETH_HEADER_LEN) / SECTOR
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lba28_command_puts_device_register_in_lba3() {
        let a = AtaArg::command(cmd::READ_SECTORS, 0x0ABC_DEF1, 2, false, false);
        let mut out = Vec::new();
        a.write(&mut out);
        assert_eq!(out, [0x00, 0, 2, 0x20, 0xF1, 0xDE, 0xBC, 0xEA, 0, 0, 0, 0]);
        let (back, data) = AtaArg::parse(&out).unwrap();
        assert_eq!(back.lba28(), 0x0ABC_DEF1);
        assert!(data.is_empty());
    }

    #[test]
    fn lba48_write_sets_e_and_w() {
        let a = AtaArg::command(cmd::WRITE_SECTORS_EXT, 0x1234_5678_9ABC, 17, true, true);
        let mut out = Vec::new();
        a.write(&mut out);
        assert_eq!(
            out,
            [0x41, 0, 17, 0x34, 0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0, 0]
        );
        assert_eq!(AtaArg::parse(&out).unwrap().0.lba48(), 0x1234_5678_9ABC);
        assert!(a.is_write() && !a.is_async_write() && a.is_ext());
    }

    #[test]
    fn short_arg_is_an_error() {
        assert_eq!(
            AtaArg::parse(&[0; 11]),
            Err(FrameError::ArgShort {
                command: 0,
                need: 12,
                have: 11
            })
        );
    }

    #[test]
    fn sectors_per_frame_from_mtu() {
        // §3.1: standard frames carry two sectors.
        assert_eq!(sectors_per_frame(1500), 2);
        assert_eq!(sectors_per_frame(9000), 17);
        assert_eq!(sectors_per_frame(500), 0);
    }
}
