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
}
