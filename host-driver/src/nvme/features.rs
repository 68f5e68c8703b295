//! Features (NVMe Base 2.0 §5.27.1): Power Management (02h), Temperature Threshold (04h) and
//! Number of Queues (07h), read with Get Features and changed with Set Features. Their value
//! is returned in CQE DW0.

use super::status::{command_specific, generic, NvmeStatus};
use super::subsystem::{Subsystem, TemperatureThreshold};

/// Feature Identifiers (Figure 317).
pub mod fid {
    pub const POWER_MANAGEMENT: u8 = 0x02;
    pub const TEMPERATURE_THRESHOLD: u8 = 0x04;
    pub const NUMBER_OF_QUEUES: u8 = 0x07;
}

/// Get Features Select (CDW10 bits 10:8, Figure 193).
pub mod select {
    pub const CURRENT: u8 = 0;
    pub const DEFAULT: u8 = 1;
    pub const SAVED: u8 = 2;
    pub const SUPPORTED_CAPABILITIES: u8 = 3;
}

/// Supported capabilities bits (Figure 194).
pub mod capability {
    pub const SAVEABLE: u32 = 1 << 0;
    pub const NAMESPACE_SPECIFIC: u32 = 1 << 1;
    pub const CHANGEABLE: u32 = 1 << 2;
}

const COMMAND_SEQUENCE_ERROR: u8 = 0x0C;

fn invalid_field() -> NvmeStatus {
    NvmeStatus::generic(generic::INVALID_FIELD)
}

/// Temperature Threshold CDW11: TMPTH 15:0, TMPSEL 19:16 (0 = composite), THSEL 21:20
/// (0 = over, 1 = under) (Figure 326).
fn threshold_select(cdw11: u32) -> Result<bool, NvmeStatus> {
    let tmpsel = (cdw11 >> 16) & 0xF;
    let thsel = (cdw11 >> 20) & 0x3;
    if tmpsel != 0 || thsel > 1 {
        return Err(invalid_field());
    }
    Ok(thsel == 1)
}

/// Get Features: CQE DW0 of feature `fid` with Select `sel`.
pub fn get(s: &Subsystem, cdw10: u32, cdw11: u32) -> Result<u32, NvmeStatus> {
    let id = cdw10 as u8;
    let sel = ((cdw10 >> 8) & 0x7) as u8;
    let defaults = Subsystem::new(1, Vec::new());
    let src = match sel {
        select::CURRENT => s,
        // Nothing is saveable, so the saved value is the default (§5.27.1).
        select::DEFAULT | select::SAVED => &defaults,
        select::SUPPORTED_CAPABILITIES => {
            return match id {
                fid::POWER_MANAGEMENT | fid::TEMPERATURE_THRESHOLD => Ok(capability::CHANGEABLE),
                fid::NUMBER_OF_QUEUES => Ok(0),
                _ => Err(invalid_field()),
            }
        }
        _ => return Err(invalid_field()),
    };
    match id {
        fid::POWER_MANAGEMENT => Ok(u32::from(src.power_state & 0x1F)),
        fid::TEMPERATURE_THRESHOLD => {
            let t = src.temperature_threshold;
            Ok(u32::from(if threshold_select(cdw11)? {
                t.under_k
            } else {
                t.over_k
            }))
        }
        fid::NUMBER_OF_QUEUES => {
            let (sq, cq) = src.io_queues;
            Ok(u32::from(sq) | (u32::from(cq) << 16))
        }
        _ => Err(invalid_field()),
    }
}

/// Set Features: changes the model; CQE DW0 as the feature defines it.
pub fn set(s: &mut Subsystem, cdw10: u32, cdw11: u32) -> Result<u32, NvmeStatus> {
    let id = cdw10 as u8;
    let save = cdw10 & (1 << 31) != 0;
    if !matches!(
        id,
        fid::POWER_MANAGEMENT | fid::TEMPERATURE_THRESHOLD | fid::NUMBER_OF_QUEUES
    ) {
        return Err(invalid_field());
    }
    if save {
        return Err(NvmeStatus::command_specific(
            command_specific::FEATURE_NOT_SAVEABLE,
        ));
    }
    match id {
        fid::POWER_MANAGEMENT => {
            let ps = (cdw11 & 0x1F) as u8;
            if ps >= s.power_states.max(1) {
                return Err(invalid_field());
            }
            s.power_state = ps;
            Ok(0)
        }
        fid::TEMPERATURE_THRESHOLD => {
            let under = threshold_select(cdw11)?;
            let v = cdw11 as u16;
            let mut t: TemperatureThreshold = s.temperature_threshold;
            if under {
                t.under_k = v;
            } else {
                t.over_k = v;
            }
            s.set_temperature_threshold(t);
            Ok(0)
        }
        // Queues are allocated once, at initialisation; the model is past it.
        _ => Err(NvmeStatus::generic(COMMAND_SEQUENCE_ERROR)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_and_set() {
        let mut s = Subsystem::default();
        assert_eq!(get(&s, 0x04, 0), Ok(343));
        assert_eq!(get(&s, 0x07, 0), Ok(63 | (63 << 16)));
        assert_eq!(get(&s, 0x02, 0), Ok(0));
        assert_eq!(set(&mut s, 0x04, 350), Ok(0));
        assert_eq!(get(&s, 0x04, 0), Ok(350));
        assert_eq!(get(&s, 0x04 | (1 << 8), 0), Ok(343), "default");
        assert_eq!(set(&mut s, 0x04, 260 | (1 << 20)), Ok(0));
        assert_eq!(get(&s, 0x04, 1 << 20), Ok(260), "under threshold");
        assert_eq!(get(&s, 0x04 | (3 << 8), 0), Ok(capability::CHANGEABLE));
        assert_eq!(get(&s, 0x04, 2 << 16), Err(invalid_field()), "no sensor 2");
        assert_eq!(get(&s, 0x55, 0), Err(invalid_field()));
        assert_eq!(set(&mut s, 0x02, 1), Err(invalid_field()), "one power state");
        assert_eq!(
            set(&mut s, 0x04 | (1 << 31), 300),
            Err(NvmeStatus::command_specific(0x0D))
        );
        assert_eq!(set(&mut s, 0x07, 0), Err(NvmeStatus::generic(0x0C)));
    }
}
