//! A deterministic simulator of the controller (TigerBeetle's VOPR habit): the real state machine and scheduler,
//! simulated agents over a lossy network, and injected faults, all driven by one `u64` seed. See docs/ha.md.

pub mod agent;
pub mod checks;
pub mod controller;
pub mod net;
pub mod rng;
pub mod workload;
pub mod world;
