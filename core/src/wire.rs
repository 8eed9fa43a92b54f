//! The gRPC envelope: generated tonic/prost code and the conversion between spur-core documents and `Doc`.

#[allow(clippy::all, missing_docs)]
pub mod pb {
    tonic::include_proto!("spur.v1");
}

use serde::{de::DeserializeOwned, Serialize};

/// The version of the JSON documents this build writes; readers accept this and older.
pub const DOC_VERSION: u32 = 1;

/// Largest reply a client accepts: a listing of 100,000 jobs is tens of MB, far over tonic's 4 MiB default.
pub const MAX_REPLY_BYTES: usize = 1 << 30;
/// Largest request the controller accepts: a batch script (Slurm's `max_script_size` default is 4 MiB) with its
/// environment fits many times over; anything bigger is refused before it is buffered whole.
pub const MAX_REQUEST_BYTES: usize = 64 << 20;
/// HTTP/2 flow-control window both ends advertise. h2's default (64 KiB) makes a listing of a big queue take one
/// round trip per 64 KiB (squeue with 10,000 jobs spent most of its time waiting for window updates).
pub const HTTP2_WINDOW_BYTES: u32 = 8 << 20;

#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("expected a {expected} document, got {got}")]
    WrongKind { expected: &'static str, got: String },
    #[error("document version {0} is newer than this build understands")]
    TooNew(u32),
    #[error("malformed {kind} document: {source}")]
    Malformed {
        kind: &'static str,
        source: serde_json::Error,
    },
    #[error("cannot encode {kind} document: {source}")]
    Encode {
        kind: &'static str,
        source: serde_json::Error,
    },
    #[error("missing document")]
    Missing,
}

/// Names the Rust type a document holds, so a receiver can refuse a mismatch instead of misreading it.
pub trait DocKind {
    const KIND: &'static str;
}

pub fn to_doc<T: Serialize + DocKind>(value: &T) -> Result<pb::Doc, WireError> {
    let json = serde_json::to_vec(value).map_err(|source| WireError::Encode {
        kind: T::KIND,
        source,
    })?;
    Ok(pb::Doc {
        kind: T::KIND.to_string(),
        version: DOC_VERSION,
        json,
    })
}

pub fn from_doc<T: DeserializeOwned + DocKind>(doc: Option<&pb::Doc>) -> Result<T, WireError> {
    let doc = doc.ok_or(WireError::Missing)?;
    if doc.kind != T::KIND {
        return Err(WireError::WrongKind {
            expected: T::KIND,
            got: doc.kind.clone(),
        });
    }
    if doc.version > DOC_VERSION {
        return Err(WireError::TooNew(doc.version));
    }
    serde_json::from_slice(&doc.json).map_err(|source| WireError::Malformed {
        kind: T::KIND,
        source,
    })
}

macro_rules! doc_kinds {
    ($($ty:path => $name:literal),* $(,)?) => {
        $(impl DocKind for $ty { const KIND: &'static str = $name; })*
    };
}

doc_kinds! {
    crate::api::SubmitRequest => "SubmitRequest",
    crate::api::SubmitReply => "SubmitReply",
    crate::api::Query => "Query",
    crate::api::QueryReply => "QueryReply",
    crate::api::ControlRequest => "ControlRequest",
    crate::api::ControlReply => "ControlReply",
    crate::api::ApiError => "ApiError",
    crate::agent_proto::AgentToController => "AgentToController",
    crate::agent_proto::ControllerToAgent => "ControllerToAgent",
}
