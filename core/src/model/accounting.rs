//! Job accounting: the compact record `sacct` reads, one per job with its steps. While a job is in the
//! controller's live table its record is made from the [`JobRecord`] on demand (so it is always current: submitted,
//! started, steps, ended); when the job is purged after `MinJobAge` the state machine keeps this record instead, so
//! accounting outlives the live table without a database. Nothing here reads a clock: times come from the job.
//!
//! The record is deliberately small (no script, environment or options) and keeps what a later usage report needs
//! to sum per user and account: who, which account, when it ran, how many CPUs and nodes, and the TRES allocated.
//!
//! Persisted in snapshots: every field added later must be `#[serde(default)]`.

use serde::{Deserialize, Serialize};

use crate::format::job_view::JobView;
use crate::model::job::{EpochSecs, JobRecord};
use crate::model::job_edit::JobEdits;
use crate::model::states::{JobBaseState, JobReason};
use crate::model::step::StepRecord;
use crate::model::step_acct::StepAcct;

/// One job as accounting remembers it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobAccounting {
    pub job_id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_job_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array_task_id: Option<u32>,
    pub name: String,
    pub user_id: u32,
    pub group_id: u32,
    #[serde(default)]
    pub user_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub account: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qos: Option<String>,
    pub partition: String,
    pub state: JobBaseState,
    /// Who cancelled it (`CANCELLED by UID`); `None` when the job was not cancelled by a user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_by: Option<u32>,
    pub reason: JobReason,
    pub submit: EpochSecs,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eligible: Option<EpochSecs>,
    /// When it started; `None` if it never ran (a job cancelled while pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<EpochSecs>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<EpochSecs>,
    /// Seconds it ran, suspended time left out; for a running job, as of when the record was made.
    #[serde(default)]
    pub elapsed_secs: i64,
    /// Minutes; `None` is UNLIMITED.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_min: Option<u32>,
    /// The job never ran and asked for no limit: Slurm shows `Partition_Limit`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub limit_from_partition: bool,
    #[serde(default)]
    pub exit_code: u32,
    #[serde(default)]
    pub exit_signal: u32,
    #[serde(default)]
    pub priority: u32,
    /// Allocated nodes as a ranged hostlist; empty when none were.
    #[serde(default)]
    pub node_list: String,
    /// Nodes allocated, or asked for when none were.
    pub nodes: u32,
    /// CPUs allocated on all nodes together, or asked for when none were.
    pub cpus: u32,
    /// Memory allocated on each node, MB.
    #[serde(default)]
    pub mem_per_node_mb: u64,
    #[serde(default)]
    pub req_tres: String,
    /// Empty when nothing was allocated.
    #[serde(default)]
    pub alloc_tres: String,
    #[serde(default)]
    pub work_dir: String,
    /// It had a batch script, so a `J.batch` step ran on its first node once it started.
    #[serde(default)]
    pub batch: bool,
    /// `PrologFlags=Contain`: it had a `J.extern` step on its nodes.
    #[serde(default, skip_serializing_if = "is_false")]
    pub extern_step: bool,
    /// Times it was requeued.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub restarts: u32,
    /// The numbered steps (`srun`), in id order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepAccounting>,
    /// What `sacctmgr modify job` / `slurmdb_job_modify` set on the record (comments, derived exit code, WCKey).
    #[serde(default, skip_serializing_if = "JobEdits::is_empty")]
    pub edits: JobEdits,
    /// What the batch step used (`jobacct_gather`); `None` when nothing was reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_usage: Option<Box<StepAcct>>,
    /// Its memory was asked per node (`--mem`), not per CPU (`--mem-per-cpu`, `DefMemPerCPU`): seff says so.
    #[serde(default, skip_serializing_if = "is_false")]
    pub mem_per_node: bool,
    /// Read from a real Slurm's sacct output by `spur migrate import-jobs`, not run by Spur: its id may repeat
    /// among imported records, never with a Spur job's.
    #[serde(default, skip_serializing_if = "is_false")]
    pub imported: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// One numbered step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepAccounting {
    pub step_id: u32,
    pub name: String,
    pub state: JobBaseState,
    pub start: EpochSecs,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<EpochSecs>,
    #[serde(default)]
    pub exit_code: u32,
    #[serde(default)]
    pub exit_signal: u32,
    pub node_list: String,
    pub nodes: u32,
    pub tasks: u32,
    pub cpus: u32,
    /// Seconds it ran; for a running step, as of when the record was made.
    #[serde(default)]
    pub elapsed_secs: i64,
    /// What its tasks used (`jobacct_gather`); `None` while it runs or when nothing was reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Box<StepAcct>>,
}

/// Which row of a job: the job itself or one of its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Job,
    Batch,
    Extern,
    Step(u32),
}

/// What one output row shows (the job's row, or one of its steps', which Slurm fills more sparsely).
#[derive(Debug, Clone, PartialEq)]
pub struct Row<'a> {
    pub job: &'a JobAccounting,
    pub kind: RowKind,
    pub name: &'a str,
    pub state: JobBaseState,
    pub exit_code: u32,
    pub exit_signal: u32,
    pub start: Option<EpochSecs>,
    pub end: Option<EpochSecs>,
    pub elapsed_secs: i64,
    pub node_list: std::borrow::Cow<'a, str>,
    pub nodes: u32,
    pub tasks: Option<u32>,
    pub cpus: u32,
    /// The step's measured usage (steps' rows only; the job's row sums its steps' CPU times itself).
    pub usage: Option<&'a StepAcct>,
}

impl JobAccounting {
    /// The record of a job in the live table, as of `now` (which only a running job's elapsed time reads).
    pub fn of_job(job: &JobRecord, now: EpochSecs) -> Self {
        let view = JobView::single(job);
        let ran = job.alloc.as_ref().is_some_and(|a| !a.node_names.is_empty());
        let (mem_per_node_mb, nodes, cpus) = match &job.alloc {
            Some(a) if ran => (a.mem_mb, a.node_names.len() as u32, view.num_cpus()),
            _ => (0, job.spec.nodes_min.max(1), view.num_cpus()),
        };
        JobAccounting {
            job_id: job.shown_job_id(),
            array_job_id: job.array_job_id,
            array_task_id: job.array_task_id,
            name: job.spec.name.clone(),
            user_id: job.spec.user_id,
            group_id: job.spec.group_id,
            user_name: job.spec.user_name.clone(),
            account: job.spec.account.clone(),
            qos: job.spec.qos.clone(),
            partition: job.partition.clone(),
            state: job.state,
            cancelled_by: job.cancelled_by,
            reason: job.reason,
            submit: job.submit_time,
            // slurmdbd learns a job's eligible time only when slurmctld finds it eligible (a `--begin` time
            // shown by `scontrol` before then is not recorded): a job that never got there shows `Unknown`.
            eligible: job
                .eligible_time
                .filter(|_| job.accrue_time.is_some() || ran),
            start: job.start_time.filter(|_| ran),
            end: job.end_time.filter(|_| job.is_finished()),
            elapsed_secs: if ran { view.time_used(now) } else { 0 },
            time_limit_min: job.time_limit_min,
            limit_from_partition: !ran && job.spec.time_limit_min.is_none(),
            exit_code: job.exit_code,
            exit_signal: job.exit_signal,
            priority: job.priority,
            node_list: if ran { view.node_list() } else { String::new() },
            nodes,
            cpus,
            mem_per_node_mb,
            req_tres: view.tres_req(),
            alloc_tres: view.tres_alloc().unwrap_or_default(),
            work_dir: job.spec.work_dir.clone(),
            batch: job.spec.script.is_some(),
            extern_step: job.extern_step,
            restarts: job.restarts,
            steps: job
                .steps
                .iter()
                .map(|s| StepAccounting::of_step(s, now))
                .collect(),
            edits: JobEdits::default(),
            batch_usage: job.batch_usage.clone(),
            mem_per_node: job.spec.mem_per_node_mb.is_some(),
            imported: false,
        }
    }

    /// The order sacct lists jobs in: by submission (whole seconds), jobs before array tasks submitted in the same
    /// second, an array's tasks together in task order.
    pub fn listing_key(&self) -> (EpochSecs, u32, u32, u32) {
        (
            self.submit,
            self.array_job_id.unwrap_or(0),
            self.array_task_id.unwrap_or(0),
            self.job_id,
        )
    }

    /// The account sacct shows: the job's, else the default account every slurmdbd installation gives root
    /// (`root`); empty for other users' jobs without one (Spur has no associations yet).
    pub fn account_shown(&self) -> &str {
        match &self.account {
            Some(account) => account,
            None if self.user_id == 0 => "root",
            None => "",
        }
    }

    /// `12` or `12_3`.
    pub fn id_text(&self) -> String {
        match (self.array_job_id, self.array_task_id) {
            (Some(array), Some(task)) => format!("{array}_{task}"),
            _ => self.job_id.to_string(),
        }
    }

    pub fn is_finished(&self) -> bool {
        self.state.is_finished()
    }

    /// The job's user and system CPU time in microseconds: its steps' summed, the batch step's included, as
    /// slurmdbd adds them up for the job's row.
    pub fn cpu_us(&self) -> (u64, u64) {
        crate::model::step_acct::job_cpu(
            self.batch_usage
                .as_deref()
                .into_iter()
                .chain(self.steps.iter().filter_map(|s| s.usage.as_deref())),
        )
    }

    /// The job's row followed by its steps' (`J.batch`, `J.extern`, `J.0`, ...), as sacct lists them.
    pub fn rows(&self) -> Vec<Row<'_>> {
        let mut rows = vec![self.job_row()];
        if let Some(start) = self.start {
            if self.batch {
                rows.push(self.whole_job_step(RowKind::Batch, "batch", start));
            }
            if self.extern_step {
                rows.push(self.whole_job_step(RowKind::Extern, "extern", start));
            }
        }
        rows.extend(self.steps.iter().map(|s| Row {
            job: self,
            kind: RowKind::Step(s.step_id),
            name: &s.name,
            state: s.state,
            exit_code: s.exit_code,
            exit_signal: s.exit_signal,
            start: Some(s.start),
            end: s.end,
            elapsed_secs: s.elapsed_secs,
            node_list: s.node_list.as_str().into(),
            nodes: s.nodes,
            tasks: Some(s.tasks),
            cpus: s.cpus,
            usage: s.usage.as_deref(),
        }));
        rows
    }

    fn job_row(&self) -> Row<'_> {
        // The controller ends these jobs before their processes report back; the database keeps the exit
        // status the job had then, so Slurm's job line shows 0:0 (its batch step shows the signal).
        let ended_by_controller = matches!(
            self.state,
            JobBaseState::Cancelled
                | JobBaseState::Timeout
                | JobBaseState::Deadline
                | JobBaseState::Preempted
                | JobBaseState::NodeFail
        );
        let (exit_code, exit_signal) = if ended_by_controller {
            (0, 0)
        } else {
            (self.exit_code, self.exit_signal)
        };
        Row {
            job: self,
            kind: RowKind::Job,
            name: &self.name,
            state: self.state,
            exit_code,
            exit_signal,
            start: self.start,
            end: self.end,
            elapsed_secs: self.elapsed_secs,
            node_list: self.node_list.as_str().into(),
            nodes: self.nodes,
            tasks: None,
            cpus: self.cpus,
            usage: None,
        }
    }

    /// The batch or extern step: from the job's start to its end. The batch step runs on the first node only.
    fn whole_job_step(&self, kind: RowKind, name: &'static str, start: EpochSecs) -> Row<'_> {
        let (state, exit_code, exit_signal) = match (kind, self.state) {
            (_, JobBaseState::Running | JobBaseState::Suspended) => (self.state, 0, 0),
            (RowKind::Extern, JobBaseState::OutOfMemory) => (JobBaseState::OutOfMemory, 0, 0),
            (RowKind::Extern, _) => (JobBaseState::Completed, 0, 0),
            (_, JobBaseState::Completed) => (JobBaseState::Completed, 0, 0),
            (_, JobBaseState::Failed) => (JobBaseState::Failed, self.exit_code, self.exit_signal),
            (_, JobBaseState::OutOfMemory) => {
                (JobBaseState::OutOfMemory, self.exit_code, self.exit_signal)
            }
            // Cancelled, timed out, preempted: the script was killed with SIGTERM.
            _ => (JobBaseState::Cancelled, 0, 15),
        };
        let (node_list, nodes, cpus) = match kind {
            RowKind::Batch => {
                if self.nodes <= 1 {
                    (self.node_list.clone(), 1, self.cpus)
                } else {
                    let first = crate::grammar::hostlist::expand(&self.node_list)
                        .ok()
                        .and_then(|names| names.into_iter().next())
                        .unwrap_or_default();
                    (first, 1, self.cpus / self.nodes)
                }
            }
            _ => (self.node_list.clone(), self.nodes, self.cpus),
        };
        Row {
            job: self,
            kind,
            name,
            state,
            exit_code,
            exit_signal,
            start: Some(start),
            end: self.end,
            elapsed_secs: self.elapsed_secs,
            node_list: node_list.into(),
            nodes,
            tasks: Some(nodes),
            cpus,
            usage: match kind {
                RowKind::Batch => self.batch_usage.as_deref(),
                _ => None,
            },
        }
    }

    /// Whether the job counts as in `state` during `[from, to]`, as slurmdbd selects by state: a final state
    /// when it ended inside the window, running when it ran during it, pending when it waited during it.
    pub fn in_state_during(&self, state: JobBaseState, from: EpochSecs, to: EpochSecs) -> bool {
        if self.state != state {
            return false;
        }
        match state {
            JobBaseState::Pending => self.submit <= to && self.start.is_none_or(|s| s >= from),
            JobBaseState::Running | JobBaseState::Suspended => {
                self.start.is_some_and(|s| s <= to) && self.end.is_none_or(|e| e >= from)
            }
            _ => self.end.is_some_and(|e| e >= from && e <= to),
        }
    }

    /// Whether the job was known during `[from, to]`: submitted by its end and not ended before its start.
    pub fn active_during(&self, from: EpochSecs, to: EpochSecs) -> bool {
        self.submit <= to && self.end.is_none_or(|e| e >= from)
    }
}

impl StepAccounting {
    fn of_step(step: &StepRecord, now: EpochSecs) -> Self {
        StepAccounting {
            elapsed_secs: (step.end_time.unwrap_or(now) - step.start_time).max(0),
            step_id: step.step_id,
            name: step.name.clone(),
            state: step.state,
            start: step.start_time,
            end: step.end_time,
            exit_code: step.exit_code,
            exit_signal: step.exit_signal,
            node_list: step.node_list.clone(),
            nodes: step.num_nodes,
            tasks: step.num_tasks,
            cpus: step.num_cpus,
            usage: step.usage.clone(),
        }
    }
}

/// Which records and rows `sacct` shows; every part left empty selects everything.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Filter {
    /// `-j`: jobs, array tasks (`12_3`) and steps (`12.batch`); an array's id selects its tasks.
    pub jobs: Vec<crate::grammar::values::stepid::StepId>,
    /// `-u` (or the caller alone): only these users' jobs.
    pub users: Option<Vec<u32>>,
    /// `-s`: only jobs in one of these states during the window.
    pub states: Vec<JobBaseState>,
    /// `--name`: only jobs with one of these names.
    pub names: Vec<String>,
    /// `-r`/`--partition`: only jobs in one of these partitions.
    pub partitions: Vec<String>,
    /// `-A`/`--accounts`: only jobs charged to one of these accounts (as shown, see
    /// [`JobAccounting::account_shown`]).
    pub accounts: Vec<String>,
    /// `-S`/`-E`: only jobs known during `[start, end]`.
    pub window: Option<(EpochSecs, EpochSecs)>,
    /// `-X`: the jobs' rows only, no steps.
    pub allocations: bool,
}

impl Filter {
    /// Whether the job itself is selected (its steps may still be narrowed by [`Filter::rows`]).
    pub fn selects(&self, job: &JobAccounting) -> bool {
        if !self.jobs.is_empty() && !self.jobs.iter().any(|id| names_job(id, job)) {
            return false;
        }
        if self
            .users
            .as_ref()
            .is_some_and(|u| !u.contains(&job.user_id))
        {
            return false;
        }
        if !self.names.is_empty() && !self.names.contains(&job.name) {
            return false;
        }
        if !self.partitions.is_empty() && !self.partitions.contains(&job.partition) {
            return false;
        }
        if !self.accounts.is_empty() && !self.accounts.iter().any(|a| a == job.account_shown()) {
            return false;
        }
        match (self.window, self.states.is_empty()) {
            (Some((from, to)), false) => self
                .states
                .iter()
                .any(|&s| job.in_state_during(s, from, to)),
            (Some((from, to)), true) => job.active_during(from, to),
            (None, false) => self.states.contains(&job.state),
            (None, true) => true,
        }
    }

    /// The rows of the selected jobs, in the order given, each job's steps after it.
    pub fn rows<'a>(&self, records: &'a [JobAccounting]) -> Vec<Row<'a>> {
        let mut out = Vec::new();
        for job in records.iter().filter(|j| self.selects(j)) {
            // `-j 12.batch` names steps: only those rows; `-j 12` the job and all its steps.
            let steps: Vec<crate::grammar::values::stepid::Step> = self
                .jobs
                .iter()
                .filter(|id| names_job(id, job))
                .map(|id| id.step)
                .collect::<Option<Vec<_>>>()
                .unwrap_or_default();
            for row in job.rows() {
                let keep = if steps.is_empty() {
                    !self.allocations || row.kind == RowKind::Job
                } else {
                    steps.iter().any(|s| step_is(*s, row.kind))
                };
                if keep {
                    out.push(row);
                }
            }
        }
        out
    }
}

/// Whether `-j` item `id` names this job: its id, its array's id (all tasks), or one task of its array.
fn names_job(id: &crate::grammar::values::stepid::StepId, job: &JobAccounting) -> bool {
    match id.array_task {
        Some(task) => {
            job.array_task_id == Some(task)
                && (job.array_job_id == Some(id.job) || job.job_id == id.job)
        }
        None => job.job_id == id.job || job.array_job_id == Some(id.job),
    }
}

fn step_is(step: crate::grammar::values::stepid::Step, kind: RowKind) -> bool {
    use crate::grammar::values::stepid::Step;
    matches!(
        (step, kind),
        (Step::Batch, RowKind::Batch) | (Step::Extern, RowKind::Extern)
    ) || matches!((step, kind), (Step::Numbered(a), RowKind::Step(b)) if a == b)
}

/// slurmdbd.conf's `PurgeJobAfter` (`12`, `12months`, `30days`, `48hours`; a bare number counts months) in
/// seconds, a month taken as 30 days; `None` for a value slurmdbd would not take either.
pub fn purge_after_secs(value: &str) -> Option<u32> {
    let value = value.trim();
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    let count: u32 = value.get(..digits)?.parse().ok()?;
    let unit = value.get(digits..)?.trim().to_ascii_lowercase();
    let secs_per = match unit.as_str() {
        "" | "month" | "months" => 30 * 86_400,
        "day" | "days" => 86_400,
        "hour" | "hours" => 3_600,
        _ => return None,
    };
    count.checked_mul(secs_per).filter(|secs| *secs > 0)
}

#[cfg(test)]
mod tests {
    use super::purge_after_secs;

    #[test]
    fn purge_after_reads_slurmdbd_units() {
        assert_eq!(purge_after_secs("12"), Some(12 * 30 * 86_400));
        assert_eq!(purge_after_secs("2months"), Some(2 * 30 * 86_400));
        assert_eq!(purge_after_secs("30days"), Some(30 * 86_400));
        assert_eq!(purge_after_secs("48hours"), Some(48 * 3_600));
        assert_eq!(purge_after_secs("0"), None);
        assert_eq!(purge_after_secs("weekly"), None);
        assert_eq!(purge_after_secs("5 fortnights"), None);
    }
}
