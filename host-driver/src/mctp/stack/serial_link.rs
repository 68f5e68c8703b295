//! The serial binding (DSP0253) as a link over any byte stream: a pty or tty, a Unix or TCP
//! socket, a pipe. Each packet is one frame written whole; the receiver feeds whatever the
//! stream delivers to the [`SerialDecoder`], so any chunking works and a bad frame (FCS,
//! escape, length) is dropped and counted while the stream goes on.

use super::core::RxPacket;
use super::link::{LinkError, LinkParts, LinkRx, LinkTx, RxEvent};
use crate::mctp::serial::{self, SerialDecoder};
use std::collections::VecDeque;
use std::io::{ErrorKind, Read, Write};

/// The transmit half: frames packets onto a writer.
pub struct SerialTx<W: Write + Send> {
    w: W,
}

impl<W: Write + Send> LinkTx for SerialTx<W> {
    fn send_packet(&mut self, packet: &[u8], _hwaddr: Option<u8>) -> Result<(), LinkError> {
        let frame = serial::encode(packet).map_err(|e| LinkError::Mctp(e.into()))?;
        self.w.write_all(&frame)?;
        self.w.flush()?;
        Ok(())
    }
}

/// The receive half: decodes frames from a reader.
pub struct SerialRx<R: Read + Send> {
    r: R,
    decoder: SerialDecoder,
    pending: VecDeque<RxEvent>,
    buf: Vec<u8>,
}

impl<R: Read + Send> SerialRx<R> {
    pub fn new(r: R) -> Self {
        SerialRx {
            r,
            decoder: SerialDecoder::new(),
            pending: VecDeque::new(),
            buf: vec![0; 4096],
        }
    }
}

impl<R: Read + Send> LinkRx for SerialRx<R> {
    fn recv(&mut self) -> RxEvent {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return e;
            }
            let n = match self.r.read(&mut self.buf) {
                Ok(0) => return RxEvent::Closed,
                Ok(n) => n,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::TimedOut => {
                    // A non-blocking or read-timeout stream: poll gently.
                    std::thread::sleep(std::time::Duration::from_millis(1));
                    continue;
                }
                Err(_) => return RxEvent::Closed,
            };
            for r in self.decoder.feed(&self.buf[..n]) {
                self.pending.push_back(match r {
                    Ok(bytes) => RxEvent::Packet(RxPacket {
                        bytes,
                        hwaddr: None,
                    }),
                    Err(e) => RxEvent::Error(LinkError::BadFrame(e.to_string())),
                });
            }
        }
    }
}

/// A serial link over a stream's read and write halves (e.g. a `TcpStream` and its
/// `try_clone`). The MTU starts at the baseline 68 octets, like Linux `mctp-serial`; the
/// binding carries up to 255.
pub fn serial_link<R, W>(reader: R, writer: W) -> LinkParts
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    LinkParts {
        kind: "serial",
        tx: Box::new(SerialTx { w: writer }),
        rx: Box::new(SerialRx::new(reader)),
        mtu: super::topology::MIN_LINK_MTU,
        max_mtu: serial::MAX_PACKET_LEN,
        hwaddr: None,
    }
}
