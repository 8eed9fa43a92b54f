//! The client side, shared by the CLI, the node agent and libspur_compat: pick how to prove who we are (an
//! `SLURM_JWT` token, the controller's local Unix socket, or a MUNGE credential), seal each request, and open the
//! channel that matches.
//!
//! The one call a new client needs is [`ClientAuth::seal`]: it returns the gRPC metadata (key, value) to attach
//! to the request for `method`, or `None` where the transport itself proves the identity.

use std::path::PathBuf;
use std::time::Duration;

use spur_core::auth::{binding, params, JWT_HEADER, MUNGE_HEADER};
use spur_core::grammar::conf::SlurmConf;
use spur_core::wire::frames::Credential;
use spur_core::wire::pb;
use tonic::metadata::MetadataValue;
use tonic::transport::{Channel, Endpoint};

/// Environment variable naming the controller's Unix socket (the no-munged fallback on the controller's host).
pub const LOCAL_SOCKET_ENV: &str = "SPUR_LOCAL_SOCKET";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientAuth {
    /// A MUNGE credential per request, from the munged at this socket.
    Munge { socket: String },
    /// A bearer token from `scontrol token` (`SLURM_JWT`).
    Jwt { token: String },
    /// The controller's Unix socket: the kernel tells it our uid, nothing to attach.
    Local { socket: PathBuf },
}

#[derive(Debug, thiserror::Error)]
pub enum ClientAuthError {
    #[error("Munge encode failed: {0}")]
    Munge(#[from] crate::munge::MungeError),
    #[error("credential is not valid header text")]
    Header,
    #[error("{0}")]
    Connect(String),
}

impl ClientAuth {
    /// How Slurm's clients choose: `SLURM_JWT` wins, then (Spur's fallback) `SPUR_LOCAL_SOCKET`, else MUNGE
    /// through the socket `AuthInfo=socket=` names.
    pub fn from_environment(
        conf: Option<&SlurmConf>,
        env: impl Fn(&str) -> Option<String>,
    ) -> ClientAuth {
        if let Some(token) = env("SLURM_JWT").filter(|t| !t.is_empty()) {
            return ClientAuth::Jwt { token };
        }
        if let Some(socket) = env(LOCAL_SOCKET_ENV).filter(|s| !s.is_empty()) {
            return ClientAuth::Local {
                socket: PathBuf::from(socket),
            };
        }
        ClientAuth::Munge {
            socket: params::munge_socket(conf.and_then(|c| c.auth_info())),
        }
    }

    /// What a daemon (spurd) uses: the local socket where `SPUR_LOCAL_SOCKET` names one, else MUNGE. Never a
    /// JWT: tokens are for users, as in Slurm, where slurmd always speaks auth/munge.
    pub fn for_daemon(
        conf: Option<&SlurmConf>,
        env: impl Fn(&str) -> Option<String>,
    ) -> ClientAuth {
        match env(LOCAL_SOCKET_ENV).filter(|s| !s.is_empty()) {
            Some(socket) => ClientAuth::Local {
                socket: PathBuf::from(socket),
            },
            None => ClientAuth::Munge {
                socket: params::munge_socket(conf.and_then(|c| c.auth_info())),
            },
        }
    }

    /// What proves this caller for `request` as a call of `method` (`Submit`, `Query`, `Control`, `Session`): a
    /// fresh MUNGE credential bound to it, the token, or nothing where the channel itself carries the identity.
    pub fn credential(
        &self,
        method: &str,
        request: &pb::ApiRequest,
    ) -> Result<Credential, ClientAuthError> {
        Ok(match self {
            ClientAuth::Local { .. } => Credential::None,
            ClientAuth::Jwt { token } => Credential::Jwt(token.clone()),
            ClientAuth::Munge { socket } => {
                Credential::Munge(munge_header(socket, method, request)?)
            }
        })
    }

    /// The metadata that authenticates `request` as a call of `method`; `None` where the channel itself carries
    /// the identity.
    pub fn seal(
        &self,
        method: &str,
        request: &pb::ApiRequest,
    ) -> Result<Option<(&'static str, MetadataValue<tonic::metadata::Ascii>)>, ClientAuthError>
    {
        let (key, text) = match self.credential(method, request)? {
            Credential::None => return Ok(None),
            Credential::Jwt(token) => (JWT_HEADER, token),
            Credential::Munge(credential) => (MUNGE_HEADER, credential),
        };
        let value = MetadataValue::try_from(text).map_err(|_| ClientAuthError::Header)?;
        Ok(Some((key, value)))
    }

    /// A tonic request for `message`, sealed for `method`.
    pub fn request(
        &self,
        method: &str,
        message: pb::ApiRequest,
    ) -> Result<tonic::Request<pb::ApiRequest>, ClientAuthError> {
        let header = self.seal(method, &message)?;
        let mut request = tonic::Request::new(message);
        if let Some((key, value)) = header {
            request.metadata_mut().insert(key, value);
        }
        Ok(request)
    }

    /// The channel to the controller: its Unix socket for `Local`, else `url` over TCP. `request_timeout` bounds
    /// each call; a long-lived stream (the agent's session) passes `None`.
    pub async fn channel(
        &self,
        url: &str,
        connect_timeout: Duration,
        request_timeout: Option<Duration>,
    ) -> Result<Channel, ClientAuthError> {
        self.channel_checked(url, connect_timeout, request_timeout, None)
            .await
    }

    /// [`ClientAuth::channel`], where on the local socket the listening process's uid (the kernel's peer
    /// credentials) must satisfy `peer_ok`: spurd uses it to know that the controller it obeys is root or
    /// SlurmUser, as it knows from the orders' MUNGE credentials over TCP. A connection to anyone else fails.
    pub async fn channel_checked(
        &self,
        url: &str,
        connect_timeout: Duration,
        request_timeout: Option<Duration>,
        peer_ok: Option<PeerCheck>,
    ) -> Result<Channel, ClientAuthError> {
        let endpoint = match self {
            ClientAuth::Local { .. } => Endpoint::from_static("http://localhost"),
            _ => Endpoint::from_shared(url.to_string())
                .map_err(|e| ClientAuthError::Connect(e.to_string()))?,
        };
        let mut endpoint = endpoint
            .connect_timeout(connect_timeout)
            .initial_stream_window_size(spur_core::wire::HTTP2_WINDOW_BYTES)
            .initial_connection_window_size(spur_core::wire::HTTP2_WINDOW_BYTES);
        if let Some(timeout) = request_timeout {
            endpoint = endpoint.timeout(timeout);
        }
        match self {
            ClientAuth::Local { socket } => connect_local(endpoint, socket.clone(), peer_ok).await,
            _ => endpoint
                .connect()
                .await
                .map_err(|e| ClientAuthError::Connect(format!("{url}: {e}"))),
        }
    }
}

/// The `x-spur-munge` header value for one request: a MUNGE credential whose payload binds `method`, the request
/// id and the body's digest. The C shim calls this for each RPC it sends.
pub fn munge_header(
    socket: &str,
    method: &str,
    request: &pb::ApiRequest,
) -> Result<String, crate::munge::MungeError> {
    crate::munge::encode(socket, &request_payload(method, request))
}

/// The bytes a credential for `request` must carry.
pub fn request_payload(method: &str, request: &pb::ApiRequest) -> Vec<u8> {
    let digest = match &request.body {
        Some(doc) => binding::body_digest(&doc.kind, doc.version, &doc.json),
        None => binding::body_digest("", 0, b""),
    };
    binding::payload(method, &request.request_id, &digest)
}

/// Whether the uid at the other end of the local socket may be talked to.
pub type PeerCheck = std::sync::Arc<dyn Fn(u32) -> bool + Send + Sync>;

async fn connect_local(
    endpoint: Endpoint,
    socket: PathBuf,
    peer_ok: Option<PeerCheck>,
) -> Result<Channel, ClientAuthError> {
    // The endpoint's URI is required by tonic but unused: the connector always dials the socket.
    endpoint
        .connect_with_connector(tower::service_fn(move |_: tonic::transport::Uri| {
            let socket = socket.clone();
            let peer_ok = peer_ok.clone();
            async move {
                let stream = tokio::net::UnixStream::connect(&socket).await?;
                if let Some(peer_ok) = peer_ok {
                    // Checked on this very connection: whoever listens on the path now is who we talk to.
                    let uid = stream.peer_cred()?.uid();
                    if !peer_ok(uid) {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::PermissionDenied,
                            format!(
                                "{} is served by uid {uid}, which is neither root nor SlurmUser",
                                socket.display()
                            ),
                        ));
                    }
                }
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
            }
        }))
        .await
        .map_err(|e| ClientAuthError::Connect(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_choice() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            ClientAuth::from_environment(None, env(&[])),
            ClientAuth::Munge {
                socket: params::DEFAULT_MUNGE_SOCKET.into()
            }
        );
        assert_eq!(
            ClientAuth::from_environment(
                None,
                env(&[("SLURM_JWT", "t"), (LOCAL_SOCKET_ENV, "/s")])
            ),
            ClientAuth::Jwt { token: "t".into() }
        );
        assert_eq!(
            ClientAuth::from_environment(None, env(&[(LOCAL_SOCKET_ENV, "/s")])),
            ClientAuth::Local {
                socket: "/s".into()
            }
        );
    }
}
