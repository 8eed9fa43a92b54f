//! `--mpi=pmi2`: the PMI server a node's step supervisor runs for its tasks, as Slurm's mpi/pmi2 plugin serves it
//! (docs/mpi.md). Each task gets one end of a socket pair as `PMI_FD`; a thread per task answers its requests.
//! Puts are held node-wide until a fence (`kvs-fence`, PMI-1 `barrier_in`): when the node's last task enters it,
//! the node's puts go to every node over the step fabric ([`crate::fabric`]) and every task is answered. The
//! key-value space is the step's own: a task reaches only the server of its own step on its own node.

pub mod ring;
pub mod wire;

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::net::UnixStream;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use spur_core::wire::step_io::{decode_blobs, encode_blobs};

use crate::fabric::StepFabric;
use wire::{Reader, Request, Version, MAX_KEY, MAX_KVSNAME, MAX_VALUE};

/// The most bytes of puts a node holds between two fences (every task's, keys and values): far above what MPI
/// libraries put (a business card per rank), low enough that tasks cannot exhaust the supervisor.
pub const MAX_PENDING_BYTES: usize = 16 << 20;
/// The most node attributes (`info-putnodeattr`) a node holds.
pub const MAX_NODE_ATTRS: usize = 4096;

/// What the server knows of the step.
#[derive(Debug, Clone)]
pub struct StepInfo {
    pub job_id: u32,
    pub step_id: u32,
    /// Tasks in the step (`PMI_SIZE`).
    pub size: u32,
    /// This node's tasks, by local id.
    pub local_ranks: Vec<u32>,
    /// `PMI_process_mapping`.
    pub mapping: String,
    /// `SLURM_STEP_RESV_PORTS`, served as `mpi_reserved_ports`.
    pub reserved_ports: Option<String>,
    /// This node's index in the step (`SLURM_NODEID`).
    pub node_index: usize,
    /// The width of Slurm's supervisor tree, which orders `ring` ([`ring::width_from_env`]).
    pub ring_width: usize,
}

impl StepInfo {
    /// `PMI_JOBID` and the key-value space's name: `JOB.STEP`, as Slurm's.
    pub fn pmi_jobid(&self) -> String {
        format!("{}.{}", self.job_id, self.step_id)
    }
}

/// What a task asked of the step beyond the server: Slurm's abort kills the step.
pub type AbortStep = dyn Fn(u32, i32) + Send + Sync;

/// One step's PMI server on this node.
pub struct PmiServer {
    info: StepInfo,
    fabric: StepFabric,
    abort: Box<AbortStep>,
    state: Mutex<Kvs>,
    changed: Condvar,
}

#[derive(Default)]
struct Kvs {
    /// Every node's puts, as of the last fence.
    committed: HashMap<String, String>,
    /// This node's puts since the last fence.
    pending: Vec<(String, String)>,
    pending_bytes: usize,
    /// Tasks of this node in the current fence.
    arrived: usize,
    /// Fences completed; a task waits for this to move.
    fences: u64,
    /// Why the last fence failed; `None` when it went through.
    last_fence: Option<String>,
    node_attrs: HashMap<String, String>,
    /// Tasks whose connection is over (finalized, or gone).
    gone: usize,
    /// The `ring` in progress: entries by local id, tasks in it, rings completed and the last one's answers.
    ring_entries: Vec<Option<ring::Entry>>,
    ring_arrived: usize,
    rings: u64,
    ring_result: Option<Result<Vec<ring::Answer>, String>>,
}

/// What a request leads to.
enum Next {
    Answer(Vec<u8>),
    /// Answer, then end the connection (finalize).
    Last(Vec<u8>),
    /// No answer, ever: the task waits for its end, as Slurm's does after an abort (the step is killed).
    Hold,
}

impl PmiServer {
    pub fn new(info: StepInfo, fabric: StepFabric, abort: Box<AbortStep>) -> Arc<PmiServer> {
        let mut kvs = Kvs::default();
        // MPICH's PMI-1 reads the mapping as a key of the space, as Slurm puts it there.
        kvs.committed
            .insert("PMI_process_mapping".to_string(), info.mapping.clone());
        Arc::new(PmiServer {
            info,
            fabric,
            abort,
            state: Mutex::new(kvs),
            changed: Condvar::new(),
        })
    }

    /// Socket pairs for every local task: the server's ends (served at once, a thread each) and the tasks' ends,
    /// by local id, to become their `PMI_FD`.
    pub fn serve(self: &Arc<PmiServer>) -> std::io::Result<Vec<UnixStream>> {
        let mut task_ends = Vec::new();
        for localid in 0..self.info.local_ranks.len() {
            let (ours, theirs) = UnixStream::pair()?;
            let server = Arc::clone(self);
            std::thread::spawn(move || server.serve_task(ours, localid));
            task_ends.push(theirs);
        }
        Ok(task_ends)
    }

    /// Answers one task until its connection ends.
    pub fn serve_task(&self, stream: UnixStream, localid: usize) {
        let rank = self.info.local_ranks.get(localid).copied().unwrap_or(0);
        let Ok(read_half) = stream.try_clone() else {
            self.task_gone();
            return;
        };
        let mut reader = Reader::new(read_half);
        let mut out = stream;
        // Every connection starts with PMI-1's init line.
        let version = match reader.line() {
            Ok(Some(line)) => match wire::parse_init(&line) {
                Ok(version) => {
                    let _ = out.write_all(&wire::init_response(0, version));
                    version
                }
                Err((v, s)) => {
                    let line =
                        format!("cmd=response_to_init rc=1 pmi_version={v} pmi_subversion={s}\n");
                    let _ = out.write_all(line.as_bytes());
                    self.task_gone();
                    return;
                }
            },
            _ => {
                self.task_gone();
                return;
            }
        };
        loop {
            let body = match version {
                Version::Pmi1 => reader.line(),
                Version::Pmi2 => reader.message(),
            };
            let body = match body {
                Ok(Some(body)) => body,
                Ok(None) => break,
                Err(e) => {
                    eprintln!(
                        "spurstepd: mpi/pmi2: task {rank}: {e}; its PMI connection is closed"
                    );
                    break;
                }
            };
            // PMI-1 spawn is several lines, `mcmd=spawn` to `endcmd`; refused once it is all read.
            if version == Version::Pmi1 && body.starts_with(b"mcmd=") {
                let mut ended = false;
                while !ended {
                    match reader.line() {
                        Ok(Some(line)) => ended = line.starts_with(b"endcmd"),
                        _ => break,
                    }
                }
                let refusal = wire::response(version, "spawn_result", &[("rc", "-1")]);
                if !ended || out.write_all(&refusal).is_err() {
                    break;
                }
                continue;
            }
            let Some(request) = Request::parse(&body, version) else {
                eprintln!("spurstepd: mpi/pmi2: invalid client request from task {rank}");
                continue;
            };
            let next = match version {
                Version::Pmi1 => self.pmi1(&request, rank),
                Version::Pmi2 => self.pmi2(&request, rank, localid),
            };
            match next {
                Next::Answer(bytes) => {
                    if out.write_all(&bytes).is_err() {
                        break;
                    }
                }
                Next::Last(bytes) => {
                    let _ = out.write_all(&bytes);
                    break;
                }
                Next::Hold => {
                    // Read on until the task's end is gone; it is answered nothing more.
                    while let Ok(Some(_)) = reader.line() {}
                    break;
                }
            }
        }
        let _ = out.shutdown(std::net::Shutdown::Both);
        self.task_gone();
    }

    /// A task's connection ended: a fence it will never enter must not hold the others.
    fn task_gone(&self) {
        if let Ok(mut kvs) = self.state.lock() {
            kvs.gone = kvs.gone.saturating_add(1);
        }
        self.changed.notify_all();
    }

    fn lock(&self) -> Option<MutexGuard<'_, Kvs>> {
        self.state.lock().ok()
    }

    /// PMI-1 (MPICH's simple PMI), as Slurm's pmi2 plugin answers it.
    fn pmi1(&self, request: &Request, rank: u32) -> Next {
        let v = Version::Pmi1;
        let answer =
            |cmd: &str, fields: &[(&str, &str)]| Next::Answer(wire::response(v, cmd, fields));
        let size = self.info.size.to_string();
        match request.cmd.as_str() {
            "get_maxes" => answer(
                "maxes",
                &[
                    ("rc", "0"),
                    ("kvsname_max", &MAX_KVSNAME.to_string()),
                    ("keylen_max", &MAX_KEY.to_string()),
                    ("vallen_max", &MAX_VALUE.to_string()),
                ],
            ),
            "get_universe_size" => answer("universe_size", &[("rc", "0"), ("size", &size)]),
            "get_appnum" => answer("appnum", &[("rc", "0"), ("appnum", "-1")]),
            "get_my_kvsname" => answer(
                "my_kvsname",
                &[("rc", "0"), ("kvsname", &self.info.pmi_jobid())],
            ),
            "put" => {
                let rc = self.put(request.get("key"), request.get("value"));
                answer("put_result", &[("rc", if rc { "0" } else { "1" })])
            }
            "get" => match request.get("key").and_then(|k| self.get(k)) {
                Some(value) => answer("get_result", &[("rc", "0"), ("value", &value)]),
                None => answer("get_result", &[("rc", "1")]),
            },
            "barrier_in" => match self.fence() {
                Ok(()) => answer("barrier_out", &[("rc", "0")]),
                Err(why) => answer(
                    "barrier_out",
                    &[("rc", "1"), ("msg", &why.replace(' ', "_"))],
                ),
            },
            "finalize" => Next::Last(wire::response(v, "finalize_ack", &[("rc", "0")])),
            "abort" => {
                let code = request
                    .get("exitcode")
                    .and_then(|c| c.parse::<i32>().ok())
                    .unwrap_or(1);
                (self.abort)(rank, code);
                Next::Hold
            }
            "publish_name" | "unpublish_name" => {
                let result = if request.cmd == "publish_name" {
                    "publish_result"
                } else {
                    "unpublish_result"
                };
                answer(result, &[("info", "fail")])
            }
            "lookup_name" => answer("lookup_result", &[("info", "fail")]),
            other => {
                eprintln!("spurstepd: mpi/pmi2: invalid pmi1 command received: '{other}'");
                Next::Answer(Vec::new())
            }
        }
    }

    /// PMI-2, as Slurm's pmi2 plugin answers it.
    fn pmi2(&self, request: &Request, rank: u32, localid: usize) -> Next {
        let v = Version::Pmi2;
        let answer =
            |cmd: &str, fields: &[(&str, &str)]| Next::Answer(wire::response(v, cmd, fields));
        let found = |cmd: &str, value: Option<String>| match value {
            Some(value) => Next::Answer(wire::response(
                v,
                cmd,
                &[("rc", "0"), ("found", "TRUE"), ("value", &value)],
            )),
            None => Next::Answer(wire::response(v, cmd, &[("rc", "0"), ("found", "FALSE")])),
        };
        match request.cmd.as_str() {
            "fullinit" => {
                let complete = request.get("pmijobid").is_some()
                    && request.get("pmirank").is_some()
                    && request.flag("threaded").is_some();
                let rc = if complete { "0" } else { "3" };
                answer(
                    "fullinit-response",
                    &[
                        ("rc", rc),
                        ("pmi-version", "2"),
                        ("pmi-subversion", "0"),
                        ("rank", &rank.to_string()),
                        ("size", &self.info.size.to_string()),
                        ("appnum", "-1"),
                        ("debugged", "FALSE"),
                        ("pmiverbose", "FALSE"),
                    ],
                )
            }
            "job-getid" => answer(
                "job-getid-response",
                &[("rc", "0"), ("jobid", &self.info.pmi_jobid())],
            ),
            "kvs-put" => {
                let rc = self.put(request.get("key"), request.get("value"));
                answer("kvs-put-response", &[("rc", if rc { "0" } else { "1" })])
            }
            "kvs-fence" => match self.fence() {
                Ok(()) => answer("kvs-fence-response", &[("rc", "0")]),
                Err(why) => answer(
                    "kvs-fence-response",
                    &[("rc", "1"), ("errmsg", &why.replace(';', "_"))],
                ),
            },
            "kvs-get" => found(
                "kvs-get-response",
                request.get("key").and_then(|k| self.get(k)),
            ),
            "info-getjobattr" => found(
                "info-getjobattr-response",
                request.get("key").and_then(|k| self.job_attr(k)),
            ),
            "info-putnodeattr" => {
                let rc = self.put_node_attr(request.get("key"), request.get("value"));
                answer(
                    "info-putnodeattr-response",
                    &[("rc", if rc { "0" } else { "1" })],
                )
            }
            "info-getnodeattr" => {
                let wait = request.flag("wait").unwrap_or(false);
                found(
                    "info-getnodeattr-response",
                    request.get("key").and_then(|k| self.node_attr(k, wait)),
                )
            }
            "finalize" => Next::Last(wire::response(v, "finalize-response", &[("rc", "0")])),
            "abort" => {
                if request.flag("isworld").unwrap_or(false) {
                    (self.abort)(rank, 1);
                    return Next::Hold;
                }
                Next::Answer(Vec::new())
            }
            "spawn" => answer(
                "spawn-response",
                &[("rc", "14"), ("errmsg", "spawn failed")],
            ),
            "name-publish" | "name-unpublish" => {
                answer(&format!("{}-response", request.cmd), &[("rc", "1")])
            }
            "name-lookup" => answer("name-lookup-response", &[("rc", "1")]),
            "ring" => {
                // As Slurm reads them: a count that is not a number is 0, a value not given is NULL.
                let entry = ring::Entry {
                    count: request
                        .get("ring-count")
                        .and_then(|c| c.parse().ok())
                        .unwrap_or(0),
                    left: request.get("ring-left").map(str::to_string),
                    right: request.get("ring-right").map(str::to_string),
                };
                match self.ring(localid, entry) {
                    Ok(a) => {
                        let count = a.count.to_string();
                        let null = "(null)".to_string();
                        answer(
                            "ring-response",
                            &[
                                ("rc", "0"),
                                ("ring-count", &count),
                                ("ring-left", a.left.as_ref().unwrap_or(&null)),
                                ("ring-right", a.right.as_ref().unwrap_or(&null)),
                            ],
                        )
                    }
                    Err(why) => answer(
                        "ring-response",
                        &[("rc", "1"), ("errmsg", &why.replace(';', "_"))],
                    ),
                }
            }
            "job-connect" | "job-disconnect" => {
                eprintln!("spurstepd: mpi/pmi2: {} not implemented", request.cmd);
                Next::Answer(wire::response(
                    v,
                    &format!("{}-response", request.cmd),
                    &[("rc", "14")],
                ))
            }
            other => {
                eprintln!("spurstepd: mpi/pmi2: invalid pmi2 command received: '{other}'");
                Next::Answer(wire::response(v, "finalize-response", &[("rc", "14")]))
            }
        }
    }

    /// Holds a put until the next fence; `false` for a key or value past the limits, or too many puts.
    fn put(&self, key: Option<&str>, value: Option<&str>) -> bool {
        let (Some(key), Some(value)) = (key, value) else {
            return false;
        };
        if key.is_empty() || key.len() > MAX_KEY || value.len() > MAX_VALUE {
            return false;
        }
        let Some(mut kvs) = self.lock() else {
            return false;
        };
        let bytes = kvs
            .pending_bytes
            .saturating_add(key.len())
            .saturating_add(value.len());
        if bytes > MAX_PENDING_BYTES {
            return false;
        }
        kvs.pending_bytes = bytes;
        kvs.pending.push((key.to_string(), value.to_string()));
        true
    }

    fn get(&self, key: &str) -> Option<String> {
        self.lock()?.committed.get(key).cloned()
    }

    fn job_attr(&self, key: &str) -> Option<String> {
        match key {
            "PMI_process_mapping" => Some(self.info.mapping.clone()),
            "universeSize" => Some(self.info.size.to_string()),
            "mpi_reserved_ports" => self.info.reserved_ports.clone(),
            _ => None,
        }
    }

    fn put_node_attr(&self, key: Option<&str>, value: Option<&str>) -> bool {
        let (Some(key), Some(value)) = (key, value) else {
            return false;
        };
        if key.is_empty() || key.len() > MAX_KEY || value.len() > MAX_VALUE {
            return false;
        }
        let Some(mut kvs) = self.lock() else {
            return false;
        };
        if kvs.node_attrs.len() >= MAX_NODE_ATTRS && !kvs.node_attrs.contains_key(key) {
            return false;
        }
        kvs.node_attrs.insert(key.to_string(), value.to_string());
        self.changed.notify_all();
        true
    }

    /// A node attribute; with `wait`, blocks until some task of the node puts it (or every other task is gone).
    fn node_attr(&self, key: &str, wait: bool) -> Option<String> {
        let mut kvs = self.lock()?;
        loop {
            if let Some(value) = kvs.node_attrs.get(key) {
                return Some(value.clone());
            }
            // With every other task gone nobody can put it any more.
            let others = self.info.local_ranks.len().saturating_sub(1);
            if !wait || kvs.gone >= others {
                return None;
            }
            kvs = self.changed.wait(kvs).ok()?;
        }
    }

    /// One task enters the fence; the node's last one exchanges the node's puts with every node. Returns once
    /// the fence is through everywhere.
    fn fence(&self) -> Result<(), String> {
        let mut kvs = self
            .lock()
            .ok_or("mpi/pmi2: the server's lock is poisoned")?;
        kvs.arrived = kvs.arrived.saturating_add(1);
        let generation = kvs.fences;
        let local = self.info.local_ranks.len();
        if kvs.arrived < local.saturating_sub(kvs.gone) {
            while kvs.fences == generation {
                kvs = self
                    .changed
                    .wait(kvs)
                    .map_err(|_| "mpi/pmi2: the server's lock is poisoned".to_string())?;
            }
            return kvs.last_fence.clone().map_or(Ok(()), Err);
        }
        let pending = std::mem::take(&mut kvs.pending);
        kvs.pending_bytes = 0;
        kvs.arrived = 0;
        drop(kvs);
        let flat: Vec<Vec<u8>> = pending
            .into_iter()
            .flat_map(|(k, v)| [k.into_bytes(), v.into_bytes()])
            .collect();
        let result = self.fabric.allgather(encode_blobs(&flat));
        let mut kvs = self
            .lock()
            .ok_or("mpi/pmi2: the server's lock is poisoned")?;
        kvs.last_fence = match result {
            Ok(blobs) => merge(&mut kvs.committed, &blobs).err(),
            Err(why) => Some(format!("mpi/pmi2: fence failed: {why}")),
        };
        kvs.fences = kvs.fences.wrapping_add(1);
        self.changed.notify_all();
        kvs.last_fence.clone().map_or(Ok(()), Err)
    }
}

impl PmiServer {
    /// One task enters the `ring`; the node's last one gathers every node's entries, and every task of the node
    /// gets its answer ([`ring`]). Tasks gone before it count 0 with no values.
    fn ring(&self, localid: usize, entry: ring::Entry) -> Result<ring::Answer, String> {
        const POISONED: &str = "mpi/pmi2: the server's lock is poisoned";
        let local = self.info.local_ranks.len();
        let mut kvs = self.lock().ok_or(POISONED)?;
        if kvs.ring_entries.len() != local {
            kvs.ring_entries = vec![None; local];
        }
        // A task asking twice in one round replaces its entry but is counted once, so it cannot stand in for
        // another task of the node.
        let first = match kvs.ring_entries.get_mut(localid) {
            Some(slot) => slot.replace(entry).is_none(),
            None => false,
        };
        if first {
            kvs.ring_arrived = kvs.ring_arrived.saturating_add(1);
        }
        let generation = kvs.rings;
        if kvs.ring_arrived < local.saturating_sub(kvs.gone) {
            while kvs.rings == generation {
                kvs = self.changed.wait(kvs).map_err(|_| POISONED.to_string())?;
            }
        } else {
            let entries: Vec<ring::Entry> = std::mem::take(&mut kvs.ring_entries)
                .into_iter()
                .map(|e| {
                    e.unwrap_or(ring::Entry {
                        count: 0,
                        left: None,
                        right: None,
                    })
                })
                .collect();
            kvs.ring_arrived = 0;
            drop(kvs);
            let result = self
                .fabric
                .allgather(encode_blobs(&ring::encode(&entries)))
                .map_err(|why| format!("mpi/pmi2: ring failed: {why}"))
                .and_then(|blobs| {
                    let nodes = blobs
                        .iter()
                        .map(|b| decode_blobs(b).and_then(|f| ring::decode(&f)))
                        .collect::<Option<Vec<_>>>()
                        .ok_or("mpi/pmi2: malformed ring data")?;
                    Ok(ring::answers(
                        &nodes,
                        self.info.ring_width,
                        self.info.node_index,
                    ))
                });
            kvs = self.lock().ok_or(POISONED)?;
            kvs.ring_result = Some(result);
            kvs.rings = kvs.rings.wrapping_add(1);
            self.changed.notify_all();
        }
        match &kvs.ring_result {
            Some(Ok(answers)) => answers
                .get(localid)
                .cloned()
                .ok_or_else(|| "mpi/pmi2: ring answers do not match the node's tasks".to_string()),
            Some(Err(why)) => Err(why.clone()),
            None => Err("mpi/pmi2: no ring result".to_string()),
        }
    }
}

/// Every node's puts of a fence into the space; a node's later put of a key wins, nodes in order.
fn merge(committed: &mut HashMap<String, String>, blobs: &[Vec<u8>]) -> Result<(), String> {
    for blob in blobs {
        let fields = decode_blobs(blob).ok_or("mpi/pmi2: malformed fence data")?;
        for pair in fields.chunks(2) {
            if let [key, value] = pair {
                committed.insert(
                    String::from_utf8_lossy(key).into_owned(),
                    String::from_utf8_lossy(value).into_owned(),
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
