//! The column machinery squeue and sinfo share: parsing `-o "%.18i %-10j"` and `-O "JobID:10,Name:.20"` into
//! columns, and padding/truncating each cell exactly as Slurm's `_print_str` does (left-justified cells are always
//! cut to the width, right-justified ones only when the field asks for it).

use std::borrow::Cow;

/// One output column: which field, its width (0 = as wide as the value), justification and the literal text that
/// follows it. `field == None` is an invalid specification, which Slurm keeps as literal text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column<F> {
    pub field: Option<F>,
    pub width: usize,
    pub right: bool,
    pub suffix: String,
}

/// A parsed format: literal text before the first field, the columns, and warnings for invalid specifications
/// (the texts Slurm prints on stderr while still printing the rest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout<F> {
    pub prefix: String,
    pub columns: Vec<Column<F>>,
    pub warnings: Vec<String>,
}

/// A cell's text and whether a right-justified rendering may cut it to the width. The text is borrowed from
/// the record where it can be, so listing 100,000 jobs does not copy every name it prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell<'a> {
    pub text: Cow<'a, str>,
    pub cut: bool,
}

impl<'a> Cell<'a> {
    pub fn cut(text: impl Into<Cow<'a, str>>) -> Cell<'a> {
        Cell {
            text: text.into(),
            cut: true,
        }
    }

    pub fn whole(text: impl Into<Cow<'a, str>>) -> Cell<'a> {
        Cell {
            text: text.into(),
            cut: false,
        }
    }
}

/// Pads (and maybe truncates) one value like Slurm's `_print_str(str, width, right, cut_output)`: `%Ns` for right
/// justification, `%.Ns` for left (which truncates even when not cutting), then spaces up to the width.
pub fn pad(text: &str, width: usize, right: bool, cut: bool) -> String {
    let mut out = String::with_capacity(width.max(text.len()));
    pad_into(&mut out, text, width, right, cut);
    out
}

/// [`pad`], appending to `out` without building intermediate strings (squeue prints 100,000 lines of them).
pub fn pad_into(out: &mut String, text: &str, width: usize, right: bool, cut: bool) {
    if width == 0 {
        out.push_str(text);
        return;
    }
    let len = text.chars().count();
    if len < width {
        if right {
            push_spaces(out, width - len);
            out.push_str(text);
        } else {
            out.push_str(text);
            push_spaces(out, width - len);
        }
    } else if right && !cut {
        out.push_str(text);
    } else {
        let end = text
            .char_indices()
            .nth(width)
            .map_or(text.len(), |(i, _)| i);
        out.push_str(&text[..end]);
    }
}

fn push_spaces(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Renders one line (without the newline) given each field's cell; the closure also gets the column width,
/// which sinfo's default-partition marker depends on.
pub fn render_line<'c, F: Copy>(
    layout: &Layout<F>,
    value: impl FnMut(F, usize) -> Cell<'c>,
) -> String {
    let mut line = String::new();
    render_line_into(&mut line, layout, value);
    line
}

/// [`render_line`], appended to `out` (a listing of 100,000 jobs builds no string per line).
pub fn render_line_into<'c, F: Copy>(
    out: &mut String,
    layout: &Layout<F>,
    mut value: impl FnMut(F, usize) -> Cell<'c>,
) {
    out.push_str(&layout.prefix);
    for column in &layout.columns {
        if let Some(field) = column.field {
            let cell = value(field, column.width);
            pad_into(out, &cell.text, column.width, column.right, cell.cut);
        }
        out.push_str(&column.suffix);
    }
}

/// Parses a `-o` format: `%[.][size]letter[suffix]` tokens; text before the first `%` is a prefix.
/// `what` names the record kind in warnings ("job", "node"), as Slurm's messages do.
pub fn parse_short<F>(format: &str, what: &str, lookup: impl Fn(char) -> Option<F>) -> Layout<F> {
    let (prefix, rest) = match format.find('%') {
        Some(at) => (format[..at].to_string(), &format[at..]),
        None => (format.to_string(), ""),
    };
    let mut columns = Vec::new();
    let mut warnings = Vec::new();
    // Slurm splits with strtok on '%', so runs of '%' act as one separator.
    for token in rest.split('%').filter(|t| !t.is_empty()) {
        let (right, after_dot) = match token.strip_prefix('.') {
            Some(r) => (true, r),
            None => (false, token),
        };
        let digits = after_dot.chars().take_while(char::is_ascii_digit).count();
        let width = after_dot[..digits].parse::<usize>().unwrap_or(0);
        let mut chars = after_dot[digits..].chars();
        let letter = chars.next();
        let suffix = chars.as_str().to_string();
        match letter.and_then(&lookup) {
            Some(field) => columns.push(Column {
                field: Some(field),
                width,
                right,
                suffix,
            }),
            None => {
                let shown = letter.map(String::from).unwrap_or_default();
                warnings.push(format!("Invalid {what} format specification: {shown}"));
                columns.push(Column {
                    field: None,
                    width,
                    right,
                    suffix: format!("%{token}"),
                });
            }
        }
    }
    Layout {
        prefix,
        columns,
        warnings,
    }
}

/// Parses a `-O` format: comma-separated `name[:[.][size][suffix]]`; without `:` a field is 20 wide.
pub fn parse_long<F>(format: &str, what: &str, lookup: impl Fn(&str) -> Option<F>) -> Layout<F> {
    let mut columns = Vec::new();
    let mut warnings = Vec::new();
    for token in format.split(',').filter(|t| !t.is_empty()) {
        let (name, width, right, suffix) = match token.split_once(':') {
            None => (token, 20, false, String::new()),
            Some((name, spec)) => {
                let (right, spec) = match spec.strip_prefix('.') {
                    Some(s) => (true, s),
                    None => (false, spec),
                };
                let digits = spec.chars().take_while(char::is_ascii_digit).count();
                let width = spec[..digits].parse::<usize>().unwrap_or(0);
                (name, width, right, spec[digits..].to_string())
            }
        };
        let field = lookup(&name.to_ascii_lowercase());
        if field.is_none() {
            warnings.push(format!("Invalid {what} format specification: {name}"));
        }
        columns.push(Column {
            field,
            width,
            right,
            suffix,
        });
    }
    Layout {
        prefix: String::new(),
        columns,
        warnings,
    }
}

/// Parses a `-o` format, expanding `%all` to every letter; under `%all` letters without a field are skipped
/// silently, as Slurm does.
pub fn parse_short_or_all<F>(
    format: &str,
    upper_suffix: &str,
    what: &str,
    lookup: impl Fn(char) -> Option<F>,
) -> Layout<F> {
    if !format.eq_ignore_ascii_case("%all") {
        return parse_short(format, what, lookup);
    }
    let mut layout = parse_short(&all_letters(upper_suffix), what, lookup);
    layout.warnings.clear();
    for column in layout.columns.iter_mut().filter(|c| c.field.is_none()) {
        column.suffix = column
            .suffix
            .trim_start_matches(|c: char| c != '|')
            .to_string();
    }
    layout
}

/// The `%all` format: every letter a..z then A..Z separated by `|`; `upper_suffix` follows each capital letter
/// (sinfo puts a space there, squeue nothing).
pub fn all_letters(upper_suffix: &str) -> String {
    let mut out = String::from("%a");
    for c in 'b'..='z' {
        out.push_str(&format!("|%{c}"));
    }
    for c in 'A'..='Z' {
        out.push_str(&format!("|%{c}{upper_suffix}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Widths count characters, not bytes, so a multi-byte name is cut between characters.
    #[test]
    fn pad_counts_characters() {
        assert_eq!(
            pad("\u{e9}\u{6f22}\u{5b57}", 2, false, true),
            "\u{e9}\u{6f22}"
        );
        assert_eq!(pad("\u{e9}", 3, true, true), "  \u{e9}");
        assert_eq!(pad("\u{e9}\u{e9}", 3, false, true), "\u{e9}\u{e9} ");
    }

    #[test]
    fn pad_follows_print_str() {
        assert_eq!(pad("23", 18, true, true), "                23");
        assert_eq!(pad("sleeper", 8, true, true), " sleeper");
        assert_eq!(pad("TIME_LIMIT", 9, true, true), "TIME_LIMI");
        assert_eq!(pad("waiting_long", 8, false, false), "waiting_");
        assert_eq!(pad("node[1-100]", 5, true, false), "node[1-100]");
        assert_eq!(pad("ab", 5, false, true), "ab   ");
        assert_eq!(pad("anything", 0, true, true), "anything");
    }

    fn letters(c: char) -> Option<char> {
        c.is_ascii_lowercase().then_some(c)
    }

    #[test]
    fn parses_short_tokens() {
        let layout = parse_short("id:%.18i|%-5j %x", "job", letters);
        assert_eq!(layout.prefix, "id:");
        assert_eq!(layout.columns.len(), 3);
        assert_eq!(
            layout.columns[0],
            Column {
                field: Some('i'),
                width: 18,
                right: true,
                suffix: "|".into()
            }
        );
        // "-5" is not a size: '-' becomes the letter, an invalid one kept as literal text.
        assert_eq!(layout.columns[1].field, None);
        assert_eq!(layout.columns[1].suffix, "%-5j ");
        assert_eq!(
            layout.warnings,
            vec!["Invalid job format specification: -".to_string()]
        );
        assert_eq!(
            layout.columns[2],
            Column {
                field: Some('x'),
                width: 0,
                right: false,
                suffix: String::new()
            }
        );
    }

    #[test]
    fn parses_long_tokens() {
        let layout = parse_long("JobID:12,Name,State:.10,Bogus:5x", "job", |n| match n {
            "jobid" => Some(1),
            "name" => Some(2),
            "state" => Some(3),
            _ => None,
        });
        let shape: Vec<_> = layout
            .columns
            .iter()
            .map(|c| (c.field, c.width, c.right, c.suffix.as_str()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (Some(1), 12, false, ""),
                (Some(2), 20, false, ""),
                (Some(3), 10, true, ""),
                (None, 5, false, "x")
            ]
        );
        assert_eq!(layout.warnings.len(), 1);
    }

    #[test]
    fn renders_line_with_prefix_and_suffixes() {
        let layout = parse_short(">%5a|%.3b<", "job", letters);
        let line = render_line(&layout, |f, _| {
            Cell::cut(if f == 'a' { "x" } else { "long" })
        });
        assert_eq!(line, ">x    |lon<");
    }

    #[test]
    fn all_skips_letters_without_fields() {
        let layout =
            parse_short_or_all("%ALL", " ", "node", |c| (c == 'b' || c == 'Z').then_some(c));
        assert!(layout.warnings.is_empty());
        let line = render_line(&layout, |f, _| Cell::cut(f.to_string()));
        assert_eq!(line.matches('|').count(), 51);
        assert!(line.starts_with("|b|"));
        assert!(line.ends_with("|Z "));
    }

    #[test]
    fn all_letters_lists_52_fields() {
        let all = all_letters(" ");
        assert!(all.starts_with("%a|%b"));
        assert!(all.ends_with("|%Z "));
        assert_eq!(all.matches('%').count(), 52);
    }
}
