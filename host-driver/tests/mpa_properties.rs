//! Property tests of the MPA framer and deframer (RFC 5044 §4): round trips over random ULPDU
//! sizes, start offsets, configurations and segmentations; every single-bit flip rejected.

use offload_driver::mpa::{Deframer, FramingConfig, Framer, MpaError, MAX_ULPDU};
use proptest::prelude::*;

fn frame(cfg: FramingConfig, offset: u64, ulpdus: &[Vec<u8>]) -> Vec<u8> {
    let mut f = Framer::new(cfg, offset).unwrap();
    let mut out = Vec::new();
    for u in ulpdus {
        f.frame(u, &mut out).unwrap();
    }
    out
}

/// Deframes `stream` cut at the given segment sizes (cycled); errors from push or finish.
fn deframe(cfg: FramingConfig, offset: u64, stream: &[u8], cuts: &[usize]) -> Result<Vec<Vec<u8>>, MpaError> {
    let mut d = Deframer::new(cfg, offset)?;
    let mut got = Vec::new();
    let mut rest = stream;
    let mut i = 0;
    while !rest.is_empty() {
        let n = cuts[i % cuts.len()].clamp(1, rest.len());
        d.push(&rest[..n], &mut got)?;
        rest = &rest[n..];
        i += 1;
    }
    d.finish()?;
    Ok(got)
}

fn config() -> impl Strategy<Value = FramingConfig> {
    (any::<bool>(), any::<bool>(), 1usize..=4096).prop_map(|(markers, crc, mulpdu)| FramingConfig { markers, crc, mulpdu })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn frame_deframe_round_trip(
        cfg in config(),
        offset in (0u64..4096).prop_map(|o| o * 4),
        sizes in prop::collection::vec(any::<prop::sample::Index>(), 1..20),
        seed in any::<u8>(),
        cuts in prop::collection::vec(prop_oneof![1usize..8, 1usize..600, 1usize..65536], 1..8),
    ) {
        let ulpdus: Vec<Vec<u8>> = sizes
            .iter()
            .enumerate()
            .map(|(k, ix)| {
                let len = 1 + ix.index(cfg.mulpdu);
                (0..len).map(|j| (j as u8).wrapping_mul(31).wrapping_add(seed ^ k as u8)).collect()
            })
            .collect();
        let stream = frame(cfg, offset, &ulpdus);
        prop_assert_eq!(stream.len() % 4, 0);
        let got = deframe(cfg, offset, &stream, &cuts).unwrap();
        prop_assert_eq!(got, ulpdus);
    }

    #[test]
    fn every_single_bit_flip_is_rejected(
        markers in any::<bool>(),
        offset in (0u64..1024).prop_map(|o| o * 4),
        len in 1usize..1200,
        seed in any::<u8>(),
    ) {
        let cfg = FramingConfig { markers, crc: true, mulpdu: MAX_ULPDU };
        let ulpdu: Vec<u8> = (0..len).map(|j| (j as u8) ^ seed).collect();
        let stream = frame(cfg, offset, &[ulpdu]);
        let mut bad = stream.clone();
        for bit in 0..stream.len() * 8 {
            bad[bit / 8] ^= 1 << (bit % 8);
            let r = deframe(cfg, offset, &bad, &[stream.len()]);
            prop_assert!(r.is_err(), "flip of bit {} accepted: {:?}", bit, r);
            bad[bit / 8] ^= 1 << (bit % 8);
        }
    }
}
