//! `spurstepd --step`: runs one node's tasks of a step that srun started through the controller (a step on other
//! nodes than srun's own). The agent starts it with a [`StepSupervisorSpec`] on stdin; it connects back to srun
//! ([`spur_core::wire::step_io`]), starts the tasks as the job's user, forwards their output and exits, and passes
//! srun's signals and stdin on. The tasks never outlive the connection: if srun goes away, they are killed, as a step
//! whose srun is gone is in Slurm.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::sys::wait::WaitStatus;
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use spur_core::grammar::env::{task_environment, TaskPlacement};
use spur_core::model::step_launch::NodeStepLaunch;

use crate::step_attach::{Fanout, Stdins};
use crate::task_launch::{launch, TaskIdentity, TaskLaunch};
use spur_core::wire::step_io::{Frame, Kind, MAX_FRAME_DATA, STDERR, STDOUT};

/// How long the supervisor tries to reach srun.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a task's output may lag behind its end before the end is reported anyway (a background process of
/// the task may keep its streams open).
const OUTPUT_WAIT: Duration = Duration::from_millis(500);

/// What the agent hands the supervisor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepSupervisorSpec {
    pub launch: NodeStepLaunch,
    /// The job user's supplementary groups, as the agent looked them up.
    pub groups: Vec<u32>,
    /// This node's name, for the error lines srun prints (`slurmstepd-n2: error: ...`).
    pub node_name: String,
    /// slurm.conf `TaskProlog`, run as the job's user before each task.
    #[serde(default)]
    pub task_prolog: Option<std::path::PathBuf>,
    /// The node cannot run the step (its prolog failed): each task is reported failed with this reason.
    #[serde(default)]
    pub refuse: Option<String>,
    /// The job's limits on this node, one of its nodes other than the first (where the batch step's cgroups
    /// confine srun's tasks): the step gets its own cgroups `job_<id>/step_<n>` under them.
    #[serde(default)]
    pub cgroup: Option<spur_core::wire::supervisor::CgroupSpec>,
    /// Where the supervisor takes the agent's `sattach` requests (a Unix socket); `None`: no attaching.
    #[serde(default)]
    pub attach_socket: Option<std::path::PathBuf>,
    /// slurm.conf `TaskEpilog`, run as the job's user after each task.
    #[serde(default)]
    pub task_epilog: Option<std::path::PathBuf>,
    /// slurm.conf's `JobAcctGatherType`/`JobAcctGatherFrequency`: sample the tasks and send srun what they used
    /// ([`Kind::Usage`]) before `Done`; `None` (no gathering, or an agent that predates it) sends nothing.
    #[serde(default)]
    pub acct_gather: Option<spur_core::model::step_acct::AcctGather>,
}

impl StepSupervisorSpec {
    /// The step's task scripts: the node's slurm.conf ones and srun's `--task-prolog`/`--task-epilog`.
    fn task_scripts(&self) -> crate::task_script::TaskScripts {
        let path = |p: &Option<String>| {
            p.as_deref()
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from)
        };
        crate::task_script::TaskScripts {
            prolog: self.task_prolog.clone(),
            user_prolog: path(&self.launch.task_prolog),
            user_epilog: path(&self.launch.task_epilog),
            epilog: self.task_epilog.clone(),
        }
    }
}

/// Reads the spec from stdin and runs the step; the exit code says whether the step could run.
pub fn main_entry() -> i32 {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("spurstepd --step: cannot read the launch: {e}");
        return 1;
    }
    let spec: StepSupervisorSpec = match serde_json::from_str(&text) {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("spurstepd --step: bad launch: {e}");
            return 1;
        }
    };
    match run(&spec) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!(
                "spurstepd --step: step {}.{}: {e}",
                spec.launch.job_id, spec.launch.step_id
            );
            1
        }
    }
}

/// Frames to srun, from whichever thread has something to say, and their copies to attached clients.
#[derive(Clone)]
struct Link {
    srun: Arc<Mutex<TcpStream>>,
    attached: Fanout,
}

impl Link {
    /// A failed send means srun is gone; the reader side notices the same and kills the tasks.
    fn send(&self, frame: Frame) {
        self.try_send(frame);
    }

    /// [`Link::send`], saying whether the frame went out.
    fn try_send(&self, frame: Frame) -> bool {
        match frame.kind {
            Kind::Output => self.attached.output(&frame),
            Kind::ExecFailed | Kind::Exited => self.attached.end(&frame),
            Kind::Done => self.attached.finish(),
            _ => {}
        }
        match self.srun.lock() {
            Ok(mut stream) => stream.write_all(&frame.encode()).is_ok(),
            Err(_) => false,
        }
    }
}

struct Task {
    rank: u32,
    pid: i32,
    outputs: Vec<JoinHandle<()>>,
    /// The task's environment before its prologs changed it, for its epilogs.
    epilog_env: Vec<(String, String)>,
}

pub fn run(spec: &StepSupervisorSpec) -> Result<(), String> {
    let launch_spec = &spec.launch;
    apply_step_umask(&launch_spec.tasks.env);
    let stream = connect(&launch_spec.io_addr)?;
    let _ = stream.set_nodelay(true);
    let reader = stream.try_clone().map_err(|e| e.to_string())?;
    let link = Link {
        srun: Arc::new(Mutex::new(stream)),
        attached: Fanout::default(),
    };
    link.send(Frame::new(
        Kind::Hello,
        0,
        launch_spec.tasks.node_id,
        launch_spec.io_key.as_bytes().to_vec(),
    ));
    if let Some(reason) = &spec.refuse {
        refuse(&link, &launch_spec.tasks.ranks, reason);
        return Ok(());
    }
    let identity = identity(spec)?;
    let step_cgroups = match own_cgroups(spec) {
        Ok(cgroups) => cgroups,
        Err(reason) => {
            eprintln!("spurstepd --step: step not started: {reason}");
            refuse(&link, &launch_spec.tasks.ranks, &reason);
            return Ok(());
        }
    };
    // Without cgroups of its own the step's tasks join the batch step's (their limits are the job's).
    let shared_procs = match &step_cgroups {
        Some(_) => Vec::new(),
        None => {
            crate::cgroup::batch_step_procs(&spec.node_name, launch_spec.uid, launch_spec.job_id)
        }
    };
    let mut mpi = match setup_mpi(launch_spec, &pmix_spool(spec), &link) {
        Ok(mpi) => mpi,
        Err(reason) => {
            eprintln!("spurstepd --step: step not started: {reason}");
            refuse(&link, &launch_spec.tasks.ranks, &reason);
            return Ok(());
        }
    };
    // Started before the tasks, so the first sample falls one interval after they start.
    let mut sampler = spec.acct_gather.map(|settings| {
        crate::step_gather::StepSampler::start(
            settings,
            &spec.node_name,
            launch_spec.job_id,
            launch_spec.uid,
            launch_spec.step_id,
        )
    });
    let stdins: Stdins = Arc::new(Mutex::new(BTreeMap::new()));
    let mut tasks: Vec<Task> = Vec::new();
    for (localid, &rank) in launch_spec.tasks.ranks.iter().enumerate() {
        let own_procs = match &step_cgroups {
            Some(cgroups) => cgroups.attach_files(rank).unwrap_or_else(|e| {
                eprintln!("spurstepd --step: cannot open task {rank}'s cgroups: {e}");
                Vec::new()
            }),
            None => Vec::new(),
        };
        let cgroup_fds: Vec<i32> = own_procs
            .iter()
            .chain(&shared_procs)
            .map(AsRawFd::as_raw_fd)
            .collect();
        match start_task(
            spec,
            identity.as_ref(),
            &cgroup_fds,
            (rank, localid),
            &link,
            mpi.as_ref(),
        ) {
            Ok((task, stdin)) => {
                if let Some(mpi) = mpi.as_ref() {
                    mpi.task_started(rank, task.pid);
                }
                if let Ok(mut stdins) = stdins.lock() {
                    stdins.insert(rank, stdin);
                }
                tasks.push(task);
            }
            Err(e) => {
                for task in &tasks {
                    let _ = killpg(Pid::from_raw(task.pid), Signal::SIGKILL);
                }
                return Err(e);
            }
        }
    }
    if let Some(mpi) = mpi.as_mut() {
        mpi.tasks_started();
    }
    let fabric = mpi.as_ref().map(|m| m.fabric.clone());
    let pids: Vec<i32> = tasks.iter().map(|t| t.pid).collect();
    let _attach_socket = spec.attach_socket.as_deref().and_then(|path| {
        crate::step_attach::serve(path, link.attached.clone(), stdins.clone())
            .map_err(|e| eprintln!("spurstepd --step: sattach cannot reach this step: {e}"))
            .ok()
    });
    let srun_fabric = fabric.clone();
    std::thread::spawn(move || serve_srun(reader, &stdins, &pids, srun_fabric.as_ref()));
    let oom_kills = || step_cgroups.as_ref().map_or(0, |c| c.step_oom_kills());
    let kills_before = oom_kills();
    let step = format!("{}.{}", launch_spec.job_id, launch_spec.step_id);
    let scripts = spec.task_scripts();
    let epilogs = |task: &Task| {
        crate::task_script::run_task_epilogs(
            &scripts,
            &task.epilog_env,
            Path::new(&launch_spec.work_dir),
            identity.as_ref(),
        )
    };
    wait_tasks(
        &mut tasks,
        &link,
        &|| {
            let kills = oom_kills().saturating_sub(kills_before);
            (kills > 0).then(|| crate::cgroup::oom_text(&step, kills))
        },
        &epilogs,
        sampler.as_mut(),
    );
    if let Some(fabric) = &fabric {
        fabric.fail("the step has ended");
    }
    if let Some(mpi) = mpi.as_mut() {
        mpi.finish();
    }
    for task in &tasks {
        // Whatever a task left running in its process group ends with the step.
        let _ = killpg(Pid::from_raw(task.pid), Signal::SIGKILL);
    }
    if let Some(cgroups) = step_cgroups {
        for failed in cgroups.remove_step() {
            eprintln!("spurstepd --step: cannot remove the step's cgroup {failed}");
        }
    }
    if let Some(sampler) = sampler {
        match serde_json::to_vec(&sampler.finish()) {
            Ok(report) => link.send(Frame::new(Kind::Usage, 0, 0, report)),
            Err(e) => eprintln!("spurstepd --step: cannot encode the step's usage: {e}"),
        }
    }
    link.send(Frame::new(Kind::Done, 0, 0, Vec::new()));
    Ok(())
}

/// The step's own cgroups under the job's on this node, made before any task starts, when the agent sent the
/// job's limits here; what cannot be enforced is logged and the step runs anyway, as a batch job does, unless
/// confinement is required (then the reason the step cannot start here).
fn own_cgroups(spec: &StepSupervisorSpec) -> Result<Option<crate::cgroup::JobCgroups>, String> {
    let Some(limits) = spec.cgroup.as_ref() else {
        return Ok(None);
    };
    let launch = &spec.launch;
    let setup = crate::cgroup::create(
        crate::cgroup::Hierarchy::detect().as_ref(),
        limits,
        &spec.node_name,
        launch.uid,
        launch.job_id,
        &format!("step_{}", launch.step_id),
    );
    for warning in &setup.warnings {
        eprintln!("spurstepd --step: warning: {warning}");
    }
    setup.enforced(limits, false)
}

/// The step's MPI plugin on this node, its fabric speaking through srun's link ([`crate::step_mpi`]).
fn setup_mpi(
    launch: &NodeStepLaunch,
    spool: &std::path::Path,
    link: &Link,
) -> Result<Option<crate::step_mpi::StepMpi>, String> {
    let fabric_link = link.clone();
    let abort_link = link.clone();
    crate::step_mpi::StepMpi::setup(
        launch,
        spool,
        Box::new(move |frame| fabric_link.try_send(frame)),
        Box::new(move |rank, code| {
            abort_link.send(Frame::new(
                Kind::AbortStep,
                rank,
                u32::try_from(code).unwrap_or(1),
                Vec::new(),
            ));
        }),
    )
}

/// This node's private directory for the PMIx server (Slurm's SlurmdSpoolDir): the agent's step directory, beside
/// the step's attach socket; a supervisor started without one uses the system's temporary directory.
fn pmix_spool(spec: &StepSupervisorSpec) -> std::path::PathBuf {
    spec.attach_socket
        .as_deref()
        .and_then(std::path::Path::parent)
        .map_or_else(std::env::temp_dir, std::path::Path::to_path_buf)
}

/// Tells srun that none of this node's tasks can start: an error line and exit status 1 for each.
fn refuse(link: &Link, ranks: &[u32], reason: &str) {
    for &rank in ranks {
        link.send(Frame::new(
            Kind::ExecFailed,
            rank,
            0,
            reason.as_bytes().to_vec(),
        ));
        link.send(Frame::new(Kind::Exited, rank, 1 << 8, Vec::new()));
    }
    link.send(Frame::new(Kind::Done, 0, 0, Vec::new()));
}

fn connect(addr: &str) -> Result<TcpStream, String> {
    let targets: Vec<_> = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve srun's address {addr}: {e}"))?
        .collect();
    let mut last = format!("no address for {addr}");
    for target in targets {
        match TcpStream::connect_timeout(&target, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = format!("cannot reach srun at {target}: {e}"),
        }
    }
    Err(last)
}

/// The job's user, when the supervisor runs as root; a supervisor started by an unprivileged agent can only run
/// tasks for its own user.
fn identity(spec: &StepSupervisorSpec) -> Result<Option<TaskIdentity>, String> {
    let launch = &spec.launch;
    if nix::unistd::geteuid().is_root() {
        return Ok(Some(TaskIdentity {
            uid: launch.uid,
            gid: launch.gid,
            groups: spec.groups.clone(),
        }));
    }
    if nix::unistd::geteuid().as_raw() != launch.uid {
        return Err(format!(
            "cannot run tasks as uid {} without root",
            launch.uid
        ));
    }
    Ok(None)
}

/// Where one task's streams go: its descriptors, and what the supervisor keeps of them.
struct TaskStreams {
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: OwnedFd,
    /// The task's stdin as the supervisor writes it.
    input: File,
    /// What the supervisor reads of the task's output, as (descriptor, stream).
    outputs: Vec<(OwnedFd, u32)>,
    /// The streams are a pseudo-terminal that becomes the task's controlling terminal.
    terminal: bool,
}

impl TaskStreams {
    fn pipes() -> Result<TaskStreams, String> {
        let pipe = || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| e.to_string());
        let (stdin_read, stdin_write) = pipe()?;
        let (out_read, out_write) = pipe()?;
        let (err_read, err_write) = pipe()?;
        Ok(TaskStreams {
            stdin: stdin_read,
            stdout: out_write,
            stderr: err_write,
            input: File::from(stdin_write),
            outputs: vec![(out_read, STDOUT), (err_read, STDERR)],
            terminal: false,
        })
    }

    /// `--pty`'s task 0: all three streams are a pseudo-terminal's slave side; what it shows goes to srun as
    /// stdout, srun's stdin for rank 0 goes into the terminal.
    fn terminal() -> Result<TaskStreams, String> {
        let (master, slave) =
            crate::pty::open(None).map_err(|e| format!("cannot open a pseudo-terminal: {e}"))?;
        let dup = |fd: &OwnedFd| fd.try_clone().map_err(|e| e.to_string());
        Ok(TaskStreams {
            stdin: dup(&slave)?,
            stdout: dup(&slave)?,
            stderr: slave,
            outputs: vec![(dup(&master)?, STDOUT)],
            input: File::from(master),
            terminal: true,
        })
    }
}

fn start_task(
    spec: &StepSupervisorSpec,
    identity: Option<&TaskIdentity>,
    cgroup_procs: &[i32],
    (rank, localid): (u32, usize),
    link: &Link,
    mpi: Option<&crate::step_mpi::StepMpi>,
) -> Result<(Task, File), String> {
    let launch_spec = &spec.launch;
    // --multi-prog gives each rank its own command.
    let command = launch_spec
        .tasks
        .argv
        .get(localid)
        .unwrap_or(&launch_spec.argv);
    let streams = if launch_spec.pty && rank == 0 {
        TaskStreams::terminal()?
    } else {
        TaskStreams::pipes()?
    };
    let mut env = task_env(spec, (rank, localid), mpi);
    let epilog_env = env.clone();
    let prologs = crate::task_script::run_task_prologs(&spec.task_scripts(), &mut env, identity);
    if !prologs.printed.is_empty() {
        link.send(Frame::new(
            Kind::Output,
            rank,
            STDOUT,
            prologs.printed.into_bytes(),
        ));
    }
    // A failed prolog ends the task with its status before the program runs, saying so on the task's stderr, as
    // slurmstepd's task process does: a stand-in takes the program's place.
    let stand_in = prologs.failed.map(|(status, lines)| {
        crate::task_script::stand_in_argv(
            status,
            &crate::task_script::error_text(&spec.node_name, &lines),
        )
    });
    let (program, args) = stand_in
        .as_ref()
        .unwrap_or(command)
        .split_first()
        .ok_or_else(|| "no command to run".to_string())?;
    let bind_report = launch_spec
        .cpu_bind
        .as_ref()
        .filter(|b| spur_core::grammar::cpu_bind::is_verbose(&b.policy))
        .map(|b| {
            spur_core::grammar::cpu_bind::verbose_line_start(
                &b.policy,
                &launch_spec.tasks.node,
                rank,
                localid as u32,
            )
        });
    let launched = launch(&TaskLaunch {
        program,
        args,
        env: &env,
        work_dir: Path::new(&launch_spec.work_dir),
        stdin: streams.stdin.as_raw_fd(),
        stdout: streams.stdout.as_raw_fd(),
        stderr: streams.stderr.as_raw_fd(),
        identity,
        cgroup_procs,
        controlling_tty: streams.terminal,
        binding: launch_spec
            .cpu_bind
            .as_ref()
            .and_then(|b| b.task_binding(localid as u32)),
        bind_report: bind_report.as_deref().map(str::as_bytes),
        inherit_fd: mpi.and_then(|m| m.task_fd(localid)),
    })
    .map_err(|e| e.to_string())?;
    // Only the task holds its ends now, so its output ends when it (and what it started) is gone.
    drop((streams.stdin, streams.stdout, streams.stderr));
    if let Some(errno) = launched.exec_error {
        link.send(Frame::new(
            Kind::ExecFailed,
            rank,
            0,
            format!("execve(): {program}: {}", errno.desc()).into_bytes(),
        ));
    }
    let outputs = streams
        .outputs
        .into_iter()
        .map(|(fd, stream)| forward(fd, rank, stream, link.clone()))
        .collect();
    Ok((
        Task {
            rank,
            pid: launched.pid,
            outputs,
            epilog_env,
        },
        streams.input,
    ))
}

/// Sends one task stream to srun as it comes.
fn forward(read: OwnedFd, rank: u32, stream: u32, link: Link) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut file = File::from(read);
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match file.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    // `read` never reports more than the buffer holds; were it to, nothing is sent.
                    for chunk in buf.get(..n).unwrap_or_default().chunks(MAX_FRAME_DATA) {
                        link.send(Frame::new(Kind::Output, rank, stream, chunk.to_vec()));
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    })
}

/// srun's frames: signals for every task, stdin per task, the step fabric's results. When srun goes away the
/// tasks are killed and pending collectives fail.
fn serve_srun(
    mut reader: TcpStream,
    stdins: &Stdins,
    pids: &[i32],
    fabric: Option<&crate::fabric::StepFabric>,
) {
    loop {
        match Frame::read_from(&mut reader) {
            Ok(Some(frame)) => match frame.kind {
                Kind::Signal => {
                    let Ok(signal) = Signal::try_from(i32::try_from(frame.aux).unwrap_or(0)) else {
                        continue;
                    };
                    for &pid in pids {
                        let _ = killpg(Pid::from_raw(pid), signal);
                    }
                }
                Kind::Stdin => {
                    let Ok(mut stdins) = stdins.lock() else {
                        continue;
                    };
                    if frame.data.is_empty() {
                        stdins.remove(&frame.rank);
                        continue;
                    }
                    let failed = stdins
                        .get_mut(&frame.rank)
                        .is_some_and(|f| f.write_all(&frame.data).is_err());
                    if failed {
                        stdins.remove(&frame.rank);
                    }
                }
                Kind::GatheredPart | Kind::Gathered | Kind::GatherFailed => {
                    if let Some(fabric) = fabric {
                        fabric.deliver(frame);
                    }
                }
                _ => {}
            },
            Ok(None) | Err(_) => {
                if let Some(fabric) = fabric {
                    fabric.fail("srun is gone");
                }
                for &pid in pids {
                    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
                }
                return;
            }
        }
    }
}

/// Reaps the tasks as they end and reports each end once its output is through (or [`OUTPUT_WAIT`] passed).
/// Reports each task's end to srun as it happens. `out_of_memory` gives slurmstepd's line when the step's memory
/// cgroup has killed something by then: the task then ended out of memory, and srun prints the line once, before
/// the task's end (srun may be gone once every task is reported).
/// Each task's epilogs run before its end is reported, as in slurmstepd; their errors go to srun's stderr.
fn wait_tasks(
    tasks: &mut [Task],
    link: &Link,
    out_of_memory: &dyn Fn() -> Option<String>,
    epilogs: &dyn Fn(&Task) -> Vec<String>,
    mut sampler: Option<&mut crate::step_gather::StepSampler>,
) {
    let mut left = tasks.len();
    let mut oom_reported = false;
    while left > 0 {
        // wait4 rather than waitpid: the kernel's count of each task's CPU time and peak memory comes with it.
        let Some((pid, status, usage)) = crate::step_gather::wait4_any() else {
            return;
        };
        let raw = match WaitStatus::from_raw(Pid::from_raw(pid), status) {
            Ok(WaitStatus::Exited(_, code)) => (code & 0xff) << 8,
            Ok(WaitStatus::Signaled(_, signal, core)) => {
                signal as i32 | if core { 0x80 } else { 0 }
            }
            _ => continue,
        };
        let Some(task) = tasks.iter_mut().find(|t| t.pid == pid) else {
            continue;
        };
        if let Some(sampler) = sampler.as_deref_mut() {
            sampler.reaped(task.rank, usage);
        }
        let deadline = Instant::now() + OUTPUT_WAIT;
        for output in std::mem::take(&mut task.outputs) {
            while !output.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
            if output.is_finished() {
                let _ = output.join();
            }
        }
        if let Some(line) = out_of_memory() {
            if !oom_reported {
                link.send(Frame::new(Kind::StepError, 0, 0, line.into_bytes()));
                oom_reported = true;
            }
            link.send(Frame::new(Kind::OutOfMemory, task.rank, 0, Vec::new()));
        }
        for line in epilogs(task) {
            link.send(Frame::new(Kind::StepError, 0, 0, line.into_bytes()));
        }
        link.send(Frame::new(
            Kind::Exited,
            task.rank,
            u32::try_from(raw).unwrap_or(0),
            Vec::new(),
        ));
        left -= 1;
    }
}

/// Task `rank`'s environment before its prologs: the node's step environment, its ranks, the step id.
fn task_env(
    spec: &StepSupervisorSpec,
    (rank, localid): (u32, usize),
    mpi: Option<&crate::step_mpi::StepMpi>,
) -> Vec<(String, String)> {
    let launch_spec = &spec.launch;
    let mut env = task_environment(
        &launch_spec.tasks.env,
        TaskPlacement {
            procid: rank,
            localid: u32::try_from(localid).unwrap_or(u32::MAX),
        },
    );
    // srun built the environment before the controller numbered the step.
    for (key, value) in &mut env {
        if key == "SLURM_STEP_ID" || key == "SLURM_STEPID" {
            *value = launch_spec.step_id.to_string();
        }
    }
    if let Some(policy) = &launch_spec.gpu_bind {
        spur_core::grammar::gpu_bind::apply_to_env(
            policy,
            &mut env,
            u32::try_from(localid).unwrap_or(0),
        );
    }
    if let Some(mpi) = mpi {
        mpi.task_env(&mut env, localid, rank);
    }
    env
}

/// Like slurmstepd's `set_umask`: srun's umask, passed as `SLURM_UMASK` (octal) in the step's environment, becomes
/// this supervisor's, so the tasks it forks and the files it opens for them get it. Without one (or with a value
/// that is not octal) the supervisor keeps its own.
fn apply_step_umask(env: &[(String, String)]) {
    let mask = env
        .iter()
        .find(|(k, _)| k == "SLURM_UMASK")
        .and_then(|(_, v)| u32::from_str_radix(v.trim(), 8).ok());
    if let Some(mask) = mask {
        nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(mask & 0o777));
    }
}
