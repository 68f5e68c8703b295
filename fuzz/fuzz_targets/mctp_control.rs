//! The MCTP control-message parser (requests and responses) and the control responder on
//! arbitrary messages: never a panic; whatever decodes re-encodes to something that decodes the
//! same; the responder's answer, if any, is a well-formed response echoing the instance ID.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::stack::control::{ControlHeader, Request, Response};
use offload_driver::mctp::stack::control_endpoint::{ControlResponder, ResponderConfig};
use offload_driver::mctp::stack::{Endpoint, SockAddr, StackConfig, NET_ANY, TYPE_CONTROL};
use std::sync::OnceLock;

fn endpoint() -> &'static Endpoint {
    static EP: OnceLock<Endpoint> = OnceLock::new();
    EP.get_or_init(|| Endpoint::new(StackConfig::default()).unwrap())
}

fuzz_target!(|data: &[u8]| {
    if let Ok((h, r)) = Request::decode(data) {
        let again = r.encode(h.instance).unwrap();
        assert_eq!(Request::decode(&again).unwrap(), (ControlHeader { datagram: false, ..h }, r));
    }
    if let Ok((h, r)) = Response::decode(data) {
        let again = r.encode(h.instance).unwrap();
        assert_eq!(Response::decode(&again).unwrap().1, r);
    }
    let responder = ControlResponder::new(ResponderConfig::default());
    let from = SockAddr::owner(NET_ANY, 0x20, TYPE_CONTROL);
    if let Some(resp) = responder.respond(endpoint(), data, &from) {
        let (h, _) = Response::decode(&resp).expect("the responder answers with a valid response");
        assert_eq!(h.instance, ControlHeader::decode(data).unwrap().instance);
    }
});
