//! Partition `OverSubscribe=` and the job's `--exclusive`/`--oversubscribe` on the pure scheduler, as
//! select/cons_tres decides them: up to N jobs per core where the partition lets jobs share, never N + 1, whole
//! nodes for `EXCLUSIVE`, memory and GRES never shared, and the books of the state machine in step.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::records::PartitionRecord;
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::policy::oversubscribe::{share_slots, ResolvedSharing};

use super::scenario::{job, node, partition, Scenario};
use crate::state::{BackfillSettings, Settings};

const T0: EpochSecs = 1_000_020;

/// One node `n1` of `cpus` CPUs, 8 GB and `gpus` GPUs in partition `p` with this `OverSubscribe=`.
fn cluster(oversubscribe: &str, cpus: u32, gpus: u64, backfill: bool) -> Scenario {
    let names = vec!["n1".to_string()];
    let parts = vec![PartitionRecord {
        oversubscribe: oversubscribe.to_string(),
        ..partition("p", &names, true)
    }];
    let settings = Settings {
        backfill: BackfillSettings {
            enabled: backfill,
            ..BackfillSettings::default()
        },
        ..Settings::default()
    };
    Scenario::new(vec![node("n1", cpus, 8_000, gpus)], parts, settings, T0).unwrap()
}

fn asking(mut spec: JobSpec) -> JobSpec {
    spec.options
        .insert("oversubscribe".to_string(), String::new());
    spec
}

fn one_cpu() -> JobSpec {
    job(1, 100, 0, Some(60))
}

fn submit(s: &mut Scenario, specs: Vec<JobSpec>) -> Vec<u32> {
    specs.into_iter().map(|j| s.submit(j).unwrap()).collect()
}

fn states(s: &Scenario, ids: &[u32]) -> Vec<(JobBaseState, JobReason)> {
    ids.iter()
        .map(|id| (s.state.jobs[id].state, s.state.jobs[id].reason))
        .collect()
}

fn running(s: &Scenario, ids: &[u32]) -> usize {
    ids.iter()
        .filter(|id| s.state.jobs[id].state == JobBaseState::Running)
        .count()
}

fn pass(s: &mut Scenario) {
    s.pass().unwrap();
    s.state.check_invariants().unwrap();
}

#[test]
fn force_shares_each_core_with_up_to_n_jobs_and_not_one_more() {
    for backfill in [true, false] {
        let mut s = cluster("FORCE:2", 2, 0, backfill);
        let ids = submit(&mut s, vec![one_cpu(); 5]);
        pass(&mut s);
        let run = (JobBaseState::Running, JobReason::NoReason);
        let wait = (JobBaseState::Pending, JobReason::Resources);
        assert_eq!(states(&s, &ids), vec![run, run, run, run, wait]);
        let n1 = &s.state.nodes["n1"];
        // Shared cores count once, as Slurm's CPUAlloc does.
        assert_eq!(
            (n1.alloc_cpus, n1.alloc_shared_cpus, n1.cpus_in_use()),
            (0, 4, 2)
        );
        assert_eq!(
            s.state.jobs[&ids[0]].alloc.as_ref().unwrap().oversubscribe,
            2
        );
        assert_eq!(s.state.jobs[&ids[0]].sharing, Some(ResolvedSharing::Shares));
        // A waiting job the scheduler looked at is marked too (squeue says YES).
        assert_eq!(s.state.jobs[&ids[4]].sharing, Some(ResolvedSharing::Shares));

        s.finish(ids[0]).unwrap();
        pass(&mut s);
        assert_eq!(running(&s, &ids), 4, "backfill={backfill}");
    }
}

#[test]
fn a_sharing_job_spreads_over_idle_cores_first_in_what_is_shown() {
    let mut s = cluster("FORCE:4", 4, 0, true);
    let ids = submit(&mut s, vec![one_cpu(); 2]);
    pass(&mut s);
    assert_eq!(running(&s, &ids), 2);
    assert_eq!(s.state.nodes["n1"].cpus_in_use(), 2);
    assert_eq!(
        s.state.nodes["n1"].base_state,
        spur_core::model::states::NodeBaseState::Mixed
    );
}

#[test]
fn partition_no_ignores_oversubscribe() {
    let mut s = cluster("NO", 2, 0, true);
    let ids = submit(&mut s, vec![asking(one_cpu()); 3]);
    pass(&mut s);
    assert_eq!(running(&s, &ids), 2);
    assert_eq!(
        s.state.jobs[&ids[0]].alloc.as_ref().unwrap().oversubscribe,
        0
    );
    assert_eq!(s.state.jobs[&ids[0]].sharing, None);
}

#[test]
fn yes_shares_only_jobs_that_ask_and_never_with_the_others() {
    let mut s = cluster("YES:2", 2, 0, true);
    let sharers = submit(&mut s, vec![asking(one_cpu()); 4]);
    let plain = s.submit(one_cpu()).unwrap();
    pass(&mut s);
    assert_eq!(running(&s, &sharers), 4);
    // A job with cores of its own does not go where jobs share cores, though one is only half taken.
    assert_eq!(s.state.jobs[&plain].state, JobBaseState::Pending);
    for id in &sharers {
        s.finish(*id).unwrap();
    }
    pass(&mut s);
    assert_eq!(s.state.jobs[&plain].state, JobBaseState::Running);
    // ... and the other way round: a sharer waits beside a job that keeps its cores.
    let late = s.submit(asking(one_cpu())).unwrap();
    pass(&mut s);
    assert_eq!(s.state.jobs[&late].state, JobBaseState::Pending);
    let second_plain = s.submit(one_cpu()).unwrap();
    pass(&mut s);
    assert_eq!(s.state.jobs[&second_plain].state, JobBaseState::Running);
}

#[test]
fn exclusive_partitions_give_whole_nodes() {
    let mut s = cluster("EXCLUSIVE", 4, 0, true);
    let mut small = one_cpu();
    small.mem_per_node_mb = None;
    small.mem_per_cpu_mb = Some(500);
    let ids = submit(&mut s, vec![small.clone(), small]);
    // Marked as it is queued, as slurmctld does.
    assert_eq!(
        s.state.jobs[&ids[1]].sharing,
        Some(ResolvedSharing::WholeNode)
    );
    pass(&mut s);
    let alloc = s.state.jobs[&ids[0]].alloc.clone().unwrap();
    // Every CPU, and memory per CPU for each of them.
    assert_eq!(
        (alloc.cpus, alloc.mem_mb, alloc.oversubscribe),
        (4, 2000, 0)
    );
    assert_eq!(
        states(&s, &ids)[1],
        (JobBaseState::Pending, JobReason::Resources)
    );
}

#[test]
fn exclusive_in_a_force_partition_takes_every_cpu_and_still_shares() {
    let mut s = cluster("FORCE:2", 2, 0, true);
    let mut whole = one_cpu();
    whole.exclusive = true;
    let ids = submit(&mut s, vec![whole, one_cpu(), one_cpu(), one_cpu()]);
    pass(&mut s);
    assert_eq!(s.state.jobs[&ids[0]].alloc.as_ref().unwrap().cpus, 2);
    // Two cores at two jobs each: the whole-node job's two CPUs and two more.
    assert_eq!(running(&s, &ids), 3);
}

#[test]
fn memory_stays_a_hard_limit() {
    let mut s = cluster("FORCE:4", 2, 0, true);
    let ids = submit(&mut s, vec![job(1, 3_000, 0, Some(60)); 4]);
    pass(&mut s);
    assert_eq!(running(&s, &ids), 2);
}

#[test]
fn gres_are_never_shared() {
    let mut s = cluster("FORCE:4", 2, 2, true);
    let ids = submit(&mut s, vec![job(1, 100, 1, Some(60)); 3]);
    pass(&mut s);
    assert_eq!(running(&s, &ids), 2);
    let units: Vec<_> = ids[..2]
        .iter()
        .map(|id| s.state.jobs[id].alloc.as_ref().unwrap().gres_indices["gpu"].clone())
        .collect();
    assert_eq!(units, vec![vec![0], vec![1]]);
}

#[test]
fn backfill_reserves_for_a_sharing_job_when_the_cores_are_full() {
    let mut s = cluster("FORCE:2", 2, 0, true);
    let ids = submit(&mut s, vec![one_cpu(); 4]);
    pass(&mut s);
    let waiting = s.submit(one_cpu()).unwrap();
    pass(&mut s);
    assert_eq!(running(&s, &ids), 4);
    let job = &s.state.jobs[&waiting];
    assert_eq!(job.reason, JobReason::Resources);
    // The running jobs end at T0 + 60 minutes, rounded up to the profile's minute.
    assert_eq!(
        job.expected_start,
        Some((T0 + 3600 + 59).div_euclid(60) * 60)
    );
}

#[test]
fn invariants_catch_more_sharing_than_the_partition_allows() {
    let mut s = cluster("FORCE:2", 2, 0, true);
    let ids = submit(&mut s, vec![one_cpu(); 4]);
    pass(&mut s);
    assert_eq!(running(&s, &ids), 4);
    // Book the first job again as a fifth sharer on the node: five half cores on two cores.
    let mut extra = s.state.jobs[&ids[0]].clone();
    extra.job_id = s.state.next_job_id;
    s.state.next_job_id += 1;
    let alloc = extra.alloc.clone().unwrap();
    s.state.nodes.get_mut("n1").unwrap().book_cpus(&alloc);
    s.state.jobs.insert(extra.job_id, extra);
    s.state.jobs.settle();
    let err = s.state.check_invariants().unwrap_err();
    assert!(err.contains("shared CPUs on 2 CPUs"), "{err}");

    // A sharing booking the node does not record is caught too.
    let mut s = cluster("FORCE:2", 2, 0, true);
    submit(&mut s, vec![one_cpu()]);
    pass(&mut s);
    s.state.nodes.get_mut("n1").unwrap().alloc_share_slots -= share_slots(1, 2);
    assert!(s.state.check_invariants().is_err());
}

#[test]
fn a_stale_plan_never_shares_beyond_the_limit() {
    let mut s = cluster("FORCE:2", 2, 0, true);
    let ids = submit(&mut s, vec![one_cpu(); 5]);
    let plan = super::schedule(&s.state, s.now);
    assert_eq!(plan.starts.len(), 4);
    // A plan that would also start the fifth job on the full cores, as a stale one could.
    let mut starts = plan.starts.clone();
    starts.push((ids[4], plan.starts[0].1.clone()));
    s.commit_starts(starts).unwrap();
    s.state.check_invariants().unwrap();
    assert_eq!(running(&s, &ids), 4);
    assert_eq!(s.state.jobs[&ids[4]].state, JobBaseState::Pending);
    // Nor beside jobs with cores of their own: a plan sharing a core of a NO partition's job is refused.
    let mut s = cluster("NO", 2, 0, true);
    let own = s.submit(one_cpu()).unwrap();
    pass(&mut s);
    let mut forged = s.state.jobs[&own].alloc.clone().unwrap();
    forged.oversubscribe = 2;
    assert!(!crate::rules::allocation_fits(&s.state, &forged));
}
