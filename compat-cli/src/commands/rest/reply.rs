//! What an endpoint answers: an HTTP status and a body, with the v0.0.38 error entries slurmrestd writes when a
//! controller call fails.

use spur_core::format::json::{with_errors, Json};

use spur_core::wire::api::SlurmErrno;

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
        Reply::with_status(status, errors, rest)
    }

    /// A v0.0.38 document with a status of its own (slurmrestd answers some failures with 200 or 400).
    pub fn with_status(status: u16, errors: Vec<Json>, rest: Vec<(&str, Json)>) -> Reply {
        Reply {
            status,
            content_type: JSON,
            body: with_errors(errors, rest).to_pretty(),
        }
    }

    /// A body that is not JSON.
    pub fn unparsable() -> Reply {
        Reply {
            status: 400,
            content_type: TEXT,
            body: "Unable to parse query.".into(),
        }
    }

    /// A known path asked with a method it does not have.
    pub fn method_not_allowed() -> Reply {
        Reply {
            status: 405,
            content_type: TEXT,
            body: "Requested REST method is not defined at URL. Please view /openapi/v3 for API reference."
                .into(),
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
        // A refused credential: libslurm loses the errno on the way back, and slurmrestd reports -1.
        ClientError::Api(e) if e.errno == SlurmErrno::ZeroBytes => (-1, "Unspecified error".into()),
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

/// `{"error": text, "errno": number}`: how the node, partition and reservation listings report a failure.
pub fn errno_entry(error: &ClientError) -> Json {
    let (number, text) = errno_of(error);
    Json::obj(vec![
        ("error", Json::Str(text)),
        ("errno", Json::Int(number)),
    ])
}

/// `{"error_code": number, "error": text}`: how job submission reports a failure.
pub fn code_entry(code: i64, text: &str) -> Json {
    Json::obj(vec![
        ("error_code", Json::Int(code)),
        ("error", Json::str(text)),
    ])
}

/// An API error of `errno`, as a controller call would have failed.
pub fn api_error(errno: SlurmErrno) -> ClientError {
    ClientError::Api(spur_core::wire::api::ApiError::new(errno))
}

/// The common shape of a listing that failed: the error, and the listing's key with nothing in it.
pub fn failed_listing(key: &str, error: Json) -> Reply {
    Reply::document(vec![error], vec![(key, Json::Arr(Vec::new()))])
}
