//! Helpers shared by the CLI integration tests.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs the built `offload` binary with `args`, feeding `stdin`, and returns what it did.
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
