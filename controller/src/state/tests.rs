//! The state machine and scheduler together, without processes: submit, schedule, finish, and every control
//! request, with the invariants checked after each applied command.

use pretty_assertions::assert_eq;

use spur_core::model::job::{GresRequest, JobSpec};
use spur_core::model::records::{ClusterConfig, NodeGres, PartitionRecord, PartitionState};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{
    ControlRequest, JobSelector, JobUpdate, NodeUpdateState, SignalScope, SlurmErrno,
};

use super::*;
use crate::scheduler::schedule;

/// A cluster with builders: one log index per applied command, invariants after each.
pub(super) struct Harness {
    pub(super) state: ClusterState,
    index: u64,
    pub(super) now: i64,
}

fn node(name: &str, cpus: u32, gpus: u64) -> NodeDefinition {
    NodeDefinition {
        name: name.to_string(),
        addr: "127.0.0.1".to_string(),
        hostname: name.to_string(),
        cpus,
        boards: 1,
        sockets: 1,
        cores_per_socket: cpus,
        threads_per_core: 1,
        real_memory_mb: 4000,
        tmp_disk_mb: 0,
        weight: 1,
        features: vec!["fast".to_string()],
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

fn partition(name: &str, nodes: &[&str], default: bool) -> PartitionRecord {
    let nodes: Vec<String> = nodes.iter().map(|n| n.to_string()).collect();
    PartitionRecord {
        default,
        ..PartitionRecord::with_nodes(name, &nodes)
    }
}

pub(super) fn spec(name: &str) -> JobSpec {
    JobSpec {
        name: name.to_string(),
        user_id: 1000,
        group_id: 1000,
        user_name: "alice".to_string(),
        nodes_min: 1,
        cpus_per_task: 1,
        work_dir: "/tmp".to_string(),
        script: Some("#!/bin/sh\ntrue\n".to_string()),
        requeue: true,
        ..Default::default()
    }
}

impl Harness {
    pub(super) fn new() -> Self {
        let mut h = Harness {
            state: ClusterState::new(),
            index: 0,
            now: 1_000_000,
        };
        let settings = Settings {
            def_mem_per_cpu_mb: Some(100),
            memory_is_consumable: true,
            ..Settings::default()
        };
        h.apply(Command::ApplyConfig(Box::new(ConfigSnapshot {
            cluster: ClusterConfig::default(),
            settings,
            nodes: vec![node("n1", 2, 4)],
            partitions: vec![partition("debug", &["n1"], true)],
        })))
        .unwrap();
        h.register("n1", &[]);
        h
    }

    pub(super) fn apply(&mut self, command: Command) -> ApplyResult {
        self.index += 1;
        let result = self.state.apply(self.index, command);
        if let Err(violation) = self.state.check_invariants() {
            panic!("invariant broken after command {}: {violation}", self.index);
        }
        result
    }

    fn register(&mut self, name: &str, running: &[u32]) -> Applied {
        self.register_runs(name, running, &[])
    }

    /// A registration that says which run of each job runs there.
    fn register_runs(&mut self, name: &str, running: &[u32], runs: &[(u32, u32)]) -> Applied {
        let registration = NodeRegistration {
            name: name.to_string(),
            hostname: name.to_string(),
            addr: "127.0.0.1".to_string(),
            cpus: 2,
            sockets: 1,
            cores_per_socket: 2,
            threads_per_core: 1,
            real_memory_mb: 4000,
            boot_time: 0,
            agent_start_time: self.now,
            os: "Linux".to_string(),
            arch: "x86_64".to_string(),
            version: "test".to_string(),
            running_jobs: running.to_vec(),
            running_runs: runs.to_vec(),
            gpu_topology: None,
            session_nonce: None,
        };
        let now = self.now;
        self.apply(Command::RegisterNode {
            registration: Box::new(registration),
            now,
        })
        .unwrap()
    }

    pub(super) fn submit(&mut self, spec: JobSpec) -> u32 {
        let now = self.now;
        self.apply(Command::Submit {
            spec: Box::new(spec),
            now,
        })
        .unwrap()
        .job_id
        .unwrap()
    }

    /// Runs the pure scheduler and commits its plan, as the leader does.
    /// Runs a pass and returns the job ids it started under (an array task gets its job id as it starts).
    pub(super) fn schedule(&mut self) -> Vec<u32> {
        let plan = schedule(&self.state, self.now);
        // Each start's array and index, for a task that gets its job id as it starts.
        let planned: Vec<(u32, Option<(u32, u32)>)> = plan
            .starts
            .iter()
            .map(|(id, _)| {
                let task = self
                    .state
                    .jobs
                    .get(id)
                    .filter(|j| j.is_unstarted_array_task())
                    .and_then(|j| j.array_job_id.zip(j.array_task_id));
                (*id, task)
            })
            .collect();
        let now = self.now;
        self.apply(Command::Schedule {
            starts: plan.starts,
            reasons: plan.reasons,
            now,
            forecasts: plan.forecasts,
            priorities: plan.priorities,
            preemptions: plan.preemptions,
            reason_descs: plan.reason_descs,
            resumes: plan.resumes,
        })
        .unwrap();
        planned
            .into_iter()
            .map(|(key, task)| match task {
                Some((array, index)) => self.task(array, index),
                None => key,
            })
            .collect()
    }

    /// The key of task `index` of array `array`: its job id once started, else where it waits.
    pub(super) fn task(&self, array: u32, index: u32) -> u32 {
        self.find_task(array, index)
            .unwrap_or_else(|| panic!("no task {array}_{index}"))
    }

    pub(super) fn find_task(&self, array: u32, index: u32) -> Option<u32> {
        self.state
            .jobs
            .values()
            .find(|j| j.array_job_id == Some(array) && j.array_task_id == Some(index))
            .map(|j| j.job_id)
    }

    pub(super) fn finish(&mut self, job_id: u32, code: u32, signal: u32) {
        let now = self.now;
        self.apply(Command::Finished {
            job_id,
            outcome: Outcome::Exited { code, signal },
            now,
            run: None,
        })
        .unwrap();
    }

    pub(super) fn control(&mut self, uid: u32, request: ControlRequest) -> ApplyResult {
        let now = self.now;
        self.apply(Command::Control {
            caller_uid: uid,
            request,
            now,
        })
    }

    fn job(&self, id: u32) -> &spur_core::model::job::JobRecord {
        &self.state.jobs[&id]
    }
}

pub(super) fn select(job_id: u32) -> JobSelector {
    JobSelector {
        job_id,
        array_task: None,
    }
}

#[test]
fn ids_are_monotonic_and_jobs_run_first_come_first_served() {
    let mut h = Harness::new();
    let a = h.submit(JobSpec {
        ntasks: Some(2),
        ..spec("a")
    });
    let b = h.submit(spec("b"));
    let c = h.submit(spec("c"));
    assert_eq!((a, b, c), (1, 2, 3));
    assert!(h.job(a).priority > h.job(b).priority);
    assert_eq!(h.schedule(), vec![a]);
    assert_eq!(h.job(b).reason, JobReason::Resources);
    assert_eq!(h.job(c).reason, JobReason::Priority);
    h.finish(a, 0, 0);
    assert_eq!(h.job(a).state, JobBaseState::Completed);
    assert_eq!(h.schedule(), vec![b, c]);
}

#[test]
fn exit_codes_and_signals_set_state_and_reason() {
    let mut h = Harness::new();
    let failed = h.submit(spec("f"));
    let killed = h.submit(spec("k"));
    h.schedule();
    h.finish(failed, 3, 0);
    h.finish(killed, 0, 9);
    assert_eq!(h.job(failed).state, JobBaseState::Failed);
    assert_eq!((h.job(failed).exit_code, h.job(failed).exit_signal), (3, 0));
    assert_eq!(h.job(failed).reason, JobReason::FailExitCode);
    assert_eq!((h.job(killed).exit_code, h.job(killed).exit_signal), (0, 9));
}

#[test]
fn a_memory_cgroup_kill_ends_the_job_out_of_memory() {
    let mut h = Harness::new();
    let job = h.submit(spec("oom"));
    h.schedule();
    let now = h.now;
    // As real Slurm 22.05 shows it, whatever the script returned after the kill.
    h.apply(Command::Finished {
        job_id: job,
        outcome: Outcome::OutOfMemory { code: 0, signal: 0 },
        now,
        run: None,
    })
    .unwrap();
    assert_eq!(h.job(job).state, JobBaseState::OutOfMemory);
    assert_eq!(h.job(job).reason, JobReason::FailOom);
    assert_eq!((h.job(job).exit_code, h.job(job).exit_signal), (0, 125));
    assert!(h.state.jobs[&job].alloc.is_some());
    assert_eq!(h.schedule(), Vec::<u32>::new());
}

#[test]
fn gpus_are_handed_out_without_overlap() {
    let mut h = Harness::new();
    let gpus = |n| GresRequest {
        name: "gpu".to_string(),
        gres_type: None,
        count: n,
    };
    let a = h.submit(JobSpec {
        gres: vec![gpus(3)],
        ..spec("a")
    });
    let b = h.submit(JobSpec {
        gres: vec![gpus(2)],
        ..spec("b")
    });
    assert_eq!(h.schedule(), vec![a]);
    assert_eq!(
        h.job(a).alloc.as_ref().unwrap().gres_indices["gpu"],
        vec![0, 1, 2]
    );
    assert_eq!(h.job(b).reason, JobReason::Resources);
    h.finish(a, 0, 0);
    assert_eq!(h.schedule(), vec![b]);
    assert_eq!(
        h.job(b).alloc.as_ref().unwrap().gres_indices["gpu"],
        vec![0, 1]
    );
}

#[test]
fn impossible_requests_are_refused_at_submit() {
    let mut h = Harness::new();
    // More CPUs than the partition has pends (PartitionConfig, part_limit_tests.rs); more than a node has is refused.
    let too_many_cpus = h.apply(Command::Submit {
        spec: Box::new(JobSpec {
            min_cpus_per_node: Some(3),
            ..spec("x")
        }),
        now: 0,
    });
    assert_eq!(
        too_many_cpus.unwrap_err().errno,
        SlurmErrno::RequestedNodeConfigUnavailable
    );
    let bad_type = h.apply(Command::Submit {
        spec: Box::new(JobSpec {
            gres: vec![GresRequest {
                name: "gpu".to_string(),
                gres_type: Some("h100".to_string()),
                count: 1,
            }],
            ..spec("x")
        }),
        now: 0,
    });
    assert_eq!(
        bad_type.unwrap_err().errno,
        SlurmErrno::RequestedNodeConfigUnavailable
    );
    let bad_partition = h.apply(Command::Submit {
        spec: Box::new(JobSpec {
            partition: Some("nosuch".to_string()),
            ..spec("x")
        }),
        now: 0,
    });
    let error = bad_partition.unwrap_err();
    assert_eq!(error.errno, SlurmErrno::InvalidPartitionName);
    assert_eq!(
        error.detail.as_deref(),
        Some("invalid partition specified: nosuch")
    );
    let empty_partition = h.apply(Command::Submit {
        spec: Box::new(JobSpec {
            partition: Some(String::new()),
            ..spec("x")
        }),
        now: 0,
    });
    assert_eq!(
        empty_partition.unwrap_err().detail.as_deref(),
        Some("invalid partition specified: (null)")
    );
    // Refusals by the node checks use up a job id (1 and 2 here), as in slurmctld; the others do not.
    assert_eq!(h.submit(spec("ok")), 3);
    // A held job is not checked against the nodes, as in Slurm.
    let held = h.apply(Command::Submit {
        spec: Box::new(JobSpec {
            ntasks: Some(64),
            hold: true,
            ..spec("held")
        }),
        now: 0,
    });
    assert!(held.is_ok());
}

#[test]
fn per_node_shortfalls_are_named_and_held_jobs_wait_for_release() {
    let mut h = Harness::new();
    let refusal = |h: &mut Harness, spec: JobSpec| {
        let error = h
            .apply(Command::Submit {
                spec: Box::new(spec),
                now: 0,
            })
            .unwrap_err();
        (error.errno, error.detail)
    };
    let unavailable = SlurmErrno::RequestedNodeConfigUnavailable;
    let detail = |text: &str| Some(text.to_string());
    // The first check no node passes is named: CPUs, then memory, then temporary disk.
    let many_cpus = JobSpec {
        min_cpus_per_node: Some(3),
        mem_per_node_mb: Some(1_000_000),
        ..spec("x")
    };
    assert_eq!(
        refusal(&mut h, many_cpus),
        (
            unavailable,
            detail("CPU count per node can not be satisfied")
        )
    );
    // A task's CPUs times the tasks each node runs are the job's CPUs per node too (`-c3`,
    // `--ntasks-per-node=3` on 2-CPU nodes), where the partition has the CPUs in all (with one node here, such a
    // job pends with PartitionConfig instead: part_limit_tests.rs; case 408 refuses them on three nodes).
    h.state.settings.refuse_unrunnable = true;
    for shape in [
        JobSpec {
            cpus_per_task: 3,
            ..spec("x")
        },
        JobSpec {
            ntasks_per_node: Some(3),
            ..spec("x")
        },
    ] {
        assert_eq!(
            refusal(&mut h, shape),
            (
                unavailable,
                detail("CPU count per node can not be satisfied")
            )
        );
    }
    h.state.settings.refuse_unrunnable = false;
    let much_memory = JobSpec {
        mem_per_node_mb: Some(1_000_000),
        tmp_disk_mb: 1_000_000,
        ..spec("x")
    };
    assert_eq!(
        refusal(&mut h, much_memory),
        (
            unavailable,
            detail("Memory specification can not be satisfied")
        )
    );
    // --mem-per-cpu counts one task's CPUs (or --mincpus); more tasks are refused later, without a detail.
    let tasks = JobSpec {
        mem_per_cpu_mb: Some(3000),
        ntasks: Some(2),
        ..spec("x")
    };
    assert_eq!(refusal(&mut h, tasks), (unavailable, None));
    let per_cpu = JobSpec {
        mem_per_cpu_mb: Some(3000),
        min_cpus_per_node: Some(2),
        ..spec("x")
    };
    assert_eq!(
        refusal(&mut h, per_cpu),
        (
            unavailable,
            detail("Memory specification can not be satisfied")
        )
    );
    let much_disk = JobSpec {
        tmp_disk_mb: 1_000_000,
        ..spec("x")
    };
    assert_eq!(
        refusal(&mut h, much_disk),
        (
            unavailable,
            detail("Temporary disk specification can not be satisfied")
        )
    );
    let no_nodes = JobSpec {
        nodes_min: 0,
        ..spec("x")
    };
    assert_eq!(
        refusal(&mut h, no_nodes),
        (SlurmErrno::InvalidNodeCount, None)
    );
    // A held job is judged when it is released, as slurmctld does.
    for held in [
        JobSpec {
            nodes_min: 0,
            hold: true,
            ..spec("held")
        },
        JobSpec {
            mem_per_node_mb: Some(1_000_000),
            hold: true,
            ..spec("held")
        },
    ] {
        assert!(h
            .apply(Command::Submit {
                spec: Box::new(held),
                now: 0,
            })
            .is_ok());
    }
    // --mincpus is what the job takes on its node.
    let two = h.submit(JobSpec {
        min_cpus_per_node: Some(2),
        ..spec("two")
    });
    h.schedule();
    let alloc = h.job(two).alloc.clone().unwrap();
    assert_eq!(alloc.cpus, 2);
}

#[test]
fn cancel_pending_and_running_jobs() {
    let mut h = Harness::new();
    let running = h.submit(JobSpec {
        ntasks: Some(2),
        ..spec("r")
    });
    let pending = h.submit(spec("p"));
    h.schedule();
    h.control(
        1000,
        ControlRequest::Cancel {
            job: select(pending),
        },
    )
    .unwrap();
    assert_eq!(h.job(pending).state, JobBaseState::Cancelled);
    let applied = h
        .control(
            1000,
            ControlRequest::Cancel {
                job: select(running),
            },
        )
        .unwrap();
    assert!(matches!(
        applied.effects.as_slice(),
        [Effect::Terminate {
            reason: TerminateReason::Cancelled,
            ..
        }]
    ));
    assert!(h.job(running).completing);
    // Resources stay booked until the node confirms the processes are gone.
    assert_eq!(h.state.nodes["n1"].alloc_cpus, 2);
    h.finish(running, 0, 15);
    assert_eq!(h.job(running).state, JobBaseState::Cancelled);
    assert_eq!(h.state.nodes["n1"].alloc_cpus, 0);
    assert_eq!(
        (h.job(running).exit_code, h.job(running).exit_signal),
        (0, 15)
    );
}

#[test]
fn other_users_cannot_touch_a_job_but_root_can() {
    let mut h = Harness::new();
    let job = h.submit(spec("mine"));
    let denied = h
        .control(1001, ControlRequest::Cancel { job: select(job) })
        .unwrap_err();
    assert_eq!(denied.errno, SlurmErrno::AccessDenied);
    let missing = h
        .control(1000, ControlRequest::Cancel { job: select(99) })
        .unwrap_err();
    assert_eq!(missing.errno, SlurmErrno::InvalidJobId);
    // Hold, release and update go through Slurm's job update, which says "Invalid user id" instead.
    let updates = [
        ControlRequest::Hold {
            job: select(job),
            by_user: true,
        },
        ControlRequest::Release { job: select(job) },
        ControlRequest::UpdateJob {
            job: select(job),
            update: JobUpdate::default(),
        },
    ];
    for request in updates {
        let denied = h.control(1001, request).unwrap_err();
        assert_eq!(denied.errno, SlurmErrno::UserIdMissing);
    }
    h.control(0, ControlRequest::Cancel { job: select(job) })
        .unwrap();
    assert_eq!(h.job(job).state, JobBaseState::Cancelled);
}

#[test]
fn holds_and_releases_with_slurm_reasons_and_priorities() {
    let mut h = Harness::new();
    let held = h.submit(JobSpec {
        hold: true,
        ..spec("held")
    });
    let other = h.submit(spec("other"));
    assert_eq!(h.job(held).priority, 0);
    assert_eq!(h.job(held).reason, JobReason::HeldUser);
    assert_eq!(h.job(held).last_sched_eval, Some(h.now));
    h.control(
        0,
        ControlRequest::Hold {
            job: select(other),
            by_user: false,
        },
    )
    .unwrap();
    assert_eq!(h.job(other).reason, JobReason::Held);
    // A user may not release an admin hold.
    let denied = h
        .control(1000, ControlRequest::Release { job: select(other) })
        .unwrap_err();
    assert_eq!(denied.errno, SlurmErrno::AccessDenied);
    h.control(1000, ControlRequest::Release { job: select(held) })
        .unwrap();
    assert_eq!(h.job(held).hold, None);
    assert_eq!(h.job(held).priority, 0xFFFF_0000 - 3);
    assert_eq!(h.schedule(), vec![held]);
    // Holding a running job succeeds, as in Slurm: it keeps running with priority 0.
    h.control(
        0,
        ControlRequest::Hold {
            job: select(held),
            by_user: false,
        },
    )
    .unwrap();
    assert_eq!(h.job(held).state, JobBaseState::Running);
    assert_eq!(h.job(held).priority, 0);
}

#[test]
fn arrays_expand_and_honour_the_throttle() {
    let mut h = Harness::new();
    let first = h.submit(JobSpec {
        array: Some("1-4%1".to_string()),
        ..spec("arr")
    });
    assert_eq!(h.state.jobs.len(), 4);
    assert_eq!(h.job(h.task(first, 1)).array_job_id, Some(first));
    assert_eq!(h.job(h.task(first, 4)).array_task_id, Some(4));
    // The first task starts under the next free job id; the array keeps its own for its last task.
    assert_eq!(h.schedule(), vec![first + 1]);
    assert_eq!(h.job(h.task(first, 2)).reason, JobReason::ArrayTaskLimit);
    // Cancelling `first_2`, which never started, addresses one task only and leaves no record of it.
    let task2 = JobSelector {
        job_id: first,
        array_task: Some(2),
    };
    h.control(1000, ControlRequest::Cancel { job: task2.clone() })
        .unwrap();
    assert_eq!(h.find_task(first, 2), None);
    assert_eq!(
        h.control(1000, ControlRequest::Cancel { job: task2 })
            .unwrap_err()
            .errno,
        SlurmErrno::InvalidJobId
    );
    h.finish(first + 1, 0, 0);
    assert_eq!(h.schedule(), vec![first + 2]);
    // Cancelling the array id reaches every remaining task.
    h.control(1000, ControlRequest::Cancel { job: select(first) })
        .unwrap();
    assert_eq!(h.job(h.task(first, 4)).state, JobBaseState::Cancelled);
}

#[test]
fn selectors_find_arrays_among_neighbouring_jobs() {
    let mut h = Harness::new();
    let before = h.submit(spec("before"));
    let first = h.submit(JobSpec {
        array: Some("1-3".to_string()),
        hold: true,
        ..spec("arr")
    });
    let after = h.submit(spec("after"));
    assert_eq!(after, first + 1, "an array uses up one job id");
    assert_eq!(h.state.select_jobs(&select(before)), vec![before]);
    assert_eq!(h.state.select_jobs(&select(after)), vec![after]);
    let keys: Vec<u32> = (1..=3).map(|t| h.task(first, t)).collect();
    assert_eq!(h.state.select_jobs(&select(first)), keys);
    let task = |job_id, t| JobSelector {
        job_id,
        array_task: Some(t),
    };
    assert_eq!(h.state.select_jobs(&task(first, 2)), vec![keys[1]]);
    assert!(h.state.select_jobs(&task(after, 1)).is_empty());
    // Where a task waits is no job id.
    assert!(h.state.select_jobs(&select(keys[0])).is_empty());
    assert!(h.state.select_jobs(&task(keys[2], 3)).is_empty());
    // A task cancelled before it ever ran leaves no record; the array id still reaches the others.
    h.control(
        1000,
        ControlRequest::Cancel {
            job: task(first, 1),
        },
    )
    .unwrap();
    assert_eq!(h.find_task(first, 1), None);
    assert_eq!(h.state.select_jobs(&select(first)), vec![keys[1], keys[2]]);
    assert!(h.state.select_jobs(&select(after + 1)).is_empty());
    // Started, the tasks are named by the array and index, and by their own ids.
    for other in [before, after] {
        h.control(1000, ControlRequest::Cancel { job: select(other) })
            .unwrap();
    }
    h.control(1000, ControlRequest::Release { job: select(first) })
        .unwrap();
    assert_eq!(h.schedule(), vec![after + 1, first]);
    assert_eq!(h.state.select_jobs(&select(first)), vec![first, after + 1]);
    assert_eq!(h.state.select_jobs(&task(first, 2)), vec![after + 1]);
    assert_eq!(h.state.select_jobs(&task(first, 3)), vec![first]);
    assert_eq!(h.state.select_jobs(&task(after + 1, 2)), vec![after + 1]);
    assert!(h.state.select_jobs(&task(after + 1, 3)).is_empty());
}

#[test]
fn cancelling_pending_array_tasks_one_by_one_keeps_the_last_as_a_record() {
    let mut h = Harness::new();
    let first = h.submit(JobSpec {
        array: Some("1-2".to_string()),
        hold: true,
        ..spec("arr")
    });
    let task = |t| JobSelector {
        job_id: first,
        array_task: Some(t),
    };
    h.control(1000, ControlRequest::Cancel { job: task(1) })
        .unwrap();
    h.control(1000, ControlRequest::Cancel { job: task(2) })
        .unwrap();
    assert_eq!(h.state.jobs.len(), 1);
    // The array's record, under the array's id.
    assert_eq!(h.job(first).state, JobBaseState::Cancelled);
    assert_eq!(h.job(first).reason, JobReason::HeldUser);
    assert_eq!(h.job(first).array_task_id, Some(2));
}

#[test]
fn dependencies_wait_then_release_or_never_satisfy() {
    let mut h = Harness::new();
    let parent = h.submit(spec("parent"));
    let ok_child = h.submit(JobSpec {
        dependency: Some(format!("afterok:{parent}")),
        ..spec("okchild")
    });
    let notok_child = h.submit(JobSpec {
        dependency: Some(format!("afternotok:{parent}")),
        ..spec("notokchild")
    });
    h.schedule();
    assert_eq!(h.job(ok_child).reason, JobReason::Dependency);
    h.finish(parent, 0, 0);
    assert_eq!(h.schedule(), vec![ok_child]);
    assert_eq!(h.job(notok_child).reason, JobReason::DepInvalid);
    let unknown = h.submit(JobSpec {
        dependency: Some("afterok:999".to_string()),
        ..spec("x")
    });
    h.schedule();
    assert_eq!(h.job(unknown).reason, JobReason::Dependency);
    let malformed = h.apply(Command::Submit {
        spec: Box::new(JobSpec {
            dependency: Some("afterok:abc".to_string()),
            ..spec("x")
        }),
        now: 0,
    });
    assert_eq!(malformed.unwrap_err().errno, SlurmErrno::InvalidDependency);
}

#[test]
fn kill_on_invalid_dep_cancels_once_the_dependency_can_never_be_satisfied() {
    let mut h = Harness::new();
    let parent = h.submit(spec("parent"));
    let killed = h.submit(JobSpec {
        dependency: Some(format!("afterok:{parent}")),
        kill_on_invalid_dep: Some(true),
        ..spec("killed")
    });
    let kept = h.submit(JobSpec {
        dependency: Some(format!("afterok:{parent}")),
        ..spec("kept")
    });
    h.schedule();
    assert_eq!(h.job(killed).state, JobBaseState::Pending);
    h.finish(parent, 1, 0);
    h.schedule();
    assert_eq!(h.job(killed).state, JobBaseState::Cancelled);
    assert_eq!(h.job(killed).reason, JobReason::DepInvalid);
    assert_eq!(h.job(kept).state, JobBaseState::Pending);
    assert_eq!(h.job(kept).reason, JobReason::DepInvalid);
    // slurm.conf's kill_invalid_depend makes it the default; the job's own `=no` still wins.
    h.state.settings.kill_invalid_depend = true;
    let refused = h.submit(JobSpec {
        dependency: Some(format!("afterok:{parent}")),
        kill_on_invalid_dep: Some(false),
        ..spec("refused")
    });
    h.schedule();
    assert_eq!(h.job(kept).state, JobBaseState::Cancelled);
    assert_eq!(h.job(refused).state, JobBaseState::Pending);
}

#[test]
fn dependency_on_an_array_id_shows_every_task() {
    let mut h = Harness::new();
    let array = h.submit(JobSpec {
        array: Some("1-2".to_string()),
        hold: true,
        ..spec("arr")
    });
    let child = h.submit(JobSpec {
        dependency: Some(format!("afterok:{array}_1,aftercorr:{array}")),
        ..spec("child")
    });
    let text = h.job(child).spec.dependency.clone().unwrap();
    let shown = crate::rules::dependency::describe(&h.state, h.job(child), &text, h.now);
    assert_eq!(
        shown,
        format!("afterok:{array}_1(unfulfilled),aftercorr:{array}_*(unfulfilled)")
    );
}

#[test]
fn begin_time_defers_a_job() {
    let mut h = Harness::new();
    let later = h.submit(JobSpec {
        begin_time: Some(h.now + 60),
        ..spec("later")
    });
    assert!(h.schedule().is_empty());
    assert_eq!(h.job(later).reason, JobReason::Time);
    h.now += 61;
    assert_eq!(h.schedule(), vec![later]);
}

#[test]
fn time_limit_terminates_and_records_timeout() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        time_limit_min: Some(1),
        ..spec("t")
    });
    h.schedule();
    h.now += 61;
    let expired = crate::runtime::expired_jobs(&h.state, h.now);
    assert_eq!(expired, vec![job]);
    let now = h.now;
    let applied = h
        .apply(Command::TimeLimitReached {
            job_ids: expired,
            now,
        })
        .unwrap();
    assert!(matches!(
        applied.effects.as_slice(),
        [Effect::Terminate {
            reason: TerminateReason::TimeLimit,
            ..
        }]
    ));
    h.finish(job, 0, 15);
    assert_eq!(h.job(job).state, JobBaseState::Timeout);
    assert_eq!(h.job(job).reason, JobReason::FailTimeout);
    assert_eq!((h.job(job).exit_code, h.job(job).exit_signal), (0, 15));
}

#[test]
fn requeue_returns_a_running_job_to_the_queue() {
    let mut h = Harness::new();
    let job = h.submit(spec("rq"));
    h.schedule();
    h.control(
        1000,
        ControlRequest::Requeue {
            job: select(job),
            hold: false,
        },
    )
    .unwrap();
    h.finish(job, 0, 15);
    assert_eq!(h.job(job).state, JobBaseState::Pending);
    assert_eq!(h.job(job).restarts, 1);
    // As slurmctld, it waits out the old run's credential (120 s + 1) with reason BeginTime first.
    assert!(h.schedule().is_empty());
    assert_eq!(h.job(job).reason, JobReason::Time);
    h.now += 121;
    assert_eq!(h.schedule(), vec![job]);
    let no_requeue = h.submit(JobSpec {
        requeue: false,
        ..spec("nr")
    });
    let refused = h.control(
        1000,
        ControlRequest::Requeue {
            job: select(no_requeue),
            hold: false,
        },
    );
    assert_eq!(refused.unwrap_err().errno, SlurmErrno::DisabledRequeue);
}

#[test]
fn a_result_of_an_earlier_run_never_ends_the_run_in_progress() {
    let mut h = Harness::new();
    let job = h.submit(spec("runs"));
    h.schedule();
    h.control(
        1000,
        ControlRequest::Requeue {
            job: select(job),
            hold: false,
        },
    )
    .unwrap();
    let report = |run| Command::Finished {
        job_id: job,
        outcome: Outcome::Exited {
            code: 0,
            signal: 15,
        },
        now: 0,
        run: Some(run),
    };
    h.apply(report(0)).unwrap();
    assert_eq!(h.schedule(), vec![job]);
    // The agent never got the acknowledgement of run 0's result and sends it again while run 1 is on.
    let applied = h.apply(report(0)).unwrap();
    assert_eq!(h.job(job).state, JobBaseState::Running);
    assert!(
        applied.effects.iter().any(|e| matches!(
            e,
            Effect::AckFinished { job_id: j, run: Some(0), .. } if *j == job
        )),
        "the stale result is acknowledged, by run: {:?}",
        applied.effects
    );
    h.apply(Command::Finished {
        job_id: job,
        outcome: Outcome::Exited { code: 0, signal: 0 },
        now: 0,
        run: Some(1),
    })
    .unwrap();
    assert_eq!(h.job(job).state, JobBaseState::Completed);
    assert_eq!((h.job(job).exit_code, h.job(job).exit_signal), (0, 0));
}

#[test]
fn requeuehold_says_so_until_released() {
    let mut h = Harness::new();
    let job = h.submit(spec("rqh"));
    h.schedule();
    h.control(
        1000,
        ControlRequest::Requeue {
            job: select(job),
            hold: true,
        },
    )
    .unwrap();
    h.finish(job, 0, 15);
    assert!(h.schedule().is_empty());
    assert_eq!(h.job(job).reason, JobReason::HeldUser);
    assert_eq!(
        h.job(job).state_desc.as_deref(),
        Some("job requeued in held state")
    );
    h.control(1000, ControlRequest::Release { job: select(job) })
        .unwrap();
    assert_eq!(h.job(job).state_desc, None);
}

#[test]
fn update_job_fields_and_limits_on_users() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        time_limit_min: Some(10),
        ..spec("u")
    });
    let update = |limit| JobUpdate {
        time_limit_min: Some(Some(limit)),
        name: Some("renamed".to_string()),
        ..Default::default()
    };
    h.control(
        1000,
        ControlRequest::UpdateJob {
            job: select(job),
            update: update(5),
        },
    )
    .unwrap();
    assert_eq!(h.job(job).time_limit_min, Some(5));
    assert_eq!(h.job(job).spec.name, "renamed");
    let raise = h.control(
        1000,
        ControlRequest::UpdateJob {
            job: select(job),
            update: update(50),
        },
    );
    assert_eq!(raise.unwrap_err().errno, SlurmErrno::AccessDenied);
    h.control(
        0,
        ControlRequest::UpdateJob {
            job: select(job),
            update: update(50),
        },
    )
    .unwrap();
    assert_eq!(h.job(job).time_limit_min, Some(50));
}

#[test]
fn drained_nodes_take_no_work_and_resume() {
    let mut h = Harness::new();
    let drain = ControlRequest::UpdateNode {
        nodes: vec!["n1".to_string()],
        state: Some(NodeUpdateState::Drain),
        reason: Some("maintenance".to_string()),
        weight: None,
        features: None,
        active_features: None,
    };
    assert_eq!(
        h.control(1000, drain.clone()).unwrap_err().errno,
        SlurmErrno::UserIdMissing
    );
    h.control(0, drain).unwrap();
    let job = h.submit(spec("j"));
    assert!(h.schedule().is_empty());
    assert_eq!(h.job(job).reason, JobReason::Resources);
    let resume = ControlRequest::UpdateNode {
        nodes: vec!["n1".to_string()],
        state: Some(NodeUpdateState::Resume),
        reason: None,
        weight: None,
        features: None,
        active_features: None,
    };
    h.control(0, resume).unwrap();
    assert_eq!(h.schedule(), vec![job]);
}

#[test]
fn a_partition_set_down_holds_its_jobs_until_up_again() {
    let mut h = Harness::new();
    let name = h.state.partitions[0].name.clone();
    let down = |state| ControlRequest::UpdatePartition {
        name: name.clone(),
        state,
    };
    let denied = h.control(1000, down(PartitionState::Down)).unwrap_err();
    assert_eq!(denied.errno, SlurmErrno::AccessDenied);
    h.control(0, down(PartitionState::Down)).unwrap();
    let job = h.submit(JobSpec {
        partition: Some(name.clone()),
        ..spec("j")
    });
    assert!(h.schedule().is_empty());
    assert_eq!(h.job(job).reason, JobReason::PartDown);
    h.control(0, down(PartitionState::Up)).unwrap();
    assert_eq!(h.schedule(), vec![job]);
    let unknown = ControlRequest::UpdatePartition {
        name: "nosuch".to_string(),
        state: PartitionState::Up,
    };
    assert_eq!(
        h.control(0, unknown).unwrap_err().errno,
        SlurmErrno::InvalidPartitionName
    );
}

#[test]
fn first_registration_sets_last_busy_time() {
    let mut h = Harness::new();
    let registered = h.now;
    assert_eq!(h.state.nodes["n1"].last_busy_time, Some(registered));
    // Later registrations keep it: only the end of a job moves it.
    h.now += 100;
    h.register("n1", &[]);
    assert_eq!(h.state.nodes["n1"].last_busy_time, Some(registered));
}

#[test]
fn reregistration_relaunches_lost_jobs_and_resends_terminations() {
    let mut h = Harness::new();
    let lost = h.submit(spec("lost"));
    let cancelled = h.submit(spec("cancelled"));
    h.schedule();
    h.control(
        1000,
        ControlRequest::Cancel {
            job: select(cancelled),
        },
    )
    .unwrap();
    let applied = h.register("n1", &[cancelled]);
    assert!(applied.effects.contains(&Effect::Launch {
        node: "n1".to_string(),
        job_id: lost
    }));
    assert!(applied
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Terminate { job_id, .. } if *job_id == cancelled)));
}

#[test]
fn signals_reach_running_jobs_only() {
    let mut h = Harness::new();
    let job = h.submit(spec("s"));
    let pending = h.control(
        1000,
        ControlRequest::Signal {
            job: select(job),
            signal: 10,
            scope: SignalScope::BatchShell,
        },
    );
    assert_eq!(
        pending.unwrap_err().errno,
        SlurmErrno::TransitionStateNoUpdate
    );
    h.schedule();
    let applied = h
        .control(
            1000,
            ControlRequest::Signal {
                job: select(job),
                signal: 10,
                scope: SignalScope::BatchShell,
            },
        )
        .unwrap();
    assert_eq!(
        applied.effects,
        vec![Effect::Signal {
            node: "n1".to_string(),
            job_id: job,
            signal: 10,
            scope: SignalScope::BatchShell,
            step_pids: Vec::new(),
        }]
    );
}

/// `scancel -s SIG` without `-b`/`-f` reaches only the tasks of running steps: the effect names the steps' srun
/// processes, and a job without running steps gets nothing (and the request still succeeds, as in Slurm).
#[test]
fn step_signals_name_the_running_steps_or_do_nothing() {
    let mut h = Harness::new();
    let job = h.submit(spec("s"));
    h.schedule();
    let to_steps = ControlRequest::Signal {
        job: select(job),
        signal: 10,
        scope: SignalScope::Steps,
    };
    let applied = h.control(1000, to_steps.clone()).unwrap();
    assert!(applied.effects.is_empty());
    h.control(
        1000,
        ControlRequest::CreateStep {
            job_id: job,
            name: "inner".into(),
            num_tasks: 1,
            num_cpus: 1,
            time_limit_min: None,
            srun_host: "n1".into(),
            srun_pid: 4321,
            launch: None,
            resv_port_cnt: None,
        },
    )
    .unwrap();
    let applied = h.control(1000, to_steps).unwrap();
    // srun's process for the tasks it runs itself, and each node's step supervisors for those they run.
    assert_eq!(
        applied.effects,
        vec![
            Effect::Signal {
                node: "n1".to_string(),
                job_id: job,
                signal: 10,
                scope: SignalScope::Steps,
                step_pids: vec![4321],
            },
            Effect::SignalStepTasks {
                node: "n1".to_string(),
                job_id: job,
                signal: 10,
                step_ids: vec![0],
            }
        ]
    );
}

#[test]
fn purge_forgets_old_finished_jobs_but_never_reuses_ids() {
    let mut h = Harness::new();
    let job = h.submit(spec("old"));
    h.schedule();
    h.finish(job, 0, 0);
    h.now += 301;
    let now = h.now;
    h.apply(Command::Purge { now }).unwrap();
    assert!(h.state.jobs.is_empty());
    assert_eq!(h.submit(spec("new")), job + 1);
}

#[test]
fn snapshots_round_trip() {
    use crate::raft::AppStateMachine;
    let mut h = Harness::new();
    h.submit(spec("a"));
    h.schedule();
    let bytes = AppStateMachine::snapshot(&h.state).unwrap();
    let mut restored = ClusterState::new();
    AppStateMachine::restore(&mut restored, &bytes).unwrap();
    assert_eq!(restored, h.state);
}

#[test]
fn warning_signal_is_sent_once_before_the_time_limit() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        time_limit_min: Some(2),
        signal: Some((10, 60, true)),
        ..spec("w")
    });
    h.schedule();
    assert!(crate::runtime::warning_signals_due(&h.state, h.now + 59).is_empty());
    h.now += 60;
    let due = crate::runtime::warning_signals_due(&h.state, h.now);
    assert_eq!(due, vec![job]);
    let now = h.now;
    let applied = h
        .apply(Command::WarningSignalDue { job_ids: due, now })
        .unwrap();
    assert_eq!(
        applied.effects,
        vec![Effect::Signal {
            node: "n1".to_string(),
            job_id: job,
            signal: 10,
            scope: SignalScope::BatchShell,
            step_pids: Vec::new(),
        }]
    );
    assert!(crate::runtime::warning_signals_due(&h.state, h.now + 1).is_empty());
}

#[test]
fn a_silent_node_goes_down_and_its_jobs_that_may_not_be_requeued_fail() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        requeue: false,
        ..spec("nf")
    });
    assert_eq!(h.schedule(), vec![job]);
    let now = h.now;
    let applied = h
        .apply(Command::NodeResponding {
            name: "n1".to_string(),
            responding: false,
            now,
        })
        .unwrap();
    assert_eq!(applied.effects.len(), 1);
    assert_eq!(h.job(job).state, JobBaseState::NodeFail);
    assert_eq!(
        h.state.nodes["n1"].base_state,
        spur_core::model::records::NodeBaseState::Down
    );
    let waiting = h.submit(spec("later"));
    assert!(h.schedule().is_empty());
    // The node returns with the old run still alive: it is stopped, and the node takes work again.
    let back = h.register("n1", &[job]);
    assert!(back
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Terminate { job_id, reason: TerminateReason::NodeFail, .. } if *job_id == job)));
    assert_eq!(h.schedule(), vec![waiting]);
    // Its late result changes nothing.
    h.finish(job, 0, 9);
    assert_eq!(h.job(job).state, JobBaseState::NodeFail);
}

#[test]
fn a_silent_node_requeues_its_batch_jobs_and_its_stale_run_never_passes_for_the_new_one() {
    let mut h = Harness::new();
    let job = h.submit(spec("rq-nf"));
    assert_eq!(h.schedule(), vec![job]);
    let now = h.now;
    h.apply(Command::NodeResponding {
        name: "n1".to_string(),
        responding: false,
        now,
    })
    .unwrap();
    assert_eq!(h.job(job).state, JobBaseState::Pending);
    assert_eq!(h.job(job).restarts, 1);
    assert_eq!((h.job(job).exit_code, h.job(job).exit_signal), (0, 0));
    // The node returns with run 0 still alive: that run is stopped, and the job starts there as run 1 once the
    // requeue delay (`AuthInfo=cred_expire=` + 1, 121 s by default) has passed.
    h.now += 121;
    let back = h.register_runs("n1", &[job], &[(job, 0)]);
    assert!(back
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Terminate { job_id, .. } if *job_id == job)));
    assert_eq!(h.schedule(), vec![job]);
    // A later registration that still lists the dying run 0 does not pass it for run 1 either: run 1 is
    // launched, run 0 stopped.
    let again = h.register_runs("n1", &[job], &[(job, 0)]);
    assert!(again
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Launch { job_id, .. } if *job_id == job)));
    let finished = |run, signal| Command::Finished {
        job_id: job,
        outcome: Outcome::Exited { code: 0, signal },
        now,
        run: Some(run),
    };
    h.apply(finished(0, 9)).unwrap();
    assert_eq!(h.job(job).state, JobBaseState::Running);
    h.apply(finished(1, 0)).unwrap();
    assert_eq!(h.job(job).state, JobBaseState::Completed);
}

/// Two 4-CPU nodes a1 and a2 and a job on both, started, with `adjust` applied to its spec first.
fn job_on_two_nodes(
    adjust: impl FnOnce(&mut JobSpec),
) -> (crate::scheduler::scenario::Scenario, u32) {
    use crate::scheduler::scenario::{job, node, partition, Scenario};
    let names = ["a1".to_string(), "a2".to_string()];
    let defs = vec![node("a1", 4, 4_000, 0), node("a2", 4, 4_000, 0)];
    let parts = vec![partition("batch", &names, true)];
    let mut s = Scenario::new(defs, parts, Settings::default(), 1_000_000).unwrap();
    let mut spec = job(1, 100, 0, None);
    spec.nodes_min = 2;
    spec.ntasks = Some(2);
    adjust(&mut spec);
    let id = s.submit(spec).unwrap();
    s.pass().unwrap();
    (s, id)
}

#[test]
fn a_silent_second_node_requeues_the_job_once_its_batch_host_stopped_it() {
    let (mut s, id) = job_on_two_nodes(|spec| {
        spec.requeue = true;
        spec.script = Some("#!/bin/sh\nsrun true\n".to_string());
    });
    let now = s.now;
    let applied = s
        .apply(Command::NodeResponding {
            name: "a2".to_string(),
            responding: false,
            now,
        })
        .unwrap();
    let stopped: Vec<(&str, TerminateReason)> = applied
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Terminate {
                node,
                job_id,
                reason,
                ..
            } if *job_id == id => Some((node.as_str(), *reason)),
            _ => None,
        })
        .collect();
    assert_eq!(
        stopped,
        vec![
            ("a2", TerminateReason::NodeFail),
            ("a1", TerminateReason::NodeFail)
        ]
    );
    // Until the batch host reports, the job holds its nodes (the script may still be running there).
    assert!(s.state.jobs[&id].completing);
    s.apply(Command::Finished {
        job_id: id,
        outcome: Outcome::Exited {
            code: 0,
            signal: 15,
        },
        now,
        run: Some(0),
    })
    .unwrap();
    let job = &s.state.jobs[&id];
    assert_eq!(
        (job.state, job.restarts, job.completing),
        (JobBaseState::Pending, 1, false)
    );
    assert_eq!(s.state.nodes["a1"].alloc_cpus, 0);
}

/// Found by the simulator (controller/tests/simulation.rs): when a node other than a multi-node job's first one
/// went silent, only the silent node was told to stop the job, so its batch script ran on at the first node on
/// resources already given back.
#[test]
fn a_silent_second_node_stops_the_job_on_its_first_node() {
    let (mut s, id) = job_on_two_nodes(|_| {});
    let now = s.now;
    let applied = s
        .apply(Command::NodeResponding {
            name: "a2".to_string(),
            responding: false,
            now,
        })
        .unwrap();
    assert_eq!(s.state.jobs[&id].state, JobBaseState::NodeFail);
    let stopped: Vec<&str> = applied
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Terminate { node, job_id, .. } if *job_id == id => Some(node.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(stopped, vec!["a2", "a1"]);
}

/// Checked on Slurm 22.05 (two nodes, the second's slurmd killed): a `--no-kill` job runs on with `NodeList=n1`,
/// `NumNodes=1` and a `ResizeTime`, and the step that had tasks on the lost node is killed.
#[test]
fn a_no_kill_job_loses_a_failed_node_and_the_steps_it_ran_there() {
    use spur_core::model::step_launch::{NodeTasks, StepLaunch};
    let (mut s, id) = job_on_two_nodes(|spec| {
        spec.no_kill = true;
        spec.script = Some("#!/bin/sh\nsrun sleep 60\n".to_string());
    });
    let step_on = |nodes: &[&str]| {
        let launch = StepLaunch {
            argv: vec!["sleep".to_string()],
            work_dir: "/tmp".to_string(),
            io_addr: "127.0.0.1:4000".to_string(),
            io_key: "k".to_string(),
            kill_wait_secs: 2,
            pty: false,
            cpu_bind: None,
            gpu_bind: None,
            mem_per_node_mb: None,
            mpi: Default::default(),
            task_prolog: None,
            task_epilog: None,
            nodes: nodes
                .iter()
                .enumerate()
                .map(|(i, n)| NodeTasks {
                    node: n.to_string(),
                    node_id: i as u32,
                    ranks: vec![i as u32],
                    env: Vec::new(),
                    argv: Vec::new(),
                    mem_mb: None,
                })
                .collect(),
        };
        Command::Control {
            caller_uid: 0,
            request: ControlRequest::CreateStep {
                job_id: id,
                name: "sleep".into(),
                num_tasks: nodes.len() as u32,
                num_cpus: nodes.len() as u32,
                time_limit_min: None,
                srun_host: "a1".into(),
                srun_pid: 7,
                launch: Some(Box::new(launch)),
                resv_port_cnt: None,
            },
            now: 1_000_000,
        }
    };
    let both = s.apply(step_on(&["a1", "a2"])).unwrap().step_id.unwrap();
    let here = s.apply(step_on(&["a1"])).unwrap().step_id.unwrap();
    let now = s.now;
    let applied = s
        .apply(Command::NodeResponding {
            name: "a2".to_string(),
            responding: false,
            now,
        })
        .unwrap();
    assert!(applied.effects.is_empty(), "{:?}", applied.effects);
    let job = &s.state.jobs[&id];
    assert_eq!(job.state, JobBaseState::Running);
    assert_eq!(
        job.alloc.as_ref().unwrap().node_names,
        vec!["a1".to_string()]
    );
    assert_eq!(job.resize_time, Some(now));
    let state_of = |step: u32| {
        job.steps
            .iter()
            .find(|st| st.step_id == step)
            .unwrap()
            .state
    };
    assert_eq!(state_of(both), JobBaseState::Cancelled);
    assert_eq!(state_of(here), JobBaseState::Running);
    assert_eq!(s.state.nodes["a2"].alloc_cpus, 0);
    assert!(s.state.nodes["a1"].alloc_cpus > 0);
    // Losing its first node ends it as any job.
    s.apply(Command::NodeResponding {
        name: "a1".to_string(),
        responding: false,
        now,
    })
    .unwrap();
    assert_eq!(s.state.jobs[&id].state, JobBaseState::NodeFail);
}

#[test]
fn jobs_without_a_memory_request_record_the_default() {
    let mut h = Harness::new();
    let plain = h.submit(spec("plain"));
    let per_node = h.submit(JobSpec {
        mem_per_node_mb: Some(300),
        ..spec("per-node")
    });
    let exclusive = h.submit(JobSpec {
        exclusive: true,
        ..spec("exclusive")
    });
    assert_eq!(h.job(plain).spec.mem_per_cpu_mb, Some(100));
    assert_eq!(
        (
            h.job(per_node).spec.mem_per_node_mb,
            h.job(per_node).spec.mem_per_cpu_mb
        ),
        (Some(300), None)
    );
    // As in Slurm 22.05 (`MinMemoryCPU=1G`, `TRES=cpu=2,mem=2G` for `--exclusive` on the reference node).
    assert_eq!(h.job(exclusive).spec.mem_per_cpu_mb, Some(100));
}

#[test]
fn accrue_time_starts_when_a_job_becomes_eligible() {
    let mut h = Harness::new();
    let running = h.submit(JobSpec {
        ntasks: Some(2),
        ..spec("running")
    });
    let waiting = h.submit(spec("waiting"));
    let held = h.submit(JobSpec {
        hold: true,
        ..spec("held")
    });
    assert_eq!(h.job(waiting).accrue_time, None);
    h.now += 5;
    assert_eq!(h.schedule(), vec![running]);
    assert_eq!(h.job(running).accrue_time, Some(h.now));
    assert_eq!(h.job(waiting).reason, JobReason::Resources);
    assert_eq!(h.job(waiting).accrue_time, Some(h.now));
    assert_eq!(h.job(held).accrue_time, None);
}

#[test]
fn a_hold_forgets_the_eligible_time_until_the_next_pass() {
    let mut h = Harness::new();
    let blocker = h.submit(JobSpec {
        ntasks: Some(2),
        ..spec("blocker")
    });
    let job = h.submit(spec("waiting"));
    h.schedule();
    assert_eq!(h.job(blocker).state, JobBaseState::Running);
    assert_eq!(h.job(job).eligible_time, Some(h.now));
    h.control(
        0,
        ControlRequest::Hold {
            job: select(job),
            by_user: false,
        },
    )
    .unwrap();
    assert_eq!(h.job(job).eligible_time, None);
    h.control(0, ControlRequest::Release { job: select(job) })
        .unwrap();
    assert_eq!(h.job(job).eligible_time, None);
    h.now += 7;
    h.schedule();
    assert_eq!(h.job(job).eligible_time, Some(h.now));
}

#[test]
fn immediate_requests_start_now_or_are_refused() {
    use crate::rules::immediate_check;
    let mut h = Harness::new();
    let one_cpu = spec("i");
    assert!(immediate_check(&h.state, &one_cpu, h.now).is_ok());
    let big = h.submit(JobSpec {
        ntasks: Some(2),
        ..spec("big")
    });
    h.schedule();
    let busy = immediate_check(&h.state, &one_cpu, h.now).unwrap_err();
    assert_eq!(busy.errno, SlurmErrno::NodesBusy);
    // Submitted with --immediate, the commit refuses it and uses up its job id, as slurmctld does (salloc then
    // says the allocation was revoked); the next job gets the following id.
    let now = h.now;
    let refused = h
        .apply(Command::Submit {
            spec: Box::new(JobSpec {
                immediate: true,
                ..spec("now")
            }),
            now,
        })
        .unwrap_err();
    assert_eq!(refused.errno, SlurmErrno::NodesBusy);
    assert_eq!(refused.job_id, Some(big + 1));
    assert!(!h.state.jobs.contains_key(&(big + 1)));
    let waiting = h.submit(spec("w"));
    assert_eq!(waiting, big + 2);
    h.schedule();
    assert_eq!(h.job(waiting).state, JobBaseState::Pending);
    let behind = immediate_check(&h.state, &one_cpu, h.now).unwrap_err();
    assert_eq!(behind.errno, SlurmErrno::NotTopPriority);
    let never = JobSpec {
        ntasks: Some(64),
        ..spec("never")
    };
    // Held or beginning later, it is not eligible: refused as a dependency problem, as slurmctld does.
    for not_yet in [
        JobSpec {
            hold: true,
            ..spec("held")
        },
        JobSpec {
            begin_time: Some(h.now + 3600),
            ..spec("later")
        },
    ] {
        let refused = immediate_check(&h.state, &not_yet, h.now).unwrap_err();
        assert_eq!(refused.errno, SlurmErrno::InvalidDependency);
    }
    let impossible = immediate_check(&h.state, &never, h.now).unwrap_err();
    // What would pend with reason PartitionConfig is refused with that reason's error, as slurmctld does.
    assert_eq!(impossible.errno, SlurmErrno::RequestedPartConfigUnavailable);
    h.finish(big, 0, 0);
    h.schedule();
    h.finish(waiting, 0, 0);
    assert!(immediate_check(&h.state, &one_cpu, h.now).is_ok());
    let started = h.submit(JobSpec {
        immediate: true,
        ..spec("now")
    });
    assert_eq!(h.schedule(), vec![started]);
}

#[test]
fn steps_are_numbered_per_run_ended_with_the_job_and_give_the_derived_exit() {
    let mut h = Harness::new();
    let job = h.submit(spec("steps"));
    let create = |name: &str| ControlRequest::CreateStep {
        job_id: job,
        name: name.to_string(),
        num_tasks: 1,
        num_cpus: 1,
        time_limit_min: None,
        srun_host: "login1".to_string(),
        srun_pid: 42,
        launch: None,
        resv_port_cnt: None,
    };
    // Only a running job takes steps.
    assert_eq!(
        h.control(1000, create("early")).unwrap_err().errno,
        SlurmErrno::AlreadyDone
    );
    h.schedule();
    assert_eq!(
        h.control(1001, create("intruder")).unwrap_err().errno,
        SlurmErrno::AccessDenied
    );
    assert_eq!(h.control(1000, create("a")).unwrap().step_id, Some(0));
    assert_eq!(h.control(1000, create("b")).unwrap().step_id, Some(1));
    h.control(
        1000,
        ControlRequest::CompleteStep {
            job_id: job,
            step_id: 0,
            exit_code: 3,
            signal: 0,
            usage: None,
        },
    )
    .unwrap();
    assert_eq!(h.job(job).steps[0].state, JobBaseState::Failed);
    assert!(h.job(job).steps[1].is_running());
    // scancel JOB.STEP: only a running step can be cancelled; its srun's report keeps it CANCELLED.
    let cancel = |step_id| ControlRequest::CancelStep {
        job_id: job,
        step_id,
    };
    assert_eq!(
        h.control(1000, cancel(0)).unwrap_err().errno,
        SlurmErrno::InvalidJobId
    );
    assert_eq!(h.control(1000, create("c")).unwrap().step_id, Some(2));
    h.control(1000, cancel(2)).unwrap();
    h.control(
        1000,
        ControlRequest::CompleteStep {
            job_id: job,
            step_id: 2,
            exit_code: 0,
            signal: 9,
            usage: None,
        },
    )
    .unwrap();
    assert_eq!(h.job(job).steps[2].state, JobBaseState::Cancelled);
    assert_eq!(h.job(job).steps[2].exit_signal, 9);
    h.finish(job, 0, 0);
    assert_eq!(h.job(job).steps[1].state, JobBaseState::Cancelled);
    assert_eq!(
        spur_core::model::step::derived_exit(&h.job(job).steps),
        (3, 0)
    );
}

#[test]
fn suspend_freezes_the_run_time_and_keeps_the_resources() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        time_limit_min: Some(1),
        ntasks: Some(2),
        ..spec("s")
    });
    // n1 has 2 CPUs: the second job fits only while the first does not hold them.
    let waiting = h.submit(JobSpec {
        ntasks: Some(2),
        ..spec("w")
    });
    assert_eq!(h.schedule(), vec![job]);
    let suspend = ControlRequest::Suspend { job: select(job) };
    let resume = ControlRequest::Resume { job: select(job) };
    // Operators only; an unknown job is slurmctld's "Unexpected message".
    assert_eq!(
        h.control(1000, suspend.clone()).unwrap_err().errno,
        SlurmErrno::AccessDenied
    );
    assert_eq!(
        h.control(0, ControlRequest::Suspend { job: select(999) })
            .unwrap_err()
            .errno,
        SlurmErrno::UnexpectedMessage
    );
    assert_eq!(
        h.control(0, resume.clone()).unwrap_err().errno,
        SlurmErrno::JobNotSuspended
    );
    h.now += 20;
    let stop = h.control(0, suspend.clone()).unwrap();
    assert!(matches!(
        stop.effects[..],
        [Effect::Signal {
            signal: libc::SIGSTOP,
            scope: SignalScope::All,
            ..
        }]
    ));
    assert_eq!(h.job(job).state, JobBaseState::Suspended);
    assert_eq!(h.job(job).pre_suspend_secs, 20);
    assert!(h.control(0, suspend).unwrap().effects.is_empty());
    // Suspended: still holding its CPUs, its clock stopped, never past its time limit.
    h.now += 600;
    assert_eq!(h.schedule(), Vec::<u32>::new());
    assert_eq!(h.job(job).run_secs(h.now), 20);
    assert!(crate::runtime::expired_jobs(&h.state, h.now).is_empty());
    h.control(0, resume).unwrap();
    let started = h.job(job).start_time.unwrap_or(0);
    assert_eq!(
        h.job(job).end_time,
        Some(started + 60 + 600),
        "EndTime moves out by the time spent suspended"
    );
    h.now += 40;
    assert_eq!(h.job(job).run_secs(h.now), 60);
    assert_eq!(crate::runtime::expired_jobs(&h.state, h.now), vec![job]);
    assert_eq!(h.job(waiting).state, JobBaseState::Pending);
    assert_eq!(
        h.control(
            0,
            ControlRequest::Suspend {
                job: select(waiting)
            }
        )
        .unwrap_err()
        .errno,
        SlurmErrno::JobPending
    );
}

#[test]
fn a_retried_submission_creates_one_job_even_across_a_snapshot() {
    let mut h = Harness::new();
    let once = |h: &mut Harness, id: &str| {
        let now = h.now;
        h.apply(Command::SubmitOnce {
            request_id: id.to_string(),
            spec: Box::new(spec("retry")),
            now,
        })
        .unwrap()
        .job_id
        .unwrap()
    };
    let first = once(&mut h, "client-1");
    assert_eq!(once(&mut h, "client-1"), first);
    let other = once(&mut h, "client-2");
    assert_ne!(other, first);
    assert_eq!(h.state.jobs.len(), 2);
    // A controller that restores a snapshot still recognises the retry.
    let bytes = serde_json::to_vec(&h.state).unwrap();
    h.state = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(once(&mut h, "client-1"), first);
    assert_eq!(h.state.jobs.len(), 2);
}

#[test]
fn a_retried_control_request_takes_effect_once_and_gets_the_first_answer() {
    let mut h = Harness::new();
    let job = h.submit(spec("rq"));
    h.schedule();
    let requeue = |h: &mut Harness, id: &str| {
        let now = h.now;
        h.apply(Command::ControlOnce {
            request_id: id.to_string(),
            caller_uid: 1000,
            request: ControlRequest::Requeue {
                job: select(job),
                hold: false,
            },
            now,
        })
    };
    let first = requeue(&mut h, "scontrol-1").unwrap();
    assert!(
        !first.effects.is_empty(),
        "the first attempt terminates the job"
    );
    h.finish(job, 0, 15);
    assert_eq!(h.job(job).restarts, 1);
    // The retry (its answer lost in a failover) changes nothing and repeats no effect, even after a snapshot.
    let bytes = serde_json::to_vec(&h.state).unwrap();
    h.state = serde_json::from_slice(&bytes).unwrap();
    let retried = requeue(&mut h, "scontrol-1").unwrap();
    assert!(retried.effects.is_empty());
    assert_eq!(retried.failures, first.failures);
    assert_eq!(h.job(job).restarts, 1);
    assert_eq!(h.job(job).state, JobBaseState::Pending);
    // A refusal is remembered as the answer too; a new request id is a new request.
    let refused = requeue(&mut h, "scontrol-2");
    assert_eq!(requeue(&mut h, "scontrol-2"), refused);
}

#[test]
fn a_step_launch_goes_to_the_jobs_nodes_as_the_jobs_owner() {
    use spur_core::model::step_launch::{NodeTasks, StepLaunch};
    let mut h = Harness::new();
    let job = h.submit(spec("remote"));
    h.schedule();
    let launch = |node: &str| StepLaunch {
        argv: vec!["hostname".to_string()],
        work_dir: "/tmp".to_string(),
        io_addr: "127.0.0.1:4000".to_string(),
        io_key: "k".to_string(),
        kill_wait_secs: 2,
        pty: false,
        cpu_bind: None,
        gpu_bind: None,
        mem_per_node_mb: None,
        mpi: Default::default(),
        task_prolog: None,
        task_epilog: None,
        nodes: vec![NodeTasks {
            node: node.to_string(),
            node_id: 0,
            ranks: vec![0, 1],
            env: vec![("A".to_string(), "1".to_string())],
            argv: Vec::new(),
            mem_mb: None,
        }],
    };
    let create = |node: &str| ControlRequest::CreateStep {
        job_id: job,
        name: "hostname".into(),
        num_tasks: 2,
        num_cpus: 2,
        time_limit_min: None,
        srun_host: "login1".into(),
        srun_pid: 7,
        launch: Some(Box::new(launch(node))),
        resv_port_cnt: None,
    };
    // Only the job's own nodes run its tasks.
    assert_eq!(
        h.control(1000, create("n9")).unwrap_err().errno,
        SlurmErrno::InvalidNodeName
    );
    // root asks, the job's owner runs them.
    let applied = h.control(0, create("n1")).unwrap();
    let step_id = applied.step_id.unwrap();
    match applied.effects.as_slice() {
        [Effect::LaunchStep { node, launch }] => {
            assert_eq!(node, "n1");
            assert_eq!((launch.uid, launch.gid), (1000, 1000));
            assert_eq!((launch.job_id, launch.step_id), (job, step_id));
            assert_eq!(launch.tasks.ranks, vec![0, 1]);
        }
        other => panic!("unexpected effects {other:?}"),
    }
    let step = h.job(job).steps.last().cloned().unwrap();
    assert_eq!((step.node_list.as_str(), step.num_nodes), ("n1", 1));
}

fn part_spec(name: &str) -> spur_core::model::partition_spec::PartitionSpec {
    spur_core::model::partition_spec::PartitionSpec {
        name: name.to_string(),
        ..Default::default()
    }
}

#[test]
fn partitions_created_updated_and_deleted_at_run_time() {
    let mut h = Harness::new();
    let create = |spec| ControlRequest::CreatePartition { spec };
    let p2 = spur_core::model::partition_spec::PartitionSpec {
        nodes: Some("n1".into()),
        max_time_min: Some(Some(30)),
        ..part_spec("p2")
    };
    assert_eq!(
        h.control(1000, create(p2.clone())).unwrap_err().errno,
        SlurmErrno::UserIdMissing
    );
    h.control(0, create(p2.clone())).unwrap();
    assert_eq!(
        h.control(0, create(p2)).unwrap_err().errno,
        SlurmErrno::InvalidPartitionName
    );
    let bad_nodes = spur_core::model::partition_spec::PartitionSpec {
        nodes: Some("nosuch".into()),
        ..part_spec("p3")
    };
    assert_eq!(
        h.control(0, create(bad_nodes)).unwrap_err().errno,
        SlurmErrno::InvalidNodeName
    );
    assert!(h.state.partition("p3").is_none());
    assert_eq!(h.state.partition("p2").unwrap().max_time_min, Some(30));
    assert_eq!(h.state.partition("p2").unwrap().min_nodes, 1);
    assert_eq!(h.state.nodes["n1"].partitions, vec!["debug", "p2"]);

    // Default=YES moves the default; jobs then land in p2.
    let make_default = spur_core::model::partition_spec::PartitionSpec {
        default: Some(true),
        max_time_min: Some(None),
        ..part_spec("p2")
    };
    h.control(0, ControlRequest::ModifyPartition { spec: make_default })
        .unwrap();
    assert_eq!(h.state.default_partition().unwrap().name, "p2");
    assert!(!h.state.partition("debug").unwrap().default);
    assert_eq!(h.state.partition("p2").unwrap().max_time_min, None);
    let unknown = ControlRequest::ModifyPartition {
        spec: part_spec("nosuch"),
    };
    assert_eq!(
        h.control(0, unknown).unwrap_err().errno,
        SlurmErrno::InvalidPartitionName
    );

    let job = h.submit(spec("j"));
    assert_eq!(h.job(job).partition, "p2");
    let delete = || ControlRequest::DeletePartition { name: "p2".into() };
    assert_eq!(
        h.control(1000, delete()).unwrap_err().errno,
        SlurmErrno::UserIdMissing
    );
    assert_eq!(
        h.control(0, delete()).unwrap_err().errno,
        SlurmErrno::PartitionInUse
    );
    assert_eq!(h.schedule(), vec![job]);
    assert_eq!(
        h.control(0, delete()).unwrap_err().errno,
        SlurmErrno::PartitionInUse
    );
    h.finish(job, 0, 0);
    h.control(0, delete()).unwrap();
    assert!(h.state.partition("p2").is_none());
    assert_eq!(h.state.nodes["n1"].partitions, vec!["debug"]);
    assert_eq!(
        h.control(0, delete()).unwrap_err().errno,
        SlurmErrno::InvalidPartitionName
    );
}

#[test]
fn a_created_partition_survives_a_restart_and_a_configured_one_comes_back() {
    let mut h = Harness::new();
    let p2 = spur_core::model::partition_spec::PartitionSpec {
        nodes: Some("ALL".into()),
        ..part_spec("p2")
    };
    h.control(0, ControlRequest::CreatePartition { spec: p2 })
        .unwrap();
    h.control(
        0,
        ControlRequest::DeletePartition {
            name: "debug".into(),
        },
    )
    .unwrap();
    // A restart: the snapshot round-trips through JSON, then slurm.conf is applied again.
    let saved = serde_json::to_string(&h.state).unwrap();
    h.state = serde_json::from_str(&saved).unwrap();
    h.apply(Command::ApplyConfig(Box::new(ConfigSnapshot {
        cluster: ClusterConfig::default(),
        settings: h.state.settings.clone(),
        nodes: vec![node("n1", 2, 4)],
        partitions: vec![partition("debug", &["n1"], true)],
    })))
    .unwrap();
    let names: Vec<&str> = h.state.partitions.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, vec!["debug", "p2"]);
    assert_eq!(h.state.partition("p2").unwrap().nodes, vec!["n1"]);
    assert_eq!(h.state.nodes["n1"].partitions, vec!["debug", "p2"]);
    // An older snapshot without the field still loads.
    let mut old: serde_json::Value = serde_json::from_str(&saved).unwrap();
    old.as_object_mut().unwrap().remove("runtime_partitions");
    let old: ClusterState = serde_json::from_value(old).unwrap();
    assert!(old.runtime_partitions.is_empty());
}

#[test]
fn step_time_limit_update_and_job_notify() {
    let mut h = Harness::new();
    let pending = h.submit(spec("pending"));
    let job = h.submit(spec("j"));
    h.control(
        0,
        ControlRequest::Hold {
            job: select(pending),
            by_user: false,
        },
    )
    .unwrap();
    assert_eq!(h.schedule(), vec![job]);
    h.control(
        1000,
        ControlRequest::CreateStep {
            job_id: job,
            name: "s".into(),
            num_tasks: 1,
            num_cpus: 1,
            time_limit_min: None,
            srun_host: "n1".into(),
            srun_pid: 42,
            launch: None,
            resv_port_cnt: None,
        },
    )
    .unwrap();
    let update = |job_id, step_id, limit| ControlRequest::UpdateStep {
        job_id,
        step_id,
        time_limit_min: limit,
    };
    h.control(1000, update(job, Some(0), Some(5))).unwrap();
    assert_eq!(h.job(job).steps[0].time_limit_min, Some(5));
    h.control(0, update(job, None, None)).unwrap();
    assert_eq!(h.job(job).steps[0].time_limit_min, None);
    let errno = |h: &mut Harness, uid, r| h.control(uid, r).unwrap_err().errno;
    assert_eq!(
        errno(&mut h, 1001, update(job, Some(0), Some(1))),
        SlurmErrno::UserIdMissing
    );
    assert_eq!(
        errno(&mut h, 0, update(job, Some(7), Some(1))),
        SlurmErrno::InvalidJobId
    );
    assert_eq!(
        errno(&mut h, 0, update(999, Some(0), Some(1))),
        SlurmErrno::InvalidJobId
    );
    assert_eq!(
        errno(&mut h, 0, update(pending, None, Some(1))),
        SlurmErrno::InvalidJobId
    );

    let notify = |job_id| ControlRequest::NotifyJob {
        job_id,
        message: "hello".into(),
    };
    let applied = h.control(1000, notify(job)).unwrap();
    // `spec()` jobs are batch jobs: the message goes to the batch node's supervisor.
    assert_eq!(
        applied.effects,
        vec![Effect::Notify {
            node: "n1".into(),
            job_id: job,
            message: "hello".into(),
        }]
    );
    assert_eq!(
        errno(&mut h, 0, notify(pending)),
        SlurmErrno::DisabledRequeue
    );
    assert_eq!(errno(&mut h, 0, notify(999)), SlurmErrno::InvalidJobId);
    assert_eq!(errno(&mut h, 1001, notify(job)), SlurmErrno::UserIdMissing);
}

#[test]
fn nodes_created_only_as_future_and_deleted_when_idle() {
    let mut h = Harness::new();
    let create = |definition: &str| ControlRequest::CreateNode {
        definition: definition.into(),
    };
    assert_eq!(
        h.control(1000, create("NodeName=n9 State=FUTURE"))
            .unwrap_err()
            .errno,
        SlurmErrno::UserIdMissing
    );
    assert_eq!(
        h.control(0, create("NodeName=n9 CPUs=1"))
            .unwrap_err()
            .errno,
        SlurmErrno::InvalidNodeState
    );
    // Without MaxNodeCount there is no spare slot: success, nothing added (node_update_tests.rs).
    h.control(0, create("NodeName=n9 State=future")).unwrap();
    assert!(!h.state.nodes.contains_key("n9"));
    let delete = |nodes: &str| ControlRequest::DeleteNode {
        nodes: nodes.into(),
    };
    assert_eq!(
        h.control(0, delete("nosuch")).unwrap_err().errno,
        SlurmErrno::InvalidNodeName
    );
    let job = h.submit(spec("j"));
    assert_eq!(h.schedule(), vec![job]);
    assert_eq!(
        h.control(0, delete("n1")).unwrap_err().errno,
        SlurmErrno::NodesBusy
    );
    h.finish(job, 0, 0);
    assert_eq!(
        h.control(1000, delete("n1")).unwrap_err().errno,
        SlurmErrno::UserIdMissing
    );
    let reservation = spur_core::model::reservation::ReservationRecord {
        name: "r1".into(),
        start: h.now + 3600,
        end: h.now + 7200,
        nodes: vec!["n1".into()],
        cpus: 2,
        users: vec!["root".into()],
        user_ids: vec![0],
        accounts: Vec::new(),
        partition: None,
        flags: Default::default(),
        created: 0,
    };
    h.state.reservations.insert("r1".into(), reservation);
    assert_eq!(
        h.control(0, delete("n1")).unwrap_err().errno,
        SlurmErrno::NodesBusy
    );
    h.state.reservations.clear();
    h.control(0, delete("n1")).unwrap();
    assert!(h.state.nodes.is_empty());
    assert!(h.state.partition("debug").unwrap().nodes.is_empty());
}

#[test]
fn a_step_past_its_own_time_limit_ends_timeout() {
    let mut h = Harness::new();
    let job = h.submit(spec("j"));
    assert_eq!(h.schedule(), vec![job]);
    let step = |limit| ControlRequest::CreateStep {
        job_id: job,
        name: "s".into(),
        num_tasks: 1,
        num_cpus: 1,
        time_limit_min: limit,
        srun_host: "n1".into(),
        srun_pid: 42,
        launch: None,
        resv_port_cnt: None,
    };
    h.control(1000, step(Some(1))).unwrap();
    h.control(1000, step(None)).unwrap();
    let start = h.now;
    assert!(crate::runtime::expired_steps(&h.state, start + 59).is_empty());
    let due = crate::runtime::expired_steps(&h.state, start + 60);
    assert_eq!(due, vec![(job, 0)]);
    h.now = start + 60;
    h.apply(Command::StepTimeLimitReached {
        steps: due,
        now: h.now,
    })
    .unwrap();
    assert_eq!(h.job(job).steps[0].state, JobBaseState::Timeout);
    assert_eq!(h.job(job).steps[1].state, JobBaseState::Running);
    // srun's later report of the killed task keeps TIMEOUT.
    h.control(
        1000,
        ControlRequest::CompleteStep {
            job_id: job,
            step_id: 0,
            exit_code: 0,
            signal: 15,
            usage: None,
        },
    )
    .unwrap();
    assert_eq!(h.job(job).steps[0].state, JobBaseState::Timeout);
    assert!(crate::runtime::expired_steps(&h.state, start + 600).is_empty());
}

#[test]
fn a_partition_a_reservation_is_made_for_cannot_be_deleted() {
    let mut h = Harness::new();
    let reservation = spur_core::model::reservation::ReservationRecord {
        name: "r1".into(),
        start: h.now + 3600,
        end: h.now + 7200,
        nodes: vec!["n1".into()],
        cpus: 2,
        users: vec!["root".into()],
        user_ids: vec![0],
        accounts: Vec::new(),
        partition: Some("debug".into()),
        flags: Default::default(),
        created: 0,
    };
    h.state.reservations.insert("r1".into(), reservation);
    let delete = || ControlRequest::DeletePartition {
        name: "debug".into(),
    };
    assert_eq!(
        h.control(0, delete()).unwrap_err().errno,
        SlurmErrno::PartitionInUse
    );
    h.state.reservations.clear();
    h.control(0, delete()).unwrap();
    assert!(h.state.partitions.is_empty());
}

#[test]
fn notify_of_an_interactive_allocation_is_kept_for_its_client() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        script: None,
        ..spec("alloc")
    });
    assert_eq!(h.schedule(), vec![job]);
    for i in 0..10 {
        let applied = h
            .control(
                1000,
                ControlRequest::NotifyJob {
                    job_id: job,
                    message: format!("m{i}"),
                },
            )
            .unwrap();
        assert!(applied.effects.is_empty());
    }
    // The last eight, numbered on from the first.
    let kept: Vec<(u32, String)> = (3..=10).map(|n| (n, format!("m{}", n - 1))).collect();
    assert_eq!(h.job(job).notices, kept);
}

#[test]
fn nodes_named_follows_the_list_whatever_its_order() {
    let names = |list: &[&str]| list.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let mut state = ClusterState::new();
    state
        .apply(
            1,
            Command::ApplyConfig(Box::new(ConfigSnapshot {
                cluster: ClusterConfig::default(),
                settings: Settings::default(),
                nodes: ["a1", "a2", "a3", "b1", "b2"]
                    .iter()
                    .map(|n| node(n, 2, 0))
                    .collect(),
                partitions: vec![partition("all", &["a1"], true)],
            })),
        )
        .unwrap();
    let walk = |list: &[String]| -> Vec<String> {
        state.nodes_named(list).map(|(n, _)| n.clone()).collect()
    };
    // In the map's order, with gaps, backwards, unknown names and repeats.
    for list in [
        names(&["a1", "a2", "a3", "b1", "b2"]),
        names(&["a1", "a3", "b2"]),
        names(&["b2", "b1", "a1"]),
        names(&["a2", "zz", "a3", "a0", "b1", "b1"]),
        names(&[]),
    ] {
        let expected: Vec<String> = list
            .iter()
            .filter(|n| state.nodes.contains_key(*n))
            .cloned()
            .collect();
        assert_eq!(walk(&list), expected, "{list:?}");
    }
}

#[test]
fn array_task_throttle_updates_every_task_and_the_scheduler_obeys_it() {
    let mut h = Harness::new();
    let first = h.submit(JobSpec {
        array: Some("1-4".to_string()),
        hold: true,
        ..spec("arr")
    });
    let throttle = |n| ControlRequest::UpdateJob {
        job: select(first),
        update: JobUpdate {
            array_throttle: Some(n),
            ..Default::default()
        },
    };
    h.control(1000, throttle(1)).unwrap();
    for task in 1..=4 {
        assert_eq!(
            h.job(h.task(first, task)).spec.array.as_deref(),
            Some("1-4%1")
        );
    }
    h.control(1000, ControlRequest::Release { job: select(first) })
        .unwrap();
    assert_eq!(h.schedule(), vec![first + 1]);
    // A new limit replaces the old one; 0 lifts it.
    h.control(1000, throttle(0)).unwrap();
    assert_eq!(h.job(h.task(first, 2)).spec.array.as_deref(), Some("1-4"));
    assert!(!h.schedule().is_empty());
    let running = (1..=4)
        .filter(|t| h.job(h.task(first, *t)).state == JobBaseState::Running)
        .count();
    assert!(running > 1, "{running} running");
}

#[test]
fn releasing_a_cancelled_job_says_it_has_finished() {
    let mut h = Harness::new();
    let job = h.submit(JobSpec {
        hold: true,
        ..spec("held")
    });
    h.control(1000, ControlRequest::Cancel { job: select(job) })
        .unwrap();
    let release = h.control(1000, ControlRequest::Release { job: select(job) });
    assert_eq!(release.unwrap_err().errno, SlurmErrno::JobFinished);
}
