//! Endpoints talking over real links: the serial binding over Unix and TCP sockets, the SMBus
//! binding on a simulated bus (bus owner discovery), loopback, the offload device link,
//! forwarding through a bridge; the control protocol and NVMe-MI end to end.

use offload_driver::mctp::stack::control::{cc, cmd, Assignment, Request, Response, VERSION_1_3_1};
use offload_driver::mctp::stack::control_endpoint::*;
use offload_driver::mctp::stack::nvme_mi::*;
use offload_driver::mctp::stack::nvme_mi_responder::*;
use offload_driver::mctp::stack::*;
use offload_driver::offload::{Offload, OffloadError};
use offload_driver::{crc::CrcKind, SoftwareOffload};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const T: Option<Duration> = Some(Duration::from_secs(5));
const VENDOR: u8 = 0x7E;

/// An endpoint with one link, one EID and a route for every other EID through it.
fn endpoint(parts: LinkParts, eid: Option<u8>) -> (Endpoint, LinkId) {
    let ep = Endpoint::new(StackConfig::default()).unwrap();
    let l = ep.add_link("l0", NET_ANY, parts).unwrap();
    if let Some(e) = eid {
        ep.add_addr(l, e).unwrap();
    }
    ep.add_route(Route {
        first: 8,
        last: 254,
        metric: 100,
        ..Route::to(NET_ANY, 8, l)
    })
    .unwrap();
    (ep, l)
}

fn unix_serial() -> (LinkParts, LinkParts) {
    let (a, b) = UnixStream::pair().unwrap();
    (
        serial_link(a.try_clone().unwrap(), a),
        serial_link(b.try_clone().unwrap(), b),
    )
}

/// Echo server: answers every request of `typ` with its own bytes.
fn echo(ep: &Endpoint, typ: u8) -> ServiceHandle {
    let s = ep.socket();
    s.bind(&SockAddr::owner(NET_ANY, ADDR_ANY, typ)).unwrap();
    spawn_service("echo", s, |s, m, from| {
        s.send_to(&m, &from.reply()).unwrap();
    })
    .unwrap()
}

fn exchange(ep: &Endpoint, peer: u8, msg: &[u8]) -> (Vec<u8>, SockAddr) {
    let s = ep.socket();
    s.send_to(msg, &SockAddr::owner(NET_ANY, peer, msg[0] & 0x7F))
        .unwrap();
    s.recv_from(T).unwrap()
}

#[test]
fn serial_over_unix_socket_up_to_64k_messages() {
    let (la, lb) = unix_serial();
    let (a, link_a) = endpoint(la, Some(8));
    let (b, link_b) = endpoint(lb, Some(9));
    let _e = echo(&b, VENDOR);
    for len in [1usize, 64, 65, 250, 4096, 65536] {
        let msg: Vec<u8> = std::iter::once(VENDOR)
            .chain((1..len).map(|i| (i * 7) as u8))
            .collect();
        let (got, from) = exchange(&a, 9, &msg);
        assert_eq!(got, msg, "len {len}");
        assert_eq!((from.eid, from.tag & TAG_OWNER), (9, 0));
        assert_eq!(
            from.ext,
            Some(ExtAddr {
                link: link_a,
                hwaddr: None
            })
        );
    }
    // A larger MTU on both sides: fewer, bigger packets, same message.
    a.configure(|t| t.set_link_mtu(link_a, 255)).unwrap();
    b.configure(|t| t.set_link_mtu(link_b, 255)).unwrap();
    let msg = vec![VENDOR; 1000];
    assert_eq!(exchange(&a, 9, &msg).0, msg);
    let s = a.socket();
    let e = s
        .send_to(&vec![VENDOR; 65537], &SockAddr::owner(NET_ANY, 9, VENDOR))
        .unwrap_err();
    assert_eq!(e.errno(), 90);
    // No response comes for an unbound type: EAGAIN on the receive timeout.
    s.send_to(&[0x7F, 1], &SockAddr::owner(NET_ANY, 9, 0x7F))
        .unwrap();
    assert_eq!(
        s.recv_from(Some(Duration::from_millis(50)))
            .unwrap_err()
            .errno(),
        11
    );
    // A socket that can never receive anything says ENOTCONN instead of blocking.
    assert_eq!(a.socket().recv_from(None).unwrap_err().errno(), 107);
    assert_eq!(b.stats().link_errors, 0);
}

#[test]
fn serial_over_tcp() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let c = std::net::TcpStream::connect(addr).unwrap();
    let (s, _) = listener.accept().unwrap();
    c.set_nodelay(true).unwrap();
    s.set_nodelay(true).unwrap();
    let (a, _) = endpoint(serial_link(c.try_clone().unwrap(), c), Some(8));
    let (b, _) = endpoint(serial_link(s.try_clone().unwrap(), s), Some(9));
    let _e = echo(&b, VENDOR);
    let msg: Vec<u8> = (0..700)
        .map(|i| if i == 0 { VENDOR } else { (i % 256) as u8 })
        .collect();
    assert_eq!(exchange(&a, 9, &msg).0, msg);
}

#[test]
fn loopback_link_returns_packets_to_the_same_stack() {
    let (ep, lo) = endpoint(loopback(), Some(8));
    let srv = ep.socket();
    srv.bind(&SockAddr::owner(NET_ANY, 8, VENDOR)).unwrap();
    let cli = ep.socket();
    // Through the link (extended addressing), not the local shortcut.
    let to = SockAddr {
        ext: Some(ExtAddr {
            link: lo,
            hwaddr: None,
        }),
        ..SockAddr::owner(NET_ANY, 8, VENDOR)
    };
    let msg = vec![VENDOR; 300];
    cli.send_to(&msg, &to).unwrap();
    let (m, from) = srv.recv_from(T).unwrap();
    assert_eq!((m, from.ext.map(|x| x.link)), (msg, Some(lo)));
    assert!(ep.stats().rx_packets >= 5);
}

#[test]
fn control_protocol_end_to_end() {
    let (la, lb) = unix_serial();
    let (a, _) = endpoint(la, Some(8));
    let (b, _) = endpoint(lb, Some(9));
    let mut cfg = ResponderConfig {
        uuid: *b"offload-mctp-dev",
        message_types: vec![VENDOR, 0, 4],
        ..Default::default()
    };
    cfg.versions.insert(4, vec![[0xF1, 0xF2, 0xF0, 0x00]]);
    let _r = ControlResponder::new(cfg).spawn(&b).unwrap();
    let c = ControlClient::new(&a);
    let to = ControlClient::addr(9, None);
    assert_eq!(c.get_eid(&to).unwrap(), (9, 0, 0));
    assert_eq!(
        c.call(&to, &Request::GetUuid).unwrap(),
        Response::GetUuid {
            uuid: *b"offload-mctp-dev"
        }
    );
    assert_eq!(
        c.call(&to, &Request::GetVersionSupport { msg_type: 0xFF })
            .unwrap(),
        Response::GetVersionSupport {
            versions: vec![VERSION_1_3_1]
        }
    );
    assert_eq!(
        c.call(&to, &Request::GetVersionSupport { msg_type: 4 })
            .unwrap(),
        Response::GetVersionSupport {
            versions: vec![[0xF1, 0xF2, 0xF0, 0x00]]
        }
    );
    assert_eq!(
        c.call(&to, &Request::GetVersionSupport { msg_type: 0x55 })
            .unwrap_err(),
        ControlClientError::Completion {
            command: cmd::GET_VERSION_SUPPORT,
            cc: cc::MESSAGE_TYPE_NOT_SUPPORTED
        }
    );
    assert_eq!(
        c.call(&to, &Request::GetMessageTypeSupport).unwrap(),
        Response::GetMessageTypeSupport {
            types: vec![4, VENDOR]
        }
    );
    // Resolve: B routes everything over its serial link, which has no physical address.
    assert_eq!(
        c.call(&to, &Request::ResolveEid { target: 8 }).unwrap(),
        Response::ResolveEid {
            bridge: 8,
            physical: vec![]
        }
    );
    assert_eq!(
        c.request(
            &to,
            &Request::Unsupported {
                command: 0x0A,
                data: vec![]
            }
        )
        .unwrap()
        .0,
        Response::Failed {
            command: 0x0A,
            cc: cc::ERROR_UNSUPPORTED_CMD
        }
    );
    // A request with a wrong length is answered ERROR_INVALID_LENGTH.
    let s = a.socket();
    s.send_to(
        &[0x00, 0x85, cmd::GET_ENDPOINT_ID, 0x00],
        &SockAddr::owner(NET_ANY, 9, 0),
    )
    .unwrap();
    let (m, _) = s.recv_from(T).unwrap();
    assert_eq!(
        m,
        [0x00, 0x05, cmd::GET_ENDPOINT_ID, cc::ERROR_INVALID_LENGTH]
    );
    // Set Endpoint ID over the point-to-point link: B takes EID 0x33 and answers from it.
    let (assignment, eid) = c.set_eid(&to, 0x33).unwrap();
    assert_eq!((assignment, eid), (Assignment::Accepted, 0x33));
    assert_eq!(c.get_eid(&ControlClient::addr(0x33, None)).unwrap().0, 0x33);
    assert!(c.set_eid(&ControlClient::addr(0x33, None), 0xFF).is_err());
}

#[test]
fn bus_owner_assigns_eids_on_an_smbus_segment() {
    let bus = SmbusBus::new();
    let owner = Endpoint::new(StackConfig::default()).unwrap();
    let link = owner
        .add_link("smbus0", NET_ANY, bus.attach(0x10).unwrap())
        .unwrap();
    owner.add_addr(link, 8).unwrap();
    let mut devices = Vec::new();
    for (hw, eid) in [(0x1D, None), (0x1E, None), (0x30, Some(0x50))] {
        let ep = Endpoint::new(StackConfig::default()).unwrap();
        let l = ep
            .add_link("smbus0", NET_ANY, bus.attach(hw).unwrap())
            .unwrap();
        if let Some(e) = eid {
            ep.add_addr(l, e).unwrap();
        }
        let r = ControlResponder::new(ResponderConfig::default())
            .spawn(&ep)
            .unwrap();
        devices.push((ep, l, r));
    }
    let client = ControlClient::new(&owner);
    let mut bo = BusOwner::new(0x20..=0x2F).unwrap();
    let candidates: Vec<Option<u8>> = (0x08..=0x77).filter(|&a| a != 0x10).map(Some).collect();
    let found = bo.discover(&owner, &client, link, &candidates).unwrap();
    let got: Vec<(Option<u8>, u8, bool)> =
        found.iter().map(|d| (d.hwaddr, d.eid, d.kept)).collect();
    assert_eq!(
        got,
        [
            (Some(0x1D), 0x20, false),
            (Some(0x1E), 0x21, false),
            (Some(0x30), 0x50, true)
        ]
    );
    // The devices hold their EIDs, and the owner reaches them by EID through the new routes.
    for ((ep, l, _), want) in devices.iter().zip([0x20, 0x21, 0x50]) {
        assert_eq!(ep.link(*l).unwrap().addrs, [want]);
        assert_eq!(
            client.get_eid(&ControlClient::addr(want, None)).unwrap().0,
            want
        );
    }
    // A second discovery keeps every assignment.
    let again = bo.discover(&owner, &client, link, &candidates).unwrap();
    assert!(again.iter().all(|d| d.kept), "{again:?}");
    // Resolve Endpoint ID on a device: the owner's SMBus address, learnt from its frames.
    let dev = ControlClient::new(&devices[0].0);
    let r = dev.call(
        &ControlClient::addr(0x21, None),
        &Request::ResolveEid { target: 8 },
    );
    assert!(r.is_err(), "device 0x20 has no route to 0x21: {r:?}");
    let r = ControlClient::new(&owner).call(
        &ControlClient::addr(0x20, None),
        &Request::ResolveEid { target: 8 },
    );
    assert_eq!(
        r.unwrap(),
        Response::ResolveEid {
            bridge: 8,
            physical: vec![0x10]
        }
    );
    // Sending to an address nobody holds is NACKed: EHOSTUNREACH.
    let s = owner.socket();
    let to = SockAddr {
        ext: Some(ExtAddr {
            link,
            hwaddr: Some(0x55),
        }),
        ..SockAddr::owner(NET_ANY, 0, 0)
    };
    assert_eq!(s.send_to(&[0, 0x80, 2], &to).unwrap_err().errno(), 113);
    assert!(bus.frames() > 0);
}

#[test]
fn nvme_mi_over_smbus_with_in_progress_responses() {
    let bus = SmbusBus::new();
    let mc = Endpoint::new(StackConfig::default()).unwrap();
    let l = mc
        .add_link("smbus0", NET_ANY, bus.attach(0x10).unwrap())
        .unwrap();
    mc.add_addr(l, 8).unwrap();
    mc.add_route(Route {
        hwaddr: Some(0x1D),
        ..Route::to(NET_ANY, 0x1D, l)
    })
    .unwrap();
    let me = Endpoint::new(StackConfig::default()).unwrap();
    let l2 = me
        .add_link("smbus0", NET_ANY, bus.attach(0x1D).unwrap())
        .unwrap();
    me.add_addr(l2, 0x1D).unwrap();
    me.add_route(Route {
        hwaddr: Some(0x10),
        ..Route::to(NET_ANY, 8, l2)
    })
    .unwrap();
    let model = SubsystemModel {
        in_progress_first: true,
        ports: 2,
        ..Default::default()
    };
    let _r = NvmeMiResponder::new(model).spawn(&me).unwrap();
    let c = NvmeMiClient::new(&mc);

    let r = c.health_status_poll(0x1D).unwrap();
    assert_eq!(
        r.in_progress, 1,
        "More Processing Required first, on the same tag"
    );
    assert_eq!(r.response.status, status::SUCCESS);
    assert_eq!(r.response.data, [0x30, 0xFF, 37, 3, 0, 0, 0, 0]);

    let r = c
        .read_data_structure(0x1D, data_structure::SUBSYSTEM_INFORMATION, 0, 0)
        .unwrap();
    assert_eq!((r.in_progress, r.response.response_data_length()), (0, 32));
    assert_eq!(&r.response.data[..3], [1, 1, 2]); // NUMP 0's based, NVMe-MI 1.2
    let r = c
        .read_data_structure(0x1D, data_structure::PORT_INFORMATION, 1, 0)
        .unwrap();
    assert_eq!((r.response.data[0], r.response.data[2]), (2, 64));
    let r = c
        .read_data_structure(0x1D, data_structure::PORT_INFORMATION, 2, 0)
        .unwrap();
    assert_eq!(r.response.status, status::INVALID_PARAMETER);
    let r = c
        .configuration_get(0x1D, config_id::MCTP_TRANSMISSION_UNIT, 0)
        .unwrap();
    assert_eq!(r.response.nmresp, [64, 0, 0]);
    let r = c
        .configuration_get(0x1D, config_id::SMBUS_FREQUENCY, 0)
        .unwrap();
    assert_eq!(r.response.nmresp, [1, 0, 0]);
    let r = c
        .command(
            0x1D,
            &MiRequest {
                opcode: 0x55,
                dword0: 0,
                dword1: 0,
                data: vec![],
            },
        )
        .unwrap();
    assert_eq!(r.response.status, status::INVALID_OPCODE);

    // A request whose MIC is wrong gets no answer: the requester times out.
    let s = mc.socket();
    let mut bad = MiRequest {
        opcode: opcode::SUBSYSTEM_HEALTH_STATUS_POLL,
        dword0: 0,
        dword1: 0,
        data: vec![],
    }
    .encode()
    .unwrap();
    let n = bad.len();
    bad[n - 1] ^= 1;
    s.send_to(&bad, &SockAddr::owner(NET_ANY, 0x1D, 4)).unwrap();
    assert_eq!(
        s.recv_from(Some(Duration::from_millis(200)))
            .unwrap_err()
            .errno(),
        11
    );

    // A response whose MIC is wrong is rejected by the requester.
    let mut resp = MiResponse::error(0).encode(false).unwrap();
    resp[4] ^= 0x10;
    assert!(matches!(
        MiResponse::decode(&resp),
        Err(NvmeMiClientError::Message(_))
    ));
}

/// Counts the messages the "hardware" packetized.
struct Counting(SoftwareOffload, Arc<AtomicUsize>);

impl Offload for Counting {
    fn backend(&self) -> &'static str {
        "counting"
    }
    fn crc(&mut self, kind: CrcKind, data: &[u8]) -> Result<u64, OffloadError> {
        self.0.crc(kind, data)
    }
    fn mctp_transmit(
        &mut self,
        r: &offload_driver::mctp::TxRequest,
        m: &[u8],
    ) -> Result<Vec<Vec<u8>>, OffloadError> {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.mctp_transmit(r, m)
    }
}

/// A backend without an MCTP packetizer.
struct NoMctp;

impl Offload for NoMctp {
    fn backend(&self) -> &'static str {
        "none"
    }
    fn crc(&mut self, kind: CrcKind, data: &[u8]) -> Result<u64, OffloadError> {
        Ok(kind.checksum(data))
    }
}

#[test]
fn offload_device_link_packetizes_in_the_backend() {
    let (la, lb) = unix_serial();
    let n = Arc::new(AtomicUsize::new(0));
    let (a, _) = endpoint(
        offload_link(Counting(SoftwareOffload, n.clone()), la),
        Some(8),
    );
    let (b, _) = endpoint(lb, Some(9));
    assert_eq!(a.link(LinkId(1)).unwrap().kind, "offload");
    let _e = echo(&b, VENDOR);
    let msg: Vec<u8> = std::iter::once(VENDOR).chain(0..=255).collect();
    assert_eq!(exchange(&a, 9, &msg).0, msg);
    assert_eq!(n.load(Ordering::Relaxed), 1);
    // A backend that cannot packetize refuses instead of falling back to software.
    let (lc, _ld) = unix_serial();
    let (c, _) = endpoint(offload_link(NoMctp, lc), Some(8));
    let e = c
        .socket()
        .send_to(&[VENDOR], &SockAddr::owner(NET_ANY, 9, VENDOR))
        .unwrap_err();
    assert_eq!(e.errno(), 5);
    assert!(
        e.to_string().contains("does not offload MCTP packetizing"),
        "{e}"
    );
}

#[test]
fn a_bridge_forwards_between_its_links() {
    // A (8) ── serial ── bridge (20) ── serial ── C (30)
    let (a_l, b_l1) = unix_serial();
    let (b_l2, c_l) = unix_serial();
    let (a, _) = endpoint(a_l, Some(8));
    let (c, _) = endpoint(c_l, Some(30));
    let bridge = Endpoint::new(StackConfig::default()).unwrap();
    let l1 = bridge.add_link("left", NET_ANY, b_l1).unwrap();
    let l2 = bridge.add_link("right", NET_ANY, b_l2).unwrap();
    bridge.add_addr(l1, 20).unwrap();
    bridge.add_route(Route::to(NET_ANY, 8, l1)).unwrap();
    bridge
        .add_route(Route {
            mtu: Some(100),
            ..Route::to(NET_ANY, 30, l2)
        })
        .unwrap();
    let _e = echo(&c, VENDOR);
    let msg = vec![VENDOR; 500];
    // Forwarding off: nothing gets through.
    let s = a.socket();
    s.send_to(&msg, &SockAddr::owner(NET_ANY, 30, VENDOR))
        .unwrap();
    assert_eq!(
        s.recv_from(Some(Duration::from_millis(100)))
            .unwrap_err()
            .errno(),
        11
    );
    bridge
        .configure(|t| t.set_forwarding(DEFAULT_NET, true))
        .unwrap();
    assert_eq!(exchange(&a, 30, &msg).0, msg);
    let st = bridge.stats();
    assert_eq!(st.forwarded, 2 * 500usize.div_ceil(64) as u64);
    assert_eq!(
        bridge.memory_usage(),
        (0, 0, 0),
        "forwarded packets are not reassembled"
    );
    // Packets larger than the route MTU (100) are dropped at the bridge.
    a.configure(|t| t.set_link_mtu(LinkId(1), 200)).unwrap();
    s.send_to(&msg, &SockAddr::owner(NET_ANY, 30, VENDOR))
        .unwrap();
    assert_eq!(
        s.recv_from(Some(Duration::from_millis(100)))
            .unwrap_err()
            .errno(),
        11
    );
    assert!(bridge.stats().forward_too_big >= 3);
}

#[test]
fn set_endpoint_id_operations_and_datagrams() {
    use offload_driver::mctp::stack::control::SetEidOp;
    let (la, lb) = unix_serial();
    let (a, _) = endpoint(la, Some(8));
    let (b, _) = endpoint(lb, Some(9));
    let cfg = ResponderConfig {
        accept_set_eid: false,
        eid_type: 2,
        ..Default::default()
    };
    let _r = ControlResponder::new(cfg).spawn(&b).unwrap();
    let c = ControlClient::new(&a);
    let to = ControlClient::addr(9, None);
    // A static EID endpoint rejects the assignment and reports the EID it keeps.
    assert_eq!(c.set_eid(&to, 0x40).unwrap(), (Assignment::Rejected, 9));
    assert_eq!(c.get_eid(&to).unwrap(), (9, 0, 2));
    let call = |op| c.call(&to, &Request::SetEid { op, eid: 0x40 });
    assert_eq!(
        call(SetEidOp::Reset).unwrap_err(),
        ControlClientError::Completion {
            command: cmd::SET_ENDPOINT_ID,
            cc: cc::ERROR_INVALID_DATA
        }
    );
    assert_eq!(
        call(SetEidOp::SetDiscovered).unwrap(),
        Response::SetEid {
            assignment: Assignment::Accepted,
            pool_status: 0,
            eid: 9,
            pool_size: 0
        }
    );
    // Null, reserved and broadcast EIDs are invalid data.
    for bad in [0u8, 5, 0xFF] {
        let r = c.call(
            &to,
            &Request::SetEid {
                op: SetEidOp::Force,
                eid: bad,
            },
        );
        assert_eq!(
            r.unwrap_err(),
            ControlClientError::Completion {
                command: cmd::SET_ENDPOINT_ID,
                cc: cc::ERROR_INVALID_DATA
            },
            "{bad}"
        );
    }
    // A datagram (D bit) request gets no response.
    let s = a.socket();
    s.send_to(
        &[0x00, 0xC0, cmd::GET_ENDPOINT_ID],
        &SockAddr::owner(NET_ANY, 9, 0),
    )
    .unwrap();
    assert_eq!(
        s.recv_from(Some(Duration::from_millis(150)))
            .unwrap_err()
            .errno(),
        11
    );
}

/// NVMe Admin commands over NVMe-MI between two stacks on a serial link at the baseline MTU:
/// 4 KiB Identify data in 65 packets each way, log pages in windows, features, MI errors as
/// typed errors; a health value set on the running responder shows in the next answers.
#[test]
fn nvme_mi_admin_commands_over_serial() {
    use offload_driver::nvme::identify::cns;
    use offload_driver::nvme::log_page::lid;
    use offload_driver::nvme::subsystem::{Namespace, Subsystem};
    use offload_driver::nvme::NSID_ALL;

    let (pa, pb) = unix_serial();
    let (mc, _) = endpoint(pa, Some(8));
    let (me, _) = endpoint(pb, Some(9));
    let responder = NvmeMiResponder::new(SubsystemModel {
        nvm: Subsystem::new(2, vec![Namespace::with_size(1, 1 << 30, 4096).unwrap()]),
        ..Default::default()
    });
    let nvm = responder.subsystem();
    let _r = responder.spawn(&me).unwrap();
    let c = NvmeMiClient::new(&mc);

    let id = c.identify(9, 1, cns::CONTROLLER, 0, 0).unwrap();
    assert_eq!(id.len(), 4096);
    assert_eq!(&id[24..45], b"offload NVMe-MI model");
    assert_eq!(&id[78..80], &[1, 0]);
    let ns = c.identify(9, 0, cns::NAMESPACE, 0, 1).unwrap();
    assert_eq!(u64::from_le_bytes(ns[..8].try_into().unwrap()), 1 << 18);
    let ctrls = c.identify(9, 0, cns::CONTROLLER_LIST, 0, 0).unwrap();
    assert_eq!(&ctrls[..6], &[2, 0, 0, 0, 1, 0]);

    nvm.lock().unwrap().update_health(|h| h.temperature_c = 61);
    let smart = c.get_log_page(9, 0, lid::SMART_HEALTH, NSID_ALL, 512).unwrap();
    assert_eq!(u16::from_le_bytes([smart[1], smart[2]]), 334);
    let shs = c.health_status_poll(9).unwrap().response;
    assert_eq!(shs.data[2], 61);
    // A wrong NSID fails, and is the newest of the error log, read in two 4 KiB windows
    // (LPO 0 and 4096); past the 64-entry (4 KiB) page the data is zero.
    nvm.lock().unwrap().error_log_entries = 63;
    assert!(c.identify(9, 0, cns::NAMESPACE, 0, 7).is_err());
    let err = c.get_log_page(9, 0, lid::ERROR_INFORMATION, 0, 8192).unwrap();
    assert_eq!(err.len(), 8192);
    assert_eq!((&err[..8], &err[24..28]), (&1u64.to_le_bytes()[..], &7u32.to_le_bytes()[..]));
    assert!(err[4096..].iter().all(|&b| b == 0));

    assert_eq!(c.get_features(9, 0, 0x04, 0, 0).unwrap(), 343);
    c.set_features(9, 0, 0x04, 330).unwrap();
    assert_eq!(c.get_features(9, 1, 0x04, 0, 0).unwrap(), 330);
    let smart = c.get_log_page(9, 0, lid::SMART_HEALTH, NSID_ALL, 512).unwrap();
    assert_eq!(smart[0], 2, "61 °C is over the new 57 °C threshold");

    // Wrong controller: the MI status; wrong namespace: the NVMe status.
    match c.identify(9, 5, cns::CONTROLLER, 0, 0) {
        Err(NvmeMiClientError::MiStatus { status, nmresp }) => {
            assert_eq!((status, nmresp), (status::INVALID_PARAMETER, [0, 6, 0]))
        }
        other => panic!("{other:?}"),
    }
    match c.identify(9, 0, cns::NAMESPACE, 0, 2) {
        Err(NvmeMiClientError::Nvme(s)) => assert_eq!(s.field(), 0x400B),
        other => panic!("{other:?}"),
    }
    let e = c.identify(9, 0, cns::NAMESPACE, 0, 2).unwrap_err().to_string();
    assert_eq!(e, "NVMe status: Invalid Namespace or Format(0x400b)");
}
