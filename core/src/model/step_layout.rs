//! Where the tasks of a step go: how many on each of the step's nodes and which ranks, for srun's `-N`, `-n`,
//! `--ntasks-per-node` and `-m block|cyclic|plane=N`, as Slurm 22.05 lays them out (observed: `-N3 -n5` gives
//! `2(x2),1` with ranks 0-1, 2-3, 4 under block; `-N2 -n4 -m cyclic` gives ranks 0,2 and 1,3).

use serde::{Deserialize, Serialize};

/// The task distribution across nodes (the first part of `-m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    Block,
    Cyclic,
    /// `plane=N`: blocks of N consecutive ranks dealt to the nodes in turn.
    Plane(u32),
}

impl Distribution {
    /// Reads the node part of an `-m` value (`block`, `cyclic:block`, `plane=4`, `arbitrary`...); anything else
    /// lays tasks out in blocks, as Slurm's default does when there are more tasks than nodes.
    pub fn parse(value: &str) -> Distribution {
        let node_part = value.split([':', ',']).next().unwrap_or("");
        if let Some(size) = node_part.strip_prefix("plane=") {
            return match size.parse::<u32>() {
                Ok(n) if n > 0 => Distribution::Plane(n),
                _ => Distribution::Block,
            };
        }
        match node_part {
            "cyclic" => Distribution::Cyclic,
            _ => Distribution::Block,
        }
    }
}

/// The ranks each node of the step runs, in node order; every rank of `0..ntasks` appears exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepLayout {
    pub node_ranks: Vec<Vec<u32>>,
}

impl StepLayout {
    /// Spreads `ntasks` over `nodes` nodes: `per_node` tasks each when `--ntasks-per-node` fixed it, else as evenly
    /// as possible with the first nodes taking one more. Every node gets at least one task when there are enough.
    pub fn new(
        ntasks: u32,
        nodes: usize,
        per_node: Option<u32>,
        distribution: Distribution,
    ) -> StepLayout {
        let nodes = nodes.max(1);
        let counts = task_counts(ntasks, nodes, per_node);
        let mut node_ranks: Vec<Vec<u32>> = counts
            .iter()
            .map(|&c| Vec::with_capacity(c as usize))
            .collect();
        match distribution {
            Distribution::Block => {
                let mut rank = 0;
                for (ranks, &count) in node_ranks.iter_mut().zip(&counts) {
                    ranks.extend(rank..rank + count);
                    rank += count;
                }
            }
            Distribution::Cyclic => deal(&mut node_ranks, &counts, ntasks, 1),
            Distribution::Plane(size) => deal(&mut node_ranks, &counts, ntasks, size),
        }
        StepLayout { node_ranks }
    }

    pub fn num_tasks(&self) -> u32 {
        self.node_ranks.iter().map(|r| r.len() as u32).sum()
    }

    /// Tasks per node, as `SLURM_STEP_TASKS_PER_NODE` writes them: `2(x2),1`.
    pub fn tasks_per_node_text(&self) -> String {
        let counts: Vec<u32> = self.node_ranks.iter().map(|r| r.len() as u32).collect();
        runs_text(&counts)
    }

    /// The node running `rank`, by index.
    pub fn node_of(&self, rank: u32) -> Option<usize> {
        self.node_ranks.iter().position(|r| r.contains(&rank))
    }
}

/// How many tasks each node gets.
fn task_counts(ntasks: u32, nodes: usize, per_node: Option<u32>) -> Vec<u32> {
    let n = u32::try_from(nodes).unwrap_or(u32::MAX);
    if let Some(per_node) = per_node.filter(|&p| p > 0) {
        let mut left = ntasks;
        return (0..nodes)
            .map(|_| {
                let here = per_node.min(left);
                left -= here;
                here
            })
            .collect();
    }
    let base = ntasks / n;
    let extra = ntasks % n;
    (0..n).map(|i| base + u32::from(i < extra)).collect()
}

/// Deals blocks of `size` ranks to the nodes in turn, skipping nodes that are full.
fn deal(node_ranks: &mut [Vec<u32>], counts: &[u32], ntasks: u32, size: u32) {
    let mut rank = 0;
    while rank < ntasks {
        let before = rank;
        for (ranks, &count) in node_ranks.iter_mut().zip(counts) {
            let mut taken = 0;
            while taken < size && rank < ntasks && (ranks.len() as u32) < count {
                ranks.push(rank);
                rank += 1;
                taken += 1;
            }
        }
        if rank == before {
            break;
        }
    }
}

/// `2(x2),1`: equal neighbours folded into `value(xN)`.
pub fn runs_text(counts: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < counts.len() {
        let value = counts[i];
        let run = counts[i..].iter().take_while(|&&c| c == value).count();
        parts.push(if run > 1 {
            format!("{value}(x{run})")
        } else {
            value.to_string()
        });
        i += run;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(layout: &StepLayout) -> Vec<Vec<u32>> {
        layout.node_ranks.clone()
    }

    #[test]
    fn block_gives_the_first_nodes_one_more() {
        let layout = StepLayout::new(5, 3, None, Distribution::Block);
        assert_eq!(ranks(&layout), vec![vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(layout.tasks_per_node_text(), "2(x2),1");
        assert_eq!(layout.num_tasks(), 5);
        assert_eq!(layout.node_of(3), Some(1));
    }

    #[test]
    fn cyclic_deals_ranks_in_turn() {
        let layout = StepLayout::new(4, 2, None, Distribution::Cyclic);
        assert_eq!(ranks(&layout), vec![vec![0, 2], vec![1, 3]]);
        assert_eq!(layout.tasks_per_node_text(), "2(x2)");
        let uneven = StepLayout::new(5, 3, None, Distribution::Cyclic);
        assert_eq!(ranks(&uneven), vec![vec![0, 3], vec![1, 4], vec![2]]);
    }

    #[test]
    fn plane_deals_blocks() {
        let layout = StepLayout::new(6, 2, None, Distribution::Plane(2));
        assert_eq!(ranks(&layout), vec![vec![0, 1, 4], vec![2, 3, 5]]);
    }

    #[test]
    fn tasks_per_node_fills_nodes_in_order() {
        let layout = StepLayout::new(3, 2, Some(2), Distribution::Block);
        assert_eq!(ranks(&layout), vec![vec![0, 1], vec![2]]);
        assert_eq!(layout.tasks_per_node_text(), "2,1");
    }

    #[test]
    fn distribution_values() {
        assert_eq!(Distribution::parse("cyclic"), Distribution::Cyclic);
        assert_eq!(Distribution::parse("cyclic:block"), Distribution::Cyclic);
        assert_eq!(Distribution::parse("block:cyclic"), Distribution::Block);
        assert_eq!(Distribution::parse("plane=3"), Distribution::Plane(3));
        assert_eq!(Distribution::parse("plane=0"), Distribution::Block);
        assert_eq!(Distribution::parse("arbitrary"), Distribution::Block);
    }

    #[test]
    fn runs() {
        assert_eq!(runs_text(&[2, 2, 1]), "2(x2),1");
        assert_eq!(runs_text(&[1]), "1");
        assert_eq!(runs_text(&[3, 1, 1]), "3,1(x2)");
        assert_eq!(runs_text(&[]), "");
    }
}
