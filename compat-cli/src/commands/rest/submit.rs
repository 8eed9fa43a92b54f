//! `POST /job/submit`: a v0.0.38 job description (`script` plus `job` properties) turned into the same option set
//! sbatch builds from its command line, then resolved by the one resolver every submitting command uses. Each
//! property is one row of [`FIELDS`]: its JSON name, the sbatch option it stands for and how its value reads.

use spur_core::format::json::Json;
use spur_core::grammar::options::{table::by_long, Command, OptionSet, Source};
use spur_core::grammar::values::begin::LocalNow;
use spur_core::model::submit::{resolve, ScriptInput, SubmitContext};
use spur_core::wire::api::SubmitRequest;

use super::auth::Caller;
use super::reply::{code_entry, entry, errno_of, Reply};
use crate::client::ClientError;
use crate::config;

/// How a property's JSON value becomes the option's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A string (a number is taken as its digits).
    Text,
    /// A number (or a string of one).
    Number,
    /// `true` sets the option; `false` sets `off` where there is one.
    Flag { off: Option<&'static str> },
    /// `true`/`false` as the option's `yes`/`no` value.
    YesNo,
    /// `true`/`false` as the option's `1`/`0` value.
    OneZero,
    /// `[min, max]`, a number, or sbatch's `min-max` text.
    Nodes,
    /// `exclusive`: a mode word, or `true`.
    Exclusive,
}

use Kind::*;

/// (JSON property, sbatch long option, how its value reads), in the specification's order.
const FIELDS: &[(&str, &str, Kind)] = &[
    ("account", "account", Text),
    ("account_gather_frequency", "acctg-freq", Text),
    ("array", "array", Text),
    ("batch_features", "batch", Text),
    ("burst_buffer", "bb", Text),
    ("cluster_constraint", "cluster-constraint", Text),
    ("comment", "comment", Text),
    ("constraints", "constraint", Text),
    ("container", "container", Text),
    ("core_specification", "core-spec", Number),
    ("cores_per_socket", "cores-per-socket", Number),
    ("cpu_binding_hint", "hint", Text),
    ("cpu_frequency", "cpu-freq", Text),
    ("cpus_per_gpu", "cpus-per-gpu", Text),
    ("cpus_per_task", "cpus-per-task", Number),
    ("current_working_directory", "chdir", Text),
    ("deadline", "deadline", Text),
    ("delay_boot", "delay-boot", Number),
    ("dependency", "dependency", Text),
    ("distribution", "distribution", Text),
    ("exclusive", "exclusive", Exclusive),
    ("get_user_environment", "get-user-env", Flag { off: None }),
    ("gres", "gres", Text),
    ("gres_flags", "gres-flags", Text),
    ("gpu_binding", "gpu-bind", Text),
    ("gpu_frequency", "gpu-freq", Text),
    ("gpus", "gpus", Text),
    ("gpus_per_node", "gpus-per-node", Text),
    ("gpus_per_socket", "gpus-per-socket", Text),
    ("gpus_per_task", "gpus-per-task", Text),
    ("hold", "hold", Flag { off: None }),
    ("kill_on_invalid_dependency", "kill-on-invalid-dep", YesNo),
    ("licenses", "licenses", Text),
    ("mail_type", "mail-type", Text),
    ("mail_user", "mail-user", Text),
    ("mcs_label", "mcs-label", Text),
    ("memory_binding", "mem-bind", Text),
    ("memory_per_cpu", "mem-per-cpu", Number),
    ("memory_per_gpu", "mem-per-gpu", Number),
    ("memory_per_node", "mem", Number),
    ("minimum_cpus_per_node", "mincpus", Number),
    ("minimum_nodes", "use-min-nodes", Flag { off: None }),
    ("name", "job-name", Text),
    ("nice", "nice", Number),
    ("no_kill", "no-kill", Flag { off: None }),
    ("nodes", "nodes", Nodes),
    ("open_mode", "open-mode", Text),
    ("oversubscribe", "oversubscribe", Flag { off: None }),
    ("partition", "partition", Text),
    ("prefer", "prefer", Text),
    ("priority", "priority", Text),
    ("qos", "qos", Text),
    (
        "requeue",
        "requeue",
        Flag {
            off: Some("no-requeue"),
        },
    ),
    ("reservation", "reservation", Text),
    ("signal", "signal", Text),
    ("sockets_per_node", "sockets-per-node", Number),
    ("spread_job", "spread-job", Flag { off: None }),
    ("standard_error", "error", Text),
    ("standard_input", "input", Text),
    ("standard_output", "output", Text),
    ("tasks", "ntasks", Number),
    ("tasks_per_core", "ntasks-per-core", Number),
    ("tasks_per_node", "ntasks-per-node", Number),
    ("tasks_per_socket", "ntasks-per-socket", Number),
    ("thread_specification", "thread-spec", Number),
    ("threads_per_core", "threads-per-core", Number),
    ("time_limit", "time", Number),
    ("time_minimum", "time-min", Number),
    ("wait_all_nodes", "wait-all-nodes", OneZero),
    ("wckey", "wckey", Text),
];

/// Properties that are not sbatch options: read here, not through the table.
const OWN_FIELDS: &[&str] = &["argv", "begin_time", "environment"];

/// A job description slurmrestd refuses before the controller sees it, in the shapes it answers with.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The body is not JSON: 400 and a line of text.
    Unparsable,
    /// A property could not be read: 400, these entries, then "Failure during parsing".
    Parsing(Vec<Json>),
    /// `{"error_code", "error"}` with HTTP 500.
    Code { code: i64, text: String },
}

impl Refusal {
    fn code(code: i64, text: impl Into<String>) -> Refusal {
        Refusal::Code {
            code,
            text: text.into(),
        }
    }

    fn unknown_key(key: &str) -> Refusal {
        Refusal::Parsing(vec![Json::obj(vec![
            ("description", Json::Str(format!("Unknown key \"{key}\""))),
            ("source", Json::str("hsearch_r")),
        ])])
    }

    fn invalid_value(key: &str, text: &str) -> Refusal {
        Refusal::Parsing(vec![
            Json::obj(vec![
                ("error", Json::str(text)),
                ("error_code", Json::Int(UNSPECIFIED)),
            ]),
            entry(
                &format!("Unable to process key \"{key}\""),
                UNSPECIFIED,
                "Unspecified error",
                "slurm_process_option_data",
            ),
        ])
    }

    fn reply(&self) -> Reply {
        match self {
            Refusal::Unparsable => Reply::unparsable(),
            Refusal::Parsing(entries) => {
                let mut errors = entries.clone();
                errors.push(code_entry(PARSING_FAILED, "Failure during parsing"));
                Reply::with_status(400, errors, Vec::new())
            }
            Refusal::Code { code, text } => {
                Reply::document(vec![code_entry(*code, text)], Vec::new())
            }
        }
    }
}

/// ESLURM_JOB_SCRIPT_MISSING, ESLURM_ENVIRONMENT_MISSING, ESLURM_JOB_HELD, and the data parser's
/// ESLURM_DATA_CONV_FAILED.
const SCRIPT_MISSING: i64 = 2009;
const ENVIRONMENT_MISSING: i64 = 2127;
const JOB_HELD: i64 = 2042;
const PARSING_FAILED: i64 = 9001;
const UNSPECIFIED: i64 = -1;

/// Properties of the specification Spur takes and does nothing with (no sbatch option means them).
const IGNORED: &[&str] = &["cpu_binding"];

/// Whether `key` is one of v0.0.38's job properties.
pub fn is_job_property(key: &str) -> bool {
    FIELDS.iter().any(|(name, _, _)| *name == key)
        || OWN_FIELDS.contains(&key)
        || IGNORED.contains(&key)
}

/// What a submission carries besides the options.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Description {
    pub script: String,
    pub options: OptionSet,
    pub environment: Vec<(String, String)>,
    pub argv: Vec<String>,
    pub begin_time: Option<i64>,
}

/// Reads the request body into a description (syntax only: the values are checked when resolved).
pub fn parse(body: &[u8]) -> Result<Description, Refusal> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|_| Refusal::Unparsable)?;
    let job = match (value.get("job"), value.get("jobs")) {
        (Some(job), _) => job.clone(),
        (None, Some(serde_json::Value::Array(jobs))) if jobs.len() == 1 => jobs[0].clone(),
        (None, Some(_)) => {
            return Err(Refusal::code(
                UNSPECIFIED,
                "heterogeneous jobs are not supported",
            ))
        }
        (None, None) => serde_json::Value::Object(Default::default()),
    };
    let script = match value.get("script").and_then(|s| s.as_str()) {
        Some(script) if !script.is_empty() => script.to_string(),
        _ => return Err(Refusal::code(SCRIPT_MISSING, "Job script not specified")),
    };
    let serde_json::Value::Object(properties) = job else {
        return Err(Refusal::code(UNSPECIFIED, "job must be an object"));
    };
    let mut description = Description {
        script,
        ..Description::default()
    };
    for (index, (key, value)) in properties.iter().enumerate() {
        if OWN_FIELDS.contains(&key.as_str()) {
            own_field(&mut description, key, value)?;
            continue;
        }
        if IGNORED.contains(&key.as_str()) {
            continue;
        }
        let Some((_, long, kind)) = FIELDS.iter().find(|(name, _, _)| name == key) else {
            return Err(Refusal::unknown_key(key));
        };
        let Some((long, text)) = option_text(long, *kind, value)
            .ok_or_else(|| Refusal::invalid_value(key, &format!("Invalid value: {value}")))?
        else {
            continue;
        };
        let Some(def) = by_long(Command::Sbatch, long) else {
            continue;
        };
        description
            .options
            .set(def.id, text, Source::CommandLine { index });
    }
    if description.environment.is_empty() {
        return Err(Refusal::Parsing(vec![Json::obj(vec![
            ("error", Json::str("environment must be set")),
            ("error_code", Json::Int(ENVIRONMENT_MISSING)),
        ])]));
    }
    Ok(description)
}

fn own_field(
    description: &mut Description,
    key: &str,
    value: &serde_json::Value,
) -> Result<(), Refusal> {
    let invalid = || Refusal::invalid_value(key, &format!("Invalid value: {value}"));
    match key {
        "environment" => description.environment = environment(value).ok_or_else(invalid)?,
        "argv" => {
            description.argv = value
                .as_array()
                .ok_or_else(invalid)?
                .iter()
                .map(|a| a.as_str().map(str::to_string))
                .collect::<Option<_>>()
                .ok_or_else(invalid)?
        }
        _ => description.begin_time = Some(number(value).ok_or_else(invalid)?),
    }
    Ok(())
}

/// `{"NAME": "value"}`, or the older list of `NAME=value` strings.
fn environment(value: &serde_json::Value) -> Option<Vec<(String, String)>> {
    match value {
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => Some((k.clone(), s.clone())),
                serde_json::Value::Number(n) => Some((k.clone(), n.to_string())),
                serde_json::Value::Bool(b) => Some((k.clone(), b.to_string())),
                _ => None,
            })
            .collect(),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|item| {
                let (k, v) = item.as_str()?.split_once('=')?;
                Some((k.to_string(), v.to_string()))
            })
            .collect(),
        _ => None,
    }
}

fn number(value: &serde_json::Value) -> Option<i64> {
    match value {
        serde_json::Value::Number(n) => n.as_i64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The option to set and its value for one property: `None` when the value is malformed, `Some(None)` when it
/// sets nothing (a `false` flag without a negation).
#[allow(clippy::type_complexity)]
fn option_text(
    long: &'static str,
    kind: Kind,
    value: &serde_json::Value,
) -> Option<Option<(&'static str, Option<String>)>> {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let set = |v: Option<String>| Some(Some((long, v)));
    match kind {
        Text => set(Some(text(value)?)),
        Number => set(Some(number(value)?.to_string())),
        Flag { off } => match value.as_bool()? {
            true => set(None),
            false => Some(off.map(|negation| (negation, None))),
        },
        YesNo => set(Some(if value.as_bool()? { "yes" } else { "no" }.into())),
        OneZero => set(Some(if value.as_bool()? { "1" } else { "0" }.into())),
        Nodes => match value {
            serde_json::Value::Array(bounds) => {
                let bounds: Vec<i64> = bounds.iter().map(number).collect::<Option<_>>()?;
                match bounds.as_slice() {
                    [min] => set(Some(min.to_string())),
                    [min, max] => set(Some(format!("{min}-{max}"))),
                    _ => None,
                }
            }
            other => set(Some(text(other)?)),
        },
        Exclusive => match value {
            serde_json::Value::Bool(true) => set(None),
            serde_json::Value::Bool(false) => Some(None),
            serde_json::Value::String(s) if s == "true" || s == "exclusive" => set(None),
            serde_json::Value::String(s) if s == "false" => Some(None),
            serde_json::Value::String(s) if s == "oversubscribe" => {
                Some(Some(("oversubscribe", None)))
            }
            other => set(Some(text(other)?)),
        },
    }
}

/// Submits `body` as `caller`.
pub fn submit(caller: &Caller, body: &[u8]) -> Reply {
    let description = match parse(body) {
        Ok(description) => description,
        Err(refusal) => return refusal.reply(),
    };
    let cwd = description
        .options
        .value(spur_core::grammar::options::OptId::Chdir)
        .map(str::to_string)
        .or_else(|| {
            // As slurmrestd: without a directory the job starts in the daemon's own.
            std::env::current_dir()
                .ok()
                .map(|d| d.display().to_string())
        })
        .unwrap_or_else(|| "/".to_string());
    let host = config::short_hostname();
    let gres_owned = config::gres_types();
    let gres_types: Vec<&str> = gres_owned.iter().map(String::as_str).collect();
    let context = SubmitContext {
        cmd: Command::Sbatch,
        uid: caller.uid,
        gid: caller.gid,
        user_name: &caller.user_name,
        cwd: &cwd,
        submit_host: &host,
        env: &description.environment,
        now: LocalNow {
            epoch_secs: config::now_epoch(),
            utc_offset_secs: config::utc_offset_secs(),
        },
        gres_types: &gres_types,
        max_array_size: config::max_array_size(),
        submit_sid: 0,
    };
    let input = ScriptInput {
        body: Some(description.script.clone()),
        path: None,
        name: String::new(),
        argv: description.argv.clone(),
    };
    let mut spec = match resolve(&context, &description.options, &input) {
        Ok(spec) => spec,
        Err(e) => return resolve_refusal(&e).reply(),
    };
    let held = spec.hold;
    if let Some(begin) = description.begin_time {
        spec.begin_time = Some(begin);
    }
    let request = SubmitRequest {
        spec,
        test_only: false,
        immediate: false,
        interactive: false,
        het_components: Vec::new(),
    };
    match caller.client().and_then(|c| c.submit(&request)) {
        // slurmctld answers a held submission with ESLURM_JOB_HELD beside the job id; slurmrestd passes it on.
        Ok(reply) => Reply::with_status(
            200,
            if held {
                vec![code_entry(
                    JOB_HELD,
                    "Job is in held state, pending scheduler release",
                )]
            } else {
                Vec::new()
            },
            vec![
                ("job_id", Json::Int(reply.job_id.into())),
                ("step_id", Json::str("BATCH")),
                ("job_submit_user_msg", Json::str("")),
            ],
        ),
        Err(e) => {
            let (code, text) = match &e {
                ClientError::Api(api) => {
                    (i64::from(api.errno.code()), api.errno.text().to_string())
                }
                other => errno_of(other),
            };
            Refusal::code(code, text).reply()
        }
    }
}

/// An option value the resolver refused, named by its property where one row maps to the option.
fn resolve_refusal(error: &spur_core::grammar::options::OptError) -> Refusal {
    let text = error
        .lines
        .iter()
        .map(|l| l.trim_start_matches("sbatch: error: ").to_string())
        .collect::<Vec<_>>()
        .join("; ");
    let key = match &error.kind {
        spur_core::grammar::options::ErrorKind::InvalidValue(id) => {
            let long = spur_core::grammar::options::def(*id).long;
            FIELDS
                .iter()
                .find(|(_, option, _)| *option == long)
                .map(|(key, _, _)| *key)
        }
        _ => None,
    };
    match key {
        Some(key) => Refusal::invalid_value(key, &text),
        None => Refusal::Parsing(vec![Json::obj(vec![
            ("error", Json::Str(text)),
            ("error_code", Json::Int(UNSPECIFIED)),
        ])]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spur_core::grammar::options::OptId;

    #[test]
    fn every_row_names_an_sbatch_option() {
        for (name, long, _) in FIELDS {
            assert!(
                by_long(Command::Sbatch, long).is_some(),
                "{name}: sbatch has no --{long}"
            );
        }
    }

    #[test]
    fn properties_become_sbatch_options() {
        let body = br##"{"script": "#!/bin/sh\ntrue\n", "job": {
            "name": "restjob", "partition": "debug", "time_limit": 5, "nodes": [1, 2],
            "requeue": false, "hold": true, "tasks": "2", "memory_per_cpu": 100,
            "current_working_directory": "/tmp", "environment": {"PATH": "/bin", "N": 1},
            "argv": ["a"], "begin_time": 1234, "cpu_binding": "none"}}"##;
        let d = parse(body).unwrap();
        assert_eq!(d.options.value(OptId::JobName), Some("restjob"));
        assert_eq!(d.options.value(OptId::Partition), Some("debug"));
        assert_eq!(d.options.value(OptId::Time), Some("5"));
        assert_eq!(d.options.value(OptId::Nodes), Some("1-2"));
        assert_eq!(d.options.value(OptId::Ntasks), Some("2"));
        assert_eq!(d.options.value(OptId::MemPerCpu), Some("100"));
        assert!(d.options.is_set(OptId::NoRequeue));
        assert!(!d.options.is_set(OptId::Requeue));
        assert!(d.options.is_set(OptId::Hold));
        assert_eq!(
            d.environment,
            vec![("N".into(), "1".into()), ("PATH".into(), "/bin".into())]
        );
        assert_eq!(d.argv, vec!["a".to_string()]);
        assert_eq!(d.begin_time, Some(1234));
    }

    #[test]
    fn refusals_read_like_slurmrestds() {
        assert_eq!(
            parse(br#"{"job": {"name": "x"}}"#),
            Err(Refusal::code(2009, "Job script not specified"))
        );
        assert_eq!(parse(b"not json"), Err(Refusal::Unparsable));
        let env = r#""environment": {"A": "b"}"#;
        let refused = |job: &str| {
            parse(format!(r#"{{"script": "x", "job": {{{job}}}}}"#).as_bytes()).unwrap_err()
        };
        assert_eq!(
            refused(&format!(r#""time_limit": [1], {env}"#)),
            Refusal::invalid_value("time_limit", "Invalid value: [1]")
        );
        assert_eq!(
            refused(&format!(r#""bogus": 1, {env}"#)),
            Refusal::unknown_key("bogus")
        );
        let Refusal::Parsing(entries) = refused(r#""name": "x""#) else {
            panic!("a missing environment is a parsing failure");
        };
        assert!(entries[0].to_pretty().contains("environment must be set"));
        assert!(parse(br#"{"script": "x", "jobs": [{}, {}]}"#).is_err());
        let reply = Refusal::unknown_key("bogus").reply();
        assert_eq!(reply.status, 400);
        assert!(
            reply.body.contains("\"error_code\": 9001"),
            "{}",
            reply.body
        );
    }
}
