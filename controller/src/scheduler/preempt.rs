//! `PreemptType=preempt/partition_prio` and `preempt/qos`: a job that cannot start for lack of resources takes
//! them from running jobs of partitions with a lower `PriorityTier` (or, with `preempt/qos`, of the QOS its own
//! QOS lists in `Preempt=`), when those partitions' (QOS') `PreemptMode` (their own, else the cluster's) is `CANCEL`, `REQUEUE`, or `SUSPEND` with `GANG` in the cluster's mode. Pure: the pass names the
//! victims, the state machine ends, requeues or suspends them when it applies the plan (or starts their
//! `GraceTime`, after which [`ends_after_grace`] names them again), and the waiting job starts in a later pass, once
//! their resources are back. [`resumable`] names the suspended victims whose CPUs are free again.

use spur_core::model::job::{Allocation, EpochSecs, JobRecord};
use spur_core::model::records::PreemptMode;

use crate::rules::placement::{place, Ledger};
use crate::state::{in_grace, started_and_live, ClusterState};

/// What preemption does for one waiting job.
#[derive(Debug, Default, PartialEq)]
pub struct Preemption {
    /// Running jobs to preempt so that the job fits, with what happens to each; empty when it fits once the jobs
    /// already leaving are gone (nothing more to take).
    pub victims: Vec<(u32, PreemptMode)>,
    /// Where the job starts in this very pass: when its victims are only suspended, their CPUs are free as soon
    /// as the plan applies (as in Slurm, where the preemptor starts together with the suspension).
    pub start: Option<Allocation>,
}

/// `None` when preemption cannot make `job` fit (or is off). `planned` are the starts and `chosen` the victims
/// this pass already decided on.
pub fn victims(
    state: &ClusterState,
    job: &JobRecord,
    planned: &[(u32, Allocation)],
    chosen: &[(u32, PreemptMode)],
    now: EpochSecs,
) -> Option<Preemption> {
    let default_mode = state.settings.preempt?;
    let mode_of = |j: &JobRecord| state.own_preempt_mode(j).unwrap_or(default_mode);
    // Slurm suspends only with its gang scheduler running (`GANG` in the cluster's mode).
    let takes = |mode: PreemptMode| {
        mode.preempts() || (mode == PreemptMode::Suspend && state.settings.preempt_gang)
    };
    let lower: Vec<&JobRecord> = state
        .jobs
        .values()
        .filter(|j| {
            j.alloc.is_some()
                && !j.preempt_suspended
                && (started_and_live(j) || j.completing)
                && state.outranks(job, j)
                && takes(mode_of(j))
        })
        .collect();
    if lower.is_empty() {
        return None;
    }
    let mut ledger = Ledger::from_state(state);
    for (_, alloc) in planned {
        ledger.book(alloc);
    }
    // What is free once this pass's suspensions apply, with nobody else gone yet.
    let mut at_once = ledger.clone();
    // Jobs already on their way out (preempted earlier, running out their grace time, or chosen for another job
    // in this pass) count as gone, so a waiting job never claims more victims than it needs while they finish.
    let (leaving, candidates): (Vec<&JobRecord>, Vec<&JobRecord>) = lower
        .into_iter()
        .partition(|j| j.completing || in_grace(j) || chosen.iter().any(|(id, _)| *id == j.job_id));
    for gone in &leaving {
        let suspends = chosen
            .iter()
            .any(|&(id, mode)| id == gone.job_id && mode == PreemptMode::Suspend);
        if let Some(alloc) = &gone.alloc {
            give_back(&mut ledger, alloc, suspends);
        }
    }
    if place(state, &ledger, job).is_some() {
        return Some(Preemption::default());
    }
    // PreemptExemptTime: a job becomes a candidate at its PreemptEligibleTime.
    let mut candidates: Vec<&JobRecord> = candidates
        .into_iter()
        .filter(|j| j.preemptable_time.is_some_and(|t| t <= now))
        .collect();
    // Cheapest first: the lowest tier (or QOS priority), then the lowest priority, then the most recently started.
    candidates.sort_by(|a, b| {
        state
            .preempt_rank(a)
            .cmp(&state.preempt_rank(b))
            .then(a.priority.cmp(&b.priority))
            .then(b.start_time.cmp(&a.start_time))
            .then(b.job_id.cmp(&a.job_id))
    });
    let mut taken = Vec::new();
    for victim in candidates {
        let Some(alloc) = &victim.alloc else {
            continue;
        };
        let mode = mode_of(victim);
        give_back(&mut ledger, alloc, mode == PreemptMode::Suspend);
        if mode == PreemptMode::Suspend {
            at_once.release_cpus(alloc);
        }
        taken.push((victim.job_id, mode));
        if place(state, &ledger, job).is_some() {
            let start = place(state, &at_once, job);
            return Some(Preemption {
                victims: taken,
                start,
            });
        }
    }
    None
}

/// A suspended victim lends only its CPUs; one that ends or is requeued gives everything back.
fn give_back(ledger: &mut Ledger, alloc: &Allocation, suspends: bool) {
    if suspends {
        ledger.release_cpus(alloc);
    } else {
        ledger.release(alloc);
    }
}

/// A victim whose grace time is over: to end or requeue now.
pub fn grace_is_over(job: &JobRecord, now: EpochSecs) -> bool {
    in_grace(job) && job.end_time.is_some_and(|end| end <= now)
}

/// What happens to victims whose grace time is over, by their partition's mode (`CANCEL` if preemption was
/// configured away since: the victim was told to go).
pub fn ends_after_grace(state: &ClusterState, over: &[&JobRecord]) -> Vec<(u32, PreemptMode)> {
    over.iter()
        .map(|j| {
            let mode = state
                .own_preempt_mode(j)
                .or(state.settings.preempt)
                .filter(|m| m.preempts())
                .unwrap_or(PreemptMode::Cancel);
            (j.job_id, mode)
        })
        .collect()
}

/// Of the jobs suspended by preemption, those whose CPUs are free again, in the order they take them back (higher
/// tier, then higher priority, then the older job first). They resume even if preemption was configured away
/// since.
pub fn resumable(state: &ClusterState, mut suspended: Vec<&JobRecord>) -> Vec<u32> {
    if suspended.is_empty() {
        return Vec::new();
    }
    suspended.sort_by(|a, b| {
        state
            .preempt_rank(b)
            .cmp(&state.preempt_rank(a))
            .then(b.priority.cmp(&a.priority))
            .then(a.job_id.cmp(&b.job_id))
    });
    let mut ledger = Ledger::from_state(state);
    suspended
        .into_iter()
        .filter(|j| {
            j.alloc
                .as_ref()
                .is_some_and(|alloc| ledger.take_cpus(state, alloc))
        })
        .map(|j| j.job_id)
        .collect()
}

#[cfg(test)]
mod tests {
    use spur_core::model::records::PreemptMode;
    use spur_core::model::states::{JobBaseState, JobReason};

    use crate::scheduler::scenario::{job, node, partition, Scenario};
    use crate::state::{Command, Outcome, Settings};

    /// One 2-CPU node shared by `low` (tier 1, `low_mode`), `debug` (tier 1, the cluster's mode) and `high`
    /// (tier 2), with `PreemptMode=REQUEUE` for the cluster.
    fn cluster(low_mode: Option<PreemptMode>) -> Scenario {
        cluster_with(
            low_mode,
            0,
            Settings {
                preempt: Some(PreemptMode::Requeue),
                ..Settings::default()
            },
        )
    }

    /// The same, with `GraceTime=low_grace` on `low` and the given cluster settings.
    fn cluster_with(low_mode: Option<PreemptMode>, low_grace: u32, settings: Settings) -> Scenario {
        let nodes = vec!["n1".to_string()];
        let mut low = partition("low", &nodes, false);
        low.preempt_mode = low_mode;
        low.grace_time_secs = low_grace;
        let mut high = partition("high", &nodes, false);
        high.priority_tier = 2;
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
            run: None,
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
        assert!(
            plan.starts.is_empty(),
            "the node is free only once the victim is gone"
        );
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

    fn requeue_cluster(settings: Settings) -> Settings {
        Settings {
            preempt: Some(PreemptMode::Requeue),
            ..settings
        }
    }

    #[test]
    fn jobs_younger_than_the_exempt_time_are_not_victims() {
        let settings = requeue_cluster(Settings {
            preempt_exempt_secs: 60,
            ..Settings::default()
        });
        let mut s = cluster_with(Some(PreemptMode::Cancel), 0, settings);
        let victim = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        let started = s.now;
        assert_eq!(
            s.state.jobs[&victim].preemptable_time,
            Some(started + 60),
            "PreemptEligibleTime is the start plus PreemptExemptTime"
        );
        s.now += 59;
        let urgent = submit_to(&mut s, "high", true);
        let plan = s.pass().unwrap();
        assert!(plan.preemptions.is_empty(), "{plan:?}");
        assert_eq!(state_of(&s, victim), JobBaseState::Running);
        s.now += 1;
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(victim, PreemptMode::Cancel)]);
        terminated(&mut s, victim);
        s.pass().unwrap();
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn grace_time_keeps_the_victim_running_then_ends_it() {
        let mut s = cluster_with(
            Some(PreemptMode::Cancel),
            30,
            requeue_cluster(Settings::default()),
        );
        let victim = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        s.now += 5;
        let chosen_at = s.now;
        let urgent = submit_to(&mut s, "high", true);
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(victim, PreemptMode::Cancel)]);
        let v = &s.state.jobs[&victim];
        assert_eq!(
            (v.state, v.completing, v.preempt_time, v.end_time),
            (
                JobBaseState::Running,
                false,
                Some(chosen_at),
                Some(chosen_at + 30)
            ),
            "still running, its end moved to the end of the grace period"
        );
        assert_eq!(s.state.jobs[&urgent].reason, JobReason::Resources);
        // During the grace period nobody else is taken and nothing starts; the preemptor is expected to start
        // when it ends (in the backfill profile's steps), not at the victim's time limit.
        s.now += 29;
        let plan = s.pass().unwrap();
        assert!(
            plan.preemptions.is_empty() && plan.starts.is_empty(),
            "{plan:?}"
        );
        let expected = s.state.jobs[&urgent].expected_start.unwrap_or(0);
        assert!(
            (chosen_at + 30..chosen_at + 90).contains(&expected),
            "{expected} {chosen_at}"
        );
        s.now += 1;
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(victim, PreemptMode::Cancel)]);
        let v = &s.state.jobs[&victim];
        assert_eq!(
            (v.state, v.completing, v.preempt_time, v.end_time),
            (JobBaseState::Preempted, true, Some(s.now), Some(s.now)),
            "PreemptTime and EndTime become the time it was killed"
        );
        terminated(&mut s, victim);
        s.pass().unwrap();
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn a_requeue_victim_goes_back_to_the_queue_after_its_grace_time() {
        let mut s = cluster_with(
            Some(PreemptMode::Requeue),
            10,
            requeue_cluster(Settings::default()),
        );
        let victim = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        submit_to(&mut s, "high", true);
        s.pass().unwrap();
        assert_eq!(state_of(&s, victim), JobBaseState::Running);
        s.now += 10;
        s.pass().unwrap();
        assert!(s.state.jobs[&victim].requeue_pending);
        terminated(&mut s, victim);
        let v = &s.state.jobs[&victim];
        assert_eq!((v.state, v.restarts), (JobBaseState::Pending, 1));
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn a_victim_that_ends_during_its_grace_time_frees_the_node_early() {
        let mut s = cluster_with(
            Some(PreemptMode::Cancel),
            60,
            requeue_cluster(Settings::default()),
        );
        let victim = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        let urgent = submit_to(&mut s, "high", true);
        s.pass().unwrap();
        s.now += 3;
        terminated(&mut s, victim);
        s.pass().unwrap();
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn with_gang_the_grace_time_is_not_applied() {
        let settings = requeue_cluster(Settings {
            preempt_gang: true,
            ..Settings::default()
        });
        let mut s = cluster_with(Some(PreemptMode::Cancel), 30, settings);
        let victim = submit_to(&mut s, "low", true);
        s.pass().unwrap();
        submit_to(&mut s, "high", true);
        s.pass().unwrap();
        assert_eq!(state_of(&s, victim), JobBaseState::Preempted);
    }

    fn suspend_cluster(gang: bool) -> Scenario {
        let settings = Settings {
            preempt: Some(PreemptMode::Suspend),
            preempt_gang: gang,
            ..Settings::default()
        };
        cluster_with(None, 0, settings)
    }

    #[test]
    fn suspend_gang_suspends_the_lower_tier_and_resumes_it_when_the_preemptor_ends() {
        let mut s = suspend_cluster(true);
        let victim = submit_to(&mut s, "debug", true);
        s.pass().unwrap();
        let started = s.now;
        s.now += 20;
        let urgent = submit_to(&mut s, "high", true);
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(victim, PreemptMode::Suspend)]);
        let v = &s.state.jobs[&victim];
        assert_eq!(
            (
                v.state,
                v.preempt_suspended,
                v.pre_suspend_secs,
                v.preempt_time
            ),
            (JobBaseState::Suspended, true, 20, None)
        );
        // The preemptor starts in the same pass, on the CPUs the suspended job lends it.
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        assert_eq!(s.state.nodes["n1"].alloc_cpus, 2);
        s.state.check_invariants().unwrap();
        // Nothing more to take while the preemptor runs; the suspended job stays so.
        s.now += 100;
        let plan = s.pass().unwrap();
        assert!(plan.is_empty(), "{plan:?}");
        assert_eq!(state_of(&s, victim), JobBaseState::Suspended);
        s.finish(urgent).unwrap();
        let plan = s.pass().unwrap();
        assert_eq!(plan.resumes, vec![victim]);
        let v = &s.state.jobs[&victim];
        assert_eq!(
            (v.state, v.preempt_suspended),
            (JobBaseState::Running, false)
        );
        // Its 10-minute limit ends 100 s later than it would have: the time it spent suspended.
        assert_eq!(v.end_time, Some(started + 600 + 100));
        assert_eq!(v.run_secs(s.now), 20);
        assert_eq!(s.state.nodes["n1"].alloc_cpus, 2);
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn a_suspended_victim_cancelled_gives_back_only_what_it_held() {
        let mut s = suspend_cluster(true);
        let victim = submit_to(&mut s, "debug", true);
        s.pass().unwrap();
        let urgent = submit_to(&mut s, "high", true);
        s.pass().unwrap();
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        let now = s.now;
        s.apply(Command::Control {
            caller_uid: 0,
            request: spur_core::wire::api::ControlRequest::Cancel {
                job: spur_core::wire::api::JobSelector {
                    job_id: victim,
                    array_task: None,
                },
            },
            now,
        })
        .unwrap();
        terminated(&mut s, victim);
        assert_eq!(
            s.state.nodes["n1"].alloc_cpus, 2,
            "the preemptor's CPUs stay booked"
        );
        s.state.check_invariants().unwrap();
    }

    #[test]
    fn suspend_without_gang_preempts_nothing() {
        let mut s = suspend_cluster(false);
        let running = submit_to(&mut s, "debug", true);
        s.pass().unwrap();
        submit_to(&mut s, "high", true);
        assert!(s.pass().unwrap().preemptions.is_empty());
        assert_eq!(state_of(&s, running), JobBaseState::Running);
    }

    #[test]
    fn suspended_victims_resume_even_once_preemption_is_configured_away() {
        let mut s = suspend_cluster(true);
        let victim = submit_to(&mut s, "debug", true);
        s.pass().unwrap();
        let urgent = submit_to(&mut s, "high", true);
        s.pass().unwrap();
        assert_eq!(state_of(&s, victim), JobBaseState::Suspended);
        s.finish(urgent).unwrap();
        s.state.settings.preempt = None;
        assert_eq!(s.pass().unwrap().resumes, vec![victim]);
        assert_eq!(state_of(&s, victim), JobBaseState::Running);
        s.state.check_invariants().unwrap();
    }

    /// Sends an accounting change through the log as root would (`sacctmgr -i`).
    fn acct(s: &mut Scenario, request: spur_core::model::assoc::AcctRequest) {
        let now = s.now;
        let applied = s
            .apply(Command::Control {
                caller_uid: 0,
                request: spur_core::wire::api::ControlRequest::Accounting { request },
                now,
            })
            .unwrap();
        assert!(matches!(applied.acct, Some(Ok(_))), "{applied:?}");
    }

    /// `preempt/qos` on one 2-CPU node: QOS `high` may preempt `normal` (the cluster's `REQUEUE`), `scav` (its
    /// own `CANCEL`); `peer` preempts nobody.
    fn qos_cluster() -> Scenario {
        use spur_core::model::assoc::{AcctRequest, ListEdit, QosSet};
        let mut s = cluster_with(
            None,
            0,
            Settings {
                preempt: Some(PreemptMode::Requeue),
                preempt_by_qos: true,
                ..Settings::default()
            },
        );
        let add = |names: &[&str], set: QosSet| AcctRequest::AddQos {
            names: names.iter().map(|n| n.to_string()).collect(),
            set,
        };
        let scav = QosSet {
            preempt_mode: Some(Some(PreemptMode::Cancel)),
            ..Default::default()
        };
        acct(&mut s, add(&["scav"], scav));
        acct(&mut s, add(&["peer"], QosSet::default()));
        let high = QosSet {
            priority: Some(100),
            preempt: Some(ListEdit::Set(vec!["normal".into(), "scav".into()])),
            ..Default::default()
        };
        acct(&mut s, add(&["high"], high));
        s
    }

    fn submit_qos(s: &mut Scenario, qos: Option<&str>) -> u32 {
        let mut spec = job(2, 1000, 0, Some(10));
        spec.partition = Some("debug".into());
        spec.qos = qos.map(str::to_string);
        spec.requeue = true;
        s.submit(spec).unwrap()
    }

    #[test]
    fn qos_preemption_follows_the_preempt_list_and_the_victims_mode() {
        let mut s = qos_cluster();
        let plain = submit_qos(&mut s, None);
        s.pass().unwrap();
        assert_eq!(state_of(&s, plain), JobBaseState::Running);
        let urgent = submit_qos(&mut s, Some("high"));
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(plain, PreemptMode::Requeue)]);
        terminated(&mut s, plain);
        s.pass().unwrap();
        assert_eq!(state_of(&s, urgent), JobBaseState::Running);
        s.state.check_invariants().unwrap();
        // Same partition, no tiers: a QOS that lists nobody waits.
        let mut t = qos_cluster();
        let plain = submit_qos(&mut t, None);
        t.pass().unwrap();
        let peer = submit_qos(&mut t, Some("peer"));
        assert!(t.pass().unwrap().preemptions.is_empty());
        assert_eq!(state_of(&t, peer), JobBaseState::Pending);
        assert_eq!(state_of(&t, plain), JobBaseState::Running);
    }

    #[test]
    fn a_qos_of_its_own_mode_is_cancelled() {
        let mut s = qos_cluster();
        let scav = submit_qos(&mut s, Some("scav"));
        s.pass().unwrap();
        submit_qos(&mut s, Some("high"));
        let plan = s.pass().unwrap();
        assert_eq!(plan.preemptions, vec![(scav, PreemptMode::Cancel)]);
        assert_eq!(state_of(&s, scav), JobBaseState::Preempted);
        // A high job never preempts another high job.
        let mut t = qos_cluster();
        let first = submit_qos(&mut t, Some("high"));
        t.pass().unwrap();
        submit_qos(&mut t, Some("high"));
        assert!(t.pass().unwrap().preemptions.is_empty());
        assert_eq!(state_of(&t, first), JobBaseState::Running);
    }
}
