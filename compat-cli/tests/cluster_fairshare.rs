//! Fair-share through a real single-node Spur cluster: a job's usage reaches its association (and sshare) within
//! a second of the job ending, and the association that used more gets the lower fair-share factor in sprio,
//! squeue's priority and sshare, while one that used nothing ranks first.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::{current_user_name, Cluster, ClusterOptions, LONG};

/// Usage never decays (half-life 0), so the numbers below hold however long the test takes.
const FAIRSHARE: &str = "AccountingStorageType=accounting_storage/slurmdbd\n\
    AccountingStorageEnforce=associations\n\
    PriorityType=priority/multifactor\n\
    PriorityWeightFairshare=10000\n\
    PriorityDecayHalfLife=0\n";

/// `sshare -P -n` rows of the user's associations: (account, raw usage, fair-share factor).
fn shares(cluster: &Cluster, user: &str) -> Vec<(String, u64, f64)> {
    cluster
        .ok(
            "sshare",
            &[
                "-P",
                "-n",
                "-U",
                "-u",
                user,
                "-o",
                "Account,RawUsage,FairShare",
            ],
        )
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('|').collect();
            (
                f[0].to_string(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_association_that_used_more_gets_the_lower_fairshare_factor() {
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: FAIRSHARE.to_string(),
        ..ClusterOptions::default()
    });
    let user = current_user_name();
    for account in ["heavy", "light"] {
        cluster.ok("sacctmgr", &["-i", "add", "account", account]);
    }
    cluster.ok(
        "sacctmgr",
        &["-i", "add", "user", &user, "account=heavy,light,root"],
    );
    // Fresh associations: every user association ranks first.
    for (account, usage, factor) in shares(&cluster, &user) {
        assert_eq!((usage, factor), (0, 1.0), "{account}");
    }

    // Two CPUs for about two seconds in heavy.
    let used = cluster.wrap("sleep 2", &["--account=heavy", "-n", "2"]);
    cluster.wait_for_state(used, "COMPLETED", LONG);
    let deadline = Instant::now() + Duration::from_secs(20);
    let heavy = loop {
        let rows = shares(&cluster, &user);
        let heavy = rows.iter().find(|r| r.0 == "heavy").cloned().unwrap();
        if heavy.1 > 0 || Instant::now() > deadline {
            break heavy;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        (2..=8).contains(&heavy.1),
        "about 2 CPUs x 2 s: {heavy:?}\n{}",
        cluster.logs()
    );
    let rows = shares(&cluster, &user);
    let factor = |account: &str| rows.iter().find(|r| r.0 == account).unwrap().2;
    assert_eq!(factor("light"), 1.0, "{rows:?}");
    assert!(factor("heavy") < factor("light"), "{rows:?}");

    // A job in root's account fills the node; the two waiting jobs differ only in their account.
    let blocker = cluster.wrap("sleep 60", &["--account=root", "--exclusive"]);
    cluster.wait_for_state(blocker, "RUNNING", LONG);
    let from_heavy = cluster.wrap("true", &["--account=heavy"]);
    let from_light = cluster.wrap("true", &["--account=light"]);
    let ids = format!("{from_heavy},{from_light}");
    let sprio = cluster.ok("sprio", &["-h", "-j", &ids, "-o", "%i %F"]);
    let fs: Vec<(u32, u64)> = sprio
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace();
            (
                w.next().unwrap().parse().unwrap(),
                w.next().unwrap().parse().unwrap(),
            )
        })
        .collect();
    let of = |id: u32| fs.iter().find(|(j, _)| *j == id).unwrap().1;
    assert_eq!(of(from_light), 10_000, "{sprio}");
    assert!(
        (of(from_heavy) as f64 - factor("heavy") * 10_000.0).abs() <= 1.0,
        "sprio and sshare agree: {sprio} {rows:?}"
    );
    let priority = |id: u32| -> u64 { cluster.job_field(id, "Priority").parse().unwrap() };
    assert!(priority(from_light) > priority(from_heavy));
    assert_eq!(
        cluster.squeue("%i %Q", &["-j", &ids, "--sort=i"]),
        [
            format!("{from_heavy} {}", priority(from_heavy)),
            format!("{from_light} {}", priority(from_light))
        ]
    );
    cluster.ok(
        "scancel",
        &[
            &blocker.to_string(),
            &from_heavy.to_string(),
            &from_light.to_string(),
        ],
    );
}
