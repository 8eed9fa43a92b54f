//! `GET /ping`, `GET /diag` and `GET /licenses`: the controllers' liveness, the controller's counters, and the
//! cluster's licenses.

use spur_core::format::json::Json;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{JobListing, Query, QueryReply};

use super::auth::Caller;
use super::nodes::unexpected;
use super::reply::{entry, error_entry, failed_listing, Reply};
use crate::config;

/// Each configured controller, `UP` when it answers a ping. As slurmrestd does, the caller's credential is first
/// checked by loading the controller's configuration: a refused token fails the whole request.
pub fn ping(caller: &Caller) -> Reply {
    let client = match caller.client() {
        Ok(client) => client,
        Err(e) => return Reply::document(vec![unloadable_config(&e)], Vec::new()),
    };
    if let Err(e) = client.query(&Query::Config) {
        return Reply::document(vec![unloadable_config(&e)], Vec::new());
    }
    let conf = config::load_slurm_conf();
    let urls = config::controller_urls();
    let names: Vec<String> = match conf.map(|c| &c.controllers).filter(|c| !c.is_empty()) {
        Some(hosts) => hosts.iter().map(|h| h.hostname.clone()).collect(),
        None => vec![config::short_hostname()],
    };
    let count = names.len();
    let pings = names
        .into_iter()
        .zip(urls.iter())
        .enumerate()
        .map(|(i, (name, url))| {
            let up = client.ping_url(url).is_ok();
            Json::obj(vec![
                ("hostname", Json::Str(name)),
                ("ping", Json::str(if up { "UP" } else { "DOWN" })),
                ("status", Json::Int(if up { 0 } else { -1 })),
                ("mode", Json::Str(mode(i, count))),
            ])
        })
        .collect();
    Reply::document(Vec::new(), vec![("pings", Json::Arr(pings))])
}

/// slurmrestd's answer when the configuration cannot be loaded, whatever the reason: its errno is not kept.
fn unloadable_config(_error: &crate::client::ClientError) -> Json {
    entry(
        "slurmctld config is unable to load",
        -1,
        "Unspecified error",
        "slurm_load_ctl_conf",
    )
}

/// `primary`, then `backup` for a pair, else `backupN`, as `scontrol ping` names them.
fn mode(index: usize, count: usize) -> String {
    match index {
        0 => "primary".into(),
        1 if count == 2 => "backup".into(),
        i => format!("backup{i}"),
    }
}

/// The counters Spur keeps: the controller's start and the jobs it holds now by state. The RPC, scheduler and
/// backfill statistics slurmctld keeps are not kept and read 0.
pub fn diag(caller: &Caller) -> Reply {
    const SOURCE: &str = "slurm_get_statistics";
    let failed = |e: &crate::client::ClientError| {
        Reply::document(
            vec![error_entry(e, "unable to get statistics", SOURCE)],
            Vec::new(),
        )
    };
    let client = match caller.client() {
        Ok(client) => client,
        Err(e) => return failed(&e),
    };
    let started = match client.query(&Query::Config) {
        Ok(QueryReply::Config { config, .. }) => config.boot_time,
        Ok(_) => return unexpected("statistics", SOURCE),
        Err(e) => return failed(&e),
    };
    let list = match client.job_list(JobListing::default()) {
        Ok(list) => list,
        Err(e) => return failed(&e),
    };
    let count = |wanted: &[JobBaseState]| {
        Json::Int(
            list.jobs
                .iter()
                .filter(|j| wanted.contains(&j.state))
                .count() as i64,
        )
    };
    let started_jobs = list.jobs.iter().filter(|j| j.start_time.is_some()).count() as i64;
    let mut stats: Vec<(&str, Json)> = vec![
        ("rpcs_by_message_type", Json::Arr(Vec::new())),
        ("rpcs_by_user", Json::Arr(Vec::new())),
        ("parts_packed", Json::Int(1)),
        ("req_time", Json::Int(list.now)),
        ("req_time_start", Json::Int(started)),
    ];
    for zero in [
        "server_thread_count",
        "agent_queue_size",
        "agent_count",
        "agent_thread_count",
        "dbd_agent_queue_size",
        "gettimeofday_latency",
        "schedule_cycle_max",
        "schedule_cycle_last",
        "schedule_cycle_total",
        "schedule_cycle_mean",
        "schedule_cycle_mean_depth",
        "schedule_cycle_per_minute",
        "schedule_queue_length",
    ] {
        stats.push((zero, Json::Int(0)));
    }
    stats.extend([
        ("jobs_submitted", Json::Int(list.jobs.len() as i64)),
        ("jobs_started", Json::Int(started_jobs)),
        ("jobs_completed", count(&[JobBaseState::Completed])),
        ("jobs_canceled", count(&[JobBaseState::Cancelled])),
        (
            "jobs_failed",
            count(&[
                JobBaseState::Failed,
                JobBaseState::NodeFail,
                JobBaseState::Timeout,
                JobBaseState::OutOfMemory,
            ]),
        ),
        ("jobs_pending", count(&[JobBaseState::Pending])),
        ("jobs_running", count(&[JobBaseState::Running])),
        ("job_states_ts", Json::Int(list.now)),
    ]);
    for zero in [
        "bf_backfilled_jobs",
        "bf_last_backfilled_jobs",
        "bf_backfilled_het_jobs",
        "bf_cycle_counter",
        "bf_cycle_mean",
        "bf_depth_mean",
        "bf_depth_mean_try",
        "bf_cycle_last",
        "bf_cycle_max",
        "bf_queue_len",
        "bf_queue_len_mean",
        "bf_table_size",
        "bf_table_size_mean",
        "bf_when_last_cycle",
    ] {
        stats.push((zero, Json::Int(0)));
    }
    stats.push(("bf_active", Json::Bool(false)));
    Reply::document(Vec::new(), vec![("statistics", Json::obj(stats))])
}

pub fn licenses(caller: &Caller) -> Reply {
    const SOURCE: &str = "slurm_load_licenses";
    let licenses = match caller.client().and_then(|c| c.query(&Query::Licenses)) {
        Ok(QueryReply::Licenses { licenses }) => licenses,
        Ok(_) => return unexpected("licenses", SOURCE),
        Err(e) => {
            return failed_listing(
                "licenses",
                error_entry(&e, "unable to load licenses", SOURCE),
            )
        }
    };
    let items = licenses
        .iter()
        .map(|l| {
            Json::obj(vec![
                ("LicenseName", Json::str(l.name.clone())),
                ("Total", Json::Int(l.total.into())),
                ("Used", Json::Int(l.used.into())),
                ("Free", Json::Int(i64::from(l.total) - i64::from(l.used))),
                ("Reserved", Json::Int(0)),
                ("Remote", Json::Bool(false)),
            ])
        })
        .collect();
    Reply::document(Vec::new(), vec![("licenses", Json::Arr(items))])
}

#[cfg(test)]
mod tests {
    #[test]
    fn controller_modes() {
        assert_eq!(super::mode(0, 1), "primary");
        assert_eq!(super::mode(1, 2), "backup");
        assert_eq!(super::mode(2, 3), "backup2");
    }
}
