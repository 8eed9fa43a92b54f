//! Job submission: Slurm's `job_desc_msg_t` (defaults from `slurm_init_job_desc_msg`, as libslurm sets them) is
//! translated into Spur's `JobSpec` and sent as a `SubmitRequest`; replies come back as Slurm's response structs.

use std::ffi::{c_char, c_int};

use slurm_headers::{
    job_desc_msg_t, resource_allocation_response_msg_t, submit_response_msg_t, time_t,
    will_run_response_msg_t,
};
use spur_core::model::job::{GresRequest, JobSpec, OpenMode};
use spur_core::wire::api::{SubmitReply, SubmitRequest};

use crate::client::{self, CallError};
use crate::ffi::{
    self, c_calloc, c_free, c_opt_string, c_string, guard, opt_str, INFINITE, NO_VAL, NO_VAL16,
    NO_VAL64,
};

/// Slurm keeps `nice` unsigned by adding this offset (`NICE_OFFSET`).
const NICE_OFFSET: i64 = 0x8000_0000;
/// How often `slurm_allocate_resources_blocking` asks whether the allocation was granted.
const ALLOCATION_POLL_MS: u64 = 100;
/// How long a new allocation may take to be granted and still count as granted at once (not "queued").
const IMMEDIATE_GRANT: std::time::Duration = std::time::Duration::from_secs(1);

/// The host program's name, which libslurm's log lines start with.
pub(crate) fn program_name() -> String {
    std::env::args()
        .next()
        .and_then(|a| a.rsplit('/').next().map(str::to_string))
        .unwrap_or_else(|| "slurm".to_string())
}

/// `slurm_init_job_desc_msg`: every field "not set", with libslurm's markers.
pub fn init_job_desc(d: &mut job_desc_msg_t) {
    // SAFETY: job_desc_msg_t is plain C data; all-zero is a valid value.
    *d = unsafe { std::mem::zeroed() };
    d.alloc_sid = NO_VAL;
    d.contiguous = NO_VAL16;
    d.core_spec = NO_VAL16;
    d.cpu_bind_type = NO_VAL16;
    d.cpu_freq_min = NO_VAL;
    d.cpu_freq_max = NO_VAL;
    d.cpu_freq_gov = NO_VAL;
    d.delay_boot = NO_VAL;
    d.group_id = NO_VAL;
    d.job_id = NO_VAL;
    d.kill_on_node_fail = NO_VAL16;
    d.mail_type = NO_VAL16;
    d.mem_bind_type = NO_VAL16;
    d.nice = NO_VAL;
    d.num_tasks = NO_VAL;
    d.overcommit = 0xfe;
    d.plane_size = NO_VAL16;
    d.priority = NO_VAL;
    d.reboot = NO_VAL16;
    d.requeue = NO_VAL16;
    d.shared = NO_VAL16;
    d.site_factor = NO_VAL;
    d.task_dist = NO_VAL;
    d.time_limit = NO_VAL;
    d.time_min = NO_VAL;
    d.user_id = NO_VAL;
    d.wait_all_nodes = NO_VAL16;
    d.cpus_per_task = NO_VAL16;
    d.min_cpus = NO_VAL;
    d.max_cpus = NO_VAL;
    d.min_nodes = NO_VAL;
    d.max_nodes = NO_VAL;
    d.sockets_per_node = NO_VAL16;
    d.cores_per_socket = NO_VAL16;
    d.threads_per_core = NO_VAL16;
    d.ntasks_per_node = NO_VAL16;
    d.ntasks_per_socket = NO_VAL16;
    d.ntasks_per_core = NO_VAL16;
    d.ntasks_per_tres = NO_VAL16;
    d.pn_min_cpus = NO_VAL16;
    d.pn_min_memory = NO_VAL64;
    d.pn_min_tmp_disk = NO_VAL;
    d.req_switch = NO_VAL;
    d.wait4switch = NO_VAL;
}

fn set_u32(v: u32) -> Option<u32> {
    (v != NO_VAL && v != INFINITE).then_some(v)
}

fn set_u16(v: u16) -> Option<u32> {
    (v != NO_VAL16 && v != ffi::INFINITE16).then_some(u32::from(v))
}

/// # Safety
/// `argv` is NULL or holds `n` NULL-or-valid C strings.
unsafe fn string_array(argv: *mut *mut c_char, n: u32) -> Vec<String> {
    if argv.is_null() {
        return Vec::new();
    }
    (0..n as usize)
        // SAFETY: the caller's contract.
        .filter_map(|i| unsafe { opt_str(*argv.add(i)) }.map(|s| s.into_owned()))
        .collect()
}

/// `gres:gpu:2`, `gres/gpu:a100:2` or `gpu:2` (tres_per_node) as Spur's GRES requests.
fn gres_requests(text: &str) -> Vec<GresRequest> {
    text.split(',')
        .filter_map(|item| {
            let item = item
                .trim()
                .trim_start_matches("gres:")
                .trim_start_matches("gres/");
            let parts: Vec<&str> = item.split(':').collect();
            let (name, gres_type, count) = match parts.as_slice() {
                [name] => (*name, None, 1),
                [name, n] if n.parse::<u64>().is_ok() => (*name, None, n.parse().ok()?),
                [name, t] => (*name, Some(t.to_string()), 1),
                [name, t, n] => (*name, Some(t.to_string()), n.parse().ok()?),
                _ => return None,
            };
            (!name.is_empty()).then(|| GresRequest {
                name: name.to_string(),
                gres_type,
                count,
            })
        })
        .collect()
}

fn user_name(uid: u32) -> String {
    nix::unistd::User::from_uid(uid.into())
        .ok()
        .flatten()
        .map_or_else(|| uid.to_string(), |u| u.name)
}

/// Translates a job description into Spur's job spec; fields Slurm marks unset keep Spur's defaults.
///
/// # Safety
/// Every pointer in `d` is NULL or valid as Slurm documents it.
pub unsafe fn job_spec(d: &job_desc_msg_t) -> JobSpec {
    // SAFETY: `p` is one of `d`'s strings, NULL or valid: the caller's contract.
    let s = |p: *mut c_char| unsafe { opt_str(p) }.map(|c| c.into_owned());
    let uid = set_u32(d.user_id).unwrap_or_else(|| nix::unistd::getuid().as_raw());
    let gid = set_u32(d.group_id).unwrap_or_else(|| nix::unistd::getgid().as_raw());
    let work_dir = s(d.work_dir).unwrap_or_else(|| {
        std::env::current_dir().map_or_else(|_| "/tmp".to_string(), |p| p.display().to_string())
    });
    // SAFETY: `d.environment` holds `d.env_size` strings, NULL or valid: the caller's contract on `d`'s pointers.
    let environment = unsafe { string_array(d.environment, d.env_size) }
        .into_iter()
        .filter_map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect();
    let gres_text = s(d.tres_per_node);
    let (mem_per_cpu_mb, mem_per_node_mb) = match d.pn_min_memory {
        NO_VAL64 | ffi::INFINITE64 => (None, None),
        m if m & ffi::MEM_PER_CPU != 0 => (Some(m & !ffi::MEM_PER_CPU), None),
        m => (None, Some(m)),
    };
    // SAFETY: `d.argv` holds `d.argc` strings, NULL or valid: the caller's contract on `d`'s pointers.
    let argv = unsafe { string_array(d.argv, d.argc) };
    let script = s(d.script);
    JobSpec {
        name: s(d.name).unwrap_or_else(|| if script.is_some() { "sbatch" } else { "" }.to_string()),
        user_id: uid,
        group_id: gid,
        user_name: user_name(uid),
        account: s(d.account),
        qos: s(d.qos),
        partition: s(d.partition),
        time_limit_min: set_u32(d.time_limit),
        time_min_min: set_u32(d.time_min),
        nodes_min: set_u32(d.min_nodes).unwrap_or(1),
        nodes_max: set_u32(d.max_nodes),
        ntasks: set_u32(d.num_tasks),
        ntasks_per_node: set_u16(d.ntasks_per_node),
        cpus_per_task: set_u16(d.cpus_per_task).unwrap_or(1),
        min_cpus_per_node: set_u16(d.pn_min_cpus),
        mem_per_node_mb,
        mem_per_cpu_mb,
        tmp_disk_mb: set_u32(d.pn_min_tmp_disk).map_or(0, u64::from),
        gres: gres_text.as_deref().map(gres_requests).unwrap_or_default(),
        gres_text,
        exclusive: d.shared == 0,
        required_nodes: s(d.req_nodes),
        excluded_nodes: s(d.exc_nodes),
        constraint: s(d.features),
        array: s(d.array_inx),
        dependency: s(d.dependency),
        begin_time: (d.begin_time != 0).then_some(d.begin_time),
        deadline: (d.deadline != 0).then_some(d.deadline),
        hold: d.priority == 0,
        nice: set_u32(d.nice).map_or(0, |n| (i64::from(n) - NICE_OFFSET) as i32),
        requeue: d.requeue != 0,
        // Slurm's --no-kill is kill_on_node_fail = 0 (unset: kill).
        no_kill: d.kill_on_node_fail == 0,
        work_dir,
        stdout: s(d.std_out),
        stderr: s(d.std_err),
        stdin: s(d.std_in),
        open_mode: if d.open_mode == 1 {
            OpenMode::Append
        } else {
            OpenMode::Truncate
        },
        command: argv.first().cloned(),
        argv,
        script,
        environment,
        comment: s(d.comment),
        submit_host: s(d.alloc_node).unwrap_or_else(client::short_hostname),
        submit_sid: set_u32(d.alloc_sid).unwrap_or_else(|| {
            nix::unistd::getsid(None).map_or(0, |p| u32::try_from(p.as_raw()).unwrap_or(0))
        }),
        ..JobSpec::default()
    }
}

/// `SLURM_BATCH_SCRIPT`: the step id of a job's batch shell.
pub(crate) const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;

pub(crate) fn desc_held(d: *const job_desc_msg_t) -> bool {
    // SAFETY: only called after a successful submission of this non-NULL description.
    !d.is_null() && unsafe { (*d).priority } == 0
}

fn submit_desc(
    d: *const job_desc_msg_t,
    test_only: bool,
    interactive: bool,
) -> Result<SubmitReply, CallError> {
    if d.is_null() {
        return Err(CallError::new(libc::EINVAL));
    }
    // SAFETY: non-NULL; the caller passes a valid job description.
    let desc = unsafe { &*d };
    let request = SubmitRequest {
        // SAFETY: as above.
        spec: unsafe { job_spec(desc) },
        test_only,
        immediate: desc.immediate != 0,
        interactive,
        het_components: Vec::new(),
    };
    client::submit(&request)
}

/// # Safety
/// `job_desc_msg` is a valid description; `slurm_alloc_msg` a valid slot for the response.
#[no_mangle]
pub unsafe extern "C" fn slurm_submit_batch_job(
    job_desc_msg: *mut job_desc_msg_t,
    slurm_alloc_msg: *mut *mut submit_response_msg_t,
) -> c_int {
    guard("slurm_submit_batch_job", ffi::SLURM_ERROR, || {
        if slurm_alloc_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match submit_desc(job_desc_msg, false, false) {
            // SAFETY: the caller's slot was checked non-NULL.
            Ok(reply) => unsafe { answer_submit(slurm_alloc_msg, reply.job_id, job_desc_msg) },
            Err(e) => e.fail(),
        }
    })
}

/// Fills `*slot` with a fresh submit response, as slurmctld answers a batch submission: the job id, the batch
/// step, and ESLURM_JOB_HELD for a job submitted held (`desc`, the job's or its leader's description).
///
/// # Safety
/// `slot` is a valid, non-NULL pointer; `desc` as for [`desc_held`].
pub(crate) unsafe fn answer_submit(
    slot: *mut *mut submit_response_msg_t,
    job_id: u32,
    desc: *const job_desc_msg_t,
) -> c_int {
    let resp = c_calloc::<submit_response_msg_t>(1);
    if resp.is_null() {
        return CallError::new(libc::ENOMEM).fail();
    }
    // SAFETY: fresh allocation; the caller vouches for `slot`.
    unsafe {
        (*resp).job_id = job_id;
        (*resp).step_id = SLURM_BATCH_SCRIPT;
        if desc_held(desc) {
            (*resp).error_code = spur_core::wire::api::SlurmErrno::JobHeld.code() as u32;
        }
        *slot = resp;
    }
    ffi::SLURM_SUCCESS
}

/// # Safety
/// `msg` is NULL or a response from `slurm_submit_batch_job`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_submit_response_response_msg(msg: *mut submit_response_msg_t) {
    guard("slurm_free_submit_response_response_msg", (), || {
        if !msg.is_null() {
            // SAFETY: the caller's contract.
            unsafe {
                c_free((*msg).job_submit_user_msg);
                c_free(msg);
            }
        }
    })
}

/// Slurm's `info()` line for a successful will-run test, on stderr as libslurm logs it.
pub(crate) fn report_trial(job_id: u32, trial: &spur_core::wire::api::TrialPlacement) {
    let when =
        spur_core::grammar::values::begin::format_local_time(trial.start_time, local_utc_offset());
    ffi::log_plain(&format!(
        "Job {job_id} to start at {when} using {} processors on nodes {} in partition {}",
        trial.processors,
        spur_core::grammar::hostlist::compress(&trial.nodes),
        trial.partition
    ));
}

pub(crate) fn local_utc_offset() -> i32 {
    // SAFETY: localtime_r with a valid time and out-struct.
    unsafe {
        let now = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        if libc::localtime_r(&now, &mut tm).is_null() {
            0
        } else {
            tm.tm_gmtoff as i32
        }
    }
}

/// # Safety
/// `job_desc_msg` is a valid description.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_will_run(job_desc_msg: *mut job_desc_msg_t) -> c_int {
    guard(
        "slurm_job_will_run",
        ffi::SLURM_ERROR,
        || match submit_desc(job_desc_msg, true, false) {
            Ok(reply) => {
                if let Some(trial) = &reply.test_only {
                    report_trial(reply.job_id, trial);
                }
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        },
    )
}

/// # Safety
/// `req` is a valid description; `will_run_resp` NULL or a valid slot.
#[no_mangle]
pub unsafe extern "C" fn slurm_job_will_run2(
    req: *mut job_desc_msg_t,
    will_run_resp: *mut *mut will_run_response_msg_t,
) -> c_int {
    guard("slurm_job_will_run2", ffi::SLURM_ERROR, || {
        match submit_desc(req, true, false) {
            Ok(reply) => {
                if will_run_resp.is_null() {
                    return ffi::SLURM_SUCCESS;
                }
                let resp = c_calloc::<will_run_response_msg_t>(1);
                if resp.is_null() {
                    return CallError::new(libc::ENOMEM).fail();
                }
                // SAFETY: fresh allocation; caller's slot checked non-NULL.
                unsafe {
                    (*resp).job_id = reply.job_id;
                    if let Some(t) = &reply.test_only {
                        (*resp).node_list =
                            c_string(&spur_core::grammar::hostlist::compress(&t.nodes));
                        (*resp).part_name = c_string(&t.partition);
                        (*resp).proc_cnt = t.processors;
                        (*resp).start_time = t.start_time;
                    }
                    *will_run_resp = resp;
                }
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        }
    })
}

/// # Safety
/// `msg` is NULL or a response from `slurm_job_will_run2`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_will_run_response_msg(msg: *mut will_run_response_msg_t) {
    guard("slurm_free_will_run_response_msg", (), || {
        if !msg.is_null() {
            // SAFETY: the caller's contract; the preemptee list is never set by this library.
            unsafe {
                c_free((*msg).job_submit_user_msg);
                c_free((*msg).node_list);
                c_free((*msg).part_name);
                c_free(msg);
            }
        }
    })
}

/// # Safety
/// `job_desc_msg` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn slurm_init_job_desc_msg(job_desc_msg: *mut job_desc_msg_t) {
    guard("slurm_init_job_desc_msg", (), || {
        if !job_desc_msg.is_null() {
            // SAFETY: non-NULL, writable by the caller's contract.
            init_job_desc(unsafe { &mut *job_desc_msg });
        }
    })
}

/// Frees a job description whose strings were malloc'd (as libslurm's own option parsers build them).
///
/// # Safety
/// `msg` is NULL or a heap-allocated description owning its strings.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_desc_msg(msg: *mut job_desc_msg_t) {
    guard("slurm_free_job_desc_msg", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let d = &mut *msg;
            for arr in [
                (d.argv, d.argc),
                (d.environment, d.env_size),
                (d.spank_job_env, d.spank_job_env_size),
            ] {
                if !arr.0.is_null() {
                    for i in 0..arr.1 as usize {
                        c_free(*arr.0.add(i));
                    }
                    c_free(arr.0);
                }
            }
            for p in [
                d.account,
                d.acctg_freq,
                d.admin_comment,
                d.alloc_node,
                d.array_inx,
                d.batch_features,
                d.burst_buffer,
                d.clusters,
                d.cluster_features,
                d.comment,
                d.container,
                d.cpu_bind,
                d.cpus_per_tres,
                d.dependency,
                d.extra,
                d.exc_nodes,
                d.features,
                d.job_id_str,
                d.licenses,
                d.mail_user,
                d.mcs_label,
                d.mem_bind,
                d.mem_per_tres,
                d.name,
                d.network,
                d.origin_cluster,
                d.prefer,
                d.qos,
                d.resp_host,
                d.req_nodes,
                d.reservation,
                d.script,
                d.submit_line,
                d.tres_bind,
                d.tres_freq,
                d.tres_per_job,
                d.tres_per_node,
                d.tres_per_socket,
                d.tres_per_task,
                d.req_context,
                d.selinux_context,
                d.std_err,
                d.std_in,
                d.std_out,
                d.wckey,
                d.x11_magic_cookie,
                d.x11_target,
                d.work_dir,
            ] {
                c_free(p);
            }
            c_free(d.tres_req_cnt);
            c_free(msg);
        }
    })
}

/// The response of an allocation request, for a job that may still be pending (node_list NULL).
pub fn allocation_response(job_id: u32) -> *mut resource_allocation_response_msg_t {
    let resp = c_calloc::<resource_allocation_response_msg_t>(1);
    if resp.is_null() {
        return resp;
    }
    // SAFETY: fresh allocation.
    let r = unsafe { &mut *resp };
    r.job_id = job_id;
    r.cpu_freq_min = NO_VAL;
    r.cpu_freq_max = NO_VAL;
    r.cpu_freq_gov = NO_VAL;
    r.ntasks_per_board = NO_VAL16;
    r.ntasks_per_core = NO_VAL16;
    r.ntasks_per_tres = NO_VAL16;
    r.ntasks_per_socket = NO_VAL16;
    r.pn_min_memory = NO_VAL64;
    if let Ok((jobs, _)) = crate::jobs::fetch_jobs() {
        if let Some(job) = jobs.iter().find(|j| j.job_id == job_id) {
            r.account = c_opt_string(job.spec.account.as_deref());
            r.partition = c_string(&job.partition);
            r.qos = c_opt_string(job.spec.qos.as_deref());
            if let Some(alloc) = job.alloc.as_ref().filter(|a| !a.node_names.is_empty()) {
                r.node_list = c_string(&spur_core::grammar::hostlist::compress(&alloc.node_names));
                r.batch_host = c_opt_string(alloc.node_names.first().map(String::as_str));
                r.node_cnt = alloc.node_names.len() as u32;
                let per_node = alloc.cpus / r.node_cnt.max(1);
                let cpus = c_calloc::<u16>(1);
                let reps = c_calloc::<u32>(1);
                if !cpus.is_null() && !reps.is_null() {
                    // SAFETY: fresh one-element allocations.
                    unsafe {
                        *cpus = u16::try_from(per_node).unwrap_or(u16::MAX);
                        *reps = r.node_cnt;
                    }
                    r.num_cpu_groups = 1;
                }
                r.cpus_per_node = cpus;
                r.cpu_count_reps = reps;
            }
        }
    }
    resp
}

/// # Safety
/// `job_desc_msg` is a valid description; `job_alloc_resp_msg` a valid slot.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_resources(
    job_desc_msg: *mut job_desc_msg_t,
    job_alloc_resp_msg: *mut *mut resource_allocation_response_msg_t,
) -> c_int {
    guard("slurm_allocate_resources", ffi::SLURM_ERROR, || {
        if job_alloc_resp_msg.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match submit_desc(job_desc_msg, false, true) {
            Ok(reply) => {
                let resp = allocation_response(reply.job_id);
                if resp.is_null() {
                    return CallError::new(libc::ENOMEM).fail();
                }
                // SAFETY: caller's slot checked non-NULL.
                unsafe { *job_alloc_resp_msg = resp };
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        }
    })
}

fn allocation_granted(job_id: u32) -> Result<Option<bool>, CallError> {
    let (jobs, _) = crate::jobs::fetch_jobs()?;
    Ok(jobs
        .iter()
        .find(|j| j.job_id == job_id)
        .map(|j| j.alloc.as_ref().is_some_and(|a| !a.node_names.is_empty()) && !j.is_finished()))
}

/// Submits an allocation and waits (up to `timeout` seconds; 0 waits forever) until nodes are granted.
///
/// # Safety
/// `user_req` is a valid description.
#[no_mangle]
pub unsafe extern "C" fn slurm_allocate_resources_blocking(
    user_req: *const job_desc_msg_t,
    timeout: time_t,
    pending_callback: Option<unsafe extern "C" fn(job_id: u32)>,
) -> *mut resource_allocation_response_msg_t {
    guard(
        "slurm_allocate_resources_blocking",
        std::ptr::null_mut(),
        || {
            let reply = match submit_desc(user_req, false, true) {
                Ok(r) => r,
                Err(e) => {
                    ffi::set_errno(e.errno);
                    return std::ptr::null_mut();
                }
            };
            match wait_for_grant(reply.job_id, timeout, pending_callback) {
                Ok(()) => allocation_response(reply.job_id),
                Err(errno) => {
                    ffi::set_errno(errno);
                    std::ptr::null_mut()
                }
            }
        },
    )
}

/// Waits (up to `timeout` seconds; 0 waits forever) until the job is granted its nodes, saying so on stderr as
/// libslurm does once it had to queue; a wait that times out cancels the request. `Err` is the errno to set.
pub(crate) fn wait_for_grant(
    job_id: u32,
    timeout: time_t,
    pending_callback: Option<unsafe extern "C" fn(job_id: u32)>,
) -> Result<(), c_int> {
    let started = std::time::Instant::now();
    let mut announced = false;
    loop {
        match allocation_granted(job_id) {
            Ok(Some(true)) => {
                if announced {
                    let name = program_name();
                    ffi::log_plain(&format!(
                        "{name}: job {} has been allocated resources",
                        job_id
                    ));
                }
                return Ok(());
            }
            Ok(Some(false)) => {}
            Ok(None) => return Err(spur_core::wire::api::SlurmErrno::InvalidJobId.code()),
            Err(e) => return Err(e.errno),
        }
        // slurmctld grants a free node within the request itself; Spur's scheduler answers a moment
        // later, so only a job still pending after that moment counts as queued (announced as libslurm).
        if !announced && started.elapsed() >= IMMEDIATE_GRANT {
            announced = true;
            let name = program_name();
            ffi::log_plain(&format!(
                "{name}: job {} queued and waiting for resources",
                job_id
            ));
            if let Some(cb) = pending_callback {
                // SAFETY: the caller supplied this callback for exactly this use.
                unsafe { cb(job_id) };
            }
        }
        if timeout > 0 && started.elapsed().as_secs() >= timeout as u64 {
            // Slurm revokes the request when the wait times out.
            let _ = client::control(&spur_core::wire::api::ControlRequest::Cancel {
                job: spur_core::wire::api::JobSelector {
                    job_id,
                    array_task: None,
                },
            });
            return Err(libc::ETIMEDOUT);
        }
        std::thread::sleep(std::time::Duration::from_millis(ALLOCATION_POLL_MS));
    }
}

/// # Safety
/// `msg` is NULL or a response from `slurm_allocate_resources*`.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_resource_allocation_response_msg(
    msg: *mut resource_allocation_response_msg_t,
) {
    guard("slurm_free_resource_allocation_response_msg", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract; node_addr/environment/select_jobinfo are never set here.
        unsafe {
            let r = &mut *msg;
            for p in [
                r.account,
                r.alias_list,
                r.batch_host,
                r.job_submit_user_msg,
                r.node_list,
                r.partition,
                r.qos,
                r.resv_name,
            ] {
                c_free(p);
            }
            c_free(r.cpus_per_node);
            c_free(r.cpu_count_reps);
            c_free(msg);
        }
    })
}
