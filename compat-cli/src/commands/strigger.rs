//! `strigger`: set, list and clear event triggers (the controller keeps and fires them, controller/src/state/
//! triggers.rs), with Slurm 22.05's options, checks, messages and exit codes. Options are read in command-line
//! order, as strigger's getopt loop acts on each (`-j 0` or `--flags=x` end it where they stand).

use spur_core::format::strigger as layout;
use spur_core::grammar::options::error::atoi;
use spur_core::grammar::options::query::STRIGGER;
use spur_core::model::trigger::{self as trig, TriggerRecord, TriggerSpec};
use spur_core::wire::api::{ControlRequest, Query, QueryReply};

use crate::client::Client;

/// What the command line asked for (strigger's `params`).
#[derive(Debug, Default)]
struct Params {
    set: bool,
    get: bool,
    clear: bool,
    /// `TRIGGER_TYPE_*` bits of the event options given.
    events: u32,
    burst_buffer: bool,
    front_end: bool,
    flags: u16,
    trigger_id: u32,
    job_id: u32,
    node: Option<String>,
    no_header: bool,
    offset: i32,
    program: Option<String>,
    quiet: bool,
    user_id: Option<u32>,
    verbose: usize,
}

/// The event options and their bits, in strigger's order.
const EVENTS: &[(&str, u32)] = &[
    ("primary_slurmctld_failure", trig::PRI_CTLD_FAIL),
    ("primary_slurmctld_resumed_operation", trig::PRI_CTLD_RES_OP),
    ("primary_slurmctld_resumed_control", trig::PRI_CTLD_RES_CTRL),
    ("backup_slurmctld_failure", trig::BU_CTLD_FAIL),
    ("backup_slurmctld_resumed_operation", trig::BU_CTLD_RES_OP),
    ("backup_slurmctld_assumed_control", trig::BU_CTLD_AS_CTRL),
    ("down", trig::DOWN),
    ("drained", trig::DRAINED),
    (
        "primary_slurmctld_acct_buffer_full",
        trig::PRI_CTLD_ACCT_FULL,
    ),
    ("fini", trig::FINI),
    ("fail", trig::FAIL),
    ("primary_slurmdbd_failure", trig::PRI_DBD_FAIL),
    ("primary_slurmdbd_resumed_operation", trig::PRI_DBD_RES_OP),
    ("primary_database_failure", trig::PRI_DB_FAIL),
    ("primary_database_resumed_operation", trig::PRI_DB_RES_OP),
    ("idle", trig::IDLE),
    ("reconfig", trig::RECONFIG),
    ("time", trig::TIME),
    ("up", trig::UP),
    ("burst_buffer", trig::BURST_BUFFER),
];

const CTLD_EVENTS: u32 = trig::PRI_CTLD_FAIL
    | trig::PRI_CTLD_RES_OP
    | trig::PRI_CTLD_RES_CTRL
    | trig::PRI_CTLD_ACCT_FULL
    | trig::BU_CTLD_FAIL
    | trig::BU_CTLD_RES_OP
    | trig::BU_CTLD_AS_CTRL;
const DBD_EVENTS: u32 = trig::PRI_DBD_FAIL | trig::PRI_DBD_RES_OP;
const DB_EVENTS: u32 = trig::PRI_DB_FAIL | trig::PRI_DB_RES_OP;

const NO_TRIGGER: &str =
    "You must specify a trigger (--down, --up, --reconfig, --time, --fini, --burst_buffer,
--primary_slurmctld_failure,
--primary_slurmctld_resumed_operation,
--primary_slurmctld_resumed_control,
--primary_slurmctld_acct_buffer_full,
--backup_slurmctld_failure,
--backup_slurmctld_resumed_operation,
--backup_slurmctld_as_ctrl,
--primary_slurmdbd_failure,
--primary_slurmdbd_resumed_operation,
--primary_database_failure, or 
--primary_database_resumed_operation)
";

fn error(text: &str) -> u8 {
    eprintln!("strigger: error: {text}");
    1
}

fn verbose(params: &Params, text: &str) {
    if params.verbose > 0 {
        eprintln!("strigger: {text}");
    }
}

/// strigger's `uid_from_string`: a user name, else a number.
fn uid_of(user: &str) -> Option<u32> {
    if let Ok(Some(u)) = nix::unistd::User::from_name(user) {
        return Some(u.uid.as_raw());
    }
    user.parse().ok()
}

pub fn run(args: &[String]) -> u8 {
    let parsed = match STRIGGER.parse_env(args, &super::process_env()) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut p = Params::default();
    for (name, value) in &parsed.options {
        let value = value.as_deref();
        if let Some((_, bit)) = EVENTS.iter().find(|(n, _)| n == name) {
            p.events |= bit;
        }
        match *name {
            "set" => p.set = true,
            "get" => p.get = true,
            "clear" => p.clear = true,
            "burst_buffer" => p.burst_buffer = true,
            "front_end" => p.front_end = true,
            "id" => p.trigger_id = atoi(value.unwrap_or_default()) as u32,
            "jobid" => {
                let v = value.unwrap_or_default();
                match atoi(v) {
                    n if n <= 0 => return error(&format!("Invalid jobid {v}")),
                    n => p.job_id = n.unsigned_abs(),
                }
            }
            // One cluster only: `-M` names it or the configured one.
            "cluster" => {}
            "node" => p.node = Some(value.unwrap_or("*").to_string()),
            "noheader" => p.no_header = true,
            "offset" => p.offset = atoi(value.unwrap_or_default()),
            "program" => p.program = value.map(str::to_string),
            "quiet" => p.quiet = true,
            "verbose" => p.verbose += 1,
            "version" => {
                println!("{}", crate::version_line());
                return 0;
            }
            "help" => {
                print!("{}", STRIGGER.help_text());
                return 0;
            }
            "usage" => {
                print!("{}", STRIGGER.usage_text());
                return 0;
            }
            "flags" => {
                let v = value.unwrap_or_default();
                if v.get(..4).is_some_and(|f| f.eq_ignore_ascii_case("perm")) {
                    p.flags = trig::FLAG_PERM;
                } else {
                    return error(&format!("Invalid flags {v}"));
                }
            }
            "user" => {
                let v = value.unwrap_or_default();
                match uid_of(v) {
                    Some(uid) => p.user_id = Some(uid),
                    None => return error(&format!("Invalid user {v}")),
                }
            }
            _ => {}
        }
    }
    // strigger's option dump under -v goes through its log before -v raises the log's level, so it never shows.
    if let Err(text) = validate(&p) {
        return error(&text);
    }
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            let call = match (p.set, p.get) {
                (true, _) => "slurm_set_trigger",
                (_, true) => "slurm_get_triggers",
                _ => "slurm_clear_trigger",
            };
            eprintln!("{call}: {e}");
            return 1;
        }
    };
    if p.set {
        set(&client, &p)
    } else if p.get {
        get(&client, &p)
    } else {
        clear(&client, &p)
    }
}

/// strigger's `_validate_options`, in its order.
fn validate(p: &Params) -> Result<(), String> {
    if usize::from(p.set) + usize::from(p.get) + usize::from(p.clear) != 1 {
        return Err(
            "You must use exactly one of the following options: --set, --get or --clear".into(),
        );
    }
    if p.clear && p.user_id.is_none() && p.trigger_id == 0 && p.job_id == 0 {
        return Err("You must specify a --id, --jobid, or --user to clear".into());
    }
    if p.set && p.events == 0 {
        return Err(NO_TRIGGER.into());
    }
    if p.set && p.program.is_none() {
        return Err("You must specify a --program value".into());
    }
    if p.events & (trig::FINI | trig::TIME) != 0 && p.job_id == 0 {
        return Err("You must specify a --jobid value".into());
    }
    if let Some(program) = &p.program {
        if !program.starts_with('/') {
            return Err("The --program value must start with \"/\"".into());
        }
        match std::fs::metadata(trig::program_path(program)) {
            Err(_) => return Err("Invalid --program value, file not found".into()),
            Ok(meta) if !meta.is_file() => {
                return Err("Invalid --program value, not regular file".into())
            }
            Ok(_) => {}
        }
    }
    if p.offset.abs() > trig::MAX_OFFSET {
        return Err("The --offset parameter must be between +/-32000".into());
    }
    Ok(())
}

/// The trigger `--set` asks for, built as strigger builds it: a job trigger with `--jobid`, else a front-end,
/// burst-buffer or node one; slurmctld, slurmdbd and database events take their own resource type and keep the
/// node resource's `*`.
fn spec(p: &Params) -> TriggerSpec {
    let (mut res_type, res_id) = if p.job_id != 0 {
        (trig::RES_JOB, Some(p.job_id.to_string()))
    } else if p.front_end {
        (trig::RES_FRONT_END, None)
    } else if p.burst_buffer {
        (trig::RES_OTHER, None)
    } else {
        (
            trig::RES_NODE,
            Some(p.node.clone().unwrap_or_else(|| "*".to_string())),
        )
    };
    let events = p.events;
    if events & CTLD_EVENTS != 0 {
        res_type = trig::RES_SLURMCTLD;
    }
    if events & DBD_EVENTS != 0 {
        res_type = trig::RES_SLURMDBD;
    }
    if events & DB_EVENTS != 0 {
        res_type = trig::RES_DATABASE;
    }
    TriggerSpec {
        res_type,
        res_id,
        trig_type: events,
        offset: p.offset,
        flags: p.flags,
        program: p.program.clone().unwrap_or_default(),
    }
}

fn set(client: &Client, p: &Params) -> u8 {
    let request = ControlRequest::SetTrigger {
        trigger: spec(p),
        group_id: 0,
        executable: false,
    };
    match client.control(&request) {
        Ok(_) => {
            verbose(p, "trigger set");
            0
        }
        Err(e) => {
            eprintln!("slurm_set_trigger: {e}");
            1
        }
    }
}

/// strigger's filters on the listed triggers (the controller lists them all).
fn shown(p: &Params, t: &TriggerRecord) -> bool {
    let node_like = |t: &TriggerRecord| t.res_type == trig::RES_NODE;
    let node_or_fe = |t: &TriggerRecord| node_like(t) || t.res_type == trig::RES_FRONT_END;
    let only = |bit: u32, res_ok: bool| p.events & bit == 0 || (res_ok && t.trig_type == bit);
    let ctld = t.res_type == trig::RES_SLURMCTLD;
    let dbd = t.res_type == trig::RES_SLURMDBD;
    let db = t.res_type == trig::RES_DATABASE;
    (!p.burst_buffer || t.trig_type == trig::BURST_BUFFER)
        && only(trig::FINI, true)
        && (p.job_id == 0
            || (t.res_type == trig::RES_JOB
                && t.res_id.as_deref().map(atoi) == Some(p.job_id as i32)))
        && only(trig::DOWN, node_or_fe(t))
        && only(trig::DRAINED, node_like(t))
        && only(trig::FAIL, node_like(t))
        && (p.node.is_none() || node_like(t))
        && only(trig::IDLE, node_like(t))
        && only(trig::UP, node_or_fe(t))
        && only(trig::TIME, t.res_type == trig::RES_JOB)
        && (p.trigger_id == 0 || t.trig_id == p.trigger_id)
        && p.user_id.is_none_or(|u| t.user_id == u)
        && only(trig::PRI_CTLD_FAIL, ctld)
        && only(trig::PRI_CTLD_RES_OP, ctld)
        && only(trig::PRI_CTLD_RES_CTRL, ctld)
        && only(trig::PRI_CTLD_ACCT_FULL, ctld)
        && only(trig::BU_CTLD_FAIL, ctld)
        && only(trig::BU_CTLD_RES_OP, ctld)
        && only(trig::BU_CTLD_AS_CTRL, ctld)
        && only(trig::PRI_DBD_FAIL, dbd)
        && only(trig::PRI_DBD_RES_OP, dbd)
        && only(trig::PRI_DB_FAIL, db)
        && only(trig::PRI_DB_RES_OP, db)
}

fn get(client: &Client, p: &Params) -> u8 {
    let triggers = match client.query(&Query::Triggers) {
        Ok(QueryReply::Triggers { triggers }) => triggers,
        Ok(_) => {
            eprintln!("slurm_get_triggers: Unexpected message received");
            return 1;
        }
        Err(e) => {
            eprintln!("slurm_get_triggers: {e}");
            return 1;
        }
    };
    verbose(p, &format!("Read {} trigger records", triggers.len()));
    let mut out = String::new();
    let mut names: std::collections::HashMap<u32, String> = std::collections::HashMap::new();
    for (n, t) in triggers.iter().filter(|t| shown(p, t)).enumerate() {
        if n == 0 && !p.no_header {
            out.push_str(layout::HEADER);
            out.push('\n');
        }
        let user = names.entry(t.user_id).or_insert_with(|| {
            nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(t.user_id))
                .ok()
                .flatten()
                .map_or_else(|| "unknown".to_string(), |u| u.name)
        });
        out.push_str(&layout::line(t, user));
        out.push('\n');
    }
    print!("{out}");
    0
}

fn clear(client: &Client, p: &Params) -> u8 {
    let request = ControlRequest::ClearTrigger {
        trig_id: p.trigger_id,
        job_id: p.job_id,
        user_id: p.user_id,
    };
    if let Err(e) = client.control(&request) {
        if p.quiet {
            return 0;
        }
        eprintln!("slurm_clear_trigger: {e}");
        return 1;
    }
    if p.job_id != 0 {
        verbose(p, &format!("triggers for job {} cleared", p.job_id));
    } else if let Some(u) = p.user_id {
        verbose(p, &format!("triggers for user {u} cleared"));
    } else {
        verbose(p, &format!("trigger {} cleared", p.trigger_id));
    }
    0
}
