//! sreport's reports as Slurm 22.05 prints them: the report window (whole hours, yesterday by default), the time
//! formats of `-t`, the title block, the column widths sized to the largest number, and the cluster utilization
//! arithmetic over accounting records (allocated CPU-seconds clipped to the window, capacity from the nodes' CPUs).
//! I/O-free: the command (compat-cli) fetches records and nodes and prints what this returns.

use crate::grammar::abbreviates;
use crate::grammar::values::begin::format_local_time;
use crate::model::accounting::JobAccounting;

/// `-t`/`time`: how a usage number is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeFormat {
    Seconds,
    #[default]
    Minutes,
    Hours,
    Percent,
    SecPer,
    MinPer,
    HourPer,
}

impl TimeFormat {
    /// The format `word` names (the `Per` forms need 6 letters, the others one), as sreport checks them.
    pub fn parse(word: &str) -> Option<TimeFormat> {
        use TimeFormat::*;
        [
            ("SecPer", 6, SecPer),
            ("MinPer", 6, MinPer),
            ("HourPer", 6, HourPer),
            ("Seconds", 1, Seconds),
            ("Minutes", 1, Minutes),
            ("Hours", 1, Hours),
            ("Percent", 1, Percent),
        ]
        .into_iter()
        .find(|(name, min, _)| abbreviates(word, name, *min))
        .map(|(_, _, f)| f)
    }

    /// The words after `Usage reported in`.
    pub fn label(self) -> &'static str {
        match self {
            TimeFormat::Seconds => "CPU Seconds",
            TimeFormat::Minutes => "CPU Minutes",
            TimeFormat::Hours => "CPU Hours",
            TimeFormat::Percent => "Percentage of Total",
            TimeFormat::SecPer => "CPU Seconds/Percentage of Total",
            TimeFormat::MinPer => "CPU Minutes/Percentage of Total",
            TimeFormat::HourPer => "CPU Hours/Percentage of Total",
        }
    }

    pub fn with_percent(self) -> bool {
        matches!(
            self,
            TimeFormat::SecPer | TimeFormat::MinPer | TimeFormat::HourPer
        )
    }

    /// One usage number: `secs` of a `total` (the percentages' base; 0 counts as 1, as in Slurm).
    pub fn render(self, secs: u64, total: u64) -> String {
        let percent = secs as f64 / total.max(1) as f64 * 100.0;
        let mins = secs as f64 / 60.0;
        let hours = secs as f64 / 3600.0;
        match self {
            TimeFormat::Seconds => secs.to_string(),
            TimeFormat::Minutes => format!("{mins:.0}"),
            TimeFormat::Hours => format!("{hours:.0}"),
            TimeFormat::Percent => format!("{percent:.2}%"),
            TimeFormat::SecPer => format!("{secs}({percent:.2}%)"),
            TimeFormat::MinPer => format!("{mins:.0}({percent:.2}%)"),
            TimeFormat::HourPer => format!("{hours:.0}({percent:.2}%)"),
        }
    }

    /// A usage column's width: 8, one more per digit past 8 of the largest value in seconds, 9 more with a
    /// percentage.
    pub fn column_width(self, largest_secs: u64) -> usize {
        let mut width = 8;
        let mut order: u64 = 100_000_000;
        while largest_secs >= order && width < 25 {
            width += 1;
            order = order.saturating_mul(10);
        }
        if self.with_percent() {
            width + 9
        } else {
            width
        }
    }
}

/// How rows are printed: `-p`, `-P` or aligned; `-n` drops the title block and the column header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    #[default]
    Aligned,
    /// `-p`: `|` after every field.
    Parsable,
    /// `-P`: `|` between fields.
    Parsable2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Output {
    pub layout: Layout,
    pub header: bool,
    pub time: TimeFormat,
}

/// The hour `t` (local time at `offset`) rounds to as sreport rounds a given time: seconds from 30 up add a
/// minute, then minutes from 30 up add an hour; minutes and seconds are then dropped.
fn round_to_hour(t: i64, offset: i32) -> i64 {
    let local = t.saturating_add(i64::from(offset));
    let in_hour = local.rem_euclid(3600);
    let (mut min, sec) = (in_hour / 60, in_hour % 60);
    if sec >= 30 {
        min += 1;
    }
    let hour_start = local.saturating_sub(in_hour);
    let local_rounded = if min >= 30 {
        hour_start.saturating_add(3600)
    } else {
        hour_start
    };
    local_rounded.saturating_sub(i64::from(offset))
}

/// Local midnight `days_back` days before the day of `now`.
fn midnight(now: i64, offset: i32, days_back: i64) -> i64 {
    let local = now.saturating_add(i64::from(offset));
    local
        .saturating_sub(local.rem_euclid(86_400))
        .saturating_sub(days_back.saturating_mul(86_400))
        .saturating_sub(i64::from(offset))
}

/// sreport's window `[start, end)`: a given end later than now is now; both are rounded to hours; by default
/// yesterday 00:00 to today 00:00 (local); at least one hour long.
pub fn report_window(start: Option<i64>, end: Option<i64>, now: i64, offset: i32) -> (i64, i64) {
    let end = match end {
        Some(e) => round_to_hour(e.min(now), offset),
        None => midnight(now, offset, 0),
    };
    let start = match start {
        Some(s) => round_to_hour(s, offset),
        None => midnight(now, offset, 1),
    };
    let end = if end.saturating_sub(start) < 3600 {
        start.saturating_add(3600)
    } else {
        end
    };
    (start, end)
}

/// The title block: a rule, `<report> <start> - <end - 1s>`, the unit line, a rule. Empty with `-n`.
pub fn title(report: &str, window: (i64, i64), offset: i32, out: Output) -> String {
    title_block(report, "", window, offset, out)
}

/// [`title`] with `after` following the window (the association reports add its length in seconds).
pub(crate) fn title_block(
    report: &str,
    after: &str,
    window: (i64, i64),
    offset: i32,
    out: Output,
) -> String {
    if !out.header {
        return String::new();
    }
    let rule = "-".repeat(80);
    format!(
        "{rule}\n{report} {} - {}{after}\nUsage reported in {}\n{rule}\n",
        format_local_time(window.0, offset),
        format_local_time(window.1.saturating_sub(1), offset),
        out.time.label()
    )
}

/// Seconds of `[from, to)` inside `[window.0, window.1)`.
pub fn overlap(from: i64, to: i64, window: (i64, i64)) -> u64 {
    let lo = from.max(window.0);
    let hi = to.min(window.1);
    u64::try_from(hi.saturating_sub(lo)).unwrap_or(0)
}

/// CPU-seconds a job's allocation spent inside the window: its CPUs times its run clipped to the window (a job
/// still running counts up to `now`). Jobs that never started count nothing.
pub fn job_cpu_secs(job: &JobAccounting, window: (i64, i64), now: i64) -> u64 {
    let Some(start) = job.start else {
        return 0;
    };
    let end = job.end.unwrap_or(now);
    overlap(start, end, window).saturating_mul(u64::from(job.cpus))
}

/// One cluster's numbers over a window, in CPU-seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClusterUsage {
    pub cpus: u64,
    pub allocated: u64,
    pub down: u64,
    pub planned_down: u64,
    pub idle: u64,
    pub planned: u64,
    pub over: u64,
    pub reported: u64,
}

impl ClusterUsage {
    /// The numbers of a cluster of `cpus` CPUs that existed during `[window.0 ∩ since, window.1)` from the
    /// jobs' allocations; no down, planned-down or reserved time is recorded, so what is not allocated is idle.
    /// Allocation beyond the capacity (records of nodes since removed) is over-committed time, as in Slurm.
    pub fn from_jobs(
        cpus: u64,
        jobs: &[JobAccounting],
        window: (i64, i64),
        now: i64,
    ) -> ClusterUsage {
        let capacity = overlap(window.0, window.1, window).saturating_mul(cpus);
        let used: u64 = jobs
            .iter()
            .map(|j| job_cpu_secs(j, window, now))
            .fold(0, u64::saturating_add);
        let allocated = used.min(capacity);
        ClusterUsage {
            cpus,
            allocated,
            idle: capacity - allocated,
            over: used - allocated,
            reported: capacity,
            ..ClusterUsage::default()
        }
    }
}

/// A column of `cluster utilization`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterField {
    Cluster,
    Allocated,
    Down,
    PlannedDown,
    Idle,
    Planned,
    Over,
    Reported,
    TresCount,
    TresName,
}

impl ClusterField {
    /// The field `word` names, with sreport's shortest prefixes.
    pub fn parse(word: &str) -> Option<ClusterField> {
        use ClusterField::*;
        let p = |name: &str, min: usize| abbreviates(word, name, min);
        Some(if p("allocated", 2) {
            Allocated
        } else if p("Cluster", 2) {
            Cluster
        } else if p("down", 1) {
            Down
        } else if p("idle", 1) {
            Idle
        } else if p("overcommitted", 1) {
            Over
        } else if p("PlannedDown", 2) {
            PlannedDown
        } else if p("reported", 3) {
            Reported
        } else if p("reserved", 3) || p("planned", 4) {
            Planned
        } else if p("TresCount", 5) || p("cpucount", 2) || p("count", 2) {
            TresCount
        } else if p("TresName", 5) {
            TresName
        } else {
            return None;
        })
    }

    fn name(self) -> &'static str {
        match self {
            ClusterField::Cluster => "Cluster",
            ClusterField::Allocated => "Allocated",
            ClusterField::Down => "Down",
            ClusterField::PlannedDown => "PLND Down",
            ClusterField::Idle => "Idle",
            ClusterField::Planned => "Planned",
            ClusterField::Over => "Over Comm",
            ClusterField::Reported => "Reported",
            ClusterField::TresCount => "TRES Count",
            ClusterField::TresName => "TRES Name",
        }
    }

    fn secs(self, u: &ClusterUsage) -> Option<u64> {
        match self {
            ClusterField::Allocated => Some(u.allocated),
            ClusterField::Down => Some(u.down),
            ClusterField::PlannedDown => Some(u.planned_down),
            ClusterField::Idle => Some(u.idle),
            ClusterField::Planned => Some(u.planned),
            ClusterField::Over => Some(u.over),
            ClusterField::Reported => Some(u.reported),
            _ => None,
        }
    }
}

/// `format=` of cluster utilization: the default columns, or the named ones with an optional `%width`. Unknown
/// names are left out with Slurm's message for each (the report is printed without them, and fails).
pub fn cluster_fields(format: &[String]) -> (Vec<(ClusterField, Option<i32>)>, Vec<String>) {
    const DEFAULT: &[&str] = &["Cl", "al", "d", "planned", "i", "res", "rep"];
    let words: Vec<String> = if format.is_empty() {
        DEFAULT.iter().map(|w| w.to_string()).collect()
    } else {
        format.to_vec()
    };
    let mut fields = Vec::new();
    let mut unknown = Vec::new();
    for w in &words {
        let (name, width) = match w.split_once('%') {
            Some((n, rest)) => (n, Some(crate::grammar::options::error::atoi(rest))),
            None => (w.as_str(), None),
        };
        match ClusterField::parse(name) {
            Some(f) => fields.push((f, width.filter(|n| *n != 0))),
            None => unknown.push(format!(" Unknown field '{name}'")),
        }
    }
    (fields, unknown)
}

/// One printed column: its name, signed width (negative: left-aligned) and cell texts.
pub(crate) struct Column {
    pub(crate) name: &'static str,
    pub(crate) width: i32,
}

pub(crate) fn cell(out: &mut String, text: &str, width: i32, last: bool, layout: Layout) {
    match layout {
        Layout::Parsable2 if last => out.push_str(text),
        Layout::Parsable | Layout::Parsable2 => {
            out.push_str(text);
            out.push('|');
        }
        Layout::Aligned => {
            let w = width.unsigned_abs() as usize;
            let clipped: String = text.chars().take(w).collect();
            if width < 0 {
                out.push_str(&format!("{clipped:<w$} "));
            } else {
                out.push_str(&format!("{clipped:>w$} "));
            }
        }
    }
}

pub(crate) fn header(columns: &[Column], layout: Layout) -> String {
    let mut out = String::new();
    for (i, c) in columns.iter().enumerate() {
        cell(&mut out, c.name, c.width, i + 1 == columns.len(), layout);
    }
    out.push('\n');
    if layout == Layout::Aligned {
        for c in columns {
            out.push_str(&"-".repeat(c.width.unsigned_abs() as usize));
            out.push(' ');
        }
        out.push('\n');
    }
    out
}

/// `cluster utilization` after its title: the column header, then one row for the cluster when it has numbers
/// for the window (`None`: no hour of the window is recorded, and Slurm prints the header alone).
pub fn cluster_utilization(
    cluster: &str,
    usage: Option<&ClusterUsage>,
    fields: &[(ClusterField, Option<i32>)],
    window_secs: u64,
    out: Output,
) -> String {
    let zero = ClusterUsage::default();
    let sizing = usage.unwrap_or(&zero);
    let columns: Vec<Column> = fields
        .iter()
        .map(|(f, width)| {
            let width = match f {
                ClusterField::Cluster => width.unwrap_or(9),
                ClusterField::TresCount => width.unwrap_or(10),
                ClusterField::TresName => width.unwrap_or(14),
                // Every usage column is sized to the cluster's largest number of its kind, after (so over) any
                // `%width` given, as Slurm sizes them.
                _ => out.time.column_width(f.secs(sizing).unwrap_or(0)) as i32,
            };
            Column {
                name: f.name(),
                width,
            }
        })
        .collect();
    let mut text = if out.header {
        header(&columns, out.layout)
    } else {
        String::new()
    };
    let Some(u) = usage else {
        return text;
    };
    let capacity = window_secs.saturating_mul(u.cpus);
    for (i, ((f, _), c)) in fields.iter().zip(&columns).enumerate() {
        let value = match f {
            ClusterField::Cluster => cluster.to_string(),
            ClusterField::TresCount => u.cpus.to_string(),
            ClusterField::TresName => "cpu".to_string(),
            ClusterField::Reported => out.time.render(u.reported, capacity),
            other => out.time.render(other.secs(u).unwrap_or(0), u.reported),
        };
        cell(
            &mut text,
            &value,
            c.width,
            i + 1 == fields.len(),
            out.layout,
        );
    }
    text.push('\n');
    text
}

#[cfg(test)]
#[path = "sreport_tests.rs"]
mod tests;
