//! `topology.conf` as Slurm 22.05's `topology/tree` plugin reads it: one `SwitchName=` line per switch, with either
//! `Nodes=` (a leaf switch) or `Switches=` (a switch above others), and an optional `LinkSpeed=` that Slurm only
//! shows. This is the syntax stage; [`crate::policy::switch_tree`] resolves the lines against the cluster's nodes.
//!
//! Errors are Slurm's: an unknown key, a bad `LinkSpeed`, a switch with both or neither kind of children. An empty
//! file is accepted with Slurm's `No switches configured` warning.

use super::error::{ConfError, ConfErrorKind, ConfErrors, Location};
use super::lexer::line_pair;
use super::reader::{LineSink, ParseOptions, Reader};
use super::value::{parse_fields, spec, KeySpec, Kind};

/// The keys a `SwitchName=` line may carry after its name.
const SWITCH_KEYS: &[KeySpec] = &[
    spec("LinkSpeed", Kind::U32),
    spec("Nodes", Kind::Str),
    spec("Switches", Kind::Str),
];

/// One `SwitchName=` line as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchConf {
    pub name: String,
    /// `LinkSpeed=`, 1 when absent (Slurm's default; it is only displayed).
    pub link_speed: u32,
    /// `Nodes=` as written: a hostlist expression.
    pub nodes: Option<String>,
    /// `Switches=` as written: a hostlist expression of switch names.
    pub switches: Option<String>,
    pub location: Location,
}

/// The switches of a `topology.conf`, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopologyConf {
    pub switches: Vec<SwitchConf>,
    /// What Slurm logs without failing (`No switches configured`).
    pub warnings: Vec<String>,
}

impl TopologyConf {
    pub fn parse_str(text: &str, file: &str) -> Result<Self, ConfErrors> {
        let mut sink = SwitchSink::default();
        let options = ParseOptions::default();
        let mut resolve = super::reader::no_includes;
        let mut reader = Reader::new(&mut resolve, &options);
        reader.read(file, text, &mut sink);
        if !reader.errors.is_empty() {
            return Err(ConfErrors {
                errors: reader.errors,
                warnings: Vec::new(),
            });
        }
        let mut conf = TopologyConf {
            switches: sink.switches,
            warnings: Vec::new(),
        };
        if conf.switches.is_empty() {
            conf.warnings.push("No switches configured".to_string());
        }
        Ok(conf)
    }
}

#[derive(Default)]
struct SwitchSink {
    switches: Vec<SwitchConf>,
}

impl LineSink for SwitchSink {
    fn line(&mut self, at: &Location, text: &str, errors: &mut Vec<ConfError>) {
        let Some((first, rest)) = line_pair(at, text, errors) else {
            return;
        };
        if !first.key.eq_ignore_ascii_case("SwitchName") {
            errors.push(ConfError::at(
                at,
                ConfErrorKind::UnrecognizedKey { key: first.key },
            ));
            return;
        }
        let before = errors.len();
        let fields = parse_fields(SWITCH_KEYS, rest, at, false, errors);
        if errors.len() > before {
            return;
        }
        let switch = SwitchConf {
            link_speed: fields.u32("LinkSpeed").unwrap_or(1),
            nodes: fields.str("Nodes").map(str::to_string),
            switches: fields.str("Switches").map(str::to_string),
            name: first.value,
            location: at.clone(),
        };
        let children = match (&switch.nodes, &switch.switches) {
            (Some(_), Some(_)) => Some("has both child switches and nodes"),
            (None, None) => Some("has neither child switches nor nodes"),
            _ => None,
        };
        match children {
            Some(problem) => errors.push(ConfError::at(
                at,
                ConfErrorKind::Other(format!("switch {} {problem}", switch.name)),
            )),
            None => self.switches.push(switch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> Vec<String> {
        TopologyConf::parse_str(text, "/etc/slurm/topology.conf")
            .unwrap_err()
            .iter()
            .map(ConfError::slurm_text)
            .collect()
    }

    #[test]
    fn switches_with_nodes_or_children_any_case() {
        let c = TopologyConf::parse_str(
            "# two leaves under one spine\nSwitchName=s0 Nodes=n[1-2] LinkSpeed=100\n\
             switchname=s1 nodes=n[3-4],vm\nSwitchName=s2 Switches=s[0-1]\n",
            "t",
        )
        .unwrap();
        let rows: Vec<_> = c
            .switches
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.link_speed,
                    s.nodes.as_deref(),
                    s.switches.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                ("s0", 100, Some("n[1-2]"), None),
                ("s1", 1, Some("n[3-4],vm"), None),
                ("s2", 1, None, Some("s[0-1]")),
            ]
        );
        assert_eq!(c.switches[2].location.line, 4);
        assert!(c.warnings.is_empty());
    }

    #[test]
    fn an_empty_file_only_warns() {
        let c = TopologyConf::parse_str("# nothing\n\n", "t").unwrap();
        assert!(c.switches.is_empty());
        assert_eq!(c.warnings, vec!["No switches configured"]);
    }

    #[test]
    fn errors_use_slurm_texts() {
        assert_eq!(
            errors("SwitchName=s0 Nodes=vm Bogus=1\n"),
            vec![
                "Parsing error at unrecognized key: Bogus",
                "Parse error in file /etc/slurm/topology.conf line 1: \" Bogus=1\"",
            ]
        );
        assert_eq!(
            errors("SwitchName=s0 Nodes=vm LinkSpeed=abc\n"),
            vec![
                "LinkSpeed value (abc) is not a valid number",
                "Parse error in file /etc/slurm/topology.conf line 1: \" LinkSpeed=abc\"",
            ]
        );
        assert_eq!(
            errors("SwitchName=s0 Nodes=vm LinkSpeed=-1\n")[0],
            "LinkSpeed value (-1) is less than zero"
        );
        assert_eq!(
            errors("SwitchName=s0 Nodes=vm Switches=s1\nSwitchName=s1\nFoo=bar\n"),
            vec![
                "switch s0 has both child switches and nodes",
                "switch s1 has neither child switches nor nodes",
                "Parsing error at unrecognized key: Foo",
            ]
        );
        assert_eq!(
            errors("SwitchName=s0 Nodes=vm Switches=\n"),
            vec!["Parse error in file /etc/slurm/topology.conf line 1: \" Switches=\""]
        );
    }
}
