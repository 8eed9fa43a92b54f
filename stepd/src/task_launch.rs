//! Starting one task process of a step, for srun (tasks on its own node) and for the step supervisor on other nodes
//! (`spurstepd --step`, which also drops to the job's user). Everything is prepared before `fork`; the child then
//! makes only async-signal-safe calls (session, signal state, standard streams, identity, directory,
//! `SLURM_TASK_PID`) before `execve`. The task's own PID is only known in the child, which is why neither can use
//! `std::process::Command` here.
//!
//! Each task leads a session of its own, as under slurmstepd: it has no controlling terminal (an interactive shell
//! started by srun must not fight srun for the terminal), and its process group is what srun signals.
//!
//! An exec failure travels back through a close-on-exec pipe, so srun can print slurmstepd's `execve()` error; the
//! task then exits with the errno as its code, as under Slurm.

use std::ffi::CString;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;

use nix::errno::Errno;

/// Room for the digits of any PID after `SLURM_TASK_PID=`.
const PID_DIGITS_MAX: usize = 20;
const TASK_PID_VAR: &str = "SLURM_TASK_PID=";

/// What one task runs, with which environment and streams.
pub struct TaskLaunch<'a> {
    pub program: &'a str,
    pub args: &'a [String],
    /// Without `SLURM_TASK_PID`: the child adds it.
    pub env: &'a [(String, String)],
    pub work_dir: &'a Path,
    pub stdin: RawFd,
    pub stdout: RawFd,
    pub stderr: RawFd,
    /// The user to become before `execve` (a supervisor running as root); `None` keeps the caller's identity.
    pub identity: Option<&'a TaskIdentity>,
    /// `cgroup.procs` files the task joins (writing its own pid) before anything else.
    pub cgroup_procs: &'a [RawFd],
    /// The task's stdin is a pseudo-terminal's slave side that becomes its controlling terminal (`--pty`).
    pub controlling_tty: bool,
    /// task/affinity: the CPUs the task is bound to among those it may use once in its cgroups.
    pub binding: Option<spur_core::grammar::cpu_bind::TaskBinding>,
    /// `--cpu-bind=verbose`: the start of the line the task prints on its stderr before it runs
    /// ([`spur_core::grammar::cpu_bind::verbose_line_start`]); the child adds its pid and mask.
    pub bind_report: Option<&'a [u8]>,
    /// A descriptor the task keeps across `execve` (`--mpi=pmi2`'s `PMI_FD`); every other one it does not ask
    /// for is close-on-exec.
    pub inherit_fd: Option<RawFd>,
}

/// Who a task runs as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskIdentity {
    pub uid: u32,
    pub gid: u32,
    pub groups: Vec<u32>,
}

/// A started (or failed-to-exec) task.
#[derive(Debug, Clone, Copy)]
pub struct Launched {
    pub pid: i32,
    /// Set when `execve` failed: the child has exited with this errno as its code.
    pub exec_error: Option<Errno>,
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("{0} contains a NUL byte")]
    Nul(String),
    #[error("fork: {0}")]
    Fork(Errno),
    #[error("pipe: {0}")]
    Pipe(Errno),
}

/// Everything the child needs, as C data built before the fork.
struct Prepared {
    path: CString,
    _argv: Vec<CString>,
    argv_ptrs: Vec<*const libc::c_char>,
    _envp: Vec<CString>,
    envp_ptrs: Vec<*const libc::c_char>,
    /// `SLURM_TASK_PID=` followed by room for the digits; its pointer is in `envp_ptrs`.
    pid_var: Vec<u8>,
    work_dir: CString,
    fallback_dir: CString,
}

fn c_string(text: &str) -> Result<CString, LaunchError> {
    CString::new(text).map_err(|_| LaunchError::Nul(text.to_string()))
}

impl Prepared {
    fn new(task: &TaskLaunch<'_>) -> Result<Prepared, LaunchError> {
        let path = c_string(&resolve_program(task.program, task.env))?;
        let argv: Vec<CString> = std::iter::once(task.program)
            .chain(task.args.iter().map(String::as_str))
            .map(c_string)
            .collect::<Result<_, _>>()?;
        let envp: Vec<CString> = task
            .env
            .iter()
            .filter(|(k, _)| k != "SLURM_TASK_PID")
            .map(|(k, v)| c_string(&format!("{k}={v}")))
            .collect::<Result<_, _>>()?;
        let mut pid_var = Vec::with_capacity(TASK_PID_VAR.len() + PID_DIGITS_MAX + 1);
        pid_var.extend_from_slice(TASK_PID_VAR.as_bytes());
        pid_var.resize(TASK_PID_VAR.len() + PID_DIGITS_MAX + 1, 0);
        let mut argv_ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
        argv_ptrs.push(std::ptr::null());
        let mut envp_ptrs: Vec<*const libc::c_char> = envp.iter().map(|e| e.as_ptr()).collect();
        envp_ptrs.push(pid_var.as_ptr().cast());
        envp_ptrs.push(std::ptr::null());
        Ok(Prepared {
            path,
            _argv: argv,
            argv_ptrs,
            _envp: envp,
            envp_ptrs,
            pid_var,
            work_dir: CString::new(task.work_dir.as_os_str().as_encoded_bytes())
                .map_err(|_| LaunchError::Nul(task.work_dir.display().to_string()))?,
            fallback_dir: c_string("/tmp")?,
        })
    }
}

/// Finds the program as slurmstepd does: a name with a `/` is used as given, otherwise the first executable file
/// of that name in the task's `PATH`; failing that, the bare name (so `execve` reports it missing).
pub fn resolve_program(program: &str, env: &[(String, String)]) -> String {
    if program.contains('/') {
        return program.to_string();
    }
    let path = env
        .iter()
        .rev()
        .find(|(k, _)| k == "PATH")
        .map_or("/usr/bin:/bin", |(_, v)| v.as_str());
    path.split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| Path::new(dir).join(program))
        .find(|candidate| {
            candidate.is_file()
                && nix::unistd::access(candidate, nix::unistd::AccessFlags::X_OK).is_ok()
        })
        .map_or_else(|| program.to_string(), |p| p.display().to_string())
}

/// Forks and executes one task.
pub fn launch(task: &TaskLaunch<'_>) -> Result<Launched, LaunchError> {
    let mut prepared = Prepared::new(task)?;
    let (err_read, err_write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(LaunchError::Pipe)?;
    let pid_var_ptr = prepared.pid_var.as_mut_ptr();
    // SAFETY: the child runs only async-signal-safe libc calls on data prepared above, then execs or _exits.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(LaunchError::Fork(Errno::last()));
    }
    if pid == 0 {
        // SAFETY: see above; this never returns.
        unsafe { child(task, &prepared, pid_var_ptr, err_write.as_raw_fd()) }
    }
    drop(err_write);
    let exec_error = read_exec_error(err_read.as_raw_fd());
    drop(prepared);
    Ok(Launched { pid, exec_error })
}

/// The errno the child sent before exiting, or `None` when the pipe closed on a successful exec.
fn read_exec_error(fd: RawFd) -> Option<Errno> {
    let mut buf = [0u8; 4];
    let mut got = 0;
    while let Some(rest) = buf.get_mut(got..).filter(|r| !r.is_empty()) {
        // SAFETY: reading into our own buffer from a descriptor we own.
        let n = unsafe { libc::read(fd, rest.as_mut_ptr().cast(), rest.len()) };
        match n {
            n if n > 0 => got += n as usize,
            0 => break,
            _ if Errno::last() == Errno::EINTR => continue,
            _ => break,
        }
    }
    (got == buf.len()).then(|| Errno::from_raw(i32::from_ne_bytes(buf)))
}

/// The child between fork and exec. Only async-signal-safe calls: no allocation, no locks.
unsafe fn child(task: &TaskLaunch<'_>, p: &Prepared, pid_var: *mut u8, err_fd: RawFd) -> ! {
    // SAFETY: this is the child just forked from `launch`: one thread, and nothing here allocates or takes a lock.
    // Every call is an async-signal-safe system call on descriptors, C strings and pointer arrays that `launch`
    // prepared before the fork (`task`, `p`), or on stack memory; `pid_var` points into `p`'s environment, past the
    // variable's name, with room for PID_DIGITS_MAX digits and the NUL (`Prepared::new`).
    unsafe {
        let me = libc::getpid();
        for &procs in task.cgroup_procs {
            libc::write(procs, b"0".as_ptr().cast(), 1);
        }
        let bound = match task.binding {
            Some(binding) => bind_cpus(binding),
            None => None,
        };
        libc::setsid();
        let mut empty: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut empty);
        libc::sigprocmask(libc::SIG_SETMASK, &empty, std::ptr::null_mut());
        for signal in 1..32 {
            if signal != libc::SIGKILL && signal != libc::SIGSTOP {
                libc::signal(signal, libc::SIG_DFL);
            }
        }
        // A task must not outlive a killed srun.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        libc::dup2(task.stdin, 0);
        libc::dup2(task.stdout, 1);
        libc::dup2(task.stderr, 2);
        if let Some(start) = task.bind_report {
            report_binding(start, me, bound.as_ref());
        }
        if task.controlling_tty {
            libc::ioctl(0, libc::TIOCSCTTY, 0);
        }
        if let Some(fd) = task.inherit_fd {
            libc::fcntl(fd, libc::F_SETFD, 0);
        }
        if let Some(identity) = task.identity {
            // Groups first, then gid, then uid: each later step needs the privilege the earlier ones give up.
            let dropped = libc::setgroups(identity.groups.len(), identity.groups.as_ptr()) == 0
                && libc::setgid(identity.gid) == 0
                && libc::setuid(identity.uid) == 0;
            if !dropped {
                let errno = *libc::__errno_location();
                let bytes = errno.to_ne_bytes();
                libc::write(err_fd, bytes.as_ptr().cast(), bytes.len());
                libc::_exit(1)
            }
        }
        if libc::chdir(p.work_dir.as_ptr()) != 0 {
            libc::chdir(p.fallback_dir.as_ptr());
        }
        write_decimal(pid_var.add(TASK_PID_VAR.len()), me);
        libc::execve(p.path.as_ptr(), p.argv_ptrs.as_ptr(), p.envp_ptrs.as_ptr());
        let errno = *libc::__errno_location();
        let bytes = errno.to_ne_bytes();
        libc::write(err_fd, bytes.as_ptr().cast(), bytes.len());
        libc::_exit(errno & 0xff)
    }
}

/// Writes `start`, then `PID]: mask 0xHEX set` (`0x0` without `set` for an unbound task) and a newline on
/// stderr, as task/affinity's verbose report. Async-signal-safe: stack memory and `write` only.
unsafe fn report_binding(start: &[u8], pid: i32, bound: Option<&[u64; 16]>) {
    let mut pid_text = [0u8; PID_DIGITS_MAX + 1];
    // SAFETY: `pid_text` has room for PID_DIGITS_MAX digits and the NUL.
    unsafe { write_decimal(pid_text.as_mut_ptr(), pid) };
    let pid_len = pid_text.iter().position(|b| *b == 0).unwrap_or(0);
    let mut hex = [0u8; 256];
    let (hex_len, tail): (usize, &[u8]) = match bound {
        Some(mask) => (
            spur_core::grammar::cpu_bind::mask_hex(mask, &mut hex),
            b" set\n",
        ),
        None => {
            if let Some(first) = hex.first_mut() {
                *first = b'0';
            }
            (1, b"\n")
        }
    };
    // Both lengths are within their buffers by construction; `get` keeps this child from panicking regardless.
    for part in [
        start,
        pid_text.get(..pid_len).unwrap_or_default(),
        b"]: mask 0x",
        hex.get(..hex_len).unwrap_or_default(),
        tail,
    ] {
        // SAFETY: `part` is a live slice of `part.len()` bytes; `write` only reads it.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
}

/// Narrows the calling process's CPU affinity (what its cpuset allows, as it stands after joining its cgroups)
/// to the binding and returns the CPUs it kept; left as it is (`None`) if nothing would remain.
/// Async-signal-safe: stack memory and syscalls only.
unsafe fn bind_cpus(binding: spur_core::grammar::cpu_bind::TaskBinding) -> Option<[u64; 16]> {
    // SAFETY: zero is a valid (empty) CPU set; the affinity calls read and write `cpu_set_t`s of `size` bytes on
    // this stack, and every CPU index is below 16 * 64 = 1,024, CPU_SETSIZE.
    unsafe {
        let size = std::mem::size_of::<libc::cpu_set_t>();
        let mut current: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, size, &mut current) != 0 {
            return None;
        }
        let mut allowed = [0u64; 16];
        for (word, bits) in allowed.iter_mut().enumerate() {
            for bit in 0..64 {
                if libc::CPU_ISSET(word * 64 + bit, &current) {
                    *bits |= 1 << bit;
                }
            }
        }
        let mut chosen = [0u64; 16];
        if !spur_core::grammar::cpu_bind::apply(binding, &allowed, &mut chosen) {
            return None;
        }
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_ZERO(&mut set);
        for (word, bits) in chosen.iter().enumerate() {
            for bit in 0..64 {
                if bits & (1 << bit) != 0 {
                    libc::CPU_SET(word * 64 + bit, &mut set);
                }
            }
        }
        (libc::sched_setaffinity(0, size, &set) == 0).then_some(chosen)
    }
}

/// Writes `value` in decimal and a NUL at `out`, which has room for [`PID_DIGITS_MAX`] digits and the NUL.
unsafe fn write_decimal(out: *mut u8, value: i32) {
    let mut digits = [0u8; PID_DIGITS_MAX];
    let mut n = value.unsigned_abs();
    let mut len = 0;
    for slot in digits.iter_mut() {
        *slot = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for (i, digit) in digits.iter().take(len).rev().enumerate() {
        // SAFETY: `i` < `len` <= PID_DIGITS_MAX, within the room the caller guarantees at `out`.
        unsafe { *out.add(i) = *digit };
    }
    // SAFETY: `len` <= PID_DIGITS_MAX, and the caller guarantees room for the NUL after that many digits.
    unsafe { *out.add(len) = 0 };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(path: &str) -> Vec<(String, String)> {
        vec![("PATH".to_string(), path.to_string())]
    }

    #[test]
    fn programs_are_found_in_the_tasks_path() {
        assert_eq!(resolve_program("/bin/true", &env("")), "/bin/true");
        assert_eq!(resolve_program("./x", &env("/bin")), "./x");
        let found = resolve_program("sh", &env("/nonexistent:/bin"));
        assert_eq!(found, "/bin/sh");
        assert_eq!(
            resolve_program("no-such-program-here", &env("/bin")),
            "no-such-program-here"
        );
    }

    #[test]
    fn decimal_pids() {
        let mut buf = [0xffu8; PID_DIGITS_MAX + 1];
        // SAFETY: `buf` has room for PID_DIGITS_MAX digits and the NUL.
        unsafe { write_decimal(buf.as_mut_ptr(), 4_194_304) };
        assert_eq!(&buf[..8], b"4194304\0");
    }

    #[test]
    fn a_task_sees_its_own_pid_and_a_missing_program_reports_its_errno() {
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let env = vec![
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
            ("SLURM_TASK_PID".to_string(), "stale".to_string()),
        ];
        let args = vec!["-c".to_string(), "echo $SLURM_TASK_PID $$".to_string()];
        let launched = launch(&TaskLaunch {
            program: "sh",
            args: &args,
            env: &env,
            work_dir: Path::new("/"),
            stdin: 0,
            stdout: write.as_raw_fd(),
            stderr: 2,
            identity: None,
            cgroup_procs: &[],
            controlling_tty: false,
            binding: None,
            bind_report: None,
            inherit_fd: None,
        })
        .unwrap();
        drop(write);
        assert!(launched.exec_error.is_none());
        let mut out = String::new();
        std::io::Read::read_to_string(&mut std::fs::File::from(read), &mut out).unwrap();
        let pids: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(pids, vec![launched.pid.to_string(); 2]);
        nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(launched.pid), None).unwrap();

        let missing = launch(&TaskLaunch {
            program: "no-such-program-here",
            args: &[],
            env: &env,
            work_dir: Path::new("/"),
            stdin: 0,
            stdout: 1,
            stderr: 2,
            identity: None,
            cgroup_procs: &[],
            controlling_tty: false,
            binding: None,
            bind_report: None,
            inherit_fd: None,
        })
        .unwrap();
        assert_eq!(missing.exec_error, Some(Errno::ENOENT));
        let status = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(missing.pid), None);
        assert_eq!(
            status.unwrap(),
            nix::sys::wait::WaitStatus::Exited(nix::unistd::Pid::from_raw(missing.pid), 2)
        );
    }

    /// Runs `sh -c script` with `binding` and a verbose-binding report; returns (pid, stdout, stderr).
    fn run_bound(
        script: &str,
        binding: Option<spur_core::grammar::cpu_bind::TaskBinding>,
    ) -> (i32, String, String) {
        let (out_read, out_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let (err_read, err_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        let env = vec![("PATH".to_string(), "/usr/bin:/bin".to_string())];
        let args = vec!["-c".to_string(), script.to_string()];
        let launched = launch(&TaskLaunch {
            program: "sh",
            args: &args,
            env: &env,
            work_dir: Path::new("/"),
            stdin: 0,
            stdout: out_write.as_raw_fd(),
            stderr: err_write.as_raw_fd(),
            identity: None,
            cgroup_procs: &[],
            controlling_tty: false,
            binding,
            bind_report: Some(b"cpu-bind=MASK - n1, task  0  0 ["),
            inherit_fd: None,
        })
        .unwrap();
        drop((out_write, err_write));
        let read_all = |fd: std::os::fd::OwnedFd| {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::fs::File::from(fd), &mut text).unwrap();
            text
        };
        let (out, err) = (read_all(out_read), read_all(err_read));
        nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(launched.pid), None).unwrap();
        (launched.pid, out, err)
    }

    #[test]
    fn a_bound_task_runs_on_its_cpu_and_reports_its_mask() {
        // SAFETY: zero is a valid (empty) CPU set.
        let mut allowed: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::cpu_set_t>();
        // SAFETY: `allowed` is a writable CPU set of `size` bytes.
        assert_eq!(unsafe { libc::sched_getaffinity(0, size, &mut allowed) }, 0);
        let first = (0..1024)
            // SAFETY: `cpu` is below CPU_SETSIZE (1,024) and `allowed` is initialised.
            .find(|&cpu| unsafe { libc::CPU_ISSET(cpu, &allowed) })
            .unwrap();
        let binding = spur_core::grammar::cpu_bind::TaskBinding::Slice { start: 0, count: 1 };
        let (pid, out, err) = run_bound("grep Cpus_allowed_list /proc/self/status", Some(binding));
        assert_eq!(out, format!("Cpus_allowed_list:\t{first}\n"));
        let mut mask = [0u64; 16];
        mask[first / 64] = 1 << (first % 64);
        let mut hex = [0u8; 256];
        let len = spur_core::grammar::cpu_bind::mask_hex(&mask, &mut hex);
        let hex = std::str::from_utf8(&hex[..len]).unwrap();
        assert_eq!(
            err,
            format!("cpu-bind=MASK - n1, task  0  0 [{pid}]: mask 0x{hex} set\n")
        );

        let (pid, _, err) = run_bound("true", None);
        assert_eq!(
            err,
            format!("cpu-bind=MASK - n1, task  0  0 [{pid}]: mask 0x0\n")
        );
    }
}
