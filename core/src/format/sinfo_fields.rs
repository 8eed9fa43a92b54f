//! sinfo's fields: the `-o` letters and `-O` names, headers, which attributes each field makes lines agree on,
//! and each field's text for a line (`min+` for sizes that differ, `n/a`, `(null)`, `none`).

use crate::format::columns::Cell;
use crate::format::node_view;
use crate::format::sinfo_group::{load_hundredths, MatchFlags, SinfoRecord};
use crate::format::time::compact_secs;
use crate::format::FormatContext;
use crate::grammar::hostlist::compress as compress_names;
use crate::model::records::{NodeRecord, PartitionState};

/// One sinfo column's data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeField {
    AllocMem,
    AllocNodes,
    Available,
    Cluster,
    Comment,
    Cores,
    Cpus,
    CpuLoad,
    CpusState,
    DefaultTime,
    Disk,
    Extra,
    Features,
    FeaturesActive,
    FreeMem,
    Gres,
    GresUsed,
    Groups,
    MaxCpusPerNode,
    Memory,
    NodeAddr,
    NodesAi,
    NodesAiot,
    NodeHost,
    NodeList,
    Nodes,
    OverSubscribe,
    Partition,
    PartitionName,
    Port,
    PreemptMode,
    PriorityJobFactor,
    PriorityTier,
    Reason,
    ReasonTime,
    ReasonUser,
    ReasonUserLong,
    Root,
    Size,
    Sct,
    Sockets,
    StateCompact,
    StateLong,
    StateComplete,
    Threads,
    Time,
    Version,
    Weight,
}

use NodeField as F;

impl NodeField {
    pub fn from_letter(letter: char) -> Option<NodeField> {
        Some(match letter {
            'a' => F::Available,
            'A' => F::NodesAi,
            'b' => F::FeaturesActive,
            'B' => F::MaxCpusPerNode,
            'c' => F::Cpus,
            'C' => F::CpusState,
            'd' => F::Disk,
            'D' => F::Nodes,
            'e' => F::FreeMem,
            'E' => F::Reason,
            'f' => F::Features,
            'F' => F::NodesAiot,
            'g' => F::Groups,
            'G' => F::Gres,
            'h' => F::OverSubscribe,
            'H' => F::ReasonTime,
            'I' => F::PriorityJobFactor,
            'l' => F::Time,
            'L' => F::DefaultTime,
            'm' => F::Memory,
            'M' => F::PreemptMode,
            'n' => F::NodeHost,
            'N' => F::NodeList,
            'o' => F::NodeAddr,
            'O' => F::CpuLoad,
            'p' => F::PriorityTier,
            'P' => F::Partition,
            'r' => F::Root,
            'R' => F::PartitionName,
            's' => F::Size,
            'S' => F::AllocNodes,
            't' => F::StateCompact,
            'T' => F::StateLong,
            'u' => F::ReasonUser,
            'U' => F::ReasonUserLong,
            'v' => F::Version,
            'V' => F::Cluster,
            'w' => F::Weight,
            'X' => F::Sockets,
            'Y' => F::Cores,
            'Z' => F::Threads,
            'z' => F::Sct,
            _ => return None,
        })
    }

    pub fn from_name(name: &str) -> Option<NodeField> {
        Some(match name {
            "allocmem" => F::AllocMem,
            "allocnodes" => F::AllocNodes,
            "available" => F::Available,
            "cluster" => F::Cluster,
            "comment" => F::Comment,
            "cores" => F::Cores,
            "cpus" => F::Cpus,
            "cpusload" => F::CpuLoad,
            "cpusstate" => F::CpusState,
            "defaulttime" => F::DefaultTime,
            "disk" => F::Disk,
            "extra" => F::Extra,
            "features" => F::Features,
            "features_act" => F::FeaturesActive,
            "freemem" => F::FreeMem,
            "gres" => F::Gres,
            "gresused" => F::GresUsed,
            "groups" => F::Groups,
            "maxcpuspernode" => F::MaxCpusPerNode,
            "memory" => F::Memory,
            "nodeaddr" => F::NodeAddr,
            "nodeai" => F::NodesAi,
            "nodeaiot" => F::NodesAiot,
            "nodehost" => F::NodeHost,
            "nodelist" => F::NodeList,
            "nodes" => F::Nodes,
            "oversubscribe" | "share" => F::OverSubscribe,
            "partition" => F::Partition,
            "partitionname" => F::PartitionName,
            "port" => F::Port,
            "preemptmode" => F::PreemptMode,
            "priorityjobfactor" => F::PriorityJobFactor,
            "prioritytier" | "priority" => F::PriorityTier,
            "reason" => F::Reason,
            "root" => F::Root,
            "size" => F::Size,
            "socketcorethread" => F::Sct,
            "sockets" => F::Sockets,
            "statecompact" => F::StateCompact,
            "statelong" => F::StateLong,
            "statecomplete" => F::StateComplete,
            "threads" => F::Threads,
            "time" => F::Time,
            "timestamp" => F::ReasonTime,
            "user" => F::ReasonUser,
            "userlong" => F::ReasonUserLong,
            "version" => F::Version,
            "weight" => F::Weight,
            _ => return None,
        })
    }

    pub fn header(self) -> Cell<'static> {
        let text = match self {
            F::AllocMem => "ALLOCMEM",
            F::AllocNodes => "ALLOCNODES",
            F::Available => "AVAIL",
            F::Cluster => "CLUSTER",
            F::Comment => "COMMENT",
            F::Cores => "CORES",
            F::Cpus => "CPUS",
            F::CpuLoad => "CPU_LOAD",
            F::CpusState => "CPUS(A/I/O/T)",
            F::DefaultTime => "DEFAULTTIME",
            F::Disk => "TMP_DISK",
            F::Extra => "EXTRA",
            F::Features => "AVAIL_FEATURES",
            F::FeaturesActive => "ACTIVE_FEATURES",
            F::FreeMem => "FREE_MEM",
            F::Gres => "GRES",
            F::GresUsed => "GRES_USED",
            F::Groups => "GROUPS",
            F::MaxCpusPerNode => "MAX_CPUS_PER_NODE",
            F::Memory => "MEMORY",
            F::NodeAddr => return Cell::whole("NODE_ADDR"),
            F::NodesAi => "NODES(A/I)",
            F::NodesAiot => "NODES(A/I/O/T)",
            F::NodeHost => return Cell::whole("HOSTNAMES"),
            F::NodeList => return Cell::whole("NODELIST"),
            F::Nodes => "NODES",
            F::OverSubscribe => "OVERSUBSCRIBE",
            F::Partition | F::PartitionName => "PARTITION",
            F::Port => "PORT",
            F::PreemptMode => "PREEMPT_MODE",
            F::PriorityJobFactor => "PRIO_JOB_FACTOR",
            F::PriorityTier => "PRIO_TIER",
            F::Reason => "REASON",
            F::ReasonTime => "TIMESTAMP",
            F::ReasonUser | F::ReasonUserLong => "USER",
            F::Root => "ROOT",
            F::Size => "JOB_SIZE",
            F::Sct => "S:C:T",
            F::Sockets => "SOCKETS",
            F::StateCompact | F::StateLong => "STATE",
            F::StateComplete => "STATECOMPLETE",
            F::Threads => "THREADS",
            F::Time => "TIMELIMIT",
            F::Version => "VERSION",
            F::Weight => "WEIGHT",
        };
        Cell::cut(text)
    }

    /// Marks the attributes this field makes nodes on one line agree on.
    pub(crate) fn mark(self, f: &mut MatchFlags) {
        match self {
            F::AllocMem => f.alloc_mem = true,
            F::Available => f.avail = true,
            F::Cores => f.cores = true,
            F::Cpus | F::CpusState => f.cpus = true,
            F::CpuLoad => f.cpu_load = true,
            F::DefaultTime => f.default_time = true,
            F::Disk => f.disk = true,
            F::Features => f.features = true,
            F::FeaturesActive => f.features_act = true,
            F::FreeMem => f.free_mem = true,
            F::Gres => f.gres = true,
            F::GresUsed => f.gres_used = true,
            F::Groups => f.groups = true,
            F::Memory => f.memory = true,
            F::OverSubscribe => f.oversubscribe = true,
            F::Partition | F::PartitionName => f.partition = true,
            F::Port => f.port = true,
            F::PriorityJobFactor => f.priority_job_factor = true,
            F::PriorityTier => f.priority_tier = true,
            F::Reason => f.reason = true,
            F::ReasonTime => f.reason_time = true,
            F::ReasonUser | F::ReasonUserLong => f.reason_user = true,
            F::Root => f.root = true,
            F::Size => f.job_size = true,
            F::Sct => f.sct = true,
            F::Sockets => f.sockets = true,
            F::StateCompact | F::StateLong | F::StateComplete => f.state = true,
            F::Threads => f.threads = true,
            F::Time => f.max_time = true,
            F::Version => f.version = true,
            F::Weight => f.weight = true,
            _ => {}
        }
    }

    /// The field's text for one line; `width` is the column width (the default-partition `*` needs it).
    pub(crate) fn value(
        self,
        rec: &SinfoRecord<'_>,
        ctx: &FormatContext,
        width: usize,
    ) -> Cell<'static> {
        let part = rec.part;
        let first = rec.first();
        let na = || Cell::cut("n/a");
        match self {
            F::AllocMem => Cell::cut(first.map_or(0, |n| n.alloc_mem_mb).to_string()),
            F::AllocNodes | F::Groups => match part {
                None => na(),
                Some(p) if self == F::Groups => {
                    Cell::cut(p.allow_groups.clone().unwrap_or_else(|| "all".to_string()))
                }
                Some(_) => Cell::cut("all"),
            },
            F::Available => Cell::cut(match part.map(|p| p.state) {
                None => "n/a",
                Some(PartitionState::Up) => "up",
                Some(PartitionState::Down) => "down",
                Some(PartitionState::Drain) => "drain",
                Some(PartitionState::Inactive) => "inactive",
            }),
            F::Cluster => Cell::cut("N/A"),
            F::Comment | F::Extra => Cell::cut("(null)"),
            F::Cores => Cell::cut(min_plus(rec.min_max(|n| n.cores_per_socket))),
            F::Sockets => Cell::cut(min_plus(rec.min_max(|n| n.sockets))),
            F::Threads => Cell::cut(min_plus(rec.min_max(|n| n.threads_per_core))),
            F::Sct => Cell::cut(format!(
                "{}:{}:{}",
                min_plus(rec.min_max(|n| n.sockets)),
                min_plus(rec.min_max(|n| n.cores_per_socket)),
                min_plus(rec.min_max(|n| n.threads_per_core))
            )),
            F::Cpus => Cell::cut(min_plus(rec.min_max(|n| n.cpus))),
            F::Disk => Cell::cut(min_plus(rec.min_max(|n| n.tmp_disk_mb))),
            F::Memory => Cell::cut(min_plus(rec.min_max(|n| n.real_memory_mb))),
            F::Weight => Cell::cut(weight_text(rec.min_max(|n| n.weight))),
            F::CpuLoad => Cell::cut(range_or_na(
                rec,
                |n| n.cpu_load.map(load_hundredths),
                |v| format!("{:.2}", v as f64 / 100.0),
            )),
            F::FreeMem => Cell::cut(range_or_na(rec, |n| n.free_mem_mb, |v| v.to_string())),
            F::CpusState => {
                let (a, i, o, t) = rec.cpu_counts();
                Cell::cut(format!("{a}/{i}/{o}/{t}"))
            }
            F::NodesAi => {
                let (a, i, _, _) = rec.node_counts();
                Cell::cut(format!("{a}/{i}"))
            }
            F::NodesAiot => {
                let (a, i, o, t) = rec.node_counts();
                Cell::cut(format!("{a}/{i}/{o}/{t}"))
            }
            F::Nodes => Cell::cut(rec.nodes.len().to_string()),
            F::DefaultTime => match part {
                Some(p) => match p.default_time_min {
                    Some(m) => Cell::cut(compact_secs(i64::from(m) * 60)),
                    None => na(),
                },
                None => na(),
            },
            F::Time => match part {
                None => na(),
                Some(p) => Cell::cut(match p.max_time_min {
                    None => "infinite".to_string(),
                    Some(m) => compact_secs(i64::from(m) * 60),
                }),
            },
            F::Features => Cell::cut(null(first.and_then(node_view::features))),
            F::FeaturesActive => Cell::cut(null(first.and_then(node_view::features))),
            F::Gres => Cell::cut(null(first.and_then(node_view::gres))),
            F::GresUsed => Cell::cut(null(first.and_then(node_view::gres_used))),
            F::MaxCpusPerNode => Cell::cut("UNLIMITED"),
            F::NodeAddr => Cell::cut(sorted_list(rec, |n| &n.addr)),
            F::NodeHost => Cell::cut(sorted_list(rec, |n| &n.hostname)),
            F::NodeList => Cell::cut(sorted_list(rec, |n| &n.name)),
            F::OverSubscribe => Cell::cut(match part {
                None => "n/a".to_string(),
                Some(p) if p.oversubscribe.is_empty() => "NO".to_string(),
                Some(p) => p.oversubscribe.to_ascii_uppercase(),
            }),
            F::Partition => match part {
                None => na(),
                Some(p) => {
                    let mut name = p.name.clone();
                    if p.default {
                        let len = name.chars().count();
                        if width == 0 || len < width {
                            name.push('*');
                        } else {
                            name = name.chars().take(width - 1).collect::<String>() + "*";
                        }
                    }
                    Cell::cut(name)
                }
            },
            F::PartitionName => {
                Cell::cut(part.map_or_else(|| "n/a".to_string(), |p| p.name.clone()))
            }
            F::Port => Cell::cut(first.map_or(6818, |n| n.port.unwrap_or(6818)).to_string()),
            F::PreemptMode => {
                Cell::cut(part.map_or_else(|| "OFF".to_string(), |p| p.preempt_mode_text()))
            }
            F::PriorityJobFactor => {
                Cell::cut(part.map_or(0, |p| p.priority_job_factor).to_string())
            }
            F::PriorityTier => Cell::cut(part.map_or(0, |p| p.priority_tier).to_string()),
            F::Reason => {
                let reason = first
                    .and_then(|n| n.reason.clone())
                    .filter(|r| !r.starts_with("(null)"));
                Cell::cut(reason.unwrap_or_else(|| "none".to_string()))
            }
            F::ReasonTime => Cell::cut(ctx.time_or(first.and_then(|n| n.reason_time), "Unknown")),
            F::ReasonUser => Cell::cut(match first.and_then(|n| n.reason_uid) {
                Some(uid) => reason_user(ctx, uid, false),
                None => "Unknown".to_string(),
            }),
            F::ReasonUserLong => Cell::cut(match first.and_then(|n| n.reason_uid) {
                Some(uid) => reason_user(ctx, uid, true),
                None => "Unknown".to_string(),
            }),
            F::Root => match part {
                None => na(),
                Some(p) => Cell::cut(if p.root_only { "yes" } else { "no" }),
            },
            F::Size => match part {
                None => na(),
                Some(p) => Cell::cut(job_size(p.min_nodes, p.max_nodes)),
            },
            F::StateCompact => state(rec, |n| node_view::state_compact(n).to_ascii_lowercase()),
            F::StateLong => state(rec, |n| node_view::state_long(n).to_ascii_lowercase()),
            F::StateComplete => state(rec, |n| node_view::state_complete(n).to_ascii_lowercase()),
            F::Version => Cell::cut(
                first
                    .map(|n| n.version.clone())
                    .filter(|v| !v.is_empty())
                    .unwrap_or_else(|| "N/A".into()),
            ),
        }
    }
}

fn null(v: Option<String>) -> String {
    v.unwrap_or_else(|| "(null)".to_string())
}

/// `min` when all nodes agree, else `min+`.
/// As [`min_plus`], but sinfo prints each weight through an 8-byte buffer: at most its first 7 digits (`4294967`
/// for 4294967280), after comparing the whole numbers.
fn weight_text(range: Option<(u32, u32)>) -> String {
    let seven = |v: u32| v.to_string().chars().take(7).collect::<String>();
    match range {
        Some((min, max)) if min == max => seven(max),
        Some((min, _)) => format!("{}+", seven(min)),
        None => "0".to_string(),
    }
}

fn min_plus<T: Ord + Copy + ToString>(range: Option<(T, T)>) -> String {
    match range {
        Some((min, max)) if min == max => max.to_string(),
        Some((min, _)) => format!("{}+", min.to_string()),
        None => "0".to_string(),
    }
}

/// `min-max` (or one value) for values that may be unknown (`N/A`).
fn range_or_na<T: Ord + Copy>(
    rec: &SinfoRecord<'_>,
    value: impl Fn(&NodeRecord) -> Option<T>,
    show: impl Fn(T) -> String,
) -> String {
    let values: Vec<Option<T>> = rec.nodes.iter().map(|n| value(n)).collect();
    let text = |v: Option<T>| v.map_or_else(|| "N/A".to_string(), &show);
    let known: Vec<T> = values.iter().flatten().copied().collect();
    let (min, max) = if known.len() == values.len() {
        (known.iter().min().copied(), known.iter().max().copied())
    } else {
        // Slurm keeps NO_VAL as the minimum when any node did not report.
        (None, known.iter().max().copied())
    };
    if min == max {
        text(max)
    } else {
        format!("{}-{}", text(min), text(max))
    }
}

/// Names sorted as Slurm's hostlist sorts them, then compressed.
fn sorted_list(rec: &SinfoRecord<'_>, name: impl Fn(&NodeRecord) -> &String) -> String {
    let mut names: Vec<&str> = rec.nodes.iter().map(|n| name(n).as_str()).collect();
    names.sort_by_key(|n| natural_key(n));
    names.dedup();
    compress_names(&names)
}

/// Prefix, then numeric suffix: `n2` sorts before `n10`.
pub(crate) fn natural_key(name: &str) -> (String, u64, usize) {
    let digits = name.chars().rev().take_while(char::is_ascii_digit).count();
    let (prefix, tail) = name.split_at(name.len() - digits);
    (prefix.to_string(), tail.parse().unwrap_or(0), digits)
}

fn reason_user(ctx: &FormatContext, uid: u32, long: bool) -> String {
    match ctx.users.get(&uid) {
        Some(name) if long => format!("{name}({uid})"),
        Some(name) => name.clone(),
        None => format!("Unk({uid})"),
    }
}

fn job_size(min_nodes: u32, max_nodes: Option<u32>) -> String {
    let min = if min_nodes < 1 && max_nodes != Some(0) {
        1
    } else {
        min_nodes
    };
    match max_nodes {
        Some(max) if max == min => max.to_string(),
        Some(max) => format!("{min}-{max}"),
        None => format!("{min}-infinite"),
    }
}

fn state(rec: &SinfoRecord<'_>, text: impl Fn(&NodeRecord) -> String) -> Cell<'static> {
    match rec.first() {
        Some(node) => Cell::cut(text(node)),
        None => Cell::cut("n/a"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::test_records::{ctx, node, partition};

    fn record<'a>(
        part: &'a crate::model::records::PartitionRecord,
        nodes: &[&'a NodeRecord],
    ) -> SinfoRecord<'a> {
        SinfoRecord {
            part: Some(part),
            part_index: 0,
            nodes: nodes.to_vec(),
        }
    }

    #[test]
    fn weights_keep_their_first_seven_digits_as_sinfos_buffer_does() {
        assert_eq!(weight_text(Some((4_294_967_280, 4_294_967_280))), "4294967");
        assert_eq!(weight_text(Some((12_345_678, 12_345_679))), "1234567+");
        assert_eq!(weight_text(Some((1, 1))), "1");
        assert_eq!(weight_text(Some((5, 9))), "5+");
    }

    #[test]
    fn every_letter() {
        let part = partition("gpu", &["n1", "n2"]);
        let mut n2 = node("n2");
        n2.real_memory_mb = 8000;
        n2.alloc_cpus = 4;
        n2.base_state = crate::model::records::NodeBaseState::Allocated;
        let n1 = node("n1");
        let rec = record(&part, &[&n1, &n2]);
        let expected = [
            ('a', "up"),
            ('A', "1/1"),
            ('b', "a100"),
            ('B', "UNLIMITED"),
            ('c', "4"),
            ('C', "4/4/0/8"),
            ('d', "100"),
            ('D', "2"),
            ('e', "15000"),
            ('E', "none"),
            ('f', "a100"),
            ('F', "1/1/0/2"),
            ('g', "all"),
            ('G', "gpu:a100:2"),
            ('h', "NO"),
            ('H', "Unknown"),
            ('I', "1"),
            ('l', "1:00:00"),
            ('L', "n/a"),
            ('m', "8000+"),
            ('M', "OFF"),
            ('n', "n[1-2]"),
            ('N', "n[1-2]"),
            ('o', "10.0.0.[1-2]"),
            ('O', "1.50"),
            ('p', "1"),
            ('P', "gpu*"),
            ('r', "no"),
            ('R', "gpu"),
            ('s', "1-infinite"),
            ('S', "all"),
            ('t', "idle"),
            ('T', "idle"),
            ('u', "Unknown"),
            ('U', "Unknown"),
            ('v', "22.05.8"),
            ('V', "N/A"),
            ('w', "1"),
            ('X', "2"),
            ('Y', "2"),
            ('Z', "1"),
            ('z', "2:2:1"),
        ];
        for (letter, want) in expected {
            let field = NodeField::from_letter(letter).unwrap();
            assert_eq!(field.value(&rec, &ctx(), 0).text, want, "%{letter}");
        }
    }

    #[test]
    fn default_partition_star_fits_the_width() {
        let part = partition("verylongname", &["n1"]);
        let n1 = node("n1");
        let rec = record(&part, &[&n1]);
        assert_eq!(
            NodeField::Partition.value(&rec, &ctx(), 9).text,
            "verylong*"
        );
        assert_eq!(
            NodeField::Partition.value(&rec, &ctx(), 20).text,
            "verylongname*"
        );
    }

    #[test]
    fn reason_user_and_time() {
        let part = partition("gpu", &["n1"]);
        let mut n1 = node("n1");
        n1.reason = Some("bad fan".into());
        n1.reason_uid = Some(1000);
        n1.reason_time = Some(crate::format::test_records::NOW);
        let rec = record(&part, &[&n1]);
        assert_eq!(NodeField::Reason.value(&rec, &ctx(), 0).text, "bad fan");
        assert_eq!(NodeField::ReasonUser.value(&rec, &ctx(), 0).text, "alice");
        assert_eq!(
            NodeField::ReasonUserLong.value(&rec, &ctx(), 0).text,
            "alice(1000)"
        );
        assert_eq!(
            NodeField::ReasonTime.value(&rec, &ctx(), 0).text,
            "2026-11-30T14:58:05"
        );
        n1.reason_uid = Some(7);
        let rec = record(&part, &[&n1]);
        assert_eq!(NodeField::ReasonUser.value(&rec, &ctx(), 0).text, "Unk(7)");
    }

    #[test]
    fn sizes_and_limits() {
        assert_eq!(job_size(0, None), "1-infinite");
        assert_eq!(job_size(2, Some(2)), "2");
        assert_eq!(job_size(1, Some(4)), "1-4");
        assert!(natural_key("n10") > natural_key("n9"));
    }

    #[test]
    fn long_names_cover_their_letters() {
        let pairs = [
            ("available", 'a'),
            ("cpusstate", 'C'),
            ("gres", 'G'),
            ("nodeaiot", 'F'),
            ("nodelist", 'N'),
            ("partition", 'P'),
            ("statecompact", 't'),
            ("statelong", 'T'),
            ("timestamp", 'H'),
            ("socketcorethread", 'z'),
        ];
        for (name, letter) in pairs {
            assert_eq!(
                NodeField::from_name(name),
                NodeField::from_letter(letter),
                "{name}"
            );
        }
        assert_eq!(NodeField::GresUsed.header().text, "GRES_USED");
    }
}
