//! The adversarial suite's tools (issue 29): what a throwaway user runs to attack a test cluster (python3 on raw
//! sockets, `munge` for credentials of their own), and what the tests compare before and after.

use std::path::{Path, PathBuf};
use std::process::Output;

use spur_core::wire::api::{ControlRequest, JobSelector};
use spur_core::wire::frames::{self, Credential, Method};
use spur_core::wire::{pb, to_doc};

use super::users::TestUser;
use super::Cluster;

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// What went wrong, collected so that one run reports every attack that got through, not only the first.
#[derive(Default)]
pub struct Findings(pub Vec<String>);

impl Findings {
    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }

    /// A command that must fail with `wanted` in what it prints (sacctmgr prints its refusals on stdout).
    pub fn refused(&mut self, what: &str, out: &Output, wanted: &str) {
        let stderr = text(&out.stderr) + &text(&out.stdout);
        self.check(!out.status.success() && stderr.contains(wanted), || {
            format!(
                "{what}: expected a failure with {wanted:?}, got {:?}: stdout {:?} stderr {stderr:?}",
                out.status.code(),
                text(&out.stdout)
            )
        });
    }

    pub fn assert_none(self, cluster: &Cluster) {
        assert!(
            self.0.is_empty(),
            "attacks that were not refused as they should be:\n- {}\n{}",
            self.0.join("\n- "),
            cluster.logs()
        );
    }
}

/// A Python program run as `user` with `args`; raw sockets only (no Spur code), so that what reaches the daemons
/// is exactly what any local process could send.
pub fn python_as(user: &TestUser, program: &str, args: &[&str]) -> String {
    let mut all = vec!["-c", program];
    all.extend_from_slice(args);
    let out = user.program("/usr/bin/python3", &all);
    assert!(out.status.success(), "python3: {}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

/// Sends one JSON line to a supervisor's ctl.sock and prints its answer, or `errno N` when the connection fails.
pub const CTL_REQUEST: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(20)
try:
    s.connect(sys.argv[1])
    s.sendall(sys.argv[2].encode() + b"\n")
    print(s.makefile().readline().strip() or "closed")
except OSError as e:
    print("errno %d" % e.errno)
"#;

/// Sends a file's bytes on a TCP connection and prints the answer's bytes as hex (or `errno N`).
pub const TCP_SEND: &str = r#"
import socket, sys
data = open(sys.argv[3], "rb").read()
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20)
try:
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

/// Sends one datagram to a Unix datagram socket; prints `sent` or `errno N`.
pub const DGRAM_SEND: &str = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    s.sendto(sys.argv[2].encode(), sys.argv[1])
    print("sent")
except OSError as e:
    print("errno %d" % e.errno)
"#;

/// Tries to open a path for reading and for writing; prints `read:R write:W` with `ok` or the errno.
pub const OPEN_PROBE: &str = r#"
import os, sys
def probe(flags):
    try:
        os.close(os.open(sys.argv[1], flags))
        return "ok"
    except OSError as e:
        return str(e.errno)
print("read:%s write:%s" % (probe(os.O_RDONLY), probe(os.O_WRONLY)))
"#;

/// The job's `scontrol show job -o` line without the fields that change by themselves while it runs.
pub fn job_snapshot(cluster: &Cluster, job: u32) -> String {
    let line = cluster.show_job(job).unwrap_or_default();
    line.split_whitespace()
        .filter(|kv| !kv.starts_with("RunTime=") && !kv.starts_with("LastSchedEval="))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The supervisor's directory of a job on the cluster's node.
pub fn job_dir(cluster: &Cluster, job: u32) -> PathBuf {
    cluster
        .dir
        .path()
        .join("spool")
        .join(format!("job{job:05}"))
}

pub fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 delivers nothing; it only asks whether the process exists.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// A Control request whose envelope claims root.
pub fn control(request: ControlRequest, id: &str) -> pb::ApiRequest {
    pb::ApiRequest {
        request_id: id.into(),
        caller: Some(pb::Caller {
            uid: 0,
            gid: 0,
            host: "forged".into(),
        }),
        body: Some(to_doc(&request).expect("doc")),
        ..Default::default()
    }
}

pub fn cancel(job_id: u32) -> ControlRequest {
    ControlRequest::Cancel {
        job: JobSelector {
            job_id,
            array_task: None,
        },
    }
}

/// A credential for `payload` made by `user`'s own `munge` process (munged vouches for its uid).
pub fn munge_by(user: &TestUser, socket: &Path, payload: &[u8]) -> String {
    let out = user.program(
        "munge",
        &[
            &format!("--socket={}", socket.display()),
            "--string",
            String::from_utf8_lossy(payload).as_ref(),
        ],
    );
    assert!(out.status.success(), "munge: {}", text(&out.stderr));
    text(&out.stdout).trim().to_string()
}

/// One frame sent over TCP by `user`'s process; the controller's answer (None when it sent none).
pub fn frame_by(
    user: &TestUser,
    cluster: &Cluster,
    method: Method,
    credential: &Credential,
    message: &pb::ApiRequest,
) -> Option<pb::ApiReply> {
    let bytes = frames::request_frame(method, credential, message).expect("frame");
    raw_by(user, cluster, &bytes)
}

pub fn raw_by(user: &TestUser, cluster: &Cluster, bytes: &[u8]) -> Option<pb::ApiReply> {
    let file = user.work.join("frame.bin");
    std::fs::write(&file, bytes).expect("write frame");
    let (host, port) = cluster
        .url
        .trim_start_matches("http://")
        .rsplit_once(':')
        .expect("host:port");
    let hex = python_as(user, TCP_SEND, &[host, port, &file.display().to_string()]);
    let bytes: Vec<u8> = (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
        .collect();
    let body = bytes.get(frames::HEADER_BYTES..)?;
    frames::parse_reply(body).ok()
}
