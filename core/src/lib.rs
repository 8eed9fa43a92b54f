//! Spur's core: the Slurm language ([`grammar`]: options, `#SBATCH` directives, hostlists, value grammars,
//! `slurm.conf`), the job model ([`model`]), scheduling policy ([`policy`]), what the commands print
//! ([`format`](mod@format)) and the messages between processes ([`wire`]), shared by the controller, the agent,
//! the CLI, REST and the C shim.
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
