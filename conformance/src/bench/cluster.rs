//! A target cluster for one measurement: brought up fresh (so earlier workloads leave no jobs behind), its
//! commands run with the environment its up.sh exported, its daemons' resident memory read from /proc.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::target::{self, Exports, TargetKind};

use super::System;

pub struct Cluster {
    pub kind: TargetKind,
    pub rundir: PathBuf,
    pub env: Exports,
    targets_dir: PathBuf,
    nodes: Vec<String>,
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

impl Cluster {
    pub fn up(
        targets_dir: &Path,
        system: System,
        rundir: &Path,
        nodes: Option<u32>,
    ) -> Result<Cluster> {
        let kind = system.kind();
        let env = target::up(targets_dir, kind, rundir, nodes, &system.conf_extra())?;
        let mut cluster = Cluster {
            kind,
            rundir: rundir.to_path_buf(),
            env,
            targets_dir: targets_dir.to_path_buf(),
            nodes: Vec::new(),
        };
        cluster.nodes = cluster
            .stdout("sinfo", &["-h", "-N", "-o", "%N"])?
            .lines()
            .map(str::to_string)
            .collect();
        Ok(cluster)
    }

    pub fn down(self) -> Result<()> {
        target::down(&self.targets_dir, self.kind, &self.rundir)?;
        Ok(())
    }

    fn var(&self, name: &str) -> Option<&str> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `program` looked up on the cluster's PATH (its up.sh puts its own commands first), with its environment.
    pub fn command(&self, program: &str) -> Command {
        let path = self.var("PATH").map(str::to_string).unwrap_or_default();
        let resolved = std::env::split_paths(&path)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from(program));
        let mut cmd = Command::new(resolved);
        // Which libslurm a client loads must be the target's choice alone: `cargo run` puts target/debug (where
        // libspur_compat is also built as libslurm.so.38) on our LD_LIBRARY_PATH, which sent real Slurm's API
        // client to Spur's shim.
        cmd.env_remove("LD_LIBRARY_PATH")
            .env_remove("LD_PRELOAD")
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null());
        cmd
    }

    /// Runs a command to completion, failing on a non-zero exit; returns its stdout.
    pub fn stdout(&self, program: &str, args: &[&str]) -> Result<String> {
        let out = self
            .command(program)
            .args(args)
            .stderr(Stdio::piped())
            .output()?;
        if !out.status.success() {
            return Err(format!(
                "{program} {}: {} ({})",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim(),
                out.status
            )
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Wall time of one run of the command, its output thrown away (it is still produced in full).
    pub fn time(&self, program: &str, args: &[&str]) -> Result<Duration> {
        let started = Instant::now();
        let status = self
            .command(program)
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        let took = started.elapsed();
        if !status.success() {
            return Err(format!("{program} {} failed ({status})", args.join(" ")).into());
        }
        Ok(took)
    }

    /// Jobs not yet finished (pending, running, completing, configuring).
    pub fn active_jobs(&self) -> Result<usize> {
        Ok(self
            .stdout("squeue", &["-h", "-t", "PD,R,CG,CF", "-o", "%i"])?
            .lines()
            .count())
    }

    /// Resident memory in MiB of the controller and of the first node's agent.
    pub fn rss_mib(&self) -> (Option<f64>, Option<f64>) {
        let (ctld, agent) = match self.kind {
            TargetKind::Slurm => ("slurmctld.pid", "slurmd"),
            TargetKind::Spur => ("spurctld.pid", "spurd"),
        };
        let agent_pid_file = self.nodes.first().map(|n| format!("{agent}-{n}.pid"));
        let rss = |file: &str| read_pid(&self.rundir.join(file)).and_then(rss_of);
        (rss(ctld), agent_pid_file.as_deref().and_then(rss))
    }
}

fn read_pid(path: &Path) -> Option<u32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// A process's resident memory in MiB (`VmRSS`), or `None` once it is gone.
pub(super) fn rss_of(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}
