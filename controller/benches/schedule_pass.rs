//! Scheduler pass benchmark (`cargo bench -p spur-controller --bench schedule_pass`): 10,000 pending jobs of mixed
//! shapes (CPUs, memory, GPUs, time limits, node counts) on 1,000 and on 10,000 nodes of 64 CPUs and 8 GPUs, timed over
//! one full `schedule` pass. Two cases per size: an idle cluster (the pass fills it and reserves for the rest) and a
//! busy one (the plan of the first pass committed, time moved on, then the next pass). Prints the median, minimum and
//! maximum of several passes; how it is measured is in docs/performance.md, the figures in
//! docs/performance-history.ndjson. With `--topology` every node's agent reports two XGMI islands of four GPUs, so GPU
//! units are chosen by links. With `--finished` a third case adds 90,000 finished jobs (kept for MinJobAge) to the busy
//! cluster. With `--limits` the cluster enforces association limits (`AccountingStorageEnforce=limits`): the jobs
//! belong to 2,000 users in 100 accounts, each account with `GrpJobs`, `GrpTRES` and a `MaxJobs` its users inherit.

use std::time::{Duration, Instant};

use spur_controller::scheduler::scenario::{
    job, node, partition, plan_digest, two_xgmi_islands, with_gpu_files, Scenario,
};
use spur_controller::scheduler::schedule;
use spur_controller::state::Settings;

const PENDING_JOBS: usize = 10_000;
const RUNS: usize = 7;
const T0: i64 = 1_800_000_000;

/// A small deterministic generator so every run sees the same workload.
struct Lcg(u64);

impl Lcg {
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        from[((self.0 >> 33) % from.len() as u64) as usize]
    }
}

/// Finished jobs still kept (MinJobAge) in the `--finished` case: what five minutes at 300 jobs/s leave.
const FINISHED_JOBS: u32 = 90_000;

/// Adds jobs that were submitted held and cancelled: finished records the state keeps until MinJobAge.
fn add_finished(s: &mut Scenario) {
    use spur_controller::state::Command;
    use spur_core::wire::api::{ControlRequest, JobSelector};
    for _ in 0..FINISHED_JOBS {
        let mut spec = job(1, 1_000, 0, Some(10));
        spec.hold = true;
        let job_id = match s.submit(spec) {
            Ok(id) => id,
            Err(e) => panic!("submit: {e}"),
        };
        let now = s.now;
        let cancel = Command::Control {
            caller_uid: 0,
            request: ControlRequest::Cancel {
                job: JobSelector {
                    job_id,
                    array_task: None,
                },
            },
            now,
        };
        if let Err(e) = s.apply(cancel) {
            panic!("cancel: {e}");
        }
    }
}

const LIMITED_ACCOUNTS: usize = 100;
const LIMITED_USERS: usize = 2_000;

fn accounting(s: &mut Scenario, request: spur_core::model::assoc::AcctRequest) {
    use spur_controller::state::Command;
    use spur_core::wire::api::ControlRequest;
    let now = s.now;
    let command = Command::Control {
        caller_uid: 0,
        request: ControlRequest::Accounting { request },
        now,
    };
    if let Err(e) = s.apply(command) {
        panic!("accounting: {e}");
    }
}

/// The accounts and users of `--limits`: every account limits its running jobs and CPUs and hands its users a
/// `MaxJobs`.
fn add_associations(s: &mut Scenario) {
    use spur_core::model::assoc::{AcctRequest, AssocSet};
    for a in 0..LIMITED_ACCOUNTS {
        let set = AssocSet {
            grp_jobs: Some(Some(200)),
            grp_tres: Some(Some("cpu=2048,gres/gpu=256".into())),
            max_jobs: Some(Some(20)),
            ..Default::default()
        };
        accounting(
            s,
            AcctRequest::AddAccounts {
                names: vec![format!("a{a:02}")],
                parent: None,
                description: None,
                organization: None,
                set,
            },
        );
    }
    for u in 0..LIMITED_USERS {
        accounting(
            s,
            AcctRequest::AddUsers {
                names: vec![format!("u{u:04}")],
                accounts: vec![format!("a{:02}", u % LIMITED_ACCOUNTS)],
                partitions: Vec::new(),
                default_account: None,
                admin: None,
                set: AssocSet::default(),
            },
        );
    }
}

fn build(nodes: usize, topology: bool, limits: bool) -> Scenario {
    let names: Vec<String> = (1..=nodes).map(|i| format!("gpu{i:05}")).collect();
    let defs: Vec<_> = names
        .iter()
        .map(|n| node(n, 64, 512_000, 8))
        .map(|def| if topology { with_gpu_files(def) } else { def })
        .collect();
    let parts = vec![partition("gpu", &names, true)];
    let settings = if limits {
        Settings {
            accounting: true,
            enforce_associations: true,
            enforce_limits: true,
            ..Settings::default()
        }
    } else {
        Settings::default()
    };
    let mut s = match Scenario::new(defs.clone(), parts, settings, T0) {
        Ok(s) => s,
        Err(e) => panic!("cluster: {e}"),
    };
    if limits {
        add_associations(&mut s);
    }
    if topology {
        for def in &defs {
            if let Err(e) = s.report_gpus(def, two_xgmi_islands()) {
                panic!("register: {e}");
            }
        }
    }
    let mut rng = Lcg(42);
    for _ in 0..PENDING_JOBS {
        let gpus = rng.pick(&[0, 0, 1, 1, 2, 4, 8]);
        let cpus = rng.pick(&[1, 2, 4, 8, 16, 32]);
        let mem_mb = rng.pick(&[1_000, 4_000, 16_000, 64_000]);
        let limit = rng.pick(&[Some(10), Some(30), Some(60), Some(240), Some(1440), None]);
        let mut spec = job(cpus, mem_mb, gpus, limit);
        spec.nodes_min = rng.pick(&[1, 1, 1, 1, 1, 1, 2, 4]);
        spec.ntasks = Some(cpus * spec.nodes_min);
        if limits {
            let user = rng.pick(&(0..LIMITED_USERS).collect::<Vec<_>>());
            spec.user_name = format!("u{user:04}");
            spec.account = Some(format!("a{:02}", user % LIMITED_ACCOUNTS));
        }
        if let Err(e) = s.submit(spec) {
            panic!("submit: {e}");
        }
    }
    s
}

/// CPU time of this thread: on a machine shared with other builds a pass's wall time includes the time it waited
/// for a core, which this leaves out.
fn thread_cpu() -> Duration {
    use nix::sys::resource::{getrusage, UsageWho};
    match getrusage(UsageWho::RUSAGE_THREAD) {
        Ok(usage) => {
            let (user, system) = (usage.user_time(), usage.system_time());
            let micros = |t: nix::sys::time::TimeVal| {
                Duration::from_secs(t.tv_sec().max(0) as u64)
                    + Duration::from_micros(t.tv_usec().max(0) as u64)
            };
            micros(user) + micros(system)
        }
        Err(_) => Duration::ZERO,
    }
}

fn time_passes(s: &Scenario) -> (Duration, usize, usize) {
    let mut times = Vec::with_capacity(RUNS);
    let mut cpu = Vec::with_capacity(RUNS);
    let mut starts = 0;
    let mut forecasts = 0;
    let mut digest = None;
    for _ in 0..RUNS {
        let (began, began_cpu) = (Instant::now(), thread_cpu());
        let plan = schedule(&s.state, s.now);
        times.push(began.elapsed());
        cpu.push(thread_cpu().saturating_sub(began_cpu));
        starts = plan.starts.len();
        forecasts = plan.forecasts.iter().filter(|(_, f)| f.is_some()).count();
        // The pass is pure: every run must decide the same. The digest lets a change meant only for speed be
        // compared with the plan of the build before it.
        let this = plan_digest(&plan);
        if digest.is_some_and(|d| d != this) {
            panic!("two passes over the same state planned differently");
        }
        digest = Some(this);
    }
    times.sort();
    cpu.sort();
    println!(
        "    median {:>9.1?}  min {:>9.1?}  max {:>9.1?}  cpu median {:>9.1?}  ({} starts, {} reservations, \
         plan {:016x})",
        times[RUNS / 2],
        times[0],
        times[RUNS - 1],
        cpu[RUNS / 2],
        starts,
        forecasts,
        digest.unwrap_or_default()
    );
    (times[RUNS / 2], starts, forecasts)
}

fn main() {
    let sizes: Vec<usize> = match std::env::args().nth(1).filter(|a| !a.starts_with('-')) {
        Some(n) => n.split(',').filter_map(|v| v.parse().ok()).collect(),
        None => vec![1_000, 10_000],
    };
    let topology = std::env::args().any(|a| a == "--topology");
    let finished = std::env::args().any(|a| a == "--finished");
    let limits = std::env::args().any(|a| a == "--limits");
    for nodes in sizes {
        let began = Instant::now();
        let mut s = build(nodes, topology, limits);
        println!(
            "{nodes} nodes x 8 GPUs{}{}, {PENDING_JOBS} pending jobs (built in {:.1?})",
            if topology { " in XGMI islands" } else { "" },
            if limits {
                ", association limits enforced"
            } else {
                ""
            },
            began.elapsed()
        );
        println!("  idle cluster:");
        time_passes(&s);
        if let Err(e) = s.pass() {
            panic!("pass: {e}");
        }
        s.now += 300;
        println!("  busy cluster (first plan committed, 5 min later):");
        time_passes(&s);
        if finished {
            add_finished(&mut s);
            println!("  busy cluster with {FINISHED_JOBS} finished jobs kept:");
            time_passes(&s);
        }
    }
}
