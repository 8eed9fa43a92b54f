//! Binds a MUNGE credential to one request: the credential's payload names the RPC, the request id and a SHA-256
//! of the body, so a credential captured on the wire authenticates that request only (and the replay cache stops
//! it being sent twice).

use sha2::{Digest, Sha256};

const PAYLOAD_VERSION: &str = "spur-auth/1";

/// SHA-256 of a request body, in lower-case hex. `kind` and `version` are hashed too: two documents with equal
/// JSON but different types are different requests.
pub fn body_digest(kind: &str, version: u32, json: &[u8]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(kind.as_bytes());
    hasher.update([0]);
    hasher.update(version.to_be_bytes());
    hasher.update(json);
    hex(&hasher.finalize())
}

/// The payload a client seals into its credential for `method` (e.g. `Submit`).
pub fn payload(method: &str, request_id: &str, body_digest: &str) -> Vec<u8> {
    format!("{PAYLOAD_VERSION} {method} {request_id} {body_digest}").into_bytes()
}

/// Whether a decoded payload is the one this request should carry.
pub fn matches(decoded: &[u8], method: &str, request_id: &str, body_digest: &str) -> bool {
    // Constant time is unnecessary: the payload is not secret, munged already proved who sealed it.
    decoded == payload(method, request_id, body_digest).as_slice()
}

/// A short, non-reversible name for a credential, for the replay cache and logs.
pub fn credential_key(credential: &str) -> [u8; 32] {
    Sha256::digest(credential.as_bytes()).into()
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_binds_method_request_and_body() {
        let d = body_digest("SubmitRequest", 1, b"{}");
        let p = payload("Submit", "r1", &d);
        assert!(matches(&p, "Submit", "r1", &d));
        assert!(!matches(&p, "Control", "r1", &d));
        assert!(!matches(&p, "Submit", "r2", &d));
        assert!(!matches(
            &p,
            "Submit",
            "r1",
            &body_digest("SubmitRequest", 1, b"{ }")
        ));
        assert!(!matches(
            &p,
            "Submit",
            "r1",
            &body_digest("Query", 1, b"{}")
        ));
    }

    #[test]
    fn digest_is_sha256_hex() {
        // SHA-256 of "abc" is the FIPS 180-2 test vector; kind "" and version 0 prefix it with five bytes.
        let mut h = Sha256::new();
        h.update(b"abc");
        assert_eq!(
            hex(&h.finalize()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(body_digest("a", 1, b"x").len(), 64);
    }
}
