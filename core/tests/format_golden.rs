//! Golden tests: records matching the reference Slurm 22.05 cluster rendered by `spur_core::format` must equal
//! the captured output of real `squeue`, `sinfo` and `scontrol` byte for byte.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use pretty_assertions::assert_eq;
use spur_core::format::scontrol_config::{ConfigExtras, ConfigSection};
use spur_core::format::sinfo::SinfoOptions;
use spur_core::format::squeue::SqueueOptions;
use spur_core::format::{
    json, scontrol_config, scontrol_job, scontrol_node, scontrol_partition, sinfo, squeue,
};
use spur_core::model::records::ClusterConfig;
use spur_core::model::states::{JobBaseState, JobReason};
use support::*;

fn live() -> Vec<spur_core::model::job::JobRecord> {
    jobs("live", REAL_DIR)
}

fn squeue_at(now: i64, opts: &SqueueOptions) -> String {
    squeue::render(&live(), opts, &ctx(T0 + now))
}

#[test]
fn squeue_default() {
    assert_eq!(
        squeue_at(684, &SqueueOptions::default()),
        capture("46-squeue.txt")
    );
}

#[test]
fn squeue_long() {
    assert_eq!(
        squeue_at(685, &SqueueOptions::long()),
        capture("47-squeue-l.txt")
    );
}

#[test]
fn squeue_explicit_default_format() {
    let opts = SqueueOptions::default().with_format("%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R");
    assert_eq!(squeue_at(685, &opts), capture("48-squeue-o.txt"));
}

#[test]
fn squeue_no_header_ids() {
    let opts = SqueueOptions {
        no_header: true,
        ..SqueueOptions::default().with_format("%i %A %F %K %T %r")
    };
    assert_eq!(squeue_at(685, &opts), capture("49-squeue-h-i.txt"));
}

#[test]
fn squeue_start() {
    assert_eq!(
        squeue_at(685, &SqueueOptions::start()),
        capture("50-squeue-start.txt")
    );
}

#[test]
fn squeue_pending_only() {
    let opts = SqueueOptions::default().with_states("PD").unwrap();
    assert_eq!(squeue_at(685, &opts), capture("51-squeue-t-PD.txt"));
}

#[test]
fn squeue_array_expanded() {
    let opts = SqueueOptions {
        expand_arrays: true,
        ..SqueueOptions::default()
    };
    assert_eq!(squeue_at(685, &opts), capture("52-squeue-r.txt"));
}

#[test]
fn squeue_long_format() {
    let opts = SqueueOptions::default()
        .with_long_format("JobID:12,Name:10,State:10,Reason:20,NumCPUs:6,TimeLimit:12");
    assert_eq!(squeue_at(685, &opts), capture("54-squeue-O.txt"));
}

#[test]
fn squeue_json_all_jobs() {
    let mut all: Vec<_> = jobs("final", REAL_DIR)
        .into_iter()
        .filter(|j| j.job_id <= 20)
        .collect();
    all.extend(jobs("live", REAL_DIR));
    assert_eq!(
        json::squeue_json(&all, &ctx(T0 + 685)),
        capture("53-squeue-json.txt")
    );
}

/// Like the capture tool, the submit directory is replaced by `$SUBMIT_DIR` after rendering.
fn as_captured(text: String) -> String {
    text.replace(REAL_DIR, SUBMIT_DIR)
}

fn show_jobs(
    snapshot: Vec<spur_core::model::job::JobRecord>,
    ids: &[u32],
    now: i64,
    one_liner: bool,
) -> String {
    as_captured(scontrol_job::render(
        &pick(&snapshot, ids),
        one_liner,
        &ctx(T0 + now),
    ))
}

#[test]
fn scontrol_job_live() {
    assert_eq!(
        show_jobs(live(), &[21], 685, false),
        capture("55-scontrol-show-job-running.txt")
    );
    assert_eq!(
        show_jobs(live(), &[23], 685, false),
        capture("56-scontrol-show-job-pending-resources.txt")
    );
    assert_eq!(
        show_jobs(live(), &[24, 27, 28], 685, false),
        capture("57-scontrol-show-job-array-pending.txt")
    );
    assert_eq!(
        show_jobs(live(), &[25], 685, false),
        capture("58-scontrol-show-job-dependency.txt")
    );
    assert_eq!(
        show_jobs(live(), &[21], 685, true),
        capture("59-scontrol-show-job-oneliner.txt")
    );
}

#[test]
fn scontrol_job_final() {
    let finals = || jobs("final", REAL_DIR);
    assert_eq!(
        show_jobs(finals(), &[1], 800, false),
        capture("13-scontrol-show-job-completed.txt")
    );
    assert_eq!(
        show_jobs(finals(), &[5], 800, false),
        capture("21-scontrol-show-job-failed.txt")
    );
    assert_eq!(
        show_jobs(finals(), &[24, 28, 27], 800, false),
        capture("77-scontrol-show-job-array-done.txt")
    );
    let all: Vec<u32> = finals().iter().map(|j| j.job_id).collect();
    assert_eq!(
        show_jobs(finals(), &all, 800, false),
        capture("B1-scontrol-show-job-all.txt")
    );
}

#[test]
fn scontrol_job_pending_early() {
    let mut job = pick(&jobs("final", REAL_DIR), &[1]).remove(0);
    job.state = JobBaseState::Pending;
    job.accrue_time = None;
    job.start_time = None;
    job.end_time = None;
    job.last_sched_eval = Some(job.submit_time);
    job.alloc = None;
    assert_eq!(
        as_captured(scontrol_job::render(&[job], false, &ctx(T0 + 655))),
        capture("11-scontrol-show-job-early.txt")
    );

    let mut job = pick(&jobs("final", REAL_DIR), &[39]).remove(0);
    job.state = JobBaseState::Pending;
    job.reason = JobReason::NoReason;
    job.accrue_time = None;
    job.start_time = None;
    job.end_time = None;
    job.last_sched_eval = Some(job.submit_time);
    job.alloc = None;
    assert_eq!(
        as_captured(scontrol_job::render(&[job], false, &ctx(T0 + 701))),
        capture("95-gres-show-job.txt")
    );
}

fn debug() -> Vec<spur_core::model::records::PartitionRecord> {
    vec![partition("debug", &["vm"])]
}

fn sinfo_vm(node: spur_core::model::records::NodeRecord, now: i64, opts: &SinfoOptions) -> String {
    sinfo::render(&[node], &debug(), opts, &ctx(T0 + now))
}

#[test]
fn sinfo_idle_single_node() {
    let o = |opts: SinfoOptions, now| sinfo_vm(vm_node(), now, &opts);
    assert_eq!(o(SinfoOptions::default(), 654), capture("01-sinfo.txt"));
    assert_eq!(
        o(SinfoOptions::node(true), 654),
        capture("02-sinfo-N-l.txt")
    );
    assert_eq!(
        o(
            SinfoOptions::default().with_format("%P %a %l %D %t %N"),
            654
        ),
        capture("03-sinfo-o.txt")
    );
    assert_eq!(o(SinfoOptions::summarize(), 654), capture("04-sinfo-s.txt"));
    assert_eq!(o(SinfoOptions::node(false), 654), capture("05-sinfo-N.txt"));
    let custom = SinfoOptions {
        no_header: true,
        node_oriented: true,
        ..SinfoOptions::default().with_format("%N|%T|%c|%m|%G|%C|%e|%f|%P")
    };
    assert_eq!(o(custom, 654), capture("06-sinfo-custom.txt"));
    assert_eq!(o(SinfoOptions::long(), 655), capture("08-sinfo-l.txt"));
    assert_eq!(
        o(SinfoOptions::list_reasons(false), 655),
        capture("09-sinfo-R.txt")
    );
}

#[test]
fn sinfo_busy_node() {
    let out = sinfo_vm(vm_node_busy(), 685, &SinfoOptions::default())
        + &sinfo_vm(vm_node_busy(), 685, &SinfoOptions::node(true));
    assert_eq!(out, capture("65-sinfo-busy.txt"));
}

#[test]
fn sinfo_json_single_node() {
    assert_eq!(
        json::sinfo_json(&[vm_node()], &ctx(T0 + 655)),
        capture("07-sinfo-json.txt")
    );
}

#[test]
fn gres_node_views() {
    let node = spur_core::model::records::NodeRecord {
        last_busy_time: Some(T0 + 701),
        ..vm_node()
    };
    let out = scontrol_node::render(std::slice::from_ref(&node), false, &ctx(T0 + 705))
        + &sinfo_vm(
            node.clone(),
            705,
            &SinfoOptions::default().with_format("%N %G %C"),
        )
        + &sinfo_vm(
            node,
            705,
            &SinfoOptions::default().with_long_format("NodeList,Gres:30,GresUsed:40"),
        );
    assert_eq!(out, capture("96-gres-show-node.txt"));
}

#[test]
fn scontrol_node_busy() {
    let node = [vm_node_busy()];
    assert_eq!(
        scontrol_node::render(&node, false, &ctx(T0 + 685)),
        capture("60-scontrol-show-node.txt")
    );
    assert_eq!(
        scontrol_node::render(&node, true, &ctx(T0 + 685)),
        capture("61-scontrol-show-node-o.txt")
    );
}

#[test]
fn scontrol_partition_debug() {
    let out = scontrol_partition::render(&debug(), &[vm_node_busy()], false, &ctx(T0 + 685));
    assert_eq!(out, capture("62-scontrol-show-partition.txt"));
}

#[test]
fn multinode_sinfo_and_node() {
    let nodes = batch_nodes();
    let parts = vec![partition("batch", &["n1", "n2", "n3"])];
    let at = |now: i64, opts: &SinfoOptions| sinfo::render(&nodes, &parts, opts, &ctx(T0 + now));
    let ports = at(-710, &SinfoOptions::default()) + &at(-710, &SinfoOptions::node(true));
    assert_eq!(ports, capture("ports-01-sinfo.txt"));
    let netns = at(-672, &SinfoOptions::default())
        + &at(-672, &SinfoOptions::node(true))
        + &scontrol_node::render(&nodes[1..2], false, &ctx(T0 - 672));
    let expected = capture("netns-01-sinfo.txt");
    assert_eq!(netns, expected);
}

/// The configuration entries as the controller would hold them: the capture's keys without those scontrol
/// computes, in reverse order to show that rendering restores Slurm's order.
fn config_from_capture(text: &str) -> (ClusterConfig, ConfigExtras) {
    let main = text.split("\n\n").next().unwrap();
    let computed = [
        "BOOT_TIME",
        "HASH_VAL",
        "MULTIPLE_SLURMD",
        "NEXT_JOB_ID",
        "SLURM_CONF",
        "SLURM_VERSION",
    ];
    let mut entries: Vec<(String, String)> = main
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(" = "))
        .map(|(k, v)| (k.trim_end().to_string(), v.to_string()))
        .filter(|(k, _)| !computed.contains(&k.as_str()))
        .collect();
    entries.reverse();
    let config = ClusterConfig {
        cluster_name: "refcluster".into(),
        controllers: vec!["vm(127.0.0.1)".into()],
        entries,
        boot_time: T0 + 654,
    };
    let mpi = text
        .split("MPI Plugins Configuration:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    let extras = ConfigExtras {
        next_job_id: 27,
        conf_path: "/etc/slurm/slurm.conf".into(),
        version: "22.05.8".into(),
        sections: vec![ConfigSection {
            title: "MPI Plugins Configuration:".into(),
            entries: mpi
                .lines()
                .filter_map(|l| l.split_once(" = "))
                .map(|(k, v)| (k.trim_end().to_string(), v.to_string()))
                .collect(),
        }],
        status: vec!["Slurmctld(primary) at vm is UP".into()],
    };
    (config, extras)
}

#[test]
fn scontrol_config() {
    let expected = capture("63-scontrol-show-config.txt");
    let (config, extras) = config_from_capture(&expected);
    assert_eq!(
        scontrol_config::render(&config, &extras, &ctx(T0 + 685)),
        expected
    );
}
