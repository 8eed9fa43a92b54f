//! Advance reservations in the state machine: create, update and delete (administrators only), the check a
//! `--reservation` submission passes, and forgetting reservations whose window has ended. Every check here reads
//! only the state and the command's `now`, so replicas and replays agree.

use spur_core::api::{ApiError, SlurmErrno};
use spur_core::job::{EpochSecs, JobSpec};
use spur_core::reservation::{ReservationFlags, ReservationRecord, ReservationRequest};

use super::jobs::holds_resources;
use super::{Applied, ApplyResult, ClusterState};

impl ClusterState {
    pub(super) fn create_reservation(
        &mut self,
        caller_uid: u32,
        request: ReservationRequest,
        now: EpochSecs,
    ) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        self.expire_reservations(now);
        let start = request.start.unwrap_or(now);
        let end = window_end(start, &request)?;
        let users = request.users.clone().unwrap_or_default();
        let accounts = request.accounts.clone().unwrap_or_default();
        if users.is_empty() && accounts.is_empty() {
            return Err(ApiError::new(SlurmErrno::UserIdMissing));
        }
        let mut flags = ReservationFlags::default();
        for flag in &request.flags_set {
            flags.set(*flag, true);
        }
        let (nodes, partition) = self.reservation_nodes(&request, &mut flags, start, end, None)?;
        let mut record = ReservationRecord {
            name: String::new(),
            start,
            end,
            cpus: nodes
                .iter()
                .filter_map(|n| self.nodes.get(n))
                .map(|n| n.cpus)
                .sum(),
            nodes,
            users,
            user_ids: request.user_ids.clone(),
            accounts,
            partition,
            flags,
        };
        self.check_room(&record, None)?;
        self.reservations_made = self.reservations_made.saturating_add(1);
        record.name = match request.name {
            Some(name) => name,
            // Slurm names an anonymous reservation after its first user (or account) and a counter.
            None => format!(
                "{}_{}",
                record
                    .users
                    .first()
                    .or(record.accounts.first())
                    .map_or("resv", String::as_str),
                self.reservations_made
            ),
        };
        if self.reservations.contains_key(&record.name) {
            return Err(ApiError::new(SlurmErrno::ReservationNameDup));
        }
        let name = record.name.clone();
        self.reservations.insert(name.clone(), record);
        Ok(Applied {
            reservation: Some(name),
            ..Default::default()
        })
    }

    pub(super) fn update_reservation(
        &mut self,
        caller_uid: u32,
        request: ReservationRequest,
        now: EpochSecs,
    ) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        self.expire_reservations(now);
        let name = request.name.clone().unwrap_or_default();
        let Some(old) = self.reservations.get(&name).cloned() else {
            return Err(ApiError::new(SlurmErrno::ReservationInvalid));
        };
        let mut record = old.clone();
        if let Some(start) = request.start {
            // A new start keeps the duration unless an end or duration comes with it.
            record.end = start + (old.end - old.start);
            record.start = start;
        }
        if request.end.is_some() || request.duration_min.is_some() {
            record.end = window_end(record.start, &request)?;
        }
        if let Some(users) = &request.users {
            record.users = users.clone();
            record.user_ids = request.user_ids.clone();
        }
        if let Some(accounts) = &request.accounts {
            record.accounts = accounts.clone();
        }
        for flag in &request.flags_set {
            record.flags.set(*flag, true);
        }
        for flag in &request.flags_clear {
            record.flags.set(*flag, false);
        }
        if record.users.is_empty() && record.accounts.is_empty() {
            return Err(ApiError::new(SlurmErrno::UserIdMissing));
        }
        if request.nodes.is_some() || request.node_count.is_some() || request.partition.is_some() {
            let mut flags = ReservationFlags {
                maint: record.flags.maint,
                ignore_jobs: record.flags.ignore_jobs,
                ..Default::default()
            };
            let request = ReservationRequest {
                partition: request.partition.clone().or(record.partition.clone()),
                ..request
            };
            let (nodes, partition) = self.reservation_nodes(
                &request,
                &mut flags,
                record.start,
                record.end,
                Some(&name),
            )?;
            record.cpus = nodes
                .iter()
                .filter_map(|n| self.nodes.get(n))
                .map(|n| n.cpus)
                .sum();
            record.nodes = nodes;
            record.partition = partition;
            record.flags = flags;
        }
        self.check_room(&record, Some(&name))?;
        self.reservations.insert(name, record);
        Ok(Applied::default())
    }

    pub(super) fn delete_reservation(
        &mut self,
        caller_uid: u32,
        name: &str,
        now: EpochSecs,
    ) -> ApplyResult {
        if !self.is_admin(caller_uid) {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        self.expire_reservations(now);
        if !self.reservations.contains_key(name) {
            return Err(ApiError::new(SlurmErrno::ReservationInvalid));
        }
        let in_use = self
            .jobs
            .values()
            .any(|j| !j.is_finished() && j.spec.reservation.as_deref() == Some(name));
        if in_use {
            return Err(ApiError::new(SlurmErrno::ReservationBusy));
        }
        self.reservations.remove(name);
        Ok(Applied::default())
    }

    /// Forgets reservations whose window has passed (Slurm deletes them as they end).
    pub(super) fn expire_reservations(&mut self, now: EpochSecs) {
        self.reservations.retain(|_, r| r.end > now);
    }

    /// A `--reservation` submission: the reservation must exist and admit the job's user or account.
    pub(super) fn check_job_reservation(&self, spec: &JobSpec) -> Result<(), ApiError> {
        let Some(name) = &spec.reservation else {
            return Ok(());
        };
        match self.reservations.get(name) {
            None => Err(ApiError::new(SlurmErrno::ReservationInvalid)),
            Some(r) if !r.admits_spec(spec) => Err(ApiError::new(SlurmErrno::ReservationAccess)),
            Some(_) => Ok(()),
        }
    }

    /// The nodes a create or update asks for, and the partition to record: `Nodes=ALL`, a hostlist, or
    /// `NodeCnt=` nodes of the partition that are free over the window.
    fn reservation_nodes(
        &self,
        request: &ReservationRequest,
        flags: &mut ReservationFlags,
        start: EpochSecs,
        end: EpochSecs,
        itself: Option<&str>,
    ) -> Result<(Vec<String>, Option<String>), ApiError> {
        let partition = match &request.partition {
            Some(name) => Some(
                self.partition(name)
                    .ok_or_else(|| ApiError::new(SlurmErrno::InvalidPartitionName))?,
            ),
            None => None,
        };
        match (&request.nodes, request.node_count) {
            (Some(expr), _) if expr.eq_ignore_ascii_case("ALL") => {
                flags.spec_nodes = true;
                flags.all_nodes = true;
                let nodes = match partition {
                    Some(p) => {
                        flags.part_nodes = true;
                        self.in_cluster_order(&p.nodes)
                    }
                    None => self.nodes.keys().cloned().collect(),
                };
                Ok((nodes, partition.map(|p| p.name.clone())))
            }
            (Some(expr), _) => {
                flags.spec_nodes = true;
                let names = spur_core::hostlist::expand(expr)
                    .map_err(|_| ApiError::new(SlurmErrno::InvalidNodeName))?;
                if names.iter().any(|n| !self.nodes.contains_key(n)) {
                    return Err(ApiError::new(SlurmErrno::InvalidNodeName));
                }
                Ok((
                    self.in_cluster_order(&names),
                    partition.map(|p| p.name.clone()),
                ))
            }
            (None, Some(count)) => {
                let part = partition
                    .or_else(|| self.default_partition())
                    .ok_or_else(|| ApiError::new(SlurmErrno::DefaultPartitionNotSet))?;
                let free: Vec<String> = part
                    .nodes
                    .iter()
                    .filter(|n| {
                        !self.reserved_elsewhere(n, start, end, itself)
                            && (flags.ignore_jobs || !self.busy_at(n, start, itself))
                    })
                    .take(count as usize)
                    .cloned()
                    .collect();
                if free.len() < count as usize || count == 0 {
                    return Err(ApiError::new(SlurmErrno::NodesBusy));
                }
                Ok((self.in_cluster_order(&free), Some(part.name.clone())))
            }
            (None, None) => Err(ApiError::new(SlurmErrno::InvalidNodeCount)),
        }
    }

    fn in_cluster_order(&self, names: &[String]) -> Vec<String> {
        self.nodes
            .keys()
            .filter(|n| names.contains(n))
            .cloned()
            .collect()
    }

    /// Refuses a reservation that shares a node and time with another, or (without `IGNORE_JOBS`) whose nodes a
    /// running job still holds at its start.
    fn check_room(&self, record: &ReservationRecord, itself: Option<&str>) -> Result<(), ApiError> {
        if record.end <= record.start {
            return Err(ApiError::new(SlurmErrno::InvalidTimeLimit));
        }
        if record
            .nodes
            .iter()
            .any(|n| self.reserved_elsewhere(n, record.start, record.end, itself))
        {
            return Err(ApiError::new(SlurmErrno::ReservationOverlap));
        }
        if !record.flags.ignore_jobs
            && record
                .nodes
                .iter()
                .any(|n| self.busy_at(n, record.start, itself))
        {
            return Err(ApiError::new(SlurmErrno::NodesBusy));
        }
        Ok(())
    }

    fn reserved_elsewhere(
        &self,
        node: &str,
        start: EpochSecs,
        end: EpochSecs,
        itself: Option<&str>,
    ) -> bool {
        self.reservations.values().any(|r| {
            Some(r.name.as_str()) != itself && r.holds_node(node) && r.overlaps(start, end)
        })
    }

    /// Whether a job outside the reservation still holds the node at `t`, judged by its time limit.
    fn busy_at(&self, node: &str, t: EpochSecs, itself: Option<&str>) -> bool {
        self.jobs.values().any(|j| {
            holds_resources(j)
                && (itself.is_none() || j.spec.reservation.as_deref() != itself)
                && j.alloc
                    .as_ref()
                    .is_some_and(|a| a.node_names.iter().any(|n| n == node))
                && ReservationRecord::job_holds_at(j, t)
        })
    }
}

/// The end of a window starting at `start`: `EndTime=` or `Duration=`.
fn window_end(start: EpochSecs, request: &ReservationRequest) -> Result<EpochSecs, ApiError> {
    match (request.end, request.duration_min) {
        (Some(end), _) => Ok(end),
        (None, Some(minutes)) => Ok(start.saturating_add(i64::from(minutes) * 60)),
        (None, None) => Err(ApiError::new(SlurmErrno::InvalidTimeLimit)),
    }
}
