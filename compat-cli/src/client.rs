//! The CLI's connection to spurctld: finds the controllers (SPUR_CONTROLLER, else slurm.conf's SlurmctldHost lines
//! and SlurmctldPort), sends one request (to the next controller when one cannot be reached), and turns transport
//! failures into Slurm's "Unable to contact" error.

use spur_core::model::job::JobRecord;
use spur_core::wire::api::{
    ApiError, ControlReply, ControlRequest, JobList, JobListing, Query, QueryReply, SubmitReply,
    SubmitRequest,
};
use spur_core::wire::listing_rows::{ListField, Rows};
use spur_core::wire::{from_doc, listing_doc, pb, to_doc, DocKind, ListingDoc};

mod frames;

/// Slurm's MessageTimeout default: how long a client waits for the controller.
pub const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("{0}")]
    Api(ApiError),
    #[error("Unable to contact slurm controller (connect failure)")]
    Unreachable(String),
    #[error("Unexpected message received ({0})")]
    Protocol(String),
    /// No credential could be made (munged unreachable, ...): Slurm's clients fail the same way.
    #[error("Protocol authentication error ({0})")]
    Auth(String),
}

/// A listing's answer: rows (for [`spur_core::wire::listing_rows::Rows::parse`]) or whole records.
pub enum ListingReply {
    Rows(Vec<u8>),
    Jobs(JobList),
}

impl ListingReply {
    /// The controller's clock and each listed job's owner and group (the names to look up).
    pub fn head(&self) -> Result<(i64, Vec<(u32, u32)>), ClientError> {
        match self {
            ListingReply::Rows(bytes) => {
                let rows = Rows::parse(bytes).map_err(malformed)?;
                Ok((rows.now, rows.owners))
            }
            ListingReply::Jobs(list) => Ok((
                list.now,
                list.jobs
                    .iter()
                    .map(|j| (j.spec.user_id, j.spec.group_id))
                    .collect(),
            )),
        }
    }

    /// Calls `each` with every listed job: records, or rows of `fields` read into one reused record.
    pub fn for_each(
        &self,
        fields: &[ListField],
        each: impl FnMut(&JobRecord),
    ) -> Result<(), ClientError> {
        match self {
            ListingReply::Rows(bytes) => {
                let rows = Rows::parse(bytes).map_err(malformed)?;
                rows.for_each(fields, each).map_err(malformed)
            }
            ListingReply::Jobs(list) => {
                list.jobs.iter().for_each(each);
                Ok(())
            }
        }
    }
}

fn malformed(e: impl std::fmt::Display) -> ClientError {
    ClientError::Protocol(format!("malformed job rows: {e}"))
}

pub struct Client {
    /// Every controller; a call moves to the next when one cannot be reached.
    urls: Vec<String>,
    auth: spur_auth::ClientAuth,
    /// Made on the first gRPC call: a call in frames on the local socket needs none.
    runtime: std::sync::OnceLock<tokio::runtime::Runtime>,
}

impl Client {
    pub fn from_environment() -> Result<Client, ClientError> {
        let auth = spur_auth::ClientAuth::from_environment(crate::config::load_slurm_conf(), |k| {
            std::env::var(k).ok()
        });
        Self::with_auth(auth)
    }

    /// A client that proves its caller with `auth` rather than this process's own credential: slurmrestd acts
    /// for each HTTP caller with the token that caller presented.
    pub fn with_auth(auth: spur_auth::ClientAuth) -> Result<Client, ClientError> {
        Ok(Client {
            urls: crate::config::controller_urls(),
            auth,
            runtime: std::sync::OnceLock::new(),
        })
    }

    fn runtime(&self) -> Result<&tokio::runtime::Runtime, ClientError> {
        if let Some(runtime) = self.runtime.get() {
            return Ok(runtime);
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        Ok(self.runtime.get_or_init(|| runtime))
    }

    /// Informational only: the controller takes the caller from the verified credential, never from here.
    fn caller() -> pb::Caller {
        pb::Caller {
            uid: nix::unistd::getuid().as_raw(),
            gid: nix::unistd::getgid().as_raw(),
            host: crate::config::short_hostname(),
        }
    }

    fn request<T: serde::Serialize + DocKind>(body: &T) -> Result<pb::ApiRequest, ClientError> {
        Ok(pb::ApiRequest {
            request_id: request_id(),
            caller: Some(Self::caller()),
            body: Some(to_doc(body).map_err(|e| ClientError::Protocol(e.to_string()))?),
            accept_packed_schema: spur_core::wire::MODEL_SCHEMA.to_string(),
        })
    }

    fn decode<R: serde::de::DeserializeOwned + DocKind>(
        reply: pb::ApiReply,
    ) -> Result<R, ClientError> {
        if reply.error_code != 0 {
            let error = from_doc::<ApiError>(reply.body.as_ref()).unwrap_or_else(|_| {
                ApiError::with_detail(
                    spur_core::wire::api::SlurmErrno::Error,
                    reply.message.clone(),
                )
            });
            return Err(ClientError::Api(error));
        }
        from_doc(reply.body.as_ref()).map_err(|e| ClientError::Protocol(e.to_string()))
    }

    async fn connect(
        url: &str,
        auth: &spur_auth::ClientAuth,
    ) -> Result<pb::controller_client::ControllerClient<tonic::transport::Channel>, ClientError>
    {
        let channel = auth
            .channel(url, REQUEST_TIMEOUT, Some(REQUEST_TIMEOUT))
            .await
            .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        Ok(pb::controller_client::ControllerClient::new(channel)
            .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES))
    }

    /// Sends `message` as a call of `method`, trying each controller in turn while they cannot be reached. Every
    /// attempt carries the same request id (the controller applies a retried submission once) under a fresh
    /// credential (a credential is accepted once). With one controller a failure is final at once, as in Slurm.
    fn call(
        &self,
        method: &'static str,
        message: pb::ApiRequest,
    ) -> Result<pb::ApiReply, ClientError> {
        use spur_auth::failover::{each_controller, Attempt};
        match self.call_in_frames(method, &message) {
            Ok(reply) => return Ok(reply),
            // The one controller took the call and did not answer: gRPC would wait for it as long again.
            Err(frames::NoReply::Silent) if self.urls.len() <= 1 => {
                return Err(ClientError::Unreachable(format!(
                    "no answer within {} s",
                    REQUEST_TIMEOUT.as_secs()
                )));
            }
            Err(_) => {}
        }
        let none = ClientError::Unreachable("no controller configured".into());
        self.runtime()?
            .block_on(each_controller(&self.urls, none, |url| {
                let message = message.clone();
                async move {
                    let request = match self.auth.request(method, message) {
                        Ok(request) => request,
                        Err(e) => return Attempt::Done(Err(ClientError::Auth(e.to_string()))),
                    };
                    let mut client = match Self::connect(url, &self.auth).await {
                        Ok(client) => client,
                        Err(e) => return Attempt::Next(e),
                    };
                    let reply = match method {
                        "Submit" => client.submit(request).await,
                        "Query" => client.query(request).await,
                        _ => client.control(request).await,
                    };
                    match reply {
                        Ok(reply) => Attempt::Done(Ok(reply.into_inner())),
                        Err(status) => Attempt::Next(status_error(status)),
                    }
                }
            }))
    }

    /// The call as a plain frame ([`frames`]).
    fn call_in_frames(
        &self,
        method: &str,
        message: &pb::ApiRequest,
    ) -> Result<pb::ApiReply, frames::NoReply> {
        let method =
            spur_core::wire::frames::Method::from_name(method).ok_or(frames::NoReply::NotTaken)?;
        match &self.auth {
            spur_auth::ClientAuth::Local { socket } => {
                frames::call_local(socket, method, message, REQUEST_TIMEOUT)
            }
            auth => frames::call_tcp(&self.urls, method, message, REQUEST_TIMEOUT, || {
                auth.credential(method.name(), message).ok()
            }),
        }
    }

    pub fn submit(&self, request: &SubmitRequest) -> Result<SubmitReply, ClientError> {
        Self::decode(self.call("Submit", Self::request(request)?)?)
    }

    pub fn query(&self, query: &Query) -> Result<QueryReply, ClientError> {
        Self::decode(self.call("Query", Self::request(query)?)?)
    }

    /// Job records for a listing (no scripts or environments), packed on the wire when the controller is this
    /// build.
    pub fn job_list(&self, listing: JobListing) -> Result<JobList, ClientError> {
        Self::decode(self.call("Query", Self::request(&Query::JobListing(listing))?)?)
    }

    /// A listing as rows of `fields` ([`spur_core::wire::listing_rows`]) when the controller is this build, else as
    /// records.
    pub fn job_rows(
        &self,
        listing: JobListing,
        fields: &[ListField],
    ) -> Result<ListingReply, ClientError> {
        let listing = JobListing {
            fields: Some(fields.iter().map(|f| f.name().to_string()).collect()),
            ..listing
        };
        let mut reply = self.call("Query", Self::request(&Query::JobListing(listing))?)?;
        if reply.error_code == 0 {
            let body = reply.body.take();
            match listing_doc(body).map_err(|e| ClientError::Protocol(e.to_string()))? {
                ListingDoc::Rows(bytes) => return Ok(ListingReply::Rows(bytes)),
                ListingDoc::Other(body) => reply.body = body,
            }
        }
        Self::decode(reply).map(ListingReply::Jobs)
    }

    pub fn control(&self, request: &ControlRequest) -> Result<ControlReply, ClientError> {
        Self::decode(self.call("Control", Self::request(request)?)?)
    }

    /// `spur admin controller`: the group of controllers, after `change` if it is one.
    pub fn controllers(
        &self,
        change: &spur_core::model::controllers::ControllerChange,
    ) -> Result<spur_core::model::controllers::ControllerList, ClientError> {
        Self::decode(self.call("Control", Self::request(change)?)?)
    }

    /// Pings the first controller.
    pub fn ping(&self) -> Result<pb::PingReply, ClientError> {
        self.ping_url(self.urls.first().map_or("", String::as_str))
    }

    /// Pings the controller at `url` (one of several).
    pub fn ping_url(&self, url: &str) -> Result<pb::PingReply, ClientError> {
        self.runtime()?.block_on(async move {
            let reply = Self::connect(url, &self.auth)
                .await?
                .ping(pb::PingRequest {})
                .await
                .map_err(status_error)?;
            Ok(reply.into_inner())
        })
    }
}

fn status_error(status: tonic::Status) -> ClientError {
    ClientError::Unreachable(status.to_string())
}

/// Unique per request (host, process, clock and a counter, so two requests of one process never share one even
/// on a coarse clock), so the controller can drop a retried duplicate and only that.
fn request_id() -> String {
    static SEQUENCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let sequence = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(
        "{}-{}-{nanos}-{sequence}",
        config_host(),
        std::process::id()
    )
}

fn config_host() -> String {
    crate::config::short_hostname()
}
