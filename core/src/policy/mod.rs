//! Scheduling policy as pure functions of the state: `priority/multifactor` ([`priority`]), fair-share usage and
//! factors ([`fairshare`], [`fair_tree`]), TRES billing ([`billing`]), `OverSubscribe` ([`oversubscribe`]), GPU
//! shards and topology ([`gpu_shard`], [`gpu_topology`]) and the switch tree of `topology/tree` ([`switch_tree`]).
//! The scheduler, the state machine and the commands that show these figures (`sprio`, `sshare`) share them.

pub mod billing;
pub mod fair_tree;
pub mod fairshare;
pub mod gpu_shard;
pub mod gpu_topology;
pub mod oversubscribe;
pub mod priority;
pub mod switch_tree;
