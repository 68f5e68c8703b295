//! [`VerilatedOffload`]: the `Offload` backend that runs the Verilog of `offload-hdl` in
//! Verilator (`offload ... --backend sim`).

use crate::axis::Traffic;
use crate::crc::run_crc_frames;
use crate::model::{crc_model_info, SimError, VerilatedModel};
use offload_driver::crc::CrcKind;
use offload_driver::mpa::{FramingConfig, MpaError, MAX_ULPDU};
use offload_driver::{Offload, OffloadError};
use std::collections::HashMap;

/// Runs offload work through Verilated models. CRCs go through the CRC engine of the chosen
/// beat width (8 bytes by default); a kind only built at other widths (CRC-8, CRC-16: 1 byte)
/// uses the narrowest available. MPA framing goes through the MPA TX framer of the chosen
/// width (8 bytes when that width is not built).
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

fn backend_err(e: SimError) -> OffloadError {
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
        let run = crate::mpa::run_mpa_tx(m, config, start_offset, ulpdus, &Traffic::full_rate()).map_err(backend_err)?;
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
