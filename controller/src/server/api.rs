//! The client-facing calls: submit, query, control, ping.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use spur_core::auth::{jwt, params, rules, Identity};
use spur_core::model::controllers::{ControllerChange, ControllerList};
use spur_core::wire::agent_proto::ControllerToAgent;
use spur_core::wire::api::{
    ApiError, ControlReply, ControlRequest, JobListing, Query, QueryReply, SlurmErrno, SubmitReply,
    SubmitRequest,
};
use spur_core::wire::frames::{Credential, Method};
use spur_core::wire::listing::{self, JobListRef, ListedJob};
use spur_core::wire::listing_rows::{ListField, RowWriter};
use spur_core::wire::{self, from_doc, pb, to_doc, to_doc_for_reserving, DocKind};

use super::access;
use super::auth::Authenticator;
use super::{error_reply, reply};
use crate::runtime::Controller;
use crate::scheduler;
use crate::state::Command;

pub struct ApiService {
    controller: Arc<Controller>,
    auth: Arc<Authenticator>,
}

impl ApiService {
    pub fn new(controller: Arc<Controller>, auth: Arc<Authenticator>) -> Self {
        ApiService { controller, auth }
    }

    async fn submit(
        &self,
        identity: &Identity,
        request: pb::ApiRequest,
        alloc_node: Option<String>,
    ) -> Result<SubmitReply, ApiError> {
        let mut submit: SubmitRequest = from_doc(request.body.as_ref()).map_err(bad_request)?;
        for spec in std::iter::once(&submit.spec).chain(&submit.het_components) {
            check_node_lists(spec)?;
        }
        submit.spec.alloc_node = alloc_node;
        // The job runs as whoever the credential proves; the body's `Caller` and spec ids are not believed.
        submit.spec.user_id = identity.uid;
        submit.spec.group_id = identity.gid;
        // Associations are by user name: the controller's own lookup of the proven uid, not the client's word.
        let user_name = nix::unistd::User::from_uid(identity.uid.into())
            .ok()
            .flatten()
            .map(|u| u.name);
        // A uid without a name gets none: associations are then not found (refused where enforced), rather than
        // found under whatever name the client wrote.
        submit.spec.user_name = user_name.unwrap_or_default();
        lower_case_account(&mut submit.spec);
        for spec in &mut submit.het_components {
            lower_case_account(spec);
        }
        self.check_partition_access(identity, &submit.spec)?;
        for spec in &mut submit.het_components {
            spec.alloc_node = submit.spec.alloc_node.clone();
            spec.user_id = identity.uid;
            spec.group_id = identity.gid;
            spec.user_name.clone_from(&submit.spec.user_name);
        }
        for spec in &submit.het_components {
            self.check_partition_access(identity, spec)?;
        }
        if !submit.het_components.is_empty() {
            return self.submit_het(submit, &request.request_id).await;
        }
        if submit.test_only {
            return self.test_only(&submit);
        }
        let now = self.controller.now();
        // Refusals the commit itself makes are left to it, so that they use up a job id as in slurmctld.
        let unless_refused_at_commit = |checked: Result<_, ApiError>| match checked {
            Err(e) if e.errno != SlurmErrno::RequestedNodeConfigUnavailable => Err(e),
            _ => Ok(()),
        };
        if submit.immediate {
            // The commit itself decides: the job starts in the pass right after it, or is refused there and uses
            // up its id (salloc names it as revoked), as in slurmctld.
            submit.spec.immediate = true;
        } else if submit.spec.options.contains_key("immediate") {
            unless_refused_at_commit(
                self.controller.state.read(|state| {
                    crate::rules::validate_immediate(state, &submit.spec).map(|_| ())
                }),
            )?;
        }
        // A job nothing waits ahead of is placed now and started by the commit that creates it (only the leader
        // commits, so only it looks).
        let start = if self.controller.is_leader() {
            self.controller
                .state
                .read(|state| scheduler::placed_at_submission(state, &submit.spec, now))
        } else {
            None
        };
        // A request id makes the submission idempotent: a client retrying after a failover gets the same job.
        let request_id = (!request.request_id.is_empty()).then(|| request.request_id.clone());
        let command = Command::submission(submit.spec, now, request_id, start);
        let applied = self.controller.commit(command).await?;
        let job_id = applied
            .job_id
            .ok_or_else(|| ApiError::new(SlurmErrno::Error))?;
        Ok(SubmitReply {
            job_id,
            test_only: None,
        })
    }

    /// A heterogeneous job: all components in one command, so they get consecutive ids or nothing is queued.
    /// Spur has no `--test-only` or `--immediate` of a whole one yet; those are refused rather than applied to
    /// part of the job.
    async fn submit_het(
        &self,
        submit: SubmitRequest,
        request_id: &str,
    ) -> Result<SubmitReply, ApiError> {
        if submit.test_only || submit.immediate {
            return Err(ApiError::with_detail(
                SlurmErrno::NotSupported,
                "--test-only and --immediate of heterogeneous jobs are not supported by Spur yet",
            ));
        }
        let now = self.controller.now();
        let mut specs = Vec::with_capacity(submit.het_components.len() + 1);
        specs.push(submit.spec);
        specs.extend(submit.het_components);
        let command = Command::SubmitHet {
            request_id: (!request_id.is_empty()).then(|| request_id.to_string()),
            specs,
            now,
        };
        let applied = self.controller.commit(command).await?;
        let job_id = applied
            .job_id
            .ok_or_else(|| ApiError::new(SlurmErrno::Error))?;
        Ok(SubmitReply {
            job_id,
            test_only: None,
        })
    }

    /// RootOnly and AllowGroups of the partition the job would go to; a partition that does not resolve is
    /// left to the state machine, which reports it as slurmctld does.
    fn check_partition_access(
        &self,
        identity: &Identity,
        spec: &spur_core::model::job::JobSpec,
    ) -> Result<(), ApiError> {
        let part = self.controller.state.read(|state| {
            state
                .resolve_partition(spec)
                .ok()
                .and_then(|name| state.partition(&name).cloned())
        });
        match part {
            Some(part) => {
                access::check_partition(&part, identity.uid, spec.user_id, self.auth.slurm_user_uid)
                    .map_err(access::submit_error)
            }
            None => Ok(()),
        }
    }

    /// `scontrol update JobId=... Partition=`: the new partition must take the job as a submission would. Only
    /// checked for a pending job its caller may change; every other case is the state machine's to answer.
    fn check_partition_move(
        &self,
        identity: &Identity,
        control: &ControlRequest,
    ) -> Result<(), ApiError> {
        let ControlRequest::UpdateJob { job, update } = control else {
            return Ok(());
        };
        let Some(partition) = &update.partition else {
            return Ok(());
        };
        let target = self.controller.state.read(|state| {
            let part = state.partition(partition).cloned()?;
            let owner = state
                .jobs
                .get(&job.job_id)
                .filter(|j| j.state == spur_core::model::states::JobBaseState::Pending)
                .map(|j| j.spec.user_id)?;
            Some((part, owner))
        });
        let Some((part, owner)) = target else {
            return Ok(());
        };
        if owner != identity.uid && !self.auth.is_privileged(identity.uid) {
            return Ok(());
        }
        access::check_partition(&part, identity.uid, owner, self.auth.slurm_user_uid)
            .map_err(|_| ApiError::new(SlurmErrno::RequestedPartConfigUnavailable))
    }

    /// `--test-only`: where and when the job would start now, without submitting it.
    fn test_only(&self, submit: &SubmitRequest) -> Result<SubmitReply, ApiError> {
        let now = self.controller.now();
        self.controller.state.read(|state| {
            let job_id = state.next_job_id;
            let plan = crate::rules::trial_placement(state, &submit.spec, now)?;
            Ok(SubmitReply {
                job_id,
                test_only: Some(plan),
            })
        })
    }

    /// Answers a query as a document: listings packed for callers built from the same model, the rest as JSON.
    async fn query_doc(
        &self,
        identity: &Identity,
        request: pb::ApiRequest,
    ) -> Result<pb::Doc, ApiError> {
        let query: Query = from_doc(request.body.as_ref()).map_err(bad_request)?;
        if let Query::StepUsage { job_id, pick } = query {
            let reply = self.step_usage(identity, job_id, pick).await?;
            return to_doc(&reply)
                .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()));
        }
        if let Query::AttachStep {
            job_id,
            step_id,
            addr,
            key,
        } = query
        {
            let reply = self
                .attach_step(identity, job_id, step_id, addr, key)
                .await?;
            return to_doc(&reply)
                .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()));
        }
        if let Query::Bcast {
            job_id,
            step_id,
            addr,
            key,
        } = query
        {
            let reply = self.bcast(identity, job_id, step_id, addr, key).await?;
            return to_doc(&reply)
                .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()));
        }
        if let Query::JobListing(listing) = &query {
            return self.job_listing(identity, listing, &request.accept_packed_schema);
        }
        let reply = self.query(identity, query)?;
        to_doc(&reply).map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()))
    }

    /// Encodes the listing while reading the state, so records are borrowed rather than cloned; only jobs whose
    /// dependency text must be evaluated are copied.
    fn job_listing(
        &self,
        identity: &Identity,
        listing: &JobListing,
        accept_packed: &str,
    ) -> Result<pb::Doc, ApiError> {
        let now = self.controller.now();
        if let Some(fields) = rows_asked(listing, accept_packed) {
            return self.job_rows(identity, listing, &fields, now);
        }
        self.controller.state.read(|state| {
            let jobs = self.listed_jobs(state, identity, listing, now);
            let reserve = jobs.len() * listing::PACKED_JOB_BYTES_HINT;
            let list = JobListRef { jobs, now };
            let encoded = if listing.whole_records {
                to_doc_for_reserving(&list, accept_packed, reserve)
            } else {
                listing::slim(|| to_doc_for_reserving(&list, accept_packed, reserve))
            };
            encoded.map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()))
        })
    }

    /// The jobs `listing` selects that `identity` may see, in id order: borrowed from the state, or copied where
    /// the dependency's state is filled in.
    fn listed_jobs<'s>(
        &self,
        state: &'s crate::state::ClusterState,
        identity: &Identity,
        listing: &JobListing,
        now: i64,
    ) -> Vec<ListedJob<'s>> {
        let jobs: Box<dyn Iterator<Item = &spur_core::model::job::JobRecord>> = if listing.live_only
        {
            Box::new(state.jobs.live())
        } else {
            Box::new(state.jobs.values())
        };
        let mut waiting_tasks = false;
        let mut listed: Vec<ListedJob<'s>> = jobs
            .filter(|job| listing.selects(job) && self.may_see(state, identity, job.spec.user_id))
            .map(|job| {
                // A task that has not started is shown under its array's id, as slurmctld's array record.
                let waiting = job.is_unstarted_array_task();
                waiting_tasks |= waiting;
                match job.spec.dependency.as_deref() {
                    None if waiting => ListedJob::Shown(job, job.shown_job_id()),
                    None => ListedJob::Borrowed(job),
                    Some(dep) => {
                        let mut job = Box::new(job.clone());
                        job.dependency_status =
                            Some(crate::rules::describe_dependency(state, &job, dep, now));
                        job.job_id = job.shown_job_id();
                        ListedJob::Owned(job)
                    }
                }
            })
            .collect();
        // Tasks waiting to start are keyed after every job: back to their array's place in id order, which
        // listings keep (squeue prints jobs without a start time in reverse of it).
        if waiting_tasks {
            listed.sort_by_key(ListedJob::listed_id);
        }
        listed
    }

    /// A listing as rows of `fields`, written while reading the state.
    fn job_rows(
        &self,
        identity: &Identity,
        listing: &JobListing,
        fields: &[ListField],
        now: i64,
    ) -> Result<pb::Doc, ApiError> {
        let bytes = self.controller.state.read(|state| {
            let jobs = self.listed_jobs(state, identity, listing, now);
            let mut rows = RowWriter::new(fields, jobs.len());
            for job in &jobs {
                job.encode(|record| rows.push(record))?;
            }
            rows.finish(now)
        });
        bytes
            .map(wire::rows_doc)
            .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()))
    }

    /// sstat: the job's owner (or an administrator) asks the leader, which has the agents' sessions.
    async fn step_usage(
        &self,
        identity: &Identity,
        job_id: u32,
        pick: spur_core::model::step_usage::StepPick,
    ) -> Result<QueryReply, ApiError> {
        let (uid, plan) = self.controller.state.read(|state| {
            let job = state
                .jobs
                .get(&job_id)
                .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
            if job.spec.user_id != identity.uid && !state.is_admin(identity.uid) {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            Ok((
                job.spec.user_id,
                spur_core::model::step_usage::plan(job, pick),
            ))
        })?;
        let steps = self
            .controller
            .measure_steps_anywhere(job_id, uid, plan)
            .await
            .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e))?;
        Ok(QueryReply::StepUsage { steps })
    }

    /// sattach: the job's owner (or an administrator) has the nodes of a running step connect to it.
    async fn attach_step(
        &self,
        identity: &Identity,
        job_id: u32,
        step_id: u32,
        addr: String,
        key: String,
    ) -> Result<QueryReply, ApiError> {
        let (nodes, uid) = self.controller.state.read(|state| {
            let job = state
                .jobs
                .get(&job_id)
                .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
            if job.spec.user_id != identity.uid && !state.is_admin(identity.uid) {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            if job.state != spur_core::model::states::JobBaseState::Running || job.completing {
                return Err(ApiError::new(SlurmErrno::AlreadyDone));
            }
            let step = job
                .steps
                .iter()
                .find(|s| s.step_id == step_id && s.is_running())
                .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
            let nodes = spur_core::grammar::hostlist::expand(&step.node_list).unwrap_or_default();
            Ok((nodes, job.spec.user_id))
        })?;
        let orders = crate::runtime::NodeOrders {
            orders: nodes
                .iter()
                .enumerate()
                .map(|(index, node)| {
                    let attach = spur_core::model::step_launch::StepAttach {
                        job_id,
                        step_id,
                        node_index: u32::try_from(index).unwrap_or(u32::MAX),
                        uid,
                        addr: addr.clone(),
                        key: key.clone(),
                    };
                    (
                        node.clone(),
                        ControllerToAgent::AttachStep(Box::new(attach)),
                    )
                })
                .collect(),
        };
        self.controller
            .deliver_anywhere(orders)
            .await
            .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e))?;
        Ok(QueryReply::StepAttach { nodes })
    }

    /// `sbcast`: every node of the running job (or of its running step `step_id`) is asked to fetch the file
    /// from sbcast and write it as the job's owner. The owner or an administrator only; a job that is not
    /// running is refused as slurmctld refuses an sbcast credential for it.
    async fn bcast(
        &self,
        identity: &Identity,
        job_id: u32,
        step_id: Option<u32>,
        addr: String,
        key: String,
    ) -> Result<QueryReply, ApiError> {
        let (nodes, uid, gid) = self.controller.state.read(|state| {
            let job = state
                .jobs
                .get(&job_id)
                .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?;
            // slurmctld answers another user's sbcast credential request with ESLURM_USER_ID_MISSING.
            if job.spec.user_id != identity.uid && !state.is_admin(identity.uid) {
                return Err(ApiError::new(SlurmErrno::UserIdMissing));
            }
            if job.state == spur_core::model::states::JobBaseState::Pending {
                return Err(ApiError::new(SlurmErrno::JobPending));
            }
            if job.state != spur_core::model::states::JobBaseState::Running || job.completing {
                return Err(ApiError::new(SlurmErrno::AlreadyDone));
            }
            let nodes = match step_id {
                Some(step_id) => job
                    .steps
                    .iter()
                    .find(|s| s.step_id == step_id && s.is_running())
                    .map(|s| spur_core::grammar::hostlist::expand(&s.node_list).unwrap_or_default())
                    .ok_or_else(|| ApiError::new(SlurmErrno::InvalidJobId))?,
                None => job
                    .alloc
                    .as_ref()
                    .map(|a| a.node_names.clone())
                    .unwrap_or_default(),
            };
            Ok((nodes, job.spec.user_id, job.spec.group_id))
        })?;
        let orders = crate::runtime::NodeOrders {
            orders: nodes
                .iter()
                .enumerate()
                .map(|(index, node)| {
                    let order = spur_core::model::step_launch::FileBcastOrder {
                        job_id,
                        node_index: u32::try_from(index).unwrap_or(u32::MAX),
                        uid,
                        gid,
                        addr: addr.clone(),
                        key: key.clone(),
                    };
                    (node.clone(), ControllerToAgent::FileBcast(Box::new(order)))
                })
                .collect(),
        };
        self.controller
            .deliver_anywhere(orders)
            .await
            .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e))?;
        Ok(QueryReply::Bcast { nodes })
    }

    fn query(&self, identity: &Identity, query: Query) -> Result<QueryReply, ApiError> {
        let now = self.controller.now();
        if let Query::Token {
            username,
            lifespan_secs,
        } = query
        {
            return self.token(identity, username, lifespan_secs, now);
        }
        if let Query::Accounting {
            job_ids,
            user_ids,
            select,
        } = query
        {
            return Ok(self.accounting(identity, job_ids, user_ids, select, now));
        }
        let reply = self.controller.state.read(|state| match query {
            Query::Jobs => QueryReply::Jobs {
                jobs: state
                    .jobs
                    .values()
                    .filter(|job| self.may_see(state, identity, job.spec.user_id))
                    .map(|job| {
                        let mut job = job.clone();
                        job.dependency_status =
                            job.spec.dependency.as_deref().map(|dep| {
                                crate::rules::describe_dependency(state, &job, dep, now)
                            });
                        job
                    })
                    .collect(),
                now,
            },
            Query::Nodes => QueryReply::Nodes {
                nodes: listed_nodes(state, now),
                now,
            },
            Query::Partitions => QueryReply::Partitions {
                partitions: state.partitions.clone(),
                nodes: listed_nodes(state, now),
                now,
            },
            Query::Reservations => {
                let mut reservations: Vec<_> = state
                    .reservations
                    .values()
                    .filter(|r| r.end > now)
                    .cloned()
                    .collect();
                // In the order they were made, as slurmctld lists them.
                reservations.sort_by_key(|r| r.created);
                QueryReply::Reservations { reservations, now }
            }
            Query::Licenses => {
                let used = state.licenses_in_use();
                QueryReply::Licenses {
                    licenses: state
                        .settings
                        .licenses
                        .iter()
                        .map(|(name, total)| spur_core::model::records::LicenseRecord {
                            name: name.clone(),
                            total: *total,
                            used: used.get(name).copied().unwrap_or(0),
                        })
                        .collect(),
                }
            }
            Query::AcctDb => QueryReply::AcctDb {
                db: state.acct.clone(),
            },
            Query::Shares => QueryReply::Shares {
                db: state.acct.clone(),
                usage: state.usage.clone(),
                fair_tree: state.settings.fairshare.fair_tree,
                run_mins: state.tres_run_mins(now),
            },
            // Answered by `accounting`, which reads the history store outside the state's lock.
            Query::Accounting { .. } => QueryReply::Accounting {
                records: Vec::new(),
                cluster: state.settings.cluster_name.clone(),
                now,
            },
            Query::JobRecordEdit { request } => QueryReply::JobRecordEdit {
                result: state.job_edit_targets(identity.uid, &request, now),
            },
            Query::Topology => QueryReply::Topology {
                switches: state.settings.switch_tree.switches.clone(),
            },
            Query::Config => QueryReply::Config {
                config: state.config.clone(),
                now,
            },
            Query::PriorityFactors => QueryReply::PriorityFactors {
                jobs: state
                    .settings
                    .priority
                    .as_ref()
                    .map(|weights| crate::rules::priority::factor_rows(state, weights, now))
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|row| self.may_see(state, identity, row.user_id))
                    .collect(),
                weights: state.settings.priority.clone(),
                now,
            },
            // Answered above, before the state is read; a token is never made from state.
            Query::Token { .. } => QueryReply::Token {
                token: String::new(),
            },
            // Answered by `step_usage`, which waits for the nodes.
            Query::StepUsage { .. } => QueryReply::StepUsage { steps: Vec::new() },
            // Answered by `attach_step`, which reaches the nodes.
            Query::AttachStep { .. } => QueryReply::StepAttach { nodes: Vec::new() },
            // Answered by `bcast`, which reaches the nodes.
            Query::Bcast { .. } => QueryReply::Bcast { nodes: Vec::new() },
            // Everyone sees every waiting trigger, as slurmctld answers REQUEST_TRIGGER_GET.
            Query::Triggers => QueryReply::Triggers {
                triggers: state.listed_triggers(),
            },
            // Answered by `job_listing` as a document of its own.
            Query::JobListing(_) => QueryReply::Jobs {
                jobs: Vec::new(),
                now,
            },
        });
        Ok(match reply {
            QueryReply::Nodes { nodes, now } => QueryReply::Nodes {
                nodes: self.controller.nodes_with_telemetry(nodes),
                now,
            },
            QueryReply::Partitions {
                partitions,
                nodes,
                now,
            } => QueryReply::Partitions {
                partitions,
                nodes: self.controller.nodes_with_telemetry(nodes),
                now,
            },
            other => other,
        })
    }

    /// `scontrol token`: an HS256 token for the caller, or (root and SlurmUser only) for `username`.
    fn token(
        &self,
        identity: &Identity,
        username: Option<String>,
        lifespan_secs: Option<u32>,
        now: i64,
    ) -> Result<QueryReply, ApiError> {
        let own_name = nix::unistd::User::from_uid(identity.uid.into())
            .ok()
            .flatten()
            .map(|u| u.name);
        if !rules::may_issue_token(
            identity.uid,
            own_name.as_deref(),
            username.as_deref(),
            self.auth.slurm_user_uid,
        ) {
            tracing::warn!(
                uid = identity.uid,
                ?username,
                "token for another user refused"
            );
            return Err(ApiError::new(SlurmErrno::UserIdMissing));
        }
        // Checked after the caller's right to the token, as slurmctld does; it then answers with a message type
        // libslurm does not expect, so scontrol prints only "Error fetching token".
        let key = self.auth.verifier().jwt_key().ok_or_else(|| {
            ApiError::with_detail(SlurmErrno::UnexpectedMessage, "auth/jwt is not configured")
        })?;
        let sun = username
            .or(own_name)
            .ok_or_else(|| ApiError::new(SlurmErrno::UserIdMissing))?;
        let lifespan = lifespan_secs
            .filter(|l| *l > 0)
            .unwrap_or(params::DEFAULT_TOKEN_LIFESPAN_SECS);
        let claims = jwt::Claims {
            exp: now.saturating_add(i64::from(lifespan)),
            iat: now,
            sun,
        };
        let token = jwt::encode(&claims, key)
            .map_err(|e| ApiError::with_detail(SlurmErrno::Error, e.to_string()))?;
        Ok(QueryReply::Token { token })
    }

    async fn control(
        &self,
        identity: &Identity,
        request: pb::ApiRequest,
    ) -> Result<ControlReply, ApiError> {
        let mut control: ControlRequest = from_doc(request.body.as_ref()).map_err(bad_request)?;
        if control == ControlRequest::Reconfigure {
            return self.reconfigure(identity).await;
        }
        self.check_partition_move(identity, &control)?;
        if let ControlRequest::SetTrigger {
            trigger,
            group_id,
            executable,
        } = &mut control
        {
            self.check_trigger_setter(identity)?;
            // The owner's group and the program's check come from the controller, never from the request.
            *group_id = identity.gid;
            *executable = crate::runtime::triggers::executable_by(
                &trigger.program,
                identity.uid,
                identity.gid,
            );
        }
        // An import is large: a user who may not make it does not get it into the log (apply refuses it too).
        if let ControlRequest::ImportJobs { records } = &mut control {
            if !self.controller.state.read(|s| s.is_admin(identity.uid)) {
                return Err(ApiError::new(SlurmErrno::AccessDenied));
            }
            // What this controller's store already holds is dropped here; apply decides again from the
            // replicated state alone (state/import_jobs.rs).
            let now = self.controller.now();
            let batch = std::mem::take(records);
            *records = self
                .controller
                .state
                .read(|s| s.import_selection(batch, now, true))?;
        }
        if let ControlRequest::CreateReservation { request }
        | ControlRequest::UpdateReservation { request } = &mut control
        {
            access::resolve_reservation_users(request)?;
        }
        // A creation that succeeds without spare node slots added nothing; slurmctld says so in its log.
        let created_nodes = match &control {
            ControlRequest::CreateNode { definition } => Some(created_node_names(definition)),
            _ => None,
        };
        let caller_uid = identity.uid;
        let now = self.controller.now();
        // A request id makes the request idempotent: a client retrying after a failover gets the first answer,
        // and its effects happen once.
        let command = if request.request_id.is_empty() {
            Command::Control {
                caller_uid,
                request: control,
                now,
            }
        } else {
            Command::ControlOnce {
                request_id: request.request_id.clone(),
                caller_uid,
                request: control,
                now,
            }
        };
        let applied = self.controller.commit(command).await?;
        if let Some(names) = created_nodes {
            for name in names {
                tracing::error!("Unable to add node '{name}', node table is full");
            }
        }
        Ok(ControlReply {
            failures: applied.failures,
            step_id: applied.step_id,
            reservation: applied.reservation,
            acct: applied.acct,
            edited_jobs: applied.edited_jobs,
            resv_ports: applied.resv_ports,
        })
    }
}

impl ApiService {
    /// Who may set triggers, as slurmctld decides: SlurmUser and root, or anyone with
    /// `SlurmctldParameters=allow_user_triggers`; and with a SlurmUser other than root, nobody but SlurmUser,
    /// since only a root controller can run a user's program as that user.
    fn check_trigger_setter(&self, identity: &Identity) -> Result<(), ApiError> {
        let slurm_user = self.auth.slurm_user_uid;
        let privileged = identity.uid == 0 || identity.uid == slurm_user;
        let allow_users = self.controller.state.read(|s| {
            s.config.entries.iter().any(|(k, v)| {
                k.eq_ignore_ascii_case("SlurmctldParameters")
                    && v.split(',')
                        .any(|p| p.trim().eq_ignore_ascii_case("allow_user_triggers"))
            })
        });
        if !(privileged || allow_users) || (slurm_user != 0 && identity.uid != slurm_user) {
            tracing::error!(
                "Security violation, REQUEST_TRIGGER_SET RPC from uid={}",
                identity.uid
            );
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        Ok(())
    }

    /// `scontrol reconfigure`: slurm.conf (with gres.conf and topology.conf beside it) read again and applied
    /// through the log as at start, so every replica takes the same configuration and node and job state
    /// survive. Administrators only, as slurmctld's `REQUEST_RECONFIGURE`. A file that no longer parses changes
    /// nothing and says why.
    async fn reconfigure(&self, identity: &Identity) -> Result<ControlReply, ApiError> {
        let admin = self.controller.state.read(|s| s.is_admin(identity.uid))
            || identity.uid == self.auth.slurm_user_uid
            || identity.uid == 0;
        if !admin {
            return Err(ApiError::new(SlurmErrno::AccessDenied));
        }
        let path = std::path::PathBuf::from(&self.controller.launch_context.slurm_conf);
        let config = crate::config::ControllerConfig::load(&path).map_err(|e| {
            tracing::error!("reconfigure: {} not applied: {e}", path.display());
            ApiError::with_detail(SlurmErrno::Error, e.to_string())
        })?;
        tracing::info!("reconfigure: applying {}", path.display());
        self.controller
            .commit(Command::ApplyConfig(Box::new(config.snapshot)))
            .await?;
        Ok(ControlReply {
            failures: Vec::new(),
            step_id: None,
            reservation: None,
            acct: None,
            edited_jobs: Vec::new(),
            resv_ports: None,
        })
    }

    /// `spur admin controller`: anyone may list the controllers; only administrators may add or remove one.
    async fn change_controllers(
        &self,
        identity: &Identity,
        request: &pb::ApiRequest,
    ) -> Result<ControllerList, ApiError> {
        let change: ControllerChange = from_doc(request.body.as_ref()).map_err(bad_request)?;
        let admin = self.controller.state.read(|s| s.is_admin(identity.uid))
            || identity.uid == self.auth.slurm_user_uid;
        if change != ControllerChange::List && !admin {
            return Err(ApiError::with_detail(
                SlurmErrno::AccessDenied,
                "only an administrator may add or remove controllers",
            ));
        }
        self.controller.change_controllers(change).await
    }

    /// `sacct` (and libspur_compat's slurmdb job queries): live jobs and the handoff buffer under the state's read
    /// lock, then the history store without it, so a query over a long history never holds up `apply`.
    fn accounting(
        &self,
        identity: &Identity,
        job_ids: Option<Vec<u32>>,
        user_ids: Option<Vec<u32>>,
        select: Option<spur_core::model::accounting::Filter>,
        now: i64,
    ) -> QueryReply {
        let (read, private_jobs, cluster) = self.controller.state.read(|state| {
            (
                state.accounting_in_state(
                    job_ids.as_deref(),
                    user_ids.as_deref(),
                    select.as_ref(),
                    now,
                ),
                state.settings.private_jobs,
                state.settings.cluster_name.clone(),
            )
        });
        let records = read
            .read_store(select.as_ref())
            .into_iter()
            .filter(|record| {
                rules::may_see_job(
                    private_jobs,
                    identity.uid,
                    record.user_id,
                    self.auth.slurm_user_uid,
                )
            })
            .collect();
        QueryReply::Accounting {
            records,
            cluster,
            now,
        }
    }

    /// `PrivateData=jobs`: whether the caller may see a job of `owner_uid`.
    fn may_see(
        &self,
        state: &crate::state::ClusterState,
        identity: &Identity,
        owner_uid: u32,
    ) -> bool {
        rules::may_see_job(
            state.settings.private_jobs,
            identity.uid,
            owner_uid,
            self.auth.slurm_user_uid,
        )
    }

    fn identify(
        &self,
        request: &Request<pb::ApiRequest>,
        method: &str,
    ) -> Result<Identity, ApiError> {
        self.auth
            .authenticate(request, method, request.get_ref(), self.controller.now())
    }
}

/// The names a `scontrol create NodeName=` line asks for (its `NodeName=` host list, expanded when it parses).
fn created_node_names(definition: &str) -> Vec<String> {
    definition
        .split_whitespace()
        .filter_map(|word| word.split_once('='))
        .filter(|(key, _)| key.eq_ignore_ascii_case("nodename"))
        .flat_map(|(_, list)| {
            spur_core::grammar::hostlist::expand(list).unwrap_or_else(|_| vec![list.to_string()])
        })
        .collect()
}

/// The nodes as listings show them: with the `RESERVED` and `MAINT` flags of the reservations active `now`.
fn listed_nodes(
    state: &crate::state::ClusterState,
    now: i64,
) -> Vec<spur_core::model::records::NodeRecord> {
    state
        .nodes
        .values()
        .map(|node| {
            let mut node = node.clone();
            for r in state.reservations.values() {
                if r.is_active(now) && r.holds_node(&node.name) {
                    node.reserved = true;
                    node.maintenance |= r.flags.maint;
                }
            }
            node
        })
        .collect()
}

fn bad_request(e: spur_core::wire::WireError) -> ApiError {
    ApiError::with_detail(SlurmErrno::Error, e.to_string())
}

impl ApiService {
    /// One client call, however it arrived (gRPC, or a frame on the TCP port or the local socket): `identity` is
    /// the verified caller or why there is none, `remote` the caller's address where it has one.
    pub async fn answer(
        &self,
        method: Method,
        identity: Result<Identity, ApiError>,
        request: pb::ApiRequest,
        remote: Option<std::net::SocketAddr>,
    ) -> pb::ApiReply {
        let identity = match identity {
            Ok(identity) => identity,
            Err(e) => return error_reply(&e),
        };
        // A controller whose storage failed answers nothing from its state: it may be behind the cluster's, and
        // clients of a group go on to another controller on this answer.
        if let Some(reason) = self.controller.storage_fault() {
            return error_reply(&crate::runtime::storage_fault_error(&reason));
        }
        match method {
            Method::Submit => {
                // Without an address (the local Unix socket) the caller is on this host, as a loopback client is.
                let alloc_node = super::peer_name::peer_host(Some(
                    remote.unwrap_or_else(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0))),
                ))
                .await;
                reply(ApiService::submit(self, &identity, request, alloc_node).await)
            }
            Method::Query => match ApiService::query_doc(self, &identity, request).await {
                Ok(doc) => pb::ApiReply {
                    error_code: 0,
                    message: String::new(),
                    body: Some(doc),
                    ..Default::default()
                },
                Err(e) => error_reply(&e),
            },
            Method::Control => {
                if request.body.as_ref().map(|d| d.kind.as_str()) == Some(ControllerChange::KIND) {
                    return reply(self.change_controllers(&identity, &request).await);
                }
                match ApiService::control(self, &identity, request).await {
                    Ok(body) => reply(Ok(body)),
                    Err(e) => error_reply(&e),
                }
            }
        }
    }

    /// Who a request frame that came over TCP from `peer` says sent it, before its message is read.
    pub fn open_frame(
        &self,
        credential: &Credential,
        method: Method,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<spur_auth::OpenedCredential, ApiError> {
        self.auth
            .open_frame(credential, method.name(), self.controller.now(), peer)
    }

    /// The verified caller of a request frame: its opened credential bound to `request`.
    pub fn bind_frame(
        &self,
        opened: spur_auth::OpenedCredential,
        method: Method,
        request: &pb::ApiRequest,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<Identity, ApiError> {
        self.auth
            .bind_frame(opened, method.name(), request, self.controller.now(), peer)
    }

    async fn answer_grpc(&self, method: Method, request: Request<pb::ApiRequest>) -> pb::ApiReply {
        let identity = self.identify(&request, method.name());
        let remote = request.remote_addr();
        self.answer(method, identity, request.into_inner(), remote)
            .await
    }
}

#[tonic::async_trait]
impl pb::controller_server::Controller for ApiService {
    async fn submit(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        Ok(Response::new(
            self.answer_grpc(Method::Submit, request).await,
        ))
    }

    async fn query(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        Ok(Response::new(
            self.answer_grpc(Method::Query, request).await,
        ))
    }

    async fn control(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        Ok(Response::new(
            self.answer_grpc(Method::Control, request).await,
        ))
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingReply>, Status> {
        let controller = match self.controller.member_name() {
            Some(name) => name.to_string(),
            None => self
                .controller
                .state
                .read(|s| s.config.controllers.first().cloned().unwrap_or_default()),
        };
        Ok(Response::new(pb::PingReply {
            controller,
            leader: self.controller.is_leader(),
            fault: self.controller.storage_fault().unwrap_or_default(),
        }))
    }
}

/// The fields of a listing to answer with rows: asked for, by a caller of this build's model (rows are packed),
/// without whole records, and every name known here. Anything else gets records.
fn rows_asked(listing: &JobListing, accept_packed: &str) -> Option<Vec<ListField>> {
    if listing.whole_records || accept_packed != wire::MODEL_SCHEMA {
        return None;
    }
    let names = listing.fields.as_ref()?;
    names
        .iter()
        .map(|name| ListField::from_name(name))
        .collect()
}

/// slurmctld keeps account names in lower case whatever case the request used (`-A MY_ACCT` shows as `my_acct` in
/// squeue, `scontrol show job` and accounting; case 479), as slurmdbd keeps its accounts. Done before the command
/// is committed, so the log holds the name the job keeps.
fn lower_case_account(spec: &mut spur_core::model::job::JobSpec) {
    if let Some(account) = &mut spec.account {
        account.make_ascii_lowercase();
    }
}

/// A job's `--nodelist` and `--exclude` are checked here, before the state is locked: a malformed list, or one of
/// more names than [`spur_core::grammar::hostlist::MAX_JOB_NODE_LIST`] (`n[1-16000000]`), is refused as slurmctld
/// refuses names it does not know, so no such list is ever expanded under the state's lock or in a scheduling pass.
fn check_node_lists(spec: &spur_core::model::job::JobSpec) -> Result<(), ApiError> {
    for list in [&spec.required_nodes, &spec.excluded_nodes]
        .into_iter()
        .flatten()
    {
        let bounded = spur_core::grammar::hostlist::Hostlist::parse_request(list)
            .is_ok_and(|names| names.len() <= spur_core::grammar::hostlist::MAX_JOB_NODE_LIST);
        if !bounded {
            return Err(ApiError::new(SlurmErrno::InvalidNodeName));
        }
    }
    Ok(())
}
