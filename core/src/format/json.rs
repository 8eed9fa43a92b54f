//! `squeue --json` and `sinfo --json` in Slurm 22.05's `openapi/v0.0.38` layout, and the JSON writer that
//! reproduces json-c's pretty printing as Slurm uses it: two-space indents, `"key": value`, escaped `/`, empty
//! containers split over two lines, doubles always with a fraction, and no newline at the end.

use crate::format::FormatContext;
use crate::model::job::JobRecord;
use crate::model::records::NodeRecord;

/// The Slurm release Spur reports in `meta`.
const SLURM_MAJOR: i64 = 22;
const SLURM_MINOR: i64 = 5;
const SLURM_MICRO: i64 = 8;

/// A JSON value that keeps object keys in insertion order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// An object from `(key, value)` pairs.
    pub fn obj(pairs: Vec<(&str, Json)>) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// Serializes like json-c with `JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED`.
    pub fn to_pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, level: usize) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(i) => out.push_str(&i.to_string()),
            Json::Float(f) => out.push_str(&format_double(*f)),
            Json::Str(s) => escape_into(out, s),
            Json::Arr(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    indent(out, level + 1);
                    item.write(out, level + 1);
                }
                if !items.is_empty() {
                    out.push('\n');
                }
                indent(out, level);
                out.push(']');
            }
            Json::Obj(pairs) => {
                out.push_str("{\n");
                for (i, (key, value)) in pairs.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    indent(out, level + 1);
                    escape_into(out, key);
                    out.push_str(": ");
                    value.write(out, level + 1);
                }
                if !pairs.is_empty() {
                    out.push('\n');
                }
                indent(out, level);
                out.push('}');
            }
        }
    }
}

fn indent(out: &mut String, level: usize) {
    out.push_str(&"  ".repeat(level));
}

fn escape_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// json-c's `%.17g`, with `.0` added when the result would look like an integer.
fn format_double(f: f64) -> String {
    if !f.is_finite() {
        return "null".to_string();
    }
    if f == 0.0 {
        return "0.0".to_string();
    }
    let sci = format!("{:.16e}", f);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let text = if !(-4..17).contains(&exp) {
        let m = trim_fraction(mantissa);
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        let decimals = (16 - exp).max(0) as usize;
        trim_fraction(&format!("{f:.decimals$}"))
    };
    if text.contains(['.', 'e']) {
        text
    } else {
        format!("{text}.0")
    }
}

fn trim_fraction(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// The `meta` block and empty `errors` list every v0.0.38 response starts with, followed by `key: items`.
pub fn document(key: &str, items: Vec<Json>) -> Json {
    with_errors(Vec::new(), vec![(key, Json::Arr(items))])
}

/// A v0.0.38 response: `meta`, then `errors`, then the other members in order.
pub fn with_errors(errors: Vec<Json>, rest: Vec<(&str, Json)>) -> Json {
    let mut pairs = vec![("meta", meta()), ("errors", Json::Arr(errors))];
    pairs.extend(rest);
    Json::obj(pairs)
}

/// The `meta` block: which plugin answered and the Slurm release Spur reproduces.
pub fn meta() -> Json {
    Json::obj(vec![
        (
            "plugin",
            Json::obj(vec![
                ("type", Json::str("openapi/v0.0.38")),
                ("name", Json::str("Slurm OpenAPI v0.0.38")),
            ]),
        ),
        (
            "Slurm",
            Json::obj(vec![
                (
                    "version",
                    Json::obj(vec![
                        ("major", Json::Int(SLURM_MAJOR)),
                        ("micro", Json::Int(SLURM_MICRO)),
                        ("minor", Json::Int(SLURM_MINOR)),
                    ]),
                ),
                (
                    "release",
                    Json::str(format!("{SLURM_MAJOR}.{SLURM_MINOR:02}.{SLURM_MICRO}")),
                ),
            ]),
        ),
    ])
}

/// `squeue --json`: every job the controller holds, in its order, pending array tasks folded.
pub fn squeue_json(jobs: &[JobRecord], ctx: &FormatContext) -> String {
    document("jobs", crate::format::json_jobs::jobs(jobs, ctx)).to_pretty()
}

/// `sinfo --json`: every node in node-table order.
pub fn sinfo_json(nodes: &[NodeRecord], ctx: &FormatContext) -> String {
    document(
        "nodes",
        nodes
            .iter()
            .map(|n| crate::format::json_nodes::node(n, ctx))
            .collect(),
    )
    .to_pretty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_printing_matches_json_c() {
        let v = Json::obj(vec![
            ("a", Json::Arr(vec![])),
            ("b", Json::obj(vec![])),
            ("c", Json::Arr(vec![Json::Int(1), Json::str("x/y")])),
            ("d", Json::Float(2.0)),
            ("e", Json::Null),
        ]);
        assert_eq!(
            v.to_pretty(),
            "{\n  \"a\": [\n  ],\n  \"b\": {\n  },\n  \"c\": [\n    1,\n    \"x\\/y\"\n  ],\n  \"d\": 2.0,\n  \"e\": null\n}"
        );
    }

    #[test]
    fn doubles_use_17_significant_digits() {
        assert_eq!(format_double(0.0), "0.0");
        assert_eq!(format_double(64.0), "64.0");
        assert_eq!(format_double(0.5), "0.5");
        assert_eq!(format_double(0.3), "0.29999999999999999");
        assert_eq!(format_double(1e20), "1e+20");
    }

    #[test]
    fn escapes_control_characters() {
        let mut out = String::new();
        escape_into(&mut out, "a\"\\\n\u{1}");
        assert_eq!(out, "\"a\\\"\\\\\\n\\u0001\"");
    }
}
