//! The daemons' side: turn a request's transport and metadata into a verified [`Identity`], or refuse it.
//!
//! Order of trust: the controller's own Unix socket (SO_PEERCRED, filled in by the kernel) wins; over TCP only a
//! MUNGE credential (decoded by munged, bound to this request, never seen before) or an HS256 JWT signed with the
//! cluster key is accepted. A uid in the request body is never consulted.

use std::sync::Mutex;

use spur_core::auth::jwt::{self, JwtError};
use spur_core::auth::replay::{ReplayCache, ReplayError, REPLAY_ENTRIES_MAX};
use spur_core::auth::{binding, AuthMethod, Identity, JWT_HEADER, MUNGE_HEADER};
use spur_core::wire::frames::Credential;
use spur_core::wire::pb;
use tonic::metadata::MetadataMap;
use tonic::transport::server::UdsConnectInfo;

use crate::munge::{self, MungeError};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    #[error("no credential")]
    Missing,
    #[error("credential header is not text")]
    NotText,
    #[error("munge: {0}")]
    Munge(#[from] MungeError),
    #[error("credential was made for another request")]
    Binding,
    #[error("{0}")]
    Replay(#[from] ReplayError),
    #[error("auth/munge is not enabled (AuthType)")]
    MungeDisabled,
    #[error("auth/jwt is not enabled (AuthAltTypes/AuthAltParameters=jwt_key=)")]
    JwtDisabled,
    #[error("jwt: {0}")]
    Jwt(#[from] JwtError),
    #[error("jwt: unknown user {0}")]
    UnknownUser(String),
    #[error("daemons authenticate with MUNGE only (auth/jwt is for users)")]
    DaemonJwt,
    #[error("this call is not taken on the local socket")]
    LocalNotAllowed,
}

#[derive(Debug, Clone, Default)]
pub struct VerifierSettings {
    /// munged's socket where `AuthType=auth/munge`.
    pub munge_socket: Option<String>,
    /// The HS256 key where `AuthAltTypes=auth/jwt`.
    pub jwt_key: Option<Vec<u8>>,
}

/// A credential whose sender is known but which is not yet tied to a request ([`Verifier::open_credential`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenedCredential {
    Munge {
        /// The replay cache's name for the credential.
        key: [u8; 32],
        decoded: munge::Decoded,
    },
    Jwt(Identity),
    /// The kernel's peer credentials on the local socket: nothing to bind.
    Kernel(Identity),
}

impl OpenedCredential {
    /// The uid the credential names (not yet proved to be this request's sender for MUNGE).
    pub fn uid(&self) -> u32 {
        match self {
            OpenedCredential::Munge { decoded, .. } => decoded.uid,
            OpenedCredential::Jwt(identity) | OpenedCredential::Kernel(identity) => identity.uid,
        }
    }
}

pub struct Verifier {
    settings: VerifierSettings,
    replay: Mutex<ReplayCache>,
}

impl Verifier {
    pub fn new(settings: VerifierSettings) -> Self {
        Verifier {
            settings,
            replay: Mutex::new(ReplayCache::new(REPLAY_ENTRIES_MAX)),
        }
    }

    /// munged's socket where `AuthType=auth/munge`: the controller seals its orders to agents through it.
    pub fn munge_socket(&self) -> Option<&str> {
        self.settings.munge_socket.as_deref()
    }

    pub fn jwt_key(&self) -> Option<&[u8]> {
        self.settings.jwt_key.as_deref()
    }

    /// Who sent `message` as a call of `method`. Decoding a MUNGE credential asks munged over its local socket
    /// (well under a millisecond), so it runs inline.
    pub fn verify<T>(
        &self,
        request: &tonic::Request<T>,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
    ) -> Result<Identity, AuthError> {
        self.verify_parts(
            request.metadata(),
            request.extensions(),
            method,
            message,
            now,
        )
    }

    pub fn verify_parts(
        &self,
        metadata: &MetadataMap,
        extensions: &tonic::Extensions,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
    ) -> Result<Identity, AuthError> {
        if let Some(cred) = extensions
            .get::<UdsConnectInfo>()
            .and_then(|info| info.peer_cred)
        {
            return Ok(Identity {
                uid: cred.uid(),
                gid: cred.gid(),
                method: AuthMethod::PeerCred,
            });
        }
        let text = |value: &tonic::metadata::MetadataValue<_>| {
            value
                .to_str()
                .map(str::to_string)
                .map_err(|_| AuthError::NotText)
        };
        let credential = if let Some(value) = metadata.get(MUNGE_HEADER) {
            Credential::Munge(text(value)?)
        } else if let Some(value) = metadata.get(JWT_HEADER) {
            Credential::Jwt(text(value)?)
        } else {
            Credential::None
        };
        self.verify_credential(&credential, method, message, now)
    }

    /// Who sent `message` as a call of `method` with `credential` (from gRPC headers or a request frame), on a
    /// connection whose peer the kernel does not vouch for.
    pub fn verify_credential(
        &self,
        credential: &Credential,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
    ) -> Result<Identity, AuthError> {
        let opened = self.open_credential(credential, now)?;
        self.bind(opened, method, message, now)
    }

    /// A daemon's call (a node agent's session, another controller's call), from its headers alone, before its
    /// message is read: MUNGE only, as Slurm's daemons speak (a JWT is a user's bearer token and never a
    /// daemon's), and the local socket's peer credentials only where `local` allows them. [`Verifier::bind`]
    /// must follow once the message is read.
    pub fn open_daemon(
        &self,
        metadata: &MetadataMap,
        extensions: &tonic::Extensions,
        local: bool,
    ) -> Result<OpenedCredential, AuthError> {
        if let Some(info) = extensions.get::<UdsConnectInfo>() {
            let cred = info.peer_cred.filter(|_| local);
            return cred
                .map(|cred| {
                    OpenedCredential::Kernel(Identity {
                        uid: cred.uid(),
                        gid: cred.gid(),
                        method: AuthMethod::PeerCred,
                    })
                })
                .ok_or(AuthError::LocalNotAllowed);
        }
        match metadata.get(MUNGE_HEADER) {
            Some(value) => {
                let text = value.to_str().map_err(|_| AuthError::NotText)?;
                // JWTs are refused before this point, so the clock is unused.
                self.open_credential(&Credential::Munge(text.to_string()), 0)
            }
            None if metadata.contains_key(JWT_HEADER) => Err(AuthError::DaemonJwt),
            None => Err(AuthError::Missing),
        }
    }

    /// The first half of [`Verifier::verify_credential`], for a caller that has not read the request yet: who
    /// the credential says sent it (MUNGE: decoded by munged, which checks key and expiry; JWT: signature, expiry
    /// and user), without checking that it was made for this request. The frame server uses it to refuse a large
    /// body from an unknown sender before reading it; [`Verifier::bind`] must follow before the caller is
    /// trusted.
    pub fn open_credential(
        &self,
        credential: &Credential,
        now: i64,
    ) -> Result<OpenedCredential, AuthError> {
        match credential {
            Credential::Munge(credential) => {
                let socket = self
                    .settings
                    .munge_socket
                    .as_deref()
                    .ok_or(AuthError::MungeDisabled)?;
                let decoded = munge::decode(socket, credential)?;
                Ok(OpenedCredential::Munge {
                    key: binding::credential_key(credential),
                    decoded,
                })
            }
            Credential::Jwt(token) => Ok(OpenedCredential::Jwt(self.verify_jwt(token, now)?)),
            Credential::None => Err(AuthError::Missing),
        }
    }

    /// The second half: a MUNGE credential must be bound to this very request and never seen before (a JWT is
    /// a bearer token, bound to nothing).
    pub fn bind(
        &self,
        opened: OpenedCredential,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
    ) -> Result<Identity, AuthError> {
        let (key, decoded) = match opened {
            OpenedCredential::Jwt(identity) | OpenedCredential::Kernel(identity) => {
                return Ok(identity)
            }
            OpenedCredential::Munge { key, decoded } => (key, decoded),
        };
        if decoded.payload != crate::client::request_payload(method, message) {
            return Err(AuthError::Binding);
        }
        let expires_at = decoded.encode_time.saturating_add(decoded.ttl_secs);
        self.replay
            .lock()
            .map_err(|_| AuthError::Replay(ReplayError::Full))?
            .admit(key, expires_at, now)?;
        Ok(Identity {
            uid: decoded.uid,
            gid: decoded.gid,
            method: AuthMethod::Munge,
        })
    }

    /// A bearer token: verified by signature and expiry, then its user name resolved to uid and gid.
    pub fn verify_jwt(&self, token: &str, now: i64) -> Result<Identity, AuthError> {
        let key = self
            .settings
            .jwt_key
            .as_deref()
            .ok_or(AuthError::JwtDisabled)?;
        let claims = jwt::verify(token, key, now)?;
        let user = nix::unistd::User::from_name(&claims.sun)
            .ok()
            .flatten()
            .ok_or_else(|| AuthError::UnknownUser(claims.sun.clone()))?;
        Ok(Identity {
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
            method: AuthMethod::Jwt,
        })
    }

    /// Forgets credentials past their expiry (called from the controller's housekeeping).
    pub fn prune(&self, now: i64) {
        if let Ok(mut cache) = self.replay.lock() {
            cache.prune(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn message() -> pb::ApiRequest {
        pb::ApiRequest {
            request_id: "r".into(),
            caller: None,
            body: None,
            ..Default::default()
        }
    }

    #[test]
    fn no_credential_is_refused() {
        let verifier = Verifier::new(VerifierSettings::default());
        let result = verifier.verify_parts(
            &MetadataMap::new(),
            &tonic::Extensions::new(),
            "Query",
            &message(),
            0,
        );
        assert_eq!(result, Err(AuthError::Missing));
    }

    proptest! {
        // Garbage in either header must be refused without a panic, also where munged is absent.
        #[test]
        fn malformed_credentials_never_panic(text in "[ -~]{0,300}", jwt in any::<bool>()) {
            let verifier = Verifier::new(VerifierSettings {
                munge_socket: Some("/nonexistent/munge.socket".into()),
                jwt_key: Some(b"key".to_vec()),
            });
            let mut metadata = MetadataMap::new();
            if let Ok(value) = text.parse() {
                metadata.insert(if jwt { JWT_HEADER } else { MUNGE_HEADER }, value);
                let result = verifier.verify_parts(&metadata, &tonic::Extensions::new(), "Query", &message(), 0);
                prop_assert!(result.is_err());
            }
        }
    }
}
