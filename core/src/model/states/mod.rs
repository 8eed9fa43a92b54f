//! Slurm's job states, node states and job state reasons, with every printed form Slurm 22.05 uses (`squeue`,
//! `sinfo`, `scontrol`) and the wire values, so the controller, the CLI and the C shim agree on one model.
//!
//! All enums derive serde with explicit, stable names (Slurm's own spellings) because they are persisted.

mod flags;
pub mod job;
pub mod node;
pub mod reason;

pub use flags::{Flag, FlagSet};
pub use job::{JobBaseState, JobState, JobStateFlag, JobStateFlags, JobStateName};
pub use node::{InvalidNodeState, NodeBaseState, NodeState, NodeStateFlag, NodeStateFlags};
pub use reason::{reason_string, JobReason};
