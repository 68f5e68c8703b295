//! The MCTP reassembler on arbitrary packets (length-prefixed in the input, with a clock that
//! jumps): never a panic, contexts and buffered octets stay within their caps, and a delivered
//! message never exceeds the size limit.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::reassembly::{Outcome, ReassemblyConfig, Reassembler};
use std::time::Duration;

fuzz_target!(|data: &[u8]| {
    let cfg = ReassemblyConfig { max_message_len: 4224, max_contexts: 4, ..ReassemblyConfig::default() };
    let mut r = Reassembler::new(cfg).unwrap();
    let mut now = Duration::ZERO;
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let n = (len as usize).min(tail.len());
        let (packet, next) = tail.split_at(n);
        rest = next;
        now += Duration::from_millis(len as u64 * 37);
        if let Outcome::Delivered(m) = r.push(packet, now) {
            assert!(m.bytes.len() <= cfg.max_message_len);
        }
        assert!(r.active_contexts() <= cfg.max_contexts);
        assert!(r.buffered_octets() <= cfg.max_contexts * cfg.max_message_len);
    }
});
