//! MCTP control messages (DSP0236 §11, §12), type 0: the codec.
//!
//! ```text
//! octet 0  IC(7) = 0 · message type(6:0) = 0
//! octet 1  Rq(7) · D(6) · reserved(5) · instance ID(4:0)
//! octet 2  command code
//! octet 3  completion code (responses only), then the command's data
//! ```
//! Implemented commands: Set Endpoint ID (0x01), Get Endpoint ID (0x02), Get Endpoint UUID
//! (0x03), Get MCTP Version Support (0x04), Get Message Type Support (0x05), Resolve Endpoint
//! ID (0x07). A request for any other command decodes as [`Request::Unsupported`] so a
//! responder can answer `ERROR_UNSUPPORTED_CMD`. Lengths are exact: a request with missing or
//! extra octets is an error (`ERROR_INVALID_LENGTH`), as are response fields that do not
//! add up.

/// Completion codes (DSP0236 Table 13).
pub mod cc {
    pub const SUCCESS: u8 = 0x00;
    pub const ERROR: u8 = 0x01;
    pub const ERROR_INVALID_DATA: u8 = 0x02;
    pub const ERROR_INVALID_LENGTH: u8 = 0x03;
    pub const ERROR_NOT_READY: u8 = 0x04;
    pub const ERROR_UNSUPPORTED_CMD: u8 = 0x05;
    /// Get MCTP Version Support: message type number not supported.
    pub const MESSAGE_TYPE_NOT_SUPPORTED: u8 = 0x80;
}

/// Command codes (DSP0236 Table 12).
pub mod cmd {
    pub const SET_ENDPOINT_ID: u8 = 0x01;
    pub const GET_ENDPOINT_ID: u8 = 0x02;
    pub const GET_ENDPOINT_UUID: u8 = 0x03;
    pub const GET_VERSION_SUPPORT: u8 = 0x04;
    pub const GET_MESSAGE_TYPE_SUPPORT: u8 = 0x05;
    pub const RESOLVE_ENDPOINT_ID: u8 = 0x07;
}

/// Octet 1.
pub const RQ_BIT: u8 = 7;
pub const D_BIT: u8 = 6;
pub const INSTANCE_MASK: u8 = 0x1F;
/// Get MCTP Version Support: the base specification's "message type" number.
pub const VERSION_TYPE_BASE: u8 = 0xFF;
/// The version entry of DSP0236 1.3.1 (BCD with 0xF high nibbles: major, minor, update, alpha).
pub const VERSION_1_3_1: [u8; 4] = [0xF1, 0xF3, 0xF1, 0x00];

/// Why octets are not a control message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    #[error("control message of {len} octets is shorter than {need}")]
    Short { len: usize, need: usize },
    #[error("message type {found} is not MCTP control (0)")]
    NotControl { found: u8 },
    #[error("IC bit set: control messages carry no integrity check")]
    IcSet,
    #[error("Rq bit {found} where a {} was expected", if *.expected_request { "request" } else { "response" })]
    Direction { expected_request: bool, found: bool },
    #[error("command 0x{command:02x}: {len} data octets where {expected} were expected")]
    Length {
        command: u8,
        len: usize,
        expected: usize,
    },
    #[error("command 0x{command:02x}: count {count} does not match {remaining} remaining octets")]
    Count {
        command: u8,
        count: usize,
        remaining: usize,
    },
    #[error("instance ID {0} over 31")]
    Instance(u8),
    #[error("response to command 0x{0:02x}, which has no decoder")]
    UnknownResponse(u8),
    #[error("{0}")]
    Field(&'static str),
}

/// Octets 1–2 of every control message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControlHeader {
    pub request: bool,
    /// Datagram: no response expected.
    pub datagram: bool,
    /// 0..=31; a response echoes its request's.
    pub instance: u8,
    pub command: u8,
}

impl ControlHeader {
    fn encode(&self) -> Result<[u8; 3], ControlError> {
        if self.instance > INSTANCE_MASK {
            return Err(ControlError::Instance(self.instance));
        }
        Ok([
            0x00,
            (u8::from(self.request) << RQ_BIT) | (u8::from(self.datagram) << D_BIT) | self.instance,
            self.command,
        ])
    }

    /// Decodes octets 0–2 (reserved bit 5 ignored).
    pub fn decode(msg: &[u8]) -> Result<ControlHeader, ControlError> {
        let Some(h) = msg.get(..3) else {
            return Err(ControlError::Short {
                len: msg.len(),
                need: 3,
            });
        };
        if h[0] & 0x7F != 0 {
            return Err(ControlError::NotControl { found: h[0] & 0x7F });
        }
        if h[0] & 0x80 != 0 {
            return Err(ControlError::IcSet);
        }
        Ok(ControlHeader {
            request: h[1] & (1 << RQ_BIT) != 0,
            datagram: h[1] & (1 << D_BIT) != 0,
            instance: h[1] & INSTANCE_MASK,
            command: h[2],
        })
    }
}

/// Set Endpoint ID operation (request octet 1, bits 1:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetEidOp {
    Set = 0,
    Force = 1,
    Reset = 2,
    SetDiscovered = 3,
}

impl SetEidOp {
    fn from_bits(v: u8) -> SetEidOp {
        match v & 3 {
            0 => SetEidOp::Set,
            1 => SetEidOp::Force,
            2 => SetEidOp::Reset,
            _ => SetEidOp::SetDiscovered,
        }
    }
}

/// A control request's command and data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    SetEid {
        op: SetEidOp,
        eid: u8,
    },
    GetEid,
    GetUuid,
    /// `msg_type`: a message type, or [`VERSION_TYPE_BASE`] for DSP0236 itself.
    GetVersionSupport {
        msg_type: u8,
    },
    GetMessageTypeSupport,
    ResolveEid {
        target: u8,
    },
    /// Any other command, kept so the responder can refuse it.
    Unsupported {
        command: u8,
        data: Vec<u8>,
    },
}

impl Request {
    pub fn command(&self) -> u8 {
        match self {
            Request::SetEid { .. } => cmd::SET_ENDPOINT_ID,
            Request::GetEid => cmd::GET_ENDPOINT_ID,
            Request::GetUuid => cmd::GET_ENDPOINT_UUID,
            Request::GetVersionSupport { .. } => cmd::GET_VERSION_SUPPORT,
            Request::GetMessageTypeSupport => cmd::GET_MESSAGE_TYPE_SUPPORT,
            Request::ResolveEid { .. } => cmd::RESOLVE_ENDPOINT_ID,
            Request::Unsupported { command, .. } => *command,
        }
    }

    /// The whole message, type octet first.
    pub fn encode(&self, instance: u8) -> Result<Vec<u8>, ControlError> {
        let h = ControlHeader {
            request: true,
            datagram: false,
            instance,
            command: self.command(),
        };
        let mut m = h.encode()?.to_vec();
        match self {
            Request::SetEid { op, eid } => m.extend_from_slice(&[*op as u8, *eid]),
            Request::GetVersionSupport { msg_type } => m.push(*msg_type),
            Request::ResolveEid { target } => m.push(*target),
            Request::Unsupported { data, .. } => m.extend_from_slice(data),
            Request::GetEid | Request::GetUuid | Request::GetMessageTypeSupport => {}
        }
        Ok(m)
    }

    /// Decodes a request message.
    pub fn decode(msg: &[u8]) -> Result<(ControlHeader, Request), ControlError> {
        let h = ControlHeader::decode(msg)?;
        if !h.request {
            return Err(ControlError::Direction {
                expected_request: true,
                found: false,
            });
        }
        let d = &msg[3..];
        let exact = |n: usize| {
            if d.len() == n {
                Ok(())
            } else {
                Err(ControlError::Length {
                    command: h.command,
                    len: d.len(),
                    expected: n,
                })
            }
        };
        let r = match h.command {
            cmd::SET_ENDPOINT_ID => {
                exact(2)?;
                Request::SetEid {
                    op: SetEidOp::from_bits(d[0]),
                    eid: d[1],
                }
            }
            cmd::GET_ENDPOINT_ID => {
                exact(0)?;
                Request::GetEid
            }
            cmd::GET_ENDPOINT_UUID => {
                exact(0)?;
                Request::GetUuid
            }
            cmd::GET_VERSION_SUPPORT => {
                exact(1)?;
                Request::GetVersionSupport { msg_type: d[0] }
            }
            cmd::GET_MESSAGE_TYPE_SUPPORT => {
                exact(0)?;
                Request::GetMessageTypeSupport
            }
            cmd::RESOLVE_ENDPOINT_ID => {
                exact(1)?;
                Request::ResolveEid { target: d[0] }
            }
            command => Request::Unsupported {
                command,
                data: d.to_vec(),
            },
        };
        Ok((h, r))
    }
}

/// Set Endpoint ID response: assignment accepted or rejected (octet 2, bits 5:4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignment {
    Accepted = 0,
    Rejected = 1,
}

/// A control response's data (completion code success), or the failure code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Response {
    SetEid {
        assignment: Assignment,
        /// Endpoint ID allocation status, bits 1:0 (0: no EID pool).
        pool_status: u8,
        eid: u8,
        pool_size: u8,
    },
    GetEid {
        eid: u8,
        /// Bits 5:4: 0 simple endpoint, 1 bus owner or bridge.
        endpoint_type: u8,
        /// Bits 1:0: 0 dynamic, 1 static supported, 2 static current, 3 static not current.
        eid_type: u8,
        medium_specific: u8,
    },
    GetUuid {
        uuid: [u8; 16],
    },
    GetVersionSupport {
        versions: Vec<[u8; 4]>,
    },
    /// Message types other than control.
    GetMessageTypeSupport {
        types: Vec<u8>,
    },
    ResolveEid {
        bridge: u8,
        physical: Vec<u8>,
    },
    /// A completion code other than success: the response carries nothing else.
    Failed {
        command: u8,
        cc: u8,
    },
}

impl Response {
    pub fn command(&self) -> u8 {
        match self {
            Response::SetEid { .. } => cmd::SET_ENDPOINT_ID,
            Response::GetEid { .. } => cmd::GET_ENDPOINT_ID,
            Response::GetUuid { .. } => cmd::GET_ENDPOINT_UUID,
            Response::GetVersionSupport { .. } => cmd::GET_VERSION_SUPPORT,
            Response::GetMessageTypeSupport { .. } => cmd::GET_MESSAGE_TYPE_SUPPORT,
            Response::ResolveEid { .. } => cmd::RESOLVE_ENDPOINT_ID,
            Response::Failed { command, .. } => *command,
        }
    }

    /// The completion code.
    pub fn cc(&self) -> u8 {
        match self {
            Response::Failed { cc, .. } => *cc,
            _ => cc::SUCCESS,
        }
    }

    /// The whole message, type octet first.
    pub fn encode(&self, instance: u8) -> Result<Vec<u8>, ControlError> {
        let h = ControlHeader {
            request: false,
            datagram: false,
            instance,
            command: self.command(),
        };
        let mut m = h.encode()?.to_vec();
        m.push(self.cc());
        match self {
            Response::SetEid {
                assignment,
                pool_status,
                eid,
                pool_size,
            } => m.extend_from_slice(&[
                ((*assignment as u8) << 4) | (pool_status & 3),
                *eid,
                *pool_size,
            ]),
            Response::GetEid {
                eid,
                endpoint_type,
                eid_type,
                medium_specific,
            } => m.extend_from_slice(&[
                *eid,
                ((endpoint_type & 3) << 4) | (eid_type & 3),
                *medium_specific,
            ]),
            Response::GetUuid { uuid } => m.extend_from_slice(uuid),
            Response::GetVersionSupport { versions } => {
                let n = u8::try_from(versions.len())
                    .map_err(|_| ControlError::Field("more than 255 version entries"))?;
                m.push(n);
                versions.iter().for_each(|v| m.extend_from_slice(v));
            }
            Response::GetMessageTypeSupport { types } => {
                let n = u8::try_from(types.len())
                    .map_err(|_| ControlError::Field("more than 255 message types"))?;
                m.push(n);
                m.extend_from_slice(types);
            }
            Response::ResolveEid { bridge, physical } => {
                m.push(*bridge);
                m.extend_from_slice(physical);
            }
            Response::Failed { cc, .. } => {
                if *cc == cc::SUCCESS {
                    return Err(ControlError::Field(
                        "a failed response needs a non-zero completion code",
                    ));
                }
            }
        }
        Ok(m)
    }

    /// Decodes a response message.
    pub fn decode(msg: &[u8]) -> Result<(ControlHeader, Response), ControlError> {
        let h = ControlHeader::decode(msg)?;
        if h.request {
            return Err(ControlError::Direction {
                expected_request: false,
                found: true,
            });
        }
        let Some(&code) = msg.get(3) else {
            return Err(ControlError::Short {
                len: msg.len(),
                need: 4,
            });
        };
        let command = h.command;
        let d = &msg[4..];
        if code != cc::SUCCESS {
            // DSP0236 §11.6: on an error code only the completion code is required; extra
            // octets from a lenient responder are ignored.
            return Ok((h, Response::Failed { command, cc: code }));
        }
        let exact = |n: usize| {
            if d.len() == n {
                Ok(())
            } else {
                Err(ControlError::Length {
                    command,
                    len: d.len(),
                    expected: n,
                })
            }
        };
        let counted = |unit: usize| -> Result<&[u8], ControlError> {
            let Some((&n, rest)) = d.split_first() else {
                return Err(ControlError::Length {
                    command,
                    len: 0,
                    expected: 1,
                });
            };
            if rest.len() != n as usize * unit {
                return Err(ControlError::Count {
                    command,
                    count: n as usize,
                    remaining: rest.len(),
                });
            }
            Ok(rest)
        };
        let r = match command {
            cmd::SET_ENDPOINT_ID => {
                exact(3)?;
                let assignment = match (d[0] >> 4) & 3 {
                    0 => Assignment::Accepted,
                    1 => Assignment::Rejected,
                    _ => return Err(ControlError::Field("reserved EID assignment status")),
                };
                Response::SetEid {
                    assignment,
                    pool_status: d[0] & 3,
                    eid: d[1],
                    pool_size: d[2],
                }
            }
            cmd::GET_ENDPOINT_ID => {
                exact(3)?;
                Response::GetEid {
                    eid: d[0],
                    endpoint_type: (d[1] >> 4) & 3,
                    eid_type: d[1] & 3,
                    medium_specific: d[2],
                }
            }
            cmd::GET_ENDPOINT_UUID => {
                exact(16)?;
                Response::GetUuid {
                    uuid: d.try_into().expect("16 octets"),
                }
            }
            cmd::GET_VERSION_SUPPORT => Response::GetVersionSupport {
                versions: counted(4)?
                    .chunks_exact(4)
                    .map(|c| c.try_into().expect("4 octets"))
                    .collect(),
            },
            cmd::GET_MESSAGE_TYPE_SUPPORT => Response::GetMessageTypeSupport {
                types: counted(1)?.to_vec(),
            },
            cmd::RESOLVE_ENDPOINT_ID => {
                let Some((&bridge, physical)) = d.split_first() else {
                    return Err(ControlError::Length {
                        command,
                        len: 0,
                        expected: 1,
                    });
                };
                Response::ResolveEid {
                    bridge,
                    physical: physical.to_vec(),
                }
            }
            other => return Err(ControlError::UnknownResponse(other)),
        };
        Ok((h, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages assembled octet by octet from DSP0236 Tables 12, 13 and §12.
    #[test]
    fn golden_messages() {
        // Set Endpoint ID, instance 3, operation set, EID 0x1D.
        let set = Request::SetEid {
            op: SetEidOp::Set,
            eid: 0x1D,
        };
        assert_eq!(set.encode(3).unwrap(), [0x00, 0x83, 0x01, 0x00, 0x1D]);
        // Its response: success, accepted, no pool, EID 0x1D, pool size 0.
        let r = Response::SetEid {
            assignment: Assignment::Accepted,
            pool_status: 0,
            eid: 0x1D,
            pool_size: 0,
        };
        assert_eq!(
            r.encode(3).unwrap(),
            [0x00, 0x03, 0x01, 0x00, 0x00, 0x1D, 0x00]
        );
        // Get Endpoint ID response: EID 9, bus owner (01b << 4), static EID current (10b).
        let r = Response::GetEid {
            eid: 9,
            endpoint_type: 1,
            eid_type: 2,
            medium_specific: 0,
        };
        assert_eq!(
            r.encode(31).unwrap(),
            [0x00, 0x1F, 0x02, 0x00, 0x09, 0x12, 0x00]
        );
        // Get MCTP Version Support for the base spec, answered with 1.3.1.
        let q = Request::GetVersionSupport { msg_type: 0xFF };
        assert_eq!(q.encode(0).unwrap(), [0x00, 0x80, 0x04, 0xFF]);
        let r = Response::GetVersionSupport {
            versions: vec![VERSION_1_3_1],
        };
        assert_eq!(
            r.encode(0).unwrap(),
            [0x00, 0x00, 0x04, 0x00, 0x01, 0xF1, 0xF3, 0xF1, 0x00]
        );
        // Unsupported command: only the completion code.
        let r = Response::Failed {
            command: 0x0A,
            cc: cc::ERROR_UNSUPPORTED_CMD,
        };
        assert_eq!(r.encode(1).unwrap(), [0x00, 0x01, 0x0A, 0x05]);
        // Message type support: NVMe-MI and SPDM.
        let r = Response::GetMessageTypeSupport { types: vec![4, 5] };
        assert_eq!(
            r.encode(2).unwrap(),
            [0x00, 0x02, 0x05, 0x00, 0x02, 0x04, 0x05]
        );
    }

    #[test]
    fn roundtrips_and_errors() {
        let reqs = [
            Request::SetEid {
                op: SetEidOp::Force,
                eid: 0x30,
            },
            Request::GetEid,
            Request::GetUuid,
            Request::GetVersionSupport { msg_type: 4 },
            Request::GetMessageTypeSupport,
            Request::ResolveEid { target: 0x42 },
            Request::Unsupported {
                command: 0x0C,
                data: vec![1, 2],
            },
        ];
        for (i, r) in reqs.iter().enumerate() {
            let m = r.encode(i as u8).unwrap();
            let (h, back) = Request::decode(&m).unwrap();
            assert_eq!((h.instance, h.request, &back), (i as u8, true, r));
            assert!(Response::decode(&m).is_err());
        }
        let resps = [
            Response::GetUuid { uuid: [7; 16] },
            Response::ResolveEid {
                bridge: 0x20,
                physical: vec![0x1D],
            },
            Response::ResolveEid {
                bridge: 0x20,
                physical: vec![],
            },
            Response::GetVersionSupport { versions: vec![] },
            Response::Failed { command: 1, cc: 2 },
        ];
        for r in &resps {
            let m = r.encode(5).unwrap();
            assert_eq!(&Response::decode(&m).unwrap().1, r);
        }
        assert_eq!(
            Request::decode(&[0x00, 0x80, 0x01, 0x00]).unwrap_err(),
            ControlError::Length {
                command: 1,
                len: 1,
                expected: 2
            }
        );
        assert_eq!(
            Request::decode(&[0x00, 0x80, 0x02, 0x00]).unwrap_err(),
            ControlError::Length {
                command: 2,
                len: 1,
                expected: 0
            }
        );
        assert_eq!(
            Request::decode(&[0x01, 0x80, 0x02]).unwrap_err(),
            ControlError::NotControl { found: 1 }
        );
        assert_eq!(
            Request::decode(&[0x80, 0x80, 0x02]).unwrap_err(),
            ControlError::IcSet
        );
        assert_eq!(
            Request::decode(&[0x00, 0x80]).unwrap_err(),
            ControlError::Short { len: 2, need: 3 }
        );
        assert_eq!(
            Response::decode(&[0x00, 0x00, 0x04, 0x00, 0x02, 1, 2, 3, 4]).unwrap_err(),
            ControlError::Count {
                command: 4,
                count: 2,
                remaining: 4
            }
        );
        assert_eq!(
            Response::decode(&[0x00, 0x00, 0x02]).unwrap_err(),
            ControlError::Short { len: 3, need: 4 }
        );
        assert!(Request::GetEid.encode(32).is_err());
        assert!(Response::Failed { command: 1, cc: 0 }.encode(0).is_err());
    }
}
