//! Linux AF_PACKET raw sockets for AoE: bound to one interface and Ethernet type 0x88A2, so
//! the kernel hands us only AoE frames of that interface, whole, Ethernet header included.

use super::client::Link;
use super::header::{Mac, ETHERTYPE, ETH_MIN_FRAME};
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// Socket buffer size asked for: room for a window of jumbo frames in flight.
const SOCKET_BUFFER: libc::c_int = 8 << 20;

/// A raw AoE socket on one interface.
#[derive(Debug)]
pub struct PacketSocket {
    fd: OwnedFd,
    ifindex: i32,
    mac: Mac,
    mtu: usize,
    /// Scratch for padding short frames to the Ethernet minimum.
    pad: Vec<u8>,
    /// Receive buffers of [`drain_frames`](Self::drain_frames).
    batch: Vec<u8>,
    ring: Option<RxRing>,
    /// Frames the kernel dropped for want of a free ring slot, so far.
    ring_drops: u64,
}

/// Frames taken per `recvmmsg` call.
pub const BATCH: usize = 32;

// The PACKET_RX_RING ABI (linux/if_packet.h), TPACKET_V2.
const PACKET_RX_RING: libc::c_int = 5;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_VERSION: libc::c_int = 10;
const TPACKET_V2: libc::c_int = 1;
const TP_STATUS_KERNEL: u32 = 0;
const TP_STATUS_USER: u32 = 1;
/// `TPACKET_ALIGN(sizeof(struct tpacket2_hdr))`: where the `sockaddr_ll` of a slot starts.
const TPACKET2_ADDR_OFFSET: usize = 32;

#[repr(C)]
struct TpacketReq {
    tp_block_size: libc::c_uint,
    tp_block_nr: libc::c_uint,
    tp_frame_size: libc::c_uint,
    tp_frame_nr: libc::c_uint,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Tpacket2Hdr {
    tp_status: u32,
    tp_len: u32,
    tp_snaplen: u32,
    tp_mac: u16,
    tp_net: u16,
    tp_sec: u32,
    tp_nsec: u32,
    tp_vlan_tci: u16,
    tp_vlan_tpid: u16,
    tp_padding: [u8; 4],
}

#[repr(C)]
#[derive(Default)]
struct TpacketStats {
    tp_packets: libc::c_uint,
    tp_drops: libc::c_uint,
}

/// A receive ring shared with the kernel: `frames` slots of `slot` octets. The kernel fills a
/// slot and hands it to us (TP_STATUS_USER); when every slot is ours it drops the frame and
/// counts it, so a ring of Buffer Count slots is the Buffer Count queue (§3.2) itself.
#[derive(Debug)]
struct RxRing {
    map: *mut u8,
    len: usize,
    slot: usize,
    frames: usize,
    next: usize,
}

// SAFETY: the mapping is owned by this value alone; it moves with the socket.
unsafe impl Send for RxRing {}

impl Drop for RxRing {
    fn drop(&mut self) {
        // SAFETY: unmapping the region mmap gave us, once.
        unsafe {
            libc::munmap(self.map as *mut libc::c_void, self.len);
        }
    }
}

fn check(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn ifreq_for(iface: &str) -> io::Result<libc::ifreq> {
    let name = iface.as_bytes();
    if name.is_empty() || name.len() >= libc::IFNAMSIZ || name.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("bad interface name {iface:?}"),
        ));
    }
    // SAFETY: ifreq is plain old data; all zeros is a valid value.
    let mut req: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in req.ifr_name.iter_mut().zip(name) {
        *d = *s as libc::c_char;
    }
    Ok(req)
}

impl PacketSocket {
    /// Opens a socket on `iface` (needs CAP_NET_RAW) and reads its MAC address and MTU.
    pub fn open(iface: &str) -> io::Result<Self> {
        let cname = CString::new(iface)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in interface name"))?;
        // SAFETY: plain libc calls on values we own; results are checked.
        unsafe {
            let ifindex = libc::if_nametoindex(cname.as_ptr());
            if ifindex == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("no interface {iface}: {}", io::Error::last_os_error()),
                ));
            }
            let proto = (ETHERTYPE).to_be() as libc::c_int;
            let raw = check(libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW | libc::SOCK_CLOEXEC,
                proto,
            ))?;
            let fd = OwnedFd::from_raw_fd(raw);
            let mut sll: libc::sockaddr_ll = std::mem::zeroed();
            sll.sll_family = libc::AF_PACKET as u16;
            sll.sll_protocol = ETHERTYPE.to_be();
            sll.sll_ifindex = ifindex as i32;
            check(libc::bind(
                raw,
                &sll as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            ))?;
            for (force, plain) in [
                (libc::SO_RCVBUFFORCE, libc::SO_RCVBUF),
                (libc::SO_SNDBUFFORCE, libc::SO_SNDBUF),
            ] {
                let size = SOCKET_BUFFER;
                let p = &size as *const libc::c_int as *const libc::c_void;
                let l = std::mem::size_of::<libc::c_int>() as u32;
                if libc::setsockopt(raw, libc::SOL_SOCKET, force, p, l) < 0 {
                    // Without CAP_NET_ADMIN the plain option still gets up to rmem_max.
                    libc::setsockopt(raw, libc::SOL_SOCKET, plain, p, l);
                }
            }
            let mut req = ifreq_for(iface)?;
            check(libc::ioctl(raw, libc::SIOCGIFHWADDR, &mut req))?;
            let sa = req.ifr_ifru.ifru_hwaddr.sa_data;
            let mac = [
                sa[0] as u8,
                sa[1] as u8,
                sa[2] as u8,
                sa[3] as u8,
                sa[4] as u8,
                sa[5] as u8,
            ];
            let mut req = ifreq_for(iface)?;
            check(libc::ioctl(raw, libc::SIOCGIFMTU, &mut req))?;
            let mtu = req.ifr_ifru.ifru_mtu as usize;
            Ok(PacketSocket {
                fd,
                ifindex: ifindex as i32,
                mac,
                mtu,
                pad: Vec::new(),
                batch: Vec::new(),
                ring: None,
                ring_drops: 0,
            })
        }
    }

    /// Opens a socket on `iface` inside network namespace `netns` (a name under
    /// `/var/run/netns`, as `ip netns add` makes). The socket stays in that namespace; the
    /// calling thread does not move (the switch happens on a short-lived thread).
    pub fn open_in_netns(netns: &str, iface: &str) -> io::Result<Self> {
        let path = format!("/var/run/netns/{netns}");
        let ns = std::fs::File::open(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))?;
        let iface = iface.to_string();
        std::thread::spawn(move || {
            // SAFETY: setns on an fd we own; it only affects this thread.
            check(unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) })?;
            PacketSocket::open(&iface)
        })
        .join()
        .map_err(|_| io::Error::other("namespace thread panicked"))?
    }

    pub fn ifindex(&self) -> i32 {
        self.ifindex
    }

    /// Sends one frame, zero-padded to the 60-octet Ethernet minimum.
    pub fn send_frame(&mut self, frame: &[u8]) -> io::Result<()> {
        let buf: &[u8] = if frame.len() < ETH_MIN_FRAME {
            self.pad.clear();
            self.pad.extend_from_slice(frame);
            self.pad.resize(ETH_MIN_FRAME, 0);
            &self.pad
        } else {
            frame
        };
        // SAFETY: buf is valid for its length.
        let n = unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                buf.as_ptr() as *const libc::c_void,
                buf.len(),
                0,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Receives through a ring of `frames` slots from now on: no system call per frame while
    /// frames are waiting, and at most `frames` waiting; the kernel drops and counts the rest
    /// ([`ring_drops`](Self::ring_drops)).
    pub fn set_rx_ring(&mut self, frames: usize) -> io::Result<()> {
        let fd = self.fd.as_raw_fd();
        let page = 4096usize;
        let need = TPACKET2_ADDR_OFFSET + 32 + self.mtu + super::header::ETH_HEADER_LEN + 16;
        let slot = need.div_ceil(page) * page;
        let frames = frames.max(1);
        let req = TpacketReq {
            tp_block_size: slot as libc::c_uint,
            tp_block_nr: frames as libc::c_uint,
            tp_frame_size: slot as libc::c_uint,
            tp_frame_nr: frames as libc::c_uint,
        };
        // SAFETY: setsockopt/mmap with sizes matching the values passed; results checked.
        unsafe {
            let v = TPACKET_V2;
            check(libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                PACKET_VERSION,
                &v as *const libc::c_int as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as u32,
            ))?;
            check(libc::setsockopt(
                fd,
                libc::SOL_PACKET,
                PACKET_RX_RING,
                &req as *const TpacketReq as *const libc::c_void,
                std::mem::size_of::<TpacketReq>() as u32,
            ))?;
            let len = slot * frames;
            let map = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if map == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            self.ring = Some(RxRing {
                map: map as *mut u8,
                len,
                slot,
                frames,
                next: 0,
            });
        }
        self.ring_drops()?;
        self.ring_drops = 0;
        Ok(())
    }

    /// Frames dropped so far because the receive ring was full (0 without a ring).
    pub fn ring_drops(&mut self) -> io::Result<u64> {
        if self.ring.is_none() {
            return Ok(0);
        }
        let mut st = TpacketStats::default();
        let mut len = std::mem::size_of::<TpacketStats>() as libc::socklen_t;
        // SAFETY: st is valid for len octets. The kernel resets its counters on each read.
        check(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                PACKET_STATISTICS,
                &mut st as *mut TpacketStats as *mut libc::c_void,
                &mut len,
            )
        })?;
        self.ring_drops += u64::from(st.tp_drops);
        Ok(self.ring_drops)
    }

    /// Copies the oldest frame of the ring into `buf` and gives its slot back; `None` when
    /// the kernel has handed us nothing.
    fn ring_take(&mut self, buf: &mut [u8]) -> Option<usize> {
        let ring = self.ring.as_mut()?;
        loop {
            // SAFETY: the slot lies inside the mapping; tp_status is the handshake word with
            // the kernel, read with acquire and written with release ordering.
            unsafe {
                let base = ring.map.add(ring.next * ring.slot);
                let status = &*(base as *const std::sync::atomic::AtomicU32);
                if status.load(std::sync::atomic::Ordering::Acquire) & TP_STATUS_USER == 0 {
                    return None;
                }
                let h = std::ptr::read(base as *const Tpacket2Hdr);
                let addr = std::ptr::read_unaligned(
                    base.add(TPACKET2_ADDR_OFFSET) as *const libc::sockaddr_ll
                );
                let n = (h.tp_snaplen as usize).min(buf.len());
                let mac = (h.tp_mac as usize).min(ring.slot);
                let n = n.min(ring.slot - mac);
                std::ptr::copy_nonoverlapping(base.add(mac), buf.as_mut_ptr(), n);
                status.store(TP_STATUS_KERNEL, std::sync::atomic::Ordering::Release);
                ring.next = (ring.next + 1) % ring.frames;
                if addr.sll_pkttype != libc::PACKET_OUTGOING {
                    return Some(n);
                }
            }
        }
    }

    /// Waits up to `timeout` for the socket to become readable.
    fn wait_readable(&self, timeout: Duration) -> io::Result<()> {
        let ts = libc::timespec {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd; a null signal mask.
        let r = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
        if r < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Hands every frame waiting to `sink`, [`BATCH`] per `recvmmsg` call; frames we sent
    /// ourselves are skipped.
    pub fn drain_frames(&mut self, sink: &mut dyn FnMut(&[u8])) -> io::Result<usize> {
        if self.ring.is_some() {
            let mut buf = std::mem::take(&mut self.batch);
            buf.resize(self.mtu + super::header::ETH_HEADER_LEN, 0);
            let mut n = 0;
            while let Some(len) = self.ring_take(&mut buf) {
                sink(&buf[..len]);
                n += 1;
            }
            self.batch = buf;
            return Ok(n);
        }
        let frame_len = (self.mtu + super::header::ETH_HEADER_LEN).max(2048);
        if self.batch.len() != BATCH * frame_len {
            self.batch = vec![0; BATCH * frame_len];
        }
        let mut total = 0;
        loop {
            // SAFETY: every iovec points into self.batch at a distinct frame_len slice, every
            // msg_name at its own sockaddr_ll; all outlive the call.
            let (got, lens, kinds) = unsafe {
                let mut addrs: [libc::sockaddr_ll; BATCH] = std::mem::zeroed();
                let mut iov: [libc::iovec; BATCH] = std::mem::zeroed();
                let mut msgs: [libc::mmsghdr; BATCH] = std::mem::zeroed();
                let base = self.batch.as_mut_ptr();
                for i in 0..BATCH {
                    iov[i].iov_base = base.add(i * frame_len) as *mut libc::c_void;
                    iov[i].iov_len = frame_len;
                    msgs[i].msg_hdr.msg_iov = &mut iov[i];
                    msgs[i].msg_hdr.msg_iovlen = 1;
                    msgs[i].msg_hdr.msg_name = &mut addrs[i] as *mut _ as *mut libc::c_void;
                    msgs[i].msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as u32;
                }
                let r = libc::recvmmsg(
                    self.fd.as_raw_fd(),
                    msgs.as_mut_ptr(),
                    BATCH as libc::c_uint,
                    libc::MSG_DONTWAIT,
                    std::ptr::null_mut(),
                );
                let mut lens = [0usize; BATCH];
                let mut kinds = [0u8; BATCH];
                for i in 0..BATCH {
                    lens[i] = (msgs[i].msg_len as usize).min(frame_len);
                    kinds[i] = addrs[i].sll_pkttype;
                }
                (r, lens, kinds)
            };
            if got < 0 {
                let e = io::Error::last_os_error();
                match e.kind() {
                    io::ErrorKind::WouldBlock => return Ok(total),
                    io::ErrorKind::Interrupted => continue,
                    _ => return Err(e),
                }
            }
            let got = got as usize;
            for i in 0..got {
                if kinds[i] != libc::PACKET_OUTGOING {
                    sink(&self.batch[i * frame_len..i * frame_len + lens[i]]);
                    total += 1;
                }
            }
            if got < BATCH {
                return Ok(total);
            }
        }
    }

    /// Sends `frames` with as few `sendmmsg` calls as the kernel takes; each is zero-padded to
    /// the Ethernet minimum.
    pub fn send_frames(&mut self, frames: &[Vec<u8>]) -> io::Result<()> {
        const ZEROS: [u8; ETH_MIN_FRAME] = [0; ETH_MIN_FRAME];
        let mut done = 0;
        while done < frames.len() {
            let chunk = &frames[done..frames.len().min(done + BATCH)];
            // SAFETY: each msghdr points at iovecs into `chunk` (and a static zero pad), all
            // alive for the call; the kernel only reads them.
            let sent = unsafe {
                let mut iov: [[libc::iovec; 2]; BATCH] = std::mem::zeroed();
                let mut msgs: [libc::mmsghdr; BATCH] = std::mem::zeroed();
                for (i, f) in chunk.iter().enumerate() {
                    iov[i][0].iov_base = f.as_ptr() as *mut libc::c_void;
                    iov[i][0].iov_len = f.len();
                    let pad = ETH_MIN_FRAME.saturating_sub(f.len());
                    iov[i][1].iov_base = ZEROS.as_ptr() as *mut libc::c_void;
                    iov[i][1].iov_len = pad;
                    msgs[i].msg_hdr.msg_iov = iov[i].as_mut_ptr();
                    msgs[i].msg_hdr.msg_iovlen = if pad > 0 { 2 } else { 1 };
                }
                libc::sendmmsg(
                    self.fd.as_raw_fd(),
                    msgs.as_mut_ptr(),
                    chunk.len() as libc::c_uint,
                    0,
                )
            };
            if sent < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            done += sent as usize;
        }
        Ok(())
    }

    /// Sends `frame` as it is, even shorter than the Ethernet minimum (veth delivers it so):
    /// for testing how a peer takes runt frames.
    pub fn send_unpadded(&mut self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: frame is valid for its length.
        let n = unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                0,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Receives one frame into `buf`, waiting up to `timeout` (zero: not at all). Frames we
    /// sent ourselves are skipped.
    pub fn recv_frame(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<Option<usize>> {
        let fd = self.fd.as_raw_fd();
        let deadline = std::time::Instant::now() + timeout;
        if self.ring.is_some() {
            loop {
                if let Some(n) = self.ring_take(buf) {
                    return Ok(Some(n));
                }
                let now = std::time::Instant::now();
                if now >= deadline {
                    return Ok(None);
                }
                self.wait_readable(deadline - now)?;
            }
        }
        loop {
            // SAFETY: buf and addr are valid for the lengths given.
            let (n, pkttype) = unsafe {
                let mut addr: libc::sockaddr_ll = std::mem::zeroed();
                let mut alen = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
                let n = libc::recvfrom(
                    fd,
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    libc::MSG_DONTWAIT | libc::MSG_TRUNC,
                    &mut addr as *mut libc::sockaddr_ll as *mut libc::sockaddr,
                    &mut alen,
                );
                (n, addr.sll_pkttype)
            };
            if n >= 0 {
                if pkttype == libc::PACKET_OUTGOING {
                    continue;
                }
                // MSG_TRUNC reports the real length; a frame larger than buf is cut to it.
                return Ok(Some((n as usize).min(buf.len())));
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => {}
                io::ErrorKind::Interrupted => continue,
                _ => return Err(e),
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return Ok(None);
            }
            let left = deadline - now;
            let ts = libc::timespec {
                tv_sec: left.as_secs() as libc::time_t,
                tv_nsec: left.subsec_nanos() as libc::c_long,
            };
            let mut pfd = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd; a null signal mask.
            let r = unsafe { libc::ppoll(&mut pfd, 1, &ts, std::ptr::null()) };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
    }
}

impl Link for PacketSocket {
    fn mac(&self) -> Mac {
        self.mac
    }
    fn mtu(&self) -> usize {
        self.mtu
    }
    fn send(&mut self, frame: &[u8]) -> io::Result<()> {
        self.send_frame(frame)
    }
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<Option<usize>> {
        self.recv_frame(buf, timeout)
    }
    fn drain(&mut self, _buf: &mut [u8], sink: &mut dyn FnMut(&[u8])) -> io::Result<usize> {
        self.drain_frames(sink)
    }
    fn send_many(&mut self, frames: &[Vec<u8>]) -> io::Result<()> {
        self.send_frames(frames)
    }
    fn bound_queue(&mut self, frames: usize) -> io::Result<bool> {
        self.set_rx_ring(frames)?;
        Ok(true)
    }
    fn queue_drops(&mut self) -> io::Result<u64> {
        self.ring_drops()
    }
}
