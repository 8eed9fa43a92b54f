//! Slurm C API shim; filled in by the libspur_compat issue.
