//! Two models of one block run on the same inputs, clock by clock, every output compared before
//! every edge: rust-hdl's simulation of a description against the Verilated Verilog emitted
//! from it. They can disagree where rust-hdl and Verilog size an expression differently (an
//! integer literal is 32 bits in Verilog; `bit_cast` only masks there), which neither model's
//! own comparison with the software would pin down to a cycle and a port.

use super::model::{BenchError, ClockedModel, PortId};
use crate::ports::Dir;

/// The first cycle on which the two models' outputs differed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub cycle: u64,
    pub port: String,
    /// Little-endian octets of the port, in each model.
    pub a: Vec<u8>,
    pub b: Vec<u8>,
}

/// `A` and `B` in lockstep; port ids are `A`'s. Reads come from `A`.
pub struct Lockstep<A: ClockedModel, B: ClockedModel> {
    pub a: A,
    pub b: B,
    /// `A`'s port id → `B`'s.
    map: Vec<PortId>,
    outputs: Vec<PortId>,
    compared: u64,
    first: Option<Mismatch>,
}

impl<A: ClockedModel, B: ClockedModel> Lockstep<A, B> {
    /// Pairs the ports by name; both models must have the same ports (clocks aside), with the
    /// same directions and widths.
    pub fn new(a: A, b: B) -> Result<Lockstep<A, B>, BenchError> {
        let mut map = Vec::new();
        let mut outputs = Vec::new();
        for i in 0..a.port_count() {
            let (name, dir, width) = a.port_info(PortId(i));
            let j = b.port_id(name).ok_or_else(|| BenchError::Port(format!("`{name}` is missing from the second model")))?;
            let (_, d2, w2) = b.port_info(j);
            if (dir, width) != (d2, w2) {
                return Err(BenchError::Port(format!("`{name}`: {dir:?} {width} bits against {d2:?} {w2} bits")));
            }
            map.push(j);
            if dir == Dir::Out {
                outputs.push(PortId(i));
            }
        }
        Ok(Lockstep { a, b, map, outputs, compared: 0, first: None })
    }

    /// The first difference seen, if any.
    pub fn mismatch(&self) -> Option<&Mismatch> {
        self.first.as_ref()
    }

    /// Cycles on which every output was compared.
    pub fn compared_cycles(&self) -> u64 {
        self.compared
    }

    /// `Err` with the first difference, for a test's `?`.
    pub fn check(&self) -> Result<(), BenchError> {
        match &self.first {
            None => Ok(()),
            Some(m) => Err(BenchError::Failed(format!(
                "the two models differ at cycle {} on `{}`: {} vs {}",
                m.cycle,
                m.port,
                hex(&m.a),
                hex(&m.b)
            ))),
        }
    }

    fn compare(&mut self) {
        if self.first.is_some() {
            return;
        }
        for &p in &self.outputs {
            let (name, _, width) = self.a.port_info(p);
            let n = width.div_ceil(8);
            let (mut x, mut y) = (vec![0u8; n], vec![0u8; n]);
            self.a.get_bytes(p, &mut x);
            self.b.get_bytes(self.map[p.0], &mut y);
            if x != y {
                self.first = Some(Mismatch { cycle: self.a.cycle(), port: name.to_string(), a: x, b: y });
                return;
            }
        }
        self.compared += 1;
    }
}

fn hex(v: &[u8]) -> String {
    let s: String = v.iter().rev().map(|b| format!("{b:02x}")).collect();
    format!("0x{s}")
}

impl<A: ClockedModel, B: ClockedModel> ClockedModel for Lockstep<A, B> {
    fn port_id(&self, name: &str) -> Option<PortId> {
        self.a.port_id(name)
    }
    fn port_count(&self) -> usize {
        self.a.port_count()
    }
    fn port_info(&self, p: PortId) -> (&str, Dir, usize) {
        self.a.port_info(p)
    }
    fn set(&mut self, p: PortId, v: u64) {
        self.a.set(p, v);
        self.b.set(self.map[p.0], v);
    }
    fn get(&self, p: PortId) -> u64 {
        self.a.get(p)
    }
    fn set_bytes(&mut self, p: PortId, bytes: &[u8]) {
        self.a.set_bytes(p, bytes);
        self.b.set_bytes(self.map[p.0], bytes);
    }
    fn get_bytes(&self, p: PortId, out: &mut [u8]) {
        self.a.get_bytes(p, out)
    }
    fn eval(&mut self) {
        self.a.eval();
        self.b.eval();
    }
    /// Compares every output (as settled by the last `eval`), then clocks both.
    fn tick(&mut self) {
        self.compare();
        self.a.tick();
        self.b.tick();
    }
    fn cycle(&self) -> u64 {
        self.a.cycle()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crc::hdl_model;
    use crate::testbench::{run_crc_frames, Traffic};
    use offload_driver::crc::CrcKind;

    /// Two engines that differ (CRC-32C against CRC-32, same ports): the comparison must name
    /// the first cycle and the port where they part, or it proves nothing when it passes.
    #[test]
    fn reports_the_first_difference() {
        let a = hdl_model::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c).unwrap();
        let b = hdl_model::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32).unwrap();
        let mut l = Lockstep::new(a, b).unwrap();
        run_crc_frames(&mut l, &[b"123456789".to_vec()], &Traffic::full_rate()).unwrap();
        let m = l.mismatch().expect("CRC-32C and CRC-32 engines compared equal");
        assert_eq!(m.port, "crc");
        assert_eq!(u32::from_le_bytes(m.a[..4].try_into().unwrap()), 0xE306_9283);
        assert_eq!(u32::from_le_bytes(m.b[..4].try_into().unwrap()), 0xCBF4_3926);
        assert!(l.check().is_err());
        // Equal models compare equal, cycle after cycle.
        let mut l = Lockstep::new(hdl_model::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c).unwrap(), hdl_model::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c).unwrap()).unwrap();
        run_crc_frames(&mut l, &vec![b"123456789".to_vec(); 3], &Traffic::full_rate()).unwrap();
        assert!(l.check().is_ok() && l.compared_cycles() > 5);
    }

    #[test]
    fn refuses_models_with_other_ports() {
        let a = hdl_model::<64, 8, 32, 3, 4, 2>(CrcKind::Crc32c).unwrap();
        let b = hdl_model::<32, 4, 32, 2, 3, 1>(CrcKind::Crc32c).unwrap();
        assert!(matches!(Lockstep::new(a, b), Err(BenchError::Port(_))));
    }
}
