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
