//! Three spurctld on their own loopback addresses (127.0.0.2-4) forming one Raft group, and one spurd, as real
//! processes: the HA tests' cluster.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use spur_core::wire::pb;

use super::{bin_dir, field_of, short_hostname, text};

/// The controllers' addresses, in slurm.conf's order.
pub const ADDRS: [&str; 3] = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];

pub struct HaCluster {
    pub _munged: spur_auth::testing::PrivateMunged,
    pub dir: tempfile::TempDir,
    pub conf: PathBuf,
    pub port: u16,
    pub controllers: Vec<Option<Child>>,
    pub agent: Option<Child>,
    pub bin_dir: PathBuf,
}

/// A port free on every controller address (each controller binds its own).
pub fn free_port_on_all() -> u16 {
    super::ports::reserve_port(&ADDRS)
}

impl HaCluster {
    pub fn start() -> HaCluster {
        let bin_dir = bin_dir();
        let dir = tempfile::Builder::new()
            .prefix("spur-ha-test-")
            .tempdir()
            .expect("tempdir");
        let munged = spur_auth::testing::PrivateMunged::start(&dir.path().join("munge"))
            .expect("start a private munged (needs the munge package)");
        let port = free_port_on_all();
        let node = short_hostname();
        let hosts: String = ADDRS
            .iter()
            .enumerate()
            .map(|(i, a)| format!("SlurmctldHost=ctl{}({a})\n", i + 1))
            .collect();
        let conf_text = format!(
            "ClusterName=spurha\n{hosts}SlurmctldPort={port}\n\
             AuthType=auth/munge\nAuthInfo=socket={munge}\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=10\n\
             StateSaveLocation={state}\nSlurmdSpoolDir={spool}\nMinJobAge=3600\nKillWait=2\n\
             NodeName={node} NodeAddr=127.0.0.1 CPUs=4 RealMemory=2048 State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            munge = munged.socket.display(),
            state = dir.path().join("state").display(),
            spool = dir.path().join("spool").display(),
        );
        let conf = dir.path().join("slurm.conf");
        std::fs::write(&conf, conf_text).expect("write slurm.conf");
        let mut cluster = HaCluster {
            _munged: munged,
            dir,
            conf,
            port,
            controllers: (0..ADDRS.len()).map(|_| None).collect(),
            agent: None,
            bin_dir,
        };
        for i in 0..ADDRS.len() {
            cluster.start_controller(i);
        }
        let agent = cluster
            .daemon("spurd", "spurd.log")
            .spawn()
            .expect("start spurd");
        cluster.agent = Some(agent);
        cluster
    }

    pub fn log(&self, name: &str) -> std::fs::File {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(name))
            .expect("log file")
    }

    pub fn daemon(&self, name: &str, log: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join(name));
        cmd.arg("-f")
            .arg(&self.conf)
            .env("SPUR_LOG", "info,openraft=warn")
            .env_remove("SPUR_LOCAL_SOCKET")
            .env_remove("SPUR_CONTROLLER")
            .stdout(self.log(log))
            .stderr(self.log(log));
        cmd
    }

    pub fn start_controller(&mut self, i: usize) {
        let child = self
            .daemon("spurctld", &format!("ctl{}.log", i + 1))
            .env("SPUR_CONTROLLER_ID", format!("ctl{}", i + 1))
            .spawn()
            .expect("start spurctld");
        self.controllers[i] = Some(child);
    }

    pub fn kill_controller(&mut self, i: usize) {
        if let Some(mut child) = self.controllers[i].take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGSTOP or SIGCONT a controller: a paused process keeps its sockets open but answers nothing, as a
    /// controller stuck on a dead disk or in a long GC pause would.
    pub fn signal_controller(&self, i: usize, signal: i32) {
        if let Some(child) = &self.controllers[i] {
            let pid = i32::try_from(child.id()).expect("pid");
            // SAFETY: plain kill(2) on a child this test started.
            let _ = unsafe { libc::kill(pid, signal) };
        }
    }

    /// SIGKILL spurd and start it again.
    pub fn restart_agent(&mut self) {
        if let Some(mut agent) = self.agent.take() {
            let _ = agent.kill();
            let _ = agent.wait();
        }
        let agent = self
            .daemon("spurd", "spurd.log")
            .spawn()
            .expect("start spurd");
        self.agent = Some(agent);
    }

    /// SIGKILLs the supervisor (spurstepd) of one batch job whose script is running, as an OOM killer or a
    /// crash would end it; returns the job's id.
    pub fn kill_a_supervisor(&self) -> Option<u32> {
        let mut dirs = vec![self.dir.path().join("spool")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if !path.is_dir() {
                    continue;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(job) = name.strip_prefix("job").and_then(|n| n.parse::<u32>().ok()) else {
                    dirs.push(path);
                    continue;
                };
                if !path.join("started.json").exists() || path.join("result.json").exists() {
                    continue;
                }
                let Some(pid) = std::fs::read_to_string(path.join("stepd.pid"))
                    .ok()
                    .and_then(|t| t.trim().parse::<i32>().ok())
                else {
                    continue;
                };
                // Only a live supervisor of this very directory (pids are reused): its working directory.
                let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
                if cwd.as_deref() != std::fs::canonicalize(&path).ok().as_deref() {
                    continue;
                }
                // SAFETY: kill(2) on a pid we just checked is this job's supervisor.
                if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
                    return Some(job);
                }
            }
        }
        None
    }

    /// A Slurm command that finds the controllers through slurm.conf, as a user's would.
    pub fn command(dir: &Path, conf: &Path, bin_dir: &Path, name: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin_dir.join("spur"));
        cmd.arg(name)
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null());
        for (key, _) in std::env::vars() {
            if key.starts_with("SLURM_") || key.starts_with("SBATCH_") || key.starts_with("SPUR_") {
                cmd.env_remove(key);
            }
        }
        cmd.env("SLURM_CONF", conf);
        cmd
    }

    pub fn run(&self, name: &str, args: &[&str]) -> std::process::Output {
        Self::command(self.dir.path(), &self.conf, &self.bin_dir, name, args)
            .output()
            .expect("run spur")
    }

    /// The first of `candidates` (running controllers, asked in turn over gRPC) whose Ping reply `accept`s.
    fn first_answering(
        &self,
        candidates: impl IntoIterator<Item = usize>,
        accept: impl Fn(&pb::PingReply) -> bool,
    ) -> Option<usize> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            for i in candidates {
                if self.controllers.get(i).is_none_or(Option::is_none) {
                    continue;
                }
                let url = format!("http://{}:{}", ADDRS[i], self.port);
                let Ok(endpoint) = tonic::transport::Endpoint::from_shared(url) else {
                    continue;
                };
                let endpoint = endpoint
                    .connect_timeout(Duration::from_secs(1))
                    .timeout(Duration::from_secs(1));
                let Ok(channel) = endpoint.connect().await else {
                    continue;
                };
                let mut client = pb::controller_client::ControllerClient::new(channel);
                if let Ok(reply) = client.ping(pb::PingRequest {}).await {
                    if accept(&reply.into_inner()) {
                        return Some(i);
                    }
                }
            }
            None
        })
    }

    /// Which controller leads, asked of each over its Ping call.
    pub fn leader(&self) -> Option<usize> {
        self.first_answering(0..ADDRS.len(), |reply| reply.leader)
    }

    /// Waits until controller `i` (just started) answers a ping. A started spurctld opens its store before it
    /// listens, which takes tens of milliseconds (more on a loaded machine); until then connections to it are
    /// refused, and a check that expects it UP would race its start.
    pub fn wait_for_controller(&self, i: usize) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while self.first_answering([i], |_| true).is_none() {
            assert!(
                Instant::now() < deadline,
                "ctl{} never answered a ping\n{}",
                i + 1,
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for_leader(&self) -> usize {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(leader) = self.leader() {
                return leader;
            }
            assert!(Instant::now() < deadline, "no leader\n{}", self.logs());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for_node_idle(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.run("sinfo", &["-h", "-o", "%T"]);
            if text(&out.stdout).trim() == "idle" {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "node never became idle: {out:?}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Every job the cluster knows, by id: its `scontrol -o show job` line.
    pub fn jobs(&self) -> BTreeMap<u32, String> {
        let out = self.run("scontrol", &["-o", "show", "job"]);
        text(&out.stdout)
            .lines()
            .filter_map(|line| Some((field_of(line, "JobId").parse().ok()?, line.to_string())))
            .collect()
    }

    pub fn logs(&self) -> String {
        let mut all = String::new();
        for name in [
            "ctl1.log",
            "ctl2.log",
            "ctl3.log",
            "spurd.log",
            "slurmrestd.log",
        ] {
            let Ok(log) = std::fs::read_to_string(self.dir.path().join(name)) else {
                continue;
            };
            let tail: Vec<&str> = log.lines().rev().take(40).collect();
            all.push_str(&format!("--- {name} (last lines) ---\n"));
            for line in tail.into_iter().rev() {
                all.push_str(line);
                all.push('\n');
            }
        }
        all
    }
}

impl Drop for HaCluster {
    fn drop(&mut self) {
        for i in 0..self.controllers.len() {
            self.kill_controller(i);
        }
        if let Some(mut agent) = self.agent.take() {
            let _ = agent.kill();
            let _ = agent.wait();
        }
    }
}
