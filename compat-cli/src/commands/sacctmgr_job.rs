//! `sacctmgr modify job [where] COND... set FIELD=VALUE...`: edits jobs' accounting records (docs/accounting.md,
//! "Editing job records") with sacctmgr 22.05's words, messages and exit codes. Conditions: `JobID=`, `Users=`,
//! `Accounts=` (and `Cluster=`, `StartTime=`, `EndTime=`, `WCKeys=`, accepted as sacctmgr accepts them); settings:
//! `DerivedExitCode=`/`DerivedEC=`, `Comment=`/`DerivedExitString=`/`DerivedES=`, `AdminComment=`,
//! `SystemComment=`, `NewWCKey=`. The controller first answers which jobs the edit changes (or why it may not be
//! made), sacctmgr lists them and asks, and only then is the edit committed — the same two steps
//! `slurmdb_job_modify` and `slurmdb_connection_commit` take in libspur_compat.

use spur_core::model::job_edit::JobEditRequest;
use spur_core::wire::api::{ApiError, ControlRequest, Query, QueryReply, SlurmErrno};

use crate::client::ClientError;

/// The parsed command line.
#[derive(Debug, Default)]
struct Parsed {
    request: JobEditRequest,
    cond_set: bool,
    rec_set: bool,
    failed: bool,
}

/// Slurm's `parse_option_end`: the key's length and where the value starts (`key=v`, `key+=v`, `key-=v`); `None`
/// without an `=`.
fn option_end(word: &str) -> Option<(usize, usize)> {
    let b = word.as_bytes();
    let at = (0..b.len()).find(|&i| {
        b[i] == b'=' || ((b[i] == b'+' || b[i] == b'-') && b.get(i + 1) == Some(&b'='))
    })?;
    let value = if b[at] == b'=' { at + 1 } else { at + 2 };
    Some((at, value))
}

/// `xstrncasecmp(word, full, max(len, min))` as sacctmgr compares keywords: `key` (its first `len` bytes) is
/// `full` or a prefix of it at least `min` long.
fn keyword(key: &str, full: &str, min: usize) -> bool {
    key.len() >= min
        && full
            .get(..key.len())
            .is_some_and(|f| f.eq_ignore_ascii_case(key))
}

/// sacctmgr's `strip_quotes(value, NULL, 1)`: a leading quote runs to its match, other quotes become backquotes,
/// and the text is lowered.
fn strip_quotes(value: &str) -> String {
    let mut chars = value.chars().peekable();
    let quote = match chars.peek() {
        Some(&q) if q == '"' || q == '\'' => {
            chars.next();
            Some(q)
        }
        _ => None,
    };
    let mut out = String::new();
    for c in chars {
        if Some(c) == quote {
            break;
        }
        if c == '"' || c == '\'' {
            out.push('`');
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// `strtol` on the value's leading digits: the number and whether anything came before junk.
fn strtol(text: &str) -> (i64, bool) {
    let t = text.trim_start();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let n: String = digits.chars().take_while(char::is_ascii_digit).collect();
    let junk = n.len() < digits.len() || n.is_empty();
    let v = n
        .parse::<i64>()
        .unwrap_or(if n.is_empty() { 0 } else { i64::MAX });
    (if neg { -v } else { v }, junk)
}

/// The job ids of `JobID=` (`J`, `J.S`, `J_T`, comma-separated): `None` after sacctmgr's fatal error.
fn job_ids(value: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for item in value.split(',').filter(|s| !s.is_empty()) {
        if !item.as_bytes()[0].is_ascii_digit() {
            eprintln!("sacctmgr: fatal: Bad job/step specified: {item}");
            return None;
        }
        let digits: String = item.chars().take_while(char::is_ascii_digit).collect();
        let id = digits.parse::<u32>().unwrap_or(u32::MAX);
        if !out.contains(&id) {
            out.push(id);
        }
    }
    Some(out)
}

/// `where` conditions from `words[*at..]` up to `set`; `Err` when sacctmgr exits at once.
fn set_cond(words: &[String], at: &mut usize, p: &mut Parsed) -> Result<(), u8> {
    while *at < words.len() {
        let word = &words[*at];
        let (key, value) = match option_end(word) {
            Some((k, v)) => (&word[..k], Some(&word[v..])),
            None => (word.as_str(), None),
        };
        if keyword(key, "Set", 3) {
            return Ok(());
        } else if value.is_none() && keyword(key, "where", 5) {
        } else if keyword(key, "Accounts", 1) || keyword(key, "Accts", 1) {
            let v = value.unwrap_or(key);
            p.request.cond.accounts.extend(
                v.split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_ascii_lowercase),
            );
            p.cond_set = true;
        } else if keyword(key, "Cluster", 1) {
            // One cluster: any name selects its jobs.
        } else if keyword(key, "JobID", 1) {
            let v = value.unwrap_or(word);
            let Some(ids) = job_ids(v) else {
                return Err(1);
            };
            if ids.is_empty() {
                eprintln!("Invalid job id(s) {v} specified");
                p.failed = true;
            } else {
                p.request.cond.job_ids.extend(ids);
                p.cond_set = true;
            }
        } else if keyword(key, "EndTime", 1) || keyword(key, "StartTime", 1) {
            // The usage window sacctmgr passes along; slurmdbd's job modify selects by the other conditions.
        } else if keyword(key, "WCkeys", 1) {
            p.cond_set = true;
        } else if keyword(key, "Users", 1) {
            let v = value.unwrap_or(word);
            for name in v.split(',').filter(|s| !s.is_empty()) {
                let uid = name.parse::<u32>().ok().or_else(|| {
                    nix::unistd::User::from_name(name)
                        .ok()
                        .flatten()
                        .map(|u| u.uid.as_raw())
                });
                match uid {
                    Some(uid) => p.request.cond.user_ids.push(uid),
                    None => {
                        eprintln!("sacctmgr: error: Invalid user id: {name}");
                        return Err(1);
                    }
                }
            }
            p.cond_set = true;
        } else {
            p.failed = true;
            eprintln!(" Unknown condition: {word}\n Use keyword 'set' to modify value");
        }
        *at += 1;
    }
    Ok(())
}

/// `set` fields from `words[*at..]` up to `where`.
fn set_rec(words: &[String], at: &mut usize, p: &mut Parsed) {
    while *at < words.len() {
        let word = &words[*at];
        let (key, value) = match option_end(word) {
            Some((k, v)) => (&word[..k], Some(&word[v..])),
            None => (word.as_str(), None),
        };
        let set = &mut p.request.set;
        if keyword(key, "Where", 5) {
            return;
        }
        match value {
            None if keyword(key, "set", 3) => {}
            None => {
                p.failed = true;
                eprintln!(" Bad format on {word}: End your option with an '=' sign");
            }
            Some(v) => {
                if keyword(key, "DerivedExitCode", 12) || keyword(key, "DerivedEC", 9) {
                    let meat = strip_quotes(v);
                    let (n, junk) = strtol(&meat);
                    if n == 0 && junk && !meat.is_empty() {
                        eprintln!("sacctmgr: error: Invalid value for DerivedExitCode ({meat})");
                    } else {
                        // A negative value is sacctmgr's "clear" flag, INFINITE; others wrap as a C cast does.
                        set.derived_ec = Some(if n < 0 { u32::MAX } else { n as u32 });
                        p.rec_set = true;
                    }
                } else if keyword(key, "Comment", 7)
                    || keyword(key, "DerivedExitString", 12)
                    || keyword(key, "DerivedES", 9)
                {
                    set.comment = Some(strip_quotes(v));
                    p.rec_set = true;
                } else if keyword(key, "AdminComment", 12) {
                    set.admin_comment = Some(strip_quotes(v));
                    p.rec_set = true;
                } else if keyword(key, "SystemComment", 13) {
                    set.system_comment = Some(strip_quotes(v));
                    p.rec_set = true;
                } else if keyword(key, "NewWCKey", 1) {
                    set.wckey = Some(strip_quotes(v));
                    p.rec_set = true;
                } else {
                    println!(" Unknown option: {word}\n Use keyword 'where' to modify condition");
                }
            }
        }
        *at += 1;
    }
}

fn parse(words: &[String]) -> Result<Parsed, u8> {
    let mut p = Parsed::default();
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        if keyword(w, "Where", 5) {
            i += 1;
            set_cond(words, &mut i, &mut p)?;
        } else if keyword(w, "Set", 3) {
            i += 1;
            set_rec(words, &mut i, &mut p);
        } else {
            set_cond(words, &mut i, &mut p)?;
        }
        // A section ends on the other section's keyword, which the loop reads next.
        if i < words.len() && !keyword(&words[i], "Where", 5) && !keyword(&words[i], "Set", 3) {
            i += 1;
        }
    }
    Ok(p)
}

/// `sacctmgr modify job ...` (`words`: what follows the entity); the exit code.
pub fn modify(words: &[String], immediate: bool) -> u8 {
    let p = match parse(words) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if p.failed {
        return 1;
    }
    if !p.rec_set {
        eprintln!(" You didn't give me anything to set");
        return 1;
    }
    if !p.cond_set
        && !super::sacctmgr::confirm_or_immediate(
            "You didn't set any conditions with 'WHERE'.\nAre you sure you want to continue?",
            immediate,
        )
    {
        println!("Aborted");
        return 0;
    }
    let Some(client) = super::sacctmgr::client() else {
        return 1;
    };
    let request = p.request;
    let checked = match client.query(&Query::JobRecordEdit {
        request: request.clone(),
    }) {
        Ok(QueryReply::JobRecordEdit { result }) => result,
        Ok(_) => Err(ApiError::new(SlurmErrno::Error)),
        Err(ClientError::Api(e)) => Err(e),
        Err(e) => {
            eprintln!(" Error with request: {e}");
            return 1;
        }
    };
    let edited = match checked {
        Ok(edited) => edited,
        Err(e) if e.errno == SlurmErrno::NoChangeInData => {
            let comment = e.detail.as_deref().unwrap_or(
                "Request didn't affect anything or your user doesn't have privilege to perform this action",
            );
            eprintln!(
                "sacctmgr: accounting_storage/slurmdbd: acct_storage_p_modify_job: {comment}"
            );
            println!(" Nothing modified");
            return 1;
        }
        Err(e) => {
            let comment = match e.errno {
                SlurmErrno::AccessDenied => {
                    "Your user doesn't have privilege to perform this action"
                }
                SlurmErrno::Error => "Something was wrong with your query",
                other => other.text(),
            };
            eprintln!("sacctmgr: error: {comment}");
            eprintln!(" Error with request: {}", e.errno.text());
            return 1;
        }
    };
    println!(" Modified jobs...");
    let offset = crate::config::utc_offset_secs();
    for job in &edited {
        println!(
            "  {} submitted at {}",
            job.job_id,
            spur_core::format::time::iso(job.submit, offset)
        );
    }
    if !super::sacctmgr::confirm_or_immediate("Would you like to commit changes?", immediate) {
        println!(" Changes Discarded");
        return 0;
    }
    match client.control(&ControlRequest::ModifyJobRecords { request }) {
        Ok(_) => 0,
        Err(e) => {
            eprintln!(" Error with request: {e}");
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_match_as_sacctmgr_compares_them() {
        assert!(keyword("j", "JobID", 1));
        assert!(keyword("JOBID", "JobID", 1));
        assert!(!keyword("jobids", "JobID", 1));
        assert!(keyword("derivedec", "DerivedEC", 9));
        assert!(!keyword("derived", "DerivedEC", 9));
        assert!(keyword("DerivedExitC", "DerivedExitCode", 12));
        assert!(!keyword("DerivedExit", "DerivedExitCode", 12));
        assert!(keyword("where", "Where", 5));
        assert!(!keyword("whe", "Where", 5));
    }

    #[test]
    fn values_are_stripped_and_lowered() {
        assert_eq!(strip_quotes("'Hello World' x"), "hello world");
        assert_eq!(strip_quotes("a\"b"), "a`b");
        assert_eq!(option_end("comment=x=y"), Some((7, 8)));
        assert_eq!(option_end("qos+=a"), Some((3, 5)));
        assert_eq!(strtol("12abc"), (12, true));
        assert_eq!(strtol("abc"), (0, true));
        assert_eq!(job_ids("5001,5002.batch,5001_3"), Some(vec![5001, 5002]));
    }

    #[test]
    fn where_and_set_sections() {
        let w: Vec<String> = ["where", "jobid=7", "set", "comment=X", "derivedec=256"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = parse(&w).unwrap();
        assert!(p.cond_set && p.rec_set && !p.failed);
        assert_eq!(p.request.cond.job_ids, vec![7]);
        assert_eq!(p.request.set.comment.as_deref(), Some("x"));
        assert_eq!(p.request.set.derived_ec, Some(256));
    }
}
