//! What an endpoint answers: an HTTP status and a body, with the v0.0.38 error entries slurmrestd writes when a
//! controller call fails.

use spur_core::format::json::{with_errors, Json};

use crate::client::ClientError;

#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
}

pub const JSON: &str = "application/json";
const TEXT: &str = "text/plain";

impl Reply {
    /// A v0.0.38 document: 200 without errors, 500 (as slurmrestd answers any failed call) with some.
    pub fn document(errors: Vec<Json>, rest: Vec<(&str, Json)>) -> Reply {
        let status = if errors.is_empty() { 200 } else { 500 };
        Reply {
            status,
            content_type: JSON,
            body: with_errors(errors, rest).to_pretty(),
        }
    }

    pub fn not_found() -> Reply {
        Reply {
            status: 404,
            content_type: TEXT,
            body: "Unable find requested URL. Please view /openapi/v3 for API reference.".into(),
        }
    }

    pub fn unauthorized() -> Reply {
        Reply {
            status: 401,
            content_type: TEXT,
            body: "Authentication failure".into(),
        }
    }
}

/// Slurm's errno and its text for a failed controller call.
pub fn errno_of(error: &ClientError) -> (i64, String) {
    match error {
        ClientError::Api(e) => (e.errno.code().into(), e.errno.text().to_string()),
        // SLURM_COMMUNICATIONS_CONNECTION_ERROR, SLURM_UNEXPECTED_MSG_ERROR, SLURM_PROTOCOL_AUTHENTICATION_ERROR.
        ClientError::Unreachable(_) => (1001, error.to_string()),
        ClientError::Protocol(_) => (1000, "Unexpected message received".into()),
        ClientError::Auth(_) => (1007, "Protocol authentication error".into()),
    }
}

/// One `errors[]` entry for a failed call of the libslurm function `source`.
pub fn error_entry(error: &ClientError, description: &str, source: &str) -> Json {
    let (number, text) = errno_of(error);
    let description = match error {
        ClientError::Api(e) => e.detail.clone().unwrap_or_else(|| description.to_string()),
        _ => description.to_string(),
    };
    entry(&description, number, &text, source)
}

pub fn entry(description: &str, number: i64, text: &str, source: &str) -> Json {
    Json::obj(vec![
        ("description", Json::str(description)),
        ("error_number", Json::Int(number)),
        ("error", Json::str(text)),
        ("source", Json::str(source)),
    ])
}

/// The common shape of a listing that failed: the error, and the listing's key with nothing in it.
pub fn failed_listing(key: &str, error: Json) -> Reply {
    Reply::document(vec![error], vec![(key, Json::Arr(Vec::new()))])
}
