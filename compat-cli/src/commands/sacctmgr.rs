//! `sacctmgr`: QOS, accounts, users and associations kept in the controller's replicated state (no slurmdbd; see
//! docs/accounting.md). `show|list` prints sacctmgr 22.05's tables; `add`, `modify` and `delete` print its
//! messages, and without `-i` ask before committing, as sacctmgr does.

use std::io::{BufRead, Write};

use spur_core::format::print_fields::Layout;
use spur_core::format::sacctmgr::{self as table, ControlAddress, Entity, Style};
use spur_core::grammar::options::query::SACCTMGR;
use spur_core::model::assoc::{AcctChange, AcctDb, AcctError, AcctRequest, AssocSet, QosSet};
use spur_core::wire::api::{ApiError, ControlRequest, Query, QueryReply, SlurmErrno};

use super::sacctmgr_parse::{self as parse, Verb, Words};
use crate::client::{Client, ClientError};

#[derive(Debug, Default)]
struct Options {
    immediate: bool,
    style: Style,
    quiet: bool,
}

pub fn run(args: &[String]) -> u8 {
    // The options are whole words anywhere on the line (any other word, `-x` included, belongs to the command);
    // the first of `--help`/`--version` ends the scan.
    let parsed = match SACCTMGR.parse(args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut options = Options::default();
    for (name, _) in &parsed.options {
        match *name {
            "immediate" => options.immediate = true,
            "noheader" => options.style.noheader = true,
            "parsable" => options.style.layout = Layout::Parsable,
            "parsable2" => options.style.layout = Layout::Parsable2,
            "quiet" => options.quiet = true,
            "version" => {
                println!("{}", crate::version_line());
                return 0;
            }
            "help" | "usage" => {
                print!("{}", SACCTMGR.help_text());
                return 0;
            }
            // Parsed as Slurm parses it (so --help can list it); Spur's listings do not add associations.
            "associations" => {
                eprintln!("sacctmgr: error: --associations is not supported by Spur");
                return 1;
            }
            _ => {}
        }
    }
    let words = parsed.positional;
    let Some(first) = words.first() else {
        eprintln!(
            "sacctmgr: Spur's sacctmgr takes one command on its command line (no interactive mode)"
        );
        return 1;
    };
    // `dump` and `load` read and write sacctmgr's flat file (sacctmgr_file.rs).
    match first.to_ascii_lowercase().as_str() {
        "dump" => return super::sacctmgr_file::dump(&words[1..]),
        "load" => {
            return super::sacctmgr_file::load(&words[1..], options.immediate, options.style.layout)
        }
        _ => {}
    }
    let Some(verb) = parse::verb(first) else {
        eprintln!("invalid keyword: {first}");
        return 1;
    };
    // `modify job` edits jobs' accounting records, with words of its own (sacctmgr_job.rs).
    let is_job = |w: &String| {
        let w = w.to_ascii_lowercase();
        !w.is_empty() && "job".starts_with(&w) && !w.starts_with('a') && !w.starts_with('c')
    };
    if verb == Verb::Modify && words.get(1).is_some_and(is_job) {
        return super::sacctmgr_job::modify(&words[2..], options.immediate);
    }
    let entity = words.get(1).and_then(|w| parse::entity(w));
    let Some(entity) = entity else {
        no_entity(verb);
        return 1;
    };
    let mut rest = parse::split(&words[2..], verb);
    parse::lower_case_names(entity, &mut rest);
    match verb {
        Verb::Show => show(entity, &rest, options.style),
        _ => change(verb, entity, &rest, &options),
    }
}

fn no_entity(verb: Verb) {
    match verb {
        Verb::Show => {
            eprintln!("No valid entity in list command");
            eprintln!("Input line must include \"Account\", \"Association\", \"Cluster\", \"Configuration\",");
            eprintln!(
                "\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", \"Reservation\","
            );
            eprintln!(
                "\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", or \"WCKey\""
            );
        }
        Verb::Add => {
            eprintln!("No valid entity in add command");
            eprintln!("Input line must include \"Account\", \"Cluster\", \"Coordinator\", \"Federation\", \"QOS\", \"Resource\", or \"User\"");
        }
        Verb::Modify => {
            eprintln!("No valid entity in modify command");
            eprintln!("Input line must include \"Account\", \"Association\", \"Cluster\", \"Federation\", \"Job\", \"QOS\", \"Resource\", or \"User\"");
        }
        Verb::Delete => {
            eprintln!("No valid entity in delete command");
            eprintln!("Input line must include \"Account\", \"Association\", \"Cluster\", \"Configuration\", \"Coordinator\", \"Federation\", \"QOS\", \"Resource\", \"User\", or \"WCKey\"");
        }
    }
}

pub(super) fn client() -> Option<Client> {
    match Client::from_environment() {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("sacctmgr: error: {e}");
            None
        }
    }
}

fn load(client: &Client) -> Option<AcctDb> {
    match client.query(&Query::AcctDb) {
        Ok(QueryReply::AcctDb { db }) => Some(db),
        Ok(_) => None,
        Err(e) => {
            eprintln!("sacctmgr: error: Problem talking to the database: {e}");
            None
        }
    }
}

fn show(entity: Entity, words: &Words, style: Style) -> u8 {
    let chosen = if words.format.is_empty() {
        table::default_columns(entity, words.withassoc)
    } else {
        match table::chosen_columns(entity, words.withassoc, &words.format) {
            Ok(c) => c,
            Err(table::UnknownField(name)) => {
                eprintln!("Unknown field '{name}'");
                return 1;
            }
        }
    };
    let Some(client) = client() else {
        return 1;
    };
    let Some(db) = load(&client) else {
        return 1;
    };
    let cond = |keys: &[&str]| -> Vec<String> {
        words
            .conditions
            .iter()
            .filter(|p| keys.contains(&p.key.as_str()))
            .flat_map(|p| p.value.split(',').map(str::to_string).collect::<Vec<_>>())
            .collect()
    };
    let mut names = words.names.clone();
    let text = match entity {
        Entity::Qos => {
            names.extend(cond(&["name", "names"]));
            table::qos_table(&db, &names, &chosen, style)
        }
        Entity::Account => {
            names.extend(cond(&["name", "names", "account", "accounts"]));
            table::account_table(&db, &names, &chosen, style)
        }
        Entity::User => {
            names.extend(cond(&["name", "names", "user", "users"]));
            table::user_table(&db, &names, &chosen, style)
        }
        Entity::Association => {
            let filter = table::AssocFilter {
                accounts: cond(&["account", "accounts"]),
                users: cond(&["user", "users"]),
                partitions: cond(&["partition", "partitions"]),
            };
            table::assoc_table(&db, &filter, &chosen, style)
        }
        Entity::Cluster => table::cluster_table(&db, &control_address(), &chosen, style),
    };
    print!("{text}");
    0
}

/// The first controller's address and port, as slurmdbd records where slurmctld registered from.
fn control_address() -> ControlAddress {
    let conf = crate::config::load_slurm_conf();
    let host = conf
        .and_then(|c| c.controllers.first())
        .map(|c| c.addr.clone())
        .unwrap_or_default();
    let port = conf.map_or(6817, |c| c.slurmctld_port().first);
    ControlAddress { host, port }
}

fn change(verb: Verb, entity: Entity, words: &Words, options: &Options) -> u8 {
    let mut warnings = parse::Warnings::default();
    let request = match parse::request(verb, entity, words, &mut warnings) {
        Ok(r) => r,
        Err(refused) => {
            for line in refused.lines {
                if refused.stderr {
                    eprintln!("{line}");
                } else {
                    println!("{line}");
                }
            }
            return 1;
        }
    };
    for w in &warnings.0 {
        eprintln!("sacctmgr: error: {w}");
    }
    let Some(client) = client() else {
        return 1;
    };
    let Some(db) = load(&client) else {
        return 1;
    };
    // What the change will do, from the current entities (the same pure rules the controller applies), so
    // sacctmgr's messages and question come before anything is committed.
    let predicted = db.clone().apply(&request);
    let change = match predicted {
        Ok(c) => c,
        Err(e) => return print_error(&e, &db.cluster),
    };
    if !options.immediate {
        print_change(&request, &change, &db);
        if !confirm() {
            println!(" Changes Discarded");
            return 0;
        }
        return match commit(&client, &request) {
            Ok(Ok(_)) => 0,
            Ok(Err(e)) => print_error(&e, &db.cluster),
            Err(e) => print_commit_failure(&request, &e),
        };
    }
    match commit(&client, &request) {
        Ok(Ok(done)) => {
            print_change(&request, &done, &db);
            0
        }
        Ok(Err(e)) => print_error(&e, &db.cluster),
        Err(e) => {
            let code = print_commit_failure(&request, &e);
            if matches!(&e, ClientError::Api(api) if api.errno == SlurmErrno::AccessDenied) {
                print_change(&request, &change, &db);
            }
            code
        }
    }
}

fn commit(
    client: &Client,
    request: &AcctRequest,
) -> Result<spur_core::model::assoc::AcctResult, ClientError> {
    let reply = client.control(&ControlRequest::Accounting {
        request: request.clone(),
    })?;
    reply.acct.ok_or_else(|| {
        ClientError::Api(ApiError::with_detail(
            SlurmErrno::Error,
            "the controller does not keep accounting entities",
        ))
    })
}

fn print_error(e: &AcctError, cluster: &str) -> u8 {
    for line in e.lines(cluster) {
        if e.is_logged() {
            eprintln!("sacctmgr: error: {line}");
        } else if e.on_stderr() {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    // sacctmgr answers a refused default QOS with its explanation and status 0.
    u8::from(!matches!(e, AcctError::DefaultQosNotAllowed { .. }))
}

fn print_commit_failure(request: &AcctRequest, e: &ClientError) -> u8 {
    let what = match request {
        AcctRequest::AddQos { .. } => "adding QOS",
        AcctRequest::AddAccounts { .. } => "adding accounts",
        AcctRequest::AddUsers { .. } => "adding users",
        AcctRequest::ModifyQos { .. }
        | AcctRequest::ModifyAccounts { .. }
        | AcctRequest::ModifyUsers { .. } => "modifying",
        _ => "deleting",
    };
    let text = match e {
        ClientError::Api(api) => api.errno.text().to_string(),
        other => other.to_string(),
    };
    println!(" Problem {what}: {text}");
    1
}

/// sacctmgr's `commit_check`: yes at once with `-i`, else `question` asked as [`confirm`] asks.
pub(super) fn confirm_or_immediate(question: &str, immediate: bool) -> bool {
    immediate || ask(question)
}

/// sacctmgr's question; anything but `y` (or no answer) discards.
fn confirm() -> bool {
    ask("Would you like to commit changes?")
}

fn ask(question: &str) -> bool {
    print!("{question} (You have 30 seconds to decide)\n(N/y): ");
    let _ = std::io::stdout().flush();
    let mut answer = String::new();
    let read = std::io::stdin().lock().read_line(&mut answer);
    println!();
    matches!(read, Ok(n) if n > 0) && answer.trim().eq_ignore_ascii_case("y")
}

fn print_change(request: &AcctRequest, change: &AcctChange, db: &AcctDb) {
    let cluster = &db.cluster;
    match request {
        AcctRequest::AddQos { set, .. } => {
            println!(" Adding QOS(s)");
            for name in &change.names {
                println!("  {name}");
            }
            println!(" Settings");
            let description =
                set.description
                    .clone()
                    .unwrap_or_else(|| match change.names.as_slice() {
                        [one] => one.clone(),
                        _ => "QOS Name".into(),
                    });
            println!("  Description    = {description}");
            for (key, value) in qos_lines(set) {
                if key == "MaxJobsPerUser" {
                    // sacctmgr prints this one setting unaligned.
                    println!("  {key} = {value}");
                } else {
                    println!("  {key:<25}= {value}");
                }
            }
        }
        AcctRequest::AddAccounts {
            parent,
            description,
            organization,
            set,
            ..
        } => {
            println!(" Adding Account(s)");
            for name in &change.names {
                println!("  {name}");
            }
            println!(" Settings");
            println!(
                "  Description     = {}",
                description.as_deref().unwrap_or("Account Name")
            );
            println!(
                "  Organization    = {}",
                organization.as_deref().unwrap_or("Parent/Account Name")
            );
            println!(" Associations");
            for (account, _) in &change.assocs {
                println!("  A = {account:<10} C = {cluster:<10}");
            }
            println!(" Settings");
            println!(
                "  Parent        = {}",
                parent
                    .as_deref()
                    .unwrap_or(spur_core::model::assoc::ROOT_ACCOUNT)
            );
            for (key, value) in assoc_lines(set) {
                println!("  {key:<14}= {value}");
            }
        }
        AcctRequest::AddUsers {
            default_account,
            admin,
            set,
            ..
        } => {
            println!(" Adding User(s)");
            for name in &change.names {
                println!("  {name}");
            }
            if default_account.is_some() || admin.is_some() {
                println!(" Settings =");
                if let Some(d) = default_account {
                    println!("  Default Account = {d}");
                }
                if let Some(level) = admin {
                    println!("  Admin Level     = {}", level.name());
                }
            }
            println!(" Associations =");
            for (account, user) in &change.assocs {
                let user = user.as_deref().unwrap_or("");
                println!("  U = {user:<9} A = {account:<10} C = {cluster:<10}");
            }
            println!(" Non Default Settings");
            for (key, value) in assoc_lines(set) {
                println!("  {key:<14}= {value}");
            }
        }
        AcctRequest::ModifyQos { .. } => {
            println!(" Modified qos...");
            for name in &change.names {
                println!("  {name}");
            }
        }
        AcctRequest::ModifyAccounts { set, .. } => {
            if set.is_empty() || !change.names.is_empty() {
                println!(" Modified accounts...");
                for name in &change.names {
                    println!("  {name}");
                }
            }
            if !set.is_empty() {
                println!(" Modified account associations...");
                for (account, _) in &change.assocs {
                    println!("  C = {cluster:<10} A = {account:<20}");
                }
            }
        }
        AcctRequest::ModifyUsers { set, .. } => {
            if !change.names.is_empty() {
                println!(" Modified users...");
                for name in &change.names {
                    println!("  {name}");
                }
            }
            if !set.is_empty() {
                println!(" Modified user associations...");
                for (account, user) in &change.assocs {
                    let user = user.as_deref().unwrap_or("");
                    println!("  C = {cluster:<10} A = {account:<20} U = {user:<9}");
                }
            }
        }
        AcctRequest::DeleteQos { .. } => {
            println!(" Deleting QOS(s)...");
            for name in &change.names {
                println!("  {name}");
            }
        }
        AcctRequest::DeleteAccounts { .. } => {
            println!(" Deleting accounts...");
            for name in &change.names {
                println!("  {name}");
            }
        }
        AcctRequest::DeleteUsers { .. } => {
            println!(" Deleting users...");
            for name in &change.names {
                println!("  {name}");
            }
        }
        // A batch comes from `load`, which prints its own tables (sacctmgr_file.rs).
        AcctRequest::Batch { .. } => {}
    }
}

fn some<T: ToString>(
    out: &mut Vec<(&'static str, String)>,
    key: &'static str,
    v: &Option<Option<T>>,
) {
    if let Some(v) = v {
        out.push((
            key,
            v.as_ref().map_or_else(|| "-1".into(), ToString::to_string),
        ));
    }
}

/// The QOS settings an add lists, in sacctmgr's order.
fn qos_lines(set: &QosSet) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(flags) = &set.flags {
        out.push(("Flags", flags.join(",")));
    }
    if let Some(g) = set.grace_time_secs {
        out.push(("GraceTime", g.to_string()));
    }
    some(&mut out, "GrpJobs", &set.grp_jobs);
    some(&mut out, "GrpSubmitJobs", &set.grp_submit);
    some(&mut out, "GrpTRES", &set.grp_tres);
    some(&mut out, "MaxJobsPerAccount", &set.max_jobs_per_account);
    some(&mut out, "MaxJobsPerUser", &set.max_jobs_per_user);
    some(
        &mut out,
        "MaxSubmitJobsPerAccount",
        &set.max_submit_jobs_per_account,
    );
    some(
        &mut out,
        "MaxSubmitJobsPerUser",
        &set.max_submit_jobs_per_user,
    );
    some(&mut out, "MaxTRESPerAccount", &set.max_tres_per_account);
    some(&mut out, "MaxTRESPerJob", &set.max_tres_per_job);
    some(&mut out, "MaxTRESPerUser", &set.max_tres_per_user);
    if let Some(wall) = set.max_wall_min {
        out.push((
            "MaxWall",
            wall.map_or_else(
                || "-1".into(),
                spur_core::grammar::values::time::format_minutes,
            ),
        ));
    }
    if let Some(edit) = &set.preempt {
        let names = match edit {
            spur_core::model::assoc::ListEdit::Set(v)
            | spur_core::model::assoc::ListEdit::Add(v)
            | spur_core::model::assoc::ListEdit::Remove(v)
            | spur_core::model::assoc::ListEdit::Delta(v) => v.join(","),
        };
        out.push(("Preempt", names));
    }
    if let Some(mode) = set.preempt_mode {
        out.push((
            "PreemptMode",
            mode.map_or("CLUSTER", |m| m.name()).to_ascii_uppercase(),
        ));
    }
    if let Some(p) = set.priority {
        out.push(("Priority", p.to_string()));
    }
    if let Some(u) = set.usage_factor {
        out.push(("UsageFactor", format!("{u:.4}")));
    }
    out
}

/// The association settings an add lists.
fn assoc_lines(set: &AssocSet) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(s) = set.shares {
        out.push(("Fairshare", s.to_string()));
    }
    some(&mut out, "GrpJobs", &set.grp_jobs);
    some(&mut out, "GrpSubmitJobs", &set.grp_submit);
    some(&mut out, "GrpTRES", &set.grp_tres);
    some(&mut out, "MaxJobs", &set.max_jobs);
    some(&mut out, "MaxSubmitJobs", &set.max_submit);
    some(&mut out, "MaxTRESPerJob", &set.max_tres);
    if let Some(wall) = set.max_wall_min {
        out.push((
            "MaxWall",
            wall.map_or_else(
                || "-1".into(),
                spur_core::grammar::values::time::format_minutes,
            ),
        ));
    }
    if let Some(edit) = &set.qos {
        let mut names = match edit {
            spur_core::model::assoc::ListEdit::Set(v)
            | spur_core::model::assoc::ListEdit::Add(v)
            | spur_core::model::assoc::ListEdit::Remove(v)
            | spur_core::model::assoc::ListEdit::Delta(v) => v.clone(),
        };
        names.sort();
        out.push(("QOS", names.join(",")));
    }
    if let Some(Some(q)) = &set.default_qos {
        out.push(("DefQOS", q.clone()));
    }
    out
}
