//! cgroup v1: one directory tree per controller. `freezer` always holds the job (it tracks every process the
//! job forks, whatever else is confined); `cpuset`, `memory`, `devices` and `pids` are used when the spec asks
//! for them.
//! Limits are written at the job and at the step level, as Slurm does.

use std::path::{Path, PathBuf};

use super::{fs, Tree};
use spur_core::model::isolation::MemoryLimits;
use spur_core::wire::supervisor::CgroupSpec;

/// Every controller Spur may use, in the order directories are made.
pub(crate) const CONTROLLERS: [&str; 5] = ["freezer", "cpuset", "memory", "devices", "pids"];

pub(super) fn create(
    root: &Path,
    rel: &Path,
    step: &str,
    spec: &CgroupSpec,
    warnings: &mut Vec<String>,
) -> Option<super::JobCgroups> {
    let mut trees = Vec::new();
    let mut memory = None;
    for controller in CONTROLLERS {
        let wanted = match controller {
            "cpuset" => spec.cpus.is_some(),
            "memory" => spec.memory.is_some(),
            "devices" => spec.constrain_devices,
            "pids" => spec.pids_max.is_some(),
            _ => true,
        };
        if !wanted {
            continue;
        }
        let mount = root.join(controller);
        if !mount.join("cgroup.procs").exists() {
            warnings.push(format!(
                "cgroup v1 controller {controller} is not mounted at {}: not confined",
                mount.display()
            ));
            continue;
        }
        let made = fs::retry_vanished(|| make_tree(&mount, rel, step, controller, spec, warnings));
        match made {
            Ok(tree) => {
                if controller == "memory" {
                    memory = Some((tree.clone(), "memory.oom_control"));
                }
                trees.push(tree);
            }
            Err(e) => {
                warnings.push(format!(
                    "cannot set up the {controller} cgroup {}: {e}",
                    mount.join(rel).display()
                ));
                let _ = fs::drain_and_remove(&mount.join(rel));
            }
        }
    }
    (!trees.is_empty()).then_some(super::JobCgroups { trees, memory })
}

fn make_tree(
    mount: &Path,
    rel: &Path,
    step: &str,
    controller: &str,
    spec: &CgroupSpec,
    warnings: &mut Vec<String>,
) -> std::io::Result<Tree> {
    let job_dir = mount.join(rel);
    let step_dir = job_dir.join(step);
    // Top down, each level usable before the next is made: a new cpuset needs cpus and mems, and a parent's
    // cpuset cannot shrink below a child's, so the job's limits go in before its step exists.
    let mut dir = mount.to_path_buf();
    for part in rel.iter().chain(std::iter::once(step.as_ref())) {
        dir.push(part);
        make_dir(&dir)?;
        if controller == "cpuset" {
            inherit_cpuset(&dir)?;
        }
        if dir != job_dir && dir != step_dir {
            continue;
        }
        let level = &dir;
        match controller {
            "cpuset" => {
                if let Some(cpus) = &spec.cpus {
                    fs::write(level, "cpuset.cpus", cpus)?;
                }
            }
            "memory" => {
                if let Some(limits) = spec.memory_at(dir == step_dir) {
                    write_memory(level, limits, warnings)?;
                }
            }
            "devices" => deny_devices(level, &spec.denied_devices, warnings)?,
            // One count for the whole job: its steps share it.
            "pids" if dir == job_dir => {
                if let Some(max) = spec.pids_max {
                    fs::write(level, "pids.max", &max.to_string())?;
                }
            }
            _ => {}
        }
    }
    Ok(Tree {
        job_dir,
        step_dir,
        per_task: matches!(controller, "memory" | "devices"),
    })
}

fn make_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

/// A new v1 cpuset starts with no cpus and no memory nodes and refuses tasks; take the parent's.
fn inherit_cpuset(dir: &Path) -> std::io::Result<()> {
    let Some(parent) = dir.parent() else {
        return Ok(());
    };
    for file in ["cpuset.mems", "cpuset.cpus"] {
        if fs::read(dir, file)?.trim().is_empty() {
            fs::write(dir, file, fs::read(parent, file)?.trim())?;
        }
    }
    Ok(())
}

fn write_memory(
    dir: &Path,
    limits: &MemoryLimits,
    warnings: &mut Vec<String>,
) -> std::io::Result<()> {
    fs::write(dir, "memory.limit_in_bytes", &limits.ram_bytes.to_string())?;
    fs::write(
        dir,
        "memory.soft_limit_in_bytes",
        &limits.soft_bytes.to_string(),
    )?;
    if let Some(swap) = limits.ram_swap_bytes {
        if dir.join("memory.memsw.limit_in_bytes").exists() {
            fs::write(dir, "memory.memsw.limit_in_bytes", &swap.to_string())?;
        } else if !warnings.iter().any(|w| w.contains("memsw")) {
            warnings.push(
                "the kernel does not account swap (no memory.memsw.limit_in_bytes): swap not confined"
                    .into(),
            );
        }
    }
    Ok(())
}

/// Adds a `devices.deny` rule for each device file; files that are missing or not devices are reported.
fn deny_devices(
    dir: &Path,
    devices: &[PathBuf],
    warnings: &mut Vec<String>,
) -> std::io::Result<()> {
    for path in devices {
        match device_rule(path) {
            Some(rule) => fs::write(dir, "devices.deny", &rule)?,
            None => {
                let text = format!("{} is not a device node: not confined", path.display());
                if !warnings.contains(&text) {
                    warnings.push(text);
                }
            }
        }
    }
    Ok(())
}

/// `c 195:1 rwm` for a character device, `b ...` for a block device.
pub(crate) fn device_rule(path: &Path) -> Option<String> {
    let d = super::device_of(path)?;
    let kind = if d.kind == super::bpf::DEV_BLOCK {
        'b'
    } else {
        'c'
    };
    Some(format!("{kind} {}:{} rwm", d.major, d.minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_rules() {
        assert_eq!(
            device_rule(Path::new("/dev/null")).as_deref(),
            Some("c 1:3 rwm")
        );
        assert_eq!(device_rule(Path::new("/etc/hostname")), None);
        assert_eq!(device_rule(Path::new("/no/such/device")), None);
    }
}
