//! Memory and disk sizes: `--mem`, `--mem-per-cpu`, `--mem-per-gpu`, `--tmp`, and the way Slurm prints sizes
//! (`MinMemoryCPU=1G`, `mem=23593M` in TRES strings).
//!
//! Input (Slurm 22.05 `str_to_mbytes`): optional leading whitespace and sign, decimal digits, then an optional unit
//! `K`, `M`, `G` or `T` (any case, optionally followed by `B`). No unit means megabytes; kilobytes round up to whole
//! megabytes. For `--mem`, zero means "all the memory of each node".

use nom::character::complete::{digit1, one_of};
use nom::combinator::{all_consuming, opt};
use nom::sequence::{pair, tuple};
use nom::IResult;

/// Which option a size was given to; it only changes the error text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SizeOption {
    /// `--mem`
    Mem,
    /// `--mem-per-cpu`
    MemPerCpu,
    /// `--mem-per-gpu`
    MemPerGpu,
    /// `--tmp`
    Tmp,
}

impl SizeOption {
    /// The option's name as Slurm writes it in error messages.
    pub fn name(self) -> &'static str {
        match self {
            SizeOption::Mem => "--mem",
            SizeOption::MemPerCpu => "--mem-per-cpu",
            SizeOption::MemPerGpu => "--mem-per-gpu",
            SizeOption::Tmp => "--tmp",
        }
    }
}

/// A rejected size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// Not a size, negative, or too large.
    #[error("Invalid {} specification", .0.name())]
    Invalid(SizeOption),
}

/// A memory request in megabytes, as the job options store it.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Megabytes(pub u64);

impl Megabytes {
    /// `--mem=0` asks for all the memory of each allocated node.
    pub fn is_all_memory(self) -> bool {
        self.0 == 0
    }
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// Sign, digits, and unit letter with its optional `B`.
type SizeParts<'a> = (Option<char>, &'a str, Option<(char, Option<char>)>);

fn size_parts(input: &str) -> IResult<&str, SizeParts<'_>> {
    tuple((
        opt(one_of("+-")),
        digit1,
        opt(pair(one_of("kKmMgGtT"), opt(one_of("bB")))),
    ))(input)
}

/// Parses a size to megabytes (Slurm's `str_to_mbytes`). Values Slurm would wrap around (a `T` or `G` product past
/// 64 bits) are refused rather than wrapped.
pub fn parse_megabytes(input: &str) -> Option<u64> {
    let trimmed = input.trim_start_matches(is_c_space);
    let (_, (sign, digits, unit)) = all_consuming(size_parts)(trimmed).ok()?;
    // Slurm reads the number with strtoll, so anything past i64::MAX is out of range.
    let n = digits
        .parse::<u64>()
        .ok()
        .filter(|n| i64::try_from(*n).is_ok())?;
    if sign == Some('-') && n != 0 {
        return None;
    }
    let mb = match unit.map(|(u, _)| u.to_ascii_uppercase()) {
        None | Some('M') => Some(n),
        Some('K') => Some(n.div_ceil(1024)),
        Some('G') => n.checked_mul(1024),
        Some('T') => n.checked_mul(1024 * 1024),
        Some(_) => None,
    }?;
    // NO_VAL64 and INFINITE64 are Slurm's markers, never sizes.
    (mb < super::NO_VAL64).then_some(mb)
}

/// Parses the value of a memory or disk option; the error names the option as Slurm does.
pub fn parse_size(option: SizeOption, input: &str) -> Result<Megabytes, SizeError> {
    parse_megabytes(input)
        .map(Megabytes)
        .ok_or(SizeError::Invalid(option))
}

/// Parses `--mem`: megabytes per node, zero meaning all of each node's memory.
pub fn parse_mem(input: &str) -> Result<Megabytes, SizeError> {
    parse_size(SizeOption::Mem, input)
}

/// Parses `--tmp`: minimum temporary disk per node in megabytes.
pub fn parse_tmp(input: &str) -> Result<Megabytes, SizeError> {
    parse_size(SizeOption::Tmp, input)
}

/// Units of Slurm's `convert_num_unit`, in increasing powers of 1024.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SizeUnit {
    /// Plain count, no suffix.
    None,
    /// `K`
    Kilo,
    /// `M`
    Mega,
    /// `G`
    Giga,
    /// `T`
    Tera,
    /// `P`
    Peta,
}

/// Suffix letters by power of 1024; past `P`, Slurm prints `?`.
fn unit_suffix(power: usize) -> &'static str {
    ["", "K", "M", "G", "T", "P"]
        .get(power)
        .copied()
        .unwrap_or("?")
}

fn format_number(num: f64, power: usize) -> String {
    let suffix = unit_suffix(power);
    if num.fract() == 0.0 {
        format!("{num:.0}{suffix}")
    } else {
        format!("{num:.2}{suffix}")
    }
}

/// Formats a number in the largest unit it fits (Slurm's `convert_num_unit` with no fixed unit). With `exact`, a
/// step up is taken only while the value is a multiple of 512, so `1024M` is `1G`, `1536M` is `1.50G` and `1025M`
/// stays `1025M`; without it every value of 1024 or more steps up (`1025M` is `1.00G`).
pub fn convert_num_unit(num: f64, unit: SizeUnit, exact: bool) -> String {
    // Slurm tests the integer part, so anything below one prints as a bare zero.
    if num < 1.0 {
        return "0".to_string();
    }
    let mut num = num;
    let mut power = unit as usize;
    while num >= 1024.0 && (!exact || (num as u64).is_multiple_of(512)) {
        num /= 1024.0;
        power += 1;
    }
    format_number(num, power)
}

/// Formats megabytes as scontrol prints memory (`MinMemoryCPU=1G`, `mem=23593M`, `0`).
pub fn format_megabytes(mb: u64) -> String {
    convert_num_unit(mb as f64, SizeUnit::Mega, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_rounding() {
        assert_eq!(parse_megabytes("10"), Some(10));
        assert_eq!(parse_megabytes("10M"), Some(10));
        assert_eq!(parse_megabytes("1k"), Some(1));
        assert_eq!(parse_megabytes("1024K"), Some(1));
        assert_eq!(parse_megabytes("1025k"), Some(2));
        assert_eq!(parse_megabytes("1G"), Some(1024));
        assert_eq!(parse_megabytes("2gb"), Some(2048));
        assert_eq!(parse_megabytes("1T"), Some(1_048_576));
        assert_eq!(parse_megabytes(" +7G"), Some(7168));
        assert_eq!(parse_megabytes("-0"), Some(0));
    }

    #[test]
    fn bad_sizes() {
        for bad in [
            "", "-1", "abc", "1 ", "1.5G", "1P", "1B", "1KiB", "1kk", "1e3", "0x10", "- 1",
        ] {
            assert_eq!(parse_megabytes(bad), None, "{bad:?}");
        }
        assert_eq!(parse_megabytes("9223372036854775808"), None);
        assert_eq!(parse_megabytes("17592186044416T"), None);
    }

    #[test]
    fn zero_mem_means_all_memory() {
        assert!(parse_mem("0").is_ok_and(Megabytes::is_all_memory));
        assert!(!parse_mem("1").is_ok_and(Megabytes::is_all_memory));
    }

    #[test]
    fn errors_name_the_option() {
        assert_eq!(
            parse_mem("x").unwrap_err().to_string(),
            "Invalid --mem specification"
        );
        assert_eq!(
            parse_tmp("-1").unwrap_err().to_string(),
            "Invalid --tmp specification"
        );
        assert_eq!(
            parse_size(SizeOption::MemPerCpu, "x")
                .unwrap_err()
                .to_string(),
            "Invalid --mem-per-cpu specification"
        );
        assert_eq!(
            parse_size(SizeOption::MemPerGpu, "x")
                .unwrap_err()
                .to_string(),
            "Invalid --mem-per-gpu specification"
        );
    }

    #[test]
    fn formats_match_captures() {
        assert_eq!(format_megabytes(1024), "1G");
        assert_eq!(format_megabytes(2048), "2G");
        assert_eq!(format_megabytes(23593), "23593M");
        assert_eq!(format_megabytes(1000), "1000M");
        assert_eq!(format_megabytes(0), "0");
        assert_eq!(format_megabytes(1536), "1.50G");
        assert_eq!(convert_num_unit(23593.0, SizeUnit::Mega, false), "23.04G");
        assert_eq!(
            convert_num_unit(1024f64.powi(5), SizeUnit::Mega, true),
            "1?"
        );
    }
}
