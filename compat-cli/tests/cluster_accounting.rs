//! Job accounting through a real single-node Spur cluster: jobs that completed, failed, were cancelled, ran an
//! array or several srun steps are purged from the live table after MinJobAge, the controller is killed and
//! restarted, and `sacct` still reports each with its state, exit code and steps. With
//! `AccountingStorageType=accounting_storage/none`, sacct says storage is disabled, as Slurm does.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{text, Cluster, ClusterOptions, LONG};

#[test]
fn sacct_reports_purged_jobs_after_a_controller_restart() {
    let mut cluster = Cluster::start_with(ClusterOptions {
        min_job_age: 2,
        extra_conf: "AccountingStorageType=accounting_storage/slurmdbd\n".to_string(),
        ..ClusterOptions::default()
    });
    let spur = cluster.spur_bin().display().to_string();
    let ok = cluster.wrap("true", &["-J", "ok"]);
    let bad = cluster.wrap("exit 3", &["-J", "bad"]);
    let steps = cluster.wrap(
        &format!("{spur} srun true; {spur} srun false; exit 0"),
        &["-J", "steps"],
    );
    let array = cluster.wrap("true", &["-J", "arr", "--array=1-2"]);
    let long = cluster.wrap("sleep 300", &["-J", "long"]);
    cluster.wait_for_state(long, "RUNNING", LONG);
    cluster.ok("scancel", &[&long.to_string()]);
    // The array's tasks end before the purge below, which waits for an empty queue.
    for job in [ok, bad, steps, array, long] {
        cluster.wait_for_end(job, LONG);
    }
    // MinJobAge (2 s) later the live table forgets them; accounting keeps them.
    cluster.expect_within(LONG, "the jobs to be purged from squeue", || {
        cluster.squeue("%i", &["-t", "all"]).is_empty()
    });
    cluster.crash_controller();
    cluster.restart_controller();

    // Jobs in submission order; the array is asked apart, since sacct lists array tasks after the plain jobs
    // submitted in the same second.
    let ids = format!("{ok},{bad},{steps},{long}");
    let listing = cluster.ok(
        "sacct",
        &[
            "-j",
            &ids,
            "-P",
            "-o",
            "JobID,JobName,State,ExitCode,DerivedExitCode",
        ],
    );
    let expected = [
        "JobID|JobName|State|ExitCode|DerivedExitCode".to_string(),
        format!("{ok}|ok|COMPLETED|0:0|0:0"),
        format!("{ok}.batch|batch|COMPLETED|0:0|"),
        format!("{bad}|bad|FAILED|3:0|0:0"),
        format!("{bad}.batch|batch|FAILED|3:0|"),
        format!("{steps}|steps|COMPLETED|0:0|1:0"),
        format!("{steps}.batch|batch|COMPLETED|0:0|"),
        format!("{steps}.0|true|COMPLETED|0:0|"),
        format!("{steps}.1|false|FAILED|1:0|"),
        format!("{long}|long|CANCELLED by 0|0:0|0:0"),
        format!("{long}.batch|batch|CANCELLED|0:15|"),
    ];
    assert_eq!(listing.lines().collect::<Vec<_>>(), expected, "{listing}");
    let tasks = cluster.ok(
        "sacct",
        &[
            "-j",
            &array.to_string(),
            "-P",
            "-o",
            "JobID,JobIDRaw,JobName,State",
        ],
    );
    // Task 1 got a job id of its own as it started (the next free one then); task 2, the last to start, the
    // array's.
    let first_raw: u32 = tasks
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{array}_1|")))
        .and_then(|rest| rest.split('|').next())
        .and_then(|raw| raw.parse().ok())
        .unwrap_or_else(|| panic!("no raw id of task 1 in {tasks}"));
    assert!(first_raw > array, "{tasks}");
    assert_eq!(
        tasks,
        format!(
            "JobID|JobIDRaw|JobName|State\n{array}_1|{first_raw}|arr|COMPLETED\n\
             {array}_1.batch|{first_raw}.batch|batch|COMPLETED\n{array}_2|{array}|arr|COMPLETED\n\
             {array}_2.batch|{array}.batch|batch|COMPLETED\n"
        )
    );

    // What submitit and Snakemake's executor ask.
    let submitit = cluster.ok(
        "sacct",
        &[
            "-o",
            "JobID,State,NodeList",
            "--parsable2",
            "-j",
            &bad.to_string(),
        ],
    );
    let node = common::short_hostname();
    assert_eq!(
        submitit,
        format!("JobID|State|NodeList\n{bad}|FAILED|{node}\n{bad}.batch|FAILED|{node}\n")
    );
    let snakemake = cluster.ok(
        "sacct",
        &[
            "-X",
            "--parsable2",
            "--noheader",
            "--format=JobIdRaw,State",
            "--name",
            "steps",
        ],
    );
    assert_eq!(snakemake, format!("{steps}|COMPLETED\n"));
    let one_step = cluster.ok(
        "sacct",
        &["-n", "-P", "-o", "JobID,State", "-j", &format!("{steps}.1")],
    );
    assert_eq!(one_step, format!("{steps}.1|FAILED\n"));
}

#[test]
fn sacct_says_storage_is_disabled_with_accounting_storage_none() {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: "AccountingStorageType=accounting_storage/none\n".to_string(),
        ..ClusterOptions::default()
    });
    let job = cluster.wrap("true", &[]);
    cluster.wait_for_end(job, LONG);
    for args in [&[][..], &["-j", "1"][..]] {
        let out = cluster.run("sacct", args);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(text(&out.stdout), "");
        assert_eq!(text(&out.stderr), "Slurm accounting storage is disabled\n");
    }
    // The live table still answers squeue; only accounting is off.
    assert_eq!(cluster.squeue("%i", &["-t", "all"]), [job.to_string()]);
}
