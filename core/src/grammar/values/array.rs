//! Job arrays: `--array=<indexes>[%<max running>]` and the way scontrol (`ArrayTaskId=`) and squeue (`12_[1-3%2]`)
//! print a pending array's task set.
//!
//! Slurm 22.05 validates the spec in slurmctld: items split on `,` (empty items skipped), each `first[-last[:step]]`
//! read with `strtol` (leading whitespace and `+` allowed, nothing but `%...` after), one leading `[` and anything from
//! the first `]` dropped, every index below `MaxArraySize`. The throttle is the number after the first `%`; zero,
//! negative or missing means no throttle. An empty item (`%4`, `[`) is index 0.

use super::bitmap::{bit_fmt, bit_unfmt_hexmask, Bitmap};

/// Slurm's default `MaxArraySize`.
pub const DEFAULT_MAX_ARRAY_SIZE: u32 = 1001;
/// Length Slurm cuts a displayed task set to when `SLURM_BITSTR_LEN` is unset.
pub const DEFAULT_BITSTR_LEN: usize = 64;

/// A rejected `--array`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArrayError {
    /// Malformed, out of range, or arrays are disabled (`MaxArraySize=0`). sbatch prints it after
    /// "Batch job submission failed: ".
    #[error("Invalid job array specification")]
    Invalid,
}

/// A parsed `--array`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArraySpec {
    /// The task ids, in a bitmap of `MaxArraySize` bits.
    pub tasks: Bitmap,
    /// At most this many tasks run at once (`%N`).
    pub max_running: Option<u32>,
}

impl ArraySpec {
    /// The task ids in increasing order.
    pub fn task_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.tasks.iter().filter_map(|t| u32::try_from(t).ok())
    }

    /// `ArrayTaskId=` as scontrol shows it for the still-pending tasks (default `SLURM_BITSTR_LEN`).
    pub fn display(&self) -> String {
        format_array_tasks(
            &self.tasks,
            self.max_running.unwrap_or(0),
            Some(DEFAULT_BITSTR_LEN),
        )
    }
}

fn is_c_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `strtol` on `text`: the value (saturated to i64) and the rest, or `(0, text)` when no digits start it.
fn strtol(text: &str) -> (i64, &str) {
    let body = text.trim_start_matches(is_c_space);
    let unsigned = body.strip_prefix(['+', '-']).unwrap_or(body);
    let digits = unsigned.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return (0, text);
    }
    let magnitude = unsigned[..digits].parse::<i64>().unwrap_or(i64::MAX);
    let value = if body.starts_with('-') {
        -magnitude
    } else {
        magnitude
    };
    (value, &unsigned[digits..])
}

/// What may follow an item: nothing, or the throttle.
fn at_item_end(rest: &str) -> bool {
    rest.is_empty() || rest.starts_with('%')
}

/// One `first[-last[:step]]` item, with Slurm's bracket stripping.
fn parse_item(item: &str, max_array_size: u32, tasks: &mut Bitmap) -> Result<(), ArrayError> {
    let item = item.strip_prefix('[').unwrap_or(item);
    let item = item.split(']').next().unwrap_or(item);
    let (first, rest) = strtol(item);
    let (last, step, rest) = match rest.strip_prefix('-') {
        Some(after) => {
            let (last, rest) = strtol(after);
            match rest.strip_prefix(':') {
                Some(after) => {
                    let (step, rest) = strtol(after);
                    if step <= 0 {
                        return Err(ArrayError::Invalid);
                    }
                    (last, step, rest)
                }
                None => (last, 1, rest),
            }
        }
        None => (first, 1, rest),
    };
    if !at_item_end(rest) || last < first || first < 0 || last >= i64::from(max_array_size) {
        return Err(ArrayError::Invalid);
    }
    let mut task = first;
    while task <= last {
        // In range: 0 <= task <= last < max_array_size, the bitmap's size.
        tasks.set(usize::try_from(task).map_err(|_| ArrayError::Invalid)?);
        match task.checked_add(step) {
            Some(next) => task = next,
            None => break,
        }
    }
    Ok(())
}

/// The `%N` throttle of an array spec (`None` without one or with `%0`), without building the task set: the
/// scheduler reads it on every pass.
pub fn throttle(input: &str) -> Result<Option<u32>, ArrayError> {
    let throttle = input.split_once('%').map_or(0, |(_, t)| strtol(t).0);
    // Slurm keeps the throttle in 32 bits; larger values are refused rather than wrapped.
    if throttle > i64::from(u32::MAX) {
        return Err(ArrayError::Invalid);
    }
    Ok(u32::try_from(throttle).ok().filter(|n| *n > 0))
}

/// Parses `--array` against `MaxArraySize`. An empty value is not an array at all (sbatch then submits a plain
/// job); it is refused here so callers decide.
pub fn parse_array_spec(input: &str, max_array_size: u32) -> Result<ArraySpec, ArrayError> {
    if max_array_size == 0 || input.is_empty() {
        return Err(ArrayError::Invalid);
    }
    let size = usize::try_from(max_array_size).map_err(|_| ArrayError::Invalid)?;
    let mut tasks = Bitmap::new(size);
    for item in input.split(',').filter(|i| !i.is_empty()) {
        parse_item(item, max_array_size, &mut tasks)?;
    }
    let max_running = throttle(input)?;
    Ok(ArraySpec { tasks, max_running })
}

/// `first-last:step` when the set is a regular progression of at least six ids spanning more than ten, as Slurm
/// prints it; `None` otherwise.
fn stepped_form(tasks: &Bitmap) -> Option<String> {
    let (first, last) = (tasks.first()?, tasks.last()?);
    if last - first <= 10 || tasks.count() < 6 {
        return None;
    }
    let ids: Vec<usize> = tasks.iter().collect();
    let step = ids.get(1)? - first;
    if step < 2 || ids.windows(2).any(|w| w[1] - w[0] != step) {
        return None;
    }
    Some(format!("{first}-{last}:{step}"))
}

/// Cuts a range list as Slurm does for a display length `len`: when it would not fit in `len - 2` characters, the
/// first `len - 4` characters are kept and `...` is appended (for tiny lengths only part of `...` survives).
fn truncate_display(full: String, len: usize) -> String {
    if full.len() < len.saturating_sub(2) {
        return full;
    }
    match len.checked_sub(4) {
        Some(keep) => format!("{}...", &full[..keep.min(full.len())]),
        None => "..."[4 - len.min(4)..].to_string(),
    }
}

/// Formats a pending array's task set as scontrol's `ArrayTaskId=` (Slurm's `xlate_array_task_str`): a range list
/// or `first-last:step`, cut to `bitstr_len` (`None` = no limit), then `%N` when `max_running` is non-zero.
pub fn format_array_tasks(tasks: &Bitmap, max_running: u32, bitstr_len: Option<usize>) -> String {
    let body = match stepped_form(tasks) {
        Some(stepped) => stepped,
        None => {
            let full = bit_fmt(tasks);
            match bitstr_len {
                Some(len) => truncate_display(full, len),
                None => full,
            }
        }
    };
    if max_running == 0 {
        body
    } else {
        format!("{body}%{max_running}")
    }
}

/// The display length from a `SLURM_BITSTR_LEN` value as Slurm reads it: unset or `-1` mean 64, other values are
/// read like `atoi`, and zero or negative mean no limit.
pub fn bitstr_len_from_env(value: Option<&str>) -> Option<usize> {
    let Some(value) = value else {
        return Some(DEFAULT_BITSTR_LEN);
    };
    let (n, _) = strtol(value);
    match n {
        -1 => Some(DEFAULT_BITSTR_LEN),
        n if n <= 0 => None,
        n => usize::try_from(n).ok(),
    }
}

/// Slurm's `xlate_array_task_str` on the string the controller sends: a `0x` hex bitmap becomes the display form;
/// anything shorter than three characters or not starting with `0x` is shown unchanged.
pub fn xlate_array_task_str(text: &str, max_running: u32, bitstr_len: Option<usize>) -> String {
    if text.len() < 3 || !text.starts_with("0x") {
        return text.to_string();
    }
    match bit_unfmt_hexmask(text.len() * 4, text) {
        Ok(tasks) => format_array_tasks(&tasks, max_running, bitstr_len),
        Err(_) => String::new(),
    }
}

/// The squeue JOBID of a pending array: `12_[1-3%2]`, cut to 31 characters as squeue's buffer does.
pub fn format_squeue_array_job_id(job_id: u32, task_display: &str) -> String {
    let mut id = format!("{job_id}_[{task_display}]");
    id.truncate(31);
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(spec: &str) -> Vec<u32> {
        parse_array_spec(spec, DEFAULT_MAX_ARRAY_SIZE)
            .unwrap()
            .task_ids()
            .collect()
    }

    #[test]
    fn documented_forms() {
        assert_eq!(ids("1-5"), [1, 2, 3, 4, 5]);
        assert_eq!(ids("1-10:4"), [1, 5, 9]);
        assert_eq!(ids("1,3,5-7"), [1, 3, 5, 6, 7]);
        let throttled = parse_array_spec("0-15%4", DEFAULT_MAX_ARRAY_SIZE).unwrap();
        assert_eq!(
            (throttled.tasks.count(), throttled.max_running),
            (16, Some(4))
        );
        assert_eq!(throttled.display(), "0-15%4");
    }

    #[test]
    fn slurm_quirks() {
        assert_eq!(ids("%4"), [0]);
        assert_eq!(ids("[1-3]"), [1, 2, 3]);
        assert_eq!(ids("1-3,]"), [0, 1, 2, 3]);
        assert_eq!(ids(" 1"), [1]);
        assert_eq!(ids("0-"), [0]);
        assert_eq!(parse_array_spec("1%0", 1001).unwrap().max_running, None);
        assert_eq!(
            parse_array_spec("1%2%3", 1001).unwrap().max_running,
            Some(2)
        );
    }

    #[test]
    fn invalid_specs() {
        for bad in [
            "abc", "1-10:0", "5-1", "1-", "-3", "1 ", "1:2", "1-10:2:3", "1001", "1-2000", "1,a",
            "",
        ] {
            assert_eq!(
                parse_array_spec(bad, DEFAULT_MAX_ARRAY_SIZE),
                Err(ArrayError::Invalid),
                "{bad:?}"
            );
        }
        assert_eq!(parse_array_spec("1", 0), Err(ArrayError::Invalid));
        assert_eq!(
            ArrayError::Invalid.to_string(),
            "Invalid job array specification"
        );
    }

    #[test]
    fn display_forms() {
        assert_eq!(
            parse_array_spec("1-10:2", 1001).unwrap().display(),
            "1,3,5,7,9"
        );
        assert_eq!(
            parse_array_spec("0-12:2", 1001).unwrap().display(),
            "0-12:2"
        );
        assert_eq!(
            parse_array_spec("1-1000:2%5", 1001).unwrap().display(),
            "1-999:2%5"
        );
        assert_eq!(format_squeue_array_job_id(24, "1-3"), "24_[1-3]");
        assert_eq!(format_squeue_array_job_id(12, "1-3,5%2"), "12_[1-3,5%2]");
        assert_eq!(
            format_squeue_array_job_id(35, "0,2,4,6,8,10,12,14,16,18,20,30"),
            "35_[0,2,4,6,8,10,12,14,16,18,20"
        );
    }

    #[test]
    fn bitstr_len_env() {
        assert_eq!(bitstr_len_from_env(None), Some(64));
        assert_eq!(bitstr_len_from_env(Some("-1")), Some(64));
        assert_eq!(bitstr_len_from_env(Some("0")), None);
        assert_eq!(bitstr_len_from_env(Some("-5")), None);
        assert_eq!(bitstr_len_from_env(Some("10")), Some(10));
    }
}
