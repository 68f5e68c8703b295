//! rust-hdl's own simulator behind [`ClockedModel`], so the testbench that drives the Verilated
//! Verilog drives the rust-hdl description too (short runs: it settles ~10^4 clocks/s).
//!
//! rust-hdl has no generic by-name port setter, so each block lists its ports once with
//! [`hdl_model!`](crate::hdl_model), which builds typed accessors; [`HdlModel::new`] checks that
//! list against the ports the block itself declares ([`ports_of`]), so a port missing from it,
//! misspelt or extra is an error, not a silent gap.

use super::model::{BenchError, ClockedModel, PortId};
use crate::bits::{bits_to_u64, bytes_to_bits, octets};
use crate::ports::{ports_of, Dir};
use rust_hdl::prelude::*;

/// A port value as octets (little-endian), for the accessors [`hdl_model!`](crate::hdl_model)
/// generates.
pub trait PortValue: Sized {
    fn from_octets(v: &[u8]) -> Self;
    fn to_octets(&self, out: &mut [u8]);
}

impl<const N: usize> PortValue for Bits<N> {
    fn from_octets(v: &[u8]) -> Self {
        if N <= 64 {
            let mut w = [0u8; 8];
            let n = v.len().min(8);
            w[..n].copy_from_slice(&v[..n]);
            let x = u64::from_le_bytes(w) & crate::bits::low_ones(N);
            x.into()
        } else {
            bytes_to_bits::<N>(v)
        }
    }
    fn to_octets(&self, out: &mut [u8]) {
        let v = if N <= 64 { bits_to_u64(self).to_le_bytes().to_vec() } else { octets(self) };
        for (i, o) in out.iter_mut().enumerate() {
            *o = v.get(i).copied().unwrap_or(0);
        }
    }
}

impl PortValue for bool {
    fn from_octets(v: &[u8]) -> Self {
        v.first().is_some_and(|b| b & 1 != 0)
    }
    fn to_octets(&self, out: &mut [u8]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = if i == 0 { *self as u8 } else { 0 };
        }
    }
}

/// One port's accessors: its field path (`s.tdata`), a setter and a getter.
pub struct HdlPort<B> {
    pub path: &'static str,
    pub set: fn(&mut B, &[u8]),
    pub get: fn(&B, &mut [u8]),
}

struct Entry<B> {
    name: String,
    dir: Dir,
    width: usize,
    set: fn(&mut B, &[u8]),
    get: fn(&B, &mut [u8]),
}

/// A rust-hdl block simulated by rust-hdl, clock by clock.
pub struct HdlModel<B: Block> {
    pub uut: B,
    ports: Vec<Entry<B>>,
    clock: fn(&mut B, bool),
    cycle: u64,
}

impl<B: Block> HdlModel<B> {
    /// Wraps `uut`, whose ports (all but the clock) are `accessors`, in the order the block
    /// declares them; `clock` drives the clock input.
    pub fn new(mut uut: B, accessors: Vec<HdlPort<B>>, clock: fn(&mut B, bool)) -> Result<HdlModel<B>, BenchError> {
        uut.connect_all();
        let declared: Vec<_> = ports_of(&uut).into_iter().filter(|p| !p.is_clock).collect();
        let listed: Vec<String> = accessors.iter().map(|a| a.path.replace(' ', "").replace('.', "$")).collect();
        let names: Vec<&str> = declared.iter().map(|p| p.hdl_name.as_str()).collect();
        if names != listed {
            return Err(BenchError::Port(format!("hdl_model! lists {listed:?}, the block declares {names:?}")));
        }
        let ports = declared
            .into_iter()
            .zip(accessors)
            .map(|(p, a)| Entry { name: p.name, dir: p.dir, width: p.width, set: a.set, get: a.get })
            .collect();
        let mut m = HdlModel { uut, ports, clock, cycle: 0 };
        m.eval();
        Ok(m)
    }
}

fn settle<B: Block>(uut: &mut B) {
    assert!(simulate(uut, 500), "rust-hdl simulation did not settle in 500 passes (a combinational loop?)");
}

impl<B: Block> ClockedModel for HdlModel<B> {
    fn port_id(&self, name: &str) -> Option<PortId> {
        self.ports.iter().position(|p| p.name == name).map(PortId)
    }
    fn port_count(&self) -> usize {
        self.ports.len()
    }
    fn port_info(&self, p: PortId) -> (&str, Dir, usize) {
        let e = &self.ports[p.0];
        (&e.name, e.dir, e.width)
    }
    fn set(&mut self, p: PortId, v: u64) {
        self.set_bytes(p, &v.to_le_bytes());
    }
    fn get(&self, p: PortId) -> u64 {
        let mut b = [0u8; 8];
        self.get_bytes(p, &mut b);
        u64::from_le_bytes(b)
    }
    fn set_bytes(&mut self, p: PortId, bytes: &[u8]) {
        let e = &self.ports[p.0];
        assert_eq!(e.dir, Dir::In, "{} is an output", e.name);
        (e.set)(&mut self.uut, bytes);
    }
    fn get_bytes(&self, p: PortId, out: &mut [u8]) {
        (self.ports[p.0].get)(&self.uut, out);
    }
    fn eval(&mut self) {
        settle(&mut self.uut);
    }
    fn tick(&mut self) {
        (self.clock)(&mut self.uut, true);
        settle(&mut self.uut);
        (self.clock)(&mut self.uut, false);
        settle(&mut self.uut);
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}

/// Builds an [`HdlModel`] of `uut` (type `B`, clock port `clock`) from its port fields in
/// declaration order, bundle fields as paths: `hdl_model!(uut, MyBlock<8>, [reset, s.tdata, …])`.
#[macro_export]
macro_rules! hdl_model {
    ($uut:expr, $B:ty, [$($($f:ident).+),* $(,)?]) => {
        $crate::testbench::HdlModel::<$B>::new(
            $uut,
            vec![$(
                $crate::testbench::HdlPort::<$B> {
                    path: stringify!($($f).+),
                    set: |b: &mut $B, v: &[u8]| b.$($f).+.next = $crate::testbench::PortValue::from_octets(v),
                    get: |b: &$B, o: &mut [u8]| $crate::testbench::PortValue::to_octets(&b.$($f).+.val(), o),
                }
            ),*],
            |b: &mut $B, v: bool| b.clock.next = v.into(),
        )
    };
}
