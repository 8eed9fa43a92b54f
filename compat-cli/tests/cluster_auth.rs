//! Authentication and authorization end to end: a real cluster with its own munged, two real unprivileged users
//! created for the test, credentials made by the real `munge` tool, and JWTs from `scontrol token`.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use common::{Cluster, ClusterOptions};
use spur_core::auth::{jwt, MUNGE_HEADER};
use spur_core::wire::api::{ControlRequest, JobSelector};
use spur_core::wire::{pb, to_doc};

/// A local user made with useradd for this test and removed (with its work directory) when dropped.
struct TestUser {
    name: String,
    uid: u32,
    gid: u32,
    work: PathBuf,
}

impl TestUser {
    fn create(tag: &str) -> TestUser {
        let name = format!("spurt{}{tag}", std::process::id() % 100_000);
        let status = Command::new("useradd")
            .args([
                "--no-create-home",
                "--user-group",
                "--shell",
                "/bin/sh",
                &name,
            ])
            .status()
            .expect("useradd");
        assert!(status.success(), "useradd {name}");
        let user = nix::unistd::User::from_name(&name)
            .ok()
            .flatten()
            .expect("new user resolves");
        let work = std::env::temp_dir().join(format!("{name}-work"));
        std::fs::create_dir_all(&work).expect("work dir");
        nix::unistd::chown(&work, Some(user.uid), Some(user.gid)).expect("chown work dir");
        TestUser {
            name,
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
            work,
        }
    }

    /// A Slurm command run as this user, in the user's work directory.
    fn run(&self, cluster: &Cluster, command: &str, args: &[&str]) -> Output {
        self.command(cluster, command, args)
            .output()
            .expect("run as user")
    }

    fn command(&self, cluster: &Cluster, command: &str, args: &[&str]) -> Command {
        let mut cmd = cluster.command(&self.work, command, args);
        cmd.uid(self.uid)
            .gid(self.gid)
            .env("USER", &self.name)
            .env("HOME", &self.work);
        cmd
    }

    fn sbatch(&self, cluster: &Cluster, args: &[&str]) -> u32 {
        let out = self.run(cluster, "sbatch", args);
        assert!(
            out.status.success(),
            "sbatch as {}: {}\n{}",
            self.name,
            text(&out.stderr),
            cluster.logs()
        );
        text(&out.stdout).trim().parse().expect("job id")
    }
}

impl Drop for TestUser {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
        // The user's last processes (killed with the cluster) may take a moment to be reaped.
        for _ in 0..USERDEL_TRIES_MAX {
            let removed = Command::new("userdel")
                .arg(&self.name)
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if removed {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("could not remove test user {}", self.name);
    }
}

const USERDEL_TRIES_MAX: u32 = 50;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The cluster's files readable by the test users, as /etc/slurm is on a real site.
fn open_to_users(cluster: &Cluster) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(cluster.dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    std::fs::set_permissions(&cluster.conf, std::fs::Permissions::from_mode(0o644)).expect("chmod");
}

fn start_cluster(extra_conf: String) -> Cluster {
    start_cluster_with(extra_conf, false)
}

fn start_cluster_with(extra_conf: String, local_socket: bool) -> Cluster {
    let cluster = Cluster::start_with(ClusterOptions {
        cpus: 4,
        extra_conf,
        local_socket,
        ..ClusterOptions::default()
    });
    open_to_users(&cluster);
    cluster
}

#[test]
fn users_see_and_change_only_their_own_jobs() {
    if !is_root() {
        eprintln!("skipped: creating users needs root");
        return;
    }
    // Users first: locals drop in reverse, so the cluster (and the users' jobs) is gone before userdel runs.
    let alice = TestUser::create("a");
    let bob = TestUser::create("b");
    let cluster = start_cluster(String::new());

    let a_job = alice.sbatch(
        &cluster,
        &["--parsable", "-o", "a.out", "--wrap", "id -un; sleep 300"],
    );
    let b_job = bob.sbatch(&cluster, &["--parsable", "--wrap", "sleep 300"]);

    // Each job belongs to (and runs as) whoever the credential says submitted it.
    let listing = text(&alice.run(&cluster, "squeue", &["-h", "-o", "%i %u"]).stdout);
    assert!(
        listing.contains(&format!("{a_job} {}", alice.name)),
        "{listing}"
    );
    assert!(
        listing.contains(&format!("{b_job} {}", bob.name)),
        "{listing}"
    );
    let output = cluster.wait_for_file(&alice.work.join("a.out"), |t| !t.is_empty());
    assert_eq!(output.trim(), alice.name);

    // Another user's job: Slurm's errors, and the job is untouched.
    let out = alice.run(&cluster, "scancel", &[&b_job.to_string()]);
    assert!(
        text(&out.stderr).contains(&format!(
            "scancel: error: Kill job error on job id {b_job}: Access/permission denied"
        )),
        "{}",
        text(&out.stderr)
    );
    // scancel exits with the errno's low byte (2002 -> 210), as Slurm's does (conformance case 320).
    assert_eq!(out.status.code(), Some(210));
    // Hold, release and update answer "Invalid user id" in Slurm (they are job updates there).
    for verb in ["hold", "release"] {
        let out = alice.run(&cluster, "scontrol", &[verb, &b_job.to_string()]);
        assert!(!out.status.success(), "alice may {verb} bob's job");
        assert!(
            text(&out.stderr).contains(&format!("Invalid user id for job {b_job}")),
            "{}",
            text(&out.stderr)
        );
    }
    let update = format!("jobid={b_job}");
    let out = alice.run(&cluster, "scontrol", &["update", &update, "timelimit=5"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        format!("Invalid user id for job {b_job}\n")
    );
    assert_eq!(cluster.job_field(b_job, "JobState"), "RUNNING");

    // Nodes are root's and SlurmUser's (reference capture C3-nonroot-scontrol-denied).
    let node = format!("nodename={}", cluster.node);
    let out = alice.run(
        &cluster,
        "scontrol",
        &["update", &node, "state=drain", "reason=x"],
    );
    assert_eq!(text(&out.stderr), "slurm_update error: Invalid user id\n");
    assert_eq!(out.status.code(), Some(1));

    // Own jobs: yes.
    let out = bob.run(&cluster, "scancel", &[&b_job.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    cluster.wait_for_state(b_job, "CANCELLED", Duration::from_secs(20));
    let out = alice.run(&cluster, "scancel", &[&a_job.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    cluster.wait_for_state(a_job, "CANCELLED", Duration::from_secs(20));
}

/// A local group made with groupadd for this test, removed when dropped.
struct TestGroup {
    name: String,
}

impl TestGroup {
    fn create(tag: &str) -> TestGroup {
        let name = format!("spurg{}{tag}", std::process::id() % 100_000);
        let status = Command::new("groupadd")
            .arg(&name)
            .status()
            .expect("groupadd");
        assert!(status.success(), "groupadd {name}");
        TestGroup { name }
    }

    /// Adds `user` as a supplementary member (the way most sites grant partition access).
    fn add(&self, user: &TestUser) {
        let status = Command::new("usermod")
            .args(["-aG", &self.name, &user.name])
            .status()
            .expect("usermod");
        assert!(status.success(), "usermod -aG {} {}", self.name, user.name);
    }
}

impl Drop for TestGroup {
    fn drop(&mut self) {
        let _ = Command::new("groupdel")
            .arg(&self.name)
            .stderr(std::process::Stdio::null())
            .status();
    }
}

#[test]
fn partitions_admit_by_group_and_root_only_and_private_data_hides_jobs() {
    if !is_root() {
        eprintln!("skipped: creating users needs root");
        return;
    }
    // Group and users first: locals drop in reverse, so the cluster goes before userdel and groupdel run.
    let group = TestGroup::create("p");
    let alice = TestUser::create("c");
    let bob = TestUser::create("d");
    group.add(&alice);
    let cluster = start_cluster(format!(
        "PartitionName=grp Nodes=ALL AllowGroups={}\nPartitionName=rooto Nodes=ALL RootOnly=YES\n\
         PartitionName=noroot Nodes=ALL DisableRootJobs=YES\nPrivateData=jobs\n",
        group.name
    ));

    // AllowGroups: a supplementary member may submit there, anyone else gets Slurm's error from each command.
    let a_job = alice.sbatch(
        &cluster,
        &["--parsable", "-p", "grp", "--wrap", "sleep 300"],
    );
    let refused = [
        (
            "sbatch",
            vec!["-p", "grp", "--wrap", "true"],
            "sbatch: error: Batch job submission failed: ",
        ),
        (
            "srun",
            vec!["-p", "grp", "true"],
            "srun: error: Unable to allocate resources: ",
        ),
        (
            "salloc",
            vec!["-p", "grp", "true"],
            "salloc: error: Job submit/allocate failed: ",
        ),
    ];
    for (command, args, prefix) in refused {
        let out = bob.run(&cluster, command, &args);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{command}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(&format!(
                "{prefix}User's group not permitted to use this partition"
            )),
            "{command}: {}",
            text(&out.stderr)
        );
    }
    // RootOnly: refused to users, taken from root.
    let out = bob.run(&cluster, "sbatch", &["-p", "rooto", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sbatch: error: Batch job submission failed: Access/permission denied\n"
    );
    // DisableRootJobs: root's own jobs are refused there (case 322 shows users' are taken).
    let out = cluster.run("sbatch", &["-p", "noroot", "--wrap", "true"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "sbatch: error: Batch job submission failed: Invalid user id\n"
    );
    let root_job = cluster.sbatch_in(
        &alice.work,
        &["--parsable", "-p", "rooto", "-H", "--wrap", "true"],
    );

    // Moving a pending job into a partition that would not take it is refused as slurmctld refuses it.
    let b_job = bob.sbatch(&cluster, &["--parsable", "-H", "--wrap", "true"]);
    let jobid = format!("jobid={b_job}");
    for partition in ["partition=grp", "partition=rooto"] {
        let out = bob.run(&cluster, "scontrol", &["update", &jobid, partition]);
        assert_eq!(out.status.code(), Some(1), "{partition}");
        assert_eq!(
            text(&out.stderr),
            format!("Requested partition configuration not available now for job {b_job}\n")
        );
    }
    assert_eq!(cluster.job_field(b_job, "Partition"), "debug");

    // PrivateData=jobs: users see only their own jobs, root sees all.
    let listing = text(&bob.run(&cluster, "squeue", &["-h", "-o", "%i"]).stdout);
    assert_eq!(
        listing.split_whitespace().collect::<Vec<_>>(),
        [b_job.to_string()]
    );
    let out = bob.run(&cluster, "scontrol", &["show", "job", &a_job.to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "slurm_load_jobs error: Invalid job id specified\n"
    );
    let mine = text(&alice.run(&cluster, "scontrol", &["show", "job"]).stdout);
    assert!(mine.contains(&format!("JobId={a_job} ")), "{mine}");
    assert!(!mine.contains(&format!("JobId={b_job} ")), "{mine}");
    let all = text(&cluster.run("squeue", &["-h", "-o", "%i"]).stdout);
    for job in [a_job, b_job, root_job] {
        assert!(
            all.split_whitespace().any(|j| j == job.to_string()),
            "{all}"
        );
    }

    // What sinfo and scontrol show of the partitions.
    let parts = text(&cluster.run("sinfo", &["-h", "-o", "%P %g %r"]).stdout);
    assert!(parts.contains(&format!("grp {} no", group.name)), "{parts}");
    assert!(parts.contains("rooto all yes"), "{parts}");
    let shown = text(
        &cluster
            .run("scontrol", &["show", "partition", "grp"])
            .stdout,
    );
    assert!(
        shown.contains(&format!("AllowGroups={} ", group.name)),
        "{shown}"
    );

    for job in [a_job, b_job, root_job] {
        cluster.run("scancel", &[&job.to_string()]);
    }
}

/// A credential for `payload` sealed by the cluster's munged as `uid`/`gid` (root may ask munged for that),
/// through the real `munge` tool.
fn munge_as(socket: &Path, uid: u32, gid: u32, payload: &[u8], ttl: u32) -> String {
    let out = Command::new("munge")
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--uid={uid}"))
        .arg(format!("--gid={gid}"))
        .arg(format!("--ttl={ttl}"))
        .arg("--string")
        .arg(String::from_utf8_lossy(payload).as_ref())
        .output()
        .expect("munge");
    assert!(out.status.success(), "munge: {}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

/// A Control call whose body claims to come from root.
fn forged_cancel(job_id: u32, request_id: &str) -> pb::ApiRequest {
    let control = ControlRequest::Cancel {
        job: JobSelector {
            job_id,
            array_task: None,
        },
    };
    pb::ApiRequest {
        request_id: request_id.into(),
        caller: Some(pb::Caller {
            uid: 0,
            gid: 0,
            host: "forged".into(),
        }),
        body: Some(to_doc(&control).expect("doc")),
        ..Default::default()
    }
}

fn send_control(
    cluster: &Cluster,
    message: pb::ApiRequest,
    credential: Option<&str>,
) -> pb::ApiReply {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mut client = pb::controller_client::ControllerClient::connect(cluster.url.clone())
            .await
            .expect("connect");
        let mut request = tonic::Request::new(message);
        if let Some(credential) = credential {
            request
                .metadata_mut()
                .insert(MUNGE_HEADER, credential.parse().expect("header"));
        }
        client.control(request).await.expect("reply").into_inner()
    })
}

#[test]
fn forged_replayed_foreign_and_missing_credentials_are_refused() {
    if !is_root() {
        eprintln!("skipped: creating users needs root");
        return;
    }
    let mallory = TestUser::create("m");
    let cluster = start_cluster(String::new());
    let job = cluster.submit("#!/bin/sh\nsleep 300\n", &[]);
    let socket = cluster.munged.as_ref().expect("munged").socket.clone();
    const ZERO_BYTES: i32 = 5005;
    const ACCESS_DENIED: i32 = 2002;

    // Forged uid in the body: the verified credential (mallory) decides, so root's job is not cancelled.
    let message = forged_cancel(job, "forged-1");
    let payload = spur_auth::client::request_payload("Control", &message);
    let credential = munge_as(&socket, mallory.uid, mallory.gid, &payload, 0);
    let reply = send_control(&cluster, message.clone(), Some(&credential));
    assert_eq!(reply.error_code, ACCESS_DENIED, "{}", reply.message);

    // The same credential again is a replay, whatever it carries.
    let reply = send_control(&cluster, message, Some(&credential));
    assert_eq!(reply.error_code, ZERO_BYTES, "{}", reply.message);

    // A credential sealed for another request (here: another job id) does not authenticate this one.
    let wanted = forged_cancel(job, "forged-2");
    let other = forged_cancel(job + 1, "forged-2");
    let credential = munge_as(
        &socket,
        0,
        0,
        &spur_auth::client::request_payload("Control", &other),
        0,
    );
    assert_eq!(
        send_control(&cluster, wanted, Some(&credential)).error_code,
        ZERO_BYTES
    );

    // Another MUNGE key (another cluster's munged) and no credential at all.
    let foreign_dir = tempfile::tempdir().expect("tempdir");
    let foreign =
        spur_auth::testing::PrivateMunged::start(foreign_dir.path()).expect("second munged");
    let message = forged_cancel(job, "forged-3");
    let credential = munge_as(
        &foreign.socket,
        0,
        0,
        &spur_auth::client::request_payload("Control", &message),
        0,
    );
    assert_eq!(
        send_control(&cluster, message.clone(), Some(&credential)).error_code,
        ZERO_BYTES
    );
    assert_eq!(send_control(&cluster, message, None).error_code, ZERO_BYTES);

    // An expired credential (ttl 1 s).
    let message = forged_cancel(job, "forged-4");
    let credential = munge_as(
        &socket,
        0,
        0,
        &spur_auth::client::request_payload("Control", &message),
        1,
    );
    std::thread::sleep(Duration::from_millis(2100));
    assert_eq!(
        send_control(&cluster, message, Some(&credential)).error_code,
        ZERO_BYTES
    );

    assert_eq!(cluster.job_field(job, "JobState"), "RUNNING");
    let log = std::fs::read_to_string(cluster.dir.path().join("spurctld.log")).unwrap_or_default();
    for reason in [
        "Replayed credential",
        "made for another request",
        "Invalid credential",
        "no credential",
        "Expired credential",
    ] {
        assert!(log.contains(reason), "log lacks {reason:?}:\n{log}");
    }

    // Only root or SlurmUser may register a node: a session sealed by mallory is refused.
    let hello = pb::ApiRequest {
        request_id: String::new(),
        caller: None,
        body: Some(pb::Doc {
            kind: "AgentToController".into(),
            version: 1,
            json: b"{}".to_vec(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let credential = munge_as(
        &socket,
        mallory.uid,
        mallory.gid,
        &spur_auth::client::request_payload("Session", &hello),
        0,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let status = runtime.block_on(async {
        let mut client = pb::agent_link_client::AgentLinkClient::connect(cluster.url.clone())
            .await
            .expect("connect");
        let mut request = tonic::Request::new(tokio_stream_once(hello));
        request
            .metadata_mut()
            .insert(MUNGE_HEADER, credential.parse().expect("header"));
        client.session(request).await.err()
    });
    let status = status.expect("session refused");
    assert_eq!(status.code(), tonic::Code::PermissionDenied, "{status:?}");
    cluster.ok("scancel", &[&job.to_string()]);
}

fn tokio_stream_once(message: pb::ApiRequest) -> impl tokio_stream::Stream<Item = pb::ApiRequest> {
    tokio_stream::iter(vec![message])
}

#[test]
fn jwt_tokens_authenticate_and_bad_ones_are_refused() {
    if !is_root() {
        eprintln!("skipped: creating users needs root");
        return;
    }
    let key_dir = tempfile::tempdir().expect("tempdir");
    let key_path = key_dir.path().join("jwt_hs256.key");
    let key: Vec<u8> = (0..32u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(11))
        .collect();
    std::fs::write(&key_path, &key).expect("write key");
    // spurctld refuses a key that group or others may read.
    std::fs::set_permissions(
        &key_path,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod key");
    let alice = TestUser::create("j");
    let cluster = start_cluster(format!(
        "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}\n",
        key_path.display()
    ));
    // Root may get a token for alice; alice may not get one for root (Slurm: "Invalid user id").
    let out = cluster.run(
        "scontrol",
        &["token", &format!("username={}", alice.name), "lifespan=600"],
    );
    let line = text(&out.stdout);
    let token = line
        .trim()
        .strip_prefix("SLURM_JWT=")
        .expect("SLURM_JWT=...")
        .to_string();
    let claims = jwt::verify(&token, &key, 0).expect("signed with the cluster key");
    assert_eq!(claims.sun, alice.name);
    assert_eq!(claims.exp - claims.iat, 600);
    let out = alice.run(&cluster, "scontrol", &["token", "username=root"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr),
        "scontrol: error: slurm_fetch_token: error with request: Invalid user id\nError fetching token\n"
    );

    // The token, not the process's uid, is who submits: root's shell with alice's token submits as alice.
    let out = cluster
        .command(
            &alice.work,
            "sbatch",
            &["--parsable", "--wrap", "sleep 300"],
        )
        .env("SLURM_JWT", &token)
        .output()
        .expect("sbatch");
    assert!(
        out.status.success(),
        "{}\n{}",
        text(&out.stderr),
        cluster.logs()
    );
    let job: u32 = text(&out.stdout).trim().parse().expect("job id");
    assert_eq!(
        cluster.job_field(job, "UserId"),
        format!("{}({})", alice.name, alice.uid)
    );

    // Expired, signed with another key, for an unknown user, or garbage: refused like Slurm, and logged.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let claims = |sun: &str, exp: i64| jwt::Claims {
        exp,
        iat: now - 100,
        sun: sun.to_string(),
    };
    let bad = [
        jwt::encode(&claims(&alice.name, now - 10), &key).expect("token"),
        jwt::encode(&claims(&alice.name, now + 600), b"another key").expect("token"),
        jwt::encode(&claims("nosuchuser-spur", now + 600), &key).expect("token"),
        "garbage".to_string(),
    ];
    for token in &bad {
        let out = cluster
            .command(&alice.work, "squeue", &[])
            .env("SLURM_JWT", token)
            .output()
            .expect("squeue");
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            text(&out.stderr),
            "slurm_load_jobs error: Zero Bytes were transmitted or received\n"
        );
    }
    let log = std::fs::read_to_string(cluster.dir.path().join("spurctld.log")).unwrap_or_default();
    for reason in [
        "token expired",
        "bad signature",
        "unknown user nosuchuser-spur",
        "malformed token",
    ] {
        assert!(log.contains(reason), "log lacks {reason:?}:\n{log}");
    }
    cluster.ok("scancel", &[&job.to_string()]);
}

#[test]
fn local_socket_identifies_callers_by_peer_credentials() {
    if !is_root() {
        eprintln!("skipped: creating users needs root");
        return;
    }
    // The quick start's setup: commands and spurd reach spurctld over its Unix socket, munged unused.
    let alice = TestUser::create("s");
    let cluster = start_cluster_with(String::new(), true);
    let root_job = cluster.submit("#!/bin/sh\nsleep 300\n", &[]);
    let job = alice.sbatch(&cluster, &["--parsable", "--wrap", "sleep 300"]);
    assert_eq!(
        cluster.job_field(job, "UserId"),
        format!("{}({})", alice.name, alice.uid)
    );
    let out = alice.run(&cluster, "scancel", &[&root_job.to_string()]);
    assert!(
        text(&out.stderr).contains("Access/permission denied"),
        "{}",
        text(&out.stderr)
    );
    let out = alice.run(&cluster, "scancel", &[&job.to_string()]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // The socket does not open TCP: there, a request without a credential is still refused.
    let reply = send_control(&cluster, forged_cancel(root_job, "tcp-1"), None);
    assert_eq!(reply.error_code, 5005);
    assert_eq!(cluster.job_field(root_job, "JobState"), "RUNNING");
    cluster.ok("scancel", &[&root_job.to_string()]);
}

/// One request frame on `stream` and its reply.
fn frame_call(
    stream: &mut (impl std::io::Read + std::io::Write),
    bytes: &[u8],
) -> Option<pb::ApiReply> {
    use spur_core::wire::frames;
    stream.write_all(bytes).ok()?;
    let mut header = [0u8; frames::HEADER_BYTES];
    stream.read_exact(&mut header).ok()?;
    let mut body = vec![0; frames::body_len(&header, 1 << 30).ok()?];
    stream.read_exact(&mut body).ok()?;
    frames::parse_reply(&body).ok()
}

#[test]
fn local_socket_answers_frames_and_grpc_alike() {
    use spur_core::wire::api::Query;
    use spur_core::wire::frames::{self, Credential, Method};
    let cluster = start_cluster_with(String::new(), true);
    let socket = cluster.local_socket.clone().expect("local socket");
    // The commands' one-shot calls go in frames; the agent's session on the same socket is gRPC.
    let job = cluster.submit("#!/bin/sh\nsleep 300\n", &["--hold"]);
    cluster.wait_for_node_idle();

    let query = |kind: Query, id: &str| pb::ApiRequest {
        request_id: id.into(),
        body: Some(to_doc(&kind).expect("doc")),
        ..Default::default()
    };
    let mut stream = std::os::unix::net::UnixStream::connect(&socket).expect("connect");
    // A frame naming no known call is refused, and the connection answers the next one.
    let none = Credential::None;
    let mut unknown =
        frames::request_frame(Method::Query, &none, &query(Query::Jobs, "f-1")).unwrap();
    unknown[frames::HEADER_BYTES] = 42;
    let refused = frame_call(&mut stream, &unknown).expect("refusal");
    assert_ne!(refused.error_code, 0);
    assert!(refused.message.contains("Unspecified error"), "{refused:?}");
    let frame = frames::request_frame(Method::Query, &none, &query(Query::Jobs, "f-2")).unwrap();
    let reply = frame_call(&mut stream, &frame).expect("reply");
    assert_eq!(reply.error_code, 0, "{reply:?}");
    let body = String::from_utf8_lossy(&reply.body.expect("body").json).into_owned();
    assert!(body.contains(&format!("\"job_id\":{job}")), "{body}");
    // Bytes that are not a frame end the connection after one refusal.
    let refused = frame_call(&mut stream, b"SPF2\0\0\0\0").expect("refusal");
    assert_ne!(refused.error_code, 0);
    assert!(frame_call(&mut stream, &frame).is_none());

    // gRPC on the same socket, identified the same way.
    let auth = spur_auth::ClientAuth::Local {
        socket: socket.clone(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let reply = runtime.block_on(async {
        let channel = auth
            .channel("http://unused", Duration::from_secs(10), None)
            .await
            .expect("channel");
        pb::controller_client::ControllerClient::new(channel)
            .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES)
            .query(query(Query::Jobs, "g-1"))
            .await
            .expect("reply")
            .into_inner()
    });
    assert_eq!(reply.error_code, 0, "{reply:?}");
    cluster.ok("scancel", &[&job.to_string()]);
}

#[test]
fn frames_over_tcp_are_proved_like_grpc_calls() {
    use spur_core::wire::frames::{self, Credential, Method};
    let cluster = start_cluster_with(String::new(), false);
    let socket = cluster.munged.as_ref().expect("munged").socket.clone();
    let root_job = cluster.submit("#!/bin/sh\nsleep 300\n", &["--hold"]);
    let address = cluster.url.trim_start_matches("http://").to_string();
    let send = |credential: &Credential, message: &pb::ApiRequest| {
        let mut stream = std::net::TcpStream::connect(&address).expect("connect");
        frame_call(
            &mut stream,
            &frames::request_frame(Method::Control, credential, message).unwrap(),
        )
        .expect("reply")
    };
    // No credential, a forged one, one made for another request: refused as over gRPC, nothing done.
    let forged = forged_cancel(root_job, "t-1");
    assert_eq!(send(&Credential::None, &forged).error_code, 5005);
    assert_eq!(
        send(&Credential::Munge("MUNGE:forged:".into()), &forged).error_code,
        5005
    );
    let other = spur_auth::client::munge_header(
        &socket.display().to_string(),
        "Control",
        &forged_cancel(root_job, "t-other"),
    )
    .expect("credential");
    assert_eq!(send(&Credential::Munge(other), &forged).error_code, 5005);
    assert_eq!(cluster.job_field(root_job, "JobState"), "PENDING");
    // A credential bound to this very request: the call is made, as root.
    let proved = spur_auth::client::munge_header(&socket.display().to_string(), "Control", &forged)
        .expect("credential");
    let reply = send(&Credential::Munge(proved.clone()), &forged);
    assert_eq!(reply.error_code, 0, "{reply:?}");
    assert_eq!(cluster.job_field(root_job, "JobState"), "CANCELLED");
    // And only once: the same credential again is a replay.
    assert_eq!(send(&Credential::Munge(proved), &forged).error_code, 5005);
}
