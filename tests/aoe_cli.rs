//! `offload aoe` argument and input checking, which needs no root: malformed targets and MAC
//! addresses, stdin of the wrong size, a missing file or interface all fail with a message and
//! no output. The traffic itself is tested in `aoe_netns.rs`.

mod common;

use common::offload;

fn fails_with(args: &[&str], stdin: &[u8], needle: &str) {
    let out = offload(args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
    assert!(err.contains(needle), "{args:?}: {err}");
}

#[test]
fn malformed_targets_are_refused() {
    for t in ["1", "1.2.3", "65535.1", "1.255", "x.1", "1.256"] {
        fails_with(
            &[
                "aoe", "read", "--iface", "lo", "--target", t, "--lba", "0", "--count", "1",
            ],
            b"",
            "is not shelf.slot",
        );
    }
}

#[test]
fn write_needs_exactly_count_sectors_on_stdin() {
    fails_with(
        &[
            "aoe", "write", "--iface", "lo", "--target", "1.1", "--lba", "0", "--count", "2",
        ],
        &[0; 1000],
        "stdin has 1000 octets; --count 2 needs exactly 1024",
    );
}

#[test]
fn serve_reports_a_missing_file_or_interface() {
    fails_with(
        &[
            "aoe",
            "serve",
            "--iface",
            "lo",
            "--shelf",
            "1",
            "--slot",
            "1",
            "/nonexistent/disk.img",
        ],
        b"",
        "opening /nonexistent/disk.img",
    );
    let img = std::env::temp_dir().join(format!("offload-aoe-cli-{}.img", std::process::id()));
    std::fs::write(&img, [0u8; 4096]).unwrap();
    let p = img.to_str().unwrap();
    fails_with(
        &[
            "aoe",
            "serve",
            "--iface",
            "nosuchif0",
            "--shelf",
            "1",
            "--slot",
            "1",
            p,
        ],
        b"",
        "nosuchif0",
    );
    fails_with(
        &[
            "aoe",
            "serve",
            "--iface",
            "lo",
            "--shelf",
            "1",
            "--slot",
            "1",
            "--mask",
            "02:00:00:00:00",
            p,
        ],
        b"",
        "is not a MAC address",
    );
    let _ = std::fs::remove_file(&img);
}
