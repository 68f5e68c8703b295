//! The [`Offload`] trait: one interface over the software model, the Verilated model of the
//! Verilog (`offload-sim`) and a real board, so that every user of the library, every test and
//! the `offload` CLI can run the same work through any backend and compare the bytes.

use crate::crc::CrcKind;
use crate::mctp::rx_block::RxBlockError;
use crate::mpa::{Deframed, FramingConfig, MpaError};

/// Why an offload operation failed.
#[derive(Debug, thiserror::Error)]
pub enum OffloadError {
    /// The backend has no block for this operation (yet): nothing was done.
    #[error("backend `{backend}` does not offload {operation}")]
    Unsupported { backend: &'static str, operation: &'static str },
    #[error(transparent)]
    Mpa(#[from] MpaError),
    #[error(transparent)]
    Mctp(#[from] crate::mctp::MctpError),
    /// The MCTP RX block met one of its limits, or disagreed with the software
    /// ([`crate::mctp::rx_block`]); `frame` indexes the frames passed in.
    #[error("backend `{backend}`: {error}")]
    MctpBlock { backend: &'static str, error: RxBlockError },
    /// The backend itself failed (model build missing, device error, protocol violation of
    /// the hardware against its own contract).
    #[error("backend `{backend}`: {message}")]
    Backend { backend: &'static str, message: String },
}

impl OffloadError {
    /// An MCTP RX block run's error as backend `backend` reports it: a refused request is the
    /// software's error, the serial binding an unsupported operation, the rest the block's.
    pub fn mctp_block(backend: &'static str, e: RxBlockError) -> Self {
        match e {
            RxBlockError::Request(e) => e.into(),
            RxBlockError::Serial => OffloadError::Unsupported { backend, operation: "MCTP receive over the serial binding" },
            error => OffloadError::MctpBlock { backend, error },
        }
    }
}

/// Work the hardware blocks do, as one interface.
pub trait Offload {
    /// Short backend name as the CLI spells it (`sw`, `sim`, `ok`).
    fn backend(&self) -> &'static str;

    /// Clock cycles the hardware has run so far (`None` for software): lets callers report
    /// octets per clock for any backend without knowing which it is.
    fn cycles(&self) -> Option<u64> {
        None
    }

    /// CRC of a whole buffer.
    fn crc(&mut self, kind: CrcKind, data: &[u8]) -> Result<u64, OffloadError>;

    /// Frames ULPDUs into the MPA FPDU byte stream, the first output octet sitting at
    /// `start_offset` octets after the start of Full Operation (Markers land where the offset is
    /// a multiple of 512).
    fn mpa_frame(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        ulpdus: &[Vec<u8>],
    ) -> Result<Vec<u8>, OffloadError> {
        let _ = (config, start_offset, ulpdus);
        Err(OffloadError::Unsupported { backend: self.backend(), operation: "MPA framing" })
    }

    /// Deframes an MPA FPDU byte stream whose first octet sits at `start_offset` octets after
    /// the start of Full Operation: Markers, lengths and CRCs checked, the ULPDUs out. Only an
    /// invalid configuration is an `Err`; how the stream ended is in [`Deframed::end`].
    fn mpa_deframe(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        stream: &[u8],
    ) -> Result<Deframed, OffloadError> {
        let _ = (config, start_offset, stream);
        Err(OffloadError::Unsupported { backend: self.backend(), operation: "MPA deframing" })
    }

    /// Splits an MCTP message into packets (optionally MIC-protected and SMBus-framed), as
    /// the hardware MCTP packetizer does; returns one frame per packet.
    fn mctp_transmit(
        &mut self,
        request: &crate::mctp::TxRequest,
        message: &[u8],
    ) -> Result<Vec<Vec<u8>>, OffloadError> {
        let _ = (request, message);
        Err(OffloadError::Unsupported { backend: self.backend(), operation: "MCTP packetizing" })
    }

    /// Frames (one packet, or binding frame, each) into messages with every drop rule applied,
    /// as [`crate::mctp::receive`] reports it. A hardware backend runs the MCTP RX block, whose
    /// verdict on every frame must agree with the software's ([`crate::mctp::rx_block`]); only
    /// an invalid request, a limit of the block the input meets, or a fault is an `Err`.
    fn mctp_receive(
        &mut self,
        request: &crate::mctp::RxRequest,
        frames: &[Vec<u8>],
    ) -> Result<crate::mctp::RxReport, OffloadError> {
        let _ = (request, frames);
        Err(OffloadError::Unsupported { backend: self.backend(), operation: "MCTP receive" })
    }
}

/// The pure-software backend: the reference model itself.
#[derive(Debug, Default, Clone)]
pub struct SoftwareOffload;

impl Offload for SoftwareOffload {
    fn backend(&self) -> &'static str {
        "sw"
    }

    fn crc(&mut self, kind: CrcKind, data: &[u8]) -> Result<u64, OffloadError> {
        Ok(kind.checksum(data))
    }

    fn mpa_frame(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        ulpdus: &[Vec<u8>],
    ) -> Result<Vec<u8>, OffloadError> {
        let mut framer = crate::mpa::Framer::new(*config, start_offset)?;
        let mut out = Vec::new();
        for u in ulpdus {
            framer.frame(u, &mut out)?;
        }
        Ok(out)
    }

    fn mpa_deframe(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        stream: &[u8],
    ) -> Result<Deframed, OffloadError> {
        let mut d = crate::mpa::Deframer::new(*config, start_offset)?;
        let mut ulpdus = Vec::new();
        let end = d.push(stream, &mut ulpdus).and_then(|_| d.finish());
        Ok(Deframed { ulpdus, end })
    }

    fn mctp_transmit(
        &mut self,
        request: &crate::mctp::TxRequest,
        message: &[u8],
    ) -> Result<Vec<Vec<u8>>, OffloadError> {
        Ok(crate::mctp::transmit(request, message)?)
    }

    fn mctp_receive(
        &mut self,
        request: &crate::mctp::RxRequest,
        frames: &[Vec<u8>],
    ) -> Result<crate::mctp::RxReport, OffloadError> {
        Ok(crate::mctp::receive(request, frames)?)
    }
}
