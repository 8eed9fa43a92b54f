//! A PMIx server for one step's tasks on one node, hosted by the step supervisor (spurstepd links this crate),
//! built on the system's OpenPMIx 4.2 as Slurm's `mpi/pmix` plugin is. See README.md for what it registers, the
//! collective contract and the limits.
//!
//! libpmix keeps its server state in process globals: `PMIx_server_init` can run once per process, so
//! [`PmixServer::start`] succeeds once per process, even after [`PmixServer::finish`]. spurstepd supervises one
//! step per process, which fits.

mod ffi;
mod guard;
mod info;
mod layout;
mod server;

pub use layout::{NodeTasks, StepLayout};
pub use server::PmixServer;

/// The step's inter-node exchange, implemented by the supervisor over its fabric.
///
/// Each node's server calls `allgather` once per collective (PMIx fence), in the same order on every node, with
/// this node's contribution; it returns every node's contribution ordered by node index (this node's included).
/// It blocks until all nodes contributed, and returns an error when that can no longer happen (a node is gone,
/// the step is being torn down): the server then completes the fence with an error, so the ranks abort instead
/// of hanging. The server calls it from its own worker thread, never from libpmix's progress thread.
pub trait StepCollective: Send + Sync + 'static {
    fn allgather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>, String>;
}

/// A rank called `PMIx_Abort` (Open MPI's `MPI_Abort`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbortEvent {
    /// Global rank of the caller.
    pub rank: u32,
    /// The status it passed (`MPI_Abort`'s error code).
    pub status: i32,
    /// Its message, if any.
    pub message: String,
}

/// Called (from a thread of the server's own) for every abort; the supervisor then tears the step down.
pub type AbortHandler = Box<dyn Fn(AbortEvent) + Send + Sync + 'static>;

/// What can go wrong starting or using the server.
#[derive(Debug, thiserror::Error)]
pub enum PmixError {
    #[error(
        "the PMIx server was already started in this process (libpmix allows one per process)"
    )]
    AlreadyStarted,
    #[error("invalid step layout: {0}")]
    Layout(String),
    #[error("rank {0} does not run on this node")]
    UnknownRank(u32),
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error(
        "PMIx_server_finalize did not return within 10 s; the step's PMIx state was abandoned"
    )]
    FinalizeTimeout,
    #[error("{call} failed with PMIx status {status}")]
    Pmix { call: &'static str, status: i32 },
    #[error("{0}")]
    Unguarded(String),
}
