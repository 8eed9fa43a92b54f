//! spurctld: Spur's controller. A deterministic state machine ([`state`]) behind a replicated log ([`raft`]),
//! a pure scheduler ([`scheduler`]), and a thin runtime ([`runtime`], [`server`]) that commits commands and
//! carries out their effects.

pub mod app;
pub mod config;
pub mod controllers;
pub mod raft;
pub mod runtime;
pub mod scheduler;
pub mod server;
pub mod state;
pub mod state_dir;
