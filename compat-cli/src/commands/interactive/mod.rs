//! What `srun` and `salloc` share: reading their options into a job spec, cluster facts for the environments they
//! build, getting an allocation ([`allocate`]), watching signals ([`events`]), and running tasks on this node
//! ([`step`]).
//!
//! Interim, single node: the allocation is an interactive job the controller never launches anything for
//! (`SubmitRequest { interactive: true }`, no script); the CLI itself runs the work, here, as the invoking user, and
//! reports the end with `ControlRequest::Complete`. The step machinery across nodes replaces the local launch.

pub mod allocate;
pub mod events;
pub mod fabric;
pub mod io;
pub mod remote;
pub mod step;
pub mod usage;

use spur_core::grammar::options::{Command, OptError, OptionSet};
use spur_core::grammar::values::begin::LocalNow;
use spur_core::model::job::JobSpec;
use spur_core::model::submit::{resolve, ScriptInput, SubmitContext};
use spur_core::wire::api::ApiError;

use crate::client::ClientError;
use crate::config;

/// Cluster facts read once from slurm.conf.
#[derive(Debug, Clone)]
pub struct ClusterFacts {
    pub cluster_name: String,
    /// The configuration file's path, as `SLURM_CONF` shows it.
    pub slurm_conf: String,
    /// `addr:port` of the primary controller.
    pub controller_addr: String,
    pub kill_wait_secs: u32,
    pub gres_types: Vec<String>,
    pub max_array_size: u32,
    /// slurm.conf `TaskProlog`, run before each task srun starts itself.
    pub task_prolog: Option<std::path::PathBuf>,
    /// slurm.conf `TaskEpilog`, run after each task srun started itself.
    pub task_epilog: Option<std::path::PathBuf>,
    /// Node name to `NodeAddr`, for the nodes slurm.conf lists.
    node_addrs: Vec<(String, String)>,
    /// slurm.conf `TaskPlugin` (task/affinity binds tasks to CPUs).
    pub task_plugin: Option<String>,
    /// slurm.conf's `JobAcctGatherType`/`JobAcctGatherFrequency`, for the tasks srun runs itself.
    pub acct_gather: Option<spur_core::model::step_acct::AcctGather>,
}

impl ClusterFacts {
    pub fn load() -> ClusterFacts {
        let path = config::slurm_conf_path();
        let slurm_conf = std::fs::canonicalize(&path)
            .unwrap_or(path)
            .display()
            .to_string();
        let conf = config::load_slurm_conf();
        let controller_addr = conf
            .as_ref()
            .map(|c| {
                let addr = c
                    .controllers
                    .first()
                    .map_or("127.0.0.1", |h| h.addr.as_str());
                format!("{addr}:{}", c.slurmctld_port().first)
            })
            .unwrap_or_else(|| "127.0.0.1:6817".to_string());
        let node_addrs = conf
            .as_ref()
            .map(|c| {
                c.nodes
                    .iter()
                    .flat_map(|n| {
                        let names =
                            spur_core::grammar::hostlist::expand(&n.names).unwrap_or_default();
                        let addrs =
                            spur_core::grammar::hostlist::expand(&n.addresses).unwrap_or_default();
                        names.into_iter().zip(addrs).collect::<Vec<_>>()
                    })
                    .collect()
            })
            .unwrap_or_default();
        ClusterFacts {
            cluster_name: conf
                .as_ref()
                .and_then(|c| c.cluster_name().map(str::to_string))
                .unwrap_or_else(|| "cluster".to_string()),
            slurm_conf,
            controller_addr,
            kill_wait_secs: conf.as_ref().map_or(30, |c| u32::from(c.kill_wait())),
            gres_types: conf
                .as_ref()
                .map(|c| c.gres_types().into_iter().map(str::to_string).collect())
                .unwrap_or_default(),
            max_array_size: conf.as_ref().map_or(1001, |c| c.max_array_size()),
            task_prolog: conf
                .as_ref()
                .and_then(|c| c.task_prolog())
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from),
            task_epilog: conf
                .as_ref()
                .and_then(|c| c.task_epilog())
                .filter(|p| !p.is_empty())
                .map(std::path::PathBuf::from),
            node_addrs,
            task_plugin: conf
                .as_ref()
                .and_then(|c| c.get_str("TaskPlugin").map(str::to_string)),
            acct_gather: conf.as_ref().and_then(|c| {
                spur_core::model::step_acct::AcctGather::from_conf(
                    c.get("JobAcctGatherType"),
                    c.get("JobAcctGatherFrequency"),
                )
            }),
        }
    }

    /// The address tasks reach srun at: this node's `NodeAddr`, as Slurm's `SLURM_LAUNCH_NODE_IPADDR` shows it.
    pub fn node_addr(&self, node: &str) -> String {
        self.node_addrs
            .iter()
            .find(|(name, _)| name == node)
            .map(|(_, addr)| addr.clone())
            .filter(|addr| addr.parse::<std::net::IpAddr>().is_ok())
            .unwrap_or_else(|| "127.0.0.1".to_string())
    }
}

/// The submitter's identity and surroundings, as sbatch gathers them.
pub struct Submitter {
    pub uid: u32,
    pub gid: u32,
    pub user: String,
    pub cwd: String,
    pub host: String,
    pub env: Vec<(String, String)>,
}

impl Submitter {
    pub fn current() -> Submitter {
        let uid = nix::unistd::getuid().as_raw();
        Submitter {
            uid,
            gid: nix::unistd::getgid().as_raw(),
            user: config::user_name(uid).unwrap_or_else(|| uid.to_string()),
            cwd: std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|_| "/tmp".to_string()),
            host: config::short_hostname(),
            env: std::env::vars().collect(),
        }
    }
}

/// Resolves srun's or salloc's options into the spec of the job (or, inside an allocation, of the step).
/// `name` is the default job name; `command` the program and arguments, shown as `Command=`.
pub fn job_spec(
    cmd: Command,
    set: &OptionSet,
    facts: &ClusterFacts,
    who: &Submitter,
    name: &str,
    command: &[String],
) -> Result<JobSpec, OptError> {
    let gres_types: Vec<&str> = facts.gres_types.iter().map(String::as_str).collect();
    let context = SubmitContext {
        cmd,
        uid: who.uid,
        gid: who.gid,
        user_name: &who.user,
        cwd: &who.cwd,
        submit_host: &who.host,
        env: &who.env,
        now: LocalNow {
            epoch_secs: config::now_epoch(),
            utc_offset_secs: config::utc_offset_secs(),
        },
        gres_types: &gres_types,
        max_array_size: facts.max_array_size,
        submit_sid: config::session_id(),
    };
    let input = ScriptInput {
        body: None,
        path: (!command.is_empty()).then(|| command.join(" ")),
        name: name.to_string(),
        argv: command.iter().skip(1).cloned().collect(),
    };
    let mut spec = resolve(&context, set, &input)?;
    // srun always runs a known number of tasks (one per node unless told), and the job record shows it.
    if cmd == Command::Srun && spec.ntasks.is_none() {
        spec.ntasks = Some(spec.ntasks_per_node.unwrap_or(1) * spec.nodes_min.max(1));
    }
    Ok(spec)
}

/// The basename of a program, the default srun job name (`srun /bin/hostname` is job `hostname`).
pub fn program_name(program: &str) -> String {
    program.rsplit('/').next().unwrap_or(program).to_string()
}

/// Prints option errors and returns their exit code.
pub fn fail(lines: &[String], code: i32) -> u8 {
    for line in lines {
        eprintln!("{line}");
    }
    exit_code(code)
}

/// Exit statuses are 0-255; Slurm's values outside (a negative `SLURM_EXIT_ERROR`) wrap like `exit()` does.
pub fn exit_code(code: i32) -> u8 {
    u8::try_from(code.rem_euclid(256)).unwrap_or(1)
}

/// `prog: error: <detail>` (when the controller gave one) before the errno text, as Slurm prints them.
pub fn print_api_error(prog: &str, lead: &str, error: &ClientError) {
    match error {
        ClientError::Api(ApiError { errno, detail, .. }) => {
            if let Some(detail) = detail.as_ref().filter(|d| d.as_str() != errno.text()) {
                eprintln!("{prog}: error: {detail}");
            }
            eprintln!("{prog}: error: {lead}: {}", errno.text());
        }
        other => eprintln!("{prog}: error: {lead}: {other}"),
    }
}

/// `--help`, `--usage`, `--version` and `--gres=help`, printed on stdout.
pub fn early_text(cmd: Command, action: spur_core::grammar::options::EarlyAction) -> String {
    use spur_core::grammar::options::{help_text_for, usage_text, EarlyAction};
    match action {
        EarlyAction::Help => {
            let task_plugin = config::load_slurm_conf().and_then(|c| c.get_str("TaskPlugin"));
            help_text_for(cmd, task_plugin.unwrap_or_default())
        }
        EarlyAction::Usage => usage_text(cmd),
        EarlyAction::Version => format!("{}\n", crate::version_line()),
        EarlyAction::GresList => {
            let mut names = config::gres_types();
            if names.is_empty() {
                names.push("gpu".to_string());
            }
            format!("Valid gres options are:\n{}\n", names.join("\n"))
        }
    }
}

/// `--test-only`: where and when the job would start, as `<prog>: Job N to start at ...`.
pub fn print_trial(prog: &str, job_id: u32, trial: &spur_core::wire::api::TrialPlacement) {
    let when = spur_core::grammar::values::begin::format_local_time(
        trial.start_time,
        config::utc_offset_secs(),
    );
    eprintln!(
        "{prog}: Job {job_id} to start at {when} using {} processors on nodes {} in partition {}",
        trial.processors,
        spur_core::grammar::hostlist::compress(&trial.nodes),
        trial.partition
    );
}
