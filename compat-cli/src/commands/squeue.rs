//! `squeue`: the job queue in Slurm's layouts (default, `-l`, `--start`, `-o`, `-O`, `--json`) and filters.

use spur_core::format::{json, squeue, squeue_needs, FormatContext};
use spur_core::grammar::options::query::{Parsed, SQUEUE};
use spur_core::model::job::JobRecord;
use spur_core::wire::api::{JobList, JobListing, JobSelector};

use crate::client::Client;
use crate::config;

pub fn run(args: &[String]) -> u8 {
    let parsed = match super::parse_or_finish(&SQUEUE, args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    if let Some(text) = SQUEUE.help_or_usage(&parsed) {
        print!("{text}");
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
    // Only the named jobs cross the wire when -j is given (an array id also brings its tasks).
    let listing = JobListing {
        job_ids: options
            .job_ids
            .as_ref()
            .map(|ids| ids.iter().map(|id| id.job_id).collect()),
        // `--json` dumps every job whatever the filters say, as Slurm's does.
        live_only: !parsed.has("json")
            && spur_core::format::squeue::selects_only_live(&options.states),
        ..JobListing::default()
    };
    if parsed.has("steps") || parsed.has("json") {
        return print_records(&parsed, &options, &client, listing);
    }
    // The table reads rows of just the fields it prints, sorts and filters by, one job at a time.
    let fields = squeue_needs::listed_fields(&options);
    let (reply, now, owners) = match super::load_job_rows(&client, listing, &fields) {
        Ok(listed) => listed,
        Err(code) => return code,
    };
    let ctx = config::format_context(now, owners.into_iter());
    let mut table = squeue::Table::new(&options, &ctx);
    let mut lookup = SingleId::new(&options);
    let read = reply.for_each(&fields, |job| {
        lookup.see(job);
        table.push(job);
    });
    if let Err(e) = read {
        eprintln!("slurm_load_jobs error: {e}");
        return 1;
    }
    if lookup.unknown() {
        eprintln!("slurm_load_jobs error: Invalid job id specified");
        return 1;
    }
    print!("{}", table.finish());
    super::release_at_exit(reply);
    0
}

/// A single job id that the controller does not know is an error, as in Slurm. (An unknown task of a known array
/// is not: Slurm prints nothing then.)
struct SingleId {
    wanted: Option<JobSelector>,
    seen: bool,
}

impl SingleId {
    fn new(options: &squeue::SqueueOptions) -> SingleId {
        let wanted = match options.job_ids.as_deref() {
            Some([id]) => Some(JobSelector {
                job_id: id.job_id,
                array_task: None,
            }),
            _ => None,
        };
        SingleId {
            wanted,
            seen: false,
        }
    }

    fn see(&mut self, job: &JobRecord) {
        if let Some(id) = &self.wanted {
            self.seen |= squeue::id_selects(id, job);
        }
    }

    fn unknown(&self) -> bool {
        self.wanted.is_some() && !self.seen
    }
}

/// `--steps` and `--json`: from whole records.
fn print_records(
    parsed: &Parsed,
    options: &squeue::SqueueOptions,
    client: &Client,
    listing: JobListing,
) -> u8 {
    let (jobs, now) = match client.job_list(listing) {
        Ok(JobList { jobs, now }) => (jobs, now),
        Err(e) => {
            eprintln!("slurm_load_jobs error: {e}");
            return 1;
        }
    };
    let mut lookup = SingleId::new(options);
    jobs.iter().for_each(|job| lookup.see(job));
    if lookup.unknown() {
        eprintln!("slurm_load_jobs error: Invalid job id specified");
        return 1;
    }
    let ctx = context(&jobs, now);
    if parsed.has("steps") {
        return print_steps(parsed, options, &jobs, &ctx);
    }
    let selected: Vec<JobRecord> = jobs
        .into_iter()
        .filter(|j| {
            options
                .job_ids
                .as_ref()
                .is_none_or(|ids| ids.iter().any(|id| squeue::id_selects(id, j)))
        })
        .collect();
    let ctx = with_node_gres(client, &selected, ctx);
    println!("{}", json::squeue_json(&selected, &ctx));
    0
}

/// `squeue -s`: running steps of the selected jobs, in the step layout (`-o` with step letters).
fn print_steps(
    parsed: &Parsed,
    options: &squeue::SqueueOptions,
    jobs: &[JobRecord],
    ctx: &FormatContext,
) -> u8 {
    use spur_core::format::steps;
    let layout = steps::step_layout(parsed.value("format").unwrap_or(steps::DEFAULT_STEP_FORMAT));
    // As in Slurm, an unknown letter is kept as literal text after the warning.
    for warning in &layout.warnings {
        eprintln!("squeue: error: {warning}");
    }
    let chosen: Vec<steps::StepView<'_>> = steps::running_steps(jobs)
        .into_iter()
        .filter(|s| {
            options
                .job_ids
                .as_ref()
                .is_none_or(|ids| ids.iter().any(|id| squeue::id_selects(id, s.job)))
                && options
                    .users
                    .as_ref()
                    .is_none_or(|uids| uids.contains(&s.job.spec.user_id))
                && options
                    .partitions
                    .as_ref()
                    .is_none_or(|parts| parts.contains(&s.job.partition))
        })
        .collect();
    if parsed.has("long") || parsed.has("iterate") {
        println!(
            "{}",
            spur_core::format::time::ctime(ctx.now, ctx.utc_offset_secs)
        );
    }
    print!(
        "{}",
        steps::render_squeue_steps(&chosen, &layout, options.no_header, ctx)
    );
    0
}

fn context(jobs: &[JobRecord], now: i64) -> FormatContext {
    config::format_context(now, jobs.iter().map(|j| (j.spec.user_id, j.spec.group_id)))
}

/// `12`, `12_3` (one array task), `12.0` (a step: its job); a task part that is not a number selects the whole
/// array.
fn job_selector(item: &str) -> Option<JobSelector> {
    let job = item.split('.').next().unwrap_or(item);
    let (id, task) = match job.split_once('_') {
        Some((id, task)) => (id, task.parse().ok()),
        None => (job, None),
    };
    Some(JobSelector {
        job_id: id.parse().ok()?,
        array_task: task,
    })
}

/// An environment variable squeue reads; set but empty counts as set, as with `getenv`.
fn env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The command-line value of `option`, else the environment variable that stands in for it.
fn option_or_env(parsed: &Parsed, option: &str, var: &str) -> Option<String> {
    parsed
        .value(option)
        .map(str::to_string)
        .or_else(|| env(var))
}

fn build_options(parsed: &Parsed) -> Result<squeue::SqueueOptions, String> {
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
    if let Some(period) = parsed.value("iterate") {
        // Slurm reads the period with atoi and refuses what is not positive.
        if spur_core::grammar::options::error::atoi(period) <= 0 {
            return Err(format!("squeue: error: --iterate={period}\n"));
        }
        options.print_date = true;
    }
    if let Some(list) = option_or_env(parsed, "partition", "SQUEUE_PARTITION") {
        options.partitions = Some(list.split(',').map(str::to_string).collect());
    }
    if let Some(list) = option_or_env(parsed, "account", "SQUEUE_ACCOUNT") {
        options.accounts = Some(list.split(',').map(str::to_string).collect());
    }
    if let Some(list) = parsed.value("reservation") {
        options.reservations = Some(list.split(',').map(str::to_string).collect());
    }
    if let Some(list) = parsed.value("nodelist") {
        // A hostlist (`n[1,3]`); what does not parse is taken as plain names.
        let nodes = spur_core::grammar::hostlist::expand(list)
            .unwrap_or_else(|_| list.split(',').map(str::to_string).collect());
        options.nodes = Some(nodes);
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
            ids.push(
                job_selector(item)
                    .ok_or_else(|| format!("squeue: error: Invalid job id: {item}"))?,
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

/// `gres_detail` names GRES by the type their node has them under: the nodes are asked for only when a listed
/// job holds GRES.
pub(crate) fn with_node_gres(
    client: &Client,
    jobs: &[JobRecord],
    ctx: FormatContext,
) -> FormatContext {
    let holds_gres = jobs
        .iter()
        .filter_map(|j| j.alloc.as_ref())
        .any(|a| !a.gres_indices.is_empty() || !a.node_units.is_empty());
    if !holds_gres {
        return ctx;
    }
    match client.query(&spur_core::wire::api::Query::Nodes) {
        Ok(spur_core::wire::api::QueryReply::Nodes { nodes, .. }) => ctx.with_node_gres(&nodes),
        _ => ctx,
    }
}
