//! `libspur_compat.so`: Slurm 22.05's public C API with Slurm's ABI (structs from bindgen's reading of
//! `<slurm/slurm.h>`), answered by Spur's controller over gRPC. A program built against Debian's libslurm runs
//! unchanged with `LD_PRELOAD=libspur_compat.so`, or with a directory holding `libslurm.so.38 -> libspur_compat.so`
//! first on `LD_LIBRARY_PATH`.
//!
//! Each module exports one area of the API; `build.rs` finds those exports, checks their signatures against the
//! headers, and generates failing stubs for the rest of the 341 public functions (see [`coverage`]).

pub mod accounting;
pub mod admin;
pub mod bitstring;
pub mod callerid;
pub mod cgroup_conf;
pub mod char_lists;
pub mod client;
pub mod conf_globals;
pub mod config;
pub mod control;
pub mod coverage;
pub mod empty;
pub mod env_array;
pub mod errno;
pub mod ffi;
pub mod flag_strings;
pub mod free_msgs;
pub mod het;
pub mod hostlist;
pub mod inits;
pub mod internal_stubs;
pub mod job_node_inx;
pub mod jobs;
pub mod jobs_extra;
pub mod layout;
pub mod licenses;
pub mod list;
pub mod log;
pub mod nodes;
pub mod partitions;
pub mod print;
pub mod print_misc;
pub mod priority;
pub mod qos_bitstr;
pub mod raw_rpc;
pub mod reservations;
pub mod resources;
pub mod resv_admin;
pub mod select_nodeinfo;
pub mod slurmdb_assoc;
pub mod slurmdb_conn;
pub mod slurmdb_free;
pub mod slurmdb_helpers;
pub mod slurmdb_init;
pub mod slurmdb_job_modify;
pub mod slurmdb_jobs;
pub mod slurmdb_modify;
pub mod slurmdb_report;
pub mod slurmdb_sizes;
pub mod state_strings;
pub mod step_launch;
pub mod step_usage;
pub mod stepd;
pub mod steps;
pub mod submit;
pub mod time_strings;
pub mod token;
pub mod variadic;
pub mod xmem;
pub mod xstring;

/// Stubs for the public functions not implemented yet, signature checks, and the coverage lists.
#[allow(clippy::all, unused_imports, non_snake_case)]
pub mod generated {
    use slurm_headers::*;
    include!(concat!(env!("OUT_DIR"), "/exports.rs"));
}
