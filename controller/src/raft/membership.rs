//! Changing which controllers form the group while it serves: a new controller is added as a learner, given time
//! to catch up with the log, then made a voter; a controller is removed in one step. openraft commits each change
//! as a membership entry of the log (joint consensus), so every member and every later snapshot carries it.
//!
//! Also the group's view as one member sees it ([`GroupView`]), which a starting controller asks the others for to
//! learn whether the group already exists (and its own id, when it is being added).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use openraft::ChangeMembers;
use serde::{Deserialize, Serialize};

use spur_core::wire::pb;

use super::error::ReplicationError;
use super::handle::ReplicatedState;
use super::peer_network::{serve_raft_message, KIND_VOTE};
use super::transport::{reply_doc, PeerError, PeerTransport};
use super::types::ControllerNode;
use super::AppStateMachine;

/// The peer message asking a controller for its [`GroupView`].
pub const KIND_GROUP_VIEW: &str = "raft.group";

/// Ids of added controllers start here, above any `SlurmctldHost` position, and grow with the log, so an id is
/// never given twice (a removed controller's id is not reused, whatever state its old process kept).
const ADDED_IDS_FROM: u64 = 1000;

/// How often a pending change looks at the learner's progress.
const CATCH_UP_POLL: Duration = Duration::from_millis(100);

/// One member of the group.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberView {
    pub id: u64,
    /// Empty for members of a group created before names were recorded.
    #[serde(default)]
    pub name: String,
    pub addr: String,
    /// A voter counts towards majorities; a learner only receives the log.
    pub voter: bool,
    /// The last log index the leader knows this member holds (only on the leader).
    #[serde(default)]
    pub matched: Option<u64>,
}

/// The group as one controller sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupView {
    /// Whether this controller's store holds a membership (it was initialised or has been sent the log).
    pub initialized: bool,
    /// Whether the group has ever had a leader that committed (past its first start).
    pub established: bool,
    pub term: u64,
    pub leader: Option<u64>,
    pub members: Vec<MemberView>,
    #[serde(default)]
    pub last_log_index: Option<u64>,
}

impl GroupView {
    pub fn member_named(&self, name: &str) -> Option<&MemberView> {
        self.members.iter().find(|m| m.name == name)
    }
}

/// How many departed members [`Departed`] remembers.
const DEPARTED_KEPT: usize = 64;

/// Members that left the group while this process ran (their removal applied here), oldest first: a removal
/// retried after it went through (the removed leader stopped before it could answer, so the command asked another
/// controller) is recognised as done instead of refused as a name not in the group. In memory only, since a retry
/// comes within seconds.
#[derive(Debug, Default)]
pub(crate) struct Departed(std::sync::Mutex<std::collections::VecDeque<(u64, String)>>);

impl Departed {
    /// Notes the members of `before` that `after` drops. A joint configuration (the first of a change's two
    /// entries) already counts as dropping the members its last configuration leaves out: once it is committed
    /// the change always completes, and the new leader elected when the removed leader steps aside may hold the
    /// second entry without having applied it yet.
    pub(crate) fn note(
        &self,
        before: &openraft::Membership<u64, ControllerNode>,
        after: &openraft::Membership<u64, ControllerNode>,
    ) {
        let mut staying: BTreeSet<u64> = after.learner_ids().collect();
        staying.extend(after.get_joint_config().last().into_iter().flatten());
        let mut departed = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let leaving: BTreeMap<&u64, &ControllerNode> = before
            .nodes()
            .chain(after.nodes())
            .filter(|(id, _)| !staying.contains(id))
            .collect();
        for (id, node) in leaving {
            departed.retain(|(known, _)| known != id);
            departed.push_back((*id, node.name.clone()));
            if departed.len() > DEPARTED_KEPT {
                departed.pop_front();
            }
        }
    }

    fn members(&self) -> Vec<(u64, String)> {
        let departed = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        departed.iter().cloned().collect()
    }
}

impl<A: AppStateMachine> ReplicatedState<A> {
    /// Members that left the group while this controller ran, with the names they had (empty for members of a
    /// group created before names were recorded), oldest first.
    pub fn departed_members(&self) -> Vec<(u64, String)> {
        self.departed.members()
    }

    /// The group as this controller currently sees it.
    pub fn group_view(&self) -> GroupView {
        let metrics = self.raft().metrics();
        let metrics = metrics.borrow();
        let membership = metrics.membership_config.membership();
        let voters: BTreeSet<u64> = membership.voter_ids().collect();
        let members = membership
            .nodes()
            .map(|(id, node)| MemberView {
                id: *id,
                name: node.name.clone(),
                addr: node.addr.clone(),
                voter: voters.contains(id),
                matched: metrics
                    .replication
                    .as_ref()
                    .and_then(|r| r.get(id).cloned().flatten())
                    .map(|log_id| log_id.index),
            })
            .collect::<Vec<_>>();
        GroupView {
            initialized: !members.is_empty(),
            established: metrics.last_applied.is_some_and(|l| l.index > 0),
            term: metrics.current_term,
            leader: metrics.current_leader,
            members,
            last_log_index: metrics.last_log_index,
        }
    }

    /// Adds controller `name` at `addr` (its peer address, host:port) and returns its id. It joins as a learner
    /// first; once it holds the log up to where the leader's was when it joined (at most `catch_up`), it becomes
    /// a voter. Adding a name already present with the same address resumes an interrupted addition (a learner
    /// that had not caught up is promoted now). Only the leader changes membership.
    pub async fn add_member(
        &self,
        name: &str,
        addr: &str,
        catch_up: Duration,
    ) -> Result<u64, ReplicationError> {
        let _one_at_a_time = self.membership_lock.lock().await;
        self.ensure_leader()?;
        let view = self.group_view();
        let id = match view.member_named(name) {
            Some(m) if m.addr != addr => {
                return Err(refused(format!(
                    "controller {name} is already a member, at {}",
                    m.addr
                )))
            }
            Some(m) if m.voter => return Ok(m.id),
            Some(m) => m.id,
            None => {
                if let Some(m) = view.members.iter().find(|m| m.addr == addr) {
                    return Err(refused(format!(
                        "{addr} is already member {} (id {})",
                        display_name(m),
                        m.id
                    )));
                }
                let id = ADDED_IDS_FROM + view.last_log_index.unwrap_or(0) + 1;
                self.raft()
                    .add_learner(id, ControllerNode::named(name, addr), false)
                    .await?;
                tracing::info!(name, addr, id, "controller added as a learner");
                id
            }
        };
        let target = self.group_view().last_log_index.unwrap_or(0);
        let deadline = tokio::time::Instant::now() + catch_up;
        loop {
            let matched = self
                .group_view()
                .members
                .iter()
                .find(|m| m.id == id)
                .and_then(|m| m.matched);
            if matched.is_some_and(|m| m >= target) {
                break;
            }
            if tokio::time::Instant::now() >= deadline {
                return Err(refused(format!(
                    "controller {name} (id {id}) was added as a learner but did not catch up with the log within \
                     {catch_up:?} (held: {matched:?} of {target}); start it with `spurctld --join {name}={addr}` \
                     and add it again"
                )));
            }
            self.ensure_leader()?;
            tokio::time::sleep(CATCH_UP_POLL).await;
        }
        self.raft()
            .change_membership(ChangeMembers::AddVoterIds(BTreeSet::from([id])), false)
            .await?;
        tracing::info!(name, addr, id, "controller is now a voter");
        Ok(id)
    }

    /// Removes member `id` from the group (a voter or a learner). A group keeps at least one voter.
    pub async fn remove_member(&self, id: u64) -> Result<(), ReplicationError> {
        let _one_at_a_time = self.membership_lock.lock().await;
        self.ensure_leader()?;
        let view = self.group_view();
        let Some(member) = view.members.iter().find(|m| m.id == id) else {
            return Err(refused(format!("no controller with id {id} in the group")));
        };
        let change = if member.voter {
            if view.members.iter().filter(|m| m.voter).count() < 2 {
                return Err(refused(format!(
                    "controller {} is the group's last voter",
                    display_name(member)
                )));
            }
            ChangeMembers::RemoveVoters(BTreeSet::from([id]))
        } else {
            ChangeMembers::RemoveNodes(BTreeSet::from([id]))
        };
        self.raft().change_membership(change, false).await?;
        tracing::info!(id, "controller removed from the group");
        Ok(())
    }

    fn ensure_leader(&self) -> Result<(), ReplicationError> {
        if self.is_leader() {
            Ok(())
        } else {
            Err(ReplicationError::NotLeader {
                leader: self.leader().map(|(id, _)| id),
            })
        }
    }

    /// Answers a message from another controller: raft's own messages, and the group view. A vote request for a
    /// term this member may have voted in before it lost its disk (see `Bootstrap::Join`) is refused.
    pub async fn serve_peer_message(&self, doc: &pb::Doc) -> Result<pb::ApiReply, PeerError> {
        if doc.kind == KIND_GROUP_VIEW {
            return reply_doc(KIND_GROUP_VIEW, &self.group_view());
        }
        let floor = self.vote_floor();
        if doc.kind == KIND_VOTE && floor > 0 {
            let request: openraft::raft::VoteRequest<u64> = serde_json::from_slice(&doc.json)
                .map_err(|e| PeerError::Malformed(e.to_string()))?;
            if request.vote.leader_id.term <= floor {
                return Err(PeerError::Refused {
                    addr: String::new(),
                    message: format!(
                        "this controller rejoined with an empty store and votes only in terms after {floor}"
                    ),
                });
            }
        }
        serve_raft_message(self.raft(), doc).await
    }
}

fn refused(message: String) -> ReplicationError {
    ReplicationError::Membership(message)
}

fn display_name(m: &MemberView) -> String {
    if m.name.is_empty() {
        format!("id {}", m.id)
    } else {
        m.name.clone()
    }
}

/// Asks each controller in `addrs` (host:port) for its view of the group, each at most `timeout`; the answers of
/// those that answered.
pub async fn discover_group(
    transport: &PeerTransport,
    addrs: &[String],
    timeout: Duration,
) -> BTreeMap<String, GroupView> {
    let mut asks = tokio::task::JoinSet::new();
    for addr in addrs {
        let (transport, addr) = (transport.clone(), addr.clone());
        asks.spawn(async move {
            let view: Result<GroupView, PeerError> =
                transport.call(&addr, KIND_GROUP_VIEW, &(), timeout).await;
            (addr, view)
        });
    }
    let mut views = BTreeMap::new();
    while let Some(answer) = asks.join_next().await {
        match answer {
            Ok((addr, Ok(view))) => {
                views.insert(addr, view);
            }
            Ok((addr, Err(e))) => tracing::debug!("no group view from {addr}: {e}"),
            Err(e) => tracing::debug!("group view request failed: {e}"),
        }
    }
    views
}

#[cfg(test)]
mod departed_tests {
    use std::collections::{BTreeMap, BTreeSet};

    use openraft::Membership;

    use super::{Departed, DEPARTED_KEPT};
    use crate::raft::types::ControllerNode;

    fn group(ids: &[u64]) -> Membership<u64, ControllerNode> {
        let nodes: BTreeMap<u64, ControllerNode> = ids
            .iter()
            .map(|&id| {
                (
                    id,
                    ControllerNode::named(format!("ctl{id}"), format!("h{id}:6817")),
                )
            })
            .collect();
        Membership::new(vec![ids.iter().copied().collect::<BTreeSet<u64>>()], nodes)
    }

    #[test]
    fn members_that_leave_are_remembered_newest_last_and_only_so_many() {
        let departed = Departed::default();
        departed.note(&group(&[1, 2, 3]), &group(&[1, 2, 3, 1000]));
        assert!(departed.members().is_empty());
        // Both members leave with the joint configuration; its second entry changes nothing more.
        let all = group(&[1, 2, 3, 1000]);
        let nodes: BTreeMap<u64, ControllerNode> =
            all.nodes().map(|(id, n)| (*id, n.clone())).collect();
        let joint = Membership::new(
            vec![BTreeSet::from([1, 2, 3, 1000]), BTreeSet::from([2, 3])],
            nodes,
        );
        departed.note(&all, &joint);
        departed.note(&joint, &group(&[2, 3]));
        assert_eq!(
            departed.members(),
            [(1, "ctl1".to_string()), (1000, "ctl1000".to_string())]
        );
        // A member that returns and leaves again is listed once, as the newest.
        departed.note(&group(&[1, 2, 3]), &group(&[2, 3]));
        assert_eq!(departed.members().last(), Some(&(1, "ctl1".to_string())));
        assert_eq!(departed.members().len(), 2);

        for id in 2000..2000 + DEPARTED_KEPT as u64 {
            departed.note(&group(&[2, id]), &group(&[2]));
        }
        let kept = departed.members();
        assert_eq!(kept.len(), DEPARTED_KEPT);
        assert_eq!(kept[0].0, 2000);
    }
}
