//! MPA transmit offload (RFC 5044 §4): ULPDUs in, the FPDU byte stream out, Markers inserted
//! every 512 octets, PAD and CRC-32C appended — byte-identical to `offload_driver::mpa::Framer`.
//!
//! See [`model`] for the datapath; the Verilog in [`verilog`] mirrors it.

pub mod model;
pub mod verilog;

pub use model::{MpaTxModel, Phase, TxIn, TxOut};

#[cfg(test)]
mod tests;
