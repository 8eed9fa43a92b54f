//! `spur-conformance bench`: the same workloads on real Slurm (with its defaults, and with the settings its High
//! Throughput Computing guide recommends) and on Spur, all from the conformance targets' slurm.conf, alternating
//! between the systems, and one table of figures with the Spur/Slurm ratios. Figures are reported, never asserted:
//! the short mode runs in CI only to keep the suite from rotting.

mod cluster;
pub mod history;
pub mod scale;
pub mod stats;
pub mod table;
mod workloads;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::target::TargetKind;
use cluster::Cluster;
use table::{Better, Cell, Table};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// A system under test: a target and the slurm.conf lines added to the suite's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    Slurm,
    SlurmHtc,
    Spur,
}

impl System {
    pub fn label(self) -> &'static str {
        match self {
            System::Slurm => "slurm",
            System::SlurmHtc => "slurm-htc",
            System::Spur => "spur",
        }
    }

    pub fn kind(self) -> TargetKind {
        match self {
            System::Slurm | System::SlurmHtc => TargetKind::Slurm,
            System::Spur => TargetKind::Spur,
        }
    }

    /// Slurm's High Throughput guide: no batch scheduling delay, no minimum interval between scheduling passes,
    /// a deeper queue per pass, quiet daemons, finished jobs purged after a few seconds. Spur runs the suite's
    /// configuration untouched.
    pub fn conf_extra(self) -> String {
        match self {
            System::SlurmHtc => "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,default_queue_depth=1000\n\
                                 SlurmctldDebug=error\nSlurmdDebug=error\nMinJobAge=5"
                .to_string(),
            System::Slurm | System::Spur => String::new(),
        }
    }

    pub fn parse_list(text: &str) -> std::result::Result<Vec<System>, String> {
        text.split(',')
            .map(|s| match s.trim() {
                "slurm" => Ok(System::Slurm),
                "slurm-htc" => Ok(System::SlurmHtc),
                "spur" => Ok(System::Spur),
                other => Err(format!(
                    "unknown system '{other}' (expected slurm, slurm-htc or spur)"
                )),
            })
            .collect()
    }
}

/// How much of each workload to run.
#[derive(Debug, Clone)]
pub struct Sizes {
    pub sequential_submits: usize,
    pub api_submits: usize,
    pub api_threads: usize,
    pub trivial_jobs: usize,
    pub trivial_deadline: Duration,
    pub latency_samples: usize,
    pub query_populations: Vec<usize>,
    /// Real Slurm's cap for the query populations (the suite's `MaxJobCount`, and the time it takes to fill).
    pub slurm_population_max: usize,
    pub multinode: bool,
    pub rounds: usize,
    /// The scale section's sizes (Spur only: simulated nodes).
    pub scale: Vec<scale::ScaleSize>,
}

impl Sizes {
    pub fn full() -> Sizes {
        Sizes {
            sequential_submits: 500,
            api_submits: 4000,
            api_threads: 32,
            trivial_jobs: 300,
            trivial_deadline: Duration::from_secs(180),
            latency_samples: 50,
            query_populations: vec![1_000, 10_000, 100_000],
            slurm_population_max: 10_000,
            multinode: true,
            rounds: 2,
            scale: [1_000, 10_000]
                .map(|nodes| scale::ScaleSize {
                    nodes,
                    jobs: 10_000,
                    runtime_secs: 10,
                    deadline: Duration::from_secs(600),
                })
                .to_vec(),
        }
    }

    pub fn short() -> Sizes {
        Sizes {
            sequential_submits: 50,
            api_submits: 400,
            api_threads: 32,
            trivial_jobs: 40,
            trivial_deadline: Duration::from_secs(60),
            latency_samples: 10,
            query_populations: vec![1_000],
            slurm_population_max: 10_000,
            multinode: false,
            rounds: 1,
            scale: vec![scale::ScaleSize {
                nodes: 50,
                jobs: 200,
                runtime_secs: 1,
                deadline: Duration::from_secs(60),
            }],
        }
    }
}

pub struct BenchOptions {
    pub systems: Vec<System>,
    pub sizes: Sizes,
    pub out: PathBuf,
    pub targets_dir: PathBuf,
    pub api_source: PathBuf,
    /// Only the scale section (simulated nodes), e.g. to refresh its figures alone.
    pub scale_only: bool,
}

/// Runs everything and returns the table. Each workload gets a freshly started cluster, so no workload sees
/// another's jobs; clusters are torn down even when a workload fails (the failure becomes the cell's note).
pub fn run(opts: &BenchOptions) -> Result<Table> {
    std::fs::create_dir_all(&opts.out)?;
    let out = std::fs::canonicalize(&opts.out)?;
    let mut table = Table::default();
    if !opts.scale_only {
        side_by_side(opts, &out, &mut table);
    }
    if opts.systems.contains(&System::Spur) {
        let slurms: Vec<&str> = opts
            .systems
            .iter()
            .filter(|&&s| s != System::Spur)
            .map(|s| s.label())
            .collect();
        scale::run(&opts.sizes.scale, &out, &slurms, &mut table);
    }
    Ok(table)
}

/// The workloads every system runs.
fn side_by_side(opts: &BenchOptions, out: &Path, table: &mut Table) {
    let out = out.to_path_buf();
    let api = compile_api_program(&opts.api_source, &out);
    let sizes = &opts.sizes;

    // The cheap workloads alternate between the systems, in reverse order every other round, so that a drift of
    // the machine (another process, a warm cache) does not favour one side. A rate counts as the median of its
    // rounds; the submit-to-start samples are split between the rounds and pooled, so the percentiles are taken
    // over `latency_samples` jobs in all (each sample of Slurm's defaults waits out its batch delay, about 3 s).
    let rounds = sizes.rounds.max(1);
    let mut light: Vec<(System, &'static str, Vec<f64>)> = Vec::new();
    for round in 0..rounds {
        let mut order = opts.systems.clone();
        if round % 2 == 1 {
            order.reverse();
        }
        for &system in &order {
            let latency_samples = samples_in_round(sizes.latency_samples, rounds, round);
            let gathered = light_workloads(opts, &out, system, &api, latency_samples);
            for (source, values) in gathered {
                match light
                    .iter_mut()
                    .find(|(s, n, _)| *s == system && *n == source)
                {
                    Some((_, _, all)) => all.extend(values),
                    None => light.push((system, source, values)),
                }
            }
        }
    }
    for &system in &opts.systems {
        for figure in &LIGHT_FIGURES {
            let cell = light
                .iter()
                .find(|(s, n, _)| *s == system && *n == figure.values)
                .and_then(|(_, _, v)| stats::percentile(v, figure.percentile))
                .map_or(Cell::Failed, Cell::Value);
            table.record(
                &light_name(figure.name, sizes),
                figure.unit,
                figure.better,
                system.label(),
                cell,
            );
        }
    }

    for &system in &opts.systems {
        end_to_end(opts, &out, system, &api, None, table);
        if sizes.multinode {
            end_to_end(opts, &out, system, &api, Some(3), table);
        }
        queries_and_memory(opts, &out, system, &api, table);
    }
}

/// Round `round`'s share of `total` samples split between `rounds` rounds: the shares add up to `total` exactly
/// (the table's row names that many jobs), the earlier rounds taking one more where it does not divide.
fn samples_in_round(total: usize, rounds: usize, round: usize) -> usize {
    total / rounds + usize::from(round < total % rounds)
}

/// A figure of the cheap workloads: which values it is drawn from, and which percentile of them.
struct LightFigure {
    name: &'static str,
    values: &'static str,
    percentile: f64,
    unit: &'static str,
    better: Better,
}

const LIGHT_FIGURES: [LightFigure; 4] = [
    LightFigure {
        name: "sequential sbatch",
        values: SEQUENTIAL,
        percentile: 50.0,
        unit: "jobs/s",
        better: Better::Higher,
    },
    LightFigure {
        name: "API submit",
        values: API_SUBMIT,
        percentile: 50.0,
        unit: "jobs/s",
        better: Better::Higher,
    },
    LightFigure {
        name: "submit-to-start p50",
        values: SUBMIT_TO_START,
        percentile: 50.0,
        unit: "ms",
        better: Better::Lower,
    },
    LightFigure {
        name: "submit-to-start p99",
        values: SUBMIT_TO_START,
        percentile: 99.0,
        unit: "ms",
        better: Better::Lower,
    },
];

/// Values gathered by the cheap workloads: one rate per round, or one latency per job.
const SEQUENTIAL: &str = "sequential sbatch rates";
const API_SUBMIT: &str = "API submit rates";
const SUBMIT_TO_START: &str = "submit-to-start samples";

fn light_name(name: &str, sizes: &Sizes) -> String {
    match name {
        "sequential sbatch" => format!(
            "sequential `sbatch --hold --wrap true` ({} jobs)",
            sizes.sequential_submits
        ),
        "API submit" => format!(
            "concurrent submit through the C API ({} jobs, {} threads)",
            sizes.api_submits, sizes.api_threads
        ),
        "submit-to-start p50" => format!(
            "submit-to-start p50 ({} jobs, idle cluster)",
            sizes.latency_samples
        ),
        "submit-to-start p99" => format!(
            "submit-to-start p99 ({} jobs, idle cluster)",
            sizes.latency_samples
        ),
        other => other.to_string(),
    }
}

/// An API program that did not compile (no libslurm-dev, no compiler) leaves the API figures blank.
type ApiProgram = std::result::Result<PathBuf, String>;

fn compile_api_program(source: &Path, out: &Path) -> ApiProgram {
    let binary = out.join("submit_api");
    let result = Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(source)
        .args(["-lslurm", "-lpthread"])
        .output();
    match result {
        Ok(o) if o.status.success() => Ok(binary),
        Ok(o) => Err(format!(
            "cc failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("cannot run gcc: {e}")),
    }
}

/// Brings up `system`, runs `body`, tears the cluster down whatever happened.
fn with_cluster<T>(
    opts: &BenchOptions,
    out: &Path,
    system: System,
    nodes: Option<u32>,
    body: impl FnOnce(&Cluster) -> Result<T>,
) -> Result<T> {
    let rundir = out.join(format!("cluster-{}", system.label()));
    let began = Instant::now();
    let cluster = Cluster::up(&opts.targets_dir, system, &rundir, nodes)?;
    let up = began.elapsed();
    let result = body(&cluster);
    let measured = began.elapsed() - up;
    let down = cluster.down();
    // Where the suite's wall time goes (its budget is 20 minutes on 2 cores).
    eprintln!(
        "bench: {}: up {:.1} s, workload {:.1} s, down {:.1} s",
        system.label(),
        up.as_secs_f64(),
        measured.as_secs_f64(),
        (began.elapsed() - up - measured).as_secs_f64()
    );
    let value = result?;
    down?;
    Ok(value)
}

fn note(what: &str, system: System, e: &dyn std::fmt::Display) {
    eprintln!("bench: {what} on {}: {e}", system.label());
}

fn light_workloads(
    opts: &BenchOptions,
    out: &Path,
    system: System,
    api: &ApiProgram,
    latency_samples: usize,
) -> Vec<(&'static str, Vec<f64>)> {
    let sizes = &opts.sizes;
    let mut gathered = Vec::new();
    eprintln!(
        "bench: {}: sequential sbatch, API submit, latency",
        system.label()
    );
    match with_cluster(opts, out, system, None, |c| {
        workloads::sequential_sbatch(c, sizes.sequential_submits)
    }) {
        Ok(rate) => gathered.push((SEQUENTIAL, vec![rate])),
        Err(e) => note("sequential sbatch", system, &e),
    }
    if let Ok(program) = api {
        let res = with_cluster(opts, out, system, None, |c| {
            workloads::api_submit(c, program, sizes.api_submits, sizes.api_threads, true)
        });
        match res {
            Ok(run) => gathered.push((API_SUBMIT, vec![run.submitted as f64 / run.seconds])),
            Err(e) => note("API submit", system, &e),
        }
    }
    let scratch = out.join(format!("latency-{}", system.label()));
    let res = std::fs::create_dir_all(&scratch)
        .map_err(Into::into)
        .and_then(|()| {
            with_cluster(opts, out, system, None, |c| {
                workloads::submit_to_start(c, latency_samples, &scratch)
            })
        });
    match res {
        Ok(latencies) => gathered.push((SUBMIT_TO_START, latencies)),
        Err(e) => note("submit-to-start", system, &e),
    }
    gathered
}

fn end_to_end(
    opts: &BenchOptions,
    out: &Path,
    system: System,
    api: &ApiProgram,
    nodes: Option<u32>,
    table: &mut Table,
) {
    let sizes = &opts.sizes;
    let name = format!(
        "end to end, {} trivial jobs on {}",
        sizes.trivial_jobs,
        nodes.map_or("1 node".to_string(), |n| format!("{n} nodes"))
    );
    let cell = match api {
        Ok(program) => {
            eprintln!("bench: {}: {name}", system.label());
            let res = with_cluster(opts, out, system, nodes, |c| {
                workloads::end_to_end(c, program, sizes.trivial_jobs, sizes.trivial_deadline)
            });
            match res {
                Ok(rate) => Cell::Value(rate),
                Err(e) => {
                    note(&name, system, &e);
                    Cell::Failed
                }
            }
        }
        Err(why) => Cell::NotRun(why.clone()),
    };
    table.record(&name, "jobs/s", Better::Higher, system.label(), cell);
}

/// Fills the queue with held jobs step by step and, at each population, times the query commands and reads the
/// daemons' memory.
fn queries_and_memory(
    opts: &BenchOptions,
    out: &Path,
    system: System,
    api: &ApiProgram,
    table: &mut Table,
) {
    let sizes = &opts.sizes;
    let label = system.label();
    let program = match api {
        Ok(p) => p.clone(),
        Err(why) => {
            for &n in &sizes.query_populations {
                table.record(
                    &format!("`squeue` with {n} jobs"),
                    "ms",
                    Better::Lower,
                    label,
                    Cell::NotRun(why.clone()),
                );
            }
            return;
        }
    };
    eprintln!("bench: {label}: queries and memory");
    let res = with_cluster(opts, out, system, None, |c| {
        let (ctld, agent) = c.rss_mib();
        record_rss(table, "idle", label, ctld, agent);
        let mut population = 0;
        for &n in &sizes.query_populations {
            if system.kind() == TargetKind::Slurm && n > sizes.slurm_population_max {
                let why = Cell::NotRun(format!(
                    "Slurm filled to {} only",
                    sizes.slurm_population_max
                ));
                for query in QUERIES {
                    table.record(
                        &query_name(query.0, n),
                        "ms",
                        Better::Lower,
                        label,
                        why.clone(),
                    );
                }
                continue;
            }
            let fill = Instant::now();
            while population < n {
                let run =
                    workloads::api_submit(c, &program, n - population, sizes.api_threads, true)?;
                population += run.submitted;
            }
            eprintln!(
                "bench: {label}: {population} jobs queued in {:.1} s",
                fill.elapsed().as_secs_f64()
            );
            for (name, program, args) in QUERIES {
                let ms = workloads::query_ms(c, program, args, 5)?;
                table.record(
                    &query_name(name, n),
                    "ms",
                    Better::Lower,
                    label,
                    Cell::Value(ms),
                );
            }
            let (ctld, agent) = c.rss_mib();
            record_rss(table, &format!("{n} jobs"), label, ctld, agent);
        }
        Ok(())
    });
    if let Err(e) = res {
        note("queries and memory", system, &e);
        table.record("queries and memory", "", Better::Lower, label, Cell::Failed);
    }
}

const QUERIES: [(&str, &str, &[&str]); 3] = [
    ("squeue", "squeue", &[]),
    ("sinfo", "sinfo", &[]),
    ("scontrol show job", "scontrol", &["show", "job"]),
];

fn query_name(query: &str, jobs: usize) -> String {
    format!("`{query}` with {jobs} jobs")
}

fn record_rss(table: &mut Table, when: &str, label: &str, ctld: Option<f64>, agent: Option<f64>) {
    let cell = |v: Option<f64>| v.map_or(Cell::Failed, Cell::Value);
    table.record(
        &format!("controller RSS, {when}"),
        "MiB",
        Better::Lower,
        label,
        cell(ctld),
    );
    table.record(
        &format!("agent RSS, {when}"),
        "MiB",
        Better::Lower,
        label,
        cell(agent),
    );
}

/// Where the table goes in docs/performance.md: between these markers, replaced on every run, so other sections
/// (the scheduler's and HA's benchmarks) stay.
pub const DOC_BEGIN: &str = "<!-- bench-suite:begin -->";
pub const DOC_END: &str = "<!-- bench-suite:end -->";

/// Where `--scale-only` writes its table, so refreshing the scale figures leaves the side-by-side table alone.
pub const SCALE_DOC_BEGIN: &str = "<!-- bench-scale:begin -->";
pub const SCALE_DOC_END: &str = "<!-- bench-scale:end -->";

/// `doc` with the text between the markers replaced by `section` (markers added at the end when missing).
pub fn splice_section(doc: &str, section: &str) -> String {
    splice_between(doc, section, DOC_BEGIN, DOC_END)
}

/// `doc` with the text between `begin` and `end` replaced by `section` (markers added at the end when missing).
pub fn splice_between(doc: &str, section: &str, begin: &str, end: &str) -> String {
    let block = format!("{begin}\n{section}{end}\n");
    match (doc.find(begin), doc.find(end)) {
        (Some(b), Some(e)) if e > b => {
            let after = doc[e + end.len()..].trim_start_matches('\n');
            format!("{}{block}{after}", &doc[..b])
        }
        _ => {
            let mut out = doc.trim_end().to_string();
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&block);
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_replaced_in_place_or_appended() {
        let doc = "# Performance\n\n## Scheduler\nfast\n";
        let once = splice_section(doc, "table 1\n");
        assert_eq!(once, format!("{doc}\n{DOC_BEGIN}\ntable 1\n{DOC_END}\n"));
        let with_tail = format!("{once}\n## HA\nsub-second\n");
        let twice = splice_section(&with_tail, "table 2\n");
        assert!(twice.contains("table 2") && !twice.contains("table 1"));
        assert!(twice.starts_with(doc) && twice.ends_with("## HA\nsub-second\n"));
    }

    #[test]
    fn latency_samples_are_split_between_rounds_exactly() {
        let shares = |total, rounds| {
            (0..rounds)
                .map(|r| samples_in_round(total, rounds, r))
                .collect::<Vec<_>>()
        };
        assert_eq!(shares(50, 2), [25, 25]);
        assert_eq!(shares(50, 3), [17, 17, 16]);
        assert_eq!(shares(10, 1), [10]);
        assert_eq!(shares(2, 3), [1, 1, 0]);
    }

    #[test]
    fn system_lists() {
        assert_eq!(
            System::parse_list("slurm,spur"),
            Ok(vec![System::Slurm, System::Spur])
        );
        assert!(System::parse_list("slurm,pbs").is_err());
        assert!(System::SlurmHtc
            .conf_extra()
            .contains("batch_sched_delay=0"));
    }
}
