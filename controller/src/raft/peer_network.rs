//! Raft RPC between controllers over [`PeerTransport`]: the client side openraft drives, and the server side that
//! hands an incoming message to the local raft node.

use std::time::Duration;

use openraft::error::{
    InstallSnapshotError, NetworkError, RPCError, RaftError, RemoteError, Unreachable,
};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};
use openraft::Raft;
use serde::de::DeserializeOwned;
use serde::Serialize;

use spur_core::wire::pb;

use super::transport::{reply_doc, PeerError, PeerTransport};
use super::types::{ControllerNode, TypeConfig};
use super::AppStateMachine;

pub const KIND_VOTE: &str = "raft.vote";
pub const KIND_APPEND: &str = "raft.append";
pub const KIND_SNAPSHOT: &str = "raft.snapshot";

/// Creates a [`PeerClient`] per peer openraft replicates to.
pub struct PeerNetwork<A> {
    transport: PeerTransport,
    _app: std::marker::PhantomData<fn() -> A>,
}

impl<A> PeerNetwork<A> {
    pub fn new(transport: PeerTransport) -> Self {
        PeerNetwork {
            transport,
            _app: std::marker::PhantomData,
        }
    }
}

pub struct PeerClient {
    transport: PeerTransport,
    target: u64,
    addr: String,
}

impl<A: AppStateMachine> RaftNetworkFactory<TypeConfig<A>> for PeerNetwork<A> {
    type Network = PeerClient;

    async fn new_client(&mut self, target: u64, node: &ControllerNode) -> Self::Network {
        PeerClient {
            transport: self.transport.clone(),
            target,
            addr: node.addr.clone(),
        }
    }
}

impl PeerClient {
    async fn send<Req, Resp, E>(
        &self,
        kind: &str,
        rpc: &Req,
        option: &RPCOption,
    ) -> Result<Resp, RPCError<u64, ControllerNode, RaftError<u64, E>>>
    where
        Req: Serialize,
        Resp: DeserializeOwned,
        E: std::error::Error + DeserializeOwned,
    {
        let answer: Result<Result<Resp, RaftError<u64, E>>, PeerError> = self
            .transport
            .call(&self.addr, kind, rpc, option.hard_ttl())
            .await;
        match answer {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(remote)) => Err(RPCError::RemoteError(RemoteError::new(self.target, remote))),
            Err(e @ PeerError::Unreachable { .. }) => {
                Err(RPCError::Unreachable(Unreachable::new(&e)))
            }
            Err(e) => Err(RPCError::Network(NetworkError::new(&e))),
        }
    }
}

impl<A: AppStateMachine> RaftNetwork<TypeConfig<A>> for PeerClient {
    async fn append_entries(
        &mut self,
        rpc: AppendEntriesRequest<TypeConfig<A>>,
        option: RPCOption,
    ) -> Result<AppendEntriesResponse<u64>, RPCError<u64, ControllerNode, RaftError<u64>>> {
        self.send(KIND_APPEND, &rpc, &option).await
    }

    async fn install_snapshot(
        &mut self,
        rpc: InstallSnapshotRequest<TypeConfig<A>>,
        option: RPCOption,
    ) -> Result<
        InstallSnapshotResponse<u64>,
        RPCError<u64, ControllerNode, RaftError<u64, InstallSnapshotError>>,
    > {
        self.send(KIND_SNAPSHOT, &rpc, &option).await
    }

    async fn vote(
        &mut self,
        rpc: VoteRequest<u64>,
        option: RPCOption,
    ) -> Result<VoteResponse<u64>, RPCError<u64, ControllerNode, RaftError<u64>>> {
        self.send(KIND_VOTE, &rpc, &option).await
    }

    /// A peer that is down is retried soon: it may be the controller that is restarting after a failover.
    fn backoff(&self) -> openraft::network::Backoff {
        openraft::network::Backoff::new(std::iter::repeat(UNREACHABLE_RETRY))
    }
}

const UNREACHABLE_RETRY: Duration = Duration::from_millis(200);

/// Whether `kind` names a raft message (the rest of the peer calls belong to the controller).
pub fn is_raft_message(kind: &str) -> bool {
    matches!(
        kind,
        KIND_VOTE | KIND_APPEND | KIND_SNAPSHOT | super::membership::KIND_GROUP_VIEW
    )
}

/// Hands an incoming raft message to the local node and encodes its answer (a raft error travels as data).
pub async fn serve_raft_message<A: AppStateMachine>(
    raft: &Raft<TypeConfig<A>>,
    doc: &pb::Doc,
) -> Result<pb::ApiReply, PeerError> {
    fn decode<T: DeserializeOwned>(doc: &pb::Doc) -> Result<T, PeerError> {
        serde_json::from_slice(&doc.json).map_err(|e| PeerError::Malformed(e.to_string()))
    }
    match doc.kind.as_str() {
        KIND_VOTE => reply_doc(KIND_VOTE, &raft.vote(decode(doc)?).await),
        KIND_APPEND => reply_doc(KIND_APPEND, &raft.append_entries(decode(doc)?).await),
        KIND_SNAPSHOT => reply_doc(KIND_SNAPSHOT, &raft.install_snapshot(decode(doc)?).await),
        other => Err(PeerError::Malformed(format!(
            "unknown raft message {other}"
        ))),
    }
}
