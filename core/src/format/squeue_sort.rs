//! squeue's `-S`/`--sort`: parsing the key list (`P,t,-p`) and ordering job records the way Slurm does, including
//! its quirks (state sorts by the state's *text*, unknown start times sort last).

use std::cmp::Ordering;

use crate::format::job_view::JobView;
use crate::format::{FormatContext, FormatError};

/// Slurm's default job order: partition, state, then priority descending.
pub const DEFAULT_SORT: &str = "P,t,-p";

/// One sort key: a format letter (or `cluster`) and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortKey {
    pub key: SortField,
    pub descending: bool,
}

/// The fields squeue can sort jobs by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortField {
    BatchHost,
    Cluster,
    NumCpus,
    MinTmpDisk,
    NumNodes,
    EndTime,
    GroupName,
    GroupId,
    Sockets,
    JobId,
    Cores,
    Name,
    Threads,
    TimeLimit,
    TimeLeft,
    MinMemory,
    TimeUsed,
    NodeList,
    Priority,
    Partition,
    StartTime,
    StateCompact,
    State,
    UserName,
    UserId,
    Reservation,
    SubmitTime,
    Sct,
    /// Letters Slurm accepts but does not sort by (`c f h n O b`).
    Ignored,
}

/// Parses a sort list like Slurm: `+`/`-` before a letter set its direction, commas separate, `cluster` is a word.
pub fn parse_sort(spec: &str) -> Result<Vec<SortKey>, FormatError> {
    let chars: Vec<char> = spec.chars().collect();
    let mut keys = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, ',' | '+' | '-') {
            i += 1;
            continue;
        }
        let descending = i > 0 && chars[i - 1] == '-';
        let rest: String = chars[i..].iter().take(7).collect();
        if rest.eq_ignore_ascii_case("cluster") {
            keys.push(SortKey {
                key: SortField::Cluster,
                descending,
            });
            i += 7;
            continue;
        }
        let key = letter_field(c).ok_or_else(|| FormatError::InvalidSort(c.to_string()))?;
        keys.push(SortKey { key, descending });
        i += 1;
    }
    Ok(keys)
}

fn letter_field(c: char) -> Option<SortField> {
    use SortField as S;
    Some(match c {
        'B' => S::BatchHost,
        'b' | 'c' | 'f' | 'h' | 'n' | 'O' => S::Ignored,
        'C' => S::NumCpus,
        'd' => S::MinTmpDisk,
        'D' => S::NumNodes,
        'e' => S::EndTime,
        'g' => S::GroupName,
        'G' => S::GroupId,
        'H' => S::Sockets,
        'i' => S::JobId,
        'I' => S::Cores,
        'j' => S::Name,
        'J' => S::Threads,
        'l' => S::TimeLimit,
        'L' => S::TimeLeft,
        'm' => S::MinMemory,
        'M' => S::TimeUsed,
        'N' => S::NodeList,
        'p' | 'Q' => S::Priority,
        'P' => S::Partition,
        'S' => S::StartTime,
        't' => S::StateCompact,
        'T' => S::State,
        'u' => S::UserName,
        'U' => S::UserId,
        'v' => S::Reservation,
        'V' => S::SubmitTime,
        'z' => S::Sct,
        _ => return None,
    })
}

/// Sorts rows like squeue: a pre-sort by start time, latest first, then one stable pass per key from the last key to
/// the first.
///
/// Slurm's start-time comparison puts a job without a start time after every other job whichever the direction, and
/// two such jobs always compare as "second first"; through glibc's merge sort that reverses their order on every
/// start-time pass. So held jobs list newest first by default, and `-S S` turns them back.
pub(crate) fn sort_jobs(rows: &mut Vec<JobView<'_>>, keys: &[SortKey], ctx: &FormatContext) {
    sort_by_start(rows, true, ctx.now);
    for key in keys.iter().rev() {
        if key.key == SortField::StartTime {
            sort_by_start(rows, key.descending, ctx.now);
            continue;
        }
        rows.sort_by(|a, b| {
            let ord = compare(key.key, a, b, ctx);
            if key.descending {
                ord.reverse()
            } else {
                ord
            }
        });
    }
}

/// One start-time pass: known start times in order, then the jobs without one, reversed.
fn sort_by_start(rows: &mut Vec<JobView<'_>>, descending: bool, now: i64) {
    let (mut known, unknown): (Vec<_>, Vec<_>) = rows
        .drain(..)
        .partition(|row| start_key(row, now).is_some());
    known.sort_by(|a, b| {
        let ord = start_key(a, now).cmp(&start_key(b, now));
        if descending {
            ord.reverse()
        } else {
            ord
        }
    });
    rows.extend(known);
    rows.extend(unknown.into_iter().rev());
}

/// `None` for a job without a start time; a pending job's past start counts as now.
fn start_key(job: &JobView<'_>, now: i64) -> Option<i64> {
    match job.job.start_time {
        None | Some(0) => None,
        Some(start) if job.is_pending() && start < now => Some(now),
        Some(start) => Some(start),
    }
}

fn compare(field: SortField, a: &JobView<'_>, b: &JobView<'_>, ctx: &FormatContext) -> Ordering {
    use SortField as S;
    let (ja, jb) = (a.job, b.job);
    match field {
        S::BatchHost => a
            .batch_host()
            .unwrap_or("")
            .cmp(b.batch_host().unwrap_or("")),
        S::Cluster | S::Sockets | S::Cores | S::Threads | S::Sct | S::Reservation | S::Ignored => {
            Ordering::Equal
        }
        S::NumCpus => a.num_cpus().cmp(&b.num_cpus()),
        S::MinTmpDisk => ja.spec.tmp_disk_mb.cmp(&jb.spec.tmp_disk_mb),
        S::NumNodes => a.num_nodes().cmp(&b.num_nodes()),
        S::EndTime => a.end_time().unwrap_or(0).cmp(&b.end_time().unwrap_or(0)),
        S::GroupName => ctx
            .group_name(ja.spec.group_id)
            .cmp(&ctx.group_name(jb.spec.group_id)),
        S::GroupId => ja.spec.group_id.cmp(&jb.spec.group_id),
        S::JobId => id_key(a).cmp(&id_key(b)),
        S::Name => ja.spec.name.cmp(&jb.spec.name),
        S::TimeLimit => limit_key(ja.time_limit_min).cmp(&limit_key(jb.time_limit_min)),
        S::TimeLeft => time_left(a, ctx.now).cmp(&time_left(b, ctx.now)),
        S::MinMemory => a.min_memory().0.cmp(&b.min_memory().0),
        S::TimeUsed => a.time_used(ctx.now).cmp(&b.time_used(ctx.now)),
        S::NodeList => first_node(a).cmp(&first_node(b)),
        S::Priority => ja.priority.cmp(&jb.priority),
        S::Partition => ja.partition.cmp(&jb.partition),
        // Sorted by its own pass (`sort_by_start`), never through this comparison.
        S::StartTime => Ordering::Equal,
        S::StateCompact => a.state_compact().cmp(b.state_compact()),
        S::State => a.state_long().cmp(b.state_long()),
        S::UserName => ctx
            .user_name(ja.spec.user_id)
            .cmp(&ctx.user_name(jb.spec.user_id)),
        S::UserId => ja.spec.user_id.cmp(&jb.spec.user_id),
        S::SubmitTime => ja.submit_time.cmp(&jb.submit_time),
    }
}

/// Array tasks sort by array id, then task id; folded tasks carry no task id (Slurm's NO_VAL sorts last).
fn id_key(job: &JobView<'_>) -> (u32, u32) {
    let task = if job.array_tasks.is_some() {
        u32::MAX
    } else {
        job.job.array_task_id.unwrap_or(u32::MAX)
    };
    (job.array_job_id(), task)
}

fn limit_key(limit: Option<u32>) -> u64 {
    limit.map_or(u64::from(u32::MAX), u64::from)
}

fn time_left(job: &JobView<'_>, now: i64) -> i64 {
    match job.job.time_limit_min {
        None => i64::from(u32::MAX),
        Some(limit) => i64::from(limit) * 60 - job.time_used(now),
    }
}

fn first_node(job: &JobView<'_>) -> String {
    job.job
        .alloc
        .as_ref()
        .and_then(|a| a.node_names.first().cloned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_default_sort() {
        let keys = parse_sort(DEFAULT_SORT).unwrap();
        assert_eq!(
            keys,
            vec![
                SortKey {
                    key: SortField::Partition,
                    descending: false
                },
                SortKey {
                    key: SortField::StateCompact,
                    descending: false
                },
                SortKey {
                    key: SortField::Priority,
                    descending: true
                },
            ]
        );
    }

    #[test]
    fn parses_cluster_word_and_rejects_unknown_letters() {
        let keys = parse_sort("-cluster,+i").unwrap();
        assert_eq!(
            keys[0],
            SortKey {
                key: SortField::Cluster,
                descending: true
            }
        );
        assert_eq!(
            keys[1],
            SortKey {
                key: SortField::JobId,
                descending: false
            }
        );
        assert_eq!(parse_sort("P,x"), Err(FormatError::InvalidSort("x".into())));
        assert_eq!(
            parse_sort("P,x").unwrap_err().to_string(),
            "Invalid sort specification: x"
        );
    }
}
