//! `offload-hdl`: the hardware blocks of the offload, written in rust-hdl and emitted as
//! Verilog.
//!
//! - [`crc`]: the streaming parallel CRC engine; its XOR network is computed here from the
//!   same Rocksoft parameters the software CRCs use (`offload_driver::crc`).
//! - [`registry`]: the list of every shipped (block, parameters) instance, which the CLI
//!   (`offload verilog`, `offload synth`), the lint tests and the Verilator harness in
//!   `offload-sim` all iterate.
//! - [`ports`]: a block's port list read from the block itself.
//! - [`mctp_tx`]: the MCTP packetizer (NVMe-MI MIC, SMBus binding).
//! - [`tools`]: Verilator lint, Yosys and nextpnr runners.
//! - [`top`]: `OffloadTop`, the blocks behind a register block, for a NIC shell.
//! - [`board`]: the Opal Kelly XEM7010 board design (FrontPanel bridge; the vendor top behind
//!   the `board` feature).

pub mod bits;
pub mod board;
pub mod crc;
pub mod mctp_tx;
pub mod mpa_tx;
pub mod ports;
pub mod registry;
pub mod tools;
pub mod top;

pub use registry::{catalogue, BlockEntry, Generated};
