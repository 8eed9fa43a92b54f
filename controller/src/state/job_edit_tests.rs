//! Edits of jobs' accounting records in the state machine: who may make which, that a live job's edits follow it
//! into the archive (a derived exit code set while it ran giving way at its end), that they travel in snapshots,
//! and that a refused edit changes nothing.

use pretty_assertions::assert_eq;

use spur_core::model::job_edit::{EditedJob, JobEditCond, JobEditRequest, JobEdits};
use spur_core::wire::api::{ControlRequest, SlurmErrno};

use super::*;
use crate::scheduler::scenario::{job, node, partition, Scenario};

fn cluster() -> Scenario {
    let names = ["n1".to_string()];
    Scenario::new(
        vec![node("n1", 4, 8_000, 0)],
        vec![partition("debug", &names, true)],
        Settings {
            min_job_age_secs: 300,
            ..Settings::default()
        },
        1_000_000,
    )
    .expect("cluster")
}

fn edit(job_ids: &[u32], set: JobEdits) -> JobEditRequest {
    JobEditRequest {
        cond: JobEditCond {
            job_ids: job_ids.to_vec(),
            ..Default::default()
        },
        set,
    }
}

fn comment(text: &str) -> JobEdits {
    JobEdits {
        comment: Some(text.into()),
        ..Default::default()
    }
}

fn modify(
    s: &mut Scenario,
    uid: u32,
    request: JobEditRequest,
) -> Result<Vec<EditedJob>, SlurmErrno> {
    let now = s.now;
    s.apply(Command::Control {
        caller_uid: uid,
        request: ControlRequest::ModifyJobRecords { request },
        now,
    })
    .map(|a| a.edited_jobs)
    .map_err(|e| e.errno)
}

fn record(s: &Scenario, job_id: u32) -> spur_core::model::accounting::JobAccounting {
    s.state
        .accounting_records(Some(&[job_id]), None, None, s.now)
        .pop()
        .expect("record")
}

fn finish(s: &mut Scenario, job_id: u32) {
    let now = s.now;
    s.apply(Command::Finished {
        job_id,
        outcome: Outcome::Exited { code: 0, signal: 0 },
        now,
        run: None,
    })
    .expect("finished");
}

#[test]
fn owners_edit_their_jobs_and_operators_any() {
    let mut s = cluster();
    let mine = s.submit(job(1, 100, 0, None)).expect("submit");
    let mut other = job(1, 100, 0, None);
    other.user_id = 2000;
    other.user_name = "bob".into();
    let theirs = s.submit(other).expect("submit");
    s.pass().expect("pass");
    let submit = record(&s, mine).submit;

    assert_eq!(
        modify(&mut s, 1000, edit(&[mine], comment("a"))),
        Ok(vec![EditedJob {
            job_id: mine,
            submit
        }])
    );
    assert_eq!(record(&s, mine).edits.comment.as_deref(), Some("a"));
    // Another user's job, alone or among one's own, refuses the whole edit.
    assert_eq!(
        modify(&mut s, 1000, edit(&[theirs], comment("b"))),
        Err(SlurmErrno::AccessDenied)
    );
    assert_eq!(
        modify(&mut s, 1000, edit(&[mine, theirs], comment("b"))),
        Err(SlurmErrno::AccessDenied)
    );
    assert_eq!(record(&s, mine).edits.comment.as_deref(), Some("a"));
    assert_eq!(record(&s, theirs).edits, JobEdits::default());
    // The admin and system comments are the operators' even on one's own job.
    let admin = JobEdits {
        admin_comment: Some("x".into()),
        ..Default::default()
    };
    assert_eq!(
        modify(&mut s, 1000, edit(&[mine], admin.clone())),
        Err(SlurmErrno::AccessDenied)
    );
    assert_eq!(
        modify(&mut s, 0, edit(&[mine, theirs], admin)).map(|j| j.len()),
        Ok(2)
    );
    assert_eq!(record(&s, theirs).edits.admin_comment.as_deref(), Some("x"));
    // Nothing to set, or no such job: no change in data.
    assert_eq!(
        modify(&mut s, 0, edit(&[mine], JobEdits::default())),
        Err(SlurmErrno::NoChangeInData)
    );
    assert_eq!(
        modify(&mut s, 0, edit(&[999_999], comment("c"))),
        Err(SlurmErrno::NoChangeInData)
    );
    // WCKeys only with TrackWCKey.
    let wckey = JobEdits {
        wckey: Some("w".into()),
        ..Default::default()
    };
    assert_eq!(
        modify(&mut s, 0, edit(&[mine], wckey)),
        Err(SlurmErrno::NoChangeInData)
    );
    s.state.check_invariants().expect("invariants");
}

#[test]
fn a_live_jobs_edits_follow_it_into_the_archive() {
    let mut s = cluster();
    let id = s.submit(job(1, 100, 0, None)).expect("submit");
    s.pass().expect("pass");
    let set = JobEdits {
        derived_ec: Some(256),
        comment: Some("while running".into()),
        ..Default::default()
    };
    modify(&mut s, 1000, edit(&[id], set)).expect("edit");
    assert_eq!(record(&s, id).edits.derived_ec, Some(256));
    s.now += 5;
    finish(&mut s, id);
    // The job's own derived exit code replaces one set while it ran; the comment stays.
    let ended = record(&s, id);
    assert_eq!(
        (ended.edits.derived_ec, ended.edits.comment.as_deref()),
        (None, Some("while running"))
    );
    modify(
        &mut s,
        1000,
        edit(
            &[id],
            JobEdits {
                derived_ec: Some(9),
                ..Default::default()
            },
        ),
    )
    .expect("edit");
    s.now += 301;
    let now = s.now;
    s.apply(Command::Purge { now }).expect("purge");
    assert!(s.state.jobs.is_empty() && s.state.job_edits.is_empty());
    let archived = record(&s, id);
    assert_eq!(archived.edits.derived_ec, Some(9));
    assert_eq!(archived.edits.comment.as_deref(), Some("while running"));
    // An archived record takes edits at once, and they travel in snapshots.
    modify(&mut s, 0, edit(&[id], comment("archived"))).expect("edit");
    let json = serde_json::to_string(&s.state).expect("snapshot");
    let back: ClusterState = serde_json::from_str(&json).expect("restore");
    let restored = back
        .accounting_records(Some(&[id]), None, None, s.now)
        .pop()
        .expect("record");
    assert_eq!(restored.edits.comment.as_deref(), Some("archived"));
    assert_eq!(restored.edits.derived_ec, Some(9));
}
