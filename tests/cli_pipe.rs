//! A reader that stops early (`offload … | head`) ends the command quietly, never with a panic.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

#[test]
fn closed_stdout_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_offload"))
        .args(["mctp", "packetize", "--src", "8", "--dst", "9", "--tag", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // ~1000 packets of hex: far more than a pipe buffer holds.
    let mut msg = vec![0x05u8];
    msg.extend((0..60_000u32).map(|i| (i * 31) as u8));
    child.stdin.take().unwrap().write_all(&msg).unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.starts_with("01090881"), "{first}");
    // The reader is gone now (dropped above); the writer must end without a panic.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
