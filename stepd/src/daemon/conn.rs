//! One client connection on the control socket: non-blocking, line-delimited JSON, with the peer's uid
//! taken from `SO_PEERCRED` when it connected.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use nix::poll::PollFlags;
use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};

use spur_core::wire::supervisor::{
    Request, RequestEnvelope, Response, ResponseEnvelope, ACCESS_DENIED, PROTOCOL_VERSION,
};

/// Longest request line accepted; anything longer is not one of ours.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// Most connections served at once. When full, a connection from root or the owner evicts one from anyone
/// else, so that other users cannot lock the agent out of a job.
pub(crate) const MAX_CONNS: usize = 32;

/// A connection that sends nothing for this long is closed.
pub(crate) const IDLE_LIMIT: Duration = Duration::from_secs(30);

pub(crate) struct Conn {
    stream: UnixStream,
    /// `None` when the kernel would not say who connected; such a peer is refused.
    peer_uid: Option<u32>,
    authorized: bool,
    last_active: Instant,
    inbuf: Vec<u8>,
    outbuf: Vec<u8>,
    eof: bool,
    broken: bool,
}

impl Conn {
    /// Wraps an accepted stream; `job_uid` and `own_uid` decide whether the peer may send requests.
    pub(crate) fn new(stream: UnixStream, job_uid: u32, own_uid: u32) -> io::Result<Conn> {
        stream.set_nonblocking(true)?;
        let peer_uid = getsockopt(&stream, PeerCredentials).ok().map(|c| c.uid());
        Ok(Conn {
            stream,
            peer_uid,
            authorized: authorized(peer_uid, job_uid, own_uid),
            last_active: Instant::now(),
            inbuf: Vec::new(),
            outbuf: Vec::new(),
            eof: false,
            broken: false,
        })
    }

    pub(crate) fn is_authorized(&self) -> bool {
        self.authorized
    }

    /// True once the connection has been silent for longer than [`IDLE_LIMIT`].
    pub(crate) fn is_idle(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.last_active) > IDLE_LIMIT
    }

    /// Stops reading; the connection closes once the queued answers are sent.
    pub(crate) fn close_after_reply(&mut self) {
        self.eof = true;
    }

    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        self.stream.as_fd()
    }

    pub(crate) fn peer_uid(&self) -> Option<u32> {
        self.peer_uid
    }

    pub(crate) fn interest(&self) -> PollFlags {
        let mut f = PollFlags::empty();
        if !self.eof {
            f |= PollFlags::POLLIN;
        }
        if !self.outbuf.is_empty() {
            f |= PollFlags::POLLOUT;
        }
        f
    }

    /// Done once the peer has hung up and everything it asked for has been answered, or on any error.
    pub(crate) fn is_done(&self) -> bool {
        self.broken || (self.eof && self.outbuf.is_empty())
    }

    /// Reads what is available and returns the complete lines received.
    pub(crate) fn read_lines(&mut self) -> Vec<Vec<u8>> {
        let mut buf = [0u8; 4096];
        loop {
            match self.stream.read(&mut buf) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => {
                    self.last_active = Instant::now();
                    // `read` never reports more than the buffer holds; were it to, nothing is taken.
                    self.inbuf
                        .extend_from_slice(buf.get(..n).unwrap_or_default());
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => {
                    self.broken = true;
                    break;
                }
            }
            if self.inbuf.len() > MAX_LINE {
                break;
            }
        }
        let mut lines = Vec::new();
        while let Some(pos) = self.inbuf.iter().position(|&b| b == b'\n') {
            let rest = self.inbuf.split_off(pos + 1);
            let mut line = std::mem::replace(&mut self.inbuf, rest);
            line.pop();
            lines.push(line);
        }
        if self.inbuf.len() > MAX_LINE {
            self.inbuf.clear();
            self.queue(&Response::Error {
                message: "request line too long".into(),
            });
            self.eof = true;
        }
        lines
    }

    /// Queues a response and tries to send it at once.
    pub(crate) fn queue(&mut self, response: &Response) {
        let envelope = ResponseEnvelope {
            version: PROTOCOL_VERSION,
            response: response.clone(),
        };
        match serde_json::to_vec(&envelope) {
            Ok(mut line) => {
                line.push(b'\n');
                self.outbuf.extend_from_slice(&line);
            }
            Err(_) => self.broken = true,
        }
        self.flush();
    }

    pub(crate) fn flush(&mut self) {
        while !self.outbuf.is_empty() {
            match self.stream.write(&self.outbuf) {
                Ok(0) => {
                    self.broken = true;
                    return;
                }
                Ok(n) => {
                    self.outbuf.drain(..n);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    self.broken = true;
                    return;
                }
            }
        }
    }
}

/// Only root, the job's owner and the supervisor's own user may control the job.
pub(crate) fn authorized(peer_uid: Option<u32>, job_uid: u32, own_uid: u32) -> bool {
    matches!(peer_uid, Some(u) if u == 0 || u == job_uid || u == own_uid)
}

/// Decodes one request line, checking the protocol version.
pub(crate) fn parse_request(line: &[u8]) -> Result<Request, String> {
    let envelope: RequestEnvelope =
        serde_json::from_slice(line).map_err(|e| format!("malformed request: {e}"))?;
    if envelope.version != PROTOCOL_VERSION {
        return Err(format!(
            "unsupported protocol version {} (spurstepd speaks {PROTOCOL_VERSION})",
            envelope.version
        ));
    }
    Ok(envelope.request)
}

/// The answer for a peer that may not send requests.
pub(crate) fn access_denied() -> Response {
    Response::Error {
        message: ACCESS_DENIED.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::wire::supervisor::{SignalScope, TerminateReason};

    #[test]
    fn authorization() {
        assert!(authorized(Some(0), 1000, 0));
        assert!(authorized(Some(1000), 1000, 0));
        assert!(authorized(Some(1000), 2000, 1000));
        assert!(!authorized(Some(1001), 1000, 0));
        assert!(!authorized(None, 1000, 0));
    }

    #[test]
    fn parse_requests() {
        assert_eq!(
            parse_request(br#"{"version":1,"request":{"type":"status"}}"#),
            Ok(Request::Status)
        );
        assert_eq!(
            parse_request(
                br#"{"version":1,"request":{"type":"signal","signo":9,"scope":"all_processes"}}"#
            ),
            Ok(Request::Signal {
                signo: 9,
                scope: SignalScope::AllProcesses,
                step_pids: Vec::new(),
            })
        );
        assert_eq!(
            parse_request(
                br#"{"version":1,"request":{"type":"terminate","reason":"cancelled","at_epoch_secs":5}}"#
            ),
            Ok(Request::Terminate { reason: TerminateReason::Cancelled, at_epoch_secs: Some(5) })
        );
        assert!(
            parse_request(br#"{"version":2,"request":{"type":"status"}}"#)
                .unwrap_err()
                .contains("unsupported protocol version 2")
        );
        assert!(parse_request(b"nonsense")
            .unwrap_err()
            .starts_with("malformed request"));
        assert!(parse_request(br#"{"version":1,"request":{"type":"reboot"}}"#).is_err());
    }

    #[test]
    fn lines_are_split_and_answers_written() {
        let (a, b) = UnixStream::pair().unwrap();
        let me = nix::unistd::geteuid().as_raw();
        let mut conn = Conn::new(a, me.wrapping_add(1), me).unwrap();
        assert_eq!(conn.peer_uid(), Some(me));
        assert!(conn.is_authorized());
        assert!(!conn.is_idle(Instant::now()));
        assert!(conn.is_idle(Instant::now() + IDLE_LIMIT + Duration::from_secs(1)));
        (&b).write_all(b"one\ntw").unwrap();
        assert_eq!(conn.read_lines(), vec![b"one".to_vec()]);
        (&b).write_all(b"o\n").unwrap();
        assert_eq!(conn.read_lines(), vec![b"two".to_vec()]);
        conn.queue(&Response::Ok);
        let mut got = [0u8; 64];
        let n = (&b).read(&mut got).unwrap();
        assert_eq!(
            &got[..n],
            b"{\"version\":1,\"response\":{\"type\":\"ok\"}}\n"
        );
        drop(b);
        assert!(conn.read_lines().is_empty());
        assert!(conn.is_done());
    }

    #[test]
    fn overlong_lines_are_refused() {
        let (a, b) = UnixStream::pair().unwrap();
        let mut conn = Conn::new(a, 0, 0).unwrap();
        let writer = std::thread::spawn(move || {
            let _ = (&b).write_all(&vec![b'x'; MAX_LINE + 10]);
            let mut answer = String::new();
            let _ = io::BufRead::read_line(&mut io::BufReader::new(&b), &mut answer);
            answer
        });
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !conn.is_done() && conn.interest().contains(PollFlags::POLLIN) {
            assert!(conn.read_lines().is_empty());
            assert!(std::time::Instant::now() < deadline);
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        while !conn.outbuf.is_empty() {
            conn.flush();
        }
        drop(conn);
        assert!(writer.join().unwrap().contains("request line too long"));
    }
}
