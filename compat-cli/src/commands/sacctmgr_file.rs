//! `sacctmgr dump CLUSTER [file=F]` and `sacctmgr load [file=]F [cluster=C] [clean]`: the flat file sites move
//! their associations with (docs/accounting.md, "Migration"). The format and the load's plan are in
//! `spur_core::format::{sacctmgr_file, sacctmgr_load}`; this module reads and writes the file, asks and commits.

use std::io::Write;
use std::time::Instant;

use spur_core::format::print_fields::Layout;
use spur_core::format::sacctmgr_file::{dump_lines, key_is, DUMP_HEADER};
use spur_core::format::sacctmgr_load::{self as load_plan, Print};
use spur_core::model::assoc::{AcctDb, AcctRequest, AdminLevel};
use spur_core::wire::api::{ControlRequest, Query, QueryReply, SlurmErrno};

use crate::client::{Client, ClientError};

fn database(client: &Client) -> Option<AcctDb> {
    match client.query(&Query::AcctDb) {
        Ok(QueryReply::AcctDb { db }) => Some(db),
        Ok(_) => None,
        Err(e) => {
            eprintln!("sacctmgr: error: Problem talking to the database: {e}");
            None
        }
    }
}

/// sacctmgr's check before a dump or load: the caller must be in the accounting entities, and root, SlurmUser
/// or an administrator. `what` is `dump clusters` or `load files`.
fn privileged(db: &AcctDb, what: &str, verb: &str) -> bool {
    let uid = nix::unistd::getuid();
    let name = nix::unistd::User::from_uid(uid)
        .ok()
        .flatten()
        .map(|u| u.name)
        .unwrap_or_else(|| uid.as_raw().to_string());
    let Some(user) = db.users.get(&name) else {
        eprintln!(
            " Your uid ({}) is not in the accounting system, can't {verb}.",
            uid.as_raw()
        );
        return false;
    };
    if !uid.is_root() && user.admin != AdminLevel::Administrator {
        eprintln!(" Your user does not have sufficient privileges to {what}.");
        return false;
    }
    true
}

pub fn dump(words: &[String]) -> u8 {
    let mut code = 0;
    let mut cluster: Option<String> = None;
    let mut file: Option<String> = None;
    for word in words {
        let (key, value) = match word.split_once('=') {
            Some((k, v)) => (Some(k), v),
            None => (None, word.as_str()),
        };
        match key {
            None => set_once(&mut cluster, value, &mut code, |c| {
                format!(" Can only do one cluster at a time.  Already doing {c}")
            }),
            Some(k) if key_is(k, "Cluster", 1) => set_once(&mut cluster, value, &mut code, |c| {
                format!(" Can only do one cluster at a time.  Already doing {c}")
            }),
            Some(k) if key_is(k, "File", 1) => set_once(&mut file, value, &mut code, |f| {
                format!(" File name already set to {f}")
            }),
            Some(_) => {
                eprintln!(" Unknown option: {word}");
                code = 1;
            }
        }
    }
    let Some(cluster) = cluster else {
        eprintln!(" We need a cluster to dump.");
        return 1;
    };
    let Some(client) = super::sacctmgr::client() else {
        return 1;
    };
    let Some(db) = database(&client) else {
        return 1;
    };
    if cluster != db.cluster {
        eprintln!(" Cluster {cluster} doesn't exist.");
        return 1;
    }
    let file = file.unwrap_or_else(|| {
        let f = format!("./{cluster}.cfg");
        println!(" No filename given, using {f}.");
        f
    });
    if !privileged(&db, "dump clusters", "dump cluster") {
        return 1;
    }
    let lines = dump_lines(&db, &cluster);
    let mut text = String::from(DUMP_HEADER);
    for line in &lines {
        text.push_str(line);
        text.push('\n');
    }
    if let Err(e) = std::fs::write(&file, text) {
        // sacctmgr reports the file it cannot open and still exits 0 (its exit code is not set there).
        eprintln!("Can't open file {file}, {}", strerror(&e));
        return code;
    }
    for line in &lines {
        eprintln!("sacctmgr: {line}");
    }
    code
}

fn set_once(
    slot: &mut Option<String>,
    value: &str,
    code: &mut u8,
    already: impl Fn(&str) -> String,
) {
    match slot {
        Some(have) => {
            eprintln!("{}", already(have));
            *code = 1;
        }
        None => *slot = Some(value.to_string()),
    }
}

pub fn load(words: &[String], immediate: bool, layout: Layout) -> u8 {
    let args = load_plan::load_args(words);
    for e in &args.errors {
        eprintln!("{e}");
    }
    let Some(file) = args.file.clone() else {
        eprintln!(" No filename given, specify one with file=''");
        return 1;
    };
    let text = match std::fs::read(&file) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            let first = words.first().map_or("", String::as_str);
            eprintln!(" Unable to read \"{first}\": {}", strerror(&e));
            return 1;
        }
    };
    let Some(client) = super::sacctmgr::client() else {
        return 1;
    };
    let Some(db) = database(&client) else {
        return 1;
    };
    let started = Instant::now();
    let plan = load_plan::plan(&db, &text, &args, layout);
    let mut code = u8::from(plan.failed);
    let mut checked = false;
    for print in &plan.prints {
        // The caller's rights are checked at the cluster line, as sacctmgr does, before its first message.
        if !checked && matches!(print, Print::Out(t) if t.starts_with("For cluster ")) {
            checked = true;
            if !privileged(&db, "load files", "load file") {
                return 1;
            }
        }
        match print {
            Print::Out(t) => print!("{t}"),
            Print::Err(t) => eprint!("{t}"),
        }
    }
    let _ = std::io::stdout().flush();
    if plan.fatal {
        return 1;
    }
    if !plan.ok {
        eprintln!(" Problem with requests: Unspecified error");
        return 1;
    }
    if !plan.set {
        println!(" Nothing new added.");
        return code;
    }
    eprintln!(
        "sacctmgr: Done adding cluster in usec={}",
        started.elapsed().as_micros()
    );
    if !super::sacctmgr::confirm_or_immediate("Would you like to commit changes?", immediate) {
        println!(" Changes Discarded");
        return code;
    }
    let request = AcctRequest::Batch {
        requests: plan.requests,
    };
    match client.control(&ControlRequest::Accounting { request }) {
        Ok(reply) => match reply.acct {
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                for line in e.lines(&db.cluster) {
                    eprintln!("{line}");
                }
                code = 1;
            }
            None => {
                eprintln!(" Problem with requests: Unspecified error");
                code = 1;
            }
        },
        Err(ClientError::Api(api)) if api.errno == SlurmErrno::AccessDenied => {
            eprintln!(" Your user does not have sufficient privileges to load files.");
            code = 1;
        }
        Err(e) => {
            eprintln!(" Problem with requests: {e}");
            code = 1;
        }
    }
    code
}

fn strerror(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(errno) => nix::errno::Errno::from_raw(errno).desc().to_string(),
        None => e.to_string(),
    }
}
