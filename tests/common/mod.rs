//! Helpers shared by the CLI integration tests.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// Runs the built `offload` binary with `args`, feeding `stdin`, and returns what it did.
#[allow(dead_code)]
pub fn offload(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_offload"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn offload");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// A running `offload mctpd`, killed (by its pid) when dropped.
#[allow(dead_code)] // Each test crate compiles this module; not all of them start daemons.
pub struct Daemon {
    child: Child,
    _stdout: BufReader<std::process::ChildStdout>,
    /// Its first stdout line.
    pub banner: String,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[allow(dead_code)]
impl Daemon {
    /// The pty slave path a `--link pty` daemon printed in its banner.
    pub fn pty(&self) -> String {
        self.banner.split("(pty ").nth(1).and_then(|s| s.split(')').next()).expect("a pty banner").to_string()
    }
}

/// Starts `offload mctpd ARGS` with extra environment `env` and waits for its banner.
#[allow(dead_code)]
pub fn mctpd(args: &[&str], env: &[(&str, &Path)]) -> Daemon {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_offload"));
    cmd.arg("mctpd").args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn offload mctpd");
    let mut banner = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut banner).unwrap();
    assert!(banner.starts_with("offload mctpd: "), "daemon said {banner:?}");
    Daemon { child, _stdout: stdout, banner }
}
