//! Natural string comparison as Slurm uses it to order and to match hostlist prefixes.
//!
//! Slurm compares prefixes with a natural-order comparison (Martin Pool's `strnatcmp` algorithm) rather than
//! `strcmp`. That matters beyond ordering: two prefixes that compare equal are merged into one bracket group even if
//! their bytes differ (the algorithm skips C white space, so `a\r` and `a` are "equal"). To print exactly what
//! Slurm prints we reproduce the algorithm over bytes, with C's signed `char` ordering and its `isspace`/`isdigit`
//! classes for the "C" locale.

use std::cmp::Ordering;

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// The byte at `i`, or 0 past the end, which is how the C code sees the string terminator.
fn at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// C `char` is signed on the platforms Slurm runs on, so bytes >= 0x80 sort before ASCII.
fn signed(c: u8) -> i8 {
    i8::from_ne_bytes([c])
}

/// Compares two runs of digits that have no leading zero: the longer run wins, else the first differing digit.
fn compare_right(a: &[u8], b: &[u8]) -> Ordering {
    let mut bias = Ordering::Equal;
    for i in 0.. {
        let (ca, cb) = (at(a, i), at(b, i));
        match (ca.is_ascii_digit(), cb.is_ascii_digit()) {
            (false, false) => return bias,
            (false, true) => return Ordering::Less,
            (true, false) => return Ordering::Greater,
            (true, true) => {
                if bias == Ordering::Equal {
                    bias = ca.cmp(&cb);
                }
            }
        }
    }
    bias
}

/// Compares two runs of digits where one has a leading zero, as fractions: the first differing digit wins.
fn compare_left(a: &[u8], b: &[u8]) -> Ordering {
    for i in 0.. {
        let (ca, cb) = (at(a, i), at(b, i));
        match (ca.is_ascii_digit(), cb.is_ascii_digit()) {
            (false, false) => return Ordering::Equal,
            (false, true) => return Ordering::Less,
            (true, false) => return Ordering::Greater,
            (true, true) if ca != cb => return ca.cmp(&cb),
            (true, true) => {}
        }
    }
    Ordering::Equal
}

/// Natural-order comparison of two strings, byte for byte as Slurm's `strnatcmp`.
pub(crate) fn strnatcmp(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (mut ai, mut bi) = (0, 0);
    loop {
        while is_space(at(a, ai)) {
            ai += 1;
        }
        while is_space(at(b, bi)) {
            bi += 1;
        }
        let (ca, cb) = (at(a, ai), at(b, bi));
        if ca.is_ascii_digit() && cb.is_ascii_digit() {
            let (ra, rb) = (&a[ai..], &b[bi..]);
            let result = if ca == b'0' || cb == b'0' {
                compare_left(ra, rb)
            } else {
                compare_right(ra, rb)
            };
            if result != Ordering::Equal {
                return result;
            }
        }
        if ca == 0 && cb == 0 {
            return Ordering::Equal;
        }
        match signed(ca).cmp(&signed(cb)) {
            Ordering::Equal => {}
            other => return other,
        }
        ai += 1;
        bi += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_numbers_by_value() {
        assert_eq!(strnatcmp("rack2", "rack10"), Ordering::Less);
        assert_eq!(strnatcmp("rack10", "rack2"), Ordering::Greater);
        assert_eq!(strnatcmp("n", "n"), Ordering::Equal);
    }

    #[test]
    fn leading_zero_compares_as_fraction() {
        assert_eq!(strnatcmp("a01", "a1"), Ordering::Less);
        assert_eq!(strnatcmp("a012", "a02"), Ordering::Less);
        assert_eq!(strnatcmp("a12", "a2"), Ordering::Greater);
    }

    #[test]
    fn white_space_is_skipped() {
        assert_eq!(strnatcmp("a\r", "a"), Ordering::Equal);
        assert_eq!(strnatcmp("a\x0bb", "ab"), Ordering::Equal);
    }

    #[test]
    fn high_bytes_sort_first_like_signed_char() {
        assert_eq!(strnatcmp("é", "z"), Ordering::Less);
    }

    #[test]
    fn prefix_is_smaller() {
        assert_eq!(strnatcmp("n", "n-"), Ordering::Less);
        assert_eq!(strnatcmp("", "a"), Ordering::Less);
    }
}
