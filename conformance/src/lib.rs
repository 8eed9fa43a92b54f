//! spur-conformance: runs the same shell scenarios (cases) against real Slurm 22.05 and against Spur, normalises
//! what each printed and reports every difference. See `conformance/README.md`.

pub mod bench;
pub mod case;
pub mod compare;
pub mod normalise;
pub mod report;
pub mod runner;
pub mod target;
