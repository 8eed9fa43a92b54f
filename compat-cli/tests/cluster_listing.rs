//! Job listings on the wire: squeue, `scontrol show job` and `slurm_load_jobs` ask for records without batch
//! scripts and environments, packed in postcard when the controller is the same build, and only the jobs asked
//! for. Driven with raw, authenticated gRPC calls against a real spurctld so the encoding itself is observed.

// Test code: a failed unwrap or expect is the test failing with its message. The workspace denies both outside
// tests and clippy.toml allows them in #[test] functions; this extends that to the helpers of these tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::{text, Cluster};
use spur_auth::ClientAuth;
use spur_core::wire::api::{JobList, JobListing, Query};
use spur_core::wire::listing_rows::{ListField, Rows};
use spur_core::wire::{from_doc, listing_doc, pb, to_doc, ListingDoc, MODEL_SCHEMA};

/// The reply document to `query`, announcing `accept_packed_schema`.
fn ask(cluster: &Cluster, query: &Query, accept_packed_schema: &str) -> pb::Doc {
    let socket = cluster
        .munged
        .as_ref()
        .expect("the cluster's munged")
        .socket_str();
    let auth = ClientAuth::Munge { socket };
    let message = pb::ApiRequest {
        request_id: String::new(),
        caller: None,
        body: Some(to_doc(query).expect("doc")),
        accept_packed_schema: accept_packed_schema.to_string(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let channel = auth
            .channel(&cluster.url, Duration::from_secs(5), None)
            .await
            .expect("connect");
        let mut client = pb::controller_client::ControllerClient::new(channel)
            .max_decoding_message_size(spur_core::wire::MAX_REPLY_BYTES);
        let request = auth.request("Query", message).expect("seal");
        let reply = client.query(request).await.expect("reply").into_inner();
        assert_eq!(reply.error_code, 0, "{}", reply.message);
        reply.body.expect("body")
    })
}

fn env_value<'a>(list: &'a JobList, job_id: u32, name: &str) -> Option<&'a str> {
    let job = list.jobs.iter().find(|j| j.job_id == job_id)?;
    job.spec
        .environment
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn listings_are_slim_packed_for_the_same_build_and_filtered_by_job() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("listing");
    let big = "x".repeat(100_000);
    let mut ids = Vec::new();
    // 60 jobs with a 100 KB variable: whole records make a reply over gRPC's customary 4 MiB.
    for _ in 0..60 {
        let out = cluster
            .command(&dir, "sbatch", &["--hold", "--parsable", "--wrap", "true"])
            .env("BIG_VALUE", &big)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run sbatch");
        assert!(out.status.success(), "sbatch: {}", text(&out.stderr));
        ids.push(text(&out.stdout).trim().parse::<u32>().expect("job id"));
    }

    let slim = ask(
        &cluster,
        &Query::JobListing(JobListing::default()),
        MODEL_SCHEMA,
    );
    assert_eq!(slim.packed_schema, MODEL_SCHEMA);
    assert!(slim.json.len() < 200_000, "{} bytes", slim.json.len());
    let list: JobList = from_doc(Some(&slim)).expect("unpack");
    assert_eq!(list.jobs.len(), 60);
    assert!(list.jobs.iter().all(|j| j.spec.environment.is_empty()));
    // A batch job still reads as one (BatchFlag=1) without its script text.
    assert!(list
        .jobs
        .iter()
        .all(|j| j.spec.script.as_deref() == Some("")));

    // A client of another build gets JSON it can read.
    let json = ask(
        &cluster,
        &Query::JobListing(JobListing::default()),
        "0.0.0-other",
    );
    assert!(json.packed_schema.is_empty());
    // The same records (the answer's clock may have moved on by a second).
    assert_eq!(
        from_doc::<JobList>(Some(&json)).expect("json").jobs,
        list.jobs
    );

    let whole = ask(
        &cluster,
        &Query::JobListing(JobListing {
            whole_records: true,
            ..JobListing::default()
        }),
        MODEL_SCHEMA,
    );
    assert!(whole.json.len() > 4 << 20, "{} bytes", whole.json.len());
    let list: JobList = from_doc(Some(&whole)).expect("unpack");
    assert_eq!(env_value(&list, ids[7], "BIG_VALUE"), Some(big.as_str()));
    assert!(list.jobs[0]
        .spec
        .script
        .as_deref()
        .is_some_and(|s| s.contains("true")));

    let one = ask(
        &cluster,
        &Query::JobListing(JobListing::whole_job(ids[3])),
        MODEL_SCHEMA,
    );
    let list: JobList = from_doc(Some(&one)).expect("unpack");
    assert_eq!(list.jobs.len(), 1);
    assert_eq!(list.jobs[0].job_id, ids[3]);
    assert_eq!(env_value(&list, ids[3], "BIG_VALUE"), Some(big.as_str()));

    // The commands list every job through the slim listing.
    assert_eq!(cluster.squeue("%i", &[]).len(), 60);
    let shown = cluster.ok("scontrol", &["show", "job"]);
    assert_eq!(shown.matches("JobId=").count(), 60, "{shown}");
    assert!(shown.contains("BatchFlag=1"), "{shown}");
    let picked = cluster.squeue("%i", &["-j", &ids[5].to_string()]);
    assert_eq!(picked, [ids[5].to_string()]);
}

#[test]
fn tables_read_rows_of_the_fields_they_print() {
    let cluster = Cluster::start();
    let dir = cluster.subdir("rows");
    let mut ids = Vec::new();
    for _ in 0..3 {
        let out = cluster
            .command(
                &dir,
                "sbatch",
                &["--hold", "--parsable", "-J", "rowjob", "--wrap", "true"],
            )
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run sbatch");
        assert!(out.status.success(), "sbatch: {}", text(&out.stderr));
        ids.push(text(&out.stdout).trim().parse::<u32>().expect("job id"));
    }
    let fields = [ListField::JobId, ListField::SpecName];
    let listing = |names: Vec<String>| {
        Query::JobListing(JobListing {
            fields: Some(names),
            ..JobListing::default()
        })
    };
    let names = || fields.iter().map(|f| f.name().to_string()).collect();

    let doc = ask(&cluster, &listing(names()), MODEL_SCHEMA);
    assert_eq!(doc.kind, "JobRows");
    let Ok(ListingDoc::Rows(bytes)) = listing_doc(Some(doc)) else {
        panic!("rows expected");
    };
    let rows = Rows::parse(&bytes).expect("rows");
    assert_eq!(rows.len(), 3);
    let me = (
        nix::unistd::getuid().as_raw(),
        nix::unistd::getgid().as_raw(),
    );
    assert_eq!(rows.owners, vec![me]);
    let mut read = Vec::new();
    rows.for_each(&fields, |job| {
        read.push((job.job_id, job.spec.name.clone(), job.spec.work_dir.clone()))
    })
    .expect("read");
    let expected: Vec<_> = ids
        .iter()
        .map(|id| (*id, "rowjob".to_string(), String::new()))
        .collect();
    assert_eq!(read, expected, "only the fields asked for travel");

    // A client of another build, or a field this controller does not know, gets records.
    for (names, schema) in [
        (names(), "0.0.0-other"),
        (vec!["spec.nonesuch".to_string()], MODEL_SCHEMA),
    ] {
        let doc = ask(&cluster, &listing(names), schema);
        let list: JobList = from_doc(Some(&doc)).expect("records");
        assert_eq!(list.jobs.len(), 3);
    }

    // squeue reads rows, and still tells an unknown job id from a known one.
    let shown = cluster.squeue("%i %j %t", &[]);
    assert_eq!(shown.len(), 3);
    assert!(shown.iter().all(|l| l.ends_with(" rowjob PD")), "{shown:?}");
    let out = cluster
        .command(&dir, "squeue", &["-j", "999999"])
        .output()
        .expect("run squeue");
    assert!(!out.status.success());
    assert_eq!(
        text(&out.stderr).trim(),
        "slurm_load_jobs error: Invalid job id specified"
    );
}
