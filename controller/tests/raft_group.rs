//! Three members of one Raft group in one process, talking over real gRPC on loopback through the peer transport
//! spurctld uses (without MUNGE sealing): election, replication to every member, a write refused by a follower,
//! the leader's loss, and the old leader catching up after it comes back; and a member that lost its store
//! rejoining from a snapshot without voting again in a term it may have voted in.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use openraft::Raft;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::{Request, Response, Status};

use common::{set, Kv};
use spur_controller::raft::{
    serve_raft_message, Bootstrap, ControllerNode, PeerError, PeerTransport, RaftConfig,
    ReplicatedState, ReplicationError, Sealer, TypeConfig,
};
use spur_core::wire::pb;

struct Peer {
    raft: Raft<TypeConfig<Kv>>,
}

#[tonic::async_trait]
impl pb::raft_peer_server::RaftPeer for Peer {
    async fn call(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        let doc = request
            .into_inner()
            .body
            .ok_or_else(|| Status::invalid_argument("empty"))?;
        serve_raft_message(&self.raft, &doc)
            .await
            .map(Response::new)
            .map_err(|e| Status::invalid_argument(e.to_string()))
    }
}

struct Member {
    state: Option<ReplicatedState<Kv>>,
    stop_server: Option<oneshot::Sender<()>>,
}

fn unsealed() -> Sealer {
    Arc::new(|message| Ok(tonic::Request::new(message)))
}

async fn start_member(
    dir: &std::path::Path,
    id: u64,
    members: &BTreeMap<u64, String>,
    listener: TcpListener,
) -> Member {
    let config = RaftConfig {
        advertise_addr: members[&id].clone(),
        ..RaftConfig::for_group()
    };
    let state = ReplicatedState::open_member(
        dir.join(format!("m{id}")),
        id,
        config,
        Kv::default(),
        members.clone(),
        PeerTransport::new(id, unsealed()),
    )
    .await
    .expect("open member");
    let service = pb::raft_peer_server::RaftPeerServer::new(Peer {
        raft: state.raft().clone(),
    });
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                async {
                    let _ = stopped.await;
                },
            )
            .await;
    });
    Member {
        state: Some(state),
        stop_server: Some(stop),
    }
}

async fn leader_of(members: &[Member], timeout: Duration) -> usize {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(i) = members
            .iter()
            .position(|m| m.state.as_ref().is_some_and(ReplicatedState::is_leader))
        {
            return i;
        }
        assert!(Instant::now() < deadline, "no leader within {timeout:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The member that leads once it has taken a write (`k0=0`, which the tests write anyway). Members that start
/// or lose their leader together may hold a second election right after the first, so the first leader seen is
/// not always the one that stays.
async fn settled_leader(members: &[Member]) -> usize {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let leader = leader_of(members, Duration::from_secs(20)).await;
        let state = members[leader].state.as_ref().expect("leader");
        match state.write(set("k0", 0)).await {
            Ok(_) => return leader,
            Err(ReplicationError::NotLeader { .. }) => {
                assert!(Instant::now() < deadline, "no leader kept its place");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("write: {e:?}"),
        }
    }
}

async fn wait_for_value(member: &Member, key: &str, value: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let state = member.state.as_ref().expect("running member");
    while state.read(|kv| kv.map.get(key).copied()) != Some(value) {
        assert!(Instant::now() < deadline, "{key}={value} never replicated");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_group_replicates_survives_its_leader_and_takes_it_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut listeners = Vec::new();
    let mut members_addrs = BTreeMap::new();
    for id in 1..=3u64 {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        members_addrs.insert(id, listener.local_addr().expect("addr").to_string());
        listeners.push(listener);
    }
    let mut members = Vec::new();
    for (id, listener) in (1..=3u64).zip(listeners) {
        members.push(start_member(dir.path(), id, &members_addrs, listener).await);
    }

    let leader = settled_leader(&members).await;
    let leading = members[leader].state.as_ref().expect("leader");
    for i in 0..50 {
        leading.write(set(format!("k{i}"), i)).await.expect("write");
    }
    for member in &members {
        wait_for_value(member, "k49", 49).await;
    }

    // A follower does not accept writes itself: spurctld forwards them to the leader.
    let follower = (leader + 1) % 3;
    let refused = members[follower]
        .state
        .as_ref()
        .expect("follower")
        .write(set("nope", 1))
        .await;
    assert!(
        matches!(
            refused,
            Err(ReplicationError::NotLeader { leader: Some(_) })
        ),
        "{refused:?}"
    );

    // The leader goes away; the other two elect one of themselves and keep every acknowledged write.
    let old = leader;
    if let Some(stop) = members[old].stop_server.take() {
        let _ = stop.send(());
    }
    if let Some(state) = members[old].state.take() {
        state.shutdown().await.expect("shutdown");
    }
    let leader = settled_leader(&members).await;
    assert_ne!(leader, old);
    let leading = members[leader].state.as_ref().expect("new leader");
    assert_eq!(leading.read(|kv| kv.map.len()), 50);
    leading
        .write(set("after", 1))
        .await
        .expect("write after failover");

    // The old leader restarts from its own log and catches up.
    let id = u64::try_from(old + 1).expect("id");
    let listener = TcpListener::bind(members_addrs[&id].as_str())
        .await
        .expect("rebind");
    members[old] = start_member(dir.path(), id, &members_addrs, listener).await;
    wait_for_value(&members[old], "after", 1).await;
    assert_eq!(
        members[old]
            .state
            .as_ref()
            .expect("rejoined")
            .read(|kv| kv.map.len()),
        51
    );

    for member in &mut members {
        if let Some(stop) = member.stop_server.take() {
            let _ = stop.send(());
        }
        if let Some(state) = member.state.take() {
            state.shutdown().await.expect("shutdown");
        }
    }
}

/// A member that answers through `serve_peer_message`, as spurctld does (group view, vote floor).
struct GuardedPeer {
    state: Arc<ReplicatedState<Kv>>,
}

#[tonic::async_trait]
impl pb::raft_peer_server::RaftPeer for GuardedPeer {
    async fn call(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        let doc = request
            .into_inner()
            .body
            .ok_or_else(|| Status::invalid_argument("empty"))?;
        self.state
            .serve_peer_message(&doc)
            .await
            .map(Response::new)
            .map_err(|e| Status::invalid_argument(e.to_string()))
    }
}

struct Guarded {
    state: Arc<ReplicatedState<Kv>>,
    stop: oneshot::Sender<()>,
    server: tokio::task::JoinHandle<()>,
}

async fn start_guarded(
    dir: &std::path::Path,
    id: u64,
    members: &BTreeMap<u64, String>,
    listener: TcpListener,
    bootstrap: Bootstrap,
) -> Guarded {
    let config = RaftConfig {
        advertise_addr: members[&id].clone(),
        // Snapshots (and the log's compaction) every few entries, so a member that lost everything gets one.
        snapshot_after_entries: 10,
        keep_entries_after_snapshot: 0,
        ..RaftConfig::for_group()
    };
    let state = Arc::new(
        ReplicatedState::open_group_member(
            dir.join(format!("m{id}")),
            id,
            config,
            Kv::default(),
            bootstrap,
            PeerTransport::new(id, unsealed()),
        )
        .await
        .expect("open member"),
    );
    let service = pb::raft_peer_server::RaftPeerServer::new(GuardedPeer {
        state: state.clone(),
    });
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let _ = tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                async {
                    let _ = stopped.await;
                },
            )
            .await;
    });
    Guarded {
        state,
        stop,
        server,
    }
}

impl Guarded {
    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.server.await;
        let state = Arc::try_unwrap(self.state).unwrap_or_else(|_| panic!("state still shared"));
        state.shutdown().await.expect("shutdown");
    }
}

/// The running member that leads, waiting for one.
async fn current_leader(members: &[Option<Guarded>]) -> usize {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(i) = members
            .iter()
            .position(|m| m.as_ref().is_some_and(|m| m.state.is_leader()))
        {
            return i;
        }
        assert!(Instant::now() < deadline, "no leader");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Writes `k{value}=value` through whichever member leads. Three members started together may hold a second
/// election right after the first, so the first leader seen does not always take the write.
async fn write_through_leader(members: &[Option<Guarded>], value: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let leader = current_leader(members).await;
        let state = &members[leader].as_ref().expect("leader").state;
        match state.write(set(format!("k{value}"), value)).await {
            Ok(_) => return,
            Err(ReplicationError::NotLeader { .. }) => {
                assert!(Instant::now() < deadline, "no leader took k{value}");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(e) => panic!("write k{value}: {e:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_member_that_lost_its_store_rejoins_from_a_snapshot_without_voting_twice() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut addrs = BTreeMap::new();
    let mut listeners = Vec::new();
    for id in 1..=3u64 {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        addrs.insert(id, listener.local_addr().expect("addr").to_string());
        listeners.push(listener);
    }
    let initial: BTreeMap<u64, ControllerNode> = addrs
        .iter()
        .map(|(id, a)| (*id, ControllerNode::named(format!("m{id}"), a)))
        .collect();
    let mut members = Vec::new();
    for (id, listener) in (1..=3u64).zip(listeners) {
        let bootstrap = Bootstrap::Initialise(initial.clone());
        members.push(Some(
            start_guarded(dir.path(), id, &addrs, listener, bootstrap).await,
        ));
    }
    for i in 0..60 {
        write_through_leader(&members, i).await;
    }
    let leader = current_leader(&members).await;
    let view = members[leader].as_ref().expect("leader").state.group_view();
    assert!(view.established && view.initialized, "{view:?}");
    assert_eq!(view.member_named("m2").map(|m| m.id), Some(2));

    // A follower loses its whole store while the others go on (and compact their logs).
    let lost = (leader + 1) % 3;
    let lost_id = u64::try_from(lost + 1).expect("id");
    members[lost].take().expect("follower").stop().await;
    for i in 60..80 {
        write_through_leader(&members, i).await;
    }
    std::fs::remove_dir_all(dir.path().join(format!("m{lost_id}"))).expect("wipe");

    let term = view.term;
    let listener = TcpListener::bind(addrs[&lost_id].as_str())
        .await
        .expect("rebind");
    let rejoined = start_guarded(
        dir.path(),
        lost_id,
        &addrs,
        listener,
        Bootstrap::Join {
            refuse_votes_through: term,
        },
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(20);
    while rejoined.state.read(|kv| kv.map.get("k79").copied()) != Some(79) {
        assert!(Instant::now() < deadline, "the state never arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        rejoined.state.read(|kv| kv.restored),
        "the state came from a snapshot"
    );
    assert_eq!(rejoined.state.read(|kv| kv.map.len()), 80);

    // It may have voted in `term` before losing its disk: a vote request for that term is refused.
    let request = openraft::raft::VoteRequest::new(
        openraft::Vote::new(term, 99),
        Some(openraft::LogId::new(
            openraft::CommittedLeaderId::new(term, 99),
            1_000,
        )),
    );
    let doc = pb::Doc {
        kind: "raft.vote".into(),
        version: 1,
        json: serde_json::to_vec(&request).expect("encode"),
        ..Default::default()
    };
    let refused = rejoined.state.serve_peer_message(&doc).await;
    assert!(
        matches!(refused, Err(PeerError::Refused { .. })),
        "{refused:?}"
    );

    rejoined.stop().await;
    for member in members.into_iter().flatten() {
        member.stop().await;
    }
}
