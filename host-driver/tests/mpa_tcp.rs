//! Two MPA endpoints on loopback TCP: startup with Markers and CRCs, then 10 000 ULPDUs each
//! way at once, none lost, altered or reordered.

use offload_driver::mpa::startup::LocalParams;
use offload_driver::mpa::tcp::MpaStream;
use offload_driver::mpa::mulpdu_for_emss;
use std::net::TcpListener;
use std::thread;

const COUNT: usize = 10_000;

fn ulpdu(dir: u8, i: usize, mulpdu: usize) -> Vec<u8> {
    let len = 1 + (i * 7919 + dir as usize * 104729) % mulpdu;
    (0..len).map(|j| (i as u8) ^ (j as u8) ^ dir).collect()
}

#[test]
fn loopback_10000_each_way_markers_and_crc() {
    let mulpdu = mulpdu_for_emss(1460, true);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let local = || LocalParams { markers: true, crc: true, private_data: b"offload".to_vec() };

    let responder = thread::spawn(move || {
        let (sock, _) = listener.accept().unwrap();
        let mut s = MpaStream::accept(sock, local(), mulpdu).unwrap();
        assert!(s.negotiated().tx_markers && s.negotiated().rx_markers && s.negotiated().crc);
        assert_eq!(s.negotiated().peer_private_data, b"offload");
        // The Responder may only send once the Initiator's first FPDU is in.
        let first = s.recv().unwrap().unwrap();
        assert_eq!(first, ulpdu(0, 0, mulpdu));
        let (mut tx, mut rx) = s.split().unwrap();
        let writer = thread::spawn(move || {
            for i in 0..COUNT {
                tx.send(&ulpdu(1, i, mulpdu)).unwrap();
            }
            tx.finish().unwrap();
        });
        for i in 1..COUNT {
            assert_eq!(rx.recv().unwrap().unwrap(), ulpdu(0, i, mulpdu), "ULPDU {i} to the Responder");
        }
        assert_eq!(rx.recv().unwrap(), None, "clean end after the last FPDU");
        writer.join().unwrap();
    });

    let s = MpaStream::connect(addr, local(), mulpdu).unwrap();
    let (mut tx, mut rx) = s.split().unwrap();
    let writer = thread::spawn(move || {
        for i in 0..COUNT {
            tx.send(&ulpdu(0, i, mulpdu)).unwrap();
        }
        tx.finish().unwrap();
    });
    for i in 0..COUNT {
        assert_eq!(rx.recv().unwrap().unwrap(), ulpdu(1, i, mulpdu), "ULPDU {i} to the Initiator");
    }
    assert_eq!(rx.recv().unwrap(), None);
    writer.join().unwrap();
    responder.join().unwrap();
}

#[test]
fn a_rejecting_responder_gives_a_typed_error() {
    // A Responder that rejects: the Initiator sees a typed Rejected error with the private data.
    use offload_driver::mpa::startup::{Startup, StartupError};
    use std::io::{Read, Write};
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let t = thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        let mut st = Startup::responder(LocalParams::default()).unwrap();
        let mut buf = [0u8; 600];
        while st.request().is_none() {
            let n = sock.read(&mut buf).unwrap();
            st.receive(&buf[..n]).unwrap();
        }
        st.reject(b"busy".to_vec()).unwrap();
        sock.write_all(&st.transmit()).unwrap();
    });
    let e = MpaStream::connect(addr, LocalParams::default(), 1000).err().expect("rejected");
    assert!(
        matches!(&e, offload_driver::mpa::tcp::MpaIoError::Startup(StartupError::Rejected { private_data }) if private_data == b"busy"),
        "{e}"
    );
    t.join().unwrap();
}
