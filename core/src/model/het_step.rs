//! Steps of a heterogeneous job (`srun --het-group=0,1`, `srun A : B` inside one): which components a step
//! runs in, and how its tasks spread over them. As in Slurm 22.05, the components' tasks form one step with
//! ranks numbered through the components in offset order: component 0's tasks first, on its nodes, then component
//! 1's on its nodes, each component laid out in blocks over its own nodes.

use crate::model::job::JobRecord;
use crate::model::step_layout::{runs_text, Distribution, StepLayout};

/// What one component of the step asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRequest {
    /// The het job component (offset) the tasks run in.
    pub group: u32,
    /// `-n` for this component; `None` takes the component's own task count.
    pub ntasks: Option<u32>,
    /// The program and arguments of this component's tasks.
    pub argv: Vec<String>,
}

/// Where the step's tasks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HetStepPlan {
    /// The step's nodes: each component's in offset order.
    pub nodes: Vec<String>,
    pub layout: StepLayout,
    pub ntasks: u32,
    /// CPUs the job holds on each node of `nodes` (`SLURM_CPUS_ON_NODE`).
    pub cpus_on_node: Vec<u32>,
    /// Each rank's program and arguments.
    pub rank_argv: Vec<Vec<String>>,
}

impl HetStepPlan {
    /// `SLURM_JOB_CPUS_PER_NODE` of the step's tasks: the CPUs of each node, `1,2` or `2(x2)`.
    pub fn cpus_per_node_text(&self) -> String {
        runs_text(&self.cpus_on_node)
    }
}

/// `J+N`, Slurm's name for component `N` of heterogeneous job `J`, as the id of that component's record (the
/// components' ids follow the leader's); `None` for any other text.
pub fn component_job_id(text: &str) -> Option<u32> {
    let (leader, offset) = text.split_once('+')?;
    leader
        .trim()
        .parse::<u32>()
        .ok()?
        .checked_add(offset.trim().parse::<u32>().ok()?)
}

/// `--het-group`'s value: offsets and ranges (`0,2-3`), sorted, without repeats; Slurm's complaint for a bad one.
pub fn parse_groups(text: &str) -> Result<Vec<u32>, Vec<String>> {
    let bad = |part: &str| {
        vec![
            format!("_parse_single_range: Invalid range: `{part}'"),
            format!("Invalid --het-group value: {text}"),
        ]
    };
    let mut groups = Vec::new();
    for part in text.split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((lo, hi)) => (lo, hi),
            None => (part, part),
        };
        let (Ok(lo), Ok(hi)) = (lo.trim().parse::<u32>(), hi.trim().parse::<u32>()) else {
            return Err(bad(part));
        };
        if hi < lo {
            return Err(bad(part));
        }
        groups.extend(lo..=hi);
    }
    groups.sort_unstable();
    groups.dedup();
    Ok(groups)
}

/// Lays the step out over the components (`components[k]` is offset `k`). Fails with Slurm's complaint when a
/// request names a component the job does not have.
pub fn plan(components: &[JobRecord], requests: &[GroupRequest]) -> Result<HetStepPlan, String> {
    let highest = components.len().saturating_sub(1);
    let mut requests: Vec<&GroupRequest> = requests.iter().collect();
    requests.sort_by_key(|r| r.group);
    if let Some(r) = requests.iter().find(|r| r.group as usize > highest) {
        return Err(format!(
            "Requested het-group offset exceeds highest hetjob index ({} > {highest})",
            r.group
        ));
    }
    let mut nodes = Vec::new();
    let mut node_ranks: Vec<Vec<u32>> = Vec::new();
    let mut cpus_on_node = Vec::new();
    let mut rank_argv = Vec::new();
    let mut next_rank = 0u32;
    for request in requests {
        let Some(job) = components.get(request.group as usize) else {
            continue;
        };
        let alloc_nodes: Vec<String> = job
            .alloc
            .as_ref()
            .map(|a| a.node_names.clone())
            .unwrap_or_default();
        let cpus = job.alloc.as_ref().map_or(0, |a| a.cpus);
        let ntasks = request
            .ntasks
            .or(job.spec.ntasks)
            .unwrap_or(alloc_nodes.len() as u32)
            .max(1);
        let used = alloc_nodes.len().min(ntasks as usize).max(1);
        let layout = StepLayout::new(ntasks, used, None, Distribution::Block);
        for (name, ranks) in alloc_nodes.into_iter().take(used).zip(layout.node_ranks) {
            nodes.push(name);
            cpus_on_node.push(cpus);
            node_ranks.push(ranks.into_iter().map(|r| r + next_rank).collect());
        }
        rank_argv.extend(std::iter::repeat_n(request.argv.clone(), ntasks as usize));
        next_rank += ntasks;
    }
    Ok(HetStepPlan {
        nodes,
        layout: StepLayout { node_ranks },
        ntasks: next_rank,
        cpus_on_node,
        rank_argv,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::{Allocation, JobSpec};

    fn component(id: u32, nodes: &[&str], cpus: u32, ntasks: u32) -> JobRecord {
        let spec = JobSpec {
            ntasks: Some(ntasks),
            ..JobSpec::default()
        };
        let mut job = JobRecord::pending(id, spec, "debug".to_string(), 0, 1);
        job.alloc = Some(Allocation {
            node_names: nodes.iter().map(|n| n.to_string()).collect(),
            cpus,
            ..Allocation::default()
        });
        job
    }

    fn ask(group: u32, ntasks: Option<u32>, program: &str) -> GroupRequest {
        GroupRequest {
            group,
            ntasks,
            argv: vec![program.to_string()],
        }
    }

    #[test]
    fn a_component_is_named_by_leader_and_offset() {
        assert_eq!(component_job_id("93+1"), Some(94));
        assert_eq!(component_job_id("93+0"), Some(93));
        assert_eq!(component_job_id("93"), None);
        assert_eq!(component_job_id("93+x"), None);
    }

    #[test]
    fn groups_parse_as_slurm_reads_them() {
        assert_eq!(parse_groups("1,0"), Ok(vec![0, 1]));
        assert_eq!(parse_groups("0-2,1"), Ok(vec![0, 1, 2]));
        assert_eq!(
            parse_groups("x").unwrap_err(),
            [
                "_parse_single_range: Invalid range: `x'",
                "Invalid --het-group value: x"
            ]
        );
    }

    #[test]
    fn ranks_run_through_the_components_in_offset_order() {
        let comps = [
            component(7, &["n1"], 1, 1),
            component(8, &["n2", "n3"], 2, 3),
        ];
        let plan = plan(&comps, &[ask(1, None, "b"), ask(0, None, "a")]).unwrap();
        assert_eq!(plan.nodes, ["n1", "n2", "n3"]);
        assert_eq!(plan.layout.node_ranks, [vec![0], vec![1, 2], vec![3]]);
        assert_eq!(plan.ntasks, 4);
        assert_eq!(plan.cpus_per_node_text(), "1,2(x2)");
        assert_eq!(plan.layout.tasks_per_node_text(), "1,2,1");
        assert_eq!(plan.rank_argv[0], ["a"]);
        assert_eq!(plan.rank_argv[3], ["b"]);
    }

    #[test]
    fn a_task_count_narrows_a_component_to_as_many_nodes() {
        let comps = [
            component(7, &["n1"], 1, 1),
            component(8, &["n2", "n3"], 1, 2),
        ];
        let plan = plan(&comps, &[ask(0, Some(1), "a"), ask(1, Some(1), "a")]).unwrap();
        assert_eq!(plan.nodes, ["n1", "n2"]);
        assert_eq!(plan.ntasks, 2);
    }

    #[test]
    fn a_component_beyond_the_job_is_refused() {
        let comps = [component(7, &["n1"], 1, 1), component(8, &["n2"], 1, 1)];
        assert_eq!(
            plan(&comps, &[ask(2, None, "a")]).unwrap_err(),
            "Requested het-group offset exceeds highest hetjob index (2 > 1)"
        );
    }
}
