//! sacctmgr's flat file (`sacctmgr dump CLUSTER file=F`, read back by `sacctmgr load file=F`): the lines a
//! dump writes from the accounting entities, and the reading of a file into objects and options as sacctmgr 22.05
//! reads it (comments, continuations, escapes, quotes, lower case). The load's plan is in `sacctmgr_load`.

use crate::model::assoc::{AcctDb, AdminLevel, Association, ROOT_ACCOUNT};

/// The comment block every dump starts with (sacctmgr writes it verbatim; `load` skips it as comments).
pub const DUMP_HEADER: &str = "# To edit this file start with a cluster line for the new cluster\n\
# Cluster - 'cluster_name':MaxTRESPerJob=node=50\n\
# Followed by Accounts you want in this fashion (root is created by default)...\n\
# Parent - 'root'\n\
# Account - 'cs':MaxTRESPerJob=node=5:MaxJobs=4:MaxTRESMinsPerJob=cpu=20:FairShare=399:MaxWallDurationPerJob=40:Description='Computer Science':Organization='LC'\n\
# Any of the options after a ':' can be left out and they can be in any order.\n\
# If you want to add any sub accounts just list the Parent THAT HAS ALREADY\n\
# BEEN CREATED before the account line in this fashion...\n\
# Parent - 'cs'\n\
# Account - 'test':MaxTRESPerJob=node=1:MaxJobs=1:MaxTRESMinsPerJob=cpu=1:FairShare=1:MaxWallDurationPerJob=1:Description='Test Account':Organization='Test'\n\
# To add users to a account add a line like this after a Parent - 'line'\n\
# User - 'lipari':MaxTRESPerJob=node=2:MaxJobs=3:MaxTRESMinsPerJob=cpu=4:FairShare=1:MaxWallDurationPerJob=1\n";

/// The lines of a dump after [`DUMP_HEADER`] (each also logged by sacctmgr on stderr): the cluster line with
/// root's settings, then for each account with children a `Parent` line and its children (users first, then
/// sub-accounts, each by name), depth first.
pub fn dump_lines(db: &AcctDb, cluster: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = format!("Cluster - '{cluster}'");
    if let Some(root) = db.account_assoc(ROOT_ACCOUNT) {
        line.push_str(&settings(db, root, None));
    }
    out.push(line);
    emit(db, ROOT_ACCOUNT, &mut out, 0);
    out
}

/// The associations directly under `account`: its users' (by user, then partition), then its sub-accounts' (by
/// name), as slurmdbd's hierarchy sorts them.
fn children<'a>(db: &'a AcctDb, account: &str) -> Vec<&'a Association> {
    let mut users: Vec<&Association> = db
        .assocs
        .iter()
        .filter(|a| a.account == account && a.user.is_some())
        .collect();
    users.sort_by(|a, b| (&a.user, &a.partition).cmp(&(&b.user, &b.partition)));
    let mut accounts: Vec<&Association> = db
        .assocs
        .iter()
        .filter(|a| a.user.is_none() && a.parent.as_deref() == Some(account))
        .collect();
    accounts.sort_by(|a, b| a.account.cmp(&b.account));
    users.extend(accounts);
    users
}

fn emit(db: &AcctDb, account: &str, out: &mut Vec<String>, depth: usize) {
    // A parent loop cannot be made through sacctmgr; the bound keeps a damaged state from recursing for ever.
    if depth > db.accounts.len() {
        return;
    }
    let kids = children(db, account);
    if kids.is_empty() {
        return;
    }
    out.push(format!("Parent - '{account}'"));
    let above = db.account_assoc(account);
    for kid in &kids {
        out.push(child_line(db, kid, above));
    }
    for kid in kids.iter().filter(|k| k.user.is_none()) {
        emit(db, &kid.account, out, depth + 1);
    }
}

fn child_line(db: &AcctDb, assoc: &Association, above: Option<&Association>) -> String {
    let mut line = match &assoc.user {
        Some(user) => {
            let mut line = format!("User - '{user}'");
            if let Some(p) = &assoc.partition {
                line.push_str(&format!(":Partition='{p}'"));
            }
            if let Some(record) = db.users.get(user) {
                line.push_str(&format!(":DefaultAccount='{}'", record.default_account));
                if record.admin != AdminLevel::None {
                    line.push_str(&format!(":AdminLevel='{}'", record.admin.name()));
                }
            }
            line
        }
        None => {
            let mut line = format!("Account - '{}'", assoc.account);
            if let Some(record) = db.accounts.get(&assoc.account) {
                line.push_str(&format!(
                    ":Description='{}':Organization='{}'",
                    record.description, record.organization
                ));
            }
            line
        }
    };
    line.push_str(&settings(db, assoc, above));
    line
}

/// The association's own settings in sacctmgr's order. slurmdbd keeps a default QOS only where one was given
/// (the rest inherit it): Spur writes the ones given (`default_qos_given`), and, for entities from before that
/// flag, the ones that differ from the parent's. The QOS list is slurmdbd's own list or changes
/// ([`AcctDb::dump_qos`]).
fn settings(db: &AcctDb, assoc: &Association, above: Option<&Association>) -> String {
    let mut s = String::new();
    if let Some(q) = &assoc.default_qos {
        if assoc.default_qos_given || above.is_none_or(|p| p.default_qos.as_ref() != Some(q)) {
            s.push_str(&format!(":DefaultQOS='{q}'"));
        }
    }
    s.push_str(&format!(":Fairshare={}", assoc.shares));
    let l = &assoc.limits;
    if let Some(v) = &l.grp_tres {
        s.push_str(&format!(":GrpTRES={v}"));
    }
    if let Some(v) = l.grp_jobs {
        s.push_str(&format!(":GrpJobs={v}"));
    }
    if let Some(v) = l.grp_submit {
        s.push_str(&format!(":GrpSubmitJobs={v}"));
    }
    if let Some(v) = &l.max_tres {
        s.push_str(&format!(":MaxTRESPerJob={v}"));
    }
    if let Some(v) = l.max_jobs {
        s.push_str(&format!(":MaxJobs={v}"));
    }
    if let Some(v) = l.max_submit {
        s.push_str(&format!(":MaxSubmitJobs={v}"));
    }
    if let Some(v) = l.max_wall_min {
        s.push_str(&format!(":MaxWallDurationPerJob={v}"));
    }
    if let Some(qos) = db.dump_qos(assoc) {
        s.push_str(&format!(":QOS='{qos}'"));
    }
    s
}

/// One logical line of a file: its text (comments, continuations and escapes resolved, the newline kept as
/// sacctmgr keeps it) and the number of the last physical line it took.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileLine {
    pub number: usize,
    pub text: String,
}

/// The file's logical lines as sacctmgr reads them: everything after an unescaped `#` is a comment; a line
/// ending in an odd number of backslashes (spaces after them allowed) goes on with the next; then each `\X`
/// becomes `X`.
pub fn logical_lines(text: &str) -> Vec<FileLine> {
    let mut out = Vec::new();
    let mut physical = text.split_inclusive('\n');
    let mut number = 0;
    loop {
        let mut buf = String::new();
        let mut took = 0;
        for raw in physical.by_ref() {
            took += 1;
            let part = crate::grammar::conf::lexer::strip_comment(raw);
            match continuation(part) {
                Some(kept) => buf.push_str(kept),
                None => {
                    buf.push_str(part);
                    break;
                }
            }
        }
        if took == 0 {
            break;
        }
        number += took;
        out.push(FileLine {
            number,
            text: crate::grammar::conf::lexer::strip_escapes(&buf),
        });
    }
    out
}

/// The line without its continuation backslash when it ends (blanks aside) in an odd run of them: the same rule
/// as slurm.conf's lines (grammar/conf/lexer.rs).
fn continuation(line: &str) -> Option<&str> {
    crate::grammar::conf::lexer::continuation_cut(line).and_then(|cut| line.get(..cut))
}

/// A line split as sacctmgr splits it: the object before the first `-` and the options after the space that
/// follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Split<'a> {
    /// No object (no `-`, or nothing before it): the line is skipped.
    Skip,
    /// Nothing after the object: sacctmgr's `Nothing after object name`.
    NothingAfter(String),
    Object {
        object: String,
        options: &'a str,
    },
}

pub fn split_object(line: &str) -> Split<'_> {
    let Some(dash) = line.find('-') else {
        return Split::Skip;
    };
    let object_end = if dash > 0 && line.as_bytes()[dash - 1] == b' ' {
        dash - 1
    } else {
        dash
    };
    // sacctmgr keeps at most 24 characters of the object.
    let object = if object_end < 25 {
        line[..object_end].to_string()
    } else {
        String::new()
    };
    if object.is_empty() {
        return Split::Skip;
    }
    match line[dash..].find(' ') {
        Some(space) => Split::Object {
            object,
            options: &line[dash + space + 1..],
        },
        None => Split::NothingAfter(object),
    }
}

/// One `key=value` of a line (or the name, with no key); the value unquoted and lower-cased as sacctmgr does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opt {
    /// The whole text, for messages (`Unknown option: X`).
    pub text: String,
    /// `None`: the name.
    pub key: Option<String>,
    pub value: String,
}

/// Why a line's options could not be read: sacctmgr's message (stderr) and whether it ends the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptError {
    Message(String),
    /// A quote left open: sacctmgr's `fatal`, which exits at once.
    Fatal(String),
}

/// The options of a line, split at `:` outside quotes, up to the end of the line.
pub fn split_options(options: &str) -> Result<Vec<Opt>, OptError> {
    let bytes = options.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let mut quote: Option<u8> = None;
        while i < bytes.len() && bytes[i] != b':' && bytes[i] != b'\n' {
            if bytes[i] == b'"' || bytes[i] == b'\'' {
                match quote {
                    Some(q) if q == bytes[i] => quote = None,
                    Some(_) => {}
                    None => quote = Some(bytes[i]),
                }
            }
            i += 1;
        }
        if let Some(q) = quote {
            while i < bytes.len() && bytes[i] != q {
                i += 1;
            }
            if i >= bytes.len() {
                return Err(OptError::Fatal(
                    "There is a problem with option (null) with quotes.".into(),
                ));
            }
            i += 1;
        }
        if i > start {
            let sub = &options[start..i.min(options.len())];
            out.push(opt(sub));
        }
        if i < bytes.len() && bytes[i] == b':' {
            i += 1;
        } else {
            break;
        }
    }
    Ok(out)
}

fn opt(sub: &str) -> Opt {
    // The key ends at `=`, `+=` or `-=`.
    let bytes = sub.as_bytes();
    let mut end = None;
    for i in 0..bytes.len() {
        let next_is_eq = bytes.get(i + 1) == Some(&b'=');
        if bytes[i] == b'=' || ((bytes[i] == b'+' || bytes[i] == b'-') && next_is_eq) {
            end = Some(i);
            break;
        }
    }
    let (key, rest) = match end {
        None => (None, sub),
        Some(e) => {
            let skip = if bytes[e] == b'=' { 1 } else { 2 };
            (Some(sub[..e].to_string()), &sub[e + skip..])
        }
    };
    Opt {
        text: sub.to_string(),
        key,
        value: strip_quotes(rest),
    }
}

/// sacctmgr's `strip_quotes` with lower case: leading spaces and one opening quote go, the value ends at the
/// next quote.
fn strip_quotes(value: &str) -> String {
    let v = value.trim_start_matches(' ');
    let v = v.strip_prefix(['"', '\'']).unwrap_or(v);
    let end = v.find(['"', '\'']).unwrap_or(v.len());
    v[..end].to_ascii_lowercase()
}

/// Whether `key` names `word` as sacctmgr matches keys: a prefix of it, case aside, at least `min` long.
pub fn key_is(key: &str, word: &str, min: usize) -> bool {
    key.len() >= min
        && key.len() <= word.len()
        && word.as_bytes()[..key.len()].eq_ignore_ascii_case(key.as_bytes())
}

#[cfg(test)]
#[path = "sacctmgr_file_tests.rs"]
mod tests;
