//! The `spur-conformance` command: `run` cases against a target that is up, `compare` two runs, `both` (bring
//! up Slurm, run, tear down, the same for Spur, compare) and `show` (one case's normalised transcript).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use spur_conformance::case::Selection;
use spur_conformance::compare::{compare_runs, Comparison};
use spur_conformance::normalise::normalise;
use spur_conformance::runner::{self, load_run, RunOptions};
use spur_conformance::target::{self, TargetKind};
use spur_conformance::{case, report};

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
}

impl CaseArgs {
    fn selection(&self) -> Selection {
        Selection {
            filter: self.filter.clone().or_else(|| self.case_name.clone()),
            ci_only: self.ci,
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
        #[arg(long)]
        out: PathBuf,
        /// Directory with the targets' up.sh and down.sh.
        #[arg(long, default_value_os_t = default_dir("targets"))]
        targets: PathBuf,
    },
    /// Print one case's normalised transcript from a run.
    Show { run: PathBuf, case: String },
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
            cases,
            out,
            targets,
        } => both(&cases, &out, &targets),
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

/// Runs both targets one after the other (never both clusters at once), tearing each down even when its run
/// fails.
fn both(cases: &CaseArgs, out: &Path, targets: &Path) -> Result<ExitCode> {
    std::fs::create_dir_all(out)?;
    for kind in [TargetKind::Slurm, TargetKind::Spur] {
        let rundir = kind.default_rundir();
        eprintln!(
            "spur-conformance: bringing up {kind} in {}",
            rundir.display()
        );
        let exports = target::up(targets, kind, &rundir)?;
        let result = runner::run(&run_options(kind, cases, out.join(kind.name())), &exports);
        let down = target::down(targets, kind, &rundir);
        result?;
        down?;
    }
    let cmp = compare_runs(&out.join("slurm"), &out.join("spur"), Some(&cases.cases))?;
    finish(&cmp, &out.join("report.md"))
}
