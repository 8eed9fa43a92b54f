//! The benchmark's result table: one row per figure, one column per system, and the Spur/Slurm ratios; rendered
//! as Markdown for the terminal and for docs/performance.md.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Which way a figure is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Higher,
    Lower,
}

/// One measured quantity (a row), its unit, and the value each system got.
#[derive(Debug, Clone)]
pub struct Figure {
    pub name: String,
    pub unit: &'static str,
    pub better: Better,
    /// System label → value; a system that could not run the workload has a note instead.
    pub values: BTreeMap<String, Cell>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Value(f64),
    /// Not measured on purpose (a limit of that system or of the run).
    NotRun(String),
    /// The workload broke: the suite has rotted (short mode fails on it).
    Failed,
}

#[derive(Debug, Default)]
pub struct Table {
    pub figures: Vec<Figure>,
}

impl Table {
    /// Records `value` for `system` in the row `name`, creating the row the first time it is named.
    pub fn record(
        &mut self,
        name: &str,
        unit: &'static str,
        better: Better,
        system: &str,
        cell: Cell,
    ) {
        let pos = match self.figures.iter().position(|f| f.name == name) {
            Some(pos) => pos,
            None => {
                self.figures.push(Figure {
                    name: name.to_string(),
                    unit,
                    better,
                    values: BTreeMap::new(),
                });
                self.figures.len() - 1
            }
        };
        self.figures[pos].values.insert(system.to_string(), cell);
    }

    /// How many cells are [`Cell::Failed`].
    pub fn failures(&self) -> usize {
        self.figures
            .iter()
            .flat_map(|f| f.values.values())
            .filter(|c| **c == Cell::Failed)
            .count()
    }

    /// Markdown with one column per system in `systems` order and a Spur/… ratio column for each Slurm system.
    pub fn markdown(&self, systems: &[&str], spur: &str) -> String {
        let slurms: Vec<&str> = systems.iter().copied().filter(|s| *s != spur).collect();
        let mut out = String::from("| figure | unit |");
        for s in systems {
            let _ = write!(out, " {s} |");
        }
        for s in &slurms {
            let _ = write!(out, " {spur}/{s} |");
        }
        out.push_str("\n|---|---|");
        for _ in 0..systems.len() + slurms.len() {
            out.push_str("---:|");
        }
        out.push('\n');
        for f in &self.figures {
            let arrow = match f.better {
                Better::Higher => "higher is better",
                Better::Lower => "lower is better",
            };
            let _ = write!(out, "| {} | {} ({arrow}) |", f.name, f.unit);
            for s in systems {
                let _ = write!(out, " {} |", render(f.values.get(*s)));
            }
            for s in &slurms {
                let ratio = match (f.values.get(spur), f.values.get(*s)) {
                    (Some(Cell::Value(a)), Some(Cell::Value(b))) if *b > 0.0 => {
                        format!("{:.2}", a / b)
                    }
                    _ => "–".to_string(),
                };
                let _ = write!(out, " {ratio} |");
            }
            out.push('\n');
        }
        out
    }
}

fn render(cell: Option<&Cell>) -> String {
    match cell {
        None => "–".to_string(),
        Some(Cell::NotRun(why)) => format!("n/a ({why})"),
        Some(Cell::Failed) => "failed".to_string(),
        Some(Cell::Value(v)) if *v >= 100.0 => format!("{v:.0}"),
        Some(Cell::Value(v)) if *v >= 1.0 => format!("{v:.1}"),
        Some(Cell::Value(v)) => format!("{v:.3}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_columns_and_ratios() {
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
            "spur",
            Cell::Value(800.0),
        );
        t.record(
            "squeue",
            "ms",
            Better::Lower,
            "slurm",
            Cell::NotRun("MaxJobCount".into()),
        );
        t.record("squeue", "ms", Better::Lower, "spur", Cell::Value(12.5));
        let md = t.markdown(&["slurm", "spur"], "spur");
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "| figure | unit | slurm | spur | spur/slurm |");
        assert_eq!(
            lines[2],
            "| submit rate | jobs/s (higher is better) | 200 | 800 | 4.00 |"
        );
        assert_eq!(
            lines[3],
            "| squeue | ms (lower is better) | n/a (MaxJobCount) | 12.5 | – |"
        );
    }
}
