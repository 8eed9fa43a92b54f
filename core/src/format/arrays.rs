//! Folding pending array tasks into one record, as slurmctld's array "meta" record appears to clients: squeue's
//! `24_[1-3]`, scontrol's `JobId=24 ArrayJobId=24 ArrayTaskId=1-3`, JSON's `array_task_string`.
//!
//! Spur keeps one record per task, so the folding happens here: pending tasks of the same array, name and
//! partition become one view, represented by the array's own record (job id == array id) when it is among them.
//! A lone pending task folds too: Slurm 22.05 shows `--array=7` while pending as `2_[7]`.

use std::collections::BTreeMap;

use crate::format::job_view::JobView;
use crate::model::job::JobRecord;
use crate::model::states::JobBaseState;

/// Folds pending tasks of each array into one view (kept where its first task appeared); everything else passes
/// through unchanged.
pub(crate) fn fold_pending_tasks<'a>(jobs: &[&'a JobRecord]) -> Vec<JobView<'a>> {
    let key = fold_key;
    let mut members: BTreeMap<FoldKey<'a>, Vec<&'a JobRecord>> = BTreeMap::new();
    for job in jobs {
        if let Some(k) = key(job) {
            members.entry(k).or_default().push(job);
        }
    }
    let mut views = Vec::new();
    for job in jobs {
        match key(job) {
            None => views.push(JobView::single(job)),
            Some(k) => {
                if let Some(group) = members.remove(&k) {
                    views.push(fold_group(&group));
                }
            }
        }
    }
    views
}

/// What pending tasks fold by: their array, name and partition.
pub(crate) type FoldKey<'k> = (u32, &'k str, &'k str);

/// The fold `job` belongs to; `None` for anything but a pending array task.
pub(crate) fn fold_key(job: &JobRecord) -> Option<FoldKey<'_>> {
    let array = job.array_job_id?;
    job.array_task_id?;
    (job.state == JobBaseState::Pending).then_some((
        array,
        job.spec.name.as_str(),
        job.partition.as_str(),
    ))
}

/// Pending array tasks kept aside while a listing streams past, by fold, each fold's tasks in the order they came.
#[derive(Default)]
pub(crate) struct KeptTasks {
    pub(crate) folds: Vec<Vec<JobRecord>>,
    index: BTreeMap<(u32, String, String), usize>,
}

/// What [`KeptTasks::keep`] did with a job.
pub(crate) enum Kept {
    /// Not a pending array task: the caller prints it.
    No,
    /// The first task of a new fold, whose line goes where this job would have gone.
    NewFold(usize),
    /// Another task of a fold already placed.
    Joined,
}

impl KeptTasks {
    pub(crate) fn keep(&mut self, job: &JobRecord) -> Kept {
        let Some((array, name, partition)) = fold_key(job) else {
            return Kept::No;
        };
        let key = (array, name.to_string(), partition.to_string());
        if let Some(&fold) = self.index.get(&key) {
            self.folds[fold].push(job.clone());
            return Kept::Joined;
        }
        let fold = self.folds.len();
        self.index.insert(key, fold);
        self.folds.push(vec![job.clone()]);
        Kept::NewFold(fold)
    }
}

pub(crate) fn fold_group<'a>(group: &[&'a JobRecord]) -> JobView<'a> {
    let representative = group
        .iter()
        .copied()
        .find(|j| Some(j.job_id) == j.array_job_id)
        .unwrap_or(group[0]);
    let mut ids: Vec<u32> = group.iter().filter_map(|j| j.array_task_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let mut tasks = format_task_ids(&ids);
    if let Some(limit) = throttle(representative) {
        tasks.push_str(&format!("%{limit}"));
    }
    JobView {
        job: representative,
        array_tasks: Some(tasks),
        reason_desc: merged_reasons(representative, group),
    }
}

/// The `%N` throttle of `--array=1-10%2`, if any.
fn throttle(job: &JobRecord) -> Option<u32> {
    let spec = job.spec.array.as_deref()?;
    let (_, limit) = spec.rsplit_once('%')?;
    limit.trim().parse().ok()
}

/// `Priority,Resources` when tasks wait for different reasons (Slurm appends each new reason once).
fn merged_reasons(representative: &JobRecord, group: &[&JobRecord]) -> Option<String> {
    let mut desc: Option<String> = None;
    for task in group {
        if task.reason == representative.reason {
            continue;
        }
        let text = desc.get_or_insert_with(|| representative.reason.name().to_string());
        let reason = task.reason.name();
        if !text.contains(reason) {
            text.push(',');
            text.push_str(reason);
        }
    }
    desc
}

/// Sorted task ids as Slurm's bitmap text: `1-3,5,7-8`.
pub fn format_task_ids(ids: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let start = ids[i];
        let mut end = start;
        while i + 1 < ids.len() && ids[i + 1] == end + 1 {
            i += 1;
            end = ids[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_as_ranges() {
        assert_eq!(format_task_ids(&[1, 2, 3]), "1-3");
        assert_eq!(format_task_ids(&[1, 3, 4, 7]), "1,3-4,7");
        assert_eq!(format_task_ids(&[5]), "5");
        assert_eq!(format_task_ids(&[]), "");
    }
}
