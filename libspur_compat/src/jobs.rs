//! Job information: `slurm_load_jobs` and friends fill Slurm's `job_info_t` array from the controller's job
//! records (through spur-core's `JobView`, the same derivations squeue and scontrol print), and
//! `slurm_free_job_info_msg` releases exactly what they allocated.

use std::ffi::{c_int, c_long};

use slurm_headers::{job_info_msg_t, job_info_t, time_t};
use spur_core::format::job_view::JobView;
use spur_core::model::job::JobRecord;
use spur_core::wire::api::{JobList, JobListing, SlurmErrno};

use crate::client::{self, CallError};
use crate::ffi::{self, c_calloc_msg, c_free, c_opt_string, c_string, guard, INFINITE, NO_VAL};

/// `SHOW_LOCAL`: libslurm marks every answer of a cluster outside a federation with it.
const SHOW_LOCAL: u16 = 0x10;
/// `SHOW_DETAIL`: include the per-node CPU layout (`job_resrcs`).
const SHOW_DETAIL: u16 = 0x2;

/// Every job the controller knows, in submission order, and the time of the answer: listing records, without
/// batch scripts and environments (no `job_info_t` field shows them).
pub fn fetch_jobs() -> Result<(Vec<JobRecord>, i64), CallError> {
    let JobList { jobs, now } = client::job_list(JobListing::default())?;
    Ok((jobs, now))
}

/// The job `job_id` names: the job itself, an array's tasks when it is an array master id, or every component
/// of a heterogeneous job when it is the leader's id.
pub fn jobs_matching(jobs: Vec<JobRecord>, job_id: u32) -> Vec<JobRecord> {
    jobs.into_iter()
        .filter(|j| {
            j.job_id == job_id
                || j.array_job_id == Some(job_id)
                || j.het.as_ref().is_some_and(|h| h.job_id == job_id)
        })
        .collect()
}

fn memory_field(view: &JobView) -> u64 {
    match view.min_memory() {
        (mb, "CPU") => mb | ffi::MEM_PER_CPU,
        (mb, _) => mb,
    }
}

/// One job record in Slurm's layout; every string is malloc'd and released by [`free_job_fields`].
pub fn fill_job(out: &mut job_info_t, job: &JobRecord, cluster: &str, show_flags: u16) {
    let view = JobView::single(job);
    let spec = &job.spec;
    out.account = c_opt_string(spec.account.as_deref());
    out.accrue_time = job.accrue_time.unwrap_or(0);
    out.alloc_node = c_string(&spec.submit_host);
    out.alloc_sid = job.alloc_sid;
    out.array_job_id = job.array_job_id.unwrap_or(0);
    out.array_task_id = job.array_task_id.unwrap_or(NO_VAL);
    if let Some(het) = &job.het {
        out.het_job_id = het.job_id;
        out.het_job_offset = het.offset;
        out.het_job_id_set = c_string(&het.id_set());
    }
    out.batch_flag = u16::from(view.batch_flag());
    out.batch_host = c_opt_string(view.batch_host());
    out.cluster = c_string(cluster);
    out.command = c_opt_string(spec.command.as_deref());
    out.comment = c_opt_string(spec.comment.as_deref());
    out.contiguous = 0;
    out.core_spec = ffi::NO_VAL16;
    out.cores_per_socket = ffi::NO_VAL16;
    out.cpus_per_task = u16::try_from(view.cpus_per_task()).unwrap_or(ffi::NO_VAL16);
    out.cpu_freq_min = NO_VAL;
    out.cpu_freq_max = NO_VAL;
    out.cpu_freq_gov = NO_VAL;
    out.deadline = spec.deadline.unwrap_or(0);
    out.dependency = c_opt_string(view.dependency().as_deref());
    out.eligible_time = job.eligible_time.unwrap_or(0);
    out.end_time = view.end_time().unwrap_or(0);
    out.exc_nodes = c_opt_string(spec.excluded_nodes.as_deref());
    out.exit_code = view.exit_raw();
    out.features = c_opt_string(spec.constraint.as_deref());
    out.gres_total = c_opt_string(spec.gres_text.as_deref());
    out.group_id = spec.group_id;
    out.job_id = job.job_id;
    out.job_state = job.full_state().to_raw();
    out.last_sched_eval = job.last_sched_eval.unwrap_or(0);
    out.max_cpus = 0;
    out.max_nodes = spec.nodes_max.unwrap_or(0);
    out.name = c_string(&spec.name);
    out.nodes = c_opt_string(Some(view.node_list()).filter(|s| !s.is_empty()).as_deref());
    // Slurm stores nice offset by NICE_OFFSET so it stays unsigned.
    out.nice = (i64::from(spec.nice) + 0x8000_0000) as u32;
    out.ntasks_per_core = ffi::INFINITE16;
    out.ntasks_per_tres = 0;
    out.ntasks_per_node = spec
        .ntasks_per_node
        .and_then(|n| u16::try_from(n).ok())
        .unwrap_or(0);
    out.ntasks_per_socket = ffi::INFINITE16;
    out.ntasks_per_board = 0;
    out.num_cpus = view.num_cpus();
    out.num_nodes = view.num_nodes();
    out.num_tasks = view.num_tasks().unwrap_or(NO_VAL);
    out.partition = c_string(&job.partition);
    out.pn_min_memory = memory_field(&view);
    out.pn_min_cpus = u16::try_from(view.min_cpus_per_node()).unwrap_or(ffi::NO_VAL16);
    out.pn_min_tmp_disk = u32::try_from(spec.tmp_disk_mb).unwrap_or(NO_VAL);
    out.priority = job.priority;
    out.qos = c_opt_string(spec.qos.as_deref());
    out.req_nodes = c_opt_string(spec.required_nodes.as_deref());
    out.requeue = u16::from(spec.requeue);
    out.restart_cnt = u16::try_from(job.restarts).unwrap_or(u16::MAX);
    out.sched_nodes = c_opt_string(job.sched_nodes.as_deref());
    out.shared = if spec.exclusive { 0 } else { ffi::NO_VAL16 };
    out.sockets_per_node = ffi::NO_VAL16;
    out.start_time = job.start_time.unwrap_or(0);
    out.state_desc = c_opt_string(job.state_desc.as_deref());
    out.state_reason = job.reason.as_raw() as u16;
    // The patterns as submitted, as slurmctld stores them (`slurm_get_job_stdout` expands them).
    out.std_err = c_opt_string(spec.stderr.as_deref());
    out.std_in = c_opt_string(
        spec.stdin
            .as_deref()
            .or(view.batch_flag().then_some("/dev/null")),
    );
    out.std_out = c_opt_string(spec.stdout.as_deref());
    out.submit_time = job.submit_time;
    out.threads_per_core = ffi::NO_VAL16;
    out.time_limit = job.time_limit_min.unwrap_or(INFINITE);
    out.time_min = spec.time_min_min.unwrap_or(0);
    out.tres_req_str = c_string(&view.tres_req());
    out.tres_alloc_str = c_opt_string(view.tres_alloc().as_deref());
    out.user_id = spec.user_id;
    // slurmctld 22.05 leaves user_name unset in job info (clients resolve user_id); so does the shim.
    out.user_name = std::ptr::null_mut();
    // Mail goes to the submitting user unless --mail-user names someone.
    out.mail_user = c_opt_string(Some(spec.user_name.as_str()).filter(|s| !s.is_empty()));
    out.site_factor = 0x8000_0000;
    out.billable_tres = if view.is_pending() {
        f64::from(NO_VAL)
    } else {
        f64::from(view.num_cpus())
    };
    out.show_flags = show_flags | SHOW_LOCAL;
    if show_flags & SHOW_DETAIL != 0 {
        out.job_resrcs = crate::resources::of(job);
    }
    out.wait4switch = 0;
    out.work_dir = c_string(&spec.work_dir);
}

/// Frees every string field of a `job_info_t` (unset ones are NULL, which `free` accepts).
///
/// # Safety
/// The strings are NULL or malloc'd and owned by this record.
pub unsafe fn free_job_fields(j: &mut job_info_t) {
    // SAFETY: the caller's contract; each pointer is freed once.
    unsafe {
        for p in [
            j.account,
            j.admin_comment,
            j.alloc_node,
            j.array_task_str,
            j.batch_features,
            j.batch_host,
            j.burst_buffer,
            j.burst_buffer_state,
            j.cluster,
            j.cluster_features,
            j.command,
            j.comment,
            j.container,
            j.cpus_per_tres,
            j.cronspec,
            j.dependency,
            j.exc_nodes,
            j.features,
            j.fed_origin_str,
            j.fed_siblings_active_str,
            j.fed_siblings_viable_str,
            j.gres_total,
            j.het_job_id_set,
            j.licenses,
            j.mail_user,
            j.mcs_label,
            j.mem_per_tres,
            j.name,
            j.network,
            j.nodes,
            j.partition,
            j.prefer,
            j.qos,
            j.req_nodes,
            j.resv_name,
            j.sched_nodes,
            j.selinux_context,
            j.state_desc,
            j.std_err,
            j.std_in,
            j.std_out,
            j.system_comment,
            j.tres_bind,
            j.tres_freq,
            j.tres_per_job,
            j.tres_per_node,
            j.tres_per_socket,
            j.tres_per_task,
            j.tres_req_str,
            j.tres_alloc_str,
            j.user_name,
            j.wckey,
            j.work_dir,
        ] {
            c_free(p);
        }
        crate::resources::free(j.job_resrcs);
        crate::job_node_inx::free(j);
    }
}

/// Builds a malloc'd `job_info_msg_t` holding `jobs`; the records are kept (not copied) for the print helpers.
pub fn job_info_msg(jobs: Vec<JobRecord>, now: i64, show_flags: u16) -> *mut job_info_msg_t {
    let cluster = client::cluster_name();
    let Some((msg, array)) = c_calloc_msg::<job_info_msg_t, job_info_t>(jobs.len()) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `array` holds jobs.len() (at least one) zeroed records; `msg` one.
    unsafe {
        for (i, job) in jobs.iter().enumerate() {
            fill_job(&mut *array.add(i), job, &cluster, show_flags);
        }
        crate::job_node_inx::fill(array, &jobs);
        (*msg).last_update = now;
        (*msg).last_backfill = now;
        (*msg).record_count = jobs.len() as u32;
        (*msg).job_array = array;
    }
    crate::print::remember(array, jobs.len(), crate::print::Records::Jobs(jobs), now);
    msg
}

/// Stores a new message in `*out`, or sets errno and returns SLURM_ERROR.
fn deliver(
    out: *mut *mut job_info_msg_t,
    jobs: Result<(Vec<JobRecord>, i64), CallError>,
    show_flags: u16,
) -> c_int {
    ffi::deliver_message(out, jobs, |(jobs, now)| job_info_msg(jobs, now, show_flags))
}

/// # Safety
/// `job_info_msg_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_jobs(
    _update_time: time_t,
    job_info_msg_pptr: *mut *mut job_info_msg_t,
    show_flags: u16,
) -> c_int {
    guard("slurm_load_jobs", ffi::SLURM_ERROR, || {
        deliver(job_info_msg_pptr, fetch_jobs(), show_flags)
    })
}

/// # Safety
/// `resp` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job(
    resp: *mut *mut job_info_msg_t,
    job_id: u32,
    show_flags: u16,
) -> c_int {
    guard("slurm_load_job", ffi::SLURM_ERROR, || {
        let jobs = fetch_jobs().and_then(|(jobs, now)| {
            let found = jobs_matching(jobs, job_id);
            if found.is_empty() {
                Err(CallError::new(SlurmErrno::InvalidJobId.code()))
            } else {
                Ok((found, now))
            }
        });
        match deliver(resp, jobs, show_flags) {
            // libslurm returns the controller's code itself for an unknown job (errno is set too).
            ffi::SLURM_ERROR if ffi::errno() == SlurmErrno::InvalidJobId.code() => ffi::errno(),
            rc => rc,
        }
    })
}

/// # Safety
/// `job_info_msg_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_load_job_user(
    job_info_msg_pptr: *mut *mut job_info_msg_t,
    user_id: u32,
    show_flags: u16,
) -> c_int {
    guard("slurm_load_job_user", ffi::SLURM_ERROR, || {
        let jobs = fetch_jobs().map(|(jobs, now)| {
            (
                jobs.into_iter()
                    .filter(|j| j.spec.user_id == user_id)
                    .collect(),
                now,
            )
        });
        deliver(job_info_msg_pptr, jobs, show_flags)
    })
}

/// # Safety
/// `job_buffer_ptr` is NULL or a message from `slurm_load_job*`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_info_msg(job_buffer_ptr: *mut job_info_msg_t) {
    guard("slurm_free_job_info_msg", (), || {
        if job_buffer_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract: a message this library built.
        unsafe {
            let msg = &mut *job_buffer_ptr;
            if !msg.job_array.is_null() {
                for i in 0..msg.record_count as usize {
                    free_job_fields(&mut *msg.job_array.add(i));
                }
                crate::print::forget(msg.job_array);
                c_free(msg.job_array);
            }
            c_free(job_buffer_ptr);
        }
    })
}

fn one_job(job_id: u32) -> Result<(JobRecord, i64), CallError> {
    let (jobs, now) = fetch_jobs()?;
    jobs.into_iter()
        .find(|j| j.job_id == job_id)
        .map(|j| (j, now))
        .ok_or(CallError::new(SlurmErrno::InvalidJobId.code()))
}

/// # Safety
/// `end_time_ptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_end_time(jobid: u32, end_time_ptr: *mut time_t) -> c_int {
    guard("slurm_get_end_time", ffi::SLURM_ERROR, || {
        if end_time_ptr.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match one_job(jobid) {
            Ok((job, _)) => {
                // SAFETY: non-NULL slot owned by the caller.
                unsafe { *end_time_ptr = JobView::single(&job).end_time().unwrap_or(0) };
                ffi::SLURM_SUCCESS
            }
            Err(e) => e.fail(),
        }
    })
}

/// Seconds until the job's end (0 once past it), or -1 with errno set.
#[no_mangle]
pub extern "C" fn slurm_get_rem_time(jobid: u32) -> c_long {
    guard("slurm_get_rem_time", -1, || match one_job(jobid) {
        Ok((job, now)) => match JobView::single(&job).end_time() {
            Some(end) => (end - now).max(0) as c_long,
            None => 0,
        },
        Err(e) => {
            ffi::set_errno(e.errno);
            -1
        }
    })
}

/// The job a process belongs to: Spur's step processes carry `SLURM_JOB_ID` in their environment, so the
/// process and its ancestors are searched for it (Slurm asks the local slurmd, which keeps the same mapping).
///
/// # Safety
/// `job_id_ptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_pid2jobid(job_pid: libc::pid_t, job_id_ptr: *mut u32) -> c_int {
    guard("slurm_pid2jobid", ffi::SLURM_ERROR, || {
        if job_id_ptr.is_null() {
            return CallError::new(libc::EINVAL).fail();
        }
        match crate::steps::job_of_process(job_pid) {
            Some(id) => {
                // SAFETY: non-NULL slot owned by the caller.
                unsafe { *job_id_ptr = id };
                ffi::SLURM_SUCCESS
            }
            None => CallError::new(SlurmErrno::InvalidJobId.code()).fail(),
        }
    })
}
