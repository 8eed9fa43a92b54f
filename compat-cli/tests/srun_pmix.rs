//! `srun --mpi=pmix`: the PMIx server (pmix-plugin/) in the step supervisors, fences over the step fabric, on
//! three spurd of this host: Open MPI programs (conformance/mpi/, built by its build.sh) wire up on one node and
//! across nodes, and MPI_Abort ends the step with Slurm's messages and the rank's exit code. The namespace version
//! beside real Slurm is the MPI conformance cases (570-589).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::mpi::{mpi_programs, three_nodes};
use common::{text, Cluster};

/// The three "nodes" share this host, its host name and /dev/shm: Open MPI's shared-memory transport names its
/// segments by host, job and local rank, so two nodes' ranks would collide; TCP between every pair instead.
const TCP_ONLY: (&str, &str) = ("OMPI_MCA_btl", "self,tcp");

fn srun(cluster: &Cluster, args: &[&str]) -> std::process::Output {
    cluster
        .command(cluster.dir.path(), "srun", args)
        .env(TCP_ONLY.0, TCP_ONLY.1)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run srun")
}

fn sorted(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn open_mpi_wires_up_on_one_node_and_across_nodes() {
    let ranks = mpi_programs().join("ranks.openmpi");
    let cluster = three_nodes("");
    let host = common::short_hostname();
    for (args, size) in [
        (vec!["--mpi=pmix", "-N1", "-n2"], 2u32),
        (vec!["--mpi=pmix", "-N3", "-n6"], 6),
        (vec!["--mpi=pmix_v4", "-N3", "-n6", "-m", "cyclic"], 6),
        (vec!["--mpi=pmix", "-N3", "--ntasks-per-node=1"], 3),
    ] {
        let mut all = args.clone();
        all.push(ranks.to_str().unwrap());
        let out = srun(&cluster, &all);
        assert!(
            out.status.success(),
            "{args:?}: {out:?}\n{}",
            cluster.logs()
        );
        let sum = size * (size - 1) / 2;
        let mut expected: Vec<String> = (0..size)
            .map(|r| {
                format!(
                    "rank {r} of {size} on {host} sum={sum} ring_from={}",
                    (r + size - 1) % size
                )
            })
            .collect();
        expected.sort();
        assert_eq!(sorted(&out.stdout), expected, "{args:?}");
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
    // What a pmix task sees: the PMIx server's variables, and not what srun passed the supervisors only.
    let env = srun(
        &cluster,
        &[
            "--mpi=pmix",
            "-N3",
            "-n3",
            "-l",
            "bash",
            "-c",
            "env | grep -E '^(PMIX_RANK|PMIX_NAMESPACE|SLURM_MPI_TYPE|SLURM_PMIX_MAPPING_SERV|SLURM_PMI2_)=' | sort | tr '\\n' ' '",
        ],
    );
    assert!(env.status.success(), "{env:?}\n{}", cluster.logs());
    let lines = sorted(&env.stdout);
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in &lines {
        let (rank, rest) = line.split_once(": ").unwrap();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        assert!(
            fields.contains(&format!("PMIX_RANK={rank}").as_str()),
            "{line}"
        );
        assert!(
            fields
                .iter()
                .any(|f| f.starts_with("PMIX_NAMESPACE=slurm.pmix.") && f.ends_with(".0")),
            "{line}"
        );
        assert!(fields.contains(&"SLURM_MPI_TYPE=pmix"), "{line}");
        assert!(
            fields.contains(&"SLURM_PMIX_MAPPING_SERV=(vector,(0,3,1))"),
            "{line}"
        );
        assert!(!rest.contains("SLURM_PMI2_"), "{line}");
    }
}

/// `MPI_Abort(MPI_COMM_WORLD, 7)` in rank 1 (conformance/mpi/abort.c) under Slurm 22.05: the step is cancelled,
/// the other ranks killed, and srun exits with the aborting rank's code.
#[test]
fn mpi_abort_ends_the_step_as_slurm_does() {
    let abort = mpi_programs().join("abort.openmpi");
    let cluster = three_nodes("");
    for nodes in ["-N1", "-N2"] {
        let out = srun(
            &cluster,
            &["--mpi=pmix", nodes, "-n2", abort.to_str().unwrap()],
        );
        let stderr = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(7),
            "{nodes}: {out:?}\n{}",
            cluster.logs()
        );
        assert!(
            stderr.contains("srun: Job step aborted: Waiting up to"),
            "{nodes}: {stderr}"
        );
        assert!(
            stderr.contains("MPI_ABORT was invoked on rank 1"),
            "{nodes}: {stderr}"
        );
        assert!(stderr.contains("CANCELLED AT"), "{nodes}: {stderr}");
        assert!(
            stderr.contains("task 1: Exited with exit code 7"),
            "{nodes}: {stderr}"
        );
        assert!(stderr.contains("task 0: Killed"), "{nodes}: {stderr}");
    }
}
