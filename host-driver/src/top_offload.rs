//! [`TopOffload`], the [`Offload`](crate::Offload) backend over any transport to an
//! `OffloadTop`, and [`TopStreams`], what it needs of the transport besides the register bus.
//! The Verilated top (`offload-sim`) and the XEM7010 board (FrontPanel, [`crate::ok`]) are two
//! transports of this one backend.

use crate::mctp::TxRequest;
use crate::mpa::{hardware, FramingConfig, MpaError, MAX_ULPDU};
use crate::registers::{check_mctp_message, OffloadRegs, RegisterBus, RegisterError};

/// What `TopStreams::stream` returns: the FPDUs (`mpa_m`) and the MCTP packets (`mctp_m`).
pub type StreamOutput = (Vec<Vec<u8>>, Vec<Vec<u8>>);

/// What `TopStreams::stream_mpa_rx` returns: the `mpa_rx_m` frames (ULPDUs, or the part of a
/// bad one passed before its verdict), each with `mpa_rx_m_tuser` of its last beat (bad).
pub type MpaRxFrames = Vec<(Vec<u8>, bool)>;

/// The streams of an `OffloadTop`, as a transport moves them: the MPA TX input and output and
/// the MCTP TX input and output, whole frames each way.
pub trait TopStreams {
    /// Sends `ulpdus` into `mpa_s` and `messages` into `mctp_s` (concurrently where the
    /// transport can) and returns what `mpa_m` (one FPDU per frame) and `mctp_m` (one packet per
    /// frame) produced once both inputs are in and the outputs have gone quiet.
    fn stream(
        &mut self,
        ulpdus: &[Vec<u8>],
        messages: &[Vec<u8>],
    ) -> Result<StreamOutput, RegisterError>;

    /// Sends packets (one frame each) into `mctp_rx_s` and returns the messages `mctp_rx_m`
    /// delivered, with their header fields.
    fn stream_rx(&mut self, frames: &[Vec<u8>]) -> Result<Vec<crate::mctp::Message>, RegisterError>;

    /// Sends `segments` (TCP payload, one frame each; their boundaries mean nothing to the
    /// receiver) into `mpa_rx_s` and returns the frames `mpa_rx_m` produced with their verdicts
    /// once the input is in and the output has gone quiet (a frame left open, a stream cut
    /// inside an FPDU, is not returned).
    fn stream_mpa_rx(&mut self, segments: &[Vec<u8>]) -> Result<MpaRxFrames, RegisterError>;

    /// Clock cycles the hardware has run, when the transport knows (a simulation does).
    fn cycles(&self) -> Option<u64> {
        None
    }
}

/// The [`Offload`](crate::Offload) backend over any transport to an `OffloadTop`: configures
/// through the registers, streams, and checks the counters against what came back. The
/// Verilated top (`offload-sim`) and the XEM7010 board (FrontPanel, feature `board`) are two
/// transports of this one backend.
pub struct TopOffload<T: RegisterBus + TopStreams> {
    regs: OffloadRegs<T>,
    name: &'static str,
}

impl<T: RegisterBus + TopStreams> TopOffload<T> {
    /// `name` is the backend name the CLI and errors use (`sim-top`, `ok`).
    pub fn open(transport: T, name: &'static str) -> Result<Self, RegisterError> {
        Ok(TopOffload {
            regs: OffloadRegs::open(transport)?,
            name,
        })
    }

    pub fn regs(&mut self) -> &mut OffloadRegs<T> {
        &mut self.regs
    }

    fn backend_err(&self, e: RegisterError) -> crate::OffloadError {
        match e {
            RegisterError::Mpa(e) => e.into(),
            RegisterError::Mctp(e) => e.into(),
            e => crate::OffloadError::Backend {
                backend: self.name,
                message: e.to_string(),
            },
        }
    }

    fn failed(&self, message: String) -> crate::OffloadError {
        crate::OffloadError::Backend {
            backend: self.name,
            message,
        }
    }
}

impl<T: RegisterBus + TopStreams> crate::Offload for TopOffload<T> {
    fn backend(&self) -> &'static str {
        self.name
    }

    fn cycles(&self) -> Option<u64> {
        self.regs.bus_ref().cycles()
    }

    fn crc(
        &mut self,
        _kind: crate::crc::CrcKind,
        _data: &[u8],
    ) -> Result<u64, crate::OffloadError> {
        Err(crate::OffloadError::Unsupported {
            backend: self.name,
            operation: "CRC (OffloadTop has no bare CRC engine)",
        })
    }

    fn mpa_frame(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        ulpdus: &[Vec<u8>],
    ) -> Result<Vec<u8>, crate::OffloadError> {
        // The software framer's refusals first: the hardware would drop and count them.
        if let Some(u) = ulpdus
            .iter()
            .find(|u| u.is_empty() || u.len() > config.mulpdu)
        {
            if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
                return Err(MpaError::Mulpdu(config.mulpdu).into());
            }
            return Err(MpaError::UlpduLength {
                len: u.len(),
                mulpdu: config.mulpdu,
            }
            .into());
        }
        self.regs
            .configure_mpa(config, start_offset)
            .map_err(|e| self.backend_err(e))?;
        let (fpdus, _) = self
            .regs
            .bus()
            .stream(ulpdus, &[])
            .map_err(|e| self.backend_err(e))?;
        let c = self.regs.counters().map_err(|e| self.backend_err(e))?;
        let n = ulpdus.len() as u32;
        if fpdus.len() != ulpdus.len()
            || c.mpa_ulpdus_in != n
            || c.mpa_fpdus != n
            || c.mpa_dropped != 0
        {
            return Err(self.failed(format!(
                "{n} ULPDUs in, {} FPDUs out; counters: {c}",
                fpdus.len()
            )));
        }
        Ok(fpdus.concat())
    }

    fn mpa_deframe(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
        stream: &[u8],
    ) -> Result<crate::Deframed, crate::OffloadError> {
        // The software deframer's refusals of a configuration, before anything reaches the
        // hardware.
        crate::mpa::Deframer::new(*config, start_offset)?;
        self.regs
            .configure_mpa_rx(config, start_offset)
            .map_err(|e| self.backend_err(e))?;
        let segments: Vec<Vec<u8>> = stream.chunks(1 << 16).map(<[u8]>::to_vec).collect();
        let frames = self
            .regs
            .bus()
            .stream_mpa_rx(&segments)
            .map_err(|e| self.backend_err(e))?;
        let status = self.regs.mpa_rx_status().map_err(|e| self.backend_err(e))?;
        let c = self.regs.counters().map_err(|e| self.backend_err(e))?;
        // The error counters say what the status says: one error at most, then a stop.
        let bad = [c.mpa_rx_bad_crc, c.mpa_rx_bad_marker, c.mpa_rx_bad_length];
        let due = [hardware::ERR_CRC, hardware::ERR_MARKER, hardware::ERR_LENGTH]
            .map(|k| (status.error as u64 == k) as u32);
        if c.mpa_rx_segments_in != segments.len() as u32 || bad != due {
            return Err(self.failed(format!(
                "{} segments in; status {status:?}; counters: {c}",
                segments.len()
            )));
        }
        hardware::deframed_from_hardware(
            frames,
            status.error(start_offset),
            status.idle,
            c.mpa_rx_fpdus as u64,
            start_offset + stream.len() as u64,
        )
        .map_err(|e| self.failed(e))
    }

    fn mctp_transmit(
        &mut self,
        request: &TxRequest,
        message: &[u8],
    ) -> Result<Vec<Vec<u8>>, crate::OffloadError> {
        self.regs
            .configure_mctp(request)
            .map_err(|e| self.backend_err(e))?;
        check_mctp_message(request, message).map_err(|e| self.backend_err(e))?;
        let before = self.regs.counters().map_err(|e| self.backend_err(e))?;
        let (_, packets) = self
            .regs
            .bus()
            .stream(&[], &[message.to_vec()])
            .map_err(|e| self.backend_err(e))?;
        let c = self.regs.counters().map_err(|e| self.backend_err(e))?;
        let d = |a: u32, b: u32| a.wrapping_sub(b);
        if d(c.mctp_messages, before.mctp_messages) != 1
            || d(c.mctp_packets, before.mctp_packets) != packets.len() as u32
            || d(c.mctp_dropped, before.mctp_dropped) != 0
            || d(c.mctp_len_errors, before.mctp_len_errors) != 0
        {
            return Err(self.failed(format!(
                "1 message in, {} packets out; counters before: {before}; after: {c}",
                packets.len()
            )));
        }
        Ok(packets)
    }

    fn mctp_receive(
        &mut self,
        request: &crate::mctp::RxRequest,
        frames: &[Vec<u8>],
    ) -> Result<crate::mctp::RxReport, crate::OffloadError> {
        use crate::mctp::rx_block;
        let name = self.name;
        let config = rx_block::block_config(request).map_err(|e| crate::OffloadError::mctp_block(name, e))?;
        self.regs
            .configure_mctp_rx(&config)
            .map_err(|e| self.backend_err(e))?;
        let regs = &mut self.regs;
        rx_block::receive_through_block(request, frames, |f| {
            let before = regs.counters().map_err(|e| e.to_string())?.mctp_rx;
            let drop_before = regs.mctp_rx_drop().map_err(|e| e.to_string())?;
            let messages = regs.bus().stream_rx(&[f.to_vec()]).map_err(|e| e.to_string())?;
            let after = regs.counters().map_err(|e| e.to_string())?.mctp_rx;
            let drop_after = regs.mctp_rx_drop().map_err(|e| e.to_string())?;
            Ok(rx_block::FrameVerdict {
                messages,
                counts: std::array::from_fn(|i| after[i].wrapping_sub(before[i]) as u64),
                drop: Some((drop_before, drop_after)),
            })
        })
        .map_err(|e| crate::OffloadError::mctp_block(name, e))
    }
}
