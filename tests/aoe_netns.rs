//! AoE over real AF_PACKET sockets between two network namespaces joined by a veth pair:
//! our initiator against vblade and against our target (random data written, read back,
//! compared by CRC-32C and octet by octet, and checked in the served file), the Mac Mask List
//! and reservations between two MAC addresses, and bad frames on the wire.
//!
//! Needs root (namespaces, raw sockets); without it each test prints why and passes.

use offload_driver::aoe::ata::{cmd, error as ata_error, status, AtaArg, SECTOR};
use offload_driver::aoe::config::{self, QueryConfig};
use offload_driver::aoe::header::*;
use offload_driver::aoe::mask::{self, Directive, MacMask};
use offload_driver::aoe::netns::{is_root, VethPair};
use offload_driver::aoe::reserve::{self, Reserve};
use offload_driver::aoe::{
    discover, Client, ClientError, ClientOptions, InitiatorError, Link, PacketSocket,
};
use offload_driver::crc::crc32c;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

fn pair(mtu: usize) -> Option<VethPair> {
    if !is_root() {
        eprintln!("skipping: network namespaces and raw sockets need root");
        return None;
    }
    Some(VethPair::create(mtu).expect("creating namespaces and a veth pair"))
}

/// A sparse image file removed on drop.
struct Image(PathBuf);

impl Image {
    fn new(name: &str, bytes: u64) -> Image {
        let p = std::env::temp_dir().join(format!("offload-aoe-{}-{name}.img", std::process::id()));
        std::fs::File::create(&p).unwrap().set_len(bytes).unwrap();
        Image(p)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `offload args` in the client namespace.
fn offload_in(p: &VethPair, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = VethPair::command(&p.client_ns, env!("CARGO_BIN_EXE_offload"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Waits until target `major`.`minor` answers discovery.
fn wait_for(p: &VethPair, major: u16, minor: u8) {
    let mut s = p.client_socket().unwrap();
    let end = Instant::now() + Duration::from_secs(10);
    while Instant::now() < end {
        let found = discover(&mut s, Duration::from_millis(100)).unwrap();
        if found.iter().any(|d| d.major == major && d.minor == minor) {
            return;
        }
    }
    panic!("target e{major}.{minor} never answered");
}

fn random(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..len).map(|_| rng.gen()).collect()
}

/// Writes 1 MiB of random data at LBA 100 with `offload aoe write`, reads it back with
/// `offload aoe read`, and compares; then checks the served file holds it.
fn round_trip(p: &VethPair, target: &str, img: &Image) {
    let data = random(1 << 20, 42);
    let count = (data.len() / SECTOR).to_string();
    let io = |verb: &str| -> Vec<String> {
        [
            "aoe",
            verb,
            "--iface",
            &p.client_if,
            "--target",
            target,
            "--lba",
            "100",
            "--count",
            &count,
        ]
        .map(String::from)
        .to_vec()
    };
    let w = io("write");
    ok(offload_in(
        p,
        &w.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        &data,
    ));
    let r = io("read");
    let back = ok(offload_in(
        p,
        &r.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        b"",
    ));
    assert_eq!(crc32c(&back), crc32c(&data));
    assert!(back == data, "read-back data differs");
    let file = std::fs::read(&img.0).unwrap();
    assert!(
        file[100 * SECTOR..100 * SECTOR + data.len()] == data[..],
        "file contents differ"
    );
}

fn discover_lines(p: &VethPair) -> String {
    String::from_utf8(ok(offload_in(
        p,
        &[
            "aoe",
            "discover",
            "--iface",
            &p.client_if,
            "--wait-ms",
            "300",
        ],
        b"",
    )))
    .unwrap()
}

#[test]
fn our_initiator_against_vblade() {
    for (mtu, sectors) in [(1500, 2), (9000, 17)] {
        let Some(mut p) = pair(mtu) else { return };
        let img = Image::new(&format!("vblade{mtu}"), 4 << 20);
        let iface = p.target_if.clone();
        p.spawn("vblade", &["3", "1", &iface, img.path()]).unwrap();
        wait_for(&p, 3, 1);
        let d = discover_lines(&p);
        let want = format!(" buffers=16 sectors={sectors} ");
        assert!(
            d.lines()
                .any(|l| l.starts_with("3.1 mac=") && l.contains(&want)),
            "{d}"
        );
        round_trip(&p, "3.1", &img);
        // Past the end: refused before anything is sent.
        let out = offload_in(
            &p,
            &[
                "aoe",
                "read",
                "--iface",
                &p.client_if,
                "--target",
                "3.1",
                "--lba",
                "8191",
                "--count",
                "2",
            ],
            b"",
        );
        assert!(!out.status.success() && out.stdout.is_empty());
    }
}

#[test]
fn our_initiator_against_our_target_with_jumbo_frames() {
    let Some(mut p) = pair(9000) else { return };
    let img = Image::new("ours", 4 << 20);
    let mut listener = p.client_socket().unwrap();
    let (exe, iface) = (env!("CARGO_BIN_EXE_offload"), p.target_if.clone());
    let t = p
        .spawn(
            exe,
            &[
                "aoe",
                "serve",
                "--iface",
                &iface,
                "--shelf",
                "5",
                "--slot",
                "2",
                img.path(),
            ],
        )
        .unwrap();
    // §3.2: the boot-time broadcast, a Query Config response with tag 0.
    let mut buf = vec![0; 9100];
    let end = Instant::now() + Duration::from_secs(10);
    let announce = loop {
        assert!(Instant::now() < end, "no boot-time broadcast");
        if let Some(n) = listener.recv(&mut buf, Duration::from_millis(100)).unwrap() {
            break Header::parse(&buf[..n]).unwrap();
        }
    };
    let h = announce.0;
    assert_eq!(
        (h.dst, h.tag, h.flags, h.command),
        (BROADCAST, 0, FLAG_RESPONSE, CMD_QUERY_CONFIG)
    );
    assert_eq!(
        (h.major, h.minor, h.src),
        (5, 2, p.target_socket().unwrap().mac())
    );
    let d = discover_lines(&p);
    assert!(
        d.lines()
            .any(|l| l.starts_with("5.2 mac=") && l.contains(" buffers=16 sectors=17 ")),
        "{d}"
    );
    round_trip(&p, "5.2", &img);
    assert!(p.running(t));
    let log = p.stop(t);
    assert!(log.contains("0 dropped"), "{log}");
}

fn client(p: &VethPair, major: u16, minor: u8, mac: Option<Mac>) -> Client<PacketSocket> {
    let opts = ClientOptions {
        rto: Duration::from_millis(30),
        retries: 2,
        source_mac: mac,
        ..ClientOptions::default()
    };
    Client::connect(p.client_socket().unwrap(), major, minor, opts).unwrap()
}

fn identify_arg() -> Vec<u8> {
    let mut a = Vec::new();
    AtaArg::command(cmd::IDENTIFY_DEVICE, 0, 1, false, false).write(&mut a);
    a
}

fn aoe_error(r: Result<impl std::fmt::Debug, ClientError>) -> AoeError {
    match r {
        Err(ClientError::Aoe(e)) => e,
        Err(ClientError::Initiator(InitiatorError::Aoe { error, .. })) => error,
        other => panic!("expected an AoE error, got {other:?}"),
    }
}

#[test]
fn mask_list_and_reservations_between_two_macs() {
    let Some(mut p) = pair(1500) else { return };
    let img = Image::new("secure", 1 << 20);
    let (exe, iface) = (env!("CARGO_BIN_EXE_offload"), p.target_if.clone());
    p.spawn(
        exe,
        &[
            "aoe",
            "serve",
            "--iface",
            &iface,
            "--shelf",
            "7",
            "--slot",
            "0",
            img.path(),
        ],
    )
    .unwrap();
    wait_for(&p, 7, 0);
    // A is the client interface's own address; B another host on the same link.
    let mut a = client(&p, 7, 0, None);
    let a_mac = a.link().mac();
    let b_mac: Mac = [0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0x0B];
    let mut b = client(&p, 7, 0, Some(b_mac));

    // Mask: only A. B is then ignored for every command.
    let r = a
        .mac_mask(&MacMask::edit(&[Directive {
            dcmd: mask::DCMD_ADD,
            mac: a_mac,
        }]))
        .unwrap();
    assert_eq!((r.merror, r.macs()), (0, vec![a_mac]));
    let mut qarg = Vec::new();
    QueryConfig::command(config::CCMD_READ, b"").write(&mut qarg);
    let mut marg = Vec::new();
    MacMask::read().write(&mut marg);
    let mut rarg = Vec::new();
    Reserve::default().write(&mut rarg);
    for (c, arg) in [
        (CMD_ATA, identify_arg()),
        (CMD_QUERY_CONFIG, qarg),
        (CMD_MAC_MASK, marg),
        (CMD_RESERVE, rarg),
        (0x42, vec![]),
    ] {
        assert!(
            b.transact(c, &arg).unwrap().is_none(),
            "command {c} answered to a masked MAC"
        );
        assert!(
            a.transact(c, &arg).unwrap().is_some(),
            "command {c} not answered"
        );
    }
    assert!(matches!(
        b.read(0, 1),
        Err(ClientError::Initiator(InitiatorError::Timeout { .. }))
    ));
    assert!(matches!(
        Client::connect(
            p.client_socket().unwrap(),
            7,
            0,
            ClientOptions {
                rto: Duration::from_millis(30),
                retries: 1,
                source_mac: Some(b_mac),
                ..Default::default()
            }
        ),
        Err(ClientError::NoTarget { major: 7, minor: 0 })
    ));
    // Clear the mask: B is served again.
    let r = a
        .mac_mask(&MacMask::edit(&[Directive {
            dcmd: mask::DCMD_DELETE,
            mac: a_mac,
        }]))
        .unwrap();
    assert!(r.macs().is_empty());
    assert_eq!(b.read(0, 1).unwrap().len(), SECTOR);

    // A reserves: B's reads and writes get error 6, other commands still work for B.
    assert_eq!(
        a.reserve(&Reserve {
            rcmd: reserve::RCMD_SET,
            macs: vec![a_mac]
        })
        .unwrap(),
        vec![a_mac]
    );
    assert_eq!(aoe_error(b.read(0, 4)), AoeError::TargetReserved);
    assert_eq!(aoe_error(b.write(0, &[7; 1024])), AoeError::TargetReserved);
    let (h, arg) = b.transact(CMD_ATA, &identify_arg()).unwrap().unwrap();
    assert_eq!(h.aoe_error(), Ok(None));
    assert_eq!(AtaArg::parse(&arg).unwrap().0.cmd_status, status::DRDY);
    assert_eq!(
        b.query_config(config::CCMD_READ, b"").unwrap().buffer_count,
        16
    );
    a.write(0, &[9; 1024]).unwrap();
    assert_eq!(a.read(0, 2).unwrap(), vec![9; 1024]);
    assert_eq!(
        aoe_error(b.reserve(&Reserve {
            rcmd: reserve::RCMD_SET,
            macs: vec![b_mac]
        })),
        AoeError::TargetReserved
    );
    // RCmd 2 forces it; now A is the one refused.
    assert_eq!(
        b.reserve(&Reserve {
            rcmd: reserve::RCMD_FORCE_SET,
            macs: vec![b_mac]
        })
        .unwrap(),
        vec![b_mac]
    );
    assert_eq!(aoe_error(a.read(0, 1)), AoeError::TargetReserved);
    assert!(b
        .reserve(&Reserve {
            rcmd: reserve::RCMD_SET,
            macs: vec![]
        })
        .unwrap()
        .is_empty());
    assert_eq!(a.read(0, 2).unwrap(), vec![9; 1024]);

    // The config string over the wire: set, set again (error 4), test.
    assert_eq!(
        a.query_config(config::CCMD_SET, b"owner=a").unwrap().config,
        b"owner=a"
    );
    assert_eq!(
        aoe_error(b.query_config(config::CCMD_SET, b"owner=b")),
        AoeError::ConfigStringPresent
    );
    assert!(matches!(
        b.query_config(config::CCMD_TEST, b"owner=b"),
        Err(ClientError::NoResponse)
    ));
    assert_eq!(
        b.query_config(config::CCMD_TEST_PREFIX, b"owner")
            .unwrap()
            .config,
        b"owner=a"
    );
}

/// Sends `f` from the client end and waits briefly for the response to its tag.
fn ask(s: &mut PacketSocket, f: &[u8]) -> Option<(Header, Vec<u8>)> {
    s.send(f).unwrap();
    let tag = &f[20..24];
    let mut buf = vec![0; 2048];
    let end = Instant::now() + Duration::from_millis(300);
    while let Some(n) = s
        .recv(&mut buf, end.saturating_duration_since(Instant::now()))
        .unwrap()
    {
        if buf[14] & FLAG_RESPONSE != 0 && &buf[20..24] == tag {
            let (h, arg) = Header::parse(&buf[..n]).unwrap();
            return Some((h, arg.to_vec()));
        }
    }
    None
}

#[test]
fn bad_frames_are_answered_or_ignored_per_the_spec() {
    let Some(mut p) = pair(1500) else { return };
    let img = Image::new("bad", 64 * SECTOR as u64);
    let (exe, iface) = (env!("CARGO_BIN_EXE_offload"), p.target_if.clone());
    let t = p
        .spawn(
            exe,
            &[
                "aoe",
                "serve",
                "--iface",
                &iface,
                "--shelf",
                "9",
                "--slot",
                "9",
                img.path(),
            ],
        )
        .unwrap();
    wait_for(&p, 9, 9);
    let mut s = p.client_socket().unwrap();
    let me = s.mac();
    let frame = |ver_flags: u8, major: u16, command: u8, tag: u32, arg: &[u8]| {
        let mut f = Vec::new();
        Header::request(me, BROADCAST, major, 9, command, tag).write(&mut f);
        f[14] = ver_flags;
        f.extend_from_slice(arg);
        f
    };
    let ata = |a: AtaArg, data: &[u8]| {
        let mut arg = Vec::new();
        a.write(&mut arg);
        arg.extend_from_slice(data);
        arg
    };
    let code = |r: Option<(Header, Vec<u8>)>| r.expect("a response").0.aoe_error();

    // Runts shorter than the AoE header: ignored.
    let good = frame(0x10, 9, CMD_QUERY_CONFIG, 1, &[0; 8]);
    s.send_unpadded(&good[..20]).unwrap();
    let mut buf = vec![0; 2048];
    assert!(s
        .recv(&mut buf, Duration::from_millis(300))
        .unwrap()
        .is_none());
    // Another shelf: ignored. Version 2: error 5. Unknown command: error 1.
    assert!(ask(&mut s, &frame(0x10, 8, CMD_QUERY_CONFIG, 2, &[0; 8])).is_none());
    assert_eq!(
        code(ask(&mut s, &frame(0x20, 9, CMD_QUERY_CONFIG, 3, &[0; 8]))),
        Ok(Some(AoeError::UnsupportedVersion))
    );
    assert_eq!(
        code(ask(&mut s, &frame(0x10, 9, 0x42, 4, &[]))),
        Ok(Some(AoeError::UnrecognizedCommand))
    );
    // Bad arguments: error 2.
    let write_short = ata(
        AtaArg::command(cmd::WRITE_SECTORS_EXT, 0, 2, true, true),
        &[1; SECTOR],
    );
    let bad_args: [(u8, Vec<u8>); 4] = [
        (CMD_ATA, write_short),
        (CMD_QUERY_CONFIG, vec![0, 0, 0, 0, 0, 9, 0, 0]),
        (CMD_MAC_MASK, vec![0, 3, 0, 0]),
        (CMD_RESERVE, vec![7, 0]),
    ];
    for (i, (c, arg)) in bad_args.iter().enumerate() {
        let r = ask(&mut s, &frame(0x10, 9, *c, 10 + i as u32, arg));
        assert_eq!(code(r), Ok(Some(AoeError::BadArgument)), "command {c}");
    }
    // Past the end and unknown ATA commands: answered with ATA status and error.
    for (a, err) in [
        (
            AtaArg::command(cmd::READ_SECTORS_EXT, 63, 2, true, false),
            ata_error::IDNF,
        ),
        (
            AtaArg::command(cmd::READ_SECTORS, 1 << 20, 1, false, false),
            ata_error::IDNF,
        ),
        (AtaArg::command(0xB0, 0, 0, false, false), ata_error::ABRT),
    ] {
        let (h, arg) = ask(&mut s, &frame(0x10, 9, CMD_ATA, 20, &ata(a, &[]))).expect("a response");
        assert_eq!(h.aoe_error(), Ok(None));
        let (r, data) = AtaArg::parse(&arg).unwrap();
        assert_eq!(
            (r.cmd_status, r.err_feature),
            (status::DRDY | status::ERR, err)
        );
        assert!(
            data.iter().all(|&b| b == 0),
            "no data with a failed read (only padding)"
        );
    }
    // Still serving.
    let (_, arg) = ask(
        &mut s,
        &frame(
            0x10,
            9,
            CMD_ATA,
            30,
            &ata(
                AtaArg::command(cmd::READ_SECTORS_EXT, 63, 1, true, false),
                &[],
            ),
        ),
    )
    .unwrap();
    assert_eq!(AtaArg::parse(&arg).unwrap().1.len(), SECTOR);
    assert!(p.running(t));
    let log = p.stop(t);
    assert!(
        log.contains(" AoE errors") && log.contains("stopped"),
        "{log}"
    );
}
