//! What numbered (srun) steps used, in sacct: a step on two nodes, whose supervisors each sample and reap their
//! tasks and send srun their node's report, merged into one record with the node and task of each extreme; and a
//! step srun runs itself inside the batch script, whose CPU time is the step's and not the batch step's. Real
//! Slurm beside it (one node) is conformance cases 620-621.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{Cluster, ClusterOptions};

const NODE_B: &str = "spurtestb";

/// Two nodes sampling every second; jobs numbered apart from other tests' clusters on this host (the agents count
/// a step's processes by job id and node name).
fn two_nodes(first_job: u32) -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string()],
        extra_conf: format!(
            "FirstJobId={first_job}\nJobAcctGatherType=jobacct_gather/linux\nJobAcctGatherFrequency=1\n"
        ),
        ..ClusterOptions::default()
    })
}

/// `sacct -P -n -j STEP -o FIELDS`, split.
fn sacct(cluster: &Cluster, step: &str, fields: &str) -> Vec<String> {
    let out = cluster.ok("sacct", &["-P", "-n", "-j", step, "-o", fields]);
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{step}|")))
        .unwrap_or_else(|| panic!("no row {step} in {out}"));
    line.split('|').map(str::to_string).collect()
}

/// A size sacct printed (`123456K`, `120M`, `1.50G`) in MiB.
fn mib(text: &str) -> f64 {
    let (number, unit) = text.split_at(text.len().saturating_sub(1));
    let n: f64 = number
        .parse()
        .unwrap_or_else(|_| panic!("not a size: {text}"));
    match unit {
        "K" => n / 1024.0,
        "M" => n,
        "G" => n * 1024.0,
        _ => panic!("not a size: {text}"),
    }
}

/// `MM:SS.mmm` or `HH:MM:SS` in seconds.
fn secs(text: &str) -> f64 {
    text.split(':').fold(0.0, |acc, part| {
        acc * 60.0 + part.parse::<f64>().unwrap_or(0.0)
    })
}

#[test]
fn a_step_on_two_nodes_is_measured_on_each_and_merged() {
    let cluster = two_nodes(3_262_000);
    // Ranks 0 and 1 on the first node, 2 on the second (block); rank r holds (r + 1) * 30 MB for 3 s, so the
    // largest is task 2 on the second node and the smallest task 0 on the first.
    let job = cluster.submit_with_spur_srun(&[
        "-N2",
        "-n3",
        "-o",
        "/dev/null",
        "--wrap",
        "srun -N2 -n3 /usr/bin/python3 -c 'import os, time; \
         b = b\"x\" * ((int(os.environ[\"SLURM_PROCID\"]) + 1) * 30 << 20); time.sleep(3)'",
    ]);
    cluster.wait_for_end(job, Duration::from_secs(60));
    let step = format!("{job}.0");
    let row = sacct(
        &cluster,
        &step,
        "JobID,NTasks,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSizeNode,MaxVMSizeTask,TotalCPU,ConsumedEnergy",
    );
    assert_eq!(row[1], "3", "{row:?}");
    assert_eq!((row[3].as_str(), row[4].as_str()), (NODE_B, "2"), "{row:?}");
    assert!((90.0..140.0).contains(&mib(&row[2])), "MaxRSS: {row:?}");
    // Over the three tasks: about (40 + 70 + 100) / 3 MB.
    assert!((55.0..95.0).contains(&mib(&row[5])), "AveRSS: {row:?}");
    assert_eq!((row[6].as_str(), row[7].as_str()), (NODE_B, "2"), "{row:?}");
    assert!(secs(&row[8]) > 0.0, "TotalCPU: {row:?}");
    assert_eq!(row[9], "0", "{row:?}");
    let min = sacct(&cluster, &step, "JobID,MinCPUNode,TRESUsageInMinNode");
    assert!(min[2].contains("mem="), "{min:?}");
    assert!(
        min[2].contains(&format!("mem={}", cluster.node)),
        "the smallest memory is task 0's, on the first node: {min:?}"
    );
}

#[test]
fn a_step_srun_runs_itself_keeps_its_cpu_time_out_of_the_batch_step() {
    let cluster = two_nodes(3_263_000);
    let job = cluster.submit_with_spur_srun(&[
        "-o",
        "/dev/null",
        "--wrap",
        "srun -n1 /usr/bin/python3 -c 'import time\nwhile time.process_time() < 1.5: pass'",
    ]);
    cluster.wait_for_end(job, Duration::from_secs(60));
    let step = sacct(&cluster, &format!("{job}.0"), "JobID,TotalCPU");
    let batch = sacct(&cluster, &format!("{job}.batch"), "JobID,TotalCPU");
    let total = sacct(&cluster, &job.to_string(), "JobID,TotalCPU");
    assert!(secs(&step[1]) >= 1.5, "{step:?}");
    assert!(
        secs(&batch[1]) < 1.0,
        "the step's CPU left the batch step: {batch:?}"
    );
    // The job's row sums both, as slurmdbd's does.
    let sum = secs(&step[1]) + secs(&batch[1]);
    assert!(
        (secs(&total[1]) - sum).abs() < 0.01,
        "{total:?} {step:?} {batch:?}"
    );
}
