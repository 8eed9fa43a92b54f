//! Confinement with real cgroups on this host (its v1 controllers, or the unified tree of a v2 host; on a hybrid host
//! also the empty v2 tree at /sys/fs/cgroup/unified for the v2 mechanics). As root these check cpusets, memory limits
//! with the OOM outcome, denied device nodes, cleanup after the job and after a crashed supervisor; as an ordinary user
//! they check that the job still runs, unconfined, with a warning in stepd's log.
//!
//! Every test uses its own node name, so its cgroups (`spur_<node>/...`) never meet another test's or a running
//! agent's, and removes what it made.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{euid, wait_for_text, TestJob};
use spur_core::model::isolation::MemoryLimits;
use spur_core::wire::supervisor::{CgroupSpec, Outcome};
use spur_stepd::cgroup::{self, Hierarchy};

const MB: u64 = 1024 * 1024;

fn node(tag: &str) -> String {
    format!("cgtest{}{tag}", std::process::id())
}

fn confined_job(tag: &str, body: &str, spec: CgroupSpec) -> TestJob {
    let mut job = TestJob::new(&format!("cg-{tag}"), body);
    job.spec.node_name = node(tag);
    job.spec.cgroup = Some(spec);
    job
}

fn is_v2() -> bool {
    matches!(Hierarchy::detect(), Some(Hierarchy::V2 { .. }))
}

/// The job's cgroup directories on this host (existing or not): one per v1 controller, or the v2 one.
fn job_dirs(node: &str, uid: u32, job_id: u32) -> Vec<PathBuf> {
    let rel = cgroup::job_rel_path(node, uid, job_id);
    if is_v2() {
        return vec![Path::new(cgroup::CGROUP_ROOT).join(rel)];
    }
    ["freezer", "cpuset", "memory", "devices", "pids"]
        .iter()
        .map(|c| Path::new(cgroup::CGROUP_ROOT).join(c).join(&rel))
        .collect()
}

/// Asserts that nothing of `node` is left under any controller, then removes the (empty) node directories.
fn assert_cleaned(node: &str, uid: u32, job_id: u32) {
    for dir in job_dirs(node, uid, job_id) {
        assert!(!dir.exists(), "{} was left behind", dir.display());
        let uid_dir = dir.parent().unwrap();
        assert!(!uid_dir.exists(), "{} was left behind", uid_dir.display());
        let _ = fs::remove_dir(uid_dir.parent().unwrap());
    }
}

fn root_only() -> bool {
    if euid() != 0 {
        eprintln!("not root: cgroup enforcement is checked by unconfined_without_root instead");
        return false;
    }
    true
}

#[test]
fn unconfined_without_root() {
    if euid() == 0 {
        return;
    }
    let job = confined_job(
        "noroot",
        "echo ran",
        CgroupSpec {
            cpus: Some("0".into()),
            ..CgroupSpec::default()
        },
    );
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), "ran\n");
    wait_for_text(
        &job.dir.join("stepd.log"),
        "runs without cgroup confinement",
    );
}

#[test]
fn cpuset_restricts_the_job_to_its_cores() {
    if !root_only() {
        return;
    }
    let node = node("cpuset");
    let job = confined_job(
        "cpuset",
        "grep Cpus_allowed_list /proc/self/status; grep -E 'spur_' /proc/self/cgroup | sort",
        CgroupSpec {
            cpus: Some("0".into()),
            ..CgroupSpec::default()
        },
    );
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    let rel = cgroup::job_rel_path(&node, 0, 41).join("step_batch");
    let rel = rel.display();
    let out = job.stdout();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "Cpus_allowed_list:\t0");
    let expected = if is_v2() {
        vec![format!("0::/{rel}")]
    } else {
        vec![format!(":cpuset:/{rel}"), format!(":freezer:/{rel}")]
    };
    assert_eq!(lines.len(), 1 + expected.len(), "{out}");
    for (line, tail) in lines[1..].iter().zip(&expected) {
        assert!(line.ends_with(tail.as_str()), "{out}");
    }
    assert_cleaned(&node, 0, 41);
}

#[test]
fn memory_limit_kills_and_reports_out_of_memory() {
    if !root_only() {
        return;
    }
    let node = node("oom");
    // The pipe's reader holds 200 MB; the kernel kills it at 50 MB and the script goes on to exit 0.
    let job = confined_job(
        "oom",
        "head -c 200M /dev/zero | tail; echo after",
        CgroupSpec {
            memory: Some(MemoryLimits {
                ram_bytes: 50 * MB,
                soft_bytes: 50 * MB,
                ram_swap_bytes: Some(50 * MB),
            }),
            ..CgroupSpec::default()
        },
    );
    job.launch();
    let result = job.wait_result();
    assert_eq!(result.outcome, Outcome::OutOfMemory);
    assert_eq!(result.exit_code, Some(0));
    assert_eq!(job.stdout(), "after\n");
    let err = job.stderr();
    assert!(err.contains("Killed"), "{err}");
    assert!(
        err.ends_with(
            "slurmstepd-vm: error: Detected 1 oom-kill event(s) in StepId=41.batch. Some of your \
             processes may have been killed by the cgroup out-of-memory handler.\n"
        ),
        "{err}"
    );
    assert_cleaned(&node, 0, 41);
}

#[test]
fn memory_within_the_limit_completes() {
    if !root_only() {
        return;
    }
    let node = node("memok");
    let job = confined_job(
        "memok",
        "head -c 20M /dev/zero | tail | wc -c\n\
         if grep -q '^0::/spur_' /proc/self/cgroup; then\n\
           cat /sys/fs/cgroup$(grep '^0::' /proc/self/cgroup | cut -d: -f3)/memory.max\n\
         else\n\
           cat /sys/fs/cgroup/memory$(grep -o 'memory:.*' /proc/self/cgroup | cut -d: -f2)/../memory.limit_in_bytes\n\
         fi",
        CgroupSpec {
            memory: Some(MemoryLimits {
                ram_bytes: 100 * MB,
                soft_bytes: 100 * MB,
                ram_swap_bytes: None,
            }),
            ..CgroupSpec::default()
        },
    );
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(job.stdout(), format!("20971520\n{}\n", 100 * MB));
    assert_cleaned(&node, 0, 41);
}

/// Character devices with the NVIDIA major, as the conformance targets fake GPUs: without a driver an
/// allowed node fails to open with ENXIO, a denied one with EPERM from the devices controller.
fn fake_gpus(dir: &Path) -> Vec<PathBuf> {
    (0..2)
        .map(|i| {
            let p = dir.join(format!("nvidia{i}"));
            nix::sys::stat::mknod(
                &p,
                nix::sys::stat::SFlag::S_IFCHR,
                nix::sys::stat::Mode::from_bits_truncate(0o666),
                nix::sys::stat::makedev(195, 200 + i),
            )
            .unwrap();
            p
        })
        .collect()
}

#[test]
fn devices_not_allocated_are_denied() {
    if !root_only() {
        return;
    }
    let node = node("dev");
    let mut job = confined_job("dev", "", CgroupSpec::default());
    let gpus = fake_gpus(&job.dir);
    fs::write(
        &job.spec.script_path,
        format!(
            "#!/bin/bash\nhead -c1 {} 2>&1 | sed 's/.*: //'\nhead -c1 {} 2>&1 | sed 's/.*: //'\n",
            gpus[0].display(),
            gpus[1].display()
        ),
    )
    .unwrap();
    job.spec.cgroup = Some(CgroupSpec {
        constrain_devices: true,
        denied_devices: vec![gpus[1].clone()],
        ..CgroupSpec::default()
    });
    job.launch();
    assert_eq!(job.wait_result().outcome, Outcome::Completed);
    assert_eq!(
        job.stdout(),
        "No such device or address\nOperation not permitted\n"
    );
    assert_cleaned(&node, 0, 41);
}

/// Starts `sleep` inside `dirs` the way stepd's child joins: writing "0" into each `cgroup.procs` before exec.
fn sleeper_in(files: Vec<fs::File>) -> std::process::Child {
    let fds: Vec<i32> = files.iter().map(|f| f.as_raw_fd()).collect();
    let mut cmd = Command::new("sleep");
    cmd.arg("300");
    // SAFETY: the closure only calls write(2), which is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            for &fd in &fds {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let child = cmd.spawn().unwrap();
    drop(files);
    child
}

#[test]
fn orphaned_cgroups_are_emptied_and_removed() {
    if !root_only() {
        return;
    }
    let node = node("orphan");
    let hierarchy = Hierarchy::detect().expect("a cgroup file system");
    let spec = CgroupSpec {
        cpus: Some("0".into()),
        ..CgroupSpec::default()
    };
    let setup = cgroup::create(Some(&hierarchy), &spec, &node, 0, 7, cgroup::BATCH_STEP);
    assert!(setup.warnings.is_empty(), "{:?}", setup.warnings);
    let cgroups = setup.cgroups.unwrap();
    let mut sleeper = sleeper_in(cgroups.attach_files(0).unwrap());
    let pid = sleeper.id();
    let cgroup_file = fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap();
    assert!(cgroup_file.contains(&format!("spur_{node}/uid_0/job_7/step_batch")));
    // Job 8 is still supervised: its cgroups stay.
    let other = cgroup::create(Some(&hierarchy), &spec, &node, 0, 8, cgroup::BATCH_STEP)
        .cgroups
        .unwrap();
    // The supervisor of job 7 "crashed": its JobCgroups is forgotten, as a dead process would.
    std::mem::forget(cgroups);
    let cleaned = cgroup::clean_jobs(&hierarchy, &node, &[7, 99]);
    assert_eq!(cleaned, vec![7]);
    let status = sleeper.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    for dir in job_dirs(&node, 0, 7) {
        assert!(!dir.exists(), "{}", dir.display());
    }
    assert!(other.step_dirs().iter().all(|d| d.exists()));
    assert!(other.remove().is_empty());
    assert_cleaned(&node, 0, 8);
}

#[test]
fn a_step_with_its_own_memory_limit_leaves_the_jobs_alone() {
    if !root_only() {
        return;
    }
    let node = node("stepmem");
    let hierarchy = Hierarchy::detect().expect("a cgroup file system");
    let limits = |mb: u64| MemoryLimits {
        ram_bytes: mb << 20,
        soft_bytes: mb << 20,
        ram_swap_bytes: None,
    };
    let spec = CgroupSpec {
        memory: Some(limits(500)),
        step_memory: Some(limits(50)),
        ..CgroupSpec::default()
    };
    let cgroups = cgroup::create(Some(&hierarchy), &spec, &node, 0, 9, "step_0")
        .cgroups
        .expect("cgroups");
    let read = |dir: &Path| {
        let file = if dir.join("memory.limit_in_bytes").exists() {
            "memory.limit_in_bytes"
        } else {
            "memory.max"
        };
        fs::read_to_string(dir.join(file))
            .map(|t| t.trim().to_string())
            .unwrap_or_default()
    };
    let step = cgroups
        .step_dirs()
        .into_iter()
        .find(|d| d.to_string_lossy().contains("memory"))
        .expect("a memory step directory");
    assert_eq!(read(&step), (50u64 << 20).to_string());
    assert_eq!(read(step.parent().unwrap()), (500u64 << 20).to_string());
    assert!(cgroups.remove().is_empty());
    assert_cleaned(&node, 0, 9);
}

#[test]
fn each_task_accounts_memory_and_devices_below_its_step() {
    if !root_only() {
        return;
    }
    let node = node("pertask");
    let hierarchy = Hierarchy::detect().expect("a cgroup file system");
    let spec = CgroupSpec {
        cpus: Some("0".into()),
        memory: Some(MemoryLimits {
            ram_bytes: 300 * MB,
            soft_bytes: 300 * MB,
            ram_swap_bytes: None,
        }),
        constrain_devices: true,
        ..CgroupSpec::default()
    };
    let cgroups = cgroup::create(Some(&hierarchy), &spec, &node, 0, 12, "step_0")
        .cgroups
        .expect("cgroups");
    let shown = output_in(
        cgroups.attach_files(3).unwrap(),
        "grep spur_ /proc/self/cgroup | cut -d: -f2- | sort",
    );
    let rel = cgroup::job_rel_path(&node, 0, 12).join("step_0");
    let rel = rel.display();
    let expected = if is_v2() {
        format!(":/{rel}\n")
    } else {
        // As slurmstepd 22.05 on v1: memory and devices per task, cpuset and freezer per step.
        format!("cpuset:/{rel}\ndevices:/{rel}/task_3\nfreezer:/{rel}\nmemory:/{rel}/task_3\n")
    };
    assert_eq!(shown, expected);
    if !is_v2() {
        // The task's directory has no limit of its own: the step's bounds it.
        let task = Path::new(cgroup::CGROUP_ROOT)
            .join("memory")
            .join(cgroup::job_rel_path(&node, 0, 12))
            .join("step_0/task_3");
        let limit: u64 = fs::read_to_string(task.join("memory.limit_in_bytes"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!(limit > 300 * MB, "{limit}");
    }
    assert!(cgroups.remove_step().is_empty());
    for dir in job_dirs(&node, 0, 12) {
        if dir.exists() {
            assert!(!dir.join("step_0").exists(), "{}", dir.display());
            fs::remove_dir(&dir).unwrap();
        }
    }
    for dir in job_dirs(&node, 0, 12) {
        let _ = fs::remove_dir(dir.parent().unwrap());
        let _ = fs::remove_dir(dir.parent().unwrap().parent().unwrap());
    }
    assert_cleaned(&node, 0, 12);
}

#[test]
fn the_job_pids_limit_bounds_its_processes() {
    if !root_only() {
        return;
    }
    let node = node("pids");
    let hierarchy = Hierarchy::detect().expect("a cgroup file system");
    let spec = CgroupSpec {
        pids_max: Some(4),
        ..CgroupSpec::default()
    };
    let cgroups = cgroup::create(Some(&hierarchy), &spec, &node, 0, 13, "step_0")
        .cgroups
        .expect("cgroups");
    // Python forks without bash's retries: it (one process) gets three children before EAGAIN.
    let forks = "import os, time\nn = 0\nfor _ in range(10):\n    try:\n        pid = os.fork()\n    \
                 except OSError:\n        break\n    if pid == 0:\n        time.sleep(1)\n        os._exit(0)\n    \
                 n += 1\nprint(n)";
    let shown = output_in(
        cgroups.attach_files(0).unwrap(),
        &format!("exec /usr/bin/python3 -c '{forks}'"),
    );
    assert_eq!(shown, "3\n");
    let job_dir = if is_v2() {
        Path::new(cgroup::CGROUP_ROOT).join(cgroup::job_rel_path(&node, 0, 13))
    } else {
        Path::new(cgroup::CGROUP_ROOT)
            .join("pids")
            .join(cgroup::job_rel_path(&node, 0, 13))
    };
    assert_eq!(
        fs::read_to_string(job_dir.join("pids.max")).unwrap().trim(),
        "4"
    );
    assert!(cgroups.remove().is_empty());
    assert_cleaned(&node, 0, 13);
}

#[test]
fn required_confinement_refuses_what_cannot_be_enforced() {
    if !root_only() {
        return;
    }
    let node = node("required");
    let hierarchy = Hierarchy::detect().expect("a cgroup file system");
    let spec = CgroupSpec {
        constrain_devices: true,
        denied_devices: vec![PathBuf::from("/etc/hostname")],
        required: true,
        ..CgroupSpec::default()
    };
    let setup = cgroup::create(Some(&hierarchy), &spec, &node, 0, 14, "step_batch");
    let refused = setup.enforced(&spec, true).unwrap_err();
    assert_eq!(
        refused,
        "confinement required but not possible: /etc/hostname is not a device node: not confined"
    );
    assert_cleaned(&node, 0, 14);
    // Not required: the same job runs, with the warning.
    let relaxed = CgroupSpec {
        required: false,
        ..spec.clone()
    };
    let setup = cgroup::create(Some(&hierarchy), &relaxed, &node, 0, 14, "step_batch");
    assert_eq!(setup.warnings.len(), 1);
    let cgroups = setup.enforced(&relaxed, true).unwrap().expect("cgroups");
    assert!(cgroups.remove().is_empty());
    assert_cleaned(&node, 0, 14);
    // A batch job whose confinement is required and impossible never starts.
    let job = confined_job("required", "echo ran", spec);
    job.launch();
    let result = job.wait_result();
    assert!(
        matches!(result.outcome, Outcome::LaunchFailed { ref message } if message.contains("not a device node")),
        "{:?}",
        result.outcome
    );
    assert_eq!(job.stdout(), "");
    assert_cleaned(&node, 0, 41);
}

/// Runs `cmd` inside the cgroups whose `cgroup.procs` are `files`; its stdout.
fn output_in(files: Vec<fs::File>, cmd: &str) -> String {
    let fds: Vec<i32> = files.iter().map(|f| f.as_raw_fd()).collect();
    let mut command = Command::new("bash");
    command.args(["-c", cmd]);
    // SAFETY: as in sleeper_in.
    unsafe {
        command.pre_exec(move || {
            for &fd in &fds {
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let out = command.output().unwrap();
    drop(files);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn v2_tree_is_made_joined_and_removed_with_a_bpf_device_filter() {
    if !root_only() {
        return;
    }
    let root = Path::new("/sys/fs/cgroup/unified");
    let Some(hierarchy @ Hierarchy::V2 { .. }) = Hierarchy::detect_at(root) else {
        eprintln!("no cgroup v2 tree at {}: skipped", root.display());
        return;
    };
    let node = node("v2");
    let devdir = std::env::temp_dir().join(format!("spur-stepd-it-v2dev-{}", std::process::id()));
    let _ = fs::remove_dir_all(&devdir);
    fs::create_dir_all(&devdir).unwrap();
    let gpus = fake_gpus(&devdir);
    let spec = CgroupSpec {
        cpus: Some("0".into()),
        memory: Some(MemoryLimits {
            ram_bytes: 50 * MB,
            soft_bytes: 50 * MB,
            ram_swap_bytes: None,
        }),
        constrain_devices: true,
        denied_devices: vec![gpus[1].clone()],
        ..CgroupSpec::default()
    };
    let setup = cgroup::create(Some(&hierarchy), &spec, &node, 0, 9, cgroup::BATCH_STEP);
    let available = fs::read_to_string(root.join("cgroup.controllers")).unwrap();
    if !available.contains("memory") {
        // This host's v2 tree has no controllers: each missing one is reported.
        assert!(
            setup
                .warnings
                .iter()
                .any(|w| w.contains("memory is not available")),
            "{:?}",
            setup.warnings
        );
    }
    assert!(
        !setup.warnings.iter().any(|w| w.contains("device")),
        "{:?}",
        setup.warnings
    );
    let cgroups = setup.cgroups.unwrap();
    let step = root
        .join(cgroup::job_rel_path(&node, 0, 9))
        .join("step_batch");
    assert_eq!(cgroups.step_dirs(), vec![step.clone()]);
    // The BPF filter refuses the denied node (EPERM) and lets the other reach its (absent) driver (ENXIO).
    let probe = format!(
        "for d in {} {}; do head -c1 $d 2>&1 | sed 's/.*: //'; done",
        gpus[0].display(),
        gpus[1].display()
    );
    assert_eq!(
        output_in(cgroups.attach_files(0).unwrap(), &probe),
        "No such device or address\nOperation not permitted\n"
    );
    let mut sleeper = sleeper_in(cgroups.attach_files(0).unwrap());
    let procs = fs::read_to_string(step.join("cgroup.procs")).unwrap();
    assert_eq!(procs.trim(), sleeper.id().to_string());
    assert_eq!(cgroups.oom_kills(), 0);
    assert!(cgroups.remove().is_empty());
    let status = sleeper.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
    assert!(!step.exists());
    assert!(!root.join(format!("spur_{node}/uid_0")).exists());
    fs::remove_dir(root.join(format!("spur_{node}"))).unwrap();
    // Outside the job's cgroup both nodes reach the driver check: the filter applied to the job only.
    assert_eq!(
        output_in(Vec::new(), &probe),
        "No such device or address\nNo such device or address\n"
    );
    fs::remove_dir_all(&devdir).unwrap();
}
