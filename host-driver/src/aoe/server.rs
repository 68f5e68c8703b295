//! The target's I/O loop over a [`Link`]: announce (the boot-time broadcast, §3.2), then
//! repeatedly take every frame waiting into the Buffer Count [`Backlog`] (dropping and
//! counting the excess), answer them in order, and write out held asynchronous writes when
//! nothing is waiting.

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

/// Serves until `stop` is set; held writes are written out and flushed before returning.
pub fn serve<L: Link, D: BlockDevice>(
    link: &mut L,
    target: &mut Target<D>,
    stop: &AtomicBool,
) -> io::Result<ServeStats> {
    let mut stats = ServeStats::default();
    let mut backlog = Backlog::new(target.config().buffer_count);
    let mut buf = vec![0u8; (link.mtu() + ETH_HEADER_LEN).max(2048)];
    let mut out = Vec::with_capacity(buf.len());
    target.announce(&mut out);
    link.send(&out)?;
    stats.sent += 1;
    while !stop.load(Ordering::Relaxed) {
        let wait = if backlog.is_empty() {
            POLL
        } else {
            Duration::ZERO
        };
        match link.recv(&mut buf, wait)? {
            Some(n) => {
                stats.received += 1;
                backlog.push(&buf[..n]);
                // Take everything already waiting before answering any of it.
                while let Some(n) = link.recv(&mut buf, Duration::ZERO)? {
                    stats.received += 1;
                    backlog.push(&buf[..n]);
                }
            }
            None => target.idle(),
        }
        while let Some(frame) = backlog.pop() {
            if target.handle(&frame, &mut out) == Outcome::Respond {
                link.send(&out)?;
                stats.sent += 1;
            }
            backlog.recycle(frame);
        }
        stats.dropped = backlog.dropped();
    }
    target.idle();
    let _ = target.flush_device();
    Ok(stats)
}
