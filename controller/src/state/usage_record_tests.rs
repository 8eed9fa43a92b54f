//! Measured usage in the state machine: kept with the batch step and numbered steps, carried into the records
//! sacct reads after the job is purged, dropped when it is of an earlier run.

use pretty_assertions::assert_eq;

use spur_core::model::step_acct::{Peaks, StepAcct};
use spur_core::model::step_usage::{StepRef, TaskUsage};
use spur_core::wire::api::ControlRequest;

use crate::scheduler::scenario::{job, node, partition, Scenario};
use crate::state::{Command, Outcome, Settings};

fn measured(rss_kib: u64, user_us: u64, sys_us: u64) -> Box<StepAcct> {
    let mut peaks = Peaks::default();
    peaks.sample(&[TaskUsage {
        task: 0,
        cpu_ms: (user_us + sys_us) / 1000,
        rss_kib,
        vmem_kib: rss_kib * 2,
        ..TaskUsage::default()
    }]);
    Box::new(StepAcct::of(&[peaks.node("n1")], user_us, sys_us))
}

#[test]
fn usage_reaches_the_purged_record_of_the_job_and_its_step() {
    let names = ["n1".to_string()];
    let mut s = Scenario::new(
        vec![node("n1", 4, 8_000, 0)],
        vec![partition("debug", &names, true)],
        Settings {
            min_job_age_secs: 300,
            ..Settings::default()
        },
        1_000_000,
    )
    .expect("cluster");
    let id = s.submit(job(1, 100, 0, Some(10))).expect("submit");
    s.pass().expect("pass");
    s.now += 1;
    let step = s
        .apply(Command::Control {
            caller_uid: 1000,
            request: ControlRequest::CreateStep {
                job_id: id,
                name: "burn".into(),
                num_tasks: 1,
                num_cpus: 1,
                time_limit_min: None,
                srun_host: "n1".into(),
                srun_pid: 1,
                launch: None,
                resv_port_cnt: None,
            },
            now: s.now,
        })
        .expect("step")
        .step_id
        .expect("step id");
    let record = |step: StepRef, run: Option<u32>, usage: Box<StepAcct>| Command::RecordUsage {
        job_id: id,
        run,
        step,
        usage,
    };
    s.apply(record(
        StepRef::Numbered(step),
        None,
        measured(1000, 2_000_000, 10_000),
    ))
    .expect("step usage");
    // A late report of an earlier run of the job, and one for a step it never had, change nothing.
    s.apply(record(StepRef::Batch, Some(7), measured(9, 9, 9)))
        .expect("stale");
    s.apply(record(StepRef::Numbered(99), None, measured(9, 9, 9)))
        .expect("unknown step");
    s.apply(Command::Control {
        caller_uid: 1000,
        request: ControlRequest::CompleteStep {
            job_id: id,
            step_id: step,
            exit_code: 0,
            signal: 0,
            usage: None,
        },
        now: s.now,
    })
    .expect("complete step");
    s.apply(record(
        StepRef::Batch,
        Some(0),
        measured(204_800, 100_000, 20_000),
    ))
    .expect("batch usage");
    let now = s.now;
    s.apply(Command::Finished {
        job_id: id,
        outcome: Outcome::Exited { code: 0, signal: 0 },
        now,
        run: None,
    })
    .expect("finished");
    s.now += 301;
    let now = s.now;
    s.apply(Command::Purge { now }).expect("purge");
    assert!(s.state.jobs.is_empty(), "the live table is purged");
    let records = s.state.accounting_records(None, None, None, s.now);
    let r = &records[0];
    let batch = r.batch_usage.as_deref().expect("batch usage");
    assert_eq!(batch.totals.rss_kib.max.value, 204_800);
    assert_eq!(
        r.steps[0].usage.as_deref().map(|u| u.user_cpu_us),
        Some(2_000_000)
    );
    // The job's row sums its steps, the batch step included, as slurmdbd does.
    assert_eq!(r.cpu_us(), (2_100_000, 30_000));
    // The usage travels through the log as JSON; entries without it (older controllers) still decode.
    let entry =
        serde_json::to_string(&record(StepRef::Batch, None, measured(1, 1, 1))).expect("encode");
    let back: Command = serde_json::from_str(&entry).expect("decode");
    assert!(matches!(back, Command::RecordUsage { .. }));
    let old_step = serde_json::json!({
        "step_id": 0, "name": "x", "state": "COMPLETED", "start_time": 1, "node_list": "n1",
        "num_nodes": 1, "num_tasks": 1, "num_cpus": 1
    });
    let step: spur_core::model::step::StepRecord =
        serde_json::from_value(old_step).expect("an older step record");
    assert_eq!(step.usage, None);
}

/// A scenario with job 1 of uid 1000 running and its step 0 registered: (scenario, job id, step id).
fn running_step() -> (Scenario, u32, u32) {
    let names = ["n1".to_string()];
    let mut s = Scenario::new(
        vec![node("n1", 4, 8_000, 0)],
        vec![partition("debug", &names, true)],
        Settings {
            min_job_age_secs: 300,
            ..Settings::default()
        },
        1_000_000,
    )
    .expect("cluster");
    let id = s.submit(job(1, 100, 0, Some(10))).expect("submit");
    s.pass().expect("pass");
    s.now += 1;
    let step = s
        .apply(Command::Control {
            caller_uid: 1000,
            request: ControlRequest::CreateStep {
                job_id: id,
                name: "s".into(),
                num_tasks: 1,
                num_cpus: 1,
                time_limit_min: None,
                srun_host: "n1".into(),
                srun_pid: 1,
                launch: None,
                resv_port_cnt: None,
            },
            now: s.now,
        })
        .expect("step")
        .step_id
        .expect("step id");
    (s, id, step)
}

fn complete(
    s: &mut Scenario,
    caller_uid: u32,
    (job_id, step_id): (u32, u32),
    usage: Option<Box<StepAcct>>,
) -> Result<(), spur_core::wire::api::ApiError> {
    let now = s.now;
    s.apply(Command::Control {
        caller_uid,
        request: ControlRequest::CompleteStep {
            job_id,
            step_id,
            exit_code: 0,
            signal: 0,
            usage,
        },
        now,
    })
    .map(|_| ())
}

#[test]
fn sruns_report_of_a_step_is_kept_once_and_leaves_the_batch_step_its_own_cpu() {
    let (mut s, id, step) = running_step();
    // srun ran the step's tasks itself in the script: 2 s of CPU and a 200 MB peak that the script's own
    // reaping also sees.
    let mut inner = measured(204_800, 1_900_000, 100_000);
    inner.counted_in_batch = true;
    inner.reaped_max_rss_kib = 204_800;
    // Another user cannot report (or overwrite) the step's usage.
    assert!(complete(&mut s, 2000, (id, step), Some(measured(1, 1, 1))).is_err());
    complete(&mut s, 1000, (id, step), Some(inner)).expect("srun's report");
    // A later report of the same step (the owner's retry, or a forged one) changes nothing.
    complete(&mut s, 1000, (id, step), Some(measured(9, 9, 9))).expect("again");
    let kept = s.state.jobs[&id].steps[0].usage.clone().expect("usage");
    assert_eq!(
        (kept.user_cpu_us, kept.totals.rss_kib.max.value),
        (1_900_000, 204_800)
    );
    // The batch step's report counts the step's CPU (srun, its descendant, reaped the tasks) and the step's peak
    // as the largest reaped process: both are the step's, not the script's.
    let mut batch = measured(3_000, 2_000_000 + 20_000, 100_000 + 5_000);
    batch.reaped_max_rss_kib = 204_800;
    s.apply(Command::RecordUsage {
        job_id: id,
        run: Some(0),
        step: StepRef::Batch,
        usage: batch,
    })
    .expect("batch usage");
    let batch = s.state.jobs[&id].batch_usage.clone().expect("batch");
    assert_eq!((batch.user_cpu_us, batch.sys_cpu_us), (120_000, 5_000));
    assert_eq!(batch.totals.cpu_ms.max.value, 125);
    assert_eq!(batch.totals.rss_kib.max.value, 3_000);
    // A script whose own process peaked between two samples gets that peak, as before.
    let mut own = measured(3_000, 10, 10);
    own.reaped_max_rss_kib = 300_000;
    s.apply(Command::RecordUsage {
        job_id: id,
        run: Some(0),
        step: StepRef::Batch,
        usage: own,
    })
    .expect("batch usage");
    let batch = s.state.jobs[&id].batch_usage.clone().expect("batch");
    assert_eq!(batch.totals.rss_kib.max.value, 300_000);
    assert_eq!(batch.totals.rss_kib.total, 300_000);
}
