//! `Offload::mctp_receive` through the MCTP RX block — the Verilated block (`VerilatedOffload`)
//! and the block inside the Verilated `OffloadTop` (`TopOffload`, frames on `mctp_rx_s`,
//! counters over the register bus), and the same top in the board core behind the FrontPanel
//! transport (`ok-sim`) — against `SoftwareOffload`: random traffic with lost,
//! duplicated, reordered, corrupted and truncated packets, raw and SMBus, MIC on and off. The
//! reports (messages, every problem with its frame and words, the stats) are equal; input that
//! meets the block's limits is refused with the limit named. Fails (does not skip) without
//! Verilator.

use offload_driver::mctp::rx_block::RxBlockError;
use offload_driver::mctp::{transmit, Binding, ReassemblyConfig, RxRequest, TxConfig, TxRequest};
use offload_driver::top_offload::TopOffload;
use offload_driver::{Offload, OffloadError, SoftwareOffload};
use offload_hdl::test_support::{random_rx_frames, rx_oversize, RxSetup};
use offload_sim::VerilatedOffload;
use rand::SeedableRng;

fn backends() -> Vec<Box<dyn Offload>> {
    let sim = VerilatedOffload::with_width(4).unwrap_or_else(|e| panic!("{e}"));
    let top = offload_sim::verilated_top("top_w8").unwrap_or_else(|e| panic!("{e}"));
    let board = offload_driver::ok::OkTransport::new(offload_sim::verilated_board().unwrap_or_else(|e| panic!("{e}"))).unwrap();
    vec![
        Box::new(sim),
        Box::new(TopOffload::open(top, "sim-top").unwrap()),
        Box::new(TopOffload::open(board, "ok-sim").unwrap()),
    ]
}

#[test]
fn random_traffic_gives_the_software_report() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5EC0_4D);
    let mut hw = backends();
    let (mut messages, mut problems) = (0, 0);
    for round in 0..24 {
        let setup = RxSetup::random(&mut rng);
        let mut frames = random_rx_frames(&mut rng, &setup, 12, 1200.min(setup.max_len.max(200)), 0.25);
        frames.retain(|f| !rx_oversize(&setup, f));
        let req = setup.request();
        let want = SoftwareOffload.mctp_receive(&req, &frames).unwrap();
        for b in hw.iter_mut() {
            let got = b.mctp_receive(&req, &frames).unwrap_or_else(|e| panic!("{} round {round} ({setup:?}): {e}", b.backend()));
            assert!(got == want, "{} round {round} ({setup:?}): report differs", b.backend());
        }
        messages += want.messages.len();
        problems += want.problems.len();
    }
    assert!(messages > 100 && problems > 30, "{messages} messages, {problems} problems: too little tested");
}

#[test]
fn the_blocks_limits_are_named() {
    let tx = |src: u8, len: usize| {
        let r = TxRequest { config: TxConfig::new(src, 9, 1, true), append_mic: false, smbus: None };
        transmit(&r, &vec![0x7E; len]).unwrap()
    };
    // The CLI's request: 32 contexts, 64 KiB messages; the block has one context, 7680 octets.
    let req = RxRequest { reassembly: ReassemblyConfig::default(), binding: Binding::Raw, verify_mic: false };
    let (a, b) = (tx(8, 300), tx(10, 300));
    let interleaved = vec![a[0].clone(), b[0].clone(), a[1].clone(), a[2].clone(), a[3].clone(), a[4].clone()];
    let mut big = TxConfig::new(8, 9, 1, true);
    big.mtu = 251;
    let long = transmit(&TxRequest { config: big, append_mic: false, smbus: None }, &vec![1; 8000]).unwrap();
    let mut oversize = tx(8, 100);
    oversize[0].extend([0; 300]);
    for b in backends().iter_mut() {
        // Within the limits the wider request changes nothing.
        let ok = b.mctp_receive(&req, &a).unwrap();
        assert_eq!(ok, SoftwareOffload.mctp_receive(&req, &a).unwrap(), "{}", b.backend());
        for (frames, frame, words) in [
            (&interleaved, 1, "one reassembly context"),
            (&long, 30, "7680-octet limit"),
            (&oversize, 0, "260-octet packet limit"),
        ] {
            match b.mctp_receive(&req, frames) {
                Err(OffloadError::MctpBlock { error: RxBlockError::Limit { frame: f, what }, .. }) => {
                    assert!(f == frame && what.contains(words), "{}: frame {f}: {what}", b.backend())
                }
                other => panic!("{}: expected the limit `{words}`, got {other:?}", b.backend()),
            }
        }
        let serial = RxRequest { binding: Binding::Serial, ..req };
        assert!(matches!(b.mctp_receive(&serial, &a), Err(OffloadError::Unsupported { .. })), "{}", b.backend());
    }
}
