//! `PrologFlags=Alloc` and `Contain` in the state machine: what a job does between its allocation and the end of
//! every node's prolog, and what a failing prolog leaves behind.

use pretty_assertions::assert_eq;

use spur_core::model::job::HoldKind;
use spur_core::model::records::NodeBaseState;
use spur_core::model::states::{JobBaseState, JobReason};

use super::*;
use crate::scheduler::scenario::{job, node, partition, registration, Scenario};

/// Two nodes, the given prolog flags, and a job for both submitted and allocated; returns the effects of the
/// pass that started it.
fn allocated_on_two_nodes(alloc: bool, contain: bool, batch: bool) -> (Scenario, u32, Vec<Effect>) {
    let names = ["a1".to_string(), "a2".to_string()];
    let defs = vec![node("a1", 4, 4_000, 0), node("a2", 4, 4_000, 0)];
    let settings = Settings {
        prolog_alloc: alloc,
        prolog_contain: contain,
        ..Settings::default()
    };
    let parts = vec![partition("batch", &names, true)];
    let mut s = Scenario::new(defs, parts, settings, 1_000_000).expect("cluster");
    let mut spec = job(1, 100, 0, None);
    spec.nodes_min = 2;
    spec.ntasks = Some(2);
    if !batch {
        spec.script = None;
    }
    let id = s.submit(spec).expect("submit");
    let plan = crate::scheduler::schedule(&s.state, s.now);
    let now = s.now;
    let applied = s
        .apply(Command::Schedule {
            starts: plan.starts,
            reasons: plan.reasons,
            now,
            forecasts: plan.forecasts,
            priorities: plan.priorities,
            preemptions: plan.preemptions,
            reason_descs: plan.reason_descs,
            resumes: plan.resumes,
        })
        .expect("schedule");
    s.state.check_invariants().expect("invariants");
    (s, id, applied.effects)
}

fn prolog_done(s: &mut Scenario, job_id: u32, node: &str, failed: bool) -> Vec<Effect> {
    let now = s.now;
    let run = s.state.jobs[&job_id].restarts;
    let applied = s
        .apply(Command::PrologFinished {
            job_id,
            run,
            node: node.to_string(),
            failed,
            now,
        })
        .expect("prolog report");
    s.state.check_invariants().expect("invariants");
    applied.effects
}

fn alloc_prolog(node: &str, job_id: u32) -> Effect {
    Effect::AllocProlog {
        node: node.to_string(),
        job_id,
    }
}

#[test]
fn without_alloc_the_batch_script_starts_at_once() {
    let (s, id, effects) = allocated_on_two_nodes(false, false, true);
    assert_eq!(
        effects,
        vec![Effect::Launch {
            node: "a1".to_string(),
            job_id: id
        }]
    );
    let job = &s.state.jobs[&id];
    assert!(job.prolog_pending.is_empty() && !job.extern_step);
    assert_eq!(job.reason, JobReason::NoReason);
}

#[test]
fn with_alloc_every_node_runs_its_prolog_before_the_batch_script() {
    let (mut s, id, effects) = allocated_on_two_nodes(true, false, true);
    assert_eq!(
        effects,
        vec![alloc_prolog("a1", id), alloc_prolog("a2", id)]
    );
    let job = &s.state.jobs[&id];
    assert_eq!(job.state, JobBaseState::Running);
    assert_eq!(job.reason, JobReason::Prolog);
    assert!(!job.extern_step);

    assert_eq!(prolog_done(&mut s, id, "a2", false), Vec::new());
    assert_eq!(s.state.jobs[&id].prolog_pending, vec!["a1".to_string()]);
    // A repeated report (an agent resending after a reconnect) changes nothing.
    assert_eq!(prolog_done(&mut s, id, "a2", false), Vec::new());
    assert_eq!(
        prolog_done(&mut s, id, "a1", false),
        vec![Effect::Launch {
            node: "a1".to_string(),
            job_id: id
        }]
    );
    assert_eq!(s.state.jobs[&id].reason, JobReason::NoReason);
}

#[test]
fn an_allocation_is_ready_without_any_launch() {
    let (mut s, id, effects) = allocated_on_two_nodes(true, true, false);
    assert_eq!(
        effects,
        vec![alloc_prolog("a1", id), alloc_prolog("a2", id)]
    );
    assert!(
        s.state.jobs[&id].extern_step,
        "Contain gives the job an extern step"
    );
    prolog_done(&mut s, id, "a1", false);
    assert_eq!(prolog_done(&mut s, id, "a2", false), Vec::new());
    assert!(s.state.jobs[&id].prolog_pending.is_empty());
}

#[test]
fn a_reregistering_node_is_asked_again_for_the_prologs_it_owes() {
    let (mut s, id, _) = allocated_on_two_nodes(true, false, true);
    prolog_done(&mut s, id, "a1", false);
    let now = s.now;
    let reg = |name: &str| registration(&node(name, 4, 4_000, 0), now);
    let again = s
        .apply(Command::RegisterNode {
            registration: Box::new(reg("a2")),
            now,
        })
        .expect("register");
    assert_eq!(again.effects, vec![alloc_prolog("a2", id)]);
    // The first node answered already: neither a prolog nor (before a2 answers) the batch script.
    let first = s
        .apply(Command::RegisterNode {
            registration: Box::new(reg("a1")),
            now,
        })
        .expect("register");
    assert_eq!(first.effects, Vec::new());
}

#[test]
fn a_failed_prolog_drains_the_node_and_requeues_a_batch_job_held() {
    let (mut s, id, _) = allocated_on_two_nodes(true, true, true);
    prolog_done(&mut s, id, "a1", false);
    let effects = prolog_done(&mut s, id, "a2", true);
    assert!(
        !effects.iter().any(|e| matches!(e, Effect::Launch { .. })),
        "the script never starts: {effects:?}"
    );
    // Every node cleans up (extern cgroup, the prolog's record) and runs the epilog: no supervisor ran anywhere.
    let mut epilogs: Vec<&str> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::NodeEpilog { node, .. } => Some(node.as_str()),
            _ => None,
        })
        .collect();
    epilogs.sort_unstable();
    assert_eq!(epilogs, vec!["a1", "a2"]);
    let job = &s.state.jobs[&id];
    assert_eq!(job.state, JobBaseState::Pending);
    assert_eq!(job.hold, Some(HoldKind::Admin));
    assert_eq!(job.restarts, 1);
    assert_eq!(
        job.state_desc.as_deref(),
        Some("launch failed requeued held")
    );
    assert!(job.prolog_pending.is_empty() && !job.extern_step);
    let a2 = &s.state.nodes["a2"];
    assert_eq!(a2.reason.as_deref(), Some("Prolog error"));
    assert!(a2.drain);
    assert_ne!(s.state.nodes["a1"].reason.as_deref(), Some("Prolog error"));
    // A late report of the ended run changes nothing.
    let now = s.now;
    let late = s
        .apply(Command::PrologFinished {
            job_id: id,
            run: 0,
            node: "a1".to_string(),
            failed: false,
            now,
        })
        .expect("late report");
    assert_eq!(late.effects, Vec::new());
    assert_eq!(s.state.jobs[&id].state, JobBaseState::Pending);
}

#[test]
fn a_failed_prolog_cancels_an_allocation_and_names_the_node() {
    let (mut s, id, _) = allocated_on_two_nodes(true, false, false);
    prolog_done(&mut s, id, "a1", true);
    let job = &s.state.jobs[&id];
    assert_eq!(job.state, JobBaseState::Cancelled);
    assert!(!job.completing);
    assert_eq!(job.prolog_failed_node.as_deref(), Some("a1"));
    assert_eq!(s.state.nodes["a1"].base_state, NodeBaseState::Idle);
    assert_eq!(s.state.nodes["a1"].alloc_cpus, 0, "its resources are free");
}

#[test]
fn an_allocation_runs_its_epilog_on_every_node() {
    let (mut s, id, _) = allocated_on_two_nodes(true, false, false);
    prolog_done(&mut s, id, "a1", false);
    prolog_done(&mut s, id, "a2", false);
    let now = s.now;
    let applied = s
        .apply(Command::Control {
            caller_uid: 1000,
            request: ControlRequest::Complete {
                job: spur_core::wire::api::JobSelector {
                    job_id: id,
                    array_task: None,
                },
                exit_code: 0,
                signal: 0,
            },
            now,
        })
        .expect("complete");
    assert_eq!(epilog_nodes(&applied.effects), vec!["a1", "a2"]);
}

/// The nodes `effects` ask to run the epilog, in order.
fn epilog_nodes(effects: &[Effect]) -> Vec<&str> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::NodeEpilog { node, .. } => Some(node.as_str()),
            _ => None,
        })
        .collect()
}

/// Applies `command` as the log would, without the scenario's agents answering the epilogs it asks for.
fn apply_unanswered(s: &mut Scenario, index: u64, command: Command) -> Applied {
    let applied = s.state.apply(index, command).expect("apply");
    s.state.check_invariants().expect("invariants");
    applied
}

/// The job's batch script (or allocation) ended with 0 at `now`.
fn end_unanswered(s: &mut Scenario, job_id: u32, now: EpochSecs) -> Applied {
    apply_unanswered(
        s,
        1_000,
        Command::Finished {
            job_id,
            outcome: Outcome::Exited { code: 0, signal: 0 },
            now,
            run: None,
        },
    )
}

#[test]
fn without_an_epilog_the_nodes_are_free_when_the_job_ends() {
    let (mut s, id, _) = allocated_on_two_nodes(false, false, true);
    let now = s.now + 5;
    end_unanswered(&mut s, id, now);
    assert!(!s.state.jobs[&id].is_completing());
    assert!(s.state.nodes["a2"].accepts_work());
}

#[test]
fn other_nodes_epilogs_keep_the_job_completing_and_the_nodes_closed() {
    for batch in [true, false] {
        let (mut s, id, _) = allocated_on_two_nodes(false, false, batch);
        s.state.settings.node_epilog = true;
        let now = s.now + 5;
        let ended = end_unanswered(&mut s, id, now);
        // The batch node ran its epilog before the job's end was reported; an allocation's nodes all run one.
        let expected: Vec<&str> = if batch { vec!["a2"] } else { vec!["a1", "a2"] };
        assert_eq!(epilog_nodes(&ended.effects), expected);
        let ended_job = &s.state.jobs[&id];
        assert_eq!(ended_job.state, JobBaseState::Completed);
        assert!(
            ended_job.is_completing(),
            "COMPLETING until the epilogs answer"
        );
        for name in &expected {
            let n = &s.state.nodes[*name];
            assert!(!n.accepts_work(), "{name} takes no job during the epilog");
            assert!(n
                .full_state()
                .has(spur_core::model::states::NodeStateFlag::Completing));
        }
        // Nothing starts on a node while its epilog runs.
        let next = {
            let mut spec = job(1, 100, 0, None);
            spec.nodes_min = 2;
            spec.ntasks = Some(2);
            s.submit(spec).expect("submit")
        };
        s.pass().expect("pass");
        assert_eq!(s.state.jobs[&next].state, JobBaseState::Pending);
        // A report for a node not waited for changes nothing; the last one frees the job and its nodes.
        let mut index = 2_000;
        for name in expected.iter().chain(["a2"].iter()) {
            index += 1;
            apply_unanswered(
                &mut s,
                index,
                Command::EpilogFinished {
                    job_id: id,
                    node: name.to_string(),
                    now,
                },
            );
        }
        assert!(!s.state.jobs[&id].is_completing());
        assert!(s.state.nodes["a2"].accepts_work());
        s.pass().expect("pass");
        assert_eq!(s.state.jobs[&next].state, JobBaseState::Running);
    }
}

#[test]
fn a_registering_agent_gives_up_the_epilogs_it_owed() {
    let (mut s, id, _) = allocated_on_two_nodes(false, false, true);
    s.state.settings.node_epilog = true;
    let now = s.now + 5;
    end_unanswered(&mut s, id, now);
    assert_eq!(s.state.nodes["a2"].epilogs_running, 1);
    let def = node("a2", 4, 4_000, 0);
    apply_unanswered(
        &mut s,
        1_001,
        Command::RegisterNode {
            registration: Box::new(registration(&def, now)),
            now,
        },
    );
    assert_eq!(s.state.nodes["a2"].epilogs_running, 0);
    assert!(!s.state.jobs[&id].is_completing());
}
