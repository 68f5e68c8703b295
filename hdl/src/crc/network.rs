//! The arithmetic of the streaming CRC engine, computed at elaboration from the Rocksoft
//! parameters: the GF(2) matrix of one zero-state W-byte step (found by running the bitwise CRC
//! on unit vectors, never written by hand), the partial-beat scheme, and a Rust model of one
//! clock of the engine that the rust-hdl simulator runs and the emitted Verilog mirrors.
//!
//! # Register layout ("consumption order")
//! The state register `R` holds the CRC register as `m = width/8` bytes in the order the
//! shift register consumes them: byte `i` of `R` is XORed into the `i`-th next data byte. For a
//! reflected CRC that is the Rocksoft register itself (low byte first); for a non-reflected
//! one it is the register byte-swapped (high byte first). Either way, bit `b` of byte `i`
//! lines up with bit `b` of a data byte, so one scheme serves both kinds.
//!
//! # Partial beats with one network
//! Feeding bytes `d[0..k]` from state `R` equals feeding `d[i] ^ R[i]` from state 0 and then
//! XORing in the register bytes `R[k..m]` that were not consumed, moved down to `R[0..m-k]`
//! (they only shift while zeros are fed, no feedback reaches them). From state 0, leading zero
//! bytes change nothing. So on a beat with `k` valid bytes the engine forms `v = d ^ R`
//! (register in the first `m` bytes), places `v[0..k]` right-aligned behind `W-k` zero bytes
//! in a `W`-byte window, feeds the window to the single zero-state network `L_W` and XORs in
//! the register bytes `k..m` that were not consumed: `R' = L_W(window) ^ (R >> 8k)`. On full
//! beats this is the ordinary parallel CRC. Bytes at and above `k` never reach the network, so
//! `tkeep` needs no masking, and the overflow depends on the register only. Cost: one network,
//! a byte shifter on the window (byte `j` picks from `j+1` sources) and a small one on `R`.
//! Measured in synth_xilinx at W=8 (docs/PERFORMANCE.md) against ~2350 LUTs for the usual
//! network-per-byte-count-plus-mux.

use offload_driver::crc::CrcParams;

/// Everything the generator needs for one (CRC, W) instance.
#[derive(Clone, Debug)]
pub struct CrcNetwork {
    pub params: CrcParams,
    /// Bytes per beat.
    pub bytes: usize,
    /// CRC width in bytes (`m`).
    pub reg_bytes: usize,
    /// `columns[i]`: the contribution to `R'` of window bit `i` (byte `i/8`, bit `i%8`).
    pub columns: Vec<u64>,
    /// `R` after reset and after each frame.
    pub init_r: u64,
    /// `crc bit j = R bit out_perm[j] ^ xorout bit j`.
    pub out_perm: Vec<usize>,
}

fn reflect(x: u64, width: u32) -> u64 {
    x.reverse_bits() >> (64 - width)
}

impl CrcNetwork {
    /// Builds the network; panics (at elaboration) on parameters the scheme does not cover.
    pub fn new(params: CrcParams, bytes: usize) -> CrcNetwork {
        assert!(
            params.width % 8 == 0 && (8..=64).contains(&params.width),
            "{}: CRC width {} is not a multiple of 8 in 8..=64",
            params.name,
            params.width
        );
        assert!(
            [1, 2, 4, 8, 16, 32, 64].contains(&bytes),
            "beat width {bytes} bytes is not one of 1,2,4,...,64"
        );
        let width = params.width as u32;
        let m = width as usize / 8;
        let mut net = CrcNetwork {
            params,
            bytes,
            reg_bytes: m,
            columns: Vec::new(),
            init_r: 0,
            out_perm: Vec::new(),
        };
        let s_init = if params.refin { reflect(params.init, width) } else { params.init };
        net.init_r = net.s_to_r(s_init);
        net.columns = (0..8 * bytes)
            .map(|i| {
                let mut unit = vec![0u8; bytes];
                unit[i / 8] = 1 << (i % 8);
                net.s_to_r(net.advance(0, &unit))
            })
            .collect();
        // Output bit j comes from Rocksoft register bit s_j, which sits at R bit r_of_s(s_j).
        net.out_perm = (0..width as usize)
            .map(|j| {
                let s_bit = if params.refin == params.refout { j } else { width as usize - 1 - j };
                net.s_to_r(1 << s_bit).trailing_zeros() as usize
            })
            .collect();
        net
    }

    fn mask(&self) -> u64 {
        u64::MAX >> (64 - self.params.width as u32)
    }

    /// Bit-serial Rocksoft register update (the definition; used only to find the matrix).
    fn advance(&self, mut s: u64, data: &[u8]) -> u64 {
        let w = self.params.width as u32;
        let mask = self.mask();
        if self.params.refin {
            let poly = reflect(self.params.poly, w);
            for &b in data {
                s ^= b as u64;
                for _ in 0..8 {
                    s = if s & 1 != 0 { (s >> 1) ^ poly } else { s >> 1 };
                }
            }
        } else {
            for &b in data {
                s ^= (b as u64) << (w - 8);
                for _ in 0..8 {
                    s = if s >> (w - 1) & 1 != 0 { (s << 1) ^ self.params.poly } else { s << 1 };
                    s &= mask;
                }
            }
        }
        s
    }

    /// Rocksoft register → consumption-order register (a byte swap for non-reflected CRCs).
    fn s_to_r(&self, s: u64) -> u64 {
        if self.params.refin {
            s
        } else {
            let m = self.reg_bytes;
            (0..m).fold(0, |r, i| r | ((s >> (8 * (m - 1 - i)) & 0xff) << (8 * i)))
        }
    }

    /// Width of the shift-amount signal: it holds 0..=W.
    pub fn shift_bits(&self) -> usize {
        (usize::BITS - self.bytes.leading_zeros()) as usize
    }

    /// Number of valid bytes the engine derives from `tkeep` (on a last beat): one more than
    /// the index of the highest set bit, so a contiguous `tkeep` gives its popcount and an
    /// all-zero `tkeep` (a null last beat) gives 0.
    pub fn valid_bytes(keep: u64) -> usize {
        64 - keep.leading_zeros() as usize
    }

    /// One accepted beat: the register after `data` (exactly `W` bytes) of which the first
    /// `valid_bytes(keep)` are valid (the caller forces all ones on non-last beats, as the
    /// hardware does). This is the same computation the Verilog performs, bit for bit.
    ///
    /// Bytes at and above `k` never reach the network (they are shifted out of the window and
    /// the overflow holds only register bytes), so no masking is needed; a non-contiguous
    /// `tkeep` counts as its contiguous hull.
    pub fn step(&self, r: u64, data: &[u8], keep: u64) -> u64 {
        let w = self.bytes;
        let m = self.reg_bytes;
        debug_assert_eq!(data.len(), w);
        let k = Self::valid_bytes(keep);
        let shift = w - k;
        let mut out = 0u64;
        // Window byte j = (d ^ R)[j - shift] for j >= shift; zero bytes in front.
        for p in 0..k {
            let mut bits = data[p] ^ if p < m { (r >> (8 * p)) as u8 } else { 0 };
            let j = p + shift;
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                out ^= self.columns[8 * j + b];
                bits &= bits - 1;
            }
        }
        // Overflow: register bytes k..m-1 moved down to 0..m-1-k.
        if k < m {
            out ^= r >> (8 * k);
        }
        out
    }

    /// The finished CRC from a register value: bit permutation and `xorout`.
    pub fn finish(&self, r: u64) -> u64 {
        let crc = self
            .out_perm
            .iter()
            .enumerate()
            .fold(0u64, |c, (j, &p)| c | ((r >> p & 1) << j));
        crc ^ self.params.xorout
    }

    /// The register whose [`CrcNetwork::finish`] is `crc` (the permutation undone).
    pub fn unfinish(&self, crc: u64) -> u64 {
        let c = crc ^ self.params.xorout;
        self.out_perm.iter().enumerate().fold(0u64, |r, (j, &p)| r | ((c >> j & 1) << p))
    }

    /// The register after `n ≤ W` zero octets: with the residue check of a message that ends
    /// `n` octets before a word's end, the target a whole zero-padded word is compared with.
    pub fn zeros_after(&self, r: u64, n: usize) -> u64 {
        self.step(r, &vec![0; self.bytes], crate::bits::low_ones(n))
    }

    /// CRC of a whole buffer through [`CrcNetwork::step`], beat by beat, the last beat partial:
    /// the model the hardware must match.
    pub fn checksum(&self, data: &[u8]) -> u64 {
        let w = self.bytes;
        let mut r = self.init_r;
        let mut chunks = data.chunks(w).peekable();
        if data.is_empty() {
            return self.finish(self.step(r, &vec![0; w], 0));
        }
        while let Some(c) = chunks.next() {
            let mut beat = c.to_vec();
            beat.resize(w, 0);
            let keep = if c.len() == 64 { u64::MAX } else { (1u64 << c.len()) - 1 };
            r = self.step(r, &beat, keep);
            if chunks.peek().is_none() {
                return self.finish(r);
            }
        }
        unreachable!()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use offload_driver::crc::CrcKind;
    use rand::{Rng, SeedableRng};

    /// The model (and so the matrix and the partial-beat scheme) against the software CRC,
    /// for every catalogue CRC, every width and every length up to 3 beats plus long ones.
    #[test]
    fn model_matches_software_crc_every_kind_width_and_length() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for kind in CrcKind::ALL {
            for w in [1, 2, 4, 8, 16, 32, 64] {
                let net = CrcNetwork::new(kind.params(), w);
                assert_eq!(net.checksum(b"123456789"), kind.params().check, "{kind:?} W={w}");
                for len in (0..=3 * w + 1).chain([1000, 1501]) {
                    let data: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
                    assert_eq!(
                        net.checksum(&data),
                        kind.checksum(&data),
                        "{kind:?} W={w} len={len}"
                    );
                }
            }
        }
    }

    #[test]
    fn matrix_columns_are_nonzero_and_distinct() {
        // A zero column would mean a data bit that cannot change the CRC.
        let net = CrcNetwork::new(CrcKind::Crc32c.params(), 8);
        assert!(net.columns.iter().all(|&c| c != 0));
        let mut c = net.columns.clone();
        c.sort();
        c.dedup();
        assert_eq!(c.len(), 64);
    }
}
