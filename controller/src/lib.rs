//! spurctld's library: the controller's building blocks, kept in a library so tests and benches can drive them.
pub mod raft;
