//! Why an agent session (spurd's, or a simulated node's) ends. Each failure keeps the text its source gives, so
//! the log lines `session with URL ended: ...` read as they always have; the variants let the reconnect loop ask
//! what happened (a follower's refusal names the leader) without guessing from text.

use spur_auth::orders::OrderError;

use crate::machine::NodeError;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The controller answered with an error status (a follower refusing the session, a closed stream, ...).
    #[error(transparent)]
    Status(Box<tonic::Status>),
    #[error(transparent)]
    Auth(#[from] spur_auth::ClientAuthError),
    #[error(transparent)]
    Wire(#[from] spur_core::wire::WireError),
    /// A background task of the session (a launch, a spool operation) panicked or was cancelled.
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
    /// The queue towards the controller is gone (the session's stream ended).
    #[error("channel closed")]
    OutboxClosed,
    #[error(transparent)]
    Registrations(#[from] tokio::sync::AcquireError),
    #[error(transparent)]
    Node(#[from] NodeError),
    /// An order whose proof did not hold: the session is closed rather than obeying it.
    #[error("order refused: {0}")]
    OrderRefused(OrderError),
    #[error("no connection slot {0}")]
    NoSlot(usize),
    #[error("no controller to connect to")]
    NoController,
}

impl From<tonic::Status> for SessionError {
    fn from(status: tonic::Status) -> Self {
        SessionError::Status(Box::new(status))
    }
}

/// Only the message is lost: the session is over and nothing more will be sent on it.
impl<T> From<tokio::sync::mpsc::error::SendError<T>> for SessionError {
    fn from(_: tokio::sync::mpsc::error::SendError<T>) -> Self {
        SessionError::OutboxClosed
    }
}
