//! Spur's core: the Slurm language (options, `#SBATCH` directives, hostlists, value grammars, `slurm.conf`) and the
//! job model shared by the controller, the CLI, REST and the C shim.
//!
//! Everything here is pure: no I/O, no wall clock, no environment reads. Callers pass the clock, the environment and
//! file contents in, so every parser can be unit-tested against vectors taken from real Slurm 22.05.

pub mod accounting;
pub mod agent_proto;
pub mod api;
pub mod assoc;
pub mod auth;
pub mod billing;
pub mod clearable;
pub mod conf;
pub mod controllers;
pub mod cpu_bind;
pub mod env;
pub mod fair_tree;
pub mod fairshare;
pub mod format;
#[doc(hidden)]
pub mod fuzz_entry;
pub mod gpu_bind;
pub mod gpu_shard;
pub mod gpu_topology;
pub mod het_step;
pub mod hostlist;
pub mod isolation;
pub mod job;
pub mod listing;
pub mod listing_rows;
pub mod multi_prog;
pub mod name_cache;
pub mod options;
pub mod oversubscribe;
pub mod partition_spec;
pub mod priority;
pub mod records;
pub mod reservation;
pub mod rlimits;
pub mod states;
pub mod step;
pub mod step_exit;
pub mod step_launch;
pub mod step_layout;
pub mod step_usage;
pub mod submit;
pub mod switch_tree;
pub mod task_prolog;
pub mod values;
#[cfg(feature = "grpc")]
pub mod wire;
