//! A controller whose state directory fills up: the submission that finds the disk full is refused (not
//! acknowledged), `scontrol ping` and the controller's log say why, the controller exits for a restart once there
//! is room again, and after the restart every acknowledged job is there and the refused one is not.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::{text, Cluster, ClusterOptions, LONG};

/// The state directory's tmpfs: room for the store, filled up by the test.
const STATE_BYTES: u64 = 32 << 20;
/// Each job's script, so that a few submissions use up the log's space filled ahead (1 MiB).
const SCRIPT_BYTES: usize = 96 << 10;

#[test]
fn a_full_state_disk_refuses_writes_says_why_and_loses_no_acknowledged_job() {
    if !nix::unistd::getuid().is_root() {
        eprintln!("skipped: mounting a small tmpfs for the controller's state needs root");
        return;
    }
    let mut cluster = Cluster::start_with(ClusterOptions {
        state_tmpfs_bytes: Some(STATE_BYTES),
        ..ClusterOptions::default()
    });
    let script = cluster.write_file(
        "big.sh",
        &format!("#!/bin/sh\n# {}\ntrue\n", "x".repeat(SCRIPT_BYTES)),
    );
    let script = script.display().to_string();
    let submit = |cluster: &Cluster| cluster.run("sbatch", &["--parsable", "--hold", &script]);
    let mut acknowledged: Vec<u32> = (0..2)
        .map(|_| common::parse_job_id(&text(&submit(&cluster).stdout)))
        .collect();

    // Fill the state directory's filesystem to the last byte, then give back a little: less than the log needs
    // to fill its next stretch ahead.
    let filler_path = cluster.dir.path().join("state").join("filler");
    let mut filler = std::fs::File::create(&filler_path).unwrap();
    let chunk = vec![0xa5u8; 64 << 10];
    while filler.write_all(&chunk).is_ok() {}
    let full = filler.metadata().unwrap().len();
    filler.set_len(full.saturating_sub(256 << 10)).unwrap();
    drop(filler);

    let mut refusal = None;
    for _ in 0..64 {
        let out = submit(&cluster);
        if out.status.success() {
            acknowledged.push(common::parse_job_id(&text(&out.stdout)));
        } else {
            refusal = Some(text(&out.stderr));
            break;
        }
    }
    let refusal = refusal.unwrap_or_else(|| {
        panic!(
            "no submission was refused on a full disk\n{}",
            cluster.logs()
        )
    });
    assert!(
        refusal.contains("storage failed"),
        "{refusal}\n{}",
        cluster.logs()
    );

    let ping = cluster.run("scontrol", &["ping"]);
    let said = text(&ping.stdout);
    assert!(!ping.status.success(), "{said}");
    assert!(
        said.contains("is DOWN (state storage failed:") && said.contains("No space left on device"),
        "{said}\n{}",
        cluster.logs()
    );
    assert!(
        cluster.logs().contains("the raft store could not write"),
        "{}",
        cluster.logs()
    );
    // Nothing is served from the stopped controller's state.
    assert!(!cluster.run("squeue", &[]).status.success());

    // Room again: the controller exits by itself, with a status a supervisor restarts on.
    std::fs::remove_file(&filler_path).unwrap();
    let mut controller = cluster.controller.take().unwrap();
    let deadline = Instant::now() + LONG;
    let status = loop {
        if let Some(status) = controller.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = controller.kill();
            panic!(
                "the controller did not exit once there was room\n{}",
                cluster.logs()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(75), "{}", cluster.logs());

    cluster.restart_controller();
    for &job in &acknowledged {
        assert!(
            cluster.show_job(job).is_some(),
            "acknowledged job {job} lost\n{}",
            cluster.logs()
        );
    }
    // The refused submission did not come back as a job.
    let listed = cluster.squeue("%i", &["-h"]);
    assert_eq!(
        listed.len(),
        acknowledged.len(),
        "{listed:?} {acknowledged:?}"
    );
}

/// Builds the LD_PRELOAD shim that fails the state directory's writes or syncs with EIO on demand.
fn io_fault_shim(dir: &std::path::Path) -> std::path::PathBuf {
    let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/io_faults.c");
    let shim = dir.join("io_faults.so");
    let built = std::process::Command::new("gcc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&shim)
        .arg(&source)
        .arg("-ldl")
        .status()
        .expect("gcc");
    assert!(built.success(), "building {}", source.display());
    shim
}

/// A disk that starts failing with EIO (on fsync, or on the writes themselves) under a running controller: the
/// first submission that meets it is refused, the controller stops serving and says why, and once the disk works
/// again it exits for a restart that finds every acknowledged job and not the refused one.
fn an_io_error_is_refused_and_loses_nothing(mode: &str) {
    let tools = tempfile::tempdir().unwrap();
    let shim = io_fault_shim(tools.path());
    let trigger = tools.path().join("failing");
    let mut cluster = Cluster::start_with(ClusterOptions {
        controller_env: vec![
            ("LD_PRELOAD".into(), shim.display().to_string()),
            ("SPUR_IO_FAULT_DIR".into(), "/state/".into()),
            ("SPUR_IO_FAULT_MODE".into(), mode.into()),
            (
                "SPUR_IO_FAULT_TRIGGER".into(),
                trigger.display().to_string(),
            ),
        ],
        ..ClusterOptions::default()
    });
    let submit =
        |cluster: &Cluster| cluster.run("sbatch", &["--parsable", "--hold", "--wrap", "true"]);
    let acknowledged: Vec<u32> = (0..3)
        .map(|_| common::parse_job_id(&text(&submit(&cluster).stdout)))
        .collect();

    std::fs::write(&trigger, "").unwrap();
    let refused = submit(&cluster);
    assert!(
        !refused.status.success(),
        "a submission was acknowledged on a failing disk"
    );
    let said = text(&refused.stderr);
    assert!(
        said.contains("storage failed"),
        "{said}\n{}",
        cluster.logs()
    );
    let ping = cluster.run("scontrol", &["ping"]);
    let pinged = text(&ping.stdout);
    assert!(!ping.status.success(), "{pinged}");
    assert!(
        pinged.contains("is DOWN (state storage failed:") && pinged.contains("Input/output error"),
        "{pinged}\n{}",
        cluster.logs()
    );

    std::fs::remove_file(&trigger).unwrap();
    let mut controller = cluster.controller.take().unwrap();
    let deadline = Instant::now() + LONG;
    let status = loop {
        if let Some(status) = controller.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = controller.kill();
            panic!(
                "the controller did not exit once the disk worked\n{}",
                cluster.logs()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(status.code(), Some(75), "{}", cluster.logs());
    cluster.restart_controller();
    let listed = cluster.squeue("%i", &["-S", "i"]);
    let expected: Vec<String> = acknowledged.iter().map(u32::to_string).collect();
    assert_eq!(listed, expected, "{}", cluster.logs());
}

#[test]
fn a_failing_fsync_is_refused_and_loses_no_acknowledged_job() {
    an_io_error_is_refused_and_loses_nothing("fsync");
}

#[test]
fn a_failing_write_is_refused_and_loses_no_acknowledged_job() {
    an_io_error_is_refused_and_loses_nothing("write");
}
