//! What the node's cgroup tree says about the steps running here, for the agent's step socket
//! (agent/src/stepd_socket.rs, which answers libspur_compat's `slurm_stepd_*`): the tree is the record of every
//! step a job has on this node (`spur_<node>/uid_<uid>/job_<id>/step_<name>`), including the extern step that
//! `PrologFlags=Contain` makes, so nothing else needs keeping and an agent restart loses nothing.

use std::path::{Path, PathBuf};

use super::{fs, job_rel_path, v1, Hierarchy, EXTERN_STEP};

/// One step directory found under the node's tree.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct StepDir {
    pub job_id: u32,
    /// `extern`, `batch`, or the step number, as the directory names it after `step_`.
    pub step: String,
    pub uid: u32,
}

/// The mount whose tree records every step: v1's freezer (the controller every job and extern step is made
/// under), v2's unified tree.
fn tracking_mount(hierarchy: &Hierarchy) -> PathBuf {
    match hierarchy {
        Hierarchy::V1 { root } => root.join("freezer"),
        Hierarchy::V2 { root } => root.clone(),
    }
}

/// `prefix<number>` of a directory name.
fn numbered(name: &str, prefix: &str) -> Option<u32> {
    name.strip_prefix(prefix)?.parse().ok()
}

fn subdirs(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect()
}

/// Every step of every job with cgroups on `node`, sorted by job id then step name (a job's steps together, the
/// oldest job first).
pub fn node_steps(hierarchy: &Hierarchy, node: &str) -> Vec<StepDir> {
    let node_dir = tracking_mount(hierarchy).join(super::node_dir_name(node));
    let mut steps = Vec::new();
    for (uid_name, uid_dir) in subdirs(&node_dir) {
        let Some(uid) = numbered(&uid_name, "uid_") else {
            continue;
        };
        for (job_name, job_dir) in subdirs(&uid_dir) {
            let Some(job_id) = numbered(&job_name, "job_") else {
                continue;
            };
            for (step_name, _) in subdirs(&job_dir) {
                if let Some(step) = step_name.strip_prefix("step_") {
                    steps.push(StepDir {
                        job_id,
                        step: step.to_string(),
                        uid,
                    });
                }
            }
        }
    }
    steps.sort();
    steps
}

/// Places process `pid` into the extern step of job `job_id` (owned by `uid`) on `node`: its `step_extern`
/// cgroups, and on v1 also the job's own directory under every other controller the job is confined by, so the
/// process is held to the job's limits and counted with it (it is killed with the job's cgroups when the job
/// ends). Fails when the job has no extern step here or the kernel refuses the move.
pub fn adopt_into_extern(
    hierarchy: &Hierarchy,
    node: &str,
    uid: u32,
    job_id: u32,
    pid: u32,
) -> Result<(), String> {
    let rel = job_rel_path(node, uid, job_id);
    let step_dir = tracking_mount(hierarchy).join(&rel).join(EXTERN_STEP);
    if !step_dir.is_dir() {
        return Err(format!("{} does not exist", step_dir.display()));
    }
    let pid = pid.to_string();
    fs::write(&step_dir, "cgroup.procs", &pid)
        .map_err(|e| format!("{}: {e}", step_dir.display()))?;
    if let Hierarchy::V1 { root } = hierarchy {
        for controller in v1::CONTROLLERS.iter().filter(|c| **c != "freezer") {
            let job_dir = root.join(controller).join(&rel);
            let target = if job_dir.join(EXTERN_STEP).is_dir() {
                job_dir.join(EXTERN_STEP)
            } else {
                job_dir
            };
            if target.is_dir() {
                fs::write(&target, "cgroup.procs", &pid)
                    .map_err(|e| format!("{}: {e}", target.display()))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_read_from_the_tree_and_foreign_names_skipped() {
        let root = std::env::temp_dir().join(format!("spur-listing-{}", std::process::id()));
        let v2 = Hierarchy::V2 { root: root.clone() };
        let node = root.join("spur_n1");
        for dir in [
            "uid_1000/job_7/step_extern",
            "uid_1000/job_7/step_batch",
            "uid_0/job_3/step_0",
            "uid_x/job_9/step_extern",
            "uid_5/other/step_extern",
        ] {
            std::fs::create_dir_all(node.join(dir)).unwrap();
        }
        let steps = node_steps(&v2, "n1");
        let names: Vec<_> = steps
            .iter()
            .map(|s| format!("{}.{}:{}", s.job_id, s.step, s.uid))
            .collect();
        assert_eq!(names, ["3.0:0", "7.batch:1000", "7.extern:1000"]);
        assert!(node_steps(&v2, "n2").is_empty());
        // No extern step: nothing to adopt into (the plain directory tree here is not a cgroup file system).
        assert!(adopt_into_extern(&v2, "n1", 0, 3, 1).is_err());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
