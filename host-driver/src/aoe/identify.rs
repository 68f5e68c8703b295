//! IDENTIFY DEVICE data (ATA/ATAPI-7 §6.17): the 256 little-endian words a target returns and
//! an initiator reads capacity and names from.
//!
//! Words the Linux `aoe` driver reads: 1/3/6 (geometry), 10–19 (serial), 23–26 (firmware),
//! 27–46 (model), 60–61 (LBA28 capacity), 83 bit 10 (LBA48 supported), 100–103 (LBA48
//! capacity). Strings are ASCII padded with spaces, two characters a word, first one in the
//! high octet.

use super::ata::LBA28_LIMIT;

/// Octets of IDENTIFY DEVICE data.
pub const IDENTIFY_LEN: usize = 512;

/// What a served disk reports about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// Capacity in 512-octet sectors.
    pub sectors: u64,
    /// Model number (at most 40 characters).
    pub model: String,
    /// Serial number (at most 20 characters).
    pub serial: String,
    /// Firmware revision (at most 8 characters).
    pub firmware: String,
    /// Whether the 48-bit feature set is supported (word 83 bit 10).
    pub lba48: bool,
}

fn put_string(words: &mut [u16; 256], first: usize, n_words: usize, s: &str) {
    let mut bytes: Vec<u8> = s
        .bytes()
        .map(|b| {
            if b.is_ascii_graphic() || b == b' ' {
                b
            } else {
                b'?'
            }
        })
        .take(2 * n_words)
        .collect();
    bytes.resize(2 * n_words, b' ');
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        words[first + i] = u16::from_be_bytes([pair[0], pair[1]]);
    }
}

fn get_string(words: &[u16], first: usize, n_words: usize) -> String {
    let bytes: Vec<u8> = words[first..first + n_words]
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .collect();
    String::from_utf8_lossy(&bytes).trim().to_string()
}

impl Identity {
    /// The IDENTIFY DEVICE data of a disk of `sectors` sectors, with the integrity word
    /// (255: signature 0xA5 and a checksum making the 512 octets sum to zero mod 256).
    pub fn encode(&self) -> [u8; IDENTIFY_LEN] {
        let mut w = [0u16; 256];
        // Fixed, non-removable device; a CHS geometry the capacity fits (16 heads, 63 sectors).
        w[0] = 0x0040;
        let cyl = (self.sectors / (16 * 63)).min(16383) as u16;
        w[1] = cyl;
        w[3] = 16;
        w[6] = 63;
        put_string(&mut w, 10, 10, &self.serial);
        put_string(&mut w, 23, 4, &self.firmware);
        put_string(&mut w, 27, 20, &self.model);
        w[47] = 0x8000; // READ/WRITE MULTIPLE: none
        w[49] = 0x0200; // LBA supported
        w[50] = 0x4000;
        w[53] = 0x0006; // words 64-70 and 88 valid
        let lba28 = self.sectors.min(LBA28_LIMIT - 1) as u32;
        w[60] = lba28 as u16;
        w[61] = (lba28 >> 16) as u16;
        w[80] = 0x00F0; // ATA/ATAPI-4..7
                        // Command sets: bit 14 set (valid); FLUSH CACHE EXT (13), FLUSH CACHE (12), LBA48 (10).
        let lba48 = if self.lba48 { 0x0400 } else { 0 };
        w[82] = 0x4000;
        w[83] = 0x4000 | 0x2000 | 0x1000 | lba48;
        w[84] = 0x4000;
        w[85] = 0x4000;
        w[86] = 0x2000 | 0x1000 | lba48;
        w[87] = 0x4000;
        for (i, word) in w[100..104].iter_mut().enumerate() {
            *word = (self.sectors >> (16 * i)) as u16;
        }
        let mut out = [0u8; IDENTIFY_LEN];
        for (i, word) in w.iter().enumerate() {
            out[2 * i..2 * i + 2].copy_from_slice(&word.to_le_bytes());
        }
        out[510] = 0xA5;
        let sum = out[..511].iter().fold(0u8, |s, b| s.wrapping_add(*b));
        out[511] = sum.wrapping_neg();
        out
    }

    /// Reads capacity and names from IDENTIFY DEVICE data (LBA48 capacity when word 83 says
    /// the feature set is there, else words 60–61); `None` when `data` is not 512 octets.
    pub fn decode(data: &[u8]) -> Option<Identity> {
        if data.len() < IDENTIFY_LEN {
            return None;
        }
        let w: Vec<u16> = data[..IDENTIFY_LEN]
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let lba48 = w[83] & 0xC000 == 0x4000 && w[83] & 0x0400 != 0;
        let sectors = if lba48 {
            (0..4).fold(0u64, |s, i| s | (u64::from(w[100 + i]) << (16 * i)))
        } else {
            u64::from(w[60]) | (u64::from(w[61]) << 16)
        };
        Some(Identity {
            sectors,
            model: get_string(&w, 27, 20),
            serial: get_string(&w, 10, 10),
            firmware: get_string(&w, 23, 4),
            lba48,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_word_swapped_and_capacity_round_trips() {
        let id = Identity {
            sectors: 0x1_2345_6789,
            model: "offload AoE".into(),
            serial: "SN42".into(),
            firmware: "1.0".into(),
            lba48: true,
        };
        let raw = id.encode();
        // Word 27 holds "of": 'o' in the high octet, stored little-endian.
        assert_eq!(&raw[54..56], b"fo");
        assert_eq!(&raw[20..24], b"NS24");
        // LBA28 capacity saturates at 2^28 - 1.
        assert_eq!(&raw[120..124], &[0xFF, 0xFF, 0xFF, 0x0F]);
        assert_eq!(raw[510], 0xA5);
        assert_eq!(raw.iter().fold(0u8, |s, b| s.wrapping_add(*b)), 0);
        assert_eq!(Identity::decode(&raw).unwrap(), id);
    }

    #[test]
    fn without_lba48_capacity_comes_from_words_60_61() {
        let id = Identity {
            sectors: 8192,
            model: "m".into(),
            serial: "s".into(),
            firmware: "f".into(),
            lba48: false,
        };
        let back = Identity::decode(&id.encode()).unwrap();
        assert_eq!(back.sectors, 8192);
        assert!(!back.lba48);
        assert_eq!(Identity::decode(&[0; 100]), None);
    }
}
