//! A throwaway local user for the multi-user tests, made with useradd and removed when dropped.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use super::Cluster;

pub struct TestUser {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    /// A directory of the user's own (mode 0755) under the temporary directory, removed with the user.
    pub work: PathBuf,
}

impl TestUser {
    pub fn create(tag: &str) -> TestUser {
        let name = format!("spurt{}{tag}", std::process::id() % 100_000);
        let status = Command::new("useradd")
            .args([
                "--no-create-home",
                "--user-group",
                "--shell",
                "/bin/sh",
                &name,
            ])
            .status()
            .expect("useradd");
        assert!(status.success(), "useradd {name}");
        let user = nix::unistd::User::from_name(&name)
            .ok()
            .flatten()
            .expect("new user resolves");
        let work = std::env::temp_dir().join(format!("{name}-work"));
        std::fs::create_dir_all(&work).expect("work dir");
        nix::unistd::chown(&work, Some(user.uid), Some(user.gid)).expect("chown work dir");
        TestUser {
            name,
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
            work,
        }
    }

    /// A Slurm command of `cluster` as this user, in the user's work directory.
    pub fn command(&self, cluster: &Cluster, command: &str, args: &[&str]) -> Command {
        let mut cmd = cluster.command(&self.work, command, args);
        self.become_user(&mut cmd);
        cmd
    }

    pub fn run(&self, cluster: &Cluster, command: &str, args: &[&str]) -> Output {
        self.command(cluster, command, args)
            .stdin(Stdio::null())
            .output()
            .expect("run as user")
    }

    /// Any program as this user (uid and gid; std drops root's supplementary groups), in the user's work directory.
    pub fn program(&self, program: &str, args: &[&str]) -> Output {
        let mut cmd = Command::new(program);
        cmd.args(args).current_dir(&self.work);
        self.become_user(&mut cmd);
        cmd.stdin(Stdio::null()).output().expect("run as user")
    }

    fn become_user(&self, cmd: &mut Command) {
        cmd.uid(self.uid)
            .gid(self.gid)
            .env("USER", &self.name)
            .env("LOGNAME", &self.name)
            .env("HOME", &self.work);
    }
}

impl Drop for TestUser {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.work);
        // The user's last processes (killed with the cluster) may take a moment to be reaped.
        for _ in 0..50 {
            let removed = Command::new("userdel")
                .arg(&self.name)
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if removed {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("could not remove test user {}", self.name);
    }
}
