//! Class 3 SCSI-FCP framing (what the draft names: R_CTL 0x06 command, 0x01 solicited data,
//! 0x05 data descriptor, 0x07 response; TYPE 0x08; OX_ID/RX_ID/SEQ_ID/SEQ_CNT) and a simulated
//! FC port for the server agent to bridge to: an FCP target with a patterned disk, or a
//! loopback plug.
//!
//! A read exchange: FCP_CMND (SOFi3 … EOFn, sequence initiative to the target) → FCP_DATA
//! frames (one sequence, SOFi3 then SOFn3, Parameter = relative offset) → FCP_RSP (SOFi3,
//! Last_Sequence, EOFt closes the exchange).

use super::delimiter::{Eof, Sof};
use super::frame::FcFrame;
use super::header::{fc_type, r_ctl, FCtl, FcHeader, UNASSIGNED_XID};
use super::FcError;
use std::collections::BTreeMap;

pub const BLOCK_LEN: usize = 512;
/// Data octets per FCP_DATA frame (a common FC maximum).
pub const DATA_PER_FRAME: usize = 2048;
pub const FCP_CMND_LEN: usize = 32;
pub const FCP_RSP_LEN: usize = 24;

/// SCSI status codes used here.
pub const STATUS_GOOD: u8 = 0x00;
pub const STATUS_CHECK_CONDITION: u8 = 0x02;

/// FCP_RSP flag bits (octet 10).
pub const RSP_SNS_LEN_VALID: u8 = 0x02;
pub const RSP_RESID_OVER: u8 = 0x04;
pub const RSP_RESID_UNDER: u8 = 0x08;

const READ_10: u8 = 0x28;

/// FCP_CMND IU (FCP-3), with a 16-octet CDB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct FcpCmnd {
    pub lun: [u8; 8],
    pub crn: u8,
    /// Task attribute (0 = simple).
    pub task_attribute: u8,
    pub task_management: u8,
    pub read_data: bool,
    pub write_data: bool,
    pub cdb: [u8; 16],
    /// FCP_DL: the most data the initiator expects.
    pub data_length: u32,
}

impl FcpCmnd {
    pub fn read10(lba: u32, blocks: u16) -> FcpCmnd {
        let mut cdb = [0u8; 16];
        cdb[0] = READ_10;
        cdb[2..6].copy_from_slice(&lba.to_be_bytes());
        cdb[7..9].copy_from_slice(&blocks.to_be_bytes());
        FcpCmnd {
            read_data: true,
            cdb,
            data_length: blocks as u32 * BLOCK_LEN as u32,
            ..Default::default()
        }
    }

    pub fn encode(&self) -> [u8; FCP_CMND_LEN] {
        let mut b = [0u8; FCP_CMND_LEN];
        b[0..8].copy_from_slice(&self.lun);
        b[8] = self.crn;
        b[9] = self.task_attribute & 0x07;
        b[10] = self.task_management;
        b[11] = (self.read_data as u8) << 1 | self.write_data as u8;
        b[12..28].copy_from_slice(&self.cdb);
        b[28..32].copy_from_slice(&self.data_length.to_be_bytes());
        b
    }

    pub fn decode(b: &[u8]) -> Result<FcpCmnd, FcError> {
        if b.len() != FCP_CMND_LEN {
            return Err(FcError::Fcp {
                reason: "FCP_CMND must be 32 octets (no additional CDB)",
            });
        }
        if b[11] >> 2 != 0 {
            return Err(FcError::Fcp {
                reason: "additional FCP_CDB length is not supported",
            });
        }
        Ok(FcpCmnd {
            lun: b[0..8].try_into().expect("8"),
            crn: b[8],
            task_attribute: b[9] & 0x07,
            task_management: b[10],
            read_data: b[11] & 2 != 0,
            write_data: b[11] & 1 != 0,
            cdb: b[12..28].try_into().expect("16"),
            data_length: u32::from_be_bytes([b[28], b[29], b[30], b[31]]),
        })
    }
}

/// FCP_RSP IU without response info; sense data follows when SNS_LEN_VALID is set.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FcpRsp {
    pub flags: u8,
    pub status: u8,
    pub residual: u32,
    pub sense: Vec<u8>,
}

impl FcpRsp {
    pub fn encode(&self) -> Vec<u8> {
        let mut b = vec![0u8; FCP_RSP_LEN];
        let flags = if self.sense.is_empty() {
            self.flags & !RSP_SNS_LEN_VALID
        } else {
            self.flags | RSP_SNS_LEN_VALID
        };
        b[10] = flags;
        b[11] = self.status;
        b[12..16].copy_from_slice(&self.residual.to_be_bytes());
        b[16..20].copy_from_slice(&(self.sense.len() as u32).to_be_bytes());
        b.extend_from_slice(&self.sense);
        b
    }

    pub fn decode(b: &[u8]) -> Result<FcpRsp, FcError> {
        if b.len() < FCP_RSP_LEN {
            return Err(FcError::Fcp {
                reason: "FCP_RSP shorter than 24 octets",
            });
        }
        let flags = b[10];
        let sns_len = u32::from_be_bytes([b[16], b[17], b[18], b[19]]) as usize;
        let rsp_len = u32::from_be_bytes([b[20], b[21], b[22], b[23]]) as usize;
        let rsp_len = if flags & 0x01 != 0 { rsp_len } else { 0 };
        let sns_len = if flags & RSP_SNS_LEN_VALID != 0 {
            sns_len
        } else {
            0
        };
        if FCP_RSP_LEN.saturating_add(rsp_len).saturating_add(sns_len) > b.len() {
            return Err(FcError::Fcp {
                reason: "FCP_RSP lengths exceed the frame",
            });
        }
        let at = FCP_RSP_LEN + rsp_len;
        Ok(FcpRsp {
            flags,
            status: b[11],
            residual: u32::from_be_bytes([b[12], b[13], b[14], b[15]]),
            sense: b[at..at + sns_len].to_vec(),
        })
    }
}

/// The command frame of an exchange the initiator `s_id` opens with `ox_id`.
pub fn command_frame(s_id: u32, d_id: u32, ox_id: u16, cmnd: &FcpCmnd) -> FcFrame {
    let header = FcHeader {
        r_ctl: r_ctl::UNSOLICITED_COMMAND,
        d_id,
        s_id,
        fc_type: fc_type::SCSI_FCP,
        f_ctl: FCtl::FIRST_SEQUENCE | FCtl::END_SEQUENCE | FCtl::SEQUENCE_INITIATIVE,
        seq_id: 0,
        seq_cnt: 0,
        ox_id,
        rx_id: UNASSIGNED_XID,
        ..Default::default()
    };
    FcFrame::new(Sof::I3, header, cmnd.encode().to_vec(), Eof::N)
}

/// The disk's content: octet `i` of block `lba` (the block's LBA in its first 8 octets, so a
/// misplaced block shows).
pub fn disk_octet(lba: u64, i: usize) -> u8 {
    if i < 8 {
        lba.to_be_bytes()[i]
    } else {
        (lba as u8)
            .wrapping_mul(13)
            .wrapping_add(i as u8)
            .wrapping_add((i >> 8) as u8)
    }
}

pub fn disk_blocks(lba: u64, blocks: u64) -> Vec<u8> {
    (lba..lba + blocks)
        .flat_map(|l| (0..BLOCK_LEN).map(move |i| disk_octet(l, i)))
        .collect()
}

/// Fixed-format sense data: CHECK CONDITION, ILLEGAL REQUEST with `asc`.
fn illegal_request(asc: u8) -> Vec<u8> {
    let mut s = vec![0u8; 18];
    s[0] = 0x70;
    s[2] = 0x05;
    s[7] = 10;
    s[12] = asc;
    s
}

/// What the server agent bridges a stream to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimPort {
    /// An FCP target: answers READ(10) from a patterned disk of `capacity_blocks` blocks;
    /// other commands get CHECK CONDITION (invalid opcode).
    FcpTarget {
        capacity_blocks: u64,
        next_rx_id: u16,
    },
    /// A loopback plug: every frame comes back as it went out.
    Loopback,
}

impl SimPort {
    pub fn fcp_target(capacity_blocks: u64) -> SimPort {
        SimPort::FcpTarget {
            capacity_blocks,
            next_rx_id: 0x0100,
        }
    }

    /// Delivers a frame to the port; returns what the port sends back.
    pub fn deliver(&mut self, frame: FcFrame) -> Vec<FcFrame> {
        match self {
            SimPort::Loopback => vec![frame],
            SimPort::FcpTarget {
                capacity_blocks,
                next_rx_id,
            } => {
                let h = frame.header;
                if h.r_ctl != r_ctl::UNSOLICITED_COMMAND || h.fc_type != fc_type::SCSI_FCP {
                    return Vec::new();
                }
                let rx_id = *next_rx_id;
                *next_rx_id = if *next_rx_id >= UNASSIGNED_XID - 1 {
                    1
                } else {
                    *next_rx_id + 1
                };
                let Ok(cmnd) = FcpCmnd::decode(&frame.payload) else {
                    return vec![response_frame(
                        &h,
                        rx_id,
                        1,
                        &FcpRsp {
                            status: STATUS_CHECK_CONDITION,
                            sense: illegal_request(0x24),
                            ..Default::default()
                        },
                    )];
                };
                if cmnd.cdb[0] != READ_10 {
                    return vec![response_frame(
                        &h,
                        rx_id,
                        1,
                        &FcpRsp {
                            status: STATUS_CHECK_CONDITION,
                            sense: illegal_request(0x20),
                            ..Default::default()
                        },
                    )];
                }
                let lba = u32::from_be_bytes(cmnd.cdb[2..6].try_into().expect("4")) as u64;
                let blocks = u16::from_be_bytes([cmnd.cdb[7], cmnd.cdb[8]]) as u64;
                if lba + blocks > *capacity_blocks {
                    return vec![response_frame(
                        &h,
                        rx_id,
                        1,
                        &FcpRsp {
                            status: STATUS_CHECK_CONDITION,
                            sense: illegal_request(0x21),
                            ..Default::default()
                        },
                    )];
                }
                let want = blocks as usize * BLOCK_LEN;
                let send = want.min(cmnd.data_length as usize);
                let data = disk_blocks(lba, blocks);
                let mut out = data_frames(&h, rx_id, &data[..send]);
                let (flags, residual) = match want.cmp(&send) {
                    std::cmp::Ordering::Greater => (RSP_RESID_OVER, (want - send) as u32),
                    _ => (0, 0),
                };
                let seq_id = if out.is_empty() { 1 } else { 2 };
                out.push(response_frame(
                    &h,
                    rx_id,
                    seq_id,
                    &FcpRsp {
                        flags,
                        status: STATUS_GOOD,
                        residual,
                        sense: vec![],
                    },
                ));
                out
            }
        }
    }
}

/// The target's header for an answer in the exchange of `cmd`.
fn answer_header(cmd: &FcHeader, rx_id: u16, r: u8, seq_id: u8, f_ctl: FCtl) -> FcHeader {
    FcHeader {
        r_ctl: r,
        d_id: cmd.s_id,
        s_id: cmd.d_id,
        fc_type: fc_type::SCSI_FCP,
        f_ctl: FCtl::EXCHANGE_CONTEXT | f_ctl,
        seq_id,
        ox_id: cmd.ox_id,
        rx_id,
        ..Default::default()
    }
}

fn data_frames(cmd: &FcHeader, rx_id: u16, data: &[u8]) -> Vec<FcFrame> {
    let n = data.len().div_ceil(DATA_PER_FRAME);
    data.chunks(DATA_PER_FRAME)
        .enumerate()
        .map(|(i, chunk)| {
            let last = if i + 1 == n {
                FCtl::END_SEQUENCE
            } else {
                FCtl::empty()
            };
            let mut h = answer_header(
                cmd,
                rx_id,
                r_ctl::SOLICITED_DATA,
                1,
                FCtl::RELATIVE_OFFSET | last,
            );
            h.seq_cnt = i as u16;
            h.parameter = (i * DATA_PER_FRAME) as u32;
            FcFrame::new(
                if i == 0 { Sof::I3 } else { Sof::N3 },
                h,
                chunk.to_vec(),
                Eof::N,
            )
        })
        .collect()
}

fn response_frame(cmd: &FcHeader, rx_id: u16, seq_id: u8, rsp: &FcpRsp) -> FcFrame {
    let h = answer_header(
        cmd,
        rx_id,
        r_ctl::COMMAND_STATUS,
        seq_id,
        FCtl::LAST_SEQUENCE | FCtl::END_SEQUENCE,
    );
    FcFrame::new(Sof::I3, h, rsp.encode(), Eof::T)
}

/// The initiator's side of a read exchange: collects FCP_DATA by relative offset (SCTP
/// delivers unordered, so the response may come before the data) until the data and the
/// response are in.
#[derive(Clone, Debug)]
pub struct ReadExchange {
    pub ox_id: u16,
    expected: usize,
    data: Vec<u8>,
    pieces: BTreeMap<usize, usize>,
    received: usize,
    rsp: Option<FcpRsp>,
}

impl ReadExchange {
    pub fn new(ox_id: u16, expected_len: usize) -> ReadExchange {
        ReadExchange {
            ox_id,
            expected: expected_len,
            data: vec![0; expected_len],
            pieces: BTreeMap::new(),
            received: 0,
            rsp: None,
        }
    }

    /// Takes one frame of the exchange; frames of other exchanges are refused.
    pub fn on_frame(&mut self, f: &FcFrame) -> Result<(), FcError> {
        let h = &f.header;
        if h.ox_id != self.ox_id || !h.f_ctl.contains(FCtl::EXCHANGE_CONTEXT) {
            return Err(FcError::Fcp {
                reason: "frame of another exchange",
            });
        }
        match h.r_ctl {
            r_ctl::SOLICITED_DATA => {
                let off = if h.f_ctl.contains(FCtl::RELATIVE_OFFSET) {
                    h.parameter as usize
                } else {
                    return Err(FcError::Fcp {
                        reason: "FCP_DATA without a relative offset",
                    });
                };
                let end = off
                    .checked_add(f.payload.len())
                    .filter(|&e| e <= self.expected);
                let Some(end) = end else {
                    return Err(FcError::Fcp {
                        reason: "FCP_DATA beyond FCP_DL",
                    });
                };
                let overlaps = self
                    .pieces
                    .range(..end)
                    .next_back()
                    .is_some_and(|(&o, &l)| o + l > off);
                if overlaps {
                    return Err(FcError::Fcp {
                        reason: "FCP_DATA overlaps data already received",
                    });
                }
                self.pieces.insert(off, f.payload.len());
                self.data[off..end].copy_from_slice(&f.payload);
                self.received += f.payload.len();
                Ok(())
            }
            r_ctl::COMMAND_STATUS => {
                self.rsp = Some(FcpRsp::decode(&f.payload)?);
                Ok(())
            }
            _ => Err(FcError::Fcp {
                reason: "unexpected R_CTL in a read exchange",
            }),
        }
    }

    /// The response, once it and all the data it accounts for are in.
    pub fn done(&self) -> Option<&FcpRsp> {
        let rsp = self.rsp.as_ref()?;
        let want = if rsp.status == STATUS_GOOD {
            self.expected - rsp.residual as usize
        } else {
            self.received
        };
        (self.received == want).then_some(rsp)
    }

    pub fn data(&self) -> &[u8] {
        &self.data[..self.received]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_exchange_end_to_end_in_memory() {
        let mut port = SimPort::fcp_target(100);
        let cmd = command_frame(0x010100, 0x010200, 0x1234, &FcpCmnd::read10(10, 9));
        assert_eq!(cmd.header.r_ctl, 0x06);
        assert_eq!(cmd.payload.len(), 32);
        let mut answers = port.deliver(cmd);
        assert_eq!(answers.len(), 4, "3 data frames (4608 octets) + response");
        assert_eq!(answers[0].sof, Sof::I3);
        assert_eq!(answers[1].sof, Sof::N3);
        assert!(answers[2].header.f_ctl.contains(FCtl::END_SEQUENCE));
        assert_eq!(answers[3].eof, Eof::T);
        assert_eq!(answers[3].header.r_ctl, 0x07);
        let mut x = ReadExchange::new(0x1234, 9 * 512);
        answers.reverse(); // unordered delivery
        for f in &answers {
            x.on_frame(f).unwrap();
        }
        assert_eq!(x.done().unwrap().status, STATUS_GOOD);
        assert_eq!(x.data(), &disk_blocks(10, 9)[..]);
        assert!(x.on_frame(&answers[1]).is_err(), "overlap");
    }

    #[test]
    fn target_errors_and_short_fcp_dl() {
        let mut port = SimPort::fcp_target(8);
        let r = port.deliver(command_frame(1, 2, 3, &FcpCmnd::read10(7, 2)));
        let rsp = FcpRsp::decode(&r[0].payload).unwrap();
        assert_eq!(rsp.status, STATUS_CHECK_CONDITION);
        assert_eq!(rsp.sense[12], 0x21);
        let mut c = FcpCmnd::read10(0, 2);
        c.data_length = 600;
        let r = port.deliver(command_frame(1, 2, 4, &c));
        let rsp = FcpRsp::decode(&r.last().unwrap().payload).unwrap();
        assert_eq!((rsp.flags, rsp.residual), (RSP_RESID_OVER, 424));
        let mut x = ReadExchange::new(4, 1024);
        for f in &r {
            x.on_frame(f).unwrap();
        }
        assert_eq!(x.data().len(), 600);
        assert!(x.done().is_some());
        assert_eq!(FcpCmnd::decode(&c.encode()).unwrap(), c);
    }
}
