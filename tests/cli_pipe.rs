//! A reader that goes away early (`offload … | head`) ends the command quietly, never with a
//! panic from `println!` on a closed pipe.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn closed_stdout_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_offload"))
        .args(["crc", "--algo", "crc32c"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the command prints anything.
    drop(child.stdout.take());
    child.stdin.take().unwrap().write_all(b"123456789").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.is_empty(), "a closed pipe is not an error to report: {err}");
}
