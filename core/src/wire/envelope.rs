//! The gRPC envelope: generated tonic/prost code and the conversion between spur-core documents and `Doc`.

#[allow(clippy::all, missing_docs)]
pub mod pb {
    tonic::include_proto!("spur.v1");
}

use serde::{de::DeserializeOwned, Serialize};

/// The version of the JSON documents this build writes; readers accept this and older.
pub const DOC_VERSION: u32 = 1;

/// Fingerprint of this build's job model (every source file of spur-core, see build.rs). A packed document is
/// positional, so it is only ever exchanged between builds whose fingerprints are equal.
pub const MODEL_SCHEMA: &str = env!("SPUR_MODEL_SCHEMA");

/// Largest reply a client accepts: a listing of 100,000 jobs is tens of MB, far over tonic's 4 MiB default.
pub const MAX_REPLY_BYTES: usize = 1 << 30;
/// Largest request the controller accepts from a client (frames and the gRPC `Controller` service): a batch
/// script at Slurm's `max_script_size` default (4 MiB) is at most about 5 MiB once JSON escapes its quotes,
/// backslashes and tabs, and its environment (bounded by the kernel's ARG_MAX, 2 MiB, when sbatch inherited it)
/// about as much again; 16 MiB leaves room for both and more. Anything bigger is refused before it is buffered.
pub const MAX_REQUEST_BYTES: usize = 16 << 20;
/// Largest request frame read before its sender is proved (over TCP): a bigger frame must carry a credential
/// that names a real user, checked from the frame's first bytes, before the rest is read. Real calls are a few
/// KiB (measured: sbatch of a 1,000-line, 80 KB script sends an 84 KB frame); only a huge script needs more.
pub const UNAUTHENTICATED_FRAME_BYTES: usize = 1 << 20;
/// Largest credential a request frame carries: MUNGE credentials are about 200 bytes here (munge's own cap in
/// `spur_auth` is 64 KiB), auth/jwt tokens at most 16 KiB.
pub const MAX_CREDENTIAL_BYTES: usize = 64 << 10;
/// Largest message a node agent sends (its Hello lists its running jobs, a few bytes each; reports are small):
/// read only after the session's headers proved a MUNGE credential of root or SlurmUser.
pub const MAX_AGENT_MESSAGE_BYTES: usize = 16 << 20;
/// Largest call between controllers (raft appends of up to 4 entries of up to 64 commands, each command as
/// big as a request; snapshot chunks of 1 MiB, about 4 MiB as JSON): read only after the call's headers proved
/// a MUNGE credential of root or SlurmUser.
pub const MAX_PEER_BYTES: usize = 256 << 20;
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
    #[error("{kind} document packed by another build of the job model ({schema})")]
    ForeignPacked { kind: &'static str, schema: String },
    #[error("malformed packed {kind} document: {source}")]
    MalformedPacked {
        kind: &'static str,
        source: postcard::Error,
    },
    #[error("cannot pack {kind} document: {source}")]
    Pack {
        kind: &'static str,
        source: postcard::Error,
    },
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
    Ok(doc_of::<T>(json, String::new()))
}

fn doc_of<T: DocKind>(bytes: Vec<u8>, packed_schema: String) -> pb::Doc {
    pb::Doc {
        kind: T::KIND.to_string(),
        version: DOC_VERSION,
        json: bytes,
        packed_schema,
    }
}

/// `value` in the packed encoding when the reader announced this build's model (`accept_packed_schema`), else
/// as JSON. Packing a listing of 100,000 jobs takes a fraction of the bytes and time JSON does.
pub fn to_doc_for<T: Serialize + DocKind>(
    value: &T,
    accept_packed_schema: &str,
) -> Result<pb::Doc, WireError> {
    to_doc_for_reserving(value, accept_packed_schema, 0)
}

/// [`to_doc_for`], packing into a buffer of `capacity` bytes reserved up front (an estimate: a big listing grows
/// its buffer in place of copying it at every doubling; more is used if needed).
pub fn to_doc_for_reserving<T: Serialize + DocKind>(
    value: &T,
    accept_packed_schema: &str,
    capacity: usize,
) -> Result<pb::Doc, WireError> {
    if accept_packed_schema != MODEL_SCHEMA {
        return to_doc(value);
    }
    let packed = crate::wire::listing::pack(value, capacity).map_err(|source| WireError::Pack {
        kind: T::KIND,
        source,
    })?;
    Ok(doc_of::<T>(packed, MODEL_SCHEMA.to_string()))
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
    if !doc.packed_schema.is_empty() {
        if doc.packed_schema != MODEL_SCHEMA {
            return Err(WireError::ForeignPacked {
                kind: T::KIND,
                schema: doc.packed_schema.clone(),
            });
        }
        return postcard::from_bytes(&doc.json).map_err(|source| WireError::MalformedPacked {
            kind: T::KIND,
            source,
        });
    }
    serde_json::from_slice(&doc.json).map_err(|source| WireError::Malformed {
        kind: T::KIND,
        source,
    })
}

/// The kind of a [`crate::wire::listing_rows::JobRows`] document (rows of a job listing, always packed).
pub const JOB_ROWS_KIND: &str = "JobRows";

/// A job listing's rows as a document ([`crate::wire::listing_rows::RowWriter::finish`]'s bytes).
pub fn rows_doc(bytes: Vec<u8>) -> pb::Doc {
    pb::Doc {
        kind: JOB_ROWS_KIND.to_string(),
        version: DOC_VERSION,
        json: bytes,
        packed_schema: MODEL_SCHEMA.to_string(),
    }
}

/// A listing's reply document: rows, or anything else (a [`crate::wire::api::JobList`] from a controller that sent
/// records instead), left for [`from_doc`].
#[derive(Debug)]
pub enum ListingDoc {
    /// The bytes for [`crate::wire::listing_rows::Rows::parse`].
    Rows(Vec<u8>),
    Other(Option<pb::Doc>),
}

/// Tells rows from other replies; rows packed by another build of the model are refused.
pub fn listing_doc(doc: Option<pb::Doc>) -> Result<ListingDoc, WireError> {
    let doc = match doc {
        Some(doc) if doc.kind == JOB_ROWS_KIND => doc,
        other => return Ok(ListingDoc::Other(other)),
    };
    if doc.version > DOC_VERSION {
        return Err(WireError::TooNew(doc.version));
    }
    if doc.packed_schema != MODEL_SCHEMA {
        return Err(WireError::ForeignPacked {
            kind: JOB_ROWS_KIND,
            schema: doc.packed_schema,
        });
    }
    Ok(ListingDoc::Rows(doc.json))
}

macro_rules! doc_kinds {
    ($($ty:ty => $name:literal),* $(,)?) => {
        $(impl DocKind for $ty { const KIND: &'static str = $name; })*
    };
}

doc_kinds! {
    crate::wire::api::SubmitRequest => "SubmitRequest",
    crate::wire::api::SubmitReply => "SubmitReply",
    crate::wire::api::Query => "Query",
    crate::wire::api::QueryReply => "QueryReply",
    crate::wire::api::ControlRequest => "ControlRequest",
    crate::wire::api::ControlReply => "ControlReply",
    crate::wire::api::ApiError => "ApiError",
    crate::wire::api::JobList => "JobList",
    crate::wire::listing::JobListRef<'_> => "JobList",
    crate::wire::agent_proto::AgentToController => "AgentToController",
    crate::wire::agent_proto::ControllerToAgent => "ControllerToAgent",
    crate::model::controllers::ControllerChange => "ControllerChange",
    crate::model::controllers::ControllerList => "ControllerList",
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::api::{JobListing, Query};

    #[test]
    fn packed_only_for_a_reader_of_the_same_model() {
        let query = Query::JobListing(JobListing {
            job_ids: Some(vec![3, 5]),
            whole_records: true,
            fields: Some(vec!["spec.name".into()]),
            live_only: true,
        });
        let packed = to_doc_for(&query, MODEL_SCHEMA).expect("pack");
        assert_eq!(packed.packed_schema, MODEL_SCHEMA);
        assert_eq!(from_doc::<Query>(Some(&packed)).expect("unpack"), query);

        let json = to_doc_for(&query, "0.1.0-another-build").expect("encode");
        assert!(json.packed_schema.is_empty());
        assert_eq!(from_doc::<Query>(Some(&json)).expect("read"), query);
        assert_eq!(to_doc_for(&query, "").expect("encode").json, json.json);
    }

    #[test]
    fn a_document_packed_by_another_build_is_refused() {
        let mut doc = to_doc_for(&Query::Jobs, MODEL_SCHEMA).expect("pack");
        doc.packed_schema = "0.1.0-0123456789abcdef".into();
        assert!(matches!(
            from_doc::<Query>(Some(&doc)),
            Err(WireError::ForeignPacked { .. })
        ));
    }
}
