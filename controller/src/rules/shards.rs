//! GPU shards in placement (the mapping is [`spur_core::policy::gpu_shard`]'s): a shard request takes shards of one
//! GPU, the first in unit order that nobody holds whole and that has enough free, as Slurm 22.05's gres/shard does;
//! a whole-GPU request skips GPUs with any shard taken. Only nodes that offer shards pay for these checks.

use spur_core::model::job::GresRequest;
use spur_core::model::records::{NodeRecord, GPU_GRES};
use spur_core::policy::gpu_shard::{ShardLayout, SHARD_GRES};

use super::placement::NodeUse;

/// The node's shards on its GPUs, or `None` when it offers no shards.
pub(super) fn layout(node: &NodeRecord) -> Option<ShardLayout> {
    if node.gres.iter().any(|g| g.name == SHARD_GRES) {
        ShardLayout::of(&node.gres)
    } else {
        None
    }
}

/// Whether GPU unit `gpu` may be given whole as far as shards go: none of its shards is taken.
pub(super) fn gpu_whole_free(used: NodeUse<'_>, layout: &ShardLayout, gpu: u32) -> bool {
    layout
        .shards_of(gpu)
        .iter()
        .all(|&shard| !used.gres_taken(SHARD_GRES, shard))
}

/// The shards a request takes on the node, with the GPU they belong to: the lowest free shards of the first GPU
/// that is not held whole and has `request.count` of them free.
pub(super) fn choose(
    used: NodeUse<'_>,
    node: &NodeRecord,
    layout: &ShardLayout,
    request: &GresRequest,
) -> Option<(u32, Vec<u32>)> {
    let typed_as_asked = request.gres_type.is_none()
        || node
            .gres
            .iter()
            .any(|g| g.name == SHARD_GRES && g.gres_type == request.gres_type);
    if !typed_as_asked {
        return None;
    }
    let need = usize::try_from(request.count).ok()?;
    layout.gpus.iter().find_map(|sharded| {
        if used.gres_taken(GPU_GRES, sharded.gpu) {
            return None;
        }
        let free: Vec<u32> = sharded
            .shards
            .iter()
            .copied()
            .filter(|&shard| !used.gres_taken(SHARD_GRES, shard))
            .take(need)
            .collect();
        (free.len() == need).then_some((sharded.gpu, free))
    })
}

/// Whether the shards and GPUs an allocation names are usable together on a node given what is taken: its shards
/// all belong to `shard_gpus` (its one GPU), which nobody holds whole, and none of its whole GPUs has a shard
/// taken. The unit indices themselves being free is checked apart.
pub(super) fn units_compatible(
    used: NodeUse<'_>,
    node: &NodeRecord,
    gres_indices: &std::collections::BTreeMap<String, Vec<u32>>,
    shard_gpus: &[u32],
) -> bool {
    let shards = gres_indices.get(SHARD_GRES).filter(|s| !s.is_empty());
    let gpus = gres_indices.get(GPU_GRES).filter(|g| !g.is_empty());
    if shards.is_none() && gpus.is_none() {
        return true;
    }
    let Some(layout) = layout(node) else {
        // No shards here: a shard allocation cannot be placed, a GPU one is not affected.
        return shards.is_none();
    };
    let shards_fit = shards.is_none_or(|shards| {
        layout.gpus_of(shards) == shard_gpus
            && shards.iter().all(|&s| layout.gpu_of(s).is_some())
            && shard_gpus
                .iter()
                .all(|&gpu| !used.gres_taken(GPU_GRES, gpu))
    });
    // Nor may one allocation hold a GPU whole and shards of it.
    let gpus_fit = gpus.is_none_or(|gpus| {
        gpus.iter()
            .all(|&gpu| gpu_whole_free(used, &layout, gpu) && !shard_gpus.contains(&gpu))
    });
    shards_fit && gpus_fit
}

/// [`units_compatible`] for an allocation's units on one of its nodes (`units`, `shard_gpus`: see
/// [`Allocation::units_on`](spur_core::model::job::Allocation::units_on)) being applied, against the node's own record.
pub(super) fn allocation_compatible(
    node: &NodeRecord,
    units: &std::collections::BTreeMap<String, Vec<u32>>,
    shard_gpus: &[u32],
) -> bool {
    if !units.contains_key(SHARD_GRES) && !units.contains_key(GPU_GRES) {
        return true;
    }
    // Without shards on the node only a shard allocation can be wrong, and needs no books to tell.
    if !node.gres.iter().any(|g| g.name == SHARD_GRES) {
        return !units.contains_key(SHARD_GRES);
    }
    let usage = super::placement::Usage::of_node(node);
    units_compatible(NodeUse::One(&usage), node, units, shard_gpus)
}
