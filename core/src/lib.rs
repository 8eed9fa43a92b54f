//! Spur's core: the Slurm language (options, `#SBATCH` directives, hostlists, value grammars, `slurm.conf`) and the
//! job model shared by the controller, the CLI, REST and the C shim.
//!
//! Everything here is pure: no I/O, no wall clock, no environment reads. Callers pass the clock, the environment and
//! file contents in, so every parser can be unit-tested against vectors taken from real Slurm 22.05.

pub mod auth;
pub mod format;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod grammar;
pub mod model;
pub mod policy;
pub mod wire;
