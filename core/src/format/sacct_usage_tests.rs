//! sacct's usage fields on a finished batch job, with figures as real Slurm 22.05 printed them for a job that
//! held 200 MB (jobacct_gather/linux, case 520).

use super::*;
use crate::format::test_records::{running, NOW};
use crate::model::accounting::{Filter, JobAccounting};
use crate::model::step_acct::{Peaks, StepAcct};
use crate::model::step_usage::TaskUsage;

fn measured_job(sampled: bool) -> JobAccounting {
    let mut job = running();
    job.state = JobBaseState::Completed;
    job.end_time = Some(NOW - 5);
    let mut peaks = Peaks::default();
    if sampled {
        peaks.sample(&[TaskUsage {
            task: 0,
            cpu_ms: 120,
            rss_kib: 214_140,
            vmem_kib: 220_980,
            pages: 4,
            read_bytes: 48_072,
            write_bytes: 1,
            cpu_freq_khz: 0,
        }]);
    }
    job.batch_usage = Some(Box::new(StepAcct::of(&[peaks.node("vm")], 17_000, 111_000)));
    JobAccounting::of_job(&job, NOW)
}

fn rows(record: &JobAccounting, format: &str, no_convert: bool) -> String {
    let columns = parse_format(format).unwrap();
    let records = [record.clone()];
    let ctx = Context {
        no_convert,
        ..Context::default()
    };
    let mut out = String::new();
    for row in Filter::default().rows(&records) {
        out.push_str(&line(&row, &columns, Layout::Parsable2, &ctx));
    }
    out
}

#[test]
fn the_batch_row_shows_its_figures_and_the_job_row_its_cpu_times() {
    let record = measured_job(true);
    assert_eq!(
        rows(
            &record,
            "JobID,TotalCPU,UserCPU,SystemCPU,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxVMSize,MaxPages,\
             MaxDiskRead,MaxDiskWrite,AveDiskRead,ConsumedEnergy",
            false
        ),
        "42|00:00.128|00:00.017|00:00.111||||||||||\n\
         42.batch|00:00.128|00:00.017|00:00.111|214140K|vm|0|214140K|220980K|4|0.05M|0.00M|0.05M|0\n"
    );
    assert_eq!(
        rows(
            &record,
            "JobID,TRESUsageInTot,TRESUsageInMaxTask,TRESUsageOutMax",
            false
        ),
        "42|||\n42.batch|cpu=00:00:00,energy=0,fs/disk=48072,mem=214140K,pages=4,vmem=220980K|\
         cpu=0,fs/disk=0,mem=0,pages=0,vmem=0|energy=0,fs/disk=1\n"
    );
    assert_eq!(
        rows(&record, "JobID,MaxRSS,MaxVMSize", true),
        "42||\n42.batch|219279360|226283520\n"
    );
}

#[test]
fn a_step_no_sample_saw_keeps_only_cpu_times_and_energy() {
    let record = measured_job(false);
    assert_eq!(
        rows(
            &record,
            "JobID,TotalCPU,MinCPU,MaxRSS,AveCPUFreq,ConsumedEnergy,TRESUsageInTot,TRESUsageInMax,TRESUsageOutTot",
            false
        ),
        "42|00:00.128|||||||\n42.batch|00:00.128|||0|0|energy=0||energy=0\n"
    );
}

#[test]
fn rows_without_a_measurement_stay_empty() {
    let mut job = running();
    job.state = JobBaseState::Completed;
    job.end_time = Some(NOW - 5);
    let record = JobAccounting::of_job(&job, NOW);
    assert_eq!(
        rows(&record, "JobID,TotalCPU,MaxRSS", false),
        "42|00:00:00|\n42.batch||\n"
    );
}

#[test]
fn a_numbered_step_on_two_nodes_names_the_node_and_task_of_each_extreme() {
    use crate::model::step::StepRecord;
    use crate::model::step_acct::NodeAcct;
    let mut job = running();
    job.state = JobBaseState::Completed;
    job.end_time = Some(NOW - 5);
    let node = |name: &str, tasks: &[(u32, u64, u64)]| {
        let mut peaks = Peaks::default();
        peaks.sample(
            &tasks
                .iter()
                .map(|&(task, cpu_ms, rss_kib)| TaskUsage {
                    task,
                    cpu_ms,
                    rss_kib,
                    vmem_kib: rss_kib + 1000,
                    ..TaskUsage::default()
                })
                .collect::<Vec<_>>(),
        );
        NodeAcct {
            usage: peaks.node(name),
            user_cpu_us: tasks.iter().map(|t| t.1 * 1000).sum(),
            sys_cpu_us: 0,
            reaped_max_rss_kib: 0,
        }
    };
    // Three tasks over two nodes, as srun merges its nodes' reports.
    let usage = StepAcct::merge(&[
        node("n1", &[(0, 2_000, 61_440), (1, 1_500, 122_880)]),
        node("n2", &[(2, 3_000, 30_720)]),
    ]);
    job.steps = vec![StepRecord {
        step_id: 0,
        name: "python3".into(),
        state: StepRecord::end_state(0, 0),
        start_time: NOW - 60,
        end_time: Some(NOW - 10),
        node_list: "n[1-2]".into(),
        num_nodes: 2,
        num_tasks: 3,
        num_cpus: 3,
        time_limit_min: None,
        exit_code: 0,
        exit_signal: 0,
        srun_host: String::new(),
        srun_pid: 0,
        node_ranks: vec![vec![0, 1], vec![2]],
        usage: Some(Box::new(usage)),
    }];
    let record = JobAccounting::of_job(&job, NOW);
    assert_eq!(
        rows(
            &record,
            "JobID,TotalCPU,MinCPU,MinCPUNode,MinCPUTask,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,ConsumedEnergy,\
             ConsumedEnergyRaw",
            false
        ),
        // The job's row sums its steps' CPU (the batch step here measured nothing) and, once a numbered step's
        // accounting came back, has energy 0 as slurmctld's record does.
        "42|00:06.500||||||||0|0\n\
         42.batch||||||||||\n\
         42.0|00:06.500|00:00:01|n1|1|120M|n1|1|70M|0|0\n"
    );
}
