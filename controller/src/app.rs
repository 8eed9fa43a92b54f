//! Plugs the cluster state machine into the replicated log: commands in, `ApplyResult`s out, snapshots as
//! versioned JSON.

use serde::{Deserialize, Serialize};

use crate::raft::AppStateMachine;
use crate::state::{Applied, ApplyResult, ClusterState, Command, SNAPSHOT_VERSION};

/// The writer's view of an applied command. Non-command log entries (leader changes) answer `Ok(empty)`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApplyResponse(pub ApplyResult);

impl Default for ApplyResponse {
    fn default() -> Self {
        ApplyResponse(Ok(Applied::default()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("cannot encode the cluster state: {0}")]
    Encode(serde_json::Error),
    #[error("cannot decode the cluster state snapshot: {0}")]
    Decode(serde_json::Error),
    #[error("snapshot version {found} is newer than this controller understands ({supported})")]
    TooNew { found: u32, supported: u32 },
}

impl AppStateMachine for ClusterState {
    type Command = Command;
    type Response = ApplyResponse;
    type Error = SnapshotError;

    fn apply(&mut self, log_index: u64, cmd: Command) -> ApplyResponse {
        ApplyResponse(ClusterState::apply(self, log_index, cmd))
    }

    fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        serde_json::to_vec(self).map_err(SnapshotError::Encode)
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let restored: ClusterState =
            serde_json::from_slice(bytes).map_err(SnapshotError::Decode)?;
        if restored.version > SNAPSHOT_VERSION {
            return Err(SnapshotError::TooNew {
                found: restored.version,
                supported: SNAPSHOT_VERSION,
            });
        }
        // The history link is this controller's own: it stays, and the restored buffer is handed to the store.
        let history = std::mem::take(&mut self.history);
        *self = restored;
        self.history = history;
        self.hand_buffer_to_history();
        Ok(())
    }

    fn batch_applied(&mut self) {
        self.history.flush(self.last_applied_index);
    }
}
