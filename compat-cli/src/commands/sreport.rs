//! `sreport`: Slurm 22.05's report command, one command given on the command line (`sreport cluster utilization
//! start=.. end=..`). Options from the option table (`SREPORT`), keywords and report names matched by sreport's
//! shortest prefixes, its messages and exit codes. Reports implemented: `cluster utilization`; the others Slurm
//! has are named and refused (see docs/accounting.md). The numbers come from the accounting records (the same
//! query `sacct` uses) and the nodes' CPUs; the arithmetic and layout are `spur_core::format::sreport`.

use spur_core::format::sreport::{
    cluster_fields, cluster_utilization, report_window, title, ClusterUsage, Layout, Output,
    TimeFormat,
};
use spur_core::grammar::abbreviates;
use spur_core::grammar::options::query::SREPORT;
use spur_core::grammar::values::begin::{parse_time, LocalNow};
use spur_core::model::accounting::Filter;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::Client;
use crate::config;

/// What the options set for every report.
struct Settings {
    out: Output,
    quiet: bool,
    verbose: bool,
    now: LocalNow,
}

pub fn run(args: &[String]) -> u8 {
    if !storage_supported() {
        eprintln!(
            "You are not running a supported accounting_storage plugin\n\
             Only 'accounting_storage/slurmdbd' is supported."
        );
        return 1;
    }
    let parsed = match super::parse_or_finish(&SREPORT, args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    // Slurm's getopt loop acts on each option in turn: help and an unhandled long option end it there.
    let mut settings = Settings {
        out: Output {
            header: true,
            ..Output::default()
        },
        quiet: false,
        verbose: false,
        now: LocalNow {
            epoch_secs: config::now_epoch(),
            utc_offset_secs: config::utc_offset_secs(),
        },
    };
    for (name, value) in &parsed.options {
        match (*name, value.as_deref()) {
            ("help" | "usage", _) => {
                println!("{}", SREPORT.usage_text().trim_end());
                return 0;
            }
            ("immediate", _) => {
                eprintln!("getopt error, returned i");
                return 1;
            }
            ("noheader", _) => settings.out.header = false,
            ("parsable", _) => settings.out.layout = Layout::Parsable,
            ("parsable2", _) => settings.out.layout = Layout::Parsable2,
            ("quiet", _) => settings.quiet = true,
            ("verbose", _) => settings.verbose = true,
            ("time", Some(word)) => match TimeFormat::parse(word) {
                Some(f) => settings.out.time = f,
                // Slurm goes on with the format it had, and ends the message without a newline.
                None => eprint!("unknown time format {word}"),
            },
            ("sort", Some(word))
                if !abbreviates(word, "Name", 1) && !abbreviates(word, "Time", 6) =>
            {
                eprint!("unknown timesort format {word}");
            }
            _ => {}
        }
    }
    let cluster_options = [
        parsed.has("all_clusters"),
        parsed.has("cluster"),
        parsed.has("local"),
    ];
    if cluster_options.iter().filter(|set| **set).count() > 1 {
        eprintln!("Only one cluster option can be used (--all_clusters OR --cluster OR --local)");
        return 1;
    }
    if parsed.positional.is_empty() {
        // Slurm reads commands from its prompt here; Spur's sreport takes one command per run.
        eprintln!("sreport: error: no command given (interactive mode is not supported by Spur)");
        return 1;
    }
    command(&parsed.positional, &settings)
}

/// Slurm's sreport refuses to run without slurmdbd; Spur keeps its own records, so only an explicit storage type
/// other than slurmdbd (or none) is refused.
fn storage_supported() -> bool {
    config::load_slurm_conf()
        .and_then(|conf| conf.get_str("AccountingStorageType"))
        .is_none_or(|t| t.eq_ignore_ascii_case("accounting_storage/slurmdbd"))
}

/// One command: its keyword, then the report and its conditions. Returns the exit code.
fn command(words: &[String], settings: &Settings) -> u8 {
    let keyword = words[0].as_str();
    let rest = &words[1..];
    let too_few = || {
        if !settings.quiet {
            eprintln!("too few arguments for keyword:{keyword}");
        }
        1
    };
    if abbreviates(keyword, "cluster", 2) {
        if rest.is_empty() {
            return too_few();
        }
        return cluster_report(rest, settings);
    }
    if abbreviates(keyword, "job", 1) {
        if rest.is_empty() {
            return too_few();
        }
        let report = rest[0].as_str();
        if abbreviates(report, "SizesByAccount", 1)
            || abbreviates(report, "SizesByWcKey", 8)
            || abbreviates(report, "SizesByAccountAndWcKey", 15)
        {
            return unsupported("job", report);
        }
        eprintln!(
            "Not valid report {report}\nValid job reports are, \"SizesByAccount, SizesByAccountAndWcKey, and  SizesByWckey\""
        );
        return 1;
    }
    if abbreviates(keyword, "user", 1) {
        if rest.is_empty() {
            return too_few();
        }
        let report = rest[0].as_str();
        if abbreviates(report, "Top", 1) {
            return unsupported("user", report);
        }
        eprintln!("Not valid report {report}\nValid user reports are, \"Top\"");
        return 1;
    }
    if abbreviates(keyword, "reservation", 2) || abbreviates(keyword, "resv", 2) {
        if rest.is_empty() {
            return too_few();
        }
        let report = rest[0].as_str();
        if abbreviates(report, "Utilization", 1) {
            return unsupported("reservation", report);
        }
        eprintln!("Not valid report {report}\nValid reservation reports are, \"Utilization\"");
        return 1;
    }
    if abbreviates(keyword, "version", 4) {
        if !rest.is_empty() {
            eprintln!("too many arguments for {keyword} keyword");
            println!("{}", crate::version_line());
            return 1;
        }
        println!("{}", crate::version_line());
        return 0;
    }
    eprintln!("invalid keyword: {keyword}");
    1
}

/// A report Slurm has that Spur does not produce yet: said plainly, exit 1.
fn unsupported(group: &str, report: &str) -> u8 {
    eprintln!("sreport: error: the {group} report {report} is not supported by Spur yet");
    1
}

fn cluster_report(words: &[String], settings: &Settings) -> u8 {
    let report = words[0].as_str();
    let conditions = &words[1..];
    if abbreviates(report, "AccountUtilizationByUser", 1)
        || abbreviates(report, "UserUtilizationByAccount", 18)
        || abbreviates(report, "UA", 2)
        || abbreviates(report, "UserUtilizationByWckey", 18)
        || abbreviates(report, "UW", 2)
        || abbreviates(report, "WCKeyUtilizationByUser", 1)
    {
        return unsupported("cluster", report);
    }
    if abbreviates(report, "Utilization", 2) {
        return utilization(conditions, settings);
    }
    eprintln!(
        "Not valid report {report}\nValid cluster reports are, \"AccountUtilizationByUser\", \"UserUtilizationByAccount\", \"UserUtilizationByWckey\", \"Utilization\", and \"WCKeyUtilizationByUser\""
    );
    1
}

/// A cluster report's conditions (`start=`, `end=`, `format=`, `clusters=`, bare cluster names).
#[derive(Default)]
struct Conditions {
    start: Option<i64>,
    end: Option<i64>,
    format: Vec<String>,
    clusters: Vec<String>,
    all_clusters: bool,
    /// An unknown condition sets the exit code; the report is printed anyway, as in Slurm.
    failed: bool,
}

fn conditions(words: &[String], now: LocalNow) -> Conditions {
    let mut c = Conditions::default();
    let time = |text: &str| match parse_time(text, now, true) {
        Ok(0) => None,
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("{e}");
            None
        }
    };
    let list = |text: &str| -> Vec<String> {
        text.split(',')
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    for word in words {
        let Some((name, value)) = word.split_once('=') else {
            if abbreviates(word, "all_clusters", 1) {
                c.all_clusters = true;
            } else {
                c.clusters.extend(list(word));
            }
            continue;
        };
        if abbreviates(name, "Clusters", 1) {
            c.clusters.extend(list(value));
        } else if abbreviates(name, "End", 1) {
            c.end = time(value);
        } else if abbreviates(name, "Format", 1) {
            // An empty `format=` adds one empty (hence unknown) field, as Slurm's list parser does.
            let fields = list(value);
            if fields.is_empty() {
                c.format.push(String::new());
            }
            c.format.extend(fields);
        } else if abbreviates(name, "Start", 1) {
            c.start = time(value);
        } else {
            c.failed = true;
            eprintln!(" Unknown condition: {word}\nUse keyword set to modify value");
        }
    }
    c
}

fn utilization(words: &[String], settings: &Settings) -> u8 {
    let now = settings.now;
    let cond = conditions(words, now);
    let (fields, unknown) = cluster_fields(&cond.format);
    for message in &unknown {
        eprintln!("{message}");
    }
    let window = report_window(cond.start, cond.end, now.epoch_secs, now.utc_offset_secs);
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sreport: error: {e}");
            return 1;
        }
    };
    let (nodes, records, cluster) = match load(&client, window) {
        Ok(loaded) => loaded,
        Err(e) => {
            eprintln!("sreport: error: Problem talking to the database: {e}");
            return 1;
        }
    };
    let wanted = cond.all_clusters
        || cond.clusters.is_empty()
        || cond
            .clusters
            .iter()
            .any(|c| c.eq_ignore_ascii_case(&cluster));
    let usage = wanted
        .then(|| recorded_usage(&nodes, &records, window, now.epoch_secs))
        .flatten();
    let window_secs = u64::try_from(window.1 - window.0).unwrap_or(0);
    print!(
        "{}{}",
        title(
            "Cluster Utilization",
            window,
            now.utc_offset_secs,
            settings.out
        ),
        cluster_utilization(&cluster, usage.as_ref(), &fields, window_secs, settings.out)
    );
    u8::from(cond.failed || !unknown.is_empty())
}

type Loaded = (
    Vec<spur_core::model::records::NodeRecord>,
    Vec<spur_core::model::accounting::JobAccounting>,
    String,
);

/// The nodes and every job record known during the window, through sacct's query path.
fn load(client: &Client, window: (i64, i64)) -> Result<Loaded, String> {
    let nodes = match client.query(&Query::Nodes) {
        Ok(QueryReply::Nodes { nodes, .. }) => nodes,
        Ok(_) => return Err("Unexpected message received".into()),
        Err(e) => return Err(e.to_string()),
    };
    let query = Query::Accounting {
        job_ids: None,
        user_ids: None,
        select: Some(Filter {
            window: Some(window),
            ..Filter::default()
        }),
    };
    match client.query(&query) {
        Ok(QueryReply::Accounting {
            records, cluster, ..
        }) => Ok((nodes, records, cluster)),
        Ok(_) => Err("Unexpected message received".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The cluster's numbers over the part of the window Spur has records for: from when the cluster is first known
/// (its nodes' agents' start or its earliest job, whichever is first) to the last whole hour (Slurm's hourly
/// rollup reports nothing newer). `None` when no hour of the window is covered: Slurm then prints no row.
fn recorded_usage(
    nodes: &[spur_core::model::records::NodeRecord],
    records: &[spur_core::model::accounting::JobAccounting],
    window: (i64, i64),
    now: i64,
) -> Option<ClusterUsage> {
    let known_since = nodes
        .iter()
        .filter_map(|n| n.agent_start_time)
        .chain(records.iter().map(|r| r.submit))
        .min()?;
    let last_hour = now - now.rem_euclid(3600);
    let covered = (window.0.max(known_since), window.1.min(last_hour));
    if covered.1 <= covered.0 {
        return None;
    }
    let cpus: u64 = nodes.iter().map(|n| u64::from(n.cpus)).sum();
    Some(ClusterUsage::from_jobs(cpus, records, covered, now))
}
