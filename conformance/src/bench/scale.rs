//! The scale section: spurctld driving one `spurd --simulate` that plays N nodes (docs/simulation.md), for each
//! size in [`super::Sizes::scale`]. Measures the time until every node is registered, the scheduling passes over
//! a queue of pending jobs (from the controller's per-pass debug line), the time until every job completed, and
//! both daemons' resident memory idle and at their peak. Spur only: Slurm has no way to play thousands of nodes
//! from one slurmd (its front-end and multiple-slurmd builds are compile-time options of another build).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::cluster::rss_of;
use super::stats::median;
use super::table::{Better, Cell, Table};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// One size of the scale section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScaleSize {
    pub nodes: usize,
    pub jobs: usize,
    /// What each job declares as `SPUR_SIM_RUNTIME`.
    pub runtime_secs: u32,
    /// How long registration, and then the draining of the queue, may take.
    pub deadline: Duration,
}

/// The simulated nodes' shape, and what each job asks: four jobs fit on a node.
const NODE_CPUS: u32 = 64;
const NODE_MEM_MB: u64 = 256_000;
const JOB_CPUS: u32 = 16;
const PARTITION: &str = "sim";

/// What the section found for one size.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ScaleRun {
    pub register_secs: Option<f64>,
    pub first_pass_ms: Option<f64>,
    pub median_pass_ms: Option<f64>,
    pub max_pass_ms: Option<f64>,
    pub drain_secs: Option<f64>,
    pub idle_rss: (Option<f64>, Option<f64>),
    pub peak_rss: (Option<f64>, Option<f64>),
}

/// Runs every size and records its figures (Slurm's columns say why they are empty).
pub fn run(sizes: &[ScaleSize], out: &Path, slurm_labels: &[&str], table: &mut Table) {
    for size in sizes {
        eprintln!(
            "bench: spur: scale, {} simulated nodes, {} jobs",
            size.nodes, size.jobs
        );
        let dir = out.join(format!("scale-{}", size.nodes));
        let run = measure(size, &dir).unwrap_or_else(|e| {
            eprintln!("bench: scale with {} nodes on spur: {e}", size.nodes);
            ScaleRun::default()
        });
        record(table, size, &run, slurm_labels);
    }
}

fn record(table: &mut Table, size: &ScaleSize, run: &ScaleRun, slurm_labels: &[&str]) {
    let n = size.nodes;
    let j = size.jobs;
    let rows: [(String, &'static str, Option<f64>); 10] = [
        (
            format!("scale: {n} simulated nodes registered"),
            "s",
            run.register_secs,
        ),
        (
            format!("scale: first scheduling pass, {j} pending jobs on {n} nodes"),
            "ms",
            run.first_pass_ms,
        ),
        (
            format!("scale: median scheduling pass until {j} jobs completed, {n} nodes"),
            "ms",
            run.median_pass_ms,
        ),
        (
            format!("scale: longest scheduling pass until {j} jobs completed, {n} nodes"),
            "ms",
            run.max_pass_ms,
        ),
        (
            format!(
                "scale: {j} jobs of {}s on {n} nodes, release to all completed",
                size.runtime_secs
            ),
            "s",
            run.drain_secs,
        ),
        (
            format!("scale: controller RSS, {n} nodes idle"),
            "MiB",
            run.idle_rss.0,
        ),
        (
            format!("scale: agent RSS (all {n} nodes), idle"),
            "MiB",
            run.idle_rss.1,
        ),
        (
            format!("scale: controller RSS peak, {n} nodes, {j} jobs"),
            "MiB",
            run.peak_rss.0,
        ),
        (
            format!("scale: agent RSS peak (all {n} nodes), {j} jobs"),
            "MiB",
            run.peak_rss.1,
        ),
        (
            format!("scale: agent RSS per simulated node, {n} nodes idle"),
            "KiB",
            run.idle_rss.1.map(|mib| mib * 1024.0 / n.max(1) as f64),
        ),
    ];
    for (name, unit, value) in rows {
        table.record(
            &name,
            unit,
            Better::Lower,
            "spur",
            value.map_or(Cell::Failed, Cell::Value),
        );
        for label in slurm_labels {
            table.record(
                &name,
                unit,
                Better::Lower,
                label,
                Cell::NotRun("Slurm cannot simulate nodes".into()),
            );
        }
    }
}

/// The daemons of one size, stopped (by their own handles) when dropped.
struct Daemons {
    controller: Child,
    agent: Option<Child>,
}

impl Drop for Daemons {
    fn drop(&mut self) {
        for child in self.agent.iter_mut().chain([&mut self.controller]) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn measure(size: &ScaleSize, dir: &Path) -> Result<ScaleRun> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir.join("state"))?;
    let bins = bin_dir()?;
    let port = controller_port()?;
    let conf = dir.join("slurm.conf");
    std::fs::write(&conf, render_conf(size, dir, port))?;
    let socket = dir.join("spurctld.sock");
    let ctld_log = dir.join("spurctld.log");
    let spawn = |name: &str, args: &[&str], log: &Path, filter: &str| -> Result<Child> {
        let log = std::fs::File::create(log)?;
        Ok(Command::new(bins.join(name))
            .arg("-f")
            .arg(&conf)
            .args(args)
            .env("SPUR_LOCAL_SOCKET", &socket)
            .env("SPUR_LOG", filter)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()?)
    };
    let controller = spawn(
        "spurctld",
        &[],
        &ctld_log,
        "info,spur_controller::runtime=debug",
    )?;
    let mut daemons = Daemons {
        controller,
        agent: None,
    };
    let client = Client {
        // The commands' build where conformance/bench.sh names one (the static `cargo static-cli`).
        spur: std::env::var_os("SPUR_CLI").map_or_else(|| bins.join("spur"), PathBuf::from),
        conf: conf.clone(),
        socket: socket.clone(),
    };
    wait_for(size.deadline, || Ok(client.ok("sinfo", &["-h"]).is_ok()))?;
    let hostlist = node_hostlist(size.nodes);
    let registering = Instant::now();
    daemons.agent = Some(spawn(
        "spurd",
        &["--simulate", &hostlist],
        &dir.join("spurd.log"),
        "info",
    )?);
    wait_for(size.deadline, || Ok(client.idle_nodes()? >= size.nodes))?;
    let mut run = ScaleRun {
        register_secs: Some(registering.elapsed().as_secs_f64()),
        ..Default::default()
    };
    let pids = (
        daemons.controller.id(),
        daemons.agent.as_ref().map(Child::id),
    );
    let rss = || (rss_of(pids.0), pids.1.and_then(rss_of));
    run.idle_rss = rss();
    // The queue fills while the partition is down, so the first pass after it comes up sees every job at once.
    client.ok(
        "scontrol",
        &[
            "update",
            &format!("PartitionName={PARTITION}"),
            "State=DOWN",
        ],
    )?;
    client.submit_array(size)?;
    let log_mark = std::fs::metadata(&ctld_log)?.len();
    let released = Instant::now();
    client.ok(
        "scontrol",
        &["update", &format!("PartitionName={PARTITION}"), "State=UP"],
    )?;
    let mut peak = run.idle_rss;
    wait_for(size.deadline, || {
        let now = rss();
        peak = (max_of(peak.0, now.0), max_of(peak.1, now.1));
        Ok(client.active_jobs()? == 0)
    })?;
    run.drain_secs = Some(released.elapsed().as_secs_f64());
    run.peak_rss = peak;
    let passes = passes_since(&ctld_log, log_mark)?;
    let summary = PassSummary::of(&passes);
    run.first_pass_ms = summary.first_ms;
    run.median_pass_ms = summary.median_ms;
    run.max_pass_ms = summary.max_ms;
    drop(daemons);
    Ok(run)
}

fn max_of(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// `sim[00001-N]`, zero-padded so names sort as numbers.
pub fn node_hostlist(nodes: usize) -> String {
    let width = nodes.to_string().len().max(3);
    format!("sim[{:0width$}-{nodes:0width$}]", 1)
}

/// A cluster of `size.nodes` simulated nodes and one partition, authenticated by the controller's local socket.
pub fn render_conf(size: &ScaleSize, dir: &Path, port: u16) -> String {
    let nodes = node_hostlist(size.nodes);
    format!(
        "ClusterName=simbench\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort={port}\n\
         AuthType=auth/munge\nAuthInfo=socket={dir}/no-munged.socket\n\
         SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1000\n\
         StateSaveLocation={dir}/state\nSlurmdSpoolDir={dir}/spool\nMaxJobCount={max_jobs}\nMaxArraySize={max_array}\n\
         NodeName={nodes} CPUs={NODE_CPUS} RealMemory={NODE_MEM_MB} State=UNKNOWN\n\
         PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
        dir = dir.display(),
        max_jobs = size.jobs * 2 + 1000,
        max_array = size.jobs + 1,
    )
}

/// Where spurctld, spurd and spur are: `SPUR_BIN_DIR`, else beside this program (target/debug or release).
fn bin_dir() -> Result<PathBuf> {
    let dir = match std::env::var_os("SPUR_BIN_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => std::env::current_exe()?
            .parent()
            .map(Path::to_path_buf)
            .ok_or("cannot locate the binaries' directory")?,
    };
    for name in ["spurctld", "spurd", "spur"] {
        if !dir.join(name).is_file() {
            return Err(format!(
                "{} missing: build the workspace first",
                dir.join(name).display()
            )
            .into());
        }
    }
    Ok(dir)
}

/// `SLURMCTLD_PORT` (as for the targets' up.sh), else a free loopback port.
fn controller_port() -> Result<u16> {
    if let Some(port) = std::env::var("SLURMCTLD_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
    {
        return Ok(port);
    }
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn wait_for(deadline: Duration, mut done: impl FnMut() -> Result<bool>) -> Result<()> {
    let started = Instant::now();
    let mut last_error = None;
    while started.elapsed() < deadline {
        match done() {
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(e) => last_error = Some(e.to_string()),
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Err(format!(
        "not done after {} s{}",
        deadline.as_secs(),
        last_error.map_or(String::new(), |e| format!(" (last error: {e})"))
    )
    .into())
}

/// The cluster's commands, run through the multi-call binary.
struct Client {
    spur: PathBuf,
    conf: PathBuf,
    socket: PathBuf,
}

impl Client {
    fn command(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(&self.spur);
        cmd.arg(program)
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .env("SPUR_LOCAL_SOCKET", &self.socket)
            .stdin(Stdio::null());
        cmd
    }

    fn ok(&self, program: &str, args: &[&str]) -> Result<String> {
        let out = self.command(program, args).output()?;
        if !out.status.success() {
            return Err(format!(
                "{program} {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )
            .into());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn idle_nodes(&self) -> Result<usize> {
        let text = self.ok("sinfo", &["-h", "-t", "idle", "-o", "%D"])?;
        Ok(text
            .lines()
            .filter_map(|l| l.trim().parse::<usize>().ok())
            .sum())
    }

    fn active_jobs(&self) -> Result<usize> {
        Ok(self
            .ok("squeue", &["-h", "-r", "-t", "PD,R,CG,CF", "-o", "%i"])?
            .lines()
            .count())
    }

    /// All the jobs in one array: one submission, `jobs` pending records.
    fn submit_array(&self, size: &ScaleSize) -> Result<()> {
        let array = format!("--array=1-{}", size.jobs);
        let cpus = JOB_CPUS.to_string();
        let out = self
            .command(
                "sbatch",
                &[
                    &array,
                    "-c",
                    &cpus,
                    "-t",
                    "10",
                    "-o",
                    "/dev/null",
                    "-J",
                    "scale",
                    "--wrap",
                    "true",
                ],
            )
            .env("SPUR_SIM_RUNTIME", size.runtime_secs.to_string())
            .output()?;
        if !out.status.success() {
            return Err(format!("sbatch: {}", String::from_utf8_lossy(&out.stderr).trim()).into());
        }
        Ok(())
    }
}

/// One scheduling pass as the controller logged it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pass {
    pub micros: u64,
    pub pending: u64,
    pub starts: u64,
}

/// Reads a `scheduling pass` line (`pass_us=… pending=… starts=…`), colours or not.
pub fn parse_pass(line: &str) -> Option<Pass> {
    if !line.contains("scheduling pass") {
        return None;
    }
    let plain = strip_ansi(line);
    let field = |key: &str| -> Option<u64> {
        plain
            .split_whitespace()
            .find_map(|w| w.strip_prefix(key)?.strip_prefix('='))?
            .parse()
            .ok()
    };
    Some(Pass {
        micros: field("pass_us")?,
        pending: field("pending")?,
        starts: field("starts")?,
    })
}

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, up to a final letter.
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn passes_since(log: &Path, offset: u64) -> Result<Vec<Pass>> {
    let mut file = std::fs::File::open(log)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut text = String::new();
    file.read_to_string(&mut text)?;
    Ok(text.lines().filter_map(parse_pass).collect())
}

/// The passes of a drain: the first that started jobs (it saw the whole queue), and the median and longest of
/// those from then on that had pending jobs to consider.
#[derive(Debug, Default, PartialEq)]
pub struct PassSummary {
    pub first_ms: Option<f64>,
    pub median_ms: Option<f64>,
    pub max_ms: Option<f64>,
}

impl PassSummary {
    pub fn of(passes: &[Pass]) -> PassSummary {
        let ms = |p: &Pass| p.micros as f64 / 1000.0;
        // Passes before the first start ran while the partition was still down (they only sorted the queue).
        let released = passes.iter().skip_while(|p| p.starts == 0);
        let working: Vec<f64> = released.filter(|p| p.pending > 0).map(ms).collect();
        PassSummary {
            first_ms: passes.iter().find(|p| p.starts > 0).map(ms),
            median_ms: median(&working),
            max_ms: working.iter().copied().reduce(f64::max),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_lines_parse_with_or_without_colours() {
        let plain = "2026-12-01T13:33:19.854558Z DEBUG spur_controller::runtime: scheduling pass \
                     pass_us=72324 pending=10000 starts=4000";
        assert_eq!(
            parse_pass(plain),
            Some(Pass {
                micros: 72_324,
                pending: 10_000,
                starts: 4_000
            })
        );
        let coloured = "\u{1b}[2m2026\u{1b}[0m \u{1b}[34mDEBUG\u{1b}[0m scheduling pass \
                        \u{1b}[3mpass_us\u{1b}[0m\u{1b}[2m=\u{1b}[0m60646 \u{1b}[3mpending\u{1b}[0m\u{1b}[2m=\u{1b}[0m0 \
                        \u{1b}[3mstarts\u{1b}[0m\u{1b}[2m=\u{1b}[0m0";
        assert_eq!(
            parse_pass(coloured),
            Some(Pass {
                micros: 60_646,
                pending: 0,
                starts: 0
            })
        );
        assert_eq!(parse_pass("INFO spurctld serving"), None);
        assert_eq!(
            parse_pass("scheduling pass pass_us=x pending=1 starts=0"),
            None
        );
    }

    #[test]
    fn the_summary_takes_the_first_pass_that_started_jobs() {
        let pass = |micros, pending, starts| Pass {
            micros,
            pending,
            starts,
        };
        let passes = [
            pass(5_000, 100, 0),
            pass(80_000, 100, 40),
            pass(20_000, 60, 60),
            pass(1_000, 0, 0),
        ];
        let summary = PassSummary::of(&passes);
        assert_eq!(summary.first_ms, Some(80.0));
        assert_eq!(summary.median_ms, Some(20.0));
        let before_release = [pass(90_000, 100, 0), pass(10_000, 100, 100)];
        assert_eq!(PassSummary::of(&before_release).median_ms, Some(10.0));
        assert_eq!(summary.max_ms, Some(80.0));
        assert_eq!(PassSummary::of(&[]), PassSummary::default());
    }

    #[test]
    fn the_configuration_names_every_node_once() {
        let size = ScaleSize {
            nodes: 10_000,
            jobs: 10_000,
            runtime_secs: 10,
            deadline: Duration::from_secs(1),
        };
        assert_eq!(node_hostlist(10_000), "sim[00001-10000]");
        assert_eq!(node_hostlist(50), "sim[001-050]");
        let text = render_conf(&size, Path::new("/tmp/x"), 7310);
        assert!(text.contains("NodeName=sim[00001-10000] CPUs=64"));
        assert!(text.contains("MaxArraySize=10001"));
        assert!(text.contains("SlurmctldPort=7310"));
    }

    #[test]
    fn slurm_columns_say_why_they_are_empty() {
        let size = ScaleSize {
            nodes: 50,
            jobs: 200,
            runtime_secs: 1,
            deadline: Duration::from_secs(1),
        };
        let run = ScaleRun {
            register_secs: Some(0.5),
            idle_rss: (Some(20.0), Some(10.0)),
            ..Default::default()
        };
        let mut table = Table::default();
        record(&mut table, &size, &run, &["slurm"]);
        let registered = &table.figures[0];
        assert_eq!(registered.values.get("spur"), Some(&Cell::Value(0.5)));
        assert!(matches!(
            registered.values.get("slurm"),
            Some(Cell::NotRun(_))
        ));
        let per_node = table.figures.last().unwrap();
        assert_eq!(
            per_node.values.get("spur"),
            Some(&Cell::Value(10.0 * 1024.0 / 50.0))
        );
        // What was not measured fails the run, so short mode catches a broken section.
        assert_eq!(table.failures(), 6);
    }
}
