//! The arithmetic of the pipelined CRC engine: the state register is kept out of the data's
//! XOR network, and a partial last beat is finished off the loop.
//!
//! With `R` the register in consumption order ([`CrcNetwork`]) and `A_n` the GF(2) matrix that
//! feeds `n` zero octets to it, one full beat `d` is `R' = A_W·R ⊕ L(d)`, where `L` is the
//! zero-state network. `L(d)` depends on the data alone, so it is computed and registered a clock
//! before the loop: the loop is then one `A_W·R` tree (at most `8·min(W, m)` state bits an output
//! bit) and an XOR.
//!
//! A last beat with `k` valid octets is fed the same way with its octets at and above `k` zeroed
//! (`tkeep`'s hull: no shifter), which gives `X = A_{W−k}·T`: the true register `T` followed by
//! `W − k` zero octets. `A_n` is invertible (the polynomial has a constant term), so
//! `T = U_{W−k}·X` with `U_n = A_n⁻¹`, applied as one conditional stage per bit of `W − k`
//! (`U_1`, `U_2`, `U_4`, …), each over two clocks (the product, then the select), behind the
//! loop. A null last beat (`tkeep` = 0) takes `R` itself. The finished CRC is the bit
//! permutation and `xorout` of [`CrcNetwork::finish`].

use super::network::CrcNetwork;

/// The matrices of one (CRC, W) engine, as columns (`columns[i]` = the image of input bit `i`).
#[derive(Clone, Debug)]
pub struct CrcPipeline {
    pub net: CrcNetwork,
    /// `L`: the `8W` data bits to a register value (the network's own columns).
    pub data: Vec<u64>,
    /// `A_W`: the register advanced by a full beat of zeros.
    pub advance: Vec<u64>,
    /// `U_{2^b}` for `b` in `0..log2(W)`: the register moved back by `2^b` zero octets.
    pub unshift: Vec<Vec<u64>>,
    /// The finishing permutation (columns of one bit each); `xorout` is the constant.
    pub finish: Vec<u64>,
}

impl CrcPipeline {
    pub fn new(net: CrcNetwork) -> CrcPipeline {
        let c = 8 * net.reg_bytes;
        let w = net.bytes;
        let unit = |i: usize| 1u64 << i;
        let advance = zero_feed(&net, w);
        let unshift = (0..w.trailing_zeros())
            .map(|b| invert(&zero_feed(&net, 1 << b)))
            .collect();
        let finish = (0..c).map(|i| net.finish(unit(i)) ^ net.finish(0)).collect();
        CrcPipeline { data: net.columns.clone(), advance, unshift, finish, net }
    }

    /// `A_n` as columns: the register advanced by `n` zero octets (`advance` is `A_W`). The
    /// MPA receiver's loop advances by a beat's covered words, `4·m` octets for `m ≤ N`.
    pub fn advance_by(&self, octets: usize) -> Vec<u64> {
        zero_feed(&self.net, octets)
    }

    /// `U_n = A_n⁻¹` as columns: the register moved back by `n` zero octets. The MCTP
    /// packetizer's PEC stage finishes a beat masked after its `k` covered octets with
    /// `U_{W−k}`, one matrix per PEC lane.
    pub fn unshift_by(&self, octets: usize) -> Vec<u64> {
        invert(&zero_feed(&self.net, octets))
    }

    /// `finish(U_n·X)` as columns (the finishing permutation of `U_n`'s); the constant is
    /// `xorout`, [`CrcNetwork::finish`]`(0)`. The finished CRC of a beat masked after its `k`
    /// octets is this with `n = W − k`: the MCTP packetizer's MIC and PEC stages.
    pub fn finished_unshift(&self, octets: usize) -> Vec<u64> {
        self.unshift_by(octets).iter().map(|&c| super::matrix::apply(&self.finish, c)).collect()
    }

    /// Stages behind the loop: `log2(W)`.
    pub fn stages(&self) -> usize {
        self.unshift.len()
    }

    /// The CRC of `data` computed as the pipeline does (full beats through `A_W` and `L`, the
    /// last one masked, then the unshift stages): the model the hardware must match.
    pub fn checksum(&self, data: &[u8]) -> u64 {
        use super::matrix::apply;
        let w = self.net.bytes;
        let mut r = self.net.init_r;
        let beats: Vec<&[u8]> = if data.is_empty() { vec![&[]] } else { data.chunks(w).collect() };
        let (last, full) = beats.split_last().expect("one beat at least");
        for b in full {
            r = apply(&self.advance, r) ^ self.data_remainder(b);
        }
        let k = last.len();
        let mut x = if k == 0 { r } else { apply(&self.advance, r) ^ self.data_remainder(last) };
        let j = if k == 0 { 0 } else { w - k };
        for (b, u) in self.unshift.iter().enumerate() {
            if j >> b & 1 != 0 {
                x = apply(u, x);
            }
        }
        self.net.finish(x)
    }

    /// `L(d)` for up to `W` octets, the rest zero.
    fn data_remainder(&self, d: &[u8]) -> u64 {
        d.iter().enumerate().fold(0, |acc, (p, &byte)| {
            (0..8).filter(|b| byte >> b & 1 != 0).fold(acc, |a, b| a ^ self.data[8 * p + b])
        })
    }
}

/// `A_n` as columns, one per register bit.
fn zero_feed(net: &CrcNetwork, octets: usize) -> Vec<u64> {
    (0..8 * net.reg_bytes).map(|i| zeros(net, 1u64 << i, octets)).collect()
}

/// `A_n·r`: `n` zero octets fed to register `r`, one octet at a time.
fn zeros(net: &CrcNetwork, r: u64, n: usize) -> u64 {
    let one = CrcNetwork::new(net.params, 1);
    (0..n).fold(r, |r, _| one.step(r, &[0], 1))
}

/// The inverse of a square GF(2) matrix given by columns (Gauss–Jordan); panics if singular,
/// which a CRC's zero-feed matrix never is.
fn invert(cols: &[u64]) -> Vec<u64> {
    let n = cols.len();
    // Rows of [M | I]: row j holds bit j of every column, then the identity.
    let mut rows: Vec<(u64, u64)> = (0..n)
        .map(|j| (cols.iter().enumerate().fold(0, |a, (i, c)| a | ((c >> j & 1) << i)), 1u64 << j))
        .collect();
    for col in 0..n {
        let p = (col..n).find(|&r| rows[r].0 >> col & 1 != 0).expect("a CRC zero-feed matrix is invertible");
        rows.swap(col, p);
        let pivot = rows[col];
        for (r, row) in rows.iter_mut().enumerate() {
            if r != col && row.0 >> col & 1 != 0 {
                row.0 ^= pivot.0;
                row.1 ^= pivot.1;
            }
        }
    }
    // Row j of the inverse is rows[j].1; back to columns.
    (0..n).map(|i| (0..n).fold(0, |a, j| a | ((rows[j].1 >> i & 1) << j))).collect()
}

#[cfg(test)]
mod tests {
    use super::super::matrix::apply;
    use super::*;
    use offload_driver::crc::CrcKind;
    use rand::{Rng, SeedableRng};

    /// The pipeline's arithmetic against the software CRC, for every catalogue CRC, every
    /// width and every length up to three beats, plus long ones.
    #[test]
    fn pipeline_model_matches_software_crc_every_kind_width_and_length() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for kind in CrcKind::ALL {
            for w in [1, 2, 4, 8, 16, 32, 64] {
                let p = CrcPipeline::new(CrcNetwork::new(kind.params(), w));
                for len in (0..=3 * w + 1).chain([1000, 1501]) {
                    let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    assert_eq!(p.checksum(&data), kind.checksum(&data), "{kind:?} W={w} len={len}");
                }
            }
        }
    }

    #[test]
    fn unshift_undoes_the_zero_feed() {
        let p = CrcPipeline::new(CrcNetwork::new(CrcKind::Crc32c.params(), 64));
        let mut rng = rand::rngs::StdRng::seed_from_u64(6);
        for (b, u) in p.unshift.iter().enumerate() {
            for _ in 0..20 {
                let r = rng.gen::<u32>() as u64;
                assert_eq!(apply(u, zeros(&p.net, r, 1 << b)), r, "U_{}", 1 << b);
            }
        }
        assert_eq!(p.stages(), 6);
    }

    /// `U_n` for every `n` up to a beat, not only powers of two (the PEC stage's per-lane
    /// matrices): the CRC of a beat's first `k` octets is `U_{W−k}` of the beat with the rest
    /// zeroed, fed from the same register.
    #[test]
    fn unshift_by_finishes_a_masked_beat_every_k() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for kind in [CrcKind::Crc8Smbus, CrcKind::Crc32c] {
            for w in [1usize, 2, 4, 8] {
                let net = CrcNetwork::new(kind.params(), w);
                let p = CrcPipeline::new(net.clone());
                for k in 0..=w {
                    let r = rng.gen::<u64>() & crate::bits::low_ones(8 * net.reg_bytes);
                    let beat: Vec<u8> = (0..w).map(|_| rng.gen()).collect();
                    let mut masked = beat.clone();
                    masked[k..].fill(0);
                    let x = net.step(r, &masked, (1u64 << w) - 1);
                    let keep = if k == 0 { 0 } else { (1u64 << k) - 1 };
                    assert_eq!(apply(&p.unshift_by(w - k), x), net.step(r, &beat, keep), "{kind:?} W={w} k={k}");
                }
            }
        }
    }
    /// The MPA receiver's step ([`crate::mpa_rx::crc_check`]): a beat covering `m` word
    /// lanes is `A_{4m}·R ⊕ L(w)`, `w` the covered words right-aligned behind `N − m` zero
    /// lanes: the network's own step of those octets, at W = 8 and 64 and every `m`.
    #[test]
    fn advance_by_and_a_right_aligned_remainder_are_a_partial_step() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for w in [8usize, 64] {
            let net = CrcNetwork::new(CrcKind::Crc32c.params(), w);
            let p = CrcPipeline::new(net.clone());
            for m in 0..=w / 4 {
                let r = rng.gen::<u32>() as u64;
                let d: Vec<u8> = (0..4 * m).map(|_| rng.gen()).collect();
                let mut win = vec![0u8; w];
                win[w - 4 * m..].copy_from_slice(&d);
                let step = apply(&p.advance_by(4 * m), r) ^ p.data_remainder(&win);
                // The network's step reads `keep`'s octets and ignores the rest.
                let keep = if 4 * m == 64 { u64::MAX } else { (1u64 << (4 * m)) - 1 };
                let mut beat = d.clone();
                beat.resize(w, rng.gen());
                assert_eq!(step, net.step(r, &beat, keep), "W={w} m={m}");
            }
        }
    }
}
