//! spurctld's command line: read slurm.conf (and gres.conf), open the replicated state, serve the API.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;

use spur_controller::config::ControllerConfig;
use spur_controller::raft::{RaftConfig, ReplicatedState};
use spur_controller::runtime::{Controller, SystemClock};
use spur_controller::server::{AgentLinkService, ApiService};
use spur_controller::state::{ClusterState, Command};
use spur_core::wire::pb;

#[derive(Parser, Debug)]
#[command(name = "spurctld", version, about = "Spur controller")]
struct Args {
    /// slurm.conf to read (gres.conf is read from the same directory).
    #[arg(
        short = 'f',
        long = "conf",
        env = "SLURM_CONF",
        default_value = "/etc/slurm/slurm.conf"
    )]
    conf: PathBuf,
    /// Where the Raft log, vote and snapshots live (default: StateSaveLocation from slurm.conf).
    #[arg(long)]
    state_dir: Option<PathBuf>,
    /// Address to listen on (default: 0.0.0.0 and SlurmctldPort from slurm.conf).
    #[arg(long)]
    listen: Option<SocketAddr>,
    /// Run in the foreground (spurctld always does; accepted for slurmctld compatibility).
    #[arg(short = 'D')]
    foreground: bool,
    /// Ignored: Spur always recovers its state from the log (slurmctld's `-c`/`-i`/`-R` flags).
    #[arg(short = 'i', short_alias = 'c', short_alias = 'R')]
    recovery_flag: bool,
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
    let config = ControllerConfig::load(&args.conf)
        .with_context(|| format!("cannot load configuration from {}", args.conf.display()))?;
    let state_dir = args.state_dir.unwrap_or_else(|| config.state_dir.clone());
    let listen = args.listen.unwrap_or(config.listen);
    let raft_config = RaftConfig {
        advertise_addr: listen.to_string(),
        ..RaftConfig::default()
    };
    let replicated =
        ReplicatedState::open(state_dir.join("raft"), 1, raft_config, ClusterState::new())
            .await
            .with_context(|| format!("cannot open controller state in {}", state_dir.display()))?;
    let controller = Controller::new(
        replicated,
        Arc::new(SystemClock),
        config.launch_context.clone(),
    );
    // Configuration enters the log like any change (one entry per start), so replays and replicas never read
    // slurm.conf themselves, and node state survives a reconfiguration.
    controller
        .commit(Command::ApplyConfig(Box::new(config.snapshot.clone())))
        .await
        .map_err(|e| anyhow::anyhow!("cannot apply configuration: {e}"))?;
    tokio::spawn(controller.clone().run_scheduler());
    tokio::spawn(controller.clone().run_housekeeping());
    tracing::info!(%listen, state = %state_dir.display(), "spurctld serving");
    tonic::transport::Server::builder()
        .add_service(pb::controller_server::ControllerServer::new(
            ApiService::new(controller.clone()),
        ))
        .add_service(pb::agent_link_server::AgentLinkServer::new(
            AgentLinkService::new(controller.clone()),
        ))
        .serve_with_shutdown(listen, shutdown_signal())
        .await
        .context("gRPC server failed")?;
    Ok(())
}

async fn shutdown_signal() {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    tracing::info!("spurctld shutting down");
}
