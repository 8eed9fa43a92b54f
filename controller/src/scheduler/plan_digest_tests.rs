//! The scheduler's decisions pinned on seeded workloads: every pass of a small cluster of mixed nodes (typed and
//! untyped GPUs, XGMI islands, features, weights, a drained node, advance reservations, optionally a switch tree)
//! is reduced to [`plan_digest`] and compared with the digests the scheduler gave before its speed work. A change
//! meant only to make passes faster must leave every start (nodes, CPUs, memory, GPU units), reason and
//! reservation as it was; one that means to change decisions updates these digests and says why.

use spur_core::grammar::conf::TopologyConf;
use spur_core::model::job::{EpochSecs, GresRequest, JobSpec, SwitchRequest};
use spur_core::model::records::NodeGres;
use spur_core::model::reservation::{ReservationFlag, ReservationRequest};
use spur_core::model::states::JobBaseState;
use spur_core::policy::switch_tree::SwitchTree;
use spur_core::wire::api::ControlRequest;

use super::scenario::{
    job, node, partition, plan_digest, two_xgmi_islands, with_gpu_files, Scenario,
};
use crate::state::{BackfillSettings, Command, NodeDefinition, Settings};

const T0: EpochSecs = 1_800_000_000;
const PASSES: usize = 10;

/// The same small generator as the scheduler benchmark, so workloads repeat exactly.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[(self.next() % from.len() as u64) as usize]
    }

    /// True once in `n` draws.
    fn one_in(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

/// 24 GPU nodes `g01-g24` (8 untyped-requestable a100s; the first 12 report XGMI islands), 8 mixed nodes
/// `m1-m8` (two a100s and two h100s, less preferred, `m1-m4` with feature `h100`), 8 CPU nodes `c1-c8` (most
/// preferred, `c1-c4` with feature `fast`, `c8` drained).
fn definitions() -> Vec<NodeDefinition> {
    let mut defs = Vec::new();
    for i in 1..=24 {
        defs.push(with_gpu_files(node(&format!("g{i:02}"), 64, 512_000, 8)));
    }
    for i in 1..=8 {
        let mut def = node(&format!("m{i}"), 32, 128_000, 0);
        def.weight = 2;
        def.gres = ["a100", "h100"]
            .iter()
            .map(|t| NodeGres {
                name: "gpu".to_string(),
                gres_type: Some(t.to_string()),
                count: 2,
                files: Vec::new(),
            })
            .collect();
        if i <= 4 {
            def.features = vec!["h100".to_string()];
        }
        defs.push(def);
    }
    for i in 1..=8 {
        let mut def = node(&format!("c{i}"), 16, 64_000, 0);
        def.weight = 0;
        if i <= 4 {
            def.features = vec!["fast".to_string()];
        }
        def.configured_drain = i == 8;
        defs.push(def);
    }
    defs
}

fn switch_tree(names: &[String]) -> SwitchTree {
    let text = "SwitchName=s1 Nodes=g[01-08]\nSwitchName=s2 Nodes=g[09-16]\nSwitchName=s3 Nodes=g[17-24]\n\
                SwitchName=s4 Nodes=m[1-8]\nSwitchName=s5 Nodes=c[1-8]\n\
                SwitchName=spine Switches=s[1-5]\n";
    let conf = TopologyConf::parse_str(text, "topology.conf").unwrap();
    SwitchTree::resolve(&conf, names).unwrap().tree
}

fn reserve(s: &mut Scenario, name: &str, nodes: &str, start: EpochSecs, minutes: u32, maint: bool) {
    let now = s.now;
    s.apply(Command::Control {
        caller_uid: 0,
        request: ControlRequest::CreateReservation {
            request: ReservationRequest {
                name: Some(name.into()),
                start: Some(start),
                duration_min: Some(minutes),
                nodes: Some(nodes.into()),
                users: Some(vec!["alice".into()]),
                user_ids: vec![1000],
                flags_set: if maint {
                    vec![ReservationFlag::Maint]
                } else {
                    Vec::new()
                },
                ..Default::default()
            },
        },
        now,
    })
    .unwrap();
}

fn cluster(backfill: bool, topology: bool) -> Scenario {
    let defs = definitions();
    let names: Vec<String> = defs.iter().map(|d| d.name.clone()).collect();
    let cpu_nodes: Vec<String> = names
        .iter()
        .filter(|n| n.starts_with('c'))
        .cloned()
        .collect();
    let settings = Settings {
        backfill: BackfillSettings {
            enabled: backfill,
            max_job_test: 60,
            ..BackfillSettings::default()
        },
        switch_tree: if topology {
            switch_tree(&names)
        } else {
            SwitchTree::default()
        },
        ..Settings::default()
    };
    let parts = vec![
        partition("all", &names, true),
        partition("cpu", &cpu_nodes, false),
    ];
    let mut s = Scenario::new(defs.clone(), parts, settings, T0).unwrap();
    for def in defs.iter().take(12) {
        s.report_gpus(def, two_xgmi_islands()).unwrap();
    }
    reserve(&mut s, "maint", "g[20-24]", T0 + 2 * 3600, 180, true);
    reserve(&mut s, "resv", "c[5-6]", T0, 120, false);
    s
}

/// One seeded job of any shape the scheduler distinguishes.
fn random_job(rng: &mut Lcg, topology: bool) -> JobSpec {
    let cpus = rng.pick(&[1, 2, 4, 8, 16, 32]);
    let mut spec = job(
        cpus,
        rng.pick(&[500, 4_000, 16_000, 64_000]),
        rng.pick(&[0, 0, 0, 1, 1, 2, 4, 8]),
        rng.pick(&[Some(10), Some(30), Some(60), Some(240), Some(1440), None]),
    );
    spec.nodes_min = rng.pick(&[1, 1, 1, 1, 2, 3]);
    spec.ntasks = Some(cpus * spec.nodes_min);
    if rng.one_in(6) {
        spec.mem_per_node_mb = None;
        spec.mem_per_cpu_mb = Some(rng.pick(&[500, 2_000]));
    }
    if rng.one_in(8) {
        spec.gres = vec![GresRequest {
            name: "gpu".to_string(),
            gres_type: Some(rng.pick(&["a100", "h100"]).to_string()),
            count: rng.pick(&[1, 2]),
        }];
    }
    if rng.one_in(15) {
        spec.exclusive = true;
        spec.mem_per_node_mb = None;
    }
    if rng.one_in(25) {
        spec.required_nodes = Some(rng.pick(&["g03", "m2", "c1", "g21"]).to_string());
    }
    if rng.one_in(12) {
        spec.excluded_nodes = Some(rng.pick(&["g[01-04]", "c[1-3]", "m1"]).to_string());
    }
    if rng.one_in(10) {
        spec.constraint = Some(rng.pick(&["fast", "h100", "fast|h100"]).to_string());
    }
    if rng.one_in(8) {
        spec.partition = Some("cpu".to_string());
        spec.gres.clear();
    }
    if rng.one_in(30) {
        spec.reservation = Some("resv".to_string());
        spec.gres.clear();
    }
    if topology && spec.nodes_min > 1 && rng.one_in(3) {
        spec.switches = Some(SwitchRequest {
            count: 1,
            wait_secs: Some(rng.pick(&[0, 600, 3600])),
        });
    }
    spec
}

/// The digests of `PASSES` passes (recorded from the scheduler before the speed work of 2026-12-02; again when
/// whole-node jobs started taking their nodes' GPUs, which changed only those jobs' GRES indices: the digests
/// without GRES stayed equal; and again when a multi-node job's GPUs came to be picked node by node: the plans
/// first differ at multi-node GPU jobs, which now start on the preferred nodes with each node's own free GPUs
/// where they used to need the same indices free everywhere. Each assertion prints the digests found, pass by
/// pass): between passes the clock moves on, some running jobs end and more arrive.
fn digests(backfill: bool, topology: bool, seed: u64) -> Vec<u64> {
    let mut s = cluster(backfill, topology);
    let mut rng = Lcg(seed);
    for _ in 0..250 {
        // A request the partition could never satisfy is refused at submit; the workload just goes on.
        let _ = s.submit(random_job(&mut rng, topology));
    }
    let mut out = Vec::new();
    for _ in 0..PASSES {
        out.push(plan_digest(&s.pass().unwrap()));
        // The mixed nodes offer `gpu` twice (a100 and h100): one ledger for the name.
        s.state.check_invariants().unwrap();
        s.now += 60 * rng.pick(&[2, 7, 15, 45]);
        let running: Vec<u32> = s
            .state
            .jobs
            .values()
            .filter(|j| j.state == JobBaseState::Running)
            .map(|j| j.job_id)
            .collect();
        for id in running {
            if rng.one_in(3) {
                s.finish(id).unwrap();
            }
        }
        for _ in 0..25 {
            let _ = s.submit(random_job(&mut rng, topology));
        }
    }
    out
}

#[test]
fn backfill_plans_are_unchanged() {
    assert_eq!(
        digests(true, false, 7),
        [
            0x1558e40bb2022a84,
            0x981c15c166f9de50,
            0x7bcbf6c07b8a8986,
            0x0b3473ce46aae4d0,
            0x43aa5c3734bf9c39,
            0x5de6978870eae832,
            0xc63b136fe763b209,
            0xfe8c3585040a2041,
            0xf1440ecb60aa3088,
            0x76df0e0a1f324588,
        ]
    );
}

#[test]
fn backfill_plans_under_a_switch_tree_are_unchanged() {
    assert_eq!(
        digests(true, true, 11),
        [
            0xa269cf9eb7abb5ff,
            0xce399801719db0f3,
            0x2757073f6f84c6ac,
            0x442d2ac419c7a42b,
            0x36d9f2efb00d35e0,
            0x26a7e172793c3f55,
            0x6c584e64396b1ddc,
            0xb1f7af37fe92e009,
            0xfe907e8769f4169d,
            0x9d9129d45e099936,
        ]
    );
}

#[test]
fn builtin_plans_are_unchanged() {
    assert_eq!(
        digests(false, false, 13),
        [
            0xc04fc10c5baede60,
            0x17bc047bc6e15c46,
            0x536d0ac514738d70,
            0x4ee75c090cd4d132,
            0xd81e0c0217378574,
            0xb4b704c98b74c9db,
            0x1c6238de05502410,
            0x5cebb296f86bdb27,
            0x2377a313ba2a5892,
            0xb3ef565623ba176e,
        ]
    );
}
