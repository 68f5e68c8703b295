//! Links: the transmit and receive halves of one physical binding, and the in-process ones
//! (loopback, a crossed pair).
//!
//! A link moves whole MCTP packets; the binding (serial framing, SMBus frame and PEC) lives in
//! the link. The transmit half gets whole messages with their header fields chosen by the
//! stack, so a link whose hardware packetizes ([`offload_link`](super::offload_link())) gets the
//! message, and every other link packetizes in software with [`Packets`].

use super::core::RxPacket;
use crate::mctp::packetizer::{Packets, TxConfig};
use crate::mctp::MctpError;
use std::sync::mpsc::{self, Receiver, Sender};

/// Why a link could not move a frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("link I/O: {0}")]
    Io(String),
    /// The addressed device did not acknowledge (SMBus NACK).
    #[error("no device acknowledged physical address 0x{addr:02x}")]
    Nack { addr: u8 },
    #[error("the link needs the peer's physical address")]
    NoHwaddr,
    #[error("link closed")]
    Closed,
    #[error(transparent)]
    Mctp(#[from] MctpError),
    /// A frame that arrived broken (bad FCS, PEC, …) and was dropped.
    #[error("frame dropped: {0}")]
    BadFrame(String),
    #[error("{0}")]
    Unsupported(&'static str),
}

impl From<std::io::Error> for LinkError {
    fn from(e: std::io::Error) -> Self {
        LinkError::Io(e.to_string())
    }
}

/// The transmit half.
pub trait LinkTx: Send {
    /// Sends one packet (header and payload) to `hwaddr` (addressed bindings) or the peer.
    fn send_packet(&mut self, packet: &[u8], hwaddr: Option<u8>) -> Result<(), LinkError>;

    /// Sends one message as packets; the default packetizes in software.
    fn send_message(
        &mut self,
        config: &TxConfig,
        hwaddr: Option<u8>,
        message: &[u8],
    ) -> Result<(), LinkError> {
        let mut p = Vec::with_capacity(config.mtu + crate::mctp::HEADER_LEN);
        for (h, payload) in Packets::new(config, message)? {
            p.clear();
            p.extend_from_slice(&h.encode().map_err(MctpError::from)?);
            p.extend_from_slice(payload);
            self.send_packet(&p, hwaddr)?;
        }
        Ok(())
    }
}

/// One receive event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RxEvent {
    Packet(RxPacket),
    /// A broken frame was dropped; the link goes on.
    Error(LinkError),
    /// The link is gone (end of stream).
    Closed,
}

/// The receive half: blocks until something happens.
pub trait LinkRx: Send {
    fn recv(&mut self) -> RxEvent;
}

/// A link ready to be added to an [`Endpoint`](super::Endpoint).
pub struct LinkParts {
    /// `serial`, `smbus`, `loopback`, `offload`, …
    pub kind: &'static str,
    pub tx: Box<dyn LinkTx>,
    pub rx: Box<dyn LinkRx>,
    /// Default MTU (packet octets) and the most the binding carries.
    pub mtu: usize,
    pub max_mtu: usize,
    /// This side's physical address on an addressed bus.
    pub hwaddr: Option<u8>,
}

impl std::fmt::Debug for LinkParts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LinkParts")
            .field("kind", &self.kind)
            .field("mtu", &self.mtu)
            .field("max_mtu", &self.max_mtu)
            .field("hwaddr", &self.hwaddr)
            .finish()
    }
}

/// Packets through a channel.
struct ChanTx(Sender<Vec<u8>>);
struct ChanRx(Receiver<Vec<u8>>);

impl LinkTx for ChanTx {
    fn send_packet(&mut self, packet: &[u8], _hwaddr: Option<u8>) -> Result<(), LinkError> {
        self.0.send(packet.to_vec()).map_err(|_| LinkError::Closed)
    }
}

impl LinkRx for ChanRx {
    fn recv(&mut self) -> RxEvent {
        match self.0.recv() {
            Ok(bytes) => RxEvent::Packet(RxPacket {
                bytes,
                hwaddr: None,
            }),
            Err(_) => RxEvent::Closed,
        }
    }
}

/// The loopback link (`lo`): every packet sent comes back in on the same link.
pub fn loopback() -> LinkParts {
    let (tx, rx) = mpsc::channel();
    chan_parts("loopback", tx, rx)
}

/// Two links joined back to back, as a cable between two endpoints in one process.
pub fn pair() -> (LinkParts, LinkParts) {
    let (a_tx, b_rx) = mpsc::channel();
    let (b_tx, a_rx) = mpsc::channel();
    (
        chan_parts("loopback", a_tx, a_rx),
        chan_parts("loopback", b_tx, b_rx),
    )
}

fn chan_parts(kind: &'static str, tx: Sender<Vec<u8>>, rx: Receiver<Vec<u8>>) -> LinkParts {
    LinkParts {
        kind,
        tx: Box::new(ChanTx(tx)),
        rx: Box::new(ChanRx(rx)),
        mtu: super::topology::MIN_LINK_MTU,
        max_mtu: super::topology::MAX_LINK_MTU,
        hwaddr: None,
    }
}
