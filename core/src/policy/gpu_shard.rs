//! GPU shards (`gres/shard`, Slurm 22.05): fractions of a node's GPUs that several jobs share. Each shard belongs
//! to one GPU; as Slurm 22.05 does, a job's shards on a node all come from one GPU, a GPU that any job holds
//! shards of is not given whole to a `gpu` request, and a GPU held whole has no shards to give.
//!
//! The node record lists a shard offer's device files one per shard unit (the GPU each shard belongs to; see
//! [`shard_unit_files`]), so the mapping survives restarts and needs nothing but the node's GRES.

use crate::model::records::{NodeGres, GPU_GRES};

/// The GRES name of GPU shards.
pub const SHARD_GRES: &str = "shard";

/// The shard units of one GPU unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardedGpu {
    /// The GPU's unit index (as `gpu` allocations number them).
    pub gpu: u32,
    /// Its shards' unit indices (as `shard` allocations number them), ascending.
    pub shards: Vec<u32>,
}

/// How a node's shard units map onto its GPU units.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShardLayout {
    /// In GPU unit order; GPUs without shards are left out.
    pub gpus: Vec<ShardedGpu>,
}

impl ShardLayout {
    /// The layout of a node offering `gres`, or `None` when it offers no shards. Shards whose device file is none
    /// of the GPUs' belong to no GPU and are never handed out. When neither shards nor GPUs have device files,
    /// the shards are spread evenly over the GPU units in order.
    pub fn of(gres: &[NodeGres]) -> Option<ShardLayout> {
        let shard_count: u64 = gres
            .iter()
            .filter(|g| g.name == SHARD_GRES)
            .map(|g| g.count)
            .sum();
        if shard_count == 0 {
            return None;
        }
        let gpu_files: Vec<&str> = gres
            .iter()
            .filter(|g| g.name == GPU_GRES)
            .flat_map(|g| g.files.iter().map(String::as_str))
            .collect();
        let gpu_count: u64 = gres
            .iter()
            .filter(|g| g.name == GPU_GRES)
            .map(|g| g.count)
            .sum();
        let shard_files: Vec<&str> = gres
            .iter()
            .filter(|g| g.name == SHARD_GRES)
            .flat_map(|g| g.files.iter().map(String::as_str))
            .collect();
        let mut gpus: Vec<ShardedGpu> = Vec::new();
        let mut add = |gpu: u32, shard: u32| match gpus.iter_mut().find(|g| g.gpu == gpu) {
            Some(g) => g.shards.push(shard),
            None => gpus.push(ShardedGpu {
                gpu,
                shards: vec![shard],
            }),
        };
        if u64::try_from(shard_files.len()).ok() == Some(shard_count) && !gpu_files.is_empty() {
            for (shard, file) in shard_files.iter().enumerate() {
                let gpu = gpu_files.iter().position(|f| f == file);
                if let (Some(gpu), Ok(shard)) = (gpu, u32::try_from(shard)) {
                    add(u32::try_from(gpu).unwrap_or(u32::MAX), shard);
                }
            }
        } else if let Some(per_gpu) = shard_count.checked_div(gpu_count) {
            for shard in 0..per_gpu.saturating_mul(gpu_count) {
                if let (Ok(gpu), Ok(shard)) = (u32::try_from(shard / per_gpu), u32::try_from(shard))
                {
                    add(gpu, shard);
                }
            }
        }
        gpus.sort_by_key(|g| g.gpu);
        Some(ShardLayout { gpus })
    }

    /// The GPU unit that shard unit `shard` belongs to.
    pub fn gpu_of(&self, shard: u32) -> Option<u32> {
        self.gpus
            .iter()
            .find(|g| g.shards.contains(&shard))
            .map(|g| g.gpu)
    }

    /// The shard units of GPU unit `gpu` (empty when it has none).
    pub fn shards_of(&self, gpu: u32) -> &[u32] {
        self.gpus
            .iter()
            .find(|g| g.gpu == gpu)
            .map_or(&[], |g| g.shards.as_slice())
    }

    /// The GPU units, ascending, that the shard units `shards` belong to.
    pub fn gpus_of(&self, shards: &[u32]) -> Vec<u32> {
        let mut gpus: Vec<u32> = shards.iter().filter_map(|&s| self.gpu_of(s)).collect();
        gpus.sort_unstable();
        gpus.dedup();
        gpus
    }
}

/// The device file of each shard unit of a gres.conf shard line: its `count` shards spread evenly over its
/// `files` (or, for a line without `File=`, over the node's `gpu_files`), as many to each as divides evenly, in
/// file order. Slurm's slurmd finds the same number and the controller marks a node whose `Gres=` says more
/// invalid; the shards beyond it get no file and so no GPU. Empty when there is nothing to spread over.
pub fn shard_unit_files(count: u64, files: &[String], gpu_files: &[String]) -> Vec<String> {
    let over = if files.is_empty() { gpu_files } else { files };
    let Ok(len) = u64::try_from(over.len()) else {
        return Vec::new();
    };
    let Some(per_file) = count.checked_div(len) else {
        return Vec::new();
    };
    over.iter()
        .flat_map(|f| std::iter::repeat_n(f.clone(), usize::try_from(per_file).unwrap_or(0)))
        .collect()
}

#[cfg(test)]
#[path = "gpu_shard_tests.rs"]
mod tests;
