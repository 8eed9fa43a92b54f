//! Node counts: `-N/--nodes=<min>[-<max>]`, with `k`/`m` multipliers (`2k` is 2048 nodes).
//!
//! Slurm 22.05 `verify_node_count` semantics: each side may have leading whitespace, a sign, digits, a `k`/`K`
//! (x1024) or `m`/`M` (x1048576) suffix and trailing whitespace. In `min-max` an empty minimum means 1 and an empty
//! maximum reads as -1, which then fails the "maximum below minimum" check. A maximum of 0 means "no maximum".

use std::fmt;

use nom::character::complete::{digit1, one_of};
use nom::combinator::opt;
use nom::sequence::tuple;
use nom::IResult;

/// A requested node count, as Slurm stores it (`min_nodes`, `max_nodes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct NodeCount {
    /// Fewest nodes the job accepts.
    pub min: u32,
    /// Most nodes the job accepts; 0 means no maximum was given.
    pub max: u32,
}

impl fmt::Display for NodeCount {
    /// The `NumNodes=` form: `2`, or `2-4` when a larger maximum was given.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.max == 0 || self.max == self.min {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

/// A rejected node count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeCountError {
    /// One side of the count is not a number (Slurm quotes the offending side).
    #[error("\"{0}\" is not a valid node count")]
    NotACount(String),
    /// The maximum is below the minimum (an empty maximum reads as -1).
    #[error("Maximum node count {max} is less than minimum node count {min}")]
    MaxBelowMin {
        /// The minimum as given.
        min: i64,
        /// The maximum as given.
        max: i64,
    },
}

/// One side of a count, as Slurm's `strtol`-based reader sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Empty,
    Value(i64),
    Invalid,
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

fn signed_count(input: &str) -> IResult<&str, (Option<char>, &str, Option<char>)> {
    tuple((opt(one_of("+-")), digit1, opt(one_of("kKmM"))))(input)
}

fn read_side(text: &str) -> Side {
    let body = text.trim_start_matches(is_c_space);
    if body.is_empty() {
        return Side::Empty;
    }
    let Ok((rest, (sign, digits, suffix))) = signed_count(body) else {
        return Side::Invalid;
    };
    if !rest.chars().all(is_c_space) {
        return Side::Invalid;
    }
    let multiplier: i64 = match suffix {
        Some('k' | 'K') => 1024,
        Some(_) => 1024 * 1024,
        None => 1,
    };
    // Slurm keeps counts in an int; anything larger is refused rather than wrapped.
    let value = digits
        .parse::<i64>()
        .ok()
        .filter(|n| *n <= i64::from(i32::MAX))
        .and_then(|n| n.checked_mul(multiplier))
        .filter(|n| *n <= i64::from(i32::MAX));
    match value {
        Some(n) if sign == Some('-') => Side::Value(-n),
        Some(n) => Side::Value(n),
        None => Side::Invalid,
    }
}

fn not_a_count(text: &str) -> NodeCountError {
    NodeCountError::NotACount(text.to_string())
}

/// Parses `-N/--nodes`.
pub fn parse_node_count(input: &str) -> Result<NodeCount, NodeCountError> {
    let (min, max) = match input.split_once('-') {
        None => match read_side(input) {
            Side::Value(n) => (n, n),
            Side::Empty | Side::Invalid => return Err(not_a_count(input)),
        },
        Some((lo, hi)) => {
            let min = match read_side(lo) {
                Side::Empty => 1,
                Side::Value(n) => n,
                Side::Invalid => return Err(not_a_count(lo)),
            };
            let max = match read_side(hi) {
                Side::Empty => -1,
                Side::Value(n) => n,
                Side::Invalid => return Err(not_a_count(hi)),
            };
            (min, max)
        }
    };
    if max != 0 && max < min {
        return Err(NodeCountError::MaxBelowMin { min, max });
    }
    match (u32::try_from(min), u32::try_from(max)) {
        (Ok(min), Ok(max)) => Ok(NodeCount { min, max }),
        _ => Err(not_a_count(input)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nc(min: u32, max: u32) -> Result<NodeCount, NodeCountError> {
        Ok(NodeCount { min, max })
    }

    #[test]
    fn plain_ranges_and_suffixes() {
        assert_eq!(parse_node_count("2"), nc(2, 2));
        assert_eq!(parse_node_count("2-4"), nc(2, 4));
        assert_eq!(parse_node_count("2k"), nc(2048, 2048));
        assert_eq!(parse_node_count("1k-2k"), nc(1024, 2048));
        assert_eq!(parse_node_count("1M"), nc(1_048_576, 1_048_576));
        assert_eq!(parse_node_count("0"), nc(0, 0));
    }

    #[test]
    fn empty_sides() {
        assert_eq!(parse_node_count("-4"), nc(1, 4));
        assert_eq!(parse_node_count("-0"), nc(1, 0));
        assert_eq!(parse_node_count("1-0"), nc(1, 0));
        assert_eq!(
            parse_node_count("2-").unwrap_err().to_string(),
            "Maximum node count -1 is less than minimum node count 2"
        );
    }

    #[test]
    fn error_texts_match_sbatch() {
        assert_eq!(
            parse_node_count("abc").unwrap_err().to_string(),
            "\"abc\" is not a valid node count"
        );
        assert_eq!(
            parse_node_count("2-4-6").unwrap_err().to_string(),
            "\"4-6\" is not a valid node count"
        );
        assert_eq!(
            parse_node_count("k-2").unwrap_err().to_string(),
            "\"k\" is not a valid node count"
        );
        assert_eq!(
            parse_node_count("").unwrap_err().to_string(),
            "\"\" is not a valid node count"
        );
        assert_eq!(
            parse_node_count("3-2").unwrap_err().to_string(),
            "Maximum node count 2 is less than minimum node count 3"
        );
        assert_eq!(
            parse_node_count("2--3").unwrap_err().to_string(),
            "Maximum node count -3 is less than minimum node count 2"
        );
    }

    #[test]
    fn whitespace_and_overflow() {
        assert_eq!(parse_node_count(" 2- 4"), nc(2, 4));
        assert_eq!(parse_node_count("2k "), nc(2048, 2048));
        assert!(parse_node_count("2 k").is_err());
        assert!(parse_node_count("2147483648").is_err());
        assert!(parse_node_count("2097152k").is_err());
        assert_eq!(
            parse_node_count("2097151k"),
            nc(2_147_482_624, 2_147_482_624)
        );
    }

    #[test]
    fn display_as_num_nodes() {
        assert_eq!(NodeCount { min: 2, max: 2 }.to_string(), "2");
        assert_eq!(NodeCount { min: 2, max: 4 }.to_string(), "2-4");
        assert_eq!(NodeCount { min: 1, max: 0 }.to_string(), "1");
    }
}
