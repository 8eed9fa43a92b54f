//! What `scontrol -d show job` adds to a job record: `DerivedExitCode=` after the exit code, and for a job holding
//! (or that held) resources, `JOB_GRES=` and a `Nodes=... CPU_IDs=... Mem=... GRES=...` line for each run of its
//! nodes that hold the same.

use crate::format::arrays::format_task_ids;
use crate::format::job_view::JobView;
use crate::model::records::NodeRecord;
use crate::policy::gpu_shard::SHARD_GRES;

/// Facts `-d` needs beyond the job records: the nodes, for the GRES types they hold.
#[derive(Debug, Clone, Copy, Default)]
pub struct Details<'a> {
    pub nodes: &'a [NodeRecord],
}

/// `DerivedExitCode=` value: for a batch job the highest exit code of its steps; a job run by srun or salloc
/// without a script derives it from its own end.
pub(crate) fn derived_exit_code(job: &JobView<'_>) -> String {
    let j = job.job;
    if !job.batch_flag() && j.start_time.is_some() {
        format!("{}:{}", j.exit_code, j.exit_signal)
    } else {
        let (code, signal) = crate::model::step::derived_exit(&j.steps);
        format!("{code}:{signal}")
    }
}

/// The `JOB_GRES=` line and the indented `Nodes=` lines under it (their two extra blanks also show in `-o` output),
/// or nothing for a job never allocated.
pub(crate) fn resource_lines(job: &JobView<'_>, details: &Details<'_>) -> Vec<String> {
    let Some(alloc) = job.job.alloc.as_ref().filter(|a| !a.node_names.is_empty()) else {
        return Vec::new();
    };
    if job.is_pending() {
        return Vec::new();
    }
    // The `at`-th node's GRES with their labels (the type that node has them under) and indices.
    let labelled = |at: usize| -> Vec<(String, Vec<u32>)> {
        let node = alloc
            .node_names
            .get(at)
            .and_then(|name| details.nodes.iter().find(|n| &n.name == name));
        alloc
            .units_on(at)
            .0
            .iter()
            .filter(|(_, ids)| !ids.is_empty())
            .map(|(name, ids)| (gres_label(job, node, name), ids.clone()))
            .collect()
    };
    // The job's whole count of each GRES, over all its nodes.
    let mut totals: Vec<(String, usize)> = Vec::new();
    for at in 0..alloc.node_names.len() {
        for (label, ids) in labelled(at) {
            match totals.iter_mut().find(|(l, _)| *l == label) {
                Some((_, count)) => *count += ids.len(),
                None => totals.push((label, ids.len())),
            }
        }
    }
    let job_gres = if totals.is_empty() {
        "(null)".to_string()
    } else {
        totals
            .iter()
            .map(|(label, count)| format!("{label}:{count}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    // Each node's GRES with its indices (shards count as shards, and their indices are the GPU they belong to).
    let node_gres = |at: usize| -> String {
        let shard_gpus = alloc.units_on(at).1;
        labelled(at)
            .iter()
            .map(|(label, ids)| {
                let mut sorted = if label.split(':').next() == Some(SHARD_GRES) {
                    shard_gpus.to_vec()
                } else {
                    ids.clone()
                };
                sorted.sort_unstable();
                format!("{label}:{}(IDX:{})", ids.len(), format_task_ids(&sorted))
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let mut cores = if alloc.core_ids.is_empty() {
        (0..alloc.cpus).collect()
    } else {
        alloc.core_ids.clone()
    };
    cores.sort_unstable();
    // One line per run of nodes holding the same, as slurmctld groups them.
    let mut runs: Vec<(Vec<String>, String)> = Vec::new();
    for (at, name) in alloc.node_names.iter().enumerate() {
        let text = node_gres(at);
        match runs.last_mut() {
            Some((names, last)) if *last == text => names.push(name.clone()),
            _ => runs.push((vec![name.clone()], text)),
        }
    }
    let mut lines = vec![format!("JOB_GRES={job_gres}")];
    lines.extend(runs.into_iter().map(|(names, text)| {
        format!(
            "  Nodes={} CPU_IDs={} Mem={} GRES={text}",
            crate::grammar::hostlist::compress(&names),
            format_task_ids(&cores),
            alloc.mem_mb
        )
    }));
    lines
}

/// `gpu:a100`: the GRES name with the type the node has it under (or the job asked for), `gpu` without one.
fn gres_label(job: &JobView<'_>, node: Option<&NodeRecord>, name: &str) -> String {
    // Shards take their type from their GPUs on the node, but slurmctld names only the one the job asked for.
    let node = node.filter(|_| name != SHARD_GRES);
    let gres_type = node
        .and_then(|n| n.gres.iter().find(|g| g.name == name))
        .and_then(|g| g.gres_type.clone())
        .or_else(|| {
            job.job
                .spec
                .gres
                .iter()
                .find(|g| g.name == name)
                .and_then(|g| g.gres_type.clone())
        });
    match gres_type {
        Some(t) => format!("{name}:{t}"),
        None => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::scontrol_job::render_with_details;
    use crate::format::test_records::{ctx, node, pending, running};

    /// Shapes from `scontrol -d show job` on Slurm 22.05 (a job with `-n2 --gres=gpu:a100:2`, a failed one without
    /// GRES, a held one).
    #[test]
    fn detail_lines_like_slurm() {
        let nodes = vec![node("n1")];
        let details = Details { nodes: &nodes };
        let mut job = running();
        job.alloc.as_mut().unwrap().node_names = vec!["n1".into()];
        job.alloc.as_mut().unwrap().cpus = 2;
        job.alloc.as_mut().unwrap().mem_mb = 2048;
        job.alloc
            .as_mut()
            .unwrap()
            .gres_indices
            .insert("gpu".into(), vec![1, 0]);
        let out = render_with_details(std::slice::from_ref(&job), false, Some(&details), &ctx());
        assert!(
            out.contains("ExitCode=0:0\n   DerivedExitCode=0:0\n"),
            "{out}"
        );
        assert!(
            out.contains(
                "CoreSpec=*\n   JOB_GRES=gpu:a100:2\n     Nodes=n1 CPU_IDs=0-1 Mem=2048 GRES=gpu:a100:2(IDX:0-1)\n   MinCPUsNode="
            ),
            "{out}"
        );
        job.alloc.as_mut().unwrap().gres_indices.clear();
        let one = render_with_details(std::slice::from_ref(&job), true, Some(&details), &ctx());
        assert!(
            one.contains(" JOB_GRES=(null)   Nodes=n1 CPU_IDs=0-1 Mem=2048 GRES= MinCPUsNode="),
            "{one}"
        );
        let held = render_with_details(&[pending()], false, Some(&details), &ctx());
        assert!(held.contains("DerivedExitCode=0:0"));
        assert!(!held.contains("JOB_GRES"));
        let plain = render_with_details(std::slice::from_ref(&job), false, None, &ctx());
        assert!(!plain.contains("DerivedExitCode") && !plain.contains("JOB_GRES"));
    }

    /// A job whose nodes hold different GPUs: one `Nodes=` line per run of nodes holding the same.
    #[test]
    fn nodes_with_their_own_gpus_get_lines_of_their_own() {
        use crate::model::job::NodeUnits;
        let nodes = vec![node("n1"), node("n2"), node("n3")];
        let details = Details { nodes: &nodes };
        let mut job = running();
        let alloc = job.alloc.as_mut().unwrap();
        alloc.node_names = vec!["n1".into(), "n2".into(), "n3".into()];
        alloc.cpus = 1;
        alloc.mem_mb = 0;
        let gpu = |i: u32| NodeUnits {
            gres_indices: [("gpu".to_string(), vec![i])].into(),
            shard_gpus: Vec::new(),
        };
        alloc.set_node_units(vec![gpu(1), gpu(0), gpu(0)]);
        let out = render_with_details(std::slice::from_ref(&job), false, Some(&details), &ctx());
        assert!(
            out.contains(
                "   JOB_GRES=gpu:a100:3\n     Nodes=n1 CPU_IDs=0 Mem=0 GRES=gpu:a100:1(IDX:1)\n     Nodes=n[2-3] CPU_IDs=0 Mem=0 GRES=gpu:a100:1(IDX:0)\n"
            ),
            "{out}"
        );
        // Each node's line names the type that node has its GPUs under.
        let mut mixed = nodes.clone();
        mixed[2].gres[0].gres_type = Some("h100".into());
        let details = Details { nodes: &mixed };
        let out = render_with_details(std::slice::from_ref(&job), false, Some(&details), &ctx());
        assert!(
            out.contains(
                "   JOB_GRES=gpu:a100:2,gpu:h100:1\n     Nodes=n1 CPU_IDs=0 Mem=0 GRES=gpu:a100:1(IDX:1)\n     Nodes=n2 CPU_IDs=0 Mem=0 GRES=gpu:a100:1(IDX:0)\n     Nodes=n3 CPU_IDs=0 Mem=0 GRES=gpu:h100:1(IDX:0)\n"
            ),
            "{out}"
        );
    }
}
