//! Who an HTTP request acts as, the way slurmrestd's rest_auth plugins decide:
//!
//! * `rest_auth/jwt`: the `X-SLURM-USER-NAME` and `X-SLURM-USER-TOKEN` headers. The token is passed through to
//!   the controller, which verifies it and takes the user from it; this daemon holds no key and can vouch for
//!   nobody. A name that is not the token's own user makes every call fail as a bad token does.
//! * `rest_auth/local`: a Unix socket whose peer (SO_PEERCRED) is the user this daemon runs as; the daemon's own
//!   credential (MUNGE or the controller's local socket) then speaks for it.
//!
//! Anything else is refused with 401, as slurmrestd does.

use spur_auth::ClientAuth;

use super::cmdline::AuthModes;
use crate::client::{Client, ClientError};

/// The other end of an accepted connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Peer {
    Tcp(std::net::SocketAddr),
    Unix {
        uid: Option<u32>,
        gid: Option<u32>,
        /// The listening socket's path.
        socket: Option<String>,
    },
}

impl Peer {
    /// How slurmrestd names the connection in its logs and some error texts.
    pub fn describe(&self) -> String {
        match self {
            Peer::Tcp(addr) => format!("[{}]:{}", addr.ip(), addr.port()),
            Peer::Unix { socket, .. } => socket.clone().unwrap_or_else(|| "unix".into()),
        }
    }
}

pub const USER_HEADER: &str = "x-slurm-user-name";
pub const TOKEN_HEADER: &str = "x-slurm-user-token";

/// The user a request acts as, and how the controller will be shown that.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The connection, as [`Peer::describe`] names it.
    pub origin: String,
    pub user_name: String,
    pub uid: u32,
    pub gid: u32,
    auth: ClientAuth,
    /// The named user is not the token's: the controller would refuse, so every call fails the same way.
    mismatched: bool,
}

impl Caller {
    /// A controller client acting as this caller.
    pub fn client(&self) -> Result<Client, ClientError> {
        if self.mismatched {
            return Err(ClientError::Api(spur_core::wire::api::ApiError::new(
                spur_core::wire::api::SlurmErrno::ZeroBytes,
            )));
        }
        Client::with_auth(self.auth.clone())
    }
}

/// The request's credentials as received.
pub struct Presented<'a> {
    pub user_name: Option<&'a str>,
    pub token: Option<&'a str>,
}

/// `None`: refuse with 401. `daemon_auth` is this daemon's own credential, used for local callers only;
/// `own_uid` is the uid the daemon runs as.
pub fn authenticate(
    modes: AuthModes,
    peer: Peer,
    presented: &Presented<'_>,
    daemon_auth: &ClientAuth,
    own_uid: u32,
) -> Option<Caller> {
    let wants_jwt = presented.user_name.is_some() || presented.token.is_some();
    if modes.jwt && wants_jwt {
        return jwt_caller(presented, peer.describe());
    }
    if modes.local {
        if let Peer::Unix {
            uid: Some(uid),
            gid: Some(gid),
            ..
        } = peer
        {
            if uid == own_uid {
                return Some(Caller {
                    origin: peer.describe(),
                    user_name: crate::config::user_name(uid).unwrap_or_else(|| uid.to_string()),
                    uid,
                    gid,
                    auth: daemon_auth.clone(),
                    mismatched: false,
                });
            }
        }
    }
    None
}

/// Both headers are required, as slurmrestd requires them.
fn jwt_caller(presented: &Presented<'_>, origin: String) -> Option<Caller> {
    let token = presented.token.filter(|t| !t.is_empty())?;
    let user_name = presented.user_name.filter(|n| !n.is_empty())?.to_string();
    let mismatched = token_subject(token).is_some_and(|sun| sun != user_name);
    let user = nix::unistd::User::from_name(&user_name).ok().flatten();
    Some(Caller {
        origin,
        uid: user.as_ref().map_or(u32::MAX, |u| u.uid.as_raw()),
        gid: user.as_ref().map_or(u32::MAX, |u| u.gid.as_raw()),
        user_name,
        auth: ClientAuth::Jwt {
            token: token.to_string(),
        },
        mismatched,
    })
}

/// The `sun` claim of a JWT, read without checking the signature: only to compare with the name given beside
/// it. Whether the token is genuine is the controller's to decide.
pub fn token_subject(token: &str) -> Option<String> {
    use base64::Engine;
    let claims = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(claims.trim_end_matches('='))
        .ok()?;
    let value: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    value.get("sun")?.as_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOTH: AuthModes = AuthModes {
        local: true,
        jwt: true,
    };

    fn token_for(user: &str) -> String {
        let claims = spur_core::auth::jwt::Claims {
            exp: 2_000_000_000,
            iat: 1_000_000_000,
            sun: user.into(),
        };
        spur_core::auth::jwt::encode(&claims, b"key").unwrap()
    }

    fn daemon() -> ClientAuth {
        ClientAuth::Munge {
            socket: "/nonexistent".into(),
        }
    }

    #[test]
    fn jwt_headers_pass_the_token_through() {
        let token = token_for("root");
        let caller = authenticate(
            BOTH,
            Peer::Tcp("127.0.0.1:1".parse().unwrap()),
            &Presented {
                user_name: Some("root"),
                token: Some(&token),
            },
            &daemon(),
            1000,
        )
        .unwrap();
        assert_eq!(caller.user_name, "root");
        assert_eq!(caller.auth, ClientAuth::Jwt { token });
        assert!(!caller.mismatched);
    }

    #[test]
    fn another_users_name_beside_a_token_is_refused_by_every_call() {
        let token = token_for("alice");
        let caller = authenticate(
            BOTH,
            Peer::Tcp("127.0.0.1:1".parse().unwrap()),
            &Presented {
                user_name: Some("root"),
                token: Some(&token),
            },
            &daemon(),
            0,
        )
        .unwrap();
        assert!(caller.mismatched);
        assert!(matches!(caller.client(), Err(ClientError::Api(_))));
    }

    #[test]
    fn no_credentials_over_tcp_or_a_stranger_on_the_socket_are_refused() {
        let none = Presented {
            user_name: None,
            token: None,
        };
        let tcp = Peer::Tcp("127.0.0.1:1".parse().unwrap());
        assert!(authenticate(BOTH, tcp, &none, &daemon(), 0).is_none());
        let stranger = Peer::Unix {
            uid: Some(1234),
            gid: Some(1234),
            socket: None,
        };
        assert!(authenticate(BOTH, stranger, &none, &daemon(), 0).is_none());
        let me = Peer::Unix {
            uid: Some(0),
            gid: Some(0),
            socket: None,
        };
        let name_only = Presented {
            user_name: Some("root"),
            token: None,
        };
        assert!(authenticate(BOTH, me.clone(), &name_only, &daemon(), 0).is_none());
        let token = token_for("root");
        let token_only = Presented {
            user_name: None,
            token: Some(&token),
        };
        assert!(authenticate(BOTH, me.clone(), &token_only, &daemon(), 0).is_none());
        let local = authenticate(BOTH, me.clone(), &none, &daemon(), 0).unwrap();
        assert_eq!(local.auth, daemon());
        let jwt_only = AuthModes {
            local: false,
            jwt: true,
        };
        assert!(authenticate(jwt_only, me, &none, &daemon(), 0).is_none());
    }

    #[test]
    fn subject_of_a_token() {
        assert_eq!(token_subject(&token_for("bob")).as_deref(), Some("bob"));
        assert_eq!(token_subject("garbage"), None);
    }
}
