//! The FrontPanel pipe-out decoder (`offload_driver::ok::BeatDecoder`) on arbitrary words from
//! the board: never a panic, frames only from valid beats, and the octets kept are exactly the
//! ones the valid beats' `keep` bits name (a refused batch may leave a partial frame behind).
#![no_main]
use libfuzzer_sys::fuzz_target;
use offload_driver::ok::{encode_frame, BeatDecoder, FLAG_VALID, RX_BEAT_WORDS, TX_BEAT_WORDS};

fuzz_target!(|data: &[u8]| {
    // The first octet picks the beat format: the transmit channels' or the receive channels'
    // (which carry a side word).
    let n = if data.first().is_some_and(|b| b & 1 == 1) { RX_BEAT_WORDS } else { TX_BEAT_WORDS };
    let words: Vec<u16> = data.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    let mut d = BeatDecoder::new(n);
    let whole = words.len() / n * n;
    if d.push(&words[..whole]).is_ok() {
        let kept: usize = words[..whole]
            .chunks(n)
            .filter(|t| t[n - 1] & FLAG_VALID != 0)
            .map(|t| (t[n - 1] & 0xF).count_ones() as usize)
            .sum();
        let framed: usize = d.frames.iter().map(|f| f.bytes.len()).sum();
        assert!(framed <= kept);
    }
    // Encoding any frame gives its length then whole beats.
    let mut out = Vec::new();
    encode_frame(data, &mut out).unwrap();
    assert_eq!(out.len(), 2 + 2 * data.len().div_ceil(4).max(1));
    assert_eq!(out[0] as usize | (out[1] as usize) << 16, data.len());
});
