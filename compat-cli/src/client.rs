//! The CLI's connection to spurctld: finds the controller (SPUR_CONTROLLER, else slurm.conf's SlurmctldHost and
//! SlurmctldPort), sends one request, and turns transport failures into Slurm's "Unable to contact" error.

use spur_core::api::{ApiError, ControlReply, ControlRequest, Query, QueryReply, SubmitReply, SubmitRequest};
use spur_core::wire::{from_doc, pb, to_doc, DocKind};

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
}

pub struct Client {
    url: String,
    runtime: tokio::runtime::Runtime,
}

impl Client {
    pub fn from_environment() -> Result<Client, ClientError> {
        let url = crate::config::controller_url();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ClientError::Unreachable(e.to_string()))?;
        Ok(Client { url, runtime })
    }

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
        })
    }

    fn decode<R: serde::de::DeserializeOwned + DocKind>(reply: pb::ApiReply) -> Result<R, ClientError> {
        if reply.error_code != 0 {
            let error = from_doc::<ApiError>(reply.body.as_ref()).unwrap_or_else(|_| {
                ApiError::with_detail(spur_core::api::SlurmErrno::Error, reply.message.clone())
            });
            return Err(ClientError::Api(error));
        }
        from_doc(reply.body.as_ref()).map_err(|e| ClientError::Protocol(e.to_string()))
    }

    async fn connect(url: String) -> Result<pb::controller_client::ControllerClient<tonic::transport::Channel>, ClientError> {
        let endpoint = tonic::transport::Endpoint::from_shared(url.clone())
            .map_err(|e| ClientError::Unreachable(e.to_string()))?
            .connect_timeout(REQUEST_TIMEOUT)
            .timeout(REQUEST_TIMEOUT);
        let channel = endpoint.connect().await.map_err(|e| ClientError::Unreachable(format!("{url}: {e}")))?;
        Ok(pb::controller_client::ControllerClient::new(channel))
    }

    pub fn submit(&self, request: &SubmitRequest) -> Result<SubmitReply, ClientError> {
        let message = Self::request(request)?;
        let url = self.url.clone();
        self.runtime.block_on(async move {
            let reply = Self::connect(url).await?.submit(message).await.map_err(status_error)?;
            Self::decode(reply.into_inner())
        })
    }

    pub fn query(&self, query: &Query) -> Result<QueryReply, ClientError> {
        let message = Self::request(query)?;
        let url = self.url.clone();
        self.runtime.block_on(async move {
            let reply = Self::connect(url).await?.query(message).await.map_err(status_error)?;
            Self::decode(reply.into_inner())
        })
    }

    pub fn control(&self, request: &ControlRequest) -> Result<ControlReply, ClientError> {
        let message = Self::request(request)?;
        let url = self.url.clone();
        self.runtime.block_on(async move {
            let reply = Self::connect(url).await?.control(message).await.map_err(status_error)?;
            Self::decode(reply.into_inner())
        })
    }

    pub fn ping(&self) -> Result<pb::PingReply, ClientError> {
        let url = self.url.clone();
        self.runtime.block_on(async move {
            let reply = Self::connect(url).await?.ping(pb::PingRequest {}).await.map_err(status_error)?;
            Ok(reply.into_inner())
        })
    }
}

fn status_error(status: tonic::Status) -> ClientError {
    ClientError::Unreachable(status.to_string())
}

/// Unique enough per request to let the controller drop a retried duplicate.
fn request_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{}-{}-{}", config_host(), std::process::id(), nanos)
}

fn config_host() -> String {
    crate::config::short_hostname()
}
