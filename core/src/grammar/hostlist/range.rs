//! One run of hosts sharing a prefix (`n[01-04]` is prefix `n`, 1..=4, width 2), and the rules Slurm uses to decide
//! whether two runs may be merged, how they order, and how a run prints.
//!
//! Zero padding is the subtle part. Slurm keeps a print width per run and treats two widths as interchangeable when
//! printing the run's first number with either width gives the same text ("equivalent widths"). Merging, sorting
//! and bracket grouping all go through that test, so it lives here once.

use std::cmp::Ordering;
use std::fmt::Write as _;
use std::sync::Arc;

use super::natcmp::strnatcmp;

/// A run of hosts `prefix` + `lo..=hi` printed zero-padded to `width`, or a single host without a numeric suffix.
/// The prefix is shared: every run of one bracket group points at the same text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HostRange {
    pub(crate) prefix: Arc<str>,
    pub(crate) lo: u64,
    pub(crate) hi: u64,
    pub(crate) width: usize,
    /// The host has no numeric suffix: `prefix` is the whole name and `lo`/`hi` are unused.
    pub(crate) single: bool,
}

impl HostRange {
    pub(crate) fn numbered(prefix: impl Into<Arc<str>>, lo: u64, hi: u64, width: usize) -> Self {
        Self {
            prefix: prefix.into(),
            lo,
            hi,
            width,
            single: false,
        }
    }

    pub(crate) fn single(name: impl Into<Arc<str>>) -> Self {
        Self {
            prefix: name.into(),
            lo: 0,
            hi: 0,
            width: 0,
            single: true,
        }
    }

    /// How many hosts the run holds. A run never holds fewer than one host: `lo > hi` cannot arise from parsing,
    /// and the reordering code keeps it from arising later, but a run that somehow had it would be read as `lo`.
    pub(crate) fn count(&self) -> u64 {
        if self.single || self.hi < self.lo {
            1
        } else {
            (self.hi - self.lo).saturating_add(1)
        }
    }

    /// The `i`-th host of the run; `i` must be below [`count`](Self::count).
    pub(crate) fn host(&self, i: u64) -> String {
        if self.single {
            return self.prefix.to_string();
        }
        let mut s = String::with_capacity(self.prefix.len() + self.width.max(20));
        s.push_str(&self.prefix);
        push_number(&mut s, self.lo.saturating_add(i), self.width);
        s
    }

    /// Where `name` sits in this run, if it is one of its hosts (exact text match, padding included).
    pub(crate) fn position_of(&self, name: &str) -> Option<u64> {
        if self.single {
            return (*self.prefix == *name).then_some(0);
        }
        let digits = name.strip_prefix(&*self.prefix)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let num: u64 = digits.parse().ok()?;
        if num < self.lo || num > self.hi || number_text(num, self.width) != digits {
            return None;
        }
        Some(num - self.lo)
    }

    /// Slurm's `hostrange_prefix_cmp`: natural order of prefixes, and among equal prefixes single hosts first.
    pub(crate) fn prefix_cmp(&self, other: &Self) -> Ordering {
        strnatcmp(&self.prefix, &other.prefix).then_with(|| other.single.cmp(&self.single))
    }

    pub(crate) fn same_prefix(&self, other: &Self) -> bool {
        self.prefix_cmp(other) == Ordering::Equal
    }

    /// Both runs are numbered and share a prefix, so they print inside one pair of brackets.
    pub(crate) fn within(&self, other: &Self) -> bool {
        self.same_prefix(other) && !self.single && !other.single
    }

    /// The width a merge of `self` (first) and `other` should print with, or `None` when their paddings conflict.
    /// Either width prints every number of the merged run the same way (see [`widths_equivalent`]).
    pub(crate) fn merged_width(&self, other: &Self) -> Option<usize> {
        widths_equivalent(self.lo, self.width, other.lo, other.width)
    }

    /// Whether `other` continues this run directly (same prefix, next number, compatible padding), and with
    /// which width the joined run prints.
    pub(crate) fn continued_by(&self, other: &Self) -> Option<usize> {
        if self.same_prefix(other) && self.hi.checked_add(1) == Some(other.lo) {
            self.merged_width(other)
        } else {
            None
        }
    }

    /// Slurm's `hostrange_cmp`, the order `sort` uses: prefix, then number when the paddings are compatible,
    /// otherwise narrower padding first.
    pub(crate) fn cmp_for_sort(&self, other: &Self) -> Ordering {
        self.prefix_cmp(other).then_with(|| {
            if self.merged_width(other).is_some() {
                self.lo.cmp(&other.lo)
            } else {
                self.width.cmp(&other.width)
            }
        })
    }

    /// The run's numbers as they appear in a ranged string: `lo` or `lo-hi`, nothing for a single host.
    pub(crate) fn push_numbers(&self, out: &mut String) {
        if self.single {
            return;
        }
        push_number(out, self.lo, self.width);
        if self.lo < self.hi {
            out.push('-');
            push_number(out, self.hi, self.width);
        }
    }
}

/// How many zeros `width` adds in front of `num`.
fn zero_padding(num: u64, width: usize) -> usize {
    width.saturating_sub(decimal_digits(num))
}

fn decimal_digits(mut num: u64) -> usize {
    let mut n = 1;
    while num >= 10 {
        num /= 10;
        n += 1;
    }
    n
}

/// Slurm's width equivalence (`_width_equiv`). Widths `wn` (for a run starting at `n`) and `wm` (starting at `m`)
/// are equivalent when one of the runs prints its first number the same with either width. Returns the width the
/// combined run takes: Slurm overwrites one of the two widths, first trying to adopt `wm`.
pub(crate) fn widths_equivalent(n: u64, wn: usize, m: u64, wm: usize) -> Option<usize> {
    let n_same = zero_padding(n, wn) == zero_padding(n, wm);
    let m_same = zero_padding(m, wm) == zero_padding(m, wn);
    if n_same {
        Some(wm)
    } else if m_same {
        Some(wn)
    } else {
        None
    }
}

/// `num` zero-padded to `width`, as C's `%0*lu`.
pub(crate) fn number_text(num: u64, width: usize) -> String {
    let mut s = String::new();
    push_number(&mut s, num, width);
    s
}

fn push_number(out: &mut String, num: u64, width: usize) {
    // Writing to a String cannot fail.
    let _ = write!(out, "{num:0width$}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_widths_are_equivalent() {
        assert_eq!(widths_equivalent(1, 2, 5, 2), Some(2));
    }

    #[test]
    fn unpadded_numbers_accept_any_short_width() {
        // "10" prints the same with width 1 or 2, so n[09-10] joins "09" (width 2) and "10" (width 2 or 1).
        assert_eq!(widths_equivalent(9, 2, 10, 1), Some(2));
        assert_eq!(widths_equivalent(10, 1, 100, 3), Some(1));
    }

    #[test]
    fn conflicting_padding_is_not_equivalent() {
        assert_eq!(widths_equivalent(1, 2, 1, 1), None);
        assert_eq!(widths_equivalent(1, 4, 2, 1), None);
    }

    #[test]
    fn numbers_print_padded() {
        assert_eq!(number_text(7, 3), "007");
        assert_eq!(number_text(1234, 2), "1234");
        let r = HostRange::numbered("n", 8, 11, 1);
        assert_eq!(
            (r.host(0), r.host(3), r.count()),
            ("n8".into(), "n11".into(), 4)
        );
    }

    #[test]
    fn position_requires_exact_text() {
        let r = HostRange::numbered("n", 1, 10, 2);
        assert_eq!(r.position_of("n03"), Some(2));
        assert_eq!(r.position_of("n3"), None);
        assert_eq!(r.position_of("n11"), None);
        assert_eq!(HostRange::single("login").position_of("login"), Some(0));
    }

    #[test]
    fn single_hosts_sort_before_numbered_ones() {
        let a = HostRange::single("n");
        let b = HostRange::numbered("n", 1, 1, 1);
        assert_eq!(a.cmp_for_sort(&b), Ordering::Less);
        assert!(!a.within(&b));
    }

    #[test]
    fn ranges_print_lo_hi() {
        let mut s = String::new();
        HostRange::numbered("n", 1, 3, 2).push_numbers(&mut s);
        HostRange::single("x").push_numbers(&mut s);
        assert_eq!(s, "01-03");
    }
}
