//! Ports for test daemons. Asking the kernel for port 0 and passing the number on races twice: the kernel hands
//! the same ephemeral range to every outgoing connection (a command's gRPC client can take the port before the
//! daemon binds it), and two tests can be told the same number. So ports come from below the ephemeral range, and
//! each is held by an advisory lock for the life of the test process that chose it.

use std::collections::hash_map::DefaultHasher;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::SystemTime;

/// Below Linux's default ephemeral range (32768-60999) and above the fixed ports the suite and the conformance
/// targets use (68xx, 78xx).
const FIRST: u16 = 20_000;
const COUNT: u16 = 12_000;

/// The locks this process holds; released when it exits.
static HELD: Mutex<Vec<(u16, File)>> = Mutex::new(Vec::new());

/// A port no other test holds and that every address of `addrs` can bind now.
pub fn reserve_port(addrs: &[&str]) -> u16 {
    let mut seed = DefaultHasher::new();
    std::process::id().hash(&mut seed);
    SystemTime::now().hash(&mut seed);
    std::thread::current().id().hash(&mut seed);
    let start = seed.finish();
    let dir = std::env::temp_dir().join("spur-test-ports");
    let _ = std::fs::create_dir_all(&dir);
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    for step in 0..u64::from(COUNT) {
        let port =
            FIRST + ((start.wrapping_add(step.wrapping_mul(7919))) % u64::from(COUNT)) as u16;
        if held.iter().any(|(p, _)| *p == port) {
            continue;
        }
        let Ok(file) = File::create(dir.join(port.to_string())) else {
            continue;
        };
        // SAFETY: flock(2) on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            continue;
        }
        if addrs
            .iter()
            .all(|addr| std::net::TcpListener::bind((*addr, port)).is_ok())
        {
            held.push((port, file));
            return port;
        }
    }
    panic!(
        "no port between {FIRST} and {} is free on {addrs:?}",
        FIRST + COUNT
    );
}
