//! `sshare`: fair-share usage and factors of the associations (layouts in `spur_core::format::sshare`), with
//! Slurm 22.05's options, messages and exit codes. The controller sends the associations and their usage; the
//! factors are ranked here with the same function the scheduler uses.

use spur_core::format::print_fields::Layout;
use spur_core::format::sshare::{self, SshareOptions};
use spur_core::grammar::options::query::SSHARE;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::Client;
use crate::config;

pub fn run(args: &[String]) -> u8 {
    let parsed = match super::parse_or_finish(&SSHARE, args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    if parsed.has("help") || parsed.has("usage") {
        print!("{}", SSHARE.help_text());
        return 0;
    }
    if parsed.has("helpformat") {
        print!("{}", sshare::help_format());
        return 0;
    }
    let list = |name: &str| {
        parsed.value(name).map(|text| {
            text.split(',')
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
    };
    let layout = if parsed.has("parsable2") {
        Layout::Parsable2
    } else if parsed.has("parsable") {
        Layout::Parsable
    } else {
        Layout::Columns
    };
    let caller = config::user_name(nix::unistd::getuid().as_raw()).unwrap_or_default();
    let cluster = config::load_slurm_conf()
        .and_then(|c| c.cluster_name().map(str::to_string))
        .unwrap_or_default();
    let mut options = SshareOptions {
        all: parsed.has("all"),
        accounts: list("accounts"),
        users: list("users"),
        users_only: parsed.has("Users"),
        long: parsed.has("long"),
        partition: parsed.has("partition"),
        noheader: parsed.has("noheader"),
        layout,
        caller,
        cluster,
        classic: false,
    };
    let format = match parsed.value("format").map(sshare::parse_format) {
        Some(Ok(columns)) => Some(columns),
        Some(Err(error)) => {
            eprintln!("sshare: error: {error}");
            return 1;
        }
        None => None,
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => return controller_error(&e.to_string()),
    };
    let (db, usage, fair_tree, run_mins) = match client.query(&Query::Shares) {
        Ok(QueryReply::Shares {
            db,
            usage,
            fair_tree,
            run_mins,
        }) => (db, usage, fair_tree, run_mins),
        Ok(_) => return controller_error("Unexpected message received"),
        Err(e) => return controller_error(&e.to_string()),
    };
    options.classic = !fair_tree;
    let columns = format.unwrap_or_else(|| sshare::default_columns(&options));
    if let Some(cluster) = parsed.value("cluster") {
        println!("CLUSTER: {cluster}");
    }
    let rows = spur_core::policy::fair_tree::shares(&db, &usage, fair_tree);
    print!("{}", sshare::render(&rows, &run_mins, &columns, &options));
    0
}

fn controller_error(text: &str) -> u8 {
    eprintln!("sshare: error: Problem with query: {text}");
    1
}
