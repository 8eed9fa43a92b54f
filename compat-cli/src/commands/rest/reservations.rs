//! `GET /reservations` and `GET /reservation/{name}` in v0.0.38's reservation layout.

use spur_core::format::json::Json;
use spur_core::format::json_reservations;
use spur_core::wire::api::{ApiError, Query, QueryReply, SlurmErrno};

use super::auth::Caller;
use super::nodes::unexpected;
use super::reply::{errno_entry, failed_listing, Reply};
use crate::client::ClientError;

const SOURCE: &str = "slurm_load_reservations";

pub fn list(caller: &Caller, name: Option<&str>) -> Reply {
    let mut reservations = match caller.client().and_then(|c| c.query(&Query::Reservations)) {
        Ok(QueryReply::Reservations { reservations, .. }) => reservations,
        Ok(_) => return unexpected("reservations", SOURCE),
        Err(e) => return failed_listing("reservations", errno_entry(&e)),
    };
    if let Some(name) = name {
        reservations.retain(|r| r.name == name);
        if reservations.is_empty() {
            let missing = ClientError::Api(ApiError::new(SlurmErrno::ReservationInvalid));
            return failed_listing("reservations", errno_entry(&missing));
        }
    }
    let items = reservations
        .iter()
        .map(json_reservations::reservation)
        .collect();
    Reply::document(Vec::new(), vec![("reservations", Json::Arr(items))])
}
