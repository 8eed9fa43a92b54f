//! The users: jobs submitted over time (single and multi-node, GPU or not, with and without time limits, arrays,
//! requeueable or not) whose simulated run time and exit code travel in their environment. Submissions carry a
//! request id and are retried until acknowledged, as `sbatch` does when an answer is lost.

use std::collections::BTreeMap;

use spur_controller::scheduler::scenario;
use spur_controller::state::NodeDefinition;
use spur_core::model::job::{GresRequest, JobSpec};

use super::agent::{EXIT_ENV, RUNTIME_ENV};
use super::net::Millis;
use super::rng::Rng;

/// A submission the client has not had an answer to yet.
pub struct Request {
    pub name: String,
    pub spec: JobSpec,
    /// How many jobs it makes (array tasks).
    pub tasks: u32,
    pub retry_at: Millis,
}

#[derive(Default)]
pub struct Client {
    pub pending: Vec<Request>,
    /// Acknowledged submissions by request name: the first job id and how many jobs (array tasks) it made.
    pub acked: BTreeMap<String, (u32, u32)>,
    pub rejected: u64,
    pub retries: u64,
    made: u64,
}

impl Client {
    /// A new job that fits on some `nodes` of the cluster, so every job can eventually run.
    pub fn new_request(&mut self, rng: &mut Rng, defs: &[NodeDefinition], now: Millis) {
        self.made += 1;
        let name = format!("r{}", self.made);
        let spec = job_spec(rng, defs, &name);
        let tasks = match &spec.array {
            Some(text) => spur_controller::rules::array_task_ids(text, 1001)
                .map_or(0, |ids| u32::try_from(ids.len()).unwrap_or(0)),
            None => 1,
        };
        self.pending.push(Request {
            name,
            spec,
            tasks,
            retry_at: now,
        });
    }
}

fn job_spec(rng: &mut Rng, defs: &[NodeDefinition], name: &str) -> JobSpec {
    let multi = defs.len() >= 2 && rng.chance(150);
    let nodes = if multi {
        rng.between(2, defs.len().min(3) as u64) as usize
    } else {
        1
    };
    let mut order: Vec<&NodeDefinition> = defs.iter().collect();
    // A random subset of `nodes` nodes the job must fit on: its smallest cpus, memory and GPUs bound the request.
    for i in (1..order.len()).rev() {
        let j = rng.between(0, i as u64) as usize;
        order.swap(i, j);
    }
    let chosen = &order[..nodes];
    let cpus_max = chosen.iter().map(|d| d.cpus).min().unwrap_or(1);
    let mem_max = chosen.iter().map(|d| d.real_memory_mb).min().unwrap_or(1);
    let gpus_max = chosen
        .iter()
        .map(|d| {
            d.gres
                .iter()
                .filter(|g| g.name == "gpu")
                .map(|g| g.count)
                .sum::<u64>()
        })
        .min()
        .unwrap_or(0);
    let cpus = u32::try_from(rng.between(1, u64::from(cpus_max.div_ceil(2)))).unwrap_or(1);
    let mem = rng.between(64, (mem_max / 3).max(64));
    let gpus = if gpus_max > 0 && rng.chance(300) {
        rng.between(1, gpus_max)
    } else {
        0
    };
    let time_limit_min = rng
        .chance(700)
        .then(|| u32::try_from(rng.between(1, 4)).unwrap_or(1));
    let mut spec = scenario::job(cpus, mem, 0, time_limit_min);
    spec.name = name.to_string();
    spec.nodes_min = u32::try_from(nodes).unwrap_or(1);
    spec.ntasks = Some(cpus * spec.nodes_min);
    if gpus > 0 {
        // Some ask for shards of one GPU (two per GPU) instead of whole GPUs.
        let (name, count) = if rng.chance(300) {
            ("shard", rng.between(1, 2))
        } else {
            ("gpu", gpus)
        };
        spec.gres = vec![GresRequest {
            name: name.to_string(),
            gres_type: None,
            count,
        }];
    }
    // An allocation books one share on all its nodes, so whole-node jobs span only nodes of one size.
    let one_size = chosen
        .iter()
        .all(|d| d.cpus == chosen[0].cpus && d.real_memory_mb == chosen[0].real_memory_mb);
    spec.exclusive = one_size && rng.chance(50);
    // Partitions over the same nodes that share cores (world.rs): some jobs go there, some asking -s.
    let partition = match rng.between(0, 9) {
        0 | 1 => Some("force"),
        2 | 3 => Some("yes"),
        4 if one_size => Some("whole"),
        _ => None,
    };
    spec.partition = partition.map(str::to_string);
    if rng.chance(500) {
        spec.options
            .insert("oversubscribe".to_string(), String::new());
    }
    spec.requeue = rng.chance(500);
    if rng.chance(100) {
        spec.array = Some(format!("0-{}", rng.between(1, 3)));
    }
    // Without a time limit a job must end by itself; with one it may also run until the limit ends it.
    let runtime = match rng.between(0, 9) {
        0 if time_limit_min.is_some() => None,
        0..=4 => Some(rng.between(1, 60)),
        _ => Some(rng.between(60, 300)),
    };
    if let Some(secs) = runtime {
        spec.environment
            .push((RUNTIME_ENV.to_string(), secs.to_string()));
    }
    let exit = if rng.chance(800) {
        0
    } else {
        rng.between(1, 3)
    };
    spec.environment
        .push((EXIT_ENV.to_string(), exit.to_string()));
    spec
}

/// The exit code the job's simulated script ends with.
pub fn declared_exit(spec: &JobSpec) -> u32 {
    spec.environment
        .iter()
        .find(|(k, _)| k == EXIT_ENV)
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}
