//! `slurm.conf` parsing: the reference cluster's files, DEFAULT inheritance, continuation lines, includes,
//! case-insensitivity and the typed accessors.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use pretty_assertions::assert_eq;
use spur_core::grammar::conf::{
    ConfErrorKind, ControllerHost, MemPer, OverSubscribe, ParseOptions, PartitionState, PortRange,
    SlurmConf,
};
use spur_core::model::states::{NodeBaseState, NodeState, NodeStateFlag};

const BASE: &str = "ClusterName=test\nSlurmctldHost=ctl\n";

fn parse(body: &str) -> SlurmConf {
    SlurmConf::parse_str(&format!("{BASE}{body}"), "slurm.conf").unwrap_or_else(|e| panic!("{e}"))
}

fn parse_err(body: &str) -> Vec<String> {
    let err = SlurmConf::parse_str(&format!("{BASE}{body}"), "slurm.conf").expect_err("must fail");
    err.errors.iter().map(ToString::to_string).collect()
}

#[test]
fn reference_single_node_cluster() {
    let conf =
        SlurmConf::parse_str(include_str!("fixtures/slurm.conf"), "/etc/slurm/slurm.conf").unwrap();
    assert_eq!(conf.cluster_name(), Some("refcluster"));
    assert_eq!(
        conf.controllers,
        [ControllerHost {
            hostname: "vm".into(),
            addr: "127.0.0.1".into()
        }]
    );
    assert_eq!(conf.slurmctld_port(), PortRange::single(6817));
    assert_eq!(conf.slurmd_port(), 6818);
    assert_eq!(conf.auth_type(), "auth/munge");
    assert_eq!(conf.auth_alt_types(), ["auth/jwt"]);
    assert_eq!(
        conf.auth_alt_parameters(),
        Some("jwt_key=$RUNDIR/jwt_hs256.key")
    );
    assert_eq!(conf.select_type(), "select/cons_tres");
    assert_eq!(conf.select_type_parameters(), Some("CR_Core_Memory"));
    assert_eq!(conf.def_mem_per_cpu(), 1024);
    assert_eq!(conf.scheduler_type(), "sched/backfill");
    assert_eq!(conf.return_to_service(), 2);
    assert_eq!(conf.gres_types(), ["gpu"]);
    assert_eq!(conf.state_save_location(), Some("$RUNDIR/state"));
    assert_eq!(conf.slurmd_spool_dir(), Some("$RUNDIR/spool/%n"));
    assert_eq!(conf.job_comp_type(), "jobcomp/filetxt");
    assert_eq!(conf.job_comp_loc(), Some("$RUNDIR/log/jobcomp.txt"));
    assert_eq!(
        (
            conf.min_job_age(),
            conf.max_job_count(),
            conf.max_array_size()
        ),
        (300, 20000, 10001)
    );
    assert_eq!(
        (conf.kill_wait(), conf.inactive_limit(), conf.wait_time()),
        (5, 0, 0)
    );
    assert_eq!(
        (
            conf.slurmctld_timeout(),
            conf.slurmd_timeout(),
            conf.message_timeout()
        ),
        (60, 60, 10)
    );
    assert_eq!(conf.proctrack_type(), "proctrack/linuxproc");
    assert_eq!(conf.task_plugin(), "task/none");
    assert_eq!(conf.mpi_default(), "none");
    assert_eq!(conf.first_job_id(), 1);

    let [node] = conf.nodes.as_slice() else {
        panic!("one node")
    };
    assert_eq!(
        (
            node.names.as_str(),
            node.hostnames.as_str(),
            node.addresses.as_str()
        ),
        ("vm", "vm", "127.0.0.1")
    );
    assert_eq!(
        (
            node.cpus,
            node.boards,
            node.sockets,
            node.cores_per_socket,
            node.threads_per_core
        ),
        (2, 1, 1, 2, 1)
    );
    assert_eq!(node.real_memory, 23593);
    assert_eq!(node.gres.as_deref(), Some("gpu:a100:4"));
    assert_eq!(node.state, Some(NodeState::new(NodeBaseState::Unknown)));
    assert_eq!((node.weight, node.tmp_disk), (1, 0));
    assert_eq!(node.location.line, 41);

    let [part] = conf.partitions.as_slice() else {
        panic!("one partition")
    };
    assert_eq!(part.name, "debug");
    assert_eq!(part.nodes.as_deref(), Some("ALL"));
    assert!(part.default);
    assert_eq!(part.max_time.as_deref(), Some("INFINITE"));
    assert_eq!(part.state, PartitionState::Up);
    assert_eq!(
        conf.default_partition().map(|p| p.name.as_str()),
        Some("debug")
    );
    assert!(conf.warnings.is_empty(), "{:?}", conf.warnings);
}

#[test]
fn every_pair_is_kept_in_order() {
    let text = include_str!("fixtures/slurm.conf");
    let conf = SlurmConf::parse_str(text, "slurm.conf").unwrap();
    let written: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('=').next().unwrap())
        .collect();
    let kept: Vec<&str> = conf.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(kept, written);
    let node = conf.get_all("nodename").next().unwrap();
    assert_eq!(node.value, "vm");
    assert_eq!(
        node.params
            .iter()
            .map(|p| p.key.as_str())
            .collect::<Vec<_>>()[..2],
        ["NodeAddr", "CPUs"]
    );
    assert_eq!(conf.get("MaxArraySize"), Some("10001"));
}

#[test]
fn reference_multi_node_cluster() {
    let conf = SlurmConf::parse_str(
        include_str!("fixtures/multi-netns-slurm.conf"),
        "slurm.conf",
    )
    .unwrap();
    assert_eq!(conf.slurmctld_port(), PortRange::single(7817));
    assert_eq!(conf.slurmd_port(), 7818);
    assert_eq!(conf.controllers[0].addr, "10.200.0.1");
    let names: Vec<_> = conf
        .nodes
        .iter()
        .map(|n| (n.names.as_str(), n.addresses.as_str()))
        .collect();
    assert_eq!(
        names,
        [
            ("n1", "10.200.0.11"),
            ("n2", "10.200.0.12"),
            ("n3", "10.200.0.13")
        ]
    );
    // CPUs=2 alone: one socket per board, so two cores of one thread.
    assert_eq!(
        (
            conf.nodes[0].sockets,
            conf.nodes[0].cores_per_socket,
            conf.nodes[0].cpus
        ),
        (2, 1, 2)
    );
    assert_eq!(conf.partitions[0].name, "batch");
}

#[test]
fn node_defaults_accumulate_and_later_lines_override() {
    let conf = parse(
        "NodeName=DEFAULT CPUs=4 RealMemory=1000 State=IDLE\n\
         NodeName=DEFAULT Gres=gpu:2\n\
         NodeName=a[1-2] Feature=fast\n\
         NodeName=DEFAULT CPUs=8\n\
         NodeName=b RealMemory=5 Features=slow\n",
    );
    let a = &conf.nodes[0];
    assert_eq!(
        (a.names.as_str(), a.cpus, a.real_memory, a.gres.as_deref()),
        ("a[1-2]", 4, 1000, Some("gpu:2"))
    );
    assert_eq!(a.features.as_deref(), Some("fast"));
    assert_eq!(a.state, Some(NodeState::new(NodeBaseState::Idle)));
    let b = &conf.nodes[1];
    assert_eq!(
        (
            b.cpus,
            b.real_memory,
            b.gres.as_deref(),
            b.features.as_deref()
        ),
        (8, 5, Some("gpu:2"), Some("slow"))
    );
}

#[test]
fn node_topology_is_derived_like_slurm() {
    let conf = parse(
        "NodeName=a CPUs=16 CoresPerSocket=4 ThreadsPerCore=2\n\
         NodeName=b Boards=2 SocketsPerBoard=2 CoresPerSocket=8\n\
         NodeName=c CPUs=5 Sockets=2 CoresPerSocket=2\n\
         NodeName=d State=CLOUD Weight=INFINITE\n",
    );
    let topo = |i: usize| {
        let n = &conf.nodes[i];
        (
            n.cpus,
            n.boards,
            n.sockets,
            n.cores_per_socket,
            n.threads_per_core,
        )
    };
    assert_eq!(topo(0), (16, 1, 2, 4, 2));
    assert_eq!(topo(1), (32, 2, 4, 8, 1));
    assert_eq!(topo(2), (4, 1, 2, 2, 1));
    let cloud = NodeState::new(NodeBaseState::Idle)
        .with(NodeStateFlag::Cloud)
        .with(NodeStateFlag::PoweredDown);
    assert_eq!(conf.nodes[3].state, Some(cloud));
    assert_eq!(conf.nodes[3].weight, u32::MAX - 1);
    let warning = conf
        .warnings
        .iter()
        .map(ToString::to_string)
        .find(|w| w.contains("NodeNames=c"));
    assert_eq!(
        warning.as_deref(),
        Some(
            "NodeNames=c CPUs=5 match no Sockets, Sockets*CoresPerSocket or Sockets*CoresPerSocket*ThreadsPerCore. \
             Resetting CPUs. in file slurm.conf line 5"
        )
    );
}

#[test]
fn invalid_node_state() {
    assert_eq!(
        parse_err("NodeName=n[1-2] State=ALLOC\n"),
        ["node n[1-2] has invalid state ALLOC in file slurm.conf line 3"]
    );
}

#[test]
fn partition_defaults_and_fields() {
    let conf = parse(
        "PartitionName=DEFAULT MaxTime=60 State=DOWN AllowAccounts=Physics DisableRootJobs=YES\n\
         PartitionName=p1 Nodes=\"n1 n2\"\n\
         PartitionName=DEFAULT PriorityTier=5 MaxMemPerNode=4000 DefMemPerCPU=100\n\
         PartitionName=p2 State=UP OverSubscribe=FORCE:2 Priority=9 Default=YES Hidden=yes AllowGroups=ALL\n",
    );
    let (p1, p2) = (&conf.partitions[0], &conf.partitions[1]);
    assert_eq!(p1.max_time.as_deref(), Some("60"));
    assert_eq!(p1.state, PartitionState::Down);
    assert_eq!(p1.nodes.as_deref(), Some("n1,n2"));
    assert_eq!(p1.allow_accounts.as_deref(), Some("physics"));
    assert_eq!((p1.priority_tier, p1.max_nodes), (1, u32::MAX));
    assert_eq!(p1.over_subscribe, OverSubscribe::No);
    assert_eq!(
        p1.disable_root_jobs, None,
        "DisableRootJobs is never inherited"
    );
    assert_eq!(p2.state, PartitionState::Up);
    assert_eq!(p2.max_time.as_deref(), Some("60"));
    assert_eq!((p2.priority_tier, p2.priority_job_factor), (9, 9));
    assert_eq!(p2.over_subscribe, OverSubscribe::Force(2));
    assert_eq!(
        (p2.max_mem, p2.def_mem),
        (Some(MemPer::Node(4000)), Some(MemPer::Cpu(100)))
    );
    assert!(p2.default && p2.hidden);
    assert_eq!(p2.allow_groups, None);
    assert_eq!(
        conf.default_partition().map(|p| p.name.as_str()),
        Some("p2")
    );
}

#[test]
fn other_record_lines() {
    let conf = parse(
        "NodeSet=gpus Feature=gpu\n\
         DownNodes=n[3-4] State=FAIL\n\
         FrontendName=fe1 Port=6000\n\
         SlurmctldHost=backup(10.0.0.2)\n",
    );
    assert_eq!(conf.node_sets[0].feature.as_deref(), Some("gpu"));
    assert_eq!(conf.down_nodes[0].reason, "Set in slurm.conf");
    assert_eq!(conf.down_nodes[0].state.as_deref(), Some("FAIL"));
    assert_eq!(
        (conf.frontends[0].addresses.as_str(), conf.frontends[0].port),
        ("fe1", Some(6000))
    );
    assert!(conf
        .warnings
        .iter()
        .any(|w| w.to_string().starts_with("Use of FrontendName")));
    let hosts: Vec<_> = conf
        .controllers
        .iter()
        .map(|c| c.hostname.as_str())
        .collect();
    assert_eq!(hosts, ["ctl", "backup"]);
}

#[test]
fn continuation_lines() {
    let conf =
        parse("NodeName=n1 \\\n  CPUs=4 \\\n  RealMemory=100\nPartitionName=p \\\nNodes=n1\n");
    assert_eq!((conf.nodes[0].cpus, conf.nodes[0].real_memory), (4, 100));
    assert_eq!(conf.nodes[0].location.line, 3);
    assert_eq!(conf.partitions[0].location.line, 6);
    assert_eq!(
        parse_err("NodeName=n1 \\\n CPUs=x\nFoo=1\n"),
        [
            "CPUs value \"x\" is not a valid number in file slurm.conf line 3",
            "Parse error in file slurm.conf line 3: \"  CPUs=x\"",
            "Parsing error at unrecognized key: Foo in file slurm.conf line 5",
        ]
    );
}

#[test]
fn keys_are_case_insensitive() {
    let conf = SlurmConf::parse_str(
        "clustername=c\nSLURMCTLDHOST=h\nnodename=n1 cpus=2 REALMEMORY=9\npartitionname=p nodes=all default=YES\nkillwait=7\n",
        "slurm.conf",
    )
    .unwrap();
    assert_eq!(conf.cluster_name(), Some("c"));
    assert_eq!((conf.nodes[0].cpus, conf.nodes[0].real_memory), (2, 9));
    assert!(conf.partitions[0].default);
    assert_eq!(conf.kill_wait(), 7);
    assert_eq!(conf.get("KILLWAIT"), Some("7"));
}

#[test]
fn values_are_literal_and_quotes_group_blanks() {
    let conf =
        parse("Epilog=\"/opt/my epilog.sh\"\nProlog=$HOME/p\\#1 # comment\nPriorityMaxAge=7-0\n");
    assert_eq!(conf.epilog(), Some("/opt/my epilog.sh"));
    assert_eq!(conf.prolog(), Some("$HOME/p#1"));
    assert_eq!(conf.priority_max_age(), Some("7-0"));
}

#[test]
fn global_values_last_one_wins_with_a_warning() {
    let conf = parse("KillWait=5\nKillWait=10\n");
    assert_eq!(conf.kill_wait(), 10);
    assert_eq!(conf.location_of("killwait").map(|l| l.line), Some(4));
    assert_eq!(
        conf.warnings[0].slurm_text(),
        "KillWait 1 specified more than once, latest value used"
    );
}

#[test]
fn slurmctld_port_ranges_and_scheduler_options() {
    let conf = parse("SlurmctldPort=6817-6820\nSchedulerParameters=batch_sched_delay=0,defer\nPrivateData=Jobs,nodes\n");
    assert_eq!(
        conf.slurmctld_port().ports().collect::<Vec<_>>(),
        [6817, 6818, 6819, 6820]
    );
    assert_eq!(
        conf.scheduler_options(),
        [("batch_sched_delay", Some("0")), ("defer", None)]
    );
    assert_eq!(conf.private_data_list(), ["jobs", "nodes"]);
}

fn resolver(files: &[(&str, &str)]) -> impl FnMut(&str) -> Result<String, String> {
    let map: HashMap<String, String> = files
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |path: &str| {
        map.get(path)
            .cloned()
            .ok_or_else(|| "No such file or directory".to_string())
    }
}

#[test]
fn includes_relative_absolute_and_nested() {
    let mut files = resolver(&[
        (
            "/etc/slurm/nodes.conf",
            "NodeName=n1 CPUs=2\ninclude sub/parts.conf\n",
        ),
        (
            "/etc/slurm/sub/parts.conf",
            "PartitionName=p Nodes=n1\ninclude /opt/extra.conf\n",
        ),
        ("/opt/extra.conf", "KillWait=9\n"),
        ("/etc/slurm/test.conf", "MinJobAge=42\n"),
    ]);
    let text = format!("{BASE}include nodes.conf\nINCLUDE %c.conf\nMaxJobCount=5\n");
    let conf = SlurmConf::parse(&text, "/etc/slurm/slurm.conf", &mut files).unwrap();
    assert_eq!(conf.nodes[0].location.file, "/etc/slurm/nodes.conf");
    assert_eq!(
        conf.partitions[0].location.file,
        "/etc/slurm/sub/parts.conf"
    );
    assert_eq!(conf.kill_wait(), 9);
    assert_eq!(conf.min_job_age(), 42);
    let order: Vec<_> = conf.entries.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        order,
        [
            "ClusterName",
            "SlurmctldHost",
            "NodeName",
            "PartitionName",
            "KillWait",
            "MinJobAge",
            "MaxJobCount"
        ]
    );
}

#[test]
fn include_failures() {
    let parse_with = |text: &str, files: &[(&str, &str)]| {
        let mut r = resolver(files);
        let err = SlurmConf::parse(&format!("{BASE}{text}"), "/etc/slurm/slurm.conf", &mut r)
            .unwrap_err();
        err.errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        parse_with("include missing.conf\n", &[]),
        [
            "unable to read \"/etc/slurm/missing.conf\": No such file or directory in file /etc/slurm/slurm.conf line 3",
            "\"Include\" failed in file /etc/slurm/slurm.conf line 3",
        ]
    );
    let looped = parse_with(
        "include a.conf\n",
        &[
            ("/etc/slurm/a.conf", "include b.conf\n"),
            ("/etc/slurm/b.conf", "include a.conf\n"),
        ],
    );
    assert_eq!(looped[0], "include of \"/etc/slurm/a.conf\" loops back to a file that is being read in file /etc/slurm/b.conf line 1");
    assert_eq!(looped.len(), 4);
    let bad = parse_with(
        "include a.conf\n",
        &[("/etc/slurm/a.conf", "\nKillWait=x\n")],
    );
    assert_eq!(
        bad[0],
        "KillWait value \"x\" is not a valid number in file /etc/slurm/a.conf line 2"
    );
    let no_cluster = SlurmConf::parse_str(
        "include %c.conf\nClusterName=x\nSlurmctldHost=h\n",
        "slurm.conf",
    )
    .unwrap_err();
    assert!(no_cluster.contains(|k| *k == ConfErrorKind::IncludeNeedsClusterName));
}

#[test]
fn include_depth_is_bounded() {
    let mut chain = |path: &str| -> Result<String, String> {
        let n: usize = path
            .trim_start_matches("/d/f")
            .trim_end_matches(".conf")
            .parse()
            .unwrap_or(0);
        Ok(format!("include f{}.conf\n", n + 1))
    };
    let options = ParseOptions {
        max_include_depth: 5,
        ..ParseOptions::default()
    };
    let err = SlurmConf::parse_with(
        &format!("{BASE}include f0.conf\n"),
        "/d/slurm.conf",
        &mut chain,
        &options,
    )
    .unwrap_err();
    assert!(err.contains(|k| matches!(k, ConfErrorKind::IncludeTooDeep { max: 5, .. })));
}

#[test]
fn lenient_mode_keeps_unknown_keys() {
    let options = ParseOptions {
        ignore_unknown_keys: true,
        ..ParseOptions::default()
    };
    let text = format!("{BASE}FutureKey=1\nNodeName=n1 NewThing=2 CPUs=3\n");
    let conf = SlurmConf::parse_with(
        &text,
        "slurm.conf",
        &mut spur_core::grammar::conf::no_includes,
        &options,
    )
    .unwrap();
    assert_eq!(conf.get("futurekey"), Some("1"));
    assert_eq!(conf.nodes[0].cpus, 3);
    assert!(SlurmConf::parse_str(&text, "slurm.conf").is_err());
}

#[test]
fn legacy_controller_keys() {
    let conf = SlurmConf::parse_str(
        "ClusterName=c\nControlMachine=m1\nBackupController=m2\nBackupAddr=10.0.0.2\n",
        "s",
    )
    .unwrap();
    let hosts: Vec<_> = conf
        .controllers
        .iter()
        .map(|c| (c.hostname.as_str(), c.addr.as_str()))
        .collect();
    assert_eq!(hosts, [("m1", "m1"), ("m2", "10.0.0.2")]);
    let both = parse("ControlMachine=old\n");
    assert_eq!(
        both.warnings[0].slurm_text(),
        "Ignoring ControlMachine since SlurmctldHost is set."
    );
}
