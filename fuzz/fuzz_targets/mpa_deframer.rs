//! The MPA deframer on arbitrary streams, cut into arbitrary segments, under every framing
//! configuration: it must never panic, and whatever it delivers must fit MULPDU.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mpa::{Deframer, FramingConfig};

fuzz_target!(|data: &[u8]| {
    let Some((&cfg, rest)) = data.split_first() else { return };
    let Some((&cut, stream)) = rest.split_first() else { return };
    let config = FramingConfig {
        markers: cfg & 1 != 0,
        crc: cfg & 2 != 0,
        mulpdu: 1 + ((cfg as usize >> 2) * 1021) % 64768,
    };
    let offset = (cfg as u64 >> 4) * 4 * 37;
    let mut d = Deframer::new(config, offset).unwrap();
    let mut out = Vec::new();
    let seg = 1 + cut as usize;
    for chunk in stream.chunks(seg) {
        if d.push(chunk, &mut out).is_err() {
            break;
        }
    }
    let _ = d.finish();
    assert!(out.iter().all(|u| !u.is_empty() && u.len() <= config.mulpdu));
});
