//! The scontrol commands that talk to the controller: `show job|node|partition|config`, `ping`, `hold`,
//! `release`, `requeue`, `update JobId=...` and `update NodeName=...`.

use spur_core::api::{ControlRequest, JobSelector, JobUpdate, NodeUpdateState, Query, QueryReply, SlurmErrno};
use spur_core::format::{scontrol_config, scontrol_job, scontrol_node, scontrol_partition};
use spur_core::values::time::{parse_time_limit, TimeLimit};

use super::scontrol::Flags;
use crate::client::{Client, ClientError};
use crate::config;

fn client(prefix: &str) -> Option<Client> {
    match Client::from_environment() {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("{prefix}: {e}");
            None
        }
    }
}

pub fn show_jobs(id: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_jobs error") else { return 1 };
    let (jobs, now) = match client.query(&Query::Jobs) {
        Ok(QueryReply::Jobs { jobs, now }) => (jobs, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_jobs error: {e}");
            return 1;
        }
    };
    let selected: Vec<_> = match id {
        None => jobs,
        Some(text) => {
            let Some(selector) = parse_job_id(text) else {
                eprintln!("Invalid job id specified");
                return 1;
            };
            jobs.into_iter()
                .filter(|j| match selector.array_task {
                    Some(task) => j.array_job_id == Some(selector.job_id) && j.array_task_id == Some(task),
                    None => j.job_id == selector.job_id || j.array_job_id == Some(selector.job_id),
                })
                .collect()
        }
    };
    if selected.is_empty() {
        if id.is_some() {
            eprintln!("slurm_load_jobs error: Invalid job id specified");
            return 1;
        }
        println!("No jobs in the system");
        return 0;
    }
    let ctx = config::format_context(now, selected.iter().map(|j| (j.spec.user_id, j.spec.group_id)));
    print!("{}", scontrol_job::render(&selected, flags.one_liner, &ctx));
    0
}

pub fn show_nodes(name: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_node error") else { return 1 };
    let (nodes, now) = match client.query(&Query::Nodes) {
        Ok(QueryReply::Nodes { nodes, now }) => (nodes, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_node error: {e}");
            return 1;
        }
    };
    let wanted = match name.map(spur_core::hostlist::expand) {
        None => None,
        Some(Ok(names)) => Some(names),
        Some(Err(e)) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let selected: Vec<_> = nodes
        .into_iter()
        .filter(|n| wanted.as_ref().is_none_or(|w| w.contains(&n.name)))
        .collect();
    if selected.is_empty() {
        if let Some(name) = name {
            println!("Node {name} not found");
            return 1;
        }
    }
    let ctx = config::format_context(now, std::iter::empty());
    print!("{}", scontrol_node::render(&selected, flags.one_liner, &ctx));
    0
}

pub fn show_partitions(name: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_partitions error") else { return 1 };
    let (partitions, nodes, now) = match client.query(&Query::Partitions) {
        Ok(QueryReply::Partitions { partitions, nodes, now }) => (partitions, nodes, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_partitions error: {e}");
            return 1;
        }
    };
    let selected: Vec<_> = partitions.into_iter().filter(|p| name.is_none_or(|n| p.name == n)).collect();
    if selected.is_empty() {
        if let Some(name) = name {
            println!("Partition {name} not found");
            return 1;
        }
        println!("No partitions in the system");
        return 0;
    }
    let ctx = config::format_context(now, std::iter::empty());
    print!("{}", scontrol_partition::render(&selected, &nodes, flags.one_liner, &ctx));
    0
}

pub fn show_config() -> u8 {
    let Some(client) = client("slurm_load_ctl_conf error") else { return 1 };
    let (cluster, now) = match client.query(&Query::Config) {
        Ok(QueryReply::Config { config, now }) => (config, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_ctl_conf error: {e}");
            return 1;
        }
    };
    let next_job_id = match client.query(&Query::Jobs) {
        Ok(QueryReply::Jobs { jobs, .. }) => jobs.iter().map(|j| j.job_id + 1).max().unwrap_or(1),
        _ => 1,
    };
    let extras = scontrol_config::ConfigExtras {
        next_job_id,
        conf_path: config::slurm_conf_path().display().to_string(),
        version: crate::SLURM_VERSION.to_string(),
        sections: Vec::new(),
        status: Vec::new(),
    };
    let ctx = config::format_context(now, std::iter::empty());
    print!("{}", scontrol_config::render(&cluster, &extras, &ctx));
    0
}

pub fn ping() -> u8 {
    let conf = config::load_slurm_conf();
    let host = conf
        .as_ref()
        .and_then(|c| c.controllers.first().map(|h| h.hostname.clone()))
        .unwrap_or_else(config::short_hostname);
    let up = client("slurm_ping").is_some_and(|c| c.ping().is_ok());
    println!("Slurmctld(primary) at {host} is {}", if up { "UP" } else { "DOWN" });
    if up {
        0
    } else {
        1
    }
}

/// `12`, `12_3`; `None` for anything else.
fn parse_job_id(text: &str) -> Option<JobSelector> {
    let base = text.split('.').next().unwrap_or(text);
    match base.split_once('_') {
        Some((job, task)) => Some(JobSelector {
            job_id: job.parse().ok()?,
            array_task: Some(task.parse().ok()?),
        }),
        None => Some(JobSelector {
            job_id: base.parse().ok()?,
            array_task: None,
        }),
    }
}

/// `hold`, `uhold`, `release`, `requeue`, `requeuehold` on a list of job ids (spaces or commas).
pub fn job_list_command(verb: &str, rest: &[&str]) -> u8 {
    let ids: Vec<&str> = rest.iter().flat_map(|w| w.split(',')).filter(|w| !w.is_empty()).collect();
    if ids.is_empty() {
        eprintln!("Too few arguments for keyword:{verb}");
        return 1;
    }
    let Some(client) = client("slurm_update error") else { return 1 };
    let mut status = 0;
    for id in ids {
        let Some(job) = parse_job_id(id) else {
            eprintln!("Invalid job id {id}");
            status = 1;
            continue;
        };
        let request = match verb {
            "hold" => ControlRequest::Hold { job, by_user: false },
            "holdu" | "uhold" => ControlRequest::Hold { job, by_user: true },
            "release" => ControlRequest::Release { job },
            "requeue" => ControlRequest::Requeue { job, hold: false },
            _ => ControlRequest::Requeue { job, hold: true },
        };
        status |= report(&client, &request, id);
    }
    status
}

fn report(client: &Client, request: &ControlRequest, id: &str) -> u8 {
    match client.control(request) {
        Ok(reply) => {
            for (job, error) in &reply.failures {
                eprintln!("{} for job {job}", error.errno.text());
            }
            u8::from(!reply.failures.is_empty())
        }
        Err(ClientError::Api(error)) => {
            let text = error.errno.text();
            match error.errno {
                SlurmErrno::UserIdMissing | SlurmErrno::InvalidNodeName => {
                    eprintln!("slurm_update error: {text}");
                }
                _ => eprintln!("{text} for job {id}"),
            }
            1
        }
        Err(e) => {
            eprintln!("slurm_update error: {e}");
            1
        }
    }
}

/// `update JobId=N Field=Value ...` or `update NodeName=list State=... Reason=...`.
pub fn update(rest: &[&str]) -> u8 {
    let pairs: Vec<(String, String)> = rest
        .iter()
        .filter_map(|w| w.split_once('=').map(|(k, v)| (k.to_ascii_lowercase(), v.to_string())))
        .collect();
    let get = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    if let Some(nodes) = get("nodename") {
        return update_nodes(&nodes, get("state"), get("reason"));
    }
    let Some(id) = get("jobid").or_else(|| get("job")) else {
        eprintln!("No valid entity in update command");
        eprintln!("Input line must include \"NodeName\", \"PartitionName\", \"Reservation=<name>\", \"JobId\", \"SuspendExcNodes\", \"SuspendExcParts\", \"SuspendExcStates\"");
        return 1;
    };
    let Some(job) = parse_job_id(&id) else {
        eprintln!("Invalid job id {id}");
        return 1;
    };
    let mut update = JobUpdate::default();
    for (key, value) in &pairs {
        match key.as_str() {
            "jobid" | "job" => {}
            "timelimit" => match parse_time_limit(value) {
                Ok(TimeLimit::Minutes(m)) => update.time_limit_min = Some(Some(m)),
                Ok(TimeLimit::Unlimited) => update.time_limit_min = Some(None),
                Err(_) => {
                    eprintln!("Invalid TimeLimit value: {value}");
                    return 1;
                }
            },
            "name" | "jobname" => update.name = Some(value.clone()),
            "partition" => update.partition = Some(value.clone()),
            "nice" => match value.parse() {
                Ok(n) => update.nice = Some(n),
                Err(_) => {
                    eprintln!("Invalid nice value: {value}");
                    return 1;
                }
            },
            "priority" => match value.parse() {
                Ok(p) => update.priority = Some(p),
                Err(_) => {
                    eprintln!("Invalid Priority value: {value}");
                    return 1;
                }
            },
            "comment" => update.comment = Some(value.clone()),
            "numtasks" => match value.parse() {
                Ok(n) => update.num_tasks = Some(n),
                Err(_) => {
                    eprintln!("Invalid NumTasks value: {value}");
                    return 1;
                }
            },
            "dependency" => update.dependency = Some(value.clone()),
            other => {
                eprintln!("Update of this parameter is not supported: {other}={value}");
                eprintln!("Request aborted");
                return 1;
            }
        }
    }
    let Some(client) = client("slurm_update error") else { return 1 };
    report(&client, &ControlRequest::UpdateJob { job, update }, &id)
}

fn update_nodes(nodes: &str, state: Option<String>, reason: Option<String>) -> u8 {
    let names = match spur_core::hostlist::expand(nodes) {
        Ok(names) => names,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let state = match state.as_deref().map(str::to_ascii_uppercase).as_deref() {
        Some("DRAIN") => NodeUpdateState::Drain,
        Some("RESUME") => NodeUpdateState::Resume,
        Some("DOWN") => NodeUpdateState::Down,
        Some("IDLE") => NodeUpdateState::Idle,
        Some("UNDRAIN") => NodeUpdateState::Undrain,
        Some(other) => {
            eprintln!("Invalid node state specified");
            eprintln!("Request aborted ({other})");
            return 1;
        }
        None => {
            eprintln!("No changes specified");
            return 1;
        }
    };
    let Some(client) = client("slurm_update error") else { return 1 };
    match client.control(&ControlRequest::UpdateNode { nodes: names, state, reason }) {
        Ok(_) => 0,
        Err(ClientError::Api(error)) => {
            match error.detail.filter(|_| error.errno == SlurmErrno::Error) {
                Some(detail) => eprintln!("{detail}"),
                None => eprintln!("slurm_update error: {}", error.errno.text()),
            }
            1
        }
        Err(e) => {
            eprintln!("slurm_update error: {e}");
            1
        }
    }
}
