//! Job steps and processes: `slurm_get_job_steps` reports the running steps the controller knows (srun's and each
//! batch job's batch step, the same list squeue `-s` prints), and
//! `slurm_pid2jobid` finds a process's job from the environment Spur gives every step process (`SLURM_JOB_ID`),
//! walking up the process tree as slurmd's own lookup covers a step's children.

use std::ffi::c_int;

use slurm_headers::{job_step_info_response_msg_t, job_step_info_t, time_t};
use spur_core::format::steps::{running_steps, StepView};
use spur_core::model::job::JobRecord;

use crate::ffi::{self, c_calloc_msg, c_free, c_opt_string, c_string, guard, NO_VAL};

/// How many ancestors `job_of_process` inspects before giving up (a bound on the walk, deep trees are rare).
const ANCESTORS_MAX: usize = 64;

fn environ_job_id(pid: i32) -> Option<u32> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ.split(|&b| b == 0).find_map(|var| {
        let text = std::str::from_utf8(var).ok()?;
        text.strip_prefix("SLURM_JOB_ID=")
            .or_else(|| text.strip_prefix("SLURM_JOBID="))
            .and_then(|v| v.parse().ok())
    })
}

fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may contain spaces and parentheses; the fields after its last ')' are fixed.
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// The job `pid` (or its nearest ancestor with a job) belongs to.
pub fn job_of_process(pid: i32) -> Option<u32> {
    let mut pid = pid;
    for _ in 0..ANCESTORS_MAX {
        if pid <= 1 {
            return None;
        }
        if let Some(id) = environ_job_id(pid) {
            return Some(id);
        }
        pid = parent_of(pid)?;
    }
    None
}

/// `SLURM_BATCH_SCRIPT`: the step id of a job's batch shell.
const SLURM_BATCH_SCRIPT: u32 = 0xffff_fffb;
/// `SLURM_EXTERN_CONT`: the step id of a job's extern step.
const SLURM_EXTERN_CONT: u32 = 0xffff_fffc;
/// `NO_VAL` as a step id selects every step.
const ALL_STEPS: u32 = NO_VAL;

/// The running steps of the selected jobs (every job for `NO_VAL`), and of them the one asked for.
pub(crate) fn selected_steps(jobs: &[JobRecord], job_id: u32, step_id: u32) -> Vec<StepView<'_>> {
    running_steps(jobs)
        .into_iter()
        .filter(|s| {
            job_id == NO_VAL || s.job.job_id == job_id || s.job.array_job_id == Some(job_id)
        })
        .filter(|s| step_id == ALL_STEPS || raw_step_id(s) == step_id)
        .collect()
}

/// The step's id in Slurm's numbering: the batch and extern steps have reserved ids.
fn raw_step_id(step: &StepView<'_>) -> u32 {
    match step.step_id {
        Some(id) => id,
        None if step.name == spur_core::format::steps::EXTERN_STEP_NAME => SLURM_EXTERN_CONT,
        None => SLURM_BATCH_SCRIPT,
    }
}

fn fill_step(out: &mut job_step_info_t, step: &StepView<'_>, now: i64) {
    let job = step.job;
    out.array_job_id = job.array_job_id.unwrap_or(0);
    out.array_task_id = job.array_task_id.unwrap_or(NO_VAL);
    out.name = c_string(step.name);
    out.nodes = c_opt_string(Some(&*step.node_list).filter(|n| !n.is_empty()));
    // slurmctld reports no CPUs, TRES or srun for a batch step.
    out.num_cpus = step.num_cpus;
    out.num_tasks = step.num_tasks;
    out.partition = c_string(&job.partition);
    out.run_time = (now - step.start_time).max(0);
    out.start_time = step.start_time;
    out.state = spur_core::model::states::JobBaseState::Running.as_raw();
    out.step_id.job_id = job.job_id;
    out.step_id.step_id = raw_step_id(step);
    out.step_id.step_het_comp = NO_VAL;
    out.time_limit = step.time_limit_min.unwrap_or(ffi::INFINITE);
    out.user_id = job.spec.user_id;
    if let Some((host, pid)) = step.srun {
        out.srun_host = c_string(host);
        out.srun_pid = pid;
        let mem = job.alloc.as_ref().map_or(0, |a| a.mem_mb);
        out.tres_alloc_str = c_string(&format!(
            "cpu={},mem={},node={}",
            step.num_cpus,
            spur_core::format::units::mem_mb(mem),
            step.num_nodes
        ));
    }
}

/// # Safety
/// The strings are NULL or malloc'd and owned by this record.
pub(crate) unsafe fn free_step_fields(s: &mut job_step_info_t) {
    // SAFETY: the caller's contract.
    unsafe {
        for p in [
            s.cluster,
            s.container,
            s.cpus_per_tres,
            s.mem_per_tres,
            s.name,
            s.network,
            s.nodes,
            s.partition,
            s.resv_ports,
            s.srun_host,
            s.submit_line,
            s.tres_alloc_str,
            s.tres_bind,
            s.tres_freq,
            s.tres_per_step,
            s.tres_per_node,
            s.tres_per_socket,
            s.tres_per_task,
        ] {
            c_free(p);
        }
        c_free(s.node_inx);
    }
}

/// # Safety
/// `step_response_pptr` is a valid slot for the result.
#[no_mangle]
pub unsafe extern "C" fn slurm_get_job_steps(
    _update_time: time_t,
    job_id: u32,
    step_id: u32,
    step_response_pptr: *mut *mut job_step_info_response_msg_t,
    _show_flags: u16,
) -> c_int {
    guard("slurm_get_job_steps", ffi::SLURM_ERROR, || {
        if step_response_pptr.is_null() {
            return crate::client::CallError::new(libc::EINVAL).fail();
        }
        let (jobs, now) = match crate::jobs::fetch_jobs() {
            Ok(r) => r,
            Err(e) => return e.fail(),
        };
        let steps = selected_steps(&jobs, job_id, step_id);
        let Some((msg, array)) =
            c_calloc_msg::<job_step_info_response_msg_t, job_step_info_t>(steps.len())
        else {
            return crate::client::CallError::new(libc::ENOMEM).fail();
        };
        // SAFETY: `array` holds steps.len() zeroed records; the slot is non-NULL.
        unsafe {
            for (i, step) in steps.iter().enumerate() {
                fill_step(&mut *array.add(i), step, now);
            }
            (*msg).last_update = now;
            (*msg).job_step_count = steps.len() as u32;
            (*msg).job_steps = array;
            *step_response_pptr = msg;
        }
        ffi::SLURM_SUCCESS
    })
}

/// # Safety
/// `msg` is NULL or a message from `slurm_get_job_steps`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn slurm_free_job_step_info_response_msg(
    msg: *mut job_step_info_response_msg_t,
) {
    guard("slurm_free_job_step_info_response_msg", (), || {
        if msg.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe {
            let m = &mut *msg;
            if !m.job_steps.is_null() {
                for i in 0..m.job_step_count as usize {
                    free_step_fields(&mut *m.job_steps.add(i));
                }
                c_free(m.job_steps);
            }
            c_free(msg);
        }
    })
}

/// `48.batch`, `48.extern`, `48.3`, with `12_4` for an array task, as scontrol names steps.
fn step_text(s: &job_step_info_t) -> String {
    let job = if s.array_task_id != NO_VAL {
        format!("{}_{}", s.array_job_id, s.array_task_id)
    } else {
        s.step_id.job_id.to_string()
    };
    let step = match s.step_id.step_id {
        SLURM_BATCH_SCRIPT => "batch".to_string(),
        SLURM_EXTERN_CONT => "extern".to_string(),
        n => n.to_string(),
    };
    format!("{job}.{step}")
}

/// One step as `scontrol show step` prints it (multi-line, or one line).
///
/// # Safety
/// `s`'s strings are NULL or valid.
unsafe fn render_step(s: &job_step_info_t, one_liner: bool) -> String {
    let text = |p: *mut std::ffi::c_char| {
        // SAFETY: `p` is one of `s`'s strings, NULL or valid: the caller's contract.
        unsafe { crate::ffi::opt_str(p) }.map_or("(null)".to_string(), |c| c.into_owned())
    };
    let offset = crate::print::local_utc_offset();
    let limit = (s.time_limit != ffi::INFINITE).then_some(s.time_limit);
    // SAFETY: the caller's contract.
    let nodes = unsafe { crate::ffi::opt_str(s.nodes) }
        .and_then(|n| spur_core::grammar::hostlist::expand(&n).ok())
        .map_or(0, |n| n.len());
    let state = spur_core::model::states::JobBaseState::from_raw(s.state)
        .map_or("UNKNOWN", |b| b.long_name());
    let lines = [
        format!(
            "StepId={} UserId={} StartTime={} TimeLimit={}",
            step_text(s),
            s.user_id,
            spur_core::format::time::iso(s.start_time, offset),
            spur_core::format::time::long_minutes(limit)
        ),
        format!(
            "State={state} Partition={} NodeList={}",
            text(s.partition),
            text(s.nodes)
        ),
        format!(
            "Nodes={nodes} CPUs={} Tasks={} Name={} Network={}",
            s.num_cpus,
            s.num_tasks,
            text(s.name),
            text(s.network)
        ),
        format!("TRES={}", text(s.tres_alloc_str)),
        format!("ResvPorts={}", text(s.resv_ports)),
        "CPUFreqReq=Default".to_string(),
        format!("SrunHost:Pid={}:{}", text(s.srun_host), s.srun_pid),
    ];
    if one_liner {
        format!("{}\n", lines.join(" "))
    } else {
        format!("{}\n\n", lines.join("\n   "))
    }
}

/// # Safety
/// `out` is a writable `FILE *`.
unsafe fn write(out: *mut slurm_headers::FILE, text: &str) {
    if out.is_null() {
        return;
    }
    if let Ok(c) = std::ffi::CString::new(text) {
        // SAFETY: the caller's open FILE; `c` is NUL-terminated.
        unsafe { libc::fputs(c.as_ptr(), out as *mut libc::FILE) };
    }
}

/// # Safety
/// `out` is a writable `FILE *`; `job_step_info_msg_ptr` NULL or a message from `slurm_get_job_steps`.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_step_info_msg(
    out: *mut slurm_headers::FILE,
    job_step_info_msg_ptr: *mut job_step_info_response_msg_t,
    one_liner: c_int,
) {
    guard("slurm_print_job_step_info_msg", (), || {
        if job_step_info_msg_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        let m = unsafe { &*job_step_info_msg_ptr };
        let when = spur_core::format::time::iso(m.last_update, crate::print::local_utc_offset());
        let mut text = format!(
            "Job step data as of {when}, record count {}\n",
            m.job_step_count
        );
        for i in 0..m.job_step_count as usize {
            // SAFETY: the message's array holds job_step_count records.
            text.push_str(&unsafe { render_step(&*m.job_steps.add(i), one_liner != 0) });
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &text) };
    })
}

/// # Safety
/// `out` is a writable `FILE *`; `job_step_ptr` NULL or a valid step record.
#[no_mangle]
pub unsafe extern "C" fn slurm_print_job_step_info(
    out: *mut slurm_headers::FILE,
    job_step_ptr: *mut job_step_info_t,
    one_liner: c_int,
) {
    guard("slurm_print_job_step_info", (), || {
        if job_step_ptr.is_null() {
            return;
        }
        // SAFETY: the caller's contract.
        unsafe { write(out, &render_step(&*job_step_ptr, one_liner != 0)) };
    })
}

/// The text `slurm_print_job_step_info` prints, malloc'd (the caller frees it).
///
/// # Safety
/// `job_step_ptr` is NULL or a valid step record.
#[no_mangle]
pub unsafe extern "C" fn slurm_sprint_job_step_info(
    job_step_ptr: *mut job_step_info_t,
    one_liner: c_int,
) -> *mut std::ffi::c_char {
    guard("slurm_sprint_job_step_info", std::ptr::null_mut(), || {
        if job_step_ptr.is_null() {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's contract.
        c_string(&unsafe { render_step(&*job_step_ptr, one_liner != 0) })
    })
}
