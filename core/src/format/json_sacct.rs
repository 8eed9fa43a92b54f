//! `sacct --json`: Slurm 22.05's sacct hands its query to the `openapi/dbv0.0.38` plugin's job dump, so the
//! document is slurmrestd's `/slurmdb/v0.0.38/jobs/` answer: `meta`, `errors` (`Nothing found` when no job
//! matched), then `jobs`, each with its `steps`. Fields Spur does not keep (usage, wckeys, comments, reservations)
//! print as slurmdbd prints them for a job without them.

use super::json::Json;
use super::sacct::Context;
use crate::grammar::hostlist;
use crate::model::accounting::{JobAccounting, Row, RowKind};
use crate::model::states::JobBaseState;

/// The document for `rows` (as [`crate::model::accounting::Filter::rows`] gives them: each job's row followed by
/// its steps' rows).
pub fn document(rows: &[Row<'_>], ctx: &Context) -> String {
    let mut jobs: Vec<(&JobAccounting, Vec<Json>)> = Vec::new();
    for row in rows {
        let same_job = jobs.last().is_some_and(|(j, _)| std::ptr::eq(*j, row.job));
        if row.kind == RowKind::Job || !same_job {
            jobs.push((row.job, Vec::new()));
        }
        if row.kind != RowKind::Job {
            if let Some((_, steps)) = jobs.last_mut() {
                steps.push(step(row));
            }
        }
    }
    let errors = if jobs.is_empty() {
        vec![Json::obj(vec![
            ("description", Json::str("Nothing found")),
            ("error_number", Json::Int(9003)),
            ("error", Json::str("Nothing found with query")),
            ("source", Json::str("slurmdb_jobs_get")),
        ])]
    } else {
        Vec::new()
    };
    let jobs: Vec<Json> = jobs
        .into_iter()
        .map(|(j, steps)| job(j, steps, ctx))
        .collect();
    Json::obj(vec![
        ("meta", meta()),
        ("errors", Json::Arr(errors)),
        ("jobs", Json::Arr(jobs)),
    ])
    .to_pretty()
}

fn meta() -> Json {
    let mut meta = super::json::meta();
    if let Json::Obj(pairs) = &mut meta {
        if let Some((_, plugin)) = pairs.iter_mut().find(|(k, _)| k == "plugin") {
            *plugin = Json::obj(vec![
                ("type", Json::str("openapi/dbv0.0.38")),
                ("name", Json::str("Slurm OpenAPI DB v0.0.38")),
            ]);
        }
    }
    meta
}

fn int(v: impl Into<i64>) -> Json {
    Json::Int(v.into())
}

fn seconds_pair() -> Json {
    Json::obj(vec![("seconds", int(0)), ("microseconds", int(0))])
}

fn user(uid: u32, job: &JobAccounting, ctx: &Context) -> String {
    ctx.users
        .get(&uid)
        .cloned()
        .or_else(|| {
            (uid == job.user_id && !job.user_name.is_empty()).then(|| job.user_name.clone())
        })
        .unwrap_or_else(|| uid.to_string())
}

/// The dump of an exit status: a signal shows `SIGNALED` with it; any other status `SUCCESS` with return code 0,
/// whatever the code was (the v0.0.38 plugin tests `WIFEXITED` and prints 0; `ExitCode` in the table has it).
fn exit_code(signal: u32) -> Json {
    if signal == 0 {
        return Json::obj(vec![
            ("status", Json::str("SUCCESS")),
            ("return_code", int(0)),
        ]);
    }
    Json::obj(vec![
        ("status", Json::str("SIGNALED")),
        ("return_code", Json::Null),
        (
            "signal",
            Json::obj(vec![
                ("signal_id", int(signal)),
                ("name", Json::str(signal_name(signal))),
            ]),
        ),
    ])
}

/// glibc's `strsignal` for the signals jobs end with.
fn signal_name(signal: u32) -> String {
    match signal {
        1 => "Hangup".into(),
        2 => "Interrupt".into(),
        3 => "Quit".into(),
        4 => "Illegal instruction".into(),
        6 => "Aborted".into(),
        7 => "Bus error".into(),
        8 => "Floating point exception".into(),
        9 => "Killed".into(),
        10 => "User defined signal 1".into(),
        11 => "Segmentation fault".into(),
        12 => "User defined signal 2".into(),
        13 => "Broken pipe".into(),
        14 => "Alarm clock".into(),
        15 => "Terminated".into(),
        n => format!("Unknown signal {n}"),
    }
}

/// A TRES string (`billing=1,cpu=1,mem=100M,node=1`) as the plugin lists it: in TRES id order, memory in MB.
fn tres_list(tres: &str, with_billing: bool) -> Json {
    let mut items: Vec<(u32, Json)> = Vec::new();
    for (key, value) in tres.split(',').filter_map(|p| p.split_once('=')) {
        let (id, kind, name) = match key {
            "cpu" => (1, "cpu", None),
            "mem" => (2, "mem", None),
            "energy" => (3, "energy", None),
            "node" => (4, "node", None),
            "billing" if with_billing => (5, "billing", None),
            "billing" => continue,
            other => match other.split_once('/') {
                Some((kind, name)) => (1000 + items.len() as u32 + 1, kind, Some(name)),
                None => continue,
            },
        };
        let count = if key == "mem" {
            mem_mb(value)
        } else {
            value.parse::<i64>().unwrap_or(0)
        };
        items.push((
            id,
            Json::obj(vec![
                ("type", Json::str(kind)),
                ("name", name.map_or(Json::Null, Json::str)),
                ("id", int(id)),
                ("count", int(count)),
            ]),
        ));
    }
    items.sort_by_key(|(id, _)| *id);
    Json::Arr(items.into_iter().map(|(_, j)| j).collect())
}

/// `100M`, `2G`, `1024` (MB) as megabytes.
fn mem_mb(value: &str) -> i64 {
    let digits = value.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let Ok(n) = digits.parse::<f64>() else {
        return 0;
    };
    let factor = match &value[digits.len()..] {
        "K" => 1.0 / 1024.0,
        "G" => 1024.0,
        "T" => 1024.0 * 1024.0,
        "P" => 1024.0 * 1024.0 * 1024.0,
        _ => 1.0,
    };
    (n * factor).round() as i64
}

fn job(job: &JobAccounting, steps: Vec<Json>, ctx: &Context) -> Json {
    let owner = user(job.user_id, job, ctx);
    let account = job.account_shown().to_string();
    let started = job.start.is_some();
    let derived_signal = derived_exit(job).1;
    let job_row = job.rows().into_iter().find(|r| r.kind == RowKind::Job);
    let signal = job_row.map_or(0, |r| r.exit_signal);
    let limit = match (job.limit_from_partition, job.time_limit_min) {
        (false, Some(m)) => int(m),
        _ => Json::Null,
    };
    let mut flags = vec![Json::str("CLEAR_SCHEDULING")];
    if started {
        flags.push(Json::str("STARTED_ON_SCHEDULE"));
    }
    Json::obj(vec![
        ("account", Json::str(account.clone())),
        (
            "comment",
            Json::obj(vec![
                ("administrator", Json::Null),
                ("job", Json::Null),
                ("system", Json::Null),
            ]),
        ),
        ("allocation_nodes", int(if started { job.nodes } else { 0 })),
        (
            "array",
            Json::obj(vec![
                ("job_id", int(job.array_job_id.unwrap_or(0))),
                (
                    "limits",
                    Json::obj(vec![(
                        "max",
                        Json::obj(vec![("running", Json::obj(vec![("tasks", int(0))]))]),
                    )]),
                ),
                ("task", Json::Null),
                ("task_id", job.array_task_id.map_or(Json::Null, int)),
            ]),
        ),
        (
            "association",
            Json::obj(vec![
                ("account", Json::str(account)),
                ("cluster", Json::str(ctx.cluster.clone())),
                ("partition", Json::Null),
                ("user", Json::str(owner.clone())),
            ]),
        ),
        ("cluster", Json::str(ctx.cluster.clone())),
        ("constraints", Json::str("")),
        ("container", Json::Null),
        ("derived_exit_code", exit_code(derived_signal)),
        (
            "time",
            Json::obj(vec![
                ("elapsed", int(job.elapsed_secs)),
                ("eligible", int(job.eligible.unwrap_or(0))),
                ("end", int(job.end.unwrap_or(0))),
                ("start", int(job.start.unwrap_or(0))),
                ("submission", int(job.submit)),
                ("suspended", int(0)),
                ("system", seconds_pair()),
                ("limit", limit),
                ("total", seconds_pair()),
                ("user", seconds_pair()),
            ]),
        ),
        ("exit_code", exit_code(signal)),
        ("flags", Json::Arr(flags)),
        (
            "group",
            Json::str(
                ctx.groups
                    .get(&job.group_id)
                    .cloned()
                    .unwrap_or_else(|| job.group_id.to_string()),
            ),
        ),
        (
            "het",
            Json::obj(vec![("job_id", int(0)), ("job_offset", Json::Null)]),
        ),
        ("job_id", int(job.job_id)),
        ("name", Json::str(job.name.clone())),
        ("mcs", Json::obj(vec![("label", Json::str(""))])),
        (
            "nodes",
            Json::str(if job.node_list.is_empty() {
                "None assigned".to_string()
            } else {
                job.node_list.clone()
            }),
        ),
        ("partition", Json::str(job.partition.clone())),
        ("priority", int(job.priority)),
        (
            "qos",
            Json::str(job.qos.clone().unwrap_or_else(|| "normal".to_string())),
        ),
        (
            "required",
            Json::obj(vec![
                ("CPUs", int(job.cpus)),
                (
                    "memory",
                    int(i64::try_from(job.mem_per_node_mb).unwrap_or(i64::MAX)),
                ),
            ]),
        ),
        (
            "kill_request_user",
            job.cancelled_by
                .map_or(Json::Null, |uid| Json::str(user(uid, job, ctx))),
        ),
        (
            "reservation",
            Json::obj(vec![("id", int(0)), ("name", int(0))]),
        ),
        (
            "state",
            Json::obj(vec![
                ("current", Json::str(job.state.long_name())),
                ("reason", Json::str(super::sacct::reason_text(job))),
            ]),
        ),
        ("steps", Json::Arr(steps)),
        (
            "tres",
            Json::obj(vec![
                ("allocated", tres_list(&job.alloc_tres, true)),
                ("requested", tres_list(&job.req_tres, true)),
            ]),
        ),
        ("user", Json::str(owner)),
        (
            "wckey",
            Json::obj(vec![
                ("wckey", Json::str("")),
                ("flags", Json::Arr(Vec::new())),
            ]),
        ),
        ("working_directory", Json::str(job.work_dir.clone())),
    ])
}

fn derived_exit(job: &JobAccounting) -> (u32, u32) {
    job.steps
        .iter()
        .filter(|s| s.state != JobBaseState::Running)
        .map(|s| (s.exit_code, s.exit_signal))
        .max()
        .unwrap_or((0, 0))
}

/// The energy TRES slurmdbd lists for a step's usage when nothing was measured.
fn energy_only() -> Json {
    Json::Arr(vec![Json::obj(vec![
        ("type", Json::str("energy")),
        ("name", Json::Null),
        ("id", int(3)),
        ("count", int(0)),
    ])])
}

fn usage_block() -> Json {
    Json::obj(vec![
        ("max", Json::Arr(Vec::new())),
        ("min", Json::Arr(Vec::new())),
        ("average", energy_only()),
        ("total", energy_only()),
    ])
}

fn step(row: &Row<'_>) -> Json {
    let job = row.job;
    let id = match row.kind {
        RowKind::Batch => Json::str("batch"),
        RowKind::Extern => Json::str("extern"),
        RowKind::Step(n) => int(n),
        RowKind::Job => Json::Null,
    };
    // The batch and extern steps are written by slurmctld with no request of their own: no frequencies, no
    // distribution; an srun step without --cpu-freq carries NO_VAL, which the plugin reads as governor flags.
    let whole_job = matches!(row.kind, RowKind::Batch | RowKind::Extern);
    let names = hostlist::expand(&row.node_list).unwrap_or_default();
    let mem = job.mem_per_node_mb.saturating_mul(u64::from(row.nodes));
    let allocated = format!("cpu={},mem={mem}M,node={}", row.cpus, row.nodes);
    Json::obj(vec![
        (
            "nodes",
            Json::obj(vec![
                (
                    "list",
                    Json::Arr(names.into_iter().map(Json::Str).collect()),
                ),
                ("count", int(row.nodes)),
                ("range", Json::str(row.node_list.to_string())),
            ]),
        ),
        (
            "tres",
            Json::obj(vec![
                ("requested", usage_block()),
                ("consumed", usage_block()),
                ("allocated", tres_list(&allocated, false)),
            ]),
        ),
        (
            "time",
            Json::obj(vec![
                ("elapsed", int(row.elapsed_secs)),
                ("end", int(row.end.unwrap_or(0))),
                ("start", int(row.start.unwrap_or(0))),
                ("suspended", int(0)),
                ("system", seconds_pair()),
                ("total", seconds_pair()),
                ("user", seconds_pair()),
            ]),
        ),
        ("exit_code", exit_code(row.exit_signal)),
        (
            "tasks",
            Json::obj(vec![("count", int(row.tasks.unwrap_or(1)))]),
        ),
        ("pid", Json::Null),
        ("CPU", cpu_frequency(whole_job)),
        ("kill_request_user", Json::Null),
        ("state", Json::str(row.state.long_name())),
        (
            "statistics",
            Json::obj(vec![
                ("CPU", Json::obj(vec![("actual_frequency", int(0))])),
                ("energy", Json::obj(vec![("consumed", int(0))])),
            ]),
        ),
        (
            "step",
            Json::obj(vec![
                ("job_id", int(job.job_id)),
                ("het", Json::obj(vec![("component", Json::Null)])),
                ("id", id),
                ("name", Json::str(row.name)),
            ]),
        ),
        (
            "task",
            Json::obj(vec![(
                "distribution",
                Json::str(if whole_job { "Unknown" } else { "Cyclic" }),
            )]),
        ),
    ])
}

fn cpu_frequency(whole_job: bool) -> Json {
    if whole_job {
        return Json::obj(vec![
            (
                "requested_frequency",
                Json::obj(vec![("min", int(0)), ("max", int(0))]),
            ),
            ("governor", Json::Arr(Vec::new())),
        ]);
    }
    Json::obj(vec![
        (
            "requested_frequency",
            Json::obj(vec![("min", Json::Null), ("max", Json::Null)]),
        ),
        (
            "governor",
            Json::Arr(
                [
                    "Conservative",
                    "Performance",
                    "PowerSave",
                    "OnDemand",
                    "UserSpace",
                ]
                .into_iter()
                .map(Json::str)
                .collect(),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tres_lists_in_id_order_with_memory_in_megabytes() {
        let Json::Arr(items) = tres_list("billing=2,cpu=2,mem=2G,node=1", true) else {
            panic!("not a list");
        };
        let ids: Vec<Json> = items
            .iter()
            .map(|i| match i {
                Json::Obj(p) => p.iter().find(|(k, _)| k == "count").unwrap().1.clone(),
                _ => Json::Null,
            })
            .collect();
        assert_eq!(ids, [int(2), int(2048), int(1), int(2)]);
        let Json::Arr(no_billing) = tres_list("billing=2,cpu=2", false) else {
            panic!("not a list");
        };
        assert_eq!(no_billing.len(), 1);
    }

    #[test]
    fn exit_codes_dump_as_the_v0_0_38_plugin() {
        assert_eq!(
            exit_code(0).to_pretty(),
            "{\n  \"status\": \"SUCCESS\",\n  \"return_code\": 0\n}"
        );
        let signaled = exit_code(9).to_pretty();
        assert!(signaled.contains("\"SIGNALED\""));
        assert!(signaled.contains("\"name\": \"Killed\""));
    }

    #[test]
    fn no_rows_is_nothing_found() {
        let text = document(&[], &Context::default());
        assert!(text.contains("\"error_number\": 9003"));
        assert!(text.contains("\"type\": \"openapi\\/dbv0.0.38\""));
        assert!(text.ends_with("\"jobs\": [\n  ]\n}"));
    }
}
