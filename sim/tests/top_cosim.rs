//! End-to-end co-simulation of the Verilated `OffloadTop` (`top_w4`, `top_w8`) through its
//! register block: the host driver (`offload_driver::registers::OffloadRegs`) identifies and
//! configures it over the bus, ULPDUs and MCTP messages stream through it concurrently with
//! random idle cycles and back-pressure, and the counters read back over the bus must match
//! what the software model accepted, refused and produced; the `TopOffload` backend over the
//! top answers as `SoftwareOffload`. Fails (does not skip) without Verilator.

use offload_driver::mctp::{transmit, SmbusAddresses, TxConfig, TxRequest};
use offload_driver::mpa::{FramingConfig, MpaError};
use offload_driver::regmap::{self as map, Access, MAP};
use offload_driver::registers::OffloadRegs;
use offload_driver::top_offload::{TopOffload, TopStreams};
use offload_driver::{Offload, OffloadError, SoftwareOffload};
use offload_hdl::test_support::on_a_big_stack;
use offload_sim::{Traffic, VerilatedTop};
use rand::{Rng, SeedableRng};

const TOPS: [(&str, u8); 2] = [("top_w4", 4), ("top_w8", 8)];

fn open(name: &str) -> OffloadRegs<VerilatedTop> {
    let top = offload_sim::verilated_top(name).unwrap_or_else(|e| panic!("{e}"));
    OffloadRegs::open(top).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn register_map_over_the_bus() {
    for (name, w) in TOPS {
        let mut regs = open(name);
        let caps = regs.capabilities();
        assert_eq!(
            (caps.map_version, caps.mpa_tx_width, caps.mctp_tx_width),
            (map::MAP_VERSION, w, w),
            "{name}"
        );
        for r in MAP {
            let v = regs.read(r.offset).unwrap();
            match r.access {
                Access::Rw { reset, mask } => {
                    assert_eq!(v, reset, "{name} {} after reset", r.name);
                    // Every stored bit, and only those.
                    regs.write(r.offset, 0xFFFF_FFFF).unwrap();
                    assert_eq!(regs.read(r.offset).unwrap(), mask, "{name} {}", r.name);
                    regs.write(r.offset, reset).unwrap();
                }
                Access::Ro => {
                    regs.write(r.offset, !v).unwrap();
                    assert_eq!(
                        regs.read(r.offset).unwrap(),
                        v,
                        "{name} {} is read-only",
                        r.name
                    );
                }
            }
        }
        // Byte strobes, unmapped addresses.
        regs.write(map::SCRATCH, 0x1122_3344).unwrap();
        regs.bus()
            .write_strobed(map::SCRATCH, 0xAABB_CCDD, 0b1001)
            .unwrap();
        assert_eq!(regs.read(map::SCRATCH).unwrap(), 0xAA22_33DD);
        regs.write(0xFC, 0xFFFF_FFFF).unwrap();
        assert_eq!(regs.read(0xFC).unwrap(), 0);
        assert_eq!(regs.read(0xF0).unwrap(), 0, "unmapped");
        // Back-to-back accesses: one write and one read per two clocks at most.
        let (c0, a0) = (regs.bus().cycles().unwrap(), regs.bus().accesses);
        for i in 0..100 {
            regs.write(map::SCRATCH, i).unwrap();
            assert_eq!(regs.read(map::SCRATCH).unwrap(), i);
        }
        let (c1, a1) = (regs.bus().cycles().unwrap(), regs.bus().accesses);
        assert_eq!((a1.0 - a0.0, a1.1 - a0.1), (100, 100));
        assert!(
            c1 - c0 <= 400,
            "{name}: 200 accesses took {} clocks",
            c1 - c0
        );
    }
}

/// A valid MCTP request with random fields.
fn random_request(rng: &mut impl Rng) -> TxRequest {
    let smbus = rng.gen_bool(0.5);
    let config = TxConfig {
        src: rng.gen_range(8..=0xFE),
        dst: if rng.gen_bool(0.2) {
            [0, 0xFF][rng.gen_range(0..2)]
        } else {
            rng.gen_range(8..=0xFE)
        },
        tag: rng.gen_range(0..8),
        tag_owner: rng.gen(),
        mtu: rng.gen_range(64..=if smbus { 250 } else { 251 }),
        start_seq: rng.gen_range(0..4),
    };
    TxRequest {
        config,
        append_mic: rng.gen_bool(0.5),
        smbus: smbus.then(|| SmbusAddresses {
            src: rng.gen_range(0..0x80),
            dst: rng.gen_range(0..0x80),
        }),
    }
}

/// Per width, `BATCHES` rounds of: configure MPA and MCTP over the bus, stream ULPDUs (2 % of
/// them refused: zero length or over MULPDU) and messages (10 % refused: empty, IC bit clear
/// under a MIC, too long for a MIC) together, compare both outputs with the software, read
/// every counter back.
#[test]
fn configure_stream_and_read_counters() {
    const BATCHES: usize = 24;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x70b);
    for (name, _) in TOPS {
        let mut regs = open(name);
        let (mut ulpdus_total, mut messages_total) = (0, 0);
        for batch in 0..BATCHES {
            let mulpdu = [1442, 128, 8882, 300][batch % 4];
            let cfg = FramingConfig {
                markers: batch % 5 != 4,
                crc: batch % 3 != 2,
                mulpdu,
            };
            let offset = rng.gen_range(0..16384u64) * 4;
            regs.configure_mpa(&cfg, offset).unwrap();
            let req = random_request(&mut rng);
            regs.configure_mctp(&req).unwrap();
            regs.reset_mctp().unwrap();
            let n = if mulpdu > 2000 { 100 } else { 400 };
            let ulpdus: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = match rng.gen_range(0..100) {
                        0 => 0,
                        1 => mulpdu + rng.gen_range(1..64),
                        _ => rng.gen_range(1..=mulpdu),
                    };
                    (0..len).map(|_| rng.gen()).collect()
                })
                .collect();
            let messages: Vec<Vec<u8>> = (0..60)
                .map(|_| {
                    let mut m: Vec<u8> = (0..rng.gen_range(1..=1200)).map(|_| rng.gen()).collect();
                    if req.append_mic {
                        m[0] |= 0x80;
                    }
                    match rng.gen_range(0..30) {
                        0 => m.clear(),
                        1 if req.append_mic => m[0] &= 0x7F,
                        2 if req.append_mic => m.resize(4221, 0x84),
                        _ => {}
                    }
                    m
                })
                .collect();
            regs.bus().traffic = Traffic::random(
                [0.0, 0.2, 0.5][batch % 3],
                [0.0, 0.3, 0.6][(batch / 3) % 3],
                rng.gen(),
            );
            let (fpdus, packets) = regs.bus().stream(&ulpdus, &messages).unwrap();

            let want_fpdus = offload_hdl::mpa_tx::expected_fpdus(cfg, offset, &ulpdus);
            assert!(fpdus == want_fpdus, "{name} batch {batch}: FPDUs differ from the software framer ({cfg:?}, offset {offset})");
            let mut want_packets = Vec::new();
            let mut refused = 0;
            for m in &messages {
                match transmit(&req, m) {
                    Ok(p) => want_packets.extend(p),
                    Err(_) => refused += 1,
                }
            }
            assert!(
                packets == want_packets,
                "{name} batch {batch}: MCTP packets differ from mctp::transmit ({req:?})"
            );

            let c = regs.counters().unwrap();
            let zero = ulpdus.iter().filter(|u| u.is_empty()).count() as u32;
            let over = ulpdus.iter().filter(|u| u.len() > mulpdu).count() as u32;
            assert_eq!(
                (
                    c.mpa_ulpdus_in,
                    c.mpa_fpdus,
                    c.mpa_drop_zero_len,
                    c.mpa_drop_over_mulpdu,
                    c.mpa_dropped
                ),
                (n as u32, want_fpdus.len() as u32, zero, over, zero + over),
                "{name} batch {batch}: MPA counters {c}"
            );
            assert_eq!(
                (
                    c.mctp_messages_in,
                    c.mctp_packets,
                    c.mctp_messages,
                    c.mctp_dropped,
                    c.mctp_len_errors
                ),
                (
                    messages.len() as u32,
                    want_packets.len() as u32,
                    (messages.len() - refused) as u32,
                    refused as u32,
                    0
                ),
                "{name} batch {batch}: MCTP counters {c}"
            );
            ulpdus_total += n;
            messages_total += messages.len();
        }
        assert!(
            ulpdus_total >= 7000 && messages_total >= 1400,
            "{ulpdus_total} ULPDUs, {messages_total} messages"
        );
    }
}

/// `CONTROL.MPA_RESET` holds the framer: nothing is taken until it is cleared.
#[test]
fn control_reset_holds_the_framer() {
    let mut regs = open("top_w4");
    regs.write(map::CONTROL, map::CONTROL_MPA_RESET).unwrap();
    regs.bus().traffic = Traffic {
        max_cycles: 200,
        ..Traffic::full_rate()
    };
    let err = regs.bus().stream(&[vec![1; 40]], &[]).unwrap_err();
    assert!(err.to_string().contains("timeout"), "{err}");
    regs.write(map::CONTROL, 0).unwrap();
    let c = regs.counters().unwrap();
    assert_eq!(
        (c.mpa_ulpdus_in, c.mpa_fpdus),
        (0, 0),
        "nothing taken while held"
    );
    let (fpdus, _) = regs.bus().stream(&[vec![2; 40]], &[]).unwrap();
    assert_eq!(
        fpdus,
        offload_hdl::mpa_tx::expected_fpdus(FramingConfig::default(), 0, &[vec![2; 40]])
    );
    assert_eq!(regs.counters().unwrap().mpa_fpdus, 1);
}

/// `TopOffload` over the Verilated top answers as the software model, refusals included.
#[test]
fn top_offload_backend_matches_software() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for (name, _) in TOPS {
        let top = offload_sim::verilated_top(name).unwrap();
        let mut hw = TopOffload::open(top, "sim-top").unwrap();
        let mut sw = SoftwareOffload;
        for i in 0..6 {
            let cfg = FramingConfig {
                markers: i % 2 == 0,
                crc: i != 3,
                mulpdu: 1442,
            };
            let ulpdus: Vec<Vec<u8>> = (0..20)
                .map(|_| (0..rng.gen_range(1..=1442)).map(|_| rng.gen()).collect())
                .collect();
            let off = 4 * rng.gen_range(0..1000);
            assert_eq!(
                hw.mpa_frame(&cfg, off, &ulpdus).unwrap(),
                sw.mpa_frame(&cfg, off, &ulpdus).unwrap(),
                "{name}"
            );
            let req = random_request(&mut rng);
            let mut msg: Vec<u8> = (0..rng.gen_range(1..=600)).map(|_| rng.gen()).collect();
            msg[0] |= 0x80;
            assert_eq!(
                hw.mctp_transmit(&req, &msg).unwrap(),
                sw.mctp_transmit(&req, &msg).unwrap(),
                "{name}"
            );
        }
        let cfg = FramingConfig {
            mulpdu: 100,
            ..FramingConfig::default()
        };
        let e = hw.mpa_frame(&cfg, 0, &[vec![0; 101]]).unwrap_err();
        assert!(
            matches!(
                e,
                OffloadError::Mpa(MpaError::UlpduLength {
                    len: 101,
                    mulpdu: 100
                })
            ),
            "{e}"
        );
        let e = hw.mpa_frame(&cfg, 2, &[vec![0; 10]]).unwrap_err();
        assert!(
            matches!(e, OffloadError::Mpa(MpaError::MisalignedOffset(2))),
            "{e}"
        );
        let req = TxRequest {
            config: TxConfig::new(0x10, 0x20, 0, true),
            append_mic: true,
            smbus: None,
        };
        assert!(matches!(
            hw.mctp_transmit(&req, &[0x04]),
            Err(OffloadError::Mctp(_))
        ));
        assert!(matches!(
            hw.crc(offload_driver::crc::CrcKind::Crc32c, b"x"),
            Err(OffloadError::Unsupported { .. })
        ));
        assert!(hw.cycles().unwrap() > 0);
    }
}

/// The board path without Opal Kelly's cells: `TopOffload` over `OkTransport` (the FrontPanel
/// register protocol, stream encoding and FIFO flow control) over the Verilated board core
/// (bridge + `OffloadTop`) answers as the software model; the counters read over FrontPanel
/// match; a frame of the 17-bit maximum length passes the bridge.
#[test]
fn board_core_over_frontpanel_transport() {
    use offload_driver::ok::OkTransport;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7010);
    let t = OkTransport::new(offload_sim::verilated_board().unwrap_or_else(|e| panic!("{e}"))).unwrap();
    let mut hw = TopOffload::open(t, "ok-sim").unwrap();
    let caps = hw.regs().capabilities();
    assert_eq!((caps.mpa_tx_width, caps.mctp_tx_width), (4, 4));
    let mut sw = SoftwareOffload;
    for i in 0..4 {
        let cfg = FramingConfig {
            markers: i != 1,
            crc: i != 2,
            mulpdu: [1442, 8882][i % 2],
        };
        // More words than the 1024-word input FIFO: the flow control is exercised.
        let ulpdus: Vec<Vec<u8>> = (0..12)
            .map(|_| {
                (0..rng.gen_range(1..=cfg.mulpdu))
                    .map(|_| rng.gen())
                    .collect()
            })
            .collect();
        let off = 4 * rng.gen_range(0..4000);
        assert_eq!(
            hw.mpa_frame(&cfg, off, &ulpdus).unwrap(),
            sw.mpa_frame(&cfg, off, &ulpdus).unwrap()
        );
        let req = random_request(&mut rng);
        let mut msg: Vec<u8> = (0..rng.gen_range(1..=3000)).map(|_| rng.gen()).collect();
        msg[0] |= 0x80;
        assert_eq!(
            hw.mctp_transmit(&req, &msg).unwrap(),
            sw.mctp_transmit(&req, &msg).unwrap()
        );
    }
    // Both paths at once, refused frames included, counters over FrontPanel.
    let regs = hw.regs();
    let cfg = FramingConfig {
        markers: true,
        crc: true,
        mulpdu: 1442,
    };
    regs.configure_mpa(&cfg, 0).unwrap();
    let req = TxRequest {
        config: TxConfig::new(0x10, 0x20, 1, true),
        append_mic: false,
        smbus: None,
    };
    regs.configure_mctp(&req).unwrap();
    regs.reset_mctp().unwrap();
    let ulpdus = vec![vec![1; 100], vec![], vec![2; 1443], vec![3; 1442]];
    let messages = vec![vec![0x84; 65536], vec![], vec![0x05; 10]];
    let (fpdus, packets) = regs.bus().stream(&ulpdus, &messages).unwrap();
    assert_eq!(fpdus, offload_hdl::mpa_tx::expected_fpdus(cfg, 0, &ulpdus));
    let want: Vec<Vec<u8>> = messages
        .iter()
        .filter_map(|m| transmit(&req, m).ok())
        .flatten()
        .collect();
    assert!(
        packets == want,
        "{} packets, software {}",
        packets.len(),
        want.len()
    );
    let c = regs.counters().unwrap();
    assert_eq!(
        (
            c.mpa_ulpdus_in,
            c.mpa_fpdus,
            c.mpa_drop_zero_len,
            c.mpa_drop_over_mulpdu
        ),
        (4, 2, 1, 1),
        "{c}"
    );
    assert_eq!(
        (
            c.mctp_messages_in,
            c.mctp_messages,
            c.mctp_dropped,
            c.mctp_packets
        ),
        (3, 2, 1, want.len() as u32),
        "{c}"
    );
}

/// A framed stream for the MPA RX checks: `round` picks how it is spoiled (as in
/// `mpa_rx_through_the_top`): 0 good, 1 a bit flipped, 2 cut short, 3 a Marker's FPDUPTR off by
/// 16, 4 the first ULPDU_Length 0 or above MULPDU, 5 good.
fn spoiled_stream(rng: &mut rand::rngs::StdRng, round: usize, max_ulpdus: usize) -> (FramingConfig, u64, Vec<u8>) {
    use offload_driver::mpa::Framer;
    let cfg = FramingConfig {
        markers: round % 6 == 3 || rng.gen_bool(0.75),
        crc: rng.gen_bool(0.8),
        mulpdu: [128, 1442, 300, 8882][round % 4],
    };
    let start = 4 * rng.gen_range(0..if round % 3 == 0 { 1u64 << 34 } else { 1 << 12 });
    let mut framer = Framer::new(cfg, start).unwrap();
    let mut stream = Vec::new();
    for _ in 0..rng.gen_range(1..=max_ulpdus) {
        let len = if rng.gen_bool(0.2) { cfg.mulpdu } else { rng.gen_range(1..=cfg.mulpdu.min(1500)) };
        let u: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        framer.frame(&u, &mut stream).unwrap();
    }
    let first_marker = ((512 - start % 512) % 512) as usize;
    let mut flip = |stream: &mut Vec<u8>| {
        let bit = rng.gen_range(0..stream.len() * 8);
        stream[bit / 8] ^= 1 << (bit % 8);
    };
    match round % 6 {
        1 => flip(&mut stream),
        2 => {
            let n = rng.gen_range(0..stream.len());
            stream.truncate(n)
        }
        3 if first_marker + 4 <= stream.len() => stream[first_marker + 3] ^= 0x10,
        3 => flip(&mut stream),
        4 => {
            let at = if cfg.markers && first_marker == 0 { 4 } else { 0 };
            let len = [0, cfg.mulpdu as u16 + 1][round / 6 % 2];
            stream[at..at + 2].copy_from_slice(&len.to_be_bytes());
        }
        _ => {}
    }
    (cfg, start, stream)
}

/// Both receive paths of the board core through the host's FrontPanel transport
/// (`TopOffload<OkTransport<VerilatedBoard>>`, the `ok` backend minus Opal Kelly's cells):
/// `mpa_deframe` equals `SoftwareOffload`'s on RFC 5044 Figures 5 and 6 (whole and with a bit
/// flipped) and on random streams (random framing, MULPDU, offsets past 4 GiB; a bit flipped, cut
/// short, a bad Marker, a bad length), with the MPA RX status and counters read over FrontPanel;
/// random segmentations through the MPA RX pipe give the same ULPDUs, `m_len` checked on each;
/// `mctp_receive` equals `SoftwareOffload`'s on random MCTP traffic with faults (raw and SMBus,
/// MIC on and off); both inputs' FIFOs overflow-free with streams longer than them.
/// RFC 5044 Figures 5 and 6 through a `TopOffload` (a Verilated top, or the board core over
/// FrontPanel): each deframes to its ULPDU, and with a bit flipped ends in a CRC error as the
/// software's does.
fn deframes_rfc5044_figures<T: offload_driver::registers::RegisterBus + TopStreams>(hw: &mut TopOffload<T>, what: &str) {
    use offload_driver::Deframed;
    for (offset, stream, ulpdu) in offload_hdl::testbench::rfc5044_figure_streams() {
        let d = hw.mpa_deframe(&FramingConfig::default(), offset, &stream).unwrap();
        assert_eq!(d, Deframed { ulpdus: vec![ulpdu], end: Ok(()) }, "{what} figure at {offset:#x}");
        let mut bad = stream.clone();
        bad[51] ^= 0x80;
        let d = hw.mpa_deframe(&FramingConfig::default(), offset, &bad).unwrap();
        assert_eq!(d, SoftwareOffload.mpa_deframe(&FramingConfig::default(), offset, &bad).unwrap(), "{what}");
        assert!(matches!(d.end, Err(MpaError::BadCrc { .. })), "{what}: {:?}", d.end);
    }
}

/// How a deframed stream ended, as an index: good, truncated, CRC, Marker, length.
fn end_kind(end: &Result<(), MpaError>, what: &str) -> usize {
    match end {
        Ok(()) => 0,
        Err(MpaError::Truncated { .. }) => 1,
        Err(MpaError::BadCrc { .. }) => 2,
        Err(MpaError::BadMarker { .. }) => 3,
        Err(MpaError::BadLength { .. }) => 4,
        Err(e) => panic!("{what}: software ended with {e}"),
    }
}

/// Eight random ULPDUs framed from a random offset, Markers every other round: the
/// configuration, the offset, the ULPDUs and the stream.
fn framed_ulpdus(rng: &mut rand::rngs::StdRng, round: usize) -> (FramingConfig, u64, Vec<Vec<u8>>, Vec<u8>) {
    let cfg = FramingConfig { markers: round % 2 == 0, crc: true, mulpdu: 1442 };
    let start = 4 * rng.gen_range(0..4000);
    let ulpdus: Vec<Vec<u8>> = (0..8).map(|_| (0..rng.gen_range(1..=1442)).map(|_| rng.gen()).collect()).collect();
    let mut framer = offload_driver::mpa::Framer::new(cfg, start).unwrap();
    let mut stream = Vec::new();
    for u in &ulpdus {
        framer.frame(u, &mut stream).unwrap();
    }
    (cfg, start, ulpdus, stream)
}

#[test]
fn board_core_receive_paths_over_frontpanel() {
    use offload_driver::ok::OkTransport;
    use offload_hdl::test_support::{random_rx_frames, rx_oversize, RxSetup};
    use offload_hdl::testbench::random_segments;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7010_5044);
    let t = OkTransport::new(offload_sim::verilated_board().unwrap_or_else(|e| panic!("{e}"))).unwrap();
    let mut hw = TopOffload::open(t, "ok-sim").unwrap();
    let mut sw = SoftwareOffload;
    deframes_rfc5044_figures(&mut hw, "board");
    let mut ends = [0usize; 5];
    for round in 0..30 {
        let (cfg, start, stream) = spoiled_stream(&mut rng, round, 8);
        let want = sw.mpa_deframe(&cfg, start, &stream).unwrap();
        let got = hw.mpa_deframe(&cfg, start, &stream).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert_eq!(got, want, "round {round} ({cfg:?} at {start:#x})");
        let kind = end_kind(&want.end, &format!("round {round}"));
        ends[kind] += 1;
        let c = hw.regs().counters().unwrap();
        assert_eq!(
            [c.mpa_rx_fpdus, c.mpa_rx_bad_crc, c.mpa_rx_bad_marker, c.mpa_rx_bad_length],
            [want.ulpdus.len() as u32, (kind == 2) as u32, (kind == 3) as u32, (kind == 4) as u32],
            "round {round}: {c}"
        );
    }
    assert!(ends.iter().all(|&n| n > 0), "stream ends {ends:?}");
    // Any segmentation gives the same frames; the input FIFO (1024 words) is refilled.
    for round in 0..6 {
        let (cfg, start, ulpdus, stream) = framed_ulpdus(&mut rng, round);
        let segments = random_segments(&mut rng, &stream, [3, 64, 700][round % 3]);
        let regs = hw.regs();
        regs.configure_mpa_rx(&cfg, start).unwrap();
        let frames = regs.bus().stream_mpa_rx(&segments).unwrap();
        assert_eq!(frames, ulpdus.iter().map(|u| (u.clone(), false)).collect::<Vec<_>>(), "round {round}");
        let c = regs.counters().unwrap();
        assert_eq!((c.mpa_rx_segments_in, c.mpa_rx_fpdus), (segments.len() as u32, 8), "round {round}");
        assert!(regs.mpa_rx_status().unwrap().idle);
    }
    // MCTP receive with faults.
    let (mut messages, mut problems) = (0, 0);
    for round in 0..12 {
        let setup = RxSetup::random(&mut rng);
        let mut frames = random_rx_frames(&mut rng, &setup, 10, 1200.min(setup.max_len.max(200)), 0.25);
        frames.retain(|f| !rx_oversize(&setup, f));
        let req = setup.request();
        let want = sw.mctp_receive(&req, &frames).unwrap();
        let got = hw.mctp_receive(&req, &frames).unwrap_or_else(|e| panic!("round {round} ({setup:?}): {e}"));
        assert!(got == want, "round {round} ({setup:?}): report differs");
        messages += want.messages.len();
        problems += want.problems.len();
    }
    assert!(messages > 20 && problems > 5, "{messages} messages, {problems} problems: too little tested");
    // Several messages in one stream, with their header fields from the side channel.
    let tx = TxRequest { config: TxConfig::new(0x1D, 0x08, 6, true), append_mic: false, smbus: None };
    let mut frames = transmit(&tx, &vec![0x7E; 3000]).unwrap();
    frames.extend(transmit(&TxRequest { config: TxConfig::new(0x0A, 0x08, 2, false), ..tx }, &[1, 2, 3]).unwrap());
    let regs = hw.regs();
    regs.configure_mctp_rx(&offload_driver::registers::MctpRxConfig { smbus: false, mic: false, strict: true, max_len: 4096 })
        .unwrap();
    let got = regs.bus().stream_rx(&frames).unwrap();
    let fields: Vec<_> = got.iter().map(|m| (m.src, m.dst, m.tag, m.tag_owner, m.bytes.len())).collect();
    assert_eq!(fields, vec![(0x1D, 0x08, 6, true, 3000), (0x0A, 0x08, 2, false, 3)]);
}

/// The MCTP RX path of the top: per width, random setups configured over the bus (binding,
/// MIC, unit rules, limit), random packet streams (interleaved and corrupted ones included)
/// through `mctp_rx_s` with gaps and back-pressure; the delivered messages with their header
/// fields and all twelve RX counters read over the bus equal the software receiver's, and so
/// does the drop record (`MCTP_RX_DROP*`) of each round's last drop.
#[test]
fn mctp_rx_through_the_top() {
    use offload_driver::registers::MctpRxConfig;
    use offload_hdl::test_support::{check_drops, random_rx_frames, rx_reference, RxSetup};
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7278);
    for (name, _) in TOPS {
        let mut regs = open(name);
        let mut delivered = 0;
        for round in 0..8 {
            let setup = RxSetup::random(&mut rng);
            let cfg = MctpRxConfig {
                smbus: setup.smbus,
                mic: setup.mic,
                strict: setup.strict,
                max_len: setup.max_len,
            };
            regs.configure_mctp_rx(&cfg).unwrap();
            let frames =
                random_rx_frames(&mut rng, &setup, 40, 4224.min(setup.max_len.max(600)), 0.05);
            let want = rx_reference(&setup, &frames);
            regs.bus().traffic = Traffic::random(
                [0.0, 0.3][round % 2],
                [0.0, 0.4][(round / 2) % 2],
                rng.gen(),
            );
            let got = regs.bus().stream_rx(&frames).unwrap();
            assert!(
                got == want.messages,
                "{name} round {round}: {} messages, software {} ({setup:?})",
                got.len(),
                want.messages.len()
            );
            let c = regs.counters().unwrap();
            assert_eq!(
                c.mctp_rx,
                want.counters.as_array(),
                "{name} round {round}: RX counters ({setup:?})"
            );
            assert_eq!(c.mctp_rx_frames_in, frames.len() as u32);
            // The drop record over the bus: the round's last drop (the configuration's reset
            // cleared it), its toggle flipped once per drop.
            let d = regs.mctp_rx_drop().unwrap();
            match want.drops.last() {
                None => assert_eq!(d.reason(), None, "{name} round {round}: {d}"),
                Some(last) => {
                    check_drops(&[d], std::slice::from_ref(last)).unwrap_or_else(|e| panic!("{name} round {round}: {e}"));
                    assert_eq!(d.toggle, want.drops.len() % 2 == 1, "{name} round {round}: {} drops, {d}", want.drops.len());
                }
            }
            delivered += got.len();
        }
        assert!(
            delivered >= 150,
            "{name}: only {delivered} messages delivered"
        );
    }
    // Out-of-range limits are refused before they reach the hardware.
    let mut regs = open("top_w4");
    let bad = MctpRxConfig {
        smbus: false,
        mic: false,
        strict: true,
        max_len: 7681,
    };
    assert!(regs.configure_mctp_rx(&bad).is_err());
}

/// The MPA RX path of the top through `TopOffload` (the `Offload` backend, configuring over the
/// bus): per width, RFC 5044 Figures 5 and 6 and random streams from the software framer
/// (random framing, MULPDU and start offsets, some past 4 GiB), whole, with a bit flipped or
/// cut short, with random gaps and back-pressure, deframe exactly as `SoftwareOffload` does; the
/// status registers and the counters read over the bus say the same; random segmentations
/// through `stream_mpa_rx` itself; the software deframer's refusals.
#[test]
fn mpa_rx_through_the_top() {
    use offload_hdl::testbench::random_segments;
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5044);
    for (name, _) in TOPS {
        let top = offload_sim::verilated_top(name).unwrap_or_else(|e| panic!("{e}"));
        let mut hw = TopOffload::open(top, "sim-top").unwrap();
        let mut sw = SoftwareOffload;
        deframes_rfc5044_figures(&mut hw, name);
        // Random streams; how each ended: good, truncated, CRC, Marker, length.
        let mut ends = [0usize; 5];
        for round in 0..48 {
            let (cfg, start, stream) = spoiled_stream(&mut rng, round, 10);
            hw.regs().bus().traffic = Traffic::random([0.0, 0.3][round % 2], [0.0, 0.4][round / 2 % 2], rng.gen());
            let want = sw.mpa_deframe(&cfg, start, &stream).unwrap();
            let got = hw.mpa_deframe(&cfg, start, &stream).unwrap_or_else(|e| panic!("{name} round {round}: {e}"));
            assert_eq!(got, want, "{name} round {round} ({cfg:?} at {start:#x})");
            // The registers say the same.
            let st = hw.regs().mpa_rx_status().unwrap();
            let c = hw.regs().counters().unwrap();
            let kind = end_kind(&want.end, &format!("{name} round {round}"));
            ends[kind] += 1;
            assert_eq!(st.error, [0, 0, 1, 2, 3][kind], "{name} round {round}: {st:?}");
            assert_eq!(st.error(start), want.end.clone().err().filter(|_| kind >= 2), "{name} round {round}");
            if kind < 2 {
                assert_eq!(st.idle, kind == 0, "{name} round {round}: {st:?}");
            }
            assert_eq!(
                [c.mpa_rx_fpdus, c.mpa_rx_bad_crc, c.mpa_rx_bad_marker, c.mpa_rx_bad_length],
                [want.ulpdus.len() as u32, (kind == 2) as u32, (kind == 3) as u32, (kind == 4) as u32],
                "{name} round {round}: {c}"
            );
            assert_eq!(c.mpa_rx_segments_in, stream.len().div_ceil(1 << 16) as u32, "{name} round {round}");
        }
        assert!(ends.iter().all(|&n| n > 0), "{name}: stream ends {ends:?}");
        // Any segmentation gives the same frames.
        for round in 0..6 {
            let (cfg, start, ulpdus, stream) = framed_ulpdus(&mut rng, round);
            let segments = random_segments(&mut rng, &stream, [3, 64, 700][round % 3]);
            let regs = hw.regs();
            regs.configure_mpa_rx(&cfg, start).unwrap();
            regs.bus().traffic = Traffic::random(0.2, 0.3, rng.gen());
            let frames = regs.bus().stream_mpa_rx(&segments).unwrap();
            assert_eq!(frames, ulpdus.iter().map(|u| (u.clone(), false)).collect::<Vec<_>>(), "{name} round {round}");
            let c = regs.counters().unwrap();
            assert_eq!((c.mpa_rx_segments_in, c.mpa_rx_fpdus), (segments.len() as u32, 8), "{name} round {round}");
            assert!(regs.mpa_rx_status().unwrap().idle);
        }
        // The software deframer's refusals, before the hardware.
        let e = hw.mpa_deframe(&FramingConfig { mulpdu: 0, ..FramingConfig::default() }, 0, &[]).unwrap_err();
        assert!(matches!(e, OffloadError::Mpa(MpaError::Mulpdu(0))), "{e}");
        let e = hw.mpa_deframe(&FramingConfig::default(), 6, &[0; 8]).unwrap_err();
        assert!(matches!(e, OffloadError::Mpa(MpaError::MisalignedOffset(6))), "{e}");
    }
}

/// rust-hdl's simulation of the whole top (register block, MPA framer, MCTP blocks) and the
/// Verilated Verilog emitted from it, driven together through the host driver: register
/// accesses, ULPDUs and messages with random gaps and back-pressure, MCTP RX frames, MPA RX
/// streams (good and with a bit flipped), block resets over `CONTROL`; every output compared every cycle, and the results checked against
/// the software. (On a thread with a 64 MiB stack, as the board core's below: rust-hdl settles
/// the top by deep recursion, and since MCTP RX's judging outcomes (stop 65) the dev profile's
/// frames overflow a test thread's 2 MiB.)
#[test]
fn rust_hdl_and_verilated_top_agree_cycle_by_cycle() {
    on_a_big_stack(top_lockstep);
}


fn top_lockstep() {
    use offload_driver::registers::MctpRxConfig;
    use offload_hdl::testbench::{ClockedModel, Lockstep, TopBench};
    use offload_hdl::test_support::{random_rx_frames, rx_reference, RxSetup};
    use offload_sim::VerilatedModel;
    fn run<A: ClockedModel>(name: &str, model: A, seed: u64) -> u64 {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let v = VerilatedModel::new(offload_sim::model_info(name).unwrap());
        // Every block is one `#[hdl_gen]` description: every output is compared every cycle,
        // idle buses included.
        let l = Lockstep::new(model, v).unwrap();
        let bench = TopBench::new(l).unwrap();
        let mut regs = OffloadRegs::open(bench).unwrap();
        for round in 0..8 {
            regs.bus().traffic = Traffic::random([0.0, 0.3][round % 2], [0.0, 0.4][round / 2 % 2], rng.gen());
            let cfg = FramingConfig { markers: round % 4 != 1, crc: round % 4 != 2, mulpdu: 700 };
            let off = 4 * rng.gen_range(0..4000);
            regs.configure_mpa(&cfg, off).unwrap();
            let req = random_request(&mut rng);
            regs.configure_mctp(&req).unwrap();
            let ulpdus: Vec<Vec<u8>> = (0..12)
                .map(|_| (0..rng.gen_range(0..=760)).map(|_| rng.gen()).collect())
                .collect();
            let mut msg: Vec<u8> = (0..rng.gen_range(1..=300)).map(|_| rng.gen()).collect();
            msg[0] |= 0x80;
            let (fpdus, packets) = regs.bus().stream(&ulpdus, &[msg.clone()]).unwrap();
            assert_eq!(fpdus, offload_hdl::mpa_tx::expected_fpdus(cfg, off, &ulpdus), "{name} round {round}");
            assert_eq!(packets, transmit(&req, &msg).unwrap_or_default(), "{name} round {round}");
            let setup = RxSetup::random(&mut rng);
            let rx = MctpRxConfig { smbus: setup.smbus, mic: setup.mic, strict: setup.strict, max_len: setup.max_len };
            regs.configure_mctp_rx(&rx).unwrap();
            let frames = random_rx_frames(&mut rng, &setup, 12, 600.min(setup.max_len), 0.05);
            let want = rx_reference(&setup, &frames);
            assert!(regs.bus().stream_rx(&frames).unwrap() == want.messages, "{name} round {round}");
            let c = regs.counters().unwrap();
            assert_eq!(c.mctp_rx, want.counters.as_array(), "{name} round {round}");
            assert_eq!(c.mpa_ulpdus_in, 12, "{name} round {round}");
            // MPA RX: a short stream, a bit flipped in odd rounds, in random segments.
            let rx_cfg = FramingConfig { markers: round % 4 != 3, crc: round % 4 != 2, mulpdu: 400 };
            let rx_off = 4 * rng.gen_range(0..4000);
            let mut framer = offload_driver::mpa::Framer::new(rx_cfg, rx_off).unwrap();
            let mut stream = Vec::new();
            for _ in 0..4 {
                let u: Vec<u8> = (0..rng.gen_range(1..=400)).map(|_| rng.gen()).collect();
                framer.frame(&u, &mut stream).unwrap();
            }
            if round % 2 == 1 {
                let bit = rng.gen_range(0..stream.len() * 8);
                stream[bit / 8] ^= 1 << (bit % 8);
            }
            let want = SoftwareOffload.mpa_deframe(&rx_cfg, rx_off, &stream).unwrap();
            regs.configure_mpa_rx(&rx_cfg, rx_off).unwrap();
            let segments = offload_hdl::testbench::random_segments(&mut rng, &stream, 100);
            let frames = regs.bus().stream_mpa_rx(&segments).unwrap();
            let good: Vec<Vec<u8>> = frames.iter().filter(|f| !f.1).map(|f| f.0.clone()).collect();
            assert_eq!(good, want.ulpdus, "{name} round {round}");
            let st = regs.mpa_rx_status().unwrap();
            let due = want.end.clone().err().filter(|e| !matches!(e, MpaError::Truncated { .. }));
            assert_eq!(st.error(rx_off), due, "{name} round {round}");
        }
        let l = regs.bus().model();
        l.check().unwrap_or_else(|e| panic!("{name}: {e}"));
        l.compared_cycles()
    }
    let total = run("top_w4", offload_hdl::top::hdl_model::<32, 4, 64, 96, 32, 4, 11, 64, 8, 128>().unwrap(), 4)
        + run("top_w8", offload_hdl::top::hdl_model::<64, 8, 96, 160, 64, 8, 10, 64, 8, 128>().unwrap(), 8);
    eprintln!("{total} cycles compared, every output equal");
    assert!(total > 25_000, "{total} cycles compared");
}

/// The board core (FrontPanel bridge in `#[hdl_gen]` with its FIFOs, and `OffloadTop`) in
/// rust-hdl's simulator and Verilated, in lockstep behind the host's FrontPanel transport:
/// register accesses, ULPDUs and a message through the transmit pipes, RFC 5044 Figures 5 and 6
/// and spoiled streams through the MPA RX pipes, MCTP frames with faults through the MCTP RX
/// pipes; every output compared every cycle, the results equal to the software's.
///
/// rust-hdl builds and settles the whole board core by deep recursion, which in the dev profile
/// needs more than a test thread's default 2 MiB of stack; the body runs on a thread of its own
/// with 64 MiB, so a plain `cargo test` passes without `RUST_MIN_STACK`.
#[test]
fn rust_hdl_and_verilated_board_core_agree_cycle_by_cycle() {
    on_a_big_stack(board_core_lockstep);
}

fn board_core_lockstep() {
    use offload_driver::ok::OkTransport;
    use offload_hdl::testbench::{BoardBench, Lockstep};
    use offload_sim::VerilatedModel;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7012);
    let a = offload_hdl::board::bridge::board_hdl_model().unwrap();
    let b = VerilatedModel::new(offload_sim::model_info("board_core_w4").unwrap());
    // The board core's outputs are FrontPanel words only, every one compared each clock: the
    // blocks' streams reach them through the FIFOs.
    let l = Lockstep::new(a, b).unwrap();
    let t = OkTransport::new(BoardBench::new(l)).unwrap();
    let mut hw = TopOffload::open(t, "ok-lockstep").unwrap();
    let mut sw = SoftwareOffload;
    for i in 0..4 {
        let cfg = FramingConfig { markers: i % 2 == 0, crc: i != 3, mulpdu: 1442 };
        let ulpdus: Vec<Vec<u8>> = (0..6).map(|_| (0..rng.gen_range(1..=600)).map(|_| rng.gen()).collect()).collect();
        let off = 4 * rng.gen_range(0..4000);
        assert_eq!(hw.mpa_frame(&cfg, off, &ulpdus).unwrap(), sw.mpa_frame(&cfg, off, &ulpdus).unwrap());
        let req = random_request(&mut rng);
        let mut msg: Vec<u8> = (0..rng.gen_range(1..=300)).map(|_| rng.gen()).collect();
        msg[0] |= 0x80;
        assert_eq!(hw.mctp_transmit(&req, &msg).unwrap(), sw.mctp_transmit(&req, &msg).unwrap());
    }
    // The receive paths: RFC 5044 Figures 5 and 6 (whole and spoiled), a random spoiled stream,
    // and MCTP frames with faults.
    for (offset, stream, _) in offload_hdl::testbench::rfc5044_figure_streams() {
        let cfg = FramingConfig::default();
        let mut bad = stream.clone();
        bad[51] ^= 0x80;
        for s in [stream, bad] {
            assert_eq!(hw.mpa_deframe(&cfg, offset, &s).unwrap(), sw.mpa_deframe(&cfg, offset, &s).unwrap());
        }
    }
    for round in [1, 3] {
        let (cfg, start, stream) = spoiled_stream(&mut rng, round, 8);
        assert_eq!(hw.mpa_deframe(&cfg, start, &stream).unwrap(), sw.mpa_deframe(&cfg, start, &stream).unwrap(), "round {round}");
    }
    let setup = offload_hdl::test_support::RxSetup::random(&mut rng);
    let mut frames = offload_hdl::test_support::random_rx_frames(&mut rng, &setup, 4, 300, 0.25);
    frames.retain(|f| !offload_hdl::test_support::rx_oversize(&setup, f));
    let req = setup.request();
    assert!(hw.mctp_receive(&req, &frames).unwrap() == sw.mctp_receive(&req, &frames).unwrap(), "{setup:?}");
    let l = hw.regs().bus().frontpanel().model();
    l.check().unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{} cycles compared, every output equal", l.compared_cycles());
    assert!(l.compared_cycles() > 15_000, "{} cycles", l.compared_cycles());
}

/// The register block alone (`regs_w4`) in rust-hdl's simulator and Verilated, in lockstep on
/// random values on every input every clock (bus requests, strobes, counter inputs, stream
/// taps, occasional resets): every output compared every cycle.
#[test]
fn rust_hdl_and_verilated_register_block_agree_cycle_by_cycle() {
    use offload_hdl::ports::Dir;
    use offload_hdl::testbench::{ClockedModel, Lockstep, PortId};
    use offload_sim::VerilatedModel;
    let a = offload_hdl::top::regs::hdl_model(4, 4).unwrap();
    let b = VerilatedModel::new(offload_sim::model_info("regs_w4").unwrap());
    let mut l = Lockstep::new(a, b).unwrap();
    let inputs: Vec<(PortId, String, usize)> = (0..l.port_count())
        .map(PortId)
        .filter_map(|p| {
            let (n, d, w) = l.port_info(p);
            (d == Dir::In).then(|| (p, n.to_string(), w))
        })
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x4e6);
    l.reset(2);
    for _ in 0..40_000 {
        for (p, name, w) in &inputs {
            let v: u64 = match name.as_str() {
                "reset" => rng.gen_ratio(1, 300) as u64,
                // Mostly mapped addresses.
                "reg_wr_addr" | "reg_rd_addr" => rng.gen_range(0..0xF0),
                _ => rng.gen::<u64>() & (u64::MAX >> (64 - w)),
            };
            l.set(*p, v);
        }
        l.eval();
        l.tick();
    }
    l.check().unwrap_or_else(|e| panic!("{e}"));
    assert!(l.compared_cycles() >= 40_000);
}
