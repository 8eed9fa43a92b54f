//! `seff JOBID`: Slurm's contributed efficiency report (contribs/seff, version 2.1) from the job's accounting
//! record: its options (`-h`, `-v`, `-d`; `-f` is read and unused, as there), messages and exit codes
//! (1 for help and version, 2 when the job is unknown). The report itself is `spur_core::format::seff`.

use spur_core::format::seff::{report, Names};
use spur_core::wire::api::{Query, QueryReply};

use crate::client::Client;
use crate::config;

const USAGE: &str =
    "Usage: seff [Options] <Jobid>\n       Options:\n       -h    Help menu\n       \
                     -v    Version\n       -d    Debug mode: display raw Slurm data\n";

#[derive(Debug, Default, PartialEq)]
struct Options {
    help: bool,
    version: bool,
    debug: bool,
    operands: Vec<String>,
}

/// Perl's `getopts('hvdf:')`: bundled flags, `-f` with its value attached or next, option parsing ends at the
/// first operand or `--`; an unknown letter is reported and skipped.
fn parse(args: &[String]) -> Options {
    let mut options = Options::default();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
            break;
        };
        for (at, letter) in letters.char_indices() {
            match letter {
                'h' => options.help = true,
                'v' => options.version = true,
                'd' => options.debug = true,
                'f' => {
                    // Its value is the rest of this word, else the next one.
                    if at + 1 == letters.len() {
                        i += 1;
                    }
                    break;
                }
                other => eprintln!("Unknown option: {other}"),
            }
        }
        i += 1;
    }
    options.operands = args.iter().skip(i).cloned().collect();
    options
}

pub fn run(args: &[String]) -> u8 {
    let options = parse(args);
    if options.version {
        println!("seff Version 2.1");
        return 1;
    }
    let [job_arg] = options.operands.as_slice() else {
        print!("{USAGE}");
        return 1;
    };
    if options.help {
        print!("{USAGE}");
        return 1;
    }
    let Some((job_id, task)) = job_and_task(job_arg) else {
        eprintln!("Job not found.");
        return 2;
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("seff: error: {e}");
            return 1;
        }
    };
    let query = Query::Accounting {
        job_ids: Some(vec![job_id]),
        user_ids: None,
        select: None,
    };
    let (records, cluster) = match client.query(&query) {
        Ok(QueryReply::Accounting {
            records, cluster, ..
        }) => (records, cluster),
        Ok(_) => {
            eprintln!("seff: error: Unexpected message received");
            return 1;
        }
        Err(e) => {
            eprintln!("seff: error: {e}");
            return 1;
        }
    };
    let found = records.iter().find(|r| match task {
        Some(task) => r.array_job_id == Some(job_id) && r.array_task_id == Some(task),
        None => r.job_id == job_id || r.array_job_id == Some(job_id),
    });
    let Some(job) = found else {
        eprintln!("Job not found.");
        return 2;
    };
    let names = Names {
        user: config::user_name(job.user_id)
            .or_else(|| (!job.user_name.is_empty()).then(|| job.user_name.clone()))
            .unwrap_or_else(|| job.user_id.to_string()),
        group: config::group_name(job.group_id).unwrap_or_default(),
        cluster,
    };
    print!("{}", report(job, &names, options.debug));
    0
}

/// `12`, `12_3` (an array task), `12.batch` (the job of a step).
fn job_and_task(text: &str) -> Option<(u32, Option<u32>)> {
    let job = text.split('.').next()?;
    match job.split_once('_') {
        Some((array, task)) => Some((array.parse().ok()?, Some(task.parse().ok()?))),
        None => Some((job.parse().ok()?, None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn getopts_as_perl_reads_them() {
        let o = parse(&args(&["-d", "12"]));
        assert!(o.debug && !o.help && o.operands == ["12"]);
        let o = parse(&args(&["-dv", "-f", "x", "12"]));
        assert!(o.debug && o.version && o.operands == ["12"]);
        let o = parse(&args(&["-fx", "12", "-h"]));
        assert!(!o.help && o.operands == ["12", "-h"]);
        let o = parse(&args(&["--", "-d"]));
        assert!(!o.debug && o.operands == ["-d"]);
        assert_eq!(parse(&args(&[])).operands.len(), 0);
    }

    #[test]
    fn job_arguments() {
        assert_eq!(job_and_task("12"), Some((12, None)));
        assert_eq!(job_and_task("12_3"), Some((12, Some(3))));
        assert_eq!(job_and_task("12.batch"), Some((12, None)));
        assert_eq!(job_and_task("x"), None);
    }
}
