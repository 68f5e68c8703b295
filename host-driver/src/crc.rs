//! The CRCs of the protocols we offload, as one catalogue.
//!
//! PROTOCOL-NOTES "CRCs" lists four: CRC-32C (MPA FPDU CRC, NVMe-MI MIC, iSCSI digests),
//! CRC-32/IEEE (Fibre Channel), CRC-8/SMBus (MCTP SMBus PEC) and CRC-16/MCRF4XX (MCTP serial
//! FCS). Each [`CrcKind`] names its Rocksoft parameter set from the `crc` crate, which is the
//! *reference* implementation; the hardware generator in `offload-hdl` computes its XOR
//! networks from the same parameters, so a polynomial is written down exactly once.
//!
//! The hot path ([`crc32c`], [`Crc32c`]) goes through a hardware-accelerated crate. Both
//! candidates are measured side by side by `cargo bench -p offload-driver --bench crc`
//! (docs/PERFORMANCE.md): `crc-fast` folds with (V)PCLMULQDQ and ran 3–4.5× faster than
//! `crc32c` (three interleaved SSE4.2 `crc32` streams) from 1 KiB up, and no slower at 64 B, on
//! this project's machines, so it is the one we use, one-shot and incremental alike.

use crc::{Algorithm, Crc};

/// One of the CRCs of the project's protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CrcKind {
    /// CRC-32C (Castagnoli): MPA, NVMe-MI MIC, iSCSI.
    Crc32c,
    /// CRC-32 (IEEE 802.3 / ISO-HDLC): Fibre Channel frames.
    Crc32,
    /// CRC-8/SMBUS: the PEC of the MCTP SMBus/I2C binding (DSP0237).
    Crc8Smbus,
    /// CRC-16/MCRF4XX (the kernel's `crc_ccitt` seeded with 0xFFFF): MCTP serial FCS (DSP0253).
    Crc16Mcrf4xx,
}

static CRC32C_REF: Crc<u32> = Crc::<u32>::new(&crc::CRC_32_ISCSI);
static CRC32_REF: Crc<u32> = Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
static CRC8_REF: Crc<u8> = Crc::<u8>::new(&crc::CRC_8_SMBUS);
static CRC16_REF: Crc<u16> = Crc::<u16>::new(&crc::CRC_16_MCRF4XX);

/// Rocksoft model parameters widened to `u64`, for code (the hardware generator, tests) that
/// handles every width alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CrcParams {
    pub name: &'static str,
    pub width: u8,
    /// Normal (MSB-first) form of the generator polynomial, without the top bit.
    pub poly: u64,
    pub init: u64,
    pub refin: bool,
    pub refout: bool,
    pub xorout: u64,
    /// CRC of ASCII `123456789`.
    pub check: u64,
    /// Register contents after feeding a message followed by its own (non-inverted) CRC.
    pub residue: u64,
}

macro_rules! params_from {
    ($alg:expr) => {{
        let a = $alg;
        CrcParams {
            name: "",
            width: a.width,
            poly: a.poly as u64,
            init: a.init as u64,
            refin: a.refin,
            refout: a.refout,
            xorout: a.xorout as u64,
            check: a.check as u64,
            residue: a.residue as u64,
        }
    }};
}

impl CrcKind {
    pub const ALL: [CrcKind; 4] = [
        CrcKind::Crc32c,
        CrcKind::Crc32,
        CrcKind::Crc8Smbus,
        CrcKind::Crc16Mcrf4xx,
    ];

    /// Short name used on the command line (`offload crc --algo NAME`).
    pub fn cli_name(self) -> &'static str {
        match self {
            CrcKind::Crc32c => "crc32c",
            CrcKind::Crc32 => "crc32",
            CrcKind::Crc8Smbus => "crc8",
            CrcKind::Crc16Mcrf4xx => "crc16",
        }
    }

    /// The reveng catalogue name.
    pub fn catalogue_name(self) -> &'static str {
        match self {
            CrcKind::Crc32c => "CRC-32/ISCSI",
            CrcKind::Crc32 => "CRC-32/ISO-HDLC",
            CrcKind::Crc8Smbus => "CRC-8/SMBUS",
            CrcKind::Crc16Mcrf4xx => "CRC-16/MCRF4XX",
        }
    }

    pub fn params(self) -> CrcParams {
        let mut p = match self {
            CrcKind::Crc32c => params_from!(&crc::CRC_32_ISCSI),
            CrcKind::Crc32 => params_from!(&crc::CRC_32_ISO_HDLC),
            CrcKind::Crc8Smbus => params_from!(&crc::CRC_8_SMBUS),
            CrcKind::Crc16Mcrf4xx => params_from!(&crc::CRC_16_MCRF4XX),
        };
        p.name = self.catalogue_name();
        p
    }

    pub fn width(self) -> u8 {
        self.params().width
    }

    /// The reference CRC (table-driven `crc` crate) of `data`.
    pub fn reference(self, data: &[u8]) -> u64 {
        match self {
            CrcKind::Crc32c => CRC32C_REF.checksum(data) as u64,
            CrcKind::Crc32 => CRC32_REF.checksum(data) as u64,
            CrcKind::Crc8Smbus => CRC8_REF.checksum(data) as u64,
            CrcKind::Crc16Mcrf4xx => CRC16_REF.checksum(data) as u64,
        }
    }

    /// The CRC of `data` through the fastest implementation we have.
    pub fn checksum(self, data: &[u8]) -> u64 {
        match self {
            CrcKind::Crc32c => crc32c(data) as u64,
            CrcKind::Crc32 => crc32(data) as u64,
            _ => self.reference(data),
        }
    }

    /// A digest for computing the CRC of data that arrives in pieces.
    pub fn digest(self) -> CrcDigest {
        match self {
            CrcKind::Crc32c => CrcDigest::Crc32c(Crc32c::new()),
            CrcKind::Crc32 => CrcDigest::Crc32(CRC32_REF.digest()),
            CrcKind::Crc8Smbus => CrcDigest::Crc8(CRC8_REF.digest()),
            CrcKind::Crc16Mcrf4xx => CrcDigest::Crc16(CRC16_REF.digest()),
        }
    }

    /// Parses the command-line name.
    pub fn from_cli_name(name: &str) -> Option<CrcKind> {
        CrcKind::ALL.into_iter().find(|k| k.cli_name() == name)
    }
}

/// The Rocksoft algorithm of a 32-bit kind, for code that wants the `crc` crate directly.
pub fn algorithm32(kind: CrcKind) -> Option<&'static Algorithm<u32>> {
    match kind {
        CrcKind::Crc32c => Some(&crc::CRC_32_ISCSI),
        CrcKind::Crc32 => Some(&crc::CRC_32_ISO_HDLC),
        _ => None,
    }
}

/// CRC-32C of a whole buffer, hardware-accelerated.
#[inline]
pub fn crc32c(data: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(data)
}

/// CRC-32 (IEEE) of a whole buffer, hardware-accelerated.
#[inline]
pub fn crc32(data: &[u8]) -> u32 {
    crc_fast::crc32_iso_hdlc(data)
}

/// CRC-8/SMBUS (the SMBus Packet Error Code) of a buffer.
#[inline]
pub fn crc8_smbus(data: &[u8]) -> u8 {
    CRC8_REF.checksum(data)
}

/// CRC-16/MCRF4XX (MCTP serial binding FCS) of a buffer.
#[inline]
pub fn crc16_mcrf4xx(data: &[u8]) -> u16 {
    CRC16_REF.checksum(data)
}

/// Incremental CRC-32C: `update` across calls gives the same value as one call over the
/// concatenation. `Copy`, so deframers keep one per FPDU; folding goes through `crc-fast`'s
/// PCLMULQDQ kernels, which stay ~3× ahead of `crc32c`'s on the 0.5–4 KiB pieces that MPA
/// Marker intervals cut a stream into (docs/PERFORMANCE.md).
#[derive(Clone, Copy)]
pub struct Crc32c {
    digest: crc_fast::Digest,
}

impl Crc32c {
    pub fn new() -> Self {
        Crc32c { digest: crc_fast::Digest::new(crc_fast::CrcAlgorithm::Crc32Iscsi) }
    }

    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        self.digest.update(data);
    }

    /// The CRC of everything fed so far; feeding may go on afterwards.
    #[inline]
    pub fn finalize(&self) -> u32 {
        self.digest.finalize() as u32
    }
}

impl Default for Crc32c {
    fn default() -> Self {
        Crc32c::new()
    }
}

impl std::fmt::Debug for Crc32c {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Crc32c({:#010x})", self.finalize())
    }
}

/// An incremental CRC of any kind in the catalogue.
#[derive(Clone)]
pub enum CrcDigest {
    Crc32c(Crc32c),
    Crc32(crc::Digest<'static, u32>),
    Crc8(crc::Digest<'static, u8>),
    Crc16(crc::Digest<'static, u16>),
}

impl CrcDigest {
    pub fn update(&mut self, data: &[u8]) {
        match self {
            CrcDigest::Crc32c(d) => d.update(data),
            CrcDigest::Crc32(d) => d.update(data),
            CrcDigest::Crc8(d) => d.update(data),
            CrcDigest::Crc16(d) => d.update(data),
        }
    }

    pub fn finalize(&self) -> u64 {
        match self {
            CrcDigest::Crc32c(d) => d.finalize() as u64,
            CrcDigest::Crc32(d) => d.clone().finalize() as u64,
            CrcDigest::Crc8(d) => d.clone().finalize() as u64,
            CrcDigest::Crc16(d) => d.clone().finalize() as u64,
        }
    }
}

/// Formats a CRC value as the CLI prints it: `0x`, lowercase hex, zero-padded to the width.
pub fn format_value(kind: CrcKind, value: u64) -> String {
    let digits = (kind.width() as usize).div_ceil(4);
    format!("0x{value:0digits$x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Check values from PROTOCOL-NOTES "CRCs" (reveng catalogue).
    const CHECKS: [(CrcKind, u64); 4] = [
        (CrcKind::Crc32c, 0xE306_9283),
        (CrcKind::Crc32, 0xCBF4_3926),
        (CrcKind::Crc8Smbus, 0xF4),
        (CrcKind::Crc16Mcrf4xx, 0x6F91),
    ];

    #[test]
    fn check_values_all_paths() {
        for (kind, check) in CHECKS {
            assert_eq!(kind.params().check, check, "{kind:?} catalogue");
            assert_eq!(kind.reference(b"123456789"), check, "{kind:?} reference");
            assert_eq!(kind.checksum(b"123456789"), check, "{kind:?} fast");
            let mut d = kind.digest();
            d.update(b"1234");
            d.update(b"");
            d.update(b"56789");
            assert_eq!(d.finalize(), check, "{kind:?} incremental");
        }
    }

    /// RFC 3720 B.4 vectors, as the four octets stored on the wire (low byte first).
    #[test]
    fn iscsi_vectors() {
        let zeros = [0u8; 32];
        let ones = [0xFFu8; 32];
        let inc: Vec<u8> = (0u8..32).collect();
        let dec: Vec<u8> = (0u8..32).rev().collect();
        let cases: [(&[u8], [u8; 4]); 4] = [
            (&zeros, [0xaa, 0x36, 0x91, 0x8a]),
            (&ones, [0x43, 0xab, 0xa8, 0x62]),
            (&inc, [0x4e, 0x79, 0xdd, 0x46]),
            (&dec, [0x5c, 0xdb, 0x3f, 0x11]),
        ];
        for (data, wire) in cases {
            assert_eq!(crc32c(data).to_le_bytes(), wire);
            assert_eq!((CrcKind::Crc32c.reference(data) as u32).to_le_bytes(), wire);
        }
    }

    #[test]
    fn residues_match_catalogue() {
        // A message followed by its CRC (stored as the reflected CRCs are: low byte first)
        // leaves the catalogue's residue in the register.
        let msg = b"offload residue check";
        for kind in [CrcKind::Crc32c, CrcKind::Crc32] {
            let p = kind.params();
            let mut framed = msg.to_vec();
            framed.extend_from_slice(&(kind.checksum(msg) as u32).to_le_bytes());
            let reg = kind.reference(&framed) ^ p.xorout;
            assert_eq!(reg, p.residue, "{kind:?}");
        }
    }

    #[test]
    fn fast_matches_reference_on_many_lengths() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        for len in (0..64).chain([255, 256, 1023, 4096, 4999]) {
            for kind in CrcKind::ALL {
                assert_eq!(kind.checksum(&data[..len]), kind.reference(&data[..len]), "{kind:?} len {len}");
            }
        }
    }

    #[test]
    fn incremental_split_anywhere() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        for kind in CrcKind::ALL {
            let whole = kind.reference(&data);
            for cut in [0, 1, 3, 4, 17, 150, 299, 300] {
                let mut d = kind.digest();
                d.update(&data[..cut]);
                d.update(&data[cut..]);
                assert_eq!(d.finalize(), whole, "{kind:?} cut {cut}");
            }
        }
    }

    #[test]
    fn cli_format() {
        assert_eq!(format_value(CrcKind::Crc32c, 0xE3069283), "0xe3069283");
        assert_eq!(format_value(CrcKind::Crc32, 0x1), "0x00000001");
        assert_eq!(format_value(CrcKind::Crc8Smbus, 0xF4), "0xf4");
        assert_eq!(format_value(CrcKind::Crc16Mcrf4xx, 0x6F91), "0x6f91");
        for k in CrcKind::ALL {
            assert_eq!(CrcKind::from_cli_name(k.cli_name()), Some(k));
        }
    }
}
