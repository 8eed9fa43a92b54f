//! Builders for scheduling scenarios without processes: a configured cluster whose nodes have registered, jobs
//! submitted through the state machine, and passes that run [`schedule`](super::schedule) and commit its plan as
//! the leader does. Scenario tests and the scheduler benchmark use it; the clock is whatever the caller sets.

use spur_core::model::job::{EpochSecs, GresRequest, JobSpec};
use spur_core::model::records::{ClusterConfig, NodeGres, PartitionRecord};
use spur_core::model::states::JobBaseState;
use spur_core::policy::gpu_topology::GpuTopology;
use spur_core::wire::api::ApiError;

use super::{schedule, Plan};
use crate::state::{
    ClusterState, Command, ConfigSnapshot, NodeDefinition, NodeRegistration, Outcome, Settings,
};

pub struct Scenario {
    pub state: ClusterState,
    pub now: EpochSecs,
    index: u64,
}

/// A node with `cpus` cores, `mem_mb` of memory and `gpus` GPUs of type `a100`.
pub fn node(name: &str, cpus: u32, mem_mb: u64, gpus: u64) -> NodeDefinition {
    NodeDefinition {
        name: name.to_string(),
        addr: "127.0.0.1".to_string(),
        hostname: name.to_string(),
        cpus,
        boards: 1,
        sockets: 1,
        cores_per_socket: cpus,
        threads_per_core: 1,
        real_memory_mb: mem_mb,
        tmp_disk_mb: 0,
        weight: 1,
        features: Vec::new(),
        gres: if gpus > 0 {
            vec![NodeGres {
                name: "gpu".to_string(),
                gres_type: Some("a100".to_string()),
                count: gpus,
                files: Vec::new(),
            }]
        } else {
            Vec::new()
        },
        gpu_links: None,
        configured_down: false,
        configured_drain: false,
    }
}

/// Eight GPUs named as [`with_gpu_files`] names them, in two XGMI islands ([0-3] and [4-7]) on two NUMA nodes.
pub fn two_xgmi_islands() -> GpuTopology {
    use spur_core::policy::gpu_topology::{GpuDevice, Link};
    let devices = (0..8u32)
        .map(|i| GpuDevice {
            file: format!("/dev/dri/renderD{}", 128 + i),
            numa_node: Some(i / 4),
            pci_bus_id: None,
        })
        .collect();
    let mut t = GpuTopology::new(devices);
    for a in 0..8 {
        for b in 0..8 {
            if a / 4 == b / 4 {
                t.connect(a, b, Link::Fabric { links: 1, hops: 1 });
            }
        }
    }
    t.fill_from_numa();
    t
}

/// The same node with a device file per GPU: `/dev/dri/renderD128` and up, as gres.conf `File=` names them.
pub fn with_gpu_files(mut def: NodeDefinition) -> NodeDefinition {
    for gres in def.gres.iter_mut().filter(|g| g.name == "gpu") {
        gres.files = (0..gres.count)
            .map(|i| format!("/dev/dri/renderD{}", 128 + i))
            .collect();
    }
    def
}

/// What the node's agent says when it registers: the configured shape, no jobs, no GPU report.
pub fn registration(def: &NodeDefinition, now: EpochSecs) -> NodeRegistration {
    NodeRegistration {
        name: def.name.clone(),
        hostname: def.hostname.clone(),
        addr: def.addr.clone(),
        cpus: def.cpus,
        sockets: def.sockets,
        cores_per_socket: def.cores_per_socket,
        threads_per_core: def.threads_per_core,
        real_memory_mb: def.real_memory_mb,
        boot_time: 0,
        agent_start_time: now,
        os: "Linux".to_string(),
        arch: "x86_64".to_string(),
        version: "scenario".to_string(),
        running_jobs: Vec::new(),
        running_runs: Vec::new(),
        gpu_topology: None,
        session_nonce: None,
    }
}

pub fn partition(name: &str, nodes: &[String], default: bool) -> PartitionRecord {
    PartitionRecord {
        default,
        ..PartitionRecord::with_nodes(name, nodes)
    }
}

/// A one-node batch job of `cpus` CPUs, `mem_mb` of memory and `gpus` GPUs, with a time limit in minutes.
pub fn job(cpus: u32, mem_mb: u64, gpus: u64, time_limit_min: Option<u32>) -> JobSpec {
    JobSpec {
        name: "job".to_string(),
        user_id: 1000,
        group_id: 1000,
        user_name: "alice".to_string(),
        nodes_min: 1,
        ntasks: Some(cpus),
        cpus_per_task: 1,
        mem_per_node_mb: Some(mem_mb),
        time_limit_min,
        gres: if gpus > 0 {
            vec![GresRequest {
                name: "gpu".to_string(),
                gres_type: None,
                count: gpus,
            }]
        } else {
            Vec::new()
        },
        work_dir: "/tmp".to_string(),
        script: Some("#!/bin/sh\ntrue\n".to_string()),
        ..Default::default()
    }
}

impl Scenario {
    /// A cluster with these nodes and partitions, every node registered and idle, memory consumable.
    pub fn new(
        nodes: Vec<NodeDefinition>,
        partitions: Vec<PartitionRecord>,
        settings: Settings,
        now: EpochSecs,
    ) -> Result<Self, ApiError> {
        let mut scenario = Scenario {
            state: ClusterState::new(),
            now,
            index: 0,
        };
        let registrations: Vec<NodeRegistration> =
            nodes.iter().map(|n| registration(n, now)).collect();
        scenario.apply(Command::ApplyConfig(Box::new(ConfigSnapshot {
            cluster: ClusterConfig::default(),
            settings: Settings {
                memory_is_consumable: true,
                ..settings
            },
            nodes,
            partitions,
        })))?;
        for registration in registrations {
            scenario.apply(Command::RegisterNode {
                registration: Box::new(registration),
                now,
            })?;
        }
        Ok(scenario)
    }

    /// The node's agent registers again (it keeps its running jobs) and reports these GPUs and links.
    pub fn report_gpus(
        &mut self,
        def: &NodeDefinition,
        topology: GpuTopology,
    ) -> Result<(), ApiError> {
        let mut registration = registration(def, self.now);
        registration.running_jobs = self
            .state
            .jobs
            .values()
            .filter(|j| j.state == JobBaseState::Running)
            .filter(|j| {
                j.alloc
                    .as_ref()
                    .is_some_and(|a| a.node_names.contains(&def.name))
            })
            .map(|j| j.job_id)
            .collect();
        registration.gpu_topology = Some(topology);
        let now = self.now;
        self.apply(Command::RegisterNode {
            registration: Box::new(registration),
            now,
        })?;
        Ok(())
    }

    /// Commits `command`. The scenario's nodes have no epilog: each answers at once that it ran, as their agents
    /// would.
    pub fn apply(&mut self, command: Command) -> Result<crate::state::Applied, ApiError> {
        self.index += 1;
        let applied = self.state.apply(self.index, command)?;
        for effect in &applied.effects {
            if let crate::state::Effect::NodeEpilog { node, job } = effect {
                let now = self.now;
                self.apply(Command::EpilogFinished {
                    job_id: job.job_id,
                    node: node.clone(),
                    now,
                })?;
            }
        }
        Ok(applied)
    }

    /// Submits a job; returns its id.
    pub fn submit(&mut self, spec: JobSpec) -> Result<u32, ApiError> {
        let now = self.now;
        let applied = self.apply(Command::Submit {
            spec: Box::new(spec),
            now,
        })?;
        Ok(applied.job_id.unwrap_or(0))
    }

    /// Submits a job as the API does: placed first when nothing waits ahead of it, then committed as
    /// `SubmitAndStart` (or as a plain submission). Returns its id and whether it was placed before the commit.
    pub fn submit_as_leader(&mut self, spec: JobSpec) -> Result<(u32, bool), ApiError> {
        let now = self.now;
        let start = super::placed_at_submission(&self.state, &spec, now);
        let placed = start.is_some();
        let applied = self.apply(Command::submission(spec, now, None, start))?;
        Ok((applied.job_id.unwrap_or(0), placed))
    }

    /// Submits a heterogeneous job (components in order); returns the leader's id.
    pub fn submit_het(&mut self, specs: Vec<JobSpec>) -> Result<u32, ApiError> {
        let now = self.now;
        let applied = self.apply(Command::SubmitHet {
            request_id: None,
            specs,
            now,
        })?;
        Ok(applied.job_id.unwrap_or(0))
    }

    /// One scheduling pass at the current time, committed; returns the plan.
    pub fn pass(&mut self) -> Result<Plan, ApiError> {
        let plan = schedule(&self.state, self.now);
        let now = self.now;
        self.apply(Command::Schedule {
            starts: plan.starts.clone(),
            reasons: plan.reasons.clone(),
            now,
            forecasts: plan.forecasts.clone(),
            priorities: plan.priorities.clone(),
            preemptions: plan.preemptions.clone(),
            reason_descs: plan.reason_descs.clone(),
            resumes: plan.resumes.clone(),
        })?;
        Ok(plan)
    }

    /// Commits a plan made by hand that only starts `starts` (tests of how the state machine checks a stale or
    /// partial plan).
    pub fn commit_starts(
        &mut self,
        starts: Vec<(u32, spur_core::model::job::Allocation)>,
    ) -> Result<crate::state::Applied, ApiError> {
        let now = self.now;
        self.apply(Command::Schedule {
            starts,
            reasons: Vec::new(),
            now,
            forecasts: Vec::new(),
            priorities: Vec::new(),
            preemptions: Vec::new(),
            reason_descs: Vec::new(),
            resumes: Vec::new(),
        })
    }

    /// The job's batch script exited 0 now.
    pub fn finish(&mut self, job_id: u32) -> Result<(), ApiError> {
        let now = self.now;
        self.apply(Command::Finished {
            job_id,
            outcome: Outcome::Exited { code: 0, signal: 0 },
            now,
            run: None,
        })?;
        Ok(())
    }
}

/// A fingerprint of everything a plan decides (starts with their nodes, CPUs, memory and GRES units, reasons,
/// forecasts, priorities, preemptions, resumes), so a change meant only to make the scheduler faster can be
/// checked to decide exactly as before, at any size. FNV-1a over a canonical text: stable across builds and
/// platforms, unlike the standard hasher.
pub fn plan_digest(plan: &Plan) -> u64 {
    use std::fmt::Write;
    let mut text = String::new();
    for (id, alloc) in &plan.starts {
        let _ = write!(
            text,
            "S{id}:{}:{}:{}",
            alloc.node_names.join(","),
            alloc.cpus,
            alloc.mem_mb
        );
        for (gres, units) in &alloc.gres_indices {
            let _ = write!(text, ":{gres}={units:?}");
        }
        // Nodes with units of their own: a plan with none digests as before they could differ.
        for (at, node) in alloc.node_units.iter().enumerate().skip(1) {
            for (gres, units) in &node.gres_indices {
                let _ = write!(text, ":{at}.{gres}={units:?}");
            }
        }
        text.push(';');
    }
    for (id, reason) in &plan.reasons {
        let _ = write!(text, "R{id}:{reason:?};");
    }
    for (id, forecast) in &plan.forecasts {
        match forecast {
            Some(f) => {
                let _ = write!(text, "F{id}:{}:{};", f.start, f.nodes);
            }
            None => {
                let _ = write!(text, "F{id}:-;");
            }
        }
    }
    for (id, desc) in &plan.reason_descs {
        let _ = write!(text, "D{id}:{desc};");
    }
    for (id, priority) in &plan.priorities {
        let _ = write!(text, "P{id}:{priority};");
    }
    for (id, mode) in &plan.preemptions {
        let _ = write!(text, "X{id}:{mode:?};");
    }
    for id in &plan.resumes {
        let _ = write!(text, "U{id};");
    }
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
