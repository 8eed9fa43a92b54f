//! Stage 1 of parsing: split an argument vector into options and positionals with the semantics of glibc's
//! `getopt_long` as Slurm drives it (option string starting with `+`: stop at the first non-option).
//!
//! - long options take `--name=value` or `--name value`; an optional value must be attached with `=`;
//! - any unambiguous prefix of a long name works (`--part=debug`); a prefix that fits options with different
//!   effects is an error listing them in Slurm's table order;
//! - short options cluster (`-vvv`, `-N2`, `-kN`): a required value is the rest of the word or the next argument,
//!   an optional value only the rest of the word;
//! - `--` ends the options; so does the first word that is not an option (`-` alone is not one).
//!
//! Nothing here checks values; see `validate` for that.

use super::error::{ErrCtx, ErrorKind, OptError};
use super::table::{self, ArgKind, Command, OptDef, OptId, GETOPT_ORDER};

/// One option as it appeared in an argument vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawOpt {
    pub id: OptId,
    /// How it was written, without any value: `--part`, `-p`.
    pub spelled: String,
    /// The value, if one was given (always for required values).
    pub value: Option<String>,
    /// Index in the argument vector of the word the option started in.
    pub index: usize,
}

/// The result of running getopt over a word list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scanned {
    pub opts: Vec<RawOpt>,
    /// Index of the first word not consumed as an option (past a `--` that ended the options).
    pub optind: usize,
    /// Whether the scan stopped at `--`.
    pub saw_double_dash: bool,
}

/// Runs getopt over `args` (without a program name) for `cmd`, stopping at the first non-option.
pub fn scan(cmd: Command, ctx: &ErrCtx, args: &[String]) -> Result<Scanned, OptError> {
    let longs = long_table(cmd);
    let mut out = Scanned::default();
    let mut i = 0;
    while i < args.len() {
        let word = args[i].as_str();
        if word == "--" {
            out.saw_double_dash = true;
            i += 1;
            break;
        }
        if word.len() < 2 || !word.starts_with('-') {
            break;
        }
        i = if let Some(body) = word.strip_prefix("--") {
            scan_long(&longs, ctx, args, i, body, &mut out.opts)?
        } else {
            scan_short(cmd, ctx, args, i, &mut out.opts)?
        };
    }
    out.optind = i;
    Ok(out)
}

/// The long names `cmd` accepts, in Slurm's table order.
pub(crate) fn long_table(cmd: Command) -> Vec<(&'static str, &'static OptDef)> {
    // Every sbatch/srun runs this once: a name map keeps it linear (a search of the table per name was 60,000
    // string comparisons, a visible part of a submission's client time).
    let mut by_name: std::collections::HashMap<&'static str, &'static OptDef> =
        std::collections::HashMap::new();
    for d in table::options_for(cmd) {
        for name in d.long_names() {
            // The first row with a name wins, as `table::by_long` finds it.
            by_name.entry(name).or_insert(d);
        }
    }
    GETOPT_ORDER
        .iter()
        .filter_map(|name| by_name.get(name).map(|d| (*name, *d)))
        .collect()
}

/// Finds the option a long name (or abbreviation) means, with glibc's rules for exact matches and ambiguity.
fn lookup_long(
    longs: &[(&'static str, &'static OptDef)],
    name: &str,
) -> Result<Option<(&'static str, &'static OptDef)>, Vec<&'static str>> {
    if let Some(hit) = longs.iter().find(|(n, _)| *n == name) {
        return Ok(Some(*hit));
    }
    let mut first: Option<(&'static str, &'static OptDef)> = None;
    let mut ambiguous: Vec<&'static str> = Vec::new();
    for &(n, d) in longs.iter().filter(|(n, _)| n.starts_with(name)) {
        match first {
            None => first = Some((n, d)),
            // glibc only complains about a match that differs from the first one found; two names for the same
            // option (`--cluster`, `--clusters`) never make an abbreviation ambiguous.
            Some((first_name, f)) if f.id != d.id => {
                if ambiguous.is_empty() {
                    ambiguous.push(first_name);
                }
                ambiguous.push(n);
            }
            Some(_) => {}
        }
    }
    if ambiguous.is_empty() {
        Ok(first)
    } else {
        // Report in table order, which is how glibc walks its marks.
        ambiguous.sort_by_key(|a| longs.iter().position(|(n, _)| n == a));
        Err(ambiguous)
    }
}

fn scan_long(
    longs: &[(&'static str, &'static OptDef)],
    ctx: &ErrCtx,
    args: &[String],
    i: usize,
    body: &str,
    opts: &mut Vec<RawOpt>,
) -> Result<usize, OptError> {
    let word = &args[i];
    let (name, attached) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let (full, def) = match lookup_long(longs, name) {
        Ok(Some(hit)) => hit,
        Ok(None) => return Err(ctx.getopt(ErrorKind::UnrecognizedOption(word.clone()))),
        Err(cands) => {
            let candidates = cands.into_iter().map(String::from).collect();
            return Err(ctx.getopt(ErrorKind::AmbiguousOption {
                typed: word.clone(),
                candidates,
            }));
        }
    };
    let mut next = i + 1;
    let value = match (def.arg, attached) {
        (ArgKind::None, Some(_)) => {
            return Err(ctx.getopt(ErrorKind::UnexpectedArgument(full.to_string())))
        }
        (ArgKind::None, None) | (ArgKind::Optional, None) => None,
        (_, Some(v)) => Some(v.to_string()),
        (ArgKind::Required, None) => match args.get(next) {
            Some(v) => {
                next += 1;
                Some(v.clone())
            }
            None => return Err(ctx.getopt(ErrorKind::MissingArgument(full.to_string()))),
        },
    };
    opts.push(RawOpt {
        id: def.id,
        spelled: format!("--{name}"),
        value,
        index: i,
    });
    Ok(next)
}

fn scan_short(
    cmd: Command,
    ctx: &ErrCtx,
    args: &[String],
    i: usize,
    opts: &mut Vec<RawOpt>,
) -> Result<usize, OptError> {
    let word = &args[i];
    let mut rest = &word[1..];
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        let Some(def) = table::by_short(cmd, c) else {
            return Err(ctx.getopt(ErrorKind::InvalidShortOption(c)));
        };
        let spelled = format!("-{c}");
        match def.arg {
            ArgKind::None => opts.push(RawOpt {
                id: def.id,
                spelled,
                value: None,
                index: i,
            }),
            ArgKind::Optional => {
                let value = (!rest.is_empty()).then(|| rest.to_string());
                opts.push(RawOpt {
                    id: def.id,
                    spelled,
                    value,
                    index: i,
                });
                return Ok(i + 1);
            }
            ArgKind::Required => {
                if !rest.is_empty() {
                    opts.push(RawOpt {
                        id: def.id,
                        spelled,
                        value: Some(rest.to_string()),
                        index: i,
                    });
                    return Ok(i + 1);
                }
                let Some(v) = args.get(i + 1) else {
                    return Err(ctx.getopt(ErrorKind::MissingShortArgument(c)));
                };
                opts.push(RawOpt {
                    id: def.id,
                    spelled,
                    value: Some(v.clone()),
                    index: i,
                });
                return Ok(i + 2);
            }
        }
    }
    Ok(i + 1)
}

#[cfg(test)]
mod tests;
