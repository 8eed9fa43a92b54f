//! `GET /nodes` and `GET /node/{name}`: the records sinfo and `scontrol show node` read, in v0.0.38's node
//! layout.

use spur_core::format::json::Json;
use spur_core::format::json_nodes;
use spur_core::wire::api::{ApiError, Query, QueryReply, SlurmErrno};

use super::auth::Caller;
use super::reply::{errno_entry, failed_listing, Reply};
use crate::client::ClientError;
use crate::config;

pub fn list(caller: &Caller, name: Option<&str>) -> Reply {
    let source = if name.is_some() {
        "slurm_load_node_single"
    } else {
        "slurm_load_node"
    };
    let (mut nodes, now) = match caller.client().and_then(|c| c.query(&Query::Nodes)) {
        Ok(QueryReply::Nodes { nodes, now }) => (nodes, now),
        Ok(_) => return unexpected("nodes", source),
        Err(e) => return failed_listing("nodes", errno_entry(&e)),
    };
    if let Some(name) = name {
        nodes.retain(|n| n.name == name);
        if nodes.is_empty() {
            let missing = ClientError::Api(ApiError::new(SlurmErrno::InvalidNodeName));
            return failed_listing("nodes", errno_entry(&missing));
        }
    }
    // The users who set the nodes' reasons, by name.
    let reason_users: Vec<(u32, u32)> = nodes
        .iter()
        .filter_map(|n| n.reason_uid.map(|uid| (uid, uid)))
        .collect();
    let ctx = config::format_context(now, reason_users.into_iter());
    let items = nodes.iter().map(|n| json_nodes::node(n, &ctx)).collect();
    Reply::document(Vec::new(), vec![("nodes", Json::Arr(items))])
}

/// The controller answered with another kind of reply than asked for.
pub fn unexpected(key: &str, source: &str) -> Reply {
    let error = ClientError::Protocol("reply kind".into());
    failed_listing(
        key,
        super::reply::error_entry(&error, "unexpected reply", source),
    )
}
