//! The socket rules of the openbmc in-kernel MCTP design, checked on the sans-IO core packet by
//! packet (no threads, time passed in): bind/connect/send_to/recv_from, tag allocation and
//! release, broadcast, errno variants, routing and forwarding.

use offload_driver::mctp::header::Header;
use offload_driver::mctp::packetizer::packetize;
use offload_driver::mctp::stack::*;
use std::sync::{Arc, Condvar};
use std::time::Duration;

const NET: NetId = DEFAULT_NET;
const ME: u8 = 8;
const PEER: u8 = 9;
const T0: Duration = Duration::ZERO;
const PLDM: u8 = 1;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// A core with one link (EID 8) and a route to 9..=0x7F through it.
fn core() -> (Core, LinkId) {
    let mut c = Core::new(StackConfig::default()).unwrap();
    let l = c
        .topology_mut()
        .add_link("l0", "loopback", NET, 68, 255, None)
        .unwrap();
    c.topology_mut().add_addr(l, ME).unwrap();
    c.topology_mut()
        .add_route(Route {
            first: PEER,
            last: 0x7F,
            ..Route::to(NET, PEER, l)
        })
        .unwrap();
    (c, l)
}

fn sock(c: &mut Core) -> SocketId {
    c.open(Arc::new(Condvar::new()))
}

/// The single message an egress list holds, with its header fields.
fn one_msg(e: Vec<Egress>) -> (u8, u8, u8, bool, Vec<u8>) {
    assert_eq!(e.len(), 1, "{e:?}");
    match e.into_iter().next().unwrap() {
        Egress::Message {
            config, message, ..
        } => (
            config.src,
            config.dst,
            config.tag,
            config.tag_owner,
            message,
        ),
        other => panic!("{other:?}"),
    }
}

/// Feeds a whole message from `src` to `dst` into the core as packets on `link`.
#[allow(clippy::too_many_arguments)]
fn inject(
    c: &mut Core,
    link: LinkId,
    src: u8,
    dst: u8,
    tag: u8,
    to: bool,
    msg: &[u8],
    now: Duration,
) {
    let cfg = offload_driver::mctp::TxConfig::new(src, dst, tag, to);
    for p in packetize(&cfg, msg).unwrap() {
        assert!(c
            .input(
                link,
                RxPacket {
                    bytes: p,
                    hwaddr: None
                },
                now
            )
            .is_empty());
    }
}

#[test]
fn bind_receives_only_requests_of_its_type() {
    let (mut c, l) = core();
    let s = sock(&mut c);
    // bind without TAG_OWNER: EINVAL.
    let mut a = SockAddr::owner(NET_ANY, ADDR_ANY, PLDM);
    a.tag = 0;
    assert_eq!(c.bind(s, &a).unwrap_err().errno(), 22);
    a.tag = TAG_OWNER | 1;
    assert_eq!(c.bind(s, &a).unwrap_err().errno(), 22);
    c.bind(s, &SockAddr::owner(NET_ANY, ADDR_ANY, PLDM))
        .unwrap();
    // Same (net, addr, type) again: EADDRINUSE; another type is fine.
    let s2 = sock(&mut c);
    assert_eq!(
        c.bind(s2, &SockAddr::owner(NET_ANY, ADDR_ANY, PLDM))
            .unwrap_err()
            .errno(),
        98
    );
    c.bind(s2, &SockAddr::owner(NET_ANY, ADDR_ANY, 0x7E))
        .unwrap();

    // A request of the type, with and without IC: delivered with the peer and an owned tag.
    let long: Vec<u8> = std::iter::once(PLDM)
        .chain((0..300).map(|i| i as u8))
        .collect();
    inject(&mut c, l, PEER, ME, 5, true, &long, T0);
    inject(&mut c, l, PEER, ME, 6, true, &[0x80 | PLDM, 1, 2], T0);
    let (m, from) = c.try_recv(s).unwrap().unwrap();
    assert_eq!(m, long);
    assert_eq!(
        (from.net, from.eid, from.typ, from.tag),
        (NET, PEER, PLDM, TAG_OWNER | 5)
    );
    assert_eq!(
        from.ext,
        Some(ExtAddr {
            link: l,
            hwaddr: None
        })
    );
    assert_eq!(c.try_recv(s).unwrap().unwrap().0, [0x81, 1, 2]);
    // A response (TO = 0) of the type is not a request: nobody gets it.
    inject(&mut c, l, PEER, ME, 5, false, &[PLDM, 9], T0);
    // Another type goes to the other socket; an unbound type to no one.
    inject(&mut c, l, PEER, ME, 1, true, &[0x7E, 7], T0);
    inject(&mut c, l, PEER, ME, 1, true, &[0x05, 7], T0);
    assert_eq!(c.try_recv(s).unwrap(), None);
    assert_eq!(c.try_recv(s2).unwrap().unwrap().0, [0x7E, 7]);
    assert_eq!(c.stats().no_listener, 2);
    // Not for a local EID, forwarding off: dropped as unroutable.
    inject(&mut c, l, PEER, 0x20, 1, true, &[PLDM], T0);
    assert_eq!(c.stats().no_route, 1);
}

#[test]
fn specific_bindings_win_and_nets_are_separate() {
    let (mut c, l) = core();
    c.topology_mut().add_addr(l, 10).unwrap();
    let any = sock(&mut c);
    let ten = sock(&mut c);
    c.bind(any, &SockAddr::owner(NET_ANY, ADDR_ANY, PLDM))
        .unwrap();
    c.bind(ten, &SockAddr::owner(NET, 10, PLDM)).unwrap();
    inject(&mut c, l, PEER, 10, 0, true, &[PLDM, 10], T0);
    inject(&mut c, l, PEER, ME, 0, true, &[PLDM, 8], T0);
    inject(&mut c, l, PEER, ADDR_BCAST, 0, true, &[PLDM, 0xFF], T0);
    assert_eq!(c.try_recv(ten).unwrap().unwrap().0, [PLDM, 10]);
    assert_eq!(c.try_recv(ten).unwrap(), None);
    assert_eq!(c.try_recv(any).unwrap().unwrap().0, [PLDM, 8]);
    assert_eq!(c.try_recv(any).unwrap().unwrap().0, [PLDM, 0xFF]);
    // A socket bound to network 2 does not hear network 1.
    c.topology_mut().add_network(NetId(2)).unwrap();
    let n2 = sock(&mut c);
    c.bind(n2, &SockAddr::owner(NetId(2), ADDR_ANY, 0x7F))
        .unwrap();
    inject(&mut c, l, PEER, ME, 0, true, &[0x7F], T0);
    assert_eq!(c.try_recv(n2).unwrap(), None);
    let s3 = sock(&mut c);
    assert_eq!(
        c.bind(s3, &SockAddr::owner(NetId(3), ADDR_ANY, 1))
            .unwrap_err()
            .errno(),
        19
    );
}

#[test]
fn send_to_allocates_lowest_free_tag_per_peer_and_eagain_when_full() {
    let (mut c, l) = core();
    let socks: Vec<SocketId> = (0..9).map(|_| sock(&mut c)).collect();
    let to = SockAddr::owner(NET_ANY, PEER, PLDM);
    for (i, &s) in socks[..8].iter().enumerate() {
        let (src, dst, tag, owner, m) = one_msg(c.send_to(s, &[PLDM, i as u8], &to, T0).unwrap());
        assert_eq!(
            (src, dst, tag, owner, m),
            (ME, PEER, i as u8, true, vec![PLDM, i as u8])
        );
    }
    let e = c.send_to(socks[8], &[PLDM], &to, T0).unwrap_err();
    assert!(matches!(e, StackError::Again(_)));
    assert_eq!(e.errno(), 11);
    // Another peer has its own 8 tags.
    let other = SockAddr::owner(NET_ANY, PEER + 1, PLDM);
    assert_eq!(
        one_msg(c.send_to(socks[8], &[PLDM], &other, T0).unwrap()).2,
        0
    );
    // Sending again to the same peer reuses the tag.
    assert_eq!(one_msg(c.send_to(socks[3], &[PLDM], &to, T0).unwrap()).2, 3);
    // Sending to a new destination releases the old tag: 3 is free again.
    assert_eq!(
        one_msg(c.send_to(socks[3], &[PLDM], &other, T0).unwrap()).2,
        1
    );
    assert_eq!(one_msg(c.send_to(socks[8], &[PLDM], &to, T0).unwrap()).2, 3);
    // Closing releases too.
    c.close(socks[0]);
    let s = sock(&mut c);
    assert_eq!(one_msg(c.send_to(s, &[PLDM], &to, T0).unwrap()).2, 0);
    // The responses reach the socket holding the tag, and only it.
    inject(&mut c, l, PEER, ME, 5, false, &[PLDM, 0x55], T0);
    inject(&mut c, l, PEER, ME, 0, false, &[PLDM, 0x00], T0);
    let (m, from) = c.try_recv(socks[5]).unwrap().unwrap();
    assert_eq!((m, from.eid, from.tag), (vec![PLDM, 0x55], PEER, 5));
    assert_eq!(c.try_recv(s).unwrap().unwrap().0, [PLDM, 0x00]);
    for &o in &socks[1..] {
        assert_eq!(c.try_recv(o).unwrap(), None);
    }
    // A response from another peer with the same tag matches no key.
    inject(&mut c, l, PEER + 2, ME, 5, false, &[PLDM], T0);
    assert_eq!(c.try_recv(socks[5]).unwrap(), None);
}

#[test]
fn tags_time_out_unless_retained() {
    let (mut c, l) = core();
    let s = sock(&mut c);
    let to = SockAddr::owner(NET_ANY, PEER, PLDM);
    c.set_tag_control(s, TagControl::Timeout(ms(100))).unwrap();
    assert_eq!(one_msg(c.send_to(s, &[PLDM], &to, T0).unwrap()).2, 0);
    inject(&mut c, l, PEER, ME, 0, false, &[PLDM, 1], ms(99));
    assert!(c.try_recv(s).unwrap().is_some());
    // Several responses to one request: the tag survives a response.
    inject(&mut c, l, PEER, ME, 0, false, &[PLDM, 2], ms(99));
    assert!(c.try_recv(s).unwrap().is_some());
    // After the timeout the response has no taker and the tag is free for others.
    inject(&mut c, l, PEER, ME, 0, false, &[PLDM, 3], ms(100));
    assert_eq!(c.try_recv(s).unwrap(), None);
    let other = sock(&mut c);
    assert_eq!(
        one_msg(c.send_to(other, &[PLDM], &to, ms(100)).unwrap()).2,
        0
    );
    // Each send refreshes the lifetime; Retain never lapses.
    c.set_tag_control(s, TagControl::Retain).unwrap();
    assert_eq!(one_msg(c.send_to(s, &[PLDM], &to, ms(100)).unwrap()).2, 1);
    inject(
        &mut c,
        l,
        PEER,
        ME,
        1,
        false,
        &[PLDM, 4],
        Duration::from_secs(3600),
    );
    assert_eq!(c.try_recv(s).unwrap().unwrap().0, [PLDM, 4]);
    c.drop_tag(s).unwrap();
    inject(
        &mut c,
        l,
        PEER,
        ME,
        1,
        false,
        &[PLDM, 5],
        Duration::from_secs(3600),
    );
    assert_eq!(c.try_recv(s).unwrap(), None);
}

#[test]
fn connect_holds_its_tag_and_send_needs_it() {
    let (mut c, l) = core();
    let s = sock(&mut c);
    assert_eq!(
        c.send(s, &[PLDM], T0).unwrap_err(),
        StackError::DestAddrRequired
    );
    assert_eq!(c.send(s, &[PLDM], T0).unwrap_err().errno(), 89);
    assert_eq!(c.peer_addr(s).unwrap_err().errno(), 107);
    let mut a = SockAddr::owner(NET_ANY, PEER, PLDM);
    a.tag = 0;
    assert_eq!(c.connect(s, &a, T0).unwrap_err().errno(), 22);
    c.connect(s, &SockAddr::owner(NET_ANY, PEER, PLDM), T0)
        .unwrap();
    assert_eq!(c.peer_addr(s).unwrap().tag, TAG_OWNER);
    assert_eq!(one_msg(c.send(s, &[PLDM, 1], T0).unwrap()).2, 0);
    // A send_to elsewhere takes a second tag and does not end the connect reservation.
    let other = SockAddr::owner(NET_ANY, PEER + 1, PLDM);
    assert_eq!(one_msg(c.send_to(s, &[PLDM], &other, T0).unwrap()).2, 0);
    assert_eq!(
        one_msg(
            c.send_to(s, &[PLDM], &SockAddr::owner(NET_ANY, PEER + 2, PLDM), T0)
                .unwrap()
        )
        .2,
        0
    );
    // The connect tag never times out.
    inject(
        &mut c,
        l,
        PEER,
        ME,
        0,
        false,
        &[PLDM, 7],
        Duration::from_secs(1000),
    );
    assert_eq!(c.try_recv(s).unwrap().unwrap().0, [PLDM, 7]);
    // Re-connect moves the reservation.
    c.connect(s, &SockAddr::owner(NET_ANY, PEER + 3, PLDM), T0)
        .unwrap();
    let s2 = sock(&mut c);
    assert_eq!(
        one_msg(
            c.send_to(s2, &[PLDM], &SockAddr::owner(NET_ANY, PEER, PLDM), T0)
                .unwrap()
        )
        .2,
        0
    );
    // EAGAIN from connect when the peer's 8 tags are taken.
    let full: Vec<_> = (0..8).map(|_| sock(&mut c)).collect();
    for &f in &full {
        c.connect(f, &SockAddr::owner(NET_ANY, 0x40, PLDM), T0)
            .unwrap();
    }
    assert_eq!(
        c.connect(s2, &SockAddr::owner(NET_ANY, 0x40, PLDM), T0)
            .unwrap_err()
            .errno(),
        11
    );
}

#[test]
fn send_errors_mirror_errno() {
    let (mut c, _) = core();
    let s = sock(&mut c);
    let to = SockAddr::owner(NET_ANY, PEER, PLDM);
    let e = c.send_to(s, &[0x7E, 1], &to, T0).unwrap_err();
    assert_eq!(
        e,
        StackError::Protocol {
            expected: PLDM,
            found: 0x7E
        }
    );
    assert_eq!(e.errno(), 71);
    // The IC bit is not part of the type.
    assert!(c.send_to(s, &[0x80 | PLDM], &to, T0).is_ok());
    assert_eq!(c.send_to(s, &[], &to, T0).unwrap_err().errno(), 22);
    let big = vec![PLDM; 64 * 1024 + 1];
    assert_eq!(c.send_to(s, &big, &to, T0).unwrap_err().errno(), 90);
    let unrouted = SockAddr::owner(NET_ANY, 0x90, PLDM);
    assert_eq!(
        c.send_to(s, &[PLDM], &unrouted, T0).unwrap_err().errno(),
        113
    );
    let mut resp = to;
    resp.tag = 0x10; // neither TAG_OWNER nor a 3-bit value
    assert_eq!(c.send_to(s, &[PLDM], &resp, T0).unwrap_err().errno(), 22);
    resp.tag = 6;
    let (_, _, tag, owner, _) = one_msg(c.send_to(s, &[PLDM], &resp, T0).unwrap());
    assert_eq!((tag, owner), (6, false));
    c.close(s);
    assert_eq!(c.send_to(s, &[PLDM], &to, T0).unwrap_err().errno(), 107);
}

#[test]
fn broadcast_reserves_the_tag_everywhere_and_takes_every_reply() {
    let (mut c, l) = core();
    let b = sock(&mut c);
    let u = sock(&mut c);
    assert_eq!(
        one_msg(
            c.send_to(u, &[PLDM], &SockAddr::owner(NET_ANY, PEER, PLDM), T0)
                .unwrap()
        )
        .2,
        0
    );
    c.connect(b, &SockAddr::owner(NET_ANY, ADDR_BCAST, PLDM), T0)
        .unwrap();
    let (_, dst, tag, _, _) = one_msg(c.send(b, &[PLDM], T0).unwrap());
    assert_eq!((dst, tag), (ADDR_BCAST, 1));
    // Tag 1 is now taken towards any peer.
    let x = sock(&mut c);
    assert_eq!(
        one_msg(
            c.send_to(x, &[PLDM], &SockAddr::owner(NET_ANY, 0x30, PLDM), T0)
                .unwrap()
        )
        .2,
        0
    );
    let y = sock(&mut c);
    assert_eq!(
        one_msg(
            c.send_to(y, &[PLDM], &SockAddr::owner(NET_ANY, 0x30, PLDM), T0)
                .unwrap()
        )
        .2,
        2
    );
    for peer in [0x20, 0x21, 0x22] {
        inject(&mut c, l, peer, ME, 1, false, &[PLDM, peer], T0);
    }
    for peer in [0x20, 0x21, 0x22] {
        let (m, from) = c.try_recv(b).unwrap().unwrap();
        assert_eq!((m[1], from.eid), (peer, peer));
    }
}

#[test]
fn local_destination_is_delivered_without_a_link() {
    let (mut c, _) = core();
    let srv = sock(&mut c);
    c.bind(srv, &SockAddr::owner(NET_ANY, ME, PLDM)).unwrap();
    let cli = sock(&mut c);
    assert!(c
        .send_to(cli, &[PLDM, 1], &SockAddr::owner(NET_ANY, ME, PLDM), T0)
        .unwrap()
        .is_empty());
    let (m, from) = c.try_recv(srv).unwrap().unwrap();
    assert_eq!((m, from.eid, from.tag), (vec![PLDM, 1], ME, TAG_OWNER));
    assert!(c
        .send_to(srv, &[PLDM, 2], &from.reply(), T0)
        .unwrap()
        .is_empty());
    assert_eq!(c.try_recv(cli).unwrap().unwrap().0, [PLDM, 2]);
}

#[test]
fn forwarding_passes_packets_whole_and_drops_too_big() {
    let mut c = Core::new(StackConfig::default()).unwrap();
    let t = c.topology_mut();
    let a = t.add_link("a", "serial", NET, 255, 255, None).unwrap();
    let b = t.add_link("b", "smbus", NET, 100, 254, Some(0x10)).unwrap();
    t.add_addr(a, ME).unwrap();
    t.add_route(Route {
        hwaddr: Some(0x1D),
        mtu: Some(80),
        ..Route::to(NET, 0x30, b)
    })
    .unwrap();
    t.add_route(Route::to(NET, 0x31, b)).unwrap();
    let msg: Vec<u8> = (0..200).map(|i| i as u8).collect();
    let small = packetize(
        &offload_driver::mctp::TxConfig::new(PEER, 0x30, 1, true),
        &msg,
    )
    .unwrap();
    let mut wide = offload_driver::mctp::TxConfig::new(PEER, 0x30, 1, true);
    wide.mtu = 100;
    let big = packetize(&wide, &msg).unwrap();
    // Forwarding off: dropped.
    assert!(c
        .input(
            a,
            RxPacket {
                bytes: small[0].clone(),
                hwaddr: None
            },
            T0
        )
        .is_empty());
    assert_eq!(c.stats().no_route, 1);
    c.topology_mut().set_forwarding(NET, true).unwrap();
    for p in &small {
        let e = c.input(
            a,
            RxPacket {
                bytes: p.clone(),
                hwaddr: None,
            },
            T0,
        );
        assert_eq!(
            e,
            vec![Egress::Packet {
                link: b,
                hwaddr: Some(0x1D),
                packet: p.clone()
            }]
        );
    }
    // 104-octet packets do not fit the route's 80.
    assert!(c
        .input(
            a,
            RxPacket {
                bytes: big[0].clone(),
                hwaddr: None
            },
            T0
        )
        .is_empty());
    assert_eq!(c.stats().forward_too_big, 1);
    // Never back out of the link it came in on.
    let p = packetize(
        &offload_driver::mctp::TxConfig::new(PEER, 0x31, 1, true),
        &[1],
    )
    .unwrap();
    assert!(c
        .input(
            b,
            RxPacket {
                bytes: p[0].clone(),
                hwaddr: Some(0x22)
            },
            T0
        )
        .is_empty());
    // Nothing was reassembled on the way.
    assert_eq!(c.reassembly_usage(), (0, 0));
    // The SMBus source address was learnt as the neighbour of EID 9.
    assert_eq!(c.topology().neighbour(NET, PEER), Some((b, 0x22)));
    let h = Header::decode(&small[0]).unwrap();
    assert_eq!((h.src, h.dst), (PEER, 0x30));
}

#[test]
fn socket_queue_is_bounded() {
    let cfg = StackConfig {
        rcvbuf: 1000,
        ..StackConfig::default()
    };
    let mut c = Core::new(cfg).unwrap();
    let l = c
        .topology_mut()
        .add_link("l", "loopback", NET, 68, 255, None)
        .unwrap();
    c.topology_mut().add_addr(l, ME).unwrap();
    let s = sock(&mut c);
    c.bind(s, &SockAddr::owner(NET_ANY, ADDR_ANY, PLDM))
        .unwrap();
    let m = vec![PLDM; 300];
    for _ in 0..5 {
        inject(&mut c, l, PEER, ME, 0, true, &m, T0);
    }
    assert_eq!(c.queued_octets(), 900);
    assert_eq!(c.stats().queue_full, 2);
}
