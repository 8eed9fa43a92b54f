//! The submitting host's name as slurmctld records it (`AllocNode:Sid=`, squeue `AllocNodes`): the name the
//! controller resolves for the client's origin address, not the name the client claims. Slurm takes that address
//! from the MUNGE credential, where munged puts the address its own host name resolves to; so a client on the
//! controller's host (whichever local address it connected from) counts as coming from that address, and on a
//! host whose name maps to 127.0.0.1 shows as `localhost`, exactly as Slurm shows it.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Mutex;

/// Names already resolved, so a busy submitter costs one lookup, not one per job.
static RESOLVED: Mutex<Option<HashMap<IpAddr, String>>> = Mutex::new(None);

/// The peer's host name (reverse lookup), its address as text when it has no name, `None` without an address
/// (a Unix-socket caller).
pub async fn peer_host(addr: Option<SocketAddr>) -> Option<String> {
    let ip = addr?.ip();
    if let Some(name) = cached(ip) {
        return Some(name);
    }
    let name = tokio::task::spawn_blocking(move || {
        let origin = origin_address(ip);
        reverse_lookup(origin).unwrap_or_else(|| origin.to_string())
    })
    .await
    .unwrap_or_else(|_| ip.to_string());
    if let Ok(mut guard) = RESOLVED.lock() {
        guard
            .get_or_insert_with(HashMap::new)
            .insert(ip, name.clone());
    }
    Some(name)
}

/// The address munged would name as the origin: for a peer address of this very host, the address this host's
/// name resolves to; any other peer is its own origin.
fn origin_address(peer: IpAddr) -> IpAddr {
    if !is_local_address(peer) {
        return peer;
    }
    own_host_address().unwrap_or(peer)
}

/// Only an address of one of this host's interfaces can be bound.
fn is_local_address(ip: IpAddr) -> bool {
    std::net::UdpSocket::bind(SocketAddr::new(ip, 0)).is_ok()
}

fn own_host_address() -> Option<IpAddr> {
    use std::net::ToSocketAddrs;
    let name = nix::unistd::gethostname().ok()?.into_string().ok()?;
    let mut addrs: Vec<IpAddr> = (name.as_str(), 0)
        .to_socket_addrs()
        .ok()?
        .map(|a| a.ip())
        .collect();
    // munged reports an IPv4 origin.
    addrs.sort_by_key(|a| !a.is_ipv4());
    addrs.into_iter().next()
}

fn cached(ip: IpAddr) -> Option<String> {
    RESOLVED.lock().ok()?.as_ref()?.get(&ip).cloned()
}

/// `getnameinfo` with `NI_NAMEREQD`: a name or nothing (the caller falls back to the address).
fn reverse_lookup(ip: IpAddr) -> Option<String> {
    let sock = SocketAddr::new(ip, 0);
    let (storage, len) = sockaddr_of(&sock);
    let mut host = [0 as libc::c_char; libc::NI_MAXHOST as usize];
    // SAFETY: `storage` holds a valid sockaddr of `len` bytes; `host` is writable for its whole length and
    // getnameinfo NUL-terminates what it writes there.
    let rc = unsafe {
        libc::getnameinfo(
            (&storage as *const libc::sockaddr_storage).cast(),
            len,
            host.as_mut_ptr(),
            host.len() as libc::socklen_t,
            std::ptr::null_mut(),
            0,
            libc::NI_NAMEREQD,
        )
    };
    if rc != 0 {
        return None;
    }
    // SAFETY: on success `host` is a NUL-terminated C string within the buffer.
    let name = unsafe { std::ffi::CStr::from_ptr(host.as_ptr()) };
    name.to_str()
        .ok()
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

fn sockaddr_of(addr: &SocketAddr) -> (libc::sockaddr_storage, libc::socklen_t) {
    // SAFETY: an all-zero sockaddr_storage is a valid (AF_UNSPEC) value that we then fill in.
    let mut storage: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let len = match addr {
        SocketAddr::V4(v4) => {
            let sin = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: v4.port().to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(v4.ip().octets()),
                },
                sin_zero: [0; 8],
            };
            // SAFETY: sockaddr_storage is large and aligned enough for any sockaddr type.
            unsafe { std::ptr::write((&mut storage as *mut libc::sockaddr_storage).cast(), sin) };
            std::mem::size_of::<libc::sockaddr_in>()
        }
        SocketAddr::V6(v6) => {
            let sin6 = libc::sockaddr_in6 {
                sin6_family: libc::AF_INET6 as libc::sa_family_t,
                sin6_port: v6.port().to_be(),
                sin6_flowinfo: v6.flowinfo(),
                sin6_addr: libc::in6_addr {
                    s6_addr: v6.ip().octets(),
                },
                sin6_scope_id: v6.scope_id(),
            };
            // SAFETY: as above.
            unsafe { std::ptr::write((&mut storage as *mut libc::sockaddr_storage).cast(), sin6) };
            std::mem::size_of::<libc::sockaddr_in6>()
        }
    };
    (storage, len as libc::socklen_t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn loopback_resolves_like_slurmctld_and_unix_callers_have_no_host() {
        // /etc/hosts maps 127.0.0.1 to localhost on every Debian machine.
        let addr: SocketAddr = "127.0.0.1:6817".parse().unwrap();
        assert_eq!(peer_host(Some(addr)).await.as_deref(), Some("localhost"));
        assert_eq!(peer_host(None).await, None);
    }
}
