//! The controller's local Unix socket, open to every user of this host, who are told apart by the kernel
//! (SO_PEERCRED). Each connection speaks either gRPC (agents, libspur_compat, older clients) or the plain frames
//! of [`spur_core::wire::frames`] (the CLI's one-shot calls); its first bytes say which.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::Interest;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use spur_core::api::{ApiError, SlurmErrno};
use spur_core::auth::{AuthMethod, Identity};
use spur_core::wire::frames::{self, HEADER_BYTES};
use spur_core::wire::MAX_REQUEST_BYTES;

use super::{error_reply, ApiService};

/// How long a new connection may stay silent before it is dropped: both kinds of client write as soon as they
/// connect.
const FIRST_BYTES_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections accepted and found to be gRPC, waiting for the gRPC server to take them.
const GRPC_BACKLOG: usize = 64;

/// Accepts on `listener`: returns the gRPC connections, for `serve_with_incoming`, and the task that accepts and
/// answers frame connections itself (run it with `tokio::spawn`).
pub fn split(
    listener: UnixListener,
    api: Arc<ApiService>,
) -> (
    ReceiverStream<std::io::Result<UnixStream>>,
    impl std::future::Future<Output = ()>,
) {
    let (grpc, incoming) = mpsc::channel(GRPC_BACKLOG);
    (ReceiverStream::new(incoming), accept(listener, api, grpc))
}

async fn accept(
    listener: UnixListener,
    api: Arc<ApiService>,
    grpc: mpsc::Sender<std::io::Result<UnixStream>>,
) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of descriptors and the like: wait rather than spin, as tonic's own incoming does.
                tracing::warn!("local socket: accept failed: {e}");
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

/// Looks at the connection's first bytes without taking them, so a gRPC connection reaches the gRPC server
/// whole. Fewer than a magic's worth of bytes counts as gRPC (a frame client writes a whole frame at once).
async fn starts_with_frame(stream: &UnixStream) -> std::io::Result<bool> {
    let mut first = [0u8; frames::MAGIC.len()];
    let seen = stream
        .async_io(Interest::READABLE, || {
            nix::sys::socket::recv(
                std::os::fd::AsRawFd::as_raw_fd(stream),
                &mut first,
                nix::sys::socket::MsgFlags::MSG_PEEK,
            )
            .map_err(std::io::Error::from)
        })
        .await?;
    Ok(frames::starts_with_magic(&first[..seen]) && seen == first.len())
}

/// Answers frames on one connection until the client closes it.
async fn serve_frames(mut stream: UnixStream, api: &ApiService) {
    let identity = stream.peer_cred().map(|cred| Identity {
        uid: cred.uid(),
        gid: cred.gid(),
        method: AuthMethod::PeerCred,
    });
    loop {
        let mut header = [0u8; HEADER_BYTES];
        if stream.read_exact(&mut header).await.is_err() {
            return;
        }
        let len = match frames::body_len(&header, MAX_REQUEST_BYTES) {
            Ok(len) => len,
            Err(e) => {
                // The rest of the connection cannot be read in step any more: answer once and close.
                tracing::warn!("local socket: {e}");
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
            Ok((method, request)) => {
                let identity = match &identity {
                    Ok(identity) => Ok(identity.clone()),
                    Err(e) => {
                        tracing::warn!("local socket: no peer credentials: {e}");
                        Err(ApiError::new(SlurmErrno::ZeroBytes))
                    }
                };
                api.answer(method, identity, request, None).await
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
