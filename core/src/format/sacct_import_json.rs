//! `sacct --json` output (Slurm 22.05's `openapi/dbv0.0.38` job dump) for `spur migrate import-jobs`, read into
//! the same records as the `-P` export ([`super::sacct_import`]). The dump is the weaker source and the docs say
//! so: it names users and groups but carries no uid or gid (the caller resolves them on the importing machine),
//! and 22.05's dump reports `SUCCESS`/0 for exit statuses that `-P` shows as `3:0` or `1:0`, so exit codes and
//! derived exit codes come through only as that dump gives them. Rows left out are the same as for `-P`.

use std::collections::BTreeMap;

use serde_json::Value;

use super::sacct_import::{ImportError, Imported};
use crate::format::units;
use crate::model::accounting::{JobAccounting, StepAccounting};
use crate::model::job_edit::JobEdits;
use crate::model::states::{JobBaseState, JobReason};

/// Looks a user or group name up on the importing machine.
pub type Resolve<'a> = &'a dyn Fn(&str) -> Option<u32>;

fn bad(job: &str, reason: impl Into<String>) -> ImportError {
    ImportError::Row {
        line: 0,
        reason: format!("job {job}: {}", reason.into()),
    }
}

fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

fn optional(v: &Value) -> Option<String> {
    v.as_str().filter(|t| !t.is_empty()).map(str::to_string)
}

fn number(v: &Value) -> Option<i64> {
    v.as_i64()
}

/// `{"status": ..., "return_code": N, "signal": {"signal_id": S}}` as (code, signal).
fn exit(v: &Value) -> (u32, u32) {
    let code = v["return_code"].as_u64().unwrap_or(0);
    let signal = v["signal"]["signal_id"].as_u64().unwrap_or(0);
    (
        u32::try_from(code).unwrap_or(0),
        u32::try_from(signal).unwrap_or(0),
    )
}

/// A TRES list (`[{"type": "mem", "name": null, "count": 1024}, ...]`) as sacct's TRES text, mem in its units;
/// entries without a count (energy) left out, in name order.
fn tres_text(list: &Value) -> String {
    let mut parts = Vec::new();
    for item in list.as_array().into_iter().flatten() {
        let Some(count) = item["count"].as_u64() else {
            continue;
        };
        let kind = item["type"].as_str().unwrap_or_default();
        let name = match item["name"].as_str() {
            Some(name) if !name.is_empty() => format!("{kind}/{name}"),
            _ => kind.to_string(),
        };
        let value = if kind == "mem" {
            units::mem_mb(count)
        } else {
            count.to_string()
        };
        parts.push((name, value));
    }
    // In name order, as sacct prints TRES (and as the `-P` export holds them).
    parts.sort();
    parts
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(",")
}

fn tres_count(list: &Value, kind: &str) -> Option<u64> {
    list.as_array()?
        .iter()
        .find(|i| i["type"] == kind && i["name"].is_null())?["count"]
        .as_u64()
}

fn state_of(name: &str) -> Option<JobBaseState> {
    JobBaseState::ALL
        .iter()
        .copied()
        .find(|s| s.long_name() == name)
}

/// Reads `sacct --json` output; `user`/`group` resolve the names the dump gives to ids.
pub fn parse_json(
    text_in: &str,
    user: Resolve<'_>,
    group: Resolve<'_>,
) -> Result<Imported, ImportError> {
    let doc: Value = serde_json::from_str(text_in).map_err(|e| ImportError::Row {
        line: e.line(),
        reason: format!("not sacct --json output: {e}"),
    })?;
    let jobs = doc["jobs"].as_array().ok_or_else(|| ImportError::Row {
        line: 0,
        reason: "not sacct --json output: no \"jobs\" list".into(),
    })?;
    let mut out = Imported::default();
    let mut requeued: BTreeMap<u32, u32> = BTreeMap::new();
    for job in jobs {
        if let Some(record) = job_of(job, user, group, &mut out.notes, &mut requeued)? {
            out.records.push(record);
        }
    }
    for record in &mut out.records {
        record.restarts = requeued.get(&record.job_id).copied().unwrap_or(0);
    }
    Ok(out)
}

fn job_of(
    job: &Value,
    user: Resolve<'_>,
    group: Resolve<'_>,
    notes: &mut Vec<String>,
    requeued: &mut BTreeMap<u32, u32>,
) -> Result<Option<JobAccounting>, ImportError> {
    let job_id = job["job_id"]
        .as_u64()
        .and_then(|id| u32::try_from(id).ok())
        .ok_or_else(|| bad("?", "no job_id"))?;
    let shown = job_id.to_string();
    if job["het"]["job_id"].as_u64().unwrap_or(0) != 0 {
        notes.push(format!(
            "job {shown}: heterogeneous job components are not imported"
        ));
        return Ok(None);
    }
    let state_name = job["state"]["current"].as_str().unwrap_or_default();
    if state_name == "REQUEUED" {
        *requeued.entry(job_id).or_default() += 1;
        return Ok(None);
    }
    let state = state_of(state_name).ok_or_else(|| bad(&shown, format!("state '{state_name}'")))?;
    if !state.is_finished() {
        notes.push(format!(
            "job {shown}: {state_name} (not finished), not imported"
        ));
        return Ok(None);
    }
    let user_name = text(&job["user"]);
    let user_id =
        user(&user_name).ok_or_else(|| bad(&shown, format!("no user '{user_name}' here")))?;
    let group_name = text(&job["group"]);
    let group_id =
        group(&group_name).ok_or_else(|| bad(&shown, format!("no group '{group_name}' here")))?;
    let cancelled_by = match (state, job["kill_request_user"].as_str()) {
        (JobBaseState::Cancelled, Some(name)) => user(name),
        _ => None,
    };
    let array_job = job["array"]["job_id"].as_u64().filter(|&a| a != 0);
    let array_task = job["array"]["task_id"].as_u64();
    let (array_job_id, array_task_id) = match (array_job, array_task) {
        (Some(a), Some(t)) => (u32::try_from(a).ok(), u32::try_from(t).ok()),
        _ => (None, None),
    };
    let time = &job["time"];
    let at = |key: &str| number(&time[key]).filter(|&t| t != 0);
    let submit = at("submission").ok_or_else(|| bad(&shown, "no submission time"))?;
    let nodes = job["allocation_nodes"]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    let alloc = &job["tres"]["allocated"];
    let cpus = tres_count(alloc, "cpu")
        .or_else(|| job["required"]["CPUs"].as_u64())
        .and_then(|c| u32::try_from(c).ok())
        .unwrap_or(0);
    let mem_total =
        tres_count(alloc, "mem").or_else(|| tres_count(&job["tres"]["requested"], "mem"));
    let (exit_code, exit_signal) = exit(&job["exit_code"]);
    let node_list = match job["nodes"].as_str() {
        Some("None assigned") | None => String::new(),
        Some(list) => list.to_string(),
    };
    let mut record = JobAccounting {
        job_id,
        array_job_id,
        array_task_id,
        name: text(&job["name"]),
        user_id,
        group_id,
        user_name,
        account: optional(&job["account"]),
        qos: optional(&job["qos"]),
        partition: text(&job["partition"]),
        state,
        cancelled_by,
        reason: JobReason::NoReason,
        submit,
        eligible: at("eligible"),
        start: at("start"),
        end: at("end"),
        elapsed_secs: number(&time["elapsed"]).unwrap_or(0),
        time_limit_min: time["limit"].as_u64().and_then(|m| u32::try_from(m).ok()),
        limit_from_partition: false,
        exit_code,
        exit_signal,
        priority: job["priority"]
            .as_u64()
            .and_then(|p| u32::try_from(p).ok())
            .unwrap_or(0),
        node_list,
        nodes,
        cpus,
        mem_per_node_mb: mem_total.map_or(0, |m| m / u64::from(nodes.max(1))),
        req_tres: tres_text(&job["tres"]["requested"]),
        alloc_tres: tres_text(alloc),
        work_dir: text(&job["working_directory"]),
        batch: false,
        extern_step: false,
        restarts: 0,
        steps: Vec::new(),
        edits: JobEdits {
            comment: optional(&job["comment"]["job"]),
            admin_comment: optional(&job["comment"]["administrator"]),
            system_comment: optional(&job["comment"]["system"]),
            wckey: optional(&job["wckey"]["wckey"]),
            ..JobEdits::default()
        },
        batch_usage: None,
        mem_per_node: false,
        imported: true,
    };
    for step in job["steps"].as_array().into_iter().flatten() {
        add_step(&mut record, step, notes)?;
    }
    Ok(Some(record))
}

fn add_step(
    record: &mut JobAccounting,
    step: &Value,
    notes: &mut Vec<String>,
) -> Result<(), ImportError> {
    let id = &step["step"]["id"];
    match id.as_str() {
        Some("batch") => record.batch = true,
        Some("extern") => record.extern_step = true,
        Some(other) => notes.push(format!(
            "step {}.{other}: not imported (Spur keeps no such step)",
            record.job_id
        )),
        None => {
            let shown = format!("{}.{id}", record.job_id);
            let step_id = id
                .as_u64()
                .and_then(|s| u32::try_from(s).ok())
                .ok_or_else(|| bad(&shown, "no step id"))?;
            let state_name = step["state"].as_str().unwrap_or_default();
            let state =
                state_of(state_name).ok_or_else(|| bad(&shown, format!("state '{state_name}'")))?;
            let time = &step["time"];
            let (exit_code, exit_signal) = exit(&step["exit_code"]);
            let count = |v: &Value| v.as_u64().and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
            record.steps.push(StepAccounting {
                step_id,
                name: text(&step["step"]["name"]),
                state,
                start: number(&time["start"]).ok_or_else(|| bad(&shown, "no start time"))?,
                end: number(&time["end"]).filter(|&t| t != 0),
                exit_code,
                exit_signal,
                node_list: text(&step["nodes"]["range"]),
                nodes: count(&step["nodes"]["count"]),
                tasks: count(&step["tasks"]["count"]),
                cpus: tres_count(&step["tres"]["allocated"], "cpu")
                    .and_then(|c| u32::try_from(c).ok())
                    .unwrap_or(0),
                elapsed_secs: number(&time["elapsed"]).unwrap_or(0),
                usage: None,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::sacct_import::parse_parsable;

    const JSON: &str =
        include_str!("../../../conformance/cases/625-migrate-import-jobs/slurm-sacct.json");
    const PARSABLE: &str =
        include_str!("../../../conformance/cases/625-migrate-import-jobs/slurm-sacct.txt");

    fn root(name: &str) -> Option<u32> {
        (name == "root").then_some(0)
    }

    /// The same jobs, dumped both ways by real Slurm, read into the same records but for what 22.05's JSON dump
    /// loses (exit statuses) and what `-P` alone carries (the derived exit code).
    #[test]
    fn the_json_dump_reads_as_the_parsable_export_but_for_exit_statuses() {
        let mut from_json = parse_json(JSON, &root, &root).expect("json");
        let mut from_parsable = parse_parsable(PARSABLE, 0).expect("parsable");
        // The dump lists an array's tasks in another order.
        from_json.records.sort_by_key(|r| (r.job_id, r.submit));
        from_parsable.records.sort_by_key(|r| (r.job_id, r.submit));
        assert!(from_json.notes.is_empty(), "{:?}", from_json.notes);
        assert_eq!(from_json.records.len(), from_parsable.records.len());
        for (mut j, mut p) in from_json.records.into_iter().zip(from_parsable.records) {
            for r in [&mut j, &mut p] {
                r.exit_code = 0;
                r.edits.derived_ec = None;
                for s in &mut r.steps {
                    s.exit_code = 0;
                }
            }
            assert_eq!(j, p);
        }
    }

    #[test]
    fn unknown_users_and_other_documents_are_refused() {
        let nobody = |_: &str| None;
        let err = parse_json(JSON, &nobody, &root).unwrap_err().to_string();
        assert!(err.contains("no user 'root' here"), "{err}");
        assert!(parse_json("{\"meta\": {}}", &root, &root).is_err());
        assert!(parse_json("JobID|State", &root, &root).is_err());
    }
}
