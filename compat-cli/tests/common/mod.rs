//! A real single-node Spur cluster for integration tests: spurctld and spurd as processes on loopback, state and
//! spool in a temporary directory, and the `spur` multi-call binary run under Slurm's command names.

#![allow(dead_code)]

pub mod attack;
pub mod golden;
pub mod ha;
pub mod mpi;
pub mod ports;
pub mod rest;
pub mod users;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub struct Cluster {
    /// The cluster's own munged (key and socket under `dir`): every daemon and command authenticates through it,
    /// as on a real site, without touching a system munged. None with `local_socket`, which must work without.
    pub munged: Option<spur_auth::testing::PrivateMunged>,
    pub dir: tempfile::TempDir,
    pub conf: PathBuf,
    pub url: String,
    pub node: String,
    pub controller: Option<Child>,
    pub agent: Option<Child>,
    /// The agents of `ClusterOptions::extra_nodes`, each with a spool of its own under `spool-<node>`.
    pub extra_agents: Vec<Child>,
    /// spurctld's peer-credential socket, when the cluster runs the no-munged fallback; commands use it too.
    pub local_socket: Option<PathBuf>,
    bin_dir: PathBuf,
    agent_env: Vec<(String, String)>,
    controller_env: Vec<(String, String)>,
    /// `spurd --simulate` with this hostlist instead of a real node (see `ClusterOptions::simulate`).
    simulate: Option<String>,
    /// The state directory is a tmpfs this cluster mounted (see `ClusterOptions::state_tmpfs_bytes`).
    state_mount: Option<PathBuf>,
}

/// The directory with the workspace's binaries (spurctld, spurd, spurstepd next to spur).
pub fn bin_dir() -> PathBuf {
    let spur = PathBuf::from(env!("CARGO_BIN_EXE_spur"));
    let dir = spur.parent().map(Path::to_path_buf).unwrap_or_default();
    for daemon in ["spurctld", "spurd", "spurstepd"] {
        assert!(
            dir.join(daemon).exists(),
            "{daemon} is not built in {}: run `cargo build --workspace` first (test.sh does)",
            dir.display()
        );
    }
    dir
}

fn free_port() -> u16 {
    ports::reserve_port(&["127.0.0.1"])
}

pub fn short_hostname() -> String {
    let out = Command::new("hostname")
        .arg("-s")
        .output()
        .expect("hostname");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

pub struct ClusterOptions {
    pub cpus: u32,
    pub memory_mb: u64,
    pub extra_conf: String,
    pub gres: Option<String>,
    pub min_job_age: u32,
    pub kill_wait: u32,
    pub def_mem_per_cpu: u64,
    /// More `NodeName=` parameters, e.g. `SocketsPerBoard=1 CoresPerSocket=2`.
    pub node_extra: String,
    /// Serve and use the local Unix socket (SPUR_LOCAL_SOCKET) as the quick start does.
    pub local_socket: bool,
    /// Text of a cgroup.conf written beside slurm.conf.
    pub cgroup_conf: Option<String>,
    /// Text of gres.conf, instead of the one naming fake `/dev/nvidia*` files that `gres` writes.
    pub gres_conf: Option<String>,
    /// Environment for spurd (e.g. `SPUR_SYSFS_ROOT` pointing at a fake sysfs tree).
    pub agent_env: Vec<(String, String)>,
    /// Environment for spurctld (e.g. `LD_PRELOAD` of a fault-injecting shim).
    pub controller_env: Vec<(String, String)>,
    /// More nodes after this host's, all on 127.0.0.1, each with its own spurd (a multi-node cluster on one host).
    pub extra_nodes: Vec<String>,
    /// Instead of this host as the one node: this many simulated nodes `sim[001-NNN]` of `cpus` and `memory_mb`,
    /// played by one `spurd --simulate` (docs/simulation.md).
    pub simulate: Option<u32>,
    /// Keep the controller's state (StateSaveLocation) on a tmpfs of this many bytes, mounted for the test and
    /// unmounted after it (needs root), so that a test can fill it.
    pub state_tmpfs_bytes: Option<u64>,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions {
            cpus: 2,
            memory_mb: 2048,
            extra_conf: String::new(),
            gres: None,
            min_job_age: 300,
            kill_wait: 2,
            def_mem_per_cpu: 100,
            node_extra: String::new(),
            local_socket: false,
            cgroup_conf: None,
            gres_conf: None,
            agent_env: Vec::new(),
            controller_env: Vec::new(),
            extra_nodes: Vec::new(),
            simulate: None,
            state_tmpfs_bytes: None,
        }
    }
}

impl Cluster {
    pub fn start() -> Cluster {
        Self::start_with(ClusterOptions::default())
    }

    pub fn start_with(options: ClusterOptions) -> Cluster {
        let bin_dir = bin_dir();
        let dir = tempfile::Builder::new()
            .prefix("spur-test-")
            .tempdir()
            .expect("tempdir");
        let node = short_hostname();
        let port = free_port();
        let munged = (!options.local_socket).then(|| {
            spur_auth::testing::PrivateMunged::start(&dir.path().join("munge"))
                .expect("start a private munged (needs the munge package)")
        });
        // Without munged, AuthInfo names a socket nobody listens on, so nothing can quietly use a system munged.
        let munge_socket = munged
            .as_ref()
            .map(|m| m.socket.clone())
            .unwrap_or_else(|| dir.path().join("no-munged.socket"));
        let gres_line = options
            .gres
            .as_ref()
            .map(|g| format!(" Gres={g}"))
            .unwrap_or_default();
        let gres_types = if options.gres.is_some() {
            "GresTypes=gpu\n"
        } else {
            ""
        };
        let extra_node_lines: String = options
            .extra_nodes
            .iter()
            .map(|name| {
                format!(
                    "NodeName={name} NodeAddr=127.0.0.1 CPUs={} {} RealMemory={} State=UNKNOWN\n",
                    options.cpus, options.node_extra, options.memory_mb
                )
            })
            .collect();
        let simulate = options.simulate.map(|n| format!("sim[001-{n:03}]"));
        let node_line = match &simulate {
            Some(hostlist) => format!(
                "NodeName={hostlist} CPUs={} RealMemory={} State=UNKNOWN",
                options.cpus, options.memory_mb
            ),
            None => format!(
                "NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} {node_extra} RealMemory={mem}{gres_line} State=UNKNOWN",
                cpus = options.cpus,
                node_extra = options.node_extra,
                mem = options.memory_mb,
            ),
        };
        let conf_text = format!(
            "ClusterName=spurtest\nSlurmctldHost={node}(127.0.0.1)\nSlurmctldPort={port}\n\
             AuthType=auth/munge\nAuthInfo=socket={munge_socket}\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU={defmem}\n\
             StateSaveLocation={state}\nSlurmdSpoolDir={spool}\nMinJobAge={age}\nKillWait={kill}\n{gres_types}{extra}\n\
             {node_line}\n\
             {extra_node_lines}PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            munge_socket = munge_socket.display(),
            state = dir.path().join("state").display(),
            spool = dir.path().join("spool").display(),
            age = options.min_job_age,
            kill = options.kill_wait,
            defmem = options.def_mem_per_cpu,
            extra = options.extra_conf,
        );
        let conf = dir.path().join("slurm.conf");
        std::fs::write(&conf, conf_text).expect("write slurm.conf");
        if let Some(gres) = &options.gres {
            write_fake_gpus(dir.path(), &node, gres);
        }
        if let Some(text) = &options.gres_conf {
            std::fs::write(dir.path().join("gres.conf"), text).expect("write gres.conf");
        }
        if let Some(text) = &options.cgroup_conf {
            std::fs::write(dir.path().join("cgroup.conf"), text).expect("write cgroup.conf");
        }
        let dir_path = dir.path().to_path_buf();
        let state_mount = options.state_tmpfs_bytes.map(|bytes| {
            let state = dir_path.join("state");
            std::fs::create_dir_all(&state).expect("state directory");
            let status = Command::new("mount")
                .args([
                    "-t",
                    "tmpfs",
                    "-o",
                    &format!("size={bytes},mode=0700"),
                    "tmpfs",
                ])
                .arg(&state)
                .status()
                .expect("run mount");
            assert!(status.success(), "mounting a tmpfs on {}", state.display());
            state
        });
        let mut cluster = Cluster {
            munged,
            url: format!("http://127.0.0.1:{port}"),
            dir,
            conf,
            node,
            controller: None,
            agent: None,
            extra_agents: Vec::new(),
            local_socket: options.local_socket.then(|| dir_path.join("spurctld.sock")),
            bin_dir,
            agent_env: options.agent_env.clone(),
            controller_env: options.controller_env.clone(),
            simulate,
            state_mount,
        };
        cluster.start_controller();
        cluster.start_agent();
        for name in &options.extra_nodes {
            let spool = cluster.dir.path().join(format!("spool-{name}"));
            let child = cluster
                .daemon("spurd")
                .arg("-N")
                .arg(name)
                .arg("--spool")
                .arg(&spool)
                .stdout(cluster.log("spurd-extra.log"))
                .stderr(cluster.log("spurd-extra.log"))
                .spawn()
                .expect("start spurd");
            cluster.extra_agents.push(child);
        }
        cluster.wait_for_node_idle();
        cluster
    }

    fn log(&self, name: &str) -> std::fs::File {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(name))
            .expect("log file")
    }

    /// A daemon's command line, with the local socket named where the cluster uses one.
    fn daemon(&self, name: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join(name));
        cmd.arg("-f").arg(&self.conf).env("SPUR_LOG", "info");
        match &self.local_socket {
            Some(socket) => cmd.env("SPUR_LOCAL_SOCKET", socket),
            None => cmd.env_remove("SPUR_LOCAL_SOCKET"),
        };
        cmd
    }

    pub fn start_controller(&mut self) {
        let child = self
            .daemon("spurctld")
            .envs(self.controller_env.iter().map(|(k, v)| (k, v)))
            .stdout(self.log("spurctld.log"))
            .stderr(self.log("spurctld.log"))
            .spawn()
            .expect("start spurctld");
        self.controller = Some(child);
    }

    pub fn start_agent(&mut self) {
        let child = self
            .daemon("spurd")
            .args(
                self.simulate
                    .iter()
                    .flat_map(|hostlist| ["--simulate", hostlist.as_str()]),
            )
            .envs(self.agent_env.iter().map(|(k, v)| (k, v)))
            .stdout(self.log("spurd.log"))
            .stderr(self.log("spurd.log"))
            .spawn()
            .expect("start spurd");
        self.agent = Some(child);
    }

    pub fn kill_controller(&mut self) {
        if let Some(mut child) = self.controller.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    pub fn kill_agent(&mut self) {
        if let Some(mut child) = self.agent.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Runs a Slurm command (`sbatch`, `squeue`, ...) through the multi-call binary, in `cwd`.
    pub fn run_in(&self, cwd: &Path, command: &str, args: &[&str]) -> Output {
        self.command(cwd, command, args)
            .stdin(Stdio::null())
            .output()
            .expect("run spur")
    }

    /// The command line for a Slurm command, with the environment a user of this cluster has: SLURM_CONF set,
    /// and no variables of the test's own environment that would change what the commands parse.
    pub fn command(&self, cwd: &Path, command: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(self.bin_dir.join("spur"));
        cmd.arg(command).args(args).current_dir(cwd);
        for (key, _) in std::env::vars() {
            if key.starts_with("SLURM_") || key.starts_with("SBATCH_") || key.starts_with("SPUR_") {
                cmd.env_remove(key);
            }
        }
        cmd.env("SLURM_CONF", &self.conf);
        if let Some(socket) = &self.local_socket {
            cmd.env("SPUR_LOCAL_SOCKET", socket);
        }
        cmd
    }

    /// Runs a Slurm command in `cwd` with exactly `env` (plus SLURM_CONF) as its environment, like `env -i`.
    pub fn run_clean(
        &self,
        cwd: &Path,
        command: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        self.run_clean_with_stdin(cwd, command, args, env, None)
    }

    /// `run_clean` with stdin read from a file (`/dev/null` when None).
    pub fn run_clean_with_stdin(
        &self,
        cwd: &Path,
        command: &str,
        args: &[&str],
        env: &[(&str, &str)],
        stdin: Option<&Path>,
    ) -> Output {
        let mut cmd = self.command(cwd, command, args);
        cmd.env_clear().env("SLURM_CONF", &self.conf);
        if let Some(socket) = &self.local_socket {
            cmd.env("SPUR_LOCAL_SOCKET", socket);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let stdin = match stdin {
            Some(path) => Stdio::from(std::fs::File::open(path).expect("stdin file")),
            None => Stdio::null(),
        };
        cmd.stdin(stdin).output().expect("run spur")
    }

    /// A Slurm command through the multi-call binary, set up like [`Cluster::run_in`] in the cluster directory but
    /// not started, for tests that change the environment, feed stdin or signal the process. Variables that would
    /// put srun inside some outer allocation are removed.
    pub fn slurm_command(&self, command: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join("spur"));
        cmd.arg(command)
            .current_dir(self.dir.path())
            .env("SLURM_CONF", &self.conf)
            .env_remove("SPUR_CONTROLLER")
            .env_remove("SLURM_JOB_ID")
            .env_remove("SLURM_JOBID")
            .stdin(Stdio::null());
        cmd
    }

    /// The multi-call binary, for command lines that run Slurm commands inside jobs (`salloc spur srun ...`).
    pub fn spur_bin(&self) -> PathBuf {
        self.bin_dir.join("spur")
    }

    /// `sbatch --parsable ARGS` for a script that finds Spur's srun first in PATH (the machine may have Slurm's
    /// installed); the job's id (a heterogeneous job's leader's).
    pub fn submit_with_spur_srun(&self, args: &[&str]) -> u32 {
        let bin = self.dir.path().join("bin");
        std::fs::create_dir_all(&bin).expect("bin dir");
        let _ = std::os::unix::fs::symlink(self.spur_bin(), bin.join("srun"));
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut all = vec!["--parsable"];
        all.extend_from_slice(args);
        let out = self
            .command(self.dir.path(), "sbatch", &all)
            .env("PATH", path)
            .output()
            .expect("sbatch");
        assert!(out.status.success(), "{out:?}");
        parse_job_id(&text(&out.stdout))
    }

    pub fn run(&self, command: &str, args: &[&str]) -> Output {
        self.run_in(self.dir.path(), command, args)
    }

    /// Runs a command that must succeed and returns its stdout.
    pub fn ok(&self, command: &str, args: &[&str]) -> String {
        let out = self.run(command, args);
        assert!(
            out.status.success(),
            "{command} {args:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.logs()
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn logs(&self) -> String {
        let read = |n: &str| std::fs::read_to_string(self.dir.path().join(n)).unwrap_or_default();
        format!(
            "--- spurctld.log ---\n{}\n--- spurd.log ---\n{}",
            read("spurctld.log"),
            read("spurd.log")
        )
    }

    /// Submits a script text with sbatch --parsable and returns the job id.
    pub fn submit(&self, script: &str, args: &[&str]) -> u32 {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let path = self
            .dir
            .path()
            .join(format!("job-{}.sh", NEXT.fetch_add(1, Ordering::Relaxed)));
        std::fs::write(&path, script).expect("write script");
        let path_text = path.display().to_string();
        let mut all: Vec<&str> = vec!["--parsable"];
        all.extend_from_slice(args);
        all.push(&path_text);
        let out = self.ok("sbatch", &all);
        out.trim()
            .split(';')
            .next()
            .unwrap_or("")
            .parse()
            .expect("job id")
    }

    pub fn job_field(&self, job_id: u32, field: &str) -> String {
        field_of(
            &self.ok("scontrol", &["show", "job", "-o", &job_id.to_string()]),
            field,
        )
    }

    pub fn wait_for_state(&self, job_id: u32, wanted: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let state = self.job_field(job_id, "JobState");
            if state == wanted {
                return state;
            }
            if Instant::now() > deadline {
                panic!(
                    "job {job_id} is {state}, expected {wanted}\n{}",
                    self.logs()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Writes a file (a script, usually) into the cluster's directory and returns its path.
    pub fn write_file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, text).expect("write file");
        path
    }

    /// A fresh, empty directory to submit from, so that output files of different tests never mix.
    pub fn subdir(&self, name: &str) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::create_dir_all(&path).expect("create dir");
        path
    }

    /// Runs `sbatch --parsable ARGS` in `cwd` and returns the job id.
    pub fn sbatch_in(&self, cwd: &Path, args: &[&str]) -> u32 {
        let mut all: Vec<&str> = vec!["--parsable"];
        all.extend_from_slice(args);
        let out = self.run_in(cwd, "sbatch", &all);
        assert!(
            out.status.success(),
            "sbatch {all:?} failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.logs()
        );
        parse_job_id(&String::from_utf8_lossy(&out.stdout))
    }

    /// `sbatch --parsable ARGS --wrap=CMD` in the cluster's directory.
    pub fn wrap(&self, cmd: &str, args: &[&str]) -> u32 {
        let wrap = format!("--wrap={cmd}");
        let mut all: Vec<&str> = args.to_vec();
        all.push(&wrap);
        self.sbatch_in(self.dir.path(), &all)
    }

    /// The job's state and the whole `scontrol show job -o` line, or None once the controller forgot it.
    pub fn show_job(&self, job_id: u32) -> Option<String> {
        let out = self.run("scontrol", &["show", "job", "-o", &job_id.to_string()]);
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    }

    /// Waits until the job reaches a state where it will not run again (COMPLETED, FAILED, CANCELLED, TIMEOUT,
    /// ...) and is no longer completing; returns that state.
    pub fn wait_for_end(&self, job_id: u32, timeout: Duration) -> String {
        let mut last = String::new();
        let found = self.wait_until(timeout, || {
            last = field_of(&self.show_job(job_id).unwrap_or_default(), "JobState");
            TERMINAL.contains(&last.as_str())
        });
        if !found {
            panic!(
                "job {job_id} did not end within {timeout:?}: {last}\n{}\n{}",
                self.show_job(job_id).unwrap_or_default(),
                self.logs()
            );
        }
        last
    }

    /// Polls `check` every 100 ms until it holds or `timeout` passes; says whether it held.
    pub fn wait_until(&self, timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        loop {
            if check() {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Like `wait_until`, but a timeout fails the test with `what` and the daemons' logs.
    pub fn expect_within(&self, timeout: Duration, what: &str, check: impl FnMut() -> bool) {
        if !self.wait_until(timeout, check) {
            panic!(
                "timed out after {timeout:?} waiting for {what}\n{}",
                self.logs()
            );
        }
    }

    /// `squeue -h -o FORMAT ARGS...` output, trimmed lines.
    pub fn squeue(&self, format: &str, args: &[&str]) -> Vec<String> {
        let mut all = vec!["-h", "-o", format];
        all.extend_from_slice(args);
        self.ok("squeue", &all)
            .lines()
            .map(|l| l.trim_end().to_string())
            .collect()
    }

    /// Waits until a file exists and its contents satisfy `check`; returns the contents.
    pub fn wait_for_file(&self, path: &Path, check: impl Fn(&str) -> bool) -> String {
        let mut text = String::new();
        let found = self.wait_until(LONG, || {
            text = std::fs::read_to_string(path).unwrap_or_default();
            path.exists() && check(&text)
        });
        if !found {
            panic!(
                "{} never had the expected contents; it has:\n{text}\n{}",
                path.display(),
                self.logs()
            );
        }
        text
    }

    /// Restarts spurctld after a crash: waits until it answers again.
    pub fn restart_controller(&mut self) {
        self.start_controller();
        self.expect_within(LONG, "spurctld to answer after a restart", || {
            self.run("scontrol", &["ping"]).status.success()
        });
    }

    /// Kills a daemon the hard way (SIGKILL), as a crash would.
    pub fn crash_controller(&mut self) {
        self.kill_controller();
    }

    pub fn wait_for_node_idle(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let out = self.run("sinfo", &["-h", "-o", "%T"]);
            if String::from_utf8_lossy(&out.stdout).trim() == "idle" {
                return;
            }
            if Instant::now() > deadline {
                panic!("node never became idle: {:?}\n{}", out, self.logs());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Generous limits: the machines that run these tests are small and shared.
pub const LONG: Duration = Duration::from_secs(60);
pub const SHORT: Duration = Duration::from_secs(20);

/// Job states from which a job does not run again by itself.
pub const TERMINAL: &[&str] = &[
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "PREEMPTED",
    "BOOT_FAIL",
    "DEADLINE",
];

/// The job id of `sbatch --parsable` output (`N` or `N;cluster`).
pub fn parse_job_id(stdout: &str) -> u32 {
    stdout
        .trim()
        .split(';')
        .next()
        .unwrap_or("")
        .parse()
        .unwrap_or_else(|_| panic!("not a job id: {stdout:?}"))
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The name of the user running the tests (the test clusters' jobs run as them).
#[allow(dead_code)]
pub fn current_user_name() -> String {
    let out = std::process::Command::new("id")
        .arg("-un")
        .output()
        .expect("id -un");
    text(&out.stdout).trim().to_string()
}

/// The value of `Key=` in a `scontrol show ... -o` line (up to the next space).
pub fn field_of(line: &str, field: &str) -> String {
    let key = format!("{field}=");
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&key).map(str::to_string))
        .unwrap_or_default()
}

/// Character devices like real GPUs (major 195), so GRES binding sees files as Slurm would.
fn write_fake_gpus(dir: &Path, node: &str, gres: &str) {
    let count: u32 = gres
        .rsplit(':')
        .next()
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let dev = dir.join("dev");
    std::fs::create_dir_all(&dev).expect("dev dir");
    let mut lines = String::from("AutoDetect=off\n");
    let parts: Vec<&str> = gres.split(':').collect();
    let gpu_type = if parts.len() == 3 {
        format!(" Type={}", parts[1])
    } else {
        String::new()
    };
    for i in 0..count {
        let path = dev.join(format!("nvidia{i}"));
        let _ = Command::new("mknod")
            .arg(&path)
            .args(["c", "195", &i.to_string()])
            .status();
        lines.push_str(&format!(
            "NodeName={node} Name=gpu{gpu_type} File={}\n",
            path.display()
        ));
    }
    std::fs::write(dir.join("gres.conf"), lines).expect("gres.conf");
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.kill_agent();
        for mut child in std::mem::take(&mut self.extra_agents) {
            let _ = child.kill();
            let _ = child.wait();
        }
        self.kill_controller();
        if let Some(state) = self.state_mount.take() {
            let _ = Command::new("umount").arg(&state).status();
        }
        // Supervisors outlive the agent by design: stop the ones this test started, and their jobs.
        let mut pids = Vec::new();
        let spool = self.dir.path().join("spool");
        if let Ok(entries) = std::fs::read_dir(&spool) {
            for entry in entries.flatten() {
                if let Ok(text) = std::fs::read_to_string(entry.path().join("started.json")) {
                    let started: serde_json::Value =
                        serde_json::from_str(&text).unwrap_or_default();
                    if let Some(pgid) = started["pid"].as_i64().and_then(|p| i32::try_from(p).ok())
                    {
                        signal(-pgid, libc::SIGKILL);
                    }
                }
                if let Ok(pid) = std::fs::read_to_string(entry.path().join("stepd.pid")) {
                    if let Ok(pid) = pid.trim().parse::<i32>() {
                        signal(pid, libc::SIGKILL);
                        pids.push(pid);
                    }
                }
            }
        }
        // A supervisor that is still dying may write into the spool while the directory goes away, which
        // leaves it behind: wait for them, then remove it (TempDir ignores errors).
        let deadline = Instant::now() + Duration::from_secs(5);
        while pids.iter().any(|&pid| signal(pid, 0)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        for _ in 0..5 {
            if std::fs::remove_dir_all(self.dir.path()).is_ok() || !self.dir.path().exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// `kill(pid, sig)`; says whether it was delivered (with 0: whether the process still exists).
fn signal(pid: i32, sig: i32) -> bool {
    // SAFETY: kill(2) has no memory-safety preconditions; the ids come from this test's own spool.
    unsafe { libc::kill(pid, sig) == 0 }
}

/// Runs `command` on a new pseudo-terminal (its stdin, stdout and stderr), types `input` into it and collects
/// what the terminal shows until the command ends; returns that and the exit code.
#[allow(dead_code)]
pub fn drive_pty(mut command: Command, input: &[u8]) -> (String, Option<i32>) {
    use std::io::{Read, Write};
    let pair = nix::pty::openpty(None, None).expect("openpty");
    let slave = |fd: &std::os::fd::OwnedFd| Stdio::from(fd.try_clone().expect("dup"));
    let mut child = command
        .stdin(slave(&pair.slave))
        .stdout(slave(&pair.slave))
        .stderr(slave(&pair.slave))
        .spawn()
        .expect("start the command");
    // The command still holds its copies of the slave side; the terminal closes only when none is left.
    drop(command);
    drop(pair.slave);
    let mut master = std::fs::File::from(pair.master);
    master.write_all(input).expect("type");
    // Read until the terminal closes (EIO).
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 1024];
        while let Ok(n) = master.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break child.wait().expect("wait");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (reader.join().expect("reader"), status.code())
}
