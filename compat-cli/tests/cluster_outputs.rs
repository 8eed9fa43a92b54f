//! The reference session of real Slurm 22.05 replayed on a Spur cluster shaped like it (2 CPUs, RealMemory=23593,
//! DefMemPerCPU=1024, `FirstJobId` so job ids line up), comparing squeue, scontrol and sbatch output with the
//! captures after normalising what changes from run to run: times, elapsed times, priorities, the submit
//! directory, the host name and the allocating session.

mod common;

use std::path::Path;

use common::{text, Cluster, ClusterOptions, LONG};

fn capture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../core/tests/golden/slurm-22.05")
        .join(name);
    let full = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = full.lines().skip_while(|l| *l != "--- stdout ---").skip(1);
    let mut out = String::new();
    for line in lines.by_ref() {
        if line == "--- stderr ---" {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn reference_cluster(first_job_id: u32) -> Cluster {
    Cluster::start_with(ClusterOptions {
        cpus: 2,
        memory_mb: 23593,
        def_mem_per_cpu: 1024,
        extra_conf: format!("FirstJobId={first_job_id}\n"),
        ..ClusterOptions::default()
    })
}

/// Masks what differs between two runs of the same commands.
fn normalise(text: &str, submit_dir: Option<&Path>, host: &str) -> String {
    let mut text = text.to_string();
    if let Some(dir) = submit_dir {
        text = text.replace(&dir.display().to_string(), "$SUBMIT_DIR");
    }
    let mut out = String::new();
    for line in text.lines() {
        let line = if host != "vm" {
            line.replace(&format!("={host}"), "=vm")
                .replace(&format!(" {host} "), " vm ")
                .replace(&format!(" {host}"), " vm")
        } else {
            line.to_string()
        };
        let words: Vec<String> = line
            .split(' ')
            .map(|w| {
                let (key, value) = w.split_once('=').unwrap_or(("", w));
                match key {
                    "Priority" | "RunTime" | "AllocNode:Sid" | "LastSchedEval" => {
                        format!("{key}=*")
                    }
                    _ if is_timestamp(value) => format!("{}{{TIME}}", &w[..w.len() - value.len()]),
                    _ => w.to_string(),
                }
            })
            .collect();
        out.push_str(&mask_elapsed(&mask_date_line(&words.join(" "))));
        out.push('\n');
    }
    out
}

fn is_timestamp(text: &str) -> bool {
    text.len() == 19
        && text.char_indices().all(|(i, c)| match i {
            4 | 7 => c == '-',
            10 => c == 'T',
            13 | 16 => c == ':',
            _ => c.is_ascii_digit(),
        })
}

/// `squeue -l` starts with the current date (`Mon Nov 30 14:58:05 2026`).
fn mask_date_line(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let weekday = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    if words.len() == 5 && weekday.contains(&words[0]) && words[3].len() == 8 {
        "{DATE}".to_string()
    } else {
        line.to_string()
    }
}

/// A running job's elapsed time in squeue's TIME column (`0:02`): any `M:SS` right before the node count.
fn mask_elapsed(line: &str) -> String {
    if !(line.contains(" R ") || line.contains(" RUNNING ")) {
        return line.to_string();
    }
    let mut out: Vec<String> = Vec::new();
    for word in line.split(' ') {
        let is_elapsed = word.len() >= 4
            && word.contains(':')
            && word.chars().all(|c| c.is_ascii_digit() || c == ':')
            && word != "10:00";
        out.push(if is_elapsed {
            "#".repeat(word.len())
        } else {
            word.to_string()
        });
    }
    out.join(" ")
}

/// Lines of a capture that Spur does not reproduce yet, by capture and the line's start: known gaps, reported
/// when the suite runs. A listed line that starts to match fails the test, so the list stays honest.
const KNOWN_GAPS: &[(&str, &str, &str)] = &[
    (
        "50-squeue-start.txt",
        "                23 ",
        "no start-time estimate for pending jobs (Slurm's backfill plans one)",
    ),
    (
        "56-scontrol-show-job-pending-resources.txt",
        "   StartTime=",
        "no start-time estimate for pending jobs (Slurm's backfill plans one)",
    ),
    (
        "56-scontrol-show-job-pending-resources.txt",
        "   SuspendTime=",
        "Scheduler=Backfill:* needs a backfill scheduler",
    ),
    (
        "56-scontrol-show-job-pending-resources.txt",
        "   NodeList=",
        "SchedNodeList= comes from backfill planning",
    ),
];

/// Compares line by line; the error lists every differing line that is not a known gap.
fn same(what: &str, ours: &str, theirs: &str) -> Result<(), String> {
    let ours_lines: Vec<&str> = ours.lines().collect();
    let theirs_lines: Vec<&str> = theirs.lines().collect();
    let mut report = String::new();
    for i in 0..ours_lines.len().max(theirs_lines.len()) {
        let (o, t) = (ours_lines.get(i), theirs_lines.get(i));
        let gap = KNOWN_GAPS.iter().find(|(capture, prefix, _)| {
            *capture == what && t.is_some_and(|t| t.starts_with(prefix))
        });
        match (o == t, gap) {
            (true, None) => {}
            (true, Some((_, prefix, _))) => {
                report.push_str(&format!("  known gap now matches, remove it: {prefix:?}\n"))
            }
            (false, Some((_, _, why))) => {
                eprintln!("{what}: known gap ({why}):\n  slurm: {t:?}\n  spur:  {o:?}")
            }
            (false, None) => report.push_str(&format!("  slurm: {t:?}\n  spur:  {o:?}\n")),
        }
    }
    if report.is_empty() {
        Ok(())
    } else {
        Err(format!("{what} differs from Slurm's capture:\n{report}"))
    }
}

fn assert_same(what: &str, ours: &str, theirs: &str) {
    if let Err(e) = same(what, ours, theirs) {
        panic!("{e}");
    }
}

/// Replaces the number `from` by `to` wherever it stands alone (not inside a longer number).
fn replace_number(text: &str, from: u32, to: u32) -> String {
    let from = from.to_string();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(|c| c.is_ascii_digit()) || after.is_some_and(|c| c.is_ascii_digit()) {
            out.push_str(&from);
        } else {
            out.push_str(&to.to_string());
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

#[test]
fn failed_job_and_wrap_output_match_the_captures() {
    let cluster = reference_cluster(2);
    let dir = cluster.subdir("submit");
    let host = cluster.node.clone();
    // 14, 15: --wrap with its default output file.
    let out = cluster.run_in(
        &dir,
        "sbatch",
        &[
            "--job-name=wrapjob",
            "--ntasks=1",
            "--time=1",
            "--wrap",
            "echo wrapped; hostname",
        ],
    );
    assert_eq!(text(&out.stdout), capture("14-sbatch-wrap.txt"));
    assert_eq!(cluster.wait_for_end(2, LONG), "COMPLETED");
    let output = std::fs::read_to_string(dir.join("slurm-2.out")).unwrap();
    assert_eq!(
        normalise(
            &format!("{}\n{output}", dir.join("slurm-2.out").display()),
            Some(&dir),
            &host
        ),
        capture("15-wrap-output-default-name.txt")
    );
    // 16: --parsable.
    let out = cluster.run_in(&dir, "sbatch", &["--parsable", "--wrap", "true"]);
    assert_eq!(text(&out.stdout), capture("16-sbatch-parsable.txt"));
    // 04 was the srun job; keep ids in step with the capture.
    let out = cluster.run_in(&dir, "sbatch", &["--parsable", "--wrap", "true"]);
    assert_eq!(text(&out.stdout), "4\n");
    // 20, 21: a failing job.
    let out = cluster.run_in(&dir, "sbatch", &["--job-name=fail3", "--wrap", "exit 3"]);
    assert_eq!(text(&out.stdout), capture("20-sbatch-exit3.txt"));
    assert_eq!(cluster.wait_for_end(5, LONG), "FAILED");
    let shown = cluster.ok("scontrol", &["show", "job", "5"]);
    assert_same(
        "scontrol show job (failed)",
        &normalise(&shown, Some(&dir), &host),
        &normalise(&capture("21-scontrol-show-job-failed.txt"), None, "vm"),
    );
}

#[test]
fn queue_of_running_pending_held_and_dependent_jobs_matches_the_captures() {
    let cluster = reference_cluster(21);
    let dir = cluster.subdir("submit");
    let host = cluster.node.clone();
    let sbatch = |args: &[&str]| {
        let out = cluster.run_in(&dir, "sbatch", args);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    assert_eq!(
        sbatch(&[
            "--job-name=sleeper",
            "-n1",
            "--time=10",
            "--wrap",
            "sleep 300"
        ]),
        capture("40-sbatch-sleep1.txt")
    );
    assert_eq!(
        sbatch(&[
            "--job-name=sleeper",
            "-n1",
            "--time=10",
            "--wrap",
            "sleep 300"
        ]),
        capture("41-sbatch-sleep2.txt")
    );
    cluster.wait_for_state(22, "RUNNING", LONG);
    assert_eq!(
        sbatch(&["--job-name=waiter", "-n2", "--wrap", "true"]),
        capture("42-sbatch-pending.txt")
    );
    let arr_out = format!("{}/arr-%A_%a.out", dir.display());
    assert_eq!(
        sbatch(&[
            "--job-name=arr",
            "--array=1-3",
            "-o",
            &arr_out,
            "--wrap",
            "echo task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_JOB_ID",
        ]),
        capture("43-sbatch-array-pending.txt")
    );
    // Spur numbers array tasks at submit (docs/compatibility.md): the array took 24-26, so `dep` and `held`
    // are 27 and 28 where Slurm had 25 and 26.
    let dep = sbatch(&[
        "--parsable",
        "--job-name=dep",
        "--dependency=afterok:21",
        "--wrap",
        "true",
    ]);
    let held = sbatch(&["--parsable", "--job-name=held", "--hold", "--wrap", "true"]);
    assert_eq!((dep.as_str(), held.as_str()), ("27\n", "28\n"));
    let renumber = |text: String| replace_number(&replace_number(&text, 27, 25), 28, 26);
    cluster.expect_within(LONG, "the waiter to pend on Resources", || {
        cluster.job_field(23, "Reason") == "Resources"
    });
    let cases: &[(&str, &[&str])] = &[
        ("46-squeue.txt", &[]),
        ("47-squeue-l.txt", &["-l"]),
        (
            "48-squeue-o.txt",
            &["-o", "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"],
        ),
        ("49-squeue-h-i.txt", &["-h", "-o", "%i %A %F %K %T %r"]),
        ("51-squeue-t-PD.txt", &["-t", "PD"]),
        ("52-squeue-r.txt", &["-r"]),
        (
            "54-squeue-O.txt",
            &[
                "-O",
                "JobID:12,Name:10,State:10,Reason:20,NumCPUs:6,TimeLimit:12",
            ],
        ),
        ("50-squeue-start.txt", &["--start"]),
    ];
    let mut failures = Vec::new();
    for (name, args) in cases {
        let ours = renumber(cluster.ok("squeue", args));
        let ours = normalise(&ours, Some(&dir), &host);
        let theirs = normalise(&capture(name), None, "vm");
        if let Err(e) = same(name, &ours, &theirs) {
            failures.push(e);
        }
    }
    for (name, job) in [
        ("55-scontrol-show-job-running.txt", "21"),
        ("56-scontrol-show-job-pending-resources.txt", "23"),
        ("58-scontrol-show-job-dependency.txt", "27"),
    ] {
        let ours = renumber(cluster.ok("scontrol", &["show", "job", job]));
        let ours = normalise(&ours, Some(&dir), &host);
        let theirs = normalise(&capture(name), None, "vm");
        if let Err(e) = same(name, &ours, &theirs) {
            failures.push(e);
        }
    }

    // 70: an admin hold, then a rename and a new time limit while held, then the release.
    let hold_capture = capture("70-scontrol-hold-update.txt");
    let (squeue_part, show_part) = hold_capture.split_at(
        hold_capture
            .find("JobId=")
            .expect("show job part of the capture"),
    );
    cluster.ok("scontrol", &["hold", "23"]);
    let ours = normalise(&cluster.ok("squeue", &["-j", "23"]), Some(&dir), &host);
    if let Err(e) = same("70-scontrol-hold-update.txt", &ours, squeue_part) {
        failures.push(e);
    }
    cluster.ok(
        "scontrol",
        &["update", "jobid=23", "TimeLimit=5", "Name=renamed"],
    );
    cluster.ok("scontrol", &["release", "23"]);
    // Slurm had run no scheduling pass since the release (Reason=None, EligibleTime=Unknown); Spur schedules
    // at once, so these two depend on timing.
    let ours = head(&cluster.ok("scontrol", &["show", "job", "23"]), 7);
    let racy = ["Reason", "EligibleTime"];
    if let Err(e) = same(
        "70-scontrol-hold-update.txt",
        &mask_keys(&normalise(&ours, Some(&dir), &host), &racy),
        &mask_keys(&normalise(show_part, None, "vm"), &racy),
    ) {
        failures.push(e);
    }

    // 71: a cancelled running job; 73: its afterok dependent can never run.
    cluster.ok("scancel", &["21"]);
    assert_eq!(cluster.wait_for_end(21, LONG), "CANCELLED");
    let ours = head(&cluster.ok("scontrol", &["show", "job", "21"]), 6);
    if let Err(e) = same(
        "71-scancel-running.txt",
        &normalise(&ours, Some(&dir), &host),
        &normalise(&capture("71-scancel-running.txt"), None, "vm"),
    ) {
        failures.push(e);
    }
    cluster.expect_within(LONG, "the dependent job to be never satisfied", || {
        cluster.job_field(27, "Reason") == "DependencyNeverSatisfied"
    });
    let ours = renumber(head(&cluster.ok("scontrol", &["show", "job", "27"]), 6));
    let theirs = head(&capture("73-scancel-then-dependency.txt"), 6);
    if let Err(e) = same(
        "73-scancel-then-dependency.txt",
        &normalise(&ours, Some(&dir), &host),
        &normalise(&theirs, None, "vm"),
    ) {
        failures.push(e);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    cluster.ok("scancel", &["-u", "root"]);
}

/// Replaces the values of `Key=value` words for the given keys by `*`.
fn mask_keys(text: &str, keys: &[&str]) -> String {
    text.lines()
        .map(|line| {
            let words: Vec<String> = line
                .split(' ')
                .map(|w| match w.split_once('=') {
                    Some((k, _)) if keys.contains(&k) => format!("{k}=*"),
                    _ => w.to_string(),
                })
                .collect();
            format!("{}\n", words.join(" "))
        })
        .collect()
}

/// The first `n` lines, as `| head -n` keeps them.
fn head(text: &str, n: usize) -> String {
    text.lines().take(n).map(|l| format!("{l}\n")).collect()
}
