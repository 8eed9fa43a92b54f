//! slurm.conf's authentication settings: `AuthInfo` (`socket=`, `ttl=` for auth/munge) and `AuthAltParameters`
//! (`jwt_key=`), both comma-separated `key=value` lists.

/// Slurm's default munged socket.
pub const DEFAULT_MUNGE_SOCKET: &str = "/run/munge/munge.socket.2";
/// `scontrol token` without `lifespan=`: what Slurm 22.05 issues (exp - iat of a real token).
pub const DEFAULT_TOKEN_LIFESPAN_SECS: u32 = 1800;

/// The value of `key` in a `k=v,k=v` list (keys match in any case).
pub fn option<'a>(list: Option<&'a str>, key: &str) -> Option<&'a str> {
    list?
        .split(',')
        .filter_map(|item| item.split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case(key))
        .map(|(_, v)| v.trim())
}

/// munged's socket: `AuthInfo=socket=...`, else Slurm's default.
pub fn munge_socket(auth_info: Option<&str>) -> String {
    option(auth_info, "socket")
        .unwrap_or(DEFAULT_MUNGE_SOCKET)
        .to_string()
}

/// The HS256 key file: `AuthAltParameters=jwt_key=...`, only where `AuthAltTypes` lists auth/jwt.
pub fn jwt_key_path<'a>(alt_types: &[&str], alt_parameters: Option<&'a str>) -> Option<&'a str> {
    if !alt_types.iter().any(|t| t.eq_ignore_ascii_case("auth/jwt")) {
        return None;
    }
    option(alt_parameters, "jwt_key")
}

/// Shortest `jwt_key` accepted: HS256's key should be as long as its hash (RFC 7518 3.2: at least 256 bits), and
/// Slurm's documentation makes one of 32 random bytes.
pub const JWT_KEY_LEN_MIN: usize = 32;

/// Why a `jwt_key` file must not be used: shorter than [`JWT_KEY_LEN_MIN`], open to group or others (anyone who
/// reads it can mint a token for root), or owned by someone other than `owners` (root, SlurmUser, the
/// controller's own user), who could replace it. Slurm 22.05 checks none of this (it only fails on an unreadable
/// file); its documentation asks for the same (`chmod 0600`, owned by SlurmUser).
pub fn jwt_key_fault(len: usize, mode: u32, owner: u32, owners: &[u32]) -> Option<String> {
    if mode & 0o077 != 0 {
        return Some(format!(
            "is open to group or others (mode {:04o}); chmod 0600 it",
            mode & 0o7777
        ));
    }
    if !owners.contains(&owner) {
        return Some(format!(
            "is owned by uid {owner}, not by root or SlurmUser; chown it"
        ));
    }
    if len < JWT_KEY_LEN_MIN {
        return Some(format!(
            "holds {len} bytes; an HS256 key needs at least {JWT_KEY_LEN_MIN} random bytes"
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_options() {
        assert_eq!(munge_socket(None), DEFAULT_MUNGE_SOCKET);
        assert_eq!(
            munge_socket(Some("ttl=60, Socket=/tmp/m.sock")),
            "/tmp/m.sock"
        );
        assert_eq!(jwt_key_path(&["auth/jwt"], Some("jwt_key=/k")), Some("/k"));
        assert_eq!(jwt_key_path(&[], Some("jwt_key=/k")), None);
        assert_eq!(option(Some("a,b=1"), "a"), None);
    }

    #[test]
    fn jwt_key_faults() {
        assert_eq!(jwt_key_fault(32, 0o100600, 0, &[0]), None);
        assert_eq!(jwt_key_fault(64, 0o400, 5, &[0, 5]), None);
        assert!(jwt_key_fault(31, 0o600, 0, &[0]).is_some_and(|f| f.contains("31 bytes")));
        assert!(jwt_key_fault(32, 0o640, 0, &[0]).is_some_and(|f| f.contains("0640")));
        assert!(jwt_key_fault(32, 0o602, 0, &[0]).is_some());
        assert!(jwt_key_fault(32, 0o600, 7, &[0, 5]).is_some_and(|f| f.contains("uid 7")));
    }
}
