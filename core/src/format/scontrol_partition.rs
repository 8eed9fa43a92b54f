//! `scontrol show partition` (and `-o`): Slurm 22.05's partition record, with totals (CPUs, nodes, TRES)
//! computed from the partition's nodes.

use crate::format::time::long_minutes;
use crate::format::units;
use crate::format::FormatContext;
use crate::model::records::{NodeRecord, PartitionRecord, PartitionState};

/// Renders `scontrol show partition` for `partitions` in configuration order; `nodes` supplies the totals.
pub fn render(
    partitions: &[PartitionRecord],
    nodes: &[NodeRecord],
    one_liner: bool,
    _ctx: &FormatContext,
) -> String {
    partitions
        .iter()
        .map(|p| render_one(p, nodes, one_liner))
        .collect()
}

fn yes_no(flag: bool) -> &'static str {
    if flag {
        "YES"
    } else {
        "NO"
    }
}

fn render_one(part: &PartitionRecord, nodes: &[NodeRecord], one_liner: bool) -> String {
    let members: Vec<&NodeRecord> = nodes
        .iter()
        .filter(|n| part.nodes.contains(&n.name) || n.partitions.contains(&part.name))
        .collect();
    let cpus: u64 = members.iter().map(|n| u64::from(n.cpus)).sum();
    let mem: u64 = members.iter().map(|n| n.real_memory_mb).sum();
    let count = members.len() as u64;
    let billing = crate::policy::billing::shown_billing(
        part.tres_billing_weights.as_deref(),
        &crate::policy::billing::TresCounts {
            cpus,
            mem_mb: mem,
            nodes: count,
            gres: crate::policy::billing::offered_gres(members.iter().flat_map(|n| &n.gres)),
        },
    );
    let all = |v: &Option<String>| v.clone().unwrap_or_else(|| "ALL".to_string());
    let default_time = match part.default_time_min {
        None => "NONE".to_string(),
        Some(m) => long_minutes(Some(m)),
    };
    let state = match part.state {
        PartitionState::Up => "UP",
        PartitionState::Down => "DOWN",
        PartitionState::Drain => "DRAIN",
        PartitionState::Inactive => "INACTIVE",
    };
    let def_mem = match (part.def_mem_per_cpu_mb, part.def_mem_per_node_mb) {
        (Some(c), _) => format!("DefMemPerCPU={c}"),
        (None, Some(n)) => format!("DefMemPerNode={n}"),
        (None, None) => "DefMemPerNode=UNLIMITED".to_string(),
    };
    let max_mem = part
        .max_mem_per_node_mb
        .map_or_else(|| "UNLIMITED".to_string(), |m| m.to_string());
    let oversubscribe = if part.oversubscribe.is_empty() {
        "NO".to_string()
    } else {
        part.oversubscribe.clone()
    };
    let node_expr = if part.nodes_expr.is_empty() {
        "(null)"
    } else {
        part.nodes_expr.as_str()
    };
    let lines = [
        format!("PartitionName={}", part.name),
        format!(
            "AllowGroups={} {} {}",
            all(&part.allow_groups),
            allow_or_deny("Accounts", &part.allow_accounts, &part.deny_accounts),
            allow_or_deny("Qos", &part.allow_qos, &part.deny_qos)
        ),
        format!("AllocNodes=ALL Default={} QoS=N/A", yes_no(part.default)),
        format!(
            "DefaultTime={default_time} DisableRootJobs={} ExclusiveUser=NO GraceTime={} Hidden={}",
            yes_no(part.disable_root_jobs),
            part.grace_time_secs,
            yes_no(part.hidden)
        ),
        format!(
            "MaxNodes={} MaxTime={} MinNodes={} LLN=NO MaxCPUsPerNode=UNLIMITED",
            part.max_nodes.map_or_else(|| "UNLIMITED".to_string(), |n| n.to_string()),
            long_minutes(part.max_time_min),
            part.min_nodes
        ),
        format!("Nodes={node_expr}"),
        format!(
            "PriorityJobFactor={} PriorityTier={} RootOnly={} ReqResv=NO OverSubscribe={oversubscribe}",
            part.priority_job_factor,
            part.priority_tier,
            yes_no(part.root_only)
        ),
        format!("OverTimeLimit=NONE PreemptMode={}", part.preempt_mode_text()),
        format!("State={state} TotalCPUs={cpus} TotalNodes={count} SelectTypeParameters=NONE"),
        job_defaults(part),
        format!("{def_mem} MaxMemPerNode={max_mem}"),
        // A partition without nodes has no TRES string at all.
        if count == 0 {
            "TRES=(null)".to_string()
        } else {
            format!(
                "TRES={}",
                units::tres(Some(cpus), Some(mem), Some(count), Some(billing))
            )
        },
    ];
    let mut lines = lines.to_vec();
    if let Some(weights) = &part.tres_billing_weights {
        lines.push(format!("TRESBillingWeights={weights}"));
    }
    let line_end = if one_liner { " " } else { "\n   " };
    let mut out = lines.join(line_end);
    out.push_str(if one_liner { "\n" } else { "\n\n" });
    out
}

/// Slurm shows a partition's deny list in place of its allow list when one is set (the two exclude each other).
fn allow_or_deny(what: &str, allow: &Option<String>, deny: &Option<String>) -> String {
    match deny {
        Some(deny) => format!("Deny{what}={deny}"),
        None => format!("Allow{what}={}", allow.as_deref().unwrap_or("ALL")),
    }
}

/// `JobDefaults=`: the partition's `DefCpuPerGPU` and `DefMemPerGPU`, as slurmctld lists them.
fn job_defaults(part: &PartitionRecord) -> String {
    let mut defaults = Vec::new();
    if let Some(n) = part.def_cpus_per_gpu {
        defaults.push(format!("DefCpuPerGPU={n}"));
    }
    if let Some(mb) = part.def_mem_per_gpu_mb {
        defaults.push(format!("DefMemPerGPU={mb}"));
    }
    if defaults.is_empty() {
        "JobDefaults=(null)".to_string()
    } else {
        format!("JobDefaults={}", defaults.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{ctx, node, partition};

    #[test]
    fn limits_memory_and_totals() {
        let mut p = partition("gpu", &["n1", "n2"]);
        p.nodes_expr = "n[1-2]".into();
        p.default = false;
        p.default_time_min = Some(30);
        p.max_nodes = Some(2);
        p.def_mem_per_cpu_mb = Some(1024);
        p.max_mem_per_node_mb = Some(8000);
        p.allow_groups = Some("users".into());
        p.deny_accounts = Some("guests".into());
        p.allow_qos = Some("normal".into());
        p.state = PartitionState::Drain;
        p.oversubscribe = "FORCE:4".into();
        let mut outside = node("n3");
        outside.partitions = vec!["other".into()];
        let out = render(&[p], &[node("n1"), node("n2"), outside], false, &ctx());
        assert_eq!(
            out,
            "PartitionName=gpu\n   AllowGroups=users DenyAccounts=guests AllowQos=normal\n   AllocNodes=ALL Default=NO QoS=N/A\n   \
             DefaultTime=00:30:00 DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n   \
             MaxNodes=2 MaxTime=01:00:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n   Nodes=n[1-2]\n   \
             PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=FORCE:4\n   \
             OverTimeLimit=NONE PreemptMode=OFF\n   State=DRAIN TotalCPUs=8 TotalNodes=2 SelectTypeParameters=NONE\n   \
             JobDefaults=(null)\n   DefMemPerCPU=1024 MaxMemPerNode=8000\n   TRES=cpu=8,mem=32000M,node=2,billing=8\n\n"
        );
    }

    #[test]
    fn gpu_job_defaults_as_slurmctld_lists_them() {
        let mut p = partition("gpu", &["n1"]);
        p.def_mem_per_gpu_mb = Some(1000);
        assert_eq!(job_defaults(&p), "JobDefaults=DefMemPerGPU=1000");
        p.def_cpus_per_gpu = Some(2);
        assert_eq!(
            job_defaults(&p),
            "JobDefaults=DefCpuPerGPU=2,DefMemPerGPU=1000"
        );
    }
}
