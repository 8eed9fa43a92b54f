//! The configuration parsers must never panic, whatever the text: bad input is an error.

use proptest::prelude::*;
use spur_core::grammar::conf::{GresConf, SlurmConf};

/// Text made of the characters the grammar cares about, so cases reach deep into the parsers.
fn conf_like() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "NodeName=",
        "PartitionName=",
        "DEFAULT",
        "CPUs=",
        "Sockets=",
        "SocketsPerBoard=",
        "Boards=",
        "CoresPerSocket=",
        "ThreadsPerCore=",
        "RealMemory=",
        "State=",
        "Nodes=",
        "OverSubscribe=",
        "FORCE:",
        "YES:",
        "include ",
        "%c",
        "ClusterName=",
        "SlurmctldHost=",
        "SlurmctldPort=",
        "Name=",
        "File=",
        "Count=",
        "Links=",
        "Flags=",
        "MultipleFiles=",
        "AutoDetect=",
        "x(",
        ")",
        "[",
        "]",
        "-",
        ",",
        "0",
        "7",
        "65535",
        "4294967296",
        "k",
        "G",
        "\"",
        "\\",
        "#",
        " ",
        "\t",
        "\n",
        "=",
        "+=",
        "INFINITE",
        "UNLIMITED",
        "-1",
        "0x",
        "ALL",
        "é",
        "\r",
    ]);
    prop::collection::vec(words, 0..60).prop_map(|w| w.concat())
}

fn resolver(path: &str) -> Result<String, String> {
    // Includes resolve to more of the same, bounded by the depth limit.
    if path.len().is_multiple_of(3) {
        Ok(format!("include {path}x\nNodeName=a CPUs=0\n"))
    } else {
        Err("no".into())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn slurm_conf_never_panics(text in conf_like()) {
        let _ = SlurmConf::parse(&text, "/etc/slurm/slurm.conf", &mut resolver);
    }

    #[test]
    fn slurm_conf_never_panics_on_any_text(text in any::<String>()) {
        let _ = SlurmConf::parse_str(&text, "slurm.conf");
    }

    #[test]
    fn gres_conf_never_panics(text in conf_like()) {
        let _ = GresConf::parse(&text, "/etc/slurm/gres.conf", &mut resolver);
    }

    #[test]
    fn valid_nodes_round_trip_their_numbers(cpus in 1u16..512, mem in 1u64..1_000_000, weight in 0u32..1000) {
        let text = format!("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs={cpus} RealMemory={mem} Weight={weight}\n");
        let conf = SlurmConf::parse_str(&text, "slurm.conf").unwrap();
        prop_assert_eq!((conf.nodes[0].cpus, conf.nodes[0].real_memory, conf.nodes[0].weight), (cpus, mem, weight));
    }
}

proptest! {
    #[test]
    fn node_topology_never_panics(
        keys in prop::collection::vec(
            (prop::sample::select(vec!["CPUs", "Boards", "Sockets", "SocketsPerBoard", "CoresPerSocket", "ThreadsPerCore", "CoreSpecCount"]), any::<u16>()),
            0..8,
        )
    ) {
        let params: Vec<String> = keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let text = format!("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 {}\n", params.join(" "));
        let conf = SlurmConf::parse_str(&text, "slurm.conf").unwrap();
        let n = &conf.nodes[0];
        prop_assert!(n.cpus >= 1 && n.sockets >= 1 && n.cores_per_socket >= 1 && n.threads_per_core >= 1);
    }
}
