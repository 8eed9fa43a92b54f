//! Hostlist tests against real Slurm: vectors captured from scontrol, vectors transcribed from Slurm's own unit
//! tests, and properties checked on random input.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod props;
mod reference;
mod scontrol;
