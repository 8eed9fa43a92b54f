//! A toy key-value application for the replicated-state integration tests.

// Each test binary uses a different part of this module.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use spur_controller::raft::{AppStateMachine, RaftConfig};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cmd {
    Set { key: String, value: u64 },
    Incr,
}

#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kv {
    pub map: BTreeMap<String, u64>,
    pub counter: u64,
    pub last_seq: u64,
    /// Not part of the state: set when the state came from a snapshot.
    #[serde(skip)]
    pub restored: bool,
}

impl Kv {
    /// The replicated part, for comparing states across restarts.
    pub fn state(&self) -> (BTreeMap<String, u64>, u64, u64) {
        (self.map.clone(), self.counter, self.last_seq)
    }
}

#[derive(Debug, thiserror::Error)]
#[error("kv snapshot: {0}")]
pub struct KvError(String);

const KV_V1: u8 = 1;

impl AppStateMachine for Kv {
    type Command = Cmd;
    type Response = u64;
    type Error = KvError;

    fn apply(&mut self, seq: u64, cmd: Cmd) -> u64 {
        match cmd {
            Cmd::Set { key, value } => {
                self.map.insert(key, value);
            }
            Cmd::Incr => self.counter += 1,
        }
        self.last_seq = seq;
        seq
    }

    fn snapshot(&self) -> Result<Vec<u8>, KvError> {
        let mut out = vec![KV_V1];
        serde_json::to_writer(&mut out, self).map_err(|e| KvError(e.to_string()))?;
        Ok(out)
    }

    fn restore(&mut self, bytes: &[u8]) -> Result<(), KvError> {
        let Some((&KV_V1, body)) = bytes.split_first() else {
            return Err(KvError("unknown version".into()));
        };
        *self = serde_json::from_slice(body).map_err(|e| KvError(e.to_string()))?;
        self.restored = true;
        Ok(())
    }
}

pub fn set(key: impl Into<String>, value: u64) -> Cmd {
    Cmd::Set {
        key: key.into(),
        value,
    }
}

pub fn config() -> RaftConfig {
    RaftConfig {
        startup_timeout: Duration::from_secs(10),
        ..RaftConfig::default()
    }
}
