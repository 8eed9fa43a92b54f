use super::*;

/// `sacct -a -D -P -o EXPORT_FIELDS` captured from real Slurm 22.05 with slurmdbd (conformance case 625's file):
/// a job, a failed one, one with two srun steps, a two-task array, all with batch steps.
const CAPTURE: &str =
    include_str!("../../../conformance/cases/625-migrate-import-jobs/slurm-sacct.txt");

#[test]
fn a_captured_export_reads_back_whole() {
    let imported = parse_parsable(CAPTURE, 0).expect("parse");
    assert!(imported.notes.is_empty(), "{:?}", imported.notes);
    let ids: Vec<(u32, Option<u32>, Option<u32>)> = imported
        .records
        .iter()
        .map(|r| (r.job_id, r.array_job_id, r.array_task_id))
        .collect();
    assert_eq!(
        ids,
        vec![
            (1, None, None),
            (2, None, None),
            (3, None, None),
            (6, Some(5), Some(1)),
            (5, Some(5), Some(2)),
        ]
    );
    let steps = &imported.records[2];
    assert_eq!(steps.name, "c625steps");
    assert_eq!(steps.cpus, 2);
    assert_eq!(steps.mem_per_node_mb, 2048);
    assert_eq!(steps.edits.derived_ec, Some(1 << 8));
    assert!(steps.batch && !steps.extern_step);
    assert_eq!(steps.steps.len(), 2);
    assert_eq!(steps.steps[1].name, "two");
    assert_eq!(steps.steps[1].state, JobBaseState::Failed);
    assert_eq!((steps.steps[1].exit_code, steps.steps[1].tasks), (1, 1));
    assert_eq!(steps.start, parse_local_time("2026-12-07T23:52:23", 0));
    let failed = &imported.records[1];
    assert_eq!((failed.state, failed.exit_code), (JobBaseState::Failed, 3));
    assert_eq!(failed.time_limit_min, None);
    assert_eq!(failed.alloc_tres, "billing=1,cpu=1,mem=1G,node=1");
    assert!(imported.records.iter().all(|r| r.imported));
}

fn export(rows: &[&str]) -> String {
    let mut text = EXPORT_FIELDS.replace(',', "|");
    for row in rows {
        text.push('\n');
        text.push_str(row);
    }
    text
}

/// A job row of the export with the given id text, state and submit time; the rest as Slurm writes it.
fn row(raw: &str, shown: &str, state: &str, submit: &str) -> String {
    format!(
        "{raw}|{shown}|j|1000|alice|1000|alice|phys|normal|debug|{state}|None|{submit}|{submit}|{submit}|\
         2026-12-07T10:00:10|10|30|0:15|0:0|5|n1|1|4|4|4G|cpu=4,mem=4G,node=1|cpu=4,mem=4G,node=1||/home/a||||"
    )
}

#[test]
fn cancelled_by_a_user_and_time_zones() {
    let text = export(&[&row("7", "7", "CANCELLED by 1000", "2026-12-07T10:00:00")]);
    let imported = parse_parsable(&text, 3_600).expect("parse");
    let job = &imported.records[0];
    assert_eq!(job.state, JobBaseState::Cancelled);
    assert_eq!(job.cancelled_by, Some(1000));
    assert_eq!(job.time_limit_min, Some(30));
    // 10:00 at UTC+1 is 09:00 UTC.
    assert_eq!(Some(job.submit), parse_local_time("2026-12-07T09:00:00", 0));
    assert_eq!(job.mem_per_node_mb, 4096);
}

#[test]
fn unfinished_requeued_and_het_rows_are_left_out_with_notes() {
    let text = export(&[
        &row("8", "8", "RUNNING", "2026-12-07T10:00:00"),
        &row("9", "9", "REQUEUED", "2026-12-07T09:00:00"),
        &row("9", "9", "COMPLETED", "2026-12-07T10:00:00"),
        &row("10", "10+0", "COMPLETED", "2026-12-07T10:00:00"),
    ]);
    let imported = parse_parsable(&text, 0).expect("parse");
    let kept: Vec<(u32, u32)> = imported
        .records
        .iter()
        .map(|r| (r.job_id, r.restarts))
        .collect();
    assert_eq!(kept, vec![(9, 1)]);
    assert_eq!(imported.notes.len(), 2, "{:?}", imported.notes);
    assert!(imported.notes[0].contains("job 8: RUNNING"));
}

#[test]
fn malformed_exports_are_refused_with_the_line() {
    assert_eq!(parse_parsable("", 0).unwrap_err(), ImportError::Empty);
    assert_eq!(
        parse_parsable("JobID|State\n1|COMPLETED", 0).unwrap_err(),
        ImportError::MissingField("JobIDRaw".into())
    );
    let short = export(&["1|1|COMPLETED"]);
    assert!(matches!(
        parse_parsable(&short, 0),
        Err(ImportError::Row { line: 2, .. })
    ));
    let bad_time = export(&[&row("7", "7", "COMPLETED", "yesterday")]);
    let err = parse_parsable(&bad_time, 0).unwrap_err().to_string();
    assert!(err.contains("Submit 'yesterday'"), "{err}");
    let bad_state = export(&[&row("7", "7", "SLEEPING", "2026-12-07T10:00:00")]);
    assert!(parse_parsable(&bad_state, 0).is_err());
}

#[test]
fn local_times_round_trip_with_sacct_s_printing() {
    for t in [0_i64, 1_796_687_540, 951_782_400] {
        let text = crate::format::time::iso(t, -18_000);
        assert_eq!(parse_local_time(&text, -18_000), Some(t), "{text}");
    }
    assert_eq!(parse_local_time("2026-13-01T00:00:00", 0), None);
}
