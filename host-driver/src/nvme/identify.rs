//! Identify data structures (NVMe Base 2.0 §5.17.2), 4096 octets each. Offsets are those of
//! libnvme's `struct nvme_id_ctrl` / `struct nvme_id_ns` / `struct nvme_ctrl_list`, which the
//! tests cross-check against `<nvme/types.h>` when it is installed.

use super::subsystem::{Controller, Namespace, Subsystem};

/// Every Identify data structure is 4 KiB.
pub const DATA_LEN: usize = 4096;

/// Controller or Namespace Structure values of CDW10 bits 7:0 (Figure 273).
pub mod cns {
    pub const NAMESPACE: u8 = 0x00;
    pub const CONTROLLER: u8 = 0x01;
    pub const ACTIVE_NAMESPACE_LIST: u8 = 0x02;
    pub const NAMESPACE_CONTROLLER_LIST: u8 = 0x12;
    pub const CONTROLLER_LIST: u8 = 0x13;
}

/// Identify Controller field offsets (Figure 275).
pub mod ctrl {
    pub const VID: usize = 0;
    pub const SSVID: usize = 2;
    pub const SN: usize = 4;
    pub const MN: usize = 24;
    pub const FR: usize = 64;
    pub const RAB: usize = 72;
    pub const IEEE: usize = 73;
    pub const CMIC: usize = 76;
    pub const MDTS: usize = 77;
    pub const CNTLID: usize = 78;
    pub const VER: usize = 80;
    pub const CNTRLTYPE: usize = 111;
    pub const NVMSR: usize = 253;
    pub const MEC: usize = 255;
    pub const OACS: usize = 256;
    pub const ACL: usize = 258;
    pub const AERL: usize = 259;
    pub const FRMW: usize = 260;
    pub const LPA: usize = 261;
    pub const ELPE: usize = 262;
    pub const NPSS: usize = 263;
    pub const WCTEMP: usize = 266;
    pub const CCTEMP: usize = 268;
    pub const TNVMCAP: usize = 280;
    pub const UNVMCAP: usize = 296;
    pub const SQES: usize = 512;
    pub const CQES: usize = 513;
    pub const NN: usize = 516;
    pub const SUBNQN: usize = 768;
    pub const PSD: usize = 2048;
    /// Power State Descriptor: Maximum Power (centiwatts) at 0, flags at 3.
    pub const PSD_LEN: usize = 32;
}

/// Identify Namespace field offsets (NVM Command Set 1.0 Figure 97).
pub mod ns {
    pub const NSZE: usize = 0;
    pub const NCAP: usize = 8;
    pub const NUSE: usize = 16;
    pub const NSFEAT: usize = 24;
    pub const NLBAF: usize = 25;
    pub const FLBAS: usize = 26;
    pub const NMIC: usize = 30;
    pub const NVMCAP: usize = 48;
    pub const NGUID: usize = 104;
    pub const EUI64: usize = 120;
    /// LBA Format 0: MS (2 octets), LBADS (1), RP (1).
    pub const LBAF0: usize = 128;
}

/// The NVMe version the model reports (VER: major 31:16, minor 15:8): 2.0.
pub const VERSION: u32 = 0x0002_0000;

fn put(d: &mut [u8], at: usize, b: &[u8]) {
    d[at..at + b.len()].copy_from_slice(b);
}

/// An ASCII field padded with spaces (SN, MN, FR).
fn put_ascii(d: &mut [u8], at: usize, len: usize, s: &str) {
    let f = &mut d[at..at + len];
    f.fill(b' ');
    for (o, c) in f.iter_mut().zip(s.bytes().filter(u8::is_ascii)) {
        *o = c;
    }
}

/// Identify Controller for `c`.
pub fn controller(s: &Subsystem, c: &Controller) -> Vec<u8> {
    let id = &s.identity;
    let mut d = vec![0u8; DATA_LEN];
    put(&mut d, ctrl::VID, &id.vid.to_le_bytes());
    put(&mut d, ctrl::SSVID, &id.ssvid.to_le_bytes());
    put_ascii(&mut d, ctrl::SN, 20, &id.serial);
    put_ascii(&mut d, ctrl::MN, 40, &id.model);
    put_ascii(&mut d, ctrl::FR, 8, s.firmware.active_revision());
    d[ctrl::RAB] = 6;
    put(&mut d, ctrl::IEEE, &id.ieee_oui);
    // CMIC bit 1: the subsystem may contain two or more controllers.
    d[ctrl::CMIC] = if s.controllers.len() > 1 { 0x02 } else { 0 };
    d[ctrl::MDTS] = 0;
    put(&mut d, ctrl::CNTLID, &c.id.to_le_bytes());
    put(&mut d, ctrl::VER, &VERSION.to_le_bytes());
    d[ctrl::CNTRLTYPE] = 1; // I/O controller
    d[ctrl::NVMSR] = 0x01; // NVMe Storage Device
    d[ctrl::MEC] = 0x01; // a Management Endpoint on an SMBus/I2C port
    d[ctrl::ACL] = 3;
    d[ctrl::AERL] = 3;
    // FRMW: slot 1 read only (bit 0), number of slots (3:1).
    let slots = s.firmware.slots.len().min(7) as u8;
    d[ctrl::FRMW] = u8::from(s.firmware.slot1_read_only) | (slots << 1);
    d[ctrl::LPA] = 0; // no per-namespace SMART
    d[ctrl::ELPE] = s.error_log_entries;
    d[ctrl::NPSS] = s.power_states.max(1) - 1;
    put(&mut d, ctrl::WCTEMP, &s.wctemp_k.to_le_bytes());
    put(&mut d, ctrl::CCTEMP, &s.cctemp_k.to_le_bytes());
    put(&mut d, ctrl::TNVMCAP, &s.capacity().to_le_bytes());
    put(&mut d, ctrl::UNVMCAP, &0u128.to_le_bytes());
    d[ctrl::SQES] = 0x66;
    d[ctrl::CQES] = 0x44;
    put(&mut d, ctrl::NN, &s.max_namespaces.to_le_bytes());
    let nqn = id.subnqn.as_bytes();
    let n = nqn.len().min(255);
    put(&mut d, ctrl::SUBNQN, &nqn[..n]);
    for p in 0..usize::from(s.power_states.clamp(1, 32)) {
        // 9 W, 8 W, …: MP in centiwatts.
        let mp = 900u16.saturating_sub(100 * p as u16).max(100);
        put(&mut d, ctrl::PSD + p * ctrl::PSD_LEN, &mp.to_le_bytes());
    }
    d
}

/// Identify Namespace for `n`; the NGUID and EUI-64 are derived from the NSID and serial so
/// they are stable and distinct.
pub fn namespace(s: &Subsystem, n: &Namespace) -> Vec<u8> {
    let mut d = vec![0u8; DATA_LEN];
    for at in [ns::NSZE, ns::NCAP, ns::NUSE] {
        put(&mut d, at, &n.blocks.to_le_bytes());
    }
    d[ns::NLBAF] = 0;
    d[ns::FLBAS] = 0;
    d[ns::NMIC] = u8::from(s.controllers.len() > 1);
    put(&mut d, ns::NVMCAP, &u128::from(n.bytes()).to_le_bytes());
    let serial_hash = crate::crc::crc32c(s.identity.serial.as_bytes());
    let mut nguid = [0u8; 16];
    nguid[..3].copy_from_slice(&s.identity.ieee_oui);
    nguid[8..12].copy_from_slice(&serial_hash.to_be_bytes());
    nguid[12..].copy_from_slice(&n.nsid.to_be_bytes());
    put(&mut d, ns::NGUID, &nguid);
    let mut eui = [0u8; 8];
    eui[..3].copy_from_slice(&s.identity.ieee_oui);
    eui[3] = serial_hash as u8;
    eui[4..].copy_from_slice(&n.nsid.to_be_bytes());
    put(&mut d, ns::EUI64, &eui);
    d[ns::LBAF0 + 2] = n.lbads();
    d
}

/// Active Namespace ID list: the active NSIDs greater than `after`, ascending, at most 1024.
pub fn active_namespaces(s: &Subsystem, after: u32) -> Vec<u8> {
    let mut ids: Vec<u32> = s.namespaces.iter().map(|n| n.nsid).filter(|&i| i > after).collect();
    ids.sort_unstable();
    let mut d = vec![0u8; DATA_LEN];
    for (i, id) in ids.iter().take(DATA_LEN / 4).enumerate() {
        put(&mut d, i * 4, &id.to_le_bytes());
    }
    d
}

/// Controller List (Figure 276): number of identifiers, then identifiers ≥ `from`, ascending,
/// at most 2047.
pub fn controller_list(ids: impl Iterator<Item = u16>, from: u16) -> Vec<u8> {
    let mut ids: Vec<u16> = ids.filter(|&i| i >= from).collect();
    ids.sort_unstable();
    ids.truncate(2047);
    let mut d = vec![0u8; DATA_LEN];
    put(&mut d, 0, &(ids.len() as u16).to_le_bytes());
    for (i, id) in ids.iter().enumerate() {
        put(&mut d, 2 + i * 2, &id.to_le_bytes());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_fields() {
        let s = Subsystem::new(2, vec![Namespace::with_size(1, 1 << 20, 512).unwrap()]);
        let d = controller(&s, &s.controllers[1]);
        assert_eq!(d.len(), DATA_LEN);
        assert_eq!(&d[ctrl::VID..ctrl::VID + 2], &0x1B36u16.to_le_bytes());
        assert_eq!(&d[ctrl::SN..ctrl::SN + 20], b"OFFLOAD-MI-0001     ");
        assert_eq!(&d[ctrl::FR..ctrl::FR + 8], b"1.1.0   ");
        assert_eq!(u16::from_le_bytes([d[ctrl::CNTLID], d[ctrl::CNTLID + 1]]), 1);
        assert_eq!(d[ctrl::CMIC], 2);
        assert_eq!(d[ctrl::FRMW], 0b101, "slot 1 read only, 2 slots");
        assert_eq!(u16::from_le_bytes([d[ctrl::WCTEMP], d[ctrl::WCTEMP + 1]]), 343);
        assert_eq!(u32::from_le_bytes(d[ctrl::NN..ctrl::NN + 4].try_into().unwrap()), 1);
        assert_eq!(
            u128::from_le_bytes(d[ctrl::TNVMCAP..ctrl::TNVMCAP + 16].try_into().unwrap()),
            1 << 20
        );
        assert!(d[ctrl::SUBNQN..].starts_with(b"nqn.2026-11.invalid.offload:"));
    }

    #[test]
    fn namespace_fields() {
        let s = Subsystem::default();
        let n = Namespace::with_size(7, 64 * 4096, 4096).unwrap();
        let d = namespace(&s, &n);
        assert_eq!(u64::from_le_bytes(d[0..8].try_into().unwrap()), 64);
        assert_eq!(u64::from_le_bytes(d[8..16].try_into().unwrap()), 64);
        assert_eq!(d[ns::LBAF0 + 2], 12);
        assert_eq!(&d[ns::NGUID + 12..ns::NGUID + 16], &[0, 0, 0, 7]);
    }

    #[test]
    fn lists() {
        let mut s = Subsystem::default();
        s.namespaces = [5u32, 2, 9]
            .iter()
            .map(|&i| Namespace::with_size(i, 4096, 512).unwrap())
            .collect();
        let d = active_namespaces(&s, 2);
        assert_eq!(&d[..12], &[5, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]);
        let d = controller_list([3u16, 0, 1].into_iter(), 1);
        assert_eq!(&d[..8], &[2, 0, 1, 0, 3, 0, 0, 0]);
    }
}
