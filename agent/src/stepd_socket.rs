//! The node's step socket: what Slurm's per-step `slurmstepd` sockets answer to `pam_slurm_adopt` (through
//! libspur_compat's `slurm_stepd_available`, `slurm_stepd_connect`, `slurm_stepd_get_uid`,
//! `slurm_stepd_add_extern_pid`), served by spurd for every step on its node from one Unix socket in its spool,
//! named by [`socket_name`].
//!
//! The steps are read from the node's cgroup tree (spur_stepd::cgroup::node_steps), where every job's steps here,
//! and the extern step of `PrologFlags=Contain`, have their directory: the socket keeps no state of its own.
//! Who may do what is decided by [`decide`] from the caller's kernel-given uid (`SO_PEERCRED`), never from what
//! the caller says: anyone may list and query the steps of their own jobs (root: every job's), and only root may
//! place a process into a job's extern step, as slurmstepd allows only root and SlurmUser (docs/security.md).
//!
//! The protocol is lines of text, one request and one answer at a time:
//! - `LIST` → `<job> <step>` per step the caller may see, then `.`
//! - `STEP <job> <step>` → `OK` (the connection now addresses that step) or `NO`
//! - `UID` → the addressed step's owner, or `-1`
//! - `ADOPT <pid>` → `0` when the process was placed into the addressed extern step, else `-1`
//!
//! `<step>` is the directory's name after `step_`: `extern`, `batch` or a step number.

use std::path::{Path, PathBuf};
use std::time::Duration;

use spur_stepd::cgroup::{Hierarchy, StepDir};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

/// The socket's name in the spool directory: named after the node, as Slurm's step sockets are, so a caller
/// asking about another node name finds nothing (libspur_compat's stepd.rs has the same name).
pub fn socket_name(node: &str) -> String {
    format!("spurd-stepd-{node}.socket")
}
/// The longest request line: a request is a word and two numbers.
const MAX_LINE: u64 = 128;
/// A connection idle this long is closed (a stuck client holds no task forever).
const IDLE: Duration = Duration::from_secs(30);
/// Requests one connection may make.
const MAX_REQUESTS: u32 = 64;

/// One request line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    List,
    Step { job_id: u32, step: String },
    Uid,
    Adopt { pid: u32 },
}

impl Request {
    pub fn parse(line: &str) -> Option<Request> {
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        match words.as_slice() {
            ["LIST"] => Some(Request::List),
            ["STEP", job, step] if is_step_name(step) => Some(Request::Step {
                job_id: job.parse().ok()?,
                step: (*step).to_string(),
            }),
            ["UID"] => Some(Request::Uid),
            ["ADOPT", pid] => Some(Request::Adopt {
                pid: pid.parse().ok().filter(|p| *p > 0)?,
            }),
            _ => None,
        }
    }
}

fn is_step_name(step: &str) -> bool {
    step == "extern" || step == "batch" || step.parse::<u32>().is_ok()
}

/// What the server does with a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Answer with this text (whole lines).
    Reply(String),
    /// Address this step from now on, and answer `OK`.
    Select(StepDir),
    /// Place `pid` into the extern step of `job_id` (owned by `uid`), then answer `0` or `-1`.
    Adopt { uid: u32, job_id: u32, pid: u32 },
}

const REFUSED: &str = "-1\n";

/// The decision for `request` from the caller `peer_uid`, given the node's steps and the step the connection
/// addresses. Pure: the server performs what it returns.
pub fn decide(
    peer_uid: u32,
    request: &Request,
    steps: &[StepDir],
    selected: Option<&StepDir>,
) -> Decision {
    let visible = |s: &&StepDir| peer_uid == 0 || s.uid == peer_uid;
    match request {
        Request::List => {
            let mut text: String = steps
                .iter()
                .filter(visible)
                .map(|s| format!("{} {}\n", s.job_id, s.step))
                .collect();
            text.push_str(".\n");
            Decision::Reply(text)
        }
        Request::Step { job_id, step } => steps
            .iter()
            .filter(visible)
            .find(|s| s.job_id == *job_id && s.step == *step)
            .map_or(Decision::Reply("NO\n".into()), |s| {
                Decision::Select(s.clone())
            }),
        Request::Uid => {
            Decision::Reply(selected.map_or(REFUSED.into(), |s| format!("{}\n", s.uid)))
        }
        Request::Adopt { pid } => match selected {
            Some(s) if peer_uid == 0 && s.step == "extern" => Decision::Adopt {
                uid: s.uid,
                job_id: s.job_id,
                pid: *pid,
            },
            _ => Decision::Reply(REFUSED.into()),
        },
    }
}

/// Serves the step socket in `spool` for node `node` until the process ends. Without the socket (a spool we
/// cannot write) `pam_slurm_adopt` finds no job here, which is logged.
pub async fn serve(spool: PathBuf, node: String) {
    let path = spool.join(socket_name(&node));
    let listener = match bind(&path) {
        Ok(listener) => listener,
        Err(e) => {
            tracing::warn!(
                "cannot serve {}: {e}; no step can be adopted into",
                path.display()
            );
            return;
        }
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let node = node.clone();
        tokio::spawn(async move {
            if let Err(e) = connection(stream, node).await {
                tracing::debug!("step socket connection: {e}");
            }
        });
    }
}

fn bind(path: &Path) -> std::io::Result<UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path)?;
    // Anyone may connect: each request is checked against the caller's uid from the kernel.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))?;
    Ok(listener)
}

async fn connection(stream: UnixStream, node: String) -> std::io::Result<()> {
    let peer_uid = stream.peer_cred()?.uid();
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read.take(MAX_LINE * u64::from(MAX_REQUESTS)));
    let mut selected: Option<StepDir> = None;
    for _ in 0..MAX_REQUESTS {
        let mut line = String::new();
        let read = tokio::time::timeout(IDLE, lines.read_line(&mut line)).await;
        let Ok(Ok(len)) = read else {
            return Ok(());
        };
        if len == 0 || len as u64 > MAX_LINE {
            return Ok(());
        }
        let Some(request) = Request::parse(&line) else {
            write.write_all(b"?\n").await?;
            continue;
        };
        let node = node.clone();
        let chosen = selected.clone();
        let (answer, select) = tokio::task::spawn_blocking(move || {
            let hierarchy = Hierarchy::detect();
            let steps = hierarchy
                .as_ref()
                .map(|h| spur_stepd::cgroup::node_steps(h, &node))
                .unwrap_or_default();
            match decide(peer_uid, &request, &steps, chosen.as_ref()) {
                Decision::Reply(text) => (text, None),
                Decision::Select(step) => ("OK\n".to_string(), Some(step)),
                Decision::Adopt { uid, job_id, pid } => {
                    let placed = hierarchy
                        .ok_or_else(|| "no cgroup file system".to_string())
                        .and_then(|h| {
                            spur_stepd::cgroup::adopt_into_extern(&h, &node, uid, job_id, pid)
                        });
                    match placed {
                        Ok(()) => {
                            tracing::info!(job_id, pid, "process adopted into the extern step");
                            ("0\n".to_string(), None)
                        }
                        Err(e) => {
                            tracing::warn!(job_id, pid, "cannot adopt the process: {e}");
                            (REFUSED.to_string(), None)
                        }
                    }
                }
            }
        })
        .await
        .map_err(std::io::Error::other)?;
        if select.is_some() {
            selected = select;
        }
        write.write_all(answer.as_bytes()).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(job_id: u32, step: &str, uid: u32) -> StepDir {
        StepDir {
            job_id,
            step: step.into(),
            uid,
        }
    }

    #[test]
    fn requests_parse_strictly() {
        assert_eq!(Request::parse("LIST\n"), Some(Request::List));
        assert_eq!(
            Request::parse("STEP 7 extern\n"),
            Some(Request::Step {
                job_id: 7,
                step: "extern".into()
            })
        );
        assert_eq!(
            Request::parse("ADOPT 12\n"),
            Some(Request::Adopt { pid: 12 })
        );
        for bad in [
            "",
            "LIST x",
            "STEP 7 ../x",
            "STEP -1 extern",
            "ADOPT 0",
            "ADOPT x",
            "UID 3",
        ] {
            assert_eq!(Request::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn users_see_their_own_steps_and_only_root_adopts() {
        let steps = [
            step(3, "extern", 1000),
            step(4, "extern", 1001),
            step(4, "batch", 1001),
        ];
        let list = |uid| match decide(uid, &Request::List, &steps, None) {
            Decision::Reply(text) => text,
            other => panic!("{other:?}"),
        };
        assert_eq!(list(0), "3 extern\n4 extern\n4 batch\n.\n");
        assert_eq!(list(1000), "3 extern\n.\n");
        assert_eq!(list(7), ".\n");
        let select = |uid, job| {
            decide(
                uid,
                &Request::Step {
                    job_id: job,
                    step: "extern".into(),
                },
                &steps,
                None,
            )
        };
        assert_eq!(select(1000, 4), Decision::Reply("NO\n".into()));
        assert_eq!(select(1000, 3), Decision::Select(steps[0].clone()));
        assert_eq!(select(0, 4), Decision::Select(steps[1].clone()));
        let uid = decide(1000, &Request::Uid, &steps, Some(&steps[0]));
        assert_eq!(uid, Decision::Reply("1000\n".into()));
        assert_eq!(
            decide(0, &Request::Uid, &steps, None),
            Decision::Reply("-1\n".into())
        );
        let adopt = Request::Adopt { pid: 99 };
        // The owner of the job may not place processes into it; root may, and only into the extern step.
        assert_eq!(
            decide(1000, &adopt, &steps, Some(&steps[0])),
            Decision::Reply("-1\n".into())
        );
        assert_eq!(
            decide(0, &adopt, &steps, Some(&steps[2])),
            Decision::Reply("-1\n".into())
        );
        assert_eq!(
            decide(0, &adopt, &steps, None),
            Decision::Reply("-1\n".into())
        );
        assert_eq!(
            decide(0, &adopt, &steps, Some(&steps[1])),
            Decision::Adopt {
                uid: 1001,
                job_id: 4,
                pid: 99
            }
        );
    }
}
