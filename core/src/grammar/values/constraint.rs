//! Node feature constraints: `-C/--constraint=<expr>` with `&` (or `,`) for AND, `|` for OR, `*N` node counts,
//! `(...)` groups, and one `[...]` set (matching OR `[a|b]` or multiple counts `[a*2&b*4]`).
//!
//! Slurm 22.05 semantics, as slurmctld validates them: no nested parentheses, a single bracket set that takes no
//! count, inside brackets either only `|` without counts or only `&` with a count on every item; an operator may
//! trail the whole expression (`intel&`) but not lead it or trail a group; counts are 1 to 2^31-1 and a later `*N`
//! replaces an earlier one. A name may directly follow `)` or `]` (`(intel)amd`), read here as AND. Operators have no
//! precedence: Slurm combines terms left to right. scontrol prints the text as given with `,` written as `&`.

use std::fmt;

/// How two terms combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Op {
    /// `&` or `,`
    And,
    /// `|`
    Or,
}

impl Op {
    fn symbol(self) -> char {
        match self {
            Op::And => '&',
            Op::Or => '|',
        }
    }
}

/// What a term names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Atom {
    /// A feature name.
    Feature(String),
    /// `( ... )`
    Group(Expr),
    /// `[ ... ]`
    Bracket(Expr),
}

/// A term with its optional node count.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Term {
    /// The feature or group.
    pub atom: Atom,
    /// `*N`: at least N of the job's nodes must match.
    pub count: Option<u32>,
}

/// Terms joined by operators, combined left to right.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Expr {
    /// The first term.
    pub first: Box<Term>,
    /// The following operators and terms.
    pub rest: Vec<(Op, Term)>,
}

/// A parsed `--constraint`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub struct Constraint {
    /// The expression; `None` for an empty constraint.
    pub expr: Option<Expr>,
    /// A trailing operator, which Slurm keeps and prints.
    pub trailing: Option<Op>,
    /// The text as Slurm stores and prints it (`,` written as `&`).
    pub text: String,
}

/// A rejected constraint (sbatch prints it after "Batch job submission failed: ").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintError {
    /// Malformed, or naming a feature no node has.
    #[error("Invalid feature specification")]
    Invalid,
}

const SPECIAL: &[char] = &['&', '|', ',', '*', '[', ']', '(', ')'];

/// Where a sequence of terms sits, which decides what may appear in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Top,
    Group,
    Bracket,
}

struct Parser<'a> {
    rest: &'a str,
    in_group: bool,
    in_bracket: bool,
    brackets_seen: bool,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<char> {
        self.rest.chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn op(&mut self) -> Option<Op> {
        let op = match self.peek()? {
            '&' | ',' => Op::And,
            '|' => Op::Or,
            _ => return None,
        };
        self.rest = &self.rest[1..];
        Some(op)
    }

    fn name(&mut self) -> Result<String, ConstraintError> {
        let len = self
            .rest
            .find(|c: char| SPECIAL.contains(&c) || c.is_whitespace())
            .unwrap_or(self.rest.len());
        if len == 0 {
            return Err(ConstraintError::Invalid);
        }
        let (name, rest) = self.rest.split_at(len);
        self.rest = rest;
        Ok(name.to_string())
    }

    /// `*N` suffixes; Slurm keeps the last one.
    fn counts(&mut self) -> Result<Option<u32>, ConstraintError> {
        let mut count = None;
        while self.eat('*') {
            let digits = self.rest.bytes().take_while(u8::is_ascii_digit).count();
            let n = self.rest[..digits]
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=i32::MAX as u32).contains(n));
            count = Some(n.ok_or(ConstraintError::Invalid)?);
            self.rest = &self.rest[digits..];
        }
        Ok(count)
    }

    fn term(&mut self) -> Result<Term, ConstraintError> {
        let atom = if self.eat('(') {
            if self.in_group {
                return Err(ConstraintError::Invalid);
            }
            self.in_group = true;
            let inner = self.sequence(Context::Group)?;
            self.in_group = false;
            if !self.eat(')') {
                return Err(ConstraintError::Invalid);
            }
            Atom::Group(inner)
        } else if self.eat('[') {
            if self.brackets_seen {
                return Err(ConstraintError::Invalid);
            }
            self.brackets_seen = true;
            self.in_bracket = true;
            let inner = self.sequence(Context::Bracket)?;
            self.in_bracket = false;
            if !self.eat(']') {
                return Err(ConstraintError::Invalid);
            }
            check_bracket(&inner)?;
            if self.peek() == Some('*') {
                return Err(ConstraintError::Invalid);
            }
            return Ok(Term {
                atom: Atom::Bracket(inner),
                count: None,
            });
        } else {
            Atom::Feature(self.name()?)
        };
        Ok(Term {
            atom,
            count: self.counts()?,
        })
    }

    /// Whether a feature name starts here.
    fn at_name(&self) -> bool {
        self.peek()
            .is_some_and(|c| !SPECIAL.contains(&c) && !c.is_whitespace())
    }

    /// Terms and operators up to the end of the text or the closing of the enclosing group.
    fn sequence(&mut self, context: Context) -> Result<Expr, ConstraintError> {
        let first = Box::new(self.term()?);
        let mut rest: Vec<(Op, Term)> = Vec::new();
        loop {
            let last = rest.last().map_or(first.as_ref(), |(_, t)| t);
            if matches!(last.atom, Atom::Group(_) | Atom::Bracket(_)) && self.at_name() {
                // Slurm accepts a name right after a closing group; it can only mean "and".
                rest.push((Op::And, self.term()?));
                continue;
            }
            let before = self.rest;
            let Some(op) = self.op() else {
                return Ok(Expr { first, rest });
            };
            let at_end = self.rest.is_empty();
            if at_end && context == Context::Top {
                // A trailing operator is kept for the caller.
                self.rest = before;
                return Ok(Expr { first, rest });
            }
            rest.push((op, self.term()?));
        }
    }
}

/// Inside brackets: one item of any kind, or only `|` without counts, or only `&` with a count on every item.
fn check_bracket(expr: &Expr) -> Result<(), ConstraintError> {
    if expr.rest.is_empty() {
        return Ok(());
    }
    let terms = std::iter::once(expr.first.as_ref()).chain(expr.rest.iter().map(|(_, t)| t));
    let ops: Vec<Op> = expr.rest.iter().map(|(op, _)| *op).collect();
    let counted: Vec<bool> = terms.map(|t| t.count.is_some()).collect();
    let all_or_uncounted = ops.iter().all(|o| *o == Op::Or) && counted.iter().all(|c| !c);
    let all_and_counted = ops.iter().all(|o| *o == Op::And) && counted.iter().all(|c| *c);
    if all_or_uncounted || all_and_counted {
        Ok(())
    } else {
        Err(ConstraintError::Invalid)
    }
}

/// Parses `--constraint` (syntax only; see [`Constraint::features`] to check names against the nodes).
pub fn parse_constraint(input: &str) -> Result<Constraint, ConstraintError> {
    if input.is_empty() {
        return Ok(Constraint::default());
    }
    let mut parser = Parser {
        rest: input,
        in_group: false,
        in_bracket: false,
        brackets_seen: false,
    };
    let expr = parser.sequence(Context::Top)?;
    let trailing = parser.op();
    if !parser.rest.is_empty() || parser.in_bracket {
        return Err(ConstraintError::Invalid);
    }
    Ok(Constraint {
        expr: Some(expr),
        trailing,
        text: input.replace(',', "&"),
    })
}

/// Parses `--constraint` and checks every feature name with `known` (slurmctld refuses names no node has).
pub fn parse_constraint_known(
    input: &str,
    known: &dyn Fn(&str) -> bool,
) -> Result<Constraint, ConstraintError> {
    let constraint = parse_constraint(input)?;
    if constraint.features().iter().all(|f| known(f)) {
        Ok(constraint)
    } else {
        Err(ConstraintError::Invalid)
    }
}

impl Expr {
    fn terms(&self) -> impl Iterator<Item = &Term> {
        std::iter::once(self.first.as_ref()).chain(self.rest.iter().map(|(_, t)| t))
    }

    fn collect_features<'a>(&'a self, out: &mut Vec<&'a str>) {
        for term in self.terms() {
            match &term.atom {
                Atom::Feature(name) => out.push(name),
                Atom::Group(inner) | Atom::Bracket(inner) => inner.collect_features(out),
            }
        }
    }

    /// Left to right, no precedence, as Slurm evaluates a node's features.
    fn matches(&self, has: &dyn Fn(&str) -> bool) -> bool {
        self.rest
            .iter()
            .fold(self.first.matches(has), |acc, (op, term)| match op {
                Op::And => acc && term.matches(has),
                Op::Or => acc || term.matches(has),
            })
    }
}

impl Term {
    fn matches(&self, has: &dyn Fn(&str) -> bool) -> bool {
        match &self.atom {
            Atom::Feature(name) => has(name),
            Atom::Group(inner) => inner.matches(has),
            // A node serves a bracket set when it fits any one of its alternatives or counted parts.
            Atom::Bracket(inner) => inner.terms().any(|t| t.matches(has)),
        }
    }
}

impl Constraint {
    /// Every feature name the constraint mentions, in order.
    pub fn features(&self) -> Vec<&str> {
        let mut out = Vec::new();
        if let Some(expr) = &self.expr {
            expr.collect_features(&mut out);
        }
        out
    }

    /// Whether a single node with the given features can serve the job (counts are not considered); an empty
    /// constraint matches every node.
    pub fn matches(&self, has: &dyn Fn(&str) -> bool) -> bool {
        self.expr.as_ref().is_none_or(|e| e.matches(has))
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.atom {
            Atom::Feature(name) => f.write_str(name)?,
            Atom::Group(inner) => write!(f, "({inner})")?,
            Atom::Bracket(inner) => write!(f, "[{inner}]")?,
        }
        if let Some(n) = self.count {
            write!(f, "*{n}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        for (op, term) in &self.rest {
            write!(f, "{}{term}", op.symbol())?;
        }
        Ok(())
    }
}

impl fmt::Display for Constraint {
    /// scontrol's `Features=` form: the text as given with `,` written as `&`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(input: &str) -> Result<String, ConstraintError> {
        parse_constraint(input).map(|c| c.to_string())
    }

    #[test]
    fn documented_forms() {
        for ok in [
            "intel",
            "intel&gpu",
            "intel|amd",
            "[rack1|rack2|rack3]",
            "[rack1*2&rack2*4]",
            "graphics*4",
            "[(knl&snc4&flat)*4&haswell*1]",
            "[(rack1|rack2)*1&(rack3)*2]",
        ] {
            assert_eq!(shown(ok).unwrap(), ok);
        }
        assert_eq!(shown("a,b").unwrap(), "a&b");
        assert_eq!(shown("a*2*3").unwrap(), "a*2*3");
        assert_eq!(
            parse_constraint("a*2*3").unwrap().expr.unwrap().first.count,
            Some(3)
        );
        let adjacent = parse_constraint("(a)b").unwrap().expr.unwrap();
        assert_eq!(adjacent.rest[0].0, Op::And);
        assert_eq!(adjacent.to_string(), "(a)&b");
        assert_eq!(shown("intel&").unwrap(), "intel&");
        assert_eq!(shown("").unwrap(), "");
    }

    #[test]
    fn rejected_forms() {
        for bad in [
            "&intel",
            "a&&b",
            "[a|b",
            "a|b]",
            "[a&b]",
            "[a*2|b*1]",
            "a*0",
            "a*x",
            "a*",
            "(a",
            "a)",
            "((a))",
            "a b",
            " a",
            "[a|b]*2",
            "[a|b][c]",
            "[]",
            "()",
            "[a|]",
            "(a&)",
            "a**2",
            "a*2147483648",
            "[a*2&b]",
            "a(b)",
            "(a)(b)",
            "a[b]",
            "a&,b",
        ] {
            assert_eq!(
                parse_constraint(bad),
                Err(ConstraintError::Invalid),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn evaluation_is_left_to_right() {
        let node = |features: &'static [&'static str]| move |f: &str| features.contains(&f);
        let c = parse_constraint("intel&a100|amd").unwrap();
        assert!(c.matches(&node(&["amd"])));
        assert!(c.matches(&node(&["intel", "a100"])));
        assert!(!c.matches(&node(&["intel"])));
        let c = parse_constraint("intel|a100&amd").unwrap();
        assert!(!c.matches(&node(&["intel"])));
        assert!(c.matches(&node(&["intel", "amd"])));
        assert!(parse_constraint("[a*2&b*2]")
            .unwrap()
            .matches(&node(&["b"])));
        assert!(parse_constraint("").unwrap().matches(&node(&[])));
    }

    #[test]
    fn known_features() {
        let known = |f: &str| ["intel", "amd"].contains(&f);
        assert!(parse_constraint_known("intel|amd", &known).is_ok());
        assert_eq!(
            parse_constraint_known("intel&bogus", &known),
            Err(ConstraintError::Invalid)
        );
        assert_eq!(
            parse_constraint("[a|b]&c").unwrap().features(),
            ["a", "b", "c"]
        );
    }
}
