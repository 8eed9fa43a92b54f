//! The openraft type configuration, generic over the application state machine.
//!
//! openraft wants one concrete `RaftTypeConfig` per application; making it a zero-sized generic
//! struct lets every `AppStateMachine` get its own, with the command and response types checked
//! at compile time rather than passed around as opaque bytes.

use std::cmp::Ordering;
use std::fmt;
use std::io::Cursor;
use std::marker::PhantomData;

use openraft::raft::responder::OneshotResponder;
use openraft::{Entry, RaftTypeConfig, TokioRuntime};
use serde::{Deserialize, Serialize};

use super::AppStateMachine;

/// Raft node ids. Controllers are numbered by the operator.
pub type NodeId = u64;

/// A controller as the Raft membership records it: where peers reach it and, for a controller added with
/// `spur admin controller add` (not a `SlurmctldHost` line), the name it was added under. The name travels in
/// membership log entries and snapshots, so every controller can list and remove the group's members by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerNode {
    pub addr: String,
    /// Empty for members recorded before names were kept (their `SlurmctldHost` position names them).
    #[serde(default)]
    pub name: String,
}

impl ControllerNode {
    pub fn new(addr: impl Into<String>) -> Self {
        ControllerNode {
            addr: addr.into(),
            name: String::new(),
        }
    }

    pub fn named(name: impl Into<String>, addr: impl Into<String>) -> Self {
        ControllerNode {
            addr: addr.into(),
            name: name.into(),
        }
    }
}

impl fmt::Display for ControllerNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.name.is_empty() {
            f.write_str(&self.addr)
        } else {
            write!(f, "{}({})", self.name, self.addr)
        }
    }
}

/// openraft type configuration for application `A`.
///
/// The trait impls below are written by hand because derives would needlessly require `A`
/// itself to be `Copy`, `Ord`, and so on; the struct holds no `A`.
pub struct TypeConfig<A>(PhantomData<fn() -> A>);

impl<A> fmt::Debug for TypeConfig<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TypeConfig")
    }
}

impl<A> Clone for TypeConfig<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for TypeConfig<A> {}

impl<A> Default for TypeConfig<A> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

impl<A> PartialEq for TypeConfig<A> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl<A> Eq for TypeConfig<A> {}

impl<A> PartialOrd for TypeConfig<A> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<A> Ord for TypeConfig<A> {
    fn cmp(&self, _: &Self) -> Ordering {
        Ordering::Equal
    }
}

impl<A: AppStateMachine> RaftTypeConfig for TypeConfig<A> {
    /// Concurrent writes are grouped into one entry: see `ReplicatedState::write`.
    type D = Vec<A::Command>;
    type R = Vec<A::Response>;
    type NodeId = NodeId;
    type Node = ControllerNode;
    type Entry = Entry<Self>;
    type SnapshotData = Cursor<Vec<u8>>;
    type AsyncRuntime = TokioRuntime;
    type Responder = OneshotResponder<Self>;
}
