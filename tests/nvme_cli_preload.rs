//! Debian's own `nvme` (nvme-cli 2.3 on libnvme 1.3) managing `offload mctpd --nvme-mi`, as
//! on a BMC: nvme-cli's AF_MCTP socket comes from the LD_PRELOAD library
//! (`tests/preload/mctp_preload.c`, built here with cc) and is served by a requester-side
//! daemon (EID 8) linked over a pty (serial binding) to the endpoint's daemon (EID 9). The
//! commands succeed and print the model's values; a wrong controller or namespace gives
//! nvme-cli's error at once, not a hang. Needs `nvme` and libnvme-dev (scripts/install-deps).

mod common;

use common::Daemon;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn spawn(args: &[&str]) -> Daemon {
    common::mctpd(args, &[])
}

/// `nvme ARGS` with the preload library and the requester daemon's control socket.
fn nvme(lib: &Path, control: &Path, args: &[&str]) -> (Output, Duration) {
    let t0 = Instant::now();
    let out = Command::new("nvme")
        .args(args)
        .env("LD_PRELOAD", lib)
        .env("OFFLOAD_MCTPD_CONTROL", control)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .expect("running nvme (nvme-cli: scripts/install-deps)");
    (out, t0.elapsed())
}

fn ok(r: (Output, Duration)) -> String {
    let (out, _) = r;
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh directory with the preload library built in it.
fn preload_lib(name: &str) -> (PathBuf, PathBuf) {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("offload-nvme-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join("liboffload-mctp-preload.so");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/preload/mctp_preload.c");
    let st = Command::new("cc")
        .args(["-shared", "-fPIC", "-O1", "-Wall", "-o"])
        .arg(&lib)
        .arg(src)
        .arg("-ldl")
        .status()
        .expect("running cc");
    assert!(st.success(), "building {src}");
    (dir, lib)
}

#[test]
fn nvme_cli_through_the_preload_library() {
    let (dir, lib) = preload_lib("nvme");
    let (ca, cb) = (dir.join("a.sock"), dir.join("b.sock"));
    let a = spawn(&["--link", "pty", "--eid", "8", "--control", ca.to_str().unwrap()]);
    let pty = a.pty();
    let _b = spawn(&[
        "--link",
        &format!("serial:{pty}"),
        "--eid",
        "9",
        "--nvme-mi",
        "--controllers",
        "2",
        "--namespace",
        "1G",
        "--namespace",
        "16M@4096",
        "--temperature",
        "41",
        "--power-on-hours",
        "777",
        "--serial",
        "SN-NVME-CLI",
        "--control",
        cb.to_str().unwrap(),
    ]);

    let id = ok(nvme(&lib, &ca, &["id-ctrl", "mctp:1,9"]));
    for l in [
        "vid       : 0x1b36\n",
        "sn        : SN-NVME-CLI         \n",
        "mn        : offload NVMe-MI model                   \n",
        "fr        : 1.1.0   \n",
        "cntlid    : 0\n",
        "nn        : 2\n",
        "subnqn    : nqn.2026-11.invalid.offload:nvme-mi-model\n",
    ] {
        assert!(id.contains(l), "{l:?} in\n{id}");
    }
    let id1 = ok(nvme(&lib, &ca, &["id-ctrl", "mctp:1,9:1"]));
    assert!(id1.contains("cntlid    : 0x1\n"), "{id1}");
    let ns = ok(nvme(&lib, &ca, &["id-ns", "mctp:1,9", "-n", "2"]));
    assert!(ns.starts_with("NVME Identify Namespace 2:\nnsze    : 0x1000\n"), "{ns}");
    assert_eq!(ok(nvme(&lib, &ca, &["list-ns", "mctp:1,9"])), "[   0]:0x1\n[   1]:0x2\n");
    assert_eq!(
        ok(nvme(&lib, &ca, &["list-ctrl", "mctp:1,9"])),
        "num of ctrls present: 2\n[   0]:0\n[   1]:0x1\n"
    );
    let smart = ok(nvme(&lib, &ca, &["smart-log", "mctp:1,9"]));
    assert!(smart.contains("temperature\t\t\t\t: 41°C (314 Kelvin)\n"), "{smart}");
    assert!(smart.contains("power_on_hours\t\t\t\t: 777\n"), "{smart}");
    let fw = ok(nvme(&lib, &ca, &["fw-log", "mctp:1,9"]));
    assert!(fw.contains("afi  : 0x2\n") && fw.contains("frs2 : 0x202020302e312e31"), "{fw}");
    assert_eq!(
        ok(nvme(&lib, &ca, &["get-feature", "mctp:1,9", "-f", "4", "-n", "1"])),
        "get-feature:0x04 (Temperature Threshold), Current value:0x00000157\n"
    );
    assert_eq!(
        ok(nvme(&lib, &ca, &["get-feature", "mctp:1,9", "-f", "7", "-n", "1"])),
        "get-feature:0x07 (Number of Queues), Current value:0x003f003f\n"
    );

    // Wrong controller: NVMe-MI's Invalid Parameter; wrong namespace: the controller's status.
    let (out, t) = nvme(&lib, &ca, &["id-ctrl", "mctp:1,9:5"]);
    assert!(!out.status.success() && t < Duration::from_secs(3), "{out:?} after {t:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("NVMe-MI status: Invalid Parameter(0x4)"), "{out:?}");
    let (out, t) = nvme(&lib, &ca, &["id-ns", "mctp:1,9", "-n", "7"]);
    assert!(!out.status.success() && t < Duration::from_secs(3), "{out:?} after {t:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Invalid Namespace or Format") ,
        "{out:?}"
    );
    // That failure is the newest Error Information entry nvme-cli reads back.
    let log = ok(nvme(&lib, &ca, &["error-log", "mctp:1,9", "-e", "1"]));
    assert!(log.contains("error_count\t: 1\n") && log.contains("nsid\t\t: 0x7\n"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A small C program on libnvme-mi's API (tests/libnvme/mi_client.c): MI data structures,
/// health poll with More Processing Required first, Configuration Get/Set and their errors,
/// Admin commands; each call's return value and what it read.
#[test]
fn libnvme_mi_program_through_the_preload_library() {
    let (dir, lib) = preload_lib("libnvme-mi");
    let bin = dir.join("mi_client");
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/libnvme/mi_client.c");
    let st = Command::new("cc")
        .args(["-O1", "-Wall", "-o"])
        .arg(&bin)
        .arg(src)
        .arg("-lnvme-mi")
        .status()
        .expect("running cc");
    assert!(st.success(), "building {src} (libnvme-dev: scripts/install-deps)");
    let (ca, cb) = (dir.join("a.sock"), dir.join("b.sock"));
    let a = spawn(&["--link", "pty", "--eid", "8", "--control", ca.to_str().unwrap()]);
    let pty = a.pty();
    let _b = spawn(&[
        "--link",
        &format!("serial:{pty}"),
        "--eid",
        "9",
        "--nvme-mi",
        "--in-progress",
        "--controllers",
        "2",
        "--temperature",
        "41",
        "--control",
        cb.to_str().unwrap(),
    ]);
    let out = Command::new(&bin)
        .env("LD_PRELOAD", &lib)
        .env("OFFLOAD_MCTPD_CONTROL", &ca)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "\
subsys 0 nump 0 mjr 1 mnr 2
port 0 portt 2 mmctptus 64 mme_addr 0x1d mme_freq 2
ctrl-list 0 num 2
ctrl-info 0 pri 1 vid 0x1b36
ctrl-info-9 0x4
health 0 ctemp 41 pdlu 3 sw 0xff ccs 0
smbus 0 freq 1
set-smbus 0
smbus 0 freq 2
set-smbus-1mhz 0x4
mtu 0 64
set-mtu-100 0x4
set-hsc 0
id-ctrl 0 cntlid 1 nn 1 mn offload NVMe-MI model
smart 0 temp 314
features 0 result 0x3f003f
"
    );
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
