//! gRPC front: the client API (`Controller` service), the agents' sessions (`AgentLink`) and the other
//! controllers' calls (`RaftPeer`); the client API also in plain frames, on the same port and local socket
//! (`connections`). Requests are decoded
//! into spur-core documents, turned into commands, committed, and answered with Slurm's errno on failure.

mod access;
mod agent_link;
mod api;
mod auth;
pub mod connections;
mod peer_name;
mod raft_peer;

pub use agent_link::AgentLinkService;
pub use api::ApiService;
pub use auth::{Authenticator, DaemonGate};
pub use raft_peer::RaftPeerService;

use spur_core::wire::api::{ApiError, SlurmErrno};
use spur_core::wire::{pb, to_doc, DocKind};

/// Builds a reply carrying either a document or a Slurm error.
pub(crate) fn reply<T: serde::Serialize + DocKind>(result: Result<T, ApiError>) -> pb::ApiReply {
    match result.and_then(|body| {
        to_doc(&body).map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()))
    }) {
        Ok(doc) => pb::ApiReply {
            error_code: 0,
            message: String::new(),
            body: Some(doc),
            ..Default::default()
        },
        Err(error) => error_reply(&error),
    }
}

pub(crate) fn error_reply(error: &ApiError) -> pb::ApiReply {
    pb::ApiReply {
        error_code: error.errno.code(),
        message: error.errno.text().to_string(),
        body: to_doc(error).ok(),
        ..Default::default()
    }
}
