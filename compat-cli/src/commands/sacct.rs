//! `sacct`: jobs and steps from the controller's accounting records (live jobs and those MinJobAge purged, see
//! docs/accounting.md), selected and printed as Slurm 22.05's sacct does with slurmdbd: its default window (since
//! midnight unless jobs are named), its user rule (others' jobs only for root, `-a`, `-u` or `-j`), its fields,
//! widths and layouts (`spur_core::format::sacct`), its messages and exit codes.

use spur_core::format::sacct::{self, Column, Context, Layout};
use spur_core::grammar::options::query::{Parsed, SACCT};
use spur_core::grammar::values::begin::{parse_time, LocalNow};
use spur_core::grammar::values::stepid::parse_step_list;
use spur_core::model::accounting::{Filter, JobAccounting, Row};
use spur_core::model::job::EpochSecs;
use spur_core::model::states::JobBaseState;
use spur_core::wire::api::{Query, QueryReply};

use super::sacct_select::{MemUnits, Narrowing};
use crate::client::Client;
use crate::config;

/// What slurm.conf's `AccountingStorageType=accounting_storage/none` makes sacct say.
const DISABLED: &str = "Slurm accounting storage is disabled";

pub fn run(args: &[String]) -> u8 {
    // Slurm's sacct prints getopt's complaint alone, without the pointer to --help the other commands add.
    let parsed = match SACCT.parse_env(args, &super::process_env()) {
        Ok(p) => p,
        Err(e) => {
            if let Some(first) = e.lines.first() {
                eprintln!("{first}");
            }
            return 1;
        }
    };
    if parsed.has("version") {
        println!("{}", crate::version_line());
        return 0;
    }
    if parsed.has("help") {
        print!("{}", SACCT.help_text());
        return 0;
    }
    if parsed.has("usage") {
        print!("{}", SACCT.usage_text());
        return 0;
    }
    if parsed.has("helpformat") || parsed.has("help-fields") {
        print!("{}", sacct::help_format());
        return 0;
    }
    // Options of Slurm's sacct that Spur parses (its help and abbreviations stay Slurm's) but cannot act on.
    for name in [
        "batch-script",
        "constraints",
        "env-vars",
        "file",
        "flags",
        "reason",
        "yaml",
    ] {
        if parsed.has(name) {
            eprintln!("sacct: error: --{name} is not supported by Spur");
            return 1;
        }
    }
    let request = match Request::from_options(&parsed) {
        Ok(r) => r,
        Err(message) => {
            eprintln!("{message}");
            return 1;
        }
    };
    if storage_disabled() {
        eprintln!("{DISABLED}");
        return 1;
    }
    if parsed.has("completion") {
        eprintln!(
            "sacct: error: the job completion log (-c) is not kept by Spur; use sacct without -c"
        );
        return 1;
    }
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sacct: error: {e}");
            return 1;
        }
    };
    if !request.narrowing.qos.is_empty() {
        let known = match client.query(&Query::AcctDb) {
            Ok(QueryReply::AcctDb { db }) => db.qos.into_iter().map(|q| q.name).collect::<Vec<_>>(),
            Ok(_) => Vec::new(),
            Err(e) => {
                eprintln!("sacct: error: Problem talking to the database: {e}");
                return 1;
            }
        };
        if let Err(message) = request.narrowing.check_qos(&known) {
            eprintln!("{message}");
            return 1;
        }
    }
    let query = Query::Accounting {
        job_ids: (!request.filter.jobs.is_empty())
            .then(|| request.filter.jobs.iter().map(|id| id.job).collect()),
        user_ids: request.filter.users.clone(),
        select: Some(request.filter.clone()),
    };
    match client.query(&query) {
        Ok(QueryReply::Accounting {
            records, cluster, ..
        }) => {
            print!("{}", request.render(&records, cluster));
            0
        }
        Ok(_) => {
            eprintln!("sacct: error: Unexpected message received");
            1
        }
        Err(e) => {
            eprintln!("sacct: error: Problem talking to the database: {e}");
            1
        }
    }
}

/// An explicit `accounting_storage/none` disables sacct, as in Slurm; unset or any other type uses Spur's own.
fn storage_disabled() -> bool {
    config::load_slurm_conf()
        .and_then(|conf| conf.get_str("AccountingStorageType"))
        .is_some_and(|t| t.eq_ignore_ascii_case("accounting_storage/none"))
}

/// A parsed command line: what to select and how to print it.
#[derive(Debug)]
struct Request {
    filter: Filter,
    columns: Vec<Column>,
    layout: Layout,
    no_header: bool,
    /// `--delimiter`; `None`: `|`.
    delimiter: Option<String>,
    narrowing: Narrowing,
    units: MemUnits,
    /// `-T`: start and end times cut to the window.
    truncate: bool,
    /// `--json`: the document instead of the table.
    json: bool,
    no_convert: bool,
}

impl Request {
    fn from_options(parsed: &Parsed) -> Result<Request, String> {
        // Slurm's sacct adds to its lists on every use of -o, -j, -s, -u/--uid, -A, -r and --name (so
        // `-j 1 -j 2` asks for both jobs, as submitit's polling relies on); only -S/-E and the flags replace.
        // Only the command line's -o here: SACCT_FORMAT (the row's environment variable) is the fallback below.
        let cli_format = parsed.cli_has("format") || parsed.cli_has("fields");
        let formats: Vec<&str> = parsed
            .values(&["format", "fields"])
            .filter(|_| cli_format)
            .collect();
        if !formats.is_empty() && parsed.has("long") {
            return Err(
                "sacct: fatal: Options -o(--format) and -l(--long) are mutually exclusive. \
                        Please remove one and retry."
                    .to_string(),
            );
        }
        // -o lists first, then -b's fields, then -l's: Slurm appends both to whatever -o gave; SACCT_FORMAT
        // only when none of the three is given.
        let mut lists: Vec<String> = formats.iter().map(|f| f.to_string()).collect();
        if parsed.has("brief") {
            lists.push(sacct::BRIEF_FORMAT.to_string());
        }
        if parsed.has("long") {
            lists.push(sacct::LONG_FORMAT.to_string());
        }
        if lists.is_empty() {
            lists.push(
                parsed
                    .value("format")
                    .filter(|f| !f.is_empty())
                    .unwrap_or(sacct::DEFAULT_FORMAT)
                    .to_string(),
            );
        }
        let format = lists.join(",");
        let columns = sacct::parse_format(&format).map_err(|e| format!("sacct: error: {e}"))?;
        let mut jobs = Vec::new();
        for list in parsed.values(&["jobs"]) {
            jobs.extend(parse_step_list(list).map_err(|e| format!("sacct: fatal: {e}"))?);
        }
        let mut states = Vec::new();
        for list in parsed.values(&["state"]) {
            states.extend(parse_states(list)?);
        }
        let narrowing = Narrowing::from_options(parsed)?;
        let units = MemUnits::from_options(parsed)?;
        let users = match named_users(parsed.values(&["user", "uid"]))? {
            NamedUsers::These(uids) => Some(uids),
            NamedUsers::All => None,
            // Naming jobs or nodes asks for every user's, as in Slurm.
            NamedUsers::Unnamed => default_users(
                nix::unistd::getuid().as_raw(),
                parsed.has("allusers"),
                !jobs.is_empty() || narrowing.nodes.is_some(),
            ),
        };
        let now = LocalNow {
            epoch_secs: config::now_epoch(),
            utc_offset_secs: config::utc_offset_secs(),
        };
        let start = time_option(parsed.value("starttime"), now)?;
        let end = time_option(parsed.value("endtime"), now)?;
        let window = window(start, end, !states.is_empty(), !jobs.is_empty(), now)?;
        let list = |option: &str| -> Vec<String> {
            parsed
                .values(&[option])
                .flat_map(|list| list.split(','))
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect()
        };
        Ok(Request {
            filter: Filter {
                jobs,
                users,
                states,
                names: list("name"),
                partitions: list("partition"),
                // Accounts are kept in lower case (slurmctld and sacctmgr lower them), and sacct lowers its list.
                accounts: list("accounts")
                    .into_iter()
                    .map(|a| a.to_ascii_lowercase())
                    .collect(),
                window,
                allocations: parsed.has("allocations"),
            },
            columns,
            // -p and -P set one variable: the last given wins.
            layout: match parsed
                .options
                .iter()
                .rev()
                .find(|(n, _)| matches!(*n, "parsable" | "parsable2"))
            {
                Some(("parsable2", _)) => Layout::Parsable2,
                Some(_) => Layout::Parsable,
                None => Layout::Columns,
            },
            no_header: parsed.has("noheader"),
            delimiter: parsed.value("delimiter").map(str::to_string),
            narrowing,
            units,
            truncate: parsed.has("truncate"),
            json: parsed.has("json"),
            no_convert: parsed.has("noconvert"),
        })
    }

    fn render(&self, records: &[JobAccounting], cluster: String) -> String {
        let mut records: Vec<JobAccounting> = records
            .iter()
            .filter(|job| self.narrowing.selects(job, &cluster))
            .cloned()
            .collect();
        if let (true, Some(window)) = (self.truncate, self.filter.window) {
            records
                .iter_mut()
                .for_each(|job| truncate_times(job, window));
        }
        let rows = self.filter.rows(&records);
        let mut ctx = Context {
            utc_offset_secs: config::utc_offset_secs(),
            cluster,
            delimiter: self.delimiter.clone(),
            no_convert: self.no_convert,
            ..Context::default()
        };
        let wants = |name: &str| self.json || self.columns.iter().any(|c| c.name == name);
        for row in &rows {
            let job = row.job;
            if wants("User") && !ctx.users.contains_key(&job.user_id) {
                if let Some(name) = config::user_name(job.user_id) {
                    ctx.users.insert(job.user_id, name);
                }
            }
            if let Some(uid) = job.cancelled_by.filter(|_| self.json) {
                if let Some(name) = config::user_name(uid) {
                    ctx.users.entry(uid).or_insert(name);
                }
            }
            if wants("Group") && !ctx.groups.contains_key(&job.group_id) {
                if let Some(name) = config::group_name(job.group_id) {
                    ctx.groups.insert(job.group_id, name);
                }
            }
        }
        if self.json {
            return spur_core::format::json_sacct::document(&rows, &ctx);
        }
        let mut out = String::new();
        if !self.no_header {
            out.push_str(&sacct::header(&self.columns, self.layout, &ctx));
        }
        for row in &rows {
            let line = sacct::line(row, &self.columns, self.layout, &ctx);
            out.push_str(&self.with_units(row, line, &ctx));
        }
        out
    }

    /// The line again with `--units`/`--noconvert` applied to its memory fields (`line` prints them as stored).
    fn with_units(&self, row: &Row<'_>, line: String, ctx: &Context) -> String {
        let memory = |c: &Column| matches!(c.name, "ReqMem" | "ReqTRES" | "AllocTRES");
        if self.units == MemUnits::default() || !self.columns.iter().any(memory) {
            return line;
        }
        let values: Vec<String> = self
            .columns
            .iter()
            .map(|c| {
                let one = sacct::line(row, std::slice::from_ref(c), Layout::Parsable2, ctx);
                self.units.apply(c.name, one.trim_end_matches('\n'))
            })
            .collect();
        sacct::join_line(&self.columns, &values, self.layout, ctx)
    }
}

/// `-T`: the job's and its steps' start and end cut to the window, and the job's elapsed time with them.
fn truncate_times(job: &mut JobAccounting, (from, to): (EpochSecs, EpochSecs)) {
    let clamp = |t: EpochSecs| t.clamp(from, to);
    job.start = job.start.map(clamp);
    job.end = job.end.map(clamp);
    if let (Some(start), Some(end)) = (job.start, job.end) {
        job.elapsed_secs = (end - start).max(0);
    }
    for step in &mut job.steps {
        step.start = clamp(step.start);
        step.end = step.end.map(clamp);
        if let Some(end) = step.end {
            step.elapsed_secs = (end - step.start).max(0);
        }
    }
}

/// `-s`: state names or their short codes (`CD`, `ca`), as sacct reads them.
fn parse_states(list: &str) -> Result<Vec<JobBaseState>, String> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|name| {
            JobBaseState::ALL
                .iter()
                .copied()
                .find(|s| {
                    s.long_name().eq_ignore_ascii_case(name)
                        || s.compact_name().eq_ignore_ascii_case(name)
                })
                .ok_or_else(|| format!("sacct: fatal: unrecognized job state value '{name}'"))
        })
        .collect()
}

/// `-u`: user names or numbers.
fn parse_users(list: &str) -> Result<Vec<u32>, String> {
    list.split(',')
        .filter(|u| !u.is_empty())
        .map(|user| {
            config::uid_of(user).ok_or_else(|| format!("sacct: error: Invalid user id: {user}"))
        })
        .collect()
}

/// What the `-u`/`--uid` options asked for, read in order as Slurm's sacct does: `-1` asks for every user and
/// drops the names before it, a name after it asks for that user again.
#[derive(Debug, PartialEq, Eq)]
enum NamedUsers {
    Unnamed,
    All,
    These(Vec<u32>),
}

fn named_users<'a>(lists: impl Iterator<Item = &'a str>) -> Result<NamedUsers, String> {
    let mut named = NamedUsers::Unnamed;
    for list in lists {
        if list == "-1" {
            named = NamedUsers::All;
            continue;
        }
        let mut uids = match named {
            NamedUsers::These(uids) => uids,
            NamedUsers::Unnamed | NamedUsers::All => Vec::new(),
        };
        uids.extend(parse_users(list)?);
        named = NamedUsers::These(uids);
    }
    Ok(named)
}

/// Without `-u`: root (and `-a`, and a `-j` list) sees every user's jobs, anyone else only their own.
fn default_users(uid: u32, all: bool, jobs_named: bool) -> Option<Vec<u32>> {
    if all || jobs_named || uid == 0 {
        None
    } else {
        Some(vec![uid])
    }
}

fn time_option(value: Option<&str>, now: LocalNow) -> Result<Option<EpochSecs>, String> {
    match value {
        None => Ok(None),
        Some(text) => match parse_time(text, now, true) {
            Ok(0) => Ok(None),
            Ok(t) => Ok(Some(t)),
            Err(e) => Err(e.to_string()),
        },
    }
}

/// sacct's window, as Slurm's `slurmdb_job_cond_def_start_end` sets it: with `-s`, from `-S` (else now, or the
/// epoch when jobs are named) to `-E` (else the start, or now); without `-s`, from `-S` (else 00:00 today, or the
/// epoch when jobs are named) to `-E` (else now). `None` when jobs are named with no times: every record of them.
/// A start after the end is refused with Slurm's message.
fn window(
    start: Option<EpochSecs>,
    end: Option<EpochSecs>,
    states: bool,
    jobs_named: bool,
    now: LocalNow,
) -> Result<Option<(EpochSecs, EpochSecs)>, String> {
    let mut from = start.unwrap_or(0);
    let mut to = end.unwrap_or(0);
    if states {
        if from == 0 && !jobs_named {
            from = now.epoch_secs;
        }
        if from != 0 && to == 0 {
            to = from;
        }
    } else if from == 0 && !jobs_named {
        let local = now.epoch_secs + i64::from(now.utc_offset_secs);
        from = local - local.rem_euclid(86_400) - i64::from(now.utc_offset_secs);
    }
    if to == 0 {
        to = now.epoch_secs;
    }
    if from > to {
        return Err(format!(
            "sacct: error: Start time ({}) requested is after end time ({}).",
            spur_core::format::time::iso(from, now.utc_offset_secs),
            spur_core::format::time::iso(to, now.utc_offset_secs)
        ));
    }
    if jobs_named && start.is_none() && end.is_none() && !states {
        return Ok(None);
    }
    Ok(Some((from, to)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: LocalNow = LocalNow {
        epoch_secs: 1_796_050_685,
        utc_offset_secs: 3600,
    };

    #[test]
    fn default_window_starts_at_local_midnight() {
        let (from, to) = window(None, None, false, false, NOW).unwrap().unwrap();
        assert_eq!(to, NOW.epoch_secs);
        assert_eq!((from + 3600).rem_euclid(86_400), 0);
        assert!(NOW.epoch_secs - from < 86_400);
    }

    #[test]
    fn named_jobs_have_no_window_unless_times_are_given() {
        assert_eq!(window(None, None, false, true, NOW), Ok(None));
        assert_eq!(
            window(Some(10), None, false, true, NOW),
            Ok(Some((10, NOW.epoch_secs)))
        );
        // -E alone: from the epoch when jobs are named, else from midnight, which may be after it.
        assert_eq!(window(None, Some(10), false, true, NOW), Ok(Some((0, 10))));
        assert!(window(None, Some(10), false, false, NOW)
            .unwrap_err()
            .starts_with("sacct: error: Start time ("));
    }

    #[test]
    fn states_look_at_one_moment_unless_an_end_is_given() {
        let now = NOW.epoch_secs;
        assert_eq!(window(None, None, true, false, NOW), Ok(Some((now, now))));
        assert_eq!(window(Some(10), None, true, false, NOW), Ok(Some((10, 10))));
        assert_eq!(
            window(Some(10), Some(20), true, false, NOW),
            Ok(Some((10, 20)))
        );
        // -s with named jobs looks from the epoch to now.
        assert_eq!(window(None, None, true, true, NOW), Ok(Some((0, now))));
    }

    #[test]
    fn users_see_their_own_jobs_unless_root_or_asked() {
        assert_eq!(default_users(1000, false, false), Some(vec![1000]));
        assert_eq!(default_users(1000, true, false), None);
        assert_eq!(default_users(1000, false, true), None);
        assert_eq!(default_users(0, false, false), None);
    }

    #[test]
    fn state_names_and_codes() {
        assert_eq!(
            parse_states("cd,CA,timeout").unwrap(),
            [
                JobBaseState::Completed,
                JobBaseState::Cancelled,
                JobBaseState::Timeout
            ]
        );
        assert_eq!(
            parse_states("bogus").unwrap_err(),
            "sacct: fatal: unrecognized job state value 'bogus'"
        );
    }

    fn parsed(options: &[(&'static str, &str)]) -> Parsed {
        Parsed {
            options: options
                .iter()
                .map(|(name, value)| (*name, Some(value.to_string())))
                .collect(),
            ..Parsed::default()
        }
    }

    #[test]
    fn repeated_list_options_add_up_as_in_slurm() {
        let request = Request::from_options(&parsed(&[
            ("jobs", "11"),
            ("jobs", "12,13"),
            ("state", "CD"),
            ("state", "F"),
            ("name", "a"),
            ("name", "b,c"),
            ("partition", "p1"),
            ("partition", "p2"),
            ("accounts", "x"),
            ("accounts", "Y"),
            ("format", "JobID"),
            ("format", "State"),
        ]))
        .unwrap();
        let jobs: Vec<u32> = request.filter.jobs.iter().map(|j| j.job).collect();
        assert_eq!(jobs, [11, 12, 13]);
        assert_eq!(request.filter.states.len(), 2);
        assert_eq!(request.filter.names, ["a", "b", "c"]);
        assert_eq!(request.filter.partitions, ["p1", "p2"]);
        assert_eq!(request.filter.accounts, ["x", "y"]);
        assert_eq!(request.columns.len(), 2);
    }

    #[test]
    fn format_and_long_together_are_refused() {
        let mut both = parsed(&[("format", "JobID")]);
        both.options.push(("long", None));
        let refusal = Request::from_options(&both).err().unwrap();
        assert_eq!(
            refusal,
            "sacct: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry."
        );
    }

    #[test]
    fn minus_one_names_every_user_until_a_name_follows() {
        assert_eq!(named_users([].into_iter()), Ok(NamedUsers::Unnamed));
        assert_eq!(
            named_users(["0"].into_iter()),
            Ok(NamedUsers::These(vec![0]))
        );
        assert_eq!(named_users(["0", "-1"].into_iter()), Ok(NamedUsers::All));
        assert_eq!(
            named_users(["-1", "0"].into_iter()),
            Ok(NamedUsers::These(vec![0]))
        );
        assert_eq!(
            named_users(["0", "root"].into_iter()),
            Ok(NamedUsers::These(vec![0, 0]))
        );
    }
}
