//! Reads the TSV vector files: `#` comment lines, one column-header line, then tab-separated rows.

use std::path::PathBuf;

/// One data row: its fields (with `\t`, `\n`, `\\` escapes undone) and its 1-based line number.
pub struct Row {
    pub line: usize,
    pub fields: Vec<String>,
}

impl Row {
    /// The field at `i`, or an empty string when the row is shorter (trailing empty columns).
    pub fn get(&self, i: usize) -> &str {
        self.fields.get(i).map(String::as_str).unwrap_or("")
    }
}

fn unescape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// Loads `core/tests/vectors/<name>`; `escaped` says whether fields use backslash escapes (our generated files do,
/// the transcribed reference files do not).
pub fn load(name: &str, escaped: bool) -> Vec<Row> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "vectors", name]
        .iter()
        .collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rows = Vec::new();
    let mut seen_header = false;
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        if !seen_header {
            seen_header = true;
            continue;
        }
        let fields = line
            .split('\t')
            .map(|f| if escaped { unescape(f) } else { f.to_string() })
            .collect();
        rows.push(Row {
            line: i + 1,
            fields,
        });
    }
    assert!(!rows.is_empty(), "{name} has no rows");
    rows
}
