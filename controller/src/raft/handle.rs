//! `ReplicatedState`: the controller's handle on its replicated application state.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use openraft::error::{InitializeError, RaftError};
use openraft::{BasicNode, Raft};

use super::error::ReplicationError;
use super::log_store::LogStore;
use super::network::NoNetwork;
use super::state_machine::{read_app, SharedApp, StateMachine};
use super::store::Store;
use super::types::TypeConfig;
use super::{AppStateMachine, RaftConfig};

/// Name of the store file inside the data directory.
const STORE_FILE: &str = "raft.redb";

/// A running raft node replicating application state `A`.
pub struct ReplicatedState<A: AppStateMachine> {
    raft: Raft<TypeConfig<A>>,
    app: SharedApp<A>,
    store: Store,
    node_id: u64,
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
        let data_dir = data_dir.as_ref();
        std::fs::create_dir_all(data_dir).map_err(|source| ReplicationError::DataDir {
            path: data_dir.display().to_string(),
            source,
        })?;
        let path = data_dir.join(STORE_FILE);
        let store = Store::open(&path).map_err(|source| ReplicationError::Open {
            path: path.display().to_string(),
            source: Box::new(source),
        })?;
        let raft = match start_raft(&store, node_id, &config, initial).await {
            Ok(started) => started,
            Err(e) => {
                store.close().await;
                return Err(e);
            }
        };
        let (raft, app) = raft;
        let this = Self {
            raft,
            app,
            store,
            node_id,
        };
        if let Err(e) = this.become_leader(&config).await {
            let _ = this.shutdown().await;
            return Err(e);
        }
        Ok(this)
    }

    async fn become_leader(&self, config: &RaftConfig) -> Result<(), ReplicationError> {
        if !self.raft.is_initialized().await? {
            let members = BTreeMap::from([(self.node_id, BasicNode::new(&config.advertise_addr))]);
            match self.raft.initialize(members).await {
                Ok(()) | Err(RaftError::APIError(InitializeError::NotAllowed(_))) => {}
                Err(RaftError::APIError(e)) => return Err(ReplicationError::Write(e.to_string())),
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
    /// durable and applied.
    pub async fn write(&self, cmd: A::Command) -> Result<A::Response, ReplicationError> {
        let response = self.raft.client_write(cmd).await?;
        Ok(response.data)
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

    /// This node's raft id.
    pub fn node_id(&self) -> u64 {
        self.node_id
    }

    /// The underlying openraft handle, for metrics and, later, the RPC service.
    pub fn raft(&self) -> &Raft<TypeConfig<A>> {
        &self.raft
    }

    /// Stops raft and closes the store file, so the directory can be opened again.
    pub async fn shutdown(self) -> Result<(), ReplicationError> {
        let stopped = self.raft.shutdown().await;
        drop(self.raft);
        self.store.close().await;
        stopped.map_err(|e| ReplicationError::Shutdown(e.to_string()))
    }
}

async fn start_raft<A: AppStateMachine>(
    store: &Store,
    node_id: u64,
    config: &RaftConfig,
    initial: A,
) -> Result<(Raft<TypeConfig<A>>, SharedApp<A>), ReplicationError> {
    let raft_config = Arc::new(config.to_openraft()?);
    let state_machine = StateMachine::load(store.handle(), initial).await?;
    let app = state_machine.shared_app();
    let log = LogStore::<A>::new(store.handle());
    let raft = Raft::new(
        node_id,
        raft_config,
        NoNetwork::default(),
        log,
        state_machine,
    )
    .await?;
    Ok((raft, app))
}
