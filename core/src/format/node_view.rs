//! What Slurm derives from a node record before printing it: the state in its three spellings (`drng*`,
//! `DRAINING*`, `MIXED+DRAIN+NOT_RESPONDING`), GRES texts and TRES strings. sinfo, scontrol and JSON share these.

use crate::format::arrays::format_task_ids;
use crate::format::units;
use crate::model::records::{NodeBaseState, NodeRecord};
use crate::policy::gpu_shard::{ShardLayout, SHARD_GRES};

/// Slurm's node state bits, used where Slurm sorts by the numeric state.
const STATE_DRAIN: u32 = 0x200;
const STATE_NO_RESPOND: u32 = 0x800;

fn draining(node: &NodeRecord) -> bool {
    node.drain
        && matches!(
            node.base_state,
            NodeBaseState::Allocated | NodeBaseState::Mixed
        )
}

/// `node_state_string_compact`: `IDLE`, `MIX`, `ALLOC`, `DRAIN`, `DRNG`, `DOWN`, `UNK`, plus `*` when the node
/// does not respond.
pub(crate) fn state_compact(node: &NodeRecord) -> String {
    if spelled_from_flags(node) {
        return node.full_state().compact_name();
    }
    let base = if node.drain {
        if draining(node) {
            "DRNG"
        } else {
            "DRAIN"
        }
    } else {
        match node.base_state {
            NodeBaseState::Unknown => "UNK",
            NodeBaseState::Idle => "IDLE",
            NodeBaseState::Mixed => "MIX",
            NodeBaseState::Allocated => "ALLOC",
            NodeBaseState::Down => "DOWN",
            NodeBaseState::Error => "ERROR",
            NodeBaseState::Future => "FUTURE",
        }
    };
    with_star(base, node)
}

/// `node_state_string`: `IDLE`, `MIXED`, `ALLOCATED`, `DRAINED`, `DRAINING`, `DOWN`, `UNKNOWN` (+ `*`).
pub(crate) fn state_long(node: &NodeRecord) -> String {
    if spelled_from_flags(node) {
        return node.full_state().long_name();
    }
    let base = if node.drain {
        if draining(node) {
            "DRAINING"
        } else {
            "DRAINED"
        }
    } else {
        base_long(node.base_state)
    };
    with_star(base, node)
}

/// A node an active reservation holds: Slurm's full state-string rules decide (`RESV`, `MAINT`, `IDLE+RESERVED`).
/// States whose spelling the full state machinery decides: reservations and epilogs still running (`comp`).
fn spelled_from_flags(node: &NodeRecord) -> bool {
    node.reserved || node.maintenance || node.epilogs_running > 0
}

fn base_long(state: NodeBaseState) -> &'static str {
    match state {
        NodeBaseState::Unknown => "UNKNOWN",
        NodeBaseState::Idle => "IDLE",
        NodeBaseState::Mixed => "MIXED",
        NodeBaseState::Allocated => "ALLOCATED",
        NodeBaseState::Down => "DOWN",
        NodeBaseState::Error => "ERROR",
        NodeBaseState::Future => "FUTURE",
    }
}

fn with_star(base: &str, node: &NodeRecord) -> String {
    if node.not_responding {
        format!("{base}*")
    } else {
        base.to_string()
    }
}

/// `node_state_string_complete`: the base state and every flag, `IDLE+DRAIN+NOT_RESPONDING`.
pub(crate) fn state_complete(node: &NodeRecord) -> String {
    if spelled_from_flags(node) {
        return node.full_state().complete_name();
    }
    let mut out = base_long(node.base_state).to_string();
    for flag in state_flags(node) {
        out.push('+');
        out.push_str(flag);
    }
    out
}

/// The flag names Slurm lists after the base state, in the order of its flag table.
pub(crate) fn state_flags(node: &NodeRecord) -> Vec<&'static str> {
    node.full_state().flags.iter().map(|f| f.name()).collect()
}

/// The base state in lower case as the JSON `state` field shows it.
pub(crate) fn base_state_lower(node: &NodeRecord) -> String {
    base_long(node.base_state).to_ascii_lowercase()
}

/// The numeric state Slurm sorts `-t` by: base state number plus flag bits.
pub(crate) fn state_value(node: &NodeRecord) -> u32 {
    let base = node.base_state.as_raw();
    base | if node.drain { STATE_DRAIN } else { 0 }
        | if node.not_responding {
            STATE_NO_RESPOND
        } else {
            0
        }
}

/// Configured GRES, `gpu:a100:4,nic:1`; `None` when the node has none.
pub fn gres(node: &NodeRecord) -> Option<String> {
    if node.gres.is_empty() {
        return None;
    }
    let parts: Vec<String> = node
        .gres
        .iter()
        .map(|g| match &g.gres_type {
            Some(t) => format!("{}:{t}:{}", g.name, g.count),
            None => format!("{}:{}", g.name, g.count),
        })
        .collect();
    Some(parts.join(","))
}

/// GRES in use with device indices, `gpu:a100:2(IDX:0-1)` / `gpu:a100:0(IDX:N/A)`.
pub fn gres_used(node: &NodeRecord) -> Option<String> {
    if node.gres.is_empty() {
        return None;
    }
    let parts: Vec<String> = node
        .gres
        .iter()
        .map(|g| {
            let mut idx: Vec<u32> = node.alloc_gres.get(&g.name).cloned().unwrap_or_default();
            if g.name == SHARD_GRES {
                // slurmctld shows the GPUs that shards are taken from, and counts those.
                idx = ShardLayout::of(&node.gres).map_or_else(Vec::new, |l| l.gpus_of(&idx));
            }
            idx.sort_unstable();
            idx.dedup();
            let used = idx.len();
            let idx_text = if idx.is_empty() {
                "N/A".to_string()
            } else {
                format_task_ids(&idx)
            };
            match &g.gres_type {
                Some(t) => format!("{}:{t}:{used}(IDX:{idx_text})", g.name),
                None => format!("{}:{used}(IDX:{idx_text})", g.name),
            }
        })
        .collect();
    Some(parts.join(","))
}

/// `CfgTRES=cpu=2,mem=23593M,billing=2`.
pub fn cfg_tres(node: &NodeRecord) -> String {
    units::tres(
        Some(node.cpus.into()),
        Some(node.real_memory_mb),
        None,
        Some(crate::policy::billing::shown_billing(
            node.billing_weights.as_deref(),
            &node_counts(node),
        )),
    )
}

/// A node's own TRES, for its billing: a `Node=` weight does not count there (checked against 22.05:
/// `CPU=0.5,Mem=0.25G,Node=3` bills a 2-CPU, 23,593 MB node 6, its one-node partition 9).
fn node_counts(node: &NodeRecord) -> crate::policy::billing::TresCounts {
    crate::policy::billing::TresCounts {
        cpus: node.cpus.into(),
        mem_mb: node.real_memory_mb,
        nodes: 0,
        gres: crate::policy::billing::offered_gres(&node.gres),
    }
}

/// What a node's allocated TRES weigh under its billing weights (`tres_weighted` of `sinfo --json`): its CPUs in
/// use without weights.
pub fn alloc_weighted(node: &NodeRecord) -> f64 {
    let gres = node
        .alloc_gres
        .iter()
        .map(|(name, units)| (name.clone(), units.len() as u64))
        .collect();
    crate::policy::billing::usage_billing(
        node.billing_weights.as_deref(),
        &crate::policy::billing::TresCounts {
            cpus: node.cpus_in_use().into(),
            mem_mb: node.alloc_mem_mb,
            nodes: 0,
            gres,
        },
    )
}

/// `AllocTRES=cpu=2,mem=2G`, empty when nothing is allocated.
pub fn alloc_tres(node: &NodeRecord) -> String {
    if node.cpus_in_use() == 0 && node.alloc_mem_mb == 0 {
        return String::new();
    }
    let mem = (node.alloc_mem_mb > 0).then_some(node.alloc_mem_mb);
    units::tres(Some(node.cpus_in_use().into()), mem, None, None)
}

/// Features as Slurm prints them: comma-joined, `None` when there are none (`(null)`).
pub fn features(node: &NodeRecord) -> Option<String> {
    (!node.features.is_empty()).then(|| node.features.join(","))
}

/// Counted as allocated in sinfo's A/I/O/T: nodes running jobs, draining ones included (Slurm 22.05 shows a
/// `drng` node as `1/0/0/1`).
pub(crate) fn counts_allocated(node: &NodeRecord) -> bool {
    matches!(
        node.base_state,
        NodeBaseState::Allocated | NodeBaseState::Mixed
    )
}

pub(crate) fn counts_idle(node: &NodeRecord) -> bool {
    !node.drain && node.base_state == NodeBaseState::Idle
}

/// CPUs of drained and down nodes are "other", not idle.
pub(crate) fn cpus_unavailable(node: &NodeRecord) -> bool {
    node.drain || node.base_state == NodeBaseState::Down
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::node;

    fn with(base: NodeBaseState, drain: bool, dead: bool) -> NodeRecord {
        NodeRecord {
            base_state: base,
            drain,
            not_responding: dead,
            ..node("n1")
        }
    }

    /// As Slurm 22.05 showed them (`sinfo %t`, `sinfo %T`, `scontrol show node`) under an active reservation.
    #[test]
    fn reserved_and_maintenance_states() {
        use NodeBaseState as B;
        let flagged = |base, maintenance| NodeRecord {
            reserved: true,
            maintenance,
            ..with(base, false, false)
        };
        let spell = |n: &NodeRecord| (state_compact(n), state_long(n), state_complete(n));
        assert_eq!(
            spell(&flagged(B::Idle, false)),
            ("RESV".into(), "RESERVED".into(), "IDLE+RESERVED".into())
        );
        assert_eq!(
            spell(&flagged(B::Mixed, false)),
            ("MIX".into(), "MIXED".into(), "MIXED+RESERVED".into())
        );
        assert_eq!(
            spell(&flagged(B::Idle, true)),
            (
                "MAINT".into(),
                "MAINT".into(),
                "IDLE+MAINTENANCE+RESERVED".into()
            )
        );
    }

    #[test]
    fn state_names_in_three_spellings() {
        use NodeBaseState as B;
        let cases = [
            (with(B::Idle, false, false), "IDLE", "IDLE", "IDLE"),
            (with(B::Mixed, false, false), "MIX", "MIXED", "MIXED"),
            (
                with(B::Allocated, false, false),
                "ALLOC",
                "ALLOCATED",
                "ALLOCATED",
            ),
            (with(B::Idle, true, false), "DRAIN", "DRAINED", "IDLE+DRAIN"),
            (
                with(B::Mixed, true, false),
                "DRNG",
                "DRAINING",
                "MIXED+DRAIN",
            ),
            (
                with(B::Down, false, true),
                "DOWN*",
                "DOWN*",
                "DOWN+NOT_RESPONDING",
            ),
            (
                with(B::Idle, false, true),
                "IDLE*",
                "IDLE*",
                "IDLE+NOT_RESPONDING",
            ),
            (
                with(B::Unknown, false, true),
                "UNK*",
                "UNKNOWN*",
                "UNKNOWN+NOT_RESPONDING",
            ),
            (
                with(B::Idle, true, true),
                "DRAIN*",
                "DRAINED*",
                "IDLE+DRAIN+NOT_RESPONDING",
            ),
        ];
        for (n, compact, long, complete) in cases {
            assert_eq!(state_compact(&n), compact);
            assert_eq!(state_long(&n), long);
            assert_eq!(state_complete(&n), complete);
        }
    }

    /// Checked against a live Slurm 22.05: `drng` counts as allocated, `drain` and `down` as other.
    #[test]
    fn node_counts_follow_slurm() {
        use NodeBaseState as B;
        assert!(counts_allocated(&with(B::Mixed, true, false)));
        assert!(!counts_idle(&with(B::Idle, true, false)));
        assert!(!counts_allocated(&with(B::Down, true, false)));
        assert!(cpus_unavailable(&with(B::Mixed, true, false)));
    }

    #[test]
    fn gres_texts() {
        let mut n = node("n1");
        assert_eq!(gres(&n).as_deref(), Some("gpu:a100:2"));
        assert_eq!(gres_used(&n).as_deref(), Some("gpu:a100:0(IDX:N/A)"));
        n.alloc_gres.insert("gpu".into(), vec![1, 0]);
        assert_eq!(gres_used(&n).as_deref(), Some("gpu:a100:2(IDX:0-1)"));
        n.gres.clear();
        assert_eq!(gres(&n), None);
    }

    #[test]
    fn tres_texts() {
        let mut n = node("n1");
        assert_eq!(cfg_tres(&n), "cpu=4,mem=16000M,billing=4");
        assert_eq!(alloc_tres(&n), "");
        n.alloc_cpus = 2;
        n.alloc_mem_mb = 4096;
        assert_eq!(alloc_tres(&n), "cpu=2,mem=4G");
        assert_eq!(alloc_weighted(&n), 2.0);
        // Weighed: 4 x 0.5 + 16,000 MB x 0.25/GB = 5.9, and no Node weight on a node's own TRES.
        n.billing_weights = Some("CPU=0.5,Mem=0.25G,Node=3".into());
        assert_eq!(cfg_tres(&n), "cpu=4,mem=16000M,billing=5");
        assert_eq!(alloc_weighted(&n), 2.0 * 0.5 + 4.0 * 0.25);
    }
}
