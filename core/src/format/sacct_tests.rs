use pretty_assertions::assert_eq;

use super::*;
use crate::format::test_records::{pending, running, NOW};
use crate::grammar::values::stepid::parse_step_list;
use crate::model::accounting::{Filter, JobAccounting};
use crate::model::job::JobRecord;
use crate::model::step::StepRecord;

fn ctx() -> Context {
    Context {
        utc_offset_secs: 0,
        cluster: "c1".into(),
        users: [(1000, "alice".to_string())].into(),
        groups: [(100, "users".to_string())].into(),
        delimiter: None,
        no_convert: false,
    }
}

/// Job 42 after it ended: exit 3 from its script, with steps 0 (ok) and 1 (exit 2).
fn failed_with_steps() -> JobAccounting {
    let mut job = running();
    job.state = JobBaseState::Failed;
    job.end_time = Some(NOW - 5);
    job.exit_code = 3;
    let step = |id: u32, code: u32| StepRecord {
        step_id: id,
        name: format!("s{id}"),
        state: StepRecord::end_state(code, 0),
        start_time: NOW - 60,
        end_time: Some(NOW - 50),
        node_list: "n1".into(),
        num_nodes: 1,
        num_tasks: 2,
        num_cpus: 2,
        time_limit_min: None,
        exit_code: code,
        exit_signal: 0,
        srun_host: String::new(),
        srun_pid: 0,
        node_ranks: Vec::new(),
        usage: None,
    };
    job.steps = vec![step(0, 0), step(1, 2)];
    JobAccounting::of_job(&job, NOW)
}

fn table(record: &JobAccounting, format: &str, layout: Layout, filter: &Filter) -> String {
    let columns = parse_format(format).unwrap();
    let records = [record.clone()];
    let mut out = header(&columns, layout, &ctx());
    for row in filter.rows(&records) {
        out.push_str(&line(&row, &columns, layout, &ctx()));
    }
    out
}

#[test]
fn default_table_has_slurms_widths_and_step_rows() {
    let record = failed_with_steps();
    assert_eq!(
        table(&record, DEFAULT_FORMAT, Layout::Columns, &Filter::default()),
        "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n\
         ------------ ---------- ---------- ---------- ---------- ---------- -------- \n\
         42                train        gpu       proj          4     FAILED      3:0 \n\
         42.batch          batch                  proj          2     FAILED      3:0 \n\
         42.0                 s0                  proj          2  COMPLETED      0:0 \n\
         42.1                 s1                  proj          2     FAILED      2:0 \n"
    );
}

#[test]
fn parsable_fields_on_job_and_step_rows() {
    let record = failed_with_steps();
    let filter = Filter {
        jobs: parse_step_list("42,42.1").unwrap(),
        ..Filter::default()
    };
    let format = "JobID,JobIDRaw,State,ExitCode,DerivedExitCode,NodeList,AllocTRES,ReqTRES,Elapsed,ElapsedRaw,\
                  Timelimit,NNodes,NTasks,User,UID,Group,GID,CPUTime,CPUTimeRAW,Cluster,WorkDir,MaxRSS";
    assert_eq!(
        table(&record, format, Layout::Parsable2, &filter).lines().collect::<Vec<_>>(),
        [
            "JobID|JobIDRaw|State|ExitCode|DerivedExitCode|NodeList|AllocTRES|ReqTRES|Elapsed|ElapsedRaw|\
             Timelimit|NNodes|NTasks|User|UID|Group|GID|CPUTime|CPUTimeRAW|Cluster|WorkDir|MaxRSS",
            "42|42|FAILED|3:0|2:0|n[1-2]|billing=4,cpu=4,mem=8G,node=2|billing=4,cpu=4,mem=8G,node=2|00:01:00|60|\
             00:30:00|2||alice|1000|users|100|00:04:00|240|c1|/home/alice|",
            "42.batch|42.batch|FAILED|3:0||n1|cpu=2,mem=4G,node=1||00:01:00|60||1|1|||||00:02:00|120|c1||",
            "42.0|42.0|COMPLETED|0:0||n1|cpu=2,mem=4G,node=1||00:00:10|10||1|2|||||00:00:20|20|c1||",
            "42.1|42.1|FAILED|2:0||n1|cpu=2,mem=4G,node=1||00:00:10|10||1|2|||||00:00:20|20|c1||",
        ]
    );
}

#[test]
fn a_job_cancelled_while_pending_never_started() {
    let mut job = pending();
    job.state = JobBaseState::Cancelled;
    job.end_time = Some(NOW);
    job.start_time = Some(NOW);
    job.cancelled_by = Some(0);
    let held = JobAccounting::of_job(
        &JobRecord {
            eligible_time: None,
            ..job.clone()
        },
        NOW,
    );
    assert_eq!(
        table(&held, "Start", Layout::Parsable2, &Filter::default()),
        "Start\n2026-11-30T14:58:05\n"
    );
    let record = JobAccounting::of_job(&job, NOW);
    assert_eq!(
        table(
            &record,
            "JobID,State,ExitCode,Start,NodeList,AllocNodes,Timelimit",
            Layout::Parsable,
            &Filter::default()
        ),
        "JobID|State|ExitCode|Start|NodeList|AllocNodes|Timelimit|\n\
         43|CANCELLED by 0|0:0|None|None assigned|0|Partition_Limit|\n"
    );
    let narrow = table(&record, "JobID,State", Layout::Columns, &Filter::default());
    assert!(narrow.ends_with("43           CANCELLED+ \n"), "{narrow}");
}

#[test]
fn cancelled_and_timed_out_jobs_show_the_signal_on_the_batch_step_only() {
    let mut job = running();
    job.state = JobBaseState::Timeout;
    job.end_time = Some(NOW);
    job.exit_signal = 15;
    let record = JobAccounting::of_job(&job, NOW);
    assert_eq!(
        table(
            &record,
            "JobID,State,ExitCode",
            Layout::Parsable2,
            &Filter::default()
        ),
        "JobID|State|ExitCode\n42|TIMEOUT|0:0\n42.batch|CANCELLED|0:15\n"
    );
}

#[test]
fn format_names_match_by_prefix_and_widths_justify() {
    let columns = parse_format("jobid%5,exitc,state%-12,node").unwrap();
    let names: Vec<_> = columns.iter().map(|c| (c.name, c.width)).collect();
    assert_eq!(
        names,
        [
            ("JobID", 5),
            ("ExitCode", 8),
            ("State", -12),
            ("NodeList", 15)
        ]
    );
    assert_eq!(
        parse_format("jobid,bogus"),
        Err("Invalid field requested: \"bogus\"".to_string())
    );
    assert_eq!(
        header(&parse_format("jobname%3").unwrap(), Layout::Columns, &ctx()),
        "Job \n--- \n"
    );
}

#[test]
fn allocations_and_step_selection() {
    let record = failed_with_steps();
    let allocations = Filter {
        allocations: true,
        ..Filter::default()
    };
    assert_eq!(
        table(&record, "JobID", Layout::Parsable2, &allocations),
        "JobID\n42\n"
    );
    let batch = Filter {
        jobs: parse_step_list("42.batch").unwrap(),
        ..Filter::default()
    };
    assert_eq!(
        table(&record, "JobID", Layout::Parsable2, &batch),
        "JobID\n42.batch\n"
    );
    let other = Filter {
        jobs: parse_step_list("7").unwrap(),
        ..Filter::default()
    };
    assert_eq!(
        table(&record, "JobID", Layout::Parsable2, &other),
        "JobID\n"
    );
}

#[test]
fn array_tasks_are_selected_by_array_id_or_task() {
    let mut task = running();
    task.job_id = 51;
    task.array_job_id = Some(50);
    task.array_task_id = Some(2);
    let record = JobAccounting::of_job(&task, NOW);
    for (ids, shown) in [("50", true), ("50_2", true), ("51", true), ("50_1", false)] {
        let filter = Filter {
            jobs: parse_step_list(ids).unwrap(),
            allocations: true,
            ..Filter::default()
        };
        let expected = if shown { "50_2|51\n" } else { "" };
        assert_eq!(
            table(&record, "JobID,JobIDRaw", Layout::Parsable2, &filter),
            format!("JobID|JobIDRaw\n{expected}"),
            "-j {ids}"
        );
    }
}

#[test]
fn windows_and_states_select_as_slurmdbd() {
    let record = failed_with_steps();
    let end = NOW - 5;
    let with = |states: Vec<JobBaseState>, from: i64, to: i64| {
        Filter {
            states,
            window: Some((from, to)),
            ..Filter::default()
        }
        .selects(&record)
    };
    assert!(with(vec![], end - 1000, end + 1000));
    assert!(!with(vec![], end + 1, end + 1000));
    assert!(with(vec![JobBaseState::Failed], end - 10, end));
    assert!(!with(vec![JobBaseState::Failed], end + 1, end + 1));
    assert!(!with(vec![JobBaseState::Completed], end - 10, end + 10));
    let users = Filter {
        users: Some(vec![1]),
        ..Filter::default()
    };
    assert!(!users.selects(&record));
    let names = Filter {
        names: vec!["x".into(), "train".into()],
        ..Filter::default()
    };
    assert!(names.selects(&record));
}

#[test]
fn help_format_lists_four_fields_a_line() {
    let help = help_format();
    assert!(help.starts_with(
        "Account             AdminComment        AllocCPUS           AllocNodes         \n"
    ));
    assert!(help.ends_with("WorkDir            \n"));
}

#[test]
fn a_delimiter_replaces_the_bar() {
    let record = failed_with_steps();
    let columns = parse_format("JobID,State").unwrap();
    let ctx = Context {
        delimiter: Some(";;".into()),
        ..ctx()
    };
    let rows = Filter {
        allocations: true,
        ..Filter::default()
    }
    .rows(std::slice::from_ref(&record));
    assert_eq!(
        header(&columns, Layout::Parsable, &ctx)
            + &line(&rows[0], &columns, Layout::Parsable, &ctx),
        "JobID;;State;;\n42;;FAILED;;\n"
    );
}

#[test]
fn partitions_and_accounts_select() {
    let record = failed_with_steps();
    let select = |partitions: &[&str], accounts: &[&str]| {
        Filter {
            partitions: partitions.iter().map(|p| p.to_string()).collect(),
            accounts: accounts.iter().map(|a| a.to_string()).collect(),
            ..Filter::default()
        }
        .selects(&record)
    };
    assert!(select(&["gpu"], &[]));
    assert!(!select(&["debug"], &[]));
    assert!(select(&[], &["other", "proj"]));
    assert!(!select(&["gpu"], &["other"]));
}
