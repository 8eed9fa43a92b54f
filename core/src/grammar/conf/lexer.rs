//! The line grammar shared by `slurm.conf`, `gres.conf` and their includes, as Slurm's `s_p_parse_file` reads it:
//! `#` starts a comment unless escaped, an odd run of trailing `\` joins the next line, `\x` becomes `x`, and a
//! line holds `key[op]=value` pairs where a value is `"quoted"` or a run of non-blank characters.

use nom::branch::alt;
use nom::bytes::complete::{take_while, take_while1};
use nom::character::complete::{char, one_of};
use nom::combinator::{opt, peek, recognize};
use nom::sequence::delimited;
use nom::IResult;

/// Slurm's `isspace()` set: the only blanks that separate pairs.
pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r')
}

/// One logical line: physical lines joined by continuations, comments and escapes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogicalLine {
    /// 1-based number of its first physical line.
    pub line: usize,
    pub text: String,
}

/// The operator between key and value. Slurm accepts `+=`, `-=`, `*=` and `/=` everywhere; plain settings treat
/// them all as `=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Operator {
    #[default]
    Set,
    Add,
    Sub,
    Mul,
    Div,
}

impl Operator {
    /// The operator as written (`=`, `+=`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Set => "=",
            Self::Add => "+=",
            Self::Sub => "-=",
            Self::Mul => "*=",
            Self::Div => "/=",
        }
    }
}

/// One `key=value` as written: the key keeps its spelling, the value has its quotes removed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Pair {
    pub key: String,
    pub op: Operator,
    pub value: String,
}

/// Splits `text` into logical lines the way Slurm's reader does.
pub(crate) fn logical_lines(text: &str) -> Vec<LogicalLine> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start = 0;
    let mut continuing = false;
    for (idx, physical) in text.split_inclusive('\n').enumerate() {
        if !continuing {
            start = idx + 1;
        }
        let code = strip_comment(physical);
        match continuation_cut(code) {
            Some(cut) => {
                current.push_str(&code[..cut]);
                continuing = true;
            }
            None => {
                current.push_str(code);
                out.push(LogicalLine {
                    line: start,
                    text: strip_escapes(&current),
                });
                current.clear();
                continuing = false;
            }
        }
    }
    if continuing {
        out.push(LogicalLine {
            line: start,
            text: strip_escapes(&current),
        });
    }
    out
}

/// Cuts the line at the first `#` preceded by an even number of backslashes.
pub(crate) fn strip_comment(line: &str) -> &str {
    let mut backslashes = 0usize;
    for (i, c) in line.char_indices() {
        match c {
            '#' if backslashes & 1 == 0 => return &line[..i],
            '\\' => backslashes += 1,
            _ => backslashes = 0,
        }
    }
    line
}

/// If the line ends (blanks aside) in an odd run of backslashes, the byte offset where the kept text ends: the
/// last backslash and everything after it go.
pub(crate) fn continuation_cut(line: &str) -> Option<usize> {
    let body = line.trim_end_matches(is_space);
    let run = body.len() - body.trim_end_matches('\\').len();
    (run % 2 == 1).then(|| body.len() - 1)
}

/// Drops every backslash and keeps the character after it, so `\\` is one backslash and `\#` a hash.
pub(crate) fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn blanks(input: &str) -> IResult<&str, &str> {
    take_while(is_space)(input)
}

fn key(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.')(input)
}

fn operator(input: &str) -> IResult<&str, Operator> {
    let (rest, op) = opt(one_of("-*+/"))(input)?;
    let (rest, _) = char('=')(rest)?;
    let op = match op {
        Some('+') => Operator::Add,
        Some('-') => Operator::Sub,
        Some('*') => Operator::Mul,
        Some('/') => Operator::Div,
        _ => Operator::Set,
    };
    Ok((rest, op))
}

/// A blank or the end of the line, not consumed.
fn value_end(input: &str) -> IResult<&str, ()> {
    if input.is_empty() {
        return Ok((input, ()));
    }
    let (rest, _) = peek(take_while1(is_space))(input)?;
    Ok((rest, ()))
}

fn quoted(input: &str) -> IResult<&str, &str> {
    let (rest, inner) = delimited(char('"'), take_while(|c| c != '"'), char('"'))(input)?;
    let (rest, ()) = value_end(rest)?;
    Ok((rest, inner))
}

fn bare(input: &str) -> IResult<&str, &str> {
    recognize(take_while1(|c| !is_space(c)))(input)
}

/// Parses one pair at the start of `input` (leading blanks allowed) and returns it with the unparsed rest.
///
/// A quoted value wins when the closing quote is followed by a blank or the end; otherwise the value is the
/// run of non-blank characters, quotes included, as with Slurm's regular expression.
pub(crate) fn next_pair(input: &str) -> Option<(Pair, &str)> {
    let parsed: IResult<&str, (&str, Operator, &str)> = (|i| {
        let (i, _) = blanks(i)?;
        let (i, k) = key(i)?;
        let (i, _) = blanks(i)?;
        let (i, op) = operator(i)?;
        let (i, _) = blanks(i)?;
        let (i, v) = alt((quoted, bare))(i)?;
        Ok((i, (k, op, v)))
    })(input);
    let (rest, (k, op, v)) = parsed.ok()?;
    Some((
        Pair {
            key: k.to_string(),
            op,
            value: v.to_string(),
        },
        rest,
    ))
}

/// True when only blanks are left.
/// The first `key=value` of a configuration line, the rest of the line after it; a line that is neither blank nor
/// starts with a pair is Slurm's parse error.
pub(crate) fn line_pair<'t>(
    at: &crate::grammar::conf::Location,
    text: &'t str,
    errors: &mut Vec<crate::grammar::conf::ConfError>,
) -> Option<(Pair, &'t str)> {
    let found = next_pair(text);
    if found.is_none() && !is_blank(text) {
        errors.push(crate::grammar::conf::ConfError::at(
            at,
            crate::grammar::conf::ConfErrorKind::Parse {
                leftover: leftover_text(text),
            },
        ));
    }
    found
}

pub(crate) fn is_blank(text: &str) -> bool {
    text.chars().all(is_space)
}

/// The leftover as Slurm prints it: trailing CR/LF removed.
pub(crate) fn leftover_text(text: &str) -> String {
    text.trim_end_matches(['\r', '\n']).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(input: &str) -> Vec<(usize, String)> {
        logical_lines(input)
            .into_iter()
            .map(|l| (l.line, l.text))
            .collect()
    }

    #[test]
    fn comments_and_escaped_hashes() {
        assert_eq!(
            texts("A=1 # c\nB=x\\#y\n"),
            vec![(1, "A=1 ".into()), (2, "B=x#y\n".into())]
        );
        assert_eq!(texts("B=x\\\\#y\n"), vec![(1, "B=x\\".into())]);
    }

    #[test]
    fn continuation_joins_lines_and_keeps_first_line_number() {
        let lines = texts("a=1\nNodeName=n1 \\\n  CPUs=2 \\  \n RealMemory=5\nb=2\n");
        assert_eq!(lines[1], (2, "NodeName=n1   CPUs=2  RealMemory=5\n".into()));
        assert_eq!(lines[2], (5, "b=2\n".into()));
    }

    #[test]
    fn even_backslashes_do_not_continue() {
        assert_eq!(
            texts("A=x\\\\\nB=1\n"),
            vec![(1, "A=x\\\n".into()), (2, "B=1\n".into())]
        );
        assert_eq!(texts("A=x\\\\\\\nB=1\n"), vec![(1, "A=x\\B=1\n".into())]);
    }

    #[test]
    fn continuation_after_a_comment() {
        assert_eq!(texts("A=1 \\ # more\nB=2"), vec![(1, "A=1 B=2".into())]);
    }

    #[test]
    fn pairs_quotes_and_operators() {
        let (p, rest) = next_pair("  Key = \"a b\"  Next=1").unwrap();
        assert_eq!(
            (p.key.as_str(), p.value.as_str(), rest),
            ("Key", "a b", "  Next=1")
        );
        let (p, rest) = next_pair("K+=5").unwrap();
        assert_eq!((p.op, p.value.as_str(), rest), (Operator::Add, "5", ""));
        let (p, rest) = next_pair("K=\"a\"b c").unwrap();
        assert_eq!((p.value.as_str(), rest), ("\"a\"b", " c"));
        let (p, _) = next_pair("K=\"\"").unwrap();
        assert_eq!(p.value, "");
        let (p, rest) = next_pair("K= Other=1").unwrap();
        assert_eq!((p.value.as_str(), rest), ("Other=1", ""));
        assert!(next_pair("K=\n").is_none());
        assert!(next_pair("garbage line").is_none());
    }
}
