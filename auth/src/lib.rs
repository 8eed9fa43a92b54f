//! Authentication with I/O: MUNGE credentials made and decoded through the real libmunge and munged, the
//! client-side step that seals a request (CLI, agents, libspur_compat), and the daemons' verifier. The pure rules
//! (payload binding, JWT, replay cache) are in `spur_core::auth`.
//!
//! Why a crate of its own: it links libmunge, which spur-core (I/O-free) must not, and the CLI, the agent, the
//! controller and the C shim all need the same code.

pub mod client;
pub mod failover;
pub mod munge;
pub mod names;
pub mod orders;
pub mod server;

pub use client::{ClientAuth, ClientAuthError};
pub use server::{AuthError, OpenedCredential, Verifier, VerifierSettings};

#[cfg(any(test, feature = "test-support"))]
pub mod testing;
