//! FC frame codec across crates: golden frames, the FC CRC through the `Offload` seam on the
//! software model and on the hardware CRC engine (CRC-32 mode, Verilated), and property round
//! trips of frames and whole DATA chunk payloads.

use offload_driver::crc::CrcKind;
use offload_driver::fc::fcp::{command_frame, FcpCmnd};
use offload_driver::fc::{
    fc_crc, CrcCheck, Encapsulated, Eof, FCtl, FcFrame, FcHeader, OptionalHeaders, Oss, Prefix,
    Sof, MAX_DATA_FIELD,
};
use offload_driver::{Offload, SoftwareOffload};
use offload_sim::VerilatedOffload;
use proptest::prelude::*;

/// Two frames as Wireshark 4.0's `fc` dissector reads them from a link-type-225 capture,
/// `CRC: 0x0ea6e478 [correct]` and `CRC: 0x30fff15f [correct]`: an FCP_CMND READ(10) of 8
/// blocks at LBA 0 (OX_ID 1, SOFi3 … EOFn) and a GOOD FCP_RSP (SOFi3 … EOFt). The CRC check by
/// an independent implementation makes them golden vectors for the CRC and its byte order.
const GOLDEN_CMND: &str = "bcb55656 06010200 00010100 08290000 00000000 0001ffff 00000000 \
     00000000 00000000 00000002 28000000 00000000 08000000 00000000 00001000 0ea6e478 bc95d5d5";
const GOLDEN_RSP: &str = "bcb55656 07010100 00010200 08980000 02000000 00010100 00000000 \
     00000000 00000000 00000000 00000000 00000000 00000000 30fff15f bc957575";

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn sim() -> VerilatedOffload {
    VerilatedOffload::new()
        .expect("the Verilated CRC engine (Verilator is installed by scripts/install-deps)")
}

#[test]
fn crc_check_value_through_every_backend() {
    let mut backends: Vec<Box<dyn Offload>> = vec![Box::new(SoftwareOffload), Box::new(sim())];
    for b in backends.iter_mut() {
        assert_eq!(
            fc_crc(b.as_mut(), b"123456789").unwrap(),
            0xCBF4_3926,
            "{}",
            b.backend()
        );
        assert_eq!(b.crc(CrcKind::Crc32, b"123456789").unwrap(), 0xCBF4_3926);
    }
}

#[test]
fn golden_frames_decode_and_encode_back() {
    let cmnd = hex(GOLDEN_CMND);
    assert_eq!(cmnd.len(), 68);
    let f = FcFrame::decode_delimited(&cmnd).unwrap();
    assert_eq!((f.sof, f.eof), (Sof::I3, Eof::N));
    assert_eq!(f.header.r_ctl, 0x06);
    assert_eq!((f.header.d_id, f.header.s_id), (0x010200, 0x010100));
    assert_eq!(f.header.fc_type, 0x08);
    assert_eq!(
        f.header.f_ctl,
        FCtl::FIRST_SEQUENCE | FCtl::END_SEQUENCE | FCtl::SEQUENCE_INITIATIVE
    );
    assert_eq!(
        (f.header.ox_id, f.header.rx_id, f.header.seq_cnt),
        (0x0001, 0xFFFF, 0)
    );
    assert_eq!(FcpCmnd::decode(&f.payload).unwrap(), FcpCmnd::read10(0, 8));
    assert_eq!(
        command_frame(0x010100, 0x010200, 1, &FcpCmnd::read10(0, 8)),
        f
    );
    assert_eq!(f.encode_delimited().unwrap(), cmnd);
    assert_eq!(
        f.encode_delimited_with(&mut sim()).unwrap(),
        cmnd,
        "hardware CRC engine"
    );

    let rsp = hex(GOLDEN_RSP);
    let r = FcFrame::decode_delimited_with(&rsp, &mut sim()).unwrap();
    assert_eq!((r.sof, r.eof, r.header.r_ctl), (Sof::I3, Eof::T, 0x07));
    assert!(r
        .header
        .f_ctl
        .contains(FCtl::EXCHANGE_CONTEXT | FCtl::LAST_SEQUENCE | FCtl::END_SEQUENCE));
    assert_eq!(r.encode_delimited().unwrap(), rsp);

    // One flipped bit anywhere between the delimiters is caught by either backend.
    for i in [4, 20, 40, 63] {
        let mut bad = cmnd.clone();
        bad[i] ^= 0x01;
        assert!(FcFrame::decode_delimited(&bad).is_err(), "octet {i}");
        assert!(
            FcFrame::decode_delimited_with(&bad, &mut sim()).is_err(),
            "octet {i}, sim"
        );
    }
}

#[test]
fn every_sof_and_eof_code_in_a_chunk() {
    for sof in Sof::ALL {
        for eof in Eof::ALL {
            let frame = FcFrame::new(
                sof,
                FcHeader {
                    ox_id: sof.code() as u16,
                    ..Default::default()
                },
                vec![eof.code(); 5],
                eof,
            );
            let m = Encapsulated::Frame {
                prefix: Prefix {
                    timestamp_ms: 77,
                    sof: Some(sof),
                    eof: Some(eof),
                    ..Default::default()
                },
                frame,
            };
            let b = m.encode().unwrap();
            assert_eq!((b[6], b[7]), (sof.code(), eof.code()));
            assert_eq!(Encapsulated::decode(&b).unwrap(), m);
        }
    }
}

fn arb_frame() -> impl Strategy<Value = FcFrame> {
    let header = (any::<[u8; 24]>(), 0u32..(1 << 24)).prop_map(|(b, f_ctl)| {
        let mut h = FcHeader::decode(&b).unwrap();
        h.f_ctl = FCtl::from_bits(f_ctl).unwrap().with_fill_bytes(0);
        h.df_ctl &= 0x8C; // the layout bits come from the optional headers
        h
    });
    let optional =
        (any::<bool>(), any::<bool>(), 0usize..4).prop_map(|(n, a, d)| OptionalHeaders {
            network: n.then_some([0x11; 16]),
            association: a.then_some([0x22; 32]),
            device: [
                None,
                Some(vec![0x33; 16]),
                Some(vec![0x44; 32]),
                Some(vec![0x55; 64]),
            ][d]
                .clone(),
        });
    (
        prop::sample::select(Sof::ALL.to_vec()),
        header,
        optional,
        prop::collection::vec(any::<u8>(), 0..=MAX_DATA_FIELD - 144),
        prop::sample::select(Eof::ALL.to_vec()),
    )
        .prop_map(|(sof, header, optional, payload, eof)| FcFrame {
            sof,
            header,
            optional,
            payload,
            eof,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn frames_round_trip(f in arb_frame()) {
        let d = f.encode_delimited().unwrap();
        prop_assert_eq!(d.len() % 4, 0);
        prop_assert_eq!(FcFrame::decode_delimited(&d).unwrap(), f.clone());
        let body = f.encode_body().unwrap();
        prop_assert_eq!(&d[4..d.len() - 4], &body[..]);
        prop_assert_eq!(FcFrame::decode_body_with(f.sof, f.eof, &body, CrcCheck::Verify, &mut SoftwareOffload).unwrap(), f);
    }

    #[test]
    fn chunks_round_trip(f in arb_frame(), ts in any::<u32>(), oss in 0u8..5, n in any::<bool>(), c in any::<bool>(), t in 0u16..1024) {
        let prefix = Prefix { timestamp_ms: ts, oss: Oss::from_code(oss).unwrap(), crc_invalid: n, credit_reset: c, tcredit: t, sof: Some(f.sof), eof: Some(f.eof) };
        let m = Encapsulated::Frame { prefix, frame: f };
        let b = m.encode().unwrap();
        prop_assert_eq!(Encapsulated::decode(&b).unwrap(), m);
    }
}

/// The hardware CRC engine agrees with the software model on frames of every size class.
#[test]
fn sim_crc_equals_sw_on_random_frames() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let mut hw = sim();
    for len in [
        0usize, 1, 2, 3, 4, 5, 63, 64, 65, 511, 1024, 2047, 2111, 2112,
    ] {
        let f = FcFrame::new(
            Sof::N3,
            FcHeader {
                parameter: rng.gen(),
                ..Default::default()
            },
            (0..len).map(|_| rng.gen()).collect(),
            Eof::N,
        );
        assert_eq!(
            f.encode_body_with(&mut hw).unwrap(),
            f.encode_body().unwrap(),
            "len {len}"
        );
    }
}
