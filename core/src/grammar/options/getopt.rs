//! glibc `getopt_long`'s handling of one word, shared by every command's parser: sbatch/srun/salloc
//! ([`super::argv`]) and the query commands ([`super::query`]) differ only in which table they read and in what
//! they do between words (stop at the first operand, or permute).
//!
//! - a long option is `--name=value` or `--name value`; an optional value must be attached with `=`;
//! - any unambiguous prefix of a long name works; a prefix that fits several options is an error listing them in
//!   the table's getopt order;
//! - short options cluster (`-vvv`, `-N2`): a required value is the rest of the word or the next argument, an
//!   optional value only the rest of the word.

use super::error::ErrorKind;
use super::table::ArgKind;

/// What the engine needs to know about a table entry.
pub(crate) trait Spec: Copy {
    fn arg(self) -> ArgKind;
    /// Whether two entries are one option under two names: an abbreviation fitting both is not ambiguous.
    fn same(self, other: Self) -> bool;
}

/// How a table's error texts read where the two parsers' texts have always differed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// glibc's own: an unknown option is quoted as typed (`--frob=1`), and `--=x` is a prefix of every name.
    Glibc,
    /// The query commands' texts: an unknown option is quoted without its value (`--frob`), and an empty name
    /// is unknown.
    Query,
}

/// One option found in a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit<T> {
    pub spec: T,
    /// How it was written, without any value: `--part`, `-p`.
    pub spelled: String,
    pub value: Option<String>,
}

/// Finds the option a long name (or abbreviation) means, with glibc's rules for exact matches and ambiguity.
/// `longs` lists every long name once, in the table's getopt order.
fn lookup_long<T: Spec>(
    longs: &[(&'static str, T)],
    name: &str,
    dialect: Dialect,
) -> Result<Option<(&'static str, T)>, Vec<&'static str>> {
    if let Some(hit) = longs.iter().find(|(n, _)| *n == name) {
        return Ok(Some(*hit));
    }
    if name.is_empty() && dialect == Dialect::Query {
        return Ok(None);
    }
    let mut first: Option<(&'static str, T)> = None;
    let mut ambiguous: Vec<&'static str> = Vec::new();
    for &(n, d) in longs.iter().filter(|(n, _)| n.starts_with(name)) {
        match first {
            None => first = Some((n, d)),
            // glibc only complains about a match that differs from the first one found; two names for the same
            // option (`--cluster`, `--clusters`) never make an abbreviation ambiguous.
            Some((first_name, f)) if !f.same(d) => {
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

/// Reads the long option in `args[i]` (whose text after `--` is `body`); returns it and the index of the next
/// word to read.
pub(crate) fn long_option<T: Spec>(
    longs: &[(&'static str, T)],
    dialect: Dialect,
    args: &[String],
    i: usize,
    body: &str,
) -> Result<(Hit<T>, usize), ErrorKind> {
    let word = &args[i];
    let (name, attached) = match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    };
    let (full, spec) = match lookup_long(longs, name, dialect) {
        Ok(Some(hit)) => hit,
        Ok(None) => {
            return Err(ErrorKind::UnrecognizedOption(match dialect {
                Dialect::Glibc => word.clone(),
                Dialect::Query => format!("--{name}"),
            }))
        }
        Err(cands) => {
            return Err(ErrorKind::AmbiguousOption {
                typed: word.clone(),
                candidates: cands.into_iter().map(String::from).collect(),
            })
        }
    };
    let mut next = i + 1;
    let value = match (spec.arg(), attached) {
        (ArgKind::None, Some(_)) => return Err(ErrorKind::UnexpectedArgument(full.to_string())),
        (ArgKind::None, None) | (ArgKind::Optional, None) => None,
        (_, Some(v)) => Some(v.to_string()),
        (ArgKind::Required, None) => match args.get(next) {
            Some(v) => {
                next += 1;
                Some(v.clone())
            }
            None => return Err(ErrorKind::MissingArgument(full.to_string())),
        },
    };
    let hit = Hit {
        spec,
        spelled: format!("--{name}"),
        value,
    };
    Ok((hit, next))
}

/// Reads the cluster of short options in `args[i]` (`-hl`, `-o%i`, `-o` and a value in the next word); each hit
/// goes to `out`. Returns the index of the next word to read.
pub(crate) fn short_options<T: Spec>(
    by_short: impl Fn(char) -> Option<T>,
    args: &[String],
    i: usize,
    out: &mut Vec<Hit<T>>,
) -> Result<usize, ErrorKind> {
    let word = &args[i];
    let mut rest = &word[1..];
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        let Some(spec) = by_short(c) else {
            return Err(ErrorKind::InvalidShortOption(c));
        };
        let spelled = format!("-{c}");
        match spec.arg() {
            ArgKind::None => out.push(Hit {
                spec,
                spelled,
                value: None,
            }),
            ArgKind::Optional => {
                let value = (!rest.is_empty()).then(|| rest.to_string());
                out.push(Hit {
                    spec,
                    spelled,
                    value,
                });
                return Ok(i + 1);
            }
            ArgKind::Required => {
                if !rest.is_empty() {
                    out.push(Hit {
                        spec,
                        spelled,
                        value: Some(rest.to_string()),
                    });
                    return Ok(i + 1);
                }
                let Some(v) = args.get(i + 1) else {
                    return Err(ErrorKind::MissingShortArgument(c));
                };
                out.push(Hit {
                    spec,
                    spelled,
                    value: Some(v.clone()),
                });
                return Ok(i + 2);
            }
        }
    }
    Ok(i + 1)
}
