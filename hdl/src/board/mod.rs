//! The Opal Kelly XEM7010 (Artix-7 XC7A50T/75T, FrontPanel over USB 2.0) board design.
//!
//! - [`bridge`] (always built): FrontPanel endpoint signals ↔ `OffloadTop`, and
//!   [`bridge::BoardCore`], the whole design minus the vendor cells, which the registry ships
//!   (`board_core_w4`) and `offload-sim` Verilates and tests.
//! - `xem7010` (cargo feature `board`): the top Vivado builds — `okHost`, the wire/trigger/pipe
//!   endpoint cells of `rust-hdl-ok-core` and the XEM7010 pins of `rust-hdl-bsp-ok-xem7010`
//!   around `BoardCore`. The feature needs Opal Kelly's FrontPanel SDK (`OK_FRONTPANEL_DIR`);
//!   see docs/TOP.md.

pub mod bridge;
pub mod fifo;
pub mod width;
#[cfg(feature = "board")]
pub mod xem7010;
