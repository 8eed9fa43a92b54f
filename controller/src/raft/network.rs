//! Raft RPC transport. Only single-controller clusters exist so far, and a one-member cluster
//! never sends an RPC; every call here reports the peer as unreachable until multi-controller
//! replication gets a real transport.

use std::marker::PhantomData;

use openraft::error::{InstallSnapshotError, RPCError, RaftError, Unreachable};
use openraft::network::{RPCOption, RaftNetwork, RaftNetworkFactory};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};

use super::types::{ControllerNode, TypeConfig};
use super::AppStateMachine;

#[derive(Debug, thiserror::Error)]
#[error("raft peer {target}: replication between controllers is not available yet")]
pub struct PeerUnavailable {
    pub target: u64,
}

/// Creates [`NoPeer`] clients.
pub struct NoNetwork<A>(PhantomData<fn() -> A>);

impl<A> Default for NoNetwork<A> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

/// A client for a peer that cannot be reached.
pub struct NoPeer {
    target: u64,
}

impl NoPeer {
    fn unreachable<E: std::error::Error>(&self) -> RPCError<u64, ControllerNode, E> {
        RPCError::Unreachable(Unreachable::new(&PeerUnavailable {
            target: self.target,
        }))
    }
}

impl<A: AppStateMachine> RaftNetworkFactory<TypeConfig<A>> for NoNetwork<A> {
    type Network = NoPeer;

    async fn new_client(&mut self, target: u64, _node: &ControllerNode) -> Self::Network {
        NoPeer { target }
    }
}

impl<A: AppStateMachine> RaftNetwork<TypeConfig<A>> for NoPeer {
    async fn append_entries(
        &mut self,
        _rpc: AppendEntriesRequest<TypeConfig<A>>,
        _option: RPCOption,
    ) -> Result<AppendEntriesResponse<u64>, RPCError<u64, ControllerNode, RaftError<u64>>> {
        Err(self.unreachable())
    }

    async fn install_snapshot(
        &mut self,
        _rpc: InstallSnapshotRequest<TypeConfig<A>>,
        _option: RPCOption,
    ) -> Result<
        InstallSnapshotResponse<u64>,
        RPCError<u64, ControllerNode, RaftError<u64, InstallSnapshotError>>,
    > {
        Err(self.unreachable())
    }

    async fn vote(
        &mut self,
        _rpc: VoteRequest<u64>,
        _option: RPCOption,
    ) -> Result<VoteResponse<u64>, RPCError<u64, ControllerNode, RaftError<u64>>> {
        Err(self.unreachable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unreachable_error_names_the_peer() {
        let peer = NoPeer { target: 7 };
        let err: RPCError<u64, ControllerNode, RaftError<u64>> = peer.unreachable();
        assert!(matches!(err, RPCError::Unreachable(_)));
        let text = err.to_string();
        assert!(
            text.ends_with("raft peer 7: replication between controllers is not available yet"),
            "{text}"
        );
    }
}
