//! slurmrestd for integration tests: the daemon started as a process of the multi-call binary, and a minimal
//! HTTP/1.1 client over TCP or a Unix socket (one request per connection) so tests speak to it as curl would.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Where a request goes.
#[derive(Debug, Clone)]
pub enum Target {
    Tcp(SocketAddr),
    Unix(PathBuf),
}

#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub body: String,
}

impl HttpReply {
    /// The body as JSON; panics (the test fails) when it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// One request; `headers` are (name, value) pairs.
pub fn request(
    target: &Target,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> std::io::Result<HttpReply> {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    if let Some(body) = body {
        text.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    text.push_str("\r\n");
    if let Some(body) = body {
        text.push_str(body);
    }
    let timeout = Some(Duration::from_secs(60));
    let mut raw = Vec::new();
    match target {
        Target::Tcp(addr) => {
            let mut stream = TcpStream::connect(addr)?;
            stream.set_read_timeout(timeout)?;
            stream.write_all(text.as_bytes())?;
            stream.read_to_end(&mut raw)?;
        }
        Target::Unix(path) => {
            let mut stream = UnixStream::connect(path)?;
            stream.set_read_timeout(timeout)?;
            stream.write_all(text.as_bytes())?;
            stream.read_to_end(&mut raw)?;
        }
    }
    parse_reply(&raw)
}

fn parse_reply(raw: &[u8]) -> std::io::Result<HttpReply> {
    let invalid =
        |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| invalid("no header end"))?;
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("no status"))?;
    let chunked = head.lines().any(|l| {
        l.to_ascii_lowercase()
            .starts_with("transfer-encoding: chunked")
    });
    let body = if chunked {
        dechunk(body).ok_or_else(|| invalid("bad chunks"))?
    } else {
        body.to_string()
    };
    Ok(HttpReply { status, body })
}

fn dechunk(mut body: &str) -> Option<String> {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n")?;
        let size = usize::from_str_radix(size.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.push_str(rest.get(..size)?);
        body = rest.get(size + 2..)?;
    }
}

/// A running slurmrestd, stopped when dropped.
pub struct RestDaemon {
    pub child: Child,
    pub tcp: SocketAddr,
    pub unix: PathBuf,
}

impl RestDaemon {
    /// `spur slurmrestd ARGS 127.0.0.1:<free port> unix:<dir>/rest.sock` with `conf` as slurm.conf.
    pub fn start(bin_dir: &Path, conf: &Path, dir: &Path, args: &[&str]) -> RestDaemon {
        let port = super::ports::reserve_port(&["127.0.0.1"]);
        let tcp: SocketAddr = format!("127.0.0.1:{port}").parse().expect("address");
        let unix = dir.join("rest.sock");
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("slurmrestd.log"))
            .expect("log");
        let mut cmd = Command::new(bin_dir.join("spur"));
        cmd.arg("slurmrestd")
            .args(args)
            .arg("-f")
            .arg(conf)
            .arg(tcp.to_string())
            .arg(format!("unix:{}", unix.display()))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log);
        for (key, _) in std::env::vars() {
            if key.starts_with("SLURM_") || key.starts_with("SPUR_") {
                cmd.env_remove(key);
            }
        }
        // Tests run as root, which slurmrestd refuses without this.
        cmd.env("SLURMRESTD_SECURITY", "disable_user_check");
        let child = cmd.spawn().expect("start slurmrestd");
        let daemon = RestDaemon { child, tcp, unix };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !(daemon.unix.exists() && TcpStream::connect(daemon.tcp).is_ok()) {
            assert!(Instant::now() < deadline, "slurmrestd did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        daemon
    }

    pub fn tcp(&self) -> Target {
        Target::Tcp(self.tcp)
    }

    pub fn unix(&self) -> Target {
        Target::Unix(self.unix.clone())
    }
}

impl Drop for RestDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
