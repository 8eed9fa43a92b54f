//! slurm.conf's Prolog and Epilog on a real cluster: what they are given (as slurmd 22.05 gives it), that the job
//! waits for its epilog, and what a failing prolog does (the node drains with `Prolog error`, the job goes back
//! to the queue held with `launch_failed_requeued_held`, as in Slurm).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{field_of, Cluster, ClusterOptions};

/// A node script that records its environment, and fails while `fail-<name>` exists.
fn write_script(dir: &Path, name: &str) -> String {
    let path = dir.join(format!("{name}.sh"));
    let text = format!(
        "#!/bin/bash\nenv | sort > {dir}/{name}.env.$SLURM_JOB_ID\n\
         [[ {name} == epilog ]] && sleep 1 && touch {dir}/epilog-done.$SLURM_JOB_ID\n\
         [[ -e {dir}/fail-{name} ]] && exit 1\nexit 0\n",
        dir = dir.display()
    );
    std::fs::write(&path, text).expect("write script");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    path.display().to_string()
}

fn env_of(dir: &Path, name: &str, job: u32) -> Vec<String> {
    std::fs::read_to_string(dir.join(format!("{name}.env.{job}")))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("SLURM"))
        .map(str::to_string)
        .collect()
}

#[test]
fn prolog_and_epilog_run_around_the_job_and_a_failed_prolog_holds_it() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let prolog = write_script(scripts.path(), "prolog");
    let epilog = write_script(scripts.path(), "epilog");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: format!("Prolog={prolog}\nEpilog={epilog}\n"),
        ..ClusterOptions::default()
    });
    let job = cluster.wrap("exit 3", &["-o", "job.out"]);
    let state = cluster.wait_for_end(job, Duration::from_secs(30));
    assert_eq!(state, "FAILED");
    // The job ended only once its epilog was through.
    assert!(scripts.path().join(format!("epilog-done.{job}")).exists());
    let prolog_env = env_of(scripts.path(), "prolog", job);
    let node = &cluster.node;
    for wanted in [
        format!("SLURMD_NODENAME={node}"),
        format!("SLURM_JOB_ID={job}"),
        "SLURM_JOB_PARTITION=debug".to_string(),
        "SLURM_JOB_RESTART_COUNT=0".to_string(),
        "SLURM_JOB_STDIN=/dev/null".to_string(),
        format!(
            "SLURM_JOB_STDOUT={}",
            cluster.dir.path().join("job.out").display()
        ),
        format!("SLURM_NODELIST={node}"),
        "SLURM_SCRIPT_CONTEXT=prolog_slurmd".to_string(),
    ] {
        assert!(
            prolog_env.contains(&wanted),
            "{wanted} not in {prolog_env:?}"
        );
    }
    let epilog_env = env_of(scripts.path(), "epilog", job);
    for wanted in [
        "SLURM_SCRIPT_CONTEXT=epilog_slurmd",
        "SLURM_JOB_EXIT_CODE=768",
        "SLURM_JOB_EXIT_CODE2=3:0",
    ] {
        assert!(
            epilog_env.iter().any(|l| l == wanted),
            "{wanted} not in {epilog_env:?}"
        );
    }

    std::fs::write(scripts.path().join("fail-prolog"), "").expect("marker");
    let held = cluster.wrap("echo never", &["-o", "held.out"]);
    cluster.expect_within(
        Duration::from_secs(30),
        "the job back in the queue, held",
        || {
            let line = cluster.show_job(held).unwrap_or_default();
            field_of(&line, "JobState") == "PENDING"
                && field_of(&line, "Reason") == "launch_failed_requeued_held"
                && field_of(&line, "Restarts") == "1"
        },
    );
    assert!(!cluster.dir.path().join("held.out").exists());
    let reasons = cluster.ok("sinfo", &["-R", "-h", "-o", "%E|%u|%T"]);
    assert_eq!(reasons.trim(), "Prolog error|root|drained");
}

#[test]
fn task_prolog_output_changes_the_batch_scripts_environment_and_task_epilog_follows() {
    let scripts = tempfile::tempdir().expect("tempdir");
    let dir = scripts.path();
    let prolog = dir.join("taskprolog.sh");
    std::fs::write(
        &prolog,
        "#!/bin/bash\necho 'export TP_VAR=hello'\necho 'unset TP_GONE'\n\
         echo \"print prolog for $SLURM_JOB_ID as $SLURM_SCRIPT_CONTEXT pid $SLURM_TASK_PID\"\necho noise\n",
    )
    .expect("write");
    let epilog = dir.join("taskepilog.sh");
    std::fs::write(
        &epilog,
        format!(
            "#!/bin/bash\necho \"$SLURM_SCRIPT_CONTEXT $SLURM_JOB_ID\" > {}/task-epilog.$SLURM_JOB_ID\n",
            dir.display()
        ),
    )
    .expect("write");
    for path in [&prolog, &epilog] {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
    }
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: format!(
            "TaskProlog={}\nTaskEpilog={}\n",
            prolog.display(),
            epilog.display()
        ),
        ..ClusterOptions::default()
    });
    let job = cluster.wrap(
        "echo TP_VAR=$TP_VAR TP_GONE=$TP_GONE pid=$$",
        &["-o", "tp.out", "--export=ALL,TP_GONE=1"],
    );
    assert_eq!(
        cluster.wait_for_end(job, Duration::from_secs(30)),
        "COMPLETED"
    );
    let out = std::fs::read_to_string(cluster.dir.path().join("tp.out")).unwrap_or_default();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    // The prolog ran in the task's process, so the pid it was told is the script's own.
    let pid = lines[1].rsplit_once("pid=").map(|(_, p)| p).unwrap_or("?");
    assert_eq!(
        lines[0],
        format!("prolog for {job} as prolog_task pid {pid}")
    );
    assert!(lines[1].starts_with("TP_VAR=hello TP_GONE= "), "{out}");
    let epilog_out =
        std::fs::read_to_string(dir.join(format!("task-epilog.{job}"))).unwrap_or_default();
    assert_eq!(epilog_out.trim(), format!("epilog_task {job}"));
}
