//! Fuzzing entry points of the replicated log: the on-disk codec (`codec.rs`), the segment loader (`log_files`)
//! and the raft messages peers send. Called by `core/fuzz` (cargo-fuzz) and `controller/tests/fuzz_corpus.rs`
//! (the same inputs in the normal test suite). Each must return for any input; not an API.

use openraft::raft::{AppendEntriesRequest, InstallSnapshotRequest, VoteRequest};

use super::codec;
use super::types::TypeConfig;
use super::AppStateMachine;
use crate::state::ClusterState;

/// The first byte picks the decoder; the rest is its input (for the segment loader, see
/// [`super::log_files::fuzz::fuzz_segment`]).
pub fn fuzz_raft_codec(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which % 8 {
        0 => {
            if let Ok(entry) = codec::decode_entry::<ClusterState>(rest) {
                // A record that decodes encodes again to one with the same log id.
                let bytes = codec::encode_entry::<ClusterState>(&entry)
                    .unwrap_or_else(|e| panic!("a decoded entry does not encode: {e}"));
                let id = codec::decode_entry_log_id(&bytes)
                    .unwrap_or_else(|e| panic!("a re-encoded entry has no log id: {e}"));
                assert_eq!(
                    id, entry.log_id,
                    "the log id changed through encode and decode"
                );
            }
            let _ = codec::decode_entry_log_id(rest);
        }
        1 => {
            let _ = codec::decode_vote(rest);
            let _ = codec::decode_log_id(rest);
        }
        2 => {
            if let Ok(meta) = codec::decode_snapshot_meta(rest) {
                let _ = codec::encode_snapshot_meta(&meta);
            }
        }
        3 => {
            if let Ok((_, app)) = codec::unwrap_snapshot_data(rest) {
                let _ = ClusterState::new().restore(app);
            }
        }
        4 => {
            let _ = serde_json::from_slice::<AppendEntriesRequest<TypeConfig<ClusterState>>>(rest);
            let _ = serde_json::from_slice::<VoteRequest<u64>>(rest);
            let _ =
                serde_json::from_slice::<InstallSnapshotRequest<TypeConfig<ClusterState>>>(rest);
        }
        _ => super::log_files::fuzz::fuzz_segment(rest),
    }
}
