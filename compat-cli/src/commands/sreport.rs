//! `sreport`: Slurm 22.05's report command, one command given on the command line (`sreport cluster utilization
//! start=.. end=..`) or, with none, commands read from stdin (`sreport_shell`). Options from the option table
//! (`SREPORT`), keywords matched by sreport's shortest prefixes, its settings commands, messages and exit codes.
//! Reports implemented: `cluster utilization` here, `cluster AccountUtilizationByUser`, `cluster
//! UserUtilizationByAccount` and `user TopUsage` in `sreport_assoc`; the others Slurm has are named and refused
//! (see docs/accounting.md). The numbers come from the accounting records (the same query `sacct` uses) and the
//! nodes' CPUs; the arithmetic and layout are `spur_core::format::sreport` and `sreport_assoc`.

use spur_core::format::sreport::{
    cluster_fields, cluster_utilization, report_window, title, ClusterUsage, Layout, Output,
    TimeFormat,
};
use spur_core::format::sreport_assoc::{AssocReport, UserSort};
use spur_core::grammar::abbreviates;
use spur_core::grammar::options::query::{SREPORT, SREPORT_HELP};
use spur_core::grammar::values::begin::{parse_time, LocalNow};
use spur_core::model::accounting::Filter;
use spur_core::wire::api::{Query, QueryReply};

use crate::client::Client;
use crate::config;

/// What the options set for every report.
pub(super) struct Settings {
    pub(super) out: Output,
    pub(super) quiet: bool,
    pub(super) verbose: bool,
    pub(super) now: LocalNow,
    /// `-s`: how user reports order their rows.
    pub(super) sort: UserSort,
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
        sort: UserSort::default(),
    };
    for (name, value) in &parsed.options {
        match (*name, value.as_deref()) {
            ("help" | "usage", _) => {
                print!("{SREPORT_HELP}");
                return 0;
            }
            ("immediate", _) => {
                eprintln!("getopt error, returned i");
                return 1;
            }
            ("noheader", _) => settings.out.header = false,
            ("parsable", _) => settings.out.layout = Layout::Parsable,
            ("parsable2", _) => settings.out.layout = Layout::Parsable2,
            // One setting in Slurm (quiet 1, verbose -1): the later option wins.
            ("quiet", _) => {
                settings.quiet = true;
                settings.verbose = false;
            }
            ("verbose", _) => {
                settings.verbose = true;
                settings.quiet = false;
            }
            ("time", Some(word)) => set_time(word, &mut settings),
            ("sort", Some(word)) => set_sort(word, &mut settings),
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
        return super::sreport_shell::interactive(&mut settings);
    }
    command(&parsed.positional, &mut settings).0
}

/// Slurm's sreport refuses to run without slurmdbd; Spur keeps its own records, so only an explicit storage type
/// other than slurmdbd (or none) is refused.
fn storage_supported() -> bool {
    config::load_slurm_conf()
        .and_then(|conf| conf.get_str("AccountingStorageType"))
        .is_none_or(|t| t.eq_ignore_ascii_case("accounting_storage/slurmdbd"))
}

/// What a command leaves the session to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Continue,
    /// `exit`, `quit` or `\q`: the interactive loop ends.
    Exit,
}

/// One command: its keyword, then the report and its conditions, or a setting. Returns the exit code it sets (1
/// on any error: Slurm's exit code, once set, stays set) and whether the session ends.
pub(super) fn command(words: &[String], settings: &mut Settings) -> (u8, Flow) {
    let Some(keyword) = words.first().map(String::as_str) else {
        // An empty line (or a comment) is a failed command; only verbose says so, without a newline.
        if settings.verbose {
            eprint!("no input");
        }
        return (1, Flow::Continue);
    };
    let rest = &words[1..];
    let too_few = |settings: &Settings, always: bool| {
        if always || !settings.quiet {
            eprintln!("too few arguments for keyword:{keyword}");
        }
        (1, Flow::Continue)
    };
    // Settings commands take no argument; one given is refused, and the setting is made anyway.
    let extra = |template_keyword_first: bool| -> u8 {
        if rest.is_empty() {
            return 0;
        }
        if template_keyword_first {
            eprintln!("too many arguments for keyword:{keyword}");
        } else {
            eprintln!("too many arguments for {keyword} keyword");
        }
        1
    };
    if abbreviates(keyword, "cluster", 2) {
        if rest.is_empty() {
            return too_few(settings, false);
        }
        return (cluster_report(rest, settings), Flow::Continue);
    }
    if abbreviates(keyword, "help", 2) {
        let code = extra(true);
        print!("{SREPORT_HELP}");
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "job", 1) {
        if rest.is_empty() {
            return too_few(settings, false);
        }
        let report = rest[0].as_str();
        if abbreviates(report, "SizesByAccount", 1)
            || abbreviates(report, "SizesByWcKey", 8)
            || abbreviates(report, "SizesByAccountAndWcKey", 15)
        {
            return (unsupported("job", report), Flow::Continue);
        }
        eprintln!(
            "Not valid report {report}\nValid job reports are, \"SizesByAccount, SizesByAccountAndWcKey, and  SizesByWckey\""
        );
        return (1, Flow::Continue);
    }
    if abbreviates(keyword, "quiet", 4) {
        let code = extra(true);
        settings.quiet = true;
        settings.verbose = false;
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "exit", 1)
        || abbreviates(keyword, "\\q", 2)
        || abbreviates(keyword, "quit", 4)
    {
        return (extra(true), Flow::Exit);
    }
    if abbreviates(keyword, "local", 3) {
        return (extra(true), Flow::Continue);
    }
    if abbreviates(keyword, "nonparsable", 4) {
        let code = extra(true);
        settings.out.layout = Layout::Aligned;
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "parsable", 8) {
        let code = extra(true);
        settings.out.layout = Layout::Parsable;
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "parsable2", 9) {
        let code = extra(true);
        settings.out.layout = Layout::Parsable2;
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "reservation", 2) || abbreviates(keyword, "resv", 2) {
        if rest.is_empty() {
            return too_few(settings, false);
        }
        let report = rest[0].as_str();
        if leads_with(report, "Utilization", 1) {
            return (unsupported("reservation", report), Flow::Continue);
        }
        eprintln!("Not valid report {report}\nValid reservation reports are, \"Utilization\"");
        return (1, Flow::Continue);
    }
    if abbreviates(keyword, "sort", 1) {
        match rest.first() {
            None => return too_few(settings, true),
            Some(word) => set_sort(word, settings),
        }
        return (0, Flow::Continue);
    }
    if abbreviates(keyword, "time", 1) {
        match rest.first() {
            None => return too_few(settings, true),
            Some(word) => set_time(word, settings),
        }
        return (0, Flow::Continue);
    }
    if abbreviates(keyword, "verbose", 4) {
        let code = extra(false);
        settings.verbose = true;
        settings.quiet = false;
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "version", 4) {
        let code = extra(false);
        print_version(settings);
        return (code, Flow::Continue);
    }
    if abbreviates(keyword, "user", 1) {
        if rest.is_empty() {
            return too_few(settings, false);
        }
        let report = rest[0].as_str();
        if leads_with(report, "Top", 1) {
            let code = super::sreport_assoc::run(AssocReport::TopUsage, &rest[1..], settings);
            return (code, Flow::Continue);
        }
        eprintln!("Not valid report {report}\nValid user reports are, \"Top\"");
        return (1, Flow::Continue);
    }
    eprintln!("invalid keyword: {keyword}");
    (1, Flow::Continue)
}

/// `-V`, `version`: the version line, and with verbose the API version as Slurm encodes it.
fn print_version(settings: &Settings) {
    println!("{}", crate::version_line());
    if settings.verbose {
        let (major, minor, micro) = api_version();
        let number = (major << 16) | (minor << 8) | micro;
        println!("slurm_api_version: {number}, {major}.{minor}.{micro}");
    }
}

/// The three numbers of the Slurm version Spur answers as (`22.05.8`: 22, 5, 8).
fn api_version() -> (u32, u32, u32) {
    let mut parts = crate::SLURM_VERSION
        .split('.')
        .map(|p| p.parse::<u32>().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

/// `-t`/`time`: a format sreport knows, or its message (without a newline) and the format unchanged.
fn set_time(word: &str, settings: &mut Settings) {
    match TimeFormat::parse(word) {
        Some(f) => settings.out.time = f,
        None => eprint!("unknown time format {word}"),
    }
}

/// `-s`/`sort`: `Name` or `Time`, or its message (without a newline) and the order unchanged.
fn set_sort(word: &str, settings: &mut Settings) {
    if abbreviates(word, "Name", 1) {
        settings.sort = UserSort::Name;
    } else if abbreviates(word, "Time", 6) {
        settings.sort = UserSort::Time;
    } else {
        eprint!("unknown timesort format {word}");
    }
}

/// How sreport picks a cluster, user or reservation report: the word's first `n` letters are the keyword's, in
/// any case, whatever follows (Slurm compares only those letters, so `ax` is AccountUtilizationByUser and
/// `utilizationx` is Utilization); the job reports are matched by [`abbreviates`] instead.
fn leads_with(word: &str, keyword: &str, n: usize) -> bool {
    match (word.get(..n), keyword.get(..n)) {
        (Some(w), Some(k)) => w.eq_ignore_ascii_case(k),
        _ => false,
    }
}

/// A report Slurm has that Spur does not produce yet: said plainly, exit 1.
fn unsupported(group: &str, report: &str) -> u8 {
    eprintln!("sreport: error: the {group} report {report} is not supported by Spur yet");
    1
}

fn cluster_report(words: &[String], settings: &Settings) -> u8 {
    let report = words[0].as_str();
    let conditions = &words[1..];
    if leads_with(report, "AccountUtilizationByUser", 1) {
        return super::sreport_assoc::run(AssocReport::AccountByUser, conditions, settings);
    }
    if leads_with(report, "UserUtilizationByAccount", 18) || leads_with(report, "UA", 2) {
        return super::sreport_assoc::run(AssocReport::UserByAccount, conditions, settings);
    }
    if leads_with(report, "UserUtilizationByWckey", 18) || leads_with(report, "UW", 2) {
        return super::sreport_assoc::run(AssocReport::UserByWckey, conditions, settings);
    }
    if leads_with(report, "Utilization", 2) {
        return utilization(conditions, settings);
    }
    if leads_with(report, "WCKeyUtilizationByUser", 1) {
        return super::sreport_assoc::run(AssocReport::WckeyByUser, conditions, settings);
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
    let (_, (nodes, records, cluster)) = match connect_and_load(window) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let wanted = names_cluster(cond.all_clusters, &cond.clusters, &cluster);
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

pub(super) type Loaded = (
    Vec<spur_core::model::records::NodeRecord>,
    Vec<spur_core::model::accounting::JobAccounting>,
    String,
);

/// A client and the window's nodes and job records ([`load`]), or the exit code once sreport has said why not.
pub(super) fn connect_and_load(window: (i64, i64)) -> Result<(Client, Loaded), u8> {
    let client = match Client::from_environment() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sreport: error: {e}");
            return Err(1);
        }
    };
    match load(&client, window) {
        Ok(loaded) => Ok((client, loaded)),
        Err(e) => {
            eprintln!("sreport: error: Problem talking to the database: {e}");
            Err(1)
        }
    }
}

/// Whether a report's `clusters=` (or `-a`) names this cluster; none named is this one.
pub(super) fn names_cluster(all: bool, clusters: &[String], cluster: &str) -> bool {
    all || clusters.is_empty() || clusters.iter().any(|c| c.eq_ignore_ascii_case(cluster))
}

/// The nodes and every job record known during the window, through sacct's query path.
pub(super) fn load(client: &Client, window: (i64, i64)) -> Result<Loaded, String> {
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
    let covered = covered_window(nodes, records, window, now)?;
    let cpus: u64 = nodes.iter().map(|n| u64::from(n.cpus)).sum();
    Some(ClusterUsage::from_jobs(cpus, records, covered, now))
}

/// The part of the window the cluster has numbers for (see [`recorded_usage`]); `None` when no hour is.
pub(super) fn covered_window(
    nodes: &[spur_core::model::records::NodeRecord],
    records: &[spur_core::model::accounting::JobAccounting],
    window: (i64, i64),
    now: i64,
) -> Option<(i64, i64)> {
    let known_since = nodes
        .iter()
        .filter_map(|n| n.agent_start_time)
        .chain(records.iter().map(|r| r.submit))
        .min()?;
    let last_hour = now - now.rem_euclid(3600);
    let covered = (window.0.max(known_since), window.1.min(last_hour));
    (covered.1 > covered.0).then_some(covered)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            out: Output {
                header: true,
                ..Output::default()
            },
            quiet: false,
            verbose: false,
            now: LocalNow {
                epoch_secs: 0,
                utc_offset_secs: 0,
            },
            sort: UserSort::default(),
        }
    }

    fn words(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn report_names_are_matched_on_their_first_letters() {
        assert!(leads_with("axyz", "AccountUtilizationByUser", 1));
        assert!(leads_with(
            "UserUtilizationByAx",
            "UserUtilizationByAccount",
            18
        ));
        assert!(!leads_with(
            "UserUtilizationBy",
            "UserUtilizationByAccount",
            18
        ));
        assert!(!leads_with("u", "UA", 2));
        assert!(leads_with("utilizationx", "Utilization", 2));
        assert!(leads_with("tx", "Top", 1));
    }

    #[test]
    fn settings_commands_change_the_session() {
        let mut s = settings();
        assert_eq!(command(&words("parsable2"), &mut s), (0, Flow::Continue));
        assert_eq!(s.out.layout, Layout::Parsable2);
        // `pars` is no keyword: parsable and parsable2 must be given whole.
        assert_eq!(command(&words("pars"), &mut s), (1, Flow::Continue));
        assert_eq!(command(&words("nonp"), &mut s), (0, Flow::Continue));
        assert_eq!(s.out.layout, Layout::Aligned);
        assert_eq!(command(&words("time hourper"), &mut s), (0, Flow::Continue));
        assert_eq!(s.out.time, TimeFormat::HourPer);
        assert_eq!(command(&words("sort name"), &mut s), (0, Flow::Continue));
        assert_eq!(s.sort, UserSort::Name);
        assert_eq!(command(&words("time"), &mut s), (1, Flow::Continue));
        // quiet and verbose are one setting: the later wins.
        assert_eq!(command(&words("verbose"), &mut s), (0, Flow::Continue));
        assert_eq!(command(&words("quiet x"), &mut s), (1, Flow::Continue));
        assert!(s.quiet && !s.verbose);
        assert_eq!(command(&[], &mut s), (1, Flow::Continue));
    }

    #[test]
    fn the_ways_out() {
        let mut s = settings();
        assert_eq!(command(&words("exit"), &mut s), (0, Flow::Exit));
        assert_eq!(command(&words("e"), &mut s), (0, Flow::Exit));
        assert_eq!(command(&words("\\q"), &mut s), (0, Flow::Exit));
        assert_eq!(command(&words("quit now"), &mut s), (1, Flow::Exit));
        // `q` is too short for quit and quiet alike.
        assert_eq!(command(&words("q"), &mut s), (1, Flow::Continue));
        assert_eq!(api_version(), (22, 5, 8));
    }
}
