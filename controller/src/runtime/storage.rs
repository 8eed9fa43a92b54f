//! A controller whose storage failed (disk full, I/O error): it stops leading at once (see
//! [`ReplicatedState::storage_fault`](crate::raft::ReplicatedState::storage_fault)), says why in its log and to
//! `scontrol ping`, and exits once its state directory takes writes again, so that its supervisor restarts it from
//! what is durable. openraft 0.9 stops raft for good at a storage error and what is on disk after a failed write
//! or sync is known again only by opening the store afresh, so a restart is the one safe way back.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use super::Controller;

/// The exit status of a controller that stopped on a storage fault: EX_TEMPFAIL, "try again later", which a
/// supervisor (systemd's `Restart=on-failure`) answers with a restart.
pub const EXIT_STORAGE_FAULT: i32 = 75;

/// How often the controller looks for a fault.
const FAULT_POLL: Duration = Duration::from_millis(100);
/// How long the first probe of the state directory waits, and the longest wait between probes.
const PROBE_FIRST: Duration = Duration::from_millis(500);
const PROBE_MAX: Duration = Duration::from_secs(5);
/// What a probe writes and syncs: room for a restart to write its first entries (a log segment is filled 1 MiB
/// ahead of its records) and the database's commits.
const PROBE_BYTES: usize = 4 << 20;
const PROBE_FILE: &str = ".spur-storage-probe";

impl Controller {
    /// Why this controller's storage failed, if it did: it then neither leads nor takes writes.
    pub fn storage_fault(&self) -> Option<String> {
        self.state.storage_fault()
    }

    /// Waits for a storage fault, then until the state directory takes a write and sync again (probing with
    /// backoff), and returns the fault: the caller exits with [`EXIT_STORAGE_FAULT`].
    pub async fn run_storage_watch(self: Arc<Self>) -> String {
        let reason = loop {
            if let Some(reason) = self.storage_fault() {
                break reason;
            }
            tokio::time::sleep(FAULT_POLL).await;
        };
        let dir = self.state.data_dir().to_path_buf();
        tracing::error!(
            error = %reason,
            state = %dir.display(),
            "controller state storage failed: this controller no longer leads or takes writes, and exits for a \
             restart once its state directory can be written again"
        );
        let mut wait = PROBE_FIRST;
        loop {
            tokio::time::sleep(wait).await;
            let probe_dir = dir.clone();
            let probed = tokio::task::spawn_blocking(move || probe(&probe_dir)).await;
            match probed {
                Ok(Ok(())) => break,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, state = %dir.display(), "state directory still cannot be written")
                }
                Err(e) => tracing::warn!(error = %e, "state directory probe did not finish"),
            }
            wait = (wait * 2).min(PROBE_MAX);
        }
        tracing::error!(
            error = %reason,
            state = %dir.display(),
            "state directory can be written again: exiting (status {EXIT_STORAGE_FAULT}) so that a restart recovers \
             from the durable log"
        );
        reason
    }
}

/// Writes, syncs and removes a file of [`PROBE_BYTES`] in `dir`.
fn probe(dir: &Path) -> std::io::Result<()> {
    let path = dir.join(PROBE_FILE);
    let written = std::fs::File::create(&path).and_then(|mut file| {
        file.write_all(&vec![0u8; PROBE_BYTES])?;
        file.sync_all()
    });
    let removed = std::fs::remove_file(&path);
    written?;
    match removed {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
