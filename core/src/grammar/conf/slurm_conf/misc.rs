//! The smaller record lines (`SlurmctldHost=`, `NodeSet=`, `DownNodes=`, `FrontendName=`) and the controller
//! port range.

use serde::{Deserialize, Serialize};

use crate::grammar::conf::error::{ConfError, ConfErrorKind, Location};
use crate::grammar::conf::value::Fields;

/// One controller from `SlurmctldHost=name(addr)` (or the legacy `ControlMachine`/`BackupController` keys); the
/// first is the primary. `localhost` is kept as written: replacing it with the host's name is the caller's I/O.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerHost {
    pub hostname: String,
    /// The address in parentheses, else the hostname.
    pub addr: String,
}

impl ControllerHost {
    /// Parses `name` or `name(addr)`; anything else with parentheses is Slurm's "Bad value".
    pub fn parse(value: &str) -> Option<Self> {
        let open = value.find('(');
        let close = value.find(')');
        match (open, close) {
            (None, None) => Some(Self {
                hostname: value.to_string(),
                addr: value.to_string(),
            }),
            (Some(o), Some(c)) if c == value.len() - 1 && value.rfind(')') == Some(c) => {
                // Slurm cuts the address at the first ')', which is the last character here.
                Some(Self {
                    hostname: value[..o].to_string(),
                    addr: value[o + 1..].trim_end_matches(')').to_string(),
                })
            }
            _ => None,
        }
    }
}

/// The ports `slurmctld` listens on: `SlurmctldPort=6817` or `SlurmctldPort=6817-6820`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortRange {
    pub first: u32,
    pub last: u32,
}

impl PortRange {
    pub fn single(port: u32) -> Self {
        Self {
            first: port,
            last: port,
        }
    }

    /// Slurm's rules: a positive number, or `low-high` with `high > low` (text after `high` is ignored, as C's
    /// `strtol` ignores it).
    pub fn parse(value: &str) -> Option<Self> {
        let (first, rest) = leading_number(value)?;
        if rest.is_empty() {
            return (first > 0).then_some(Self::single(first));
        }
        let (last, _) = leading_number(rest.strip_prefix('-')?)?;
        (first > 0 && last > first).then_some(Self { first, last })
    }

    pub fn count(self) -> u32 {
        self.last - self.first + 1
    }

    pub fn ports(self) -> impl Iterator<Item = u32> {
        self.first..=self.last
    }
}

/// Decimal digits at the start of `s` and the rest; `None` without digits or past `u32`.
fn leading_number(s: &str) -> Option<(u32, &str)> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// `NodeSet=name Nodes=... Feature=...`: a named group of nodes partitions can refer to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeSetConf {
    pub name: String,
    /// Hostlist expression as written.
    pub nodes: Option<String>,
    pub feature: Option<String>,
    pub location: Location,
}

/// `DownNodes=nodes Reason=... State=...`: nodes to start in a down state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DownNodesConf {
    /// Hostlist expression as written.
    pub nodes: String,
    /// Slurm's default reason is "Set in slurm.conf".
    pub reason: String,
    pub state: Option<String>,
    pub location: Location,
}

/// `FrontendName=` (kept for completeness: the Debian build refuses it, see [`FRONTEND_UNSUPPORTED`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontendConf {
    pub names: String,
    /// `FrontendAddr=`, else `names`.
    pub addresses: String,
    pub port: Option<u16>,
    pub reason: Option<String>,
    pub state: Option<String>,
    pub allow_groups: Option<String>,
    pub allow_users: Option<String>,
    pub deny_groups: Option<String>,
    pub deny_users: Option<String>,
    pub location: Location,
}

/// What Slurm 22.05 built without `--enable-front-end` (Debian's build) says about `FrontendName`.
pub const FRONTEND_UNSUPPORTED: &str =
    "Use of FrontendName in slurm.conf without Slurm being configured/built with the --enable-front-end option";

pub(crate) fn node_set(name: &str, f: &Fields, at: &Location) -> NodeSetConf {
    NodeSetConf {
        name: name.to_string(),
        nodes: f.str("Nodes").map(str::to_string),
        feature: f.str("Feature").map(str::to_string),
        location: at.clone(),
    }
}

pub(crate) fn down_nodes(nodes: &str, f: &Fields, at: &Location) -> DownNodesConf {
    DownNodesConf {
        nodes: nodes.to_string(),
        reason: f.str("Reason").unwrap_or("Set in slurm.conf").to_string(),
        state: f.str("State").map(str::to_string),
        location: at.clone(),
    }
}

pub(crate) fn frontend(names: &str, line: &Fields, dflt: &Fields, at: &Location) -> FrontendConf {
    let own = |k: &str| line.str(k).map(str::to_string);
    let pick = |k: &str| line.str(k).or_else(|| dflt.str(k)).map(str::to_string);
    FrontendConf {
        names: names.to_string(),
        addresses: own("FrontendAddr").unwrap_or_else(|| names.to_string()),
        port: line.u16("Port").or_else(|| dflt.u16("Port")),
        reason: pick("Reason"),
        state: pick("State"),
        allow_groups: own("AllowGroups"),
        allow_users: own("AllowUsers"),
        deny_groups: own("DenyGroups"),
        deny_users: own("DenyUsers"),
        location: at.clone(),
    }
}

/// Checks a `FrontendName=DEFAULT` line.
pub(crate) fn check_frontend_default(
    line: &Fields,
    at: &Location,
    errors: &mut Vec<ConfError>,
) -> bool {
    if line.has("FrontendAddr") {
        let kind = ConfErrorKind::NotAllowedInDefault {
            key: "FrontendAddr".into(),
            line_key: "FrontendName".into(),
        };
        errors.push(ConfError::at(at, kind));
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_hosts() {
        assert_eq!(
            ControllerHost::parse("vm(127.0.0.1)"),
            Some(ControllerHost {
                hostname: "vm".into(),
                addr: "127.0.0.1".into()
            })
        );
        assert_eq!(
            ControllerHost::parse("ctl").map(|h| h.addr),
            Some("ctl".into())
        );
        assert_eq!(ControllerHost::parse("a(b"), None);
        assert_eq!(ControllerHost::parse("a(b)c"), None);
        assert_eq!(ControllerHost::parse("a(b))"), None);
    }

    #[test]
    fn port_ranges() {
        assert_eq!(PortRange::parse("6817"), Some(PortRange::single(6817)));
        assert_eq!(PortRange::parse("7990-7992").map(PortRange::count), Some(3));
        assert_eq!(
            PortRange::parse("7990-7991x"),
            Some(PortRange {
                first: 7990,
                last: 7991
            })
        );
        for bad in ["abc", "7000-6000", "7990x", "0", "-5", "7990-", "7990-7990"] {
            assert_eq!(PortRange::parse(bad), None, "{bad}");
        }
    }
}
