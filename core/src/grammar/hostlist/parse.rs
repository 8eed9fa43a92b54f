//! The hostlist expression grammar, as Slurm 22.05's `hostlist_create` reads it.
//!
//! An expression is a list of tokens separated by spaces, tabs or commas; a comma inside brackets does not split a
//! token. A token is a plain host name (`n12`, split into prefix `n` and number 12 of width 2) or ends with one
//! bracket group `prefix[ranges]`. Earlier bracket groups inside the prefix (`rack[1-2]-n[1-4]`) repeat the prefix;
//! with several, the group nearest the end varies slowest and the first one fastest (`a[1-2]b[3-4]c[5-6]` starts
//! `a1b3c5 a1b3c6 a2b3c5`), as in Slurm.
//!
//! Slurm's reader is forgiving in odd ways, and Spur mirrors them because scripts rely on what Slurm accepts:
//! numbers are read like C's `strtoul` (leading white space and a sign are allowed, overflow saturates), text after
//! the first number of a range is ignored when a second number follows (`n[1a-3]` is `n[01-03]`), and a token with
//! an unclosed bracket becomes a host name with `]` appended (`n[1-` is the host `n]`).

use nom::bytes::complete::{take_till, take_till1, take_while};
use nom::character::complete::{digit1, one_of};
use nom::combinator::opt;
use nom::sequence::tuple;
use nom::IResult;
use std::mem::size_of;
use std::sync::Arc;

use super::error::{HostlistError, InvalidReason, RangeError};
use super::range::{number_text, HostRange};
use super::{
    Hostlist, MAX_BRACKET_RANGES, MAX_PREFIX_GROUPS, MAX_PREFIX_HOSTS, MAX_PRODUCT_BYTES,
    MAX_RANGE_HOSTS,
};

/// One `lo-hi` element of a bracket group; `width` is the length of the text before `-`, as Slurm measures it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    lo: u64,
    hi: u64,
    width: usize,
}

/// Why a bracket group could not be read.
enum GroupError {
    Range(RangeError),
    TooManyRanges,
}

/// Why an expression was refused, before it is wrapped with the input and the logged lines.
enum Failure {
    Invalid(InvalidReason),
    TooManyRanges,
}

fn is_separator(c: char) -> bool {
    matches!(c, ' ' | '\t' | ',')
}

/// C's `isspace` in the "C" locale, which `strtoul` skips.
fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// The next token: a run of non-separators that, when it leaves a bracket open, continues after the next `]`
/// with another run, checked the same way. So `n[1, 3]` and `a[1-2,5]b[1,3]` are single tokens. Slurm jumps to
/// the first `]` whatever lies before it, so `a[1,[2],3]` is the tokens `a[1,[2]` and `3]`.
fn token(input: &str) -> IResult<&str, &str> {
    let (start, _) = take_while(is_separator)(input)?;
    let (mut rest, mut run) = take_till1(is_separator)(start)?;
    loop {
        match rest.find(']') {
            Some(close) if leaves_bracket_open(run) => {
                (rest, run) = take_till(is_separator)(&rest[close + 1..])?;
            }
            _ => return Ok((rest, &start[..start.len() - rest.len()])),
        }
    }
}

/// Whether `run` ends inside brackets, where every `]` closes some `[` since the previous `]` (repeated `[` count
/// once). Slurm only lets a token run on past a separator in that case: `a]b[1,2]` and `[[],b` stop at the comma,
/// `a[[1,2]` does not (each rule checked against scontrol).
fn leaves_bracket_open(run: &str) -> bool {
    let mut open = false;
    for b in run.bytes() {
        match b {
            b'[' => open = true,
            b']' if open => open = false,
            b']' => return false,
            _ => {}
        }
    }
    open
}

/// A number read as C's `strtoul(s, &end, 10)` reads it: white space, an optional sign, digits. Overflow gives
/// `u64::MAX`; a minus sign negates modulo 2^64.
fn c_ulong(input: &str) -> IResult<&str, u64> {
    let (rest, (_, sign, digits)) =
        tuple((take_while(is_c_space), opt(one_of("+-")), digit1))(input)?;
    let value = digits.bytes().try_fold(0u64, |acc, d| {
        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    });
    let value = match value {
        None => u64::MAX,
        Some(v) if sign == Some('-') => v.wrapping_neg(),
        Some(v) => v,
    };
    Ok((rest, value))
}

/// One element of a bracket group: `lo`, `lo-hi` or `lo-`.
fn single_range(text: &str) -> Result<Span, RangeError> {
    let invalid = || RangeError::Invalid(text.to_owned());
    if text.contains('x') {
        return Err(invalid());
    }
    let (lo_text, hi_text) = match text.split_once('-') {
        Some((lo, hi)) => (lo, Some(hi)),
        None => (text, None),
    };
    if hi_text.is_some_and(|hi| hi.starts_with('-')) {
        return Err(invalid());
    }
    let (lo_rest, lo) = c_ulong(lo_text).map_err(|_| invalid())?;
    let hi = match hi_text {
        Some(hi_text) if !hi_text.is_empty() => match c_ulong(hi_text) {
            Ok(("", hi)) => hi,
            _ => return Err(invalid()),
        },
        _ if lo_rest.is_empty() => lo,
        _ => return Err(invalid()),
    };
    if lo > hi {
        return Err(invalid());
    }
    // Written as a difference so that `0-18446744073709551615` is refused too; Slurm's `hi - lo + 1` wraps to 0
    // there and lets it through as a range it cannot list.
    if hi - lo >= MAX_RANGE_HOSTS {
        return Err(RangeError::TooManyHosts(text.to_owned()));
    }
    Ok(Span {
        lo,
        hi,
        width: lo_text.len(),
    })
}

/// The comma-separated elements between a pair of brackets.
fn range_list(text: &str) -> Result<Vec<Span>, GroupError> {
    let mut spans = Vec::new();
    for (i, element) in text.split(',').enumerate() {
        if i == MAX_BRACKET_RANGES {
            return Err(GroupError::TooManyRanges);
        }
        spans.push(single_range(element).map_err(GroupError::Range)?);
    }
    Ok(spans)
}

/// A host name without brackets: trailing digits are its number, the rest its prefix.
pub(crate) fn host_range(name: &str) -> HostRange {
    let prefix_len = name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let digits = &name[prefix_len..];
    match c_ulong(digits) {
        Ok((_, num)) => HostRange::numbered(&name[..prefix_len], num, num, digits.len()),
        Err(_) => HostRange::single(name),
    }
}

/// Builds a [`Hostlist`] from an expression, remembering what Slurm would log along the way.
struct Parser<'a> {
    input: &'a str,
    list: Hostlist,
    warnings: Vec<RangeError>,
    /// The most bytes repeated prefixes may build (see [`MAX_PRODUCT_BYTES`]).
    max_product_bytes: usize,
}

impl<'a> Parser<'a> {
    fn new(input: &'a str, max_product_bytes: usize) -> Self {
        Self {
            input,
            list: Hostlist::new(),
            warnings: Vec::new(),
            max_product_bytes,
        }
    }

    fn run(mut self) -> Result<(Hostlist, Vec<RangeError>), HostlistError> {
        let mut rest = self.input;
        while let Ok((next, tok)) = token(rest) {
            if let Err(failure) = self.push_token(tok) {
                return Err(self.error(failure));
            }
            rest = next;
        }
        Ok((self.list, self.warnings))
    }

    fn error(self, failure: Failure) -> HostlistError {
        let input = self.input.to_owned();
        let mut logged = self.warnings;
        match failure {
            Failure::TooManyRanges => HostlistError::TooManyRanges { input, logged },
            Failure::Invalid(reason) => {
                if let InvalidReason::Range(e) = &reason {
                    logged.push(e.clone());
                }
                HostlistError::Invalid {
                    input,
                    reason,
                    logged,
                }
            }
        }
    }

    fn push_token(&mut self, tok: &str) -> Result<(), Failure> {
        let Some(open) = tok.rfind('[') else {
            self.list.push_range(host_range(tok));
            return Ok(());
        };
        let (prefix, inside) = (&tok[..open], &tok[open + 1..]);
        let Some(close) = inside.find(']') else {
            // Slurm closes an unclosed bracket for the user, dropping what followed it.
            let name = if prefix.is_empty() {
                inside.to_owned()
            } else {
                format!("{prefix}]")
            };
            self.list.push_range(host_range(&name));
            return Ok(());
        };
        if !matches!(inside.as_bytes().get(close + 1), None | Some(b',')) {
            return Err(Failure::Invalid(InvalidReason::TextAfterBracket));
        }
        let spans = range_list(&inside[..close]).map_err(|e| match e {
            GroupError::Range(e) => Failure::Invalid(InvalidReason::Range(e)),
            GroupError::TooManyRanges => Failure::TooManyRanges,
        })?;
        let groups = PrefixGroups::split(prefix)?;
        if groups.cost(spans.len()) > self.max_product_bytes as u128 {
            return Err(Failure::Invalid(InvalidReason::TooLarge));
        }
        let mut numbers = vec![String::new(); groups.groups.len()];
        self.push_level(&groups, 0, &mut numbers, &spans)
    }

    /// Repeats the prefix for every value of bracket group `level` (0 is the outermost, i.e. the last one in the
    /// text), then of the groups inside it, and pushes the host spans once all numbers are chosen. Slurm gives up on
    /// the whole expression only when the outermost group is bad; a bad inner group is logged, and that repetition
    /// skipped, each time it is met.
    fn push_level(
        &mut self,
        groups: &PrefixGroups<'_>,
        level: usize,
        numbers: &mut [String],
        spans: &[Span],
    ) -> Result<(), Failure> {
        let Some(group) = groups.groups.get(level) else {
            let prefix: Arc<str> = Arc::from(groups.assemble(numbers));
            for span in spans {
                let run = HostRange::numbered(Arc::clone(&prefix), span.lo, span.hi, span.width);
                self.list.push_range(run);
            }
            return Ok(());
        };
        let outermost = level == 0;
        let group_spans = match &group.spans {
            Ok(s) => s,
            Err(GroupError::TooManyRanges) => return Err(Failure::TooManyRanges),
            Err(GroupError::Range(e)) if outermost => {
                return Err(Failure::Invalid(InvalidReason::Range(e.clone())))
            }
            Err(GroupError::Range(e)) => {
                self.warnings.push(e.clone());
                return Ok(());
            }
        };
        let mut repeats = 0u64;
        for span in group_spans {
            repeats += span.hi - span.lo + 1;
            if repeats > MAX_PREFIX_HOSTS {
                return if outermost {
                    Err(Failure::Invalid(InvalidReason::TooManyPrefixes))
                } else {
                    Ok(())
                };
            }
            for num in span.lo..=span.hi {
                numbers[level] = number_text(num, span.width);
                self.push_level(groups, level + 1, numbers, spans)?;
            }
        }
        Ok(())
    }
}

/// The bracket groups inside a prefix (`rack[1-2]-n` has one), found as Slurm finds them: the last `[` and the
/// last `]` after it delimit a group, and the text before it is searched again.
struct PrefixGroups<'a> {
    /// Text before the first group (it may hold a `[` that no `]` closes).
    head: &'a str,
    /// Outermost (last in the text) first.
    groups: Vec<PrefixGroup<'a>>,
}

struct PrefixGroup<'a> {
    spans: Result<Vec<Span>, GroupError>,
    /// The longest number the group can print: its padding width is at most the group's length.
    number_len: usize,
    /// Text between this group and the next one, or the end of the prefix.
    after: &'a str,
}

impl<'a> PrefixGroups<'a> {
    fn split(prefix: &'a str) -> Result<Self, Failure> {
        let mut groups = Vec::new();
        let mut head = prefix;
        while let Some((pre, group, post)) = split_prefix_group(head) {
            if groups.len() == MAX_PREFIX_GROUPS {
                return Err(Failure::Invalid(InvalidReason::TooLarge));
            }
            groups.push(PrefixGroup {
                spans: range_list(group),
                number_len: group.len().max(20),
                after: post,
            });
            head = pre;
        }
        Ok(Self { head, groups })
    }

    /// The prefix with each group replaced by its chosen number.
    fn assemble(&self, numbers: &[String]) -> String {
        let mut prefix = self.head.to_owned();
        for (group, number) in self.groups.iter().zip(numbers).rev() {
            prefix.push_str(number);
            prefix.push_str(group.after);
        }
        prefix
    }

    /// An upper bound of the bytes that [`Parser::push_level`] allocates for `spans` host ranges: the prefixes it
    /// builds, the runs it pushes and the warnings it logs. 0 when the outermost group is malformed.
    fn cost(&self, spans: usize) -> u128 {
        let prefix_len = self.head.len() as u128
            + self
                .groups
                .iter()
                .map(|g| (g.after.len() + g.number_len) as u128)
                .sum::<u128>();
        let mut invocations = 1u128;
        let mut cost = 0u128;
        for (level, group) in self.groups.iter().enumerate() {
            match &group.spans {
                Ok(group_spans) => {
                    let repeats = u128::from(repeat_count(group_spans));
                    invocations = invocations.saturating_mul(repeats);
                    let number = group.number_len as u128 + LOGGED_COST;
                    cost = cost.saturating_add(invocations.saturating_mul(number));
                }
                Err(GroupError::Range(e)) if level > 0 => {
                    let line = e.to_string().len() as u128 + LOGGED_COST;
                    return cost.saturating_add(invocations.saturating_mul(line));
                }
                Err(_) => return 0,
            }
        }
        let run = (size_of::<HostRange>() as u128).saturating_mul(spans as u128);
        cost.saturating_add(invocations.saturating_mul(prefix_len + run))
    }
}

/// Bookkeeping per allocation, beyond its bytes.
const LOGGED_COST: u128 = 64;

/// How many times Slurm repeats a prefix for one group: it stops before the span that would take the total past
/// [`MAX_PREFIX_HOSTS`].
fn repeat_count(spans: &[Span]) -> u64 {
    let mut total = 0u64;
    for span in spans {
        let next = total + (span.hi - span.lo + 1);
        if next > MAX_PREFIX_HOSTS {
            break;
        }
        total = next;
    }
    total
}

/// Splits `a[1-2]b` into `a`, `1-2`, `b` at the last `[` and the last `]` after it.
fn split_prefix_group(prefix: &str) -> Option<(&str, &str, &str)> {
    let open = prefix.rfind('[')?;
    let close = open + 1 + prefix[open + 1..].rfind(']')?;
    Some((
        &prefix[..open],
        &prefix[open + 1..close],
        &prefix[close + 1..],
    ))
}

/// Parses a hostlist expression, returning the list and the range errors Slurm would log without failing.
pub(crate) fn parse(input: &str) -> Result<(Hostlist, Vec<RangeError>), HostlistError> {
    Parser::new(input, MAX_PRODUCT_BYTES).run()
}

/// [`parse`] with a tighter bound on what repeated prefixes may build.
pub(crate) fn parse_bounded(
    input: &str,
    max_product_bytes: usize,
) -> Result<(Hostlist, Vec<RangeError>), HostlistError> {
    Parser::new(input, max_product_bytes.min(MAX_PRODUCT_BYTES)).run()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(mut s: &str) -> Vec<&str> {
        let mut out = Vec::new();
        while let Ok((rest, tok)) = token(s) {
            out.push(tok);
            s = rest;
        }
        out
    }

    #[test]
    fn tokens_split_on_separators_but_not_inside_brackets() {
        assert_eq!(tokens(" a,b\tc[1, 2],,d "), ["a", "b", "c[1, 2]", "d"]);
        assert_eq!(tokens("a[1,b[2],c"), ["a[1,b[2]", "c"]);
        assert_eq!(tokens("a[1,2"), ["a[1", "2"]);
        assert_eq!(tokens("a[1,[2],3]"), ["a[1,[2]", "3]"]);
        assert_eq!(tokens("a[1-2,5]b[1,3],c"), ["a[1-2,5]b[1,3]", "c"]);
        assert_eq!(tokens("a]b[1,2]"), ["a]b[1", "2]"]);
        assert_eq!(tokens("][ \t0]"), ["][", "0]"]);
        assert_eq!(tokens("a1b[2-5][0-5,13] x"), ["a1b[2-5][0-5,13]", "x"]);
        assert_eq!(tokens("a],b]c"), ["a]", "b]c"]);
        assert_eq!(tokens("[[] 0,,]1]"), ["[[]", "0", "]1]"]);
        assert_eq!(tokens("a[1,[2]x[3,4]"), ["a[1,[2]x[3,4]"]);
        assert!(tokens(" ,\t").is_empty());
    }

    #[test]
    fn numbers_read_like_strtoul() {
        assert_eq!(c_ulong(" +12x"), Ok(("x", 12)));
        assert_eq!(c_ulong("99999999999999999999"), Ok(("", u64::MAX)));
        assert_eq!(c_ulong("-1"), Ok(("", u64::MAX)));
        assert!(c_ulong("+").is_err());
    }

    #[test]
    fn ranges_follow_slurm_rules() {
        let span = |lo, hi, width| Ok(Span { lo, hi, width });
        assert_eq!(single_range("01-10"), span(1, 10, 2));
        assert_eq!(single_range("8-11"), span(8, 11, 1));
        assert_eq!(single_range("1a-3"), span(1, 3, 2));
        assert_eq!(single_range("4-"), span(4, 4, 1));
        assert_eq!(single_range("0-65535"), span(0, 65535, 1));
        for bad in ["3-1", "a-b", "", "1a", "-3", "1--3", "1x-3"] {
            assert_eq!(single_range(bad), Err(RangeError::Invalid(bad.into())));
        }
        for big in ["0-65536", "0-99999999999999999999"] {
            assert_eq!(single_range(big), Err(RangeError::TooManyHosts(big.into())));
        }
    }

    #[test]
    fn host_names_split_trailing_digits() {
        assert_eq!(host_range("n012"), HostRange::numbered("n", 12, 12, 3));
        assert_eq!(host_range("42"), HostRange::numbered("", 42, 42, 2));
        assert_eq!(host_range("login"), HostRange::single("login"));
        assert_eq!(host_range(""), HostRange::single(""));
    }

    #[test]
    fn prefix_group_split_uses_last_brackets() {
        assert_eq!(split_prefix_group("r[1-2]-n"), Some(("r", "1-2", "-n")));
        assert_eq!(split_prefix_group("a[1]b[2]c"), Some(("a[1]b", "2", "c")));
        assert_eq!(split_prefix_group("a[b"), None);
    }
}
