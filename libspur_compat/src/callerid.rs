//! The callerid family `pam_slurm_adopt` uses to learn which job an ssh connection came from:
//! `slurm_callerid_get_own_netinfo` finds this process's TCP connection (a socket among its descriptors, looked up
//! by inode in /proc/net/tcp and tcp6, as libslurm does), and `slurm_network_callerid` asks which job owns the
//! other end.
//!
//! libslurm asks the slurmd at the connection's source address; a Spur agent has no network callerid service, so
//! the question is answered here when the source is this very host (the owner of the other end's socket is found
//! in /proc, and its job from its cgroup, `.../job_<id>/...`), and fails as libslurm's does when no slurmd answers
//! (`SLURM_COMMUNICATIONS_CONNECTION_ERROR`) for a connection from another host; `pam_slurm_adopt` then goes on
//! to its `action_unknown`.

use std::ffi::{c_char, c_int};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use slurm_headers::network_callerid_msg_t;

use crate::ffi::{self, c_free, guard, SLURM_ERROR, SLURM_SUCCESS};

/// Slurm's `callerid_conn_t` (src/common/callerid.h).
#[repr(C)]
pub struct callerid_conn_t {
    pub port_dst: u32,
    pub port_src: u32,
    pub ip_dst: [u8; 16],
    pub ip_src: [u8; 16],
    pub af: c_int,
}

/// Slurm's `network_callerid_resp_t` (src/common/slurm_protocol_defs.h).
#[repr(C)]
pub struct network_callerid_resp_t {
    pub job_id: u32,
    pub return_code: u32,
    pub node_name: *mut c_char,
}

const NO_VAL: u32 = 0xffff_fffe;
/// `SLURM_COMMUNICATIONS_CONNECTION_ERROR`: no slurmd answered at the address.
const COMMUNICATIONS_CONNECTION_ERROR: i32 = 1001;

/// One row of /proc/net/tcp{,6}: local and remote address (16 bytes, network order, IPv4 in the first 4) and port,
/// and the socket's inode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TcpRow {
    pub local: [u8; 16],
    pub local_port: u32,
    pub remote: [u8; 16],
    pub remote_port: u32,
    pub inode: u64,
}

/// An address as the kernel prints it: 32-bit words in hex, each the word as it lies in memory.
fn parse_addr(hex: &str) -> Option<[u8; 16]> {
    if hex.len() != 8 && hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, chunk) in hex.as_bytes().chunks(8).enumerate() {
        let word = u32::from_str_radix(std::str::from_utf8(chunk).ok()?, 16).ok()?;
        out.get_mut(i * 4..i * 4 + 4)?
            .copy_from_slice(&word.to_ne_bytes());
    }
    Some(out)
}

fn parse_endpoint(text: &str) -> Option<([u8; 16], u32)> {
    let (addr, port) = text.split_once(':')?;
    Some((parse_addr(addr)?, u32::from_str_radix(port, 16).ok()?))
}

/// The rows of a /proc/net/tcp-format text (the header and malformed lines skipped).
pub fn parse_tcp_table(text: &str) -> Vec<TcpRow> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let (local, local_port) = parse_endpoint(fields.get(1)?)?;
            let (remote, remote_port) = parse_endpoint(fields.get(2)?)?;
            Some(TcpRow {
                local,
                local_port,
                remote,
                remote_port,
                inode: fields.get(9)?.parse().ok()?,
            })
        })
        .collect()
}

/// The TCP connections of this host, IPv4 then IPv6, with their address family.
fn tcp_rows() -> Vec<(c_int, TcpRow)> {
    let mut rows = Vec::new();
    for (af, path) in [
        (libc::AF_INET, "/proc/net/tcp"),
        (libc::AF_INET6, "/proc/net/tcp6"),
    ] {
        if let Ok(text) = std::fs::read_to_string(path) {
            rows.extend(parse_tcp_table(&text).into_iter().map(|r| (af, r)));
        }
    }
    rows
}

/// This process's first socket descriptor that is a TCP connection: its addresses, `ip_dst` being this end (the
/// row's local address) and `ip_src` the peer, as libslurm fills them.
fn own_netinfo() -> Option<callerid_conn_t> {
    let rows = tcp_rows();
    let fds = std::fs::read_dir("/proc/self/fd").ok()?;
    for fd in fds.filter_map(Result::ok) {
        let Ok(meta) = std::fs::metadata(fd.path()) else {
            continue;
        };
        if !meta.file_type().is_socket() {
            continue;
        }
        if let Some((af, row)) = rows.iter().find(|(_, r)| r.inode == meta.ino()) {
            return Some(callerid_conn_t {
                port_dst: row.local_port,
                port_src: row.remote_port,
                ip_dst: row.local,
                ip_src: row.remote,
                af: *af,
            });
        }
    }
    None
}

/// # Safety
/// `conn` is NULL or points to writable storage for a `callerid_conn_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_callerid_get_own_netinfo(conn: *mut callerid_conn_t) -> c_int {
    guard("slurm_callerid_get_own_netinfo", SLURM_ERROR, || {
        if conn.is_null() {
            return SLURM_ERROR;
        }
        match own_netinfo() {
            Some(found) => {
                // SAFETY: the caller's pointer, checked non-NULL.
                unsafe { *conn = found };
                SLURM_SUCCESS
            }
            None => SLURM_ERROR,
        }
    })
}

fn ip_of(af: i32, bytes: &[u8; 16]) -> Option<IpAddr> {
    if af == libc::AF_INET {
        let [a, b, c, d, ..] = *bytes;
        Some(IpAddr::V4(Ipv4Addr::new(a, b, c, d)))
    } else if af == libc::AF_INET6 {
        Some(IpAddr::V6(Ipv6Addr::from(*bytes)))
    } else {
        None
    }
}

/// Whether `ip` is one of this host's addresses (binding to it succeeds only then).
fn is_local(ip: IpAddr) -> bool {
    ip.is_loopback() || std::net::UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

/// The pid holding a socket with this inode (the first found in /proc).
fn pid_of_inode(inode: u64) -> Option<u32> {
    let procs = std::fs::read_dir("/proc").ok()?;
    for entry in procs.filter_map(Result::ok) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(entry.path().join("fd")) else {
            continue;
        };
        let holds = fds
            .filter_map(Result::ok)
            .any(|fd| std::fs::metadata(fd.path()).is_ok_and(|m| m.ino() == inode));
        if holds {
            return Some(pid);
        }
    }
    None
}

/// The job whose cgroup (`.../job_<id>/...`, Spur's and Slurm's layout) holds process `pid`.
fn job_of_pid(pid: u32) -> Option<u32> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).ok()?;
    text.lines().find_map(|line| {
        let path = line.splitn(3, ':').nth(2)?;
        path.split('/')
            .find_map(|part| part.strip_prefix("job_")?.parse().ok())
    })
}

/// The job of the process at this host's end of the connection `req` describes (its `ip_src` side), `NO_VAL`
/// when none is known.
fn local_callerid(req: &network_callerid_msg_t) -> u32 {
    let src_port = req.port_src;
    let dst_port = req.port_dst;
    let row = tcp_rows().into_iter().find(|(af, r)| {
        *af == req.af
            && r.local_port == src_port
            && r.remote_port == dst_port
            && same_addr(req.af, &r.local, &req.ip_src)
            && same_addr(req.af, &r.remote, &req.ip_dst)
    });
    row.and_then(|(_, r)| pid_of_inode(r.inode))
        .and_then(job_of_pid)
        .unwrap_or(NO_VAL)
}

fn same_addr(af: i32, a: &[u8; 16], b: &[u8; 16]) -> bool {
    let n = if af == libc::AF_INET { 4 } else { 16 };
    a.get(..n) == b.get(..n)
}

/// # Safety
/// `job_id` is NULL or writable; `node_name` is NULL or a buffer of `node_name_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn slurm_network_callerid(
    req: network_callerid_msg_t,
    job_id: *mut u32,
    node_name: *mut c_char,
    node_name_size: c_int,
) -> c_int {
    guard("slurm_network_callerid", SLURM_ERROR, || {
        let local = ip_of(req.af, &req.ip_src).is_some_and(is_local);
        if !local {
            ffi::set_errno(COMMUNICATIONS_CONNECTION_ERROR);
            return SLURM_ERROR;
        }
        let found = local_callerid(&req);
        if !job_id.is_null() {
            // SAFETY: the caller's pointer.
            unsafe { *job_id = found };
        }
        let name = crate::stepd::this_node().unwrap_or_default();
        let size = usize::try_from(node_name_size).unwrap_or(0);
        if !node_name.is_null() && size > 0 {
            let bytes = name.as_bytes();
            let n = bytes.len().min(size - 1);
            // SAFETY: the caller's buffer holds `size` bytes; we write n < size bytes and a NUL (strlcpy's way).
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr(), node_name.cast::<u8>(), n);
                *node_name.add(n) = 0;
            }
        }
        SLURM_SUCCESS
    })
}

/// # Safety
/// `msg` is NULL or a malloc'd `network_callerid_msg_t`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_network_callerid_msg(msg: *mut network_callerid_msg_t) {
    // SAFETY: the caller's contract.
    guard("slurm_free_network_callerid_msg", (), || unsafe {
        c_free(msg)
    })
}

/// # Safety
/// `resp` is NULL or a malloc'd `network_callerid_resp_t` whose `node_name` is malloc'd or NULL.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_network_callerid_resp(resp: *mut network_callerid_resp_t) {
    guard("slurm_free_network_callerid_resp", (), || {
        if resp.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            c_free((*resp).node_name);
            c_free(resp);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_net_tcp_rows_parse_as_the_kernel_prints_them() {
        let text = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
           0: 0100007F:0016 0200007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 20 4 30 10 -1\n\
           bad line\n";
        let rows = parse_tcp_table(text);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!(&r.local[..4], &[127, 0, 0, 1]);
        assert_eq!(&r.remote[..4], &[127, 0, 0, 2]);
        assert_eq!((r.local_port, r.remote_port, r.inode), (22, 0xD431, 4242));
        let v6 = parse_addr("00000000000000000000000001000000").unwrap();
        assert_eq!(Ipv6Addr::from(v6), Ipv6Addr::LOCALHOST);
    }

    #[test]
    fn own_netinfo_finds_this_process_connection() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let server = listener.local_addr().unwrap();
        let _client = std::net::TcpStream::connect(server).unwrap();
        let (_accepted, peer) = listener.accept().unwrap();
        // SAFETY: plain data, valid when zeroed.
        let mut conn: callerid_conn_t = unsafe { std::mem::zeroed() };
        // SAFETY: a local struct.
        assert_eq!(unsafe { slurm_callerid_get_own_netinfo(&mut conn) }, 0);
        assert_eq!(conn.af, libc::AF_INET);
        assert_eq!(&conn.ip_dst[..4], &[127, 0, 0, 1]);
        // The first of this test's sockets found: the listener or either end of the loopback pair.
        let ports = [u32::from(server.port()), u32::from(peer.port())];
        assert!(ports.contains(&conn.port_dst), "{}", conn.port_dst);
        assert_eq!(std::mem::size_of::<callerid_conn_t>(), 44);
    }
}
