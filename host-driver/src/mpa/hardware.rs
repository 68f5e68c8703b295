//! The hardware MPA receiver (`offload-hdl`'s `MpaRx`, alone or inside `OffloadTop`) as a host
//! reads it back: its status error codes, the [`MpaError`] its status registers describe, and
//! the DDP consumer's side of its contract ("stream, then a verdict") turned into the
//! [`Deframed`] that [`Deframer`](super::Deframer) would have produced. One definition, used by
//! the block's testbench, the Verilated backend and the `OffloadTop` backend.

use super::{Deframed, MpaError};

/// `status_error` / `MPA_RX_STATUS[1:0]`: the stream is good so far.
pub const ERR_NONE: u64 = 0;
/// A CRC field differed from the CRC-32C computed (`found` the field, `expected` the CRC).
pub const ERR_CRC: u64 = 1;
/// A Marker's FPDUPTR did not point at its FPDU's header (`found`, `expected` the pointer due).
pub const ERR_MARKER: u64 = 2;
/// A ULPDU_Length of 0 or above MULPDU (`found` the length, `expected` MULPDU).
pub const ERR_LENGTH: u64 = 3;

/// The deframing error the receiver's status describes (`None` while `code` is
/// [`ERR_NONE`]), with the offset widened back from its 32 bits: the stream began at
/// `start_offset` and is shorter than 4 GiB.
pub fn hardware_error(code: u64, offset: u64, found: u64, expected: u64, start_offset: u64) -> Option<MpaError> {
    let offset = start_offset + (offset as u32).wrapping_sub(start_offset as u32) as u64;
    match code {
        ERR_CRC => Some(MpaError::BadCrc { offset, computed: expected as u32, found: found as u32 }),
        ERR_MARKER => Some(MpaError::BadMarker { offset, expected: expected as u16, found: found as u16 }),
        ERR_LENGTH => Some(MpaError::BadLength { offset, len: found as usize, mulpdu: expected as usize }),
        _ => None,
    }
}

/// What a DDP consumer keeps of one run of the receiver over a whole stream: `frames` are the
/// output frames with `m_tuser` of their last beat (bad), `error` what the status describes
/// ([`hardware_error`]), `idle` the status idle bit, `fpdus` the good-FPDU counter, and
/// `end_offset` the stream offset just past the last input octet.
///
/// The contract is checked, not assumed: at most one frame is bad, the last, and only with an
/// error in the status; the counter equals the good frames. The ULPDUs are the good frames; the
/// end is the status error, or [`MpaError::Truncated`] when the block was not idle (the stream
/// stopped inside an FPDU). `Err` names the broken rule.
pub fn deframed_from_hardware(
    frames: impl IntoIterator<Item = (Vec<u8>, bool)>,
    error: Option<MpaError>,
    idle: bool,
    fpdus: u64,
    end_offset: u64,
) -> Result<Deframed, String> {
    let frames: Vec<(Vec<u8>, bool)> = frames.into_iter().collect();
    let bad = frames.iter().filter(|f| f.1).count();
    let last_bad = frames.last().is_some_and(|f| f.1);
    if bad > 1 || (bad == 1 && (!last_bad || error.is_none())) {
        return Err(format!("{bad} frames marked bad, status {error:?}"));
    }
    let ulpdus: Vec<Vec<u8>> = frames.into_iter().filter(|f| !f.1).map(|f| f.0).collect();
    if fpdus != ulpdus.len() as u64 {
        return Err(format!("{} good frames, FPDU counter {fpdus}", ulpdus.len()));
    }
    let end = match error {
        Some(e) => Err(e),
        None if !idle => Err(MpaError::Truncated { offset: end_offset }),
        None => Ok(()),
    };
    Ok(Deframed { ulpdus, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_widens_the_offset_and_names_the_error() {
        // 32-bit status offset past a start above 4 GiB.
        let start = 0x1_FFFF_FFF0;
        let e = hardware_error(ERR_CRC, 0x10, 0xAA, 0xBB, start);
        assert_eq!(e, Some(MpaError::BadCrc { offset: 0x2_0000_0010, computed: 0xBB, found: 0xAA }));
        assert_eq!(
            hardware_error(ERR_LENGTH, 8, 0, 1442, 0),
            Some(MpaError::BadLength { offset: 8, len: 0, mulpdu: 1442 })
        );
        assert_eq!(hardware_error(ERR_NONE, 8, 1, 2, 0), None);
    }

    #[test]
    fn the_contract_is_checked() {
        let crc = Some(MpaError::BadCrc { offset: 0, computed: 1, found: 2 });
        let good = || (vec![1u8], false);
        let d = deframed_from_hardware([good(), (vec![2], true)], crc.clone(), true, 1, 100).unwrap();
        assert_eq!(d, Deframed { ulpdus: vec![vec![1]], end: Err(crc.clone().unwrap()) });
        assert!(deframed_from_hardware([(vec![2], true), good()], crc.clone(), true, 1, 100).is_err());
        assert!(deframed_from_hardware([good(), (vec![2], true)], None, true, 1, 100).is_err());
        assert!(deframed_from_hardware([good()], None, true, 2, 100).is_err());
        let d = deframed_from_hardware([good()], None, false, 1, 100).unwrap();
        assert_eq!(d.end, Err(MpaError::Truncated { offset: 100 }));
        assert_eq!(deframed_from_hardware([good()], None, true, 1, 100).unwrap().end, Ok(()));
    }
}
