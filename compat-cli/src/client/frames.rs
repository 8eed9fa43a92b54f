//! One call to the controller in plain frames ([`spur_core::wire::frames`]): blocking I/O on a socket of this
//! process's own, no async runtime, no HTTP/2 handshake. A one-shot command (`sbatch`, `scancel`, `squeue`) spends
//! most of its life starting and stopping, and this is the part of its call that it need not pay.
//!
//! Every function returns the controller's reply, or why this path gave none. Where the controller did not take
//! the call ([`NoReply::NotTaken`]: no such socket, no controller reachable, one that predates frames, no
//! credential) the caller makes the same call over gRPC, with the same request id, so a request the controller did
//! apply is not applied twice, and failures are reported the way they always were. A controller that took the call
//! and did not answer in time ([`NoReply::Silent`]) would not answer gRPC either; the caller decides whether another
//! controller is worth the wait.

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use spur_core::wire::frames::{self, Credential, Method, HEADER_BYTES};
use spur_core::wire::{pb, MAX_REPLY_BYTES};

/// Why a call in frames brought no reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoReply {
    /// No controller took the call in frames: gRPC may.
    NotTaken,
    /// A controller took the whole request and sent nothing back within the timeout.
    Silent,
}

use NoReply::{NotTaken, Silent};

/// The call on the controller's local Unix socket, where the kernel names the caller.
pub fn call_local(
    socket: &Path,
    method: Method,
    request: &pb::ApiRequest,
    timeout: Duration,
) -> Result<pb::ApiReply, NoReply> {
    let frame = frames::request_frame(method, &Credential::None, request).map_err(|_| NotTaken)?;
    let mut stream = UnixStream::connect(socket).map_err(|_| NotTaken)?;
    bound(
        stream.set_read_timeout(Some(timeout)),
        stream.set_write_timeout(Some(timeout)),
    )?;
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
) -> Result<pb::ApiReply, NoReply> {
    for url in urls {
        // TLS or anything else than plain HTTP/2 is left to gRPC.
        let authority = url.strip_prefix("http://").ok_or(NotTaken)?;
        let Some(mut stream) = connect(authority.trim_end_matches('/'), timeout) else {
            continue;
        };
        stream.set_nodelay(true).map_err(|_| NotTaken)?;
        bound(
            stream.set_read_timeout(Some(timeout)),
            stream.set_write_timeout(Some(timeout)),
        )?;
        let credential = credential().ok_or(NotTaken)?;
        let frame = frames::request_frame(method, &credential, request).map_err(|_| NotTaken)?;
        // Once a controller has the request, another one is gRPC's to try (the request id keeps it applied once).
        return exchange(&mut stream, &frame);
    }
    Err(NotTaken)
}

fn connect(authority: &str, timeout: Duration) -> Option<TcpStream> {
    authority
        .to_socket_addrs()
        .ok()?
        .find_map(|addr| TcpStream::connect_timeout(&addr, timeout).ok())
}

/// The results of setting a socket's read and write timeouts: a socket that cannot have them is not used.
fn bound(read: io::Result<()>, write: io::Result<()>) -> Result<(), NoReply> {
    read.and(write).map_err(|_| NotTaken)
}

/// A read that timed out heard nothing from a controller that has the request; any other failure is a peer that
/// did not take it.
fn read_failure(e: io::Error) -> NoReply {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => Silent,
        _ => NotTaken,
    }
}

fn exchange(stream: &mut (impl Read + Write), frame: &[u8]) -> Result<pb::ApiReply, NoReply> {
    stream.write_all(frame).map_err(|_| NotTaken)?;
    let mut header = [0u8; HEADER_BYTES];
    // A controller older than frames answers at once (HTTP/2's SETTINGS and GOAWAY) or closes; only one that took
    // the request stays silent until the timeout.
    stream.read_exact(&mut header).map_err(read_failure)?;
    let len = frames::body_len(&header, MAX_REPLY_BYTES).map_err(|_| NotTaken)?;
    let mut body = vec![0; len];
    stream.read_exact(&mut body).map_err(read_failure)?;
    frames::parse_reply(&body).map_err(|_| NotTaken)
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
            ..Default::default()
        };
        let (_dir, socket) = serve_once(frames::reply_frame(&reply).unwrap());
        let got = call_local(&socket, Method::Submit, &request(), Duration::from_secs(10));
        assert_eq!(got, Ok(reply));
    }

    #[test]
    fn a_controller_without_frames_leaves_the_call_to_grpc() {
        // What an HTTP/2 server sends a client whose preface is wrong: SETTINGS, then GOAWAY, then it closes.
        let mut answer = vec![0, 0, 0, 4, 0, 0, 0, 0, 0];
        answer.extend_from_slice(&[0, 0, 8, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        let (_dir, socket) = serve_once(answer);
        assert_eq!(
            call_local(&socket, Method::Submit, &request(), Duration::from_secs(10)),
            Err(NotTaken)
        );
    }

    #[test]
    fn no_socket_leaves_the_call_to_grpc() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("absent.sock");
        assert_eq!(
            call_local(&socket, Method::Query, &request(), Duration::from_secs(10)),
            Err(NotTaken)
        );
    }

    #[test]
    fn a_controller_that_takes_the_call_and_stays_silent_is_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("ctld.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        let (done, wait) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut header = [0u8; HEADER_BYTES];
            stream.read_exact(&mut header).unwrap();
            // Holds the connection open without a word until the client has given up.
            let _ = wait.recv();
        });
        let got = call_local(
            &socket,
            Method::Submit,
            &request(),
            Duration::from_millis(200),
        );
        assert_eq!(got, Err(Silent));
        let _ = done.send(());
    }
}
