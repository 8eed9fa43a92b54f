//! The controller's proof to a node agent: every order on an agent session (launch, step launch, signal,
//! terminate, ...) carries a MUNGE credential sealed by the controller (root or SlurmUser) whose payload binds the
//! agent's session nonce and the order's body. The agent decodes it through its own munged, which checks the key
//! and refuses a credential decoded twice; the nonce keeps an order captured from one session (or sent to another
//! node) from being played into another session. This is slurmd's rule, that launch and signal RPCs must carry a
//! credential of SlurmUser or root, applied to every message of the session.
//!
//! A leader hint (a follower naming the leader when it turns an agent away) is proved the same way when it names
//! a controller the agent was not configured with.

use spur_core::auth::binding;
use spur_core::wire::pb;

use crate::munge::{self, MungeError};

/// The RPC name sealed into an order's credential.
pub const ORDER_METHOD: &str = "AgentOrder";
/// The RPC name sealed into a leader hint's credential.
pub const HINT_METHOD: &str = "LeaderHint";
/// gRPC metadata on a follower's refusal: a MUNGE credential for the leader hint (see [`hint_payload`]).
pub const LEADER_HINT_CREDENTIAL_HEADER: &str = "spur-leader-munge";
/// Bytes of randomness in an agent's session nonce.
pub const NONCE_BYTES: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderError {
    #[error("the controller sent an order without a credential")]
    Missing,
    #[error("munge: {0}")]
    Munge(#[from] MungeError),
    #[error("the order's credential was made for another message or session")]
    Binding,
    #[error("the order's credential was made by uid {0}, which is neither root nor SlurmUser")]
    Untrusted(u32),
}

/// A fresh session nonce, in hex, from the kernel's random source.
pub fn new_nonce() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; NONCE_BYTES];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// What an order's credential must carry: the session nonce and the digest of the reply's body.
pub fn order_payload(nonce: &str, reply: &pb::ApiReply) -> Vec<u8> {
    let digest = match &reply.body {
        Some(doc) => binding::body_digest(&doc.kind, doc.version, &doc.json),
        None => binding::body_digest("", 0, b""),
    };
    binding::payload(ORDER_METHOD, nonce, &digest)
}

/// What a leader hint's credential must carry: the session nonce and the hinted address.
pub fn hint_payload(nonce: &str, addr: &str) -> Vec<u8> {
    let digest = binding::body_digest("leader", 0, addr.as_bytes());
    binding::payload(HINT_METHOD, nonce, &digest)
}

/// The controller's side: seals `reply` for the session whose agent sent `nonce`, through the munged at `socket`.
pub fn seal_order(socket: &str, nonce: &str, reply: &mut pb::ApiReply) -> Result<(), MungeError> {
    reply.credential = munge::encode(socket, &order_payload(nonce, reply))?;
    Ok(())
}

/// The agent's side: the uid that sealed `reply` for this session, once munged vouched for it and `trusted` takes
/// that uid.
pub fn verify_order(
    socket: &str,
    nonce: &str,
    reply: &pb::ApiReply,
    trusted: impl Fn(u32) -> bool,
) -> Result<u32, OrderError> {
    if reply.credential.is_empty() {
        return Err(OrderError::Missing);
    }
    verify(
        socket,
        &reply.credential,
        &order_payload(nonce, reply),
        trusted,
    )
}

/// The agent's side of a leader hint: `Ok` when `credential` proves a trusted controller named `addr` to this
/// session.
pub fn verify_hint(
    socket: &str,
    nonce: &str,
    addr: &str,
    credential: &str,
    trusted: impl Fn(u32) -> bool,
) -> Result<u32, OrderError> {
    verify(socket, credential, &hint_payload(nonce, addr), trusted)
}

fn verify(
    socket: &str,
    credential: &str,
    expected: &[u8],
    trusted: impl Fn(u32) -> bool,
) -> Result<u32, OrderError> {
    // munged checks the key, the expiry and (the agent's own munged) that this credential was never decoded
    // before, so an order cannot be played twice.
    let decoded = munge::decode(socket, credential)?;
    if decoded.payload != expected {
        return Err(OrderError::Binding);
    }
    if !trusted(decoded.uid) {
        return Err(OrderError::Untrusted(decoded.uid));
    }
    Ok(decoded.uid)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(json: &[u8]) -> pb::ApiReply {
        pb::ApiReply {
            body: Some(pb::Doc {
                kind: "ControllerToAgent".into(),
                version: 1,
                json: json.to_vec(),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn payloads_bind_the_nonce_and_the_body() {
        assert_ne!(
            order_payload("n1", &reply(b"{}")),
            order_payload("n2", &reply(b"{}"))
        );
        assert_ne!(
            order_payload("n1", &reply(b"{}")),
            order_payload("n1", &reply(b"[]"))
        );
        assert_ne!(hint_payload("n1", "a:1"), hint_payload("n1", "b:1"));
        assert_ne!(hint_payload("n1", "a:1"), hint_payload("n2", "a:1"));
    }

    #[test]
    fn an_order_without_a_credential_is_refused_before_munged_is_asked() {
        let result = verify_order("/nonexistent/socket", "n", &reply(b"{}"), |_| true);
        assert_eq!(result, Err(OrderError::Missing));
    }

    #[test]
    fn nonces_are_fresh() {
        let (a, b) = (new_nonce().unwrap(), new_nonce().unwrap());
        assert_eq!(a.len(), NONCE_BYTES * 2);
        assert_ne!(a, b);
    }
}
