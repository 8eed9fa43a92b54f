//! `scontrol`: show jobs, nodes, partitions and the configuration; hold, release, requeue, top and update jobs; drain
//! and resume nodes; ping. `show hostnames|hostlist|hostlistsorted` work without a controller, as in Slurm.

use spur_core::grammar::abbreviates;
use std::io::Read;

use spur_core::grammar::hostlist::scontrol::{render, Show};
use spur_core::grammar::options::query::SCONTROL;

use super::{scontrol_ops, scontrol_resv};

/// Global flags scontrol accepts before the command.
#[derive(Debug, Default, Clone, Copy)]
pub struct Flags {
    pub one_liner: bool,
    pub details: bool,
    pub quiet: bool,
}

pub fn run(args: &[String]) -> u8 {
    // The options are whole words anywhere on the line; the first of `--help`/`--version` ends the scan.
    let parsed = match SCONTROL.parse_env(args, &super::process_env()) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut flags = Flags::default();
    for (name, _) in &parsed.options {
        match *name {
            "oneliner" => flags.one_liner = true,
            "details" => flags.details = true,
            "quiet" => flags.quiet = true,
            "version" => {
                println!("{}", crate::version_line());
                return 0;
            }
            "help" | "usage" => {
                print!("{}", SCONTROL.help_text());
                return 0;
            }
            // Parsed as Slurm parses them (so --help can list them), but Spur has one cluster and no
            // update-as-another-user.
            "cluster" | "uid" => {
                eprintln!("scontrol: error: --{name} is not supported by Spur");
                return 1;
            }
            _ => {}
        }
    }
    let words: Vec<&str> = parsed.positional.iter().map(String::as_str).collect();
    let Some((verb, rest)) = words.split_first() else {
        eprintln!("scontrol: interactive mode is not supported; give a command");
        return 1;
    };
    let verb = verb.to_ascii_lowercase();
    match verb.as_str() {
        v if abbreviates(v, "show", 3) => match rest.first() {
            Some(entity) => show(entity, &rest[1..], flags),
            None => {
                eprintln!("too few arguments for keyword:show");
                1
            }
        },
        "oneliner" => {
            let mut again = vec!["-o".to_string()];
            again.extend(rest.iter().map(|s| s.to_string()));
            run(&again)
        }
        "ping" => scontrol_ops::ping(),
        v if abbreviates(v, "reconfigure", 3) => scontrol_ops::reconfigure(rest),
        "token" => scontrol_ops::token(rest),
        "hold" | "holdu" | "uhold" | "release" | "requeue" | "requeuehold" | "suspend"
        | "resume" => scontrol_ops::job_list_command(&verb, rest),
        v if abbreviates(v, "update", 2) => scontrol_ops::update(rest),
        v if abbreviates(v, "create", 2) => create(rest),
        v if abbreviates(v, "delete", 3) => delete(rest),
        "top" => scontrol_ops::top(rest),
        "notify" => scontrol_ops::notify(rest),
        v if abbreviates(v, "version", 4) => {
            println!("{}", crate::version_line());
            0
        }
        other => {
            eprintln!("invalid keyword: {other}");
            1
        }
    }
}

fn show(given: &str, rest: &[&str], flags: Flags) -> u8 {
    // scontrol shows one entity, or all of a kind: `show node n1 n2` is refused whatever the entity.
    if rest.len() > 1 {
        eprintln!("too many arguments for keyword:show");
        return 1;
    }
    let entity = given.to_ascii_lowercase();
    // `hostlistsorted` before `hostlist`, and `hostnames` by its own prefix, so abbreviations resolve as in Slurm.
    if entity.len() > "hostlist".len() && "hostlistsorted".starts_with(&entity) {
        return hostlist_command(rest, HostlistOutput::Sorted);
    }
    if entity.len() >= 5 && "hostlist".starts_with(&entity) {
        return hostlist_command(rest, HostlistOutput::Ranged);
    }
    if entity.len() >= 5 && "hostnames".starts_with(&entity) {
        return hostlist_command(rest, HostlistOutput::Names);
    }
    if entity.len() >= 3 && "job".starts_with(&entity) || entity == "jobs" {
        return scontrol_ops::show_jobs(rest.first().copied(), flags);
    }
    if entity.len() >= 2 && "nodes".starts_with(&entity) {
        return scontrol_ops::show_nodes(rest.first().copied(), flags);
    }
    if entity.len() >= 2 && "partitions".starts_with(&entity) {
        return scontrol_ops::show_partitions(rest.first().copied(), flags);
    }
    if entity.len() >= 3 && "steps".starts_with(&entity) {
        return scontrol_ops::show_steps(rest.first().copied(), flags);
    }
    if entity.len() >= 3 && "reservations".starts_with(&entity) {
        return scontrol_resv::show(rest.first().copied(), flags);
    }
    if entity.len() >= 3 && "config".starts_with(&entity) {
        return scontrol_ops::show_config();
    }
    if !entity.is_empty() && "topology".starts_with(&entity) {
        return scontrol_ops::show_topology(rest.first().copied());
    }
    if entity.len() >= 2 && "licenses".starts_with(&entity) {
        return scontrol_ops::show_licenses(rest.first().copied(), flags);
    }
    eprintln!("invalid entity:{given} for keyword:show ");
    1
}

/// `create reservation KEY=VALUE...`, `create PartitionName=NAME ...`, `create NodeName=NAME ...`.
fn create(rest: &[&str]) -> u8 {
    let Some((entity, fields)) = rest.split_first() else {
        eprintln!("too few arguments for create keyword");
        return 1;
    };
    if entity.len() >= 3 && "reservation".starts_with(&entity.to_ascii_lowercase()) {
        return scontrol_resv::create(fields);
    }
    // Partitions and nodes are created from their name words themselves (`create PartitionName=p ...`).
    let key = entity
        .split_once('=')
        .map_or(entity.to_ascii_lowercase(), |(k, _)| k.to_ascii_lowercase());
    if key == "partitionname" {
        return super::scontrol_part::create(rest);
    }
    if key == "nodename" {
        return super::scontrol_node::create(rest);
    }
    if entity.contains('=') {
        eprintln!("scontrol: error: Invalid creation entity: {entity}");
    } else {
        eprintln!("scontrol: error: Invalid input: {entity}  Request aborted");
    }
    1
}

/// `delete ENTITY NAME` or `delete ENTITY=NAME` (reservation, partition, node).
fn delete(rest: &[&str]) -> u8 {
    let proper = || {
        eprintln!(
            "scontrol: error: Proper format is 'delete <ENTITY>=<ID>' or 'delete <ENTITY> <ID>'"
        );
        1
    };
    let (tag, entity, id) = match rest {
        [one] => match one.split_once('=') {
            Some((entity, id)) => (*one, entity, id),
            None => return proper(),
        },
        [entity, id, ..] => (*entity, *entity, *id),
        [] => return proper(),
    };
    let entity = entity.to_ascii_lowercase();
    if entity.len() >= 3
        && ("reservation".starts_with(&entity) || "reservationname".starts_with(&entity))
    {
        return scontrol_resv::delete(tag, id);
    }
    if entity.len() >= 3
        && ("partition".starts_with(&entity) || "partitionname".starts_with(&entity))
    {
        return super::scontrol_part::delete(tag, id);
    }
    if entity.len() >= 3 && "nodename".starts_with(&entity) {
        return super::scontrol_node::delete(tag, id);
    }
    eprintln!("invalid entity:{entity} for keyword:delete");
    1
}

#[derive(Clone, Copy)]
enum HostlistOutput {
    Names,
    Ranged,
    Sorted,
}

fn hostlist_command(rest: &[&str], output: HostlistOutput) -> u8 {
    let expression = match rest.first() {
        // Slurm reads the list from a file for an absolute path and from stdin for `-`; otherwise the argument.
        Some(&"-") => {
            let mut text = String::new();
            if std::io::stdin().read_to_string(&mut text).is_err() {
                eprintln!("scontrol: error: cannot read host list from stdin");
                return 1;
            }
            text.split_whitespace().collect::<Vec<_>>().join(",")
        }
        Some(path) if path.starts_with('/') => match std::fs::read_to_string(path) {
            Ok(text) => text.split_whitespace().collect::<Vec<_>>().join(","),
            Err(_) => {
                eprintln!("scontrol: error: Can not open hostlist file {path}");
                return 1;
            }
        },
        Some(expr) => expr.to_string(),
        None => match std::env::var("SLURM_JOB_NODELIST") {
            Ok(list) if matches!(output, HostlistOutput::Names) => list,
            _ => {
                eprintln!("scontrol: error: host list is empty");
                return 1;
            }
        },
    };
    let what = match output {
        HostlistOutput::Names => Show::Hostnames,
        HostlistOutput::Ranged => Show::Hostlist,
        HostlistOutput::Sorted => Show::HostlistSorted,
    };
    let rendered = render(what, &expression);
    print!("{}", rendered.stdout);
    eprint!("{}", rendered.stderr);
    u8::try_from(rendered.exit).unwrap_or(1)
}
