//! Job listing benchmark (`cargo bench -p spur-core --bench job_listing [-- JOBS]`): the pure half of `squeue` and
//! `scontrol show job` with a big queue, split into the steps a listing goes through. JOBS held batch jobs shaped
//! like the ones the side-by-side suite submits through the C API (default 100,000) are encoded as the controller
//! packs a listing, decoded as the client reads it, then rendered as `squeue`, `squeue -h -o "%i %t"` and
//! `scontrol show job` print them. Prints the median, minimum and maximum of several runs of each step; the
//! figures are recorded in docs/performance-history.ndjson beside the end-to-end times of the real commands
//! (docs/performance.md says how).

// A benchmark, not a daemon: a failed unwrap stops the measurement with its message (the workspace denies
// unwrap and expect outside tests).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use spur_core::format::{scontrol_job, squeue, squeue_needs, FormatContext};
use spur_core::model::job::{HoldKind, JobRecord, JobSpec};
use spur_core::model::states::JobReason;
use spur_core::wire::api::JobList;
use spur_core::wire::listing::{pack, slim, JobListRef, ListedJob, PACKED_JOB_BYTES_HINT};
use spur_core::wire::listing_rows::{ListField, RowWriter, Rows};

const RUNS: usize = 5;
const T0: i64 = 1_800_000_000;

/// A held batch job as `slurm_submit_batch_job` leaves it in the controller (script and one variable).
fn held_job(job_id: u32) -> JobRecord {
    let spec = JobSpec {
        name: "bench".into(),
        user_id: 1000,
        group_id: 1000,
        user_name: "alice".into(),
        nodes_min: 1,
        ntasks: Some(1),
        cpus_per_task: 1,
        work_dir: "/tmp".into(),
        stdout: Some("/dev/null".into()),
        stderr: Some("/dev/null".into()),
        script: Some("#!/bin/sh\ntrue\n".into()),
        environment: vec![("PATH".into(), "/usr/bin:/bin".into())],
        submit_host: "login1".into(),
        hold: true,
        ..JobSpec::default()
    };
    let mut job = JobRecord::pending(job_id, spec, "debug".into(), T0 + i64::from(job_id), 0);
    job.hold = Some(HoldKind::User);
    job.reason = JobReason::HeldUser;
    job.eligible_time = None;
    job
}

fn time<T>(mut step: impl FnMut() -> T) -> (Vec<Duration>, T) {
    let mut times = Vec::with_capacity(RUNS);
    let mut last = None;
    for _ in 0..RUNS {
        let started = Instant::now();
        let out = step();
        times.push(started.elapsed());
        last = Some(out);
    }
    times.sort();
    (times, last.expect("RUNS > 0"))
}

fn report(what: &str, times: &[Duration], size: usize) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "{what:<34} median {:>7.1} ms   min {:>7.1} ms   max {:>7.1} ms   {:>6.1} MB",
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
        size as f64 / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let jobs_n: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(100_000);
    // `--only STEP` (a word of the step's name, for perf): the other render steps are skipped.
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let wanted = |what: &str| only.is_none_or(|o| what.contains(o.as_str()));
    let jobs: Vec<JobRecord> = (1..=jobs_n as u32).map(|id| held_job(id + 1000)).collect();
    println!(
        "{jobs_n} held jobs ({} bytes per record in memory)",
        std::mem::size_of::<JobRecord>()
    );

    let (t, packed) = time(|| {
        let list = JobListRef {
            jobs: jobs.iter().map(ListedJob::Borrowed).collect(),
            now: T0,
        };
        let reserve = list.jobs.len() * PACKED_JOB_BYTES_HINT;
        slim(|| pack(&list, reserve)).expect("packs")
    });
    report("encode (controller, postcard)", &t, packed.len());

    let (t, decoded) =
        time(|| postcard::from_bytes::<JobList>(&packed).expect("a listing it packed"));
    report("decode (client, postcard)", &t, packed.len());

    let ctx = FormatContext::new(T0 + 3_600, 0).with_user(1000, "alice");
    if wanted("squeue (render)") {
        let default = squeue::SqueueOptions::default();
        let (t, out) = time(|| squeue::render(&decoded.jobs, &default, &ctx));
        report("squeue (render)", &t, out.len());
    }
    if wanted("squeue -h -o \"%i %t\" (render)") {
        let short = squeue::SqueueOptions {
            no_header: true,
            ..squeue::SqueueOptions::default().with_format("%i %t")
        };
        let (t, out) = time(|| squeue::render(&decoded.jobs, &short, &ctx));
        report("squeue -h -o \"%i %t\" (render)", &t, out.len());
    }
    // The rows path squeue takes: the controller writes rows of the fields the table reads, the client reads
    // them into one record at a time and feeds its table.
    let squeue_rows = |what: &str, opts: &squeue::SqueueOptions| {
        let fields = squeue_needs::listed_fields(opts);
        let (t, bytes) = time(|| {
            let mut rows = RowWriter::new(&fields, jobs.len());
            for job in &jobs {
                rows.push(job).expect("writes");
            }
            rows.finish(T0).expect("finishes")
        });
        report(&format!("{what} rows: encode"), &t, bytes.len());
        let (t, out) = time(|| {
            let rows = Rows::parse(&bytes).expect("parses");
            let mut table = squeue::Table::new(opts, &ctx);
            rows.for_each(&fields, |job| table.push(job))
                .expect("reads");
            table.finish()
        });
        report(&format!("{what} rows: decode + render"), &t, out.len());
    };
    if wanted("squeue rows") {
        squeue_rows("squeue", &squeue::SqueueOptions::default());
    }
    if wanted("squeue -h -o \"%i %t\" rows") {
        let short = squeue::SqueueOptions {
            no_header: true,
            ..squeue::SqueueOptions::default().with_format("%i %t")
        };
        squeue_rows("squeue -h -o \"%i %t\"", &short);
    }
    if wanted("scontrol show job rows") {
        let fields = ListField::ALL;
        let (t, bytes) = time(|| {
            let mut rows = RowWriter::new(fields, jobs.len());
            for job in &jobs {
                rows.push(job).expect("writes");
            }
            rows.finish(T0).expect("finishes")
        });
        report("scontrol show job rows: encode", &t, bytes.len());
        let (t, out) = time(|| {
            let rows = Rows::parse(&bytes).expect("parses");
            let mut show = scontrol_job::Show::new(false, None, &ctx);
            rows.for_each(fields, |job| show.push(job)).expect("reads");
            show.finish()
        });
        report("scontrol show job rows: decode + render", &t, out.len());
    }
    if wanted("scontrol show job (render)") {
        let (t, out) = time(|| scontrol_job::render(&decoded.jobs, false, &ctx));
        report("scontrol show job (render)", &t, out.len());
    }
}
