//! The port list of a block, read from the rust-hdl block itself, so the Verilator harness
//! (`offload-sim`'s build script) derives its C shim and Rust bindings from the same source as
//! the Verilog: no port name or width is written twice.

use rust_hdl::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub name: String,
    pub width: usize,
    pub dir: Dir,
    /// True for `Signal<_, Clock>` (the harness toggles it).
    pub is_clock: bool,
}

#[derive(Default)]
struct PortProbe {
    depth: usize,
    ports: Vec<Port>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        if self.depth != 1 {
            return;
        }
        let dir = match signal.kind() {
            AtomKind::InputParameter => Dir::In,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => Dir::Out,
            _ => return,
        };
        let is_clock = matches!(signal.descriptor().kind, TypeKind::Bits(1))
            && signal.descriptor().name == "clock";
        self.ports.push(Port { name: name.to_string(), width: signal.bits(), dir, is_clock });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// Top-level ports of `block` in declaration order (the order of rust-hdl's module header).
pub fn ports_of(block: &dyn Block) -> Vec<Port> {
    let mut p = PortProbe::default();
    block.accept("top", &mut p);
    p.ports
}

/// rust-hdl timing annotation of a block with one AXI-Stream input (`s_`) and one output
/// (`m_`) on `clock`: what every streaming block reports.
pub fn axis_timing(name: &str) -> Vec<TimingInfo> {
    vec![TimingInfo {
        name: name.into(),
        clock: "clock".into(),
        inputs: vec!["s_tdata".into(), "s_tvalid".into(), "m_tready".into()],
        outputs: vec!["m_tdata".into(), "m_tvalid".into(), "s_tready".into()],
    }]
}
