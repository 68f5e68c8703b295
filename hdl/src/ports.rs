//! The port list of a block, read from the rust-hdl block itself, so the Verilator harness
//! (`offload-sim`'s build script) derives its C shim and Rust bindings from the same source as
//! the Verilog: no port name or width is written twice.
//!
//! A port inside a bundle (`s.tdata`, rust-hdl's Verilog `s$tdata`) is named `s_tdata`: the
//! flat AXI-Stream name the shipped module uses at its boundary ([`crate::registry`] renames
//! the top module's ports to it).

use rust_hdl::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    In,
    Out,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    /// The flat name (`s_tdata`).
    pub name: String,
    /// rust-hdl's Verilog name (`s$tdata` for a bundle field; `name` otherwise).
    pub hdl_name: String,
    pub width: usize,
    pub dir: Dir,
    /// True for `Signal<_, Clock>` (the harness toggles it).
    pub is_clock: bool,
}

#[derive(Default)]
struct PortProbe {
    depth: usize,
    /// Bundle names around the atom being visited, outermost first.
    ns: Vec<String>,
    ports: Vec<Port>,
}

impl Probe for PortProbe {
    fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth += 1;
    }
    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            self.ns.push(name.to_string());
        }
    }
    fn visit_end_namespace(&mut self, _name: &str, _node: &dyn Block) {
        if self.depth == 1 {
            self.ns.pop();
        }
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
        let mut path = self.ns.clone();
        path.push(name.to_string());
        let hdl_name = path.join("$");
        // A bundle field `x_bus` flattens as `x`: `reg_bus$wr_addr` is Corundum's `reg_wr_addr`
        // (`reg` itself is a Verilog keyword rust-hdl refuses as a name).
        let bundles = path.len() - 1;
        for n in path.iter_mut().take(bundles) {
            if let Some(stem) = n.strip_suffix("_bus") {
                *n = stem.to_string();
            }
        }
        self.ports.push(Port { name: path.join("_"), hdl_name, width: signal.bits(), dir, is_clock });
    }
    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        self.depth -= 1;
    }
}

/// Top-level ports of `block` in declaration order (the order of rust-hdl's module header).
/// Panics (at elaboration) if two ports flatten to the same name.
pub fn ports_of(block: &dyn Block) -> Vec<Port> {
    let mut p = PortProbe::default();
    block.accept("top", &mut p);
    let mut names: Vec<&str> = p.ports.iter().map(|x| x.name.as_str()).collect();
    names.sort();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        panic!("two ports flatten to `{}`", w[0]);
    }
    p.ports
}

/// Renames the Verilog identifiers of `line` found in `map`, except a named port connection's
/// formal name (an identifier right after `.`).
pub fn rename_identifiers(line: &str, map: &std::collections::HashMap<&str, &str>) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if line[i..].starts_with("//") {
            // A comment: left as written.
            out.push_str(&line[i..]);
            break;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'$') {
                i += 1;
            }
            let id = &line[start..i];
            let formal = start > 0 && b[start - 1] == b'.';
            match map.get(id) {
                Some(flat) if !formal => out.push_str(flat),
                _ => out.push_str(id),
            }
        } else if c.is_ascii_digit() || c == b'\'' {
            // A number (`32'h1f`): its digits are not identifiers.
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'\'' || b[i] == b'_') {
                i += 1;
            }
            out.push_str(&line[start..i]);
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// A hand-written Verilog body (a `Verilog::Custom` leaf) written against flat port names
/// (`s_tdata`, `cfg_mtu`, and a counter bundle's fields bare: `packets`), made to name the
/// ports rust-hdl declares for `block`'s bundles (`s$tdata`, `cfg$mtu`, `counters$packets`).
pub fn body_for_bundles(body: &str, block: &dyn Block) -> String {
    let ports = ports_of(block);
    let mut map = std::collections::HashMap::new();
    for p in ports.iter().filter(|p| p.hdl_name != p.name) {
        map.insert(p.name.as_str(), p.hdl_name.as_str());
        if let Some(field) = p.name.strip_prefix("counters_") {
            map.insert(field, p.hdl_name.as_str());
        }
    }
    body.lines().map(|l| rename_identifiers(l, &map) + "\n").collect()
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

/// The ports of a shipped file, from the `// Ports: in clock, in s_tdata[63:0], out crc[31:0].`
/// line [`crate::registry::BlockEntry::header`] writes: for timing a file an earlier revision
/// emitted (`offload synth --verilog FILE`) without elaborating it again. A port called `clock`
/// is the clock.
pub fn parse_header_ports(verilog: &str) -> Option<Vec<Port>> {
    let line = verilog.lines().find_map(|l| l.strip_prefix("// Ports: "))?;
    line.trim_end_matches('.')
        .split(", ")
        .map(|p| {
            let (dir, rest) = p.split_once(' ')?;
            let dir = match dir {
                "in" => Dir::In,
                "out" => Dir::Out,
                _ => return None,
            };
            let (name, width) = match rest.split_once('[') {
                Some((n, r)) => (n, r.strip_suffix(":0]")?.parse::<usize>().ok()? + 1),
                None => (rest, 1),
            };
            Some(Port { name: name.into(), hdl_name: name.into(), width, dir, is_clock: name == "clock" })
        })
        .collect()
}

#[cfg(test)]
mod header_tests {
    use super::*;

    #[test]
    fn ports_from_a_shipped_header() {
        let v = "// offload_x — generated\n// Ports: in clock, in reset, in s_tdata[63:0], out crc[31:0], out crc_valid.\nmodule x;\n";
        let p = parse_header_ports(v).unwrap();
        assert_eq!(p.len(), 5);
        assert!(p[0].is_clock && p[0].dir == Dir::In && p[0].width == 1);
        assert_eq!((p[2].name.as_str(), p[2].width, p[2].dir), ("s_tdata", 64, Dir::In));
        assert_eq!((p[3].name.as_str(), p[3].width, p[3].dir), ("crc", 32, Dir::Out));
        assert!(parse_header_ports("module x;\n").is_none());
        assert!(parse_header_ports("// Ports: sideways x.\n").is_none());
    }
}
