//! sreport's reports by association: `cluster AccountUtilizationByUser`, `cluster UserUtilizationByAccount` and
//! `user TopUsage`. Their conditions as Slurm 22.05 reads them (a bare word names a user, `users=` lower-cased,
//! `accounts=`, `clusters=`, `start=`/`end=`, `format=`, `tree`, `group`, `TopCount=`), the records and the
//! account tree from the controller, the arithmetic and layout in `spur_core::format::sreport_assoc`.

use spur_core::format::sreport::{job_cpu_secs, report_window};
use spur_core::format::sreport_assoc::{
    account_by_user, assoc_fields, assoc_report, assoc_usage, proper_name, title_with_secs,
    top_users, user_by_account, AssocFilter, AssocPrint, AssocReport, AssocRow,
};
use spur_core::grammar::abbreviates;
use spur_core::grammar::values::begin::parse_time;
use spur_core::model::assoc::AcctDb;
use spur_core::wire::api::{Query, QueryReply};

use super::sreport::{connect_and_load, covered_window, names_cluster, Settings};
use crate::client::Client;

/// What a report's words asked for.
#[derive(Default)]
struct Conditions {
    start: Option<i64>,
    end: Option<i64>,
    format: Vec<String>,
    clusters: Vec<String>,
    all_clusters: bool,
    filter: AssocFilter,
    tree: bool,
    group: bool,
    top: Option<u32>,
    /// An unknown condition or a bad TopCount sets the exit code; the report is printed anyway, as in Slurm.
    failed: bool,
}

/// Adds the comma-separated names of `text` to `list`, once each (compared without case), as Slurm's list
/// parser does; `lower` lower-cases them first (user names).
fn add_names(list: &mut Vec<String>, text: &str, lower: bool) {
    for name in text.split(',').filter(|w| !w.is_empty()) {
        let name = if lower {
            name.to_lowercase()
        } else {
            name.to_string()
        };
        if !list.iter().any(|n| n.eq_ignore_ascii_case(&name)) {
            list.push(name);
        }
    }
}

/// `TopCount=`'s number as Slurm's `get_uint` reads it: C `strtol` (leading blanks, a sign, digits, the rest
/// ignored); text with no number is refused, a negative number means no limit.
fn top_count(text: &str) -> Option<u32> {
    let t = text.trim_start_matches(|c: char| c.is_ascii_whitespace());
    let (negative, unsigned) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let count = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    // strtol saturates at the long range; the value is then cast to 32 bits, as Slurm casts it.
    let value = if count == 0 {
        0
    } else {
        unsigned[..count].parse::<i64>().unwrap_or(i64::MAX)
    };
    // Slurm refuses only a zero followed by something (no digits at all leaves the whole text unread).
    let unread = if count == 0 { text } else { &unsigned[count..] };
    if value == 0 && !unread.is_empty() {
        return None;
    }
    if negative && value != 0 {
        return Some(u32::MAX);
    }
    Some(value as u32)
}

fn conditions(report: AssocReport, words: &[String], settings: &Settings) -> Conditions {
    let mut c = Conditions::default();
    let now = settings.now;
    let time = |text: &str| match parse_time(text, now, true) {
        Ok(0) => None,
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("{e}");
            None
        }
    };
    let top = report == AssocReport::TopUsage;
    if matches!(report, AssocReport::UserByWckey | AssocReport::WckeyByUser) {
        return wckey_conditions(words, time);
    }
    for word in words {
        let Some((name, value)) = word.split_once('=') else {
            if abbreviates(word, "all_clusters", 1) {
                c.all_clusters = true;
            } else if top && abbreviates(word, "group", 1) {
                c.group = true;
            } else if !top && abbreviates(word, "Tree", 4) {
                c.tree = true;
            } else {
                add_names(&mut c.filter.users, word, true);
            }
            continue;
        };
        // The cluster reports take one more `=` (`start==x`), as Slurm's reading of them does.
        let value = if top {
            value
        } else {
            value.strip_prefix('=').unwrap_or(value)
        };
        if abbreviates(name, "Users", 1) {
            add_names(&mut c.filter.users, value, true);
        } else if abbreviates(name, "Accounts", 2) || abbreviates(name, "Acct", 4) {
            add_names(&mut c.filter.accounts, value, false);
        } else if abbreviates(name, "Clusters", 1) {
            add_names(&mut c.clusters, value, false);
        } else if abbreviates(name, "End", 1) {
            c.end = time(value);
        } else if abbreviates(name, "Format", 1) {
            // An empty `format=` adds one empty (hence unknown) field, as Slurm's list parser does.
            let before = c.format.len();
            c.format.extend(
                value
                    .split(',')
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
            if c.format.len() == before && value.is_empty() {
                c.format.push(String::new());
            }
        } else if abbreviates(name, "Start", 1) {
            c.start = time(value);
        } else if top && abbreviates(name, "TopCount", 1) {
            match top_count(value) {
                Some(n) => c.top = Some(n),
                None => {
                    c.failed = true;
                    eprintln!("sreport: error: Invalid value for TopCount ({value})");
                }
            }
        } else {
            c.failed = true;
            eprintln!(" Unknown condition: {word}\nUse keyword set to modify value");
        }
    }
    c
}

/// The WCKey reports' conditions, as Slurm reads them: a bare word or `wckeys=` names WCKeys, `withdeleted`,
/// `clusters=` (from `clu`), `user=`; an unknown one is refused with one line. Spur keeps no WCKeys, so the names
/// select nothing more than Slurm without `TrackWCKey` has.
fn wckey_conditions(words: &[String], time: impl Fn(&str) -> Option<i64>) -> Conditions {
    let mut c = Conditions::default();
    let mut wckeys = Vec::new();
    for word in words {
        let Some((name, value)) = word.split_once('=') else {
            if abbreviates(word, "all_clusters", 1) {
                c.all_clusters = true;
            } else if !abbreviates(word, "withdeleted", 5) {
                add_names(&mut wckeys, word, false);
            }
            continue;
        };
        let value = value.strip_prefix('=').unwrap_or(value);
        if abbreviates(name, "WCKeys", 3) {
            add_names(&mut wckeys, value, false);
        } else if abbreviates(name, "Clusters", 3) {
            add_names(&mut c.clusters, value, false);
        } else if abbreviates(name, "End", 1) {
            c.end = time(value);
        } else if abbreviates(name, "Format", 1) {
            let before = c.format.len();
            c.format.extend(
                value
                    .split(',')
                    .filter(|w| !w.is_empty())
                    .map(str::to_string),
            );
            if c.format.len() == before && value.is_empty() {
                c.format.push(String::new());
            }
        } else if abbreviates(name, "Start", 1) {
            c.start = time(value);
        } else if abbreviates(name, "User", 1) {
            add_names(&mut c.filter.users, value, true);
        } else {
            c.failed = true;
            eprintln!(" Unknown condition: {word}");
        }
    }
    c
}

/// Runs one of the association reports; returns the exit code.
pub(super) fn run(report: AssocReport, words: &[String], settings: &Settings) -> u8 {
    let now = settings.now;
    let cond = conditions(report, words, settings);
    let (fields, unknown) = assoc_fields(report, &cond.format);
    for message in &unknown {
        eprintln!("{message}");
    }
    let window = report_window(cond.start, cond.end, now.epoch_secs, now.utc_offset_secs);
    let (client, (nodes, records, cluster)) = match connect_and_load(window) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let wanted = names_cluster(cond.all_clusters, &cond.clusters, &cluster);
    let covered = wanted
        .then(|| covered_window(&nodes, &records, window, now.epoch_secs))
        .flatten();
    let db = if report == AssocReport::AccountByUser && covered.is_some() {
        match account_tree(&client) {
            Ok(db) => Some(db),
            Err(e) => {
                eprintln!("sreport: error: Problem talking to the database: {e}");
                return 1;
            }
        }
    } else {
        None
    };
    let top = cond.top.unwrap_or(10);
    let rows: Option<Vec<AssocRow>> = covered.map(|covered| {
        let usage = assoc_usage(&records, covered, now.epoch_secs);
        match report {
            AssocReport::AccountByUser => {
                let parent_of = |account: &str| {
                    db.as_ref()
                        .and_then(|db| db.account_assoc(account))
                        .and_then(|a| a.parent.clone())
                };
                account_by_user(&usage, &parent_of, &cond.filter)
            }
            AssocReport::UserByAccount => user_by_account(&usage, &cond.filter, settings.sort),
            AssocReport::TopUsage => {
                top_users(&usage, &cond.filter, cond.group, settings.sort, top)
            }
            AssocReport::UserByWckey | AssocReport::WckeyByUser => Vec::new(),
        }
    });
    // The percentages are of the cluster's allocated time: every job's, whichever rows the conditions keep.
    let allocated = covered.map_or(0, |covered| {
        records
            .iter()
            .map(|r| job_cpu_secs(r, covered, now.epoch_secs))
            .fold(0u64, u64::saturating_add)
    });
    let heading = match report {
        AssocReport::AccountByUser => "Cluster/Account/User Utilization".to_string(),
        AssocReport::UserByAccount => "Cluster/User/Account Utilization".to_string(),
        AssocReport::TopUsage => format!("Top {top} Users"),
        AssocReport::UserByWckey => "Cluster/User/WCKey Utilization".to_string(),
        AssocReport::WckeyByUser => "Cluster/WCKey/User Utilization".to_string(),
    };
    let proper = |user: &str| {
        nix::unistd::User::from_name(user)
            .ok()
            .flatten()
            .map(|u| proper_name(&u.gecos.to_string_lossy()))
    };
    let print = AssocPrint {
        cluster: &cluster,
        cluster_allocated: allocated,
        proper: &proper,
        tree: cond.tree,
    };
    print!(
        "{}{}",
        title_with_secs(&heading, window, now.utc_offset_secs, settings.out),
        assoc_report(rows.as_deref(), &fields, &print, settings.out)
    );
    u8::from(cond.failed || !unknown.is_empty())
}

/// The accounts and their parents (`sacctmgr show`'s query).
fn account_tree(client: &Client) -> Result<AcctDb, String> {
    match client.query(&Query::AcctDb) {
        Ok(QueryReply::AcctDb { db }) => Ok(db),
        Ok(_) => Err("Unexpected message received".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::top_count;

    #[test]
    fn top_count_as_strtol_reads_it() {
        assert_eq!(top_count("5"), Some(5));
        assert_eq!(top_count(" 7x"), Some(7));
        assert_eq!(top_count("abc"), None);
        assert_eq!(top_count(""), Some(0));
        assert_eq!(top_count("-3"), Some(u32::MAX));
        assert_eq!(top_count("4294967296"), Some(0));
        assert_eq!(top_count("0x"), None);
        assert_eq!(top_count("00"), Some(0));
        assert_eq!(top_count(" "), None);
        assert_eq!(top_count("-"), None);
    }
}
