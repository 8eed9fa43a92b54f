//! The table layout Slurm's accounting commands share (its `print_fields`): fixed-width columns with a header and
//! a line of dashes, or `-p`/`-P` fields joined by a delimiter. sacct and sstat print through it; each keeps its
//! own field table and values.

/// One chosen column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub name: &'static str,
    /// Negative: left-justified.
    pub width: i32,
}

/// How the table is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    #[default]
    Columns,
    /// `-p`: the delimiter after every field.
    Parsable,
    /// `-P`: the delimiter between fields.
    Parsable2,
}

/// `--helpformat`: the field names, four to a line, each padded to 20 (the last of a line to 19).
pub fn help_format(fields: &[(&str, i32)]) -> String {
    let mut out = String::new();
    for row in fields.chunks(4) {
        for (name, _) in row {
            out.push_str(&format!("{name:<20}"));
        }
        out.pop();
        out.push('\n');
    }
    out
}

/// The header: the names cut to their columns and a line of dashes, or the names joined as a row.
pub fn header(columns: &[Column], layout: Layout, delimiter: &str) -> String {
    match layout {
        Layout::Columns => {
            let mut out = String::new();
            for column in columns {
                let width = column.width.unsigned_abs() as usize;
                let name: String = column.name.chars().take(width).collect();
                out.push_str(&pad(&name, column.width));
                out.push(' ');
            }
            out.push('\n');
            for column in columns {
                out.push_str(&"-".repeat(column.width.unsigned_abs() as usize));
                out.push(' ');
            }
            out.push('\n');
            out
        }
        layout => {
            let names: Vec<String> = columns.iter().map(|c| c.name.to_string()).collect();
            joined(&names, layout, delimiter)
        }
    }
}

/// One row of `values`, one per column.
pub fn line(columns: &[Column], values: &[String], layout: Layout, delimiter: &str) -> String {
    match layout {
        Layout::Columns => {
            let mut out = String::new();
            for (column, value) in columns.iter().zip(values) {
                out.push_str(&pad(&truncate(value, column.width), column.width));
                out.push(' ');
            }
            out.push('\n');
            out
        }
        layout => joined(values, layout, delimiter),
    }
}

fn joined(values: &[String], layout: Layout, delimiter: &str) -> String {
    let mut out = values.join(delimiter);
    if layout == Layout::Parsable {
        out.push_str(delimiter);
    }
    out.push('\n');
    out
}

fn pad(text: &str, width: i32) -> String {
    let w = width.unsigned_abs() as usize;
    if width < 0 {
        format!("{text:<w$}")
    } else {
        format!("{text:>w$}")
    }
}

/// Longer than the column: cut, with `+` as the last character; a column of width 0 (`%0`) prints nothing.
fn truncate(text: &str, width: i32) -> String {
    let w = width.unsigned_abs() as usize;
    if w == 0 {
        return String::new();
    }
    if text.chars().count() <= w {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(w - 1).collect();
    cut.push('+');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_pad_cut_and_parsable_rows_join() {
        let columns = [
            Column {
                name: "JobID",
                width: -6,
            },
            Column {
                name: "JobName",
                width: 4,
            },
        ];
        assert_eq!(
            header(&columns, Layout::Columns, "|"),
            "JobID  JobN \n------ ---- \n"
        );
        let values = ["12".to_string(), "longname".to_string()];
        assert_eq!(
            line(&columns, &values, Layout::Columns, "|"),
            "12     lon+ \n"
        );
        assert_eq!(
            line(&columns, &values, Layout::Parsable, "|"),
            "12|longname|\n"
        );
        assert_eq!(
            line(&columns, &values, Layout::Parsable2, ";"),
            "12;longname\n"
        );
        assert_eq!(
            help_format(&[("A", 1), ("B", 1)]),
            format!("{:<20}B{}\n", "A", " ".repeat(18))
        );
    }
}
