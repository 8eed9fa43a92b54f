//! Typed values with Slurm's conversion rules (`strtoul` with base prefixes, a `k` multiplier, `INFINITE` and
//! `UNLIMITED`) and its error texts, plus the key tables that say which type each key has.

use super::error::{ConfError, ConfErrorKind, Location};
use super::lexer::{is_blank, leftover_text, next_pair, Pair};

/// Slurm's `INFINITE16`.
pub const INFINITE16: u16 = u16::MAX;
/// Slurm's `INFINITE`.
pub const INFINITE: u32 = u32::MAX;
/// Slurm's `INFINITE64`.
pub const INFINITE64: u64 = u64::MAX;

/// How a key's value is converted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Str,
    U16,
    U32,
    U64,
    Bool,
    /// Accepted but only warned about (`The option "X" is defunct`).
    Defunct,
}

/// A converted value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Str(String),
    U16(u16),
    U32(u32),
    U64(u64),
    Bool(bool),
}

/// A key a table accepts, spelled as Slurm documents it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeySpec {
    pub name: &'static str,
    pub kind: Kind,
}

pub(crate) const fn spec(name: &'static str, kind: Kind) -> KeySpec {
    KeySpec { name, kind }
}

pub(crate) fn find_spec<'t>(table: &'t [KeySpec], key: &str) -> Option<&'t KeySpec> {
    table.iter().find(|s| s.name.eq_ignore_ascii_case(key))
}

/// What C's `strtoul(value, &end, 0)` reports.
struct StrToUl {
    value: u64,
    /// Bytes consumed; 0 when no digits were found.
    used: usize,
    overflow: bool,
}

fn strtoul(s: &str) -> StrToUl {
    let b = s.as_bytes();
    let mut i = b
        .iter()
        .take_while(|c| c.is_ascii_whitespace() || **c == 0x0b)
        .count();
    let negative = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let (radix, digits_at) = match (b.get(i), b.get(i + 1), b.get(i + 2)) {
        (Some(b'0'), Some(b'x' | b'X'), Some(c)) if c.is_ascii_hexdigit() => (16, i + 2),
        (Some(b'0'), _, _) => (8, i),
        _ => (10, i),
    };
    let mut value: u64 = 0;
    let mut overflow = false;
    let mut end = digits_at;
    while let Some(d) = b.get(end).and_then(|c| char::from(*c).to_digit(radix)) {
        match value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        end += 1;
    }
    if end == digits_at {
        return StrToUl {
            value: 0,
            used: 0,
            overflow: false,
        };
    }
    let value = if overflow {
        u64::MAX
    } else if negative {
        value.wrapping_neg()
    } else {
        value
    };
    StrToUl {
        value,
        used: end,
        overflow,
    }
}

fn is_infinite(value: &str) -> bool {
    value.eq_ignore_ascii_case("UNLIMITED") || value.eq_ignore_ascii_case("INFINITE")
}

/// Shared checks of Slurm's unsigned handlers. `kilo` enables the `k`/`K` multiplier of the 32 and 64-bit ones.
fn unsigned(
    key: &str,
    value: &str,
    kilo: bool,
    max: u64,
    not_a_number: ConfErrorKind,
) -> Result<Option<u64>, ConfErrorKind> {
    let parsed = strtoul(value);
    let mut num = parsed.value;
    let mut end = parsed.used;
    if kilo && matches!(value.as_bytes().get(end), Some(b'k' | b'K')) {
        num = num.wrapping_mul(1024);
        end += 1;
    }
    let owned = || (key.to_string(), value.to_string());
    if end != value.len() {
        return if is_infinite(value) {
            Ok(None)
        } else {
            Err(not_a_number)
        };
    }
    if parsed.overflow {
        let (key, value) = owned();
        return Err(ConfErrorKind::OutOfRange { key, value });
    }
    if value.starts_with('-') {
        let (key, value) = owned();
        return Err(ConfErrorKind::Negative { key, value });
    }
    if num > max {
        let (key, value) = owned();
        return Err(ConfErrorKind::TooLarge { key, value, max });
    }
    Ok(Some(num))
}

pub(crate) fn parse_u16(key: &str, value: &str) -> Result<u16, ConfErrorKind> {
    let nan = ConfErrorKind::NotANumber16 {
        key: key.to_string(),
        value: value.to_string(),
    };
    let n = unsigned(key, value, false, u64::from(u16::MAX), nan)?;
    Ok(n.map_or(INFINITE16, |n| u16::try_from(n).unwrap_or(INFINITE16)))
}

pub(crate) fn parse_u32(key: &str, value: &str) -> Result<u32, ConfErrorKind> {
    let nan = ConfErrorKind::NotANumber {
        key: key.to_string(),
        value: value.to_string(),
    };
    let n = unsigned(key, value, true, u64::from(u32::MAX), nan)?;
    Ok(n.map_or(INFINITE, |n| u32::try_from(n).unwrap_or(INFINITE)))
}

pub(crate) fn parse_u64(key: &str, value: &str) -> Result<u64, ConfErrorKind> {
    let nan = ConfErrorKind::NotANumber {
        key: key.to_string(),
        value: value.to_string(),
    };
    Ok(unsigned(key, value, true, u64::MAX, nan)?.unwrap_or(INFINITE64))
}

pub(crate) fn parse_bool(key: &str, value: &str) -> Result<bool, ConfErrorKind> {
    let is = |words: &[&str]| words.iter().any(|w| w.eq_ignore_ascii_case(value));
    if is(&["yes", "up", "true", "1"]) {
        Ok(true)
    } else if is(&["no", "down", "false", "0"]) {
        Ok(false)
    } else {
        Err(ConfErrorKind::NotABoolean {
            key: key.to_string(),
            value: value.to_string(),
        })
    }
}

/// Converts `pair` by `spec`; `Ok(None)` for defunct keys, whose warning the caller records.
pub(crate) fn convert(spec: &KeySpec, pair: &Pair) -> Result<Option<Value>, ConfErrorKind> {
    let (k, v) = (pair.key.as_str(), pair.value.as_str());
    Ok(Some(match spec.kind {
        Kind::Str => Value::Str(pair.value.clone()),
        Kind::U16 => Value::U16(parse_u16(k, v)?),
        Kind::U32 => Value::U32(parse_u32(k, v)?),
        Kind::U64 => Value::U64(parse_u64(k, v)?),
        Kind::Bool => Value::Bool(parse_bool(k, v)?),
        Kind::Defunct => return Ok(None),
    }))
}

/// The pairs after a line's first key (`NodeName=n1 CPUs=2 ...`), converted by a sub-table.
#[derive(Debug, Clone, Default)]
pub(crate) struct Fields {
    /// Converted values by canonical key; a later duplicate replaces an earlier one.
    values: Vec<(&'static str, Value)>,
    /// Every pair as written, including unknown keys kept in lenient mode.
    pub pairs: Vec<Pair>,
}

impl Fields {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    }

    pub fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    pub fn str(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        }
    }

    pub fn u16(&self, key: &str) -> Option<u16> {
        match self.get(key) {
            Some(Value::U16(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn u32(&self, key: &str) -> Option<u32> {
        match self.get(key) {
            Some(Value::U32(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn u64(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Some(Value::U64(n)) => Some(*n),
            _ => None,
        }
    }

    pub fn bool(&self, key: &str) -> Option<bool> {
        match self.get(key) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// Slurm's `s_p_hashtbl_merge` for `DEFAULT` lines: keys this line lacks are taken from `older`.
    pub fn merged_over(mut self, older: &Fields) -> Fields {
        let missing: Vec<_> = older
            .values
            .iter()
            .filter(|(k, _)| !self.has(k))
            .cloned()
            .collect();
        self.values.splice(0..0, missing);
        self
    }

    fn set(&mut self, key: &'static str, value: Value) {
        self.values.retain(|(k, _)| *k != key);
        self.values.push((key, value));
    }
}

/// Parses the rest of a line with a sub-table, as Slurm's `s_p_parse_line`: the first unknown key or bad value
/// stops the line and reports the text from that pair on as a parse error.
pub(crate) fn parse_fields(
    table: &[KeySpec],
    rest: &str,
    at: &Location,
    lenient: bool,
    errors: &mut Vec<ConfError>,
) -> Fields {
    let mut fields = Fields::default();
    let mut text = rest;
    while let Some((pair, after)) = next_pair(text) {
        let problem = match find_spec(table, &pair.key) {
            None if lenient => None,
            None => Some(ConfErrorKind::UnrecognizedKey {
                key: pair.key.clone(),
            }),
            Some(s) => match convert(s, &pair) {
                Ok(Some(v)) => {
                    fields.set(s.name, v);
                    None
                }
                Ok(None) => None,
                Err(e) => Some(e),
            },
        };
        if let Some(kind) = problem {
            errors.push(ConfError::at(at, kind));
            errors.push(ConfError::at(
                at,
                ConfErrorKind::Parse {
                    leftover: leftover_text(text),
                },
            ));
            return fields;
        }
        fields.pairs.push(pair);
        text = after;
    }
    if !is_blank(text) {
        errors.push(ConfError::at(
            at,
            ConfErrorKind::Parse {
                leftover: leftover_text(text),
            },
        ));
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u16_rules_and_texts() {
        assert_eq!(parse_u16("KillWait", "30"), Ok(30));
        assert_eq!(parse_u16("KillWait", "0x10"), Ok(16));
        assert_eq!(parse_u16("KillWait", "010"), Ok(8));
        assert_eq!(parse_u16("KillWait", "infinite"), Ok(INFINITE16));
        assert_eq!(parse_u16("KillWait", ""), Ok(0));
        let err = |v: &str| parse_u16("KillWait", v).unwrap_err().to_string();
        assert_eq!(err("abc"), "KillWait value \"abc\" is not a valid number");
        assert_eq!(err("5 6"), "KillWait value \"5 6\" is not a valid number");
        assert_eq!(err("-5"), "KillWait value (-5) is less than zero");
        assert_eq!(
            err("99999999"),
            "KillWait value (99999999) is greater than 65535"
        );
        assert_eq!(err("4k"), "KillWait value \"4k\" is not a valid number");
    }

    #[test]
    fn u32_and_u64_rules_and_texts() {
        assert_eq!(parse_u32("TmpDisk", "4k"), Ok(4096));
        assert_eq!(parse_u64("RealMemory", "4K"), Ok(4096));
        assert_eq!(parse_u64("RealMemory", "UNLIMITED"), Ok(INFINITE64));
        let err32 = |v: &str| parse_u32("TmpDisk", v).unwrap_err().to_string();
        assert_eq!(err32("abc"), "TmpDisk value (abc) is not a valid number");
        assert_eq!(
            err32("5000000000"),
            "TmpDisk value (5000000000) is greater than 4294967295"
        );
        assert_eq!(
            err32("99999999999999999999999"),
            "TmpDisk value (99999999999999999999999) is out of range"
        );
        let err64 = |v: &str| parse_u64("RealMemory", v).unwrap_err().to_string();
        assert_eq!(err64("-1"), "RealMemory value (-1) is less than zero");
    }

    #[test]
    fn booleans() {
        assert_eq!(parse_bool("Default", "YES"), Ok(true));
        assert_eq!(parse_bool("Default", "down"), Ok(false));
        assert_eq!(
            parse_bool("Default", "maybe").unwrap_err().to_string(),
            "\"maybe\" is not a valid option for \"Default\""
        );
    }

    #[test]
    fn bad_field_stops_the_line() {
        let table = [spec("CPUs", Kind::U16), spec("Gres", Kind::Str)];
        let mut errors = Vec::new();
        let at = Location::new("f", 3);
        let fields = parse_fields(
            &table,
            " Gres=gpu:1 CPUs=abc Gres=x",
            &at,
            false,
            &mut errors,
        );
        assert_eq!(fields.str("gres"), Some("gpu:1"));
        let texts: Vec<_> = errors.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "CPUs value \"abc\" is not a valid number in file f line 3",
                "Parse error in file f line 3: \" CPUs=abc Gres=x\""
            ]
        );
    }
}
