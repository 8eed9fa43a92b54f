//! Confining a job with cgroups, v1 (one hierarchy per controller) or v2 (the unified hierarchy), in the layout
//! Slurm uses: `<mount>/spur_<node>/uid_<uid>/job_<id>/step_batch` (for v1 under each controller's mount). The
//! node name keeps several agents on one host apart, as Slurm's `slurm_<node>` does.
//!
//! The directories and their limits exist before the script is forked; the child writes itself into
//! `cgroup.procs` (files the supervisor opened for it) before it drops root and execs, so no instruction of the
//! job runs unconfined. What cannot be enforced (stepd not root, a controller not mounted, a device filter the
//! kernel refuses) is skipped with a warning in stepd's log, and the job still runs.

mod bpf;
mod fs;
mod listing;
mod v1;
mod v2;

use std::fs::File;
use std::path::{Path, PathBuf};

use spur_core::wire::supervisor::CgroupSpec;

pub use listing::{adopt_into_extern, node_steps, StepDir};

/// Where cgroup file systems are mounted on every supported distribution.
pub const CGROUP_ROOT: &str = "/sys/fs/cgroup";
/// The leaf of the batch step, as in Slurm.
pub const BATCH_STEP: &str = "step_batch";

/// The leaf of the extern step (`PrologFlags=Contain`), as in Slurm.
pub const EXTERN_STEP: &str = "step_extern";

/// Which cgroup version a mount point holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hierarchy {
    /// One mount per controller under `root` (`root/cpuset`, `root/memory`, ...).
    V1 { root: PathBuf },
    /// One unified tree at `root`.
    V2 { root: PathBuf },
}

impl Hierarchy {
    /// Looks at [`CGROUP_ROOT`]: a cgroup2 file system there is v2; otherwise v1 controllers are expected in
    /// its subdirectories (a hybrid host's empty `unified` tree is ignored, as Slurm does).
    pub fn detect() -> Option<Hierarchy> {
        Self::detect_at(Path::new(CGROUP_ROOT))
    }

    pub fn detect_at(root: &Path) -> Option<Hierarchy> {
        let fs = nix::sys::statfs::statfs(root).ok()?;
        if fs.filesystem_type() == nix::sys::statfs::CGROUP2_SUPER_MAGIC {
            Some(Hierarchy::V2 {
                root: root.to_path_buf(),
            })
        } else if root.join("cgroup.controllers").exists() {
            // A v2 tree mounted somewhere statfs could not classify (e.g. inside a test tree).
            Some(Hierarchy::V2 {
                root: root.to_path_buf(),
            })
        } else if v1::CONTROLLERS.iter().any(|c| root.join(c).is_dir()) {
            Some(Hierarchy::V1 {
                root: root.to_path_buf(),
            })
        } else {
            None
        }
    }

    /// `spur_<node>` under every mount this hierarchy uses.
    fn node_dirs(&self, node: &str) -> Vec<PathBuf> {
        let name = node_dir_name(node);
        match self {
            Hierarchy::V1 { root } => v1::CONTROLLERS
                .iter()
                .map(|c| root.join(c).join(&name))
                .collect(),
            Hierarchy::V2 { root } => vec![root.join(&name)],
        }
    }
}

fn node_dir_name(node: &str) -> String {
    format!("spur_{node}")
}

/// `spur_<node>/uid_<uid>/job_<id>` relative to a mount.
pub fn job_rel_path(node: &str, uid: u32, job_id: u32) -> PathBuf {
    PathBuf::from(node_dir_name(node))
        .join(format!("uid_{uid}"))
        .join(format!("job_{job_id}"))
}

/// `cgroup.procs` of the batch step's cgroups of a job running on this node (one per mount), for the tasks of
/// the job's srun steps started here by `spurstepd --step`: they share the batch step's limits, as srun's own
/// tasks (its descendants) do. Empty when the job has no cgroups here.
pub fn batch_step_procs(node: &str, uid: u32, job_id: u32) -> Vec<File> {
    let Some(hierarchy) = Hierarchy::detect() else {
        return Vec::new();
    };
    let rel = job_rel_path(node, uid, job_id).join(BATCH_STEP);
    let mounts: Vec<PathBuf> = match &hierarchy {
        Hierarchy::V1 { root } => v1::CONTROLLERS.iter().map(|c| root.join(c)).collect(),
        Hierarchy::V2 { root } => vec![root.clone()],
    };
    mounts
        .iter()
        .map(|m| m.join(&rel))
        .filter(|dir| dir.is_dir())
        .filter_map(|dir| fs::open_procs(&dir).ok())
        .collect()
}

/// `PrologFlags=Contain`: makes the job's extern step cgroup on this node (`job_<id>/step_extern`, under v1's
/// freezer, which tracks processes without limiting them), for processes that join the job from outside Spur
/// (`pam_slurm_adopt` after an ssh login). It holds no limits of its own and no process of Spur's; it goes with
/// the job's cgroups when the job ends ([`clean_jobs`], or the batch supervisor's [`JobCgroups::remove`]).
/// Returns the step directories made.
pub fn create_extern(
    hierarchy: &Hierarchy,
    node: &str,
    uid: u32,
    job_id: u32,
) -> Result<Vec<PathBuf>, String> {
    let mut warnings = Vec::new();
    let rel = job_rel_path(node, uid, job_id);
    let spec = CgroupSpec::default();
    let made = match hierarchy {
        Hierarchy::V1 { root } => v1::create(root, &rel, EXTERN_STEP, &spec, &mut warnings),
        Hierarchy::V2 { root } => v2::create(root, &rel, EXTERN_STEP, &spec, &mut warnings),
    };
    match made {
        Some(cgroups) => Ok(cgroups.step_dirs()),
        None => Err(warnings.join("; ")),
    }
}

/// One job's cgroups on one mount (one per v1 controller, one for v2).
#[derive(Debug, Clone)]
struct Tree {
    job_dir: PathBuf,
    step_dir: PathBuf,
    /// Whether each task gets `task_<rank>` below the step (Slurm does for v1 memory and devices, which account
    /// and filter per task; the step's limits still bound all of them).
    per_task: bool,
}

/// The leaf of one task below its step, named after the task's rank in the step, as in Slurm.
pub fn task_dir_name(rank: u32) -> String {
    format!("task_{rank}")
}

/// The cgroups made for one job; remove them with [`JobCgroups::remove`] once its processes are gone.
#[derive(Debug)]
pub struct JobCgroups {
    trees: Vec<Tree>,
    /// The memory tree and the file whose `oom_kill` counter tells whether the memory controller killed something.
    memory: Option<(Tree, &'static str)>,
}

/// What setting up the cgroups produced: the cgroups (if any could be made) and what could not be enforced.
pub struct Setup {
    pub cgroups: Option<JobCgroups>,
    pub warnings: Vec<String>,
}

impl Setup {
    /// With `spec.required`, the job (`whole_job`) or step must not start when any limit could not be applied:
    /// the reason, after the directories made for it are removed. `Ok`: the cgroups to run in (if any).
    pub fn enforced(
        self,
        spec: &CgroupSpec,
        whole_job: bool,
    ) -> Result<Option<JobCgroups>, String> {
        if !spec.required || (self.warnings.is_empty() && self.cgroups.is_some()) {
            return Ok(self.cgroups);
        }
        let _ = match self.cgroups {
            Some(cgroups) if whole_job => cgroups.remove(),
            Some(cgroups) => cgroups.remove_step(),
            None => Vec::new(),
        };
        let why = if self.warnings.is_empty() {
            "no cgroup could be made".to_string()
        } else {
            self.warnings.join("; ")
        };
        Err(format!("confinement required but not possible: {why}"))
    }
}

/// How often making a job's directories is retried when a parent vanishes under it: another job of the same
/// user may remove the `uid_<n>` directory (its last job ended) between our mkdirs.
pub(crate) const CREATE_ATTEMPTS: usize = 3;

/// Creates the job's cgroups under `hierarchy`, with the step directory `step` (`step_batch`, `step_3`), and
/// writes the limits of `spec` into both levels. Directories that exist already are reused.
pub fn create(
    hierarchy: Option<&Hierarchy>,
    spec: &CgroupSpec,
    node: &str,
    uid: u32,
    job_id: u32,
    step: &str,
) -> Setup {
    let mut warnings = Vec::new();
    if !nix::unistd::geteuid().is_root() {
        warnings.push(format!(
            "spurstepd is not root: job {job_id} runs without cgroup confinement"
        ));
        return Setup {
            cgroups: None,
            warnings,
        };
    }
    let Some(hierarchy) = hierarchy else {
        warnings.push(format!(
            "no cgroup file system at {CGROUP_ROOT}: job {job_id} runs without cgroup confinement"
        ));
        return Setup {
            cgroups: None,
            warnings,
        };
    };
    let rel = job_rel_path(node, uid, job_id);
    let made = match hierarchy {
        Hierarchy::V1 { root } => v1::create(root, &rel, step, spec, &mut warnings),
        Hierarchy::V2 { root } => v2::create(root, &rel, step, spec, &mut warnings),
    };
    Setup {
        cgroups: made,
        warnings,
    }
}

impl JobCgroups {
    /// `cgroup.procs` of the directories task `rank` joins before it execs: the step directory, or on mounts
    /// that account per task the task's own `task_<rank>` below it, made here. A task directory has no limits
    /// of its own (the step's bound it), and v1 devices copies the step's rules into it when it is made.
    pub fn attach_files(&self, rank: u32) -> std::io::Result<Vec<File>> {
        self.trees
            .iter()
            .map(|t| {
                if !t.per_task {
                    return fs::open_procs(&t.step_dir);
                }
                let dir = t.step_dir.join(task_dir_name(rank));
                match std::fs::create_dir(&dir) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                    _ => {}
                }
                fs::open_procs(&dir)
            })
            .collect()
    }

    /// The step directories (one per mount), for tests and logs.
    pub fn step_dirs(&self) -> Vec<PathBuf> {
        self.trees.iter().map(|t| t.step_dir.clone()).collect()
    }

    /// How many processes the memory controller killed in the job. v1 counts a kill only in the cgroup of the
    /// process killed (the step's or one of its tasks'), v2 also in every ancestor: the larger of the step's sum
    /// and the job's counter is right for both.
    pub fn oom_kills(&self) -> u64 {
        let Some((tree, file)) = &self.memory else {
            return 0;
        };
        let in_job = fs::keyed(&tree.job_dir, file, "oom_kill").unwrap_or(0);
        in_job.max(self.step_oom_kills())
    }

    /// How many processes of the step the memory controller killed: in the step's directory and, where tasks
    /// have directories of their own, in theirs (v1 counts a kill only where the process was).
    pub fn step_oom_kills(&self) -> u64 {
        let Some((tree, file)) = &self.memory else {
            return 0;
        };
        let in_step = fs::keyed(&tree.step_dir, file, "oom_kill").unwrap_or(0);
        if !tree.per_task {
            return in_step;
        }
        let in_tasks: u64 = std::fs::read_dir(&tree.step_dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| e.file_name().to_string_lossy().starts_with("task_"))
                    .filter_map(|e| fs::keyed(&e.path(), file, "oom_kill"))
                    .sum()
            })
            .unwrap_or(0);
        in_step + in_tasks
    }

    /// Kills what is left in the step's directories and removes them, leaving the job's (other steps of the job
    /// may still run in it). Returns the directories that could not be removed.
    pub fn remove_step(self) -> Vec<String> {
        self.trees
            .iter()
            .filter_map(|tree| {
                fs::drain_and_remove(&tree.step_dir)
                    .err()
                    .map(|e| format!("{}: {e}", tree.step_dir.display()))
            })
            .collect()
    }

    /// Kills what is left in the job's cgroups and removes them, and the user's directory when no other job of
    /// the user remains. Returns the directories that could not be removed.
    pub fn remove(self) -> Vec<String> {
        let mut failed = Vec::new();
        for tree in &self.trees {
            if let Err(e) = fs::drain_and_remove(&tree.job_dir) {
                failed.push(format!("{}: {e}", tree.job_dir.display()));
            }
            if let Some(uid_dir) = tree.job_dir.parent() {
                fs::remove_if_unused(uid_dir);
            }
        }
        failed
    }
}

/// Removes the cgroups of the jobs `job_ids` on `node` (under whichever user they ran), killing what still runs
/// in them: the agent's clean-up for jobs whose supervisor is gone. Only jobs the caller names are touched, so
/// two clusters whose nodes share a name on one host (test clusters) never clean each other's jobs. Returns the
/// job ids it found and removed.
pub fn clean_jobs(hierarchy: &Hierarchy, node: &str, job_ids: &[u32]) -> Vec<u32> {
    let mut cleaned = Vec::new();
    for node_dir in hierarchy.node_dirs(node) {
        let Ok(users) = std::fs::read_dir(&node_dir) else {
            continue;
        };
        let uid_dirs = users.filter_map(Result::ok).map(|e| e.path()).filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("uid_"))
        });
        for uid_dir in uid_dirs {
            for &id in job_ids {
                let job_dir = uid_dir.join(format!("job_{id}"));
                if job_dir.is_dir()
                    && fs::drain_and_remove(&job_dir).is_ok()
                    && !cleaned.contains(&id)
                {
                    cleaned.push(id);
                }
            }
            fs::remove_if_unused(&uid_dir);
        }
    }
    cleaned
}

/// The device number of a block or character device node; `None` for anything else.
fn device_of(path: &Path) -> Option<bpf::Device> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = std::fs::metadata(path).ok()?;
    let kind = if meta.file_type().is_char_device() {
        bpf::DEV_CHAR
    } else if meta.file_type().is_block_device() {
        bpf::DEV_BLOCK
    } else {
        return None;
    };
    let rdev = meta.rdev();
    Some(bpf::Device {
        kind,
        major: u32::try_from(nix::sys::stat::major(rdev)).ok()?,
        minor: u32::try_from(nix::sys::stat::minor(rdev)).ok()?,
    })
}

/// Slurm's line in the job's stderr when the memory controller killed processes of the batch step.
pub fn oom_line(hostname: &str, job_id: u32, kills: u64) -> String {
    format!(
        "slurmstepd-{hostname}: error: {}\n",
        oom_text(&format!("{job_id}.batch"), kills)
    )
}

/// What slurmstepd says when the memory controller killed `kills` processes of step `step` (`12.batch`, `12.0`).
pub fn oom_text(step: &str, kills: u64) -> String {
    format!(
        "Detected {kills} oom-kill event(s) in StepId={step}. Some of your processes may have been killed by the \
         cgroup out-of-memory handler."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_message() {
        assert_eq!(
            job_rel_path("vm", 1000, 42),
            PathBuf::from("spur_vm/uid_1000/job_42")
        );
        // The text real slurmstepd 22.05 wrote for a job killed at --mem=50M.
        assert_eq!(
            oom_line("vm", 1, 1),
            "slurmstepd-vm: error: Detected 1 oom-kill event(s) in StepId=1.batch. Some of your processes \
             may have been killed by the cgroup out-of-memory handler.\n"
        );
    }
}
