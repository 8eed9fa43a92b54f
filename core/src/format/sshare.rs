//! `sshare`: the associations' shares, usage and fair-share factors in Slurm 22.05's layouts (default, `-l`,
//! `-m`, `-o`, `-p`/`-P`, `-n`, `-e`), from the rows [`crate::policy::fair_tree::shares`] computes.

use std::collections::BTreeMap;

use crate::format::print_fields::{self, Column, Layout};
use crate::policy::fair_tree::AssocShare;
use crate::policy::fairshare::TresRunMins;

/// Every field `-o` takes, in `-e`'s order, with its default width (negative: left-justified).
pub const FIELDS: &[(&str, i32)] = &[
    ("Account", -20),
    ("Cluster", 10),
    ("EffectvUsage", 13),
    ("FairShare", 10),
    ("GrpTRESMins", 30),
    ("GrpTRESRaw", 30),
    ("ID", 6),
    ("LevelFS", 10),
    ("NormShares", 11),
    ("NormUsage", 11),
    ("Partition", 12),
    ("RawShares", 10),
    ("RawUsage", 11),
    ("TRESRunMins", 30),
    ("User", 10),
];

/// What to show and how.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SshareOptions {
    /// `-a`: every user's associations (else only the caller's, unless `-u`).
    pub all: bool,
    /// `-A`: only these accounts and their users.
    pub accounts: Option<Vec<String>>,
    /// `-u`: only these users.
    pub users: Option<Vec<String>>,
    /// `-U`: only user associations, without the tree's indentation.
    pub users_only: bool,
    /// `-l`: NormUsage, LevelFS, GrpTRESMins and TRESRunMins too.
    pub long: bool,
    /// `-m`: the Partition column.
    pub partition: bool,
    pub noheader: bool,
    pub layout: Layout,
    /// The user sshare runs as: the users shown without `-a` or `-u`.
    pub caller: String,
    /// ClusterName, for the Cluster field.
    pub cluster: String,
    /// `PriorityFlags=NO_FAIR_TREE`: `-l` has no LevelFS.
    pub classic: bool,
}

/// `-e`: the fields four to a line, each padded to 18 (the last of a line to 17).
pub fn help_format() -> String {
    let mut out = String::new();
    for row in FIELDS.chunks(4) {
        for (name, _) in row {
            out.push_str(&format!("{name:<18}"));
        }
        out.pop();
        out.push('\n');
    }
    out
}

/// The columns without `-o`.
pub fn default_columns(options: &SshareOptions) -> Vec<Column> {
    let mut names = vec!["Account", "User"];
    if options.partition {
        names.push("Partition");
    }
    names.extend(["RawShares", "NormShares", "RawUsage"]);
    if options.long {
        names.push("NormUsage");
    }
    names.extend(["EffectvUsage", "FairShare"]);
    if options.long && !options.classic {
        names.push("LevelFS");
    }
    if options.long {
        names.extend(["GrpTRESMins", "TRESRunMins"]);
    }
    names.into_iter().filter_map(|n| column(n, None)).collect()
}

fn column(name: &str, width: Option<i32>) -> Option<Column> {
    let lower = name.to_ascii_lowercase();
    FIELDS
        .iter()
        .find(|(field, _)| field.to_ascii_lowercase().starts_with(&lower))
        .map(|(field, default)| Column {
            name: field,
            width: width.unwrap_or(*default),
        })
}

/// `-o NAME[%WIDTH],...`: names are case-insensitive and may be shortened; `%N` right-justifies to N, `%-N`
/// left-justifies. An unknown name is sshare's error text.
pub fn parse_format(text: &str) -> Result<Vec<Column>, String> {
    text.split(',')
        .filter(|f| !f.trim().is_empty())
        .map(|field| {
            let (name, width) = match field.split_once('%') {
                Some((name, width)) => (name, width.trim().parse::<i32>().ok()),
                None => (field, None),
            };
            let name = name.trim();
            if name.is_empty() {
                return Err(format!("Invalid field requested: \"{field}\""));
            }
            column(name, width).ok_or_else(|| format!("Invalid field requested: \"{name}\""))
        })
        .collect()
}

/// The rows shown and each one's indentation: without `-A` the whole tree, with it the chosen accounts (indented
/// from the shallowest of them); user rows only of the chosen users.
pub fn select<'a>(rows: &'a [AssocShare], options: &SshareOptions) -> Vec<(&'a AssocShare, usize)> {
    let user_shown = |user: &str| match &options.users {
        Some(list) => list.iter().any(|u| u == user),
        None => options.all || user == options.caller,
    };
    let account_shown = |account: &str| {
        options
            .accounts
            .as_ref()
            .is_none_or(|list| list.iter().any(|a| a == account))
    };
    let chosen: Vec<&AssocShare> = rows
        .iter()
        .filter(|r| account_shown(&r.account))
        .filter(|r| match &r.user {
            Some(user) => user_shown(user),
            None => !options.users_only,
        })
        .collect();
    let top = chosen.iter().map(|r| r.depth).min().unwrap_or(0);
    chosen
        .into_iter()
        .map(|r| {
            let indent = if options.users_only { 0 } else { r.depth - top };
            (r, indent)
        })
        .collect()
}

/// The whole output.
pub fn render(
    rows: &[AssocShare],
    run_mins: &BTreeMap<String, TresRunMins>,
    columns: &[Column],
    options: &SshareOptions,
) -> String {
    let mut out = String::new();
    if !options.noheader {
        out.push_str(&print_fields::header(columns, options.layout, "|"));
    }
    for (row, indent) in select(rows, options) {
        let values: Vec<String> = columns
            .iter()
            .map(|c| value(row, indent, c, run_mins, options))
            .collect();
        out.push_str(&print_fields::line(columns, &values, options.layout, "|"));
    }
    out
}

fn value(
    row: &AssocShare,
    indent: usize,
    column: &Column,
    run_mins: &BTreeMap<String, TresRunMins>,
    options: &SshareOptions,
) -> String {
    let fits = (options.layout == Layout::Columns).then(|| column.width.unsigned_abs() as usize);
    let number = |v: f64| double(v, fits);
    let is_root = row.raw_shares.is_none();
    match column.name {
        "Account" => format!("{}{}", " ".repeat(indent), row.account),
        "Cluster" => options.cluster.clone(),
        "EffectvUsage" => number(row.effective_usage),
        "FairShare" => row.fairshare.map(number).unwrap_or_default(),
        "LevelFS" => row.level_fs.map(number).unwrap_or_default(),
        "NormShares" => number(row.norm_shares),
        "NormUsage" if is_root => String::new(),
        "NormUsage" => number(row.norm_usage),
        "Partition" => row.partition.clone().unwrap_or_default(),
        "RawShares" => row.raw_shares.map(|s| s.to_string()).unwrap_or_default(),
        // Slurm prints the usage as a whole number, cut.
        "RawUsage" => format!("{}", row.raw_usage.max(0.0).trunc() as u64),
        "TRESRunMins" => run_mins.get(&row.key).copied().unwrap_or_default().text(),
        "User" => row.user.clone().unwrap_or_default(),
        // Not kept: association ids, TRES-minute limits and usage per TRES.
        _ => String::new(),
    }
}

/// A number as Slurm's `print_fields` prints a double: six decimals, or `1.234567e-01` where that is wider than
/// the column.
fn double(v: f64, width: Option<usize>) -> String {
    let plain = format!("{v:.6}");
    match width {
        Some(w) if plain.len() > w && v.is_finite() => c_exponent(v),
        _ if v.is_infinite() => "inf".to_string(),
        _ => plain,
    }
}

/// C's `%e`: a sign and at least two exponent digits.
fn c_exponent(v: f64) -> String {
    let text = format!("{v:.6e}");
    match text.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => text,
    }
}

#[cfg(test)]
#[path = "sshare_tests.rs"]
mod tests;
