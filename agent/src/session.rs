//! The agent's session with the controller: connect, say hello (with the jobs still running here), then carry out
//! launches, signals and terminations, and report results until the controller acknowledges them. Any failure
//! ends the session; the loop reconnects with a bounded backoff, and the spool makes that lossless.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use spur_core::model::job::EpochSecs;
use spur_core::wire::agent_proto::{AgentToController, ControllerToAgent, JobOutcome, NodeHello};
use spur_core::wire::supervisor::{
    woken_job, JobResult, Outcome, PROTOCOL_VERSION, RESULT_FILE, WAKE_SOCKET,
};
use spur_core::wire::{from_doc, pb, to_doc, WireError};

use crate::controller_trust::{ControllerTrust, SessionProof};
use crate::discover;
use crate::effects::carry_out;
use crate::error::SessionError;
use crate::jobs::JobSpool;
use crate::machine::NodeMachine;
use crate::users;

/// How often the agent looks at its spool for results and sends heartbeats.
pub const SPOOL_SCAN_INTERVAL: Duration = Duration::from_millis(200);
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(10);
/// An unacknowledged result is sent again after this long.
pub const RESULT_RESEND_AFTER: Duration = Duration::from_secs(3);
pub const RECONNECT_BACKOFF_MAX: Duration = Duration::from_secs(5);
pub const OUTBOX_MAX: usize = 1024;
/// Short, so an agent whose controller host is down moves on to the next controller quickly.
pub const SESSION_CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

pub struct Agent {
    pub spool: JobSpool,
    /// Every controller, tried in turn: only the leader accepts a session.
    pub controller_urls: Vec<String>,
    /// How each session proves it is root or SlurmUser: a MUNGE credential bound to its Hello.
    pub auth: spur_auth::ClientAuth,
    pub hello: NodeHello,
    /// Launches of a new run waiting for the job's earlier run to end here.
    pub deferred: crate::runs::DeferredLaunches,
    /// Whose orders are obeyed (crate::controller_trust).
    pub trust: ControllerTrust,
}

pub async fn run_forever(agent: Arc<Agent>) {
    let mut backoff = Duration::from_millis(100);
    let count = agent.controller_urls.len().max(1);
    let mut next = 0usize;
    let mut failed_in_round = 0usize;
    // A follower that turned the session away named the leader: tried next, if configured here or the hint is
    // sealed by a trusted controller (one added with `spur admin controller add`).
    let mut hint: Option<String> = None;
    loop {
        let hinted = hint.take();
        let url = match &hinted {
            Some(url) => url.as_str(),
            None => match agent.controller_urls.get(next % count) {
                Some(url) => url.as_str(),
                None => {
                    tracing::error!("no controller to connect to");
                    return;
                }
            },
        };
        let started = Instant::now();
        match SessionProof::new(&agent.auth) {
            Err(e) => tracing::error!("cannot make a session nonce: {e}"),
            Ok(proof) => match session(&agent, url, &proof).await {
                Ok(()) => tracing::info!("controller {url} closed the session"),
                Err(e) => {
                    tracing::warn!("session with {url} ended: {e}");
                    hint = leader_hint(&agent, &proof, &e).filter(|h| h != url);
                }
            },
        }
        if started.elapsed() > Duration::from_secs(10) {
            backoff = Duration::from_millis(100);
            failed_in_round = 0;
        }
        // The next controller is tried at once (the leader may have moved there); only a whole round of
        // failures waits, with a growing backoff.
        if hinted.is_none() {
            next = (next + 1) % count;
        }
        failed_in_round += 1;
        if failed_in_round >= count {
            failed_in_round = 0;
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(RECONNECT_BACKOFF_MAX);
        }
    }
}

/// The leader a follower named when it refused the session (see `LEADER_HINT_HEADER`), as a URL: only a
/// configured controller, or one a trusted controller vouched for with a credential sealed for this session. A
/// process on a controller's port cannot send the agent elsewhere.
fn leader_hint(agent: &Agent, proof: &SessionProof, error: &SessionError) -> Option<String> {
    let SessionError::Status(status) = error else {
        return None;
    };
    let metadata = status.metadata();
    let addr = metadata
        .get(spur_core::model::controllers::LEADER_HINT_HEADER)?
        .to_str()
        .ok()?;
    let url = format!("http://{addr}");
    if agent.controller_urls.contains(&url) {
        return Some(url);
    }
    let credential = metadata
        .get(spur_auth::orders::LEADER_HINT_CREDENTIAL_HEADER)
        .and_then(|v| v.to_str().ok());
    match proof.hint_is_sealed(addr, credential, &agent.trust) {
        Ok(_) => Some(url),
        Err(e) => {
            tracing::warn!(
                "not following the leader hint to {addr}: not a configured controller, and {e}"
            );
            None
        }
    }
}

/// A message on the agent session (real or simulated nodes).
pub(crate) fn envelope(message: &AgentToController) -> Result<pb::ApiRequest, WireError> {
    Ok(pb::ApiRequest {
        request_id: String::new(),
        caller: None,
        body: Some(to_doc(message)?),
        ..Default::default()
    })
}

async fn session(agent: &Arc<Agent>, url: &str, proof: &SessionProof) -> Result<(), SessionError> {
    let channel = agent
        .auth
        .channel_checked(
            url,
            SESSION_CONNECT_TIMEOUT,
            None,
            proof.peer_check(agent.trust),
        )
        .await?;
    // A Launch carries the whole job (script and environment), so it may pass tonic's 4 MiB default.
    let mut client = pb::agent_link_client::AgentLinkClient::new(channel)
        .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES);
    let (outbox, outbox_rx) = mpsc::channel::<pb::ApiRequest>(OUTBOX_MAX);
    record_orphans(&agent.spool);
    let mut hello = agent.hello.clone();
    hello.running_jobs = agent.spool.running_jobs();
    hello.running_runs = hello
        .running_jobs
        .iter()
        .filter_map(|&id| Some((id, agent.spool.run_of(id)?)))
        .collect();
    hello.session_nonce = proof.nonce().map(str::to_string);
    let hello = envelope(&AgentToController::Hello(Box::new(hello)))?;
    // The credential covers the Hello; everything after it rides on the same authenticated stream.
    let credential = agent.auth.seal("Session", &hello)?;
    outbox.send(hello).await?;
    let mut request = tonic::Request::new(ReceiverStream::new(outbox_rx));
    if let Some((key, value)) = credential {
        request.metadata_mut().insert(key, value);
    }
    let mut inbound = client.session(request).await?.into_inner();
    let mut scan = tokio::time::interval(SPOOL_SCAN_INTERVAL);
    let wake = bind_wake_socket(&agent.spool);
    let mut wake_buf = [0u8; 32];
    // The first heartbeat goes out with the first scan, so the controller has load and memory figures at once.
    let mut last_heartbeat: Option<Instant> = None;
    let mut sent_results = SentResults::default();
    let mut launches = crate::in_flight::InFlightLaunches::default();
    // What each message does is the machine's decision (shared with the simulator); this loop performs it.
    let machine = NodeMachine::new();
    loop {
        tokio::select! {
            message = inbound.message() => {
                let Some(reply) = message? else { return Ok(()) };
                // Nothing the controller sends is acted on before it is proved; a refused order ends the session
                // (and a fake controller gets nothing run).
                let controller_uid = proof.check(&reply, &agent.trust).map_err(|e| {
                    tracing::error!("refusing an order from {url}: {e}; closing the session");
                    SessionError::OrderRefused(e)
                })?;
                let message: ControllerToAgent = from_doc(reply.body.as_ref())?;
                if let Some(refusal) = agent.trust.refusal(&message, controller_uid) {
                    refuse(agent, &message, refusal);
                    continue;
                }
                if let Some(job_id) = message.job_id() {
                    launches.settle(job_id).await?;
                }
                carry_out(agent, &machine, message, &outbox, &mut launches).await?;
                launches.reap().await?;
            }
            Ok(len) = recv_wake(wake.as_ref(), &mut wake_buf) => {
                // A supervisor just wrote its result: report it now (only results not sent yet go out).
                // `recv` never reports more than the buffer holds; a bad length is treated like an unknown wake.
                match wake_buf.get(..len).and_then(woken_job) {
                    Some(job_id) => {
                        let finished = agent.spool.finished_job(job_id);
                        send_due(&outbox, &mut sent_results, finished).await?;
                    }
                    None => send_results(agent, &outbox, &mut sent_results).await?,
                }
            }
            _ = scan.tick() => {
                record_orphans(&agent.spool);
                send_results(agent, &outbox, &mut sent_results).await?;
                if last_heartbeat.is_none_or(|t| t.elapsed() > HEARTBEAT_INTERVAL) {
                    last_heartbeat = Some(Instant::now());
                    let beat = AgentToController::Heartbeat {
                        free_mem_mb: discover::free_memory_mb(),
                        cpu_load: discover::load_average(),
                    };
                    outbox.send(envelope(&beat)?).await?;
                }
            }
        }
    }
}

/// An authenticated controller asked for what it may not (a root job while it is not root or SlurmUser): nothing
/// runs, and a batch launch is answered with a failed launch so the job does not wait forever.
fn refuse(agent: &Agent, order: &ControllerToAgent, refusal: String) {
    tracing::error!(job_id = order.job_id(), "{refusal}");
    if let ControllerToAgent::Launch { job, .. } = order {
        write_failed_result(
            &agent.spool,
            job.job_id,
            Outcome::LaunchFailed { message: refusal },
            None,
            Some(job.restarts),
        );
    }
}

/// Sends every finished job's result not yet sent, and again those unacknowledged for a while.
async fn send_results(
    agent: &Arc<Agent>,
    outbox: &mpsc::Sender<pb::ApiRequest>,
    sent_results: &mut SentResults,
) -> Result<(), SessionError> {
    let finished = agent.spool.finished_jobs();
    sent_results.keep_only(&finished);
    send_due(outbox, sent_results, finished).await
}

async fn send_due(
    outbox: &mpsc::Sender<pb::ApiRequest>,
    sent_results: &mut SentResults,
    finished: impl IntoIterator<Item = JobOutcome>,
) -> Result<(), SessionError> {
    for outcome in finished {
        if sent_results.take_due(&outcome, Instant::now()) {
            outbox
                .send(envelope(&AgentToController::Finished(outcome))?)
                .await?;
        }
    }
    Ok(())
}

/// When each result still in the spool was last sent, so that it goes out once and again only while the
/// controller does not acknowledge it. Results acknowledged (their directories removed) are dropped at the next
/// spool scan, so the record stays as small as the spool however many jobs the session sees.
#[derive(Default)]
struct SentResults(HashMap<(u32, Option<u32>), Instant>);

impl SentResults {
    /// True, and noted as sent at `now`, when the result is due: never sent, or unacknowledged for
    /// [`RESULT_RESEND_AFTER`]. A new run's result is due at once, even right after the previous run's was sent.
    fn take_due(&mut self, outcome: &JobOutcome, now: Instant) -> bool {
        let key = (outcome.job_id, outcome.run);
        let due = self
            .0
            .get(&key)
            .is_none_or(|&sent| now.duration_since(sent) > RESULT_RESEND_AFTER);
        if due {
            self.0.insert(key, now);
        }
        due
    }

    /// Forgets every result but those still in the spool.
    fn keep_only(&mut self, in_spool: &[JobOutcome]) {
        let held: HashSet<(u32, Option<u32>)> =
            in_spool.iter().map(|o| (o.job_id, o.run)).collect();
        self.0.retain(|key, _| held.contains(key));
    }
}

/// The socket supervisors poke when they finish ([`WAKE_SOCKET`]). Without it (a spool we cannot write) the agent
/// still finds results by scanning, only later.
fn bind_wake_socket(spool: &JobSpool) -> Option<tokio::net::UnixDatagram> {
    let path = spool.root().join(WAKE_SOCKET);
    let _ = std::fs::remove_file(&path);
    match tokio::net::UnixDatagram::bind(&path) {
        Ok(socket) => Some(socket),
        Err(e) => {
            tracing::warn!(
                "cannot bind {}: {e}; job ends are noticed by spool scans only",
                path.display()
            );
            None
        }
    }
}

async fn recv_wake(
    socket: Option<&tokio::net::UnixDatagram>,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    match socket {
        Some(socket) => socket.recv(buf).await,
        None => std::future::pending().await,
    }
}

/// Supervisors that died without a result (kill -9, OOM killer) get one written for them, so the controller
/// learns the job is gone instead of waiting forever.
fn record_orphans(spool: &JobSpool) {
    for job_id in spool.orphaned_jobs() {
        tracing::warn!(
            job_id,
            "spurstepd vanished without a result; killing what is left of the job"
        );
        // After a reboot the recorded pid names some other process.
        let started = match spool.from_earlier_boot(job_id) {
            true => None,
            false => spur_stepd::read_started(&spool.job_dir(job_id))
                .ok()
                .flatten(),
        };
        if let Some(started) = started {
            if let Ok(pgid) = i32::try_from(started.pid) {
                // The script led its own process group; nothing else may remain once its supervisor is gone.
                let _ = nix::sys::signal::killpg(
                    nix::unistd::Pid::from_raw(pgid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
        }
        spool.remove_cgroups(job_id);
        // The directory already records its run.
        write_failed_result(spool, job_id, Outcome::Failed, Some(9), None);
    }
}

/// Starts the job's batch script under its supervisor, or records why it could not start.
pub(crate) async fn launch_job(
    agent: &Arc<Agent>,
    job: Box<spur_core::model::job::JobRecord>,
    context: spur_core::wire::agent_proto::LaunchContext,
) -> Result<(), SessionError> {
    let worker = agent.clone();
    let (job_id, run) = (job.job_id, job.restarts);
    let launched = tokio::task::spawn_blocking(move || {
        let user = users::lookup(job.spec.user_id, job.spec.group_id).map_err(|e| e.to_string())?;
        worker
            .spool
            .launch(&job, &context, &user)
            .map_err(|e| e.to_string())
    })
    .await?;
    match launched {
        Ok(_) => tracing::info!(job_id, "launched"),
        Err(message) => {
            tracing::warn!(job_id, "launch failed: {message}");
            write_failed_result(
                &agent.spool,
                job_id,
                Outcome::LaunchFailed { message },
                None,
                Some(run),
            );
        }
    }
    Ok(())
}

/// Writes a result for the job's supervisor, which cannot (never started, or vanished); `run` is recorded with it
/// when the directory does not say yet.
pub(crate) fn write_failed_result(
    spool: &JobSpool,
    job_id: u32,
    outcome: Outcome,
    signal: Option<i32>,
    run: Option<u32>,
) {
    let dir = spool.job_dir(job_id);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        tracing::error!(job_id, "cannot record the job's failure: {e}");
        return;
    }
    if let Some(run) = run.filter(|_| spool.run_of(job_id).is_none()) {
        if let Err(e) = spool.record_run(job_id, run) {
            tracing::warn!(job_id, "cannot record the job's run: {e}");
        }
    }
    let message = match &outcome {
        Outcome::LaunchFailed { message } => Some(message.clone()),
        _ => None,
    };
    let result = JobResult {
        version: PROTOCOL_VERSION,
        job_id,
        pid: None,
        wait_status: None,
        exit_code: None,
        signal,
        core_dumped: false,
        start_time: None,
        end_time: now(),
        outcome,
        message,
        epilog_failed: false,
        usage: None,
    };
    if let Err(e) = spur_stepd::files::write_json_atomic(&dir.join(RESULT_FILE), &result, 0o644) {
        tracing::error!(job_id, "cannot record the job's failure: {e}");
    }
}

pub(crate) fn now() -> EpochSecs {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spool(dir: &tempfile::TempDir) -> JobSpool {
        let root = dir.path().join("spool");
        JobSpool::new(root, "spurstepd".into(), "n1".into(), "n1".into()).unwrap()
    }

    fn outcome(job_id: u32, run: u32) -> JobOutcome {
        JobOutcome {
            job_id,
            exit_code: Some(0),
            signal: 0,
            end_time: 0,
            message: None,
            out_of_memory: false,
            prolog_failed: false,
            run: Some(run),
            epilog_failed: false,
            usage: None,
        }
    }

    #[test]
    fn results_go_out_once_again_when_unacknowledged_and_are_forgotten_once_gone() {
        let mut sent = SentResults::default();
        let at = Instant::now();
        assert!(sent.take_due(&outcome(7, 0), at));
        assert!(!sent.take_due(&outcome(7, 0), at + RESULT_RESEND_AFTER));
        // The next run of a requeued job is reported at once.
        assert!(sent.take_due(&outcome(7, 1), at));
        let later = at + RESULT_RESEND_AFTER + Duration::from_millis(1);
        assert!(sent.take_due(&outcome(7, 0), later));
        assert!(!sent.take_due(&outcome(7, 0), later));

        sent.keep_only(&[outcome(7, 1)]);
        assert_eq!(sent.0.keys().copied().collect::<Vec<_>>(), [(7, Some(1))]);
        // Forgotten means due again, should the same result turn up after all.
        assert!(sent.take_due(&outcome(7, 0), later));
    }

    fn runs(spool: &JobSpool) -> Vec<(u32, Option<u32>)> {
        spool
            .finished_jobs()
            .iter()
            .map(|o| (o.job_id, o.run))
            .collect()
    }

    #[test]
    fn a_directory_from_before_the_boot_is_orphaned_even_without_a_pid_file() {
        let dir = tempfile::tempdir().unwrap();
        // Launched in this boot, supervisor not started yet (no pid file): a launch in progress.
        let this_boot = spool(&dir).with_boot_time(now() - 60);
        std::fs::create_dir_all(this_boot.job_dir(5)).unwrap();
        this_boot.record_run(5, 0).unwrap();
        assert!(!this_boot.from_earlier_boot(5));
        assert!(this_boot.orphaned_jobs().is_empty());
        assert_eq!(this_boot.running_jobs(), vec![5]);
        // The same directory seen after a reboot (its files may have lost their unsynced contents).
        let next_boot = spool(&dir).with_boot_time(now() + 60);
        assert!(next_boot.from_earlier_boot(5));
        assert_eq!(next_boot.orphaned_jobs(), vec![5]);
        record_orphans(&next_boot);
        assert!(next_boot.orphaned_jobs().is_empty());
        assert!(next_boot.running_jobs().is_empty());
        let outcome = next_boot.finished_jobs();
        assert_eq!(outcome.len(), 1);
        assert_eq!((outcome[0].job_id, outcome[0].run), (5, Some(0)));
    }

    #[test]
    fn a_result_names_its_run_and_only_that_run_is_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let spool = spool(&dir);
        write_failed_result(&spool, 7, Outcome::Failed, Some(9), Some(2));
        assert_eq!(runs(&spool), vec![(7, Some(2))]);
        // An acknowledgement of another run (a late one, of the run before) keeps it.
        spool.forget(7, Some(1));
        assert_eq!(runs(&spool), vec![(7, Some(2))]);
        spool.forget(7, Some(2));
        assert!(runs(&spool).is_empty());
    }

    #[test]
    fn a_later_run_retires_the_unacknowledged_result_of_an_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let spool = spool(&dir);
        write_failed_result(&spool, 7, Outcome::Failed, Some(9), Some(0));
        assert!(!spool.retire_older_run(7, 0), "the same run stays");
        assert!(spool.retire_older_run(7, 1));
        assert!(runs(&spool).is_empty());
        assert!(!spool.job_dir(7).exists());
        // The terminate of a run never launched here gets a result of that run.
        write_failed_result(&spool, 7, Outcome::Failed, Some(9), Some(1));
        assert_eq!(runs(&spool), vec![(7, Some(1))]);
    }

    #[test]
    fn a_directory_without_a_run_is_never_taken_for_an_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let spool = spool(&dir);
        // As an agent that predates runs left it: nothing says which run it holds, so nothing retires it and
        // every acknowledgement removes it.
        write_failed_result(&spool, 8, Outcome::Failed, Some(9), None);
        assert_eq!(runs(&spool), vec![(8, None)]);
        assert!(!spool.retire_older_run(8, 3));
        spool.forget(8, Some(3));
        assert!(runs(&spool).is_empty());
    }
}
