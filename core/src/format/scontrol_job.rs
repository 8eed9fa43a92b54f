//! `scontrol show job` (and `-o`, one line per job): every `Key=Value` line in Slurm's order, with its
//! placeholders (`(null)`, `Unknown`, `N/A`, `None`), the expanded stdio paths, and the record separator Slurm
//! prints (`\n   \n\n` after a multi-line record, ` \n` after a one-liner).

use crate::format::arrays::fold_pending_tasks;
use crate::format::job_view::JobView;
pub use crate::format::scontrol_job_details::Details;
use crate::format::scontrol_job_details::{derived_exit_code, resource_lines};
use crate::format::squeue_fields::{tres_per_job, tres_per_node, tres_per_task};
use crate::format::time::{long_minutes, long_secs};
use crate::format::units::mem_mb;
use crate::format::FormatContext;
use crate::job::JobRecord;

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
    let refs: Vec<&JobRecord> = jobs.iter().collect();
    fold_pending_tasks(&refs)
        .iter()
        .map(|view| render_one(view, one_liner, details, ctx))
        .collect()
}

/// Collects the record's lines; each line is a list of `Key=Value` items joined by spaces.
struct Record {
    lines: Vec<String>,
}

impl Record {
    fn line(&mut self, text: impl Into<String>) {
        self.lines.push(text.into());
    }
}

fn render_one(
    job: &JobView<'_>,
    one_liner: bool,
    details: Option<&Details<'_>>,
    ctx: &FormatContext,
) -> String {
    let mut r = Record { lines: Vec::new() };
    let j = job.job;
    let spec = &j.spec;
    let null = |v: &Option<String>| v.clone().unwrap_or_else(|| "(null)".to_string());

    let mut first = format!("JobId={} ", j.job_id);
    if let Some(array) = j.array_job_id {
        let task = match &job.array_tasks {
            Some(tasks) => tasks.clone(),
            None => j.array_task_id.map_or_else(String::new, |t| t.to_string()),
        };
        first.push_str(&format!("ArrayJobId={array} ArrayTaskId={task} "));
        if let Some(limit) = job
            .array_tasks
            .as_deref()
            .and_then(|t| t.split_once('%'))
            .map(|(_, l)| l)
        {
            first.push_str(&format!("ArrayTaskThrottle={limit} "));
        }
    }
    first.push_str(&format!("JobName={}", spec.name));
    r.line(first);
    r.line(format!(
        "UserId={}({}) GroupId={}({}) MCS_label=N/A",
        ctx.user_name(spec.user_id),
        spec.user_id,
        ctx.group_name(spec.group_id),
        spec.group_id
    ));
    r.line(format!(
        "Priority={} Nice={} Account={} QOS={}",
        j.priority,
        spec.nice,
        null(&spec.account),
        null(&spec.qos)
    ));
    r.line(format!(
        "JobState={} Reason={} Dependency={}",
        job.state_long(),
        job.reason_text().replace(char::is_whitespace, "_"),
        null(&job.dependency())
    ));
    r.line(format!(
        "Requeue={} Restarts={} BatchFlag={} Reboot=0 ExitCode={}:{}",
        u8::from(spec.requeue),
        j.restarts,
        u8::from(job.batch_flag()),
        j.exit_code,
        j.exit_signal
    ));
    if details.is_some() {
        r.line(format!("DerivedExitCode={}", derived_exit_code(job)));
    }
    let time_min = spec
        .time_min_min
        .filter(|m| *m != 0)
        .map_or_else(|| "N/A".to_string(), |m| long_minutes(Some(m)));
    r.line(format!(
        "RunTime={} TimeLimit={} TimeMin={time_min}",
        long_secs(job.run_time(ctx.now)),
        long_minutes(j.time_limit_min)
    ));
    r.line(format!(
        "SubmitTime={} EligibleTime={}",
        ctx.time(j.submit_time),
        ctx.time_or(j.eligible_time, "Unknown")
    ));
    r.line(format!(
        "AccrueTime={}",
        ctx.time_or(j.accrue_time, "Unknown")
    ));
    if let Some(resized) = j.resize_time {
        r.line(format!("ResizeTime={}", ctx.time(resized)));
    }
    r.line(format!(
        "StartTime={} EndTime={} Deadline={}",
        ctx.time_or(job.start_time_shown(), "Unknown"),
        job.end_time_text(ctx, "Unknown"),
        ctx.time_or(j.spec.deadline, "N/A")
    ));
    // Slurm prints this line only for started jobs that preemption could take.
    if let Some(eligible) = j.preemptable_time {
        r.line(format!(
            "PreemptEligibleTime={} PreemptTime={}",
            ctx.time(eligible),
            ctx.time_or(j.preempt_time, "None")
        ));
    }
    r.line(format!(
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
    r.line(format!(
        "Partition={} AllocNode:Sid={}:{}",
        j.partition,
        spec.alloc_node(),
        j.alloc_sid
    ));
    r.line(format!(
        "ReqNodeList={} ExcNodeList={}",
        null(&spec.required_nodes),
        null(&spec.excluded_nodes)
    ));
    let mut nodes = format!("NodeList={}", job.node_list());
    if let Some(sched) = &j.sched_nodes {
        nodes.push_str(&format!(" SchedNodeList={sched}"));
    }
    r.line(nodes);
    if let Some(host) = job.batch_host() {
        r.line(format!("BatchHost={host}"));
    }
    r.line(format!(
        "NumNodes={} NumCPUs={} NumTasks={} CPUs/Task={} ReqB:S:C:T=0:0:*:*",
        num_nodes_text(job),
        job.num_cpus(),
        job.num_tasks()
            .map_or_else(|| "N/A".to_string(), |n| n.to_string()),
        job.cpus_per_task()
    ));
    r.line(format!("TRES={}", job.tres_shown()));
    r.line(format!(
        "Socks/Node=* NtasksPerN:B:S:C={}:0:*:* CoreSpec=*",
        spec.ntasks_per_node.unwrap_or(0)
    ));
    if let Some(details) = details {
        for line in resource_lines(job, details) {
            r.line(line);
        }
    }
    let (mem, per) = job.min_memory();
    r.line(format!(
        "MinCPUsNode={} MinMemory{per}={} MinTmpDiskNode={}",
        job.min_cpus_per_node(),
        mem_mb(mem),
        mem_mb(spec.tmp_disk_mb)
    ));
    r.line(format!(
        "Features={} DelayBoot=00:00:00",
        null(&spec.constraint)
    ));
    if let Some(resv) = &spec.reservation {
        r.line(format!("Reservation={resv}"));
    }
    r.line(format!(
        "OverSubscribe={} Contiguous=0 Licenses={} Network=(null)",
        if spec.exclusive {
            "NO"
        } else if spec.options.contains_key("oversubscribe") {
            "YES"
        } else {
            "OK"
        },
        spec.licenses.as_deref().unwrap_or("(null)")
    ));
    r.line(format!("Command={}", null(&spec.command)));
    r.line(format!("WorkDir={}", spec.work_dir));
    if let Some(comment) = &spec.comment {
        r.line(format!("Comment={comment} "));
    }
    if job.batch_flag() {
        r.line(format!("StdErr={}", job.stderr_path(ctx)));
        r.line(format!("StdIn={}", job.stdin_path(ctx)));
        r.line(format!("StdOut={}", job.stdout_path(ctx)));
    }
    if let Some(sw) = spec.switches.filter(|s| s.count > 0) {
        let wait = i64::from(sw.wait_secs.unwrap_or(0));
        r.line(format!("Switches={}@{}", sw.count, long_secs(wait)));
    }
    r.line("Power=");
    if let Some(t) = tres_per_job(job) {
        r.line(format!("TresPerJob={t}"));
    }
    if let Some(t) = tres_per_node(job) {
        r.line(format!("TresPerNode={t}"));
    }
    if let Some(t) = tres_per_task(job) {
        r.line(format!("TresPerTask={t}"));
    }
    if let (Some(user), Some(kind)) = (spec.options.get("mail-user"), spec.options.get("mail-type"))
    {
        r.line(format!("MailUser={user} MailType={kind}"));
    }
    // Slurm ends every record with one more line break, then a blank line between multi-line records.
    let line_end = if one_liner { " " } else { "\n   " };
    let mut out = r.lines.join(line_end);
    out.push_str(line_end);
    out.push_str(if one_liner { "\n" } else { "\n\n" });
    out
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
