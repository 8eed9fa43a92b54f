//! The shim's only way to the controller. Every C call that needs the controller goes through [`call`], which
//! builds the one request envelope, seals it with the caller's credential (`spur_auth::ClientAuth`, the same as
//! the commands: `SLURM_JWT`, else the local socket, else MUNGE), sends it on one process-wide tokio runtime, and
//! maps every failure to Slurm's errno.
//!
//! The host program is not Rust, so the runtime is created lazily on first use and lives for the process; any
//! thread of the host may call in concurrently (`block_on` from non-runtime threads).

use std::sync::{Arc, Mutex, OnceLock};

use spur_core::grammar::conf::SlurmConf;
use spur_core::wire::api::{
    ApiError, ControlReply, ControlRequest, JobList, JobListing, Query, QueryReply, SubmitReply,
    SubmitRequest,
};
use spur_core::wire::{from_doc, pb, to_doc, DocKind};

use crate::ffi;
use spur_auth::failover::{each_controller, Attempt};

/// Slurm's MessageTimeout default: how long a client waits for the controller.
const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
/// Worker threads of the shim's runtime: calls are short RPCs; the callers' threads do the blocking.
const RUNTIME_WORKERS: usize = 2;

/// A failed call, already in Slurm's terms: the errno to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub errno: i32,
}

impl From<ApiError> for CallError {
    fn from(e: ApiError) -> Self {
        CallError {
            errno: e.errno.code(),
        }
    }
}

impl CallError {
    pub const fn new(errno: i32) -> Self {
        CallError { errno }
    }

    /// Sets errno and returns `SLURM_ERROR`, the shape of most libslurm failures.
    pub fn fail(self) -> i32 {
        ffi::set_errno(self.errno);
        ffi::SLURM_ERROR
    }
}

/// Which of the controller's RPCs a request goes to.
#[derive(Debug, Clone, Copy)]
enum Rpc {
    Submit,
    Query,
    Control,
}

impl Rpc {
    /// The method name a credential is bound to (`spur_core::auth::binding`).
    fn method(self) -> &'static str {
        match self {
            Rpc::Submit => "Submit",
            Rpc::Query => "Query",
            Rpc::Control => "Control",
        }
    }
}

/// How this process proves who it is, decided per call from the environment and slurm.conf (cheap: both are
/// cached or a few getenv calls), so a `SLURM_JWT` set by the host program after loading the library counts.
fn client_auth() -> spur_auth::ClientAuth {
    let conf = load_conf();
    spur_auth::ClientAuth::from_environment(conf.as_deref(), |k| std::env::var(k).ok())
}

fn runtime() -> Result<&'static tokio::runtime::Runtime, CallError> {
    static RUNTIME: OnceLock<Option<tokio::runtime::Runtime>> = OnceLock::new();
    RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(RUNTIME_WORKERS)
                .thread_name("spur-compat")
                .enable_all()
                .build()
                .ok()
        })
        .as_ref()
        .ok_or(CallError::new(ffi::SLURM_ERROR))
}

/// The slurm.conf path `slurm_init(conf)` chose; `None` means `SLURM_CONF`, else /etc/slurm/slurm.conf.
static CONF_OVERRIDE: Mutex<Option<String>> = Mutex::new(None);

pub fn set_conf_path(path: Option<String>) {
    if let Ok(mut p) = CONF_OVERRIDE.lock() {
        *p = path;
    }
}

pub fn conf_path() -> String {
    let chosen = CONF_OVERRIDE.lock().ok().and_then(|p| p.clone());
    chosen
        .or_else(|| std::env::var("SLURM_CONF").ok())
        .unwrap_or_else(|| "/etc/slurm/slurm.conf".to_string())
}

/// slurm.conf as parsed last, with the path and modification time it was read at.
type ParsedConf = (String, Option<std::time::SystemTime>, Arc<SlurmConf>);
static CONF: Mutex<Option<ParsedConf>> = Mutex::new(None);

/// slurm.conf as the clients see it: parsed again only when the path or the file's modification time changes, so
/// a reconfigured cluster is picked up without parsing the file on every call.
/// slurm.conf's `ClusterName`, empty when unset or unreadable (records print it as given).
pub fn cluster_name() -> String {
    load_conf()
        .and_then(|c| c.get_str("ClusterName").map(str::to_string))
        .unwrap_or_default()
}

pub fn load_conf() -> Option<Arc<SlurmConf>> {
    let path = conf_path();
    let mtime = std::fs::metadata(&path).and_then(|m| m.modified()).ok();
    if let Ok(cache) = CONF.lock() {
        if let Some((p, t, conf)) = cache.as_ref() {
            if *p == path && *t == mtime && mtime.is_some() {
                return Some(conf.clone());
            }
        }
    }
    let mut read = |p: &str| std::fs::read_to_string(p).map_err(|e| e.to_string());
    let conf = Arc::new(SlurmConf::load(&path, &mut read).ok()?);
    if let Ok(mut cache) = CONF.lock() {
        *cache = Some((path, mtime, conf.clone()));
    }
    Some(conf)
}

/// Like the CLI: `SPUR_CONTROLLER`, else slurm.conf's SlurmctldHost lines and SlurmctldPort, in the order to try.
pub fn controller_urls() -> Vec<String> {
    let from_env = std::env::var("SPUR_CONTROLLER").ok();
    spur_core::grammar::conf::controller_urls(from_env.as_deref(), load_conf().as_deref())
}

/// Where to send calls, the controller that answered last first. The local socket, when used, is the controller's
/// address: it keys the channel cache like a URL.
fn targets(auth: &spur_auth::ClientAuth) -> Vec<String> {
    if let spur_auth::ClientAuth::Local { socket } = auth {
        return vec![format!("unix:{}", socket.display())];
    }
    let mut urls = controller_urls();
    let cached = CHANNEL
        .lock()
        .ok()
        .and_then(|c| c.as_ref().map(|(u, _)| u.clone()));
    if let Some(position) = cached.and_then(|u| urls.iter().position(|x| *x == u)) {
        urls.rotate_left(position);
    }
    urls
}

pub fn short_hostname() -> String {
    nix::unistd::gethostname()
        .ok()
        .and_then(|h| {
            h.to_str()
                .map(|s| s.split('.').next().unwrap_or_default().to_string())
        })
        .unwrap_or_else(|| "localhost".to_string())
}

/// The one place a request envelope is built. The `Caller` record is informational: the controller takes the
/// identity from the credential [`call`] attaches.
fn build_request<T: serde::Serialize + DocKind>(body: &T) -> Result<pb::ApiRequest, CallError> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let host = short_hostname();
    // The counter keeps two requests of one process (several threads, a coarse clock) from sharing an id: the
    // controller answers a repeated id with the first answer.
    static SEQUENCE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let sequence = SEQUENCE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(pb::ApiRequest {
        request_id: format!("{host}-{}-{nanos}-{sequence}", std::process::id()),
        caller: Some(pb::Caller {
            uid: nix::unistd::getuid().as_raw(),
            gid: nix::unistd::getgid().as_raw(),
            host,
        }),
        body: Some(to_doc(body).map_err(|_| CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR))?),
        accept_packed_schema: spur_core::wire::MODEL_SCHEMA.to_string(),
    })
}

/// The open connection to the controller, by URL: one HTTP/2 channel multiplexes every thread's calls, so a
/// polling tool pays the TCP and HTTP/2 handshakes once, not per call.
static CHANNEL: Mutex<Option<(String, tonic::transport::Channel)>> = Mutex::new(None);

async fn connect(
    auth: &spur_auth::ClientAuth,
    url: &str,
) -> Result<pb::controller_client::ControllerClient<tonic::transport::Channel>, CallError> {
    let cached = CHANNEL.lock().ok().and_then(|c| {
        c.as_ref()
            .filter(|(u, _)| u == url)
            .map(|(_, channel)| channel.clone())
    });
    let channel = match cached {
        Some(channel) => channel,
        None => {
            let channel = auth
                .channel(url, REQUEST_TIMEOUT, Some(REQUEST_TIMEOUT))
                .await
                .map_err(|_| CallError::new(ffi::SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR))?;
            if let Ok(mut c) = CHANNEL.lock() {
                *c = Some((url.to_string(), channel.clone()));
            }
            channel
        }
    };
    Ok(pb::controller_client::ControllerClient::new(channel)
        .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES))
}

/// Drops the cached connection after a transport failure, so the next call dials again (a restarted or moved
/// controller is found afresh).
fn forget_channel() {
    if let Ok(mut c) = CHANNEL.lock() {
        *c = None;
    }
}

fn decode<R: serde::de::DeserializeOwned + DocKind>(reply: pb::ApiReply) -> Result<R, CallError> {
    if reply.error_code != 0 {
        return Err(match from_doc::<ApiError>(reply.body.as_ref()) {
            Ok(e) => e.into(),
            Err(_) => CallError::new(reply.error_code),
        });
    }
    from_doc(reply.body.as_ref()).map_err(|_| CallError::new(ffi::SLURM_UNEXPECTED_MSG_ERROR))
}

/// Rounds of attempts on every controller before a call fails with a communications error, and the pause before
/// the second (longer before each later one): as libslurm keeps trying to reach its controller for a while, a
/// controller that is busy, restarting or failing over does not fail the caller at once. Safe for every call:
/// each request carries its id, and the controller applies an id once (a retried submission is one job).
const ROUNDS: u32 = 3;
const ROUND_PAUSE: std::time::Duration = std::time::Duration::from_millis(250);

/// Sends one request and decodes its reply; the single path every controller call takes. A controller that cannot
/// be reached passes the call to the next one; every attempt carries the same request id under a fresh credential.
fn call<Req, Rep>(rpc: Rpc, body: &Req) -> Result<Rep, CallError>
where
    Req: serde::Serialize + DocKind,
    Rep: serde::de::DeserializeOwned + DocKind,
{
    let auth = client_auth();
    let message = build_request(body)?;
    let mut round = 0;
    loop {
        match one_round(rpc, &auth, &message) {
            Err(e)
                if e.errno == ffi::SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR
                    && round + 1 < ROUNDS =>
            {
                round += 1;
                std::thread::sleep(ROUND_PAUSE * round);
            }
            reply => return decode(reply?),
        }
    }
}

/// One attempt on each controller in turn, until one answers.
fn one_round(
    rpc: Rpc,
    auth: &spur_auth::ClientAuth,
    message: &pb::ApiRequest,
) -> Result<pb::ApiReply, CallError> {
    let urls = targets(auth);
    let none = CallError::new(ffi::SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR);
    runtime()?.block_on(each_controller(&urls, none, |url| {
        let message = message.clone();
        async move {
            let request = match auth.request(rpc.method(), message) {
                Ok(request) => request,
                Err(_) => {
                    let e = CallError::new(ffi::SLURM_PROTOCOL_AUTHENTICATION_ERROR);
                    return Attempt::Done(Err(e));
                }
            };
            let mut client = match connect(auth, url).await {
                Ok(client) => client,
                Err(e) => return Attempt::Next(e),
            };
            let reply = match rpc {
                Rpc::Submit => client.submit(request).await,
                Rpc::Query => client.query(request).await,
                Rpc::Control => client.control(request).await,
            };
            match reply {
                Ok(reply) => Attempt::Done(Ok(reply.into_inner())),
                Err(_) => {
                    forget_channel();
                    Attempt::Next(CallError::new(
                        ffi::SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR,
                    ))
                }
            }
        }
    }))
}

pub fn submit(request: &SubmitRequest) -> Result<SubmitReply, CallError> {
    call(Rpc::Submit, request)
}

pub fn query(query: &Query) -> Result<QueryReply, CallError> {
    call(Rpc::Query, query)
}

/// Job records for a listing (no scripts or environments), packed on the wire when the controller is this build.
pub fn job_list(listing: JobListing) -> Result<JobList, CallError> {
    call(Rpc::Query, &Query::JobListing(listing))
}

/// A control request addressed to one job: the first per-job failure becomes the call's error.
pub fn control(request: &ControlRequest) -> Result<(), CallError> {
    let reply: ControlReply = call(Rpc::Control, request)?;
    match reply.failures.into_iter().next() {
        Some((_, e)) => Err(e.into()),
        None => Ok(()),
    }
}

/// A control request whose per-job failures the caller reports itself (`slurm_suspend2`'s array answer).
pub fn control_reply(request: &ControlRequest) -> Result<ControlReply, CallError> {
    call(Rpc::Control, request)
}

/// `slurm_ping`: is the controller answering? (No request body, so it skips [`call`]'s envelope.)
pub fn ping() -> Result<(), CallError> {
    let auth = client_auth();
    let url = targets(&auth).into_iter().next().unwrap_or_default();
    runtime()?.block_on(async move {
        connect(&auth, &url)
            .await?
            .ping(pb::PingRequest {})
            .await
            .map_err(|_| {
                forget_channel();
                CallError::new(ffi::SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR)
            })?;
        Ok(())
    })
}
