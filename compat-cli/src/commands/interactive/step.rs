//! Running one srun step on this node: start its tasks (each in a session of its own), forward their streams, report how
//! they end exactly as srun does, and stop them when srun is interrupted, a task fails under `--kill-on-bad-exit`,
//! or the allocation ends (scancel, time limit): SIGCONT and SIGTERM, then SIGKILL after KillWait.

use std::os::fd::{AsRawFd, OwnedFd, RawFd};

use spur_stepd::task_script::TaskScripts;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use spur_core::grammar::env::{task_environment, TaskPlacement};
use spur_core::grammar::values::filename::{expand_filename, FilenameContext};
use spur_core::grammar::values::stepid::Step;
use spur_core::model::job::JobRecord;
use spur_core::model::states::JobBaseState;
use spur_core::model::step_exit::{self, TaskEnd};

use super::events::{reap, spawn_exit_watch, spawn_job_watch, Event, Events};
use super::io::{self, OpenFiles, Route, Sink, TaskFd};
use super::remote::{self, NodeLink, RemoteStep};
use crate::config;
use spur_core::wire::step_io::{Frame, Kind};
use spur_stepd::step_attach::{Fanout, Stdins};
use spur_stepd::task_launch::{launch, TaskLaunch};

/// Tasks that end within this window of each other are reported together (`tasks 0-1: ...`), as slurmstepd
/// batches the exits it reaps at once.
const EXIT_BATCH_WINDOW: Duration = Duration::from_millis(100);
/// A second Ctrl-C within this time aborts the step.
const INTERRUPT_WINDOW: Duration = Duration::from_secs(1);
/// How long srun waits for its output threads once every task is gone.
const OUTPUT_DRAIN_MAX: Duration = Duration::from_secs(2);
/// How long srun waits for a task's output before reporting its end (a background process of the task may keep
/// the stream open).
const TASK_OUTPUT_WAIT: Duration = Duration::from_millis(500);
/// Event loop tick while the step runs (checks the SIGKILL deadline).
const TICK: Duration = Duration::from_millis(200);

/// Everything one step needs.
pub struct StepPlan<'a> {
    /// The allocation the step runs in.
    pub job: &'a JobRecord,
    /// task/affinity: how each task is bound to CPUs (`None`: unbound).
    pub cpu_bind: Option<spur_core::model::step_launch::CpuBindSpec>,
    /// `--gpu-bind`, or the `per_task:N` binding `--gpus-per-task` implies.
    pub gpu_bind: Option<String>,
    /// srun made the allocation itself, so `scontrol notify` messages are its to print.
    pub holds_allocation: bool,
    pub step_id: u32,
    pub ntasks: u32,
    pub command: &'a [String],
    /// The step's environment ([`spur_core::grammar::env::step_environment`]); ranks are added per task.
    pub env: Vec<(String, String)>,
    pub work_dir: PathBuf,
    pub node: String,
    pub kill_wait_secs: u32,
    pub label: bool,
    pub unbuffered: bool,
    pub output: Option<String>,
    pub error: Option<String>,
    pub input: Option<String>,
    pub append: bool,
    pub kill_on_bad_exit: bool,
    pub quit_on_interrupt: bool,
    /// Tasks started on other nodes through the controller; `None`: every task runs here, started by srun.
    pub remote: Option<RemoteStep>,
    /// slurm.conf `TaskProlog`/`TaskEpilog` and `--task-prolog`/`--task-epilog`, run around each task srun
    /// starts itself (the nodes' supervisors run them around theirs).
    pub scripts: TaskScripts,
    /// srun's `-v` count: at 1 and above it reports each node's start and each task's end.
    pub verbosity: u32,
    /// `--pty`: task 0 on a pseudo-terminal srun relays (the other tasks' streams go to /dev/null).
    pub pty: bool,
    /// `--multi-prog`: each rank's own command; `None`: every task runs `command`.
    pub task_argv: Option<Vec<Vec<String>>>,
    /// slurm.conf's `JobAcctGatherType`/`JobAcctGatherFrequency`: measure the tasks srun runs itself (the nodes'
    /// supervisors measure theirs); `None` measures nothing.
    pub acct_gather: Option<spur_core::model::step_acct::AcctGather>,
}

/// How the step ended.
pub struct StepOutcome {
    pub ends: Vec<TaskEnd>,
    /// srun's exit code.
    pub exit_code: i32,
    /// What the step's tasks used, for its end's report; `None` when nothing was measured.
    pub usage: Option<Box<spur_core::model::step_acct::StepAcct>>,
}

impl StepOutcome {
    /// The exit code and signal to report for an allocation srun made itself (the task that decided srun's code).
    pub fn job_exit(&self) -> (u32, u32) {
        // A task that ran out of memory decides, as the step's state then says OUT_OF_MEMORY.
        let worst = match self.ends.iter().find(|e| **e == TaskEnd::OutOfMemory) {
            Some(oom) => Some(oom),
            None => self.ends.iter().max_by_key(|e| e.shell_code()),
        };
        worst.map_or((0, 0), |end| end.exit_and_signal())
    }
}

struct Task {
    rank: u32,
    /// The task's process, when srun started it itself.
    pid: Option<i32>,
    /// Index of its node in the step (0 for tasks srun runs).
    node: usize,
    end: Option<TaskEnd>,
    /// The environment a task srun started had, for the task epilogs.
    env: Vec<(String, String)>,
}

/// Which task an end belongs to: srun's own child, or a rank another node reported.
#[derive(Clone, Copy)]
enum Ended {
    Pid(i32),
    Rank(u32),
}

/// The running step: its tasks and how far srun has gone in stopping them.
struct Running<'a> {
    plan: &'a StepPlan<'a>,
    tasks: Vec<Task>,
    /// The threads forwarding each task's streams, by rank.
    outputs: Vec<(u32, JoinHandle<()>)>,
    /// When SIGKILL follows the SIGTERM already sent.
    kill_at: Option<Instant>,
    killed: bool,
    last_interrupt: Option<Instant>,
    /// srun sent Ctrl-C: tasks it interrupted are not reported.
    interrupted: bool,
    job_ended: bool,
    /// `scancel JOB.STEP` ended the step from outside.
    step_cancelled: bool,
    /// srun aborted the step itself (Ctrl-C twice, `--quit-on-interrupt`, SIGTERM).
    aborted: bool,
    /// The step supervisors of a step on other nodes, by node index.
    links: Vec<NodeLink>,
}

pub fn run_step(plan: &StepPlan<'_>, events: &Events) -> StepOutcome {
    // Keys go to task 0's terminal untouched (Ctrl-C included) while a --pty step runs.
    let _raw = plan.pty.then(spur_stepd::pty::RawMode::enter);
    let mut outputs = Vec::new();
    let attached = Fanout::default();
    let started = match &plan.remote {
        None => {
            serve_attach(plan, &attached);
            start_tasks(plan, &mut outputs, &attached).map(|tasks| (tasks, Vec::new()))
        }
        Some(step) => remote::connect(plan, step, events).map(|links| (remote_tasks(step), links)),
    };
    let (tasks, links) = match started {
        Ok(started) => started,
        Err(message) => {
            eprintln!("srun: error: {message}");
            return StepOutcome {
                ends: vec![TaskEnd::Exited(1)],
                exit_code: 1,
                usage: None,
            };
        }
    };
    if plan.verbosity > 0 {
        match &plan.remote {
            Some(step) => {
                for (node, ranks) in step.nodes.iter().zip(&step.layout.node_ranks) {
                    crate::commands::srun::verbose::tasks_started(node, ranks.len());
                }
            }
            None => crate::commands::srun::verbose::tasks_started(&plan.node, tasks.len()),
        }
    }
    for pid in tasks.iter().filter_map(|t| t.pid) {
        spawn_exit_watch(events.sender(), pid);
    }
    // The tasks srun runs itself are sampled here, as a node's supervisor samples its own.
    let mut sampler = match (&plan.remote, plan.acct_gather) {
        (None, Some(settings)) => Some(spur_stepd::step_gather::StepSampler::start(
            settings,
            &plan.node,
            plan.job.job_id,
            nix::unistd::getuid().as_raw(),
            plan.step_id,
        )),
        _ => None,
    };
    let stop_watch = Arc::new(AtomicBool::new(false));
    spawn_job_watch(
        events.sender(),
        plan.job.job_id,
        Some(plan.step_id),
        plan.holds_allocation,
        stop_watch.clone(),
    );
    let mut running = Running {
        plan,
        tasks,
        outputs,
        kill_at: None,
        killed: false,
        last_interrupt: None,
        interrupted: false,
        job_ended: false,
        step_cancelled: false,
        aborted: false,
        links,
    };
    running.wait_all(events);
    stop_watch.store(true, Ordering::Relaxed);
    // Whatever the tasks left behind in their process groups goes with the step; the unreaped task processes
    // keep those group ids from being reused until now.
    for task in &running.tasks {
        let Some(pid) = task.pid else {
            continue;
        };
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        if let (Some(usage), Some(sampler)) = (reap(pid), sampler.as_mut()) {
            sampler.reaped(task.rank, usage);
        }
    }
    let usage = match (sampler, &plan.remote) {
        (Some(sampler), _) => {
            let mut usage = spur_core::model::step_acct::StepAcct::merge(&[sampler.finish()]);
            // srun in the batch script (no step of its own) is the script's descendant: the batch step's CPU
            // times hold what it reaped.
            usage.counted_in_batch = std::env::var_os("SLURM_STEP_ID").is_none();
            Some(usage)
        }
        (None, Some(step)) if plan.acct_gather.is_some() => {
            super::usage::step_record(step.nodes.len())
        }
        (None, _) => None,
    };
    run_task_epilogs(plan, &running.tasks);
    drain(std::mem::take(&mut running.outputs));
    for task in &running.tasks {
        if let Some(end) = task.end {
            let status = u32::try_from(wait_status(end)).unwrap_or(0);
            attached.end(&Frame::new(Kind::Exited, task.rank, status, Vec::new()));
        }
    }
    attached.finish();
    let ends: Vec<TaskEnd> = running.tasks.iter().filter_map(|t| t.end).collect();
    if step_exit::force_terminated(
        &ends,
        running.job_ended || running.step_cancelled || running.aborted,
    ) {
        eprintln!("srun: Force Terminated StepId={}", running.step_name());
    }
    StepOutcome {
        exit_code: crate::commands::srun::mpi::abort_code()
            .unwrap_or_else(|| step_exit::srun_exit_code(&ends)),
        ends,
        usage: usage.map(Box::new),
    }
}

/// A stand-in for a task whose prolog failed: a process (in a group of its own, as tasks are) that writes `text`
/// to the task's stderr and exits with the prolog's status, so the task ends through the same watch and report
/// as any other.
fn spawn_exit_with(status: i32, text: &str, stderr: RawFd) -> std::io::Result<i32> {
    use std::os::unix::process::CommandExt;
    // SAFETY: the descriptor stays open (in the caller's `stderr` or terminal) for this whole call.
    let stderr = unsafe { std::os::fd::BorrowedFd::borrow_raw(stderr) }.try_clone_to_owned()?;
    let child = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg("printf '%s' \"$1\" >&2; exit \"$2\"")
        .arg("sh")
        .arg(text)
        .arg((status & 0xff).to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::from(stderr))
        .process_group(0)
        .spawn()?;
    i32::try_from(child.id()).map_err(std::io::Error::other)
}

/// After the tasks srun ran itself ended: each one's epilogs; a failure is reported on srun's stderr.
fn run_task_epilogs(plan: &StepPlan<'_>, tasks: &[Task]) {
    for task in tasks.iter().filter(|t| t.pid.is_some()) {
        let errors = spur_stepd::task_script::run_task_epilogs(
            &plan.scripts,
            &task.env,
            &plan.work_dir,
            None,
        );
        eprint!(
            "{}",
            spur_stepd::task_script::error_text(&plan.node, &errors)
        );
    }
}

/// sattach reaches a step srun runs itself through srun: the node's agent hands srun its requests on an abstract
/// socket named after the step. Without it the step still runs; sattach then finds no tasks here.
fn serve_attach(plan: &StepPlan<'_>, attached: &Fanout) {
    let name = spur_stepd::step_attach::srun_socket_name(plan.job.job_id, plan.step_id);
    let _ = spur_stepd::step_attach::serve_abstract(&name, attached.clone(), Stdins::default());
}

/// The `wait(2)` status a task end came from, for attached clients.
fn wait_status(end: TaskEnd) -> i32 {
    match end {
        TaskEnd::Exited(code) => (code & 0xff) << 8,
        TaskEnd::Signaled {
            signal,
            core_dumped,
        } => signal | if core_dumped { 0x80 } else { 0 },
        TaskEnd::OutOfMemory => 1 << 8,
    }
}

/// Waits (boundedly) for the forwarding threads to write out what the tasks printed.
fn drain(outputs: Vec<(u32, JoinHandle<()>)>) {
    let deadline = Instant::now() + OUTPUT_DRAIN_MAX;
    for (_, handle) in outputs {
        while !handle.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if handle.is_finished() {
            let _ = handle.join();
        }
    }
}

/// The tasks of a step on other nodes, by the layout.
fn remote_tasks(step: &RemoteStep) -> Vec<Task> {
    let mut tasks: Vec<Task> = step
        .layout
        .node_ranks
        .iter()
        .enumerate()
        .flat_map(|(node, ranks)| {
            ranks.iter().map(move |&rank| Task {
                env: Vec::new(),
                rank,
                pid: None,
                node,
                end: None,
            })
        })
        .collect();
    tasks.sort_by_key(|t| t.rank);
    tasks
}

/// Sets up every task's streams and starts the tasks, in rank order.
fn start_tasks(
    plan: &StepPlan<'_>,
    outputs: &mut Vec<(u32, JoinHandle<()>)>,
    attached: &Fanout,
) -> Result<Vec<Task>, String> {
    if plan.command.is_empty() {
        return Err("No command given to execute.".to_string());
    }
    chdir_warnings(plan);
    let mut files = OpenFiles::default();
    let stdin_fds = stdin_fds(plan, &mut files).map_err(|e| e.to_string())?;
    let mut tasks: Vec<Task> = Vec::with_capacity(plan.ntasks as usize);
    for (rank, stdin) in (0..plan.ntasks).zip(stdin_fds) {
        let command = plan
            .task_argv
            .as_ref()
            .and_then(|all| all.get(rank as usize))
            .map_or(plan.command, Vec::as_slice);
        let Some((program, args)) = command.split_first() else {
            return Err("No command given to execute.".to_string());
        };
        let stdout = output_fd(plan, rank, Sink::Stdout, &mut files, outputs, attached)
            .map_err(|e| e.to_string())?;
        let stderr = output_fd(plan, rank, Sink::Stderr, &mut files, outputs, attached)
            .map_err(|e| e.to_string())?;
        let mut env = task_environment(
            &plan.env,
            TaskPlacement {
                procid: rank,
                localid: rank,
            },
        );
        if let Some(policy) = &plan.gpu_bind {
            spur_core::grammar::gpu_bind::apply_to_env(policy, &mut env, rank);
        }
        // Task 0 of a --pty step talks to a pseudo-terminal for all three streams.
        let terminal = if plan.pty && rank == 0 {
            Some(pty_relay(outputs).map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?)
        } else {
            None
        };
        let (stdin_fd, stdout_fd, stderr_fd) = match &terminal {
            Some(slave) => (slave.as_raw_fd(), slave.as_raw_fd(), slave.as_raw_fd()),
            None => (stdin.raw(), stdout.raw(), stderr.raw()),
        };
        // The epilogs get the task's environment without what the prologs changed, as in slurmstepd, where the
        // prologs run in the task's own process.
        let epilog_env = env.clone();
        let prologs = spur_stepd::task_script::run_task_prologs(&plan.scripts, &mut env, None);
        let _ = nix::unistd::write(
            // SAFETY: the descriptor stays open (in `stdout` or `terminal`) for this whole call.
            unsafe { std::os::fd::BorrowedFd::borrow_raw(stdout_fd) },
            prologs.printed.as_bytes(),
        );
        // A failed prolog ends the task with its status before the program runs, saying so on the task's stderr,
        // as slurmstepd's task process does.
        if let Some((status, lines)) = prologs.failed {
            let text = spur_stepd::task_script::error_text(&plan.node, &lines);
            let pid = spawn_exit_with(status, &text, stderr_fd).map_err(|e| e.to_string())?;
            tasks.push(Task {
                rank,
                pid: Some(pid),
                node: 0,
                end: None,
                env: epilog_env,
            });
            continue;
        }
        let bind_report = plan
            .cpu_bind
            .as_ref()
            .filter(|b| spur_core::grammar::cpu_bind::is_verbose(&b.policy))
            .map(|b| {
                spur_core::grammar::cpu_bind::verbose_line_start(&b.policy, &plan.node, rank, rank)
            });
        let launched = launch(&TaskLaunch {
            program,
            args,
            env: &env,
            work_dir: &plan.work_dir,
            stdin: stdin_fd,
            stdout: stdout_fd,
            stderr: stderr_fd,
            identity: None,
            cgroup_procs: &[],
            controlling_tty: terminal.is_some(),
            binding: plan.cpu_bind.as_ref().and_then(|b| b.task_binding(rank)),
            bind_report: bind_report.as_deref().map(str::as_bytes),
            inherit_fd: None,
        });
        drop(terminal);
        let launched = match launched {
            Ok(launched) => launched,
            Err(e) => {
                for pid in tasks.iter().filter_map(|t: &Task| t.pid) {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                }
                return Err(e.to_string());
            }
        };
        if let Some(errno) = launched.exec_error {
            stepd_error(
                plan,
                rank,
                &format!("execve(): {program}: {}", errno.desc()),
            );
        }
        tasks.push(Task {
            rank,
            pid: Some(launched.pid),
            node: 0,
            end: None,
            env: epilog_env,
        });
    }
    Ok(tasks)
}

/// Opens task 0's pseudo-terminal (sized like srun's own terminal) and starts relaying it: what the task writes
/// goes to srun's stdout as it comes, srun's stdin goes to the task. Returns the slave side for the task.
fn pty_relay(outputs: &mut Vec<(u32, JoinHandle<()>)>) -> std::io::Result<OwnedFd> {
    let size = spur_stepd::pty::window_size(std::io::stdin());
    let (master, slave) = spur_stepd::pty::open(size).map_err(std::io::Error::from)?;
    let mut from_task = std::fs::File::from(master.try_clone()?);
    let reader = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut out = std::io::stdout();
        // EIO once the task and everything it started closed the terminal.
        while let Ok(n) = std::io::Read::read(&mut from_task, &mut buf) {
            if n == 0 {
                break;
            }
            let _ = std::io::Write::write_all(&mut out, &buf[..n]);
            let _ = std::io::Write::flush(&mut out);
        }
    });
    outputs.push((0, reader));
    let mut to_task = std::fs::File::from(master);
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut input = std::io::stdin();
        while let Ok(n) = std::io::Read::read(&mut input, &mut buf) {
            if n == 0 || std::io::Write::write_all(&mut to_task, &buf[..n]).is_err() {
                break;
            }
        }
    });
    Ok(slave)
}

/// slurmstepd's complaint about an unusable working directory: once for the step and once per task, all on task
/// 0's stderr (as Slurm 22.05 prints it); the tasks then start in /tmp.
fn chdir_warnings(plan: &StepPlan<'_>) {
    let problem = match std::fs::metadata(&plan.work_dir) {
        Ok(meta) if meta.is_dir() => {
            nix::unistd::access(&plan.work_dir, nix::unistd::AccessFlags::X_OK).err()
        }
        Ok(_) => Some(Errno::ENOTDIR),
        Err(e) => Some(Errno::from_raw(e.raw_os_error().unwrap_or(libc::ENOENT))),
    };
    if let Some(errno) = problem {
        let text = format!(
            "couldn't chdir to `{}': {}: going to /tmp instead",
            plan.work_dir.display(),
            errno.desc()
        );
        for _ in 0..=plan.ntasks {
            stepd_error(plan, 0, &text);
        }
    }
}

/// A `slurmstepd-<node>: error: ...` line on task `rank`'s stderr as srun shows it.
fn stepd_error(plan: &StepPlan<'_>, rank: u32, text: &str) {
    let prefix = if plan.label {
        io::label(rank, plan.ntasks)
    } else {
        String::new()
    };
    eprintln!("{prefix}slurmstepd-{}: error: {text}", plan.node);
}

pub(super) fn expand_for<'p>(plan: &'p StepPlan<'_>, rank: u32) -> impl Fn(&str) -> String + 'p {
    expand_on_node(plan, rank, &plan.node, 0)
}

/// `expand_for` for a task on the step's node `node_id` (its index among the step's nodes, as Slurm's `%n` is in
/// a step): `%N` and `%n` are that node's.
pub(super) fn expand_on_node<'p>(
    plan: &'p StepPlan<'_>,
    rank: u32,
    node_name: &'p str,
    node_id: u32,
) -> impl Fn(&str) -> String + 'p {
    move |pattern: &str| {
        expand_filename(
            pattern,
            &FilenameContext {
                job_id: plan.job.job_id,
                array_job_id: plan.job.array_job_id,
                array_task_id: plan.job.array_task_id,
                job_name: &plan.job.spec.name,
                node_name,
                node_id,
                task_id: rank,
                user: &plan.job.spec.user_name,
                step: Step::Numbered(plan.step_id),
            },
        )
    }
}

/// Each task's stdin: srun's own when only one task reads it and it is not a terminal (a task outside the
/// terminal's foreground group would be stopped reading it), else a pipe srun copies its stdin into.
fn stdin_fds(plan: &StepPlan<'_>, files: &mut OpenFiles) -> std::io::Result<Vec<TaskFd>> {
    let routes: Vec<Route> = (0..plan.ntasks)
        .map(|rank| io::route(plan.input.as_deref(), rank, expand_for(plan, rank)))
        .collect();
    let readers = routes.iter().filter(|r| **r == Route::Forward).count();
    let direct = readers == 1 && !nix::unistd::isatty(std::io::stdin()).unwrap_or(false);
    let mut broadcast = Vec::new();
    let mut fds = Vec::with_capacity(routes.len());
    for route in routes {
        fds.push(match route {
            Route::Forward if direct => TaskFd::Inherited(0),
            Route::Forward => {
                let (read, write) = io::pipe()?;
                broadcast.push(write);
                TaskFd::Owned(read)
            }
            Route::Null => io::dev_null(false)?,
            Route::File(path) => files.get(&plan.work_dir, &path, false, false)?,
        });
    }
    if !broadcast.is_empty() {
        io::broadcast_stdin(broadcast);
    }
    Ok(fds)
}

/// A task's stdout or stderr; stderr follows `--output` when `--error` is not given.
fn output_fd(
    plan: &StepPlan<'_>,
    rank: u32,
    sink: Sink,
    files: &mut OpenFiles,
    outputs: &mut Vec<(u32, JoinHandle<()>)>,
    attached: &Fanout,
) -> std::io::Result<TaskFd> {
    let value = match sink {
        Sink::Stdout => plan.output.as_deref(),
        Sink::Stderr => plan.error.as_deref().or(plan.output.as_deref()),
    };
    match io::route(value, rank, expand_for(plan, rank)) {
        Route::Forward => {
            let prefix = plan.label.then(|| io::label(rank, plan.ntasks));
            let (fd, handle) =
                io::forward(sink, prefix, plan.unbuffered, (attached.clone(), rank))?;
            outputs.push((rank, handle));
            Ok(fd)
        }
        Route::Null => io::dev_null(true),
        Route::File(path) => files.get(&plan.work_dir, &path, true, plan.append),
    }
}

impl Running<'_> {
    fn step_name(&self) -> String {
        format!("{}.{}", self.plan.job.job_id, self.plan.step_id)
    }

    fn all_ended(&self) -> bool {
        self.tasks.iter().all(|t| t.end.is_some())
    }

    fn wait_all(&mut self, events: &Events) {
        while !self.all_ended() {
            if let Some(at) = self.kill_at {
                if !self.killed && Instant::now() >= at {
                    self.signal_tasks(Signal::SIGKILL);
                    self.killed = true;
                }
            }
            match events.next(TICK) {
                Some(Event::TaskExited { pid, end }) => {
                    self.task_exits(events, Ended::Pid(pid), end)
                }
                Some(Event::RankExited { rank, end }) => {
                    self.task_exits(events, Ended::Rank(rank), end)
                }
                Some(Event::NodeClosed { node, finished }) => self.on_node_closed(node, finished),
                Some(Event::Signal(signal)) => self.on_signal(signal),
                Some(Event::JobEnded(job)) => self.on_job_end(job.as_deref()),
                Some(Event::StepCancelled) => self.on_step_cancelled(),
                Some(Event::StepTimedOut) => self.on_step_timed_out(),
                Some(Event::Notice(text)) => eprintln!("srun: {text}"),
                None => {}
            }
        }
    }

    /// Records an exit and those that follow within the batch window, then reports them together.
    fn task_exits(&mut self, events: &Events, first: Ended, end: TaskEnd) {
        let mut batch = vec![(first, end)];
        let mut closed = Vec::new();
        let deadline = Instant::now() + EXIT_BATCH_WINDOW;
        while batch.len() < self.tasks.len() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            match events.next(left) {
                Some(Event::TaskExited { pid, end }) => batch.push((Ended::Pid(pid), end)),
                Some(Event::RankExited { rank, end }) => batch.push((Ended::Rank(rank), end)),
                // After the batch: the ends it holds came before the connection closed.
                Some(Event::NodeClosed { node, finished }) => closed.push((node, finished)),
                Some(Event::Signal(signal)) => self.on_signal(signal),
                Some(Event::JobEnded(job)) => self.on_job_end(job.as_deref()),
                Some(Event::StepCancelled) => self.on_step_cancelled(),
                Some(Event::StepTimedOut) => self.on_step_timed_out(),
                Some(Event::Notice(text)) => eprintln!("srun: {text}"),
                None => break,
            }
        }
        let mut ended = Vec::new();
        for (who, end) in batch {
            let task = self.tasks.iter_mut().find(|t| match who {
                Ended::Pid(pid) => t.pid == Some(pid),
                Ended::Rank(rank) => t.pid.is_none() && t.rank == rank && t.end.is_none(),
            });
            if let Some(task) = task {
                task.end = Some(end);
                ended.push((task.rank, end));
            }
        }
        self.wait_for_output(&ended);
        self.report_ends(&ended);
        for (node, finished) in closed {
            self.on_node_closed(node, finished);
        }
        let failed = ended.iter().any(|(_, e)| *e != TaskEnd::Exited(0));
        if failed && self.plan.kill_on_bad_exit && self.kill_at.is_none() && !self.all_ended() {
            eprintln!(
                "srun: launch/slurm: _step_signal: Terminating StepId={}",
                self.step_name()
            );
            self.cancelled_line("");
            self.terminate();
        }
    }

    /// srun's `node: task N: ...` lines, node by node.
    fn report_ends(&self, ended: &[(u32, TaskEnd)]) {
        let node_count = self.plan.remote.as_ref().map_or(1, |r| r.nodes.len());
        for node in 0..node_count {
            let here: Vec<(u32, TaskEnd)> = ended
                .iter()
                .filter(|(rank, _)| self.node_of(*rank) == node)
                .copied()
                .collect();
            let name = self
                .plan
                .remote
                .as_ref()
                .and_then(|r| r.nodes.get(node))
                .unwrap_or(&self.plan.node);
            for (ranks, end) in step_exit::group_ends(&here) {
                let interrupted = self.interrupted && matches!(end, TaskEnd::Signaled { .. });
                if self.plan.verbosity > 0 {
                    crate::commands::srun::verbose::exit_notification(
                        &self.step_name(),
                        &ranks,
                        wait_status(end),
                    );
                    crate::commands::srun::verbose::completed(name, &ranks, end);
                }
                if let Some(line) = step_exit::report_line(name, &ranks, end) {
                    if !interrupted {
                        eprintln!("{line}");
                    } else if self.plan.verbosity > 0 {
                        // Slurm's srun reports tasks it killed itself at verbose level only.
                        crate::commands::srun::verbose::killed(name, &ranks, end);
                    }
                }
            }
        }
    }

    fn node_of(&self, rank: u32) -> usize {
        self.tasks
            .iter()
            .find(|t| t.rank == rank)
            .map_or(0, |t| t.node)
    }

    /// A node's supervisor went away: its tasks that did not report an end are lost with it.
    fn on_node_closed(&mut self, node: usize, finished: bool) {
        let mut lost = Vec::new();
        for task in self
            .tasks
            .iter_mut()
            .filter(|t| t.node == node && t.end.is_none())
        {
            let end = TaskEnd::Signaled {
                signal: libc::SIGKILL,
                core_dumped: false,
            };
            task.end = Some(end);
            lost.push((task.rank, end));
        }
        if lost.is_empty() {
            return;
        }
        if !finished {
            let name = self
                .plan
                .remote
                .as_ref()
                .and_then(|r| r.nodes.get(node))
                .map_or("?", String::as_str);
            eprintln!("srun: error: Lost contact with the tasks on {name}");
        }
        self.report_ends(&lost);
    }

    /// Lets what the ended tasks printed reach srun's output before their end is reported, as in Slurm.
    fn wait_for_output(&self, ended: &[(u32, TaskEnd)]) {
        let deadline = Instant::now() + TASK_OUTPUT_WAIT;
        let streams = self
            .outputs
            .iter()
            .filter(|(rank, _)| ended.iter().any(|(r, _)| r == rank));
        for (_, handle) in streams {
            while !handle.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }

    fn on_signal(&mut self, signal: Signal) {
        match signal {
            Signal::SIGINT => self.on_interrupt(),
            Signal::SIGTERM | Signal::SIGHUP | Signal::SIGQUIT => {
                if self.kill_at.is_none() {
                    eprintln!("srun: forcing job termination");
                    self.abort();
                }
            }
            other => self.signal_tasks(other),
        }
    }

    /// Ctrl-C: the first one shows the tasks' state, a second within a second (or the first with
    /// `--quit-on-interrupt`) interrupts the tasks and ends the step.
    fn on_interrupt(&mut self) {
        let now = Instant::now();
        let second = self
            .last_interrupt
            .is_some_and(|at| now.duration_since(at) <= INTERRUPT_WINDOW);
        self.last_interrupt = Some(now);
        if !second && !self.plan.quit_on_interrupt {
            eprintln!("srun: interrupt (one more within 1 sec to abort)");
            let running: Vec<u32> = self
                .tasks
                .iter()
                .filter(|t| t.end.is_none())
                .map(|t| t.rank)
                .collect();
            if !running.is_empty() {
                let word = if running.len() == 1 { "task" } else { "tasks" };
                eprintln!(
                    "srun: StepId={} {word} {}: running",
                    self.step_name(),
                    step_exit::rank_list(&running)
                );
            }
            return;
        }
        if self.kill_at.is_some() {
            return;
        }
        eprintln!("srun: sending Ctrl-C to StepId={}", self.step_name());
        self.interrupted = true;
        self.signal_tasks(Signal::SIGINT);
        eprintln!("srun: forcing job termination");
        self.abort();
    }

    /// The allocation ended under the step: stop the tasks as slurmstepd would.
    fn on_job_end(&mut self, job: Option<&JobRecord>) {
        self.job_ended = true;
        if self.kill_at.is_some() {
            return;
        }
        // slurmstepd's line comes first, as in Slurm's output.
        if job.is_some_and(|j| j.state == JobBaseState::Timeout) {
            self.cancelled_line(" DUE TO TIME LIMIT");
        }
        self.aborted_line();
        self.terminate();
    }

    /// The step passed its own time limit: slurmstepd's line, then SIGTERM and SIGKILL after KillWait.
    fn on_step_timed_out(&mut self) {
        if self.kill_at.is_some() || self.killed {
            return;
        }
        // Unlike a cancelled step or job, srun still ends with `Force Terminated StepId=...` here, as in Slurm.
        self.cancelled_line(" DUE TO TIME LIMIT");
        self.terminate();
    }

    /// `scancel JOB.STEP`: as slurmstepd does for a cancelled step, SIGKILL at once.
    fn on_step_cancelled(&mut self) {
        if self.killed {
            return;
        }
        self.step_cancelled = true;
        self.aborted_line();
        self.cancelled_line("");
        self.signal_tasks(Signal::SIGKILL);
        self.killed = true;
    }

    /// srun's own abort (a second Ctrl-C, `--quit-on-interrupt`, SIGTERM/SIGHUP/SIGQUIT): like Slurm's srun it
    /// kills the tasks at once (SIGKILL, no KillWait grace).
    fn abort(&mut self) {
        self.aborted_line();
        // The controller's word that the step is complete comes back to srun (Slurm's srun then prints no
        // `Force Terminated` line).
        self.aborted = true;
        if self.plan.verbosity > 0 {
            eprintln!("srun: Complete StepId={}+0 received", self.step_name());
        }
        self.cancelled_line("");
        self.signal_tasks(Signal::SIGCONT);
        self.signal_tasks(Signal::SIGKILL);
        self.killed = true;
        self.kill_at = Some(Instant::now());
    }

    fn aborted_line(&self) {
        eprintln!(
            "srun: Job step aborted: Waiting up to {} seconds for job step to finish.",
            self.plan.kill_wait_secs + 2
        );
    }

    /// slurmstepd's `*** STEP 12.0 ON vm CANCELLED AT <time> ***` line.
    fn cancelled_line(&self, due: &str) {
        let when = spur_core::grammar::values::begin::format_local_time(
            config::now_epoch(),
            config::utc_offset_secs(),
        );
        eprintln!(
            "slurmstepd-{node}: error: *** STEP {} ON {node} CANCELLED AT {when}{due} ***",
            self.step_name(),
            node = self.plan.node
        );
    }

    /// SIGCONT and SIGTERM now, SIGKILL after KillWait.
    fn terminate(&mut self) {
        self.signal_tasks(Signal::SIGCONT);
        self.signal_tasks(Signal::SIGTERM);
        self.kill_at =
            Some(Instant::now() + Duration::from_secs(u64::from(self.plan.kill_wait_secs)));
    }

    /// To every process of the step: each task leads a process group, kept (unreaped) until the step ends; on
    /// other nodes their supervisors do the same.
    fn signal_tasks(&self, signal: Signal) {
        for pid in self.tasks.iter().filter_map(|t| t.pid) {
            let _ = killpg(Pid::from_raw(pid), signal);
        }
        for link in &self.links {
            link.signal(signal as i32);
        }
    }
}
