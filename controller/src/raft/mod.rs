//! The controller's replicated log: a raft group (openraft) whose log, vote and snapshots live in
//! a redb file under the controller's data directory, and whose state machine is the
//! application state supplied through [`AppStateMachine`].
//!
//! [`ReplicatedState::open`] runs a one-member group (a single controller); [`ReplicatedState::open_member`]
//! one member of a group of several, whose raft messages travel over [`PeerTransport`]. Either bootstraps on
//! first start and recovers on every later start (last snapshot, then the rest of the log). Log entries and the
//! vote are fsynced before raft acts on them, so a write is acknowledged only once a majority holds it on disk.

mod codec;
mod error;
#[doc(hidden)]
pub mod fuzz_entry;
mod handle;
mod log_files;
mod log_store;
mod membership;
mod network;
mod peer_network;
mod state_machine;
mod store;
mod transport;
mod types;

#[cfg(test)]
mod test_app;

use std::fmt::Debug;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;

pub use error::{ReplicationError, StoreError};
pub use handle::{Bootstrap, ReplicatedState};
pub use log_store::LogStore;
pub use membership::{discover_group, GroupView, MemberView, KIND_GROUP_VIEW};
pub use network::{NoNetwork, NoPeer, PeerUnavailable};
pub use peer_network::{is_raft_message, serve_raft_message, PeerNetwork};
pub use state_machine::{SnapshotBuilder, StateMachine};
pub use transport::{reply_doc, PeerError, PeerTransport, Sealer, PEER_METHOD};
pub use types::{ControllerNode, NodeId, TypeConfig};

/// The deterministic application state that the log replicates (the controller's job and node
/// tables). Raft applies every committed command, in log order, on every controller.
pub trait AppStateMachine: Send + Sync + 'static {
    /// A state change. Persisted in the log: its serde form is an on-disk format, so evolve it
    /// only compatibly (new optional fields, new enum variants).
    type Command: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static;
    /// What applying a command returns to its writer.
    type Response: Serialize + DeserializeOwned + Clone + Debug + Send + Sync + 'static;
    /// Failure to serialise or restore a snapshot.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Applies one committed command. The only way state changes, so it must be deterministic:
    /// no clocks, randomness or I/O.
    ///
    /// `seq` numbers commands in log order: 1 for the first command ever applied, then +1 per
    /// command, identical on every replica and across restarts and snapshots. It is derived
    /// from the log (several concurrent writes share one log entry, so the raft index itself
    /// is not unique per command), and the application may derive ids such as job ids from it.
    fn apply(&mut self, seq: u64, cmd: Self::Command) -> Self::Response;

    /// Serialises the whole state. The bytes are the application's own versioned format.
    fn snapshot(&self) -> Result<Vec<u8>, Self::Error>;

    /// Replaces the whole state with one produced by [`snapshot`](Self::snapshot).
    fn restore(&mut self, bytes: &[u8]) -> Result<(), Self::Error>;

    /// Called after each batch of entries is applied (and before their answers go out): where the application
    /// writes what `apply` queued for storage outside the replicated state (the job history store), once per
    /// batch. `apply` itself stays free of I/O.
    fn batch_applied(&mut self) {}
}

const SNAPSHOT_CHUNK_TIMEOUT_MS: u64 = 5_000;
const SNAPSHOT_CHUNK_BYTES: u64 = 1024 * 1024;

/// Tuning of the replicated log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaftConfig {
    /// Build a snapshot (and then compact the log) after this many entries since the last one.
    pub snapshot_after_entries: u64,
    /// Entries kept in the log below the latest snapshot, for followers that lag a little.
    pub keep_entries_after_snapshot: u64,
    /// Leader heartbeat period.
    pub heartbeat_interval: Duration,
    /// Election timeouts. Small, because a lone controller should serve soon after a restart.
    pub election_timeout_min: Duration,
    pub election_timeout_max: Duration,
    /// How long [`ReplicatedState::open`] waits to become leader and replay the log.
    pub startup_timeout: Duration,
    /// The address peers would use to reach this controller (recorded in the membership).
    pub advertise_addr: String,
    /// Most log entries per AppendEntries call.
    pub max_payload_entries: u64,
    /// Most client commands grouped into one log entry (at most 1024).
    pub max_commands_per_entry: u64,
    /// A leader of several voters that has not had a majority's acknowledgement for this long stops acting as
    /// leader (openraft itself keeps leading until it hears of a newer term).
    pub quorum_lost_after: Duration,
}

impl Default for RaftConfig {
    fn default() -> Self {
        Self {
            snapshot_after_entries: 10_000,
            keep_entries_after_snapshot: 1_000,
            heartbeat_interval: Duration::from_millis(50),
            election_timeout_min: Duration::from_millis(150),
            election_timeout_max: Duration::from_millis(300),
            startup_timeout: Duration::from_secs(10),
            advertise_addr: String::new(),
            max_payload_entries: 300,
            max_commands_per_entry: 1024,
            quorum_lost_after: Duration::from_millis(600),
        }
    }
}

impl RaftConfig {
    /// Timings for a group of controllers on a LAN, chosen for failover under a second. The leader's heartbeat
    /// goes every 50 ms; a follower that hears nothing for 200-400 ms (four to eight heartbeats, so a busy host
    /// or a lost packet does not depose a live leader) stands for election. openraft makes a follower refuse
    /// votes until `election_timeout_max` has passed since it last heard the leader (the leader lease), so a
    /// failover takes one or two election timeouts: 200-800 ms. openraft also bounds each AppendEntries call by
    /// the heartbeat interval, so replication sends few entries per call and a follower that fell behind catches
    /// up in calls that fit that bound: at most 4 entries of at most 64 commands each. A leader that has not heard
    /// a majority for two maximal election timeouts (800 ms) steps aside: by then the others have elected
    /// another (lease plus one election timeout), and agents should move there.
    pub fn for_group() -> Self {
        Self {
            heartbeat_interval: Duration::from_millis(50),
            election_timeout_min: Duration::from_millis(200),
            election_timeout_max: Duration::from_millis(400),
            max_payload_entries: 4,
            max_commands_per_entry: 64,
            quorum_lost_after: Duration::from_millis(800),
            ..Self::default()
        }
    }

    fn to_openraft(&self) -> Result<openraft::Config, ReplicationError> {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        openraft::Config {
            cluster_name: "spur".into(),
            heartbeat_interval: millis(self.heartbeat_interval),
            election_timeout_min: millis(self.election_timeout_min),
            election_timeout_max: millis(self.election_timeout_max),
            snapshot_policy: openraft::SnapshotPolicy::LogsSinceLast(self.snapshot_after_entries),
            max_in_snapshot_log_to_keep: self.keep_entries_after_snapshot,
            max_payload_entries: self.max_payload_entries,
            // A snapshot chunk is a whole state image in JSON: give it far longer than a heartbeat.
            install_snapshot_timeout: SNAPSHOT_CHUNK_TIMEOUT_MS,
            snapshot_max_chunk_size: SNAPSHOT_CHUNK_BYTES,
            ..Default::default()
        }
        .validate()
        .map_err(ReplicationError::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_for_openraft() {
        let c = RaftConfig::default().to_openraft().unwrap();
        assert_eq!(c.election_timeout_min, 150);
        assert_eq!(c.heartbeat_interval, 50);
        assert_eq!(
            c.snapshot_policy,
            openraft::SnapshotPolicy::LogsSinceLast(10_000)
        );
    }

    #[test]
    fn inverted_election_timeouts_are_rejected() {
        let config = RaftConfig {
            election_timeout_min: Duration::from_millis(500),
            election_timeout_max: Duration::from_millis(100),
            ..RaftConfig::default()
        };
        assert!(config.to_openraft().is_err());
    }
}
