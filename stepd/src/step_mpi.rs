//! A step's MPI plugin on one node (docs/mpi.md): the step fabric every plugin's server uses for collectives, the
//! PMI-2 server for `--mpi=pmi2`, the place where the PMIx server starts for `--mpi=pmix`, and what each adds to a
//! task's environment and descriptors.

use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

use spur_core::model::mpi::MpiType;
use spur_core::model::step_launch::NodeStepLaunch;

use crate::fabric::{SendFrame, StepFabric};
use crate::pmi::{AbortStep, PmiServer, StepInfo};

/// srun passes the PMI process mapping and the step's nodes to the supervisors in the step's environment, as
/// Slurm's srun does; the supervisor takes them out before the tasks see it.
pub const PROC_MAPPING_ENV: &str = "SLURM_PMI2_PROC_MAPPING";
pub const STEP_NODES_ENV: &str = "SLURM_PMI2_STEP_NODES";

/// The step's MPI plugin as set up on this node.
pub struct StepMpi {
    plugin: MpiType,
    /// The collectives across the step's nodes.
    pub fabric: StepFabric,
    /// The tasks' ends of their PMI sockets, by local id (`--mpi=pmi2`).
    pmi_ends: Vec<UnixStream>,
    pmi_jobid: String,
    size: u32,
    /// This node's PMIx server (`--mpi=pmix`), finished when the step ends.
    pmix: Option<pmix_plugin::PmixServer>,
    /// Each started task's pid by step rank, for the PMIx abort (which waits for the aborting task to exit).
    pids: crate::step_pmix::TaskPids,
    /// The step's PALS files (`--mpi=cray_shasta`), removed when the step ends.
    cray: Option<crate::step_cray::CrayStep>,
}

impl StepMpi {
    /// Sets up `launch.mpi` for this node's tasks; `None` for `--mpi=none`. `send` carries the fabric's frames
    /// to srun; `abort` ends the step when a task aborts it.
    pub fn setup(
        launch: &NodeStepLaunch,
        spool: &std::path::Path,
        send: Box<SendFrame>,
        abort: Box<AbortStep>,
    ) -> Result<Option<StepMpi>, String> {
        if launch.mpi == MpiType::None {
            return Ok(None);
        }
        let env = &launch.tasks.env;
        let number = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| lookup(env, k))
                .and_then(|v| v.parse::<u32>().ok())
        };
        let nodes = number(&["SLURM_STEP_NUM_NODES", "SLURM_NNODES"]).unwrap_or(1);
        let size = number(&["SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"])
            .unwrap_or(u32::try_from(launch.tasks.ranks.len()).unwrap_or(u32::MAX));
        let fabric = StepFabric::new(nodes, send);
        let info = StepInfo {
            job_id: launch.job_id,
            step_id: launch.step_id,
            size,
            local_ranks: launch.tasks.ranks.clone(),
            mapping: lookup(env, PROC_MAPPING_ENV)
                .map(str::to_string)
                .unwrap_or_else(|| format!("(vector,(0,{nodes},{}))", launch.tasks.ranks.len())),
            reserved_ports: lookup(env, "SLURM_STEP_RESV_PORTS").map(str::to_string),
            node_index: launch.tasks.node_id as usize,
            ring_width: crate::pmi::ring::width_from_env(lookup(env, "SLURM_PMIX_RING_WIDTH")),
        };
        let pmi_jobid = info.pmi_jobid();
        let mut pmix = None;
        let mut cray = None;
        let pids = crate::step_pmix::TaskPids::default();
        let pmi_ends = match launch.mpi {
            MpiType::Pmi2 => PmiServer::new(info, fabric.clone(), abort)
                .serve()
                .map_err(|e| format!("mpi/pmi2: cannot make the tasks' PMI sockets: {e}"))?,
            // The PMIx server (pmix-plugin/) starts here, before any task is forked, with `fabric` for its
            // fences; a node that cannot start it fails its tasks as Slurm's does when its plugin cannot.
            MpiType::Pmix | MpiType::PmixV4 => {
                let nodes = lookup(env, STEP_NODES_ENV).unwrap_or(&launch.tasks.node);
                let server = crate::step_pmix::start(
                    launch,
                    nodes,
                    &info.mapping,
                    spool,
                    fabric.clone(),
                    crate::step_pmix::abort_after_exit(pids.clone(), abort),
                )
                .map_err(|e| {
                    eprintln!("spurstepd --step: {e}");
                    pmix_unavailable(launch.mpi)
                })?;
                pmix = Some(server);
                Vec::new()
            }
            MpiType::CrayShasta => {
                let nodes = lookup(env, STEP_NODES_ENV).unwrap_or(&launch.tasks.node);
                let step = crate::step_cray::CrayStep::setup(
                    launch,
                    slurmd_spool(spool),
                    nodes,
                    &info.mapping,
                    size,
                )
                .map_err(|e| {
                    eprintln!("spurstepd --step: {e}");
                    format!("MPI: Cannot create context for mpi/{}", launch.mpi.name())
                })?;
                cray = Some(step);
                Vec::new()
            }
            MpiType::None => Vec::new(),
        };
        Ok(Some(StepMpi {
            plugin: launch.mpi,
            fabric,
            pmi_ends,
            pmi_jobid,
            size,
            pmix,
            pids,
            cray,
        }))
    }

    /// What the plugin adds to the environment of the task with local id `localid` and step rank `rank`, after
    /// taking out what srun passed for the supervisor only.
    pub fn task_env(&self, env: &mut Vec<(String, String)>, localid: usize, rank: u32) {
        env.retain(|(k, _)| k != PROC_MAPPING_ENV && k != STEP_NODES_ENV);
        let mut set = |key: &str, value: String| match env.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => env.push((key.to_string(), value)),
        };
        if self.plugin == MpiType::Pmi2 {
            if let Some(fd) = self.task_fd(localid) {
                set("PMI_FD", fd.to_string());
            }
            set("PMI_JOBID", self.pmi_jobid.clone());
            set("PMI_RANK", rank.to_string());
            set("PMI_SIZE", self.size.to_string());
        }
        if let Some(server) = &self.pmix {
            match server.task_env(rank) {
                Ok(vars) => vars.into_iter().for_each(|(k, v)| set(&k, v)),
                Err(e) => eprintln!("spurstepd --step: mpi/pmix: task {rank}'s environment: {e}"),
            }
        }
        if let Some(cray) = &self.cray {
            cray.task_env(rank)
                .into_iter()
                .for_each(|(k, v)| set(&k, v));
        }
    }

    /// Ends the plugin's server with the step (the PMIx server's finalisation, its directories removed).
    pub fn finish(&mut self) {
        if let Some(cray) = self.cray.take() {
            cray.finish();
        }
        if let Some(server) = self.pmix.take() {
            if let Err(e) = server.finish() {
                eprintln!("spurstepd --step: mpi/pmix: {e}");
            }
        }
    }

    /// The descriptor task `localid` keeps across exec (its `PMI_FD`).
    pub fn task_fd(&self, localid: usize) -> Option<i32> {
        self.pmi_ends.get(localid).map(AsRawFd::as_raw_fd)
    }

    /// Records a started task's pid.
    pub fn task_started(&self, rank: u32, pid: i32) {
        if let Ok(mut pids) = self.pids.lock() {
            pids.insert(rank, pid);
        }
    }

    /// Closes the tasks' ends once they are started, so a task's end is only in that task.
    pub fn tasks_started(&mut self) {
        self.pmi_ends.clear();
    }
}

/// The error a node's tasks get when its PMIx server cannot start (Slurm's words when its plugin fails).
pub fn pmix_unavailable(plugin: MpiType) -> String {
    format!("MPI: Cannot create context for mpi/{}", plugin.name())
}

/// The node's SlurmdSpoolDir: `spool` is the agent's step directory (`<SlurmdSpoolDir>/steps`), where Spur keeps
/// the PMIx directories; Slurm's cray_shasta plugin writes under the spool directory itself.
fn slurmd_spool(spool: &std::path::Path) -> &std::path::Path {
    match spool.parent() {
        Some(parent) if spool.file_name().is_some_and(|n| n == "steps") => parent,
        _ => spool,
    }
}

fn lookup<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
    env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}
