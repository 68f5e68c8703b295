//! Corundum's register interface as a bundle, and the stream tap the register block counts
//! frames with.
//!
//! [`RegBus`] is the side that holds the registers (the register block, `OffloadTop`'s port),
//! [`RegMaster`] the side that requests accesses (the FrontPanel bridge, Corundum's
//! `axil_reg_if`). A field named `reg_bus` flattens to Corundum's own names at a shipped
//! boundary (`reg_wr_addr` …; see [`crate::ports::ports_of`]: `reg` alone is a Verilog keyword).
//!
//! Timing: a write is requested by `wr_en` with `wr_addr/data/strb` and takes effect at the
//! edge that raises `wr_ack` for one clock; a read is requested by `rd_en` with `rd_addr`, and
//! `rd_data` is valid while `rd_ack` is high. The requester holds `en` until it sees `ack`.
//! `wr_wait`/`rd_wait` are Corundum's "access in progress, hold on" outputs, present so that a
//! Corundum application block connects port for port: the register block acknowledges a write
//! the clock after its request (`wr_wait` always 0) and a read three clocks after, with
//! `rd_wait` high in the two clocks between (see [`super::regs`]).

use rust_hdl::prelude::*;

/// The register side of Corundum's `reg_*` interface (8-bit byte address, 32-bit data).
#[derive(LogicInterface, Default)]
#[join = "RegMaster"]
pub struct RegBus {
    pub wr_addr: Signal<In, Bits<8>>,
    pub wr_data: Signal<In, Bits<32>>,
    pub wr_strb: Signal<In, Bits<4>>,
    pub wr_en: Signal<In, Bit>,
    pub wr_wait: Signal<Out, Bit>,
    pub wr_ack: Signal<Out, Bit>,
    pub rd_addr: Signal<In, Bits<8>>,
    pub rd_en: Signal<In, Bit>,
    pub rd_data: Signal<Out, Bits<32>>,
    pub rd_wait: Signal<Out, Bit>,
    pub rd_ack: Signal<Out, Bit>,
}

/// The requesting side of [`RegBus`].
#[derive(LogicInterface, Default)]
#[join = "RegBus"]
pub struct RegMaster {
    pub wr_addr: Signal<Out, Bits<8>>,
    pub wr_data: Signal<Out, Bits<32>>,
    pub wr_strb: Signal<Out, Bits<4>>,
    pub wr_en: Signal<Out, Bit>,
    pub wr_wait: Signal<In, Bit>,
    pub wr_ack: Signal<In, Bit>,
    pub rd_addr: Signal<Out, Bits<8>>,
    pub rd_en: Signal<Out, Bit>,
    pub rd_data: Signal<In, Bits<32>>,
    pub rd_wait: Signal<In, Bit>,
    pub rd_ack: Signal<In, Bit>,
}

/// A stream's handshake, watched (not driven): the register block counts the frames a block
/// accepts with it.
#[derive(LogicInterface, Default)]
pub struct StreamTap {
    pub tvalid: Signal<In, Bit>,
    pub tready: Signal<In, Bit>,
    pub tlast: Signal<In, Bit>,
}
