//! cgroup v2: one tree. Controllers are enabled down to the job level through `cgroup.subtree_control` (only
//! leaves hold processes); limits go into the job and the step directories. v2 has no devices controller:
//! device rules are an eBPF program attached to the job's directory ([`super::bpf`]).

use std::path::Path;

use super::{fs, Tree};
use spur_core::wire::supervisor::CgroupSpec;

pub(super) fn create(
    root: &Path,
    rel: &Path,
    step: &str,
    spec: &CgroupSpec,
    warnings: &mut Vec<String>,
) -> Option<super::JobCgroups> {
    let available = fs::read(root, "cgroup.controllers").unwrap_or_default();
    let has = |c: &str| available.split_whitespace().any(|a| a == c);
    let mut wanted: Vec<&str> = Vec::new();
    if spec.cpus.is_some() {
        wanted.push("cpuset");
    }
    if spec.memory.is_some() {
        wanted.push("memory");
    }
    if spec.pids_max.is_some() {
        wanted.push("pids");
    }
    wanted.retain(|c| {
        let ok = has(c);
        if !ok {
            warnings.push(format!(
                "cgroup v2 controller {c} is not available in {}: not confined",
                root.display()
            ));
        }
        ok
    });
    match fs::retry_vanished(|| make_tree(root, rel, step, &wanted, spec)) {
        Ok(tree) => {
            if spec.constrain_devices {
                deny_devices(&tree.job_dir, &spec.denied_devices, warnings);
            }
            let memory = wanted
                .contains(&"memory")
                .then(|| (tree.clone(), "memory.events"));
            Some(super::JobCgroups {
                trees: vec![tree],
                memory,
            })
        }
        Err(e) => {
            warnings.push(format!(
                "cannot set up the cgroup {}: {e}",
                root.join(rel).display()
            ));
            let _ = fs::drain_and_remove(&root.join(rel));
            None
        }
    }
}

fn make_tree(
    root: &Path,
    rel: &Path,
    step: &str,
    wanted: &[&str],
    spec: &CgroupSpec,
) -> std::io::Result<Tree> {
    let enable: String = wanted
        .iter()
        .map(|c| format!("+{c}"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut dir = root.to_path_buf();
    if !enable.is_empty() {
        fs::write(&dir, "cgroup.subtree_control", &enable)?;
    }
    for part in rel.iter() {
        dir.push(part);
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        if !enable.is_empty() {
            fs::write(&dir, "cgroup.subtree_control", &enable)?;
        }
    }
    let job_dir = dir.clone();
    let step_dir = job_dir.join(step);
    match std::fs::create_dir(&step_dir) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    if let (true, Some(max)) = (wanted.contains(&"pids"), spec.pids_max) {
        fs::write(&job_dir, "pids.max", &max.to_string())?;
    }
    for level in [&job_dir, &step_dir] {
        if wanted.contains(&"cpuset") {
            if let Some(cpus) = &spec.cpus {
                fs::write(level, "cpuset.cpus", cpus)?;
            }
        }
        let limits = spec.memory_at(level == &step_dir);
        if let (true, Some(limits)) = (wanted.contains(&"memory"), limits) {
            fs::write(level, "memory.max", &limits.ram_bytes.to_string())?;
            if let Some(total) = limits.ram_swap_bytes {
                let swap = total.saturating_sub(limits.ram_bytes);
                if level.join("memory.swap.max").exists() {
                    fs::write(level, "memory.swap.max", &swap.to_string())?;
                }
            }
        }
    }
    // Tasks stay in the step directory: v2 keeps no per-task accounting that a task directory would add, and
    // a child of the step would need the step's controllers delegated to it to be worth having.
    Ok(Tree {
        job_dir,
        step_dir,
        per_task: false,
    })
}

/// Attaches the device filter to the job's directory, so the step and anything below it are covered.
fn deny_devices(job_dir: &Path, devices: &[std::path::PathBuf], warnings: &mut Vec<String>) {
    let mut denied = Vec::new();
    for path in devices {
        match super::device_of(path) {
            Some(d) => denied.push(d),
            None => warnings.push(format!(
                "{} is not a device node: not confined",
                path.display()
            )),
        }
    }
    if denied.is_empty() {
        return;
    }
    if let Err(e) = super::bpf::deny_devices(job_dir, &denied) {
        warnings.push(format!(
            "cannot attach the device filter to {}: {e}; the job may open every device",
            job_dir.display()
        ));
    }
}
