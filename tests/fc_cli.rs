//! The `offload fc` command forms, run as a user would: a server agent started as a child
//! process on an ephemeral port, clients against it, captures decoded by tshark's `fc`
//! dissector, and the sim backend (the CRC engine's Verilog computing the FC CRC).

mod common;

use common::offload;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// `offload fc serve` as a child process, killed when dropped.
struct Serve {
    child: Child,
    addr: String,
}

impl Serve {
    fn start(extra: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_offload"))
            .args([
                "fc",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--refuse-port",
                "3",
                "--down-port",
                "4",
            ])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn offload fc serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split_whitespace()
            .find(|w| w.starts_with("127.0.0.1:"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Serve { child, addr }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("offload-fc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn ok(args: &[&str]) -> String {
    let out = offload(args, b"");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// tshark's verbose decode of a capture. Fails (does not skip) when tshark is missing:
/// `.ci/run` installs it.
fn tshark_verbose(path: &Path) -> String {
    let out = Command::new("tshark")
        .args(["-r", path.to_str().unwrap(), "-V"])
        .output()
        .expect("tshark is required for this test: apt-get install tshark");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn assert_clean_fc(text: &str, frames: usize) {
    assert_eq!(text.matches("Frame Number:").count(), frames);
    assert_eq!(
        text.matches("[CRC Status: Good]").count(),
        frames,
        "every FC CRC good"
    );
    assert_eq!(
        text.matches("Encapsulation type: Fibre Channel FC-2 With Frame Delimiter")
            .count(),
        frames
    );
    for bad in [
        "Malformed",
        "Bad CRC",
        "[CRC Status: Bad]",
        "Expert Info (Warning",
        "Expert Info (Error",
    ] {
        assert!(!text.contains(bad), "tshark reports {bad}");
    }
}

#[test]
fn pcap_every_delimiter_decoded_by_tshark() {
    use offload_driver::fc::{Eof, Sof};
    let path = tmp("codes.pcap");
    let out = ok(&[
        "fc",
        "pcap",
        "--out",
        path.to_str().unwrap(),
        "--blocks",
        "5",
    ]);
    // Command, 2 data frames, response, then one frame per SOF and per EOF code.
    let frames = 4 + Sof::ALL.len() + Eof::ALL.len();
    assert!(out.starts_with(&format!("{frames} frames")), "{out}");
    let text = tshark_verbose(&path);
    assert_clean_fc(&text, frames);
    for sof in Sof::ALL {
        assert!(
            text.contains(&format!("SOF: {} - ", sof.name())),
            "{} not decoded",
            sof.name()
        );
    }
    for eof in Eof::ALL {
        assert!(
            text.contains(&format!("EOF: {}- - ", eof.name())),
            "{} not decoded",
            eof.name()
        );
    }
    assert!(
        text.contains("Read(10)"),
        "FCP_CMND decoded as a SCSI READ(10)"
    );
    assert!(text.contains("SCSI Status: Good"), "FCP_RSP decoded");
}

/// The hardware CRC engine (CRC-32 mode, Verilated) frames the same bytes.
#[test]
fn pcap_backend_sim_equals_sw() {
    let sw = tmp("sw.pcap");
    let sim = tmp("sim.pcap");
    ok(&["fc", "pcap", "--out", sw.to_str().unwrap(), "--blocks", "9"]);
    ok(&[
        "fc",
        "pcap",
        "--out",
        sim.to_str().unwrap(),
        "--blocks",
        "9",
        "--backend",
        "sim",
    ]);
    let (a, b) = (std::fs::read(&sw).unwrap(), std::fs::read(&sim).unwrap());
    // Same frames; the packet timestamps differ.
    let frames = |d: &[u8]| {
        let mut r = pcap_file::pcap::PcapReader::new(d).unwrap();
        let mut v = Vec::new();
        while let Some(p) = r.next_packet() {
            v.push(p.unwrap().data.into_owned());
        }
        v
    };
    assert_eq!(frames(&a), frames(&b));
    assert_eq!(
        frames(&a).len(),
        5 + 17,
        "command, 3 data frames, response, 17 delimiter frames"
    );
}

#[test]
fn serve_and_send_fcp_read() {
    let cap = tmp("serve.pcap");
    let server = Serve::start(&["--pcap", cap.to_str().unwrap()]);
    let data = tmp("read.bin");
    let pcap = tmp("read.pcap");
    let out = ok(&[
        "fc",
        "send",
        "--to",
        &server.addr,
        "--read",
        "100,40",
        "--out",
        data.to_str().unwrap(),
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert!(out.contains("revisions: 1.0 0.0"), "{out}");
    assert!(out.contains("assign port 1: stream 1"), "{out}");
    assert!(
        out.contains(
            "read lba 100 blocks 40: status GOOD, 20480 octets in 12 frames, data matches"
        ),
        "{out}"
    );
    let read = std::fs::read(&data).unwrap();
    assert_eq!(read, offload_driver::fc::fcp::disk_blocks(100, 40));
    // The client's view of the exchange and the agent's view of its FC port both decode clean.
    assert_clean_fc(&tshark_verbose(&pcap), 12);
    // The agent writes its capture right after sending; give it a moment.
    let mut text = tshark_verbose(&cap);
    for _ in 0..20 {
        if text.matches("Frame Number:").count() >= 12 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        text = tshark_verbose(&cap);
    }
    assert_clean_fc(&text, 12);
    assert!(text.contains("Read(10)"));

    // Frames with the CRC left to the agent (N bit), on 4 streams through the loopback port.
    let out = ok(&[
        "fc",
        "send",
        "--to",
        &server.addr,
        "--frames",
        "400",
        "--streams",
        "4",
        "--no-crc",
        "--seed",
        "5",
    ]);
    assert!(
        out.contains("frames: 400 sent on 4 streams, 400 returned unaltered"),
        "{out}"
    );
}

#[test]
fn send_refusals_are_errors() {
    let server = Serve::start(&[]);
    for (args, want) in [
        (
            vec!["--read", "0,1", "--revision", "3.1"],
            "RevisionConflict",
        ),
        (vec!["--read", "0,1", "--port", "3"], "Refused"),
        (vec!["--read", "0,1", "--port", "4"], "Busy"),
        (vec!["--read", "0,1", "--port", "77"], "InvalidRequest"),
    ] {
        let mut a = vec!["fc", "send", "--to", &server.addr];
        a.extend(&args);
        let out = offload(&a, b"");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("offload: error: ") && err.contains(want),
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1);
    }
    // A read past the end of the disk: SCSI CHECK CONDITION reported as an error.
    let out = offload(
        &["fc", "send", "--to", &server.addr, "--read", "65535,2"],
        b"",
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("status 0x02"));
    // Bad arguments.
    let out = offload(&["fc", "send", "--to", &server.addr, "--read", "0,0"], b"");
    assert!(!out.status.success());
}

#[test]
fn demo_sw_and_sim() {
    for backend in ["sw", "sim"] {
        let out = ok(&["fc", "demo", "--blocks", "24", "--backend", backend]);
        assert!(
            out.contains(&format!(
                "fc demo ({backend}): FCP READ(10) lba 0 blocks 24"
            )),
            "{out}"
        );
        assert!(
            out.contains("12288 octets, data matches the target's disk"),
            "{out}"
        );
        assert!(out.contains("0 bad, 0 stale"), "{out}");
    }
}
