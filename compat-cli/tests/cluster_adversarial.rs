//! Issue 29's adversarial suite: a real cluster (spurctld, spurd, a private munged, slurmrestd) and a throwaway
//! unprivileged user made with useradd who attacks every local surface as themself, in real processes (the
//! shipped commands, `munge`, python3 for raw sockets). Every attack must be refused with Slurm's answer, and
//! afterwards root's job must be as it was (its `scontrol show job` line, its processes, which record any signal,
//! and its files). Needs root (to add the user); skipped with a message otherwise.
//!
//! The controller's local Unix socket is attacked in `cluster_adversarial_socket.rs` (that setup has no munged).

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::PathBuf;
use std::time::Duration;

use common::attack::{
    alive, cancel, control, frame_by, is_root, job_dir, job_snapshot, munge_by, python_as, raw_by,
    text, Findings, CTL_REQUEST, DGRAM_SEND, OPEN_PROBE,
};
use common::rest::{request, RestDaemon};
use common::users::TestUser;
use common::{bin_dir, Cluster, ClusterOptions, LONG};
use spur_core::auth::{jwt, MUNGE_HEADER};
use spur_core::model::job::JobSpec;
use spur_core::wire::api::SubmitRequest;
use spur_core::wire::frames::{Credential, Method};
use spur_core::wire::{pb, to_doc};

const ZERO_BYTES: i32 = 5005;
const ACCESS_DENIED: i32 = 2002;
const V: &str = "/slurm/v0.0.38";

/// A REST reply's status and its only error's number and description.
fn rest_error(reply: &common::rest::HttpReply) -> Option<(u16, i64, String)> {
    let json: serde_json::Value = serde_json::from_str(&reply.body).ok()?;
    let errors = json["errors"].as_array()?;
    let [error] = errors.as_slice() else {
        return None;
    };
    Some((
        reply.status,
        error["error_number"].as_i64()?,
        error["description"].as_str()?.to_string(),
    ))
}

#[test]
fn an_unprivileged_user_cannot_touch_roots_jobs_or_the_cluster() {
    if !is_root() {
        eprintln!("skipped: the adversarial suite needs root (useradd, and root's job to attack)");
        return;
    }
    // The user first: locals drop in reverse, so the cluster (and the user's jobs) is gone before userdel.
    let mallory = TestUser::create("x");
    let keys = tempfile::tempdir().expect("tempdir");
    let key_path = keys.path().join("jwt_hs256.key");
    std::fs::write(&key_path, [7u8; 32]).expect("key");
    std::fs::set_permissions(&key_path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let cluster = Cluster::start_with(ClusterOptions {
        cpus: 4,
        // allow_user_triggers: users may set triggers, the riskiest setting for strigger (checked below).
        extra_conf: format!(
            "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}\nSlurmctldParameters=allow_user_triggers\n",
            key_path.display()
        ),
        ..ClusterOptions::default()
    });
    // As on a real site: slurm.conf readable by all, the cluster's directory searchable.
    for (path, mode) in [(cluster.dir.path(), 0o755), (cluster.conf.as_path(), 0o644)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let munge_socket = cluster.munged.as_ref().expect("munged").socket.clone();
    let mut findings = Findings::default();

    // Root's job: records every signal its shell gets, and runs a step (for sattach and step signals).
    let root_dir = cluster.subdir("root");
    let signals = root_dir.join("signals");
    let pid_file = root_dir.join("pid");
    let script = format!(
        "#!/bin/sh\ntrap 'echo got >> {sig}' HUP INT USR1 USR2 TERM ALRM\necho $$ > {pid}\n\
         srun sleep 300 &\nwhile :; do wait; sleep 1; done\n",
        sig = signals.display(),
        pid = pid_file.display()
    );
    let script_path = root_dir.join("job.sh");
    std::fs::write(&script_path, script).expect("script");
    let root_job = cluster.submit_with_spur_srun(&[
        "-o",
        &root_dir.join("out").display().to_string(),
        &script_path.display().to_string(),
    ]);
    cluster.wait_for_state(root_job, "RUNNING", LONG);
    let root_text = cluster.wait_for_file(&pid_file, |t| t.trim().parse::<i32>().is_ok());
    let root_pid: i32 = root_text.trim().parse().expect("pid");
    cluster.expect_within(LONG, "root's step", || {
        cluster
            .ok("squeue", &["-h", "-s", "-o", "%i"])
            .contains(&format!("{root_job}.0"))
    });
    let before = job_snapshot(&cluster, root_job);
    let job = root_job.to_string();

    // a. The controller over TCP, with the shipped commands and the user's own MUNGE credentials.
    let denied = format!("Kill job error on job id {root_job}: Access/permission denied");
    let attempts: &[(&str, &[&str], &str)] = &[
        ("scancel", &[&job], &denied),
        (
            "scancel",
            &["--signal=USR1", &job],
            "Access/permission denied",
        ),
        (
            "scancel",
            &["--batch", "--signal=KILL", &job],
            "Access/permission denied",
        ),
        ("scancel", &["-u", "root"], "Access/permission denied"),
        ("scontrol", &["hold", &job], "Invalid user id"),
        ("scontrol", &["requeue", &job], "Access/permission denied"),
        ("scontrol", &["suspend", &job], "Access/permission denied"),
        (
            "scontrol",
            &["update", &format!("jobid={job}"), "timelimit=1"],
            "Invalid user id",
        ),
        (
            "scontrol",
            &["update", &format!("jobid={job}"), "nice=10000"],
            "Invalid user id",
        ),
        ("scontrol", &["notify", &job, "hello"], "Invalid user id"),
        (
            "scontrol",
            &[
                "update",
                &format!("nodename={}", cluster.node),
                "state=drain",
                "reason=x",
            ],
            "Invalid user id",
        ),
        (
            "scontrol",
            &["update", "partitionname=debug", "state=down"],
            "Invalid user id",
        ),
        (
            "scontrol",
            &[
                "create",
                "reservation",
                "starttime=now",
                "duration=60",
                "users=root",
                &format!("nodes={}", cluster.node),
            ],
            "Invalid user id",
        ),
        ("scontrol", &["token", "username=root"], "Invalid user id"),
        (
            "sacctmgr",
            &["-i", "add", "account", "evil"],
            "Access/permission denied",
        ),
        (
            "sacctmgr",
            &["-i", "modify", "user", "root", "set", "maxjobs=0"],
            "Access/permission denied",
        ),
        (
            "sbatch",
            &["--nice=-1000", "--wrap", "true"],
            "Invalid --nice value",
        ),
        (
            "sbatch",
            &["--uid=0", "--wrap", "true"],
            "sbatch: error: --uid only permitted by root user",
        ),
        (
            "sbatch",
            &["--gid=0", "--wrap", "true"],
            "sbatch: error: --gid only permitted by root user",
        ),
    ];
    for (command, args, wanted) in attempts {
        let out = mallory.run(&cluster, command, args);
        findings.refused(&format!("{command} {args:?}"), &out, wanted);
    }

    // A JWT for root signed with another key.
    let forged_jwt = jwt::encode(
        &jwt::Claims {
            exp: i64::MAX / 2,
            iat: 0,
            sun: "root".into(),
        },
        b"not the cluster's key, but long enough",
    )
    .expect("token");
    let out = mallory
        .command(&cluster, "scancel", &[&job])
        .env("SLURM_JWT", &forged_jwt)
        .output()
        .expect("scancel");
    findings.refused(
        "scancel with a forged root JWT",
        &out,
        "Zero Bytes were transmitted or received",
    );

    // Frames over TCP from the user's process: a body claiming root with the user's credential, no credential,
    // garbage, a credential made for another request, and a replay.
    let message = control(cancel(root_job), "adv-1");
    let own = munge_by(
        &mallory,
        &munge_socket,
        &spur_auth::client::request_payload("Control", &message),
    );
    let reply = frame_by(
        &mallory,
        &cluster,
        Method::Control,
        &Credential::Munge(own.clone()),
        &message,
    );
    findings.check(
        reply.as_ref().map(|r| r.error_code) == Some(ACCESS_DENIED),
        || format!("cancel claiming root with mallory's credential: {reply:?}"),
    );
    let replayed = frame_by(
        &mallory,
        &cluster,
        Method::Control,
        &Credential::Munge(own),
        &message,
    );
    let other = munge_by(
        &mallory,
        &munge_socket,
        &spur_auth::client::request_payload("Control", &control(cancel(root_job), "adv-other")),
    );
    let misbound = frame_by(
        &mallory,
        &cluster,
        Method::Control,
        &Credential::Munge(other),
        &message,
    );
    let garbage = frame_by(
        &mallory,
        &cluster,
        Method::Control,
        &Credential::Munge("MUNGE:AwQFAAC+garbage+garbage+garbage:".into()),
        &message,
    );
    let bare = frame_by(
        &mallory,
        &cluster,
        Method::Control,
        &Credential::None,
        &message,
    );
    let jwt_frame = frame_by(
        &mallory,
        &cluster,
        Method::Control,
        &Credential::Jwt(forged_jwt.clone()),
        &message,
    );
    for (what, reply) in [
        ("a replayed credential", &replayed),
        ("a credential made for another request", &misbound),
        ("a garbage credential", &garbage),
        ("no credential", &bare),
        ("a JWT signed with another key", &jwt_frame),
    ] {
        findings.check(
            reply.as_ref().is_some_and(|r| r.error_code == ZERO_BYTES),
            || format!("frame with {what}: {reply:?}"),
        );
    }
    let noise = raw_by(&mallory, &cluster, b"SPF1 not a frame at all, only noise\n");
    findings.check(noise.as_ref().is_none_or(|r| r.error_code != 0), || {
        format!("noise: {noise:?}")
    });

    // A submission whose body says root: it runs as mallory, and so does its output file.
    let out_path = mallory.work.join("claimed-root.out");
    let spec = JobSpec {
        name: "claims-root".into(),
        user_id: 0,
        group_id: 0,
        user_name: "root".into(),
        nodes_min: 1,
        cpus_per_task: 1,
        work_dir: mallory.work.display().to_string(),
        stdout: Some(out_path.display().to_string()),
        script: Some("#!/bin/sh\nid -u\n".into()),
        ..JobSpec::default()
    };
    let submit = pb::ApiRequest {
        request_id: "adv-submit".into(),
        caller: Some(pb::Caller {
            uid: 0,
            gid: 0,
            host: "forged".into(),
        }),
        body: Some(
            to_doc(&SubmitRequest {
                spec,
                test_only: false,
                immediate: false,
                interactive: false,
                het_components: Vec::new(),
            })
            .expect("doc"),
        ),
        ..Default::default()
    };
    let credential = munge_by(
        &mallory,
        &munge_socket,
        &spur_auth::client::request_payload("Submit", &submit),
    );
    let reply = frame_by(
        &mallory,
        &cluster,
        Method::Submit,
        &Credential::Munge(credential),
        &submit,
    );
    let claimed_job = reply
        .as_ref()
        .filter(|r| r.error_code == 0)
        .and_then(|r| r.body.as_ref())
        .and_then(|doc| serde_json::from_slice::<serde_json::Value>(&doc.json).ok())
        .and_then(|v| v["job_id"].as_u64())
        .and_then(|id| u32::try_from(id).ok());
    match claimed_job {
        None => findings.0.push(format!(
            "the submission claiming root was not answered with a job: {reply:?}"
        )),
        Some(id) => {
            let user = cluster.squeue("%u", &["-j", &id.to_string()]);
            cluster.wait_for_end(id, LONG);
            let owner = std::fs::metadata(&out_path).map(|m| m.uid()).ok();
            let printed = std::fs::read_to_string(&out_path).unwrap_or_default();
            findings.check(
                user.first().is_none_or(|u| *u == mallory.name)
                    && cluster.job_field(id, "UserId") == format!("{}({})", mallory.name, mallory.uid)
                    && owner == Some(mallory.uid)
                    && printed.trim() == mallory.uid.to_string(),
                || format!("a job claiming root: squeue {user:?}, output owner {owner:?}, it printed {printed:?}"),
            );
        }
    }

    // The daemons' gRPC services with the user's credential: no node registers, no Raft call is taken.
    let hello = pb::ApiRequest {
        body: Some(pb::Doc {
            kind: "AgentToController".into(),
            version: 1,
            json: b"{}".to_vec(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let session_cred = munge_by(
        &mallory,
        &munge_socket,
        &spur_auth::client::request_payload("Session", &hello),
    );
    let raft_cred = munge_by(
        &mallory,
        &munge_socket,
        &spur_auth::client::request_payload("Call", &hello),
    );
    let (session, raft) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(async {
            let mut agent = pb::agent_link_client::AgentLinkClient::connect(cluster.url.clone())
                .await
                .expect("connect");
            let mut request = tonic::Request::new(tokio_stream::iter(vec![hello.clone()]));
            request
                .metadata_mut()
                .insert(MUNGE_HEADER, session_cred.parse().expect("header"));
            let session = agent.session(request).await.err().map(|s| s.code());
            let mut raft = pb::raft_peer_client::RaftPeerClient::connect(cluster.url.clone())
                .await
                .expect("connect");
            let mut request = tonic::Request::new(hello.clone());
            request
                .metadata_mut()
                .insert(MUNGE_HEADER, raft_cred.parse().expect("header"));
            let raft = raft.call(request).await.err().map(|s| s.code());
            (session, raft)
        });
    findings.check(session == Some(tonic::Code::PermissionDenied), || {
        format!("an agent session sealed by mallory: {session:?}")
    });
    findings.check(
        matches!(
            raft,
            Some(tonic::Code::PermissionDenied | tonic::Code::Unauthenticated)
        ),
        || format!("a raft call sealed by mallory: {raft:?}"),
    );

    // b. Root's supervisor: every request on its control socket is refused.
    let root_ctl = job_dir(&cluster, root_job).join("ctl.sock");
    let ctl = root_ctl.display().to_string();
    for request in [
        r#"{"version":1,"request":{"type":"signal","signo":9,"scope":"all_processes"}}"#,
        r#"{"version":1,"request":{"type":"signal","signo":10,"scope":"batch_shell"}}"#,
        r#"{"version":1,"request":{"type":"terminate","reason":"cancelled"}}"#,
        r#"{"version":1,"request":{"type":"notify","message":"pwned"}}"#,
    ] {
        let answer = python_as(&mallory, CTL_REQUEST, &[&ctl, request]);
        eprintln!("root's ctl.sock, {request}: {answer}");
        findings.check(
            answer.contains("Access/permission denied") || answer == "errno 13",
            || format!("root's ctl.sock took {request}: {answer}"),
        );
    }
    // sattach to root's step: the controller refuses the attach (Access/permission denied), and sattach says what
    // Slurm's says when slurmstepd refuses a reattach; none of the step's output reaches the user.
    let out = mallory.run(&cluster, "sattach", &[&format!("{root_job}.0")]);
    findings.check(
        text(&out.stderr).trim() == format!("sattach: Node {}: no tasks running", cluster.node)
            && out.stdout.is_empty(),
        || format!("sattach to root's step: {out:?}"),
    );

    // sbcast into root's job: the controller refuses (Access/permission denied, Slurm's lookup error), no node is
    // asked to call, and nothing is written.
    let planted = cluster.dir.path().join("sbcast-planted");
    let source = cluster.dir.path().join("sbcast-source");
    std::fs::write(&source, "pwned\n").unwrap();
    std::fs::set_permissions(&source, std::os::unix::fs::PermissionsExt::from_mode(0o644)).unwrap();
    let out = mallory.run(
        &cluster,
        "sbcast",
        &[
            "-j",
            &root_job.to_string(),
            &source.display().to_string(),
            &planted.display().to_string(),
        ],
    );
    findings.check(
        text(&out.stderr).trim()
            == format!("sbcast: error: Slurm job {root_job} lookup error: Invalid user id")
            && out.status.code() == Some(255)
            && !planted.exists(),
        || format!("sbcast into root's job: {out:?}"),
    );

    // strigger with user triggers allowed: the user's trigger runs as the user (never as root, whatever the
    // controller runs as), and the user cannot clear root's trigger.
    let root_probe = cluster.dir.path().join("trigger-root-probe");
    std::fs::write(&root_probe, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&root_probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let root_trigger = format!("--program={}", root_probe.display());
    cluster.ok("strigger", &["--set", "--reconfig", &root_trigger]);
    let out = mallory.run(&cluster, "strigger", &["--clear", "--user=root"]);
    findings.check(
        text(&out.stderr).trim() == "slurm_clear_trigger: Access/permission denied"
            && out.status.code() == Some(1)
            && cluster
                .ok("strigger", &["--get", "-N", "--user=root"])
                .lines()
                .count()
                == 1,
        || format!("strigger --clear of root's trigger: {out:?}"),
    );
    let whoami = mallory.work.join("trigger-whoami");
    let probe = mallory.work.join("trigger-probe");
    std::fs::write(&probe, format!("#!/bin/sh\nid -u > {}\n", whoami.display())).unwrap();
    std::fs::set_permissions(&probe, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&probe, Some(mallory.uid), Some(mallory.gid)).unwrap();
    let short_job = {
        let out = mallory.run(
            &cluster,
            "sbatch",
            &["--parsable", "-o", "/dev/null", "--wrap", "sleep 1"],
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        common::parse_job_id(&text(&out.stdout))
    };
    let out = mallory.run(
        &cluster,
        "strigger",
        &[
            "--set",
            "--fini",
            "-j",
            &short_job.to_string(),
            &format!("--program={}", probe.display()),
        ],
    );
    findings.check(out.status.success(), || {
        format!("the user's strigger --set: {out:?}")
    });
    let ran_as = cluster.wait_for_file(&whoami, |t| !t.trim().is_empty());
    findings.check(ran_as.trim() == mallory.uid.to_string(), || {
        format!(
            "the user's trigger ran as uid {ran_as:?}, not {}",
            mallory.uid
        )
    });

    // The user's own job: its supervisor signals only its own processes.
    let own_job = {
        let out = mallory.run(&cluster, "sbatch", &["--parsable", "--wrap", "sleep 300"]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        common::parse_job_id(&text(&out.stdout))
    };
    cluster.wait_for_state(own_job, "RUNNING", LONG);
    let own_ctl = job_dir(&cluster, own_job).join("ctl.sock");
    cluster.expect_within(LONG, "the user's supervisor", || own_ctl.exists());
    let step_signal = format!(
        r#"{{"version":1,"request":{{"type":"signal","signo":10,"scope":"step_tasks","step_pids":[{root_pid},1]}}}}"#
    );
    let answer = python_as(
        &mallory,
        CTL_REQUEST,
        &[&own_ctl.display().to_string(), &step_signal],
    );
    eprintln!("own ctl.sock, step_tasks naming root's shell and init: {answer}");
    findings.check(!answer.contains(r#""type":"ok""#), || {
        format!("mallory's supervisor signalled pids outside her job: {answer}")
    });

    // c. The agent's local socket: a datagram only wakes it (to scan the spool), nothing more.
    let wake = cluster.dir.path().join("spool").join("wake.sock");
    let sent = python_as(&mallory, DGRAM_SEND, &[&wake.display().to_string(), "x"]);
    eprintln!("wake socket from mallory: {sent}");

    // d. REST: with no token, with mallory's token as root, with rest_auth/local from another uid.
    let rest = RestDaemon::start(
        &bin_dir(),
        &cluster.conf,
        cluster.dir.path(),
        &["-a", "rest_auth/jwt"],
    );
    let tcp = rest.tcp();
    let token = {
        let out = mallory.run(&cluster, "scontrol", &["token", "lifespan=600"]);
        text(&out.stdout)
            .trim()
            .trim_start_matches("SLURM_JWT=")
            .to_string()
    };
    let none = request(&tcp, "DELETE", &format!("{V}/job/{root_job}"), &[], None).expect("http");
    findings.check(
        (none.status, none.body.as_str()) == (401, "Authentication failure"),
        || format!("REST without a token: {none:?}"),
    );
    let as_root = [
        ("X-SLURM-USER-NAME", "root"),
        ("X-SLURM-USER-TOKEN", token.as_str()),
    ];
    let named_root = request(
        &tcp,
        "DELETE",
        &format!("{V}/job/{root_job}"),
        &as_root,
        None,
    )
    .expect("http");
    // A name that is not the token's: spurctld refuses the token, which slurmrestd reports as Slurm's does.
    let unproved = format!("unable to kill JobId={root_job} with signal 9: Unspecified error");
    findings.check(
        rest_error(&named_root) == Some((500, -1, unproved.clone())),
        || format!("REST with mallory's token named root: {named_root:?}"),
    );
    let as_self = [
        ("X-SLURM-USER-NAME", mallory.name.as_str()),
        ("X-SLURM-USER-TOKEN", token.as_str()),
    ];
    let own_token = request(
        &tcp,
        "DELETE",
        &format!("{V}/job/{root_job}"),
        &as_self,
        None,
    )
    .expect("http");
    let denied_rest =
        format!("unable to kill JobId={root_job} with signal 9: Access/permission denied");
    findings.check(
        rest_error(&own_token) == Some((500, ACCESS_DENIED.into(), denied_rest)),
        || format!("REST cancel of root's job with mallory's own token: {own_token:?}"),
    );
    let forged = [
        ("X-SLURM-USER-NAME", "root"),
        ("X-SLURM-USER-TOKEN", forged_jwt.as_str()),
    ];
    let forged_reply = request(
        &tcp,
        "DELETE",
        &format!("{V}/job/{root_job}"),
        &forged,
        None,
    )
    .expect("http");
    findings.check(
        rest_error(&forged_reply) == Some((500, -1, unproved)),
        || format!("REST forged JWT: {forged_reply:?}"),
    );
    drop(rest);
    let local_dir = cluster.subdir("rest-local");
    std::fs::set_permissions(&local_dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let local = RestDaemon::start(
        &bin_dir(),
        &cluster.conf,
        &local_dir,
        &["-a", "rest_auth/local"],
    );
    std::fs::set_permissions(&local.unix, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let http_unix = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
s.connect(sys.argv[1])
s.sendall(("DELETE " + sys.argv[2] + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").encode())
got = b""
while True:
    chunk = s.recv(65536)
    if not chunk:
        break
    got += chunk
print(got.decode(errors="replace").split("\r\n")[0])
"#;
    let status_line = python_as(
        &mallory,
        http_unix,
        &[
            &local.unix.display().to_string(),
            &format!("{V}/job/{root_job}"),
        ],
    );
    findings.check(status_line.contains("401"), || {
        format!("rest_auth/local from mallory: {status_line}")
    });
    drop(local);

    // e. Files the cluster made: nothing secret or of root's is readable, nothing of the daemons writable.
    let spool = cluster.dir.path().join("spool");
    let root_jobdir = job_dir(&cluster, root_job);
    let mut private: Vec<PathBuf> = vec![
        cluster.dir.path().join("state"),
        cluster.dir.path().join("state/raft"),
        key_path.clone(),
        root_jobdir.clone(),
        root_jobdir.join("launch.json"),
        root_jobdir.join("slurm_script"),
        root_jobdir.join("stepd.log"),
        root_jobdir.join("started.json"),
    ];
    // The test's munged stands in for the site's: its key must be the munge user's (here root's) alone.
    let munge_key = cluster.munged.as_ref().expect("munged").key.clone();
    assert!(munge_key.exists(), "{}", munge_key.display());
    private.push(munge_key);
    for path in &private {
        let probe = python_as(&mallory, OPEN_PROBE, &[&path.display().to_string()]);
        findings.check(
            !probe.contains("read:ok") && !probe.contains("write:ok"),
            || format!("{} is open to mallory: {probe}", path.display()),
        );
    }
    // Nothing the daemons read back may be planted: no file in the spool, a job's directory (a fake result.json
    // of root's job or of the user's own) or the steps' directory, and no supervisor file rewritten.
    let own_jobdir = job_dir(&cluster, own_job);
    for dir in [
        spool.clone(),
        spool.join("steps"),
        root_jobdir.clone(),
        own_jobdir.clone(),
    ] {
        let planted = python_as(
            &mallory,
            "import sys\ntry:\n open(sys.argv[1] + '/result.json', 'w').write('{}')\n print('wrote')\nexcept OSError as e:\n print('errno %d' % e.errno)",
            &[&dir.display().to_string()],
        );
        findings.check(planted != "wrote", || {
            format!("mallory wrote a file into {}", dir.display())
        });
    }
    for file in ["stepd.pid", "started.json", "run", "launch.json"] {
        for dir in [&root_jobdir, &own_jobdir] {
            let path = dir.join(file);
            let probe = python_as(&mallory, OPEN_PROBE, &[&path.display().to_string()]);
            findings.check(!probe.contains("write:ok"), || {
                format!("{} is writable by mallory: {probe}", path.display())
            });
        }
    }
    // Show the modes of what the daemons made, for the report.
    for path in [
        cluster.dir.path().join("state"),
        spool.clone(),
        root_jobdir.clone(),
    ] {
        if let Ok(meta) = std::fs::metadata(&path) {
            eprintln!("{}: {:o} uid {}", path.display(), meta.mode(), meta.uid());
        }
    }
    if let Ok(entries) = std::fs::read_dir(&root_jobdir) {
        for e in entries.flatten() {
            if let Ok(meta) = e.metadata() {
                eprintln!(
                    "  {}: {:o} uid {}",
                    e.path().display(),
                    meta.mode(),
                    meta.uid()
                );
            }
        }
    }

    // A symlink planted at the job's output path to a file of root's: the job's output is opened as the user, so
    // it cannot write there, and the root file stays as it was.
    let victim = cluster.write_file("victim", "root's file\n");
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let link = mallory.work.join("link.out");
    let planted = mallory.program(
        "ln",
        &[
            "-s",
            &victim.display().to_string(),
            &link.display().to_string(),
        ],
    );
    assert!(planted.status.success(), "{}", text(&planted.stderr));
    let err_link = mallory.work.join("link.err");
    let planted = mallory.program(
        "ln",
        &[
            "-s",
            &victim.display().to_string(),
            &err_link.display().to_string(),
        ],
    );
    assert!(planted.status.success(), "{}", text(&planted.stderr));
    let out = mallory.run(
        &cluster,
        "sbatch",
        &[
            "--parsable",
            "-o",
            &link.display().to_string(),
            "-e",
            &err_link.display().to_string(),
            "--wrap",
            "echo pwned; echo pwned >&2",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let link_job = common::parse_job_id(&text(&out.stdout));
    cluster.wait_for_end(link_job, LONG);
    let victim_now = std::fs::read_to_string(&victim).unwrap_or_default();
    let victim_meta = std::fs::metadata(&victim).expect("victim");
    findings.check(
        victim_now == "root's file\n"
            && victim_meta.uid() == 0
            && victim_meta.mode() & 0o777 == 0o644,
        || {
            format!(
                "a symlinked output path changed root's file: {victim_now:?}, {:o}",
                victim_meta.mode()
            )
        },
    );

    // After all that: root's job as it was, running, its shell never signalled, its supervisor untouched.
    std::thread::sleep(Duration::from_millis(1500));
    let after = job_snapshot(&cluster, root_job);
    findings.check(after == before, || {
        format!("root's job changed:\nbefore {before}\nafter  {after}")
    });
    findings.check(alive(root_pid), || "root's batch shell is gone".into());
    findings.check(!signals.exists(), || {
        format!(
            "root's job got signals: {}",
            std::fs::read_to_string(&signals).unwrap_or_default()
        )
    });
    let node = cluster.ok("sinfo", &["-h", "-o", "%T"]);
    findings.check(node.trim() == "mixed" || node.trim() == "allocated", || {
        format!("node state: {node}")
    });
    let reservations = cluster.ok("scontrol", &["show", "reservation"]);
    findings.check(reservations.contains("No reservations"), || {
        format!("reservations: {reservations}")
    });
    findings.assert_none(&cluster);
    cluster.ok("scancel", &[&job, &own_job.to_string()]);
}
