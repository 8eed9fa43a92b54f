//! Hostlist expressions (`node[01-04,07]`): expand, compress and sort with Slurm 22.05's rules.
//!
//! A [`Hostlist`] is an ordered list of host names that keeps duplicates, stored as runs of numbered hosts so that
//! `n[0-65535]` costs one entry. It reads expressions as `hostlist_create` does ([`Hostlist::parse`]), lists hosts
//! as `scontrol show hostnames` does ([`Hostlist::iter`]), and prints them back as `scontrol show hostlist`
//! ([`Hostlist::to_ranged_string`], order kept) and `scontrol show hostlistsorted`
//! ([`Hostlist::to_sorted_ranged_string`]) do. Real Slurm is the reference: the vectors under
//! `core/tests/vectors/hostlist/` were captured from scontrol and every one of them must match.
//!
//! Compression joins neighbours only: `n3,n1,n2` prints as `n[3,1-2]`, sorted as `n[1-3]`. Padding is kept per
//! run and compatible paddings merge (`n09,n10` is `n[09-10]`, `n1,n01` stays `n[1,01]`). Names with several
//! numbers are compressed on their last number only (`rack1-n[1-2],rack2-n1`), as Slurm does outside 3-D clusters.
//!
//! Slurm bounds what an expression may ask for and so does Spur (the `MAX_*` constants), adding bounds where
//! Slurm has none and would run out of memory. Where Slurm is plainly broken, Spur keeps every host instead:
//! counts that wrap around near 2^64, a sort that compares numbers through a 32-bit difference (numbers 2^31 or
//! more apart misorder and lose hosts), and overlapping runs of mixed padding whose sort reads freed memory. The
//! vector tests list each input where Spur and Slurm differ.

mod error;
mod natcmp;
mod order;
mod parse;
mod range;
pub mod scontrol;

use std::fmt;
use std::str::FromStr;

pub use error::{HostlistError, InvalidReason, RangeError};
use range::HostRange;

/// Most hosts one bracket range may hold (`n[0-65535]`); Slurm's `MAX_RANGE`.
pub const MAX_RANGE_HOSTS: u64 = 64 * 1024;

/// Most comma-separated ranges in one bracket group; Slurm's `MAX_RANGES`, beyond which it stops with a fatal error.
pub const MAX_BRACKET_RANGES: usize = 256 * 1024;

/// Most values one bracket group inside a prefix may take (`a[0-65535]b[1]` is the most); Slurm's
/// `MAX_PREFIX_CNT`.
pub const MAX_PREFIX_HOSTS: u64 = 64 * 1024;

/// Spur's bound on memory built by repeating prefixes (`a[0-65535]b[0-65535]c[1]` nests groups and multiplies).
/// Slurm has none and would run out of memory; Spur refuses the expression with [`InvalidReason::TooLarge`].
pub const MAX_PRODUCT_BYTES: usize = 256 * 1024 * 1024;

/// The bound on what repeated prefixes of a job's node list may build ([`Hostlist::parse_request`]): far above
/// what [`MAX_JOB_NODE_LIST`] names need, far below [`MAX_PRODUCT_BYTES`].
pub const MAX_REQUEST_PRODUCT_BYTES: usize = 4 * 1024 * 1024;

/// Spur's bound on bracket groups nested in one prefix (`a[1]b[1]c[1]...`): more are refused as too large.
pub const MAX_PREFIX_GROUPS: usize = 64;

/// Most names [`expand`] returns. [`Hostlist::iter`] has no bound: it yields names one at a time.
pub const MAX_EXPAND_HOSTS: u64 = 16 * 1024 * 1024;

/// An ordered list of host names, duplicates kept. Two lists are equal when they hold the same names in the same
/// order.
#[derive(Debug, Clone, Default)]
pub struct Hostlist {
    runs: Vec<HostRange>,
}

impl PartialEq for Hostlist {
    fn eq(&self, other: &Self) -> bool {
        self.runs == other.runs || (self.len() == other.len() && self.iter().eq(other.iter()))
    }
}

impl Eq for Hostlist {}

impl Hostlist {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads a hostlist expression such as `rack[1-2]-n[01-04],login1`.
    pub fn parse(expr: &str) -> Result<Self, HostlistError> {
        parse::parse(expr).map(|(list, _)| list)
    }

    /// [`parse`](Self::parse) for expressions in requests to a daemon: what repeated prefixes build is held to
    /// [`MAX_REQUEST_PRODUCT_BYTES`], so 36 bytes of nested brackets cannot make the controller build 100 MiB.
    pub fn parse_request(expr: &str) -> Result<Self, HostlistError> {
        parse::parse_bounded(expr, MAX_REQUEST_PRODUCT_BYTES).map(|(list, _)| list)
    }

    /// Like [`parse`](Self::parse), also returning the range errors Slurm logs and then ignores: a bad bracket
    /// group inside a repeated prefix (`a[b]c[1-3]d[1]`) drops those repetitions, and Slurm logs the error once
    /// for each of them. scontrol prints each as `scontrol: error: <warning>`.
    pub fn parse_with_warnings(expr: &str) -> Result<(Self, Vec<RangeError>), HostlistError> {
        parse::parse(expr)
    }

    /// A list of the given names, in order. Each name is taken whole (no brackets, commas or spaces are read);
    /// its trailing digits, if any, are its number.
    pub fn from_names<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut list = Self::new();
        for name in names {
            list.push(name.as_ref());
        }
        list
    }

    /// Appends one host name (taken whole, as in [`from_names`](Self::from_names)).
    pub fn push(&mut self, name: &str) {
        self.push_range(parse::host_range(name));
    }

    /// Appends a run, joining it to the last run when it continues it, as Slurm's `hostlist_push_range`.
    fn push_range(&mut self, run: HostRange) {
        if let Some(last) = self.runs.last_mut() {
            if let Some(width) = last.continued_by(&run) {
                last.hi = run.hi;
                last.width = width;
                return;
            }
        }
        self.runs.push(run);
    }

    /// Number of hosts, duplicates included (saturating at `usize::MAX`).
    pub fn len(&self) -> usize {
        let total = self
            .runs
            .iter()
            .fold(0u64, |acc, r| acc.saturating_add(r.count()));
        usize::try_from(total).unwrap_or(usize::MAX)
    }

    /// Whether the list holds no host.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The host at `index`, counting from 0.
    pub fn nth(&self, index: usize) -> Option<String> {
        let (run, offset) = self.locate(index)?;
        Some(self.runs[run].host(offset))
    }

    /// The run holding host `index` and the host's offset in it.
    fn locate(&self, index: usize) -> Option<(usize, u64)> {
        let mut rest = u64::try_from(index).ok()?;
        for (i, run) in self.runs.iter().enumerate() {
            if rest < run.count() {
                return Some((i, rest));
            }
            rest -= run.count();
        }
        None
    }

    /// Index of the first host named exactly `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        let mut before = 0u64;
        for run in &self.runs {
            if let Some(offset) = run.position_of(name) {
                return usize::try_from(before.saturating_add(offset)).ok();
            }
            before = before.saturating_add(run.count());
        }
        None
    }

    /// Removes the host at `index` and returns it, splitting its run if needed.
    pub fn remove_nth(&mut self, index: usize) -> Option<String> {
        let (i, offset) = self.locate(index)?;
        let run = &mut self.runs[i];
        let name = run.host(offset);
        if run.count() == 1 {
            self.runs.remove(i);
        } else if offset == 0 {
            run.lo += 1;
        } else if offset == run.count() - 1 {
            run.hi -= 1;
        } else {
            let mut tail = run.clone();
            tail.lo = run.lo + offset + 1;
            run.hi = run.lo + offset - 1;
            self.runs.insert(i + 1, tail);
        }
        Some(name)
    }

    /// Removes the first host named exactly `name`; says whether there was one.
    pub fn remove(&mut self, name: &str) -> bool {
        match self.find(name) {
            Some(index) => self.remove_nth(index).is_some(),
            None => false,
        }
    }

    /// Sorts as Slurm's `hostlist_sort`: natural order of prefixes, then numbers; duplicates are kept.
    pub fn sort(&mut self) {
        order::sort(&mut self.runs);
    }

    /// Sorts and drops repeated hosts, as Slurm's `hostlist_uniq`.
    pub fn uniq(&mut self) {
        order::uniq(&mut self.runs);
    }

    /// The host names in order, one at a time.
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            runs: self.runs.iter(),
            current: None,
        }
    }

    /// All host names in order. Use [`iter`](Self::iter) for lists too big to hold at once.
    pub fn expand(&self) -> Vec<String> {
        self.iter().collect()
    }

    /// The compressed form in list order, as `scontrol show hostlist` prints it (`n[3,1-2]`).
    pub fn to_ranged_string(&self) -> String {
        ranged_string(&self.runs)
    }

    /// The compressed form of the sorted list, as `scontrol show hostlistsorted` prints it (`n[1-3]`).
    pub fn to_sorted_ranged_string(&self) -> String {
        let mut sorted = self.clone();
        sorted.sort();
        sorted.to_ranged_string()
    }
}

/// Slurm's `hostlist_ranged_string`: neighbouring runs with one prefix share a pair of brackets; a lone run gets
/// brackets only when it holds more than one host.
fn ranged_string(runs: &[HostRange]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < runs.len() {
        if i > 0 {
            out.push(',');
        }
        let first = &runs[i];
        out.push_str(&first.prefix);
        let brackets = first.count() > 1 || runs.get(i + 1).is_some_and(|next| first.within(next));
        if brackets {
            out.push('[');
        }
        loop {
            runs[i].push_numbers(&mut out);
            i += 1;
            if i == runs.len() || !runs[i].within(&runs[i - 1]) {
                break;
            }
            out.push(',');
        }
        if brackets {
            out.push(']');
        }
    }
    out
}

impl fmt::Display for Hostlist {
    /// The ranged string in list order, as [`to_ranged_string`](Self::to_ranged_string).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_ranged_string())
    }
}

impl FromStr for Hostlist {
    type Err = HostlistError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl<S: AsRef<str>> FromIterator<S> for Hostlist {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Self {
        Self::from_names(names)
    }
}

impl<'a> IntoIterator for &'a Hostlist {
    type Item = String;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// Host names of a [`Hostlist`], in order; see [`Hostlist::iter`].
#[derive(Debug, Clone)]
pub struct Iter<'a> {
    runs: std::slice::Iter<'a, HostRange>,
    /// The run being listed and the offset of its next host.
    current: Option<(&'a HostRange, u64)>,
}

impl Iterator for Iter<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        loop {
            if let Some((run, offset)) = self.current.as_mut() {
                if *offset < run.count() {
                    *offset += 1;
                    return Some(run.host(*offset - 1));
                }
            }
            self.current = Some((self.runs.next()?, 0));
        }
    }
}

/// All names of a hostlist expression, in order, duplicates kept: `n[1-3]` gives `n1`, `n2`, `n3`. Refuses
/// expressions of more than [`MAX_EXPAND_HOSTS`] names ([`InvalidReason::TooLarge`]).
pub fn expand(expr: &str) -> Result<Vec<String>, HostlistError> {
    let list = Hostlist::parse(expr)?;
    if list.len() as u64 > MAX_EXPAND_HOSTS {
        return Err(HostlistError::Invalid {
            input: expr.to_owned(),
            reason: InvalidReason::TooLarge,
            logged: Vec::new(),
        });
    }
    Ok(list.expand())
}

/// Most names a job's `--nodelist` or `--exclude` may hold, duplicates included. Such a list can only name the
/// cluster's nodes, so anything near the general [`MAX_EXPAND_HOSTS`] is an attack on the controller: it would be
/// expanded on every submission check and scheduling pass.
pub const MAX_JOB_NODE_LIST: usize = 64 * 1024;

/// [`expand`] for lists that arrive in requests: refuses more than `max` names before expanding any.
pub fn expand_at_most(expr: &str, max: usize) -> Result<Vec<String>, HostlistError> {
    let list = Hostlist::parse_request(expr)?;
    if list.len() > max {
        return Err(HostlistError::Invalid {
            input: expr.to_owned(),
            reason: InvalidReason::TooLarge,
            logged: Vec::new(),
        });
    }
    Ok(list.expand())
}

/// The ranged string of `names` in their order, as `scontrol show hostlist` prints it: `["n1", "n2", "n4"]`
/// gives `n[1-2,4]`.
pub fn compress<S: AsRef<str>>(names: &[S]) -> String {
    Hostlist::from_names(names).to_ranged_string()
}

/// The ranged string of `names` sorted, as `scontrol show hostlistsorted` prints it (duplicates kept).
pub fn compress_sorted<S: AsRef<str>>(names: &[S]) -> String {
    Hostlist::from_names(names).to_sorted_ranged_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the hostlist fuzz target: 36 bytes whose nested brackets build about 100 MiB, within the general
    /// bound; a request's node list is held to a few MiB and refused.
    #[test]
    fn nested_prefixes_in_a_request_are_refused_before_they_build_much() {
        let nested = "ya[0]n[1-10,2-825][4-1385,0]b[1]";
        assert!(matches!(
            Hostlist::parse_request(nested),
            Err(HostlistError::Invalid {
                reason: InvalidReason::TooLarge,
                ..
            })
        ));
        assert!(matches!(
            expand_at_most(nested, MAX_JOB_NODE_LIST),
            Err(HostlistError::Invalid {
                reason: InvalidReason::TooLarge,
                ..
            })
        ));
        let ordinary = "rack[1-4]-n[001-128],login[1-2]";
        assert_eq!(
            Hostlist::parse_request(ordinary).map(|l| l.len()),
            Hostlist::parse(ordinary).map(|l| l.len())
        );
    }

    #[test]
    fn expands_padding_and_groups() {
        assert_eq!(expand("n[8-11]").unwrap(), ["n8", "n9", "n10", "n11"]);
        assert_eq!(
            expand("r[1-2]-n[01-02]").unwrap(),
            ["r1-n01", "r1-n02", "r2-n01", "r2-n02"]
        );
    }

    #[test]
    fn compresses_in_order_and_sorted() {
        assert_eq!(compress(&["n3", "n1", "n2"]), "n[3,1-2]");
        assert_eq!(compress_sorted(&["n3", "n1", "n2"]), "n[1-3]");
        assert_eq!(
            compress(&["rack1-n1", "rack1-n2", "rack2-n1"]),
            "rack1-n[1-2],rack2-n1"
        );
    }

    #[test]
    fn nth_find_and_remove() {
        let mut list = Hostlist::parse("host[1-3],host5").unwrap();
        assert_eq!(list.len(), 4);
        assert_eq!(list.nth(3).as_deref(), Some("host5"));
        assert_eq!(list.find("host2"), Some(1));
        assert!(list.remove("host2"));
        assert!(!list.remove("host2"));
        assert_eq!(list.to_ranged_string(), "host[1,3,5]");
        assert_eq!(list.remove_nth(0).as_deref(), Some("host1"));
        assert_eq!(list.nth(5), None);
    }

    #[test]
    fn equal_lists_hold_the_same_names() {
        let mut split = Hostlist::parse("n[1-3]").unwrap();
        split.remove("n2");
        assert_eq!(split, Hostlist::from_names(["n1", "n3"]));
        assert_ne!(split, Hostlist::from_names(["n3", "n1"]));
    }

    #[test]
    fn uniq_sorts_and_drops_repeats() {
        let mut list = Hostlist::parse("n3,n1,n[1-2],a").unwrap();
        list.uniq();
        assert_eq!(list.to_ranged_string(), "a,n[1-3]");
        assert_eq!(list.len(), 4);
    }

    #[test]
    fn errors_say_what_scontrol_says() {
        let err = Hostlist::parse("n[3-1]").unwrap_err();
        assert_eq!(err.to_string(), "Invalid hostlist: n[3-1]");
        assert_eq!(
            err.logged()[0].to_string(),
            "_parse_single_range: Invalid range: `3-1'"
        );
        assert!(!err.is_fatal());
    }

    #[test]
    fn range_and_prefix_limits_match_slurm() {
        let list = Hostlist::parse("n[0-65535]").unwrap();
        assert_eq!(
            (list.len(), list.nth(65535).as_deref()),
            (65536, Some("n65535"))
        );
        assert!(Hostlist::parse("n[0-65536]").is_err());
        let list = Hostlist::parse("a[0-65535]b[1]").unwrap();
        assert_eq!(list.nth(65535).as_deref(), Some("a65535b1"));
        let err = Hostlist::parse("a[0-65535,0]b[1]").unwrap_err();
        assert!(matches!(
            err,
            HostlistError::Invalid {
                reason: InvalidReason::TooManyPrefixes,
                ..
            }
        ));
        assert!(err.logged().is_empty());
    }

    #[test]
    fn bad_inner_groups_are_logged_and_skipped() {
        let (list, warnings) = Hostlist::parse_with_warnings("a[b]c[1-3]d[1],e1").unwrap();
        assert_eq!(list.expand(), ["e1"]);
        assert_eq!(warnings, vec![RangeError::Invalid("b".into()); 3]);
    }

    #[test]
    fn deeply_nested_groups_are_refused() {
        let ok = format!("x{}[1]", "[1]".repeat(MAX_PREFIX_GROUPS));
        assert_eq!(
            expand(&ok).unwrap(),
            [format!("x{}", "1".repeat(MAX_PREFIX_GROUPS + 1))]
        );
        let deep = format!("x{}[1]", "[1]".repeat(MAX_PREFIX_GROUPS + 1));
        assert!(matches!(
            Hostlist::parse(&deep),
            Err(HostlistError::Invalid {
                reason: InvalidReason::TooLarge,
                ..
            })
        ));
    }

    #[test]
    fn gigantic_ranges_are_refused_without_allocating() {
        let err = expand("n[0-99999999999]").unwrap_err();
        assert!(matches!(err.logged(), [RangeError::TooManyHosts(_)]));
        let err = expand("a[0-65535]b[0-65535]c[0-65535]").unwrap_err();
        assert!(matches!(
            err,
            HostlistError::Invalid {
                reason: InvalidReason::TooLarge,
                ..
            }
        ));
    }
}
