//! A GF(2) matrix leaf, `y = M·x ⊕ c`: the pipelined CRC engine's networks (the data
//! remainder, the state advance, the unshift stages and the finishing permutation) are all of
//! this one shape, each computed at elaboration from the CRC's parameters ([`super::pipeline`])
//! and never written by hand. A leaf the way rust-hdl's `DFF` is: a Rust `update` for the
//! simulator and a `Verilog::Custom` body (one flat parity per output bit, which Yosys maps in
//! seconds), both from the same columns, and no control logic.

use crate::bits::{bits_to_u64, low_ones};
use rust_hdl::prelude::*;
use std::sync::Arc;

/// `I` input bits, `O ≤ 64` output bits.
#[derive(LogicBlock)]
pub struct GfMatrix<const I: usize, const O: usize> {
    pub x: Signal<In, Bits<I>>,
    pub y: Signal<Out, Bits<O>>,
    // Invisible to rust-hdl (leading underscore): column i is the output for input bit i alone.
    _columns: Arc<Vec<u64>>,
    _constant: u64,
    _fresh: bool,
}

impl<const I: usize, const O: usize> GfMatrix<I, O> {
    /// `columns[i]`: the output when only input bit `i` is set (and `constant` is 0).
    pub fn new(columns: Vec<u64>, constant: u64) -> Self {
        assert_eq!(columns.len(), I, "GfMatrix<{I}, {O}>: one column per input bit");
        assert!(O <= 64 && columns.iter().all(|&c| c & !low_ones(O) == 0) && constant & !low_ones(O) == 0);
        Self {
            x: Default::default(),
            y: Default::default(),
            _columns: Arc::new(columns),
            _constant: constant,
            _fresh: true,
        }
    }

    /// `M·x ⊕ c` on a value of up to 64 bits (the model the tests use).
    pub fn apply(&self, x: u64) -> u64 {
        apply(&self._columns, x) ^ self._constant
    }
}

/// `M` as `A ⊕ B`, each output's inputs divided between the two halves (the first
/// `⌈n/2⌉` to `A`): two trees of half the fan-in, whose results can be registered and XORed a
/// clock later.
pub fn split_rows(columns: &[u64], out_bits: usize) -> (Vec<u64>, Vec<u64>) {
    let mut a = vec![0u64; columns.len()];
    let mut b = vec![0u64; columns.len()];
    for j in 0..out_bits {
        let ins: Vec<usize> = (0..columns.len()).filter(|&i| columns[i] >> j & 1 != 0).collect();
        let half = ins.len().div_ceil(2);
        for (n, &i) in ins.iter().enumerate() {
            if n < half {
                a[i] |= 1 << j;
            } else {
                b[i] |= 1 << j;
            }
        }
    }
    (a, b)
}

/// `M·x` for `x` given bit by bit from the low end, up to 64 bits.
pub fn apply(columns: &[u64], x: u64) -> u64 {
    columns.iter().enumerate().filter(|(i, _)| *i < 64 && x >> i & 1 != 0).fold(0, |a, (_, c)| a ^ c)
}

impl<const I: usize, const O: usize> Logic for GfMatrix<I, O> {
    fn update(&mut self) {
        // rust-hdl calls a leaf on every settle pass; recompute only when the input moved.
        if self._fresh || self.x.changed {
            self._fresh = false;
            let x = self.x.val();
            let y = if I <= 64 {
                apply(&self._columns, bits_to_u64(&x))
            } else {
                (0..I).filter(|&i| x.get_bit(i)).fold(0, |a, i| a ^ self._columns[i])
            };
            self.y.next = (y ^ self._constant).into();
        }
    }

    fn connect(&mut self) {
        self.y.connect();
    }

    fn hdl(&self) -> Verilog {
        use std::fmt::Write;
        let mut s = String::new();
        writeln!(s, "wire [{}:0] m_y;", O - 1).unwrap();
        for j in 0..O {
            let mask: Vec<bool> = self._columns.iter().map(|c| c >> j & 1 != 0).collect();
            let c = self._constant >> j & 1;
            if mask.iter().any(|&b| b) {
                writeln!(s, "assign m_y[{j}] = ^(x & {I}'h{}) ^ 1'b{c};", super::verilog::hex(&mask)).unwrap();
            } else {
                writeln!(s, "assign m_y[{j}] = 1'b{c};").unwrap();
            }
        }
        s.push_str("always @(*) y = m_y;\n");
        Verilog::Custom(s)
    }
}
