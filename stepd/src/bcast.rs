//! `spurstepd --bcast`: one node's part of an `sbcast`. The agent starts it with the controller's order on stdin;
//! it becomes the job's owner first (so the file is opened, written and owned exactly as that user could), then
//! connects to sbcast, presents the key, and writes what sbcast sends where sbcast says: as slurmd does, created
//! with mode 0700 (`O_EXCL` unless `-f`, then truncated), given the source's permission bits once complete, and
//! the source's times with `-p`. The result, 0 or the errno of what failed, goes back to sbcast, which prints
//! Slurm's `REQUEST_FILE_BCAST(NODE): TEXT` for it.

use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::os::unix::fs::OpenOptionsExt;
use std::time::Duration;

use nix::errno::Errno;
use serde::{Deserialize, Serialize};
use spur_core::model::step_launch::FileBcastOrder;
use spur_core::wire::step_io::{BcastHeader, Frame, Kind};

/// How long reaching sbcast may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long sbcast may stay silent mid-transfer before the node gives up (Slurm's default message timeout is
/// 10 s per block; a whole file may take longer, a silent peer may not).
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// What the agent hands `spurstepd --bcast` on stdin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BcastSpec {
    pub order: FileBcastOrder,
    /// The owner's supplementary groups, looked up by the agent.
    pub groups: Vec<u32>,
}

pub fn main_entry() -> i32 {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("spurstepd --bcast: cannot read the order: {e}");
        return 1;
    }
    let spec: BcastSpec = match serde_json::from_str(&text) {
        Ok(spec) => spec,
        Err(e) => {
            eprintln!("spurstepd --bcast: bad order: {e}");
            return 1;
        }
    };
    match run(&spec) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("spurstepd --bcast: job {}: {e}", spec.order.job_id);
            1
        }
    }
}

/// Becomes the owner, then serves sbcast's one transfer. `Err` only when sbcast could not be told anything.
pub fn run(spec: &BcastSpec) -> Result<(), String> {
    let order = &spec.order;
    // Before any connection: nothing sbcast sends is ever handled with more rights than its owner has.
    let dropped = become_owner(order.uid, order.gid, &spec.groups);
    let mut stream = connect(&order.addr)?;
    stream
        .set_read_timeout(Some(IDLE_TIMEOUT))
        .map_err(|e| e.to_string())?;
    Frame::new(
        Kind::Hello,
        0,
        order.node_index,
        order.key.as_bytes().to_vec(),
    )
    .write_to(&mut stream)
    .map_err(|e| format!("cannot greet sbcast: {e}"))?;
    let result = match dropped {
        Ok(()) => receive(&mut stream),
        Err(errno) => Err((errno as i32, format!("cannot become uid {}", order.uid))),
    };
    let (code, text) = match result {
        Ok(()) => (0, Vec::new()),
        Err((errno, text)) => (errno as u32, text.into_bytes()),
    };
    Frame::new(Kind::BcastResult, 0, code, text)
        .write_to(&mut stream)
        .map_err(|e| format!("cannot answer sbcast: {e}"))
}

/// Root drops to the owner; an unprivileged supervisor (a test agent) may only write as itself.
fn become_owner(uid: u32, gid: u32, groups: &[u32]) -> Result<(), Errno> {
    if nix::unistd::geteuid().is_root() {
        let groups: Vec<nix::unistd::Gid> = groups
            .iter()
            .map(|&g| nix::unistd::Gid::from_raw(g))
            .collect();
        nix::unistd::setgroups(&groups)?;
        nix::unistd::setgid(nix::unistd::Gid::from_raw(gid))?;
        nix::unistd::setuid(nix::unistd::Uid::from_raw(uid))?;
        return Ok(());
    }
    if nix::unistd::geteuid().as_raw() == uid {
        Ok(())
    } else {
        Err(Errno::EPERM)
    }
}

fn connect(addr: &str) -> Result<TcpStream, String> {
    let targets: Vec<_> = addr
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve sbcast's address {addr}: {e}"))?
        .collect();
    let mut last = format!("no address for {addr}");
    for target in targets {
        match TcpStream::connect_timeout(&target, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = format!("cannot reach sbcast at {target}: {e}"),
        }
    }
    Err(last)
}

/// The errno of an I/O error, EIO when it has none (a protocol fault).
fn errno_of(e: &std::io::Error) -> i32 {
    e.raw_os_error().unwrap_or(libc::EIO)
}

/// Reads the header, the data and the end from sbcast and writes the file; `Err` carries the errno sbcast
/// reports and slurmd's text for the log.
fn receive(stream: &mut TcpStream) -> Result<(), (i32, String)> {
    let protocol = |what: &str| (libc::EIO, format!("sbcast protocol: {what}"));
    let header = match Frame::read_from(stream) {
        Ok(Some(frame)) if frame.kind == Kind::BcastHeader => {
            serde_json::from_slice::<BcastHeader>(&frame.data)
                .map_err(|e| protocol(&format!("bad header: {e}")))?
        }
        Ok(_) => return Err(protocol("no header")),
        Err(e) => return Err((errno_of(&e), format!("reading the header: {e}"))),
    };
    let mut file = open(&header)?;
    let mut written: u64 = 0;
    loop {
        let frame = match Frame::read_from(stream) {
            Ok(Some(frame)) => frame,
            Ok(None) => return Err(protocol("the transfer was cut")),
            Err(e) => return Err((errno_of(&e), format!("reading the data: {e}"))),
        };
        match frame.kind {
            Kind::BcastData => {
                file.write_all(&frame.data).map_err(|e| {
                    (
                        errno_of(&e),
                        format!("sbcast: can't write `{}`: {e}", header.dest),
                    )
                })?;
                written = written.saturating_add(frame.data.len() as u64);
            }
            Kind::BcastEnd => break,
            _ => return Err(protocol("unexpected frame")),
        }
    }
    if written != header.size {
        return Err(protocol("the file's size does not match its header"));
    }
    finish(&file, &header)
}

/// Opens the destination as slurmd does: mode 0700 until complete, `O_EXCL` unless forced.
fn open(header: &BcastHeader) -> Result<File, (i32, String)> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).mode(0o700);
    if header.force {
        options.create(true).truncate(true);
    } else {
        options.create_new(true);
    }
    options.open(&header.dest).map_err(|e| {
        let errno = errno_of(&e);
        (
            errno,
            format!(
                "Unable to open {}: {}",
                header.dest,
                Errno::from_raw(errno).desc()
            ),
        )
    })
}

/// The source's permission bits and, with `-p`, its times, once the data is complete. As in slurmd, failures
/// here are logged and the transfer still counts as done.
fn finish(file: &File, header: &BcastHeader) -> Result<(), (i32, String)> {
    use std::os::fd::AsFd;
    if let Err(e) = nix::sys::stat::fchmod(
        file.as_fd(),
        nix::sys::stat::Mode::from_bits_truncate(header.mode & 0o777),
    ) {
        eprintln!("sbcast: can't chmod `{}`: {e}", header.dest);
    }
    if let Some((atime, mtime)) = header.times {
        let at = nix::sys::time::TimeSpec::new(atime, 0);
        let mt = nix::sys::time::TimeSpec::new(mtime, 0);
        if let Err(e) = nix::sys::stat::futimens(file.as_fd(), &at, &mt) {
            eprintln!("sbcast: can't utime `{}`: {e}", header.dest);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// Runs `receive` against a peer that sends `frames`, as a hostile or broken sbcast might.
    fn receive_from(frames: Vec<Frame>) -> Result<(), (i32, String)> {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let peer = std::thread::spawn(move || {
            let mut stream = TcpStream::connect(addr).unwrap();
            for frame in frames {
                let _ = frame.write_to(&mut stream);
            }
        });
        let (mut stream, _) = listener.accept().unwrap();
        let result = receive(&mut stream);
        peer.join().unwrap();
        result
    }

    fn header(dest: &std::path::Path, size: u64, force: bool) -> Frame {
        let header = BcastHeader {
            dest: dest.display().to_string(),
            mode: 0o640,
            force,
            times: Some((1_577_934_245, 1_577_934_245)),
            size,
        };
        Frame::new(
            Kind::BcastHeader,
            0,
            0,
            serde_json::to_vec(&header).unwrap(),
        )
    }

    #[test]
    fn a_whole_file_is_written_with_its_mode_and_times() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("copy");
        let frames = vec![
            header(&dest, 6, false),
            Frame::new(Kind::BcastData, 0, 0, b"hel".to_vec()),
            Frame::new(Kind::BcastData, 0, 0, b"lo\n".to_vec()),
            Frame::new(Kind::BcastEnd, 0, 0, Vec::new()),
        ];
        receive_from(frames).unwrap();
        assert_eq!(std::fs::read(&dest).unwrap(), b"hello\n");
        let meta = std::fs::metadata(&dest).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o640);
        assert_eq!(meta.mtime(), 1_577_934_245);
        // Without -f an existing file is EEXIST, as slurmd's O_EXCL open.
        let again = receive_from(vec![header(&dest, 0, false)]).unwrap_err();
        assert_eq!(again.0, libc::EEXIST);
        assert!(again.1.ends_with("File exists"), "{}", again.1);
    }

    #[test]
    fn cut_oversized_and_garbled_transfers_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("copy");
        // Fewer bytes than announced.
        let short = vec![
            header(&dest, 100, true),
            Frame::new(Kind::BcastData, 0, 0, b"x".to_vec()),
            Frame::new(Kind::BcastEnd, 0, 0, Vec::new()),
        ];
        assert_eq!(receive_from(short).unwrap_err().0, libc::EIO);
        // The peer goes away mid-transfer.
        let cut = vec![
            header(&dest, 3, true),
            Frame::new(Kind::BcastData, 0, 0, b"x".to_vec()),
        ];
        assert_eq!(receive_from(cut).unwrap_err().0, libc::EIO);
        // A header that is not JSON, and frames out of order.
        let garbled = vec![Frame::new(Kind::BcastHeader, 0, 0, vec![0xff; 64])];
        assert_eq!(receive_from(garbled).unwrap_err().0, libc::EIO);
        let unordered = vec![Frame::new(Kind::BcastData, 0, 0, b"x".to_vec())];
        assert_eq!(receive_from(unordered).unwrap_err().0, libc::EIO);
        let stray = vec![
            header(&dest, 0, true),
            Frame::new(Kind::Signal, 0, 9, Vec::new()),
        ];
        assert_eq!(receive_from(stray).unwrap_err().0, libc::EIO);
    }
}
