//! Placement under `topology/tree` on the pure scheduler: a multi-node job lands under the tightest leaf switch
//! that holds it, spills to the lowest common switch when none does, never uses nodes outside the tree, and with
//! `--switches` waits (for `Resources`, as Slurm 22.05 has no reason of its own) until few enough leaves are free
//! or its wait is over. Both the backfill and the builtin scheduler place this way.

use pretty_assertions::assert_eq;

use spur_core::grammar::conf::TopologyConf;
use spur_core::model::job::{EpochSecs, JobSpec, SwitchRequest};
use spur_core::model::states::{JobBaseState, JobReason};
use spur_core::policy::switch_tree::SwitchTree;

use super::scenario::{job, node, partition, Scenario};
use crate::state::{BackfillSettings, Settings};

const T0: EpochSecs = 1_000_020;

/// Leaves `sa` (4 nodes), `sb` (2) and `sc` (3) under `spine`; `x1` under no switch and first in the partition,
/// so a placement that ignored the tree would start there.
const TOPOLOGY: &str = "SwitchName=sa Nodes=a[1-4]\nSwitchName=sb Nodes=b[1-2]\n\
                        SwitchName=sc Nodes=c[1-3]\nSwitchName=spine Switches=sa,sb,sc\n";

fn names() -> Vec<String> {
    ["x1", "a1", "a2", "a3", "a4", "b1", "b2", "c1", "c2", "c3"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

fn tree() -> SwitchTree {
    let conf = TopologyConf::parse_str(TOPOLOGY, "topology.conf").unwrap();
    SwitchTree::resolve(&conf, &names()).unwrap().tree
}

fn cluster_with(backfill: bool) -> Scenario {
    let nodes: Vec<_> = names().iter().map(|n| node(n, 4, 8000, 0)).collect();
    let settings = Settings {
        switch_tree: tree(),
        backfill: BackfillSettings {
            enabled: backfill,
            ..BackfillSettings::default()
        },
        ..Settings::default()
    };
    Scenario::new(nodes, vec![partition("p", &names(), true)], settings, T0).unwrap()
}

fn cluster() -> Scenario {
    cluster_with(true)
}

/// `nodes` whole-node-free jobs of one CPU each.
fn wide(nodes: u32) -> JobSpec {
    JobSpec {
        nodes_min: nodes,
        nodes_max: Some(nodes),
        ntasks: Some(nodes),
        ..job(1, 100, 0, Some(60))
    }
}

fn nodes_of(s: &Scenario, id: u32) -> Vec<String> {
    let j = &s.state.jobs[&id];
    assert_eq!(j.state, JobBaseState::Running, "job {id}: {:?}", j.reason);
    let mut names = j.alloc.as_ref().unwrap().node_names.clone();
    names.sort();
    names
}

fn run(s: &mut Scenario, spec: JobSpec) -> u32 {
    let id = s.submit(spec).unwrap();
    s.pass().unwrap();
    id
}

fn list(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_job_takes_the_tightest_leaf_that_holds_it() {
    for backfill in [true, false] {
        let mut s = cluster_with(backfill);
        let two = run(&mut s, wide(2));
        assert_eq!(
            nodes_of(&s, two),
            list(&["b1", "b2"]),
            "backfill {backfill}"
        );
        let three = run(&mut s, wide(3));
        assert_eq!(nodes_of(&s, three), list(&["c1", "c2", "c3"]));
        let four = run(&mut s, wide(4));
        assert_eq!(nodes_of(&s, four), list(&["a1", "a2", "a3", "a4"]));
        s.state.check_invariants().unwrap();
    }
}

#[test]
fn a_job_no_leaf_holds_spills_to_the_common_switch_largest_leaf_first() {
    let mut s = cluster();
    let five = run(&mut s, wide(5));
    assert_eq!(nodes_of(&s, five), list(&["a1", "a2", "a3", "a4", "b1"]));
    assert_eq!(
        crate::rules::switches::leaves_spanned(&s.state.settings.switch_tree, &nodes_of(&s, five)),
        2
    );
}

#[test]
fn busy_nodes_move_the_job_to_another_leaf() {
    let mut s = cluster();
    // One node of sb and two of sc are taken: a 2-node job fits only in sa, a 1-node one in the emptiest fit.
    let b = run(
        &mut s,
        JobSpec {
            required_nodes: Some("b1".into()),
            ..job(4, 100, 0, Some(60))
        },
    );
    assert_eq!(nodes_of(&s, b), list(&["b1"]));
    let c = run(
        &mut s,
        JobSpec {
            required_nodes: Some("c[1-2]".into()),
            ..wide(2)
        },
    );
    assert_eq!(nodes_of(&s, c), list(&["c1", "c2"]));
    // Four CPUs a node: only sa has two such nodes free.
    let pair = run(
        &mut s,
        JobSpec {
            ntasks: Some(8),
            ..wide(2)
        },
    );
    assert_eq!(nodes_of(&s, pair), list(&["a1", "a2"]));
}

#[test]
fn nodes_outside_the_tree_are_never_used() {
    let mut s = cluster();
    let err = s
        .submit(JobSpec {
            required_nodes: Some("x1".into()),
            ..job(1, 100, 0, Some(60))
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Requested node configuration is not available"
    );
    // All nodes of the tree are busy: a one-node job waits rather than take x1.
    let all = run(
        &mut s,
        JobSpec {
            ntasks: Some(36),
            ..wide(9)
        },
    );
    assert!(!nodes_of(&s, all).contains(&"x1".to_string()));
    let one = run(&mut s, job(1, 100, 0, Some(60)));
    let waiting = &s.state.jobs[&one];
    assert_eq!(waiting.state, JobBaseState::Pending);
    assert_eq!(waiting.reason, JobReason::Resources);
}

#[test]
fn required_nodes_on_two_leaves_meet_under_their_common_switch() {
    let mut s = cluster();
    let id = run(
        &mut s,
        JobSpec {
            required_nodes: Some("a4,c3".into()),
            ..wide(3)
        },
    );
    // The required nodes' leaves are filled first (sa's first free node).
    assert_eq!(nodes_of(&s, id), list(&["a1", "a4", "c3"]));
}

#[test]
fn switches_limit_waits_for_one_leaf_then_its_time_runs_out() {
    let mut s = cluster();
    // sa and sb are partly taken: three nodes are free under sa, one under sb, three under sc.
    let blocker = run(
        &mut s,
        JobSpec {
            required_nodes: Some("a1,b1,c1".into()),
            ntasks: Some(12),
            ..wide(3)
        },
    );
    assert_eq!(nodes_of(&s, blocker), list(&["a1", "b1", "c1"]));
    let limited = JobSpec {
        switches: Some(SwitchRequest {
            count: 1,
            wait_secs: Some(120),
        }),
        ..wide(4)
    };
    let id = run(&mut s, limited);
    let job = &s.state.jobs[&id];
    assert_eq!(job.state, JobBaseState::Pending);
    assert_eq!(job.reason, JobReason::Resources);
    assert_eq!(
        job.spec.switches.and_then(|w| w.wait_secs),
        Some(120),
        "kept under max_switch_wait"
    );
    // A job without the limit, submitted later, is not held back by it.
    let free = run(
        &mut s,
        JobSpec {
            ntasks: Some(4),
            ..wide(1)
        },
    );
    assert_eq!(nodes_of(&s, free), list(&["b2"]));
    s.now += 119;
    s.pass().unwrap();
    assert_eq!(s.state.jobs[&id].state, JobBaseState::Pending);
    s.now += 1;
    s.pass().unwrap();
    assert_eq!(nodes_of(&s, id), list(&["a2", "a3", "a4", "c2"]));
}

#[test]
fn switches_limit_starts_at_once_when_one_leaf_holds_the_job() {
    let mut s = cluster();
    let id = run(
        &mut s,
        JobSpec {
            switches: Some(SwitchRequest {
                count: 1,
                wait_secs: None,
            }),
            ..wide(3)
        },
    );
    assert_eq!(nodes_of(&s, id), list(&["c1", "c2", "c3"]));
    // The controller gives a request without a time the default max_switch_wait.
    assert_eq!(
        s.state.jobs[&id].spec.switches.and_then(|w| w.wait_secs),
        Some(crate::state::DEFAULT_MAX_SWITCH_WAIT_SECS)
    );
}

#[test]
fn without_topology_the_first_nodes_are_taken() {
    let nodes: Vec<_> = names().iter().map(|n| node(n, 4, 8000, 0)).collect();
    let mut s = Scenario::new(
        nodes,
        vec![partition("p", &names(), true)],
        Settings::default(),
        T0,
    )
    .unwrap();
    let id = run(&mut s, wide(2));
    assert_eq!(nodes_of(&s, id), list(&["a1", "x1"]));
}

/// Two leaves without a common switch (Slurm only warns): a job can never span them, so backfill plans a 2-node job
/// for when both nodes of one leaf are free, not for the earliest two nodes.
#[test]
fn backfill_plans_a_job_under_one_switch() {
    let names: Vec<String> = ["a1", "a2", "b1", "b2"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let conf = TopologyConf::parse_str(
        "SwitchName=sa Nodes=a[1-2]\nSwitchName=sb Nodes=b[1-2]\n",
        "t",
    )
    .unwrap();
    let settings = Settings {
        switch_tree: SwitchTree::resolve(&conf, &names).unwrap().tree,
        ..Settings::default()
    };
    let nodes: Vec<_> = names.iter().map(|n| node(n, 4, 8000, 0)).collect();
    let mut s = Scenario::new(nodes, vec![partition("p", &names, true)], settings, T0).unwrap();
    // Whole nodes until: a1 10 min, b1 10 min, b2 30 min, a2 60 min.
    for (name, minutes) in [("a1", 10), ("b1", 10), ("b2", 30), ("a2", 60)] {
        let id = run(
            &mut s,
            JobSpec {
                required_nodes: Some(name.into()),
                ..job(4, 100, 0, Some(minutes))
            },
        );
        assert_eq!(nodes_of(&s, id), list(&[name]));
    }
    let pair = run(&mut s, wide(2));
    let waiting = &s.state.jobs[&pair];
    assert_eq!(waiting.state, JobBaseState::Pending);
    assert_eq!(waiting.sched_nodes.as_deref(), Some("b[1-2]"));
    let start = waiting.expected_start.expect("a planned start");
    // Slurm's backfill rounds planned times up to bf_resolution (60 s).
    assert!(
        (T0 + 30 * 60..T0 + 31 * 60).contains(&start),
        "planned at {}",
        start - T0
    );
}

/// A tiny seeded generator, so the property below sees the same clusters on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Over many random trees and busy nodes: a multi-node job runs only under one switch, on nodes of the tree, under
/// a switch of the lowest level that had room, and within one leaf whenever a leaf had room; it waits only when no
/// switch had room.
#[test]
fn placements_stay_under_the_lowest_switch_with_room() {
    let mut rng = Lcg(7);
    // Rounds that were refused, waited, ran within one leaf, ran across leaves: each must happen.
    let mut seen = [0u32; 4];
    for round in 0..150 {
        let leaves = 2 + rng.below(3) as usize;
        let mut names = vec!["x1".to_string()];
        let mut text = String::new();
        for l in 0..leaves {
            let size = 1 + rng.below(4);
            let members: Vec<String> = (1..=size).map(|i| format!("l{l}n{i}")).collect();
            text.push_str(&format!("SwitchName=leaf{l} Nodes={}\n", members.join(",")));
            names.extend(members);
        }
        let spine = rng.below(4) != 0;
        if spine {
            text.push_str(&format!(
                "SwitchName=spine Switches=leaf[0-{}]\n",
                leaves - 1
            ));
        }
        let conf = TopologyConf::parse_str(&text, "t").unwrap();
        let tree = SwitchTree::resolve(&conf, &names).unwrap().tree;
        let settings = Settings {
            switch_tree: tree.clone(),
            ..Settings::default()
        };
        let nodes: Vec<_> = names.iter().map(|n| node(n, 4, 8000, 0)).collect();
        let mut s = Scenario::new(nodes, vec![partition("p", &names, true)], settings, T0).unwrap();
        let mut busy = Vec::new();
        for name in names.iter().filter(|_| rng.below(3) == 0) {
            if name == "x1" {
                continue;
            }
            run(
                &mut s,
                JobSpec {
                    required_nodes: Some(name.clone()),
                    ..job(4, 100, 0, Some(60))
                },
            );
            busy.push(name.clone());
        }
        let wanted = 1 + rng.below(6) as usize;
        let Ok(id) = s.submit(wide(wanted as u32)) else {
            // Refused at submission: no switch could ever hold it.
            assert!(
                tree.switches.iter().all(|sw| sw.nodes.len() < wanted),
                "round {round}"
            );
            seen[0] += 1;
            continue;
        };
        s.pass().unwrap();
        let free_under = |sw: &spur_core::policy::switch_tree::Switch| {
            sw.nodes.iter().filter(|n| !busy.contains(n)).count()
        };
        let roomy: Vec<_> = tree
            .switches
            .iter()
            .filter(|sw| free_under(sw) >= wanted)
            .collect();
        let job = &s.state.jobs[&id];
        let Some(alloc) = job.alloc.as_ref() else {
            assert!(
                roomy.is_empty(),
                "round {round}: waits though {:?} had room",
                roomy[0].name
            );
            seen[1] += 1;
            continue;
        };
        let used = &alloc.node_names;
        assert!(!used.contains(&"x1".to_string()), "round {round}");
        let holders: Vec<_> = tree
            .switches
            .iter()
            .filter(|sw| used.iter().all(|n| sw.nodes.contains(n)))
            .collect();
        let lowest_holder = holders.iter().map(|sw| sw.level).min();
        let lowest_roomy = roomy.iter().map(|sw| sw.level).min();
        assert_eq!(
            lowest_holder, lowest_roomy,
            "round {round}: {used:?}\n{text}"
        );
        s.state.check_invariants().unwrap();
        seen[if lowest_holder == Some(0) { 2 } else { 3 }] += 1;
    }
    assert!(seen.iter().all(|n| *n > 0), "{seen:?}");
}
