//! spurctld's command line: read slurm.conf (and gres.conf), open the replicated state, serve the API.

// Issue 29: nothing another process sends (requests, frames, /proc, spool files, Raft entries) may panic this
// daemon, so outside tests every unwrap/expect/index is a compile error; use `.get()`, patterns or `?` instead.
// unwrap and expect are denied by the workspace's lints (root Cargo.toml); indexing is denied here.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;

use std::collections::BTreeMap;

use spur_controller::config::{select_member, ControllerConfig};
use spur_controller::raft::{
    discover_group, Bootstrap, ControllerNode, GroupView, PeerTransport, RaftConfig,
    ReplicatedState, Sealer, PEER_METHOD,
};
use spur_controller::runtime::{Controller, SystemClock};
use spur_controller::server::{
    connections, AgentLinkService, ApiService, Authenticator, DaemonGate, RaftPeerService,
};
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
    /// Also serve on this Unix socket, where the kernel's peer credentials identify callers: the fallback for a
    /// controller host without munged (see docs/security.md). Clients find it through the same variable.
    #[arg(long, env = "SPUR_LOCAL_SOCKET")]
    local_socket: Option<PathBuf>,
    /// Which SlurmctldHost this controller is (its name or 1-based position), where slurm.conf names several and
    /// this host's name does not tell (several controllers on one machine).
    #[arg(long, env = "SPUR_CONTROLLER_ID")]
    member: Option<String>,
    /// Join an existing group as controller NAME at HOST:PORT (`NAME=HOST:PORT`), one not among the SlurmctldHost
    /// lines: it never initialises a group, finds its id by asking the SlurmctldHost controllers, and serves once
    /// an administrator has run `spur admin controller add NAME=HOST:PORT`. Give it on every start.
    #[arg(long, value_name = "NAME=HOST:PORT")]
    join: Option<String>,
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
    // The Raft log holds every job's script and environment: no other user may read it (issue 29).
    match spur_controller::state_dir::make_private(&state_dir) {
        Ok(spur_controller::state_dir::Privacy::Tightened(mode)) => tracing::warn!(
            "StateSaveLocation {} was open to other users (mode {mode:o}); made it 0700",
            state_dir.display()
        ),
        Ok(_) => {}
        // Not fatal: a directory another user owns (and lets this one write) still works; opening it says
        // what is wrong when it does not.
        Err(e) => tracing::warn!(
            "cannot make StateSaveLocation {} private to this user (0700): {e}",
            state_dir.display()
        ),
    }
    let (controller, listen) = if config.controllers.len() > 1 || args.join.is_some() {
        let identity = match &args.join {
            Some(spec) => {
                let (name, addr) = spur_core::model::controllers::parse_member(spec)
                    .map_err(|e| anyhow::anyhow!("--join: {e}"))?;
                Identity::Joining { name, addr }
            }
            None => Identity::Listed(args.member.clone()),
        };
        start_member(&config, &state_dir, identity, args.listen).await?
    } else {
        let listen = args.listen.unwrap_or(config.listen);
        let raft_config = RaftConfig {
            advertise_addr: listen.to_string(),
            ..RaftConfig::default()
        };
        let initial = initial_state(&state_dir.join("history.sqlite"), &config)?;
        let replicated = ReplicatedState::open(state_dir.join("raft"), 1, raft_config, initial)
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
        (controller, listen)
    };
    // A storage fault ends the process once the disk takes writes again (see runtime/storage.rs): openraft has
    // stopped, and only a fresh open of the store knows what is on disk, so the supervisor's restart recovers.
    let watched = controller.clone();
    tokio::spawn(async move {
        let reason = watched.run_storage_watch().await;
        eprintln!("spurctld: exiting after a state storage failure: {reason}");
        std::process::exit(spur_controller::runtime::EXIT_STORAGE_FAULT);
    });
    tokio::spawn(controller.clone().run_leadership());
    tokio::spawn(controller.clone().run_scheduler());
    tokio::spawn(controller.clone().run_housekeeping());
    let auth = Arc::new(Authenticator::new(
        config.auth.verifier.clone(),
        config.auth.slurm_user_uid,
    ));
    tokio::spawn(prune_replay_cache(controller.clone(), auth.clone()));
    if let Some(path) = &args.local_socket {
        let listener = bind_local_socket(path)?;
        let (controller, auth) = (controller.clone(), auth.clone());
        tracing::info!(socket = %path.display(), "serving local clients by peer credentials");
        let api = Arc::new(ApiService::new(controller.clone(), auth.clone()));
        let (grpc_incoming, frames) = connections::split(listener, api);
        tokio::spawn(frames);
        tokio::spawn(async move {
            let result = router(controller, auth)
                .serve_with_incoming_shutdown(grpc_incoming, shutdown_signal())
                .await;
            if let Err(e) = result {
                tracing::error!("local socket server failed: {e}");
            }
        });
    }
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| format!("cannot listen on {listen}"))?;
    tracing::info!(%listen, state = %state_dir.display(), "spurctld serving");
    let api = Arc::new(ApiService::new(controller.clone(), auth.clone()));
    let (grpc_incoming, frames) = connections::split(listener, api);
    tokio::spawn(frames);
    let removed = controller.clone();
    router(controller, auth)
        .serve_with_incoming_shutdown(grpc_incoming, async move {
            tokio::select! {
                _ = shutdown_signal() => {}
                _ = removed.removed.notified() => {}
            }
        })
        .await
        .context("gRPC server failed")?;
    if let Some(path) = &args.local_socket {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// Which controller of a group this process is.
enum Identity {
    /// One of the SlurmctldHost lines (by name or position when given, else by this host's name).
    Listed(Option<String>),
    /// A controller being added to the group (`--join NAME=HOST:PORT`).
    Joining { name: String, addr: String },
}

/// The file in a member's raft directory that records its id, so a controller keeps its id when slurm.conf's
/// lines move and a joined controller need not ask for it again.
const NODE_ID_FILE: &str = "node-id";
/// How long a starting controller waits for each other controller's view of the group.
const DISCOVERY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);
/// How often a joining controller asks again whether it has been added.
const JOIN_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// A controller in a Raft group of several (slurm.conf names several SlurmctldHost lines, or `--join`): each
/// listens on its own address, keeps its log in its own directory, and reaches the others with MUNGE-sealed
/// calls. It serves at once; writes wait for a majority to elect a leader.
///
/// A member whose store is empty asks the others whether the group already exists. If it does (a controller that
/// lost its disk, or one being added), it does not initialise the group again but waits for the leader to send
/// it the log or a snapshot, refusing votes for the terms it may have voted in before; otherwise (the group's
/// first start) it initialises the group with the SlurmctldHost lines.
async fn start_member(
    config: &ControllerConfig,
    state_dir: &std::path::Path,
    identity: Identity,
    listen: Option<SocketAddr>,
) -> anyhow::Result<(Arc<Controller>, SocketAddr)> {
    let listed: BTreeMap<u64, ControllerNode> = (1u64..)
        .zip(&config.controllers)
        .map(|(id, c)| {
            let node = ControllerNode::named(&c.hostname, format!("{}:{}", c.addr, config.port));
            (id, node)
        })
        .collect();
    let (name, addr, listed_id) = match identity {
        Identity::Listed(member) => {
            let hostname = nix::unistd::gethostname()
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_default();
            let index = select_member(&config.controllers, member.as_deref(), &hostname)?;
            let id = u64::try_from(index + 1)?;
            let me = listed.get(&id).ok_or_else(|| {
                anyhow::anyhow!("controller {id} is not among the SlurmctldHost lines")
            })?;
            (me.name.clone(), me.addr.clone(), Some(id))
        }
        Identity::Joining { name, addr } => (name, addr, None),
    };
    // Bind the member's own address where it is an IP, so several controllers can share one machine in tests.
    let listen = listen.unwrap_or_else(|| match addr.parse::<SocketAddr>() {
        Ok(own) => own,
        Err(_) => SocketAddr::new(config.listen.ip(), port_of(&addr).unwrap_or(config.port)),
    });
    let auth = spur_auth::ClientAuth::Munge {
        socket: config.munge_socket.clone(),
    };
    let seal: Sealer = Arc::new(move |message| {
        auth.request(PEER_METHOD, message)
            .map_err(|e| e.to_string())
    });
    let source = Some(listen.ip()).filter(|ip| !ip.is_unspecified());
    let dir = state_dir.join(format!("raft-{name}"));
    let others: Vec<String> = listed
        .values()
        .map(|n| n.addr.clone())
        .filter(|a| *a != addr)
        .collect();
    let fresh = !dir.join("raft.redb").exists();
    let recorded_id = read_node_id(&dir)?;
    let (node_id, bootstrap) = match (recorded_id.or(listed_id), fresh) {
        (Some(id), false) => (id, Bootstrap::Initialise(listed.clone())),
        (Some(id), true) => {
            let views = discover_group(
                &PeerTransport::from_address(id, seal.clone(), source),
                &others,
                DISCOVERY_TIMEOUT,
            )
            .await;
            let established: Vec<&GroupView> = views.values().filter(|v| v.established).collect();
            if established.is_empty() {
                (id, Bootstrap::Initialise(listed.clone()))
            } else {
                let term = established.iter().map(|v| v.term).max().unwrap_or(0);
                tracing::warn!(
                    member = %name,
                    "this controller's store is empty but the group exists: rejoining it, refusing votes up to term {term}"
                );
                (
                    id,
                    Bootstrap::Join {
                        refuse_votes_through: term,
                    },
                )
            }
        }
        (None, _) => {
            let transport = PeerTransport::from_address(0, seal.clone(), source);
            wait_to_be_added(&name, &addr, &others, &transport).await
        }
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(dir.join(NODE_ID_FILE), format!("{node_id}\n"))
        .with_context(|| format!("cannot record this controller's id in {}", dir.display()))?;
    let transport = PeerTransport::from_address(node_id, seal, source);
    let raft_config = RaftConfig {
        advertise_addr: addr.clone(),
        ..RaftConfig::for_group()
    };
    let initial = initial_state(&state_dir.join(format!("history-{name}.sqlite")), config)?;
    let replicated = ReplicatedState::open_group_member(
        &dir,
        node_id,
        raft_config,
        initial,
        bootstrap,
        transport.clone(),
    )
    .await
    .with_context(|| format!("cannot open controller state in {}", dir.display()))?;
    let controller = Controller::new_member(
        replicated,
        Arc::new(SystemClock),
        config.launch_context.clone(),
        transport,
        name.clone(),
    );
    tracing::info!(member = %name, node_id, %addr, "controller of a group");
    // As for a single controller, the configuration enters the log; here once a leader exists to take it.
    let (applier, snapshot) = (controller.clone(), config.snapshot.clone());
    tokio::spawn(async move {
        loop {
            match applier
                .commit(Command::ApplyConfig(Box::new(snapshot.clone())))
                .await
            {
                Ok(_) => break,
                Err(e) => tracing::warn!("configuration not applied yet: {e}"),
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    });
    Ok((controller, listen))
}

/// The empty state the log is replayed onto: linked to this controller's job history store (the SQLite file at
/// `path`, or the PostgreSQL database slurm.conf names) unless accounting is off
/// (`AccountingStorageType=accounting_storage/none`).
fn initial_state(
    path: &std::path::Path,
    config: &ControllerConfig,
) -> anyhow::Result<ClusterState> {
    let mut state = ClusterState::new();
    if config.snapshot.settings.accounting {
        let store: Arc<dyn spur_controller::history::HistoryStore> = match &config.history_database
        {
            Some(target) => Arc::new(spur_controller::history::postgres::PostgresHistory::open(
                target,
            )?),
            None => Arc::new(spur_controller::history::sqlite::SqliteHistory::open(path)?),
        };
        state.history = spur_controller::history::HistoryLink::new(store);
    }
    Ok(state)
}

fn port_of(addr: &str) -> Option<u16> {
    addr.rsplit_once(':')?.1.parse().ok()
}

fn read_node_id(dir: &std::path::Path) -> anyhow::Result<Option<u64>> {
    let path = dir.join(NODE_ID_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => text
            .trim()
            .parse()
            .map(Some)
            .with_context(|| format!("{} does not hold a controller id", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// A controller started with `--join` and no id yet: asks the SlurmctldHost controllers until the group lists it
/// (an administrator ran `spur admin controller add NAME=HOST:PORT`), and takes the id it was given.
async fn wait_to_be_added(
    name: &str,
    addr: &str,
    others: &[String],
    transport: &PeerTransport,
) -> (u64, Bootstrap) {
    let mut asked = 0u32;
    loop {
        let views = discover_group(transport, others, DISCOVERY_TIMEOUT).await;
        let added = views
            .values()
            .filter_map(|v| v.member_named(name).map(|m| (m, v.term)))
            .find(|(m, _)| m.addr == addr);
        if let Some((member, _)) = added {
            let term = views.values().map(|v| v.term).max().unwrap_or(0);
            tracing::info!(member = %name, id = member.id, "added to the group");
            return (
                member.id,
                Bootstrap::Join {
                    refuse_votes_through: term,
                },
            );
        }
        if asked.is_multiple_of(20) {
            tracing::info!(
                "waiting to be added to the group: run `spur admin controller add {name}={addr}` ({} of {} controllers answered)",
                views.len(),
                others.len()
            );
        }
        asked += 1;
        tokio::time::sleep(JOIN_POLL).await;
    }
}

/// How long one gRPC call may take before the server gives up on it. Long-lived streams (agent sessions) are
/// not bounded by it: tonic applies it to the response's start, which a session sends at once.
const GRPC_CALL_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);
/// Calls served at once on one HTTP/2 connection: a command makes one, an agent a few, a controller's
/// replication a handful; a client that opens more waits for one to end.
const GRPC_CALLS_PER_CONNECTION: usize = 64;
/// HTTP/2 streams one connection may open at once (h2's default is unbounded): beyond this a client is refused.
const GRPC_STREAMS_PER_CONNECTION: u32 = 256;
/// Pings on idle connections, so a peer that vanished (or a connection nobody uses) is found and closed.
const GRPC_KEEPALIVE: std::time::Duration = std::time::Duration::from_secs(60);
const GRPC_KEEPALIVE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// The gRPC services. Each reads messages only up to what its real callers send (wire.rs says why each size);
/// the daemons' services first check the caller's MUNGE credential from the headers ([`DaemonGate`]).
fn router(
    controller: Arc<Controller>,
    auth: Arc<Authenticator>,
) -> tonic::transport::server::Router {
    use tonic::service::interceptor::InterceptedService;
    let agent_gate = DaemonGate {
        auth: auth.clone(),
        what: "agent session",
        local: true,
    };
    let peer_gate = DaemonGate {
        auth: auth.clone(),
        what: "controller call",
        local: false,
    };
    tonic::transport::Server::builder()
        .initial_stream_window_size(spur_core::wire::HTTP2_WINDOW_BYTES)
        .initial_connection_window_size(spur_core::wire::HTTP2_WINDOW_BYTES)
        .timeout(GRPC_CALL_TIMEOUT)
        .concurrency_limit_per_connection(GRPC_CALLS_PER_CONNECTION)
        .max_concurrent_streams(GRPC_STREAMS_PER_CONNECTION)
        .http2_keepalive_interval(Some(GRPC_KEEPALIVE))
        .http2_keepalive_timeout(Some(GRPC_KEEPALIVE_TIMEOUT))
        .tcp_keepalive(Some(GRPC_KEEPALIVE))
        .add_service(
            pb::controller_server::ControllerServer::new(ApiService::new(
                controller.clone(),
                auth.clone(),
            ))
            .max_decoding_message_size(spur_core::wire::MAX_REQUEST_BYTES)
            .max_encoding_message_size(spur_core::wire::MAX_REPLY_BYTES),
        )
        .add_service(InterceptedService::new(
            pb::agent_link_server::AgentLinkServer::new(AgentLinkService::new(
                controller.clone(),
                auth.clone(),
            ))
            .max_decoding_message_size(spur_core::wire::MAX_AGENT_MESSAGE_BYTES)
            .max_encoding_message_size(spur_core::wire::MAX_AGENT_MESSAGE_BYTES),
            agent_gate,
        ))
        .add_service(InterceptedService::new(
            pb::raft_peer_server::RaftPeerServer::new(RaftPeerService::new(controller, auth))
                .max_decoding_message_size(spur_core::wire::MAX_PEER_BYTES)
                .max_encoding_message_size(spur_core::wire::MAX_PEER_BYTES),
            peer_gate,
        ))
}

/// The socket is open to every local user on purpose: each is identified by the kernel, not trusted.
fn bind_local_socket(path: &std::path::Path) -> anyhow::Result<tokio::net::UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot replace {}", path.display())),
    }
    let listener = tokio::net::UnixListener::bind(path)
        .with_context(|| format!("cannot listen on {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))
        .with_context(|| format!("cannot open {} to local users", path.display()))?;
    Ok(listener)
}

/// Replay-cache entries are only needed until their credential expires.
async fn prune_replay_cache(controller: Arc<Controller>, auth: Arc<Authenticator>) {
    let mut tick = tokio::time::interval(REPLAY_PRUNE_INTERVAL);
    loop {
        tick.tick().await;
        auth.verifier().prune(controller.now());
    }
}

const REPLAY_PRUNE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

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
