//! spurd's command line: where the controller is, which node this is, and where the spool lives.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
// unwrap and expect are denied by the workspace's lints (root Cargo.toml); indexing is denied here.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;

use spur_agent::discover;
use spur_agent::jobs::JobSpool;
use spur_agent::session::{run_forever, Agent};
use spur_core::wire::agent_proto::NodeHello;

const SLURM_COMPAT_VERSION: &str = "22.05.8";

#[derive(Parser, Debug)]
#[command(name = "spurd", version, about = "Spur node agent")]
struct Args {
    /// slurm.conf to read the node's definition and the controller's address from.
    #[arg(short = 'f', long = "conf", env = "SLURM_CONF")]
    conf: Option<PathBuf>,
    /// This node's name in slurm.conf (default: the short host name).
    #[arg(short = 'N', long = "node-name")]
    node_name: Option<String>,
    /// Controller URL, e.g. http://127.0.0.1:6817 (default: from slurm.conf SlurmctldHost and SlurmctldPort).
    #[arg(long)]
    controller: Option<String>,
    /// Spool directory for job state (default: SlurmdSpoolDir from slurm.conf, `%n` replaced by the node name).
    #[arg(long)]
    spool: Option<PathBuf>,
    /// The spurstepd binary (default: next to spurd).
    #[arg(long)]
    stepd: Option<PathBuf>,
    /// Where GPU discovery reads `/sys` and `/proc` (tests point it at a fake tree).
    #[arg(long, env = "SPUR_SYSFS_ROOT", default_value = "/")]
    sysfs_root: PathBuf,
    /// The nvidia-smi whose `topo -m` gives NVLink links (run only when sysfs shows NVIDIA GPUs).
    #[arg(long, env = "SPUR_NVIDIA_SMI", default_value = "nvidia-smi")]
    nvidia_smi: PathBuf,
    /// Run in the foreground (spurd always does; accepted for slurmd compatibility).
    #[arg(short = 'D')]
    foreground: bool,
    /// Play every node of this hostlist (e.g. `sim[00001-10000]`, each defined in slurm.conf) as a simulated node:
    /// nothing is executed, jobs run for their declared time (docs/simulation.md).
    #[arg(long, value_name = "HOSTLIST")]
    simulate: Option<String>,
    /// Under task/cgroup: the most processes and threads one job may have on this node (its cgroup's
    /// `pids.max`; Slurm 22.05 has no such setting, so it is spurd's). Default: unlimited.
    #[arg(long, env = "SPUR_JOB_PIDS_MAX", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    job_pids_max: Option<u64>,
    /// Under task/cgroup: a job whose limits cannot all be applied (spurd not root, a controller not mounted, a
    /// device filter refused) fails to launch instead of running with a warning in its supervisor's log.
    #[arg(long, env = "SPUR_REQUIRE_CONFINEMENT")]
    require_confinement: bool,
    /// With --simulate: seconds a job runs when it declares no SPUR_SIM_RUNTIME (default: until its time limit).
    #[arg(long, value_name = "SECS", requires = "simulate", value_parser = parse_sim_runtime)]
    sim_runtime: Option<std::time::Duration>,
}

fn parse_sim_runtime(text: &str) -> Result<std::time::Duration, String> {
    spur_agent::sim::node::parse_runtime(text)
        .ok_or_else(|| format!("'{text}' is not a number of seconds"))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SPUR_LOG")
                .unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let args = Args::parse();
    if let Some(hostlist) = &args.simulate {
        return simulate(&args, hostlist).await;
    }
    let settings = spur_agent::config::AgentSettings::resolve(
        args.conf.as_deref(),
        args.node_name.as_deref(),
        args.controller.as_deref(),
        args.spool.as_deref(),
    )?;
    let stepd = match args.stepd {
        Some(path) => path,
        None => std::env::current_exe()
            .context("cannot locate spurd's own binary")?
            .with_file_name("spurstepd"),
    };
    let facts = discover::discover();
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0);
    let gpu_topology = spur_agent::gpus::discover(&spur_agent::gpus::GpuSources {
        root: args.sysfs_root.clone(),
        nvidia_smi: args.nvidia_smi.clone(),
    });
    match &gpu_topology {
        Some(t) => tracing::info!("GPU topology: {}", t.summary()),
        None => tracing::info!("no GPUs found under {}", args.sysfs_root.display()),
    }
    let mut gpu_cores = gpu_topology
        .as_ref()
        .map(|t| spur_agent::gpus::cores_by_gpu(&args.sysfs_root, t))
        .unwrap_or_default();
    if let Some(gres) = read_gres_conf(args.conf.as_deref()) {
        gpu_cores.extend(spur_agent::gpus::cores_from_gres_conf(
            &gres,
            &settings.node_name,
        ));
    }
    let hello = NodeHello {
        name: settings.node_name.clone(),
        hostname: facts.hostname.clone(),
        addr: settings.node_addr.clone(),
        cpus: facts.cpus,
        sockets: 1,
        cores_per_socket: facts.cpus,
        threads_per_core: 1,
        real_memory_mb: facts.real_memory_mb,
        boot_time: facts.boot_time,
        agent_start_time: started,
        os: facts.os.clone(),
        arch: facts.arch.clone(),
        // The Slurm release whose protocol and behaviour spurd implements: tools compare it with their own.
        version: SLURM_COMPAT_VERSION.to_string(),
        running_jobs: Vec::new(),
        running_runs: Vec::new(),
        gpu_topology,
        // Set per session (crate::controller_trust).
        session_nonce: None,
    };
    let spool = JobSpool::new(
        settings.spool.clone(),
        stepd,
        settings.node_name.clone(),
        facts.hostname,
    )
    .with_context(|| format!("cannot create spool directory {}", settings.spool.display()))?
    .with_boot_time(facts.boot_time)
    .with_acct_gather(settings.acct_gather)
    .with_node_scripts(
        settings.prolog.clone(),
        settings.epilog.clone(),
        settings.task_prolog.clone(),
        settings.task_epilog.clone(),
    )
    .with_isolation(settings.cgroup.clone().map(|conf| {
        if !nix::unistd::geteuid().is_root() {
            if args.require_confinement {
                tracing::error!(
                    "cgroup.conf constrains jobs and confinement is required, but spurd is not root: no job \
                     can start here"
                );
            } else {
                tracing::warn!(
                    "cgroup.conf constrains jobs, but spurd is not root: jobs run unconfined"
                );
            }
        }
        spur_agent::isolation::Isolation {
            conf,
            node_cpus: facts.cpus,
            node_mem_mb: facts.real_memory_mb,
            gpu_cores,
            pids_max: args.job_pids_max,
            required: args.require_confinement,
        }
    }));
    tracing::info!(
        node = settings.node_name,
        controller = settings.controller_urls.join(","),
        "spurd starting"
    );
    // pam_slurm_adopt's questions about the steps here (libspur_compat's slurm_stepd_*).
    tokio::spawn(spur_agent::stepd_socket::serve(
        spool.root().to_path_buf(),
        settings.node_name.clone(),
    ));
    let agent = Arc::new(Agent {
        spool,
        controller_urls: settings.controller_urls,
        auth: settings.auth,
        hello,
        deferred: Default::default(),
        trust: settings.trust,
    });
    run_forever(agent).await;
    Ok(())
}

/// `--simulate`: the nodes come from slurm.conf, the controller's address too unless given.
async fn simulate(args: &Args, hostlist: &str) -> anyhow::Result<()> {
    let conf_path = args
        .conf
        .as_deref()
        .context("--simulate needs slurm.conf (-f or SLURM_CONF) to size its nodes")?;
    let conf = spur_agent::config::read(conf_path)?;
    let controller_urls = match args.controller.as_deref() {
        Some(list) => spur_core::grammar::conf::controller_urls(Some(list), None),
        None if !conf.controllers.is_empty() => {
            spur_core::grammar::conf::controller_urls(None, Some(&conf))
        }
        None => return Err(spur_agent::config::AgentConfigError::NoController.into()),
    };
    let facts = discover::discover();
    let host = spur_agent::sim::fleet::HostFacts {
        hostname: facts.hostname,
        os: facts.os,
        arch: facts.arch,
        version: SLURM_COMPAT_VERSION.to_string(),
        boot_time: facts.boot_time,
        agent_start_time: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
            .unwrap_or(0),
    };
    let hellos = spur_agent::sim::fleet::hellos(&conf, hostlist, &host)?;
    let fleet = spur_agent::sim::session::Fleet {
        controller_urls,
        auth: spur_auth::ClientAuth::for_daemon(Some(&conf), |k| std::env::var(k).ok()),
        hellos,
        default_runtime: args.sim_runtime,
    };
    spur_agent::sim::session::run_fleet(fleet).await;
    Ok(())
}

/// gres.conf beside slurm.conf, for its `Cores=`; `None` when absent or unreadable (the controller reports errors
/// in it; here it only refines which cores a GPU job gets).
fn read_gres_conf(
    slurm_conf: Option<&std::path::Path>,
) -> Option<spur_core::grammar::conf::GresConf> {
    let path = slurm_conf?.with_file_name("gres.conf");
    let text = std::fs::read_to_string(&path).ok()?;
    spur_core::grammar::conf::GresConf::parse_str(&text, &path.display().to_string()).ok()
}
