//! One reservation as slurmrestd's openapi/v0.0.38 lists it (`GET /slurm/v0.0.38/reservations`).

use crate::format::json::Json;
use crate::reservation::ReservationRecord;

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
        crate::hostlist::compress(&r.nodes)
    };
    Json::obj(vec![
        ("accounts", list(&r.accounts)),
        ("burst_buffer", Json::str("")),
        ("core_count", Json::Int(r.cpus.into())),
        ("core_spec_cnt", Json::Int(0)),
        ("end_time", Json::Int(r.end)),
        ("features", Json::str("")),
        ("flags", Json::Arr(flags)),
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
        ("purge_completed", Json::obj(vec![("time", Json::Int(0))])),
        ("start_time", Json::Int(r.start)),
        ("watts", Json::Int(0)),
        ("tres", Json::Str(format!("cpu={}", r.cpus))),
        ("users", list(&r.users)),
    ])
}
