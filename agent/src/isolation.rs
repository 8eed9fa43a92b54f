//! This node's confinement policy: `cgroup.conf` beside slurm.conf (read only when `TaskPlugin` includes
//! task/cgroup, as in Slurm) turned into the limits of each job's launch request. spurstepd writes them into
//! cgroups; the arithmetic lives in `spur_core::model::isolation`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use spur_core::grammar::conf::CgroupConf;
use spur_core::model::isolation::{cpu_list, denied_devices, memory_limits, pick_cores_near};
use spur_core::model::job::{Allocation, JobRecord, UnitsOnNode};
use spur_core::model::records::GPU_GRES;
use spur_core::wire::agent_proto::LaunchContext;
use spur_core::wire::supervisor::CgroupSpec;

/// What the agent confines jobs to on this node.
#[derive(Debug, Clone, PartialEq)]
pub struct Isolation {
    pub conf: CgroupConf,
    /// CPU ids 0..node_cpus exist on this machine.
    pub node_cpus: u32,
    pub node_mem_mb: u64,
    /// Per GPU device file, the cores of its NUMA node: a GPU job's cores are taken there first (docs/gpus.md).
    pub gpu_cores: BTreeMap<String, BTreeSet<u32>>,
    /// spurd's `--job-pids-max`: the most processes and threads a job may have on this node.
    pub pids_max: Option<u64>,
    /// spurd's `--require-confinement`: a job whose limits cannot all be applied does not start.
    pub required: bool,
}

/// Reads `cgroup.conf` from the directory of `slurm_conf`. `Ok(None)` when jobs are not confined: TaskPlugin
/// lacks task/cgroup, the file is missing, or it constrains nothing.
pub fn load(slurm_conf: &Path, task_plugin: &str) -> Result<Option<CgroupConf>, String> {
    if !spur_core::model::isolation::task_cgroup_enabled(task_plugin) {
        return Ok(None);
    }
    let path = slurm_conf.with_file_name("cgroup.conf");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let conf = CgroupConf::parse_str(&text, &path.display().to_string()).map_err(|e| {
        e.iter()
            .map(|e| e.slurm_text())
            .collect::<Vec<_>>()
            .join("; ")
    })?;
    Ok(conf.constrains_anything().then_some(conf))
}

/// The job's GRES units on this node (a node outside the allocation, which never runs the job, gets its first
/// node's).
fn units_here<'a>(alloc: &'a Allocation, node: &str) -> UnitsOnNode<'a> {
    alloc
        .units_on_node(node)
        .unwrap_or((&alloc.gres_indices, &alloc.shard_gpus))
}

impl Isolation {
    /// The cores next to the job's GPUs: its `gpu` units (or its shards' GPU) named by the node's device files.
    fn cores_near_gpus(
        &self,
        alloc: Option<&Allocation>,
        node: &str,
        context: &LaunchContext,
    ) -> BTreeSet<u32> {
        let (Some(alloc), Some(files)) = (alloc, context.gres_files.get(GPU_GRES)) else {
            return BTreeSet::new();
        };
        let (units, shard_gpus) = units_here(alloc, node);
        // A job of shards is next to the GPU they belong to.
        let gpus = units.get(GPU_GRES).map_or(shard_gpus, Vec::as_slice);
        gpus.iter()
            .filter_map(|&i| files.get(usize::try_from(i).ok()?))
            .filter_map(|file| self.gpu_cores.get(file))
            .flatten()
            .copied()
            .collect()
    }

    /// The limits of `job` on this node. `busy_cores` are the cores of the other jobs running here, so that a
    /// job whose allocation names no cores gets ones nobody else holds.
    pub fn spec_for(
        &self,
        job: &JobRecord,
        node: &str,
        context: &LaunchContext,
        busy_cores: &BTreeSet<u32>,
    ) -> CgroupSpec {
        let alloc = job.alloc.as_ref();
        let cpus = self.conf.constrain_cores.then(|| {
            let given = alloc.map(|a| a.core_ids.clone()).unwrap_or_default();
            let cores = if given.is_empty() {
                let count = alloc.map_or(1, |a| a.cpus);
                let near = self.cores_near_gpus(alloc, node, context);
                pick_cores_near(count, self.node_cpus, busy_cores, &near)
            } else {
                given
            };
            cpu_list(&cores)
        });
        let memory = memory_limits(&self.conf, alloc.map_or(0, |a| a.mem_mb), self.node_mem_mb);
        let denied = if self.conf.constrain_devices {
            let indices = alloc
                .map(|a| units_here(a, node).0.clone())
                .unwrap_or_default();
            denied_devices(&context.gres_files, &indices)
        } else {
            Vec::new()
        };
        CgroupSpec {
            cpus,
            memory,
            constrain_devices: self.conf.constrain_devices,
            denied_devices: denied.into_iter().map(Into::into).collect(),
            step_memory: None,
            pids_max: self.pids_max,
            required: self.required,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::job::NodeUnits;

    #[test]
    fn gpu_jobs_prefer_the_cores_of_their_gpus() {
        let isolation = Isolation {
            conf: CgroupConf::default(),
            node_cpus: 8,
            node_mem_mb: 1000,
            gpu_cores: [
                ("/dev/nvidia0".to_string(), [0, 1, 2, 3].into()),
                ("/dev/nvidia1".to_string(), [4, 5, 6, 7].into()),
            ]
            .into(),
            pids_max: None,
            required: false,
        };
        let context = LaunchContext {
            gres_files: [(
                "gpu".to_string(),
                vec!["/dev/nvidia0".to_string(), "/dev/nvidia1".to_string()],
            )]
            .into(),
            ..LaunchContext::default()
        };
        let alloc = Allocation {
            cpus: 2,
            gres_indices: [("gpu".to_string(), vec![1])].into(),
            ..Allocation::default()
        };
        let near = isolation.cores_near_gpus(Some(&alloc), "n1", &context);
        assert_eq!(near, [4, 5, 6, 7].into());
        assert!(isolation
            .cores_near_gpus(Some(&Allocation::default()), "n1", &context)
            .is_empty());
        assert!(isolation.cores_near_gpus(None, "n1", &context).is_empty());
        // A two-node job with GPU 1 on n1 and GPU 0 on n2: each node's cores are next to its own GPU.
        let mut two_nodes = Allocation {
            node_names: vec!["n1".into(), "n2".into()],
            cpus: 2,
            ..Allocation::default()
        };
        two_nodes.set_node_units(vec![
            NodeUnits {
                gres_indices: [("gpu".to_string(), vec![1])].into(),
                shard_gpus: Vec::new(),
            },
            NodeUnits {
                gres_indices: [("gpu".to_string(), vec![0])].into(),
                shard_gpus: Vec::new(),
            },
        ]);
        let on = |node| isolation.cores_near_gpus(Some(&two_nodes), node, &context);
        assert_eq!(on("n1"), [4, 5, 6, 7].into());
        assert_eq!(on("n2"), [0, 1, 2, 3].into());
    }

    #[test]
    fn load_follows_task_plugin_and_file() {
        let dir = std::env::temp_dir().join(format!("spur-agent-iso-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let slurm_conf = dir.join("slurm.conf");
        assert_eq!(load(&slurm_conf, "task/cgroup"), Ok(None));
        std::fs::write(dir.join("cgroup.conf"), "ConstrainRAMSpace=yes\n").unwrap();
        assert_eq!(load(&slurm_conf, "task/none"), Ok(None));
        let conf = load(&slurm_conf, "task/affinity,task/cgroup")
            .unwrap()
            .unwrap();
        assert!(conf.constrain_ram_space && !conf.constrain_cores);
        std::fs::write(dir.join("cgroup.conf"), "ConstrainRAMSpace=maybe\n").unwrap();
        assert!(load(&slurm_conf, "task/cgroup").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
