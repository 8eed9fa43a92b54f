//! libslurm's exported globals (`slurm_conf`, `working_cluster_rec`, `slurm_conf_options`, `slurm_prog_name`)
//! and the `slurm_conf_*` calls that read this host's slurm.conf: `slurm_init`/`slurm_conf_init` fill the global
//! `slurm_conf` from the file (parsed by spur-core's slurm.conf grammar, the same parse the commands use, and laid
//! out by [`crate::config::fill_conf`], the filler `slurm_load_ctl_conf` uses), and the node lookups answer from
//! its `NodeName` lines as libslurm's hash tables do.
//!
//! Locking mirrors libslurm: one non-recursive mutex, taken by `slurm_conf_lock` and by every lookup, so a program
//! that calls a lookup while holding `slurm_conf_lock()` deadlocks here as it does there.

use std::ffi::{c_char, c_int, c_void};
use std::sync::{Arc, Mutex};

use slurm_headers::{slurm_addr_t, slurm_conf_t, slurmdb_cluster_rec_t};
use spur_core::grammar::conf::SlurmConf;
use spur_core::model::records::ClusterConfig;

use crate::client;
use crate::ffi::{self, c_free, c_string, guard, opt_str};

/// The configuration libslurm fills on `slurm_init`/`slurm_conf_init`; programs (pyslurm, pam_slurm_adopt) read
/// its fields directly. Zero until then, as libslurm's (a BSS symbol).
#[no_mangle]
#[allow(non_upper_case_globals)]
// SAFETY: slurm_conf_t is plain C data (pointers and integers); all-zero is libslurm's initial value.
pub static mut slurm_conf: slurm_conf_t = unsafe { std::mem::zeroed() };

/// The cluster a program directs its requests to (`sbatch -M` sets it in libslurm); NULL is the local cluster,
/// which is all Spur serves, so this library never sets it.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static mut working_cluster_rec: *mut slurmdb_cluster_rec_t = std::ptr::null_mut();

/// The program name libslurm's daemons set for their logs; NULL in a client program, as libslurm leaves it.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static mut slurm_prog_name: *mut c_char = std::ptr::null_mut();

/// The size of libslurm's `slurm_conf_options` table (`nm -DS`: 0x2378 bytes, 227 `s_p_options_t` of 40 bytes).
const OPTIONS_WORDS: usize = 0x2378 / 8;

/// libslurm's parser table for slurm.conf keys, exported with the same size so a program linked against it loads.
/// Spur's parser is spur-core's grammar, not this table: it holds only the end marker (a NULL key), so a program
/// walking it sees no options.
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static mut slurm_conf_options: [u64; OPTIONS_WORDS] = [0; OPTIONS_WORDS];

/// Debian's compiled-in `PluginDir` default.
const DEFAULT_PLUGIN_DIR: &str = "/usr/lib/x86_64-linux-gnu/slurm-wlm";

/// One `NodeName` of slurm.conf with what the lookups return (libslurm's `names_ll_t`).
struct NodeEntry {
    name: String,
    hostname: String,
    address: String,
    bcast: Option<String>,
    /// 0 when `Port=` is not set: the lookups answer `SlurmdPort` then.
    port: u16,
    cpus: u16,
    boards: u16,
    sockets: u16,
    cores: u16,
    threads: u16,
}

/// What the global configuration owns while initialised.
#[derive(Default)]
struct State {
    initialized: bool,
    allocations: Vec<usize>,
    nodes: Vec<NodeEntry>,
    slurmd_port: u16,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

/// libslurm's `conf_lock`: a plain pthread mutex, because C holds it between `slurm_conf_lock` and
/// `slurm_conf_unlock` (a Rust guard cannot live across those calls).
static mut CONF_LOCK: libc::pthread_mutex_t = libc::PTHREAD_MUTEX_INITIALIZER;

fn lock() {
    // SAFETY: CONF_LOCK is a statically initialised mutex that lives for the process.
    unsafe { libc::pthread_mutex_lock(std::ptr::addr_of_mut!(CONF_LOCK)) };
}

fn unlock() {
    // SAFETY: as in `lock`; callers unlock only what they locked.
    unsafe { libc::pthread_mutex_unlock(std::ptr::addr_of_mut!(CONF_LOCK)) };
}

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut guard = STATE.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(State::default))
}

/// slurm.conf's view in the shape `fill_conf` takes (as the controller builds it from the same parse).
fn cluster_config(conf: &SlurmConf) -> ClusterConfig {
    ClusterConfig::from_conf(conf, conf.cluster_name().unwrap_or_default().to_string())
}

/// `PrologFlags` as libslurm's `prolog_str2flags` reads it (Contain and X11 imply Alloc, NoHold implies Alloc);
/// an unknown flag leaves 0, as libslurm does after its error.
fn prolog_flags(value: Option<&str>) -> u16 {
    let mut flags = 0u16;
    for word in value
        .unwrap_or_default()
        .split(',')
        .filter(|w| !w.is_empty())
    {
        flags |= match word.to_ascii_lowercase().as_str() {
            "alloc" => 0x1,
            "nohold" => 0x1 | 0x2,
            "contain" => 0x1 | 0x4,
            "serial" => 0x8,
            "x11" => 0x1 | 0x4 | 0x10,
            "deferbatch" => 0x20,
            "forcerequeueonfail" => 0x1 | 0x40,
            _ => return 0,
        };
    }
    flags
}

/// `SelectTypeParameters` as libslurm's `parse_select_type_param` reads it (`CR_*` bits of slurm.h).
fn select_type_param(value: Option<&str>) -> u16 {
    let mut bits = 0u16;
    for word in value
        .unwrap_or_default()
        .split(',')
        .filter(|w| !w.is_empty())
    {
        bits |= match word.to_ascii_lowercase().as_str() {
            "cr_cpu" => 0x1,
            "cr_cpu_memory" => 0x1 | 0x10,
            "cr_socket" => 0x2,
            "cr_socket_memory" => 0x2 | 0x10,
            "cr_core" => 0x4,
            "cr_core_memory" => 0x4 | 0x10,
            "cr_memory" => 0x10,
            "other_cons_res" => 0x20,
            "cr_one_task_per_core" => 0x100,
            "cr_pack_nodes" => 0x200,
            "other_cons_tres" => 0x800,
            "cr_core_default_dist_block" => 0x1000,
            "cr_lln" => 0x4000,
            _ => 0,
        };
    }
    bits
}

/// `PreemptMode` as `preempt_mode_num` reads it (`PREEMPT_MODE_*` of slurm.h).
fn preempt_mode(value: Option<&str>) -> u16 {
    let mut bits = 0u16;
    for word in value
        .unwrap_or_default()
        .split(',')
        .filter(|w| !w.is_empty())
    {
        bits |= match word.to_ascii_lowercase().as_str() {
            "suspend" => 0x1,
            "requeue" => 0x2,
            "cancel" => 0x8,
            "within" => 0x4000,
            "gang" => 0x8000,
            _ => 0,
        };
    }
    bits
}

/// A numeric key as written (the grammar types keys by their own width; the struct's field decides here).
fn number<T: std::str::FromStr>(conf: &SlurmConf, key: &str) -> Option<T> {
    conf.get(key).and_then(|v| v.trim().parse().ok())
}

fn user_id(name: &str) -> u32 {
    nix::unistd::User::from_name(name)
        .ok()
        .flatten()
        .map_or(0, |u| u.uid.as_raw())
}

/// The node table: each `NodeName` line's names paired with its hostnames and addresses, as Slurm pairs them.
fn node_entries(conf: &SlurmConf) -> Vec<NodeEntry> {
    let expand = |expr: &str| spur_core::grammar::hostlist::expand(expr).unwrap_or_default();
    let mut out = Vec::new();
    for node in &conf.nodes {
        let names = expand(&node.names);
        let hosts = expand(&node.hostnames);
        let addrs = expand(&node.addresses);
        let bcasts = node
            .bcast_addresses
            .as_deref()
            .map(expand)
            .unwrap_or_default();
        let port = node
            .port
            .as_deref()
            .and_then(|p| p.trim().parse::<u16>().ok())
            .unwrap_or(0);
        for (i, name) in names.iter().enumerate() {
            let hostname = hosts.get(i).unwrap_or(name).clone();
            let address = addrs.get(i).unwrap_or(&hostname).clone();
            out.push(NodeEntry {
                name: name.clone(),
                hostname,
                address,
                bcast: bcasts.get(i).cloned(),
                port,
                cpus: node.cpus,
                boards: node.boards,
                sockets: node.sockets,
                cores: node.cores_per_socket,
                threads: node.threads_per_core,
            });
        }
    }
    out
}

/// Fills the global from slurm.conf (with `CONF_LOCK` held). A file that cannot be read or parsed leaves the
/// zeroed configuration, as libslurm's does after logging; the state still counts as initialised.
fn load_locked(state: &mut State) {
    let Some(conf) = client::load_conf() else {
        // A program pointed at the controller by SPUR_CONTROLLER needs no slurm.conf (docs/libspur_compat.md);
        // otherwise say why slurm_conf stays empty, as libslurm does (it then exits, this library goes on).
        let path = client::conf_path();
        let missing = !std::path::Path::new(&path).exists();
        if !(missing && std::env::var_os("SPUR_CONTROLLER").is_some()) {
            ffi::log(&format!(
                "error: Unable to process configuration file {path}"
            ));
        }
        state.initialized = true;
        return;
    };
    let conf: Arc<SlurmConf> = conf;
    let mut own = Vec::new();
    // SAFETY: CONF_LOCK is held, the convention libslurm's callers follow for reading and writing the global.
    let c = unsafe { &mut *std::ptr::addr_of_mut!(slurm_conf) };
    // SAFETY: the global is plain C data; every pointer in it was freed by `destroy_locked` or never set.
    unsafe { std::ptr::write_bytes(c as *mut slurm_conf_t, 0, 1) };
    crate::config::fill_conf(c, &cluster_config(&conf), 0, &mut own);
    let mut set = |v: Option<&str>| -> *mut c_char {
        v.map_or(std::ptr::null_mut(), |v| {
            let p = c_string(v);
            own.push(p as usize);
            p
        })
    };
    // `fill_conf` copies the hostname into control_addr (the controller reports names only); the file has the
    // addresses.
    for (i, ctl) in conf.controllers.iter().enumerate() {
        if i < c.control_cnt as usize && !c.control_addr.is_null() {
            // SAFETY: fill_conf made control_cnt slots.
            unsafe { *c.control_addr.add(i) = set(Some(&ctl.addr)) };
        }
    }
    let or = |key: &str, default: &'static str| -> String {
        conf.get_str(key).unwrap_or(default).to_string()
    };
    c.authalttypes = set(conf.get_str("AuthAltTypes"));
    c.authalt_params = set(conf.get_str("AuthAltParameters"));
    c.authinfo = set(conf.get_str("AuthInfo"));
    c.cred_type = set(Some(&or("CredType", "cred/munge")));
    c.preempt_type = set(Some(&or("PreemptType", "preempt/none")));
    c.suspend_program = set(conf.get_str("SuspendProgram"));
    c.resume_program = set(conf.get_str("ResumeProgram"));
    c.prolog = set(conf.get_str("Prolog"));
    c.epilog = set(conf.get_str("Epilog"));
    c.plugindir = set(Some(&or("PluginDir", DEFAULT_PLUGIN_DIR)));
    c.launch_type = set(Some(&or("LaunchType", "launch/slurm")));
    c.topology_plugin = set(Some(&or("TopologyPlugin", "topology/none")));
    c.route_plugin = set(Some(&or("RoutePlugin", "route/default")));
    c.job_container_plugin = set(Some(&or("JobContainerType", "job_container/none")));
    c.ext_sensors_type = set(Some(&or("ExtSensorsType", "ext_sensors/none")));
    c.acct_gather_energy_type = set(Some(&or("AcctGatherEnergyType", "acct_gather_energy/none")));
    c.node_features_plugins = set(conf.get_str("NodeFeaturesPlugins"));
    c.accounting_storage_host = set(conf.get_str("AccountingStorageHost"));
    c.health_check_program = set(conf.get_str("HealthCheckProgram"));
    c.version = std::ptr::null_mut();
    c.select_type_param = select_type_param(conf.get("SelectTypeParameters"));
    c.prolog_flags = prolog_flags(conf.get("PrologFlags"));
    c.preempt_mode = preempt_mode(conf.get("PreemptMode"));
    c.ret2service = conf.return_to_service();
    c.over_time_limit = conf.over_time_limit();
    c.tcp_timeout = number(&conf, "TCPTimeout").unwrap_or(2);
    c.epilog_msg_time = number(&conf, "EpilogMsgTime").unwrap_or(2000);
    c.batch_start_timeout = number(&conf, "BatchStartTimeout").unwrap_or(10);
    c.accounting_storage_port = number(&conf, "AccountingStoragePort").unwrap_or(0);
    c.slurmctld_port_count = u16::try_from(conf.slurmctld_port().count()).unwrap_or(1);
    c.slurm_user_id = user_id(conf.slurm_user());
    c.slurmd_user_id = user_id(conf.slurmd_user());
    c.last_update = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    state.allocations = own;
    state.nodes = node_entries(&conf);
    state.slurmd_port = u16::try_from(c.slurmd_port).unwrap_or(0);
    state.initialized = true;
}

/// Frees what the global holds and zeroes it (with `CONF_LOCK` held).
fn destroy_locked(state: &mut State) {
    for p in state.allocations.drain(..) {
        // SAFETY: each recorded pointer was malloc'd by `load_locked` and is freed once.
        unsafe { c_free(p as *mut c_void) };
    }
    // SAFETY: CONF_LOCK is held; zero is the global's uninitialised value.
    unsafe { std::ptr::write_bytes(std::ptr::addr_of_mut!(slurm_conf), 0, 1) };
    state.nodes.clear();
    state.initialized = false;
}

/// Uses `file` from now on when given (libslurm exports it as `SLURM_CONF` for the rest of the process).
fn choose(file: *const c_char) {
    // SAFETY: callers pass NULL or a C string, the contract of every entry point here.
    if let Some(path) = unsafe { opt_str(file) } {
        client::set_conf_path(Some(path.into_owned()));
    }
}

/// `slurm_init`'s part: `slurm_conf_init(conf)` (its result ignored, as libslurm's `slurm_init` ignores it).
pub(crate) fn init(file: *const c_char) {
    let _ = conf_init(file);
}

fn conf_init(file: *const c_char) -> c_int {
    lock();
    let rc = with_state(|state| {
        if state.initialized {
            return ffi::SLURM_ERROR;
        }
        choose(file);
        load_locked(state);
        ffi::SLURM_SUCCESS
    });
    unlock();
    rc
}

/// Reads slurm.conf into `slurm_conf` (`file`, else `SLURM_CONF`, else /etc/slurm/slurm.conf); fails with
/// `SLURM_ERROR` when it was read already (until `slurm_conf_destroy`).
///
/// # Safety
/// `file_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_init(file_name: *const c_char) -> c_int {
    guard("slurm_conf_init", ffi::SLURM_ERROR, || conf_init(file_name))
}

/// Reads slurm.conf again, replacing the configuration read before.
///
/// # Safety
/// `file_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_reinit(file_name: *const c_char) -> c_int {
    guard("slurm_conf_reinit", ffi::SLURM_ERROR, || {
        lock();
        with_state(|state| {
            if state.initialized {
                destroy_locked(state);
            }
            choose(file_name);
            load_locked(state);
        });
        unlock();
        ffi::SLURM_SUCCESS
    })
}

/// Releases the configuration; the next `slurm_conf_init` reads the file again.
#[no_mangle]
pub extern "C" fn slurm_conf_destroy() -> c_int {
    guard("slurm_conf_destroy", ffi::SLURM_SUCCESS, || {
        lock();
        with_state(|state| {
            if state.initialized {
                destroy_locked(state);
            }
        });
        unlock();
        ffi::SLURM_SUCCESS
    })
}

/// Locks the configuration (reading slurm.conf first if nothing has) and returns `&slurm_conf`.
#[no_mangle]
pub extern "C" fn slurm_conf_lock() -> *mut slurm_conf_t {
    guard("slurm_conf_lock", std::ptr::null_mut(), || {
        lock();
        with_state(|state| {
            if !state.initialized {
                load_locked(state);
            }
        });
        std::ptr::addr_of_mut!(slurm_conf)
    })
}

#[no_mangle]
pub extern "C" fn slurm_conf_unlock() {
    guard("slurm_conf_unlock", (), unlock)
}

/// Resets the lock (libslurm's after-fork handler for the child).
#[no_mangle]
pub extern "C" fn slurm_conf_mutex_init() {
    guard("slurm_conf_mutex_init", (), || {
        // SAFETY: re-initialising a mutex nobody in this (forked) process holds, as libslurm's handler does.
        unsafe {
            libc::pthread_mutex_init(std::ptr::addr_of_mut!(CONF_LOCK), std::ptr::null());
        }
    })
}

extern "C" fn child_after_fork() {
    slurm_conf_mutex_init();
}

#[no_mangle]
pub extern "C" fn slurm_conf_install_fork_handlers() {
    guard("slurm_conf_install_fork_handlers", (), || {
        // SAFETY: registers a handler with no preconditions.
        unsafe { libc::pthread_atfork(None, None, Some(child_after_fork)) };
    })
}

/// Runs `f` on the node table with the lock held, reading slurm.conf first if nothing has (libslurm's lookups
/// start with `slurm_conf_lock`).
fn with_nodes<R>(f: impl FnOnce(&[NodeEntry], u16) -> R) -> R {
    lock();
    let r = with_state(|state| {
        if !state.initialized {
            load_locked(state);
        }
        f(&state.nodes, state.slurmd_port)
    });
    unlock();
    r
}

fn arg(p: *const c_char) -> Option<String> {
    // SAFETY: callers pass NULL or a C string.
    unsafe { opt_str(p) }.map(|s| s.into_owned())
}

fn out(s: Option<String>) -> *mut c_char {
    s.map_or(std::ptr::null_mut(), |s| c_string(&s))
}

fn by_name<'a>(nodes: &'a [NodeEntry], name: &str) -> Option<&'a NodeEntry> {
    nodes.iter().find(|n| n.name == name)
}

fn nodename(host: &str) -> Option<String> {
    with_nodes(|nodes, _| {
        nodes
            .iter()
            .find(|n| n.hostname == host)
            .map(|n| n.name.clone())
    })
}

/// The `NodeName` whose `NodeHostname` is `node_hostname`; NULL when none. Free with `xfree`/`free`.
///
/// # Safety
/// `node_hostname` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_nodename(node_hostname: *const c_char) -> *mut c_char {
    guard("slurm_conf_get_nodename", std::ptr::null_mut(), || {
        out(arg(node_hostname).and_then(|h| nodename(&h)))
    })
}

/// This host's `NodeName`: by its full host name, else by the names its addresses resolve to (the canonical
/// name, then the short name, where libslurm walks the resolver's aliases).
#[no_mangle]
pub extern "C" fn slurm_conf_get_aliased_nodename() -> *mut c_char {
    guard(
        "slurm_conf_get_aliased_nodename",
        std::ptr::null_mut(),
        || {
            let Ok(full) = nix::unistd::gethostname() else {
                return std::ptr::null_mut();
            };
            let full = full.to_string_lossy().into_owned();
            let mut candidates = vec![full.clone()];
            if let Some(canon) = canonical_name(&full) {
                candidates.push(canon);
            }
            if let Some((short, _)) = full.split_once('.') {
                candidates.push(short.to_string());
            }
            out(candidates.iter().find_map(|h| nodename(h)))
        },
    )
}

/// The resolver's canonical name of `host` (`getaddrinfo` with `AI_CANONNAME`).
fn canonical_name(host: &str) -> Option<String> {
    let c_host = std::ffi::CString::new(host).ok()?;
    // SAFETY: hints is zeroed plain data; getaddrinfo's result is freed with freeaddrinfo below.
    unsafe {
        let mut hints: libc::addrinfo = std::mem::zeroed();
        hints.ai_flags = libc::AI_CANONNAME;
        hints.ai_family = libc::AF_UNSPEC;
        let mut res: *mut libc::addrinfo = std::ptr::null_mut();
        if libc::getaddrinfo(c_host.as_ptr(), std::ptr::null(), &hints, &mut res) != 0 {
            return None;
        }
        let name = if !res.is_null() && !(*res).ai_canonname.is_null() {
            opt_str((*res).ai_canonname).map(|s| s.into_owned())
        } else {
            None
        };
        libc::freeaddrinfo(res);
        name
    }
}

/// Every `NodeName` on `node_hostname`, space-separated (several slurmd on one host); NULL when none.
///
/// # Safety
/// `node_hostname` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_aliases(node_hostname: *const c_char) -> *mut c_char {
    guard("slurm_conf_get_aliases", std::ptr::null_mut(), || {
        let Some(host) = arg(node_hostname) else {
            return std::ptr::null_mut();
        };
        let names = with_nodes(|nodes, _| {
            nodes
                .iter()
                .filter(|n| n.hostname == host)
                .map(|n| n.name.clone())
                .collect::<Vec<_>>()
        });
        out((!names.is_empty()).then(|| names.join(" ")))
    })
}

/// The `NodeHostname` of `node_name`; NULL when no such node.
///
/// # Safety
/// `node_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_hostname(node_name: *const c_char) -> *mut c_char {
    guard("slurm_conf_get_hostname", std::ptr::null_mut(), || {
        let name = arg(node_name);
        out(with_nodes(|nodes, _| {
            name.and_then(|n| by_name(nodes, &n).map(|e| e.hostname.clone()))
        }))
    })
}

/// The `NodeAddr` of the node whose host name (or node name) is `node_hostname`.
///
/// # Safety
/// `node_hostname` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_nodeaddr(node_hostname: *const c_char) -> *mut c_char {
    guard("slurm_conf_get_nodeaddr", std::ptr::null_mut(), || {
        let host = arg(node_hostname);
        out(with_nodes(|nodes, _| {
            host.and_then(|h| {
                nodes
                    .iter()
                    .find(|n| n.hostname == h || n.name == h)
                    .map(|n| n.address.clone())
            })
        }))
    })
}

/// The `NodeAddr` of `node_name`.
///
/// # Safety
/// `node_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_address(node_name: *const c_char) -> *mut c_char {
    guard("slurm_conf_get_address", std::ptr::null_mut(), || {
        let name = arg(node_name);
        out(with_nodes(|nodes, _| {
            name.and_then(|n| by_name(nodes, &n).map(|e| e.address.clone()))
        }))
    })
}

/// The `BcastAddr` of `node_name`; NULL when it has none.
///
/// # Safety
/// `node_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_bcast_address(node_name: *const c_char) -> *mut c_char {
    guard("slurm_conf_get_bcast_address", std::ptr::null_mut(), || {
        let name = arg(node_name);
        out(with_nodes(|nodes, _| {
            name.and_then(|n| by_name(nodes, &n).and_then(|e| e.bcast.clone()))
        }))
    })
}

/// The slurmd port of `node_name` (its `Port=`, else `SlurmdPort`); 0 for no such node.
///
/// # Safety
/// `node_name` is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_port(node_name: *const c_char) -> u16 {
    guard("slurm_conf_get_port", 0, || {
        let name = arg(node_name);
        with_nodes(|nodes, default| {
            name.and_then(|n| by_name(nodes, &n)).map_or(0, |e| {
                if e.port == 0 {
                    default
                } else {
                    e.port
                }
            })
        })
    })
}

/// `USE_BCAST_NETWORK` of libslurm's `slurm_conf_get_addr` flags.
const USE_BCAST_NETWORK: u16 = 0x1;

/// The socket address of `node_name`'s slurmd (its `NodeAddr`, or `BcastAddr` with `USE_BCAST_NETWORK`, resolved,
/// with its port); `SLURM_ERROR` for no such node or an address that does not resolve.
///
/// # Safety
/// `node_name` is NULL or a C string; `address` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_addr(
    node_name: *const c_char,
    address: *mut slurm_addr_t,
    flags: u16,
) -> c_int {
    guard("slurm_conf_get_addr", ffi::SLURM_ERROR, || {
        let name = arg(node_name);
        let target = with_nodes(|nodes, default| {
            name.and_then(|n| by_name(nodes, &n)).map(|e| {
                let host = match (&e.bcast, flags & USE_BCAST_NETWORK != 0) {
                    (Some(b), true) => b.clone(),
                    _ => e.address.clone(),
                };
                (host, if e.port == 0 { default } else { e.port })
            })
        });
        let Some((host, port)) = target else {
            return ffi::SLURM_ERROR;
        };
        use std::net::ToSocketAddrs as _;
        let Some(sa) = (host.as_str(), port)
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
        else {
            return ffi::SLURM_ERROR;
        };
        if address.is_null() {
            return ffi::SLURM_ERROR;
        }
        // SAFETY: the caller's writable sockaddr_storage, zeroed and then filled as the family's struct.
        unsafe { write_sockaddr(address, sa) };
        ffi::SLURM_SUCCESS
    })
}

/// # Safety
/// `out` is a writable `sockaddr_storage`.
unsafe fn write_sockaddr(out: *mut slurm_addr_t, sa: std::net::SocketAddr) {
    // SAFETY: the caller's contract; sockaddr_in and sockaddr_in6 both fit in sockaddr_storage.
    unsafe {
        std::ptr::write_bytes(out, 0, 1);
        match sa {
            std::net::SocketAddr::V4(v4) => {
                let sin = out as *mut libc::sockaddr_in;
                (*sin).sin_family = libc::AF_INET as libc::sa_family_t;
                (*sin).sin_port = v4.port().to_be();
                (*sin).sin_addr.s_addr = u32::from(*v4.ip()).to_be();
            }
            std::net::SocketAddr::V6(v6) => {
                let sin6 = out as *mut libc::sockaddr_in6;
                (*sin6).sin6_family = libc::AF_INET6 as libc::sa_family_t;
                (*sin6).sin6_port = v6.port().to_be();
                (*sin6).sin6_addr.s6_addr = v6.ip().octets();
            }
        }
    }
}

/// The CPUs, boards, sockets, cores per socket and threads per core slurm.conf gives `node_name`.
///
/// # Safety
/// `node_name` is NULL or a C string; each output NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_get_cpus_bsct(
    node_name: *const c_char,
    cpus: *mut u16,
    boards: *mut u16,
    sockets: *mut u16,
    cores: *mut u16,
    threads: *mut u16,
) -> c_int {
    guard("slurm_conf_get_cpus_bsct", ffi::SLURM_ERROR, || {
        let name = arg(node_name);
        let shape = with_nodes(|nodes, _| {
            name.and_then(|n| by_name(nodes, &n))
                .map(|e| [e.cpus, e.boards, e.sockets, e.cores, e.threads])
        });
        let Some(shape) = shape else {
            return ffi::SLURM_ERROR;
        };
        for (slot, value) in [cpus, boards, sockets, cores, threads]
            .into_iter()
            .zip(shape)
        {
            if !slot.is_null() {
                // SAFETY: the caller's writable slot.
                unsafe { *slot = value };
            }
        }
        ffi::SLURM_SUCCESS
    })
}

/// `path` with its first `%h` replaced by the host name (`host_name`, else `node_name`'s `NodeHostname`) and its
/// first `%n` by `node_name`, as slurmd expands `SlurmdSpoolDir` and the like.
///
/// # Safety
/// Each argument is NULL or a C string.
#[no_mangle]
pub unsafe extern "C" fn slurm_conf_expand_slurmd_path(
    path: *const c_char,
    node_name: *const c_char,
    host_name: *const c_char,
) -> *mut c_char {
    guard(
        "slurm_conf_expand_slurmd_path",
        std::ptr::null_mut(),
        || {
            let Some(path) = arg(path) else {
                return std::ptr::null_mut();
            };
            let node = arg(node_name);
            let host = arg(host_name).or_else(|| {
                let n = node.clone()?;
                with_nodes(|nodes, _| by_name(nodes, &n).map(|e| e.hostname.clone()))
            });
            let expanded = path
                .replacen("%h", host.as_deref().unwrap_or_default(), 1)
                .replacen("%n", node.as_deref().unwrap_or_default(), 1);
            c_string(&expanded)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prolog_flags_imply_alloc_as_slurm() {
        assert_eq!(prolog_flags(None), 0);
        assert_eq!(prolog_flags(Some("Contain")), 0x5);
        assert_eq!(prolog_flags(Some("Alloc,Serial")), 0x9);
        assert_eq!(prolog_flags(Some("bogus")), 0);
    }

    #[test]
    fn select_params_are_cr_bits() {
        assert_eq!(select_type_param(Some("CR_Core_Memory")), 20);
        assert_eq!(select_type_param(Some("CR_CPU,CR_LLN")), 0x4001);
        assert_eq!(preempt_mode(Some("SUSPEND,GANG")), 0x8001);
    }

    #[test]
    fn node_table_pairs_names_hosts_and_addresses() {
        let conf = SlurmConf::parse_str(
            "ClusterName=c\nSlurmctldHost=h\nNodeName=n[1-2] NodeHostname=h[1-2] NodeAddr=10.0.0.[1-2] Port=7000 CPUs=2\n",
            "slurm.conf",
        )
        .unwrap();
        let nodes = node_entries(&conf);
        assert_eq!(nodes.len(), 2);
        assert_eq!(
            (
                nodes[1].name.as_str(),
                nodes[1].hostname.as_str(),
                nodes[1].address.as_str()
            ),
            ("n2", "h2", "10.0.0.2")
        );
        assert_eq!(nodes[0].port, 7000);
    }
}
