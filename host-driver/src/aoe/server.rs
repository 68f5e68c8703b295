//! The target's I/O loop over a [`Link`]: announce (the boot-time broadcast, §3.2), then
//! repeatedly take every frame waiting into the Buffer Count [`Backlog`] (dropping and
//! counting the excess) and answer the oldest, so the queue is what the target holds and the
//! first answer goes out without waiting for the rest; held asynchronous writes are written
//! out when the link has been quiet for a moment.

use super::client::Link;
use super::device::BlockDevice;
use super::header::ETH_HEADER_LEN;
use super::target::{Backlog, Outcome, Target};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the loop looks at the stop flag when the link is quiet.
const POLL: Duration = Duration::from_millis(50);

/// Counters of the loop (the target keeps its own in [`Target::stats`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServeStats {
    pub received: u64,
    /// Frames dropped because the Buffer Count queue was full.
    pub dropped: u64,
    pub sent: u64,
}

/// Serves until `stop` is set; queued commands are answered and held writes written out and
/// flushed before returning.
pub fn serve<L: Link, D: BlockDevice>(
    link: &mut L,
    target: &mut Target<D>,
    stop: &AtomicBool,
) -> io::Result<ServeStats> {
    let mut stats = ServeStats::default();
    let mut backlog = Backlog::new(target.config().buffer_count);
    let mut buf = vec![0u8; (link.mtu() + ETH_HEADER_LEN).max(2048)];
    let mut out = Vec::with_capacity(buf.len());
    let bounded = link.bound_queue(backlog.capacity())?;
    target.announce(&mut out);
    link.send(&out)?;
    stats.sent += 1;
    if bounded {
        // The link's own queue holds Buffer Count frames and drops the rest. Answer what is
        // waiting in order (at most a queue's worth), then send the answers in one go.
        let cap = backlog.capacity();
        let mut outs: Vec<Vec<u8>> = (0..cap).map(|_| Vec::with_capacity(buf.len())).collect();
        while !stop.load(Ordering::Relaxed) {
            let mut k = 0;
            let mut wait = POLL;
            while k < cap {
                let Some(n) = link.recv(&mut buf, wait)? else {
                    break;
                };
                wait = Duration::ZERO;
                stats.received += 1;
                if target.handle(&buf[..n], &mut outs[k]) == Outcome::Respond {
                    k += 1;
                }
            }
            if k > 0 {
                link.send_many(&outs[..k])?;
                stats.sent += k as u64;
            } else if wait == POLL {
                target.idle();
            }
        }
        stats.dropped = link.queue_drops()?;
    } else {
        while !stop.load(Ordering::Relaxed) {
            if backlog.is_empty() {
                match link.recv(&mut buf, POLL)? {
                    Some(n) => {
                        stats.received += 1;
                        backlog.push(&buf[..n]);
                    }
                    None => {
                        target.idle();
                        continue;
                    }
                }
            }
            // Everything that arrived meanwhile joins the queue (or is dropped when it is full)
            // before the oldest is answered.
            stats.received += link.drain(&mut buf, &mut |f| {
                backlog.push(f);
            })? as u64;
            if let Some(frame) = backlog.pop() {
                if target.handle(&frame, &mut out) == Outcome::Respond {
                    link.send(&out)?;
                    stats.sent += 1;
                }
                backlog.recycle(frame);
            }
            stats.dropped = backlog.dropped();
        }
    }
    // Commands already queued are answered before leaving.
    while let Some(frame) = backlog.pop() {
        if target.handle(&frame, &mut out) == Outcome::Respond {
            link.send(&out)?;
            stats.sent += 1;
        }
    }
    target.idle();
    let _ = target.flush_device();
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aoe::config::QueryConfig;
    use crate::aoe::device::MemDevice;
    use crate::aoe::header::{Header, Mac, BROADCAST, CMD_QUERY_CONFIG};
    use crate::aoe::target::TargetConfig;
    use std::collections::VecDeque;

    /// A link whose frames all arrive at once; it sets `stop` when it runs dry.
    struct Burst<'a> {
        rx: VecDeque<Vec<u8>>,
        tx: Vec<Vec<u8>>,
        stop: &'a AtomicBool,
    }

    impl Link for Burst<'_> {
        fn mac(&self) -> Mac {
            [2, 0, 0, 0, 0, 9]
        }
        fn mtu(&self) -> usize {
            1500
        }
        fn send(&mut self, frame: &[u8]) -> io::Result<()> {
            self.tx.push(frame.to_vec());
            Ok(())
        }
        fn recv(&mut self, buf: &mut [u8], _: Duration) -> io::Result<Option<usize>> {
            match self.rx.pop_front() {
                Some(f) => {
                    buf[..f.len()].copy_from_slice(&f);
                    Ok(Some(f.len()))
                }
                None => {
                    self.stop.store(true, Ordering::Relaxed);
                    Ok(None)
                }
            }
        }
    }

    #[test]
    fn a_burst_beyond_the_buffer_count_is_dropped_and_counted() {
        let stop = AtomicBool::new(false);
        let rx = (0..10u32)
            .map(|tag| {
                let mut f = Vec::new();
                Header::request([2, 0, 0, 0, 0, 1], BROADCAST, 1, 1, CMD_QUERY_CONFIG, tag)
                    .write(&mut f);
                QueryConfig::command(0, b"").write(&mut f);
                f
            })
            .collect();
        let mut link = Burst {
            rx,
            tx: Vec::new(),
            stop: &stop,
        };
        let mut cfg = TargetConfig::new(1, 1, link.mac(), 1500);
        cfg.buffer_count = 4;
        let mut t = Target::new(cfg, MemDevice::new(8)).unwrap();
        let stats = serve(&mut link, &mut t, &stop).unwrap();
        assert_eq!((stats.received, stats.dropped, stats.sent), (10, 6, 5));
        // The announcement, then the first four commands in order.
        let tags: Vec<u32> = link
            .tx
            .iter()
            .map(|f| Header::parse(f).unwrap().0.tag)
            .collect();
        assert_eq!(tags, [0, 0, 1, 2, 3]);
        assert_eq!(t.device().flushes, 1, "flushed on the way out");
    }
}
