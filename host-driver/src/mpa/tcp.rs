//! MPA over `std::net::TcpStream`: startup, then ULPDUs in both directions.
//!
//! A thin blocking layer over the sans-IO [`Startup`], [`Framer`] and [`Deframer`]: each FPDU is
//! handed to TCP in one write (FPDU-aligned segments, as MPA-aware senders send them), and the
//! Responder's first `send` reads until the Initiator's first FPDU has been validated (§7.1.2).

use super::startup::{LocalParams, Negotiated, Startup, StartupError};
use super::{Deframer, Framer, MpaError};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};

#[derive(Debug, thiserror::Error)]
pub enum MpaIoError {
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("MPA startup: {0}")]
    Startup(#[from] StartupError),
    #[error("MPA: {0}")]
    Mpa(#[from] MpaError),
    #[error("connection closed during MPA startup")]
    ClosedDuringStartup,
    #[error("the Responder must receive the Initiator's first FPDU before it sends (RFC 5044 §7.1.2)")]
    ResponderMustWait,
}

/// One MPA connection in Full Operation.
pub struct MpaStream {
    stream: TcpStream,
    negotiated: Negotiated,
    may_send: bool,
    sender: MpaSender,
    receiver: MpaReceiver,
}

/// The sending half of an MPA connection.
pub struct MpaSender {
    stream: TcpStream,
    framer: Framer,
    buf: Vec<u8>,
}

/// The receiving half of an MPA connection.
pub struct MpaReceiver {
    stream: TcpStream,
    deframer: Deframer,
    ready: VecDeque<Vec<u8>>,
    buf: Box<[u8]>,
    eof: bool,
}

impl MpaStream {
    /// Connects as the Initiator.
    pub fn connect<A: ToSocketAddrs>(addr: A, local: LocalParams, mulpdu: usize) -> Result<Self, MpaIoError> {
        let stream = TcpStream::connect(addr)?;
        Self::start(stream, Startup::initiator(local)?, mulpdu)
    }

    /// Runs startup as the Responder on an accepted connection, accepting the Request.
    pub fn accept(stream: TcpStream, local: LocalParams, mulpdu: usize) -> Result<Self, MpaIoError> {
        Self::start(stream, Startup::responder(local)?, mulpdu)
    }

    fn start(mut stream: TcpStream, mut startup: Startup, mulpdu: usize) -> Result<Self, MpaIoError> {
        stream.set_nodelay(true)?;
        let mut buf = vec![0u8; 64 * 1024];
        let mut leftover = Vec::new();
        stream.write_all(&startup.transmit())?;
        while startup.negotiated().is_none() {
            let n = stream.read(&mut buf)?;
            if n == 0 {
                return Err(MpaIoError::ClosedDuringStartup);
            }
            let used = match startup.receive(&buf[..n]) {
                Ok(used) => used,
                Err(e) => {
                    // A reject or revision reply may be queued: send it before closing.
                    let _ = stream.write_all(&startup.transmit());
                    return Err(e.into());
                }
            };
            if startup.request().is_some() {
                startup.accept()?;
                stream.write_all(&startup.transmit())?;
            }
            leftover.extend_from_slice(&buf[used..n]);
        }
        let negotiated = startup.negotiated().cloned().expect("loop ends in Full Operation");
        let framer = Framer::new(negotiated.tx_framing(mulpdu), 0)?;
        let mut deframer = Deframer::new(negotiated.rx_framing(mulpdu), 0)?;
        let mut ready = VecDeque::new();
        let mut first = Vec::new();
        deframer.push(&leftover, &mut first)?;
        ready.extend(first);
        let may_send = startup.may_send_fpdu() || !ready.is_empty();
        Ok(MpaStream {
            sender: MpaSender { stream: stream.try_clone()?, framer, buf: Vec::new() },
            receiver: MpaReceiver { stream: stream.try_clone()?, deframer, ready, buf: buf.into_boxed_slice(), eof: false },
            stream,
            negotiated,
            may_send,
        })
    }

    pub fn negotiated(&self) -> &Negotiated {
        &self.negotiated
    }

    /// Sends one ULPDU. The Responder first waits for the Initiator's first FPDU (it stays
    /// queued for `recv`).
    pub fn send(&mut self, ulpdu: &[u8]) -> Result<(), MpaIoError> {
        while !self.may_send {
            if !self.receiver.fill()? {
                return Err(MpaIoError::ResponderMustWait);
            }
            self.may_send = !self.receiver.ready.is_empty();
        }
        self.sender.send(ulpdu)
    }

    /// The next ULPDU, or `None` when the peer closed cleanly between FPDUs.
    pub fn recv(&mut self) -> Result<Option<Vec<u8>>, MpaIoError> {
        let r = self.receiver.recv()?;
        if r.is_some() {
            self.may_send = true;
        }
        Ok(r)
    }

    /// Splits into halves for full-duplex use from two threads. The Responder must have
    /// received the first FPDU (or sent, which waits for it) before splitting.
    pub fn split(self) -> Result<(MpaSender, MpaReceiver), MpaIoError> {
        if !self.may_send {
            return Err(MpaIoError::ResponderMustWait);
        }
        drop(self.stream);
        Ok((self.sender, self.receiver))
    }
}

impl MpaSender {
    pub fn send(&mut self, ulpdu: &[u8]) -> Result<(), MpaIoError> {
        self.buf.clear();
        self.framer.frame(ulpdu, &mut self.buf)?;
        self.stream.write_all(&self.buf)?;
        Ok(())
    }

    /// Ends our direction (TCP FIN) after the last FPDU.
    pub fn finish(self) -> Result<(), MpaIoError> {
        self.stream.shutdown(std::net::Shutdown::Write)?;
        Ok(())
    }
}

impl MpaReceiver {
    pub fn recv(&mut self) -> Result<Option<Vec<u8>>, MpaIoError> {
        loop {
            if let Some(u) = self.ready.pop_front() {
                return Ok(Some(u));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Reads one TCP chunk into the deframer; false at clean EOF.
    fn fill(&mut self) -> Result<bool, MpaIoError> {
        if self.eof {
            return Ok(false);
        }
        let n = self.stream.read(&mut self.buf)?;
        if n == 0 {
            self.eof = true;
            self.deframer.finish()?;
            return Ok(false);
        }
        let mut out = Vec::new();
        self.deframer.push(&self.buf[..n], &mut out)?;
        self.ready.extend(out);
        Ok(true)
    }
}
