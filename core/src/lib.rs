//! Spur's core: the Slurm language (options, `#SBATCH` directives, hostlists, value grammars, `slurm.conf`) and the
//! job model shared by the controller, the CLI, REST and the C shim.
//!
//! Everything here is pure: no I/O, no wall clock, no environment reads. Callers pass the clock, the environment and
//! file contents in, so every parser can be unit-tested against vectors taken from real Slurm 22.05.

pub mod conf;
pub mod hostlist;
pub mod agent_proto;
pub mod api;
pub mod env;
pub mod format;
pub mod job;
pub mod records;
pub mod states;
pub mod submit;
#[cfg(feature = "grpc")]
pub mod wire;
pub mod values;
pub mod options;
