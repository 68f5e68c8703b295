//! `offload mctpd` and the `offload mctp link|addr|route show|ping|send` forms, as separate
//! processes: two daemons over a pty pair (one makes it, the other opens the slave), over TCP,
//! and the control socket's default path.

mod common;

use common::{offload, Daemon};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn spawn(args: &[&str], env: &[(&str, &Path)]) -> Daemon {
    common::mctpd(args, env)
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("offload-cli-mctpd-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn mctp(args: &[&str], control: &Path) -> Output {
    let mut v = vec!["mctp"];
    v.extend_from_slice(args);
    v.extend_from_slice(&["--control", control.to_str().unwrap()]);
    offload(&v, b"")
}

/// Retries `f` for up to 10 s until it gives `Some`.
fn eventually<T>(mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < Duration::from_secs(10), "timed out");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn two_daemons_over_a_pty_pair() {
    let dir = tmpdir("pty");
    let (ca, cb) = (dir.join("a.sock"), dir.join("b.sock"));
    let a = spawn(
        &[
            "--link",
            "pty",
            "--eid",
            "8",
            "--echo",
            "0x7e",
            "--bus-owner",
            "0x20-0x2f",
            "--control",
            ca.to_str().unwrap(),
        ],
        &[],
    );
    let pty = a
        .banner
        .split("(pty ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("pty path in banner")
        .to_string();
    assert!(pty.starts_with("/dev/"), "{}", a.banner);
    let serial = format!("serial:{pty}");
    // B has no EID: A, the bus owner, assigns it the first of its pool.
    let _b = spawn(
        &[
            "--link",
            &serial,
            "--nvme-mi",
            "--in-progress",
            "--control",
            cb.to_str().unwrap(),
        ],
        &[],
    );
    let addrs = eventually(|| {
        let s = ok(&mctp(&["addr", "show"], &cb));
        s.contains("eid 32 ").then_some(s)
    });
    assert_eq!(addrs, "eid 32 net 1 dev serial0\n");

    // ping: a control Get Endpoint ID round trip, both ways.
    let p = ok(&mctp(&["ping", "--eid", "0x20", "--count", "3"], &ca));
    assert_eq!(p.lines().count(), 3, "{p}");
    assert!(
        p.lines()
            .all(|l| l.starts_with("reply from eid 32: eid 32 endpoint-type 0")),
        "{p}"
    );
    let p = ok(&mctp(&["ping", "--eid", "8"], &cb));
    assert!(
        p.starts_with("reply from eid 8: eid 8 endpoint-type 1 eid-type 2"),
        "{p}"
    );

    // send: A echoes type 0x7E; B sees its own request come back, body from --data or stdin.
    assert_eq!(
        ok(&mctp(
            &["send", "--type", "0x7e", "--eid", "8", "--data", "01 02 ff"],
            &cb
        )),
        "7e0102ff\n"
    );
    let out = offload(
        &[
            "mctp",
            "send",
            "--type",
            "126",
            "--eid",
            "8",
            "--control",
            cb.to_str().unwrap(),
        ],
        &[0x7E; 300],
    );
    assert_eq!(ok(&out).trim(), format!("7e{}", "7e".repeat(300)));

    // NVMe-MI Health Status Poll with the MIC: "More Processing Required", then the status.
    let req = "080000 01000000 00000000 00000000"; // NMP: MI command · opcode 01h · dwords 0
    let out = ok(&mctp(
        &[
            "send",
            "--type",
            "4",
            "--ic",
            "--eid",
            "0x20",
            "--responses",
            "2",
            "--data",
            req,
        ],
        &ca,
    ));
    // More Processing Required carries its MPRT (1: 100 ms) in octets 6-7.
    assert_eq!(out, "8488000001000100\n848800000000000030ff250300000000\n");

    // A raw control request through `send`: Get MCTP Version Support for NVMe-MI (type 4).
    assert_eq!(
        ok(&mctp(&["send", "--type", "0", "--eid", "0x20", "--data", "80 04 04"], &ca)),
        "0000040001f1f0ff00\n"
    );

    // The mctp utility's views.
    assert_eq!(
        ok(&mctp(&["link", "show"], &ca)),
        "dev serial0 index 1 address none net 1 mtu 68 up kind serial\n"
    );
    assert_eq!(
        ok(&mctp(&["addr", "show"], &ca)),
        "eid 8 net 1 dev serial0\n"
    );
    assert_eq!(
        ok(&mctp(&["route", "show"], &ca)),
        "eid min 8 max 254 net 1 dev serial0 mtu 0 metric 100\neid min 32 max 32 net 1 dev serial0 mtu 0 metric 0\n"
    );

    // Nobody at EID 0x44: a one-line error, nothing on stdout.
    let out = mctp(&["ping", "--eid", "0x44", "--timeout", "200"], &ca);
    assert!(!out.status.success() && out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("offload: error: ")
            && err.contains("no response")
            && err.lines().count() == 1,
        "{err}"
    );
    // No one answers type 5.
    let out = mctp(
        &[
            "send",
            "--type",
            "5",
            "--eid",
            "0x20",
            "--timeout",
            "200",
            "--data",
            "00",
        ],
        &ca,
    );
    assert!(!out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn daemons_over_tcp_and_the_default_control_socket() {
    let dir = tmpdir("tcp");
    let env = [("XDG_RUNTIME_DIR", dir.as_path())];
    let a = spawn(
        &[
            "--link",
            "tcp:127.0.0.1:0",
            "--listen",
            "--eid",
            "8",
            "--echo",
            "0x7f",
        ],
        &env,
    );
    let addr = a.banner.trim().rsplit(' ').next().unwrap().to_string();
    assert!(
        a.banner.contains("listening on tcp 127.0.0.1:"),
        "{}",
        a.banner
    );
    let _b = spawn(
        &[
            "--link",
            &format!("tcp:{addr}"),
            "--eid",
            "9",
            "--mtu",
            "255",
        ],
        &env,
    );
    // A's control socket appears once B connected.
    let sock_a = dir.join("offload-mctpd-eid8.sock");
    eventually(|| sock_a.exists().then_some(()));
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_offload"))
            .args(args)
            .env("XDG_RUNTIME_DIR", &dir)
            .output()
            .unwrap();
        out
    };
    // --local EID finds a daemon's default socket.
    let p = ok(&run(&["mctp", "ping", "--eid", "9", "--local", "8"]));
    assert!(p.starts_with("reply from eid 9: eid 9"), "{p}");
    let msg = "ab".repeat(1000);
    let out = ok(&run(&[
        "mctp", "send", "--type", "0x7f", "--eid", "8", "--local", "9", "--data", &msg,
    ]));
    assert_eq!(out.trim(), format!("7f{msg}"));
    assert!(ok(&run(&["mctp", "link", "show", "--local", "9"])).contains(" mtu 255 up"));
    // Two daemons and no flag: ambiguous, an error that says what to do.
    let out = run(&["mctp", "link", "show"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--control"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_daemon_and_client_forms_fail_cleanly() {
    for args in [
        &["mctpd", "--link", "bogus", "--eid", "8"][..],
        &["mctpd", "--link", "serial:/nonexistent/tty", "--eid", "8"],
        &["mctpd", "--link", "pty", "--eid", "3"],
        &["mctpd", "--link", "pty", "--eid", "8", "--mtu", "300"],
        &[
            "mctp",
            "ping",
            "--eid",
            "9",
            "--control",
            "/nonexistent/sock",
        ],
        &[
            "mctp",
            "send",
            "--type",
            "0x80",
            "--eid",
            "9",
            "--control",
            "/nonexistent/sock",
        ],
    ] {
        let out = offload(args, b"");
        assert!(!out.status.success(), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("offload: error: ") || err.starts_with("error: "),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn daemons_over_a_unix_socket_and_the_only_control_socket() {
    let dir = tmpdir("unix");
    let run_dir = dir.join("run");
    std::fs::create_dir_all(&run_dir).unwrap();
    let env = [("XDG_RUNTIME_DIR", run_dir.as_path())];
    let link = format!("unix:{}", dir.join("link.sock").display());
    let a = spawn(&["--link", &link, "--listen", "--eid", "8"], &env);
    assert!(a.banner.contains("listening on unix"), "{}", a.banner);
    // B's control socket lives elsewhere, so A's is the only one in the default directory.
    let cb = dir.join("b.sock");
    let _b = spawn(
        &[
            "--link",
            &link,
            "--eid",
            "9",
            "--control",
            cb.to_str().unwrap(),
        ],
        &env,
    );
    eventually(|| {
        run_dir
            .join("offload-mctpd-eid8.sock")
            .exists()
            .then_some(())
    });
    let out = Command::new(env!("CARGO_BIN_EXE_offload"))
        .args(["mctp", "ping", "--eid", "9"])
        .env("XDG_RUNTIME_DIR", &run_dir)
        .output()
        .unwrap();
    assert!(ok(&out).starts_with("reply from eid 9: eid 9"));
    assert!(ok(&mctp(&["ping", "--eid", "8"], &cb)).starts_with("reply from eid 8: eid 8"));
    let _ = std::fs::remove_dir_all(&dir);
}
