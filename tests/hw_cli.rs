//! The hardware commands of the CLI end to end: `offload verilog`, `offload synth` and
//! `offload crc --backend sim` (the Verilated CRC engine) against `--backend sw`.
//! They need verilator and yosys and fail (not skip) without them.

use std::process::Command;

fn offload(args: &[&str], stdin: Option<&[u8]>) -> (bool, String, String) {
    use std::io::Write;
    let mut c = Command::new(env!("CARGO_BIN_EXE_offload"));
    c.args(args).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or(b"")).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn need(tool: &str) {
    assert!(
        offload_hdl::tools::which(tool).is_some(),
        "`{tool}` is not installed: run `apt-get install verilator yosys`"
    );
}

#[test]
fn verilog_writes_every_registry_entry_lint_clean() {
    need("verilator");
    let dir = tempfile_dir("verilog");
    let (ok, out, err) = offload(&["verilog", "--out", dir.to_str().unwrap()], None);
    assert!(ok, "{err}");
    for e in offload_hdl::catalogue() {
        let path = dir.join(format!("{}.v", e.module_name()));
        let v = std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("{} missing; stdout:\n{out}", path.display()));
        assert!(v.contains(&format!("module {}(", e.module_name())));
        if let Some(k) = e.crc {
            // The header names the parameters.
            assert!(v.lines().take(6).any(|l| l.contains(k.catalogue_name())), "{}", e.name);
        }
        offload_hdl::tools::verilator_lint(&v, &e.module_name()).unwrap_or_else(|x| panic!("{}: {x}", e.name));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn crc_backend_sim_prints_what_sw_prints() {
    let mut data: Vec<u8> = (0..5000u32).map(|i| (i * 7 + i / 13) as u8).collect();
    data.extend_from_slice(b"123456789");
    for algo in ["crc32c", "crc32", "crc8", "crc16"] {
        let sw = offload(&["crc", "--algo", algo, "--backend", "sw"], Some(&data));
        let sim = offload(&["crc", "--algo", algo, "--backend", "sim"], Some(&data));
        assert!(sw.0, "{}", sw.2);
        assert!(sim.0, "{algo} through sim failed: {}", sim.2);
        assert_eq!(sim.1, sw.1, "{algo}");
    }
    let golden = offload(&["crc", "--algo", "crc32c", "--backend", "sim"], Some(b"123456789"));
    assert_eq!(golden.1.trim(), "0xe3069283");
}

#[test]
fn synth_reports_luts_and_ffs() {
    need("yosys");
    let (ok, out, err) = offload(&["synth", "--block", "crc", "--width", "1", "--no-pnr", "--depth"], None);
    assert!(ok, "{err}");
    let line = out.lines().find(|l| l.starts_with("yosys synth_xilinx:")).expect(&out);
    let field = |i: usize| -> u64 { line.split_whitespace().nth(i).unwrap().parse().unwrap() };
    assert!((50..400).contains(&field(2)), "{line}");
    // The pipeline's registers: 8 + 32 + 32 + 32 + 32 data and CRC bits, and control.
    assert!((130..200).contains(&field(4)), "{line}");
    let depth = out.lines().find(|l| l.contains("longest register-to-register path")).expect(&out);
    assert!(depth.contains(" 3 LUT4 levels"), "{depth}");
    // An earlier revision's file is timed from its `// Ports:` header; a file without one is refused.
    let dir = tempfile_dir("synth");
    let bad = dir.join("bad.v");
    std::fs::write(&bad, "module offload_crc32c_w1(input wire clock);\nendmodule\n").unwrap();
    let (ok, _, err) = offload(&["synth", "--block", "crc", "--width", "1", "--no-pnr", "--verilog", bad.to_str().unwrap()], None);
    assert!(!ok && err.contains("no `// Ports:` header"), "{err}");
    let good = dir.join("good.v");
    let (ok, _, err) = offload(&["verilog", "--out", dir.to_str().unwrap(), "--only", "crc32c_w1"], None);
    assert!(ok, "{err}");
    std::fs::rename(dir.join("offload_crc32c_w1.v"), &good).unwrap();
    let (ok, out, err) = offload(&["synth", "--block", "crc", "--width", "1", "--no-pnr", "--verilog", good.to_str().unwrap()], None);
    assert!(ok && out.contains("file ") && out.contains("yosys synth_xilinx:"), "{out}{err}");
    std::fs::remove_dir_all(dir).unwrap();
    let (ok, _, err) = offload(&["synth", "--block", "crc", "--width", "3"], None);
    assert!(!ok && err.contains("no `crc` block at width 3"), "{err}");
}

fn tempfile_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("offload-hw-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
