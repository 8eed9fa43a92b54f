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
