//! The pure half of authentication: who a verified caller is, how a credential is bound to the one request it
//! was made for, HS256 JWTs, the replay cache, and the rules that say which identity may do what. Creating and
//! decoding MUNGE credentials needs munged and lives in the `spur-auth` crate; everything here takes the clock
//! and the key as arguments.

pub mod binding;
pub mod jwt;
pub mod params;
pub mod replay;
pub mod rules;

use serde::{Deserialize, Serialize};

/// How an identity was established.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AuthMethod {
    /// A MUNGE credential decoded by munged.
    Munge,
    /// An HS256 JWT signed with the cluster's `jwt_key`.
    Jwt,
    /// The kernel's SO_PEERCRED on the controller's own Unix socket.
    PeerCred,
}

/// A caller whose uid and gid come from a verified credential, never from a request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    pub uid: u32,
    pub gid: u32,
    pub method: AuthMethod,
}

/// gRPC metadata keys carrying credentials; the proto bodies stay unchanged.
pub const MUNGE_HEADER: &str = "x-spur-munge";
pub const JWT_HEADER: &str = "x-spur-jwt";
