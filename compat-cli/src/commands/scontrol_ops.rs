//! The scontrol commands that talk to the controller: `show job|node|partition|config`, `ping`, `hold`,
//! `release`, `requeue`, `update JobId=...` and `update NodeName=...`.

use spur_core::format::{scontrol_config, scontrol_job, scontrol_node, scontrol_partition};
use spur_core::grammar::values::begin::{parse_time, LocalNow};
use spur_core::grammar::values::time::{parse_time_limit, TimeLimit};
use spur_core::model::job::JobRecord;
use spur_core::wire::api::{
    ControlRequest, JobList, JobListing, JobSelector, JobUpdate, Query, QueryReply, SlurmErrno,
};
use spur_core::wire::listing_rows::ListField;

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

/// Every job and the controller's clock, with the client ready for more questions; errors are printed after
/// `prefix` (Slurm names the API call that failed).
fn load_jobs(prefix: &str) -> Option<(Client, Vec<JobRecord>, i64)> {
    let client = client(prefix)?;
    match client.job_list(JobListing::default()) {
        Ok(JobList { jobs, now }) => Some((client, jobs, now)),
        Err(e) => {
            eprintln!("{prefix}: {e}");
            None
        }
    }
}

/// `scontrol show step [JOB[.STEP]]`: running steps, with Slurm's texts when there are none.
pub fn show_steps(id: Option<&str>, flags: Flags) -> u8 {
    use spur_core::format::steps::{render_show_step, running_steps};
    let Some((_, jobs, now)) = load_jobs("slurm_get_job_steps error") else {
        return 1;
    };
    let wanted = match id {
        None => None,
        Some(text) => {
            let (job_text, step_text) = text.split_once('.').unwrap_or((text, ""));
            let Some(job_id) = job_text.parse::<u32>().ok() else {
                eprintln!("slurm_get_job_steps error: Invalid job id specified");
                return 1;
            };
            if !jobs.iter().any(|j| j.job_id == job_id) {
                eprintln!("slurm_get_job_steps error: Invalid job id specified");
                return 1;
            }
            Some((job_id, step_text.to_string()))
        }
    };
    let steps: Vec<_> = running_steps(&jobs)
        .into_iter()
        .filter(|s| match &wanted {
            None => true,
            Some((job_id, step)) => {
                s.job.job_id == *job_id
                    && (step.is_empty()
                        || match s.step_id {
                            Some(id) => step.parse::<u32>().ok() == Some(id),
                            None => step == s.name,
                        })
            }
        })
        .collect();
    if steps.is_empty() {
        return match wanted {
            None => {
                println!("No job steps in the system");
                0
            }
            Some((job_id, step)) => {
                println!("Job step {job_id}.{step} not found");
                1
            }
        };
    }
    let ctx = config::format_context(
        now,
        steps
            .iter()
            .map(|s| (s.job.spec.user_id, s.job.spec.group_id)),
    );
    print!("{}", render_show_step(&steps, flags.one_liner, &ctx));
    0
}

pub fn show_jobs(id: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_jobs error") else {
        return 1;
    };
    // Every field, as rows read one at a time into one record: the records are never all held at once.
    let fields = ListField::ALL;
    let (reply, now, owners) = match super::load_job_rows(&client, JobListing::default(), fields) {
        Ok(listed) => listed,
        Err(code) => return code,
    };
    let wanted = match id {
        None => None,
        Some(text) => {
            let Some(selector) = parse_job_id(text) else {
                eprintln!("scontrol_print_job error: Invalid job id specified");
                return 1;
            };
            // An array's id brings its tasks, a heterogeneous job's leader every component; `J+N` names one
            // component alone.
            let exact = spur_core::model::het_step::component_job_id(
                text.split('.').next().unwrap_or(text),
            );
            Some((selector, exact))
        }
    };
    let ctx = config::format_context(now, owners.into_iter());
    // `-d` names each allocation's GRES with the type its node has them under.
    let nodes = if flags.details {
        match client.query(&Query::Nodes) {
            Ok(QueryReply::Nodes { nodes, .. }) => nodes,
            _ => Vec::new(),
        }
    } else {
        Vec::new()
    };
    let details = flags
        .details
        .then_some(scontrol_job::Details { nodes: &nodes });
    let mut show = scontrol_job::Show::new(flags.one_liner, details.as_ref(), &ctx);
    let read = reply.for_each(fields, |job| {
        let chosen = match &wanted {
            None => true,
            Some((_, Some(exact))) => job.job_id == *exact,
            Some((selector, None)) => spur_core::format::squeue::id_selects(selector, job),
        };
        if chosen {
            show.push(job);
        }
    });
    if let Err(e) = read {
        eprintln!("slurm_load_jobs error: {e}");
        return 1;
    }
    if show.is_empty() {
        if id.is_some() {
            eprintln!("slurm_load_jobs error: Invalid job id specified");
            return 1;
        }
        println!("No jobs in the system");
        return 0;
    }
    print!("{}", show.finish());
    super::release_at_exit(reply);
    0
}

pub fn show_nodes(name: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_node error") else {
        return 1;
    };
    let (nodes, now) = match client.query(&Query::Nodes) {
        Ok(QueryReply::Nodes { nodes, now }) => (nodes, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_node error: {e}");
            return 1;
        }
    };
    let wanted = match name.map(spur_core::grammar::hostlist::expand) {
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
    // The users who set the nodes' reasons (`Reason=... [root@...]`).
    let reason_users = selected
        .iter()
        .filter_map(|n| n.reason_uid)
        .map(|uid| (uid, u32::MAX));
    let ctx = config::format_context(now, reason_users);
    print!(
        "{}",
        scontrol_node::render_with_details(&selected, flags.one_liner, flags.details, &ctx)
    );
    0
}

pub fn show_partitions(name: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_partitions error") else {
        return 1;
    };
    let (partitions, nodes, now) = match client.query(&Query::Partitions) {
        Ok(QueryReply::Partitions {
            partitions,
            nodes,
            now,
        }) => (partitions, nodes, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_partitions error: {e}");
            return 1;
        }
    };
    let selected: Vec<_> = partitions
        .into_iter()
        .filter(|p| name.is_none_or(|n| p.name == n))
        .collect();
    if selected.is_empty() {
        if let Some(name) = name {
            println!("Partition {name} not found");
            return 1;
        }
        println!("No partitions in the system");
        return 0;
    }
    let ctx = config::format_context(now, std::iter::empty());
    print!(
        "{}",
        scontrol_partition::render(&selected, &nodes, flags.one_liner, &ctx)
    );
    0
}

pub fn show_config() -> u8 {
    let Some(client) = client("slurm_load_ctl_conf error") else {
        return 1;
    };
    let (mut cluster, now) = match client.query(&Query::Config) {
        Ok(QueryReply::Config { config, now }) => (config, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_ctl_conf error: {e}");
            return 1;
        }
    };
    // slurmctld names its users with their uid: `SlurmUser = root(0)`.
    for (key, value) in &mut cluster.entries {
        if key.eq_ignore_ascii_case("SlurmUser") || key.eq_ignore_ascii_case("SlurmdUser") {
            if let Some(uid) = config::uid_of(value) {
                *value = format!("{value}({uid})");
            }
        }
    }
    let next_job_id = match client.job_list(JobListing::default()) {
        Ok(list) => list.jobs.iter().map(|j| j.job_id + 1).max().unwrap_or(1),
        Err(_) => 1,
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
    if let Some(controllers) = conf.map(|c| &c.controllers).filter(|c| c.len() > 1) {
        return ping_each(controllers);
    }
    let host = conf
        .as_ref()
        .and_then(|c| c.controllers.first().map(|h| h.hostname.clone()))
        .unwrap_or_else(config::short_hostname);
    let state = client("slurm_ping").map_or(PingState::Down, |c| PingState::of(c.ping()));
    println!("Slurmctld(primary) at {host} is {state}");
    if state.is_up() {
        0
    } else {
        1
    }
}

/// `scontrol reconfigure`: the controller reads slurm.conf again. Silent on success; a refusal is reported as
/// Slurm's `slurm_perror` does, exit 1.
pub fn reconfigure(rest: &[&str]) -> u8 {
    let mut code = 0;
    if !rest.is_empty() {
        eprintln!("too many arguments for keyword:reconfigure");
        code = 1;
    }
    let Some(client) = client("slurm_reconfigure") else {
        return 1;
    };
    match client.control(&spur_core::wire::api::ControlRequest::Reconfigure) {
        Ok(_) => code,
        Err(ClientError::Api(e)) => {
            eprintln!("slurm_reconfigure error: {}", e.errno.text());
            1
        }
        Err(e) => {
            eprintln!("slurm_reconfigure error: {e}");
            1
        }
    }
}

/// What `scontrol ping` says of one controller: UP, DOWN (no answer), or DOWN with the reason a controller whose
/// state storage failed gives (Slurm prints UP or DOWN alone; the reason is Spur's, after it).
enum PingState {
    Up,
    Down,
    Faulted(String),
}

impl PingState {
    fn of(reply: Result<spur_core::wire::pb::PingReply, ClientError>) -> Self {
        match reply {
            Ok(reply) if reply.fault.is_empty() => PingState::Up,
            Ok(reply) => PingState::Faulted(reply.fault),
            Err(_) => PingState::Down,
        }
    }

    fn is_up(&self) -> bool {
        matches!(self, PingState::Up)
    }
}

impl std::fmt::Display for PingState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PingState::Up => f.write_str("UP"),
            PingState::Down => f.write_str("DOWN"),
            PingState::Faulted(reason) => write!(f, "DOWN (state storage failed: {reason})"),
        }
    }
}

/// Several SlurmctldHost lines: one line per controller, as slurmctld's HA setups print them (`primary`, then
/// `backup` for a pair, else `backupN`); success when any answers, and root is asked to restore any that is down.
fn ping_each(controllers: &[spur_core::grammar::conf::ControllerHost]) -> u8 {
    let Some(client) = client("slurm_ping") else {
        return 1;
    };
    let mut any_up = false;
    let mut any_down = false;
    for (i, (host, url)) in controllers
        .iter()
        .zip(spur_core::grammar::conf::controller_urls(
            None,
            config::load_slurm_conf(),
        ))
        .enumerate()
    {
        let state = PingState::of(client.ping_url(&url));
        let up = state.is_up();
        any_up |= up;
        any_down |= !up;
        let mode = match i {
            0 => "primary".to_string(),
            1 if controllers.len() == 2 => "backup".to_string(),
            _ => format!("backup{i}"),
        };
        println!("Slurmctld({mode}) at {} is {state}", host.hostname);
    }
    if any_down && nix::unistd::getuid().is_root() {
        println!("*****************************************");
        println!("** RESTORE SLURMCTLD DAEMON TO SERVICE **");
        println!("*****************************************");
    }
    if any_up {
        0
    } else {
        1
    }
}

/// `scontrol token [username=NAME] [lifespan=SECS]`: prints `SLURM_JWT=...`. Like Slurm, a lifespan that is not
/// a number asks for the default.
pub fn token(args: &[&str]) -> u8 {
    let mut username = None;
    let mut lifespan_secs = None;
    for arg in args {
        match arg.split_once('=') {
            Some((key, value)) if key.eq_ignore_ascii_case("username") => {
                username = Some(value.to_string())
            }
            Some((key, value)) if key.eq_ignore_ascii_case("lifespan") => {
                lifespan_secs = value.parse::<u32>().ok()
            }
            _ => {
                eprintln!("scontrol: error: Invalid token argument {arg}");
                return 1;
            }
        }
    }
    let Some(client) = client("slurm_fetch_token") else {
        return 1;
    };
    match client.query(&Query::Token {
        username,
        lifespan_secs,
    }) {
        Ok(QueryReply::Token { token }) => {
            println!("SLURM_JWT={token}");
            0
        }
        Ok(_) => {
            eprintln!("Error fetching token");
            1
        }
        // libslurm logs a controller's return code, but not an answer of a type it did not expect (what
        // slurmctld sends when auth/jwt is not loaded).
        Err(ClientError::Api(e)) if e.errno == SlurmErrno::UnexpectedMessage => {
            eprintln!("Error fetching token");
            1
        }
        Err(e) => {
            eprintln!("scontrol: error: slurm_fetch_token: error with request: {e}");
            eprintln!("Error fetching token");
            1
        }
    }
}

/// `12`, `12_3`; `None` for anything else.
fn parse_job_id(text: &str) -> Option<JobSelector> {
    let base = text.split('.').next().unwrap_or(text);
    if let Some(job_id) = spur_core::model::het_step::component_job_id(base) {
        return Some(JobSelector {
            job_id,
            array_task: None,
        });
    }
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

/// `hold`, `uhold`, `release`, `requeue`, `requeuehold` on job lists: each argument is a comma-separated list.
///
/// Each job that fails gets `<error> for job <id>`; an argument that is not a list of job ids fails as a whole. The
/// hold and release commands go through Slurm's `slurm_suspend` path, which adds one summary line per argument.
pub fn job_list_command(verb: &str, rest: &[&str]) -> u8 {
    let lists: Vec<&str> = rest.iter().copied().filter(|w| !w.is_empty()).collect();
    if lists.is_empty() {
        eprintln!("too few arguments for keyword:{verb}");
        return 1;
    }
    let Some(client) = client("slurm_update error") else {
        return 1;
    };
    // hold and release end with a summary line (Slurm prints it through slurm_suspend's error text).
    let summarise = !verb.starts_with("requeue") && verb != "suspend" && verb != "resume";
    let mut status = 0;
    for list in lists {
        let ids: Option<Vec<(&str, JobSelector)>> = list
            .split(',')
            .filter(|w| !w.is_empty())
            .map(|id| parse_job_id(id).map(|job| (id, job)))
            .collect();
        let errors: Vec<SlurmErrno> = match ids {
            Some(ids) if !ids.is_empty() => ids
                .into_iter()
                .filter_map(|(id, job)| job_list_request(&client, verb, job, id))
                .collect(),
            _ => {
                eprintln!("{} for job {list}", SlurmErrno::InvalidJobId.text());
                vec![SlurmErrno::InvalidJobId]
            }
        };
        if let Some(last) = errors.last() {
            status = 1;
            if summarise {
                eprintln!("slurm_suspend error: {}", last.text());
            }
        }
    }
    status
}

/// Sends one hold/release/requeue request and prints its failures; returns the last error, if any.
fn job_list_request(client: &Client, verb: &str, job: JobSelector, id: &str) -> Option<SlurmErrno> {
    let request = match verb {
        "hold" => ControlRequest::Hold {
            job,
            by_user: false,
        },
        "holdu" | "uhold" => ControlRequest::Hold { job, by_user: true },
        "release" => ControlRequest::Release { job },
        "suspend" => ControlRequest::Suspend { job },
        "resume" => ControlRequest::Resume { job },
        "requeue" => ControlRequest::Requeue { job, hold: false },
        _ => ControlRequest::Requeue { job, hold: true },
    };
    match client.control(&request) {
        Ok(reply) => {
            for (job, error) in &reply.failures {
                eprintln!("{} for job {job}", error.errno.text());
            }
            reply.failures.last().map(|(_, e)| e.errno)
        }
        Err(ClientError::Api(error)) => {
            eprintln!("{} for job {id}", error.errno.text());
            Some(error.errno)
        }
        Err(e) => {
            eprintln!("slurm_update error: {e}");
            Some(SlurmErrno::Error)
        }
    }
}

/// `scontrol top LIST`: the controller checks the list as a whole; an error names the list as given.
pub fn top(rest: &[&str]) -> u8 {
    let Some(list) = rest.first().filter(|l| !l.is_empty()) else {
        eprintln!("too few arguments for keyword:top");
        return 1;
    };
    let Some(client) = client("slurm_top_job error") else {
        return 1;
    };
    let request = ControlRequest::Top {
        job_list: list.to_string(),
    };
    report(&client, &request, list)
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
            // A job update reports per job (another user's job: `Invalid user id for job N`); a node update
            // fails as a whole.
            let job_update = matches!(request, ControlRequest::UpdateJob { .. });
            match error.errno {
                SlurmErrno::UserIdMissing | SlurmErrno::InvalidNodeName if !job_update => {
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
    if rest.is_empty() {
        eprintln!("too few arguments for update keyword");
        return 1;
    }
    // Keys match in any case; error messages quote them as given.
    let pairs: Vec<(String, &str, &str)> = rest
        .iter()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_ascii_lowercase(), k, v))
        .collect();
    let get = |key: &str| {
        pairs
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, _, v)| v.to_string())
    };
    if get("reservationname").is_some() {
        return super::scontrol_resv::update(rest);
    }
    if let Some(nodes) = get("nodename") {
        let words: Vec<(&str, &str)> = pairs.iter().map(|(_, k, v)| (*k, *v)).collect();
        return super::scontrol_node::update(&nodes, &words);
    }
    if get("partitionname").is_some() {
        return super::scontrol_part::update(rest);
    }
    if let Some(step) = get("stepid") {
        return update_step(&step, &pairs);
    }
    let Some(id) = get("jobid").or_else(|| get("job")) else {
        eprintln!("No valid entity in update command");
        eprintln!("Input line must include \"NodeName\", \"PartitionName\", \"Reservation=<name>\", \"JobId\", \"SuspendExcNodes\", \"SuspendExcParts\", \"SuspendExcStates\"");
        return 1;
    };
    let Some(job) = parse_job_id(&id) else {
        eprintln!("{} for job {id}", SlurmErrno::InvalidJobId.text());
        return 1;
    };
    let mut update = JobUpdate::default();
    let mut changes = 0;
    for (key, given, value) in &pairs {
        // StartTime= (EligibleTime=): a time Slurm cannot read is reported and not counted as a change; a past
        // time means now.
        if matches!(key.as_str(), "starttime" | "eligibletime") {
            let now = LocalNow {
                epoch_secs: crate::config::now_epoch(),
                utc_offset_secs: crate::config::utc_offset_secs(),
            };
            match parse_time(value, now, false) {
                Ok(0) => {}
                Ok(t) => {
                    update.begin_time = Some(t.max(now.epoch_secs));
                    changes += 1;
                }
                Err(e) => eprintln!("{e}"),
            }
            continue;
        }
        if let Err(message) = apply_update(&mut update, key, value) {
            match message {
                UpdateError::Unsupported => {
                    eprintln!("Update of this parameter is not supported: {given}={value}");
                    eprintln!("Request aborted");
                }
                UpdateError::Invalid(text) => eprintln!("scontrol: error: {text}"),
            }
            return 1;
        }
        changes += usize::from(!matches!(key.as_str(), "jobid" | "job"));
    }
    if changes == 0 {
        eprintln!("No changes specified");
        return 1;
    }
    let Some(client) = client("slurm_update error") else {
        return 1;
    };
    report(&client, &ControlRequest::UpdateJob { job, update }, &id)
}

/// `update StepId=JOB[.STEP] TimeLimit=...`: the only field Slurm lets a step change.
fn update_step(id: &str, pairs: &[(String, &str, &str)]) -> u8 {
    let (job, step) = match id.split_once('.') {
        Some((job, step)) => (job, Some(step)),
        None => (id, None),
    };
    let job_id = job.parse::<u32>().ok();
    let step_id = step.map(|s| s.parse::<u32>().ok());
    let (Some(job_id), false) = (job_id, matches!(step_id, Some(None))) else {
        eprintln!("scontrol: error: Invalid StepId {id}");
        return 1;
    };
    let mut time_limit = None;
    for (key, given, value) in pairs {
        match key.as_str() {
            "stepid" => {}
            "timelimit" => match parse_time_limit(value) {
                Ok(TimeLimit::Minutes(m)) => time_limit = Some(Some(m)),
                Ok(TimeLimit::Unlimited) => time_limit = Some(None),
                Err(_) => {
                    eprintln!("scontrol: error: Invalid TimeLimit value");
                    return 1;
                }
            },
            _ => {
                eprintln!("Update of this parameter is not supported: {given}={value}");
                eprintln!("Request aborted");
                return 1;
            }
        }
    }
    let Some(time_limit_min) = time_limit else {
        eprintln!("No changes specified");
        return 1;
    };
    let Some(client) = client("slurm_update error") else {
        return 1;
    };
    let request = ControlRequest::UpdateStep {
        job_id,
        step_id: step_id.flatten(),
        time_limit_min,
    };
    match client.control(&request) {
        Ok(_) => 0,
        Err(ClientError::Api(error)) => {
            eprintln!("slurm_update error: {}", error.errno.text());
            1
        }
        Err(e) => {
            eprintln!("slurm_update error: {e}");
            1
        }
    }
}

/// `scontrol notify JOB MESSAGE...`.
pub fn notify(rest: &[&str]) -> u8 {
    let [id, words @ ..] = rest else {
        eprintln!("too few arguments for keyword:notify");
        return 1;
    };
    if words.is_empty() {
        eprintln!("too few arguments for keyword:notify");
        return 1;
    }
    let Ok(job_id) = id.parse::<u32>() else {
        eprintln!("Invalid job ID {id}");
        return 1;
    };
    let Some(client) = client("job notify failure") else {
        return 1;
    };
    let request = ControlRequest::NotifyJob {
        job_id,
        message: words.join(" "),
    };
    match client.control(&request) {
        Ok(_) => 0,
        Err(ClientError::Api(error)) => {
            eprintln!("job notify failure: {}", error.errno.text());
            1
        }
        Err(e) => {
            eprintln!("job notify failure: {e}");
            1
        }
    }
}

enum UpdateError {
    Unsupported,
    /// The text after `scontrol: error: `.
    Invalid(String),
}

/// One `Key=Value` of `update JobId=...` (key lowercased) into the update.
fn apply_update(update: &mut JobUpdate, key: &str, value: &str) -> Result<(), UpdateError> {
    let number = |name: &str| {
        value
            .parse()
            .map_err(|_| UpdateError::Invalid(format!("Invalid {name} value: {value}")))
    };
    match key {
        "jobid" | "job" => {}
        "timelimit" => match parse_time_limit(value) {
            Ok(TimeLimit::Minutes(m)) => update.time_limit_min = Some(Some(m)),
            Ok(TimeLimit::Unlimited) => update.time_limit_min = Some(None),
            Err(_) => return Err(UpdateError::Invalid("Invalid TimeLimit value".into())),
        },
        "name" | "jobname" => update.name = Some(value.to_string()),
        "partition" => update.partition = Some(value.to_string()),
        // Slurm reads Nice with atoi: text that is not a number means 0.
        "nice" => update.nice = Some(leading_int(value)),
        "priority" => update.priority = Some(number("Priority")?),
        "comment" => update.comment = Some(value.to_string()),
        "numtasks" | "reqprocs" => {
            update.num_tasks =
                Some(slurm_uint32(value).ok_or_else(|| {
                    UpdateError::Invalid(format!("Invalid NumTasks value: {value}"))
                })?)
        }
        "dependency" => update.dependency = Some(value.to_string()),
        "reservation" => update.reservation = Some(value.to_string()),
        // Slurm reads the number with strtoll (text that is not a number is 0, no limit) and refuses a negative one.
        "arraytaskthrottle" => {
            let throttle = leading_int(value);
            update.array_throttle = Some(u32::try_from(throttle).map_err(|_| {
                UpdateError::Invalid("Invalid ArrayTaskThrottle value".to_string())
            })?);
        }
        _ => return Err(UpdateError::Unsupported),
    }
    Ok(())
}

/// Slurm's `parse_uint32`: a whole decimal number (C's `strtoll`: leading blanks and a sign allowed) from 0 to
/// just below NO_VAL, so no request can carry Slurm's "not set" or "infinite" markers.
fn slurm_uint32(text: &str) -> Option<u32> {
    let value: i64 = text.trim_start().parse().ok()?;
    u32::try_from(value)
        .ok()
        .filter(|v| *v < spur_core::grammar::values::NO_VAL)
}

/// C's `atoi`: optional blanks and sign, then digits; anything else ends the number (none at all is 0).
fn leading_int(text: &str) -> i32 {
    let trimmed = text.trim_start();
    let (sign, digits) = match trimmed.as_bytes().first() {
        Some(b'-') => (-1i64, &trimmed[1..]),
        Some(b'+') => (1, &trimmed[1..]),
        _ => (1, trimmed),
    };
    let magnitude = digits
        .bytes()
        .take_while(u8::is_ascii_digit)
        .fold(0i64, |n, d| {
            (n * 10 + i64::from(d - b'0')).min(i64::from(u32::MAX))
        });
    i32::try_from(sign * magnitude).unwrap_or(if sign < 0 { i32::MIN } else { i32::MAX })
}

/// `scontrol show licenses [NAME]`: slurm.conf's licenses with what running jobs use; a name nobody configured
/// shows nothing, as in Slurm.
pub fn show_licenses(name: Option<&str>, flags: Flags) -> u8 {
    let Some(client) = client("slurm_load_licenses error") else {
        return 1;
    };
    let licenses = match client.query(&Query::Licenses) {
        Ok(QueryReply::Licenses { licenses }) => licenses,
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_licenses error: {e}");
            return 1;
        }
    };
    let selected: Vec<_> = licenses
        .into_iter()
        .filter(|l| name.is_none_or(|n| l.name == n))
        .collect();
    print!(
        "{}",
        spur_core::format::scontrol_license::render(&selected, flags.one_liner)
    );
    0
}

/// `scontrol show topology [NAME]`: every switch, or the one named, or those whose nodes include NAME. A name that
/// matches nothing and a cluster without switches are errors Slurm reports with exit status 0.
pub fn show_topology(name: Option<&str>) -> u8 {
    let Some(client) = client("slurm_load_topo error") else {
        return 1;
    };
    let switches = match client.query(&Query::Topology) {
        Ok(QueryReply::Topology { switches }) => switches,
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_topo error: {e}");
            return 1;
        }
    };
    let tree = spur_core::policy::switch_tree::SwitchTree { switches };
    if tree.is_empty() && name.is_none() {
        eprintln!("scontrol: error: No topology information available");
        return 0;
    }
    let shown: Vec<&spur_core::policy::switch_tree::Switch> = match name {
        None => tree.switches.iter().collect(),
        Some(n) => {
            match tree.matching(n) {
                Some(found) => found,
                None => {
                    eprintln!("scontrol: error: Topology information contains no switch or node named {n}");
                    return 0;
                }
            }
        }
    };
    let text: String = shown.iter().map(|s| s.show_line()).collect();
    print!("{text}");
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_reads_like_atoi() {
        assert_eq!(leading_int("abc"), 0);
        assert_eq!(leading_int("12x"), 12);
        assert_eq!(leading_int(" -7"), -7);
        assert_eq!(leading_int("+3"), 3);
        assert_eq!(leading_int("99999999999"), i32::MAX);
    }

    #[test]
    fn update_fields_and_their_errors() {
        let mut update = JobUpdate::default();
        assert!(apply_update(&mut update, "timelimit", "5").is_ok());
        assert_eq!(update.time_limit_min, Some(Some(5)));
        assert!(apply_update(&mut update, "nice", "abc").is_ok());
        assert_eq!(update.nice, Some(0));
        assert!(matches!(
            apply_update(&mut update, "timelimit", "bogus"),
            Err(UpdateError::Invalid(t)) if t == "Invalid TimeLimit value"
        ));
        assert!(matches!(
            apply_update(&mut update, "priority", "abc"),
            Err(UpdateError::Invalid(t)) if t == "Invalid Priority value: abc"
        ));
        assert!(matches!(
            apply_update(&mut update, "nosuchfield", "1"),
            Err(UpdateError::Unsupported)
        ));
    }

    /// Slurm's scontrol refuses task counts that are not numbers below NO_VAL before sending anything; 0 is the
    /// controller's to refuse.
    #[test]
    fn num_tasks_is_read_as_slurms_parse_uint32() {
        let mut update = JobUpdate::default();
        for good in ["0", "3", "2147483648", "4294967293", " 7"] {
            assert!(
                apply_update(&mut update, "numtasks", good).is_ok(),
                "{good}"
            );
        }
        assert_eq!(update.num_tasks, Some(7));
        for bad in [
            "-1",
            "4294967294",
            "4294967295",
            "99999999999",
            "abc",
            "3x",
            "",
        ] {
            assert!(
                matches!(
                    apply_update(&mut update, "numtasks", bad),
                    Err(UpdateError::Invalid(t)) if t == format!("Invalid NumTasks value: {bad}")
                ),
                "{bad}"
            );
        }
    }
}
