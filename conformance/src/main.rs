//! The `spur-conformance` command: `run` cases against a target that is up, `compare` two runs, `both` (bring
//! up Slurm, run, tear down, the same for Spur, compare) and `show` (one case's normalised transcript).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use spur_conformance::case::Selection;
use spur_conformance::compare::{compare_runs, settle_retries, Comparison, Outcome};
use spur_conformance::normalise::normalise;
use spur_conformance::runner::{self, load_run, RunOptions};
use spur_conformance::target::{self, TargetKind};
use spur_conformance::{bench, case, report};

#[derive(Parser)]
#[command(
    name = "spur-conformance",
    about = "Run the same cases on real Slurm and on Spur and diff the results"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Args, Clone)]
struct CaseArgs {
    /// Directory holding the cases.
    #[arg(long, default_value_os_t = default_dir("cases"))]
    cases: PathBuf,
    /// Only cases whose name contains one of these comma-separated strings.
    #[arg(long)]
    filter: Option<String>,
    /// One case by name (same as --filter NAME).
    #[arg(long = "case", conflicts_with = "filter")]
    case_name: Option<String>,
    /// Only the quick subset (cases with `ci = true`).
    #[arg(long)]
    ci: bool,
    /// How many `parallel = true` cases run at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Only the cases that need several nodes (`needs = "multinode"`), for a multi-node target.
    #[arg(long)]
    multinode: bool,
    /// Only the cases that need cgroup confinement (`needs = "cgroup"`); with `both`, the targets are started
    /// with `TaskPlugin=task/cgroup` and `ProctrackType=proctrack/cgroup`.
    #[arg(long)]
    cgroup: bool,
    /// Only the cases that need priority/multifactor (`needs = "priority"`); with `both`, the targets are started
    /// with the multifactor weights and the `high` partition of `PRIORITY_CONF`.
    #[arg(long, conflicts_with = "cgroup")]
    priority: bool,
    /// Only the cases that need partition access rules (`needs = "access"`); with `both`, the targets are started
    /// with the `PrivateData`, licenses and partitions of `ACCESS_CONF` (partition access, licenses and
    /// reservation cases).
    #[arg(long, conflicts_with_all = ["cgroup", "priority"])]
    access: bool,
    /// Only the cases that need a switch tree (`needs = "topology"`); with `both`, the targets are started with
    /// `TopologyPlugin=topology/tree` and conf/topology.conf.
    #[arg(long, conflicts_with_all = ["cgroup", "priority", "access"])]
    topology: bool,
    /// Only the cases that need the allocation prolog (`needs = "prolog"`); with `both`, the targets are started
    /// with conf/prolog.sh as `Prolog` and `PrologFlags=Alloc,Contain`.
    #[arg(long, conflicts_with_all = ["cgroup", "priority", "access", "topology"])]
    prolog: bool,
    /// Only the cases that need job accounting (`needs = "accounting"`); with `both`, the targets are started
    /// with `ACCOUNTING_CONF` (Slurm with slurmdbd and MariaDB, see targets/slurm/dbd.sh; Spur with its own).
    #[arg(long, conflicts_with_all = ["cgroup", "priority", "access", "topology", "prolog"])]
    accounting: bool,
}

impl CaseArgs {
    fn selection(&self) -> Selection {
        Selection {
            filter: self.filter.clone().or_else(|| self.case_name.clone()),
            ci_only: self.ci,
            multinode_only: self.multinode,
            cgroup_only: self.cgroup,
            priority_only: self.priority,
            access_only: self.access,
            topology_only: self.topology,
            prolog_only: self.prolog,
            accounting_only: self.accounting,
        }
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// Run cases against a target already up (SLURM_CONF, PATH and RUNDIR from its up.sh).
    Run {
        #[arg(long)]
        target: TargetKind,
        #[command(flatten)]
        cases: CaseArgs,
        /// Output directory (created; an earlier run there is replaced).
        #[arg(long)]
        out: PathBuf,
    },
    /// Normalise and diff two runs; writes a Markdown report and a JSON one beside it.
    Compare {
        left: PathBuf,
        right: PathBuf,
        /// Case directory for the case settings (default: the one the left run used).
        #[arg(long)]
        cases: Option<PathBuf>,
        #[arg(long, default_value = "conformance-report.md")]
        report: PathBuf,
    },
    /// Up slurm, run, down; up spur, run, down; compare. Writes OUT/slurm, OUT/spur and OUT/report.md.
    Both {
        #[command(flatten)]
        cases: CaseArgs,
        /// Bring both targets up with N nodes (`up.sh --nodes N`: one network namespace per node) and run only the
        /// multi-node cases.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
        nodes: Option<u32>,
        /// Run directories PREFIX-slurm and PREFIX-spur (default OUT/cluster-slurm and OUT/cluster-spur),
        /// so that two runs on one machine stay apart.
        #[arg(long, value_name = "PREFIX")]
        rundirs: Option<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// Directory with the targets' up.sh and down.sh.
        #[arg(long, default_value_os_t = default_dir("targets"))]
        targets: PathBuf,
        /// Fail on the first run's differences: by default cases that differ are run once more on fresh
        /// clusters of both, and one identical then counts as `pass-on-retry` (a timing artefact of one side,
        /// listed in the report), not as a failure.
        #[arg(long)]
        no_retry: bool,
    },
    /// Benchmarks: the same workloads on real Slurm (defaults and its High Throughput settings) and on Spur, one
    /// table with the Spur/Slurm ratios (docs/performance.md). Reports figures; asserts none.
    Bench {
        /// The CI mode: small sizes, one round, one node (about two minutes).
        #[arg(long)]
        short: bool,
        /// Comma-separated systems: slurm, slurm-htc, spur (default: all three; --short: slurm-htc,spur).
        #[arg(long)]
        systems: Option<String>,
        /// Rounds of the cheap workloads (alternating the systems' order); default 2, 1 with --short.
        #[arg(long)]
        rounds: Option<usize>,
        /// Work directory (clusters, the compiled API client, bench.md).
        #[arg(long, default_value = "/tmp/spur-bench")]
        out: PathBuf,
        /// Also write the table into this Markdown file, between its bench-suite markers, and append its figures
        /// to performance-history.ndjson in the same directory (docs/performance.md: `--write-docs
        /// docs/performance.md`).
        #[arg(long)]
        write_docs: Option<PathBuf>,
        /// Directory with the targets' up.sh and down.sh.
        #[arg(long, default_value_os_t = default_dir("targets"))]
        targets: PathBuf,
        /// Only the scale section (Spur driving simulated nodes); with --write-docs its table goes between the
        /// bench-scale markers, leaving the side-by-side table as it is.
        #[arg(long)]
        scale_only: bool,
    },
    /// Print one case's normalised transcript from a run.
    Show { run: PathBuf, case: String },
    /// Migration check: run the cases (the suite's, or a site's own with --cases) on a live Slurm cluster and on a
    /// Spur cluster, and compare. Only jobs the cases submit are ever cancelled on either.
    #[command(long_flag = "against")]
    Against {
        /// File of `export NAME=VALUE` lines for the live Slurm cluster: at least SLURM_CONF, and PATH when its
        /// commands are not on ours.
        slurm_env: PathBuf,
        /// The same for a running Spur cluster; without it a local Spur target is brought up for the run and
        /// torn down after.
        #[arg(long)]
        spur_env: Option<PathBuf>,
        #[command(flatten)]
        cases: CaseArgs,
        #[arg(long)]
        out: PathBuf,
        /// Directory with the targets' up.sh and down.sh (for the local Spur target).
        #[arg(long, default_value_os_t = default_dir("targets"))]
        targets: PathBuf,
    },
}

/// Beside this crate's sources: where the cases and targets live in the repository.
fn default_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("spur-conformance: error: {e}");
            ExitCode::from(2)
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn dispatch(cmd: Cmd) -> Result<ExitCode> {
    match cmd {
        Cmd::Run { target, cases, out } => {
            let opts = run_options(target, &cases, out);
            let rec = runner::run(&opts, &Vec::new())?;
            eprintln!(
                "spur-conformance: {} case(s) in {:.1} s",
                rec.cases.len(),
                rec.wall_ms as f64 / 1000.0
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Compare {
            left,
            right,
            cases,
            report,
        } => {
            let cmp = compare_runs(&left, &right, cases.as_deref())?;
            finish(&cmp, &report)
        }
        Cmd::Both {
            mut cases,
            nodes,
            rundirs,
            out,
            targets,
            no_retry,
        } => {
            cases.multinode |= nodes.is_some();
            let shape = Shape { nodes, rundirs };
            both(&cases, &shape, &out, &targets, !no_retry)
        }
        Cmd::Against {
            slurm_env,
            spur_env,
            cases,
            out,
            targets,
        } => against(&slurm_env, spur_env.as_deref(), &cases, &out, &targets),
        Cmd::Bench {
            short,
            systems,
            rounds,
            out,
            write_docs,
            targets,
            scale_only,
        } => {
            let default_systems = if short {
                "slurm-htc,spur"
            } else {
                "slurm,slurm-htc,spur"
            };
            let systems = bench::System::parse_list(systems.as_deref().unwrap_or(default_systems))?;
            let mut sizes = if short {
                bench::Sizes::short()
            } else {
                bench::Sizes::full()
            };
            if let Some(r) = rounds {
                sizes.rounds = r;
            }
            let mode = BenchMode { short, scale_only };
            bench_command(systems, sizes, out, write_docs.as_deref(), targets, mode)
        }
        Cmd::Show { run, case: name } => {
            let loaded = load_run(&run)?;
            let (rec, t) = loaded
                .cases
                .get(&name)
                .ok_or_else(|| format!("no case {name} in {}", run.display()))?;
            let dir = Path::new(&loaded.record.cases_dir).join(&name);
            let rules = case::load_case(&dir)
                .map(|c| c.spec.replace)
                .unwrap_or_default();
            print!("{}", normalise(t, &rec.context, &rules).render());
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn run_options(target: TargetKind, cases: &CaseArgs, out: PathBuf) -> RunOptions {
    RunOptions {
        target,
        cases_dir: cases.cases.clone(),
        out_dir: out,
        selection: cases.selection(),
        jobs: cases.jobs,
        shared_cluster: false,
    }
}

fn finish(cmp: &Comparison, report_path: &Path) -> Result<ExitCode> {
    std::fs::write(report_path, report::markdown(cmp))?;
    std::fs::write(
        report_path.with_extension("json"),
        serde_json::to_string_pretty(cmp)?,
    )?;
    print!("{}", report::summary(cmp));
    println!("report: {}", report_path.display());
    Ok(if cmp.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// slurm.conf lines of a `both --cgroup` run: the same for both targets, so that jobs are confined by the
/// shared conf/cgroup.conf.
const CGROUP_CONF: &str = "TaskPlugin=task/cgroup,task/affinity\nProctrackType=proctrack/cgroup\n";

/// slurm.conf lines of a `both --priority` run: multifactor weights whose factors are whole numbers on the
/// reference node (job size and CPUs in halves, one node; the age weight shows in sprio but, without slurmdbd,
/// counts nothing in either), users allowed to `scontrol top`, preemption by partition tier (`REQUEUE`, `CANCEL`
/// in `low`), and partitions `high` (higher `PriorityJobFactor` and `PriorityTier`), `low` and `grace` (`CANCEL`
/// with a 5 s `GraceTime`).
pub const PRIORITY_CONF: &str = "PriorityType=priority/multifactor\nPriorityWeightAge=1000\n\
    PriorityWeightJobSize=2000\nPriorityWeightPartition=3000\nPriorityWeightTRES=CPU=1000,Node=500\n\
    SchedulerParameters=enable_user_top\n\
    PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n\
    PartitionName=high Nodes=ALL MaxTime=INFINITE State=UP PriorityJobFactor=10 PriorityTier=2\n\
    PartitionName=low Nodes=ALL MaxTime=INFINITE State=UP PreemptMode=CANCEL\n\
    PartitionName=grace Nodes=ALL MaxTime=INFINITE State=UP PreemptMode=CANCEL GraceTime=5\n";

/// slurm.conf lines of a `both --access` run: users see only their own jobs, partition `grp` takes only the
/// members of group `spurcaseacc` (which the cases create; Slurm learns it on `scontrol reconfigure`), `rooto`
/// only root's submissions, `noroot` no jobs of root; `acct` and `deny` have account and QOS lists (shown, enforced by neither without
/// accounting); `gpudef` has GPU job defaults (`DefCpuPerGPU`, `DefMemPerGPU`, which `scontrol create` cannot set),
/// `billed` billing weights (`TRESBillingWeights`, the first partition with them, so also the node's).
pub const ACCESS_CONF: &str = "PrivateData=jobs\nLicenses=fluent:3,ansys\n\
    PartitionName=grp Nodes=ALL MaxTime=INFINITE State=UP AllowGroups=spurcaseacc\n\
    PartitionName=rooto Nodes=ALL MaxTime=INFINITE State=UP RootOnly=YES\n\
    PartitionName=noroot Nodes=ALL MaxTime=INFINITE State=UP DisableRootJobs=YES\n\
    PartitionName=acct Nodes=ALL MaxTime=INFINITE State=UP AllowAccounts=acc1,acc2 AllowQos=normal\n\
    PartitionName=deny Nodes=ALL MaxTime=INFINITE State=UP DenyAccounts=bad DenyQos=low\n\
    PartitionName=gpudef Nodes=ALL MaxTime=INFINITE State=UP DefCpuPerGPU=2 DefMemPerGPU=1000\n\
    PartitionName=billed Nodes=ALL MaxTime=INFINITE State=UP TRESBillingWeights=CPU=0.5,Mem=0.25G,Node=3\n";

/// slurm.conf line of a `both --topology` run: the switches of conf/topology.conf, which both targets' up.sh
/// render beside slurm.conf (and which neither reads without this line).
/// The single-node mode's scheduling: slurmctld starts a batch job as it is submitted rather than gathering
/// submissions for a moment and spacing its passes (its High Throughput guide's `batch_sched_delay=0` and
/// `sched_min_interval=0`). No case's output depends on that wait, and without it the Slurm side of the mode
/// takes about 260 s instead of 440 s on the CI machine. Spur reads the same line and has no such wait.
pub const SINGLE_NODE_CONF: &str = "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0\n";

pub const TOPOLOGY_CONF: &str = "TopologyPlugin=topology/tree\n";

/// slurm.conf lines of a `both --prolog` run: conf/prolog.sh (beside the targets' directory) as the prolog, run
/// on every node when a job is allocated, with an extern step per job.
fn prolog_conf(targets: &Path) -> String {
    let script = targets
        .parent()
        .unwrap_or(targets)
        .join("conf")
        .join("prolog.sh");
    format!(
        "Prolog={}\nPrologFlags=Alloc,Contain\n",
        std::fs::canonicalize(&script).unwrap_or(script).display()
    )
}

/// slurm.conf lines of a `both --accounting` run: accounting through slurmdbd (Slurm's up.sh then starts
/// MariaDB and slurmdbd and adds their address; Spur keeps the records itself), a short MinJobAge so the cases
/// see records of jobs already purged from the live table, associations and QOS enforced (the cases add the
/// associations their users need with sacctmgr), the QOS priority factor alone, and preemption by QOS (no QOS
/// preempts another until a case lists one in `Preempt=`).
pub const ACCOUNTING_CONF: &str = "AccountingStorageType=accounting_storage/slurmdbd\nMinJobAge=5\n\
    AccountingStorageEnforce=associations,limits,qos\nPriorityType=priority/multifactor\nPriorityWeightQOS=1000\n\
    PreemptType=preempt/qos\nPreemptMode=REQUEUE\n";

/// How `both` brings its targets up: node count (none: the single-node targets) and run directories.
struct Shape {
    nodes: Option<u32>,
    rundirs: Option<PathBuf>,
}

/// Runs both targets one after the other (never both clusters at once), tearing each down even when its run
/// fails; with `retry`, the cases that differ run once more (see `Cmd::Both::no_retry`).
fn both(
    cases: &CaseArgs,
    shape: &Shape,
    out: &Path,
    targets: &Path,
    retry: bool,
) -> Result<ExitCode> {
    std::fs::create_dir_all(out)?;
    let out = &std::fs::canonicalize(out)?;
    run_both_targets(cases, shape, out, targets)?;
    let mut cmp = compare_runs(&out.join("slurm"), &out.join("spur"), Some(&cases.cases))?;
    let differing: Vec<String> = cmp
        .cases
        .iter()
        .filter(|c| c.outcome == Outcome::Diff)
        .map(|c| c.name.clone())
        .collect();
    if retry && !differing.is_empty() {
        eprintln!(
            "spur-conformance: {} case(s) differ ({}); running them again on fresh clusters of both",
            differing.len(),
            differing.join(", ")
        );
        let again_out = out.join("retry");
        std::fs::create_dir_all(&again_out)?;
        let again_cases = CaseArgs {
            filter: Some(differing.join(",")),
            case_name: None,
            ..cases.clone()
        };
        let again_shape = Shape {
            nodes: shape.nodes,
            rundirs: shape
                .rundirs
                .as_ref()
                .map(|p| PathBuf::from(format!("{}-retry", p.display()))),
        };
        run_both_targets(&again_cases, &again_shape, &again_out, targets)?;
        let again = compare_runs(
            &again_out.join("slurm"),
            &again_out.join("spur"),
            Some(&cases.cases),
        )?;
        settle_retries(&mut cmp, &again);
    }
    finish(&cmp, &out.join("report.md"))
}

/// Brings each target up, runs the cases into OUT/slurm and OUT/spur, and brings it down.
fn run_both_targets(cases: &CaseArgs, shape: &Shape, out: &Path, targets: &Path) -> Result<()> {
    for kind in [TargetKind::Slurm, TargetKind::Spur] {
        let rundir = match &shape.rundirs {
            Some(prefix) => PathBuf::from(format!("{}-{}", prefix.display(), kind.name())),
            None => kind.rundir_for(out),
        };
        eprintln!(
            "spur-conformance: bringing up {kind} in {}",
            rundir.display()
        );
        let extra = if cases.cgroup {
            CGROUP_CONF
        } else if cases.priority {
            PRIORITY_CONF
        } else if cases.access {
            ACCESS_CONF
        } else if cases.topology {
            TOPOLOGY_CONF
        } else if cases.accounting {
            ACCOUNTING_CONF
        } else if shape.nodes.is_none() {
            SINGLE_NODE_CONF
        } else {
            ""
        };
        let prolog_conf = prolog_conf(targets);
        let extra = if cases.prolog { &prolog_conf } else { extra };
        let exports = target::up(targets, kind, &rundir, shape.nodes, extra)?;
        let result = runner::run(&run_options(kind, cases, out.join(kind.name())), &exports);
        let down = target::down(targets, kind, &rundir);
        result?;
        down?;
    }
    Ok(())
}

/// `against`: the live Slurm cluster as it is (never brought up or down here), then Spur (given, or a local
/// target for the duration), then the comparison.
fn against(
    slurm_env: &Path,
    spur_env: Option<&Path>,
    cases: &CaseArgs,
    out: &Path,
    targets: &Path,
) -> Result<ExitCode> {
    let read_env = |path: &Path| -> Result<target::Exports> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let exports = target::parse_exports(&text).map_err(|line| {
            format!(
                "{}: not an `export NAME=VALUE` line: {line}",
                path.display()
            )
        })?;
        if !exports.iter().any(|(name, _)| name == "SLURM_CONF") {
            return Err(format!("{}: SLURM_CONF is not set", path.display()).into());
        }
        Ok(exports)
    };
    std::fs::create_dir_all(out)?;
    let out = &std::fs::canonicalize(out)?;
    let shared = |kind: TargetKind| RunOptions {
        shared_cluster: true,
        ..run_options(kind, cases, out.join(kind.name()))
    };
    runner::run(&shared(TargetKind::Slurm), &read_env(slurm_env)?)?;
    match spur_env {
        Some(path) => {
            runner::run(&shared(TargetKind::Spur), &read_env(path)?)?;
        }
        None => {
            let rundir = TargetKind::Spur.rundir_for(out);
            let exports = target::up(targets, TargetKind::Spur, &rundir, None, "")?;
            let result = runner::run(&shared(TargetKind::Spur), &exports);
            let down = target::down(targets, TargetKind::Spur, &rundir);
            result?;
            down?;
        }
    }
    let cmp = compare_runs(&out.join("slurm"), &out.join("spur"), Some(&cases.cases))?;
    finish(&cmp, &out.join("report.md"))
}

#[derive(Debug, Clone, Copy)]
struct BenchMode {
    short: bool,
    scale_only: bool,
}

fn bench_command(
    systems: Vec<bench::System>,
    sizes: bench::Sizes,
    out: PathBuf,
    write_docs: Option<&Path>,
    targets: PathBuf,
    mode: BenchMode,
) -> Result<ExitCode> {
    let BenchMode { short, scale_only } = mode;
    let started = std::time::Instant::now();
    let opts = bench::BenchOptions {
        systems: systems.clone(),
        sizes,
        out: out.clone(),
        targets_dir: targets,
        api_source: default_dir("bench").join("submit_api.c"),
        scale_only,
    };
    let table = bench::run(&opts)?;
    let labels: Vec<&str> = systems.iter().map(|s| s.label()).collect();
    let header = bench_header(short, scale_only);
    let section = format!(
        "{}\n{}\nSuite wall time: {:.0} s.\n",
        header,
        table.markdown(&labels, bench::System::Spur.label()),
        started.elapsed().as_secs_f64()
    );
    print!("{section}");
    std::fs::write(out.join("bench.md"), &section)?;
    if let Some(doc) = write_docs {
        let run = bench::history::Run {
            commit: git_commit(),
            date: utc_date(),
            note: header.trim().to_string(),
        };
        let history = bench::history::write_docs(doc, &section, scale_only, &table, &run)?;
        eprintln!("bench: table written to {}", doc.display());
        eprintln!(
            "bench: {} figure(s) appended to {}",
            table.figures.len(),
            history.display()
        );
    }
    match table.failures() {
        0 => Ok(ExitCode::SUCCESS),
        n => {
            eprintln!("bench: {n} figure(s) could not be measured; the messages above say why");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The commit checked out where the bench runs, for the history; empty outside a git work tree.
fn git_commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Today in UTC as `YYYY-MM-DD`, the history's date.
fn utc_date() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// Machine, date and mode, so a table read later says where and how it was measured.
fn bench_header(short: bool, scale_only: bool) -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU", |(_, m)| m.trim())
        .to_string();
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_gib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|k| k.parse::<f64>().ok())
        .map_or(0.0, |k| k / 1024.0 / 1024.0);
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let mut bins = std::env::var("SPUR_BIN_DIR").unwrap_or_else(|_| "target/debug".to_string());
    if let Ok(cli) = std::env::var("SPUR_CLI") {
        bins = format!("{bins}, commands {cli}");
    }
    format!(
        "Measured {date} on {cpus} CPU(s) ({model}), {mem_gib:.0} GiB; mode: {}; Spur binaries: {bins}.\n",
        match (short, scale_only) {
            (true, false) => "short (CI)",
            (false, false) => "full",
            (true, true) => "short (CI), scale section only",
            (false, true) => "full, scale section only",
        }
    )
}
