//! `sstat`: what a running job's steps use now (CPU time, memory, page faults, I/O, pids), measured by the nodes'
//! agents when asked; the table is `spur_core::format::sstat`'s. Messages and exit codes are Slurm 22.05's.

use spur_core::format::sstat::{self, Column, Layout, Options};
use spur_core::grammar::options::query::SSTAT;
use spur_core::model::step_usage::{StepPick, StepRef};
use spur_core::wire::api::{ApiError, Query, QueryReply, SlurmErrno};

use crate::client::{Client, ClientError};

/// One `-j` item: a job and, when given, its step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Selection {
    job_id: u32,
    /// `None`: the lowest running step, or all with `-a`.
    step: Option<StepWanted>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StepWanted {
    Step(StepRef),
    /// `J.extern`: Spur keeps no process in the extern step (`PrologFlags=Contain` lists the step and makes its
    /// cgroup, nothing more), so it is never found running.
    Extern,
}

pub fn run(args: &[String]) -> u8 {
    // sstat prints getopt's first line only (no "Try ... --help" line), as sacct does.
    let parsed = match SSTAT.parse(args) {
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
        print!("{}", SSTAT.help_text());
        return 0;
    }
    if parsed.has("usage") {
        print!("{}", SSTAT.usage_text());
        return 0;
    }
    if parsed.has("helpformat") {
        print!("{}", sstat::help_format());
        return 0;
    }
    let format = if parsed.has("pidformat") {
        sstat::PID_FORMAT.to_string()
    } else {
        parsed
            .value("format")
            .or_else(|| parsed.value("fields"))
            .unwrap_or(sstat::DEFAULT_FORMAT)
            .to_string()
    };
    let columns = match sstat::parse_format(&format) {
        Ok(columns) => columns,
        Err(e) => {
            eprintln!("sstat: error: {e}");
            return 1;
        }
    };
    let Some(jobs) = parsed.value("jobs") else {
        eprintln!("sstat: error: You didn't give me any jobs to stat.");
        return 1;
    };
    let selections = match parse_jobs(jobs) {
        Ok(s) => s,
        Err(item) => {
            eprintln!("sstat: fatal: Bad job/step specified: {item}");
            return 1;
        }
    };
    let options = Options {
        layout: if parsed.has("parsable2") {
            Layout::Parsable2
        } else if parsed.has("parsable") {
            Layout::Parsable
        } else {
            Layout::Columns
        },
        no_header: parsed.has("noheader"),
        no_convert: parsed.has("noconvert"),
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sstat: error: {e}");
            return 1;
        }
    };
    print!("{}", sstat::header(&columns, &options));
    for selection in selections {
        show(
            &client,
            selection,
            parsed.has("allsteps"),
            &columns,
            &options,
        );
    }
    0
}

/// Prints one selection's rows, or sstat's error for it (which does not change the exit code).
fn show(client: &Client, selection: Selection, all: bool, columns: &[Column], options: &Options) {
    let job_id = selection.job_id;
    let pick = match selection.step {
        Some(StepWanted::Step(step)) => StepPick::Step(step),
        Some(StepWanted::Extern) => {
            eprintln!("sstat: error: StepId={job_id}.extern not found running.");
            return;
        }
        None if all => StepPick::AllRunning,
        None => StepPick::LowestRunning,
    };
    match client.query(&Query::StepUsage { job_id, pick }) {
        Ok(QueryReply::StepUsage { steps }) if steps.is_empty() => match pick {
            StepPick::Step(step) => eprintln!(
                "sstat: error: StepId={job_id}.{} not found running.",
                step.suffix()
            ),
            _ => eprintln!("sstat: error: No steps running for job {job_id}"),
        },
        Ok(QueryReply::StepUsage { steps }) => {
            for step in &steps {
                print!("{}", sstat::row(step, columns, options));
            }
        }
        Ok(_) => eprintln!("sstat: error: Unexpected message received"),
        Err(ClientError::Api(ApiError {
            errno: SlurmErrno::InvalidJobId,
            ..
        })) => eprintln!("sstat: error: couldn't get steps for job {job_id}"),
        Err(e) => eprintln!("sstat: error: couldn't get steps for job {job_id}: {e}"),
    }
}

/// `12`, `12.0`, `12.batch`, `12.extern`, comma-separated; the error is the item sstat names.
fn parse_jobs(text: &str) -> Result<Vec<Selection>, String> {
    text.split(',')
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (job, step) = match item.split_once('.') {
                Some((job, step)) => (job, Some(step)),
                None => (item, None),
            };
            let job_id = job
                .parse::<u32>()
                .ok()
                .filter(|&id| id > 0)
                .ok_or_else(|| item.to_string())?;
            let step = match step {
                None => None,
                Some("batch") => Some(StepWanted::Step(StepRef::Batch)),
                Some("extern") => Some(StepWanted::Extern),
                Some(n) => Some(StepWanted::Step(StepRef::Numbered(
                    n.parse::<u32>().map_err(|_| item.to_string())?,
                ))),
            };
            Ok(Selection { job_id, step })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_step_lists() {
        assert_eq!(
            parse_jobs("12,12.3,12.batch,13.extern").unwrap(),
            vec![
                Selection {
                    job_id: 12,
                    step: None
                },
                Selection {
                    job_id: 12,
                    step: Some(StepWanted::Step(StepRef::Numbered(3)))
                },
                Selection {
                    job_id: 12,
                    step: Some(StepWanted::Step(StepRef::Batch))
                },
                Selection {
                    job_id: 13,
                    step: Some(StepWanted::Extern)
                },
            ]
        );
        assert_eq!(parse_jobs("abc").unwrap_err(), "abc");
        assert_eq!(parse_jobs("12.x").unwrap_err(), "12.x");
    }
}
