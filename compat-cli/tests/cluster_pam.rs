//! Debian's `pam_slurm_adopt.so` and `pam_slurm.so` against a real Spur cluster through libspur_compat
//! (`LD_PRELOAD`: the shim carries libslurm.so.38's soname, so the real library is never loaded and every libslurm
//! function the modules call is the shim's), driven by `pamtester` with a PAM service file of this test's own in
//! /etc/pam.d (removed afterwards), for throwaway users (removed afterwards), and the jobs' cgroups removed at the
//! end:
//! - pam_slurm_adopt: the owner of a running job (`PrologFlags=Contain`) is let in and the pamtester process
//!   lands in the job's extern step cgroup, the newest job's when it has two (a `pam_exec` probe in the session
//!   stack, a child of pamtester, records where its parent is); a user with no job here is refused with the
//!   module's message.
//! - pam_slurm: the same two users, let in and refused by the controller's job list.
//! - spurd's step socket attacked by the job's owner and by another user: no one but root can place a process
//!   into a job, and no one sees or addresses another user's steps (docs/security.md).
//!
//! Needs root (useradd, /etc/pam.d, cgroups), pamtester, libpam-slurm-adopt and libpam-slurm, and a cgroup
//! file system with v1's freezer or v2; skipped with a message otherwise.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::attack::python_as;
use common::users::TestUser;
use common::{bin_dir, text, Cluster, ClusterOptions};

const ADOPT_MODULE: &str = "/lib/security/pam_slurm_adopt.so";
const SLURM_MODULE: &str = "/lib/security/pam_slurm.so";

/// Why this host cannot run these tests, if it cannot.
fn missing_prerequisite() -> Option<String> {
    if !nix::unistd::geteuid().is_root() {
        return Some("not root".into());
    }
    for path in [
        ADOPT_MODULE,
        SLURM_MODULE,
        "/usr/bin/pamtester",
        "/etc/pam.d",
    ] {
        if !Path::new(path).exists() {
            return Some(format!(
                "{path} is missing (pamtester, libpam-slurm-adopt, libpam-slurm)"
            ));
        }
    }
    if extern_mount().is_none() {
        return Some("no cgroup v1 freezer or v2 tree at /sys/fs/cgroup".into());
    }
    None
}

/// The mount under which extern steps are made: v1's freezer, or the v2 tree.
fn extern_mount() -> Option<PathBuf> {
    let root = Path::new("/sys/fs/cgroup");
    if root.join("cgroup.controllers").exists() {
        Some(root.to_path_buf())
    } else if root.join("freezer/cgroup.procs").exists() {
        Some(root.join("freezer"))
    } else {
        None
    }
}

fn extern_step(node: &str, uid: u32, job: u32) -> PathBuf {
    extern_mount()
        .unwrap()
        .join(format!("spur_{node}/uid_{uid}/job_{job}/step_extern"))
}

/// A PAM service file of this test's own, removed when dropped.
struct PamService {
    name: String,
    path: PathBuf,
}

impl PamService {
    fn create(tag: &str, text: &str) -> PamService {
        let name = format!("spur-test-{}-{tag}", std::process::id());
        let path = Path::new("/etc/pam.d").join(&name);
        std::fs::write(&path, text).expect("write the PAM service file");
        PamService { name, path }
    }
}

impl Drop for PamService {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `pamtester SERVICE USER OPERATIONS...` with the shim preloaded and the cluster's slurm.conf.
fn pamtester(cluster: &Cluster, service: &PamService, user: &str, operations: &[&str]) -> Output {
    Command::new("pamtester")
        .arg("-v")
        .arg(&service.name)
        .arg(user)
        .args(operations)
        .env("LD_PRELOAD", bin_dir().join("libspur_compat.so"))
        .env("SLURM_CONF", &cluster.conf)
        .stdin(Stdio::null())
        .output()
        .expect("run pamtester")
}

/// The jobs' cgroup directories this test made, removed when dropped (after the cluster, which stops with the
/// jobs still running and leaves them): what runs in them is killed, then the job and user directories go.
#[derive(Default)]
struct CgroupCleanup(Vec<PathBuf>);

impl Drop for CgroupCleanup {
    fn drop(&mut self) {
        for step in &self.0 {
            for pid in std::fs::read_to_string(step.join("cgroup.procs"))
                .unwrap_or_default()
                .lines()
            {
                if let Ok(pid) = pid.trim().parse::<i32>() {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
            }
            let job = step.parent().unwrap();
            let user = job.parent().unwrap();
            for dir in [step.as_path(), job, user] {
                for _ in 0..50 {
                    if std::fs::remove_dir(dir).is_ok() || !dir.exists() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
            }
        }
    }
}

/// A cluster whose jobs get an extern step, readable by the test users.
fn contained_cluster(first_job_id: u32) -> Cluster {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: format!("PrologFlags=Contain\nFirstJobId={first_job_id}\n"),
        ..ClusterOptions::default()
    });
    for (path, mode) in [(cluster.dir.path(), 0o755), (cluster.conf.as_path(), 0o644)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    cluster
}

/// A running job of `user` and its extern step directory, once both exist (and recorded for removal).
fn running_job(cluster: &Cluster, user: &TestUser, cleanup: &mut CgroupCleanup) -> (u32, PathBuf) {
    let out = user.run(
        cluster,
        "sbatch",
        &["--parsable", "--wrap", "sleep 120", "-o", "/dev/null"],
    );
    assert!(out.status.success(), "sbatch: {}", text(&out.stderr));
    let job = common::parse_job_id(&text(&out.stdout));
    cluster.wait_for_state(job, "RUNNING", Duration::from_secs(20));
    let step = extern_step(&cluster.node, user.uid, job);
    cleanup.0.push(step.clone());
    cluster.expect_within(
        Duration::from_secs(10),
        "the job's extern step cgroup",
        || step.is_dir(),
    );
    (job, step)
}

#[test]
fn pam_slurm_adopt_lets_a_jobs_owner_in_and_adopts_the_login_into_the_job() {
    if let Some(why) = missing_prerequisite() {
        eprintln!("skipped: {why}");
        return;
    }
    // Users first: locals drop in reverse, so the cluster (and their jobs), then the cgroups it leaves, are gone
    // before userdel.
    let owner = TestUser::create("pa");
    let stranger = TestUser::create("pb");
    let mut cleanup = CgroupCleanup::default();
    let cluster = contained_cluster(5300);
    let (job, step) = running_job(&cluster, &owner, &mut cleanup);

    // The session stack's probe runs as a child of pamtester after the account stack adopted pamtester.
    let probe_out = cluster.dir.path().join("probe.out");
    let probe = cluster.write_file(
        "probe.sh",
        &format!(
            "#!/bin/sh\n{{ echo \"pid $PPID\"; echo \"env $SLURM_JOB_ID\"; cat /proc/$PPID/cgroup; }} > {out}\n",
            out = probe_out.display()
        ),
    );
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let service = PamService::create(
        "adopt",
        &format!(
            "account required {ADOPT_MODULE} service=spur-test-{}-adopt\n\
             session required pam_exec.so {}\n",
            std::process::id(),
            probe.display()
        ),
    );

    let out = pamtester(
        &cluster,
        &service,
        &owner.name,
        &["acct_mgmt", "open_session"],
    );
    assert!(
        out.status.success(),
        "the job's owner is let in: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_adopted_into(&probe_out, &cluster, &owner, job);

    let out = pamtester(&cluster, &service, &stranger.name, &["acct_mgmt"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        !out.status.success(),
        "a user without a job is refused: {all}"
    );
    assert!(
        all.contains("Access denied by pam_slurm_adopt: you have no active jobs on this node"),
        "{all}"
    );
    // Nothing of the stranger's went into the job.
    assert_eq!(
        std::fs::read_to_string(step.join("cgroup.procs")).unwrap_or_default(),
        "",
        "pamtester processes are gone, nothing else was adopted"
    );

    // A second job: pamtester holds no network connection to ask about, so action_unknown=newest picks the newest
    // job (its cgroup is not where the module looks for creation times, see docs/libspur_compat.md; it takes the
    // last listed, the highest id, as Slurm's newest cgroup would be).
    let (second, _) = running_job(&cluster, &owner, &mut cleanup);
    let out = pamtester(
        &cluster,
        &service,
        &owner.name,
        &["acct_mgmt", "open_session"],
    );
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_adopted_into(&probe_out, &cluster, &owner, second);

    // pam_slurm: the controller's list of the user's running jobs decides.
    let service = PamService::create("slurm", &format!("account required {SLURM_MODULE}\n"));
    let out = pamtester(&cluster, &service, &owner.name, &["acct_mgmt"]);
    assert!(
        out.status.success(),
        "pam_slurm lets the job's owner in: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = pamtester(&cluster, &service, &stranger.name, &["acct_mgmt"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        !out.status.success(),
        "pam_slurm refuses a user without a job: {all}"
    );
    assert!(
        all.contains(&format!(
            "Access denied: user {} (uid={}) has no active jobs on this node.",
            stranger.name, stranger.uid
        )),
        "{all}"
    );
}

/// The session probe found pamtester (its parent) in `job`'s extern step cgroup, with the job's id in the PAM
/// environment, which the session's processes inherit.
fn assert_adopted_into(probe_out: &Path, cluster: &Cluster, owner: &TestUser, job: u32) {
    let probe = std::fs::read_to_string(probe_out).expect("the session probe ran");
    let cgroup = format!(
        "/spur_{}/uid_{}/job_{job}/step_extern",
        cluster.node, owner.uid
    );
    assert!(
        probe.lines().any(|l| l.ends_with(&cgroup)),
        "pamtester was adopted into {cgroup}: {probe}"
    );
    assert!(probe.contains(&format!("env {job}\n")), "{probe}");
}

/// Speaks spurd's step socket: each argument is one request line, each answer line is printed.
const STEP_SOCKET: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
s.connect(sys.argv[1])
f = s.makefile("rb")
for request in sys.argv[2:]:
    s.sendall(request.encode() + b"\n")
    while True:
        line = f.readline().decode().rstrip("\n")
        print(line)
        if not request.startswith("LIST") or line == ".":
            break
"#;

#[test]
fn only_root_adopts_and_users_see_only_their_own_steps_on_the_step_socket() {
    if let Some(why) = missing_prerequisite() {
        eprintln!("skipped: {why}");
        return;
    }
    let owner = TestUser::create("pc");
    let stranger = TestUser::create("pd");
    let mut cleanup = CgroupCleanup::default();
    let cluster = contained_cluster(5400);
    let (job, step) = running_job(&cluster, &owner, &mut cleanup);
    let socket = cluster
        .dir
        .path()
        .join("spool")
        .join(format!("spurd-stepd-{}.socket", cluster.node));
    let socket = socket.display().to_string();
    // A process of the owner's own that it would like to smuggle into the job (escaping nothing, but it must
    // still not be able to choose where processes go).
    let mut victim = Command::new("sleep")
        .arg("60")
        .spawn()
        .expect("spawn a process");
    let victim_pid = victim.id().to_string();

    let answers = python_as(
        &owner,
        STEP_SOCKET,
        &[
            &socket,
            "LIST",
            &format!("STEP {job} extern"),
            "UID",
            &format!("ADOPT {victim_pid}"),
        ],
    );
    assert_eq!(
        answers,
        format!("{job} extern\n.\nOK\n{}\n-1", owner.uid),
        "the owner sees and queries its job but cannot adopt"
    );
    let answers = python_as(
        &stranger,
        STEP_SOCKET,
        &[
            &socket,
            "LIST",
            &format!("STEP {job} extern"),
            "UID",
            "ADOPT 1",
        ],
    );
    assert_eq!(answers, ".\nNO\n-1\n-1", "another user sees nothing of it");
    let answers = python_as(
        &stranger,
        STEP_SOCKET,
        &[&socket, "NONSENSE", "STEP 1 ../../x"],
    );
    assert_eq!(answers, "?\n?", "malformed requests are refused");
    let procs = std::fs::read_to_string(step.join("cgroup.procs")).unwrap_or_default();
    assert!(
        !procs.lines().any(|p| p == victim_pid),
        "no process was moved into the job: {procs}"
    );
    let _ = victim.kill();
    let _ = victim.wait();
}
