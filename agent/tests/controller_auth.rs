//! spurd obeys only a real controller: a fake controller (a gRPC AgentLink server in this test, on the port spurd
//! was told is its controller's) sends orders without a credential, with a normal user's, or with one sealed for
//! another session, and spurd must run nothing and write nothing; sealed by root for the session, the same order
//! runs. A follower's leader hint to an unconfigured address is followed only when a trusted controller sealed it.
//! Real spurd, real spurstepd, a private munged.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use spur_auth::testing::PrivateMunged;
use spur_core::model::job::{JobRecord, JobSpec};
use spur_core::wire::agent_proto::{AgentToController, ControllerToAgent};
use spur_core::wire::{from_doc, pb, to_doc};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

/// A bound on waiting for what must happen (spurd connects, refuses, reports); never a speed assertion.
const EVENT_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug)]
enum Event {
    /// Server `server`'s session number `session` began with a Hello carrying `nonce`.
    Hello {
        server: &'static str,
        session: u32,
        nonce: Option<String>,
    },
    Report {
        server: &'static str,
        report: AgentToController,
    },
    Closed {
        server: &'static str,
        session: u32,
    },
}

/// What a fake controller answers session `n`, given the agent's nonce: orders to send, or a refusal.
type Plan = Arc<dyn Fn(u32, Option<&str>) -> Result<Vec<pb::ApiReply>, Status> + Send + Sync>;

struct FakeController {
    name: &'static str,
    sessions: AtomicU32,
    events: mpsc::UnboundedSender<Event>,
    plan: Plan,
}

type Replies = Pin<Box<dyn Stream<Item = Result<pb::ApiReply, Status>> + Send>>;

#[tonic::async_trait]
impl pb::agent_link_server::AgentLink for FakeController {
    type SessionStream = Replies;

    async fn session(
        &self,
        request: Request<Streaming<pb::ApiRequest>>,
    ) -> Result<Response<Replies>, Status> {
        let mut inbound = request.into_inner();
        let session = self.sessions.fetch_add(1, Ordering::SeqCst);
        let first = inbound
            .next()
            .await
            .ok_or_else(|| Status::aborted("no hello"))??;
        let nonce = match from_doc::<AgentToController>(first.body.as_ref()) {
            Ok(AgentToController::Hello(hello)) => hello.session_nonce,
            _ => return Err(Status::invalid_argument("no hello")),
        };
        let _ = self.events.send(Event::Hello {
            server: self.name,
            session,
            nonce: nonce.clone(),
        });
        let replies = (self.plan)(session, nonce.as_deref())?;
        let (sender, receiver) = mpsc::channel(16);
        for reply in replies {
            let _ = sender.send(Ok(reply)).await;
        }
        let (events, name) = (self.events.clone(), self.name);
        tokio::spawn(async move {
            // The outbound side stays open while the agent keeps its side open: only the agent ends the session.
            let _keep = sender;
            while let Some(Ok(message)) = inbound.next().await {
                if let Ok(report) = from_doc::<AgentToController>(message.body.as_ref()) {
                    let _ = events.send(Event::Report {
                        server: name,
                        report,
                    });
                }
            }
            let _ = events.send(Event::Closed {
                server: name,
                session,
            });
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(receiver))))
    }
}

/// Serves `controller` on a fresh port of 127.0.0.1; returns host:port.
async fn serve(controller: FakeController) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(pb::agent_link_server::AgentLinkServer::new(controller))
            .serve_with_incoming(incoming)
            .await
    });
    addr
}

/// spurd, killed by PID when dropped.
struct Spurd(Child);

impl Drop for Spurd {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

struct Setup {
    dir: tempfile::TempDir,
    munged: PrivateMunged,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let munged = PrivateMunged::start(&dir.path().join("munge"))
            .expect("start a private munged (needs the munge package)");
        Setup { dir, munged }
    }

    fn spool(&self) -> PathBuf {
        self.dir.path().join("spool")
    }

    fn marker(&self, job_id: u32) -> PathBuf {
        self.dir.path().join(format!("ran-{job_id}"))
    }

    /// spurd of node n1 whose only configured controller is `controller` (host:port).
    fn spurd(&self, controller: &str) -> Spurd {
        let conf = self.dir.path().join("slurm.conf");
        let port = controller
            .rsplit_once(':')
            .map(|(_, p)| p)
            .unwrap_or("6817");
        std::fs::write(
            &conf,
            format!(
                "ClusterName=t\nSlurmctldHost=fake(127.0.0.1)\nSlurmctldPort={port}\nAuthType=auth/munge\n\
                 AuthInfo=socket={}\nNodeName=n1 CPUs=1 RealMemory=100\nPartitionName=p Nodes=n1 Default=YES\n",
                self.munged.socket_str()
            ),
        )
        .unwrap();
        let spurd = PathBuf::from(env!("CARGO_BIN_EXE_spurd"));
        let stepd = spurd.with_file_name("spurstepd");
        assert!(
            stepd.exists(),
            "spurstepd is not built in {}: run `cargo build --workspace` first (test.sh does)",
            stepd.display()
        );
        let log = std::fs::File::create(self.dir.path().join("spurd.log")).unwrap();
        let child = Command::new(spurd)
            .arg("-f")
            .arg(&conf)
            .args(["-N", "n1", "--controller", &format!("http://{controller}")])
            .arg("--spool")
            .arg(self.spool())
            .arg("--stepd")
            .arg(&stepd)
            .env_remove("SPUR_LOCAL_SOCKET")
            .env("SPUR_LOG", "info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start spurd");
        Spurd(child)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("spurd.log")).unwrap_or_default()
    }

    /// A Launch of a root job whose script leaves a marker file.
    fn launch(&self, job_id: u32) -> pb::ApiReply {
        let spec = JobSpec {
            name: format!("job{job_id}"),
            user_id: 0,
            group_id: 0,
            user_name: "root".into(),
            nodes_min: 1,
            cpus_per_task: 1,
            work_dir: self.dir.path().display().to_string(),
            script: Some(format!(
                "#!/bin/sh\ntouch {}\n",
                self.marker(job_id).display()
            )),
            ..Default::default()
        };
        let job = JobRecord::pending(job_id, spec, "p".into(), 0, 1);
        let order = ControllerToAgent::Launch {
            job: Box::new(job),
            context: Default::default(),
        };
        pb::ApiReply {
            body: Some(to_doc(&order).unwrap()),
            ..Default::default()
        }
    }

    /// `payload` sealed by munged as `uid` (root may ask munged for any uid), through the real `munge` tool.
    fn munge_as(&self, uid: u32, payload: &[u8]) -> String {
        let out = Command::new("munge")
            .arg(format!("--socket={}", self.munged.socket_str()))
            .arg(format!("--uid={uid}"))
            .arg(format!("--gid={uid}"))
            .arg("--string")
            .arg(String::from_utf8_lossy(payload).as_ref())
            .output()
            .expect("munge");
        assert!(
            out.status.success(),
            "munge: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

async fn next(events: &mut mpsc::UnboundedReceiver<Event>, setup: &Setup) -> Event {
    match tokio::time::timeout(EVENT_TIMEOUT, events.recv()).await {
        Ok(Some(event)) => event,
        _ => panic!(
            "spurd did not do what was expected; its log:\n{}",
            setup.log()
        ),
    }
}

fn is_root() -> bool {
    nix::unistd::geteuid().is_root()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_not_sealed_by_root_for_the_session_run_nothing() {
    if !is_root() {
        // Sealing as another uid (munge --uid) and running a root job need root, as the cluster tests do.
        eprintln!("skipped: needs root");
        return;
    }
    let setup = Arc::new(Setup::new());
    let (events, mut received) = mpsc::unbounded_channel();
    let plan_setup = setup.clone();
    // Each session gets one Launch; only the last is sealed as it must be.
    let plan: Plan = Arc::new(move |session, nonce| {
        let setup = &plan_setup;
        let nonce = nonce.unwrap_or("");
        let job_id = session + 1;
        let mut order = setup.launch(job_id);
        match session {
            // No credential at all (what any process on the port sends).
            0 => {}
            // A normal user's credential, bound to this very session and order.
            1 => {
                order.credential =
                    setup.munge_as(1234, &spur_auth::orders::order_payload(nonce, &order))
            }
            // Root's, but sealed for another session (a captured order played again).
            2 => {
                order.credential =
                    setup.munge_as(0, &spur_auth::orders::order_payload("other", &order))
            }
            _ => spur_auth::orders::seal_order(&setup.munged.socket_str(), nonce, &mut order)
                .unwrap(),
        }
        Ok(vec![order])
    });
    let fake = FakeController {
        name: "fake",
        sessions: AtomicU32::new(0),
        events,
        plan,
    };
    let addr = serve(fake).await;
    let _spurd = setup.spurd(&addr);

    for session in 0..3 {
        let nonce = match next(&mut received, &setup).await {
            Event::Hello { nonce, .. } => nonce,
            other => panic!("expected a Hello, got {other:?}"),
        };
        // spurd refuses the order by ending the session, having reported nothing about it (a heartbeat is the
        // node's periodic telemetry, not an answer to the order: one falls due here when the machine is busy)...
        let refusal = loop {
            match next(&mut received, &setup).await {
                Event::Report {
                    report: AgentToController::Heartbeat { .. },
                    ..
                } => continue,
                other => break other,
            }
        };
        match refusal {
            Event::Closed { session: s, server } => assert_eq!((server, s), ("fake", session)),
            other => panic!("session {session}: expected spurd to refuse, got {other:?}"),
        }
        // ...and it had asked for sealed orders.
        assert!(nonce.is_some(), "no nonce in the Hello");
        let job_id = session + 1;
        assert!(
            !setup.spool().join(job_id.to_string()).exists(),
            "spurd wrote job {job_id}'s directory for an unproved order"
        );
    }
    // The same order, sealed by root for the session: it runs and its result comes back.
    match next(&mut received, &setup).await {
        Event::Hello { session: 3, .. } => {}
        other => panic!("expected a fourth session, got {other:?}"),
    }
    loop {
        match next(&mut received, &setup).await {
            Event::Report {
                report: AgentToController::Finished(outcome),
                server,
            } => {
                assert_eq!((server, outcome.job_id), ("fake", 4));
                assert_eq!(outcome.exit_code, Some(0), "{}", setup.log());
                break;
            }
            Event::Report { .. } => {}
            other => panic!("expected job 4 to run, got {other:?}"),
        }
    }
    assert!(setup.marker(4).exists(), "the sealed job ran");
    for job_id in 1..=3 {
        assert!(!setup.marker(job_id).exists(), "job {job_id} ran");
    }
    let log = setup.log();
    assert!(log.contains("without a credential"), "{log}");
    assert!(log.contains("uid 1234"), "{log}");
    assert!(log.contains("another message or session"), "{log}");
}

/// Where spurd went after `a` refused it: each session's server, in order.
async fn sessions_until(
    received: &mut mpsc::UnboundedReceiver<Event>,
    setup: &Setup,
    until: &'static str,
) -> Vec<&'static str> {
    let mut seen = Vec::new();
    loop {
        if let Event::Hello { server, .. } = next(received, setup).await {
            seen.push(server);
            if server == until {
                return seen;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_hint_leads_only_to_a_configured_or_vouched_for_controller() {
    let setup = Arc::new(Setup::new());
    let (events, mut received) = mpsc::unbounded_channel();
    let elsewhere: Plan = Arc::new(|_, _| Ok(Vec::new()));
    let b = FakeController {
        name: "b",
        sessions: AtomicU32::new(0),
        events: events.clone(),
        plan: elsewhere,
    };
    let b_addr = serve(b).await;
    let (hint_setup, hinted) = (setup.clone(), b_addr.clone());
    // `a`, the configured controller, turns spurd away twice naming `b` as the leader: first plainly (what a
    // process holding a's port can say), then with the hint sealed by root for the session.
    let refuse: Plan = Arc::new(move |session, nonce| {
        let mut status = Status::unavailable("this controller is not the leader");
        let metadata = status.metadata_mut();
        metadata.insert(
            spur_core::model::controllers::LEADER_HINT_HEADER,
            hinted.parse().unwrap(),
        );
        if session > 0 {
            let payload = spur_auth::orders::hint_payload(nonce.unwrap_or(""), &hinted);
            let credential =
                spur_auth::munge::encode(&hint_setup.munged.socket_str(), &payload).unwrap();
            metadata.insert(
                spur_auth::orders::LEADER_HINT_CREDENTIAL_HEADER,
                credential.parse().unwrap(),
            );
        }
        Err(status)
    });
    let a = FakeController {
        name: "a",
        sessions: AtomicU32::new(0),
        events,
        plan: refuse,
    };
    let a_addr = serve(a).await;
    let _spurd = setup.spurd(&a_addr);
    // The plain hint is not followed: spurd comes back to `a`; the sealed one is.
    assert_eq!(
        sessions_until(&mut received, &setup, "b").await,
        ["a", "a", "b"],
        "{}",
        setup.log()
    );
    assert!(
        setup
            .log()
            .contains(&format!("not following the leader hint to {b_addr}")),
        "{}",
        setup.log()
    );
}
