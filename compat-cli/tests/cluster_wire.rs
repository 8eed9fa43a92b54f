//! What the controller's listeners give a caller before it is proved (docs/security.md, "Before
//! authentication"), through a real spurctld and real sockets: frames over TCP whose sender is unknown are not
//! buffered past a small cap, silent connections are closed, gRPC messages are bounded per service, daemons'
//! services take MUNGE only, the JWT key file is checked at start, and request ids are each caller's own.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{Cluster, ClusterOptions};
use spur_core::auth::{JWT_HEADER, MUNGE_HEADER};
use spur_core::wire::api::{ControlRequest, JobSelector, Query};
use spur_core::wire::frames::{self, Credential, Method};
use spur_core::wire::{pb, to_doc};

const ZERO_BYTES: i32 = 5005;
/// How long a test waits for an answer the controller owes at once: far longer than it ever takes; only a
/// controller that never answers reaches it.
const NO_ANSWER: Duration = Duration::from_secs(60);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// One reply frame from `stream`, or None where the connection ended first.
fn read_reply(stream: &mut impl Read) -> Option<pb::ApiReply> {
    let mut header = [0u8; frames::HEADER_BYTES];
    stream.read_exact(&mut header).ok()?;
    let mut body = vec![0; frames::body_len(&header, 1 << 30).ok()?];
    stream.read_exact(&mut body).ok()?;
    frames::parse_reply(&body).ok()
}

fn tcp(cluster: &Cluster) -> std::net::TcpStream {
    let address = cluster.url.trim_start_matches("http://");
    let stream = std::net::TcpStream::connect(address).expect("connect");
    stream.set_read_timeout(Some(NO_ANSWER)).expect("timeout");
    stream
}

fn query_jobs(id: &str) -> pb::ApiRequest {
    pb::ApiRequest {
        request_id: id.into(),
        body: Some(to_doc(&Query::Jobs).expect("doc")),
        ..Default::default()
    }
}

/// The first bytes of a request frame that announces `len` body bytes: header, call and credential.
fn frame_start(len: u32, credential: &str) -> Vec<u8> {
    let mut bytes = frames::MAGIC.to_vec();
    bytes.extend_from_slice(&len.to_be_bytes());
    bytes.push(1); // Submit
    bytes.push(1); // MUNGE
    let cred_len = u32::try_from(credential.len()).expect("short credential");
    bytes.extend_from_slice(&cred_len.to_be_bytes());
    bytes.extend_from_slice(credential.as_bytes());
    bytes
}

#[test]
fn frames_from_unproved_senders_are_not_buffered_and_silent_connections_end() {
    let cluster = Cluster::start_with(ClusterOptions::default());

    // 8 MiB announced with a forged credential, and only its first bytes sent: refused from the credential at
    // once (before, the controller waited for all 8 MiB and only then checked who sent them).
    let mut stream = tcp(&cluster);
    stream
        .write_all(&frame_start(8 << 20, "MUNGE:forged:"))
        .expect("write");
    let reply = read_reply(&mut stream).expect("a refusal before the body is sent");
    assert_eq!(reply.error_code, ZERO_BYTES, "{reply:?}");

    // Over the request cap (16 MiB; before, 64 MiB were read): refused from the header.
    let mut stream = tcp(&cluster);
    stream
        .write_all(&frame_start(32 << 20, "MUNGE:forged:"))
        .expect("write");
    let reply = read_reply(&mut stream).expect("a refusal");
    assert!(reply.message.contains("Unspecified error"), "{reply:?}");
    let detail = text(&reply.body.expect("error document").json);
    assert!(detail.contains("over the limit of 16777216"), "{detail}");

    // A small frame with a bad credential is answered and the connection stays in step; then, silent, it is
    // closed by the controller (before, it was held open for ever). Meanwhile another connection sends a frame
    // but not its end: closed too.
    let mut idle = tcp(&cluster);
    let frame = frames::request_frame(
        Method::Query,
        &Credential::Munge("MUNGE:forged:".into()),
        &query_jobs("w-1"),
    )
    .expect("frame");
    idle.write_all(&frame).expect("write");
    assert_eq!(read_reply(&mut idle).expect("reply").error_code, ZERO_BYTES);
    let frame =
        frames::request_frame(Method::Query, &Credential::None, &query_jobs("w-2")).expect("frame");
    idle.write_all(&frame).expect("write");
    assert_eq!(read_reply(&mut idle).expect("reply").error_code, ZERO_BYTES);
    let mut stalled = tcp(&cluster);
    stalled.write_all(&frame[..frame.len() - 3]).expect("write");
    for mut stream in [idle, stalled] {
        let mut rest = Vec::new();
        let ended = stream.read_to_end(&mut rest);
        assert!(
            matches!(ended, Ok(0)),
            "the connection is closed: {ended:?}"
        );
    }

    // A real client's large call, proved: a 2 MiB script is over the unproved cap and still submitted.
    let script = format!(
        "#!/bin/sh\n{}true\n",
        "# padding line of a long script\n".repeat(65_536)
    );
    assert!(script.len() > 1 << 20, "over the unproved cap");
    let job = cluster.submit(&script, &["--hold"]);
    cluster.ok("scancel", &[&job.to_string()]);

    let log = std::fs::read_to_string(cluster.dir.path().join("spurctld.log")).unwrap_or_default();
    assert!(log.contains("Invalid credential"), "{log}");
}

fn grpc<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(future)
}

fn root_token(cluster: &Cluster) -> String {
    let out = cluster.run("scontrol", &["token", "username=root", "lifespan=600"]);
    text(&out.stdout)
        .trim()
        .strip_prefix("SLURM_JWT=")
        .expect("SLURM_JWT=...")
        .to_string()
}

fn jwt_cluster(key_dir: &Path) -> Cluster {
    let key_path = key_dir.join("jwt_hs256.key");
    std::fs::write(&key_path, [42u8; 32]).expect("key");
    std::fs::set_permissions(
        &key_path,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod");
    Cluster::start_with(ClusterOptions {
        extra_conf: format!(
            "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}\n",
            key_path.display()
        ),
        ..ClusterOptions::default()
    })
}

#[test]
fn daemons_services_take_munge_only_and_grpc_messages_are_bounded() {
    let keys = tempfile::tempdir().expect("tempdir");
    let cluster = jwt_cluster(keys.path());
    let token = root_token(&cluster);
    let url = cluster.url.clone();

    // Root's own JWT is a user's token: no node registers with it, no controller call is made with it.
    let hello = pb::ApiRequest {
        body: Some(pb::Doc {
            kind: "AgentToController".into(),
            version: 1,
            json: b"{}".to_vec(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let (session, peer, big) = grpc(async {
        let mut agent = pb::agent_link_client::AgentLinkClient::connect(url.clone())
            .await
            .expect("connect");
        let mut request = tonic::Request::new(tokio_stream::iter(vec![hello.clone()]));
        request
            .metadata_mut()
            .insert(JWT_HEADER, token.parse().expect("header"));
        let session = agent.session(request).await.err();
        let mut raft = pb::raft_peer_client::RaftPeerClient::connect(url.clone())
            .await
            .expect("connect");
        let mut request = tonic::Request::new(hello.clone());
        request
            .metadata_mut()
            .insert(JWT_HEADER, token.parse().expect("header"));
        let peer = raft.call(request).await.err();
        // A 20 MiB query (a client's calls are bounded at 16 MiB; before, 64 MiB were read).
        let mut client = pb::controller_client::ControllerClient::connect(url.clone())
            .await
            .expect("connect")
            .max_encoding_message_size(64 << 20);
        let mut query = query_jobs("big-1");
        query.accept_packed_schema = "x".repeat(20 << 20);
        let big = client.query(query).await;
        (session, peer, big)
    });
    let session = session.expect("session refused");
    assert_eq!(session.code(), tonic::Code::Unauthenticated, "{session:?}");
    let peer = peer.expect("controller call refused");
    assert_eq!(peer.code(), tonic::Code::Unauthenticated, "{peer:?}");
    let status = big.expect_err("a 20 MiB request is refused");
    assert!(
        status.message().contains("too large"),
        "refused for its size: {status:?}"
    );
    let log = std::fs::read_to_string(cluster.dir.path().join("spurctld.log")).unwrap_or_default();
    assert!(
        log.contains("daemons authenticate with MUNGE only"),
        "{log}"
    );

    // The token still serves the user it names, as a user.
    let out = cluster
        .command(cluster.dir.path(), "squeue", &[])
        .env("SLURM_JWT", &token)
        .output()
        .expect("squeue");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// Runs spurctld on `conf` and returns its exit code and output, or None where it was still serving after
/// [`NO_ANSWER`] (then it is stopped).
fn spurctld_exit(conf: &Path) -> Option<(Option<i32>, String)> {
    let mut child = Command::new(common::bin_dir().join("spurctld"))
        .arg("-f")
        .arg(conf)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spurctld");
    let deadline = Instant::now() + NO_ANSWER;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            let out = child.wait_with_output().expect("output");
            return Some((out.status.code(), text(&out.stderr) + &text(&out.stdout)));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// One change made to the key file.
type Step<'a> = dyn Fn() + 'a;

#[test]
fn spurctld_refuses_a_weak_or_exposed_jwt_key() {
    let keys = tempfile::tempdir().expect("tempdir");
    let mut cluster = jwt_cluster(keys.path());
    cluster.kill_controller();
    let key = keys.path().join("jwt_hs256.key");
    let chmod = |mode| {
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(mode))
            .expect("chmod")
    };
    // Open to others, open to the group, too short, owned by a stranger: each stops spurctld at start.
    let cases: [(&str, Box<Step<'_>>); 4] = [
        ("mode 0644", Box::new(|| chmod(0o644))),
        ("mode 0640", Box::new(|| chmod(0o640))),
        (
            "holds 16 bytes",
            Box::new(|| {
                std::fs::write(&key, [42u8; 16]).expect("key");
                chmod(0o600);
            }),
        ),
        (
            "owned by uid 4242",
            Box::new(|| {
                std::fs::write(&key, [42u8; 32]).expect("key");
                std::os::unix::fs::chown(&key, Some(4242), Some(4242)).expect("chown");
            }),
        ),
    ];
    for (fault, make) in &cases {
        make();
        let (code, output) = spurctld_exit(&cluster.conf)
            .unwrap_or_else(|| panic!("spurctld served with a key that {fault}"));
        assert_eq!(code, Some(1), "{output}");
        assert!(
            output.contains(&format!("auth/jwt: key file {}", key.display()))
                && output.contains(fault),
            "{fault}: {output}"
        );
    }
    // A sound key: spurctld serves.
    std::os::unix::fs::chown(&key, Some(0), Some(0)).expect("chown");
    cluster.start_controller();
    cluster.expect_within(NO_ANSWER, "spurctld serves", || {
        cluster.run("squeue", &[]).status.success()
    });
}

/// A credential for `payload` sealed by the cluster's munged as `uid` (root may ask munged for any uid).
fn munge_as(socket: &Path, uid: u32, payload: &[u8]) -> String {
    let out = Command::new("munge")
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--uid={uid}"))
        .arg(format!("--gid={uid}"))
        .arg("--string")
        .arg(String::from_utf8_lossy(payload).as_ref())
        .output()
        .expect("munge");
    assert!(out.status.success(), "munge: {}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

#[test]
fn request_ids_are_each_callers_own() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: sealing credentials for another uid needs root");
        return;
    }
    let cluster = Cluster::start_with(ClusterOptions::default());
    let job = cluster.submit("#!/bin/sh\nsleep 300\n", &["--hold"]);
    let socket = cluster.munged.as_ref().expect("munged").socket.clone();
    let cancel = pb::ApiRequest {
        request_id: "shared-request-id".into(),
        body: Some(
            to_doc(&ControlRequest::Cancel {
                job: JobSelector {
                    job_id: job,
                    array_task: None,
                },
            })
            .expect("doc"),
        ),
        ..Default::default()
    };
    let payload = spur_auth::client::request_payload("Control", &cancel);
    let send = |uid: u32| {
        let credential = munge_as(&socket, uid, &payload);
        grpc(async {
            let mut client = pb::controller_client::ControllerClient::connect(cluster.url.clone())
                .await
                .expect("connect");
            let mut request = tonic::Request::new(cancel.clone());
            request
                .metadata_mut()
                .insert(MUNGE_HEADER, credential.parse().expect("header"));
            client.control(request).await.expect("reply").into_inner()
        })
    };
    // Another user sends root's next request id first: refused, and remembered as that user's answer only.
    let other = send(4242);
    assert_eq!(other.error_code, 2002, "{other:?}");
    // Root's own request with that id is its own: the job is cancelled (before, root got the other user's
    // refusal and nothing happened).
    let mine = send(0);
    assert_eq!(mine.error_code, 0, "{mine:?}");
    cluster.wait_for_state(job, "CANCELLED", NO_ANSWER);
}
