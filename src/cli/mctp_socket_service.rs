//! AF_MCTP sockets served over `offload mctpd`'s control socket, for programs that know only
//! the kernel's socket API (through the LD_PRELOAD library in `tests/preload/`). Each AF_MCTP
//! socket is two connections to the control socket:
//!
//! ```text
//! data   "socket\n"        → "socket ID\n", then a frame per received message:
//!                            len u32 · net u32 · eid u8 · type u8 · tag u8 · 0 · message
//! ops    "socket-ops ID\n" → request frames len u32 · op u8 · eid u8 · type u8 · tag u8 ·
//!                            net u32 · message, each answered len u32 = 8 · -errno i32 · tag u8 · 0 0 0
//! ```
//! Ops: 1 bind, 2 sendto, 3 SIOCMCTPALLOCTAG, 4 SIOCMCTPDROPTAG. As with the kernel, a message
//! carries no type octet: the type is `smctp_type` (its bit 7 the IC bit), prepended on send
//! and taken off on receive, since the library stack keeps it in the message. The data
//! connection is the descriptor the program polls and reads; a `sendto` result comes back on
//! the ops connection, so it never mixes with received messages. A preallocated tag
//! (`MCTP_TAG_PREALLOC`) is not reserved ahead in the stack: a send with it allocates an
//! owned tag then, which the responses match as with the kernel.

use offload_driver::mctp::stack::{Endpoint, NetId, SockAddr, Socket, StackError, TAG_OWNER};
use std::collections::HashMap;
use std::io::{ErrorKind, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

const OP_BIND: u8 = 1;
const OP_SENDTO: u8 = 2;
const OP_ALLOCTAG: u8 = 3;
const OP_DROPTAG: u8 = 4;
/// `<linux/mctp.h>` MCTP_TAG_PREALLOC.
const TAG_PREALLOC: u8 = 0x10;
/// A message is at most 64 KiB, the stack's reassembly limit.
const MAX_FRAME: usize = 65_536 + 16;

fn sockets() -> &'static Mutex<HashMap<u32, Arc<Socket>>> {
    static S: OnceLock<Mutex<HashMap<u32, Arc<Socket>>>> = OnceLock::new();
    S.get_or_init(Default::default)
}

static NEXT_ID: AtomicU32 = AtomicU32::new(1);

/// Serves a data connection: a new socket, its id, then every message it receives.
pub fn serve_data(ep: &Endpoint, mut conn: UnixStream) -> std::io::Result<()> {
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    let sock = Arc::new(ep.socket());
    sockets().lock().unwrap().insert(id, sock.clone());
    let r = (|| {
        writeln!(conn, "socket {id}")?;
        let mut probe = conn.try_clone()?;
        probe.set_nonblocking(true)?;
        loop {
            match sock.recv_from(Some(Duration::from_millis(100))) {
                Ok((m, from)) if !m.is_empty() => {
                    let mut f = Vec::with_capacity(12 + m.len());
                    f.extend_from_slice(&(8 + m.len() as u32 - 1).to_le_bytes());
                    f.extend_from_slice(&from.net.0.to_le_bytes());
                    f.extend_from_slice(&[from.eid, m[0], from.tag, 0]);
                    f.extend_from_slice(&m[1..]);
                    conn.write_all(&f)?;
                }
                Ok(_) | Err(StackError::Again(_)) => {}
                // Nothing bound or sent yet: wait for the program to do so.
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
            // The program closed the socket: the connection reads as ended.
            let mut b = [0u8; 1];
            match probe.read(&mut b) {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
        }
    })();
    sockets().lock().unwrap().remove(&id);
    r
}

/// Serves the ops connection of socket `id`.
pub fn serve_ops(id: u32, mut conn: UnixStream) -> std::io::Result<()> {
    let Some(sock) = sockets().lock().unwrap().get(&id).cloned() else {
        return writeln!(conn, "error: no socket {id}");
    };
    writeln!(conn, "ok")?;
    loop {
        let mut len = [0u8; 4];
        match conn.read_exact(&mut len) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let len = u32::from_le_bytes(len) as usize;
        if !(8..=MAX_FRAME).contains(&len) {
            return Ok(()); // not our protocol: drop the connection
        }
        let mut f = vec![0u8; len];
        conn.read_exact(&mut f)?;
        let (op, eid, typ, tag) = (f[0], f[1], f[2], f[3]);
        let net = NetId(u32::from_le_bytes([f[4], f[5], f[6], f[7]]));
        let body = &f[8..];
        let addr = |tag: u8| SockAddr {
            net,
            eid,
            typ: typ & 0x7F,
            tag,
            ext: None,
        };
        let (rc, tag_out) = match op {
            OP_BIND => (sock.bind(&addr(tag & TAG_OWNER)).map(|_| 0), 0),
            OP_SENDTO => {
                let t = if tag & TAG_PREALLOC != 0 { TAG_OWNER } else { tag & 0x0F };
                let mut m = Vec::with_capacity(1 + body.len());
                m.push(typ);
                m.extend_from_slice(body);
                (sock.send_to(&m, &addr(t)).map(|_| 0), 0)
            }
            // Tag 0 with TO and PREALLOC: the send that uses it takes an owned tag then.
            OP_ALLOCTAG => (Ok(0), TAG_OWNER | TAG_PREALLOC),
            OP_DROPTAG => (sock.drop_tag().map(|_| 0).or(Ok(0)), 0),
            _ => (Ok(-libc::EOPNOTSUPP), 0),
        };
        let rc: i32 = match rc {
            Ok(v) => v,
            Err(e) => -e.errno(),
        };
        let mut r = Vec::with_capacity(12);
        r.extend_from_slice(&8u32.to_le_bytes());
        r.extend_from_slice(&rc.to_le_bytes());
        r.extend_from_slice(&[tag_out, 0, 0, 0]);
        conn.write_all(&r)?;
    }
}
