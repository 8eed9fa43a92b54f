//! One partition as slurmrestd's openapi/v0.0.38 lists it (`GET /slurm/v0.0.38/partitions`), in its field order,
//! with the totals `scontrol show partition` computes from the partition's nodes.

use crate::format::json::Json;
use crate::format::units;
use crate::model::records::{NodeRecord, PartitionRecord, PartitionState};

fn text(v: &Option<String>) -> Json {
    Json::Str(v.clone().unwrap_or_default())
}

fn opt_mb(v: Option<u64>) -> Json {
    v.map_or(Json::Null, |mb| {
        Json::Int(i64::try_from(mb).unwrap_or(i64::MAX))
    })
}

/// A limit Slurm leaves unset shows as -1 in this version of the API.
fn limit(v: Option<u32>) -> Json {
    Json::Int(v.map_or(-1, i64::from))
}

/// `PreemptMode` as lower-case words; Slurm says `disabled` where scontrol says `OFF`.
fn preemption_mode(part: &PartitionRecord) -> Json {
    Json::Arr(
        part.preempt_mode_text()
            .split(',')
            .map(|word| match word.to_ascii_lowercase().as_str() {
                "off" => Json::str("disabled"),
                other => Json::str(other),
            })
            .collect(),
    )
}

fn flags(part: &PartitionRecord) -> Json {
    let named = [
        (part.default, "default"),
        (part.hidden, "hidden"),
        (part.disable_root_jobs, "no_root"),
        (part.root_only, "root_only"),
    ];
    Json::Arr(
        named
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, name)| Json::str(*name))
            .collect(),
    )
}

pub fn partition(part: &PartitionRecord, nodes: &[NodeRecord]) -> Json {
    let members: Vec<&NodeRecord> = nodes
        .iter()
        .filter(|n| part.nodes.contains(&n.name) || n.partitions.contains(&part.name))
        .collect();
    let cpus: u64 = members.iter().map(|n| u64::from(n.cpus)).sum();
    let mem: u64 = members.iter().map(|n| n.real_memory_mb).sum();
    let count = members.len() as u64;
    let tres = if count == 0 {
        String::new()
    } else {
        units::tres(Some(cpus), Some(mem), Some(count), Some(cpus))
    };
    let state = match part.state {
        PartitionState::Up => "UP",
        PartitionState::Down => "DOWN",
        PartitionState::Drain => "DRAIN",
        PartitionState::Inactive => "INACTIVE",
    };
    let big = |v: u64| Json::Int(i64::try_from(v).unwrap_or(i64::MAX));
    Json::obj(vec![
        ("flags", flags(part)),
        ("preemption_mode", preemption_mode(part)),
        ("allowed_allocation_nodes", Json::str("")),
        ("allowed_accounts", text(&part.allow_accounts)),
        ("allowed_groups", text(&part.allow_groups)),
        ("allowed_qos", text(&part.allow_qos)),
        ("alternative", Json::str("")),
        (
            "billing_weights",
            Json::str(part.tres_billing_weights.clone().unwrap_or_default()),
        ),
        ("default_memory_per_cpu", opt_mb(part.def_mem_per_cpu_mb)),
        ("default_memory_per_node", opt_mb(part.def_mem_per_node_mb)),
        (
            "default_time_limit",
            part.default_time_min
                .map_or(Json::Null, |m| Json::Int(m.into())),
        ),
        ("denied_accounts", text(&part.deny_accounts)),
        ("denied_qos", text(&part.deny_qos)),
        (
            "preemption_grace_time",
            Json::Int(part.grace_time_secs.into()),
        ),
        ("maximum_cpus_per_node", Json::Int(-1)),
        ("maximum_memory_per_cpu", Json::Null),
        ("maximum_memory_per_node", opt_mb(part.max_mem_per_node_mb)),
        ("maximum_nodes_per_job", limit(part.max_nodes)),
        ("max_time_limit", limit(part.max_time_min)),
        // Slurm's own key, spaces and all.
        ("min nodes per job", Json::Int(part.min_nodes.into())),
        ("name", Json::str(part.name.clone())),
        ("nodes", Json::str(part.nodes_expr.clone())),
        ("over_time_limit", Json::Null),
        (
            "priority_job_factor",
            Json::Int(part.priority_job_factor.into()),
        ),
        ("priority_tier", Json::Int(part.priority_tier.into())),
        ("qos", Json::str("")),
        ("state", Json::str(state)),
        ("total_cpus", big(cpus)),
        ("total_nodes", big(count)),
        ("tres", Json::Str(tres)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{node, partition as part};

    #[test]
    fn default_partition_reads_like_slurms() {
        let mut p = part("debug", &["n1"]);
        p.default = true;
        p.nodes_expr = "n1".into();
        p.max_time_min = None;
        p.max_nodes = None;
        p.min_nodes = 0;
        p.def_mem_per_cpu_mb = None;
        p.preempt_mode = None;
        let mut n = node("n1");
        n.cpus = 2;
        n.real_memory_mb = 23593;
        let text = partition(&p, &[n]).to_pretty();
        for line in [
            "\"flags\": [\n    \"default\"\n  ]",
            "\"preemption_mode\": [\n    \"disabled\"\n  ]",
            "\"default_memory_per_cpu\": null",
            "\"maximum_nodes_per_job\": -1",
            "\"max_time_limit\": -1",
            "\"min nodes per job\": 0",
            "\"total_cpus\": 2",
            "\"total_nodes\": 1",
            "\"tres\": \"cpu=2,mem=23593M,node=1,billing=2\"",
        ] {
            assert!(text.contains(line), "{line} not in {text}");
        }
    }
}
