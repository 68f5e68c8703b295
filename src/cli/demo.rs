//! `offload demo`: the main job. Runs sample traffic (an MPA connection with Markers, framed and
//! deframed again, NVMe-MI
//! messages over MCTP with the SMBus binding, CRCs) through every backend available, checks that they agree byte for byte with the
//! software reference, prints a summary and leaves artefacts to open in `--out`.

use anyhow::{bail, Context};
use clap::Args;
use offload_driver::crc::CrcKind;
use offload_driver::mctp::{self, Binding, ReassemblyConfig, RxRequest, SmbusAddresses, TxConfig, TxRequest};
use offload_driver::nvme_mi::{self, NvmeMiHeader, Nmimt};
use offload_driver::mpa::{mulpdu_for_emss, FramingConfig};
use offload_driver::{Offload, OffloadError, SoftwareOffload};
use rand::SeedableRng;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Folder for the artefacts (created).
    #[arg(long, default_value = "out")]
    out: PathBuf,
    /// ULPDUs per direction of the sample MPA connection.
    #[arg(long, default_value_t = 64)]
    ulpdus: usize,
    /// Seed of the sample traffic.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// One line of the summary.
struct Row {
    backend: &'static str,
    work: &'static str,
    octets_in: usize,
    octets_out: usize,
    cycles: Option<u64>,
    verdict: String,
}

pub fn run(a: DemoArgs) -> anyhow::Result<()> {
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(a.seed);
    let (mut backends, missing) = super::backend::all_available();
    let mut rows = Vec::new();
    let mut failures = 0usize;

    // The Verilog of every block, as `offload verilog` writes it.
    let vdir = a.out.join("verilog");
    std::fs::create_dir_all(&vdir).with_context(|| format!("creating {}", vdir.display()))?;
    let blocks = offload_hdl::catalogue();
    for e in &blocks {
        let path = vdir.join(format!("{}.v", e.module_name()));
        std::fs::write(&path, e.shipped_verilog()).with_context(|| format!("writing {}", path.display()))?;
    }

    // MPA: one direction of a connection with Markers and CRCs, framed by every backend.
    let mulpdu = mulpdu_for_emss(1460, true);
    let cfg = FramingConfig::full(mulpdu);
    let client = super::mpa::random_ddp_sends(&mut rng, a.ulpdus, mulpdu, true);
    let server = super::mpa::random_ddp_sends(&mut rng, a.ulpdus, mulpdu, true);
    let reference = SoftwareOffload.mpa_frame(&cfg, 0, &client)?;
    let back = SoftwareOffload.mpa_deframe(&cfg, 0, &reference)?;
    if back.ulpdus != client || back.end.is_err() {
        bail!("software MPA deframer does not invert the framer");
    }
    let octets_in: usize = client.iter().map(Vec::len).sum();
    // What each backend framed, deframed again by the same backend below.
    let mut framed_by = Vec::new();
    for b in backends.iter_mut() {
        let before = b.cycles();
        let row = match b.mpa_frame(&cfg, 0, &client) {
            Ok(out) => {
                let same = out == reference;
                framed_by.push(Some(out.clone()));
                failures += !same as usize;
                Row {
                    backend: b.backend(),
                    work: "MPA frame (Markers, CRC)",
                    octets_in,
                    octets_out: out.len(),
                    cycles: cycles_between(before, b.cycles()),
                    verdict: if same { "identical".into() } else { "DIFFERS".into() },
                }
            }
            Err(OffloadError::Unsupported { .. }) => {
                framed_by.push(None);
                skipped(b.backend(), "MPA frame (Markers, CRC)")
            }
            Err(e) => return Err(e.into()),
        };
        rows.push(row);
    }
    // The round trip: each backend deframes the stream it framed (the hardware: ULPDUs framed by
    // the MPA TX block, deframed by the MPA RX block), which must give back the ULPDUs.
    for (b, framed) in backends.iter_mut().zip(&framed_by) {
        let Some(framed) = framed else { continue };
        let before = b.cycles();
        let row = match b.mpa_deframe(&cfg, 0, framed) {
            Ok(d) => {
                let same = d.ulpdus == client && d.end.is_ok();
                failures += !same as usize;
                Row {
                    backend: b.backend(),
                    work: "MPA deframe (round trip)",
                    octets_in: framed.len(),
                    octets_out: d.ulpdus.iter().map(Vec::len).sum(),
                    cycles: cycles_between(before, b.cycles()),
                    verdict: if same { "identical".into() } else { format!("DIFFERS ({:?})", d.end) },
                }
            }
            Err(OffloadError::Unsupported { .. }) => skipped(b.backend(), "MPA deframe (round trip)"),
            Err(e) => return Err(e.into()),
        };
        rows.push(row);
    }
    // The capture is framed by the last backend: the hardware model when there is one.
    let pcap = a.out.join("mpa.pcap");
    let framer = backends.last_mut().expect("the software backend is always there");
    let pcap_backend = framer.backend();
    let (c, s) = super::mpa::write_capture(&pcap, true, &client, &server, mulpdu, framer.as_mut())?;
    let vcd = write_vcd(&a.out, &cfg, &client[..client.len().min(8)])?;

    // NVMe-MI over MCTP with the SMBus binding: messages of growing size, each with its MIC,
    // packetized by every backend; the software reassembles and checks every MIC.
    let messages = nvme_mi_samples(&mut rng)?;
    let tx = |i: usize| TxRequest {
        config: TxConfig { src: 0x08, dst: 0x1d, tag: (i % 8) as u8, tag_owner: true, mtu: 64, start_seq: (i % 4) as u8 },
        append_mic: false, // the samples carry their MIC already (encode_oob)
        smbus: Some(SmbusAddresses { src: 0x10, dst: 0x1d }),
    };
    let mut reference_frames = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        reference_frames.push(SoftwareOffload.mctp_transmit(&tx(i), m)?);
    }
    for (i, frames) in reference_frames.iter().enumerate() {
        let rx = RxRequest { reassembly: ReassemblyConfig::nvme_mi(), binding: Binding::Smbus, verify_mic: true };
        let report = mctp::receive(&rx, frames)?;
        let ok = report.messages.len() == 1 && report.problems.is_empty()
            && report.messages[0].bytes == messages[i][..messages[i].len() - 4];
        if !ok {
            bail!("software MCTP receive did not give back NVMe-MI message {i}");
        }
    }
    let octets_in: usize = messages.iter().map(Vec::len).sum();
    for b in backends.iter_mut() {
        let before = b.cycles();
        let mut same = true;
        let mut out = 0usize;
        let mut unsupported = false;
        for (i, m) in messages.iter().enumerate() {
            match b.mctp_transmit(&tx(i), m) {
                Ok(frames) => {
                    out += frames.iter().map(Vec::len).sum::<usize>();
                    same &= frames == reference_frames[i];
                }
                Err(OffloadError::Unsupported { .. }) => {
                    unsupported = true;
                    break;
                }
                Err(e) => return Err(e.into()),
            }
        }
        let work = "NVMe-MI/MCTP/SMBus packetize";
        rows.push(if unsupported {
            skipped(b.backend(), work)
        } else {
            failures += !same as usize;
            Row {
                backend: b.backend(),
                work,
                octets_in,
                octets_out: out,
                cycles: cycles_between(before, b.cycles()),
                verdict: if same { "identical".into() } else { "DIFFERS".into() },
            }
        });
    }

    // CRC-32C and CRC-32 over the FPDU stream.
    for kind in [CrcKind::Crc32c, CrcKind::Crc32] {
        let want = kind.reference(&reference);
        for b in backends.iter_mut() {
            let before = b.cycles();
            let row = match b.crc(kind, &reference) {
                Ok(v) => {
                    failures += (v != want) as usize;
                    Row {
                        backend: b.backend(),
                        work: if kind == CrcKind::Crc32c { "CRC-32C" } else { "CRC-32" },
                        octets_in: reference.len(),
                        octets_out: 4,
                        cycles: cycles_between(before, b.cycles()),
                        verdict: if v == want { format!("{v:#010x} = reference") } else { format!("{v:#010x} DIFFERS") },
                    }
                }
                Err(OffloadError::Unsupported { .. }) => skipped(b.backend(), "CRC"),
                Err(e) => return Err(e.into()),
            };
            rows.push(row);
        }
    }

    println!("offload demo: {} backend(s): {}", backends.len(), backends.iter().map(|b| b.backend()).collect::<Vec<_>>().join(", "));
    if let Some(why) = &missing {
        println!("  ({why})");
    }
    println!("{:<8} {:<26} {:>10} {:>10} {:>10} {:>12}  check", "backend", "work", "octets in", "octets out", "clocks", "octets/clk");
    for r in rows.iter_mut().filter(|r| r.backend == "sw") {
        r.verdict = "reference".into();
    }
    for r in &rows {
        let (clk, per) = match r.cycles {
            Some(c) if c > 0 => (c.to_string(), format!("{:.2}", r.octets_in as f64 / c as f64)),
            _ => ("-".into(), "-".into()),
        };
        println!("{:<8} {:<26} {:>10} {:>10} {:>10} {:>12}  {}", r.backend, r.work, r.octets_in, r.octets_out, clk, per, r.verdict);
    }
    // The software rows are the reference itself; the checks are the other backends' rows.
    let checks = rows.iter().filter(|r| r.backend != "sw" && r.verdict != "not offloaded").count();
    println!("artefacts: {} ({} blocks), {} ({c} + {s} FPDUs framed by `{pcap_backend}`, Markers and CRCs; open in Wireshark)", vdir.display(), blocks.len(), pcap.display());
    if let Some(v) = vcd {
        println!("           {} (the MPA TX block framing the first ULPDUs; open in GTKWave)", v.display());
    }
    if failures > 0 {
        bail!("{failures} of {checks} checks failed: backends disagree with the software reference");
    }
    if checks == 0 {
        println!("no hardware backend ran: nothing to compare with the software reference");
    } else {
        println!("{checks} checks passed, all backends agree byte for byte");
    }
    Ok(())
}

/// NVMe-MI requests of growing size, each ending with its MIC: Health Status Poll-like control
/// primitives, MI commands, and admin commands carrying data up to the 4224-octet limit.
fn nvme_mi_samples(rng: &mut impl rand::Rng) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut v = Vec::new();
    for (nmimt, data_len) in [
        (Nmimt::ControlPrimitive, 4),
        (Nmimt::MiCommand, 12),
        (Nmimt::MiCommand, 60),
        (Nmimt::NvmeAdminCommand, 64 + 512),
        (Nmimt::NvmeAdminCommand, 4224 - 8),
    ] {
        let data: Vec<u8> = (0..data_len).map(|_| rng.gen()).collect();
        v.push(nvme_mi::encode_oob(&NvmeMiHeader::request(nmimt), &data)?);
    }
    Ok(v)
}

/// A VCD of the 8-octet MPA TX block framing a few ULPDUs, when Verilated models exist.
fn write_vcd(dir: &std::path::Path, cfg: &FramingConfig, ulpdus: &[Vec<u8>]) -> anyhow::Result<Option<PathBuf>> {
    let Ok(info) = offload_sim::model_info("mpa_tx_w8") else { return Ok(None) };
    let path = dir.join("mpa_tx_w8.vcd");
    let mut m = offload_sim::VerilatedModel::new(info);
    m.start_trace(&path)?;
    offload_hdl::testbench::run_mpa_tx(&mut m, cfg, 0, ulpdus, &offload_sim::Traffic::full_rate())?;
    Ok(Some(path))
}

fn cycles_between(before: Option<u64>, after: Option<u64>) -> Option<u64> {
    Some(after? - before?)
}

fn skipped(backend: &'static str, work: &'static str) -> Row {
    Row { backend, work, octets_in: 0, octets_out: 0, cycles: None, verdict: "not offloaded".into() }
}
