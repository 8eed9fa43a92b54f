//! On-disk formats of the replicated log: log entries, vote, log ids and snapshots.
//!
//! Every persisted value starts with a one-byte format version followed by JSON. The record
//! structs here are our own rather than openraft's serde derives, so that an openraft upgrade
//! cannot silently change what is on disk. Formats are append-only: a new layout gets a new
//! version number and a new decoder arm; old versions stay readable.

use std::collections::{BTreeMap, BTreeSet};

use openraft::{
    CommittedLeaderId, Entry, EntryPayload, LogId, Membership, SnapshotMeta, StoredMembership, Vote,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::error::StoreError;
use super::types::{ControllerNode, TypeConfig};
use super::AppStateMachine;

/// Version of the log entry record.
pub(crate) const ENTRY_V1: u8 = 1;
/// Version of the small metadata records (vote, committed, purged log ids).
pub(crate) const META_V1: u8 = 1;
/// Version of the snapshot metadata record.
pub(crate) const SNAPSHOT_META_V1: u8 = 1;
/// Version of the envelope around the application's snapshot bytes.
pub(crate) const SNAPSHOT_DATA_V1: u8 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct LogIdV1 {
    term: u64,
    node: u64,
    index: u64,
}

impl From<&LogId<u64>> for LogIdV1 {
    fn from(id: &LogId<u64>) -> Self {
        Self {
            term: id.leader_id.term,
            node: id.leader_id.node_id,
            index: id.index,
        }
    }
}

impl From<LogIdV1> for LogId<u64> {
    fn from(id: LogIdV1) -> Self {
        LogId::new(CommittedLeaderId::new(id.term, id.node), id.index)
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct VoteV1 {
    term: u64,
    node: u64,
    committed: bool,
}

#[derive(Debug, Serialize, Deserialize)]
struct MembershipV1 {
    configs: Vec<BTreeSet<u64>>,
    /// node id -> address
    nodes: BTreeMap<u64, String>,
    /// node id -> name, for controllers added by name (`spur admin controller add`); absent in older records.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    names: BTreeMap<u64, String>,
}

impl From<&Membership<u64, ControllerNode>> for MembershipV1 {
    fn from(m: &Membership<u64, ControllerNode>) -> Self {
        Self {
            configs: m.get_joint_config().clone(),
            nodes: m.nodes().map(|(id, n)| (*id, n.addr.clone())).collect(),
            names: m
                .nodes()
                .filter(|(_, n)| !n.name.is_empty())
                .map(|(id, n)| (*id, n.name.clone()))
                .collect(),
        }
    }
}

impl From<MembershipV1> for Membership<u64, ControllerNode> {
    fn from(mut m: MembershipV1) -> Self {
        let nodes: BTreeMap<u64, ControllerNode> = m
            .nodes
            .into_iter()
            .map(|(id, addr)| {
                let name = m.names.remove(&id).unwrap_or_default();
                (id, ControllerNode::named(name, addr))
            })
            .collect();
        Membership::new(m.configs, nodes)
    }
}

/// `C` is the application payload of a normal entry: the list of commands written together.
#[derive(Debug, Serialize, Deserialize)]
enum PayloadV1<C> {
    Blank,
    Normal(C),
    Membership(MembershipV1),
}

#[derive(Debug, Serialize, Deserialize)]
struct EntryV1<C> {
    log_id: LogIdV1,
    payload: PayloadV1<C>,
}

/// Only the log id of an entry: lets the store find the last log id without decoding commands.
#[derive(Debug, Deserialize)]
struct EntryHeaderV1 {
    log_id: LogIdV1,
}

#[derive(Debug, Serialize, Deserialize)]
struct SnapshotMetaV1 {
    last_log_id: Option<LogIdV1>,
    membership_log_id: Option<LogIdV1>,
    membership: MembershipV1,
    snapshot_id: String,
}

fn encode<T: Serialize>(version: u8, value: &T, what: &'static str) -> Result<Vec<u8>, StoreError> {
    let mut out = vec![version];
    serde_json::to_writer(&mut out, value).map_err(|e| StoreError::corrupt(what, e))?;
    Ok(out)
}

fn decode<T: DeserializeOwned>(
    bytes: &[u8],
    supported: u8,
    what: &'static str,
) -> Result<T, StoreError> {
    let body = check_version(bytes, supported, what)?;
    serde_json::from_slice(body).map_err(|e| StoreError::corrupt(what, e))
}

fn check_version<'a>(
    bytes: &'a [u8],
    supported: u8,
    what: &'static str,
) -> Result<&'a [u8], StoreError> {
    match bytes.split_first() {
        None => Err(StoreError::corrupt(what, "empty record")),
        Some((&v, body)) if v == supported => Ok(body),
        Some((&found, _)) => Err(StoreError::UnsupportedVersion {
            what,
            found,
            supported,
        }),
    }
}

pub(crate) fn encode_entry<A: AppStateMachine>(
    entry: &Entry<TypeConfig<A>>,
) -> Result<Vec<u8>, StoreError> {
    let payload = match &entry.payload {
        EntryPayload::Blank => PayloadV1::Blank,
        EntryPayload::Normal(cmd) => PayloadV1::Normal(cmd),
        EntryPayload::Membership(m) => PayloadV1::Membership(m.into()),
    };
    let record = EntryV1 {
        log_id: (&entry.log_id).into(),
        payload,
    };
    encode(ENTRY_V1, &record, "log entry")
}

pub(crate) fn decode_entry<A: AppStateMachine>(
    bytes: &[u8],
) -> Result<Entry<TypeConfig<A>>, StoreError> {
    let record: EntryV1<Vec<A::Command>> = decode(bytes, ENTRY_V1, "log entry")?;
    let payload = match record.payload {
        PayloadV1::Blank => EntryPayload::Blank,
        PayloadV1::Normal(cmd) => EntryPayload::Normal(cmd),
        PayloadV1::Membership(m) => EntryPayload::Membership(m.into()),
    };
    Ok(Entry {
        log_id: record.log_id.into(),
        payload,
    })
}

pub(crate) fn decode_entry_log_id(bytes: &[u8]) -> Result<LogId<u64>, StoreError> {
    let header: EntryHeaderV1 = decode(bytes, ENTRY_V1, "log entry")?;
    Ok(header.log_id.into())
}

pub(crate) fn encode_vote(vote: &Vote<u64>) -> Result<Vec<u8>, StoreError> {
    let record = VoteV1 {
        term: vote.leader_id.term,
        node: vote.leader_id.node_id,
        committed: vote.committed,
    };
    encode(META_V1, &record, "vote")
}

pub(crate) fn decode_vote(bytes: &[u8]) -> Result<Vote<u64>, StoreError> {
    let record: VoteV1 = decode(bytes, META_V1, "vote")?;
    Ok(if record.committed {
        Vote::new_committed(record.term, record.node)
    } else {
        Vote::new(record.term, record.node)
    })
}

pub(crate) fn encode_log_id(id: Option<&LogId<u64>>) -> Result<Vec<u8>, StoreError> {
    encode(META_V1, &id.map(LogIdV1::from), "log id")
}

pub(crate) fn decode_log_id(bytes: &[u8]) -> Result<Option<LogId<u64>>, StoreError> {
    let record: Option<LogIdV1> = decode(bytes, META_V1, "log id")?;
    Ok(record.map(Into::into))
}

pub(crate) fn encode_snapshot_meta(
    meta: &SnapshotMeta<u64, ControllerNode>,
) -> Result<Vec<u8>, StoreError> {
    let record = SnapshotMetaV1 {
        last_log_id: meta.last_log_id.as_ref().map(Into::into),
        membership_log_id: meta.last_membership.log_id().as_ref().map(Into::into),
        membership: meta.last_membership.membership().into(),
        snapshot_id: meta.snapshot_id.clone(),
    };
    encode(SNAPSHOT_META_V1, &record, "snapshot metadata")
}

pub(crate) fn decode_snapshot_meta(
    bytes: &[u8],
) -> Result<SnapshotMeta<u64, ControllerNode>, StoreError> {
    let record: SnapshotMetaV1 = decode(bytes, SNAPSHOT_META_V1, "snapshot metadata")?;
    Ok(SnapshotMeta {
        last_log_id: record.last_log_id.map(Into::into),
        last_membership: StoredMembership::new(
            record.membership_log_id.map(Into::into),
            record.membership.into(),
        ),
        snapshot_id: record.snapshot_id,
    })
}

/// Wraps the application's snapshot bytes in the versioned envelope that travels between nodes,
/// together with the state machine's own counter: `[version][next_seq: u64 LE][app bytes]`.
pub(crate) fn wrap_snapshot_data(next_seq: u64, app_bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(app_bytes.len() + 9);
    out.push(SNAPSHOT_DATA_V1);
    out.extend_from_slice(&next_seq.to_le_bytes());
    out.extend_from_slice(app_bytes);
    out
}

/// `next_seq` and the application's bytes inside a snapshot envelope.
pub(crate) fn unwrap_snapshot_data(bytes: &[u8]) -> Result<(u64, &[u8]), StoreError> {
    let body = check_version(bytes, SNAPSHOT_DATA_V1, "snapshot data")?;
    let (seq, app) = body
        .split_first_chunk::<8>()
        .ok_or_else(|| StoreError::corrupt("snapshot data", "truncated header"))?;
    Ok((u64::from_le_bytes(*seq), app))
}

#[cfg(test)]
mod tests;
