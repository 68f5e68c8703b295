pub mod api;
pub mod vcd;

pub use api::*;
