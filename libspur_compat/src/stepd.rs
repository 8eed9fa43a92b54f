//! `slurm_stepd_*`: the calls `pam_slurm_adopt` makes to the step daemons of this node, answered by spurd's step
//! socket (agent/src/stepd_socket.rs, one socket per node in its spool, [`socket_name`]) instead of one socket per
//! slurmstepd. The descriptor `slurm_stepd_connect` returns is a real socket the caller may `close()`, addressing
//! one step; the other calls speak the socket's line protocol over it.
//!
//! As in libslurm: `slurm_stepd_available` is NULL only when this node's name cannot be found, an empty list when
//! nothing runs here (or the agent is not reachable), and its entries carry protocol version 0 until a connect;
//! the step ids are Slurm's (`SLURM_EXTERN_CONT` for the extern step, `SLURM_BATCH_SCRIPT` for the batch step).
//! Spur forwards no X11 and joins no job container, so `slurm_stepd_get_x11_display` answers 0 with no
//! XAUTHORITY and `slurm_stepd_get_namespace_fd` answers 0 ("no namespace to join"); `slurm_stepd_getpw`,
//! `_getgr` and `_gethostbyname` (nss_slurm's) answer NULL, as a step without `LaunchParameters=enable_nss_slurm`.

use std::ffi::{c_char, c_int, c_void};
use std::io::{Read, Write};
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, IntoRawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use slurm_headers::{slurm_step_id_t, List};

use crate::ffi::{self, c_calloc, c_free, c_string, guard, opt_str, SLURM_ERROR, SLURM_SUCCESS};

/// `SLURM_EXTERN_CONT`, `SLURM_BATCH_SCRIPT` and `NO_VAL` of slurm.h.
pub const SLURM_EXTERN_CONT: u32 = 0xffff_fffc;
pub const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;
const NO_VAL: u32 = 0xffff_fffe;
/// The protocol version a connect reports: Slurm 22.05's `SLURM_PROTOCOL_VERSION` (38 << 8).
const PROTOCOL_VERSION: u16 = 38 << 8;
/// `SLURM_MIN_PROTOCOL_VERSION` of 22.05 (21.08's, 37 << 8): below it libslurm does not ask a step its uid.
const MIN_PROTOCOL_VERSION: u16 = 37 << 8;
/// The longest answer line read (a step list line is two numbers).
const MAX_LINE: usize = 256;
/// The most steps one list takes (a node runs far fewer).
const MAX_STEPS: usize = 100_000;

/// The agent's step socket in its spool, named after the node it serves (agent/src/stepd_socket.rs makes it).
pub fn socket_name(node: &str) -> String {
    format!("spurd-stepd-{node}.socket")
}

/// Slurm's `step_loc_t` (src/common/stepd_api.h): what `slurm_stepd_available` lists.
#[repr(C)]
pub struct step_loc_t {
    pub directory: *mut c_char,
    pub nodename: *mut c_char,
    pub protocol_version: u16,
    pub step_id: slurm_step_id_t,
}

/// The socket protocol's name of a step id, `None` for ids it has no step for.
fn step_name(step_id: u32) -> Option<String> {
    match step_id {
        SLURM_EXTERN_CONT => Some("extern".into()),
        SLURM_BATCH_SCRIPT => Some("batch".into()),
        n if n < SLURM_BATCH_SCRIPT => Some(n.to_string()),
        _ => None,
    }
}

fn step_number(name: &str) -> Option<u32> {
    match name {
        "extern" => Some(SLURM_EXTERN_CONT),
        "batch" => Some(SLURM_BATCH_SCRIPT),
        n => n.parse().ok().filter(|n| *n < SLURM_BATCH_SCRIPT),
    }
}

/// This node's name when the caller gives none, as libslurm guesses it: the short host name if slurm.conf names
/// a node so (or gives it as a node's `NodeHostname`), else a node named `localhost`.
fn guess_nodename() -> Option<String> {
    let host = nix::unistd::gethostname().ok()?.into_string().ok()?;
    let host = host.split('.').next().unwrap_or_default().to_string();
    let conf = crate::client::load_conf()?;
    let find = |wanted: &str| {
        conf.nodes
            .iter()
            .filter(|n| !n.names.eq_ignore_ascii_case("DEFAULT"))
            .find_map(|line| {
                let names = spur_core::grammar::hostlist::expand(&line.names).ok()?;
                let hosts = spur_core::grammar::hostlist::expand(&line.hostnames)
                    .unwrap_or_else(|_| names.clone());
                names
                    .iter()
                    .zip(hosts.iter().chain(std::iter::repeat(&String::new())))
                    .find(|(name, host)| *name == wanted || *host == wanted)
                    .map(|(name, _)| name.clone())
            })
    };
    find(&host).or_else(|| find("localhost"))
}

/// This node's name as [`guess_nodename`] finds it (for `slurm_network_callerid`'s answer).
pub fn this_node() -> Option<String> {
    guess_nodename()
}

/// `SlurmdSpoolDir` for `node` (`%n` and `%h` expanded as slurmd does), Slurm's default without one.
fn spool_dir(node: &str) -> PathBuf {
    let configured = crate::client::load_conf()
        .and_then(|c| c.slurmd_spool_dir().map(str::to_string))
        .unwrap_or_else(|| "/var/spool/slurmd".to_string());
    let host = nix::unistd::gethostname()
        .ok()
        .and_then(|h| h.into_string().ok())
        .unwrap_or_default();
    PathBuf::from(configured.replace("%n", node).replace("%h", &host))
}

/// The node and spool a call addresses: the caller's, else guessed as libslurm does.
///
/// # Safety
/// Both pointers are NULL or NUL-terminated strings.
unsafe fn locate(directory: *const c_char, nodename: *const c_char) -> Option<(PathBuf, String)> {
    // SAFETY: the caller's contract.
    let node = match unsafe { opt_str(nodename) } {
        Some(n) => n.into_owned(),
        None => guess_nodename()?,
    };
    // SAFETY: as above.
    let dir = match unsafe { opt_str(directory) } {
        Some(d) => PathBuf::from(d.into_owned()),
        None => spool_dir(&node),
    };
    Some((dir, node))
}

/// An `error:` line in libslurm's log (stderr, or syslog once a PAM module called `slurm_log_init`).
fn error(message: &str) {
    crate::log::log_msg(crate::log::LEVEL_ERROR, false, false, message);
}

/// `%m`'s text: strerror's, without std's " (os error N)".
fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

fn connect(dir: &Path, node: &str) -> std::io::Result<UnixStream> {
    UnixStream::connect(dir.join(socket_name(node)))
}

/// One answer line, read a byte at a time so nothing after it is consumed from the shared descriptor.
fn read_line(stream: &mut impl Read) -> Option<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match stream.read(&mut byte) {
            Ok(1) if byte[0] == b'\n' => break,
            Ok(1) if line.len() < MAX_LINE => line.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            _ => return None,
        }
    }
    String::from_utf8(line).ok()
}

/// One request and its one-line answer on the caller's descriptor (which stays open).
fn ask(fd: c_int, request: &str) -> Option<String> {
    if fd < 0 {
        return None;
    }
    // SAFETY: the descriptor is the caller's open socket; ManuallyDrop keeps it open when we are done.
    let mut stream = ManuallyDrop::new(unsafe { UnixStream::from_raw_fd(fd) });
    stream.write_all(request.as_bytes()).ok()?;
    read_line(&mut *stream)
}

/// The steps the agent lists to this caller (its own jobs' steps; root: all).
fn list_steps(dir: &Path, node: &str) -> Vec<(u32, u32)> {
    let Ok(mut stream) = connect(dir, node) else {
        return Vec::new();
    };
    if stream.write_all(b"LIST\n").is_err() {
        return Vec::new();
    }
    let mut steps = Vec::new();
    while let Some(line) = read_line(&mut stream) {
        if line == "." || steps.len() >= MAX_STEPS {
            break;
        }
        let mut words = line.split(' ');
        if let (Some(job), Some(step)) = (words.next(), words.next()) {
            if let (Ok(job), Some(step)) = (job.parse(), step_number(step)) {
                steps.push((job, step));
            }
        }
    }
    steps
}

unsafe extern "C" fn free_step_loc(item: *mut c_void) {
    let loc = item as *mut step_loc_t;
    if loc.is_null() {
        return;
    }
    // SAFETY: items of our lists are step_loc_t made by slurm_stepd_available, strings from c_string.
    unsafe {
        c_free((*loc).directory);
        c_free((*loc).nodename);
        c_free(loc);
    }
}

/// # Safety
/// `directory` and `nodename` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_stepd_available(
    directory: *const c_char,
    nodename: *const c_char,
) -> List {
    guard("slurm_stepd_available", std::ptr::null_mut(), || {
        // SAFETY: the caller's contract.
        let Some((dir, node)) = (unsafe { locate(directory, nodename) }) else {
            error("stepd_available: Couldn't find nodename");
            return std::ptr::null_mut();
        };
        let list = crate::list::create(Some(free_step_loc));
        match std::fs::metadata(&dir) {
            Err(e) => {
                let e = std::io::Error::from_raw_os_error(e.raw_os_error().unwrap_or(libc::ENOENT));
                error(&format!(
                    "Domain socket directory {}: {}",
                    dir.display(),
                    strerror(&e)
                ));
                return list;
            }
            Ok(m) if !m.is_dir() => {
                error(&format!("{} is not a directory", dir.display()));
                return list;
            }
            Ok(_) => {}
        }
        let dir_text = dir.display().to_string();
        for (job_id, step_id) in list_steps(&dir, &node) {
            let loc = c_calloc::<step_loc_t>(1);
            if loc.is_null() {
                break;
            }
            // SAFETY: a zeroed step_loc_t of our own; the list takes it.
            unsafe {
                (*loc).directory = c_string(&dir_text);
                (*loc).nodename = c_string(&node);
                (*loc).step_id = slurm_step_id_t {
                    job_id,
                    step_het_comp: NO_VAL,
                    step_id,
                };
                crate::list::append(list, loc as *mut c_void);
            }
        }
        list
    })
}

/// # Safety
/// `directory`/`nodename` are NULL or strings; `step_id` and `protocol_version` point to writable storage.
#[no_mangle]
pub unsafe extern "C" fn slurm_stepd_connect(
    directory: *const c_char,
    nodename: *const c_char,
    step_id: *mut slurm_step_id_t,
    protocol_version: *mut u16,
) -> c_int {
    guard("slurm_stepd_connect", -1, || {
        if !protocol_version.is_null() {
            // SAFETY: the caller's pointer.
            unsafe { *protocol_version = 0 };
        }
        if step_id.is_null() {
            ffi::set_errno(libc::EINVAL);
            return -1;
        }
        // SAFETY: the caller's contract.
        let Some((dir, node)) = (unsafe { locate(directory, nodename) }) else {
            ffi::set_errno(libc::ENOENT);
            return -1;
        };
        // SAFETY: checked non-NULL above.
        let id = unsafe { &*step_id };
        let Some(step) = step_name(id.step_id) else {
            ffi::set_errno(libc::ENOENT);
            return -1;
        };
        let mut stream = match connect(&dir, &node) {
            Ok(s) => s,
            Err(e) => {
                ffi::set_errno(e.raw_os_error().unwrap_or(libc::ECONNREFUSED));
                return -1;
            }
        };
        let request = format!("STEP {} {step}\n", id.job_id);
        let selected = stream.write_all(request.as_bytes()).is_ok()
            && read_line(&mut stream).as_deref() == Some("OK");
        if !selected {
            // No such step here (or not the caller's): what connecting to a missing step socket gives.
            ffi::set_errno(libc::ENOENT);
            return -1;
        }
        if !protocol_version.is_null() {
            // SAFETY: the caller's pointer.
            unsafe { *protocol_version = PROTOCOL_VERSION };
        }
        stream.into_raw_fd()
    })
}

#[no_mangle]
pub extern "C" fn slurm_stepd_get_uid(fd: c_int, protocol_version: u16) -> libc::uid_t {
    guard("slurm_stepd_get_uid", libc::uid_t::MAX, || {
        if protocol_version < MIN_PROTOCOL_VERSION {
            return libc::uid_t::MAX;
        }
        ask(fd, "UID\n")
            .and_then(|a| a.parse::<i64>().ok())
            .and_then(|uid| libc::uid_t::try_from(uid).ok())
            .unwrap_or(libc::uid_t::MAX)
    })
}

#[no_mangle]
pub extern "C" fn slurm_stepd_add_extern_pid(
    fd: c_int,
    _protocol_version: u16,
    pid: libc::pid_t,
) -> c_int {
    guard("slurm_stepd_add_extern_pid", SLURM_ERROR, || {
        if pid <= 0 {
            return SLURM_ERROR;
        }
        match ask(fd, &format!("ADOPT {pid}\n")).as_deref() {
            Some("0") => SLURM_SUCCESS,
            _ => SLURM_ERROR,
        }
    })
}

/// # Safety
/// `xauthority` is NULL or points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn slurm_stepd_get_x11_display(
    fd: c_int,
    _protocol_version: u16,
    xauthority: *mut *mut c_char,
) -> c_int {
    guard("slurm_stepd_get_x11_display", 0, || {
        // On a descriptor that is not open libslurm's write fails first and leaves *xauthority as it was; on a
        // step connection it is NULL (pam_slurm_adopt frees what it finds there).
        // SAFETY: F_GETFD only queries the descriptor table.
        let open = fd >= 0 && unsafe { libc::fcntl(fd, libc::F_GETFD) } >= 0;
        if open && !xauthority.is_null() {
            // SAFETY: the caller's pointer.
            unsafe { *xauthority = std::ptr::null_mut() };
        }
        0
    })
}

/// 0: no namespace to join (Spur has no job_container plugin); -1, as libslurm's failed write, on a descriptor
/// that is not open.
#[no_mangle]
pub extern "C" fn slurm_stepd_get_namespace_fd(fd: c_int, _protocol_version: u16) -> c_int {
    guard("slurm_stepd_get_namespace_fd", -1, || {
        // SAFETY: F_GETFD only queries the descriptor table.
        if fd < 0 || unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
            return -1;
        }
        0
    })
}

#[no_mangle]
pub extern "C" fn slurm_stepd_getpw(
    _fd: c_int,
    _protocol_version: u16,
    _mode: c_int,
    _uid: libc::uid_t,
    _name: *const c_char,
) -> *mut libc::passwd {
    guard(
        "slurm_stepd_getpw",
        std::ptr::null_mut(),
        std::ptr::null_mut,
    )
}

#[no_mangle]
pub extern "C" fn slurm_stepd_getgr(
    _fd: c_int,
    _protocol_version: u16,
    _mode: c_int,
    _gid: libc::gid_t,
    _name: *const c_char,
) -> *mut *mut libc::group {
    guard(
        "slurm_stepd_getgr",
        std::ptr::null_mut(),
        std::ptr::null_mut,
    )
}

#[no_mangle]
pub extern "C" fn slurm_stepd_gethostbyname(
    _fd: c_int,
    _protocol_version: u16,
    _mode: c_int,
    _nodename: *const c_char,
) -> *mut libc::hostent {
    guard(
        "slurm_stepd_gethostbyname",
        std::ptr::null_mut(),
        std::ptr::null_mut,
    )
}

/// Frees a NULL-terminated array of strings and the array (malloc'd, as everything this library returns).
///
/// # Safety
/// `list` is NULL or such an array.
unsafe fn free_string_array(list: *mut *mut c_char) {
    if list.is_null() {
        return;
    }
    let mut i = 0;
    // SAFETY: the caller's contract: the array ends with NULL.
    unsafe {
        while !(*list.add(i)).is_null() {
            c_free(*list.add(i));
            i += 1;
        }
        c_free(list);
    }
}

/// # Safety
/// `pwd` is NULL or a `struct passwd` whose strings and itself were allocated with malloc.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_struct_passwd(pwd: *mut libc::passwd) {
    guard("slurm_xfree_struct_passwd", (), || {
        if pwd.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let p = &*pwd;
            for s in [p.pw_name, p.pw_passwd, p.pw_gecos, p.pw_dir, p.pw_shell] {
                c_free(s);
            }
            c_free(pwd);
        }
    })
}

/// # Safety
/// `grp` is NULL or a NULL-terminated array of malloc'd `struct group`s with malloc'd members.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_struct_group_array(grp: *mut *mut libc::group) {
    guard("slurm_xfree_struct_group_array", (), || {
        if grp.is_null() {
            return;
        }
        let mut i = 0;
        // SAFETY: the caller's contract.
        unsafe {
            while !(*grp.add(i)).is_null() {
                let g = &*(*grp.add(i));
                c_free(g.gr_name);
                c_free(g.gr_passwd);
                free_string_array(g.gr_mem);
                c_free(*grp.add(i));
                i += 1;
            }
            c_free(grp);
        }
    })
}

/// # Safety
/// `host` is NULL or a malloc'd `struct hostent` with malloc'd members.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_struct_hostent(host: *mut libc::hostent) {
    guard("slurm_xfree_struct_hostent", (), || {
        if host.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let h = &*host;
            c_free(h.h_name);
            free_string_array(h.h_aliases);
            free_string_array(h.h_addr_list);
            c_free(host);
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_ids_map_to_the_protocols_names_and_back() {
        for (id, name) in [
            (SLURM_EXTERN_CONT, "extern"),
            (SLURM_BATCH_SCRIPT, "batch"),
            (3, "3"),
        ] {
            assert_eq!(step_name(id).as_deref(), Some(name));
            assert_eq!(step_number(name), Some(id));
        }
        assert_eq!(step_name(NO_VAL), None);
        assert_eq!(step_number("../x"), None);
        assert_eq!(std::mem::size_of::<step_loc_t>(), 32);
        assert_eq!(std::mem::offset_of!(step_loc_t, step_id), 20);
    }
}
