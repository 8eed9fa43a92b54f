//! `ReplicatedState`: the controller's handle on its replicated application state.
//!
//! openraft 0.9 gives every `client_write` its own log append and waits for that append's
//! fsync before taking the next one, so writes issued one by one are limited to one per disk
//! flush. `write` therefore queues commands to a batcher task that submits everything queued
//! so far as one raft entry and, while that entry is being made durable, collects the next
//! batch: one fsync acknowledges many concurrent writes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use openraft::error::{InitializeError, RaftError};
use openraft::Raft;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::error::ReplicationError;
use super::log_store::LogStore;
use super::membership::Departed;
use super::network::NoNetwork;
use super::peer_network::PeerNetwork;
use super::state_machine::{read_app, SharedApp, StateMachine};
use super::store::Store;
use super::transport::PeerTransport;
use super::types::{ControllerNode, TypeConfig};
use super::{AppStateMachine, RaftConfig};

/// Name of the store file inside the data directory.
const STORE_FILE: &str = "raft.redb";

/// Most commands carried by one log entry (see `RaftConfig::max_commands_per_entry`).
const MAX_BATCH: usize = 1024;
/// Queued writes beyond which `write` waits for room (backpressure).
const WRITE_QUEUE: usize = 16 * MAX_BATCH;

struct PendingWrite<A: AppStateMachine> {
    cmd: A::Command,
    /// The response and the index of the log entry that carried the command.
    reply: oneshot::Sender<Result<(A::Response, u64), ReplicationError>>,
}

/// A running raft node replicating application state `A`.
pub struct ReplicatedState<A: AppStateMachine> {
    raft: Raft<TypeConfig<A>>,
    app: SharedApp<A>,
    store: Store,
    /// Where the store lives.
    data_dir: PathBuf,
    node_id: u64,
    writes: mpsc::Sender<PendingWrite<A>>,
    batcher: JoinHandle<()>,
    /// Vote requests for terms up to this one are refused: set when this member started with an empty store in a
    /// group that already exists, so a vote it cast before losing its disk cannot be cast again differently.
    vote_floor: AtomicU64,
    /// A leader that has not heard a majority for this long stops acting as leader (see `is_leader`).
    quorum_lost_after: Duration,
    /// Serialises membership changes made through this controller (openraft allows one at a time).
    pub(super) membership_lock: tokio::sync::Mutex<()>,
    /// Members this controller saw leave the group (written by the state machine as it applies).
    pub(super) departed: Arc<Departed>,
}

/// How a member of a group of several starts when its store is empty.
#[derive(Debug, Clone)]
pub enum Bootstrap {
    /// First start of a new group: initialise it with exactly these members (every member does so with the same
    /// list, which raft allows).
    Initialise(BTreeMap<u64, ControllerNode>),
    /// The group already exists (a controller being added, or one whose disk was wiped): never initialise; wait
    /// for the leader to send the log or a snapshot. Vote requests for terms up to `refuse_votes_through` (the
    /// highest term the other members reported) are refused, since this member may have voted in them before.
    Join { refuse_votes_through: u64 },
}

impl<A: AppStateMachine> ReplicatedState<A> {
    /// Opens the log in `data_dir` and returns once this node leads and has replayed its log.
    ///
    /// On first start the directory is empty: a one-member cluster of `node_id` is created and
    /// `initial` is the starting state. On later starts `initial` is overwritten by the stored
    /// snapshot (if any) and the log entries after it are re-applied.
    pub async fn open(
        data_dir: impl AsRef<Path>,
        node_id: u64,
        config: RaftConfig,
        initial: A,
    ) -> Result<Self, ReplicationError> {
        let this = Self::start(
            data_dir.as_ref(),
            node_id,
            &config,
            initial,
            NoNetwork::default(),
        )
        .await?;
        if let Err(e) = this.become_leader(&config).await {
            let _ = this.shutdown().await;
            return Err(e);
        }
        Ok(this)
    }

    /// Opens the log of controller `node_id` in a group of several, whose members (id -> address) are
    /// `members`. On first start the group is initialised with exactly those members (every member does so with
    /// the same list, which raft allows). Returns at once: a leader is elected as soon as a majority runs, and
    /// until then writes wait or fail (see [`leader`](Self::leader)).
    pub async fn open_member(
        data_dir: impl AsRef<Path>,
        node_id: u64,
        config: RaftConfig,
        initial: A,
        members: BTreeMap<u64, String>,
        transport: PeerTransport,
    ) -> Result<Self, ReplicationError> {
        let members = members
            .into_iter()
            .map(|(id, addr)| (id, ControllerNode::new(addr)))
            .collect();
        Self::open_group_member(
            data_dir,
            node_id,
            config,
            initial,
            Bootstrap::Initialise(members),
            transport,
        )
        .await
    }

    /// [`open_member`](Self::open_member), saying how an empty store starts (see [`Bootstrap`]). A store that
    /// holds a log always recovers from it, whatever `bootstrap` says.
    pub async fn open_group_member(
        data_dir: impl AsRef<Path>,
        node_id: u64,
        config: RaftConfig,
        initial: A,
        bootstrap: Bootstrap,
        transport: PeerTransport,
    ) -> Result<Self, ReplicationError> {
        let network = PeerNetwork::<A>::new(transport);
        let this = Self::start(data_dir.as_ref(), node_id, &config, initial, network).await?;
        let initialized = async {
            if !this.raft.is_initialized().await? {
                let members = match bootstrap {
                    Bootstrap::Initialise(members) => members,
                    Bootstrap::Join {
                        refuse_votes_through,
                    } => {
                        tracing::info!(
                            node_id,
                            refuse_votes_through,
                            "joining an existing group: waiting for its leader to send the log"
                        );
                        this.vote_floor
                            .store(refuse_votes_through, Ordering::Relaxed);
                        return Ok(());
                    }
                };
                match this.raft.initialize(members).await {
                    Ok(()) | Err(RaftError::APIError(InitializeError::NotAllowed(_))) => {}
                    Err(RaftError::APIError(e)) => {
                        return Err(ReplicationError::Initialize(e.to_string()))
                    }
                    Err(RaftError::Fatal(f)) => return Err(f.into()),
                }
            }
            Ok(())
        };
        if let Err(e) = initialized.await {
            let _ = this.shutdown().await;
            return Err(e);
        }
        Ok(this)
    }

    async fn start<N: openraft::network::RaftNetworkFactory<TypeConfig<A>>>(
        data_dir: &Path,
        node_id: u64,
        config: &RaftConfig,
        initial: A,
        network: N,
    ) -> Result<Self, ReplicationError> {
        std::fs::create_dir_all(data_dir).map_err(|source| ReplicationError::DataDir {
            path: data_dir.display().to_string(),
            source,
        })?;
        let path = data_dir.join(STORE_FILE);
        let store = Store::open(&path).map_err(|source| ReplicationError::Open {
            path: path.display().to_string(),
            source: Box::new(source),
        })?;
        let (raft, app, departed) =
            match start_raft(&store, node_id, config, initial, network).await {
                Ok(started) => started,
                Err(e) => {
                    store.close().await;
                    return Err(e);
                }
            };
        let (writes, queued) = mpsc::channel(WRITE_QUEUE);
        let per_entry = usize::try_from(config.max_commands_per_entry)
            .unwrap_or(MAX_BATCH)
            .clamp(1, MAX_BATCH);
        let batcher = tokio::spawn(run_batcher(raft.clone(), queued, per_entry));
        Ok(Self {
            raft,
            app,
            store,
            data_dir: data_dir.to_path_buf(),
            node_id,
            writes,
            batcher,
            vote_floor: AtomicU64::new(0),
            quorum_lost_after: config.quorum_lost_after,
            membership_lock: tokio::sync::Mutex::new(()),
            departed,
        })
    }

    async fn become_leader(&self, config: &RaftConfig) -> Result<(), ReplicationError> {
        if !self.raft.is_initialized().await? {
            let members =
                BTreeMap::from([(self.node_id, ControllerNode::new(&config.advertise_addr))]);
            match self.raft.initialize(members).await {
                Ok(()) | Err(RaftError::APIError(InitializeError::NotAllowed(_))) => {}
                Err(RaftError::APIError(e)) => {
                    return Err(ReplicationError::Initialize(e.to_string()))
                }
                Err(RaftError::Fatal(f)) => return Err(f.into()),
            }
        }
        let no_leader = |e: openraft::metrics::WaitError| ReplicationError::NoLeader {
            node_id: self.node_id,
            waited: config.startup_timeout,
            reason: e.to_string(),
        };
        let metrics = self
            .raft
            .wait(Some(config.startup_timeout))
            .current_leader(self.node_id, "controller becomes leader")
            .await
            .map_err(no_leader)?;
        // Serve reads only once everything in the log is reflected in the application state.
        self.raft
            .wait(Some(config.startup_timeout))
            .applied_index_at_least(metrics.last_log_index, "log replayed")
            .await
            .map_err(no_leader)?;
        Ok(())
    }

    /// Appends `cmd` to the log and returns the application's response once the entry is
    /// durable and applied. Concurrent calls share log entries and fsyncs; each still gets its
    /// own response, and commands are applied in the order they were queued.
    ///
    /// On an error other than `NotLeader` or `ShuttingDown` before queueing, the command may
    /// or may not have been committed; as with any replicated log, a retry must be idempotent
    /// at the application level.
    pub async fn write(&self, cmd: A::Command) -> Result<A::Response, ReplicationError> {
        Ok(self.write_indexed(cmd).await?.0)
    }

    /// [`write`](Self::write), also returning the index of the log entry that carried `cmd`.
    pub async fn write_indexed(
        &self,
        cmd: A::Command,
    ) -> Result<(A::Response, u64), ReplicationError> {
        // Refused at once rather than queued behind a raft that stopped (or a store that cannot keep what it gets).
        if let Some(reason) = self.storage_fault() {
            return Err(ReplicationError::StorageFault(reason));
        }
        let (reply, response) = oneshot::channel();
        self.writes
            .send(PendingWrite { cmd, reply })
            .await
            .map_err(|_| ReplicationError::ShuttingDown)?;
        response.await.map_err(|_| ReplicationError::ShuttingDown)?
    }

    /// Reads the local application state. On the leader of a one-member cluster this sees every
    /// acknowledged write; with several members use [`read_linearizable`](Self::read_linearizable).
    pub fn read<R>(&self, f: impl FnOnce(&A) -> R) -> R {
        f(&read_app(&self.app))
    }

    /// Confirms leadership with a quorum, waits until the state reflects everything committed
    /// before the call, then reads.
    pub async fn read_linearizable<R>(
        &self,
        f: impl FnOnce(&A) -> R,
    ) -> Result<R, ReplicationError> {
        self.raft.ensure_linearizable().await?;
        Ok(self.read(f))
    }

    /// Builds a snapshot now instead of waiting for the snapshot policy.
    pub async fn trigger_snapshot(&self) -> Result<(), ReplicationError> {
        Ok(self.raft.trigger().snapshot().await?)
    }

    /// The current leader's id and address, as far as this node knows. A leader that lost its majority (see
    /// [`is_leader`](Self::is_leader)) names no leader: writes wait for one instead of hanging on a log that
    /// cannot commit.
    pub fn leader(&self) -> Option<(u64, String)> {
        if self.storage_fault().is_some() {
            return None;
        }
        let metrics = self.raft.metrics();
        let metrics = metrics.borrow();
        let leader = metrics.current_leader?;
        if leader == self.node_id && !self.leads_a_majority(&metrics) {
            return None;
        }
        let addr = metrics
            .membership_config
            .membership()
            .get_node(&leader)
            .map(|n| n.addr.clone())
            .unwrap_or_default();
        Some((leader, addr))
    }

    /// Whether this node leads and may act as leader: openraft keeps a leader cut off from the others leading
    /// until it hears of a newer term, so a leader also needs a majority's acknowledgement within
    /// `quorum_lost_after` and to still be a voter (a leader removed from the group steps aside at once).
    pub fn is_leader(&self) -> bool {
        if self.storage_fault().is_some() {
            return false;
        }
        let metrics = self.raft.metrics();
        let metrics = metrics.borrow();
        metrics.current_leader == Some(self.node_id) && self.leads_a_majority(&metrics)
    }

    /// Why this controller can no longer keep writes, if it cannot: a write, sync or commit of its store failed
    /// (disk full, I/O error), or raft stopped on an error (openraft stops at a storage error). It then neither
    /// leads nor names a leader, and writes are refused at once. Only a restart clears it: what is on disk is
    /// known again only once the store is opened afresh.
    pub fn storage_fault(&self) -> Option<String> {
        if let Some(reason) = self.store.fault() {
            return Some(reason);
        }
        match &self.raft.metrics().borrow().running_state {
            Err(openraft::error::Fatal::Stopped) | Ok(()) => None,
            Err(fatal) => Some(format!("raft stopped: {fatal}")),
        }
    }

    /// The directory that holds the store.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    fn leads_a_majority(&self, metrics: &openraft::RaftMetrics<u64, ControllerNode>) -> bool {
        let membership = metrics.membership_config.membership();
        if !membership.voter_ids().any(|id| id == self.node_id) {
            return false;
        }
        if membership.voter_ids().nth(1).is_none() {
            return true;
        }
        metrics
            .millis_since_quorum_ack
            .is_some_and(|ms| u128::from(ms) <= self.quorum_lost_after.as_millis())
    }

    /// The highest term for which this member refuses votes (0: none refused).
    pub(super) fn vote_floor(&self) -> u64 {
        self.vote_floor.load(Ordering::Relaxed)
    }

    /// Waits (at most `timeout`) until the local state reflects log entry `index`: a follower that forwarded a
    /// write answers its client only once its own reads show the write.
    pub async fn wait_applied(&self, index: u64, timeout: std::time::Duration) -> bool {
        self.raft
            .wait(Some(timeout))
            .applied_index_at_least(Some(index), "forwarded write applied")
            .await
            .is_ok()
    }

    /// This node's raft id.
    pub fn node_id(&self) -> u64 {
        self.node_id
    }

    /// The underlying openraft handle, for metrics and, later, the RPC service.
    pub fn raft(&self) -> &Raft<TypeConfig<A>> {
        &self.raft
    }

    /// Finishes queued writes, stops raft and closes the store file, so the directory can be
    /// opened again. Dropping the handle instead leaves raft's tasks and the store running
    /// until the tokio runtime ends.
    pub async fn shutdown(self) -> Result<(), ReplicationError> {
        let Self {
            raft,
            store,
            writes,
            batcher,
            ..
        } = self;
        // Closing the queue ends the batcher once it has answered everything already queued.
        drop(writes);
        let batcher_done = batcher.await;
        let stopped = raft.shutdown().await;
        drop(raft);
        store.close().await;
        batcher_done.map_err(|e| ReplicationError::Shutdown(e.to_string()))?;
        stopped.map_err(|e| ReplicationError::Shutdown(e.to_string()))
    }
}

/// Submits queued writes as one raft entry per round until the queue is closed.
async fn run_batcher<A: AppStateMachine>(
    raft: Raft<TypeConfig<A>>,
    mut queued: mpsc::Receiver<PendingWrite<A>>,
    per_entry: usize,
) {
    let mut batch = Vec::with_capacity(per_entry);
    while queued.recv_many(&mut batch, per_entry).await > 0 {
        let (cmds, replies): (Vec<_>, Vec<_>) = batch.drain(..).map(|p| (p.cmd, p.reply)).unzip();
        match raft.client_write(cmds).await {
            Ok(written) => {
                let index = written.log_id.index;
                let mut responses = written.data.into_iter();
                for reply in replies {
                    let response = responses.next().map(|r| (r, index)).ok_or_else(|| {
                        ReplicationError::Write("state machine returned no response".into())
                    });
                    let _ = reply.send(response);
                }
            }
            Err(e) => {
                for reply in replies {
                    let _ = reply.send(Err(e.clone().into()));
                }
            }
        }
    }
}

async fn start_raft<A: AppStateMachine, N: openraft::network::RaftNetworkFactory<TypeConfig<A>>>(
    store: &Store,
    node_id: u64,
    config: &RaftConfig,
    initial: A,
    network: N,
) -> Result<(Raft<TypeConfig<A>>, SharedApp<A>, Arc<Departed>), ReplicationError> {
    let raft_config = Arc::new(config.to_openraft()?);
    let state_machine = StateMachine::load(store.handle(), initial).await?;
    let app = state_machine.shared_app();
    let departed = state_machine.departed();
    let log = LogStore::<A>::new(store.handle());
    let raft = Raft::new(node_id, raft_config, network, log, state_machine).await?;
    Ok((raft, app, departed))
}
