//! GPU placement by interconnect on the pure scheduler: a node whose agent reported XGMI islands gives jobs GPUs
//! inside one island; gres.conf `Links=` does the same; a node without (usable) links keeps Slurm's
//! lowest-free-index choice.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::states::JobBaseState;
use spur_core::policy::gpu_topology::{GpuDevice, GpuTopology, Link};

use super::scenario::{job, node, partition, with_gpu_files, Scenario};
use crate::state::{NodeDefinition, Settings};

const T0: EpochSecs = 1_000_020;
const XGMI: Link = Link::Fabric { links: 1, hops: 1 };

/// Eight GPUs as the agent reports them, in an order unlike the units' (so the mapping by file is exercised):
/// two XGMI islands, renderD128-131 on NUMA 0 and renderD132-135 on NUMA 1.
fn two_islands_reported() -> GpuTopology {
    let minors: Vec<u32> = (128..136).rev().collect();
    let devices = minors
        .iter()
        .map(|m| GpuDevice {
            file: format!("/dev/dri/renderD{m}"),
            numa_node: Some(u32::from(*m >= 132)),
            pci_bus_id: None,
        })
        .collect();
    let mut t = GpuTopology::new(devices);
    for a in 0..8 {
        for b in 0..8 {
            if (minors[a] >= 132) == (minors[b] >= 132) {
                t.connect(a, b, XGMI);
            }
        }
    }
    t.fill_from_numa();
    t
}

fn gpu_node() -> NodeDefinition {
    with_gpu_files(node("g1", 64, 512_000, 8))
}

fn cluster(def: NodeDefinition) -> Scenario {
    let parts = vec![partition("gpu", std::slice::from_ref(&def.name), true)];
    Scenario::new(vec![def], parts, Settings::default(), T0).unwrap()
}

fn gpus(s: &Scenario, id: u32) -> Vec<u32> {
    let j = &s.state.jobs[&id];
    assert_eq!(j.state, JobBaseState::Running, "job {id}");
    j.alloc.as_ref().unwrap().gres_indices["gpu"].clone()
}

fn run(s: &mut Scenario, spec: JobSpec) -> u32 {
    let id = s.submit(spec).unwrap();
    s.pass().unwrap();
    id
}

/// Units 1 and 2 taken by a job that started before any topology was known (so with the lowest indices).
fn with_units_1_and_2_taken(def: &NodeDefinition) -> Scenario {
    let mut s = cluster(def.clone());
    let first = run(&mut s, job(1, 1000, 1, Some(60)));
    let second = run(&mut s, job(1, 1000, 2, Some(60)));
    assert_eq!(gpus(&s, first), vec![0]);
    assert_eq!(gpus(&s, second), vec![1, 2]);
    s.finish(first).unwrap();
    s
}

#[test]
fn jobs_get_gpus_inside_one_xgmi_island() {
    let def = gpu_node();
    let mut s = with_units_1_and_2_taken(&def);
    s.report_gpus(&def, two_islands_reported()).unwrap();
    let four = run(&mut s, job(4, 1000, 4, Some(60)));
    assert_eq!(gpus(&s, four), vec![4, 5, 6, 7]);
    let two = run(&mut s, job(2, 1000, 2, Some(60)));
    assert_eq!(gpus(&s, two), vec![0, 3]);
}

#[test]
fn without_topology_the_lowest_free_units_are_taken() {
    let def = gpu_node();
    let mut s = with_units_1_and_2_taken(&def);
    let four = run(&mut s, job(4, 1000, 4, Some(60)));
    assert_eq!(gpus(&s, four), vec![0, 3, 4, 5]);
    let two = run(&mut s, job(2, 1000, 2, Some(60)));
    assert_eq!(gpus(&s, two), vec![6, 7]);
}

#[test]
fn a_report_that_does_not_name_the_configured_files_is_ignored() {
    // gres.conf names /dev/nvidia*, the agent found render nodes: no safe mapping, so Slurm's choice.
    let mut def = node("g1", 64, 512_000, 8);
    def.gres[0].files = (0..8).map(|i| format!("/dev/nvidia{i}")).collect();
    let mut s = with_units_1_and_2_taken(&def);
    s.report_gpus(&def, two_islands_reported()).unwrap();
    assert_eq!(s.state.nodes["g1"].gpu_topology.gpu, None);
    let four = run(&mut s, job(4, 1000, 4, Some(60)));
    assert_eq!(gpus(&s, four), vec![0, 3, 4, 5]);
}

#[test]
fn single_gpu_jobs_fill_a_broken_island_first() {
    let def = gpu_node();
    let mut s = cluster(def.clone());
    s.report_gpus(&def, two_islands_reported()).unwrap();
    let one = run(&mut s, job(1, 1000, 1, Some(60)));
    assert_eq!(gpus(&s, one), vec![0]);
    let two = run(&mut s, job(1, 1000, 2, Some(60)));
    assert_eq!(gpus(&s, two), vec![1, 2]);
    let three = run(&mut s, job(1, 1000, 1, Some(60)));
    assert_eq!(gpus(&s, three), vec![3]);
    // Island [4-7] is still whole for a four-GPU job.
    let four = run(&mut s, job(4, 1000, 4, Some(60)));
    assert_eq!(gpus(&s, four), vec![4, 5, 6, 7]);
}

#[test]
fn gres_conf_links_win_over_the_agents_report() {
    let mut def = gpu_node();
    // Links= pairs the GPUs (0,7), (1,6), ...: nothing like the agent's islands.
    let rows: Vec<Option<Vec<i32>>> = (0..8)
        .map(|i| {
            Some(
                (0..8)
                    .map(|j| match j {
                        _ if j == i => -1,
                        _ if j == 7 - i => 2,
                        _ => 0,
                    })
                    .collect(),
            )
        })
        .collect();
    let files = def.gres[0].files.clone();
    def.gpu_links = GpuTopology::from_gres_links(&files, &rows);
    let mut s = cluster(def.clone());
    s.report_gpus(&def, two_islands_reported()).unwrap();
    let a = run(&mut s, job(1, 1000, 2, Some(60)));
    assert_eq!(gpus(&s, a), vec![0, 7]);
    let b = run(&mut s, job(1, 1000, 2, Some(60)));
    assert_eq!(gpus(&s, b), vec![1, 6]);
}

#[test]
fn a_job_larger_than_an_island_takes_a_whole_one_and_later_jobs_wait() {
    let def = gpu_node();
    let mut s = cluster(def.clone());
    s.report_gpus(&def, two_islands_reported()).unwrap();
    let long = run(&mut s, job(1, 1000, 6, Some(120)));
    let picked = gpus(&s, long);
    // Six cannot stay inside one island: a whole island plus the two best-linked others.
    assert_eq!(picked, vec![0, 1, 2, 3, 4, 5]);
    let short = run(&mut s, job(1, 1000, 2, Some(30)));
    assert_eq!(gpus(&s, short), vec![6, 7]);
    // No GPU is left: a four-GPU job waits, planned for when GPUs come back.
    let blocked = s.submit(job(1, 1000, 4, Some(60))).unwrap();
    s.pass().unwrap();
    let j = &s.state.jobs[&blocked];
    assert_eq!(j.state, JobBaseState::Pending);
    assert!(j.expected_start.is_some());
}
