//! Heterogeneous jobs on the pure scheduler and state machine: consecutive ids, all components start together
//! or none, each on nodes of its own (as Slurm 22.05's backfill places them), and the leader's end is the job's.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::wire::api::{ControlRequest, JobSelector};

use super::scenario::{job, node, partition, Scenario};
use crate::state::{BackfillSettings, Command, Outcome, Settings};

const T0: EpochSecs = 1_000_020;

fn cluster(nodes: &[&str], backfill: bool) -> Scenario {
    let names: Vec<String> = nodes.iter().map(|s| s.to_string()).collect();
    let defs = names.iter().map(|n| node(n, 2, 8000, 0)).collect();
    let settings = Settings {
        backfill: BackfillSettings {
            enabled: backfill,
            ..BackfillSettings::default()
        },
        ..Settings::default()
    };
    Scenario::new(defs, vec![partition("p", &names, true)], settings, T0).unwrap()
}

fn one_cpu() -> JobSpec {
    job(1, 100, 0, Some(10))
}

fn nodes_of(s: &Scenario, id: u32) -> Vec<String> {
    s.state.jobs[&id]
        .alloc
        .as_ref()
        .map(|a| a.node_names.clone())
        .unwrap_or_default()
}

#[test]
fn components_get_consecutive_ids_and_their_place() {
    let mut s = cluster(&["n1", "n2", "n3"], true);
    let before = s.submit(one_cpu()).unwrap();
    let leader = s.submit_het(vec![one_cpu(), one_cpu(), one_cpu()]).unwrap();
    assert_eq!(leader, before + 1);
    for (offset, id) in (leader..leader + 3).enumerate() {
        let het = s.state.jobs[&id].het.clone().unwrap();
        assert_eq!(
            (het.job_id, het.offset as usize, het.id_set()),
            (leader, offset, format!("{leader}-{}", leader + 2))
        );
        assert_eq!(s.state.jobs[&id].display_id(), format!("{leader}+{offset}"));
    }
    assert_eq!(s.submit(one_cpu()).unwrap(), leader + 3);
}

#[test]
fn a_refused_component_queues_nothing() {
    let mut s = cluster(&["n1", "n2"], true);
    let bad = JobSpec {
        partition: Some("nope".to_string()),
        ..one_cpu()
    };
    assert!(s.submit_het(vec![one_cpu(), bad]).is_err());
    assert!(s.state.jobs.is_empty());
    let array = JobSpec {
        array: Some("1-2".to_string()),
        ..one_cpu()
    };
    assert!(s.submit_het(vec![one_cpu(), array]).is_err());
    assert!(s.state.jobs.is_empty());
    assert_eq!(s.submit(one_cpu()).unwrap(), 1);
}

#[test]
fn components_start_together_on_distinct_nodes() {
    for backfill in [true, false] {
        let mut s = cluster(&["n1", "n2", "n3"], backfill);
        let leader = s.submit_het(vec![one_cpu(), one_cpu()]).unwrap();
        let plan = s.pass().unwrap();
        assert_eq!(plan.starts.len(), 2, "backfill={backfill}");
        assert_eq!(nodes_of(&s, leader), ["n1"]);
        assert_eq!(nodes_of(&s, leader + 1), ["n2"]);
        s.state.check_invariants().unwrap();
    }
}

#[test]
fn components_never_share_a_node_so_one_node_keeps_the_job_pending() {
    let mut s = cluster(&["n1"], true);
    let leader = s.submit_het(vec![one_cpu(), one_cpu()]).unwrap();
    let plan = s.pass().unwrap();
    assert!(plan.starts.is_empty());
    for id in [leader, leader + 1] {
        assert_eq!(s.state.jobs[&id].state, JobBaseState::Pending);
        assert_eq!(s.state.jobs[&id].reason, JobReason::Resources);
    }
    // A plain job behind it still runs there.
    let plain = s.submit(one_cpu()).unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&plain].state, JobBaseState::Running);
}

#[test]
fn none_starts_while_one_component_cannot() {
    let mut s = cluster(&["n1", "n2"], true);
    let busy = s.submit(job(2, 100, 0, Some(10))).unwrap();
    s.pass().unwrap();
    assert_eq!(nodes_of(&s, busy), ["n1"]);
    let leader = s.submit_het(vec![one_cpu(), one_cpu()]).unwrap();
    let plan = s.pass().unwrap();
    assert!(plan.starts.is_empty(), "{plan:?}");
    s.finish(busy).unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&leader].state, JobBaseState::Running);
    assert_eq!(s.state.jobs[&(leader + 1)].state, JobBaseState::Running);
}

#[test]
fn a_held_component_holds_the_whole_job() {
    let mut s = cluster(&["n1", "n2"], true);
    let held = JobSpec {
        hold: true,
        ..one_cpu()
    };
    let leader = s.submit_het(vec![one_cpu(), held]).unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&leader].state, JobBaseState::Pending);
    assert_eq!(s.state.jobs[&leader].reason, JobReason::HeldUser);
}

#[test]
fn a_plan_starting_part_of_a_job_starts_none_of_it() {
    let mut s = cluster(&["n1", "n2"], true);
    let leader = s.submit_het(vec![one_cpu(), one_cpu()]).unwrap();
    let plan = super::schedule(&s.state, s.now);
    let partial: Vec<_> = plan.starts.into_iter().take(1).collect();
    s.commit_starts(partial).unwrap();
    assert_eq!(s.state.jobs[&leader].state, JobBaseState::Pending);
    s.state.check_invariants().unwrap();
}

#[test]
fn the_leaders_end_ends_every_component() {
    let mut s = cluster(&["n1", "n2"], true);
    let leader = s.submit_het(vec![one_cpu(), one_cpu()]).unwrap();
    s.pass().unwrap();
    s.now += 5;
    let now = s.now;
    s.apply(Command::Finished {
        job_id: leader,
        outcome: Outcome::Exited { code: 3, signal: 0 },
        now,
        run: None,
    })
    .unwrap();
    for id in [leader, leader + 1] {
        let j = &s.state.jobs[&id];
        assert_eq!(
            (j.state, j.reason, j.exit_code, j.end_time),
            (JobBaseState::Failed, JobReason::FailExitCode, 3, Some(now))
        );
    }
    assert_eq!(s.state.nodes["n2"].alloc_cpus, 0);
    s.state.check_invariants().unwrap();
}

fn cancel(s: &mut Scenario, job_id: u32) {
    let now = s.now;
    s.apply(Command::Control {
        caller_uid: 1000,
        request: ControlRequest::Cancel {
            job: JobSelector {
                job_id,
                array_task: None,
            },
        },
        now,
    })
    .unwrap();
}

#[test]
fn cancelling_a_component_leaves_the_others_and_the_leader_takes_all() {
    let mut s = cluster(&["n1", "n2", "n3"], true);
    let leader = s.submit_het(vec![one_cpu(), one_cpu(), one_cpu()]).unwrap();
    s.pass().unwrap();
    cancel(&mut s, leader + 1);
    let states: Vec<_> = (leader..leader + 3)
        .map(|id| s.state.jobs[&id].state)
        .collect();
    assert_eq!(
        states,
        [
            JobBaseState::Running,
            JobBaseState::Cancelled,
            JobBaseState::Running
        ]
    );
    assert_eq!(s.state.jobs[&(leader + 1)].exit_signal, 0);
    assert_eq!(s.state.nodes["n2"].alloc_cpus, 0);
    cancel(&mut s, leader);
    // The leader's end (its script killed by SIGTERM) gives every component its exit code.
    let now = s.now;
    s.apply(Command::Finished {
        job_id: leader,
        outcome: Outcome::Exited {
            code: 0,
            signal: 15,
        },
        now,
        run: None,
    })
    .unwrap();
    assert_eq!(s.state.jobs[&(leader + 1)].exit_signal, 15);
    let states: Vec<_> = (leader..leader + 3)
        .map(|id| s.state.jobs[&id].state)
        .collect();
    assert_eq!(states, [JobBaseState::Cancelled; 3]);
    s.state.check_invariants().unwrap();
}

#[test]
fn a_pending_job_cancelled_through_its_leader_goes_as_a_whole() {
    let mut s = cluster(&["n1"], true);
    let leader = s.submit_het(vec![one_cpu(), one_cpu()]).unwrap();
    s.pass().unwrap();
    cancel(&mut s, leader);
    for id in [leader, leader + 1] {
        assert_eq!(s.state.jobs[&id].state, JobBaseState::Cancelled);
    }
}

#[test]
fn completing_an_allocation_through_its_leader_ends_every_component() {
    let mut s = cluster(&["n1", "n2"], true);
    let alloc = JobSpec {
        script: None,
        ..one_cpu()
    };
    let leader = s.submit_het(vec![alloc.clone(), alloc]).unwrap();
    s.pass().unwrap();
    let now = s.now;
    let applied = s
        .apply(Command::Control {
            caller_uid: 1000,
            request: ControlRequest::Complete {
                job: JobSelector {
                    job_id: leader,
                    array_task: None,
                },
                exit_code: 0,
                signal: 0,
            },
            now,
        })
        .unwrap();
    assert!(applied.failures.is_empty(), "{:?}", applied.failures);
    for id in [leader, leader + 1] {
        assert_eq!(s.state.jobs[&id].state, JobBaseState::Completed);
    }
    s.state.check_invariants().unwrap();
}
