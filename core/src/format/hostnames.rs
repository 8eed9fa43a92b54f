//! A small hostlist compressor (`n1,n2,n3` -> `n[1-3]`) for node columns.
//!
//! Placeholder until `crate::hostlist` (written separately, with Slurm's full rules) can be used: it keeps the
//! input order, merges runs of consecutive numeric suffixes of the same prefix and zero-padding, and brackets a
//! prefix whenever it carries more than one number.

/// Compresses node names into a Slurm-style ranged hostlist.
pub(crate) fn compress_names<S: AsRef<str>>(names: &[S]) -> String {
    let mut groups: Vec<(String, Vec<Range>)> = Vec::new();
    for name in names {
        let name = name.as_ref();
        let (prefix, number) = split_name(name);
        match number {
            None => groups.push((name.to_string(), Vec::new())),
            Some(n) => {
                if let Some((last_prefix, ranges)) = groups.last_mut() {
                    if *last_prefix == prefix && !ranges.is_empty() {
                        push_number(ranges, n);
                        continue;
                    }
                }
                groups.push((
                    prefix.to_string(),
                    vec![Range {
                        lo: n.value,
                        hi: n.value,
                        width: n.width,
                    }],
                ));
            }
        }
    }
    groups
        .iter()
        .map(|(prefix, ranges)| format_group(prefix, ranges))
        .collect::<Vec<_>>()
        .join(",")
}

#[derive(Debug, Clone, Copy)]
struct Number {
    value: u64,
    width: usize,
}

#[derive(Debug, Clone, Copy)]
struct Range {
    lo: u64,
    hi: u64,
    width: usize,
}

fn split_name(name: &str) -> (&str, Option<Number>) {
    let digits = name.chars().rev().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return (name, None);
    }
    let (prefix, tail) = name.split_at(name.len() - digits);
    match tail.parse::<u64>() {
        Ok(value) => (
            prefix,
            Some(Number {
                value,
                width: digits,
            }),
        ),
        Err(_) => (name, None),
    }
}

fn push_number(ranges: &mut Vec<Range>, n: Number) {
    if let Some(last) = ranges.last_mut() {
        if last.width == n.width && last.hi.checked_add(1) == Some(n.value) {
            last.hi = n.value;
            return;
        }
    }
    ranges.push(Range {
        lo: n.value,
        hi: n.value,
        width: n.width,
    });
}

fn format_group(prefix: &str, ranges: &[Range]) -> String {
    match ranges {
        [] => prefix.to_string(),
        [single] if single.lo == single.hi => {
            format!("{prefix}{:0w$}", single.lo, w = single.width)
        }
        _ => {
            let inner: Vec<String> = ranges
                .iter()
                .map(|r| {
                    if r.lo == r.hi {
                        format!("{:0w$}", r.lo, w = r.width)
                    } else {
                        format!("{:0w$}-{:0w$}", r.lo, r.hi, w = r.width)
                    }
                })
                .collect();
            format!("{prefix}[{}]", inner.join(","))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compresses_like_slurm() {
        assert_eq!(compress_names(&["vm"]), "vm");
        assert_eq!(compress_names(&["n1", "n2", "n3"]), "n[1-3]");
        assert_eq!(compress_names(&["n1", "n3"]), "n[1,3]");
        assert_eq!(compress_names(&["n01", "n02", "n10"]), "n[01-02,10]");
        assert_eq!(compress_names(&["a1", "b1", "b2"]), "a1,b[1-2]");
        assert_eq!(compress_names(&["vm", "n1"]), "vm,n1");
        assert_eq!(compress_names::<&str>(&[]), "");
    }
}
