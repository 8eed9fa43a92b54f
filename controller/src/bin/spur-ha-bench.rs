//! Benchmark of the controllers' high availability (docs/ha.md; how it measures in docs/performance.md, figures in
//! docs/performance-history.ndjson). Not a test: it measures and prints.
//!
//! It starts its own munged and controllers on loopback addresses (127.0.0.2 and up, one per controller), then
//! reports:
//! - durable submit throughput with one controller and with three (submissions acknowledged per second, each
//!   acknowledged only once its log entry is fsynced on a majority), from concurrent clients;
//! - failover time over repeated SIGKILLs of the leader: from the kill to the first submission committed through
//!   another controller, median and worst.
//!
//! Usage: spur-ha-bench [--bin-dir DIR] [--kills N] [--seconds S] [--clients C] [--port P] [--dir DIR]

// Issue 29: held to the daemons' rule (see controller/src/lib.rs): outside tests every unwrap/expect/index is a
// compile error; use `.get()`, patterns or `?` instead.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;

use spur_core::model::job::JobSpec;
use spur_core::wire::api::SubmitRequest;
use spur_core::wire::{pb, to_doc};

#[derive(Parser, Debug)]
#[command(
    name = "spur-ha-bench",
    about = "Failover time and durable submit throughput of spurctld"
)]
struct Args {
    /// Where spurctld is (default: next to this program).
    #[arg(long)]
    bin_dir: Option<PathBuf>,
    /// Leader kills to time.
    #[arg(long, default_value_t = 20)]
    kills: usize,
    /// Seconds of each throughput run.
    #[arg(long, default_value_t = 10)]
    seconds: u64,
    /// Concurrent submitting clients in the throughput runs.
    #[arg(long, default_value_t = 32)]
    clients: usize,
    /// SlurmctldPort of the benchmark's controllers.
    #[arg(long, default_value_t = 7550)]
    port: u16,
    /// Work directory (munged, slurm.conf, state, logs); removed and recreated.
    #[arg(long, default_value = "/tmp/ha-bench")]
    dir: PathBuf,
}

/// Processes this program started, killed (by pid) when it ends.
struct Procs {
    munged: Option<Child>,
    controllers: Vec<Option<Child>>,
}

impl Drop for Procs {
    fn drop(&mut self) {
        for child in self.controllers.iter_mut().chain([&mut self.munged]) {
            if let Some(mut child) = child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

struct Bench {
    args: Args,
    bin_dir: PathBuf,
    munge_socket: PathBuf,
    procs: Procs,
}

fn addr(i: usize) -> String {
    format!("127.0.0.{}", i + 2)
}

fn find_tool(name: &str) -> PathBuf {
    ["/usr/sbin", "/usr/bin", "/sbin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from(name))
}

impl Bench {
    fn start_munged(dir: &Path) -> anyhow::Result<(Child, PathBuf)> {
        let munge = dir.join("munge");
        std::fs::create_dir_all(&munge)?;
        let key = munge.join("munge.key");
        let status = Command::new(find_tool("mungekey"))
            .args(["--create", "--force", "--keyfile"])
            .arg(&key)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .context("mungekey")?;
        if !status.success() {
            bail!("mungekey failed");
        }
        let socket = munge.join("munged.socket");
        let child = Command::new(find_tool("munged"))
            .args(["--foreground", "--force", "--num-threads=4"])
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--log-file={}", munge.join("munged.log").display()))
            .arg(format!("--pid-file={}", munge.join("munged.pid").display()))
            .arg(format!(
                "--seed-file={}",
                munge.join("munged.seed").display()
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("munged")?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !socket.exists() {
            if Instant::now() > deadline {
                bail!("munged did not create {}", socket.display());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok((child, socket))
    }

    /// A cluster of `count` controllers in its own directory; returns its slurm.conf.
    fn write_conf(&self, name: &str, count: usize) -> anyhow::Result<PathBuf> {
        let dir = self.args.dir.join(name);
        std::fs::create_dir_all(&dir)?;
        let hosts: String = (0..count)
            .map(|i| format!("SlurmctldHost=ctl{}({})\n", i + 1, addr(i)))
            .collect();
        let text = format!(
            "ClusterName=habench\n{hosts}SlurmctldPort={port}\nAuthType=auth/munge\nAuthInfo=socket={munge}\n\
             SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nStateSaveLocation={state}\n\
             SlurmdSpoolDir={state}/spool\nMinJobAge=100000\n\
             NodeName=bench NodeAddr=127.0.0.1 CPUs=4 RealMemory=2048 State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            port = self.args.port,
            munge = self.munge_socket.display(),
            state = dir.join("state").display(),
        );
        let conf = dir.join("slurm.conf");
        std::fs::write(&conf, text)?;
        Ok(conf)
    }

    fn start_controller(&mut self, conf: &Path, i: usize) -> anyhow::Result<()> {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(conf.with_file_name(format!("ctl{}.log", i + 1)))?;
        let child = Command::new(self.bin_dir.join("spurctld"))
            .arg("-f")
            .arg(conf)
            .env("SPUR_CONTROLLER_ID", format!("ctl{}", i + 1))
            .env("SPUR_LOG", "info,openraft=warn")
            .env_remove("SPUR_LOCAL_SOCKET")
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .context("start spurctld")?;
        match self.procs.controllers.get_mut(i) {
            Some(slot) => *slot = Some(child),
            None => {
                self.procs.controllers.resize_with(i, || None);
                self.procs.controllers.push(Some(child));
            }
        }
        Ok(())
    }

    fn kill_controller(&mut self, i: usize) {
        if let Some(mut child) = self.procs.controllers.get_mut(i).and_then(Option::take) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn stop_all(&mut self) {
        for i in 0..self.procs.controllers.len() {
            self.kill_controller(i);
        }
    }

    fn url(&self, i: usize) -> String {
        format!("http://{}:{}", addr(i), self.args.port)
    }
}

/// A client of one controller that submits held jobs (they stay queued, so only the log's cost is measured).
#[derive(Clone)]
struct Submitter {
    auth: spur_auth::ClientAuth,
    client: pb::controller_client::ControllerClient<tonic::transport::Channel>,
    tag: String,
    sent: Arc<AtomicU64>,
}

impl Submitter {
    fn new(auth: &spur_auth::ClientAuth, url: &str, tag: &str) -> anyhow::Result<Self> {
        let channel = tonic::transport::Endpoint::from_shared(url.to_string())?
            .connect_timeout(Duration::from_millis(500))
            .timeout(Duration::from_secs(10))
            .connect_lazy();
        Ok(Submitter {
            auth: auth.clone(),
            client: pb::controller_client::ControllerClient::new(channel),
            tag: tag.to_string(),
            sent: Arc::new(AtomicU64::new(0)),
        })
    }

    /// One submission; Ok once the controller acknowledged it.
    async fn submit(&mut self) -> anyhow::Result<u32> {
        let n = self.sent.fetch_add(1, Ordering::Relaxed);
        let spec = JobSpec {
            name: format!("bench-{}-{n}", self.tag),
            script: Some("#!/bin/sh\ntrue\n".to_string()),
            work_dir: "/tmp".to_string(),
            hold: true,
            ..Default::default()
        };
        let body = SubmitRequest {
            spec,
            test_only: false,
            immediate: false,
            interactive: false,
            het_components: Vec::new(),
        };
        let message = pb::ApiRequest {
            request_id: format!("bench-{}-{}-{n}", self.tag, std::process::id()),
            caller: None,
            body: Some(to_doc(&body)?),
            ..Default::default()
        };
        let request = self.auth.request("Submit", message)?;
        let reply = self.client.submit(request).await?.into_inner();
        if reply.error_code != 0 {
            bail!("submit refused: {}", reply.message);
        }
        let decoded: spur_core::wire::api::SubmitReply =
            spur_core::wire::from_doc(reply.body.as_ref())?;
        Ok(decoded.job_id)
    }
}

/// Whether the controller at `url` answers Ping as the leader.
async fn ping_leader(url: &str) -> bool {
    let Ok(endpoint) = tonic::transport::Endpoint::from_shared(url.to_string()) else {
        return false;
    };
    let Ok(channel) = endpoint
        .connect_timeout(Duration::from_millis(300))
        .timeout(Duration::from_millis(500))
        .connect()
        .await
    else {
        return false;
    };
    let mut client = pb::controller_client::ControllerClient::new(channel);
    client
        .ping(pb::PingRequest {})
        .await
        .is_ok_and(|reply| reply.into_inner().leader)
}

async fn wait_for_leader(bench: &Bench, count: usize, deadline: Duration) -> anyhow::Result<usize> {
    let until = Instant::now() + deadline;
    loop {
        for i in 0..count {
            if bench.procs.controllers.get(i).is_none_or(Option::is_none) {
                continue;
            }
            let Ok(endpoint) = tonic::transport::Endpoint::from_shared(bench.url(i)) else {
                continue;
            };
            let Ok(channel) = endpoint
                .connect_timeout(Duration::from_millis(300))
                .timeout(Duration::from_millis(500))
                .connect()
                .await
            else {
                continue;
            };
            let mut client = pb::controller_client::ControllerClient::new(channel);
            if let Ok(reply) = client.ping(pb::PingRequest {}).await {
                if reply.into_inner().leader {
                    return Ok(i);
                }
            }
        }
        if Instant::now() > until {
            bail!("no leader within {deadline:?}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Acknowledged submissions per second from `clients` concurrent clients spread over the controllers `targets`.
async fn throughput(bench: &Bench, count: usize, targets: &[usize]) -> anyhow::Result<f64> {
    let auth = spur_auth::ClientAuth::Munge {
        socket: bench.munge_socket.display().to_string(),
    };
    // Warm up: one submission through each controller, so connections and the leader are in place.
    for i in 0..count {
        let mut warm = Submitter::new(&auth, &bench.url(i), &format!("warm{i}"))?;
        warm.submit().await.context("warm-up submission")?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for c in 0..bench.args.clients {
        let target = targets.get(c % targets.len().max(1)).copied().unwrap_or(0);
        let mut submitter = Submitter::new(
            &auth,
            &bench.url(target),
            &format!("t{count}-{}-{c}", targets.len()),
        )?;
        let (stop, done) = (stop.clone(), done.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                if submitter.submit().await.is_ok() {
                    done.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    let started = Instant::now();
    tokio::time::sleep(Duration::from_secs(bench.args.seconds)).await;
    let acknowledged = done.load(Ordering::Relaxed);
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for task in tasks {
        let _ = task.await;
    }
    Ok(acknowledged as f64 / elapsed)
}

/// Kill the leader, time until a submission through another controller is acknowledged, restart it; `kills` times.
async fn failovers(bench: &mut Bench, conf: &Path, count: usize) -> anyhow::Result<Vec<Duration>> {
    let auth = spur_auth::ClientAuth::Munge {
        socket: bench.munge_socket.display().to_string(),
    };
    let mut times = Vec::new();
    for k in 0..bench.args.kills {
        let leader = wait_for_leader(bench, count, Duration::from_secs(30)).await?;
        let other = (leader + 1) % count;
        let mut submitter = Submitter::new(&auth, &bench.url(other), &format!("f{k}"))?;
        submitter
            .submit()
            .await
            .context("submission before the kill")?;
        let killed_at = Instant::now();
        bench.kill_controller(leader);
        let elected = {
            let urls: Vec<String> = (0..count)
                .filter(|i| *i != leader)
                .map(|i| bench.url(i))
                .collect();
            tokio::spawn(async move {
                loop {
                    for url in &urls {
                        if ping_leader(url).await {
                            return killed_at.elapsed();
                        }
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            })
        };
        loop {
            match submitter.submit().await {
                Ok(_) => break,
                Err(_) if killed_at.elapsed() < Duration::from_secs(30) => {}
                Err(e) => return Err(e.context("no submission committed after the kill")),
            }
        }
        let took = killed_at.elapsed();
        let elected = elected.await.unwrap_or_default();
        println!(
            "kill {:>2}: ctl{} killed; new leader after {:>4} ms; write committed through ctl{} after {:>4} ms",
            k + 1,
            leader + 1,
            elected.as_millis(),
            other + 1,
            took.as_millis()
        );
        times.push(took);
        bench.start_controller(conf, leader)?;
        // Let the restarted controller catch up before the next kill, so a majority stays up to date.
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    Ok(times)
}

fn summary(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    let worst = times.last().copied().unwrap_or_default();
    (median, worst)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let bin_dir = match &args.bin_dir {
        Some(dir) => dir.clone(),
        None => std::env::current_exe()?
            .parent()
            .map(Path::to_path_buf)
            .context("no directory for this program")?,
    };
    let _ = std::fs::remove_dir_all(&args.dir);
    std::fs::create_dir_all(&args.dir)?;
    let (munged, munge_socket) = Bench::start_munged(&args.dir)?;
    let mut bench = Bench {
        args,
        bin_dir,
        munge_socket,
        procs: Procs {
            munged: Some(munged),
            controllers: Vec::new(),
        },
    };

    let conf = bench.write_conf("one", 1)?;
    bench.start_controller(&conf, 0)?;
    wait_for_leader(&bench, 1, Duration::from_secs(30)).await?;
    let one = throughput(&bench, 1, &[0]).await?;
    println!(
        "durable submit throughput, 1 controller:  {one:.0}/s ({} clients)",
        bench.args.clients
    );
    bench.stop_all();

    let conf = bench.write_conf("three", 3)?;
    for i in 0..3 {
        bench.start_controller(&conf, i)?;
    }
    let leader = wait_for_leader(&bench, 3, Duration::from_secs(30)).await?;
    let three = throughput(&bench, 3, &[0, 1, 2]).await?;
    println!(
        "durable submit throughput, 3 controllers, clients spread over all: {three:.0}/s ({} clients)",
        bench.args.clients
    );
    let direct = throughput(&bench, 3, &[leader]).await?;
    println!(
        "durable submit throughput, 3 controllers, clients on the leader:   {direct:.0}/s ({} clients)",
        bench.args.clients
    );

    let mut times = failovers(&mut bench, &conf, 3).await?;
    let (median, worst) = summary(&mut times);
    println!(
        "failover (leader SIGKILL -> first committed write via another controller) over {} kills: median {} ms, worst {} ms",
        times.len(),
        median.as_millis(),
        worst.as_millis()
    );
    bench.stop_all();
    Ok(())
}
