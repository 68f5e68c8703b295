//! The register-level driver of `OffloadTop` (the hardware top a NIC shell instantiates):
//! [`OffloadRegs`] over any [`RegisterBus`] (the Verilated top in `offload-sim`, FrontPanel on
//! the XEM7010 board, a PCIe BAR), on the map in [`crate::regmap`].
//!
//! # The bus
//! 32-bit registers at byte offsets `0x00..=0xFC` (8-bit byte address, bits 1:0 ignored),
//! written with byte strobes. In hardware it is Corundum's register interface
//! (`reg_wr_addr/data/strb/en/ack`, `reg_rd_addr/en/data/ack`, each access acknowledged one
//! clock after it is requested, `en` held until `ack`), so Corundum's `axil_reg_if` turns it into
//! AXI4-Lite. Every address in the block is acknowledged: unmapped ones read 0 and ignore
//! writes, as do writes to read-only registers.
//!
//! # Configuration and counters
//! Configuration registers drive the blocks' `cfg_*` inputs. The MPA framer reads its
//! configuration live (change it between FPDUs) and loads `MPA_OFFSET` when it leaves reset,
//! so [`OffloadRegs::configure_mpa`] writes the registers and then pulses `CONTROL.MPA_RESET`.
//! The MCTP packetizer latches the header fields with each message's first beat, so they may
//! be rewritten between messages. The MPA receiver has a configuration of its own (each
//! direction of a connection negotiates Markers and CRC separately, RFC 5044 §7.1, and its
//! stream offsets are its own), loads `MPA_RX_OFFSET` when it leaves reset, and reports the
//! first error in live read-only status registers until it is reset
//! ([`OffloadRegs::configure_mpa_rx`], [`OffloadRegs::mpa_rx_status`]); the MCTP receiver
//! records its last drop ([`OffloadRegs::mctp_rx_drop`]). Counters are 32-bit,
//! wrap, and are cleared by their block's reset (the top's `reset` or the `CONTROL` bit).

use crate::mctp::{MctpError, SmbusError, TxRequest, MAX_MESSAGE_LEN, SMBUS_MAX_MTU};
use crate::mpa::{hardware, FramingConfig, MpaError, MAX_ULPDU};
use crate::regmap::*;
use std::fmt;

/// Why a register access or a configuration failed.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    /// The bus itself failed (device gone, a simulation that stopped acknowledging).
    #[error("register bus: {0}")]
    Bus(String),
    #[error("register offset 0x{0:02X} is not a multiple of 4 inside 0x00..=0xFC")]
    Offset(u32),
    #[error("ID register reads 0x{found:08X}, not 0x{ID_VALUE:08X}: not an offload top")]
    NotOffload { found: u32 },
    #[error("register map version {found}, this driver knows {MAP_VERSION}")]
    Version { found: u16 },
    #[error(transparent)]
    Mpa(#[from] MpaError),
    #[error(transparent)]
    Mctp(#[from] MctpError),
}

/// 32-bit register reads and writes at byte offsets: what the driver needs from a transport.
pub trait RegisterBus {
    fn read(&mut self, offset: u8) -> Result<u32, RegisterError>;
    fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError>;
}

impl<B: RegisterBus + ?Sized> RegisterBus for &mut B {
    fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
        (**self).read(offset)
    }
    fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
        (**self).write(offset, value)
    }
}

/// The MCTP RX block's static configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MctpRxConfig {
    /// Frames are SMBus frames (DSP0237, PEC checked).
    pub smbus: bool,
    /// Check and strip the NVMe-MI MIC.
    pub mic: bool,
    /// Transmission-unit rules (`ReassemblyConfig::strict_unit_size`).
    pub strict: bool,
    /// Message limit, MIC included, `1..=MCTP_RX_MAX_LEN_LIMIT`.
    pub max_len: usize,
}

/// Widths the hardware was built with, from `VERSION`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    pub map_version: u16,
    pub mpa_tx_width: u8,
    pub mctp_tx_width: u8,
}

/// Every counter, read in one pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub mpa_ulpdus_in: u32,
    pub mpa_fpdus: u32,
    pub mpa_drop_zero_len: u32,
    pub mpa_drop_over_mulpdu: u32,
    pub mpa_dropped: u32,
    pub mctp_messages_in: u32,
    pub mctp_packets: u32,
    pub mctp_messages: u32,
    pub mctp_dropped: u32,
    pub mctp_len_errors: u32,
    pub mctp_rx_frames_in: u32,
    /// The RX block's counters, in [`MCTP_RX_COUNTERS`] order.
    pub mctp_rx: [u32; 12],
    pub mpa_rx_segments_in: u32,
    pub mpa_rx_fpdus: u32,
    pub mpa_rx_bad_crc: u32,
    pub mpa_rx_bad_marker: u32,
    pub mpa_rx_bad_length: u32,
}

/// The MPA receiver's status registers, read in one pass (live values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MpaRxStatus {
    /// `MPA_RX_STATUS[1:0]`: `mpa::hardware::ERR_*`.
    pub error: u32,
    /// Between FPDUs with nothing held: a stream may end here.
    pub idle: bool,
    /// `MPA_RX_ERROR_OFFSET`, `MPA_RX_FOUND`, `MPA_RX_EXPECTED`.
    pub offset: u32,
    pub found: u32,
    pub expected: u32,
}

impl MpaRxStatus {
    /// The error the status describes, its offset widened for a stream that began at
    /// `start_offset` (`MPA_RX_OFFSET`, before its reduction mod 2^32).
    pub fn error(&self, start_offset: u64) -> Option<MpaError> {
        hardware::hardware_error(
            self.error as u64,
            self.offset as u64,
            self.found as u64,
            self.expected as u64,
            start_offset,
        )
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "MPA: {} ULPDUs in, {} FPDUs out, dropped {} zero-length + {} over MULPDU; \
             MCTP: {} messages in, {} packets / {} messages out, {} refused, {} length errors; \
             MCTP RX: {} frames in, counters {:?}; MPA RX: {} segments in, {} FPDUs, bad CRC {} / \
             Marker {} / length {}",
            self.mpa_ulpdus_in,
            self.mpa_fpdus,
            self.mpa_drop_zero_len,
            self.mpa_drop_over_mulpdu,
            self.mctp_messages_in,
            self.mctp_packets,
            self.mctp_messages,
            self.mctp_dropped,
            self.mctp_len_errors,
            self.mctp_rx_frames_in,
            self.mctp_rx,
            self.mpa_rx_segments_in,
            self.mpa_rx_fpdus,
            self.mpa_rx_bad_crc,
            self.mpa_rx_bad_marker,
            self.mpa_rx_bad_length
        )
    }
}

/// The register-level driver of an `OffloadTop`.
#[derive(Debug)]
pub struct OffloadRegs<B: RegisterBus> {
    bus: B,
    caps: Capabilities,
}

impl<B: RegisterBus> OffloadRegs<B> {
    /// Checks `ID` and the map version, then returns the driver.
    pub fn open(mut bus: B) -> Result<Self, RegisterError> {
        let id = bus.read(ID)?;
        if id != ID_VALUE {
            return Err(RegisterError::NotOffload { found: id });
        }
        let v = bus.read(VERSION)?;
        let caps = Capabilities {
            map_version: (v >> 16) as u16,
            mctp_tx_width: (v >> 8) as u8,
            mpa_tx_width: v as u8,
        };
        if caps.map_version != MAP_VERSION {
            return Err(RegisterError::Version {
                found: caps.map_version,
            });
        }
        Ok(OffloadRegs { bus, caps })
    }

    pub fn capabilities(&self) -> Capabilities {
        self.caps
    }

    pub fn bus(&mut self) -> &mut B {
        &mut self.bus
    }

    /// The transport, for the queries that do not touch the bus (what it carries, clocks run).
    pub fn bus_ref(&self) -> &B {
        &self.bus
    }

    pub fn into_bus(self) -> B {
        self.bus
    }

    pub fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
        check_offset(offset)?;
        self.bus.read(offset)
    }

    pub fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
        check_offset(offset)?;
        self.bus.write(offset, value)
    }

    /// Sets the MPA framing and the stream offset of the next FPDU, and restarts the framer
    /// (which loads the offset and clears its counters). The same refusals as
    /// `mpa::Framer::new`.
    pub fn configure_mpa(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
    ) -> Result<(), RegisterError> {
        let c = framing_bits(config, start_offset)?;
        // Markers depend on the offset mod 512, so mod 2^16 is exact.
        let offset = (start_offset & 0xFFFC) as u32;
        self.under_reset(CONTROL_MPA_RESET, &[(MPA_CONFIG, c), (MPA_MULPDU, config.mulpdu as u32), (MPA_OFFSET, offset)])
    }

    /// Holds `reset` (a `CONTROL` bit) while `writes` are made, then releases it: the block
    /// restarts with them (and with its counters cleared).
    fn under_reset(&mut self, reset: u32, writes: &[(u8, u32)]) -> Result<(), RegisterError> {
        let control = self.bus.read(CONTROL)?;
        self.bus.write(CONTROL, control | reset)?;
        for &(offset, value) in writes {
            self.bus.write(offset, value)?;
        }
        self.bus.write(CONTROL, control & !reset)
    }

    /// Sets the MCTP header fields, MIC and SMBus binding of the next messages. Refuses what
    /// `mctp::transmit` refuses about the request itself, so every field fits its register.
    pub fn configure_mctp(&mut self, request: &TxRequest) -> Result<(), RegisterError> {
        let c = &request.config;
        c.validate()?;
        if request.smbus.is_some() && c.mtu > SMBUS_MAX_MTU {
            return Err(MctpError::SmbusMtu {
                mtu: c.mtu,
                max: SMBUS_MAX_MTU,
            }
            .into());
        }
        let mut flags =
            (c.tag as u32) << MCTP_FLAGS_TAG_SHIFT | (c.start_seq as u32) << MCTP_FLAGS_SEQ_SHIFT;
        if c.tag_owner {
            flags |= MCTP_FLAGS_TO;
        }
        if request.append_mic {
            flags |= MCTP_FLAGS_MIC;
        }
        let mut smbus = 0;
        if let Some(a) = &request.smbus {
            for (field, addr) in [("source", a.src), ("destination", a.dst)] {
                if addr > 0x7F {
                    return Err(
                        MctpError::Smbus(SmbusError::AddressOutOfRange { field, addr }).into(),
                    );
                }
            }
            flags |= MCTP_FLAGS_SMBUS;
            smbus = a.src as u32 | (a.dst as u32) << 8;
        }
        self.bus
            .write(MCTP_EIDS, c.src as u32 | (c.dst as u32) << 8)?;
        self.bus.write(MCTP_FLAGS, flags)?;
        self.bus.write(MCTP_MTU, c.mtu as u32)?;
        self.bus.write(MCTP_SMBUS, smbus)
    }

    /// Sets the MCTP RX configuration (binding, MIC check, unit rules, message limit) under
    /// `CONTROL.MCTP_RX_RESET`, as the block requires; its counters restart at 0.
    pub fn configure_mctp_rx(&mut self, config: &MctpRxConfig) -> Result<(), RegisterError> {
        if config.max_len == 0 || config.max_len > MCTP_RX_MAX_LEN_LIMIT {
            return Err(MctpError::InvalidReassemblyConfig {
                reason: "message limit outside 1..=7680 (the RX block's ring)",
            }
            .into());
        }
        let mut c = 0;
        if config.smbus {
            c |= MCTP_RX_SMBUS;
        }
        if config.mic {
            c |= MCTP_RX_MIC;
        }
        if config.strict {
            c |= MCTP_RX_STRICT;
        }
        self.under_reset(CONTROL_MCTP_RX_RESET, &[(MCTP_RX_CONFIG, c), (MCTP_RX_MAX_LEN, config.max_len as u32)])
    }

    /// Pulses `CONTROL.MCTP_RESET`: the packetizer drops what it holds and clears its counters.
    pub fn reset_mctp(&mut self) -> Result<(), RegisterError> {
        self.under_reset(CONTROL_MCTP_RESET, &[])
    }

    pub fn counters(&mut self) -> Result<Counters, RegisterError> {
        let mut r = |o| self.bus.read(o);
        Ok(Counters {
            mpa_ulpdus_in: r(MPA_ULPDUS_IN)?,
            mpa_fpdus: r(MPA_FPDUS)?,
            mpa_drop_zero_len: r(MPA_DROP_ZERO_LEN)?,
            mpa_drop_over_mulpdu: r(MPA_DROP_OVER_MULPDU)?,
            mpa_dropped: r(MPA_DROPPED)?,
            mctp_messages_in: r(MCTP_MESSAGES_IN)?,
            mctp_packets: r(MCTP_PACKETS)?,
            mctp_messages: r(MCTP_MESSAGES)?,
            mctp_dropped: r(MCTP_DROPPED)?,
            mctp_len_errors: r(MCTP_LEN_ERRORS)?,
            mctp_rx_frames_in: r(MCTP_RX_FRAMES_IN)?,
            mctp_rx: {
                let mut v = [0; 12];
                for (i, x) in v.iter_mut().enumerate() {
                    *x = r(MCTP_RX_MESSAGES + 4 * i as u8)?;
                }
                v
            },
            mpa_rx_segments_in: r(MPA_RX_SEGMENTS_IN)?,
            mpa_rx_fpdus: r(MPA_RX_FPDUS)?,
            mpa_rx_bad_crc: r(MPA_RX_BAD_CRC)?,
            mpa_rx_bad_marker: r(MPA_RX_BAD_MARKER)?,
            mpa_rx_bad_length: r(MPA_RX_BAD_LENGTH)?,
        })
    }

    /// Sets the MPA receiver's framing and the stream offset of the first octet it will see,
    /// and restarts it under `CONTROL.MPA_RX_RESET` (it loads the offset, clears its status and
    /// counters). The same refusals as `mpa::Deframer::new`.
    pub fn configure_mpa_rx(
        &mut self,
        config: &FramingConfig,
        start_offset: u64,
    ) -> Result<(), RegisterError> {
        let c = framing_bits(config, start_offset)?;
        // Mod 2^32: the status offsets are widened back against the full start offset.
        let writes = [(MPA_RX_CONFIG, c), (MPA_RX_MULPDU, config.mulpdu as u32), (MPA_RX_OFFSET, start_offset as u32)];
        self.under_reset(CONTROL_MPA_RX_RESET, &writes)
    }

    /// Pulses `CONTROL.MPA_RX_RESET`: the receiver drops what it holds, reloads
    /// `MPA_RX_OFFSET` and clears its status and counters.
    pub fn reset_mpa_rx(&mut self) -> Result<(), RegisterError> {
        self.under_reset(CONTROL_MPA_RX_RESET, &[])
    }

    /// The MCTP receiver's record of its last drop (`MCTP_RX_DROP`, `MCTP_RX_DROP_CONTEXT`,
    /// `MCTP_RX_DROP_LENGTH`), cleared by its reset.
    pub fn mctp_rx_drop(&mut self) -> Result<crate::mctp::rx_block::DropRecord, RegisterError> {
        let words = [self.bus.read(MCTP_RX_DROP)?, self.bus.read(MCTP_RX_DROP_CONTEXT)?, self.bus.read(MCTP_RX_DROP_LENGTH)?];
        Ok(crate::mctp::rx_block::DropRecord::from_words(words))
    }

    /// The MPA receiver's status registers.
    pub fn mpa_rx_status(&mut self) -> Result<MpaRxStatus, RegisterError> {
        let s = self.bus.read(MPA_RX_STATUS)?;
        Ok(MpaRxStatus {
            error: s & MPA_RX_STATUS_ERROR_MASK,
            idle: s & MPA_RX_STATUS_IDLE != 0,
            offset: self.bus.read(MPA_RX_ERROR_OFFSET)?,
            found: self.bus.read(MPA_RX_FOUND)?,
            expected: self.bus.read(MPA_RX_EXPECTED)?,
        })
    }
}

/// Checks a message's length against the hardware's `s_len` port and the MCTP limits, the
/// refusals the packetizer would otherwise count as drops.
pub fn check_mctp_message(request: &TxRequest, message: &[u8]) -> Result<(), RegisterError> {
    let Some(&first) = message.first() else {
        return Err(MctpError::EmptyMessage.into());
    };
    let mut total = message.len();
    if request.append_mic {
        if first & crate::nvme_mi::IC_BIT == 0 {
            return Err(MctpError::IcBitClear { first }.into());
        }
        total += crate::nvme_mi::MIC_LEN;
        crate::nvme_mi::check_oob_len(total).map_err(MctpError::from)?;
    }
    if total > MAX_MESSAGE_LEN {
        return Err(MctpError::MessageTooLong {
            len: total,
            max: MAX_MESSAGE_LEN,
        }
        .into());
    }
    Ok(())
}

/// `MPA_CONFIG` / `MPA_RX_CONFIG` (one layout) for `config`, after the refusals the software
/// framer and deframer make of a configuration.
fn framing_bits(config: &FramingConfig, start_offset: u64) -> Result<u32, RegisterError> {
    if config.mulpdu == 0 || config.mulpdu > MAX_ULPDU {
        return Err(MpaError::Mulpdu(config.mulpdu).into());
    }
    if start_offset % 4 != 0 {
        return Err(MpaError::MisalignedOffset(start_offset).into());
    }
    Ok(if config.markers { MPA_CONFIG_MARKERS } else { 0 } | if config.crc { MPA_CONFIG_CRC } else { 0 })
}

fn check_offset(offset: u8) -> Result<(), RegisterError> {
    if offset % 4 != 0 {
        return Err(RegisterError::Offset(offset as u32));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mctp::{SmbusAddresses, TxConfig};

    /// A bus over a plain array that applies the map's access rules (RW masks, RO ignored):
    /// the driver's writes can be read back as the hardware would return them.
    struct ArrayBus {
        regs: [u32; 64],
        writes: Vec<(u8, u32)>,
    }

    impl ArrayBus {
        fn new() -> Self {
            let mut regs = [0; 64];
            regs[ID as usize / 4] = ID_VALUE;
            regs[VERSION as usize / 4] = (MAP_VERSION as u32) << 16 | 4 << 8 | 4;
            for r in MAP {
                if let Access::Rw { reset, .. } = r.access {
                    regs[r.offset as usize / 4] = reset;
                }
            }
            ArrayBus {
                regs,
                writes: Vec::new(),
            }
        }
    }

    impl RegisterBus for ArrayBus {
        fn read(&mut self, offset: u8) -> Result<u32, RegisterError> {
            Ok(self.regs[offset as usize / 4])
        }
        fn write(&mut self, offset: u8, value: u32) -> Result<(), RegisterError> {
            self.writes.push((offset, value));
            if let Some(Register {
                access: Access::Rw { mask, .. },
                ..
            }) = register(offset)
            {
                self.regs[offset as usize / 4] = value & mask;
            }
            Ok(())
        }
    }

    #[test]
    fn open_checks_id_and_version() {
        let regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        assert_eq!(
            regs.capabilities(),
            Capabilities {
                map_version: 3,
                mpa_tx_width: 4,
                mctp_tx_width: 4
            }
        );
        let mut bus = ArrayBus::new();
        bus.regs[0] = 0xDEAD_BEEF;
        assert!(matches!(
            OffloadRegs::open(bus),
            Err(RegisterError::NotOffload { found: 0xDEAD_BEEF })
        ));
        // A map-1 bitstream (no MPA RX registers) and a map-2 one (no MCTP RX drop record)
        // are refused.
        for v in [1, 2] {
            let mut bus = ArrayBus::new();
            bus.regs[1] = v << 16 | 0x0404;
            assert!(matches!(
                OffloadRegs::open(bus),
                Err(RegisterError::Version { found }) if found == v as u16
            ));
        }
    }

    #[test]
    fn configure_mpa_writes_the_fields_inside_a_reset_pulse() {
        let mut regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        let cfg = FramingConfig {
            markers: false,
            crc: true,
            mulpdu: 1442,
        };
        regs.configure_mpa(&cfg, 0x1_01EC).unwrap();
        let w = &regs.bus().writes;
        assert_eq!(
            w.as_slice(),
            &[
                (CONTROL, 1),
                (MPA_CONFIG, 2),
                (MPA_MULPDU, 1442),
                (MPA_OFFSET, 0x01EC),
                (CONTROL, 0)
            ]
        );
        assert!(matches!(
            regs.configure_mpa(&cfg, 6),
            Err(RegisterError::Mpa(MpaError::MisalignedOffset(6)))
        ));
        let bad = FramingConfig {
            mulpdu: MAX_ULPDU + 1,
            ..cfg
        };
        assert!(matches!(
            regs.configure_mpa(&bad, 0),
            Err(RegisterError::Mpa(MpaError::Mulpdu(_)))
        ));
    }

    #[test]
    fn configure_mpa_rx_writes_the_fields_inside_a_reset_pulse() {
        let mut regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        let cfg = FramingConfig {
            markers: true,
            crc: false,
            mulpdu: 8882,
        };
        regs.configure_mpa_rx(&cfg, 0x1_0000_01EC).unwrap();
        assert_eq!(
            regs.bus().writes.as_slice(),
            &[
                (CONTROL, CONTROL_MPA_RX_RESET),
                (MPA_RX_CONFIG, 1),
                (MPA_RX_MULPDU, 8882),
                (MPA_RX_OFFSET, 0x01EC),
                (CONTROL, 0)
            ]
        );
        assert!(matches!(
            regs.configure_mpa_rx(&cfg, 2),
            Err(RegisterError::Mpa(MpaError::MisalignedOffset(2)))
        ));
        let bad = FramingConfig { mulpdu: 0, ..cfg };
        assert!(matches!(
            regs.configure_mpa_rx(&bad, 0),
            Err(RegisterError::Mpa(MpaError::Mulpdu(0)))
        ));
        // Status: code, idle bit, the error widened against the start offset.
        regs.bus().regs[MPA_RX_STATUS as usize / 4] = 1 | MPA_RX_STATUS_IDLE;
        regs.bus().regs[MPA_RX_ERROR_OFFSET as usize / 4] = 0x200;
        regs.bus().regs[MPA_RX_FOUND as usize / 4] = 5;
        regs.bus().regs[MPA_RX_EXPECTED as usize / 4] = 6;
        let st = regs.mpa_rx_status().unwrap();
        assert_eq!((st.error, st.idle), (1, true));
        assert_eq!(
            st.error(0x1_0000_01EC),
            Some(MpaError::BadCrc {
                offset: 0x1_0000_0200,
                computed: 6,
                found: 5
            })
        );
    }

    #[test]
    fn configure_mctp_packs_flags_and_refuses_what_transmit_refuses() {
        let mut regs = OffloadRegs::open(ArrayBus::new()).unwrap();
        let mut config = TxConfig::new(0x10, 0x20, 5, true);
        config.start_seq = 2;
        config.mtu = 100;
        let req = TxRequest {
            config,
            append_mic: true,
            smbus: Some(SmbusAddresses {
                src: 0x21,
                dst: 0x1D,
            }),
        };
        regs.configure_mctp(&req).unwrap();
        assert_eq!(regs.read(MCTP_EIDS).unwrap(), 0x2010);
        assert_eq!(
            regs.read(MCTP_FLAGS).unwrap(),
            5 | 1 << 3 | 2 << 4 | 1 << 8 | 1 << 9
        );
        assert_eq!(regs.read(MCTP_MTU).unwrap(), 100);
        assert_eq!(regs.read(MCTP_SMBUS).unwrap(), 0x1D21);
        let bad_eid = TxRequest {
            config: TxConfig::new(3, 0x20, 0, true),
            ..req
        };
        assert!(matches!(
            regs.configure_mctp(&bad_eid),
            Err(RegisterError::Mctp(MctpError::InvalidEid { .. }))
        ));
        let bad_addr = TxRequest {
            smbus: Some(SmbusAddresses { src: 0x80, dst: 1 }),
            ..req
        };
        assert!(regs.configure_mctp(&bad_addr).is_err());
        let mut big = req;
        big.config.mtu = 251;
        assert!(matches!(
            regs.configure_mctp(&big),
            Err(RegisterError::Mctp(MctpError::SmbusMtu { .. }))
        ));
        assert!(matches!(regs.write(0x03, 0), Err(RegisterError::Offset(3))));
    }

    #[test]
    fn message_checks() {
        let req = TxRequest {
            config: TxConfig::new(0x10, 0x20, 0, true),
            append_mic: true,
            smbus: None,
        };
        assert!(check_mctp_message(&req, &[]).is_err());
        assert!(
            check_mctp_message(&req, &[0x04]).is_err(),
            "IC bit clear with a MIC"
        );
        assert!(check_mctp_message(&req, &[0x84, 1, 2]).is_ok());
    }
}
