//! The initiator against the target in memory, over a perfect and a lossy channel (drops,
//! duplicates, reordering) in virtual time.

use super::super::ata::{cmd, error as ata_error, SECTOR};
use super::super::device::MemDevice;
use super::super::header::{AoeError, Header, Mac, CMD_ATA, FLAG_RESPONSE};
use super::super::identify::Identity;
use super::super::target::{Outcome, Target, TargetConfig};
use super::*;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::HashSet;

const ME: Mac = [2, 0, 0, 0, 0, 1];
const TGT: Mac = [2, 0, 0, 0, 0, 2];

fn pair(sectors: usize, mtu: usize, window: usize) -> (Initiator, Target<MemDevice>) {
    let t = Target::new(TargetConfig::new(1, 2, TGT, mtu), MemDevice::new(sectors)).unwrap();
    let mut cfg = InitiatorConfig::new(ME, TGT, 1, 2);
    cfg.window = window;
    cfg.sectors_per_frame = t.config().max_sectors as usize;
    cfg.rto = Duration::from_millis(10);
    (Initiator::new(cfg).unwrap(), t)
}

/// A channel that drops, duplicates and reorders with the given probability.
struct Channel {
    rng: StdRng,
    loss: f64,
    /// Largest number of commands seen outstanding at once.
    max_outstanding: usize,
}

impl Channel {
    fn perfect() -> Self {
        Channel {
            rng: StdRng::seed_from_u64(0),
            loss: 0.0,
            max_outstanding: 0,
        }
    }

    fn lossy(seed: u64, loss: f64) -> Self {
        Channel {
            rng: StdRng::seed_from_u64(seed),
            loss,
            max_outstanding: 0,
        }
    }

    fn carry(&mut self, frames: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for f in frames {
            if self.loss > 0.0 && self.rng.gen_bool(self.loss) {
                continue;
            }
            if self.loss > 0.0 && self.rng.gen_bool(self.loss / 2.0) {
                out.push(f.clone());
            }
            out.push(f);
        }
        if self.loss > 0.0 {
            out.shuffle(&mut self.rng);
        }
        out
    }

    fn run(
        &mut self,
        ini: &mut Initiator,
        t: &mut Target<MemDevice>,
        req: Request,
    ) -> Result<Vec<u8>, InitiatorError> {
        let mut now = Instant::now();
        ini.start(req)?;
        let mut outstanding = HashSet::new();
        let mut out = Vec::new();
        loop {
            let mut sent = Vec::new();
            while ini.poll_transmit(now, &mut out) {
                outstanding.insert(u32::from_be_bytes(out[20..24].try_into().unwrap()));
                sent.push(out.clone());
            }
            self.max_outstanding = self.max_outstanding.max(outstanding.len());
            if let Some(r) = ini.poll_result() {
                return r;
            }
            let mut replies = Vec::new();
            for f in self.carry(sent) {
                let mut resp = Vec::new();
                if t.handle(&f, &mut resp) == Outcome::Respond {
                    replies.push(resp);
                }
            }
            t.idle();
            let replies = self.carry(replies);
            if replies.is_empty() {
                now = ini.next_deadline().expect("a command outstanding").max(now);
            }
            for r in replies {
                if ini.handle_frame(&r) {
                    outstanding.remove(&u32::from_be_bytes(r[20..24].try_into().unwrap()));
                }
            }
        }
    }
}

fn random(sectors: usize, seed: u64) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..sectors * SECTOR).map(|_| rng.gen()).collect()
}

#[test]
fn write_and_read_back_within_the_window() {
    let (mut ini, mut t) = pair(256, 9000, 4);
    let mut ch = Channel::perfect();
    let data = random(100, 1);
    assert_eq!(
        ch.run(
            &mut ini,
            &mut t,
            Request::Write {
                lba: 3,
                data: data.clone()
            }
        ),
        Ok(vec![])
    );
    assert_eq!(&t.device().data[3 * SECTOR..103 * SECTOR], &data[..]);
    let back = ch
        .run(&mut ini, &mut t, Request::Read { lba: 3, count: 100 })
        .unwrap();
    assert_eq!(back, data);
    // 100 sectors at 17 per frame: 6 commands each way, never more than 4 outstanding.
    assert_eq!(ini.stats().commands, 12);
    assert_eq!(ch.max_outstanding, 4);
    assert_eq!(ini.stats().retransmissions, 0);
}

#[test]
fn lossy_channel_still_delivers_the_data() {
    for seed in 0..8 {
        let (mut ini, mut t) = pair(512, 1500, 16);
        let mut ch = Channel::lossy(seed, 0.2);
        let data = random(300, seed);
        ch.run(
            &mut ini,
            &mut t,
            Request::Write {
                lba: 100,
                data: data.clone(),
            },
        )
        .unwrap();
        let back = ch
            .run(
                &mut ini,
                &mut t,
                Request::Read {
                    lba: 100,
                    count: 300,
                },
            )
            .unwrap();
        assert_eq!(back, data, "seed {seed}");
        assert!(ini.stats().retransmissions > 0);
        assert!(
            ini.stats().stray > 0,
            "duplicated responses are counted, not used twice"
        );
        assert!(ch.max_outstanding <= 16);
    }
}

#[test]
fn silent_target_times_out_after_the_retries() {
    let (mut ini, _) = pair(8, 1500, 2);
    let mut now = Instant::now();
    ini.start(Request::Read { lba: 0, count: 2 }).unwrap();
    let mut out = Vec::new();
    let mut sent = 0;
    loop {
        while ini.poll_transmit(now, &mut out) {
            sent += 1;
        }
        if let Some(r) = ini.poll_result() {
            assert_eq!(r, Err(InitiatorError::Timeout { lba: 0, tries: 9 }));
            break;
        }
        now = ini.next_deadline().unwrap();
    }
    // One command (2 sectors per frame), sent once and retransmitted 8 times.
    assert_eq!(sent, 9);
    assert!(!ini.is_busy());
}

#[test]
fn retransmission_timeout_doubles_up_to_the_cap() {
    let (mut ini, _) = pair(8, 1500, 1);
    let t0 = Instant::now();
    ini.start(Request::Read { lba: 0, count: 1 }).unwrap();
    let mut out = Vec::new();
    assert!(ini.poll_transmit(t0, &mut out));
    let tag = out[20..24].to_vec();
    let mut deadlines = vec![ini.next_deadline().unwrap() - t0];
    for _ in 0..7 {
        let d = ini.next_deadline().unwrap();
        assert!(ini.poll_transmit(d, &mut out));
        assert_eq!(&out[20..24], &tag[..], "retransmissions keep the tag");
        deadlines.push(ini.next_deadline().unwrap() - d);
    }
    let ms: Vec<u128> = deadlines.iter().map(|d| d.as_millis()).collect();
    assert_eq!(ms, [10, 20, 40, 80, 160, 320, 640, 1000]);
}

#[test]
fn only_matching_responses_complete_commands() {
    let (mut ini, mut t) = pair(8, 1500, 1);
    let now = Instant::now();
    ini.start(Request::Read { lba: 0, count: 1 }).unwrap();
    let mut cmd_frame = Vec::new();
    assert!(ini.poll_transmit(now, &mut cmd_frame));
    let mut resp = Vec::new();
    assert_eq!(t.handle(&cmd_frame, &mut resp), Outcome::Respond);
    let tamper = |at: usize, v: u8| {
        let mut r = resp.clone();
        r[at] ^= v;
        r
    };
    // Wrong destination, source, major, minor, tag, command; a request (R clear).
    for bad in [
        tamper(5, 1),
        tamper(11, 1),
        tamper(17, 1),
        tamper(18, 1),
        tamper(23, 1),
        tamper(19, 1),
        tamper(14, FLAG_RESPONSE),
    ] {
        assert!(!ini.handle_frame(&bad));
    }
    assert!(!ini.handle_frame(&resp[..10]));
    assert_eq!(ini.stats().stray, 8);
    assert!(ini.poll_result().is_none());
    assert!(ini.handle_frame(&resp));
    assert_eq!(ini.poll_result(), Some(Ok(vec![0; SECTOR])));
}

#[test]
fn aoe_and_ata_errors_fail_the_request() {
    let (mut ini, mut t) = pair(8, 1500, 4);
    let mut ch = Channel::perfect();
    assert_eq!(
        ch.run(&mut ini, &mut t, Request::Read { lba: 7, count: 2 }),
        Err(InitiatorError::Ata {
            command: cmd::READ_SECTORS_EXT,
            lba: 7,
            status: 0x41,
            error: ata_error::IDNF
        })
    );
    // Reserved by someone else: error 6.
    let mut arg = Vec::new();
    super::super::reserve::Reserve {
        rcmd: 2,
        macs: vec![[2, 0, 0, 0, 0, 9]],
    }
    .write(&mut arg);
    let mut f = Vec::new();
    Header::request([2, 0, 0, 0, 0, 9], TGT, 1, 2, 3, 1).write(&mut f);
    f.extend_from_slice(&arg);
    let mut out = Vec::new();
    t.handle(&f, &mut out);
    assert_eq!(
        ch.run(
            &mut ini,
            &mut t,
            Request::Write {
                lba: 0,
                data: vec![1; 512]
            }
        ),
        Err(InitiatorError::Aoe {
            lba: 0,
            error: AoeError::TargetReserved
        })
    );
    // IDENTIFY is not gated by the reservation.
    let id = ch.run(&mut ini, &mut t, Request::Identify).unwrap();
    assert_eq!(Identity::decode(&id).unwrap().sectors, 8);
    assert_eq!(ch.run(&mut ini, &mut t, Request::Flush), Ok(vec![]));
}

#[test]
fn asynchronous_writes_accept_the_echoed_arg() {
    let (mut ini, mut t) = pair(64, 1500, 8);
    let mut cfg = ini.config().clone();
    cfg.async_writes = true;
    ini = Initiator::new(cfg).unwrap();
    let mut ch = Channel::perfect();
    let data = random(20, 5);
    ch.run(
        &mut ini,
        &mut t,
        Request::Write {
            lba: 1,
            data: data.clone(),
        },
    )
    .unwrap();
    assert_eq!(t.stats().async_writes, 10);
    let back = ch
        .run(&mut ini, &mut t, Request::Read { lba: 1, count: 20 })
        .unwrap();
    assert_eq!(back, data);
}

#[test]
fn lba28_requests_use_the_28_bit_commands_and_stay_below_2_28() {
    let (mut ini, mut t) = pair(16, 1500, 2);
    let mut cfg = ini.config().clone();
    cfg.lba48 = false;
    ini = Initiator::new(cfg).unwrap();
    let mut now_frame = Vec::new();
    ini.start(Request::Read { lba: 2, count: 1 }).unwrap();
    assert!(ini.poll_transmit(Instant::now(), &mut now_frame));
    assert_eq!(now_frame[27], cmd::READ_SECTORS);
    assert_eq!(now_frame[24] & 0x40, 0);
    let mut resp = Vec::new();
    t.handle(&now_frame, &mut resp);
    assert!(ini.handle_frame(&resp));
    assert!(ini.poll_result().unwrap().is_ok());
    assert_eq!(
        ini.start(Request::Read {
            lba: (1 << 28) - 1,
            count: 2
        }),
        Err(InitiatorError::LbaRange {
            lba: (1 << 28) - 1,
            end: (1 << 28) + 1,
            bits: 28
        })
    );
    assert_eq!(
        ini.start(Request::Write {
            lba: 0,
            data: vec![0; 100]
        }),
        Err(InitiatorError::Unaligned { len: 100 })
    );
    assert_eq!(CMD_ATA, now_frame[19]);
}

#[test]
fn busy_and_empty_requests() {
    let (mut ini, _) = pair(16, 1500, 2);
    ini.start(Request::Read { lba: 0, count: 0 }).unwrap();
    assert_eq!(ini.poll_result(), Some(Ok(vec![])));
    ini.start(Request::Read { lba: 0, count: 1 }).unwrap();
    assert_eq!(ini.start(Request::Flush), Err(InitiatorError::Busy));
    assert!(Initiator::new(InitiatorConfig {
        window: 0,
        ..InitiatorConfig::new(ME, TGT, 1, 2)
    })
    .is_err());
}
