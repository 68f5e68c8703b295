//! [`VerilatedOffload`]: the `Offload` backend that runs the Verilog of `offload-hdl` in
//! Verilator (`offload ... --backend sim`).

use offload_hdl::testbench::{run_crc_frames, run_mpa_rx, run_mpa_tx, Traffic};
use crate::model::{crc_model_info, SimError, VerilatedModel};
use offload_driver::crc::CrcKind;
use offload_driver::mctp::{rx_block, MctpError, RxReport, RxRequest, SmbusError, TxRequest, MAX_MESSAGE_LEN, SMBUS_MAX_MTU};
use offload_driver::mpa::{Deframer, FramingConfig, MpaError, MAX_ULPDU};
use offload_driver::nvme_mi;
use offload_driver::{Deframed, Offload, OffloadError};
use std::collections::HashMap;

/// Runs offload work through Verilated models. CRCs go through the CRC engine of the chosen
/// beat width (8 bytes by default); a kind only built at other widths (CRC-8, CRC-16: 1 byte)
/// uses the narrowest available. MPA framing goes through the MPA TX framer of the chosen
/// width (8 bytes when that width is not built), deframing through the MPA RX receiver,
/// MCTP packetizing and receiving through the MCTP TX and RX blocks likewise.
pub struct VerilatedOffload {
    width_bytes: usize,
    models: HashMap<&'static str, VerilatedModel>,
}

impl VerilatedOffload {
    /// Fails when the crate was built without Verilator.
    pub fn new() -> Result<VerilatedOffload, SimError> {
        VerilatedOffload::with_width(8)
    }

    pub fn with_width(width_bytes: usize) -> Result<VerilatedOffload, SimError> {
        if crate::MODELS.is_empty() {
            return Err(SimError::NoVerilator);
        }
        Ok(VerilatedOffload { width_bytes, models: HashMap::new() })
    }
}

fn backend_err(e: impl std::fmt::Display) -> OffloadError {
    OffloadError::Backend { backend: "sim", message: e.to_string() }
}

impl Offload for VerilatedOffload {
    fn backend(&self) -> &'static str {
        "sim"
    }

    fn cycles(&self) -> Option<u64> {
        Some(self.models.values().map(|m| m.cycle()).sum())
    }

    fn mpa_frame(&mut self, config: &FramingConfig, start_offset: u64, ulpdus: &[Vec<u8>]) -> Result<Vec<u8>, OffloadError> {
        // The same refusals as the software framer, before anything reaches the hardware
        // (which would drop a bad ULPDU and count it).
        if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
            return Err(MpaError::Mulpdu(config.mulpdu).into());
        }
        if start_offset % 4 != 0 {
            return Err(MpaError::MisalignedOffset(start_offset).into());
        }
        if let Some(u) = ulpdus.iter().find(|u| u.is_empty() || u.len() > config.mulpdu) {
            return Err(MpaError::UlpduLength { len: u.len(), mulpdu: config.mulpdu }.into());
        }
        let info = crate::MODELS
            .iter()
            .filter(|m| m.block == "mpa")
            .min_by_key(|m| (m.width_bytes != self.width_bytes, m.width_bytes != 8))
            .ok_or(OffloadError::Unsupported { backend: "sim", operation: "MPA framing" })?;
        let m = self.models.entry(info.name).or_insert_with(|| VerilatedModel::new(info));
        let run = run_mpa_tx(m, config, start_offset, ulpdus, &Traffic::full_rate()).map_err(backend_err)?;
        if run.fpdus.len() != ulpdus.len() || run.dropped != 0 {
            return Err(backend_err(SimError::Failed(format!(
                "{} ULPDUs in, {} FPDUs out, {} dropped",
                ulpdus.len(),
                run.fpdus.len(),
                run.dropped
            ))));
        }
        Ok(run.fpdus.concat())
    }

    fn mpa_deframe(&mut self, config: &FramingConfig, start_offset: u64, stream: &[u8]) -> Result<Deframed, OffloadError> {
        // The software's refusals of a configuration, before anything reaches the hardware.
        Deframer::new(*config, start_offset)?;
        let info = crate::MODELS
            .iter()
            .filter(|m| m.block == "mpa_rx")
            .min_by_key(|m| (m.width_bytes != self.width_bytes, m.width_bytes != 8))
            .ok_or(OffloadError::Unsupported { backend: "sim", operation: "MPA deframing" })?;
        let m = self.models.entry(info.name).or_insert_with(|| VerilatedModel::new(info));
        let segments: Vec<Vec<u8>> = stream.chunks(1 << 16).map(<[u8]>::to_vec).collect();
        let run = run_mpa_rx(m, config, start_offset, &segments, &Traffic::full_rate()).map_err(backend_err)?;
        // A DDP consumer's side of the block's contract, checked as the top's backend checks it.
        let frames = run.frames.into_iter().map(|f| (f.octets, f.bad));
        offload_driver::mpa::hardware::deframed_from_hardware(
            frames,
            run.hw_error,
            run.idle,
            run.counters[0],
            start_offset + stream.len() as u64,
        )
        .map_err(backend_err)
    }

    fn mctp_transmit(&mut self, request: &TxRequest, message: &[u8]) -> Result<Vec<Vec<u8>>, OffloadError> {
        // The software's refusals, in `mctp::transmit`'s order, before anything reaches the
        // hardware (which would drop the message and count it); past them every field fits
        // its port.
        request.config.validate()?;
        if request.smbus.is_some() && request.config.mtu > SMBUS_MAX_MTU {
            return Err(MctpError::SmbusMtu { mtu: request.config.mtu, max: SMBUS_MAX_MTU }.into());
        }
        let Some(&first) = message.first() else {
            return Err(MctpError::EmptyMessage.into());
        };
        let mut total = message.len();
        if request.append_mic {
            if first & nvme_mi::IC_BIT == 0 {
                return Err(MctpError::IcBitClear { first }.into());
            }
            total += nvme_mi::MIC_LEN;
            nvme_mi::check_oob_len(total).map_err(MctpError::from)?;
        }
        if total > MAX_MESSAGE_LEN {
            return Err(MctpError::MessageTooLong { len: total, max: MAX_MESSAGE_LEN }.into());
        }
        if let Some(a) = &request.smbus {
            for (field, addr) in [("source", a.src), ("destination", a.dst)] {
                if addr > 0x7F {
                    return Err(MctpError::Smbus(SmbusError::AddressOutOfRange { field, addr }).into());
                }
            }
        }
        let info = crate::MODELS
            .iter()
            .filter(|m| m.block == "mctp_tx")
            .min_by_key(|m| (m.width_bytes != self.width_bytes, m.width_bytes != 8))
            .ok_or(OffloadError::Unsupported { backend: "sim", operation: "MCTP packetizing" })?;
        let m = self.models.entry(info.name).or_insert_with(|| VerilatedModel::new(info));
        let job = crate::mctp::MctpTxJob { req: *request, message: message.to_vec() };
        let run = crate::mctp::run_mctp_tx(m, &[job], &Traffic::full_rate()).map_err(backend_err)?;
        if run.messages != 1 || run.dropped != 0 || run.len_errors != 0 || run.packets != run.frames.len() as u64 {
            return Err(backend_err(SimError::Failed(format!(
                "1 message in: {} frames out, counters packets {} messages {} dropped {} len_errors {}",
                run.frames.len(),
                run.packets,
                run.messages,
                run.dropped,
                run.len_errors
            ))));
        }
        Ok(run.frames)
    }

    fn mctp_receive(&mut self, request: &RxRequest, frames: &[Vec<u8>]) -> Result<RxReport, OffloadError> {
        let info = crate::MODELS
            .iter()
            .filter(|m| m.block == "mctp_rx")
            .min_by_key(|m| (m.width_bytes != self.width_bytes, m.width_bytes != 8))
            .ok_or(OffloadError::Unsupported { backend: "sim", operation: "MCTP receive" })?;
        let config = rx_block::block_config(request).map_err(|e| OffloadError::mctp_block("sim", e))?;
        let m = self.models.entry(info.name).or_insert_with(|| VerilatedModel::new(info));
        let mut bench = crate::mctp::MctpRxBench::new(m, &config).map_err(backend_err)?;
        let traffic = Traffic::full_rate();
        rx_block::receive_through_block(request, frames, |f| bench.frame(f, &traffic).map_err(|e| e.to_string()))
            .map_err(|e| OffloadError::mctp_block("sim", e))
    }

    fn crc(&mut self, kind: CrcKind, data: &[u8]) -> Result<u64, OffloadError> {
        let info = match crc_model_info(kind, self.width_bytes) {
            Ok(i) => i,
            Err(SimError::NoModel(_)) => crate::MODELS
                .iter()
                .filter(|m| m.block == "crc" && m.crc == Some(kind))
                .min_by_key(|m| m.width_bytes)
                .ok_or(OffloadError::Unsupported { backend: "sim", operation: kind.catalogue_name() })?,
            Err(e) => return Err(backend_err(e)),
        };
        let m = self.models.entry(info.name).or_insert_with(|| VerilatedModel::new(info));
        let run = run_crc_frames(m, &[data.to_vec()], &Traffic::full_rate()).map_err(backend_err)?;
        Ok(run.crcs[0])
    }
}
