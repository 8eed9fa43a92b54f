//! One reservation as slurmrestd's openapi/v0.0.38 lists it (`GET /slurm/v0.0.38/reservations`), in the field
//! order slurmrestd 22.05 writes (flags first).

use crate::format::json::Json;
use crate::model::reservation::ReservationRecord;

fn list(items: &[String]) -> Json {
    Json::Str(items.join(","))
}

pub fn reservation(r: &ReservationRecord) -> Json {
    let flags = r.flags.render();
    let flags = flags
        .split(',')
        .filter(|f| !f.is_empty())
        .map(Json::str)
        .collect();
    let node_list = if r.nodes.is_empty() {
        String::new()
    } else {
        crate::grammar::hostlist::compress(&r.nodes)
    };
    Json::obj(vec![
        ("flags", Json::Arr(flags)),
        ("accounts", list(&r.accounts)),
        ("burst_buffer", Json::str("")),
        ("core_count", Json::Int(r.cpus.into())),
        ("core_spec_cnt", Json::Int(0)),
        ("end_time", Json::Int(r.end)),
        ("features", Json::str("")),
        ("groups", Json::str("")),
        ("licenses", Json::str("")),
        ("max_start_delay", Json::Int(0)),
        ("name", Json::str(r.name.clone())),
        ("node_count", Json::Int(r.nodes.len() as i64)),
        ("node_list", Json::Str(node_list)),
        (
            "partition",
            Json::Str(r.partition.clone().unwrap_or_default()),
        ),
        ("start_time", Json::Int(r.start)),
        // NO_VAL: no power limit.
        ("watts", Json::Int(4_294_967_294)),
        ("tres", Json::Str(format!("cpu={}", r.cpus))),
        ("users", list(&r.users)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checked against slurmrestd 22.05 (`scontrol create reservation ... users=root nodes=ALL flags=ignore_jobs`).
    #[test]
    fn reads_like_slurmrestds() {
        let mut r = ReservationRecord {
            name: "rr".into(),
            start: 100,
            end: 3700,
            nodes: vec!["vm".into()],
            cpus: 2,
            users: vec!["root".into()],
            user_ids: vec![0],
            accounts: Vec::new(),
            partition: None,
            flags: Default::default(),
            created: 1,
        };
        r.flags.ignore_jobs = true;
        let text = reservation(&r).to_pretty();
        assert!(
            text.starts_with("{\n  \"flags\": [\n    \"IGNORE_JOBS\"\n  ],\n  \"accounts\": \"\",")
        );
        assert!(!text.contains("purge_completed"));
        for line in [
            "\"core_count\": 2",
            "\"node_list\": \"vm\"",
            "\"partition\": \"\"",
            "\"watts\": 4294967294",
            "\"tres\": \"cpu=2\"",
            "\"users\": \"root\"",
        ] {
            assert!(text.contains(line), "{line} not in {text}");
        }
    }
}
