//! Three members of one Raft group in one process, talking over real gRPC on loopback through the peer transport
//! spurctld uses (without MUNGE sealing): election, replication to every member, a write refused by a follower,
//! the leader's loss, and the old leader catching up after it comes back.

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
    serve_raft_message, PeerTransport, RaftConfig, ReplicatedState, ReplicationError, Sealer,
    TypeConfig,
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

    let leader = leader_of(&members, Duration::from_secs(20)).await;
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
    let leader = leader_of(&members, Duration::from_secs(20)).await;
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
