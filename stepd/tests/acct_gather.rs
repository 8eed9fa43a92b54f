//! `jobacct_gather` in the batch supervisor: the real `spurstepd` runs a script that burns CPU and holds memory,
//! samples it every second, and reports the batch step's usage with its result.

// Test code: a failed unwrap or expect is the test failing with its message (as in the other suites here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::TestJob;
use spur_core::model::step_acct::AcctGather;

#[test]
fn the_result_carries_the_batch_steps_cpu_time_and_peak_memory() {
    let mut job = TestJob::new(
        "acct",
        "end=$((SECONDS+2)); while [ $SECONDS -lt $end ]; do :; done\n\
         /usr/bin/python3 -c 'import time; b = b\"x\" * (100 << 20); time.sleep(2.5)'",
    );
    job.spec.acct_gather = Some(AcctGather {
        frequency_secs: 1,
        cgroup: false,
    });
    // The sampler finds a job's processes by their SLURM_JOB_ID (and owner): a job id of its own keeps other
    // tests' jobs, running at the same time under the common id, out of the figures.
    job.spec.job_id = 4141;
    for (name, value) in &mut job.spec.env {
        if name == "SLURM_JOB_ID" {
            *value = "4141".into();
        }
    }
    job.launch();
    let result = job.wait_result();
    assert_eq!(result.exit_code, Some(0), "{}", job.stderr());
    let usage = result.usage.expect("usage measured");
    let t = &usage.totals;
    // The busy loop runs for 1 to 2 s of wall time (SECONDS ticks on whole seconds), nearly all of it on a CPU.
    let total_ms = usage.total_cpu_us() / 1000;
    assert!((700..=6000).contains(&total_ms), "TotalCPU {total_ms} ms");
    assert!(usage.user_cpu_us > usage.sys_cpu_us, "{usage:?}");
    assert_eq!(t.tasks, 1);
    assert_eq!((t.rss_kib.max.node.as_str(), t.rss_kib.max.task), ("vm", 0));
    // 100 MiB touched by python; the samples (or the reaped process's own peak) see it.
    assert!(
        (95 * 1024..=200 * 1024).contains(&t.rss_kib.max.value),
        "MaxRSS {} KiB",
        t.rss_kib.max.value
    );
    assert!(t.vmem_kib.max.value >= t.rss_kib.max.value);
    assert_eq!(t.cpu_ms.max.value, total_ms);
}

#[test]
fn no_gathering_without_the_setting() {
    let job = TestJob::new("noacct", "true");
    job.launch();
    let result = job.wait_result();
    assert_eq!(result.usage, None);
}
