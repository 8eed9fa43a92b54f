//! `spur admin controller`: the requests that list, add and remove the controllers of a Raft group while it
//! serves, and the listing they answer with.

use serde::{Deserialize, Serialize};

/// gRPC metadata on a follower's refusal of an agent session: the leader's peer address (host:port), so an agent
/// finds a leader that is not among its configured controllers (one added with `spur admin controller add`).
pub const LEADER_HINT_HEADER: &str = "spur-leader";

/// A change to (or a look at) the group of controllers. Sent as a `Control` call; only administrators may add or
/// remove.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ControllerChange {
    List,
    /// Add controller `name`, which peers and clients reach at `addr` (host:port), started with
    /// `spurctld --join NAME=HOST:PORT`.
    Add {
        name: String,
        addr: String,
    },
    /// Remove the controller called `name` (a `SlurmctldHost` name, an added controller's name, or its id).
    Remove {
        name: String,
    },
}

/// One controller of the group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerEntry {
    pub id: u64,
    pub name: String,
    pub addr: String,
    /// A voter counts towards majorities; a learner is still catching up.
    pub voter: bool,
    pub leader: bool,
    /// The last log index the leader knows this controller holds.
    #[serde(default)]
    pub matched: Option<u64>,
}

/// The group as the answering controller sees it, after the change if there was one.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ControllerList {
    pub controllers: Vec<ControllerEntry>,
    /// Which controller answered (its name).
    #[serde(default)]
    pub answered_by: String,
}

impl ControllerList {
    /// One line per controller, as `spur admin controller list` prints them.
    pub fn lines(&self) -> Vec<String> {
        self.controllers
            .iter()
            .map(|c| {
                let role = match (c.leader, c.voter) {
                    (true, _) => "leader",
                    (false, true) => "voter",
                    (false, false) => "learner",
                };
                let matched = c
                    .matched
                    .map(|m| format!(" Matched={m}"))
                    .unwrap_or_default();
                format!(
                    "Controller={} Id={} Addr={} Role={role}{matched}",
                    c.name, c.id, c.addr
                )
            })
            .collect()
    }
}

/// Parses `NAME=HOST:PORT`, the form `spur admin controller add` and `spurctld --join` take.
pub fn parse_member(spec: &str) -> Result<(String, String), String> {
    let (name, addr) = spec
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=HOST:PORT, got '{spec}'"))?;
    let (host, port) = addr
        .rsplit_once(':')
        .ok_or_else(|| format!("'{addr}' has no port (expected HOST:PORT)"))?;
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Err(format!("bad controller name '{name}'"));
    }
    if host.is_empty() || port.parse::<u16>().map_or(true, |p| p == 0) {
        return Err(format!(
            "bad controller address '{addr}' (expected HOST:PORT)"
        ));
    }
    Ok((name.to_string(), addr.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_name_equals_host_and_port() {
        assert_eq!(
            parse_member("ctl4=10.0.0.4:6817"),
            Ok(("ctl4".into(), "10.0.0.4:6817".into()))
        );
        assert!(parse_member("ctl4").is_err());
        assert!(parse_member("ctl4=10.0.0.4").is_err());
        assert!(parse_member("=10.0.0.4:6817").is_err());
        assert!(parse_member("ctl4=:6817").is_err());
        assert!(parse_member("ctl4=h:0").is_err());
        assert!(parse_member("ctl4=h:99999").is_err());
    }

    #[test]
    fn the_listing_names_roles() {
        let list = ControllerList {
            controllers: vec![
                ControllerEntry {
                    id: 2,
                    name: "ctl2".into(),
                    addr: "h2:6817".into(),
                    voter: true,
                    leader: true,
                    matched: Some(9),
                },
                ControllerEntry {
                    id: 1005,
                    name: "ctl4".into(),
                    addr: "h4:6817".into(),
                    voter: false,
                    leader: false,
                    matched: None,
                },
            ],
            answered_by: "ctl2".into(),
        };
        assert_eq!(
            list.lines(),
            vec![
                "Controller=ctl2 Id=2 Addr=h2:6817 Role=leader Matched=9",
                "Controller=ctl4 Id=1005 Addr=h4:6817 Role=learner",
            ]
        );
    }
}
