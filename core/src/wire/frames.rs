//! Plain frames for the commands' calls to the controller (its TCP port and its local Unix socket): the same
//! `ApiRequest`/`ApiReply` messages as the gRPC service, each behind an eight-byte header, without HTTP/2.
//!
//! Why: a command such as `sbatch` makes one call and exits. Over gRPC that call needs an async runtime and an
//! HTTP/2 handshake whose first exchange (the controller's SETTINGS) is a round trip before the request may leave.
//! The controller tells the two apart by a connection's first bytes (HTTP/2 starts with `PRI `), so gRPC clients
//! (agents, other controllers, libspur_compat, older commands) and frame clients share one port.
//!
//! A frame is [`MAGIC`], the length of what follows (u32, big-endian), then for a request one byte naming the
//! call, the caller's credential (one byte for its kind, its length as a u32, its text: what gRPC carries in the
//! `x-spur-munge` or `x-spur-jwt` header; none on the local socket, where the kernel names the caller) and the
//! protobuf `ApiRequest`, for a reply the protobuf `ApiReply`. A connection carries any number of
//! request/reply pairs, one at a time. A client whose call no controller took in frames (a controller older than
//! this protocol answers with an HTTP/2 error) retries it over gRPC with the same request id, which the controller
//! applies once; one that sent the whole request and heard nothing until its timeout tries gRPC only where
//! another controller is configured.

use prost::Message;

use super::pb;

/// The first bytes of every frame; never the start of an HTTP/2 connection (`PRI * HTTP/2.0`).
pub const MAGIC: &[u8; 4] = b"SPF1";
/// Magic and length.
pub const HEADER_BYTES: usize = 8;

/// The calls a frame may carry: the client-facing methods of the gRPC `Controller` service that take an
/// `ApiRequest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Submit,
    Query,
    Control,
}

impl Method {
    const ALL: [Method; 3] = [Method::Submit, Method::Query, Method::Control];

    fn byte(self) -> u8 {
        match self {
            Method::Submit => 1,
            Method::Query => 2,
            Method::Control => 3,
        }
    }

    /// The gRPC method's name, which credentials and logs use.
    pub fn name(self) -> &'static str {
        match self {
            Method::Submit => "Submit",
            Method::Query => "Query",
            Method::Control => "Control",
        }
    }

    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    fn from_byte(byte: u8) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.byte() == byte)
    }
}

/// What proves the caller of a request frame, as the gRPC headers would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// Nothing: only the local socket's peer credentials can identify such a caller.
    None,
    /// A MUNGE credential bound to this request ([`crate::auth::binding`]).
    Munge(String),
    /// An auth/jwt token.
    Jwt(String),
}

impl Credential {
    fn kind(&self) -> u8 {
        match self {
            Credential::None => 0,
            Credential::Munge(_) => 1,
            Credential::Jwt(_) => 2,
        }
    }

    fn text(&self) -> &str {
        match self {
            Credential::None => "",
            Credential::Munge(text) | Credential::Jwt(text) => text,
        }
    }
}

/// A request frame's contents.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestFrame {
    pub method: Method,
    pub credential: Credential,
    pub request: pb::ApiRequest,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("not a Spur frame")]
    NotAFrame,
    #[error("frame of {0} bytes is over the limit of {1}")]
    TooLong(usize, usize),
    #[error("empty request frame")]
    Empty,
    #[error("unknown call {0} in request frame")]
    UnknownMethod(u8),
    #[error("malformed credential in request frame")]
    Credential,
    #[error("malformed message in frame: {0}")]
    Malformed(String),
}

/// Whether a connection's first bytes are a frame (rather than HTTP/2 or anything else).
pub fn starts_with_magic(first: &[u8]) -> bool {
    first.starts_with(MAGIC)
}

/// The length of the body that follows `header`, refused over `limit` before anything is buffered.
pub fn body_len(header: &[u8; HEADER_BYTES], limit: usize) -> Result<usize, FrameError> {
    if !starts_with_magic(header) {
        return Err(FrameError::NotAFrame);
    }
    let len = u32::from_be_bytes([header[4], header[5], header[6], header[7]]) as usize;
    if len > limit {
        return Err(FrameError::TooLong(len, limit));
    }
    Ok(len)
}

fn frame(body_len: usize, write_body: impl FnOnce(&mut Vec<u8>)) -> Result<Vec<u8>, FrameError> {
    let len =
        u32::try_from(body_len).map_err(|_| FrameError::TooLong(body_len, u32::MAX as usize))?;
    let mut bytes = Vec::with_capacity(HEADER_BYTES + body_len);
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&len.to_be_bytes());
    write_body(&mut bytes);
    Ok(bytes)
}

/// A whole request frame: header, call, credential, message.
pub fn request_frame(
    method: Method,
    credential: &Credential,
    request: &pb::ApiRequest,
) -> Result<Vec<u8>, FrameError> {
    let text = credential.text().as_bytes();
    let text_len = u32::try_from(text.len()).map_err(|_| FrameError::Credential)?;
    frame(1 + 1 + 4 + text.len() + request.encoded_len(), |bytes| {
        bytes.push(method.byte());
        bytes.push(credential.kind());
        bytes.extend_from_slice(&text_len.to_be_bytes());
        bytes.extend_from_slice(text);
        // Encoding into a Vec cannot run out of room.
        let _ = request.encode(bytes);
    })
}

/// A whole reply frame.
pub fn reply_frame(reply: &pb::ApiReply) -> Result<Vec<u8>, FrameError> {
    frame(reply.encoded_len(), |bytes| {
        let _ = reply.encode(bytes);
    })
}

/// The fixed start of a request frame's body: the call, the credential's kind and its length.
pub const PREFIX_BYTES: usize = 6;

/// A request frame's fixed start: the call, and the kind and length of the credential that follows it, so a
/// server can read and check the credential before it reads (and buffers) the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestPrefix {
    pub method: Method,
    kind: u8,
    pub credential_len: usize,
}

/// Reads a request frame's fixed start; a credential longer than `credential_limit` is refused.
pub fn parse_prefix(
    prefix: &[u8; PREFIX_BYTES],
    credential_limit: usize,
) -> Result<RequestPrefix, FrameError> {
    let method = Method::from_byte(prefix[0]).ok_or(FrameError::UnknownMethod(prefix[0]))?;
    let credential_len = u32::from_be_bytes([prefix[2], prefix[3], prefix[4], prefix[5]]) as usize;
    if credential_len > credential_limit {
        return Err(FrameError::Credential);
    }
    Ok(RequestPrefix {
        method,
        kind: prefix[1],
        credential_len,
    })
}

impl RequestPrefix {
    /// The credential, from the `credential_len` bytes after the prefix.
    pub fn credential(&self, text: &[u8]) -> Result<Credential, FrameError> {
        if text.len() != self.credential_len {
            return Err(FrameError::Credential);
        }
        let text = std::str::from_utf8(text).map_err(|_| FrameError::Credential)?;
        match self.kind {
            0 if text.is_empty() => Ok(Credential::None),
            1 => Ok(Credential::Munge(text.to_string())),
            2 => Ok(Credential::Jwt(text.to_string())),
            _ => Err(FrameError::Credential),
        }
    }
}

/// A request frame's body (after the header).
pub fn parse_request(body: &[u8]) -> Result<RequestFrame, FrameError> {
    if body.is_empty() {
        return Err(FrameError::Empty);
    }
    if body.len() < PREFIX_BYTES {
        // Kept apart from a short credential so a truncated frame names its first fault.
        Method::from_byte(body[0]).ok_or(FrameError::UnknownMethod(body[0]))?;
        return Err(FrameError::Credential);
    }
    let (prefix, rest) = body.split_at(PREFIX_BYTES);
    let mut fixed = [0u8; PREFIX_BYTES];
    fixed.copy_from_slice(prefix);
    let prefix = parse_prefix(&fixed, rest.len())?;
    let (text, message) = rest.split_at(prefix.credential_len);
    let credential = prefix.credential(text)?;
    let request =
        pb::ApiRequest::decode(message).map_err(|e| FrameError::Malformed(e.to_string()))?;
    Ok(RequestFrame {
        method: prefix.method,
        credential,
        request,
    })
}

/// The message of a request frame whose prefix and credential were read already.
pub fn parse_message(message: &[u8]) -> Result<pb::ApiRequest, FrameError> {
    pb::ApiRequest::decode(message).map_err(|e| FrameError::Malformed(e.to_string()))
}

/// A reply frame's body (after the header).
pub fn parse_reply(body: &[u8]) -> Result<pb::ApiReply, FrameError> {
    pb::ApiReply::decode(body).map_err(|e| FrameError::Malformed(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(bytes: &[u8]) -> [u8; HEADER_BYTES] {
        let mut header = [0; HEADER_BYTES];
        header.copy_from_slice(&bytes[..HEADER_BYTES]);
        header
    }

    fn request() -> pb::ApiRequest {
        pb::ApiRequest {
            request_id: "host-1-2-3".into(),
            caller: Some(pb::Caller {
                uid: 1000,
                gid: 1000,
                host: "vm".into(),
            }),
            body: Some(pb::Doc {
                kind: "SubmitRequest".into(),
                version: 1,
                json: br#"{"spec":{}}"#.to_vec(),
                packed_schema: String::new(),
            }),
            accept_packed_schema: "schema".into(),
        }
    }

    #[test]
    fn request_round_trip() {
        let credentials = [
            Credential::None,
            Credential::Munge("MUNGE:AwQFAAB...:".into()),
            Credential::Jwt("eyJ.a.b".into()),
        ];
        for (method, credential) in Method::ALL.into_iter().zip(credentials) {
            let bytes = request_frame(method, &credential, &request()).unwrap();
            let len = body_len(&header(&bytes), 1 << 20).unwrap();
            assert_eq!(len, bytes.len() - HEADER_BYTES);
            let got = parse_request(&bytes[HEADER_BYTES..]).unwrap();
            assert_eq!(
                got,
                RequestFrame {
                    method,
                    credential,
                    request: request()
                }
            );
            assert_eq!(Method::from_name(method.name()), Some(method));
        }
    }

    #[test]
    fn reply_round_trip() {
        let reply = pb::ApiReply {
            error_code: 2017,
            message: "Invalid job id specified".into(),
            body: None,
            ..Default::default()
        };
        let bytes = reply_frame(&reply).unwrap();
        let len = body_len(&header(&bytes), 1 << 20).unwrap();
        assert_eq!(
            parse_reply(&bytes[HEADER_BYTES..HEADER_BYTES + len]).unwrap(),
            reply
        );
    }

    #[test]
    fn http2_is_not_a_frame() {
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
        assert!(!starts_with_magic(preface));
        assert_eq!(
            body_len(&header(preface), 1 << 20),
            Err(FrameError::NotAFrame)
        );
    }

    #[test]
    fn refusals() {
        let mut big = MAGIC.to_vec();
        big.extend_from_slice(&(65u32).to_be_bytes());
        assert_eq!(
            body_len(&header(&big), 64),
            Err(FrameError::TooLong(65, 64))
        );
        assert_eq!(parse_request(&[]), Err(FrameError::Empty));
        assert_eq!(parse_request(&[9]), Err(FrameError::UnknownMethod(9)));
        assert_eq!(parse_request(&[1]), Err(FrameError::Credential));
        assert_eq!(
            parse_request(&[1, 1, 0, 0, 0, 9, b'x']),
            Err(FrameError::Credential)
        );
        assert_eq!(
            parse_request(&[1, 7, 0, 0, 0, 0]),
            Err(FrameError::Credential)
        );
        assert_eq!(
            parse_request(&[1, 0, 0, 0, 0, 1, b'x']),
            Err(FrameError::Credential)
        );
        assert_eq!(
            parse_request(&[1, 1, 0, 0, 0, 1, 0xff]),
            Err(FrameError::Credential)
        );
        assert!(matches!(
            parse_request(&[1, 0, 0, 0, 0, 0, 0xff, 0xff]),
            Err(FrameError::Malformed(_))
        ));
    }
}
