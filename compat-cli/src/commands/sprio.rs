//! `sprio`: the priority factors of pending jobs under `priority/multifactor` (layouts in
//! `spur_core::format::sprio`), with Slurm 22.05's options, filters, messages and exit codes.

use spur_core::format::sprio::{self, SprioOptions};
use spur_core::grammar::options::query::{Parsed, SPRIO};
use spur_core::policy::priority::JobFactors;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::Client;
use crate::config;

/// Which jobs to show; `None` shows all.
#[derive(Debug, Default)]
struct Filters {
    jobs: Option<Vec<u32>>,
    users: Option<Vec<u32>>,
    partitions: Option<Vec<String>>,
}

impl Filters {
    fn admits(&self, job: &JobFactors) -> bool {
        self.jobs
            .as_ref()
            .is_none_or(|ids| ids.contains(&job.job_id))
            && self
                .users
                .as_ref()
                .is_none_or(|uids| uids.contains(&job.user_id))
            && self
                .partitions
                .as_ref()
                .is_none_or(|parts| parts.contains(&job.partition))
    }
}

pub fn run(args: &[String]) -> u8 {
    let parsed = match super::parse_or_finish(&SPRIO, args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    if let Some(text) = SPRIO.help_or_usage(&parsed) {
        print!("{text}");
        return 0;
    }
    if let Some(extra) = extra_argument(&parsed) {
        eprintln!("sprio: error: Unrecognized option: {extra}");
        print!("{}", SPRIO.usage_text());
        return 1;
    }
    let (options, filters) = match build(&parsed) {
        Ok(built) => built,
        Err(text) => {
            eprintln!("{text}");
            return 1;
        }
    };
    let verbose = parsed
        .options
        .iter()
        .filter(|(n, _)| *n == "verbose")
        .count();
    if verbose > 0 {
        print!("{}", options_dump(&parsed, &options, &filters, verbose));
    }
    // sprio checks the plugin in its own slurm.conf before it asks the controller anything.
    let local_type = config::load_slurm_conf().map(|conf| conf.priority_type().to_string());
    if let Some(kind) = local_type
        .as_deref()
        .filter(|k| *k != "priority/multifactor")
    {
        return not_supported(kind);
    }
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => return controller_error(&e.to_string()),
    };
    let (weights, jobs, now) = match client.query(&Query::PriorityFactors) {
        Ok(QueryReply::PriorityFactors { weights, jobs, now }) => (weights, jobs, now),
        Ok(_) => return controller_error("Unexpected message received"),
        Err(e) => return controller_error(&e.to_string()),
    };
    let Some(weights) = weights else {
        return not_supported("priority/basic");
    };
    let format = options
        .format
        .clone()
        .unwrap_or_else(|| sprio::default_format(&options, &weights));
    let layout = sprio::parse_format(&format);
    for warning in &layout.warnings {
        eprintln!("sprio: error: {warning}");
    }
    let chosen: Vec<JobFactors> = jobs.into_iter().filter(|j| filters.admits(j)).collect();
    if filters.jobs.is_some() && chosen.is_empty() {
        println!("Unable to find jobs matching user/id(s) specified");
        return 0;
    }
    let ctx = config::format_context(now, chosen.iter().map(|j| (j.user_id, 0)));
    let rendered = sprio::render(&chosen, &weights, &layout, &options, &ctx);
    print!("{}", rendered.stdout);
    match rendered.error {
        Some(error) => {
            eprintln!("sprio: error: {error}");
            1
        }
        None => 0,
    }
}

fn not_supported(kind: &str) -> u8 {
    eprintln!(
        "You are not running a supported priority plugin\n({kind}).\nOnly 'priority/multifactor' is supported."
    );
    1
}

fn controller_error(text: &str) -> u8 {
    eprintln!("Couldn't get priority factors from controller: {text}");
    1
}

/// Options and filters from the command line (and `SPRIO_FORMAT`), or the error text sprio exits 1 with.
fn build(parsed: &Parsed) -> Result<(SprioOptions, Filters), String> {
    let long = parsed.has("long");
    // SPRIO_FORMAT (the environment's -o) counts only without -l.
    let format = parsed
        .value("format")
        .filter(|_| parsed.cli_has("format") || !long)
        .map(str::to_string);
    if long && format.is_some() {
        return Err(
            "sprio: fatal: Options -o(--format) and -l(--long) are mutually exclusive. \
                    Please remove one and retry."
                .to_string(),
        );
    }
    // `-j` takes its list attached, or else as the first argument after the options.
    let job_text = match parsed.value("jobs") {
        Some(list) => Some(list.to_string()),
        None if parsed.has("jobs") => parsed.positional.first().cloned(),
        None => None,
    };
    let mut filters = Filters::default();
    if let Some(text) = job_text {
        filters.jobs = Some(job_ids(&text)?);
    }
    let users = parsed.value("user").or_else(|| parsed.value("users"));
    if let Some(list) = users {
        let mut uids = Vec::new();
        for user in list.split(',').filter(|u| !u.is_empty()) {
            match config::uid_of(user) {
                Some(uid) => uids.push(uid),
                // Slurm reports the name and carries on without it; its message ends in an extra newline.
                None => eprintln!("sprio: error: Invalid user: {user}\n"),
            }
        }
        filters.users = Some(uids);
    }
    filters.partitions = parsed.value("partition").map(|list| {
        list.split(',')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    });
    let options = SprioOptions {
        format,
        long,
        normalized: parsed.has("norm"),
        weights: parsed.has("weights"),
        no_header: parsed.has("noheader"),
        users: users.is_some(),
        sort: parsed.value("sort").map(str::to_string),
    };
    Ok((options, filters))
}

/// What `-v` prints once the options are read, before anything is asked of the controller: the settings as
/// Slurm's sprio holds them (`(null)` for one not given; the job list as typed), and from `-vv` on the job ids and
/// user ids the lists resolved to.
fn options_dump(
    parsed: &Parsed,
    options: &SprioOptions,
    filters: &Filters,
    verbose: usize,
) -> String {
    let shown = |v: Option<&str>| v.unwrap_or("(null)").to_string();
    let jobs = match parsed.value("jobs") {
        Some(list) => Some(list),
        None if parsed.has("jobs") => parsed.positional.first().map(String::as_str),
        None => None,
    };
    let users = parsed.value("user").or_else(|| parsed.value("users"));
    let rule = "-----------------------------";
    let mut out = format!(
        "{rule}\nformat     = {}\njob_flag   = {}\njobs       = {}\npartition  = {}\nusers      = {}\n\
         verbose    = {verbose}\n",
        shown(options.format.as_deref()),
        u8::from(parsed.has("jobs")),
        shown(jobs),
        shown(parsed.value("partition")),
        shown(users),
    );
    if verbose > 1 {
        for (i, id) in filters.jobs.iter().flatten().enumerate() {
            out.push_str(&format!("job_list[{i}] = {id}\n"));
        }
        for (i, uid) in filters.users.iter().flatten().enumerate() {
            out.push_str(&format!("user_list[{i}] = {uid}\n"));
        }
    }
    out.push_str(rule);
    out.push_str("\n\n\n");
    out
}

/// An argument that is neither an option nor the job list of a bare `-j`.
fn extra_argument(parsed: &Parsed) -> Option<&String> {
    let job_list_follows = parsed.has("jobs") && parsed.value("jobs").is_none();
    parsed.positional.get(usize::from(job_list_follows))
}

/// `12,13`, also `12_3` (a task of array 12: its job id part) and `12+1` (a component of a heterogeneous job).
fn job_ids(text: &str) -> Result<Vec<u32>, String> {
    text.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (id, offset) = match item.split_once('+') {
                Some((id, offset)) => (id, offset.parse::<u32>().ok()),
                None => (item.split('_').next().unwrap_or(item), Some(0)),
            };
            match (id.parse::<u32>(), offset) {
                (Ok(id), Some(offset)) if id > 0 => Ok(id.saturating_add(offset)),
                _ => Err(format!("sprio: error: Invalid job id: {item}")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(list: &[&str]) -> Parsed {
        let args: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        SPRIO.parse(&args).unwrap()
    }

    #[test]
    fn job_lists_attached_or_following() {
        let (_, f) = build(&parse(&["-j", "5005,5006"])).unwrap();
        assert_eq!(f.jobs, Some(vec![5005, 5006]));
        let (_, f) = build(&parse(&["-j5007", "-l"])).unwrap();
        assert_eq!(f.jobs, Some(vec![5007]));
        let (_, f) = build(&parse(&["-j"])).unwrap();
        assert_eq!(f.jobs, None);
        assert_eq!(
            build(&parse(&["-j", "5005,abc"])).unwrap_err(),
            "sprio: error: Invalid job id: abc"
        );
        assert_eq!(
            extra_argument(&parse(&["extra"])).map(String::as_str),
            Some("extra")
        );
        assert_eq!(extra_argument(&parse(&["-j", "5"])), None);
        assert_eq!(
            extra_argument(&parse(&["-j", "5", "6"])).map(String::as_str),
            Some("6")
        );
    }

    #[test]
    fn long_and_format_exclude_each_other() {
        let err = build(&parse(&["-l", "-o", "%i"])).unwrap_err();
        assert!(err.starts_with("sprio: fatal: Options -o(--format) and -l(--long)"));
        let (o, _) = build(&parse(&["-n", "-w", "-h", "-u", "root"])).unwrap();
        assert!(o.normalized && o.weights && o.no_header && o.users);
    }

    #[test]
    fn filters_combine() {
        let row = |id: u32, uid: u32, part: &str| JobFactors {
            job_id: id,
            user_id: uid,
            partition: part.into(),
            age: 0.0,
            assoc: 0.0,
            fairshare: 0.0,
            job_size: 0.0,
            partition_factor: 0.0,
            qos: 0.0,
            site: 0,
            nice: 0,
            tres: Vec::new(),
            direct_priority: None,
        };
        let f = Filters {
            jobs: None,
            users: Some(vec![0]),
            partitions: Some(vec!["high".into()]),
        };
        assert!(f.admits(&row(1, 0, "high")));
        assert!(!f.admits(&row(2, 1, "high")));
        assert!(!f.admits(&row(3, 0, "debug")));
    }
}
