//! The client-facing calls: submit, query, control, ping.

use std::sync::Arc;

use tonic::{Request, Response, Status};

use spur_core::api::{
    ApiError, ControlReply, ControlRequest, Query, QueryReply, SlurmErrno, SubmitReply,
    SubmitRequest,
};
use spur_core::wire::{from_doc, pb};

use super::{error_reply, reply};
use crate::runtime::Controller;
use crate::scheduler;
use crate::state::Command;

pub struct ApiService {
    controller: Arc<Controller>,
}

impl ApiService {
    pub fn new(controller: Arc<Controller>) -> Self {
        ApiService { controller }
    }

    async fn submit(&self, request: pb::ApiRequest) -> Result<SubmitReply, ApiError> {
        let mut submit: SubmitRequest = from_doc(request.body.as_ref()).map_err(bad_request)?;
        // Identity comes from the transport's caller record; the authentication issue makes it verified.
        if let Some(caller) = &request.caller {
            submit.spec.user_id = caller.uid;
            submit.spec.group_id = caller.gid;
        }
        if submit.test_only {
            return self.test_only(&submit);
        }
        let now = self.controller.now();
        if submit.immediate {
            // Checked before the commit: a start Spur cannot promise is refused rather than queued. Another
            // submission may still take the resources first; the job then waits like any other.
            self.controller
                .state
                .read(|state| scheduler::immediate_check(state, &submit.spec, now))?;
        }
        let applied = self
            .controller
            .commit(Command::Submit {
                spec: Box::new(submit.spec),
                now,
            })
            .await?;
        let job_id = applied
            .job_id
            .ok_or_else(|| ApiError::new(SlurmErrno::Error))?;
        Ok(SubmitReply {
            job_id,
            test_only: None,
        })
    }

    /// `--test-only`: where and when the job would start now, without submitting it.
    fn test_only(&self, submit: &SubmitRequest) -> Result<SubmitReply, ApiError> {
        let now = self.controller.now();
        self.controller.state.read(|state| {
            let job_id = state.next_job_id;
            let plan = scheduler::trial_placement(state, &submit.spec, now)?;
            Ok(SubmitReply {
                job_id,
                test_only: Some(plan),
            })
        })
    }

    fn query(&self, request: pb::ApiRequest) -> Result<QueryReply, ApiError> {
        let query: Query = from_doc(request.body.as_ref()).map_err(bad_request)?;
        let now = self.controller.now();
        let reply = self.controller.state.read(|state| match query {
            Query::Jobs => QueryReply::Jobs {
                jobs: state
                    .jobs
                    .values()
                    .map(|job| {
                        let mut job = job.clone();
                        job.dependency_status = job
                            .spec
                            .dependency
                            .as_deref()
                            .map(|dep| scheduler::describe_dependency(state, &job, dep, now));
                        job
                    })
                    .collect(),
                now,
            },
            Query::Nodes => QueryReply::Nodes {
                nodes: state.nodes.values().cloned().collect(),
                now,
            },
            Query::Partitions => QueryReply::Partitions {
                partitions: state.partitions.clone(),
                nodes: state.nodes.values().cloned().collect(),
                now,
            },
            Query::Config => QueryReply::Config {
                config: state.config.clone(),
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

    async fn control(&self, request: pb::ApiRequest) -> Result<ControlReply, ApiError> {
        let control: ControlRequest = from_doc(request.body.as_ref()).map_err(bad_request)?;
        let caller_uid = request.caller.as_ref().map(|c| c.uid).unwrap_or(u32::MAX);
        let now = self.controller.now();
        let applied = self
            .controller
            .commit(Command::Control {
                caller_uid,
                request: control,
                now,
            })
            .await?;
        Ok(ControlReply {
            failures: applied.failures,
        })
    }
}

fn bad_request(e: spur_core::wire::WireError) -> ApiError {
    ApiError::with_detail(SlurmErrno::Error, e.to_string())
}

#[tonic::async_trait]
impl pb::controller_server::Controller for ApiService {
    async fn submit(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        Ok(Response::new(reply(
            ApiService::submit(self, request.into_inner()).await,
        )))
    }

    async fn query(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        Ok(Response::new(reply(ApiService::query(
            self,
            request.into_inner(),
        ))))
    }

    async fn control(
        &self,
        request: Request<pb::ApiRequest>,
    ) -> Result<Response<pb::ApiReply>, Status> {
        let result = ApiService::control(self, request.into_inner()).await;
        Ok(Response::new(match result {
            Ok(body) => reply(Ok(body)),
            Err(e) => error_reply(&e),
        }))
    }

    async fn ping(
        &self,
        _request: Request<pb::PingRequest>,
    ) -> Result<Response<pb::PingReply>, Status> {
        let controller = self
            .controller
            .state
            .read(|s| s.config.controllers.first().cloned().unwrap_or_default());
        Ok(Response::new(pb::PingReply {
            controller,
            leader: true,
        }))
    }
}
