//! sreport's reports by association, as Slurm 22.05 prints them: `cluster AccountUtilizationByUser` (the account
//! tree with each account's usage summed over everything below it, users before sub-accounts),
//! `cluster UserUtilizationByAccount` (one row a user and account, most used first) and `user TopUsage` (the
//! users who used most, one row a user and account or, with `group`, one a user). The numbers are the CPU-seconds
//! of the jobs' allocations inside the report window, attributed to the job's account and user; percentages are of
//! the cluster's allocated time, as in Slurm. I/O-free: the command fetches records and the account tree.

use std::collections::BTreeMap;

use super::sreport::{cell, header, job_cpu_secs, title_block, Column, Output, TimeFormat};
use crate::grammar::abbreviates;
use crate::model::accounting::JobAccounting;

/// CPU-seconds each (account, user) association used inside `window`; jobs without an account (other than
/// root's, which are root's), and associations that used nothing, are left out (Slurm's rollup has no row for
/// them).
pub fn assoc_usage(
    jobs: &[JobAccounting],
    window: (i64, i64),
    now: i64,
) -> BTreeMap<(String, String), u64> {
    let mut usage: BTreeMap<(String, String), u64> = BTreeMap::new();
    for job in jobs {
        // The account sacct shows: root's jobs without one are root's, as slurmdbd gives root that account.
        let account = job.account_shown();
        if account.is_empty() {
            continue;
        }
        let secs = job_cpu_secs(job, window, now);
        if secs == 0 {
            continue;
        }
        let entry = usage
            .entry((account.to_string(), job.user_name.clone()))
            .or_insert(0);
        *entry = entry.saturating_add(secs);
    }
    usage
}

/// One row of a report: an account's (user `None`) or a user's association, or a user's accounts grouped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssocRow {
    pub account: String,
    pub user: Option<String>,
    pub secs: u64,
    /// Levels below the top of the printed tree (`Tree` indents the account one space a level).
    pub depth: usize,
}

/// The users= and accounts= conditions (users already lower-cased as sreport does); empty lists select all.
#[derive(Debug, Clone, Default)]
pub struct AssocFilter {
    pub users: Vec<String>,
    pub accounts: Vec<String>,
}

impl AssocFilter {
    fn user_ok(&self, user: &str) -> bool {
        self.users.is_empty() || self.users.iter().any(|u| u == user)
    }

    fn account_ok(&self, account: &str) -> bool {
        self.accounts.is_empty() || self.accounts.iter().any(|a| a == account)
    }
}

/// The chain of `account` and the accounts above it, nearest first, from `parent_of` (`None` at the top). A loop
/// is not followed past as many steps as there are accounts with usage, so a bad tree cannot hang the report.
fn chain(account: &str, parent_of: &dyn Fn(&str) -> Option<String>, limit: usize) -> Vec<String> {
    let mut out = vec![account.to_string()];
    let mut current = account.to_string();
    while out.len() <= limit {
        match parent_of(&current) {
            Some(p) if !out.contains(&p) => {
                out.push(p.clone());
                current = p;
            }
            _ => break,
        }
    }
    out
}

/// `cluster AccountUtilizationByUser`'s rows in Slurm's hierarchical order: each account, then its users (by
/// name), then its sub-accounts (by name), each account carrying the usage of everything below it. `accounts=`
/// starts the tree at the accounts named (their sub-accounts included); `users=` keeps only those users' rows,
/// which then stand alone (no account above them was selected), ordered by user.
pub fn account_by_user(
    usage: &BTreeMap<(String, String), u64>,
    parent_of: &dyn Fn(&str) -> Option<String>,
    filter: &AssocFilter,
) -> Vec<AssocRow> {
    let limit = usage.len().saturating_add(64);
    // Each used association with its account chain, cut at the first account selected by accounts=.
    let mut chains: Vec<(&(String, String), u64, Vec<String>)> = Vec::new();
    for (key, secs) in usage {
        let full = chain(&key.0, parent_of, limit);
        let chain = if filter.accounts.is_empty() {
            full
        } else {
            match full.iter().position(|a| filter.account_ok(a)) {
                Some(i) => full[..=i].to_vec(),
                None => continue,
            }
        };
        chains.push((key, *secs, chain));
    }
    if !filter.users.is_empty() {
        let mut rows: Vec<AssocRow> = chains
            .iter()
            .filter(|(key, _, _)| filter.user_ok(&key.1))
            .map(|(key, secs, _)| AssocRow {
                account: key.0.clone(),
                user: Some(key.1.clone()),
                secs: *secs,
                depth: 0,
            })
            .collect();
        rows.sort_by(|a, b| a.user.cmp(&b.user).then(a.account.cmp(&b.account)));
        return rows;
    }
    // The tree: each account's usage summed, its children (users, sub-accounts) and the tops.
    let mut account_secs: BTreeMap<String, u64> = BTreeMap::new();
    let mut sub_accounts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut users: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
    let mut tops: Vec<String> = Vec::new();
    for (key, secs, chain) in &chains {
        for (i, account) in chain.iter().enumerate() {
            let total = account_secs.entry(account.clone()).or_insert(0);
            *total = total.saturating_add(*secs);
            match chain.get(i + 1) {
                Some(parent) => {
                    let subs = sub_accounts.entry(parent.clone()).or_default();
                    if !subs.contains(account) {
                        subs.push(account.clone());
                    }
                }
                None => {
                    if !tops.contains(account) {
                        tops.push(account.clone());
                    }
                }
            }
        }
        users
            .entry(key.0.clone())
            .or_default()
            .push((key.1.clone(), *secs));
    }
    tops.sort();
    let mut rows = Vec::new();
    let mut stack: Vec<(String, usize)> = tops.into_iter().rev().map(|a| (a, 0)).collect();
    while let Some((account, depth)) = stack.pop() {
        if rows.len() > limit.saturating_mul(2) {
            break;
        }
        rows.push(AssocRow {
            account: account.clone(),
            user: None,
            secs: account_secs.get(&account).copied().unwrap_or(0),
            depth,
        });
        if let Some(list) = users.get(&account) {
            // The usage map is ordered by (account, user), so the users come sorted.
            for (user, secs) in list {
                rows.push(AssocRow {
                    account: account.clone(),
                    user: Some(user.clone()),
                    secs: *secs,
                    depth: depth + 1,
                });
            }
        }
        if let Some(subs) = sub_accounts.get(&account) {
            let mut subs = subs.clone();
            subs.sort();
            stack.extend(subs.into_iter().rev().map(|a| (a, depth + 1)));
        }
    }
    rows
}

/// How sreport orders users (`-s`): by usage, most first, then by name (the default), or by name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UserSort {
    #[default]
    Time,
    Name,
}

fn sort_users(rows: &mut [AssocRow], sort: UserSort) {
    // A stable sort: rows equal in Slurm's comparison keep the association order they came in.
    rows.sort_by(|a, b| {
        let by_time = match sort {
            UserSort::Time => b.secs.cmp(&a.secs),
            UserSort::Name => std::cmp::Ordering::Equal,
        };
        by_time.then_with(|| a.user.cmp(&b.user))
    });
}

/// `cluster UserUtilizationByAccount`'s rows: each user's association with usage, the selected users and
/// accounts only, ordered as `sort` says.
pub fn user_by_account(
    usage: &BTreeMap<(String, String), u64>,
    filter: &AssocFilter,
    sort: UserSort,
) -> Vec<AssocRow> {
    let mut rows: Vec<AssocRow> = usage
        .iter()
        .filter(|((account, user), _)| filter.user_ok(user) && filter.account_ok(account))
        .map(|((account, user), secs)| AssocRow {
            account: account.clone(),
            user: Some(user.clone()),
            secs: *secs,
            depth: 0,
        })
        .collect();
    // Slurm lists associations by user, then account, before ordering them.
    rows.sort_by(|a, b| a.user.cmp(&b.user).then(a.account.cmp(&b.account)));
    sort_users(&mut rows, sort);
    rows
}

/// `user TopUsage`'s rows, at most `top` of them (Slurm prints one even for `TopCount=0`): a row a user and
/// account, or with `group` a row a user with its accounts joined by `, ` and their usage summed.
pub fn top_users(
    usage: &BTreeMap<(String, String), u64>,
    filter: &AssocFilter,
    group: bool,
    sort: UserSort,
    top: u32,
) -> Vec<AssocRow> {
    let mut rows = user_by_account(usage, filter, UserSort::Name);
    if group {
        let mut grouped: Vec<AssocRow> = Vec::new();
        for row in rows {
            match grouped.iter_mut().find(|g| g.user == row.user) {
                Some(g) => {
                    g.account = format!("{}, {}", g.account, row.account);
                    g.secs = g.secs.saturating_add(row.secs);
                }
                None => grouped.push(row),
            }
        }
        rows = grouped;
    }
    sort_users(&mut rows, sort);
    rows.truncate(usize::try_from(top.max(1)).unwrap_or(usize::MAX));
    rows
}

/// The name a passwd entry's GECOS gives `Proper Name`: its first comma-separated part (leading commas
/// skipped, as C's strtok does), or the whole field when it has no such part (so `,,,` prints as is).
pub fn proper_name(gecos: &str) -> String {
    gecos
        .split(',')
        .find(|part| !part.is_empty())
        .unwrap_or(gecos)
        .to_string()
}

/// Which report a row set is printed for: their default columns and field names differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssocReport {
    AccountByUser,
    UserByAccount,
    TopUsage,
    /// `cluster UserUtilizationByWckey` and `WCKeyUtilizationByUser`: Spur keeps no WCKeys, so, as Slurm
    /// without `TrackWCKey`, they have no rows.
    UserByWckey,
    WckeyByUser,
}

/// A column of the association reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssocField {
    Account,
    Cluster,
    Login,
    Proper,
    Used,
    Energy,
    TresName,
    TresCount,
    WcKey,
    /// Columns of `cluster utilization` that the cluster reports accept but have no number for: Slurm prints
    /// them empty-handed (0 in the time format).
    ClusterTime(&'static str, i32, i32),
}

impl AssocField {
    /// The field `word` names in `report`, with its shortest prefixes.
    pub fn parse(report: AssocReport, word: &str) -> Option<AssocField> {
        use AssocField::*;
        let p = |name: &str, min: usize| abbreviates(word, name, min);
        if report == AssocReport::TopUsage {
            return Some(if p("Accounts", 1) {
                Account
            } else if p("Cluster", 1) {
                Cluster
            } else if p("Energy", 1) {
                Energy
            } else if p("Login", 1) {
                Login
            } else if p("Proper", 1) {
                Proper
            } else if p("TresName", 5) {
                TresName
            } else if p("Used", 1) {
                Used
            } else {
                return None;
            });
        }
        Some(if p("Accounts", 2) {
            Account
        } else if p("allocated", 2) {
            ClusterTime("Allocated", 12, 20)
        } else if p("Cluster", 2) {
            Cluster
        } else if p("down", 1) {
            ClusterTime("Down", 10, 18)
        } else if p("idle", 1) {
            ClusterTime("Idle", 12, 20)
        } else if p("Login", 1) {
            Login
        } else if p("overcommitted", 1) {
            ClusterTime("Over Comm", 9, 18)
        } else if p("PlannedDown", 2) {
            ClusterTime("PLND Down", 10, 18)
        } else if p("Proper", 2) {
            Proper
        } else if p("reported", 3) {
            ClusterTime("Reported", 12, 20)
        } else if p("reserved", 3) || p("planned", 4) {
            ClusterTime("Planned", 9, 18)
        } else if p("TresCount", 5) || p("cpucount", 2) || p("count", 2) {
            TresCount
        } else if p("TresName", 5) {
            TresName
        } else if p("Used", 1) {
            Used
        } else if p("WCKey", 2) {
            WcKey
        } else if p("Energy", 1) {
            Energy
        } else {
            return None;
        })
    }

    fn name(self) -> &'static str {
        match self {
            AssocField::Account => "Account",
            AssocField::Cluster => "Cluster",
            AssocField::Login => "Login",
            AssocField::Proper => "Proper Name",
            AssocField::Used => "Used",
            AssocField::Energy => "Energy",
            AssocField::TresName => "TRES Name",
            AssocField::TresCount => "TRES Count",
            AssocField::WcKey => "WCKey",
            AssocField::ClusterTime(name, _, _) => name,
        }
    }

    /// The width before any `%width`, and before the usage columns are sized to their numbers.
    fn width(self, time: TimeFormat, tree: bool) -> i32 {
        let per = time.with_percent();
        match self {
            AssocField::Account if tree => -20,
            AssocField::WcKey if tree => 20,
            AssocField::Account | AssocField::Proper | AssocField::WcKey => 15,
            AssocField::Cluster | AssocField::Login => 9,
            AssocField::TresName => 14,
            AssocField::TresCount => 10,
            AssocField::Used | AssocField::Energy => {
                if per {
                    18
                } else {
                    10
                }
            }
            AssocField::ClusterTime(_, plain, with_per) => {
                if per {
                    with_per
                } else {
                    plain
                }
            }
        }
    }
}

/// `format=` of an association report: the default columns, or the named ones with an optional `%width`.
/// Unknown names are left out with Slurm's message for each.
pub fn assoc_fields(
    report: AssocReport,
    format: &[String],
) -> (Vec<(AssocField, Option<i32>)>, Vec<String>) {
    let default: &[&str] = match report {
        AssocReport::AccountByUser => &["Cluster", "Ac", "Login", "Proper", "Used", "Energy"],
        AssocReport::UserByAccount => &["Cluster", "Login", "Proper", "Ac", "Used", "Energy"],
        AssocReport::TopUsage => &["Cl", "L", "P", "A", "U", "Energy"],
        AssocReport::UserByWckey => &["Cluster", "Login", "Proper", "WCkey", "Used"],
        AssocReport::WckeyByUser => &["Cluster", "WCKey", "Login", "Proper", "Used"],
    };
    let words: Vec<String> = if format.is_empty() {
        default.iter().map(|w| w.to_string()).collect()
    } else {
        format.to_vec()
    };
    let mut fields = Vec::new();
    let mut unknown = Vec::new();
    for w in &words {
        let (name, width) = match w.split_once('%') {
            Some((n, rest)) => (n, Some(crate::grammar::options::error::atoi(rest))),
            None => (w.as_str(), None),
        };
        match AssocField::parse(report, name) {
            Some(f) => fields.push((f, width.filter(|n| *n != 0))),
            None => unknown.push(format!(" Unknown field '{name}'")),
        }
    }
    (fields, unknown)
}

/// The title block of these reports: a rule, `<report> <start> - <end - 1s> (<secs> secs)`, the unit line, a
/// rule. Empty with `-n`.
pub fn title_with_secs(report: &str, window: (i64, i64), offset: i32, out: Output) -> String {
    let secs = format!(" ({} secs)", window.1.saturating_sub(window.0));
    title_block(report, &secs, window, offset, out)
}

/// What the rows are printed with: the cluster's name and allocated CPU-seconds (the percentages' base), and
/// each user's proper name.
pub struct AssocPrint<'a> {
    pub cluster: &'a str,
    pub cluster_allocated: u64,
    pub proper: &'a dyn Fn(&str) -> Option<String>,
    pub tree: bool,
}

/// An association report after its title: the column header, then the rows (`None`: the cluster has no hour of
/// the window recorded, and Slurm prints the header alone). The usage column is sized to the first row's usage
/// (the top of the tree, or the user who used most), or with no row to the cluster's allocated time, as Slurm
/// sizes it, over any `%width`.
pub fn assoc_report(
    rows: Option<&[AssocRow]>,
    fields: &[(AssocField, Option<i32>)],
    print: &AssocPrint,
    out: Output,
) -> String {
    let first = rows.map_or(0, |r| r.first().map_or(print.cluster_allocated, |r| r.secs));
    let columns: Vec<Column> = fields
        .iter()
        .map(|(f, width)| {
            let width = match f {
                AssocField::Used => out.time.column_width(first) as i32,
                AssocField::Energy => out.time.column_width(0) as i32,
                _ => width.unwrap_or_else(|| f.width(out.time, print.tree)),
            };
            Column {
                name: f.name(),
                width,
            }
        })
        .collect();
    let mut text = if out.header {
        header(&columns, out.layout)
    } else {
        String::new()
    };
    let Some(rows) = rows else {
        return text;
    };
    for row in rows {
        for (i, ((f, _), c)) in fields.iter().zip(&columns).enumerate() {
            let value = match f {
                // Slurm's tree names: one space a level, a user's row its account one level deeper.
                AssocField::Account if print.tree => {
                    format!("{}{}", " ".repeat(row.depth), row.account)
                }
                AssocField::Account => row.account.clone(),
                AssocField::Cluster => print.cluster.to_string(),
                AssocField::Login => row.user.clone().unwrap_or_default(),
                AssocField::Proper => row
                    .user
                    .as_deref()
                    .and_then(|u| (print.proper)(u))
                    .unwrap_or_default(),
                AssocField::Used => out.time.render(row.secs, print.cluster_allocated),
                AssocField::Energy | AssocField::ClusterTime(..) => out.time.render(0, 0),
                AssocField::TresName => "cpu".to_string(),
                AssocField::TresCount | AssocField::WcKey => String::new(),
            };
            cell(
                &mut text,
                &value,
                c.width,
                i + 1 == fields.len(),
                out.layout,
            );
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
#[path = "sreport_assoc_tests.rs"]
mod tests;
