//! `cgroup.conf` as libslurm exposes it: the global `slurm_cgroup_conf` (Slurm's internal `cgroup_conf_t`, read
//! field by field by `pam_slurm_adopt`, so its layout is Slurm's to the byte), `slurm_cgroup_conf_init`/`_destroy`,
//! and `slurm_autodetect_cgroup_version`. The file is parsed by Spur's own reader
//! (`spur_core::grammar::conf::CgroupConf`), which the agent confines jobs with.
//!
//! As Debian's libslurm.so.38 (22.05.8) does, which is what the modules run with: without a cgroup.conf beside
//! slurm.conf the fields keep their defaults, the mount point is `/sys/fs/cgroup` and the prefix and plugin stay
//! NULL; with one, `CgroupMountpoint` defaults to `/sys/fs/cgroup` (a trailing `/` dropped), the prefix is
//! `/slurm_%n` (Debian builds with multiple-slurmd support), and a file that does not parse (or names
//! `CgroupReleaseAgentDir`) is fatal. A second init without a destroy in between fails and changes nothing.

use std::ffi::{c_char, c_int};
use std::path::Path;
use std::sync::Mutex;

use spur_core::grammar::conf::CgroupConf;

use crate::ffi::{c_free, c_string, guard, SLURM_ERROR, SLURM_SUCCESS};

/// Slurm 22.05's `cgroup_conf_t` (src/common/cgroup.h), 120 bytes on x86_64.
#[repr(C)]
pub struct cgroup_conf_t {
    pub cgroup_automount: bool,
    pub cgroup_mountpoint: *mut c_char,
    pub cgroup_prepend: *mut c_char,
    pub constrain_cores: bool,
    pub constrain_ram_space: bool,
    pub allowed_ram_space: f32,
    pub max_ram_percent: f32,
    pub min_ram_space: u64,
    pub constrain_kmem_space: bool,
    pub allowed_kmem_space: f32,
    pub max_kmem_percent: f32,
    pub min_kmem_space: u64,
    pub constrain_swap_space: bool,
    pub allowed_swap_space: f32,
    pub max_swap_percent: f32,
    pub memory_swappiness: u64,
    pub constrain_devices: bool,
    pub cgroup_plugin: *mut c_char,
    pub ignore_systemd: bool,
    pub ignore_systemd_on_failure: bool,
}

/// Slurm's floor of a memory limit (`XCGROUP_DEFAULT_MIN_RAM`), MB.
const DEFAULT_MIN_RAM: u64 = 30;
const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;
const DEFAULT_MOUNTPOINT: &str = "/sys/fs/cgroup";
/// The cgroup prefix Debian's libslurm reports when cgroup.conf exists.
const PREPEND: &str = "/slurm_%n";

/// The exported global, zero until the first init, as a C static is.
#[no_mangle]
pub static mut slurm_cgroup_conf: cgroup_conf_t = cgroup_conf_t {
    cgroup_automount: false,
    cgroup_mountpoint: std::ptr::null_mut(),
    cgroup_prepend: std::ptr::null_mut(),
    constrain_cores: false,
    constrain_ram_space: false,
    allowed_ram_space: 0.0,
    max_ram_percent: 0.0,
    min_ram_space: 0,
    constrain_kmem_space: false,
    allowed_kmem_space: 0.0,
    max_kmem_percent: 0.0,
    min_kmem_space: 0,
    constrain_swap_space: false,
    allowed_swap_space: 0.0,
    max_swap_percent: 0.0,
    memory_swappiness: 0,
    constrain_devices: false,
    cgroup_plugin: std::ptr::null_mut(),
    ignore_systemd: false,
    ignore_systemd_on_failure: false,
};

/// Whether the global holds a read configuration (libslurm's `cg_conf_inited`); the lock also serialises every
/// write of the global.
static INITED: Mutex<bool> = Mutex::new(false);

/// Frees the global's strings and puts Slurm's defaults back. Caller holds [`INITED`].
///
/// # Safety
/// No other thread may be reading the global's strings (libslurm has the same rule).
unsafe fn clear(c: &mut cgroup_conf_t) {
    for p in [
        &mut c.cgroup_mountpoint,
        &mut c.cgroup_prepend,
        &mut c.cgroup_plugin,
    ] {
        // SAFETY: every string of the global was made by c_string (malloc) or is NULL.
        unsafe { c_free(*p) };
        *p = std::ptr::null_mut();
    }
    c.cgroup_automount = false;
    c.constrain_cores = false;
    c.constrain_ram_space = false;
    c.allowed_ram_space = 100.0;
    c.max_ram_percent = 100.0;
    c.min_ram_space = DEFAULT_MIN_RAM;
    c.constrain_swap_space = false;
    c.constrain_kmem_space = false;
    c.allowed_kmem_space = -1.0;
    c.max_kmem_percent = 100.0;
    c.min_kmem_space = DEFAULT_MIN_RAM;
    c.allowed_swap_space = 0.0;
    c.max_swap_percent = 100.0;
    c.constrain_devices = false;
    c.memory_swappiness = NO_VAL64;
    c.ignore_systemd = false;
    c.ignore_systemd_on_failure = false;
}

/// Sets the global from a parsed file (over the defaults [`clear`] left).
fn fill(c: &mut cgroup_conf_t, conf: &CgroupConf) {
    let o = &conf.other;
    c.cgroup_automount = conf.automount;
    let mountpoint = o
        .mountpoint
        .as_deref()
        .map_or(DEFAULT_MOUNTPOINT, |m| m.strip_suffix('/').unwrap_or(m));
    c.cgroup_mountpoint = c_string(mountpoint);
    c.cgroup_prepend = c_string(PREPEND);
    c.constrain_cores = conf.constrain_cores;
    c.constrain_ram_space = conf.constrain_ram_space;
    // The C fields are floats, as Slurm parses them with strtof.
    c.allowed_ram_space = conf.allowed_ram_space as f32;
    c.max_ram_percent = conf.max_ram_percent as f32;
    c.constrain_swap_space = conf.constrain_swap_space;
    c.constrain_kmem_space = o.constrain_kmem_space;
    if let Some(v) = o.allowed_kmem_space {
        c.allowed_kmem_space = v as f32;
    }
    if let Some(v) = o.max_kmem_percent {
        c.max_kmem_percent = v as f32;
    }
    if let Some(v) = o.min_kmem_space_mb {
        c.min_kmem_space = v;
    }
    c.allowed_swap_space = conf.allowed_swap_space as f32;
    c.max_swap_percent = conf.max_swap_percent as f32;
    c.min_ram_space = conf.min_ram_space_mb;
    if let Some(v) = o.memory_swappiness {
        // Slurm rounds a value past 100 down (with an error in its log).
        c.memory_swappiness = v.min(100);
    }
    c.constrain_devices = conf.constrain_devices;
    if let Some(plugin) = &o.plugin {
        c.cgroup_plugin = c_string(plugin);
    }
    c.ignore_systemd = o.ignore_systemd;
    // IgnoreSystemd implies IgnoreSystemdOnFailure; otherwise the key decides.
    c.ignore_systemd_on_failure = o.ignore_systemd || o.ignore_systemd_on_failure.unwrap_or(false);
}

/// cgroup.conf beside the slurm.conf the library reads (`slurm_init`'s, `SLURM_CONF`, /etc/slurm/slurm.conf).
fn cgroup_conf_path() -> std::path::PathBuf {
    Path::new(&crate::client::conf_path()).with_file_name("cgroup.conf")
}

/// What Slurm's `fatal()` does: the line in the log, then the process exits 1.
fn fatal(message: &str) -> ! {
    crate::log::log_msg(crate::log::LEVEL_FATAL, false, false, message);
    // SAFETY: exit(3) has no memory-safety preconditions; libslurm ends the process the same way.
    unsafe { libc::exit(1) }
}

/// An `error:` line in libslurm's log.
fn error(message: &str) {
    crate::log::log_msg(crate::log::LEVEL_ERROR, false, false, message);
}

#[no_mangle]
pub extern "C" fn slurm_cgroup_conf_init() -> c_int {
    guard("slurm_cgroup_conf_init", SLURM_ERROR, || {
        let Ok(mut inited) = INITED.lock() else {
            return SLURM_ERROR;
        };
        if *inited {
            return SLURM_ERROR;
        }
        let path = cgroup_conf_path();
        let parsed = match std::fs::read_to_string(&path) {
            Err(_) => None,
            Ok(text) => match CgroupConf::parse_str(&text, &path.display().to_string()) {
                Ok(conf) => Some(conf),
                Err(_) => fatal(&format!(
                    "Could not open/read/parse cgroup.conf file {}",
                    path.display()
                )),
            },
        };
        if parsed.as_ref().is_some_and(|c| c.other.release_agent_dir) {
            fatal("Support for CgroupReleaseAgentDir option has been removed.");
        }
        // SAFETY: the global is written only under INITED's lock; readers in C read it after init returns.
        let c = unsafe { &mut *std::ptr::addr_of_mut!(slurm_cgroup_conf) };
        // SAFETY: as above.
        unsafe { clear(c) };
        if parsed
            .as_ref()
            .and_then(|p| p.other.memory_swappiness)
            .is_some_and(|v| v > 100)
        {
            error("Value for MemorySwappiness is too high, rounding down to 100.");
        }
        match &parsed {
            Some(conf) => fill(c, conf),
            None => c.cgroup_mountpoint = c_string(DEFAULT_MOUNTPOINT),
        }
        *inited = true;
        SLURM_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn slurm_cgroup_conf_destroy() {
    guard("slurm_cgroup_conf_destroy", (), || {
        let Ok(mut inited) = INITED.lock() else {
            return;
        };
        // SAFETY: as in init.
        let c = unsafe { &mut *std::ptr::addr_of_mut!(slurm_cgroup_conf) };
        // SAFETY: as in init.
        unsafe { clear(c) };
        *inited = false;
    })
}

/// `statfs(2)`'s file system type of `path`, `None` when it cannot be read.
fn fs_type(path: &str) -> Option<i64> {
    let c = std::ffi::CString::new(path).ok()?;
    // SAFETY: statfs fills the zeroed struct we own; the path is NUL-terminated.
    let mut fs: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statfs(c.as_ptr(), &mut fs) } != 0 {
        return None;
    }
    Some(fs.f_type)
}

/// The version of the cgroup file system at /sys/fs/cgroup, decided as Slurm decides it: cgroup2 there is v2; a
/// tmpfs there is v1 when `systemd` under it is a v1 hierarchy, v2 when `systemd` is cgroup2 and `unified`
/// exists; anything else is no answer.
pub fn autodetect() -> Option<&'static std::ffi::CStr> {
    const CGROUP2: i64 = libc::CGROUP2_SUPER_MAGIC;
    const CGROUP1: i64 = libc::CGROUP_SUPER_MAGIC;
    const TMPFS: i64 = libc::TMPFS_MAGIC;
    const SYSFS: i64 = libc::SYSFS_MAGIC;
    let Some(root) = fs_type("/sys/fs/cgroup/") else {
        error("cgroup filesystem not mounted in /sys/fs/cgroup/");
        return None;
    };
    let stat_error = |path: &str| {
        let e = std::io::Error::last_os_error().to_string();
        let e = e
            .find(" (os error")
            .map_or(e.clone(), |at| e[..at].to_string());
        error(&format!("can't stat {path}: {e}"));
    };
    match root {
        CGROUP2 => Some(c"cgroup/v2"),
        TMPFS => match fs_type("/sys/fs/cgroup/systemd/") {
            None => {
                stat_error("/sys/fs/cgroup/systemd/");
                None
            }
            Some(CGROUP2) => match fs_type("/sys/fs/cgroup/unified/") {
                None => {
                    stat_error("/sys/fs/cgroup/unified/");
                    None
                }
                Some(_) => Some(c"cgroup/v2"),
            },
            Some(CGROUP1) => Some(c"cgroup/v1"),
            Some(_) => {
                error("Unexpected fs type on /sys/fs/cgroup/systemd");
                None
            }
        },
        SYSFS => {
            error("No filesystem mounted on /sys/fs/cgroup");
            None
        }
        _ => {
            error("Unknown filesystem type mounted on /sys/fs/cgroup");
            None
        }
    }
}

/// A static string (`cgroup/v1`, `cgroup/v2`) the caller must not free, or NULL.
#[no_mangle]
pub extern "C" fn slurm_autodetect_cgroup_version() -> *mut c_char {
    guard(
        "slurm_autodetect_cgroup_version",
        std::ptr::null_mut(),
        || autodetect().map_or(std::ptr::null_mut(), |v| v.as_ptr().cast_mut()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn layout_is_slurms() {
        // Offsets gcc gives Slurm 22.05's cgroup_conf_t on x86_64; libslurm's symbol is 120 bytes.
        assert_eq!(std::mem::size_of::<cgroup_conf_t>(), 120);
        let offsets = [
            offset_of!(cgroup_conf_t, cgroup_mountpoint),
            offset_of!(cgroup_conf_t, cgroup_prepend),
            offset_of!(cgroup_conf_t, constrain_cores),
            offset_of!(cgroup_conf_t, constrain_ram_space),
            offset_of!(cgroup_conf_t, allowed_ram_space),
            offset_of!(cgroup_conf_t, max_ram_percent),
            offset_of!(cgroup_conf_t, min_ram_space),
            offset_of!(cgroup_conf_t, constrain_kmem_space),
            offset_of!(cgroup_conf_t, allowed_kmem_space),
            offset_of!(cgroup_conf_t, max_kmem_percent),
            offset_of!(cgroup_conf_t, min_kmem_space),
            offset_of!(cgroup_conf_t, constrain_swap_space),
            offset_of!(cgroup_conf_t, allowed_swap_space),
            offset_of!(cgroup_conf_t, max_swap_percent),
            offset_of!(cgroup_conf_t, memory_swappiness),
            offset_of!(cgroup_conf_t, constrain_devices),
            offset_of!(cgroup_conf_t, cgroup_plugin),
            offset_of!(cgroup_conf_t, ignore_systemd),
            offset_of!(cgroup_conf_t, ignore_systemd_on_failure),
        ];
        assert_eq!(
            offsets,
            [8, 16, 24, 25, 28, 32, 40, 48, 52, 56, 64, 72, 76, 80, 88, 96, 104, 112, 113]
        );
    }

    #[test]
    fn fill_applies_slurms_defaults_and_the_files_keys() {
        let mut c = cgroup_conf_t {
            cgroup_mountpoint: std::ptr::null_mut(),
            cgroup_prepend: std::ptr::null_mut(),
            cgroup_plugin: std::ptr::null_mut(),
            // SAFETY: the rest is plain data, valid when zeroed.
            ..unsafe { std::mem::zeroed() }
        };
        // SAFETY: a local struct of our own.
        unsafe { clear(&mut c) };
        let conf = CgroupConf::parse_str(
            "CgroupMountpoint=/cg/\nConstrainRAMSpace=yes IgnoreSystemd=yes MemorySwappiness=300\n",
            "c",
        )
        .unwrap();
        fill(&mut c, &conf);
        // SAFETY: strings we just made.
        let text = |p: *mut c_char| unsafe { crate::ffi::opt_str(p) }.map(|s| s.into_owned());
        assert_eq!(text(c.cgroup_mountpoint).as_deref(), Some("/cg"));
        assert_eq!(text(c.cgroup_prepend).as_deref(), Some("/slurm_%n"));
        assert_eq!(text(c.cgroup_plugin), None);
        assert!(c.constrain_ram_space && !c.constrain_cores);
        assert_eq!(c.memory_swappiness, 100);
        assert!(c.ignore_systemd && c.ignore_systemd_on_failure);
        assert_eq!((c.allowed_kmem_space, c.min_kmem_space), (-1.0, 30));
        // SAFETY: ours.
        unsafe { clear(&mut c) };
        assert!(c.cgroup_mountpoint.is_null());
    }
}
