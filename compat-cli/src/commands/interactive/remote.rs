//! A step whose tasks run on other nodes (or on several): srun listens on a port, asks the controller to start the
//! tasks (`CreateStep` with a [`StepLaunch`]), and each node's step supervisor connects back with the step's key.
//! Their frames become srun's output and [`Event`]s; srun's signals and stdin go back as frames. The supervisors
//! kill their tasks when srun's connection closes.

use std::fs::File;
use std::io::Read;
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use spur_core::model::step_exit::TaskEnd;
use spur_core::model::step_layout::StepLayout;
use spur_core::wire::step_io::{Frame, Kind, STDERR};

use super::events::{Event, Events};
use super::io::{self, OpenFiles, Route, Sink, StreamWriter};
use super::step::StepPlan;

/// How long srun waits for every node's supervisor to call.
const CONNECT_WAIT: Duration = Duration::from_secs(30);
/// How long a connected supervisor has to present the key.
const HELLO_WAIT: Duration = Duration::from_secs(5);

/// What srun prepared for a step on other nodes before registering it.
pub struct RemoteStep {
    pub listener: TcpListener,
    pub key: String,
    pub nodes: Vec<String>,
    pub layout: StepLayout,
}

impl RemoteStep {
    /// Listens on every address; the supervisors are told `advertised`, the address this host uses towards the
    /// step's first node (the bridge address in a namespace, 127.0.0.1 for nodes on this host).
    pub fn listen(
        nodes: Vec<String>,
        layout: StepLayout,
        first_node_addr: &str,
    ) -> std::io::Result<(RemoteStep, SocketAddr)> {
        let (listener, advertised, key) = listen_for_nodes(first_node_addr)?;
        Ok((
            RemoteStep {
                listener,
                key,
                nodes,
                layout,
            },
            advertised,
        ))
    }
}

/// A listener on every address for nodes to call back (srun's steps, sattach, sbcast), the address to tell them
/// (the one this host uses towards `first_node_addr`) and a fresh key they must present.
pub fn listen_for_nodes(
    first_node_addr: &str,
) -> std::io::Result<(TcpListener, SocketAddr, String)> {
    let listener = TcpListener::bind(("0.0.0.0", 0))?;
    let port = listener.local_addr()?.port();
    let advertised = SocketAddr::new(route_source(first_node_addr), port);
    Ok((listener, advertised, random_key()?))
}

/// The local address the kernel would use to reach `addr` (no packet is sent).
pub fn route_source(addr: &str) -> IpAddr {
    let loopback = IpAddr::from([127, 0, 0, 1]);
    let Ok(target) = addr.parse::<IpAddr>() else {
        return loopback;
    };
    let probe = UdpSocket::bind(("0.0.0.0", 0)).and_then(|s| {
        s.connect((target, 9))?;
        s.local_addr()
    });
    probe.map_or(loopback, |a| a.ip())
}

pub fn random_key() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// One node's supervisor, for sending it signals and stdin.
#[derive(Clone)]
pub struct NodeLink(Arc<Mutex<TcpStream>>);

impl NodeLink {
    pub fn send(&self, frame: &Frame) {
        if let Ok(mut stream) = self.0.lock() {
            let _ = std::io::Write::write_all(&mut *stream, &frame.encode());
        }
    }

    pub fn signal(&self, signo: i32) {
        self.send(&Frame::new(
            Kind::Signal,
            0,
            u32::try_from(signo).unwrap_or(0),
            Vec::new(),
        ));
    }
}

/// Where one rank's stdout or stderr goes.
enum Writer {
    Forward(StreamWriter),
    File(File),
    Null,
}

impl Writer {
    fn write(&mut self, data: &[u8]) {
        match self {
            Writer::Forward(w) => w.feed(data),
            Writer::File(f) => {
                let _ = std::io::Write::write_all(f, data);
            }
            Writer::Null => {}
        }
    }

    fn finish(&mut self) {
        if let Writer::Forward(w) = self {
            w.finish();
        }
    }
}

/// Waits for every node's supervisor and starts forwarding; returns the links by node index. Fails when a node
/// never calls (its agent is gone, or could not start the tasks).
pub fn connect(
    plan: &StepPlan<'_>,
    remote: &RemoteStep,
    events: &Events,
) -> Result<Vec<NodeLink>, String> {
    let mut links: Vec<Option<NodeLink>> = vec![None; remote.nodes.len()];
    let hub = super::fabric::Hub::new(remote.nodes.len());
    let deadline = Instant::now() + CONNECT_WAIT;
    remote
        .listener
        .set_nonblocking(true)
        .map_err(|e| e.to_string())?;
    while links.iter().any(Option::is_none) {
        if Instant::now() >= deadline {
            let missing: Vec<&str> = remote
                .nodes
                .iter()
                .zip(&links)
                .filter(|(_, l)| l.is_none())
                .map(|(n, _)| n.as_str())
                .collect();
            return Err(format!(
                "Unable to launch the step's tasks on {}: no answer from their node",
                spur_core::grammar::hostlist::compress(
                    &missing.iter().map(|s| s.to_string()).collect::<Vec<_>>()
                )
            ));
        }
        let stream = match remote.listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) => return Err(e.to_string()),
        };
        let Some(node) = greet(&stream, &remote.key, remote.nodes.len(), HELLO_WAIT) else {
            continue;
        };
        if links[node].is_some() {
            continue;
        }
        let reader = stream.try_clone().map_err(|e| e.to_string())?;
        let _ = stream.set_nodelay(true);
        let link = NodeLink(Arc::new(Mutex::new(stream)));
        let writers = writers(
            plan,
            &remote.layout.node_ranks[node],
            &remote.nodes[node],
            node as u32,
        )
        .map_err(|e| e.to_string())?;
        let tx = events.sender();
        let node_name = remote.nodes[node].clone();
        let label = plan.label.then_some(plan.ntasks);
        hub.attach(node, link.clone());
        let hub = hub.clone();
        std::thread::spawn(move || relay(reader, (node, &node_name), writers, label, &tx, &hub));
        links[node] = Some(link);
    }
    let links: Vec<NodeLink> = links.into_iter().flatten().collect();
    feed_stdin(plan, remote, &links);
    Ok(links)
}

/// Reads the Hello frame a node sends first (srun's, sattach's and sbcast's listeners): the node index, if the key
/// is the caller's.
pub fn greet(stream: &TcpStream, key: &str, nodes: usize, wait: Duration) -> Option<usize> {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(wait));
    let mut reader = stream;
    let frame = Frame::read_from(&mut reader).ok()??;
    let _ = stream.set_read_timeout(None);
    let node = frame.aux as usize;
    (frame.kind == Kind::Hello && frame.data == key.as_bytes() && node < nodes).then_some(node)
}

/// Each rank's stdout and stderr writers, by `--output`/`--error`, as for tasks on srun's own node.
fn writers(
    plan: &StepPlan<'_>,
    ranks: &[u32],
    node_name: &str,
    node_id: u32,
) -> std::io::Result<Vec<(u32, Writer, Writer)>> {
    let mut files = OpenFiles::default();
    let mut open = |rank: u32, sink: Sink| -> std::io::Result<Writer> {
        // --pty: task 0's terminal output comes as it is typed and shown, on srun's stdout.
        if plan.pty && rank == 0 {
            return Ok(match sink {
                Sink::Stdout => Writer::Forward(StreamWriter::new(Sink::Stdout, None, true)),
                Sink::Stderr => Writer::Null,
            });
        }
        let value = match sink {
            Sink::Stdout => plan.output.as_deref(),
            Sink::Stderr => plan.error.as_deref().or(plan.output.as_deref()),
        };
        Ok(
            match io::route(
                value,
                rank,
                super::step::expand_on_node(plan, rank, node_name, node_id),
            ) {
                Route::Forward => Writer::Forward(StreamWriter::new(
                    sink,
                    plan.label.then(|| io::label(rank, plan.ntasks)),
                    plan.unbuffered,
                )),
                Route::Null => Writer::Null,
                Route::File(path) => match files.get(&plan.work_dir, &path, true, plan.append)? {
                    io::TaskFd::Owned(fd) => Writer::File(File::from(fd)),
                    io::TaskFd::Inherited(_) => Writer::Null,
                },
            },
        )
    };
    ranks
        .iter()
        .map(|&rank| Ok((rank, open(rank, Sink::Stdout)?, open(rank, Sink::Stderr)?)))
        .collect()
}

/// One node's frames: output to its writers, task ends and the connection's end as events.
fn relay(
    mut reader: TcpStream,
    (node, node_name): (usize, &str),
    mut writers: Vec<(u32, Writer, Writer)>,
    label: Option<u32>,
    tx: &Sender<Event>,
    hub: &super::fabric::Hub,
) {
    let mut finished = false;
    let mut out_of_memory: Vec<u32> = Vec::new();
    while let Ok(Some(frame)) = Frame::read_from(&mut reader) {
        match frame.kind {
            Kind::Output => {
                if let Some((_, out, err)) = writers.iter_mut().find(|(r, _, _)| *r == frame.rank) {
                    let writer = if frame.aux == STDERR { err } else { out };
                    writer.write(&frame.data);
                }
            }
            Kind::ExecFailed => {
                let prefix = label.map_or_else(String::new, |n| io::label(frame.rank, n));
                eprintln!(
                    "{prefix}slurmstepd-{node_name}: error: {}",
                    String::from_utf8_lossy(&frame.data)
                );
            }
            Kind::OutOfMemory => out_of_memory.push(frame.rank),
            Kind::StepError => {
                eprintln!(
                    "slurmstepd-{node_name}: error: {}",
                    String::from_utf8_lossy(&frame.data)
                );
            }
            Kind::Exited => {
                if let Some((_, out, err)) = writers.iter_mut().find(|(r, _, _)| *r == frame.rank) {
                    out.finish();
                    err.finish();
                }
                let end = if out_of_memory.contains(&frame.rank) {
                    TaskEnd::OutOfMemory
                } else {
                    TaskEnd::from_wait_status(i32::try_from(frame.aux).unwrap_or(0))
                };
                let _ = tx.send(Event::RankExited {
                    rank: frame.rank,
                    end,
                });
            }
            Kind::Done => {
                finished = true;
                break;
            }
            Kind::GatherPart | Kind::Gather => hub.contribute(node, frame),
            Kind::Usage => super::usage::record(node, node_name, &frame.data),
            // A task aborted the step (MPI_Abort): Slurm's plugins kill the step as `scancel` does.
            Kind::AbortStep => {
                crate::commands::srun::mpi::record_abort(i32::try_from(frame.aux).unwrap_or(1));
                let _ = tx.send(Event::StepCancelled);
            }
            _ => {}
        }
    }
    hub.node_closed(node, node_name);
    super::usage::closed(node);
    for (_, out, err) in &mut writers {
        out.finish();
        err.finish();
    }
    let _ = tx.send(Event::NodeClosed { node, finished });
}

/// srun's stdin to the ranks that read it (all by default), a file to those given one; the rest see it closed.
fn feed_stdin(plan: &StepPlan<'_>, remote: &RemoteStep, links: &[NodeLink]) {
    let mut forwarded: Vec<(u32, NodeLink)> = Vec::new();
    for (node, ranks) in remote.layout.node_ranks.iter().enumerate() {
        let Some(link) = links.get(node) else {
            continue;
        };
        for &rank in ranks {
            if plan.pty && rank == 0 {
                forwarded.push((rank, link.clone()));
                continue;
            }
            let node_name = remote.nodes.get(node).map_or("", String::as_str);
            match io::route(
                plan.input.as_deref(),
                rank,
                super::step::expand_on_node(plan, rank, node_name, node as u32),
            ) {
                Route::Forward => forwarded.push((rank, link.clone())),
                Route::Null => link.send(&Frame::new(Kind::Stdin, rank, 0, Vec::new())),
                Route::File(path) => {
                    let source = File::open(plan.work_dir.join(path));
                    let link = link.clone();
                    std::thread::spawn(move || match source {
                        Ok(file) => pump(file, &[(rank, link)]),
                        Err(_) => link.send(&Frame::new(Kind::Stdin, rank, 0, Vec::new())),
                    });
                }
            }
        }
    }
    if !forwarded.is_empty() {
        std::thread::spawn(move || pump(std::io::stdin(), &forwarded));
    }
}

/// Copies a source to the ranks' stdin until it ends, then closes theirs.
fn pump(mut source: impl Read, targets: &[(u32, NodeLink)]) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                for (rank, link) in targets {
                    link.send(&Frame::new(Kind::Stdin, *rank, 0, buf[..n].to_vec()));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    for (rank, link) in targets {
        link.send(&Frame::new(Kind::Stdin, *rank, 0, Vec::new()));
    }
}
