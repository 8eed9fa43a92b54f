//! Calls from the other controllers: raft messages for the local raft node, and writes a follower forwards to
//! this controller while it leads. Only root, SlurmUser or the controllers' own uid may make them.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use spur_core::wire::pb;

use super::auth::Authenticator;
use crate::controllers::{KIND_MEMBERSHIP, KIND_REMOVED};
use crate::raft::{is_raft_message, reply_doc, PEER_METHOD};
use crate::runtime::{
    AttachRequest, Controller, MeasureRequest, NodeOrders, KIND_ATTACH, KIND_FORWARD, KIND_MEASURE,
    KIND_NODE_ORDERS,
};
use crate::state::Command;
use spur_core::model::controllers::ControllerChange;

pub struct RaftPeerService {
    controller: Arc<Controller>,
    auth: Arc<Authenticator>,
}

impl RaftPeerService {
    pub fn new(controller: Arc<Controller>, auth: Arc<Authenticator>) -> Self {
        RaftPeerService { controller, auth }
    }
}

#[tonic::async_trait]
impl pb::raft_peer_server::RaftPeer for RaftPeerService {
    async fn call(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        // Opened from the headers by the service's `DaemonGate` (MUNGE only), bound to the message here.
        let identity = self
            .auth
            .bind_daemon(
                request.extensions(),
                PEER_METHOD,
                request.get_ref(),
                self.controller.now(),
                request.remote_addr(),
            )
            .map_err(|e| Status::unauthenticated(e.errno.text()))?;
        if !self.auth.may_act_as_agent(&identity) {
            tracing::warn!(
                uid = identity.uid,
                "controller call refused: only root or SlurmUser may act as a controller"
            );
            return Err(Status::permission_denied(
                spur_core::wire::api::SlurmErrno::AccessDenied.text(),
            ));
        }
        let doc = request
            .into_inner()
            .body
            .ok_or_else(|| Status::invalid_argument("empty controller call"))?;
        let reply = if is_raft_message(&doc.kind) {
            self.controller.state.serve_peer_message(&doc).await
        } else if doc.kind == KIND_REMOVED {
            let id: u64 = serde_json::from_slice(&doc.json)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            self.controller.removed_notice(id);
            reply_doc(KIND_REMOVED, &())
        } else if doc.kind == KIND_MEMBERSHIP {
            let change: ControllerChange = serde_json::from_slice(&doc.json)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            reply_doc(
                KIND_MEMBERSHIP,
                &self.controller.change_forwarded(change).await,
            )
        } else if doc.kind == KIND_MEASURE {
            let request: MeasureRequest = serde_json::from_slice(&doc.json)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            let usage = self
                .controller
                .measure_steps(request.job_id, request.uid, &request.plan)
                .await;
            reply_doc(KIND_MEASURE, &usage)
        } else if doc.kind == KIND_ATTACH {
            let request: AttachRequest = serde_json::from_slice(&doc.json)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            self.controller.deliver(request.into()).await;
            reply_doc(KIND_ATTACH, &())
        } else if doc.kind == KIND_NODE_ORDERS {
            let orders: NodeOrders = serde_json::from_slice(&doc.json)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            self.controller.deliver(orders).await;
            reply_doc(KIND_NODE_ORDERS, &())
        } else if doc.kind == KIND_FORWARD {
            let command: Command = serde_json::from_slice(&doc.json)
                .map_err(|e| Status::invalid_argument(e.to_string()))?;
            reply_doc(
                KIND_FORWARD,
                &self.controller.commit_forwarded(command).await,
            )
        } else {
            return Err(Status::invalid_argument(format!(
                "unknown controller call {}",
                doc.kind
            )));
        };
        reply
            .map(Response::new)
            .map_err(|e| Status::invalid_argument(e.to_string()))
    }
}
