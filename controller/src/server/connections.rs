//! The controller's listeners (its TCP port and its local Unix socket): each connection speaks either gRPC
//! (agents, other controllers, libspur_compat, older commands) or the plain frames of
//! [`spur_core::wire::frames`] (the commands' one-shot calls), and its first bytes say which. gRPC connections go
//! on, untouched, to the gRPC server; frame connections are answered here, by the same [`ApiService`].
//!
//! Who the caller is: on the local socket the kernel says (SO_PEERCRED), as for gRPC there; over TCP the frame's
//! credential (MUNGE or JWT) is verified as the gRPC headers would be.
//!
//! Before a caller is proved it gets little (docs/security.md, "Before authentication"): each listener serves a
//! bounded number of connections (more are closed at once, so the accept loop never waits), every read has a
//! deadline, and over TCP a frame's credential is read and checked before its message, so that only a caller
//! munged or the JWT key vouch for can make the controller buffer more than
//! [`UNAUTHENTICATED_FRAME_BYTES`].

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, Interest};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore};
use tokio_stream::wrappers::ReceiverStream;

use spur_auth::OpenedCredential;
use spur_core::auth::{AuthMethod, Identity};
use spur_core::wire::api::{ApiError, SlurmErrno};
use spur_core::wire::frames::{self, FrameError, Method, HEADER_BYTES, PREFIX_BYTES};
use spur_core::wire::{pb, MAX_CREDENTIAL_BYTES, MAX_REQUEST_BYTES, UNAUTHENTICATED_FRAME_BYTES};

use super::{error_reply, ApiService};

/// How long a new connection may stay silent before it is dropped: both kinds of client write as soon as they
/// connect.
const FIRST_BYTES_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections accepted and found to be gRPC, waiting for the gRPC server to take them.
const GRPC_BACKLOG: usize = 64;
/// Connections one listener serves at once that are not (yet) gRPC's: being told apart, or speaking frames. A
/// command holds one for a single call (slurmctld serves 256 at once and queues the rest in its listen backlog);
/// beyond this a new connection is closed at once, and its command tries again or reports Slurm's error.
pub const FRAME_CONNECTIONS_MAX: usize = 1024;
/// gRPC connections one listener holds at once: one per node agent (the largest Slurm clusters have tens of
/// thousands of nodes; each controller's listener holds only its own agents), plus libspur_compat programs and
/// the other controllers.
pub const GRPC_CONNECTIONS_MAX: usize = 32_768;
/// How long a frame connection may stay silent between requests: commands send theirs at once and close the
/// connection after the reply. Slurm's own daemons wait `MessageTimeout` (10 s by default) for a message.
const FRAME_IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long the rest of a frame may take once its header came, as slurmctld's `MessageTimeout` (10 s): a real
/// request is a few KiB, and even [`MAX_REQUEST_BYTES`] needs only 1.6 MB/s.
const FRAME_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a reply may take to be written: a listing of 100,000 jobs (tens of MB) to a client that reads it.
const FRAME_WRITE_TIMEOUT: Duration = Duration::from_secs(120);
/// Refusals for lack of room are logged at most this often.
const FULL_LOG_INTERVAL: Duration = Duration::from_secs(10);

/// Accepts on `listener`: returns the gRPC connections, for tonic's `serve_with_incoming`, and the task that
/// accepts every connection and answers the frame ones itself (run it with `tokio::spawn`).
pub fn split<L: Listener>(
    listener: L,
    api: Arc<ApiService>,
) -> (
    ReceiverStream<std::io::Result<Counted<L::Stream>>>,
    impl Future<Output = ()> + Send,
) {
    let (grpc, incoming) = mpsc::channel(GRPC_BACKLOG);
    (ReceiverStream::new(incoming), accept(listener, api, grpc))
}

/// A listener of the controller.
pub trait Listener: Send + 'static {
    type Stream: Connection;
    fn accept_one(&self) -> impl Future<Output = std::io::Result<Self::Stream>> + Send;
}

/// An accepted connection.
pub trait Connection: AsyncRead + AsyncWrite + Unpin + Send + Sync + 'static {
    /// Copies the first bytes waiting on the connection into `into` without taking them.
    fn peek_first<'a>(
        &'a self,
        into: &'a mut [u8],
    ) -> impl Future<Output = std::io::Result<usize>> + Send + 'a;
    /// Who the kernel says is at the other end (`None`: nobody vouches, the frames must prove it), and the peer's
    /// address where it has one.
    fn peer(&self) -> (Option<std::io::Result<Identity>>, Option<SocketAddr>);
}

impl Listener for UnixListener {
    type Stream = UnixStream;
    async fn accept_one(&self) -> std::io::Result<UnixStream> {
        self.accept().await.map(|(stream, _)| stream)
    }
}

impl Listener for TcpListener {
    type Stream = TcpStream;
    async fn accept_one(&self) -> std::io::Result<TcpStream> {
        let (stream, _) = self.accept().await?;
        // As tonic's own listener does: a reply must not wait for more bytes to fill a segment.
        stream.set_nodelay(true)?;
        Ok(stream)
    }
}

impl Connection for UnixStream {
    async fn peek_first(&self, into: &mut [u8]) -> std::io::Result<usize> {
        self.async_io(Interest::READABLE, || {
            nix::sys::socket::recv(
                std::os::fd::AsRawFd::as_raw_fd(self),
                into,
                nix::sys::socket::MsgFlags::MSG_PEEK,
            )
            .map_err(std::io::Error::from)
        })
        .await
    }

    fn peer(&self) -> (Option<std::io::Result<Identity>>, Option<SocketAddr>) {
        let identity = self.peer_cred().map(|cred| Identity {
            uid: cred.uid(),
            gid: cred.gid(),
            method: AuthMethod::PeerCred,
        });
        (Some(identity), None)
    }
}

impl Connection for TcpStream {
    async fn peek_first(&self, into: &mut [u8]) -> std::io::Result<usize> {
        self.peek(into).await
    }

    fn peer(&self) -> (Option<std::io::Result<Identity>>, Option<SocketAddr>) {
        (None, self.peer_addr().ok())
    }
}

/// A gRPC connection, counted against its listener's [`GRPC_CONNECTIONS_MAX`] until tonic drops it.
pub struct Counted<S> {
    inner: S,
    _permit: OwnedSemaphorePermit,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

impl<S: tonic::transport::server::Connected> tonic::transport::server::Connected for Counted<S> {
    type ConnectInfo = S::ConnectInfo;
    fn connect_info(&self) -> Self::ConnectInfo {
        self.inner.connect_info()
    }
}

/// Logs that a listener turned connections away, at most once per [`FULL_LOG_INTERVAL`].
struct FullLog {
    last: Option<tokio::time::Instant>,
    refused: u64,
}

impl FullLog {
    fn refused(&mut self, what: &str, max: usize) {
        self.refused = self.refused.saturating_add(1);
        let now = tokio::time::Instant::now();
        if self
            .last
            .is_none_or(|last| now.duration_since(last) >= FULL_LOG_INTERVAL)
        {
            tracing::warn!(
                refused = self.refused,
                "{what}: {max} connections open already, new ones are closed"
            );
            self.last = Some(now);
            self.refused = 0;
        }
    }
}

async fn accept<L: Listener>(
    listener: L,
    api: Arc<ApiService>,
    grpc: mpsc::Sender<std::io::Result<Counted<L::Stream>>>,
) {
    let frame_slots = Arc::new(Semaphore::new(FRAME_CONNECTIONS_MAX));
    let grpc_slots = Arc::new(Semaphore::new(GRPC_CONNECTIONS_MAX));
    let full_log = Arc::new(std::sync::Mutex::new(FullLog {
        last: None,
        refused: 0,
    }));
    loop {
        let stream = match listener.accept_one().await {
            Ok(stream) => stream,
            Err(e) => {
                // Out of descriptors and the like: wait rather than spin.
                tracing::warn!("accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        if grpc.is_closed() {
            return;
        }
        // No room: closed here and now, so the loop goes on accepting (and closing) at once.
        let Ok(slot) = frame_slots.clone().try_acquire_owned() else {
            if let Ok(mut log) = full_log.lock() {
                log.refused("listener", FRAME_CONNECTIONS_MAX);
            }
            continue;
        };
        let (api, grpc, grpc_slots, full_log) = (
            api.clone(),
            grpc.clone(),
            grpc_slots.clone(),
            full_log.clone(),
        );
        tokio::spawn(async move {
            match tokio::time::timeout(FIRST_BYTES_TIMEOUT, starts_with_frame(&stream)).await {
                Ok(Ok(true)) => serve_frames(stream, &api).await,
                Ok(Ok(false)) => {
                    drop(slot);
                    let Ok(permit) = grpc_slots.try_acquire_owned() else {
                        if let Ok(mut log) = full_log.lock() {
                            log.refused("gRPC", GRPC_CONNECTIONS_MAX);
                        }
                        return;
                    };
                    let counted = Counted {
                        inner: stream,
                        _permit: permit,
                    };
                    let _ = grpc.send(Ok(counted)).await;
                }
                Ok(Err(_)) | Err(_) => {}
            }
        });
    }
}

/// Whether the connection starts with a frame, read without taking the bytes, so a gRPC connection reaches the
/// gRPC server whole. Fewer bytes than a magic's count as gRPC (a frame client writes its whole frame at once).
async fn starts_with_frame(stream: &impl Connection) -> std::io::Result<bool> {
    let mut first = [0u8; frames::MAGIC.len()];
    let seen = stream.peek_first(&mut first).await?;
    Ok(seen == first.len() && frames::starts_with_magic(&first))
}

/// What reading one request frame came to.
enum Read {
    /// The request, and who sent it (or why that is not known).
    Request {
        method: Method,
        identity: Result<Identity, ApiError>,
        request: pb::ApiRequest,
    },
    /// A frame refused after it was read whole: answered, and the connection goes on.
    Refused(pb::ApiReply),
    /// A frame refused before its end was read: answered, and the connection is closed (it is out of step).
    RefusedMidway(pb::ApiReply),
    /// The connection ended or failed.
    Closed,
}

/// Answers frames on one connection until the client closes it, goes silent, or sends what cannot be read.
async fn serve_frames(mut stream: impl Connection, api: &ApiService) {
    let (kernel_says, remote) = stream.peer();
    // The first header is waiting already (it was peeked); later ones may come after a pause.
    let mut wait = FRAME_READ_TIMEOUT;
    loop {
        let mut header = [0u8; HEADER_BYTES];
        match tokio::time::timeout(wait, stream.read_exact(&mut header)).await {
            Ok(Ok(_)) => {}
            Ok(Err(_)) => return,
            Err(_) => {
                tracing::debug!(?remote, "frame connection idle: closed");
                return;
            }
        }
        wait = FRAME_IDLE_TIMEOUT;
        let len = match frames::body_len(&header, MAX_REQUEST_BYTES) {
            Ok(len) => len,
            Err(e) => {
                // The rest of the connection cannot be read in step any more: answer once and close.
                tracing::warn!(?remote, "refused frame: {e}");
                write_reply(&mut stream, &frame_refusal(&e)).await;
                return;
            }
        };
        let read = read_request(&mut stream, len, &kernel_says, remote, api);
        let reply = match tokio::time::timeout(FRAME_READ_TIMEOUT, read).await {
            Err(_) => {
                tracing::warn!(
                    ?remote,
                    "frame of {len} bytes not read within {FRAME_READ_TIMEOUT:?}: closed"
                );
                return;
            }
            Ok(Read::Closed) => return,
            Ok(Read::RefusedMidway(reply)) => {
                write_reply(&mut stream, &reply).await;
                return;
            }
            Ok(Read::Refused(reply)) => reply,
            Ok(Read::Request {
                method,
                identity,
                request,
            }) => api.answer(method, identity, request, remote).await,
        };
        if !write_reply(&mut stream, &reply).await {
            return;
        }
    }
}

/// Writes one reply frame; whether the connection can go on.
async fn write_reply(stream: &mut impl Connection, reply: &pb::ApiReply) -> bool {
    let Ok(bytes) = frames::reply_frame(reply) else {
        return false;
    };
    matches!(
        tokio::time::timeout(FRAME_WRITE_TIMEOUT, stream.write_all(&bytes)).await,
        Ok(Ok(()))
    )
}

fn frame_refusal(e: &FrameError) -> pb::ApiReply {
    error_reply(&ApiError::with_detail(SlurmErrno::Error, e.to_string()))
}

/// Reads the body (`len` bytes) of one request frame: its fixed start and credential first, then, once the
/// sender is known (the kernel says, or the credential does), the message. A frame that is refused before its
/// end is read the rest of only where that is at most [`UNAUTHENTICATED_FRAME_BYTES`], so the connection can
/// go on; a bigger one closes the connection unread.
async fn read_request(
    stream: &mut impl Connection,
    len: usize,
    kernel_says: &Option<std::io::Result<Identity>>,
    remote: Option<SocketAddr>,
    api: &ApiService,
) -> Read {
    // Bytes of the body not read yet.
    let mut left = len;
    if len < PREFIX_BYTES {
        let mut body = vec![0; len];
        if stream.read_exact(&mut body).await.is_err() {
            return Read::Closed;
        }
        let e = frames::parse_request(&body)
            .err()
            .unwrap_or(FrameError::Credential);
        return Read::Refused(frame_refusal(&e));
    }
    let mut fixed = [0u8; PREFIX_BYTES];
    if stream.read_exact(&mut fixed).await.is_err() {
        return Read::Closed;
    }
    left -= PREFIX_BYTES;
    let prefix = match frames::parse_prefix(&fixed, MAX_CREDENTIAL_BYTES.min(left)) {
        Ok(prefix) => prefix,
        Err(e) => return refuse(stream, frame_refusal(&e), left).await,
    };
    let mut text = vec![0; prefix.credential_len];
    if stream.read_exact(&mut text).await.is_err() {
        return Read::Closed;
    }
    // parse_prefix bounded the credential by what is left.
    left = left.saturating_sub(prefix.credential_len);
    let credential = match prefix.credential(&text) {
        Ok(credential) => credential,
        Err(e) => return refuse(stream, frame_refusal(&e), left).await,
    };
    let opened = match kernel_says {
        Some(Ok(identity)) => Ok(OpenedCredential::Kernel(identity.clone())),
        Some(Err(e)) => {
            tracing::warn!("local socket: no peer credentials: {e}");
            Err(ApiError::new(SlurmErrno::ZeroBytes))
        }
        None => api.open_frame(&credential, prefix.method, remote),
    };
    let opened = match opened {
        Ok(opened) => opened,
        Err(e) => {
            if left > UNAUTHENTICATED_FRAME_BYTES {
                tracing::warn!(
                    ?remote,
                    "frame of {len} bytes from an unproved sender: closed unread"
                );
            }
            return refuse(stream, error_reply(&e), left).await;
        }
    };
    let mut message = vec![0; left];
    if stream.read_exact(&mut message).await.is_err() {
        return Read::Closed;
    }
    let request = match frames::parse_message(&message) {
        Ok(request) => request,
        Err(e) => return Read::Refused(frame_refusal(&e)),
    };
    let identity = api.bind_frame(opened, prefix.method, &request, remote);
    Read::Request {
        method: prefix.method,
        identity,
        request,
    }
}

/// A refusal of a frame with `left` bytes unread: those are read past where there are few enough, so the
/// connection stays in step; else the connection is closed after the answer.
async fn refuse(stream: &mut impl Connection, reply: pb::ApiReply, left: usize) -> Read {
    if left > UNAUTHENTICATED_FRAME_BYTES {
        return Read::RefusedMidway(reply);
    }
    let mut rest = vec![0; left];
    match stream.read_exact(&mut rest).await {
        Ok(_) => Read::Refused(reply),
        Err(_) => Read::Closed,
    }
}
