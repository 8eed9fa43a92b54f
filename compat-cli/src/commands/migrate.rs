//! `spur migrate import-jobs FILE`: a real Slurm's job history (`sacct -P` or `--json` output over a window) added to Spur's
//! job history store through the controller (administrators only), in batches, idempotent. Spur's own command:
//! Slurm has none. See docs/accounting.md, "Migrating job history".

use std::io::Read;

use spur_core::format::sacct_import::{parse_parsable, EXPORT_FIELDS};
use spur_core::format::sacct_import_json::parse_json;
use spur_core::model::accounting::JobAccounting;
use spur_core::wire::api::{ControlRequest, SlurmErrno};

use crate::client::{Client, ClientError};
use crate::config;

const USAGE: &str = "usage: spur migrate import-jobs [--dry-run] FILE\n\
    FILE (or - for stdin) is the output of a real Slurm's sacct --json, or better\n  \
    sacct -a -D -P -S START -E END -o ";

/// Records per request: one Raft entry each, well under the controller's limit of 1000.
const BATCH: usize = 500;

pub fn run(args: &[String]) -> u8 {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let (dry_run, file) = match words.as_slice() {
        ["import-jobs", "--dry-run", file] | ["import-jobs", file, "--dry-run"] => (true, *file),
        ["import-jobs", file] if !file.starts_with('-') || *file == "-" => (false, *file),
        ["-h" | "--help" | "help", ..] => {
            println!("{USAGE}{EXPORT_FIELDS}");
            return 0;
        }
        _ => {
            eprintln!("{USAGE}{EXPORT_FIELDS}");
            return 1;
        }
    };
    let text = match read(file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("spur migrate: {file}: {e}");
            return 1;
        }
    };
    let parsed = if text.trim_start().starts_with('{') {
        parse_json(&text, &user_id, &group_id)
    } else {
        parse_parsable(&text, config::utc_offset_secs())
    };
    let imported = match parsed {
        Ok(imported) => imported,
        Err(e) => {
            eprintln!("spur migrate: {file}: {e}");
            return 1;
        }
    };
    for note in &imported.notes {
        eprintln!("spur migrate: {note}");
    }
    let read_count = imported.records.len();
    if dry_run {
        println!("{read_count} job records read, none sent (--dry-run)");
        return 0;
    }
    let client = match Client::from_environment() {
        Ok(client) => client,
        Err(e) => {
            eprintln!("spur migrate: {e}");
            return 1;
        }
    };
    let mut added = 0usize;
    for batch in imported.records.chunks(BATCH) {
        match send(&client, batch.to_vec()) {
            Ok(n) => added += n,
            Err(message) => {
                eprintln!("spur migrate: {message}");
                println!(
                    "{read_count} job records read, {added} added before the error; importing the file again \
                     skips them"
                );
                return 1;
            }
        }
    }
    println!(
        "{read_count} job records read, {added} added, {} already known",
        read_count - added
    );
    0
}

/// The dump names users and groups only: their ids on this machine.
fn user_id(name: &str) -> Option<u32> {
    nix::unistd::User::from_name(name)
        .ok()
        .flatten()
        .map(|u| u.uid.as_raw())
}

fn group_id(name: &str) -> Option<u32> {
    nix::unistd::Group::from_name(name)
        .ok()
        .flatten()
        .map(|g| g.gid.as_raw())
}

fn read(file: &str) -> std::io::Result<String> {
    if file == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text)?;
        Ok(text)
    } else {
        std::fs::read_to_string(file)
    }
}

/// One batch; the number of records the controller added.
fn send(client: &Client, records: Vec<JobAccounting>) -> Result<usize, String> {
    match client.control(&ControlRequest::ImportJobs { records }) {
        Ok(reply) => Ok(reply.edited_jobs.len()),
        Err(ClientError::Api(e)) if e.errno == SlurmErrno::AccessDenied => Err(
            "only root, SlurmUser and the administrators may import job history (Access/permission denied)"
                .to_string(),
        ),
        Err(ClientError::Api(e)) => Err(e.detail.unwrap_or_else(|| e.errno.text().to_string())),
        Err(e) => Err(e.to_string()),
    }
}
