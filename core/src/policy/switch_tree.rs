//! The network switch tree of Slurm's `topology/tree` plugin: `topology.conf`'s switches resolved against the
//! cluster's nodes, with each switch's level (0 for a leaf, one above its highest child otherwise) and the nodes
//! reachable below it. The scheduler keeps a multi-node job under the lowest switch that can hold it; `scontrol show
//! topology` prints the switches.
//!
//! Resolution follows Slurm 22.05: a duplicate switch, an unknown child or a cycle is fatal (with Slurm's texts),
//! node names slurm.conf does not define are dropped with a warning, and so are the other oddities Slurm only logs
//! (nodes under no switch, nodes under several leaves, no switch above every node).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::grammar::conf::TopologyConf;
use crate::grammar::hostlist::Hostlist;

/// Rounds of level resolution before a configuration is declared not a tree (Slurm's bound).
const RESOLVE_ROUNDS_MAX: usize = 20;

/// One switch, resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Switch {
    pub name: String,
    /// 0 for a leaf switch (one with `Nodes=`); one more than its highest child otherwise.
    pub level: u16,
    pub link_speed: u32,
    /// `Nodes=` as `scontrol show topology` prints it: a leaf's as written, a higher switch's as the ranged list of
    /// the known nodes below it.
    pub nodes_shown: String,
    /// `Switches=` as written, for a switch above others.
    #[serde(default)]
    pub switches_shown: Option<String>,
    /// The nodes below this switch that slurm.conf defines, in slurm.conf order.
    pub nodes: Vec<String>,
}

impl Switch {
    pub fn is_leaf(&self) -> bool {
        self.level == 0
    }

    /// The line `scontrol show topology` prints for this switch (the same with and without `-o`).
    pub fn show_line(&self) -> String {
        let mut out = format!(
            "SwitchName={} Level={} LinkSpeed={}",
            self.name, self.level, self.link_speed
        );
        if !self.nodes_shown.is_empty() {
            out.push_str(&format!(" Nodes={}", self.nodes_shown));
        }
        if let Some(children) = self.switches_shown.as_deref().filter(|s| !s.is_empty()) {
            out.push_str(&format!(" Switches={children}"));
        }
        out.push('\n');
        out
    }
}

/// The switches of `topology.conf` in file order; empty without `TopologyPlugin=topology/tree` or without switches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchTree {
    pub switches: Vec<Switch>,
}

/// A resolved tree with the warnings Slurm logs for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub tree: SwitchTree,
    pub warnings: Vec<String>,
}

/// Where a node sits in the tree, as jobs see it (`SLURM_TOPOLOGY_ADDR`, `SLURM_TOPOLOGY_ADDR_PATTERN`): the
/// switches from the top down to the node's leaf, then the node (`spine.leaf1.n1`, `switch.switch.node`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TopologyAddr {
    pub addr: String,
    pub pattern: String,
}

impl TopologyAddr {
    /// A node outside any tree (no topology plugin, or a node under no switch): just its name.
    pub fn node_only(node: &str) -> TopologyAddr {
        TopologyAddr {
            addr: node.to_string(),
            pattern: "node".to_string(),
        }
    }
}

impl SwitchTree {
    pub fn is_empty(&self) -> bool {
        self.switches.is_empty()
    }

    /// The node's address in the tree: one switch per level above it (the first in file order where a node hangs
    /// under several), highest first. `None` for a node under no switch.
    pub fn address_of(&self, node: &str) -> Option<TopologyAddr> {
        let mut above: Vec<&Switch> = self
            .switches
            .iter()
            .filter(|s| s.nodes.iter().any(|n| n == node))
            .collect();
        if above.is_empty() {
            return None;
        }
        above.sort_by_key(|s| std::cmp::Reverse(s.level));
        above.dedup_by_key(|s| s.level);
        let mut addr: Vec<&str> = above.iter().map(|s| s.name.as_str()).collect();
        addr.push(node);
        let mut pattern = vec!["switch"; above.len()];
        pattern.push("node");
        Some(TopologyAddr {
            addr: addr.join("."),
            pattern: pattern.join("."),
        })
    }

    pub fn leaves(&self) -> impl Iterator<Item = &Switch> {
        self.switches.iter().filter(|s| s.is_leaf())
    }

    /// What `scontrol show topology NAME` prints: the switch of that name, else every switch whose `Nodes=` lists a
    /// node of that name; `None` when nothing matches.
    pub fn matching(&self, name: &str) -> Option<Vec<&Switch>> {
        if let Some(s) = self.switches.iter().find(|s| s.name == name) {
            return Some(vec![s]);
        }
        let found: Vec<&Switch> = self
            .switches
            .iter()
            .filter(|s| Hostlist::parse(&s.nodes_shown).is_ok_and(|list| list.find(name).is_some()))
            .collect();
        (!found.is_empty()).then_some(found)
    }

    /// Resolves the parsed file against the nodes slurm.conf defines (in slurm.conf order). `Err` is the text of
    /// Slurm's fatal error.
    pub fn resolve(conf: &TopologyConf, node_names: &[String]) -> Result<Resolved, String> {
        let known: BTreeSet<&str> = node_names.iter().map(String::as_str).collect();
        let mut warnings = conf.warnings.clone();
        let mut invalid: Vec<String> = Vec::new();
        let mut switches: Vec<Pending> = Vec::with_capacity(conf.switches.len());
        let mut seen_in_leaf: BTreeMap<&str, usize> = BTreeMap::new();
        for line in &conf.switches {
            if switches.iter().any(|s| s.name == line.name) {
                return Err(format!("Switch ({}) has already been defined", line.name));
            }
            let mut pending = Pending {
                name: line.name.clone(),
                link_speed: line.link_speed,
                level: None,
                nodes: BTreeSet::new(),
                nodes_shown: String::new(),
                switches_shown: line.switches.clone(),
            };
            if let Some(expr) = &line.nodes {
                let names = crate::grammar::hostlist::expand(expr).map_err(|_| {
                    format!(
                        "Invalid node name ({expr}) in switch config ({})",
                        line.name
                    )
                })?;
                for name in names {
                    match known.get(name.as_str()) {
                        Some(k) => {
                            *seen_in_leaf.entry(k).or_default() += 1;
                            pending.nodes.insert((*k).to_string());
                        }
                        None => invalid.push(name),
                    }
                }
                pending.level = Some(0);
                pending.nodes_shown = expr.clone();
            }
            switches.push(pending);
        }
        resolve_levels(&mut switches)?;
        let multi_homed: Vec<&str> = node_names
            .iter()
            .map(String::as_str)
            .filter(|n| seen_in_leaf.get(n).is_some_and(|c| *c > 1))
            .collect();
        if !multi_homed.is_empty() {
            warnings.push(format!(
                "WARNING: Multiple leaf switches contain nodes: {}",
                crate::grammar::hostlist::compress(&multi_homed)
            ));
        }
        let unreachable: Vec<&str> = node_names
            .iter()
            .map(String::as_str)
            .filter(|n| !seen_in_leaf.contains_key(n))
            .collect();
        if !switches.is_empty() && !unreachable.is_empty() {
            warnings.push(format!(
                "WARNING: switches lack access to {} nodes: {}",
                unreachable.len(),
                crate::grammar::hostlist::compress(&unreachable)
            ));
        }
        if !invalid.is_empty() {
            warnings.push(format!(
                "WARNING: Invalid hostnames in switch configuration: {}",
                crate::grammar::hostlist::compress(&invalid)
            ));
        }
        let tree = SwitchTree {
            switches: switches.into_iter().map(|p| p.finish(node_names)).collect(),
        };
        let spans_all = tree
            .switches
            .iter()
            .any(|s| s.nodes.len() == node_names.len());
        if !tree.is_empty() && !spans_all {
            warnings.push(
                "TOPOLOGY: warning -- no switch can reach all nodes through its descendants. If this is not \
                 intentional, fix the topology.conf file."
                    .to_string(),
            );
        }
        Ok(Resolved { tree, warnings })
    }
}

/// A switch whose level may not be known yet.
struct Pending {
    name: String,
    link_speed: u32,
    level: Option<u16>,
    nodes: BTreeSet<String>,
    nodes_shown: String,
    switches_shown: Option<String>,
}

impl Pending {
    fn finish(self, node_names: &[String]) -> Switch {
        let nodes: Vec<String> = node_names
            .iter()
            .filter(|n| self.nodes.contains(*n))
            .cloned()
            .collect();
        let nodes_shown = match self.level {
            Some(0) => self.nodes_shown,
            _ => crate::grammar::hostlist::compress(&nodes),
        };
        Switch {
            name: self.name,
            level: self.level.unwrap_or(0),
            link_speed: self.link_speed,
            nodes_shown,
            switches_shown: self.switches_shown,
            nodes,
        }
    }
}

/// Gives every switch above others its level and nodes, a round at a time, as Slurm does.
fn resolve_levels(switches: &mut [Pending]) -> Result<(), String> {
    for _ in 0..=RESOLVE_ROUNDS_MAX {
        let mut resolved_all = true;
        for i in 0..switches.len() {
            if switches[i].level.is_some() {
                continue;
            }
            let Some(expr) = switches[i].switches_shown.clone() else {
                continue;
            };
            let children = crate::grammar::hostlist::expand(&expr)
                .map_err(|_| format!("Invalid switches: {expr}"))?;
            let mut level = 0u16;
            let mut nodes = BTreeSet::new();
            let mut ready = true;
            for child in &children {
                let Some(c) = switches.iter().find(|s| &s.name == child) else {
                    return Err(format!(
                        "Switch configuration {} has invalid child ({child})",
                        switches[i].name
                    ));
                };
                match c.level {
                    Some(l) => {
                        level = level.max(l.saturating_add(1));
                        nodes.extend(c.nodes.iter().cloned());
                    }
                    None => {
                        ready = false;
                        break;
                    }
                }
            }
            if ready {
                switches[i].level = Some(level);
                switches[i].nodes = nodes;
            } else {
                resolved_all = false;
            }
        }
        if resolved_all {
            return Ok(());
        }
    }
    Err("Switch configuration is not a tree".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn resolve(text: &str, nodes: &[&str]) -> Result<Resolved, String> {
        let conf = TopologyConf::parse_str(text, "topology.conf").unwrap();
        SwitchTree::resolve(&conf, &names(nodes))
    }

    #[test]
    fn a_nodes_address_runs_from_the_top_switch_down_to_it() {
        let r = resolve(
            "SwitchName=leaf1 Nodes=vm\nSwitchName=leaf2 Nodes=n[1-2]\nSwitchName=spine Switches=leaf[1-2]\n",
            &["vm", "n1", "n2", "lone"],
        )
        .unwrap();
        // What Slurm 22.05's topology/tree gave a job on vm (conformance case 404).
        assert_eq!(
            r.tree.address_of("vm"),
            Some(TopologyAddr {
                addr: "spine.leaf1.vm".into(),
                pattern: "switch.switch.node".into(),
            })
        );
        assert_eq!(r.tree.address_of("n2").unwrap().addr, "spine.leaf2.n2");
        assert_eq!(r.tree.address_of("lone"), None);
        assert_eq!(TopologyAddr::node_only("lone").pattern, "node");
    }

    #[test]
    fn levels_nodes_and_the_lines_scontrol_prints() {
        let r = resolve(
            "SwitchName=s0 Nodes=n[1-2] LinkSpeed=100\nSwitchName=s1 Nodes=n[3-4],vm\n\
             SwitchName=s2 Switches=s[0-1]\n",
            &["vm"],
        )
        .unwrap();
        let text: String = r.tree.switches.iter().map(Switch::show_line).collect();
        // What Slurm 22.05 printed for this file on a cluster whose only node is vm.
        assert_eq!(
            text,
            "SwitchName=s0 Level=0 LinkSpeed=100 Nodes=n[1-2]\n\
             SwitchName=s1 Level=0 LinkSpeed=1 Nodes=n[3-4],vm\n\
             SwitchName=s2 Level=1 LinkSpeed=1 Nodes=vm Switches=s[0-1]\n"
        );
        assert_eq!(
            r.warnings,
            vec!["WARNING: Invalid hostnames in switch configuration: n[1-4]"]
        );
        assert_eq!(r.tree.switches[2].nodes, names(&["vm"]));
        assert_eq!(r.tree.leaves().count(), 2);
    }

    #[test]
    fn deeper_trees_take_the_highest_child_level_and_node_order_from_slurm_conf() {
        let nodes = ["a1", "a2", "b1", "b2", "c1"];
        let r = resolve(
            "SwitchName=top Switches=mid,c\nSwitchName=mid Switches=a,b\nSwitchName=a Nodes=a[1-2]\n\
             SwitchName=b Nodes=b[1-2]\nSwitchName=c Nodes=c1\n",
            &nodes,
        )
        .unwrap();
        let levels: Vec<(&str, u16)> = r
            .tree
            .switches
            .iter()
            .map(|s| (s.name.as_str(), s.level))
            .collect();
        assert_eq!(
            levels,
            vec![("top", 2), ("mid", 1), ("a", 0), ("b", 0), ("c", 0)]
        );
        assert_eq!(r.tree.switches[0].nodes, names(&nodes));
        assert_eq!(r.tree.switches[0].nodes_shown, "a[1-2],b[1-2],c1");
        assert!(r.warnings.is_empty());
    }

    #[test]
    fn fatal_errors_use_slurm_texts() {
        assert_eq!(
            resolve("SwitchName=s0 Nodes=vm\nSwitchName=s0 Nodes=vm\n", &["vm"]).unwrap_err(),
            "Switch (s0) has already been defined"
        );
        assert_eq!(
            resolve(
                "SwitchName=s0 Nodes=vm\nSwitchName=s1 Switches=s0,s9\n",
                &["vm"]
            )
            .unwrap_err(),
            "Switch configuration s1 has invalid child (s9)"
        );
        assert_eq!(
            resolve(
                "SwitchName=s0 Switches=s1\nSwitchName=s1 Switches=s0\n",
                &["vm"]
            )
            .unwrap_err(),
            "Switch configuration is not a tree"
        );
    }

    #[test]
    fn warnings_for_nodes_outside_or_under_several_leaves() {
        let r = resolve("SwitchName=s0 Nodes=n1\n", &["vm"]).unwrap();
        assert_eq!(
            r.warnings,
            vec![
                "WARNING: switches lack access to 1 nodes: vm",
                "WARNING: Invalid hostnames in switch configuration: n1",
                "TOPOLOGY: warning -- no switch can reach all nodes through its descendants. If this is not \
                 intentional, fix the topology.conf file.",
            ]
        );
        let r = resolve(
            "SwitchName=s0 Nodes=vm\nSwitchName=s1 Nodes=vm\nSwitchName=s2 Switches=s[0-1]\n",
            &["vm"],
        )
        .unwrap();
        assert_eq!(
            r.warnings,
            vec!["WARNING: Multiple leaf switches contain nodes: vm"]
        );
    }

    #[test]
    fn show_by_switch_name_or_by_node() {
        let r = resolve(
            "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n[3-4],vm\nSwitchName=s2 Switches=s[0-1]\n",
            &["vm"],
        )
        .unwrap();
        let matched = |n: &str| {
            r.tree
                .matching(n)
                .map(|v| v.iter().map(|s| s.name.clone()).collect::<Vec<_>>())
        };
        assert_eq!(matched("s2"), Some(names(&["s2"])));
        assert_eq!(matched("vm"), Some(names(&["s1", "s2"])));
        assert_eq!(matched("n1"), Some(names(&["s0"])));
        assert_eq!(matched("nosuch"), None);
    }
}
