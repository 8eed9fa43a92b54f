//! One call to the controller in plain frames ([`spur_core::wire::frames`]): blocking I/O on a socket of this
//! process's own, no async runtime, no HTTP/2 handshake. A one-shot command (`sbatch`, `scancel`, `squeue`) spends
//! most of its life starting and stopping, and this is the part of its call that it need not pay.
//!
//! Every function returns the controller's reply, or `None` where this path gave none (no such socket, no
//! controller reachable, one that predates frames, a timeout, no credential): the caller then makes the same call
//! over gRPC, with the same request id, so a request the controller did apply is not applied twice, and failures
//! are reported the way they always were.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use spur_core::wire::frames::{self, Credential, Method, HEADER_BYTES};
use spur_core::wire::{pb, MAX_REPLY_BYTES};

/// The call on the controller's local Unix socket, where the kernel names the caller.
pub fn call_local(
    socket: &Path,
    method: Method,
    request: &pb::ApiRequest,
    timeout: Duration,
) -> Option<pb::ApiReply> {
    let frame = frames::request_frame(method, &Credential::None, request).ok()?;
    let mut stream = UnixStream::connect(socket).ok()?;
    stream.set_read_timeout(Some(timeout)).ok()?;
    stream.set_write_timeout(Some(timeout)).ok()?;
    exchange(&mut stream, &frame)
}

/// The call over TCP to the first of `urls` (`http://host:port`) that takes a connection, proved by a credential
/// `credential` makes for it (a MUNGE credential is good for one request, so one per attempt).
pub fn call_tcp(
    urls: &[String],
    method: Method,
    request: &pb::ApiRequest,
    timeout: Duration,
    mut credential: impl FnMut() -> Option<Credential>,
) -> Option<pb::ApiReply> {
    for url in urls {
        // TLS or anything else than plain HTTP/2 is left to gRPC.
        let authority = url.strip_prefix("http://")?;
        let Some(mut stream) = connect(authority.trim_end_matches('/'), timeout) else {
            continue;
        };
        stream.set_nodelay(true).ok()?;
        stream.set_read_timeout(Some(timeout)).ok()?;
        stream.set_write_timeout(Some(timeout)).ok()?;
        let frame = frames::request_frame(method, &credential()?, request).ok()?;
        // Once a controller has the request, another one is gRPC's to try (the request id keeps it applied once).
        return exchange(&mut stream, &frame);
    }
    None
}

fn connect(authority: &str, timeout: Duration) -> Option<TcpStream> {
    authority
        .to_socket_addrs()
        .ok()?
        .find_map(|addr| TcpStream::connect_timeout(&addr, timeout).ok())
}

fn exchange(stream: &mut (impl Read + Write), frame: &[u8]) -> Option<pb::ApiReply> {
    stream.write_all(frame).ok()?;
    let mut header = [0u8; HEADER_BYTES];
    stream.read_exact(&mut header).ok()?;
    let len = frames::body_len(&header, MAX_REPLY_BYTES).ok()?;
    let mut body = vec![0; len];
    stream.read_exact(&mut body).ok()?;
    frames::parse_reply(&body).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    fn request() -> pb::ApiRequest {
        pb::ApiRequest {
            request_id: "vm-1-2-3".into(),
            ..Default::default()
        }
    }

    /// A server that reads one request frame and answers with `answer`.
    fn serve_once(answer: Vec<u8>) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("ctld.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut header = [0u8; HEADER_BYTES];
            stream.read_exact(&mut header).unwrap();
            let len = frames::body_len(&header, 1 << 20).unwrap();
            let mut body = vec![0; len];
            stream.read_exact(&mut body).unwrap();
            let got = frames::parse_request(&body).unwrap();
            assert_eq!((got.method, got.request), (Method::Submit, request()));
            stream.write_all(&answer).unwrap();
        });
        (dir, socket)
    }

    #[test]
    fn a_reply_frame_is_the_answer() {
        let reply = pb::ApiReply {
            error_code: 0,
            message: String::new(),
            body: None,
        };
        let (_dir, socket) = serve_once(frames::reply_frame(&reply).unwrap());
        let got = call_local(&socket, Method::Submit, &request(), Duration::from_secs(10));
        assert_eq!(got, Some(reply));
    }

    #[test]
    fn a_controller_without_frames_leaves_the_call_to_grpc() {
        // What an HTTP/2 server sends a client whose preface is wrong: SETTINGS, then GOAWAY, then it closes.
        let mut answer = vec![0, 0, 0, 4, 0, 0, 0, 0, 0];
        answer.extend_from_slice(&[0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        let (_dir, socket) = serve_once(answer);
        assert_eq!(
            call_local(&socket, Method::Submit, &request(), Duration::from_secs(10)),
            None
        );
    }

    #[test]
    fn no_socket_leaves_the_call_to_grpc() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("absent.sock");
        assert_eq!(
            call_local(&socket, Method::Query, &request(), Duration::from_secs(10)),
            None
        );
    }
}
