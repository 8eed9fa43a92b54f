//! Calls between controllers: one gRPC method (`RaftPeer.Call`) carrying a named JSON message, sealed with the
//! same credential a daemon uses, over one lazily connected channel per peer address that tonic re-dials after a
//! peer restarts.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tonic::transport::{Channel, Endpoint};

use spur_core::wire::pb;

/// The method name credentials for peer calls are bound to.
pub const PEER_METHOD: &str = "RaftPeer";
/// Version of the peer message documents.
pub const PEER_DOC_VERSION: u32 = 1;

/// Authenticates one outgoing peer call (a MUNGE credential bound to it).
pub type Sealer =
    Arc<dyn Fn(pb::ApiRequest) -> Result<tonic::Request<pb::ApiRequest>, String> + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    #[error("controller at {addr} is unreachable: {reason}")]
    Unreachable { addr: String, reason: String },
    #[error("controller at {addr} refused the call: {message}")]
    Refused { addr: String, message: String },
    #[error("malformed peer message: {0}")]
    Malformed(String),
}

#[derive(Clone)]
pub struct PeerTransport {
    inner: Arc<Inner>,
}

struct Inner {
    seal: Sealer,
    channels: Mutex<HashMap<String, Channel>>,
    /// Distinguishes calls in a credential's payload, so no two calls carry the same sealed bytes.
    calls: AtomicU64,
    /// This controller's id, to tell calls from different controllers apart.
    from: u64,
    /// The address calls leave from: the controller's own, where it binds one (see `from_address`).
    source: Option<std::net::IpAddr>,
}

impl PeerTransport {
    pub fn new(from: u64, seal: Sealer) -> Self {
        Self::from_address(from, seal, None)
    }

    /// Calls leave from `source`: a controller that binds its own address (several on one host, or one of several
    /// addresses of a host) talks to its peers from it too, so its peers, and firewalls between them, see the
    /// member's address rather than whichever one the route picks.
    pub fn from_address(from: u64, seal: Sealer, source: Option<std::net::IpAddr>) -> Self {
        PeerTransport {
            inner: Arc::new(Inner {
                seal,
                channels: Mutex::new(HashMap::new()),
                calls: AtomicU64::new(0),
                from,
                source,
            }),
        }
    }

    fn channel(&self, addr: &str) -> Result<Channel, PeerError> {
        let unreachable = |reason: String| PeerError::Unreachable {
            addr: addr.to_string(),
            reason,
        };
        let mut channels = self
            .inner
            .channels
            .lock()
            .map_err(|_| unreachable("channel table poisoned".into()))?;
        if let Some(channel) = channels.get(addr) {
            return Ok(channel.clone());
        }
        let channel = Endpoint::from_shared(format!("http://{addr}"))
            .map_err(|e| unreachable(e.to_string()))?
            .connect_timeout(CONNECT_TIMEOUT)
            .tcp_nodelay(true)
            .local_address(self.inner.source)
            .connect_lazy();
        channels.insert(addr.to_string(), channel.clone());
        Ok(channel)
    }

    /// Sends `body` as message `kind` to the controller at `addr` and decodes its answer.
    pub async fn call<Req: Serialize, Resp: DeserializeOwned>(
        &self,
        addr: &str,
        kind: &str,
        body: &Req,
        timeout: Duration,
    ) -> Result<Resp, PeerError> {
        let json = serde_json::to_vec(body).map_err(|e| PeerError::Malformed(e.to_string()))?;
        let call = self.inner.calls.fetch_add(1, Ordering::Relaxed);
        let message = pb::ApiRequest {
            request_id: format!("peer-{}-{}-{call}", self.inner.from, std::process::id()),
            caller: None,
            body: Some(pb::Doc {
                kind: kind.to_string(),
                version: PEER_DOC_VERSION,
                json,
                ..Default::default()
            }),
            ..Default::default()
        };
        let refused = |message: String| PeerError::Refused {
            addr: addr.to_string(),
            message,
        };
        let request = (self.inner.seal)(message).map_err(refused)?;
        let mut client = pb::raft_peer_client::RaftPeerClient::new(self.channel(addr)?)
            .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES);
        let reply = match tokio::time::timeout(timeout, client.call(request)).await {
            Err(_) => {
                return Err(PeerError::Unreachable {
                    addr: addr.to_string(),
                    reason: format!("no answer within {timeout:?}"),
                })
            }
            Ok(Err(status)) => {
                return Err(PeerError::Unreachable {
                    addr: addr.to_string(),
                    reason: status.to_string(),
                })
            }
            Ok(Ok(reply)) => reply.into_inner(),
        };
        if reply.error_code != 0 {
            return Err(refused(reply.message));
        }
        let doc = reply
            .body
            .ok_or_else(|| PeerError::Malformed("empty reply".into()))?;
        serde_json::from_slice(&doc.json).map_err(|e| PeerError::Malformed(e.to_string()))
    }
}

/// A reply carrying `body` as message `kind`.
pub fn reply_doc<T: Serialize>(kind: &str, body: &T) -> Result<pb::ApiReply, PeerError> {
    let json = serde_json::to_vec(body).map_err(|e| PeerError::Malformed(e.to_string()))?;
    Ok(pb::ApiReply {
        error_code: 0,
        message: String::new(),
        body: Some(pb::Doc {
            kind: kind.to_string(),
            version: PEER_DOC_VERSION,
            json,
            ..Default::default()
        }),
        ..Default::default()
    })
}

const CONNECT_TIMEOUT: Duration = Duration::from_millis(500);
