//! HS256 JSON Web Tokens as Slurm's auth/jwt makes and checks them: header `{"alg":"HS256","typ":"JWT"}`, claims
//! `iat`, `exp` and `sun` (the Slurm user name), signed with the key file named by `AuthAltParameters=jwt_key=`.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

/// A token longer than this is refused before any decoding: bounds the work a hostile header can cause.
pub const TOKEN_LEN_MAX: usize = 16 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    // Field order is the JSON order Slurm writes (exp, iat, sun), so tokens read the same.
    pub exp: i64,
    pub iat: i64,
    /// Slurm user name the token authenticates.
    pub sun: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JwtError {
    #[error("malformed token")]
    Malformed,
    #[error("unsupported algorithm (only HS256)")]
    Algorithm,
    #[error("bad signature")]
    Signature,
    #[error("token expired at {0}")]
    Expired(i64),
    #[error("empty signing key")]
    EmptyKey,
}

#[derive(Serialize, Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    typ: Option<String>,
}

fn mac(key: &[u8]) -> Result<Hmac<Sha256>, JwtError> {
    if key.is_empty() {
        return Err(JwtError::EmptyKey);
    }
    Hmac::<Sha256>::new_from_slice(key).map_err(|_| JwtError::EmptyKey)
}

/// Signs `claims` with `key`.
pub fn encode(claims: &Claims, key: &[u8]) -> Result<String, JwtError> {
    let header = Header {
        alg: "HS256".into(),
        typ: Some("JWT".into()),
    };
    let header = serde_json::to_vec(&header).map_err(|_| JwtError::Malformed)?;
    let body = serde_json::to_vec(claims).map_err(|_| JwtError::Malformed)?;
    let signed = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header),
        URL_SAFE_NO_PAD.encode(body)
    );
    let mut mac = mac(key)?;
    mac.update(signed.as_bytes());
    let signature = URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes());
    Ok(format!("{signed}.{signature}"))
}

/// Checks the signature (in constant time) and the expiry, and returns the claims.
pub fn verify(token: &str, key: &[u8], now: i64) -> Result<Claims, JwtError> {
    if token.len() > TOKEN_LEN_MAX {
        return Err(JwtError::Malformed);
    }
    let mut parts = token.split('.');
    let (Some(header), Some(body), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed);
    };
    let header_json = URL_SAFE_NO_PAD
        .decode(header)
        .map_err(|_| JwtError::Malformed)?;
    let parsed: Header = serde_json::from_slice(&header_json).map_err(|_| JwtError::Malformed)?;
    // Only HS256: "none" or an asymmetric algorithm must never be accepted with the shared key.
    if parsed.alg != "HS256" {
        return Err(JwtError::Algorithm);
    }
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| JwtError::Malformed)?;
    let mut mac = mac(key)?;
    mac.update(header.as_bytes());
    mac.update(b".");
    mac.update(body.as_bytes());
    mac.verify_slice(&signature)
        .map_err(|_| JwtError::Signature)?;
    let body = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| JwtError::Malformed)?;
    let claims: Claims = serde_json::from_slice(&body).map_err(|_| JwtError::Malformed)?;
    if claims.exp <= now {
        return Err(JwtError::Expired(claims.exp));
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn claims(exp: i64) -> Claims {
        Claims {
            iat: 1000,
            exp,
            sun: "alice".into(),
        }
    }

    #[test]
    fn round_trip() {
        let token = encode(&claims(2000), b"secret").unwrap();
        let body = URL_SAFE_NO_PAD
            .decode(token.split('.').nth(1).unwrap())
            .unwrap();
        assert_eq!(body, br#"{"exp":2000,"iat":1000,"sun":"alice"}"#);
        assert!(
            token.starts_with("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."),
            "Slurm's header"
        );
        assert_eq!(verify(&token, b"secret", 1500), Ok(claims(2000)));
    }

    #[test]
    fn rfc7515_hs256_example_verifies() {
        // RFC 7515 appendix A.1: a token signed by a third party, so encode and verify agree with the standard.
        let key = URL_SAFE_NO_PAD
            .decode("AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow")
            .unwrap();
        let token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\
eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.\
dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        // The example's claims have no `iat`/`sun`, so the signature passes and only the claims are refused.
        assert_eq!(verify(token, &key, 0), Err(JwtError::Malformed));
        assert_eq!(verify(token, b"other", 0), Err(JwtError::Signature));
    }

    #[test]
    fn wrong_key_expired_and_none_are_refused() {
        let token = encode(&claims(2000), b"secret").unwrap();
        assert_eq!(verify(&token, b"other", 1500), Err(JwtError::Signature));
        assert_eq!(
            verify(&token, b"secret", 2000),
            Err(JwtError::Expired(2000))
        );
        let body = token.split('.').nth(1).unwrap();
        let none = format!("{}.{body}.", URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#));
        assert_eq!(verify(&none, b"secret", 1500), Err(JwtError::Algorithm));
        assert_eq!(verify(&token, b"", 1500), Err(JwtError::EmptyKey));
    }

    #[test]
    fn tampered_claims_are_refused() {
        let token = encode(&claims(2000), b"secret").unwrap();
        let mut parts: Vec<String> = token.split('.').map(str::to_string).collect();
        let forged = Claims {
            sun: "root".into(),
            ..claims(2000)
        };
        parts[1] = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&forged).unwrap());
        assert_eq!(
            verify(&parts.join("."), b"secret", 1500),
            Err(JwtError::Signature)
        );
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(token in ".{0,400}") {
            let _ = verify(&token, b"secret", 0);
        }

        #[test]
        fn mangled_tokens_never_verify(cut in 0usize..200, byte in any::<u8>()) {
            let token = encode(&claims(i64::MAX), b"secret").unwrap();
            let mut bytes = token.into_bytes();
            let i = cut % bytes.len();
            prop_assume!(bytes[i] != byte);
            bytes[i] = byte;
            if let Ok(mangled) = String::from_utf8(bytes) {
                // A changed byte may still decode to the same bits (base64 padding bits); never to other claims.
                if let Ok(c) = verify(&mangled, b"secret", 0) {
                    prop_assert_eq!(c, claims(i64::MAX));
                }
            }
        }
    }
}
