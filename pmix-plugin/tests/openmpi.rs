//! Real Open MPI programs wired up by the PMIx server. libpmix allows one server per process, so every case
//! runs its "nodes" as child processes of this test binary (the `node_role` test, which does nothing unless
//! `PMIX_TEST_ROLE` is set); a child starts the server, forks the ranks with `task_env`'s environment and
//! prints one `TASK`/`ABORT` line per event for the parent to check.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::net::UnixStream;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use pmix_plugin::{AbortEvent, NodeTasks, PmixServer, StepCollective, StepLayout};

const NOBODY: u32 = 65534;

/// The MPI test programs (conformance/mpi), built on demand; a missing MPI or libpmix fails loudly.
fn mpi_dir() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/mpi/build.sh");
    let out = Command::new(&script)
        .output()
        .expect("running conformance/mpi/build.sh");
    assert!(
        out.status.success(),
        "conformance/mpi/build.sh failed (install openmpi-bin libopenmpi-dev mpich libmpich-dev: .ci/deps.sh):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn is_root() -> bool {
    // SAFETY: no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs this binary's `node_role` test as a child with `env`, returning it (stdout piped).
fn spawn_role(env: &[(&str, String)], keep_fd: Option<i32>) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["node_role", "--exact", "--nocapture", "--test-threads=1"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdout(Stdio::piped());
    if let Some(fd) = keep_fd {
        // SAFETY: only async-signal-safe fcntl between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let flags = libc::fcntl(fd, libc::F_GETFD);
                libc::fcntl(fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC);
                Ok(())
            });
        }
    }
    cmd.spawn().expect("spawning a node")
}

/// Waits for a role child and returns its `TASK`/`ABORT`/`FAIL` lines; panics if it failed.
fn finish_role(mut child: Child) -> Vec<String> {
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = child.wait().unwrap();
    println!("{out}");
    assert!(status.success(), "node process failed ({status}):\n{out}");
    // libtest may print "test node_role ... " in front of the first line.
    out.lines()
        .filter_map(|l| {
            l.find("TASK ")
                .or_else(|| l.find("ABORT "))
                .map(|i| l[i..].to_string())
        })
        .collect()
}

/// Checks the lines of a ranks.openmpi run of `size` ranks: every rank exited 0 and printed its line.
fn check_ranks(lines: &[String], size: u32) {
    let sum: u32 = (0..size).sum();
    let host = nix_hostname();
    for r in 0..size {
        let want = format!(
            "TASK {r} exit=0 out=rank {r} of {size} on {host} sum={sum} ring_from={}",
            (r + size - 1) % size
        );
        assert!(lines.contains(&want), "missing {want:?} in {lines:#?}");
    }
    assert_eq!(lines.len(), size as usize, "{lines:#?}");
}

fn nix_hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: buf is writable for its length.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    assert_eq!(rc, 0);
    let end = buf.iter().position(|&b| b == 0).unwrap();
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[test]
fn one_node_four_ranks() {
    mpi_dir();
    let child = spawn_role(
        &[
            ("PMIX_TEST_ROLE", "single".into()),
            ("PMIX_TEST_RANKS", "4".into()),
        ],
        None,
    );
    check_ranks(&finish_role(child), 4);
}

#[test]
fn two_nodes_four_ranks_over_a_socket_collective() {
    mpi_dir();
    let (a, b) = UnixStream::pair().unwrap();
    let mut children = Vec::new();
    for (i, s) in [a, b].iter().enumerate() {
        let fd = s.as_raw_fd();
        children.push(spawn_role(
            &[
                ("PMIX_TEST_ROLE", "node".into()),
                ("PMIX_TEST_NODE", i.to_string()),
                ("PMIX_TEST_FD", fd.to_string()),
            ],
            Some(fd),
        ));
    }
    let mut lines = Vec::new();
    for c in children {
        lines.extend(finish_role(c));
    }
    check_ranks(&lines, 4);
}

#[test]
fn mpi_abort_reaches_the_supervisor() {
    mpi_dir();
    let child = spawn_role(&[("PMIX_TEST_ROLE", "abort".into())], None);
    let lines = finish_role(child);
    assert!(
        lines.iter().any(|l| l.starts_with("ABORT rank=1 status=7")),
        "no abort event from rank 1 with code 7: {lines:#?}"
    );
}

/// A failed collective (a node gone) fails the fence: the ranks exit on their own instead of hanging.
#[test]
fn a_failed_collective_makes_ranks_exit() {
    mpi_dir();
    let child = spawn_role(&[("PMIX_TEST_ROLE", "gone".into())], None);
    let lines = finish_role(child);
    assert_eq!(lines.len(), 2, "{lines:#?}");
    for l in &lines {
        assert!(
            !l.contains("exit=0") && !l.contains("exit=signal"),
            "rank did not fail on its own: {lines:#?}"
        );
    }
}

/// Attack test: the step belongs to `nobody`; a process of another uid that takes a rank's environment and
/// connects after the real rank is refused (the accept filter, src/guard.rs) and cannot wire up, and the server
/// ends cleanly.
#[test]
fn foreign_uid_cannot_connect_as_a_rank() {
    assert!(
        is_root(),
        "this attack test needs root to run processes as other users (CI runs as root)"
    );
    mpi_dir();
    let child = spawn_role(&[("PMIX_TEST_ROLE", "foreign".into())], None);
    let lines = finish_role(child);
    let intruder: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("TASK intruder "))
        .collect();
    assert_eq!(intruder.len(), 1, "{lines:#?}");
    assert!(
        !intruder[0].contains("exit=0"),
        "a foreign uid wired up as rank 0: {lines:#?}"
    );
    assert!(!intruder[0].contains("rank 0 of 1"), "{lines:#?}");
    check_ranks(
        &lines
            .iter()
            .filter(|l| !l.starts_with("TASK intruder "))
            .cloned()
            .collect::<Vec<_>>(),
        1,
    );
}

/// Attack test: the step belongs to `nobody`. Before its rank starts, a process of another uid (daemon) takes
/// the rank's environment and connects claiming to be `nobody` (a preloaded shim makes libpmix's client state
/// uid/gid 65534, which libpmix's `native` security over TCP would believe), and a second one connects stating
/// its own uid. Both are refused, libpmix never reads them (its refusal path would corrupt the rank's record),
/// so the real rank then wires up and the server ends cleanly.
#[test]
fn a_foreign_uid_claiming_the_jobs_uid_is_refused_and_the_server_survives() {
    assert!(
        is_root(),
        "this attack test needs root to run processes as other users (CI runs as root)"
    );
    mpi_dir();
    let child = spawn_role(&[("PMIX_TEST_ROLE", "impostor".into())], None);
    let lines = finish_role(child);
    for who in ["impostor", "intruder"] {
        let l: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with(&format!("TASK {who} ")))
            .collect();
        assert_eq!(l.len(), 1, "{lines:#?}");
        assert!(
            !l[0].contains("exit=0") && !l[0].contains("rank 0 of 1"),
            "a foreign uid wired up as rank 0: {lines:#?}"
        );
    }
    check_ranks(
        &lines
            .iter()
            .filter(|l| !l.starts_with("TASK impostor ") && !l.starts_with("TASK intruder "))
            .cloned()
            .collect::<Vec<_>>(),
        1,
    );
}

/// A shared object that makes a process state uid/gid `id` (as libpmix's client reads them with geteuid and
/// getegid), built with the system's C compiler into `dir`, readable by everyone.
fn uid_liar(dir: &Path, id: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let src = dir.join("liar.c");
    std::fs::write(
        &src,
        format!(
            "#include <sys/types.h>\n\
             uid_t geteuid(void) {{ return {id}; }}\nuid_t getuid(void) {{ return {id}; }}\n\
             gid_t getegid(void) {{ return {id}; }}\ngid_t getgid(void) {{ return {id}; }}\n"
        ),
    )
    .unwrap();
    let so = dir.join("liar.so");
    let out = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&so)
        .arg(&src)
        .output()
        .expect("running cc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::set_permissions(&so, std::fs::Permissions::from_mode(0o755)).unwrap();
    so
}

// ---------------------------------------------------------------------------------------------------------
// The child side.

struct Single;
impl StepCollective for Single {
    fn allgather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        Ok(vec![blob])
    }
}

/// A step whose other nodes are gone: every collective fails.
struct Gone;
impl StepCollective for Gone {
    fn allgather(&self, _blob: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        Err("node n2 is gone".into())
    }
}

/// Two nodes over a socket pair: each sends its blob (length-prefixed) and reads the other's.
struct Pair {
    me: usize,
    sock: Mutex<UnixStream>,
}
impl StepCollective for Pair {
    fn allgather(&self, blob: Vec<u8>) -> Result<Vec<Vec<u8>>, String> {
        let sock = self.sock.lock().unwrap();
        let mut w = sock.try_clone().map_err(|e| e.to_string())?;
        let mine = blob.clone();
        // Write from another thread so two large blobs cannot deadlock on full socket buffers.
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            w.write_all(&(blob.len() as u64).to_le_bytes())?;
            w.write_all(&blob)
        });
        let mut r = &*sock;
        let mut len = [0u8; 8];
        r.read_exact(&mut len)
            .map_err(|e| format!("peer node gone: {e}"))?;
        let mut theirs = vec![0u8; u64::from_le_bytes(len) as usize];
        r.read_exact(&mut theirs)
            .map_err(|e| format!("peer node gone: {e}"))?;
        writer
            .join()
            .unwrap()
            .map_err(|e| format!("peer node gone: {e}"))?;
        Ok(if self.me == 0 {
            vec![mine, theirs]
        } else {
            vec![theirs, mine]
        })
    }
}

fn layout(dir: &Path, node_index: usize, nodes: Vec<NodeTasks>, uid: u32, gid: u32) -> StepLayout {
    // Per node: its own spool and tmp bases (both "nodes" may share this host), reachable by the job's user.
    let spool = dir.join(format!("spool{node_index}"));
    let tmp = dir.join(format!("tmp{node_index}"));
    for d in [dir, &spool, &tmp] {
        std::fs::create_dir_all(d).unwrap();
        std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    StepLayout {
        job_id: 42,
        step_id: 0,
        nspace: StepLayout::slurm_nspace(42, 0),
        node_index,
        nodes,
        uid,
        gid,
        tmpdir: tmp,
        spool_dir: spool,
    }
}

/// Forks `prog` as global rank `rank` with the server's environment for it, as `uid`/`gid`.
fn launch(
    server: &PmixServer,
    l: &StepLayout,
    prog: &Path,
    rank: u32,
    uid: u32,
    gid: u32,
    extra: &[(&str, &str)],
) -> Child {
    let mut cmd = Command::new(prog);
    cmd.env_clear();
    cmd.env("PATH", "/usr/bin:/bin");
    cmd.env("HOME", "/");
    cmd.env("TMPDIR", &l.tmpdir);
    // As a Slurm task sees them; Open MPI's direct-launch detection looks at these.
    let nodes: Vec<&str> = l.nodes.iter().map(|n| n.hostname.as_str()).collect();
    cmd.env("SLURM_JOBID", l.job_id.to_string());
    cmd.env("SLURM_JOB_ID", l.job_id.to_string());
    cmd.env("SLURM_STEP_ID", l.step_id.to_string());
    cmd.env("SLURM_STEPID", l.step_id.to_string());
    cmd.env("SLURM_NODELIST", nodes.join(","));
    cmd.env("SLURM_STEP_NODELIST", nodes.join(","));
    cmd.env("SLURM_PROCID", rank.to_string());
    cmd.env("SLURM_MPI_TYPE", "pmix");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT", "1");
    cmd.env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    for (k, v) in extra {
        cmd.env(k, v);
    }
    for (k, v) in server.task_env(rank).unwrap() {
        cmd.env(k, v);
    }
    cmd.stdout(Stdio::piped());
    // SAFETY: setgroups/setgid/setuid only, between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::geteuid() != uid {
                let groups = [gid];
                if libc::setgroups(1, groups.as_ptr()) != 0
                    || libc::setgid(gid) != 0
                    || libc::setuid(uid) != 0
                {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    cmd.spawn().expect("forking a rank")
}

/// Waits for a task (killing it after 90 s) and prints its `TASK` line.
fn reap(name: &str, mut child: Child) {
    let deadline = Instant::now() + Duration::from_secs(90);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let code = status
        .code()
        .map(|c| c.to_string())
        .unwrap_or_else(|| format!("signal{}", status.signal().unwrap_or(0)));
    println!("TASK {name} exit={code} out={}", out.trim_end());
}

fn ignore_abort() -> pmix_plugin::AbortHandler {
    Box::new(|ev: AbortEvent| println!("unexpected abort: {ev:?}"))
}

#[test]
fn node_role() {
    let Ok(role) = std::env::var("PMIX_TEST_ROLE") else {
        return;
    };
    let prog_dir = mpi_dir();
    let ranks = prog_dir.join("ranks.openmpi");
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: no preconditions.
    let (me_uid, me_gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    match role.as_str() {
        "single" => {
            let n: u32 = std::env::var("PMIX_TEST_RANKS").unwrap().parse().unwrap();
            let nodes = vec![NodeTasks {
                hostname: nix_hostname(),
                ranks: (0..n).collect(),
            }];
            let l = layout(dir.path(), 0, nodes, me_uid, me_gid);
            let server = PmixServer::start(l.clone(), Arc::new(Single), ignore_abort()).unwrap();
            // The variables a task sees under Slurm's mpi/pmix (`srun --mpi=pmix env | grep PMIX`).
            let env = server.task_env(1).unwrap();
            let get = |k: &str| env.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            assert_eq!(get("PMIX_NAMESPACE").as_deref(), Some("slurm.pmix.42.0"));
            assert_eq!(get("PMIX_RANK").as_deref(), Some("1"));
            assert_eq!(
                get("SLURM_PMIX_MAPPING_SERV"),
                Some(format!("(vector,(0,1,{n}))"))
            );
            for k in [
                "PMIX_SERVER_URI41",
                "PMIX_SERVER_URI4",
                "PMIX_SERVER_URI3",
                "PMIX_SERVER_URI2",
                "PMIX_SERVER_URI21",
                "PMIX_SECURITY_MODE",
                "PMIX_GDS_MODULE",
                "PMIX_SERVER_TMPDIR",
                "PMIX_HOSTNAME",
                "PMIX_VERSION",
                "PMIX_BFROP_BUFFER_TYPE",
                "PMIX_DSTORE_21_BASE_PATH",
            ] {
                assert!(get(k).is_some(), "{k} missing from {env:#?}");
            }
            assert!(
                server.task_env(n).is_err(),
                "a rank of no node got an environment"
            );
            let kids: Vec<Child> = (0..n)
                .map(|r| launch(&server, &l, &ranks, r, me_uid, me_gid, &[]))
                .collect();
            for (r, c) in kids.into_iter().enumerate() {
                reap(&r.to_string(), c);
            }
            assert_eq!(server.connected_ranks(), (0..n).collect::<Vec<_>>());
            assert_eq!(server.finalized_ranks(), (0..n).collect::<Vec<_>>());
            server.finish().unwrap();
        }
        "node" => {
            let me: usize = std::env::var("PMIX_TEST_NODE").unwrap().parse().unwrap();
            let fd: i32 = std::env::var("PMIX_TEST_FD").unwrap().parse().unwrap();
            // SAFETY: the parent left this end of the socket pair open for us; we own it from here.
            let sock = unsafe { UnixStream::from_raw_fd(fd) };
            // Block placement: ranks 0,1 on the first node, 2,3 on the second; distinct node names on one host.
            let nodes = vec![
                NodeTasks {
                    hostname: "pmixnode1".into(),
                    ranks: vec![0, 1],
                },
                NodeTasks {
                    hostname: "pmixnode2".into(),
                    ranks: vec![2, 3],
                },
            ];
            let l = layout(dir.path(), me, nodes, me_uid, me_gid);
            let coll = Arc::new(Pair {
                me,
                sock: Mutex::new(sock),
            });
            let server = PmixServer::start(l.clone(), coll, ignore_abort()).unwrap();
            let mine = l.nodes[me].ranks.clone();
            // Both "nodes" are this host: Open MPI's shared-memory transport (vader) names its segments after
            // the host, job and local rank, so the two nodes' local ranks collide in /dev/shm and crash. TCP over
            // loopback carries all traffic instead, as between real nodes.
            let extra = [
                ("OMPI_MCA_btl", "self,tcp"),
                ("OMPI_MCA_btl_tcp_if_include", "lo"),
            ];
            let kids: Vec<(u32, Child)> = mine
                .iter()
                .map(|&r| (r, launch(&server, &l, &ranks, r, me_uid, me_gid, &extra)))
                .collect();
            for (r, c) in kids {
                reap(&r.to_string(), c);
            }
            server.finish().unwrap();
        }
        "abort" => {
            let nodes = vec![NodeTasks {
                hostname: nix_hostname(),
                ranks: vec![0, 1],
            }];
            let l = layout(dir.path(), 0, nodes, me_uid, me_gid);
            let (tx, rx) = mpsc::channel::<AbortEvent>();
            let tx = Mutex::new(tx);
            let on_abort = Box::new(move |ev: AbortEvent| {
                let _ = tx.lock().unwrap().send(ev);
            });
            let server = PmixServer::start(l.clone(), Arc::new(Single), on_abort).unwrap();
            let prog = prog_dir.join("abort.openmpi");
            let mut kids: Vec<Child> = (0..2)
                .map(|r| launch(&server, &l, &prog, r, me_uid, me_gid, &[]))
                .collect();
            let ev = rx
                .recv_timeout(Duration::from_secs(90))
                .expect("no abort reached the supervisor");
            println!(
                "ABORT rank={} status={} message={:?}",
                ev.rank, ev.status, ev.message
            );
            // What the supervisor does next: tear the step down.
            for k in &mut kids {
                let _ = k.kill();
            }
            for (r, c) in kids.into_iter().enumerate() {
                reap(&r.to_string(), c);
            }
            server.finish().unwrap();
        }
        "foreign" => {
            let nodes = vec![NodeTasks {
                hostname: nix_hostname(),
                ranks: vec![0],
            }];
            let l = layout(dir.path(), 0, nodes, NOBODY, NOBODY);
            let server = PmixServer::start(l.clone(), Arc::new(Single), ignore_abort()).unwrap();
            reap("0", launch(&server, &l, &ranks, 0, NOBODY, NOBODY, &[]));
            assert_eq!(server.connected_ranks(), vec![0]);
            // uid/gid 1 (daemon) is not the job's user: the accept filter closes its connection before libpmix
            // reads it, so libpmix's own refusal (which corrupts the rank's record, README.md) never runs.
            reap("intruder", launch(&server, &l, &ranks, 0, 1, 1, &[]));
            assert_eq!(server.connected_ranks(), vec![0]);
            assert_eq!(server.finalized_ranks(), vec![0]);
            server.finish().unwrap();
        }
        "impostor" => {
            let nodes = vec![NodeTasks {
                hostname: nix_hostname(),
                ranks: vec![0],
            }];
            let l = layout(dir.path(), 0, nodes, NOBODY, NOBODY);
            let server = PmixServer::start(l.clone(), Arc::new(Single), ignore_abort()).unwrap();
            let liar_dir = tempfile::tempdir().unwrap();
            let liar = uid_liar(liar_dir.path(), NOBODY);
            let liar = liar.to_str().unwrap();
            // As daemon (uid 1), claiming nobody's uid/gid; then as daemon, stating its own.
            reap(
                "impostor",
                launch(&server, &l, &ranks, 0, 1, 1, &[("LD_PRELOAD", liar)]),
            );
            reap("intruder", launch(&server, &l, &ranks, 0, 1, 1, &[]));
            assert_eq!(server.connected_ranks(), Vec::<u32>::new());
            // The real rank, as nobody, wires up: libpmix's record of rank 0 is intact.
            reap("0", launch(&server, &l, &ranks, 0, NOBODY, NOBODY, &[]));
            assert_eq!(server.connected_ranks(), vec![0]);
            assert_eq!(server.finalized_ranks(), vec![0]);
            // And libpmix finalises (4.2.2 hangs here after it refused a connection itself).
            server.finish().unwrap();
        }
        "gone" => {
            // Two nodes, the second never answers: libpmix completes fences of single-node steps itself, so
            // the step must span nodes for the collective to be asked at all.
            let nodes = vec![
                NodeTasks {
                    hostname: "pmixnode1".into(),
                    ranks: vec![0, 1],
                },
                NodeTasks {
                    hostname: "pmixnode2".into(),
                    ranks: vec![2, 3],
                },
            ];
            let l = layout(dir.path(), 0, nodes, me_uid, me_gid);
            let server = PmixServer::start(l.clone(), Arc::new(Gone), ignore_abort()).unwrap();
            let kids: Vec<Child> = (0..2)
                .map(|r| launch(&server, &l, &ranks, r, me_uid, me_gid, &[]))
                .collect();
            for (r, c) in kids.into_iter().enumerate() {
                reap(&r.to_string(), c);
            }
            server.finish().unwrap();
        }
        other => panic!("unknown role {other}"),
    }
}
