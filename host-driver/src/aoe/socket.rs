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
}

/// Frames taken per `recvmmsg` call.
pub const BATCH: usize = 32;

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

    /// Hands every frame waiting to `sink`, [`BATCH`] per `recvmmsg` call; frames we sent
    /// ourselves are skipped.
    pub fn drain_frames(&mut self, sink: &mut dyn FnMut(&[u8])) -> io::Result<usize> {
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
}
