//! The server: libpmix initialisation, namespace and client registration, the module callbacks libpmix calls
//! from its progress thread, and the worker thread that runs fences through the supervisor's collective.

use std::collections::BTreeSet;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::ffi;
use crate::info::{check, InfoList};
use crate::{AbortEvent, AbortHandler, PmixError, StepCollective, StepLayout};

/// How long `finish` waits for libpmix to finalise.
const FINALIZE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Set by the first `start`: libpmix's server cannot be initialised twice in one process.
static STARTED: AtomicBool = AtomicBool::new(false);

/// What the C callbacks reach: libpmix gives its module callbacks no context pointer, so the one server of the
/// process is found here. `None` once finished: callbacks arriving late then answer with an error.
static SHARED: Mutex<Option<Arc<Shared>>> = Mutex::new(None);

struct Shared {
    nspace: String,
    total: usize,
    fences: mpsc::Sender<Fence>,
    aborts: mpsc::Sender<AbortEvent>,
    connected: Mutex<BTreeSet<u32>>,
    finalized: Mutex<BTreeSet<u32>>,
    /// Held while completing a libpmix callback from our threads, and set (under it) before
    /// `PMIx_server_finalize`, so no callback is completed into a finalised library.
    open: Mutex<bool>,
}

/// A fence libpmix handed us: this node's combined contribution and the callback to complete it with.
struct Fence {
    data: Vec<u8>,
    cbfunc: ffi::pmix_modex_cbfunc_t,
    cbdata: SendPtr,
}

/// libpmix's opaque callback data, moved to our worker thread and handed back to libpmix.
struct SendPtr(*mut c_void);
// SAFETY: the pointer is never dereferenced by us, only passed back to libpmix, whose callbacks may be called
// from any thread (libpmix moves the completion onto its own progress thread).
unsafe impl Send for SendPtr {}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic elsewhere while holding one of these locks leaves plain data behind; keep serving.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn shared() -> Option<Arc<Shared>> {
    lock(&SHARED).clone()
}

/// The PMIx server of this node's part of a step. See the crate documentation: one per process.
pub struct PmixServer {
    shared: Arc<Shared>,
    layout: StepLayout,
    server_dir: PathBuf,
    client_dir: PathBuf,
    workers: Vec<JoinHandle<()>>,
    finished: bool,
}

impl PmixServer {
    /// Initialises libpmix's server for `layout`'s step on this node, registers the namespace with the job-level,
    /// node-level and per-rank keys Open MPI reads, and registers this node's ranks with the job's uid/gid.
    /// Fences go through `collective`; aborts are reported to `on_abort`.
    pub fn start(
        layout: StepLayout,
        collective: Arc<dyn StepCollective>,
        on_abort: AbortHandler,
    ) -> Result<PmixServer, PmixError> {
        layout.validate().map_err(PmixError::Layout)?;
        if STARTED.swap(true, Ordering::SeqCst) {
            return Err(PmixError::AlreadyStarted);
        }
        // Before libpmix listens: only the job's user may reach the server (guard.rs says why).
        crate::guard::arm(layout.uid).map_err(PmixError::Unguarded)?;
        let server_dir = layout
            .spool_dir
            .join(format!("pmix.{}.{}", layout.job_id, layout.step_id));
        let client_dir = layout.tmpdir.join(format!(
            "spmix_appdir_{}_{}.{}",
            layout.uid, layout.job_id, layout.step_id
        ));
        make_private_dir(&server_dir, layout.uid)?;
        if let Err(e) = make_private_dir(&client_dir, layout.uid) {
            let _ = std::fs::remove_dir_all(&server_dir);
            return Err(e);
        }

        let (fence_tx, fence_rx) = mpsc::channel::<Fence>();
        let (abort_tx, abort_rx) = mpsc::channel::<AbortEvent>();
        let shared = Arc::new(Shared {
            nspace: layout.nspace.clone(),
            total: layout.total_tasks(),
            fences: fence_tx,
            aborts: abort_tx,
            connected: Mutex::new(BTreeSet::new()),
            finalized: Mutex::new(BTreeSet::new()),
            open: Mutex::new(true),
        });
        *lock(&SHARED) = Some(shared.clone());

        let mut server = PmixServer {
            shared: shared.clone(),
            layout,
            server_dir,
            client_dir,
            workers: Vec::new(),
            finished: false,
        };
        let worker_shared = shared.clone();
        server.workers.push(
            std::thread::Builder::new()
                .name("pmix-fence".into())
                .spawn(move || fence_worker(fence_rx, collective, worker_shared))
                .map_err(|e| PmixError::Io("spawning the fence thread".into(), e))?,
        );
        server.workers.push(
            std::thread::Builder::new()
                .name("pmix-abort".into())
                .spawn(move || {
                    for ev in abort_rx {
                        on_abort(ev);
                    }
                })
                .map_err(|e| PmixError::Io("spawning the abort thread".into(), e))?,
        );
        // On error the server is dropped, which finalises what was initialised and removes the directories.
        server.init_library()?;
        server.register()?;
        Ok(server)
    }

    fn init_library(&mut self) -> Result<(), PmixError> {
        let mut init = InfoList::new()?;
        init.u32(ffi::PMIX_USERID, self.layout.uid)?;
        init.string(ffi::PMIX_SERVER_TMPDIR, &path_str(&self.server_dir)?)?;
        let host = self
            .layout
            .local()
            .map(|n| n.hostname.clone())
            .unwrap_or_default();
        init.string(ffi::PMIX_HOSTNAME, &host)?;
        let mut init = init.convert()?;
        let mut module = module();
        // SAFETY: module and the info array are valid for the call; libpmix copies the module's function
        // pointers and the info values it keeps.
        let rc = unsafe { ffi::PMIx_server_init(&mut module, init.as_mut_ptr(), init.len()) };
        check("PMIx_server_init", rc)
    }

    fn register(&mut self) -> Result<(), PmixError> {
        let l = &self.layout;
        let total = l.total_tasks() as u32;
        let local = l
            .local()
            .cloned()
            .ok_or(PmixError::Layout("no local node".into()))?;
        let mut job = InfoList::new()?;
        job.bool(ffi::PMIX_SPAWNED, false)?;
        job.string(ffi::PMIX_TMPDIR, &path_str(&l.tmpdir)?)?;
        job.string(ffi::PMIX_NSDIR, &path_str(&self.client_dir)?)?;
        job.bool(ffi::PMIX_TDIR_RMCLEAN, true)?;
        job.string(ffi::PMIX_JOBID, &format!("{}.{}", l.job_id, l.step_id))?;
        job.string(ffi::PMIX_NSPACE, &l.nspace)?;
        job.u32(ffi::PMIX_NODEID, l.node_index as u32)?;
        let placement = l.placement();
        for (rank, &(node, local_rank)) in placement.iter().enumerate() {
            let rank = rank as u32;
            let mut p = InfoList::new()?;
            p.rank(ffi::PMIX_RANK, rank)?;
            // One application per step (no MPMD): app number and leader 0, app rank = global rank.
            p.int(ffi::PMIX_APPNUM, 0)?;
            p.int(ffi::PMIX_APPLDR, 0)?;
            p.u32(ffi::PMIX_GLOBAL_RANK, rank)?;
            p.u32(ffi::PMIX_APP_RANK, rank)?;
            p.u16(ffi::PMIX_LOCAL_RANK, local_rank)?;
            p.u16(ffi::PMIX_NODE_RANK, local_rank)?;
            let host = l
                .nodes
                .get(node as usize)
                .map(|n| n.hostname.as_str())
                .unwrap_or("");
            p.string(ffi::PMIX_HOSTNAME, host)?;
            p.u32(ffi::PMIX_NODEID, node)?;
            let p = p.convert()?;
            job.array(ffi::PMIX_PROC_DATA, &p)?;
        }
        job.u32(ffi::PMIX_UNIV_SIZE, total)?;
        job.u32(ffi::PMIX_JOB_SIZE, total)?;
        job.u32(ffi::PMIX_LOCAL_SIZE, local.ranks.len() as u32)?;
        job.u32(ffi::PMIX_NODE_SIZE, local.ranks.len() as u32)?;
        job.u32(ffi::PMIX_MAX_PROCS, total)?;
        job.string(
            ffi::PMIX_NODE_MAP,
            &generate("PMIx_generate_regex", &l.node_list())?,
        )?;
        job.string(
            ffi::PMIX_PROC_MAP,
            &generate("PMIx_generate_ppn", &l.ranks_per_node())?,
        )?;
        job.string(ffi::PMIX_ANL_MAP, &l.process_mapping())?;
        job.string(ffi::PMIX_LOCAL_PEERS, &l.local_peers())?;
        let leader = local.ranks.iter().copied().min().unwrap_or(0);
        job.u32(ffi::PMIX_LOCALLDR, leader)?;
        let mut job = job.convert()?;

        let nspace = c_nspace(&l.nspace)?;
        let nlocal = c_int::try_from(local.ranks.len())
            .map_err(|_| PmixError::Layout("too many local tasks".into()))?;
        let (tx, rx) = mpsc::sync_channel::<i32>(local.ranks.len() + 1);
        let op = |tx: &mpsc::SyncSender<i32>| Box::into_raw(Box::new(tx.clone())).cast::<c_void>();
        let cbdata = op(&tx);
        // SAFETY: nspace and the info array outlive the call and the wait below (libpmix may read the array
        // until it calls back); cbdata is a boxed sender that op_done takes back exactly once.
        let rc = unsafe {
            ffi::PMIx_server_register_nspace(
                nspace.as_ptr(),
                nlocal,
                job.as_mut_ptr(),
                job.len(),
                Some(op_done),
                cbdata,
            )
        };
        if let Err(e) = check("PMIx_server_register_nspace", rc) {
            // SAFETY: on an error return libpmix does not call back: take the box back.
            drop(unsafe { Box::from_raw(cbdata.cast::<mpsc::SyncSender<i32>>()) });
            return Err(e);
        }
        wait_op(&rx, "PMIx_server_register_nspace")?;
        drop(job);

        for &rank in &local.ranks {
            let proc_ = proc_t(&l.nspace, rank)?;
            let cbdata = op(&tx);
            // SAFETY: proc_ is valid for the call; libpmix's security checks every connection of this rank
            // against uid/gid; cbdata as above.
            let rc = unsafe {
                ffi::PMIx_server_register_client(
                    &proc_,
                    l.uid,
                    l.gid,
                    std::ptr::null_mut(),
                    Some(op_done),
                    cbdata,
                )
            };
            if let Err(e) = check("PMIx_server_register_client", rc) {
                // SAFETY: as above, no callback follows an error return.
                drop(unsafe { Box::from_raw(cbdata.cast::<mpsc::SyncSender<i32>>()) });
                return Err(e);
            }
            wait_op(&rx, "PMIx_server_register_client")?;
        }
        Ok(())
    }

    /// The environment of the task with global rank `rank` (which must run on this node), to add to its
    /// environment before exec: libpmix's `PMIX_*` variables from `PMIx_server_setup_fork`, and
    /// `SLURM_PMIX_MAPPING_SERV` (the PMI-1 process mapping Slurm's srun sets for `--mpi=pmix`).
    pub fn task_env(&self, rank: u32) -> Result<Vec<(String, String)>, PmixError> {
        let local = self.layout.local().ok_or(PmixError::UnknownRank(rank))?;
        if !local.ranks.contains(&rank) {
            return Err(PmixError::UnknownRank(rank));
        }
        let proc_ = proc_t(&self.layout.nspace, rank)?;
        let mut env: *mut *mut c_char = std::ptr::null_mut();
        // SAFETY: proc_ is valid; libpmix appends malloc'd "K=V" strings to the NULL-terminated malloc'd array
        // behind env (starting from NULL), which we free below.
        let rc = unsafe { ffi::PMIx_server_setup_fork(&proc_, &mut env) };
        let vars = take_env(env);
        check("PMIx_server_setup_fork", rc)?;
        let mut vars: Vec<(String, String)> = vars
            .into_iter()
            .filter_map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect();
        vars.push((
            "SLURM_PMIX_MAPPING_SERV".into(),
            self.layout.process_mapping(),
        ));
        Ok(vars)
    }

    /// Ranks of this node that connected to the server (called `PMIx_Init`).
    pub fn connected_ranks(&self) -> Vec<u32> {
        lock(&self.shared.connected).iter().copied().collect()
    }

    /// Ranks of this node that called `PMIx_Finalize` (Open MPI's `MPI_Finalize`).
    pub fn finalized_ranks(&self) -> Vec<u32> {
        lock(&self.shared.finalized).iter().copied().collect()
    }

    /// Deregisters the step, finalises libpmix and removes the server's and the tasks' PMIx directories.
    /// A fence still waiting in `StepCollective::allgather` is abandoned: its answer is dropped.
    pub fn finish(mut self) -> Result<(), PmixError> {
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<(), PmixError> {
        if self.finished {
            return Ok(());
        }
        self.finished = true;
        // From here on no callback is completed into libpmix from our threads.
        *lock(&self.shared.open) = false;
        *lock(&SHARED) = None;
        // libpmix can hang in finalize (4.2.2 does after it refused a connection, see README.md): run it on a
        // thread of its own and give up after FINALIZE_WAIT, so the supervisor can always end the step.
        let nspace = c_nspace(&self.layout.nspace).ok();
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("pmix-finalize".into())
            .spawn(move || {
                if let Some(nspace) = nspace {
                    // SAFETY: nspace is valid for the call; no completion callback is asked for.
                    unsafe {
                        ffi::PMIx_server_deregister_nspace(
                            nspace.as_ptr(),
                            None,
                            std::ptr::null_mut(),
                        )
                    };
                }
                // SAFETY: called once per process, after init (a failed init makes it return an error).
                let _ = tx.send(unsafe { ffi::PMIx_server_finalize() });
            });
        let mut result = match spawned {
            Err(e) => Err(PmixError::Io("spawning the finalize thread".into(), e)),
            Ok(_) => match rx.recv_timeout(FINALIZE_WAIT) {
                Ok(rc) => check("PMIx_server_finalize", rc),
                Err(_) => Err(PmixError::FinalizeTimeout),
            },
        };
        for dir in [&self.server_dir, &self.client_dir] {
            if let Err(e) = std::fs::remove_dir_all(dir) {
                if e.kind() != std::io::ErrorKind::NotFound && result.is_ok() {
                    result = Err(PmixError::Io(format!("removing {}", dir.display()), e));
                }
            }
        }
        // The abort thread ends when its sender (in `shared`) is gone, the fence thread after any allgather it
        // is in returns: neither is waited for.
        self.workers.clear();
        result
    }
}

impl Drop for PmixServer {
    fn drop(&mut self) {
        let _ = self.shutdown();
    }
}

/// Creates `path` (it must not exist: a directory planted by someone else is refused), mode 0770, owned by the
/// job's user and the server's group, as Slurm does for its PMIx directories.
fn make_private_dir(path: &Path, uid: u32) -> Result<(), PmixError> {
    let io = |what: &str, e| PmixError::Io(format!("{what} {}", path.display()), e);
    std::fs::DirBuilder::new()
        .mode(0o770)
        .create(path)
        .map_err(|e| io("creating", e))?;
    // The umask may have removed group bits.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o770))
        .map_err(|e| io("chmod", e))?;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != uid {
        std::os::unix::fs::lchown(path, Some(uid), None).map_err(|e| io("chown", e))?;
    }
    Ok(())
}

fn path_str(p: &Path) -> Result<String, PmixError> {
    p.to_str()
        .map(str::to_string)
        .ok_or_else(|| PmixError::Layout(format!("path {} is not UTF-8", p.display())))
}

fn c_nspace(nspace: &str) -> Result<CString, PmixError> {
    CString::new(nspace).map_err(|_| PmixError::Layout("NUL in namespace".into()))
}

fn proc_t(nspace: &str, rank: u32) -> Result<ffi::pmix_proc_t, PmixError> {
    // SAFETY: pmix_proc_t is a char array and an integer: all-zero is a valid value.
    let mut p: ffi::pmix_proc_t = unsafe { std::mem::zeroed() };
    if nspace.len() >= p.nspace.len() {
        return Err(PmixError::Layout("namespace too long".into()));
    }
    for (d, s) in p.nspace.iter_mut().zip(nspace.bytes()) {
        *d = s as c_char;
    }
    p.rank = rank;
    Ok(p)
}

/// Reads a libpmix-built environment array and frees it.
fn take_env(env: *mut *mut c_char) -> Vec<String> {
    let mut out = Vec::new();
    if env.is_null() {
        return out;
    }
    let mut i = 0;
    loop {
        // SAFETY: env is a NULL-terminated array of malloc'd C strings built by libpmix; i stays within it.
        let s = unsafe { *env.add(i) };
        if s.is_null() {
            break;
        }
        // SAFETY: s is a NUL-terminated string; freed once, after copying.
        unsafe {
            out.push(CStr::from_ptr(s).to_string_lossy().into_owned());
            libc::free(s.cast());
        }
        i += 1;
    }
    // SAFETY: the array itself was malloc'd by libpmix.
    unsafe { libc::free(env.cast()) };
    out
}

fn generate(call: &'static str, input: &str) -> Result<String, PmixError> {
    let c = CString::new(input).map_err(|_| PmixError::Layout("NUL in node list".into()))?;
    let mut out: *mut c_char = std::ptr::null_mut();
    // SAFETY: c is a valid C string; libpmix stores a malloc'd string in out.
    let rc = unsafe {
        if call == "PMIx_generate_regex" {
            ffi::PMIx_generate_regex(c.as_ptr(), &mut out)
        } else {
            ffi::PMIx_generate_ppn(c.as_ptr(), &mut out)
        }
    };
    check(call, rc)?;
    if out.is_null() {
        return Err(PmixError::Pmix { call, status: -1 });
    }
    // SAFETY: out is a NUL-terminated malloc'd string, copied then freed once. (For long inputs libpmix 4.2 may
    // produce a compressed "blob:" value with embedded NULs, which a string cannot carry: see README limits.)
    let s = unsafe {
        let s = CStr::from_ptr(out).to_string_lossy().into_owned();
        libc::free(out.cast());
        s
    };
    Ok(s)
}

/// Completion of register_nspace/register_client: cbdata is a boxed sender.
unsafe extern "C" fn op_done(status: ffi::pmix_status_t, cbdata: *mut c_void) {
    // SAFETY: cbdata is the Box<SyncSender> made in `register`, given to libpmix for exactly one callback.
    let tx = unsafe { Box::from_raw(cbdata.cast::<mpsc::SyncSender<i32>>()) };
    let _ = tx.send(status);
}

fn wait_op(rx: &mpsc::Receiver<i32>, call: &'static str) -> Result<(), PmixError> {
    let status = rx
        .recv()
        .map_err(|_| PmixError::Pmix { call, status: -1 })?;
    check(call, status)
}

fn module() -> ffi::pmix_server_module_t {
    // SAFETY: the module is a struct of optional function pointers: all-zero is "no callback" for each.
    let mut m: ffi::pmix_server_module_t = unsafe { std::mem::zeroed() };
    m.client_connected = Some(client_connected);
    m.client_finalized = Some(client_finalized);
    m.abort = Some(abort);
    m.fence_nb = Some(fence_nb);
    m.job_control = Some(job_control);
    m.notify_event = Some(notify_event);
    m
}

const SUCCESS: ffi::pmix_status_t = ffi::PMIX_SUCCESS as ffi::pmix_status_t;
const ERROR: ffi::pmix_status_t = ffi::PMIX_ERROR;
const NOT_SUPPORTED: ffi::pmix_status_t = ffi::PMIX_ERR_NOT_SUPPORTED;

/// The rank of a proc of our namespace, `None` for another namespace.
fn our_rank(sh: &Shared, p: *const ffi::pmix_proc_t) -> Option<u32> {
    if p.is_null() {
        return None;
    }
    // SAFETY: libpmix passes a valid proc; its nspace is a NUL-terminated char array.
    let (ns, rank) = unsafe { (CStr::from_ptr((*p).nspace.as_ptr()), (*p).rank) };
    (ns.to_bytes() == sh.nspace.as_bytes()).then_some(rank)
}

unsafe extern "C" fn client_connected(
    proc_: *const ffi::pmix_proc_t,
    _server_object: *mut c_void,
    _cbfunc: ffi::pmix_op_cbfunc_t,
    _cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    if let Some(sh) = shared() {
        if let Some(r) = our_rank(&sh, proc_) {
            lock(&sh.connected).insert(r);
        }
    }
    SUCCESS
}

unsafe extern "C" fn client_finalized(
    proc_: *const ffi::pmix_proc_t,
    _server_object: *mut c_void,
    cbfunc: ffi::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    if let Some(sh) = shared() {
        if let Some(r) = our_rank(&sh, proc_) {
            lock(&sh.finalized).insert(r);
        }
    }
    if let Some(cb) = cbfunc {
        // SAFETY: libpmix's own callback and data for this request, completed once.
        unsafe { cb(SUCCESS, cbdata) };
    }
    SUCCESS
}

unsafe extern "C" fn abort(
    proc_: *const ffi::pmix_proc_t,
    _server_object: *mut c_void,
    status: c_int,
    msg: *const c_char,
    _procs: *mut ffi::pmix_proc_t,
    _nprocs: usize,
    cbfunc: ffi::pmix_op_cbfunc_t,
    cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    let Some(sh) = shared() else { return ERROR };
    let rank = our_rank(&sh, proc_).unwrap_or(u32::MAX);
    let message = if msg.is_null() {
        String::new()
    } else {
        // SAFETY: libpmix passes a NUL-terminated message or NULL.
        unsafe { CStr::from_ptr(msg) }
            .to_string_lossy()
            .into_owned()
    };
    // The handler runs on the abort thread: never block libpmix's progress thread on the supervisor.
    let _ = sh.aborts.send(AbortEvent {
        rank,
        status,
        message,
    });
    if let Some(cb) = cbfunc {
        // SAFETY: libpmix's own callback and data for this request, completed once.
        unsafe { cb(SUCCESS, cbdata) };
    }
    SUCCESS
}

unsafe extern "C" fn fence_nb(
    procs: *const ffi::pmix_proc_t,
    nprocs: usize,
    _info: *const ffi::pmix_info_t,
    _ninfo: usize,
    data: *mut c_char,
    ndata: usize,
    cbfunc: ffi::pmix_modex_cbfunc_t,
    cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    let Some(sh) = shared() else { return ERROR };
    // Every node takes part in every collective of the contract, so only fences over the whole step are
    // served; one over a subset of ranks would leave the other nodes out of step.
    let mut ranks = BTreeSet::new();
    let mut whole = false;
    for i in 0..nprocs {
        // SAFETY: libpmix passes nprocs valid procs.
        let p = unsafe { procs.add(i) };
        match our_rank(&sh, p) {
            Some(ffi::PMIX_RANK_WILDCARD) => whole = true,
            Some(r) => {
                ranks.insert(r);
            }
            None => return NOT_SUPPORTED,
        }
    }
    if !whole && ranks.len() != sh.total {
        return NOT_SUPPORTED;
    }
    let data = if data.is_null() || ndata == 0 {
        Vec::new()
    } else {
        // SAFETY: libpmix passes ndata readable bytes at data, valid for this call; we copy them.
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), ndata) }.to_vec()
    };
    match sh.fences.send(Fence {
        data,
        cbfunc,
        cbdata: SendPtr(cbdata),
    }) {
        Ok(()) => SUCCESS,
        Err(_) => ERROR,
    }
}

unsafe extern "C" fn job_control(
    _requestor: *const ffi::pmix_proc_t,
    _targets: *const ffi::pmix_proc_t,
    _ntargets: usize,
    _directives: *const ffi::pmix_info_t,
    _ndirs: usize,
    _cbfunc: ffi::pmix_info_cbfunc_t,
    _cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    NOT_SUPPORTED
}

unsafe extern "C" fn notify_event(
    _code: ffi::pmix_status_t,
    _source: *const ffi::pmix_proc_t,
    _range: ffi::pmix_data_range_t,
    _info: *mut ffi::pmix_info_t,
    _ninfo: usize,
    _cbfunc: ffi::pmix_op_cbfunc_t,
    _cbdata: *mut c_void,
) -> ffi::pmix_status_t {
    NOT_SUPPORTED
}

/// Runs fences one after the other through the collective and completes them in libpmix.
fn fence_worker(rx: mpsc::Receiver<Fence>, collective: Arc<dyn StepCollective>, sh: Arc<Shared>) {
    for fence in rx {
        let result = collective.allgather(fence.data);
        let open = lock(&sh.open);
        let Some(cb) = fence.cbfunc else { continue };
        if !*open {
            // libpmix is finalised: nothing may be called back.
            continue;
        }
        match result {
            Ok(blobs) => {
                // libpmix unpacks the nodes' contributions from their concatenation.
                let all: Box<Vec<u8>> = Box::new(blobs.concat());
                let (ptr, len) = (all.as_ptr(), all.len());
                let keep = Box::into_raw(all).cast::<c_void>();
                // SAFETY: libpmix's callback and data for this fence, completed once; the bytes stay alive
                // until libpmix calls release_blob with `keep`.
                unsafe {
                    cb(
                        SUCCESS,
                        ptr.cast(),
                        len,
                        fence.cbdata.0,
                        Some(release_blob),
                        keep,
                    )
                };
            }
            Err(_) => {
                // SAFETY: as above; an error with no data, so the ranks' PMIx_Fence fails and they abort.
                unsafe {
                    cb(
                        ERROR,
                        std::ptr::null(),
                        0,
                        fence.cbdata.0,
                        None,
                        std::ptr::null_mut(),
                    )
                };
            }
        }
    }
}

unsafe extern "C" fn release_blob(cbdata: *mut c_void) {
    // SAFETY: cbdata is the Box<Vec<u8>> leaked in fence_worker, released once by libpmix.
    drop(unsafe { Box::from_raw(cbdata.cast::<Vec<u8>>()) });
}
