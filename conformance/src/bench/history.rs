//! The benchmark's history as data: every `--write-docs` run appends one JSON line per figure to
//! docs/performance-history.ndjson (beside the Markdown file written), so figures can be compared across commits
//! without keeping a lab notebook in the docs. docs/performance.md describes the fields.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::table::{Cell, Table};

/// The history file's name; it lives in the same directory as the Markdown file the table is written into.
pub const FILE_NAME: &str = "performance-history.ndjson";

/// One figure of one run. A system's value is a number, or absent (`null`) when that system did not measure it;
/// why is then in `note`. Rows converted from the old notebook may hold `[min, max]` where it gave a range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The commit measured (`git rev-parse --short HEAD` where the bench ran), empty when unknown.
    pub commit: String,
    /// UTC date of the run, `YYYY-MM-DD`.
    pub date: String,
    pub figure: String,
    pub unit: String,
    pub slurm: Option<serde_json::Value>,
    #[serde(rename = "slurm-htc")]
    pub slurm_htc: Option<serde_json::Value>,
    pub spur: Option<serde_json::Value>,
    /// Where and how it was measured (machine, mode), and why a value is missing.
    pub note: String,
}

/// Where the history of a table written into `doc` goes.
pub fn path_beside(doc: &Path) -> PathBuf {
    doc.with_file_name(FILE_NAME)
}

/// One row per figure of `table`, in the table's order. `note` says where the run was made; a system whose cell
/// was not measured gets no value and its reason is added to the row's note.
pub fn rows(table: &Table, commit: &str, date: &str, note: &str) -> Vec<Row> {
    table
        .figures
        .iter()
        .map(|f| {
            let mut notes = vec![note.to_string()];
            let mut value = |system: &str| match f.values.get(system) {
                Some(Cell::Value(v)) => {
                    serde_json::Number::from_f64(*v).map(serde_json::Value::Number)
                }
                Some(Cell::NotRun(why)) => {
                    notes.push(format!("{system}: n/a ({why})"));
                    None
                }
                Some(Cell::Failed) => {
                    notes.push(format!("{system}: failed"));
                    None
                }
                None => None,
            };
            let slurm = value("slurm");
            let slurm_htc = value("slurm-htc");
            let spur = value("spur");
            notes.retain(|n| !n.is_empty());
            Row {
                commit: commit.to_string(),
                date: date.to_string(),
                figure: f.name.clone(),
                unit: f.unit.to_string(),
                slurm,
                slurm_htc,
                spur,
                note: notes.join("; "),
            }
        })
        .collect()
}

/// `rows` as NDJSON: one object per line, each line ending in a newline.
pub fn to_ndjson(rows: &[Row]) -> Result<String, serde_json::Error> {
    let mut out = String::new();
    for row in rows {
        out.push_str(&serde_json::to_string(row)?);
        out.push('\n');
    }
    Ok(out)
}

/// Appends `rows` to the history at `path` (created when missing); earlier lines are never rewritten.
pub fn append(path: &Path, rows: &[Row]) -> std::io::Result<()> {
    let text = to_ndjson(rows)?;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

/// Which run the rows of a `--write-docs` come from.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub commit: String,
    pub date: String,
    pub note: String,
}

/// What `--write-docs DOC` does: `section` replaces the text between DOC's bench-suite markers (the bench-scale
/// ones with `scale_only`; markers added at the end when missing, DOC created when missing), and `table`'s figures
/// are appended to the history beside DOC. Returns the history's path.
pub fn write_docs(
    doc: &Path,
    section: &str,
    scale_only: bool,
    table: &Table,
    run: &Run,
) -> std::io::Result<PathBuf> {
    let text = match std::fs::read_to_string(doc) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e),
    };
    let spliced = if scale_only {
        super::splice_between(&text, section, super::SCALE_DOC_BEGIN, super::SCALE_DOC_END)
    } else {
        super::splice_section(&text, section)
    };
    std::fs::write(doc, spliced)?;
    let history = path_beside(doc);
    append(&history, &rows(table, &run.commit, &run.date, &run.note))?;
    Ok(history)
}

/// Every row of the history at `path`; a line that is not a row is an error naming its line number.
pub fn read(path: &Path) -> Result<Vec<Row>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let row =
            serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        rows.push(row);
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::super::table::Better;
    use super::*;

    fn table() -> Table {
        let mut t = Table::default();
        t.record(
            "submit rate",
            "jobs/s",
            Better::Higher,
            "slurm",
            Cell::Value(200.0),
        );
        t.record(
            "submit rate",
            "jobs/s",
            Better::Higher,
            "slurm-htc",
            Cell::Failed,
        );
        t.record(
            "submit rate",
            "jobs/s",
            Better::Higher,
            "spur",
            Cell::Value(617.5),
        );
        t.record(
            "scale: nodes registered",
            "s",
            Better::Lower,
            "slurm",
            Cell::NotRun("Slurm cannot simulate nodes".into()),
        );
        t.record(
            "scale: nodes registered",
            "s",
            Better::Lower,
            "spur",
            Cell::Value(0.216),
        );
        t
    }

    #[test]
    fn one_row_per_figure_with_missing_values_explained() {
        let rows = rows(&table(), "8c71b4b", "2026-12-04", "mode: full");
        assert_eq!(rows.len(), 2);
        let first = to_ndjson(&rows[..1]).unwrap();
        assert_eq!(
            first,
            "{\"commit\":\"8c71b4b\",\"date\":\"2026-12-04\",\"figure\":\"submit rate\",\"unit\":\"jobs/s\",\
             \"slurm\":200.0,\"slurm-htc\":null,\"spur\":617.5,\"note\":\"mode: full; slurm-htc: failed\"}\n"
        );
        assert_eq!(rows[1].slurm, None);
        assert_eq!(rows[1].slurm_htc, None);
        assert_eq!(
            rows[1].note,
            "mode: full; slurm: n/a (Slurm cannot simulate nodes)"
        );
    }

    #[test]
    fn appending_keeps_earlier_runs_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("performance.md");
        let path = path_beside(&doc);
        assert_eq!(path, dir.path().join(FILE_NAME));
        let first = rows(&table(), "aaaaaaa", "2026-12-04", "");
        let second = rows(&table(), "bbbbbbb", "2026-12-05", "");
        append(&path, &first).unwrap();
        append(&path, &second).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(back[..2], first[..]);
        assert_eq!(back[2..], second[..]);
        assert_eq!(back[0].note, "slurm-htc: failed");
    }

    #[test]
    fn write_docs_replaces_the_table_and_appends_the_history() {
        let dir = tempfile::tempdir().unwrap();
        let doc = dir.path().join("performance.md");
        let run = Run {
            commit: "abc1234".into(),
            date: "2026-12-07".into(),
            note: "mode: short".into(),
        };
        let before = "# Performance\n\n<!-- bench-suite:begin -->\nold table\n<!-- bench-suite:end -->\n\n## More\n";
        std::fs::write(&doc, before).unwrap();
        let history = write_docs(&doc, "new table\n", false, &table(), &run).unwrap();
        assert_eq!(history, dir.path().join(FILE_NAME));
        let text = std::fs::read_to_string(&doc).unwrap();
        assert!(text.contains("<!-- bench-suite:begin -->\nnew table\n<!-- bench-suite:end -->"));
        assert!(!text.contains("old table") && text.ends_with("## More\n"));
        write_docs(&doc, "scale table\n", true, &table(), &run).unwrap();
        let text = std::fs::read_to_string(&doc).unwrap();
        assert!(
            text.contains("new table")
                && text.contains("<!-- bench-scale:begin -->\nscale table\n")
        );
        let rows = read(&history).unwrap();
        assert_eq!(rows.len(), 4, "two runs of two figures");
        assert!(rows
            .iter()
            .all(|r| r.commit == "abc1234" && r.date == "2026-12-07"));
    }

    /// The history in the repository stays readable: every line a row with a date and a figure.
    #[test]
    fn the_committed_history_reads_back() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../docs")
            .join(FILE_NAME);
        let rows = read(&path).unwrap();
        assert!(!rows.is_empty());
        for row in rows {
            let date: Vec<&str> = row.date.split('-').collect();
            assert!(
                date.len() == 3 && date.iter().all(|p| p.parse::<u32>().is_ok()),
                "{row:?}"
            );
            assert!(!row.figure.is_empty() && !row.unit.is_empty(), "{row:?}");
            assert!(
                row.slurm.is_some() || row.slurm_htc.is_some() || row.spur.is_some(),
                "a row without any value: {row:?}"
            );
        }
    }

    #[test]
    fn a_damaged_line_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(&path, "{\"commit\":\"x\"}\n").unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains(":1:"), "{err}");
    }
}
