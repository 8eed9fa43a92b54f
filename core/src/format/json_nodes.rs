//! One node of `sinfo --json` (v0.0.38 field order).

use crate::format::json::Json;
use crate::format::node_view;
use crate::format::sinfo_group::load_hundredths;
use crate::format::FormatContext;
use crate::model::records::NodeRecord;

fn int(v: impl Into<i64>) -> Json {
    Json::Int(v.into())
}

fn big(v: u64) -> Json {
    Json::Int(i64::try_from(v).unwrap_or(i64::MAX))
}

/// One node as v0.0.38 lists it (sinfo --json and slurmrestd).
pub fn node(n: &NodeRecord, ctx: &FormatContext) -> Json {
    let alloc_tres = node_view::alloc_tres(n);
    let flags = node_view::state_flags(n)
        .into_iter()
        .map(Json::str)
        .collect();
    let features = node_view::features(n).unwrap_or_default();
    Json::obj(vec![
        ("architecture", Json::str(n.arch.clone())),
        ("burstbuffer_network_address", Json::str("")),
        ("boards", int(n.boards)),
        ("boot_time", int(n.boot_time.unwrap_or(0))),
        ("comment", Json::str("")),
        ("cores", int(n.cores_per_socket)),
        ("cpu_binding", int(0)),
        ("cpu_load", big(n.cpu_load.map_or(0, load_hundredths))),
        ("extra", Json::str("")),
        ("free_memory", big(n.free_mem_mb.unwrap_or(0))),
        ("cpus", int(n.cpus)),
        ("last_busy", int(n.last_busy_time.unwrap_or(0))),
        ("features", Json::str(features.clone())),
        ("active_features", Json::str(features)),
        ("gres", Json::str(node_view::gres(n).unwrap_or_default())),
        ("gres_drained", Json::str("N/A")),
        (
            "gres_used",
            Json::str(node_view::gres_used(n).unwrap_or_default()),
        ),
        ("mcs_label", Json::str("")),
        ("name", Json::str(n.name.clone())),
        ("next_state_after_reboot", Json::str("invalid")),
        ("address", Json::str(n.addr.clone())),
        ("hostname", Json::str(n.hostname.clone())),
        ("state", Json::str(node_view::base_state_lower(n))),
        ("state_flags", Json::Arr(flags)),
        ("next_state_after_reboot_flags", Json::Arr(Vec::new())),
        ("operating_system", Json::str(n.os.clone())),
        ("owner", Json::Null),
        (
            "partitions",
            Json::Arr(n.partitions.iter().map(|p| Json::str(p.clone())).collect()),
        ),
        ("port", int(n.port.unwrap_or(6818))),
        ("real_memory", big(n.real_memory_mb)),
        ("reason", Json::str(n.reason.clone().unwrap_or_default())),
        ("reason_changed_at", int(n.reason_time.unwrap_or(0))),
        (
            "reason_set_by_user",
            n.reason_uid
                .map_or(Json::Null, |u| Json::str(ctx.user_name(u))),
        ),
        ("slurmd_start_time", int(n.agent_start_time.unwrap_or(0))),
        ("sockets", int(n.sockets)),
        ("threads", int(n.threads_per_core)),
        ("temporary_disk", big(n.tmp_disk_mb)),
        ("weight", int(n.weight)),
        ("tres", Json::str(node_view::cfg_tres(n))),
        ("slurmd_version", Json::str(n.version.clone())),
        ("alloc_memory", big(n.alloc_mem_mb)),
        ("alloc_cpus", int(n.cpus_in_use())),
        ("idle_cpus", int(n.cpus.saturating_sub(n.cpus_in_use()))),
        (
            "tres_used",
            if alloc_tres.is_empty() {
                Json::Null
            } else {
                Json::str(alloc_tres)
            },
        ),
        // Without TRESBillingWeights slurmctld weighs a node's allocation by its CPUs (checked against 22.05: an
        // idle node 0.0, one CPU allocated 1.0).
        (
            "tres_weighted",
            Json::Float(crate::format::node_view::alloc_weighted(n)),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{ctx, node as record};

    #[test]
    fn allocation_weighs_its_cpus() {
        let mut n = record("n1");
        n.alloc_cpus = 0;
        assert!(node(&n, &ctx())
            .to_pretty()
            .contains("\"tres_weighted\": 0.0"));
        n.alloc_cpus = 1;
        assert!(node(&n, &ctx())
            .to_pretty()
            .contains("\"tres_weighted\": 1.0"));
    }
}
