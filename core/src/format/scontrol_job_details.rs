//! What `scontrol -d show job` adds to a job record: `DerivedExitCode=` after the exit code, and for a job holding
//! (or that held) resources, `JOB_GRES=` and one `Nodes=... CPU_IDs=... Mem=... GRES=...` line.

use crate::format::arrays::format_task_ids;
use crate::format::job_view::JobView;
use crate::gpu_shard::SHARD_GRES;
use crate::records::NodeRecord;

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
        let (code, signal) = crate::step::derived_exit(&j.steps);
        format!("{code}:{signal}")
    }
}

/// The `JOB_GRES=` line and the indented `Nodes=` line under it (its two extra blanks also show in `-o` output),
/// or nothing for a job never allocated.
pub(crate) fn resource_lines(job: &JobView<'_>, details: &Details<'_>) -> Vec<String> {
    let Some(alloc) = job.job.alloc.as_ref().filter(|a| !a.node_names.is_empty()) else {
        return Vec::new();
    };
    if job.is_pending() {
        return Vec::new();
    }
    let first_node = details.nodes.iter().find(|n| n.name == alloc.node_names[0]);
    let gres: Vec<(String, Vec<u32>)> = alloc
        .gres_indices
        .iter()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(name, ids)| (gres_label(job, first_node, name), ids.clone()))
        .collect();
    // Shards count as shards, and their indices are the GPU they belong to.
    let indices_of = |label: &str, ids: &[u32]| -> Vec<u32> {
        if label.split(':').next() == Some(SHARD_GRES) {
            alloc.shard_gpus.clone()
        } else {
            ids.to_vec()
        }
    };
    let job_gres = if gres.is_empty() {
        "(null)".to_string()
    } else {
        gres.iter()
            .map(|(label, ids)| format!("{label}:{}", ids.len()))
            .collect::<Vec<_>>()
            .join(",")
    };
    let node_gres = gres
        .iter()
        .map(|(label, ids)| {
            let mut sorted = indices_of(label, ids);
            sorted.sort_unstable();
            format!("{label}:{}(IDX:{})", ids.len(), format_task_ids(&sorted))
        })
        .collect::<Vec<_>>()
        .join(",");
    let mut cores = if alloc.core_ids.is_empty() {
        (0..alloc.cpus).collect()
    } else {
        alloc.core_ids.clone()
    };
    cores.sort_unstable();
    vec![
        format!("JOB_GRES={job_gres}"),
        format!(
            "  Nodes={} CPU_IDs={} Mem={} GRES={node_gres}",
            crate::hostlist::compress(&alloc.node_names),
            format_task_ids(&cores),
            alloc.mem_mb
        ),
    ]
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
}
