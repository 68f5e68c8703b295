//! A clocked counter and a blinker Verilated with Verilator 5 through the patched `verilator`
//! crate and driven with the patched `verilated` crate; the tests are in `tests/`.

/// `rtl/counter.v`, built with `--trace`.
#[cfg(not(no_verilator))]
pub mod counter {
    include!(concat!(env!("OUT_DIR"), "/Counter.rs"));
}

/// `rtl/blink.v`, built without `--trace`.
#[cfg(not(no_verilator))]
pub mod blink {
    include!(concat!(env!("OUT_DIR"), "/Blink.rs"));
}
