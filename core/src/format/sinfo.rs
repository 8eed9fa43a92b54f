//! `sinfo`'s table: which partitions and nodes it shows (`-p`, `-n`, `-t`, `-d`, `-r`, `-a`), how nodes share
//! lines, the order (`-S`, default `#P,-t`, `N` with `-N`) and the columns (`-o`, `-O`, `-l`, `-s`, `-N`, `-R`).

use std::cmp::Ordering;

use crate::format::columns::{parse_long, parse_short, parse_short_or_all, render_line, Layout};
use crate::format::node_view;
use crate::format::sinfo_fields::natural_key;
pub use crate::format::sinfo_fields::NodeField;
use crate::format::sinfo_group::{group, Grouping, MatchFlags, SinfoRecord};
use crate::format::time::ctime;
use crate::format::{FormatContext, FormatError};
use crate::model::records::{NodeBaseState, NodeRecord, PartitionRecord};

/// sinfo's default columns (the partition column widens to the longest name).
pub const DEFAULT_FORMAT: &str = "%9P %.5a %.10l %.6D %.6t %N";
pub const LONG_FORMAT: &str = "%9P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
pub const SUMMARIZE_FORMAT: &str = "%9P %.5a %.10l %.16F %N";
pub const NODE_FORMAT: &str = "%N %.6D %.9P %6t";
pub const NODE_LONG_FORMAT: &str = "%N %.6D %.9P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E";
pub const REASONS_FORMAT: &str = "%20E %9u %19H %N";
pub const REASONS_LONG_FORMAT: &str = "%20E %12U %19H %6t %N";

/// A state `-t` selects nodes by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeStateMatch {
    Base(NodeBaseState),
    /// DRAIN: drained or draining.
    Drain,
    Drained,
    Draining,
    NoRespond,
    /// A Slurm state Spur never produces (`FUTURE`, `FAIL`, `POWER_DOWN`, ...).
    Never,
}

/// One `-S` key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SinfoSortKey {
    pub letter: char,
    pub descending: bool,
    /// `#P`: partitions in configuration order rather than by name.
    pub config_order: bool,
}

/// What sinfo shows and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SinfoOptions {
    pub layout: Layout<NodeField>,
    pub no_header: bool,
    /// The `ctime` line above the header (`-l`, `-i`).
    pub print_date: bool,
    /// `-N`: a line per node and partition.
    pub node_oriented: bool,
    /// `-e`: nodes share a line only with equal sizes.
    pub exact: bool,
    /// Default formats widen the partition and node-list columns to fit (the `#` of sinfo's man page).
    pub auto_partition_width: bool,
    pub auto_node_width: bool,
    /// `None`: `#P,-t`, or `N` with `-N`.
    pub sort: Option<Vec<SinfoSortKey>>,
    pub states: Option<Vec<NodeStateMatch>>,
    pub partitions: Option<Vec<String>>,
    pub nodes: Option<Vec<String>>,
    /// `-a`: include hidden partitions.
    pub all_partitions: bool,
    /// `-d`: only non-responding nodes.
    pub dead_only: bool,
    /// `-r`: only responding nodes.
    pub responding_only: bool,
}

impl Default for SinfoOptions {
    fn default() -> SinfoOptions {
        SinfoOptions {
            layout: parse_short(DEFAULT_FORMAT, "node", NodeField::from_letter),
            no_header: false,
            print_date: false,
            node_oriented: false,
            exact: false,
            auto_partition_width: true,
            auto_node_width: false,
            sort: None,
            states: None,
            partitions: None,
            nodes: None,
            all_partitions: false,
            dead_only: false,
            responding_only: false,
        }
    }
}

impl SinfoOptions {
    /// `sinfo -l`.
    pub fn long() -> SinfoOptions {
        SinfoOptions {
            print_date: true,
            ..SinfoOptions::default().with_default_format(LONG_FORMAT)
        }
    }

    /// `sinfo -s`.
    pub fn summarize() -> SinfoOptions {
        SinfoOptions::default().with_default_format(SUMMARIZE_FORMAT)
    }

    /// `sinfo -N` (`long` adds `-l`).
    pub fn node(long: bool) -> SinfoOptions {
        let format = if long { NODE_LONG_FORMAT } else { NODE_FORMAT };
        SinfoOptions {
            node_oriented: true,
            auto_node_width: true,
            print_date: long,
            ..SinfoOptions::default().with_default_format(format)
        }
    }

    /// `sinfo -R` (`long` adds `-l`): nodes that are down, failing or drained, by reason.
    pub fn list_reasons(long: bool) -> SinfoOptions {
        let format = if long {
            REASONS_LONG_FORMAT
        } else {
            REASONS_FORMAT
        };
        let mut opts = SinfoOptions {
            print_date: long,
            ..SinfoOptions::default().with_format(format)
        };
        opts.states = parse_node_states("down,fail,drain").ok().flatten();
        opts
    }

    fn with_default_format(mut self, format: &str) -> SinfoOptions {
        self.layout = parse_short(format, "node", NodeField::from_letter);
        self
    }

    /// `-o FORMAT`: column widths are taken as given.
    pub fn with_format(mut self, format: &str) -> SinfoOptions {
        self.layout = parse_short_or_all(format, " ", "node", NodeField::from_letter);
        self.auto_partition_width = false;
        self.auto_node_width = false;
        self
    }

    /// `-O FORMAT`.
    pub fn with_long_format(mut self, format: &str) -> SinfoOptions {
        self.layout = parse_long(format, "node", NodeField::from_name);
        self.auto_partition_width = false;
        self.auto_node_width = false;
        self
    }

    /// `-S LIST`.
    pub fn with_sort(mut self, spec: &str) -> SinfoOptions {
        self.sort = Some(parse_sinfo_sort(spec));
        self
    }

    /// `-t LIST`.
    pub fn with_states(mut self, spec: &str) -> Result<SinfoOptions, FormatError> {
        self.states = parse_node_states(spec)?;
        Ok(self)
    }
}

/// Parses `-S`: letters with optional `+`/`-`/`#` prefixes; letters sinfo cannot sort by are ignored.
pub fn parse_sinfo_sort(spec: &str) -> Vec<SinfoSortKey> {
    let chars: Vec<char> = spec.chars().collect();
    chars
        .iter()
        .enumerate()
        .filter(|(_, c)| !matches!(c, ',' | '#' | '+' | '-'))
        .map(|(i, c)| SinfoSortKey {
            letter: *c,
            descending: i > 0 && chars[i - 1] == '-',
            config_order: i > 0 && chars[i - 1] == '#',
        })
        .collect()
}

/// Parses `-t`: state names or their prefixes, any case; `all` means no filter.
pub fn parse_node_states(spec: &str) -> Result<Option<Vec<NodeStateMatch>>, FormatError> {
    if spec.eq_ignore_ascii_case("all") {
        return Ok(None);
    }
    spec.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| parse_node_state(s).ok_or_else(|| FormatError::InvalidNodeState(s.to_string())))
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn parse_node_state(name: &str) -> Option<NodeStateMatch> {
    use NodeStateMatch as M;
    let starts =
        |full: &str| full.len() >= name.len() && full[..name.len()].eq_ignore_ascii_case(name);
    let bases: [(&str, &str, M); 7] = [
        ("UNK", "UNKNOWN", M::Base(NodeBaseState::Unknown)),
        ("DOWN", "DOWN", M::Base(NodeBaseState::Down)),
        ("IDLE", "IDLE", M::Base(NodeBaseState::Idle)),
        ("ALLOC", "ALLOCATED", M::Base(NodeBaseState::Allocated)),
        ("ERROR", "ERROR", M::Never),
        ("MIX", "MIXED", M::Base(NodeBaseState::Mixed)),
        ("FUTR", "FUTURE", M::Never),
    ];
    if let Some((_, _, m)) = bases
        .iter()
        .find(|(short, long, _)| starts(short) || starts(long))
    {
        return Some(*m);
    }
    let named: [(&[&str], M); 6] = [
        (&["DRAIN"], M::Drain),
        (&["DRAINED"], M::Drained),
        (&["DRAINING", "DRNG"], M::Draining),
        (&["NO_RESPOND"], M::NoRespond),
        (
            &["RESV", "RESERVED", "PERFCTRS", "NPC", "COMP", "COMPLETING"],
            M::Never,
        ),
        (
            &[
                "POWER_DOWN",
                "POWERING_UP",
                "FAIL",
                "MAINT",
                "REBOOT",
                "PLANNED",
                "CLOUD",
            ],
            M::Never,
        ),
    ];
    named
        .iter()
        .find(|(names, _)| names.iter().any(|n| starts(n)))
        .map(|(_, m)| *m)
}

fn state_selected(node: &NodeRecord, states: &Option<Vec<NodeStateMatch>>) -> bool {
    let Some(list) = states else { return true };
    let busy = matches!(
        node.base_state,
        NodeBaseState::Allocated | NodeBaseState::Mixed
    );
    list.iter().any(|m| match m {
        NodeStateMatch::Base(b) => node.base_state == *b,
        NodeStateMatch::Drain => node.drain,
        NodeStateMatch::Drained => node.drain && !busy,
        NodeStateMatch::Draining => node.drain && busy,
        NodeStateMatch::NoRespond => node.not_responding,
        NodeStateMatch::Never => false,
    })
}

fn node_selected(node: &NodeRecord, opts: &SinfoOptions) -> bool {
    state_selected(node, &opts.states)
        && opts
            .nodes
            .as_ref()
            .is_none_or(|names| names.contains(&node.name))
        && (!opts.dead_only || node.not_responding)
        && (!opts.responding_only || !node.not_responding)
}

/// A partition without any node still gets a line in the partition views (`NODES` 0, `STATE` n/a, whatever `-t`
/// asks), as in Slurm; node views, `-R` (no partition column) and `-n` show none.
fn empty_partitions<'a>(
    nodes: &[NodeRecord],
    parts: &[&'a PartitionRecord],
    opts: &SinfoOptions,
) -> Vec<SinfoRecord<'a>> {
    let shows_partitions = opts.layout.columns.iter().any(|c| {
        matches!(
            c.field,
            Some(NodeField::Partition | NodeField::PartitionName)
        )
    });
    if opts.node_oriented || opts.nodes.is_some() || !shows_partitions {
        return Vec::new();
    }
    parts
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            p.nodes.is_empty() && !nodes.iter().any(|n| n.partitions.contains(&p.name))
        })
        .map(|(part_index, p)| SinfoRecord {
            part: Some(*p),
            part_index,
            nodes: Vec::new(),
        })
        .collect()
}

/// Renders sinfo's output; `nodes` in node-table order, `partitions` in configuration order.
pub fn render(
    nodes: &[NodeRecord],
    partitions: &[PartitionRecord],
    opts: &SinfoOptions,
    ctx: &FormatContext,
) -> String {
    let parts: Vec<&PartitionRecord> = match &opts.partitions {
        Some(names) => partitions
            .iter()
            .filter(|p| names.contains(&p.name))
            .collect(),
        None => partitions
            .iter()
            .filter(|p| opts.all_partitions || !p.hidden)
            .collect(),
    };
    let mut chosen: Vec<&NodeRecord> = nodes.iter().filter(|n| node_selected(n, opts)).collect();
    if opts.partitions.is_some() {
        chosen.retain(|n| {
            parts
                .iter()
                .any(|p| p.nodes.contains(&n.name) || n.partitions.contains(&p.name))
        });
    }
    let mut flags = MatchFlags::default();
    for field in opts.layout.columns.iter().filter_map(|c| c.field) {
        field.mark(&mut flags);
    }
    let grouping = if opts.node_oriented {
        Grouping::PerNode
    } else if opts.exact {
        Grouping::Exact
    } else {
        Grouping::Matching
    };
    let mut records = group(&chosen, &parts, &flags, grouping);
    records.extend(empty_partitions(nodes, &parts, opts));
    sort_records(&mut records, opts);

    let part_width = records
        .iter()
        .filter_map(|r| r.part)
        .map(|p| p.name.chars().count() + usize::from(p.default))
        .fold(9, usize::max);
    let node_width = records
        .iter()
        .map(|r| NodeField::NodeList.value(r, ctx, 0).text.chars().count())
        .fold(9, usize::max);
    let mut layout = opts.layout.clone();
    for column in &mut layout.columns {
        match column.field {
            Some(NodeField::Partition | NodeField::PartitionName) if opts.auto_partition_width => {
                column.width = part_width;
            }
            Some(NodeField::NodeList | NodeField::NodeHost) if opts.auto_node_width => {
                column.width = node_width
            }
            _ => {}
        }
    }

    let mut out = String::new();
    if opts.print_date {
        out.push_str(&ctime(ctx.now, ctx.utc_offset_secs));
        out.push('\n');
    }
    if !opts.no_header {
        out.push_str(&render_line(&layout, |f, _| f.header()));
        out.push('\n');
    }
    for record in &records {
        out.push_str(&render_line(&layout, |f, width| {
            f.value(record, ctx, width)
        }));
        out.push('\n');
    }
    out
}

fn sort_records(records: &mut [SinfoRecord<'_>], opts: &SinfoOptions) {
    let default_keys;
    let keys = match &opts.sort {
        Some(keys) => keys,
        None => {
            default_keys = parse_sinfo_sort(if opts.node_oriented { "N" } else { "#P,-t" });
            &default_keys
        }
    };
    records.sort_by(|a, b| {
        keys.iter()
            .map(|k| {
                let ord = compare(k, a, b);
                if k.descending {
                    ord.reverse()
                } else {
                    ord
                }
            })
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
}

fn compare(key: &SinfoSortKey, a: &SinfoRecord<'_>, b: &SinfoRecord<'_>) -> Ordering {
    let min = |r: &SinfoRecord<'_>, f: &dyn Fn(&NodeRecord) -> u64| {
        r.nodes.iter().map(|n| f(n)).min().unwrap_or(0)
    };
    let part_str = |r: &SinfoRecord<'_>, f: &dyn Fn(&PartitionRecord) -> String| {
        r.part.map(f).unwrap_or_default()
    };
    match key.letter {
        'P' if key.config_order => a.part_index.cmp(&b.part_index),
        'P' => part_str(a, &|p| p.name.clone()).cmp(&part_str(b, &|p| p.name.clone())),
        't' | 'T' => state_value(a).cmp(&state_value(b)),
        'N' => first_name(a, |n| &n.name).cmp(&first_name(b, |n| &n.name)),
        'n' => first_name(a, |n| &n.hostname).cmp(&first_name(b, |n| &n.hostname)),
        'o' => first_name(a, |n| &n.addr).cmp(&first_name(b, |n| &n.addr)),
        'c' => min(a, &|n| n.cpus.into()).cmp(&min(b, &|n| n.cpus.into())),
        'd' => min(a, &|n| n.tmp_disk_mb).cmp(&min(b, &|n| n.tmp_disk_mb)),
        'm' => min(a, &|n| n.real_memory_mb).cmp(&min(b, &|n| n.real_memory_mb)),
        'w' => min(a, &|n| n.weight.into()).cmp(&min(b, &|n| n.weight.into())),
        'X' => min(a, &|n| n.sockets.into()).cmp(&min(b, &|n| n.sockets.into())),
        'Y' => min(a, &|n| n.cores_per_socket.into()).cmp(&min(b, &|n| n.cores_per_socket.into())),
        'Z' => min(a, &|n| n.threads_per_core.into()).cmp(&min(b, &|n| n.threads_per_core.into())),
        'D' => a.nodes.len().cmp(&b.nodes.len()),
        'A' | 'F' => a.node_counts().0.cmp(&b.node_counts().0),
        'f' => features(a).cmp(&features(b)),
        'R' | 'E' => reason(a).cmp(&reason(b)),
        'g' => part_str(a, &|p| p.allow_groups.clone().unwrap_or_default())
            .cmp(&part_str(b, &|p| {
                p.allow_groups.clone().unwrap_or_default()
            })),
        'l' => limit(a).cmp(&limit(b)),
        'p' => a
            .part
            .map(|p| p.priority_tier)
            .cmp(&b.part.map(|p| p.priority_tier)),
        'r' => a
            .part
            .map(|p| p.root_only)
            .cmp(&b.part.map(|p| p.root_only)),
        _ => Ordering::Equal,
    }
}

fn state_value(r: &SinfoRecord<'_>) -> u32 {
    r.first().map_or(0, node_view::state_value)
}

fn first_name(r: &SinfoRecord<'_>, name: impl Fn(&NodeRecord) -> &String) -> (String, u64, usize) {
    r.nodes
        .iter()
        .map(|n| natural_key(name(n)))
        .min()
        .unwrap_or_default()
}

fn features(r: &SinfoRecord<'_>) -> String {
    r.first().and_then(node_view::features).unwrap_or_default()
}

fn reason(r: &SinfoRecord<'_>) -> String {
    r.first().and_then(|n| n.reason.clone()).unwrap_or_default()
}

fn limit(r: &SinfoRecord<'_>) -> u64 {
    r.part
        .map_or(0, |p| p.max_time_min.map_or(u64::from(u32::MAX), u64::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_state_names_and_prefixes() {
        use NodeStateMatch as M;
        assert_eq!(
            parse_node_states("down,fail,drain").unwrap(),
            Some(vec![M::Base(NodeBaseState::Down), M::Never, M::Drain])
        );
        assert_eq!(
            parse_node_states("idle,mix,alloc")
                .unwrap()
                .map(|v| v.len()),
            Some(3)
        );
        assert_eq!(
            parse_node_states("drained").unwrap(),
            Some(vec![M::Drained])
        );
        assert_eq!(parse_node_states("drng").unwrap(), Some(vec![M::Draining]));
        assert_eq!(parse_node_states("ALL").unwrap(), None);
        assert_eq!(
            parse_node_states("bogus").unwrap_err().to_string(),
            "Bad state string: \"bogus\""
        );
    }

    #[test]
    fn sort_keys_carry_prefixes() {
        assert_eq!(
            parse_sinfo_sort("#P,-t"),
            vec![
                SinfoSortKey {
                    letter: 'P',
                    descending: false,
                    config_order: true
                },
                SinfoSortKey {
                    letter: 't',
                    descending: true,
                    config_order: false
                },
            ]
        );
    }
}

#[cfg(test)]
mod render_tests {
    use super::*;
    use crate::format::test_records::{ctx, node, partition, NOW};

    fn cluster() -> (Vec<NodeRecord>, Vec<PartitionRecord>) {
        let mut nodes: Vec<NodeRecord> = (1..=6).map(|i| node(&format!("n{i}"))).collect();
        nodes[1].base_state = NodeBaseState::Allocated;
        nodes[2].base_state = NodeBaseState::Mixed;
        nodes[3].drain = true;
        nodes[3].reason = Some("bad fan".into());
        nodes[3].reason_uid = Some(1000);
        nodes[3].reason_time = Some(NOW - 60);
        nodes[4].base_state = NodeBaseState::Down;
        nodes[4].not_responding = true;
        nodes[4].reason = Some("Not responding".into());
        nodes[4].reason_time = Some(NOW - 30);
        nodes[5].real_memory_mb = 8000;
        let mut debug = partition("debug", &["n1", "n2", "n3", "n4", "n5", "n6"]);
        debug.max_time_min = None;
        let mut long = partition("long", &["n6"]);
        long.default = false;
        long.max_time_min = Some(24 * 60);
        (nodes, vec![debug, long])
    }

    #[test]
    fn groups_by_partition_and_state_in_state_order() {
        let (nodes, parts) = cluster();
        let out = render(&nodes, &parts, &SinfoOptions::default(), &ctx());
        assert_eq!(
            out,
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n\
             debug*       up   infinite      1  down* n5\n\
             debug*       up   infinite      1  drain n4\n\
             debug*       up   infinite      1    mix n3\n\
             debug*       up   infinite      1  alloc n2\n\
             debug*       up   infinite      2   idle n[1,6]\n\
             long         up 1-00:00:00      1   idle n6\n"
        );
    }

    #[test]
    fn summary_counts_and_min_plus_sizes() {
        let (nodes, parts) = cluster();
        let out = render(&nodes, &parts, &SinfoOptions::summarize(), &ctx());
        assert_eq!(
            out,
            "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n\
             debug*       up   infinite          2/2/2/6 n[1-6]\n\
             long         up 1-00:00:00          0/1/0/1 n6\n"
        );
        let mem = SinfoOptions::default().with_format("%P %m %c");
        assert_eq!(
            render(&nodes, &parts, &mem, &ctx()),
            "PARTITION MEMORY CPUS\ndebug* 8000+ 4\nlong 8000 4\n"
        );
        let exact = SinfoOptions {
            exact: true,
            ..SinfoOptions::default().with_format("%P %m %N")
        };
        assert_eq!(
            render(&nodes, &parts, &exact, &ctx()),
            "PARTITION MEMORY NODELIST\ndebug* 16000 n[1-5]\ndebug* 8000 n6\nlong 8000 n6\n"
        );
    }

    /// Lines follow the default `#P,-t` order: DOWN+NOT_RESPONDING sorts above IDLE+DRAIN.
    #[test]
    fn reasons_list() {
        let (nodes, parts) = cluster();
        let out = render(&nodes, &parts, &SinfoOptions::list_reasons(false), &ctx());
        assert_eq!(
            out,
            "REASON               USER      TIMESTAMP           NODELIST\n\
             Not responding       Unknown   2026-11-30T14:57:35 n5\n\
             bad fan              alice     2026-11-30T14:57:05 n4\n"
        );
    }

    #[test]
    fn node_oriented_with_filters() {
        let (nodes, parts) = cluster();
        let opts = SinfoOptions {
            nodes: Some(vec!["n6".into(), "n1".into()]),
            ..SinfoOptions::node(false)
        };
        assert_eq!(
            render(&nodes, &parts, &opts, &ctx()),
            "NODELIST   NODES PARTITION STATE \nn1             1    debug* idle  \nn6             1    debug* idle  \nn6             1      long idle  \n"
        );
        let only_long = SinfoOptions {
            partitions: Some(vec!["long".into()]),
            ..SinfoOptions::node(false)
        };
        assert_eq!(
            render(&nodes, &parts, &only_long, &ctx()).lines().count(),
            2
        );
        let dead = SinfoOptions {
            dead_only: true,
            ..SinfoOptions::default().with_format("%N")
        };
        assert_eq!(render(&nodes, &parts, &dead, &ctx()), "NODELIST\nn5\n");
        let drained = SinfoOptions::default()
            .with_format("%N %T")
            .with_states("drained,mix")
            .unwrap();
        assert_eq!(
            render(&nodes, &parts, &drained, &ctx()),
            "NODELIST STATE\nn4 drained\nn3 mixed\n"
        );
    }

    #[test]
    fn hidden_partitions_need_all() {
        let (nodes, mut parts) = cluster();
        parts[1].hidden = true;
        let fmt = SinfoOptions::default().with_format("%R");
        assert!(!render(&nodes, &parts, &fmt, &ctx()).contains("long"));
        let all = SinfoOptions {
            all_partitions: true,
            ..fmt
        };
        assert!(render(&nodes, &parts, &all, &ctx()).contains("long"));
    }

    #[test]
    fn a_partition_without_nodes_gets_an_na_line_in_partition_views() {
        let (nodes, mut parts) = cluster();
        let mut empty = parts[1].clone();
        empty.name = "empty".into();
        empty.default = false;
        empty.nodes.clear();
        empty.nodes_expr.clear();
        empty.max_time_min = None;
        parts.push(empty);
        let fmt = SinfoOptions::default().with_format("%P %a %l %D %t %N %c %m %G");
        let out = render(&nodes, &parts, &fmt, &ctx());
        assert!(
            out.ends_with("empty up infinite 0 n/a  0 0 (null)\n"),
            "{out}"
        );
        let by_state = SinfoOptions::default()
            .with_format("%P %D %t")
            .with_states("alloc")
            .unwrap();
        assert!(render(&nodes, &parts, &by_state, &ctx()).contains("empty 0 n/a"));
        assert!(!render(&nodes, &parts, &SinfoOptions::node(false), &ctx()).contains("empty"));
        assert!(
            !render(&nodes, &parts, &SinfoOptions::list_reasons(false), &ctx()).contains("empty")
        );
    }
}
