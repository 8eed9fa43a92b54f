//! What Slurm derives from a job record before printing it: counts (CPUs, nodes, tasks), state and reason texts,
//! elapsed and end times, TRES strings and the expanded stdio paths. squeue, scontrol and the JSON views all use
//! these so they always agree.

use crate::format::units;
use crate::format::FormatContext;
use crate::grammar::hostlist::compress as compress_names;
use crate::model::job::{EpochSecs, JobRecord};
use crate::model::states::JobBaseState;

/// Slurm's `NO_VAL`: what a task-id pattern expands to for a record that stands for several array tasks.
pub(crate) const NO_VAL: u32 = 0xffff_fffe;

/// How far ahead slurmctld puts the end of a running job without a time limit.
const YEAR_SECS: i64 = 365 * 86_400;

/// A job as one output record: a single job, or the pending tasks of one array folded into one record (squeue's
/// `24_[1-3]`, scontrol's `ArrayTaskId=1-3`).
#[derive(Debug, Clone)]
pub struct JobView<'a> {
    pub job: &'a JobRecord,
    /// The folded tasks' ids as Slurm writes them (`1-3`, `1-3%2` with a throttle).
    pub array_tasks: Option<String>,
    /// Reasons of folded tasks that differ from the representative's (`Priority,Resources`).
    pub reason_desc: Option<String>,
}

impl<'a> JobView<'a> {
    pub fn single(job: &'a JobRecord) -> JobView<'a> {
        JobView {
            job,
            array_tasks: None,
            reason_desc: None,
        }
    }

    pub fn is_pending(&self) -> bool {
        self.job.state == JobBaseState::Pending
    }

    pub fn is_running(&self) -> bool {
        self.job.state == JobBaseState::Running
    }

    /// Batch jobs carry a script; srun and salloc allocations do not.
    pub fn batch_flag(&self) -> bool {
        self.job.spec.script.is_some()
    }

    /// `%i`: `23`, `24_3`, or `24_[1-3]` for folded tasks.
    pub fn id_text(&self) -> String {
        match (
            &self.array_tasks,
            self.job.array_job_id,
            self.job.array_task_id,
        ) {
            (Some(tasks), Some(array), _) => format!("{array}_[{tasks}]"),
            (None, Some(array), Some(task)) => format!("{array}_{task}"),
            _ => match &self.job.het {
                Some(het) => format!("{}+{}", het.job_id, het.offset),
                None => self.job.job_id.to_string(),
            },
        }
    }

    /// `%F`: the array's id, or the job id.
    pub fn array_job_id(&self) -> u32 {
        self.job.array_job_id.unwrap_or(self.job.job_id)
    }

    /// `%K`: the task expression, the task id, or `N/A`.
    pub fn array_task_text(&self) -> String {
        match (&self.array_tasks, self.job.array_task_id) {
            (Some(tasks), _) => tasks.clone(),
            (None, Some(task)) => task.to_string(),
            _ => "N/A".to_string(),
        }
    }

    /// The task id patterns expand to: the task's, or `NO_VAL` for folded and non-array records.
    pub fn pattern_task_id(&self) -> u32 {
        match (&self.array_tasks, self.job.array_task_id) {
            (None, Some(task)) => task,
            _ => NO_VAL,
        }
    }

    /// `PENDING`, `RUNNING`, ... with the COMPLETING flag winning, as `job_state_string` does.
    pub fn state_long(&self) -> &'static str {
        if self.job.is_completing() {
            "COMPLETING"
        } else {
            self.job.state.long_name()
        }
    }

    /// `PD`, `R`, `CG`, ...
    pub fn state_compact(&self) -> &'static str {
        if self.job.is_completing() {
            "CG"
        } else {
            self.job.state.compact_name()
        }
    }

    pub fn reason_text(&self) -> String {
        self.reason_desc
            .clone()
            .or_else(|| self.job.state_desc.clone())
            .unwrap_or_else(|| self.job.reason.name().to_string())
    }

    pub fn cpus_per_task(&self) -> u32 {
        self.job.spec.cpus_per_task.max(1)
    }

    /// Nodes allocated, or the minimum a pending job asks for (Slurm's estimate where one was made).
    pub fn num_nodes(&self) -> u32 {
        match &self.job.alloc {
            Some(a) if !a.node_names.is_empty() => a.node_names.len() as u32,
            _ => self
                .job
                .node_estimate
                .unwrap_or(0)
                .max(self.job.spec.nodes_min)
                .max(1),
        }
    }

    /// CPUs allocated on all nodes together, or those a pending job asks for.
    pub fn num_cpus(&self) -> u32 {
        match &self.job.alloc {
            Some(a) if a.cpus > 0 => a
                .cpus
                .saturating_mul(u32::try_from(a.node_names.len().max(1)).unwrap_or(u32::MAX)),
            _ => self.requested_tasks().saturating_mul(self.cpus_per_task()),
        }
    }

    fn requested_tasks(&self) -> u32 {
        self.job
            .spec
            .ntasks
            .unwrap_or_else(|| match self.job.spec.ntasks_per_node {
                Some(per_node) => per_node.saturating_mul(self.job.spec.nodes_min.max(1)),
                None => self.job.spec.nodes_min.max(1),
            })
    }

    /// `NumTasks`: `None` prints `N/A` (a job that ended without running and never asked for a task count).
    pub fn num_tasks(&self) -> Option<u32> {
        match self.job.spec.ntasks {
            Some(n) => Some(n),
            None if self.is_pending() || self.job.alloc.is_some() => Some(self.requested_tasks()),
            None => None,
        }
    }

    /// `MinCPUsNode`.
    pub fn min_cpus_per_node(&self) -> u32 {
        let by_tasks = self
            .job
            .spec
            .ntasks_per_node
            .unwrap_or(1)
            .max(1)
            .saturating_mul(self.cpus_per_task());
        by_tasks.max(self.job.spec.min_cpus_per_node.unwrap_or(0))
    }

    /// Memory per node or per CPU, and which (`MinMemoryCPU=1G` / `MinMemoryNode=0`).
    pub fn min_memory(&self) -> (u64, &'static str) {
        match (self.job.spec.mem_per_cpu_mb, self.job.spec.mem_per_node_mb) {
            (Some(per_cpu), _) => (per_cpu, "CPU"),
            (None, Some(per_node)) => (per_node, "Node"),
            (None, None) => (0, "Node"),
        }
    }

    fn mem_total(&self, cpus: u32, nodes: u32) -> u64 {
        match self.min_memory() {
            (per_cpu, "CPU") => per_cpu.saturating_mul(u64::from(cpus)),
            (per_node, _) => per_node.saturating_mul(u64::from(nodes)),
        }
    }

    /// TRES requested (`tres_req_str`).
    pub fn tres_req(&self) -> String {
        if let Some(t) = &self.job.tres_req {
            return t.clone();
        }
        let cpus = self.requested_tasks().saturating_mul(self.cpus_per_task());
        let nodes = self.job.spec.nodes_min.max(1);
        let mem = self.mem_total(cpus, nodes);
        let billing = self.billing(cpus, mem, nodes, self.job.spec.gres_totals(nodes.into()));
        units::tres(
            Some(cpus.into()),
            (mem > 0).then_some(mem),
            Some(nodes.into()),
            Some(billing),
        )
    }

    /// The `billing` TRES of these counts under the job's partition's `TRESBillingWeights` (its CPUs without).
    fn billing(
        &self,
        cpus: u32,
        mem_mb: u64,
        nodes: u32,
        gres: std::collections::BTreeMap<String, u64>,
    ) -> u64 {
        crate::policy::billing::shown_billing(
            self.job.billing_weights.as_deref(),
            &crate::policy::billing::TresCounts {
                cpus: cpus.into(),
                mem_mb,
                nodes: nodes.into(),
                gres,
            },
        )
    }

    /// TRES allocated (`tres_alloc_str`), `None` before an allocation.
    pub fn tres_alloc(&self) -> Option<String> {
        if let Some(t) = &self.job.tres_alloc {
            return Some(t.clone());
        }
        let alloc = self
            .job
            .alloc
            .as_ref()
            .filter(|a| !a.node_names.is_empty())?;
        let nodes = u32::try_from(alloc.node_names.len()).unwrap_or(u32::MAX);
        // The allocation counts per node; the TRES string counts the whole job.
        let cpus = alloc.cpus.saturating_mul(nodes);
        let mem = if alloc.mem_mb > 0 {
            alloc.mem_mb.saturating_mul(u64::from(nodes))
        } else {
            self.mem_total(cpus, nodes)
        };
        let billing = self.billing(cpus, mem, nodes, alloc.gres_counts());
        Some(units::tres(
            Some(cpus.into()),
            (mem > 0).then_some(mem),
            Some(nodes.into()),
            Some(billing),
        ))
    }

    /// The TRES scontrol shows: allocated if any, else requested.
    pub fn tres_shown(&self) -> String {
        self.tres_alloc().unwrap_or_else(|| self.tres_req())
    }

    /// Allocated node names as a ranged hostlist, `""` without an allocation.
    pub fn node_list(&self) -> String {
        match &self.job.alloc {
            Some(a) => compress_names(&a.node_names),
            None => String::new(),
        }
    }

    /// The node running the batch script (the allocation's first node).
    pub fn batch_host(&self) -> Option<&str> {
        self.job
            .alloc
            .as_ref()
            .and_then(|a| a.node_names.first())
            .map(String::as_str)
    }

    /// Seconds the job has run, as squeue's `%M` computes it (0 until started).
    pub fn time_used(&self, now: EpochSecs) -> i64 {
        let Some(start) = self.job.start_time.filter(|s| *s != 0) else {
            return 0;
        };
        if self.is_pending() {
            return 0;
        }
        // A job that was ever suspended counts only the time it ran.
        if self.job.suspend_time.is_some() {
            return self.job.run_secs(now);
        }
        let end = match self.job.end_time {
            Some(end) if end != 0 && !self.is_running() => end,
            _ => now,
        };
        end - start
    }

    /// scontrol's `RunTime`: like [`Self::time_used`] but an unset start counts from the epoch, which is how
    /// Slurm prints a cancelled-before-start srun job (`RunTime=20787-14:57:49`).
    pub fn run_time(&self, now: EpochSecs) -> i64 {
        if self.is_pending() {
            return 0;
        }
        if self.job.suspend_time.is_some() {
            return self.job.run_secs(now);
        }
        let end = match self.job.end_time {
            Some(end) if end != 0 && !self.is_running() => end,
            _ => now,
        };
        end - self.job.start_time.unwrap_or(0)
    }

    /// The end time as Slurm stores it: actual, or start + limit for a running job (start + one year when it
    /// has no limit, as slurmctld sets it).
    pub fn end_time(&self) -> Option<EpochSecs> {
        if let Some(end) = self.job.end_time.filter(|e| *e != 0) {
            return Some(end);
        }
        if self.is_running() {
            let start = self.job.start_time?;
            let limit = self
                .job
                .time_limit_min
                .map_or(YEAR_SECS, |m| i64::from(m) * 60);
            return Some(start + limit);
        }
        if self.job.state == crate::model::states::JobBaseState::Pending {
            let start = self.job.expected_start?;
            let limit = self
                .job
                .time_limit_min
                .map_or(YEAR_SECS, |m| i64::from(m) * 60);
            return Some(start + limit);
        }
        None
    }

    /// `StartTime=`/`%S`: when the job started, or for a pending job when the backfill scheduler expects it to,
    /// else, as slurmctld reports it, its begin time while that is still to come.
    pub fn start_time_shown(&self, now: EpochSecs) -> Option<EpochSecs> {
        match self.job.state {
            crate::model::states::JobBaseState::Pending => self
                .job
                .expected_start
                .or(self.job.start_time)
                .or(self.job.spec.begin_time.filter(|begin| *begin > now)),
            _ => self.job.start_time,
        }
    }

    /// `EndTime=`/`%e` text: `Unknown` for an unlimited job whose end lies in the future.
    pub fn end_time_text(&self, ctx: &FormatContext, unknown: &str) -> String {
        match self.end_time() {
            Some(end) if self.job.time_limit_min.is_none() && end > ctx.now => unknown.to_string(),
            other => ctx.time_or(other, unknown),
        }
    }

    /// `Dependency=`/`%E` text.
    pub fn dependency(&self) -> Option<String> {
        self.job
            .dependency_status
            .clone()
            .or_else(|| self.job.spec.dependency.clone())
    }

    /// The raw wait status Slurm stores (`exit_code` in JSON).
    pub fn exit_raw(&self) -> u32 {
        if !self.batch_flag() && self.job.is_finished() && self.job.start_time.is_none() {
            // An srun allocation revoked before it started keeps Slurm's NO_VAL-ish 0xffffffff.
            return u32::MAX;
        }
        (self.job.exit_code << 8) | (self.job.exit_signal & 0x7f)
    }

    pub fn stdout_path(&self, ctx: &FormatContext) -> String {
        match &self.job.spec.stdout {
            Some(pattern) => self.expand_path(pattern, ctx),
            None => self.default_output(),
        }
    }

    pub fn stderr_path(&self, ctx: &FormatContext) -> String {
        match (&self.job.spec.stderr, &self.job.spec.stdout) {
            (Some(pattern), _) | (None, Some(pattern)) => self.expand_path(pattern, ctx),
            (None, None) => self.default_output(),
        }
    }

    pub fn stdin_path(&self, ctx: &FormatContext) -> String {
        match &self.job.spec.stdin {
            Some(pattern) => self.expand_path(pattern, ctx),
            None => "/dev/null".to_string(),
        }
    }

    fn default_output(&self) -> String {
        let dir = &self.job.spec.work_dir;
        match self.job.array_job_id {
            Some(array) => format!("{dir}/slurm-{array}_{}.out", self.pattern_task_id()),
            None => format!("{dir}/slurm-{}.out", self.job.job_id),
        }
    }

    /// Expands `%A %a %b %j %u %x %%` (with optional zero-padding width, `%4a`) like scontrol's `_fname_format`,
    /// and makes the path absolute against the working directory.
    pub fn expand_path(&self, pattern: &str, ctx: &FormatContext) -> String {
        let expanded = expand_pattern(pattern, |spec| match spec {
            'A' => Some(self.array_job_id().to_string()),
            'a' => Some(self.pattern_task_id().to_string()),
            'b' => Some((self.pattern_task_id() % 10).to_string()),
            'j' => Some(self.job.job_id.to_string()),
            'u' => Some(ctx.user_name(self.job.spec.user_id)),
            'x' => Some(self.job.spec.name.clone()),
            _ => None,
        });
        if expanded.starts_with('/') {
            expanded
        } else {
            format!("{}/{expanded}", self.job.spec.work_dir)
        }
    }
}

/// Pattern expansion shared by the stdio paths: `%%` is a literal `%`, `%<digits><letter>` zero-pads numbers
/// (width capped at 10 as Slurm does), unknown letters are kept as written.
fn expand_pattern(pattern: &str, value: impl Fn(char) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix('%') {
            out.push('%');
            rest = tail;
            continue;
        }
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        let width = after[..digits].parse::<usize>().unwrap_or(0).min(10);
        let mut chars = after[digits..].chars();
        match chars.next() {
            Some(letter) => match value(letter) {
                Some(v) => {
                    let numeric = v.chars().all(|c| c.is_ascii_digit());
                    if numeric && v.len() < width {
                        out.push_str(&"0".repeat(width - v.len()));
                    }
                    out.push_str(&v);
                    rest = chars.as_str();
                }
                None => {
                    out.push('%');
                    rest = after;
                }
            },
            None => {
                out.push('%');
                out.push_str(after);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pattern_expansion() {
        let v = |c| match c {
            'j' => Some("21".to_string()),
            'x' => Some("name".to_string()),
            _ => None,
        };
        assert_eq!(expand_pattern("slurm-%j.out", v), "slurm-21.out");
        assert_eq!(expand_pattern("%x-%5j-%%-%q", v), "name-00021-%-%q");
        assert_eq!(expand_pattern("end%", v), "end%");
        assert_eq!(expand_pattern("%12j", v), "0000000021");
    }
}
