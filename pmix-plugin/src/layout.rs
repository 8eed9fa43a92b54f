//! The step's task layout as the PMIx server sees it, and the strings derived from it (node list, per-node rank
//! lists, PMI-1 process mapping). Pure: no PMIx calls, no I/O.

use std::path::PathBuf;

/// One node of the step: the name the tasks see as their host, and the global ranks it runs, in local-rank order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTasks {
    /// The node's name (Slurm's node name, `PMIX_HOSTNAME` of its ranks).
    pub hostname: String,
    /// Global ranks placed on this node; position in the list is the local rank.
    pub ranks: Vec<u32>,
}

/// Everything the server needs to know about the step. Every node's server gets the same layout except for
/// `node_index`, `tmpdir` and `spool_dir`.
#[derive(Debug, Clone)]
pub struct StepLayout {
    pub job_id: u32,
    pub step_id: u32,
    /// PMIx namespace of the step; Slurm names it `slurm.pmix.<job>.<step>` (see [`StepLayout::slurm_nspace`]).
    pub nspace: String,
    /// Index in `nodes` of the node this server runs on.
    pub node_index: usize,
    /// Every node of the step, in node-index order (the order of `StepCollective::allgather`'s result).
    pub nodes: Vec<NodeTasks>,
    /// The job's user and group: only processes with these ids may connect as the step's ranks.
    pub uid: u32,
    pub gid: u32,
    /// Base directory of the tasks' PMIx directory (Slurm's TmpFS, `/tmp`): the server creates
    /// `<tmpdir>/spmix_appdir_<uid>_<job>.<step>` there, owned by the job's user.
    pub tmpdir: PathBuf,
    /// Base directory of the server's own PMIx directory (Slurm: SlurmdSpoolDir): `<spool_dir>/pmix.<job>.<step>`.
    pub spool_dir: PathBuf,
}

/// PMIx's limit on a namespace's length (`PMIX_MAX_NSLEN`, without the terminating NUL).
pub(crate) const MAX_NSLEN: usize = 255;

impl StepLayout {
    /// The namespace Slurm's mpi/pmix plugin gives a step.
    pub fn slurm_nspace(job_id: u32, step_id: u32) -> String {
        format!("slurm.pmix.{job_id}.{step_id}")
    }

    /// Checks the layout is one PMIx can serve: ranks 0..N each placed exactly once, names without separators.
    pub fn validate(&self) -> Result<(), String> {
        if self.nspace.is_empty() || self.nspace.len() > MAX_NSLEN || self.nspace.contains('\0') {
            return Err(format!("bad namespace {:?}", self.nspace));
        }
        if self.node_index >= self.nodes.len() {
            return Err(format!(
                "node index {} out of {} nodes",
                self.node_index,
                self.nodes.len()
            ));
        }
        let total = self.total_tasks();
        let mut seen = vec![false; total];
        for node in &self.nodes {
            // The node list is handed to PMIx comma-separated, and names end up in C strings.
            if node.hostname.is_empty()
                || node.hostname.contains([',', ';', '\0'])
                || node.hostname.len() > 255
            {
                return Err(format!("bad node name {:?}", node.hostname));
            }
            if node.ranks.is_empty() {
                return Err(format!("node {} has no tasks", node.hostname));
            }
            for &r in &node.ranks {
                match seen.get_mut(r as usize) {
                    Some(s) if !*s => *s = true,
                    Some(_) => return Err(format!("rank {r} placed twice")),
                    None => return Err(format!("rank {r} out of range for {total} tasks")),
                }
            }
        }
        Ok(())
    }

    /// Number of tasks in the whole step.
    pub fn total_tasks(&self) -> usize {
        self.nodes.iter().map(|n| n.ranks.len()).sum()
    }

    /// This node's entry (valid after `validate`).
    pub(crate) fn local(&self) -> Option<&NodeTasks> {
        self.nodes.get(self.node_index)
    }

    /// For each global rank: its node index and local rank.
    pub(crate) fn placement(&self) -> Vec<(u32, u16)> {
        let mut out = vec![(0u32, 0u16); self.total_tasks()];
        for (n, node) in self.nodes.iter().enumerate() {
            for (l, &r) in node.ranks.iter().enumerate() {
                if let Some(slot) = out.get_mut(r as usize) {
                    *slot = (n as u32, l as u16);
                }
            }
        }
        out
    }

    /// Comma-separated node names, the input of `PMIx_generate_regex`.
    pub(crate) fn node_list(&self) -> String {
        let names: Vec<&str> = self.nodes.iter().map(|n| n.hostname.as_str()).collect();
        names.join(",")
    }

    /// Each node's ranks, comma-separated, nodes separated by `;`: the input of `PMIx_generate_ppn`.
    pub(crate) fn ranks_per_node(&self) -> String {
        let per: Vec<String> = self.nodes.iter().map(|n| join(&n.ranks, ",")).collect();
        per.join(";")
    }

    /// `PMIX_LOCAL_PEERS`: this node's ranks, comma-separated.
    pub(crate) fn local_peers(&self) -> String {
        self.local()
            .map(|n| join(&n.ranks, ","))
            .unwrap_or_default()
    }

    /// The PMI-1 process mapping (`PMIX_ANL_MAP`, Slurm's `SLURM_PMIX_MAPPING_SERV`): runs of
    /// `(first node, node count, ranks per node)`, each run placing consecutive ranks in blocks on consecutive
    /// nodes, e.g. `(vector,(0,2,2))` for ranks 0,1 on node 0 and 2,3 on node 1.
    pub fn process_mapping(&self) -> String {
        let placement = self.placement();
        // Blocks of consecutive ranks on one node: (node, length).
        let mut blocks: Vec<(u32, u32)> = Vec::new();
        for &(node, _) in &placement {
            match blocks.last_mut() {
                Some((n, len)) if *n == node => *len += 1,
                _ => blocks.push((node, 1)),
            }
        }
        // Runs of equal-length blocks on consecutive nodes: (first node, node count, block length).
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        for (node, len) in blocks {
            match runs.last_mut() {
                Some((first, count, l)) if *l == len && *first + *count == node => *count += 1,
                _ => runs.push((node, 1, len)),
            }
        }
        let mut out = String::from("(vector");
        for (first, count, len) in runs {
            out.push_str(&format!(",({first},{count},{len})"));
        }
        out.push(')');
        out
    }
}

fn join(ranks: &[u32], sep: &str) -> String {
    let v: Vec<String> = ranks.iter().map(u32::to_string).collect();
    v.join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(nodes: &[&[u32]]) -> StepLayout {
        StepLayout {
            job_id: 5,
            step_id: 0,
            nspace: StepLayout::slurm_nspace(5, 0),
            node_index: 0,
            nodes: nodes
                .iter()
                .enumerate()
                .map(|(i, r)| NodeTasks {
                    hostname: format!("n{}", i + 1),
                    ranks: r.to_vec(),
                })
                .collect(),
            uid: 1000,
            gid: 1000,
            tmpdir: "/tmp".into(),
            spool_dir: "/var/spool".into(),
        }
    }

    #[test]
    fn block_and_cyclic_mappings_match_slurm_format() {
        assert_eq!(layout(&[&[0, 1, 2]]).process_mapping(), "(vector,(0,1,3))");
        assert_eq!(
            layout(&[&[0, 1], &[2, 3], &[4, 5]]).process_mapping(),
            "(vector,(0,3,2))"
        );
        assert_eq!(
            layout(&[&[0, 3], &[1, 4], &[2, 5]]).process_mapping(),
            "(vector,(0,3,1),(0,3,1))"
        );
        assert_eq!(
            layout(&[&[0, 1, 2], &[3]]).process_mapping(),
            "(vector,(0,1,3),(1,1,1))"
        );
    }

    #[test]
    fn derived_strings() {
        let l = layout(&[&[0, 2], &[1, 3]]);
        assert_eq!(l.node_list(), "n1,n2");
        assert_eq!(l.ranks_per_node(), "0,2;1,3");
        assert_eq!(l.local_peers(), "0,2");
        assert_eq!(l.placement(), vec![(0, 0), (1, 0), (0, 1), (1, 1)]);
        assert_eq!(l.nspace, "slurm.pmix.5.0");
    }

    #[test]
    fn validation_refuses_bad_layouts() {
        assert!(layout(&[&[0, 1], &[2]]).validate().is_ok());
        assert!(layout(&[&[0, 1], &[1]]).validate().is_err());
        assert!(layout(&[&[0, 3]]).validate().is_err());
        assert!(layout(&[&[0], &[]]).validate().is_err());
        let mut l = layout(&[&[0]]);
        l.node_index = 1;
        assert!(l.validate().is_err());
        let mut l = layout(&[&[0]]);
        l.nodes[0].hostname = "a,b".into();
        assert!(l.validate().is_err());
        let mut l = layout(&[&[0]]);
        l.nspace = "x".repeat(256);
        assert!(l.validate().is_err());
    }
}
