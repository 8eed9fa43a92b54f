//! Spur's one model of the cluster's work: what a job asks for and what the controller knows about it ([`job`],
//! [`submit`]), its steps and how they are laid out, launched, measured and reported (`step*`, [`het_step`]),
//! job and node states ([`states`]), node, partition and reservation records, the accounting entities and records
//! `sacctmgr` and `sacct` read ([`assoc`], [`accounting`]), what a job is confined to ([`isolation`]) and the
//! controllers of a Raft group. The controller persists these types; the commands, REST and the C shim read them.

pub mod accounting;
pub mod assoc;
pub mod clearable;
pub mod controllers;
pub mod het_step;
pub mod isolation;
pub mod job;
pub mod job_edit;
pub mod mpi;
pub mod pals_apinfo;
pub mod partition_spec;
pub mod records;
pub mod reservation;
pub mod states;
pub mod step;
pub mod step_acct;
pub mod step_exit;
pub mod step_launch;
pub mod step_layout;
pub mod step_usage;
pub mod submit;
pub mod trigger;
