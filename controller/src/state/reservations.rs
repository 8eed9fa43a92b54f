//! Advance reservations in the state machine: create, update and delete (administrators only), the check a
//! `--reservation` submission passes, and forgetting reservations whose window has ended. Every check here reads
//! only the state and the command's `now`, so replicas and replays agree.

use spur_core::model::job::{EpochSecs, JobSpec};
use spur_core::model::reservation::{ReservationFlags, ReservationRecord, ReservationRequest};
use spur_core::wire::api::{ApiError, SlurmErrno};

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
            return Err(not_admin());
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
            created: 0,
        };
        self.check_room(&record, None)?;
        let made = self.reservations_made.saturating_add(1);
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
                made
            ),
        };
        if self.reservations.contains_key(&record.name) {
            return Err(ApiError::new(SlurmErrno::ReservationNameDup));
        }
        self.reservations_made = made;
        record.created = made;
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
            return Err(not_admin());
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
            return Err(not_admin());
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
        match &spec.reservation {
            Some(name) => self.check_reservation_for(name, spec.user_id, spec.account.as_deref()),
            None => Ok(()),
        }
    }

    /// Whether a job of this user and account may ask for the reservation (at submission or on update).
    pub(super) fn check_reservation_for(
        &self,
        name: &str,
        user_id: u32,
        account: Option<&str>,
    ) -> Result<(), ApiError> {
        match self.reservations.get(name) {
            None => Err(ApiError::new(SlurmErrno::ReservationInvalid)),
            Some(r) if !r.admits(user_id, account) => {
                Err(ApiError::new(SlurmErrno::ReservationAccess))
            }
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
                // Slurm marks `ALL` of one partition as PART_NODES, of the whole cluster as ALL_NODES.
                flags.spec_nodes = true;
                let nodes = match partition {
                    Some(p) => {
                        flags.part_nodes = true;
                        self.in_cluster_order(&p.nodes)
                    }
                    None => {
                        flags.all_nodes = true;
                        self.nodes.keys().cloned().collect()
                    }
                };
                Ok((nodes, partition.map(|p| p.name.clone())))
            }
            (Some(expr), _) => {
                flags.spec_nodes = true;
                let names = spur_core::grammar::hostlist::expand(expr)
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

/// What slurmctld answers a user who is not an administrator.
fn not_admin() -> ApiError {
    ApiError::new(SlurmErrno::UserIdMissing)
}

/// The end of a window starting at `start`: `EndTime=` or `Duration=`.
fn window_end(start: EpochSecs, request: &ReservationRequest) -> Result<EpochSecs, ApiError> {
    match (request.end, request.duration_min) {
        (Some(end), _) => Ok(end),
        (None, Some(minutes)) => Ok(start.saturating_add(i64::from(minutes) * 60)),
        (None, None) => Err(ApiError::new(SlurmErrno::InvalidTimeLimit)),
    }
}

#[cfg(test)]
mod tests {
    use spur_core::model::job::EpochSecs;
    use spur_core::model::reservation::{ReservationFlag, ReservationRequest};
    use spur_core::wire::api::{ApiError, ControlRequest, SlurmErrno};

    use crate::scheduler::scenario::{job, node, partition, Scenario};
    use crate::state::{ClusterState, Command, Settings};

    const T0: EpochSecs = 2_000_000;

    fn cluster() -> Scenario {
        let names = vec!["n1".to_string(), "n2".to_string()];
        let defs = names.iter().map(|n| node(n, 4, 64_000, 0)).collect();
        Scenario::new(
            defs,
            vec![partition("batch", &names, true)],
            Settings::default(),
            T0,
        )
        .unwrap()
    }

    fn request(name: Option<&str>, nodes: Option<&str>, start: EpochSecs) -> ReservationRequest {
        ReservationRequest {
            name: name.map(str::to_string),
            start: Some(start),
            duration_min: Some(60),
            nodes: nodes.map(str::to_string),
            users: Some(vec!["alice".into()]),
            user_ids: vec![1000],
            ..Default::default()
        }
    }

    fn control(
        s: &mut Scenario,
        uid: u32,
        request: ControlRequest,
    ) -> Result<Option<String>, ApiError> {
        let now = s.now;
        let applied = s.apply(Command::Control {
            caller_uid: uid,
            request,
            now,
        })?;
        s.state.check_invariants().unwrap();
        Ok(applied.reservation)
    }

    fn create(s: &mut Scenario, request: ReservationRequest) -> Result<Option<String>, SlurmErrno> {
        control(s, 0, ControlRequest::CreateReservation { request }).map_err(|e| e.errno)
    }

    #[test]
    fn create_refuses_what_slurm_refuses() {
        let mut s = cluster();
        assert_eq!(
            create(&mut s, request(Some("r1"), Some("n1"), T0)),
            Ok(Some("r1".into()))
        );
        assert_eq!(
            create(&mut s, request(Some("r2"), Some("n[1-2]"), T0 + 1800)),
            Err(SlurmErrno::ReservationOverlap)
        );
        assert_eq!(
            create(&mut s, request(Some("r1"), Some("n2"), T0)),
            Err(SlurmErrno::ReservationNameDup)
        );
        assert_eq!(
            create(&mut s, request(None, Some("nosuch"), T0)),
            Err(SlurmErrno::InvalidNodeName)
        );
        let in_partition = ReservationRequest {
            partition: Some("nopart".into()),
            ..request(None, Some("ALL"), T0 + 7200)
        };
        assert_eq!(
            create(&mut s, in_partition),
            Err(SlurmErrno::InvalidPartitionName)
        );
        // Not an administrator: Slurm answers "Invalid user id".
        assert_eq!(
            control(
                &mut s,
                1000,
                ControlRequest::CreateReservation {
                    request: request(None, Some("n2"), T0)
                }
            )
            .unwrap_err()
            .errno,
            SlurmErrno::UserIdMissing
        );
        // Anonymous reservations are named after their first user and a counter of reservations made.
        let counted = ReservationRequest {
            node_count: Some(1),
            ..request(None, None, T0)
        };
        assert_eq!(create(&mut s, counted), Ok(Some("alice_2".into())));
        assert_eq!(s.state.reservations["alice_2"].nodes, vec!["n2"]);
        assert_eq!(
            s.state.reservations["alice_2"].partition.as_deref(),
            Some("batch")
        );
        let all = ReservationRequest {
            flags_set: vec![ReservationFlag::Maint],
            ..request(Some("all"), Some("ALL"), T0 + 7200)
        };
        assert_eq!(create(&mut s, all), Ok(Some("all".into())));
        assert_eq!(
            s.state.reservations["all"].flags.render(),
            "MAINT,SPEC_NODES,ALL_NODES"
        );
    }

    #[test]
    fn running_jobs_make_nodes_busy_unless_ignore_jobs() {
        let mut s = cluster();
        let a = s.submit(job(4, 1000, 0, Some(30))).unwrap();
        let b = s.submit(job(4, 1000, 0, Some(30))).unwrap();
        s.pass().unwrap();
        assert!(s.state.jobs[&a].alloc.is_some() && s.state.jobs[&b].alloc.is_some());
        assert_eq!(
            create(&mut s, request(Some("now"), Some("n1"), T0)),
            Err(SlurmErrno::NodesBusy)
        );
        let counted = ReservationRequest {
            node_count: Some(1),
            ..request(None, None, T0 + 600)
        };
        assert_eq!(create(&mut s, counted), Err(SlurmErrno::NodesBusy));
        // After the jobs' time limits the nodes are free.
        assert!(create(&mut s, request(Some("later"), Some("n1"), T0 + 1800)).is_ok());
        let ignoring = ReservationRequest {
            flags_set: vec![ReservationFlag::IgnoreJobs],
            ..request(Some("ignoring"), Some("n2"), T0)
        };
        assert!(create(&mut s, ignoring).is_ok());
    }

    #[test]
    fn update_and_delete() {
        let mut s = cluster();
        create(&mut s, request(Some("r"), Some("n1"), T0 + 3600)).unwrap();
        let update = |s: &mut Scenario, request| {
            control(s, 0, ControlRequest::UpdateReservation { request })
        };
        update(
            &mut s,
            ReservationRequest {
                name: Some("r".into()),
                duration_min: Some(20),
                ..Default::default()
            },
        )
        .unwrap();
        // A new start keeps the duration.
        update(
            &mut s,
            ReservationRequest {
                name: Some("r".into()),
                start: Some(T0 + 7200),
                flags_set: vec![ReservationFlag::Maint],
                ..Default::default()
            },
        )
        .unwrap();
        let r = &s.state.reservations["r"];
        assert_eq!(
            (r.start, r.end, r.flags.maint),
            (T0 + 7200, T0 + 7200 + 1200, true)
        );
        let too_many = ReservationRequest {
            name: Some("r".into()),
            node_count: Some(3),
            ..Default::default()
        };
        assert_eq!(
            update(&mut s, too_many).unwrap_err().errno,
            SlurmErrno::NodesBusy
        );
        let unknown = ReservationRequest {
            name: Some("nosuch".into()),
            duration_min: Some(5),
            ..Default::default()
        };
        assert_eq!(
            update(&mut s, unknown).unwrap_err().errno,
            SlurmErrno::ReservationInvalid
        );

        let delete = |s: &mut Scenario, name: &str| {
            control(
                s,
                0,
                ControlRequest::DeleteReservation { name: name.into() },
            )
            .map_err(|e| e.errno)
        };
        let waiting = s
            .submit(spur_core::model::job::JobSpec {
                reservation: Some("r".into()),
                ..job(1, 1000, 0, Some(10))
            })
            .unwrap();
        assert_eq!(delete(&mut s, "r"), Err(SlurmErrno::ReservationBusy));
        assert_eq!(
            delete(&mut s, "nosuch"),
            Err(SlurmErrno::ReservationInvalid)
        );
        let now = s.now;
        s.apply(Command::Control {
            caller_uid: 0,
            request: ControlRequest::Cancel {
                job: spur_core::wire::api::JobSelector {
                    job_id: waiting,
                    array_task: None,
                },
            },
            now,
        })
        .unwrap();
        assert_eq!(delete(&mut s, "r"), Ok(None));
        assert!(s.state.reservations.is_empty());
    }

    #[test]
    fn pending_jobs_move_into_and_out_of_reservations() {
        let mut s = cluster();
        create(&mut s, request(Some("r"), Some("n1"), T0 + 3600)).unwrap();
        let others = ReservationRequest {
            users: Some(vec!["bob".into()]),
            user_ids: vec![2000],
            ..request(Some("bobs"), Some("n2"), T0 + 3600)
        };
        create(&mut s, others).unwrap();
        let held = s
            .submit(spur_core::model::job::JobSpec {
                hold: true,
                ..job(1, 1000, 0, Some(10))
            })
            .unwrap();
        // The job's owner (uid 1000) asks; a refusal may come back whole or per job.
        let update = |s: &mut Scenario, name: &str| {
            let request = ControlRequest::UpdateJob {
                job: spur_core::wire::api::JobSelector {
                    job_id: held,
                    array_task: None,
                },
                update: spur_core::wire::api::JobUpdate {
                    reservation: Some(name.into()),
                    ..Default::default()
                },
            };
            let now = s.now;
            match s.apply(Command::Control {
                caller_uid: 1000,
                request,
                now,
            }) {
                Err(e) => Err(e.errno),
                Ok(applied) => match applied.failures.first() {
                    Some((_, e)) => Err(e.errno),
                    None => Ok(()),
                },
            }
        };
        assert_eq!(update(&mut s, "r"), Ok(()));
        assert_eq!(s.state.jobs[&held].spec.reservation.as_deref(), Some("r"));
        assert_eq!(
            update(&mut s, "nosuch"),
            Err(SlurmErrno::ReservationInvalid)
        );
        assert_eq!(update(&mut s, "bobs"), Err(SlurmErrno::ReservationAccess));
        assert_eq!(s.state.jobs[&held].spec.reservation.as_deref(), Some("r"));
        assert_eq!(update(&mut s, ""), Ok(()));
        assert_eq!(s.state.jobs[&held].spec.reservation, None);
    }

    /// Snapshots and log entries written before reservations existed still load.
    #[test]
    fn older_snapshots_and_schedule_entries_load() {
        let s = cluster();
        let mut json = serde_json::to_value(&s.state).unwrap();
        let object = json.as_object_mut().unwrap();
        object.remove("reservations");
        object.remove("reservations_made");
        let old: ClusterState = serde_json::from_value(json).unwrap();
        assert!(old.reservations.is_empty());
        let entry = serde_json::json!({"Schedule": {"starts": [], "reasons": [], "now": 5}});
        let command: Command = serde_json::from_value(entry).unwrap();
        assert!(
            matches!(command, Command::Schedule { reason_descs, .. } if reason_descs.is_empty())
        );
    }
}
