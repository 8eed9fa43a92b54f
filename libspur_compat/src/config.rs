//! Configuration and session: `slurm_load_ctl_conf` fills Slurm's `slurm_conf_t` from the controller's
//! configuration (slurm.conf as it runs it), `slurm_ping`, `slurm_api_version`, `slurm_init`/`slurm_fini`, and
//! `slurm_ctl_conf_2_key_pairs`.
//!
//! `slurm_conf_t` has 220 fields; the strings this library sets are recorded per message so
//! `slurm_free_ctl_conf` frees exactly those.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_long, c_void};
use std::sync::Mutex;

use slurm_headers::{slurm_conf_t, time_t};
use spur_core::model::records::ClusterConfig;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc, c_free, c_string, guard, opt_str};

/// libslurm.so.38's `SLURM_API_VERSION`: current 38, revision 0, age 0.
const SLURM_API_VERSION: c_long = 38 << 16;
/// The Slurm release whose API and texts the shim follows (`version` in the configuration).
const SLURM_VERSION_STRING: &str = "22.05.8";

/// What each configuration message owns (its allocations) and was built from, keyed by its address.
struct Owned {
    allocations: Vec<usize>,
    config: ClusterConfig,
    now: i64,
}

static OWNED: Mutex<Option<HashMap<usize, Owned>>> = Mutex::new(None);

/// The key pairs `slurm_ctl_conf_2_key_pairs` returns: Slurm's internal `config_key_pair_t` layout.
#[repr(C)]
struct KeyPair {
    name: *mut c_char,
    value: *mut c_char,
}

fn fetch_config() -> Result<(ClusterConfig, i64), CallError> {
    match client::query(&Query::Config)? {
        QueryReply::Config { config, now } => Ok((config, now)),
        _ => Err(CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR)),
    }
}

fn lookup<'a>(cfg: &'a ClusterConfig, key: &str) -> Option<&'a str> {
    cfg.entries
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.as_str())
}

/// The leading number of a value (`300`, `10 sec`), as Slurm's parser reads numeric keys.
fn number(cfg: &ClusterConfig, key: &str) -> Option<u64> {
    let v = lookup(cfg, key)?;
    let digits: String = v.trim().chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Strings by slurm.conf key, with Slurm's defaults where Spur's controller applies the same ones.
macro_rules! string_fields {
    ($c:ident, $cfg:ident, $own:ident; $($field:ident: $key:literal $(or $default:literal)?),* $(,)?) => {
        $(
            let value = lookup($cfg, $key).map(str::to_string)$(.or_else(|| Some($default.to_string())))?;
            if let Some(v) = value {
                let p = c_string(&v);
                $own.push(p as usize);
                $c.$field = p;
            }
        )*
    };
}

/// Numbers by slurm.conf key and Slurm's default.
macro_rules! number_fields {
    ($c:ident, $cfg:ident; $($field:ident: $key:literal = $default:expr),* $(,)?) => {
        $( $c.$field = number($cfg, $key).map_or($default, |n| n.try_into().unwrap_or($default)); )*
    };
}

pub(crate) fn fill_conf(c: &mut slurm_conf_t, cfg: &ClusterConfig, now: i64, own: &mut Vec<usize>) {
    c.last_update = now;
    c.boot_time = cfg.boot_time;
    string_fields!(c, cfg, own;
        accounting_storage_type: "AccountingStorageType" or "accounting_storage/none",
        authtype: "AuthType" or "auth/munge",
        gres_plugins: "GresTypes",
        job_acct_gather_type: "JobAcctGatherType" or "jobacct_gather/none",
        job_comp_loc: "JobCompLoc",
        job_comp_type: "JobCompType" or "jobcomp/none",
        mpi_default: "MpiDefault" or "none",
        priority_type: "PriorityType" or "priority/basic",
        proctrack_type: "ProctrackType" or "proctrack/cgroup",
        sched_params: "SchedulerParameters",
        schedtype: "SchedulerType" or "sched/backfill",
        select_type: "SelectType" or "select/cons_tres",
        slurm_user_name: "SlurmUser" or "root",
        slurmd_user_name: "SlurmdUser" or "root",
        slurmctld_logfile: "SlurmctldLogFile",
        slurmd_logfile: "SlurmdLogFile",
        slurmctld_pidfile: "SlurmctldPidFile" or "/var/run/slurmctld.pid",
        slurmd_pidfile: "SlurmdPidFile" or "/var/run/slurmd.pid",
        slurmd_spooldir: "SlurmdSpoolDir" or "/var/spool/slurmd",
        state_save_location: "StateSaveLocation" or "/var/spool/slurmctld",
        switch_type: "SwitchType" or "switch/none",
        task_plugin: "TaskPlugin",
        tmp_fs: "TmpFS" or "/tmp",
    );
    number_fields!(c, cfg;
        first_job_id: "FirstJobId" = 1,
        inactive_limit: "InactiveLimit" = 0,
        kill_wait: "KillWait" = 30,
        max_array_sz: "MaxArraySize" = 1001,
        max_job_cnt: "MaxJobCount" = 10000,
        max_job_id: "MaxJobId" = 67_043_328,
        max_step_cnt: "MaxStepCount" = 40000,
        min_job_age: "MinJobAge" = 300,
        msg_timeout: "MessageTimeout" = 10,
        slurmctld_timeout: "SlurmctldTimeout" = 120,
        slurmd_timeout: "SlurmdTimeout" = 300,
        slurmd_port: "SlurmdPort" = 6818,
        tree_width: "TreeWidth" = 50,
        wait_time: "WaitTime" = 0,
    );
    c.def_mem_per_cpu = match (number(cfg, "DefMemPerCPU"), number(cfg, "DefMemPerNode")) {
        (Some(m), _) => m | ffi::MEM_PER_CPU,
        (None, Some(m)) => m,
        (None, None) => 0,
    };
    c.max_mem_per_cpu = match (number(cfg, "MaxMemPerCPU"), number(cfg, "MaxMemPerNode")) {
        (Some(m), _) => m | ffi::MEM_PER_CPU,
        (None, Some(m)) => m,
        (None, None) => 0,
    };
    let ports = client::load_conf().map(|conf| conf.slurmctld_port());
    c.slurmctld_port = ports.as_ref().map_or(6817, |p| p.first);
    c.slurmctld_port_count = 1;
    c.next_job_id = ffi::NO_VAL;
    let name = c_string(&cfg.cluster_name);
    own.push(name as usize);
    c.cluster_name = name;
    let version = c_string(SLURM_VERSION_STRING);
    own.push(version as usize);
    c.version = version;
    let path = c_string(&client::conf_path());
    own.push(path as usize);
    c.slurm_conf = path;
    let hosts = c_calloc::<*mut c_char>(cfg.controllers.len());
    let addrs = c_calloc::<*mut c_char>(cfg.controllers.len());
    own.push(hosts as usize);
    own.push(addrs as usize);
    for (i, host) in cfg.controllers.iter().enumerate() {
        let (h, a) = (c_string(host), c_string(host));
        own.push(h as usize);
        own.push(a as usize);
        // SAFETY: both arrays hold controllers.len() slots.
        unsafe {
            *hosts.add(i) = h;
            *addrs.add(i) = a;
        }
    }
    c.control_machine = hosts;
    c.control_addr = addrs;
    c.control_cnt = cfg.controllers.len() as u32;
}

/// # Safety
/// `slurm_ctl_conf_ptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_ctl_conf(
    _update_time: time_t,
    slurm_ctl_conf_ptr: *mut *mut slurm_conf_t,
) -> c_int {
    guard("slurm_load_ctl_conf", ffi::SLURM_ERROR, || {
        if slurm_ctl_conf_ptr.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        let (cfg, now) = match fetch_config() {
            Ok(r) => r,
            Err(e) => return e.fail(),
        };
        let conf = c_calloc::<slurm_conf_t>(1);
        if conf.is_null() {
            return CallError::new(libc::ENOMEM).fail();
        }
        let mut own = Vec::new();
        // SAFETY: fresh zeroed allocation.
        fill_conf(unsafe { &mut *conf }, &cfg, now, &mut own);
        if let Ok(mut map) = OWNED.lock() {
            map.get_or_insert_with(HashMap::new).insert(
                conf as usize,
                Owned {
                    allocations: own,
                    config: cfg,
                    now,
                },
            );
        }
        // SAFETY: the caller's slot, checked non-NULL.
        unsafe { *slurm_ctl_conf_ptr = conf };
        ffi::SLURM_SUCCESS
    })
}

/// # Safety
/// `slurm_ctl_conf_ptr` is NULL or a configuration from `slurm_load_ctl_conf`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_ctl_conf(slurm_ctl_conf_ptr: *mut slurm_conf_t) {
    guard("slurm_free_ctl_conf", (), || {
        if slurm_ctl_conf_ptr.is_null() {
            return;
        }
        let owned = OWNED.lock().ok().and_then(|mut m| {
            m.as_mut()
                .and_then(|m| m.remove(&(slurm_ctl_conf_ptr as usize)))
        });
        // SAFETY: each recorded pointer was malloc'd for this message and is freed once.
        unsafe {
            for p in owned.map(|o| o.allocations).unwrap_or_default() {
                c_free(p as *mut c_void);
            }
            c_free(slurm_ctl_conf_ptr);
        }
    })
}

unsafe extern "C" fn free_key_pair(x: *mut c_void) {
    if x.is_null() {
        return;
    }
    // SAFETY: items of a key-pair list are KeyPairs made by `slurm_ctl_conf_2_key_pairs`.
    unsafe {
        let kp = x as *mut KeyPair;
        c_free((*kp).name);
        c_free((*kp).value);
        c_free(kp);
    }
}

/// The configuration as a `List` of name/value pairs (slurm.conf's entries as the controller runs them); the
/// caller destroys it with `slurm_list_destroy`.
///
/// # Safety
/// `slurm_ctl_conf_ptr` is NULL or a configuration from `slurm_load_ctl_conf`.
#[no_mangle]
pub unsafe extern "C" fn slurm_ctl_conf_2_key_pairs(
    slurm_ctl_conf_ptr: *mut slurm_conf_t,
) -> *mut c_void {
    guard("slurm_ctl_conf_2_key_pairs", std::ptr::null_mut(), || {
        if slurm_ctl_conf_ptr.is_null() {
            return std::ptr::null_mut();
        }
        let Ok((cfg, _)) = fetch_config() else {
            return std::ptr::null_mut();
        };
        let list = crate::list::create(Some(free_key_pair));
        for (k, v) in &cfg.entries {
            let kp = c_calloc::<KeyPair>(1);
            if kp.is_null() {
                continue;
            }
            // SAFETY: fresh allocation; `list` was just created.
            unsafe {
                (*kp).name = c_string(k);
                (*kp).value = c_string(v);
                crate::list::append(list, kp as *mut c_void);
            }
        }
        list as *mut c_void
    })
}

/// 0 when the controller answers (`dest` 0 is the primary; Spur's Raft members all answer for it).
#[no_mangle]
pub extern "C" fn slurm_ping(dest: c_int) -> c_int {
    guard("slurm_ping", ffi::SLURM_ERROR, || {
        let _ = dest;
        match client::ping() {
            Ok(()) => ffi::SLURM_SUCCESS,
            Err(e) => e.fail(),
        }
    })
}

#[no_mangle]
pub extern "C" fn slurm_api_version() -> c_long {
    SLURM_API_VERSION
}

/// Chooses the slurm.conf to read (NULL: `SLURM_CONF`, else the default path) and reads it into `slurm_conf`.
///
/// # Safety
/// `conf` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_init(conf: *const c_char) {
    guard("slurm_init", (), || {
        // SAFETY: the caller's contract.
        client::set_conf_path(unsafe { opt_str(conf) }.map(|s| s.into_owned()));
        // As libslurm's `slurm_init`: `slurm_conf_init(conf)` fills the global `slurm_conf`.
        crate::conf_globals::init(conf);
    })
}

/// Nothing to release: the runtime lives for the process (a host may call `slurm_init` again).
#[no_mangle]
pub extern "C" fn slurm_fini() {}

/// Frees memory this library returned and sets the caller's pointer to NULL (libslurm's `xfree()` macro).
///
/// # Safety
/// `item` is NULL or points to NULL or a pointer malloc'd by this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree(item: *mut *mut c_void) {
    guard("slurm_xfree", (), || {
        if !item.is_null() {
            // SAFETY: the caller's contract.
            unsafe {
                c_free(*item);
                *item = std::ptr::null_mut();
            }
        }
    })
}

/// Prints a key-pair list as libslurm does: the title as given, then `name = value` lines, names padded to 23.
///
/// # Safety
/// `out` is a writable `FILE *`; `key_pairs` NULL or a list of key pairs; `title` NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_key_pairs(
    out: *mut slurm_headers::FILE,
    key_pairs: *mut c_void,
    title: *mut c_char,
) {
    guard("slurm_print_key_pairs", (), || {
        if out.is_null() || key_pairs.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let mut text = unsafe { opt_str(title) }
            .map(|t| t.into_owned())
            .unwrap_or_default();
        // SAFETY: the caller's contract: a list whose items are key pairs.
        unsafe {
            let it = crate::list::slurm_list_iterator_create(key_pairs as slurm_headers::List);
            loop {
                let item = crate::list::slurm_list_next(it) as *mut KeyPair;
                if item.is_null() {
                    break;
                }
                let name = opt_str((*item).name).unwrap_or_default();
                let value = opt_str((*item).value).unwrap_or_default();
                text.push_str(&format!("{name:<23} = {value}\n"));
            }
            crate::list::slurm_list_iterator_destroy(it);
            if let Ok(c) = std::ffi::CString::new(text) {
                libc::fputs(c.as_ptr(), out as *mut libc::FILE);
            }
        }
    })
}

/// Prints the configuration as `scontrol show config` does (spur-core's formatter, as Spur's scontrol).
///
/// # Safety
/// `out` is a writable `FILE *`; `slurm_ctl_conf_ptr` NULL or a configuration from `slurm_load_ctl_conf`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_ctl_conf(
    out: *mut slurm_headers::FILE,
    slurm_ctl_conf_ptr: *mut slurm_conf_t,
) {
    guard("slurm_print_ctl_conf", (), || {
        if out.is_null() || slurm_ctl_conf_ptr.is_null() {
            return;
        }
        let snapshot = OWNED.lock().ok().and_then(|m| {
            m.as_ref()
                .and_then(|m| m.get(&(slurm_ctl_conf_ptr as usize)))
                .map(|o| (o.config.clone(), o.now))
        });
        let Some((config, now)) = snapshot else {
            return;
        };
        let next_job_id = crate::jobs::fetch_jobs()
            .ok()
            .and_then(|(jobs, _)| jobs.iter().map(|j| j.job_id + 1).max())
            .unwrap_or(1);
        let extras = spur_core::format::scontrol_config::ConfigExtras {
            next_job_id,
            conf_path: client::conf_path(),
            version: SLURM_VERSION_STRING.to_string(),
            sections: Vec::new(),
            status: Vec::new(),
        };
        let mut ctx = spur_core::format::FormatContext::new(now, crate::print::local_utc_offset());
        if !config.cluster_name.is_empty() {
            ctx = ctx.with_cluster(&config.cluster_name);
        }
        let text = spur_core::format::scontrol_config::render(&config, &extras, &ctx);
        if let Ok(c) = std::ffi::CString::new(text) {
            // SAFETY: the caller's open FILE; `c` is NUL-terminated.
            unsafe { libc::fputs(c.as_ptr(), out as *mut libc::FILE) };
        }
    })
}

/// `xfree_ptr()`: frees memory this library returned (libslurm's exported helper, by value).
///
/// # Safety
/// `item` is NULL or a pointer malloc'd by this library.
#[no_mangle]
pub unsafe extern "C" fn slurm_xfree_ptr(item: *mut c_void) {
    // SAFETY: the caller's contract.
    guard("slurm_xfree_ptr", (), || unsafe { c_free(item) })
}
