//! Changing a Raft group of controllers while it serves, as real processes on their own loopback addresses
//! (127.0.0.20-29, ports 7860-7879): controllers added with `spurctld --join` and `spur admin controller add`, the
//! original leader removed, all under a steady sbatch load that must lose and duplicate nothing; a leader cut off
//! from the others (paused followers) stepping down within a second; the same with a real network partition (in a
//! network namespace of the test's own, where routing rules cut the leader's address off from the followers'
//! while agents and clients still reach everyone), where agents must move to the new leader; and a follower whose
//! StateSaveLocation was wiped rejoining without initialising the group again.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, HashMap};
use std::ops::RangeInclusive;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{bin_dir, field_of, short_hostname, text, TERMINAL};
use spur_core::wire::pb;

struct Group {
    _munged: spur_auth::testing::PrivateMunged,
    dir: tempfile::TempDir,
    conf: PathBuf,
    port: u16,
    /// The SlurmctldHost lines: name and address.
    listed: Vec<(String, String)>,
    /// Running controllers by name: address and process.
    running: BTreeMap<String, (String, Child)>,
    agent: Option<Child>,
    bin_dir: PathBuf,
}

/// A port of `ports` free on every address in `ips` (each controller binds its own address). Each test has its
/// own range, so tests running at once never pick the same one.
fn free_port(ips: &[&str], ports: RangeInclusive<u16>) -> u16 {
    for port in ports.clone() {
        if ips
            .iter()
            .all(|ip| std::net::TcpListener::bind((*ip, port)).is_ok())
        {
            return port;
        }
    }
    panic!("no port of {ports:?} free on all of {ips:?}");
}

impl Group {
    /// A group of the SlurmctldHost controllers `ctl1..` at `listed`, every one started, and one spurd.
    /// `extra` are the addresses of controllers the test adds later (the port must be free there too).
    fn start(listed: &[&str], extra: &[&str], ports: RangeInclusive<u16>) -> Group {
        let bin_dir = bin_dir();
        let dir = tempfile::Builder::new()
            .prefix("spur-ha-members-")
            .tempdir()
            .expect("tempdir");
        let munged = spur_auth::testing::PrivateMunged::start(&dir.path().join("munge"))
            .expect("start a private munged (needs the munge package)");
        let all: Vec<&str> = listed.iter().chain(extra).copied().collect();
        let port = free_port(&all, ports);
        let node = short_hostname();
        let listed: Vec<(String, String)> = listed
            .iter()
            .enumerate()
            .map(|(i, ip)| (format!("ctl{}", i + 1), ip.to_string()))
            .collect();
        let hosts: String = listed
            .iter()
            .map(|(name, ip)| format!("SlurmctldHost={name}({ip})\n"))
            .collect();
        let conf_text = format!(
            "ClusterName=spurham\n{hosts}SlurmctldPort={port}\n\
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
        let mut group = Group {
            _munged: munged,
            dir,
            conf,
            port,
            listed,
            running: BTreeMap::new(),
            agent: None,
            bin_dir,
        };
        for (name, _) in group.listed.clone() {
            group.start_listed(&name);
        }
        let agent = group
            .daemon("spurd", "spurd.log")
            .spawn()
            .expect("start spurd");
        group.agent = Some(agent);
        group
    }

    fn log(&self, name: &str) -> std::fs::File {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join(name))
            .expect("log file")
    }

    fn daemon(&self, name: &str, log: &str) -> Command {
        let mut cmd = Command::new(self.bin_dir.join(name));
        cmd.arg("-f")
            .arg(&self.conf)
            .env("SPUR_LOG", "info,openraft=warn")
            .env_remove("SPUR_LOCAL_SOCKET")
            .env_remove("SPUR_CONTROLLER")
            .env_remove("SPUR_CONTROLLER_ID")
            .stdout(self.log(log))
            .stderr(self.log(log));
        cmd
    }

    fn start_listed(&mut self, name: &str) {
        let ip = self
            .listed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, ip)| ip.clone())
            .expect("a SlurmctldHost name");
        let child = self
            .daemon("spurctld", &format!("{name}.log"))
            .env("SPUR_CONTROLLER_ID", name)
            .spawn()
            .expect("start spurctld");
        self.running.insert(name.to_string(), (ip, child));
    }

    /// `spurctld --join NAME=IP:PORT`: a controller that is not a SlurmctldHost line.
    fn start_joining(&mut self, name: &str, ip: &str) {
        let child = self
            .daemon("spurctld", &format!("{name}.log"))
            .arg("--join")
            .arg(format!("{name}={ip}:{}", self.port))
            .spawn()
            .expect("start spurctld --join");
        self.running
            .insert(name.to_string(), (ip.to_string(), child));
    }

    fn kill(&mut self, name: &str) {
        if let Some((_, mut child)) = self.running.remove(name) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn signal(&self, name: &str, signal: i32) {
        if let Some((_, child)) = self.running.get(name) {
            let pid = i32::try_from(child.id()).expect("pid");
            // SAFETY: plain kill(2) on a child this test started.
            let _ = unsafe { libc::kill(pid, signal) };
        }
    }

    /// Whether the controller at `ip` says it leads (None: no answer).
    fn pings_as_leader(&self, ip: &str) -> Option<bool> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            let url = format!("http://{ip}:{}", self.port);
            let endpoint = tonic::transport::Endpoint::from_shared(url)
                .ok()?
                .connect_timeout(Duration::from_millis(500))
                .timeout(Duration::from_millis(500));
            let channel = endpoint.connect().await.ok()?;
            let mut client = pb::controller_client::ControllerClient::new(channel);
            let reply = client.ping(pb::PingRequest {}).await.ok()?;
            Some(reply.into_inner().leader)
        })
    }

    /// Which running controller leads.
    fn leader(&self) -> Option<String> {
        self.running
            .iter()
            .find(|(_, (ip, _))| self.pings_as_leader(ip) == Some(true))
            .map(|(name, _)| name.clone())
    }

    fn wait_for_leader(&self, not: Option<&str>) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            match self.leader() {
                Some(leader) if Some(leader.as_str()) != not => return leader,
                _ => {}
            }
            assert!(Instant::now() < deadline, "no leader\n{}", self.logs());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn command(dir: &Path, conf: &Path, bin_dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin_dir.join("spur"));
        cmd.args(args).current_dir(dir).stdin(Stdio::null());
        for (key, _) in std::env::vars() {
            if key.starts_with("SLURM_") || key.starts_with("SBATCH_") || key.starts_with("SPUR_") {
                cmd.env_remove(key);
            }
        }
        cmd.env("SLURM_CONF", conf);
        cmd
    }

    /// `spur ARGS...`, finding the controllers through slurm.conf as a user's command would.
    fn run(&self, args: &[&str]) -> Output {
        Self::command(self.dir.path(), &self.conf, &self.bin_dir, args)
            .output()
            .expect("run spur")
    }

    /// `spur ARGS...` against the one controller at `ip` (its own replica answers reads).
    fn run_at(&self, ip: &str, args: &[&str]) -> Output {
        Self::command(self.dir.path(), &self.conf, &self.bin_dir, args)
            .env("SPUR_CONTROLLER", format!("{ip}:{}", self.port))
            .output()
            .expect("run spur")
    }

    fn admin(&self, args: &[&str]) -> Output {
        let mut all = vec!["admin", "controller"];
        all.extend_from_slice(args);
        self.run(&all)
    }

    fn wait_for_node_idle(&self) {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let out = self.run(&["sinfo", "-h", "-o", "%T"]);
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

    /// Every job the controller at `ip` (or whichever answers, without one) knows: its `scontrol -o show job`
    /// line, by id.
    fn jobs(&self, ip: Option<&str>) -> BTreeMap<u32, String> {
        let args = ["scontrol", "-o", "show", "job"];
        let out = match ip {
            Some(ip) => self.run_at(ip, &args),
            None => self.run(&args),
        };
        text(&out.stdout)
            .lines()
            .filter_map(|line| Some((field_of(line, "JobId").parse().ok()?, line.to_string())))
            .collect()
    }

    /// All jobs, once every one has ended.
    fn finished_jobs(&self) -> BTreeMap<u32, String> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let jobs = self.jobs(None);
            let unfinished: Vec<u32> = jobs
                .iter()
                .filter(|(_, line)| !TERMINAL.contains(&field_of(line, "JobState").as_str()))
                .map(|(id, _)| *id)
                .collect();
            if unfinished.is_empty() && !jobs.is_empty() {
                return jobs;
            }
            assert!(
                Instant::now() < deadline,
                "jobs never finished: {unfinished:?}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    fn log_text(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(format!("{name}.log"))).unwrap_or_default()
    }

    fn logs(&self) -> String {
        let mut names: Vec<String> = self.listed.iter().map(|(n, _)| n.clone()).collect();
        names.extend(self.running.keys().cloned());
        names.sort();
        names.dedup();
        names.push("spurd".into());
        let mut all = String::new();
        for name in names {
            let log = self.log_text(&name);
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            all.push_str(&format!("--- {name}.log (last lines) ---\n"));
            for line in tail.into_iter().rev() {
                all.push_str(line);
                all.push('\n');
            }
        }
        all
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        let names: Vec<String> = self.running.keys().cloned().collect();
        for name in names {
            // A paused controller must be woken to die promptly.
            self.signal(&name, libc::SIGCONT);
            self.kill(&name);
        }
        if let Some(mut agent) = self.agent.take() {
            let _ = agent.kill();
            let _ = agent.wait();
        }
    }
}

/// One submission the load generator made: the exit code its job must end with, and the id if acknowledged.
struct Submitted {
    name: String,
    exit_code: u32,
    acknowledged: Option<u32>,
}

/// Submits short jobs through slurm.conf's controllers until stopped.
struct Load {
    submitted: Arc<Mutex<Vec<Submitted>>>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Load {
    fn start(group: &Group) -> Load {
        let submitted = Arc::new(Mutex::new(Vec::<Submitted>::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (dir, conf, bin) = (
            group.dir.path().to_path_buf(),
            group.conf.clone(),
            group.bin_dir.clone(),
        );
        let thread = {
            let (submitted, stop) = (submitted.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut n = 0u32;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let exit_code = n % 4;
                    let name = format!("hm-{n}");
                    let script = format!("sleep 0.2; exit {exit_code}");
                    let args = [
                        "sbatch",
                        "--parsable",
                        "-J",
                        &name,
                        "-o",
                        "/dev/null",
                        "--wrap",
                        &script,
                    ];
                    let out = Group::command(&dir, &conf, &bin, &args)
                        .output()
                        .expect("run sbatch");
                    let acknowledged = out
                        .status
                        .success()
                        .then(|| text(&out.stdout).trim().split(';').next()?.parse().ok())
                        .flatten();
                    if let Ok(mut all) = submitted.lock() {
                        all.push(Submitted {
                            name,
                            exit_code,
                            acknowledged,
                        });
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
            })
        };
        Load {
            submitted,
            stop,
            thread,
        }
    }

    /// Stops the load once it has had enough submissions acknowledged to check (a loaded machine may get
    /// through fewer in the scenario's own time), or after a minute.
    fn finish(self) -> Vec<Submitted> {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline && self.acknowledged() < MIN_ACKNOWLEDGED {
            std::thread::sleep(Duration::from_millis(100));
        }
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().expect("load generator");
        std::mem::take(&mut *self.submitted.lock().expect("submissions"))
    }
}

/// Acknowledged submissions a scenario needs before its exactly-once check means something.
const MIN_ACKNOWLEDGED: usize = 10;

impl Load {
    fn acknowledged(&self) -> usize {
        self.submitted
            .lock()
            .map(|all| all.iter().filter(|s| s.acknowledged.is_some()).count())
            .unwrap_or(0)
    }
}

/// Every acknowledged submission exists exactly once under the id it was given, with the exit code its script
/// chose; no submission exists twice; no id was given twice.
fn check_exactly_once(group: &Group, submitted: &[Submitted]) {
    let acknowledged: Vec<&Submitted> = submitted
        .iter()
        .filter(|s| s.acknowledged.is_some())
        .collect();
    assert!(
        acknowledged.len() >= MIN_ACKNOWLEDGED,
        "too few submissions acknowledged ({} of {})\n{}",
        acknowledged.len(),
        submitted.len(),
        group.logs()
    );
    let mut by_id: HashMap<u32, &str> = HashMap::new();
    for s in &acknowledged {
        let id = s.acknowledged.unwrap_or_default();
        if let Some(other) = by_id.insert(id, &s.name) {
            panic!("job id {id} acknowledged for both {other} and {}", s.name);
        }
    }
    let jobs = group.finished_jobs();
    let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
    for (id, line) in &jobs {
        by_name
            .entry(field_of(line, "JobName"))
            .or_default()
            .push(*id);
    }
    for s in submitted {
        let ids = by_name.get(&s.name).cloned().unwrap_or_default();
        assert!(
            ids.len() <= 1,
            "{} was created {} times: {ids:?}",
            s.name,
            ids.len()
        );
        let Some(id) = s.acknowledged else { continue };
        assert_eq!(
            ids,
            vec![id],
            "acknowledged {} (job {id}) is missing",
            s.name
        );
        let line = &jobs[&id];
        let expected_state = if s.exit_code == 0 {
            "COMPLETED"
        } else {
            "FAILED"
        };
        assert_eq!(
            (field_of(line, "JobState"), field_of(line, "ExitCode")),
            (expected_state.to_string(), format!("{}:0", s.exit_code)),
            "job {id} ({})",
            s.name
        );
    }
    eprintln!(
        "{} submissions, {} acknowledged, {} jobs",
        submitted.len(),
        acknowledged.len(),
        jobs.len()
    );
}

fn assert_ok(out: &Output, what: &str, group: &Group) -> String {
    assert!(
        out.status.success(),
        "{what}: {}{}\n{}",
        text(&out.stdout),
        text(&out.stderr),
        group.logs()
    );
    text(&out.stdout)
}

#[test]
fn controllers_added_and_removed_under_submit_load_lose_nothing() {
    let started = Instant::now();
    let mut group = Group::start(
        &["127.0.0.20", "127.0.0.21", "127.0.0.22"],
        &["127.0.0.23", "127.0.0.24"],
        7860..=7865,
    );
    let first_leader = group.wait_for_leader(None);
    group.wait_for_node_idle();
    let listed = assert_ok(&group.admin(&["list"]), "list", &group);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    assert!(
        listed.contains(&format!("Controller={first_leader} ")),
        "{listed}"
    );

    // Only an administrator may change the group.
    let add4 = format!("ctl4=127.0.0.23:{}", group.port);
    {
        use std::os::unix::fs::PermissionsExt;
        let open = std::fs::Permissions::from_mode(0o755);
        std::fs::set_permissions(group.dir.path(), open).expect("chmod");
    }
    let refused = Group::command(
        group.dir.path(),
        &group.conf,
        &group.bin_dir,
        &["admin", "controller", "add", &add4],
    )
    .uid(65534)
    .gid(65534)
    .output()
    .expect("run spur as nobody");
    assert!(!refused.status.success(), "a user added a controller");
    assert!(
        text(&refused.stderr).contains("only an administrator"),
        "{}",
        text(&refused.stderr)
    );

    let load = Load::start(&group);
    std::thread::sleep(Duration::from_millis(1000));
    // ctl4 waits to be added; ctl5 is added before it even starts (the addition then waits for it to catch up).
    group.start_joining("ctl4", "127.0.0.23");
    std::thread::sleep(Duration::from_millis(500));
    let t = Instant::now();
    let after = assert_ok(&group.admin(&["add", &add4]), "add ctl4", &group);
    eprintln!("ctl4 added in {:?}", t.elapsed());
    assert!(
        after
            .lines()
            .any(|l| l.contains("Controller=ctl4 ") && !l.contains("Role=learner")),
        "{after}"
    );
    let add5 = format!("ctl5=127.0.0.24:{}", group.port);
    let adding5 = {
        let mut cmd = Group::command(
            group.dir.path(),
            &group.conf,
            &group.bin_dir,
            &["admin", "controller", "add", &add5],
        );
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        cmd.spawn().expect("spur admin controller add ctl5")
    };
    std::thread::sleep(Duration::from_millis(1000));
    group.start_joining("ctl5", "127.0.0.24");
    let out5 = adding5.wait_with_output().expect("add ctl5");
    assert_ok(&out5, "add ctl5", &group);
    let listed = assert_ok(&group.admin(&["list"]), "list", &group);
    assert_eq!(listed.lines().count(), 5, "{listed}");
    assert!(!listed.contains("Role=learner"), "{listed}");
    // An addition repeated is answered with the group as it is.
    assert_ok(&group.admin(&["add", &add4]), "add ctl4 again", &group);

    // The original leader leaves the group: it steps aside and exits; the others elect a leader among them.
    std::thread::sleep(Duration::from_millis(1000));
    let leader = group.wait_for_leader(None);
    assert_eq!(
        leader,
        first_leader,
        "leadership moved on its own\n{}",
        group.logs()
    );
    let t = Instant::now();
    let after = assert_ok(&group.admin(&["remove", &first_leader]), "remove", &group);
    assert!(
        !after.contains(&format!("Controller={first_leader} ")),
        "{after}"
    );
    let new_leader = group.wait_for_leader(Some(&first_leader));
    eprintln!(
        "{first_leader} removed, {new_leader} leads after {:?}",
        t.elapsed()
    );
    wait_for_exit(&mut group, &first_leader);
    // The same removal again (as a command retried on another controller after the removed leader stopped
    // before it answered) is answered with the group; a name that was never a member is refused.
    let again = assert_ok(
        &group.admin(&["remove", &first_leader]),
        "remove again",
        &group,
    );
    assert!(
        !again.contains(&format!("Controller={first_leader} ")),
        "{again}"
    );
    let unknown = group.admin(&["remove", "ctl9"]);
    assert!(!unknown.status.success());
    assert_eq!(
        text(&unknown.stderr),
        "spur admin: no controller ctl9 in the group\n"
    );
    // spurd knows only the SlurmctldHost controllers: with an added controller leading, it must follow the leader
    // a follower names when it turns the session away. Leaders among the listed ones are killed (and restarted)
    // until an added one leads.
    let mut leader = group.wait_for_leader(None);
    for _ in 0..8 {
        if leader == "ctl4" || leader == "ctl5" {
            break;
        }
        group.kill(&leader);
        let next = group.wait_for_leader(Some(&leader));
        group.start_listed(&leader);
        leader = next;
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!("{leader} leads");
    // A joined controller restarts with the id it recorded.
    std::thread::sleep(Duration::from_millis(1000));
    group.kill("ctl5");
    std::thread::sleep(Duration::from_millis(500));
    group.start_joining("ctl5", "127.0.0.24");
    std::thread::sleep(Duration::from_millis(2000));
    let submitted = load.finish();

    let listed = assert_ok(&group.admin(&["list"]), "list", &group);
    assert_eq!(listed.lines().count(), 4, "{listed}");
    check_exactly_once(&group, &submitted);
    eprintln!("{listed}");
    // Every remaining controller holds the same jobs.
    let reference = group.jobs(None);
    for (name, (ip, _)) in &group.running {
        let deadline = Instant::now() + Duration::from_secs(10);
        while group.jobs(Some(ip)).len() != reference.len() {
            assert!(
                Instant::now() < deadline,
                "{name} never caught up\n{}",
                group.logs()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    // A follower removed exits too.
    let leader = group.wait_for_leader(None);
    let follower = ["ctl5", "ctl4"]
        .into_iter()
        .find(|n| *n != leader)
        .expect("a follower");
    assert_ok(
        &group.admin(&["remove", follower]),
        "remove a follower",
        &group,
    );
    wait_for_exit(&mut group, follower);
    let listed = assert_ok(&group.admin(&["list"]), "list", &group);
    assert_eq!(listed.lines().count(), 3, "{listed}");
    eprintln!("membership test took {:?}", started.elapsed());
}

/// A controller removed from the group exits by itself.
fn wait_for_exit(group: &mut Group, name: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, child) = group.running.get_mut(name).expect("running");
        if child.try_wait().expect("wait").is_some() {
            group.running.remove(name);
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the removed controller {name} did not exit\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_leader_cut_off_from_the_others_steps_down_within_a_second() {
    let group = Group::start(
        &["127.0.0.25", "127.0.0.26", "127.0.0.27"],
        &[],
        7866..=7871,
    );
    let leader = group.wait_for_leader(None);
    group.wait_for_node_idle();
    let leader_ip = group.running[&leader].0.clone();
    let followers: Vec<String> = group
        .running
        .keys()
        .filter(|n| **n != leader)
        .cloned()
        .collect();
    // Paused followers answer nothing: to the leader they are as lost as behind a network partition.
    std::thread::sleep(Duration::from_millis(500));
    for f in &followers {
        group.signal(f, libc::SIGSTOP);
    }
    let cut = Instant::now();
    loop {
        if group.pings_as_leader(&leader_ip) == Some(false) {
            break;
        }
        assert!(
            cut.elapsed() < Duration::from_secs(3),
            "{leader} still leads without a majority\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let stepped_down = cut.elapsed();
    eprintln!("{leader} stepped down {stepped_down:?} after losing its majority");
    assert!(
        stepped_down < Duration::from_millis(1500),
        "step-down took {stepped_down:?}"
    );
    // It closed its agent sessions, so agents look for the new leader.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !group
        .log_text(&leader)
        .contains("no longer leads; closing agent sessions")
    {
        assert!(Instant::now() < deadline, "sessions kept\n{}", group.logs());
        std::thread::sleep(Duration::from_millis(50));
    }
    // Writes there wait for a leader instead of committing nothing.
    let t = Instant::now();
    let out = group.run_at(&leader_ip, &["sbatch", "--parsable", "--wrap", "true"]);
    assert!(
        !out.status.success(),
        "a leaderless controller accepted a job"
    );
    eprintln!(
        "submit refused after {:?}: {}",
        t.elapsed(),
        text(&out.stderr).trim()
    );

    for f in &followers {
        group.signal(f, libc::SIGCONT);
    }
    let leader = group.wait_for_leader(None);
    eprintln!("{leader} leads once the followers are back");
    let out = group.run(&[
        "sbatch",
        "--parsable",
        "-o",
        "/dev/null",
        "--wrap",
        "exit 3",
    ]);
    let id = assert_ok(&out, "sbatch", &group);
    let id: u32 = id.trim().parse().expect("job id");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let line = group.jobs(None).get(&id).cloned().unwrap_or_default();
        if field_of(&line, "JobState") == "FAILED" {
            assert_eq!(field_of(&line, "ExitCode"), "3:0");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "job {id}: {line}\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_controller_whose_disk_was_wiped_rejoins_and_receives_the_state() {
    let mut group = Group::start(
        &["127.0.0.20", "127.0.0.21", "127.0.0.22"],
        &[],
        7872..=7879,
    );
    let leader = group.wait_for_leader(None);
    group.wait_for_node_idle();
    for n in 0..8 {
        let name = format!("before-{n}");
        let out = group.run(&[
            "sbatch",
            "--parsable",
            "-J",
            &name,
            "-o",
            "/dev/null",
            "--wrap",
            "true",
        ]);
        assert_ok(&out, "sbatch", &group);
    }
    let before = summary(&group.finished_jobs());
    assert_eq!(before.len(), 8);

    let wiped = group
        .running
        .keys()
        .find(|n| **n != leader)
        .cloned()
        .expect("a follower");
    let wiped_ip = group.running[&wiped].0.clone();
    group.kill(&wiped);
    let raft_dir = group.dir.path().join("state").join(format!("raft-{wiped}"));
    assert!(
        raft_dir.join("raft.redb").exists(),
        "no store at {}",
        raft_dir.display()
    );
    std::fs::remove_dir_all(&raft_dir).expect("wipe the follower's state");
    group.start_listed(&wiped);
    // Its replica is rebuilt from the leader, not from an initialisation of its own.
    let t = Instant::now();
    let deadline = Instant::now() + Duration::from_secs(20);
    while summary(&group.jobs(Some(&wiped_ip))) != before {
        assert!(
            Instant::now() < deadline,
            "{wiped} never received the state\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "{wiped} holds the state {:?} after restarting empty",
        t.elapsed()
    );
    let log = group.log_text(&wiped);
    assert!(log.contains("store is empty but the group exists"), "{log}");
    assert_eq!(
        std::fs::read_to_string(raft_dir.join("node-id"))
            .expect("node-id")
            .trim(),
        wiped.trim_start_matches("ctl")
    );

    // The rejoined controller is a full member: with the leader gone, it and the third elect a leader.
    group.kill(&leader);
    let new_leader = group.wait_for_leader(None);
    eprintln!("{new_leader} leads after {leader} was killed");
    let out = group.run(&[
        "sbatch",
        "--parsable",
        "-J",
        "after",
        "-o",
        "/dev/null",
        "--wrap",
        "true",
    ]);
    assert_ok(&out, "sbatch after the leader's loss", &group);
    let after = summary(&group.finished_jobs());
    assert_eq!(after.len(), 9, "{after:?}");
    for (id, job) in &before {
        assert_eq!(after.get(id), Some(job));
    }
}

/// What a job listing must agree on between replicas: each job's name, state and exit code.
fn summary(jobs: &BTreeMap<u32, String>) -> BTreeMap<u32, (String, String, String)> {
    jobs.iter()
        .map(|(id, line)| {
            let job = (
                field_of(line, "JobName"),
                field_of(line, "JobState"),
                field_of(line, "ExitCode"),
            );
            (*id, job)
        })
        .collect()
}

/// Runs `ip ARGS...` (in the test thread's network namespace), failing the test if it fails.
fn ip(args: &[&str]) {
    let out = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        out.status.success(),
        "ip {}: {}",
        args.join(" "),
        text(&out.stderr)
    );
}

/// Moves the calling test thread (and every process and thread it starts from now on) into a network namespace
/// of its own, with loopback up and routing rules able to come before local delivery. The namespace goes away
/// with its last process, so nothing needs cleaning up on the host. False where that is not allowed (not root).
fn private_network() -> bool {
    // SAFETY: unshare(2) affects only the calling thread's namespaces.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return false;
    }
    ip(&["link", "set", "lo", "up"]);
    // Local delivery is rule 0, before any other: move it behind the partition rules.
    ip(&["rule", "add", "pref", "32765", "lookup", "local"]);
    ip(&["rule", "del", "pref", "0"]);
    true
}

/// Cuts (or heals) traffic between controller address `a` and each of `others`, both ways. Controllers call their
/// peers from their own address; agents and clients call from 127.0.0.1, so they still reach everyone.
fn partition(a: &str, others: &[String], cut: bool) {
    let verb = if cut { "add" } else { "del" };
    for b in others {
        for (from, to) in [(a, b.as_str()), (b.as_str(), a)] {
            ip(&[
                "rule",
                verb,
                "pref",
                "100",
                "from",
                from,
                "to",
                to,
                "blackhole",
            ]);
        }
    }
}

#[test]
fn a_partitioned_leader_steps_down_and_agents_follow_the_new_one() {
    if !nix::unistd::geteuid().is_root() || !private_network() {
        eprintln!("skipped: needs root for a network namespace of its own");
        return;
    }
    let started = Instant::now();
    let group = Group::start(
        &["127.0.0.25", "127.0.0.26", "127.0.0.27"],
        &[],
        7866..=7871,
    );
    let old = group.wait_for_leader(None);
    group.wait_for_node_idle();
    let old_ip = group.running[&old].0.clone();
    let others: Vec<String> = group
        .running
        .iter()
        .filter(|(n, _)| **n != old)
        .map(|(_, (ip, _))| ip.clone())
        .collect();
    let load = Load::start(&group);
    std::thread::sleep(Duration::from_millis(1500));

    partition(&old_ip, &others, true);
    let cut = Instant::now();
    let mut stepped_down = None;
    let mut new_leader = None;
    while stepped_down.is_none() || new_leader.is_none() {
        if stepped_down.is_none() && group.pings_as_leader(&old_ip) == Some(false) {
            stepped_down = Some(cut.elapsed());
        }
        if new_leader.is_none() {
            new_leader = group
                .running
                .iter()
                .find(|(n, (ip, _))| **n != old && group.pings_as_leader(ip) == Some(true))
                .map(|(n, (ip, _))| (n.clone(), ip.clone(), cut.elapsed()));
        }
        assert!(
            cut.elapsed() < Duration::from_secs(10),
            "after the partition: stepped down {stepped_down:?}, new leader {new_leader:?}\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let stepped_down = stepped_down.unwrap_or_default();
    let (new_leader, new_ip, elected) = new_leader.unwrap_or_default();
    eprintln!("{old} cut off: stepped down after {stepped_down:?}; {new_leader} elected after {elected:?}");
    assert!(
        stepped_down < Duration::from_millis(1500),
        "step-down took {stepped_down:?}"
    );
    // Agents leave the old leader and register with the new one, which then runs jobs.
    let t = Instant::now();
    let out = group.run_at(
        &new_ip,
        &[
            "sbatch",
            "--parsable",
            "-J",
            "after-cut",
            "-o",
            "/dev/null",
            "--wrap",
            "exit 2",
        ],
    );
    let id: u32 = assert_ok(&out, "sbatch at the new leader", &group)
        .trim()
        .parse()
        .expect("job id");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let line = group
            .jobs(Some(&new_ip))
            .get(&id)
            .cloned()
            .unwrap_or_default();
        if field_of(&line, "JobState") == "FAILED" {
            assert_eq!(field_of(&line, "ExitCode"), "2:0");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "job {id} never ran: {line}\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!(
        "a job ran under {new_leader} {:?} after it was submitted",
        t.elapsed()
    );

    // Healed, the old leader follows and catches up; nothing acknowledged on either side is lost or doubled.
    std::thread::sleep(Duration::from_millis(1000));
    partition(&old_ip, &others, false);
    std::thread::sleep(Duration::from_millis(1500));
    let submitted = load.finish();
    check_exactly_once(&group, &submitted);
    let reference = summary(&group.jobs(Some(&new_ip)));
    let deadline = Instant::now() + Duration::from_secs(20);
    while summary(&group.jobs(Some(&old_ip))) != reference {
        assert!(
            Instant::now() < deadline,
            "{old} never caught up\n{}",
            group.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!("partition test took {:?}", started.elapsed());
}
