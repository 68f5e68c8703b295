//! The register block's model against the register map, and the whole top in rust-hdl's
//! simulator (short: register access, one ULPDU, one MCTP message, counters). The long random
//! runs are the Verilator co-simulation (`offload-sim`'s `top_cosim`).

use super::regs::{strobe_mask, RegIn, RegModel};
use super::OffloadTop;
use offload_driver::mctp::{transmit, TxConfig, TxRequest};
use offload_driver::mpa::FramingConfig;
use offload_driver::registers::{self as map, Access, MAP};
use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};

fn write(m: &mut RegModel, addr: u8, data: u32, strb: u8) {
    let i = RegIn {
        wr_en: true,
        wr_addr: addr,
        wr_data: data,
        wr_strb: strb,
        ..Default::default()
    };
    m.clock(&i);
    assert!(m.wr_ack, "ack the cycle after the request");
    // `en` still high in the ack cycle is not a second write.
    m.clock(&RegIn {
        wr_data: !data,
        ..i
    });
    assert!(!m.wr_ack);
}

fn read(m: &mut RegModel, addr: u8, i: &RegIn) -> u32 {
    m.clock(&RegIn {
        rd_en: true,
        rd_addr: addr,
        ..i.clone()
    });
    assert!(m.rd_ack);
    let v = m.rd_data;
    m.clock(&RegIn {
        rd_en: true,
        rd_addr: addr,
        ..i.clone()
    });
    assert!(
        !m.rd_ack && m.rd_data == 0,
        "one ack per request, data 0 outside the ack"
    );
    v
}

#[test]
fn reset_values_masks_strobes_and_read_only_registers() {
    let mut m = RegModel::new(4, 8);
    let idle = RegIn::default();
    for r in MAP {
        let v = read(&mut m, r.offset, &idle);
        match r.access {
            Access::Rw { reset, .. } => assert_eq!(v, reset, "{}", r.name),
            Access::Ro if r.name == "ID" => assert_eq!(v, map::ID_VALUE),
            Access::Ro if r.name == "VERSION" => assert_eq!(v, 1 << 16 | 8 << 8 | 4),
            Access::Ro => assert_eq!(v, 0, "{} after reset", r.name),
        }
    }
    write(&mut m, map::SCRATCH, 0x1234_5678, 0xF);
    write(&mut m, map::SCRATCH, 0xAABB_CCDD, 0b0101);
    assert_eq!(read(&mut m, map::SCRATCH, &idle), 0x12BB_56DD);
    assert_eq!(strobe_mask(0b1010), 0xFF00_FF00);
    // Masks: MPA_OFFSET keeps a multiple of 4, MCTP_FLAGS only its fields.
    write(&mut m, map::MPA_OFFSET, 0xFFFF_FFFF, 0xF);
    assert_eq!(read(&mut m, map::MPA_OFFSET, &idle), 0xFFFC);
    write(&mut m, map::MCTP_FLAGS, 0xFFFF_FFFF, 0xF);
    assert_eq!(read(&mut m, map::MCTP_FLAGS, &idle), 0x33F);
    // Read-only and unmapped: writes ignored, unmapped reads 0.
    write(&mut m, map::ID, 0, 0xF);
    assert_eq!(read(&mut m, map::ID, &idle), map::ID_VALUE);
    write(&mut m, 0xF0, 0xFFFF_FFFF, 0xF);
    assert_eq!(read(&mut m, 0xF0, &idle), 0);
    // Counter inputs are read live.
    let busy = RegIn {
        mctp_packets: 77,
        mpa_fpdus: 5,
        ..Default::default()
    };
    assert_eq!(read(&mut m, map::MCTP_PACKETS, &busy), 77);
    assert_eq!(read(&mut m, map::MPA_FPDUS, &busy), 5);
    // Reset restores everything.
    m.clock(&RegIn {
        reset: true,
        ..Default::default()
    });
    assert_eq!(read(&mut m, map::SCRATCH, &idle), 0);
    assert_eq!(read(&mut m, map::MPA_OFFSET, &idle), 0);
}

#[test]
fn drop_reasons_follow_first_beats() {
    let mut m = RegModel::new(4, 4);
    write(&mut m, map::MPA_MULPDU, 100, 0xF);
    let beat = |len: u16, last: bool| RegIn {
        mpa_s_tvalid: true,
        mpa_s_tready: true,
        mpa_s_tlast: last,
        mpa_s_len: len,
        ..Default::default()
    };
    // A 200-octet ULPDU (over MULPDU) in three beats, a zero-length one, a good one.
    for b in [
        beat(200, false),
        beat(200, false),
        beat(200, true),
        beat(0, true),
        beat(50, false),
        beat(50, true),
    ] {
        m.clock(&b);
    }
    // Not taken (tready low): not counted.
    m.clock(&RegIn {
        mpa_s_tready: false,
        ..beat(0, true)
    });
    let idle = RegIn::default();
    assert_eq!(read(&mut m, map::MPA_ULPDUS_IN, &idle), 3);
    assert_eq!(read(&mut m, map::MPA_DROP_OVER_MULPDU, &idle), 1);
    assert_eq!(read(&mut m, map::MPA_DROP_ZERO_LEN, &idle), 1);
    // CONTROL.MPA_RESET clears them and holds the framer.
    write(&mut m, map::CONTROL, map::CONTROL_MPA_RESET, 0xF);
    assert!(m.outputs(&idle).mpa_reset && !m.outputs(&idle).mctp_reset);
    m.clock(&idle);
    write(&mut m, map::CONTROL, 0, 0xF);
    assert_eq!(read(&mut m, map::MPA_ULPDUS_IN, &idle), 0);
}

/// What the testbench saw.
#[derive(Default, Debug)]
struct Seen {
    reads: Vec<u32>,
    mpa: Vec<u8>,
    mctp: Vec<Vec<u8>>,
    cur: Vec<u8>,
}

type Top4 = OffloadTop<32, 4, 64, 96, 32, 4>;

/// The top in rust-hdl's simulator: configure over the bus, one ULPDU and one message through,
/// counters read back; the streams compared with the software framer and packetizer.
#[test]
fn top_in_rust_hdl_simulator() {
    let mut uut = Top4::default();
    uut.connect_all();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s2 = seen.clone();
    let ulpdu: Vec<u8> = (0..23u8).collect();
    let msg: Vec<u8> = (0..70u8).map(|i| i.wrapping_mul(7) | 0x80).collect();
    let (u2, m2) = (ulpdu.clone(), msg.clone());
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Top4>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Top4>| {
        let mut x = sim.init()?;
        x.reset.next = true;
        x.mpa_m_tready.next = true;
        x.mctp_m_tready.next = true;
        wait_clock_cycles!(sim, clock, x, 2);
        x.reset.next = false;
        // Register writes: (offset, value).
        let writes = [
            (map::CONTROL, map::CONTROL_MPA_RESET),
            (
                map::MPA_CONFIG,
                map::MPA_CONFIG_MARKERS | map::MPA_CONFIG_CRC,
            ),
            (map::MPA_MULPDU, 1000),
            (map::MPA_OFFSET, 0x1F0),
            (map::CONTROL, 0),
            (map::MCTP_EIDS, 0x10 | 0x20 << 8),
            (
                map::MCTP_FLAGS,
                3 | map::MCTP_FLAGS_TO | map::MCTP_FLAGS_MIC,
            ),
            (map::MCTP_MTU, 64),
        ];
        for (a, v) in writes {
            x.reg_wr_addr.next = (a as u64).into();
            x.reg_wr_data.next = (v as u64).into();
            x.reg_wr_strb.next = 0xF.into();
            x.reg_wr_en.next = true;
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, x.reg_wr_ack.val(), x);
            x.reg_wr_en.next = false;
            wait_clock_cycle!(sim, clock, x);
        }
        // One ULPDU and one message, concurrently, a beat per clock.
        let ub: Vec<&[u8]> = u2.chunks(4).collect();
        let mb: Vec<&[u8]> = m2.chunks(4).collect();
        let (mut ui, mut mi) = (0, 0);
        for _ in 0..400 {
            if ui < ub.len() {
                let c = ub[ui];
                x.mpa_s_tdata.next = crate::bits::bytes_to_bits::<32>(c);
                x.mpa_s_tkeep.next = (crate::bits::low_ones(c.len())).into();
                x.mpa_s_tlast.next = ui + 1 == ub.len();
                x.mpa_s_len.next = (u2.len() as u64).into();
                x.mpa_s_tvalid.next = true;
            } else {
                x.mpa_s_tvalid.next = false;
            }
            if mi < mb.len() {
                let c = mb[mi];
                x.mctp_s_tdata.next = crate::bits::bytes_to_bits::<32>(c);
                x.mctp_s_tkeep.next = (crate::bits::low_ones(c.len())).into();
                x.mctp_s_tlast.next = mi + 1 == mb.len();
                x.mctp_s_len.next = (m2.len() as u64).into();
                x.mctp_s_tvalid.next = true;
            } else {
                x.mctp_s_tvalid.next = false;
            }
            // Settle the inputs with the clock low, sample the handshakes the coming edge
            // takes (outputs always ready), then the edge.
            x = sim.wait(1, x)?;
            let mut s = s2.lock().unwrap();
            if x.mpa_m_tvalid.val() {
                let d = crate::bits::bits_to_u64(&x.mpa_m_tdata.val()).to_le_bytes();
                let k = crate::bits::bits_to_u64(&x.mpa_m_tkeep.val());
                s.mpa
                    .extend((0..4).filter(|b| k >> b & 1 != 0).map(|b| d[b]));
            }
            if x.mctp_m_tvalid.val() {
                let d = crate::bits::bits_to_u64(&x.mctp_m_tdata.val()).to_le_bytes();
                let k = crate::bits::bits_to_u64(&x.mctp_m_tkeep.val());
                s.cur
                    .extend((0..4).filter(|b| k >> b & 1 != 0).map(|b| d[b]));
                if x.mctp_m_tlast.val() {
                    let p = std::mem::take(&mut s.cur);
                    s.mctp.push(p);
                }
            }
            drop(s);
            if x.mpa_s_tvalid.val() && x.mpa_s_tready.val() {
                ui += 1;
            }
            if x.mctp_s_tvalid.val() && x.mctp_s_tready.val() {
                mi += 1;
            }
            wait_clock_cycle!(sim, clock, x);
        }
        for a in [
            map::MPA_ULPDUS_IN,
            map::MPA_FPDUS,
            map::MCTP_MESSAGES_IN,
            map::MCTP_PACKETS,
            map::MCTP_MESSAGES,
            map::SCRATCH,
        ] {
            x.reg_rd_addr.next = (a as u64).into();
            x.reg_rd_en.next = true;
            wait_clock_cycle!(sim, clock, x);
            sim_assert!(sim, x.reg_rd_ack.val(), x);
            s2.lock()
                .unwrap()
                .reads
                .push(crate::bits::bits_to_u64(&x.reg_rd_data.val()) as u32);
            x.reg_rd_en.next = false;
            wait_clock_cycle!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 20_000).unwrap();
    let s = seen.lock().unwrap();
    let want = offload_hdl_expected_fpdu(&ulpdu);
    assert_eq!(
        s.mpa, want,
        "FPDU through the top = software framer at offset 0x1F0"
    );
    let mut config = TxConfig::new(0x10, 0x20, 3, true);
    config.mtu = 64;
    let packets = transmit(
        &TxRequest {
            config,
            append_mic: true,
            smbus: None,
        },
        &msg,
    )
    .unwrap();
    assert_eq!(s.mctp, packets);
    assert_eq!(s.reads, vec![1, 1, 1, packets.len() as u32, 1, 0]);
}

fn offload_hdl_expected_fpdu(ulpdu: &[u8]) -> Vec<u8> {
    let cfg = FramingConfig {
        markers: true,
        crc: true,
        mulpdu: 1000,
    };
    crate::mpa_tx::expected_fpdus(cfg, 0x1F0, &[ulpdu.to_vec()]).concat()
}
