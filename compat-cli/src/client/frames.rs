//! One call over the controller's local Unix socket in plain frames ([`spur_core::wire::frames`]): blocking I/O
//! on a socket of this process's own, no async runtime, no HTTP/2 handshake. A one-shot command (`sbatch`,
//! `scancel`, `squeue`) spends most of its life starting and stopping, and this is the part of its call that it
//! need not pay.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use spur_core::wire::frames::{self, Method, HEADER_BYTES};
use spur_core::wire::{pb, MAX_REPLY_BYTES};

/// The controller's reply, or `None` where this path gave none (no such socket, a controller that predates
/// frames, a timeout): the caller then makes the same call over gRPC, with the same request id, so a request the
/// controller did apply is not applied twice.
pub fn call(
    socket: &Path,
    method: Method,
    request: &pb::ApiRequest,
    timeout: Duration,
) -> Option<pb::ApiReply> {
    let frame = frames::request_frame(method, request).ok()?;
    let mut stream = UnixStream::connect(socket).ok()?;
    stream.set_read_timeout(Some(timeout)).ok()?;
    stream.set_write_timeout(Some(timeout)).ok()?;
    stream.write_all(&frame).ok()?;
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
            let (method, got) = frames::parse_request(&body).unwrap();
            assert_eq!((method, got), (Method::Submit, request()));
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
        let got = call(&socket, Method::Submit, &request(), Duration::from_secs(10));
        assert_eq!(got, Some(reply));
    }

    #[test]
    fn a_controller_without_frames_leaves_the_call_to_grpc() {
        // What an HTTP/2 server sends a client whose preface is wrong: SETTINGS, then GOAWAY, then it closes.
        let mut answer = vec![0, 0, 0, 4, 0, 0, 0, 0, 0];
        answer.extend_from_slice(&[0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        let (_dir, socket) = serve_once(answer);
        assert_eq!(
            call(&socket, Method::Submit, &request(), Duration::from_secs(10)),
            None
        );
    }

    #[test]
    fn no_socket_leaves_the_call_to_grpc() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("absent.sock");
        assert_eq!(
            call(&socket, Method::Query, &request(), Duration::from_secs(10)),
            None
        );
    }
}
