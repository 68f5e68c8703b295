//! The AXI4-Stream bundle every streaming block uses, and the blocks that only move beats.
//!
//! [`AxisSource`] is the master side of a stream (drives `tdata`, `tkeep`, `tvalid`, `tlast`;
//! reads `tready`), [`AxisSink`] its mirror. `#[join]` gives `AxisSource::join(&mut a.m, &mut
//! b.s)` to connect two children inside a parent's `#[hdl_gen]`, and `link` (same type on both
//! sides) passes a parent's port bundle through to a child's. Side channels that belong to a
//! frame (`s_len`, a message's header fields) sit beside the bundle as ordinary ports.
//!
//! rust-hdl names a bundle field `s$tdata` in Verilog. At the boundary a NIC shell
//! instantiates, the shipped module flattens those names to `s_tdata`
//! ([`crate::registry::flatten_ports`]), and [`crate::ports::ports_of`] reports them the same
//! way, so the Verilator harness, the docs and a shell all see plain AXI-Stream names.

pub mod entry_queue;
pub mod skid;

pub use entry_queue::EntryQueue;
pub use skid::{AxisSkid, AxisSkidPreload, AxisStageSkid, AxisStageSkidPreload};

use rust_hdl::prelude::*;

/// The master side of an AXI4-Stream: `D = 8·K` data bits, `K` octets (`tkeep` bits).
#[derive(LogicInterface, Default)]
#[join = "AxisSink"]
pub struct AxisSource<const D: usize, const K: usize> {
    pub tdata: Signal<Out, Bits<D>>,
    pub tkeep: Signal<Out, Bits<K>>,
    pub tvalid: Signal<Out, Bit>,
    pub tlast: Signal<Out, Bit>,
    pub tready: Signal<In, Bit>,
}

/// The slave side of an AXI4-Stream.
#[derive(LogicInterface, Default)]
#[join = "AxisSource"]
pub struct AxisSink<const D: usize, const K: usize> {
    pub tdata: Signal<In, Bits<D>>,
    pub tkeep: Signal<In, Bits<K>>,
    pub tvalid: Signal<In, Bit>,
    pub tlast: Signal<In, Bit>,
    pub tready: Signal<Out, Bit>,
}
