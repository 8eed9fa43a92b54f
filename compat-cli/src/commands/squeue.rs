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
    let (options, sort_error) = match build_options(&parsed) {
        Ok(o) => o,
        Err(text) => {
            eprintln!("{text}");
            return 1;
        }
    };
    // An unknown -o letter or -O name is reported and its column left empty, as Slurm does.
    for warning in &options.layout.warnings {
        eprintln!("squeue: error: {warning}");
    }
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
        // `--json` dumps every job whatever the filters say, as Slurm's does; named jobs come in every state, so
        // that a finished one is filtered out rather than reported unknown.
        live_only: !parsed.has("json")
            && options.job_ids.is_none()
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
    // Slurm sorts after printing the header: a bad sort list shows the header, then the error.
    if let Some(error) = sort_error {
        print!("{}", table.finish());
        eprintln!("{error}");
        return 1;
    }
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
    // -s overrides SQUEUE_FORMAT: only a command-line -o chooses the step layout.
    let format = parsed.value("format").filter(|_| parsed.cli_has("format"));
    let layout = steps::step_layout(format.unwrap_or(steps::DEFAULT_STEP_FORMAT));
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
    if (parsed.has("long") || parsed.has("iterate")) && !options.no_header {
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

/// The "Valid job states include" line Slurm's squeue adds after an invalid `-t` (or `SQUEUE_STATES`), with its
/// trailing empty line.
const VALID_STATES: &str = "squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,\
     CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,\
     RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED\n";

/// A comma-separated list option (`-A`, `-p`, ...), from the command line or its environment variable.
fn list(parsed: &Parsed, option: &str) -> Option<Vec<String>> {
    parsed
        .value(option)
        .map(|l| l.split(',').map(str::to_string).collect())
}

/// The options, and the error of a sort list Slurm rejects only once it sorts (after the header).
fn build_options(parsed: &Parsed) -> Result<(squeue::SqueueOptions, Option<String>), String> {
    let mut options = if parsed.has("start") {
        squeue::SqueueOptions::start()
    } else if parsed.has("long") {
        squeue::SqueueOptions::long()
    } else {
        squeue::SqueueOptions::default()
    };
    // As in Slurm, a layout chosen on the command line (-o, -O, -l, --start, -s) beats SQUEUE_FORMAT, which beats
    // SQUEUE_FORMAT2 (the rows' environment variables for -o and -O).
    // -o and -O together: Slurm stops at the second of them.
    let cli_formats: Vec<&str> = parsed.options[parsed.from_env.len()..]
        .iter()
        .map(|(n, _)| *n)
        .filter(|n| *n == "format" || *n == "Format")
        .collect();
    if let Some(second) = cli_formats.iter().find(|n| **n != cli_formats[0]) {
        return Err(if *second == "Format" {
            "squeue: error: -O (--Format) is incompatible with -o (--format)".to_string()
        } else {
            "squeue: error: -o (--format) is incompatible with -O (--Format)".to_string()
        });
    }
    let cli_layout = ["format", "Format", "long", "start", "steps"]
        .iter()
        .any(|o| parsed.cli_has(o));
    let env_format = !cli_layout && parsed.has("format");
    if let Some(format) = parsed
        .value("format")
        .filter(|_| parsed.cli_has("format") || env_format)
    {
        options = options.with_format(format);
    }
    if let Some(format) = parsed
        .value("Format")
        .filter(|_| parsed.cli_has("Format") || (!cli_layout && !env_format))
    {
        options = options.with_long_format(format);
    }
    if let Some(states) = parsed.value("states") {
        options = options
            .with_states(states)
            .map_err(|e| format!("squeue: error: {e}\n{VALID_STATES}"))?;
    }
    let mut sort_error = None;
    if let Some(sort) = parsed.value("sort") {
        match options.clone().with_sort(sort) {
            Ok(sorted) => options = sorted,
            Err(e) => sort_error = Some(format!("squeue: error: {e}")),
        }
    }
    options.no_header = parsed.has("noheader");
    options.expand_arrays = parsed.has("array");
    if let Some(period) = parsed.value("iterate") {
        // Slurm reads the period with atoi and refuses what is not positive.
        if spur_core::grammar::options::error::atoi(period) <= 0 {
            return Err(format!("squeue: error: --iterate={period}\n"));
        }
        options.print_date = true;
    }
    options.partitions = list(parsed, "partition");
    options.accounts = list(parsed, "account");
    options.qos = list(parsed, "qos");
    // Slurm reads SQUEUE_LICENSES only when no partition was given on the command line.
    if parsed.cli_has("licenses") || !parsed.cli_has("partition") {
        options.licenses = list(parsed, "licenses");
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
    options.names = list(parsed, "name");
    if let Some(list) = parsed.value("user") {
        // As in Slurm, an unknown user is reported and left out of the list (which then may select nothing).
        let mut uids = Vec::new();
        for user in list.split(',').filter(|u| !u.is_empty()) {
            match config::uid_of(user) {
                Some(uid) => uids.push(uid),
                None => eprintln!("squeue: error: Invalid user: {user}\n"),
            }
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
        // Without -t, named jobs that have finished are left out like any other (Slurm's default states).
        options.job_ids = Some(ids);
    }
    Ok((options, sort_error))
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
