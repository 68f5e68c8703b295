//! AoE frames from anywhere: the decoder never panics and whatever decodes re-encodes to a
//! frame that decodes the same; the target answers or ignores without panicking, and its
//! answers are responses with its own address. The target sees the input behind an Ethernet
//! header addressed to it with its Major/Minor, so the fuzzer spends its time on Ver, Flags,
//! Command, Tag and the Args (addressing is covered by the unit tests); the input is split at
//! each `0xA2 0x88` into several frames so state (mask, reservation, config string, held
//! writes) carries from one to the next.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::aoe::target::{Outcome, Target, TargetConfig};
use offload_driver::aoe::{Frame, Header, MemDevice};

const ME: [u8; 6] = [2, 0, 0, 0, 0, 2];

fuzz_target!(|data: &[u8]| {
    if let Ok(f) = Frame::parse(data) {
        let bytes = f.to_vec();
        assert_eq!(Frame::parse(&bytes).as_ref(), Ok(&f));
    }
    let cfg = TargetConfig::new(1, 2, ME, 9000);
    let mut t = Target::new(cfg, MemDevice::new(64)).unwrap();
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let cut = rest
            .windows(2)
            .position(|w| w == [0xA2, 0x88])
            .unwrap_or(rest.len());
        let (part, next) = rest.split_at(cut);
        rest = next.get(2..).unwrap_or(&[]);
        let mut f = Vec::with_capacity(14 + part.len());
        f.extend_from_slice(&ME);
        f.extend_from_slice(&[2, 0, 0, 0, 0, 1]);
        f.extend_from_slice(&[0x88, 0xA2]);
        f.extend_from_slice(part);
        if f.len() >= 19 {
            f[16..19].copy_from_slice(&[0, 1, 2]);
        }
        if let Ok(fr) = Frame::parse(&f) {
            assert_eq!(Frame::parse(&fr.to_vec()).as_ref(), Ok(&fr));
        }
        if t.handle(&f, &mut out) == Outcome::Respond {
            let (h, _) = Header::parse(&out).unwrap();
            assert!(h.is_response());
            assert_eq!((h.major, h.minor, h.src), (1, 2, ME));
            assert!(out.len() <= 9014);
        }
    }
    t.idle();
});
