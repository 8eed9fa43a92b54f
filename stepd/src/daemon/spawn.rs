//! Starting the batch script: decide whose identity it runs under, open its stdio files with that user's
//! rights, fork, and learn from a close-on-exec pipe whether the child reached `execve`.
//!
//! Files are opened here, in the supervisor, under a temporary effective uid/gid (as slurmstepd does), so
//! that the supervisor keeps its own descriptor of the job's stderr for later messages without ever
//! re-opening a user-controlled path as root.

use std::ffi::CString;
use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::stat::{umask, Mode};
use nix::sys::wait::waitpid;
use nix::unistd::{
    fork, getegid, getgroups, pipe2, setegid, seteuid, setgroups, ForkResult, Gid, Pid, Uid,
};

use super::child::{self, ChildPlan};
use crate::cgroup::JobCgroups;
use crate::messages;
use spur_core::wire::supervisor::{LaunchSpec, OpenMode};

/// Whose identity the script runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Identity {
    /// stepd is root: switch to the job's user.
    Switch {
        uid: u32,
        gid: u32,
        groups: Vec<u32>,
    },
    /// stepd is not root and already is the job's user.
    Keep,
}

/// Decides [`Identity`] from stepd's effective uid; an error text when the job cannot run at all.
pub(crate) fn plan_identity(euid: u32, spec: &LaunchSpec) -> Result<Identity, String> {
    if euid == 0 {
        Ok(Identity::Switch {
            uid: spec.uid,
            gid: spec.gid,
            groups: spec.supplementary_gids.clone(),
        })
    } else if euid == spec.uid {
        Ok(Identity::Keep)
    } else {
        Err(format!(
            "spurstepd runs as uid {euid}, not root, and cannot start a job for uid {} ({})",
            spec.uid, spec.user_name
        ))
    }
}

/// What became of the attempt to start the script.
pub(crate) enum Spawned {
    /// A child process exists and must be reaped. `exec_error` is set when it could not exec the script
    /// and is about to exit with 126/127.
    Started {
        pid: Pid,
        stderr: File,
        exec_error: Option<String>,
    },
    /// The script never ran; no child is left.
    LaunchFailed(String),
}

/// Starts the job's script as described by `spec`.
pub(crate) fn spawn_job(spec: &LaunchSpec, euid: u32, cgroups: Option<&JobCgroups>) -> Spawned {
    match try_spawn(spec, euid, cgroups) {
        Ok(s) => s,
        Err(msg) => Spawned::LaunchFailed(msg),
    }
}

fn try_spawn(
    spec: &LaunchSpec,
    euid: u32,
    cgroups: Option<&JobCgroups>,
) -> Result<Spawned, String> {
    let identity = plan_identity(euid, spec)?;
    let exec = ExecArgs::new(spec)?;
    let cgroup_procs = match cgroups {
        Some(c) => c
            .attach_files(0)
            .map_err(|e| format!("cannot open the job's cgroup: {e}"))?,
        None => Vec::new(),
    };
    let job_umask = Mode::from_bits_truncate(spec.umask.unwrap_or(0o022));
    let own_umask = umask(job_umask);
    let opened = as_user(&identity, || open_job_files(spec));
    let (stdin, stdout, stderr) = match opened {
        Ok(Ok(files)) => files,
        Ok(Err(msg)) | Err(msg) => {
            umask(own_umask);
            return Err(msg);
        }
    };
    let kept_stderr = stderr.try_clone().map_err(|e| format!("dup: {e}"))?;
    let (report_r, report_w) = pipe2(OFlag::O_CLOEXEC).map_err(|e| format!("pipe: {e}"))?;
    let plan = ChildPlan {
        identity: &identity,
        stdin: stdin.into(),
        stdout: stdout.into(),
        stderr: stderr.into(),
        work_dir: &spec.work_dir,
        hostname: &spec.hostname,
        exec: &exec,
        cgroup_procs: cgroup_procs.into_iter().map(OwnedFd::from).collect(),
        rlimits: &spec.rlimits,
        task_prolog: spec
            .node_scripts
            .as_ref()
            .and_then(|s| s.task_prolog.as_deref()),
    };
    // SAFETY: the supervisor is single-threaded, so the child may allocate before exec.
    let forked = unsafe { fork() };
    match forked {
        Ok(ForkResult::Child) => child::run(plan, report_w),
        Ok(ForkResult::Parent { child }) => {
            umask(own_umask);
            drop(plan);
            drop(report_w);
            Ok(read_child_report(child, report_r, kept_stderr))
        }
        Err(e) => {
            umask(own_umask);
            Err(format!("fork: {e}"))
        }
    }
}

/// Everything `execve` needs, converted before the fork.
pub(crate) struct ExecArgs {
    pub(crate) path: CString,
    pub(crate) argv: Vec<CString>,
    pub(crate) env: Vec<CString>,
}

impl ExecArgs {
    fn new(spec: &LaunchSpec) -> Result<Self, String> {
        let cstr = |bytes: &[u8], what: &str| {
            CString::new(bytes).map_err(|_| format!("{what} contains a NUL byte"))
        };
        let path = cstr(spec.script_path.as_os_str().as_bytes(), "script path")?;
        let mut argv = vec![path.clone()];
        for a in &spec.argv {
            argv.push(cstr(a.as_bytes(), "argument")?);
        }
        let mut env = Vec::with_capacity(spec.env.len());
        for (k, v) in &spec.env {
            if k.is_empty() || k.contains('=') {
                return Err(format!("invalid environment variable name {k:?}"));
            }
            env.push(cstr(format!("{k}={v}").as_bytes(), "environment")?);
        }
        Ok(ExecArgs { path, argv, env })
    }
}

/// Runs `f` with the job user's effective uid, gid and groups, then switches back. The outer error is a
/// failure to switch; switching back failing is reported the same way, since the supervisor would otherwise
/// go on with the wrong identity.
fn as_user<T>(identity: &Identity, f: impl FnOnce() -> T) -> Result<T, String> {
    let Identity::Switch { uid, gid, groups } = identity else {
        return Ok(f());
    };
    let own_groups = getgroups().map_err(|e| format!("getgroups: {e}"))?;
    let own_egid = getegid();
    let gids: Vec<Gid> = groups.iter().map(|g| Gid::from_raw(*g)).collect();
    let switched = setgroups(&gids)
        .map_err(|e| format!("setgroups: {e}"))
        .and_then(|()| setegid(Gid::from_raw(*gid)).map_err(|e| format!("setegid: {e}")))
        .and_then(|()| seteuid(Uid::from_raw(*uid)).map_err(|e| format!("seteuid: {e}")));
    let result = switched.map(|()| f());
    seteuid(Uid::from_raw(0))
        .and_then(|()| setegid(own_egid))
        .and_then(|()| setgroups(&own_groups))
        .map_err(|e| format!("restoring supervisor identity: {e}"))?;
    result
}

type StdioFiles = (File, File, File);

/// Opens stdin, stdout and stderr with the caller's current effective identity.
fn open_job_files(spec: &LaunchSpec) -> Result<StdioFiles, String> {
    let resolve = |p: &Path| -> PathBuf {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            spec.work_dir.join(p)
        }
    };
    let stdin_path = spec
        .stdin_path
        .as_deref()
        .map_or_else(|| PathBuf::from("/dev/null"), resolve);
    let stdin =
        open_input(&stdin_path).map_err(|e| messages::open_stdin_failed(&stdin_path, e.desc()))?;
    let out_path = resolve(&spec.stdout_path);
    let stdout = open_output(&out_path, spec.open_mode)
        .map_err(|e| messages::open_stdout_failed(&out_path, e.desc()))?;
    let err_path = resolve(&spec.stderr_path);
    let stderr = if err_path == out_path {
        stdout
            .try_clone()
            .map_err(|e| messages::open_stderr_failed(&err_path, &e.to_string()))?
    } else {
        open_output(&err_path, spec.open_mode)
            .map_err(|e| messages::open_stderr_failed(&err_path, e.desc()))?
    };
    Ok((stdin, stdout, stderr))
}

/// Non-blocking open so that a FIFO without a writer cannot hang the supervisor; the flag is cleared
/// afterwards because the script expects ordinary blocking reads.
fn open_input(path: &Path) -> Result<File, Errno> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(io_errno)?;
    clear_nonblock(&f)?;
    Ok(f)
}

fn open_output(path: &Path, mode: OpenMode) -> Result<File, Errno> {
    let mut opts = OpenOptions::new();
    opts.write(true)
        .create(true)
        .mode(0o666)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    match mode {
        OpenMode::Truncate => opts.truncate(true),
        OpenMode::Append => opts.append(true),
    };
    let f = opts.open(path).map_err(io_errno)?;
    clear_nonblock(&f)?;
    Ok(f)
}

fn clear_nonblock(f: &File) -> Result<(), Errno> {
    let flags = OFlag::from_bits_retain(fcntl(f, FcntlArg::F_GETFL)?);
    fcntl(f, FcntlArg::F_SETFL(flags - OFlag::O_NONBLOCK))?;
    Ok(())
}

fn io_errno(e: std::io::Error) -> Errno {
    Errno::from_raw(e.raw_os_error().unwrap_or(libc::EIO))
}

/// Reads the child's verdict: EOF without data means `execve` succeeded.
fn read_child_report(child: Pid, report: OwnedFd, stderr: File) -> Spawned {
    let mut text = String::new();
    let _ = File::from(report).read_to_string(&mut text);
    match child::Report::parse(&text) {
        None => Spawned::Started {
            pid: child,
            stderr,
            exec_error: None,
        },
        Some(child::Report::Exec(msg)) => Spawned::Started {
            pid: child,
            stderr,
            exec_error: Some(msg),
        },
        Some(child::Report::Launch(msg)) => {
            // The child exits right after reporting; reap it so nothing is left behind.
            let _ = waitpid(child, None);
            Spawned::LaunchFailed(msg)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::wire::supervisor::PROTOCOL_VERSION;

    fn spec(uid: u32) -> LaunchSpec {
        LaunchSpec {
            version: PROTOCOL_VERSION,
            job_id: 1,
            node_name: "n".into(),
            hostname: "n".into(),
            uid,
            gid: 100,
            supplementary_gids: vec![5, 6],
            user_name: "u".into(),
            work_dir: "/w".into(),
            env: vec![("A".into(), "1".into()), ("B".into(), "x=y".into())],
            script_path: "/s".into(),
            argv: vec!["arg".into()],
            stdin_path: None,
            stdout_path: "/o".into(),
            stderr_path: "/o".into(),
            open_mode: OpenMode::Truncate,
            kill_wait_secs: 1,
            umask: None,
            cgroup: None,
            node_scripts: None,
            rlimits: Vec::new(),
            acct_gather: None,
        }
    }

    #[test]
    fn identity_rules() {
        assert_eq!(
            plan_identity(0, &spec(1000)),
            Ok(Identity::Switch {
                uid: 1000,
                gid: 100,
                groups: vec![5, 6]
            })
        );
        assert_eq!(plan_identity(1000, &spec(1000)), Ok(Identity::Keep));
        let err = plan_identity(1000, &spec(1001)).unwrap_err();
        assert!(err.contains("cannot start a job for uid 1001"), "{err}");
    }

    #[test]
    fn exec_args_keep_order_and_reject_bad_input() {
        let a = ExecArgs::new(&spec(0)).unwrap();
        assert_eq!(a.path.as_bytes(), b"/s");
        assert_eq!(
            a.argv.iter().map(|c| c.to_bytes()).collect::<Vec<_>>(),
            vec![&b"/s"[..], b"arg"]
        );
        assert_eq!(
            a.env.iter().map(|c| c.to_bytes()).collect::<Vec<_>>(),
            vec![&b"A=1"[..], b"B=x=y"]
        );
        let mut bad = spec(0);
        bad.env.push(("X=Y".into(), "1".into()));
        assert!(ExecArgs::new(&bad).is_err());
        let mut bad = spec(0);
        bad.argv.push("a\0b".into());
        assert!(ExecArgs::new(&bad).is_err());
    }

    #[test]
    fn output_open_modes() {
        let d = std::env::temp_dir().join(format!("spur-stepd-spawn-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("out");
        std::fs::write(&p, "old\n").unwrap();
        {
            use std::io::Write;
            let mut f = open_output(&p, OpenMode::Append).unwrap();
            f.write_all(b"new\n").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old\nnew\n");
        drop(open_output(&p, OpenMode::Truncate).unwrap());
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "");
        assert_eq!(
            open_output(&d.join("no/such/dir"), OpenMode::Append).unwrap_err(),
            Errno::ENOENT
        );
        assert_eq!(open_input(&d.join("missing")).unwrap_err(), Errno::ENOENT);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
