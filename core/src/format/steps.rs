//! Job steps on screen: `squeue -s` (default layout `%.15i %.8j %.9P %.8u %.9M %N`, or `-o` with the step
//! letters) and `scontrol show step`. As in Slurm, only steps that are running are listed, and a running batch job
//! shows its `batch` step beside the steps srun registered.

use crate::format::columns::{parse_short, render_line, Cell, Layout};
use crate::format::time::{long_minutes, squeue_secs};
use crate::format::units::mem_mb;
use crate::format::FormatContext;
use crate::model::job::{EpochSecs, JobRecord};
use crate::model::states::JobBaseState;

/// squeue's default step layout.
pub const DEFAULT_STEP_FORMAT: &str = "%.15i %.8j %.9P %.8u %.9M %N";

/// A running step as the listings show it: one srun registered, or the batch script's own.
#[derive(Debug, Clone, PartialEq)]
pub struct StepView<'a> {
    pub job: &'a JobRecord,
    /// `None` for the batch and extern steps (told apart by `name`).
    pub step_id: Option<u32>,
    pub name: &'a str,
    pub start_time: EpochSecs,
    pub node_list: std::borrow::Cow<'a, str>,
    pub num_nodes: u32,
    pub num_tasks: u32,
    pub num_cpus: u32,
    pub time_limit_min: Option<u32>,
    /// `host:pid` of the srun; `None` for the batch step.
    pub srun: Option<(&'a str, u32)>,
}

impl StepView<'_> {
    /// `12.0`, `12.batch`, `12.extern`.
    pub fn id_text(&self) -> String {
        match self.step_id {
            Some(id) => format!("{}.{id}", self.job.job_id),
            None => format!("{}.{}", self.job.job_id, self.name),
        }
    }

    /// Where squeue sorts the step within its job: numbered steps first, then the batch step, then the extern
    /// step (Slurm numbers those two just below its largest ids).
    fn sort_rank(&self) -> u64 {
        match (self.step_id, self.name) {
            (Some(id), _) => u64::from(id),
            (None, EXTERN_STEP_NAME) => u64::from(u32::MAX) + 2,
            (None, _) => u64::from(u32::MAX) + 1,
        }
    }
}

/// The name of the extern step (`PrologFlags=Contain`).
pub const EXTERN_STEP_NAME: &str = "extern";

/// The running steps of running jobs in the order slurmctld keeps them: the extern step (made at allocation, with
/// `PrologFlags=Contain`), the batch step (made at launch), then srun's steps by id.
pub fn running_steps(jobs: &[JobRecord]) -> Vec<StepView<'_>> {
    let mut out = Vec::new();
    for job in jobs
        .iter()
        .filter(|j| j.state == JobBaseState::Running && !j.completing)
    {
        if job.extern_step {
            let (nodes, count) = job.alloc.as_ref().map_or((String::new(), 1), |a| {
                (
                    crate::grammar::hostlist::compress(&a.node_names),
                    u32::try_from(a.node_names.len()).unwrap_or(1),
                )
            });
            // One task (its sleeping keeper) per node, holding no CPUs.
            out.push(StepView {
                job,
                step_id: None,
                name: EXTERN_STEP_NAME,
                start_time: job.start_time.unwrap_or(0),
                node_list: nodes.into(),
                num_nodes: count,
                num_tasks: count,
                num_cpus: 0,
                time_limit_min: None,
                srun: None,
            });
        }
        if job.spec.script.is_some() {
            let batch_host = job
                .alloc
                .as_ref()
                .and_then(|a| a.node_names.first())
                .map_or("", String::as_str);
            out.push(StepView {
                job,
                step_id: None,
                name: "batch",
                start_time: job.start_time.unwrap_or(0),
                node_list: batch_host.into(),
                num_nodes: 1,
                num_tasks: 1,
                num_cpus: 0,
                time_limit_min: None,
                srun: None,
            });
        }
        for step in job.steps.iter().filter(|s| s.is_running()) {
            out.push(StepView {
                job,
                step_id: Some(step.step_id),
                name: &step.name,
                start_time: step.start_time,
                node_list: step.node_list.as_str().into(),
                num_nodes: step.num_nodes,
                num_tasks: step.num_tasks,
                num_cpus: step.num_cpus,
                time_limit_min: step.time_limit_min,
                srun: Some((&step.srun_host, step.srun_pid)),
            });
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepField {
    StepId,
    Name,
    Partition,
    User,
    Uid,
    Time,
    NodeList,
    TimeLimit,
    StartTime,
    Tasks,
    TresPerJob,
}

impl StepField {
    fn of_letter(letter: char) -> Option<StepField> {
        Some(match letter {
            'i' => StepField::StepId,
            'j' => StepField::Name,
            'P' => StepField::Partition,
            'u' => StepField::User,
            'U' => StepField::Uid,
            'M' => StepField::Time,
            'N' => StepField::NodeList,
            'l' => StepField::TimeLimit,
            'S' => StepField::StartTime,
            'A' => StepField::Tasks,
            'b' => StepField::TresPerJob,
            _ => return None,
        })
    }

    fn header(self) -> Cell<'static> {
        Cell::cut(match self {
            StepField::StepId => "STEPID",
            StepField::Name => "NAME",
            StepField::Partition => "PARTITION",
            StepField::User => "USER",
            StepField::Uid => "UID",
            StepField::Time => "TIME",
            StepField::NodeList => "NODELIST",
            StepField::TimeLimit => "TIME_LIMIT",
            StepField::StartTime => "START_TIME",
            StepField::Tasks => "TASKS",
            StepField::TresPerJob => "TRES_PER_JOB",
        })
    }

    fn value<'v>(self, step: &'v StepView<'_>, ctx: &'v FormatContext) -> Cell<'v> {
        match self {
            StepField::StepId => Cell::cut(step.id_text()),
            StepField::Name => Cell::cut(step.name),
            StepField::Partition => Cell::cut(step.job.partition.clone()),
            StepField::User => Cell::cut(ctx.user_name(step.job.spec.user_id)),
            StepField::Uid => Cell::cut(step.job.spec.user_id.to_string()),
            StepField::Time => Cell::cut(squeue_secs(ctx.now - step.start_time)),
            StepField::NodeList => Cell::cut(step.node_list.as_ref()),
            StepField::TimeLimit => Cell::cut(long_minutes(step.time_limit_min)),
            StepField::StartTime => Cell::cut(ctx.time(step.start_time)),
            StepField::Tasks => Cell::cut(step.num_tasks.to_string()),
            StepField::TresPerJob => Cell::cut("(null)"),
        }
    }
}

/// The `-o` layout for steps; its warnings are Slurm's `Invalid job step format specification: X`.
pub fn step_layout(format: &str) -> Layout<StepField> {
    parse_short(format, "job step", StepField::of_letter)
}

/// `squeue -s`: the header unless `no_header`, then one line per running step of the selected jobs.
pub fn render_squeue_steps(
    steps: &[StepView<'_>],
    layout: &Layout<StepField>,
    no_header: bool,
    ctx: &FormatContext,
) -> String {
    let mut out = String::new();
    if !no_header {
        out.push_str(&render_line(layout, |f, _| f.header()));
        out.push('\n');
    }
    let mut sorted: Vec<&StepView<'_>> = steps.iter().collect();
    sorted.sort_by_key(|s| (s.job.partition.clone(), s.job.job_id, s.sort_rank()));
    for step in sorted {
        out.push_str(&render_line(layout, |f, _| f.value(step, ctx)));
        out.push('\n');
    }
    out
}

/// `scontrol show step`: one record per step, multi-line or `-o` one-liner.
pub fn render_show_step(steps: &[StepView<'_>], one_liner: bool, ctx: &FormatContext) -> String {
    let mut out = String::new();
    for step in steps {
        // The batch and extern steps: no CPUs, no TRES, no distribution, no srun.
        let batch = step.step_id.is_none();
        let tres = if batch {
            "(null)".to_string()
        } else {
            let mem = step.job.alloc.as_ref().map_or(0, |a| a.mem_mb);
            format!(
                "cpu={},mem={},node={}",
                step.num_cpus,
                mem_mb(mem),
                step.num_nodes
            )
        };
        let mut lines = vec![
            format!(
                "StepId={} UserId={} StartTime={} TimeLimit={}",
                step.id_text(),
                step.job.spec.user_id,
                ctx.time(step.start_time),
                long_minutes(step.time_limit_min)
            ),
            format!(
                "State=RUNNING Partition={} NodeList={}",
                step.job.partition, step.node_list
            ),
            format!(
                "Nodes={} CPUs={} Tasks={} Name={} Network=(null)",
                step.num_nodes, step.num_cpus, step.num_tasks, step.name
            ),
            format!("TRES={tres}"),
            "ResvPorts=(null)".to_string(),
            if batch {
                "CPUFreqReq=Default".to_string()
            } else {
                "CPUFreqReq=Default Dist=Cyclic".to_string()
            },
        ];
        lines.push(match step.srun {
            Some((host, pid)) => format!("SrunHost:Pid={host}:{pid}"),
            None => "SrunHost:Pid=(null):0".to_string(),
        });
        if one_liner {
            out.push_str(&lines.join(" "));
            out.push('\n');
        } else {
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    out.push_str("   ");
                }
                out.push_str(line);
                out.push('\n');
            }
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::{Allocation, JobSpec};
    use crate::model::step::StepRecord;

    fn running_batch_job_with_a_step() -> JobRecord {
        let spec = JobSpec {
            name: "stepjob".into(),
            script: Some("#!/bin/sh\n".into()),
            ..JobSpec::default()
        };
        let mut job = JobRecord::pending(15, spec, "debug".into(), 100, 1);
        job.state = JobBaseState::Running;
        job.start_time = Some(100);
        job.alloc = Some(Allocation {
            node_names: vec!["vm".into()],
            cpus: 1,
            mem_mb: 1024,
            ..Allocation::default()
        });
        job.steps.push(StepRecord {
            step_id: 0,
            name: "inner".into(),
            state: JobBaseState::Running,
            start_time: 100,
            end_time: None,
            node_list: "vm".into(),
            num_nodes: 1,
            num_tasks: 1,
            num_cpus: 1,
            time_limit_min: None,
            exit_code: 0,
            exit_signal: 0,
            srun_host: "vm".into(),
            srun_pid: 5225,
            node_ranks: Vec::new(),
            usage: None,
        });
        job
    }

    /// Byte for byte what squeue 22.05 printed for such a job, four seconds in.
    #[test]
    fn squeue_steps_default_layout_matches_slurm() {
        let jobs = vec![running_batch_job_with_a_step()];
        let ctx = FormatContext::new(104, 0).with_user(0, "root");
        let out = render_squeue_steps(
            &running_steps(&jobs),
            &step_layout(DEFAULT_STEP_FORMAT),
            false,
            &ctx,
        );
        assert_eq!(
            out,
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n\
             \x20          15.0    inner     debug     root      0:04 vm\n\
             \x20      15.batch    batch     debug     root      0:04 vm\n"
        );
        let layout = step_layout("%i|%T");
        assert_eq!(
            layout.warnings,
            vec!["Invalid job step format specification: T"]
        );
    }

    #[test]
    fn show_step_matches_slurm() {
        let jobs = vec![running_batch_job_with_a_step()];
        let ctx = FormatContext::new(104, 0);
        let steps = running_steps(&jobs);
        let out = render_show_step(&steps[1..], false, &ctx);
        assert_eq!(
            out,
            "StepId=15.0 UserId=0 StartTime=1970-01-01T00:01:40 TimeLimit=UNLIMITED\n   \
             State=RUNNING Partition=debug NodeList=vm\n   \
             Nodes=1 CPUs=1 Tasks=1 Name=inner Network=(null)\n   \
             TRES=cpu=1,mem=1G,node=1\n   \
             ResvPorts=(null)\n   \
             CPUFreqReq=Default Dist=Cyclic\n   \
             SrunHost:Pid=vm:5225\n\n"
        );
        let batch = render_show_step(&steps[..1], true, &ctx);
        assert!(batch.starts_with("StepId=15.batch UserId=0 "));
        assert!(batch.contains(" CPUs=0 Tasks=1 Name=batch ") && batch.contains(" TRES=(null) "));
    }

    /// `PrologFlags=Contain`: as Slurm 22.05 showed a batch job running `srun sleep` (squeue sorts the extern
    /// step last, scontrol keeps it first).
    #[test]
    fn the_extern_step_is_listed_as_slurm_lists_it() {
        let mut job = running_batch_job_with_a_step();
        job.extern_step = true;
        let jobs = vec![job];
        let ctx = FormatContext::new(104, 0).with_user(0, "root");
        let steps = running_steps(&jobs);
        let ids: Vec<String> = steps.iter().map(StepView::id_text).collect();
        assert_eq!(ids, ["15.extern", "15.batch", "15.0"]);
        let out = render_squeue_steps(&steps, &step_layout(DEFAULT_STEP_FORMAT), true, &ctx);
        assert_eq!(
            out,
            "           15.0    inner     debug     root      0:04 vm\n\
             \x20      15.batch    batch     debug     root      0:04 vm\n\
             \x20     15.extern   extern     debug     root      0:04 vm\n"
        );
        assert_eq!(
            render_show_step(&steps[..1], false, &ctx),
            "StepId=15.extern UserId=0 StartTime=1970-01-01T00:01:40 TimeLimit=UNLIMITED\n   \
             State=RUNNING Partition=debug NodeList=vm\n   \
             Nodes=1 CPUs=0 Tasks=1 Name=extern Network=(null)\n   \
             TRES=(null)\n   \
             ResvPorts=(null)\n   \
             CPUFreqReq=Default\n   \
             SrunHost:Pid=(null):0\n\n"
        );
        let mut ended = jobs[0].clone();
        ended.state = JobBaseState::Completed;
        assert!(running_steps(std::slice::from_ref(&ended)).is_empty());
    }
}
