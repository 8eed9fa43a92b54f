//! A toy key-value application used by the unit tests of this module.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::AppStateMachine;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum KvCmd {
    Set { key: String, value: u64 },
}

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct KvApp {
    pub(crate) map: BTreeMap<String, u64>,
    pub(crate) last_seq: u64,
}

#[derive(Debug, thiserror::Error)]
#[error("kv snapshot: {0}")]
pub(crate) struct KvError(String);

const KV_SNAPSHOT_V1: u8 = 1;

impl AppStateMachine for KvApp {
    type Command = KvCmd;
    /// The sequence number the command was applied with.
    type Response = u64;
    type Error = KvError;

    fn apply(&mut self, seq: u64, cmd: KvCmd) -> u64 {
        match cmd {
            KvCmd::Set { key, value } => {
                self.map.insert(key, value);
            }
        }
        self.last_seq = seq;
        seq
    }

    fn snapshot(&self) -> Result<Vec<u8>, KvError> {
        let mut out = vec![KV_SNAPSHOT_V1];
        serde_json::to_writer(&mut out, self).map_err(|e| KvError(e.to_string()))?;
        Ok(out)
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), KvError> {
        match bytes.split_first() {
            Some((&KV_SNAPSHOT_V1, body)) => {
                *self = serde_json::from_slice(body).map_err(|e| KvError(e.to_string()))?;
                Ok(())
            }
            _ => Err(KvError("unknown snapshot version".into())),
        }
    }
}

pub(crate) fn set(key: &str, value: u64) -> KvCmd {
    KvCmd::Set {
        key: key.into(),
        value,
    }
}
