//! `--mpi=pmix` on one node (docs/mpi.md): the step's layout for the PMIx server (pmix-plugin/), read from what
//! srun passes every supervisor, and the step fabric as the server's collective.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pmix_plugin::{AbortEvent, NodeTasks, PmixServer, StepCollective, StepLayout};
use spur_core::model::step_launch::NodeStepLaunch;

use crate::fabric::StepFabric;
use crate::pmi::AbortStep;

/// The fabric is the PMIx server's collective: one blob per node per fence, every node's back in node order.
struct FabricCollective(StepFabric);

impl StepCollective for FabricCollective {
    fn allgather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        self.0.allgather(blob)
    }
}

/// Each started task's pid by step rank.
pub type TaskPids = Arc<Mutex<BTreeMap<u32, i32>>>;

/// How long an abort waits for the aborting task to exit before the step is ended anyway.
const ABORTER_EXIT_WAIT: Duration = Duration::from_secs(2);

/// The step's abort for a PMIx `MPI_Abort`. Open MPI's rank exits with its error code as soon as the server
/// acknowledges its abort, and under Slurm that exit comes before the step's cancellation (which goes through srun
/// and slurmctld): srun reports `task R: Exited with exit code N` for it and exits N, the other tasks `Killed`.
/// Waiting here (briefly) for the aborting task to exit gives the same report.
pub fn abort_after_exit(pids: TaskPids, abort: Box<AbortStep>) -> Box<AbortStep> {
    Box::new(move |rank, status| {
        let pid = pids.lock().ok().and_then(|p| p.get(&rank).copied());
        if let Some(pid) = pid {
            let deadline = Instant::now() + ABORTER_EXIT_WAIT;
            while running(pid) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        abort(rank, status);
    })
}

/// Whether the task `pid` (our child) has not exited yet: present and not a zombie.
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        // The state follows the command name in parentheses, which may itself hold parentheses.
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X'))
    })
}

/// Starts this node's PMIx server for the step, before any task is forked. `nodes` and `mapping` are the step's
/// node list and PMI process mapping as srun passes them; `spool` is this node's private directory (Slurm's
/// SlurmdSpoolDir), where the server's and the clients' directories go.
pub fn start(
    launch: &NodeStepLaunch,
    nodes: &str,
    mapping: &str,
    spool: &Path,
    fabric: StepFabric,
    abort: Box<AbortStep>,
) -> Result<PmixServer, String> {
    let names = spur_core::grammar::hostlist::expand(nodes)
        .map_err(|e| format!("mpi/pmix: bad step node list {nodes:?}: {e}"))?;
    let total = size_of(launch);
    let mut ranks = ranks_by_node(mapping, names.len(), total)?;
    let index = launch.tasks.node_id as usize;
    // This node's own list is authoritative (its order is the local rank order).
    match ranks.get_mut(index) {
        Some(own) => own.clone_from(&launch.tasks.ranks),
        None => return Err(format!("mpi/pmix: node index {index} is not in {nodes}")),
    }
    let layout = StepLayout {
        job_id: launch.job_id,
        step_id: launch.step_id,
        nspace: StepLayout::slurm_nspace(launch.job_id, launch.step_id),
        node_index: index,
        nodes: names
            .into_iter()
            .zip(ranks)
            .map(|(hostname, ranks)| NodeTasks { hostname, ranks })
            .collect(),
        uid: launch.uid,
        gid: launch.gid,
        // Slurm's TmpFS is /tmp by default, but several nodes of one host (the namespace test clusters) would
        // share it and the client directory's name has no node in it: the node's own spool keeps them apart.
        tmpdir: spool.to_path_buf(),
        spool_dir: spool.to_path_buf(),
    };
    PmixServer::start(
        layout,
        Arc::new(FabricCollective(fabric)),
        Box::new(move |event: AbortEvent| abort(event.rank, event.status)),
    )
    .map_err(|e| format!("mpi/pmix: {e}"))
}

fn size_of(launch: &NodeStepLaunch) -> u32 {
    launch
        .tasks
        .env
        .iter()
        .find(|(k, _)| k == "SLURM_STEP_NUM_TASKS" || k == "SLURM_NTASKS")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(launch.tasks.ranks.len() as u32)
}

/// Each node's step ranks from Slurm's PMI process mapping `(vector,(first,count,each),...)`: the groups are
/// dealt in turn, each giving `each` consecutive ranks to `count` nodes from `first`, until all `total` ranks
/// are placed.
pub fn ranks_by_node(mapping: &str, nodes: usize, total: u32) -> Result<Vec<Vec<u32>>, String> {
    let bad = || format!("mpi/pmix: bad process mapping {mapping:?}");
    let body = mapping
        .trim()
        .strip_prefix("(vector,")
        .and_then(|s| s.strip_suffix(')'))
        .ok_or_else(bad)?;
    let mut groups = Vec::new();
    for part in body.split("),") {
        let part = part.trim_start_matches('(').trim_end_matches(')');
        let numbers: Vec<usize> = part
            .split(',')
            .map(|n| n.trim().parse::<usize>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?;
        let [first, count, each] = numbers[..] else {
            return Err(bad());
        };
        if each == 0 || first.checked_add(count).is_none_or(|end| end > nodes) {
            return Err(bad());
        }
        groups.push((first, count, each));
    }
    if groups.is_empty() {
        return Err(bad());
    }
    let mut ranks = vec![Vec::new(); nodes];
    let mut next = 0u32;
    'deal: loop {
        let before = next;
        for &(first, count, each) in &groups {
            // `first + count <= nodes` was checked above, so the range is in `ranks`.
            for node_ranks in ranks.iter_mut().skip(first).take(count) {
                for _ in 0..each {
                    if next >= total {
                        break 'deal;
                    }
                    node_ranks.push(next);
                    next += 1;
                }
            }
        }
        if next == before {
            return Err(bad());
        }
    }
    Ok(ranks)
}

#[cfg(test)]
mod tests {
    use super::ranks_by_node;

    #[test]
    fn block_cyclic_and_uneven_mappings_place_every_rank() {
        assert_eq!(
            ranks_by_node("(vector,(0,3,2))", 3, 6),
            Ok(vec![vec![0, 1], vec![2, 3], vec![4, 5]])
        );
        assert_eq!(
            ranks_by_node("(vector,(0,3,1),(0,3,1))", 3, 6),
            Ok(vec![vec![0, 3], vec![1, 4], vec![2, 5]])
        );
        assert_eq!(
            ranks_by_node("(vector,(0,1,3),(1,2,2))", 3, 7),
            Ok(vec![vec![0, 1, 2], vec![3, 4], vec![5, 6]])
        );
    }

    #[test]
    fn hostile_mappings_are_refused() {
        for bad in [
            "",
            "(vector,)",
            "(vector,(0,4,1))",
            "(vector,(0,1,0))",
            "(vector,(a,1,1))",
        ] {
            assert!(ranks_by_node(bad, 3, 6).is_err(), "{bad}");
        }
    }
}
