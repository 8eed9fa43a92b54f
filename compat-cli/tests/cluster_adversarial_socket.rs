//! Issue 29's adversarial suite, the controller's local Unix socket (`SPUR_LOCAL_SOCKET`, the no-munged setup of
//! the quick start): callers are who the kernel says (`SO_PEERCRED`), so a throwaway user made with useradd
//! attacks it from their own processes: the shipped commands, python3 sending frames whose body claims root, and a
//! gRPC agent session from a thread running as the user. Everything must be refused with Slurm's answer, and root's
//! job be as it was. The other surfaces are in `cluster_adversarial.rs`. Needs root; skipped otherwise.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use common::attack::{job_snapshot, text};
use common::users::TestUser;
use common::{Cluster, ClusterOptions, LONG};
use spur_core::model::assoc::{AcctRequest, AssocSet};
use spur_core::model::job::JobSpec;
use spur_core::wire::api::{ControlRequest, JobSelector, SubmitRequest};
use spur_core::wire::frames::{self, Credential, Method};
use spur_core::wire::{pb, to_doc};

const ACCESS_DENIED: i32 = 2002;

/// Sends a file's bytes on a Unix stream socket and prints the answer's bytes as hex (or `errno N`).
const UNIX_SEND: &str = r#"
import socket, sys
data = open(sys.argv[2], "rb").read()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
try:
    s.connect(sys.argv[1])
    s.sendall(data)
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
        if len(got) >= 8 and len(got) >= 8 + int.from_bytes(got[4:8], "big"):
            break
    print(got.hex())
except OSError as e:
    print("errno %d" % e.errno)
"#;

/// One frame without a credential sent on the socket by `user`'s python3 process; the controller's answer.
fn frame_by(
    user: &TestUser,
    socket: &Path,
    method: Method,
    message: &pb::ApiRequest,
) -> Option<pb::ApiReply> {
    let bytes = frames::request_frame(method, &Credential::None, message).expect("frame");
    let file = user.work.join("frame.bin");
    std::fs::write(&file, bytes).expect("write frame");
    let out = user.program(
        "/usr/bin/python3",
        &[
            "-c",
            UNIX_SEND,
            &socket.display().to_string(),
            &file.display().to_string(),
        ],
    );
    let hex = text(&out.stdout).trim().to_string();
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    frames::parse_reply(bytes.get(frames::HEADER_BYTES..)?).ok()
}

/// What `body` claims about the caller, in the envelope: root.
fn claiming_root(id: &str, body: pb::Doc) -> pb::ApiRequest {
    pb::ApiRequest {
        request_id: id.into(),
        caller: Some(pb::Caller {
            uid: 0,
            gid: 0,
            host: "forged".into(),
        }),
        body: Some(body),
        ..Default::default()
    }
}

#[test]
fn the_local_socket_takes_the_kernels_word_not_the_callers() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: the adversarial suite needs root (useradd, and root's job to attack)");
        return;
    }
    let mallory = TestUser::create("y");
    let cluster = Cluster::start_with(ClusterOptions {
        cpus: 4,
        local_socket: true,
        ..ClusterOptions::default()
    });
    for (path, mode) in [(cluster.dir.path(), 0o755), (cluster.conf.as_path(), 0o644)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let socket = cluster.local_socket.clone().expect("local socket");
    let root_job = cluster.submit("#!/bin/sh\nsleep 300\n", &[]);
    cluster.wait_for_state(root_job, "RUNNING", LONG);
    let before = job_snapshot(&cluster, root_job);
    let job = root_job.to_string();
    let mut failures = Vec::new();

    // The shipped commands, on the socket.
    let attempts: &[(&str, &[&str], &str)] = &[
        ("scancel", &[&job], "Access/permission denied"),
        (
            "scancel",
            &["--signal=KILL", &job],
            "Access/permission denied",
        ),
        ("scontrol", &["hold", &job], "Invalid user id"),
        ("scontrol", &["requeue", &job], "Access/permission denied"),
        (
            "scontrol",
            &["update", &format!("jobid={job}"), "timelimit=1"],
            "Invalid user id",
        ),
        (
            "scontrol",
            &[
                "update",
                &format!("nodename={}", cluster.node),
                "state=down",
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
            "sbatch",
            &["--nice=-1000", "--wrap", "true"],
            "Invalid --nice value",
        ),
    ];
    for (command, args, wanted) in attempts {
        let out = mallory.run(&cluster, command, args);
        let printed = text(&out.stderr) + &text(&out.stdout);
        if out.status.success() || !printed.contains(wanted) {
            failures.push(format!(
                "{command} {args:?}: {:?} {printed:?}",
                out.status.code()
            ));
        }
    }

    // Frames whose envelope claims root, from the user's own process: the peer's uid decides.
    let cancel = ControlRequest::Cancel {
        job: JobSelector {
            job_id: root_job,
            array_task: None,
        },
    };
    let reply = frame_by(
        &mallory,
        &socket,
        Method::Control,
        &claiming_root("sock-1", to_doc(&cancel).expect("doc")),
    );
    if reply.as_ref().map(|r| r.error_code) != Some(ACCESS_DENIED) {
        failures.push(format!("a cancel claiming root on the socket: {reply:?}"));
    }
    // `sacctmgr load`'s one all-or-nothing batch is for administrators: a user's own frame claiming root adds no
    // account (sacctmgr refuses before sending; the controller must refuse on its own).
    let load = ControlRequest::Accounting {
        request: AcctRequest::Batch {
            requests: vec![AcctRequest::AddAccounts {
                names: vec!["mallory_lab".into()],
                parent: None,
                description: None,
                organization: None,
                set: AssocSet::default(),
            }],
        },
    };
    let reply = frame_by(
        &mallory,
        &socket,
        Method::Control,
        &claiming_root("sock-load", to_doc(&load).expect("doc")),
    );
    if reply.as_ref().map(|r| r.error_code) != Some(ACCESS_DENIED) {
        failures.push(format!(
            "a load batch claiming root on the socket: {reply:?}"
        ));
    }
    let accounts = cluster.ok(
        "sacctmgr",
        &["-n", "-P", "show", "account", "format=account"],
    );
    if accounts.lines().any(|a| a.trim() == "mallory_lab") {
        failures.push(format!(
            "the refused load batch added its account: {accounts:?}"
        ));
    }
    // `spur migrate import-jobs`'s records are for administrators: a user's own frame claiming root is refused
    // and changes nothing (an import would move the job id counter past its ids).
    let record: spur_core::model::accounting::JobAccounting = serde_json::from_value(serde_json::json!({
        "job_id": 900_000, "name": "forged", "user_id": 0, "group_id": 0, "user_name": "root",
        "partition": "debug", "state": "COMPLETED", "reason": "WAIT_NO_REASON", "submit": 1_700_000_000,
        "start": 1_700_000_000, "end": 1_700_000_600, "elapsed_secs": 600, "nodes": 1, "cpus": 4,
    }))
    .expect("record");
    let import = ControlRequest::ImportJobs {
        records: vec![record],
    };
    let reply = frame_by(
        &mallory,
        &socket,
        Method::Control,
        &claiming_root("sock-import", to_doc(&import).expect("doc")),
    );
    if reply.as_ref().map(|r| r.error_code) != Some(ACCESS_DENIED) {
        failures.push(format!("an import claiming root on the socket: {reply:?}"));
    }
    let probe = cluster.submit("#!/bin/sh\ntrue\n", &["-H"]);
    if probe >= 900_000 {
        failures.push(format!(
            "the refused import moved the job id counter: {probe}"
        ));
    }
    cluster.ok("scancel", &[&probe.to_string()]);
    let spec = JobSpec {
        name: "claims-root".into(),
        user_id: 0,
        group_id: 0,
        user_name: "root".into(),
        nodes_min: 1,
        cpus_per_task: 1,
        work_dir: mallory.work.display().to_string(),
        script: Some("#!/bin/sh\nsleep 300\n".into()),
        hold: true,
        ..JobSpec::default()
    };
    let submit = SubmitRequest {
        spec,
        test_only: false,
        immediate: false,
        interactive: false,
        het_components: Vec::new(),
    };
    let reply = frame_by(
        &mallory,
        &socket,
        Method::Submit,
        &claiming_root("sock-2", to_doc(&submit).expect("doc")),
    );
    let submitted = reply
        .as_ref()
        .filter(|r| r.error_code == 0)
        .and_then(|r| r.body.as_ref())
        .and_then(|doc| serde_json::from_slice::<serde_json::Value>(&doc.json).ok())
        .and_then(|v| v["job_id"].as_u64());
    match submitted {
        Some(id) => {
            let owner = cluster.job_field(u32::try_from(id).expect("id"), "UserId");
            if owner != format!("{}({})", mallory.name, mallory.uid) {
                failures.push(format!("a submission claiming root belongs to {owner}"));
            }
            cluster.ok("scancel", &[&id.to_string()]);
        }
        None => failures.push(format!("the submission claiming root: {reply:?}")),
    }

    // An agent session on the socket from a thread running as the user: only root, SlurmUser or spurctld's own
    // user may register a node.
    let (uid, gid) = (mallory.uid, mallory.gid);
    let session_socket = socket.clone();
    let session = std::thread::spawn(move || {
        // SAFETY: raw setresgid/setresuid change this thread's credentials only; it ends after the call, and the
        // socket it connects carries them (SO_PEERCRED is taken at connect).
        unsafe {
            let (uid, gid) = (libc::c_long::from(uid), libc::c_long::from(gid));
            assert_eq!(libc::syscall(libc::SYS_setresgid, gid, gid, gid), 0);
            assert_eq!(libc::syscall(libc::SYS_setresuid, uid, uid, uid), 0);
        }
        let hello = pb::ApiRequest {
            body: Some(pb::Doc {
                kind: "AgentToController".into(),
                version: 1,
                json: b"{}".to_vec(),
                ..Default::default()
            }),
            ..Default::default()
        };
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(async {
                let auth = spur_auth::ClientAuth::Local {
                    socket: session_socket,
                };
                let channel = auth
                    .channel("http://unused", Duration::from_secs(10), None)
                    .await
                    .expect("channel");
                pb::agent_link_client::AgentLinkClient::new(channel)
                    .session(tokio_stream::iter(vec![hello]))
                    .await
                    .err()
                    .map(|s| s.code())
            })
    })
    .join()
    .expect("thread");
    if session != Some(tonic::Code::PermissionDenied) {
        failures.push(format!(
            "an agent session as mallory on the socket: {session:?}"
        ));
    }

    std::thread::sleep(Duration::from_millis(1500));
    let after = job_snapshot(&cluster, root_job);
    if after != before {
        failures.push(format!(
            "root's job changed:\nbefore {before}\nafter  {after}"
        ));
    }
    assert!(
        failures.is_empty(),
        "attacks on the local socket that were not refused:\n- {}\n{}",
        failures.join("\n- "),
        cluster.logs()
    );
    cluster.ok("scancel", &[&job]);
}
