//! `POST /job/{id}`: the job properties `scontrol update JobId=` can change, from a v0.0.38 job description.

use spur_core::api::{ControlRequest, JobSelector, JobUpdate};

use super::auth::Caller;
use super::reply::{entry, error_entry, Reply};

/// Reads the properties an update may carry; `Err` names the first malformed or unsupported one.
pub fn parse(body: &[u8]) -> Result<JobUpdate, String> {
    let value: serde_json::Value =
        serde_json::from_slice(body).map_err(|e| format!("Unable to parse request body: {e}"))?;
    // Slurm takes the properties at the top level or under `job`.
    let properties = value.get("job").unwrap_or(&value);
    let serde_json::Value::Object(map) = properties else {
        return Err("job must be an object".into());
    };
    let mut update = JobUpdate::default();
    for (key, value) in map {
        let invalid = || format!("Invalid value for {key}: {value}");
        let text = || value.as_str().map(str::to_string).ok_or_else(invalid);
        let number = || match value {
            serde_json::Value::Number(n) => n.as_i64().ok_or_else(invalid),
            serde_json::Value::String(s) => s.trim().parse::<i64>().map_err(|_| invalid()),
            _ => Err(invalid()),
        };
        let unsigned = || number().and_then(|n| u32::try_from(n).map_err(|_| invalid()));
        match key.as_str() {
            "time_limit" => update.time_limit_min = Some(Some(unsigned()?)),
            "name" => update.name = Some(text()?),
            "partition" => update.partition = Some(text()?),
            "nice" => update.nice = Some(i32::try_from(number()?).map_err(|_| invalid())?),
            "priority" => update.priority = Some(unsigned()?),
            "comment" => update.comment = Some(text()?),
            "tasks" => update.num_tasks = Some(unsigned()?),
            "dependency" => update.dependency = Some(text()?),
            "begin_time" => update.begin_time = Some(number()?),
            "reservation" => update.reservation = Some(text()?),
            _ => return Err(format!("{key} cannot be updated")),
        }
    }
    Ok(update)
}

pub fn update(caller: &Caller, id: &str, body: &[u8]) -> Reply {
    const SOURCE: &str = "slurm_update_job";
    let Some(job_id) = id.parse::<u32>().ok().filter(|&n| n > 0) else {
        let code = spur_core::api::SlurmErrno::InvalidJobId;
        return Reply::document(
            vec![entry(
                &format!("Unable to parse JobId={id}"),
                code.code().into(),
                code.text(),
                SOURCE,
            )],
            Vec::new(),
        );
    };
    let update = match parse(body) {
        Ok(update) => update,
        Err(text) => {
            return Reply::document(
                vec![entry(&text, -1, "Unspecified error", SOURCE)],
                Vec::new(),
            )
        }
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
        Err(e) => Reply::document(
            vec![error_entry(
                &e,
                &format!("Job update requested failed for {id}"),
                SOURCE,
            )],
            Vec::new(),
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn updatable_properties() {
        let update =
            super::parse(br#"{"job": {"time_limit": 10, "name": "x", "nice": -5}}"#).unwrap();
        assert_eq!(update.time_limit_min, Some(Some(10)));
        assert_eq!(update.name.as_deref(), Some("x"));
        assert_eq!(update.nice, Some(-5));
        assert!(super::parse(br#"{"gres": "gpu:1"}"#).is_err());
        assert!(super::parse(br#"{"time_limit": -1}"#).is_err());
    }
}
