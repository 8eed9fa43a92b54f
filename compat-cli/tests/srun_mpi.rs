//! `srun --mpi`: plugin selection and its errors, the PMI-2 server in the step supervisors with fences over the
//! step fabric (srun as hub), on three spurd of this host: MPICH programs (conformance/mpi/, built by its
//! build.sh) wire up and run across nodes, and MPI_Abort ends the step. The namespace version beside real Slurm
//! is the MPI conformance cases (570-589).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;

use common::mpi::{mpi_programs, three_nodes, NODE_B, NODE_C};
use common::{text, Cluster};

/// srun with variables added to the cluster user's environment.
fn run_env(
    cluster: &Cluster,
    command: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> std::process::Output {
    cluster
        .command(cluster.dir.path(), command, args)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run spur")
}

fn sorted(bytes: &[u8]) -> Vec<String> {
    let mut lines: Vec<String> = text(bytes).lines().map(str::to_string).collect();
    lines.sort();
    lines
}

#[test]
fn selection_list_and_unknown_types_as_in_slurm() {
    let cluster = three_nodes("");
    let list = cluster.run("srun", &["--mpi=list"]);
    assert_eq!(list.status.code(), Some(0), "{list:?}");
    assert_eq!(
        text(&list.stdout),
        "MPI plugin types are...\n\tpmix\n\tnone\n\tcray_shasta\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n"
    );

    for (args, env) in [
        (vec!["--mpi=foo", "-n1", "true"], vec![]),
        (vec!["-n1", "true"], vec![("SLURM_MPI_TYPE", "foo")]),
    ] {
        let out = run_env(&cluster, "srun", &args, &env);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            text(&out.stderr).ends_with(
                "srun: error: Invalid MPI type 'foo', --mpi=list for acceptable types\n"
            ),
            "{out:?}"
        );
    }
    // Tasks see the type, and pmi2's variables; the supervisors' own variables are gone.
    let env = cluster.run(
        "srun",
        &[
            "--mpi=pmi2",
            "-N3",
            "-n6",
            "-l",
            "bash",
            "-c",
            "env | grep -E '^(PMI_|SLURM_MPI|SLURM_PMI2_)' | sort | tr '\\n' ' '",
        ],
    );
    assert!(env.status.success(), "{env:?}\n{}", cluster.logs());
    let lines = sorted(&env.stdout);
    assert_eq!(lines.len(), 6, "{lines:?}");
    for line in &lines {
        let (rank, rest) = line.split_once(": ").unwrap();
        let fields: Vec<&str> = rest.split_whitespace().collect();
        assert!(fields.iter().any(|f| f.starts_with("PMI_FD=")), "{line}");
        assert!(
            fields.contains(&format!("PMI_RANK={rank}").as_str()),
            "{line}"
        );
        assert!(fields.contains(&"PMI_SIZE=6"), "{line}");
        assert!(fields.contains(&"SLURM_MPI_TYPE=pmi2"), "{line}");
        assert!(!rest.contains("SLURM_PMI2_PROC_MAPPING"), "{line}");
    }
    // slurmstepd takes `none` out: a step without a plugin shows no SLURM_MPI_TYPE.
    let none = run_env(
        &cluster,
        "srun",
        &["-n1", "printenv", "SLURM_MPI_TYPE"],
        &[("SLURM_MPI_TYPE", "none")],
    );
    assert_eq!(text(&none.stdout), "", "{none:?}");
}

#[test]
fn mpich_programs_wire_up_across_nodes_and_mpi_abort_ends_the_step() {
    let programs = mpi_programs();
    let ranks = programs.join("ranks.mpich");
    let abort = programs.join("abort.mpich");
    let cluster = three_nodes("MpiDefault=pmi2\n");
    let host = common::short_hostname();
    for (args, size) in [
        (vec!["-N1", "-n2"], 2u32),
        (vec!["-N3", "-n6"], 6),
        (vec!["-N3", "-n6", "-m", "cyclic"], 6),
    ] {
        let mut all = args.clone();
        all.push(ranks.to_str().unwrap());
        let out = cluster.run("srun", &all);
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
    }
    let out = cluster.run("srun", &["-N3", "-n6", abort.to_str().unwrap()]);
    assert_ne!(out.status.code(), Some(0), "{out:?}");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("srun: Job step aborted: Waiting up to"),
        "{stderr}"
    );
    assert!(stderr.contains("CANCELLED AT"), "{stderr}");
}

/// Slurm's own PMI-2 client library (libpmi2, Debian libpmi2-0-dev) speaks PMI-2 proper: init, job id, job and
/// node attributes (a waiting get), put, fence across nodes, get, finalize.
#[test]
fn slurm_s_libpmi2_clients_fence_across_nodes() {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/c/pmi2_client.c");
    let cluster = three_nodes("");
    let program = cluster.dir.path().join("pmi2_client");
    let cc = std::process::Command::new("gcc")
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .arg("-lpmi2")
        .output()
        .expect("run gcc");
    assert!(
        cc.status.success(),
        "cannot build the libpmi2 client (install libpmi2-0-dev): {}",
        text(&cc.stderr)
    );
    let out = cluster.run(
        "srun",
        &["--mpi=pmi2", "-N3", "-n6", program.to_str().unwrap()],
    );
    assert!(out.status.success(), "{out:?}\n{}", cluster.logs());
    let nodes = [cluster.node.as_str(), NODE_B, NODE_C];
    let mut expected: Vec<String> = (0..6u32)
        .map(|rank| {
            format!(
                "rank {rank} of 6 spawned=0 appnum=-1 jobid={{JOB}}.0 universe=6 mapping=(vector,(0,3,2)) keys=6 leader={}",
                nodes[rank as usize / 2]
            )
        })
        .collect();
    expected.sort();
    let got: Vec<String> = sorted(&out.stdout)
        .into_iter()
        .map(|line| {
            let (head, tail) = line.split_once("jobid=").unwrap();
            let (_, rest) = tail.split_once('.').unwrap();
            format!("{head}jobid={{JOB}}.{rest}")
        })
        .collect();
    assert_eq!(got, expected);
}
