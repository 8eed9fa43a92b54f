//! `slurmrestd`: Slurm's REST API (openapi/v0.0.38) in front of the controller. Each HTTP request is
//! authenticated as its caller (see [`auth`]), turned into the same controller calls the CLI makes (so it fails
//! over between controllers and a retried submission is applied once), and answered in slurmrestd's JSON.
//!
//! The modules: [`cmdline`] reads the command line, [`route`] names the endpoint, [`auth`] decides who the
//! caller is, one module per resource answers, [`reply`] shapes answers and errors; this file serves.

mod auth;
mod cmdline;
mod jobs;
mod nodes;
mod openapi;
mod partitions;
mod reply;
mod reservations;
mod route;
mod status;
mod submit;
mod update;

use std::sync::Arc;

use axum::body::Body;
use axum::extract::connect_info::{ConnectInfo, Connected};
use axum::extract::State;
use axum::http::{HeaderMap, Request, Response, StatusCode};
use axum::serve::IncomingStream;
use tokio::net::{TcpListener, UnixListener};

use auth::{Caller, Peer, Presented};
use cmdline::{Listen, Parsed, Settings};
use reply::Reply;
use route::Route;

/// The largest request body read (a job script and its properties).
const BODY_BYTES_MAX: usize = 16 * 1024 * 1024;

/// What every request handler shares.
struct App {
    settings: Settings,
    daemon_auth: spur_auth::ClientAuth,
    own_uid: u32,
}

pub fn run(args: &[String]) -> u8 {
    let settings = match cmdline::parse(args) {
        Ok(Parsed::Serve(settings)) => settings,
        Ok(Parsed::Print(text)) => {
            print!("{text}");
            return 0;
        }
        Err(message) => {
            eprintln!("slurmrestd: error: {message}");
            eprint!("{}", cmdline::usage());
            return 1;
        }
    };
    if let Some(conf) = &settings.conf {
        // Read by every later slurm.conf lookup; set before any thread starts.
        std::env::set_var("SLURM_CONF", conf);
    }
    let own_uid = nix::unistd::geteuid().as_raw();
    if own_uid == 0 && !security_check_disabled() {
        eprintln!(
            "slurmrestd: fatal: slurmrestd must not run as root \
             (set SLURMRESTD_SECURITY=disable_user_check to allow it)"
        );
        return 1;
    }
    let daemon_auth = spur_auth::ClientAuth::for_daemon(config_conf(), |k| std::env::var(k).ok());
    let app = Arc::new(App {
        settings,
        daemon_auth,
        own_uid,
    });
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("slurmrestd: fatal: {e}");
            return 1;
        }
    };
    match runtime.block_on(serve(app)) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("slurmrestd: fatal: {message}");
            1
        }
    }
}

fn config_conf() -> Option<&'static spur_core::grammar::conf::SlurmConf> {
    crate::config::load_slurm_conf()
}

fn security_check_disabled() -> bool {
    std::env::var("SLURMRESTD_SECURITY")
        .is_ok_and(|v| v.split(',').any(|w| w.trim() == "disable_user_check"))
}

/// Binds every listen address, then serves them all until SIGINT or SIGTERM.
async fn serve(app: Arc<App>) -> Result<(), String> {
    let router = axum::Router::new().fallback(handle).with_state(app.clone());
    let mut servers = tokio::task::JoinSet::new();
    let mut sockets = Vec::new();
    for listen in &app.settings.listen {
        let service = router.clone().into_make_service_with_connect_info::<Peer>();
        match listen {
            Listen::Tcp(address) => {
                let listener = TcpListener::bind(address)
                    .await
                    .map_err(|e| format!("unable to listen on {address}: {e}"))?;
                servers.spawn(async move { axum::serve(listener, service).await });
            }
            Listen::Unix(path) => {
                // A socket file left by an earlier run would make bind fail.
                if std::fs::symlink_metadata(path)
                    .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()))
                {
                    let _ = std::fs::remove_file(path);
                }
                let listener = UnixListener::bind(path)
                    .map_err(|e| format!("unable to listen on {}: {e}", path.display()))?;
                sockets.push(path.clone());
                servers.spawn(async move { axum::serve(listener, service).await });
            }
        }
    }
    let result = tokio::select! {
        _ = stop_signal() => Ok(()),
        Some(ended) = servers.join_next() => match ended {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(e.to_string()),
            Err(e) => Err(e.to_string()),
        },
    };
    for path in sockets {
        let _ = std::fs::remove_file(path);
    }
    result
}

async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        _ => std::future::pending().await,
    }
}

impl Connected<IncomingStream<'_, TcpListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, TcpListener>) -> Peer {
        Peer::Tcp(*stream.remote_addr())
    }
}

impl Connected<IncomingStream<'_, UnixListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, UnixListener>) -> Peer {
        let cred = stream.io().peer_cred().ok();
        let socket = stream
            .io()
            .local_addr()
            .ok()
            .and_then(|a| a.as_pathname().map(|p| p.display().to_string()));
        Peer::Unix {
            uid: cred.as_ref().map(|c| c.uid()),
            gid: cred.as_ref().map(|c| c.gid()),
            socket,
        }
    }
}

async fn handle(
    State(app): State<Arc<App>>,
    ConnectInfo(peer): ConnectInfo<Peer>,
    request: Request<Body>,
) -> Response<Body> {
    let method = request.method().as_str().to_string();
    let path = request.uri().path().to_string();
    let query = request.uri().query().map(str::to_string);
    let headers = request.headers().clone();
    if app.settings.verbose > 0 {
        eprintln!(
            "slurmrestd: operations_router: [{}] {method} {path}",
            peer.describe()
        );
    }
    let Some(caller) = authenticate(&app, peer.clone(), &headers) else {
        if app.settings.verbose > 0 {
            eprintln!(
                "slurmrestd: error: [{}] authentication failed",
                peer.describe()
            );
        }
        return respond(Reply::unauthorized());
    };
    let route = route::route(&method, &path);
    match route {
        Route::NotFound => return respond(Reply::not_found()),
        Route::MethodNotAllowed => return respond(Reply::method_not_allowed()),
        _ => {}
    }
    let body = match axum::body::to_bytes(request.into_body(), BODY_BYTES_MAX).await {
        Ok(body) => body,
        Err(_) => {
            return respond(Reply {
                status: 413,
                content_type: "text/plain",
                body: "Request body too large".into(),
            })
        }
    };
    // Controller calls block (the CLI's client): they run off the async workers.
    let answered =
        tokio::task::spawn_blocking(move || answer(&route, query.as_deref(), &body, &caller)).await;
    respond(answered.unwrap_or_else(|_| Reply {
        status: 500,
        content_type: "text/plain",
        body: "Internal error".into(),
    }))
}

fn authenticate(app: &App, peer: Peer, headers: &HeaderMap) -> Option<Caller> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let presented = Presented {
        user_name: header(auth::USER_HEADER),
        token: header(auth::TOKEN_HEADER),
    };
    auth::authenticate(
        app.settings.auth,
        peer,
        &presented,
        &app.daemon_auth,
        app.own_uid,
    )
}

fn answer(route: &Route, query: Option<&str>, body: &[u8], caller: &Caller) -> Reply {
    match route {
        Route::Ping => status::ping(caller),
        Route::Diag => status::diag(caller),
        Route::Licenses => status::licenses(caller),
        Route::Jobs => jobs::list(caller),
        Route::Job(id) => jobs::one(caller, id),
        Route::CancelJob(id) => {
            let signal = route::query_value(query, "signal");
            jobs::cancel(caller, id, signal.as_deref())
        }
        Route::UpdateJob(id) => update::update(caller, id, body),
        Route::Submit => submit::submit(caller, body),
        Route::Nodes => nodes::list(caller, None),
        Route::Node(name) => nodes::list(caller, Some(name)),
        Route::Partitions => partitions::list(caller, None),
        Route::Partition(name) => partitions::list(caller, Some(name)),
        Route::Reservations => reservations::list(caller, None),
        Route::Reservation(name) => reservations::list(caller, Some(name)),
        Route::OpenApi => Reply {
            status: 200,
            content_type: reply::JSON,
            body: openapi::document(),
        },
        Route::NotFound => Reply::not_found(),
        Route::MethodNotAllowed => Reply::method_not_allowed(),
    }
}

fn respond(reply: Reply) -> Response<Body> {
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() =
        StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Ok(value) = reply.content_type.parse() {
        response
            .headers_mut()
            .insert(axum::http::header::CONTENT_TYPE, value);
    }
    response
}
