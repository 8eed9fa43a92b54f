//! The measurements, each on a cluster that is up and idle. Every workload returns its figures; none asserts
//! anything about them (the suite reports, it does not judge).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::cluster::Cluster;
use super::stats::median;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Sequential `sbatch --wrap true` from a shell's point of view: a new client process per job, held so that
/// running jobs do not compete with the submissions. Jobs per second.
pub fn sequential_sbatch(cluster: &Cluster, jobs: usize) -> Result<f64> {
    let started = Instant::now();
    for _ in 0..jobs {
        cluster.stdout(
            "sbatch",
            &["--hold", "-o", "/dev/null", "-J", "bench", "--wrap", "true"],
        )?;
    }
    Ok(jobs as f64 / started.elapsed().as_secs_f64())
}

/// What `submit_api` reported: jobs submitted and the seconds it took.
pub struct ApiRun {
    pub submitted: usize,
    pub seconds: f64,
}

/// `jobs` submissions from `threads` threads of one process through the C API (libslurm, or libspur_compat in
/// its place), held or runnable.
pub fn api_submit(
    cluster: &Cluster,
    program: &Path,
    jobs: usize,
    threads: usize,
    held: bool,
) -> Result<ApiRun> {
    let mode = if held { "held" } else { "run" };
    let out = cluster
        .command(&program.to_string_lossy())
        .args([jobs.to_string(), threads.to_string(), mode.to_string()])
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let fields: Vec<&str> = text.split_whitespace().collect();
    let parse_err = || {
        format!(
            "submit_api printed {:?} ({}): {}",
            text.trim(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )
    };
    if !out.status.success() || fields.len() != 3 {
        return Err(parse_err().into());
    }
    Ok(ApiRun {
        submitted: fields[0].parse().map_err(|_| parse_err())?,
        seconds: fields[2].parse().map_err(|_| parse_err())?,
    })
}

/// Trivial jobs from the first submission to the last completion, submitted concurrently through the API so the
/// client is not the bottleneck. Stops at `deadline` and counts what finished by then. Jobs per second.
pub fn end_to_end(
    cluster: &Cluster,
    program: &Path,
    jobs: usize,
    deadline: Duration,
) -> Result<f64> {
    let started = Instant::now();
    let run = api_submit(cluster, program, jobs, 8, false)?;
    let mut active = cluster.active_jobs()?;
    while active > 0 && started.elapsed() < deadline {
        std::thread::sleep(poll_interval(started.elapsed()));
        active = cluster.active_jobs()?;
    }
    let finished = run.submitted.saturating_sub(active);
    Ok(finished as f64 / started.elapsed().as_secs_f64())
}

/// How long the end-to-end loop waits before asking again whether jobs are left: a 25th of the time so far, between
/// 10 and 100 ms. The last poll overshoots the last completion by up to one interval, which at a fixed 100 ms was
/// a tenth of a run that takes a second; a run of minutes is still polled only every 100 ms, so a slow controller
/// is not kept busy answering.
fn poll_interval(elapsed: Duration) -> Duration {
    (elapsed / 25).clamp(Duration::from_millis(10), Duration::from_millis(100))
}

/// Submit-to-start latency on an idle cluster: the time from just before `sbatch` runs to the job script's
/// first command, in milliseconds, one sample per job. The client process start is included, as a user sees it.
pub fn submit_to_start(cluster: &Cluster, samples: usize, scratch: &Path) -> Result<Vec<f64>> {
    let mut latencies = Vec::with_capacity(samples);
    for i in 0..samples {
        let stamp = scratch.join(format!("start-{i}"));
        let _ = std::fs::remove_file(&stamp);
        let wrap = format!("date +%s.%N > {}.tmp && mv {0}.tmp {0}", stamp.display());
        let submitted = now_secs();
        cluster.stdout(
            "sbatch",
            &["-o", "/dev/null", "-J", "latency", "--wrap", &wrap],
        )?;
        let waited = Instant::now();
        let started = loop {
            if let Ok(text) = std::fs::read_to_string(&stamp) {
                break text.trim().parse::<f64>()?;
            }
            if waited.elapsed() > Duration::from_secs(60) {
                return Err(format!("job of latency sample {i} did not start within 60 s").into());
            }
            std::thread::sleep(Duration::from_millis(1));
        };
        latencies.push((started - submitted) * 1000.0);
        // Let the job finish so that the next sample meets an idle cluster again.
        let idle_since = Instant::now();
        while cluster.active_jobs()? > 0 && idle_since.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    Ok(latencies)
}

/// Median wall time in milliseconds of `runs` runs of a query command.
pub fn query_ms(cluster: &Cluster, program: &str, args: &[&str], runs: usize) -> Result<f64> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(cluster.time(program, args)?.as_secs_f64() * 1000.0);
    }
    Ok(median(&times).unwrap_or(f64::NAN))
}

fn now_secs() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_keep_the_overshoot_a_small_part_of_the_run() {
        let ms = |n| Duration::from_millis(n);
        assert_eq!(poll_interval(ms(0)), ms(10));
        assert_eq!(poll_interval(ms(250)), ms(10));
        assert_eq!(poll_interval(ms(1000)), ms(40));
        assert_eq!(poll_interval(ms(2500)), ms(100));
        assert_eq!(poll_interval(Duration::from_secs(180)), ms(100));
    }
}
