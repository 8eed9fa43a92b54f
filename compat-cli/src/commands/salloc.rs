//! `salloc`: get an allocation, run a command (by default the user's shell) with the allocation's environment,
//! and give the allocation back when the command ends, with Slurm's messages and exit codes.
//!
//! Like Slurm's salloc, the command runs here, on the submit host, in its own process group (which gets the
//! terminal when there is one). Signals do not reach it from salloc: SIGINT and SIGTERM give the allocation up while
//! the command goes on, and only `--kill-command` signals it when the allocation is revoked.

use std::os::unix::process::CommandExt;
use std::process::Stdio;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use spur_core::grammar::env::{salloc_environment, salloc_het_environment, AllocEnvContext};
use spur_core::grammar::options::{parse_salloc, Command, OptId, Outcome};
use spur_core::model::job::JobRecord;
use spur_core::model::states::JobBaseState;
use spur_core::model::step_exit::TaskEnd;
use spur_core::wire::api::SubmitRequest;

use super::interactive::allocate::{allocate, complete, fetch_job, Immediate, Prog};
use super::interactive::events::{reap, spawn_exit_watch, spawn_job_watch, Event, Events};
use super::interactive::{early_text, fail, job_spec, ClusterFacts, Submitter};
use crate::client::Client;
use spur_stepd::task_launch::resolve_program;

/// The job name salloc gives an allocation without `--job-name`.
const DEFAULT_NAME: &str = "interactive";
/// ... and the one it gives an allocation made with `--no-shell`, as Slurm does.
const NO_SHELL_NAME: &str = "no-shell";

pub fn run(args: &[String]) -> u8 {
    let events = match Events::start() {
        Ok(events) => events,
        Err(e) => {
            eprintln!("salloc: error: {e}");
            return 1;
        }
    };
    let env: Vec<(String, String)> = std::env::vars().collect();
    let parsed = match parse_salloc(args, &env) {
        Ok(Outcome::Early(action)) => {
            print!("{}", early_text(Command::Salloc, action));
            return 0;
        }
        Ok(Outcome::Run(parsed)) => parsed,
        Err(e) => return fail(&e.lines, e.exit_code),
    };
    for warning in &parsed.warnings {
        eprintln!("{warning}");
    }
    let Some(component) = parsed.components.first() else {
        return 1;
    };
    let set = &component.options;
    let facts = ClusterFacts::load();
    let who = Submitter::current();
    let command = if parsed.positional.is_empty() {
        vec![user_shell(who.uid)]
    } else {
        parsed.positional.clone()
    };
    // `--no-shell`: make the allocation and leave it to later `srun --jobid` calls until it is cancelled or
    // reaches its time limit.
    let no_shell = set.is_set(OptId::NoShell);
    let default_name = if no_shell {
        NO_SHELL_NAME
    } else {
        DEFAULT_NAME
    };
    let spec = match job_spec(Command::Salloc, set, &facts, &who, default_name, &command) {
        Ok(spec) => spec,
        Err(e) => return fail(&e.lines, e.exit_code),
    };
    let kill_signal = set.is_set(OptId::KillCommand).then(|| {
        set.value(OptId::KillCommand)
            .and_then(spur_core::grammar::values::signal::sig_name2num)
            .unwrap_or_else(default_kill_signal)
    });
    let client = match Client::from_environment() {
        Ok(client) => client,
        Err(e) => {
            eprintln!("salloc: error: Job submit/allocate failed: {e}");
            return 1;
        }
    };
    // A heterogeneous allocation: every later component's spec too, granted together with the first.
    let mut het_components = Vec::new();
    for component in parsed.components.iter().skip(1) {
        match job_spec(
            Command::Salloc,
            &component.options,
            &facts,
            &who,
            default_name,
            &command,
        ) {
            Ok(more) => het_components.push(more),
            Err(e) => return fail(&e.lines, e.exit_code),
        }
    }
    if !het_components.is_empty() && set.is_set(OptId::Immediate) {
        eprintln!("salloc: error: --immediate with heterogeneous job allocations is not supported by Spur yet");
        return 1;
    }
    let request = SubmitRequest {
        spec,
        test_only: false,
        immediate: false,
        interactive: true,
        het_components,
    };
    let immediate =
        Immediate::from_option(set.is_set(OptId::Immediate), set.value(OptId::Immediate));
    let job = match allocate(&client, &events, Prog::Salloc, request, immediate) {
        Ok(job) => job,
        Err(code) => return code,
    };
    if no_shell {
        return 0;
    }
    let session = Session {
        job: &job,
        client: &client,
        events: &events,
        kill_signal,
    };
    session.run_command(&command, &facts)
}

/// `--kill-command` without a signal: SIGHUP for a session on a terminal, SIGTERM otherwise.
fn default_kill_signal() -> i32 {
    if nix::unistd::isatty(std::io::stdin()).unwrap_or(false) {
        libc::SIGHUP
    } else {
        libc::SIGTERM
    }
}

/// The shell salloc runs without a command: the user's login shell, as Slurm does without `SallocDefaultCommand`.
fn user_shell(uid: u32) -> String {
    nix::unistd::User::from_uid(uid.into())
        .ok()
        .flatten()
        .map(|u| u.shell.display().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".to_string())
}

struct Session<'a> {
    job: &'a JobRecord,
    client: &'a Client,
    events: &'a Events,
    /// `--kill-command`: the signal the command gets when the allocation is revoked.
    kill_signal: Option<i32>,
}

impl Session<'_> {
    /// Runs the command with the allocation's environment and waits for it; returns salloc's exit code.
    fn run_command(&self, command: &[String], facts: &ClusterFacts) -> u8 {
        let ctx = AllocEnvContext {
            cluster_name: &facts.cluster_name,
            slurm_conf: &facts.slurm_conf,
        };
        let env = match &self.job.het {
            Some(het) => {
                let components: Vec<JobRecord> = het
                    .component_ids()
                    .filter_map(|id| fetch_job(self.client, id))
                    .collect();
                salloc_het_environment(&components, &ctx)
            }
            None => salloc_environment(self.job, &ctx),
        };
        let program = resolve_program(&command[0], &env);
        let runnable = std::fs::metadata(&program).is_ok_and(|m| m.is_file())
            && nix::unistd::access(program.as_str(), nix::unistd::AccessFlags::X_OK).is_ok();
        let child = runnable.then(|| {
            std::process::Command::new(&program)
                .arg0(&command[0])
                .args(&command[1..])
                .env_clear()
                .envs(env.iter().map(|(k, v)| (k, v)))
                .current_dir(&self.job.spec.work_dir)
                .process_group(0)
                .stdin(Stdio::inherit())
                .spawn()
        });
        let child = match child {
            Some(Ok(child)) => child,
            _ => {
                eprintln!(
                    "salloc: error: _fork_command: Unable to find command \"{}\"",
                    command[0]
                );
                self.relinquish(1, 0);
                return 1;
            }
        };
        let pid = i32::try_from(child.id()).unwrap_or(0);
        let terminal = Terminal::give_to(pid);
        let end = self.wait(pid);
        drop(terminal);
        match end {
            Waited::Ended { end, revoked } => {
                if !revoked {
                    let (code, signal) = end.exit_and_signal();
                    self.relinquish(code, signal);
                }
                exit_status(end)
            }
            Waited::HungUp => {
                self.relinquish(0, 0);
                1
            }
        }
    }

    fn relinquish(&self, code: u32, signal: u32) {
        eprintln!("salloc: Relinquishing job allocation {}", self.job.job_id);
        complete(self.client, self.job.job_id, code, signal);
    }

    /// Waits for the command, giving the allocation up early on SIGINT/SIGTERM/SIGQUIT as Slurm's salloc does.
    fn wait(&self, pid: i32) -> Waited {
        spawn_exit_watch(self.events.sender(), pid);
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        spawn_job_watch(
            self.events.sender(),
            self.job.job_id,
            None,
            true,
            stop.clone(),
        );
        let mut revoked = false;
        let waited = loop {
            match self.events.next(std::time::Duration::from_secs(3600)) {
                Some(Event::TaskExited { end, .. }) => break Waited::Ended { end, revoked },
                Some(Event::Signal(Signal::SIGHUP)) => {
                    let _ = killpg(Pid::from_raw(pid), Signal::SIGHUP);
                    break Waited::HungUp;
                }
                Some(Event::Signal(Signal::SIGINT | Signal::SIGTERM | Signal::SIGQUIT)) => {
                    if !revoked {
                        complete(self.client, self.job.job_id, 0, 0);
                        eprintln!("{}", Prog::Salloc.revoked_line(self.job.job_id));
                        revoked = true;
                    }
                }
                Some(Event::Notice(text)) => eprintln!("salloc: {text}"),
                Some(Event::JobEnded(job)) => {
                    if !revoked {
                        let timed_out = job.is_some_and(|j| j.state == JobBaseState::Timeout);
                        eprintln!("{}", revoked_line(self.job.job_id, timed_out));
                        revoked = true;
                        if let Some(signal) =
                            self.kill_signal.and_then(|s| Signal::try_from(s).ok())
                        {
                            let _ = killpg(Pid::from_raw(pid), signal);
                        }
                    }
                }
                Some(
                    Event::Signal(_)
                    | Event::StepCancelled
                    | Event::StepTimedOut
                    | Event::RankExited { .. }
                    | Event::NodeClosed { .. },
                )
                | None => {}
            }
        };
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if matches!(waited, Waited::Ended { .. }) {
            reap(pid);
        }
        waited
    }
}

/// What salloc prints when the controller takes the allocation away.
fn revoked_line(job_id: u32, timed_out: bool) -> String {
    if timed_out {
        format!(
            "salloc: Job {job_id} has exceeded its time limit and its allocation has been revoked."
        )
    } else {
        Prog::Salloc.revoked_line(job_id)
    }
}

enum Waited {
    Ended {
        end: TaskEnd,
        revoked: bool,
    },
    /// salloc got SIGHUP: it gives the allocation up and leaves at once.
    HungUp,
}

/// salloc's exit code: the command's; a command ended by a signal a user would send (HUP, INT, QUIT, KILL) counts as
/// success, any other signal as 1 (Slurm 22.05's rule).
fn exit_status(end: TaskEnd) -> u8 {
    match end {
        TaskEnd::Exited(code) => u8::try_from(code).unwrap_or(1),
        TaskEnd::Signaled { signal, .. } => match signal {
            libc::SIGHUP | libc::SIGINT | libc::SIGQUIT | libc::SIGKILL => 0,
            _ => 1,
        },
        TaskEnd::OutOfMemory => 1,
    }
}

/// The controlling terminal handed to the command's process group, and taken back when dropped.
struct Terminal {
    own_group: Option<Pid>,
}

impl Terminal {
    fn give_to(pgid: i32) -> Terminal {
        let stdin = std::io::stdin();
        let is_tty = nix::unistd::isatty(&stdin).unwrap_or(false);
        if !is_tty {
            return Terminal { own_group: None };
        }
        let own = nix::unistd::getpgrp();
        // SIGTTOU is blocked (see events), so a background salloc may still hand the terminal over.
        let handed = set_foreground(pgid);
        Terminal {
            own_group: handed.then_some(own),
        }
    }
}

/// Makes `pgid` the terminal's foreground process group (stdin is the terminal).
fn set_foreground(pgid: i32) -> bool {
    // SAFETY: plain syscall wrapper on our own standard input.
    unsafe { libc::tcsetpgrp(0, pgid) == 0 }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        if let Some(group) = self.own_group {
            set_foreground(group.as_raw());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_follows_slurm() {
        assert_eq!(exit_status(TaskEnd::Exited(4)), 4);
        let signaled = |signal| TaskEnd::Signaled {
            signal,
            core_dumped: false,
        };
        assert_eq!(exit_status(signaled(libc::SIGKILL)), 0);
        assert_eq!(exit_status(signaled(libc::SIGINT)), 0);
        assert_eq!(exit_status(signaled(libc::SIGSEGV)), 1);
    }

    #[test]
    fn revocation_lines() {
        assert_eq!(
            revoked_line(86, true),
            "salloc: Job 86 has exceeded its time limit and its allocation has been revoked."
        );
        assert_eq!(
            revoked_line(9, false),
            "salloc: Job allocation 9 has been revoked."
        );
    }
}
