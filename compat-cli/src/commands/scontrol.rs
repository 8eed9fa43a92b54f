//! `scontrol`: `show hostnames|hostlist|hostlistsorted` work without a controller, as in Slurm.

use std::io::Read;

use spur_core::hostlist::Hostlist;

pub fn run(args: &[String]) -> u8 {
    let words: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
    match words.as_slice() {
        [verb, entity, rest @ ..] if is_prefix_of(verb, "show", 3) => show(entity, rest),
        _ => {
            eprintln!("scontrol: invalid command; try \"scontrol help\"");
            1
        }
    }
}

/// Slurm accepts unambiguous abbreviations of scontrol keywords, down to a minimum length.
fn is_prefix_of(word: &str, keyword: &str, min_len: usize) -> bool {
    let word = word.to_ascii_lowercase();
    word.len() >= min_len.min(keyword.len()) && keyword.starts_with(&word)
}

fn show(entity: &str, rest: &[&str]) -> u8 {
    let entity = entity.to_ascii_lowercase();
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
    eprintln!("invalid entity: {entity} for keyword: show");
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
    let mut list = match Hostlist::parse(&expression) {
        Ok(list) => list,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    match output {
        HostlistOutput::Names => {
            for name in list.expand() {
                println!("{name}");
            }
        }
        HostlistOutput::Ranged => println!("{}", list.to_ranged_string()),
        HostlistOutput::Sorted => {
            list.sort();
            list.uniq();
            println!("{}", list.to_ranged_string());
        }
    }
    0
}
