//! `seff JOBID`: the efficiency summary of Slurm's contributed `seff` script (version 2.1, as shipped with
//! 22.05), from the job's accounting record: CPU time used against the core-walltime allocated, and the largest
//! step's peak memory (times its tasks) against the memory asked for.

use crate::model::accounting::JobAccounting;
use crate::model::states::JobBaseState;

/// What seff needs besides the record: names it looks up itself.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub user: String,
    pub group: String,
    pub cluster: String,
}

/// The figures seff computes, also printed by `-d`.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub ncpus: u64,
    pub nnodes: u64,
    /// The tasks of the step with the largest peak memory (0 when no step was measured).
    pub ntasks: u64,
    /// Memory asked for, KiB, and whether it was asked per node.
    pub reqmem_kib: u64,
    pub per_node: bool,
    /// CPU seconds used (user + system over all steps, microseconds rounded as seff rounds them).
    pub cput: u64,
    pub walltime: u64,
    /// Peak memory of the largest step times its tasks, KiB.
    pub mem_kib: u64,
    pub exit_status: u32,
}

impl Figures {
    pub fn of(job: &JobAccounting) -> Figures {
        let ncpus = match u64::from(job.cpus) {
            0 => 1,
            n => n,
        };
        let nnodes = match u64::from(job.nodes) {
            0 => 1,
            n => n,
        };
        let steps = job
            .batch_usage
            .as_deref()
            .map(|u| (u, 1u64))
            .into_iter()
            .chain(
                job.steps
                    .iter()
                    .filter_map(|s| s.usage.as_deref().map(|u| (u, u64::from(s.tasks)))),
            );
        // seff adds whole seconds and microseconds apart, then rounds the microseconds' sum to seconds.
        let (mut secs, mut micros) = (0u64, 0u64);
        let (mut mem, mut ntasks) = (0u64, 0u64);
        for (usage, tasks) in steps {
            for us in [usage.user_cpu_us, usage.sys_cpu_us] {
                secs = secs.saturating_add(us / 1_000_000);
                micros = micros.saturating_add(us % 1_000_000);
            }
            let peak = if usage.totals.tasks == 0 {
                0
            } else {
                usage.totals.rss_kib.max.value
            };
            if mem < peak {
                mem = peak;
                ntasks = tasks;
            }
        }
        let cput = secs.saturating_add((micros + 500_000) / 1_000_000);
        let exit_status = job.rows().first().map_or(0, |row| row.exit_code);
        Figures {
            ncpus,
            nnodes,
            ntasks,
            reqmem_kib: job
                .mem_per_node_mb
                .saturating_mul(1024)
                .saturating_mul(u64::from(job.nodes.max(1))),
            per_node: job.mem_per_node,
            cput,
            walltime: u64::try_from(job.elapsed_secs).unwrap_or(0),
            mem_kib: mem.saturating_mul(ntasks),
            exit_status,
        }
    }
}

/// seff's report of `job`; `debug` adds its `-d` lines first.
pub fn report(job: &JobAccounting, names: &Names, debug: bool) -> String {
    let f = Figures::of(job);
    let state = job.state.long_name();
    let array = match (job.array_job_id, job.array_task_id) {
        (Some(array), Some(task)) => format!("{array}_{task}"),
        _ => String::new(),
    };
    let mut out = String::new();
    if debug {
        out.push_str(
            "Slurm data: JobID ArrayJobID User Group State Clustername Ncpus Nnodes Ntasks Reqmem PerNode Cput \
             Walltime Mem ExitStatus\n",
        );
        out.push_str(&format!(
            "Slurm data: {} {array} {} {} {state} {} {} {} {} {} {} {} {} {} {}\n\n",
            job.job_id,
            names.user,
            names.group,
            names.cluster,
            f.ncpus,
            f.nnodes,
            f.ntasks,
            f.reqmem_kib,
            u8::from(f.per_node),
            f.cput,
            f.walltime,
            perl_number(f.mem_kib as f64),
            f.exit_status
        ));
    }
    out.push_str(&format!("Job ID: {}\n", job.job_id));
    if !array.is_empty() {
        out.push_str(&format!("Array Job ID: {array}\n"));
    }
    out.push_str(&format!("Cluster: {}\n", names.cluster));
    out.push_str(&format!("User/Group: {}/{}\n", names.user, names.group));
    let live = matches!(job.state, JobBaseState::Pending | JobBaseState::Running);
    if live {
        out.push_str(&format!("State: {state}\n"));
    } else {
        out.push_str(&format!("State: {state} (exit code {})\n", f.exit_status));
    }
    if f.ncpus == 1 {
        out.push_str(&format!("Cores: {}\n", f.ncpus));
    } else {
        out.push_str(&format!("Nodes: {}\n", f.nnodes));
        out.push_str(&format!("Cores per node: {}\n", f.ncpus / f.nnodes));
    }
    if job.state == JobBaseState::Pending {
        out.push_str("Efficiency not available for jobs in the PENDING state.\n");
        return out;
    }
    let corewalltime = f.walltime.saturating_mul(f.ncpus);
    let cpu_eff = if corewalltime == 0 {
        0.0
    } else {
        f.cput as f64 / corewalltime as f64 * 100.0
    };
    out.push_str(&format!("CPU Utilized: {}\n", time2str(f.cput)));
    out.push_str(&format!(
        "CPU Efficiency: {cpu_eff:.2}% of {} core-walltime\n",
        time2str(corewalltime)
    ));
    out.push_str(&format!("Job Wall-clock time: {}\n", time2str(f.walltime)));
    let mem = f.mem_kib as f64;
    if f.ntasks == 1 {
        out.push_str(&format!("Memory Utilized: {}\n", kbytes2str(mem)));
    } else {
        out.push_str(&format!(
            "Memory Utilized: {} (estimated maximum)\n",
            kbytes2str(mem)
        ));
    }
    let reqmem = f.reqmem_kib as f64;
    let mem_eff = if f.reqmem_kib == 0 {
        0.0
    } else {
        mem / reqmem * 100.0
    };
    if f.ntasks == 1 {
        out.push_str(&format!(
            "Memory Efficiency: {mem_eff:.2}% of {}\n",
            kbytes2str(reqmem)
        ));
    } else if f.per_node {
        out.push_str(&format!(
            "Memory Efficiency: {mem_eff:.2}% of {} ({}/node)\n",
            kbytes2str(reqmem),
            kbytes2str(reqmem / f.nnodes as f64)
        ));
    } else {
        out.push_str(&format!(
            "Memory Efficiency: {mem_eff:.2}% of {} ({}/core)\n",
            kbytes2str(reqmem),
            kbytes2str(reqmem / f.ncpus as f64)
        ));
    }
    if job.state == JobBaseState::Running {
        out.push_str(&format!(
            "WARNING: Efficiency statistics may be misleading for {state} jobs.\n"
        ));
    }
    out
}

/// `[D-]HH:MM:SS`.
fn time2str(secs: u64) -> String {
    let days = secs / 86_400;
    let rest = secs % 86_400;
    let prefix = if days < 1 {
        String::new()
    } else {
        format!("{days}-")
    };
    format!(
        "{prefix}{:02}:{:02}:{:02}",
        rest / 3600,
        (rest % 3600) / 60,
        rest % 60
    )
}

/// KiB in the largest 1024-power unit below the value, two decimals: `214.14 MB`; nothing is `0.00 MB`.
fn kbytes2str(kib: f64) -> String {
    if kib == 0.0 {
        return "0.00 MB".to_string();
    }
    const UNITS: [&str; 6] = ["K", "M", "G", "T", "P", "E"];
    let exp = (kib.ln() / 1024f64.ln()).trunc();
    // A fraction of a KiB (a per-core share) has a negative exponent; Perl's array then counts from the end.
    let index = if exp < 0.0 {
        UNITS.len() as i64 + exp as i64
    } else {
        exp as i64
    };
    let unit = usize::try_from(index)
        .ok()
        .and_then(|i| UNITS.get(i))
        .copied()
        .unwrap_or("");
    format!("{:.2} {unit}B", kib / 1024f64.powf(exp))
}

/// A number as Perl prints it in a string: whole values without decimals.
fn perl_number(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{}", value as u64)
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{running, NOW};
    use crate::model::step_acct::{Peaks, StepAcct};
    use crate::model::step_usage::TaskUsage;

    fn finished(rss_kib: Option<u64>, user_us: u64) -> JobAccounting {
        let mut job = running();
        job.state = JobBaseState::Completed;
        job.end_time = Some(NOW - 5);
        let mut peaks = Peaks::default();
        if let Some(rss_kib) = rss_kib {
            peaks.sample(&[TaskUsage {
                task: 0,
                rss_kib,
                ..TaskUsage::default()
            }]);
        }
        job.batch_usage = Some(Box::new(StepAcct::of(
            &[peaks.node("n1")],
            user_us,
            400_000,
        )));
        JobAccounting::of_job(&job, NOW)
    }

    fn names() -> Names {
        Names {
            user: "alice".into(),
            group: "users".into(),
            cluster: "c1".into(),
        }
    }

    #[test]
    fn a_measured_batch_job() {
        let job = finished(Some(214_140), 1_700_000);
        let f = Figures::of(&job);
        assert_eq!((f.cput, f.ntasks, f.mem_kib), (2, 1, 214_140));
        let text = report(&job, &names(), false);
        let expected_head = format!(
            "Job ID: 42\nCluster: c1\nUser/Group: alice/users\nState: COMPLETED (exit code 0)\nNodes: {}\n",
            f.nnodes
        );
        assert!(text.starts_with(&expected_head), "{text}");
        assert!(text.contains("CPU Utilized: 00:00:02\n"), "{text}");
        assert!(text.contains("Memory Utilized: 209.12 MB\n"), "{text}");
    }

    #[test]
    fn an_unmeasured_job_has_no_memory_and_estimates() {
        let job = finished(None, 0);
        let f = Figures::of(&job);
        assert_eq!((f.cput, f.ntasks, f.mem_kib), (0, 0, 0));
        let text = report(&job, &names(), false);
        assert!(
            text.contains("Memory Utilized: 0.00 MB (estimated maximum)\n"),
            "{text}"
        );
    }

    #[test]
    fn perl_formats() {
        assert_eq!(time2str(0), "00:00:00");
        assert_eq!(time2str(3_723), "01:02:03");
        assert_eq!(time2str(90_061), "1-01:01:01");
        assert_eq!(kbytes2str(0.0), "0.00 MB");
        assert_eq!(kbytes2str(512.0), "512.00 KB");
        assert_eq!(kbytes2str(1024.0 * 1024.0), "1.00 GB");
        assert_eq!(kbytes2str(1_048_576.0 * 3.0), "3.00 GB");
        assert_eq!(kbytes2str(214_140.0), "209.12 MB");
        assert_eq!(kbytes2str(0.5), "0.50 KB");
        assert_eq!(perl_number(214_140.0), "214140");
    }
}
