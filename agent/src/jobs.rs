//! The node's jobs, kept only on disk: one directory per job under the spool (`job<id>`), owned by its spurstepd.
//! Nothing lives in the agent's memory that a restart would lose: a restarted agent rescans the spool, reports
//! results the controller has not acknowledged, and keeps talking to the supervisors that are still running.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use spur_core::grammar::env::{batch_environment, BatchEnvContext};
use spur_core::model::isolation::parse_cpu_list;
use spur_core::model::job::JobRecord;
use spur_core::model::step_launch::NodeStepLaunch;
use spur_core::wire::agent_proto::{JobOutcome, LaunchContext, TerminateReason};
use spur_core::wire::api::SignalScope;
use spur_core::wire::supervisor::{
    self as protocol, LaunchSpec, Outcome, Request, PROTOCOL_VERSION,
};
use spur_stepd::fork_client::ForkServer;
use spur_stepd::step_tasks::StepSupervisorSpec;

use crate::isolation::Isolation;
use crate::users::UserInfo;

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("cannot prepare job directory {path}: {source}")]
    Prepare {
        path: String,
        source: std::io::Error,
    },
    #[error("job {0} has no batch script")]
    NoScript(u32),
    #[error("cannot start spurstepd: {0}")]
    Stepd(#[from] spur_stepd::ClientError),
}

/// The job directory's record of which run of the job it holds.
const RUN_FILE: &str = "run";

pub struct JobSpool {
    root: PathBuf,
    stepd_binary: PathBuf,
    /// Forks batch supervisors, sparing each job an exec of `stepd_binary`.
    fork_server: ForkServer,
    node_name: String,
    hostname: String,
    isolation: Option<Isolation>,
    prolog: Option<PathBuf>,
    epilog: Option<PathBuf>,
    task_prolog: Option<PathBuf>,
    task_epilog: Option<PathBuf>,
    /// slurm.conf's `JobAcctGatherType`/`Frequency`, for the batch supervisors.
    acct_gather: Option<spur_core::model::step_acct::AcctGather>,
    /// When this machine booted (`/proc/stat` btime); job directories older than that are a past boot's.
    booted_at: Option<i64>,
}

impl JobSpool {
    pub fn new(
        root: PathBuf,
        stepd_binary: PathBuf,
        node_name: String,
        hostname: String,
    ) -> std::io::Result<Self> {
        std::fs::create_dir_all(&root)?;
        Ok(JobSpool {
            root,
            fork_server: ForkServer::new(stepd_binary.clone()),
            stepd_binary,
            node_name,
            hostname,
            isolation: None,
            prolog: None,
            epilog: None,
            task_prolog: None,
            task_epilog: None,
            acct_gather: None,
            booted_at: None,
        })
    }

    /// Lets the spool tell a past boot's job directories from this one's (see [`JobSpool::orphaned_jobs`]).
    pub fn with_boot_time(mut self, booted_at: i64) -> Self {
        self.booted_at = (booted_at > 0).then_some(booted_at);
        self
    }

    /// The job's directory was last changed before this machine booted: no supervisor of it can be alive, its
    /// files may have lost what was not yet on disk (they are not fsynced), and the pids it recorded now belong to
    /// other processes. A directory being launched into right now is always newer than the boot.
    pub fn from_earlier_boot(&self, job_id: u32) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Some(booted_at) = self.booted_at else {
            return false;
        };
        std::fs::metadata(self.job_dir(job_id)).is_ok_and(|m| m.mtime() < booted_at)
    }

    /// The spool directory itself (job directories and the wake socket live in it).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Confines the jobs launched from now on (cgroup.conf asked for it).
    pub fn with_isolation(mut self, isolation: Option<Isolation>) -> Self {
        self.isolation = isolation;
        self
    }

    /// Has the batch supervisors measure their jobs' usage (`jobacct_gather`) from now on.
    pub fn with_acct_gather(
        mut self,
        acct_gather: Option<spur_core::model::step_acct::AcctGather>,
    ) -> Self {
        self.acct_gather = acct_gather;
        self
    }

    /// Runs slurm.conf's `Prolog`/`Epilog` (as root) and `TaskProlog`/`TaskEpilog` (as the job's user) around the
    /// jobs launched from now on.
    pub fn with_node_scripts(
        mut self,
        prolog: Option<PathBuf>,
        epilog: Option<PathBuf>,
        task_prolog: Option<PathBuf>,
        task_epilog: Option<PathBuf>,
    ) -> Self {
        self.prolog = prolog;
        self.epilog = epilog;
        self.task_prolog = task_prolog;
        self.task_epilog = task_epilog;
        self
    }

    /// The prolog and epilog with the environment slurmd 22.05 gives them (observed: job ids, owner, partition,
    /// node list, output paths, restart count; no PATH).
    fn node_scripts(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
        user: &UserInfo,
    ) -> Option<protocol::NodeScripts> {
        if self.prolog.is_none()
            && self.epilog.is_none()
            && self.task_prolog.is_none()
            && self.task_epilog.is_none()
        {
            return None;
        }
        let work_dir = PathBuf::from(&job.spec.work_dir);
        let (stdout, stderr) = output_paths(job, &self.node_name);
        let nodes = job
            .alloc
            .as_ref()
            .map(|a| a.node_names.clone())
            .unwrap_or_default();
        let cpus = job.alloc.as_ref().map_or(1, |a| a.cpus);
        let job_id = job.job_id.to_string();
        let mut env = vec![
            ("SLURMD_NODENAME", self.node_name.clone()),
            ("SLURM_CLUSTER_NAME", context.cluster_name.clone()),
            ("SLURM_CONF", context.slurm_conf.clone()),
            ("SLURM_JOBID", job_id.clone()),
            ("SLURM_JOB_CPUS_PER_NODE", cpus.to_string()),
            ("SLURM_JOB_GID", job.spec.group_id.to_string()),
            ("SLURM_JOB_ID", job_id),
            ("SLURM_JOB_NUM_NODES", nodes.len().max(1).to_string()),
            ("SLURM_JOB_PARTITION", job.partition.clone()),
            ("SLURM_JOB_RESTART_COUNT", job.restarts.to_string()),
            (
                "SLURM_JOB_STDIN",
                job.spec.stdin.as_ref().map_or_else(
                    || "/dev/null".to_string(),
                    |p| {
                        work_dir
                            .join(expand(job, p, &self.node_name))
                            .display()
                            .to_string()
                    },
                ),
            ),
            (
                "SLURM_JOB_STDOUT",
                work_dir.join(&stdout).display().to_string(),
            ),
        ];
        if job.spec.stderr.is_some() {
            env.push((
                "SLURM_JOB_STDERR",
                work_dir.join(&stderr).display().to_string(),
            ));
        }
        env.extend([
            ("SLURM_JOB_UID", job.spec.user_id.to_string()),
            ("SLURM_JOB_USER", user.name.clone()),
            ("SLURM_JOB_WORK_DIR", job.spec.work_dir.clone()),
            (
                "SLURM_NODELIST",
                spur_core::grammar::hostlist::compress(&nodes),
            ),
            ("SLURM_UID", job.spec.user_id.to_string()),
        ]);
        Some(protocol::NodeScripts {
            prolog: self.prolog.clone(),
            epilog: self.epilog.clone(),
            env: env.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            task_prolog: self.task_prolog.clone(),
            task_epilog: self.task_epilog.clone(),
        })
    }

    /// The cores held by the jobs running here other than `job_id`, as their launch requests (and the limits
    /// records of their steps on this node) name them.
    fn busy_cores(&self, job_id: u32) -> BTreeSet<u32> {
        let mut busy = self.step_cores(job_id);
        busy.extend(self.batch_cores(job_id));
        busy
    }

    fn batch_cores(&self, job_id: u32) -> BTreeSet<u32> {
        self.running_jobs()
            .into_iter()
            .filter(|&id| id != job_id)
            .filter_map(|id| {
                let path = self.job_dir(id).join(protocol::LAUNCH_FILE);
                let spec: LaunchSpec = spur_stepd::files::read_json_opt(&path).ok()??;
                parse_cpu_list(spec.cgroup?.cpus.as_deref()?)
            })
            .flatten()
            .collect()
    }

    pub fn job_dir(&self, job_id: u32) -> PathBuf {
        self.root.join(format!("job{job_id:05}"))
    }

    /// Job ids with a directory in the spool, whatever their state.
    pub fn known_jobs(&self) -> Vec<u32> {
        let Ok(entries) = std::fs::read_dir(&self.root) else {
            return Vec::new();
        };
        let mut ids: Vec<u32> = entries
            .filter_map(Result::ok)
            .filter_map(|e| e.file_name().to_str()?.strip_prefix("job")?.parse().ok())
            .collect();
        ids.sort_unstable();
        ids
    }

    /// Jobs the controller should consider running here: launched, and no result yet (or a live supervisor).
    pub fn running_jobs(&self) -> Vec<u32> {
        self.known_jobs()
            .into_iter()
            .filter(|&id| {
                let dir = self.job_dir(id);
                !matches!(spur_stepd::read_result(&dir), Ok(Some(_))) || spur_stepd::is_alive(&dir)
            })
            .collect()
    }

    /// Results waiting for the controller's acknowledgement.
    pub fn finished_jobs(&self) -> Vec<JobOutcome> {
        self.known_jobs()
            .into_iter()
            .filter_map(|id| self.finished_job(id))
            .collect()
    }

    /// The job's result, when its directory holds one.
    pub fn finished_job(&self, job_id: u32) -> Option<JobOutcome> {
        let result = spur_stepd::read_result(&self.job_dir(job_id)).ok()??;
        let mut outcome = outcome_of(job_id, &result);
        outcome.run = self.run_of(job_id);
        Some(outcome)
    }

    /// The run of the job this node holds (the job's `restarts` at its launch); `None` for a directory an agent
    /// that did not record runs left.
    pub fn run_of(&self, job_id: u32) -> Option<u32> {
        let text = std::fs::read_to_string(self.job_dir(job_id).join(RUN_FILE)).ok()?;
        text.trim().parse().ok()
    }

    /// Records which run of the job the directory holds, before anything of that run can report.
    pub fn record_run(&self, job_id: u32, run: u32) -> std::io::Result<()> {
        let dir = self.job_dir(job_id);
        std::fs::create_dir_all(&dir)?;
        spur_stepd::files::write_atomic(&dir.join(RUN_FILE), format!("{run}\n").as_bytes(), 0o644)
    }

    /// An earlier run of the job than `run` still has its supervisor here.
    pub fn older_run_alive(&self, job_id: u32, run: u32) -> bool {
        self.run_of(job_id).is_some_and(|held| held < run)
            && spur_stepd::is_alive(&self.job_dir(job_id))
    }

    /// The controller speaks of run `run` of the job: what this node holds of an earlier run is obsolete (the
    /// controller starts a run again only after it committed the previous one's result, so that result's
    /// acknowledgement was merely lost) and is removed. A supervisor still alive is left alone: its run ends
    /// through the controller's terminate, and the directory stays until then. True when something was removed.
    pub fn retire_older_run(&self, job_id: u32, run: u32) -> bool {
        let dir = self.job_dir(job_id);
        let older = self.run_of(job_id).is_some_and(|held| held < run);
        if !older || spur_stepd::is_alive(&dir) {
            return false;
        }
        tracing::info!(
            job_id,
            run,
            "dropping the result of an earlier run of the job"
        );
        self.forget(job_id, None);
        true
    }

    /// A supervisor that died without writing a result (killed with -9, machine crash) left a job nobody runs.
    /// A directory without a pid file is a launch in progress, unless it is from before the boot.
    pub fn orphaned_jobs(&self) -> Vec<u32> {
        self.known_jobs()
            .into_iter()
            .filter(|&id| {
                let dir = self.job_dir(id);
                let launched = dir.join(protocol::PID_FILE).exists() || self.from_earlier_boot(id);
                launched
                    && !spur_stepd::is_alive(&dir)
                    && !matches!(spur_stepd::read_result(&dir), Ok(Some(_)))
            })
            .collect()
    }

    /// Kills and removes what a job's supervisor left in its cgroups (it crashed, or could not remove them).
    /// Only this spool's jobs are named, so another cluster's agent with the same node name is never touched.
    pub fn remove_cgroups(&self, job_id: u32) {
        if !nix::unistd::geteuid().is_root() {
            return;
        }
        let Some(hierarchy) = spur_stepd::cgroup::Hierarchy::detect() else {
            return;
        };
        if !spur_stepd::cgroup::clean_jobs(&hierarchy, &self.node_name, &[job_id]).is_empty() {
            tracing::warn!(job_id, "removed the cgroups its spurstepd left behind");
        }
    }

    /// The controller committed the job's result (of `run`, when it says): its directory goes. A directory that
    /// holds another run, launched since, stays.
    pub fn forget(&self, job_id: u32, run: Option<u32>) {
        if let (Some(acked), Some(held)) = (run, self.run_of(job_id)) {
            if acked != held {
                tracing::debug!(job_id, acked, held, "acknowledgement of another run; kept");
                return;
            }
        }
        self.remove_cgroups(job_id);
        let _ = std::fs::remove_file(self.prolog_marker(job_id));
        let dir = self.job_dir(job_id);
        if let Err(e) = std::fs::remove_dir_all(&dir) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(job_id, "cannot remove {}: {e}", dir.display());
            }
        }
    }

    /// Writes the script and launch spec and starts the supervisor. A job already in the spool is not started
    /// twice (the controller may resend a launch after a reconnect).
    pub fn launch(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
        user: &UserInfo,
    ) -> Result<(), LaunchError> {
        self.retire_older_run(job.job_id, job.restarts);
        let dir = self.job_dir(job.job_id);
        if dir.join(protocol::LAUNCH_FILE).exists() {
            return Ok(());
        }
        let script = job
            .spec
            .script
            .as_deref()
            .ok_or(LaunchError::NoScript(job.job_id))?;
        let prepare = |source| LaunchError::Prepare {
            path: dir.display().to_string(),
            source,
        };
        std::fs::create_dir_all(&dir).map_err(prepare)?;
        set_job_dir_access(&dir, user).map_err(prepare)?;
        self.record_run(job.job_id, job.restarts).map_err(prepare)?;
        let script_path = dir.join(protocol::SCRIPT_FILE);
        std::fs::write(&script_path, script).map_err(prepare)?;
        set_script_owner(&script_path, user).map_err(prepare)?;
        let spec = self.launch_spec(job, context, user, script_path);
        spur_stepd::client::write_launch_spec(&dir, &spec)?;
        self.start_supervisor(&dir)?;
        Ok(())
    }

    /// Starts the supervisor of a job directory that holds its launch spec: forked by the fork server, or
    /// executed when the server cannot.
    fn start_supervisor(&self, dir: &Path) -> Result<u32, spur_stepd::ClientError> {
        use spur_stepd::ClientError;
        match self.fork_server.start(dir) {
            Err(ClientError::ForkServer(e)) => {
                tracing::warn!(
                    "spurstepd fork server failed ({e}); executing {} for this job",
                    self.stepd_binary.display()
                );
                spur_stepd::client::exec_supervisor(dir, &self.stepd_binary)
            }
            Err(ClientError::ForkServerOff) => {
                spur_stepd::client::exec_supervisor(dir, &self.stepd_binary)
            }
            started => started,
        }
    }

    fn launch_spec(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
        user: &UserInfo,
        script_path: PathBuf,
    ) -> LaunchSpec {
        let mem_per_cpu = spur_core::grammar::env::applied_mem_per_cpu(job);
        let env_context = BatchEnvContext {
            node_name: &self.node_name,
            cluster_name: &context.cluster_name,
            slurm_conf: &context.slurm_conf,
            controller_addr: &context.controller_addr,
            array: context.array_summary.or_else(|| {
                spur_core::wire::agent_proto::ArraySummary::of(&context.array_task_ids)
            }),
            mem_per_cpu_mb: mem_per_cpu,
            user_home: Some(&user.home),
            user_shell: Some(&user.shell),
            topology: context.topology_addr.as_ref(),
            het_components: &context.het_components,
        };
        let mut env = batch_environment(job, &env_context);
        if crate::login_env::wanted(&env) {
            match crate::login_env::merged(user, &env, crate::login_env::DEFAULT_TIMEOUT) {
                Some(merged) => env = merged,
                None => tracing::info!(
                    job_id = job.job_id,
                    "cannot read the login environment of {}; running with the job's own",
                    user.name
                ),
            }
        }
        let umask = batch_umask(&mut env);
        let work_dir = PathBuf::from(&job.spec.work_dir);
        let (stdout, stderr) = output_paths(job, &self.node_name);
        LaunchSpec {
            version: PROTOCOL_VERSION,
            job_id: job.job_id,
            node_name: self.node_name.clone(),
            hostname: self.hostname.clone(),
            uid: job.spec.user_id,
            gid: job.spec.group_id,
            supplementary_gids: user.supplementary_gids.clone(),
            user_name: user.name.clone(),
            work_dir: work_dir.clone(),
            env,
            script_path,
            argv: job.spec.argv.clone(),
            stdin_path: job
                .spec
                .stdin
                .as_ref()
                .map(|p| work_dir.join(expand(job, p, &self.node_name))),
            stdout_path: work_dir.join(stdout),
            stderr_path: work_dir.join(stderr),
            open_mode: match job.spec.open_mode {
                spur_core::model::job::OpenMode::Truncate => protocol::OpenMode::Truncate,
                spur_core::model::job::OpenMode::Append => protocol::OpenMode::Append,
            },
            kill_wait_secs: context.kill_wait_secs,
            umask,
            cgroup: self
                .isolation
                .as_ref()
                .map(|i| i.spec_for(job, &self.node_name, context, &self.busy_cores(job.job_id))),
            node_scripts: self.node_scripts(job, context, user).map(|mut scripts| {
                // `PrologFlags=Alloc` ran it here when the job was allocated.
                if self.prolog_ran(job) {
                    scripts.prolog = None;
                }
                scripts
            }),
            rlimits: job.spec.rlimits.clone(),
            acct_gather: self.acct_gather,
        }
    }

    /// Starts the supervisor of this node's tasks of an srun step. Its log lives in `<spool>/steps/`, outside
    /// the job directories (which only the batch step's node has).
    pub fn launch_step(
        &self,
        launch: &NodeStepLaunch,
        user: &UserInfo,
        refuse: Option<String>,
        cgroup: Option<protocol::CgroupSpec>,
    ) -> Result<u32, LaunchError> {
        let dir = self.root.join("steps");
        std::fs::create_dir_all(&dir).map_err(|source| LaunchError::Prepare {
            path: dir.display().to_string(),
            source,
        })?;
        let log = dir.join(format!("job{:05}.{}.log", launch.job_id, launch.step_id));
        let spec = StepSupervisorSpec {
            launch: launch.clone(),
            groups: user.supplementary_gids.clone(),
            node_name: self.node_name.clone(),
            task_prolog: self.task_prolog.clone(),
            refuse,
            cgroup,
            attach_socket: Some(self.step_attach_socket(launch.job_id, launch.step_id)),
            task_epilog: self.task_epilog.clone(),
            acct_gather: self.acct_gather,
        };
        Ok(spur_stepd::client::launch_step(
            &spec,
            &self.stepd_binary,
            &log,
            &self.step_pid_file(launch.job_id, launch.step_id),
        )?)
    }

    /// The spurstepd binary, for the agent's other uses of it (sbcast).
    pub fn stepd_binary(&self) -> &std::path::Path {
        &self.stepd_binary
    }

    fn step_pid_file(&self, job_id: u32, step_id: u32) -> PathBuf {
        self.root
            .join("steps")
            .join(format!("job{job_id:05}.{step_id}.pid"))
    }

    /// Signals the tasks (and their children) of the job's steps whose supervisors run here; a step without one
    /// here is left alone. A record of a supervisor that is gone is removed.
    pub fn signal_step_tasks(&self, job_id: u32, step_ids: &[u32], signal: i32) {
        for &step_id in step_ids {
            let path = self.step_pid_file(job_id, step_id);
            let Some(pid) = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| t.trim().parse::<u32>().ok())
            else {
                continue;
            };
            // The pid may have been reused since: only a step supervisor's tasks are signalled.
            let alive = std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|cmdline| cmdline.split(|b| *b == 0).any(|arg| arg == b"--step"));
            if !alive {
                let _ = std::fs::remove_file(&path);
                continue;
            }
            // As proctrack/cgroup: SIGKILL reaches every process of the step, other signals the tasks alone.
            let sent = if signal == libc::SIGKILL {
                spur_stepd::daemon::signal_descendants(&[pid], signal)
            } else {
                spur_stepd::daemon::signal_children(pid, signal)
            };
            if let Err(e) = sent {
                tracing::warn!(job_id, step_id, "cannot signal the step's tasks: {e}");
            }
        }
    }

    /// slurm.conf's `Prolog` for a job on this node, one of its nodes other than the first, before the job's first
    /// step here (Slurm's default: a node's prolog runs before the job's first task there). `Err` says why the
    /// step must not start.
    pub fn prolog_before_step(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
        user: &UserInfo,
    ) -> Result<(), String> {
        let Some(scripts) = self.node_scripts(job, context, user) else {
            return Ok(());
        };
        if scripts.prolog.is_none() || self.prolog_ran(job) {
            return Ok(());
        }
        spur_stepd::daemon::node_prolog(&scripts)?;
        let marker = self.prolog_marker(job.job_id);
        if let Some(dir) = marker.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(&marker, job.restarts.to_string()) {
            tracing::warn!(
                job_id = job.job_id,
                "cannot record that the prolog ran: {e}"
            );
        }
        Ok(())
    }

    /// `PrologFlags=Alloc`: the job was just allocated a place here. With `contain` its extern cgroup is made
    /// (processes adopted into the job land there), then slurm.conf's `Prolog` runs, once per run of the job
    /// (a repeated request after an agent restart finds it done). `Err` says why the job must not start.
    pub fn prolog_at_allocation(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
        user: &UserInfo,
        contain: bool,
    ) -> Result<(), String> {
        if contain {
            self.make_extern_cgroup(job);
        }
        self.prolog_before_step(job, context, user)
    }

    /// The job's extern step cgroup here; without root or a cgroup file system there is none (logged).
    fn make_extern_cgroup(&self, job: &JobRecord) {
        let hierarchy = spur_stepd::cgroup::Hierarchy::detect();
        let made = match hierarchy {
            _ if !nix::unistd::geteuid().is_root() => Err("spurd is not root".to_string()),
            None => Err("no cgroup file system".to_string()),
            Some(hierarchy) => spur_stepd::cgroup::create_extern(
                &hierarchy,
                &self.node_name,
                job.spec.user_id,
                job.job_id,
            ),
        };
        match made {
            Ok(dirs) => tracing::info!(job_id = job.job_id, ?dirs, "extern step cgroup made"),
            Err(e) => tracing::warn!(job_id = job.job_id, "no extern step cgroup: {e}"),
        }
    }

    /// Whether this run of the job already ran its prolog here.
    fn prolog_ran(&self, job: &JobRecord) -> bool {
        std::fs::read_to_string(self.prolog_marker(job.job_id))
            .is_ok_and(|run| run.trim() == job.restarts.to_string())
    }

    /// The job's limits on this node, one of its nodes other than the first, for its steps here (cgroup.conf
    /// confines jobs): chosen at its first step and kept in the spool, so its cores stay its own until it ends
    /// and no job launched meanwhile is given them.
    /// The limits the batch job's supervisor set here (its launch file), for the job's steps started beside the
    /// script; `None` without confinement.
    pub fn batch_limits(&self, job_id: u32) -> Option<protocol::CgroupSpec> {
        self.isolation.as_ref()?;
        let path = self.job_dir(job_id).join(protocol::LAUNCH_FILE);
        let spec: LaunchSpec = spur_stepd::files::read_json_opt(&path).ok()??;
        spec.cgroup
    }

    /// The step's own memory limit (`srun --mem`) in its cgroup, under the job's.
    pub fn with_step_memory(
        &self,
        mut limits: protocol::CgroupSpec,
        step_mem_mb: Option<u64>,
    ) -> protocol::CgroupSpec {
        if let (Some(isolation), Some(mb)) = (&self.isolation, step_mem_mb) {
            limits.step_memory = spur_core::model::isolation::memory_limits(
                &isolation.conf,
                mb,
                isolation.node_mem_mb,
            );
        }
        limits
    }

    pub fn step_limits(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
    ) -> Option<protocol::CgroupSpec> {
        let isolation = self.isolation.as_ref()?;
        let record = self.limits_record(job.job_id);
        let busy = self.busy_cores(job.job_id);
        // The cores chosen at the job's first step here, unless another job took them while none of its steps
        // ran (they are only held while the job has processes here).
        let kept = spur_stepd::files::read_json_opt::<protocol::CgroupSpec>(&record)
            .ok()
            .flatten()
            .filter(|spec| {
                spec.cpus
                    .as_deref()
                    .and_then(parse_cpu_list)
                    .is_none_or(|cores| cores.iter().all(|c| !busy.contains(c)))
            });
        if let Some(spec) = kept {
            return Some(spec);
        }
        let spec = isolation.spec_for(job, &self.node_name, context, &busy);
        if let Some(dir) = record.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        match serde_json::to_vec(&spec) {
            Ok(bytes) => {
                if let Err(e) = std::fs::write(&record, bytes) {
                    tracing::warn!(
                        job_id = job.job_id,
                        "cannot record the job's limits here: {e}"
                    );
                }
            }
            Err(e) => tracing::warn!(job_id = job.job_id, "cannot encode the job's limits: {e}"),
        }
        Some(spec)
    }

    fn limits_record(&self, job_id: u32) -> PathBuf {
        self.root
            .join("steps")
            .join(format!("job{job_id:05}.limits"))
    }

    /// The cores the limits records of jobs other than `job_id` hold while those jobs have processes here (a
    /// record whose job ended without its epilog message reaching this node holds nothing).
    fn step_cores(&self, job_id: u32) -> BTreeSet<u32> {
        let own = format!("job{job_id:05}.limits");
        let Ok(entries) = std::fs::read_dir(self.root.join("steps")) else {
            return BTreeSet::new();
        };
        entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name != own
                    && name
                        .strip_prefix("job")
                        .and_then(|n| n.strip_suffix(".limits"))
                        .and_then(|n| n.parse::<u32>().ok())
                        .is_some_and(|id| {
                            crate::step_usage::job_has_processes(
                                Path::new("/proc"),
                                &self.node_name,
                                id,
                            )
                        })
            })
            .filter_map(|e| {
                let spec: protocol::CgroupSpec =
                    spur_stepd::files::read_json_opt(&e.path()).ok()??;
                parse_cpu_list(spec.cpus.as_deref()?)
            })
            .flatten()
            .collect()
    }

    /// The job ended: on this node, one of its nodes other than the first, what its steps left is killed, its
    /// cgroups and records go, and slurm.conf's `Epilog` runs. `Err` says why the epilog failed.
    pub fn epilog_after_job(
        &self,
        job: &JobRecord,
        context: &LaunchContext,
        user: &UserInfo,
    ) -> Result<(), String> {
        let _ = std::fs::remove_file(self.prolog_marker(job.job_id));
        let _ = std::fs::remove_file(self.limits_record(job.job_id));
        // Its steps' cgroups and, with `PrologFlags=Contain`, its extern cgroup.
        self.remove_cgroups(job.job_id);
        let Some(scripts) = self.node_scripts(job, context, user) else {
            return Ok(());
        };
        let (code, signal) = (i64::from(job.exit_code), i64::from(job.exit_signal));
        spur_stepd::daemon::node_epilog(&scripts, (code << 8) | signal, code, signal)
            .inspect_err(|message| tracing::warn!(job_id = job.job_id, "epilog failed: {message}"))
    }

    /// Marks that a job's prolog ran on this node (a node other than its first, which keeps no job directory).
    fn prolog_marker(&self, job_id: u32) -> PathBuf {
        self.root
            .join("steps")
            .join(format!("job{job_id:05}.prolog-done"))
    }

    pub fn signal(&self, job_id: u32, signal: i32, scope: SignalScope, step_pids: &[u32]) {
        let scope = match scope {
            SignalScope::BatchShell => protocol::SignalScope::BatchShell,
            SignalScope::All => protocol::SignalScope::AllProcesses,
            SignalScope::Steps => protocol::SignalScope::StepTasks,
        };
        self.request(
            job_id,
            &Request::Signal {
                signo: signal,
                scope,
                step_pids: step_pids.to_vec(),
            },
        );
    }

    pub fn terminate(&self, job_id: u32, reason: TerminateReason, at: i64) {
        let reason = match reason {
            TerminateReason::TimeLimit => protocol::TerminateReason::TimeLimit,
            TerminateReason::Cancelled => protocol::TerminateReason::Cancelled,
            TerminateReason::NodeFail => protocol::TerminateReason::NodeFail,
            TerminateReason::Requeued => protocol::TerminateReason::Requeued,
        };
        self.request(
            job_id,
            &Request::Terminate {
                reason,
                at_epoch_secs: Some(at),
            },
        );
    }

    pub fn notify(&self, job_id: u32, message: String) {
        self.request(job_id, &Request::Notify { message });
    }

    fn request(&self, job_id: u32, request: &Request) {
        let dir = self.job_dir(job_id);
        if let Err(e) = spur_stepd::send_request(&dir, request) {
            tracing::warn!(job_id, "request to spurstepd failed: {e}");
        }
    }
}

/// `slurm-%j.out` by default (`slurm-%A_%a.out` for arrays); stderr follows stdout unless given.
fn output_paths(job: &JobRecord, node: &str) -> (String, String) {
    let default =
        spur_core::grammar::values::filename::default_batch_output(job.array_task_id.is_some());
    let stdout = job.spec.stdout.as_deref().unwrap_or(default);
    let stderr = job.spec.stderr.as_deref().unwrap_or(stdout);
    (expand(job, stdout, node), expand(job, stderr, node))
}

fn expand(job: &JobRecord, pattern: &str, node: &str) -> String {
    job.expand_output_pattern(pattern, node)
}

/// The job's directory is root's and the job's group's only, 0750, as slurmstepd makes it: its files (the
/// supervisor's log, its pid and start record, the run) are no other user's business (issue 29).
fn set_job_dir_access(dir: &Path, user: &UserInfo) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if nix::unistd::geteuid().is_root() {
        nix::unistd::chown(dir, None, Some(user.gid.into())).map_err(std::io::Error::from)?;
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o750))
}

fn set_script_owner(path: &Path, user: &UserInfo) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o500))?;
    if nix::unistd::geteuid().is_root() {
        nix::unistd::chown(path, Some(user.uid.into()), Some(user.gid.into()))
            .map_err(std::io::Error::from)?;
    }
    Ok(())
}

/// The report for the controller: exit code and signal as Slurm shows them, or a launch failure.
pub fn outcome_of(job_id: u32, result: &protocol::JobResult) -> JobOutcome {
    let launch_failed = matches!(
        result.outcome,
        Outcome::LaunchFailed { .. } | Outcome::PrologFailed { .. }
    );
    let (code, signal) = result.exit_code_pair();
    JobOutcome {
        job_id,
        exit_code: if launch_failed {
            None
        } else {
            Some(u32::try_from(code).unwrap_or(1))
        },
        signal: u32::try_from(signal).unwrap_or(0),
        end_time: result.end_time,
        message: result.message.clone(),
        out_of_memory: matches!(result.outcome, Outcome::OutOfMemory),
        prolog_failed: matches!(result.outcome, Outcome::PrologFailed { .. }),
        run: None,
        epilog_failed: result.epilog_failed,
        usage: result.usage.clone(),
    }
}

impl JobSpool {
    /// Where a step's supervisor takes `sattach` requests: beside its log, reachable by the agent only.
    pub fn step_attach_socket(&self, job_id: u32, step_id: u32) -> PathBuf {
        self.root
            .join("steps")
            .join(format!("job{job_id:05}.{step_id}.sock"))
    }
}

/// The umask sbatch passed as `SLURM_UMASK` (octal), which slurmstepd applies to the batch script and then takes
/// out of its environment; `None` (022) without one or with a value that is not octal.
fn batch_umask(env: &mut Vec<(String, String)>) -> Option<u32> {
    let at = env.iter().position(|(k, _)| k == "SLURM_UMASK")?;
    let (_, value) = env.remove(at);
    u32::from_str_radix(value.trim(), 8)
        .ok()
        .map(|mask| mask & 0o777)
}
