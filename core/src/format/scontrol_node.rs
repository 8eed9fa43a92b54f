//! `scontrol show node` (and `-o`): Slurm 22.05's node record lines, state with all flags
//! (`IDLE+DRAIN`), TRES lines, and the `Reason=... [user@time]` line for unavailable nodes.

use crate::format::node_view;
use crate::format::FormatContext;
use crate::model::records::NodeRecord;

/// Renders `scontrol show node` for `nodes` in the given order.
pub fn render(nodes: &[NodeRecord], one_liner: bool, ctx: &FormatContext) -> String {
    render_with_details(nodes, one_liner, false, ctx)
}

/// [`render`], with `scontrol -d`'s GRES lines (`GresDrain=`, `GresUsed=` with device indices) when `details`.
pub fn render_with_details(
    nodes: &[NodeRecord],
    one_liner: bool,
    details: bool,
    ctx: &FormatContext,
) -> String {
    nodes
        .iter()
        .map(|n| render_one(n, one_liner, details, ctx))
        .collect()
}

fn render_one(node: &NodeRecord, one_liner: bool, details: bool, ctx: &FormatContext) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut first = format!("NodeName={} ", node.name);
    if !node.arch.is_empty() {
        first.push_str(&format!("Arch={} ", node.arch));
    }
    first.push_str(&format!("CoresPerSocket={} ", node.cores_per_socket));
    lines.push(first);
    let load = node
        .cpu_load
        .map_or_else(|| "N/A".to_string(), |l| format!("{l:.2}"));
    lines.push(format!(
        "CPUAlloc={} CPUEfctv={} CPUTot={} CPULoad={load}",
        node.cpus_in_use(),
        node.cpus,
        node.cpus
    ));
    let features = node_view::features(node).unwrap_or_else(|| "(null)".to_string());
    lines.push(format!("AvailableFeatures={features}"));
    lines.push(format!("ActiveFeatures={features}"));
    lines.push(format!(
        "Gres={}",
        node_view::gres(node).unwrap_or_else(|| "(null)".to_string())
    ));
    if details {
        lines.push("GresDrain=N/A".to_string());
        lines.push(format!(
            "GresUsed={}",
            node_view::gres_used(node).unwrap_or_else(|| "(null)".to_string())
        ));
    }
    let mut addr = String::new();
    if !node.addr.is_empty() {
        addr.push_str(&format!("NodeAddr={} ", node.addr));
    }
    if !node.hostname.is_empty() {
        addr.push_str(&format!("NodeHostName={} ", node.hostname));
    }
    if let Some(port) = node.port.filter(|p| *p != 6818) {
        addr.push_str(&format!("Port={port} "));
    }
    if !node.version.is_empty() {
        addr.push_str(&format!("Version={}", node.version));
    }
    if !addr.is_empty() {
        lines.push(addr);
    }
    if !node.os.is_empty() {
        lines.push(format!("OS={} ", node.os));
    }
    let free = node
        .free_mem_mb
        .map_or_else(|| "N/A".to_string(), |m| m.to_string());
    lines.push(format!(
        "RealMemory={} AllocMem={} FreeMem={free} Sockets={} Boards={}",
        node.real_memory_mb, node.alloc_mem_mb, node.sockets, node.boards
    ));
    lines.push(format!(
        "State={} ThreadsPerCore={} TmpDisk={} Weight={} Owner=N/A MCS_label=N/A",
        node_view::state_complete(node),
        node.threads_per_core,
        node.tmp_disk_mb,
        node.weight
    ));
    if !node.partitions.is_empty() {
        lines.push(format!("Partitions={} ", node.partitions.join(",")));
    }
    lines.push(format!(
        "BootTime={} SlurmdStartTime={}",
        ctx.time_or(node.boot_time, "None"),
        ctx.time_or(node.agent_start_time, "None")
    ));
    lines.push(format!(
        "LastBusyTime={}",
        ctx.time_or(node.last_busy_time, "Unknown")
    ));
    lines.push(format!("CfgTRES={}", node_view::cfg_tres(node)));
    lines.push(format!("AllocTRES={}", node_view::alloc_tres(node)));
    lines.push("CapWatts=n/a".to_string());
    lines.push("CurrentWatts=0 AveWatts=0".to_string());
    lines.push("ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s".to_string());
    if let Some(reason) = node.reason.as_deref().filter(|r| !r.is_empty()) {
        for (i, part) in reason.split('\n').filter(|p| !p.is_empty()).enumerate() {
            if i == 0 {
                let mut text = format!("Reason={part}");
                if let Some(t) = node.reason_time.filter(|t| *t != 0) {
                    let user = node
                        .reason_uid
                        .map_or_else(|| "root".to_string(), |u| ctx.user_name(u));
                    text.push_str(&format!(" [{user}@{}]", ctx.time(t)));
                }
                lines.push(text);
            } else {
                lines.push(format!("       {part}"));
            }
        }
    }
    let line_end = if one_liner { " " } else { "\n   " };
    let mut out = lines.join(line_end);
    out.push_str(if one_liner { "\n" } else { "\n\n" });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{ctx, node, NOW};

    #[test]
    fn drained_node_shows_flags_and_reason() {
        let mut n = node("n1");
        n.drain = true;
        n.reason = Some("bad fan".into());
        n.reason_uid = Some(1000);
        n.reason_time = Some(NOW);
        n.port = Some(7000);
        let out = render(&[n], false, &ctx());
        assert!(
            out.contains("\n   NodeAddr=10.0.0.1 NodeHostName=n1 Port=7000 Version=22.05.8\n"),
            "{out}"
        );
        assert!(out.contains(
            "\n   State=IDLE+DRAIN ThreadsPerCore=1 TmpDisk=100 Weight=1 Owner=N/A MCS_label=N/A\n"
        ));
        assert!(
            out.ends_with("ExtSensorsTemp=n/s\n   Reason=bad fan [alice@2026-11-30T14:58:05]\n\n"),
            "{out}"
        );
    }

    #[test]
    fn unknown_values_and_one_liner() {
        let mut n = node("n1");
        n.cpu_load = None;
        n.free_mem_mb = None;
        n.boot_time = None;
        n.partitions.clear();
        n.features.clear();
        n.gres.clear();
        let out = render(&[n], true, &ctx());
        assert!(
            out.contains(
                " CPULoad=N/A AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) "
            ),
            "{out}"
        );
        assert!(out.contains(" FreeMem=N/A "));
        assert!(out.contains(" BootTime=None SlurmdStartTime="));
        assert!(!out.contains("Partitions="));
        assert!(out.ends_with("ExtSensorsTemp=n/s\n"));
        assert_eq!(out.lines().count(), 1);
    }
}
