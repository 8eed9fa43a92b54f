//! Simulated nodes (`spurd --simulate HOSTLIST`): one spurd process plays every node of a hostlist against the
//! real controller, through the same session protocol as real agents, so a laptop can drive a 10,000-node
//! cluster. Nothing is executed: a job "runs" for the seconds its `SPUR_SIM_RUNTIME` declares (or the
//! `--sim-runtime` default, or until its time limit), then reports exit code 0; cancels, terminations and
//! signals end or pause it as they would a real batch script. See docs/simulation.md.
//!
//! `node` performs on simulated jobs the effects that the agent's own node state machine (crate::machine, the one
//! spurd runs) decides; `fleet` sizes the nodes from slurm.conf; `session` is the tokio layer that carries their
//! sessions.

pub mod fleet;
pub mod node;
pub mod session;
