//! High availability as real processes: three spurctld on their own loopback addresses (127.0.0.2-4) forming one
//! Raft group, one spurd, a steady load of sbatch submissions through slurm.conf's list of controllers, and the
//! leader killed with SIGKILL and restarted a few times, then a follower, then the leader paused with SIGSTOP
//! and woken again, then spurd, then job supervisors, and at last every controller and spurd together. Afterwards a
//! checker holds the cluster to its promises:
//! every acknowledged submission exists exactly once, job ids never repeat, and every job reached one final state
//! with the exit code its script chose.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::ha::{HaCluster, ADDRS};
use common::{field_of, text, TERMINAL};

/// Leader kills per run: bounded so the test fits CI (each costs a failover and a restart).
const KILLS: usize = 3;
/// One submission the load generator made: the exit code its job must end with, and the id if acknowledged.
struct Submitted {
    name: String,
    exit_code: u32,
    acknowledged: Option<u32>,
}

#[test]
fn leader_kills_under_submit_load_lose_and_duplicate_nothing() {
    let mut cluster = HaCluster::start();
    cluster.wait_for_leader();
    cluster.wait_for_node_idle();

    let submitted = Arc::new(Mutex::new(Vec::<Submitted>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    // Each job's script notes when it runs, so the checker can see jobs that ran twice or on CPUs given twice.
    let timeline = cluster.dir.path().join("timeline");
    let load = {
        let (submitted, stop, timeline) = (submitted.clone(), stop.clone(), timeline.clone());
        let (dir, conf, bin) = (
            cluster.dir.path().to_path_buf(),
            cluster.conf.clone(),
            cluster.bin_dir.clone(),
        );
        std::thread::spawn(move || {
            let mut n = 0u32;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let exit_code = n % 4;
                let name = format!("ha-{n}");
                let out = HaCluster::command(
                    &dir,
                    &conf,
                    &bin,
                    "sbatch",
                    &[
                        "--parsable",
                        "-J",
                        &name,
                        "-o",
                        "/dev/null",
                        "--wrap",
                        &format!(
                            "echo \"$SLURM_JOB_ID start $(date +%s.%N)\" >> {timeline}; sleep 0.4; \
                             echo \"$SLURM_JOB_ID end $(date +%s.%N)\" >> {timeline}; exit {exit_code}",
                            timeline = timeline.display()
                        ),
                    ],
                )
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

    let mut supervisors_killed = Vec::new();
    for kill in 0..KILLS {
        std::thread::sleep(Duration::from_millis(1500));
        let leader = cluster.wait_for_leader();
        cluster.kill_controller(leader);
        if kill == 0 {
            // A job whose supervisor dies while no controller leads: its agent keeps the result for the next.
            supervisors_killed.extend(cluster.kill_a_supervisor());
        }
        // The others elect a new leader while the old one is down.
        let deadline = Instant::now() + Duration::from_secs(20);
        while cluster.leader().is_none() {
            assert!(
                Instant::now() < deadline,
                "no new leader after killing ctl{}\n{}",
                leader + 1,
                cluster.logs()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let ping = cluster.run("scontrol", &["ping"]);
        let lines = text(&ping.stdout);
        assert!(ping.status.success(), "scontrol ping: {ping:?}");
        for (i, mode) in ["primary", "backup1", "backup2"].iter().enumerate() {
            let state = if i == leader { "DOWN" } else { "UP" };
            let line = format!("Slurmctld({mode}) at ctl{} is {state}", i + 1);
            assert!(lines.contains(&line), "{line:?} not in {lines}");
        }
        std::thread::sleep(Duration::from_millis(500));
        cluster.start_controller(leader);
    }
    // A follower's loss changes nothing for clients (they skip it) nor for the leader (a majority remains).
    std::thread::sleep(Duration::from_millis(1000));
    let leader = cluster.wait_for_leader();
    let follower = (leader + 1) % ADDRS.len();
    cluster.kill_controller(follower);
    std::thread::sleep(Duration::from_millis(1000));
    cluster.start_controller(follower);
    // A paused leader (SIGSTOP) is replaced as a dead one is; when it wakes it must follow the new leader and
    // lose nothing it had acknowledged.
    std::thread::sleep(Duration::from_millis(1000));
    let paused = cluster.wait_for_leader();
    cluster.signal_controller(paused, libc::SIGSTOP);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match cluster.leader() {
            Some(leader) if leader != paused => break,
            _ => {}
        }
        assert!(
            Instant::now() < deadline,
            "no new leader while ctl{} was paused\n{}",
            paused + 1,
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(1000));
    cluster.signal_controller(paused, libc::SIGCONT);
    // The agent's loss leaves its jobs running under their supervisors; the new agent reports them.
    std::thread::sleep(Duration::from_millis(1000));
    cluster.restart_agent();
    std::thread::sleep(Duration::from_millis(1500));
    // Supervisors killed under load, with the agent up.
    for _ in 0..2 {
        supervisors_killed.extend(cluster.kill_a_supervisor());
        std::thread::sleep(Duration::from_millis(500));
    }
    stop.store(true, Ordering::Relaxed);
    load.join().expect("load generator");
    // Everything at once, with jobs still running under their supervisors: every controller and spurd SIGKILLed,
    // then all started again. The group comes back from its disks; nothing acknowledged may be lost.
    for i in 0..ADDRS.len() {
        cluster.kill_controller(i);
    }
    cluster.restart_agent();
    std::thread::sleep(Duration::from_millis(300));
    for i in 0..ADDRS.len() {
        cluster.start_controller(i);
    }
    cluster.wait_for_leader();

    let submitted = std::mem::take(&mut *submitted.lock().expect("submissions"));
    let acknowledged: Vec<&Submitted> = submitted
        .iter()
        .filter(|s| s.acknowledged.is_some())
        .collect();
    assert!(
        acknowledged.len() >= 10,
        "too few submissions acknowledged ({} of {})\n{}",
        acknowledged.len(),
        submitted.len(),
        cluster.logs()
    );

    eprintln!(
        "{} submissions, {} acknowledged, across {KILLS} leader kills",
        submitted.len(),
        acknowledged.len()
    );
    // Job ids never repeat: no two acknowledged submissions were told the same id.
    let mut by_id: HashMap<u32, &str> = HashMap::new();
    for s in &acknowledged {
        let id = s.acknowledged.unwrap_or_default();
        if let Some(other) = by_id.insert(id, &s.name) {
            panic!("job id {id} acknowledged for both {other} and {}", s.name);
        }
    }

    // Every job reaches one final state.
    let deadline = Instant::now() + Duration::from_secs(120);
    let jobs = loop {
        let jobs = cluster.jobs();
        let unfinished: Vec<u32> = jobs
            .iter()
            .filter(|(_, line)| !TERMINAL.contains(&field_of(line, "JobState").as_str()))
            .map(|(id, _)| *id)
            .collect();
        if unfinished.is_empty() && !jobs.is_empty() {
            break jobs;
        }
        assert!(
            Instant::now() < deadline,
            "jobs never finished: {unfinished:?}\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(500));
    };

    // Each submission exists at most once (a retried submit is applied once), and each acknowledged one exactly
    // once, under the id it was given, with the exit code its script chose.
    let mut by_name: HashMap<String, Vec<u32>> = HashMap::new();
    for (id, line) in &jobs {
        by_name
            .entry(field_of(line, "JobName"))
            .or_default()
            .push(*id);
    }
    for s in &submitted {
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
        let (state, exit) = (field_of(line, "JobState"), field_of(line, "ExitCode"));
        let expected_state = if s.exit_code == 0 {
            "COMPLETED"
        } else {
            "FAILED"
        };
        let as_scripted = (expected_state, format!("{}:0", s.exit_code));
        let actual = (state.as_str(), exit.as_str());
        if supervisors_killed.contains(&id) && actual != (as_scripted.0, as_scripted.1.as_str()) {
            // Its supervisor was killed before the script ended: reported as killed by signal 9.
            assert_eq!(
                actual,
                ("FAILED", "0:9"),
                "job {id} ({}), supervisor killed",
                s.name
            );
            continue;
        }
        assert_eq!(
            actual,
            (as_scripted.0, as_scripted.1.as_str()),
            "job {id} ({})",
            s.name
        );
    }
    assert!(
        !supervisors_killed.is_empty(),
        "no running supervisor was found to kill\n{}",
        cluster.logs()
    );
    eprintln!("supervisors killed: jobs {supervisors_killed:?}");
    check_timeline(&std::fs::read_to_string(&timeline).unwrap_or_default(), 4);
}

/// No job's script started twice, and at no moment did more scripts run than the node has CPUs (each job asks for
/// one). A script's own start and end lie inside its allocation, so more overlapping intervals than CPUs can only
/// mean CPUs given to two jobs at once; scripts without an end (their supervisor was killed) are left out.
fn check_timeline(text: &str, cpus: usize) {
    let mut starts: HashMap<u32, f64> = HashMap::new();
    let mut ends: HashMap<u32, f64> = HashMap::new();
    for line in text.lines() {
        let mut fields = line.split_whitespace();
        let (Some(job), Some(what), Some(at)) = (fields.next(), fields.next(), fields.next())
        else {
            panic!("bad timeline line {line:?}");
        };
        let (job, at): (u32, f64) = (job.parse().expect("job id"), at.parse().expect("time"));
        let seen = match what {
            "start" => starts.insert(job, at),
            _ => ends.insert(job, at),
        };
        assert!(seen.is_none(), "job {job} ran twice ({what}):\n{text}");
    }
    let mut events: Vec<(f64, i32)> = Vec::new();
    for (job, start) in &starts {
        if let Some(end) = ends.get(job) {
            events.push((*start, 1));
            events.push((*end, -1));
        }
    }
    // Ends sort before starts at the same instant: touching intervals do not overlap.
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut running = 0;
    for (at, change) in events {
        running += change;
        assert!(
            running <= cpus as i32,
            "{running} jobs ran at {at} on {cpus} CPUs:\n{text}"
        );
    }
    assert!(starts.len() >= 10, "too few jobs ran:\n{text}");
    eprintln!(
        "timeline: {} scripts ran, {} to their end",
        starts.len(),
        ends.len()
    );
}

#[test]
fn sstat_through_a_follower_is_measured_by_the_leader() {
    let cluster = HaCluster::start();
    let leader = cluster.wait_for_leader();
    cluster.wait_for_node_idle();
    let out = cluster.run(
        "sbatch",
        &["--parsable", "-o", "/dev/null", "--wrap", "sleep 3233"],
    );
    assert!(out.status.success(), "{out:?}");
    let job: u32 = text(&out.stdout).trim().parse().expect("job id");
    let follower = (leader + 1) % ADDRS.len();
    let step = format!("{job}.batch");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // The agent's session is with the leader; the follower asks it to measure.
        let out = HaCluster::command(
            cluster.dir.path(),
            &cluster.conf,
            &cluster.bin_dir,
            "sstat",
            &["-n", "-P", "-j", &step, "-o", "JobID,NTasks"],
        )
        .env(
            "SPUR_CONTROLLER",
            format!("{}:{}", ADDRS[follower], cluster.port),
        )
        .output()
        .expect("sstat");
        if text(&out.stdout).trim() == format!("{step}|1") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "sstat through a follower: {out:?}\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let out = cluster.run("scancel", &[&job.to_string()]);
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn sattach_through_a_follower_is_passed_on_by_the_leader() {
    let cluster = HaCluster::start();
    let leader = cluster.wait_for_leader();
    cluster.wait_for_node_idle();
    // The step ticks until the test has seen sattach relay it, so an attempt lost to a leader change just
    // after start-up (the agent moving sessions) is retried on a step that is still running.
    let stop = cluster.dir.path().join("stop");
    let step_cmd = format!(
        "{} srun bash -c 'for i in $(seq 1 240); do echo tick $i; [ -e {} ] && break; sleep 0.25; done; echo done'",
        cluster.bin_dir.join("spur").display(),
        stop.display()
    );
    let out = cluster.run(
        "sbatch",
        &["--parsable", "-o", "step.out", "--wrap", &step_cmd],
    );
    assert!(out.status.success(), "{out:?}");
    let job: u32 = text(&out.stdout).trim().parse().expect("job id");
    let follower = (leader + 1) % ADDRS.len();
    let output = cluster.dir.path().join("step.out");
    let deadline = Instant::now() + Duration::from_secs(50);
    while !std::fs::read_to_string(&output).is_ok_and(|t| t.contains("tick 2\n")) {
        assert!(
            Instant::now() < deadline,
            "the step never printed\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut attempts = Vec::new();
    loop {
        // The agents' sessions are with the leader; the follower has it pass the request on.
        let mut sattach = HaCluster::command(
            cluster.dir.path(),
            &cluster.conf,
            &cluster.bin_dir,
            "sattach",
            &[&format!("{job}.0")],
        )
        .env(
            "SPUR_CONTROLLER",
            format!("{}:{}", ADDRS[follower], cluster.port),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sattach");
        let mut relayed = String::new();
        if let Some(stdout) = sattach.stdout.take() {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                if line.starts_with("tick") {
                    // Relayed output: let the step end so sattach ends with it.
                    std::fs::write(&stop, "").expect("stop file");
                }
                relayed.push_str(&line);
                relayed.push('\n');
            }
        }
        let end = sattach.wait_with_output().expect("sattach");
        if end.status.success() && relayed.contains("tick 1\n") && relayed.ends_with("done\n") {
            break;
        }
        attempts.push(format!(
            "{:?}: {relayed:?} {:?}",
            end.status,
            text(&end.stderr)
        ));
        // The follower may not have applied the step yet, or no controller led for a moment.
        assert!(
            Instant::now() < deadline,
            "sattach through a follower never relayed the step: {attempts:#?}\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn the_timeline_checker_catches_a_job_run_twice_and_cpus_given_twice() {
    let ok = "1 start 1.0\n2 start 1.5\n1 end 2.0\n3 start 2.0\n2 end 2.5\n3 end 3.0\n\
              4 start 3.0\n5 start 3.1\n6 start 3.2\n7 start 3.3\n8 start 4.0\n9 start 4.1\n10 start 4.2\n";
    check_timeline(ok, 2);
    let twice = format!("{ok}1 start 5.0\n");
    assert!(std::panic::catch_unwind(|| check_timeline(&twice, 2)).is_err());
    let overcommitted = format!("{ok}11 start 1.6\n11 end 1.7\n");
    assert!(std::panic::catch_unwind(|| check_timeline(&overcommitted, 2)).is_err());
}
