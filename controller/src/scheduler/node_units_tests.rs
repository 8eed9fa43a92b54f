//! A multi-node job's GPUs are picked node by node, as slurmctld picks them: a GPU taken on one node does not
//! hold the job off the same GPU on its other nodes, and each node's books get that node's units.

use pretty_assertions::assert_eq;

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::states::JobBaseState;

use super::scenario::{job, node, partition, Scenario};
use crate::state::Settings;

const T0: EpochSecs = 1_000_020;

fn two_gpu_nodes() -> Scenario {
    let names = vec!["g1".to_string(), "g2".to_string()];
    Scenario::new(
        vec![node("g1", 8, 16_000, 2), node("g2", 8, 16_000, 2)],
        vec![partition("gpu", &names, true)],
        Settings::default(),
        T0,
    )
    .unwrap()
}

fn on(nodes: &str, count: u32, gpus: u64) -> JobSpec {
    let mut spec = job(1, 1000, gpus, Some(60));
    spec.nodes_min = count;
    spec.ntasks = Some(count);
    spec.required_nodes = Some(nodes.to_string());
    spec
}

fn gpus_by_node(s: &Scenario, id: u32) -> Vec<(String, Vec<u32>)> {
    let j = &s.state.jobs[&id];
    assert_eq!(j.state, JobBaseState::Running, "job {id}: {:?}", j.reason);
    let alloc = j.alloc.as_ref().unwrap();
    (0..alloc.node_names.len())
        .map(|at| {
            let gpus = alloc.units_on(at).0.get("gpu").cloned().unwrap_or_default();
            (alloc.node_names[at].clone(), gpus)
        })
        .collect()
}

#[test]
fn each_node_gives_its_own_free_gpus() {
    let mut s = two_gpu_nodes();
    let first = s.submit(on("g1", 1, 1)).unwrap();
    s.pass().unwrap();
    assert_eq!(gpus_by_node(&s, first), vec![("g1".to_string(), vec![0])]);
    // g1 has only GPU 1 left, g2 both: the two-node job takes GPU 1 there and GPU 0 here.
    let both = s.submit(on("g1,g2", 2, 1)).unwrap();
    s.pass().unwrap();
    assert_eq!(
        gpus_by_node(&s, both),
        vec![("g1".to_string(), vec![1]), ("g2".to_string(), vec![0])]
    );
    assert_eq!(s.state.nodes["g1"].alloc_gres["gpu"], vec![0, 1]);
    assert_eq!(s.state.nodes["g2"].alloc_gres["gpu"], vec![0]);
    // What is left: GPU 1 of g2 only.
    let third = s.submit(on("g2", 1, 1)).unwrap();
    let blocked = s.submit(on("g1", 1, 1)).unwrap();
    s.pass().unwrap();
    assert_eq!(gpus_by_node(&s, third), vec![("g2".to_string(), vec![1])]);
    assert_eq!(s.state.jobs[&blocked].state, JobBaseState::Pending);
    // The two-node job ends: each node gets back its own GPU.
    s.finish(both).unwrap();
    assert_eq!(s.state.nodes["g1"].alloc_gres["gpu"], vec![0]);
    assert_eq!(s.state.nodes["g2"].alloc_gres["gpu"], vec![1]);
    s.pass().unwrap();
    assert_eq!(gpus_by_node(&s, blocked), vec![("g1".to_string(), vec![1])]);
}

#[test]
fn nodes_with_the_same_units_keep_one_record() {
    let mut s = two_gpu_nodes();
    let id = s.submit(on("g1,g2", 2, 2)).unwrap();
    s.pass().unwrap();
    let alloc = s.state.jobs[&id].alloc.clone().unwrap();
    assert!(alloc.node_units.is_empty(), "{alloc:?}");
    assert_eq!(alloc.gres_indices["gpu"], vec![0, 1]);
}

#[test]
fn backfill_reserves_each_nodes_own_gpus() {
    let mut s = two_gpu_nodes();
    let mut long = on("g1", 1, 1);
    long.time_limit_min = Some(600);
    let long = s.submit(long).unwrap();
    let both = s.submit(on("g1,g2", 2, 1)).unwrap();
    s.pass().unwrap();
    assert_eq!(gpus_by_node(&s, both)[0], ("g1".to_string(), vec![1]));
    // Every GPU of g1 is now held until the long job ends; a two-GPU job on both nodes waits for it, and a
    // short one-GPU job on g2 backfills beside it on the GPU g2 still has.
    let wide = s.submit(on("g1,g2", 2, 2)).unwrap();
    let mut short = on("g2", 1, 1);
    short.time_limit_min = Some(30);
    let short = s.submit(short).unwrap();
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&wide].state, JobBaseState::Pending);
    assert_eq!(gpus_by_node(&s, short), vec![("g2".to_string(), vec![1])]);
    assert_eq!(s.state.jobs[&long].state, JobBaseState::Running);
}
