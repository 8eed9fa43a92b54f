//! What the MPI cluster tests (srun_mpi.rs, srun_pmix.rs) share: three spurd on this host and the MPI test
//! programs of conformance/mpi/.

use std::path::PathBuf;

use super::{text, Cluster, ClusterOptions};

/// The two extra nodes' names (the first is the cluster's own node).
pub const NODE_B: &str = "spurtestb";
pub const NODE_C: &str = "spurtestc";

/// A cluster of three spurd on this host, with `extra_conf` added to slurm.conf.
pub fn three_nodes(extra_conf: &str) -> Cluster {
    Cluster::start_with(ClusterOptions {
        extra_nodes: vec![NODE_B.to_string(), NODE_C.to_string()],
        extra_conf: extra_conf.to_string(),
        ..ClusterOptions::default()
    })
}

/// The directory of the MPI test programs (built once per source digest by conformance/mpi/build.sh).
pub fn mpi_programs() -> PathBuf {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance/mpi/build.sh");
    let out = std::process::Command::new(&script)
        .output()
        .expect("run conformance/mpi/build.sh");
    assert!(
        out.status.success(),
        "conformance/mpi/build.sh failed (install openmpi-bin, libopenmpi-dev, mpich and libmpich-dev): {}",
        text(&out.stderr)
    );
    PathBuf::from(text(&out.stdout).trim())
}
