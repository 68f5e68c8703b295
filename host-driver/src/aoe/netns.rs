//! Two network namespaces joined by a veth pair, made with `ip` (iproute2) and removed on drop:
//! the test and benchmark bench for AoE over real AF_PACKET sockets. Needs root.

use super::socket::PacketSocket;
use std::io;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

static NEXT: AtomicU32 = AtomicU32::new(0);

/// `target_ns`/`target_if` on one side, `client_ns`/`client_if` on the other. Processes
/// started with [`VethPair::spawn`] are stopped (SIGTERM, then SIGKILL) before the namespaces
/// are deleted, which also deletes the veth pair.
#[derive(Debug)]
pub struct VethPair {
    pub target_ns: String,
    pub client_ns: String,
    pub target_if: String,
    pub client_if: String,
    children: Vec<Child>,
    made: Vec<String>,
}

/// Whether we run as root (namespaces and raw sockets need it).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn ip(args: &[&str]) -> io::Result<()> {
    let out = Command::new("ip")
        .args(args)
        .stdin(Stdio::null())
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(())
}

impl VethPair {
    /// Creates the namespaces and the pair with names unique to this process and call, and
    /// brings both ends up with `mtu`.
    pub fn create(mtu: usize) -> io::Result<Self> {
        let pid = std::process::id();
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let mut p = VethPair {
            target_ns: format!("offload-aoe-{pid}-{n}-t"),
            client_ns: format!("offload-aoe-{pid}-{n}-c"),
            // Interface names are at most 15 characters.
            target_if: format!("aoet{}x{n}", pid % 1_000_000),
            client_if: format!("aoec{}x{n}", pid % 1_000_000),
            children: Vec::new(),
            made: Vec::new(),
        };
        for ns in [p.target_ns.clone(), p.client_ns.clone()] {
            ip(&["netns", "add", &ns])?;
            p.made.push(ns);
        }
        let mtu = mtu.to_string();
        ip(&[
            "link",
            "add",
            &p.target_if,
            "netns",
            &p.target_ns,
            "mtu",
            &mtu,
            "type",
            "veth",
            "peer",
            "name",
            &p.client_if,
            "netns",
            &p.client_ns,
            "mtu",
            &mtu,
        ])?;
        for (ns, i) in [(&p.target_ns, &p.target_if), (&p.client_ns, &p.client_if)] {
            ip(&["-n", ns, "link", "set", i, "up"])?;
        }
        Ok(p)
    }

    /// A command that runs `program` inside namespace `ns`.
    pub fn command(ns: &str, program: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", ns, program]);
        c
    }

    /// Starts `program args` in the target namespace (stdout and stdin closed, stderr kept in
    /// a pipe); it is stopped on drop or with [`stop`](Self::stop). Returns its index.
    pub fn spawn(&mut self, program: &str, args: &[&str]) -> io::Result<usize> {
        let child = Self::command(&self.target_ns, program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()?;
        self.children.push(child);
        Ok(self.children.len() - 1)
    }

    /// Whether the process started as `index` is still running.
    pub fn running(&mut self, index: usize) -> bool {
        matches!(self.children[index].try_wait(), Ok(None))
    }

    /// Stops the process started as `index` (SIGTERM, SIGKILL after 2 s); returns its stderr.
    pub fn stop(&mut self, index: usize) -> String {
        let c = &mut self.children[index];
        stop_child(c);
        let mut err = String::new();
        if let Some(mut e) = c.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        err
    }

    /// A raw AoE socket on the client end.
    pub fn client_socket(&self) -> io::Result<PacketSocket> {
        PacketSocket::open_in_netns(&self.client_ns, &self.client_if)
    }

    /// A raw AoE socket on the target end.
    pub fn target_socket(&self) -> io::Result<PacketSocket> {
        PacketSocket::open_in_netns(&self.target_ns, &self.target_if)
    }
}

fn stop_child(c: &mut Child) {
    if let Ok(Some(_)) = c.try_wait() {
        return;
    }
    // SAFETY: signalling our own child by its pid.
    unsafe {
        libc::kill(c.id() as libc::pid_t, libc::SIGTERM);
    }
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end {
        if let Ok(Some(_)) = c.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = c.kill();
    let _ = c.wait();
}

impl Drop for VethPair {
    fn drop(&mut self) {
        for c in &mut self.children {
            stop_child(c);
        }
        for ns in &self.made {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}
