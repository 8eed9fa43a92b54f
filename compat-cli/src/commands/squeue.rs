//! `squeue`: the job queue in Slurm's layouts (default, `-l`, `--start`, `-o`, `-O`, `--json`) and filters.

use spur_core::api::{Query, QueryReply};
use spur_core::format::{json, squeue, FormatContext};
use spur_core::job::JobRecord;

use crate::client::Client;
use crate::config;
use crate::getopt::{self, opt, Spec};

const SPECS: &[Spec] = &[
    opt("account", Some('A'), true),
    opt("all", Some('a'), false),
    opt("array", Some('r'), false),
    opt("array-unique", None, false),
    opt("clusters", Some('M'), true),
    opt("federation", None, false),
    opt("format", Some('o'), true),
    opt("Format", Some('O'), true),
    opt("help", None, false),
    opt("hide", None, false),
    opt("iterate", Some('i'), true),
    opt("jobs", Some('j'), true),
    opt("json", None, false),
    opt("licenses", Some('L'), true),
    opt("local", None, false),
    opt("long", Some('l'), false),
    opt("me", None, false),
    opt("name", Some('n'), true),
    opt("noconvert", None, false),
    opt("noheader", Some('h'), false),
    opt("nodelist", Some('w'), true),
    opt("partition", Some('p'), true),
    opt("priority", Some('P'), false),
    opt("qos", Some('q'), true),
    opt("reservation", Some('R'), true),
    opt("sibling", None, false),
    opt("sort", Some('S'), true),
    opt("start", None, false),
    opt("states", Some('t'), true),
    opt("steps", Some('s'), false),
    opt("usage", None, false),
    opt("user", Some('u'), true),
    opt("verbose", Some('v'), false),
    opt("version", Some('V'), false),
    opt("yaml", None, false),
];

pub fn run(args: &[String]) -> u8 {
    let parsed = match getopt::parse("squeue", SPECS, args) {
        Ok(p) => p,
        Err(text) => {
            eprintln!("{text}");
            return 1;
        }
    };
    if parsed.has("version") {
        println!("{}", crate::version_line());
        return 0;
    }
    if parsed.has("help") || parsed.has("usage") {
        println!("Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid] [--json] [-n name]");
        println!("              [-o format] [-O fields] [-p partitions] [--qos qos] [--reservation reservation]");
        println!("              [--sort fields] [--start] [--states states] [-u user_name] [--usage] [-ahlrsv]");
        return 0;
    }
    let options = match build_options(&parsed) {
        Ok(o) => o,
        Err(text) => {
            eprintln!("{text}");
            return 1;
        }
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("slurm_load_jobs error: {e}");
            return 1;
        }
    };
    let (jobs, now) = match client.query(&Query::Jobs) {
        Ok(QueryReply::Jobs { jobs, now }) => (jobs, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_jobs error: {e}");
            return 1;
        }
    };
    // A single job id that the controller does not know is an error, as in Slurm.
    if let Some(ids) = &options.job_ids {
        if ids.len() == 1
            && !jobs
                .iter()
                .any(|j| j.job_id == ids[0] || j.array_job_id == Some(ids[0]))
        {
            eprintln!("slurm_load_jobs error: Invalid job id specified");
            return 1;
        }
    }
    let ctx = context(&jobs, now);
    if parsed.has("json") {
        let selected: Vec<JobRecord> = jobs
            .into_iter()
            .filter(|j| {
                options
                    .job_ids
                    .as_ref()
                    .is_none_or(|ids| ids.contains(&j.job_id))
            })
            .collect();
        println!("{}", json::squeue_json(&selected, &ctx));
        return 0;
    }
    print!("{}", squeue::render(&jobs, &options, &ctx));
    0
}

fn context(jobs: &[JobRecord], now: i64) -> FormatContext {
    config::format_context(now, jobs.iter().map(|j| (j.spec.user_id, j.spec.group_id)))
}

/// An environment variable squeue reads; set but empty counts as set, as with `getenv`.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The command-line value of `option`, else the environment variable that stands in for it.
fn option_or_env(parsed: &getopt::Parsed, option: &str, var: &str) -> Option<String> {
    parsed
        .value(option)
        .map(str::to_string)
        .or_else(|| env(var))
}

fn build_options(parsed: &getopt::Parsed) -> Result<squeue::SqueueOptions, String> {
    let mut options = if parsed.has("start") {
        squeue::SqueueOptions::start()
    } else if parsed.has("long") {
        squeue::SqueueOptions::long()
    } else {
        squeue::SqueueOptions::default()
    };
    if let Some(format) = parsed.value("format") {
        options = options.with_format(format);
    }
    if let Some(format) = parsed.value("Format") {
        options = options.with_long_format(format);
    }
    // As in Slurm, a layout chosen on the command line (-o, -O, -l, --start, -s) beats SQUEUE_FORMAT, which beats
    // SQUEUE_FORMAT2.
    if !["format", "Format", "long", "start", "steps"]
        .iter()
        .any(|o| parsed.has(o))
    {
        if let Some(format) = env("SQUEUE_FORMAT") {
            options = options.with_format(&format);
        } else if let Some(format) = env("SQUEUE_FORMAT2") {
            options = options.with_long_format(&format);
        }
    }
    if let Some(states) = option_or_env(parsed, "states", "SQUEUE_STATES") {
        options = options
            .with_states(&states)
            .map_err(|e| format!("squeue: error: {e}"))?;
    }
    if let Some(sort) = option_or_env(parsed, "sort", "SQUEUE_SORT") {
        options = options
            .with_sort(&sort)
            .map_err(|e| format!("squeue: error: {e}"))?;
    }
    options.no_header = parsed.has("noheader");
    options.expand_arrays = parsed.has("array") || env("SQUEUE_ARRAY").is_some();
    if parsed.has("iterate") {
        options.print_date = true;
    }
    if let Some(list) = option_or_env(parsed, "partition", "SQUEUE_PARTITION") {
        options.partitions = Some(list.split(',').map(str::to_string).collect());
    }
    if let Some(list) = option_or_env(parsed, "name", "SQUEUE_NAMES") {
        options.names = Some(list.split(',').map(str::to_string).collect());
    }
    if let Some(list) = option_or_env(parsed, "user", "SQUEUE_USERS") {
        let mut uids = Vec::new();
        for user in list.split(',') {
            uids.push(
                config::uid_of(user)
                    .ok_or_else(|| format!("squeue: error: Invalid user: {user}"))?,
            );
        }
        options.users = Some(uids);
    }
    if parsed.has("me") {
        options.users = Some(vec![nix::unistd::getuid().as_raw()]);
    }
    if let Some(list) = parsed.value("jobs") {
        let mut ids = Vec::new();
        for item in list.split(',').filter(|i| !i.is_empty()) {
            let base = item.split(['_', '.']).next().unwrap_or(item);
            ids.push(
                base.parse()
                    .map_err(|_| format!("squeue: error: Invalid job id: {item}"))?,
            );
        }
        options.job_ids = Some(ids);
        // An explicit job list shows those jobs in every state unless -t narrows it.
        if option_or_env(parsed, "states", "SQUEUE_STATES").is_none() {
            options = options
                .with_states("all")
                .map_err(|e| format!("squeue: error: {e}"))?;
        }
    }
    Ok(options)
}
