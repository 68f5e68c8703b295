//! The MCTP endpoint stack with the offload device as its link: every message one endpoint
//! sends is packetized by the MCTP TX block's Verilog in Verilator (`VerilatedOffload`,
//! through `Offload::mctp_transmit`), carried by the serial binding over a Unix socket to a
//! software-only endpoint, and answered. Each hardware result is compared with the software
//! packetizer's. Fails (does not skip) without Verilator, like the other co-simulation tests.

use offload_driver::mctp::stack::control_endpoint::{
    ControlClient, ControlResponder, ResponderConfig,
};
use offload_driver::mctp::stack::nvme_mi::NvmeMiClient;
use offload_driver::mctp::stack::nvme_mi_responder::{NvmeMiResponder, SubsystemModel};
use offload_driver::mctp::stack::*;
use offload_driver::mctp::TxRequest;
use offload_driver::{crc::CrcKind, Offload, OffloadError, SoftwareOffload};
use offload_sim::VerilatedOffload;
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The Verilated backend, checked call by call against the software model.
struct Checked {
    hw: VerilatedOffload,
    calls: Arc<AtomicU64>,
    cycles: Arc<AtomicU64>,
}

impl Offload for Checked {
    fn backend(&self) -> &'static str {
        "sim"
    }
    fn crc(&mut self, kind: CrcKind, data: &[u8]) -> Result<u64, OffloadError> {
        self.hw.crc(kind, data)
    }
    fn mctp_transmit(&mut self, r: &TxRequest, m: &[u8]) -> Result<Vec<Vec<u8>>, OffloadError> {
        let hw = self.hw.mctp_transmit(r, m)?;
        assert_eq!(
            hw,
            SoftwareOffload.mctp_transmit(r, m)?,
            "hardware packets differ from the model"
        );
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.cycles
            .store(self.hw.cycles().unwrap_or(0), Ordering::Relaxed);
        Ok(hw)
    }
}

#[test]
fn endpoint_over_the_verilated_packetizer() {
    let hw = VerilatedOffload::new().unwrap_or_else(|e| panic!("{e}"));
    let (calls, cycles) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (x, y) = UnixStream::pair().unwrap();
    let a_parts = offload_link(
        Checked {
            hw,
            calls: calls.clone(),
            cycles: cycles.clone(),
        },
        serial_link(x.try_clone().unwrap(), x),
    );
    let mk = |parts: LinkParts, eid: u8, peer: u8| {
        let ep = Endpoint::new(StackConfig::default()).unwrap();
        let l = ep.add_link("l0", NET_ANY, parts).unwrap();
        ep.add_addr(l, eid).unwrap();
        ep.add_route(Route::to(NET_ANY, peer, l)).unwrap();
        (ep, l)
    };
    let (a, la) = mk(a_parts, 8, 0x1D);
    let (b, lb) = mk(serial_link(y.try_clone().unwrap(), y), 0x1D, 8);
    let _ctl = ControlResponder::new(ResponderConfig::default())
        .spawn(&b)
        .unwrap();
    let model = SubsystemModel {
        in_progress_first: true,
        ..Default::default()
    };
    let _mi = NvmeMiResponder::new(model).spawn(&b).unwrap();
    let srv = b.socket();
    srv.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, 0x7E)).unwrap();

    // Control: Get Endpoint ID through the hardware packetizer.
    assert_eq!(
        ControlClient::new(&a)
            .get_eid(&ControlClient::addr(0x1D, None))
            .unwrap()
            .0,
        0x1D
    );
    // NVMe-MI: the request (MIC inside) packetized in hardware, both responses received.
    let r = NvmeMiClient::new(&a).health_status_poll(0x1D).unwrap();
    assert_eq!((r.in_progress, r.response.status), (1, 0));
    // Messages of 1 to 3 packets at the baseline MTU and at 255-octet packets.
    let s = a.socket();
    for mtu in [68usize, 255] {
        a.configure(|t| t.set_link_mtu(la, mtu)).unwrap();
        b.configure(|t| t.set_link_mtu(lb, mtu)).unwrap();
        for len in [1usize, 63, 64, 65, 200, 700] {
            let msg: Vec<u8> = std::iter::once(0x7E)
                .chain((1..len).map(|i| (i * 13) as u8))
                .collect();
            s.send_to(&msg, &SockAddr::owner(NET_ANY, 0x1D, 0x7E))
                .unwrap();
            let (got, from) = srv.recv_from(Some(Duration::from_secs(10))).unwrap();
            assert_eq!(
                (got, from.eid, from.tag_owner()),
                (msg, 8, true),
                "mtu {mtu} len {len}"
            );
        }
    }
    assert_eq!(calls.load(Ordering::Relaxed), 2 + 12);
    assert!(
        cycles.load(Ordering::Relaxed) > 0,
        "the Verilated model ran"
    );
}
