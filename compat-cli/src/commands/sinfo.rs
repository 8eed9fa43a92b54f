//! `sinfo`: partitions and nodes in Slurm's layouts (default, `-N`, `-l`, `-s`, `-R`, `-o`, `-O`, `--json`).

use spur_core::format::{json, sinfo};
use spur_core::grammar::options::query::{Parsed, SINFO};
use spur_core::wire::api::{Query, QueryReply};

use crate::client::Client;
use crate::config;

pub fn run(args: &[String]) -> u8 {
    let parsed = match super::parse_or_finish(&SINFO, args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    if let Some(text) = SINFO.help_or_usage(&parsed) {
        print!("{text}");
        return 0;
    }
    if parsed.has("reservation") {
        return reservations(parsed.has("noheader"));
    }
    let options = match build_options(&parsed) {
        Ok(o) => o,
        Err(text) => {
            eprintln!("{text}");
            return 1;
        }
    };
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("slurm_load_partitions: {e}");
            return 1;
        }
    };
    let (partitions, nodes, now) = match client.query(&Query::Partitions) {
        Ok(QueryReply::Partitions {
            partitions,
            nodes,
            now,
        }) => (partitions, nodes, now),
        Ok(_) => return 1,
        Err(e) => {
            eprintln!("slurm_load_partitions: {e}");
            return 1;
        }
    };
    // The users who set the nodes' reasons (`sinfo -R` shows their names).
    let reason_users = nodes
        .iter()
        .filter_map(|n| n.reason_uid)
        .map(|uid| (uid, u32::MAX));
    let ctx = config::format_context(now, reason_users);
    if parsed.has("json") {
        println!("{}", json::sinfo_json(&nodes, &ctx));
        return 0;
    }
    print!("{}", sinfo::render(&nodes, &partitions, &options, &ctx));
    0
}

fn build_options(parsed: &Parsed) -> Result<sinfo::SinfoOptions, String> {
    if parsed.env_var("all").is_some() && parsed.env_var("partition").is_some() {
        return Err(
            "sinfo: error: Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. \
                    Please choose one or the other."
                .to_string(),
        );
    }
    let long = parsed.has("long");
    let mut options = if parsed.has("list-reasons") {
        sinfo::SinfoOptions::list_reasons(long)
    } else if parsed.has("Node") {
        sinfo::SinfoOptions::node(long)
    } else if parsed.has("summarize") {
        sinfo::SinfoOptions::summarize()
    } else if long {
        sinfo::SinfoOptions::long()
    } else {
        sinfo::SinfoOptions::default()
    };
    // SINFO_FORMAT (the environment's -o) gives way to -o, -O, -s, -N and -R on the command line, not to -l.
    let env_format_beaten = ["format", "Format", "summarize", "Node", "list-reasons"]
        .iter()
        .any(|o| parsed.cli_has(o));
    if let Some(format) = parsed
        .value("format")
        .filter(|_| parsed.cli_has("format") || !env_format_beaten)
    {
        options = options.with_format(format);
    }
    if let Some(format) = parsed.value("Format") {
        options = options.with_long_format(format);
    }
    if let Some(sort) = parsed.value("sort") {
        options = options.with_sort(sort);
    }
    if let Some(states) = parsed.value("states") {
        options = options
            .with_states(states)
            .map_err(|e| format!("sinfo: error: {e}"))?;
    }
    if parsed.has("Node") {
        options.node_oriented = true;
    }
    options.no_header = parsed.has("noheader");
    options.exact = parsed.has("exact");
    // SINFO_PARTITION also shows hidden partitions, as Slurm's sinfo does.
    options.all_partitions = parsed.has("all") || parsed.env_var("partition").is_some();
    options.dead_only = parsed.has("dead");
    options.responding_only = parsed.has("responding");
    if let Some(period) = parsed.value("iterate") {
        // Slurm reads the period with atoi and refuses what is not positive.
        if spur_core::grammar::options::error::atoi(period) <= 0 {
            return Err(format!(
                "sinfo: error: Error: invalid entry for --iterate={period}"
            ));
        }
        options.print_date = true;
    }
    if let Some(list) = parsed.value("partition") {
        options.partitions = Some(list.split(',').map(str::to_string).collect());
    }
    if let Some(list) = parsed.value("nodes") {
        let names =
            spur_core::grammar::hostlist::expand(list).map_err(|e| format!("sinfo: error: {e}"))?;
        options.nodes = Some(names);
    }
    Ok(options)
}

/// `sinfo -T`: the reservations instead of partitions (other layout options are ignored, as in Slurm).
fn reservations(no_header: bool) -> u8 {
    let Some((list, now)) = super::scontrol_resv::load("slurm_load_reservations") else {
        return 1;
    };
    if list.is_empty() {
        print!("{}", spur_core::format::scontrol_reservation::NONE_TEXT);
        return 0;
    }
    let ctx = config::format_context(now, std::iter::empty());
    print!(
        "{}",
        spur_core::format::scontrol_reservation::render_sinfo(&list, !no_header, &ctx)
    );
    0
}
