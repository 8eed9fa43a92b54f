use spur_core::model::assoc::{AcctRequest, AssocSet};
use spur_core::policy::priority::PriorityWeights;
use spur_core::wire::api::ControlRequest;

use crate::scheduler::scenario::{job, node, partition, Scenario};
use crate::state::{Command, Settings};

fn weights(fairshare: u32) -> PriorityWeights {
    let conf = spur_core::grammar::conf::SlurmConf::parse_str(
        "ClusterName=c\nSlurmctldHost=h\nPriorityType=priority/multifactor\n",
        "slurm.conf",
    )
    .unwrap();
    PriorityWeights {
        fairshare,
        ..PriorityWeights::from_conf(&conf).unwrap()
    }
}

/// One 2-CPU node; accounts phys (alice) and chem (bob); usage never decays; the usage clock started at 1000.
fn cluster(fairshare_weight: u32) -> Scenario {
    let settings = Settings {
        priority: Some(weights(fairshare_weight)),
        fairshare: spur_core::policy::fairshare::FairShareSettings {
            half_life_secs: 0,
            ..Default::default()
        },
        ..Settings::default()
    };
    let nodes = vec!["n1".to_string()];
    let mut s = Scenario::new(
        vec![node("n1", 2, 4000, 0)],
        vec![partition("debug", &nodes, true)],
        settings,
        1_000,
    )
    .unwrap();
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    for (user, account) in [("alice", "phys"), ("bob", "chem")] {
        let requests = [
            AcctRequest::AddAccounts {
                names: names(&[account]),
                parent: None,
                description: None,
                organization: None,
                set: AssocSet::default(),
            },
            AcctRequest::add_user(user, account, AssocSet::default()),
        ];
        for request in requests {
            s.apply(Command::Control {
                caller_uid: 0,
                request: ControlRequest::Accounting { request },
                now: 1_000,
            })
            .unwrap();
        }
    }
    assert!(
        s.state.usage_accrual_due(1_000),
        "the clock has not started"
    );
    s.apply(Command::AccrueUsage { now: 1_000 }).unwrap();
    s
}

fn bobs(cpus: u32) -> spur_core::model::job::JobSpec {
    let mut spec = job(cpus, 100, 0, None);
    spec.user_name = "bob".into();
    spec.user_id = 1001;
    spec
}

#[test]
fn running_jobs_accrue_cpu_seconds_on_their_association_and_accounts() {
    let mut s = cluster(10_000);
    let id = s.submit(job(2, 100, 0, None)).unwrap();
    s.pass().unwrap();
    s.now = 1_030;
    assert!(
        !s.state.usage_accrual_due(1_030),
        "within the calc period, no job ended"
    );
    s.now = 1_100;
    s.finish(id).unwrap();
    assert!(
        s.state.usage_accrual_due(1_100),
        "a job ended since the last accrual"
    );
    s.apply(Command::AccrueUsage { now: 1_100 }).unwrap();
    s.state.check_invariants().unwrap();
    assert_eq!(s.state.usage.raw_of("phys|alice"), 200.0);
    assert_eq!(s.state.usage.raw_of("phys"), 200.0);
    assert_eq!(s.state.usage.raw_of("root"), 200.0);
    assert_eq!(s.state.usage.raw_of("chem"), 0.0);
    // Counted once: a later accrual adds nothing for the ended job.
    s.apply(Command::AccrueUsage { now: 1_500 }).unwrap();
    assert_eq!(s.state.usage.raw_of("root"), 200.0);
    assert!(!s.state.usage_accrual_due(1_600));
    assert!(
        s.state.usage_accrual_due(1_500 + 300),
        "a PriorityCalcPeriod later"
    );
}

/// Alice's job of 2 CPUs runs from 1,000 to 1,100 and its usage is accrued: 200 CPU-seconds.
fn alice_used_200_cpu_seconds(s: &mut Scenario) {
    let id = s.submit(job(2, 100, 0, None)).unwrap();
    s.pass().unwrap();
    s.now = 1_100;
    s.finish(id).unwrap();
    s.apply(Command::AccrueUsage { now: 1_100 }).unwrap();
}

#[test]
fn the_user_with_more_usage_gets_the_lower_fairshare_factor() {
    let mut s = cluster(10_000);
    alice_used_200_cpu_seconds(&mut s);
    let alice = s.submit(job(1, 100, 0, None)).unwrap();
    let bob = s.submit(bobs(1)).unwrap();
    let rows = crate::rules::priority::factor_rows(&s.state, &weights(10_000), s.now);
    let fs = |id: u32| rows.iter().find(|r| r.job_id == id).unwrap().fairshare;
    // Users root, alice and bob. Top level: root's user and chem unused (infinite, tied: rank 3), phys used all
    // of root's usage: alice ranks 1 of 3.
    assert_eq!(fs(bob), 10_000.0);
    assert!((fs(alice) - 10_000.0 / 3.0).abs() < 1e-6);
    // The pass orders by the same priority.
    assert!(s.state.jobs[&bob].priority > s.state.jobs[&alice].priority);
    let plan = s.pass().unwrap();
    let prio = |id: u32| {
        plan.priorities
            .iter()
            .find(|(j, _)| *j == id)
            .map(|(_, p)| *p)
    };
    assert!(prio(bob).unwrap_or(s.state.jobs[&bob].priority) > s.state.jobs[&alice].priority);
}

#[test]
fn purge_counts_a_jobs_last_seconds_before_forgetting_it() {
    let mut s = cluster(10_000);
    let id = s.submit(bobs(1)).unwrap();
    s.pass().unwrap();
    s.now = 1_050;
    s.finish(id).unwrap();
    // No accrual between the end and the purge (MinJobAge 300 s later).
    s.now = 1_400;
    s.apply(Command::Purge { now: 1_400 }).unwrap();
    assert!(!s.state.jobs.contains_key(&id));
    assert_eq!(s.state.usage.raw_of("chem|bob"), 50.0);
}

#[test]
fn without_a_fairshare_weight_priorities_do_not_change() {
    let mut s = cluster(0);
    alice_used_200_cpu_seconds(&mut s);
    assert_eq!(
        s.state.usage.raw_of("root"),
        200.0,
        "usage counts all the same"
    );
    let rows = crate::rules::priority::factor_rows(&s.state, &weights(0), s.now);
    assert!(rows.iter().all(|r| r.fairshare == 0.0));
    assert!(crate::rules::priority::Totals::of(&s.state)
        .fairshare
        .is_none());
}

#[test]
fn usage_travels_in_snapshots_and_old_snapshots_have_none() {
    let mut s = cluster(10_000);
    alice_used_200_cpu_seconds(&mut s);
    let json = serde_json::to_value(&s.state).unwrap();
    let back: crate::state::ClusterState = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(back.usage, s.state.usage);
    let mut old = json;
    old.as_object_mut().unwrap().remove("usage");
    let old: crate::state::ClusterState = serde_json::from_value(old).unwrap();
    assert!(old.usage.raw.is_empty() && old.usage.last_calc.is_none());
}

#[test]
fn without_slurmdbd_nothing_is_counted() {
    let mut s = cluster(10_000);
    s.state.settings.fairshare.with_slurmdbd = false;
    assert!(!s.state.counts_usage());
    let id = s.submit(job(2, 100, 0, None)).unwrap();
    s.pass().unwrap();
    s.now = 1_100;
    s.finish(id).unwrap();
    assert!(!s.state.usage_accrual_due(1_100));
    let rows = crate::rules::priority::factor_rows(&s.state, &weights(10_000), s.now);
    assert!(rows.iter().all(|r| r.fairshare == 0.0));
}

#[test]
fn without_multifactor_nothing_is_counted() {
    let nodes = vec!["n1".to_string()];
    let s = Scenario::new(
        vec![node("n1", 2, 4000, 0)],
        vec![partition("debug", &nodes, true)],
        Settings::default(),
        1_000,
    )
    .unwrap();
    assert!(!s.state.usage_accrual_due(1_000));
}

#[test]
fn usage_is_weighed_by_the_partitions_billing_weights() {
    let mut s = cluster(10_000);
    // Half a unit per CPU and 3 per node: a 2-CPU job on one node bills 4 a second (100 MB count nothing).
    s.state.partitions[0].tres_billing_weights = Some("CPU=0.5,Node=3".into());
    let id = s.submit(job(2, 100, 0, None)).unwrap();
    s.pass().unwrap();
    assert_eq!(
        s.state.jobs[&id].billing_weights.as_deref(),
        Some("CPU=0.5,Node=3")
    );
    s.now = 1_100;
    s.finish(id).unwrap();
    s.apply(Command::AccrueUsage { now: 1_100 }).unwrap();
    assert_eq!(s.state.usage.raw_of("phys|alice"), 400.0);
}
