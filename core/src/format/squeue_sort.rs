//! squeue's `-S`/`--sort`: parsing the key list (`P,t,-p`) and ordering job records the way Slurm does, including
//! its quirks (state sorts by the state's *text*, unknown start times sort last).

use std::borrow::Cow;

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
    // Slurm reads the list from its end and stops at the first letter it does not know: the one reported is the
    // last unknown letter.
    let mut unknown = None;
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
        match letter_field(c) {
            Some(key) => keys.push(SortKey { key, descending }),
            None => unknown = Some(c),
        }
        i += 1;
    }
    match unknown {
        Some(c) => Err(FormatError::InvalidSort(c.to_string())),
        None => Ok(keys),
    }
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

/// A job's value for one sort key. Within a key every job has the same kind of value, which compares as the field
/// does in Slurm; the values are taken once per job, so the jobs need not be kept around to be sorted.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum SortValue {
    /// Keys Slurm accepts but does not order by.
    Equal,
    Number(i128),
    Pair(u32, u32),
    Text(Cow<'static, str>),
}

/// The order squeue prints rows in, as indices into the rows: `starts[i]` is row `i`'s start key
/// ([`start_key`]) and `values[i * keys.len() + k]` its value for `keys[k]` ([`sort_value`]). A pre-sort by start
/// time, latest first, then one stable pass per key from the last key to the first.
///
/// Slurm's start-time comparison puts a job without a start time after every other job whichever the direction, and
/// two such jobs always compare as "second first"; through glibc's merge sort that reverses their order on every
/// start-time pass. So held jobs list newest first by default, and `-S S` turns them back.
pub(crate) fn sort_order(
    starts: &[Option<i64>],
    values: &[SortValue],
    keys: &[SortKey],
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..starts.len()).collect();
    sort_by_start(&mut order, starts, true);
    for (k, key) in keys.iter().enumerate().rev() {
        if key.key == SortField::StartTime {
            sort_by_start(&mut order, starts, key.descending);
            continue;
        }
        let value = |row: usize| &values[row * keys.len() + k];
        order.sort_by(|&a, &b| {
            let ord = value(a).cmp(value(b));
            if key.descending {
                ord.reverse()
            } else {
                ord
            }
        });
    }
    order
}

/// One start-time pass: known start times in order, then the rows without one, reversed.
fn sort_by_start(order: &mut Vec<usize>, starts: &[Option<i64>], descending: bool) {
    let (mut known, unknown): (Vec<usize>, Vec<usize>) =
        order.drain(..).partition(|&row| starts[row].is_some());
    known.sort_by(|&a, &b| {
        let ord = starts[a].cmp(&starts[b]);
        if descending {
            ord.reverse()
        } else {
            ord
        }
    });
    order.extend(known);
    order.extend(unknown.into_iter().rev());
}

/// `None` for a job without a start time; a pending job's past start counts as now.
pub(crate) fn start_key(job: &JobView<'_>, now: i64) -> Option<i64> {
    match job.job.start_time {
        None | Some(0) => None,
        Some(start) if job.is_pending() && start < now => Some(now),
        Some(start) => Some(start),
    }
}

/// `job`'s value for sorting by `field`.
pub(crate) fn sort_value(field: SortField, a: &JobView<'_>, ctx: &FormatContext) -> SortValue {
    use SortField as S;
    use SortValue::{Equal, Number, Pair, Text};
    let ja = a.job;
    let text = |s: &str| Text(Cow::Owned(s.to_string()));
    match field {
        S::BatchHost => text(a.batch_host().unwrap_or("")),
        // Sorted by its own pass (`sort_by_start`), never through a value.
        S::Cluster
        | S::Sockets
        | S::Cores
        | S::Threads
        | S::Sct
        | S::Reservation
        | S::Ignored
        | S::StartTime => Equal,
        S::NumCpus => Number(a.num_cpus().into()),
        S::MinTmpDisk => Number(ja.spec.tmp_disk_mb.into()),
        S::NumNodes => Number(a.num_nodes().into()),
        S::EndTime => Number(a.end_time().unwrap_or(0).into()),
        S::GroupName => Text(Cow::Owned(ctx.group_name(ja.spec.group_id))),
        S::GroupId => Number(ja.spec.group_id.into()),
        S::JobId => {
            let (array, task) = id_key(a);
            Pair(array, task)
        }
        S::Name => text(&ja.spec.name),
        S::TimeLimit => Number(limit_key(ja.time_limit_min).into()),
        S::TimeLeft => Number(time_left(a, ctx.now).into()),
        S::MinMemory => Number(a.min_memory().0.into()),
        S::TimeUsed => Number(a.time_used(ctx.now).into()),
        S::NodeList => Text(Cow::Owned(first_node(a))),
        S::Priority => Number(ja.priority.into()),
        S::Partition => text(&ja.partition),
        S::StateCompact => Text(Cow::Borrowed(a.state_compact())),
        S::State => Text(Cow::Borrowed(a.state_long())),
        S::UserName => Text(Cow::Owned(ctx.user_name(ja.spec.user_id))),
        S::UserId => Number(ja.spec.user_id.into()),
        S::SubmitTime => Number(ja.submit_time.into()),
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
