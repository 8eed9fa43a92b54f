//! GPU shards on the pure scheduler, as Slurm 22.05's gres/shard places them (checked on real Slurm with four
//! fake GPUs and `shard:8`, then `shard:12`): a job's shards come from one GPU, the first in unit order with room
//! that nobody holds whole; a whole-GPU job skips GPUs with shards taken; backfill keeps both apart over time.

use pretty_assertions::assert_eq;

use spur_core::model::job::{Allocation, EpochSecs, GresRequest, JobSpec};
use spur_core::model::records::NodeGres;
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::policy::gpu_shard::shard_unit_files;
use spur_core::wire::api::SlurmErrno;

use super::scenario::{job, node, partition, with_gpu_files, Scenario};
use crate::state::{NodeDefinition, Settings};

const T0: EpochSecs = 1_000_020;

/// A node of `gpus` a100 GPUs with device files and `shards` shards spread over them (gres.conf
/// `Name=shard Count=<shards> File=<the GPUs' files>`).
fn shard_node(name: &str, gpus: u64, shards: u64) -> NodeDefinition {
    let mut def = with_gpu_files(node(name, 16, 64_000, gpus));
    let gpu_files = def.gres[0].files.clone();
    def.gres.push(NodeGres {
        name: "shard".to_string(),
        gres_type: Some("a100".to_string()),
        count: shards,
        files: shard_unit_files(shards, &gpu_files, &[]),
    });
    def
}

fn cluster(defs: Vec<NodeDefinition>) -> Scenario {
    let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
    let parts = vec![partition("gpu", &names, true)];
    Scenario::new(defs, parts, Settings::default(), T0).unwrap()
}

fn shards(count: u64, time_limit_min: u32) -> JobSpec {
    let mut spec = job(1, 1000, 0, Some(time_limit_min));
    spec.gres = vec![GresRequest {
        name: "shard".to_string(),
        gres_type: None,
        count,
    }];
    spec
}

fn gpus(count: u64, time_limit_min: u32) -> JobSpec {
    job(1, 1000, count, Some(time_limit_min))
}

fn run(s: &mut Scenario, spec: JobSpec) -> u32 {
    let id = s.submit(spec).unwrap();
    s.pass().unwrap();
    id
}

fn alloc(s: &Scenario, id: u32) -> &Allocation {
    let j = &s.state.jobs[&id];
    assert_eq!(j.state, JobBaseState::Running, "job {id}: {:?}", j.reason);
    j.alloc.as_ref().unwrap()
}

/// The job's shard units and the GPU they belong to.
fn shards_of(s: &Scenario, id: u32) -> (Vec<u32>, Vec<u32>) {
    let a = alloc(s, id);
    (a.gres_indices["shard"].clone(), a.shard_gpus.clone())
}

fn pending_reason(s: &Scenario, id: u32) -> JobReason {
    let j = &s.state.jobs[&id];
    assert_eq!(j.state, JobBaseState::Pending, "job {id}");
    j.reason
}

#[test]
fn shards_come_from_the_first_gpu_with_room() {
    // Three shards per GPU (real Slurm with shard:12 on four GPUs placed these the same way).
    let mut s = cluster(vec![shard_node("g1", 4, 12)]);
    let a = run(&mut s, shards(3, 60));
    let b = run(&mut s, shards(2, 60));
    assert_eq!(shards_of(&s, a), (vec![0, 1, 2], vec![0]));
    assert_eq!(shards_of(&s, b), (vec![3, 4], vec![1]));
    s.finish(a).unwrap();
    // GPU 0 has three free, GPU 1 one: first fit, not best fit.
    let c = run(&mut s, shards(1, 60));
    assert_eq!(shards_of(&s, c), (vec![0], vec![0]));
    let d = run(&mut s, shards(1, 60));
    assert_eq!(shards_of(&s, d), (vec![1], vec![0]));
}

#[test]
fn whole_gpus_and_shards_keep_apart() {
    let mut s = cluster(vec![shard_node("g1", 4, 8)]);
    let sharded = run(&mut s, shards(1, 60));
    assert_eq!(shards_of(&s, sharded), (vec![0], vec![0]));
    // GPU 0 has a shard taken: the whole GPUs come from the others.
    let whole = run(&mut s, gpus(2, 60));
    assert_eq!(alloc(&s, whole).gres_indices["gpu"], vec![1, 2]);
    // GPUs 1 and 2 are held whole and GPU 0 has one shard left: two shards come from GPU 3.
    let two = run(&mut s, shards(2, 60));
    assert_eq!(shards_of(&s, two), (vec![6, 7], vec![3]));
    // No GPU is free of shards and unheld: a whole-GPU job waits, though GPU 0 and 3 are not held whole.
    let waiting = run(&mut s, gpus(1, 60));
    assert_eq!(pending_reason(&s, waiting), JobReason::Resources);
    s.finish(sharded).unwrap();
    s.pass().unwrap();
    assert_eq!(alloc(&s, waiting).gres_indices["gpu"], vec![0]);
}

#[test]
fn a_job_of_shards_never_spans_gpus() {
    let mut s = cluster(vec![shard_node("g1", 2, 4)]);
    // Two shards per GPU: three can never be on one, which Slurm 22.05 would wait for forever.
    let refused = s.submit(shards(3, 60)).unwrap_err();
    assert_eq!(refused.errno, SlurmErrno::RequestedNodeConfigUnavailable);
    // One shard taken of each GPU: two free shards in all, but not on one GPU.
    let first = run(&mut s, shards(1, 60));
    let filler = run(&mut s, shards(1, 60));
    let second = run(&mut s, shards(1, 60));
    assert_eq!(shards_of(&s, first), (vec![0], vec![0]));
    assert_eq!(shards_of(&s, filler), (vec![1], vec![0]));
    assert_eq!(shards_of(&s, second), (vec![2], vec![1]));
    s.finish(filler).unwrap();
    let pair = run(&mut s, shards(2, 60));
    assert_eq!(pending_reason(&s, pair), JobReason::Resources);
}

#[test]
fn backfill_keeps_a_whole_gpu_job_s_reservation_free_of_shards() {
    let mut s = cluster(vec![shard_node("g1", 2, 4)]);
    let sharded = run(&mut s, shards(1, 60));
    assert_eq!(shards_of(&s, sharded).1, vec![0]);
    // Both GPUs whole: only once the shard job ends.
    let whole = run(&mut s, gpus(2, 60));
    assert_eq!(pending_reason(&s, whole), JobReason::Resources);
    let reserved_at = s.state.jobs[&whole].expected_start.unwrap();
    assert!(reserved_at >= T0 + 3600, "reserved at {reserved_at}");
    // GPU 1 is free now, but a shard job that outlives the reservation would delay it; a short one fits before.
    let long = run(&mut s, shards(1, 120));
    assert_eq!(pending_reason(&s, long), JobReason::Priority);
    let short = run(&mut s, shards(1, 30));
    assert_eq!(shards_of(&s, short).1, vec![0]);
    assert_eq!(s.state.jobs[&whole].expected_start, Some(reserved_at));
}

#[test]
fn a_multi_node_job_of_shards_takes_the_same_gpu_on_each_node() {
    let mut s = cluster(vec![shard_node("g1", 2, 4), shard_node("g2", 2, 4)]);
    // g1's GPU 0 is held whole, so a two-node job of shards uses GPU 1 on both nodes.
    let mut one_node_whole = gpus(1, 60);
    one_node_whole.required_nodes = Some("g1".to_string());
    let whole = run(&mut s, one_node_whole);
    assert_eq!(alloc(&s, whole).gres_indices["gpu"], vec![0]);
    let mut spread = shards(2, 60);
    spread.nodes_min = 2;
    spread.ntasks = Some(2);
    let both = run(&mut s, spread);
    assert_eq!(alloc(&s, both).node_names, vec!["g1", "g2"]);
    assert_eq!(shards_of(&s, both), (vec![2, 3], vec![1]));
}

#[test]
fn the_apply_check_refuses_a_whole_gpu_whose_shards_are_taken() {
    let mut s = cluster(vec![shard_node("g1", 2, 4)]);
    let sharded = run(&mut s, shards(1, 60));
    let mut forged = alloc(&s, sharded).clone();
    forged.gres_indices = [("gpu".to_string(), vec![0])].into();
    forged.shard_gpus = Vec::new();
    assert!(!crate::rules::allocation_fits(&s.state, &forged));
    forged.gres_indices = [("gpu".to_string(), vec![1])].into();
    assert!(crate::rules::allocation_fits(&s.state, &forged));
    // Shards of GPU 0 named as if they were GPU 1's.
    forged.gres_indices = [("shard".to_string(), vec![1])].into();
    forged.shard_gpus = vec![1];
    assert!(!crate::rules::allocation_fits(&s.state, &forged));
    // One allocation holding GPU 1 whole and shards of it.
    forged.gres_indices = [("gpu".to_string(), vec![1]), ("shard".to_string(), vec![2])].into();
    forged.shard_gpus = vec![1];
    assert!(!crate::rules::allocation_fits(&s.state, &forged));
}

#[test]
fn a_whole_node_job_of_shards_keeps_to_its_shards() {
    let def = shard_node("g1", 2, 4);
    let names = vec![def.name.clone()];
    let mut whole = partition("whole", &names, true);
    whole.oversubscribe = "EXCLUSIVE".to_string();
    let mut s = Scenario::new(vec![def], vec![whole], Settings::default(), T0).unwrap();
    let id = run(&mut s, shards(2, 60));
    let a = alloc(&s, id);
    assert_eq!(a.gres_indices.get("gpu"), None);
    assert_eq!(a.shard_gpus, vec![0]);
}
