//! AoE frames from anywhere: the decoder never panics, whatever decodes re-encodes to a frame
//! that decodes the same, and the target answers or ignores without panicking, its answers
//! being well-formed responses with its own address.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::aoe::target::{Outcome, Target, TargetConfig};
use offload_driver::aoe::{Frame, Header, MemDevice};

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Frame::parse(data) {
        let bytes = f.to_vec();
        assert_eq!(Frame::parse(&bytes).as_ref(), Ok(&f));
    }
    let cfg = TargetConfig::new(1, 2, [2, 0, 0, 0, 0, 2], 9000);
    let mut t = Target::new(cfg, MemDevice::new(64)).unwrap();
    let mut out = Vec::new();
    // Twice: the first frame may change state (mask, reservation, config string).
    for _ in 0..2 {
        if t.handle(data, &mut out) == Outcome::Respond {
            let (h, _) = Header::parse(&out).unwrap();
            assert!(h.is_response());
            assert_eq!((h.major, h.minor, h.src), (1, 2, [2, 0, 0, 0, 0, 2]));
            assert!(out.len() <= 9014);
        }
    }
    t.idle();
});
