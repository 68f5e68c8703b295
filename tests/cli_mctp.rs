//! The `offload mctp` command forms, run as a user would: packetize → reassemble round trips
//! (plain, with the NVMe-MI MIC, with the SMBus binding) and corrupted input failing cleanly.

mod common;

use common::offload;
use std::process::Output;

fn ok(out: &Output) -> &[u8] {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    &out.stdout
}

fn nvme_mi_message(len: usize) -> Vec<u8> {
    std::iter::once(0x84)
        .chain((1..len).map(|i| (i * 37 + 11) as u8))
        .collect()
}

#[test]
fn packetize_then_reassemble_round_trips() {
    let msg = nvme_mi_message(300);
    let cases: [(&[&str], &[&str]); 3] = [
        (&["--src", "8", "--dst", "0x1d", "--tag", "3", "--to"], &[]),
        (
            &[
                "--src", "0x08", "--dst", "29", "--tag", "0", "--mtu", "100", "--seq", "3", "--ic",
            ],
            &["--ic"],
        ),
        (
            &[
                "--src",
                "8",
                "--dst",
                "29",
                "--tag",
                "7",
                "--to",
                "--ic",
                "--smbus-src",
                "0x10",
                "--smbus-dst",
                "0x1d",
            ],
            &["--ic", "--smbus"],
        ),
    ];
    for (tx, rx) in cases {
        let args: Vec<&str> = ["mctp", "packetize"].iter().chain(tx).copied().collect();
        let out = offload(&args, &msg);
        let text = String::from_utf8(ok(&out).to_vec()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for l in &lines {
            assert!(
                l.bytes()
                    .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)),
                "{l}"
            );
        }
        let args: Vec<&str> = ["mctp", "reassemble"].iter().chain(rx).copied().collect();
        let back = offload(&args, text.as_bytes());
        assert_eq!(ok(&back), &msg[..], "{tx:?}");
        assert!(
            back.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
    }

    // The exact bytes of a small case: 0x84 0x08 0x00 0x00 from EID 8 to 29, tag 3, TO.
    let out = offload(
        &[
            "mctp",
            "packetize",
            "--src",
            "8",
            "--dst",
            "29",
            "--tag",
            "3",
            "--to",
        ],
        &[0x84, 8, 0, 0],
    );
    // Header 01 · dst 1d · src 08 · SOM|EOM|TO|tag 3 = cb, then the message.
    assert_eq!(ok(&out), b"011d08cb84080000\n");
    // With --ic, the MIC is the CRC-32C of the message, low byte first; with SMBus, framed.
    let out = offload(
        &[
            "mctp",
            "packetize",
            "--src",
            "8",
            "--dst",
            "29",
            "--tag",
            "3",
            "--to",
            "--ic",
            "--smbus-src",
            "16",
            "--smbus-dst",
            "29",
        ],
        &[0x84, 8, 0, 0],
    );
    let line = String::from_utf8(ok(&out).to_vec()).unwrap();
    // 3a 0f count=1+4+8=0d 21 | 01 1d 08 cb | 84 08 00 00 | MIC(4) | PEC
    assert!(line.starts_with("3a0f0d21011d08cb84080000"), "{line}");
    assert_eq!(line.trim_end().len(), (4 + 4 + 8 + 1) * 2);
}

#[test]
fn corrupted_or_bad_input_fails_with_one_line() {
    let msg = nvme_mi_message(200);
    let tx = [
        "mctp",
        "packetize",
        "--src",
        "8",
        "--dst",
        "29",
        "--tag",
        "1",
        "--ic",
        "--smbus-src",
        "16",
        "--smbus-dst",
        "29",
    ];
    let text = String::from_utf8(ok(&offload(&tx, &msg)).to_vec()).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 4);

    let check_fails = |args: &[&str], input: &str, needle: &str| {
        let out = offload(args, input.as_bytes());
        assert!(!out.status.success(), "{args:?} succeeded on {input:?}");
        assert!(out.stdout.is_empty(), "partial output: {:?}", out.stdout);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err:?} lacks {needle:?}");
    };

    // A flipped payload octet in the second frame: its PEC fails, the message is incomplete.
    let mut bad = lines.clone();
    let b = u8::from_str_radix(&bad[1][20..22], 16).unwrap() ^ 0x01;
    bad[1].replace_range(20..22, &format!("{b:02x}"));
    check_fails(
        &["mctp", "reassemble", "--ic", "--smbus"],
        &bad.join("\n"),
        "line 2: frame rejected: SMBus PEC",
    );

    // The same flip without SMBus protection is caught by the MIC.
    let raw: Vec<String> = lines
        .iter()
        .map(|l| l[8..l.len() - 2].to_string())
        .collect();
    let mut bad = raw.clone();
    let b = u8::from_str_radix(&bad[2][20..22], 16).unwrap() ^ 0x80;
    bad[2].replace_range(20..22, &format!("{b:02x}"));
    check_fails(
        &["mctp", "reassemble", "--ic"],
        &bad.join("\n"),
        "MIC mismatch",
    );
    assert!(
        ok(&offload(
            &["mctp", "reassemble", "--ic"],
            raw.join("\n").as_bytes()
        )) == &msg[..]
    );

    // A missing middle packet: bad sequence.
    let gap = [raw[0].as_str(), raw[2].as_str(), raw[3].as_str()].join("\n");
    check_fails(&["mctp", "reassemble", "--ic"], &gap, "sequence");
    // No end of message.
    check_fails(
        &["mctp", "reassemble", "--ic"],
        &raw[..3].join("\n"),
        "no complete valid message",
    );
    // Not hex, odd length, empty.
    check_fails(&["mctp", "reassemble"], "01xx\n", "line 1");
    check_fails(
        &["mctp", "reassemble"],
        "\n011d08c\n",
        "line 2: odd number of hex digits",
    );
    check_fails(&["mctp", "reassemble"], "", "no packets");
    // Packetize errors: empty message, IC bit clear with --ic, bad tag, MTU too large for SMBus.
    let pk = [
        "mctp",
        "packetize",
        "--src",
        "8",
        "--dst",
        "29",
        "--tag",
        "1",
    ];
    let out = offload(&pk, b"");
    assert!(!out.status.success() && out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("empty message"));
    let out = offload(&[&pk[..], &["--ic"]].concat(), &[0x04, 8, 0, 0]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("IC bit"));
    let out = offload(
        &[
            "mctp",
            "packetize",
            "--src",
            "8",
            "--dst",
            "29",
            "--tag",
            "9",
        ],
        &msg,
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("tag 9"));
    let out = offload(
        &[
            &pk[..],
            &["--mtu", "251", "--smbus-src", "1", "--smbus-dst", "2"],
        ]
        .concat(),
        &msg,
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("SMBus"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

/// The MCTP TX block's Verilog (Verilator) packetizes exactly what the software does, through
/// the CLI: plain, MIC split over two packets, SMBus, odd MTUs; and refuses what it refuses.
#[test]
fn packetize_backend_sim_equals_sw() {
    let cases: [(usize, &[&str]); 5] = [
        (300, &["--src", "8", "--dst", "0x1d", "--tag", "3", "--to"]),
        (62, &["--src", "8", "--dst", "9", "--tag", "0", "--ic", "--smbus-src", "0x10", "--smbus-dst", "0x1d"]),
        (1000, &["--src", "0x20", "--dst", "0xff", "--tag", "7", "--mtu", "251", "--seq", "2", "--ic"]),
        (4220, &["--src", "0", "--dst", "0", "--tag", "1", "--mtu", "77", "--ic", "--smbus-src", "1", "--smbus-dst", "0x7f"]),
        (1, &["--src", "9", "--dst", "8", "--tag", "5", "--mtu", "250", "--smbus-src", "2", "--smbus-dst", "3"]),
    ];
    for (len, opts) in cases {
        let msg = nvme_mi_message(len);
        let run = |backend: &str| {
            let mut a = vec!["mctp", "packetize", "--backend", backend];
            a.extend(opts);
            let o = offload(&a, &msg);
            ok(&o).to_vec()
        };
        let sw = run("sw");
        assert!(sw.ends_with(b"\n") && sw.len() > 2 * len, "{opts:?}");
        assert_eq!(String::from_utf8(run("sim")).unwrap(), String::from_utf8(sw).unwrap(), "{len} octets, {opts:?}");
    }
    // Refusals are the same whatever the backend.
    for (msg, opts) in [
        (nvme_mi_message(10), &["--src", "8", "--dst", "9", "--tag", "0", "--mtu", "251", "--smbus-src", "1", "--smbus-dst", "2"][..]),
        (vec![0x04, 1, 2], &["--src", "8", "--dst", "9", "--tag", "0", "--ic"][..]),
        (nvme_mi_message(4221), &["--src", "8", "--dst", "9", "--tag", "0", "--ic"][..]),
        (nvme_mi_message(10), &["--src", "3", "--dst", "9", "--tag", "0"][..]),
    ] {
        let err = |backend: &str| {
            let mut a = vec!["mctp", "packetize", "--backend", backend];
            a.extend(opts);
            let o = offload(&a, &msg);
            assert!(!o.status.success() && o.stdout.is_empty(), "{backend} {opts:?} succeeded");
            String::from_utf8_lossy(&o.stderr).into_owned()
        };
        assert_eq!(err("sim"), err("sw"), "{opts:?}");
    }
}

/// `reassemble --backend sim` runs the MCTP RX block: the same message, the same warnings and
/// the same one-line errors as `sw` on good, corrupted and reordered input (plain, MIC, SMBus);
/// where the input meets one of the block's limits, an error naming the line instead.
#[test]
fn reassemble_backend_sim_equals_sw() {
    let run = |opts: &[&str], input: &str| {
        let out = |backend: &str| {
            let mut a = vec!["mctp", "reassemble", "--backend", backend];
            a.extend(opts);
            offload(&a, input.as_bytes())
        };
        let (sw, sim) = (out("sw"), out("sim"));
        let text = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(sim.status.success(), sw.status.success(), "{opts:?}: sim said {}", text(&sim));
        assert_eq!(sim.stdout, sw.stdout, "{opts:?}");
        assert_eq!(text(&sim), text(&sw), "{opts:?}");
        sw
    };
    let msg = nvme_mi_message(300);
    let packetize = |extra: &[&str]| -> Vec<String> {
        let mut a = vec!["mctp", "packetize", "--src", "8", "--dst", "29", "--tag", "2", "--to"];
        a.extend(extra);
        String::from_utf8(ok(&offload(&a, &msg)).to_vec()).unwrap().lines().map(str::to_string).collect()
    };
    let flip = |l: &str, at: usize| -> String {
        let mut b: Vec<u8> = (0..l.len() / 2).map(|i| u8::from_str_radix(&l[2 * i..2 * i + 2], 16).unwrap()).collect();
        b[at] ^= 0x10;
        b.iter().map(|x| format!("{x:02x}")).collect()
    };
    for (tx, rx) in [
        (vec![], vec![]),
        (vec!["--ic"], vec!["--ic"]),
        (vec!["--ic", "--smbus-src", "16", "--smbus-dst", "29"], vec!["--ic", "--smbus"]),
    ] {
        let p = packetize(&tx);
        assert_eq!(p.len(), 5, "{tx:?}");
        let good = run(&rx, &p.join("\n"));
        assert_eq!(ok(&good), &msg[..]);
        let smbus = rx.contains(&"--smbus");
        let body = if smbus { 8 } else { 5 }; // an octet of the packet payload
        let variants: Vec<Vec<String>> = vec![
            // A packet lost, duplicated, two swapped, the last missing.
            [&p[..2], &p[3..]].concat(),
            [&p[..3], &p[2..]].concat(),
            vec![p[0].clone(), p[2].clone(), p[1].clone(), p[3].clone(), p[4].clone()],
            p[..4].to_vec(),
            // A payload bit flipped (the PEC or the MIC catches it), a header bit flipped.
            [&p[..2], &[flip(&p[2], body)], &p[3..]].concat(),
            [&p[..1], &[flip(&p[1], if smbus { 7 } else { 3 })], &p[1..]].concat(),
            // A stray packet before the message, a restart after a partial one.
            [&p[3..4], &p[..]].concat(),
            [&p[..2], &p[..]].concat(),
        ];
        for (i, v) in variants.iter().enumerate() {
            let o = run(&rx, &v.join("\n"));
            if i == 6 || i == 7 {
                assert_eq!(ok(&o), &msg[..], "{tx:?} variant {i}");
            }
            // The stray packet's drop is reported (a restart is counted, not a problem).
            if i == 6 || i == 7 {
                assert_eq!(o.stderr.is_empty(), i == 7, "{tx:?} variant {i}");
            }
        }
    }
    // The block has one reassembly context: a second message interleaved is its limit, not a
    // different answer.
    let a = packetize(&[]);
    let mut b = {
        let mut x = vec!["mctp", "packetize", "--src", "9", "--dst", "29", "--tag", "5", "--to"];
        x.push("--mtu");
        x.push("64");
        String::from_utf8(ok(&offload(&x, &msg)).to_vec()).unwrap().lines().map(str::to_string).collect::<Vec<_>>()
    };
    b.truncate(2);
    let input = [&a[..1], &b[..], &a[1..]].concat().join("\n");
    let sw = offload(&["mctp", "reassemble"], input.as_bytes());
    assert_eq!(ok(&sw), &msg[..]);
    let sim = offload(&["mctp", "reassemble", "--backend", "sim"], input.as_bytes());
    assert!(!sim.status.success());
    let e = String::from_utf8_lossy(&sim.stderr);
    assert!(e.contains("line 2: ") && e.contains("one reassembly context") && e.lines().count() == 1, "{e}");
}
