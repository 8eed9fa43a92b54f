//! The controller's listeners (its TCP port and its local Unix socket): each connection speaks either gRPC
//! (agents, other controllers, libspur_compat, older commands) or the plain frames of
//! [`spur_core::wire::frames`] (the commands' one-shot calls), and its first bytes say which. gRPC connections go
//! on, untouched, to the gRPC server; frame connections are answered here, by the same [`ApiService`].
//!
//! Who the caller is: on the local socket the kernel says (SO_PEERCRED), as for gRPC there; over TCP the frame's
//! credential (MUNGE or JWT) is verified as the gRPC headers would be.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, Interest};
use tokio::net::{TcpListener, TcpStream, UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use spur_core::api::{ApiError, SlurmErrno};
use spur_core::auth::{AuthMethod, Identity};
use spur_core::wire::frames::{self, RequestFrame, HEADER_BYTES};
use spur_core::wire::MAX_REQUEST_BYTES;

use super::{error_reply, ApiService};

/// How long a new connection may stay silent before it is dropped: both kinds of client write as soon as they
/// connect.
const FIRST_BYTES_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections accepted and found to be gRPC, waiting for the gRPC server to take them.
const GRPC_BACKLOG: usize = 64;

/// Accepts on `listener`: returns the gRPC connections, for tonic's `serve_with_incoming`, and the task that
/// accepts every connection and answers the frame ones itself (run it with `tokio::spawn`).
pub fn split<L: Listener>(
    listener: L,
    api: Arc<ApiService>,
) -> (
    ReceiverStream<std::io::Result<L::Stream>>,
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

async fn accept<L: Listener>(
    listener: L,
    api: Arc<ApiService>,
    grpc: mpsc::Sender<std::io::Result<L::Stream>>,
) {
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
        let (api, grpc) = (api.clone(), grpc.clone());
        tokio::spawn(async move {
            match tokio::time::timeout(FIRST_BYTES_TIMEOUT, starts_with_frame(&stream)).await {
                Ok(Ok(true)) => serve_frames(stream, &api).await,
                Ok(Ok(false)) => {
                    let _ = grpc.send(Ok(stream)).await;
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

/// Answers frames on one connection until the client closes it.
async fn serve_frames(mut stream: impl Connection, api: &ApiService) {
    let (kernel_says, remote) = stream.peer();
    loop {
        let mut header = [0u8; HEADER_BYTES];
        if stream.read_exact(&mut header).await.is_err() {
            return;
        }
        let len = match frames::body_len(&header, MAX_REQUEST_BYTES) {
            Ok(len) => len,
            Err(e) => {
                // The rest of the connection cannot be read in step any more: answer once and close.
                tracing::warn!(?remote, "refused frame: {e}");
                let refusal = ApiError::with_detail(SlurmErrno::Error, e.to_string());
                if let Ok(bytes) = frames::reply_frame(&error_reply(&refusal)) {
                    let _ = stream.write_all(&bytes).await;
                }
                return;
            }
        };
        let mut body = vec![0; len];
        if stream.read_exact(&mut body).await.is_err() {
            return;
        }
        let reply = match frames::parse_request(&body) {
            Ok(RequestFrame {
                method,
                credential,
                request,
            }) => {
                let identity = match &kernel_says {
                    Some(Ok(identity)) => Ok(identity.clone()),
                    Some(Err(e)) => {
                        tracing::warn!("local socket: no peer credentials: {e}");
                        Err(ApiError::new(SlurmErrno::ZeroBytes))
                    }
                    None => api.identify_frame(&credential, method, &request, remote),
                };
                api.answer(method, identity, request, remote).await
            }
            Err(e) => error_reply(&ApiError::with_detail(SlurmErrno::Error, e.to_string())),
        };
        let Ok(bytes) = frames::reply_frame(&reply) else {
            return;
        };
        if stream.write_all(&bytes).await.is_err() {
            return;
        }
    }
}
