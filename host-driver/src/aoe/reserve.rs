//! Command 3, Reserve/Release (AoE r11 §3.4): the list of MAC addresses allowed to read and
//! write a reserved target.
//!
//! ```text
//! octet 24 RCmd · 25 NMacs · 26.. NMacs Ethernet addresses of 6 octets
//! ```

use super::header::{FrameError, Mac, CMD_RESERVE};

/// Octets of the Reserve/Release Arg before the addresses.
pub const ARG_LEN: usize = 2;
/// Most addresses a list can hold (NMacs is one octet).
pub const RESERVE_MAX: usize = 255;

/// RCmd 0: read the reserve list.
pub const RCMD_READ: u8 = 0;
/// RCmd 1: set the list (only when it is empty or holds the sender).
pub const RCMD_SET: u8 = 1;
/// RCmd 2: set the list regardless of the sender.
pub const RCMD_FORCE_SET: u8 = 2;

/// The Reserve/Release Arg.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct Reserve {
    pub rcmd: u8,
    pub macs: Vec<Mac>,
}

impl Reserve {
    /// Decodes the Arg with its NMacs addresses, which must all be in the frame.
    pub fn parse(arg: &[u8]) -> Result<Self, FrameError> {
        if arg.len() < ARG_LEN {
            return Err(FrameError::ArgShort {
                command: CMD_RESERVE,
                need: ARG_LEN,
                have: arg.len(),
            });
        }
        let n = arg[1] as usize;
        let need = ARG_LEN + 6 * n;
        if arg.len() < need {
            return Err(FrameError::ArgShort {
                command: CMD_RESERVE,
                need,
                have: arg.len(),
            });
        }
        Ok(Reserve {
            rcmd: arg[0],
            macs: arg[ARG_LEN..need]
                .chunks_exact(6)
                .map(|m| m.try_into().unwrap())
                .collect(),
        })
    }

    /// Appends the Arg (at most 255 addresses).
    pub fn write(&self, out: &mut Vec<u8>) {
        let macs = &self.macs[..self.macs.len().min(RESERVE_MAX)];
        out.push(self.rcmd);
        out.push(macs.len() as u8);
        for m in macs {
            out.extend_from_slice(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octets_and_round_trip() {
        let r = Reserve {
            rcmd: RCMD_SET,
            macs: vec![[2, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 2]],
        };
        let mut out = Vec::new();
        r.write(&mut out);
        assert_eq!(out, [1, 2, 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2]);
        assert_eq!(Reserve::parse(&out).unwrap(), r);
        assert!(Reserve::parse(&out[..13]).is_err());
        assert!(Reserve::parse(&[1]).is_err());
    }
}
