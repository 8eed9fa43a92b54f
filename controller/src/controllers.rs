//! `spur admin controller list|add|remove`: the group's membership as administrators see and change it. Changes
//! run on the leader (a follower forwards them); see `raft::membership` for how openraft carries them out.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use spur_core::model::controllers::{ControllerChange, ControllerEntry, ControllerList};
use spur_core::wire::api::{ApiError, SlurmErrno};

use crate::raft::{GroupView, PeerError, ReplicationError};
use crate::runtime::{Controller, LEADER_WAIT};

/// The peer message that carries a membership change to the leader.
pub const KIND_MEMBERSHIP: &str = "raft.membership";
/// The peer message that tells a removed controller (by id) it was removed: a follower is not sure to receive the
/// log entry that removes it, since the leader stops replicating to it once that entry commits.
pub const KIND_REMOVED: &str = "raft.removed";
/// How long the leader tries to tell a removed controller.
const REMOVED_NOTICE_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a new controller has to catch up with the log before it becomes a voter: within the CLI's request
/// timeout (10 s), so the administrator hears the outcome; an addition that ran out of time is resumed by running
/// it again.
const CATCH_UP: Duration = Duration::from_secs(8);
/// A forwarded change waits for the catch-up on the leader.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(9);
const RETRY: Duration = Duration::from_millis(50);
/// A listing asks the leader briefly, then answers from this controller's own view.
const LIST_TIMEOUT: Duration = Duration::from_secs(2);

/// The leader's answer to a forwarded change.
#[derive(Debug, Serialize, Deserialize)]
pub enum MembershipReply {
    Done(Result<ControllerList, ApiError>),
    NotLeader,
}

impl Controller {
    /// The group as this controller sees it.
    pub fn controller_list(&self) -> ControllerList {
        let view = self.state.group_view();
        let slurm_conf = self.state.read(|s| s.config.controllers.clone());
        let controllers = view
            .members
            .iter()
            .map(|m| ControllerEntry {
                id: m.id,
                name: display_name(&slurm_conf, m.id, &m.name),
                addr: m.addr.clone(),
                voter: m.voter,
                leader: view.leader == Some(m.id),
                matched: m.matched,
            })
            .collect();
        ControllerList {
            controllers,
            answered_by: self.member_name().unwrap_or_default().to_string(),
        }
    }

    /// Lists, adds or removes a controller. Adding and removing are committed by the leader: a follower forwards
    /// them, and a change waits up to `LEADER_WAIT` for a leader.
    pub async fn change_controllers(
        &self,
        change: ControllerChange,
    ) -> Result<ControllerList, ApiError> {
        if change == ControllerChange::List {
            return Ok(self.leaders_list().await);
        }
        let Some(peers) = self.peers() else {
            return Err(ApiError::with_detail(
                SlurmErrno::Error,
                "a single controller (one SlurmctldHost line) is not a group: list its controllers in slurm.conf",
            ));
        };
        let deadline = tokio::time::Instant::now() + LEADER_WAIT;
        loop {
            match self.state.leader() {
                Some((id, _)) if id == self.state.node_id() => {
                    if let MembershipReply::Done(result) =
                        self.change_forwarded(change.clone()).await
                    {
                        return result;
                    }
                }
                Some((_, addr)) => {
                    let reply: Result<MembershipReply, PeerError> = peers
                        .call(&addr, KIND_MEMBERSHIP, &change, FORWARD_TIMEOUT)
                        .await;
                    match reply {
                        Ok(MembershipReply::Done(result)) => return result,
                        Ok(MembershipReply::NotLeader) => {}
                        Err(e) => tracing::debug!("forwarding a membership change failed: {e}"),
                    }
                }
                None => {}
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(ApiError::with_detail(
                    SlurmErrno::Error,
                    "no controller leads the cluster (no majority of controllers reachable)",
                ));
            }
            tokio::time::sleep(RETRY).await;
        }
    }

    /// The group as the leader sees it (with how much of the log each member holds), else as this controller does.
    async fn leaders_list(&self) -> ControllerList {
        if let (Some(peers), Some((id, addr))) = (self.peers(), self.state.leader()) {
            if id != self.state.node_id() {
                let reply: Result<MembershipReply, PeerError> = peers
                    .call(
                        &addr,
                        KIND_MEMBERSHIP,
                        &ControllerChange::List,
                        LIST_TIMEOUT,
                    )
                    .await;
                if let Ok(MembershipReply::Done(Ok(list))) = reply {
                    return list;
                }
            }
        }
        self.controller_list()
    }

    /// A change to carry out here, while this controller leads.
    pub async fn change_forwarded(&self, change: ControllerChange) -> MembershipReply {
        let result = match &change {
            ControllerChange::List => return MembershipReply::Done(Ok(self.controller_list())),
            ControllerChange::Add { name, addr } => self
                .state
                .add_member(name, addr, CATCH_UP)
                .await
                .map(|_| ()),
            ControllerChange::Remove { name } => {
                let view = self.state.group_view();
                let slurm_conf = self.state.read(|s| s.config.controllers.clone());
                match resolve(&view, &slurm_conf, name) {
                    Some(id) => {
                        let removed = self.state.remove_member(id).await;
                        let addr = view
                            .members
                            .iter()
                            .find(|m| m.id == id)
                            .map(|m| m.addr.clone());
                        if let (Ok(()), Some(addr), Some(peers)) = (&removed, addr, self.peers()) {
                            let peers = peers.clone();
                            tokio::spawn(async move {
                                let told: Result<(), PeerError> = peers
                                    .call(&addr, KIND_REMOVED, &id, REMOVED_NOTICE_TIMEOUT)
                                    .await;
                                if let Err(e) = told {
                                    tracing::info!("could not tell removed controller {id}: {e}");
                                }
                            });
                        }
                        removed
                    }
                    // Gone already: this is a retry of the removal, sent on after the removed leader stopped
                    // before it could answer.
                    None if departed(&self.state.departed_members(), &slurm_conf, name) => {
                        return MembershipReply::Done(Ok(self.controller_list()));
                    }
                    None => {
                        return MembershipReply::Done(Err(ApiError::with_detail(
                            SlurmErrno::Error,
                            format!("no controller {name} in the group"),
                        )))
                    }
                }
            }
        };
        match result {
            Ok(()) => MembershipReply::Done(Ok(self.controller_list())),
            Err(ReplicationError::NotLeader { .. }) => MembershipReply::NotLeader,
            Err(e) => {
                MembershipReply::Done(Err(ApiError::with_detail(SlurmErrno::Error, e.to_string())))
            }
        }
    }
}

impl Controller {
    /// Another controller (the leader) says controller `id` was removed from the group: if that is this one, it
    /// stops.
    pub fn removed_notice(&self, id: u64) {
        if id == self.state.node_id() {
            tracing::warn!("the leader removed this controller from the group; stopping");
            self.removed.notify_one();
        }
    }
}

/// A member's name: the one it was added under, else its `SlurmctldHost` line (ids 1.. are their positions).
fn display_name(slurm_conf: &[String], id: u64, recorded: &str) -> String {
    if !recorded.is_empty() {
        return recorded.to_string();
    }
    usize::try_from(id)
        .ok()
        .and_then(|id| id.checked_sub(1))
        .and_then(|i| slurm_conf.get(i))
        .cloned()
        .unwrap_or_else(|| id.to_string())
}

/// The id of the member called `name` (or whose id `name` is).
fn resolve(view: &GroupView, slurm_conf: &[String], name: &str) -> Option<u64> {
    view.members
        .iter()
        .find(|m| display_name(slurm_conf, m.id, &m.name) == name)
        .or_else(|| {
            let id = name.parse::<u64>().ok()?;
            view.members.iter().find(|m| m.id == id)
        })
        .map(|m| m.id)
}

/// Whether `name` (or id) is one of the members that left the group.
fn departed(departed: &[(u64, String)], slurm_conf: &[String], name: &str) -> bool {
    departed.iter().any(|(id, recorded)| {
        display_name(slurm_conf, *id, recorded) == name || name.parse() == Ok(*id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raft::MemberView;

    fn member(id: u64, name: &str) -> MemberView {
        MemberView {
            id,
            name: name.into(),
            addr: format!("h{id}:6817"),
            voter: true,
            matched: None,
        }
    }

    #[test]
    fn members_are_found_by_recorded_name_slurm_conf_line_or_id() {
        let view = GroupView {
            members: vec![member(1, ""), member(2, "ctl2"), member(1005, "ctl4")],
            ..GroupView::default()
        };
        let conf = vec!["ctl1".to_string(), "ctl2".to_string(), "ctl3".to_string()];
        assert_eq!(resolve(&view, &conf, "ctl1"), Some(1));
        assert_eq!(resolve(&view, &conf, "ctl2"), Some(2));
        assert_eq!(resolve(&view, &conf, "ctl4"), Some(1005));
        assert_eq!(resolve(&view, &conf, "1005"), Some(1005));
        // ctl3 is in slurm.conf but not (any more) in the group.
        assert_eq!(resolve(&view, &conf, "ctl3"), None);
        assert_eq!(resolve(&view, &conf, "3"), None);
        assert_eq!(display_name(&conf, 1, ""), "ctl1");
        assert_eq!(display_name(&conf, 7, ""), "7");
    }

    #[test]
    fn departed_members_are_found_by_recorded_name_slurm_conf_line_or_id() {
        let conf = vec!["ctl1".to_string(), "ctl2".to_string()];
        let gone = [(1, String::new()), (1005, "ctl4".to_string())];
        assert!(departed(&gone, &conf, "ctl1"));
        assert!(departed(&gone, &conf, "ctl4"));
        assert!(departed(&gone, &conf, "1005"));
        assert!(!departed(&gone, &conf, "ctl2"));
        assert!(!departed(&gone, &conf, "ctl9"));
    }
}
