//! Command 1, Query Config Information (AoE r11 §3.2).
//!
//! ```text
//! octets 24..26 Buffer Count · 26..28 Firmware Version
//! octet 28 Sector Count · 29 AoE(7:4) · CCmd(3:0) · 30..32 Config String Length
//! octets 32.. Config String (at most 1024 octets)
//! ```

use super::header::{FrameError, CMD_QUERY_CONFIG};

/// Octets of the Query Config Arg before the config string.
pub const ARG_LEN: usize = 8;
/// Longest config string (§3.2).
pub const CONFIG_MAX: usize = 1024;

/// CCmd 0: read the config string.
pub const CCMD_READ: u8 = 0;
/// CCmd 1: respond only if the argument string equals the config string.
pub const CCMD_TEST: u8 = 1;
/// CCmd 2: respond only if the argument string is a prefix of the config string.
pub const CCMD_TEST_PREFIX: u8 = 2;
/// CCmd 3: set the config string if it is empty, else AoE error 4.
pub const CCMD_SET: u8 = 3;
/// CCmd 4: set the config string unconditionally.
pub const CCMD_FORCE_SET: u8 = 4;

/// The Query Config Arg, command or response.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct QueryConfig {
    /// Outstanding messages the server queues; zero in a command.
    pub buffer_count: u16,
    /// Server firmware version; zero in a command.
    pub firmware: u16,
    /// Most sectors per ATA command; 0 means 2 (§3.2).
    pub sector_count: u8,
    /// AoE version the server supports (4 bits); zero in a command.
    pub aoe_version: u8,
    /// CCmd (4 bits).
    pub ccmd: u8,
    pub config: Vec<u8>,
}

impl QueryConfig {
    /// Decodes the Arg; the config string must fit in the frame and in [`CONFIG_MAX`].
    /// Octets after the string (Ethernet padding) are ignored.
    pub fn parse(arg: &[u8]) -> Result<Self, FrameError> {
        if arg.len() < ARG_LEN {
            return Err(FrameError::ArgShort {
                command: CMD_QUERY_CONFIG,
                need: ARG_LEN,
                have: arg.len(),
            });
        }
        let len = u16::from_be_bytes([arg[6], arg[7]]) as usize;
        if len > CONFIG_MAX {
            return Err(FrameError::ConfigTooLong { len });
        }
        if arg.len() < ARG_LEN + len {
            return Err(FrameError::ArgShort {
                command: CMD_QUERY_CONFIG,
                need: ARG_LEN + len,
                have: arg.len(),
            });
        }
        Ok(QueryConfig {
            buffer_count: u16::from_be_bytes([arg[0], arg[1]]),
            firmware: u16::from_be_bytes([arg[2], arg[3]]),
            sector_count: arg[4],
            aoe_version: arg[5] >> 4,
            ccmd: arg[5] & 0x0F,
            config: arg[ARG_LEN..ARG_LEN + len].to_vec(),
        })
    }

    /// Appends the Arg; the config string is cut at [`CONFIG_MAX`].
    pub fn write(&self, out: &mut Vec<u8>) {
        let s = &self.config[..self.config.len().min(CONFIG_MAX)];
        out.extend_from_slice(&self.buffer_count.to_be_bytes());
        out.extend_from_slice(&self.firmware.to_be_bytes());
        out.push(self.sector_count);
        out.push((self.aoe_version << 4) | (self.ccmd & 0x0F));
        out.extend_from_slice(&(s.len() as u16).to_be_bytes());
        out.extend_from_slice(s);
    }

    /// A command: CCmd and the argument string, every server field zero.
    pub fn command(ccmd: u8, config: &[u8]) -> Self {
        QueryConfig {
            ccmd,
            config: config.to_vec(),
            ..Default::default()
        }
    }

    /// Sectors per ATA command the server takes, with 0 read as 2 (§3.2).
    pub fn max_sectors(&self) -> u8 {
        if self.sector_count == 0 {
            2
        } else {
            self.sector_count
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_octets() {
        let q = QueryConfig {
            buffer_count: 16,
            firmware: 0x4019,
            sector_count: 17,
            aoe_version: 1,
            ccmd: CCMD_READ,
            config: b"abc".to_vec(),
        };
        let mut out = Vec::new();
        q.write(&mut out);
        assert_eq!(out, [0, 16, 0x40, 0x19, 17, 0x10, 0, 3, b'a', b'b', b'c']);
        // Padding after the string is not part of it.
        out.extend_from_slice(&[0; 20]);
        assert_eq!(QueryConfig::parse(&out).unwrap(), q);
    }

    #[test]
    fn bad_lengths_are_errors() {
        assert!(matches!(
            QueryConfig::parse(&[0; 7]),
            Err(FrameError::ArgShort { need: 8, .. })
        ));
        assert_eq!(
            QueryConfig::parse(&[0, 0, 0, 0, 0, 0, 0x04, 0x01]),
            Err(FrameError::ConfigTooLong { len: 1025 })
        );
        assert!(matches!(
            QueryConfig::parse(&[0, 0, 0, 0, 0, 0, 0, 5, 1, 2]),
            Err(FrameError::ArgShort {
                need: 13,
                have: 10,
                ..
            })
        ));
    }

    #[test]
    fn zero_sector_count_means_two() {
        assert_eq!(QueryConfig::default().max_sectors(), 2);
    }
}
