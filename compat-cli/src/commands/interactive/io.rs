//! The tasks' standard streams. By default each task's stdout and stderr come back through pipes and srun writes
//! them to its own, a whole line at a time (prefixed `0: ` with `--label`), and srun's stdin goes to every task.
//! `--output`, `--error` and `--input` send a stream to a file (a pattern expanded per task), to `/dev/null`
//! (`none`), or restrict forwarding to one task (a task number).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use nix::fcntl::OFlag;
use spur_core::wire::step_io::{Frame, Kind, STDERR, STDOUT};
use spur_stepd::step_attach::Fanout;

/// Where one stream of one task goes (or, for stdin, comes from).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// Through srun: its own stdout/stderr, or its stdin.
    Forward,
    Null,
    File(PathBuf),
}

/// How an `--output`/`--error`/`--input` value applies to task `rank`; `expand` turns a pattern into a path.
pub fn route(value: Option<&str>, rank: u32, expand: impl Fn(&str) -> String) -> Route {
    match value {
        None => Route::Forward,
        Some("/dev/null") => Route::Null,
        Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => {
            if v.parse::<u32>().ok() == Some(rank) {
                Route::Forward
            } else {
                Route::Null
            }
        }
        Some(v) => Route::File(PathBuf::from(expand(v))),
    }
}

/// A descriptor a task gets: srun's own (inherited) or one srun opened for it.
pub enum TaskFd {
    Inherited(RawFd),
    Owned(OwnedFd),
}

impl TaskFd {
    pub fn raw(&self) -> RawFd {
        match self {
            TaskFd::Inherited(fd) => *fd,
            TaskFd::Owned(fd) => fd.as_raw_fd(),
        }
    }
}

/// srun's own output stream a task stream is forwarded to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    Stdout,
    Stderr,
}

impl Sink {
    fn write_all(self, bytes: &[u8]) {
        // A closed srun output (`srun ... | head -1`) must not stop the draining, or tasks would block.
        let _ = match self {
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes).and_then(|()| out.flush())
            }
            Sink::Stderr => std::io::stderr().lock().write_all(bytes),
        };
    }
}

/// `--label`'s prefix: the rank right-aligned to the width of the highest rank, then `: `.
pub fn label(rank: u32, ntasks: u32) -> String {
    let width = ntasks.saturating_sub(1).to_string().len();
    format!("{rank:>width$}: ")
}

/// Files opened for tasks, shared by the tasks whose pattern expands to the same path.
#[derive(Default)]
pub struct OpenFiles {
    files: Vec<(PathBuf, File)>,
}

impl OpenFiles {
    /// Opens (once) `path`, relative to `work_dir`, for writing (`append` or truncating) or for reading.
    pub fn get(
        &mut self,
        work_dir: &Path,
        path: &Path,
        write: bool,
        append: bool,
    ) -> std::io::Result<TaskFd> {
        let full = work_dir.join(path);
        if let Some((_, file)) = self.files.iter().find(|(p, _)| *p == full) {
            return Ok(TaskFd::Owned(file.try_clone()?.into()));
        }
        let file = if write {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .append(append)
                .truncate(!append)
                .open(&full)?
        } else {
            File::open(&full)?
        };
        let fd = file.try_clone()?;
        self.files.push((full, file));
        Ok(TaskFd::Owned(fd.into()))
    }
}

pub fn dev_null(write: bool) -> std::io::Result<TaskFd> {
    let file = std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .open("/dev/null")?;
    Ok(TaskFd::Owned(file.into()))
}

/// A pipe whose ends are closed on exec (a task gets its end through `dup2`).
pub fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    nix::unistd::pipe2(OFlag::O_CLOEXEC).map_err(std::io::Error::from)
}

/// Starts forwarding task `rank`'s stream: returns the write end for the task and the forwarding thread. What
/// the task writes also goes to the clients attached to the step (sattach).
pub fn forward(
    sink: Sink,
    prefix: Option<String>,
    unbuffered: bool,
    attached: (Fanout, u32),
) -> std::io::Result<(TaskFd, JoinHandle<()>)> {
    let (read, write) = pipe()?;
    let reader = File::from(read);
    // `--unbuffered`: bytes as they come, the label still at the start of each line; else whole lines, and a
    // labelled last line without a newline gets one, as srun writes it.
    let writer = StreamWriter::new(sink, prefix, unbuffered);
    let handle = std::thread::spawn(move || copy(reader, writer, &attached));
    Ok((TaskFd::Owned(write), handle))
}

fn copy(mut reader: File, mut writer: StreamWriter, (attached, rank): &(Fanout, u32)) {
    let stream = match writer.sink {
        Sink::Stdout => STDOUT,
        Sink::Stderr => STDERR,
    };
    let mut buf = [0u8; 4096];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                writer.feed(&buf[..n]);
                attached.output(&Frame::new(Kind::Output, *rank, stream, buf[..n].to_vec()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    writer.finish();
}

/// One task stream on its way to srun's stdout or stderr, fed as it arrives (from a pipe, or from another
/// node's supervisor): whole lines, labelled with `--label`; with `--unbuffered`, bytes as they come.
pub struct StreamWriter {
    sink: Sink,
    prefix: Option<String>,
    unbuffered: bool,
    pending: Vec<u8>,
    at_line_start: bool,
}

impl StreamWriter {
    pub fn new(sink: Sink, prefix: Option<String>, unbuffered: bool) -> StreamWriter {
        StreamWriter {
            sink,
            prefix,
            unbuffered,
            pending: Vec::new(),
            at_line_start: true,
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        if self.unbuffered {
            let Some(prefix) = &self.prefix else {
                self.sink.write_all(bytes);
                return;
            };
            let mut out = Vec::with_capacity(bytes.len() + prefix.len());
            for &byte in bytes {
                if self.at_line_start {
                    out.extend_from_slice(prefix.as_bytes());
                }
                out.push(byte);
                self.at_line_start = byte == b'\n';
            }
            self.sink.write_all(&out);
            return;
        }
        self.pending.extend_from_slice(bytes);
        while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            self.emit_line(&line);
        }
    }

    /// The stream ended: a last line without a newline goes out too.
    pub fn finish(&mut self) {
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.emit_line(&line);
        }
    }

    fn emit_line(&self, line: &[u8]) {
        match &self.prefix {
            Some(prefix) => {
                let mut out = Vec::with_capacity(prefix.len() + line.len() + 1);
                out.extend_from_slice(prefix.as_bytes());
                out.extend_from_slice(line);
                if !line.ends_with(b"\n") {
                    out.push(b'\n');
                }
                self.sink.write_all(&out);
            }
            None => self.sink.write_all(line),
        }
    }
}

/// Copies srun's stdin to every listed task pipe until stdin ends; a task that closed its end is dropped.
pub fn broadcast_stdin(targets: Vec<OwnedFd>) {
    std::thread::spawn(move || {
        let mut targets: Vec<File> = targets.into_iter().map(File::from).collect();
        let mut stdin = std::io::stdin().lock();
        let mut buf = [0u8; 4096];
        while !targets.is_empty() {
            let n = match stdin.read(&mut buf) {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            targets.retain_mut(|t| t.write_all(&buf[..n]).is_ok());
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_padded_to_the_highest_rank() {
        assert_eq!(label(0, 2), "0: ");
        assert_eq!(label(0, 12), " 0: ");
        assert_eq!(label(11, 12), "11: ");
        assert_eq!(label(0, 1), "0: ");
    }

    #[test]
    fn routes() {
        let expand = |p: &str| p.replace("%t", "3");
        assert_eq!(route(None, 0, expand), Route::Forward);
        assert_eq!(route(Some("/dev/null"), 0, expand), Route::Null);
        assert_eq!(route(Some("1"), 1, expand), Route::Forward);
        assert_eq!(route(Some("1"), 0, expand), Route::Null);
        assert_eq!(
            route(Some("out-%t"), 3, expand),
            Route::File(PathBuf::from("out-3"))
        );
    }
}
