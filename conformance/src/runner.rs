//! Runs cases against a target that is already up: each case's `run.sh` in a fresh, empty work directory, with a
//! time limit, its stdout, stderr and exit status recorded raw beside the context needed to normalise them later.
//!
//! Layout of an output directory:
//! `run.json` (target, cases directory, wall time, case names), `cases/<name>/{stdout,stderr,record.json}`,
//! `work/<name>/` (the case's work directory, kept for inspection) and `tmp/<name>/` (its `$CASE_TMP`).

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::case::{load_cases, Case, CaseError, Need, Selection};
use crate::normalise::{Context, Transcript};
use crate::target::{Exports, TargetFacts, TargetKind};

/// Nodes a target needs for `needs = "multinode"`: the multi-node cases ask for up to three (`sbatch -N3`).
pub const MULTINODE_MIN_NODES: usize = 3;
/// How long the runner waits for leftover jobs to go after cancelling them.
const CLEANUP_WAIT: Duration = Duration::from_secs(20);

#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Case(#[from] CaseError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{0} exists and is not an output directory of spur-conformance (no run.json); refusing to reuse it")]
    ForeignOutDir(PathBuf),
    #[error("no case matches the selection")]
    NoCases,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `run.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRecord {
    pub target: String,
    pub cases_dir: String,
    pub wall_ms: u64,
    pub cases: Vec<String>,
}

/// `cases/<name>/record.json`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CaseRecord {
    pub name: String,
    pub context: Context,
    /// Exit status as the transcript shows it: `0`, `signal 9`, `timeout`.
    pub exit: String,
    pub duration_ms: u64,
    /// Jobs still queued after the case ended, which the runner cancelled.
    pub leaked_jobs: Vec<String>,
    /// Why the case was not run (a need the target lacks).
    pub skipped: Option<String>,
    /// Why the case could not be run at all.
    pub error: Option<String>,
}

pub struct RunOptions {
    pub target: TargetKind,
    pub cases_dir: PathBuf,
    pub out_dir: PathBuf,
    pub selection: Selection,
    pub jobs: usize,
    /// The cluster is shared (a site's live cluster): between cases only the jobs a case recorded are cancelled,
    /// never anybody else's.
    pub shared_cluster: bool,
}

/// Runs the selected cases with `target_env` (the target's exports) over our own environment. Cases marked
/// `parallel` run first, `jobs` at a time; the others one by one, with leftover jobs cancelled between them.
pub fn run(opts: &RunOptions, target_env: &Exports) -> Result<RunRecord, RunError> {
    let started = Instant::now();
    let cases_dir = fs::canonicalize(&opts.cases_dir).map_err(io_err(&opts.cases_dir))?;
    let cases: Vec<Case> = load_cases(&cases_dir)?
        .into_iter()
        .filter(|c| opts.selection.matches(c))
        .collect();
    if cases.is_empty() {
        return Err(RunError::NoCases);
    }
    let out = prepare_out_dir(&opts.out_dir)?;
    let env = case_env(target_env, &cases_dir);
    let facts = TargetFacts::gather(&env);
    let nodes = count_nodes(&shell(&env, "timeout 10 sinfo -h -N -o %N 2>/dev/null"));
    let runner = Runner {
        out: &out,
        env: &env,
        facts: &facts,
        provided: {
            let mut provided = provided_needs(
                nodes,
                confines_jobs(&env),
                multifactor(&env),
                private_jobs(&env),
            );
            if switch_tree(&env) {
                provided.push(Need::Topology);
            }
            if alloc_prolog(&env) {
                provided.push(Need::Prolog);
            }
            if accounting(&env) {
                provided.push(Need::Accounting);
            }
            provided
        },
        total: cases.len(),
        done: AtomicUsize::new(0),
        shared_cluster: opts.shared_cluster,
    };
    eprintln!(
        "spur-conformance: {} case(s) against {} ({nodes} node(s), run dir {}), output in {}",
        cases.len(),
        opts.target,
        facts.run_dir,
        out.display()
    );
    let (mut parallel, serial): (Vec<&Case>, Vec<&Case>) =
        cases.iter().partition(|c| c.spec.parallel);
    // The slow cases (a minute of waiting for a time limit) go first: started last, one of them kept a slot busy
    // long after the other had run out of cases. The sort is stable, so the rest keep their order.
    parallel.sort_by_key(|c| std::cmp::Reverse(c.spec.timeout_s));
    let errors = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1).min(parallel.len().max(1)) {
            s.spawn(|| {
                while let Some(case) = parallel.get(next.fetch_add(1, Ordering::SeqCst)) {
                    if let Err(e) = runner.run_one(case, false) {
                        errors.lock().unwrap_or_else(|p| p.into_inner()).push(e);
                    }
                }
            });
        }
    });
    if !parallel.is_empty() && !opts.shared_cluster {
        runner.cleanup(None);
    }
    for case in serial {
        runner.run_one(case, true)?;
    }
    if let Some(e) = errors.into_inner().unwrap_or_else(|p| p.into_inner()).pop() {
        return Err(e);
    }
    let record = RunRecord {
        target: opts.target.name().to_string(),
        cases_dir: cases_dir.to_string_lossy().into_owned(),
        wall_ms: started.elapsed().as_millis() as u64,
        cases: cases.iter().map(|c| c.name.clone()).collect(),
    };
    write_json(&out.join("run.json"), &record)?;
    Ok(record)
}

/// What a target with `nodes` nodes offers: both targets have fake GPUs; `multinode` takes enough nodes;
/// `cgroup` a target whose slurm.conf enables task/cgroup; `priority` one with priority/multifactor; `access` one
/// with `PrivateData=jobs` (the sign of `ACCESS_CONF`).
fn provided_needs(nodes: usize, cgroup: bool, multifactor: bool, private_jobs: bool) -> Vec<Need> {
    let mut provided = vec![Need::Gpu];
    if nodes >= MULTINODE_MIN_NODES {
        provided.push(Need::Multinode);
    }
    if cgroup {
        provided.push(Need::Cgroup);
    }
    if multifactor {
        provided.push(Need::Priority);
    }
    if private_jobs {
        provided.push(Need::Access);
    }
    provided
}

/// The target's slurm.conf (`SLURM_CONF`), empty when it cannot be read.
fn target_conf(env: &[(String, String)]) -> String {
    env.iter()
        .rev()
        .find(|(k, _)| k == "SLURM_CONF")
        .and_then(|(_, path)| fs::read_to_string(path).ok())
        .unwrap_or_default()
}

/// Whether the target's slurm.conf has `TaskPlugin` with task/cgroup.
fn confines_jobs(env: &[(String, String)]) -> bool {
    task_cgroup_in(&target_conf(env))
}

/// Whether the target's slurm.conf has `PriorityType=priority/multifactor`.
fn multifactor(env: &[(String, String)]) -> bool {
    last_value(&target_conf(env), "PriorityType").is_some_and(|v| v == "priority/multifactor")
}

/// Whether the target's slurm.conf has `TopologyPlugin=topology/tree`.
fn switch_tree(env: &[(String, String)]) -> bool {
    last_value(&target_conf(env), "TopologyPlugin").is_some_and(|v| v == "topology/tree")
}

/// Whether the target's slurm.conf has a `Prolog` run at allocation (`PrologFlags` with `Alloc` or `Contain`).
fn alloc_prolog(env: &[(String, String)]) -> bool {
    alloc_prolog_in(&target_conf(env))
}

fn alloc_prolog_in(slurm_conf: &str) -> bool {
    last_value(slurm_conf, "Prolog").is_some()
        && last_value(slurm_conf, "PrologFlags").is_some_and(|v| {
            v.split(',')
                .any(|f| ["alloc", "contain"].contains(&f.trim().to_lowercase().as_str()))
        })
}

/// Whether the target's slurm.conf stores accounting (`AccountingStorageType=accounting_storage/slurmdbd`).
fn accounting(env: &[(String, String)]) -> bool {
    last_value(&target_conf(env), "AccountingStorageType")
        .is_some_and(|v| v == "accounting_storage/slurmdbd")
}

/// Whether the target's slurm.conf has `PrivateData` with `jobs`.
fn private_jobs(env: &[(String, String)]) -> bool {
    last_value(&target_conf(env), "PrivateData")
        .is_some_and(|v| v.split(',').any(|w| w.trim().eq_ignore_ascii_case("jobs")))
}

fn task_cgroup_in(slurm_conf: &str) -> bool {
    last_value(slurm_conf, "TaskPlugin")
        .is_some_and(|v| v.split(',').any(|p| p.trim() == "task/cgroup"))
}

/// The value of `key`'s last line: both Slurm and Spur take the last of a repeated key.
fn last_value(slurm_conf: &str, key: &str) -> Option<String> {
    slurm_conf.lines().rev().find_map(|l| {
        let (k, v) = l.split('#').next()?.split_once('=')?;
        k.trim()
            .eq_ignore_ascii_case(key)
            .then(|| v.trim().to_string())
    })
}

/// Distinct node names in a `sinfo -h -N -o %N` listing (a node in two partitions is listed twice).
fn count_nodes(listing: &str) -> usize {
    let mut names: Vec<&str> = listing
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

/// squeue's compact state codes of jobs that are over (listed when asked for by id, never in the way).
fn is_finished_code(code: &str) -> bool {
    matches!(
        code,
        "CD" | "F" | "CA" | "TO" | "NF" | "OOM" | "PR" | "BF" | "DL"
    )
}

/// Makes `dir` ready: created if missing; an earlier output directory is cleared; anything else is refused.
fn prepare_out_dir(dir: &Path) -> Result<PathBuf, RunError> {
    if dir.exists() {
        let ours = dir.join("run.json").exists() || dir.join("cases").is_dir();
        let empty = fs::read_dir(dir).map_err(io_err(dir))?.next().is_none();
        if !ours && !empty {
            return Err(RunError::ForeignOutDir(dir.to_path_buf()));
        }
        for sub in ["cases", "work", "tmp"] {
            let p = dir.join(sub);
            if p.exists() {
                fs::remove_dir_all(&p).map_err(io_err(&p))?;
            }
        }
        let rj = dir.join("run.json");
        if rj.exists() {
            fs::remove_file(&rj).map_err(io_err(&rj))?;
        }
    }
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    fs::canonicalize(dir).map_err(io_err(dir))
}

/// Variables that would change what the Slurm commands print; a case sets them itself when it tests them.
fn is_influential(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "SLURM_",
        "SBATCH_",
        "SRUN_",
        "SALLOC_",
        "SQUEUE_",
        "SINFO_",
        "SCONTROL_",
        "SCANCEL_",
        "SACCT_",
        "SPUR_",
    ];
    (PREFIXES.iter().any(|p| name.starts_with(p)) && name != "SLURM_CONF")
        || name == "LC_ALL"
        || name == "LANG"
}

/// The environment every case of a run sees: ours without variables that influence the commands, then the
/// target's exports, a fixed locale (so `sort` orders alike), and `$CASE_LIB`.
pub fn case_env(target_env: &Exports, cases_dir: &Path) -> Exports {
    let mut env: Exports = std::env::vars()
        .filter(|(k, _)| !is_influential(k))
        .collect();
    for (k, v) in target_env {
        env.retain(|(n, _)| n != k);
        env.push((k.clone(), v.clone()));
    }
    env.push(("LC_ALL".into(), "C".into()));
    env.push((
        "CASE_LIB".into(),
        cases_dir.join("lib.sh").to_string_lossy().into_owned(),
    ));
    env
}

struct Runner<'a> {
    out: &'a Path,
    env: &'a Exports,
    facts: &'a TargetFacts,
    provided: Vec<Need>,
    total: usize,
    done: AtomicUsize,
    shared_cluster: bool,
}

impl Runner<'_> {
    fn run_one(&self, case: &Case, exclusive: bool) -> Result<(), RunError> {
        let case_out = self.out.join("cases").join(&case.name);
        let work = self.out.join("work").join(&case.name);
        let tmp = self.out.join("tmp").join(&case.name);
        for d in [&case_out, &work, &tmp] {
            fs::create_dir_all(d).map_err(io_err(d))?;
        }
        let context = Context {
            host: self.facts.host.clone(),
            work_dir: work.to_string_lossy().into_owned(),
            run_dir: self.facts.run_dir.clone(),
            case_dir: case.dir.to_string_lossy().into_owned(),
            case_tmp: tmp.to_string_lossy().into_owned(),
            ctld_port: self.facts.ctld_port.clone(),
            slurmd_port: self.facts.slurmd_port.clone(),
            ctld_addr: self.facts.ctld_addr.clone(),
            job_ids: Vec::new(),
        };
        let mut record = CaseRecord {
            name: case.name.clone(),
            context,
            ..CaseRecord::default()
        };
        let missing: Vec<String> = case
            .spec
            .needs
            .iter()
            .filter(|n| !self.provided.contains(n))
            .map(|n| n.to_string())
            .collect();
        let started = Instant::now();
        if !missing.is_empty() {
            record.skipped = Some(format!("needs {}", missing.join(", ")));
            record.exit = "skipped".into();
            for f in ["stdout", "stderr"] {
                File::create(case_out.join(f)).map_err(io_err(&case_out))?;
            }
        } else {
            match self.exec(case, &work, &tmp, &case_out) {
                Ok(exit) => record.exit = exit,
                Err(e) => {
                    record.exit = "error".into();
                    record.error = Some(e.to_string());
                }
            }
        }
        record.duration_ms = started.elapsed().as_millis() as u64;
        record.context.job_ids = recorded_job_ids(&tmp);
        if record.skipped.is_none() && (exclusive || self.shared_cluster) {
            let only = self
                .shared_cluster
                .then_some(record.context.job_ids.as_slice());
            record.leaked_jobs = self.cleanup(only);
        }
        write_json(&case_out.join("record.json"), &record)?;
        let n = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        eprintln!(
            "[{n:>3}/{}] {:<44} exit {:<8} {:>6.1}s{}",
            self.total,
            case.name,
            record.exit,
            record.duration_ms as f64 / 1000.0,
            if record.leaked_jobs.is_empty() {
                String::new()
            } else {
                format!(
                    "  (cancelled leftover jobs {})",
                    record.leaked_jobs.join(",")
                )
            }
        );
        Ok(())
    }

    /// Runs `run.sh` in its own process group and returns the exit as transcripts show it.
    fn exec(
        &self,
        case: &Case,
        work: &Path,
        tmp: &Path,
        case_out: &Path,
    ) -> Result<String, RunError> {
        let stdout_path = case_out.join("stdout");
        let stderr_path = case_out.join("stderr");
        let stdout = File::create(&stdout_path).map_err(io_err(&stdout_path))?;
        let stderr = File::create(&stderr_path).map_err(io_err(&stderr_path))?;
        let mut child = Command::new("bash")
            .arg(case.dir.join("run.sh"))
            .current_dir(work)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("CASE_DIR", &case.dir)
            .env("CASE_TMP", tmp)
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .process_group(0)
            .spawn()
            .map_err(io_err(&case.dir))?;
        let pgid = Pid::from_raw(child.id() as i32);
        let deadline = Instant::now() + Duration::from_secs(case.spec.timeout_s);
        let status = loop {
            if let Some(st) = child.try_wait().map_err(io_err(&case.dir))? {
                break Some(st);
            }
            if Instant::now() >= deadline {
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Whatever the script left behind in its group (a background srun, a sleep) goes too.
        let _ = killpg(pgid, Signal::SIGKILL);
        match status {
            Some(st) => Ok(exit_text(st)),
            None => {
                let _ = child.wait();
                Ok("timeout".into())
            }
        }
    }

    /// Cancels every job still in the queue (or, with `only`, those of these ids: a shared cluster) and waits
    /// (bounded) for them to go; returns the ids of those that were not already completing (a case's own exit
    /// trap may have cancelled the rest a moment ago).
    fn cleanup(&self, only: Option<&[String]>) -> Vec<String> {
        let listing = match only {
            Some([]) => return Vec::new(),
            Some(ids) => format!(
                "timeout 10 squeue -h -r -j {} -o '%i %t' 2>/dev/null",
                ids.join(",")
            ),
            None => "timeout 10 squeue -h -o '%i %t' 2>/dev/null".to_string(),
        };
        let queued = || {
            self.shell(&listing)
                .lines()
                .filter_map(|l| {
                    let mut w = l.split_whitespace();
                    Some((w.next()?.to_string(), w.next().unwrap_or("").to_string()))
                })
                .filter(|(_, st)| !is_finished_code(st))
                .collect::<Vec<_>>()
        };
        let jobs = queued();
        if jobs.is_empty() {
            return Vec::new();
        }
        let leaked: Vec<String> = jobs
            .iter()
            .filter(|(_, st)| st != "CG")
            .map(|(id, _)| id.clone())
            .collect();
        if !leaked.is_empty() {
            self.shell(&format!(
                "timeout 10 scancel {} 2>/dev/null",
                leaked.join(" ")
            ));
        }
        let deadline = Instant::now() + CLEANUP_WAIT;
        while Instant::now() < deadline && !queued().is_empty() {
            std::thread::sleep(Duration::from_millis(200));
        }
        leaked
    }

    fn shell(&self, script: &str) -> String {
        shell(self.env, script)
    }
}

/// Stdout of `script` run by bash in the cases' environment (empty if it cannot run).
fn shell(env: &Exports, script: &str) -> String {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default()
}

/// Ids the case's `submit`/`track` helpers wrote to `$CASE_TMP/jobs`, in order, without repeats.
fn recorded_job_ids(case_tmp: &Path) -> Vec<String> {
    let text = fs::read_to_string(case_tmp.join("jobs")).unwrap_or_default();
    let mut ids: Vec<String> = Vec::new();
    for id in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !ids.iter().any(|i| i == id) {
            ids.push(id.to_string());
        }
    }
    ids
}

fn exit_text(st: ExitStatus) -> String {
    match (st.code(), st.signal()) {
        (Some(c), _) => c.to_string(),
        (None, Some(s)) => format!("signal {s}"),
        (None, None) => "unknown".into(),
    }
}

fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<(), RunError> {
    let text = serde_json::to_string_pretty(value).map_err(|source| RunError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    let mut f = File::create(path).map_err(io_err(path))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.write_all(b"\n"))
        .map_err(io_err(path))
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, RunError> {
    let text = fs::read_to_string(path).map_err(io_err(path))?;
    serde_json::from_str(&text).map_err(|source| RunError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// A finished run read back: its record and, per case, the record and the raw transcript.
pub struct LoadedRun {
    pub record: RunRecord,
    pub cases: BTreeMap<String, (CaseRecord, Transcript)>,
}

/// Reads an output directory written by [`run`].
pub fn load_run(dir: &Path) -> Result<LoadedRun, RunError> {
    let record: RunRecord = read_json(&dir.join("run.json"))?;
    let mut cases = BTreeMap::new();
    for name in &record.cases {
        let cdir = dir.join("cases").join(name);
        let rec: CaseRecord = read_json(&cdir.join("record.json"))?;
        let read = |f: &str| {
            let p = cdir.join(f);
            fs::read(&p)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .map_err(io_err(&p))
        };
        let transcript = Transcript {
            stdout: read("stdout")?,
            stderr: read("stderr")?,
            exit: rec.exit.clone(),
        };
        cases.insert(name.clone(), (rec, transcript));
    }
    Ok(LoadedRun { record, cases })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_case(root: &Path, name: &str, script: &str, toml: &str) {
        let d = root.join(name);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("run.sh"), script).unwrap();
        fs::write(d.join("case.toml"), toml).unwrap();
    }

    #[test]
    fn runs_cases_and_reads_them_back() {
        let tmp = tempfile::tempdir().unwrap();
        let cases = tmp.path().join("cases");
        write_case(
            &cases,
            "001-echo",
            "echo out; echo err >&2; pwd; ls -A; exit 3\n",
            "parallel = true",
        );
        write_case(
            &cases,
            "002-env",
            "echo \"$CASE_DIR\" \"$RUNDIR\" \"${SBATCH_PARTITION-unset}\"\n",
            "",
        );
        write_case(&cases, "003-slow", "sleep 30\n", "timeout = 1");
        write_case(&cases, "004-killed", "kill -9 $$\n", "");
        write_case(&cases, "005-multi", "echo never\n", "needs = \"multinode\"");
        write_case(
            &cases,
            "006-jobs",
            "printf '7\\n8\\n7\\n' > \"$CASE_TMP/jobs\"\n",
            "",
        );
        let out = tmp.path().join("out");
        let opts = RunOptions {
            target: TargetKind::Slurm,
            cases_dir: cases.clone(),
            out_dir: out.clone(),
            selection: Selection::default(),
            jobs: 2,
            shared_cluster: false,
        };
        // No target here: cleanup finds no squeue and does nothing.
        let env = vec![
            ("RUNDIR".to_string(), "/tmp/nowhere".to_string()),
            ("PATH".to_string(), "/usr/bin:/bin".to_string()),
        ];
        let rec = run(&opts, &env).unwrap();
        assert_eq!(rec.cases.len(), 6);
        let loaded = load_run(&out).unwrap();
        let (r1, t1) = &loaded.cases["001-echo"];
        assert_eq!(t1.exit, "3");
        assert_eq!(t1.stderr, "err\n");
        assert_eq!(t1.stdout, format!("out\n{}\n", r1.context.work_dir));
        let (_, t2) = &loaded.cases["002-env"];
        let case_dir = fs::canonicalize(cases.join("002-env")).unwrap();
        assert_eq!(
            t2.stdout,
            format!("{} /tmp/nowhere unset\n", case_dir.display())
        );
        assert_eq!(loaded.cases["003-slow"].1.exit, "timeout");
        assert_eq!(loaded.cases["004-killed"].1.exit, "signal 9");
        let (r5, t5) = &loaded.cases["005-multi"];
        assert_eq!(r5.skipped.as_deref(), Some("needs multinode"));
        assert_eq!(t5.stdout, "");
        assert_eq!(loaded.cases["006-jobs"].0.context.job_ids, ["7", "8"]);
        // A second run into the same directory replaces the first.
        run(&opts, &env).unwrap();
    }

    #[test]
    fn refuses_foreign_out_dir() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("precious"), "x").unwrap();
        assert!(matches!(
            prepare_out_dir(tmp.path()),
            Err(RunError::ForeignOutDir(_))
        ));
    }

    #[test]
    fn multinode_needs_three_distinct_nodes() {
        assert_eq!(count_nodes("n1\nn2\nn1\n\nn3\n"), 3);
        assert_eq!(count_nodes(""), 0);
        assert_eq!(provided_needs(1, false, false, false), vec![Need::Gpu]);
        assert_eq!(provided_needs(2, false, false, false), vec![Need::Gpu]);
        assert_eq!(
            provided_needs(3, false, false, false),
            vec![Need::Gpu, Need::Multinode]
        );
        assert_eq!(
            provided_needs(1, true, false, false),
            vec![Need::Gpu, Need::Cgroup]
        );
        assert_eq!(
            provided_needs(1, false, true, false),
            vec![Need::Gpu, Need::Priority]
        );
        assert_eq!(
            provided_needs(1, false, false, true),
            vec![Need::Gpu, Need::Access]
        );
        assert_eq!(
            last_value(
                "PriorityType=priority/basic\nPriorityType=priority/multifactor\n",
                "PriorityType"
            )
            .as_deref(),
            Some("priority/multifactor")
        );
        assert!(task_cgroup_in(
            "TaskPlugin=task/none\nTaskPlugin=task/cgroup,task/affinity\n"
        ));
        assert!(!task_cgroup_in(
            "TaskPlugin=task/cgroup\nTaskPlugin=task/none\n"
        ));
        assert!(!task_cgroup_in("#TaskPlugin=task/cgroup\n"));
        assert!(alloc_prolog_in("Prolog=/p.sh\nPrologFlags=Alloc,Contain\n"));
        assert!(!alloc_prolog_in("PrologFlags=Contain\n"));
        assert!(!alloc_prolog_in("Prolog=/p.sh\nPrologFlags=Serial\n"));
    }

    #[test]
    fn influential_variables_are_dropped() {
        assert!(is_influential("SQUEUE_FORMAT"));
        assert!(is_influential("SLURM_JOB_ID"));
        assert!(!is_influential("SLURM_CONF"));
        assert!(!is_influential("HOME"));
    }
}
