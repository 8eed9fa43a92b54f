//! `ImportJobs` applied as the log applies it, with a real SQLite store: for administrators only, idempotent,
//! never mixing an imported job with one Spur ran under the same id, moving the id counter past the imports, and
//! counting the imported usage for fair-share.

use std::sync::Arc;

use spur_core::model::accounting::{Filter, JobAccounting};
use spur_core::model::assoc::{AcctRequest, AssocSet};
use spur_core::model::states::JobBaseState;
use spur_core::policy::priority::PriorityWeights;
use spur_core::wire::api::{ControlRequest, SlurmErrno};

use crate::history::sqlite::SqliteHistory;
use crate::history::{HistoryLink, HistoryQuery, HistoryStore};
use crate::raft::AppStateMachine;
use crate::scheduler::scenario::{job, node, partition, Scenario};
use crate::state::{Applied, Command, Settings};
use spur_core::wire::api::ApiError;

const NOW: i64 = 1_800_000_000;

fn weights() -> PriorityWeights {
    let conf = spur_core::grammar::conf::SlurmConf::parse_str(
        "ClusterName=c\nSlurmctldHost=h\nPriorityType=priority/multifactor\n",
        "slurm.conf",
    )
    .expect("conf");
    PriorityWeights::from_conf(&conf).expect("weights")
}

/// One node, account `phys` with user `alice`, usage counted without decay, and a SQLite store.
fn cluster(dir: &tempfile::TempDir) -> (Scenario, Arc<dyn HistoryStore>) {
    let settings = Settings {
        priority: Some(weights()),
        fairshare: spur_core::policy::fairshare::FairShareSettings {
            half_life_secs: 0,
            ..Default::default()
        },
        ..Settings::default()
    };
    let names = ["n1".to_string()];
    let mut s = Scenario::new(
        vec![node("n1", 4, 8_000, 0)],
        vec![partition("debug", &names, true)],
        settings,
        NOW,
    )
    .expect("cluster");
    let store: Arc<dyn HistoryStore> =
        Arc::new(SqliteHistory::open(&dir.path().join("history.sqlite")).expect("open"));
    s.state.history = HistoryLink::new(Arc::clone(&store));
    let requests = [
        AcctRequest::AddAccounts {
            names: vec!["phys".into()],
            parent: None,
            description: None,
            organization: None,
            set: AssocSet::default(),
        },
        AcctRequest::add_user("alice", "phys", AssocSet::default()),
    ];
    for request in requests {
        s.apply(Command::Control {
            caller_uid: 0,
            request: ControlRequest::Accounting { request },
            now: NOW,
        })
        .expect("add");
    }
    s.apply(Command::AccrueUsage { now: NOW }).expect("accrue");
    (s, store)
}

/// A finished job of alice's as Slurm recorded it: `cpus` CPUs for `secs` seconds, ending an hour ago.
fn slurm_job(job_id: u32, submit: i64, cpus: u32, secs: i64) -> JobAccounting {
    let end = NOW - 3_600;
    serde_json::from_value(serde_json::json!({
        "job_id": job_id,
        "name": format!("slurm{job_id}"),
        "user_id": 1000,
        "group_id": 1000,
        "user_name": "alice",
        "account": "phys",
        "partition": "debug",
        "state": "COMPLETED",
        "reason": "WAIT_NO_REASON",
        "submit": submit,
        "start": end - secs,
        "end": end,
        "elapsed_secs": secs,
        "nodes": 1,
        "cpus": cpus,
        "alloc_tres": format!("cpu={cpus},node=1,billing={cpus}"),
    }))
    .expect("a record")
}

/// As the server does: what this controller's store already holds is dropped, then the batch is applied.
fn import(s: &mut Scenario, uid: u32, records: Vec<JobAccounting>) -> Result<Applied, ApiError> {
    let now = s.now;
    let records = if s.state.is_admin(uid) {
        s.state.import_selection(records, now, true)?
    } else {
        records
    };
    apply_import(s, uid, records)
}

/// The log entry alone, as a replica applies it.
fn apply_import(
    s: &mut Scenario,
    uid: u32,
    records: Vec<JobAccounting>,
) -> Result<Applied, ApiError> {
    let now = s.now;
    let applied = s.apply(Command::Control {
        caller_uid: uid,
        request: ControlRequest::ImportJobs { records },
        now,
    });
    AppStateMachine::batch_applied(&mut s.state);
    applied
}

fn stored(store: &Arc<dyn HistoryStore>) -> Vec<(u32, i64)> {
    let mut keys: Vec<(u32, i64)> = store
        .query(&HistoryQuery::default())
        .expect("query")
        .iter()
        .map(|r| (r.job_id, r.submit))
        .collect();
    keys.sort_unstable();
    keys
}

#[test]
fn only_administrators_import_and_a_refused_import_adds_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, store) = cluster(&dir);
    let before = s.state.next_job_id;
    let refused = import(&mut s, 1000, vec![slurm_job(500, NOW - 7_200, 2, 600)])
        .expect_err("a user may not import");
    assert_eq!(refused.errno, SlurmErrno::AccessDenied);
    assert!(stored(&store).is_empty());
    assert_eq!(s.state.next_job_id, before);
    assert_eq!(s.state.usage.raw_of("phys|alice"), 0.0);
}

#[test]
fn importing_twice_adds_nothing_and_sacct_shows_the_records_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, store) = cluster(&dir);
    let records = vec![
        slurm_job(500, NOW - 7_200, 2, 600),
        slurm_job(501, NOW - 7_100, 1, 60),
        // sacct -D's duplicate of job 501: an earlier run under the same id, kept apart by its submit time.
        slurm_job(501, NOW - 9_000, 1, 30),
    ];
    let first = import(&mut s, 0, records.clone()).expect("import");
    assert_eq!(first.edited_jobs.len(), 3);
    let again = import(&mut s, 0, records).expect("import again");
    assert!(again.edited_jobs.is_empty(), "{:?}", again.edited_jobs);
    assert_eq!(
        stored(&store),
        vec![(500, NOW - 7_200), (501, NOW - 9_000), (501, NOW - 7_100)]
    );
    let window = Filter {
        window: Some((NOW - 10_000, NOW)),
        ..Filter::default()
    };
    let shown = s.state.accounting_records(None, None, Some(&window), NOW);
    assert_eq!(shown.len(), 3);
    assert!(shown
        .iter()
        .all(|r| r.imported && r.state == JobBaseState::Completed));
}

#[test]
fn the_id_counter_moves_past_imported_ids() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, _store) = cluster(&dir);
    import(&mut s, 0, vec![slurm_job(7_000, NOW - 7_200, 1, 60)]).expect("import");
    assert_eq!(s.state.next_job_id, 7_001);
    let id = s.submit(job(1, 100, 0, None)).expect("submit");
    assert_eq!(id, 7_001);
    // An import of lower ids leaves the counter where it is.
    import(&mut s, 0, vec![slurm_job(12, NOW - 7_200, 1, 60)]).expect("import");
    assert_eq!(s.state.next_job_id, 7_002);
}

#[test]
fn an_id_spur_already_used_refuses_the_batch_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, store) = cluster(&dir);
    let spur_id = s.submit(job(1, 100, 0, None)).expect("submit");
    let refused = import(
        &mut s,
        0,
        vec![
            slurm_job(spur_id + 100, NOW - 7_200, 1, 60),
            slurm_job(spur_id, NOW - 7_200, 1, 60),
        ],
    )
    .expect_err("a Spur job holds the id");
    let detail = refused.detail.unwrap_or_default();
    assert!(
        detail.contains(&format!("job id {spur_id} is already used by a Spur job")),
        "{detail}"
    );
    assert!(stored(&store).is_empty(), "nothing of the batch is kept");
}

#[test]
fn unfinished_jobs_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, _store) = cluster(&dir);
    let mut running = slurm_job(500, NOW - 7_200, 1, 60);
    running.state = JobBaseState::Running;
    running.end = None;
    let refused = import(&mut s, 0, vec![running]).expect_err("running");
    assert!(refused.detail.unwrap_or_default().contains("has not ended"));
}

#[test]
fn imported_usage_counts_for_fair_share_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut s, _store) = cluster(&dir);
    let records = vec![
        slurm_job(500, NOW - 7_200, 2, 600),
        slurm_job(501, NOW - 7_100, 1, 60),
    ];
    import(&mut s, 0, records.clone()).expect("import");
    // 2 CPUs for 600 s and 1 CPU for 60 s, no decay: on alice's association and the accounts above it.
    assert_eq!(s.state.usage.raw_of("phys|alice"), 1_260.0);
    assert_eq!(s.state.usage.raw_of("phys"), 1_260.0);
    assert_eq!(s.state.usage.raw_of("root"), 1_260.0);
    import(&mut s, 0, records).expect("import again");
    assert_eq!(s.state.usage.raw_of("phys|alice"), 1_260.0);
}

#[test]
fn replicas_with_and_without_a_store_agree() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut with, _store) = cluster(&dir);
    let (mut without, _) = cluster(&tempfile::tempdir().expect("tempdir"));
    without.state.history = HistoryLink::default();
    for s in [&mut with, &mut without] {
        import(s, 0, vec![slurm_job(900, NOW - 7_200, 1, 60)]).expect("import");
    }
    assert_eq!(with.state, without.state);
}

#[test]
fn a_replica_whose_store_lacks_old_records_applies_an_entry_as_the_others() {
    // The leader's store knows job 900 (stored before a snapshot the other replica caught up from); the entry
    // the leader appends no longer carries it, and both replicas apply that entry alike.
    let dir = tempfile::tempdir().expect("tempdir");
    let (mut leader, _store) = cluster(&dir);
    import(&mut leader, 0, vec![slurm_job(900, NOW - 7_200, 1, 60)]).expect("import");
    let (mut caught_up, _) = cluster(&tempfile::tempdir().expect("tempdir"));
    caught_up.state = leader.state.clone();
    caught_up.state.history = HistoryLink::default();
    let batch = vec![
        slurm_job(900, NOW - 7_200, 1, 60),
        slurm_job(901, NOW - 7_000, 1, 60),
    ];
    let entry = leader
        .state
        .import_selection(batch, NOW, true)
        .expect("selection");
    assert_eq!(entry.len(), 1, "the leader drops what its store holds");
    apply_import(&mut leader, 0, entry.clone()).expect("leader");
    apply_import(&mut caught_up, 0, entry).expect("replica");
    assert_eq!(
        leader.state.usage.raw_of("phys|alice"),
        caught_up.state.usage.raw_of("phys|alice")
    );
    assert_eq!(leader.state.next_job_id, caught_up.state.next_job_id);
}
