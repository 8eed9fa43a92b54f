//! Every call's identity: verified by [`spur_auth::Verifier`] (SO_PEERCRED on the local socket, MUNGE or JWT over
//! TCP), logged when refused, and answered the way slurmctld answers a failed authentication: the client reports
//! "Zero Bytes were transmitted or received".

use spur_auth::{Verifier, VerifierSettings};
use spur_core::auth::{rules, Identity};
use spur_core::wire::api::{ApiError, SlurmErrno};
use spur_core::wire::frames::Credential;
use spur_core::wire::pb;

pub struct Authenticator {
    verifier: Verifier,
    pub slurm_user_uid: u32,
    /// The uid spurctld runs as: trusted like SlurmUser for agents (see `rules::may_act_as_agent`).
    pub controller_uid: u32,
}

impl Authenticator {
    pub fn new(settings: VerifierSettings, slurm_user_uid: u32) -> Self {
        Authenticator {
            verifier: Verifier::new(settings),
            slurm_user_uid,
            controller_uid: nix::unistd::geteuid().as_raw(),
        }
    }

    pub fn verifier(&self) -> &Verifier {
        &self.verifier
    }

    /// The verified caller of `message`, sent as a call of `method`.
    pub fn authenticate<T>(
        &self,
        request: &tonic::Request<T>,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
    ) -> Result<Identity, ApiError> {
        let verified = self.verifier.verify(request, method, message, now);
        refused_as_slurm_does(verified, request.remote_addr(), method)
    }

    /// Who a request frame that came over TCP from `peer` says sent it, from its credential alone (read before
    /// the message, see `connections`); [`Authenticator::bind_frame`] ties it to the message once read.
    pub fn open_frame(
        &self,
        credential: &Credential,
        method: &str,
        now: i64,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<spur_auth::OpenedCredential, ApiError> {
        let opened = self.verifier.open_credential(credential, now);
        refused_as_slurm_does(opened, peer, method)
    }

    /// The verified caller of a request frame: its opened credential bound to its message.
    pub fn bind_frame(
        &self,
        opened: spur_auth::OpenedCredential,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<Identity, ApiError> {
        let verified = self.verifier.bind(opened, method, message, now);
        refused_as_slurm_does(verified, peer, method)
    }

    pub fn may_act_as_agent(&self, identity: &Identity) -> bool {
        rules::may_act_as_agent(identity.uid, self.slurm_user_uid, self.controller_uid)
    }

    pub fn is_privileged(&self, uid: u32) -> bool {
        rules::is_privileged(uid, self.slurm_user_uid)
    }
}

fn refused_as_slurm_does<T>(
    verified: Result<T, spur_auth::AuthError>,
    peer: Option<std::net::SocketAddr>,
    method: &str,
) -> Result<T, ApiError> {
    verified.map_err(|e| {
        let peer = peer
            .map(|a| a.to_string())
            .unwrap_or_else(|| "local socket".into());
        tracing::warn!(%peer, method, "Protocol authentication error: {e}");
        ApiError::new(SlurmErrno::ZeroBytes)
    })
}

/// The credential a [`DaemonGate`] opened from a daemon call's headers, for the service to bind to the message.
#[derive(Clone)]
pub struct DaemonCredential(pub spur_auth::OpenedCredential);

/// Stands in front of the daemons' services (agent sessions, other controllers' calls): refuses a call from its
/// headers alone, before its message (up to [`spur_core::wire::MAX_PEER_BYTES`]) is read, unless it carries a
/// MUNGE credential (or, where `local`, comes over the local socket) naming root, SlurmUser or spurctld's own
/// user. So nobody unauthenticated can make the controller buffer a large message.
#[derive(Clone)]
pub struct DaemonGate {
    pub auth: std::sync::Arc<Authenticator>,
    /// What the calls are, for logs.
    pub what: &'static str,
    /// Whether the local socket's peer credentials are taken (agents use them in the no-munged setup; the
    /// controllers always speak MUNGE over TCP).
    pub local: bool,
}

impl tonic::service::Interceptor for DaemonGate {
    fn call(
        &mut self,
        mut request: tonic::Request<()>,
    ) -> Result<tonic::Request<()>, tonic::Status> {
        let opened = self
            .auth
            .verifier
            .open_daemon(request.metadata(), request.extensions(), self.local)
            .map_err(|e| {
                let e = refused_as_slurm_does::<()>(Err(e), request.remote_addr(), self.what)
                    .err()
                    .unwrap_or_else(|| ApiError::new(SlurmErrno::ZeroBytes));
                tonic::Status::unauthenticated(e.errno.text())
            })?;
        let uid = opened.uid();
        if !rules::may_act_as_agent(uid, self.slurm_user_uid(), self.auth.controller_uid) {
            tracing::warn!(
                uid,
                what = self.what,
                "refused: only root or SlurmUser may make daemon calls"
            );
            return Err(tonic::Status::permission_denied(
                SlurmErrno::AccessDenied.text(),
            ));
        }
        request.extensions_mut().insert(DaemonCredential(opened));
        Ok(request)
    }
}

impl DaemonGate {
    fn slurm_user_uid(&self) -> u32 {
        self.auth.slurm_user_uid
    }
}

impl Authenticator {
    /// A daemon's identity: the credential its [`DaemonGate`] opened, bound to the call's (first) `message`.
    pub fn bind_daemon(
        &self,
        extensions: &tonic::Extensions,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<Identity, ApiError> {
        let opened = extensions
            .get::<DaemonCredential>()
            .map(|c| c.0.clone())
            .ok_or(spur_auth::AuthError::Missing);
        let verified = opened.and_then(|opened| self.verifier.bind(opened, method, message, now));
        refused_as_slurm_does(verified, peer, method)
    }
}
