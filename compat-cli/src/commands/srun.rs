//! `srun`: run a command as tasks of a job step, with Slurm's options, environment, output handling, messages and
//! exit codes.
//!
//! Outside an allocation srun first gets one (an interactive job) and gives it back when the tasks end; inside one
//! (`SLURM_JOB_ID` or `--jobid`, as in salloc or a batch script) it runs its tasks in that allocation without
//! creating a job. Interim, single node: the tasks run here, started by srun itself (see [`super::interactive`]);
//! the controller numbers steps and records how they end (squeue `-s`, `scontrol show step`, `DerivedExitCode`).

use std::net::TcpListener;
use std::path::PathBuf;

use spur_core::grammar::env::{default_distribution, step_environment, StepEnvContext, StepSpread};
use spur_core::grammar::options::{parse_srun, Command, OptId, OptionSet, Outcome};
use spur_core::model::job::{GresRequest, JobRecord, JobSpec, OpenMode};
use spur_core::model::records::GPU_GRES;
use spur_core::model::states::JobBaseState;
use spur_core::model::step_launch::{NodeTasks, StepLaunch};
use spur_core::model::step_layout::{Distribution, StepLayout};
use spur_core::policy::gpu_shard::SHARD_GRES;
use spur_core::wire::api::{ControlRequest, SlurmErrno, SubmitRequest};

mod het;
pub(crate) mod mpi;
pub(crate) mod verbose;

use super::interactive::allocate::{allocate, complete, fetch_job, Immediate, Prog};
use super::interactive::events::Events;
use super::interactive::remote::RemoteStep;
use super::interactive::step::{run_step, StepOutcome, StepPlan};
use super::interactive::{
    early_text, exit_code, fail, job_spec, print_api_error, print_trial, program_name,
    ClusterFacts, Submitter,
};
use crate::client::{Client, ClientError};
use het::{het_requests, het_task_env, HetView};

pub fn run(args: &[String]) -> u8 {
    let umask = current_umask();
    let events = match Events::start() {
        Ok(events) => events,
        Err(e) => {
            eprintln!("srun: error: {e}");
            return 1;
        }
    };
    let env: Vec<(String, String)> = std::env::vars().collect();
    let parsed = match parse_srun(args, &env) {
        Ok(Outcome::Early(action)) => {
            print!("{}", early_text(Command::Srun, action));
            return 0;
        }
        Ok(Outcome::Run(parsed)) => parsed,
        Err(e) => return fail(&e.lines, e.exit_code),
    };
    for warning in &parsed.warnings {
        eprintln!("{warning}");
    }
    if let Some(component) = parsed.components.first() {
        verbose::option_dump(&component.options);
    }
    let het_requests = match het_requests(&parsed) {
        Ok(requests) => requests,
        Err(lines) => return fail_lines(&lines),
    };
    let Some(component) = parsed.components.first() else {
        return 1;
    };
    let set = &component.options;
    // Slurm lists its MPI plugins as soon as the options are read, command or not.
    if mpi::wants_list(set) {
        print!("{}", mpi::list_text());
        return 0;
    }
    // A component without a program runs the next one's.
    let command = parsed
        .components
        .iter()
        .map(|c| &c.command)
        .find(|c| !c.is_empty())
        .unwrap_or(&component.command);
    let Some(program) = command.first() else {
        eprintln!("srun: fatal: No command given to execute.");
        return 1;
    };
    let multi_prog = if set.is_set(OptId::MultiProg) {
        match MultiProgFile::read(command) {
            Ok(file) => Some(file),
            Err(line) => {
                eprintln!("srun: error: {line}");
                return 1;
            }
        }
    } else {
        None
    };
    let facts = ClusterFacts::load();
    let mpi_plugin = match mpi::select(
        set,
        crate::config::load_slurm_conf().map(|c| c.mpi_default()),
    ) {
        Ok(plugin) => plugin,
        Err(lines) => return fail_lines(&lines),
    };
    let who = Submitter::current();
    let spec = match job_spec(
        Command::Srun,
        set,
        &facts,
        &who,
        &program_name(program),
        command,
    ) {
        Ok(spec) => spec,
        Err(e) => return fail(&e.lines, e.exit_code),
    };
    let mut spec = spec;
    // Slurm's srun puts the type in its own environment, which every task inherits.
    mpi::add_env(&mut spec.environment, mpi_plugin, "", "");
    mpi::set_plugin(mpi_plugin);
    let client = match Client::from_environment() {
        Ok(client) => client,
        Err(e) => {
            eprintln!("srun: error: Unable to allocate resources: {e}");
            return 1;
        }
    };
    // A standalone srun knows its task count now: a file that cannot serve it fails before any allocation.
    if let (Some(file), None) = (&multi_prog, set.value(OptId::JobId)) {
        if let Err(lines) = file.commands(spec.ntasks.unwrap_or(1)) {
            return fail_lines(&lines);
        }
    }
    let srun = Srun {
        set,
        spec,
        command,
        multi_prog,
        facts,
        who,
        client,
        events,
        umask,
        het: None,
        mpi: mpi_plugin,
    };
    match (set.value(OptId::JobId), het_requests) {
        (Some(job), Some(requests)) => srun.within_het_job(job, &requests),
        (None, Some(_)) => {
            eprintln!(
                "srun: error: Heterogeneous job allocations by srun are not supported by Spur yet"
            );
            1
        }
        (Some(job), None) => srun.within_allocation(job),
        (None, None) => srun.with_new_allocation(),
    }
}

/// One srun invocation after its options were read.
struct Srun<'a> {
    set: &'a OptionSet,
    /// The job's spec (standalone) or the step's (inside an allocation).
    spec: JobSpec,
    command: &'a [String],
    /// `--multi-prog`: the configuration file naming each task's command.
    multi_prog: Option<MultiProgFile>,
    facts: ClusterFacts,
    who: Submitter,
    client: Client,
    events: Events,
    umask: u32,
    /// A step of a heterogeneous job spanning or choosing components (`--het-group`, `:`).
    het: Option<HetView>,
    /// The step's MPI plugin (`--mpi`, `SLURM_MPI_TYPE`, `MpiDefault`).
    mpi: spur_core::model::mpi::MpiType,
}

impl Srun<'_> {
    /// Gets an allocation for this step alone, runs the step, and gives the allocation back with its result.
    fn with_new_allocation(self) -> u8 {
        let request = SubmitRequest {
            spec: self.spec.clone(),
            test_only: self.set.is_set(OptId::TestOnly),
            immediate: false,
            interactive: true,
            het_components: Vec::new(),
        };
        if request.test_only {
            return match self.client.submit(&request) {
                Ok(reply) => {
                    if let Some(trial) = reply.test_only {
                        print_trial("srun", reply.job_id, &trial);
                    }
                    0
                }
                Err(e) => {
                    print_api_error("srun", "Unable to allocate resources", &e);
                    1
                }
            };
        }
        let immediate = Immediate::from_option(
            self.set.is_set(OptId::Immediate),
            self.set.value(OptId::Immediate),
        );
        let job = match allocate(&self.client, &self.events, Prog::Srun, request, immediate) {
            Ok(job) => job,
            Err(code) => return code,
        };
        // The step of srun's own allocation has all of it.
        let devices = step_devices(&job, &JobSpec::default()).unwrap_or_default();
        let distribution = self.set.value(OptId::Distribution).map(str::to_string);
        let shape = match self.step_shape(&job) {
            Ok(shape) => shape,
            Err(line) => {
                eprintln!("srun: error: {line}");
                complete(&self.client, job.job_id, 1, 0);
                return 1;
            }
        };
        let cpus = job.alloc.as_ref().map_or(1, |a| a.cpus) * shape.nodes.len() as u32;
        let (step_id, outcome) =
            match self.run(&job, &shape, cpus, &devices, distribution.as_deref(), false) {
                Ok(ran) => ran,
                Err(code) => {
                    complete(&self.client, job.job_id, 1, 0);
                    return code;
                }
            };
        self.complete_step(job.job_id, step_id, &outcome);
        let (code, signal) = outcome.job_exit();
        complete(&self.client, job.job_id, code, signal);
        exit_code(outcome.exit_code)
    }

    /// Runs the step in an allocation that exists already, without creating a job.
    fn within_allocation(self, job_text: &str) -> u8 {
        let job_id = job_text
            .split(['_', '.'])
            .next()
            .and_then(|id| id.trim().parse::<u32>().ok())
            .unwrap_or(0);
        let job = match self.confirm(job_id) {
            Ok(job) => job,
            Err(errno) => {
                eprintln!(
                    "srun: error: Unable to confirm allocation for job {job_id}: {}",
                    errno.text()
                );
                eprintln!(
                    "srun: Check SLURM_JOB_ID environment variable. Expired or invalid job {job_id}"
                );
                return 1;
            }
        };
        let shape = match self.step_shape(&job) {
            Ok(shape) => shape,
            Err(line) => {
                eprintln!("srun: error: {line}");
                return 1;
            }
        };
        let ntasks = shape.ntasks;
        let cpus = job.alloc.as_ref().map_or(0, |a| a.cpus) * shape.nodes.len() as u32;
        let wanted = ntasks.saturating_mul(self.spec.cpus_per_task);
        if wanted > cpus && !self.set.is_set(OptId::Overcommit) {
            eprintln!(
                "srun: error: Unable to create step for job {job_id}: More processors requested than permitted"
            );
            return 1;
        }
        let devices = match step_devices(&job, &self.spec) {
            Ok(devices) => devices,
            Err(lines) => {
                for line in lines {
                    eprintln!("srun: error: {line}");
                }
                return 1;
            }
        };
        let distribution = self
            .set
            .value(OptId::Distribution)
            .unwrap_or(default_distribution(ntasks, shape.nodes.len() as u32))
            .to_string();
        let (step_id, outcome) = match self.run(
            &job,
            &shape,
            wanted.max(1),
            &devices,
            Some(&distribution),
            true,
        ) {
            Ok(ran) => ran,
            Err(code) => return code,
        };
        self.complete_step(job_id, step_id, &outcome);
        exit_code(outcome.exit_code)
    }

    /// The step's name: `-J`, else (inside an existing allocation, whose `SLURM_JOB_NAME` srun ignores there, as
    /// Slurm's does) the program's name; for srun's own allocation the job's name.
    fn step_name(&self, within_allocation: bool) -> String {
        let from_env = matches!(
            self.set.source(OptId::JobName),
            Some(spur_core::grammar::options::Source::Env { .. })
        );
        if within_allocation && from_env {
            if let Some(program) = self.command.first() {
                return program_name(program);
            }
        }
        self.spec.name.clone()
    }

    /// Registers the step with the controller, which numbers it (and starts its tasks on other nodes).
    fn create_step(
        &self,
        job_id: u32,
        num_tasks: u32,
        num_cpus: u32,
        launch: Option<StepLaunch>,
        within_allocation: bool,
    ) -> Result<(u32, Option<String>), ClientError> {
        let request = ControlRequest::CreateStep {
            job_id,
            name: self.step_name(within_allocation),
            num_tasks,
            num_cpus,
            time_limit_min: self.spec.time_limit_min,
            srun_host: self.who.host.clone(),
            srun_pid: std::process::id(),
            launch: launch.map(Box::new),
            resv_port_cnt: mpi::resv_port_cnt(self.set),
        };
        let immediate = match Immediate::from_option(
            self.set.is_set(OptId::Immediate),
            self.set.value(OptId::Immediate),
        ) {
            Immediate::No => None,
            Immediate::Now => Some(0),
            Immediate::Within(d) => Some(d.as_secs()),
        };
        let reply =
            mpi::create_retrying_busy_ports(job_id, immediate, || self.client.control(&request))?;
        let step_id = reply
            .step_id
            .ok_or_else(|| ClientError::Protocol("no step id in the reply".to_string()))?;
        Ok((step_id, reply.resv_ports))
    }

    /// Reports the step's end (its worst task); the controller derives the job's `DerivedExitCode` from it.
    fn complete_step(&self, job_id: u32, step_id: u32, outcome: &StepOutcome) {
        let (exit_code, signal) = outcome.job_exit();
        let request = ControlRequest::CompleteStep {
            job_id,
            step_id,
            exit_code,
            signal,
            usage: outcome.usage.clone(),
        };
        if let Err(e) = self.client.control(&request) {
            eprintln!("srun: error: cannot record the end of step {job_id}.{step_id}: {e}");
        }
    }

    /// The allocation named by `SLURM_JOB_ID`/`--jobid`, if it is running and the caller may use it.
    fn confirm(&self, job_id: u32) -> Result<JobRecord, SlurmErrno> {
        let job = fetch_job(&self.client, job_id).ok_or(SlurmErrno::InvalidJobId)?;
        if job.spec.user_id != self.who.uid && self.who.uid != 0 {
            return Err(SlurmErrno::AccessDenied);
        }
        if job.state != JobBaseState::Running || job.completing {
            return Err(SlurmErrno::AlreadyDone);
        }
        Ok(job)
    }

    /// The nodes the step runs on and its task count: `-w` (the allocation's nodes it names), else the first
    /// `-N` nodes, else as many as there are tasks, up to the whole allocation; one task per node unless `-n`.
    /// A request the allocation cannot hold fails with Slurm's line (`-N` beyond its nodes, `-w` naming a node
    /// outside it); `-N` beyond `-n` is cut to `-n` nodes with Slurm's warning.
    fn step_shape(&self, job: &JobRecord) -> Result<StepShape, String> {
        let mut alloc_nodes: Vec<String> = job
            .alloc
            .as_ref()
            .map(|a| a.node_names.clone())
            .unwrap_or_default();
        if alloc_nodes.is_empty() {
            alloc_nodes.push(crate::config::short_hostname());
        }
        let wanted = self
            .set
            .value(OptId::Nodelist)
            .and_then(|list| spur_core::grammar::hostlist::expand(list).ok())
            .unwrap_or_default();
        if wanted.iter().any(|n| !alloc_nodes.contains(n)) {
            return Err(format!(
                "Unable to create step for job {}: {}",
                job.job_id,
                SlurmErrno::RequestedNodeConfigUnavailable.text()
            ));
        }
        let named: Vec<String> = alloc_nodes
            .iter()
            .filter(|n| wanted.contains(n))
            .cloned()
            .collect();
        let nodes: Vec<String> = if named.is_empty() {
            let count = if self.set.is_set(OptId::Nodes) {
                let asked = self.spec.nodes_min as usize;
                if asked > alloc_nodes.len() {
                    return Err(format!(
                        "Only allocated {} nodes asked for {asked}",
                        alloc_nodes.len()
                    ));
                }
                match self.spec.ntasks {
                    Some(ntasks) if (ntasks as usize) < asked => {
                        eprintln!(
                            "srun: Warning: can't run {ntasks} processes on {asked} nodes, setting nnodes to {ntasks}"
                        );
                        ntasks as usize
                    }
                    _ => asked,
                }
            } else {
                self.spec.ntasks.map_or(alloc_nodes.len(), |n| n as usize)
            };
            alloc_nodes
                .iter()
                .take(count.clamp(1, alloc_nodes.len()))
                .cloned()
                .collect()
        } else {
            named
        };
        let ntasks = self.spec.ntasks.unwrap_or_else(|| {
            if nodes.len() > 1 {
                nodes.len() as u32 * self.spec.ntasks_per_node.unwrap_or(1)
            } else {
                1
            }
        });
        Ok(StepShape { nodes, ntasks })
    }

    /// Whether srun runs the tasks itself: only a step on the one node where srun itself runs inside that job
    /// (its batch script or one of its tasks), and only without task/cgroup, where there is nothing to confine it
    /// by. Every other step (salloc's, srun's own allocation, other nodes, any step under task/cgroup) is started
    /// by the nodes' agents, in a cgroup of its own under the job's where task/cgroup confines jobs, on the nodes
    /// the job was given, wherever srun runs.
    fn runs_here(&self, job_id: u32, shape: &StepShape) -> bool {
        // The MPI servers live in the nodes' step supervisors (docs/mpi.md): an MPI step always goes through them.
        if self.mpi != spur_core::model::mpi::MpiType::None {
            return false;
        }
        if spur_core::model::isolation::task_cgroup_enabled(
            self.facts.task_plugin.as_deref().unwrap_or(""),
        ) {
            return false;
        }
        let inside_the_job = std::env::var("SLURM_JOB_ID").is_ok_and(|id| id == job_id.to_string());
        match shape.nodes.as_slice() {
            [node] => {
                inside_the_job && std::env::var("SLURMD_NODENAME").is_ok_and(|here| here == *node)
            }
            _ => false,
        }
    }

    /// With `TopologyPlugin=topology/tree`, the controller's switch tree, which places each node of the step for
    /// its tasks' `SLURM_TOPOLOGY_ADDR`; otherwise (or if the controller cannot say) none, and tasks see only
    /// their node's name.
    fn switch_tree(&self) -> spur_core::policy::switch_tree::SwitchTree {
        let tree_plugin = crate::config::load_slurm_conf()
            .is_some_and(|conf| conf.get_str("TopologyPlugin") == Some("topology/tree"));
        if !tree_plugin {
            return Default::default();
        }
        match self.client.query(&spur_core::wire::api::Query::Topology) {
            Ok(spur_core::wire::api::QueryReply::Topology { switches }) => {
                spur_core::policy::switch_tree::SwitchTree { switches }
            }
            _ => Default::default(),
        }
    }

    /// Registers the step and runs it; returns its id and how it ended, or srun's exit code when it could not
    /// start.
    fn run(
        &self,
        job: &JobRecord,
        shape: &StepShape,
        num_cpus: u32,
        devices: &StepDevices,
        distribution: Option<&str>,
        within_allocation: bool,
    ) -> Result<(u32, StepOutcome), u8> {
        let job_id = job.job_id;
        let ntasks = shape.ntasks;
        let verbosity = self.set.verbosity();
        if verbosity > 0 {
            eprintln!("srun: {}", verbose::allocation_line(job));
        }
        let node = shape
            .nodes
            .first()
            .cloned()
            .unwrap_or_else(crate::config::short_hostname);
        let layout = match &self.het {
            Some(het) => het.plan.layout.clone(),
            None => StepLayout::new(
                ntasks,
                shape.nodes.len(),
                self.spec.ntasks_per_node,
                Distribution::parse(distribution.unwrap_or("block")),
            ),
        };
        let remote = if self.runs_here(job_id, shape) {
            None
        } else {
            let first_addr = self.facts.node_addr(&node);
            match RemoteStep::listen(shape.nodes.clone(), layout.clone(), &first_addr) {
                Ok(listening) => Some(listening),
                Err(e) => {
                    eprintln!("srun: error: Unable to create step for job {job_id}: {e}");
                    return Err(1);
                }
            }
        };
        // Tasks srun runs itself reach it on this node's address; it keeps a port open for the step as Slurm's
        // does, though nothing connects to it.
        let local_listener = if remote.is_none() {
            let addr = self.facts.node_addr(&node);
            TcpListener::bind((addr.as_str(), 0))
                .or_else(|_| TcpListener::bind(("127.0.0.1", 0)))
                .ok()
        } else {
            None
        };
        let (launch_addr, port) = match (&remote, &local_listener) {
            (Some((_, advertised)), _) => (advertised.ip().to_string(), advertised.port()),
            (None, Some(listener)) => (
                self.facts.node_addr(&node),
                listener.local_addr().map_or(0, |a| a.port()),
            ),
            (None, None) => (self.facts.node_addr(&node), 0),
        };
        let cpus_given = self.spec.options.contains_key("cpus-per-task");
        let tree = self.switch_tree();
        let env_for = |node_name: &str, spread: Option<StepSpread<'_>>, step_id: u32| {
            let topology = tree.address_of(node_name);
            let ctx = StepEnvContext {
                node_name,
                cluster_name: &self.facts.cluster_name,
                slurm_conf: &self.facts.slurm_conf,
                controller_addr: &self.facts.controller_addr,
                step_id,
                ntasks,
                cpus_per_task: cpus_given.then_some(self.spec.cpus_per_task),
                ntasks_per_node: self.spec.ntasks_per_node,
                launch_addr: &launch_addr,
                launcher_port: port,
                umask: self.umask,
                debug_level: debug_level(self.set),
                prio_process: current_priority(),
                distribution,
                within_allocation,
                gpus: devices.gpus_on(node_name),
                shards: devices.shards,
                label: self.set.is_set(OptId::Label),
                spread,
                topology: topology.as_ref(),
            };
            match &self.het {
                Some(het) => het_task_env(
                    step_environment(&self.spec.environment, &het.view, &ctx),
                    het,
                    node_name,
                    &self.spec.environment,
                ),
                None => step_environment(&self.spec.environment, job, &ctx),
            }
        };
        let task_argv = match (&self.multi_prog, &self.het) {
            (Some(file), _) => match file.commands(ntasks) {
                Ok(commands) => Some(commands),
                Err(lines) => return Err(fail_lines(&lines)),
            },
            (None, Some(het)) => Some(het.plan.rank_argv.clone()),
            (None, None) => None,
        };
        let cpu_bind = match spur_core::grammar::cpu_bind::step_policy(
            self.facts.task_plugin.as_deref(),
            self.set.value(OptId::CpuBind),
        ) {
            // An unbound step still goes to the tasks when they are to report it (`verbose,none`).
            Ok(policy) => policy
                .map(|_| ())
                .or_else(|| {
                    let text = self.set.value(OptId::CpuBind)?;
                    (spur_core::grammar::cpu_bind::affinity_plugin(
                        self.facts.task_plugin.as_deref(),
                    ) && spur_core::grammar::cpu_bind::is_verbose(text))
                    .then_some(())
                })
                .map(|_| spur_core::model::step_launch::CpuBindSpec {
                    policy: self
                        .set
                        .value(OptId::CpuBind)
                        .unwrap_or("cores")
                        .to_string(),
                    cpus_per_task: self.spec.cpus_per_task.max(1),
                }),
            Err(message) => {
                eprintln!("srun: error: {message}");
                return Err(1);
            }
        };
        // --gpus-per-task=N binds each task to N GPUs of its own unless --gpu-bind says otherwise.
        let gpu_bind = self
            .set
            .value(OptId::GpuBind)
            .map(str::to_string)
            .or_else(|| {
                self.set.value(OptId::GpusPerTask).and_then(|v| {
                    let count = v.rsplit(':').next()?.trim().parse::<u32>().ok()?;
                    Some(format!("per_task:{count}"))
                })
            });
        // What the PMI-2 servers hand out as `PMI_process_mapping`, from the layout srun made.
        let mapping = spur_core::model::mpi::process_mapping(
            &layout.node_ranks,
            Distribution::parse(distribution.unwrap_or("block")),
        );
        let step_nodes = spur_core::grammar::hostlist::compress(&shape.nodes);
        let (user_prolog, user_epilog) = (
            self.set.value(OptId::TaskProlog),
            self.set.value(OptId::TaskEpilog),
        );
        let launch = remote.as_ref().map(|(step, advertised)| StepLaunch {
            argv: self.command.to_vec(),
            work_dir: self.spec.work_dir.clone(),
            io_addr: advertised.to_string(),
            io_key: step.key.clone(),
            kill_wait_secs: self.facts.kill_wait_secs,
            pty: self.set.is_set(OptId::Pty),
            cpu_bind: cpu_bind.clone(),
            gpu_bind: gpu_bind.clone(),
            mem_per_node_mb: self.spec.mem_per_node_mb.filter(|m| *m > 0),
            mpi: self.mpi,
            task_prolog: user_prolog.map(str::to_string),
            task_epilog: user_epilog.map(str::to_string),
            nodes: step
                .nodes
                .iter()
                .enumerate()
                .map(|(index, name)| {
                    let spread = StepSpread {
                        layout: &step.layout,
                        nodes: &step.nodes,
                        node_id: index as u32,
                    };
                    let mut tasks = NodeTasks {
                        node: name.clone(),
                        node_id: index as u32,
                        ranks: step.layout.node_ranks[index].clone(),
                        argv: task_argv.as_ref().map_or_else(Vec::new, |all| {
                            step.layout.node_ranks[index]
                                .iter()
                                .map(|&rank| all.get(rank as usize).cloned().unwrap_or_default())
                                .collect()
                        }),
                        // The supervisor puts the step id the controller gives in.
                        env: {
                            let mut env = env_for(name, Some(spread), 0);
                            mpi::add_env(&mut env, self.mpi, &mapping, &step_nodes);
                            env
                        },
                        mem_mb: None,
                    };
                    if self.spec.mem_per_node_mb.is_none() {
                        tasks.mem_mb = self
                            .spec
                            .mem_per_cpu_mb
                            .filter(|m| *m > 0)
                            .map(|m| tasks.mem_for_cpus(m, self.spec.cpus_per_task));
                    }
                    tasks
                })
                .collect(),
        });
        let (step_id, resv_ports) =
            match self.create_step(job_id, ntasks, num_cpus, launch, within_allocation) {
                Ok(created) => created,
                // The job is ours and running: its first step is 0 even if the controller cannot record it.
                Err(_) if !within_allocation && remote.is_none() => (0, None),
                Err(e) => {
                    eprintln!("srun: error: Unable to create step for job {job_id}: {e}");
                    return Err(1);
                }
            };
        if verbosity > 0 {
            let nodes: Vec<(&str, &[u32])> = match &remote {
                Some((step, _)) => step
                    .nodes
                    .iter()
                    .zip(&step.layout.node_ranks)
                    .map(|(n, r)| (n.as_str(), r.as_slice()))
                    .collect(),
                None => vec![(
                    node.as_str(),
                    layout.node_ranks.first().map_or(&[][..], Vec::as_slice),
                )],
            };
            verbose::launching(
                &format!("{job_id}.{step_id}"),
                self.set.value(OptId::CpuBind),
                &nodes,
            );
        }
        let mut env = env_for(&node, None, step_id);
        // The step's reserved ports (`MpiParams=ports=`), as Slurm's srun exports them to its tasks.
        if let Some(ports) = resv_ports {
            env.retain(|(k, _)| k != "SLURM_STEP_RESV_PORTS");
            env.push(("SLURM_STEP_RESV_PORTS".to_string(), ports));
        }
        let pty = self.set.is_set(OptId::Pty);
        let null = || Some("/dev/null".to_string());
        let plan = StepPlan {
            job,
            cpu_bind,
            gpu_bind,
            holds_allocation: !within_allocation,
            step_id,
            ntasks,
            command: self.command,
            env,
            work_dir: PathBuf::from(&self.spec.work_dir),
            node,
            kill_wait_secs: self.facts.kill_wait_secs,
            label: self.set.is_set(OptId::Label),
            unbuffered: self.set.is_set(OptId::Unbuffered),
            // --pty: task 0 uses its terminal; everything else of the step goes to /dev/null, as in Slurm.
            output: if pty {
                null()
            } else {
                self.spec.stdout.clone()
            },
            error: if pty {
                null()
            } else {
                self.spec.stderr.clone()
            },
            input: if pty { null() } else { self.spec.stdin.clone() },
            append: self.spec.open_mode == OpenMode::Append,
            kill_on_bad_exit: self.set.is_set(OptId::KillOnBadExit)
                && self.set.value(OptId::KillOnBadExit) != Some("0"),
            quit_on_interrupt: self.set.is_set(OptId::QuitOnInterrupt),
            remote: remote.map(|(step, _)| step),
            scripts: spur_stepd::task_script::TaskScripts {
                prolog: self.facts.task_prolog.clone(),
                user_prolog: user_prolog.map(PathBuf::from),
                user_epilog: user_epilog.map(PathBuf::from),
                epilog: self.facts.task_epilog.clone(),
            },
            pty,
            task_argv,
            verbosity,
            acct_gather: self.facts.acct_gather,
        };
        let outcome = run_step(&plan, &self.events);
        drop(local_listener);
        Ok((step_id, outcome))
    }
}

/// Where a step runs.
struct StepShape {
    nodes: Vec<String>,
    ntasks: u32,
}

/// The GPUs (and shards) a step gets inside an allocation.
#[derive(Debug, Default, PartialEq)]
struct StepDevices {
    gpus: Option<Vec<u32>>,
    /// For a job of shards: the step's share of them (`SLURM_SHARDS_ON_NODE`).
    shards: Option<u64>,
    /// Each node's GPUs, in the allocation's node order, when the job's nodes hold different ones; `gpus` is the
    /// first node's.
    node_gpus: Vec<(String, Option<Vec<u32>>)>,
}

impl StepDevices {
    /// The step's GPUs on `node`.
    fn gpus_on(&self, node: &str) -> Option<&[u32]> {
        match self.node_gpus.iter().find(|(name, _)| name == node) {
            Some((_, gpus)) => gpus.as_deref(),
            None => self.gpus.as_deref(),
        }
    }
}

/// The step's GPUs inside an allocation: the first ones the step asks for, or all the job's; in a job of shards,
/// the shards' GPU and as many of them as the step asks for, or all. Slurm refuses a step that wants more than
/// the job has, or GRES the job has none of.
fn step_devices(job: &JobRecord, step: &JobSpec) -> Result<StepDevices, Vec<String>> {
    let mut devices = step_devices_on(job, step, 0)?;
    if let Some(alloc) = job.alloc.as_ref().filter(|a| !a.node_units.is_empty()) {
        for (at, node) in alloc.node_names.iter().enumerate() {
            let here = step_devices_on(job, step, at)?;
            devices.node_gpus.push((node.clone(), here.gpus));
        }
    }
    Ok(devices)
}

/// [`step_devices`] on the allocation's `at`-th node.
fn step_devices_on(job: &JobRecord, step: &JobSpec, at: usize) -> Result<StepDevices, Vec<String>> {
    let alloc = job.alloc.as_ref();
    let units = alloc.map(|a| a.units_on(at));
    let job_gpus = units.and_then(|(units, _)| units.get(GPU_GRES));
    let job_shards = units.and_then(|(units, _)| units.get(SHARD_GRES));
    let asked = |name: &str| step.gres.iter().find(|g| g.name == name);
    let refused = |first: String| {
        vec![
            first,
            format!(
                "Unable to create step for job {}: {}",
                job.job_id,
                SlurmErrno::InvalidGres.text()
            ),
        ]
    };
    let more_than_job = |request: &GresRequest, name: &str, have: &str| {
        let job_request = job
            .spec
            .gres
            .iter()
            .find(|g| g.name == name)
            .map_or_else(|| have.to_string(), gres_text);
        refused(format!(
            "Step requested gres_per_node={} is more than the job's gres_per_node={job_request}",
            gres_text(request)
        ))
    };
    let not_in_job = |request: &GresRequest| {
        refused(format!(
            "Step requested GRES ({}:{}) not found in the job",
            request.name,
            request.gres_type.as_deref().unwrap_or("(null)")
        ))
    };
    if let (Some(shards), Some((_, shard_gpus))) = (job_shards, units) {
        if let Some(request) = asked(GPU_GRES) {
            return Err(not_in_job(request));
        }
        let have = u64::try_from(shards.len()).unwrap_or(u64::MAX);
        let count = match asked(SHARD_GRES) {
            Some(request) if request.count > have => {
                return Err(more_than_job(request, SHARD_GRES, "shard:0"))
            }
            Some(request) => request.count,
            None => have,
        };
        return Ok(StepDevices {
            gpus: Some(shard_gpus.to_vec()),
            shards: Some(count),
            node_gpus: Vec::new(),
        });
    }
    if let (Some(request), Some(_)) = (asked(SHARD_GRES), job_gpus) {
        return Err(not_in_job(request));
    }
    let gpus = match (job_gpus, asked(GPU_GRES)) {
        (None, None) => None,
        (Some(gpus), None) => Some(gpus.clone()),
        (gpus, Some(request)) => {
            let have = gpus.map_or(0, Vec::len);
            let count = usize::try_from(request.count).unwrap_or(usize::MAX);
            if count > have {
                return Err(more_than_job(request, GPU_GRES, "gpu:0"));
            }
            gpus.map(|g| g[..count].to_vec())
        }
    };
    Ok(StepDevices {
        gpus,
        shards: None,
        node_gpus: Vec::new(),
    })
}

fn gres_text(request: &GresRequest) -> String {
    match &request.gres_type {
        Some(t) => format!("{}:{t}:{}", request.name, request.count),
        None => format!("{}:{}", request.name, request.count),
    }
}

/// `SRUN_DEBUG`: info (3), plus one per `-v`, minus one for `--quiet`.
fn debug_level(set: &OptionSet) -> u32 {
    let level = 3 + set.verbosity();
    if set.is_set(OptId::Quiet) {
        level.saturating_sub(1)
    } else {
        level
    }
}

fn current_umask() -> u32 {
    // SAFETY: umask only swaps the process mask; it is read back at once, before any thread starts.
    unsafe {
        let mask = libc::umask(0);
        libc::umask(mask);
        mask
    }
}

fn current_priority() -> i32 {
    // SAFETY: plain syscall wrapper with no pointers.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
}

/// `srun --multi-prog FILE ARGS...`: the file, read once, and the arguments every task's command gets appended.
struct MultiProgFile {
    name: String,
    text: String,
    extra: Vec<String>,
}

impl MultiProgFile {
    /// The error is srun's message for a file it cannot open.
    fn read(command: &[String]) -> Result<MultiProgFile, String> {
        let Some((name, extra)) = command.split_first() else {
            return Err("No command given to execute.".to_string());
        };
        let text = std::fs::read_to_string(name)
            .map_err(|_| format!("Could not open multi_prog config file {name}"))?;
        Ok(MultiProgFile {
            name: name.clone(),
            text,
            extra: extra.to_vec(),
        })
    }

    /// Each rank's command for a step of `ntasks` tasks, or srun's error lines.
    fn commands(&self, ntasks: u32) -> Result<Vec<Vec<String>>, Vec<String>> {
        let mut commands = spur_core::grammar::multi_prog::resolve(&self.text, &self.name, ntasks)?;
        for command in &mut commands {
            command.extend(self.extra.iter().cloned());
        }
        Ok(commands)
    }
}

fn fail_lines(lines: &[String]) -> u8 {
    for line in lines {
        eprintln!("srun: error: {line}");
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::job::Allocation;

    fn job_with(name: &str, units: &[u32], shard_gpus: &[u32]) -> JobRecord {
        let mut job = JobRecord::pending(5, JobSpec::default(), "debug".to_string(), 0, 0);
        let mut alloc = Allocation::default();
        alloc.gres_indices.insert(name.to_string(), units.to_vec());
        alloc.shard_gpus = shard_gpus.to_vec();
        job.alloc = Some(alloc);
        job.spec.gres = vec![GresRequest {
            name: name.to_string(),
            gres_type: None,
            count: units.len() as u64,
        }];
        job
    }

    fn job_with_gpus(gpus: &[u32]) -> JobRecord {
        job_with("gpu", gpus, &[])
    }

    fn asking_for(name: &str, count: u64) -> JobSpec {
        JobSpec {
            gres: vec![GresRequest {
                name: name.to_string(),
                gres_type: None,
                count,
            }],
            ..JobSpec::default()
        }
    }

    fn asking(count: u64) -> JobSpec {
        asking_for("gpu", count)
    }

    fn gpus_only(gpus: &[u32]) -> StepDevices {
        StepDevices {
            gpus: Some(gpus.to_vec()),
            shards: None,
            node_gpus: Vec::new(),
        }
    }

    #[test]
    fn each_node_of_a_step_gets_its_own_gpus() {
        use spur_core::model::job::NodeUnits;
        let mut job = job_with("gpu", &[1, 3], &[]);
        let mut alloc = Allocation {
            node_names: vec!["n1".into(), "n2".into()],
            ..Default::default()
        };
        let gpus = |ids: &[u32]| NodeUnits {
            gres_indices: [("gpu".to_string(), ids.to_vec())].into(),
            shard_gpus: Vec::new(),
        };
        alloc.set_node_units(vec![gpus(&[1, 3]), gpus(&[0, 2])]);
        job.alloc = Some(alloc);
        let all = step_devices(&job, &JobSpec::default()).unwrap();
        assert_eq!(all.gpus_on("n1"), Some(&[1, 3][..]));
        assert_eq!(all.gpus_on("n2"), Some(&[0, 2][..]));
        let first = step_devices(&job, &asking(1)).unwrap();
        assert_eq!(first.gpus_on("n1"), Some(&[1][..]));
        assert_eq!(first.gpus_on("n2"), Some(&[0][..]));
    }

    #[test]
    fn steps_get_the_jobs_gpus_or_the_first_they_ask_for() {
        let job = job_with_gpus(&[2, 3]);
        assert_eq!(
            step_devices(&job, &JobSpec::default()),
            Ok(gpus_only(&[2, 3]))
        );
        assert_eq!(step_devices(&job, &asking(1)), Ok(gpus_only(&[2])));
        let refused = step_devices(&job_with_gpus(&[0]), &asking(2)).unwrap_err();
        assert_eq!(
            refused[0],
            "Step requested gres_per_node=gpu:2 is more than the job's gres_per_node=gpu:1"
        );
        assert_eq!(
            refused[1],
            "Unable to create step for job 5: Invalid generic resource (gres) specification"
        );
        let refused = step_devices(&job, &asking_for("shard", 1)).unwrap_err();
        assert_eq!(
            refused[0],
            "Step requested GRES (shard:(null)) not found in the job"
        );
    }

    #[test]
    fn steps_of_a_job_of_shards_see_its_gpu_and_their_share() {
        // Shards 4 and 5 of GPU 2.
        let job = job_with("shard", &[4, 5], &[2]);
        let all = StepDevices {
            gpus: Some(vec![2]),
            shards: Some(2),
            node_gpus: Vec::new(),
        };
        assert_eq!(step_devices(&job, &JobSpec::default()), Ok(all));
        let one = step_devices(&job, &asking_for("shard", 1)).unwrap();
        assert_eq!(one.shards, Some(1));
        let refused = step_devices(&job, &asking_for("shard", 3)).unwrap_err();
        assert_eq!(
            refused[0],
            "Step requested gres_per_node=shard:3 is more than the job's gres_per_node=shard:2"
        );
        let refused = step_devices(&job, &asking(1)).unwrap_err();
        assert_eq!(
            refused[0],
            "Step requested GRES (gpu:(null)) not found in the job"
        );
        assert_eq!(
            refused[1],
            "Unable to create step for job 5: Invalid generic resource (gres) specification"
        );
    }
}
