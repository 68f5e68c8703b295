//! Random MCTP traffic for the tests of the MCTP blocks, in one place: the cycle-model tests
//! here and the Verilator co-simulations in `offload-sim` draw from the same generators, so
//! both check the hardware against the same cases.
//!
//! - [`random_tx_request`]: a transmit request and message, mostly valid, sometimes one thing
//!   the software refuses (the MCTP TX block must drop exactly those).
//! - [`random_rx_frames`]: received frames (raw packets or SMBus frames) for the MCTP RX
//!   block: whole messages, interleavings, and corruptions (bit flips, lost, duplicated,
//!   reordered, truncated, re-framed or foreign packets).
//! - [`rx_reference`]: what the software receiver makes of those frames, in the RX block's
//!   terms (its messages and its counters).
//! - [`run_rx_hdl`]: rust-hdl's simulation of the RX block over frames (short runs).
//! - [`on_a_big_stack`]: a test body that builds the whole top in rust-hdl.

use crate::mctp_rx::{RxCounters, HW_MAX_LEN};
use crate::testbench::{run_mctp_rx, BenchError, MctpRxRun, Traffic};
use offload_driver::mctp::rx_block::DropRecord;
use offload_driver::mctp::header::Header;
use offload_driver::mctp::reassembly::DEFAULT_TIMEOUT;
use offload_driver::mctp::{
    receive, smbus, transmit, Binding, Message, ReassemblyConfig, RxRequest,
    SmbusAddresses, TxConfig, TxRequest, RX_COUNTERS,
};
use rand::Rng;

/// A random request and message: mostly valid, a fraction `p_bad` with one thing the software
/// refuses (empty, MTU out of range or too big for SMBus, reserved/broadcast EID, MIC with the
/// IC bit clear or over 4224 octets). Valid messages are at most `max_len` octets (MIC
/// included when asked), a quarter of them ending near a packet boundary.
pub fn random_tx_request(rng: &mut impl Rng, max_len: usize, p_bad: f64) -> (TxRequest, Vec<u8>) {
    let mic = rng.gen_bool(0.5);
    let smbus = rng.gen_bool(0.5);
    let mtu_max = if smbus { 250 } else { 251 };
    let config = TxConfig {
        src: if rng.gen_bool(0.05) {
            0
        } else {
            rng.gen_range(8..=0xFE)
        },
        dst: if rng.gen_bool(0.1) {
            [0, 0xFF][rng.gen_range(0..2)]
        } else {
            rng.gen_range(8..=0xFF)
        },
        tag: rng.gen_range(0..8),
        tag_owner: rng.gen(),
        mtu: if rng.gen_bool(0.2) {
            [64, mtu_max][rng.gen_range(0..2)]
        } else {
            rng.gen_range(64..=mtu_max)
        },
        start_seq: rng.gen_range(0..4),
    };
    let max = if mic {
        max_len.saturating_sub(4).max(1)
    } else {
        max_len.max(1)
    };
    let len = match rng.gen_range(0..4) {
        0 => rng.gen_range(1..=300.min(max)),
        // Message (+ MIC) ending near a packet boundary.
        1 => (rng.gen_range(1..=8) * config.mtu + rng.gen_range(0..=8))
            .saturating_sub(4 + 4 * mic as usize)
            .clamp(1, max),
        _ => rng.gen_range(1..=max),
    };
    let mut message = vec![0u8; len];
    rng.fill(&mut message[..]);
    if mic {
        message[0] |= 0x80;
    }
    let mut req = TxRequest {
        config,
        append_mic: mic,
        smbus: smbus.then(|| SmbusAddresses {
            src: rng.gen_range(0..0x80),
            dst: rng.gen_range(0..0x80),
        }),
    };
    if rng.gen_bool(p_bad) {
        match rng.gen_range(0..8) {
            0 => message.clear(),
            1 => req.config.mtu = rng.gen_range(0..64),
            2 => req.config.mtu = rng.gen_range(252..=255),
            3 => {
                req.config.mtu = 251;
                req.smbus = Some(SmbusAddresses {
                    src: 0x10,
                    dst: 0x20,
                });
            }
            4 => req.config.src = [1, 4, 7, 0xFF][rng.gen_range(0..4)],
            5 => req.config.dst = rng.gen_range(1..=7),
            6 => {
                req.append_mic = true;
                message[0] &= 0x7F;
            }
            _ => {
                req.append_mic = true;
                message.resize(rng.gen_range(4221..=4300), 0x5A);
                message[0] = 0x84;
            }
        }
    }
    (req, message)
}

/// The static configuration of the MCTP RX block (its `cfg_*` ports) and of the software
/// receiver it is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxSetup {
    /// Frames are SMBus frames.
    pub smbus: bool,
    /// Check and strip the NVMe-MI MIC.
    pub mic: bool,
    /// Transmission-unit rules.
    pub strict: bool,
    /// Message limit (MIC included), `1..=HW_MAX_LEN`.
    pub max_len: usize,
}

impl RxSetup {
    /// The block's `cfg_*` ports for this setup (the register block's view).
    pub fn config(&self) -> offload_driver::registers::MctpRxConfig {
        offload_driver::registers::MctpRxConfig {
            smbus: self.smbus,
            mic: self.mic,
            strict: self.strict,
            max_len: self.max_len,
        }
    }

    /// The software receiver the block is equivalent to: one reassembly context.
    pub fn request(&self) -> RxRequest {
        RxRequest {
            reassembly: ReassemblyConfig {
                max_message_len: self.max_len,
                max_contexts: 1,
                timeout: DEFAULT_TIMEOUT,
                strict_unit_size: self.strict,
            },
            binding: if self.smbus {
                Binding::Smbus
            } else {
                Binding::Raw
            },
            verify_mic: self.mic,
        }
    }

    /// A random setup; `max_len` is 4224 (NVMe-MI) most of the time.
    pub fn random(rng: &mut impl Rng) -> RxSetup {
        RxSetup {
            smbus: rng.gen(),
            mic: rng.gen(),
            strict: rng.gen_bool(0.8),
            max_len: match rng.gen_range(0..6) {
                0 => rng.gen_range(1..=600),
                1 => HW_MAX_LEN,
                _ => 4224,
            },
        }
    }
}

/// What the software makes of a run of frames, in the RX block's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxExpected {
    /// Delivered messages (MIC stripped with `mic`), in order.
    pub messages: Vec<Message>,
    pub counters: RxCounters,
    /// The drops the block records, in order.
    pub drops: Vec<RxDrop>,
}

/// One drop the block records: the software's problem, or an oversize frame (the block's own).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RxDrop {
    Problem(offload_driver::mctp::RxError),
    Oversize,
}

/// Checks the drop records a run collected against the software's drops, one by one.
pub fn check_drops(got: &[DropRecord], want: &[RxDrop]) -> Result<(), String> {
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        let r = match w {
            RxDrop::Problem(e) => g.check(e).map_err(|m| format!("{m} (software: {e})")),
            RxDrop::Oversize if g.reason() == Some("oversize") => Ok(()),
            RxDrop::Oversize => Err(format!("{:?} where the frame was oversize", g.reason())),
        };
        r.map_err(|m| format!("drop {k}: {m}; the block's record: {g}"))?;
    }
    if got.len() != want.len() {
        return Err(format!("{} drops recorded, the software {}", got.len(), want.len()));
    }
    Ok(())
}

/// True for a frame the block drops before reassembly because of its packet limit (a raw
/// frame longer than `HEADER_LEN + MAX_PAYLOAD`).
pub fn rx_oversize(setup: &RxSetup, frame: &[u8]) -> bool {
    !setup.smbus && frame.len() > offload_driver::mctp::rx_block::MAX_RAW_FRAME
}

/// The software receiver (`offload_driver::mctp::receive` with one context) on `frames`, the
/// block's oversize frames left out and counted.
pub fn rx_reference(setup: &RxSetup, frames: &[Vec<u8>]) -> RxExpected {
    assert!(
        (1..=HW_MAX_LEN).contains(&setup.max_len),
        "max_len {} out of the block's range",
        setup.max_len
    );
    let kept: Vec<&Vec<u8>> = frames.iter().filter(|f| !rx_oversize(setup, f)).collect();
    let rep = receive(&setup.request(), &kept).expect("valid receive config");
    let mut problems = rep.problems.iter().peekable();
    let mut drops = Vec::new();
    let mut k = 0;
    for f in frames {
        if rx_oversize(setup, f) {
            drops.push(RxDrop::Oversize);
            continue;
        }
        while let Some(p) = problems.next_if(|p| p.frame == k) {
            drops.push(RxDrop::Problem(p.error.clone()));
        }
        k += 1;
    }
    let mut counters = rep.counters();
    // `oversize` is the block's own: the software has no packet limit.
    let oversize = RX_COUNTERS.iter().position(|n| *n == "oversize").expect("an RX counter");
    counters[oversize] = (frames.len() - kept.len()) as u64;
    let c = RxCounters::from_array(counters);
    RxExpected {
        messages: rep.messages,
        counters: c,
        drops,
    }
}

/// The packets of one message as frames for `setup`'s binding: a random key from a small set
/// (so keys collide: restarts, contexts full), the MIC appended as `setup.mic` asks except
/// now and then (then the check fails), sizes `1..=max_msg`.
fn message_frames(rng: &mut impl Rng, setup: &RxSetup, max_msg: usize) -> Vec<Vec<u8>> {
    let mic = setup.mic != rng.gen_bool(0.03);
    let config = TxConfig {
        src: [0x08, 0x09][rng.gen_range(0..2)],
        dst: 0x1D,
        tag: rng.gen_range(0..3),
        tag_owner: rng.gen(),
        mtu: if rng.gen_bool(0.3) {
            64
        } else {
            rng.gen_range(64..=if setup.smbus { 250 } else { 251 })
        },
        start_seq: rng.gen_range(0..4),
    };
    let max = if mic { max_msg - 4 } else { max_msg };
    let len = match rng.gen_range(0..5) {
        0 => rng.gen_range(1..=16),
        1 => rng.gen_range(1..=config.mtu),
        2 => (rng.gen_range(1..=4) * config.mtu + rng.gen_range(0..=8))
            .saturating_sub(4 + 4 * mic as usize)
            .clamp(1, max),
        _ => rng.gen_range(1..=max),
    };
    let mut msg = vec![0u8; len];
    rng.fill(&mut msg[..]);
    if mic && !rng.gen_bool(0.02) {
        msg[0] |= 0x80;
    } else if mic {
        msg[0] &= 0x7F;
    }
    let req = TxRequest {
        config,
        append_mic: false,
        smbus: setup.smbus.then_some(SmbusAddresses {
            src: 0x10 + config.src,
            dst: 0x1D,
        }),
    };
    if mic {
        offload_driver::nvme_mi::append_mic(&mut msg);
    }
    transmit(&req, &msg).expect("valid request")
}

/// Re-frames a raw packet for the setup's binding (a corrupted packet with a correct PEC).
fn frame(setup: &RxSetup, packet: &[u8]) -> Vec<u8> {
    if setup.smbus && packet.len() <= smbus::MAX_PACKET_LEN {
        smbus::encode(
            &SmbusAddresses {
                src: 0x18,
                dst: 0x1D,
            },
            packet,
        )
        .unwrap()
    } else {
        packet.to_vec()
    }
}

/// The packet inside a frame (the frame itself for raw, or when it does not decode).
fn packet_of(setup: &RxSetup, f: &[u8]) -> Vec<u8> {
    if setup.smbus {
        smbus::decode(f)
            .map(|(_, p)| p.to_vec())
            .unwrap_or_else(|_| f.to_vec())
    } else {
        f.to_vec()
    }
}

/// Frames carrying `n_messages` messages (sizes `1..=max_msg`), in order or interleaved, each
/// packet corrupted with probability `p_corrupt`.
pub fn random_rx_frames(
    rng: &mut impl Rng,
    setup: &RxSetup,
    n_messages: usize,
    max_msg: usize,
    p_corrupt: f64,
) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut m = 0;
    while m < n_messages {
        let mut frames = message_frames(rng, setup, max_msg);
        m += 1;
        match rng.gen_range(0..12) {
            // Another message's packets in the middle of this one's (a single-packet one for
            // another key is delivered first; a multi-packet one finds the context busy).
            0 | 1 if frames.len() > 1 && m < n_messages => {
                let other_max = if rng.gen_bool(0.7) {
                    200.min(max_msg)
                } else {
                    max_msg
                };
                let other = message_frames(rng, setup, other_max);
                m += 1;
                let at = rng.gen_range(1..frames.len());
                let tail = frames.split_off(at);
                frames.extend(other);
                frames.extend(tail);
            }
            // Raw only: a single packet the packetizer never makes (payload 252..=256, still
            // taken) or one past the block's limit (dropped as oversize).
            2 if !setup.smbus => {
                let plen = if rng.gen_bool(0.5) {
                    rng.gen_range(252..=256)
                } else {
                    rng.gen_range(257..=400)
                };
                let h = Header {
                    dst: 0x1D,
                    src: 0x08,
                    som: true,
                    eom: true,
                    seq: 0,
                    tag_owner: true,
                    tag: 1,
                };
                let mut p = h.encode().unwrap().to_vec();
                p.extend((0..plen).map(|_| rng.gen::<u8>()));
                if setup.mic {
                    p[4] |= 0x80;
                    let mic = offload_driver::nvme_mi::mic(&p[4..p.len() - 4]).to_le_bytes();
                    let n = p.len();
                    p[n - 4..].copy_from_slice(&mic);
                }
                frames.push(frame(setup, &p));
            }
            _ => {}
        }
        let mut i = 0;
        while i < frames.len() {
            if !rng.gen_bool(p_corrupt) {
                i += 1;
                continue;
            }
            match rng.gen_range(0..9) {
                0 | 1 => {
                    let f = &mut frames[i];
                    if !f.is_empty() {
                        let b = rng.gen_range(0..8 * f.len());
                        f[b / 8] ^= 1 << (b % 8);
                    }
                }
                2 => {
                    frames.remove(i);
                    continue;
                }
                3 => {
                    let f = frames[i].clone();
                    frames.insert(i, f);
                    i += 1;
                }
                4 if i + 1 < frames.len() => frames.swap(i, i + 1),
                5 => {
                    let n = rng.gen_range(0..frames[i].len().max(1));
                    frames[i].truncate(n);
                }
                6 => {
                    // A header field changed under a correct PEC: seq, tag, flags or version.
                    let mut p = packet_of(setup, &frames[i]);
                    if p.len() >= 4 {
                        match rng.gen_range(0..4) {
                            0 => p[3] ^= 0x10 << rng.gen_range(0..2),
                            1 => p[3] ^= 1 << rng.gen_range(0..4),
                            2 => p[3] ^= 0x40 << rng.gen_range(0..2),
                            _ => p[0] = [0x00, 0x02, 0x11][rng.gen_range(0..3)],
                        }
                    }
                    frames[i] = frame(setup, &p);
                }
                7 => {
                    let n = rng.gen_range(0..12);
                    let mut g: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                    if n > 0 && rng.gen_bool(0.5) {
                        g[0] = 0x01;
                    }
                    let g = if rng.gen_bool(0.5) {
                        frame(setup, &g)
                    } else {
                        g
                    };
                    frames.insert(i, g);
                    i += 1;
                }
                _ => {
                    // SMBus fields under a correct PEC: command code, read bit, source bit.
                    if setup.smbus && frames[i].len() >= 5 {
                        let f = &mut frames[i];
                        match rng.gen_range(0..3) {
                            0 => f[1] ^= 0x01,
                            1 => f[0] |= 1,
                            _ => f[3] &= !1,
                        }
                        let n = f.len();
                        f[n - 1] = offload_driver::crc::crc8_smbus(&f[..n - 1]);
                    }
                }
            }
            i += 1;
        }
        out.extend(frames);
    }
    out
}

/// Byte-exact comparison that reports the first difference.
pub fn assert_same(got: &[u8], want: &[u8], what: &str) {
    if let Some(i) = (0..got.len().min(want.len())).find(|&i| got[i] != want[i]) {
        let lo = i.saturating_sub(8);
        panic!(
            "{what}: first difference at octet {i}: got {:02x?}, want {:02x?}",
            &got[lo..(i + 8).min(got.len())],
            &want[lo..(i + 8).min(want.len())]
        );
    }
    assert_eq!(got.len(), want.len(), "{what}: lengths");
}

/// Runs rust-hdl's simulation of the MCTP RX block at width `w` (1, 4 or 8) over `frames`
/// with `traffic`, through the testbench's driver (which checks the AXI-Stream rules and that
/// the header fields hold within a message); an error if the block stops making progress.
pub fn run_rx_hdl(
    w: usize,
    setup: &RxSetup,
    frames: &[Vec<u8>],
    traffic: &Traffic,
) -> Result<MctpRxRun, BenchError> {
    let cfg = setup.config();
    match w {
        1 => run_mctp_rx(&mut crate::mctp_rx::hdl_model::<8, 1, 13>()?, &cfg, frames, traffic),
        4 => run_mctp_rx(&mut crate::mctp_rx::hdl_model::<32, 4, 11>()?, &cfg, frames, traffic),
        8 => run_mctp_rx(&mut crate::mctp_rx::hdl_model::<64, 8, 10>()?, &cfg, frames, traffic),
        _ => Err(BenchError::Port(format!("no MCTP RX block of width {w}"))),
    }
}

/// Directed frames for the cases random traffic meets rarely: while a multi-packet message is
/// open, several single-packet messages for another key in a row (each waits for the slot
/// while the previous one is still unread), a restart of the open key whose frame is then
/// dropped for its PEC or header (the open message must survive it), a good restart, sequence
/// numbers wrapping past 3, and a message of exactly one MTU.
pub fn rx_directed_frames(setup: &RxSetup) -> Vec<Vec<u8>> {
    let tx = |src: u8, tag: u8, seq: u8, len: usize, fill: u8| -> Vec<Vec<u8>> {
        let mut msg: Vec<u8> = (0..len).map(|i| fill.wrapping_add(i as u8)).collect();
        msg[0] |= 0x80;
        if setup.mic {
            offload_driver::nvme_mi::append_mic(&mut msg);
        }
        let req = TxRequest {
            config: TxConfig {
                mtu: 64,
                start_seq: seq,
                ..TxConfig::new(src, 0x1D, tag, true)
            },
            append_mic: false,
            smbus: setup.smbus.then_some(SmbusAddresses {
                src: 0x10,
                dst: 0x1D,
            }),
        };
        transmit(&req, &msg).expect("valid request")
    };
    let a = tx(0x08, 1, 3, 600, 0x10); // 10+ packets, sequence 3, 0, 1, 2, 3, ...
    let mut out = Vec::new();
    out.extend_from_slice(&a[..3]);
    for k in 0..4 {
        out.extend(tx(0x09, k, 0, 20 + k as usize, 0x40 + k)); // single packets, another key
    }
    // A restart of A's key that fails: bad PEC (SMBus) or bad version (raw).
    let mut r = tx(0x08, 1, 0, 30, 0x70).remove(0);
    if setup.smbus {
        let n = r.len();
        r[n - 1] ^= 0x01;
    } else {
        r[0] = 0x02;
    }
    out.push(r);
    out.extend_from_slice(&a[3..]);
    // A good restart in the middle of another message of A's key.
    let b = tx(0x08, 1, 2, 300, 0x90);
    out.extend_from_slice(&b[..2]);
    out.extend(tx(0x08, 1, 1, 200, 0xA0));
    out.extend(tx(0x08, 1, 0, 64 - if setup.mic { 4 } else { 0 }, 0xB0)); // exactly one MTU
    out
}

/// Runs `body` on a thread with a 64 MiB stack and passes its panic on. The whole top's
/// `Default` in the dev profile holds several copies of the block on its frame, about a test
/// thread's 2 MiB (at stop 71 its MPA receiver's input skid grew by 68 side-channel bits and
/// `top::tests` overflowed the stack, depending on the address layout); rust-hdl also settles
/// it by deep recursion. So a plain `cargo test` needs no `RUST_MIN_STACK`.
pub fn on_a_big_stack(body: fn()) {
    let t = std::thread::Builder::new().stack_size(64 << 20).spawn(body).unwrap();
    if let Err(panic) = t.join() {
        std::panic::resume_unwind(panic);
    }
}
