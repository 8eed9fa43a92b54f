//! `sattach` on a step supervisor (`spurstepd --step`): besides srun, any number of attached clients receive
//! copies of the tasks' output, as slurmstepd serves reattaching clients. The supervisor keeps the latest output
//! frames (as slurmstepd keeps its outgoing cache) and every task end, so a client that attaches late still sees
//! recent lines and how the tasks that already ended ended. Attached clients may feed the tasks' stdin; they
//! never close it, so the stdin srun forwards keeps flowing.
//!
//! The agent hands the supervisor a [`StepAttach`] over a Unix socket beside the supervisor's log (only the agent,
//! which runs as root or as the supervisor's user, can reach it); the supervisor then connects to the client the
//! way it connects to srun, with the client's key. A step srun runs itself on its own node has no supervisor:
//! srun serves the same requests on an abstract socket named after the step ([`srun_socket_name`]), and the agent
//! hands a request only to a listener owned by the job's user.

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use spur_core::model::step_launch::StepAttach;

use spur_core::wire::step_io::{Frame, Kind};

/// Output frames kept for clients that attach later (slurmstepd keeps a cache of the same order).
pub const OUTPUT_CACHE_FRAMES: usize = 128;
/// And at most this much of it, however large the frames.
pub const OUTPUT_CACHE_BYTES: usize = 1 << 20;
/// How long reaching a client, or one write to it, may take before the client is given up: a stalled sattach
/// must not hold up the step's output.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long the agent's request may take to arrive on the socket.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);
/// The longest request line accepted.
const REQUEST_MAX_BYTES: u64 = 16 * 1024;

/// The tasks' stdin by rank, shared by srun's and the attached clients' readers.
pub type Stdins = Arc<Mutex<BTreeMap<u32, File>>>;

/// What attached clients are sent; kept behind one lock so frames never interleave.
#[derive(Default)]
struct Shared {
    recent: VecDeque<Frame>,
    recent_bytes: usize,
    /// Task starts that failed and task ends, all kept: a late client still learns every end.
    ends: Vec<Frame>,
    clients: Vec<TcpStream>,
    done: bool,
}

/// Copies of the step's frames to attached clients.
#[derive(Clone, Default)]
pub struct Fanout(Arc<Mutex<Shared>>);

impl Fanout {
    /// Output of a task: to every client, and kept for later ones.
    pub fn output(&self, frame: &Frame) {
        if let Ok(mut shared) = self.0.lock() {
            shared.recent_bytes += frame.data.len();
            shared.recent.push_back(frame.clone());
            while shared.recent.len() > OUTPUT_CACHE_FRAMES
                || (shared.recent_bytes > OUTPUT_CACHE_BYTES && shared.recent.len() > 1)
            {
                let dropped = shared.recent.pop_front().map_or(0, |f| f.data.len());
                shared.recent_bytes -= dropped;
            }
            send_all(&mut shared.clients, frame);
        }
    }

    /// A task that could not start or ended.
    pub fn end(&self, frame: &Frame) {
        if let Ok(mut shared) = self.0.lock() {
            shared.ends.push(frame.clone());
            send_all(&mut shared.clients, frame);
        }
    }

    /// Every task ended and its output went out: clients get the last frame and are let go.
    pub fn finish(&self) {
        if let Ok(mut shared) = self.0.lock() {
            shared.done = true;
            let done = Frame::new(Kind::Done, 0, 0, Vec::new());
            send_all(&mut shared.clients, &done);
            for client in shared.clients.drain(..) {
                let _ = client.shutdown(std::net::Shutdown::Both);
            }
        }
    }

    /// Greets a new client, replays what is kept, and adds it (or ends it at once when the step is over).
    fn add(&self, mut client: TcpStream, hello: &Frame) -> io::Result<()> {
        let Ok(mut shared) = self.0.lock() else {
            return Ok(());
        };
        let mut replay = hello.encode();
        for frame in shared.recent.iter().chain(&shared.ends) {
            replay.extend_from_slice(&frame.encode());
        }
        if shared.done {
            replay.extend_from_slice(&Frame::new(Kind::Done, 0, 0, Vec::new()).encode());
        }
        client.write_all(&replay)?;
        if !shared.done {
            shared.clients.push(client);
        }
        Ok(())
    }
}

/// Writes a frame to each client, dropping those that fail or stall.
fn send_all(clients: &mut Vec<TcpStream>, frame: &Frame) {
    let bytes = frame.encode();
    clients.retain_mut(|client| client.write_all(&bytes).is_ok());
}

/// The listening socket, removed when the step ends.
pub struct AttachSocket {
    path: PathBuf,
}

impl Drop for AttachSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Listens on `path` for the agent's attach requests and serves each on a thread of its own.
pub fn serve(path: &Path, fanout: Fanout, stdins: Stdins) -> io::Result<AttachSocket> {
    // A socket left by a supervisor of an earlier run of the job is stale.
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path)?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    accept_requests(listener, fanout, stdins);
    Ok(AttachSocket {
        path: path.to_path_buf(),
    })
}

/// The abstract socket srun serves a step it runs itself on (abstract names need no directory and vanish with
/// the process).
pub fn srun_socket_name(job_id: u32, step_id: u32) -> String {
    format!("spur-attach/{job_id}.{step_id}")
}

/// srun's side: serves attach requests for its own step until the listener is dropped with the process.
pub fn serve_abstract(name: &str, fanout: Fanout, stdins: Stdins) -> io::Result<()> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    let listener = UnixListener::bind_addr(&addr)?;
    accept_requests(listener, fanout, stdins);
    Ok(())
}

fn accept_requests(listener: UnixListener, fanout: Fanout, stdins: Stdins) {
    std::thread::spawn(move || {
        for request in listener.incoming() {
            let Ok(request) = request else { continue };
            let fanout = fanout.clone();
            let stdins = stdins.clone();
            std::thread::spawn(move || {
                if let Err(e) = attach(request, &fanout, stdins) {
                    eprintln!("spurstepd --step: attach failed: {e}");
                }
            });
        }
    });
}

/// One request: reach the client, greet it and pass its stdin on.
fn attach(request: UnixStream, fanout: &Fanout, stdins: Stdins) -> io::Result<()> {
    // Only the agent (root) or this process's own user may have the step's output sent somewhere: srun's
    // abstract socket is open to every local user.
    let peer = nix::sys::socket::getsockopt(&request, nix::sys::socket::sockopt::PeerCredentials)
        .map_err(io::Error::from)?;
    if peer.uid() != 0 && peer.uid() != nix::unistd::geteuid().as_raw() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("attach request from uid {}", peer.uid()),
        ));
    }
    request.set_read_timeout(Some(REQUEST_TIMEOUT))?;
    let mut line = String::new();
    BufReader::new(io::Read::take(&request, REQUEST_MAX_BYTES)).read_line(&mut line)?;
    let order: StepAttach =
        serde_json::from_str(&line).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let client = connect(&order.addr)?;
    let _ = client.set_nodelay(true);
    client.set_write_timeout(Some(CLIENT_TIMEOUT))?;
    let reader = client.try_clone()?;
    fanout.add(client, &hello(&order))?;
    std::thread::spawn(move || forward_input(reader, &stdins));
    Ok(())
}

fn hello(order: &StepAttach) -> Frame {
    Frame::new(
        Kind::Hello,
        0,
        order.node_index,
        order.key.as_bytes().to_vec(),
    )
}

/// The client's stdin frames to the tasks still reading theirs; the end of its input closes nothing.
fn forward_input(mut reader: TcpStream, stdins: &Stdins) {
    while let Ok(Some(frame)) = Frame::read_from(&mut reader) {
        if frame.kind != Kind::Stdin || frame.data.is_empty() {
            continue;
        }
        let Ok(mut stdins) = stdins.lock() else {
            return;
        };
        let failed = stdins
            .get_mut(&frame.rank)
            .is_some_and(|f| f.write_all(&frame.data).is_err());
        if failed {
            stdins.remove(&frame.rank);
        }
    }
}

fn connect(addr: &str) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, format!("no address for {addr}"));
    for target in addr.to_socket_addrs()? {
        match TcpStream::connect_timeout(&target, CLIENT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// The agent's side: hands `order` to the supervisor listening on `socket`.
pub fn request(socket: &Path, order: &StepAttach) -> io::Result<()> {
    let mut stream = UnixStream::connect(socket)?;
    stream.set_write_timeout(Some(REQUEST_TIMEOUT))?;
    let mut line = serde_json::to_vec(order).map_err(io::Error::other)?;
    line.push(b'\n');
    stream.write_all(&line)
}

/// The agent's side for a step srun runs itself: hands `order` to srun's listener if the job's user holds it
/// (anyone can bind an abstract name, so the peer's uid is checked before the key is given away).
pub fn request_srun(order: &StepAttach) -> io::Result<()> {
    use std::os::linux::net::SocketAddrExt;
    let name = srun_socket_name(order.job_id, order.step_id);
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?;
    let mut stream = UnixStream::connect_addr(&addr)?;
    let peer = nix::sys::socket::getsockopt(&stream, nix::sys::socket::sockopt::PeerCredentials)
        .map_err(io::Error::from)?;
    if peer.uid() != order.uid {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{name} is held by uid {}, not the job's", peer.uid()),
        ));
    }
    stream.set_write_timeout(Some(REQUEST_TIMEOUT))?;
    let mut line = serde_json::to_vec(order).map_err(io::Error::other)?;
    line.push(b'\n');
    stream.write_all(&line)
}

/// The agent's side when no supervisor of the step runs on its node: tells the client so, as this node.
pub fn report_absent(order: &StepAttach) -> io::Result<()> {
    let mut client = connect(&order.addr)?;
    client.set_write_timeout(Some(CLIENT_TIMEOUT))?;
    let mut bytes = hello(order).encode();
    bytes.extend_from_slice(&Frame::new(Kind::Absent, 0, 0, Vec::new()).encode());
    client.write_all(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::wire::step_io::STDOUT;
    use std::net::TcpListener;

    fn order(addr: String) -> StepAttach {
        StepAttach {
            job_id: 1,
            step_id: 0,
            node_index: 1,
            uid: nix::unistd::getuid().as_raw(),
            addr,
            key: "k".into(),
        }
    }

    fn frames(stream: &mut TcpStream) -> Vec<Frame> {
        let mut got = Vec::new();
        while let Ok(Some(frame)) = Frame::read_from(stream) {
            got.push(frame);
        }
        got
    }

    #[test]
    fn a_client_gets_recent_output_every_end_then_live_frames() {
        let dir = std::env::temp_dir().join(format!("spur-attach-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.sock");
        let fanout = Fanout::default();
        for i in 0..OUTPUT_CACHE_FRAMES + 2 {
            fanout.output(&Frame::new(
                Kind::Output,
                0,
                STDOUT,
                format!("{i}\n").into(),
            ));
        }
        fanout.end(&Frame::new(Kind::Exited, 3, 256, Vec::new()));
        let (stdin_read, stdin_write) = nix::unistd::pipe().unwrap();
        let stdins: Stdins = Arc::new(Mutex::new(BTreeMap::from([(0, File::from(stdin_write))])));
        let socket = serve(&path, fanout.clone(), stdins).unwrap();
        let client = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = client.local_addr().unwrap().to_string();
        request(&path, &order(addr)).unwrap();
        let (mut stream, _) = client.accept().unwrap();
        stream
            .write_all(&Frame::new(Kind::Stdin, 0, 0, b"typed\n".to_vec()).encode())
            .unwrap();
        let mut typed = [0u8; 6];
        io::Read::read_exact(&mut File::from(stdin_read), &mut typed).unwrap();
        assert_eq!(&typed, b"typed\n");
        // Wait until the client is registered (the replay is written before it is added).
        let hello = Frame::read_from(&mut stream).unwrap().unwrap();
        assert_eq!(
            (hello.kind, hello.aux, hello.data.as_slice()),
            (Kind::Hello, 1, &b"k"[..])
        );
        fanout.output(&Frame::new(Kind::Output, 1, STDOUT, b"live\n".to_vec()));
        fanout.finish();
        let rest = frames(&mut stream);
        let outputs: Vec<&[u8]> = rest
            .iter()
            .filter(|f| f.kind == Kind::Output)
            .map(|f| f.data.as_slice())
            .collect();
        assert_eq!(outputs.len(), OUTPUT_CACHE_FRAMES + 1);
        assert_eq!(outputs[0], b"2\n");
        assert_eq!(outputs[OUTPUT_CACHE_FRAMES], b"live\n");
        let kinds: Vec<Kind> = rest
            .iter()
            .map(|f| f.kind)
            .filter(|k| *k != Kind::Output)
            .collect();
        assert_eq!(kinds, [Kind::Exited, Kind::Done]);
        drop(socket);
        assert!(!path.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn srun_steps_are_reached_on_their_abstract_socket_by_their_owner_only() {
        let fanout = Fanout::default();
        fanout.output(&Frame::new(Kind::Output, 0, STDOUT, b"early\n".to_vec()));
        let client = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut order = order(client.local_addr().unwrap().to_string());
        order.job_id = std::process::id();
        assert!(request_srun(&order).is_err(), "nobody serves the step yet");
        let name = srun_socket_name(order.job_id, order.step_id);
        serve_abstract(&name, fanout.clone(), Stdins::default()).unwrap();
        order.uid += 1;
        assert_eq!(
            request_srun(&order).unwrap_err().kind(),
            io::ErrorKind::PermissionDenied
        );
        order.uid -= 1;
        request_srun(&order).unwrap();
        let (mut stream, _) = client.accept().unwrap();
        let hello = Frame::read_from(&mut stream).unwrap().unwrap();
        assert_eq!(hello.kind, Kind::Hello);
        fanout.finish();
        let rest = frames(&mut stream);
        assert_eq!(rest[0].data, b"early\n");
        assert_eq!(rest.last().map(|f| f.kind), Some(Kind::Done));
    }

    #[test]
    fn the_kept_output_is_bounded_in_bytes_too() {
        let fanout = Fanout::default();
        let big = vec![b'x'; OUTPUT_CACHE_BYTES / 4 + 1];
        for _ in 0..8 {
            fanout.output(&Frame::new(Kind::Output, 0, STDOUT, big.clone()));
        }
        let shared = fanout.0.lock().unwrap();
        assert_eq!(shared.recent.len(), 3);
        assert_eq!(shared.recent_bytes, 3 * big.len());
    }

    #[test]
    fn absent_steps_are_reported_as_the_node() {
        let client = TcpListener::bind("127.0.0.1:0").unwrap();
        report_absent(&order(client.local_addr().unwrap().to_string())).unwrap();
        let (mut stream, _) = client.accept().unwrap();
        let kinds: Vec<(Kind, u32)> = frames(&mut stream)
            .iter()
            .map(|f| (f.kind, f.aux))
            .collect();
        assert_eq!(kinds, [(Kind::Hello, 1), (Kind::Absent, 0)]);
    }
}
