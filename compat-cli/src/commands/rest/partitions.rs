//! `GET /partitions` and `GET /partition/{name}` in v0.0.38's partition layout.

use spur_core::format::json::Json;
use spur_core::format::json_partitions;
use spur_core::wire::api::{ApiError, Query, QueryReply, SlurmErrno};

use super::auth::Caller;
use super::nodes::unexpected;
use super::reply::{errno_entry, failed_listing, Reply};
use crate::client::ClientError;

const SOURCE: &str = "slurm_load_partitions";

pub fn list(caller: &Caller, name: Option<&str>) -> Reply {
    let (mut partitions, nodes) = match caller.client().and_then(|c| c.query(&Query::Partitions)) {
        Ok(QueryReply::Partitions {
            partitions, nodes, ..
        }) => (partitions, nodes),
        Ok(_) => return unexpected("partitions", SOURCE),
        Err(e) => return failed_listing("partitions", errno_entry(&e)),
    };
    if let Some(name) = name {
        partitions.retain(|p| p.name == name);
        if partitions.is_empty() {
            let missing = ClientError::Api(ApiError::new(SlurmErrno::InvalidPartitionName));
            return failed_listing("partitions", errno_entry(&missing));
        }
    }
    let items = partitions
        .iter()
        .map(|p| json_partitions::partition(p, &nodes))
        .collect();
    Reply::document(Vec::new(), vec![("partitions", Json::Arr(items))])
}
