//! The endpoint stack's receive path on arbitrary link input: a serial-binding byte stream in
//! arbitrary chunks on one link and SMBus frames on another, through routing, forwarding,
//! reassembly and socket delivery. Never a panic; every delivered message is non-empty and
//! within 64 KiB; reassembly and socket memory stay under their caps.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::serial::SerialDecoder;
use offload_driver::mctp::smbus;
use offload_driver::mctp::stack::*;
use std::sync::{Arc, Condvar};
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, rest)) = data.split_first() else { return };
    let mut cfg = StackConfig::default();
    cfg.reassembly.max_contexts = 4;
    cfg.rcvbuf = 8192;
    let mut c = Core::new(cfg).unwrap();
    let t = c.topology_mut();
    let serial = t.add_link("serial", "serial", NET_ANY, 255, 255, None).unwrap();
    let bus = t.add_link("smbus", "smbus", NET_ANY, 254, 254, Some(0x10)).unwrap();
    t.add_addr(serial, 8).unwrap();
    t.add_addr(bus, 9).unwrap();
    t.add_route(Route { first: 0x20, last: 0x2F, ..Route::to(NET_ANY, 0x20, bus) }).unwrap();
    t.add_route(Route { first: 0x30, last: 0x3F, mtu: Some(80), ..Route::to(NET_ANY, 0x30, serial) }).unwrap();
    t.set_forwarding(DEFAULT_NET, ctl & 1 != 0).unwrap();
    let wake = Arc::new(Condvar::new());
    let socks: Vec<SocketId> = (0..3).map(|_| c.open(wake.clone())).collect();
    c.bind(socks[0], &SockAddr::owner(NET_ANY, ADDR_ANY, 0)).unwrap();
    c.bind(socks[1], &SockAddr::owner(NET_ANY, 8, 0x7E)).unwrap();
    let _ = c.send_to(socks[2], &[0x7E, 1], &SockAddr::owner(NET_ANY, 0x30, 0x7E), Duration::ZERO);

    let split = (rest.len() * (ctl as usize >> 1)) / 128;
    let (stream, frames) = rest.split_at(split.min(rest.len()));
    let mut dec = SerialDecoder::new();
    let mut now = Duration::ZERO;
    for piece in stream.chunks(1 + (ctl as usize % 7)) {
        for p in dec.feed(piece).into_iter().flatten() {
            now += Duration::from_millis(1);
            let _ = c.input(serial, RxPacket { bytes: p, hwaddr: None }, now);
        }
    }
    let mut f = frames;
    while let Some((&n, tail)) = f.split_first() {
        let (frame, next) = tail.split_at((n as usize).min(tail.len()));
        f = next;
        if let Ok((a, p)) = smbus::decode(frame) {
            now += Duration::from_millis(1);
            let _ = c.input(bus, RxPacket { bytes: p.to_vec(), hwaddr: Some(a.src) }, now);
        }
    }
    let (ctx, octets) = c.reassembly_usage();
    assert!(ctx <= 4 && octets <= 4 * 64 * 1024);
    assert!(c.queued_octets() <= 3 * 8192);
    for s in socks {
        while let Some((m, _)) = c.try_recv(s).unwrap() {
            assert!(!m.is_empty() && m.len() <= 64 * 1024);
        }
    }
});
