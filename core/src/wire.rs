//! The gRPC envelope: generated tonic/prost code and the conversion between spur-core documents and `Doc`.

#[allow(clippy::all, missing_docs)]
pub mod pb {
    tonic::include_proto!("spur.v1");
}

use serde::{de::DeserializeOwned, Serialize};

/// The version of the JSON documents this build writes; readers accept this and older.
pub const DOC_VERSION: u32 = 1;

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
