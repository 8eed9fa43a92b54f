//! Hostlist tests against real Slurm: vectors captured from scontrol, vectors transcribed from Slurm's own unit
//! tests, and properties checked on random input.

mod props;
mod reference;
mod scontrol;
