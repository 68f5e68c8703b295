//! Conversions between rust-hdl's `Bits<N>` and the byte/mask views the block models use.

use rust_hdl::prelude::*;

/// `n` low bits set (`n` ≥ 64 gives all ones): the `tkeep` of `n` valid octets.
pub fn low_ones(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The low 64 bits of a `Bits<N>` (ports up to 64 bits wide: keeps, counters, fields).
pub fn bits_to_u64<const N: usize>(b: &Bits<N>) -> u64 {
    (0..N.min(64)).fold(0, |acc, i| acc | ((b.get_bit(i) as u64) << i))
}

/// Little-endian bytes into a `Bits<N>` (byte 0 in bits 7:0), for wide data ports.
pub fn bytes_to_bits<const N: usize>(bytes: &[u8]) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for i in 0..N {
        if bytes.get(i / 8).is_some_and(|x| x >> (i % 8) & 1 != 0) {
            b = b.replace_bit(i, true);
        }
    }
    b
}

/// The octets of a `Bits<N>` (octet 0 from bits 7:0), for wide data ports.
pub fn octets<const N: usize>(b: &Bits<N>) -> Vec<u8> {
    let mut v = vec![0u8; N.div_ceil(8)];
    for (i, o) in v.iter_mut().enumerate() {
        for j in 0..8.min(N - 8 * i) {
            if b.get_bit(8 * i + j) {
                *o |= 1 << j;
            }
        }
    }
    v
}
