//! `offload-hdl`: the hardware blocks of the offload, written in rust-hdl and emitted as
//! Verilog.
//!
//! - [`axis`]: the AXI4-Stream bundle every streaming block uses, and the skid buffer.
//! - [`crc`]: the streaming parallel CRC engine and the CRC step leaf; its XOR network is
//!   computed here from the same Rocksoft parameters the software CRCs use
//!   (`offload_driver::crc`).
//! - [`mpa_tx`]: the MPA framer (RFC 5044 FPDUs, Markers, CRC-32C).
//! - [`testbench`]: the one testbench of every streaming block (traffic generator, rust-hdl
//!   and Verilator behind one model trait, lockstep comparison).
//! - [`registry`]: the list of every shipped (block, parameters) instance, which the CLI
//!   (`offload verilog`, `offload synth`), the lint tests and the Verilator harness in
//!   `offload-sim` all iterate.
//! - [`ports`]: a block's port list read from the block itself.
//! - [`mctp_tx`]: the MCTP packetizer (NVMe-MI MIC, SMBus binding).
//! - [`mctp_rx`]: the MCTP depacketizer (reassembly, SMBus PEC, NVMe-MI MIC check).
//! - [`test_support`]: random MCTP traffic and the software reference, for the block tests
//!   and the co-simulation.
//! - [`tools`]: Verilator lint, Yosys and nextpnr runners.
//! - [`top`]: `OffloadTop`, the blocks behind a register block, for a NIC shell.
//! - [`board`]: the Opal Kelly XEM7010 board design (FrontPanel bridge; the vendor top behind
//!   the `board` feature).

pub mod axis;
pub mod bits;
pub mod board;
pub mod crc;
pub mod mctp_rx;
pub mod mctp_tx;
pub mod mpa_rx;
pub mod mpa_tx;
pub mod ports;
pub mod registry;
pub mod test_support;
pub mod testbench;
pub mod tools;
pub mod top;

pub use registry::{catalogue, BlockEntry, Generated};
