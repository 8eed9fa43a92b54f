use super::*;
use crate::format::test_records::{running, NOW};
use crate::model::states::JobBaseState;

/// 2026-12-07T00:00:00 UTC.
const DAY: i64 = 1_796_601_600;

fn job(cpus: u32, start: Option<i64>, end: Option<i64>) -> JobAccounting {
    let mut record = JobAccounting::of_job(&running(), NOW);
    record.cpus = cpus;
    record.start = start;
    record.end = end;
    record.state = JobBaseState::Completed;
    record
}

#[test]
fn the_day_constant_is_midnight() {
    assert_eq!(format_local_time(DAY, 0), "2026-12-07T00:00:00");
}

#[test]
fn time_format_words_as_sreport_reads_them() {
    assert_eq!(TimeFormat::parse("m"), Some(TimeFormat::Minutes));
    assert_eq!(TimeFormat::parse("HOURS"), Some(TimeFormat::Hours));
    assert_eq!(TimeFormat::parse("s"), Some(TimeFormat::Seconds));
    assert_eq!(TimeFormat::parse("p"), Some(TimeFormat::Percent));
    assert_eq!(TimeFormat::parse("minper"), Some(TimeFormat::MinPer));
    // The `Per` forms need all six letters; a shorter `MinP` is no prefix of `Minutes`.
    assert_eq!(TimeFormat::parse("MinP"), None);
    assert_eq!(TimeFormat::parse("Hourper"), Some(TimeFormat::HourPer));
    assert_eq!(TimeFormat::parse("Minutesx"), None);
    assert_eq!(TimeFormat::parse("x"), None);
}

#[test]
fn numbers_in_each_format() {
    // 5400 s of 36000 s: 90 minutes, 1.5 hours (rounded to even: 2), 15 %.
    assert_eq!(TimeFormat::Seconds.render(5400, 36000), "5400");
    assert_eq!(TimeFormat::Minutes.render(5400, 36000), "90");
    assert_eq!(TimeFormat::Hours.render(5400, 36000), "2");
    assert_eq!(TimeFormat::Percent.render(5400, 36000), "15.00%");
    assert_eq!(TimeFormat::MinPer.render(5400, 36000), "90(15.00%)");
    assert_eq!(TimeFormat::SecPer.render(0, 0), "0(0.00%)");
    // 30 s is half a minute: printf's %.0f rounds the tie to even, 0.
    assert_eq!(TimeFormat::Minutes.render(30, 1), "0");
    assert_eq!(TimeFormat::Minutes.render(90, 1), "2");
}

#[test]
fn column_widths_grow_with_digits() {
    assert_eq!(TimeFormat::Minutes.column_width(0), 8);
    assert_eq!(TimeFormat::Minutes.column_width(99_999_999), 8);
    assert_eq!(TimeFormat::Minutes.column_width(100_000_000), 9);
    assert_eq!(TimeFormat::Minutes.column_width(1_000_000_000), 10);
    assert_eq!(TimeFormat::MinPer.column_width(0), 17);
}

#[test]
fn the_default_window_is_yesterday() {
    let now = DAY + 13 * 3600 + 5;
    assert_eq!(report_window(None, None, now, 0), (DAY - 86_400, DAY));
    // Local midnight at UTC+02:00 is 22:00 UTC the day before.
    assert_eq!(
        report_window(None, None, now, 7200),
        (DAY - 86_400 - 7200, DAY - 7200)
    );
}

#[test]
fn given_times_round_to_hours() {
    let now = DAY + 20 * 3600;
    // 10:29:29 rounds down, 10:29:30 (a minute up, to 10:30) rounds up.
    let w = report_window(
        Some(DAY + 10 * 3600 + 29 * 60 + 29),
        Some(DAY + 12 * 3600),
        now,
        0,
    );
    assert_eq!(w, (DAY + 10 * 3600, DAY + 12 * 3600));
    let w = report_window(
        Some(DAY + 10 * 3600 + 29 * 60 + 30),
        Some(DAY + 12 * 3600),
        now,
        0,
    );
    assert_eq!(w, (DAY + 11 * 3600, DAY + 12 * 3600));
    // An end after now is now; a window under an hour is stretched to one.
    let w = report_window(Some(DAY + 19 * 3600), Some(DAY + 30 * 3600), now, 0);
    assert_eq!(w, (DAY + 19 * 3600, DAY + 20 * 3600));
    let w = report_window(Some(DAY), Some(DAY), now, 0);
    assert_eq!(w, (DAY, DAY + 3600));
}

#[test]
fn the_title_block() {
    let out = Output {
        header: true,
        ..Output::default()
    };
    let rule = "-".repeat(80);
    assert_eq!(
        title("Cluster Utilization", (DAY, DAY + 86_400), 0, out),
        format!("{rule}\nCluster Utilization 2026-12-07T00:00:00 - 2026-12-07T23:59:59\nUsage reported in CPU Minutes\n{rule}\n")
    );
    let percent = Output {
        time: TimeFormat::Percent,
        ..out
    };
    assert!(title("X", (DAY, DAY + 3600), 0, percent)
        .contains("\nUsage reported in Percentage of Total\n"));
    assert_eq!(title("X", (DAY, DAY + 3600), 0, Output::default()), "");
}

#[test]
fn job_allocations_clip_to_the_window() {
    let window = (DAY + 3600, DAY + 3 * 3600);
    // Ran 00:30-01:30 on 4 CPUs: 30 minutes inside, 4 * 1800 = 7200 CPU-seconds.
    assert_eq!(
        job_cpu_secs(&job(4, Some(DAY + 1800), Some(DAY + 5400)), window, NOW),
        7200
    );
    // Wholly before, never started, or wholly after: nothing.
    assert_eq!(
        job_cpu_secs(&job(4, Some(DAY), Some(DAY + 3600)), window, NOW),
        0
    );
    assert_eq!(job_cpu_secs(&job(4, None, None), window, NOW), 0);
    assert_eq!(
        job_cpu_secs(
            &job(4, Some(DAY + 4 * 3600), Some(DAY + 5 * 3600)),
            window,
            NOW
        ),
        0
    );
    // Still running at `now` (02:00): one hour inside on 2 CPUs.
    assert_eq!(
        job_cpu_secs(&job(2, Some(DAY), None), window, DAY + 2 * 3600),
        7200
    );
}

#[test]
fn cluster_numbers_by_hand() {
    // 2 hours of a 4-CPU cluster: 28,800 CPU-seconds. Jobs: 7200 + 3 * 3600 = 18,000 allocated, 10,800 idle.
    let window = (DAY, DAY + 7200);
    let jobs = [
        job(4, Some(DAY - 600), Some(DAY + 1800)),
        job(3, Some(DAY + 3600), Some(DAY + 9000)),
    ];
    let u = ClusterUsage::from_jobs(4, &jobs, window, NOW);
    assert_eq!(
        (u.allocated, u.idle, u.over, u.reported),
        (18_000, 10_800, 0, 28_800)
    );
    // More allocated than the capacity (an 8-CPU job on a cluster now of 4): the excess is over-committed.
    let big = [job(8, Some(DAY), Some(DAY + 7200))];
    let u = ClusterUsage::from_jobs(4, &big, window, NOW);
    assert_eq!((u.allocated, u.idle, u.over), (28_800, 0, 28_800));
}

#[test]
fn the_utilization_table() {
    let out = Output {
        header: true,
        ..Output::default()
    };
    let (fields, _) = cluster_fields(&[]);
    let head = "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported \n\
                --------- -------- -------- -------- -------- -------- -------- \n";
    assert_eq!(cluster_utilization("c1", None, &fields, 7200, out), head);
    let u = ClusterUsage::from_jobs(
        4,
        &[job(4, Some(DAY - 600), Some(DAY + 1800))],
        (DAY, DAY + 7200),
        NOW,
    );
    let text = cluster_utilization("c1", Some(&u), &fields, 7200, out);
    assert_eq!(
        text,
        format!("{head}       c1      120        0        0      360        0      480 \n")
    );
    let p2 = Output {
        layout: Layout::Parsable2,
        time: TimeFormat::Percent,
        header: true,
    };
    assert_eq!(
        cluster_utilization("c1", Some(&u), &fields, 7200, p2),
        "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported\nc1|25.00%|0.00%|0.00%|75.00%|0.00%|100.00%\n"
    );
    let p = Output {
        layout: Layout::Parsable,
        header: false,
        ..out
    };
    assert_eq!(
        cluster_utilization("c1", Some(&u), &fields, 7200, p),
        "c1|120|0|0|360|0|480|\n"
    );
}

#[test]
fn format_words() {
    let f = cluster_fields(&["cl".into(), "idle%12".into(), "tresc".into()]);
    assert_eq!(
        f,
        (
            vec![
                (ClusterField::Cluster, None),
                (ClusterField::Idle, Some(12)),
                (ClusterField::TresCount, None)
            ],
            vec![]
        )
    );
    assert_eq!(
        cluster_fields(&["bogus".into(), "i".into()]),
        (
            vec![(ClusterField::Idle, None)],
            vec![" Unknown field 'bogus'".to_string()]
        )
    );
    // No field left: the header is two empty lines, as Slurm prints it.
    let out = Output {
        header: true,
        ..Output::default()
    };
    assert_eq!(cluster_utilization("c1", None, &[], 3600, out), "\n\n");
    // A `%width` of a usage column gives way to the width sized to its numbers; others keep theirs.
    let (fields, _) = cluster_fields(&["cl%5".into(), "idle%12".into()]);
    assert_eq!(
        cluster_utilization("c1", None, &fields, 3600, out),
        "Clust     Idle \n----- -------- \n"
    );
}

/// Times a user can type (`start=`/`end=` far in the future or past) never overflow the window arithmetic.
#[test]
fn extreme_times_do_not_overflow() {
    let (s, e) = report_window(Some(i64::MAX - 10), Some(i64::MAX), i64::MAX, 50_400);
    assert!(e >= s);
    let (s, e) = report_window(Some(i64::MIN), Some(i64::MIN + 5), 0, -43_200);
    assert!(e >= s);
    assert_eq!(overlap(i64::MIN, i64::MAX, (0, 10)), 10);
    assert_eq!(overlap(i64::MAX, i64::MIN, (0, 10)), 0);
    let huge = job(u32::MAX, Some(i64::MIN), Some(i64::MAX));
    assert_eq!(job_cpu_secs(&huge, (0, 10), 0), 10 * u64::from(u32::MAX));
}
