//! Slurm's option value grammars: time limits, memory sizes, node counts, job arrays, dependencies, GRES/TRES,
//! constraints, task distributions, signals, mail types, `--begin` times, output filename patterns and step ids.
//!
//! Each grammar has a typed value, a `parse_*` function whose error `Display` is the text Slurm 22.05 prints for a
//! bad value, and where Slurm prints the value back (squeue, scontrol), a formatter producing Slurm's exact text.
//! Everything is pure: the current time and local UTC offset are passed in where a grammar depends on them.

pub mod array;
pub mod begin;
pub mod bitmap;
pub mod constraint;
pub mod dependency;
pub mod distribution;
pub mod filename;
pub mod gres;
pub mod licenses;
pub mod mail;
pub mod nodes;
pub mod signal;
pub mod size;
pub mod stepid;
pub mod time;

/// Slurm's "value not set" marker for 32-bit fields.
pub const NO_VAL: u32 = 0xffff_fffe;
/// Slurm's "no limit" marker for 32-bit fields.
pub const INFINITE: u32 = 0xffff_ffff;
/// Slurm's "value not set" marker for 64-bit fields.
pub const NO_VAL64: u64 = 0xffff_ffff_ffff_fffe;
/// Slurm's "no limit" marker for 64-bit fields.
pub const INFINITE64: u64 = 0xffff_ffff_ffff_ffff;
