//! The register block and the whole top in rust-hdl's simulator, through the same testbench
//! (`TopBench`) and host driver (`OffloadRegs`) the Verilator co-simulation uses (short runs:
//! register access, a few ULPDUs and messages, counters). The long random runs and the
//! rust-hdl-vs-Verilator lockstep are `offload-sim`'s `top_cosim`.

use super::regs::version;
use crate::test_support::on_a_big_stack;
use crate::testbench::{ClockedModel, HdlModel, TopBench};
use offload_driver::mctp::{transmit, TxConfig, TxRequest};
use offload_driver::mpa::{FramingConfig, Framer, MpaError};
use offload_driver::{Offload, SoftwareOffload};
use offload_driver::regmap::{self as map, Access, MAP};
use offload_driver::registers::{OffloadRegs, RegisterBus};
use offload_driver::top_offload::TopStreams;

type Top4 = super::OffloadTop<32, 4, 64, 96, 32, 4, 11, 64, 8, 128>;

/// (Every test runs on [`on_a_big_stack`]: the top's `Default` needs about a test thread's stack.)
fn bench() -> TopBench<HdlModel<Top4>> {
    TopBench::new(super::hdl_model::<32, 4, 64, 96, 32, 4, 11, 64, 8, 128>().unwrap()).unwrap()
}

#[test]
fn reset_values_masks_strobes_and_read_only_registers() {
    on_a_big_stack(reset_values_masks_strobes_and_read_only_registers_body);
}

fn reset_values_masks_strobes_and_read_only_registers_body() {
    let mut b = bench();
    for r in MAP {
        let v = b.read(r.offset).unwrap();
        match r.access {
            Access::Rw { reset, .. } => assert_eq!(v, reset, "{}", r.name),
            Access::Ro if r.name == "ID" => assert_eq!(v, map::ID_VALUE),
            Access::Ro if r.name == "VERSION" => assert_eq!(v, version(4, 4)),
            // The MPA receiver after reset: no error, idle.
            Access::Ro if r.name == "MPA_RX_STATUS" => assert_eq!(v, map::MPA_RX_STATUS_IDLE),
            Access::Ro => assert_eq!(v, 0, "{} after reset", r.name),
        }
    }
    assert_eq!(version(4, 8), (map::MAP_VERSION as u32) << 16 | 8 << 8 | 4);
    b.write(map::SCRATCH, 0x1234_5678).unwrap();
    b.write_strobed(map::SCRATCH, 0xAABB_CCDD, 0b0101).unwrap();
    assert_eq!(b.read(map::SCRATCH).unwrap(), 0x12BB_56DD);
    // Masks: MPA_OFFSET keeps a multiple of 4, MCTP_FLAGS only its fields.
    b.write(map::MPA_OFFSET, 0xFFFF_FFFF).unwrap();
    assert_eq!(b.read(map::MPA_OFFSET).unwrap(), 0xFFFC);
    b.write(map::MCTP_FLAGS, 0xFFFF_FFFF).unwrap();
    assert_eq!(b.read(map::MCTP_FLAGS).unwrap(), 0x33F);
    // Byte address bits 1:0 are ignored.
    assert_eq!(b.read(map::MCTP_FLAGS | 3).unwrap(), 0x33F);
    // Read-only and unmapped: writes ignored, unmapped reads 0.
    b.write(map::ID, 0).unwrap();
    assert_eq!(b.read(map::ID).unwrap(), map::ID_VALUE);
    b.write(0xF0, 0xFFFF_FFFF).unwrap();
    assert_eq!(b.read(0xF0).unwrap(), 0);
    // Reset restores everything.
    b.model().reset(2);
    assert_eq!(b.read(map::SCRATCH).unwrap(), 0);
    assert_eq!(b.read(map::MPA_OFFSET).unwrap(), 0);
    assert_eq!(b.read(map::MCTP_FLAGS).unwrap(), 0);
}

/// One access per request: `en` still high until the ack is not a second access, the read
/// data is 0 outside the ack, a write is acknowledged the clock after its request and a read
/// three clocks after (`rd_wait` high in the two clocks between), returning the value of the
/// clock after its request.
#[test]
fn one_ack_per_request() {
    on_a_big_stack(one_ack_per_request_body);
}

fn one_ack_per_request_body() {
    let mut b = bench();
    let m = b.model();
    let p = |m: &HdlModel<Top4>, n: &str| m.port_id(n).unwrap();
    let (en, addr, data, strb, ack) =
        (p(m, "reg_wr_en"), p(m, "reg_wr_addr"), p(m, "reg_wr_data"), p(m, "reg_wr_strb"), p(m, "reg_wr_ack"));
    let (rd_en, rd_addr, rd_data, rd_ack) = (p(m, "reg_rd_en"), p(m, "reg_rd_addr"), p(m, "reg_rd_data"), p(m, "reg_rd_ack"));
    let (wr_wait, rd_wait) = (p(m, "reg_wr_wait"), p(m, "reg_rd_wait"));
    m.set(addr, map::SCRATCH as u64);
    m.set(data, 0x1111);
    m.set(strb, 0xF);
    m.set(en, 1);
    m.set(rd_addr, map::SCRATCH as u64);
    m.set(rd_en, 1);
    m.eval();
    assert_eq!((m.get(ack), m.get(rd_ack), m.get(rd_data), m.get(rd_wait)), (0, 0, 0, 0));
    m.tick();
    m.eval();
    // The write is acknowledged; the read is in progress.
    assert_eq!((m.get(ack), m.get(rd_ack), m.get(rd_data), m.get(rd_wait)), (1, 0, 0, 1));
    m.set(data, 0x2222);
    m.tick();
    m.eval();
    // No second write from `en` held through the ack clock; the read is in its third clock.
    assert_eq!((m.get(ack), m.get(rd_ack), m.get(rd_data), m.get(rd_wait)), (0, 0, 0, 1));
    // The writer drops `en` after its ack.
    m.set(en, 0);
    m.tick();
    m.eval();
    // The read is acknowledged with the value of the clock after its request: the write's.
    assert_eq!((m.get(ack), m.get(rd_ack), m.get(rd_data), m.get(rd_wait)), (0, 1, 0x1111, 0));
    // The reader holds its `en` through this ack clock.
    m.tick();
    m.eval();
    assert_eq!((m.get(ack), m.get(rd_ack), m.get(rd_data)), (0, 0, 0), "no second access from a held en");
    assert_eq!(m.get(wr_wait), 0);
    m.set(en, 0);
    m.set(rd_en, 0);
    m.eval();
    assert_eq!(b.read(map::SCRATCH).unwrap(), 0x1111, "one write, with the first data");
}

/// The framer, the packetizer and the register block's own counters, through the host driver.
#[test]
fn top_in_rust_hdl_simulator() {
    on_a_big_stack(top_in_rust_hdl_simulator_body);
}

fn top_in_rust_hdl_simulator_body() {
    let mut regs = OffloadRegs::open(bench()).unwrap();
    let cfg = FramingConfig { markers: true, crc: true, mulpdu: 100 };
    regs.configure_mpa(&cfg, 0x1F0).unwrap();
    let mut config = TxConfig::new(0x10, 0x20, 3, true);
    config.mtu = 64;
    let request = TxRequest { config, append_mic: true, smbus: None };
    regs.configure_mctp(&request).unwrap();
    // A good ULPDU, one over MULPDU and one of 0 octets (both dropped), another good one.
    let ulpdus: Vec<Vec<u8>> = vec![(0..23u8).collect(), vec![7; 200], Vec::new(), (0..50u8).collect()];
    let msg: Vec<u8> = (0..70u8).map(|i| i.wrapping_mul(7) | 0x80).collect();
    let (fpdus, packets) = regs.bus().stream(&ulpdus, std::slice::from_ref(&msg)).unwrap();
    assert_eq!(fpdus, crate::mpa_tx::expected_fpdus(cfg, 0x1F0, &ulpdus), "FPDUs = the software framer's");
    assert_eq!(packets, transmit(&request, &msg).unwrap(), "packets = mctp::transmit");
    let c = regs.counters().unwrap();
    assert_eq!(
        (c.mpa_ulpdus_in, c.mpa_fpdus, c.mpa_drop_over_mulpdu, c.mpa_drop_zero_len, c.mpa_dropped),
        (4, 2, 1, 1, 2)
    );
    assert_eq!((c.mctp_messages_in, c.mctp_packets, c.mctp_messages), (1, packets.len() as u32, 1));
    // CONTROL.MPA_RESET clears the framer's counters and this block's MPA counters only.
    regs.write(map::CONTROL, map::CONTROL_MPA_RESET).unwrap();
    regs.write(map::CONTROL, 0).unwrap();
    let c = regs.counters().unwrap();
    assert_eq!((c.mpa_ulpdus_in, c.mpa_fpdus, c.mpa_dropped), (0, 0, 0));
    assert_eq!(c.mctp_messages_in, 1);
}

/// The MPA receiver in the top, through the host driver: its registers after reset, a short
/// stream deframed as the software deframes it (status, counters, frames-in over the bus), then
/// one bit flipped: the last frame closes bad, the status names the error, the stream stops.
#[test]
fn mpa_rx_in_the_top() {
    on_a_big_stack(mpa_rx_in_the_top_body);
}

fn mpa_rx_in_the_top_body() {
    let mut regs = OffloadRegs::open(bench()).unwrap();
    let st = regs.mpa_rx_status().unwrap();
    assert_eq!((st.error, st.idle, st.offset, st.found, st.expected), (0, true, 0, 0, 0));
    assert_eq!(regs.read(map::MPA_RX_CONFIG).unwrap(), 0x3);
    assert_eq!(regs.read(map::MPA_RX_MULPDU).unwrap(), 0xFD00);
    let cfg = FramingConfig { markers: true, crc: true, mulpdu: 200 };
    let start = 0x1_0000_01F0;
    let ulpdus: Vec<Vec<u8>> = vec![(0..23u8).collect(), (0..150u8).collect(), vec![9; 60]];
    let mut framer = Framer::new(cfg, start).unwrap();
    let mut stream = Vec::new();
    for u in &ulpdus {
        framer.frame(u, &mut stream).unwrap();
    }
    regs.configure_mpa_rx(&cfg, start).unwrap();
    assert_eq!(regs.read(map::MPA_RX_OFFSET).unwrap(), 0x1F0, "the offset mod 2^32");
    let segments: Vec<Vec<u8>> = stream.chunks(37).map(<[u8]>::to_vec).collect();
    let frames = regs.bus().stream_mpa_rx(&segments).unwrap();
    assert_eq!(frames, ulpdus.iter().map(|u| (u.clone(), false)).collect::<Vec<_>>());
    let st = regs.mpa_rx_status().unwrap();
    assert_eq!((st.error, st.idle), (0, true));
    let c = regs.counters().unwrap();
    assert_eq!(
        (c.mpa_rx_segments_in, c.mpa_rx_fpdus, c.mpa_rx_bad_crc, c.mpa_rx_bad_marker, c.mpa_rx_bad_length),
        (segments.len() as u32, 3, 0, 0, 0)
    );
    // A bit flipped in the second ULPDU (the first FPDU is 34 octets with its Marker): one
    // good frame, then a bad one, and the status.
    let mut bad = stream.clone();
    bad[54] ^= 1;
    let want = SoftwareOffload.mpa_deframe(&cfg, start, &bad).unwrap();
    assert!(matches!(want.end, Err(MpaError::BadCrc { .. })), "{:?}", want.end);
    regs.configure_mpa_rx(&cfg, start).unwrap();
    let frames = regs.bus().stream_mpa_rx(&[bad]).unwrap();
    assert_eq!(frames.iter().filter(|f| !f.1).map(|f| f.0.clone()).collect::<Vec<_>>(), want.ulpdus);
    assert!(frames.last().unwrap().1, "the last frame closes bad");
    let st = regs.mpa_rx_status().unwrap();
    assert_eq!(st.error(start), want.end.clone().err());
    let c = regs.counters().unwrap();
    assert_eq!((c.mpa_rx_fpdus, c.mpa_rx_bad_crc, c.mpa_rx_segments_in), (want.ulpdus.len() as u32, 1, 1));
    // CONTROL bit 3 clears the receiver's status and counters.
    regs.reset_mpa_rx().unwrap();
    let st = regs.mpa_rx_status().unwrap();
    assert_eq!((st.error, st.idle), (0, true));
    assert_eq!(regs.counters().unwrap().mpa_rx_bad_crc, 0);
}
