//! The wire: every message Spur's processes exchange, with its encoding and its version rules (see README.md in
//! this folder for each family, its transport and where it is tested). The controller's API ([`api`]), the agent's
//! session ([`agent_proto`]), job listings as slim records and rows ([`listing`], [`listing_rows`]), the
//! supervisor's job directory and control socket ([`supervisor`]), the step I/O frames between a remote step and
//! srun ([`step_io`]); with the `grpc` feature, the gRPC envelope generated from proto/spur.proto (`pb`, `Doc` and
//! its codec) and the commands' plain frames (`frames`). Only types, encoders and decoders live here: sockets
//! and files stay with the processes that own them.

pub mod agent_proto;
pub mod api;
pub mod listing;
pub mod listing_rows;
pub mod step_io;
pub mod supervisor;

// The gRPC envelope keeps its paths (`wire::pb`, `wire::to_doc`, `wire::MAX_REPLY_BYTES`, ...).
#[cfg(feature = "grpc")]
mod envelope;
#[cfg(feature = "grpc")]
pub use envelope::*;
#[cfg(feature = "grpc")]
pub mod frames;
