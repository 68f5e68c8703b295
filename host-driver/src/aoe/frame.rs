//! A whole AoE frame: the header and the typed Arg of its command, decoded and encoded.

use super::ata::AtaArg;
use super::config::QueryConfig;
use super::header::{
    FrameError, Header, CMD_ATA, CMD_MAC_MASK, CMD_QUERY_CONFIG, CMD_RESERVE, FLAG_ERROR,
};
use super::mask::MacMask;
use super::reserve::Reserve;

/// The Arg of a frame, by command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body<'a> {
    /// The ATA registers and Data.
    Ata(AtaArg, &'a [u8]),
    QueryConfig(QueryConfig),
    MacMask(MacMask),
    Reserve(Reserve),
    /// A command this version does not define, or an error response (whose Arg is whatever the
    /// server echoed): the raw Arg.
    Other(&'a [u8]),
}

/// One decoded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame<'a> {
    pub header: Header,
    pub body: Body<'a>,
}

impl<'a> Frame<'a> {
    /// Decodes the header and, for the four version-1 commands, the Arg. Error responses and
    /// other versions keep the raw Arg: its layout is not promised then.
    pub fn parse(frame: &'a [u8]) -> Result<Self, FrameError> {
        let (header, arg) = Header::parse(frame)?;
        let typed = header.version == super::header::VERSION && header.flags & FLAG_ERROR == 0;
        let body = match header.command {
            CMD_ATA if typed => {
                let (a, data) = AtaArg::parse(arg)?;
                Body::Ata(a, data)
            }
            CMD_QUERY_CONFIG if typed => Body::QueryConfig(QueryConfig::parse(arg)?),
            CMD_MAC_MASK if typed => Body::MacMask(MacMask::parse(arg)?),
            CMD_RESERVE if typed => Body::Reserve(Reserve::parse(arg)?),
            _ => Body::Other(arg),
        };
        Ok(Frame { header, body })
    }

    /// Appends the frame's octets (no Ethernet padding).
    pub fn write(&self, out: &mut Vec<u8>) {
        self.header.write(out);
        match &self.body {
            Body::Ata(a, data) => {
                a.write(out);
                out.extend_from_slice(data);
            }
            Body::QueryConfig(q) => q.write(out),
            Body::MacMask(m) => m.write(out),
            Body::Reserve(r) => r.write(out),
            Body::Other(arg) => out.extend_from_slice(arg),
        }
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::new();
        self.write(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::super::header::{Header, CMD_ATA, MAJOR_ANY, MINOR_ANY};
    use super::*;

    #[test]
    fn every_command_round_trips() {
        let src = [2, 0, 0, 0, 0, 1];
        let dst = [2, 0, 0, 0, 0, 2];
        let data = [0x5A; 1024];
        let bodies = [
            Body::Ata(
                AtaArg::command(super::super::ata::cmd::WRITE_SECTORS_EXT, 77, 2, true, true),
                &data[..],
            ),
            Body::QueryConfig(QueryConfig::command(3, b"hello")),
            Body::MacMask(MacMask::read()),
            Body::Reserve(Reserve {
                rcmd: 1,
                macs: vec![src],
            }),
            Body::Other(&[1, 2, 3]),
        ];
        for (i, body) in bodies.into_iter().enumerate() {
            let command = if i < 4 { i as u8 } else { 0x42 };
            let f = Frame {
                header: Header::request(src, dst, MAJOR_ANY, MINOR_ANY, command, i as u32),
                body,
            };
            let bytes = f.to_vec();
            assert_eq!(Frame::parse(&bytes).unwrap(), f, "command {command}");
        }
    }

    #[test]
    fn truncated_ata_arg_is_an_error() {
        let mut bytes = Vec::new();
        Header::request([0; 6], [0; 6], 1, 1, CMD_ATA, 9).write(&mut bytes);
        bytes.extend_from_slice(&[0; 5]);
        assert!(matches!(
            Frame::parse(&bytes),
            Err(FrameError::ArgShort { command: 0, .. })
        ));
    }
}
