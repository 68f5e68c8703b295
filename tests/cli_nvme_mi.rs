//! `offload nvme-mi` against `offload mctpd --nvme-mi`, as separate processes: a requester
//! daemon (EID 8) makes a pty, the endpoint daemon (EID 9) opens its slave, and every
//! `nvme-mi` form goes through the requester's control socket. The model's values (flags,
//! a namespace file, a value changed while running) come back in nvme-cli's field names.

mod common;

use common::{offload, Daemon};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Output;

fn spawn(args: &[&str]) -> Daemon {
    common::mctpd(args, &[])
}

fn nvme_mi(args: &[&str], control: &Path) -> Output {
    let mut v = vec!["nvme-mi"];
    v.extend_from_slice(args);
    v.extend_from_slice(&["--eid", "9", "--control", control.to_str().unwrap()]);
    offload(&v, b"")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The one-line error of a failing form (and nothing on stdout).
fn err(out: &Output) -> String {
    assert!(!out.status.success() && out.stdout.is_empty(), "{out:?}");
    let e = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

fn control_line(path: &Path, line: &str) -> String {
    let mut s = UnixStream::connect(path).unwrap();
    writeln!(s, "{line}").unwrap();
    let mut out = String::new();
    for l in BufReader::new(s).lines() {
        let l = l.unwrap();
        out.push_str(&l);
        out.push('\n');
        if l == "ok" || l.starts_with("error") {
            break;
        }
    }
    out
}

#[test]
fn nvme_mi_forms_against_the_daemon_model() {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("offload-cli-nvme-mi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (ca, cb) = (dir.join("a.sock"), dir.join("b.sock"));
    let image = dir.join("ns2.img");
    std::fs::write(&image, vec![0u8; 96 * 4096]).unwrap();

    let a = spawn(&["--link", "pty", "--eid", "8", "--control", ca.to_str().unwrap()]);
    let pty = a.pty();
    let ns_file = format!("{}@4096", image.display());
    let _b = spawn(&[
        "--link",
        &format!("serial:{pty}"),
        "--eid",
        "9",
        "--nvme-mi",
        "--in-progress",
        "--mprt",
        "2",
        "--controllers",
        "2",
        "--namespace-file",
        &ns_file,
        "--namespace",
        "1G",
        "--temperature",
        "41",
        "--serial",
        "SN-CLI-TEST",
        "--control",
        cb.to_str().unwrap(),
    ]);

    let id = ok(&nvme_mi(&["identify", "--ctrl", "1"], &ca));
    assert!(id.starts_with("NVME Identify Controller:\nvid       : 0x1b36\n"), "{id}");
    for line in [
        "sn        : SN-CLI-TEST         \n",
        "mn        : offload NVMe-MI model                   \n",
        "cntlid    : 0x1\n",
        "nn        : 2\n",
        "tnvmcap   : 1074135040\n",
        "wctemp    : 343\n",
    ] {
        assert!(id.contains(line), "{line:?} in\n{id}");
    }
    let ns = ok(&nvme_mi(&["identify", "--ns", "1"], &ca));
    assert!(ns.contains("nsze    : 0x60\n") && ns.contains("lbads:12"), "{ns}");
    assert_eq!(ok(&nvme_mi(&["identify", "--ns-list"], &ca)), "[   0]:0x1\n[   1]:0x2\n");
    assert_eq!(
        ok(&nvme_mi(&["identify", "--ctrl-list"], &ca)),
        "num of ctrls present: 2\n[   0]:0\n[   1]:0x1\n"
    );

    let smart = ok(&nvme_mi(&["smart-log"], &ca));
    assert!(smart.contains("temperature\t\t\t\t: 41°C (314 Kelvin)\n"), "{smart}");
    assert!(smart.contains("critical_warning\t\t\t: 0\n"), "{smart}");
    // A value changed on the running endpoint shows everywhere: SMART, the health polls.
    assert_eq!(control_line(&cb, "nvme-mi set temperature 75"), "ok\n");
    let smart = ok(&nvme_mi(&["smart-log"], &ca));
    assert!(smart.contains("temperature\t\t\t\t: 75°C (348 Kelvin)\n"), "{smart}");
    assert!(smart.contains("critical_warning\t\t\t: 0x2\n"), "over 70 °C: {smart}");
    // More Processing Required (MPRT 200 ms) first, then the health data.
    let h = ok(&nvme_mi(&["health", "--clear"], &ca));
    assert_eq!(h, "nss   : 0x30\nsw    : 0xfd\nctemp : 75°C\npdlu  : 3%\nccs   : 0x1200\n");
    let h = ok(&nvme_mi(&["health"], &ca));
    assert!(h.ends_with("ccs   : 0\n"), "cleared: {h}");
    let ch = ok(&nvme_mi(&["ctrl-health", "--clear"], &ca));
    assert!(ch.starts_with("entries: 2\nctlid 0 csts 0x1 ctemp 75°C (348 Kelvin)"), "{ch}");
    assert_eq!(ok(&nvme_mi(&["ctrl-health"], &ca)), "entries: 0\n");
    assert_eq!(
        ok(&nvme_mi(&["get-feature", "-f", "4"], &ca)),
        "get-feature:0x04 (Temperature Threshold), Current value:0x00000157\n"
    );
    let fw = ok(&nvme_mi(&["fw-log"], &ca));
    assert_eq!(
        fw,
        "Firmware Log for device:mctp\nafi  : 0x2\nfrs1 : 0x202020302e302e31 (1.0.0   )\nfrs2 : 0x202020302e312e31 (1.1.0   )\n"
    );

    // Configuration: the transmission unit is the baseline; the link allows no more.
    assert_eq!(ok(&nvme_mi(&["config", "get", "mctp-tu"], &ca)), "port 0: mctp transmission unit 64\n");
    let e = err(&nvme_mi(&["config", "set", "--mctp-tu", "100"], &ca));
    assert!(e.contains("NVMe-MI status: Invalid Parameter(0x4) at octet 12 bit 0"), "{e}");
    ok(&nvme_mi(&["config", "set", "--smbus-frequency", "400k"], &ca));
    assert_eq!(
        ok(&nvme_mi(&["config", "get", "smbus-frequency"], &ca)),
        "port 0: smbus frequency 2 (400 kHz)\n"
    );
    let port = ok(&nvme_mi(&["read", "port"], &ca));
    assert!(port.contains("mmctptus : 64\n") && port.contains("mme_freq : 2\n"), "{port}");
    let ci = ok(&nvme_mi(&["read", "ctrl-info", "--ctrl", "1"], &ca));
    assert!(ci.contains("pri    : 0x1\n") && ci.contains("vid    : 0x1b36\n"), "{ci}");

    // Wrong controller: NVMe-MI's error; wrong namespace: the controller's, then in its log.
    let e = err(&nvme_mi(&["identify", "--ctrl", "5"], &ca));
    assert!(e.contains("NVMe-MI status: Invalid Parameter(0x4) at octet 6 bit 0"), "{e}");
    let e = err(&nvme_mi(&["identify", "--ns", "3"], &ca));
    assert!(e.contains("NVMe status: Invalid Namespace or Format(0x400b)"), "{e}");
    let log = ok(&nvme_mi(&["error-log", "--entries", "1"], &ca));
    assert!(log.contains("error_count\t: 1\n") && log.contains("nsid\t\t: 0x3\n"), "{log}");
    assert!(log.contains("status_field\t: 0x400b\n"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}
