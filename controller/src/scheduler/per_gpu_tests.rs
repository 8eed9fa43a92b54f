//! Jobs sized by their GPUs (`--cpus-per-gpu`, `--mem-per-gpu`) on the pure scheduler: the CPUs and memory they
//! book on each node follow the GPUs they get there, which decides what else fits beside them.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::SlurmErrno;

use super::scenario::{job, node, partition, Scenario};
use crate::state::Settings;

const T0: EpochSecs = 1_000_020;

fn cluster() -> Scenario {
    let names = vec!["g1".to_string()];
    let parts = vec![partition("gpu", &names, true)];
    Scenario::new(
        vec![node("g1", 8, 16_000, 4)],
        parts,
        Settings::default(),
        T0,
    )
    .unwrap()
}

fn gpu_job(gpus: u64) -> JobSpec {
    let mut spec = job(1, 1000, gpus, Some(60));
    spec.mem_per_node_mb = None;
    spec.ntasks = None;
    spec
}

fn booked(s: &Scenario, id: u32) -> (u32, u64) {
    let j = &s.state.jobs[&id];
    assert_eq!(j.state, JobBaseState::Running, "job {id}: {:?}", j.reason);
    let alloc = j.alloc.as_ref().unwrap();
    (alloc.cpus, alloc.mem_mb)
}

#[test]
fn cpus_and_memory_follow_the_gpus_on_the_node() {
    let mut s = cluster();
    let mut by_cpus = gpu_job(2);
    by_cpus.cpus_per_gpu = Some(3);
    by_cpus.mem_per_cpu_mb = Some(100);
    let mut by_mem = gpu_job(1);
    by_mem.mem_per_gpu_mb = Some(5000);
    let a = s.submit(by_cpus).unwrap();
    let b = s.submit(by_mem).unwrap();
    s.pass().unwrap();
    // Six CPUs for two GPUs, memory per CPU over them; 5,000 MB for one GPU on a single CPU.
    assert_eq!(booked(&s, a), (6, 600));
    assert_eq!(booked(&s, b), (1, 5000));
    // Seven of eight CPUs taken: a third job sized by its one GPU at two CPUs waits.
    let mut more = gpu_job(1);
    more.cpus_per_gpu = Some(2);
    more.mem_per_cpu_mb = Some(100);
    let c = s.submit(more).unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&c].state, JobBaseState::Pending);
    s.finish(b).unwrap();
    s.pass().unwrap();
    assert_eq!(booked(&s, c).0, 2);
}

#[test]
fn tasks_count_when_they_need_more_cpus_than_the_gpus() {
    let mut s = cluster();
    let mut spec = gpu_job(1);
    spec.cpus_per_gpu = Some(2);
    spec.ntasks = Some(3);
    let id = s.submit(spec).unwrap();
    s.pass().unwrap();
    assert_eq!(booked(&s, id).0, 3);
}

#[test]
fn a_job_sized_beyond_any_node_is_refused() {
    let mut s = cluster();
    let mut cpus = gpu_job(2);
    cpus.cpus_per_gpu = Some(5);
    let mut mem = gpu_job(4);
    mem.mem_per_gpu_mb = Some(5000);
    for spec in [cpus, mem] {
        assert_eq!(
            s.submit(spec).unwrap_err().errno,
            SlurmErrno::RequestedNodeConfigUnavailable
        );
    }
}

/// A cluster whose partition `gpu` has `DefCpuPerGPU=2`, `DefMemPerGPU=1000`, and whose own defaults (for the
/// partition `other`) are three CPUs and 500 MB per GPU.
fn with_defaults() -> Scenario {
    let names = vec!["g1".to_string()];
    let mut gpu = partition("gpu", &names, true);
    gpu.def_cpus_per_gpu = Some(2);
    gpu.def_mem_per_gpu_mb = Some(1000);
    let settings = Settings {
        def_cpus_per_gpu: Some(3),
        def_mem_per_gpu_mb: Some(500),
        def_mem_per_cpu_mb: Some(100),
        ..Settings::default()
    };
    Scenario::new(
        vec![node("g1", 8, 16_000, 4)],
        vec![gpu, partition("other", &names, false)],
        settings,
        T0,
    )
    .unwrap()
}

#[test]
fn gpu_defaults_size_jobs_that_do_not_say() {
    let mut s = with_defaults();
    let plain = s.submit(gpu_job(1)).unwrap();
    let mut with_c = gpu_job(1);
    with_c.options.insert("cpus-per-task".into(), "1".into());
    let with_c = s.submit(with_c).unwrap();
    let mut with_mem = gpu_job(1);
    with_mem.mem_per_node_mb = Some(700);
    let with_mem = s.submit(with_mem).unwrap();
    s.pass().unwrap();
    // Two CPUs and 1000 MB for the GPU; -c keeps the CPU default off, --mem the memory one.
    assert_eq!(booked(&s, plain), (2, 1000));
    assert_eq!(booked(&s, with_c), (1, 1000));
    assert_eq!(booked(&s, with_mem), (2, 700));
    let spec = &s.state.jobs[&with_mem].spec;
    assert_eq!(
        (spec.def_cpus_per_gpu, spec.def_mem_per_gpu_mb),
        (Some(2), Some(1000))
    );
    assert_eq!(spec.mem_per_cpu_mb, None);
}

#[test]
fn the_clusters_gpu_defaults_apply_where_the_partition_has_none() {
    let mut s = with_defaults();
    let mut other = gpu_job(1);
    other.partition = Some("other".into());
    let other = s.submit(other).unwrap();
    // Without GPUs neither default applies, and DefMemPerCPU does.
    let mut cpu_only = job(1, 0, 0, Some(60));
    cpu_only.mem_per_node_mb = None;
    let cpu_only = s.submit(cpu_only).unwrap();
    s.pass().unwrap();
    assert_eq!(booked(&s, other), (3, 500));
    assert_eq!(booked(&s, cpu_only), (1, 100));
    let spec = &s.state.jobs[&cpu_only].spec;
    assert_eq!(
        (spec.def_cpus_per_gpu, spec.def_mem_per_gpu_mb),
        (None, None)
    );
}

#[test]
fn gpus_the_default_cannot_feed_are_refused() {
    let mut s = with_defaults();
    // Three GPUs at the cluster's three CPUs is nine CPUs: more than the node's eight.
    let mut three = gpu_job(3);
    three.partition = Some("other".into());
    assert_eq!(
        s.submit(three.clone()).unwrap_err().errno,
        SlurmErrno::RequestedNodeConfigUnavailable
    );
    three.options.insert("cpus-per-task".into(), "1".into());
    assert!(s.submit(three).is_ok());
}
