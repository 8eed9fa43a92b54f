//! Stage 1 of parsing: split an argument vector into options and positionals with the semantics of glibc's
//! `getopt_long` as Slurm drives it (option string starting with `+`: stop at the first non-option). Each word is
//! read by the engine every command shares ([`super::getopt`]: long names, abbreviations, clusters, values).
//!
//! - `--` ends the options; so does the first word that is not an option (`-` alone is not one).
//!
//! Nothing here checks values; see `validate` for that.

use super::error::{ErrCtx, OptError};
use super::getopt::{self, Dialect, Hit, Spec};
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
        let mut hits = Vec::new();
        let next = if let Some(body) = word.strip_prefix("--") {
            getopt::long_option(&longs, Dialect::Glibc, args, i, body).map(|(hit, next)| {
                hits.push(hit);
                next
            })
        } else {
            getopt::short_options(|c| table::by_short(cmd, c), args, i, &mut hits)
        };
        // Options read before an error in the same word are dropped with it, as getopt ends there.
        let next = next.map_err(|kind| ctx.getopt(kind))?;
        collect(hits, i, &mut out.opts);
        i = next;
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

impl Spec for &'static OptDef {
    fn arg(self) -> ArgKind {
        self.arg
    }

    fn same(self, other: Self) -> bool {
        self.id == other.id
    }
}

fn collect(hits: Vec<Hit<&'static OptDef>>, i: usize, opts: &mut Vec<RawOpt>) {
    opts.extend(hits.into_iter().map(|h| RawOpt {
        id: h.spec.id,
        spelled: h.spelled,
        value: h.value,
        index: i,
    }));
}

#[cfg(test)]
mod tests;
