//! The Ethernet header and the AoE header (AoE r11 §2): everything before the Arg field.
//!
//! ```text
//! octets  0..6   Ethernet destination      6..12  Ethernet source    12..14  type 0x88A2
//! octet  14      Ver(7:4) · Flags(3:0: R=8, E=4, Z, Z)
//! octet  15      Error (when E is set, §2.4)
//! octets 16..18  Major     octet 18  Minor     octet 19  Command     octets 20..24  Tag
//! octets 24..    Arg (per command, §3)
//! ```
//!
//! All values are in network byte order (§1).

/// An Ethernet (MAC) address.
pub type Mac = [u8; 6];

/// The registered Ethernet type of AoE (§2.1).
pub const ETHERTYPE: u16 = 0x88A2;
/// Octets of the Ethernet header (no VLAN tag).
pub const ETH_HEADER_LEN: usize = 14;
/// Octets from the start of the frame to the Arg field (Ethernet header + AoE header).
pub const HEADER_LEN: usize = 24;
/// The protocol version this document defines (§2.2).
pub const VERSION: u8 = 1;
/// Flags bit R: the message is a response (§2.3).
pub const FLAG_RESPONSE: u8 = 0x8;
/// Flags bit E: the command caused an AoE protocol error; Error says which (§2.3).
pub const FLAG_ERROR: u8 = 0x4;
/// Major address that every server accepts (§2.5).
pub const MAJOR_ANY: u16 = 0xFFFF;
/// Minor address that every server accepts (§2.5).
pub const MINOR_ANY: u8 = 0xFF;
/// The Ethernet broadcast address.
pub const BROADCAST: Mac = [0xFF; 6];
/// Smallest Ethernet frame without the FCS; shorter frames are padded with zeros on the wire.
pub const ETH_MIN_FRAME: usize = 60;

/// Command 0: issue an ATA command (§3.1).
pub const CMD_ATA: u8 = 0;
/// Command 1: Query Config Information (§3.2).
pub const CMD_QUERY_CONFIG: u8 = 1;
/// Command 2: Mac Mask List (§3.3).
pub const CMD_MAC_MASK: u8 = 2;
/// Command 3: Reserve / Release (§3.4).
pub const CMD_RESERVE: u8 = 3;
/// Command codes 0xF0..=0xFF are reserved for vendor use (§2.6); we define none.
pub const CMD_VENDOR: std::ops::RangeInclusive<u8> = 0xF0..=0xFF;

/// AoE protocol errors, carried in the Error field when Flags bit E is set (§2.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AoeError {
    /// 1: the server does not understand the Command field.
    UnrecognizedCommand = 1,
    /// 2: an improper value somewhere in the Arg field.
    BadArgument = 2,
    /// 3: the server can no longer accept ATA commands.
    DeviceUnavailable = 3,
    /// 4: Query Config "set" refused because the config string is not empty.
    ConfigStringPresent = 4,
    /// 5: the server does not understand the Ver field.
    UnsupportedVersion = 5,
    /// 6: the target is reserved by other MAC addresses.
    TargetReserved = 6,
}

impl AoeError {
    /// The error for a code, if §2.4 defines it.
    pub fn from_code(code: u8) -> Option<Self> {
        Some(match code {
            1 => Self::UnrecognizedCommand,
            2 => Self::BadArgument,
            3 => Self::DeviceUnavailable,
            4 => Self::ConfigStringPresent,
            5 => Self::UnsupportedVersion,
            6 => Self::TargetReserved,
            _ => return None,
        })
    }

    pub fn code(self) -> u8 {
        self as u8
    }
}

impl std::fmt::Display for AoeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let what = match self {
            Self::UnrecognizedCommand => "unrecognized command code",
            Self::BadArgument => "bad argument parameter",
            Self::DeviceUnavailable => "device unavailable",
            Self::ConfigStringPresent => "config string present",
            Self::UnsupportedVersion => "unsupported version",
            Self::TargetReserved => "target is reserved",
        };
        write!(f, "AoE error {} ({what})", self.code())
    }
}

/// Why octets are not an AoE frame, or an argument is malformed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {len} octets is shorter than the {HEADER_LEN}-octet Ethernet + AoE header")]
    Short { len: usize },
    #[error("Ethernet type 0x{found:04x} is not AoE (0x88a2)")]
    Ethertype { found: u16 },
    #[error("command {command} needs an Arg of at least {need} octets, the frame has {have}")]
    ArgShort {
        command: u8,
        need: usize,
        have: usize,
    },
    #[error("config string length {len} exceeds the maximum of 1024")]
    ConfigTooLong { len: usize },
}

/// The Ethernet and AoE headers of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    pub dst: Mac,
    pub src: Mac,
    /// Ver (4 bits).
    pub version: u8,
    /// Flags (4 bits): [`FLAG_RESPONSE`], [`FLAG_ERROR`]; the Z bits are kept as received.
    pub flags: u8,
    /// Error code, meaningful when [`FLAG_ERROR`] is set.
    pub error: u8,
    pub major: u16,
    pub minor: u8,
    pub command: u8,
    pub tag: u32,
}

impl Header {
    /// Decodes the first [`HEADER_LEN`] octets; returns the header and the Arg field (the rest).
    pub fn parse(frame: &[u8]) -> Result<(Header, &[u8]), FrameError> {
        if frame.len() < HEADER_LEN {
            return Err(FrameError::Short { len: frame.len() });
        }
        let ethertype = u16::from_be_bytes([frame[12], frame[13]]);
        if ethertype != ETHERTYPE {
            return Err(FrameError::Ethertype { found: ethertype });
        }
        let h = Header {
            dst: frame[0..6].try_into().unwrap(),
            src: frame[6..12].try_into().unwrap(),
            version: frame[14] >> 4,
            flags: frame[14] & 0x0F,
            error: frame[15],
            major: u16::from_be_bytes([frame[16], frame[17]]),
            minor: frame[18],
            command: frame[19],
            tag: u32::from_be_bytes(frame[20..24].try_into().unwrap()),
        };
        Ok((h, &frame[HEADER_LEN..]))
    }

    /// Appends the [`HEADER_LEN`] octets of this header to `out`.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.dst);
        out.extend_from_slice(&self.src);
        out.extend_from_slice(&ETHERTYPE.to_be_bytes());
        out.push((self.version << 4) | (self.flags & 0x0F));
        out.push(self.error);
        out.extend_from_slice(&self.major.to_be_bytes());
        out.push(self.minor);
        out.push(self.command);
        out.extend_from_slice(&self.tag.to_be_bytes());
    }

    /// A version-1 command from `src` to `dst` (no flags, no error).
    pub fn request(src: Mac, dst: Mac, major: u16, minor: u8, command: u8, tag: u32) -> Self {
        Header {
            dst,
            src,
            version: VERSION,
            flags: 0,
            error: 0,
            major,
            minor,
            command,
            tag,
        }
    }

    pub fn is_response(&self) -> bool {
        self.flags & FLAG_RESPONSE != 0
    }

    /// The AoE error of a response with Flags bit E set (`Err(code)` for codes §2.4 does not
    /// define), `Ok(None)` when E is clear.
    pub fn aoe_error(&self) -> Result<Option<AoeError>, u8> {
        if self.flags & FLAG_ERROR == 0 {
            return Ok(None);
        }
        AoeError::from_code(self.error).map(Some).ok_or(self.error)
    }

    /// Whether a server at `major`.`minor` accepts this command (§2.5, all-ones included).
    pub fn addressed_to(&self, major: u16, minor: u8) -> bool {
        (self.major == major || self.major == MAJOR_ANY)
            && (self.minor == minor || self.minor == MINOR_ANY)
    }
}

/// `aa:bb:cc:dd:ee:ff`.
pub fn format_mac(mac: &Mac) -> String {
    mac.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// Parses `aa:bb:cc:dd:ee:ff` (or with `-`); `None` when malformed.
pub fn parse_mac(s: &str) -> Option<Mac> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return None;
    }
    let mut mac = [0u8; 6];
    for (m, p) in mac.iter_mut().zip(parts) {
        if p.is_empty() || p.len() > 2 {
            return None;
        }
        *m = u8::from_str_radix(p, 16).ok()?;
    }
    Some(mac)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_octets_match_the_figure_in_section_2() {
        let h = Header {
            dst: [1, 2, 3, 4, 5, 6],
            src: [7, 8, 9, 10, 11, 12],
            version: 1,
            flags: FLAG_RESPONSE | FLAG_ERROR,
            error: 6,
            major: 0x1234,
            minor: 0x56,
            command: CMD_RESERVE,
            tag: 0xDEAD_BEEF,
        };
        let mut out = Vec::new();
        h.write(&mut out);
        assert_eq!(
            out,
            [
                1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x88, 0xA2, 0x1C, 6, 0x12, 0x34, 0x56, 3,
                0xDE, 0xAD, 0xBE, 0xEF
            ]
        );
        let (back, arg) = Header::parse(&out).unwrap();
        assert_eq!(back, h);
        assert!(arg.is_empty());
        assert_eq!(back.aoe_error(), Ok(Some(AoeError::TargetReserved)));
    }

    #[test]
    fn short_and_foreign_frames_are_refused() {
        assert_eq!(Header::parse(&[0; 23]), Err(FrameError::Short { len: 23 }));
        let mut f = [0u8; 24];
        f[12] = 0x08;
        assert_eq!(
            Header::parse(&f),
            Err(FrameError::Ethertype { found: 0x0800 })
        );
    }

    #[test]
    fn all_ones_addresses_match_every_server() {
        let mut h = Header::request([0; 6], BROADCAST, MAJOR_ANY, MINOR_ANY, CMD_QUERY_CONFIG, 0);
        assert!(h.addressed_to(7, 3));
        h.major = 7;
        assert!(h.addressed_to(7, 3));
        assert!(!h.addressed_to(8, 3));
        h.minor = 4;
        assert!(!h.addressed_to(7, 3));
    }

    #[test]
    fn macs_print_and_parse() {
        let m = [0x02, 0, 0xAB, 0x10, 0xFF, 9];
        assert_eq!(format_mac(&m), "02:00:ab:10:ff:09");
        assert_eq!(parse_mac("02:00:ab:10:ff:09"), Some(m));
        assert_eq!(parse_mac("02:00:ab:10:ff"), None);
        assert_eq!(parse_mac("02:00:ab:10:ff:9g"), None);
    }
}
