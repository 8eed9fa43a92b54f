//! A private munged for tests: its own key, socket, log and pid file under a temporary directory, so tests never
//! touch (or depend on) a system munged. Started in the foreground and killed by PID when dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a fresh munged may take to open its socket.
pub const MUNGED_START_TIMEOUT: Duration = Duration::from_secs(10);

pub struct PrivateMunged {
    pub dir: PathBuf,
    pub socket: PathBuf,
    pub key: PathBuf,
    child: Option<Child>,
}

impl PrivateMunged {
    /// Starts munged in `dir` (created if needed) with a new key. `dir` is made world-searchable so other local
    /// users (the tests' unprivileged users) can reach the socket, as they reach /run/munge.
    pub fn start(dir: &Path) -> std::io::Result<PrivateMunged> {
        Self::start_with_key(dir, None)
    }

    /// Same, sharing `key` (another daemon's key file) instead of making a new one.
    pub fn start_with_key(dir: &Path, key: Option<&Path>) -> std::io::Result<PrivateMunged> {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))?;
        let key_file = dir.join("munge.key");
        match key {
            Some(shared) => {
                std::fs::copy(shared, &key_file)?;
                std::fs::set_permissions(&key_file, std::fs::Permissions::from_mode(0o600))?;
            }
            None => {
                let status = Command::new(find("mungekey"))
                    .args(["--create", "--force", "--keyfile"])
                    .arg(&key_file)
                    .stdout(Stdio::null())
                    .status()?;
                if !status.success() {
                    return Err(std::io::Error::other("mungekey failed"));
                }
            }
        }
        let socket = dir.join("munge.socket");
        let child = Command::new(find("munged"))
            .args(["--foreground", "--force", "--num-threads=2"])
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key_file.display()))
            .arg(format!("--log-file={}", dir.join("munged.log").display()))
            .arg(format!("--pid-file={}", dir.join("munged.pid").display()))
            .arg(format!("--seed-file={}", dir.join("munged.seed").display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()?;
        let mut munged = PrivateMunged {
            dir: dir.to_path_buf(),
            socket,
            key: key_file,
            child: Some(child),
        };
        let deadline = Instant::now() + MUNGED_START_TIMEOUT;
        while crate::munge::encode(&munged.socket_str(), b"").is_err() {
            if let Some(child) = munged.child.as_mut() {
                if let Ok(Some(status)) = child.try_wait() {
                    let log = std::fs::read_to_string(dir.join("munged.log")).unwrap_or_default();
                    return Err(std::io::Error::other(format!(
                        "munged exited ({status}): {log}"
                    )));
                }
            }
            if Instant::now() > deadline {
                return Err(std::io::Error::other("munged did not open its socket"));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(munged)
    }

    pub fn socket_str(&self) -> String {
        self.socket.display().to_string()
    }
}

impl Drop for PrivateMunged {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// munged lives in /usr/sbin, which a non-login PATH may lack.
fn find(name: &str) -> PathBuf {
    ["/usr/sbin", "/usr/bin", "/sbin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(name))
}
