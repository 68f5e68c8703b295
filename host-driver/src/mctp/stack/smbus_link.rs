//! The SMBus/I2C binding (DSP0237) over a simulated bus: every device attached with its 7-bit
//! slave address; a block write goes to the device with the destination address (or is
//! NACKed when there is none), framed and PEC-protected exactly as on the wire, and the
//! receiver checks the frame and learns the sender's address from it.

use super::core::RxPacket;
use super::link::{LinkError, LinkParts, LinkRx, LinkTx, RxEvent};
use crate::mctp::smbus::{self, SmbusAddresses};
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

/// Hook on every frame on the bus: return `false` to lose it (tests inject faults here).
pub type BusFilter = Box<dyn FnMut(&mut Vec<u8>) -> bool + Send>;

#[derive(Default)]
struct BusInner {
    devices: HashMap<u8, Sender<Vec<u8>>>,
    filter: Option<BusFilter>,
    frames: u64,
}

/// A simulated SMBus segment.
#[derive(Clone, Default)]
pub struct SmbusBus {
    inner: Arc<Mutex<BusInner>>,
}

impl std::fmt::Debug for SmbusBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmbusBus").finish_non_exhaustive()
    }
}

impl SmbusBus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a hook that sees (and may change or drop) every frame.
    pub fn set_filter(&self, f: BusFilter) {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).filter = Some(f);
    }

    /// Frames carried so far.
    pub fn frames(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).frames
    }

    /// Attaches a device at `addr` (7-bit) and returns its link.
    pub fn attach(&self, addr: u8) -> Result<LinkParts, LinkError> {
        if addr > 0x7F {
            return Err(LinkError::Mctp(
                smbus::SmbusError::AddressOutOfRange {
                    field: "source",
                    addr,
                }
                .into(),
            ));
        }
        let (tx, rx) = mpsc::channel();
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if g.devices.contains_key(&addr) {
            return Err(LinkError::Io(format!(
                "address 0x{addr:02x} already on the bus"
            )));
        }
        g.devices.insert(addr, tx);
        Ok(LinkParts {
            kind: "smbus",
            tx: Box::new(SmbusTx {
                bus: self.clone(),
                addr,
            }),
            rx: Box::new(SmbusRx { rx }),
            mtu: super::topology::MIN_LINK_MTU,
            max_mtu: smbus::MAX_PACKET_LEN,
            hwaddr: Some(addr),
        })
    }
}

struct SmbusTx {
    bus: SmbusBus,
    addr: u8,
}

impl LinkTx for SmbusTx {
    fn send_packet(&mut self, packet: &[u8], hwaddr: Option<u8>) -> Result<(), LinkError> {
        let dst = hwaddr.ok_or(LinkError::NoHwaddr)?;
        let a = SmbusAddresses {
            src: self.addr,
            dst,
        };
        let mut frame = smbus::encode(&a, packet).map_err(|e| LinkError::Mctp(e.into()))?;
        let mut g = self.bus.inner.lock().unwrap_or_else(|e| e.into_inner());
        let Some(dev) = g.devices.get(&dst).cloned() else {
            return Err(LinkError::Nack { addr: dst });
        };
        g.frames += 1;
        if let Some(f) = g.filter.as_mut() {
            if !f(&mut frame) {
                return Ok(());
            }
        }
        dev.send(frame).map_err(|_| LinkError::Nack { addr: dst })
    }
}

struct SmbusRx {
    rx: Receiver<Vec<u8>>,
}

impl LinkRx for SmbusRx {
    fn recv(&mut self) -> RxEvent {
        let Ok(frame) = self.rx.recv() else {
            return RxEvent::Closed;
        };
        match smbus::decode(&frame) {
            Ok((a, p)) => RxEvent::Packet(RxPacket {
                bytes: p.to_vec(),
                hwaddr: Some(a.src),
            }),
            Err(e) => RxEvent::Error(LinkError::BadFrame(e.to_string())),
        }
    }
}
