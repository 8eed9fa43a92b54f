//! The lines slurmstepd writes into a job's stderr, reproduced so that job output looks the same under Spur.
//!
//! Texts were checked against Slurm 22.05.8's slurmstepd (Debian build) running real jobs: its log prefix
//! carries the node name (`slurmstepd-vm: error: ...`), as in the reference capture
//! `outputs/B0-timeout-job.txt`.

use std::path::Path;

use spur_core::wire::supervisor::TerminateReason;

/// `slurmstepd-<host>: error: ` — the prefix of every error line.
fn prefix(hostname: &str) -> String {
    format!("slurmstepd-{hostname}: error: ")
}

/// The line written when a job is terminated, e.g.
/// `slurmstepd-vm: error: *** JOB 41 ON vm CANCELLED AT 2026-11-30T14:59:34 DUE TO TIME LIMIT ***`.
pub fn terminate_line(
    hostname: &str,
    job_id: u32,
    node_name: &str,
    reason: TerminateReason,
    when: &str,
) -> String {
    let due = match reason {
        TerminateReason::Cancelled => "",
        TerminateReason::TimeLimit => " DUE TO TIME LIMIT",
        TerminateReason::Preempted => " DUE TO PREEMPTION",
        TerminateReason::NodeFail => " DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS",
        TerminateReason::Requeued => " DUE TO JOB REQUEUE",
    };
    format!(
        "{}*** JOB {job_id} ON {node_name} CANCELLED AT {when}{due} ***\n",
        prefix(hostname)
    )
}

/// `scontrol notify JOB MESSAGE`: the message as slurmstepd writes it into a batch job's stderr.
pub fn notify_line(hostname: &str, message: &str) -> String {
    format!("{}{message}\n", prefix(hostname))
}

/// Written when the work directory is unusable and the job runs in /tmp instead.
pub fn chdir_fallback_line(hostname: &str, dir: &Path, err: &str) -> String {
    format!(
        "{}couldn't chdir to `{}': {err}: going to /tmp instead\n",
        prefix(hostname),
        dir.display()
    )
}

/// Written when even /tmp cannot be entered; the job does not start.
pub fn chdir_tmp_failed_line(hostname: &str) -> String {
    format!(
        "{}couldn't chdir to /tmp either. dying.\n",
        prefix(hostname)
    )
}

/// Written when the script cannot be executed.
pub fn execve_line(hostname: &str, script: &Path, err: &str) -> String {
    format!(
        "{}execve(): {}: {err}\n",
        prefix(hostname),
        script.display()
    )
}

/// Launch failure text for a stdout file that cannot be opened (Slurm logs it and fails the launch).
pub fn open_stdout_failed(path: &Path, err: &str) -> String {
    format!("Could not open stdout file {}: {err}", path.display())
}

/// Launch failure text for a stderr file that cannot be opened.
pub fn open_stderr_failed(path: &Path, err: &str) -> String {
    format!("Could not open stderr file {}: {err}", path.display())
}

/// Launch failure text for a stdin file that cannot be opened.
pub fn open_stdin_failed(path: &Path, err: &str) -> String {
    format!("Could not open stdin file {}: {err}", path.display())
}

/// Formats seconds since the epoch as local time `YYYY-MM-DDTHH:MM:SS`, the way Slurm prints times.
/// `None` only if the C library cannot convert the value.
pub fn format_local_time(epoch_secs: i64) -> Option<String> {
    let t: libc::time_t = epoch_secs;
    // SAFETY: an all-zero `tm` is a valid value, and localtime_r only writes into the buffer we own.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the duration of the call; localtime_r is thread-safe.
    let res = unsafe { libc::localtime_r(&t, &mut tm) };
    if res.is_null() {
        return None;
    }
    Some(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        i64::from(tm.tm_year) + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limit_line_matches_reference_capture() {
        // outputs/B0-timeout-job.txt
        assert_eq!(
            terminate_line("vm", 41, "vm", TerminateReason::TimeLimit, "2026-11-30T14:59:34"),
            "slurmstepd-vm: error: *** JOB 41 ON vm CANCELLED AT 2026-11-30T14:59:34 DUE TO TIME LIMIT ***\n"
        );
    }

    #[test]
    fn cancel_line_has_no_reason() {
        assert_eq!(
            terminate_line(
                "h",
                7,
                "n1",
                TerminateReason::Cancelled,
                "2026-01-02T03:04:05"
            ),
            "slurmstepd-h: error: *** JOB 7 ON n1 CANCELLED AT 2026-01-02T03:04:05 ***\n"
        );
    }

    #[test]
    fn other_reasons() {
        let t = "2026-01-02T03:04:05";
        assert!(terminate_line("h", 1, "n", TerminateReason::Preempted, t)
            .ends_with(" CANCELLED AT 2026-01-02T03:04:05 DUE TO PREEMPTION ***\n"));
        assert!(terminate_line("h", 1, "n", TerminateReason::NodeFail, t)
            .ends_with(" DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***\n"));
        assert!(terminate_line("h", 1, "n", TerminateReason::Requeued, t)
            .ends_with(" DUE TO JOB REQUEUE ***\n"));
    }

    #[test]
    fn chdir_and_exec_lines() {
        assert_eq!(
            chdir_fallback_line("vm", Path::new("/nope"), "No such file or directory"),
            "slurmstepd-vm: error: couldn't chdir to `/nope': No such file or directory: going to /tmp instead\n"
        );
        assert_eq!(
            chdir_tmp_failed_line("vm"),
            "slurmstepd-vm: error: couldn't chdir to /tmp either. dying.\n"
        );
        assert_eq!(
            execve_line("vm", Path::new("/s"), "Permission denied"),
            "slurmstepd-vm: error: execve(): /s: Permission denied\n"
        );
        assert_eq!(
            open_stdout_failed(Path::new("/o"), "Permission denied"),
            "Could not open stdout file /o: Permission denied"
        );
        assert_eq!(
            open_stderr_failed(Path::new("/e"), "Permission denied"),
            "Could not open stderr file /e: Permission denied"
        );
        assert_eq!(
            open_stdin_failed(Path::new("/i"), "No such file or directory"),
            "Could not open stdin file /i: No such file or directory"
        );
    }

    #[test]
    fn local_time_agrees_with_date_command() {
        for secs in [0_i64, 1_796_000_374, 1_700_000_000] {
            let ours = format_local_time(secs).unwrap();
            let out = std::process::Command::new("date")
                .arg("-d")
                .arg(format!("@{secs}"))
                .arg("+%Y-%m-%dT%H:%M:%S")
                .output()
                .unwrap();
            assert_eq!(
                ours,
                String::from_utf8(out.stdout).unwrap().trim(),
                "epoch {secs}"
            );
        }
    }

    #[test]
    fn notify_line_is_slurmstepds_error_line() {
        assert_eq!(
            notify_line("vm", "hello there"),
            "slurmstepd-vm: error: hello there\n"
        );
    }
}
