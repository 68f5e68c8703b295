//! Packet-level fault injection against the reassembler: many interleaved messages, packets
//! randomly dropped, duplicated and reordered.
//!
//! MCTP protects a message only with SOM/EOM and a 2-bit sequence number, so what it can
//! promise is limited, and these tests state exactly how far:
//! - with unique keys and messages of at most 5 packets, a wrong message can never be
//!   assembled (any wrong splice would need four consecutive middle packets of the same
//!   sequence phase), so every delivered message must equal the one sent on its key;
//! - beyond that (long messages, keys reused back to back), MCTP alone can deliver a wrong
//!   message — e.g. after losing exactly four middle packets — and the NVMe-MI MIC is what
//!   rejects it: every delivered message whose MIC verifies must equal one that was sent.
//!
//! In both, contexts and buffered octets stay within the configured bounds throughout.

use offload_driver::mctp::{
    packetize, ContextKey, Message, Outcome, Reassembler, ReassemblyConfig, TxConfig, MAX_MTU,
    MIN_MTU,
};
use offload_driver::nvme_mi;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

struct Faults {
    /// How many messages are in flight at once (packets interleave among them).
    window: usize,
    drop: f64,
    dup: f64,
    swap: f64,
    far_moves: usize,
}

/// Interleaves the packet lists of `window` messages at a time at random (each list in
/// order), then applies faults.
fn faulty_stream(rng: &mut StdRng, mut queues: Vec<VecDeque<Vec<u8>>>, f: &Faults) -> Vec<Vec<u8>> {
    let mut stream = Vec::new();
    loop {
        let live: Vec<usize> = (0..queues.len())
            .filter(|&i| !queues[i].is_empty())
            .take(f.window)
            .collect();
        let Some(&i) = live.choose(rng) else { break };
        let p = queues[i].pop_front().unwrap();
        if rng.gen_bool(f.drop) {
            continue;
        }
        if rng.gen_bool(f.dup) {
            stream.push(p.clone());
        }
        stream.push(p);
    }
    for i in 0..stream.len().saturating_sub(1) {
        if rng.gen_bool(f.swap) {
            stream.swap(i, i + 1);
        }
    }
    for _ in 0..f.far_moves {
        if stream.len() > 1 {
            let p = stream.remove(rng.gen_range(0..stream.len()));
            let j = rng.gen_range(0..=stream.len());
            stream.insert(j, p);
        }
    }
    stream
}

fn key(c: &TxConfig) -> ContextKey {
    ContextKey {
        src: c.src,
        dst: c.dst,
        tag: c.tag,
        tag_owner: c.tag_owner,
    }
}

/// Feeds the stream, checking the bounds after every packet; returns what was delivered.
fn run(cfg: ReassemblyConfig, stream: &[Vec<u8>]) -> (Vec<Message>, Reassembler) {
    let mut r = Reassembler::new(cfg).unwrap();
    let mut out = Vec::new();
    for (i, p) in stream.iter().enumerate() {
        if let Outcome::Delivered(m) = r.push(p, Duration::from_millis(i as u64)) {
            out.push(m);
        }
        assert!(
            r.active_contexts() <= cfg.max_contexts,
            "contexts {}",
            r.active_contexts()
        );
        assert!(
            r.buffered_octets() <= cfg.max_contexts * cfg.max_message_len,
            "buffered {}",
            r.buffered_octets()
        );
    }
    assert_eq!(r.stats().delivered, out.len() as u64);
    (out, r)
}

#[test]
fn short_messages_unique_keys_never_deliver_a_wrong_message() {
    let cfg = ReassemblyConfig {
        max_contexts: 8,
        timeout: Duration::from_millis(40),
        ..Default::default()
    };
    let mut total_delivered = 0;
    let mut total_dropped = 0;
    let mut total_full = 0;
    for seed in 0..60u64 {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut sent: HashMap<ContextKey, Vec<u8>> = HashMap::new();
        let mut queues = Vec::new();
        for k in 0..120usize {
            // Unique key per message: (src, tag, TO) from the index.
            let c = TxConfig {
                src: 0x10 + (k / 16) as u8,
                dst: 0x20,
                tag: (k % 8) as u8,
                tag_owner: (k / 8) % 2 == 1,
                mtu: rng.gen_range(MIN_MTU..=MAX_MTU),
                start_seq: rng.gen_range(0..4),
            };
            let packets = rng.gen_range(1..=5usize);
            let len = rng.gen_range((packets - 1) * c.mtu + 1..=packets * c.mtu);
            let msg: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let pk = packetize(&c, &msg).unwrap();
            assert_eq!(pk.len(), packets);
            assert!(sent.insert(key(&c), msg).is_none());
            queues.push(pk.into());
        }
        let faults = Faults {
            window: 10,
            drop: 0.05,
            dup: 0.05,
            swap: 0.05,
            far_moves: 5,
        };
        let stream = faulty_stream(&mut rng, queues, &faults);
        let (got, r) = run(cfg, &stream);
        for m in &got {
            assert_eq!(
                Some(&m.bytes),
                sent.get(&m.key()),
                "seed {seed}: wrong message on {:?}",
                m.key()
            );
        }
        total_delivered += got.len();
        total_dropped += r.stats().dropped();
        total_full += r.stats().contexts_full;
    }
    // The faults did bite, and most messages still got through.
    assert!(total_dropped > 500, "dropped {total_dropped}");
    assert!(total_full > 0, "the context bound was never reached");
    assert!(
        total_delivered > 60 * 120 / 2,
        "delivered {total_delivered}"
    );
}

#[test]
fn long_messages_and_reused_keys_mic_rejects_every_wrong_delivery() {
    let cfg = ReassemblyConfig {
        max_contexts: 4,
        timeout: Duration::from_millis(200),
        ..ReassemblyConfig::nvme_mi()
    };
    let mut wrong_caught = 0;
    let mut right = 0;
    for seed in 0..40u64 {
        let mut rng = StdRng::seed_from_u64(1000 + seed);
        let mut sent: HashMap<ContextKey, Vec<Vec<u8>>> = HashMap::new();
        let mut queues = Vec::new();
        // Two keys only, so consecutive messages on a key splice when a SOM is lost.
        for k in 0..60usize {
            let c = TxConfig {
                src: 0x10 + (k % 2) as u8,
                dst: 0x20,
                tag: 3,
                tag_owner: true,
                mtu: 64,
                start_seq: rng.gen_range(0..4),
            };
            let body_len = rng.gen_range(0..64 * 30);
            let mut msg = vec![0x84, 0x08, 0, 0];
            msg.extend((0..body_len).map(|_| rng.gen::<u8>()));
            nvme_mi::append_mic(&mut msg);
            queues.push(VecDeque::from(packetize(&c, &msg).unwrap()));
            sent.entry(key(&c)).or_default().push(msg);
        }
        // Drops heavy enough that runs of four lost middles happen.
        let faults = Faults {
            window: 6,
            drop: 0.3,
            dup: 0.05,
            swap: 0.02,
            far_moves: 3,
        };
        let stream = faulty_stream(&mut rng, queues, &faults);
        let (got, _) = run(cfg, &stream);
        for m in &got {
            let is_sent = sent[&m.key()].contains(&m.bytes);
            match nvme_mi::verify_mic(&m.bytes) {
                Ok(_) => {
                    assert!(is_sent, "seed {seed}: a wrong message passed the MIC");
                    right += 1;
                }
                Err(_) => {
                    assert!(!is_sent, "seed {seed}: a sent message failed its MIC");
                    wrong_caught += 1;
                }
            }
        }
    }
    eprintln!("MIC verified {right} deliveries and rejected {wrong_caught} wrong ones");
    assert!(right > 0);
    // MCTP alone did assemble wrong messages here; the MIC caught every one.
    assert!(
        wrong_caught > 0,
        "no wrong splice happened: the test lost its power"
    );
}

/// The limitation in its smallest form: losing exactly four middle packets keeps the
/// sequence numbers consistent, so MCTP delivers a shorter, wrong message; the MIC rejects it.
#[test]
fn four_lost_middles_are_invisible_to_mctp_but_not_to_the_mic() {
    let c = TxConfig {
        src: 0x08,
        dst: 0x1D,
        tag: 0,
        tag_owner: true,
        mtu: 64,
        start_seq: 0,
    };
    let mut msg = vec![0x84, 0x08, 0, 0];
    msg.extend((0..64 * 6).map(|i| i as u8));
    nvme_mi::append_mic(&mut msg);
    let pk = packetize(&c, &msg).unwrap();
    assert_eq!(pk.len(), 7);
    let stream: Vec<Vec<u8>> = [0, 5, 6].iter().map(|&i| pk[i].clone()).collect();
    let (got, r) = run(ReassemblyConfig::nvme_mi(), &stream);
    assert_eq!(got.len(), 1);
    assert_eq!(r.stats().dropped(), 0);
    assert_ne!(got[0].bytes, msg);
    assert!(nvme_mi::verify_mic(&got[0].bytes).is_err());
}
