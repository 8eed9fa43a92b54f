//! `POST /job/{id}`: the job properties `scontrol update JobId=` can change, given at the top level of the body
//! as slurmrestd takes them. A property it cannot read is reported, as slurmrestd reports it, with HTTP 200.

use spur_core::format::json::Json;
use spur_core::wire::api::{ControlRequest, JobSelector, JobUpdate, SlurmErrno};

use super::auth::Caller;
use super::reply::{api_error, entry, error_entry, Reply};

/// Why a body gave no update.
#[derive(Debug, Clone, PartialEq)]
pub enum Unreadable {
    /// Not JSON (400 and a line of text).
    Body,
    /// A property that is not one of the job's (slurmrestd: "Unknown key").
    UnknownKey(String),
    /// A property with a value that does not fit, or one Spur cannot change.
    Value { key: String, text: String },
}

pub fn parse(body: &[u8]) -> Result<JobUpdate, Unreadable> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|_| Unreadable::Body)?;
    let serde_json::Value::Object(map) = value else {
        return Err(Unreadable::Body);
    };
    let mut update = JobUpdate::default();
    for (key, value) in &map {
        let invalid = |text: &str| Unreadable::Value {
            key: key.clone(),
            text: text.to_string(),
        };
        let text = || {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| invalid("Invalid value"))
        };
        let number = || match value {
            serde_json::Value::Number(n) => n.as_i64().ok_or_else(|| invalid("Invalid value")),
            serde_json::Value::String(s) => s
                .trim()
                .parse::<i64>()
                .map_err(|_| invalid("Invalid value")),
            _ => Err(invalid("Invalid value")),
        };
        let unsigned =
            || number().and_then(|n| u32::try_from(n).map_err(|_| invalid("Invalid value")));
        match key.as_str() {
            "time_limit" => update.time_limit_min = Some(Some(unsigned()?)),
            "name" => update.name = Some(text()?),
            "partition" => update.partition = Some(text()?),
            "nice" => {
                update.nice = Some(i32::try_from(number()?).map_err(|_| invalid("Invalid value"))?)
            }
            "priority" => update.priority = Some(unsigned()?),
            "comment" => update.comment = Some(text()?),
            "tasks" => update.num_tasks = Some(unsigned()?),
            "dependency" => update.dependency = Some(text()?),
            "begin_time" => update.begin_time = Some(number()?),
            "reservation" => update.reservation = Some(text()?),
            _ if super::submit::is_job_property(key) => {
                return Err(invalid("Spur cannot update this property"))
            }
            _ => return Err(Unreadable::UnknownKey(key.clone())),
        }
    }
    Ok(update)
}

/// slurmrestd's entries for an unreadable property, ending in its "Failure during parsing".
fn unreadable_entries(unreadable: &Unreadable, origin: &str) -> Vec<Json> {
    let mut entries = match unreadable {
        Unreadable::Body => Vec::new(),
        Unreadable::UnknownKey(key) => vec![Json::obj(vec![
            ("description", Json::Str(format!("Unknown key \"{key}\""))),
            ("source", Json::str("hsearch_r")),
        ])],
        Unreadable::Value { key, text } => vec![
            Json::obj(vec![
                ("error", Json::str(text.clone())),
                ("error_code", Json::Int(-1)),
            ]),
            entry(
                &format!("Unable to process key \"{key}\""),
                -1,
                "Unspecified error",
                "slurm_process_option_data",
            ),
        ],
    };
    entries.push(entry(
        &format!("job parsing failed for {origin}"),
        9001,
        "Failure during parsing",
        "_parse_job_list",
    ));
    entries
}

pub fn update(caller: &Caller, id: &str, body: &[u8]) -> Reply {
    let update = match parse(body) {
        Ok(update) => update,
        Err(Unreadable::Body) => return Reply::unparsable(),
        Err(unreadable) => {
            return Reply::with_status(
                200,
                unreadable_entries(&unreadable, &caller.origin),
                Vec::new(),
            )
        }
    };
    let failed = |error: &crate::client::ClientError| {
        Reply::document(
            vec![error_entry(
                error,
                &format!("job update from {} failed", caller.origin),
                "_parse_job_list",
            )],
            Vec::new(),
        )
    };
    let Some(job_id) = id.parse::<u32>().ok().filter(|&n| n > 0) else {
        return failed(&api_error(SlurmErrno::InvalidJobId));
    };
    let request = ControlRequest::UpdateJob {
        job: JobSelector {
            job_id,
            array_task: None,
        },
        update,
    };
    match caller.client().and_then(|c| c.control(&request)) {
        Ok(_) => Reply::document(Vec::new(), Vec::new()),
        Err(e) => failed(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updatable_properties() {
        let update = parse(br#"{"time_limit": 10, "name": "x", "nice": -5}"#).unwrap();
        assert_eq!(update.time_limit_min, Some(Some(10)));
        assert_eq!(update.name.as_deref(), Some("x"));
        assert_eq!(update.nice, Some(-5));
    }

    #[test]
    fn unreadable_bodies() {
        assert_eq!(parse(b"garbage"), Err(Unreadable::Body));
        assert_eq!(
            parse(br#"{"job": {"comment": "x"}}"#),
            Err(Unreadable::UnknownKey("job".into()))
        );
        assert!(matches!(
            parse(br#"{"time_limit": -1}"#),
            Err(Unreadable::Value { .. })
        ));
        assert!(matches!(
            parse(br#"{"gres": "gpu:1"}"#),
            Err(Unreadable::Value { .. })
        ));
        let entries = unreadable_entries(&Unreadable::UnknownKey("job".into()), "sock");
        assert_eq!(entries.len(), 2);
        assert!(entries[1]
            .to_pretty()
            .contains("job parsing failed for sock"));
    }
}
