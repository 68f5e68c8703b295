//! The serial-binding stream decoder on arbitrary bytes in arbitrary chunks: never a panic, and
//! every packet it yields re-encodes into a frame that decodes to the same packet.
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::mctp::serial::{self, SerialDecoder};

fuzz_target!(|data: &[u8]| {
    let Some((&chunk, stream)) = data.split_first() else { return };
    let mut d = SerialDecoder::new();
    for piece in stream.chunks(1 + chunk as usize) {
        for packet in d.feed(piece).into_iter().flatten() {
            let frame = serial::encode(&packet).unwrap();
            let again: Vec<_> = SerialDecoder::new().feed(&frame).into_iter().flatten().collect();
            assert_eq!(again, vec![packet]);
        }
    }
});
