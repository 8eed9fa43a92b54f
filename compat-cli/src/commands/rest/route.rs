//! Which v0.0.38 endpoint a request names. Pure, so the path table is tested without a server.

pub const PREFIX: &str = "/slurm/v0.0.38/";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Ping,
    Diag,
    Jobs,
    Job(String),
    UpdateJob(String),
    CancelJob(String),
    Submit,
    Nodes,
    Node(String),
    Partitions,
    Partition(String),
    Reservations,
    Reservation(String),
    Licenses,
    /// The OpenAPI description of what this server answers.
    OpenApi,
    /// A known path, but not with this method.
    MethodNotAllowed,
    NotFound,
}

const METHODS: [&str; 3] = ["GET", "POST", "DELETE"];

pub fn route(method: &str, path: &str) -> Route {
    match route_method(method, path) {
        Route::NotFound
            if METHODS
                .iter()
                .any(|m| route_method(m, path) != Route::NotFound) =>
        {
            Route::MethodNotAllowed
        }
        found => found,
    }
}

fn route_method(method: &str, path: &str) -> Route {
    let path = path.split('?').next().unwrap_or(path);
    // slurmrestd takes `/jobs/` as `/jobs`.
    let path = match path.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed,
        _ => path,
    };
    if matches!(
        path,
        "/openapi" | "/openapi/v3" | "/openapi.json" | "/openapi.yaml"
    ) {
        return if method == "GET" {
            Route::OpenApi
        } else {
            Route::NotFound
        };
    }
    let Some(rest) = path.strip_prefix(PREFIX) else {
        return Route::NotFound;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let name = |s: &str| s.to_string();
    match (method, parts.as_slice()) {
        ("GET", ["ping"]) => Route::Ping,
        ("GET", ["diag"]) => Route::Diag,
        ("GET", ["jobs"]) => Route::Jobs,
        ("POST", ["job", "submit"]) => Route::Submit,
        ("GET", ["job", id]) if !id.is_empty() => Route::Job(name(id)),
        ("POST", ["job", id]) if !id.is_empty() => Route::UpdateJob(name(id)),
        ("DELETE", ["job", id]) if !id.is_empty() => Route::CancelJob(name(id)),
        ("GET", ["nodes"]) => Route::Nodes,
        ("GET", ["node", n]) if !n.is_empty() => Route::Node(name(n)),
        ("GET", ["partitions"]) => Route::Partitions,
        ("GET", ["partition", p]) if !p.is_empty() => Route::Partition(name(p)),
        ("GET", ["reservations"]) => Route::Reservations,
        ("GET", ["reservation", r]) if !r.is_empty() => Route::Reservation(name(r)),
        ("GET", ["licenses"]) => Route::Licenses,
        _ => Route::NotFound,
    }
}

/// The value of `key` in a query string (`a=1&b=2`), `+` and `%XX` decoded.
pub fn query_value(query: Option<&str>, key: &str) -> Option<String> {
    query?.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| percent_decode(v))
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match hex(bytes[i + 1]).zip(hex(bytes[i + 2])) {
                Some((high, low)) => {
                    out.push(high * 16 + low);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(digit: u8) -> Option<u8> {
    (digit as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(route("GET", "/slurm/v0.0.38/ping"), Route::Ping);
        assert_eq!(
            route("GET", "/slurm/v0.0.38/jobs?update_time=5"),
            Route::Jobs
        );
        assert_eq!(route("POST", "/slurm/v0.0.38/job/submit"), Route::Submit);
        assert_eq!(
            route("GET", "/slurm/v0.0.38/job/12"),
            Route::Job("12".into())
        );
        assert_eq!(
            route("DELETE", "/slurm/v0.0.38/job/12"),
            Route::CancelJob("12".into())
        );
        assert_eq!(
            route("GET", "/slurm/v0.0.38/node/n1"),
            Route::Node("n1".into())
        );
        assert_eq!(route("GET", "/openapi/v3"), Route::OpenApi);
    }

    #[test]
    fn unknown_paths_old_versions_and_dbv_are_not_found() {
        for (method, path) in [
            ("GET", "/slurm/v0.0.38/nosuch"),
            ("GET", "/slurm/v0.0.37/ping"),
            ("GET", "/slurmdb/v0.0.38/jobs"),
            ("GET", "/slurm/v0.0.38/job/"),
            ("GET", "/"),
        ] {
            assert_eq!(route(method, path), Route::NotFound, "{method} {path}");
        }
    }

    #[test]
    fn known_paths_with_other_methods_and_trailing_slashes() {
        assert_eq!(route("PUT", "/slurm/v0.0.38/ping"), Route::MethodNotAllowed);
        assert_eq!(
            route("POST", "/slurm/v0.0.38/ping"),
            Route::MethodNotAllowed
        );
        assert_eq!(route("GET", "/slurm/v0.0.38/jobs/"), Route::Jobs);
    }

    #[test]
    fn query_values() {
        assert_eq!(
            query_value(Some("a=1&signal=SIGTERM"), "signal").as_deref(),
            Some("SIGTERM")
        );
        assert_eq!(query_value(Some("x=%41b+c"), "x").as_deref(), Some("Ab c"));
        assert_eq!(query_value(Some("x=%4"), "x").as_deref(), Some("%4"));
        assert_eq!(query_value(None, "x"), None);
    }
}
