//! Which controller spurd obeys. A process that binds the controller's port (an unprivileged port, free while
//! spurctld restarts) or a leader hint pointing elsewhere must not be able to run anything here, so, as slurmd
//! takes launch and signal RPCs only with a MUNGE credential of SlurmUser or root:
//! - over TCP every order of a session carries a MUNGE credential bound to the session's nonce (sent in the Hello)
//!   and to the order's body; the agent's munged decodes it, and it must name root, SlurmUser or spurd's own uid;
//! - on the controller's local socket the kernel's peer credentials of the listening process must name one of
//!   those, checked on the connection itself;
//! - a job or step that would run as root is taken only from a controller that is root or SlurmUser;
//! - a leader hint is followed only to a configured controller, or where a trusted controller sealed the hint.
//!
//! Orders that fail these checks end the session; nothing of them runs. `spurd --simulate` runs nothing and asks
//! for no proof (agent/src/sim).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use spur_auth::client::PeerCheck;
use spur_auth::orders::{self, OrderError};
use spur_auth::ClientAuth;
use spur_core::grammar::conf::SlurmConf;
use spur_core::wire::agent_proto::ControllerToAgent;
use spur_core::wire::pb;

/// The uids whose controller spurd obeys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ControllerTrust {
    /// slurm.conf's `SlurmUser` (root when unset).
    pub slurm_user_uid: u32,
    /// The uid spurd runs as: a controller of the same user gains nothing it could not do itself (an unprivileged
    /// spurd runs only its own user's jobs), as the controller trusts an agent of its own uid.
    pub agent_uid: u32,
}

impl ControllerTrust {
    /// From slurm.conf's `SlurmUser` (a name or a uid); an unknown user is an error, as for spurctld.
    pub fn from_conf(conf: Option<&SlurmConf>) -> Result<ControllerTrust, String> {
        let name = conf.map(|c| c.slurm_user()).unwrap_or("root");
        let slurm_user_uid = match name.parse::<u32>() {
            Ok(uid) => uid,
            Err(_) => nix::unistd::User::from_name(name)
                .ok()
                .flatten()
                .map(|u| u.uid.as_raw())
                .ok_or_else(|| format!("Invalid user for SlurmUser {name}"))?,
        };
        Ok(ControllerTrust {
            slurm_user_uid,
            agent_uid: nix::unistd::geteuid().as_raw(),
        })
    }

    /// Whether orders sealed by `uid` are obeyed at all.
    pub fn trusts(&self, uid: u32) -> bool {
        uid == 0 || uid == self.slurm_user_uid || uid == self.agent_uid
    }

    /// Whether a controller running as `uid` may have a job or step run as root here.
    pub fn may_order_root_jobs(&self, uid: u32) -> bool {
        uid == 0 || uid == self.slurm_user_uid
    }

    /// Why `order`, from a controller running as `controller_uid`, must not run here: a job or step as root from
    /// a controller that is not root or SlurmUser, or a step whose uid is not its job's.
    pub fn refusal(&self, order: &ControllerToAgent, controller_uid: u32) -> Option<String> {
        let root_refused = || {
            format!(
                "Security violation: a job as uid 0 ordered by uid {controller_uid}, neither root nor SlurmUser"
            )
        };
        match order {
            // The job's uid is the one its submitter's credential proved to the controller: 0 only for root.
            ControllerToAgent::Launch { job, .. }
                if job.spec.user_id == 0 && !self.may_order_root_jobs(controller_uid) =>
            {
                Some(root_refused())
            }
            ControllerToAgent::LaunchStep { launch, job, .. } => {
                if let Some(job) = job.as_ref().filter(|j| j.spec.user_id != launch.uid) {
                    return Some(format!(
                        "Security violation: step of job {} as uid {} but the job belongs to uid {}",
                        launch.job_id, launch.uid, job.spec.user_id
                    ));
                }
                (launch.uid == 0 && !self.may_order_root_jobs(controller_uid)).then(root_refused)
            }
            _ => None,
        }
    }

    /// The local-socket check: the listening process must be trusted; its uid is kept in `seen`.
    pub fn peer_check(self, seen: Arc<AtomicU32>) -> PeerCheck {
        Arc::new(move |uid| {
            seen.store(uid, Ordering::Relaxed);
            self.trusts(uid)
        })
    }
}

/// How one session's orders are proved.
pub enum SessionProof {
    /// MUNGE over TCP: each order sealed for `nonce`, decoded by the munged at `socket`.
    Munge { socket: String, nonce: String },
    /// The controller's local socket, whose listener's uid the connection's check recorded.
    Local { peer_uid: Arc<AtomicU32> },
}

impl SessionProof {
    /// A new session's proof for an agent that authenticates with `auth`.
    pub fn new(auth: &ClientAuth) -> std::io::Result<SessionProof> {
        Ok(match auth {
            ClientAuth::Local { .. } => SessionProof::Local {
                peer_uid: Arc::new(AtomicU32::new(u32::MAX)),
            },
            // spurd never uses a JWT (ClientAuth::for_daemon); were it given one, orders still need MUNGE.
            ClientAuth::Munge { socket } => SessionProof::Munge {
                socket: socket.clone(),
                nonce: orders::new_nonce()?,
            },
            ClientAuth::Jwt { .. } => SessionProof::Munge {
                socket: spur_core::auth::params::munge_socket(None),
                nonce: orders::new_nonce()?,
            },
        })
    }

    /// The nonce the Hello carries, asking the controller to seal this session's orders.
    pub fn nonce(&self) -> Option<&str> {
        match self {
            SessionProof::Munge { nonce, .. } => Some(nonce),
            SessionProof::Local { .. } => None,
        }
    }

    /// The uid of the controller that sent `reply`, proved; an error for an order that must be refused.
    pub fn check(&self, reply: &pb::ApiReply, trust: &ControllerTrust) -> Result<u32, OrderError> {
        match self {
            SessionProof::Munge { socket, nonce } => {
                orders::verify_order(socket, nonce, reply, |uid| trust.trusts(uid))
            }
            SessionProof::Local { peer_uid } => {
                // The connection was refused unless the listener's uid was trusted; checked again in case none was
                // recorded.
                let uid = peer_uid.load(Ordering::Relaxed);
                match trust.trusts(uid) {
                    true => Ok(uid),
                    false => Err(OrderError::Untrusted(uid)),
                }
            }
        }
    }

    /// The local-socket check for this session's connection.
    pub fn peer_check(&self, trust: ControllerTrust) -> Option<PeerCheck> {
        match self {
            SessionProof::Local { peer_uid } => Some(trust.peer_check(peer_uid.clone())),
            SessionProof::Munge { .. } => None,
        }
    }

    /// Whether a follower's hint naming `addr` (host:port) may be followed to a controller not configured here:
    /// only when a trusted controller sealed it for this session.
    pub fn hint_is_sealed(
        &self,
        addr: &str,
        credential: Option<&str>,
        trust: &ControllerTrust,
    ) -> Result<u32, OrderError> {
        match (self, credential) {
            (SessionProof::Munge { socket, nonce }, Some(credential)) => {
                orders::verify_hint(socket, nonce, addr, credential, |uid| trust.trusts(uid))
            }
            _ => Err(OrderError::Missing),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::model::job::JobRecord;

    fn trust() -> ControllerTrust {
        ControllerTrust {
            slurm_user_uid: 450,
            agent_uid: 0,
        }
    }

    fn launch(uid: u32) -> ControllerToAgent {
        let mut job = JobRecord::pending(1, Default::default(), "p".into(), 0, 1);
        job.spec.user_id = uid;
        ControllerToAgent::Launch {
            job: Box::new(job),
            context: Default::default(),
        }
    }

    #[test]
    fn only_root_slurm_user_and_spurds_own_uid_are_obeyed() {
        let trust = ControllerTrust {
            slurm_user_uid: 450,
            agent_uid: 1000,
        };
        assert!(trust.trusts(0) && trust.trusts(450) && trust.trusts(1000));
        assert!(!trust.trusts(1001));
        assert!(trust.may_order_root_jobs(0) && trust.may_order_root_jobs(450));
        assert!(!trust.may_order_root_jobs(1000));
    }

    #[test]
    fn root_jobs_need_a_root_or_slurm_user_controller() {
        let trust = ControllerTrust {
            slurm_user_uid: 450,
            agent_uid: 1000,
        };
        assert_eq!(trust.refusal(&launch(0), 0), None);
        assert_eq!(trust.refusal(&launch(0), 450), None);
        assert!(trust.refusal(&launch(0), 1000).is_some());
        assert_eq!(trust.refusal(&launch(1000), 1000), None);
        assert_eq!(self::trust().refusal(&launch(5), 0), None);
    }
}
