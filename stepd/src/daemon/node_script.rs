//! slurm.conf's `Prolog` and `Epilog` on the batch node, run by the supervisor as root around the job, as slurmd
//! runs them: the prolog before anything of the job starts (a failure means the job never runs), the epilog after
//! the job ended and before its result is reported (the job shows COMPLETING meanwhile). Their output goes
//! nowhere and they start in `/`, with only the environment slurmd gives them.

use std::path::Path;
use std::process::{Command, Stdio};

use super::log::slog;
use spur_core::wire::supervisor::{JobResult, LaunchSpec, NodeScripts};

/// Runs the prolog, if any; `Err` says why the job must not start.
pub(crate) fn run_prolog(spec: &LaunchSpec) -> Result<(), String> {
    spec.node_scripts.as_ref().map_or(Ok(()), prolog)
}

/// Runs the epilog, if any, with the job's exit code; a failure is logged and recorded in the result (Slurm drains
/// the node then).
pub(crate) fn run_epilog(spec: &LaunchSpec, mut result: JobResult) -> JobResult {
    let Some(scripts) = &spec.node_scripts else {
        return result;
    };
    let (code, signal) = result.exit_code_pair();
    let raw = result.wait_status.unwrap_or((code << 8) | signal);
    let wide = |v: i32| i64::from(v);
    if let Err(message) = epilog(scripts, wide(raw), wide(code), wide(signal)) {
        slog!("job {} epilog failed: {message}", spec.job_id);
        result.epilog_failed = true;
    }
    result
}

/// The prolog of `scripts`, if it has one, as root with slurmd's environment (also for the job's other nodes,
/// where the agent runs it before the job's first step there).
pub fn prolog(scripts: &NodeScripts) -> Result<(), String> {
    let Some(prolog) = &scripts.prolog else {
        return Ok(());
    };
    run(
        prolog,
        scripts,
        &[("SLURM_SCRIPT_CONTEXT", "prolog_slurmd".to_string())],
    )
}

/// The epilog of `scripts`, if it has one, with the job's wait status and exit code (also for the job's other
/// nodes, where the agent runs it when the job ends).
pub fn epilog(
    scripts: &NodeScripts,
    wait_status: i64,
    code: i64,
    signal: i64,
) -> Result<(), String> {
    let Some(epilog) = &scripts.epilog else {
        return Ok(());
    };
    let extra = [
        ("SLURM_SCRIPT_CONTEXT", "epilog_slurmd".to_string()),
        ("SLURM_JOB_EXIT_CODE", wait_status.to_string()),
        ("SLURM_JOB_EXIT_CODE2", format!("{code}:{signal}")),
        ("SLURM_JOB_DERIVED_EC", "0".to_string()),
    ];
    run(epilog, scripts, &extra)
}

/// Runs the TaskEpilog, if any, as the job's user with the job's environment, after the batch script ended;
/// its output is discarded, as slurmstepd does.
pub(crate) fn run_task_epilog(spec: &LaunchSpec) {
    let Some(epilog) = spec
        .node_scripts
        .as_ref()
        .and_then(|s| s.task_epilog.as_ref())
    else {
        return;
    };
    let mut command = Command::new(epilog);
    command
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .env("SLURM_SCRIPT_CONTEXT", "epilog_task")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if nix::unistd::geteuid().is_root() {
        let identity = crate::task_launch::TaskIdentity {
            uid: spec.uid,
            gid: spec.gid,
            groups: spec.supplementary_gids.clone(),
        };
        crate::task_script::run_as(&mut command, &identity);
        crate::task_script::chdir_as_user(&mut command, &spec.work_dir);
    } else {
        command.current_dir(&spec.work_dir);
    }
    match command.status() {
        Ok(status) if !status.success() => {
            slog!("job {} task epilog ended with {status}", spec.job_id)
        }
        Ok(_) => {}
        Err(e) => slog!("job {} cannot run task epilog: {e}", spec.job_id),
    }
}

fn run(script: &Path, scripts: &NodeScripts, extra: &[(&str, String)]) -> Result<(), String> {
    let status = Command::new(script)
        .env_clear()
        .envs(scripts.env.iter().map(|(k, v)| (k, v)))
        .envs(extra.iter().map(|(k, v)| (k, v)))
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} ended with {status}", script.display()))
    }
}
