//! slurmrestd against a real single-node cluster: the v0.0.38 endpoints over a Unix socket with rest_auth/local
//! and over TCP with rest_auth/jwt, checked against what the CLI sees of the same records, and the refusals
//! (no token, a bad token, another user's name, a stranger on the socket) answered as Slurm answers them.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::rest::{request, HttpReply, RestDaemon, Target};
use common::{bin_dir, Cluster, ClusterOptions};
use serde_json::Value;

const V: &str = "/slurm/v0.0.38";

fn get(target: &Target, path: &str, headers: &[(&str, &str)]) -> HttpReply {
    request(target, "GET", path, headers, None).expect("GET")
}

fn submit_body(name: &str, dir: &str, command: &str) -> String {
    serde_json::json!({
        "script": format!("#!/bin/sh\n{command}\n"),
        "job": {
            "name": name,
            "partition": "debug",
            "time_limit": 5,
            "current_working_directory": dir,
            "standard_output": format!("{dir}/rest-%j.out"),
            "environment": {"PATH": "/bin:/usr/bin", "REST_TEST": "yes"}
        }
    })
    .to_string()
}

/// The one error entry of a failed v0.0.38 answer.
fn only_error(reply: &HttpReply) -> Value {
    assert_eq!(reply.status, 500, "{}", reply.body);
    let json = reply.json();
    let errors = json["errors"].as_array().expect("errors").clone();
    assert_eq!(errors.len(), 1, "{}", reply.body);
    errors[0].clone()
}

fn assert_meta(json: &Value) {
    assert_eq!(json["meta"]["plugin"]["type"], "openapi/v0.0.38");
    assert_eq!(json["meta"]["Slurm"]["release"], "22.05.8");
}

#[test]
fn local_socket_serves_the_cluster_as_the_cli_sees_it() {
    let cluster = Cluster::start();
    let rest = RestDaemon::start(
        &bin_dir(),
        &cluster.conf,
        cluster.dir.path(),
        &["-a", "rest_auth/local", "-s", "openapi/v0.0.38"],
    );
    let sock = rest.unix();

    let ping = get(&sock, &format!("{V}/ping"), &[]);
    assert_eq!(ping.status, 200, "{}", ping.body);
    let json = ping.json();
    assert_meta(&json);
    assert_eq!(json["errors"], serde_json::json!([]));
    assert_eq!(json["pings"][0]["ping"], "UP");
    assert_eq!(json["pings"][0]["mode"], "primary");
    // json-c's layout, as slurmrestd writes it.
    assert!(ping.body.contains("\"openapi\\/v0.0.38\""), "{}", ping.body);

    // Local auth is for the socket only: TCP without a token is refused.
    let refused = get(&rest.tcp(), &format!("{V}/ping"), &[]);
    assert_eq!(
        (refused.status, refused.body.as_str()),
        (401, "Authentication failure")
    );

    let nodes = get(&sock, &format!("{V}/nodes"), &[]).json();
    assert_eq!(nodes["nodes"][0]["name"], cluster.node.as_str());
    assert_eq!(nodes["nodes"][0]["cpus"], 2);
    assert_eq!(nodes["nodes"][0]["state"], "idle");
    let node = get(&sock, &format!("{V}/node/{}", cluster.node), &[]).json();
    assert_eq!(node["nodes"].as_array().map(Vec::len), Some(1));
    let missing = only_error(&get(&sock, &format!("{V}/node/nosuch"), &[]));
    assert_eq!(
        missing,
        serde_json::json!({"error": "Invalid node name specified", "errno": 2018})
    );

    let partitions = get(&sock, &format!("{V}/partitions"), &[]).json();
    let debug = &partitions["partitions"][0];
    assert_eq!(debug["name"], "debug");
    assert_eq!(debug["flags"], serde_json::json!(["default"]));
    assert_eq!(debug["total_cpus"], 2);
    assert_eq!(debug["total_nodes"], 1);
    assert_eq!(debug["max_time_limit"], -1);
    let missing = only_error(&get(&sock, &format!("{V}/partition/nosuch"), &[]));
    assert_eq!(missing["errno"], 2000);

    let reservations = get(&sock, &format!("{V}/reservations"), &[]);
    assert_eq!(reservations.status, 200);
    assert_eq!(reservations.json()["reservations"], serde_json::json!([]));

    // Submit, read back, cancel: the same job scontrol shows.
    let dir = cluster.dir.path().display().to_string();
    let body = submit_body("restjob", &dir, "echo $REST_TEST; sleep 300");
    let submitted =
        request(&sock, "POST", &format!("{V}/job/submit"), &[], Some(&body)).expect("submit");
    assert_eq!(submitted.status, 200, "{}", submitted.body);
    let submitted = submitted.json();
    assert_eq!(submitted["step_id"], "BATCH");
    let job_id = submitted["job_id"].as_u64().expect("job id") as u32;
    assert_eq!(cluster.job_field(job_id, "JobName"), "restjob");
    assert_eq!(cluster.job_field(job_id, "TimeLimit"), "00:05:00");
    cluster.wait_for_state(job_id, "RUNNING", Duration::from_secs(30));
    let out = cluster.dir.path().join(format!("rest-{job_id}.out"));
    // The job's environment is the one the request gave.
    assert_eq!(cluster.wait_for_file(&out, |t| !t.is_empty()).trim(), "yes");

    let job = get(&sock, &format!("{V}/job/{job_id}"), &[]).json();
    let record = &job["jobs"][0];
    assert_eq!(record["job_id"], job_id);
    assert_eq!(record["name"], "restjob");
    assert_eq!(record["job_state"], "RUNNING");
    assert_eq!(record["user_name"], "root");
    assert_eq!(record["time_limit"], 5);
    assert_eq!(record["partition"], "debug");
    assert_eq!(record["current_working_directory"], dir.as_str());
    let jobs = get(&sock, &format!("{V}/jobs"), &[]).json();
    assert!(jobs["jobs"]
        .as_array()
        .expect("jobs")
        .iter()
        .any(|j| j["job_id"] == job_id));

    let update = request(
        &sock,
        "POST",
        &format!("{V}/job/{job_id}"),
        &[],
        Some(r#"{"comment": "from-rest", "time_limit": 7}"#),
    )
    .expect("update");
    assert_eq!(update.status, 200, "{}", update.body);
    assert_eq!(update.json()["errors"], serde_json::json!([]));
    assert_eq!(cluster.job_field(job_id, "Comment"), "from-rest");
    assert_eq!(cluster.job_field(job_id, "TimeLimit"), "00:07:00");
    // Properties go at the top level: a `job` wrapper is an unknown key, reported with 200 as slurmrestd does.
    let wrapped = request(
        &sock,
        "POST",
        &format!("{V}/job/{job_id}"),
        &[],
        Some(r#"{"job": {"comment": "x"}}"#),
    )
    .expect("update");
    assert_eq!(wrapped.status, 200);
    let errors = wrapped.json()["errors"].clone();
    assert_eq!(errors[0]["description"], "Unknown key \"job\"");
    assert_eq!(errors[1]["error_number"], 9001);
    assert_eq!(cluster.job_field(job_id, "Comment"), "from-rest");
    let bad_signal = request(
        &sock,
        "DELETE",
        &format!("{V}/job/{job_id}?signal=BOGUS"),
        &[],
        None,
    )
    .expect("signal");
    assert_eq!(bad_signal.status, 400);
    assert_eq!(bad_signal.json()["errors"][0]["error_number"], 9000);

    let cancelled =
        request(&sock, "DELETE", &format!("{V}/job/{job_id}"), &[], None).expect("cancel");
    assert_eq!(cancelled.status, 200, "{}", cancelled.body);
    assert_eq!(cancelled.json()["errors"], serde_json::json!([]));
    cluster.wait_for_state(job_id, "CANCELLED", Duration::from_secs(30));
    let job = get(&sock, &format!("{V}/job/{job_id}"), &[]).json();
    assert_eq!(job["jobs"][0]["job_state"], "CANCELLED");
    // Cancelling a job that already ended is done, not an error.
    let again = request(&sock, "DELETE", &format!("{V}/job/{job_id}"), &[], None).expect("cancel");
    assert_eq!(again.status, 200, "{}", again.body);

    let diag = get(&sock, &format!("{V}/diag"), &[]).json();
    assert_eq!(diag["statistics"]["jobs_canceled"], 1);

    // Slurm's refusals.
    let bad_job = only_error(&get(&sock, &format!("{V}/job/999999"), &[]));
    assert_eq!(bad_job["error_number"], 2017);
    assert_eq!(bad_job["description"], "Unable to find JobId=999999");
    assert_eq!(bad_job["source"], "slurm_load_job");
    assert_eq!(get(&sock, &format!("{V}/job/abc"), &[]).status, 400);
    let kill_missing = only_error(
        &request(&sock, "DELETE", &format!("{V}/job/999999"), &[], None).expect("cancel"),
    );
    assert_eq!(
        kill_missing["description"],
        "unable to kill JobId=999999 with signal 9: Invalid job id specified"
    );
    let wrong_method = request(&sock, "PUT", &format!("{V}/ping"), &[], None).expect("PUT");
    assert_eq!(wrong_method.status, 405);
    for path in [
        format!("{V}/nosuch"),
        "/slurm/v0.0.37/ping".to_string(),
        "/slurmdb/v0.0.38/jobs".to_string(),
    ] {
        let reply = get(&sock, &path, &[]);
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(
            reply.body,
            "Unable find requested URL. Please view /openapi/v3 for API reference."
        );
    }
    let no_script = request(
        &sock,
        "POST",
        &format!("{V}/job/submit"),
        &[],
        Some(r#"{"job":{"name":"x"}}"#),
    )
    .expect("submit");
    assert_eq!(
        only_error(&no_script),
        serde_json::json!({"error_code": 2009, "error": "Job script not specified"})
    );
    let bad_partition = request(
        &sock,
        "POST",
        &format!("{V}/job/submit"),
        &[],
        Some(&submit_body("x", &dir, "true").replace("\"debug\"", "\"nosuch\"")),
    )
    .expect("submit");
    assert_eq!(
        only_error(&bad_partition),
        serde_json::json!({"error_code": 2000, "error": "Invalid partition name specified"})
    );
    let submit_raw = |body: &str| {
        request(&sock, "POST", &format!("{V}/job/submit"), &[], Some(body)).expect("submit")
    };
    let no_env = submit_raw(r##"{"script": "#!/bin/sh\ntrue\n", "job": {"name": "x"}}"##);
    assert_eq!(no_env.status, 400);
    assert_eq!(
        no_env.json()["errors"],
        serde_json::json!([
            {"error": "environment must be set", "error_code": 2127},
            {"error_code": 9001, "error": "Failure during parsing"}
        ])
    );
    let unknown = submit_raw(r#"{"script": "x", "job": {"bogus": 1, "environment": {"A": "b"}}}"#);
    assert_eq!(unknown.status, 400);
    assert_eq!(
        unknown.json()["errors"][0],
        serde_json::json!({"description": "Unknown key \"bogus\"", "source": "hsearch_r"})
    );
    let garbage = submit_raw("garbage");
    assert_eq!(
        (garbage.status, garbage.body.as_str()),
        (400, "Unable to parse query.")
    );

    let spec = get(&sock, "/openapi/v3", &[]).json();
    assert!(spec["paths"][format!("{V}/job/submit")]["post"].is_object());
}

/// Another user on the Unix socket is not the daemon's user: refused, as rest_auth/local refuses it.
#[test]
fn local_auth_refuses_another_user_on_the_socket() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: needs root to connect as another user");
        return;
    }
    let cluster = Cluster::start();
    let rest = RestDaemon::start(
        &bin_dir(),
        &cluster.conf,
        cluster.dir.path(),
        &["-a", "rest_auth/local"],
    );
    // Reachable by others, so that the refusal is slurmrestd's and not the file system's.
    use std::os::unix::fs::PermissionsExt;
    for (path, mode) in [(cluster.dir.path(), 0o755), (rest.unix.as_path(), 0o777)] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let target = rest.unix();
    // Credentials are per thread for the raw syscalls: only this thread becomes nobody, and it ends after.
    let reply = std::thread::spawn(move || {
        // SAFETY: raw setresgid/setresuid on the calling thread only; nothing else runs on it.
        unsafe {
            assert_eq!(libc::syscall(libc::SYS_setresgid, 65534, 65534, 65534), 0);
            assert_eq!(libc::syscall(libc::SYS_setresuid, 65534, 65534, 65534), 0);
        }
        request(&target, "GET", &format!("{V}/ping"), &[], None)
    })
    .join()
    .expect("thread")
    .expect("request");
    assert_eq!(
        (reply.status, reply.body.as_str()),
        (401, "Authentication failure")
    );
    assert_eq!(get(&rest.unix(), &format!("{V}/ping"), &[]).status, 200);
}

#[test]
fn jwt_tokens_act_as_their_user_and_bad_ones_are_refused() {
    let keys = tempfile::tempdir().expect("tempdir");
    let key_path = keys.path().join("jwt_hs256.key");
    std::fs::write(&key_path, b"0123456789abcdef0123456789abcdef").expect("key");
    // spurctld refuses a key that group or others may read.
    std::fs::set_permissions(
        &key_path,
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .expect("chmod key");
    let cluster = Cluster::start_with(ClusterOptions {
        extra_conf: format!(
            "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key={}\n",
            key_path.display()
        ),
        ..ClusterOptions::default()
    });
    let rest = RestDaemon::start(
        &bin_dir(),
        &cluster.conf,
        cluster.dir.path(),
        &["-a", "rest_auth/jwt"],
    );
    let tcp = rest.tcp();
    let token_for = |user: &str| {
        let out = cluster.ok(
            "scontrol",
            &["token", &format!("username={user}"), "lifespan=600"],
        );
        out.trim()
            .strip_prefix("SLURM_JWT=")
            .expect("SLURM_JWT=")
            .to_string()
    };
    let root = token_for("root");
    let as_root = [
        ("X-SLURM-USER-NAME", "root"),
        ("X-SLURM-USER-TOKEN", root.as_str()),
    ];

    let ping = get(&tcp, &format!("{V}/ping"), &as_root);
    assert_eq!(ping.status, 200, "{}", ping.body);
    assert_eq!(ping.json()["pings"][0]["ping"], "UP");
    assert_eq!(
        get(&tcp, &format!("{V}/nodes"), &as_root).json()["nodes"][0]["name"],
        cluster.node.as_str()
    );

    // No token: 401 before anything else. A bad token, or a name that is not the token's: the controller
    // refuses, and ping reports it as slurmrestd does.
    let none = get(&tcp, &format!("{V}/ping"), &[]);
    assert_eq!(
        (none.status, none.body.as_str()),
        (401, "Authentication failure")
    );
    let forged = {
        let claims = spur_core::auth::jwt::Claims {
            exp: i64::MAX / 2,
            iat: 0,
            sun: "root".into(),
        };
        spur_core::auth::jwt::encode(&claims, b"not the cluster key").expect("token")
    };
    let unloadable = serde_json::json!({
        "description": "slurmctld config is unable to load",
        "error_number": -1,
        "error": "Unspecified error",
        "source": "slurm_load_ctl_conf"
    });
    for token in ["garbage", forged.as_str()] {
        let reply = get(
            &tcp,
            &format!("{V}/ping"),
            &[("X-SLURM-USER-NAME", "root"), ("X-SLURM-USER-TOKEN", token)],
        );
        assert_eq!(only_error(&reply), unloadable);
        let jobs = get(
            &tcp,
            &format!("{V}/jobs"),
            &[("X-SLURM-USER-NAME", "root"), ("X-SLURM-USER-TOKEN", token)],
        );
        assert_eq!(
            only_error(&jobs),
            serde_json::json!({
                "description": "Failed while looking for jobs",
                "error_number": -1,
                "error": "Unspecified error",
                "source": "slurm_load_jobs"
            })
        );
    }

    // A token names its user: nobody's token submits as nobody, and cannot be presented as root's.
    let nobody = token_for("nobody");
    let as_nobody = [
        ("X-SLURM-USER-NAME", "nobody"),
        ("X-SLURM-USER-TOKEN", nobody.as_str()),
    ];
    let wrong_name = [
        ("X-SLURM-USER-NAME", "root"),
        ("X-SLURM-USER-TOKEN", nobody.as_str()),
    ];
    assert_eq!(
        only_error(&get(&tcp, &format!("{V}/ping"), &wrong_name)),
        unloadable
    );
    // Held, so that each stays until cancelled whatever nobody may run.
    let body = submit_body("jwtjob", "/tmp", "sleep 300")
        .replace("\"time_limit\"", "\"hold\": true, \"time_limit\"");
    let submitted = request(
        &tcp,
        "POST",
        &format!("{V}/job/submit"),
        &as_nobody,
        Some(&body),
    )
    .expect("submit");
    assert_eq!(submitted.status, 200, "{}", submitted.body);
    // A held job is submitted, with slurmctld's "held" errno beside its id.
    assert_eq!(submitted.json()["errors"][0]["error_code"], 2042);
    let job_id = submitted.json()["job_id"].as_u64().expect("job id") as u32;
    let job = get(&tcp, &format!("{V}/job/{job_id}"), &as_nobody).json();
    assert_eq!(job["jobs"][0]["user_name"], "nobody");
    assert_eq!(job["jobs"][0]["user_id"], 65534);
    assert_eq!(cluster.job_field(job_id, "UserId"), "nobody(65534)");

    // nobody may not cancel root's job; root may cancel nobody's.
    let roots = request(
        &tcp,
        "POST",
        &format!("{V}/job/submit"),
        &as_root,
        Some(&body),
    )
    .expect("submit")
    .json()["job_id"]
        .as_u64()
        .expect("job id");
    let denied = request(
        &tcp,
        "DELETE",
        &format!("{V}/job/{roots}"),
        &as_nobody,
        None,
    )
    .expect("cancel");
    assert_eq!(only_error(&denied)["error_number"], 2002);
    for id in [u64::from(job_id), roots] {
        let reply =
            request(&tcp, "DELETE", &format!("{V}/job/{id}"), &as_root, None).expect("cancel");
        assert_eq!(reply.status, 200, "{}", reply.body);
    }
    cluster.wait_for_state(job_id, "CANCELLED", Duration::from_secs(30));
}
