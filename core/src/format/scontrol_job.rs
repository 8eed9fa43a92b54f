//! `scontrol show job` (and `-o`, one line per job): every `Key=Value` line in Slurm's order, with its
//! placeholders (`(null)`, `Unknown`, `N/A`, `None`), the expanded stdio paths, and the record separator Slurm
//! prints (`\n   \n\n` after a multi-line record, ` \n` after a one-liner).

use std::fmt::{self, Write as _};

use crate::format::arrays::{fold_group, Kept, KeptTasks};
use crate::format::job_view::JobView;
pub use crate::format::scontrol_job_details::Details;
use crate::format::scontrol_job_details::{derived_exit_code, resource_lines};
use crate::format::squeue_fields::{
    cpus_per_tres, mem_per_tres, tres_per_job, tres_per_node, tres_per_socket, tres_per_task,
};
use crate::format::time::{long_minutes, long_secs};
use crate::format::units::mem_mb;
use crate::format::FormatContext;
use crate::model::job::JobRecord;

/// Renders `scontrol show job` for `jobs` in the given (controller) order; pending array tasks fold into one
/// record as in Slurm.
pub fn render(jobs: &[JobRecord], one_liner: bool, ctx: &FormatContext) -> String {
    render_with_details(jobs, one_liner, None, ctx)
}

/// [`render`], with the lines `scontrol -d` adds when `details` is given.
pub fn render_with_details(
    jobs: &[JobRecord],
    one_liner: bool,
    details: Option<&Details<'_>>,
    ctx: &FormatContext,
) -> String {
    let mut show = Show::new(one_liner, details, ctx);
    jobs.iter().for_each(|job| show.push(job));
    show.finish()
}

/// `scontrol show job` fed one job at a time in the controller's order ([`Show::push`]), so that a listing of
/// 100,000 jobs is never held as 100,000 records: each record is written as it comes, except pending array tasks,
/// kept until the end and written as one folded record where their first task came.
pub struct Show<'c> {
    one_liner: bool,
    details: Option<&'c Details<'c>>,
    ctx: &'c FormatContext,
    text: String,
    /// Where each fold's record goes: its place in `text`.
    fold_at: Vec<usize>,
    kept: KeptTasks,
    shown: usize,
}

impl<'c> Show<'c> {
    pub fn new(
        one_liner: bool,
        details: Option<&'c Details<'c>>,
        ctx: &'c FormatContext,
    ) -> Show<'c> {
        Show {
            one_liner,
            details,
            ctx,
            text: String::new(),
            fold_at: Vec::new(),
            kept: KeptTasks::default(),
            shown: 0,
        }
    }

    pub fn push(&mut self, job: &JobRecord) {
        match self.kept.keep(job) {
            Kept::No => {
                let view = JobView::single(job);
                render_one(
                    &mut self.text,
                    &view,
                    self.one_liner,
                    self.details,
                    self.ctx,
                );
                self.shown += 1;
            }
            Kept::NewFold(_) => {
                self.fold_at.push(self.text.len());
                self.shown += 1;
            }
            Kept::Joined => {}
        }
    }

    /// How many records the output holds (a fold is one).
    pub fn len(&self) -> usize {
        self.shown
    }

    pub fn is_empty(&self) -> bool {
        self.shown == 0
    }

    pub fn finish(self) -> String {
        if self.fold_at.is_empty() {
            return self.text;
        }
        let mut out = String::with_capacity(self.text.len());
        let mut from = 0;
        for (fold, at) in self.kept.folds.iter().zip(&self.fold_at) {
            out.push_str(&self.text[from..*at]);
            from = *at;
            let tasks: Vec<&JobRecord> = fold.iter().collect();
            render_one(
                &mut out,
                &fold_group(&tasks),
                self.one_liner,
                self.details,
                self.ctx,
            );
        }
        out.push_str(&self.text[from..]);
        out
    }
}

/// Writes a record's lines (each a list of `Key=Value` items joined by spaces) straight into the output, with
/// the separator before every line but the first: `scontrol show job` over a big queue prints millions of lines,
/// so none of them is built as a string of its own.
struct Record<'o> {
    out: &'o mut String,
    separator: &'static str,
    started: bool,
}

impl Record<'_> {
    fn next_line(&mut self) {
        if self.started {
            self.out.push_str(self.separator);
        }
        self.started = true;
    }

    fn line(&mut self, args: fmt::Arguments<'_>) {
        self.next_line();
        // Writing into a String cannot fail.
        let _ = self.out.write_fmt(args);
    }

    fn text(&mut self, text: &str) {
        self.next_line();
        self.out.push_str(text);
    }
}

fn render_one(
    out: &mut String,
    job: &JobView<'_>,
    one_liner: bool,
    details: Option<&Details<'_>>,
    ctx: &FormatContext,
) {
    // Slurm ends every record with one more line break, then a blank line between multi-line records.
    let line_end = if one_liner { " " } else { "\n   " };
    let mut r = Record {
        out,
        separator: line_end,
        started: false,
    };
    let j = job.job;
    let spec = &j.spec;

    r.line(format_args!("JobId={} ", j.job_id));
    if let Some(array) = j.array_job_id {
        let _ = write!(r.out, "ArrayJobId={array} ArrayTaskId=");
        match (&job.array_tasks, j.array_task_id) {
            (Some(tasks), _) => r.out.push_str(tasks),
            (None, Some(task)) => {
                let _ = write!(r.out, "{task}");
            }
            (None, None) => {}
        }
        r.out.push(' ');
        if let Some(limit) = job
            .array_tasks
            .as_deref()
            .and_then(|t| t.split_once('%'))
            .map(|(_, l)| l)
        {
            let _ = write!(r.out, "ArrayTaskThrottle={limit} ");
        }
    }
    if let Some(het) = &j.het {
        let _ = write!(
            r.out,
            "HetJobId={} HetJobOffset={} ",
            het.job_id, het.offset
        );
    }
    let _ = write!(r.out, "JobName={}", spec.name);
    if let Some(het) = &j.het {
        r.line(format_args!("HetJobIdSet={}", het.id_set()));
    }
    r.line(format_args!(
        "UserId={}({}) GroupId={}({}) MCS_label=N/A",
        ctx.user_name(spec.user_id),
        spec.user_id,
        ctx.group_name(spec.group_id),
        spec.group_id
    ));
    r.line(format_args!(
        "Priority={} Nice={} Account={} QOS={}",
        j.priority,
        spec.nice,
        null(&spec.account),
        null(&spec.qos)
    ));
    r.line(format_args!(
        "JobState={} Reason={} Dependency={}",
        job.state_long(),
        job.reason_text().replace(char::is_whitespace, "_"),
        null(&job.dependency())
    ));
    r.line(format_args!(
        "Requeue={} Restarts={} BatchFlag={} Reboot=0 ExitCode={}:{}",
        u8::from(spec.requeue),
        j.restarts,
        u8::from(job.batch_flag()),
        j.exit_code,
        j.exit_signal
    ));
    if details.is_some() {
        r.line(format_args!("DerivedExitCode={}", derived_exit_code(job)));
    }
    let time_min = spec
        .time_min_min
        .filter(|m| *m != 0)
        .map_or_else(|| "N/A".to_string(), |m| long_minutes(Some(m)));
    r.line(format_args!(
        "RunTime={} TimeLimit={} TimeMin={time_min}",
        long_secs(job.run_time(ctx.now)),
        long_minutes(j.time_limit_min)
    ));
    r.line(format_args!(
        "SubmitTime={} EligibleTime={}",
        ctx.time(j.submit_time),
        ctx.time_or(j.eligible_time, "Unknown")
    ));
    r.line(format_args!(
        "AccrueTime={}",
        ctx.time_or(j.accrue_time, "Unknown")
    ));
    if let Some(resized) = j.resize_time {
        r.line(format_args!("ResizeTime={}", ctx.time(resized)));
    }
    r.line(format_args!(
        "StartTime={} EndTime={} Deadline={}",
        ctx.time_or(job.start_time_shown(ctx.now), "Unknown"),
        job.end_time_text(ctx, "Unknown"),
        ctx.time_or(j.spec.deadline, "N/A")
    ));
    // Slurm prints this line only for started jobs that preemption could take.
    if let Some(eligible) = j.preemptable_time {
        r.line(format_args!(
            "PreemptEligibleTime={} PreemptTime={}",
            ctx.time(eligible),
            ctx.time_or(j.preempt_time, "None")
        ));
    }
    r.line(format_args!(
        "SuspendTime={} SecsPreSuspend={} LastSchedEval={} Scheduler={}",
        ctx.time_or(j.suspend_time, "None"),
        j.pre_suspend_secs,
        ctx.time_or(j.last_sched_eval, "Unknown"),
        if j.backfill_scheduled {
            "Backfill:*"
        } else {
            "Main"
        }
    ));
    r.line(format_args!(
        "Partition={} AllocNode:Sid={}:{}",
        j.partition,
        spec.alloc_node(),
        j.alloc_sid
    ));
    r.line(format_args!(
        "ReqNodeList={} ExcNodeList={}",
        null(&spec.required_nodes),
        null(&spec.excluded_nodes)
    ));
    let mut nodes = format!("NodeList={}", job.node_list());
    if let Some(sched) = &j.sched_nodes {
        nodes.push_str(&format!(" SchedNodeList={sched}"));
    }
    r.text(&nodes);
    if let Some(host) = job.batch_host() {
        r.line(format_args!("BatchHost={host}"));
    }
    r.line(format_args!(
        "NumNodes={} NumCPUs={} NumTasks={} CPUs/Task={} ReqB:S:C:T=0:0:*:*",
        num_nodes_text(job),
        job.num_cpus(),
        job.num_tasks()
            .map_or_else(|| "N/A".to_string(), |n| n.to_string()),
        job.cpus_per_task()
    ));
    r.line(format_args!("TRES={}", job.tres_shown()));
    r.line(format_args!(
        "Socks/Node={} NtasksPerN:B:S:C={}:0:*:* CoreSpec=*",
        spec.options
            .get("sockets-per-node")
            .map_or("*", String::as_str),
        spec.ntasks_per_node.unwrap_or(0)
    ));
    if let Some(details) = details {
        for line in resource_lines(job, details) {
            r.text(&line);
        }
    }
    let (mem, per) = job.min_memory();
    r.line(format_args!(
        "MinCPUsNode={} MinMemory{per}={} MinTmpDiskNode={}",
        job.min_cpus_per_node(),
        mem_mb(mem),
        mem_mb(spec.tmp_disk_mb)
    ));
    r.line(format_args!(
        "Features={} DelayBoot=00:00:00",
        null(&spec.constraint)
    ));
    if let Some(resv) = &spec.reservation {
        r.line(format_args!("Reservation={resv}"));
    }
    r.line(format_args!(
        "OverSubscribe={} Contiguous=0 Licenses={} Network=(null)",
        crate::policy::oversubscribe::label(spec, job.job.sharing),
        spec.licenses.as_deref().unwrap_or("(null)")
    ));
    r.line(format_args!("Command={}", null(&spec.command)));
    r.line(format_args!("WorkDir={}", spec.work_dir));
    if let Some(comment) = &spec.comment {
        r.line(format_args!("Comment={comment} "));
    }
    if job.batch_flag() {
        r.line(format_args!("StdErr={}", job.stderr_path(ctx)));
        r.line(format_args!("StdIn={}", job.stdin_path(ctx)));
        r.line(format_args!("StdOut={}", job.stdout_path(ctx)));
    }
    if let Some(sw) = spec.switches.filter(|s| s.count > 0) {
        let wait = i64::from(sw.wait_secs.unwrap_or(0));
        r.line(format_args!("Switches={}@{}", sw.count, long_secs(wait)));
    }
    r.text("Power=");
    if let Some(t) = cpus_per_tres(job) {
        r.line(format_args!("CpusPerTres={t}"));
    }
    if let Some(t) = mem_per_tres(job) {
        r.line(format_args!("MemPerTres={t}"));
    }
    // `--gpu-bind` and `--gpu-freq` as Slurm keeps them, under the GPU's TRES name.
    if let Some(bind) = spec.options.get("gpu-bind") {
        r.line(format_args!("TresBind=gpu:{bind}"));
    }
    if let Some(freq) = spec.options.get("gpu-freq") {
        r.line(format_args!("TresFreq=gpu:{freq}"));
    }
    if let Some(t) = tres_per_job(job) {
        r.line(format_args!("TresPerJob={t}"));
    }
    if let Some(t) = tres_per_node(job) {
        r.line(format_args!("TresPerNode={t}"));
    }
    if let Some(t) = tres_per_socket(job) {
        r.line(format_args!("TresPerSocket={t}"));
    }
    if let Some(t) = tres_per_task(job) {
        r.line(format_args!("TresPerTask={t}"));
    }
    if let (Some(user), Some(kind)) = (spec.options.get("mail-user"), spec.options.get("mail-type"))
    {
        r.line(format_args!("MailUser={user} MailType={kind}"));
    }
    r.out.push_str(line_end);
    r.out.push_str(if one_liner { "\n" } else { "\n\n" });
}

/// An unset text field as Slurm prints it.
fn null(v: &Option<String>) -> &str {
    v.as_deref().unwrap_or("(null)")
}

/// `NumNodes=1` or, for a pending job given a maximum node count (`-N1` included), `1-1`, `1-2`.
fn num_nodes_text(job: &JobView<'_>) -> String {
    let min = job.num_nodes();
    match job.job.spec.nodes_max {
        Some(max) if job.is_pending() && max >= min => format!("{min}-{max}"),
        _ => min.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{array_task, ctx, running};

    #[test]
    fn folded_array_shows_task_range_and_throttle() {
        let jobs = vec![array_task(50, 4), array_task(51, 1)];
        let out = render(&jobs, false, &ctx());
        assert!(
            out.starts_with(
                "JobId=50 ArrayJobId=50 ArrayTaskId=1,4%2 ArrayTaskThrottle=2 JobName=arr\n"
            ),
            "{out}"
        );
        assert!(
            out.contains("\n   StdOut=/home/alice/slurm-50_4294967294.out\n"),
            "{out}"
        );
    }

    #[test]
    fn optional_lines() {
        let mut job = running();
        job.spec.stdout = Some("logs/%x-%A_%a-%4j.%u".into());
        job.spec.options.insert("gpus".into(), "a100:2".into());
        job.spec.options.insert("gpus-per-task".into(), "1".into());
        job.spec.gres_text = Some("gpu:1,nic:1".into());
        job.spec.exclusive = true;
        job.spec.nodes_max = Some(3);
        let out = render(&[job], false, &ctx());
        assert!(out.contains("\n   Comment=nightly \n"), "{out}");
        assert!(
            out.contains("\n   StdOut=/home/alice/logs/train-42_4294967294-0042.alice\n"),
            "{out}"
        );
        assert!(out.contains("\n   StdErr=/home/alice/logs/train-42_4294967294-0042.alice\n"));
        assert!(out.contains("OverSubscribe=NO "));
        assert!(
            out.contains("\n   NumNodes=2 NumCPUs=4 NumTasks=4 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n")
        );
        assert!(out.ends_with(
            "Power=\n   TresPerJob=gres:gpu:a100:2\n   TresPerNode=gres:gpu:1,gres:nic:1\n   TresPerTask=gres:gpu:1\n   \n\n"
        ));
    }

    #[test]
    fn preemption_line_only_for_jobs_preemption_could_take() {
        let mut job = running();
        let plain = render(std::slice::from_ref(&job), false, &ctx());
        assert!(!plain.contains("PreemptEligibleTime="), "{plain}");
        job.preemptable_time = job.start_time;
        let out = render(std::slice::from_ref(&job), false, &ctx());
        let start = ctx().time(job.start_time.unwrap_or_default());
        assert!(
            out.contains(&format!(
                "\n   PreemptEligibleTime={start} PreemptTime=None\n   SuspendTime="
            )),
            "{out}"
        );
        job.preempt_time = job.start_time.map(|t| t + 60);
        let preempted = render(&[job], false, &ctx());
        assert!(!preempted.contains("PreemptTime=None"), "{preempted}");
    }

    #[test]
    fn non_batch_job_has_no_stdio_lines() {
        let mut job = running();
        job.spec.script = None;
        let out = render(&[job], true, &ctx());
        assert!(!out.contains("StdOut="));
        assert!(out.contains(" BatchFlag=0 "));
        assert!(out.ends_with("Power= \n"));
    }

    /// From sbatch-values.tsv: `-N1` shows `1-1` while pending, plain `1` without `-N`; a deadline is a time.
    #[test]
    fn pending_node_range_and_deadline() {
        let mut job = crate::format::test_records::pending();
        let shown = |job: &JobRecord| render(std::slice::from_ref(job), true, &ctx());
        assert!(shown(&job).contains(" NumNodes=1 "));
        assert!(shown(&job).contains(" Deadline=N/A "));
        job.spec.nodes_max = Some(1);
        job.spec.deadline = Some(crate::format::test_records::NOW);
        assert!(shown(&job).contains(" NumNodes=1-1 "));
        assert!(!shown(&job).contains(" Deadline=N/A "));
    }

    /// Checked against Slurm 22.05 after `scontrol requeuehold`: the description replaces the reason's name.
    #[test]
    fn state_description_replaces_the_reason() {
        let mut job = crate::format::test_records::pending();
        job.state_desc = Some("job requeued in held state".into());
        let out = render(std::slice::from_ref(&job), true, &ctx());
        assert!(out.contains(" Reason=job_requeued_in_held_state "), "{out}");
    }
}
