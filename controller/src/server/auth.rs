//! Every call's identity: verified by [`spur_auth::Verifier`] (SO_PEERCRED on the local socket, MUNGE or JWT over
//! TCP), logged when refused, and answered the way slurmctld answers a failed authentication: the client reports
//! "Zero Bytes were transmitted or received".

use spur_auth::{Verifier, VerifierSettings};
use spur_core::api::{ApiError, SlurmErrno};
use spur_core::auth::{rules, Identity};
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

    /// The verified caller of a request frame that came over TCP from `peer`.
    pub fn authenticate_frame(
        &self,
        credential: &Credential,
        method: &str,
        message: &pb::ApiRequest,
        now: i64,
        peer: Option<std::net::SocketAddr>,
    ) -> Result<Identity, ApiError> {
        let verified = self
            .verifier
            .verify_credential(credential, method, message, now);
        refused_as_slurm_does(verified, peer, method)
    }

    pub fn may_act_as_agent(&self, identity: &Identity) -> bool {
        rules::may_act_as_agent(identity.uid, self.slurm_user_uid, self.controller_uid)
    }

    pub fn is_privileged(&self, uid: u32) -> bool {
        rules::is_privileged(uid, self.slurm_user_uid)
    }
}

fn refused_as_slurm_does(
    verified: Result<Identity, spur_auth::AuthError>,
    peer: Option<std::net::SocketAddr>,
    method: &str,
) -> Result<Identity, ApiError> {
    verified.map_err(|e| {
        let peer = peer
            .map(|a| a.to_string())
            .unwrap_or_else(|| "local socket".into());
        tracing::warn!(%peer, method, "Protocol authentication error: {e}");
        ApiError::new(SlurmErrno::ZeroBytes)
    })
}
