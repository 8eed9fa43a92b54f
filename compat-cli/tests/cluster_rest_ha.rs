//! slurmrestd in front of three controllers (127.0.0.2-4, one Raft group): the leader is SIGKILLed between REST
//! requests, and the REST daemon keeps answering through the others (the CLI's client tries each controller in
//! slurm.conf's order and retries a submission under the same request id). A steady load of submissions runs
//! beside, so some are in flight when a leader dies. Afterwards every acknowledged submission exists exactly
//! once and none exists twice.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::bin_dir;
use common::ha::HaCluster;
use common::rest::{request, HttpReply, RestDaemon, Target};

const V: &str = "/slurm/v0.0.38";
/// Leader kills in the run: each costs an election and a restart.
const KILLS: usize = 2;
/// Clients submitting beside the test's own requests.
const LOAD_THREADS: usize = 3;

fn call(target: &Target, method: &str, path: &str, body: Option<&str>) -> HttpReply {
    request(target, method, path, &[], body).expect("request")
}

/// Submits a short job named `name` through REST: its id when acknowledged, else the answer.
fn try_submit(target: &Target, name: &str, dir: &str) -> Result<u64, String> {
    let body = serde_json::json!({
        "script": "#!/bin/sh\nsleep 1\n",
        "job": {"name": name, "current_working_directory": dir,
                "environment": {"PATH": "/bin:/usr/bin"}}
    })
    .to_string();
    let reply = request(target, "POST", &format!("{V}/job/submit"), &[], Some(&body))
        .map_err(|e| e.to_string())?;
    match reply.status {
        200 => reply.json()["job_id"]
            .as_u64()
            .ok_or_else(|| reply.body.clone()),
        _ => Err(reply.body),
    }
}

/// Submits a short job named `name` through REST; the reply must acknowledge it.
fn submit(target: &Target, name: &str, dir: &str, cluster: &HaCluster) -> u64 {
    try_submit(target, name, dir)
        .unwrap_or_else(|e| panic!("submit {name}: {e}\n{}", cluster.logs()))
}

#[test]
fn rest_keeps_answering_through_leader_kills_and_never_duplicates_a_submission() {
    let mut cluster = HaCluster::start();
    cluster.wait_for_leader();
    let rest = RestDaemon::start(
        &bin_dir(),
        &cluster.conf,
        cluster.dir.path(),
        &["-a", "rest_auth/local"],
    );
    let sock = rest.unix();
    let dir = cluster.dir.path().display().to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    while call(&sock, "GET", &format!("{V}/nodes"), None).json()["nodes"][0]["state"] != "idle" {
        assert!(
            Instant::now() < deadline,
            "node never idle\n{}",
            cluster.logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // A steady load of submissions beside the test's own, so that some are in flight when a leader dies: each
    // may fail, but none may be applied twice.
    let stop = Arc::new(AtomicBool::new(false));
    let loads: Vec<_> = (0..LOAD_THREADS)
        .map(|thread| {
            let (stop, sock, dir) = (stop.clone(), sock.clone(), dir.clone());
            std::thread::spawn(move || {
                let mut acknowledged = BTreeMap::new();
                let mut sent = 0;
                while !stop.load(Ordering::Relaxed) {
                    let name = format!("load-{thread}-{sent}");
                    if let Ok(id) = try_submit(&sock, &name, &dir) {
                        acknowledged.insert(name, id);
                    }
                    sent += 1;
                }
                (acknowledged, sent)
            })
        })
        .collect();
    let mut acknowledged: BTreeMap<String, u64> = BTreeMap::new();
    for round in 0..KILLS {
        let name = format!("before-{round}");
        acknowledged.insert(name.clone(), submit(&sock, &name, &dir, &cluster));
        let leader = cluster.wait_for_leader();
        cluster.kill_controller(leader);

        // The very next requests, while the others elect a new leader.
        let ping = call(&sock, "GET", &format!("{V}/ping"), None);
        assert_eq!(ping.status, 200, "{}\n{}", ping.body, cluster.logs());
        let pings = ping.json()["pings"].as_array().expect("pings").clone();
        assert_eq!(pings.len(), 3);
        assert_eq!(pings[leader]["ping"], "DOWN", "{pings:?}");
        assert_eq!(
            pings.iter().filter(|p| p["ping"] == "UP").count(),
            2,
            "{pings:?}"
        );
        let name = format!("after-{round}");
        acknowledged.insert(name.clone(), submit(&sock, &name, &dir, &cluster));
        for (name, id) in &acknowledged {
            let job = call(&sock, "GET", &format!("{V}/job/{id}"), None);
            assert_eq!(job.status, 200, "{}\n{}", job.body, cluster.logs());
            assert_eq!(job.json()["jobs"][0]["name"], name.as_str());
        }
        cluster.start_controller(leader);
        // The next round expects every controller but the one it kills to answer its ping: the restarted one must
        // be listening first (it opens its store before it listens).
        cluster.wait_for_controller(leader);
    }

    stop.store(true, Ordering::Relaxed);
    let mut load_acknowledged = BTreeMap::new();
    let mut load_sent = 0;
    for load in loads {
        let (acknowledged, sent) = load.join().expect("load thread");
        load_acknowledged.extend(acknowledged);
        load_sent += sent;
    }
    eprintln!(
        "load: {} of {load_sent} submissions acknowledged",
        load_acknowledged.len()
    );
    assert!(
        load_acknowledged.len() >= load_sent / 2,
        "only {} of {load_sent} submissions acknowledged",
        load_acknowledged.len()
    );

    // Every acknowledged submission exactly once, an unacknowledged one at most once, and nothing else. The
    // listing may come from a controller that was just restarted and is still catching up with the log: it is
    // read again until it holds every acknowledged job, for a while.
    acknowledged.extend(load_acknowledged);
    let listing = || {
        let jobs = call(&sock, "GET", &format!("{V}/jobs"), None);
        assert_eq!(jobs.status, 200, "{}", jobs.body);
        let mut seen: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for job in jobs.json()["jobs"].as_array().expect("jobs") {
            seen.entry(job["name"].as_str().unwrap_or_default().to_string())
                .or_default()
                .push(job["job_id"].as_u64().expect("job id"));
        }
        seen
    };
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut seen = listing();
    while acknowledged.keys().any(|name| !seen.contains_key(name)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        seen = listing();
    }
    for (name, ids) in &seen {
        assert_eq!(ids.len(), 1, "{name} applied {} times: {ids:?}", ids.len());
    }
    for (name, id) in &acknowledged {
        assert_eq!(
            seen.get(name),
            Some(&vec![*id]),
            "{name}\n{}",
            cluster.logs()
        );
    }
    assert!(
        seen.keys()
            .all(|name| name.starts_with("load-") || acknowledged.contains_key(name)),
        "{seen:?}"
    );
}
