//! `PreemptType=preempt/partition_prio`: a job that cannot start for lack of resources takes them from running
//! jobs of partitions with a lower `PriorityTier`, when those partitions' `PreemptMode` (their own, else the
//! cluster's) is `CANCEL` or `REQUEUE`. Pure: the pass names the victims, the state machine ends or requeues them
//! when it applies the plan, and the waiting job starts in a later pass, once their resources are back.

use spur_core::job::{Allocation, JobRecord};
use spur_core::records::PreemptMode;

use super::placement::{place, Ledger};
use crate::state::{started_and_live, ClusterState};

/// Running jobs to preempt so that `job` fits, with what happens to each; empty when it fits once the jobs already
/// leaving are gone (nothing more to take); `None` when preemption cannot make it fit (or is off).
/// `planned` are the starts and `chosen` the victims this pass already decided on.
pub fn victims(
    state: &ClusterState,
    job: &JobRecord,
    planned: &[(u32, Allocation)],
    chosen: &[(u32, PreemptMode)],
) -> Option<Vec<(u32, PreemptMode)>> {
    let default_mode = state.settings.preempt?;
    let tier_of = |partition: &str| state.partition(partition).map_or(1, |p| p.priority_tier);
    let mode_of = |partition: &str| {
        state
            .partition(partition)
            .and_then(|p| p.preempt_mode)
            .unwrap_or(default_mode)
    };
    let tier = tier_of(&job.partition);
    let lower: Vec<&JobRecord> = state
        .jobs
        .values()
        .filter(|j| {
            j.alloc.is_some()
                && (started_and_live(j) || j.completing)
                && tier_of(&j.partition) < tier
                && mode_of(&j.partition).preempts()
        })
        .collect();
    if lower.is_empty() {
        return None;
    }
    let mut ledger = Ledger::from_state(state);
    for (_, alloc) in planned {
        ledger.book(alloc);
    }
    // Jobs already on their way out (preempted earlier, or chosen for another job in this pass) count as gone, so
    // a waiting job never claims more victims than it needs while they finish.
    let (leaving, mut candidates): (Vec<&JobRecord>, Vec<&JobRecord>) = lower
        .into_iter()
        .partition(|j| j.completing || chosen.iter().any(|(id, _)| *id == j.job_id));
    for gone in &leaving {
        if let Some(alloc) = &gone.alloc {
            ledger.release(alloc);
        }
    }
    if place(state, &ledger, job).is_some() {
        return Some(Vec::new());
    }
    // Cheapest first: the lowest tier, then the lowest priority, then the most recently started.
    candidates.sort_by(|a, b| {
        tier_of(&a.partition)
            .cmp(&tier_of(&b.partition))
            .then(a.priority.cmp(&b.priority))
            .then(b.start_time.cmp(&a.start_time))
            .then(b.job_id.cmp(&a.job_id))
    });
    let mut taken = Vec::new();
    for victim in candidates {
        let Some(alloc) = &victim.alloc else {
            continue;
        };
        ledger.release(alloc);
        taken.push((victim.job_id, mode_of(&victim.partition)));
        if place(state, &ledger, job).is_some() {
            return Some(taken);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use spur_core::records::PreemptMode;
    use spur_core::states::JobBaseState;

    use crate::scheduler::scenario::{job, node, partition, Scenario};
    use crate::state::{Command, Outcome, Settings};

    /// One 2-CPU node shared by `low` (tier 1, `low_mode`), `debug` (tier 1, the cluster's mode) and `high`
    /// (tier 2), with `PreemptMode=REQUEUE` for the cluster.
    fn cluster(low_mode: Option<PreemptMode>) -> Scenario {
        let nodes = vec!["n1".to_string()];
        let mut low = partition("low", &nodes, false);
        low.preempt_mode = low_mode;
        let mut high = partition("high", &nodes, false);
        high.priority_tier = 2;
        let settings = Settings {
            preempt: Some(PreemptMode::Requeue),
            ..Settings::default()
        };
        Scenario::new(
            vec![node("n1", 2, 8000, 0)],
            vec![partition("debug", &nodes, true), low, high],
            settings,
            1_000,
        )
        .unwrap()
    }

    fn submit_to(s: &mut Scenario, partition: &str, requeue: bool) -> u32 {
        let mut spec = job(2, 1000, 0, Some(10));
        spec.partition = Some(partition.to_string());
        spec.requeue = requeue;
        s.submit(spec).unwrap()
    }

    /// The agent reports the preempted job's script killed by SIGTERM.
    fn terminated(s: &mut Scenario, job_id: u32) {
        let now = s.now;
        s.apply(Command::Finished {
            job_id,
            outcome: Outcome::Exited {
                code: 0,
                signal: 15,
            },
            now,
        })
        .unwrap();
    }

    fn state_of(s: &Scenario, id: u32) -> JobBaseState {
        s.state.jobs[&id].state
    }

    #[test]
    fn cancel_mode_ends_the_lower_tier_job_preempted() {
        let mut s = cluster(Some(PreemptMode::Cancel));
        let victim = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        assert_eq!(state_of(&s, victim), JobBaseState::Running);
        let started = s.now;
        assert_eq!(s.state.jobs[&victim].preemptable_time, Some(started));
        s.now += 5;
        let urgent = submit_to(&mut s, "high", true);
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(victim, PreemptMode::Cancel)]);
        assert_eq!(state_of(&s, victim), JobBaseState::Preempted);
        assert_eq!(s.state.jobs[&victim].preempt_time, Some(started + 5));
        assert!(s.state.jobs[&victim].completing);
        // While the victim's processes are going, nobody else is preempted for the same job.
        let plan = s.pass().unwrap();
        assert!(plan.preemptions.is_empty() && plan.starts.is_empty());
        terminated(&mut s, victim);
        let v = &s.state.jobs[&victim];
        assert_eq!(
            (v.state, v.exit_code, v.exit_signal),
            (JobBaseState::Preempted, 0, 15)
        );
        s.pass().unwrap();
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn requeue_mode_sends_the_job_back_and_the_higher_tier_starts_first() {
        let mut s = cluster(None);
        let victim = submit_to(&mut s, "debug", true);
        s.pass().unwrap();
        s.now += 5;
        let urgent = submit_to(&mut s, "high", true);
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(victim, PreemptMode::Requeue)]);
        assert!(s.state.jobs[&victim].requeue_pending);
        terminated(&mut s, victim);
        let v = &s.state.jobs[&victim];
        assert_eq!((v.state, v.restarts), (JobBaseState::Pending, 1));
        // The requeued job has the higher (older) priority, but the higher tier is scheduled first.
        assert!(s.state.jobs[&victim].priority > s.state.jobs[&urgent].priority);
        let plan = s.pass().unwrap();
        assert_eq!(
            plan.starts.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
            vec![urgent]
        );
        assert_eq!(state_of(&s, victim), JobBaseState::Pending);
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn a_job_that_may_not_be_requeued_ends_preempted() {
        let mut s = cluster(None);
        let victim = submit_to(&mut s, "debug", false);
        s.pass().unwrap();
        submit_to(&mut s, "high", true);
        s.pass().unwrap();
        assert_eq!(state_of(&s, victim), JobBaseState::Preempted);
    }

    #[test]
    fn same_tier_or_mode_off_preempts_nothing() {
        let mut s = cluster(Some(PreemptMode::Off));
        let safe = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        assert_eq!(
            s.state.jobs[&safe].preemptable_time, None,
            "PreemptEligibleTime not shown"
        );
        submit_to(&mut s, "high", true);
        assert!(s.pass().unwrap().preemptions.is_empty(), "PreemptMode=OFF");
        let mut s = cluster(None);
        let running = submit_to(&mut s, "debug", true);
        s.pass().unwrap();
        submit_to(&mut s, "low", true);
        assert!(s.pass().unwrap().preemptions.is_empty(), "same tier");
        assert_eq!(state_of(&s, running), JobBaseState::Running);
    }
}
