//! The `offload mpa` command forms, run as a user would: records in, FPDUs out and back, the
//! RFC 5044 Figure 5 FPDU, errors that name the offset, and captures decoded by tshark.

mod common;

use common::offload;
use std::process::Command;

fn records(ulpdus: &[Vec<u8>]) -> Vec<u8> {
    ulpdus.iter().flat_map(|u| (u.len() as u16).to_be_bytes().into_iter().chain(u.iter().copied())).collect()
}

fn figure5_ulpdu() -> Vec<u8> {
    let mut u = vec![0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];
    u.extend_from_slice(&[0; 24]);
    u
}

#[test]
fn frame_gives_rfc5044_figure5_and_deframe_inverts_it() {
    let out = offload(&["mpa", "frame"], &records(&[figure5_ulpdu()]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout.len(), 52);
    assert_eq!(&out.stdout[..6], &[0, 0, 0, 0, 0, 0x2a]);
    assert_eq!(&out.stdout[48..], &[0x52, 0x23, 0x99, 0x83]);
    let back = offload(&["mpa", "deframe"], &out.stdout);
    assert!(back.status.success());
    assert_eq!(back.stdout, records(&[figure5_ulpdu()]));
}

#[test]
fn round_trip_all_options() {
    let ulpdus: Vec<Vec<u8>> = (1..40usize).map(|n| (0..n * 37).map(|i| (i * n) as u8).collect()).collect();
    for opts in [vec![], vec!["--no-markers"], vec!["--no-crc"], vec!["--offset", "1000"], vec!["--no-markers", "--offset", "8"]] {
        let mut fa = vec!["mpa", "frame"];
        fa.extend(&opts);
        let framed = offload(&fa, &records(&ulpdus));
        assert!(framed.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&framed.stderr));
        let mut da = vec!["mpa", "deframe"];
        da.extend(&opts);
        let back = offload(&da, &framed.stdout);
        assert!(back.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&back.stderr));
        assert_eq!(back.stdout, records(&ulpdus), "{opts:?}");
    }
}

#[test]
fn bad_input_is_one_line_error_and_no_output() {
    let framed = offload(&["mpa", "frame"], &records(&[figure5_ulpdu(), figure5_ulpdu()])).stdout;
    let mut bad = framed.clone();
    bad[52 + 10] ^= 0x80; // inside the second FPDU, which starts at offset 52
    let out = offload(&["mpa", "deframe"], &bad);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "no partial output");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("offset 52") && err.contains("CRC"), "{err}");

    for (args, input) in [
        (vec!["mpa", "frame"], vec![0u8, 5, 1, 2]),           // truncated record
        (vec!["mpa", "frame"], vec![0u8, 0]),                 // empty ULPDU
        (vec!["mpa", "frame", "--offset", "6"], vec![0, 1, 1]), // misaligned offset
        (vec!["mpa", "deframe"], framed[..framed.len() - 2].to_vec()),
    ] {
        let out = offload(&args, &input);
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).starts_with("offload: error:"));
    }
}

/// Runs tshark over a capture and returns its verbose text. Fails (does not skip) when tshark is
/// missing: `.ci/run` installs it.
fn tshark_verbose(path: &std::path::Path) -> String {
    let out = Command::new("tshark")
        .args(["-r", path.to_str().unwrap(), "-V"])
        .output()
        .expect("tshark is required for this test: apt-get install tshark");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn pcap_decodes_in_wireshark_with_good_crcs() {
    let dir = std::env::temp_dir().join(format!("offload-cli-mpa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, extra, fpdus) in [("markers", vec![], 2 * 24), ("plain", vec!["--no-markers"], 2 * 24)] {
        let path = dir.join(format!("{name}.pcap"));
        let mut args = vec!["mpa", "pcap", "--out", path.to_str().unwrap(), "--count", "24", "--seed", "7"];
        args.extend(extra);
        let out = offload(&args, b"");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = tshark_verbose(&path);
        assert!(text.contains("MPA Request Frame") || text.contains("Request frame"), "no MPA Request decoded");
        assert_eq!(text.matches("(Good CRC32)").count(), fpdus, "{name}: every FPDU with a good CRC");
        assert!(!text.contains("Bad CRC") && !text.contains("Malformed"), "{name}");
        if name == "markers" {
            assert!(text.contains("FPDU back pointer"), "Markers decoded");
        }
    }
    // Records given on stdin are carried both ways.
    let path = dir.join("records.pcap");
    let out = offload(&["mpa", "pcap", "--out", path.to_str().unwrap()], &records(&[figure5_ulpdu(), figure5_ulpdu()]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(tshark_verbose(&path).matches("(Good CRC32)").count(), 4);
    std::fs::remove_dir_all(&dir).ok();
}

/// The MPA TX block's Verilog (Verilator) frames exactly what the software does, through the
/// CLI, for every framing option.
#[test]
fn frame_backend_sim_equals_sw() {
    let ulpdus: Vec<Vec<u8>> = (1..60usize).map(|n| (0..n * 53).map(|i| (i * n + 7) as u8).collect()).collect();
    for opts in [vec![], vec!["--no-markers"], vec!["--no-crc"], vec!["--offset", "1000"], vec!["--offset", "65532"]] {
        let run = |backend: &str| {
            let mut a = vec!["mpa", "frame", "--backend", backend];
            a.extend(&opts);
            let o = offload(&a, &records(&ulpdus));
            assert!(o.status.success(), "{backend} {opts:?}: {}", String::from_utf8_lossy(&o.stderr));
            o.stdout
        };
        let sw = run("sw");
        assert!(!sw.is_empty());
        assert_eq!(run("sim"), sw, "{opts:?}");
    }
    // Refusals are the same whatever the backend.
    let o = offload(&["mpa", "frame", "--backend", "sim", "--mulpdu", "128"], &records(&[vec![1; 129]]));
    assert!(!o.status.success() && o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("record 0"));
}

/// The MPA RX block's Verilog (Verilator) deframes as the software does, through the CLI: the
/// same records for good streams with every option, the same one-line error (kind, offset,
/// found and expected values) for a bad CRC, Marker, length and a truncated stream, and the
/// same refusals.
#[test]
fn deframe_backend_sim_equals_sw() {
    let ulpdus: Vec<Vec<u8>> = (1..40usize).map(|n| (0..n * 41).map(|i| (i * n + 3) as u8).collect()).collect();
    let run = |opts: &[&str], input: &[u8]| {
        let out = |backend: &str| {
            let mut a = vec!["mpa", "deframe", "--backend", backend];
            a.extend(opts);
            offload(&a, input)
        };
        let (sw, sim) = (out("sw"), out("sim"));
        assert_eq!(sim.status.success(), sw.status.success(), "{opts:?}: {}", String::from_utf8_lossy(&sim.stderr));
        assert_eq!(sim.stdout, sw.stdout, "{opts:?}");
        assert_eq!(String::from_utf8_lossy(&sim.stderr), String::from_utf8_lossy(&sw.stderr), "{opts:?}");
        sw
    };
    for opts in [vec![], vec!["--no-markers"], vec!["--no-crc"], vec!["--offset", "1000"], vec!["--offset", "65532"]] {
        let mut fa = vec!["mpa", "frame"];
        fa.extend(&opts);
        let framed = offload(&fa, &records(&ulpdus)).stdout;
        let good = run(&opts, &framed);
        assert!(good.status.success() && good.stdout == records(&ulpdus), "{opts:?}");
        // A flipped bit in a length, a payload octet, a Marker's FPDUPTR and a CRC; a truncation.
        for at in [0usize, 200, 515, 1024 + 7, framed.len() - 1] {
            let mut bad = framed.clone();
            bad[at] ^= 0x04;
            let o = run(&opts, &bad);
            if !opts.contains(&"--no-crc") {
                assert!(!o.status.success(), "{opts:?} flip at {at} accepted");
            }
        }
        let o = run(&opts, &framed[..framed.len() - 6]);
        assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("inside an FPDU"));
    }
    run(&["--offset", "6"], &[0, 1, 2, 3]);
    run(&["--mulpdu", "0"], &[0, 1, 2, 3]);
    run(&[], &[]);
}

#[test]
fn pcap_framed_by_the_hardware_model_decodes_with_good_crcs() {
    let dir = std::env::temp_dir().join(format!("offload-cli-mpa-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sim.pcap");
    let out = offload(&["mpa", "pcap", "--out", path.to_str().unwrap(), "--count", "20", "--backend", "sim"], b"");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = tshark_verbose(&path);
    assert_eq!(text.matches("(Good CRC32)").count(), 40);
    assert!(text.contains("FPDU back pointer") && !text.contains("Bad CRC"));
    // Byte-identical to the software-framed capture with the same seed.
    let sw = dir.join("sw.pcap");
    assert!(offload(&["mpa", "pcap", "--out", sw.to_str().unwrap(), "--count", "20"], b"").status.success());
    assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(&sw).unwrap());
    std::fs::remove_dir_all(&dir).ok();
}
