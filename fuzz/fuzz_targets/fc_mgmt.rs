//! Stream-0 management messages on arbitrary bytes: the request and response parsers never
//! panic and what they accept encodes back to the same octets; the server's stream table
//! answers every readable request (a parseable response carrying the same tag) and never
//! assigns more streams than it has.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::fc::mgmt::{MgmtHeader, MgmtMessage};
use offload_driver::fc::stream::{ServerConfig, StreamManager};

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = MgmtMessage::decode_request(data) {
        let b = m.encode().expect("a decoded request encodes");
        assert_eq!(MgmtMessage::decode_request(&b).expect("re-decodes"), m);
    }
    if let Ok(m) = MgmtMessage::decode_response(data) {
        let b = m.encode().expect("a decoded response encodes");
        assert_eq!(MgmtMessage::decode_response(&b).expect("re-decodes"), m);
    }
    // A sequence of requests, each length-prefixed, against one stream table.
    let config = ServerConfig { max_streams: 3, ..ServerConfig::default() };
    let mut s = StreamManager::new(config);
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let n = (len as usize).min(tail.len());
        let (req, next) = tail.split_at(n);
        rest = next;
        match (MgmtHeader::decode(req), s.handle_bytes(req)) {
            (Ok(h), Some(answer)) => {
                let a = MgmtHeader::decode(&answer).expect("answers have a header");
                assert_eq!((a.tag, a.request), (h.tag, h.request));
            }
            (Err(_), None) => {}
            (h, a) => panic!("header {h:?} but answer {a:?}"),
        }
        assert!(s.assignments().count() <= 3);
    }
});
