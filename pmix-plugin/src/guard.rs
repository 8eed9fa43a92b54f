//! The accept filter in front of libpmix's listener: only the job's user reaches the PMIx server.
//!
//! Why it exists: libpmix 4.2 serves its clients over loopback TCP, where its `native` security trusts the
//! uid/gid a client states in its handshake, so any local user could connect and pose as a rank; and once
//! libpmix refuses a connection after reading it, its error path releases the claimed rank's record twice (the
//! rank then hangs, and so does `PMIx_server_finalize`). libpmix 4.2.2 offers no hook before it reads a
//! connection (the server module's `listener` is never called), so the filter sits at the one call it makes
//! before reading: `accept`, which its listener thread calls through the dynamic linker. The executable defines
//! and exports `accept` (`-Wl,--export-dynamic-symbol=accept`, in the build scripts of spurstepd and of this
//! crate's tests), so libpmix's call binds here. Once [`arm`]ed with the job's uid, a connection whose peer
//! socket is owned by another uid is closed before libpmix sees a byte of it, and libpmix is told
//! `ECONNABORTED`, on which its listener simply waits for the next connection. Nothing else in the process calls
//! `accept` (Rust's std and tokio use `accept4`), and an unarmed filter passes every connection through.
//!
//! The peer's owner: for TCP, the kernel's socket diagnostics (`NETLINK_SOCK_DIAG`, an exact lookup of the
//! client's end of the connection: local address = our peer, remote address = us) give the uid that created the
//! socket (the socket table `/proc/self/net/tcp`, `tcp6` if netlink is unavailable); for a Unix socket,
//! `SO_PEERCRED`. A peer not found there (it went away, or it is not on this host) is refused.

use std::ffi::c_int;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};

/// The uid allowed to connect, or `UNARMED`.
static ALLOWED_UID: AtomicU64 = AtomicU64::new(UNARMED);
const UNARMED: u64 = u64::MAX;

/// From now on, `accept` in this process keeps only connections whose peer belongs to `uid`. Fails when the
/// filter is not the `accept` that libraries bind to (the executable was linked without exporting it): the PMIx
/// server must then not start, since every local user could reach it.
pub(crate) fn arm(uid: u32) -> Result<(), String> {
    if !interposed() {
        return Err("this executable does not export its accept filter (link it with \
                    -Wl,--export-dynamic-symbol=accept, see pmix-plugin/README.md): the PMIx server would \
                    accept any local user"
            .into());
    }
    ALLOWED_UID.store(u64::from(uid), Ordering::SeqCst);
    Ok(())
}

/// Whether the dynamic linker resolves `accept` to [`accept`] here, as it does for libpmix's call.
fn interposed() -> bool {
    // SAFETY: dlsym with RTLD_DEFAULT and a NUL-terminated name has no other preconditions.
    let found = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"accept".as_ptr()) };
    let ours: unsafe extern "C" fn(c_int, *mut libc::sockaddr, *mut libc::socklen_t) -> c_int =
        accept;
    found as usize == ours as usize
}

/// libc's `accept`, filtered once armed. See the module documentation.
///
/// # Safety
/// As libc's `accept`: `addr` and `len` are NULL or valid for writes of `*len` bytes.
#[no_mangle]
pub unsafe extern "C" fn accept(
    fd: c_int,
    addr: *mut libc::sockaddr,
    len: *mut libc::socklen_t,
) -> c_int {
    // accept4 without flags is accept; libc's accept itself would bind back to this function.
    // SAFETY: the caller's arguments, passed on unchanged.
    let conn = unsafe { libc::accept4(fd, addr, len, 0) };
    let allowed = ALLOWED_UID.load(Ordering::SeqCst);
    if conn < 0 || allowed == UNARMED {
        return conn;
    }
    if peer_uid(conn).map(u64::from) == Some(allowed) {
        return conn;
    }
    // SAFETY: conn is the descriptor accept4 just returned to us; nobody else has it. errno is thread-local.
    unsafe {
        libc::close(conn);
        *libc::__errno_location() = libc::ECONNABORTED;
    }
    -1
}

/// The uid owning the other end of the connected socket `fd`, if it is on this host.
fn peer_uid(fd: c_int) -> Option<u32> {
    let local = sock_name(fd, false)?;
    match local {
        Name::Unix => unix_peer_uid(fd),
        Name::Inet(us) => {
            let Name::Inet(them) = sock_name(fd, true)? else {
                return None;
            };
            // The kernel's exact lookup by the connection's addresses; reading the whole table (milliseconds on
            // a host with many sockets, per connection) only if netlink is not available.
            match diag_owner(&them, &us) {
                Ok(owner) => owner,
                Err(_) => {
                    let table = if us.is_ipv4() {
                        "/proc/self/net/tcp"
                    } else {
                        "/proc/self/net/tcp6"
                    };
                    let text = std::fs::read_to_string(table).ok()?;
                    socket_owner(&text, &them, &us)
                }
            }
        }
    }
}

enum Name {
    Unix,
    Inet(SocketAddr),
}

/// The socket's own (`peer` false) or its peer's (`peer` true) address.
fn sock_name(fd: c_int, peer: bool) -> Option<Name> {
    // SAFETY: sockaddr_storage is plain data; all-zero is valid.
    let mut ss: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    let p = (&mut ss as *mut libc::sockaddr_storage).cast::<libc::sockaddr>();
    // SAFETY: ss is writable for len bytes.
    let rc = unsafe {
        if peer {
            libc::getpeername(fd, p, &mut len)
        } else {
            libc::getsockname(fd, p, &mut len)
        }
    };
    if rc != 0 {
        return None;
    }
    match c_int::from(ss.ss_family) {
        libc::AF_UNIX => Some(Name::Unix),
        libc::AF_INET => {
            // SAFETY: the family says ss holds a sockaddr_in.
            let sin =
                unsafe { &*(&ss as *const libc::sockaddr_storage).cast::<libc::sockaddr_in>() };
            let ip = std::net::Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
            Some(Name::Inet(SocketAddr::new(
                IpAddr::V4(ip),
                u16::from_be(sin.sin_port),
            )))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says ss holds a sockaddr_in6.
            let sin6 =
                unsafe { &*(&ss as *const libc::sockaddr_storage).cast::<libc::sockaddr_in6>() };
            let ip = std::net::Ipv6Addr::from(sin6.sin6_addr.s6_addr);
            Some(Name::Inet(SocketAddr::new(
                IpAddr::V6(ip),
                u16::from_be(sin6.sin6_port),
            )))
        }
        _ => None,
    }
}

fn unix_peer_uid(fd: c_int) -> Option<u32> {
    // SAFETY: ucred is plain data; all-zero is valid.
    let mut cred: libc::ucred = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: cred is writable for len bytes.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    (rc == 0).then_some(cred.uid)
}

/// The uid of the TCP socket whose local address is `local` and remote address `remote`, asked of the kernel's
/// socket diagnostics (`NETLINK_SOCK_DIAG`, one exact lookup, as `ss` does): `Ok(None)` when there is no such
/// live connection, `Err` when the lookup itself could not be made.
fn diag_owner(local: &SocketAddr, remote: &SocketAddr) -> std::io::Result<Option<u32>> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    const SOCK_DIAG_BY_FAMILY: u16 = 20;
    const NLMSG_ERROR: u16 = 2;
    const TCP_ESTABLISHED: u8 = 1;
    // nlmsghdr (16 bytes), then inet_diag_req_v2: family, protocol, ext, pad, states (u32), and the socket id:
    // ports (big-endian), addresses (16 bytes each, network order), interface, cookie (none: all ones).
    let mut req = Vec::with_capacity(72);
    req.extend_from_slice(&72u32.to_ne_bytes());
    req.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    req.extend_from_slice(&(libc::NLM_F_REQUEST as u16).to_ne_bytes());
    req.extend_from_slice(&1u32.to_ne_bytes());
    req.extend_from_slice(&0u32.to_ne_bytes());
    let family = if local.is_ipv4() {
        libc::AF_INET
    } else {
        libc::AF_INET6
    };
    req.extend_from_slice(&[family as u8, libc::IPPROTO_TCP as u8, 0, 0]);
    req.extend_from_slice(&u32::MAX.to_ne_bytes());
    req.extend_from_slice(&local.port().to_be_bytes());
    req.extend_from_slice(&remote.port().to_be_bytes());
    for a in [local, remote] {
        let mut bytes = [0u8; 16];
        match a.ip() {
            IpAddr::V4(ip) => bytes[..4].copy_from_slice(&ip.octets()),
            IpAddr::V6(ip) => bytes = ip.octets(),
        }
        req.extend_from_slice(&bytes);
    }
    req.extend_from_slice(&0u32.to_ne_bytes());
    req.extend_from_slice(&u32::MAX.to_ne_bytes());
    req.extend_from_slice(&u32::MAX.to_ne_bytes());

    // SAFETY: socket has no memory preconditions; a valid descriptor is owned from here.
    let fd = unsafe {
        libc::socket(
            libc::AF_NETLINK,
            libc::SOCK_DGRAM | libc::SOCK_CLOEXEC,
            libc::NETLINK_SOCK_DIAG,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: fd is a descriptor we just opened and nobody else holds.
    let sock = unsafe { OwnedFd::from_raw_fd(fd) };
    // The kernel answers at once; the timeout only bounds the listener thread if it did not.
    let timeout = libc::timeval {
        tv_sec: 1,
        tv_usec: 0,
    };
    // SAFETY: kernel address (pid 0) and option value are valid for the calls; req is readable.
    let sent = unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            (&timeout as *const libc::timeval).cast(),
            std::mem::size_of::<libc::timeval>() as libc::socklen_t,
        );
        let mut kernel: libc::sockaddr_nl = std::mem::zeroed();
        kernel.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        libc::sendto(
            sock.as_raw_fd(),
            req.as_ptr().cast(),
            req.len(),
            0,
            (&kernel as *const libc::sockaddr_nl).cast(),
            std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
        )
    };
    if sent < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut buf = [0u8; 1024];
    // SAFETY: buf is writable for its length.
    let n = unsafe { libc::recv(sock.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
    let n = usize::try_from(n).map_err(|_| std::io::Error::last_os_error())?;
    let reply = buf.get(..n).unwrap_or(&[]);
    let u16_at = |i: usize| {
        reply
            .get(i..i + 2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]))
    };
    let u32_at = |i: usize| {
        reply
            .get(i..i + 4)
            .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
    };
    match u16_at(4) {
        // No such socket (ENOENT) or any other refusal: nobody we know.
        Some(NLMSG_ERROR) => Ok(None),
        // inet_diag_msg after the header: family, state, timer, retrans, the 48-byte id, expires, rqueue,
        // wqueue, then the uid (offset 64).
        Some(SOCK_DIAG_BY_FAMILY) => {
            let state = reply.get(17).copied();
            let ports = (u16_at(20), u16_at(22));
            let want = (
                Some(u16::from_ne_bytes(local.port().to_be_bytes())),
                Some(u16::from_ne_bytes(remote.port().to_be_bytes())),
            );
            if state != Some(TCP_ESTABLISHED) || ports != want {
                return Ok(None);
            }
            Ok(u32_at(16 + 64))
        }
        _ => Err(std::io::Error::other("unexpected sock_diag answer")),
    }
}

/// The kernel's text form of an address in `/proc/net/tcp{,6}`: the address's bytes as native-endian 32-bit
/// words in hex, a colon, the port in hex.
fn proc_form(a: &SocketAddr) -> String {
    let words: Vec<[u8; 4]> = match a.ip() {
        IpAddr::V4(ip) => vec![ip.octets()],
        IpAddr::V6(ip) => ip
            .octets()
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
    };
    let mut s: String = words
        .into_iter()
        .map(|w| format!("{:08X}", u32::from_ne_bytes(w)))
        .collect();
    s.push_str(&format!(":{:04X}", a.port()));
    s
}

/// In a `/proc/net/tcp{,6}` table, the uid of the socket whose local address is `local` and remote address
/// `remote`. Only a live connection counts (a closed one's entry shows uid 0).
fn socket_owner(table: &str, local: &SocketAddr, remote: &SocketAddr) -> Option<u32> {
    let (l, r) = (proc_form(local), proc_form(remote));
    // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const ESTABLISHED: &str = "01";
    table.lines().skip(1).find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            [_, loc, rem, st, _, _, _, uid, ..]
                if loc.eq_ignore_ascii_case(&l)
                    && rem.eq_ignore_ascii_case(&r)
                    && *st == ESTABLISHED =>
            {
                uid.parse().ok()
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Two lines of a real /proc/net/tcp: a listener on 127.0.0.1:40347 and a client (uid 1000) connected
    // from port 51234, plus our accepted end (uid 0).
    const TABLE: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:9D9B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0 100 0 0 10 0
   1: 0100007F:C822 0100007F:9D9B 01 00000000:00000000 00:00000000 00000000  1000        0 1002 1 0 20 4 30 10 -1
   2: 0100007F:9D9B 0100007F:C822 01 00000000:00000000 00:00000000 00000000     0        0 1003 1 0 20 4 30 10 -1
   3: 0100007F:C823 0100007F:9D9B 06 00000000:00000000 03:00001000 00000000     0        0 0 3 0";

    #[test]
    fn the_client_end_of_a_connection_gives_its_owner() {
        let server: SocketAddr = "127.0.0.1:40347".parse().unwrap();
        let client: SocketAddr = "127.0.0.1:51234".parse().unwrap();
        assert_eq!(socket_owner(TABLE, &client, &server), Some(1000));
        assert_eq!(socket_owner(TABLE, &server, &client), Some(0));
        // A client that went away (TIME_WAIT, shown as uid 0) is no one.
        let gone: SocketAddr = "127.0.0.1:51235".parse().unwrap();
        assert_eq!(socket_owner(TABLE, &gone, &server), None);
        let other: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(socket_owner(TABLE, &other, &server), None);
    }

    #[test]
    fn addresses_in_the_kernels_form() {
        assert_eq!(
            proc_form(&"127.0.0.1:40347".parse().unwrap()),
            "0100007F:9D9B"
        );
        assert_eq!(
            proc_form(&"[::1]:80".parse().unwrap()),
            "00000000000000000000000001000000:0050"
        );
    }

    #[test]
    fn real_sockets_are_attributed_to_their_owner() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let _client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (conn, _) = listener.accept().unwrap();
        use std::os::fd::AsRawFd;
        // SAFETY: no preconditions.
        let me = unsafe { libc::geteuid() };
        assert_eq!(peer_uid(conn.as_raw_fd()), Some(me));
        // Both ways of asking agree; a connection that does not exist is no one's.
        let (here, there) = (conn.local_addr().unwrap(), conn.peer_addr().unwrap());
        assert_eq!(diag_owner(&there, &here).unwrap(), Some(me));
        let table = std::fs::read_to_string("/proc/self/net/tcp").unwrap();
        assert_eq!(socket_owner(&table, &there, &here), Some(me));
        let nobody: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(diag_owner(&nobody, &here).unwrap(), None);
        let (a, b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(peer_uid(a.as_raw_fd()), Some(me));
        drop(b);
    }
}
