//! Reading a real Slurm's job history for `spur migrate import-jobs` (docs/accounting.md, "Migrating job
//! history"): `sacct -a -D -P -o FIELDS -S .. -E ..` output (parsable2: a header line naming the fields, then one
//! `|`-separated row per job and step) turned into the [`JobAccounting`] records Spur's history keeps, so Spur's
//! sacct prints them as Slurm's did. Pure: the caller reads the file and gives the time zone offset its times are
//! in (sacct prints local times).
//!
//! What is not a finished job's record is left out with a note, never guessed: rows of jobs still pending or
//! running, earlier runs of a requeued job (`REQUEUED`, with `-D`; they count as the job's restarts), het job
//! components and steps Spur's record has no place for (`J.interactive`, het steps).

use std::collections::BTreeMap;

use crate::model::accounting::{JobAccounting, StepAccounting};
use crate::model::job::EpochSecs;
use crate::model::job_edit::JobEdits;
use crate::model::states::{JobBaseState, JobReason};

/// The fields an export must have: without them a record cannot be keyed or shown.
pub const REQUIRED_FIELDS: &[&str] = &[
    "JobIDRaw",
    "JobID",
    "JobName",
    "UID",
    "User",
    "GID",
    "Account",
    "Partition",
    "State",
    "Submit",
    "Start",
    "End",
    "ElapsedRaw",
    "AllocCPUS",
    "NNodes",
];

/// The field list docs/accounting.md gives for the export: every field Spur keeps. Fields past
/// [`REQUIRED_FIELDS`] are read when present; others (usage, energy, ...) are ignored.
pub const EXPORT_FIELDS: &str = "JobIDRaw,JobID,JobName,UID,User,GID,Group,Account,QOS,Partition,State,Reason,\
Submit,Eligible,Start,End,ElapsedRaw,TimelimitRaw,ExitCode,DerivedExitCode,Priority,NodeList,NNodes,AllocCPUS,\
ReqCPUS,ReqMem,ReqTRES,AllocTRES,NTasks,WorkDir,Comment,AdminComment,SystemComment,WCKey";

/// What an export held: the records, and what was left out and why.
#[derive(Debug, Default)]
pub struct Imported {
    pub records: Vec<JobAccounting>,
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ImportError {
    #[error("the file is empty: it needs sacct's header line (run sacct without -n/--noheader)")]
    Empty,
    #[error("sacct's header lacks {0}: export with -o {EXPORT_FIELDS}")]
    MissingField(String),
    #[error("line {line}: {reason}")]
    Row { line: usize, reason: String },
}

/// One row's fields by name.
struct Row<'a> {
    line: usize,
    cells: BTreeMap<&'a str, &'a str>,
}

impl<'a> Row<'a> {
    fn get(&self, name: &str) -> &'a str {
        self.cells.get(name).copied().unwrap_or_default()
    }

    fn bad(&self, reason: impl Into<String>) -> ImportError {
        ImportError::Row {
            line: self.line,
            reason: reason.into(),
        }
    }

    fn number<T: std::str::FromStr>(&self, name: &str) -> Result<T, ImportError> {
        let text = self.get(name);
        text.parse()
            .map_err(|_| self.bad(format!("{name} '{text}' is not a number")))
    }

    /// A number, or `default` when the field is absent or empty.
    fn number_or<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, ImportError> {
        if self.get(name).is_empty() {
            Ok(default)
        } else {
            self.number(name)
        }
    }

    fn time(&self, name: &str, utc_offset_secs: i32) -> Result<Option<EpochSecs>, ImportError> {
        let text = self.get(name);
        match text {
            "" | "Unknown" | "None" => Ok(None),
            _ => parse_local_time(text, utc_offset_secs)
                .map(Some)
                .ok_or_else(|| {
                    self.bad(format!("{name} '{text}' is not a time YYYY-MM-DDTHH:MM:SS"))
                }),
        }
    }

    fn text(&self, name: &str) -> String {
        self.get(name).to_string()
    }

    fn optional(&self, name: &str) -> Option<String> {
        Some(self.get(name))
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    }

    fn exit(&self, name: &str) -> Result<(u32, u32), ImportError> {
        let text = self.get(name);
        if text.is_empty() {
            return Ok((0, 0));
        }
        text.split_once(':')
            .and_then(|(c, s)| Some((c.parse().ok()?, s.parse().ok()?)))
            .ok_or_else(|| self.bad(format!("{name} '{text}' is not CODE:SIGNAL")))
    }
}

/// Reads `sacct -P` output.
pub fn parse_parsable(text: &str, utc_offset_secs: i32) -> Result<Imported, ImportError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.is_empty());
    let (_, header) = lines.next().ok_or(ImportError::Empty)?;
    let names: Vec<&str> = header.split('|').collect();
    if let Some(missing) = REQUIRED_FIELDS.iter().find(|f| !names.contains(f)) {
        return Err(ImportError::MissingField((*missing).to_string()));
    }
    let mut out = Imported::default();
    // Jobs by (raw id, submit), in file order; steps join the job row above them.
    let mut jobs: Vec<JobAccounting> = Vec::new();
    let mut requeued: BTreeMap<u32, u32> = BTreeMap::new();
    for (index, line) in lines {
        let cells: Vec<&str> = line.split('|').collect();
        let row = Row {
            line: index + 1,
            cells: names.iter().copied().zip(cells.iter().copied()).collect(),
        };
        if cells.len() != names.len() {
            return Err(row.bad(format!(
                "{} fields where the header names {} (a '|' in a job name cannot be read back)",
                cells.len(),
                names.len()
            )));
        }
        let raw = row.get("JobIDRaw");
        match raw.split_once('.') {
            None => {
                if let Some(job) = job_of(&row, utc_offset_secs, &mut out.notes, &mut requeued)? {
                    jobs.push(job);
                }
            }
            Some((job_raw, step)) => {
                let job_id: u32 = job_raw
                    .parse()
                    .map_err(|_| row.bad(format!("JobIDRaw '{raw}' is not JOB.STEP")))?;
                // The job row comes first; a step of a job left out is left out with it.
                let Some(job) = jobs.last_mut().filter(|j| j.job_id == job_id) else {
                    continue;
                };
                add_step(job, step, &row, utc_offset_secs, &mut out.notes)?;
            }
        }
    }
    for job in &mut jobs {
        job.restarts = requeued.get(&job.job_id).copied().unwrap_or(0);
    }
    out.records = jobs;
    Ok(out)
}

/// A job's own row, or `None` (with a note) when it is no finished job's record.
fn job_of(
    row: &Row<'_>,
    utc_offset_secs: i32,
    notes: &mut Vec<String>,
    requeued: &mut BTreeMap<u32, u32>,
) -> Result<Option<JobAccounting>, ImportError> {
    let shown = row.get("JobID");
    let raw = row.get("JobIDRaw");
    if shown.contains('+') {
        notes.push(format!(
            "job {shown}: heterogeneous job components are not imported"
        ));
        return Ok(None);
    }
    let job_id: u32 = row.number("JobIDRaw")?;
    let state_text = row.get("State");
    if state_text == "REQUEUED" {
        *requeued.entry(job_id).or_default() += 1;
        return Ok(None);
    }
    let (state, cancelled_by) = parse_state(state_text)
        .ok_or_else(|| row.bad(format!("State '{state_text}' is no job state")))?;
    if !state.is_finished() {
        notes.push(format!(
            "job {shown}: {} (not finished), not imported",
            state.long_name()
        ));
        return Ok(None);
    }
    let (array_job_id, array_task_id) = match shown.split_once('_') {
        Some((array, task)) => match (array.parse().ok(), task.parse().ok()) {
            (Some(a), Some(t)) => (Some(a), Some(t)),
            _ => return Err(row.bad(format!("JobID '{shown}' is not ARRAY_TASK"))),
        },
        None if shown == raw => (None, None),
        None => return Err(row.bad(format!("JobID '{shown}' does not match JobIDRaw '{raw}'"))),
    };
    let submit = row
        .time("Submit", utc_offset_secs)?
        .ok_or_else(|| row.bad("no Submit time"))?;
    let nodes: u32 = row.number("NNodes")?;
    let alloc_tres = row.text("AllocTRES");
    let req_tres = row.text("ReqTRES");
    let mem_total = tres_mem_mb(&alloc_tres).or_else(|| tres_mem_mb(&req_tres));
    let (time_limit_min, limit_from_partition) = match row.get("TimelimitRaw") {
        "" | "UNLIMITED" => (None, false),
        "Partition_Limit" => (None, true),
        _ => (Some(row.number("TimelimitRaw")?), false),
    };
    let (exit_code, exit_signal) = row.exit("ExitCode")?;
    let node_list = match row.get("NodeList") {
        "None assigned" => String::new(),
        list => list.to_string(),
    };
    let mut edits = JobEdits {
        comment: row.optional("Comment"),
        admin_comment: row.optional("AdminComment"),
        system_comment: row.optional("SystemComment"),
        wckey: row.optional("WCKey"),
        ..JobEdits::default()
    };
    if !row.get("DerivedExitCode").is_empty() {
        let (code, signal) = row.exit("DerivedExitCode")?;
        edits.derived_ec = Some(if signal != 0 {
            signal & 0x7f
        } else {
            (code & 0xff) << 8
        });
    }
    Ok(Some(JobAccounting {
        job_id,
        array_job_id,
        array_task_id,
        name: row.text("JobName"),
        user_id: row.number("UID")?,
        group_id: row.number("GID")?,
        user_name: row.text("User"),
        account: row.optional("Account"),
        qos: row.optional("QOS"),
        partition: row.text("Partition"),
        state,
        cancelled_by,
        reason: JobReason::NoReason,
        submit,
        eligible: row.time("Eligible", utc_offset_secs)?,
        start: row.time("Start", utc_offset_secs)?,
        end: row.time("End", utc_offset_secs)?,
        elapsed_secs: row.number("ElapsedRaw")?,
        time_limit_min,
        limit_from_partition,
        exit_code,
        exit_signal,
        priority: row.number_or("Priority", 0)?,
        node_list,
        nodes,
        cpus: row.number("AllocCPUS")?,
        mem_per_node_mb: mem_total.map_or(0, |m| m / u64::from(nodes.max(1))),
        req_tres,
        alloc_tres,
        work_dir: row.text("WorkDir"),
        batch: false,
        extern_step: false,
        restarts: 0,
        steps: Vec::new(),
        edits,
        batch_usage: None,
        mem_per_node: false,
        imported: true,
    }))
}

/// Adds a step row to its job: `batch` and `extern` only mark that the job had them (Spur makes their rows from
/// the job's); numbered steps are kept whole.
fn add_step(
    job: &mut JobAccounting,
    step: &str,
    row: &Row<'_>,
    utc_offset_secs: i32,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    match step {
        "batch" => job.batch = true,
        "extern" => job.extern_step = true,
        _ => {
            let Ok(step_id) = step.parse::<u32>() else {
                notes.push(format!(
                    "step {}: not imported (Spur keeps no such step)",
                    row.get("JobID")
                ));
                return Ok(());
            };
            let state_text = row.get("State");
            let (state, _) = parse_state(state_text)
                .ok_or_else(|| row.bad(format!("State '{state_text}' is no step state")))?;
            let (exit_code, exit_signal) = row.exit("ExitCode")?;
            let start = row
                .time("Start", utc_offset_secs)?
                .ok_or_else(|| row.bad("a step without a Start time"))?;
            job.steps.push(StepAccounting {
                step_id,
                name: row.text("JobName"),
                state,
                start,
                end: row.time("End", utc_offset_secs)?,
                exit_code,
                exit_signal,
                node_list: row.text("NodeList"),
                nodes: row.number("NNodes")?,
                tasks: row.number_or("NTasks", 0)?,
                cpus: row.number("AllocCPUS")?,
                elapsed_secs: row.number("ElapsedRaw")?,
                usage: None,
            });
        }
    }
    Ok(())
}

/// `COMPLETED`, `CANCELLED by 0`, ...: the base state and who cancelled.
fn parse_state(text: &str) -> Option<(JobBaseState, Option<u32>)> {
    let (name, by) = match text.split_once(" by ") {
        Some((name, uid)) => (name, Some(uid.parse().ok()?)),
        None => (text, None),
    };
    let state = JobBaseState::ALL
        .iter()
        .copied()
        .find(|s| s.long_name() == name)?;
    Some((state, by))
}

/// The `mem=` of a TRES string in MB (`mem=1G`, `mem=500M`, `mem=1.50G`).
fn tres_mem_mb(tres: &str) -> Option<u64> {
    let value = tres.split(',').find_map(|p| p.strip_prefix("mem="))?;
    let (number, unit) = match value.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => value.split_at(at),
        None => (value, "M"),
    };
    let scale = match unit {
        "K" => 1.0 / 1024.0,
        "M" => 1.0,
        "G" => 1024.0,
        "T" => 1024.0 * 1024.0,
        "P" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    let mb = number.parse::<f64>().ok()? * scale;
    (mb.is_finite() && mb >= 0.0).then(|| mb.round() as u64)
}

/// `YYYY-MM-DDTHH:MM:SS` in a zone `utc_offset_secs` east of UTC, as seconds since the epoch.
pub fn parse_local_time(text: &str, utc_offset_secs: i32) -> Option<EpochSecs> {
    let (date, time) = text.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (year, month, day) = (d.next()??, d.next()??, d.next()??);
    let mut t = time.splitn(3, ':').map(|p| p.parse::<i64>().ok());
    let (hour, minute, second) = (t.next()??, t.next()??, t.next()??);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || !(0..24).contains(&hour)
        || !(0..60).contains(&minute)
        || !(0..=60).contains(&second)
    {
        return None;
    }
    let days = days_from_civil(year, month, day);
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second - i64::from(utc_offset_secs))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
#[path = "sacct_import_tests.rs"]
mod tests;
