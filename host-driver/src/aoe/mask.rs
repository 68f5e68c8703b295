//! Command 2, Mac Mask List (AoE r11 §3.3): the access list a target checks every command
//! against, read and edited by directives.
//!
//! ```text
//! octet 24 reserved · 25 MCmd · 26 MError · 27 Dir Count
//! octets 28.. Dir Count directives of 8 octets: reserved · DCmd · Ethernet address (6)
//! ```

use super::header::{FrameError, Mac, CMD_MAC_MASK};

/// Octets of the Mac Mask List Arg before the directives.
pub const ARG_LEN: usize = 4;
/// Octets per directive.
pub const DIRECTIVE_LEN: usize = 8;
/// Most entries a list can hold: Dir Count is one octet (§3.3 recommends this limit).
pub const MASK_MAX: usize = 255;

/// MCmd 0: read the list.
pub const MCMD_READ: u8 = 0;
/// MCmd 1: edit the list with the directives.
pub const MCMD_EDIT: u8 = 1;

/// MError 1: unspecified error.
pub const MERROR_UNSPECIFIED: u8 = 1;
/// MError 2: bad DCmd directive.
pub const MERROR_BAD_DCMD: u8 = 2;
/// MError 3: mask list full.
pub const MERROR_FULL: u8 = 3;

/// DCmd 0: no directive.
pub const DCMD_NONE: u8 = 0;
/// DCmd 1: add the address.
pub const DCMD_ADD: u8 = 1;
/// DCmd 2: delete the address.
pub const DCMD_DELETE: u8 = 2;

/// One directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Directive {
    pub dcmd: u8,
    pub mac: Mac,
}

/// The Mac Mask List Arg.
#[derive(Debug, Clone, PartialEq, Eq, Default, Hash)]
pub struct MacMask {
    pub mcmd: u8,
    pub merror: u8,
    /// Dir Count as sent. In an error response it is the index of the failing directive while
    /// `directives` still holds the whole list of the command (§3.3).
    pub dir_count: u8,
    pub directives: Vec<Directive>,
}

impl MacMask {
    /// Decodes the Arg with its `Dir Count` directives, which must all be in the frame.
    pub fn parse(arg: &[u8]) -> Result<Self, FrameError> {
        if arg.len() < ARG_LEN {
            return Err(FrameError::ArgShort {
                command: CMD_MAC_MASK,
                need: ARG_LEN,
                have: arg.len(),
            });
        }
        let n = arg[3] as usize;
        let need = ARG_LEN + n * DIRECTIVE_LEN;
        if arg.len() < need {
            return Err(FrameError::ArgShort {
                command: CMD_MAC_MASK,
                need,
                have: arg.len(),
            });
        }
        let directives = arg[ARG_LEN..need]
            .chunks_exact(DIRECTIVE_LEN)
            .map(|d| Directive {
                dcmd: d[1],
                mac: d[2..8].try_into().unwrap(),
            })
            .collect();
        Ok(MacMask {
            mcmd: arg[1],
            merror: arg[2],
            dir_count: arg[3],
            directives,
        })
    }

    /// Appends the Arg and every directive in `directives` (at most 255).
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[0, self.mcmd, self.merror, self.dir_count]);
        for d in self.directives.iter().take(MASK_MAX) {
            out.extend_from_slice(&[0, d.dcmd]);
            out.extend_from_slice(&d.mac);
        }
    }

    /// An edit command with these directives (at most 255).
    pub fn edit(directives: &[Directive]) -> Self {
        let directives = directives[..directives.len().min(MASK_MAX)].to_vec();
        MacMask {
            mcmd: MCMD_EDIT,
            merror: 0,
            dir_count: directives.len() as u8,
            directives,
        }
    }

    /// A read command.
    pub fn read() -> Self {
        MacMask::default()
    }

    /// The addresses of a successful response.
    pub fn macs(&self) -> Vec<Mac> {
        self.directives.iter().map(|d| d.mac).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_octets_and_round_trip() {
        let m = MacMask::edit(&[
            Directive {
                dcmd: DCMD_ADD,
                mac: [2, 0, 0, 0, 0, 1],
            },
            Directive {
                dcmd: DCMD_DELETE,
                mac: [2, 0, 0, 0, 0, 2],
            },
        ]);
        let mut out = Vec::new();
        m.write(&mut out);
        assert_eq!(
            out,
            [0, 1, 0, 2, 0, 1, 2, 0, 0, 0, 0, 1, 0, 2, 2, 0, 0, 0, 0, 2]
        );
        assert_eq!(MacMask::parse(&out).unwrap(), m);
    }

    #[test]
    fn directives_must_be_in_the_frame() {
        assert!(matches!(
            MacMask::parse(&[0, 1, 0, 2, 0, 1, 2, 0, 0, 0, 0, 1]),
            Err(FrameError::ArgShort {
                need: 20,
                have: 12,
                ..
            })
        ));
        assert!(MacMask::parse(&[0, 0, 0]).is_err());
    }
}
