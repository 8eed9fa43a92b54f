//! Node lifecycle: agent registration, liveness and admin state changes (`scontrol update NodeName=`).

use spur_core::model::job::EpochSecs;
use spur_core::model::records::{NodeBaseState, NodeRecord, PartitionState};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{ApiError, NodeUpdateState, SlurmErrno};

use super::{jobs, Applied, ApplyResult, ClusterState, Effect, Outcome, TerminateReason};

/// What an agent says about itself and its jobs when it (re)connects: its hello, logged as it came.
pub type NodeRegistration = spur_core::wire::agent_proto::NodeHello;

impl ClusterState {
    pub(super) fn register_node(&mut self, reg: NodeRegistration, now: EpochSecs) -> ApplyResult {
        let Some(node) = self.nodes.get_mut(&reg.name) else {
            return Err(ApiError::with_detail(
                SlurmErrno::InvalidNodeName,
                format!("node {} is not in the configuration", reg.name),
            ));
        };
        node.hostname = reg.hostname.clone();
        node.addr = reg.addr.clone();
        node.boot_time = Some(reg.boot_time);
        node.agent_start_time = Some(reg.agent_start_time);
        node.os = reg.os.clone();
        node.arch = reg.arch.clone();
        node.version = reg.version.clone();
        node.gpu_topology.reported = reg.gpu_topology.clone();
        node.refresh_gpu_topology();
        node.not_responding = false;
        node.last_heartbeat = Some(now);
        if node.base_state == NodeBaseState::Unknown {
            node.base_state = NodeBaseState::Idle;
        }
        // Slurm counts a node's first registration as its last busy moment (`LastBusyTime` of a node that never
        // ran a job is when it registered, not `Unknown`).
        node.last_busy_time.get_or_insert(now);
        // A node that went down for not responding returns to service when it answers again
        // (ReturnToService=2 semantics); an admin's DOWN needs an explicit resume.
        if node.base_state == NodeBaseState::Down
            && node.reason.as_deref() == Some("Not responding")
        {
            node.base_state = NodeBaseState::Idle;
            node.reason = None;
        }
        let mut applied = Applied::default();
        self.drop_epilog_holds(&reg.name);
        self.reconcile_node_jobs(&reg, now, &mut applied);
        applied.effects.extend(self.prologs_owed(&reg.name));
        self.stop_stale_jobs(&reg, now, &mut applied);
        self.refresh_node_state(&reg.name);
        Ok(applied)
    }

    /// Whether the log runs job `job_id`'s batch script on `node` now (running or suspended, not completing, and
    /// `node` its first): a launch of it there is still due.
    pub fn runs_on(&self, job_id: u32, node: &str) -> bool {
        self.jobs.get(&job_id).is_some_and(|j| {
            jobs::started_and_live(j)
                && !j.completing
                && j.alloc
                    .as_ref()
                    .is_some_and(|a| a.node_names.first().map(String::as_str) == Some(node))
        })
    }

    /// Jobs the log places on this node but the agent does not run were never launched (or their launch was lost
    /// in a failover): launch them now. Jobs being terminated get their terminate again.
    fn reconcile_node_jobs(
        &mut self,
        reg: &NodeRegistration,
        now: EpochSecs,
        applied: &mut Applied,
    ) {
        let on_node: Vec<u32> = self
            .jobs
            .values()
            .filter(|j| {
                jobs::holds_resources(j)
                    && j.alloc
                        .as_ref()
                        .is_some_and(|a| a.node_names.first() == Some(&reg.name))
            })
            .map(|j| j.job_id)
            .collect();
        for job_id in on_node {
            let Some(job) = self.jobs.get(&job_id) else {
                continue;
            };
            let running_there = runs_current(reg, job);
            if jobs::started_and_live(job) && !job.completing {
                // A job still in its allocation prolog starts once every node answered (prologs_owed).
                if !running_there && job.prolog_pending.is_empty() {
                    applied.effects.push(Effect::Launch {
                        node: reg.name.clone(),
                        job_id,
                    });
                }
            } else if running_there {
                let reason = match job.state {
                    JobBaseState::Timeout => TerminateReason::TimeLimit,
                    _ => TerminateReason::Cancelled,
                };
                applied.effects.push(Effect::Terminate {
                    node: reg.name.clone(),
                    job_id,
                    reason,
                    at: now,
                    run: None,
                });
            } else {
                // Terminated while the agent was away and its report is gone with the agent: release it.
                let finished =
                    self.finish(job_id, Outcome::Exited { code: 0, signal: 9 }, now, None);
                applied.effects.extend(finished.effects);
            }
        }
    }

    /// Jobs the agent still runs although the log no longer places them there (failed over to another node or
    /// requeued while the node was silent) are stopped.
    fn stop_stale_jobs(&self, reg: &NodeRegistration, now: EpochSecs, applied: &mut Applied) {
        for &job_id in &reg.running_jobs {
            let placed_here = self.jobs.get(&job_id).is_some_and(|j| {
                jobs::holds_resources(j)
                    && j.alloc
                        .as_ref()
                        .is_some_and(|a| a.node_names.first() == Some(&reg.name))
                    && runs_current(reg, j)
            });
            if !placed_here {
                // The run the agent holds, not the job's current one: a run requeued meanwhile may be placed
                // here again, and must not be taken for this stale one.
                let run = reg
                    .running_runs
                    .iter()
                    .find(|(id, _)| *id == job_id)
                    .map(|(_, run)| *run);
                applied.effects.push(Effect::Terminate {
                    node: reg.name.clone(),
                    job_id,
                    reason: TerminateReason::NodeFail,
                    at: now,
                    run,
                });
            }
        }
    }

    /// `scontrol update PartitionName=... State=...`: a partition that is not up keeps its jobs pending
    /// (`PartitionDown`) until it is up again.
    pub(super) fn update_partition(&mut self, name: &str, state: PartitionState) -> ApplyResult {
        let Some(partition) = self.partitions.iter_mut().find(|p| p.name == name) else {
            return Err(ApiError::new(SlurmErrno::InvalidPartitionName));
        };
        partition.state = state;
        Ok(Applied::default())
    }

    pub(super) fn node_responding(
        &mut self,
        name: &str,
        responding: bool,
        now: EpochSecs,
    ) -> Applied {
        let mut applied = Applied::default();
        let Some(node) = self.nodes.get_mut(name) else {
            return applied;
        };
        node.not_responding = !responding;
        if responding {
            node.last_heartbeat = Some(now);
            return applied;
        }
        // Silent for SlurmdTimeout: the node goes DOWN and the jobs on it fail.
        node.base_state = NodeBaseState::Down;
        node.reason = Some("Not responding".to_string());
        node.reason_time = Some(now);
        node.reason_uid = Some(0);
        let victims: Vec<u32> = self
            .jobs
            .values()
            .filter(|j| {
                jobs::holds_resources(j)
                    && j.alloc
                        .as_ref()
                        .is_some_and(|a| a.node_names.iter().any(|n| n == name))
            })
            .map(|j| j.job_id)
            .collect();
        // As slurmctld: batch jobs that may be requeued go back to the queue (a new run, which a returning node's
        // stale run is never taken for), the others end NODE_FAIL.
        for job_id in victims {
            let effects = if self.shrinks_on_node_failure(job_id, name) {
                self.node_failed_no_kill(job_id, name, now)
            } else if self.requeues_on_node_failure(job_id, name) {
                self.node_failed_requeue(job_id, name, now)
            } else {
                self.node_failed(job_id, name, now)
            };
            applied.effects.extend(effects);
        }
        applied
    }

    /// `scontrol update NodeName=`: a state change (with its reason), a new weight, new features; `None` leaves
    /// a field as it is. Weight and features live in the node's record, which placement reads
    /// (rules/placement.rs), so the next scheduling pass already uses them; a reconfiguration restores slurm.conf's,
    /// as in Slurm.
    pub(super) fn update_nodes(
        &mut self,
        names: &[String],
        changes: NodeChanges,
        caller_uid: u32,
        now: EpochSecs,
    ) -> ApplyResult {
        let NodeChanges {
            state,
            reason,
            weight,
            features,
            active_features,
        } = changes;
        if let Some(unknown) = names.iter().find(|n| !self.nodes.contains_key(*n)) {
            return Err(ApiError::with_detail(
                SlurmErrno::InvalidNodeName,
                unknown.clone(),
            ));
        }
        if matches!(state, Some(NodeUpdateState::Drain | NodeUpdateState::Down)) && reason.is_none()
        {
            return Err(ApiError::with_detail(
                SlurmErrno::Error,
                "You must specify a reason when DOWNING or DRAINING a node. Request denied",
            ));
        }
        if features.is_some() || active_features.is_some() {
            for name in names {
                let Some(node) = self.nodes.get(name) else {
                    continue;
                };
                // Without a node features plugin Slurm keeps the active features unless told, so a new available
                // list must still hold every active one.
                let avail = features.as_ref().unwrap_or(&node.features);
                let active = active_features.as_ref().unwrap_or(&node.features);
                if !active.iter().all(|f| avail.contains(f)) {
                    return Err(ApiError::new(SlurmErrno::ActiveFeatureNotSubset));
                }
                // Without ActiveFeatures= the active features become the new available ones. Spur's nodes have
                // one feature list, so active features given other than the available ones cannot be kept.
                if active_features.is_some() && !avail.iter().all(|f| active.contains(f)) {
                    return Err(ApiError::new(SlurmErrno::NotSupported));
                }
            }
        }
        let mut applied = Applied::default();
        for name in names {
            let Some(node) = self.nodes.get_mut(name) else {
                continue;
            };
            if let Some(weight) = weight {
                node.weight = weight;
            }
            if let Some(features) = features.as_ref().or(active_features.as_ref()) {
                node.features.clone_from(features);
            }
            let Some(state) = state else {
                continue;
            };
            match state {
                NodeUpdateState::Drain => {
                    node.drain = true;
                    set_reason(node, reason.clone(), caller_uid, now);
                }
                NodeUpdateState::Down => {
                    node.base_state = NodeBaseState::Down;
                    set_reason(node, reason.clone(), caller_uid, now);
                }
                NodeUpdateState::Resume | NodeUpdateState::Undrain | NodeUpdateState::Idle => {
                    node.drain = false;
                    if node.base_state == NodeBaseState::Down {
                        node.base_state = NodeBaseState::Idle;
                    }
                    node.reason = None;
                    node.reason_time = None;
                    node.reason_uid = None;
                }
            }
            if state == NodeUpdateState::Down {
                let victims: Vec<u32> = self
                    .jobs
                    .values()
                    .filter(|j| {
                        jobs::holds_resources(j)
                            && j.alloc
                                .as_ref()
                                .is_some_and(|a| a.node_names.contains(name))
                    })
                    .map(|j| j.job_id)
                    .collect();
                for job_id in victims {
                    applied.effects.extend(self.node_failed(job_id, name, now));
                }
            }
            self.refresh_node_state(name);
        }
        Ok(applied)
    }

    /// Recomputes IDLE/MIXED/ALLOCATED from the ledgers, leaving DOWN and UNKNOWN alone.
    pub(super) fn refresh_node_state(&mut self, name: &str) {
        if let Some(node) = self.nodes.get_mut(name) {
            if matches!(
                node.base_state,
                NodeBaseState::Down | NodeBaseState::Unknown
            ) {
                return;
            }
            node.base_state = if node.cpus_in_use() == 0 {
                NodeBaseState::Idle
            } else if node.cpus_in_use() >= node.cpus {
                NodeBaseState::Allocated
            } else {
                NodeBaseState::Mixed
            };
        }
    }
}

/// What `scontrol update NodeName=` asks to change (`None`: leave as it is).
#[derive(Debug, Default)]
pub(super) struct NodeChanges {
    pub state: Option<NodeUpdateState>,
    pub reason: Option<String>,
    pub weight: Option<u32>,
    pub features: Option<Vec<String>>,
    pub active_features: Option<Vec<String>>,
}

impl NodeChanges {
    /// A drain with its reason, as slurmctld does for a failed node script.
    pub(super) fn drain(reason: &str) -> Self {
        NodeChanges {
            state: Some(NodeUpdateState::Drain),
            reason: Some(reason.to_string()),
            ..NodeChanges::default()
        }
    }
}

fn set_reason(node: &mut NodeRecord, reason: Option<String>, uid: u32, now: EpochSecs) {
    node.reason = reason;
    node.reason_time = Some(now);
    node.reason_uid = Some(uid);
}

/// The agent runs the job's current run (an agent that does not say which run it runs is believed).
fn runs_current(reg: &NodeRegistration, job: &spur_core::model::job::JobRecord) -> bool {
    reg.running_jobs.contains(&job.job_id)
        && reg
            .running_runs
            .iter()
            .find(|(id, _)| *id == job.job_id)
            .is_none_or(|(_, run)| *run == job.restarts)
}
