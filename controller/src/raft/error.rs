//! Errors of the replicated log's storage layer and of the `ReplicatedState` handle.

use std::sync::Arc;
use std::time::Duration;

use openraft::error::{CheckIsLeaderError, ClientWriteError, Fatal, RaftError};
use openraft::StorageError;

use super::types::ControllerNode;

/// A failure inside the raft store (the log's segment files or the redb database beside them).
///
/// Cloneable because one failed group commit has to be reported to every operation in the batch.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    #[error("raft store database error: {0}")]
    Db(#[source] Arc<redb::Error>),
    #[error("raft log file error: {0}")]
    Log(#[source] Arc<std::io::Error>),
    #[error("raft store is closed")]
    Closed,
    #[error("unsupported {what} format version {found} (this build reads version {supported})")]
    UnsupportedVersion {
        what: &'static str,
        found: u8,
        supported: u8,
    },
    #[error("corrupt {what} in raft store: {reason}")]
    Corrupt { what: &'static str, reason: String },
    #[error("application state machine: {0}")]
    App(String),
}

impl StoreError {
    pub(crate) fn db(e: impl Into<redb::Error>) -> Self {
        Self::Db(Arc::new(e.into()))
    }

    pub(crate) fn corrupt(what: &'static str, reason: impl ToString) -> Self {
        Self::Corrupt {
            what,
            reason: reason.to_string(),
        }
    }
}

/// Errors returned by [`ReplicatedState`](super::ReplicatedState).
#[derive(Debug, thiserror::Error)]
pub enum ReplicationError {
    #[error("cannot create raft data directory {path}: {source}")]
    DataDir {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot open raft store {path}: {source}")]
    Open {
        path: String,
        #[source]
        source: Box<redb::Error>,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("raft storage: {0}")]
    Storage(Box<StorageError<u64>>),
    #[error("invalid raft configuration: {0}")]
    Config(Box<openraft::ConfigError>),
    #[error("raft has stopped: {0}")]
    Fatal(Box<Fatal<u64>>),
    #[error("controller {node_id} did not become leader within {waited:?}: {reason}")]
    NoLeader {
        node_id: u64,
        waited: Duration,
        reason: String,
    },
    #[error("cannot initialise the raft cluster: {0}")]
    Initialize(String),
    #[error("this controller is not the leader (leader: {leader:?})")]
    NotLeader { leader: Option<u64> },
    #[error("raft write failed: {0}")]
    Write(String),
    #[error("{0}")]
    Membership(String),
    #[error("replicated state is shutting down")]
    ShuttingDown,
    /// A write or sync of the store failed (disk full, I/O error): the controller takes no more writes.
    #[error("this controller's storage failed ({0}); it takes no writes until restarted")]
    StorageFault(String),
    #[error("raft did not shut down cleanly: {0}")]
    Shutdown(String),
}

impl From<StorageError<u64>> for ReplicationError {
    fn from(e: StorageError<u64>) -> Self {
        Self::Storage(Box::new(e))
    }
}

impl From<Fatal<u64>> for ReplicationError {
    fn from(e: Fatal<u64>) -> Self {
        Self::Fatal(Box::new(e))
    }
}

impl From<openraft::ConfigError> for ReplicationError {
    fn from(e: openraft::ConfigError) -> Self {
        Self::Config(Box::new(e))
    }
}

impl From<RaftError<u64, ClientWriteError<u64, ControllerNode>>> for ReplicationError {
    fn from(e: RaftError<u64, ClientWriteError<u64, ControllerNode>>) -> Self {
        match e {
            RaftError::Fatal(f) => f.into(),
            RaftError::APIError(ClientWriteError::ForwardToLeader(f)) => Self::NotLeader {
                leader: f.leader_id,
            },
            RaftError::APIError(other) => Self::Write(other.to_string()),
        }
    }
}

impl From<RaftError<u64, CheckIsLeaderError<u64, ControllerNode>>> for ReplicationError {
    fn from(e: RaftError<u64, CheckIsLeaderError<u64, ControllerNode>>) -> Self {
        match e {
            RaftError::Fatal(f) => f.into(),
            RaftError::APIError(CheckIsLeaderError::ForwardToLeader(f)) => Self::NotLeader {
                leader: f.leader_id,
            },
            RaftError::APIError(other) => Self::Write(other.to_string()),
        }
    }
}
