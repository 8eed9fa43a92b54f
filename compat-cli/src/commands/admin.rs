//! `spur admin controller list|add|remove`: Spur's own administration of a group of controllers (Slurm has no
//! such command: its backup controllers are fixed by slurm.conf). See docs/ha.md.

use spur_core::model::controllers::{parse_member, ControllerChange};

use crate::client::{Client, ClientError};

const USAGE: &str = "usage: spur admin controller list\n       \
                     spur admin controller add NAME=HOST:PORT\n       \
                     spur admin controller remove NAME";

pub fn run(args: &[String]) -> u8 {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let change = match words.as_slice() {
        ["controller", "list"] | ["controller"] => ControllerChange::List,
        ["controller", "add", spec] => match parse_member(spec) {
            Ok((name, addr)) => ControllerChange::Add { name, addr },
            Err(e) => {
                eprintln!("spur admin: {e}");
                return 1;
            }
        },
        ["controller", "remove", name] => ControllerChange::Remove {
            name: (*name).to_string(),
        },
        ["-h" | "--help" | "help", ..] | [] => {
            println!("{USAGE}");
            return if words.is_empty() { 1 } else { 0 };
        }
        _ => {
            eprintln!("{USAGE}");
            return 1;
        }
    };
    let result = Client::from_environment().and_then(|client| client.controllers(&change));
    match result {
        Ok(list) => {
            for line in list.lines() {
                println!("{line}");
            }
            0
        }
        Err(ClientError::Api(e)) => {
            eprintln!(
                "spur admin: {}",
                e.detail.as_deref().unwrap_or(e.errno.text())
            );
            1
        }
        Err(e) => {
            eprintln!("spur admin: {e}");
            1
        }
    }
}
