//! libspur_compat.so against real C programs: each program in `libspur_compat/tests/c/` is compiled with gcc
//! against Debian's `<slurm/slurm.h>` and linked with `-lslurm` (the real library), then run unchanged against a
//! Spur cluster through the shim — by soname (`libslurm.so.38` first on LD_LIBRARY_PATH) and by LD_PRELOAD.
//! Expected outputs (`*.expected`) were printed by the same programs against real Slurm 22.05; the same
//! comparison runs live in the conformance cases 300-303.
//!
//! Needs `cargo build --workspace` first (daemons and libspur_compat.so), gcc, libslurm-dev and valgrind.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::Cluster;

fn c_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../libspur_compat/tests/c")
}

/// A directory holding `libslurm.so.38 -> libspur_compat.so`, as a site would install the shim.
fn shim_lib_dir(cluster: &Cluster) -> PathBuf {
    let so = common::bin_dir().join("libspur_compat.so");
    assert!(
        so.exists(),
        "{} missing: run `cargo build --workspace` first",
        so.display()
    );
    let dir = cluster.dir.path().join("shimlib");
    std::fs::create_dir_all(&dir).expect("lib dir");
    let link = dir.join("libslurm.so.38");
    if !link.exists() {
        std::os::unix::fs::symlink(&so, &link).expect("soname link");
    }
    dir
}

/// Compiles `name.c` against the system's Slurm headers and links it with the real `-lslurm`.
fn compile(cluster: &Cluster, name: &str) -> PathBuf {
    let out = cluster.dir.path().join(name);
    let status = Command::new("gcc")
        .args(["-Wall", "-Werror", "-o"])
        .arg(&out)
        .arg(c_dir().join(format!("{name}.c")))
        .args(["-lslurm", "-lpthread"])
        .status()
        .expect("gcc (install gcc and libslurm-dev)");
    assert!(status.success(), "gcc failed for {name}.c");
    out
}

fn run_shim(cluster: &Cluster, program: &Path, args: &[&str], preload: bool) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cluster.dir.path())
        .env("SLURM_CONF", &cluster.conf)
        .env_remove("SPUR_CONTROLLER");
    let so = common::bin_dir().join("libspur_compat.so");
    if preload {
        cmd.env("LD_PRELOAD", so);
    } else {
        cmd.env("LD_LIBRARY_PATH", shim_lib_dir(cluster));
    }
    cmd.output().expect("run C program")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(c_dir().join(format!("{name}.expected"))).expect("expected output")
}

#[test]
fn hostlist_and_list_helpers_match_libslurm() {
    let cluster = Cluster::start();
    let program = compile(&cluster, "hostlist_c");
    let out = run_shim(&cluster, &program, &[], false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    pretty_assertions::assert_eq!(stdout(&out), expected("hostlist_c"));
}

#[test]
fn job_node_partition_and_error_api_matches_real_slurm() {
    let cluster = Cluster::start();
    let program = compile(&cluster, "api_c");
    let out = run_shim(&cluster, &program, &[], false);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    pretty_assertions::assert_eq!(stdout(&out), expected("api_c"));
}

#[test]
fn smaller_calls_and_init_markers_match_real_slurm() {
    let cluster = Cluster::start();
    let program = compile(&cluster, "misc_c");
    let out = run_shim(&cluster, &program, &[], true);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    pretty_assertions::assert_eq!(stdout(&out), expected("misc_c"));
    // Like libslurm with a free node: the allocation is granted at once, so nothing is logged.
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

/// What real libslurm.so.38 printed for launch_c.c (conformance case 417 compares it with Slurm on every run).
#[test]
fn step_launch_refuses_every_context_and_nodes_report_no_energy() {
    let cluster = Cluster::start();
    let program = compile(&cluster, "launch_c");
    let out = run_shim(&cluster, &program, &[&cluster.node], false);
    assert!(out.status.success(), "{out:?}");
    let node = &cluster.node;
    pretty_assertions::assert_eq!(
        stdout(&out),
        format!(
            "launch: rc=-1 errno=22 (Invalid argument)\n\
             launch_add: rc=-1 errno=22\n\
             wait_finish, abort: errno=0\n\
             energy {node}: rc=-1 errno=5005 (Zero Bytes were transmitted or received) sensors=0 readings=NULL\n\
             energy no-such-node-x: rc=-1 errno=0 (No error) sensors=0 readings=NULL\n"
        )
    );
    pretty_assertions::assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "launch_c: error: slurm_step_launch: Not a valid slurm_step_ctx_t\n\
         launch_c: error: slurm_step_launch_add: Not a valid slurm_step_ctx_t\n\
         launch_c: error: slurm_get_node_energy: Zero Bytes were transmitted or received\n\
         launch_c: error: slurm_get_port: Address family '0' not supported\n\
         launch_c: error: Error connecting, bad data: family = 0, port = 0\n\
         launch_c: error: slurm_get_node_energy: No error\n"
    );
}

/// `slurm_print_*`/`slurm_sprint_*` print what `scontrol show` prints (conformance case 305 compares the job and
/// partition sections with real Slurm's).
#[test]
fn print_functions_render_scontrol_text() {
    let cluster = Cluster::start();
    let held = cluster.submit("#!/bin/sh\nsleep 30\n", &["-H", "-J", "pheld"]);
    let program = compile(&cluster, "print_c");
    let out = run_shim(&cluster, &program, &[&held.to_string()], false);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let scontrol = cluster.ok("scontrol", &["show", "job", &held.to_string()]);
    let job_section = text.split("--- one-liner\n").next().unwrap_or_default();
    let (head, body) = job_section.split_once('\n').unwrap_or_default();
    assert!(
        head.starts_with("Job data as of ") && head.ends_with(", record count 1"),
        "{head}"
    );
    pretty_assertions::assert_eq!(body, scontrol);
    let one_liner = cluster.ok("scontrol", &["-o", "show", "job", &held.to_string()]);
    assert!(
        text.contains(&format!("--- one-liner\n{one_liner}")),
        "{text}"
    );
    // A copy of the record prints the same, where it printed NULL (and crashed callers that strlen it).
    assert!(
        text.contains(&format!("--- copied record\n{one_liner}")),
        "{text}"
    );
    assert!(
        text.contains("--- partitions\nPartition data as of "),
        "{text}"
    );
    assert!(text.contains("PartitionName=debug\n"), "{text}");
    assert!(
        text.contains(&format!("--- nodes\nNodeName={} ", cluster.node)),
        "{text}"
    );
    cluster.ok("scancel", &[&held.to_string()]);
}

#[test]
fn squeue_in_c_prints_every_job_through_ld_preload() {
    let cluster = Cluster::start();
    let held = cluster.submit("#!/bin/sh\nsleep 30\n", &["-H", "-J", "cheld", "-t", "7"]);
    let program = compile(&cluster, "squeue_c");
    let out = run_shim(&cluster, &program, &[], true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    assert!(text.starts_with("record_count=1\n"), "{text}");
    for field in [
        format!(" job_id={held} "),
        " name=cheld ".to_string(),
        " partition=debug ".to_string(),
        " time_limit=7 ".to_string(),
        " batch_flag=1 ".to_string(),
        " job_state=0 ".to_string(),
        " priority=0 ".to_string(),
        " cluster=spurtest ".to_string(),
        format!(" work_dir={}", cluster.dir.path().display()),
    ] {
        assert!(text.contains(&field), "missing {field:?} in {text}");
    }
    cluster.ok("scancel", &[&held.to_string()]);
}

/// Without a controller, calls fail the way libslurm's do: SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR (1800).
#[test]
fn unreachable_controller_sets_slurms_connection_errno() {
    let mut cluster = Cluster::start();
    let program = compile(&cluster, "squeue_c");
    cluster.kill_controller();
    let out = run_shim(&cluster, &program, &[], false);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "slurm_load_jobs: Unable to contact slurm controller (connect failure)\n"
    );
}

#[test]
fn concurrent_calls_from_eight_threads() {
    let cluster = Cluster::start();
    cluster.submit("#!/bin/sh\nsleep 30\n", &["-H"]);
    let program = compile(&cluster, "threads_c");
    let out = run_shim(&cluster, &program, &[], false);
    assert_eq!(
        stdout(&out),
        "failures=0\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Load/free cycles leak nothing: valgrind counts no definitely or indirectly lost bytes.
#[test]
fn load_free_cycles_do_not_leak_under_valgrind() {
    let cluster = Cluster::start();
    cluster.submit("#!/bin/sh\nsleep 30\n", &["-H", "-J", "leakcheck"]);
    for name in ["squeue_c", "hostlist_c", "api_c", "misc_c"] {
        let program = compile(&cluster, name);
        let out = Command::new("valgrind")
            .args([
                "--leak-check=full",
                "--errors-for-leak-kinds=definite,indirect",
                "--error-exitcode=99",
            ])
            .arg(&program)
            .current_dir(cluster.dir.path())
            .env("SLURM_CONF", &cluster.conf)
            .env("LD_LIBRARY_PATH", shim_lib_dir(&cluster))
            .output()
            .expect("valgrind (install valgrind)");
        let report = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{name} under valgrind:\n{report}");
        assert!(
            report.contains("definitely lost: 0 bytes") || report.contains("no leaks are possible"),
            "{report}"
        );
    }
}

/// srun steps known to the controller are listed and cancelled through the C API, as `scancel JOB.0` would.
#[test]
fn job_steps_are_listed_and_cancelled_through_the_c_api() {
    let cluster = Cluster::start();
    let spur = cluster.spur_bin().display().to_string();
    let script = format!("#!/bin/sh\n{spur} srun -J inner sleep 300\necho srun rc=$?\n");
    let job = cluster.submit(&script, &["-o", "steps.out"]);
    cluster.expect_within(Duration::from_secs(30), "step 0 to run", || {
        cluster
            .run("scontrol", &["show", "step", &format!("{job}.0")])
            .status
            .success()
    });
    let program = compile(&cluster, "steps_c");
    let out = run_shim(&cluster, &program, &[&job.to_string()], false);
    let node = &cluster.node;
    assert_eq!(
        stdout(&out),
        format!(
            "step_count=2\n\
             step=batch name=batch nodes={node} tasks=1 cpus=0 partition=debug state=1\n\
             step=0 name=inner nodes={node} tasks=1 cpus=1 partition=debug state=1\n\
             kill_step0=0\n\
             kill_step7=-1 errno=2017\n"
        )
    );
    cluster.wait_for_state(job, "COMPLETED", Duration::from_secs(30));
    let batch_out =
        std::fs::read_to_string(cluster.dir.path().join("steps.out")).expect("steps.out");
    assert!(
        batch_out.contains(&format!("*** STEP {job}.0 ON {node} CANCELLED AT "))
            && batch_out.ends_with("srun rc=137\n"),
        "{batch_out}"
    );
}

/// A cluster whose name and JWT key match the reference cluster's, for programs whose expected output names the
/// cluster (the federation printer's `Self`) or fetches a token.
fn reference_like_cluster() -> (Cluster, tempfile::TempDir) {
    let keys = tempfile::tempdir().expect("key dir");
    let key = keys.path().join("jwt_hs256.key");
    std::fs::write(&key, [7u8; 32]).expect("jwt key");
    // spurctld refuses a key that group or others may read.
    std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .expect("chmod key");
    let cluster = Cluster::start_with(common::ClusterOptions {
        extra_conf: format!(
            "ClusterName=refcluster\nAuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}\n",
            key.display()
        ),
        ..Default::default()
    });
    (cluster, keys)
}

/// A running job whose srun step 0 runs two tasks.
fn job_with_two_task_step(cluster: &Cluster) -> u32 {
    let spur = cluster.spur_bin().display().to_string();
    let job = cluster.submit(
        &format!("#!/bin/sh\n{spur} srun -n2 sleep 300\n"),
        &["-n2", "-o", "/dev/null"],
    );
    cluster.expect_within(Duration::from_secs(30), "step 0 to run", || {
        cluster
            .run("scontrol", &["show", "step", &format!("{job}.0")])
            .status
            .success()
    });
    job
}

/// slurmdb_init_*, step launch params, front-end/topology/federation printers: the bytes and text real Slurm gave
/// (conformance case 307 compares them live).
#[test]
fn record_inits_and_printers_match_real_slurm() {
    let (cluster, _keys) = reference_like_cluster();
    let program = compile(&cluster, "records_c");
    let out = Command::new(&program)
        .env("SLURM_CONF", &cluster.conf)
        .env("TZ", "UTC")
        .env("LD_LIBRARY_PATH", shim_lib_dir(&cluster))
        .output()
        .expect("run records_c");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    pretty_assertions::assert_eq!(stdout(&out), expected("records_c"));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "records_c: error: No topology information available\n"
    );
}

/// Accounting cache, federation, burst buffer status, priorities, token, top, suspend2/resume2 and step layouts
/// answer as real Slurm's did for the same jobs (conformance case 308 compares them live).
#[test]
fn job_control_calls_match_real_slurm() {
    let (cluster, _keys) = reference_like_cluster();
    let running = job_with_two_task_step(&cluster);
    let held = cluster.submit("#!/bin/sh\ntrue\n", &["-H"]);
    let program = compile(&cluster, "jobctl_c");
    let out = run_shim(
        &cluster,
        &program,
        &[&running.to_string(), &held.to_string()],
        false,
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    pretty_assertions::assert_eq!(
        stdout(&out),
        expected("jobctl_c").replace("{NODE}", &cluster.node)
    );
    cluster.ok("scancel", &[&running.to_string(), &held.to_string()]);
}

/// The load/free pairs of records_c and leaks_c leave nothing unreachable: built with gcc's AddressSanitizer, whose
/// LeakSanitizer fails the program (exit 23) on any leak, including memory the shim malloc'd for it.
#[test]
fn new_load_free_pairs_leak_nothing_under_leak_sanitizer() {
    let (cluster, _keys) = reference_like_cluster();
    let running = cluster.submit("#!/bin/sh\nsleep 300\n", &[]);
    cluster.wait_for_state(running, "RUNNING", Duration::from_secs(30));
    for (name, args) in [
        ("leaks_c", vec![running.to_string()]),
        ("records_c", vec![]),
    ] {
        let program = cluster.dir.path().join(format!("{name}-asan"));
        let status = Command::new("gcc")
            .args(["-Wall", "-Werror", "-fsanitize=address", "-o"])
            .arg(&program)
            .arg(c_dir().join(format!("{name}.c")))
            .arg("-lslurm")
            .status()
            .expect("gcc");
        assert!(
            status.success(),
            "gcc -fsanitize=address failed for {name}.c"
        );
        let out = Command::new(&program)
            .args(&args)
            .env("SLURM_CONF", &cluster.conf)
            .env("LD_LIBRARY_PATH", shim_lib_dir(&cluster))
            .env("ASAN_OPTIONS", "detect_leaks=1:exitcode=23")
            .output()
            .expect("run under AddressSanitizer");
        let report = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !report.contains("LeakSanitizer"),
            "{name}:\n{report}"
        );
    }
    assert_eq!(
        stdout(&run_shim(
            &cluster,
            &compile(&cluster, "leaks_c"),
            &[&running.to_string()],
            false
        )),
        "cycles=20 failures=0\n"
    );
    cluster.ok("scancel", &[&running.to_string()]);
}

/// Partition, node, step and notify administration (admin_c.c) answers as real Slurm's did for the same setup
/// (conformance case 410 compares them live): a partition holding a held job, a running job with an srun step.
#[test]
fn partition_node_step_and_notify_administration_match_real_slurm() {
    let cluster = Cluster::start();
    cluster.ok("scontrol", &["create", "PartitionName=p410"]);
    let held = cluster.submit("#!/bin/sh\ntrue\n", &["-H", "-p", "p410"]);
    let spur = cluster.spur_bin().display().to_string();
    let script = format!("#!/bin/sh\n{spur} srun -J inner sleep 300\n");
    let running = cluster.submit(&script, &["-o", "/dev/null"]);
    cluster.expect_within(Duration::from_secs(30), "step 0 to run", || {
        cluster
            .run("scontrol", &["show", "step", &format!("{running}.0")])
            .status
            .success()
    });
    let program = compile(&cluster, "admin_c");
    let out = run_shim(
        &cluster,
        &program,
        &[&cluster.node, &running.to_string(), &held.to_string()],
        false,
    );
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        cluster.logs()
    );
    pretty_assertions::assert_eq!(
        stdout(&out),
        expected("admin_c").replace("{NODE}", &cluster.node)
    );
    cluster.ok("scancel", &[&running.to_string()]);
}

/// Reservations through the C API (resv_c.c: create, load with every `reserve_info_t` field, the printers,
/// update, delete, Slurm's errors as root and as nobody) answer as real Slurm 22.05's did on a fresh cluster
/// (conformance case 416 compares them live), and the load/free and create/free pairs leak nothing.
#[test]
fn reservations_match_real_slurm_and_leak_nothing() {
    let cluster = Cluster::start();
    let program = compile(&cluster, "resv_c");
    let out = Command::new("valgrind")
        .args([
            "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect",
            "--error-exitcode=99",
        ])
        .arg(&program)
        .arg(&cluster.node)
        .current_dir(cluster.dir.path())
        .env("SLURM_CONF", &cluster.conf)
        .env_remove("SPUR_CONTROLLER")
        .env("LD_LIBRARY_PATH", shim_lib_dir(&cluster))
        .output()
        .expect("valgrind (install valgrind)");
    let report = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "resv_c under valgrind:\n{report}\n{}",
        cluster.logs()
    );
    assert!(
        report.contains("definitely lost: 0 bytes") || report.contains("no leaks are possible"),
        "{report}"
    );
    pretty_assertions::assert_eq!(
        stdout(&out),
        expected("resv_c").replace("{NODE}", &cluster.node)
    );
}
