//! The target against AoE r11, command by command, on a disk in memory.

use super::super::ata::{cmd, error as ata_error, status, AtaArg, AFLAG_ASYNC, SECTOR};
use super::super::config::{self, QueryConfig};
use super::super::header::*;
use super::super::identify::Identity;
use super::super::mask::{self, Directive, MacMask};
use super::super::reserve::{self, Reserve};
use super::*;
use crate::aoe::device::MemDevice;

const TARGET: Mac = [0x02, 0, 0, 0, 0, 0x10];
const A: Mac = [0x02, 0, 0, 0, 0, 0xA];
const B: Mac = [0x02, 0, 0, 0, 0, 0xB];
const SECTORS: usize = 64;

fn target() -> Target<MemDevice> {
    let mut cfg = TargetConfig::new(7, 3, TARGET, 1500);
    cfg.config_string = Vec::new();
    Target::new(cfg, MemDevice::new(SECTORS)).unwrap()
}

fn frame(src: Mac, command: u8, tag: u32, arg: &[u8]) -> Vec<u8> {
    let mut f = Vec::new();
    Header::request(src, TARGET, 7, 3, command, tag).write(&mut f);
    f.extend_from_slice(arg);
    f
}

fn ata_frame(src: Mac, a: AtaArg, data: &[u8]) -> Vec<u8> {
    let mut arg = Vec::new();
    a.write(&mut arg);
    arg.extend_from_slice(data);
    frame(src, CMD_ATA, 0x1234, &arg)
}

/// Handles `f`; returns the response header and Arg, or the reason it was ignored.
fn run(t: &mut Target<MemDevice>, f: &[u8]) -> Result<(Header, Vec<u8>), Ignored> {
    let mut out = Vec::new();
    match t.handle(f, &mut out) {
        Outcome::Respond => {
            let (h, arg) = Header::parse(&out).unwrap();
            Ok((h, arg.to_vec()))
        }
        Outcome::Ignored(why) => {
            assert!(out.is_empty());
            Err(why)
        }
    }
}

fn ata(t: &mut Target<MemDevice>, src: Mac, a: AtaArg, data: &[u8]) -> (Header, AtaArg, Vec<u8>) {
    let (h, arg) = run(t, &ata_frame(src, a, data)).expect("a response");
    let (r, d) = AtaArg::parse(&arg).unwrap();
    (h, r, d.to_vec())
}

fn pattern(sectors: usize, seed: u8) -> Vec<u8> {
    (0..sectors * SECTOR)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn aoe_err(h: &Header) -> Option<AoeError> {
    h.aoe_error().unwrap()
}

#[test]
fn write_then_read_back_with_response_header_and_registers() {
    let mut t = target();
    let data = pattern(2, 1);
    let (h, r, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::WRITE_SECTORS_EXT, 5, 2, true, true),
        &data,
    );
    assert_eq!(
        (h.dst, h.src, h.major, h.minor, h.tag),
        (A, TARGET, 7, 3, 0x1234)
    );
    assert_eq!(h.flags, FLAG_RESPONSE);
    assert_eq!(h.version, 1);
    assert_eq!((r.cmd_status, r.err_feature), (status::DRDY, 0));
    assert_eq!(r.lba48(), 5);
    assert!(d.is_empty(), "write responses carry no data");
    assert_eq!(&t.device().data[5 * SECTOR..7 * SECTOR], &data[..]);

    let (_, r, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::READ_SECTORS_EXT, 5, 2, true, false),
        &[],
    );
    assert_eq!(r.cmd_status, status::DRDY);
    assert_eq!(d, data);
    // The 28-bit form reads the same sectors, its LBA from lba0..2 and lba3 bits 3:0.
    let (_, _, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::READ_SECTORS, 6, 1, false, false),
        &[],
    );
    assert_eq!(d, &data[SECTOR..]);
    assert_eq!(t.stats().sectors_read, 3);
}

#[test]
fn identify_reports_capacity_and_names() {
    let mut t = target();
    let (_, r, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::IDENTIFY_DEVICE, 0, 1, false, false),
        &[],
    );
    assert_eq!(r.cmd_status, status::DRDY);
    let id = Identity::decode(&d).unwrap();
    assert_eq!(id.sectors, SECTORS as u64);
    assert!(id.lba48);
    assert_eq!(id.model, "offload AoE target");
    assert_eq!(id.serial, "e7.3");
    // Any other sector count is a bad argument (as vblade answers).
    let (h, _) = run(
        &mut t,
        &ata_frame(
            A,
            AtaArg::command(cmd::IDENTIFY_DEVICE, 0, 2, false, false),
            &[],
        ),
    )
    .unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::BadArgument));
}

#[test]
fn unknown_ata_command_is_aborted_not_dropped() {
    let mut t = target();
    let (h, r, d) = ata(&mut t, A, AtaArg::command(0x99, 0, 0, false, false), &[]);
    assert_eq!(aoe_err(&h), None);
    assert_eq!(r.cmd_status, status::DRDY | status::ERR);
    assert_eq!(r.err_feature, ata_error::ABRT);
    assert!(d.is_empty());
    assert_eq!(t.stats().ata_errors, 1);
}

#[test]
fn lba_past_the_end_and_too_many_sectors_fail_in_ata_registers() {
    let mut t = target();
    let (_, r, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::READ_SECTORS_EXT, SECTORS as u64 - 1, 2, true, false),
        &[],
    );
    assert_eq!((r.cmd_status, r.err_feature), (0x41, ata_error::IDNF));
    assert!(d.is_empty());
    let (_, r, _) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::WRITE_SECTORS_EXT, 1 << 40, 1, true, true),
        &pattern(1, 0),
    );
    assert_eq!(r.err_feature, ata_error::IDNF);
    // 1500-octet MTU: 2 sectors per command at most.
    let (_, r, _) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::READ_SECTORS_EXT, 0, 3, true, false),
        &[],
    );
    assert_eq!((r.cmd_status, r.err_feature), (0x41, ata_error::ABRT));
    // The last sector itself is fine.
    let (_, r, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::READ_SECTORS_EXT, SECTORS as u64 - 1, 1, true, false),
        &[],
    );
    assert_eq!((r.cmd_status, d.len()), (status::DRDY, SECTOR));
}

#[test]
fn check_power_mode_and_flush_cache() {
    let mut t = target();
    let (_, r, _) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::CHECK_POWER_MODE, 0, 0, false, false),
        &[],
    );
    assert_eq!((r.cmd_status, r.sector_count), (status::DRDY, 0xFF));
    for c in [cmd::FLUSH_CACHE, cmd::FLUSH_CACHE_EXT] {
        let (_, r, _) = ata(
            &mut t,
            A,
            AtaArg::command(c, 0, 0, c == cmd::FLUSH_CACHE_EXT, false),
            &[],
        );
        assert_eq!(r.cmd_status, status::DRDY);
    }
    assert_eq!(t.device().flushes, 2);
}

#[test]
fn asynchronous_write_answers_at_once_and_a_later_read_sees_it() {
    let mut t = target();
    let data = pattern(2, 9);
    let mut a = AtaArg::command(cmd::WRITE_SECTORS_EXT, 10, 2, true, true);
    a.aflags |= AFLAG_ASYNC;
    let (h, r, _) = ata(&mut t, A, a, &data);
    assert_eq!(aoe_err(&h), None);
    assert_eq!(r, a, "§3.1: the Arg comes back unchanged");
    assert!(
        t.device().data[10 * SECTOR..12 * SECTOR]
            .iter()
            .all(|&b| b == 0),
        "held"
    );
    let (_, _, d) = ata(
        &mut t,
        A,
        AtaArg::command(cmd::READ_SECTORS_EXT, 10, 2, true, false),
        &[],
    );
    assert_eq!(d, data);
    // Held writes also reach the device when the loop is idle.
    let mut a = AtaArg::command(cmd::WRITE_SECTORS_EXT, 20, 1, true, true);
    a.aflags |= AFLAG_ASYNC;
    ata(&mut t, A, a, &data[..SECTOR]);
    t.idle();
    assert_eq!(&t.device().data[20 * SECTOR..21 * SECTOR], &data[..SECTOR]);
    assert_eq!(t.stats().async_writes, 2);
}

#[test]
fn malformed_writes_and_truncated_ata_args_are_error_2() {
    let mut t = target();
    // W set but one sector of data for two.
    let f = ata_frame(
        A,
        AtaArg::command(cmd::WRITE_SECTORS_EXT, 0, 2, true, true),
        &pattern(1, 0),
    );
    assert_eq!(
        aoe_err(&run(&mut t, &f).unwrap().0),
        Some(AoeError::BadArgument)
    );
    // A write command without W.
    let f = ata_frame(
        A,
        AtaArg::command(cmd::WRITE_SECTORS_EXT, 0, 1, true, false),
        &pattern(1, 0),
    );
    assert_eq!(
        aoe_err(&run(&mut t, &f).unwrap().0),
        Some(AoeError::BadArgument)
    );
    // An ATA frame cut inside its Arg: the error response echoes what there was.
    let f = frame(A, CMD_ATA, 5, &[0x40, 0, 1]);
    let (h, arg) = run(&mut t, &f).unwrap();
    assert_eq!(
        (aoe_err(&h), h.tag, arg.as_slice()),
        (Some(AoeError::BadArgument), 5, &[0x40, 0, 1][..])
    );
    assert!(t.device().data.iter().all(|&b| b == 0));
}

#[test]
fn addressing_broadcasts_and_ignored_frames() {
    let mut t = target();
    let mut arg = Vec::new();
    QueryConfig::command(config::CCMD_READ, b"").write(&mut arg);
    let mut f = Vec::new();
    Header::request(A, BROADCAST, MAJOR_ANY, MINOR_ANY, CMD_QUERY_CONFIG, 77).write(&mut f);
    f.extend_from_slice(&arg);
    let (h, _) = run(&mut t, &f).unwrap();
    assert_eq!(
        (h.major, h.minor, h.tag),
        (7, 3, 77),
        "own address, not all ones"
    );
    for (major, minor) in [(7, MINOR_ANY), (MAJOR_ANY, 3)] {
        f[16..18].copy_from_slice(&u16::to_be_bytes(major));
        f[18] = minor;
        assert!(run(&mut t, &f).is_ok());
    }
    for (major, minor) in [(8, 3), (7, 4), (MAJOR_ANY, 4), (8, MINOR_ANY)] {
        f[16..18].copy_from_slice(&u16::to_be_bytes(major));
        f[18] = minor;
        assert_eq!(run(&mut t, &f), Err(Ignored::NotAddressed));
    }
    f[16..19].copy_from_slice(&[0, 7, 3]);
    f[14] |= FLAG_RESPONSE;
    assert_eq!(run(&mut t, &f), Err(Ignored::Response));
    assert_eq!(run(&mut t, &f[..23]), Err(Ignored::Malformed));
    let mut ip = f.clone();
    ip[12..14].copy_from_slice(&[0x08, 0x00]);
    assert_eq!(run(&mut t, &ip), Err(Ignored::Malformed));
    // Unicast to another host (a promiscuous or bridged interface shows it to us).
    let mut other = f.clone();
    other[14] &= !FLAG_RESPONSE;
    other[0..6].copy_from_slice(&[2, 0, 0, 0, 0, 0x77]);
    assert_eq!(run(&mut t, &other), Err(Ignored::OtherHost));
    other[0..6].copy_from_slice(&TARGET);
    assert!(run(&mut t, &other).is_ok());
    assert_eq!(t.stats().ignored_not_addressed, 5);
}

#[test]
fn wrong_version_is_error_5_and_unknown_commands_error_1() {
    let mut t = target();
    let mut f = frame(A, CMD_QUERY_CONFIG, 1, &[0; 8]);
    f[14] = 0x20;
    let (h, arg) = run(&mut t, &f).unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::UnsupportedVersion));
    assert_eq!((h.version, h.flags), (1, FLAG_RESPONSE | FLAG_ERROR));
    assert_eq!(arg, [0; 8]);
    for c in [4u8, 9, 0xF0, 0xFF] {
        let (h, _) = run(&mut t, &frame(A, c, 1, &[])).unwrap();
        assert_eq!(
            (aoe_err(&h), h.command),
            (Some(AoeError::UnrecognizedCommand), c)
        );
    }
    assert_eq!(t.stats().aoe_errors, 5);
}

fn qc(
    t: &mut Target<MemDevice>,
    src: Mac,
    ccmd: u8,
    s: &[u8],
) -> Result<(Header, QueryConfig), Ignored> {
    let mut arg = Vec::new();
    QueryConfig::command(ccmd, s).write(&mut arg);
    let (h, arg) = run(t, &frame(src, CMD_QUERY_CONFIG, 3, &arg))?;
    Ok((h, QueryConfig::parse(&arg).unwrap()))
}

#[test]
fn query_config_all_five_ccmds() {
    let mut t = target();
    let (_, q) = qc(&mut t, A, config::CCMD_READ, b"").unwrap();
    assert_eq!(
        q,
        QueryConfig {
            buffer_count: 16,
            firmware: FIRMWARE_VERSION,
            sector_count: 2,
            aoe_version: 1,
            ccmd: 0,
            config: Vec::new()
        }
    );
    // Set on an empty string works; a second set is error 4 with the current values.
    let (h, q) = qc(&mut t, A, config::CCMD_SET, b"host=a").unwrap();
    assert_eq!((aoe_err(&h), q.config.as_slice()), (None, &b"host=a"[..]));
    let (h, q) = qc(&mut t, A, config::CCMD_SET, b"host=b").unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::ConfigStringPresent));
    assert_eq!((q.config.as_slice(), q.buffer_count), (&b"host=a"[..], 16));
    // Test: exact match only; prefix test: prefixes only.
    assert!(qc(&mut t, A, config::CCMD_TEST, b"host=a").is_ok());
    assert_eq!(
        qc(&mut t, A, config::CCMD_TEST, b"host").unwrap_err(),
        Ignored::ConfigMismatch
    );
    assert!(qc(&mut t, A, config::CCMD_TEST_PREFIX, b"host").is_ok());
    assert!(qc(&mut t, A, config::CCMD_TEST_PREFIX, b"").is_ok());
    assert_eq!(
        qc(&mut t, A, config::CCMD_TEST_PREFIX, b"host=ab").unwrap_err(),
        Ignored::ConfigMismatch
    );
    // Force set replaces it.
    let (_, q) = qc(&mut t, A, config::CCMD_FORCE_SET, b"x").unwrap();
    assert_eq!(q.config, b"x");
    assert_eq!(t.config_string(), b"x");
    // Undefined CCmd, or a string longer than 1024: bad argument.
    let mut arg = Vec::new();
    QueryConfig::command(5, b"").write(&mut arg);
    let (h, _) = run(&mut t, &frame(A, CMD_QUERY_CONFIG, 3, &arg)).unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::BadArgument));
    let mut arg = vec![0, 0, 0, 0, 0, 4, 0x04, 0x01];
    arg.extend_from_slice(&[b'a'; 1025]);
    let (h, _) = run(&mut t, &frame(A, CMD_QUERY_CONFIG, 3, &arg)).unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::BadArgument));
    assert_eq!(t.config_string(), b"x");
}

#[test]
fn boot_time_broadcast_is_a_query_config_response_with_tag_0() {
    let t = target();
    let mut out = Vec::new();
    t.announce(&mut out);
    let (h, arg) = Header::parse(&out).unwrap();
    assert_eq!(
        (h.dst, h.src, h.tag, h.flags),
        (BROADCAST, TARGET, 0, FLAG_RESPONSE)
    );
    assert_eq!((h.major, h.minor, h.command), (7, 3, CMD_QUERY_CONFIG));
    assert_eq!(QueryConfig::parse(arg).unwrap().buffer_count, 16);
}

fn mm(t: &mut Target<MemDevice>, src: Mac, m: &MacMask) -> Result<(Header, MacMask), Ignored> {
    let mut arg = Vec::new();
    m.write(&mut arg);
    let (h, arg) = run(t, &frame(src, CMD_MAC_MASK, 4, &arg))?;
    let r = if h.flags & FLAG_ERROR == 0 {
        MacMask::parse(&arg).unwrap()
    } else {
        MacMask::default()
    };
    Ok((h, r))
}

fn add(mac: Mac) -> Directive {
    Directive {
        dcmd: mask::DCMD_ADD,
        mac,
    }
}

#[test]
fn mac_mask_list_edit_read_and_enforcement() {
    let mut t = target();
    let (_, r) = mm(&mut t, A, &MacMask::read()).unwrap();
    assert_eq!((r.dir_count, r.directives.len()), (0, 0));
    // Add A twice (the duplicate is ignored), B, a no-op, then delete B (and a missing C).
    let c = [2, 0, 0, 0, 0, 0xC];
    let edit = MacMask::edit(&[
        add(A),
        add(A),
        add(B),
        Directive {
            dcmd: mask::DCMD_NONE,
            mac: c,
        },
        Directive {
            dcmd: mask::DCMD_DELETE,
            mac: B,
        },
        Directive {
            dcmd: mask::DCMD_DELETE,
            mac: c,
        },
    ]);
    let (h, r) = mm(&mut t, A, &edit).unwrap();
    assert_eq!(aoe_err(&h), None);
    assert_eq!((r.merror, r.dir_count, r.macs()), (0, 1, vec![A]));
    assert_eq!(t.mask_list(), &[A]);

    // B is now ignored for every command, A is served.
    let mut qarg = Vec::new();
    QueryConfig::command(0, b"").write(&mut qarg);
    let mut rarg = Vec::new();
    Reserve::default().write(&mut rarg);
    let mut marg = Vec::new();
    MacMask::read().write(&mut marg);
    let mut aarg = Vec::new();
    AtaArg::command(cmd::IDENTIFY_DEVICE, 0, 1, false, false).write(&mut aarg);
    for (command, arg) in [
        (CMD_ATA, &aarg),
        (CMD_QUERY_CONFIG, &qarg),
        (CMD_MAC_MASK, &marg),
        (CMD_RESERVE, &rarg),
    ] {
        assert_eq!(
            run(&mut t, &frame(B, command, 1, arg)),
            Err(Ignored::Masked),
            "command {command}"
        );
        assert!(
            run(&mut t, &frame(A, command, 1, arg)).is_ok(),
            "command {command}"
        );
    }
    // Even a bad version or unknown command from B gets nothing.
    assert_eq!(run(&mut t, &frame(B, 0x42, 1, &[])), Err(Ignored::Masked));
    assert_eq!(t.stats().ignored_masked, 5);
}

#[test]
fn mac_mask_errors_stop_at_the_directive_and_echo_the_list() {
    let mut t = target();
    let bad = MacMask::edit(&[add(A), Directive { dcmd: 7, mac: B }, add(B)]);
    let (h, r) = mm(&mut t, A, &bad).unwrap();
    assert_eq!(aoe_err(&h), None);
    assert_eq!((r.merror, r.dir_count), (mask::MERROR_BAD_DCMD, 1));
    // Dir Count says where it stopped; the command's whole list follows in the frame.
    let mut arg = Vec::new();
    let (_, raw) = {
        bad.write(&mut arg);
        run(&mut t, &frame(A, CMD_MAC_MASK, 4, &arg)).unwrap()
    };
    assert_eq!(&raw[4..], &arg[4..]);
    assert_eq!(
        t.mask_list(),
        &[A],
        "directives before the bad one stay applied"
    );
    // Undefined MCmd, or Dir Count past the frame: AoE error 2.
    let (h, _) = run(&mut t, &frame(A, CMD_MAC_MASK, 4, &[0, 2, 0, 0])).unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::BadArgument));
    let (h, _) = run(
        &mut t,
        &frame(A, CMD_MAC_MASK, 4, &[0, 1, 0, 3, 0, 1, 2, 0, 0, 0, 0, 1]),
    )
    .unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::BadArgument));
}

#[test]
fn mac_mask_list_holds_255_entries() {
    let mut t = target();
    let macs: Vec<Mac> = (0..255u8).map(|i| [2, 0, 0, 0, 1, i]).collect();
    let mut first = vec![add(A)];
    first.extend(macs[..254].iter().map(|&m| add(m)));
    let (_, r) = mm(&mut t, A, &MacMask::edit(&first)).unwrap();
    assert_eq!((r.merror, r.dir_count as usize), (0, 255));
    let (_, r) = mm(&mut t, A, &MacMask::edit(&[add(A), add(macs[254])])).unwrap();
    assert_eq!((r.merror, r.dir_count), (mask::MERROR_FULL, 1));
    assert_eq!(t.mask_list().len(), 255);
}

fn rr(t: &mut Target<MemDevice>, src: Mac, rcmd: u8, macs: &[Mac]) -> (Option<AoeError>, Reserve) {
    let mut arg = Vec::new();
    Reserve {
        rcmd,
        macs: macs.to_vec(),
    }
    .write(&mut arg);
    let (h, arg) = run(t, &frame(src, CMD_RESERVE, 6, &arg)).unwrap();
    (aoe_err(&h), Reserve::parse(&arg).unwrap())
}

#[test]
fn reservations_gate_reads_and_writes_only() {
    let mut t = target();
    let (e, r) = rr(&mut t, A, reserve::RCMD_SET, &[A, A]);
    assert_eq!((e, r.macs.clone()), (None, vec![A]));
    let read = AtaArg::command(cmd::READ_SECTORS_EXT, 0, 1, true, false);
    let write = AtaArg::command(cmd::WRITE_SECTORS, 0, 1, false, true);
    for (a, d) in [(read, vec![]), (write, pattern(1, 3))] {
        let (h, _) = run(&mut t, &ata_frame(B, a, &d)).unwrap();
        assert_eq!(aoe_err(&h), Some(AoeError::TargetReserved));
        let (h, r, _) = ata(&mut t, A, a, &d);
        assert_eq!((aoe_err(&h), r.cmd_status), (None, status::DRDY));
    }
    // Other commands go through for anyone.
    let (h, r, _) = ata(
        &mut t,
        B,
        AtaArg::command(cmd::IDENTIFY_DEVICE, 0, 1, false, false),
        &[],
    );
    assert_eq!((aoe_err(&h), r.cmd_status), (None, status::DRDY));
    assert_eq!(
        rr(&mut t, B, reserve::RCMD_READ, &[]),
        (
            None,
            Reserve {
                rcmd: 0,
                macs: vec![A]
            }
        )
    );
    // B may not set it (error 6, with the current list), but may force it.
    assert_eq!(
        rr(&mut t, B, reserve::RCMD_SET, &[B]),
        (
            Some(AoeError::TargetReserved),
            Reserve {
                rcmd: 1,
                macs: vec![A]
            }
        )
    );
    assert_eq!(rr(&mut t, B, reserve::RCMD_FORCE_SET, &[B]).1.macs, vec![B]);
    let (h, _) = run(&mut t, &ata_frame(A, read, &[])).unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::TargetReserved));
    // Release by the holder; undefined RCmd is error 2 and still returns the list.
    assert!(rr(&mut t, B, reserve::RCMD_SET, &[]).1.macs.is_empty());
    assert_eq!(
        rr(&mut t, A, 3, &[A]),
        (
            Some(AoeError::BadArgument),
            Reserve {
                rcmd: 3,
                macs: vec![]
            }
        )
    );
    let (h, _) = run(&mut t, &frame(A, CMD_RESERVE, 6, &[1, 2, 1, 2, 3])).unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::BadArgument));
}

#[test]
fn unavailable_device_is_error_3() {
    let mut t = target();
    t.set_available(false);
    let (h, _) = run(
        &mut t,
        &ata_frame(
            A,
            AtaArg::command(cmd::READ_SECTORS_EXT, 0, 1, true, false),
            &[],
        ),
    )
    .unwrap();
    assert_eq!(aoe_err(&h), Some(AoeError::DeviceUnavailable));
}

#[test]
fn bad_configurations_are_refused() {
    let mk = |f: &dyn Fn(&mut TargetConfig)| {
        let mut c = TargetConfig::new(1, 1, TARGET, 1500);
        f(&mut c);
        Target::new(c, MemDevice::new(1)).err()
    };
    assert_eq!(
        mk(&|c| c.major = 0xFFFF),
        Some(TargetConfigError::MajorBroadcast(0xFFFF))
    );
    assert_eq!(
        mk(&|c| c.minor = 0xFF),
        Some(TargetConfigError::MinorBroadcast(0xFF))
    );
    assert_eq!(
        mk(&|c| c.buffer_count = 0),
        Some(TargetConfigError::NoBuffers)
    );
    assert_eq!(
        mk(&|c| c.max_sectors = 0),
        Some(TargetConfigError::NoSectors)
    );
    assert_eq!(mk(&|_| {}), None);
}

#[test]
fn backlog_drops_and_counts_what_exceeds_the_buffer_count() {
    let mut b = Backlog::new(3);
    for i in 0..5u8 {
        assert_eq!(b.push(&[i]), i < 3);
    }
    assert_eq!((b.len(), b.dropped()), (3, 2));
    let f = b.pop().unwrap();
    assert_eq!(f, [0]);
    b.recycle(f);
    assert!(b.push(&[9]));
    let got: Vec<u8> = std::iter::from_fn(|| b.pop().map(|f| f[0])).collect();
    assert_eq!(got, [1, 2, 9]);
}
