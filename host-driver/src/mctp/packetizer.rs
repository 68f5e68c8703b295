//! Splitting a message into MCTP packets (DSP0236 §8.8 "Packet assembly into messages";
//! NVMe-MI §3.2.1.1).
//!
//! Every packet but the last carries exactly `mtu` payload octets and the last carries the
//! rest (NVMe-MI §3.2.1.1 makes this a requirement, DSP0236 allows a receiver to drop anything
//! else); SOM marks the first packet, EOM the last, and the sequence number counts modulo 4
//! from `start_seq`.

use super::header::{
    Header, HeaderError, EID_BROADCAST, EID_RESERVED, HEADER_LEN, SEQ_MODULUS, TAG_MAX,
};
use super::MctpError;

/// The baseline transmission unit every MCTP medium supports (DSP0236 §8.3): payload octets.
pub const BASELINE_MTU: usize = 64;
/// No non-final packet may carry less than the baseline unit.
pub const MIN_MTU: usize = BASELINE_MTU;
/// Largest payload a byte-count-framed binding can describe: the serial binding's 8-bit byte
/// count covers the whole packet (DSP0253), so 255 − 4 header octets.
pub const MAX_MTU: usize = 255 - HEADER_LEN;
/// Largest payload the SMBus/I2C binding can carry: its 8-bit byte count also covers the
/// source slave address octet (DSP0237), so 255 − 1 − 4.
pub const SMBUS_MAX_MTU: usize = 255 - 1 - HEADER_LEN;
/// Largest message we packetize: the Linux kernel's reassembly limit (`mctp_message_maxlen`),
/// so anything we send can be received by it.
pub const MAX_MESSAGE_LEN: usize = 64 * 1024;

/// How a message is put into packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxConfig {
    pub src: u8,
    pub dst: u8,
    /// Message tag, 0..=7.
    pub tag: u8,
    /// TO: set on requests (the requester owns the tag), clear on responses.
    pub tag_owner: bool,
    /// Payload octets per packet (the negotiated transmission unit), `MIN_MTU..=MAX_MTU`.
    pub mtu: usize,
    /// Sequence number of the first packet, 0..=3.
    pub start_seq: u8,
}

impl TxConfig {
    /// A config with the baseline MTU and sequence 0.
    pub fn new(src: u8, dst: u8, tag: u8, tag_owner: bool) -> TxConfig {
        TxConfig {
            src,
            dst,
            tag,
            tag_owner,
            mtu: BASELINE_MTU,
            start_seq: 0,
        }
    }

    /// Checks every field; the packetizer never emits a header it could not decode back.
    pub fn validate(&self) -> Result<(), MctpError> {
        if self.tag > TAG_MAX {
            return Err(HeaderError::TagOutOfRange { tag: self.tag }.into());
        }
        if self.start_seq >= SEQ_MODULUS {
            return Err(HeaderError::SeqOutOfRange {
                seq: self.start_seq,
            }
            .into());
        }
        if !(MIN_MTU..=MAX_MTU).contains(&self.mtu) {
            return Err(MctpError::MtuOutOfRange {
                mtu: self.mtu,
                min: MIN_MTU,
                max: MAX_MTU,
            });
        }
        // DSP0236 §8.2: 1–7 are reserved everywhere; broadcast is a destination only.
        if EID_RESERVED.contains(&self.src) || self.src == EID_BROADCAST {
            return Err(MctpError::InvalidEid {
                field: "source",
                eid: self.src,
            });
        }
        if EID_RESERVED.contains(&self.dst) {
            return Err(MctpError::InvalidEid {
                field: "destination",
                eid: self.dst,
            });
        }
        Ok(())
    }

    /// Number of packets a message of `len` octets takes.
    pub fn packet_count(&self, len: usize) -> usize {
        len.div_ceil(self.mtu)
    }
}

/// The packets of one message, lazily: each item is a header and its payload slice.
#[derive(Debug, Clone)]
pub struct Packets<'a> {
    config: TxConfig,
    chunks: std::slice::Chunks<'a, u8>,
    index: usize,
    count: usize,
}

impl<'a> Packets<'a> {
    /// Validates the config and the message size, then yields the packets in order.
    pub fn new(config: &TxConfig, message: &'a [u8]) -> Result<Packets<'a>, MctpError> {
        config.validate()?;
        if message.is_empty() {
            return Err(MctpError::EmptyMessage);
        }
        if message.len() > MAX_MESSAGE_LEN {
            return Err(MctpError::MessageTooLong {
                len: message.len(),
                max: MAX_MESSAGE_LEN,
            });
        }
        Ok(Packets {
            config: *config,
            chunks: message.chunks(config.mtu),
            index: 0,
            count: config.packet_count(message.len()),
        })
    }
}

impl<'a> Iterator for Packets<'a> {
    type Item = (Header, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let payload = self.chunks.next()?;
        let c = &self.config;
        let h = Header {
            dst: c.dst,
            src: c.src,
            som: self.index == 0,
            eom: self.index + 1 == self.count,
            seq: ((c.start_seq as usize + self.index) % SEQ_MODULUS as usize) as u8,
            tag_owner: c.tag_owner,
            tag: c.tag,
        };
        self.index += 1;
        Some((h, payload))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.count - self.index;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Packets<'_> {}

/// Splits `message` (first octet IC·message type) into encoded packets.
pub fn packetize(config: &TxConfig, message: &[u8]) -> Result<Vec<Vec<u8>>, MctpError> {
    let packets = Packets::new(config, message)?;
    Ok(packets
        .map(|(h, payload)| {
            let mut p = Vec::with_capacity(HEADER_LEN + payload.len());
            p.extend_from_slice(&h.encode_unchecked());
            p.extend_from_slice(payload);
            p
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cfg() -> TxConfig {
        TxConfig {
            src: 0x08,
            dst: 0x09,
            tag: 3,
            tag_owner: true,
            mtu: 64,
            start_seq: 0,
        }
    }

    #[test]
    fn single_packet_message() {
        let pkts = packetize(&cfg(), &[0x84, 0x08, 0x00, 0x00]).unwrap();
        // SOM|EOM, seq 0, TO, tag 3 = 1100_1011
        assert_eq!(
            pkts,
            vec![vec![0x01, 0x09, 0x08, 0xCB, 0x84, 0x08, 0x00, 0x00]]
        );
    }

    #[test]
    fn sizes_flags_and_sequence_wrap() {
        // 5 full packets + 1 octet, start at seq 2: seqs 2,3,0,1,2,3.
        let msg: Vec<u8> = (0..(64 * 5 + 1) as u32).map(|i| i as u8).collect();
        let c = TxConfig {
            start_seq: 2,
            ..cfg()
        };
        let pkts = packetize(&c, &msg).unwrap();
        assert_eq!(pkts.len(), 6);
        let flags: Vec<u8> = pkts.iter().map(|p| p[3]).collect();
        // TO|tag3 = 0x0B; SOM 0x80, EOM 0x40, seq<<4
        assert_eq!(
            flags,
            vec![
                0x80 | 0x20 | 0x0B,
                0x30 | 0x0B,
                0x0B,
                0x10 | 0x0B,
                0x20 | 0x0B,
                0x40 | 0x30 | 0x0B
            ]
        );
        for p in &pkts[..5] {
            assert_eq!(p.len(), HEADER_LEN + 64);
        }
        assert_eq!(pkts[5].len(), HEADER_LEN + 1);
        let joined: Vec<u8> = pkts.iter().flat_map(|p| p[HEADER_LEN..].to_vec()).collect();
        assert_eq!(joined, msg);
    }

    #[test]
    fn exact_multiple_of_mtu_has_no_empty_tail() {
        let msg = vec![0x7Fu8; 128];
        let pkts = packetize(&cfg(), &msg).unwrap();
        assert_eq!(pkts.len(), 2);
        assert_eq!(pkts[1].len(), HEADER_LEN + 64);
        assert_eq!(pkts[1][3] & 0xC0, 0x40);
    }

    #[test]
    fn config_errors() {
        let e = |c: TxConfig| packetize(&c, &[0]).unwrap_err();
        assert!(matches!(
            e(TxConfig { tag: 8, ..cfg() }),
            MctpError::Header(HeaderError::TagOutOfRange { tag: 8 })
        ));
        assert!(matches!(
            e(TxConfig {
                start_seq: 4,
                ..cfg()
            }),
            MctpError::Header(HeaderError::SeqOutOfRange { seq: 4 })
        ));
        assert!(matches!(
            e(TxConfig { mtu: 63, ..cfg() }),
            MctpError::MtuOutOfRange { mtu: 63, .. }
        ));
        assert!(matches!(
            e(TxConfig { mtu: 252, ..cfg() }),
            MctpError::MtuOutOfRange { mtu: 252, .. }
        ));
        assert!(matches!(
            e(TxConfig { src: 0xFF, ..cfg() }),
            MctpError::InvalidEid {
                field: "source",
                eid: 0xFF
            }
        ));
        assert!(matches!(
            e(TxConfig { dst: 7, ..cfg() }),
            MctpError::InvalidEid {
                field: "destination",
                eid: 7
            }
        ));
        assert!(matches!(
            packetize(&cfg(), &[]),
            Err(MctpError::EmptyMessage)
        ));
        let big = vec![0u8; MAX_MESSAGE_LEN + 1];
        assert!(
            matches!(packetize(&cfg(), &big), Err(MctpError::MessageTooLong { len, .. }) if len == MAX_MESSAGE_LEN + 1)
        );
        // Bounds themselves are accepted; null source and broadcast destination are fine.
        for c in [
            TxConfig {
                mtu: MIN_MTU,
                ..cfg()
            },
            TxConfig {
                mtu: MAX_MTU,
                ..cfg()
            },
            TxConfig {
                src: 0,
                dst: 0xFF,
                ..cfg()
            },
        ] {
            assert!(packetize(&c, &[1]).is_ok(), "{c:?}");
        }
    }

    proptest! {
        #[test]
        fn packet_rules_hold(len in 1usize..2000, mtu in MIN_MTU..=MAX_MTU, seq in 0u8..4, tag in 0u8..8, to: bool) {
            let c = TxConfig { src: 0x10, dst: 0x20, tag, tag_owner: to, mtu, start_seq: seq };
            let msg: Vec<u8> = (0..len).map(|i| (i * 31) as u8).collect();
            let pkts = packetize(&c, &msg).unwrap();
            prop_assert_eq!(pkts.len(), len.div_ceil(mtu));
            let mut joined = Vec::new();
            for (i, p) in pkts.iter().enumerate() {
                let (h, payload) = Header::split(p).unwrap();
                prop_assert_eq!(h.som, i == 0);
                prop_assert_eq!(h.eom, i + 1 == pkts.len());
                prop_assert_eq!(h.seq as usize, (seq as usize + i) % 4);
                prop_assert_eq!((h.src, h.dst, h.tag, h.tag_owner), (0x10, 0x20, tag, to));
                if !h.eom { prop_assert_eq!(payload.len(), mtu); }
                joined.extend_from_slice(payload);
            }
            prop_assert_eq!(joined, msg);
        }
    }
}
