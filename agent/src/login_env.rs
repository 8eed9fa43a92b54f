//! The user's login environment, for jobs submitted with `--export=NONE`, a variable list, or `--get-user-env`
//! (sbatch marks them `SLURM_GET_USER_ENV=1`). As slurmd does, the node runs a login shell for the user, reads its
//! environment, and lays the job's own variables over it; when that fails the job runs with what it brought.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::users::UserInfo;

/// slurm.conf's `GetEnvTimeout` default: how long a login shell may take to print its environment.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// Printed before the environment, so whatever the login scripts print first (a motd, a banner) is skipped.
const MARKER: &str = "__SPUR_LOGIN_ENV__";

/// Whether the job asked for the login environment.
pub fn wanted(job_env: &[(String, String)]) -> bool {
    job_env
        .iter()
        .any(|(k, v)| k == "SLURM_GET_USER_ENV" && v == "1")
}

/// The login environment merged under the job's environment (job values win), or `None` when it could not be
/// read in time. As root this runs `su - USER`; an unprivileged agent can only do it for its own user.
pub fn merged(
    user: &UserInfo,
    job_env: &[(String, String)],
    timeout: Duration,
) -> Option<Vec<(String, String)>> {
    let login = capture(user, timeout)?;
    Some(merge(login, job_env))
}

fn capture(user: &UserInfo, timeout: Duration) -> Option<Vec<(String, String)>> {
    let script = format!("echo {MARKER}; exec /usr/bin/env -0");
    let mut command = if nix::unistd::geteuid().is_root() {
        let mut c = Command::new("su");
        c.args(["-", &user.name, "-c", &script]);
        c
    } else if nix::unistd::getuid().as_raw() == user.uid {
        let mut c = Command::new(&user.shell);
        c.args(["-l", "-c", &script]).current_dir(&user.home);
        c
    } else {
        return None;
    };
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .env_clear()
        .process_group(0);
    let mut child = command.spawn().ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = stdout.read_to_end(&mut out);
        out
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => break None,
        }
    };
    let Some(status) = status else {
        // The whole group: a login script may have started children that hold the pipe open.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = child.wait();
        return None;
    };
    let out = reader.join().ok()?;
    if !status.success() {
        return None;
    }
    parse(&out)
}

/// The `NAME=value` records after the marker line; `None` when the marker never came.
fn parse(out: &[u8]) -> Option<Vec<(String, String)>> {
    let text = String::from_utf8_lossy(out);
    let start = text.find(&format!("{MARKER}\n"))? + MARKER.len() + 1;
    Some(
        text[start..]
            .split('\0')
            .filter_map(|record| record.split_once('='))
            .filter(|(name, _)| !name.is_empty() && !name.contains('\n'))
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect(),
    )
}

fn merge(login: Vec<(String, String)>, job_env: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = login
        .into_iter()
        .filter(|(name, _)| !job_env.iter().any(|(k, _)| k == name))
        .collect();
    out.extend(job_env.iter().cloned());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn output_before_the_marker_is_skipped_and_job_values_win() {
        let out = format!("Welcome!\n{MARKER}\nPATH=/usr/bin\0HOME=/root\0MULTI=a\nb\0");
        let login = parse(out.as_bytes()).unwrap();
        assert_eq!(
            login,
            pairs(&[("PATH", "/usr/bin"), ("HOME", "/root"), ("MULTI", "a\nb")])
        );
        let job = pairs(&[("HOME", "/job"), ("SLURM_JOB_ID", "7")]);
        assert_eq!(
            merge(login, &job),
            pairs(&[
                ("PATH", "/usr/bin"),
                ("MULTI", "a\nb"),
                ("HOME", "/job"),
                ("SLURM_JOB_ID", "7")
            ])
        );
        assert_eq!(parse(b"no marker here"), None);
    }

    #[test]
    fn only_jobs_marked_by_sbatch_want_it() {
        assert!(wanted(&pairs(&[("SLURM_GET_USER_ENV", "1")])));
        assert!(!wanted(&pairs(&[("SLURM_EXPORT_ENV", "NONE")])));
    }

    /// A real login shell for the user running the tests (root in CI goes through `su -`).
    #[test]
    fn the_callers_own_login_environment_is_read() {
        let uid = nix::unistd::getuid().as_raw();
        let user = crate::users::lookup(uid, nix::unistd::getgid().as_raw()).unwrap();
        let job = pairs(&[("SLURM_JOB_ID", "7")]);
        let env = merged(&user, &job, Duration::from_secs(10)).expect("login environment");
        let get = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        assert!(get("PATH").is_some_and(|p| p.contains("/usr/bin")));
        assert_eq!(get("HOME"), Some(user.home.clone()));
        assert_eq!(get("SLURM_JOB_ID"), Some("7".to_string()));
    }
}
